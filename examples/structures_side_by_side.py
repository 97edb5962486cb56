"""Fit NB, TAN and KDB on the embedded heart-c data and draw the three structures.

Writes ``structures_heart-c.png`` and ``tan_heart-c.bif`` (+ name map) into the folder given
as the first argument (default: the current folder), and prints each model's accuracy on
a held-out third of the data.

    python examples/structures_side_by_side.py out/
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from bnclf import KDBClassifier, MDLDiscretizer, NaiveBayesClassifier, TANClassifier  # noqa: E402
from bnclf.datasets import load_dataset  # noqa: E402
from bnclf.io._networks import write_network  # noqa: E402
from bnclf.plot._structures import draw_structure  # noqa: E402


def main(out="."):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    X, y = load_dataset("heart-c")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=0)
    fig, axes = plt.subplots(1, 3, figsize=(21, 7))
    for ax, clf in zip(axes, [NaiveBayesClassifier(), TANClassifier(), KDBClassifier(k=2)]):
        model = make_pipeline(MDLDiscretizer(), clf).fit(X_train, y_train)
        accuracy = model.score(X_test, y_test)
        name = type(clf).__name__.replace("Classifier", "")
        draw_structure(model[-1], ax=ax, title=f"{name}: accuracy {accuracy:.3f}")
        print(f"{name:<12} held-out accuracy {accuracy:.4f}")
        if isinstance(clf, TANClassifier):
            write_network(model[-1], out / "tan_heart-c.bif")
    fig.tight_layout()
    fig.savefig(out / "structures_heart-c.png", dpi=100)
    print(f"wrote {out / 'structures_heart-c.png'} and {out / 'tan_heart-c.bif'}")


if __name__ == "__main__":
    main(*sys.argv[1:])
