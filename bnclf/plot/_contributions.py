"""A waterfall of one prediction's exact per-feature contributions to its log-odds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bnclf.plot._layout import _clip


def draw_contributions(
    model: Any,
    row: pd.DataFrame | pd.Series,
    *,
    against: Any = None,
    max_features: int = 15,
    ax: Any = None,
) -> Any:
    """Draw how one row's log-odds builds up from the class prior, feature by feature.

    Parameters
    ----------
    model : fitted estimator or Pipeline
        A model with ``contributions`` (one network, a multinet); a Pipeline's steps
        before its classifier transform the row first.
    row : DataFrame with one row, or Series
        The row, with the model's columns.
    against : None or class label
        The class the predicted one is compared with (default: the runner-up).
    max_features : int, default=15
        Features drawn one by one, the largest contributions first; the others are
        summed into one bar, so the last bar still ends at the posterior log-odds.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Bars run from the prior's log-odds, ``log P(a) / P(b)``, through each feature's
    term (green toward the predicted class, red away from it), to the posterior
    log-odds ``log P(a | x) / P(b | x)``, which the terms sum to exactly
    (:meth:`~bnclf.BayesNetClassifier.contributions`). Each label shows the feature's
    value in the row; summed-out values (missing, unseen) contribute nothing and are
    left out.
    """
    import matplotlib.pyplot as plt

    frame = row.to_frame().T if isinstance(row, pd.Series) else row
    if len(frame) != 1:
        raise ValueError(f"draw_contributions draws one row; got {len(frame)}. Pass X.iloc[[i]].")
    estimator = model[-1] if hasattr(model, "steps") else model
    rows = model[:-1].transform(frame) if hasattr(model, "steps") else frame
    if not hasattr(estimator, "contributions"):
        raise TypeError(f"{type(estimator).__name__} has no contributions to draw.")
    table = estimator.contributions(rows, against=against)
    if "member" in table.index.names:
        raise TypeError(
            f"{type(estimator).__name__} is an ensemble: its log-odds is not a sum of feature terms "
            "(see its contributions()); draw a member's, or use a single-network model."
        )
    values = table.iloc[0]
    predicted, other = table.index[0][1], table.index[0][2]
    prior = float(values.iloc[0])
    features = values.iloc[1:]
    features = features[features != 0]
    order = features.abs().sort_values(ascending=False, kind="stable").index
    shown = list(order[:max_features])
    steps = [
        (f"{_clip(str(name), 28)} = {_clip(str(frame.iloc[0][name]), 18)}", float(features[name])) for name in shown
    ]
    rest = features.drop(shown)
    if len(rest):
        steps.append((f"{len(rest)} other feature{'s' if len(rest) > 1 else ''}", float(rest.sum())))
    if ax is None:
        height = 1.2 + 0.32 * (len(steps) + 2)
        _, ax = plt.subplots(figsize=(7.5, height), layout="constrained")
    labels = ["prior", *[label for label, _ in steps], "posterior"]
    starts, widths, colors = [0.0], [prior], ["#7f7f7f"]
    level = prior
    for _, value in steps:
        starts.append(level)
        widths.append(value)
        colors.append("#2ca02c" if value > 0 else "#d62728")
        level += value
    starts.append(0.0)
    widths.append(level)
    colors.append("#1f77b4")
    y = np.arange(len(labels))[::-1]
    ax.barh(y, widths, left=starts, color=colors, height=0.6)
    for k, (position, start, width) in enumerate(zip(y, starts, widths)):
        text = f"{width:.2f}" if k in (0, len(labels) - 1) else f"{width:+.2f}"
        ax.text(max(start, start + width), position, f" {text}", va="center", ha="left", fontsize=8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"log-odds of {predicted!r} against {other!r}")
    proba = estimator.predict_proba(rows)[0]
    classes = list(estimator.classes_)
    ax.set_title(
        f"predicted {predicted!r} (P = {proba[classes.index(predicted)]:.3f}) against {other!r} "
        f"(P = {proba[classes.index(other)]:.3f})",
        fontsize=9,
    )
    ax.margins(x=0.15)
    return ax
