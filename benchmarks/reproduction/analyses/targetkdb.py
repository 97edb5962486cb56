"""Compare discriminatory target learning with KDB (seed 004, Duan et al. 2019).

Usage::

    python benchmarks/reproduce.py duan2019 --analysis targetkdb ablation [--data DIR] [--seed 0]
                                   [--datasets NAME ...] [--skip NAME ...] [--resume] [--out DIR]

The data sets are those of seed 000 (``papers/sun2017.py``); the per-data-set runner and
cache (``_shared.py``) are those of the instance analysis (cached under ``OUT/instance/``).

Parts:

* ``004`` (``duan2019 targetkdb``) -- discriminatory target learning (Duan et al. 2019):
  KDB^e = TargetKDB(k=2) in the paper's reading (the default), in the paper's reading with Eq. 9 as printed, and in
  bnclf 0.2.0's reading (pointwise measures, posterior average, m-estimates), against
  KDB(k=2), under the paper's protocol: 10-fold stratified CV (fold seed ``--seed``),
  missing values replaced by the training fold's modes and means, then MDL fitted on the
  training fold (``ImputeThenMDL``), m = 1; the seed-000 data sets. Outputs: zero-one
  loss per data set, W/D/L (any difference at four decimals, and the 5 % rule; one-tailed
  sign tests) and average ranks, next to the paper's 26/13/3 (KDB^e vs KDB) and ranks.
* ``004a`` (``duan2019 ablation``) -- which of the paper's two changes moves the loss: the
  weighted measures with the posterior average, the pointwise measures with the own-label
  combination, and both undone (Eq. 9 estimates throughout), on part 004's folds (it
  reads part 004's results for KDB(k=2) and KDB^e, so run 004 first).

Tables go to ``OUT/instance_seed004_*.{csv,md}``.
"""

from __future__ import annotations

import pandas as pd

import bnclf.evaluation as st

from .._data import ImputeThenMDL
from .._shared import fmt_result, git_version, load_items, md_table, run_part, wdl_record
from ..papers.duan2019 import SEED004_ABLATION, SEED004_CLASSIFIERS, SEED004_PAPER
from ..papers.sun2017 import SEED000


def part004(uci_dir, out, seed, resume, only, skip, log=print):
    rows = [{"name": s[1], "n": s[2], "loader": s[5], "version": s[7]} for s in SEED000 if s[1] not in skip]
    items, meta = load_items(rows, uci_dir, only, log)
    names = [it[0] for it in items]
    results, _, elapsed = run_part(
        items,
        SEED004_CLASSIFIERS,
        label="seed004 10-fold",
        n_splits=10,
        n_repeats=1,
        discretizer=ImputeThenMDL(),
        seed=seed,
        cache=out / "instance" / "seed004_dtl_cv10",
        resume=resume,
    )
    results.to_csv(out / "instance_seed004_folds.csv", index=False)
    clfs = list(SEED004_CLASSIFIERS)
    kdb, paper, printed, old = clfs
    mean = (
        results.groupby(["dataset", "classifier"])["zero_one_loss"]
        .mean()
        .unstack()
        .reindex(index=names, columns=clfs)
        .round(4)
    )  # four decimals, as the paper's tables
    version = pd.Series([m["version"] for m in meta], index=names)
    tab = mean.copy()
    tab.index.name = "dataset"
    tab.insert(0, "N", [len(it[2]) for it in items])
    for c in clfs[1:]:
        tab[f"{c} vs KDB"] = [
            "W" if a < b else ("L" if a > b else "D") for a, b in zip(mean[c], mean[kdb])
        ]  # any difference at four decimals
    tab.to_csv(out / "instance_seed004_kdb.csv")
    same = [d for d in names if version[d] == "same"]
    subsets = {f"{len(names)} mapped": names, f"{len(same)} same version": same}
    pairs = [(c, kdb) for c in clfs[1:]] + [(paper, old), (paper, printed)]
    srows = {}
    for label, idx in subsets.items():
        s = {f"mean loss {c}": mean.loc[idx, c].mean() for c in clfs}
        for a, b in pairs:
            x, z = mean.loc[idx, a].to_numpy(float), mean.loc[idx, b].to_numpy(float)
            s[f"W/D/L {a} vs {b}, any difference"] = fmt_result(st.win_draw_loss(x, z, threshold=0.0))
            s[f"W/D/L {a} vs {b}, 5 % rule"] = fmt_result(wdl_record(x, z))
        ranks = st.average_ranks(mean.loc[idx, [kdb, paper, old]])
        for c in (kdb, paper, old):
            s[f"average rank (of 3: KDB, KDB^e, 0.2.0) {c}"] = round(float(ranks[c]), 4)
        srows[label] = s
    summary = pd.DataFrame(srows)
    summary["paper (42 sets)"] = ""
    summary.loc[f"W/D/L {paper} vs {kdb}, any difference", "paper (42 sets)"] = SEED004_PAPER[
        "W/D/L KDB^e vs KDB(k=2), zero-one loss"
    ]
    summary.index.name = "statistic"
    summary.to_csv(out / "instance_seed004_summary.csv")
    show = tab.copy()
    show.index = [f"{d} †" if version[d] != "same" else d for d in show.index]
    show = pd.concat(
        [
            show,
            mean.mean().round(4).to_frame(f"**mean ({len(names)})**").T,
            mean.loc[same].mean().round(4).to_frame(f"**mean ({len(same)} same version)**").T,
        ]
    )
    show["N"] = show["N"].map(lambda v: "" if pd.isna(v) else str(int(v)))
    show = show.fillna("")
    fit = results.groupby("classifier")[["fit_time", "predict_time"]].sum().sum(axis=1)
    lines = [
        "# Seed 004 (discriminatory target learning, Duan et al. 2019): KDB^e vs KDB(k=2)",
        "",
        "The paper's protocol: 10-fold stratified CV "
        f"(fold seed {seed}), missing values replaced by the training fold's modes (nominal) "
        "and means (numeric), MDL fitted on the training fold, m-estimate m = 1 for the CPTs; "
        "the seed-000 data sets. `KDB^e` is `targetkdb(k=2)`, the paper's reading (weighted "
        "measures, Eq. 9 estimates, own-label combination); `Eq. 9 as printed` adds 1/l "
        "instead of 1 to N(x_i); `0.2.0 reading` is bnclf 0.2.0's default (pointwise "
        "measures, m-estimates, posterior average). W/D/L per data set: any difference "
        "of the mean loss at four decimals. † = different data version.",
        "",
        md_table(show),
        "",
        "## Summary (one-tailed sign-test p)",
        "",
        md_table(summary.map(lambda v: round(v, 4) if isinstance(v, float) else v)),
        "",
        "Paper (Sec. 4, 42 data sets, ranks among 7 learners): "
        + ", ".join(f"{k} {v}" for k, v in SEED004_PAPER.items())
        + ".",
        "",
        "CPU time (fit + predict): " + ", ".join(f"{c} {fit[c]:.0f} s" for c in clfs) + ".",
        f"Code: {git_version()}.",
        f"Wall time of the part: {elapsed:.0f} s.",
        "",
    ]
    (out / "instance_seed004_kdb.md").write_text("\n".join(lines), encoding="utf-8")
    log(f"seed 004 done in {elapsed:.0f} s")
    return tab, summary


