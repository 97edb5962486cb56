"""Prediction over a Dask DataFrame: lazy, one call of the estimator per partition."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnclf.encoding._frames import (
    python_scalar,
)


# -- prediction over Dask ------------------------------------------------------------------------
def _predict_partition(part: pd.DataFrame, model, method: str):
    out = getattr(model, method)(part)
    if method == "predict":
        return pd.Series(out, index=part.index, name=model.class_name_)
    return pd.DataFrame(out, index=part.index, columns=[python_scalar(c) for c in model.classes_])


def _predict_dask(model, X, method: str):
    """``model.<method>(X)`` for a Dask DataFrame: lazy, one call per partition."""
    from sklearn.utils.validation import check_is_fitted

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
