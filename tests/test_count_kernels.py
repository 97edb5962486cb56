"""The counting kernels (:mod:`bnclf.counts._tally`) against independent numpy references: each
family's table and each pair's table by ``np.bincount`` over combined codes, the pair
measures' arrays by the one-hot products ``H_c^T H_c``, ``H_c^T K_c`` and ``K_c^T K_c``, the
values in use and their bitsets by numpy steps; unknown codes, row weights, 1 to 11 classes,
no rows, one feature and values no row holds; the same numbers in one thread and in several."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bnclf._threads as threads
import bnclf.counts._bitsets as bitsets
import bnclf.counts._cache as cache_module
import bnclf.counts._pair_terms as pair_terms_module
import bnclf.counts._pairs as pairs_module
from bnclf import config_context
from bnclf._config import TableTooLargeError
from bnclf.counts import CountCache, _tally
from bnclf.counts._measures import conditional_mutual_information, label_conditional_mi
from bnclf.counts._pairs import PairCounts
from bnclf.encoding import DiscreteData


# ----------------------------------------------------------------------------- data
@st.composite
def coded_rows(draw, max_rows=120, max_features=6, max_card=6, weighted=None):
    """Coded rows: some features with unknown codes (-1), the others known in every row (their
    last value in use is derived from the totals), values no row holds (a feature's codes drawn
    from a subset of its values), 1 to 11 classes (some without a row), no rows at times, and
    row weights (whole or not) or none."""
    n = draw(st.sampled_from([0, 1, 2, 7, 63, 64, 65, max_rows]))
    d = draw(st.integers(1, max_features))
    cards = np.array(draw(st.lists(st.integers(1, max_card), min_size=d, max_size=d)), dtype=np.int64)
    n_classes = draw(st.integers(1, 11))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = np.empty((n, d), dtype=np.int64)
    for j, r in enumerate(cards):
        held = np.flatnonzero(rng.random(r) < draw(st.sampled_from([0.5, 1.0])))
        held = held if held.size else np.array([rng.integers(r)])
        codes[:, j] = rng.choice(held, n)
        if draw(st.booleans()):  # some rows leave this feature unknown
            codes[rng.random(n) < draw(st.sampled_from([0.1, 0.5, 1.0])), j] = -1
    y = rng.integers(0, n_classes, n)
    kind = draw(st.sampled_from(["none", "whole", "real"])) if weighted is None else weighted
    weights = {"none": None, "whole": rng.integers(1, 4, n).astype(float), "real": rng.uniform(0.1, 3.0, n)}[kind]
    return DiscreteData(codes, cards, y, n_classes, weights=weights)


def reference_table(data: DiscreteData, family) -> np.ndarray:
    """``np.bincount`` over the combined codes of the rows that know every variable of ``family``."""
    d = data.n_features
    columns = [data.codes[:, v] if v < d else data.y for v in family]
    shape = tuple(int(data.cardinalities[v]) if v < d else data.n_classes for v in family)
    known = np.logical_and.reduce([column >= 0 for column in columns]) if columns else np.ones(0, bool)
    flat = np.ravel_multi_index(tuple(column[known] for column in columns), shape)
    weights = None if data.weights is None else data.weights[known]
    return np.bincount(flat, weights=weights, minlength=math.prod(shape)).astype(np.float64).reshape(shape)


def reference_blocks(data: DiscreteData) -> tuple[np.ndarray, np.ndarray]:
    """``(blocks, used)``: every pair's ``(i, j, class)`` table (a feature with itself: each
    value's own counts on the diagonal) in one array, and the values some row holds."""
    d, cards = data.n_features, data.cardinalities
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
    width = int(cards.sum())
    blocks = np.zeros((width, width, data.n_classes))
    for i in range(d):
        for j in range(d):
            if i == j:  # the rows of value a paired with value a
                own = reference_table(data, (i, d))
                table = np.zeros((cards[i], cards[i], data.n_classes))
                table[np.arange(cards[i]), np.arange(cards[i])] = own
            else:
                table = reference_table(data, (i, j, d))
            blocks[offsets[i] : offsets[i] + cards[i], offsets[j] : offsets[j] + cards[j]] = table
    held = np.concatenate([np.bincount(data.codes[data.codes[:, j] >= 0, j], minlength=cards[j]) > 0 for j in range(d)])
    return blocks, np.flatnonzero(held)


