"""Predictions of a fitted estimator: the predict methods, and the check and coding of their rows.

:class:`Predictions` is the part of :class:`bnclf.models.BayesNetClassifier` that answers
``predict``, ``predict_proba``, ``predict_log_proba`` and ``predict_joint_log_proba``:
each checks the columns of ``X`` against the fitted ones (:func:`check_predict_frame`),
codes the rows with the fitted encoder, and finishes ``_joint_log_likelihood``, the one
method a subclass overrides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import as_frame, index_labels, missing_columns_keyword, shown_names
from bnclf.inference._kernels import log_posterior
from bnclf.models._dask import predict_dask
from bnclf.models._sources import is_dask

if TYPE_CHECKING:
    import dask.dataframe as dd


PREDICT_ROWS = 1 << 16
"""Rows encoded and scored at a time by the predict methods."""


class Predictions:
    """The predict methods, all derived from ``_joint_log_likelihood(codes)``.

    Reads the fitted encoder (``_encoder``), ``n_features_in_``, ``classes_`` and, when
    ``fit`` saw string column names, ``feature_names_in_``.
    """

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x)`` for coded rows: array ``(n_samples, n_classes)``."""
        return self.network_.joint_log_likelihood(codes)

    @missing_columns_keyword
    def predict_joint_log_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray | dd.DataFrame:
        """Joint log-probabilities ``log P(c, x)`` (unnormalized log posteriors).

        A Dask DataFrame gives a lazy Dask DataFrame, one column per class (as for
        :meth:`predict_proba`).
        """
        if is_dask(X):
            return predict_dask(self, X, "predict_joint_log_proba")
        return self._predict_rows(X, _identity)

    @missing_columns_keyword
    def predict_log_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray | dd.DataFrame:
        """Log posteriors ``log P(c | x)``, columns in the order of ``classes_``.

        A Dask DataFrame gives a lazy Dask DataFrame, one column per class.
        """
        if is_dask(X):
            return predict_dask(self, X, "predict_log_proba")
        return self._predict_rows(X, log_posterior)

    @missing_columns_keyword
    def predict_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray | dd.DataFrame:
        """Posteriors ``P(c | x)``, columns in the order of ``classes_``.

        A Dask DataFrame gives a lazy Dask DataFrame with one column per class (named by
        the class labels), computed partition by partition (``map_partitions``).
        """
        if is_dask(X):
            return predict_dask(self, X, "predict_proba")
        return self._predict_rows(X, _posterior)

    @missing_columns_keyword
    def predict(self, X: ArrayLike | pd.DataFrame) -> np.ndarray | dd.Series:
        """Most probable class (the lowest class index on exact ties).

        A Dask DataFrame gives a lazy Dask Series (named ``class_name_``), computed
        partition by partition (``map_partitions``).
        """
        if is_dask(X):
            return predict_dask(self, X, "predict")
        return self._predict_rows(X, lambda jll: self.classes_[np.argmax(jll, axis=1)])

    def _predict_rows(self, X: Any, finish: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``finish(log P(c, x))`` of the rows of ``X``, encoded and scored
        :data:`PREDICT_ROWS` rows at a time into one preallocated result, so the codes and
        the kernel's temporaries stay a few MiB however many rows are predicted."""
        if not hasattr(self, "classes_"):  # scikit-learn's check and message, where it fails
            check_is_fitted(self, "classes_")
        if type(X) is np.ndarray and X.ndim == 2 and X.shape[1] == self.n_features_in_:
            rows = X  # coded column by column, as the frame that _check_predict_frame makes of it
        else:
            rows = self._check_predict_frame(X)
        n = rows.shape[0]
        if n <= PREDICT_ROWS:
            return finish(self._joint_log_likelihood(self._encoder.codes(rows)))
        out = None
        for start in range(0, n, PREDICT_ROWS):
            chunk = slice(start, start + PREDICT_ROWS)
            codes = self._encoder.codes(rows[chunk] if isinstance(rows, np.ndarray) else rows.iloc[chunk])
            part = finish(self._joint_log_likelihood(codes))
            if out is None:
                out = np.empty((n,) + part.shape[1:], dtype=part.dtype)
            out[start : start + part.shape[0]] = part
        return out

    def _encode(self, X: Any) -> np.ndarray:
        """The codes of the rows of ``X`` after :meth:`_check_predict_frame`."""
        check_is_fitted(self, "classes_")
        frame = self._check_predict_frame(X)
        return self._encoder.codes(frame)

    def _check_predict_frame(self, X: Any) -> pd.DataFrame:
        """``X`` as a DataFrame with the fitted columns (see :func:`check_predict_frame`)."""
        return check_predict_frame(
            X, self._encoder, self.n_features_in_, type(self).__name__, hasattr(self, "feature_names_in_")
        )


def check_predict_frame(X: Any, encoder: FeatureEncoder, n_features_in: int, who: str, named: bool) -> pd.DataFrame:
    """``X`` as a DataFrame whose columns are the encoder's, in its order.

    A DataFrame with the fitted columns in order is returned as it is; ``named`` (``fit``
    saw string column names) requires the same names, else a DataFrame's columns are
    selected by name when they are the same set, or renamed by position. An array gets
    the fitted names. ``who`` names the estimator in messages.

    Raises
    ------
    ValueError
        For another number of columns, or, when ``named``, other names or another order
        (the message names the missing and unexpected ones).
    """
    names = encoder.feature_names_
    if isinstance(X, pd.DataFrame):
        if X.shape[1] != n_features_in:
            raise ValueError(_count_message(X.shape[1], who, n_features_in, names))
        columns = index_labels(X.columns)  # once: pandas 3 boxes each name of a text index anew
        if columns == names:
            return X
        if named:
            missing = [c for c in names if c not in X.columns]
            extra = [c for c in X.columns if c not in names]
            raise ValueError(
                "The feature names should match those that were passed during fit: "
                f"missing {missing}, unexpected {extra}"
                + ("" if missing or extra else ", same names in another order")
                + "; select them with X[model.feature_names_in_]."
            )
        if set(columns) == set(names):  # non-string names, same set: select by name
            return X[names]
        return X.set_axis(names, axis=1)
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[1] == n_features_in:
        return as_frame(X, encoder.feature_index)  # named as fitted, no renaming
    frame = as_frame(X)
    if frame.shape[1] != n_features_in:
        raise ValueError(_count_message(frame.shape[1], who, n_features_in, names))
    frame.columns = names
    return frame


def _count_message(got: int, who: str, n_features_in: int, names: list) -> str:
    return (
        f"X has {got} features, but {who} is expecting "
        f"{n_features_in} features as input. Pass the columns it was fitted on, "
        f"model.feature_names_in_ = {shown_names(names)}."
    )


def _identity(jll: np.ndarray) -> np.ndarray:
    return jll


def _posterior(jll: np.ndarray) -> np.ndarray:
    return np.exp(log_posterior(jll))
