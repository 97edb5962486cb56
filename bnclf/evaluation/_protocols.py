"""Cross-validation protocols that keep every prediction.

- :func:`make_cv_splits`: stratified k-fold or r×k repeated stratified k-fold
  splits from a seed; all classifiers compared on a dataset use the same splits
  (Kelner & Lerner 2012: "all evaluated algorithms were compared using the same permutations
  and CV folds").
- :func:`cross_validate_predictions`: fits the estimator on each training fold
  (with the discretizer, when given, fitted inside the training fold as the first
  step of a pipeline) and keeps predicted labels and class probabilities for
  every test row, with its row position, fold and repeat, in a
  :class:`CVPredictions`, from which any metric can be computed afterwards.
- :func:`multilabel_cv_splits` / :func:`cross_validate_multilabel`: k-fold CV
  stratified on the least relevant label (Corani et al. 2014).

Folds run in parallel with joblib (``n_jobs``) and show a tqdm progress bar when
``verbose=1``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state

import bnclf.evaluation._metrics as _m
from bnclf._folds import fold_of_each_row
from bnclf._params import verbose_from
from bnclf.encoding._frames import MAX_INTEGER_CATEGORIES, sorted_labels
from bnclf.inference._kernels import log_posterior
from bnclf.models._base import BayesNetClassifier

__all__ = [
    "Split",
    "make_cv_splits",
    "least_relevant_label",
    "multilabel_cv_splits",
    "resolve_discretizer",
    "build_pipeline",
    "CVPredictions",
    "cross_validate_predictions",
    "cross_validate_many",
    "MultilabelCVPredictions",
    "cross_validate_multilabel",
    "FOLD_METRICS",
]


class Split(NamedTuple):
    """One train/test split: repeat and fold numbers and positional indices."""

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray


def make_cv_splits(
    y: ArrayLike,
    *,
    n_splits: int = 10,
    n_repeats: int = 1,
    random_state: int | np.random.RandomState | None = 0,
    stratify: bool = True,
    shuffle: bool = True,
) -> list[Split]:
    """Stratified (repeated) k-fold splits.

    Repeat r shuffles with a generator drawn from ``random_state``, so the
    first repeat of an r×k CV equals the 1×k CV with the same seed, and the
    same seed always gives the same folds.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels to stratify on.
    n_splits : int, default=10
        Number of folds k.
    n_repeats : int, default=1
        Number of repetitions r (each with a new random permutation).
    random_state : int, RandomState or None, default=0
    stratify : bool, default=True
        Stratified folds (class proportions kept in every fold); plain k-fold
        when False.
    shuffle : bool, default=True
        Shuffle before splitting (needed for more than one repeat).

    Returns
    -------
    list of Split
        ``n_repeats * n_splits`` splits of positional indices.
    """
    y = np.asarray(y)
    n_splits, n_repeats = int(n_splits), int(n_repeats)
    if n_splits < 2:
        raise ValueError(
            f"n_splits={n_splits}: a k-fold cross-validation needs at least 2 folds (command line: "
            "--folds 2 or more; 10 is the papers' protocol)."
        )
    if n_splits > len(y):
        raise ValueError(
            f"n_splits={n_splits} folds are more than the {len(y)} rows: every fold needs a test row; use "
            f"at most {len(y)} folds (command line: --folds {min(10, len(y))})."
        )
    if n_repeats < 1:
        raise ValueError(f"n_repeats must be at least 1, got {n_repeats}")
    if n_repeats > 1 and not shuffle:
        raise ValueError("n_repeats > 1 needs shuffle=True")

    rng = check_random_state(random_state)
    splits = []
    for r in range(n_repeats):
        seed = rng.randint(np.iinfo(np.int32).max) if shuffle else None
        with warnings.catch_warnings():
            # "The least populated class in y has only m members" — folds are
            # still made; the test fold just misses that class sometimes.
            warnings.filterwarnings("ignore", message="The least populated class")
            folds = fold_of_each_row(y, n_splits, stratified=stratify, shuffle=shuffle, random_state=seed)
        for f in range(n_splits):
            splits.append(Split(r, f, np.flatnonzero(folds != f), np.flatnonzero(folds == f)))
    return splits


def warn_small_classes(y: ArrayLike, n_splits: int, where: str = "") -> None:
    """Warn when a class has fewer rows than there are folds: some test folds then lack it,
    so its per-class scores rest on a few rows and the fold means mix folds with and without
    it (stratification cannot spread 2 rows over 10 folds)."""
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    small = [(label, int(n)) for label, n in zip(labels.tolist(), counts.tolist()) if n < n_splits]
    if not small:
        return
    shown = ", ".join(f"{label!r} ({n} row{'s' if n != 1 else ''})" for label, n in small[:5])
    more = f" and {len(small) - 5} more" if len(small) > 5 else ""
    fewest = min(n for _, n in small)
    warnings.warn(
        f"{where}{'classes' if len(small) > 1 else 'class'} {shown}{more} {'have' if len(small) > 1 else 'has'} "
        f"fewer rows than the {n_splits} folds, so some test folds lack {'them' if len(small) > 1 else 'it'}: "
        f"{'their' if len(small) > 1 else 'its'} per-class scores rest on a few rows; use fewer folds "
        f"(--folds {max(2, fewest)}) or merge rare classes.",
        UserWarning,
        stacklevel=3,
    )


def least_relevant_label(Y: ArrayLike | pd.DataFrame) -> int:
    """Column index of the label least often relevant (fewest ones).

    Ties go to the first such label.
    """
    Y = np.asarray(Y)
    if Y.ndim != 2:
        raise ValueError(f"Y must be 2-D (n_samples, n_labels), got shape {Y.shape}")
    return int(np.argmin((Y != 0).sum(axis=0)))


def multilabel_cv_splits(
    Y: ArrayLike | pd.DataFrame,
    *,
    n_splits: int = 5,
    n_repeats: int = 1,
    random_state: int | np.random.RandomState | None = 0,
) -> list[Split]:
    """k-fold splits for multilabel data, stratified on the least relevant label.

    References
    ----------
    .. [1] Corani, G., Antonucci, A., Mauá, D. D., Gabaglio, S. (2014). Trading
       off speed and accuracy in multilabel classification. PGM 2014, §5: "We
       stratify training and test sets according to the least relevant label".
    """
    Y = np.asarray(Y)
    j = least_relevant_label(Y)
    return make_cv_splits(Y[:, j], n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)


_DISCRETIZERS = {
    "mdl": ("bnclf.encoding", "MDLDiscretizer", {}),
    "quantile": ("bnclf.encoding", "QuantileDiscretizer", {}),
}


def resolve_discretizer(discretizer: str | BaseEstimator | None, *, n_bins: int | None = None) -> BaseEstimator | None:
    """Turn ``"mdl"``, ``"quantile"``, ``"none"``/None or a transformer into a transformer.

    The named discretizers are imported lazily from :mod:`bnclf.encoding`;
    ``n_bins`` sets the number of bins of ``"quantile"``. Returns None when no
    discretization is wanted.
    """
    if discretizer is None:
        return None
    if isinstance(discretizer, str):
        key = discretizer.strip().lower()
        if key in ("none", "", "no"):
            return None
        if key not in _DISCRETIZERS:
            raise ValueError(
                f"unknown discretizer {discretizer!r}; expected one of "
                f"{sorted(_DISCRETIZERS) + ['none']} or a transformer instance"
            )
        module, name, params = _DISCRETIZERS[key]
        if key == "quantile" and n_bins is not None:
            params = {**params, "n_bins": n_bins}
        import importlib

        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:  # pragma: no cover - transitional
            raise ImportError(f"discretizer {discretizer!r} needs {module}.{name}: {exc}") from exc
        return cls(**params)
    if not (hasattr(discretizer, "fit") and hasattr(discretizer, "transform")):
        raise TypeError(f"discretizer must be a name or a transformer, got {discretizer!r}")
    return discretizer


def build_pipeline(estimator: BaseEstimator, discretizer: str | BaseEstimator | None = None) -> BaseEstimator:
    """Fresh (cloned) estimator, preceded by a cloned discretizer when given.

    The discretizer is a pipeline step, so it is fitted on each training fold
    only and merely applied to the test fold.
    """
    disc = resolve_discretizer(discretizer)
    est = clone(estimator)
    if disc is None:
        return est
    from sklearn.pipeline import make_pipeline  # imported when a discretizer is put first

    return make_pipeline(clone(disc), est)


def _take_rows(X, idx):
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    return X[idx]


def _aligned_proba(model, X_test, classes) -> np.ndarray:
    """predict_proba columns mapped onto the global class order (0 for unseen classes)."""
    if not hasattr(model, "predict_proba"):
        return np.full((_n_rows(X_test), len(classes)), np.nan)
    p = np.asarray(model.predict_proba(X_test), dtype=float)
    return _aligned(p, getattr(model, "classes_", classes), classes)


def _aligned(p, model_classes, classes) -> np.ndarray:
    out = np.zeros((p.shape[0], len(classes)))
    lookup = {c: i for i, c in enumerate(classes.tolist())}
    for j, c in enumerate(list(model_classes)):
        if c in lookup:
            out[:, lookup[c]] = p[:, j]
    return out


def _has_text_columns(X) -> bool:
    """Whether ``X`` has a column of strings, objects or categories (which many scikit-learn
    estimators cannot take as they are)."""
    if isinstance(X, pd.DataFrame):
        return any(
            isinstance(t, pd.CategoricalDtype) or pd.api.types.is_object_dtype(t) or pd.api.types.is_string_dtype(t)
            for t in X.dtypes
        )
    return np.asarray(X).dtype.kind in "OUS"


def shared_categories(
    X_train: pd.DataFrame | np.ndarray, X_test: pd.DataFrame | np.ndarray
) -> tuple[pd.DataFrame | np.ndarray, pd.DataFrame | np.ndarray]:
    """The training and test rows of one fold with their discrete columns made categorical
    once, so that every classifier of the fold codes them by the categories alone.

    A column of strings, objects, booleans or integers becomes categorical, with the
    categories of the training rows in the order bnclf's encoder gives them (so every
    model is the one the raw column gives, bit for bit); the test column gets those
    categories followed by its values that training lacks, which stay unseen (summed
    out) rather than missing. Float and already categorical columns, and inputs that
    are not DataFrames, are left as they are.
    """
    if not isinstance(X_train, pd.DataFrame) or not isinstance(X_test, pd.DataFrame):
        return X_train, X_test
    train, test = {}, {}
    for name in X_train.columns:
        column = X_train[name]
        dtype = column.dtype
        if (
            isinstance(dtype, pd.CategoricalDtype)
            or pd.api.types.is_float_dtype(dtype)
            or (pd.api.types.is_integer_dtype(dtype) and column.nunique() > MAX_INTEGER_CATEGORIES)
        ):
            continue  # left to the encoder (its checks and warnings included)
        labels = sorted_labels(np.asarray(column.dropna().unique(), dtype=object))
        extra = [
            v for v in sorted_labels(np.asarray(X_test[name].dropna().unique(), dtype=object)) if v not in set(labels)
        ]
        train[name] = pd.Categorical(column, categories=pd.Index(labels, dtype=object))
        test[name] = pd.Categorical(X_test[name], categories=pd.Index(labels + extra, dtype=object))
    if not train:
        return X_train, X_test
    return X_train.assign(**train) if all(isinstance(k, str) for k in train) else _replace(
        X_train, train
    ), X_test.assign(**test) if all(isinstance(k, str) for k in test) else _replace(X_test, test)


def _replace(frame, columns):
    frame = frame.copy()
    for name, values in columns.items():
        frame[name] = values
    return frame


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _run_fold_shared(estimators, X, y, split: Split, classes, discretizer, contexts=(), keep_going=False):
    """Every estimator on one split, the discretizer fitted once and shared.

    The discretizer is fitted on the training rows once and applies to the training
    and test rows once; every estimator (cloned) then fits and predicts on the same
    discretized rows, which is what ``make_pipeline(discretizer, estimator)`` per
    estimator would give, without refitting the discretizer for each. The time to
    discretize is added to every estimator's ``fit_time`` (the pipeline's fit) and
    ``predict_time``. Returns one result dict (fold, test rows, predictions, probabilities, times) per estimator;
    with ``keep_going`` a failing estimator gives ``{"error": message}``.
    """
    X_tr, X_te = _take_rows(X, split.train), _take_rows(X, split.test)
    y_tr = y[split.train]
    disc = resolve_discretizer(discretizer)
    fit_extra = predict_extra = 0.0
    if disc is not None:
        t0 = time.perf_counter()
        disc = clone(disc)
        X_tr = disc.fit_transform(X_tr, y_tr)
        t1 = time.perf_counter()
        X_te = disc.transform(X_te)
        fit_extra, predict_extra = t1 - t0, time.perf_counter() - t1
    out = []
    contexts = list(contexts) or [""] * len(estimators)
    if all(isinstance(e, BayesNetClassifier) for e in estimators):
        t0 = time.perf_counter()
        X_tr, X_te = shared_categories(X_tr, X_te)
        fit_extra += time.perf_counter() - t0
    for estimator, context in zip(estimators, contexts):
        model = clone(estimator)
        try:
            t0 = time.perf_counter()
            model.fit(X_tr, y_tr)
            t1 = time.perf_counter()
            if isinstance(model, BayesNetClassifier):  # one pass gives both
                jll = model.predict_joint_log_proba(X_te)
                y_pred = model.classes_[np.argmax(jll, axis=1)]
                proba = _aligned(np.exp(log_posterior(jll)), model.classes_, classes)
            else:
                y_pred = np.asarray(model.predict(X_te))
                proba = _aligned_proba(model, X_te, classes)
            t2 = time.perf_counter()
        except Exception as exc:
            where = f"{context} " if context else ""
            message = f"{where}repeat {split.repeat} fold {split.fold}: {type(exc).__name__}: {exc}"
            if not isinstance(model, BayesNetClassifier) and _has_text_columns(X_tr):
                message += (
                    " (this estimator gets the discrete columns as text, e.g. intervals such as "
                    "'(-inf, 5.45]'; put an encoder first: make_pipeline(OrdinalEncoder(), CategoricalNB()))"
                )
            if keep_going:
                out.append({"error": message})
                continue
            raise RuntimeError(message) from exc
        out.append(
            {
                "repeat": split.repeat,
                "fold": split.fold,
                "test": split.test,
                "y_pred": y_pred,
                "proba": proba,
                "n_train": len(split.train),
                "fit_time": fit_extra + t1 - t0,
                "predict_time": predict_extra + t2 - t1,
            }
        )
    return out


def worker_count(n_jobs: int | None, n_tasks: int | None = None) -> int:
    """The number of worker processes for ``n_jobs`` (joblib's meaning: ``-1`` all cores,
    ``-2`` all but one, ...), at most the machine's cores and the number of tasks.

    A request beyond the cores warns and runs on the cores: more processes than cores only
    add memory (each worker holds its copy of the data) and start-up time.
    """
    from joblib import cpu_count

    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(
            f"n_jobs={n_jobs!r} is not a number of jobs; use a positive number, or -1 for every core "
            "(command line: --jobs N)."
        )
    cores = max(1, cpu_count())
    wanted = int(n_jobs) if n_jobs > 0 else max(1, cores + 1 + int(n_jobs))
    if wanted > cores:
        warnings.warn(
            f"n_jobs={n_jobs} is more than the {cores} cores of this machine; running {cores} workers.",
            UserWarning,
            stacklevel=3,
        )
    workers = min(wanted, cores)
    return max(1, min(workers, n_tasks)) if n_tasks is not None else workers


class _WarningsKept:
    """``func(*args)`` and the warnings it raised, ``(result, [(text, category), ...])``: a
    worker process's warnings are raised again by the process that gathers the results, so
    they reach its filters and the command line (one line each, once), not the worker's
    standard error in Python's raw format."""

    def __init__(self, func) -> None:
        self.func = func

    def __call__(self, *args):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = self.func(*args)
        return result, [(str(w.message), w.category) for w in caught]


