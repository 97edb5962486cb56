"""The hill-climbing engine, RMCV and its comparators, against independent answers.

Oracles: networkx for reachability and acyclicity of every neighbour; a plain scorer that
fits each fold's network with the count cache and scores it with the network kernel;
brute-force enumeration of all 29,281 DAGs on iris; pgmpy's BIC/BDeu structure scores;
pgmpy VariableElimination for the posteriors of the exported unrestricted network; the
conditional log-likelihood from full joint probabilities.
"""

import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from pgmpy_oracle import observed, posterior

from bnclf import HillClimbClassifier, MDLDiscretizer, RMCVClassifier
from bnclf.counts._cache import CountCache
from bnclf.datasets import load_dataset
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import DiscreteData, encode_target
from bnclf.inference._kernels import NetworkKernel, log_posterior
from bnclf.learn._class_score import ClassScore, FamilyContributions, dag_score_from_scratch, first_best
from bnclf.learn._parameters import m_estimated_log_cpts
from bnclf.learn._search import DagState, DecomposableScore, Move, enumerate_dags, hill_climb
from bnclf.models import make_classifier
from bnclf.models._search_based import _holdout_folds


def coded(X, y):
    encoder = FeatureEncoder().fit(X)
    classes, codes = encode_target(y)
    data = DiscreteData(encoder.transform(X, training=True), encoder.cardinalities_, codes, len(classes))
    return data, np.column_stack([data.codes, data.y]), np.append(data.cardinalities, len(classes))


@pytest.fixture(scope="module")
def krkp_small(krkp):
    X, y = krkp
    rows = np.random.default_rng(0).permutation(len(y))[:600]
    return coded(X.iloc[rows, :12].reset_index(drop=True), y.iloc[rows].reset_index(drop=True))


@pytest.fixture(scope="module")
def soybean_small(soybean):
    X, y = soybean
    return coded(X.iloc[:, :10], y)


@pytest.fixture(scope="module")
def iris_coded():
    X, y = load_dataset("iris")
    Xd = MDLDiscretizer().fit(X, y).transform(X)
    return coded(Xd, y)


# ----------------------------------------------------------------------------- DagState
def test_reachability_and_legal_moves_match_networkx():
    rng = np.random.default_rng(1)
    n = 7
    state = DagState(n)
    for step in range(60):
        moves = state.legal_moves(max_parents=3)
        graph = nx.DiGraph(state.edges)
        graph.add_nodes_from(range(n))
        # every listed move keeps a DAG and respects the bound; every such change is listed
        brute = set()
        for u in range(n):
            for v in range(n):
                if u == v:
                    continue
                for kind in ("add", "delete", "reverse"):
                    g = graph.copy()
                    if kind == "add" and not g.has_edge(u, v) and not g.has_edge(v, u):
                        g.add_edge(u, v)
                    elif kind != "add" and g.has_edge(u, v):
                        g.remove_edge(u, v)
                        if kind == "reverse":
                            g.add_edge(v, u)
                    else:
                        continue
                    if nx.is_directed_acyclic_graph(g) and max(dict(g.in_degree()).values()) <= 3:
                        brute.add(Move(kind, u, v))
        assert set(moves) == brute
        move = moves[rng.integers(len(moves))]
        state.apply(move)
        closure = nx.transitive_closure_dag(nx.DiGraph(state.edges))
        expected = np.zeros((n, n), dtype=bool)
        for a, b in closure.edges:
            expected[a, b] = True
        assert (state.reach == expected).all(), step


def test_start_graph_with_a_cycle_is_refused():
    with pytest.raises(ValueError, match="cycle"):
        DagState(3, [(0, 1), (1, 2), (2, 0)])


def test_dag_counts_match_oeis():
    assert [len(enumerate_dags(n)) for n in range(1, 6)] == [1, 3, 25, 543, 29281]


# ----------------------------------------------------------------------------- 0/1 score
def plain_error(codes, cards, folds, parents, m):
    """RMCV/RMHO error of a DAG: each fold's network fitted from its own count cache and
    scored by the network kernel (which includes the families without the class)."""
    d = codes.shape[1] - 1
    families = [(v, *sorted(pa, key=lambda p: (p == d, p))) for v, pa in enumerate(parents)]
    errors = total = 0
    for k in range(folds.max() + 1):
        train, val = folds != k, folds == k
        cache = CountCache(DiscreteData(codes[train, :d], cards[:d], codes[train, d], cards[d]))
        kernel = NetworkKernel(families, m_estimated_log_cpts(cache, families, m), d)
        predicted = first_best(kernel.joint_log_likelihood(codes[val, :d]))
        errors += int((predicted != codes[val, d]).sum())
        total += int(val.sum())
    return errors / total


