"""The feature encoder: raw values to integer codes, learned once on the training data."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import repeat
from typing import Any

import numpy as np
import pandas as pd

from bnclf._params import check_option
from bnclf.encoding._columns import (
    _DENSE_RANGE,
    _category_codes,
    _column_values,
    _dense_integer_codes,
    _encode_arrow_text,
    _has_pyarrow,
    _hashable,
    _integer_ranges,
    _objects,
    _shifted_chunks,
    _sorted_codes,
    _sorted_factorize,
    dtype_labels,
)
from bnclf.encoding._frames import (
    MAX_INTEGER_CATEGORIES,
    MISSING_OPTIONS,
    UNKNOWN,
    UNKNOWN_OPTIONS,
    IdLikeColumnWarning,
    ManyValuedIntegerWarning,
    UnseenValuesWarning,
    _looks_continuous,
    _text,
    _unique_missing_label,
    as_frame,
    index_labels,
    python_scalar,
    shown_names,
)


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
    are read, not hashed. A frame's columns are read from pandas' storage, without a
    Series per column; a numpy array of numbers, booleans or objects is coded as it is,
    as the frame made of it would be, without building that frame.
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
        names = index_labels(X.columns)
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
        categories, missing_codes, own_states, locals_ = [], [], {}, []
        for j, (name, values) in enumerate(zip(names, columns)):
            dtype = values.dtype
            if isinstance(dtype, pd.CategoricalDtype):  # its codes, and its categories as the states (no map)
                labels = dtype_labels(dtype)
                if not labels:
                    raise ValueError(f"column {name!r} has no observed values; drop it.")
                local = values.codes  # -1: missing (int8 or int16: cast where written)
                own_states[j] = (dtype, None, labels, None)
                if keep_codes:
                    codes[:, j] = local
                locals_.append(local)
                categories.append(labels)
                continue
            kind = getattr(dtype, "kind", "O")  # numpy, masked and arrow dtypes: 'f' float, 'iu' integer
            if kind == "f" and _looks_continuous(values):
                raise ValueError(
                    f"column {name!r} looks continuous ({pd.unique(values[~pd.isna(values)]).size} distinct "
                    "float values); discretize it first, e.g. with bnclf.MDLDiscretizer in "
                    "make_pipeline(MDLDiscretizer(), TANClassifier()) (command line: "
                    "--discretize mdl), or cast it to a categorical dtype if its values are categories."
                )
            if j in arrow:
                local, labels = _sorted_codes(*arrow[j])
            elif j in dense:
                local, labels = None, dense[j]  # no missing value; its codes are written
            else:
                try:
                    local, labels = _sorted_factorize(values)
                except TypeError as exc:  # lists, dicts, sets: values that cannot be told apart
                    bad = next((v for v in values if not _hashable(v)), None)
                    raise ValueError(
                        f"column {name!r} holds {type(bad).__name__} values such as {bad!r}, which cannot be "
                        "categories; a cell must be a number, a text or a category: convert the column "
                        f"(e.g. X[{name!r}].astype(str)) or drop it."
                    ) from exc
            if kind in "iuf":
                self._warn_if_many_valued(name, len(labels))
            if not labels:
                raise ValueError(f"column {name!r} has no observed values; drop it.")
            if keep_codes and local is not None:
                codes[:, j] = local
            locals_.append(local)
            categories.append(labels)
        # the missing values: a state of their own, left out, or an error
        if keep_codes:  # the columns' least codes in one pass
            lowest = codes.min(axis=0).tolist() if n else [0] * len(names)
        else:
            lowest = [local.min() if local is not None and local.size else 0 for local in locals_]
        for j, (name, local, low) in enumerate(zip(names, locals_, lowest)):
            labels = categories[j]
            if low >= 0 and len(labels) < 50:  # no missing value, too few values to look like an id
                missing_codes.append(None)
                continue
            missing = local < 0 if low < 0 else None
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
                    categories[j] = labels + [_unique_missing_label(labels)]
                    if keep_codes:
                        codes[missing, j] = code
            missing_codes.append(code)
        self._set_states(names, categories, missing_codes)
        self._category_maps = own_states  # columns of this dtype (slices of X, a test split) map by identity
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
        identity check; the training frame's dtypes map to themselves from the fit on,
        and a dtype with the same categories in the same order reuses the map); every
        other column through its distinct values
        (``pd.factorize``, the text columns of the call together), each looked up once
        among the column's states (``Index.get_indexer``, Python equality); an
        integer column whose states are integers in a short range through a table
        indexed by value. A few rows are coded by a ``dict`` lookup per value (a category
        column's by its codes), which costs less than a hash table per call; the
        value-by-value and the vectorized coding give the same codes. The codes are
        column-major (``(n_samples, n_features)``, Fortran order).
        """
        if index_labels(X.columns) != self.feature_names_:
            X = X[self.feature_names_]
        return self._codes(X, training)

    def _codes(self, X: pd.DataFrame | np.ndarray, training: bool = False) -> np.ndarray:
        """:meth:`transform` of a frame whose columns are the fitted ones, in order, or of a
        2-D numpy array of as many columns: coded as the frame that
        :func:`~bnclf.encoding._frames.as_frame` makes of it, and, when its dtype is
        boolean, integer, float or object (one numpy block in that frame), read as it is,
        column by column, without building the frame."""
        if isinstance(X, np.ndarray) and not (type(X) is np.ndarray and X.ndim == 2 and X.dtype.kind in "biufO"):
            X = as_frame(X, self.feature_index)  # text, dates, a subclass: as pandas holds them
        if isinstance(X, np.ndarray):
            columns, block = None, X  # its columns are views, taken when needed
        else:
            maps = self.__dict__.get("_category_maps", {})
            # columns all categorical in training: no look at the dtypes for a one-block read
            columns, block = _column_values(X, one_block=len(maps) < len(self.feature_names_))
        try:
            return self._looked_up(columns, block, X.shape[0], training)
        except TypeError as exc:
            columns = list(block.T) if columns is None else columns
            for name, values in zip(self.feature_names_, columns):  # name the column of values that cannot be looked up
                bad = next((v for v in values if not _hashable(v)), None)
                if bad is not None:
                    raise ValueError(
                        f"column {name!r} holds {type(bad).__name__} values such as {bad!r}, which cannot be "
                        "categories; a cell must be a number, a text or a category: convert the column "
                        f"(e.g. X[{name!r}].astype(str)) or drop it."
                    ) from exc
            raise

    def _looked_up(self, columns: list | None, block: np.ndarray | None, n: int, training: bool) -> np.ndarray:
        """The codes of ``n`` rows given as the values of each column and, when they share a
        numpy dtype, as one ``(n, columns)`` block (:func:`_column_values`; ``columns`` None:
        the block's columns)."""
        by_column = np.empty((len(self.feature_names_), n), dtype=np.int64)  # row j: column j's codes
        if n == 0:
            return by_column.T
        if n <= _SMALL_ROWS:
            unknown = self._code_small(columns, block, by_column)
        else:
            columns = list(block.T) if columns is None else columns
            arrow = _encode_arrow_text(columns) if _has_pyarrow() else {}
            coded = self._code_integers(columns, by_column, block)
            for j, values in enumerate(columns):
                if j not in coded:
                    by_column[j] = self._column_codes(j, values, arrow.get(j))
            unknown = np.flatnonzero(by_column.min(axis=1) <= UNKNOWN).tolist()
        codes = by_column.T  # column-major, as the kernels read it
        for j in unknown:  # a value without a state
            values = block[:, j] if columns is None else columns[j]
            col = codes[:, j].copy()
            missing = np.asarray(pd.isna(values), dtype=bool)
            unseen = (col == UNKNOWN) & ~missing
            if unseen.any():
                if not training:
                    col = self._match_by_text(j, values, col, unseen)
                    unseen = (col == UNKNOWN) & ~missing
                    self._warn_if_mostly_unseen(j, values, unseen, missing)
                if unseen.any() and (training or self.handle_unknown == "error"):
                    examples = pd.unique(_objects(values)[unseen])[:5].tolist()
                    raise ValueError(
                        f"column {self.feature_names_[j]!r} has values never seen in training: {examples}; known "
                        f"values are {self.categories_[j][:10]}. Use handle_unknown='marginalize' "
                        "to sum them out, or refit on data that contains them."
                    )
            codes[:, j] = self._fill_missing(j, col, missing, training)
        return codes

    def _column_codes(self, j: int, values, factorized: tuple | None = None) -> np.ndarray:
        """The observed-state codes of one column's values, ``UNKNOWN`` where a value is
        missing or has no state (a category column's own codes, int8 or int16, when its
        categories are the fitted states: the caller writes them into its int64 array).
        ``factorized``: the column's ``(codes, distinct values)`` when the text columns were
        factorized together."""
        if isinstance(values.dtype, pd.CategoricalDtype):  # through its categories' map
            own = _category_codes(values)
            mapping = self._category_map(j, values.dtype)
            return own if mapping is None else mapping[own]  # -1 -> UNKNOWN
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

    def _code_small(self, columns: list | None, block: np.ndarray | None, by_column: np.ndarray) -> list[int]:
        """Write the codes of a few rows into ``by_column`` by a ``dict`` lookup per value
        (the rows of a one-block ``block`` as Python scalars, a row at a time; a category
        column by its codes, through the map of its categories) and return the positions of
        the columns with an ``UNKNOWN`` code. A value that cannot be hashed raises a
        TypeError."""
        lookups = self._lookups()
        if block is not None:
            rows = [list(map(dict.get, lookups, row, repeat(UNKNOWN))) for row in block.tolist()]
            by_column.T[:] = rows
            if not any(UNKNOWN in row for row in rows):
                return []
        else:
            flat, maps = [], self.__dict__.setdefault("_category_maps", {})  # column after column
            for j, values in enumerate(columns):
                dtype = values.dtype
                if isinstance(dtype, pd.CategoricalDtype):
                    own = _category_codes(values).tolist()
                    seen = maps.get(j)  # the map of the last dtype seen (_category_map), by identity
                    mapping = seen[3] if seen is not None and seen[0] is dtype else self._category_map(j, dtype, True)
                    flat += own if mapping is None else [mapping[c] for c in own]  # -1 -> UNKNOWN
                else:
                    flat += map(lookups[j].get, _objects(values).tolist(), repeat(UNKNOWN))
            by_column.reshape(-1)[:] = flat  # a view: by_column is C-ordered
            if UNKNOWN not in flat:
                return []
        return np.flatnonzero((by_column == UNKNOWN).any(axis=1)).tolist()

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

    def _category_map(self, j: int, dtype: pd.CategoricalDtype, listed: bool = False) -> np.ndarray | list | None:
        """Codes of ``dtype``'s categories in the fitted states, ``UNKNOWN`` appended (for
        the code -1 of a missing value), as an array (a list of Python integers when
        ``listed``); ``None`` when they are the fitted states.

        Kept for the last dtype of each column: the same dtype maps by identity, another
        whose categories are the same labels in the same order (another frame's equal dtype)
        reuses its map. Categories are compared as the lists of Python scalars the states
        are (Python equality, value by value: 2**53 + 1 is not 2.0**53), which costs a few
        microseconds where ``Index.equals`` costs 5 to 10 with pandas 3."""
        maps = self.__dict__.setdefault("_category_maps", {})
        seen = maps.get(j)
        if seen is not None and seen[0] is dtype:
            return seen[3] if listed else seen[1]
        labels = dtype_labels(dtype)
        if seen is not None and labels == seen[2]:
            mapping, mapped = seen[1], seen[3]
        elif labels == self._observed_of(j):
            mapping = mapped = None
        else:
            known = self._state_index(j)
            mapping = np.append(known.get_indexer(np.asarray(labels, dtype=object)), UNKNOWN).astype(np.int64)
            mapped = mapping.tolist()
        maps[j] = (dtype, mapping, labels, mapped)
        return mapped if listed else mapping

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

    def _match_by_text(self, j, values, col, unseen) -> np.ndarray:
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
        codes, distinct = pd.factorize(_objects(values)[unseen])
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

    def _warn_if_mostly_unseen(self, j, values, unseen, missing) -> None:
        observed = int((~missing).sum())
        if observed >= 10 and unseen.sum() >= 0.5 * observed:
            import warnings

            examples = pd.unique(_objects(values)[unseen])[:3].tolist()
            warnings.warn(
                f"column {self.feature_names_[j]!r}: {int(unseen.sum())} of {observed} values "
                f"were never seen in training (e.g. {examples}; known: "
                f"{self.categories_[j][:5]}); they are summed out, so the model answers "
                "without this column. Check that the column has the same type and coding as "
                "in training.",
                UnseenValuesWarning,
                stacklevel=4,
            )


_CACHES = ("_feature_index", "_state_indexes", "_integer_tables", "_category_maps", "_lookup_dicts")
"""Lookup structures an encoder builds on first use (never part of its state)."""


_DICT_LOOKUPS = 1 << 10
"""Columns with at most this many distinct values look them up in a ``dict``; more, in a
``pd.Index`` (one vectorized call)."""


_SMALL_ROWS = 64
"""Inputs of at most this many rows are coded by a ``dict`` lookup per value: below a few
dozen rows that costs less than building a hash table for the call."""