def part004_ablation(uci_dir, out, seed, resume, only, skip, log=print):
    """Which of the paper's two changes (weighted measures, own-label combination) moves
    the loss: the three other combinations (Eq. 9 pseudo-instance estimates throughout)
    on part 004's data sets and folds, beside part 004's KDB(k=2) and KDB^e."""
    rows = [{"name": s[1], "n": s[2], "loader": s[5], "version": s[7]} for s in SEED000 if s[1] not in skip]
    items, meta = load_items(rows, uci_dir, only, log)
    names = [it[0] for it in items]
    results, _, elapsed = run_part(
        items,
        SEED004_ABLATION,
        label="seed004 ablation",
        n_splits=10,
        n_repeats=1,
        discretizer=ImputeThenMDL(),
        seed=seed,
        cache=out / "instance" / "seed004_dtl_ablation_cv10",
        resume=resume,
    )
    results.to_csv(out / "instance_seed004_ablation_folds.csv", index=False)
    main = pd.read_csv(out / "instance_seed004_folds.csv")  # part 004: the same folds
    main = main[main["classifier"].isin(["KDB(k=2)", "KDB^e"])]
    both = pd.concat([main, results], ignore_index=True)
    clfs = ["KDB(k=2)", "KDB^e", *SEED004_ABLATION]
    mean = (
        both.groupby(["dataset", "classifier"])["zero_one_loss"]
        .mean()
        .unstack()
        .reindex(index=names, columns=clfs)
        .round(4)
    )
    tab = mean.copy()
    tab.index.name = "dataset"
    tab.to_csv(out / "instance_seed004_ablation.csv")
    srows = {}
    for c in clfs[1:]:
        x, z = mean[c].to_numpy(float), mean["KDB(k=2)"].to_numpy(float)
        srows[c] = {
            "mean loss": round(float(mean[c].mean()), 4),
            "W/D/L vs KDB(k=2), any difference": fmt_result(st.win_draw_loss(x, z, threshold=0.0)),
            "W/D/L vs KDB^e, any difference": fmt_result(
                st.win_draw_loss(x, mean["KDB^e"].to_numpy(float), threshold=0.0)
            )
            if c != "KDB^e"
            else "",
        }
    summary = pd.DataFrame(srows).T
    summary.index.name = "reading (Eq. 9 estimates)"
    lines = [
        "# Seed 004, ablation: the paper's two changes one at a time",
        "",
        "Part 004's protocol and folds. `KDB^e` (weighted measures, own-label combination) "
        "and `KDB(k=2)` come from part 004; the other three columns change the measures, "
        "the combination or both. All use the Eq. 9 pseudo-instance estimates.",
        "",
        md_table(pd.concat([tab, mean.mean().round(4).to_frame(f"**mean ({len(names)})**").T])),
        "",
        md_table(summary),
        "",
        f"Code: {git_version()}.",
        f"Wall time of the part: {elapsed:.0f} s.",
        "",
    ]
    (out / "instance_seed004_ablation.md").write_text("\n".join(lines), encoding="utf-8")
    log(f"seed 004 ablation done in {elapsed:.0f} s")
    return tab, summary
