"""A model file that loads without running code: JSON + ``.npz`` in one zip archive.

A pickle runs whatever its author put in it at load time, so the command line never
unpickles. ``save_model`` writes this format instead:

* ``model.json`` — the format version, the bnclf version, the pipeline's steps: each
  discretizer's class, parameters and cut points; the classifier's class (one of
  bnclf's own, checked against an allow-list), its parameters, its encoder states
  (typed labels) and its class labels;
* ``arrays.npz`` — the coded training rows and class codes (``allow_pickle=False``),
  and every fitted network's log-CPTs.

Loading rebuilds the classifier by running its fit on the stored codes (every bnclf
learner is a deterministic function of its parameters and the coded data) and then
checks every rebuilt log-CPT against the stored one, so a file that was tampered with
or written by an incompatible version is refused by name rather than loaded
differently.

A multilabel model (``"kind": "multilabel"``: mNB, mFAN, the BN ensemble, binary
relevance, classifier chains) is stored the same way: its parameters, its own
discretizer's cut points, its encoder states and label names in ``model.json``; the
coded training rows (``codes``) and the 0/1 label matrix (``labels``) in
``arrays.npz``, refitted through ``_fit_coded(codes, labels)`` on load (chains replay
their stored seeds) and checked network by network.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

FORMAT = "bnclf-safe/1"
_LABEL_TYPES = (str, int, float, bool, type(None))


def _discretizer_classes() -> dict:
    from .discretize import MDLDiscretizer, QuantileDiscretizer

    return {"MDLDiscretizer": MDLDiscretizer, "QuantileDiscretizer": QuantileDiscretizer}


def _classifier_classes() -> dict:
    from . import models

    return {
        name: getattr(models, name)
        for name in models.__all__
        if name.endswith("Classifier")
        and not name.startswith(("BayesNet", "Ensemble", "Multinet", "InstanceSpecific", "Multilabel"))
    }


def _multilabel_classes() -> dict:
    from .models.multilabel import MultilabelBNClassifier, MultilabelBNEnsemble
    from .models.multilabel_baselines import BinaryRelevanceNB, EnsembleOfClassifierChains

    return {
        cls.__name__: cls
        for cls in (MultilabelBNClassifier, MultilabelBNEnsemble, BinaryRelevanceNB, EnsembleOfClassifierChains)
    }


def _label(value, what):
    from .data import python_scalar

    value = python_scalar(value)
    if not isinstance(value, _LABEL_TYPES):
        raise ValueError(
            f"{what} {value!r} ({type(value).__name__}) cannot be stored in a safe model file "
            "(labels must be text, numbers or booleans); use save_model(..., format='pickle') "
            "for trusted use, or recode the labels."
        )
    return value


def _labels(values, what):
    return [_label(v, what) for v in values]


def _params(est) -> dict:
    params = est.get_params(deep=False)
    for key, value in params.items():
        ok = isinstance(value, _LABEL_TYPES) or (
            isinstance(value, (list, tuple)) and all(isinstance(v, _LABEL_TYPES) for v in value)
        )
        if not ok:
            raise ValueError(
                f"{type(est).__name__}({key}={value!r}) cannot be stored in a safe "
                "model file; use save_model(..., format='pickle')."
            )
    return params


# -- writing ------------------------------------------------------------------------------
def dump(model: BaseEstimator, path: str | os.PathLike) -> Path:
    """Write a fitted bnclf classifier, or a pipeline of bnclf discretizers ending in one."""
    from . import __version__

    steps = list(model.steps) if hasattr(model, "steps") else [("classifier", model)]
    *transformers, (clf_name, est) = steps
    if type(est).__name__ in _multilabel_classes():
        if transformers:
            raise ValueError(
                f"{type(est).__name__} discretizes inside the model; save it without a "
                "pipeline (a safe model file holds a multilabel model on its own)."
            )
        return _dump_multilabel(est, path)
    if type(est).__name__ not in _classifier_classes():
        raise ValueError(
            f"{type(est).__name__} is not a bnclf classifier; a safe model file "
            "holds bnclf's own classifiers (use format='pickle' for others)."
        )
    if not hasattr(est, "_training_data"):
        if hasattr(est, "classes_"):
            raise ValueError(
                f"this {type(est).__name__} was fitted from chunks, a Dask DataFrame, partial_fit or "
                "refit_parameters and keeps no training rows, which a safe model file stores and "
                "refits; save it with format='pickle' (load only files you trust)."
            )
        raise ValueError(f"{type(est).__name__} is not fitted (or was fitted by an older bnclf).")
    meta = {
        "format": FORMAT,
        "bnclf_version": __version__,
        "pipeline": hasattr(model, "steps"),
        "steps": [],
        "classifier": {},
    }
    for name, step in transformers:
        meta["steps"].append(_step_meta(name, step, "pipeline step"))
    enc = est._encoder
    data = est._training_data
    meta["classifier"] = {
        "name": clf_name,
        "class": type(est).__name__,
        "params": _params(est),
        "classes": _labels(est.classes_, "class label"),
        "classes_dtype": est.classes_.dtype.str if est.classes_.dtype.kind in "biuf" else "object",
        "class_name": _label(est.class_name_, "class name"),
        "feature_names_in": (
            _labels(est.feature_names_in_, "column name") if hasattr(est, "feature_names_in_") else None
        ),
        "n_features_in": int(est.n_features_in_),
        "encoder": _encoder_meta(enc),
    }
    if hasattr(est, "search_seed_"):  # a searched structure: replay the same random choices
        meta["classifier"]["search_seed"] = int(est.search_seed_)
    arrays = {"codes": np.asarray(data.codes), "y": np.asarray(data.y)}
    arrays.update(_cpt_arrays(est))
    return _write(path, meta, arrays)


def _write(path, meta, arrays) -> Path:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.json", json.dumps(meta, indent=1))
        archive.writestr("arrays.npz", buffer.getvalue())
    return path


def _step_meta(name, step, what) -> dict:
    cls = type(step).__name__
    if cls not in _discretizer_classes():
        raise ValueError(
            f"{what} {name!r} ({cls}) cannot be stored in a safe model "
            "file: only bnclf's discretizers can; use format='pickle'."
        )
    return {
        "name": name,
        "class": cls,
        "params": _params(step),
        "columns_in": _labels(step._columns_in, "column name"),
        "fitted_on_frame": bool(step._fitted_on_frame),
        "columns": _labels(step.columns_, "column name"),
        "cut_points": [[_label(c, "column name"), [float(x) for x in cuts]] for c, cuts in step.cut_points_.items()],
        "feature_names_in": (
            _labels(step.feature_names_in_, "column name") if hasattr(step, "feature_names_in_") else None
        ),
        "n_features_in": int(step.n_features_in_),
    }


def _encoder_meta(enc) -> dict:
    return {
        "missing": enc.missing,
        "handle_unknown": enc.handle_unknown,
        "feature_names": _labels(enc.feature_names_, "column name"),
        "categories": [_labels(c, "category") for c in enc.categories_],
        "observed": [_labels(list(o), "category") for o in enc._observed],
        "missing_code": [None if c is None else int(c) for c in enc._missing_code],
    }


def _cpt_arrays(est) -> dict:
    arrays = {}
    for m, (_, net) in enumerate(est.network_members() if _has_members(est) else []):
        for f, table in enumerate(net.log_cpts):
            arrays[f"cpt_{m}_{f}"] = table
    return arrays


def _dump_multilabel(est, path) -> Path:
    """A multilabel model: its parameters, discretizer, encoder, label names and coded rows."""
    from . import __version__

    if not hasattr(est, "_training_data"):
        raise ValueError(f"{type(est).__name__} is not fitted.")
    disc = getattr(est, "_discretizer", None)
    spec = {
        "class": type(est).__name__,
        "params": _params(est),
        "label_names": _labels(est.label_names_, "label name"),
        "feature_names_in": (
            _labels(est.feature_names_in_, "column name") if hasattr(est, "feature_names_in_") else None
        ),
        "n_features_in": int(est.n_features_in_),
        "discretizer": None if disc is None else _step_meta("discretizer", disc, "discretizer"),
        "encoder": _encoder_meta(est._encoder),
    }
    if hasattr(est, "chain_seeds_"):  # chains replay the orders (and rows) they drew
        spec["chain_seeds"] = [int(s) for s in est.chain_seeds_]
    meta = {
        "format": FORMAT,
        "bnclf_version": __version__,
        "kind": "multilabel",
        "pipeline": False,
        "steps": [],
        "classifier": spec,
    }
    codes, labels = est._training_data
    arrays = {"codes": np.asarray(codes), "labels": np.asarray(labels)}
    arrays.update(_cpt_arrays(est))
    return _write(path, meta, arrays)


def _has_members(est) -> bool:
    try:
        est.network_members()
    except ValueError:  # an instance-specific model without a network fitted in advance
        return False
    return True


# -- reading ------------------------------------------------------------------------------
def is_model_archive(path: str | os.PathLike | IO[bytes]) -> bool:
    """Whether ``path`` is a zip archive (this format); pickles start otherwise."""
    return zipfile.is_zipfile(path)


def load(path: str | os.PathLike) -> BaseEstimator:
    """Rebuild the model written by :func:`dump`; refuses, naming the file, anything else."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read("model.json").decode("utf-8"))
            arrays = np.load(io.BytesIO(archive.read("arrays.npz")), allow_pickle=False)
            arrays = {k: arrays[k] for k in arrays.files}
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError) as exc:
        raise ValueError(
            f"{path} is not a readable bnclf model file ({type(exc).__name__}: "
            f"{exc}); write one with 'bnclf fit ... -o FILE'."
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise ValueError(
            f"{path} has model format {found!r}; this bnclf reads {FORMAT!r}. "
            "Refit the model with this version ('bnclf fit')."
        )
    try:
        if meta.get("kind") == "multilabel":
            return _rebuild_multilabel(meta, arrays, path)
        return _rebuild(meta, arrays, path)
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(
            f"{path} is a damaged bnclf model file ({type(exc).__name__}: {exc}); refit the model."
        ) from None


def _rebuild(meta, arrays, path):
    from sklearn.pipeline import Pipeline

    from .data import DiscreteData

    steps = [(spec["name"], _rebuild_step(spec, path)) for spec in meta["steps"]]
    spec = meta["classifier"]
    cls = _classifier_classes().get(spec["class"])
    if cls is None:
        raise ValueError(f"{path}: {spec['class']!r} is not a bnclf classifier.")
    est = cls(**spec["params"])
    enc = _rebuild_encoder(spec["encoder"])
    dtype = spec["classes_dtype"]
    if dtype != "object" and np.dtype(dtype).kind not in "biuf":
        raise ValueError(f"{path}: unexpected class label type {dtype!r}.")
    est.classes_ = np.asarray(spec["classes"], dtype=object if dtype == "object" else dtype)
    est._encoder = enc
    est.class_name_ = spec["class_name"]
    est.n_features_in_ = int(spec["n_features_in"])
    if spec["feature_names_in"] is not None:
        est.feature_names_in_ = np.asarray(spec["feature_names_in"], dtype=object)
    codes = np.asarray(arrays["codes"], dtype=np.int64)
    y = np.asarray(arrays["y"], dtype=np.int64)
    cards = enc.cardinalities_
    if (
        codes.ndim != 2
        or codes.shape[1] != len(cards)
        or len(y) != len(codes)
        or (codes >= cards).any()
        or (codes < -1).any()
        or (y < 0).any()
        or (y >= len(est.classes_)).any()
    ):
        raise ValueError(f"{path}: the stored training codes do not fit the stored states.")
    if spec.get("search_seed") is not None:
        est._replay_seed = int(spec["search_seed"])
    try:
        est._fit_coded(DiscreteData(codes, cards, y, len(est.classes_)))
    finally:
        est.__dict__.pop("_replay_seed", None)
    _check_cpts(est, arrays, meta, path)
    if meta.get("pipeline"):
        return Pipeline(steps + [(spec["name"], est)])
    return est


def _check_cpts(est, arrays, meta, path) -> None:
    members = est.network_members() if _has_members(est) else []
    stored_count = sum(1 for k in arrays if k.startswith("cpt_"))
    if sum(len(net.log_cpts) for _, net in members) != stored_count:
        raise ValueError(
            f"{path}: the rebuilt model has other networks than the stored one; the file "
            f"was changed or written by an incompatible bnclf ({meta.get('bnclf_version')}). "
            "Refit the model."
        )
    for m, (_, net) in enumerate(members):
        for f, table in enumerate(net.log_cpts):
            stored = arrays.get(f"cpt_{m}_{f}")
            if (
                stored is None
                or stored.shape != table.shape
                or not np.allclose(stored, table, rtol=0, atol=1e-9, equal_nan=True)
            ):
                raise ValueError(
                    f"{path}: the rebuilt model differs from the stored one (network {m}, "
                    f"family {f}); the file was changed or written by an incompatible bnclf "
                    f"({meta.get('bnclf_version')}). Refit the model."
                )


def _rebuild_step(spec, path):
    cls = _discretizer_classes().get(spec["class"])
    if cls is None:
        raise ValueError(f"{path}: unknown step class {spec['class']!r}.")
    step = cls(**spec["params"])
    step._columns_in = list(spec["columns_in"])
    step._fitted_on_frame = bool(spec["fitted_on_frame"])
    step.columns_ = list(spec["columns"])
    step.n_features_in_ = int(spec["n_features_in"])
    if spec["feature_names_in"] is not None:
        step.feature_names_in_ = np.asarray(spec["feature_names_in"], dtype=object)
    step._finish_fit({c: np.asarray(cuts, dtype=float) for c, cuts in spec["cut_points"]})
    return step


def _rebuild_encoder(e):
    from .data import FeatureEncoder

    enc = FeatureEncoder(e["missing"], e["handle_unknown"])
    enc.feature_names_ = list(e["feature_names"])
    enc.categories_ = [list(c) for c in e["categories"]]
    enc._observed = [pd.Index(o, dtype=object) for o in e["observed"]]
    enc._missing_code = list(e["missing_code"])
    enc.cardinalities_ = np.array([len(c) for c in enc.categories_], dtype=np.int64)
    return enc


def _rebuild_multilabel(meta, arrays, path):
    spec = meta["classifier"]
    cls = _multilabel_classes().get(spec["class"])
    if cls is None:
        raise ValueError(f"{path}: {spec['class']!r} is not a bnclf multilabel classifier.")
    est = cls(**spec["params"])
    est._discretizer = None if spec["discretizer"] is None else _rebuild_step(spec["discretizer"], path)
    enc = _rebuild_encoder(spec["encoder"])
    est._encoder = enc
    names = list(spec["label_names"])
    est.label_names_ = names
    est.classes_ = [np.array([0, 1]) for _ in names]
    est.n_features_in_ = int(spec["n_features_in"])
    if spec["feature_names_in"] is not None:
        est.feature_names_in_ = np.asarray(spec["feature_names_in"], dtype=object)
    codes = np.asarray(arrays["codes"], dtype=np.int64)
    labels = np.asarray(arrays["labels"])
    cards = enc.cardinalities_
    if (
        codes.ndim != 2
        or codes.shape[1] != len(cards)
        or labels.ndim != 2
        or labels.shape != (len(codes), len(names))
        or (codes >= cards).any()
        or (codes < -1).any()
        or not np.isin(labels, (0, 1)).all()
    ):
        raise ValueError(f"{path}: the stored training codes do not fit the stored states.")
    seeds = spec.get("chain_seeds")
    if seeds is not None:
        if len(seeds) != int(spec["params"].get("n_chains", -1)):
            raise ValueError(f"{path}: the stored chain seeds do not fit n_chains.")
        est._replay_seeds = [int(s) for s in seeds]
    try:
        est._fit_coded(codes, labels.astype(np.int8))
    finally:
        est.__dict__.pop("_replay_seeds", None)
    _check_cpts(est, arrays, meta, path)
    return est