def _parallel_map(func, tasks, *, n_jobs=1, verbose=0, desc=None, total=None):
    """Run ``func(*task)`` for each task (in order), with joblib and tqdm, on at most as
    many workers as there are cores and tasks (:func:`worker_count`)."""
    from joblib import Parallel, delayed

    from bnclf._config import ConfiguredCall

    total = len(tasks) if total is None and hasattr(tasks, "__len__") else total
    n_jobs = worker_count(n_jobs, total)
    bar = None
    if verbose:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=desc, leave=False)
    results = []
    try:
        if n_jobs in (None, 1):
            for task in tasks:
                results.append(func(*task))
                if bar is not None:
                    bar.update(1)
        else:
            call = ConfiguredCall(_WarningsKept(func))  # the workers see this process's bnclf.set_config
            gen = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(call)(*t) for t in tasks)
            for res, caught in gen:
                for message, category in caught:  # raised here, as if run in this process
                    warnings.warn(message, category, stacklevel=2)
                results.append(res)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return results


FOLD_METRICS = ("zero_one_loss", "accuracy", "log_loss", "auc")


def _fold_metric(name, y_true, y_pred, proba, classes):
    if name == "zero_one_loss":
        return _m.zero_one_loss(y_true, y_pred)
    if name == "accuracy":
        return _m.accuracy(y_true, y_pred)
    if name == "kappa":  # Cohen's: the agreement of the predictions with the truth beyond chance
        return _m.kappa(y_true, y_pred, classes)
    if name == "log_loss":
        if np.isnan(proba).any():
            return float("nan")
        return _m.log_loss(y_true, proba, classes)
    if name == "auc":
        if np.isnan(proba).any():
            return float("nan")
        return _m.roc_auc(y_true, proba, classes)
    raise ValueError(f"unknown metric {name!r}; known: {(*FOLD_METRICS, 'kappa')}")


