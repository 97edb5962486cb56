"""Validation at the boundary: ``X`` as a frame, ``y`` as class codes, the coded data value.

Everything downstream of :mod:`bnclf.encoding` sees only :class:`DiscreteData`: an
``(n_samples, n_features)`` array of integer codes with fixed cardinalities and the class
codes. Missing and unseen values are handled in the encoding and nowhere else.

Code conventions
----------------
* A feature code is in ``0 .. cardinality-1``.
* At predict time the code :data:`UNKNOWN` (``-1``) marks a value that the model
  must marginalize out: a missing value when training had none, or a category
  never seen in training.
* The class is never missing.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


UNKNOWN = -1
"""Code of a feature value that inference sums out (missing or unseen)."""


MISSING_LABEL = "<missing>"
"""Category label given to missing training values when ``missing="category"``."""


MISSING_OPTIONS = ("category", "ignore", "error")


UNKNOWN_OPTIONS = ("marginalize", "error")


MISSING_COLUMNS_OPTIONS = ("error", "marginalize")


@dataclass
class DiscreteData:
    """Integer-coded data with fixed cardinalities.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_features), dtype int64
        Feature codes; ``UNKNOWN`` (-1) marks a value to marginalize or, in
        training with ``missing="ignore"``, to leave out of the counts.
    cardinalities : ndarray of shape (n_features,)
        Number of states of each feature.
    y : ndarray of shape (n_samples,) or None
        Class codes in ``0 .. n_classes-1``.
    n_classes : int
        Number of classes.
    weights : ndarray of shape (n_samples,) or None
        Row weights (``sample_weight``), positive and finite; None counts every row once.
        A row of weight ``w`` counts as ``w`` rows in every table.
    """

    codes: np.ndarray
    cardinalities: np.ndarray
    y: np.ndarray | None = None
    n_classes: int = 0
    weights: np.ndarray | None = None

    @property
    def n_samples(self) -> int:
        return self.codes.shape[0]

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    def check(self) -> None:
        """Raise a ValueError unless the codes fit the cardinalities (``-1`` allowed for an
        unknown feature value) and the class codes fit ``n_classes``."""
        codes, cards = np.asarray(self.codes), np.asarray(self.cardinalities)
        if codes.ndim != 2 or codes.dtype.kind not in "iu" or codes.shape[1] != len(cards):
            raise ValueError(
                f"the codes have shape {codes.shape}; expected one integer column per feature ({len(cards)})."
            )
        if codes.size and ((codes < -1).any() or (codes >= cards).any()):
            raise ValueError("the codes do not fit the stated cardinalities.")
        if self.y is not None:
            y = np.asarray(self.y)
            if y.shape != (codes.shape[0],) or y.dtype.kind not in "iu" or (y < 0).any() or (y >= self.n_classes).any():
                raise ValueError("the class codes do not fit the rows or the number of classes.")

    def subset(self, rows: ArrayLike | slice) -> DiscreteData:
        """Rows of this data set with the same cardinalities (a CV fold).

        ``rows`` indexes the rows as in numpy: integer positions, a boolean mask or a
        slice.
        """
        return DiscreteData(
            self.codes[rows],
            self.cardinalities,
            None if self.y is None else self.y[rows],
            self.n_classes,
            None if self.weights is None else self.weights[rows],
        )


def shown_names(names: Iterable[Hashable], limit: int = 10) -> str:
    """Column names for a message: all of them, or the first ``limit`` and how many more."""
    names = [str(n) for n in names]
    return repr(names) if len(names) <= limit else f"{names[:limit]!r} and {len(names) - limit} more"


def add_missing_columns(X: Any, names: Sequence[Hashable] | None, how: str = "error") -> Any:
    """``X`` with the feature columns it lacks added as all-missing, when ``how`` is
    ``"marginalize"``; else ``X`` itself.

    Only a pandas DataFrame whose columns are some of ``names`` in their order gains
    columns (of ``NaN``, in the order of ``names``), with a warning naming them. Any
    other ``X`` (nothing lacking, a column not in ``names``, another order, an array
    without names, ``names`` None before fitting) is returned as it is, for the usual
    checks and their messages. A ``how`` not in :data:`MISSING_COLUMNS_OPTIONS` is a
    ValueError naming the parameter.
    """
    if how not in MISSING_COLUMNS_OPTIONS:
        raise ValueError(f"missing_columns must be one of {MISSING_COLUMNS_OPTIONS}, got {how!r}.")
    if how == "error" or names is None or not isinstance(X, pd.DataFrame):
        return X
    names, columns = list(names), list(X.columns)
    lacking = [n for n in names if n not in columns]
    if not lacking or [n for n in names if n in columns] != columns:
        return X
    warnings.warn(
        f"X lacks the model's feature columns {shown_names(lacking)}; they are predicted as "
        "columns of missing values (missing_columns='marginalize').",
        UserWarning,
        stacklevel=3,
    )
    return X.reindex(columns=names)


_MISSING_COLUMNS_DOC = """

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The rows, with the feature columns the model was fitted on.
        missing_columns : {"error", "marginalize"}, default="error"
            A DataFrame that lacks some of the model's feature columns: ``"error"``
            refuses it with scikit-learn's message naming them; ``"marginalize"`` warns
            naming them and adds each as a column of missing values, so the result is
            exactly that of the same rows with those columns present and empty (each
            summed out, or its ``<missing>`` state if training had one). A keyword of
            the prediction methods, not a constructor parameter, so that the
            estimator's parameters, ``clone`` and scikit-learn's default behaviour are
            unchanged, and all-missing columns go through the one existing path for
            missing values. Columns the model never had, another column order and
            arrays without names are handled as with ``"error"``.
        """


def missing_columns_keyword(method: Callable) -> Callable:
    """``method(self, X)`` given a keyword-only ``missing_columns`` parameter
    (:func:`add_missing_columns` on ``X`` first, ``self.feature_names_in_`` naming the
    columns) and the docstring section describing it."""

    def wrapper(self, X, *, missing_columns="error"):
        return method(self, add_missing_columns(X, getattr(self, "feature_names_in_", None), missing_columns))

    functools.update_wrapper(wrapper, method)
    del wrapper.__wrapped__  # the signature shown is the wrapper's, with missing_columns
    wrapper.__annotations__ = {**method.__annotations__, "missing_columns": "str"}
    wrapper.__doc__ = (method.__doc__ or "").rstrip() + _MISSING_COLUMNS_DOC
    return wrapper


def python_scalar(v: Any) -> Any:
    """Turn numpy scalars into plain Python values (for labels, JSON and pgmpy)."""
    return v.item() if isinstance(v, np.generic) else v


def _is_arrow_text(values) -> bool:
    """An Arrow-backed text column: pandas' string dtype in Arrow storage (pandas 3's
    default ``str``), or an ``ArrowDtype`` of strings."""
    dtype = values.dtype
    if isinstance(dtype, pd.StringDtype):
        return dtype.storage == "pyarrow"
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        return pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(dtype.pyarrow_dtype)
    return False


def remembered(cache: dict, obj: Any, read: Callable[[Any], Any], size: Callable[[Any], int] = len,
               longest: int = 4096) -> Any:  # fmt: skip
    """``read(obj)``, remembered in ``cache`` for the object ``obj``, which cannot change (a
    categorical dtype, an Index): ``id(obj) -> (weak reference, value)``. The value is shared
    with later calls, so it must not be changed (a tuple, read-only arrays). An entry whose
    object is gone (its id reused) is never read; a value of more than ``longest`` labels
    (``size(value)``) is not kept; a cache of 1,024 objects starts afresh."""
    seen = cache.get(id(obj))
    if seen is not None and seen[0]() is obj:
        return seen[1]
    value = read(obj)
    if size(value) <= longest:
        if len(cache) >= 1024:
            cache.clear()
        cache[id(obj)] = (weakref.ref(obj), value)
    return value


def remembered_labels(cache: dict, obj: Any, read: Callable[[Any], list], longest: int = 4096) -> list:
    """``read(obj)`` (a new list), :func:`remembered` as a tuple."""
    return list(remembered(cache, obj, lambda o: tuple(read(o)), len, longest))


_INDEX_LABELS: dict[int, tuple] = {}
"""``id(index) -> (weak reference to the index, its labels)`` of :func:`index_labels`."""


def index_labels(index: pd.Index) -> list:
    """``index.tolist()`` (a new list), remembered for the Index object (an Index cannot
    change; a frame's columns are read at each fit and prediction); Arrow-backed text without
    a missing value through Arrow's own ``to_pylist`` (cheaper than ``Index.tolist``)."""
    return remembered_labels(_INDEX_LABELS, index, _read_index_labels)


def _read_index_labels(index: pd.Index) -> list:
    if _is_arrow_text(index.array):
        import pyarrow as pa

        values = pa.array(index.array)
        if not values.null_count:
            return values.to_pylist()
    return index.tolist()


def sorted_labels(uniq: np.ndarray) -> list:
    """The distinct values ``uniq`` (each once) in sorted order, as Python scalars."""
    uniq = np.asarray(uniq, dtype=object) if not isinstance(uniq, np.ndarray) else uniq
    return [python_scalar(v) for v in uniq[_sort_order(uniq)]]


MAX_INTEGER_CATEGORIES = 10
"""The integer-column rule, the same in Python and on the command line: an integer
column with more distinct values than this is a quantity. The discretizers bin it (as
they bin float columns); a classifier given it directly uses its values as categories
and warns (:class:`ManyValuedIntegerWarning`). The CLI reads such CSV columns as float."""


class ManyValuedIntegerWarning(UserWarning):
    """An integer feature with many distinct values reached a classifier undiscretized."""


def is_quantity(column: pd.Series) -> bool:
    """Whether the integer-column rule makes ``column`` a quantity to discretize: a float
    column, or an integer column with more than ``MAX_INTEGER_CATEGORIES`` values."""
    if pd.api.types.is_bool_dtype(column.dtype) or isinstance(column.dtype, pd.CategoricalDtype):
        return False
    if pd.api.types.is_float_dtype(column.dtype):
        return True
    return bool(pd.api.types.is_integer_dtype(column.dtype) and column.nunique() > MAX_INTEGER_CATEGORIES)


def _looks_continuous(values) -> bool:
    """A float column (numpy or extension array) with non-integral values is continuous."""
    if getattr(values.dtype, "kind", "O") != "f":
        return False
    values = values.to_numpy(dtype=float, na_value=np.nan) if not isinstance(values, np.ndarray) else values
    values = values[~np.isnan(values)]
    return bool(values.size) and not np.all(values == np.round(values))


def as_frame(
    X: ArrayLike | pd.DataFrame, feature_names: Iterable[Hashable] | None = None, *, infer_types: bool = False
) -> pd.DataFrame:
    """Return ``X`` as a DataFrame without copying more than needed.

    Arrays get the names ``x0 .. x{d-1}`` unless ``feature_names`` is given.
    ``infer_types=True`` turns the columns of an object array into numbers
    where they are numbers (the discretizers need float columns).
    """
    if isinstance(X, pd.DataFrame):
        if not X.columns.is_unique:
            dup = X.columns[X.columns.duplicated()].unique().tolist()
            raise ValueError(f"X has duplicate column names {dup}; column names must be unique.")
        return X
    if isinstance(X, pd.Series):
        raise ValueError(
            "Expected a 2-D table of features, got a pandas Series; use X.to_frame() for a single feature."
        )
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise TypeError("Sparse matrices are not supported; pass a dense array or a DataFrame (e.g. X.toarray()).")
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(
            f"Expected a 2-D array of features, got an array of shape {array.shape}. "
            "Reshape your data either using X.reshape(-1, 1) if it has a single feature or "
            "X.reshape(1, -1) if it contains a single sample."
        )
    if np.iscomplexobj(array):
        raise ValueError("Complex data not supported; features must be discrete categories.")
    if feature_names is None:  # an object Index: pandas 3 would make text names Arrow-backed, which costs more
        feature_names = pd.Index([f"x{i}" for i in range(array.shape[1])], dtype=object)
    elif not isinstance(feature_names, pd.Index):
        feature_names = list(feature_names)
    # a view of the array (nothing writes to the frame); an object array stays one object block:
    # without dtype=object pandas would try each column as dates, which costs more than coding it
    frame = pd.DataFrame(array, columns=feature_names, dtype=object if array.dtype == object else None, copy=False)
    return frame.infer_objects() if infer_types and array.dtype == object else frame


def record_feature_names(estimator: BaseEstimator, X: ArrayLike | pd.DataFrame, frame: pd.DataFrame) -> None:
    """Set ``n_features_in_`` and, for a DataFrame with string column names,
    ``feature_names_in_`` (removing a stale one), as scikit-learn estimators do."""
    estimator.n_features_in_ = frame.shape[1]
    names = index_labels(X.columns) if isinstance(X, pd.DataFrame) else None
    if names is not None and all(isinstance(c, str) for c in names):
        estimator.feature_names_in_ = np.array(names, dtype=object)
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_


def class_name_of(y: Any, feature_names: Sequence[Hashable]) -> Hashable:
    """The class node's name: the name of ``y`` (a Series name, a one-column DataFrame's
    column) unless it is missing or names a feature, else ``"class"`` (with ``_`` appended
    while that names a feature)."""
    name = getattr(y, "name", None)
    if isinstance(y, pd.DataFrame) and y.shape[1] == 1:
        name = y.columns[0]
    if name is None or name in feature_names:
        name = "class"
    while name in feature_names:
        name = name + "_"
    return name


def as_target_vector(y: ArrayLike, n_rows: int | None = None, *, warn_column: bool = False) -> np.ndarray:
    """``y`` as a 1-D array: a column vector is flattened (with scikit-learn's
    ``DataConversionWarning`` when ``warn_column``); other shapes, and a length
    other than ``n_rows``, are rejected with a message saying what came."""
    values = np.asarray(y)
    if values.ndim == 2 and values.shape[1] == 1:
        if warn_column:
            import warnings

            from sklearn.exceptions import DataConversionWarning

            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. Please change the "
                "shape of y to (n_samples,), for example using ravel().",
                DataConversionWarning,
                stacklevel=3,
            )
        values = values.ravel()
    if values.ndim != 1:
        raise ValueError(f"y must be 1-D; got an array of shape {values.shape}.")
    if n_rows is not None and values.shape[0] != n_rows:
        raise ValueError(
            f"X has {n_rows} rows but y has {values.shape[0]}; they must match: give one label per row of X."
        )
    return values


