"""The folds of bnclf._folds against scikit-learn's KFold and StratifiedKFold (the oracle)."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.model_selection import KFold, StratifiedKFold

from bnclf._folds import fold_of_each_row


def _sklearn_folds(splitter, y):
    folds = np.full(len(y), -1)
    for k, (_, test) in enumerate(splitter.split(np.zeros((len(y), 1)), y)):
        assert (folds[test] == -1).all()
        folds[test] = k
    return folds


@given(
    st.lists(st.integers(0, 5), min_size=2, max_size=120),
    st.integers(2, 10),
    st.booleans(),
    st.integers(0, 2**31 - 1),
)
def test_stratified_folds_are_scikit_learns(labels, n_splits, shuffle, seed):
    y = np.array(labels)
    seed = seed if shuffle else None
    counts = np.bincount(y)
    counts = counts[counts > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        if np.all(n_splits > counts):
            with pytest.raises(ValueError, match="cannot be greater than the number of members"):
                fold_of_each_row(y, n_splits, stratified=True, shuffle=shuffle, random_state=seed)
            return
        expected = _sklearn_folds(StratifiedKFold(n_splits, shuffle=shuffle, random_state=seed), y)
        folds = fold_of_each_row(y, n_splits, stratified=True, shuffle=shuffle, random_state=seed)
    np.testing.assert_array_equal(folds, expected)


@given(st.integers(2, 200), st.integers(2, 10), st.booleans(), st.integers(0, 2**31 - 1))
def test_plain_folds_are_scikit_learns(n, n_splits, shuffle, seed):
    n = max(n, n_splits)
    seed = seed if shuffle else None
    expected = _sklearn_folds(KFold(n_splits, shuffle=shuffle, random_state=seed), np.zeros(n))
    folds = fold_of_each_row(np.zeros(n), n_splits, stratified=False, shuffle=shuffle, random_state=seed)
    np.testing.assert_array_equal(folds, expected)


def test_text_labels_are_numbered_by_first_appearance_and_a_small_class_warns():
    y = np.array(["b", "a", "b", "c", "a", "b", "a", "b"])
    expected = _sklearn_folds(StratifiedKFold(2, shuffle=True, random_state=3), y)
    with pytest.warns(UserWarning, match="least populated class in y has only 1 members"):
        folds = fold_of_each_row(y, 2, stratified=True, shuffle=True, random_state=3)
    np.testing.assert_array_equal(folds, expected)
