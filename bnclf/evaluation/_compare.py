"""Compare classifiers over datasets: run the CV protocol, test, report.

:func:`compare` runs every classifier on every dataset with the same stratified
(r×k) CV folds, discretization fitted inside each training fold, and returns a
tidy DataFrame with one row per (dataset, classifier, repeat, fold).
:func:`summarize` turns such a frame into the tables and tests of a comparison
(mean score per dataset, W/D/L with sign tests, average ranks, Friedman and
Iman–Davenport, Nemenyi CD, Bonferroni–Dunn against the best classifier, and the
Kohavi–Wolpert bias/variance when there are repeats), :func:`render_report` renders
them as Markdown, and :func:`write_report` writes them as ``results.csv``, ``report.md``
and PNG figures. The datasets are read by :mod:`bnclf.evaluation._dataset_specs`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

import bnclf.evaluation._stats_tests as st
from bnclf._params import verbose_from
from bnclf.evaluation._dataset_specs import dataset_items, load_dataset_spec
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

    Each dataset gets one set of stratified r×k folds (from ``random_state``), shared
    by all classifiers. The discretizer, when given, is fitted once on each training
    fold and shared by every classifier (as ``make_pipeline(discretizer, classifier)``
    would give, without refitting it per classifier); its time is part of each
    classifier's ``fit_time`` and ``predict_time``. Each classifier is cloned per fold.

    Parameters
    ----------
    datasets : sequence
        Dataset specs (see :func:`load_dataset_spec`): ``"keel:NAME"``, CSV/ARFF paths,
        embedded dataset names or ``(name, X, y)`` tuples; or a dict ``name -> (X, y)``.
    classifiers : sequence or dict
        Spec strings such as ``"nb"``, ``"tan"``, ``"kdb(k=3)"`` (see :func:`make_classifier`)
        or estimator instances; a dict maps labels to specs or instances.
    n_splits : int, default=10
        Folds per repeat (k).
    n_repeats : int, default=1
        Repeats (r); Kelner & Lerner (2012) use 10×CV5 (``n_splits=5, n_repeats=10``).
    discretizer : {"mdl", "quantile", "none"}, transformer or None, default="mdl"
        Fitted inside each training fold (:func:`resolve_discretizer`).
    random_state : int, default=0
        Seed for the folds; an int also seeds the classifiers that search at random (RMCV,
        hill climbing), unless their spec sets ``random_state`` (an estimator instance: only
        where its ``random_state`` is None; :func:`~bnclf.evaluation._reports.seeded`). A
        class with fewer rows than ``n_splits`` gets a warning (some test folds lack it).
    n_jobs : int, default=1
        Parallel jobs (joblib) over the (dataset, fold) tasks; each runs every classifier.
    out_dir : path-like, optional
        When given, :func:`write_report` writes ``results.csv``, ``report.md``,
        ``cd_diagram.png`` and ``scores_by_dataset.png`` there.
    verbose : int, default=1
        A progress bar over the tasks when 1 (or True).
    metric, alpha : str and float, default="zero_one_loss" and 0.05
        Metric (a result column) and significance level of the report's ranks and tests.
    return_predictions : bool, default=False
        Also return the :class:`CVPredictions` of every (dataset, classifier).
    keep_going : bool, default=False
        Record a dataset that fails to load, or a classifier that fails on a dataset, in
        ``results.attrs["failures"]`` (and the report) and go on. A dataset on which any
        classifier failed is left out of the results, so that every classifier is
        compared on the same datasets; RuntimeError when every dataset failed.
    progress : bool, optional
        Deprecated: the old name of ``verbose`` (a ``FutureWarning``; it goes in 0.3).

    Returns
    -------
    results : pandas.DataFrame
        One row per (dataset, classifier, repeat, fold) with columns ``dataset,
        classifier, repeat, fold, zero_one_loss, accuracy, log_loss, auc, n_train,
        n_test, fit_time, predict_time``. ``auc`` is the binary AUC or, for more than two
        classes, the Hand–Till M. ``attrs`` holds ``protocol``, ``datasets`` (their
        sizes) and ``failures``.
    predictions : dict of (dataset, classifier) -> CVPredictions
        Only when ``return_predictions=True``.

    References
    ----------
    .. [1] Demšar, J. (2006). Statistical comparisons of classifiers over multiple
       data sets. JMLR 7, 1–30.
    .. [2] Sun, Wang, Sun (2017). Label-Driven Learning Framework. Entropy 19, 661, §4.
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
    clf_items = _classifier_items(classifiers, _int_seed(random_state))
    failures = [] if keep_going else None
    cv = {"n_splits": n_splits, "n_repeats": n_repeats, "random_state": random_state}
    runs = _run_folds(dataset_items(datasets, failures), clf_items, disc, cv, n_jobs, verbose, failures)
    results, predictions = _results_frame(*runs, protocol=_protocol(cv, discretizer), failures=failures)
    if out_dir is not None:
        write_report(results, out_dir, metric=metric, alpha=alpha, predictions=predictions)
    return (results, predictions) if return_predictions else results


def _int_seed(random_state) -> int | None:
    """``random_state`` as an int when it is one (not a bool), else None."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    return None


