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
