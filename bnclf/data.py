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

from collections.abc import Collection, Hashable, Iterable, Sequence
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

    Attributes
    ----------
    feature_names_ : list
        The columns, in code order.
    categories_ : list of list
        The state labels of every column in code order, ``"<missing>"`` last when
        training gave missing values a state.
    cardinalities_ : ndarray of int64
        The number of states of every column.
    missing_codes_ : list of int or None
        The code of each column's ``"<missing>"`` state, None when it has none.

    Notes
    -----
    When training produced a ``"<missing>"`` state, a missing value at predict
    time takes that state: the model has learned what missingness says about the
    class, and using it is consistent with how the model was trained.
    Categories of a pandas ``category`` column keep their declared order (ARFF
    headers, discretizer bins), including declared but unused ones; other
    columns use their sorted distinct values (by type name and text when the
    values do not compare).

    Values are matched by Python equality, as a ``dict`` would match them: ``2``,
    ``2.0`` and ``np.int64(2)`` name the same state. Coding uses pandas' own tools
    only: a categorical column's codes, ``pd.factorize`` (which encodes Arrow-backed
    text through Arrow's ``dictionary_encode``) and ``Index.get_indexer`` on each
    column's few distinct values; the text columns of a call are factorized
    together, in one pass. The categorical dtype is the fastest input: its codes
    are read, not hashed.
    """

    def __init__(self, missing: str = "category", handle_unknown: str = "marginalize") -> None:
        self.missing = missing
        self.handle_unknown = handle_unknown

    # -- the fitted state ------------------------------------------------------------------------
    @classmethod
    def from_states(
        cls,
        feature_names: Sequence[Hashable],
        labels: Sequence[Sequence[Any]],
        has_missing: Sequence[bool] | None = None,
        *,
        missing: str = "category",
        handle_unknown: str = "marginalize",
    ) -> FeatureEncoder:
        """The encoder that :meth:`fit` gives for columns with these observed ``labels``
        (in code order) and, per column, whether it had missing values.

        A column with missing values gets the ``"<missing>"`` state under
        ``missing="category"``; under ``"ignore"`` its missing values stay unknown.
        """
        check_option("missing", missing, MISSING_OPTIONS)
        check_option("handle_unknown", handle_unknown, UNKNOWN_OPTIONS)
        labels = [[python_scalar(v) for v in column] for column in labels]
        has_missing = [False] * len(labels) if has_missing is None else [bool(h) for h in has_missing]
        categories, codes = [], []
        for column, has in zip(labels, has_missing):
            if has and missing == "category":
                codes.append(len(column))
                column = column + [_unique_missing_label(column)]
            else:
                codes.append(None)
            categories.append(column)
        encoder = cls(missing, handle_unknown)
        encoder.__setstate__(
            {
                "missing": missing,
                "handle_unknown": handle_unknown,
                "feature_names_": list(feature_names),
                "categories_": categories,
                "missing_codes_": codes,
            }
        )
        return encoder

    def __getstate__(self) -> dict:
        """The fitted state: options, names, states and missing-state codes (the lookup
        tables built on use are left out)."""
        return {key: value for key, value in self.__dict__.items() if key not in _CACHES}

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        if "_missing_code" in state:  # pickled by an earlier bnclf
            state["missing_codes_"] = state.pop("_missing_code")
        for old in ("_labels", "_observed", "_observed_index"):
            state.pop(old, None)
        self.__dict__.update({k: v for k, v in state.items() if k not in _CACHES})
        if "categories_" in state:
            self._set_states(self.feature_names_, self.categories_, self.missing_codes_)
            self.check_states()

    def _set_states(self, names, categories, missing_codes) -> None:
        for cache in _CACHES:
            self.__dict__.pop(cache, None)
        self.feature_names_ = list(names)
        self.categories_ = [list(c) for c in categories]
        self.missing_codes_ = [None if c is None else int(c) for c in missing_codes]
        self.cardinalities_ = np.array([len(c) for c in self.categories_], dtype=np.int64)

    def check_states(self) -> None:
        """Raise a ValueError unless the fitted state is consistent: one list of states per
        column, each non-empty, without repeated states, and every ``"<missing>"`` state
        the last of its column (what a model file is checked against)."""
        names, categories, codes = self.feature_names_, self.categories_, self.missing_codes_
        if not (len(names) == len(categories) == len(codes)):
            raise ValueError(
                f"the encoder has {len(names)} feature names, {len(categories)} state lists and "
                f"{len(codes)} missing-state codes; they must be one per column."
            )
        if len(set(map(str, names))) != len(names):
            raise ValueError(f"feature names must be unique as text; got {shown_names(names)}.")
        for name, states, code in zip(names, categories, codes):
            if not states:
                raise ValueError(f"column {name!r} has no states.")
            if not pd.Index(states, dtype=object).is_unique:
                raise ValueError(f"column {name!r} has repeated states: {states[:10]}.")
            if code is not None and code != len(states) - 1:
                raise ValueError(f"column {name!r}: the missing-value state must be its last state, not {code}.")

    @property
    def observed_(self) -> list[list]:
        """The labels that raw values map to, per column (``categories_`` without the
        ``"<missing>"`` state)."""
        return [self._observed_of(j) for j in range(len(self.categories_))]

    def _observed_of(self, j: int) -> list:
        states, code = self.categories_[j], self.missing_codes_[j]
        return states if code is None else states[:code]

    @property
    def feature_index(self) -> pd.Index:
        """``feature_names_`` as a ``pd.Index`` (built on first use), to name frames by."""
        index = self.__dict__.get("_feature_index")
        if index is None:
            index = self._feature_index = pd.Index(self.feature_names_, dtype=object)
        return index

    # -- fitting ---------------------------------------------------------------------------------
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
        names = X.columns.tolist()
        if len(set(map(str, names))) != len(names):
            raise ValueError(f"Feature names must be unique as text; got {names}.")
        for cache in _CACHES:
            self.__dict__.pop(cache, None)
        n = X.shape[0]
        # column-major: each column is written, and counted from, as one contiguous block
        codes = np.empty((n, len(names)), dtype=np.int64, order="F") if keep_codes else None
        columns, block = _column_values(X)
        arrow = _encode_arrow_text(columns) if _has_pyarrow() else {}  # Arrow-backed text, in one pass
        dense = _dense_integer_codes(columns, block, codes)  # short-range integers: counted, codes written
        categories, missing_codes = [], []
        for j, (name, values) in enumerate(zip(names, columns)):
            kind = getattr(values.dtype, "kind", "O")  # numpy, masked and arrow dtypes: 'f' float, 'iu' integer
            if kind == "f" and _looks_continuous(values):
                raise ValueError(
                    f"column {name!r} looks continuous ({pd.unique(values[~pd.isna(values)]).size} distinct "
                    "float values); discretize it first, e.g. with bnclf.MDLDiscretizer in "
                    "make_pipeline(MDLDiscretizer(), TANClassifier()) (command line: "
                    "--discretize mdl), or cast it to a categorical dtype if its values are categories."
                )
            if isinstance(values.dtype, pd.CategoricalDtype):
                local = values.codes  # -1: missing (int8 or int16: cast where written)
                labels = [python_scalar(v) for v in values.categories.tolist()]
            elif j in arrow:
                local, labels = _sorted_codes(*arrow[j])
            elif j in dense:
                local, labels = None, dense[j]  # no missing value; its codes are written
            else:
                local, labels = _sorted_factorize(values)
            if kind in "iuf" and not isinstance(values.dtype, pd.CategoricalDtype):
                self._warn_if_many_valued(name, len(labels))
            if not labels:
                raise ValueError(f"column {name!r} has no observed values; drop it.")
            missing = None if local is None else local < 0
            n_missing = 0 if missing is None else int(np.count_nonzero(missing))
            self._warn_if_id_like(name, len(labels), n - n_missing)
            code = None
            if n_missing:
                if self.missing == "error":
                    raise ValueError(
                        f"column {name!r} has {n_missing} missing values and "
                        "missing='error'; use missing='category' (a state of its own) or "
                        "missing='ignore' (left out of the counts), or impute them first."
                    )
                if self.missing == "category":
                    code = len(labels)
                    labels = labels + [_unique_missing_label(labels)]
            missing_codes.append(code)
            categories.append(labels)
            if keep_codes and local is not None:
                codes[:, j] = local
                if code is not None:
                    codes[missing, j] = code
        self._set_states(names, categories, missing_codes)
        return codes

    @staticmethod
    def _warn_if_many_valued(name, n_values: int) -> None:
        if n_values <= MAX_INTEGER_CATEGORIES:
            return
        import warnings

        warnings.warn(
            f"column {name!r} is an integer column with {n_values} distinct "
            f"values (more than {MAX_INTEGER_CATEGORIES}); each value becomes a "
            "category. If it is a quantity, discretize it (MDLDiscretizer and "
            "QuantileDiscretizer bin such columns, e.g. make_pipeline(MDLDiscretizer(), "
            "TANClassifier()); command line: --discretize mdl); if its values are "
            "categories, cast it with .astype('category') to keep them and silence this warning.",
            ManyValuedIntegerWarning,
            stacklevel=5,
        )

    @staticmethod
    def _warn_if_id_like(name, n_values: int, n_known: int) -> None:
        if not (n_values >= 50 and n_values >= 0.9 * n_known):
            return
        import warnings

        every = "every row" if n_values == n_known else "nearly every row"
        warnings.warn(
            f"column {name!r} has a different value in {every} ({n_values} values in "
            f"{n_known} rows), like an identifier: it tells little about the class of a new "
            f"row and makes its count tables as large as the data; drop it (command line: --drop {name}).",
            IdLikeColumnWarning,
            stacklevel=5,
        )

    # -- coding ----------------------------------------------------------------------------------
    def transform(self, X: pd.DataFrame, *, training: bool = False) -> np.ndarray:
        """Integer codes of ``X``, ``UNKNOWN`` where a value has no state.

        With ``training=True`` unseen categories are an error (they cannot occur
        in the data the encoder was fitted on) and missing values keep
        ``UNKNOWN`` only under ``missing="ignore"``.

        Notes
        -----
        A category column is coded through the map from its dtype's categories to
        the states (kept for the last dtype seen, so slices of one frame map by an
        identity check); every other column through its distinct values
        (``pd.factorize``, the text columns of the call together), each looked up once
        among the column's states (``Index.get_indexer``, Python equality); an
        integer column whose states are integers in a short range through a table
        indexed by value. A few rows are coded by a ``dict`` lookup per value, which
        costs less than a hash table per call. The codes are column-major
        (``(n_samples, n_features)``, Fortran order).
        """
        if X.columns.tolist() != self.feature_names_:
            X = X[self.feature_names_]
        return self._codes(X, training)

    def _codes(self, X: pd.DataFrame, training: bool = False) -> np.ndarray:
        """:meth:`transform` of a frame whose columns are the fitted ones, in order."""
        n = X.shape[0]
        by_column = np.empty((len(self.feature_names_), n), dtype=np.int64)  # row j: column j's codes
        if n <= _SMALL_ROWS:
            self._code_small(X, by_column)
        else:
            columns, block = _column_values(X)
            arrow = _encode_arrow_text(columns) if _has_pyarrow() else {}
            coded = self._code_integers(columns, by_column, block)
            for j, values in enumerate(columns):
                if j not in coded:
                    by_column[j] = self._column_codes(j, values, arrow.get(j))
        codes = by_column.T  # column-major, as the kernels read it
        if n == 0:
            return codes
        for j in np.flatnonzero(by_column.min(axis=1) <= UNKNOWN).tolist():  # a value without a state
            column = X.iloc[:, j]
            col = codes[:, j].copy()
            missing = np.asarray(column.isna(), dtype=bool)
            unseen = (col == UNKNOWN) & ~missing
            if unseen.any():
                if not training:
                    col = self._match_by_text(j, column, col, unseen)
                    unseen = (col == UNKNOWN) & ~missing
                    self._warn_if_mostly_unseen(j, column, unseen, missing)
                if unseen.any() and (training or self.handle_unknown == "error"):
                    examples = pd.unique(column[unseen].astype(object))[:5].tolist()
                    raise ValueError(
                        f"column {self.feature_names_[j]!r} has values never seen in training: {examples}; known "
                        f"values are {self.categories_[j][:10]}. Use handle_unknown='marginalize' "
                        "to sum them out, or refit on data that contains them."
                    )
            codes[:, j] = self._fill_missing(j, col, missing, training)
        return codes

    def _column_codes(self, j: int, values, factorized: tuple | None = None) -> np.ndarray:
        """The observed-state codes of one column's values, ``UNKNOWN`` where a value is
        missing or has no state. ``factorized``: the column's ``(codes, distinct values)``
        when the text columns were factorized together."""
        if isinstance(values.dtype, pd.CategoricalDtype):
            own = values.codes
            mapping = self._category_map(j, values.dtype)
            return own.astype(np.int64) if mapping is None else mapping[own]  # -1 -> UNKNOWN
        local, uniques = factorized if factorized is not None else pd.factorize(values)
        uniques = uniques.tolist() if not isinstance(uniques, list) else uniques
        if len(uniques) <= _DICT_LOOKUPS:  # a few distinct values: a dict lookup each
            get = self._lookups()[j].get
            lookup = np.array([get(v, UNKNOWN) if _hashable(v) else UNKNOWN for v in uniques] + [UNKNOWN])
        else:
            lookup = np.append(self._state_index(j).get_indexer(np.asarray(uniques, dtype=object)), UNKNOWN)
        return lookup.take(local)  # local -1 (missing) -> UNKNOWN

    def _code_integers(self, columns: list, by_column: np.ndarray, block: np.ndarray | None = None) -> set[int]:
        """Write the codes of the numpy integer columns whose states are integers in a
        short range and whose values all lie in it into ``by_column``, a chunk of columns
        at a time by one gather from a table of all their codes indexed by value; return
        their positions."""
        positions, lows, highs = _integer_ranges(columns, block)
        chosen, chosen_lows, tables = [], [], []
        for j, low, high in zip(positions, lows, highs):
            table = self._integer_table(j)
            # every value inside the table, compared as Python integers: exact at the ends of every type
            if table is not None and table[0] <= low and high < table[0] + len(table[1]):
                chosen.append(j)
                chosen_lows.append(table[0])
                tables.append(table[1])
        if not chosen:
            return set()
        sizes = np.array([len(t) for t in tables], dtype=np.int64)
        table = np.concatenate(tables)
        for start, rows in _shifted_chunks(columns, chosen, chosen_lows, np.cumsum(sizes) - sizes):
            targets = chosen[start : start + len(rows)]
            if targets == list(range(targets[0], targets[0] + len(targets))):
                table.take(rows, out=by_column[targets[0] : targets[0] + len(targets)])
            else:
                by_column[targets] = table.take(rows)
        return set(chosen)

    def _code_small(self, X: pd.DataFrame, by_column: np.ndarray) -> None:
        """Codes of a few rows: a ``dict`` lookup per value (category columns by their codes;
        one or two rows read row by row, which costs pandas less than a Series per column)."""
        lookups = self._lookups()
        if X.shape[0] <= _ROW_BY_ROW:
            for i in range(X.shape[0]):
                for j, v in enumerate(X.iloc[i].to_numpy().tolist()):
                    by_column[j, i] = lookups[j].get(v, UNKNOWN) if _hashable(v) else UNKNOWN
            return
        for j, (_, column) in enumerate(_positional(X).items()):
            values = column.array
            if isinstance(values.dtype, pd.CategoricalDtype):
                by_column[j] = self._column_codes(j, values)
                continue
            get = lookups[j].get
            items = column.to_numpy(dtype=object)
            by_column[j] = [get(v, UNKNOWN) if _hashable(v) else UNKNOWN for v in items.tolist()]

    def _state_index(self, j: int) -> pd.Index:
        """The observed states of column ``j`` as an object ``pd.Index`` (built on first use)."""
        indexes = self.__dict__.setdefault("_state_indexes", {})
        index = indexes.get(j)
        if index is None:
            index = indexes[j] = pd.Index(self._observed_of(j), dtype=object)
        return index

    def _integer_table(self, j: int) -> tuple[int, np.ndarray] | None:
        """``(low, codes)`` with ``codes[v - low]`` the state of integer value ``v``
        (``UNKNOWN`` if none), when every observed label of column ``j`` is an integer
        within a range of at most ``_DENSE_RANGE``; else ``None``."""
        tables = self.__dict__.setdefault("_integer_tables", {})
        if j not in tables:
            labels = self._observed_of(j)
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
        known = self._state_index(j)
        if dtype.categories.equals(known):
            mapping = None
        else:
            mapping = np.append(known.get_indexer(np.asarray(dtype.categories, dtype=object)), UNKNOWN).astype(np.int64)
        maps[j] = (dtype, mapping)
        return mapping

    def _lookups(self) -> list[dict]:
        """``value -> code`` of every column's observed labels (built on first use)."""
        lookups = self.__dict__.get("_lookup_dicts")
        if lookups is None:
            lookups = self._lookup_dicts = [{v: k for k, v in enumerate(labels)} for labels in self.observed_]
        return lookups

    def _fill_missing(self, j, col, missing, training) -> np.ndarray:
        """Missing values take the ``"<missing>"`` state, stay unknown, or are refused."""
        if missing.any():
            if self.missing_codes_[j] is not None:
                col[missing] = self.missing_codes_[j]
            elif not training and self.handle_unknown == "error":
                raise ValueError(
                    f"column {self.feature_names_[j]!r} has {int(missing.sum())} missing "
                    "values, which the model has no state for, and handle_unknown='error'; "
                    "use handle_unknown='marginalize' to sum them out exactly."
                )
        return col

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
        labels = self._observed_of(j)
        texts = pd.Index([_text(v) for v in labels])
        codes, distinct = pd.factorize(column.to_numpy(dtype=object)[unseen])
        if not texts.is_unique:  # e.g. both 1 and '1' are states: a value with that text is ambiguous
            shared = set(texts[texts.duplicated(keep=False)])
            clash = [v for v in distinct if _text(v) in shared]
            if clash:
                states = [s for s in labels if _text(s) == _text(clash[0])]
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


_PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3

_CACHES = ("_feature_index", "_state_indexes", "_integer_tables", "_category_maps", "_lookup_dicts")
"""Lookup structures an encoder builds on first use (never part of its state)."""

_DICT_LOOKUPS = 1 << 10
"""Columns with at most this many distinct values look them up in a ``dict``; more, in a
``pd.Index`` (one vectorized call)."""

_DENSE_RANGE = 1 << 16
"""Largest span of an integer column's states that is coded through a table by value."""

_CHUNK_CELLS = 1 << 16
"""Cells of the buffer integer columns are coded through, a few columns at a time (512 KiB:
it stays in cache, and no call makes temporaries the size of the data)."""

_SMALL_ROWS = 64
"""Frames of at most this many rows are coded by a ``dict`` lookup per value: below a few
dozen rows that costs less than building a hash table for the call."""

_ROW_BY_ROW = 2
"""Frames of at most this many rows are read a row at a time (``DataFrame.iloc[i]``)."""


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _column_values(frame: pd.DataFrame) -> tuple[list, np.ndarray | None]:
    """``(columns, block)``: the values of every column of ``frame``, in order (a numpy
    array for columns that numpy holds: object, integer, float, bool; else the pandas
    extension array: categorical, nullable, string and Arrow-backed columns), and the
    whole frame as one ``(rows, columns)`` numpy array when its columns share one numpy
    dtype (else None).

    Notes
    -----
    A frame whose columns share one numpy dtype is read with one ``to_numpy()`` call;
    other frames column by column (``DataFrame.items``, which builds a Series per
    column: about 1 µs with pandas 2, 8 to 20 µs with pandas 3).
    """
    dtypes = frame.dtypes.tolist()
    first = dtypes[0] if dtypes else None
    if isinstance(first, np.dtype) and first.kind in "biufO" and all(d == first for d in dtypes):
        block = frame.to_numpy()
        return list(block.T), block
    out = []
    for _, column in _positional(frame).items():
        values = column.array
        out.append(column.to_numpy() if isinstance(values, pd.arrays.NumpyExtensionArray) else values)
    return out, None


