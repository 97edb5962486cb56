"""Prediction over a Dask DataFrame: lazy, one call of the estimator per partition."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from bnclf.encoding._frames import python_scalar


def _predict_partition(part: pd.DataFrame, model: Any, method: str) -> pd.Series | pd.DataFrame:
    out = getattr(model, method)(part)
    if method == "predict":
        return pd.Series(out, index=part.index, name=model.class_name_)
    return pd.DataFrame(out, index=part.index, columns=[python_scalar(c) for c in model.classes_])


def predict_dask(model: Any, X: Any, method: str) -> Any:
    """``model.<method>(X)`` for a Dask DataFrame ``X``: lazy, one call per partition.

    ``method`` is ``"predict"`` (a Dask Series named ``class_name_``) or one of the
    ``predict_*proba`` methods (a Dask DataFrame with one column per class label).

    Raises
    ------
    NotFittedError
        Before ``fit``.
    TypeError
        When ``X`` is not a Dask DataFrame (a Dask array, say).
    """
    check_is_fitted(model, "classes_")
    if not (hasattr(X, "map_partitions") and hasattr(X, "columns")):
        raise TypeError(
            f"expected a Dask DataFrame, got {type(X).__name__}; a Dask array can be "
            "turned into one with dask.dataframe.from_dask_array."
        )
    if method == "predict":
        meta = pd.Series(np.array([], dtype=model.classes_.dtype), name=model.class_name_)
    else:
        columns = [python_scalar(c) for c in model.classes_]
        meta = pd.DataFrame(np.zeros((0, len(columns))), columns=columns)
    return X.map_partitions(_predict_partition, model, method, meta=meta)
