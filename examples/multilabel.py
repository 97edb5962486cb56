"""Multilabel Bayesian network classifiers on the embedded emotions data (Corani et al. 2014).

Fits mNB (naive class subgraph) on 80% of the MULAN emotions set (593 songs, 72
numeric audio features, 6 emotion labels), then asks it the joint MAP, marginal
and conditional questions worked through in ``docs/multilabel.md``, checks one
answer against pgmpy's exact inference on the exported network, and draws the
model.

Run: ``python examples/multilabel.py [OUT_FOLDER]`` (drawings go there; default ``.``).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

from bnclf import MultilabelBNClassifier
from bnclf.datasets import load_multilabel_dataset


def main(out="."):
    out = Path(out)
    X, Y = load_multilabel_dataset("emotions")
    cut = int(0.8 * len(X))
    model = MultilabelBNClassifier(class_graph="nb").fit(X.iloc[:cut], Y.iloc[:cut])
    test_X, test_Y = X.iloc[cut:], Y.iloc[cut:].to_numpy()
    print(
        f"root: {model.root_}; selected features: {len(model.selected_features_)} of {X.shape[1]}; "
        f"treewidth: {model.treewidth_}"
    )
    print("class subgraph:", sorted((u, v) for u, v in model.dag_.edges if v in model.label_names_))
    sizes = np.bincount([len(p) for p in model.bridge_parents_.values()])
    print("features by number of class parents:", dict(enumerate(sizes.tolist())))

    pred = model.predict(test_X)
    model.set_params(allow_empty=True)
    plain = model.predict(test_X)
    model.set_params(allow_empty=False)
    print(
        f"global accuracy {np.mean((pred == test_Y).all(axis=1)):.3f} "
        f"(empty allowed: {np.mean((plain == test_Y).all(axis=1)):.3f}, "
        f"{int((~plain.any(axis=1)).sum())} empty answers); "
        f"Hamming accuracy {np.mean(pred == test_Y):.3f}"
    )

    rows = test_X.iloc[:3]
    print("\njoint MAP of all six labels:\n", model.map_query(rows).to_string())
    print("\nmarginal probabilities of relevance:\n", model.marginal_query(rows).round(3).to_string())
    happy = "happy-pleased"
    print(f"\nMAP of the other labels given {happy}=1:\n", model.map_query(rows, given={happy: 1}).to_string())
    print(
        f"\nP(relaxing-calm = 1 | x, {happy} = 1):\n",
        model.marginal_query(rows, labels=["relaxing-calm"], given={happy: 1}).round(3).to_string(),
    )
    print(
        "\nMAP of two labels with the other four summed out:\n",
        model.map_query(rows, labels=["quiet-still", "sad-lonely"]).to_string(),
    )

    # the same conditional marginal from pgmpy's exact inference on the exported network
    from bnclf.io._pgmpy import variable_elimination

    infer = variable_elimination(model.to_pgmpy())
    states = model.network_.categories
    codes = model._encode(rows.iloc[[0]])
    names = list(model._encoder.feature_names_)
    evidence = {f: states[f][codes[0, names.index(f)]] for f in model.selected_features_}
    evidence[happy] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        factor = infer.query(["relaxing-calm"], evidence=evidence, show_progress=False)
    ours = model.marginal_query(rows.iloc[[0]], labels=["relaxing-calm"], given={happy: 1}).iloc[0, 0]
    theirs = factor.values[factor.state_names["relaxing-calm"].index(1)]
    print(f"\npgmpy VariableElimination: {theirs:.12f}; bnclf: {ours:.12f}")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bnclf import plot

    out.mkdir(parents=True, exist_ok=True)
    for name, label_only in (("multilabel_emotions_mnb.png", False), ("multilabel_emotions_classes.png", True)):
        fig = plot.draw_multilabel(model, label_only=label_only)
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        print(f"drawing written: {name}")
    return model, {"pgmpy": float(theirs), "bnclf": float(ours)}


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
