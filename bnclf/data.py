"""Validation and encoding: the one place where raw data becomes integer codes.

Everything downstream of this module sees only :class:`DiscreteData`: an
``(n_samples, n_features)`` array of integer codes with fixed cardinalities, the
original category labels, and the class codes. Missing and unseen values are
handled here and nowhere else.

Code conventions
----------------
* A feature code is in ``0 .. cardinality-1``.
* At predict time the code :data:`UNKNOWN` (``-1``) marks a value that the model
  must marginalize out: a missing value when training had none, or a category
  never seen in training.
* The class is never missing.
"""

from __future__ import annotations

import ctypes
import itertools
from collections.abc import Collection, Hashable, Iterable
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
    """

    codes: np.ndarray
    cardinalities: np.ndarray
    y: np.ndarray | None = None
    n_classes: int = 0

    @property
    def n_samples(self) -> int:
        return self.codes.shape[0]

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

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
        )


def shown_names(names: Iterable[Hashable], limit: int = 10) -> str:
    """Column names for a message: all of them, or the first ``limit`` and how many more."""
    names = [str(n) for n in names]
    return repr(names) if len(names) <= limit else f"{names[:limit]!r} and {len(names) - limit} more"


def python_scalar(v: Any) -> Any:
    """Turn numpy scalars into plain Python values (for labels, JSON and pgmpy)."""
    return v.item() if isinstance(v, np.generic) else v


def _sorted_labels(uniq: np.ndarray) -> list:
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


def _looks_continuous(column: pd.Series) -> bool:
    """A float column with non-integral values is continuous."""
    if not pd.api.types.is_float_dtype(column.dtype):
        return False
    values = column.to_numpy(dtype=float, na_value=np.nan)
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
    if feature_names is None:
        feature_names = [f"x{i}" for i in range(array.shape[1])]
    elif not isinstance(feature_names, pd.Index):
        feature_names = list(feature_names)
    # an object array stays one object block, a view of the array: without dtype=object pandas
    # would try each column as dates, which costs more than coding it
    frame = pd.DataFrame(array, columns=feature_names, dtype=object if array.dtype == object else None)
    return frame.infer_objects() if infer_types and array.dtype == object else frame


def record_feature_names(estimator: BaseEstimator, X: ArrayLike | pd.DataFrame, frame: pd.DataFrame) -> None:
    """Set ``n_features_in_`` and, for a DataFrame with string column names,
    ``feature_names_in_`` (removing a stale one), as scikit-learn estimators do."""
    estimator.n_features_in_ = frame.shape[1]
    if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        estimator.feature_names_in_ = np.asarray(X.columns, dtype=object)
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_


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


class FeatureEncoder:
    """Maps raw feature values to integer codes, learned once on training data.

    Parameters
    ----------
    missing : {"category", "ignore", "error"}, default="category"
        What a missing training value becomes. ``"category"`` gives it a state of
        its own (labelled ``"<missing>"``), as the source papers' protocol does;
        ``"ignore"`` leaves it out of every count that involves that feature
        (available-case counting); ``"error"`` rejects it.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        What a predict-time value that has no state in the model becomes: a
        missing value when training had none (or used ``missing="ignore"``), or a
        category never seen in training. ``"marginalize"`` sums the feature out
        exactly; ``"error"`` rejects it.

    Notes
    -----
    When training produced a ``"<missing>"`` state, a missing value at predict
    time takes that state: the model has learned what missingness says about the
    class, and using it is consistent with how the model was trained.
    Categories of a pandas ``category`` column keep their declared order (ARFF
    headers, discretizer bins), including declared but unused ones; other
    columns use their sorted distinct values.
    """

    def __init__(self, missing: str = "category", handle_unknown: str = "marginalize") -> None:
        self.missing = missing
        self.handle_unknown = handle_unknown

    def fit(self, X: pd.DataFrame) -> FeatureEncoder:
        self._fit(X, keep_codes=False)
        return self

    def fit_transform(self, X: pd.DataFrame) -> np.ndarray:
        """Fit on ``X`` and return its training codes (``transform(X, training=True)``),
        reading every column once: the codes come from the pass that finds the states."""
        return self._fit(X, keep_codes=True)

    def _fit(self, X: pd.DataFrame, keep_codes: bool) -> np.ndarray | None:
        check_option("missing", self.missing, MISSING_OPTIONS)
        check_option("handle_unknown", self.handle_unknown, UNKNOWN_OPTIONS)
        if X.shape[1] == 0:
            raise ValueError(
                f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                "required: X has no feature columns."
            )
        names = list(X.columns)
        if len(set(map(str, names))) != len(names):
            raise ValueError(f"Feature names must be unique as text; got {names}.")
        self.feature_names_ = names
        self._clear_caches()
        # column-major: each column is written, and counted from, as one contiguous block
        codes = np.empty((X.shape[0], len(names)), dtype=np.int64, order="F") if keep_codes else None
        self.categories_ = []  # state labels per feature, "<missing>" last if present
        self._labels = []  # the labels that raw values map to
        self._missing_code = []  # code of the "<missing>" state, or None
        arrays = _column_arrays(X)
        dense_columns = _dense_integer_states(arrays, codes)  # integers in a short range: counted, coded
        object_columns = _factorize_columns(_blocks_of_kind(X, "O"), codes)  # text: all at once, by object
        for j, (name, values, dtype) in enumerate(zip(names, arrays, X.dtypes)):
            dense = dense_columns.get(j)
            kind = getattr(dtype, "kind", "O")  # numpy, masked and arrow dtypes: 'f' float, 'iu' integer
            if kind == "f" and _looks_continuous(X.iloc[:, j]):
                raise ValueError(
                    f"column {name!r} looks continuous ({X.iloc[:, j].nunique()} distinct float "
                    "values); discretize it first, e.g. with bnclf.MDLDiscretizer in "
                    "make_pipeline(MDLDiscretizer(), TANClassifier()) (command line: "
                    "--discretize mdl), or cast it to a categorical dtype if its values are categories."
                )
            n_distinct = len(dense) if dense is not None else None
            if n_distinct is None and kind in "iu":
                n_distinct = X.iloc[:, j].nunique()
            elif n_distinct is None and kind == "f":  # whole numbers (else refused above)
                n_distinct = X.iloc[:, j].nunique()
            if n_distinct is not None and n_distinct > MAX_INTEGER_CATEGORIES:
                import warnings

                warnings.warn(
                    f"column {name!r} is an integer column with {n_distinct} distinct "
                    f"values (more than {MAX_INTEGER_CATEGORIES}); each value becomes a "
                    "category. If it is a quantity, discretize it (MDLDiscretizer and "
                    "QuantileDiscretizer bin such columns, e.g. make_pipeline(MDLDiscretizer(), "
                    "TANClassifier()); command line: --discretize mdl); if its values are "
                    "categories, cast it with .astype('category') to keep them and silence this warning.",
                    ManyValuedIntegerWarning,
                    stacklevel=4,
                )
            if isinstance(dtype, pd.CategoricalDtype):
                own = values.codes
                missing = own < 0
                labels = [python_scalar(v) for v in dtype.categories]
                col = own.astype(np.int64) if keep_codes else None  # -1 (missing) is UNKNOWN
            elif dense is not None:
                labels = dense.tolist()
                missing = None  # none, and the codes are written
            elif j in object_columns:  # distinct values in sorted order, codes in that order
                col, labels, has_missing = object_columns[j]
                written = codes is not None and col.base is codes
                missing = col < 0 if has_missing or not written else None  # None: the codes are written
            else:  # one hash pass: the distinct values and the missing ones (code -1)
                local, uniques = factorize(values)
                missing = local < 0
                uniques = np.asarray(uniques, dtype=object)
                labels = _sorted_labels(uniques)
                col = None
                if keep_codes:
                    position = {label: code for code, label in enumerate(labels)}
                    rank = np.array([position[python_scalar(u)] for u in uniques] + [UNKNOWN], dtype=np.int64)
                    col = local if np.array_equal(rank[:-1], np.arange(len(uniques))) else rank[local]
            if not labels:
                raise ValueError(f"column {name!r} has no observed values; drop it.")
            n_known = len(values) - (0 if missing is None else int(np.count_nonzero(missing)))
            if len(labels) >= 50 and len(labels) >= 0.9 * n_known:
                import warnings

                every = "every row" if len(labels) == n_known else "nearly every row"
                warnings.warn(
                    f"column {name!r} has a different value in {every} ({len(labels)} values in "
                    f"{n_known} rows), like an identifier: it tells little about the class of a new "
                    f"row and makes its count tables as large as the data; drop it (command line: --drop {name}).",
                    IdLikeColumnWarning,
                    stacklevel=4,
                )
            self._labels.append(labels)
            code = None
            if missing is not None and missing.any():
                if self.missing == "error":
                    raise ValueError(
                        f"column {name!r} has {int(missing.sum())} missing values and "
                        "missing='error'; use missing='category' (a state of its own) or "
                        "missing='ignore' (left out of the counts), or impute them first."
                    )
                if self.missing == "category":
                    code = len(labels)
                    labels = labels + [_unique_missing_label(labels)]
            self._missing_code.append(code)
            self.categories_.append(labels)
            if keep_codes and missing is not None:
                codes[:, j] = self._fill_missing(j, col, missing, True)
        self.cardinalities_ = np.array([len(c) for c in self.categories_], dtype=np.int64)
        return codes

    def transform(self, X: pd.DataFrame, *, training: bool = False) -> np.ndarray:
        """Integer codes of ``X``, ``UNKNOWN`` where a value has no state.

        With ``training=True`` unseen categories are an error (they cannot occur
        in the data the encoder was fitted on) and missing values keep
        ``UNKNOWN`` only under ``missing="ignore"``.

        Notes
        -----
        Every column is coded by a lookup on structures built once per encoder: a
        category column through the map from its dtype's categories to the states
        (kept for the last dtype seen, so slices of one frame map by an identity check),
        an integer column through a table indexed by value, a long text column through
        the codes of the objects it holds (:class:`_HeldObjects`: by address, no
        hashing), other columns through a ``value -> state`` dict, per distinct value
        (``pd.factorize``) for long columns and per value for short ones. The codes are
        column-major (``(n_samples, n_features)``, Fortran order).
        """
        if list(X.columns) != self.feature_names_:
            X = X[self.feature_names_]
        n = X.shape[0]
        by_column = np.empty((len(self.feature_names_), n), dtype=np.int64)  # row j: column j's codes
        arrays = _column_arrays(X)
        blocks = _blocks_of_kind(X, "Oiu")
        text = [block for block in blocks if block[1].dtype == object]
        coded = self._code_object_blocks(text, by_column) if n > _SMALL_ROWS and text else set()
        coded |= self._code_integer_blocks([block for block in blocks if block[1].dtype != object], by_column)
        for j, values in enumerate(arrays):
            if j not in coded:
                by_column[j] = self._column_codes(j, values)
        codes = by_column.T  # column-major, as the kernels read it
        if n == 0:
            return codes
        for j in np.flatnonzero(codes.min(axis=0) <= UNKNOWN).tolist():  # a value without a state
            values, col = arrays[j], codes[:, j].copy()
            name, column = self.feature_names_[j], X.iloc[:, j]
            missing = np.asarray(pd.isna(values), dtype=bool)
            unseen = (col == UNKNOWN) & ~missing
            if unseen.any():
                if not training:
                    col = self._match_by_text(j, column, col, unseen)
                    unseen = (col == UNKNOWN) & ~missing
                    self._warn_if_mostly_unseen(j, column, unseen, missing)
                if unseen.any() and (training or self.handle_unknown == "error"):
                    examples = pd.unique(column[unseen].astype(object))[:5].tolist()
                    raise ValueError(
                        f"column {name!r} has values never seen in training: {examples}; known "
                        f"values are {self.categories_[j][:10]}. Use handle_unknown='marginalize' "
                        "to sum them out, or refit on data that contains them."
                    )
            codes[:, j] = self._fill_missing(j, col, missing, training)
        return codes

    def _code_object_blocks(self, groups: list[tuple[np.ndarray, np.ndarray]], by_column: np.ndarray) -> set[int]:
        """Write the codes of the numpy object columns given as ``groups`` of ``(positions,
        values)`` (:func:`_blocks_of_kind`) into the rows of ``by_column``, through the
        objects this encoder holds; return the positions of those columns."""
        positions = np.concatenate([p for p, _ in groups]) if len(groups) > 1 else groups[0][0]
        blocks = [_address_rows(values) for _, values in groups]  # the objects stay alive in X while they are coded
        first, last = int(positions.min()), int(positions.max())
        in_order = last - first == len(positions) - 1 and bool((np.diff(positions) == 1).all())
        out = (
            by_column[first : last + 1] if in_order else np.empty((len(positions), by_column.shape[1]), dtype=np.int64)
        )
        held = self.__dict__.get("_held_objects") or _HeldObjects.empty(len(self.feature_names_))
        holder = held.code(positions, blocks, self._lookups(), out)
        if holder is None:  # many distinct objects: each column by its distinct values (_column_codes)
            return set()
        self._held_objects = holder
        if not in_order:
            by_column[positions] = out
        return set(positions.tolist())

    def _code_integer_blocks(self, groups: list[tuple[np.ndarray, np.ndarray]], by_column: np.ndarray) -> set[int]:
        """Write the codes of the numpy integer columns given as ``groups`` of
        ``(positions, values)`` (:func:`_blocks_of_kind`; uint64 blocks are left out) into
        the rows of ``by_column``, a group of columns at a time through one table of every
        column's codes indexed by value (:meth:`_integer_block_table`); return the
        positions of the columns coded. A column with a value outside its table, and a
        block with a column that has no table, are left to :meth:`_column_codes`."""
        coded = set()
        if by_column.shape[1] == 0:
            return coded
        for positions, values in groups:
            lookup = None if values.dtype == np.uint64 else self._integer_block_table(positions)
            if lookup is None:
                continue
            table, shift, start, end = lookup
            n_rows, n = values.shape
            step = max(1, _LOOKUP_CELLS // max(1, n))
            buffer = np.empty((min(step, n_rows), n), dtype=np.int64)
            for first in range(0, n_rows, step):
                chunk = values[first : first + step]
                part = np.add(chunk, shift[first : first + step, None], out=buffer[: len(chunk)])
                rows, last = positions[first : first + len(part)], first + len(part)
                inside = (part.min(axis=1) >= start[first:last]) & (part.max(axis=1) < end[first:last])
                if inside.all() and (len(rows) == 1 or (np.diff(rows) == 1).all()):  # rows in order: one gather
                    table.take(part, out=by_column[rows[0] : rows[-1] + 1], mode="clip")
                else:
                    for r in np.flatnonzero(inside).tolist():
                        table.take(part[r], out=by_column[rows[r]], mode="clip")
                coded.update(rows[inside].tolist())
        return coded

    def _integer_block_table(self, positions: np.ndarray) -> tuple | None:
        """``(table, shift, start, end)`` for the integer columns at ``positions``: the
        state of value ``v`` of the column in row ``r`` of the block is ``table[v +
        shift[r]]`` when ``start[r] <= v + shift[r] < end[r]``; ``None`` when a column has
        no table by value (:meth:`_integer_table`)."""
        tables = self.__dict__.setdefault("_integer_block_tables", {})
        key = positions.tobytes()
        if key not in tables:
            found = [self._integer_table(j) for j in positions.tolist()]
            tables[key] = None
            if all(t is not None for t in found):
                sizes = np.array([len(codes) for _, codes in found], dtype=np.int64)
                begin = np.cumsum(sizes) - sizes
                # modulo 2^64, as numpy adds int64 arrays: v + shift lands in [start, end) exactly
                # when v is in the column's range, however far from zero its values are
                with np.errstate(over="ignore"):
                    shift = begin - np.array([low for low, _ in found], dtype=np.int64)
                tables[key] = (np.concatenate([codes for _, codes in found]), shift, begin, begin + sizes)
        return tables[key]

    def _column_codes(self, j: int, values: np.ndarray | pd.api.extensions.ExtensionArray) -> np.ndarray:
        """The observed-state codes of one column's values, ``UNKNOWN`` where a value is
        missing or has no state."""
        if isinstance(values, pd.Categorical):
            own = values.codes
            mapping = self._category_map(j, values.dtype)
            return own.astype(np.int64) if mapping is None else mapping[own]  # -1 -> UNKNOWN
        n = len(values)
        if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and n > _SMALL_ROWS:
            table = self._integer_table(j)
            if table is not None:  # integer states: a gather, no hashing
                low, codes = table
                shifted = values - low if values.dtype == np.int64 else values.astype(np.int64) - low
                if shifted.min() >= 0 and shifted.max() < len(codes):  # every value in the table
                    return codes.take(shifted)
                inside = (shifted >= 0) & (shifted < len(codes))
                return np.where(inside, codes[np.where(inside, shifted, 0)], UNKNOWN)
        get = self._lookups()[j].get
        if n <= _SMALL_ROWS:  # a few rows: a dict lookup per value
            items = np.asarray(values, dtype=object)
            return np.fromiter(map(get, items, itertools.repeat(UNKNOWN, n)), dtype=np.int64, count=n)
        local, uniques = factorize(values)  # one hash pass; a lookup per distinct value
        lookup = np.fromiter(
            (get(u, UNKNOWN) for u in np.asarray(uniques, dtype=object)), dtype=np.int64, count=len(uniques)
        )
        return np.append(lookup, UNKNOWN)[local]

    @property
    def feature_index(self) -> pd.Index:
        """``feature_names_`` as a ``pd.Index`` (built on first use), to name frames by."""
        index = self.__dict__.get("_feature_index")
        if index is None:
            index = self._feature_index = pd.Index(self.feature_names_, dtype=object)
        return index

    @property
    def _observed(self) -> list[pd.Index]:
        """The labels that raw values map to, per column, as ``pd.Index`` (built on first use)."""
        observed = self.__dict__.get("_observed_index")
        if observed is None:
            observed = self._observed_index = [pd.Index(labels, dtype=object) for labels in self._labels]
        return observed

    @_observed.setter
    def _observed(self, observed: list) -> None:
        self._labels = [list(labels) for labels in observed]
        self.__dict__.pop("_observed_index", None)

    def __setstate__(self, state: dict) -> None:
        if "_observed" in state:  # pickled when the labels were kept as pd.Index
            state["_labels"] = [list(labels) for labels in state.pop("_observed")]
        self.__dict__.update(state)

    def _integer_table(self, j: int) -> tuple[int, np.ndarray] | None:
        """``(low, codes)`` with ``codes[v - low]`` the state of integer value ``v``
        (``UNKNOWN`` if none), when every observed label of column ``j`` is an integer
        within a range of at most ``_DENSE_RANGE``; else ``None``."""
        tables = self.__dict__.setdefault("_integer_tables", {})
        if j not in tables:
            labels = self._labels[j]
            table = None
            if all(isinstance(v, int) and not isinstance(v, bool) for v in labels):
                low, high = min(labels), max(labels)
                if high - low < _DENSE_RANGE and -(2**63) <= low and high < 2**63:
                    codes = np.full(high - low + 1, UNKNOWN, dtype=np.int64)
                    codes[np.array(labels, dtype=np.int64) - low] = np.arange(len(labels))
                    table = (low, codes)
            tables[j] = table
        return tables[j]

    def _category_map(self, j: int, dtype: pd.CategoricalDtype) -> np.ndarray | None:
        """Codes of ``dtype``'s categories in the fitted states, ``UNKNOWN`` appended (for
        the code -1 of a missing value); ``None`` when they are the fitted states."""
        maps = self.__dict__.setdefault("_category_maps", {})
        seen = maps.get(j)
        if seen is not None and seen[0] is dtype:
            return seen[1]
        known = pd.Index(self._labels[j], dtype=object)
        if dtype.categories.equals(known):
            mapping = None
        else:
            mapping = np.append(known.get_indexer(dtype.categories), UNKNOWN).astype(np.int64)
        maps[j] = (dtype, mapping)
        return mapping

    def _clear_caches(self) -> None:
        for cache in _CACHES:
            self.__dict__.pop(cache, None)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for cache in _CACHES:  # rebuilt on first use
            state.pop(cache, None)
        return state

    def _fill_missing(self, j, col, missing, training) -> np.ndarray:
        """Missing values take the ``"<missing>"`` state, stay unknown, or are refused."""
        if missing.any():
            if self._missing_code[j] is not None:
                col[missing] = self._missing_code[j]
            elif not training and self.handle_unknown == "error":
                raise ValueError(
                    f"column {self.feature_names_[j]!r} has {int(missing.sum())} missing "
                    "values, which the model has no state for, and handle_unknown='error'; "
                    "use handle_unknown='marginalize' to sum them out exactly."
                )
        return col

    def _lookups(self) -> list[dict]:
        """``value -> code`` of every column's observed labels (built on first use)."""
        lookups = getattr(self, "_lookup_dicts", None)
        if lookups is None:
            lookups = [{label: code for code, label in enumerate(labels)} for labels in self._labels]
            self._lookup_dicts = lookups
        return lookups

    def _match_by_text(self, j, column, col, unseen) -> np.ndarray:
        """Codes for unseen values whose text names exactly one known state.

        A column read as integers at predict time but as strings ``'0'``, ``'1'``
        at fit time (or the other way round) would otherwise have every value
        unseen and summed out, and the model would answer its prior. When the
        known states have distinct texts, a value is matched by its text (an
        integral float by the text of its integer). When several states share a
        text (``1`` and ``'1'``), a value with that text is an error that names the
        column and the fix, rather than a guess.
        """
        texts = pd.Index([_text(v) for v in self._labels[j]])
        codes, distinct = pd.factorize(column.to_numpy(dtype=object)[unseen])
        if not texts.is_unique:  # e.g. both 1 and '1' are states: a value with that text is ambiguous
            shared = set(texts[texts.duplicated(keep=False)])
            clash = [v for v in distinct if _text(v) in shared]
            if clash:
                states = [s for s in self._labels[j] if _text(s) == _text(clash[0])]
                raise ValueError(
                    f"column {self.feature_names_[j]!r}: the value {clash[0]!r} matches none of the "
                    f"training states exactly, and its text matches several of them ({states!r}); "
                    "give the column the type it had in training (e.g. .astype(str), or "
                    ".astype(int)), so that each value names one state."
                )
            return col  # no value's text is ambiguous: the unseen values stay unseen
        matched = texts.get_indexer([_text(v) for v in distinct])  # once per distinct value
        col = col.copy()
        col[np.flatnonzero(unseen)] = matched[codes]
        return col

    def _warn_if_mostly_unseen(self, j, column, unseen, missing) -> None:
        observed = int((~missing).sum())
        if observed >= 10 and unseen.sum() >= 0.5 * observed:
            import warnings

            examples = pd.unique(column[unseen].astype(object))[:3].tolist()
            warnings.warn(
                f"column {self.feature_names_[j]!r}: {int(unseen.sum())} of {observed} values "
                f"were never seen in training (e.g. {examples}; known: "
                f"{self.categories_[j][:5]}); they are summed out, so the model answers "
                "without this column. Check that the column has the same type and coding as "
                "in training.",
                UnseenValuesWarning,
                stacklevel=4,
            )


