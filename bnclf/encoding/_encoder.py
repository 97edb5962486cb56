"""The feature encoder: raw values to integer codes, learned once on the training data."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bnclf._params import check_option
from bnclf.encoding._columns import _column_values, _hashable
from bnclf.encoding._frames import (
    MISSING_OPTIONS,
    UNKNOWN,
    UNKNOWN_OPTIONS,
    as_frame,
    index_labels,
)
from bnclf.encoding._learn_states import check_states, given_states, learn_states
from bnclf.encoding._state_coder import StateCoder
from bnclf.encoding._unknown_values import fill_missing, match_by_text, refuse_unseen, warn_if_mostly_unseen


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
    together, in one pass. A categorical column's codes are read, not hashed. A
    frame's columns are read from pandas' storage, without a Series per column; a
    numpy array of numbers, booleans or objects is coded as it is, as the frame made
    of it would be, without building that frame.
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
        categories, codes = given_states(labels, has_missing, missing)
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
        self.__dict__.update({k: v for k, v in state.items() if k not in _CACHES and k not in _OLD_CACHES})
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
        check_states(self.feature_names_, self.categories_, self.missing_codes_)

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
        """Learn the states of every column of ``X`` (:func:`~bnclf.encoding._learn_states.learn_states`:
        its errors and warnings) and return the encoder."""
        self._fit(X, keep_codes=False)
        return self

    def fit_transform(self, X: pd.DataFrame) -> np.ndarray:
        """Fit on ``X`` and return its training codes (``transform(X, training=True)``),
        reading every column once: the codes come from the pass that finds the states."""
        return self._fit(X, keep_codes=True)

    def _fit(self, X: pd.DataFrame, keep_codes: bool) -> np.ndarray | None:
        check_option("missing", self.missing, MISSING_OPTIONS)
        check_option("handle_unknown", self.handle_unknown, UNKNOWN_OPTIONS)
        for cache in _CACHES:
            self.__dict__.pop(cache, None)
        learned = learn_states(X, self.missing, keep_codes)
        self._set_states(learned.names, learned.categories, learned.missing_codes)
        # columns of the training dtypes (slices of X, a test split) map to the states by identity
        self._coder = StateCoder(self.observed_, learned.category_maps)
        return learned.codes

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
        return self.codes(X, training)

    def codes(self, X: pd.DataFrame | np.ndarray, training: bool = False) -> np.ndarray:
        """The codes of rows whose columns are the fitted ones, in order (what
        :meth:`transform` gives once it has selected the columns by name).

        Parameters
        ----------
        X : DataFrame or ndarray of shape (n_samples, n_features)
            A frame whose columns are ``feature_names_`` in order (not checked: they are
            read by position), or a 2-D numpy array of as many columns, coded exactly as
            the frame that :func:`~bnclf.encoding._frames.as_frame` makes of it.
        training : bool, default=False
            As in :meth:`transform`: a value never seen in training is an error, and a
            missing value stays ``UNKNOWN`` only under ``missing="ignore"``.

        Returns
        -------
        ndarray of int64, shape (n_samples, n_features), column-major
            Each value's state code; ``UNKNOWN`` (-1) where a value is missing and has no
            state, or was never seen in training and ``handle_unknown="marginalize"``.

        Raises
        ------
        ValueError
            A value that cannot be hashed (a list, a dict; the message names its column);
            a value never seen in training, when ``training`` or under
            ``handle_unknown="error"``; otherwise (not ``training``), a value whose text
            matches several states, and, under ``handle_unknown="error"``, a missing value
            in a column without a ``"<missing>"`` state.

        Warns
        -----
        UnseenValuesWarning
            Most of a column's values (at least 10 observed) were never seen in training.

        Notes
        -----
        A numpy array of booleans, integers, floats or objects (one numpy block in that
        frame) is read as it is, column by column, without building the frame.
        """
        if isinstance(X, np.ndarray) and not (type(X) is np.ndarray and X.ndim == 2 and X.dtype.kind in "biufO"):
            X = as_frame(X, self.feature_index)  # text, dates, a subclass: as pandas holds them
        if isinstance(X, np.ndarray):
            columns, block = None, X  # its columns are views, taken when needed
        else:
            maps = self._state_coder().category_maps
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

    def _state_coder(self) -> StateCoder:
        """The lookup structures of the fitted states (built on first use; never pickled)."""
        coder = self.__dict__.get("_coder")
        if coder is None:
            coder = self._coder = StateCoder(self.observed_)
        return coder

    def _looked_up(self, columns: list | None, block: np.ndarray | None, n: int, training: bool) -> np.ndarray:
        """The codes of ``n`` rows given as the values of each column and, when they share a
        numpy dtype, as one ``(n, columns)`` block (:func:`_column_values`; ``columns`` None:
        the block's columns): the coder's, then the decision on each value without a state."""
        by_column, unknown = self._state_coder().code(columns, block, n)  # row j: column j's codes
        codes = by_column.T  # column-major, as the kernels read it
        for j in unknown:  # a value without a state
            values = block[:, j] if columns is None else columns[j]
            name, col = self.feature_names_[j], codes[:, j].copy()
            missing = np.asarray(pd.isna(values), dtype=bool)
            unseen = (col == UNKNOWN) & ~missing
            if unseen.any():
                if not training:
                    col = self._match_by_text(j, values, col, unseen)
                    unseen = (col == UNKNOWN) & ~missing
                    warn_if_mostly_unseen(name, self.categories_[j], values, unseen, missing)
                if unseen.any() and (training or self.handle_unknown == "error"):
                    refuse_unseen(name, self.categories_[j], values, unseen)
            refuse = not training and self.handle_unknown == "error"
            codes[:, j] = fill_missing(name, self.missing_codes_[j], col, missing, refuse)
        return codes

    def _match_by_text(self, j: int, values, col: np.ndarray, unseen: np.ndarray) -> np.ndarray:
        """:func:`~bnclf.encoding._unknown_values.match_by_text` for column ``j``."""
        return match_by_text(self.feature_names_[j], self._observed_of(j), values, col, unseen)


_CACHES = ("_feature_index", "_coder")
"""Lookup structures an encoder builds on first use (never part of its state)."""

_OLD_CACHES = ("_state_indexes", "_integer_tables", "_category_maps", "_lookup_dicts")
"""The lookup structures of earlier bnclf versions, dropped from a state that holds them."""
