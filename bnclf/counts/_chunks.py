"""Counting from chunks of rows and from Dask DataFrames.

Counts are additive over rows, so a model can be learned from data that never sits in
one array: every chunk (a pandas chunk, or a partition of a Dask DataFrame) is coded
and counted on its own, and the count summaries (:class:`bnclf.counts.CountSummary`) are
added with ``+``. The estimators turn a summary into a model through the same learner
and parameter step as an in-memory fit (``BayesNetClassifier._fit_counts``); sums of
integer counts are exact, so the model equals the in-memory fit on the concatenated
rows bit for bit. This module knows nothing of the estimators: it returns encoders,
classes and summaries, and the estimators keep what they are given.

The protocol
------------
1. **Categories.** Every chunk must code its values identically. A column whose
   categories are declared (a pandas ``CategoricalDtype``, known categories in Dask,
   or ``categories=``) needs nothing; for the others one pass collects the distinct
   values (``drop_duplicates`` per chunk), and the codes are their sorted order, as
   the in-memory encoder gives. The class labels likewise (declared by a categorical
   ``y`` or ``classes=``, else collected).
2. **Counts.** One pass counts, per chunk, the tables the learner declares
   (``_counts_needed``): the class and ``(x_j, class)`` tables for naive Bayes, and all
   ``(x_i, x_j, class)`` pairs (the all-pairs counts, in one pass) for the others. Each
   column gets one reserved state for missing values during counting; after the sum,
   the reserved state is kept as ``<missing>`` where some row used it
   (``missing="category"``), dropped and recorded as unknown (``missing="ignore"``) or
   reported (``missing="error"``), so the encoder equals the in-memory one without a
   separate pass for missing values.
3. **More tables.** The summary carries a ``recount`` of the same rows: a learner that
   needs tables no pass counted (KDB with ``k >= 2``, its ``(x, pa_1, pa_2, class)``
   families once its structure is known) asks for them with ``counts.including(families)``,
   which counts them in one more pass.
"""

from __future__ import annotations

import itertools
import operator
import warnings
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bnclf._config import config_context, memory_budget
from bnclf.counts._cache import CountCache
from bnclf.counts._summary import CountSummary
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import (
    DiscreteData,
    IdLikeColumnWarning,
    as_frame,
    as_target_vector,
    check_sample_weight,
    class_name_of,
    encode_target,
    python_scalar,
)

_Y = "__bnclf_y__"
"""Column name under which the class travels with the features of a Dask partition."""


class UnseenCategoryError(ValueError):
    """A chunk has a value outside the categories agreed for its column (or a class label
    outside the declared classes)."""


def is_dask_collection(obj: Any) -> bool:
    """Whether ``obj`` is a Dask collection (checked by its type's module, so Dask is not
    imported unless it is installed and used)."""
    return type(obj).__module__.split(".")[0] in ("dask", "dask_expr")


def _import_dask():
    try:
        import dask
    except ImportError as err:  # pragma: no cover - the input was a Dask object
        raise ImportError("Dask is not installed; pip install 'bnclf[dask]'.") from err
    return dask


def base_families(d: int) -> list[tuple[int, ...]]:
    """The class table and every ``(x_j, class)`` table of ``d`` features."""
    return [(d,)] + [(j, d) for j in range(d)]


# -- coding a chunk ------------------------------------------------------------------------------
@dataclass
class _Encoding:
    """The codes of one fit: per feature its labels (code = position, and the reserved
    state ``len(labels)`` for a missing value), and the class labels."""

    names: list
    observed: list  # pd.Index of labels per feature
    class_labels: pd.Index

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array([len(labels) + 1 for labels in self.observed], dtype=np.int64)


