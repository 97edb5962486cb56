"""Counts: the one substrate of every learner, and the additive state of a fit.

Codes → **counts** → structure: :class:`CountCache` counts any family of coded rows on
demand; :class:`CountSummary` holds count tables without the rows, is computed from a
frame, each chunk or each Dask partition, and is added with ``+``. The information
measures and scores are pure functions of count tables.
"""

from bnclf._config import TableTooLargeError
from bnclf._entropy import entropy, xlogx
from bnclf.counts._cache import CountCache
from bnclf.counts._chunks import UnseenCategoryError
from bnclf.counts._measures import (
    bdeu_score,
    conditional_mutual_information,
    label_conditional_mi,
    m_estimate,
    mutual_information,
    pointwise_class_cmi,
    pointwise_class_mi,
)
from bnclf.counts._summary import CountSummary, MissingCountsError

__all__ = [
    "CountCache",
    "CountSummary",
    "MissingCountsError",
    "TableTooLargeError",
    "UnseenCategoryError",
    "entropy",
    "mutual_information",
    "conditional_mutual_information",
    "label_conditional_mi",
    "pointwise_class_mi",
    "pointwise_class_cmi",
    "m_estimate",
    "bdeu_score",
    "xlogx",
]
