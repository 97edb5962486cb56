"""Exact per-feature contributions: their sums against the posteriors, their terms against
brute-force enumeration of pgmpy's exported network, and the ensembles' and multilabel
models' splits against their own independent answers."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from bnclf import (
    AKDBClassifier,
    AODEClassifier,
    ATANClassifier,
    ChowLiuMultinetClassifier,
    ETANClassifier,
    HillClimbClassifier,
    KDBClassifier,
    LKDBClassifier,
    LTANClassifier,
    MultilabelBNClassifier,
    MultilabelBNEnsemble,
    NaiveBayesClassifier,
    TANClassifier,
    TargetKDBClassifier,
    WAODEClassifier,
)
from bnclf.datasets import load_dataset, load_multilabel_dataset
from bnclf.inference._contributions import chain_terms, feature_order


@pytest.fixture(scope="module")
def soybean():
    """Soybean with missing values, and test rows that add unseen values and more missing ones."""
    X, y = load_dataset("soybean")
    X = X.iloc[:, :12]
    test = X.iloc[:60].astype(object).copy()
    test.iloc[0, 2] = "never-seen"
    test.iloc[1, [0, 3, 5]] = np.nan
    test.iloc[2, :] = np.nan  # nothing observed: the prior alone
    return X, y, test


def _log_odds(model, X, frame):
    classes = list(model.classes_)
    rows = frame.index.get_level_values("row")
    positions = pd.Index(X.index).get_indexer(rows)
    first = [classes.index(c) for c in frame.index.get_level_values("predicted")]
    second = [classes.index(c) for c in frame.index.get_level_values("against")]
    log_proba = model.predict_log_proba(X)
    return log_proba[positions, first] - log_proba[positions, second]


SINGLE = [
    NaiveBayesClassifier(),
    TANClassifier(),
    KDBClassifier(k=2),
    KDBClassifier(k=2, missing="ignore"),
    HillClimbClassifier(m=1.0, random_state=0),
    ChowLiuMultinetClassifier(),
    ETANClassifier(),
]


@pytest.mark.parametrize("model", SINGLE, ids=lambda m: repr(m))
@pytest.mark.parametrize("against", [None, "each", "class"])
def test_contributions_sum_to_the_log_odds(soybean, model, against):
    X, y, test = soybean
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    if against == "class":
        against = model.classes_[3]
    frame = model.contributions(test, against=against)
    assert list(frame.columns) == ["(prior)", *X.columns]
    assert frame.index.names == ["row", "predicted", "against"]
    expected = _log_odds(model, test, frame)
    np.testing.assert_allclose(frame.sum(axis=1).to_numpy(), expected, rtol=0, atol=1e-12)
    predicted = frame.index.get_level_values("predicted")
    assert (
        predicted == model.predict(test)[pd.Index(test.index).get_indexer(frame.index.get_level_values("row"))]
    ).all()
    if against is None:
        assert len(frame) == len(test) and (expected >= 0).all()
    elif against == "each":
        assert len(frame) == len(test) * (len(model.classes_) - 1)
    # a feature summed out in a row (unseen, or missing without a <missing> state) contributes nothing
    codes = model._encode(test)
    assert (codes == -1).sum() >= 2
    rows = pd.Index(test.index).get_indexer(frame.index.get_level_values("row"))
    assert (frame.iloc[:, 1:].to_numpy()[codes[rows] == -1] == 0).all()


def _brute_force_prefix(bn, class_name, order, row):
    """log P(c, x_{o,<=k}) for every prefix of ``order``, by enumerating pgmpy's CPDs."""
    variables = list(bn.nodes())
    cards = {v: bn.get_cardinality(v) for v in variables}
    cpds = {cpd.variable: cpd for cpd in bn.get_cpds()}
    joint = np.zeros([cards[v] for v in variables])
    for config in itertools.product(*[range(cards[v]) for v in variables]):
        value = dict(zip(variables, config))
        p = 1.0
        for v, cpd in cpds.items():
            index = (value[v], *[value[e] for e in cpd.variables[1:]])
            p *= cpd.values.reshape(cpd.cardinality)[index]
        joint[config] = p
    prefixes = []
    for k in range(len(order) + 1):
        observed = {name: code for name, code in row.items() if name in order[:k] and code >= 0}
        table = joint
        for axis in reversed(range(len(variables))):
            name = variables[axis]
            if name == class_name:
                continue
            table = table.take(observed[name], axis=axis) if name in observed else table.sum(axis=axis)
        prefixes.append(np.log(table))
    return prefixes


