"""Counting reads the encoder's codes in place: no second copy of the data in a fit."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from bnclf import KDBClassifier, NaiveBayesClassifier, TANClassifier
from bnclf.counts._cache import CountCache
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
def test_the_pair_measures_are_sized_as_a_whole_before_anything_large(shape):
    """The arrays the pair measures hold at once are sized together before the first large one
    is made: under a budget of the traced peak of computing them (the oracle), they are refused
    (TableTooLargeError naming the columns and the fix) with a traced peak of under 1% of it;
    under 1.5 times that peak they are computed, the same numbers as without a budget."""
    import bnclf
    from bnclf._config import TableTooLargeError

    data = _coded(**shape)
    expected = CountCache(data).cmi_matrix()  # warm up, and the numbers
    results = []
    peak = _traced_peak(lambda: results.append(CountCache(data).cmi_matrix()))
    np.testing.assert_array_equal(results[0], expected)
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
    """TAN on 3,000 columns x 40 rows needs about 3 GiB for its pair measures: under a 256 MiB
    budget the fit is refused by name with a small traced peak (the data and its codes)."""
    import bnclf
    from bnclf._config import TableTooLargeError

    rng = np.random.default_rng(3)
    n, d = 40, 3000
    X = pd.DataFrame(rng.integers(0, 3, (n, d)).astype(str), columns=[f"col{j}" for j in range(d)])
    X = X.apply(lambda column: pd.Categorical(column, categories=["0", "1", "2"]))
    y = pd.Series(rng.integers(0, 3, n))
    with bnclf.config_context(memory_budget="256M"):
        tracemalloc.start()
        try:
            with pytest.raises(TableTooLargeError, match=r"3,000 features.*'col0' \(3 values\).*Select fewer columns"):
                TANClassifier().fit(X, y)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 64 << 20