@dataclass
class CVPredictions:
    """Every test-fold prediction of one estimator on one dataset.

    Attributes
    ----------
    predictions : pandas.DataFrame
        One row per (repeat, test instance): ``repeat``, ``fold``, ``row``
        (position in X), ``index`` (X's index label), ``y_true``, ``y_pred``.
        Sorted by repeat and row.
    proba : numpy.ndarray of shape (len(predictions), n_classes)
        Class probabilities aligned with ``predictions`` rows; columns follow
        ``classes`` (0 for a class missing from a training fold).
    classes : numpy.ndarray
        All labels of y, sorted.
    folds : pandas.DataFrame
        One row per split: ``repeat``, ``fold``, ``n_train``, ``n_test``,
        ``fit_time``, ``predict_time`` (seconds).
    """

    predictions: pd.DataFrame
    proba: np.ndarray
    classes: np.ndarray
    folds: pd.DataFrame

    @property
    def n_repeats(self) -> int:
        return int(self.folds["repeat"].nunique())

    def fold_scores(
        self, metrics: str | Sequence[str] | dict[str, str | Callable[..., float]] = FOLD_METRICS
    ) -> pd.DataFrame:
        """Metric values per (repeat, fold), with sizes and times.

        Parameters
        ----------
        metrics : sequence of str or dict of name -> callable
            Names from ``FOLD_METRICS`` (``"auc"`` is the binary AUC or the
            Hand–Till M for more classes) or ``"kappa"`` (Cohen's κ of the
            predictions against the truth), or callables
            ``f(y_true, y_pred, proba, classes) -> float``.
        """
        if isinstance(metrics, str):
            metrics = (metrics,)
        items = metrics.items() if isinstance(metrics, dict) else [(m, m) for m in metrics]
        rows = []
        pred = self.predictions
        groups = pred.groupby(["repeat", "fold"], sort=True).indices
        y_true_all = pred["y_true"].to_numpy()
        y_pred_all = pred["y_pred"].to_numpy()
        for _, frow in self.folds.iterrows():
            r, f = int(frow["repeat"]), int(frow["fold"])
            sel = groups.get((r, f), np.empty(0, dtype=int))
            yt, yp, pr = y_true_all[sel], y_pred_all[sel], self.proba[sel]
            row = {"repeat": r, "fold": f}
            for name, m in items:
                if callable(m):
                    row[name] = float(m(yt, yp, pr, self.classes))
                else:
                    row[name] = _fold_metric(m, yt, yp, pr, self.classes)
            row.update({k: frow[k] for k in ("n_train", "n_test", "fit_time", "predict_time")})
            rows.append(row)
        out = pd.DataFrame(rows)
        for c in ("repeat", "fold", "n_train", "n_test"):
            out[c] = out[c].astype(int)
        return out

    def oof(self, repeat: int = 0) -> pd.DataFrame:
        """The out-of-fold predictions of one repeat (each row exactly once)."""
        return self.predictions[self.predictions["repeat"] == repeat]

    def prediction_matrix(self) -> np.ndarray:
        """Predicted labels as an array of shape (n_repeats, n_samples), by row."""
        pred = self.predictions.sort_values(["repeat", "row"])
        n = pred["row"].max() + 1
        r = self.n_repeats
        if len(pred) != n * r:
            raise ValueError("every row must be predicted once per repeat")
        return pred["y_pred"].to_numpy().reshape(r, n)

    def bias_variance(self) -> _m.KohaviWolpertResult:
        """Kohavi–Wolpert decomposition over the repeats (needs n_repeats > 1).

        In repeat r every instance is predicted by a model trained on a
        different training set; the r predictions of an instance estimate the
        distribution of the predicted label.
        """
        mat = self.prediction_matrix()
        y_true = self.oof(int(self.predictions["repeat"].min())).sort_values("row")["y_true"]
        return _m.kohavi_wolpert(y_true.to_numpy(), mat, classes=self.classes)


