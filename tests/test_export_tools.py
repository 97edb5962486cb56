"""Network files opened by the tools they are written for: pyAgrum, pgmpy and Weka 3.6.

Each test writes a fitted model with ``write_network``, loads the file with the other tool's
own reader (not bnclf's), and compares the class posteriors that tool computes with
``predict_proba``, on rows with missing values: the tool gets evidence on the observed
features only (a missing value is the ``<missing>`` state when training had one, as bnclf
reads it). The name map beside each file says which names the file gives the features and
states; the naming rules themselves are checked against the readers separately.

* pyAgrum 3 (``gum.loadBN`` + ``LazyPropagation``): BIF, ``.bifxml`` and UAI. pyAgrum reads
  the numbers of BIF and UAI files in single precision, so its posteriors from those agree
  with bnclf's to about 5e-8 (1e-6 is asserted); from ``.bifxml`` to about 1e-15 (1e-9
  asserted). pyAgrum reads a UAI table over two or more parents in another order than the
  format's (pinned below), so UAI is compared for naive Bayes.
* pgmpy's ``BIFReader`` / ``XMLBIFReader`` and ``VariableElimination``: 1e-9.
* Weka 3.6 (``slow``; skipped without Weka): ``BIFReader`` reads the XMLBIF file, class
  last, and ``distributionForInstance`` gives bnclf's posteriors on complete rows (Weka
  fills a missing value in rather than summing it out); a ``BayesNet`` built with the file's
  structure (``search.fixed.FromFile``) has bnclf's parents.

The data: heart-c discretized by MDL, in which two numeric columns (trestbps, chol) get no
cut point and so one state: the files leave them out, and the posteriors show that nothing
changes.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pgmpy_oracle import posterior

from bnclf import MDLDiscretizer, make_classifier
from bnclf.datasets import load_dataset
from bnclf.io import read_network, write_network
from bnclf.io._formats import bif_names, xmlbif_names
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


def evidence(est, row, path):
    """The features of ``row`` that are observed and in the file, as {file name: file state}."""
    node, state = file_names(path)
    out = {}
    for feature, value in row.items():
        if feature not in node:  # left out of the file
            continue
        if pd.isna(value):
            if "<missing>" not in est.categories_[feature]:
                continue  # summed out
            value = "<missing>"
        out[node[feature]] = state[feature][value]
    return out


@pytest.fixture(scope="module")
def gum():
    return pytest.importorskip("pyagrum")


def pyagrum_posteriors(gum, est, rows, path, uai=False):
    bn = gum.loadBN(str(path))
    node, state = file_names(path)
    inference = gum.LazyPropagation(bn)
    target = node[est.class_name_]
    out = []
    for _, row in rows.iterrows():
        given = evidence(est, row, path)
        if uai:  # no names: variable i of the file is node i, state k its k-th label
            given = {int(name[4:]): int(value) for name, value in given.items()}
        inference.setEvidence(given)
        inference.makeInference()
        posterior = inference.posterior(int(target[4:]) if uai else target)
        labels, values = list(posterior.variable(0).labels()), posterior.toarray()
        out.append([values[labels.index(str(s))] for s in _class_states(est, path)])
    return np.array(out)


def _class_states(est, path):
    """The class's state names in the file, in the order of ``classes_``."""
    _, state = file_names(path)
    return [state[est.class_name_][c] for c in est.categories_[est.class_name_]]


@pytest.mark.parametrize(
    "spec, suffix, atol",
    [(spec, suffix, atol) for spec in MODELS for suffix, atol in ((".bif", 1e-6), (".bifxml", 1e-9))]
    + [("nb", ".uai", 1e-6)],
)
def test_pyagrum_posteriors_equal_ours(gum, models, heart, tmp_path, spec, suffix, atol):
    _, _, rows = heart
    est = models[spec]
    path = write_network(est, tmp_path / f"heart{suffix}")
    got = pyagrum_posteriors(gum, est, rows, path, uai=suffix == ".uai")
    np.testing.assert_allclose(got, est.predict_proba(rows), rtol=0, atol=atol)
    bn = gum.loadBN(str(path))
    assert bn.size() == len(est.feature_names_in_) - 2 + 1  # trestbps and chol left out, the class kept