@pytest.mark.parametrize("dataset", ["krkp_small", "soybean_small"])
@pytest.mark.parametrize("start, all_folds, m", [("nb", True, 0.0), ("empty", True, 0.0), ("nb", False, 1.0)])
def test_incremental_score_equals_recomputation_after_every_move(dataset, start, all_folds, m, request):
    _, codes, cards = request.getfixturevalue(dataset)
    d = codes.shape[1] - 1
    folds = _holdout_folds(codes[:, d], 4, 3, all_folds=all_folds)
    table = FamilyContributions(codes, cards, folds, m=m)
    edges = [(d, j) for j in range(d)] if start == "nb" else []
    result = hill_climb(ClassScore(table), DagState(d + 1, edges), random_state=0, max_iter=12)
    assert result.n_moves >= (3 if start == "nb" else 1)
    state = DagState(d + 1, edges)
    for row in result.trace[1:]:
        state.apply(Move(row["move"], row["u"], row["v"]))
        fresh = FamilyContributions(codes, cards, folds, m=m)  # no memo, no running sums
        assert dag_score_from_scratch(state.parents, fresh) == pytest.approx(row["score"], abs=0)
        assert plain_error(codes, cards, folds, state.parents, m) == pytest.approx(row["score"], abs=1e-12)
    # scores only drop, strictly
    scores = [row["score"] for row in result.trace]
    assert all(b < a for a, b in zip(scores, scores[1:]))


def test_moves_outside_the_class_families_do_not_change_the_score(krkp_small):
    _, codes, cards = krkp_small
    d = codes.shape[1] - 1
    folds = _holdout_folds(codes[:, d], 4, 0, all_folds=True)
    table = FamilyContributions(codes, cards, folds, m=0.0)
    state = DagState(d + 1, [(d, j) for j in range(6)] + [(7, 8), (0, 1), (9, d)])
    base = plain_error(codes, cards, folds, state.parents, 0.0)
    parents = state.parents
    skipped = [m for m in state.legal_moves() if not m.touches(parents, d)]
    assert len(skipped) > 20
    for move in skipped[::5]:
        other = state.copy()
        other.apply(move)
        assert plain_error(codes, cards, folds, other.parents, 0.0) == base
    score = ClassScore(table)
    score.start(state)
    values, n_scored = score.evaluate(state, state.legal_moves())
    assert n_scored == len(state.legal_moves()) - len(skipped)


def test_iris_every_dag_and_the_search_optimum(iris_coded):
    """All 29,281 DAGs over iris' 4 attributes and the class: the engine's score of every
    DAG the search visits equals the plain scorer's, and the DAG it returns has no
    better neighbour in the enumeration."""
    _, codes, cards = iris_coded
    d = codes.shape[1] - 1
    folds = _holdout_folds(codes[:, d], 4, 0, all_folds=True)
    table = FamilyContributions(codes, cards, folds, m=0.0)
    dags = enumerate_dags(d + 1)
    scores = {tuple(p): dag_score_from_scratch(p, table) for p in dags}
    assert len(scores) == 29281
    for start in ([(d, j) for j in range(d)], []):
        result = hill_climb(ClassScore(table), DagState(d + 1, start), random_state=0)
        state = DagState(d + 1, start)
        visited = [state.parents]
        for row in result.trace[1:]:
            state.apply(Move(row["move"], row["u"], row["v"]))
            visited.append(state.parents)
        for parents, row in zip(visited, result.trace):
            assert scores[tuple(parents)] == row["score"]
            assert plain_error(codes, cards, folds, parents, 0.0) == pytest.approx(row["score"])
        final = {(p, v) for v, pa in enumerate(visited[-1]) for p in pa}
        neighbours = []
        for parents in dags:
            arcs = {(p, v) for v, pa in enumerate(parents) for p in pa}
            differ = final ^ arcs
            reversed_arc = len(differ) == 2 and {(b, a) for a, b in differ} == differ
            if len(differ) == 1 or reversed_arc:
                neighbours.append(parents)
        assert len(neighbours) == len(result.state.legal_moves())
        assert min(scores[tuple(p)] for p in neighbours) >= result.score