def _protocol(cv: dict, discretizer) -> dict:
    """``results.attrs["protocol"]``: the folds of ``cv`` and the discretizer's name."""
    return {
        "n_splits": int(cv["n_splits"]),
        "n_repeats": int(cv["n_repeats"]),
        "discretizer": _disc_label(discretizer),
        "random_state": cv["random_state"],
    }


def _run_folds(data_items, clf_items, disc, cv: dict, n_jobs, verbose, failures) -> tuple[dict, dict]:
    """Run every classifier on every fold of every dataset, one task per fold (the
    discretizer is fitted once for all classifiers); ``cv`` holds the arguments of
    :func:`make_cv_splits`.

    Returns ``grouped``, ``(dataset, classifier) -> [fold result, ...]`` in dataset then
    classifier order, and ``meta``, ``dataset -> (X, y, classes)``. With a ``failures``
    list (``keep_going``), a dataset on which a classifier failed is recorded there and
    left out of both.
    """
    tasks, keys, meta = [], [], {}
    estimators = [est for _, est in clf_items]
    keep_going = failures is not None
    for dname, X, y in data_items:
        y_arr = y.to_numpy()
        splits = make_cv_splits(y_arr, **cv)
        warn_small_classes(y_arr, cv["n_splits"], f"{dname}: ")
        classes = np.unique(y_arr)
        meta[dname] = (X, y_arr, classes)
        contexts = [f"{cname} on {dname}:" for cname, _ in clf_items]
        for s in splits:
            tasks.append((estimators, X, y_arr, s, classes, disc, contexts, keep_going))
            keys.append(dname)
    outputs = _parallel_map(_run_fold_shared, tasks, n_jobs=n_jobs, verbose=verbose, desc="compare")
    grouped: dict[tuple[str, str], list] = {(dname, cname): [] for dname in meta for cname, _ in clf_items}
    for dname, fold_results in zip(keys, outputs):
        for (cname, _), res in zip(clf_items, fold_results):
            grouped[(dname, cname)].append(res)
    if keep_going:
        return _drop_failed_datasets(grouped, meta, failures)
    return grouped, meta


def _drop_failed_datasets(grouped: dict, meta: dict, failures: list) -> tuple[dict, dict]:
    """``grouped`` and ``meta`` without the datasets on which a classifier failed; each
    failure (its first error) is appended to ``failures``. RuntimeError when none is left."""
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
    return grouped, meta


def _results_frame(
    grouped: dict, meta: dict, *, protocol: dict, failures: list | None
) -> tuple[pd.DataFrame, dict[tuple[str, str], CVPredictions]]:
    """The tidy results (one row per dataset, classifier, repeat and fold, with ``attrs``
    ``protocol``, ``datasets`` and ``failures``) and the :class:`CVPredictions` of each
    (dataset, classifier), from :func:`_run_folds`'s output."""
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
    results.attrs["protocol"] = protocol
    results.attrs["datasets"] = {
        d: {"instances": len(y_arr), "features": X.shape[1], "classes": len(classes)}
        for d, (X, y_arr, classes) in meta.items()
    }
    results.attrs["failures"] = failures or []
    return results, predictions


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
    _check_alpha(alpha)
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
    _add_rank_tests(s, complete, threshold)
    if complete.shape[1] >= 2 and s.average_ranks is not None:
        s.corrected_ttest = _corrected_ttests(results, metric, lower, s.average_ranks.idxmin())
    if predictions:
        s.bias_variance = _bias_variance(predictions)
    return s


