"""The vectorized kernels against brute-force enumeration and pgmpy exact inference."""

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclf.inference._elimination import elimination_order
from bnclf.inference._kernels import FamilyGather, NetworkKernel, StackedKernel, log_posterior, log_weighted_sum
from bnclf.io._pgmpy import variable_elimination
from bnclf.network import Network


def random_network(rng, n_features, class_parents, max_parents=2, card=(2, 4)):
    """A random DAG over features 0..d-1 and the class d with random CPTs.

    The class gets ``class_parents`` feature parents (taken from the first
    features in the topological order) and is a parent of every later feature.
    """
    d = n_features
    order = list(range(d))
    cards = [int(rng.integers(card[0], card[1] + 1)) for _ in range(d)] + [int(rng.integers(2, 4))]
    parents = {}
    for rank, v in enumerate(order):
        earlier = order[:rank]
        k = int(rng.integers(0, min(max_parents, len(earlier)) + 1))
        parents[v] = sorted(int(p) for p in rng.choice(earlier, size=k, replace=False)) if k else []
    feeders = order[:class_parents]
    parents[d] = list(feeders)
    for v in order[class_parents:]:
        parents[v] = parents[v] + [d]
    families = [(v, *parents[v]) for v in range(d + 1)]
    tables = []
    for f in families:
        shape = tuple(cards[v] for v in f)
        p = rng.dirichlet(np.ones(shape[0]) * 0.7, size=int(np.prod(shape[1:]))).T.reshape(shape)
        tables.append(np.log(p))
    return families, tables, cards


def brute_force_jll(families, tables, cards, codes, class_index):
    """log P(c, x_observed) by summing the full joint over every unknown feature."""
    d = len(cards) - 1
    out = np.empty((codes.shape[0], cards[class_index]))
    for r, row in enumerate(codes):
        unknown = [v for v in range(d) if row[v] < 0]
        for c in range(cards[class_index]):
            total = 0.0
            for values in itertools.product(*(range(cards[v]) for v in unknown)):
                full = row.copy()
                full[unknown] = values
                full = np.append(full, c)
                total += np.exp(sum(t[tuple(full[list(f)])] for f, t in zip(families, tables)))
            out[r, c] = np.log(total)
    return out


STRATEGIES = {  # module constants that select how unknowns are summed out
    "batched": {"_COMPONENTS_FROM_CELLS": 2**62},
    "per-pattern": {"_COMPONENTS_FROM_CELLS": 2**62, "_BATCHED_VE_CELLS": 0},
    "components": {"_COMPONENTS_FROM_CELLS": 0, "_ENUMERATED_VALUES": 2**20},
    "components, large ones eliminated": {"_COMPONENTS_FROM_CELLS": 0, "_ENUMERATED_VALUES": 6},
}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), class_parents=st.integers(0, 3), strategy=st.sampled_from(sorted(STRATEGIES)))
def test_kernel_equals_brute_force_on_random_dags_with_class_parents(seed, class_parents, strategy):
    """Every strategy: one batched elimination plan, each pattern's own unknowns, and
    enumeration of the components of unknowns (with the large ones eliminated)."""
    import bnclf.inference._kernels as inference

    saved = {name: getattr(inference, name) for name in STRATEGIES[strategy]}
    try:
        for name, value in STRATEGIES[strategy].items():
            setattr(inference, name, value)
        check_random_dag(seed, class_parents)
    finally:
        for name, value in saved.items():
            setattr(inference, name, value)


def check_random_dag(seed, class_parents):
    rng = np.random.default_rng(seed)
    d = 6
    families, tables, cards = random_network(rng, d, class_parents)
    kernel = NetworkKernel(families, tables, d)
    codes = np.array([[rng.integers(cards[v]) for v in range(d)] for _ in range(16)])
    codes[rng.random(codes.shape) < 0.4] = -1
    np.testing.assert_allclose(
        kernel.joint_log_likelihood(codes), brute_force_jll(families, tables, cards, codes, d), atol=1e-9
    )


@pytest.mark.parametrize("seed", range(6))
def test_kernel_posterior_equals_pgmpy_with_class_parents_and_unknowns(seed):
    rng = np.random.default_rng(100 + seed)
    d = 6
    families, tables, cards = random_network(rng, d, class_parents=1 + seed % 3)
    names = [f"x{i}" for i in range(d)] + ["C"]
    states = [list(range(c)) for c in cards]
    net = Network(families, tables, names, states, d)
    infer = variable_elimination(net.to_pgmpy())
    codes = np.array([[rng.integers(cards[v]) for v in range(d)] for _ in range(10)])
    codes[rng.random(codes.shape) < 0.35] = -1
    ours = np.exp(log_posterior(net.joint_log_likelihood(codes)))
    for r, row in enumerate(codes):
        evidence = {names[v]: int(row[v]) for v in range(d) if row[v] >= 0}
        factor = infer.query(["C"], evidence=evidence, show_progress=False)
        ref = [factor.values[factor.state_names["C"].index(c)] for c in range(cards[d])]
        np.testing.assert_allclose(ours[r], ref, atol=1e-9)