def test_pyagrum_reads_uai_tables_over_two_parents_first_parent_fastest(gum, models, tmp_path):
    """bnclf writes the UAI format's order (a scope's first variable the most significant);
    pyAgrum 3.3 reads a table over parents (p1, p2) and child c as if p1 varied faster than
    p2. This pins that reading, which is why UAI is compared in pyAgrum for naive Bayes only."""
    est = models["tan"]
    path = write_network(est, tmp_path / "tan.uai")
    bn = gum.loadBN(str(path))
    node, _ = file_names(path)
    net = est.network_
    child = next(c for c, ps in net.named_families.items() if len(ps) == 2 and c in node)
    p1, p2 = net.named_families[child]
    ours = np.exp(net.named_log_cpts[child])  # axes (child, p1, p2)
    flat = np.moveaxis(ours, 0, -1).ravel()  # the file's table: p1 slowest, the child fastest
    cpt = bn.cpt(int(node[child][4:]))
    ids = [node[v][4:] for v in (child, p1, p2)]
    read = np.empty_like(ours)
    for c, a, b in np.ndindex(*ours.shape):
        read[c, a, b] = cpt[dict(zip(ids, (c, a, b)))]
    r_c, r_a, r_b = ours.shape
    as_pyagrum_reads_it = flat.reshape(r_b, r_a, r_c).transpose(2, 1, 0)  # p1 faster than p2
    np.testing.assert_allclose(read, as_pyagrum_reads_it, rtol=1e-6)
    assert not np.allclose(read, ours, rtol=1e-3)


@pytest.mark.parametrize("spec", MODELS)
@pytest.mark.parametrize("suffix", [".bif", ".xmlbif", ".bifxml"])
def test_pgmpy_readers_give_our_posteriors(models, heart, tmp_path, spec, suffix):
    from pgmpy.inference import VariableElimination
    from pgmpy.readwrite import BIFReader, XMLBIFReader

    _, _, rows = heart
    rows = rows.iloc[:25]
    est = models[spec]
    path = write_network(est, tmp_path / f"heart{suffix}")
    reader = BIFReader(str(path)) if suffix == ".bif" else XMLBIFReader(str(path))
    network = reader.get_model()
    infer = VariableElimination(network)
    node, _ = file_names(path)
    target, states = node[est.class_name_], _class_states(est, path)
    got = []
    for _, row in rows.iterrows():
        factor = infer.query([target], evidence=evidence(est, row, path), show_progress=False)
        got.append([factor.values[factor.state_names[target].index(s)] for s in states])
    np.testing.assert_allclose(got, est.predict_proba(rows), rtol=0, atol=1e-9)


# -- the names -------------------------------------------------------------------------------

AWKWARD_STATES = [2, -1, 2.5, "(-inf, 555.9]", "(555.9, 697.3]", "<missing>", "groß", "table", "a b", "a_b", "1e5"]
AWKWARD_NAMES = ["(-inf, 555.9]", "2", "Network", "network", "größe", "a-b,c", "class"]


@pytest.fixture(scope="module")
def awkward():
    rng = np.random.default_rng(1)
    n = 300
    columns = {
        name: pd.Categorical(rng.choice(np.array(AWKWARD_STATES[:k], dtype=object), n), categories=AWKWARD_STATES[:k])
        for name, k in zip(AWKWARD_NAMES[:-1], (11, 3, 4, 5, 6, 2))
    }
    X = pd.DataFrame(columns)
    y = pd.Series(rng.choice(["<50", ">50_1", "x"], n), name="class")
    return make_classifier("kdb(k=2)").fit(X, y)


def test_the_bif_rule_on_the_examples_of_its_documentation():
    assert bif_names([2, "(-inf, 555.9]", "(555.9, 697.3]", "<missing>"], state=True) == [
        "2",
        "_-inf_555.9",
        "_555.9_697.3",
        "missing",
    ]
    assert bif_names([2, -1, 2.5, "-inf", "groß", "table", "", "<>"], state=True) == [
        "2",
        "-1",
        "_2.5",
        "_-inf",
        "gro",
        "_table",
        "_",
        "__2",
    ]
    assert bif_names([2, "Network", "network", "a b", "a_b", "_x"], state=False) == [
        "_2",
        "_Network",
        "_network_2",
        "a_b",
        "a_b_2",
        "_x",
    ]
    assert xmlbif_names(["(-inf, 555.9]", " a\tb\n", "a b", "", "x\x01y", 2]) == [
        "(-inf, 555.9]",
        "a b",
        "a b_2",
        "_",
        "x_y",
        "2",
    ]


