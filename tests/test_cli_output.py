"""What the command line writes for people and for other tools: the files ``bnclf demo``
writes open in pyAgrum, pgmpy and Weka with the model's posteriors; ``bnclf explain
--contributions`` shows a row's values as the data file has them; the timing columns of
``bnclf evaluate`` and ``bnclf demo`` say that they are totals over the folds."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnclf.cli._common import final_estimator
from bnclf.cli._main import main
from bnclf.datasets import load_dataset
from bnclf.evaluation._reports import build_model

_NOT_NETWORKS = (".png", ".csv", ".names.json")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo's folder and printed output, and the TAN it describes (fitted as the demo fits it)."""
    folder = tmp_path_factory.mktemp("demo") / "out"
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["demo", "-o", str(folder), "--folds", "3"]) in (None, 0)
    X, y = load_dataset("kr-vs-kp")
    tan = final_estimator(build_model("tan").fit(X, y))
    rows = X.iloc[::160]
    networks = sorted(p for p in folder.iterdir() if not p.name.endswith(_NOT_NETWORKS))
    return {"folder": folder, "out": buffer.getvalue(), "tan": tan, "rows": rows, "networks": networks}


def _names(path):
    names = json.loads(Path(f"{path}.names.json").read_text(encoding="utf-8"))
    node = {original: name for name, original in names["nodes"]}
    state = {original: {o: s for s, o in names["states"][name]} for name, original in names["nodes"]}
    return node, state


def _evidence(tan, path, row):
    node, state = _names(path)
    return {node[f]: state[f][v] for f, v in row.items() if f in node}


def _class_states(tan, path):
    node, state = _names(path)
    return node[tan.class_name_], [state[tan.class_name_][c] for c in tan.categories_[tan.class_name_]]


def test_the_demo_writes_a_network_file(demo):
    assert [p.name for p in demo["networks"]] == ["tan.bifxml"]
    assert "tan.bifxml" in demo["out"]


def test_pyagrum_opens_every_network_file_of_the_demo(demo):
    gum = pytest.importorskip("pyagrum")
    tan = demo["tan"]
    for path in demo["networks"]:
        bn = gum.loadBN(str(path))  # pyAgrum picks its reader by the suffix
        target, classes = _class_states(tan, path)
        inference = gum.LazyPropagation(bn)
        got = []
        for _, row in demo["rows"].iterrows():
            inference.setEvidence(_evidence(tan, path, row))
            inference.makeInference()
            posterior = inference.posterior(target)
            labels = list(posterior.variable(0).labels())
            got.append([posterior.toarray()[labels.index(c)] for c in classes])
        np.testing.assert_allclose(got, tan.predict_proba(demo["rows"]), rtol=0, atol=1e-9)


def test_pgmpy_opens_every_network_file_of_the_demo(demo):
    from pgmpy.readwrite import XMLBIFReader

    from bnclf.io._pgmpy import variable_elimination

    tan = demo["tan"]
    for path in demo["networks"]:
        model = XMLBIFReader(str(path)).get_model()
        infer = variable_elimination(model)
        target, classes = _class_states(tan, path)
        got = []
        for _, row in demo["rows"].iterrows():
            factor = infer.query([target], evidence=_evidence(tan, path, row), show_progress=False)
            states = factor.state_names[target]
            got.append([factor.values[states.index(c)] for c in classes])
        np.testing.assert_allclose(got, tan.predict_proba(demo["rows"]), rtol=0, atol=1e-9)


@pytest.mark.slow
def test_weka_opens_every_network_file_of_the_demo(demo):
    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    from weka_runner import weka_available, weka_read_network

    if not weka_available():
        pytest.skip("Weka is not installed (apt-get install weka)")
    tan = demo["tan"]
    for path in demo["networks"]:
        rows = [_evidence(tan, path, row) for _, row in demo["rows"].iterrows()]
        weka = weka_read_network(path, rows)
        target, _ = _class_states(tan, path)
        assert weka["class"] == target
        np.testing.assert_allclose(weka["distributions"], tan.predict_proba(demo["rows"]), rtol=0, atol=1e-12)


def test_the_demo_labels_its_timings_as_totals(demo):
    header = next(line for line in demo["out"].splitlines() if line.startswith("model"))
    assert "fit total (s)" in header and "predict total (s)" in header
    assert "summed over all folds" in demo["out"]


@pytest.fixture(scope="module")
def people(tmp_path_factory):
    """A CSV of whole numbers, decimals with an empty cell, and text (``NA`` a real value)."""
    rng = np.random.default_rng(0)
    n = 240
    age = rng.integers(18, 80, n)
    income = np.round(rng.normal(30000, 9000, n), 2)
    region = rng.choice(["NA", "EU", "AS"], n)
    label = np.where(age + income / 1000 + rng.normal(0, 10, n) > 80, "yes", "no")
    frame = pd.DataFrame({"age": age, "income": income, "region": region, "label": label})
    frame.loc[3, "income"] = np.nan
    folder = tmp_path_factory.mktemp("people")
    frame.to_csv(folder / "people.csv", index=False)
    assert main(["fit", "--model", "tan", str(folder / "people.csv"), "-o", str(folder / "m.bnclf")]) in (None, 0)
    return folder


@pytest.mark.parametrize("row", [0, 3])
def test_contributions_show_values_as_in_the_data_and_signed_terms(people, capsys, row):
    from bnclf.io._models import load_model

    capsys.readouterr()
    assert main(
        ["explain", str(people / "m.bnclf"), str(people / "people.csv"), "--row", str(row), "--contributions"]
    ) in (
        None,
        0,
    )
    lines = capsys.readouterr().out.splitlines()
    text = pd.read_csv(people / "people.csv", dtype=str, keep_default_na=False).iloc[row]  # the cells as written
    model = load_model(people / "m.bnclf")
    est = final_estimator(model)
    frame = pd.read_csv(people / "people.csv", keep_default_na=False, na_values=[""]).drop(columns="label")
    X = frame.iloc[[row]]
    expected = est.contributions(model[:-1].transform(X) if hasattr(model, "steps") else X).iloc[0]
    shown = {}
    for line in lines:
        match = re.fullmatch(r"(\S+)\s+(.*?)\s*([+-]\d+\.\d{4})", line)
        if match:
            shown[match.group(1)] = (match.group(2), match.group(3))
    assert set(shown) == set(expected.index)
    for feature in ("age", "income", "region"):
        value, term = shown[feature]
        assert value == (text[feature] or "(missing)"), feature
        assert float(term) == pytest.approx(expected[feature], abs=5e-5)
    assert shown["region"][0] in {"NA", "EU", "AS"}


def test_evaluate_labels_cv_timings_as_totals_and_one_test_set_as_is(people, capsys):
    data = str(people / "people.csv")
    capsys.readouterr()
    assert main(["evaluate", data, "--folds", "3", "--brief", "--no-progress"]) in (None, 0)
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("model"))
    assert header.split()[-6:] == ["fit", "total", "(s)", "predict", "total", "(s)"]
    assert "fit/predict total: seconds summed over all folds" in out
    assert main(["evaluate", data, "--test", data, "--brief", "--no-progress"]) in (None, 0)
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("model"))
    assert header.split()[-4:] == ["fit", "(s)", "predict", "(s)"] and "summed over" not in out