# ----------------------------------------------------------------------------- estimators
def test_rmcv_variants_and_fitted_attributes(krkp):
    X, y = krkp
    rows = np.random.default_rng(2).permutation(len(y))[:800]
    X, y = X.iloc[rows, :15], y.iloc[rows]
    model = RMCVClassifier(random_state=0).fit(X, y)
    trace = model.search_trace_
    assert list(trace.columns) == ["iteration", "move", "arc", "score", "n_candidates", "n_scored", "seconds"]
    assert model.n_moves_ == len(trace) - 1 and model.n_iter_ == model.n_moves_ + 1
    assert model.score_ == trace["score"].iloc[-1] < trace["score"].iloc[0]
    assert (trace["n_scored"].iloc[1:] <= trace["n_candidates"].iloc[1:]).all()
    assert set(model.markov_blanket_) <= set(X.columns)
    graph = model.dag_
    assert set(model.markov_blanket_) == set(nx.all_neighbors(graph, model.class_name_)) | {
        p for c in graph.successors(model.class_name_) for p in graph.predecessors(c)
    } - {model.class_name_}
    again = RMCVClassifier(random_state=0).fit(X, y)
    assert list(again.dag_.edges) == list(graph.edges)
    ar = RMCVClassifier(variant="holdout-fixed-no-reversal", random_state=0).fit(X, y)
    assert "reverse" not in set(ar.search_trace_["move"])
    bounded = RMCVClassifier(max_parents=2, random_state=0).fit(X, y)
    assert max(dict(bounded.dag_.in_degree()).values()) <= 2
    capped = RMCVClassifier(max_iter=2, random_state=0).fit(X, y)
    assert capped.n_moves_ <= 2
    for variant in ("holdout", "holdout-fixed"):
        fitted = RMCVClassifier(variant=variant, random_state=0).fit(X, y)
        assert fitted.n_iter_ >= 1 and fitted.n_moves_ == len(fitted.search_trace_) - 1


def test_final_parameters_come_from_all_training_rows(krkp):
    X, y = krkp
    rows = np.random.default_rng(3).permutation(len(y))[:500]
    X, y = X.iloc[rows, :10], y.iloc[rows]
    model = RMCVClassifier(random_state=1).fit(X, y)
    data, codes, cards = coded(X, y)
    cache = CountCache(data)
    for family, table in zip(model.network_.families, model.network_.log_cpts):
        np.testing.assert_allclose(table, m_estimated_log_cpts(cache, [family], 0.0)[0])


def test_bad_parameters_name_the_parameter_and_the_fix():
    X = pd.DataFrame({"a": [None] + list("yxyxyxy"), "b": list("uuvvuuvv")})
    y = ["p", "q", "p", "q", "p", "q", "p", "q"]
    cases = [
        (RMCVClassifier(n_splits=1), "n_splits"),
        (RMCVClassifier(n_splits=9), "n_splits=9"),
        (RMCVClassifier(variant="loo"), "variant"),
        (RMCVClassifier(start="tan"), "start"),
        (RMCVClassifier(max_parents=0), "start='empty'"),
        (RMCVClassifier(missing="ignore"), "missing='category'"),
        (HillClimbClassifier(criterion="cll", missing="ignore"), "missing='category'"),
        (HillClimbClassifier(criterion="aic"), "criterion"),
        (HillClimbClassifier(ess=0), "ess"),
        (HillClimbClassifier(max_iter=-1), "max_iter"),
    ]
    for model, match in cases:
        with pytest.raises(ValueError, match=match):
            model.fit(X, y)


def test_registered_names():
    assert make_classifier("rmcv").variant == "cv"
    assert make_classifier("rmho(start=empty)").get_params()["start"] == "empty"
    assert make_classifier("rmho").variant == "holdout"
    assert make_classifier("rmho-f").variant == "holdout-fixed"
    assert make_classifier("rmho-ar").variant == "holdout-fixed-no-reversal"
    assert make_classifier("hc(criterion=mdl)").criterion == "mdl"
    assert make_classifier("hc(criterion=k2, start=empty)").start == "empty"
    mdl = make_classifier("bnc-mdl")
    assert (mdl.criterion, mdl.start) == ("cmdl", "empty")
    two = make_classifier("bnc-2p")
    assert (two.criterion, two.start, two.max_parents) == ("cll", "empty", 2)
    assert make_classifier("bnc-2p(max_parents=3)").max_parents == 3


