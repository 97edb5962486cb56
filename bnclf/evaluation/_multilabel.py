"""Cross-validation of multilabel classifiers by the protocol of Corani et al. (2014, section 5).

- :func:`global_accuracy`, :func:`hamming_accuracy`, :func:`empty_rate`: the
  fold metrics;
- :func:`least_relevant_label_folds`: k-fold splits stratified on the label
  with the fewest positives;
- :func:`multilabel_fold_scores`: every classifier on the same folds, one
  row per (classifier, fold) with both accuracies, the rate of empty
  predictions, times and, for the multilabel Bayesian networks, the treewidth,
  the number of selected features and both accuracies with empty predictions
  allowed on the same fitted model (the paper's Table 5 [1]_);
- :func:`summarize_multilabel`: mean and standard deviation per classifier;
- :func:`compare_multilabel`: the same over several data sets, as a tidy frame
  that :func:`bnclf.evaluation.summarize` ranks and tests
  (``zero_one_loss`` is one minus the global accuracy, the subset 0/1 loss).

References
----------
.. [1] Corani, G., Antonucci, A., Mauá, D. D., Gabaglio, S. (2014). Trading off
   speed and accuracy in multilabel classification. PGM 2014.
"""

from __future__ import annotations

import os
import time
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, clone

from bnclf._params import verbose_from
from bnclf.evaluation._metrics import global_accuracy, hamming_accuracy
from bnclf.evaluation._protocols import _parallel_map, _take_rows, multilabel_cv_splits

__all__ = [
    "global_accuracy",
    "hamming_accuracy",
    "empty_rate",
    "least_relevant_label_folds",
    "multilabel_fold_scores",
    "summarize_multilabel",
    "load_multilabel_spec",
    "compare_multilabel",
    "split_label_columns",
    "multilabel_report",
    "MULTILABEL_SCORES",
]


#: Per-fold score columns of :func:`multilabel_fold_scores` (higher is better, but the rate).
MULTILABEL_SCORES = (
    "global_accuracy",
    "hamming_accuracy",
    "empty_rate",
    "global_accuracy_empty_allowed",
    "hamming_accuracy_empty_allowed",
    "empty_rate_empty_allowed",
)


def empty_rate(Y_pred: ArrayLike | pd.DataFrame) -> float:
    """Fraction of rows predicted with no relevant label.

    Parameters
    ----------
    Y_pred : array-like of shape (n_samples, n_labels)
        0/1 predictions.

    Returns
    -------
    float
    """
    Y_pred = np.asarray(Y_pred)
    if Y_pred.ndim != 2:
        raise ValueError(f"Y_pred must be 2-D (n_samples, n_labels), got shape {Y_pred.shape}")
    if not len(Y_pred):
        return float("nan")
    return float(np.mean(~(Y_pred != 0).any(axis=1)))


def _label_matrix(Y):
    from bnclf.models._multilabel import as_label_matrix

    return as_label_matrix(Y)


