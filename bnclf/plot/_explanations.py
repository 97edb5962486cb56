"""The networks an instance-specific classifier built for one row, one panel each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from bnclf.plot._layout import _clip, _graph_and_class, structure_layout
from bnclf.plot._structures import _ARC_STYLE, _panel_figure, _render_structure, _structure_spec

if TYPE_CHECKING:
    from bnclf.models._instance_specific import Explanation


def draw_explanation(
    explanation: Explanation,
    *,
    parts: Sequence[str] | None = None,
    ncols: int | None = None,
    title: str | None = None,
    font_size: float | None = None,
) -> np.ndarray:
    """Draw the networks an instance-specific classifier built for one row, side by side.

    Parameters
    ----------
    explanation : Explanation
        From ``estimator.explain(row)`` (LKDB, AKDB, LTAN, TargetKDB).
    parts : list of str, optional
        Names of the networks to draw (keys of ``explanation.networks``; default:
        all, the first 16 when there are more).
    ncols : int, optional
        Panels per row (default: up to 4).
    title : str, optional
        Figure title (default: the prediction and, for LTAN, the labels kept).
    font_size : float, optional
        Label size (see :func:`draw_structure`).

    Returns
    -------
    ndarray of matplotlib Axes

    Notes
    -----
    Every panel uses the layout of the first network (the generalist or the
    regular model), so nodes sit in the same place, unless some arc of the panel
    would point up in it: such a panel (an LTAN expert, a micro KDB) gets its own
    layers, parents above children. Arcs among features that the first network
    does not have (either direction) are drawn in red, where the instance's
    structure departs from the global one, and a legend says so. Each title gives
    the part's answer and its probability.
    """
    names = list(explanation.networks)
    chosen = names[:16] if parts is None else list(parts)
    unknown = [p for p in chosen if p not in explanation.networks]
    if unknown or not chosen:
        raise ValueError(f"parts={parts!r} is not valid; choose among {names}.")
    nets = [explanation.networks[p] for p in chosen]
    base = explanation.networks[names[0]]
    base_graph, base_class = _graph_and_class(base)
    layout = structure_layout(base_graph, base_class, font_size=font_size)
    base_arcs = {frozenset((u, v)) for u, v in base_graph.edges if base_class not in (u, v)}
    specs, highlighted = [], []
    for name, net in zip(chosen, nets):
        graph, class_node = _graph_and_class(net)
        new = [(u, v) for u, v in graph.edges if net.class_name not in (u, v) and frozenset((u, v)) not in base_arcs]
        post = explanation.posteriors.get(name) or {}
        answer = max(post, key=post.get) if post else None
        label = name if answer is None else f"{name}\n{answer}: {post[answer]:.3f}"
        # the shared layout while every arc among features still points down in it; an expert
        # whose arcs run the other way gets its own layers, parents above children
        arcs = [(u, v) for u, v in graph.edges if u in layout and v in layout and class_node not in (u, v)]
        downward = all(layout[u][1] > layout[v][1] for u, v in arcs)
        pos = layout if downward else structure_layout(graph, class_node, font_size=font_size)
        specs.append(
            _structure_spec(net, title=_clip(label, 80), font_size=font_size, pos=pos, highlight=new, legend=False)
        )
        highlighted.append(bool(new))
    if title is None:
        title = f"prediction: {explanation.prediction}"
        if "omega" in explanation.details:
            title += f"   (labels kept: {', '.join(map(str, explanation.details['omega']))})"
    legend_size = specs[0]["layout"].font  # the size of the node labels
    axes, frames = _panel_figure(
        specs,
        ncols=ncols or min(4, len(nets)),
        suptitle=_clip(title, 200),
        footer=2.5 * legend_size / 72 if any(highlighted) else 0.0,  # the legend's line, under the panels
    )
    for ax, spec, frame in zip(axes.flat, specs, frames):
        _render_structure(ax, spec, frame=frame)
    for ax in list(axes.flat)[len(nets) :]:
        ax.set_axis_off()
    if any(highlighted):
        from matplotlib.lines import Line2D

        color, width = _ARC_STYLE["highlight"][:2]
        axes.flat[0].figure.legend(
            handles=[Line2D([0], [0], color=color, lw=width)],
            labels=[f"arc that {names[0]!r} does not have (in either direction)"],
            loc="lower center",
            fontsize=legend_size,
            frameon=False,
        )
    return axes