def _check_alpha(alpha) -> None:
    """Raise ValueError unless ``alpha`` is a number strictly between 0 and 1."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(
            f"alpha={alpha!r} is not a significance level; use a number between 0 and 1, e.g. 0.05 "
            "(command line: --alpha 0.05)."
        )


def _add_rank_tests(s: ComparisonSummary, complete: pd.DataFrame, threshold: float) -> None:
    """Fill ``s``'s tests over the datasets without missing values (``complete``): average
    ranks and W/D/L from one dataset on, Friedman, Nemenyi, Bonferroni–Dunn and Wilcoxon
    from two (else a note); nothing with fewer than two classifiers."""
    lower, alpha = s.lower_is_better, s.alpha
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
        s.wilcoxon_pvalues = _wilcoxon_table(complete, list(s.mean.columns))
    elif k >= 2:
        s.notes.append("the Friedman test needs at least two datasets")


def _wilcoxon_table(complete: pd.DataFrame, clfs: list) -> pd.DataFrame:
    """Two-sided Wilcoxon p-value of every ordered pair of classifiers over the datasets
    (1.0 where they score the same everywhere; NaN on the diagonal)."""
    wil = pd.DataFrame(np.nan, index=clfs, columns=clfs)
    for a in clfs:
        for b in clfs:
            if a != b:
                d = complete[a] - complete[b]
                if np.any(d != 0):
                    wil.loc[a, b] = st.wilcoxon_signed_rank(complete[a], complete[b]).pvalue
                else:
                    wil.loc[a, b] = 1.0
    return wil


def _corrected_ttests(results: pd.DataFrame, metric: str, lower: bool, control) -> pd.DataFrame | None:
    """Corrected repeated-CV t-test of each classifier against ``control`` on each dataset:
    the p-value, negative where the control is not favoured, 1.0 where the folds score the
    same; ``attrs["control"]`` names the control. None when no dataset has two folds."""
    datasets = list(dict.fromkeys(results["dataset"]))
    clfs = list(dict.fromkeys(results["classifier"]))
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
                favoured = res.mean_difference > 0 if lower else res.mean_difference < 0
                row[c] = res.pvalue if favoured else -res.pvalue
        rows[d] = row
    if not rows:
        return None
    table = pd.DataFrame(rows).T.reindex(columns=[c for c in clfs if c != control])
    table.attrs["control"] = control
    return table


def _bias_variance(predictions: Mapping[tuple[str, str], CVPredictions]) -> pd.DataFrame | None:
    """Kohavi–Wolpert loss, bias and variance of each (dataset, classifier) predicted over
    more than one repeat; None when there is none."""
    bv = []
    for (d, c), cvp in predictions.items():
        if cvp.n_repeats > 1:
            r = cvp.bias_variance()
            bv.append({"dataset": d, "classifier": c, "loss": r.loss, "bias": r.bias, "variance": r.variance})
    return pd.DataFrame(bv) if bv else None


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
    """Markdown report of a comparison.

    Parameters
    ----------
    results : pandas.DataFrame
        As returned by :func:`compare`; its ``attrs`` (``protocol``, ``datasets``,
        ``failures``) add the sections they describe when present.
    summary : ComparisonSummary
        :func:`summarize` of ``results``; a section whose table or test is None is left out.
    cd_png, bars_png : str, optional
        Paths of the critical-difference diagram and of the bars per dataset, linked as
        images when given.

    Returns
    -------
    str
        The report: protocol, datasets, mean score per dataset, average ranks, Friedman
        and post-hoc tests, W/D/L, Wilcoxon, corrected t-test, bias and variance, the
        other metrics, notes and failures, in this order.
    """
    label = _METRIC_LABEL.get(summary.metric, summary.metric)
    out = ["# Classifier comparison", ""]
    out += _protocol_section(results.attrs.get("protocol", {}))
    out += _datasets_section(results.attrs.get("datasets"))
    out += _mean_section(summary, label, results.attrs.get("protocol", {}))
    out += _ranks_section(summary)
    out += _friedman_section(summary, cd_png)
    out += _wdl_section(summary, label)
    out += _wilcoxon_section(summary, label)
    out += _ttest_section(summary, label)
    out += _bias_variance_section(summary)
    out += _other_metrics_section(results, summary)
    if bars_png:
        out += [f"![{label} per dataset]({bars_png})", ""]
    if summary.notes:
        out += ["## Notes", ""] + [f"- {n}" for n in summary.notes] + [""]
    out += _failures_section(results.attrs.get("failures") or [])
    return "\n".join(out)


def _protocol_section(proto: dict) -> list[str]:
    """The protocol paragraph of the report (none without a protocol)."""
    if not proto:
        return []
    reps = proto.get("n_repeats", 1)
    cv = (
        f"{proto.get('n_splits')}-fold stratified CV"
        if reps == 1
        else f"{reps}×{proto.get('n_splits')}-fold stratified CV"
    )
    return [
        f"Protocol: {cv}, fold seed {proto.get('random_state')}, discretizer "
        f"`{proto.get('discretizer')}` (fitted inside each training fold). "
        f"Same folds for every classifier on a dataset.",
        "",
    ]


def _datasets_section(info: dict | None) -> list[str]:
    """The table of dataset sizes (none without it)."""
    if not info:
        return []
    table = pd.DataFrame(info).T[["instances", "features", "classes"]]
    return ["## Datasets", "", _md_table(table, index_name="dataset"), ""]


def _mean_section(summary: ComparisonSummary, label: str, proto: dict) -> list[str]:
    """The mean score per dataset and classifier, the best in bold, with a row of means."""
    direction = "lower is better" if summary.lower_is_better else "higher is better"
    mean = summary.mean
    best = mean.eq(mean.min(axis=1) if summary.lower_is_better else mean.max(axis=1), axis=0)
    return [
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


def _ranks_section(summary: ComparisonSummary) -> list[str]:
    """The average ranks, best first (none without them)."""
    if summary.average_ranks is None:
        return []
    ranks = summary.average_ranks.sort_values()
    return [
        "## Average ranks",
        "",
        "Rank 1 is best; ties share the average rank.",
        "",
        _md_table(ranks.to_frame("average rank"), index_name="classifier", digits=3),
        "",
    ]


def _friedman_section(summary: ComparisonSummary, cd_png: str | None) -> list[str]:
    """Friedman and Iman–Davenport, the Nemenyi CD and the pairs beyond it, the CD diagram
    and Bonferroni–Dunn against the best-ranked classifier (none without Friedman)."""
    f = summary.friedman
    if f is None:
        return []
    k, n = f.n_classifiers, f.n_datasets
    out = [
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
    return out


def _wdl_section(summary: ComparisonSummary, label: str) -> list[str]:
    """The win/draw/loss table, bold where the sign test is significant (none without it)."""
    if summary.wdl is None:
        return []
    sig = summary.wdl_pvalues < summary.alpha
    return [
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


def _wilcoxon_section(summary: ComparisonSummary, label: str) -> list[str]:
    """The Wilcoxon p-values of every pair (none without them)."""
    if summary.wilcoxon_pvalues is None:
        return []
    return [
        "## Wilcoxon signed-rank test",
        "",
        f"Two-sided p-values over datasets of the mean {label} per dataset.",
        "",
        _md_table(summary.wilcoxon_pvalues, index_name="", digits=4),
        "",
    ]


def _ttest_section(summary: ComparisonSummary, label: str) -> list[str]:
    """The corrected repeated-CV t-tests against the control, ``(-)`` where it is not
    favoured (none without them)."""
    tt = summary.corrected_ttest
    if tt is None or tt.empty:
        return []
    control = tt.attrs.get("control")
    cells = tt.map(lambda v: "–" if pd.isna(v) else ("(-) " if v < 0 else "") + _fmt(abs(v)))
    sig = tt.abs() < summary.alpha
    return [
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


def _bias_variance_section(summary: ComparisonSummary) -> list[str]:
    """The Kohavi–Wolpert bias and variance tables (none without repeats)."""
    bv = summary.bias_variance
    if bv is None:
        return []
    out = [
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
    return out


def other_metric_means(results: pd.DataFrame, summary: ComparisonSummary) -> list[tuple[str, pd.DataFrame]]:
    """``(label, table)`` for each other fold metric the results hold: its mean per dataset
    (rows) and classifier (columns), in the summary's order. Accuracy, the complement of
    the zero-one loss, is left out."""
    others = [
        m
        for m in FOLD_METRICS
        if m != summary.metric and m != "accuracy" and m in results.columns and results[m].notna().any()
    ]
    out = []
    for m in others:
        tab = results.groupby(["dataset", "classifier"])[m].mean().unstack("classifier")
        out.append((_METRIC_LABEL.get(m, m), tab.reindex(index=summary.mean.index, columns=summary.mean.columns)))
    return out


def _other_metrics_section(results: pd.DataFrame, summary: ComparisonSummary) -> list[str]:
    """The mean per dataset of each other fold metric the results hold."""
    out = []
    for label, tab in other_metric_means(results, summary):
        out += [f"## Mean {label} per dataset", "", _md_table(tab, index_name="dataset"), ""]
    return out


def _failures_section(failures: list[dict]) -> list[str]:
    """``keep_going``'s failures: what was left out of the comparison, and why."""
    if not failures:
        return []
    out = ["", "## Failures (left out of the comparison)", "", "| dataset | classifier | stage | error |"]
    out.append("|---|---|---|---|")
    out += [
        f"| {f['dataset']} | {f['classifier']} | {f['stage']} | {str(f['error']).replace('|', '/')[:300]} |"
        for f in failures
    ]
    return out


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
