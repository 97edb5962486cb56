"""One fold of a single-label protocol, our values from the folds, and loading a paper's data sets.

A fold runs the classifiers through ``bnclf.evaluation.cross_validate_many`` on the very
split ``compare`` would make, with the estimators seeded as ``compare`` seeds them, so a
fold's numbers equal those of ``compare`` on the same data.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bnclf.evaluation import cross_validate_many, kohavi_wolpert, make_cv_splits
from bnclf.evaluation._compare import _classifier_items

from ._data import Missing
from ._paper import Dataset


def cv_fold(
    name: str,
    X: pd.DataFrame,
    y: pd.Series,
    split,
    *,
    classifiers: dict,
    discretizer,
    seed: int,
    keep_predictions: bool = False,
) -> dict:
    """Every classifier on one split, as ``compare`` runs it; a JSON-able result.

    Parameters
    ----------
    name : str
        The data set (for error messages).
    X, y : data
    split : Split
        The fold (``make_cv_splits`` of the paper's protocol).
    classifiers : dict
        Label -> spec or estimator, seeded with ``seed`` as ``compare`` seeds them.
    discretizer : str or transformer
        Fitted on the training rows of the fold.
    seed : int
    keep_predictions : bool, default=False
        Also keep the predicted labels (as codes into ``np.unique(y)``, in the order of
        ``split.test``), for the bias-variance decomposition over repeats.

    Returns
    -------
    dict
        ``{"classifiers": {label: {"zero_one_loss", "accuracy", "n_train", "n_test",
        "fit_time", "predict_time"[, "y_pred"]}}, "convergence_warnings": int}``.
    """
    from sklearn.exceptions import ConvergenceWarning

    items = _classifier_items(classifiers, seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        cvps = cross_validate_many(
            [est for _, est in items],
            X,
            np.asarray(y),
            splits=[split],
            discretizer=discretizer,
            contexts=[f"{label} on {name}:" for label, _ in items],
        )
    for w in caught:  # the others are shown as usual
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    classes = np.unique(np.asarray(y))
    out = {}
    for (label, _), cvp in zip(items, cvps):
        row = cvp.fold_scores(("zero_one_loss", "accuracy")).iloc[0]
        rec = {k: float(row[k]) for k in ("zero_one_loss", "accuracy", "fit_time", "predict_time")}
        rec.update(n_train=int(row["n_train"]), n_test=int(row["n_test"]))
        if keep_predictions:
            pred = cvp.predictions.sort_values("row")
            assert np.array_equal(pred["row"].to_numpy(), np.sort(split.test))
            rec["y_pred"] = np.searchsorted(classes, pred["y_pred"].to_numpy()).tolist()
        out[label] = rec
    return {
        "classifiers": out,
        "convergence_warnings": sum(issubclass(w.category, ConvergenceWarning) for w in caught),
    }


def mean_over_folds(ds: Dataset, folds: list, *, metric: str, measure: str, scale: float = 1.0) -> pd.DataFrame:
    """Our value: the mean over the folds of a fold metric, per classifier.

    Parameters
    ----------
    ds : Dataset
    folds : list of (Split, dict)
        The results of :func:`cv_fold`.
    metric : str
        ``zero_one_loss`` or ``accuracy``.
    measure : str
        The measure's name in the table.
    scale : float, default=1.0
        100 for percentages.

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier, measure, ours``.
    """
    labels = list(folds[0][1]["classifiers"])
    rows = [
        {
            "classifier": c,
            "measure": measure,
            "ours": scale * float(np.mean([res["classifiers"][c][metric] for _, res in folds])),
        }
        for c in labels
    ]
    return pd.DataFrame(rows)


def bias_variance(ds: Dataset, folds: list) -> pd.DataFrame:
    """Our Kohavi-Wolpert loss, bias and variance per classifier, over the repeats.

    Parameters
    ----------
    ds : Dataset
    folds : list of (Split, dict)
        The results of :func:`cv_fold` with ``keep_predictions=True``; every row is
        predicted once per repeat.

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier, measure, ours`` with the measures ``loss (bias + variance)``,
        ``bias`` and ``variance``.
    """
    y = np.asarray(ds.y)
    classes = np.unique(y)
    repeats = sorted({int(s.repeat) for s, _ in folds})
    rows = []
    for c in folds[0][1]["classifiers"]:
        mat = np.empty((len(repeats), len(y)), dtype=y.dtype)
        for s, res in folds:
            mat[repeats.index(int(s.repeat)), np.sort(s.test)] = classes[res["classifiers"][c]["y_pred"]]
        kw = kohavi_wolpert(y, mat, classes=classes)
        for measure, v in (("loss (bias + variance)", kw.loss), ("bias", kw.bias), ("variance", kw.variance)):
            rows.append({"classifier": c, "measure": measure, "ours": v})
    return pd.DataFrame(rows)


def load_datasets(specs, data_dir, only=None, drop_missing=False):
    """Load (name, loader, source) specs; a data set whose file is absent is skipped."""
    datasets, skipped, seen = [], [], {}
    for name, loader, source in specs:
        if only is not None and name not in only:
            continue
        if loader is None:
            skipped.append(f"{name} (no copy)")
            continue
        if source in seen:  # the same data under two names (Diabetes, Pima): run once
            continue
        try:
            X, y = loader(data_dir)
        except Missing as exc:
            skipped.append(f"{name} ({exc} not in --data)")
            continue
        except (ImportError, OSError) as exc:
            skipped.append(f"{name} ({type(exc).__name__}: {exc})")
            continue
        if " (else " in source:  # "uci/breast-w.arff (else keel:wisconsin, 683 rows)": which one loaded
            first, other = source.split(" (else ")
            found = data_dir is not None and (Path(data_dir) / first.removeprefix("uci/")).exists()
            source = first if found else other.split(",")[0]
        if drop_missing:
            keep = ~X.isna().any(axis=1)
            X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
        seen[source] = name
        datasets.append(Dataset(name, X, y, source))
    return datasets, skipped


def cv_splits(ds: Dataset, *, n_splits: int, n_repeats, seed: int):
    repeats = n_repeats(ds) if callable(n_repeats) else n_repeats
    return make_cv_splits(np.asarray(ds.y), n_splits=n_splits, n_repeats=repeats, random_state=seed)


def paper_frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["dataset", "run", "classifier", "measure", "paper"])
