"""Multilabel mNB / mFAN / BN ensemble: structure and queries against independent answers.

Oracles: brute-force enumeration of all 2^n class configurations from the
exported network's own CPTs, pgmpy ``VariableElimination`` on ``to_pgmpy()``,
exhaustive parent-set search, and brute force over all feasible FANs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from bnclf.counts._measures import bdeu_score
from bnclf.inference._elimination import elimination_order
from bnclf.learn._multilabel import enumerate_fans, label_family_scores, learn_bridge, learn_class_graph
from bnclf.models._multilabel import MultilabelBNClassifier, MultilabelBNEnsemble, as_label_matrix


def synthetic(n_rows=400, n_labels=5, n_features=8, seed=0, missing=0.0):
    """Correlated labels and features that depend on label subsets (3 states each)."""
    rng = np.random.default_rng(seed)
    Y = np.zeros((n_rows, n_labels), dtype=int)
    Y[:, 0] = rng.random(n_rows) < 0.5
    for i in range(1, n_labels):
        flip = rng.random(n_rows) < 0.25
        Y[:, i] = np.where(flip, rng.random(n_rows) < 0.3, Y[:, i - 1])
    X = np.empty((n_rows, n_features), dtype=object)
    for j in range(n_features):
        a, b = j % n_labels, (j + 2) % n_labels
        signal = Y[:, a] + Y[:, b] * (j % 2)
        noise = rng.integers(0, 3, n_rows)
        X[:, j] = np.where(rng.random(n_rows) < 0.7, signal, noise).astype(str)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(n_features)])
    if missing:
        frame = frame.mask(rng.random(frame.shape) < missing)
    labels = pd.DataFrame(Y, columns=[f"L{i}" for i in range(n_labels)])
    return frame, labels


# -- the oracle: enumerate every class configuration from the network's CPTs ------------------
def brute_log_joint(model, X) -> np.ndarray:
    """``log P(c, x_observed)`` for every row and every configuration: ``(rows, 2**n)``."""
    net = model.network_ if hasattr(model, "network_") else None
    members = [net] if net is not None else list(model.networks_)
    n = len(model.label_names_)
    m = len(model._encoder.feature_names_)
    codes = model._encode(X)
    configs = np.array(list(itertools.product([0, 1], repeat=n)))
    total = np.zeros((len(codes), len(configs)))
    for member in members:
        part = np.zeros((len(codes), len(configs)))
        for family, table in zip(member.families, member.log_cpts):

            def state(v):
                return configs[None, :, v - m] if v >= m else codes[:, v][:, None]

            idx = [np.broadcast_to(state(v), (len(codes), len(configs))) for v in family]
            child = family[0]
            if child < m:
                known = codes[:, child] >= 0
                safe = [np.where(known[:, None], i, 0) for i in idx]
                part += np.where(known[:, None], table[tuple(safe)], 0.0)
            else:
                part += table[tuple(idx)]
        total += part / len(members)
    return total, configs


def brute_answers(model, X, labels=None, given=None, nonempty=False):
    log_joint, configs = brute_log_joint(model, X)
    names = model.label_names_
    given = {names.index(k): v for k, v in (given or {}).items()}
    ok = np.ones(len(configs), dtype=bool)
    for i, v in given.items():
        ok &= configs[:, i] == v
    index = [names.index(k) for k in labels] if labels else [i for i in range(len(names)) if i not in given]
    # marginals
    lj = np.where(ok[None, :], log_joint, -np.inf)
    norm = logsumexp(lj, axis=1, keepdims=True)
    post = np.exp(lj - norm)
    marg = post @ configs[:, index]
    # MAP over index, summing the rest
    keys = [tuple(c) for c in configs[:, index]]
    distinct = sorted(set(keys))
    scores = np.full((len(log_joint), len(distinct)), -np.inf)
    for d, key in enumerate(distinct):
        cols = [k == key for k in keys]
        sel = np.array(cols) & ok
        if sel.any():
            scores[:, d] = logsumexp(lj[:, sel], axis=1)
    if nonempty and not any(given.values()):
        for d, key in enumerate(distinct):
            if not any(key):
                scores[:, d] = -np.inf
    best = np.array(distinct)[scores.argmax(axis=1)]
    return best, marg, scores


@pytest.fixture(scope="module")
def fitted():
    X, Y = synthetic()
    models = {
        "nb": MultilabelBNClassifier(class_graph="nb", feature_selection=None).fit(X, Y),
        "fan": MultilabelBNClassifier(class_graph="fan", feature_selection=None).fit(X, Y),
        "ensemble": MultilabelBNEnsemble(feature_selection=None).fit(X, Y),
    }
    return X, Y, models


@pytest.mark.parametrize("kind", ["nb", "fan", "ensemble"])
def test_joint_map_and_marginals_equal_brute_force(fitted, kind):
    X, Y, models = fitted
    model = models[kind]
    rows = X.iloc[:60]
    best, marg, _ = brute_answers(model, rows)
    got = model.map_query(rows)
    best_ne, _, _ = brute_answers(model, rows, nonempty=True)
    model.set_params(allow_empty=True)
    try:
        plain = model.map_query(rows)
    finally:
        model.set_params(allow_empty=False)
    np.testing.assert_array_equal(plain.to_numpy(), best)
    np.testing.assert_array_equal(got.to_numpy(), best_ne)
    np.testing.assert_allclose(model.predict_proba(rows), marg, atol=1e-10)
    np.testing.assert_allclose(model.marginal_query(rows).to_numpy(), marg, atol=1e-10)


@pytest.mark.parametrize("kind", ["nb", "fan", "ensemble"])
def test_subset_and_conditional_queries_equal_brute_force(fitted, kind):
    X, Y, models = fitted
    model = models[kind]
    rng = np.random.default_rng(1)
    rows = X.iloc[100:140]
    names = model.label_names_
    for _ in range(6):
        chosen = list(rng.permutation(names))
        given = {chosen[0]: int(rng.integers(0, 2))}
        labels = chosen[1 : 1 + int(rng.integers(1, len(names) - 1))]
        best, marg, scores = brute_answers(model, rows, labels=labels, given=given)
        got = model.map_query(rows, labels=labels, given=given).to_numpy()
        # ties cannot be told apart; compare the attained value
        d = {
            tuple(k): i for i, k in enumerate(sorted({tuple(c) for c in itertools.product([0, 1], repeat=len(labels))}))
        }
        attained = scores[np.arange(len(rows)), [d[tuple(r)] for r in got]]
        np.testing.assert_allclose(attained, scores.max(axis=1), atol=1e-9)
        np.testing.assert_allclose(model.marginal_query(rows, labels=labels, given=given).to_numpy(), marg, atol=1e-10)


def test_missing_and_unseen_values_are_summed_out():
    X, Y = synthetic(missing=0.0)
    model = MultilabelBNClassifier(feature_selection=None).fit(X, Y)
    test = X.iloc[:50].copy()
    rng = np.random.default_rng(3)
    test = test.mask(rng.random(test.shape) < 0.3)
    test.iloc[0, 0] = "never-seen"
    best, marg, _ = brute_answers(model, test, nonempty=True)
    got = model.predict(test)
    np.testing.assert_array_equal(got, best)
    np.testing.assert_allclose(model.predict_proba(test), marg, atol=1e-10)


def test_pgmpy_variable_elimination_agrees(fitted):
    from bnclf.io._pgmpy import variable_elimination

    X, Y, models = fitted
    model = models["fan"]
    infer = variable_elimination(model.to_pgmpy())
    states = model.network_.categories
    codes = model._encode(X.iloc[:8])
    rng = np.random.default_rng(2)
    for r in range(8):
        evidence = {}
        for name in model.selected_features_:
            j = model._encoder.feature_names_.index(name)
            if rng.random() < 0.8:
                evidence[str(name)] = states[name][codes[r, j]]
        given_label = model.label_names_[r % len(model.label_names_)]
        given = {given_label: int(rng.integers(0, 2))}
        query = [n for n in model.label_names_ if n != given_label]
        row = X.iloc[[r]].copy()
        for name in model.selected_features_:
            if str(name) not in evidence:
                row[name] = np.nan
        ours = model.marginal_query(row, labels=query, given=given).iloc[0]
        ours_map = model.map_query(row, labels=query[:3], given=given).iloc[0]
        pg_evidence = dict(evidence, **{given_label: given[given_label]})
        for name in query:
            pg = infer.query([name], evidence=pg_evidence, show_progress=False)
            p1 = pg.values[pg.state_names[name].index(1)]
            assert ours[name] == pytest.approx(p1, abs=1e-9)
        pg_map = infer.map_query(query[:3], evidence=pg_evidence, show_progress=False)
        # compare attained probabilities (ties): joint of the answer under pgmpy's marginal over query[:3]
        joint = infer.query(query[:3], evidence=pg_evidence, joint=True, show_progress=False)

        def prob(assignment):
            return joint.get_value(**{k: int(v) for k, v in assignment.items()})

        assert prob(dict(ours_map)) == pytest.approx(prob(pg_map), abs=1e-12)


def test_bridge_equals_exhaustive_search_and_bdeu_score():
    X, Y = synthetic(n_labels=6, n_features=6, seed=4)
    codes = np.column_stack([pd.factorize(X[c], sort=True)[0] for c in X])
    cards = codes.max(axis=0) + 1
    labels = Y.to_numpy()
    pruned = learn_bridge(codes, cards, labels, alpha=5.0, max_parents=6)
    full = learn_bridge(codes, cards, labels, alpha=5.0, max_parents=6, prune=False)
    assert pruned["parents"] == full["parents"]
    for j in range(codes.shape[1]):
        best = None
        for k in range(7):
            for subset in itertools.combinations(range(6), k):
                table = np.zeros([cards[j]] + [2] * k)
                np.add.at(table, tuple([codes[:, j]] + [labels[:, c] for c in subset]), 1)
                score = bdeu_score(table, 5.0)
                if best is None or score > best[0] + 1e-9:
                    best = (score, subset)
        assert pruned["parents"][j] == best[1]
        assert pruned["scores"][j] == pytest.approx(best[0], abs=1e-8)


def test_pruning_skips_sets_when_the_bound_bites():
    # a feature that is a deterministic copy of one label: every superset is bounded below the copy
    rng = np.random.default_rng(0)
    labels = (rng.random((300, 8)) < 0.5).astype(int)
    codes = np.column_stack([labels[:, 0], rng.integers(0, 2, 300)])
    pruned = learn_bridge(codes, [2, 2], labels, max_parents=6)
    full = learn_bridge(codes, [2, 2], labels, max_parents=6, prune=False)
    assert pruned["parents"] == full["parents"]
    assert pruned["parents"][0] == (0,)
    assert pruned["pruned"] > 0 and pruned["scored"] < full["scored"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_class_graph_equals_brute_force_over_feasible_fans(seed):
    _, Y = synthetic(n_labels=5, seed=seed)
    labels = Y.to_numpy()
    s0, s1, s2 = label_family_scores(labels)
    # the family scores themselves against bdeu_score
    table = np.zeros((2, 2, 2))
    np.add.at(table, (labels[:, 3], labels[:, 1], labels[:, 0]), 1)
    assert s2[0, 1, 3] == pytest.approx(bdeu_score(table, 5.0))
    for kind in ("nb", "fan"):
        got = learn_class_graph(labels, kind=kind)
        best = None
        for root in range(5):
            if kind == "nb":
                candidates = [
                    [() if i == root else pa for i, pa in enumerate(choice)]
                    for choice in itertools.product(*[[(), (root,)]] * 5)
                ]
            else:
                candidates = enumerate_fans(5, root)
            for parents in candidates:
                score = 0.0
                for i, pa in enumerate(parents):
                    score += s0[i] if not pa else s1[pa[0], i] if len(pa) == 1 else s2[pa[0], pa[1], i]
                if best is None or score > best[0] + 1e-9:
                    best = (score, root, parents)
        assert got["score"] == pytest.approx(best[0], abs=1e-8)
        assert got["root"] == best[1]


def test_fitted_attributes_and_treewidth(fitted):
    X, Y, models = fitted
    model = models["nb"]
    assert model.label_names_ == list(Y.columns)
    assert model.root_ in model.label_names_
    dag = model.dag_
    assert set(Y.columns) <= set(dag.nodes)
    for feature, parents in model.bridge_parents_.items():
        assert set(dag.predecessors(feature)) == set(parents)
        assert all(p in model.label_names_ for p in parents)
    assert all(dag.out_degree(f) == 0 for f in model.selected_features_)
    scopes = [tuple(model.label_names_.index(p) for p in (c, *dag.predecessors(c))) for c in model.label_names_]
    scopes += [tuple(model.label_names_.index(p) for p in pa) for pa in model.bridge_parents_.values()]
    assert model.treewidth_ == elimination_order(scopes, range(5), [2] * 5).widest
    assert models["ensemble"].treewidth_ == 5
    assert len(models["ensemble"].to_pgmpy()) == 5


def test_marginal_query_decisions_and_empty_prevention(fitted):
    X, Y, models = fitted
    model = MultilabelBNClassifier(feature_selection=None, query="marginal").fit(X, Y)
    probs = model.predict_proba(X)
    pred = model.predict(X)
    plain = (probs > 0.5).astype(int)
    empty = ~plain.any(axis=1)
    np.testing.assert_array_equal(pred[~empty], plain[~empty])
    if empty.any():
        assert (pred[empty].sum(axis=1) == 1).all()
        np.testing.assert_array_equal(pred[empty].argmax(axis=1), probs[empty].argmax(axis=1))
    model.set_params(allow_empty=True)
    np.testing.assert_array_equal(model.predict(X), plain)


def test_label_matrix_input_forms_and_errors():
    X, Y = synthetic(n_rows=80)
    a = MultilabelBNClassifier(feature_selection=None).fit(X, Y.to_numpy())
    b = MultilabelBNClassifier(feature_selection=None).fit(X, Y.astype(bool))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.label_names_ == [f"label{i}" for i in range(5)]
    with pytest.raises(ValueError, match="2-D"):
        MultilabelBNClassifier().fit(X, Y.iloc[:, 0].to_numpy())
    bad = Y.copy()
    bad.iloc[0, 2] = 2
    with pytest.raises(ValueError, match="L2"):
        as_label_matrix(bad)
    bad = Y.astype(float)
    bad.iloc[3, 1] = np.nan
    with pytest.raises(ValueError, match="L1.*missing"):
        as_label_matrix(bad)
    with pytest.raises(ValueError, match="class_graph"):
        MultilabelBNClassifier(class_graph="tan").fit(X, Y)
    with pytest.raises(ValueError, match="alpha"):
        MultilabelBNClassifier(alpha=0).fit(X, Y)
    with pytest.raises(ValueError, match="max_parents"):
        MultilabelBNClassifier(max_parents=-1).fit(X, Y)
    model = MultilabelBNClassifier(feature_selection=None).fit(X, Y)
    with pytest.raises(ValueError, match="Unknown label 'nope'"):
        model.map_query(X, labels=["nope"])
    with pytest.raises(ValueError, match="given"):
        model.map_query(X, given={"L0": 3})
    with pytest.raises(ValueError, match="both queried and given"):
        model.map_query(X, labels=["L0"], given={"L0": 1})


def test_score_is_global_accuracy(fitted):
    X, Y, models = fitted
    model = models["nb"]
    assert model.score(X, Y) == pytest.approx((model.predict(X) == Y.to_numpy()).all(axis=1).mean())


def test_numeric_rows_encode_by_cut_points_like_the_discretizer():
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(300, 6)), columns=[f"x{j}" for j in range(6)])
    Y = pd.DataFrame(
        {
            "a": (X.x0 + rng.normal(size=300) > 0).astype(int),
            "b": (X.x1 - X.x0 > 0).astype(int),
            "c": (X.x2 > 0.5).astype(int),
        }
    )
    model = MultilabelBNClassifier(feature_selection=None).fit(X, Y)
    test = pd.DataFrame(rng.normal(scale=3, size=(50, 6)), columns=X.columns)  # beyond the range too
    assert model._cut_points.plan is not None
    fast = model._encode(test)
    general = model._encoder.transform(model._discretizer.transform(test))
    np.testing.assert_array_equal(fast, general)
    with_missing = test.copy()
    with_missing.iloc[0, 0] = np.nan
    best, marg, _ = brute_answers(model, with_missing, nonempty=True)
    np.testing.assert_array_equal(model.predict(with_missing), best)
    np.testing.assert_allclose(model.predict_proba(with_missing), marg, atol=1e-10)


def test_bridge_on_emotions_equals_search_without_pruning_and_bdeu_brute_force():
    from bnclf.datasets import load_multilabel_dataset
    from bnclf.encoding._discretize import QuantileDiscretizer
    from bnclf.encoding._encoder import FeatureEncoder

    X, Y = load_multilabel_dataset("emotions")
    frame = QuantileDiscretizer(n_bins=4).fit_transform(X)
    encoder = FeatureEncoder().fit(frame)
    codes = encoder.transform(frame, training=True)
    cards = np.asarray(encoder.cardinalities_)
    labels = Y.to_numpy().astype(int)
    pruned = learn_bridge(codes, cards, labels, max_parents=6)
    full = learn_bridge(codes, cards, labels, max_parents=6, prune=False)
    assert pruned["parents"] == full["parents"]
    np.testing.assert_allclose(pruned["scores"], full["scores"], rtol=0, atol=1e-9)
    assert full["scored"] == 72 * 64
    for j in (0, 17, 40, 71):  # all 64 class subsets scored by the plain BDeu formula
        scores = {}
        for k in range(7):
            for subset in itertools.combinations(range(6), k):
                table = np.zeros([cards[j]] + [2] * k)
                np.add.at(table, tuple([codes[:, j]] + [labels[:, c] for c in subset]), 1)
                scores[subset] = bdeu_score(table, 5.0)
        best = max(scores.values())
        first = next(s for s, v in scores.items() if v > best - 1e-9)
        assert pruned["parents"][j] == first


def test_twelve_labels_brute_force_including_the_non_empty_map():
    X, Y = synthetic(n_rows=600, n_labels=12, n_features=14, seed=7)
    Y.iloc[:, 3:] = (np.random.default_rng(8).random((600, 9)) < 0.08).astype(int)  # sparse labels
    model = MultilabelBNClassifier(class_graph="fan", feature_selection=None, max_parents=2).fit(X, Y)
    rows = X.iloc[:25]
    best, marg, _ = brute_answers(model, rows)
    best_ne, _, _ = brute_answers(model, rows, nonempty=True)
    np.testing.assert_array_equal(model.predict(rows), best_ne)
    np.testing.assert_allclose(model.predict_proba(rows), marg, atol=1e-10)
    model.set_params(allow_empty=True)
    np.testing.assert_array_equal(model.predict(rows), best)
    assert (~best.any(axis=1)).any()  # the non-empty rule was exercised


def test_maximum_branching_weight_equals_networkx_edmonds():
    import networkx as nx

    from bnclf.learn._multilabel import maximum_branching

    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(1, 11))
        w = rng.normal(size=(n, n))
        w[rng.random((n, n)) < 0.3] = -np.inf
        parents = maximum_branching(w)
        arcs = [(int(parents[i]), i) for i in range(n) if parents[i] >= 0]
        assert nx.is_directed_acyclic_graph(nx.DiGraph(arcs)) if arcs else True
        assert all(w[u, v] > 0 and u != v for u, v in arcs)
        graph = nx.DiGraph()
        graph.add_nodes_from(range(n))
        graph.add_weighted_edges_from((u, v, w[u, v]) for u in range(n) for v in range(n) if u != v and w[u, v] > 0)
        theirs = sum(graph[u][v]["weight"] for u, v in nx.maximum_branching(graph).edges)
        assert sum(w[u, v] for u, v in arcs) == pytest.approx(theirs, abs=1e-9)


def test_bridge_search_warns_before_a_long_search_and_shows_progress(monkeypatch, capsys):
    """A bridge search estimated beyond a minute (5,000 rows, 600 features, 20 labels, all
    subsets of at most 4 labels) warns before it starts; the fit is stopped at the first
    score here. A small fit says nothing, and verbose=1 draws a bar whose steps add up to
    the candidate sets, scored or pruned."""
    import warnings

    import bnclf.learn._multilabel as multilabel
    from bnclf.learn._multilabel import bridge_search_size

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 4, (5000, 600)), columns=[f"f{j}" for j in range(600)]).astype("category")
    Y = rng.integers(0, 2, (5000, 20))

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(multilabel, "_score_sets", stop)
    with pytest.warns(UserWarning, match=r"up to 3,717,600 feature and class-set pairs .* max_parents.* verbose=1"):
        with pytest.raises(KeyboardInterrupt):
            MultilabelBNClassifier(feature_selection=None).fit(X, Y)
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model = MultilabelBNClassifier(feature_selection=None, verbose=1).fit(X.iloc[:300, :8], Y[:300, :6])
    assert "bridge" in capsys.readouterr().err
    stats = model.bridge_stats_
    size = bridge_search_size(300, [4] * 8, len(np.unique(Y[:300, :6], axis=0)), 6, stats["max_parents"])
    assert stats["scored"] + stats["pruned"] == size["pairs"]
    # the progress steps cover every set once, pruned or scored
    steps = []
    codes = X.iloc[:300, :8].apply(lambda c: c.cat.codes).to_numpy(np.int64)
    learn_bridge(codes, [4] * 8, Y[:300, :6], max_parents=stats["max_parents"], progress=steps.append)
    assert sum(steps) == size["sets"] == sum(math.comb(6, k) for k in range(stats["max_parents"] + 1))