def one_hot_sources(data: DiscreteData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pair measures' arrays by one-hot products per class (the numpy formulation the kernel
    replaced): ``H_c^T H_c`` over every value but each feature's last, ``H_c^T K_c`` and
    ``K_c^T K_c`` with ``K`` the known indicators, each row counted as its weight."""
    d, cards, n_classes = data.n_features, data.cardinalities, data.n_classes
    kept = np.maximum(cards - 1, 1)
    roff = np.concatenate([[0], np.cumsum(kept)[:-1]])
    onehot = np.zeros((data.n_samples, int(kept.sum())))
    for j in range(d):
        for value in range(cards[j] - 1):
            onehot[:, roff[j] + value] = data.codes[:, j] == value
    known = (data.codes >= 0).astype(float)
    weights = np.ones(data.n_samples) if data.weights is None else data.weights
    products = np.zeros((n_classes, onehot.shape[1], onehot.shape[1]))
    by_feature = np.zeros((n_classes, onehot.shape[1], d))
    known_pairs = np.zeros((n_classes, d, d))
    for c in range(n_classes):
        rows = data.y == c
        h, k, w = onehot[rows], known[rows], weights[rows][:, None]
        products[c], by_feature[c], known_pairs[c] = h.T @ (h * w), h.T @ (k * w), k.T @ (k * w)
    return products, by_feature, known_pairs


def reference_plan(used, cards, has_unknown):
    """``(slot, last_of)`` of the values in use by numpy steps: each value's bitset column (the
    last value in use of a feature without unknown codes: a spare column of its feature's, after
    the counted ones), and for such a value its feature's first value in use, else -1."""
    d = len(cards)
    owner = np.repeat(np.arange(d), cards)[used]  # each value's feature, increasing
    first = np.searchsorted(owner, np.arange(d))
    last = np.searchsorted(owner, np.arange(d), side="right") - 1
    derived = (last >= first) & ~np.asarray(has_unknown[:d], dtype=bool)
    last_of = np.full(used.size, -1, dtype=np.int64)
    last_of[last[derived]] = first[derived]
    counted = last_of < 0
    past = int(counted.sum())
    return np.where(counted, np.cumsum(counted) - 1, past + owner), last_of


@pytest.fixture
def cut_everything(monkeypatch):
    """Every loop cut among threads however little its work; the number of parts of each cut
    recorded."""
    monkeypatch.setattr(threads, "MIN_PART_STEPS", 0)
    cuts = []
    for module in (bitsets, cache_module, pairs_module, pair_terms_module):
        real = module.run_parts

        def recorded(task, parts, real=real):
            cuts.append(len(parts))
            return real(task, parts)

        monkeypatch.setattr(module, "run_parts", recorded)
    return cuts


# ----------------------------------------------------------------------------- family tables
@settings(max_examples=80, deadline=None)
@given(data=coded_rows(), sizes=st.lists(st.integers(1, 4), min_size=1, max_size=6), seed=st.integers(0, 1000))
def test_family_tables_are_their_bincounts(data, sizes, seed):
    """counts, counts_many and feature_class_counts: each table the bincount of its combined
    codes, bit for bit (weights are added in row order, as bincount adds them); tables with
    fewer cells than a quarter of the rows are counted in four copies, larger ones in one."""
    d = data.n_features
    rng = np.random.default_rng(seed)
    families = [tuple(sorted(rng.choice(d + 1, min(size, d + 1), replace=False).tolist())) for size in sizes]
    many = CountCache(data)
    many.counts_many(families)
    for family in families:
        expected = reference_table(data, family)
        np.testing.assert_array_equal(many.counts(family), expected)
        np.testing.assert_array_equal(CountCache(data).counts(family), expected)
        order = family[::-1]
        np.testing.assert_array_equal(many.counts(order), reference_table(data, order))
    stacked, offsets = CountCache(data).feature_class_counts()
    assert stacked.shape == (int(data.cardinalities.sum()), data.n_classes)
    for j in range(d):
        np.testing.assert_array_equal(
            stacked[offsets[j] : offsets[j] + data.cardinalities[j]], reference_table(data, (j, d))
        )
    assert CountCache(data).counts(()) == (data.n_samples if data.weights is None else data.weights.sum())


