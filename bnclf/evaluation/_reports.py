"""Reports on several models at once: cross-validated predictions of many specs on the same
folds, or of models fitted on a training file and scored on a test file; per-class
precision/recall/F1, multilabel evaluation, and models built (and seeded) from specs."""

from __future__ import annotations

import time
import warnings
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
    model_verbose: int = ...,
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
    model_verbose: int = ...,
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
    model_verbose: int = 0,
) -> pd.DataFrame | tuple[pd.DataFrame, dict[str, CVPredictions]]:
    """Stratified k-fold scores of each model spec, by the evaluation harness's protocol.

    The folds are those of :func:`bnclf.evaluation.make_cv_splits` with ``seed`` (the
    same as ``bnclf compare``); a discretizer, when the data has float columns, is fitted
    on each training fold only, once for all the models
    (:func:`bnclf.evaluation.cross_validate_many`). ``metrics`` are fold metrics of the harness
    (``accuracy``, ``log_loss``, ``auc``), averaged over the folds; the standard
    deviation is the accuracy's. With ``return_cv`` also returns ``{spec: CVPredictions}``
    (the out-of-fold predictions and probabilities). ``seed`` also seeds the models that
    draw at random (unless their spec sets ``random_state``: :func:`seeded`). A class with
    fewer rows than folds gets a warning. The table's ``fit_s`` and ``predict_s`` are seconds
    summed over the folds (the command line heads them "fit total (s)", "predict total (s)"),
    beside scores that are means over the folds. ``verbose`` shows the progress over the
    folds; ``model_verbose`` is each model's own ``verbose`` (:func:`with_verbose`: its
    progress bar while it fits; ``bnclf evaluate -v``).
    """
    verbose = verbose_from(verbose, progress, "cross_validate_models")
    from bnclf.evaluation._protocols import cross_validate_many, make_cv_splits, warn_small_classes
    from bnclf.models import make_classifier

    needs_disc = any(pd.api.types.is_float_dtype(X[c]) for c in X.columns)
    discretizer = _discretizer(discretize, n_bins) if needs_disc else None
    splits = make_cv_splits(np.asarray(y), n_splits=n_splits, random_state=seed)
    warn_small_classes(y, n_splits)
    estimators = [
        with_verbose(seeded(make_classifier(spec), seed, spec), model_verbose, spec) for spec in specs
    ]  # every spec checked before any fold runs
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


def train_test_models(
    X_train: pd.DataFrame,
    y_train: ArrayLike,
    X_test: pd.DataFrame,
    y_test: ArrayLike,
    specs: Sequence[str],
    *,
    discretize: str = "mdl",
    n_bins: int = 4,
    seed: int | None = 0,
    metrics: Sequence[str] = ("accuracy",),
    model_verbose: int = 0,
) -> tuple[pd.DataFrame, dict[str, CVPredictions]]:
    """Each model spec fitted on the training rows and scored on the test rows (Weka's
    ``-t``/``-T``), with the columns of :func:`cross_validate_models`.

    Each model is the one ``bnclf fit`` makes (:func:`build_model`: the discretizer, fitted
    on the training rows, then the classifier), so the test rows are coded by what training
    saw: a value training never saw is summed out, as at predict time. ``seed`` seeds the
    models that draw at random, unless their spec sets ``random_state`` (:func:`seeded`). A
    test label the training rows lack is a class no model predicts (a warning says so): its
    rows count as errors and its probability column is 0. ``model_verbose`` is each model's
    own ``verbose`` (:func:`with_verbose`).

    Returns
    -------
    table : pandas.DataFrame
        One row per spec: ``model``, the ``metrics`` on the test rows (``std`` is NaN:
        there is one test set), ``fit_s`` and ``predict_s``.
    predictions : dict of str -> CVPredictions
        The test predictions of each spec as one fold (``repeat`` and ``fold`` 0), for
        :func:`per_class_report` and the prediction files.
    """
    from bnclf.evaluation._protocols import CVPredictions, _aligned, _fold_metric

    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if len(y_test) == 0:
        raise ValueError("the test rows are empty; give a test file with at least one row.")
    classes = np.unique(y_train)
    unseen = [c for c in dict.fromkeys(y_test.tolist()) if c not in set(classes.tolist())]
    if unseen:
        warnings.warn(
            f"the test rows have class values the training rows lack: {unseen[:10]}; no model predicts them, "
            "so their rows count as errors.",
            UserWarning,
            stacklevel=2,
        )
        classes = np.array([*classes.tolist(), *unseen], dtype=object)
    rows, cvs = [], {}
    for spec in specs:
        model = with_verbose(seeded(build_model(spec, discretize, n_bins), seed, spec), model_verbose, spec)
        t0 = time.perf_counter()
        model.fit(X_train, y_train)
        t1 = time.perf_counter()
        y_pred = np.asarray(model.predict(X_test))
        proba = _aligned(np.asarray(model.predict_proba(X_test)), model.classes_, classes)
        t2 = time.perf_counter()
        index = X_test.index.to_numpy() if hasattr(X_test, "index") else np.arange(len(y_test))
        predictions = pd.DataFrame(
            {"repeat": 0, "fold": 0, "row": np.arange(len(y_test)), "index": index, "y_true": y_test, "y_pred": y_pred}
        )
        folds = pd.DataFrame(
            [
                {
                    "repeat": 0,
                    "fold": 0,
                    "n_train": len(y_train),
                    "n_test": len(y_test),
                    "fit_time": t1 - t0,
                    "predict_time": t2 - t1,
                }
            ]
        )
        cvs[spec] = CVPredictions(predictions, proba, classes, folds)
        row = {"model": spec}
        for name in dict.fromkeys(("accuracy", *metrics)):
            row[name] = _fold_metric(name, y_test, y_pred, proba, classes)
            if name == "accuracy":
                row["std"] = float("nan")
        row.update({"fit_s": t1 - t0, "predict_s": t2 - t1})
        rows.append(row)
    return pd.DataFrame(rows), cvs