def _unseen_message(name, examples, known, where) -> str:
    known = list(known)
    return (
        f"column {name!r} has values {examples}{where} that are not among its categories "
        f"{known[:10]}{' ...' if len(known) > 10 else ''}. Chunks must agree on the categories: "
        f"declare them, as a pandas CategoricalDtype listing every category "
        f"(X[{name!r}].astype(pd.CategoricalDtype([...]))) or with categories={{{name!r}: [...]}}, "
        "so that every chunk codes its values the same way."
    )


def _code_column(column: pd.Series, known: pd.Index, name, where: str) -> np.ndarray:
    """Codes of one column: the position in ``known``, ``len(known)`` when missing."""
    slot = len(known)
    if isinstance(column.dtype, pd.CategoricalDtype):
        own = column.cat.codes.to_numpy()
        if column.cat.categories.equals(known):
            codes = own.astype(np.int64)
            codes[own < 0] = slot
            return codes
        mapping = known.get_indexer(column.cat.categories)
        used = np.zeros(len(mapping), dtype=bool)
        used[own[own >= 0]] = True
        if (used & (mapping < 0)).any():
            examples = [python_scalar(v) for v in column.cat.categories[used & (mapping < 0)][:5]]
            raise UnseenCategoryError(_unseen_message(name, examples, known, where))
        return np.append(mapping, slot)[own].astype(np.int64)
    local, uniques = pd.factorize(column)
    mapping = known.get_indexer(np.asarray(uniques, dtype=object))
    if (mapping < 0).any():
        examples = [python_scalar(v) for v in np.asarray(uniques, dtype=object)[mapping < 0][:5]]
        raise UnseenCategoryError(_unseen_message(name, examples, known, where))
    return np.append(mapping, slot)[local].astype(np.int64)


def _class_codes(y: pd.Series, labels: pd.Index, where: str) -> np.ndarray:
    if isinstance(y.dtype, pd.CategoricalDtype) and y.cat.categories.equals(labels):
        codes = y.cat.codes.to_numpy().astype(np.int64)
    else:
        local, uniques = pd.factorize(y)
        mapping = labels.get_indexer(np.asarray(uniques, dtype=object))
        if (mapping < 0).any():
            bad = [python_scalar(v) for v in np.asarray(uniques, dtype=object)[mapping < 0][:5]]
            raise UnseenCategoryError(
                f"y has labels {bad}{where} that are not among the classes {list(labels)[:10]}; "
                "pass every class label with classes=[...] (or a categorical y listing them)."
            )
        codes = np.append(mapping, -1)[local].astype(np.int64)
    if (codes < 0).any():
        raise ValueError(
            f"y has {int((codes < 0).sum())} missing labels{where}; drop those rows or fill them before fitting."
        )
    return codes


def _declare(frame: pd.DataFrame, categories: Mapping | None) -> pd.DataFrame:
    """Cast the columns named in ``categories`` to a CategoricalDtype of those categories,
    refusing values outside them (which the cast would silently make missing)."""
    if not categories:
        return frame
    out = {}
    for name, labels in categories.items():
        if name not in frame.columns:
            raise ValueError(f"categories names {name!r}, which is not a column of X ({list(frame.columns)[:10]}).")
        dtype = labels if isinstance(labels, pd.CategoricalDtype) else pd.CategoricalDtype(list(labels))
        column = frame[name]
        cast = column.astype(dtype)
        lost = cast.isna().to_numpy() & ~column.isna().to_numpy()
        if lost.any():
            examples = pd.unique(column[lost].astype(object))[:5].tolist()
            raise UnseenCategoryError(
                f"column {name!r} has values {examples} that are not in categories[{name!r}] = "
                f"{list(dtype.categories)[:10]}; add them to the declared categories."
            )
        out[name] = cast
    return (
        frame.assign(**{str(k): v for k, v in out.items()})
        if all(isinstance(k, str) for k in out)
        else _assign(frame, out)
    )


def _assign(frame, columns):
    frame = frame.copy()
    for name, column in columns.items():
        frame[name] = column
    return frame