def test_unknown_parent_of_the_class_is_not_barren():
    # x0 -> C: an unknown x0 must be summed out against P(c | x0), giving P(c).
    p_x0 = np.array([0.9, 0.1])
    p_c_given_x0 = np.array([[0.9, 0.1], [0.05, 0.95]]).T  # axes (C, x0)
    kernel = NetworkKernel([(0,), (1, 0)], [np.log(p_x0), np.log(p_c_given_x0)], 1)
    got = kernel.joint_log_likelihood(np.array([[-1]]))[0]
    np.testing.assert_allclose(got, np.log(p_c_given_x0 @ p_x0), atol=1e-12)
    # the wrong (barren) answer would be log P(c | x0=0) or similar: make sure it differs
    assert not np.allclose(got, np.log(p_c_given_x0[:, 0]))


def test_barren_unknowns_need_no_elimination_and_are_exact():
    rng = np.random.default_rng(3)
    families, tables, cards = random_network(rng, 5, class_parents=0)
    kernel = NetworkKernel(families, tables, 5)
    codes = np.array([[rng.integers(c) for c in cards[:5]] for _ in range(8)])
    codes[:, 4] = -1  # the last feature has no children: barren
    np.testing.assert_allclose(
        kernel.joint_log_likelihood(codes), brute_force_jll(families, tables, cards, codes, 5), atol=1e-12
    )
    assert kernel._elimination is None  # answered by gathers only


def test_family_gather_rejects_negative_codes_instead_of_wrapping():
    table = np.log(np.array([[0.2, 0.8], [0.8, 0.2]]))  # axes (x0, C)
    gather = FamilyGather([(0, 1)], [table], class_index=1, n_classes=2)
    np.testing.assert_allclose(gather(np.array([[1]]))[0, 0], table[1])
    with pytest.raises(ValueError, match="negative"):
        gather(np.array([[-1]]))


def test_family_gather_of_families_without_the_class_broadcasts():
    rng = np.random.default_rng(0)
    t0 = np.log(rng.dirichlet([1, 1, 1]))  # (x0,)
    t1 = np.log(rng.dirichlet([1, 1], size=6).T.reshape(2, 3, 2))  # (x1, x0, C)
    gather = FamilyGather([(0,), (1, 0, 2)], [t0, t1], class_index=2, n_classes=2)
    codes = np.array([[2, 1], [0, 0]])
    entries = gather(codes)
    np.testing.assert_allclose(entries[:, 0, :], np.repeat(t0[[2, 0]][:, None], 2, axis=1))
    np.testing.assert_allclose(entries[0, 1], t1[1, 2])
    np.testing.assert_allclose(gather.summed(codes), entries.sum(axis=1))


def test_family_gather_sums_a_few_rows_and_many_rows_alike(monkeypatch):
    """Row by row, in one pass, cut among threads and on column-major codes: the same sums,
    bit for bit; and a negative code of a column no family reads is not an error."""
    import bnclf
    import bnclf._threads as threads

    families, tables, cards = random_network(np.random.default_rng(3), 6, 0)
    gather = FamilyGather(families, tables, class_index=6, n_classes=cards[6])
    codes = np.random.default_rng(4).integers(0, np.array(cards[:6]), size=(300, 6))
    few = np.concatenate([gather.summed(codes[i : i + 1]) for i in range(len(codes))])
    whole = gather.summed(codes)
    monkeypatch.setattr(threads, "MIN_PART_STEPS", 0)
    with bnclf.config_context(n_threads=2):
        many = gather.summed(codes)
    assert np.array_equal(few, many) and np.array_equal(whole, many)
    assert np.array_equal(gather.summed(np.asfortranarray(codes)), many)
    np.testing.assert_allclose(many, gather(codes).sum(axis=1), rtol=1e-13)
    unread = FamilyGather([(0, 2)], [np.log(np.full((3, 2), 1 / 3))], class_index=2, n_classes=2)
    assert unread.summed(np.array([[1, -1, 0]])).shape == (1, 2)