def test_chain_terms_match_brute_force_on_pgmpy_s_network():
    """A small TAN: every term is a difference of two marginals of the exported network, by
    enumeration, including a child whose parent is missing."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"f{j}": rng.integers(0, 3 if j % 2 else 2, 300) for j in range(4)}).astype("category")
    X["f1"] = ((X["f0"].astype(int) + rng.integers(0, 2, 300)) % 3).astype("category")
    y = (X["f1"].astype(int) + rng.integers(0, 2, 300) > 1).astype(int)
    model = TANClassifier().fit(X, y)
    net = model.network_
    bn = net.to_pgmpy()
    order = feature_order(net, 4)
    names = [net.names[j] for j in order]
    codes = model._encode(X.iloc[:6])
    codes[1, order[0]] = -1  # the root missing: its child's term sums it out
    codes[2, order[1]] = -1
    terms = chain_terms(net, codes)
    for r in range(len(codes)):
        row = {net.names[j]: int(codes[r, j]) for j in range(4)}
        prefixes = _brute_force_prefix(bn, net.class_name, names, row)
        np.testing.assert_allclose(terms[r, 0], prefixes[0], rtol=0, atol=1e-12)
        for k, j in enumerate(order):
            np.testing.assert_allclose(terms[r, 1 + j], prefixes[k + 1] - prefixes[k], rtol=0, atol=1e-12)
    # with every value observed each term is the family's own CPT entry, whatever the order
    complete = model._encode(X.iloc[:6])
    terms = chain_terms(net, complete)
    for family, table in zip(net.families, net.log_cpts):
        child = family[0]
        if child == net.class_index:
            np.testing.assert_allclose(terms[:, 0], np.broadcast_to(table, terms[:, 0].shape), atol=1e-12)
            continue
        parents = family[1:-1]
        entry = table[(complete[:, child], *[complete[:, p] for p in parents])]  # (rows, classes)
        np.testing.assert_allclose(terms[:, 1 + child], entry, rtol=0, atol=1e-12)


@pytest.mark.parametrize("model", [AODEClassifier(), WAODEClassifier(), ATANClassifier()], ids=repr)
def test_ensembles_split_each_member_with_its_weight(soybean, model):
    X, y, test = soybean
    model.fit(X, y)
    frame = model.contributions(test)
    assert frame.index.names == ["row", "member", "weight", "predicted", "against"]
    members = model.member_joint_log_proba(test)
    weights = model.member_weights(test)
    classes = list(model.classes_)
    rows = pd.Index(test.index).get_indexer(frame.index.get_level_values("row"))
    member = frame.index.get_level_values("member").to_numpy()
    first = [classes.index(c) for c in frame.index.get_level_values("predicted")]
    second = [classes.index(c) for c in frame.index.get_level_values("against")]
    expected = members[rows, member, first] - members[rows, member, second]
    finite = np.isfinite(expected)
    np.testing.assert_allclose(frame.sum(axis=1).to_numpy()[finite], expected[finite], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(frame.index.get_level_values("weight"), weights[rows, member])
    # the predicted class and the runner-up are the ensemble's
    assert (frame.index.get_level_values("predicted") == model.predict(test)[rows]).all()


@pytest.mark.parametrize("cls", [MultilabelBNClassifier, MultilabelBNEnsemble])
def test_multilabel_contributions_are_each_label_s_log_odds_given_the_others(cls):
    X, Y = load_multilabel_dataset("emotions")
    model = cls().fit(X.iloc[:400], Y.iloc[:400])
    test = X.iloc[400:408].copy()
    test.iloc[0, :5] = np.nan
    frame = model.contributions(test)
    states = model.map_query(test)
    assert frame.index.names == ["row", "label", "value"]
    for position, index in enumerate(test.index):
        config = states.iloc[position]
        for label in model.label_names_:
            given = {other: int(config[other]) for other in model.label_names_ if other != label}
            p = float(model.marginal_query(test.iloc[[position]], labels=[label], given=given)[label].iloc[0])
            log_odds = np.log(p) - np.log1p(-p)
            value = int(config[label])
            got = frame.loc[(index, label, value)].sum()
            # the oracle goes through p, whose rounding (a few 1e-16) grows as 1 / (1 - p) in the log-odds
            assert got == pytest.approx(log_odds if value == 1 else -log_odds, abs=1e-9 + 1e-14 * np.exp(abs(log_odds)))
    # features that are not among a label's bridge children contribute nothing to it
    first = frame.xs(X.index[400], level="row")
    for label in model.label_names_:
        unrelated = [f for f in X.columns if label not in model.bridge_parents_.get(f, ())]
        assert (first.xs(label, level="label")[unrelated] == 0).all().all()


def test_mnb_contributions_match_pgmpy():
    """One label's log-odds given the features and the other labels at the MAP, from pgmpy's
    variable elimination on the exported network."""
    from pgmpy.inference import VariableElimination

    X, Y = load_multilabel_dataset("emotions")
    model = MultilabelBNClassifier().fit(X.iloc[:300], Y.iloc[:300])
    test = X.iloc[300:302]
    frame = model.contributions(test)
    states = model.map_query(test)
    bn = model.network_.to_pgmpy()
    inference = VariableElimination(bn)
    codes = model._encode(test)
    names = list(model._encoder.feature_names_)
    selected = set(model.selected_features_)
    for position, index in enumerate(test.index):
        evidence = {name: model._states[j][codes[position, j]] for j, name in enumerate(names) if name in selected}
        label = model.label_names_[0]
        evidence.update({other: int(states.iloc[position][other]) for other in model.label_names_[1:]})
        posterior = inference.query([label], evidence=evidence, show_progress=False)
        p = posterior.get_value(**{label: 1})
        value = int(states.iloc[position][label])
        log_odds = np.log(p) - np.log1p(-p)
        tolerance = 1e-9 + 1e-14 * np.exp(abs(log_odds))  # p's rounding, as above
        assert frame.loc[(index, label, value)].sum() == pytest.approx(log_odds if value else -log_odds, abs=tolerance)


def test_bad_against_and_models_without_one_network(soybean):
    X, y, test = soybean
    model = NaiveBayesClassifier().fit(X, y)
    with pytest.raises(ValueError, match=r"against='nope' is not a class .*'each'"):
        model.contributions(test, against="nope")
    with pytest.raises(TypeError, match=r"has no single network"):
        BayesNetClassifier_without_network(X, y).contributions(test)


def BayesNetClassifier_without_network(X, y):  # noqa: N802 - a fitted model that lost its network
    model = NaiveBayesClassifier().fit(X, y)
    del model.__dict__["network_"]
    return model


@pytest.mark.parametrize("cls", [LKDBClassifier, AKDBClassifier, LTANClassifier, TargetKDBClassifier])
def test_instance_specific_contributions_split_each_network_built_for_the_row(soybean, cls):
    """Every network explain(row) shows, split exactly: the sums equal each part's own log-odds
    (pgmpy's variable elimination on the exported part for the first row)."""
    from pgmpy.inference import VariableElimination

    X, y, test = soybean
    model = cls().fit(X, y)
    rows = test.iloc[:4]
    frame = model.contributions(rows)
    assert frame.index.names == ["row", "part", "predicted", "against"]
    codes = model._encode(rows)
    classes = list(model.classes_)
    for position, index in enumerate(rows.index):
        explanation = model.explain(rows.iloc[[position]])
        parts = frame.xs(index, level="row")
        assert list(dict.fromkeys(parts.index.get_level_values("part"))) == list(explanation.networks)
        assert (parts.index.get_level_values("predicted") == explanation.prediction).all()
        for part, network in explanation.networks.items():
            joint = network.joint_log_likelihood(codes[position : position + 1])[0]
            split = parts.xs(part, level="part")
            against = split.index.get_level_values("against")[0]
            if pd.isna(against):  # a class-conditional expert: its log P(x | label)
                assert split.iloc[0].sum() == pytest.approx(joint[0], abs=1e-10)
                continue
            first, second = classes.index(explanation.prediction), classes.index(against)
            assert split.iloc[0].sum() == pytest.approx(joint[first] - joint[second], abs=1e-10)
    # the first row's first network, through pgmpy
    explanation = model.explain(rows.iloc[[0]])
    part, network = next(iter(explanation.networks.items()))
    bn = network.to_pgmpy()
    evidence = {network.names[j]: network.states[j][codes[0, j]] for j in range(codes.shape[1]) if codes[0, j] >= 0}
    posterior = VariableElimination(bn).query([network.class_name], evidence=evidence, show_progress=False)
    split = frame.xs((rows.index[0], part), level=("row", "part"))
    predicted, against = split.index[0]
    log_odds = np.log(posterior.get_value(**{network.class_name: predicted})) - np.log(
        posterior.get_value(**{network.class_name: against})
    )
    assert split.iloc[0].sum() == pytest.approx(log_odds, abs=1e-9)


def test_the_waterfall_runs_from_the_prior_to_the_posterior(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.pipeline import make_pipeline

    from bnclf import MDLDiscretizer
    from bnclf.plot import draw_contributions

    X, y = load_dataset("heart-c")
    model = make_pipeline(MDLDiscretizer(), TANClassifier()).fit(X.iloc[:250], y.iloc[:250])
    row = X.iloc[[260]]
    ax = draw_contributions(model, row, max_features=5)
    bars = ax.patches
    table = model[-1].contributions(model[:-1].transform(row))
    nonzero = int((table.iloc[0, 1:] != 0).sum())
    assert len(bars) == 2 + min(nonzero, 5) + (nonzero > 5)  # prior, features, the rest, posterior
    # each bar starts where the previous one ended; the last is the posterior log-odds
    level = bars[0].get_width()
    for bar in bars[1:-1]:
        assert bar.get_x() == pytest.approx(level)
        level += bar.get_width()
    assert bars[-1].get_width() == pytest.approx(level) == pytest.approx(table.iloc[0].sum())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "prior" and labels[-1] == "posterior" and " = " in labels[1]
    ax.figure.savefig(tmp_path / "waterfall.png")
    plt.close(ax.figure)
    with pytest.raises(TypeError, match="ensemble"):
        draw_contributions(AODEClassifier().fit(X.select_dtypes("category"), y), X.select_dtypes("category").iloc[[0]])


def test_networks_and_members_draw_themselves_in_a_notebook(soybean):
    X, y, _ = soybean
    model = TANClassifier().fit(X, y)
    svg = model.network_._repr_svg_()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and svg.count("<path") > len(X.columns)
    members = AODEClassifier().fit(X.iloc[:, :4], y).network_members()
    assert isinstance(members, list) and len(members) >= 4 and "<svg" in members._repr_svg_()
    assert members == list(members)  # still the list of (key, Network) pairs
    assert "<style>" in model._repr_html_()  # scikit-learn's HTML repr is untouched


def test_the_explain_command_prints_and_draws_the_contributions(tmp_path, capsys):
    import matplotlib.pyplot as plt

    from bnclf.cli._main import main

    X, y = load_dataset("heart-c")
    data = tmp_path / "heart.csv"
    X.assign(num=y).to_csv(data, index=False)
    model_file = tmp_path / "tan.bnclf"
    main(["fit", str(data), "--class", "num", "--model", "tan", "-o", str(model_file)])
    capsys.readouterr()
    png = tmp_path / "waterfall.png"
    main(["explain", str(model_file), str(data), "--row", "5", "--contributions", "--plot", str(png)])
    out = capsys.readouterr().out
    from bnclf.io import load_model

    model = load_model(model_file)
    row = X.iloc[[5]]
    table = model[-1].contributions(model[:-1].transform(row))
    assert f"sum (the log-odds): {table.iloc[0].sum():+.6f}" in out
    assert "(prior)" in out and "thal" in out
    assert plt.imread(png)[..., :3].std() > 0.05
    main(["explain", str(model_file), str(data), "--contributions", "--against", str(model.classes_[0])])
    assert "against" in capsys.readouterr().out
    assert main(["explain", str(model_file), str(data), "--contributions", "--against", "nope"]) == 2
    assert "--against 'nope' is not a class" in capsys.readouterr().err