def _encode_chunk(frame: pd.DataFrame, y: pd.Series, enc: _Encoding, where: str = ""):
    codes = np.empty((frame.shape[0], len(enc.names)), dtype=np.int64)
    for j, name in enumerate(enc.names):
        codes[:, j] = _code_column(frame[name], enc.observed[j], name, where)
    return codes, _class_codes(y, enc.class_labels, where)


def _count_chunk(
    frame: pd.DataFrame,
    y: pd.Series,
    enc: _Encoding,
    families,
    pairs: bool,
    where: str = "",
    weights: np.ndarray | None = None,
) -> CountSummary:
    """The count summary of one chunk (its rows are dropped once counted), its rows
    counted with their ``weights`` when given."""
    codes, y_codes = _encode_chunk(frame, y, enc, where)
    data = DiscreteData(codes, enc.cardinalities, y_codes, len(enc.class_labels), weights)
    return CountCache(data).summary(families, pairs=pairs)


def _count_partition(
    part: pd.DataFrame, enc: _Encoding, families, pairs: bool, budget: int | None = None
) -> CountSummary:
    """:func:`_count_chunk` of a Dask partition carrying the class in column ``_Y``, under the
    memory budget ``budget`` (bytes) of the process that built the task graph."""
    with config_context(memory_budget=budget):
        return _count_chunk(part.drop(columns=[_Y]), part[_Y], enc, families, pairs)