def least_relevant_label_folds(
    Y: ArrayLike | pd.DataFrame,
    n_splits: int = 5,
    random_state: int | np.random.RandomState | None = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """k-fold ``(train, test)`` positions stratified on the least relevant label.

    The least relevant label is the one with the fewest positives (the first
    such label on ties); stratified k-fold on it keeps its positives spread
    over the folds (Corani et al. 2014, section 5). The folds are those of
    :func:`bnclf.evaluation.multilabel_cv_splits` with the same seed.

    Parameters
    ----------
    Y : DataFrame or array-like of shape (n_samples, n_labels)
        0/1 label matrix.
    n_splits : int, default=5
    random_state : int, default=0
        Seed of the shuffle.

    Returns
    -------
    list of (ndarray, ndarray)
        Training and test row positions per fold (usable as ``cv=`` in scikit-learn).
    """
    labels, _ = _label_matrix(Y)
    return [(s.train, s.test) for s in multilabel_cv_splits(labels, n_splits=n_splits, random_state=random_state)]


def _resolve(estimators, seed: int | None = None) -> list[tuple[str, object]]:
    """``(name, estimator)`` pairs, each seeded with ``seed`` (:func:`~bnclf.evaluation._reports.seeded`)."""
    from bnclf.evaluation._reports import seeded
    from bnclf.models._registry import make_multilabel_classifier

    if isinstance(estimators, str) or hasattr(estimators, "fit"):
        estimators = [estimators]
    if isinstance(estimators, dict):
        pairs = [(str(name), spec) for name, spec in estimators.items()]
    else:
        pairs = [(spec.strip() if isinstance(spec, str) else type(spec).__name__, spec) for spec in estimators]
    items = [
        (name, seeded(make_multilabel_classifier(spec), seed, spec if isinstance(spec, str) else None))
        for name, spec in pairs
    ]
    if not items:
        raise ValueError("no classifiers given")
    names = [name for name, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"classifier names repeat: {names}; give a dict of distinct names.")
    return items


def _run_fold(name, estimator, X, Y, fold, train, test):
    """Fit a clone on the training rows, predict the test rows, score."""
    X_train, Y_train, X_test, Y_test = (
        _take_rows(X, train),
        _take_rows(Y, train),
        _take_rows(X, test),
        _take_rows(Y, test),
    )
    return score_split(name, estimator, X_train, Y_train, X_test, Y_test, fold)


def score_split(
    name: str,
    estimator: BaseEstimator,
    X_train: ArrayLike | pd.DataFrame,
    Y_train: ArrayLike | pd.DataFrame,
    X_test: ArrayLike | pd.DataFrame,
    Y_test: ArrayLike | pd.DataFrame,
    fold: int = 0,
) -> dict[str, Any]:
    """Fit a clone of ``estimator`` on the training rows, predict the test rows and score them:
    one row of :func:`multilabel_fold_scores` (the test rows of a fold, or a test file)."""
    model = clone(estimator)
    Y_test = Y_test.to_numpy() if hasattr(Y_test, "to_numpy") else np.asarray(Y_test)
    try:
        t0 = time.perf_counter()
        model.fit(X_train, Y_train)
        t1 = time.perf_counter()
        Y_pred = np.asarray(model.predict(X_test))
        t2 = time.perf_counter()
        row = {
            "classifier": name,
            "fold": fold,
            "n_train": len(Y_train),
            "n_test": len(Y_test),
            "global_accuracy": global_accuracy(Y_test, Y_pred),
            "hamming_accuracy": hamming_accuracy(Y_test, Y_pred),
            "empty_rate": empty_rate(Y_pred),
            "fit_time": t1 - t0,
            "predict_time": t2 - t1,
        }
        if "allow_empty" in model.get_params():
            kept = model.get_params()["allow_empty"]
            model.set_params(allow_empty=True)
            try:
                allowed = np.asarray(model.predict(X_test))
            finally:
                model.set_params(allow_empty=kept)
            row.update(
                {
                    "global_accuracy_empty_allowed": global_accuracy(Y_test, allowed),
                    "hamming_accuracy_empty_allowed": hamming_accuracy(Y_test, allowed),
                    "empty_rate_empty_allowed": empty_rate(allowed),
                }
            )
        treewidth = getattr(model, "treewidth_", None)
        selected = getattr(model, "selected_features_", None)
        row["treewidth"] = np.nan if treewidth is None else int(treewidth)
        row["n_selected_features"] = np.nan if selected is None else len(selected)
    except Exception as exc:
        raise RuntimeError(f"{name} fold {fold}: {type(exc).__name__}: {exc}") from exc
    return row


_COLUMNS = [
    "classifier",
    "fold",
    "n_train",
    "n_test",
    "global_accuracy",
    "hamming_accuracy",
    "empty_rate",
    "global_accuracy_empty_allowed",
    "hamming_accuracy_empty_allowed",
    "empty_rate_empty_allowed",
    "treewidth",
    "n_selected_features",
    "fit_time",
    "predict_time",
]


def multilabel_fold_scores(
    estimators: (str | BaseEstimator | Sequence[str | BaseEstimator] | Mapping[str, str | BaseEstimator]),
    X: ArrayLike | pd.DataFrame,
    Y: ArrayLike | pd.DataFrame,
    n_splits: int = 5,
    random_state: int | np.random.RandomState | None = 0,
    verbose: int = 1,
    n_jobs: int | None = 1,
    progress: bool | None = None,
) -> pd.DataFrame:
    """k-fold CV of multilabel classifiers on the same folds, stratified on the least relevant label.

    Parameters
    ----------
    estimators : dict, sequence, str or estimator
        ``name -> estimator or spec`` (specs such as ``"mnb"``, ``"mfan(alpha=2)"``,
        ``"br"``, ``"ecc"``: :func:`~bnclf.models.make_multilabel_classifier`);
        a sequence of specs or estimators is named by the specs (class names
        for estimators). Each is cloned per fold.
    X : DataFrame or array-like of shape (n_samples, n_features)
    Y : DataFrame or array-like of shape (n_samples, n_labels)
        0/1 label matrix; a DataFrame's column names reach the estimators.
    n_splits : int, default=5
    random_state : int, default=0
        Seed of the folds (:func:`least_relevant_label_folds`); an int also seeds the
        classifiers that draw at random (``ecc``), unless their spec sets ``random_state``
        (an estimator instance: only where its ``random_state`` is None).
    verbose : int, default=1
        Tqdm progress bar over the (classifier, fold) tasks. when 1 (or True).
    progress : bool, optional
        Deprecated: the old name of ``verbose`` (a ``FutureWarning``; it goes in 0.3).
    n_jobs : int, default=1
        Parallel tasks (joblib); -1 uses every core.

    Returns
    -------
    pandas.DataFrame
        One row per (classifier, fold): ``classifier, fold, n_train, n_test,
        global_accuracy, hamming_accuracy, empty_rate``, the same three with
        ``_empty_allowed`` (estimators with an ``allow_empty`` parameter,
        predicted again by the same fitted model with ``allow_empty=True``;
        NaN for the others), ``treewidth``, ``n_selected_features`` (NaN when
        the estimator has no ``treewidth_`` / ``selected_features_``),
        ``fit_time`` and ``predict_time`` in seconds.

    Examples
    --------
    >>> from bnclf.datasets import load_multilabel_dataset  # doctest: +SKIP
    >>> X, Y = load_multilabel_dataset("emotions")  # doctest: +SKIP
    >>> cv = multilabel_fold_scores({"mnb": "mnb", "br": "br"}, X, Y)  # doctest: +SKIP
    >>> summarize_multilabel(cv)[["global_accuracy", "hamming_accuracy"]]  # doctest: +SKIP
    """
    verbose = verbose_from(verbose, progress, "multilabel_fold_scores")
    seed = (
        int(random_state)
        if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool)
        else None
    )
    items = _resolve(estimators, seed)
    labels, names = _label_matrix(Y)
    Y = pd.DataFrame(labels.astype(np.int64), columns=names, index=getattr(Y, "index", None))
    n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
    if len(Y) != n_rows:
        raise ValueError(f"X has {n_rows} rows but Y has {len(Y)}; they must match.")
    folds = least_relevant_label_folds(Y, n_splits=n_splits, random_state=random_state)
    tasks = [(name, est, X, Y, f, train, test) for name, est in items for f, (train, test) in enumerate(folds)]
    rows = _parallel_map(_run_fold, tasks, n_jobs=n_jobs, verbose=verbose, desc="multilabel CV")
    out = pd.DataFrame(rows).reindex(columns=_COLUMNS)
    out.attrs["protocol"] = {
        "n_splits": int(n_splits),
        "random_state": random_state,
        "stratified_on": names[int(np.argmin(labels.sum(axis=0)))],
    }
    return out


