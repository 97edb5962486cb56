"""Reproduce seed 001 (Kelner & Lerner 2012): Tables 2, 5, 6 and 8 for RMCV, its variants
and its comparators.

Usage::

    python benchmarks/reproduce.py kelner2012 --analysis rmcv rmcv-iris [--data DIR] [--seed 0]
                                   [--datasets NAME ...] [--resume] [--out DIR]

Parts:

* ``rmcv`` (:func:`part_accuracy`) -- Tables 2, 6 and 8(a): RMCV (NBC / empty start), RMHO, RMHO-f, RMHO-ar
  (NBC start), MDL and K2 (NBC / empty), BNC-MDL, BNC-2P, NBC and TAN, 10 x CV5 (the
  folds of the ``kelner2012 nb-tan`` analysis: five stratified folds, ten
  permutations from ``--seed``), MDL discretization inside each training fold,
  instances with missing values removed, maximum likelihood for the searched networks
  (m = 0, the paper's choice) and m = 1 for NBC and TAN (as in the existing seed-001
  NBC/TAN table). Letter (20,000 rows) runs 1 x CV5. Friedman + Bonferroni-Dunn with
  RMCV (NBC) as control, and Wilcoxon signed-rank tests, over the datasets.
* ``rmcv-iris`` (:func:`part_iris`) -- Table 5: every one of the 29,281 DAGs over iris' four attributes and the
  class, in a 5-fold CV: on each training part its RMCV score (K = 4), RMHO score (a
  random holdout of 1/4 per DAG), RMHO-f score (one fixed holdout) and training
  accuracy; on the test part its accuracy. Reports the mean squared error of each
  predictor of test accuracy (1 - score, or training accuracy), and checks that
  RMCV's search ends in a local optimum of the enumeration.

Per-dataset results are cached under ``OUT/rmcv/`` (``--resume`` reuses them).
Tables go to ``OUT/rmcv_*.{csv,md}``.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

import bnclf.evaluation as st
from bnclf import MDLDiscretizer
from bnclf.datasets import load_dataset
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import DiscreteData, encode_target
from bnclf.evaluation._compare import compare
from bnclf.learn._class_score import ClassScore, FamilyContributions, dag_score_from_scratch
from bnclf.learn._search import DagState, enumerate_dags, hill_climb
from bnclf.models._search_based import _holdout_folds

from .._data import Missing
from .._shared import md_table, slug
from ..papers.kelner2012 import CLASSIFIERS, PAPER, PAPER_DATASETS, PAPER_TABLE5, SEED001


def part_accuracy(uci_dir, out, seed, resume, only, log=print):
    cache = out / "rmcv"
    cache.mkdir(parents=True, exist_ok=True)
    frames, sources = [], {}
    for name, n, a, c, loader, source, *_ in SEED001:
        if only and name not in only:
            continue
        if source in sources:  # Diabetes and Pima are the same data
            continue
        sources[source] = name
        f = cache / f"{slug(name)}.csv"
        if resume and f.exists():
            frames.append(pd.read_csv(f))
            log(f"  {name}: cached")
            continue
        try:
            X, y = loader(uci_dir)
        except Missing as exc:
            log(f"  {name}: skipped ({exc} not found)")
            continue
        keep = ~X.isna().any(axis=1)
        X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
        repeats = 1 if len(y) > 10000 else 10
        t0 = time.perf_counter()
        res = compare(
            [(name, X, y)],
            CLASSIFIERS,
            n_splits=5,
            n_repeats=repeats,
            discretizer="mdl",
            random_state=seed,
            n_jobs=1,
            verbose=1,
        )
        res = res.assign(wall_s=time.perf_counter() - t0)
        res.to_csv(f, index=False)
        fit = res.groupby("classifier")["fit_time"].mean()
        log(
            f"  {name:<14s} n={len(y):>6d} {time.perf_counter() - t0:7.1f}s  "
            + " ".join(f"{k}={v:.2f}s" for k, v in fit.items())
        )
        frames.append(res)
    results = pd.concat(frames, ignore_index=True)
    results.to_csv(out / "rmcv_seed001_folds.csv", index=False)
    acc = results.assign(acc=100 * results["accuracy"]).groupby(["dataset", "classifier"])["acc"]
    mean = acc.mean().unstack()
    mean = mean[[c for c in CLASSIFIERS if c in mean.columns]]
    rows = []
    for name in mean.index:
        j = PAPER_DATASETS.index(name)
        row = {"dataset": name}
        for clf in mean.columns:
            row[f"{clf} paper"] = PAPER[clf][j]
            row[f"{clf} ours"] = round(mean.loc[name, clf], 2)
        rows.append(row)
    table = pd.DataFrame(rows).set_index("dataset")
    table.to_csv(out / "rmcv_seed001_paper_vs_ours.csv")
    # Friedman + Bonferroni-Dunn (control RMCV (NBC)) and Wilcoxon, over our datasets
    bncs = [c for c in CLASSIFIERS if c not in ("RMCV (empty)", "RMHO (NBC)", "RMHO-f (NBC)", "RMHO-ar (NBC)")]
    bncs = [c for c in bncs if c in mean.columns]
    ours = mean[bncs]
    paper = pd.DataFrame({c: [PAPER[c][PAPER_DATASETS.index(d)] for d in mean.index] for c in bncs}, index=mean.index)
    stats_rows = []
    for label, scores in (("ours", ours), ("paper (same datasets)", paper)):
        fr = st.friedman_test(scores, lower_is_better=False)
        ranks = st.average_ranks(scores, lower_is_better=False)
        bd = st.bonferroni_dunn_test(scores, "RMCV (NBC)", lower_is_better=False)
        for clf in ranks.sort_values().index:
            w = np.nan if clf == "RMCV (NBC)" else st.wilcoxon_signed_rank(scores["RMCV (NBC)"], scores[clf]).pvalue
            stats_rows.append(
                {
                    "table": label,
                    "classifier": clf,
                    "average rank": round(ranks[clf], 3),
                    "Bonferroni-Dunn p": (
                        round(float(bd.loc[clf, "pvalue_adjusted"]), 4) if clf in bd.index else np.nan
                    ),
                    "Wilcoxon p": round(float(w), 4) if w == w else np.nan,
                    "Friedman chi2": round(fr.statistic, 3),
                    "Friedman p": float(fr.pvalue),
                }
            )
    stats = pd.DataFrame(stats_rows)
    stats.to_csv(out / "rmcv_seed001_friedman.csv", index=False)
    means = pd.DataFrame({"paper (same datasets)": paper.mean(), "ours": ours.mean()}).round(2)
    lines = [
        "# Seed 001 (Kelner & Lerner 2012), Tables 2, 6 and 8(a): accuracy (%)",
        "",
        "10 x CV5 (1 x CV5 for Letter), MDL discretization inside each training fold, "
        "instances with missing values removed; searched networks with maximum "
        "likelihood (m = 0), NBC and TAN with m = 1. Same folds for all classifiers.",
        "",
        md_table(table, digits=2),
        "",
        "## Mean accuracy over these datasets",
        "",
        md_table(means, digits=2),
        "",
        "## Friedman test, Bonferroni-Dunn (control RMCV (NBC)) and Wilcoxon",
        "",
        md_table(stats.set_index(["table", "classifier"]), digits=4),
        "",
    ]
    (out / "rmcv_seed001_paper_vs_ours.md").write_text("\n".join(lines), encoding="utf-8")
    log("\n".join(lines))
    return table


def _coded(X, y):
    encoder = FeatureEncoder().fit(X)
    classes, codes = encode_target(y)
    data = DiscreteData(encoder.transform(X, training=True), encoder.cardinalities_, codes, len(classes))
    return np.column_stack([data.codes, data.y]), np.append(data.cardinalities, len(classes))


def part_iris(out, seed, log=print):
    X, y = load_dataset("iris")
    y_codes = pd.factorize(y)[0]
    outer = _holdout_folds(y_codes, 5, seed, all_folds=True)
    dags = enumerate_dags(5)
    rng = np.random.RandomState(seed)
    rows = []
    optimum_checks = []
    for k in range(5):
        train, test = np.flatnonzero(outer != k), np.flatnonzero(outer == k)
        disc = MDLDiscretizer().fit(X.iloc[train], y.iloc[train])
        Xd = pd.concat([disc.transform(X.iloc[train]), disc.transform(X.iloc[test])])
        yd = pd.concat([y.iloc[train], y.iloc[test]])
        codes, cards = _coded(Xd.reset_index(drop=True), yd.reset_index(drop=True))
        n_train = len(train)
        train_codes = codes[:n_train]
        cv = FamilyContributions(train_codes, cards, _holdout_folds(train_codes[:, -1], 4, seed, all_folds=True))
        fixed = FamilyContributions(
            train_codes, cards, _holdout_folds(train_codes[:, -1], 4, seed + 1, all_folds=False)
        )
        resub = FamilyContributions(train_codes, cards, None)
        test_folds = np.r_[np.full(n_train, -1), np.zeros(len(test), dtype=np.int64)]
        held_out = FamilyContributions(codes, cards, test_folds)
        t0 = time.perf_counter()
        for parents in dags:
            holdout = FamilyContributions(
                train_codes, cards, _holdout_folds(train_codes[:, -1], 4, rng.randint(2**31 - 1), all_folds=False)
            )
            rows.append(
                {
                    "fold": k,
                    "dag": str([sorted(p) for p in parents]),
                    "rmcv": dag_score_from_scratch(parents, cv),
                    "rmho": dag_score_from_scratch(parents, holdout),
                    "rmho_f": dag_score_from_scratch(parents, fixed),
                    "train_acc": 1 - dag_score_from_scratch(parents, resub),
                    "test_acc": 1 - dag_score_from_scratch(parents, held_out),
                }
            )
        fold_rows = pd.DataFrame(rows[-len(dags) :]).set_index("dag")
        # RMCV's search from NBC ends in a local optimum of the enumeration
        d = codes.shape[1] - 1
        result = hill_climb(ClassScore(cv), DagState(d + 1, [(d, j) for j in range(d)]), random_state=seed)
        final = str([sorted(p) for p in result.state.parents])
        better = 0
        for move in result.state.legal_moves():
            other = result.state.copy()
            other.apply(move)
            better += fold_rows.loc[str([sorted(p) for p in other.parents]), "rmcv"] < result.score
        optimum_checks.append(
            {
                "fold": k,
                "search_score": result.score,
                "enumerated_score": fold_rows.loc[final, "rmcv"],
                "better_neighbours": int(better),
                "best_score_over_all_dags": fold_rows["rmcv"].min(),
                "test_acc_of_search_result": fold_rows.loc[final, "test_acc"],
                "seconds": time.perf_counter() - t0,
            }
        )
        log(
            f"  iris fold {k}: {len(dags)} DAGs in {time.perf_counter() - t0:.1f}s; search "
            f"score {result.score:.4f} = enumeration {fold_rows.loc[final, 'rmcv']:.4f}, "
            f"{better} better neighbours"
        )
    frame = pd.DataFrame(rows)
    frame.to_csv(out / "rmcv_seed001_iris_all_dags.csv.gz", index=False)

    def mse(f):
        return {
            "RMCV": ((1 - f["rmcv"] - f["test_acc"]) ** 2).mean(),
            "RMHO": ((1 - f["rmho"] - f["test_acc"]) ** 2).mean(),
            "RMHO-f": ((1 - f["rmho_f"] - f["test_acc"]) ** 2).mean(),
            "Training": ((f["train_acc"] - f["test_acc"]) ** 2).mean(),
        }

    dots = frame.drop(columns="fold").groupby("dag").mean()  # one dot per DAG: CV5 means
    table = pd.DataFrame(
        {"paper": PAPER_TABLE5, "ours: one dot per DAG (CV5 means)": mse(dots), "ours: every DAG and fold": mse(frame)}
    ).T
    checks = pd.DataFrame(optimum_checks)
    table.to_csv(out / "rmcv_seed001_table5_iris.csv")
    checks.to_csv(out / "rmcv_seed001_iris_search_checks.csv", index=False)
    lines = [
        "# Seed 001, Table 5: MSE of test-accuracy predictors over all 29,281 DAGs (iris)",
        "",
        "5-fold CV; per training part: RMCV (K = 4), RMHO (a random 1/4 holdout per "
        "DAG), RMHO-f (one fixed 1/4 holdout), training accuracy; MDL discretization "
        "fitted on the training part; maximum likelihood. Eq. 13: the mean over DAGs of "
        "the squared difference between the predicted accuracy (1 - score, or training "
        "accuracy) and the test accuracy; each DAG is one dot of Figs. 2-6, its CV5 "
        "means (first row of ours), or every (DAG, fold) pair on its own (second).",
        "",
        md_table(table.map(lambda v: f"{v:.2e}")),
        "",
        "## RMCV's search (from NBC) against the enumeration",
        "",
        md_table(checks.set_index("fold"), digits=4),
        "",
    ]
    (out / "rmcv_seed001_table5_iris.md").write_text("\n".join(lines), encoding="utf-8")
    log("\n".join(lines))
    return table, checks
