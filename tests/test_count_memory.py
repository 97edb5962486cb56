"""Counting reads the encoder's codes in place: no second copy of the data in a fit."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from bnclf import KDBClassifier, NaiveBayesClassifier, TANClassifier
from bnclf.counts._cache import CountCache
from bnclf.counts._pairs import PairCounts
from bnclf.counts._rows import _VariableRows
from bnclf.encoding._frames import DiscreteData


def test_variable_rows_index_as_the_stacked_array():
    rng = np.random.default_rng(0)
    codes = np.asfortranarray(rng.integers(-1, 4, (50, 5)))
    y = rng.integers(0, 3, 50)
    stacked = np.vstack([codes.T, y])
    rows = _VariableRows(codes, y)
    assert rows.shape == stacked.shape
    for v in range(6):
        np.testing.assert_array_equal(rows[v], stacked[v])
    np.testing.assert_array_equal(rows[1:4], stacked[1:4])
    np.testing.assert_array_equal(rows[:5], stacked[:5])
    for index in ([0, 3], [5], [2, 5, 0], np.array([4, 4, 1])):
        got = rows[np.asarray(index)]
        np.testing.assert_array_equal(got, stacked[np.asarray(index)])
        got += 1  # a new array: the codes are not touched
    np.testing.assert_array_equal(np.vstack([codes.T, y]), stacked)
    assert np.shares_memory(rows[2], codes) and np.shares_memory(rows[:3], codes)
    # codes in another layout or dtype are copied once into the counting layout
    copied = _VariableRows(np.ascontiguousarray(codes).astype(np.int32), y)
    np.testing.assert_array_equal(copied[2], stacked[2])


def test_the_cache_reads_the_codes_without_copying_them():
    codes = np.asfortranarray(np.random.default_rng(1).integers(0, 3, (1000, 4)))
    cache = CountCache(DiscreteData(codes, np.full(4, 3), np.arange(1000) % 2, 2))
    assert all(np.shares_memory(cache._columns[j], codes) for j in range(4))
    np.testing.assert_array_equal(cache.counts((2, 4)), pd.crosstab(codes[:, 2], np.arange(1000) % 2).to_numpy())


@pytest.mark.parametrize("model", [NaiveBayesClassifier(), TANClassifier(), KDBClassifier(k=2)], ids=repr)
def test_a_fit_holds_about_one_copy_of_the_coded_data(model):
    """Peak traced memory of a fit on 2,000,000 x 11 category columns, against the int64
    codes (168 MiB): the codes, the class codes and bounded temporaries (32 MiB groups,
    an int16 copy for the pair counts)."""
    n, d = 2_000_000, 11
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"x{j}": pd.Categorical.from_codes(rng.integers(0, 3, n), ["a", "b", "c"]) for j in range(d)})
    y = pd.Series(rng.integers(0, 3, n))
    tracemalloc.start()
    try:
        model.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak / (n * d * 8) < 1.6


def _coded(d, n, n_classes, most, seed=0, weighted=False, unknown=False):
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, most + 1, d)
    codes = np.asfortranarray((rng.random((n, d)) * cards).astype(np.int64))
    if unknown:
        codes[rng.random((n, d)) < 0.1] = -1
    weights = rng.uniform(0.5, 2.0, n) if weighted else None
    return DiscreteData(codes, cards, rng.integers(0, n_classes, n), n_classes, weights=weights)


def _traced_peak(func):
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "shape",
    [
        dict(d=600, n=40, n_classes=2, most=5),  # wide and short: the (features, features) arrays
        dict(d=150, n=500, n_classes=3, most=8, unknown=True),
        dict(d=120, n=300, n_classes=2, most=30, weighted=True),  # many values; float64 value pairs
    ],
    ids=["wide", "unknown", "weighted"],
)
def test_the_pair_measures_are_sized_as_a_whole_before_anything_large(shape, monkeypatch):
    """The arrays the pair measures hold at once are sized together before the first large one
    is made: under a budget of the traced peak of computing them (the oracle), they are refused
    (TableTooLargeError naming the columns and the fix) with a traced peak of under 1% of it
    (all the features at once: the route a pair of feature groups at a time is tested below);
    under 1.5 times that peak they are computed, the same numbers as without a budget."""
    import bnclf
    from bnclf._config import TableTooLargeError

    data = _coded(**shape)
    expected = CountCache(data).cmi_matrix()  # warm up, and the numbers
    results = []
    peak = _traced_peak(lambda: results.append(CountCache(data).cmi_matrix()))
    np.testing.assert_array_equal(results[0], expected)
    monkeypatch.setattr(PairCounts, "term_groups", lambda self, cache: None)  # all the features at once
    with bnclf.config_context(memory_budget=peak):
        cache = CountCache(data)
        refused = []

        def refuse():
            with pytest.raises(TableTooLargeError) as info:
                cache.cmi_matrix()
            refused.append(str(info.value))

        assert _traced_peak(refuse) < peak / 100
    message = refused[0]
    assert f"the all-pairs information of the {data.n_features:,} features" in message
    assert "values)" in message and "Select fewer columns" in message and "memory_budget" in message
    with bnclf.config_context(memory_budget=int(peak * 1.5)):
        np.testing.assert_array_equal(CountCache(data).cmi_matrix(), expected)


def test_tan_on_thousands_of_short_columns_is_refused_before_allocating():
    """TAN on 2,000 columns x 40 rows of 3 values and 3 classes needs about 1.5 GiB for its pair
    measures, and 380 MiB for their results alone: under a 256 MiB budget the fit is refused by
    name with a small traced peak (the data and its codes)."""
    import bnclf
    from bnclf._config import TableTooLargeError

    rng = np.random.default_rng(3)
    n, d = 40, 2000
    codes = rng.integers(0, 3, (n, d))
    X = pd.DataFrame({f"col{j}": pd.Categorical.from_codes(codes[:, j], ["0", "1", "2"]) for j in range(d)})
    y = pd.Series(rng.integers(0, 3, n))
    with bnclf.config_context(memory_budget="256M"):
        tracemalloc.start()
        try:
            with pytest.raises(TableTooLargeError, match=r"2,000 features.*'col0' \(3 values\).*Select fewer columns"):
                TANClassifier().fit(X, y)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 64 << 20


@pytest.mark.parametrize(
    "shape",
    [
        dict(d=200, n=40, n_classes=2, most=5),
        dict(d=120, n=300, n_classes=3, most=8, weighted=True, unknown=True),
        dict(d=90, n=500, n_classes=2, most=12, unknown=True),
    ],
    ids=["wide", "weighted-unknown", "many-values"],
)
def test_pair_measures_past_the_budget_go_a_pair_of_feature_groups_at_a_time(shape):
    """When all the features' pair arrays at once would pass the budget but the results fit,
    the pair measures are made a pair of feature groups at a time, from the counts of the rows
    restricted to those groups' features: the same numbers, bit for bit, as all at once without
    a budget (the oracle), under a budget of 40% of that route's traced peak, and a traced
    peak within the budget."""
    import bnclf

    data = _coded(**shape)
    direct = CountCache(data)
    expected = (*direct.pair_information_terms(), direct.cmi_matrix(), direct.per_label_cmi())
    peak = _traced_peak(lambda: CountCache(data).cmi_matrix())
    budget = int(peak * 0.4)
    with bnclf.config_context(memory_budget=budget):
        cache = CountCache(data)
        assert len(cache._pairs.term_groups(cache)) >= 2
        got = []
        blocked_peak = _traced_peak(lambda: got.append(cache.cmi_matrix()))
        got = [*cache.pair_information_terms(), got[0], cache.per_label_cmi()]
    assert blocked_peak <= budget
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
    # the tables the learners count next are those of the rows
    d = data.n_features
    cache.counts_many([(0, d - 1, d)])
    np.testing.assert_array_equal(cache.counts((0, d - 1, d)), CountCache(data).counts((0, d - 1, d)))


def test_tan_on_many_short_columns_fits_a_pair_of_groups_at_a_time():
    """TAN fitted under a budget that holds the pair measures' results but not all their arrays
    at once: the model of an ample budget (the same tree, the same predictions)."""
    import bnclf

    rng = np.random.default_rng(5)
    n, d = 40, 400
    X = pd.DataFrame(rng.integers(0, 4, (n, d)).astype(str), columns=[f"col{j}" for j in range(d)])
    y = pd.Series(rng.integers(0, 2, n))
    expected = TANClassifier().fit(X, y)
    codes = np.asfortranarray(X.to_numpy().astype(np.int64))
    data = DiscreteData(codes, np.full(d, 4), y.to_numpy(), 2)
    with bnclf.config_context(memory_budget="24M"):
        cache = CountCache(data)
        assert cache._pairs.term_groups(cache) is not None  # the budget cuts this shape into groups
        model = TANClassifier().fit(X, y)
    assert model.families_ == expected.families_
    np.testing.assert_array_equal(model.predict_proba(X), expected.predict_proba(X))
