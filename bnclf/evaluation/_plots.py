"""Plots for classifier comparisons (matplotlib, no pyplot state).

- :func:`plot_critical_difference`: Demšar's critical-difference diagram.
- :func:`plot_paper_vs_ours`: published values against reproduced ones.
- :func:`plot_dataset_bars`: grouped bars of a score per dataset and classifier.

Figures are built with :class:`matplotlib.figure.Figure` and the Agg canvas, so
they work without a display and never touch the global pyplot state; pass
``path`` to save a PNG. Each function returns the Figure.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from os import PathLike
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


__all__ = [
    "nemenyi_cliques",
    "plot_critical_difference",
    "plot_paper_vs_ours",
    "plot_dataset_bars",
]


def _new_figure(figsize):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def _finish(fig, path, dpi=150):
    if path is not None:
        from bnclf.io._files import staged

        with staged(path) as (tmp,):
            fig.savefig(tmp, dpi=dpi, bbox_inches="tight")
    return fig


def nemenyi_cliques(avg_ranks: pd.Series, cd: float) -> list[list]:
    """Maximal groups of classifiers whose average ranks differ by less than ``cd``.

    Returns lists of classifier names, each sorted by rank; groups contained in
    another group are dropped, single classifiers are not groups.
    """
    ranks = avg_ranks.sort_values()
    names = list(ranks.index)
    values = ranks.to_numpy()
    groups = []
    for i in range(len(values)):
        j = i
        while j + 1 < len(values) and values[j + 1] - values[i] < cd:
            j += 1
        if j > i:
            groups.append((i, j))
    maximal = [g for g in groups if not any(o != g and o[0] <= g[0] and g[1] <= o[1] for o in groups)]
    return [names[a : b + 1] for a, b in maximal]


def plot_critical_difference(
    avg_ranks: pd.Series | Mapping[Hashable, float],
    cd: float | None = None,
    *,
    control: Hashable | None = None,
    title: str | None = None,
    reverse: bool = True,
    ax: Axes | None = None,
    path: str | PathLike | None = None,
    width: float = 7.0,
) -> Figure:
    """Critical-difference diagram (Demšar 2006).

    Classifiers are placed on a rank axis by average rank; thick bars join
    groups whose ranks differ by less than the critical difference (Nemenyi).
    With ``control`` given, the diagram instead marks the interval
    ``rank(control) ± cd`` (Bonferroni–Dunn).

    Parameters
    ----------
    avg_ranks : pandas.Series or dict
        Average rank per classifier.
    cd : float, optional
        Critical difference; drawn as a scale bar. Without it no groups are drawn.
    control : str, optional
        Control classifier for a Bonferroni–Dunn style diagram.
    title : str, optional
    reverse : bool, default=True
        Best (lowest) ranks on the right, as in Demšar's figures and Sun et al.'s (2017)
        Figure 5.
    ax : matplotlib Axes, optional
    path : path-like, optional
        Save the figure as PNG there.
    width : float, default=7.0
        Figure width in inches (when ``ax`` is None).

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    .. [1] Demšar, J. (2006). Statistical comparisons of classifiers over multiple
       data sets. JMLR 7, 1–30.
    """
    ranks = pd.Series(avg_ranks, dtype=float).sort_values()
    k = len(ranks)
    axis = _RankAxis(1, max(k, int(np.ceil(ranks.max()))), reverse)
    n_left = (k + 1) // 2
    cliques = nemenyi_cliques(ranks, cd) if (cd is not None and control is None) else []
    height = 0.9 + 0.32 * max(n_left, k - n_left) + 0.18 * len(cliques) + (0.3 if title else 0)
    if ax is None:
        fig = _new_figure((width, max(2.2, height)))
        ax = fig.add_axes([0.0, 0.0, 1.0, 1.0])
    else:
        fig = ax.figure
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    axis.draw(ax)
    top = 0.45  # above the axis: the CD scale bar, then the title
    if cd is not None:
        axis.draw_cd_bar(ax, cd, top)
        top += 0.35
    if title:
        ax.text(0.5, top, title, ha="center", va="bottom", fontsize=10, fontweight="bold")
        top += 0.3
    clique_y0 = -0.15  # below the axis: the clique bars, then the labels
    for gi, group in enumerate(cliques):
        axis.draw_bar(ax, ranks[group[0]], ranks[group[-1]], clique_y0 - 0.16 * gi, pad=0.006)
    if control is not None and cd is not None:  # the control's interval (Bonferroni–Dunn)
        rc = ranks[control]
        axis.draw_bar(ax, max(axis.lo, rc - cd), min(axis.hi, rc + cd), -0.1, color="tab:red")
    bottom = axis.draw_labels(ax, ranks, n_left, clique_y0 - 0.16 * len(cliques) - 0.12, control)
    ax.set_ylim(bottom, top + 0.05)
    return _finish(fig, path)


class _RankAxis:
    """The rank axis of a critical-difference diagram at y = 0: ranks ``lo`` to ``hi``
    span x in [0.2, 0.8] of the width, the best (lowest) on the right when ``reverse``."""

    def __init__(self, lo: int, hi: int, reverse: bool) -> None:
        self.lo, self.hi, self.reverse = lo, hi, reverse

    def x_of(self, r: float) -> float:
        t = (r - self.lo) / (self.hi - self.lo) if self.hi > self.lo else 0.5
        if self.reverse:
            t = 1.0 - t
        return 0.2 + 0.6 * t

    def draw(self, ax: Axes) -> None:
        """The axis line, a labelled tick at each whole rank and a short tick at each half."""
        x_of, lo, hi = self.x_of, self.lo, self.hi
        line_kw = dict(color="black", lw=1.0)
        ax.plot([x_of(lo), x_of(hi)], [0.0, 0.0], **line_kw)
        for r in range(lo, hi + 1):
            ax.plot([x_of(r), x_of(r)], [0.0, 0.08], **line_kw)
            ax.text(x_of(r), 0.12, str(r), ha="center", va="bottom", fontsize=9)
        for r in np.arange(lo + 0.5, hi, 1.0):
            ax.plot([x_of(r), x_of(r)], [0.0, 0.04], **line_kw)

    def draw_cd_bar(self, ax: Axes, cd: float, y: float) -> None:
        """A scale bar ``cd`` ranks long at height ``y``, from the left end of the axis."""
        x0 = self.x_of(self.lo)
        x1 = x0 + (self.x_of(self.lo + cd) - x0)
        xs = sorted([x0, x1])
        ax.plot(xs, [y, y], color="black", lw=1.2)
        for x in xs:
            ax.plot([x, x], [y - 0.04, y + 0.04], color="black", lw=1.2)
        ax.text(sum(xs) / 2, y + 0.06, f"CD = {cd:.4f}", ha="center", va="bottom", fontsize=9)

    def draw_bar(self, ax: Axes, r0: float, r1: float, y: float, *, pad: float = 0.0, color: str = "black") -> None:
        """A thick bar from rank ``r0`` to rank ``r1`` at height ``y``, ``pad`` longer at each end."""
        xa, xb = self.x_of(r0), self.x_of(r1)
        ax.plot([min(xa, xb) - pad, max(xa, xb) + pad], [y, y], color=color, lw=3.5, solid_capstyle="butt")

    def draw_labels(self, ax: Axes, ranks: pd.Series, n_left: int, y0: float, control) -> float:
        """Each classifier's name and rank, joined to its rank by an elbow line from height
        ``y0`` down: the best ``n_left`` on the best side, the others on the other (the
        control in bold). Returns the y under the lowest label."""
        best = list(ranks.index[:n_left])
        worst = list(ranks.index[n_left:])[::-1]
        side_best = 0.95 if self.reverse else 0.05
        side_worst = 0.05 if self.reverse else 0.95
        for side, members in ((side_best, best), (side_worst, worst)):
            for i, name in enumerate(members):
                y = y0 - 0.3 * i
                x = self.x_of(ranks[name])
                ax.plot([x, x, side], [0.0, y, y], color="black", lw=0.8)
                ha = "left" if side > 0.5 else "right"
                tx = side + (0.008 if ha == "left" else -0.008)
                weight = "bold" if name == control else "normal"
                ax.text(
                    tx,
                    y,
                    f"{name} ({ranks[name]:.2f})" if ha == "left" else f"({ranks[name]:.2f}) {name}",
                    ha=ha,
                    va="center",
                    fontsize=9,
                    fontweight=weight,
                )
        return y0 - 0.3 * (max(len(best), len(worst)) - 1) - 0.2


def plot_paper_vs_ours(
    paper: ArrayLike | pd.Series,
    ours: ArrayLike | pd.Series,
    *,
    labels: Sequence[str] | None = None,
    metric: str = "zero-one loss",
    title: str | None = None,
    ax: Axes | None = None,
    path: str | PathLike | None = None,
) -> Figure:
    """Scatter of published values (x) against reproduced values (y).

    Points on the diagonal agree; the title gives the number of points, the
    mean absolute difference and Pearson's r.

    Parameters
    ----------
    paper, ours : array-like or pandas.Series of the same length
        When both are Series they are aligned on their index (e.g. dataset names),
        and the index supplies the labels.
    labels : sequence of str, optional
        Point annotations.
    metric : str
        Axis label.
    """
    if isinstance(paper, pd.Series) and isinstance(ours, pd.Series):
        paper, ours = paper.align(ours, join="inner")
        if labels is None:
            labels = [str(i) for i in paper.index]
    x = np.asarray(paper, dtype=float)
    y = np.asarray(ours, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paper and ours differ in length: {x.shape} vs {y.shape}")
    if ax is None:
        fig = _new_figure((5.5, 5.5))
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure
    ok = np.isfinite(x) & np.isfinite(y)
    ax.scatter(x[ok], y[ok], s=22, color="tab:blue", zorder=3)
    if ok.any():
        lo = min(x[ok].min(), y[ok].min())
        hi = max(x[ok].max(), y[ok].max())
        pad = 0.05 * (hi - lo if hi > lo else 1.0)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="gray", ls="--", lw=1, zorder=1)
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
    if labels is not None:
        for xi, yi, lab, good in zip(x, y, labels, ok):
            if good:
                ax.annotate(str(lab), (xi, yi), textcoords="offset points", xytext=(3, 3), fontsize=7)
    ax.set_xlabel(f"paper ({metric})")
    ax.set_ylabel(f"ours ({metric})")
    ax.set_aspect("equal", adjustable="box")
    ax.grid(True, alpha=0.3)
    n = int(ok.sum())
    stats_txt = f"n = {n}"
    if n:
        stats_txt += f", mean |diff| = {np.mean(np.abs(x[ok] - y[ok])):.4f}"
    if n > 2 and np.std(x[ok]) > 0 and np.std(y[ok]) > 0:
        stats_txt += f", r = {np.corrcoef(x[ok], y[ok])[0, 1]:.3f}"
    ax.set_title(f"{title}\n{stats_txt}" if title else stats_txt, fontsize=10)
    return _finish(fig, path)


def plot_dataset_bars(
    table: pd.DataFrame,
    errors: pd.DataFrame | None = None,
    *,
    metric: str = "zero-one loss",
    title: str | None = None,
    ax: Axes | None = None,
    path: str | PathLike | None = None,
) -> Figure:
    """Grouped bar chart: one group per dataset (rows), one bar per classifier (columns).

    Parameters
    ----------
    table : DataFrame of shape (n_datasets, n_classifiers)
        E.g. mean zero-one loss.
    errors : DataFrame of the same shape, optional
        Error-bar half-lengths (e.g. standard deviation over folds).
    metric : str
        y-axis label.
    """
    table = pd.DataFrame(table)
    n_d, n_c = table.shape
    if ax is None:
        fig = _new_figure((max(6.0, 0.35 * n_d * max(1, n_c) * 0.6 + 2.0), 4.0))
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure
    x = np.arange(n_d)
    w = 0.8 / max(1, n_c)
    for j, col in enumerate(table.columns):
        err = None if errors is None else errors[col].reindex(table.index).to_numpy()
        ax.bar(
            x - 0.4 + w * (j + 0.5),
            table[col].to_numpy(),
            width=w,
            label=str(col),
            yerr=err,
            capsize=2 if err is not None else 0,
            error_kw={"lw": 0.8},
        )
    ax.set_xticks(x)
    ax.set_xticklabels([str(i) for i in table.index], rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(metric)
    ax.set_xlim(-0.6, n_d - 0.4)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=min(n_c, 4), frameon=False)
    if title:
        ax.set_title(title)
    return _finish(fig, path)