def train_test_multilabel(
    X_train: pd.DataFrame,
    Y_train: pd.DataFrame,
    X_test: pd.DataFrame,
    Y_test: pd.DataFrame,
    specs: Sequence[str],
    *,
    discretize: str | None = None,
    n_bins: int = 4,
    seed: int | None = 0,
    model_verbose: int = 0,
) -> pd.DataFrame:
    """Multilabel classifier specs fitted on the training rows and scored on the test rows:
    the columns of :func:`evaluate_multilabel` (global and Hamming accuracy, the rate of
    empty predictions, the same with empty predictions allowed, treewidth, selected
    features, times; the standard deviations are NaN: there is one test set).
    ``model_verbose`` is each model's own ``verbose`` (:func:`with_verbose`)."""
    from bnclf.evaluation._multilabel import _COLUMNS, score_split, summarize_multilabel

    if list(Y_test.columns) != list(Y_train.columns):
        raise ValueError(f"the test labels {list(Y_test.columns)} are not the training labels {list(Y_train.columns)}.")
    rows = [
        score_split(
            spec,
            with_verbose(seeded(build_multilabel_model(spec, discretize, n_bins), seed, spec), model_verbose, spec),
            X_train,
            Y_train,
            X_test,
            Y_test,
        )
        for spec in specs
    ]
    table = (
        summarize_multilabel(pd.DataFrame(rows).reindex(columns=_COLUMNS))
        .reset_index()
        .rename(columns={"classifier": "model", "fit_time": "fit_s", "predict_time": "predict_s"})
    )
    for column in ("global_accuracy_std", "hamming_accuracy_std"):
        table[column] = float("nan")
    return table


def seeded(estimator: BaseEstimator, seed: int | None, spec: str | None = None) -> BaseEstimator:
    """``estimator`` with ``random_state=seed``: the models that draw at random (RMCV, hill
    climbing, classifier chains), also inside a pipeline, so that a run can be repeated.

    Built from the classifier ``spec`` (e.g. ``"rmcv"``), the model takes the seed unless the
    spec sets ``random_state`` itself; given as an instance (``spec`` None), it takes the seed
    only where its ``random_state`` is None. Models without the parameter, and a ``seed`` of
    None, are left as they are. The model is cloned before it is changed.
    """
    if seed is None or not hasattr(estimator, "get_params"):
        return estimator
    params = estimator.get_params(deep=True)
    keys = [key for key in params if key == "random_state" or key.endswith("__random_state")]
    if spec is not None:
        from bnclf.models._registry import parse_classifier_spec

        if "random_state" in parse_classifier_spec(spec)[1]:
            return estimator  # the spec's own seed
    else:
        keys = [key for key in keys if params[key] is None]
    keys = [key for key in keys if params[key] != seed]
    if not keys:
        return estimator
    from sklearn.base import clone

    return clone(estimator).set_params(**dict.fromkeys(keys, int(seed)))


