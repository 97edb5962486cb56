"""Reports on several models at once: cross-validated predictions of many specs on the same
folds, per-class precision/recall/F1, multilabel evaluation, and models built from specs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, overload

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator

from bnclf._params import verbose_from

if TYPE_CHECKING:
    from bnclf.evaluation._protocols import CVPredictions


@overload
def cross_validate_models(
    X: pd.DataFrame,
    y: ArrayLike,
    specs: Sequence[str],
    *,
    n_splits: int = ...,
    discretize: str = ...,
    n_bins: int = ...,
    seed: int = ...,
    verbose: int = ...,
    metrics: Sequence[str] = ...,
    return_cv: Literal[False] = ...,
    n_jobs: int | None = ...,
    progress: bool | None = ...,
) -> pd.DataFrame: ...


@overload
def cross_validate_models(
    X: pd.DataFrame,
    y: ArrayLike,
    specs: Sequence[str],
    *,
    n_splits: int = ...,
    discretize: str = ...,
    n_bins: int = ...,
    seed: int = ...,
    verbose: int = ...,
    metrics: Sequence[str] = ...,
    return_cv: Literal[True],
    n_jobs: int | None = ...,
    progress: bool | None = ...,
) -> tuple[pd.DataFrame, dict[str, CVPredictions]]: ...


def cross_validate_models(
    X: pd.DataFrame,
    y: ArrayLike,
    specs: Sequence[str],
    *,
    n_splits: int = 10,
    discretize: str = "mdl",
    n_bins: int = 4,
    seed: int = 0,
    verbose: int = 1,
    metrics: Sequence[str] = ("accuracy",),
    return_cv: bool = False,
    n_jobs: int | None = 1,
    progress: bool | None = None,
) -> pd.DataFrame | tuple[pd.DataFrame, dict[str, CVPredictions]]:
    """Stratified k-fold scores of each model spec, by the evaluation harness's protocol.

    The folds are those of :func:`bnclf.evaluation.make_cv_splits` with ``seed`` (the
    same as ``bnclf compare``); a discretizer, when the data has float columns, is fitted
    on each training fold only, once for all the models
    (:func:`bnclf.evaluation.cross_validate_many`). ``metrics`` are fold metrics of the harness
    (``accuracy``, ``log_loss``, ``auc``), averaged over the folds; the standard
    deviation is the accuracy's. With ``return_cv`` also returns ``{spec: CVPredictions}``
    (the out-of-fold predictions and probabilities).
    """
    verbose = verbose_from(verbose, progress, "cross_validate_models")
    from bnclf.evaluation._protocols import cross_validate_many, make_cv_splits
    from bnclf.models import make_classifier

    needs_disc = any(pd.api.types.is_float_dtype(X[c]) for c in X.columns)
    discretizer = _discretizer(discretize, n_bins) if needs_disc else None
    splits = make_cv_splits(np.asarray(y), n_splits=n_splits, random_state=seed)
    estimators = [make_classifier(spec) for spec in specs]  # every spec checked before any fold runs
    results = cross_validate_many(
        estimators, X, y, splits=splits, discretizer=discretizer, verbose=verbose, contexts=specs, n_jobs=n_jobs
    )
    rows, cvs = [], {}
    for spec, cv in zip(specs, results):
        cvs[spec] = cv
        scores = cv.fold_scores(tuple(dict.fromkeys(("accuracy",) + tuple(metrics))))
        row = {"model": spec, "accuracy": scores["accuracy"].mean(), "std": scores["accuracy"].std(ddof=0)}
        row.update({m: scores[m].mean() for m in metrics if m != "accuracy"})
        row.update({"fit_s": cv.folds["fit_time"].sum(), "predict_s": cv.folds["predict_time"].sum()})
        rows.append(row)
    table = pd.DataFrame(rows)
    return (table, cvs) if return_cv else table


def per_class_report(cv: CVPredictions) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pooled out-of-fold confusion matrix and per-class precision, recall, F1 and support."""
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    pred = cv.predictions
    labels = list(cv.classes)
    matrix = confusion_matrix(pred["y_true"], pred["y_pred"], labels=labels)
    names = [str(c) for c in labels]
    confusion = pd.DataFrame(matrix, index=pd.Index(names, name="true"), columns=pd.Index(names, name="predicted"))
    p, r, f, n = precision_recall_fscore_support(pred["y_true"], pred["y_pred"], labels=labels, zero_division=0)
    per_class = pd.DataFrame({"precision": p, "recall": r, "f1": f, "support": n}, index=pd.Index(names, name="class"))
    return confusion, per_class


def evaluate_multilabel(
    X: ArrayLike | pd.DataFrame,
    Y: ArrayLike | pd.DataFrame,
    specs: Sequence[str],
    *,
    n_splits: int = 5,
    seed: int = 0,
    discretize: str | None = None,
    n_bins: int = 4,
    verbose: int = 1,
    n_jobs: int | None = 1,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Cross-validated scores of multilabel classifier specs: one row per spec (means over folds).

    The folds are stratified on the least relevant label
    (:func:`bnclf.evaluation.multilabel_fold_scores`); columns ``model``,
    global and Hamming accuracy with their standard deviations, the rate of empty
    predictions, the same with empty predictions allowed (Bayesian networks), the mean
    treewidth and number of selected features, and the total ``fit_s`` and ``predict_s``.
    """
    verbose = verbose_from(verbose, progress, "evaluate_multilabel")
    from bnclf.evaluation._multilabel import multilabel_fold_scores, summarize_multilabel

    estimators = {spec: build_multilabel_model(spec, discretize, n_bins) for spec in specs}
    cv = multilabel_fold_scores(estimators, X, Y, n_splits=n_splits, random_state=seed, verbose=verbose, n_jobs=n_jobs)
    table = (
        summarize_multilabel(cv)
        .reset_index()
        .rename(columns={"classifier": "model", "fit_time": "fit_s", "predict_time": "predict_s"})
    )
    table.attrs = dict(cv.attrs)
    return table


def _discretizer(discretize: str, n_bins: int):
    """The transformer for ``--discretize`` (None for ``none``)."""
    from bnclf.evaluation._protocols import resolve_discretizer

    return resolve_discretizer(discretize, n_bins=n_bins)


def build_model(spec: str, discretize: str = "mdl", n_bins: int = 4) -> BaseEstimator:
    """A classifier from a spec like ``tan`` or ``kdb(k=3)``, behind a discretizer if asked."""
    from bnclf.evaluation._protocols import build_pipeline
    from bnclf.models import make_classifier

    return build_pipeline(make_classifier(spec), _discretizer(discretize, n_bins))


def build_multilabel_model(spec: str, discretize: str | None = None, n_bins: int = 4) -> BaseEstimator:
    """A multilabel classifier from a spec; ``discretize`` (``quantile`` or ``none``) sets its discretizer."""
    from bnclf.models import make_multilabel_classifier

    est = make_multilabel_classifier(spec)
    if n_bins != 4:
        raise ValueError(
            f"--bins {n_bins}: multilabel classifiers bin continuous columns in quartiles "
            "(the protocol of Corani et al. 2014); drop --bins."
        )
    if discretize is None:
        return est
    if discretize == "mdl":
        raise ValueError(
            "--discretize mdl needs one class to split on; multilabel classifiers bin "
            "continuous columns in quartiles (--discretize quantile, the default) or "
            "take them as they are (--discretize none)."
        )
    return est.set_params(discretizer="quantile" if discretize == "quantile" else None)
