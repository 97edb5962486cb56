"""Fit NB, TAN and KDB on the embedded heart-c data and draw the three structures.

Writes ``nb_heart-c.png``, ``tan_heart-c.png`` and ``kdb_heart-c.png`` (one drawing per
model, each sized to its network so that its labels keep their size) and
``tan_heart-c.bif`` (+ name map) into the folder given as the first argument (default:
the current folder), and prints each model's accuracy on a held-out third of the data.

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
    written = []
    for short, clf in (("nb", NaiveBayesClassifier()), ("tan", TANClassifier()), ("kdb", KDBClassifier(k=2))):
        model = make_pipeline(MDLDiscretizer(), clf).fit(X_train, y_train)
        accuracy = model.score(X_test, y_test)
        name = type(clf).__name__.replace("Classifier", "")
        print(f"{name:<12} held-out accuracy {accuracy:.4f}")
        # a figure of its own, sized to the network: the three drawings in one row would be
        # shown at a third of their size on a page
        ax = draw_structure(model[-1], title=f"{name}: accuracy {accuracy:.3f}")
        ax.figure.savefig(out / f"{short}_heart-c.png", dpi=100)
        plt.close(ax.figure)
        written.append(f"{short}_heart-c.png")
        if isinstance(clf, TANClassifier):
            write_network(model[-1], out / "tan_heart-c.bif")
            written.append("tan_heart-c.bif")
    print(f"wrote {', '.join(written)} into the output folder")


if __name__ == "__main__":
    main(*sys.argv[1:])