@pytest.mark.parametrize("suffix", [".bif", ".bifxml"])
def test_pyagrum_and_pgmpy_read_the_names_the_rules_give(gum, awkward, tmp_path, suffix):
    from pgmpy.readwrite import BIFReader, XMLBIFReader

    path = write_network(awkward, tmp_path / f"awkward{suffix}")
    rule = (
        (lambda labels, state: bif_names(labels, state=state))
        if suffix == ".bif"
        else (lambda labels, state: xmlbif_names(labels))
    )
    names = dict(zip(awkward.node_names_, rule(awkward.node_names_, False)))
    expected = {names[v]: rule(states, True) for v, states in awkward.categories_.items()}
    bn = gum.loadBN(str(path))
    assert {bn.variable(i).name(): list(bn.variable(i).labels()) for i in bn.nodes()} == expected
    model = (BIFReader if suffix == ".bif" else XMLBIFReader)(str(path)).get_model()
    assert {v: model.get_cpds(v).state_names[v] for v in model.nodes} == expected
    assert list(model.nodes)[-1] == names["class"]  # the class is the file's last variable
    if suffix == ".bifxml":  # the names themselves
        assert expected[names["(-inf, 555.9]"]][:6] == [
            "2",
            "-1",
            "2.5",
            "(-inf, 555.9]",
            "(555.9, 697.3]",
            "<missing>",
        ]


def test_uai_lists_tables_in_the_formats_order(tmp_path):
    """The UAI model format lists a table with the first variable of its scope the most
    significant; c | a, b is written ``3 0 1 2`` with the values of (a, b) = (0, 0), (0, 1),
    (0, 2), (1, 0), ... each followed by c's distribution (by hand)."""
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork()
    model.add_nodes_from(["a", "b", "c"])  # a pgmpy network's variables are written in its order
    model.add_edges_from([("a", "c"), ("b", "c")])
    # columns (a, b) = (0,0) (0,1) (0,2) (1,0) (1,1) (1,2) (pgmpy's order too): P(c=0)
    p0 = [0.125, 0.25, 0.375, 0.5, 0.625, 0.75]
    model.add_cpds(
        TabularCPD("a", 2, [[0.5], [0.5]]),
        TabularCPD("b", 3, [[0.25], [0.25], [0.5]]),
        TabularCPD("c", 2, [p0, [1 - p for p in p0]], evidence=["a", "b"], evidence_card=[2, 3]),
    )
    path = write_network(model, tmp_path / "abc.uai")
    lines = path.read_text().splitlines()
    assert lines[:8] == ["BAYES", "3", "2 3 2", "3", "1 0", "1 1", "3 0 1 2", ""]
    assert lines[-2:] == ["12", "0.125 0.875 0.25 0.75 0.375 0.625 0.5 0.5 0.625 0.375 0.75 0.25"]


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


# -- Weka 3.6 ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["nb", "tan", "kdb(k=2)", "tan(root='trestbps')"])
def test_weka_reads_our_xmlbif_and_gives_our_posteriors(models, heart, tmp_path, spec):
    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    from weka_runner import weka_available, weka_read_network

    from bnclf.io._arff import write_arff

    if not weka_available():
        pytest.skip("Weka is not installed (apt-get install weka)")
    D, y, rows = heart
    est = models[spec]
    path = write_network(est, tmp_path / "heart.xmlbif")
    node, state = file_names(path)
    features = [f for f in est.feature_names_in_ if f in node]

    def complete(frame):  # the rows whose features are all observed (a <missing> state included)
        return frame[[len(evidence(est, row, path)) == len(features) for _, row in frame.iterrows()]]

    frame = pd.concat([complete(rows), complete(D).iloc[:20]])
    # training data named as in the file, for the BayesNet built with the file's structure
    train = pd.DataFrame(
        {
            node[v]: pd.Categorical(
                [state[v]["<missing>" if pd.isna(x) else x] for x in values],
                categories=[state[v][s] for s in est.categories_[v]],
            )
            for v, values in D[features].assign(**{est.class_name_: np.asarray(y, dtype=object)}).items()
        }
    )
    write_arff(train, tmp_path / "train.arff", relation="heart")
    weka = weka_read_network(
        path, [evidence(est, frame.iloc[i], path) for i in range(len(frame))], tmp_path / "train.arff"
    )
    assert weka["class"] == node[est.class_name_]
    assert list(weka["values"]) == [node[v] for v in [*features, est.class_name_]]
    for v in [*features, est.class_name_]:
        assert weka["values"][node[v]] == [state[v][s] for s in est.categories_[v]]
        parents = [node[p] for p in est.families_[v] if p in node]
        assert sorted(weka["parents"][node[v]]) == sorted(parents)
        assert sorted(weka["fixed_parents"][node[v]]) == sorted(parents)
    assert len(frame) >= 20
    np.testing.assert_allclose(weka["distributions"], est.predict_proba(frame), rtol=0, atol=1e-12)
