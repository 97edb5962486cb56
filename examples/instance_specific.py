"""Instance-specific classifiers on the embedded soybean data: accuracy, LTAN's
diagnostics, and the networks built for one row that LTAN reconsidered.

Writes into the folder given as the first argument (default: the current folder):

* ``ltan_explained.png``: for a row whose answer the label-driven framework
  changed, the generalist TAN, the refined generalist TAN-IE and one expert per
  label kept, one above the other (arcs the generalist lacks in red);
* ``ltan_explained.txt``: the same explanation as text (structures and posteriors);

and prints the held-out accuracy of TAN, LKDB, AKDB, LTAN, KDB(k=2) and
TargetKDB(k=2), then LTAN's LLP, r-bar, CP, LP and kappa.

    python examples/instance_specific.py out/
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from bnclf import make_classifier  # noqa: E402
from bnclf.datasets import load_dataset  # noqa: E402
from bnclf.plot._explanations import draw_explanation  # noqa: E402

SPECS = ["tan", "lkdb", "akdb", "ltan", "kdb(k=2)", "targetkdb(k=2)"]


def main(out="."):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    X, y = load_dataset("soybean")  # 683 rows, 35 nominal attributes, 19 diseases
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=0)
    models = {}
    for spec in SPECS:
        models[spec] = make_classifier(spec).fit(X_train, y_train)
        print(f"{spec:>15}: accuracy {models[spec].score(X_test, y_test):.4f}")

    ltan = models["ltan"]
    diag = ltan.diagnose(X_test, y_test)
    print(
        f"LTAN: {diag['n_reconsidered']} of {len(X_test)} rows reconsidered "
        f"(LLP {diag['llp']:.1f}%), r-bar {diag['r_bar']:.2f}, CP {diag['cp']:.1f}%, "
        f"LP {diag['lp']:.1f}%, kappa {diag['kappa']:.3f}"
    )

    # a reconsidered row whose answer the framework changed (else any reconsidered row)
    parts = ltan.local_structures(X_test)
    changed = parts["reconsidered"] & (parts["generalist_proba"].argmax(1) != ltan.predict_proba(X_test).argmax(1))
    rows = np.flatnonzero(changed) if changed.any() else np.flatnonzero(parts["reconsidered"])
    row = X_test.iloc[[rows[0]]]
    explanation = ltan.explain(row)
    text = f"true label: {y_test.iloc[rows[0]]}\n{explanation}"
    (out / "ltan_explained.txt").write_text(text + "\n")
    print(text)
    # one panel per row: 35 features make each network about a page wide
    axes = draw_explanation(explanation, parts=list(explanation.networks)[:4], ncols=1)
    fig = axes.flat[0].figure
    fig.savefig(out / "ltan_explained.png", dpi=90)
    plt.close(fig)
    return models, explanation


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