class IdLikeColumnWarning(UserWarning):
    """A training column of at least 50 values has a different value in every row, or in
    at least 90% of its rows (an identifier, such as zoo's animal names)."""


class UnseenValuesWarning(UserWarning):
    """Most predict-time values of a column have no state in the model."""


def _text(value) -> str:
    """The text of a category value, an integral float written as its integer."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    return str(value)


def _unique_missing_label(labels) -> str:
    label = MISSING_LABEL
    while label in labels:
        label = "<" + label + ">"
    return label


def check_sample_weight(sample_weight: ArrayLike | None, n_rows: int, allow_zero: bool = False) -> np.ndarray | None:
    """Row weights as a float64 array, or None when every row counts once.

    A weight is how many times a row counts: finite and zero or more, one per row, not
    all zero (unless ``allow_zero``: one chunk of many). ``None`` and all-ones weights
    return None (the unweighted fit).
    """
    if sample_weight is None:
        return None
    array = np.asarray(sample_weight)
    if array.ndim > 1 and array.shape[1:] != (1,) * (array.ndim - 1):
        raise ValueError(f"sample_weight has shape {array.shape}; pass one weight per row (1-D).")
    weights = np.full(n_rows, array.item()) if array.ndim == 0 else array.reshape(-1)
    if weights.dtype.kind not in "biuf":
        try:
            weights = weights.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                "sample_weight must hold numbers (how many times each row counts); got values of "
                f"type {weights.dtype} such as {weights[0]!r}."
            ) from None
    weights = weights.astype(np.float64)
    if len(weights) != n_rows:
        raise ValueError(
            f"sample_weight has {len(weights)} values but X has {n_rows} rows; pass one weight per training row."
        )
    bad = ~np.isfinite(weights) | (weights < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"sample_weight has {int(bad.sum())} negative, NaN or infinite values (row {row}: "
            f"{weights[row]!r}); a weight is how many times a row counts, a finite number >= 0."
        )
    if not weights.any() and not allow_zero:
        raise ValueError("every sample_weight is zero: no row would count. Give at least one row a positive weight.")
    return None if (weights == 1.0).all() else weights


def encode_target(y: ArrayLike | pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Class labels and codes of a target vector, with the checks a classifier needs.

    Returns
    -------
    classes : ndarray
        Sorted distinct labels (``classes_``).
    codes : ndarray of int64
        Index of each label in ``classes``.
    """
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(
                f"y has {y.shape[1]} columns; these classifiers predict one target. "
                "Pass a single column (multilabel models take a 2-D y)."
            )
        y = y.iloc[:, 0]
    uniques = None
    if isinstance(y, (pd.Series, pd.Categorical)) and isinstance(y.dtype, pd.CategoricalDtype):
        values, local = None, np.asarray(y.array.codes if isinstance(y, pd.Series) else y.codes)
        missing = local < 0  # the codes, without a Python object per label
    else:
        values = as_target_vector(y, warn_column=True)
        missing = np.asarray(pd.isna(values), dtype=bool)
    if missing.size == 0:
        raise ValueError("y is empty: no training rows were given (0 samples).")
    if missing.any():
        raise ValueError(
            f"y has {int(missing.sum())} missing labels (e.g. at row "
            f"{int(np.flatnonzero(missing)[0])}); drop those rows or fill them before fitting."
        )
    order = in_order = None
    if values is None:  # a categorical y: its codes, and the categories it holds
        categories, category_order, categories_in_order = _sorted_categories(y.dtype)
        held = np.flatnonzero(np.bincount(local, minlength=len(categories)))
        if held.size == len(categories):  # every category held: the codes as they are
            codes, uniques, order, in_order = local, categories, category_order, categories_in_order
        else:
            codes, uniques = np.searchsorted(held, local), categories[held]
        values = uniques
    if values.dtype.kind == "f" and not np.all(values == np.round(values)):
        raise ValueError(
            "Unknown label type: y holds continuous values; a classifier needs class labels "
            "(use a regressor, or bin y first)."
        )
    if uniques is None:
        codes, uniques = factorize(values)
    if order is None:
        order = _sort_order(np.asarray(uniques))
        in_order = not (order != np.arange(order.size)).any()
    classes = np.asarray(uniques)[order]
    if not in_order:  # not already in order: each code its label's rank
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        codes = rank[codes]
    if classes.size < 2:
        raise ValueError(
            f"y has only one class ({python_scalar(classes[0])!r}); a classifier needs at least "
            "two classes in the training data. Check y (a filter or a split may have kept one "
            "class), or train on rows of at least two classes."
        )
    return classes, codes.astype(np.int64)