# -- sources of chunks ---------------------------------------------------------------------------
def target_series(y: Any) -> pd.Series:
    """``y`` (a one-column DataFrame, a Series or array-like) as a Series; ValueError when a
    DataFrame has more than one column."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y has {y.shape[1]} columns; these classifiers predict one target.")
        return y.iloc[:, 0]
    if isinstance(y, pd.Series):
        return y
    return pd.Series(as_target_vector(y))


class _PandasChunks:
    """``(X, y)`` pairs, or ``(X, y, sample_weight)`` triples, from a list (or any
    re-iterable), a function returning a new iterator, or a one-shot iterator (one pass
    only). Rows of weight zero are dropped as a chunk is read."""

    def __init__(self, chunks, categories: Mapping | None = None, where: str = " in chunk {}"):
        self.where = where
        self.one_shot = isinstance(chunks, Iterator)
        self._factory = self._pending = None
        if self.one_shot:
            first = next(chunks, None)
            self._pending = itertools.chain([first], chunks)
        elif isinstance(chunks, Iterable) and not isinstance(
            chunks, (pd.DataFrame, pd.Series, np.ndarray, str, bytes, Mapping)
        ):
            self._factory = lambda: iter(chunks)
            first = next(iter(chunks), None)
        elif callable(chunks):
            self._factory = chunks
            first = next(iter(chunks()), None)
        else:
            raise TypeError(
                "fit_chunks expects (X, y) pairs: a list of them, a function returning a new "
                f"iterator of them, or an iterator (one pass); got {type(chunks).__name__}. For a "
                "single DataFrame use fit(X, y)."
            )
        if first is None:
            raise ValueError("fit_chunks got no chunks: at least one (X, y) pair with rows is required.")
        self.categories = dict(categories) if categories else None
        self.first_X, self.first_y, _ = self._pair(first)
        self.names = None
        self.first_frame = self._frame(self.first_X, 0)
        self.names = list(self.first_frame.columns)

    def _raw(self) -> Iterator:
        if not self.one_shot:
            return self._factory()
        if self._pending is None:
            raise ValueError(
                "the chunks were given as an iterator, which can be read once, and this fit needs "
                "another pass over them. Pass a list of (X, y) pairs or a function returning a new "
                "iterator."
            )
        iterator, self._pending = self._pending, None
        return iterator

    @staticmethod
    def _pair(item):
        if not (isinstance(item, (tuple, list)) and len(item) in (2, 3)):
            raise TypeError(
                "fit_chunks expects every chunk to be an (X, y) pair or an (X, y, sample_weight) "
                f"triple; got {type(item).__name__}{f' of {len(item)}' if isinstance(item, (tuple, list)) else ''}."
            )
        return (item[0], item[1], item[2] if len(item) == 3 else None)

    def _frame(self, X, index) -> pd.DataFrame:
        frame = as_frame(X)
        if self.names is not None and list(frame.columns) != self.names:
            raise ValueError(
                f"chunk {index} has the columns {list(frame.columns)[:10]}, the first "
                f"chunk {self.names[:10]}; every chunk must have the same columns."
            )
        return _declare(frame, self.categories)

    def chunks(self) -> Iterator[tuple[int, pd.DataFrame, pd.Series, np.ndarray | None]]:
        for index, item in enumerate(self._raw()):
            X, y, weights = self._pair(item)
            frame = self._frame(X, index)
            y = target_series(y)
            if len(y) != frame.shape[0]:
                raise ValueError(f"chunk {index}: X has {frame.shape[0]} rows but y has {len(y)}; they must match.")
            if weights is not None:
                try:
                    weights = check_sample_weight(weights, frame.shape[0], allow_zero=True)
                except ValueError as error:
                    raise ValueError(f"chunk {index}: {error}") from None
                if weights is not None and not weights.all():  # weight 0: the row is dropped
                    keep = np.flatnonzero(weights > 0)
                    frame, y, weights = frame.iloc[keep], y.iloc[keep], weights[keep]
            yield index, frame, y, weights

    @property
    def meta(self) -> pd.DataFrame:
        return self.first_frame

    @property
    def y_meta(self) -> pd.Series:
        return target_series(self.first_y)

    def declared(self, name) -> bool:
        return isinstance(self.first_frame[name].dtype, pd.CategoricalDtype)

    def y_declared(self) -> bool:
        return isinstance(self.y_meta.dtype, pd.CategoricalDtype)

    def uniques(self, columns: list, need_y: bool):
        found = {name: [] for name in columns}
        ys = []
        for _, frame, y, _ in self.chunks():
            for name in columns:
                found[name].append(frame[name].drop_duplicates())
            if need_y:
                ys.append(y.drop_duplicates())
        values = {name: pd.concat(parts, ignore_index=True).drop_duplicates() for name, parts in found.items()}
        return values, (pd.concat(ys, ignore_index=True).drop_duplicates() if need_y else None)

    def count(self, enc: _Encoding, families, pairs: bool) -> CountSummary:
        total = None
        for index, frame, y, weights in self.chunks():
            if not len(frame):
                continue  # every row of weight zero
            part = _count_chunk(frame, y, enc, families, pairs, where=self.where.format(index), weights=weights)
            total = part if total is None else total + part
        if total is None:
            raise ValueError("every row of the chunks has sample_weight 0: nothing to count.")
        return total


class _DaskFrame:
    """A Dask DataFrame of features and a Dask Series of labels with the same partitions."""

    def __init__(self, X, y):
        if not (hasattr(X, "map_partitions") and hasattr(X, "columns") and hasattr(X, "dtypes")):
            raise TypeError(
                f"expected a Dask DataFrame of features, got {type(X).__name__}; a Dask "
                "array can be turned into one with dask.dataframe.from_dask_array."
            )
        if y is None:
            raise ValueError(
                "fit(X, y) on a Dask DataFrame requires y, a Dask Series of class labels "
                "with the partitions of X (e.g. y = df['class'], X = df.drop(columns='class'))."
            )
        if not is_dask_collection(y):
            raise TypeError(
                f"X is a Dask DataFrame, so y must be a Dask Series with the same "
                f"partitions (e.g. y = df['class']); got {type(y).__name__}."
            )
        if isinstance(getattr(y, "_meta", None), pd.DataFrame):
            if len(y.columns) != 1:
                raise ValueError(f"y has {len(y.columns)} columns; these classifiers predict one target.")
            y = y[y.columns[0]]
        if len(set(map(str, X.columns))) != len(X.columns):
            raise ValueError(f"X has duplicate column names {list(X.columns)}; column names must be unique.")
        if _Y in X.columns:
            raise ValueError(f"X has a column named {_Y!r}, which bnclf uses for the class.")
        if X.npartitions != y.npartitions:
            raise ValueError(
                f"X has {X.npartitions} partitions and y {y.npartitions}; they must "
                "have the same partitions (take both from one DataFrame)."
            )
        self.X, self.y = X, y
        self.names = list(X.columns)
        self.one_shot = False

    @property
    def meta(self) -> pd.DataFrame:
        return self.X._meta

    @property
    def y_meta(self) -> pd.Series:
        return self.y._meta

    def declared(self, name) -> bool:
        return isinstance(self.X.dtypes[name], pd.CategoricalDtype) and bool(self.X[name].cat.known)

    def y_declared(self) -> bool:
        return isinstance(self.y.dtype, pd.CategoricalDtype) and bool(self.y.cat.known)

    def uniques(self, columns: list, need_y: bool):
        dask = _import_dask()
        wanted = [self.X[name].drop_duplicates() for name in columns]
        if need_y:
            wanted.append(self.y.drop_duplicates())
        found = dask.compute(*wanted)
        values = {name: found[k].reset_index(drop=True) for k, name in enumerate(columns)}
        return values, (found[-1].reset_index(drop=True) if need_y else None)

    def count(self, enc: _Encoding, families, pairs: bool) -> CountSummary:
        dask = _import_dask()
        combined = self.X.assign(**{_Y: self.y})
        spec = dask.delayed(enc, pure=True)
        budget = memory_budget()  # the workers check tables against this process's budget
        parts = [
            dask.delayed(_count_partition, pure=True)(part, spec, list(families), pairs, budget)
            for part in combined.to_delayed()
        ]
        while len(parts) > 1:  # a tree of sums: no worker holds more than two parts' tables
            parts = [
                dask.delayed(operator.add, pure=True)(parts[k], parts[k + 1]) if k + 1 < len(parts) else parts[k]
                for k in range(0, len(parts), 2)
            ]
        return parts[0].compute()


def chunk_source(chunks: Iterable | Any, categories: Mapping | None = None) -> _PandasChunks:
    """The chunks of ``fit_chunks`` (or of ``refit_parameters`` given chunks)."""
    return _PandasChunks(chunks, categories)


def dask_source(X: Any, y: Any) -> _DaskFrame:
    """A Dask DataFrame of features and a Dask Series of labels."""
    return _DaskFrame(X, y)


def frame_source(frame: pd.DataFrame, y: Any, where: str = "", weights: Any = None) -> _PandasChunks:
    """One frame (with its labels, and its row weights if given) as a source of one chunk."""
    return _PandasChunks([(frame, y) if weights is None else (frame, y, weights)], where=where)


# -- the encoder and the classes from collected states --------------------------------------------
def _typed_labels(values, meta: pd.Series) -> pd.Series:
    """Class labels with the dtype that ``np.asarray(y)`` has for this ``y``."""
    dtype = meta.dtype.categories.dtype if isinstance(meta.dtype, pd.CategoricalDtype) else meta.dtype
    series = pd.Series(list(values), dtype=object)
    try:
        return series.astype(dtype)
    except (TypeError, ValueError):
        return series


def _provisional(source, handle_unknown, classes) -> _Encoding:
    """Pass 1 (when needed): the labels of every undeclared column and the class labels."""
    meta, names = source.meta, source.names
    undeclared = [name for name in names if not source.declared(name)]
    y_meta = source.y_meta
    y_declared = classes is not None or source.y_declared()
    values, y_values = {}, None
    if undeclared or not y_declared:
        if source.one_shot:
            raise ValueError(
                "the chunks were given as an iterator, which can be read once, but the columns "
                f"{undeclared[:10]}{' and y' if not y_declared else ''} have no declared categories, "
                "so a first pass must collect them. Pass a list of (X, y) pairs or a function "
                "returning a new iterator, or declare the categories (pandas CategoricalDtype or "
                "categories=) and the classes (categorical y or classes=)."
            )
        values, y_values = source.uniques(undeclared, not y_declared)
    observed = []
    for name in names:  # the labels the in-memory encoder gives these values, column by column
        column = values[name] if name in values else pd.Series(pd.Categorical([], dtype=meta[name].dtype))
        template = pd.DataFrame({0: column.reset_index(drop=True)})
        template.columns = [name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IdLikeColumnWarning)
            observed.append(pd.Index(FeatureEncoder("ignore", handle_unknown).fit(template).observed_[0], dtype=object))
    if classes is not None:
        labels = pd.Index(list(_typed_labels(_unique_list(classes), y_meta)), dtype=object)
    elif y_values is None:
        labels = pd.Index(list(y_meta.cat.categories), dtype=object)
    else:
        labels = pd.Index([python_scalar(v) for v in y_values.dropna()], dtype=object)
    if labels.has_duplicates:
        raise ValueError(f"classes has duplicate labels: {list(labels[labels.duplicated()])[:5]}.")
    return _Encoding(names, observed, labels)


def _unique_list(values) -> list:
    seen, out = set(), []
    for v in np.asarray(values, dtype=object).ravel():
        v = python_scalar(v)
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


def _resolve_missing(missing: str, enc: _Encoding, total: CountSummary, has_state: Sequence[bool]):
    """Per feature: the states to keep, whether rows were left out (unknown) and whether
    the feature has a ``<missing>`` state, from the use of the reserved state."""
    d, c = len(enc.names), len(enc.names)
    keep, unknown, state = [], [], []
    for j in range(d):
        r = len(enc.observed[j])
        used = float(total.counts((j, c))[r].sum())  # rows (or their weights) with the value missing
        if has_state[j] or (used and missing == "category"):
            keep.append(np.arange(r + 1))
            unknown.append(False)
            state.append(True)
            continue
        if used and missing == "error":
            raise ValueError(
                f"column {enc.names[j]!r} has {used:g} missing values and missing='error'; use "
                "missing='category' (a state of its own) or missing='ignore' (left out of the "
                "counts), or impute them first."
            )
        keep.append(np.arange(r))
        unknown.append(bool(used))
        state.append(False)
    return keep, unknown, state


def _warn_id_like(enc: _Encoding, total: CountSummary) -> None:
    c = len(enc.names)
    for j, labels in enumerate(enc.observed):
        known = int(total.counts((j, c))[: len(labels)].sum())
        if len(labels) >= 50 and len(labels) == known:
            warnings.warn(
                f"column {enc.names[j]!r} has a different value in every row ({len(labels)} "
                "values), like an identifier: it tells nothing about the class of a new row and "
                "makes its count tables as large as the data; drop it.",
                IdLikeColumnWarning,
                stacklevel=4,
            )


# -- what a fit from chunks is given ---------------------------------------------------------------
@dataclass
class Summarized:
    """What :func:`summarize` found: the encoder and classes the in-memory fit would have,
    the class node's name, the count summary (with a ``recount`` of the same rows), and
    the first chunk's ``X`` and frame (for the scikit-learn feature-name attributes)."""

    encoder: FeatureEncoder
    classes: np.ndarray
    class_name: Hashable
    counts: CountSummary
    first_X: Any
    meta: pd.DataFrame


