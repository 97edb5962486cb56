"""Cohen's κ agreement of two label vectors: read by the models (the label-driven
framework's diagnostics) and by the evaluation metrics."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def kappa(pred_a: ArrayLike, pred_b: ArrayLike, labels: ArrayLike | None = None) -> float:
    """κ agreement statistic between the predictions of two classifiers.

    With ``D[i, j]`` the number of test instances labelled i by the first and j
    by the second classifier, and m the number of instances,

    ``Θ1 = Σ_i D_ii / m``, ``Θ2 = Σ_i (Σ_j D_ij / m)(Σ_j D_ji / m)``,
    ``κ = (Θ1 - Θ2) / (1 - Θ2)``.

    Parameters
    ----------
    pred_a, pred_b : array-like of shape (n_samples,)
        Labels assigned by the two classifiers.
    labels : array-like, optional
        Label set (default: union of both predictions).

    Returns
    -------
    float
        1 for complete agreement, 0 for chance agreement, negative below
        chance. When both classifiers always give the same single label
        (``Θ2 = 1``) κ is 1; ``nan`` for empty input.

    Raises
    ------
    ValueError
        When an input is not one-dimensional, the lengths differ, or a label is
        not in ``labels``.

    References
    ----------
    .. [1] Sun, Wang, Sun (2017). Label-Driven Learning Framework: Towards More
       Accurate Bayesian Network Classifiers through Discrimination of
       High-Confidence Labels. Entropy 19, 661, Eqs. (25)–(27).
    .. [2] Dietterich, T. G. (2000). An experimental comparison of three methods
       for constructing ensembles of decision trees. Machine Learning 40, 139–157.
    """
    pred_a = as_1d(pred_a, "pred_a")
    pred_b = as_1d(pred_b, "pred_b")
    if len(pred_a) != len(pred_b):
        raise ValueError(f"inconsistent numbers of samples: {sorted({len(pred_a), len(pred_b)})}")
    m = len(pred_a)
    if m == 0:
        return float("nan")
    if labels is None:
        labels = np.unique(np.concatenate([pred_a, pred_b]))
    ia = _label_index(pred_a, labels)
    ib = _label_index(pred_b, labels)
    if len(np.unique(np.concatenate([ia, ib]))) == 1:  # Θ2 = 1: both always give one label
        return 1.0
    k = len(labels)
    counts = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)  # D
    # κ = 1 - (1 - Θ1) / (1 - Θ2) in whole numbers: m (m - trace D) / (m² - Σ_i D_i. D_.i)
    chance = counts.sum(axis=1) @ counts.sum(axis=0)
    return 1.0 - m * (m - int(np.trace(counts))) / (m * m - int(chance))


def as_1d(a: ArrayLike, name: str) -> np.ndarray:
    """``a`` as a 1-d array (a column or row vector is flattened); ValueError naming ``name`` otherwise."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        arr = arr.ravel() if arr.ndim == 2 and 1 in arr.shape else arr
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {np.shape(a)}")
    return arr


def _label_index(values: np.ndarray, labels: ArrayLike) -> np.ndarray:
    labels = np.asarray(labels)
    lookup = {c: i for i, c in enumerate(labels.tolist())}
    try:
        return np.fromiter((lookup[v] for v in np.asarray(values).tolist()), dtype=np.intp, count=len(values))
    except KeyError as exc:
        raise ValueError(f"label {exc.args[0]!r} in y_true is not among the classes {labels.tolist()}") from None