def summarize_multilabel(results: pd.DataFrame) -> pd.DataFrame:
    """Mean per classifier of every score, with the standard deviation of both accuracies.

    Parameters
    ----------
    results : DataFrame
        As returned by :func:`multilabel_fold_scores` (with a ``dataset``
        column, as :func:`compare_multilabel` returns, one row per data set
        and classifier).

    Returns
    -------
    pandas.DataFrame
        Index ``classifier`` (or ``dataset, classifier``) in order of
        appearance; columns the means of the scores, ``global_accuracy_std``
        and ``hamming_accuracy_std`` (over folds, ``ddof=0``), the mean
        ``treewidth`` and ``n_selected_features``, and the total ``fit_time``
        and ``predict_time``.
    """
    keys = ["dataset", "classifier"] if "dataset" in results.columns else ["classifier"]
    grouped = results.groupby(keys, sort=False)
    scores = [c for c in MULTILABEL_SCORES + ("treewidth", "n_selected_features") if c in results.columns]
    out = grouped[scores].mean()
    for c in ("global_accuracy", "hamming_accuracy"):
        out.insert(out.columns.get_loc(c) + 1, f"{c}_std", grouped[c].std(ddof=0))
    out["fit_time"] = grouped["fit_time"].sum()
    out["predict_time"] = grouped["predict_time"].sum()
    return out


