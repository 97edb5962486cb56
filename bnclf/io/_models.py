"""Saving and loading fitted models: the safe model file by default, pickles for trusted use."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING

from bnclf._params import check_option
from bnclf._version import __version__

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


# -- estimator persistence ---------------------------------------------------------
def save_model(estimator: BaseEstimator, path: str | os.PathLike, *, format: str = "safe") -> Path:
    """Write a fitted estimator (or a pipeline of bnclf discretizers ending in one).

    Parameters
    ----------
    estimator : fitted bnclf classifier or Pipeline
    path : path-like
    format : {"safe", "pickle"}, default="safe"
        ``"safe"``: the model's parameters as JSON and ``.npy`` arrays in a zip archive
        (:mod:`bnclf.io`): networks, weights, encoder states, cut points and the
        count tables ``partial_fit`` needs, no training rows (except for the
        instance-specific learners, which predict from them). It loads without running
        code and without refitting, and what it holds is checked on load. Any fitted
        bnclf model can be saved so, whether fitted in memory, from chunks, from a Dask
        DataFrame or by ``partial_fit``. ``"pickle"``: any Python object, for trusted use
        only (loading a pickle runs code).
    """
    from bnclf.io import _modelfile as modelfile

    check_option("format", format, ("safe", "pickle"))
    path = Path(path)
    if format == "safe":
        return modelfile.dump(estimator, path)
    from bnclf.io._files import staged

    with staged(path) as (tmp,), open(tmp, "wb") as fh:
        pickle.dump(
            {"format": "bnclf-model/1", "bnclf_version": __version__, "estimator": estimator},
            fh,
            protocol=pickle.HIGHEST_PROTOCOL,
        )
    return path


def load_model(path: str | os.PathLike, *, trusted: bool = False) -> BaseEstimator:
    """Load a model written by :func:`save_model`.

    A safe model file (the default format) loads without running code. A pickle
    runs code on load, so it is read only with ``trusted=True``; the command line
    never passes it.
    """
    from bnclf.io import _modelfile as modelfile
    from bnclf.io._files import check_readable_file

    path = check_readable_file(path, "model file")
    if modelfile.is_model_archive(path):
        return modelfile.load(path)
    if path.is_file() and path.stat().st_size == 0:
        raise ValueError(f"{path} is empty, not a bnclf model file; write it again with bnclf fit -o or save_model.")
    if not trusted:
        raise ValueError(
            f"{path} is not a safe bnclf model file (a pickle, or not a model at all). A pickle "
            "runs code when loaded: load it only if you trust its author, with "
            "bnclf.io.load_model(path, trusted=True); or refit with 'bnclf fit ... -o FILE'."
        )
    try:
        with open(path, "rb") as fh:
            payload = pickle.load(fh)  # noqa: S301 - trusted=True: the caller vouches for it
    except Exception as exc:  # empty, truncated or foreign files raise many kinds of errors
        raise ValueError(
            f"{path} is not a readable bnclf model file ({type(exc).__name__}: {exc}); write "
            "one with 'bnclf fit ... -o FILE' or bnclf.io.save_model."
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != "bnclf-model/1":
        raise ValueError(f"{path} is not a bnclf model file (written by bnclf.io.save_model).")
    return payload["estimator"]