def test_a_long_run_of_one_cell_and_every_fourth_row(monkeypatch):
    """Rows that all fall in one cell, and tables of exactly a quarter of the rows' cells (the
    four copies) or one cell more (one copy): the bincounts."""
    n = 4 * 6
    codes = np.column_stack([np.zeros(n, int), np.arange(n) % 3, np.r_[np.zeros(n - 1, int), 1]])
    data = DiscreteData(codes, np.array([1, 3, 2]), np.arange(n) % 2, 2)
    cache = CountCache(data)
    for family in [(0, 3), (1, 3), (2, 3), (1, 2), (0, 1, 2, 3), (1, 2, 3)]:  # 2, 6, 4, 6, 12, 12 cells
        np.testing.assert_array_equal(cache.counts(family), reference_table(data, family))


# ----------------------------------------------------------------------------- all-pairs counts
@settings(max_examples=80, deadline=None)
@given(data=coded_rows(), chunk_words=st.sampled_from([1, 2, bitsets.CHUNK_WORDS]))
def test_pair_counts_of_the_values_in_use_are_each_pairs_bincount(data, chunk_words):
    """pair_counts_in_use: the values some row holds, and the counts of every pair of them
    within each class, each pair's bincount (a value with itself: its own count), bit for bit:
    whole counts from bitsets in chunks of 64 rows and more, a feature every row knows deriving
    its last value from the totals; weighted rows added in row order. The blocks scattered
    from them are every pair's table, zero where a value is not in use."""
    expected, used = reference_blocks(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bitsets, "CHUNK_WORDS", chunk_words)
        cache = CountCache(data)
        counts, got_used, offsets = cache.pair_counts_in_use()
    np.testing.assert_array_equal(got_used, used)
    np.testing.assert_array_equal(offsets, np.concatenate([[0], np.cumsum(data.cardinalities)[:-1]]))
    np.testing.assert_array_equal(counts, expected[np.ix_(used, used)])
    assert counts.flags.c_contiguous and counts.dtype == np.float64
    np.testing.assert_array_equal(cache.pair_blocks()[0], expected)
    idle = np.ones(len(expected), dtype=bool)
    idle[used] = False
    assert not expected[idle].any() and not expected[:, idle].any()  # every count lies among the values in use


@pytest.mark.parametrize("unknown_in", [(0, 1, 2, 3, 4, 5), (1, 5), ()], ids=["all", "some", "none"])
@pytest.mark.parametrize("n_classes", [1, 2, 5, 40])
def test_pair_counts_of_many_classes_and_a_one_valued_feature(n_classes, unknown_in):
    """Many classes (the last without a row), a one-valued feature, a many-valued one, values no
    row holds and unknown codes in all, some or no features: the one-hot products
    ``H_c^T H_c`` over the values in use (the numpy formulation the bitsets replaced) and each
    pair's bincount. A feature without unknown codes has one value without a bitset."""
    rng = np.random.default_rng(n_classes)
    cards = np.array([2, 5, 1, 9, 3, 70])
    n = 1000
    codes = np.column_stack([rng.integers(0, max(1, r - 1), n) for r in cards])  # the last value: never held
    for j in unknown_in:
        codes[rng.random(n) < 0.1, j] = -1
    y = rng.integers(0, n_classes, n)
    y[y == n_classes - 1] = 0
    data = DiscreteData(codes, cards, y, n_classes)
    cache = CountCache(data)
    counts, used, offsets = cache.pair_counts_in_use()
    slot, last_of = reference_plan(used, cards, cache._has_unknown)
    assert (last_of >= 0).sum() == 6 - len(unknown_in)
    onehot = np.zeros((n, used.size))
    for a, value in enumerate(used):
        j = np.searchsorted(offsets, value, side="right") - 1
        onehot[:, a] = codes[:, j] == value - offsets[j]
    products = np.stack([onehot[y == c].T @ onehot[y == c] for c in range(n_classes)], axis=-1)
    np.testing.assert_array_equal(counts, products)
    np.testing.assert_array_equal(counts, reference_blocks(data)[0][np.ix_(used, used)])


