"""Where a fit's counts come from: rows in memory, chunks, Dask partitions, partial_fit calls.

Every fit ends in one place, ``BayesNetClassifier._fit_counts(counts, rows)``; the
functions here take what the user passed and make what that path reads: coded rows
(:func:`training_rows`, for ``fit(X, y)``), a source of chunks counted table by table
(:func:`dask_fit_source`, :func:`refit_source`; ``fit_chunks`` reads its chunks with
``bnclf.counts._chunks.chunk_source`` directly), or one chunk of ``partial_fit``
(:func:`first_partial_chunk`, :func:`check_later_partial_chunk`). They check and
convert; they do not set estimator attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import (
    DiscreteData,
    as_frame,
    check_sample_weight,
    class_name_of,
    encode_target,
    python_scalar,
)


class TrainingRows(NamedTuple):
    """The rows of ``fit(X, y)``, checked and coded."""

    frame: pd.DataFrame
    """``X`` as a DataFrame, less the rows of weight 0."""
    encoder: FeatureEncoder
    """The encoder fitted on ``frame``."""
    classes: np.ndarray
    """The sorted class labels of the rows kept."""
    class_name: Hashable
    """The class node's name (:func:`bnclf.encoding.class_name_of`)."""
    data: DiscreteData
    """The coded rows, labels and weights."""


def is_dask(X: Any) -> bool:
    """Whether ``X`` is a Dask collection, recognized by its type's module (Dask is not imported)."""
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")


def training_rows(X: Any, y: Any, sample_weight: Any, missing: str, handle_unknown: str, *, who: str) -> TrainingRows:
    """Check ``fit(X, y, sample_weight)``'s arguments and code the rows (``who``: the
    estimator's class name, for the messages).

    Rows of weight 0 are dropped before encoding, with the classes only they have.

    Raises
    ------
    TypeError
        For an iterator ``X`` (chunks go to ``fit_chunks``).
    ValueError
        For ``y=None``, no rows, a ``y`` of another length than ``X``, invalid weights,
        or fewer than two classes among the rows of positive weight.
    """
    if isinstance(X, Iterator):
        raise TypeError(
            f"fit got an iterator ({type(X).__name__}); to fit from chunks of rows pass "
            "(X, y) pairs to fit_chunks(chunks) instead."
        )
    if y is None:
        raise ValueError(
            f"{who} requires y to be passed, but the target y is None; pass the class labels as fit(X, y)."
        )
    frame = as_frame(X)
    if frame.shape[0] == 0:
        raise ValueError("X has 0 samples; at least one training row is required.")
    classes, y_codes = encode_target(y)
    if len(y_codes) != frame.shape[0]:
        raise ValueError(
            f"X has {frame.shape[0]} rows but y has {len(y_codes)}; they must match: give one label per row of X."
        )
    weights = check_sample_weight(sample_weight, frame.shape[0])
    if weights is not None and not weights.all():  # weight 0: the row is dropped
        frame, classes, y_codes, weights = _drop_unweighted(frame, classes, y_codes, weights)
    encoder = FeatureEncoder(missing, handle_unknown)
    codes = encoder.fit_transform(frame)
    data = DiscreteData(codes, encoder.cardinalities_, y_codes, len(classes), weights)
    return TrainingRows(frame, encoder, classes, class_name_of(y, encoder.feature_names_), data)


def _drop_unweighted(frame: pd.DataFrame, classes: np.ndarray, y_codes: np.ndarray, weights: np.ndarray):
    """The rows of positive weight, with the classes that they have (as if the others were dropped)."""
    keep = weights > 0
    present = np.unique(y_codes[keep])
    if present.size < 2:
        raise ValueError(
            f"the rows of positive sample_weight have only one class ({python_scalar(classes[present[0]])!r}); "
            "a classifier needs rows of at least two classes with a positive weight."
        )
    rank = np.full(len(classes), -1, dtype=np.int64)
    rank[present] = np.arange(present.size)
    return frame.iloc[np.flatnonzero(keep)], classes[present], rank[y_codes[keep]], weights[keep]


def dask_fit_source(X: Any, y: Any, sample_weight: Any) -> Any:
    """The source of ``fit(X, y)`` for a Dask DataFrame: counted partition by partition.

    Raises
    ------
    ValueError
        When ``sample_weight`` is given (not taken with a Dask DataFrame).
    """
    if sample_weight is not None:
        raise ValueError("sample_weight is not taken with a Dask DataFrame; fit in memory, or repeat the rows.")
    from bnclf.counts._chunks import dask_source  # deferred: the chunk readers are only needed here

    return dask_source(X, y)


def refit_source(X: Any, y: Any, check_frame: Callable[[Any], pd.DataFrame]) -> Any:
    """The source of ``refit_parameters(X, y)``: a Dask DataFrame's partitions, ``(X, y)``
    chunks (``y=None``), or the rows of ``X`` checked by ``check_frame`` (the predict
    methods' check of the columns)."""
    from bnclf.counts._chunks import chunk_source, dask_source, frame_source, is_dask_collection

    if is_dask_collection(X):
        return dask_source(X, y)
    if y is None:
        return chunk_source(X)
    return frame_source(check_frame(X), y)


class PartialChunk(NamedTuple):
    """The first chunk of ``partial_fit``, checked, less its rows of weight 0."""

    frame: pd.DataFrame
    y: Any
    sample_weight: Any
    classes: np.ndarray
    """Every declared class label, sorted."""


def first_partial_chunk(X: Any, y: Any, classes: Any, categories: Mapping | None, sample_weight: Any) -> PartialChunk:
    """Check the first ``partial_fit`` call: ``classes`` declared, at least one row; rows of
    weight 0 are dropped before the chunk's values become the states.

    Raises
    ------
    ValueError
        Without ``classes``, or for a chunk without rows.
    """
    from bnclf.counts._chunks import classes_of, declare, target_series

    if classes is None:
        raise ValueError(
            "classes must be passed on the first call to partial_fit: every class "
            "label that any chunk may have (scikit-learn's convention)."
        )
    frame = declare(X, categories)
    if frame.shape[0] == 0:
        raise ValueError("X has 0 samples; at least one training row is required.")
    weights = check_sample_weight(sample_weight, frame.shape[0])
    if weights is not None and not weights.all():  # the first chunk's states: rows of weight > 0
        keep = np.flatnonzero(weights > 0)
        frame, y, sample_weight = frame.iloc[keep], target_series(y).iloc[keep], weights[keep]
    return PartialChunk(frame, y, sample_weight, classes_of(classes, y))


def check_later_partial_chunk(classes: Any, categories: Mapping | None, y: Any, fitted_classes: np.ndarray) -> None:
    """Raise a ValueError when a later ``partial_fit`` call declares other classes than the
    first, or declares categories."""
    from bnclf.counts._chunks import classes_of

    if classes is not None and not np.array_equal(classes_of(classes, y), fitted_classes):
        raise ValueError(
            f"classes={list(classes_of(classes, y))} differs from the classes of the first call, "
            f"{list(fitted_classes)}; pass the same classes or none."
        )
    if categories:
        raise ValueError("categories= is taken on the first call to partial_fit only.")
