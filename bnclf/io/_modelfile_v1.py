"""Reading model files of the first format (``bnclf-safe/1``).

That format stored the coded training rows and each network's log-CPTs, and rebuilt a
model by refitting it on the stored rows; the refitted CPTs were compared with the
stored ones. The current format (:mod:`bnclf.io`) stores the fitted parameters and
loads without refitting; a file of the first format, once loaded, is saved again in it.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator


def load_v1(archive: zipfile.ZipFile, meta: dict, path: Path) -> BaseEstimator:
    """The model of a first-format file: refitted on its stored rows, then checked."""
    from bnclf.io._modelfile import ModelFileError

    try:
        arrays = np.load(io.BytesIO(archive.read("arrays.npz")), allow_pickle=False)
        arrays = {k: arrays[k] for k in arrays.files}
        if meta.get("kind") == "multilabel":
            return _rebuild_multilabel(meta, arrays, path)
        return _rebuild(meta, arrays, path)
    except ModelFileError:
        raise
    except (KeyError, TypeError, IndexError, ValueError, OSError, zipfile.BadZipFile) as exc:
        raise ModelFileError(
            f"{path} is a damaged bnclf model file ({type(exc).__name__}: {exc}); refit the model."
        ) from None


_LABEL_TYPES = (str, int, float, bool, type(None))


def _discretizer_classes() -> dict:
    from bnclf.encoding._discretize import MDLDiscretizer, QuantileDiscretizer

    return {"MDLDiscretizer": MDLDiscretizer, "QuantileDiscretizer": QuantileDiscretizer}


def _classifier_classes() -> dict:
    from bnclf import models

    return {
        name: getattr(models, name)
        for name in models.__all__
        if name.endswith("Classifier")
        and not name.startswith(("BayesNet", "Ensemble", "Multinet", "InstanceSpecific", "Multilabel"))
    }


def _multilabel_classes() -> dict:
    from bnclf.models._multilabel import MultilabelBNClassifier, MultilabelBNEnsemble
    from bnclf.models._multilabel_baselines import BinaryRelevanceNB, EnsembleOfClassifierChains

    return {
        cls.__name__: cls
        for cls in (MultilabelBNClassifier, MultilabelBNEnsemble, BinaryRelevanceNB, EnsembleOfClassifierChains)
    }


def _has_members(est) -> bool:
    try:
        est.network_members()
    except ValueError:  # an instance-specific model without a network fitted in advance
        return False
    return True


def _rebuild(meta, arrays, path):
    from sklearn.pipeline import Pipeline

    from bnclf.models._base import replay_fit

    steps = [(spec["name"], _rebuild_step(spec, path)) for spec in meta["steps"]]
    spec = meta["classifier"]
    cls = _classifier_classes().get(spec["class"])
    if cls is None:
        raise ValueError(f"{path}: {spec['class']!r} is not a bnclf classifier.")
    est = cls(**_current_params(spec["params"]))
    enc = _rebuild_encoder(spec["encoder"])
    dtype = spec["classes_dtype"]
    if dtype != "object" and np.dtype(dtype).kind not in "biuf":
        raise ValueError(f"{path}: unexpected class label type {dtype!r}.")
    classes = np.asarray(spec["classes"], dtype=object if dtype == "object" else dtype)
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
        or (y >= len(classes)).any()
    ):
        raise ValueError(f"{path}: the stored training codes do not fit the stored states.")
    seed = spec.get("search_seed")
    replay_fit(est, enc, classes, spec["class_name"], codes, y, search_seed=None if seed is None else int(seed))
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
                    f"{path}: the model refitted from the stored rows differs from the stored one "
                    f"(network {m}, family {f}); the file was changed or written by an incompatible "
                    f"bnclf ({meta.get('bnclf_version')}). Refit the model."
                )


def _current_params(params):
    """The constructor arguments of a first-format file under today's names: a file of
    bnclf 0.1 names ``progress``, which bnclf 0.2 calls ``verbose``."""
    params = dict(params)
    if "progress" in params:
        progress = params.pop("progress")
        if isinstance(progress, bool):
            params["verbose"] = int(progress)
    return params


def _rebuild_step(spec, path):
    cls = _discretizer_classes().get(spec["class"])
    if cls is None:
        raise ValueError(f"{path}: unknown step class {spec['class']!r}.")
    return cls.restored(
        spec["params"],
        columns_in=spec["columns_in"],
        fitted_on_frame=spec["fitted_on_frame"],
        columns=spec["columns"],
        n_features_in=spec["n_features_in"],
        feature_names_in=spec["feature_names_in"],
        cut_points=dict(spec["cut_points"]),
    )


def _rebuild_encoder(e):
    from bnclf.encoding._encoder import FeatureEncoder

    enc = FeatureEncoder(e["missing"], e["handle_unknown"])
    enc.__setstate__(
        {
            "feature_names_": list(e["feature_names"]),
            "categories_": [list(c) for c in e["categories"]],
            "missing_codes_": list(e["missing_code"]),
        }
    )
    return enc


def _rebuild_multilabel(meta, arrays, path):
    from bnclf.models._multilabel import replay_multilabel_fit

    spec = meta["classifier"]
    cls = _multilabel_classes().get(spec["class"])
    if cls is None:
        raise ValueError(f"{path}: {spec['class']!r} is not a bnclf multilabel classifier.")
    est = cls(**_current_params(spec["params"]))
    disc = None if spec["discretizer"] is None else _rebuild_step(spec["discretizer"], path)
    enc = _rebuild_encoder(spec["encoder"])
    names = list(spec["label_names"])
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
    if seeds is not None and len(seeds) != int(spec["params"].get("n_chains", -1)):
        raise ValueError(f"{path}: the stored chain seeds do not fit n_chains.")
    replay_multilabel_fit(
        est,
        disc,
        enc,
        names,
        codes,
        labels,
        n_features_in=spec["n_features_in"],
        feature_names_in=spec["feature_names_in"],
        chain_seeds=seeds,
    )
    _check_cpts(est, arrays, meta, path)
    return est