@settings(max_examples=60, deadline=None)
@given(data=coded_rows(max_rows=65))
def test_the_values_in_use_and_their_bitsets_are_the_numpy_steps(data):
    """values_held and plan_values: the values some row holds (bincounts above zero, whatever
    the weights), each value's place among them (a cumulative sum), its bitset's column and the
    values without a bitset (numpy steps)."""
    d, cards = data.n_features, data.cardinalities
    width = int(cards.sum())
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
    features = np.ascontiguousarray(data.codes.T)
    seen = np.zeros(width, dtype=np.uint8)
    _tally.values_held(features, offsets, seen, 0, d)
    held = np.concatenate([np.bincount(data.codes[data.codes[:, j] >= 0, j], minlength=cards[j]) > 0 for j in range(d)])
    np.testing.assert_array_equal(seen.astype(bool), held)
    has_unknown = (data.codes < 0).any(axis=0)
    used, column, bit_column, last_of, order = (np.empty(width, dtype=np.int64) for _ in range(5))
    n_used, n_counted = _tally.plan_values(seen, cards, has_unknown.view(np.uint8), used, column, bit_column, last_of,
                                           order)  # fmt: skip
    expected_used = np.flatnonzero(held)
    np.testing.assert_array_equal(used[:n_used], expected_used)
    np.testing.assert_array_equal(column, np.where(held, np.cumsum(held) - 1, n_used))
    slot, expected_last_of = reference_plan(expected_used, cards, has_unknown)
    np.testing.assert_array_equal(last_of[:n_used], expected_last_of)
    np.testing.assert_array_equal(bit_column[expected_used], slot)
    owner = np.repeat(np.arange(d), cards)
    np.testing.assert_array_equal(bit_column[~held], n_counted + owner[~held])  # a spare column of the feature's
    np.testing.assert_array_equal(order[:n_counted], np.flatnonzero(expected_last_of < 0))
    np.testing.assert_array_equal(order[n_counted:n_used], np.flatnonzero(expected_last_of >= 0))


