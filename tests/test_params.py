"""m-estimated CPTs against hand-computed tables."""

import math

import numpy as np
import pytest

from bnclf.counts._cache import CountCache
from bnclf.counts._measures import m_estimate
from bnclf.encoding._frames import DiscreteData
from bnclf.learn._parameters import m_estimated_log_cpts

X = np.array([0, 0, 1, 1, 1, 2, 0, 1])
C = np.array([0, 0, 0, 1, 1, 1, 1, 1])


def cache():
    return CountCache(DiscreteData(X[:, None], np.array([3]), C, 2))


def test_class_prior_and_feature_cpt_by_hand():
    prior, cpt = m_estimated_log_cpts(cache(), [(1,), (0, 1)], m=1.0)
    np.testing.assert_allclose(np.exp(prior), [(3 + 0.5) / 9, (5 + 0.5) / 9])
    # class 0 rows: x = 0, 0, 1; class 1 rows: x = 1, 1, 2, 0, 1
    expected = np.array(
        [[(2 + 1 / 3) / 4, (1 + 1 / 3) / 6], [(1 + 1 / 3) / 4, (3 + 1 / 3) / 6], [(0 + 1 / 3) / 4, (1 + 1 / 3) / 6]]
    )
    np.testing.assert_allclose(np.exp(cpt), expected)
    np.testing.assert_allclose(np.exp(cpt).sum(axis=0), 1.0)


def test_maximum_likelihood_and_unseen_parent_configuration():
    (cpt,) = m_estimated_log_cpts(cache(), [(0, 1)], m=0.0)
    np.testing.assert_allclose(np.exp(cpt)[:, 0], [2 / 3, 1 / 3, 0])
    assert np.isneginf(cpt[2, 0])
    counts = np.zeros((3, 2))
    counts[:, 0] = [1, 2, 3]
    np.testing.assert_allclose(m_estimate(counts, 0.0)[:, 1], [1 / 3] * 3)  # unseen: uniform


def test_negative_m_is_rejected():
    with pytest.raises(ValueError, match="m=-1"):
        m_estimated_log_cpts(cache(), [(1,)], m=-1)


@pytest.mark.parametrize("m", [0.0, 1.0, 2.5])
def test_all_pairs_cpts_equal_the_m_estimates_of_each_family(m):
    from bnclf.learn._parameters import child_given_pair_log_cpts

    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(7, 4))  # few rows: empty parent configurations occur
    y = rng.integers(0, 3, 7)
    cache = CountCache(DiscreteData(codes, np.array([3, 3, 3, 3]), y, 3))
    tables, off = child_given_pair_log_cpts(cache, m / 3.0, m)
    for j in range(4):
        for p in range(4):
            if j != p:
                expected = m_estimated_log_cpts(cache, [(j, p, 4)], m)[0]
                np.testing.assert_array_equal(
                    np.isneginf(tables[off[j] : off[j] + 3, off[p] : off[p] + 3]), np.isneginf(expected)
                )
                np.testing.assert_allclose(tables[off[j] : off[j] + 3, off[p] : off[p] + 3], expected)


def _sparse_data(weighted: bool, unknown: bool, seed: int = 2) -> DiscreteData:
    """Rows that use only some declared values (value 3 of each feature never occurs, and
    feature 2 only ever takes 0 and 2), with unknown codes and row weights optional."""
    rng = np.random.default_rng(seed)
    n = 60
    codes = rng.integers(0, 3, size=(n, 4))
    codes[:, 2] = 2 * rng.integers(0, 2, n)
    if unknown:
        codes[rng.random(codes.shape) < 0.15] = -1
    y = rng.integers(0, 3, n)
    weights = rng.uniform(0.2, 3.0, n) if weighted else None
    return DiscreteData(codes, np.array([4, 4, 4, 4]), y, 3, weights=weights)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("unknown", [False, True])
def test_feature_class_tables_from_the_pair_diagonal_equal_their_bincounts(weighted, unknown):
    """A value paired with itself is its count within each class: the (j, class) and (j,)
    tables read from the pair counts equal the bincounts, unknown codes left out; weighted
    rows are counted as before (their sums would differ in rounding)."""
    data = _sparse_data(weighted, unknown)
    cache = CountCache(data)
    cache.pair_counts_in_use()
    cache.tables_from_pair_counts()
    fresh = CountCache(data)
    for j in range(4):
        for family in ((j, 4), (j,)):
            assert (family in cache._tables) == (not weighted)
            np.testing.assert_array_equal(cache.counts(family), fresh.counts(family))
            assert cache.counts(family).dtype == fresh.counts(family).dtype
    # the (j, class) tables stacked by value: from the diagonal, or counted (weighted rows, no pair counts)
    stacked = np.concatenate([np.bincount(data.y[data.codes[:, j] >= 0] + 3 * data.codes[data.codes[:, j] >= 0, j],
                                          weights=None if data.weights is None else data.weights[data.codes[:, j] >= 0],
                                          minlength=12).reshape(4, 3) for j in range(4)])  # fmt: skip
    np.testing.assert_allclose(cache.value_class_counts(), stacked, rtol=1e-14)
    np.testing.assert_allclose(fresh.value_class_counts(), stacked, rtol=1e-14)
    assert (cache._pairs.value_class is not None) == (not weighted) and fresh._pairs.value_class is None
    for got in (cache.value_counts(), CountCache(data).value_counts()):  # from the diagonal, or counted
        assert len(got) == 4
        for j, table in enumerate(got):
            known = data.codes[:, j] >= 0
            weights = None if data.weights is None else data.weights[known]
            expected = np.bincount(data.codes[known, j], weights=weights, minlength=4)
            np.testing.assert_allclose(table, expected, rtol=1e-14)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("unknown", [False, True])