def per_class_report(cv: CVPredictions) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pooled out-of-fold confusion matrix and per-class precision, recall, F1 and support.

    The confusion matrix counts ``(true, predicted)`` pairs over ``cv.classes`` in order;
    precision, recall and F1 are scikit-learn's ``precision_recall_fscore_support`` with
    ``zero_division=0`` (a class never predicted, or absent, scores 0), F1 as
    ``2 tp / (2 tp + fp + fn)``; ``tests/test_cli_test_file.py`` checks them against it.
    """
    pred = cv.predictions
    labels = list(cv.classes)
    k = len(labels)
    place = {label: i for i, label in enumerate(labels)}
    true = np.array([place.get(v, -1) for v in pd.Series(pred["y_true"]).tolist()], dtype=np.int64)
    guess = np.array([place.get(v, -1) for v in pd.Series(pred["y_pred"]).tolist()], dtype=np.int64)
    both = (true >= 0) & (guess >= 0)  # rows whose labels are among the classes
    matrix = np.bincount(true[both] * k + guess[both], minlength=k * k).reshape(k, k)
    names = [str(c) for c in labels]
    confusion = pd.DataFrame(matrix, index=pd.Index(names, name="true"), columns=pd.Index(names, name="predicted"))
    hits = np.diag(matrix).astype(float)
    support = np.bincount(true[true >= 0], minlength=k)
    predicted = np.bincount(guess[guess >= 0], minlength=k)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, hits / predicted, 0.0)
        recall = np.where(support > 0, hits / support, 0.0)
        denominator = 2 * hits + (predicted - hits) + (support - hits)
        f1 = np.where(denominator > 0, 2 * hits / denominator, 0.0)
    per_class = pd.DataFrame(
        {"precision": precision, "recall": recall, "f1": f1, "support": support}, index=pd.Index(names, name="class")
    )
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
    model_verbose: int = 0,
) -> pd.DataFrame:
    """Cross-validated scores of multilabel classifier specs: one row per spec (means over folds).

    The folds are stratified on the least relevant label
    (:func:`bnclf.evaluation.multilabel_fold_scores`); columns ``model``,
    global and Hamming accuracy with their standard deviations, the rate of empty
    predictions, the same with empty predictions allowed (Bayesian networks), the mean
    treewidth and number of selected features, and the total ``fit_s`` and ``predict_s``.
    ``seed`` seeds the folds and the models that draw at random (``ecc``), unless their
    spec sets ``random_state`` (:func:`seeded`). ``model_verbose`` is each model's own
    ``verbose`` (:func:`with_verbose`).
    """
    verbose = verbose_from(verbose, progress, "evaluate_multilabel")
    from bnclf.evaluation._multilabel import multilabel_fold_scores, summarize_multilabel

    estimators = {
        spec: with_verbose(seeded(build_multilabel_model(spec, discretize, n_bins), seed, spec), model_verbose, spec)
        for spec in specs
    }
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


def with_verbose(estimator: BaseEstimator, verbose: int, spec: str | None = None) -> BaseEstimator:
    """``estimator`` with ``verbose=verbose`` wherever a bnclf model takes one (inside a
    pipeline or an ensemble too): the models that show a progress bar while they fit (ETAN, the searches,
    the BN ensemble's bridge) show it. A ``verbose`` that the classifier ``spec`` sets is
    kept; a ``verbose`` of 0, and a model without the parameter, leave it as it is. The model
    is cloned before it is changed.
    """
    if not verbose or not hasattr(estimator, "get_params"):
        return estimator
    if spec is not None:
        from bnclf.models._registry import parse_classifier_spec

        if "verbose" in parse_classifier_spec(spec)[1]:
            return estimator  # the spec's own verbosity
    params = estimator.get_params(deep=True)

    def owner(key: str):  # the estimator whose parameter ``key`` is
        return params[key.rpartition("__")[0]] if "__" in key else estimator

    # bnclf's own models only: scikit-learn's Pipeline takes verbose too (its step timings)
    keys = [
        key
        for key in params
        if key.rpartition("__")[2] == "verbose" and not params[key] and type(owner(key)).__module__.startswith("bnclf.")
    ]
    if not keys:
        return estimator
    from sklearn.base import clone

    return clone(estimator).set_params(**dict.fromkeys(keys, int(verbose)))


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
