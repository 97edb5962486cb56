"""Cross-validation folds: the fold that holds out each row, as scikit-learn's ``KFold`` and
``StratifiedKFold`` make them, without importing :mod:`sklearn.model_selection` (which loads
``sklearn.metrics`` and SciPy's statistics, most of a command's start)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import check_random_state


def fold_of_each_row(
    y: np.ndarray,
    n_splits: int,
    *,
    stratified: bool,
    shuffle: bool,
    random_state: int | np.random.RandomState | None = None,
) -> np.ndarray:
    """The test fold of each row, ``(n_rows,)`` int64 in ``0 .. n_splits - 1``.

    Parameters
    ----------
    y : ndarray (n_rows,)
        The classes (any labels that ``np.unique`` orders); read only when ``stratified``.
    n_splits : int
        Folds, at least 2 and at most the rows (checked by the callers).
    stratified : bool
        Each class spread over the folds as evenly as it goes (``StratifiedKFold``); else
        folds of consecutive rows, of sizes that differ by at most one (``KFold``).
    shuffle : bool
        Rows (stratified: each class's rows) shuffled before they are cut.
    random_state : None, int or numpy.random.RandomState
        The shuffle's seed, as scikit-learn's ``check_random_state`` reads it.

    Returns
    -------
    ndarray (n_rows,)
        Row ``i`` is in the test part of fold ``folds[i]``: the same folds as
        ``StratifiedKFold(n_splits, shuffle=shuffle, random_state=random_state).split(X, y)``
        (or ``KFold``) with the same arguments, in the same order.

    Raises
    ------
    ValueError
        Stratified, when every class has fewer rows than ``n_splits`` (as scikit-learn);
        a class with fewer rows than ``n_splits`` only warns (``UserWarning``).

    Notes
    -----
    The steps are scikit-learn's: the classes are numbered in order of first appearance,
    the rows sorted by class are dealt to the folds in turn to fix how many of each class
    each fold holds, and each class's fold numbers are laid out in blocks, shuffled by one
    ``RandomState`` in class order. ``tests/test_folds.py`` checks the folds against
    scikit-learn's splitters.
    """
    rng = check_random_state(random_state)
    n = len(y)
    if not stratified:
        order = np.arange(n)
        if shuffle:
            rng.shuffle(order)
        sizes = np.full(n_splits, n // n_splits, dtype=np.int64)
        sizes[: n % n_splits] += 1
        folds = np.empty(n, dtype=np.int64)
        folds[order] = np.repeat(np.arange(n_splits), sizes)
        return folds
    _, first, inverse = np.unique(np.asarray(y), return_index=True, return_inverse=True)
    encoded = np.unique(first, return_inverse=True)[1][inverse.reshape(-1)]  # by first appearance
    n_classes = len(first)
    counts = np.bincount(encoded, minlength=n_classes)
    if np.all(n_splits > counts):
        raise ValueError(f"n_splits={n_splits} cannot be greater than the number of members in each class.")
    if n_splits > counts.min():
        warnings.warn(
            f"The least populated class in y has only {counts.min()} members, which is less than n_splits={n_splits}.",
            UserWarning,
            stacklevel=2,
        )
    by_class = np.sort(encoded)
    allocation = np.array([np.bincount(by_class[i::n_splits], minlength=n_classes) for i in range(n_splits)])
    folds = np.empty(n, dtype=np.int64)
    for k in range(n_classes):
        of_class = np.repeat(np.arange(n_splits), allocation[:, k])
        if shuffle:
            rng.shuffle(of_class)
        folds[encoded == k] = of_class
    return folds