def test_pair_counts_of_the_values_in_use_are_the_pair_tables(weighted, unknown, monkeypatch):
    """The compact all-pairs counts, and the blocks scattered from them, equal each
    family's own bincount table; a value no row holds has no row (and zero cells). Row
    chunks of 64 rows (forced here) add up to the same counts."""
    import bnclf.counts._bitsets as bitsets_module

    data = _sparse_data(weighted, unknown)
    whole = CountCache(data).pair_counts_in_use()
    monkeypatch.setattr(bitsets_module, "CHUNK_WORDS", 1)  # 64 rows per chunk
    cache = CountCache(data)
    counts, used, offsets = cache.pair_counts_in_use()
    np.testing.assert_allclose(counts, whole[0], rtol=0, atol=1e-12)
    assert offsets.tolist() == [0, 4, 8, 12]
    assert not {3, 7, 9, 11, 15} & set(used.tolist())  # never held: value 3, and value 1 of feature 2
    blocks, _ = cache.pair_blocks()
    for i in range(4):
        for j in range(4):
            if i == j:
                continue
            known = (data.codes[:, i] >= 0) & (data.codes[:, j] >= 0)
            cell = (data.codes[known, i] * 4 + data.codes[known, j]) * data.n_classes + data.y[known]
            weights = None if data.weights is None else data.weights[known]
            expected = np.bincount(cell, weights=weights, minlength=16 * data.n_classes).reshape(4, 4, -1)
            got = blocks[offsets[i] : offsets[i] + 4, offsets[j] : offsets[j] + 4]
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    full = np.zeros_like(blocks)
    full[np.ix_(used, used)] = counts
    np.testing.assert_array_equal(blocks, full)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("m", [0.0, 1.0])
@pytest.mark.parametrize("unknown_in", [(0, 1, 2, 3), (1, 3), ()], ids=["all", "some", "none"])
def test_all_pairs_cpts_with_values_no_row_holds_equal_each_familys(weighted, m, unknown_in):
    """Cells of values no row holds get ``log(alpha) - log(denominator)`` without counts:
    the numbers of the dense formula over all cells, bit for bit, and each family's
    m-estimate. Features with unknown codes in all, some or none of the columns: a child
    feature every row knows takes its denominators from the pair diagonal. The kernel takes
    the C library's ``log``: bit for bit with the dense formula taking the same logarithm
    (``math.log``); numpy's own (a SIMD routine on AVX-512 machines) rounds a few values in
    ten thousand the other way, so there the cells agree to the last bits of their two
    logarithms."""
    from bnclf.learn._parameters import child_given_pair_log_cpts

    data = _sparse_data(weighted, unknown=False)
    rng = np.random.default_rng(5)
    codes = data.codes.copy()
    for j in unknown_in:
        codes[rng.random(len(codes)) < 0.15, j] = -1
    cache = CountCache(DiscreteData(codes, data.cardinalities, data.y, data.n_classes, weights=data.weights))
    tables, off = child_given_pair_log_cpts(cache, m / 4.0, m)
    blocks = cache.pair_blocks()[0]
    denominator = np.add.reduceat(blocks, off, axis=0) + m  # N(x_p, c) of each child's block
    c_log = np.frompyfunc(lambda x: math.log(x) if x > 0 else -math.inf, 1, 1)  # the C library's
    with np.errstate(divide="ignore", invalid="ignore"):
        dense = np.log(blocks + m / 4.0) - np.log(np.repeat(denominator, 4, axis=0))
        exact = (c_log(blocks + m / 4.0) - c_log(np.repeat(denominator, 4, axis=0))).astype(float)
    empty = np.repeat(denominator, 4, axis=0) <= 0
    dense[empty] = exact[empty] = -np.log(4.0)
    for j in range(4):
        for p in range(4):
            if j != p:
                got = tables[off[j] : off[j] + 4, off[p] : off[p] + 4]
                want = dense[off[j] : off[j] + 4, off[p] : off[p] + 4]
                # two logarithms of numbers below 100, each to its last bit
                np.testing.assert_allclose(got, want, rtol=0, atol=4 * np.spacing(8.0))
                if not weighted:  # the same logarithms of the same sums (whole numbers: exact in any order)
                    np.testing.assert_array_equal(got, exact[off[j] : off[j] + 4, off[p] : off[p] + 4])
                expected = m_estimated_log_cpts(cache, [(j, p, 4)], m)[0]
                np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
                np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("m", [0.0, 1.0, 2.5, "laplace"])