_SORTED_CATEGORIES: dict[int, tuple] = {}
"""``id(dtype) -> (weak reference to the dtype, (categories, order, in order))`` of
:func:`_sorted_categories`."""


def _sorted_categories(dtype: pd.CategoricalDtype) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(categories, order, in_order)``: :func:`_category_array` of a categorical target's
    dtype, the order that sorts its labels (:func:`_sort_order`) and whether they are sorted
    already, read-only and remembered per dtype object (a dtype cannot change; a
    cross-validation refits on slices of one target): :func:`remembered`."""
    return remembered(_SORTED_CATEGORIES, dtype, _read_sorted_categories, lambda value: len(value[0]))


def _read_sorted_categories(dtype: pd.CategoricalDtype) -> tuple[np.ndarray, np.ndarray, bool]:
    categories = np.array(_category_array(dtype))  # its own copy, made read-only
    order = _sort_order(categories)
    categories.flags.writeable = order.flags.writeable = False
    return categories, order, not (order != np.arange(order.size)).any()


def _category_array(dtype: pd.CategoricalDtype) -> np.ndarray:
    """``np.asarray(dtype.categories)``; Arrow-backed text as an object array of the labels
    read once per dtype (:func:`bnclf.encoding._columns.dtype_labels`), where pandas 3 converts
    the categories anew on each call."""
    if not _is_arrow_text(dtype.categories.array):
        return np.asarray(dtype.categories)
    from bnclf.encoding._columns import dtype_labels

    out = np.empty(len(dtype.categories), dtype=object)
    out[:] = dtype_labels(dtype)
    return out


def _sort_order(uniques: np.ndarray) -> np.ndarray:
    """The order that sorts distinct values (by type name and text when they do not compare)."""
    try:
        return np.asarray(np.argsort(uniques, kind="stable"), dtype=np.int64)
    except TypeError:
        key = [(type(v).__name__, str(v)) for v in uniques]
        return np.array(sorted(range(len(uniques)), key=key.__getitem__), dtype=np.int64)


def factorize(values: Any) -> tuple[np.ndarray, Any]:
    """``pd.factorize(values)``: codes in order of first appearance (-1 for a missing
    value) and the distinct values."""
    return pd.factorize(values)