def cross_validate_predictions(
    estimator: BaseEstimator,
    X: ArrayLike | pd.DataFrame,
    y: ArrayLike,
    *,
    n_splits: int = 10,
    n_repeats: int = 1,
    discretizer: str | BaseEstimator | None = None,
    random_state: int | np.random.RandomState | None = 0,
    splits: Sequence[Split] | None = None,
    n_jobs: int | None = 1,
    verbose: int = 0,
    context: str = "",
    progress: bool | None = None,
) -> CVPredictions:
    """Cross-validate an estimator and keep all test-fold predictions.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Cloned for every fold; never fitted in place.
    X : DataFrame or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_splits, n_repeats : int
        r×k repeated stratified CV (default 1×10).
    discretizer : {"mdl", "quantile", "none"}, transformer or None
        When given, the estimator is wrapped as
        ``make_pipeline(discretizer, estimator)``, so discretization is learned
        on each training fold only.
    random_state : int, RandomState or None, default=0
        Seed for the folds.
    splits : list of Split, optional
        Precomputed splits (overrides n_splits/n_repeats/random_state), e.g. to
        give several classifiers the very same folds.
    n_jobs : int, default=1
        Folds run in parallel with joblib.
    verbose : int, default=0
        Show a tqdm progress bar over folds. when 1 (or True).
    progress : bool, optional
        Deprecated: the old name of ``verbose`` (a ``FutureWarning``; it goes in 0.3).
    context : str
        Prefix for error messages (e.g. dataset and classifier names).

    Returns
    -------
    CVPredictions

    References
    ----------
    .. [1] Kohavi, R. (1995). A study of cross-validation and bootstrap for
       accuracy estimation and model selection. IJCAI 1995, 1137–1143.
    .. [2] Sun, Wang, Sun (2017). Label-Driven Learning Framework. Entropy 19,
       661, §4 (MDL discretization, 10-fold CV).
    .. [3] Kelner, R., Lerner, B. (2012). Learning Bayesian network classifiers
       by risk minimization. IJAR 53, 248–272, §5 (10×CV5, the same folds for
       all classifiers).
    """
    verbose = verbose_from(verbose, progress, "cross_validate_predictions")
    return cross_validate_many(
        [estimator],
        X,
        y,
        n_splits=n_splits,
        n_repeats=n_repeats,
        discretizer=discretizer,
        random_state=random_state,
        splits=splits,
        n_jobs=n_jobs,
        verbose=verbose,
        contexts=[context],
    )[0]