def _column_arrays(frame: pd.DataFrame) -> list:
    """The values of every column of ``frame``, in order, as 1-D arrays (numpy or pandas
    extension arrays), without building a Series per column.

    Notes
    -----
    Building a Series per column costs about 15 µs, which for a one-row prediction of a
    few dozen columns outweighs everything else. The column arrays are read from the
    frame's blocks (``DataFrame._mgr``: ``blocks``, ``blknos``, ``blklocs``, present since
    pandas 1.0), and through ``DataFrame.items`` if a pandas version lacks them.
    """
    try:
        mgr = frame._mgr
        blocks, numbers, places = mgr.blocks, mgr.blknos, mgr.blklocs
    except AttributeError:  # pragma: no cover - another pandas internals layout
        return [column.array for _, column in frame.items()]
    out = []
    for number, place in zip(numbers, places):
        values = blocks[number].values
        out.append(values[place] if getattr(values, "ndim", 1) == 2 else values)
    return out


def _dense_integer_states(arrays: list, out: np.ndarray | None = None) -> dict[int, np.ndarray]:
    """``{position: sorted distinct values}`` of the numpy integer columns among ``arrays``
    whose values span at most ``_DENSE_RANGE``, found by counting instead of hashing; their
    codes are written into the columns of ``out`` (column-major ``(rows, columns)``) when
    it is given.

    Notes
    -----
    The columns go in groups of about ``_LOOKUP_CELLS`` values, stacked into one buffer:
    per group one ``np.bincount`` over the values shifted into a segment per column, and
    one gather of the codes, so no temporary grows with the table.
    """
    chosen = [  # uint64 may not fit int64: left to hashing
        j
        for j, v in enumerate(arrays)
        if isinstance(v, np.ndarray) and (v.dtype.kind == "i" or (v.dtype.kind == "u" and v.itemsize < 8)) and v.size
    ]
    if not chosen:
        return {}
    n = len(arrays[chosen[0]])
    step = max(1, _LOOKUP_CELLS // n)
    buffer = np.empty((min(step, len(chosen)), n), dtype=np.int64)
    states = {}
    for start in range(0, len(chosen), step):
        group = chosen[start : start + step]
        block = buffer[: len(group)]
        for row, j in enumerate(group):
            block[row] = arrays[j]
        low, high = block.min(axis=1), block.max(axis=1)
        narrow = high.astype(float) - low.astype(float) < _DENSE_RANGE  # no overflow
        if not narrow.all():
            keep = np.flatnonzero(narrow)
            group, block, low, high = [group[k] for k in keep], block[keep], low[keep], high[keep]
            if not group:
                continue
        span = high - low + 1
        base = np.cumsum(span) - span  # each column's values get a segment of the counts
        block -= (low - base)[:, None]
        present = np.bincount(block.ravel(), minlength=int(span.sum())) > 0
        rank = np.cumsum(present) - 1  # the code of a value: present values before it in its segment
        rank -= np.repeat(rank[base] + 1 - present[base], span)  # ... in its own segment
        for row, (j, b, size, lo) in enumerate(zip(group, base.tolist(), span.tolist(), low.tolist())):
            states[j] = np.flatnonzero(present[b : b + size]) + lo
            if out is not None:
                rank.take(block[row], out=out[:, j])
    return states


def factorize(values: Any) -> tuple[np.ndarray, Any]:
    """``pd.factorize(values)``: codes in order of first appearance (-1 for a missing
    value) and the distinct values; for a long numpy object column, by object identity first.

    Notes
    -----
    Hashing Python objects costs about 20 ns a value, most of it calls into each object's
    ``__hash__`` and ``__eq__``. A column of text (read from a file, or cast from
    categories) holds a few objects many times over, so the column is factorized first by
    the objects' addresses (integers hashed as such, about 5 ns a value), and only the
    distinct objects, once each, by value. Equal values held by different objects meet in
    the second step, so the result is the same as ``pd.factorize``'s, codes included: a
    value first appears where its first object first appears. The addresses are read from
    the array's own buffer of object pointers, and each distinct object taken back from its
    address, while the array holds the objects alive. A column of nearly an object per
    value (more distinct objects than an eighth of its values) goes to ``pd.factorize``
    directly.
    """
    if not _by_identity(values):
        return pd.factorize(values)
    objects, distinct = pd.factorize(_addresses(values))  # one code per distinct object, first seen first
    if len(distinct) * 8 > len(values):  # nearly an object per value: identity saves little
        return pd.factorize(values)
    local, uniques = pd.factorize(_held(distinct))
    return local[objects], uniques


def _blocks_of_kind(frame: pd.DataFrame, kinds: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(positions, values)`` of each 2-D numpy block of ``frame`` whose dtype kind is in
    ``kinds``: the columns' positions in the frame, and their values as ``(columns,
    rows)``, one row a column (a view of the frame's own block); none when the frame's
    blocks cannot be read."""
    try:
        blocks = frame._mgr.blocks
    except AttributeError:  # pragma: no cover - another pandas internals layout
        return []
    found = []
    for block in blocks:
        values = block.values
        if type(values) is np.ndarray and values.dtype.kind in kinds and values.ndim == 2:
            found.append((block.mgr_locs.as_array.astype(np.int64, copy=False), values))
    return found


def _factorize_columns(
    groups: list[tuple[np.ndarray, np.ndarray]], out: np.ndarray | None = None
) -> dict[int, tuple[np.ndarray, list, bool]]:
    """``{position: (codes, labels, missing)}`` of object columns given as ``groups`` of
    ``(positions, values)`` (:func:`_blocks_of_kind`) of at least ``_IDENTITY_ROWS`` rows, all
    at once (as :func:`factorize` does one column, codes -1 for a missing value, and
    ``missing`` whether there is one); a column's labels are its distinct values in sorted
    order (by type name and text when they do not compare), as Python scalars. The codes
    are written into the columns of ``out`` (column-major ``(rows, columns)``) when given,
    unless a column is factorized on its own.

    Notes
    -----
    Objects are told apart by address, then the distinct objects, once each, by value.
    The objects of ``_SAMPLE_ROWS`` rows spread over the table give each column's values
    and their codes, and one lookup of every address among them writes its code
    (:func:`_code_from_samples`): one pass over the cells. A column with an object no
    sampled row holds is coded again, with the others of its kind, by
    :func:`_factorize_by_objects`. Values are told apart across all the columns at once,
    so a value that equal objects of different types hold (``1``, ``1.0`` and ``True``
    are one key) would take one column's object as its label in another column; then, and
    when the sampled rows hold more distinct objects than an eighth of their cells
    (identity saves little), each column is factorized on its own.
    """
    groups = [(positions, values) for positions, values in groups if values.shape[1] >= _IDENTITY_ROWS]
    if not groups:
        return {}
    chosen = np.concatenate([positions for positions, _ in groups]).tolist()
    n = groups[0][1].shape[1]
    if out is None:
        out = np.empty((n, max(chosen) + 1), dtype=np.int64, order="F")
    first, last = min(chosen), max(chosen)
    if chosen == list(range(first, last + 1)):  # one 2-D view: each row a column of out
        columns = out[:, first : last + 1].T
    else:
        columns = [out[:, j] for j in chosen]
    blocks = [_addresses(values) for _, values in groups]
    values = [row for _, group in groups for row in group]  # each column's objects
    coded = _code_from_samples(blocks, columns)
    if coded is None:  # many distinct objects, or equal values of several types
        return {j: _with_missing(*_sorted_factorize(row)) for j, row in zip(chosen, values)}
    labels, missed = coded
    lowest = columns.min(axis=1) if isinstance(columns, np.ndarray) else [column.min() for column in columns]
    found = {j: (columns[r], labels[r].tolist(), bool(lowest[r] < 0)) for r, j in enumerate(chosen)}
    if missed:  # columns with an object no sampled row holds
        rows = [row for block in blocks for row in block]
        again = _factorize_by_objects([np.stack([rows[r] for r in missed])], [columns[r] for r in missed])
        if again is None:
            found.update({chosen[r]: _with_missing(*_sorted_factorize(values[r])) for r in missed})
        else:
            found.update({chosen[r]: _with_missing(columns[r], labels_r) for r, labels_r in zip(missed, again)})
    return found


def _with_missing(codes: np.ndarray, uniques: Iterable) -> tuple[np.ndarray, list, bool]:
    """``(codes, labels, whether a code is missing)`` of a factorized column."""
    return codes, [python_scalar(v) for v in uniques], bool((codes < 0).any())


def _code_from_samples(blocks: list[np.ndarray], out: np.ndarray | list[np.ndarray]):
    """Code object columns (``blocks`` of addresses, one row a column, read as one) by the
    objects of a sample of their rows, writing the codes into ``out`` (a 2-D array, or one
    1-D array a column): return ``(labels, missed)``, each column's distinct values in
    sorted order (Python scalars) and the columns with an object no sampled row holds
    (their codes not all written); ``None`` (``out`` unwritten) when the sample holds more
    distinct objects than an eighth of its cells, or equal values of several types. When
    the table of codes by column and slot would be large, the columns are coded by
    :func:`_factorize_by_objects` instead.

    Notes
    -----
    The sample is ``_SAMPLE_ROWS`` rows spread over the rows, the same for every column.
    A column's values in its own sampled rows get their codes (their ranks); an object of
    another column's sample with another value gets a provisional code past those, which
    tells the column holds it. Such a column is then recoded (a late value: its
    provisional codes mapped to the ranks among all its values); one pass over the cells
    otherwise.
    """
    n = blocks[0].shape[1]
    every = max(1, n // _SAMPLE_ROWS)
    sample = np.concatenate([block[:, ::every][:, :_SAMPLE_ROWS] for block in blocks])
    ordered = np.sort(sample, axis=1)
    first = np.ones(ordered.shape, dtype=bool)
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=first[:, 1:])
    pair_column = np.nonzero(first)[0]  # the distinct (column, object) pairs of the sample
    objects, pair_object = np.unique(ordered[first], return_inverse=True)
    if len(objects) * 8 > sample.size:
        return None
    table = _AddressTable(objects)
    if len(sample) << table.bits > _SLOT_CODES:
        labels = _factorize_by_objects(blocks, list(out))
        return None if labels is None else (labels, [])
    valued = _values_of(objects)
    if valued is None:
        return None
    value, uniques = valued
    if not len(uniques):  # the sampled rows are all missing: nothing to code by
        return None
    present = np.zeros((len(sample), len(uniques) + 1), dtype=bool)  # a last slot: missing
    present[pair_column, value[pair_object]] = True
    present = present[:, :-1]
    rank = np.cumsum(present, axis=1) - 1  # a value's code in its column: its rank there
    own = present.sum(axis=1)  # each column's number of values in the sample
    known = np.maximum(value, 0)
    code = np.where(present[:, known], rank[:, known], own[:, None] + known)  # (column, object)
    code[:, value < 0] = -1
    missed = table.gather(blocks, code.take(table.slot_index, axis=1, mode="clip"), out, stop=False)
    top = out.max(axis=1) if isinstance(out, np.ndarray) else [row.max() for row in out]
    for r in sorted(set(np.flatnonzero(np.asarray(top) >= own).tolist()) - set(missed)):  # late values
        column, sampled = out[r], np.flatnonzero(present[r])
        present[r, np.unique(column[column >= own[r]]) - own[r]] = True
        final = np.cumsum(present[r]) - 1  # a value's code among all the column's values
        np.concatenate([final[sampled], final, [-1]]).take(column, out=column)  # provisional -> final
    return [uniques[row] for row in present], missed


def _values_of(addresses: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(value, uniques)`` of the distinct objects at ``addresses`` (held alive by the
    caller): their distinct values in sorted order as Python scalars, and each object's
    position among them (-1 for a missing value); ``None`` when equal objects of different
    types hold a value (``1``, ``1.0`` and ``True`` are one key), which would give one
    column's object as another's label, or when the values do not compare (numbers and
    text): each column then sorts its own values, which may compare."""
    held = _held(addresses)
    value, uniques = pd.factorize(held)
    if len({(v, type(o)) for v, o in zip(value.tolist(), held) if v >= 0}) > len(uniques):
        return None
    uniques = np.asarray(uniques, dtype=object)
    try:
        order = np.asarray(np.argsort(uniques, kind="stable"), dtype=np.int64)  # as the encoder labels them
    except TypeError:
        return None
    uniques = np.fromiter(map(python_scalar, uniques[order]), dtype=object, count=len(order))
    return np.append(np.argsort(order), -1)[value], uniques


def _factorize_by_objects(blocks: list[np.ndarray], out: list[np.ndarray]) -> list[np.ndarray] | None:
    """Code object columns (``blocks`` of addresses, one row a column, read as one) by
    their distinct objects (:func:`_object_index`), writing the codes into ``out`` (one
    1-D array a column): return each column's distinct values in sorted order, or ``None``
    (as :func:`_code_from_samples`)."""
    distinct = _object_index(blocks, out)
    valued = None if distinct is None else _values_of(distinct)
    if valued is None:
        return None
    value, uniques = valued
    g, n_values = len(distinct), len(uniques)
    seen = np.array([np.bincount(column, minlength=g) > 0 for column in out])  # (column, object)
    columns, objects = np.nonzero(seen)
    present = np.zeros((len(out), n_values + 1), dtype=bool)  # a last slot: missing
    present[columns, value[objects]] = True
    present = present[:, :-1]  # each column's values
    rank = np.cumsum(present, axis=1) - 1
    own = np.where(value >= 0, np.take(rank, np.maximum(value, 0), axis=1), -1)  # (column, object) -> code
    for row, column in enumerate(out):  # object index -> code, in place (read before written)
        np.take(own[row], column, out=column, mode="clip")
    return [uniques[present[row]] for row in range(len(out))]


def _run_shape(n_rows: int, n: int) -> tuple[int, int]:
    """The shape of the buffers for runs of rows of ``n`` addresses: about ``_LOOKUP_CELLS``
    entries (at least one row, at most ``n_rows``)."""
    return min(max(1, _LOOKUP_CELLS // max(1, n)), n_rows), n


def _row_chunks(blocks: list[np.ndarray], step: int, buffer: np.ndarray):
    """``(start, rows)`` for consecutive runs of at most ``step`` rows of ``blocks`` (2-D
    arrays, or 1-D arrays of one row each) read as one: ``rows`` a view of one block, or,
    for a run across blocks, their rows copied into ``buffer`` (``(step, columns)``, the
    blocks' dtype)."""

    def joined(pending: list, size: int) -> np.ndarray:
        if len(pending) == 1 and pending[0].ndim == 2:
            return pending[0]
        if all(part.ndim == 1 for part in pending):  # rows: one copy into the flat buffer
            np.concatenate(pending, out=buffer[:size].reshape(-1))
            return buffer[:size]
        return np.concatenate([np.atleast_2d(part) for part in pending], out=buffer[:size])

    start, pending, size = 0, [], 0
    for block in blocks:
        if block.ndim == 1:
            pending.append(block)
            size += 1
        else:
            at = 0
            while at < len(block):
                part = block[at : at + step - size]
                pending.append(part)
                size, at = size + len(part), at + len(part)
                if size == step and at < len(block):
                    yield start, joined(pending, size)
                    start, pending, size = start + size, [], 0
        if size == step:
            yield start, joined(pending, size)
            start, pending, size = start + size, [], 0
    if pending:
        yield start, joined(pending, size)


def _sort_order(uniques: np.ndarray) -> np.ndarray:
    """The order that sorts distinct values (by type name and text when they do not compare)."""
    try:
        return np.asarray(np.argsort(uniques, kind="stable"), dtype=np.int64)
    except TypeError:
        key = [(type(v).__name__, str(v)) for v in uniques]
        return np.array(sorted(range(len(uniques)), key=key.__getitem__), dtype=np.int64)


def _sorted_factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`factorize` with the distinct values in sorted order and the codes in that order."""
    local, uniques = factorize(values)
    uniques = np.asarray(uniques, dtype=object)
    order = _sort_order(uniques)
    return np.append(np.argsort(order), -1)[local], uniques[order]


def _object_index(blocks: list[np.ndarray], out: list[np.ndarray]) -> np.ndarray | None:
    """The distinct addresses among the address ``blocks`` (2-D arrays, one row a column),
    with the index of each address among them written into ``out`` (one array a column);
    ``None`` (``out`` unwritten) when the rows hold more distinct objects than an eighth
    of their cells.

    Notes
    -----
    The distinct objects of the first rows are put in an :class:`_AddressTable`, where
    every address is then looked up; only the addresses it lacks are hashed
    (``pd.factorize``). A column of text holds a few objects many times over, and they
    nearly all appear in its first rows.
    """
    sample = pd.unique(np.concatenate([block[:, :_SAMPLE_ROWS].ravel() for block in blocks]))
    if len(sample) * 8 > sum(block[:, :_SAMPLE_ROWS].size for block in blocks):
        return None
    missed = [(k, out[k] < 0) for k in _AddressTable(sample).index_into(blocks, out)]
    if not missed:
        return sample
    rows = [row for block in blocks for row in block]
    local, more = pd.factorize(np.concatenate([rows[k][new] for k, new in missed]))
    if (len(sample) + len(more)) * 8 > sum(block.size for block in blocks):
        return None
    at = 0
    for k, new in missed:
        count = int(np.count_nonzero(new))
        out[k][new] = local[at : at + count] + len(sample)
        at += count
    return np.concatenate([sample, more])


class _AddressTable:
    """Positions of some distinct object addresses, found for many addresses at once.

    Parameters
    ----------
    distinct : ndarray of int
        Distinct object addresses (never 0).

    Notes
    -----
    Multiplicative (Fibonacci) hashing into ``2^b`` slots, eight times as many as
    addresses (at most ``2^16``), each slot holding the first address that hashes to it:
    a lookup is a few whole-array numpy operations (multiply, shift, two ``take``, a
    comparison), about half the cost of a hash table. An address whose slot another
    address took, and one that is not in ``distinct``, do not match their slot's address;
    :meth:`index_into` finds those by ``pd.Index.get_indexer``, :meth:`gather` reports
    their rows.
    """

    def __init__(self, distinct: np.ndarray) -> None:
        self.distinct = np.asarray(distinct, dtype=np.int64)
        self.bits = int(min(16, max(4, int(np.ceil(np.log2(max(len(self.distinct), 1) * 8))))))
        slots = self._slots(self.distinct)
        taken, first = np.unique(slots, return_index=True)
        self.slot_address = np.zeros(1 << self.bits, dtype=np.int64)  # 0: no object's address
        self.slot_index = np.full(1 << self.bits, -1, dtype=np.int64)
        self.slot_address[taken], self.slot_index[taken] = self.distinct[first], first
        self.collided = len(taken) < len(self.distinct)  # some address has no slot of its own
        self._index = None

    def _slots(self, addresses: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        slots = np.multiply(addresses.view(np.uint64), np.uint64(0x9E3779B97F4A7C15), out=out)  # modulo 2^64
        slots >>= np.uint64(64 - self.bits)
        return slots.view(np.int64)

    def _looked_up(self, blocks: list[np.ndarray], n_rows: int):
        """``(start, part, slot, other)`` for runs of rows of the address ``blocks`` (read
        as one array of ``n_rows`` rows, :func:`_row_chunks`): the addresses, their slots,
        and where an address is not its slot's; through buffers of about
        ``_LOOKUP_CELLS`` entries, reused from run to run (each run's arrays are valid until
        the next)."""
        shape = _run_shape(n_rows, blocks[0].shape[-1])
        slots = np.empty(shape, dtype=np.uint64)
        buffer, found, other = (
            np.empty(shape, dtype=np.intp),
            np.empty(shape, dtype=np.int64),
            np.empty(shape, dtype=bool),
        )
        for start, part in _row_chunks(blocks, shape[0], buffer):
            m = len(part)
            slot = self._slots(part, out=slots[:m])  # in range: no bounds to check
            np.not_equal(self.slot_address.take(slot, out=found[:m], mode="clip"), part, out=other[:m])
            yield start, part, slot, other[:m]

    def gather(
        self, blocks: list[np.ndarray], by_slot: np.ndarray, out: np.ndarray | list[np.ndarray], *, stop: bool = True
    ) -> list[int]:
        """Write ``by_slot[r, slot of address]`` into ``out[r][i]`` for the address in row
        ``r`` (a column), place ``i`` of the 2-D ``blocks`` read as one array (``out``: a
        2-D array, or one 1-D array a row); return the rows with an address that is not in
        its slot (those rows of ``out`` are not all written): the first such row only, and
        at once, when ``stop``."""
        shape = _run_shape(len(out), blocks[0].shape[-1])
        written = None if isinstance(out, np.ndarray) else np.empty(shape, dtype=np.int64)
        shift = np.empty(shape, dtype=np.int64)  # row i of a run: its slots from i << bits
        shift[...] = (np.arange(shape[0], dtype=np.int64) << self.bits)[:, None]  # (a whole-array add is faster)
        by_slot = np.ravel(by_slot)
        missed = []
        for start, part, slot, other in self._looked_up(blocks, len(out)):
            m = len(part)
            if other.any():
                missed.extend((start + np.flatnonzero(other.any(axis=1))).tolist())
                if stop:
                    return missed[:1]
            slot += shift[:m]
            target = out[start : start + m] if written is None else written[:m]
            by_slot[start << self.bits :].take(slot, out=target, mode="clip")
            if written is not None:
                for r in range(m):
                    out[start + r][...] = written[r]
        return missed

    def index(self, addresses: np.ndarray) -> np.ndarray:
        """Position of each address of ``addresses`` (``(columns, rows)``) in ``distinct``
        (-1 if absent), an array of the same shape."""
        index = np.empty(addresses.shape, dtype=np.int64)
        if addresses.size:
            rows = addresses.reshape(-1, addresses.shape[-1])
            self.index_into([rows], list(index.reshape(rows.shape)))
        return index

    def index_into(self, blocks: list[np.ndarray], out: list[np.ndarray]) -> list[int]:
        """Write the position in ``distinct`` of each address of ``blocks`` (2-D arrays of
        one row length, read as one) into ``out`` (one 1-D array a row; -1 if absent), a
        few rows at a time through buffers that stay in cache; return the rows with an
        absent address."""
        n_rows = sum(len(block) for block in blocks)
        index = np.empty(_run_shape(n_rows, blocks[0].shape[-1]), dtype=np.int64)
        absent = []
        for start, part, slot, other in self._looked_up(blocks, n_rows):
            m = len(part)
            self.slot_index.take(slot, out=index[:m], mode="clip")
            if other.any():  # an address not in the table, or one whose slot another took
                if not self.collided:
                    index[:m][other] = -1
                else:
                    if self._index is None:
                        self._index = pd.Index(self.distinct)
                    index[:m][other] = self._index.get_indexer(part[other])
                absent.extend((start + np.flatnonzero((index[:m] < 0).any(axis=1))).tolist())
            for r in range(m):
                out[start + r][...] = index[r]
        return absent


class _HeldObjects:
    """The state codes of objects an encoder has coded before, in each of its columns,
    found by the objects' addresses.

    Parameters
    ----------
    objects : ndarray of object
        The objects, held: while they are held, no other object can have their addresses.
    codes : ndarray of int, shape (n_columns, len(objects))
        The state of each object in each column: a code, ``UNKNOWN`` (no state), or
        ``_NOT_LOOKED_UP`` until a column holds that object.

    Notes
    -----
    Text columns read from a file or cast from categories hold a few objects many times
    over. Once their objects are held, coding a long text column is an address lookup
    (:class:`_AddressTable`) and a gather, with no hashing of values; a value's state is
    looked up once per object and column (``dict`` of the states), so the codes are those
    of the lookup by value. Only objects of immutable types (``str``, ``bytes``, numbers,
    ``None``, numpy scalars) are held: the state of a value that cannot change cannot
    change. At most ``_HELD_OBJECTS`` objects are held; past that, the objects of the
    newest call replace the others (and a call with more than that many is coded column by
    column, by distinct values, without holding them).
    """

    def __init__(self, objects: np.ndarray, codes: np.ndarray) -> None:
        self.objects, self.codes = objects, codes
        self.table = _AddressTable(_addresses(objects))

    @classmethod
    def empty(cls, n_columns: int) -> _HeldObjects:
        return cls(np.empty(0, dtype=object), np.empty((n_columns, 0), dtype=np.int64))

    def code(
        self, positions: np.ndarray, blocks: list[np.ndarray], lookups: list[dict], out: np.ndarray
    ) -> _HeldObjects:
        """Write the codes of the objects at the addresses of ``blocks`` (2-D, one row a
        column, read as one ``(columns, rows)`` array; the columns at ``positions``, their
        arrays held by the caller; ``lookups``: each column's ``value -> state``) into
        ``out``; return the holder to keep for the next call: this one, or one that also
        holds the new objects; ``None`` (``out`` not all written) when the call holds more
        distinct objects than ``_HELD_OBJECTS``."""
        rows = self.codes[positions]
        if 0 < rows.size <= _EAGER_LOOKUPS:  # states of every held object in these columns: one gather
            if (rows == _NOT_LOOKED_UP).any():
                rows = self._look_up(positions, lookups)
            if not self.table.gather(blocks, rows.take(self.table.slot_index, axis=1, mode="clip"), out):
                return self
        addresses = np.concatenate([np.atleast_2d(block) for block in blocks])  # (columns, rows)
        index = self.table.index(addresses)
        if index.min() >= 0:  # every object held
            self._gather(positions, index, lookups, out)
            return self
        new = pd.unique(addresses[index < 0])
        if len(self.objects) + len(new) <= _HELD_OBJECTS:
            new = _held(new)
            holdable = _holdable(new)
        else:
            holdable = False
        if holdable:
            holder = self._with(new)
        else:  # the objects of this call alone, kept if they can be
            objects = pd.unique(addresses.ravel())
            if len(objects) > _HELD_OBJECTS:  # too many for a state of each in every column
                return None
            holder = _HeldObjects.empty(self.codes.shape[0])._with(_held(objects))
            holdable = _holdable(holder.objects)
        holder._gather(positions, holder.table.index(addresses), lookups, out)
        return holder if holdable else self

    def _with(self, objects: np.ndarray) -> _HeldObjects:
        more = np.full((self.codes.shape[0], len(objects)), _NOT_LOOKED_UP, dtype=np.int64)
        return _HeldObjects(np.concatenate([self.objects, objects]), np.hstack([self.codes, more]))

    def _look_up(self, positions: np.ndarray, lookups: list[dict]) -> np.ndarray:
        """Look up the state of every held object in the columns at ``positions``; return
        those columns' rows of ``codes``."""
        rows = self.codes[positions]
        for row, k in zip(*np.nonzero(rows == _NOT_LOOKED_UP)):
            rows[row, k] = lookups[positions[row]].get(self.objects[k], UNKNOWN)
        self.codes[positions] = rows
        return rows

    def _gather(self, positions, index, lookups, out) -> None:
        g = len(self.objects)
        rows = self.codes[positions]
        if (rows == _NOT_LOOKED_UP).any() and rows.size <= _EAGER_LOOKUPS:
            self._look_up(positions, lookups)
        index += (positions * g)[:, None]  # (column, object)
        self.codes.take(index, out=out, mode="clip")  # in range: no bounds to check
        if rows.size > _EAGER_LOOKUPS and out.min() == _NOT_LOOKED_UP:  # the states these rows need, once each
            todo = out == _NOT_LOOKED_UP
            pairs = pd.unique(index[todo])
            flat = self.codes.reshape(-1)
            flat[pairs] = [lookups[column].get(self.objects[k], UNKNOWN) for column, k in zip(*divmod(pairs, g))]
            out[todo] = flat[index[todo]]


_IMMUTABLE = frozenset({str, bytes, int, float, complex, bool, type(None)})
"""Types of the objects :class:`_HeldObjects` holds (with numpy scalars)."""


def _holdable(objects: Iterable) -> bool:
    """Whether :class:`_HeldObjects` may hold all of ``objects`` (immutable values only)."""
    return all(type(o) in _IMMUTABLE or isinstance(o, np.generic) for o in objects)


_HELD_OBJECTS = 1 << 12
"""Most objects an encoder holds (:class:`_HeldObjects`)."""

_NOT_LOOKED_UP = -2
"""The state of a held object in a column that has not held it yet."""

_EAGER_LOOKUPS = 1 << 14
"""Up to this many (column, held object) pairs, a column's states are looked up for every
held object at once; beyond, only for the objects the column holds."""


def _by_identity(values: Any) -> bool:
    return (
        isinstance(values, np.ndarray) and values.dtype == object and values.ndim == 1 and values.size >= _IDENTITY_ROWS
    )


def _address_rows(values: np.ndarray) -> np.ndarray:
    """:func:`_addresses` of a 2-D block of object columns (one row a column), as one 1-D
    row when it has one contiguous row (for :func:`_row_chunks`)."""
    if len(values) == 1 and values.flags.c_contiguous and values.size:
        return _buffer_addresses(values)
    return _addresses(values)


def _addresses(values: np.ndarray) -> np.ndarray:
    """The object pointers of an object array, as integers of the same shape: a view of the
    array's own buffer (with its strides: a column of a row-major block is strided), which
    holds the array alive. Nothing is copied.

    Notes
    -----
    A contiguous array is read through the buffer protocol (``np.frombuffer``, whose view
    holds the array's buffer export): about 0.3 µs, against 2.5 µs through an array
    interface (:class:`_PointerView`), which matters for a frame of one block per column.
    """
    if values.size == 0:
        return np.empty(values.shape, dtype=np.intp)
    if values.flags.c_contiguous:
        return _buffer_addresses(values).reshape(values.shape)
    if values.flags.f_contiguous:
        return _buffer_addresses(values.T).reshape(values.T.shape).T
    if min(values.strides) < 0:  # a reversed view: read the buffer forwards
        if values.ndim == 1:
            return _addresses(values[::-1])[::-1]
        return np.stack([_addresses(row) for row in values])
    return np.asarray(_PointerView(values))


def _buffer_addresses(values: np.ndarray) -> np.ndarray:
    """The object pointers of a C-contiguous object array, flat, through the buffer
    protocol; through :class:`_PointerView` if a numpy refuses to export the buffer."""
    try:
        return np.frombuffer(values, dtype=np.intp)
    except (TypeError, ValueError, BufferError):  # pragma: no cover - numpy 2.4 exports object buffers
        return np.asarray(_PointerView(values)).reshape(-1)


class _PointerView:
    """The buffer of an object array seen as pointer-sized integers (``__array_interface__``),
    holding the array alive while a view of it lives."""

    __slots__ = ("__array_interface__", "values")

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.__array_interface__ = {
            "data": (values.__array_interface__["data"][0], True),
            "shape": values.shape,
            "strides": values.strides,
            "typestr": np.dtype(np.intp).str,
            "version": 3,
        }


def _held(addresses: np.ndarray) -> np.ndarray:
    """The objects at ``addresses`` (each held by an array the caller keeps alive)."""
    held = np.empty(len(addresses), dtype=object)
    for k, address in enumerate(addresses.tolist()):
        held[k] = ctypes.cast(address, ctypes.py_object).value
    return held


_IDENTITY_ROWS = 1024
"""Object columns of at least this many values are factorized by object identity first."""

_SAMPLE_ROWS = 64
"""Rows whose distinct objects give the text columns' values and codes at fit time (spread
over the rows, :func:`_code_from_samples`), or seed the address table of
:func:`_object_index` (the first rows)."""

_SLOT_CODES = 1 << 22
"""Most entries of the table of codes by (column, slot) that :func:`_code_from_samples` builds."""

_LOOKUP_CELLS = 1 << 15
"""Addresses looked up per step of :meth:`_AddressTable.index` (its buffers: 544 KiB, in cache)."""

_DENSE_RANGE = 1 << 16
"""Integer columns whose values span fewer than this many integers are coded through a
table indexed by value instead of a hash table."""

_CACHES = (
    "_lookup_dicts",
    "_category_maps",
    "_integer_tables",
    "_integer_block_tables",
    "_observed_index",
    "_held_objects",
    "_feature_index",
)
"""Lookup structures an encoder builds from its states on first use (not pickled)."""

_SMALL_ROWS = 256
"""Columns of at most this many rows are coded by a dict lookup per value, a Python step
per value, cheaper than a hash pass (``pd.factorize``) below a few hundred rows."""


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


def check_option(name: str, value: Any, options: Collection[Any]) -> None:
    """Raise a ValueError naming ``name`` unless ``value`` is one of ``options``."""
    if value not in options:
        raise ValueError(f"{name}={value!r} is not valid; choose one of {list(options)}.")


def _unique_missing_label(labels) -> str:
    label = MISSING_LABEL
    while label in labels:
        label = "<" + label + ">"
    return label


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
    values = as_target_vector(y, warn_column=True)
    if values.size == 0:
        raise ValueError("y is empty: no training rows were given (0 samples).")
    missing = np.asarray(pd.isna(values), dtype=bool)
    if missing.any():
        raise ValueError(
            f"y has {int(missing.sum())} missing labels (e.g. at row "
            f"{int(np.flatnonzero(missing)[0])}); drop those rows or fill them before fitting."
        )
    if values.dtype.kind == "f" and not np.all(values == np.round(values)):
        raise ValueError(
            "Unknown label type: y holds continuous values; a classifier needs class labels "
            "(use a regressor, or bin y first)."
        )
    codes, uniques = factorize(values)
    try:
        order = np.argsort(np.asarray(uniques), kind="stable")
    except TypeError:  # mixed label types (e.g. 1 and "a"): order by type name, then text
        keys = [(type(u).__name__, str(u)) for u in uniques]
        order = np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)
    classes = np.asarray(uniques)[order]
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