# ----------------------------------------------------------------------------- pair measures
@settings(max_examples=60, deadline=None)
@given(data=coded_rows(max_rows=65), group_cells=st.sampled_from([1, 2000, pair_terms_module._PAIR_GROUP_CELLS]))
def test_pair_information_terms_are_the_one_hot_products_and_each_pairs_measure(data, group_cells):
    """pair_information_terms' arrays are the one-hot products (whole counts bit for bit; summed
    weights to rounding), and the measures read from them each pair's own conditional mutual
    information and per-class mutual information, with the terms summed a feature at a time,
    a few at a time or all at once. Its (feature, class) tables of whole counts, and the pair
    tables read from its arrays, are the bincounts."""
    d = data.n_features
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pair_terms_module, "_PAIR_GROUP_CELLS", group_cells)
        cache = CountCache(data)
        cmi, per_label = cache.cmi_matrix(), cache.per_label_cmi()
    products, by_feature, known_pairs = one_hot_sources(data)
    terms, class_totals = cache.pair_information_terms()
    if data.weights is None:
        got = cache._pairs.sources
        for a, b in zip(got[:3], (products, by_feature, known_pairs)):
            np.testing.assert_array_equal(a, b)
        for j in range(d):
            np.testing.assert_array_equal(cache._tables[(j, d)], reference_table(data, (j, d)))
    else:
        assert cache._pairs.sources is None  # summed weights: the pair tables are counted instead
        counts, used, _ = cache.pair_counts_in_use()
        kept = np.maximum(data.cardinalities - 1, 1)
        owner = np.repeat(np.arange(d), data.cardinalities)
        value = np.arange(owner.size) - np.repeat(
            np.cumsum(data.cardinalities) - data.cardinalities, data.cardinalities
        )
        column = np.where(value < data.cardinalities[owner] - 1, (np.cumsum(kept) - kept)[owner] + value, kept.sum())
        got = [np.zeros_like(products), np.zeros_like(by_feature), np.zeros_like(known_pairs)]
        _tally.pair_sources(counts, owner[used], column[used], *got, 0, data.n_classes)
        for a, b in zip(got, (products, by_feature, known_pairs)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        np.moveaxis(class_totals, -1, 0), known_pairs, rtol=1e-12 if data.weights is not None else 0
    )
    pairs = [(i, j, d) for i in range(d) for j in range(i + 1, d)]
    cache.counts_many(pairs)
    for i, j, c in pairs:
        table = reference_table(data, (i, j, c))
        np.testing.assert_array_equal(cache.counts((i, j, c)), table)
        assert cmi[i, j] == cmi[j, i] == pytest.approx(conditional_mutual_information(table), abs=1e-12)
        np.testing.assert_allclose(per_label[:, i, j], label_conditional_mi(table), rtol=0, atol=1e-12)
    assert not np.diagonal(cmi).any()


@settings(max_examples=40, deadline=None)
@given(data=coded_rows(max_rows=65, max_features=9), n_groups=st.integers(2, 4))
def test_pair_terms_a_pair_of_feature_groups_at_a_time_are_those_of_all_at_once(data, n_groups):
    """The pair terms made a pair of feature groups at a time (the route past the memory
    budget) are those of all the features at once, bit for bit: unknown codes, values no row
    holds, weights, classes without a row, no rows."""
    d = data.n_features
    expected = CountCache(data).pair_information_terms()
    with pytest.MonkeyPatch.context() as patch:
        groups = np.array_split(np.arange(d), min(n_groups, d))
        patch.setattr(PairCounts, "term_groups", lambda self, cache: groups if len(groups) > 1 else None)
        got = CountCache(data).pair_information_terms()
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_pair_measures_of_a_summary_are_those_of_its_rows():
    """A summary (no rows) reads its pair measures from its summed pair blocks: the numbers of
    the cache of all its rows (whole counts, the same arrays)."""
    rng = np.random.default_rng(4)
    cards = np.array([3, 1, 4, 2, 5])
    codes = np.column_stack([rng.integers(0, r, 500) for r in cards])
    codes[rng.random(500) < 0.1, 2] = -1
    data = DiscreteData(codes, cards, rng.integers(0, 3, 500), 3)
    parts = [CountCache(data.subset(slice(a, a + 100))).summary([], pairs=True) for a in range(0, 500, 100)]
    summary = sum(parts[1:], parts[0])
    cache = CountCache(data)
    for got, expected in zip(summary.pair_information_terms(), cache.pair_information_terms()):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(summary.cmi_matrix(), cache.cmi_matrix())