def cross_validate_many(
    estimators: Sequence[BaseEstimator],
    X: ArrayLike | pd.DataFrame,
    y: ArrayLike,
    *,
    n_splits: int = 10,
    n_repeats: int = 1,
    discretizer: str | BaseEstimator | None = None,
    random_state: int | np.random.RandomState | None = 0,
    splits: Sequence[Split] | None = None,
    n_jobs: int | None = 1,
    verbose: int = 0,
    contexts: Sequence[str] = (),
    progress: bool | None = None,
) -> list[CVPredictions]:
    """:func:`cross_validate_predictions` of several estimators on the same folds, each
    fold's discretizer fitted once and its rows coded once for all of them.

    Parameters are those of :func:`cross_validate_predictions`, with ``estimators`` and
    one error-message prefix per estimator in ``contexts``. Returns one
    :class:`CVPredictions` per estimator, in order, equal to what
    :func:`cross_validate_predictions` gives for each on its own (the discretizer is
    fitted on the training rows of each fold either way).
    """
    verbose = verbose_from(verbose, progress, "cross_validate_many")
    y_arr = np.asarray(y)
    if y_arr.ndim != 1:
        raise ValueError("y must be 1-D; use cross_validate_multilabel for multilabel data")
    if _n_rows(X) != len(y_arr):
        raise ValueError(f"X has {_n_rows(X)} rows but y has {len(y_arr)}")
    if splits is None:
        splits = make_cv_splits(y_arr, n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
    classes = np.unique(y_arr)
    estimators, contexts = list(estimators), list(contexts) or [""] * len(estimators)
    tasks = [(estimators, X, y_arr, s, classes, discretizer, contexts) for s in splits]
    desc = contexts[0] if len(estimators) == 1 and contexts[0] else "folds"
    results = _parallel_map(_run_fold_shared, tasks, n_jobs=n_jobs, verbose=verbose, desc=desc)
    return [_collect([fold[i] for fold in results], X, y_arr, classes) for i in range(len(estimators))]


def _collect(results, X, y_arr, classes) -> CVPredictions:
    index = X.index.to_numpy() if hasattr(X, "index") else np.arange(len(y_arr))
    parts, probas, folds = [], [], []
    for res in results:
        te = res["test"]
        parts.append(
            pd.DataFrame(
                {
                    "repeat": res["repeat"],
                    "fold": res["fold"],
                    "row": te,
                    "index": index[te],
                    "y_true": y_arr[te],
                    "y_pred": res["y_pred"],
                }
            )
        )
        probas.append(res["proba"])
        folds.append(
            {
                "repeat": res["repeat"],
                "fold": res["fold"],
                "n_train": res["n_train"],
                "n_test": len(te),
                "fit_time": res["fit_time"],
                "predict_time": res["predict_time"],
            }
        )
    pred = pd.concat(parts, ignore_index=True)
    proba = np.vstack(probas) if probas else np.empty((0, len(classes)))
    order = np.lexsort((pred["row"].to_numpy(), pred["repeat"].to_numpy()))
    pred = pred.iloc[order].reset_index(drop=True)
    proba = proba[order]
    return CVPredictions(pred, proba, classes, pd.DataFrame(folds))


def _run_multilabel_fold(estimator, X, Y, split, discretizer):
    model = build_pipeline(estimator, discretizer)
    t0 = time.perf_counter()
    model.fit(_take_rows(X, split.train), _take_rows(Y, split.train))
    t1 = time.perf_counter()
    Y_pred = np.asarray(model.predict(_take_rows(X, split.test)))
    t2 = time.perf_counter()
    return split, Y_pred, t1 - t0, t2 - t1


@dataclass
class MultilabelCVPredictions:
    """Test-fold predictions of a multilabel classifier.

    Attributes
    ----------
    rows : pandas.DataFrame
        ``repeat``, ``fold``, ``row`` for each predicted instance.
    Y_true, Y_pred : numpy.ndarray of shape (len(rows), n_labels)
    folds : pandas.DataFrame
        Sizes, times, global and Hamming accuracy per fold.
    """

    rows: pd.DataFrame
    Y_true: np.ndarray
    Y_pred: np.ndarray
    folds: pd.DataFrame

    def scores(self) -> pd.Series:
        """Mean global and Hamming accuracy over folds."""
        return self.folds[["global_accuracy", "hamming_accuracy"]].mean()


def cross_validate_multilabel(
    estimator: BaseEstimator,
    X: ArrayLike | pd.DataFrame,
    Y: ArrayLike | pd.DataFrame,
    *,
    n_splits: int = 5,
    n_repeats: int = 1,
    discretizer: str | BaseEstimator | None = None,
    random_state: int | np.random.RandomState | None = 0,
    n_jobs: int | None = 1,
    verbose: int = 0,
    progress: bool | None = None,
) -> MultilabelCVPredictions:
    """k-fold CV of a multilabel classifier, stratified on the least relevant label.

    ``estimator.fit(X, Y)`` with ``Y`` of shape (n_samples, n_labels) and
    ``predict`` returning the same shape. Global (exact-match) and Hamming
    accuracy are computed per fold (Corani et al. 2014 use 5 folds).
    """
    verbose = verbose_from(verbose, progress, "cross_validate_multilabel")
    Y_arr = np.asarray(Y)
    splits = multilabel_cv_splits(Y_arr, n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
    tasks = [(estimator, X, Y, s, discretizer) for s in splits]
    results = _parallel_map(_run_multilabel_fold, tasks, n_jobs=n_jobs, verbose=verbose, desc="folds")
    rows, yt, yp, folds = [], [], [], []
    for split, Y_pred, fit_t, pred_t in results:
        Y_te = Y_arr[split.test]
        rows.append(pd.DataFrame({"repeat": split.repeat, "fold": split.fold, "row": split.test}))
        yt.append(Y_te)
        yp.append(Y_pred)
        folds.append(
            {
                "repeat": split.repeat,
                "fold": split.fold,
                "n_train": len(split.train),
                "n_test": len(split.test),
                "global_accuracy": _m.global_accuracy(Y_te, Y_pred),
                "hamming_accuracy": _m.hamming_accuracy(Y_te, Y_pred),
                "fit_time": fit_t,
                "predict_time": pred_t,
            }
        )
    return MultilabelCVPredictions(
        pd.concat(rows, ignore_index=True), np.vstack(yt), np.vstack(yp), pd.DataFrame(folds)
    )