# ----------------------------------------------------------------------------- comparators
@pytest.fixture(scope="module")
def soybean_frame(soybean):
    X, y = soybean
    X = X.iloc[:, :8]
    frame = X.astype(object).fillna("<missing>").astype(str).assign(cls=y.astype(str))
    return X, y, frame


@pytest.mark.parametrize("criterion, pgmpy_name, sign", [("mdl", "BIC", -1.0), ("bdeu", "BDeu", 1.0)])
def test_decomposable_search_score_equals_pgmpy_structure_score(criterion, pgmpy_name, sign, soybean_frame):
    X, y, frame = soybean_frame
    model = HillClimbClassifier(criterion=criterion, start="empty", ess=10.0).fit(X, y)
    assert model.n_moves_ >= 5
    names = list(frame.columns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgmpy.estimators as estimators
        from pgmpy.base import DAG

        dag = DAG()
        dag.add_nodes_from(names)
        for family in model.network_.families:
            dag.add_edges_from((names[p], names[family[0]]) for p in family[1:])
        kwargs = {"equivalent_sample_size": 10} if pgmpy_name == "BDeu" else {}
        want = getattr(estimators, pgmpy_name)(frame, **kwargs).score(dag)
    assert model.score_ == pytest.approx(sign * want, rel=1e-10)
    # each accepted move improved the score strictly
    scores = model.search_trace_["score"].to_numpy()
    assert (np.diff(scores) * sign > 0).all() if sign > 0 else (np.diff(scores) < 0).all()


def test_cll_and_cmdl_equal_full_joint_computation(soybean_small):
    data, codes, cards = soybean_small
    d = codes.shape[1] - 1
    table = FamilyContributions(codes, cards, None, m=0.5)
    parents = [frozenset()] * (d + 1)
    parents = [frozenset({d}) if v < 5 else frozenset() for v in range(d + 1)]
    parents[6] = frozenset({7})
    parents[d] = frozenset({8, 9})
    parents[2] = frozenset({d, 1})
    cache = CountCache(data)
    families = [(v, *sorted(pa, key=lambda p: (p == d, p))) for v, pa in enumerate(parents)]
    kernel = NetworkKernel(families, m_estimated_log_cpts(cache, families, 0.5), d)
    log_post = log_posterior(kernel.joint_log_likelihood(codes[:, :d]))
    cll = log_post[np.arange(len(codes)), codes[:, d]].sum()
    assert dag_score_from_scratch(parents, table, "cll") == pytest.approx(cll, rel=1e-12)
    dim = sum((cards[v] - 1) * np.prod([cards[p] for p in pa]) for v, pa in enumerate(parents))
    want = 0.5 * dim * np.log(len(codes)) - cll
    assert dag_score_from_scratch(parents, table, "cmdl") == pytest.approx(want, rel=1e-12)


def test_cmdl_and_cll_searches_are_consistent_with_recomputation(soybean_small):
    _, codes, cards = soybean_small
    d = codes.shape[1] - 1
    for kind, bound in (("cmdl", None), ("cll", 2)):
        table = FamilyContributions(codes, cards, None, m=0.0)
        result = hill_climb(ClassScore(table, kind), DagState(d + 1), max_parents=bound, max_iter=8, random_state=0)
        state = DagState(d + 1)
        for row in result.trace[1:]:
            state.apply(Move(row["move"], row["u"], row["v"]))
            fresh = FamilyContributions(codes, cards, None, m=0.0)
            assert dag_score_from_scratch(state.parents, fresh, kind) == pytest.approx(row["score"], rel=1e-10)
        if bound:
            assert max(len(p) for p in result.state.parents) <= bound


def test_decomposable_score_recomputation(soybean_small):
    data, _, _ = soybean_small
    cache = CountCache(data)
    d = data.n_features
    for name in ("mdl", "k2", "bdeu"):
        score = DecomposableScore(cache, name)
        result = hill_climb(score, DagState(d + 1), max_iter=10, random_state=0)
        fresh = DecomposableScore(CountCache(data), name)
        assert fresh.total(result.state.parents) == pytest.approx(result.score, rel=1e-12)


# ----------------------------------------------------------------------------- prediction
def test_unrestricted_network_posteriors_equal_pgmpy_with_missing_values(soybean):
    X, y = soybean
    X = X.iloc[:, :8]
    model = HillClimbClassifier(criterion="k2", start="empty", m=1.0).fit(X, y)
    assert any(True for _ in model.dag_.predecessors(model.class_name_)), "class has parents"
    rows = X.dropna().iloc[::11].astype(object)  # NaN is a state of soybean's columns
    rng = np.random.default_rng(0)
    holes = rng.random(rows.shape) < 0.25  # unseen values are summed out (a NaN would be
    rows = rows.mask(holes, "never-seen")  # soybean's 'missing' state, observed)
    assert holes.any(axis=1).sum() > 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba = model.predict_proba(rows)
        net = model.to_pgmpy()
        for i, (_, row) in enumerate(rows.iterrows()):
            evidence = {k: v for k, v in observed(row).items() if v in model.categories_[k]}
            want = posterior(net, model.class_name_, list(model.classes_), evidence)
            np.testing.assert_allclose(proba[i], want, atol=1e-10)


def test_rows_impossible_outside_the_class_families_use_the_class_families():
    """m=0: a zero in a family without the class makes P(x) = 0; the kernel then scores
    the class from the families that contain it (the m -> 0 limit of the posterior)."""
    X = pd.DataFrame({"a": list("xxyyxy"), "b": list("uuvvuu")})
    y = np.array(["p", "p", "q", "q", "p", "q"])
    # b <- a only, class -> a: a=y,b=u is seen, a=x,b=v is never seen
    families = [(0, 2), (1, 0), (2,)]
    data, codes, cards = coded(X, y)
    cache = CountCache(data)
    kernel = NetworkKernel(families, m_estimated_log_cpts(cache, families, 0.0), 2)
    jll = kernel.joint_log_likelihood(np.array([[0, 1], [1, 0]]))  # (x, v) impossible
    assert not np.isneginf(jll[0]).all()
    small = NetworkKernel(families, m_estimated_log_cpts(cache, families, 1e-9), 2)
    np.testing.assert_allclose(
        np.exp(log_posterior(jll)),
        np.exp(log_posterior(small.joint_log_likelihood(np.array([[0, 1], [1, 0]])))),
        atol=1e-6,
    )


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_zero_one_score_of_a_batch_equals_first_best_row_by_row(n_classes):
    """The batched 0/1 loss of ClassScore (a tolerance, the lowest class on ties, class 0
    where every class is impossible) against first_best applied row by row."""
    rng = np.random.default_rng(n_classes)
    n, d = 300, 3
    codes = np.column_stack([rng.integers(0, 2, (n, d)), rng.integers(0, n_classes, n)])
    table = FamilyContributions(codes, [2] * d + [n_classes], _holdout_folds(codes[:, d], 3, 0, all_folds=True))
    score = ClassScore(table)
    impossible = -0.5 * table.zero_penalty
    sums = rng.normal(size=(6, n_classes, table.n_eval)).round(1)  # many exact ties
    sums[1, 1] = sums[1, 0] + 1e-11  # ties within the tolerance
    sums[2, :, ::7] = -table.zero_penalty  # rows where every class is impossible
    sums[3, 0, ::5] = -table.zero_penalty  # class 0 alone impossible
    expected = []
    for batch in sums:
        predicted = first_best(np.where(batch < impossible, -np.inf, batch).T)
        expected.append(np.mean(predicted != table.y))
    np.testing.assert_array_equal(score._value(sums, np.zeros(6)), expected)


def test_first_best_takes_the_lowest_index_on_ties():
    log_joint = np.array(
        [[-1.0, -1.0 + 1e-12, -2.0], [-np.inf, -np.inf, -np.inf], [-3.0, -1.0, -1.0], [-np.inf, -5.0, -4.0]]
    )
    np.testing.assert_array_equal(first_best(log_joint), [0, 0, 1, 2])
    np.testing.assert_array_equal(first_best(log_joint.T, axis=0), [0, 0, 1, 2])
    pairs = np.array([[-1.0, -1.0 + 1e-12], [-np.inf, -np.inf], [-np.inf, -3.0], [-1.0, -0.5]])
    np.testing.assert_array_equal(first_best(pairs), [0, 0, 1, 1])
    wide = np.random.default_rng(0).normal(size=(50, 7))
    np.testing.assert_array_equal(first_best(wide), wide.argmax(axis=1))