def test_rows_whose_values_are_all_known_take_the_gather_sums_among_rows_with_unknowns():
    """In a batch with unknown values, the rows whose values are all known get the gather-add's
    sums, bit for bit as alone; the others the exact elimination, as alone."""
    rng = np.random.default_rng(8)
    families, tables, cards = random_network(rng, 6, 1)
    kernel = NetworkKernel(families, tables, class_index=6)
    codes = rng.integers(0, np.array(cards[:6]), size=(200, 6))
    codes[rng.random(codes.shape) < 0.05] = -1
    complete = (codes >= 0).all(axis=1)
    assert complete.any() and not complete.all()
    got = kernel.joint_log_likelihood(codes)
    np.testing.assert_array_equal(got[complete], kernel.gather.summed(codes[complete]))
    np.testing.assert_allclose(got[~complete], kernel.joint_log_likelihood(codes[~complete]), rtol=0, atol=0)
    with pytest.raises(ValueError, match="code 9 in column 2"):
        kernel.joint_log_likelihood(np.vstack([codes, [[0, 0, 9, 0, 0, 0]]]))


def test_stacked_kernel_equals_member_kernels():
    rng = np.random.default_rng(5)
    kernels = []
    for _ in range(3):
        families, tables, cards = random_network(np.random.default_rng(11), 5, 0)
        tables = [np.log(np.exp(t) * rng.uniform(0.5, 1.5, size=t.shape)) for t in tables]
        tables = [t - np.log(np.exp(t).sum(axis=0, keepdims=True)) for t in tables]
        kernel = NetworkKernel(families, tables, 5)
        kernel.kernel = kernel
        kernels.append(kernel)
    stacked = StackedKernel(kernels, cards[5])  # kernels have families, log_cpts, class_index
    codes = np.array([[rng.integers(c) for c in cards[:5]] for _ in range(20)])
    codes[::3, 1] = -1
    expected = np.stack([k.joint_log_likelihood(codes) for k in kernels], axis=1)
    np.testing.assert_allclose(stacked(codes), expected, atol=1e-12)


def test_class_free_network_gives_log_likelihood():
    p0 = np.array([0.3, 0.7])
    p1 = np.array([[0.6, 0.1], [0.4, 0.9]])  # axes (x1, x0)
    kernel = NetworkKernel([(0,), (1, 0)], [np.log(p0), np.log(p1)], class_index=2)
    codes = np.array([[1, 0], [-1, 1], [0, -1], [-1, -1]])
    expected = np.log([0.7 * 0.1, (p0 * p1[1]).sum(), 0.3, 1.0])
    np.testing.assert_allclose(kernel.joint_log_likelihood(codes)[:, 0], expected, atol=1e-12)


def test_log_weighted_sum_and_posterior():
    values = np.log(np.array([[[0.2, 0.1], [0.4, 0.3]]]))
    np.testing.assert_allclose(
        np.exp(log_weighted_sum(values, np.array([0.25, 0.75]))), [[0.25 * 0.2 + 0.75 * 0.4, 0.25 * 0.1 + 0.75 * 0.3]]
    )
    zero_weight_neg_inf = np.array([[[-np.inf, -np.inf], [0.0, 0.0]]])
    np.testing.assert_allclose(log_weighted_sum(zero_weight_neg_inf, np.array([0.0, 1.0])), [[0, 0]])
    np.testing.assert_allclose(np.exp(log_posterior(np.array([[-np.inf, -np.inf]]))), [[0.5, 0.5]])


def test_elimination_order_never_eliminates_the_class_and_sizes_factors():
    families = [(0,), (1, 0, 3), (2, 1, 3), (3, 0)]
    cards = {0: 2, 1: 3, 2: 4, 3: 2}
    order, widest, cells = elimination_order([[v for v in f if v != 3] for f in families], [0, 1, 2], cards)
    assert sorted(order) == [0, 1, 2] and widest == 2 and cells >= 2 * 3
    # the min-fill rule: on a 4-cycle with a chord-free square, eliminating any variable
    # adds one fill edge; on a chain, an end (no fill) goes first, the smaller cells first
    square = [(0, 1), (1, 2), (2, 3), (3, 0)]
    assert elimination_order(square, range(4), [2] * 4).widest == 3
    chain = [(0, 1), (1, 2), (2, 3)]
    assert elimination_order(chain, range(4), [3, 2, 2, 2]).order[0] == 3  # ends: 0 (3x2 cells) and 3 (2x2)
    # variables in `first` go before the others; kept variables only widen cliques
    found = elimination_order([(0, 1), (1, 2), (2, 3)], [0, 1, 3], [2] * 4, first={1})
    assert found.order[0] == 1 and 2 not in found.order
    graph = nx.DiGraph([(f[1], f[0]) for f in families if len(f) > 1])
    assert nx.is_directed_acyclic_graph(graph)


