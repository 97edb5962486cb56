"""Parameters: log-CPT arrays from count tables.

Every table follows the family convention of :mod:`bnclf.stats`: axes
``(child, *parents)`` with the class, when it is a parent, on the last axis.
"""

from __future__ import annotations

import numpy as np

from .stats import CountCache, m_estimate


def m_estimated_log_cpts(cache: CountCache, families, m: float = 1.0) -> list[np.ndarray]:
    """Natural-log CPTs ``log P(child | parents)`` by m-estimation, one per family.

    ``P(x | pa) = (N(x, pa) + m/|X|) / (N(pa) + m)`` (Mitchell 1997; used with
    m = 1 by Sun et al. 2017 and the ETAN paper); the class prior is the
    parentless family ``(N(c) + m/|C|) / (N + m)``. ``m = 0`` is maximum
    likelihood (Kelner & Lerner 2012).

    Notes
    -----
    ``N(pa)`` is the sum of the family's own table over the child axis. It
    equals the parent count except under ``missing="ignore"``, where rows with
    a missing child are left out of both numerator and denominator
    (available-case estimation). With ``m = 0`` a parent configuration never
    seen gets the uniform distribution, and a child value never seen with a seen
    configuration gets probability 0 (log -inf).
    """
    if m < 0:
        raise ValueError(f"m={m!r} must be >= 0 (m=0 is maximum likelihood, m=1 the default).")
    cache.counts_many(families)
    with np.errstate(divide="ignore"):
        return [np.log(m_estimate(cache.counts(family), m)) for family in families]