def summarize(
    source: _PandasChunks | _DaskFrame, *, missing: str, handle_unknown: str, pairs: bool, classes: Any = None
) -> Summarized:
    """Code and count every chunk of ``source``: the tables of the class and of every
    ``(x_j, class)`` pair, and with ``pairs`` of every ``(x_i, x_j, class)`` triple."""
    names = source.names
    d = len(names)
    enc = _provisional(source, handle_unknown, classes)
    total = source.count(enc, base_families(d), pairs)
    if total is None or total.n_samples == 0:
        raise ValueError("X has 0 samples; at least one training row is required.")
    keep, unknown, state = _resolve_missing(missing, enc, total, [False] * d)
    class_counts = total.counts((d,))
    present = np.flatnonzero(class_counts > 0)
    labels = _typed_labels([enc.class_labels[k] for k in present], source.y_meta)
    classes_, order = encode_target(labels)
    keep.append(present[np.argsort(order, kind="stable")])
    unknown.append(False)
    _warn_id_like(enc, total)
    encoder = FeatureEncoder.from_states(names, enc.observed, state, missing=missing, handle_unknown=handle_unknown)
    y_named = source.y_meta if not is_dask_collection(getattr(source, "y", None)) else source.y
    counts = total.take(keep, unknown)
    counts.recount = lambda families: source.count(enc, families, False).take(keep, unknown)
    return Summarized(
        encoder,
        classes_,
        class_name_of(y_named, encoder.feature_names_),
        counts,
        getattr(source, "first_X", source.meta),
        source.meta,
    )