def test_dense_network_sums_out_only_the_unknowns():
    """A KDB(k=2) over 60 features: one unknown must not build a factor over the network."""
    import pandas as pd

    from bnclf import KDBClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"f{i}": rng.integers(0, 4, 1500).astype(str) for i in range(60)})
    y = rng.integers(0, 3, 1500)
    est = KDBClassifier(k=2).fit(X, y)
    assert est.network_.kernel._elimination_plan()[1] > 2**16  # the batched plan is too wide
    rows = X.iloc[:4].astype(object).copy()
    for r in range(4):
        rows.iat[r, r + 1] = np.nan
    ours = est.predict_proba(rows)
    infer = variable_elimination(est.to_pgmpy())
    for r in range(4):
        evidence = {k: v for k, v in rows.iloc[r].items() if not pd.isna(v)}
        factor = infer.query([est.class_name_], evidence=evidence, show_progress=False)
        states = factor.state_names[est.class_name_]
        ref = [factor.values[states.index(c)] for c in est.classes_]
        np.testing.assert_allclose(ours[r], ref, atol=1e-9)


def test_predictions_in_row_chunks_equal_one_pass(monkeypatch):
    """The predict methods encode and score rows in chunks into one result; tiny chunks give
    the answers of one pass."""
    import bnclf.models._predictions as predictions
    from bnclf import AODEClassifier, ChowLiuMultinetClassifier, KDBClassifier, NaiveBayesClassifier, TANClassifier
    from bnclf.datasets import load_dataset

    X, y = load_dataset("soybean")  # has missing values
    X_new = X.copy()
    X_new.iloc[::7, 3] = None  # and a column whose training had no missing value
    models = [
        make().fit(X, y)
        for make in (
            NaiveBayesClassifier,
            TANClassifier,
            lambda: KDBClassifier(k=2),
            AODEClassifier,
            ChowLiuMultinetClassifier,
        )
    ]
    methods = ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba")
    whole = [[getattr(m, name)(X_new) for name in methods] for m in models]
    monkeypatch.setattr(predictions, "PREDICT_ROWS", 50)
    for model, expected in zip(models, whole):
        for name, value in zip(methods, expected):
            got = getattr(model, name)(X_new)
            assert got.shape == value.shape and got.dtype == value.dtype
            if name == "predict":
                assert (got == value).all()
            else:
                np.testing.assert_allclose(got, value, rtol=0, atol=1e-12)


def test_components_of_unknowns_on_a_wide_kdb_equal_elimination():
    """KDB(k=2) on letter-like sizes: the component path (taken by default for wide
    networks) equals one batched elimination of every row's unknowns."""
    rng = np.random.default_rng(7)
    d, r, n_classes = 14, 5, 10
    cards = [r] * d + [n_classes]
    families = [(d,)] + [(v, *sorted(rng.choice(v, size=min(2, v), replace=False).tolist()), d) for v in range(d)]
    tables = []
    for f in families:
        shape = tuple(cards[v] for v in f)
        tables.append(np.log(rng.dirichlet(np.ones(shape[0]), size=int(np.prod(shape[1:]))).T.reshape(shape)))
    kernel = NetworkKernel(families, tables, d)
    assert kernel._elimination_plan()[1] >= inference_module()._COMPONENTS_FROM_CELLS
    codes = rng.integers(0, r, (400, d))
    codes[rng.random(codes.shape) < 0.25] = -1
    np.testing.assert_allclose(kernel.joint_log_likelihood(codes), kernel._eliminate(codes), rtol=0, atol=1e-10)


def inference_module():
    import bnclf.inference._kernels as inference

    return inference


def test_logsumexp_equals_scipys_and_keeps_infinities():
    """bnclf's log-sum-exp against scipy.special.logsumexp (the oracle): random values,
    rows all -inf, a +inf term, NaN, an empty axis, keepdims."""
    from scipy.special import logsumexp as scipy_logsumexp

    from bnclf._logsumexp import logsumexp

    rng = np.random.default_rng(3)
    values = rng.normal(scale=40.0, size=(30, 6, 5))
    values[0] = -np.inf
    values[1, :, 2] = -np.inf
    values[2, 3, 1] = np.inf
    values[3, 0, 0] = np.nan
    for axis in (0, 1, 2, -1):
        for keepdims in (False, True):
            ours = logsumexp(values, axis=axis, keepdims=keepdims)
            with np.errstate(invalid="ignore"):
                theirs = scipy_logsumexp(values, axis=axis, keepdims=keepdims)
            assert ours.shape == theirs.shape
            np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-13)
    assert np.isneginf(logsumexp(values[0], axis=1)).all()
    assert logsumexp(np.zeros((3, 0)), axis=1).tolist() == [-np.inf] * 3
    np.testing.assert_allclose(logsumexp(np.log([[1.0, 2.0, 3.0]]), axis=1), [np.log(6.0)])
