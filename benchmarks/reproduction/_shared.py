"""Helpers the analyses share: tables in Markdown, ``compare`` one data set at a time with a
per-data-set cache, and W/D/L records with the 5 % rule.
"""

from __future__ import annotations

import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from tqdm.auto import tqdm

import bnclf
import bnclf.evaluation as st
from bnclf.evaluation import compare

from ._data import Missing


def slug(name):
    """A file-name-safe form of a data set's name."""
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def describe(X, y):
    return {
        "instances": len(y),
        "attributes": X.shape[1],
        "classes": int(pd.Series(y).nunique()),
        "missing_cells": int(X.isna().sum().sum()),
        "numeric": int(sum(pd.api.types.is_float_dtype(X[c]) for c in X.columns)),
    }


def md_table(df: pd.DataFrame, digits=4, index=True) -> str:
    def fmt(v):
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    cols = ([df.index.name or ""] if index else []) + [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in df.iterrows():
        cells = ([str(idx)] if index else []) + [fmt(v) for v in row.tolist()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_compare(
    items, classifiers, *, n_splits, n_repeats, discretizer, seed, jobs, return_predictions=False, log=print
):
    """``compare`` one dataset at a time (timings, progress); concatenated results."""
    frames, preds, info, timing = [], {}, {}, {}
    for name, X, y in items:
        t0 = time.perf_counter()
        out = compare(
            [(name, X, y)],
            classifiers,
            n_splits=n_splits,
            n_repeats=n_repeats,
            discretizer=discretizer,
            random_state=seed,
            n_jobs=jobs,
            verbose=0,
            return_predictions=return_predictions,
        )
        res, pr = out if return_predictions else (out, {})
        timing[name] = time.perf_counter() - t0
        frames.append(res)
        preds.update(pr)
        info.update(res.attrs["datasets"])
        protocol = res.attrs["protocol"]
        log(f"  {name:<20s} n={len(y):>6d}  {timing[name]:6.1f} s")
    results = pd.concat(frames, ignore_index=True)
    results.attrs["protocol"] = protocol
    results.attrs["datasets"] = info
    return results, preds, timing


def wdl(a, b):
    r = st.win_draw_loss(np.asarray(a, float), np.asarray(b, float), threshold=0.05)
    return f"{r.wins}/{r.draws}/{r.losses}", r.pvalue


def outcome(a, b):
    r = st.win_draw_loss(np.array([a], float), np.array([b], float), threshold=0.05)
    return "W" if r.wins else ("L" if r.losses else "D")


def run_dataset(name, X, y, classifiers, *, n_splits, n_repeats, discretizer, seed, cache, resume, bv):
    """CV of all classifiers on one dataset; fold results (+ bias/variance), cached."""
    f_folds = cache / f"{slug(name)}_folds.csv"
    f_bv = cache / f"{slug(name)}_bv.csv"
    if resume and f_folds.exists() and (not bv or f_bv.exists()):
        return pd.read_csv(f_folds), (pd.read_csv(f_bv) if bv else None), True
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        out = compare(
            [(name, X, y)],
            classifiers,
            n_splits=n_splits,
            n_repeats=n_repeats,
            discretizer=discretizer,
            random_state=seed,
            n_jobs=1,
            verbose=0,
            return_predictions=bv,
        )
    res, preds = out if bv else (out, {})
    n_conv = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
    res = res.assign(convergence_warnings=n_conv, dataset_wall_time=time.perf_counter() - t0)
    res.to_csv(f_folds, index=False)
    bvf = None
    if bv:
        rows = []
        for (d, c), cvp in preds.items():
            kw = cvp.bias_variance()
            rows.append({"dataset": d, "classifier": c, "loss": kw.loss, "bias": kw.bias, "variance": kw.variance})
        bvf = pd.DataFrame(rows)
        bvf.to_csv(f_bv, index=False)
    return res, bvf, False


def run_part(items, classifiers, *, label, n_splits, n_repeats, discretizer, seed, cache, resume, bv=False):
    cache.mkdir(parents=True, exist_ok=True)
    frames, bvs, n_cached = [], [], 0
    t0 = time.perf_counter()
    bar = tqdm(items, desc=label, unit="dataset", file=sys.stdout)
    for name, X, y in bar:
        bar.set_postfix_str(f"{name} (n={len(y)})")
        res, bvf, cached = run_dataset(
            name,
            X,
            y,
            classifiers,
            n_splits=n_splits,
            n_repeats=n_repeats,
            discretizer=discretizer,
            seed=seed,
            cache=cache,
            resume=resume,
            bv=bv,
        )
        frames.append(res)
        n_cached += cached
        if bvf is not None:
            bvs.append(bvf)
        fit = res.groupby("classifier")[["fit_time", "predict_time"]].sum().sum(axis=1)
        tqdm.write(
            f"  {label} {name:<20s} n={len(y):>6d}  "
            + ("(cached) " if cached else "")
            + " ".join(f"{c}={fit[c]:.1f}s" for c in fit.index)
        )
    elapsed = time.perf_counter() - t0
    if n_cached:
        # wall time of the run that produced the cache (older caches: fit + predict time)
        elapsed = 0.0
        for res in frames:
            if "dataset_wall_time" in res:
                elapsed += float(res["dataset_wall_time"].iloc[0])
            else:
                elapsed += float(res[["fit_time", "predict_time"]].to_numpy().sum())
    results = pd.concat(frames, ignore_index=True)
    return results, (pd.concat(bvs, ignore_index=True) if bvs else None), elapsed


def fmt_wdl(a, b):
    s, p = wdl(a, b)
    return f"{s} (p={p:.3f})"


def load_items(spec_rows, uci_dir, only, log):
    items, meta = [], []
    for row in spec_rows:
        name, loader = row["name"], row["loader"]
        if loader is None or (only and name not in only):
            continue
        try:
            X, y = loader(uci_dir)
        except Missing as exc:
            log(f"  {name}: skipped ({exc} not found)")
            continue
        items.append((name, X, y))
        meta.append(row)
    return items, meta


def wdl_record(a, b):
    r = st.win_draw_loss(np.asarray(a, float), np.asarray(b, float), threshold=0.05)
    return r


def fmt_result(r):
    return f"{r.wins}/{r.draws}/{r.losses} (p={r.pvalue:.3f})"


def fmt_record(rec):
    w, d, l_ = (int(v) for v in rec.split("/"))
    return f"{rec} (p={st.sign_test(w, l_):.3f})"


def git_version():
    """Where bnclf was imported from and, in a git checkout, its commit (+ dirty flag)."""
    where = Path(bnclf.__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(where), "status", "--porcelain", "--", "."], capture_output=True, text=True, check=True
        ).stdout.strip()
        return f"bnclf from {where}, commit {commit}" + (" (modified)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return f"bnclf from {where}"
