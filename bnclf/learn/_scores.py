"""Decomposable structure scores of a family from its count table.

A DAG's score is the sum of its families' local scores, each a function of the count
table ``N(child, parents)`` that :class:`~bnclf.counts.CountCache` provides, so a
hill-climbing move re-scores only the families it changes. Natural logs throughout;
the values equal pgmpy's ``BIC``, ``K2`` and ``BDeu`` structure scores (tested).

References
----------
Schwarz (1978) for BIC (= the MDL score up to sign and scale); Cooper & Herskovits
(1992) for K2; Heckerman, Geiger & Chickering (1995) for BDeu.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from bnclf.counts._cache import CountCache
from bnclf.counts._measures import bdeu_score

__all__ = ["bic_score", "k2_score", "bdeu_score", "local_score", "SCORES"]


def _as_child_by_config(counts: ArrayLike) -> np.ndarray:
    n = np.asarray(counts, dtype=float)
    return n.reshape(n.shape[0], -1)


def bic_score(counts: ArrayLike) -> float:
    """BIC local score: ``sum N_jk log(N_jk / N_j) - (log N / 2) (r - 1) q``.

    ``counts`` has axes ``(child, *parents)``; ``N`` is the table's total, ``r`` the
    child's cardinality and ``q`` the number of parent configurations.
    """
    n = _as_child_by_config(counts)
    r, q = n.shape
    n_j = n.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        loglik = np.where(n > 0, n * np.log(n / n_j), 0.0).sum()
    total = n.sum()
    return float(loglik - 0.5 * np.log(total) * (r - 1) * q) if total > 0 else 0.0


def k2_score(counts: ArrayLike) -> float:
    """K2 local score: ``sum_j [lnG(r) - lnG(N_j + r) + sum_k lnG(N_jk + 1)]``.

    Notes
    -----
    A parent configuration never seen in the data contributes ``lnG(r) - lnG(r) = 0``
    (Cooper & Herskovits 1992). pgmpy 1.1.2's ``K2.local_score`` drops such
    configurations from its ``lnG(N_j + r)`` sum but still adds ``lnG(r)`` for them, so
    for a child with more than two states and unseen parent configurations its value
    is higher by ``lnG(r)`` per unseen configuration; elsewhere the two agree (tested).
    """
    n = _as_child_by_config(counts)
    r = n.shape[0]
    n_j = n.sum(axis=0)
    return float(np.sum(gammaln(r) - gammaln(n_j + r)) + np.sum(gammaln(n + 1)))


SCORES = {
    "bic": lambda counts, ess: bic_score(counts),
    "mdl": lambda counts, ess: bic_score(counts),
    "k2": lambda counts, ess: k2_score(counts),
    "bdeu": lambda counts, ess: bdeu_score(counts, ess),
}


def local_score(
    cache: CountCache, child: int, parents: Iterable[int] = (), score: str = "bic", ess: float = 10.0
) -> float:
    """The local score of the family ``child <- parents`` (variable indices; the class is
    ``cache.class_index``) from the cache's count table.

    Parameters
    ----------
    score : {"bic", "mdl", "k2", "bdeu"}
        ``"mdl"`` is the BIC score (MDL is its negation up to the sign convention).
    ess : float
        BDeu's equivalent sample size (pgmpy's default is 10).
    """
    if score not in SCORES:
        raise ValueError(f"score={score!r} is not valid; choose one of {sorted(SCORES)}.")
    family = (int(child), *sorted(int(p) for p in parents))
    return SCORES[score](cache.counts(family), ess)