def load_multilabel_spec(
    spec: str | os.PathLike | tuple[Any, Any, Any],
    *,
    labels: Sequence[str] | None = None,
    n_labels: int | None = None,
    xml: str | os.PathLike | None = None,
    csv_options: Mapping[str, Any] | None = None,
) -> tuple[str, pd.DataFrame | np.ndarray, pd.DataFrame | np.ndarray]:
    """One multilabel data set as ``(name, X, Y)``.

    Parameters
    ----------
    spec : str, path or tuple
        The name of an embedded multilabel data set (``"emotions"``), a MULAN
        or MEKA ARFF file (labels from ``labels``, ``n_labels``, ``xml``, a
        sibling ``<stem>.xml`` or the MEKA ``-C`` relation tag; see
        :func:`bnclf.io.load_mulan`), a CSV file (labels from ``labels`` or
        ``n_labels``, the trailing columns), or a tuple ``(name, X, Y)``.
    labels : list of str, optional
        Names of the label columns.
    n_labels : int, optional
        The last ``n_labels`` columns are the labels.
    xml : path, optional
        MULAN XML file naming the labels (ARFF only).
    csv_options : dict, optional
        ``header``, ``sep``, ``names`` of :func:`bnclf.datasets.read_csv_table`.

    Returns
    -------
    name : str
    X : pandas.DataFrame
    Y : pandas.DataFrame
        0/1 label columns.
    """
    if isinstance(spec, tuple):
        if len(spec) != 3:
            raise ValueError("a multilabel data set tuple must be (name, X, Y)")
        name, X, Y = spec
        return str(name), X, Y
    text = str(spec)
    path = Path(text)
    lower = path.name.lower()
    if not path.exists():
        if lower.endswith((".arff", ".arff.gz", ".csv", ".csv.gz")):
            raise FileNotFoundError(f"no such file: {path}")
        from bnclf.datasets import load_multilabel_dataset

        if labels is not None or n_labels is not None or xml is not None:
            raise ValueError(
                f"{text!r} is an embedded data set; its labels are known (drop --labels, --n-labels and --xml)."
            )
        X, Y = load_multilabel_dataset(text)
        return text, X, Y
    stem = path.name
    for suffix in (".gz", ".arff", ".csv"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    if lower.endswith((".arff", ".arff.gz")):
        from bnclf.io._arff import load_mulan

        X, Y = load_mulan(path, labels, n_labels=n_labels, xml=xml)
        return stem, X, Y
    if xml is not None:
        raise ValueError(
            "an XML label file goes with a MULAN ARFF file; for a CSV file name the "
            "label columns (--labels) or count them (--n-labels)."
        )
    from bnclf.datasets import read_csv_table

    frame = read_csv_table(path, **(csv_options or {}))
    X, Y = split_label_columns(frame, labels=labels, n_labels=n_labels, source=str(path))
    return stem, X, Y


def split_label_columns(
    frame: pd.DataFrame,
    *,
    labels: Sequence[Hashable] | None = None,
    n_labels: int | None = None,
    source: str = "the data",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a table into features and 0/1 label columns, named or counted from the end.

    Parameters
    ----------
    frame : DataFrame
    labels : list, optional
        Label column names.
    n_labels : int, optional
        The last ``n_labels`` columns are the labels.
    source : str
        Named in error messages.

    Returns
    -------
    X, Y : DataFrame
        ``Y`` holds int 0/1 columns.
    """
    from bnclf.models._multilabel import as_label_matrix

    if labels is not None and n_labels is not None:
        raise ValueError("give the label columns by name (--labels) or by count (--n-labels), not both.")
    if labels is None and n_labels is None:
        raise ValueError(
            f"no labels given for {source}: name the label columns with --labels a,b,... "
            "or count the trailing label columns with --n-labels K."
        )
    if labels is not None:
        labels = list(labels)
        unknown = [c for c in labels if c not in frame.columns]
        if unknown:
            import difflib

            columns = [str(c) for c in frame.columns]
            lowered = {c.lower(): c for c in columns}
            similar = [lowered[c] for c in difflib.get_close_matches(str(unknown[0]).lower(), list(lowered), n=3)]
            hint = f"similar columns: {similar}" if similar else f"its last columns are {columns[-6:]}"
            raise ValueError(f"label {unknown[0]!r} is not a column of {source}; {hint} (names are case-sensitive).")
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels {labels} name a column twice.")
    else:
        if isinstance(n_labels, bool) or not 1 <= int(n_labels) < frame.shape[1]:
            raise ValueError(
                f"--n-labels {n_labels} is not valid for {source}, which has {frame.shape[1]} "
                "columns; give 1 .. columns - 1."
            )
        labels = list(frame.columns[-int(n_labels) :])
    codes, _ = as_label_matrix(frame[labels])
    X = frame.drop(columns=labels)
    Y = pd.DataFrame(codes.astype(np.int64), columns=labels, index=frame.index)
    return X, Y


def compare_multilabel(
    datasets: str | tuple | Sequence[str | os.PathLike | tuple],
    classifiers: (str | BaseEstimator | Sequence[str | BaseEstimator] | Mapping[str, str | BaseEstimator]),
    *,
    n_splits: int = 5,
    random_state: int | np.random.RandomState | None = 0,
    n_jobs: int | None = 1,
    verbose: int = 1,
    labels: Sequence[str] | None = None,
    n_labels: int | None = None,
    keep_going: bool = False,
    progress: bool | None = None,
) -> pd.DataFrame:
    """:func:`multilabel_fold_scores` on several data sets, as one tidy frame.

    Parameters
    ----------
    datasets : sequence
        Specs of :func:`load_multilabel_spec` (embedded names, MULAN/MEKA ARFF
        files, CSV files) or ``(name, X, Y)`` tuples.
    classifiers : sequence or dict
        As ``estimators`` of :func:`multilabel_fold_scores`.
    n_splits, random_state, n_jobs, verbose, progress
        As for :func:`multilabel_fold_scores`.
    labels, n_labels
        Passed to :func:`load_multilabel_spec` for every data set given as a
        file (embedded data sets know their labels).
    keep_going : bool, default=False
        Record a data set that fails to load, or on which a classifier fails,
        in ``attrs["failures"]`` and leave it out, instead of raising.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`multilabel_fold_scores` with ``dataset`` and
        ``repeat`` (0) first, and ``accuracy`` (the global accuracy),
        ``zero_one_loss`` (one minus it, the subset 0/1 loss) and
        ``hamming_loss`` (one minus the Hamming accuracy), the names
        :func:`bnclf.evaluation.summarize` ranks on. ``attrs`` hold
        the protocol and the data sets' sizes (``classes`` is the number of
        labels).
    """
    verbose = verbose_from(verbose, progress, "compare_multilabel")
    if isinstance(datasets, (str, tuple)):
        datasets = [datasets]
    frames, info, seen, failures = [], {}, {}, []
    for spec in datasets:
        stage, name = "load", spec[0] if isinstance(spec, tuple) else str(spec)
        try:
            is_file = not isinstance(spec, tuple) and Path(str(spec)).exists()
            name, X, Y = load_multilabel_spec(spec, **({"labels": labels, "n_labels": n_labels} if is_file else {}))
            if name in seen:
                seen[name] += 1
                name = f"{name}#{seen[name]}"
            else:
                seen[name] = 1
            stage = "cv"
            cv = multilabel_fold_scores(
                classifiers, X, Y, n_splits=n_splits, random_state=random_state, verbose=verbose, n_jobs=n_jobs
            )
        except Exception as exc:
            if not keep_going:
                raise
            failures.append(
                {"dataset": name, "classifier": "", "stage": stage, "error": f"{type(exc).__name__}: {exc}"}
            )
            continue
        cv.insert(0, "repeat", 0)
        cv.insert(0, "dataset", name)
        frames.append(cv)
        info[name] = {"instances": int(X.shape[0]), "features": int(X.shape[1]), "classes": int(Y.shape[1])}
    if not frames:
        raise ValueError(f"no data set could be compared: {failures}" if failures else "no datasets given")
    results = pd.concat(frames, ignore_index=True)
    results["accuracy"] = results["global_accuracy"]
    results["zero_one_loss"] = 1 - results["global_accuracy"]
    results["hamming_loss"] = 1 - results["hamming_accuracy"]
    results.attrs["protocol"] = {
        "n_splits": int(n_splits),
        "n_repeats": 1,
        "random_state": random_state,
        "discretizer": "quantile (inside each model)",
    }
    results.attrs["datasets"] = info
    results.attrs["failures"] = failures
    return results


MULTILABEL_SCORES_NOTE = (
    "Means over folds; folds stratified on each data set's least relevant label. The zero-one "
    "loss above is one minus the global accuracy (exact match of the label set, the subset 0/1 "
    "loss); the Hamming loss is one minus the Hamming accuracy. *empty*: rate of empty "
    "predictions; *empty allowed*: the same fitted Bayesian networks with empty predictions "
    "allowed (Corani et al. 2014, Table 5)."
)


def multilabel_scores_table(results: pd.DataFrame) -> pd.DataFrame:
    """The multilabel scores of a :func:`compare_multilabel` frame, one row per (data set,
    classifier), indexed by data set: what :func:`multilabel_report` shows."""
    summary = summarize_multilabel(results).reset_index(level="classifier")
    columns = {
        "classifier": "classifier",
        "global_accuracy": "global accuracy",
        "hamming_accuracy": "Hamming accuracy",
        "empty_rate": "empty",
        "global_accuracy_empty_allowed": "global (empty allowed)",
        "hamming_accuracy_empty_allowed": "Hamming (empty allowed)",
        "empty_rate_empty_allowed": "empty (empty allowed)",
        "treewidth": "treewidth",
        "n_selected_features": "features",
    }
    return summary[[c for c in columns if c in summary.columns]].rename(columns=columns)


def multilabel_report(results: pd.DataFrame) -> str:
    """Markdown section of the multilabel scores of a :func:`compare_multilabel` frame.

    One row per (data set, classifier): global and Hamming accuracy, the rate
    of empty predictions, the same three with empty predictions allowed
    (Bayesian networks), treewidth and selected features (means over folds).
    """
    from bnclf.evaluation._compare import _md_table

    table = multilabel_scores_table(results)
    return "\n".join(
        ["## Multilabel scores", "", MULTILABEL_SCORES_NOTE, "", _md_table(table, index_name="dataset"), ""]
    )
