"""Information measures and scores: pure functions of count tables.

Summed measures (entropy, MI, CMI, per-label CMI) are in bits (log base 2), as the source
papers define them, with empirical frequencies and ``0 log 0 = 0``; pointwise measures use
m-estimated probabilities, so that an unseen combination gives a finite, strongly negative
value. :func:`comparable` rounds scores so that mathematically equal ones compare equal.
"""

from __future__ import annotations

from typing import overload

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

_SCORE_DECIMALS = 10
"""Scores are compared after rounding to this many decimals (bits): see :func:`comparable`."""


@overload
def comparable(scores: float) -> float: ...


@overload
def comparable(scores: np.ndarray) -> np.ndarray: ...


def comparable(scores: np.ndarray | float) -> np.ndarray | float:
    """Scores rounded to ``1e-10`` so that values equal in exact arithmetic compare equal.

    An array gives an array of the same shape, a single score (a search's current
    score) a NumPy float.

    Information measures are logs of ratios of counts; two of them that are
    mathematically equal (two attributes with identical counts, a CMI that is
    exactly zero) often differ by ~1e-16 after floating-point division and
    summation in different orders. Rounding first lets the stated tie rules
    (lower index, earlier rank) decide such ties, instead of rounding noise.
    Genuinely different scores closer than 1e-10 bits are treated as tied.
    """
    return np.round(scores, _SCORE_DECIMALS)


# -- summed measures (empirical frequencies) ------------------------------------
def _plogp_ratio(joint: np.ndarray, denom: np.ndarray) -> float:
    """Sum of ``joint * log2(joint / denom)`` over cells with ``joint > 0``."""
    mask = joint > 0
    return float(np.sum(joint[mask] * np.log2(joint[mask] / denom[mask])))


def mutual_information(counts: ArrayLike) -> float:
    """``I(X; Y)`` in bits from a table with axis 0 = X and the other axes = Y."""
    n = np.asarray(counts, dtype=float)
    n = n.reshape(n.shape[0], -1)
    total = n.sum()
    if total <= 0:
        return 0.0
    p = n / total
    px = p.sum(axis=1, keepdims=True)
    py = p.sum(axis=0, keepdims=True)
    return max(_plogp_ratio(p, px * py), 0.0)


def conditional_mutual_information(counts: ArrayLike) -> float:
    """``I(X; Y | Z)`` in bits from a table with axes ``(X, Y, *Z)``.

    ``Y`` may itself be a parent set: reshape its axes into one before calling,
    or pass a table with axes ``(X, *Y, Z)`` flattened by the caller.
    """
    n = np.asarray(counts, dtype=float)
    n = n.reshape(n.shape[0], n.shape[1], -1)
    total = n.sum()
    if total <= 0:
        return 0.0
    p = n / total
    pz = p.sum(axis=(0, 1), keepdims=True)
    pxz = p.sum(axis=1, keepdims=True)
    pyz = p.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = pxz * pyz / pz
    return max(_plogp_ratio(p, denom), 0.0)


def label_conditional_mi(counts: ArrayLike) -> np.ndarray:
    """``I(X; Y | C=c)`` for each class c from a table ``(X, Y, C)``: MI within class c, in bits.

    Vectorized over the classes; a class with no rows gets 0.
    """
    n = np.asarray(counts, dtype=float)
    n = n.reshape(n.shape[0], -1, n.shape[-1])
    total = n.sum(axis=(0, 1))
    p = n / np.where(total > 0, total, 1.0)
    px = p.sum(axis=1, keepdims=True)
    py = p.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(p / (px * py)), 0.0)
    return np.maximum(terms.sum(axis=(0, 1)), 0.0)


# -- smoothed probabilities and pointwise measures ------------------------------
def m_estimate(counts: ArrayLike, m: float = 1.0) -> np.ndarray:
    """``P(x | pa) = (N(x, pa) + m/|X|) / (N(pa) + m)`` for a table with axes ``(X, *pa)``.

    A table with one axis gives a marginal ``(N(x) + m/|X|) / (N + m)``. With
    ``m = 0`` (maximum likelihood) a parent configuration never seen in training
    gets the uniform distribution.
    """
    n = np.asarray(counts, dtype=float)
    r = n.shape[0]
    npa = n.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (n + m / r) / (npa + m)
    return np.where(npa + m > 0, p, 1.0 / r)


def pointwise_class_mi(counts_xc: ArrayLike, m: float = 1.0) -> np.ndarray:
    """Pointwise y-MI ``log2 P(x, c) / (P(x) P(c))`` for every ``(x, c)``.

    Parameters
    ----------
    counts_xc : array-like of shape ``(|X|, |C|)``
        Counts ``N(x, c)``.
    m : float
        m-estimate weight; the joint is smoothed as one variable of ``|X||C|``
        states and the marginals are its sums, so the three estimates agree.
    """
    joint = m_estimate(np.asarray(counts_xc, dtype=float).reshape(-1), m).reshape(np.shape(counts_xc))
    px = joint.sum(axis=1, keepdims=True)
    pc = joint.sum(axis=0, keepdims=True)
    return np.log2(joint / (px * pc))


def pointwise_class_cmi(counts_xyc: ArrayLike, m: float = 1.0) -> np.ndarray:
    """Pointwise y-CMI (CPMI) ``log2 P(x, y | c) / (P(x | c) P(y | c))`` for every cell.

    ``P(x, y | c) = (N(x, y, c) + m/(|X||Y|)) / (N(c) + m)``; the conditionals
    ``P(x | c)`` and ``P(y | c)`` are its sums, which equal their own
    m-estimates.
    """
    n = np.asarray(counts_xyc, dtype=float)
    nx, ny, nc = n.shape
    joint = m_estimate(n.reshape(nx * ny, nc), m).reshape(nx, ny, nc)
    return np.log2(joint / (joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)))


# -- scores -------------------------------------------------------------------------
def bdeu_score(counts: ArrayLike, ess: float = 1.0) -> float:
    """BDeu local score (natural log) of a family table with axes ``(child, *parents)``.

    ``sum_j [lnG(a_j) - lnG(a_j + N_j) + sum_k (lnG(a_jk + N_jk) - lnG(a_jk))]`` with
    ``a_j = ess / q`` and ``a_jk = ess / (q r)`` (Heckerman, Geiger & Chickering 1995),
    where ``r`` is the child's cardinality and ``q`` the number of parent
    configurations.
    """
    n = np.asarray(counts, dtype=float)
    r = n.shape[0]
    n = n.reshape(r, -1)
    q = n.shape[1]
    a_j, a_jk = ess / q, ess / (q * r)
    n_j = n.sum(axis=0)
    return float(np.sum(gammaln(a_j) - gammaln(a_j + n_j)) + np.sum(gammaln(a_jk + n) - gammaln(a_jk)))
