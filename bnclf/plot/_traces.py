"""The score of a structure search against its moves (RMCV, hill climbing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from sklearn.base import BaseEstimator


@overload
def draw_search_trace(
    obj: BaseEstimator | pd.DataFrame, ax: None = None, *, title: str | None = None
) -> np.ndarray: ...


@overload
def draw_search_trace(obj: BaseEstimator | pd.DataFrame, ax: Axes, *, title: str | None = None) -> Axes: ...


def draw_search_trace(
    obj: BaseEstimator | pd.DataFrame, ax: Axes | None = None, *, title: str | None = None
) -> Axes | np.ndarray:
    """Plot a structure search: the score after every accepted move.

    Parameters
    ----------
    obj : fitted RMCVClassifier or HillClimbClassifier, or its ``search_trace_``
    ax : matplotlib Axes, optional
        Draw only the score curve on it; without it a figure with two panels is
        made: the score, and per step how many neighbours there were and how many
        had to be scored.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes or ndarray of Axes
    """
    import matplotlib.pyplot as plt

    trace = getattr(obj, "search_trace_", obj)
    if not hasattr(trace, "columns") or "score" not in trace.columns:
        raise TypeError(
            "draw_search_trace needs a fitted RMCVClassifier or HillClimbClassifier (or its search_trace_ DataFrame)."
        )
    axes = None
    if ax is None:
        _, axes = plt.subplots(2, 1, figsize=(7.5, 6), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
        ax = axes[0]
    ax.plot(trace["iteration"], trace["score"], color="#555555", lw=1.2, zorder=1)
    styles = {"start": ("o", "black"), "add": ("^", "#2ca02c"), "delete": ("v", "#d62728"), "reverse": ("s", "#1f77b4")}
    for kind, (marker, color) in styles.items():
        part = trace[trace["move"] == kind]
        if len(part):
            ax.scatter(part["iteration"], part["score"], marker=marker, color=color, s=36, zorder=2, label=kind)
    if len(trace) <= 16:
        for _, row in trace.iloc[1:].iterrows():
            ax.annotate(
                str(row["arc"]),
                (row["iteration"], row["score"]),
                fontsize=7,
                xytext=(4, 4),
                textcoords="offset points",
                rotation=20,
            )
    ax.set_ylabel(score_name(obj))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title)
    if axes is None:
        ax.set_xlabel("accepted moves")
        return ax
    steps = trace.iloc[1:]
    axes[1].bar(steps["iteration"] - 0.2, steps["n_candidates"], width=0.4, color="#cccccc", label="neighbours")
    axes[1].bar(steps["iteration"] + 0.2, steps["n_scored"], width=0.4, color="#1f77b4", label="scored")
    axes[1].set_xlabel("accepted moves")
    axes[1].set_ylabel("moves")
    axes[1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes[1].grid(alpha=0.3)
    return axes


_CRITERIA = {
    "mdl": "MDL, ½ Dim log N − LL (lower is better)",
    "cmdl": "CMDL, ½ Dim log N − CLL (lower is better)",
    "k2": "log K2 score (higher is better)",
    "bdeu": "log BDeu score (higher is better)",
    "cll": "conditional log-likelihood (higher is better)",
}


def score_name(obj: Any) -> str:
    """What a search trace's ``score`` column is, for the axis label: RMCV's cross-validated
    or hold-out 0/1 loss, or a hill climber's criterion; ``"score"`` for a bare trace."""
    variant = getattr(obj, "variant", None)
    if isinstance(variant, str):
        kind = "cross-validated" if variant == "cv" else "hold-out"
        return f"{kind} 0/1 loss (lower is better)"
    criterion = getattr(obj, "criterion", None)
    if isinstance(criterion, str):
        return _CRITERIA.get(criterion, criterion)
    return "score"