def count_with_states(
    source: _PandasChunks | _DaskFrame, encoder: FeatureEncoder, classes: np.ndarray, families: Iterable[Sequence[int]]
) -> tuple[CountSummary, FeatureEncoder, list[int]]:
    """Count ``families`` on ``source`` with a fitted model's states: ``(summary, encoder,
    grown)``. A column that gains missing values under ``missing="category"`` gains the
    ``<missing>`` state: the returned encoder has it, and ``grown`` lists those columns
    (a kept summary of the model's counts needs a zero slice for the new state)."""
    names = list(encoder.feature_names_)
    enc = _Encoding(
        names,
        [pd.Index(labels, dtype=object) for labels in encoder.observed_],
        pd.Index([python_scalar(c) for c in classes], dtype=object),
    )
    d = len(names)
    families = sorted({tuple(sorted(f)) for f in list(families) + base_families(d)})
    total = source.count(enc, families, False)
    has_state = [code is not None for code in encoder.missing_codes_]
    keep, unknown, state = _resolve_missing(encoder.missing, enc, total, has_state)
    keep.append(np.arange(len(enc.class_labels)))
    unknown.append(False)
    grown = [j for j in range(d) if state[j] and not has_state[j]]
    if grown:
        encoder = FeatureEncoder.from_states(
            names, encoder.observed_, state, missing=encoder.missing, handle_unknown=encoder.handle_unknown
        )
    return total.take(keep, unknown), encoder, grown


def first_chunk_encoder(frame: pd.DataFrame, missing: str, handle_unknown: str) -> FeatureEncoder:
    """The encoder of ``partial_fit``'s first call: each column's states are its declared
    categories, else the values of this chunk (no ``<missing>`` state yet: it is gained when
    a chunk has missing values, see :func:`count_with_states`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdLikeColumnWarning)
        labels = FeatureEncoder("ignore", handle_unknown).fit(frame).observed_
    return FeatureEncoder.from_states(
        list(frame.columns), labels, [False] * frame.shape[1], missing=missing, handle_unknown=handle_unknown
    )


def classes_of(classes: Any, y: Any) -> np.ndarray:
    """Declared class labels, typed as ``np.asarray(y)`` would type them, sorted."""
    return encode_target(_typed_labels(_unique_list(classes), target_series(y)))[0]


def declare(frame: Any, categories: Mapping | None) -> pd.DataFrame:
    """``frame`` with the columns named in ``categories`` cast to those categories."""
    return _declare(as_frame(frame), categories)
