"""RMCV and its comparators on the embedded heart-c data (303 patients, 13 attributes,
heart disease yes/no): held-out accuracy, the learned unrestricted structure with its
Markov blanket, and RMCV's search trace.

Writes into the folder given as the first argument (default: the current folder):

* ``rmcv_heart-c.png``: RMCV's network (searched from the empty graph): arcs into the
  class in orange, features outside the class's Markov blanket pale;
* ``rmcv_trace_heart-c.png``: the cross-validated 0/1 loss after every accepted move,
  and how many neighbours each step had against how many had to be scored;
* ``rmcv_heart-c.bif``: the network, for pgmpy or any BIF reader;

and prints the held-out accuracy of NB, TAN, RMCV (NB and empty starts), MDL and K2
hill climbing, BNC-MDL and BNC-2P, with each model's Markov blanket size.

    python examples/rmcv.py out/
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
from bnclf.plot._structures import draw_structure  # noqa: E402
from bnclf.plot._traces import draw_search_trace  # noqa: E402

SPECS = [
    "nb",
    "tan",
    "rmcv(random_state=0)",
    "rmcv(start=empty, random_state=0)",
    "hc(criterion=mdl)",
    "hc(criterion=k2, start=empty)",
    "bnc-mdl",
    "bnc-2p",
]


def main(out="."):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    X, y = load_dataset("heart-c")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=0)
    models = {}
    for spec in SPECS:
        model = make_pipeline(MDLDiscretizer(), make_classifier(spec)).fit(X_train, y_train)
        models[spec] = model
        blanket = getattr(model[-1], "markov_blanket_", X.columns)
        print(
            f"{spec:<36s} accuracy {model.score(X_test, y_test):.3f}   "
            f"Markov blanket {len(blanket)} of {X.shape[1]} features"
        )
    rmcv = models["rmcv(start=empty, random_state=0)"][-1]
    ax = draw_structure(rmcv, title="RMCV from the empty graph, heart-c")
    ax.figure.savefig(out / "rmcv_heart-c.png", dpi=110, bbox_inches="tight")
    plt.close(ax.figure)
    axes = draw_search_trace(rmcv, title="RMCV search (4-fold CV 0/1 loss)")
    axes[0].figure.savefig(out / "rmcv_trace_heart-c.png", dpi=110, bbox_inches="tight")
    plt.close(axes[0].figure)
    write_network(rmcv, out / "rmcv_heart-c.bif")
    print("Markov blanket of RMCV (empty start):", rmcv.markov_blanket_)
    print(rmcv.search_trace_.to_string(index=False))
    return models


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