# ----------------------------------------------------------------------------- threads
@pytest.mark.parametrize("weighted", ["none", "real"])
def test_every_kernel_gives_the_same_numbers_in_any_number_of_threads(weighted, cut_everything, monkeypatch):
    """Every count cut among threads (families, features, bitsets, tiles of rows, the values
    without a bitset, classes), in chunks of 64 rows and in one: the numbers of one thread,
    bit for bit."""
    rng = np.random.default_rng(7)
    cards = np.array([2, 5, 1, 9, 3, 7, 4, 2])
    n = 700
    codes = np.column_stack([rng.integers(0, max(1, r - 1), n) for r in cards])
    codes[rng.random(n) < 0.1, 1] = -1
    codes[rng.random(n) < 0.2, 6] = -1
    weights = None if weighted == "none" else rng.uniform(0.1, 3.0, n)
    data = DiscreteData(codes, cards, rng.integers(0, 5, n), 5, weights=weights)
    d = len(cards)
    families = [(j, d) for j in range(d)] + [(1, 3, d), (0, 2, 4, d), (5,)]
    results = {}
    for words in (1, bitsets.CHUNK_WORDS):
        monkeypatch.setattr(bitsets, "CHUNK_WORDS", words)
        for n_threads in (1, 2, 3):
            cut_everything.clear()
            with config_context(n_threads=n_threads):
                cache = CountCache(data)
                counts = cache.pair_counts_in_use()[0]
                terms = cache.pair_information_terms()
                fresh = CountCache(data)
                fresh.counts_many(families)
                stacked = CountCache(data).feature_class_counts()[0]
            results[words, n_threads] = (counts, *terms, stacked, *[fresh.counts(f) for f in families])
            assert max(cut_everything) == n_threads  # the work was cut
    one = results[bitsets.CHUNK_WORDS, 1]
    blocks, used = reference_blocks(data)
    np.testing.assert_array_equal(one[0], blocks[np.ix_(used, used)])
    for key, got in results.items():
        for a, b in zip(one, got):
            np.testing.assert_array_equal(a, b, err_msg=str(key))


# ----------------------------------------------------------------------------- budget, empty inputs
def test_the_all_pairs_arrays_are_sized_against_the_memory_budget():
    """The all-pairs counts, and the pair measures that read them, raise TableTooLargeError
    over the memory budget before anything of that size is made (naming the columns); a
    family's table and the feature-class tables likewise."""
    rng = np.random.default_rng(1)
    cards = np.array([4, 5, 9, 3, 6])
    data = DiscreteData(np.column_stack([rng.integers(0, r, 400) for r in cards]), cards, rng.integers(0, 2, 400), 2)
    with config_context(memory_budget=8_000):  # the pair counts: 2 * 27**2 * 8 = 11,664 bytes
        with pytest.raises(TableTooLargeError, match="all-pairs count array"):
            CountCache(data).pair_counts_in_use()
        with pytest.raises(TableTooLargeError, match="all-pairs information of the 5 features.*'x2' \\(9 values\\)"):
            CountCache(data).cmi_matrix()
        cache = CountCache(data)
        with pytest.raises(TableTooLargeError, match="'x2' \\(9 values\\)"):
            cache.counts_many([(0, 1, 2, 4, 5)])  # 4 * 5 * 9 * 6 * 2 * 8 = 86,400 bytes
        with pytest.raises(TableTooLargeError, match="'x2' \\(9 values\\)"):
            cache.counts((0, 1, 2, 4, 5))
        assert cache.feature_class_counts()[0].shape == (27, 2)  # 432 bytes: within
    with config_context(memory_budget=400):
        with pytest.raises(TableTooLargeError, match="feature-class counts"):
            CountCache(data).feature_class_counts()


def test_no_rows_and_no_known_value_give_zero_counts():
    """No row, or no known value: zero tables and measures, no values in use, not an error."""
    for codes, y in (
        (np.zeros((0, 2), dtype=np.int64), np.zeros(0, np.int64)),
        (np.full((4, 2), -1), np.array([0, 1, 1, 0])),
    ):
        data = DiscreteData(codes, np.array([3, 2]), y, 2)
        cache = CountCache(data)
        counts, used, offsets = cache.pair_counts_in_use()
        assert counts.shape == (0, 0, 2) and used.size == 0 and offsets.tolist() == [0, 3]
        assert cache.pair_blocks()[0].shape == (5, 5, 2) and not cache.pair_blocks()[0].any()
        assert not CountCache(data).cmi_matrix().any() and not CountCache(data).mi_with_class().any()
        stacked, _ = CountCache(data).feature_class_counts()
        assert stacked.shape == (5, 2) and not stacked.any()
        np.testing.assert_array_equal(CountCache(data).counts((0, 1, 2)), np.zeros((3, 2, 2)))
        np.testing.assert_array_equal(CountCache(data).counts((2,)), np.bincount(y, minlength=2))
