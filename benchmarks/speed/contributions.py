"""Exact contributions: their cost next to predict_proba, and against pyAgrum's Shapley values.

For NB, TAN, KDB(k=2) and the Chow-Liu multinet fitted on kr-vs-kp (3,196 rows x 36
attributes), the median time (5 runs) of ``predict_proba`` and of ``contributions`` on all
rows, complete and with 20 % of the cells blanked (summed out); for TAN also pyAgrum 2.x's
``pyagrum.explain.ShapValues`` (conditional Shapley values of the class on the exported
network, a sampling-free but exponential computation, run on a few rows) when pyAgrum is
installed, in the same process. Writes ``benchmarks/results/contributions.json`` and prints a
Markdown table.

Run: ``python -m benchmarks.speed contributions [--repeats 5] [--out PATH]``.
"""

from __future__ import annotations

import argparse
import platform
import warnings
from datetime import date
from pathlib import Path

import numpy as np

from benchmarks.speed.harness import RESULTS, best_of, median_of, write_json
from bnclf import ChowLiuMultinetClassifier, KDBClassifier, NaiveBayesClassifier, TANClassifier
from bnclf.datasets import load_dataset


def pyagrum_shap(model, X, rows):
    """Seconds per row of pyAgrum's conditional Shapley values on the exported network, or None."""
    try:
        import pyagrum as gum
        import pyagrum.explain as explain
    except ImportError as error:  # pyAgrum's explain module needs IPython
        return f"unavailable: {error}"
    import tempfile

    from bnclf.io import write_network

    with tempfile.TemporaryDirectory() as folder:
        path = write_network(model, Path(folder) / "model.bifxml")
        bn = gum.loadBN(str(path))
    names = [bn.variable(i).name() for i in bn.nodes()]
    frame = X.iloc[:rows].astype(str)
    frame = frame[[c for c in frame.columns if c in names]]
    target = model.class_name_ if isinstance(model.class_name_, str) else str(model.class_name_)
    try:
        seconds, _ = best_of(lambda: explain.ShapValues(bn, target).conditional(frame, plot=False), 1)
    except Exception as error:  # an API that differs between pyAgrum versions: report it
        return f"failed: {type(error).__name__}: {error}"[:200]
    return seconds / rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of each timing; the median is kept")
    parser.add_argument("--out", type=Path, default=RESULTS / "contributions.json")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    X, y = load_dataset("kr-vs-kp")
    blanked = X.astype(object).mask(np.random.default_rng(0).random(X.shape) < 0.2)
    results = []
    for model in [NaiveBayesClassifier(), TANClassifier(), KDBClassifier(k=2), ChowLiuMultinetClassifier()]:
        model.fit(X, y)
        entry = {"model": repr(model), "rows": len(X)}
        for name, data in [("complete", X), ("20% summed out", blanked)]:
            predict, _ = median_of(lambda: model.predict_proba(data), args.repeats)
            explain, _ = median_of(lambda: model.contributions(data), args.repeats)
            entry[name] = {"predict_proba_s": predict, "contributions_s": explain, "ratio": explain / predict}
        if isinstance(model, TANClassifier):
            entry["pyagrum_shap_s_per_row"] = pyagrum_shap(model, X, rows=3)
        results.append(entry)
        print(entry, flush=True)
    out = {
        "date": str(date.today()),
        "machine": platform.platform(),
        "python": platform.python_version(),
        "results": results,
    }
    write_json(args.out, out, indent=2)
    print("| model | predict_proba (s) | contributions (s) | x | with 20 % summed out: predict | contributions | x |")
    print("|---|---|---|---|---|---|---|")
    for e in results:
        c, m = e["complete"], e["20% summed out"]
        print(
            f"| {e['model']} | {c['predict_proba_s']:.4f} | {c['contributions_s']:.4f} | {c['ratio']:.0f} | "
            f"{m['predict_proba_s']:.4f} | {m['contributions_s']:.4f} | {m['ratio']:.0f} |"
        )


if __name__ == "__main__":
    main()
