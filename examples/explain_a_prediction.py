"""Why did TAN get this patient wrong? Exact per-feature contributions on heart-c: the
learned network, the log-odds of a misclassified row split feature by feature, and its
waterfall from the class prior to the posterior.

Writes into the folder given as the first argument (default: the current folder):

* ``explain_heart-c_tan.png``: the TAN learned on two thirds of heart-c (MDL bins);
* ``explain_heart-c_waterfall.png``: the first misclassified held-out row, its log-odds
  of the predicted class against the true one built up from the prior, feature by
  feature (green toward the prediction, red away);

and prints that row's contributions, which add up to its posterior log-odds exactly.
In a notebook, ``model[-1].network_`` (or ``network_members()``) shows itself drawn.

    python examples/explain_a_prediction.py out/
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from bnclf import MDLDiscretizer, TANClassifier  # noqa: E402
from bnclf.datasets import load_dataset  # noqa: E402
from bnclf.plot import draw_contributions, draw_structure  # noqa: E402


def main(out="."):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    X, y = load_dataset("heart-c")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=0)
    model = make_pipeline(MDLDiscretizer(), TANClassifier()).fit(X_train, y_train)
    print(f"held-out accuracy {model.score(X_test, y_test):.3f}")

    ax = draw_structure(model[-1], title="TAN on heart-c (MDL bins)")
    ax.figure.savefig(out / "explain_heart-c_tan.png", dpi=110)
    plt.close(ax.figure)

    wrong = np.flatnonzero(model.predict(X_test) != y_test.to_numpy())
    row = X_test.iloc[[wrong[0]]]
    truth = y_test.iloc[wrong[0]]
    table = model[-1].contributions(model[:-1].transform(row), against=truth)
    terms = table.iloc[0]
    print(f"row {row.index[0]}: true class {truth!r}, predicted {table.index[0][1]!r}")
    print(terms[terms != 0].sort_values(key=abs, ascending=False).round(3).to_string())
    log_proba = model.predict_log_proba(row)[0]
    classes = list(model.classes_)
    exact = log_proba[classes.index(table.index[0][1])] - log_proba[classes.index(truth)]
    print(f"sum {terms.sum():.12f} = log-odds {exact:.12f}")

    ax = draw_contributions(model, row, against=truth, max_features=10)
    ax.figure.savefig(out / "explain_heart-c_waterfall.png", dpi=110)
    plt.close(ax.figure)
    return model, table


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
