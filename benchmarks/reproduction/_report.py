"""The outputs of a paper's run: ``table.csv``, ``table.md`` and ``scatter.png``.

:func:`build_table` puts the published values and ours side by side with the tolerance
check; :func:`render_markdown` and :func:`draw_scatter` present that table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._paper import Paper


# --------------------------------------------------------------------------- tables
def build_table(paper: Paper, ours: pd.DataFrame, run_names: Sequence[str]) -> pd.DataFrame:
    """The paper's values and ours side by side, one row per data set, classifier and measure.

    Parameters
    ----------
    paper : Paper
    ours : pandas.DataFrame
        Columns ``run, classifier, measure, ours, N``.
    run_names : sequence of str
        The data sets that ran, in order.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, classifier, measure, N, paper, ours, diff, SE, tolerance,
        within``. ``SE = scale * sqrt(p (1 - p) / N)`` with p the mean of the two values (as
        a fraction), the binomial standard error of a value estimated on N rows;
        ``tolerance = SE + paper.resolution``; ``within`` is ``|diff| <= tolerance`` (empty
        where the paper has no value).
    """
    pv = paper.paper_values
    pv = pv[pv["run"].isin(run_names)]
    # the data sets in the order they ran; each run stands for the paper's data sets it maps to
    # (Diabetes and Pima are one run), or for itself when the paper has no value for it
    names = []
    for r in run_names:
        names += list(dict.fromkeys(pv.loc[pv["run"] == r, "dataset"])) or [r]
    run_of = dict(zip(pv["dataset"], pv["run"]))
    frames = []
    for name in names:
        sub = ours[ours["run"] == run_of.get(name, name)].drop(columns="run").assign(dataset=name)
        frames.append(sub)
    table = pd.concat(frames, ignore_index=True)
    table = table.merge(
        pv[["dataset", "classifier", "measure", "paper"]], on=["dataset", "classifier", "measure"], how="outer"
    )
    table = table[table["dataset"].isin(names)]
    order_d = {n: i for i, n in enumerate(names)}
    order_c = {c: i for i, c in enumerate(paper.classifiers)}
    order_m = {m: i for i, m in enumerate(paper.measures)}
    table = table.assign(
        _d=table["dataset"].map(order_d),
        _c=table["classifier"].map(order_c).fillna(len(order_c)),
        _m=table["measure"].map(order_m).fillna(len(order_m)),
    )
    table = table.sort_values(["_d", "_c", "_m"]).drop(columns=["_d", "_c", "_m"]).reset_index(drop=True)
    table["N"] = table.groupby("dataset")["N"].transform("max")
    table["diff"] = table["ours"] - table["paper"]
    p = (table[["paper", "ours"]].mean(axis=1) / paper.scale).clip(0, 1)
    table["SE"] = paper.scale * np.sqrt(p * (1 - p) / table["N"])
    table["tolerance"] = table["SE"] + paper.resolution
    both = table["paper"].notna() & table["ours"].notna()
    table["within"] = pd.Series(pd.NA, index=table.index, dtype="boolean")
    table.loc[both, "within"] = table.loc[both, "diff"].abs() <= table.loc[both, "tolerance"] + 1e-12
    for c in ("ours", "diff", "SE", "tolerance"):
        table[c] = table[c].round(6)
    table["N"] = table["N"].astype("Int64")
    return table[["dataset", "classifier", "measure", "N", "paper", "ours", "diff", "SE", "tolerance", "within"]]


def _signed(v: float, digits: int) -> str:
    return f"{0.0 if abs(v) < 0.5 * 10**-digits else v:+.{digits}f}"


def _fmt(v: Any, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    if isinstance(v, (float, np.floating)):
        return f"{v:.{digits}f}"
    return str(v)


def _md(df: pd.DataFrame, digits: int) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v, digits) for v in row) + " |")
    return "\n".join(lines)


def agreement(table: pd.DataFrame, paper: Paper) -> pd.DataFrame:
    """Per classifier and measure: how many values the paper and we share, how many agree.

    Parameters
    ----------
    table : pandas.DataFrame
        The output of :func:`build_table`.
    paper : Paper

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier, measure, values, within, mean paper, mean ours, mean diff,
        mean |diff|``.
    """
    both = table.dropna(subset=["paper", "ours"])
    rows = []
    for (clf, measure), g in both.groupby(["classifier", "measure"], sort=False):
        rows.append(
            {
                "classifier": clf,
                "measure": measure,
                "values": len(g),
                "within": int(g["within"].sum()),
                "mean paper": g["paper"].mean(),
                "mean ours": g["ours"].mean(),
                "mean diff": g["diff"].mean(),
                "mean abs diff": g["diff"].abs().mean(),
            }
        )
    return pd.DataFrame(rows)


def render_markdown(paper: Paper, table: pd.DataFrame, info: dict) -> str:
    """``table.md``: the protocol, the agreement summary and one wide table per measure.

    Parameters
    ----------
    paper : Paper
    table : pandas.DataFrame
        The output of :func:`build_table`.
    info : dict
        The contents of ``run.json``.

    Returns
    -------
    str
    """
    digits = 2 if paper.scale == 100 else 4
    both = table.dropna(subset=["paper", "ours"])
    n_within = int(both["within"].sum())
    lines = [
        f"# {paper.title}: paper vs bnclf",
        "",
        f"Seed {paper.seed}. {paper.protocol_text}",
        "",
        f"Mode: {paper.mode}. Data sets run ({len(info['datasets'])}): "
        + ", ".join(f"{k} ({v['rows']} rows, {v['source']})" for k, v in info["datasets"].items())
        + ".",
        "",
    ]
    if info["skipped"]:
        lines += [f"Not run ({len(info['skipped'])}): " + "; ".join(info["skipped"]) + ".", ""]
    lines += [
        f"**{n_within} of {len(both)} values are within one standard error of the paper's.** A value is within "
        "when |ours − paper| ≤ SE + r, where SE = sqrt(p(1 − p)/N) is the binomial standard error of a "
        "value estimated on the N rows of the data set (p = the mean of the two values"
        + (", as a fraction; SE in points" if paper.scale == 100 else "")
        + f") and r = {paper.resolution:g} is half a unit of the paper's last printed digit. diff = ours − paper; "
        "✓ marks a difference within the tolerance.",
        "",
    ]
    lines += [f"* {note}" for note in paper.notes]
    if paper.notes:
        lines.append("")
    lines += ["## Agreement", "", _md(agreement(table, paper), digits), ""]
    if paper.extra is not None:
        lines += paper.extra(table)
    for measure in [m for m in paper.measures if m in set(table["measure"])]:
        sub = table[table["measure"] == measure]
        wide = pd.DataFrame(index=pd.Index(list(dict.fromkeys(sub["dataset"])), name="dataset"))
        wide["N"] = sub.groupby("dataset", sort=False)["N"].max().astype("Int64")
        means = {}
        for clf in [c for c in paper.classifiers if c in set(sub["classifier"])]:
            g = sub[sub["classifier"] == clf].set_index("dataset")
            has_paper = g["paper"].notna().any()
            if has_paper:
                wide[f"{clf} paper"] = g["paper"]
            wide[f"{clf} ours"] = g["ours"]
            if has_paper:
                wide[f"{clf} diff"] = [
                    "" if pd.isna(d) else _signed(d, digits) + (" ✓" if w is True else "")
                    for d, w in zip(g["diff"], g["within"].astype(object).where(g["within"].notna(), None))
                ]
                ok = g.dropna(subset=["paper", "ours"])
                means[f"{clf} paper"], means[f"{clf} ours"] = ok["paper"].mean(), ok["ours"].mean()
                means[f"{clf} diff"] = _signed((ok["ours"] - ok["paper"]).mean(), digits) if len(ok) else ""
            else:
                means[f"{clf} ours"] = g["ours"].mean()
        wide = wide.reset_index()
        mean_row = {"dataset": "**mean** (values with a paper value)", "N": pd.NA}
        mean_row.update({c: means.get(c, "") for c in wide.columns if c not in mean_row})
        wide = pd.concat([wide, pd.DataFrame([mean_row])], ignore_index=True)
        lines += [f"## {measure}", "", _md(wide, digits), ""]
    lines += [
        f"Folds: {info['folds']} ({info['computed']} computed in the run that wrote this file, "
        f"{info['cached']} read from the cache; {info['fold_seconds']:.0f} s to compute them all, the sum over "
        f"the folds). Code: {info['code']}; protocol version {info['protocol_version']}.",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- scatter
MARKERS = ["o", "s", "^", "D", "v"]
COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown"]


def draw_scatter(paper: Paper, table: pd.DataFrame, path: Path) -> None:
    """``scatter.png``: the paper's value (x) against ours (y), one panel per classifier.

    Each point has a vertical bar of ± the tolerance: the points whose bar crosses the
    diagonal are the reproduced ones (filled); the others are hollow, and the three
    farthest from the diagonal in each panel are named.

    Parameters
    ----------
    paper : Paper
    table : pandas.DataFrame
        The output of :func:`build_table`.
    path : pathlib.Path
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    both = table.dropna(subset=["paper", "ours"])
    clfs = [c for c in paper.classifiers if c in set(both["classifier"])]
    measures = [m for m in paper.measures if m in set(both["measure"])]
    n = max(1, len(clfs))
    ncols = min(4, n)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(4.1 * ncols, 4.1 * nrows + 0.9), layout="constrained")
    FigureCanvasAgg(fig)
    if both.empty:
        ax = fig.add_subplot(1, 1, 1)
        ax.text(0.5, 0.5, "no data set of the paper's table was run", ha="center", va="center")
        ax.set_axis_off()
    lo = min(both["paper"].min(), (both["ours"] - both["tolerance"]).min()) if len(both) else 0.0
    hi = max(both["paper"].max(), (both["ours"] + both["tolerance"]).max()) if len(both) else 1.0
    pad = 0.05 * (hi - lo if hi > lo else (abs(hi) or 1.0))
    for j, clf in enumerate(clfs):
        ax = fig.add_subplot(nrows, ncols, j + 1)
        g = both[both["classifier"] == clf]
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="gray", ls="--", lw=1, zorder=1)
        for k, measure in enumerate(measures):
            gm = g[g["measure"] == measure]
            colour, marker = COLOURS[k % len(COLOURS)], MARKERS[k % len(MARKERS)]
            for within, face in ((True, colour), (False, "white")):
                sel = gm[gm["within"].fillna(False).astype(bool) == within]
                if sel.empty:
                    continue
                ax.errorbar(
                    sel["paper"],
                    sel["ours"],
                    yerr=sel["tolerance"],
                    fmt=marker,
                    ms=5,
                    mfc=face,
                    mec=colour,
                    ecolor=colour,
                    elinewidth=0.8,
                    alpha=0.9,
                    zorder=3,
                )
        far = g.assign(z=g["diff"].abs() / g["tolerance"]).sort_values("z", ascending=False)
        for _, r in far[far["z"] > 1].head(3).iterrows():
            label = r["dataset"] + (f" ({r['measure'].split(' (')[0]})" if len(measures) > 1 else "")
            note = ax.annotate(label, (r["paper"], r["ours"]), textcoords="offset points", xytext=(4, 3), fontsize=7)
            note.set_in_layout(False)  # a long name must not shrink the panel
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
        ax.set_aspect("equal", adjustable="box")
        ax.grid(True, alpha=0.3)
        ax.set_title(f"{clf}: {int(g['within'].sum())} of {len(g)} within", fontsize=10)
        ax.set_xlabel("paper", fontsize=8)
        ax.set_ylabel("ours", fontsize=8)
        ax.tick_params(labelsize=7)
    handles = [
        Line2D([], [], ls="", marker=MARKERS[k % len(MARKERS)], color=COLOURS[k % len(COLOURS)], label=m)
        for k, m in enumerate(measures)
    ] + [
        Line2D([], [], ls="", marker="o", mfc="white", mec="black", label="outside one SE"),
        Line2D([], [], ls="--", color="gray", label="paper = ours"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8, frameon=False)
    n_within = int(both["within"].sum())
    fig.suptitle(
        f"{paper.title}; {paper.mode}; {', '.join(measures)}\n"
        f"{n_within} of {len(both)} values within one standard error of the paper's (bars: ± SE + rounding)",
        fontsize=11,
    )
    fig.savefig(path, dpi=90)
