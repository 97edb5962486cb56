"""Drawings of learned structures (matplotlib): one panel per network of a model."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import networkx as nx
import numpy as np
from matplotlib.artist import Artist

from bnclf.io._files import staged
from bnclf.plot._layout import (
    CLASS_COLOR,
    CLASS_EDGE_COLOR,
    CLASS_EDGE_WIDTH,
    FAINT_EDGE_COLOR,
    FEATURE_COLOR,
    FEATURE_EDGE_COLOR,
    FEATURE_EDGE_WIDTH,
    PALE_FILL,
    PARENT_COLOR,
    _clip,
    _default_font,
    _graph_and_class,
    _node_text,
    _PathT,
    _StructureLayout,
    _text_inches,
    model_class_information,
    select_nodes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from pgmpy.models import DiscreteBayesianNetwork
    from sklearn.base import BaseEstimator

    from bnclf.network import Network


class _ScaleWithAxes(Artist):
    """Sets the font sizes and line widths of its Axes' drawing to the Axes' scale when drawn.

    Sizes are given for one inch per data unit; drawn first (lowest zorder),
    this artist multiplies them by the inches one data unit has at draw time,
    so that a drawing keeps its proportions however its Axes is sized (a
    ``tight_layout``, a constrained layout or a resized window).
    """

    def __init__(self):
        super().__init__()
        self.items = []  # (artist, setter name, size at one inch per unit)
        self.set_zorder(-1e6)
        self.set_in_layout(False)

    def add(self, artist, setter, size):
        self.items.append((artist, setter, size))
        return artist

    def scale(self) -> float:
        ax = self.axes
        (x0, _), (x1, _) = ax.transData.transform([(0.0, 0.0), (1.0, 0.0)])
        return abs(x1 - x0) / ax.figure.dpi

    def apply(self, s):
        for artist, setter, size in self.items:
            getattr(artist, setter)(size * s)

    def draw(self, renderer):
        self.apply(self.scale())

    def get_tightbbox(self, renderer=None):
        return None


def _arc_kinds(graph, class_node, highlight) -> dict:
    """``arc -> kind``: "class", "feature", "parent" (into the class), "faint" or "highlight"."""
    children = set(graph.successors(class_node)) if class_node is not None else set()
    kinds = {}
    for u, v in graph.edges:
        if u == class_node:
            kinds[(u, v)] = "class"
        elif (u, v) in highlight:
            kinds[(u, v)] = "highlight"
        elif v == class_node:
            kinds[(u, v)] = "parent"
        elif class_node is None or v in children:
            kinds[(u, v)] = "feature"
        else:
            kinds[(u, v)] = "faint"
    return kinds


_ARC_STYLE = {  # colour, width, arrow size (points), line style, zorder
    "class": (CLASS_EDGE_COLOR, CLASS_EDGE_WIDTH, 7.0, "-", 1.0),
    "faint": (FAINT_EDGE_COLOR, 0.9, 9.0, "--", 1.5),
    "feature": (FEATURE_EDGE_COLOR, FEATURE_EDGE_WIDTH, 11.0, "-", 2.0),
    "parent": (PARENT_COLOR, 2.0, 13.0, "-", 2.2),
    "highlight": (CLASS_COLOR, 2.2, 13.0, "-", 2.4),
}


_ARC_LEGEND = {
    "class": "class \u2192 feature",
    "feature": "feature \u2192 feature",
    "parent": "feature \u2192 class",
    "faint": "arc outside the class families",
    "highlight": "highlighted arc",
}


def _wrap(text: str, width: float, size: float) -> list:
    """Lines of ``text`` (kept line breaks) wrapped at spaces to ``width`` inches at ``size`` points."""
    lines = []
    for paragraph in str(text).split("\n"):
        if _text_inches(paragraph, size) <= width:
            lines.append(paragraph)
            continue
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and _text_inches(candidate, size) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def _structure_spec(
    obj,
    *,
    class_node=None,
    title=None,
    font_size=None,
    pos=None,
    highlight=(),
    features=None,
    markov_blanket_only=False,
    max_features=None,
    rank=None,
    legend=True,
) -> dict:
    """Everything a drawing of one network needs, sized in inches, before anything is drawn."""
    graph, class_node = _graph_and_class(obj, class_node)
    scores = None
    if isinstance(rank, str):
        if rank not in ("degree", "mi"):
            raise ValueError(f"rank={rank!r} is not valid; use 'degree', 'mi' or a mapping feature -> score.")
        if rank == "mi" and max_features is not None:
            scores = model_class_information(obj)
    elif rank is not None:
        scores = dict(rank)
    graph, note = select_nodes(
        graph,
        class_node,
        features=features,
        markov_blanket_only=markov_blanket_only,
        max_features=max_features,
        rank=scores,
    )
    if note and scores is not None and isinstance(rank, str):
        note += ", highest mutual information with the class"
    if note:
        title = f"{title} ({note})" if title else note
    if class_node is not None:
        from bnclf.learn._restricted import markov_blanket

        blanket = set(markov_blanket(graph, class_node))
    else:
        blanket = set(graph)
    outside = [v for v in graph if v != class_node and v not in blanket]
    if outside:
        n_features = graph.number_of_nodes() - 1
        extra = f"Markov blanket: {n_features - len(outside)} of {n_features} features"
        title = f"{title}\n{extra}" if title else extra
    font = float(font_size or _default_font(graph.number_of_nodes()))
    text, notes = _node_text(graph, class_node)
    layout = _StructureLayout(graph, class_node, text, font=font, pos=pos)
    kinds = _arc_kinds(graph, class_node, {tuple(e) for e in highlight})
    x_lo, x_hi, y_lo, y_hi = layout.extent()
    x_lo, x_hi, y_hi = x_lo - 0.15, x_hi + 0.15, y_hi + 0.1
    entries = _legend_entries(kinds, class_node, outside) if legend else []
    legend_font = 8.0
    widths = [0.5 + 0.08 + _text_inches(label, legend_font) + 0.3 for _, label in entries]
    if widths:  # the legend is centred under the drawing
        centre = (x_lo + x_hi) / 2
        x_lo, x_hi = min(x_lo, centre - max(widths) / 2), max(x_hi, centre + max(widths) / 2)
    width = x_hi - x_lo
    legend_rows = []
    for entry, w in zip(entries, widths):  # fill rows up to the drawing's width
        if legend_rows and legend_rows[-1][1] + w <= width:
            legend_rows[-1][0].append((entry, w))
            legend_rows[-1][1] += w
        else:
            legend_rows.append([[(entry, w)], w])
    if width > _MAX_FIGURE[0] or y_hi - y_lo > _MAX_FIGURE[1]:
        notes = [
            f"{graph.number_of_nodes() - (class_node is not None)} features, drawn smaller than full size; "
            "draw part of the network with max_features=, features= or markov_blanket_only=True."
        ] + notes
    note_lines = [line for n in notes for line in _wrap(n, width - 0.1, 7.5)]
    band = (0.25 + 0.24 * len(legend_rows) if legend_rows else 0.1) + 0.17 * len(note_lines)
    y_lo -= band
    title_lines = _wrap(title, max(width, 3.0), 12.0) if title else []
    return {
        "layout": layout,
        "kinds": kinds,
        "outside": set(outside),
        "title": "\n".join(title_lines),
        "title_lines": len(title_lines),
        "legend_rows": [row for row, _ in legend_rows],
        "notes": note_lines,
        "x_lo": x_lo,
        "x_hi": x_hi,
        "y_lo": y_lo,
        "y_hi": y_hi,
        "width": width,
        "height": y_hi - y_lo,
        "legend_top": y_lo + band,
    }


def _legend_entries(kinds: dict, class_node, outside) -> list[tuple[str, str]]:
    """``(kind, label)`` of each legend entry: the kinds of arcs drawn, then the kinds of nodes."""
    present = set(kinds.values())
    entries = [(k, _ARC_LEGEND[k]) for k in _ARC_STYLE if k in present]
    if class_node is not None:
        entries.append(("node:class", "class"))
    entries.append(("node:feature", "feature"))
    if outside:
        entries.append(("node:outside", "feature outside the Markov blanket"))
    return entries


def _render_structure(ax, spec, *, title_size=12.0, frame=None):
    """Draw a prepared network on ``ax`` (equal aspect; sizes follow the Axes' scale).

    ``frame``, (width, height) in layout units, widens the limits around the
    drawing (centred, top-aligned), so that the panels of one figure share a scale.
    Returns ``ax``.
    """
    extra_w, extra_h = (
        (0.0, 0.0) if frame is None else (max(0.0, frame[0] - spec["width"]), max(0.0, frame[1] - spec["height"]))
    )
    ax.set_xlim(spec["x_lo"] - extra_w / 2, spec["x_hi"] + extra_w / 2)
    ax.set_ylim(spec["y_lo"] - extra_h, spec["y_hi"])
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    scaler = _ScaleWithAxes()
    ax.add_artist(scaler)
    _draw_arcs(ax, spec["layout"], spec["kinds"], scaler)
    _draw_nodes(ax, spec["layout"], spec["outside"], scaler)
    _draw_legend(ax, spec, scaler)
    _draw_notes(ax, spec, scaler)
    box = ax.get_position()
    fig = ax.figure
    s = min(
        box.width * fig.get_figwidth() / (spec["width"] + extra_w),
        box.height * fig.get_figheight() / (spec["height"] + extra_h),
    )
    scaler.apply(s)
    if spec["title"]:  # a fixed size, so that a layout engine (tight_layout, constrained) makes room for it
        ax.set_title(spec["title"].replace("$", r"\$"), fontsize=title_size * min(1.0, s))
    return ax


def _draw_arcs(ax, layout: _StructureLayout, kinds: dict, scaler: _ScaleWithAxes) -> None:
    """The routed arcs of ``layout``, each in the style of its kind (gid ``arc:<kind>``)."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    for arc, (verts, codes) in layout.paths.items():
        color, lw, head, style, z = _ARC_STYLE[kinds[arc]]
        patch = FancyArrowPatch(
            path=Path(verts, codes),
            arrowstyle="-|>",
            mutation_scale=head,
            lw=lw,
            color=color,
            linestyle=style,
            zorder=z,
            joinstyle="round",
            capstyle="butt",
        )
        patch.set_gid(f"arc:{kinds[arc]}")
        ax.add_patch(patch)
        scaler.add(patch, "set_linewidth", lw)
        scaler.add(patch, "set_mutation_scale", head)


def _draw_nodes(ax, layout: _StructureLayout, outside: set, scaler: _ScaleWithAxes) -> None:
    """A labelled box per node (gid ``node``): the class red, features outside the Markov
    blanket (``outside``) pale, the other features blue."""
    from matplotlib.patches import FancyBboxPatch

    for v in layout.graph:
        x0, x1, y0, y1 = layout.boxes[v]
        is_class = v == layout.class_node
        if is_class:
            face, edge, lw, color = CLASS_COLOR, "black", 1.4, "white"
        elif v in outside:
            face, edge, lw, color = PALE_FILL, "#bbbbbb", 0.9, "#888888"
        else:
            face, edge, lw, color = FEATURE_COLOR, "#1f77b4", 0.9, "black"
        box = FancyBboxPatch(
            (x0, y0),
            x1 - x0,
            y1 - y0,
            boxstyle="round,pad=0,rounding_size=0.06",
            facecolor=face,
            edgecolor=edge,
            linewidth=lw,
            zorder=3,
        )
        box.set_gid("node")
        ax.add_patch(box)
        scaler.add(box, "set_linewidth", lw)
        size = layout.class_font if is_class else layout.font
        label = ax.text(
            *layout.pos[v],
            layout.text[v].replace("$", r"\$"),
            ha="center",
            va="center",
            zorder=4,
            fontsize=size,
            color=color,
            fontweight="bold" if is_class else "normal",
        )
        label.set_gid("node")
        scaler.add(label, "set_fontsize", size)


def _draw_legend(ax, spec: dict, scaler: _ScaleWithAxes) -> None:
    """The legend rows of ``spec`` under the drawing, centred: a sample arc or box and its label."""
    y = spec["legend_top"] - 0.22
    for row in spec["legend_rows"]:
        x = (spec["x_lo"] + spec["x_hi"]) / 2 - sum(w for _, w in row) / 2 + 0.15
        for (kind, text), w in row:
            ax.add_patch(_legend_sample(kind, x, y, scaler))
            scaler.add(
                ax.text(x + 0.58, y, text, ha="left", va="center", fontsize=8.0, color="#333333"), "set_fontsize", 8.0
            )
            x += w
        y -= 0.24


def _legend_sample(kind: str, x: float, y: float, scaler: _ScaleWithAxes):
    """The sample of a legend entry at (x, y): a box for ``node:*`` kinds, else an arc."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    if kind.startswith("node:"):
        face, edge = {
            "node:class": (CLASS_COLOR, "black"),
            "node:feature": (FEATURE_COLOR, "#1f77b4"),
            "node:outside": (PALE_FILL, "#bbbbbb"),
        }[kind]
        sample = FancyBboxPatch(
            (x + 0.1, y - 0.07),
            0.3,
            0.14,
            boxstyle="round,pad=0,rounding_size=0.04",
            facecolor=face,
            edgecolor=edge,
            linewidth=0.9,
            zorder=3,
        )
        scaler.add(sample, "set_linewidth", 0.9)
        return sample
    color, lw, head, style, _ = _ARC_STYLE[kind]
    sample = FancyArrowPatch(
        (x, y),
        (x + 0.5, y),
        arrowstyle="-|>",
        mutation_scale=head,
        lw=lw,
        color=color,
        linestyle=style,
        shrinkA=0,
        shrinkB=0,
        zorder=3,
    )
    scaler.add(sample, "set_linewidth", lw)
    scaler.add(sample, "set_mutation_scale", head)
    return sample


def _draw_notes(ax, spec: dict, scaler: _ScaleWithAxes) -> None:
    """The wrapped note lines of ``spec`` at the bottom left, last line lowest."""
    for i, line in enumerate(spec["notes"]):
        y_note = spec["y_lo"] + 0.05 + 0.17 * (len(spec["notes"]) - 1 - i)
        scaler.add(
            ax.text(
                spec["x_lo"] + 0.1,
                y_note,
                line.replace("$", r"\$"),
                ha="left",
                va="bottom",
                fontsize=7.5,
                color="#333333",
            ),
            "set_fontsize",
            7.5,
        )


def draw_structure(
    obj: BaseEstimator | Network | nx.DiGraph | DiscreteBayesianNetwork,
    ax: Axes | None = None,
    *,
    class_node: Hashable | None = None,
    title: str | None = None,
    font_size: float | None = None,
    pos: Mapping[Hashable, tuple[float, float]] | None = None,
    highlight: Iterable[tuple[Hashable, Hashable]] = (),
    features: str | Iterable[Hashable] | None = None,
    markov_blanket_only: bool = False,
    max_features: int | None = None,
    rank: Literal["degree", "mi"] | Mapping[Hashable, float] = "degree",
    legend: bool = True,
) -> Axes | np.ndarray:
    """Draw a Bayesian network classifier's structure.

    Parameters
    ----------
    obj : fitted BayesNetClassifier, Network, networkx.DiGraph or pgmpy network
        An estimator with several networks (ensemble, multinet) is drawn with
        :func:`draw_members`, one panel per member.
    ax : matplotlib Axes, optional
        Axes to draw on (the drawing keeps its proportions and is scaled to fit,
        text and lines with it); a figure sized to the graph is made when
        omitted, at one inch per layout unit, so that text keeps its size.
    class_node : hashable or False, optional
        The class node (taken from the estimator; for a bare graph, the parentless
        node with most children). ``False``: the graph has no class node (a
        multinet member read back from a file).
    title : str, optional
        Wrapped to the drawing's width.
    font_size : float, optional
        Label size in points at one inch per layout unit; by default 10 up to 16
        nodes, 9 up to 45, 8 beyond. Boxes are sized to their labels.
    pos : dict, optional
        Node positions (default: :func:`structure_layout`); pass one layout to
        several drawings to compare them node for node. Nodes at one height form
        a row (moved apart where their boxes would overlap).
    highlight : collection of (parent, child), optional
        Arcs among features drawn in red (e.g. those another network lacks).
    features : list or str, optional
        Draw only these features (and the class; a str: that one feature).
    markov_blanket_only : bool, default=False
        Draw only the class's Markov blanket.
    max_features : int, optional
        Draw at most this many features (after ``features`` and
        ``markov_blanket_only``), ranked by ``rank``. The title then says how many
        features are shown (see :func:`select_nodes`).
    rank : {"degree", "mi"} or mapping, default="degree"
        Which features ``max_features`` keeps: those with the most arcs among
        features; ``"mi"``, those with the highest mutual information with the
        class under the fitted network (:func:`model_class_information`; a
        fitted estimator or a Network only); or a mapping feature -> score,
        highest first.
    legend : bool, default=True
        A legend of the arc and node styles under the drawing.

    Returns
    -------
    matplotlib.axes.Axes
        (an array of Axes for an estimator with several networks)

    Notes
    -----
    The class is the red box on the top row; its arcs to the features are thin
    and light grey (``CLASS_EDGE_COLOR``, ``CLASS_EDGE_WIDTH``) and drawn under
    the arcs among features, which are black and thicker
    (``FEATURE_EDGE_COLOR``, ``FEATURE_EDGE_WIDTH``): the learned part stands
    out. Features are on rows below by generation of the feature subgraph, so
    arcs among features point down. Every arc is routed: it passes the rows
    between its ends through a lane of its own, vertical inside a row and
    curving only between rows, so no arc passes through a box (see
    :func:`structure_layout`); the class's arcs fan out from the bottom of its
    box. In an unrestricted network (RMCV, hill climbing) arcs into the class
    are orange and enter its box from below; features outside the class's
    Markov blanket are drawn pale, and arcs outside the class families (which
    do not change the class of a fully observed row) grey and dashed; the title
    then says how many features the blanket holds.

    Names longer than 24 characters are shortened with an ellipsis (shared
    middle tokens first, as in :func:`draw_multilabel`), and a note under the
    drawing gives them in full.
    """
    obj = obj[-1] if hasattr(obj, "steps") else obj
    if hasattr(obj, "network_members") and len(obj.network_members()) > 1:
        _refuse_node_selection(features, markov_blanket_only, max_features)
        return draw_members(obj, title=title, font_size=font_size)
    look = {"title": title, "font_size": font_size, "pos": pos, "highlight": highlight, "legend": legend}
    nodes = {"features": features, "markov_blanket_only": markov_blanket_only, "max_features": max_features}
    spec = _structure_spec(obj, class_node=class_node, rank=rank, **nodes, **look)
    ax = _panel_figure([spec], ncols=1)[0][0, 0] if ax is None else ax
    return _render_structure(ax, spec)


def _refuse_node_selection(features, markov_blanket_only, max_features) -> None:
    """ValueError when nodes are selected for an estimator with several networks."""
    if features is not None or markov_blanket_only or max_features is not None:
        raise ValueError(
            "features=, markov_blanket_only= and max_features= select nodes of "
            "one network; draw a member (obj.networks_[i]) to use them."
        )


_MAX_FIGURE = (60.0, 80.0)  # inches; a larger drawing is scaled down, text with it


def _panel_figure(specs, *, ncols, suptitle=None, footer=0.0):
    """A figure of ``ceil(len(specs) / ncols)`` rows of panels, as wide as the widest drawing and
    each row as tall as its tallest, sized so that the drawings have one inch per layout unit
    (less when the figure would exceed ``_MAX_FIGURE``); ``footer`` inches are left free under
    the panels (for a figure legend).

    Returns the Axes (a 2-D array) and, for each drawing, the frame to render it in (its
    panel's width and height in layout units, for :func:`_render_structure`).
    """
    import matplotlib.pyplot as plt

    nrows = int(math.ceil(len(specs) / ncols))
    w = max(spec["width"] for spec in specs)
    heights = [max(spec["height"] for spec in specs[r * ncols : (r + 1) * ncols]) for r in range(nrows)]
    title_band = (
        0.15 + 0.22 * max(spec["title_lines"] for spec in specs) if any(spec["title_lines"] for spec in specs) else 0.1
    )
    side, gap, bottom = 0.2, 0.4, 0.15 + footer
    top = 0.2 + 0.25 * (suptitle.count("\n") + 1) if suptitle else 0.0
    fig_w = ncols * w + (ncols - 1) * gap + 2 * side
    fig_h = sum(heights) + nrows * title_band + top + bottom
    shrink = min(1.0, _MAX_FIGURE[0] / fig_w, _MAX_FIGURE[1] / fig_h)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(fig_w * shrink, fig_h * shrink),
        squeeze=False,
        gridspec_kw={"height_ratios": heights},
    )
    fig.subplots_adjust(  # spaces are fractions of the mean panel's width and height
        left=side / fig_w,
        right=1 - side / fig_w,
        bottom=bottom / fig_h,
        top=1 - (top + title_band) / fig_h,
        wspace=gap / w,
        hspace=title_band * nrows / sum(heights),
    )
    if suptitle:
        fig.suptitle(suptitle, fontsize=13 * shrink, y=1 - 0.1 / fig_h, va="top")
    return axes, [(w, heights[i // ncols]) for i in range(len(specs))]


def draw_members(
    est: BaseEstimator,
    *,
    members: Sequence[int] | None = None,
    ncols: int | None = None,
    title: str | None = None,
    font_size: float | None = None,
    max_features: int | None = None,
) -> np.ndarray:
    """Draw every network of an ensemble or a multinet, one panel per member.

    Parameters
    ----------
    est : fitted BayesNetClassifier
    members : list of int, optional
        Positions of the members to draw (default: all of them but members of
        weight 0, which no row uses until none of the others qualifies — AODE's
        naive Bayes fallback — or the first 16 when there are more).
    ncols : int, optional
        Panels per row (default: up to 4).
    title : str, optional
        Figure title.
    font_size : float, optional
        Label size (see :func:`draw_structure`).
    max_features : int, optional
        Draw at most this many features of each member, those with the most arcs among
        features (see :func:`draw_structure`); each panel's title then says how many.

    Returns
    -------
    ndarray of matplotlib Axes
        The panels, titled by each member's role (its root, super-parent or
        class label) and, for ensembles, its weight; each drawn as by
        :func:`draw_structure` (without a legend) at one scale: the panels
        are as wide as the widest drawing, and each row as tall as its
        tallest.
    """
    all_members = est.network_members()
    weights = getattr(est, "weights_", None)
    unused = []  # members of weight 0 (AODE's naive Bayes fallback): drawn only when asked for
    if weights is not None and all_members.kind == "ensemble" and len(weights) == len(all_members):
        unused = [i for i in range(len(all_members)) if weights[i] == 0]
    if members is None:
        chosen = [i for i in range(len(all_members)) if i not in unused][:16]
        if unused:
            note = f"{len(unused)} member of weight 0 not drawn (the naive Bayes fallback; members= draws it)"
            title = f"{title}\n{note}" if title else note
    else:
        chosen = list(members)
    bad = [i for i in chosen if not (isinstance(i, (int, np.integer)) and 0 <= i < len(all_members))]
    if bad or not len(chosen):
        raise ValueError(
            f"members={members!r} is not valid; give positions in 0..{len(all_members) - 1} "
            f"of the {len(all_members)} networks (see network_members()), or None for the first 16."
        )
    picked = [all_members[i] for i in chosen]
    specs = []
    for i, (key, net) in enumerate(picked):
        label = net.title or str(key)
        if weights is not None and all_members.kind == "ensemble":
            label += f"  (w = {weights[list(chosen)[i]]:.3g})"
        specs.append(
            _structure_spec(net, title=_clip(label, 60), font_size=font_size, max_features=max_features, legend=False)
        )
    ncols = ncols or min(4, len(picked))
    axes, frames = _panel_figure(specs, ncols=ncols, suptitle=title)
    for ax, spec, frame in zip(axes.flat, specs, frames):
        _render_structure(ax, spec, frame=frame)
    for ax in list(axes.flat)[len(picked) :]:
        ax.set_axis_off()
    return axes


def save_structure_png(
    obj: BaseEstimator | Network | nx.DiGraph | DiscreteBayesianNetwork, path: _PathT, **kwargs: Any
) -> _PathT:
    """Draw ``obj`` with :func:`draw_structure` and save it as a PNG; returns the path.

    Parameters
    ----------
    obj : see :func:`draw_structure`
    path : str or pathlib.Path
    **kwargs
        Passed to :func:`draw_structure` (``title``, ``features``,
        ``markov_blanket_only``, ``max_features``, ``rank``, ...).

    Returns
    -------
    str or pathlib.Path
        ``path``.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ax = draw_structure(obj, **kwargs)
    fig = ax.flat[0].figure if isinstance(ax, np.ndarray) else ax.figure
    try:
        with staged(path) as (tmp,):
            fig.savefig(tmp, dpi=110)
    finally:
        plt.close(fig)
    return path


def structure_svg(obj: Any) -> str:
    """``obj`` drawn by :func:`draw_structure` (a multilabel model by
    :func:`~bnclf.plot.draw_multilabel`) as SVG text: what a notebook shows for a
    :class:`~bnclf.network.Network` and for ``network_members()``."""
    import io

    import matplotlib.pyplot as plt

    if getattr(obj, "_multilabel", False):
        from bnclf.plot._multilabel import draw_multilabel

        ax = draw_multilabel(obj)
    else:
        ax = draw_structure(obj)
    fig = ax.flat[0].figure if isinstance(ax, np.ndarray) else ax.figure
    buffer = io.StringIO()
    try:
        fig.savefig(buffer, format="svg")
    finally:
        plt.close(fig)
    return buffer.getvalue()
