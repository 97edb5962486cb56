"""Network files leave out the features with one state, list them, and change no posterior.

The data: heart-c discretized by MDL, in which two numeric columns (trestbps, chol) get no
cut point and so one state.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pgmpy_oracle import posterior

from bnclf import MDLDiscretizer, make_classifier
from bnclf.datasets import load_dataset
from bnclf.io import read_network, write_network
from bnclf.io._pgmpy import variable_elimination

MODELS = ["nb", "tan", "kdb(k=2)", "tan(root='trestbps')", "kdb(k=2, missing='ignore')"]
"""Naive Bayes, TAN and KDB; a TAN rooted at a one-state feature (a one-state node with
children); a KDB that sums missing values out instead of giving them a state."""


@pytest.fixture(scope="module")
def heart():
    X, y = load_dataset("heart-c")
    D = MDLDiscretizer().fit(X, y).transform(X)
    rows = D.iloc[::6].copy()  # 51 rows, a third of their cells blanked
    gaps = np.random.default_rng(0).random(rows.shape) < 0.3
    for j, column in enumerate(rows.columns):
        rows.loc[gaps[:, j], column] = np.nan
    return D, y, rows


@pytest.fixture(scope="module")
def models(heart):
    D, y, _ = heart
    return {spec: make_classifier(spec).fit(D, y) for spec in MODELS}


def file_names(path):
    """``({feature: file name}, {feature: {state: file state name}})`` from the name map."""
    names = json.loads(Path(str(path) + ".names.json").read_text(encoding="utf-8"))
    node = {original: name for name, original in names["nodes"]}
    state = {original: {o: s for s, o in names["states"][name]} for name, original in names["nodes"]}
    return node, state


# -- one-state features ----------------------------------------------------------------------


def test_one_state_features_are_left_out_listed_and_change_nothing(models, heart, tmp_path, capsys):
    from bnclf.cli._main import main
    from bnclf.io import save_model

    D, y, rows = heart
    est = models["tan(root='trestbps')"]
    assert est.one_state_features_ == ["trestbps", "chol"]
    for name in est.one_state_features_:
        assert est.categories_[name] == ["(-inf, inf)"]
        np.testing.assert_array_equal(est.log_cpts_[name], 0.0)  # summing it out is exact
    assert any("trestbps" in parents for parents in est.families_.values())  # it has children
    path = write_network(est, tmp_path / "heart.bif")
    names = json.loads(Path(str(path) + ".names.json").read_text())
    assert names["omitted"] == [["trestbps", "(-inf, inf)"], ["chol", "(-inf, inf)"]]
    network = read_network(path)
    assert not {"trestbps", "chol"} & set(network.nodes)
    # pgmpy's exact inference on the file, the one-state features left out of the evidence too
    infer = variable_elimination(network)
    for _, row in rows.iloc[:15].iterrows():
        given = {
            k: ("<missing>" if pd.isna(v) else v)
            for k, v in row.items()
            if k in network.nodes and (not pd.isna(v) or "<missing>" in est.categories_[k])
        }
        expected = posterior(network, est.class_name_, list(est.classes_), given, infer)
        np.testing.assert_allclose(est.predict_proba(row.to_frame().T), [expected], rtol=0, atol=1e-9)
    # the model without the two columns gives the same posteriors
    kept = [c for c in D.columns if c not in ("trestbps", "chol")]
    np.testing.assert_allclose(
        make_classifier("nb").fit(D[kept], y).predict_proba(rows[kept]),
        models["nb"].predict_proba(rows),
        rtol=0,
        atol=1e-12,
    )
    save_model(est, tmp_path / "m.bnclf")
    main(["show", str(tmp_path / "m.bnclf")])
    assert "one-state features (2; no information, left out of exported networks): trestbps, chol" in (
        capsys.readouterr().out
    )
    main(["export", str(tmp_path / "m.bnclf"), "-o", str(tmp_path / "m.uai")])
    assert "left out the one-state features (no information): trestbps, chol" in capsys.readouterr().out
