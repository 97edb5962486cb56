"""Fit the ensembles and multinets on the embedded heart-c data, compare them, draw them.

Writes into the folder given as the first argument (default: the current folder):

* ``bmccl_heart-c.png``: the Chow–Liu multinet, one panel per class label;
* ``etan_heart-c.png``: ETAN(k=2), one k-dependence sub-model per label;
* ``watan_heart-c.png``: the first four TANs of WATAN with their weights;
* ``bmccl_heart-c.xmlbif.manifest.json`` and one XMLBIF file per label, verified on write;

and prints the accuracy of each model on a held-out third of the data.

    python examples/ensembles_and_multinets.py out/
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from bnclf import MDLDiscretizer, make_classifier  # noqa: E402
from bnclf.datasets import load_dataset  # noqa: E402
from bnclf.io._networks import write_network  # noqa: E402
from bnclf.plot._structures import draw_members  # noqa: E402

SPECS = ["nb", "tan", "kdb(k=2)", "aode", "waode", "atan", "watan", "bmccl", "etan(k=2)"]


def main(out="."):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    X, y = load_dataset("heart-c")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=0)
    models = {}
    for spec in SPECS:
        model = make_pipeline(MDLDiscretizer(), make_classifier(spec)).fit(X_train, y_train)
        models[spec] = model
        print(f"{spec:10s} accuracy {model.score(X_test, y_test):.3f}")
    # panels per row: two while the figure stays about as wide as a page; the multinet's
    # first member is wide, so its two panels go one above the other
    for spec, name, members, ncols in (
        ("bmccl", "bmccl", None, 1),
        ("etan(k=2)", "etan", None, 2),
        ("watan", "watan", [0, 1, 2, 3], 2),
    ):
        est = models[spec][-1]
        axes = draw_members(est, members=members, ncols=ncols, title=f"{type(est).__name__} on heart-c")
        fig = axes.flat[0].figure
        fig.tight_layout()
        fig.savefig(out / f"{name}_heart-c.png", dpi=100)
        plt.close(fig)
    manifest = write_network(models["bmccl"][-1], out / "bmccl_heart-c.xmlbif")
    print(f"wrote {manifest.name} and one XMLBIF file per class")
    return models


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