def _positional(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` to read column by column: with pandas 3, a view (copy-on-write) named by
    position and without attrs, since pandas 3 boxes each column's name anew (an
    Arrow-backed text name costs about 10 µs) and deep-copies the attrs into every Series
    it builds; with pandas 2, ``frame`` itself."""
    if _PANDAS_3 and (frame.attrs or not isinstance(frame.columns, pd.RangeIndex)):
        frame = frame.set_axis(pd.RangeIndex(frame.shape[1]), axis=1)
        frame.attrs = {}
    return frame


def _integer_ranges(columns: list, block: np.ndarray | None) -> tuple[list[int], list[int], list[int]]:
    """``(positions, lows, highs)`` of the numpy integer columns among ``columns`` whose
    values fit int64: each column's least and greatest value, as Python integers (the
    columns of a 2-D ``block`` reduced in one call each; a uint64 column past int64 is
    left out)."""
    positions = [j for j, v in enumerate(columns) if isinstance(v, np.ndarray) and v.dtype.kind in "iu" and v.size]
    if not positions:
        return [], [], []
    if block is not None and len(positions) == block.shape[1]:
        lows, highs = block.min(axis=0).tolist(), block.max(axis=0).tolist()
    else:
        lows = [columns[j].min().item() for j in positions]
        highs = [columns[j].max().item() for j in positions]
    keep = [k for k, high in enumerate(highs) if high < 2**63]
    return [positions[k] for k in keep], [lows[k] for k in keep], [highs[k] for k in keep]


def _columns_per_chunk(n_rows: int) -> int:
    """Columns of ``n_rows`` values in a buffer of about ``_CHUNK_CELLS`` cells."""
    return max(1, _CHUNK_CELLS // max(1, n_rows))


def _shifted_chunks(columns: list, positions: list[int], lows: list[int], offsets: np.ndarray):
    """``(start, rows)`` over the integer columns at ``positions``, a few at a time: ``rows``
    holds each column's values minus its ``low`` plus its offset, in one int64 buffer of
    about ``_CHUNK_CELLS`` cells reused from chunk to chunk (no temporary the size of the
    data). Exact: every value lies within its column's span, which the offsets place."""
    n = len(columns[positions[0]])
    step = _columns_per_chunk(n)
    buffer = np.empty((min(step, len(positions)), n), dtype=np.int64)
    lows, offsets = np.array(lows, dtype=np.int64), np.asarray(offsets, dtype=np.int64)
    for start in range(0, len(positions), step):
        chunk = positions[start : start + step]
        rows = buffer[: len(chunk)]
        for r, j in enumerate(chunk):
            rows[r] = columns[j]
        rows -= lows[start : start + len(chunk), None]
        rows += offsets[start : start + len(chunk), None]
        yield start, rows


def _dense_integer_codes(
    columns: list, block: np.ndarray | None = None, out: np.ndarray | None = None
) -> dict[int, list]:
    """``{position: labels}`` of the numpy integer columns whose values span at most
    ``_DENSE_RANGE``: their sorted distinct values, found by counting (one ``np.bincount``
    over a chunk of columns, each column's values shifted into a segment of its own)
    instead of hashing; each column's codes are written into column ``position`` of
    ``out`` (``(rows, columns)``, column-major) when it is given."""
    positions, lows, highs = _integer_ranges(columns, block)
    narrow = [k for k in range(len(positions)) if highs[k] - lows[k] < _DENSE_RANGE]
    if not narrow:
        return {}
    positions, lows = [positions[k] for k in narrow], [lows[k] for k in narrow]
    span = np.array([highs[k] - lows[i] + 1 for i, k in enumerate(narrow)], dtype=np.int64)
    labels = {}
    step = _columns_per_chunk(len(columns[positions[0]]))
    # within a chunk, each column's segment starts where the previous column's ends
    starts = np.concatenate([np.cumsum(span[i : i + step]) - span[i : i + step] for i in range(0, len(span), step)])
    for start, rows in _shifted_chunks(columns, positions, lows, starts):
        sizes = span[start : start + len(rows)]
        segments = np.cumsum(sizes) - sizes
        present = np.bincount(rows.ravel(), minlength=int(sizes.sum())) > 0
        rank = np.cumsum(present) - 1  # the code of a value: present values before it in its segment
        rank -= np.repeat(rank[segments] + 1 - present[segments], sizes)  # ... in its own segment
        for r, (first, size) in enumerate(zip(segments.tolist(), sizes.tolist())):
            j = positions[start + r]
            labels[j] = [int(v) + lows[start + r] for v in np.flatnonzero(present[first : first + size]).tolist()]
            if out is not None:
                rank.take(rows[r], out=out[:, j])
    return labels


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


def _encode_arrow_text(columns: list) -> dict[int, tuple[np.ndarray, list]]:
    """``{position: (codes, values)}`` of the Arrow-backed text columns among ``columns``,
    all encoded by one Arrow ``dictionary_encode``: ``values`` are the distinct texts of
    all of them (a list), ``codes`` index them, -1 where a value is missing."""
    positions = [j for j, values in enumerate(columns) if _is_arrow_text(values)]
    if not positions:
        return {}
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = []
    for j in positions:
        array = pa.array(columns[j])  # through the array's __arrow_array__: no copy
        for chunk in array.chunks if isinstance(array, pa.ChunkedArray) else [array]:
            chunks.append(chunk.cast(pa.large_string()) if not pa.types.is_large_string(chunk.type) else chunk)
    encoded = pc.dictionary_encode(pa.chunked_array(chunks, type=pa.large_string()).combine_chunks())
    local = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    distinct = encoded.dictionary.to_pylist()
    n = len(columns[positions[0]])
    return {j: (local[k * n : (k + 1) * n], distinct) for k, j in enumerate(positions)}


def _sorted_codes(local: np.ndarray, distinct) -> tuple[np.ndarray, list]:
    """The codes and labels of :func:`_sorted_factorize` from codes ``local`` into the
    ``distinct`` values of one or more columns (-1: missing): the values this column
    holds, sorted, and each row's index among them."""
    objects = np.asarray(distinct, dtype=object)
    present = np.flatnonzero(np.bincount(local[local >= 0], minlength=len(objects)))
    order = _sort_order(objects[present])
    rank = np.full(len(objects) + 1, -1, dtype=np.int64)  # the last: a missing value
    rank[present[order]] = np.arange(len(present))
    return rank.take(local), [python_scalar(v) for v in objects[present[order]]]


def _sorted_factorize(values) -> tuple[np.ndarray, list]:
    """``(codes, labels)``: a column's distinct values in sorted order (by type name and
    text when they do not compare) as Python scalars, and each value's index among them
    (-1 where missing)."""
    local, uniques = pd.factorize(values)
    return _sorted_codes(local, uniques)


def _sort_order(uniques: np.ndarray) -> np.ndarray:
    """The order that sorts distinct values (by type name and text when they do not compare)."""
    try:
        return np.asarray(np.argsort(uniques, kind="stable"), dtype=np.int64)
    except TypeError:
        key = [(type(v).__name__, str(v)) for v in uniques]
        return np.array(sorted(range(len(uniques)), key=key.__getitem__), dtype=np.int64)


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def factorize(values: Any) -> tuple[np.ndarray, Any]:
    """``pd.factorize(values)``: codes in order of first appearance (-1 for a missing
    value) and the distinct values."""
    return pd.factorize(values)


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