@pytest.mark.parametrize("unknown", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_pair_table_cells_of_some_values_are_the_whole_tables(weighted, m, unknown, n_classes, monkeypatch):
    """The cells of some values (child-major and laid out by super-parent value), formed
    without the whole table, are the whole table's, bit for bit: values no row holds as
    child and as parent, empty parent configurations (m = 0: uniform), whole and weighted
    counts, 2, 3 and more classes, in one part and cut among threads. The whole table is made
    only when asked for, and its diagonal blocks are zero."""
    import bnclf._threads as threads
    from bnclf import config_context
    from bnclf.learn._parameters import PairLogTable, child_given_pair_log_table

    data = _sparse_data(weighted, unknown, seed=3)
    y = np.random.default_rng(4).integers(0, n_classes, len(data.y))
    data = DiscreteData(data.codes, data.cardinalities, y, n_classes, weights=data.weights)
    cards = data.cardinalities.astype(float)
    alpha, beta = (1.0, cards) if m == "laplace" else (m / cards, m)
    table = child_given_pair_log_table(CountCache(data), alpha, beta)
    assert isinstance(table, PairLogTable) and table.shape == (16, 16, n_classes)
    assert table._table is None  # made on demand
    chosen = [np.arange(16), np.array([0, 1, 3, 5, 9, 10, 11, 12, 15]), np.array([2, 7]), np.array([6])]
    monkeypatch.setattr(threads, "MIN_PART_STEPS", 0.0)  # every loop cut, however little its work
    cut = {}
    for n_threads in (1, 3):
        with config_context(n_threads=n_threads):
            cut[n_threads] = [(table.sub_table(u, False), table.sub_table(u, True)) for u in chosen]
    whole = np.asarray(table)
    assert table._table is not None and table._cells is None  # made: what its cells read is dropped
    for start in table.offsets:
        assert not whole[start : start + 4, start : start + 4].any()  # j == p: zero
    flat = whole.reshape(-1, n_classes)
    for u, (by_child, by_parent), again in zip(chosen, cut[1], cut[3]):
        v = u.size
        expected_child = flat[(u[:, None] * 16 + u).ravel()].reshape(v, v * n_classes)
        expected_parent = flat[(u[None, :] * 16 + u[:, None]).ravel()].reshape(v, v * n_classes)
        np.testing.assert_array_equal(by_child, expected_child)
        np.testing.assert_array_equal(by_parent, expected_parent)
        np.testing.assert_array_equal(again[0], expected_child)
        np.testing.assert_array_equal(again[1], expected_parent)
        np.testing.assert_array_equal(table.sub_table(u, True), expected_parent)  # from the whole table now


def test_pair_counts_without_a_value_in_use_and_sized_against_the_budget():
    """No row (or no known value): zero counts, not an error; the all-pairs arrays are
    sized against the memory budget before they are made."""
    import bnclf
    from bnclf._config import TableTooLargeError
    from bnclf.learn._parameters import child_given_pair_log_cpts

    empty = CountCache(DiscreteData(np.zeros((0, 2), dtype=np.int64), np.array([3, 2]), np.zeros(0, np.int64), 2))
    counts, used, offsets = empty.pair_counts_in_use()
    assert counts.shape == (0, 0, 2) and used.size == 0 and offsets.tolist() == [0, 3]
    assert not empty.pair_blocks()[0].any() and empty.pair_blocks()[0].shape == (5, 5, 2)
    unknown = CountCache(DiscreteData(np.full((4, 2), -1), np.array([3, 2]), np.array([0, 1, 1, 0]), 2))
    assert unknown.pair_counts_in_use()[0].size == 0
    tables, _ = child_given_pair_log_cpts(unknown, 1.0, 3.0)  # no rows: every distribution uniform
    np.testing.assert_allclose(np.exp(tables[:3, 3:]), 1 / 3)
    wide = CountCache(DiscreteData(np.zeros((4, 2), dtype=np.int64), np.array([300, 300]), np.array([0, 1, 1, 0]), 2))
    with bnclf.config_context(memory_budget="1M"):
        with pytest.raises(TableTooLargeError, match="all-pairs count array"):
            wide.pair_blocks()
        with pytest.raises(TableTooLargeError, match="all-pairs log-CPT array"):
            child_given_pair_log_cpts(wide, 1.0, 300.0)
