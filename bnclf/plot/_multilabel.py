"""Multilabel networks: the class subgraph, the bridge and the selected features."""

from __future__ import annotations

import itertools
import math
import numbers
import re
from collections import Counter
from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING, overload

import networkx as nx
import numpy as np

from bnclf.plot._layout import CLASS_COLOR, FEATURE_COLOR, PALE_FILL, _abbreviate, _short, _text_inches
from bnclf.plot._structures import _wrap

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure
    from sklearn.base import BaseEstimator


CLASS_ARC_COLOR = "#1f77b4"
"""Arcs of a multilabel network's class subgraph (thick and blue, as in Corani et al.'s Figure 1)."""


BRIDGE_COLOR = "#f28e2b"
"""Bridge arcs, from a class to a feature (thin)."""


MORAL_COLOR = "#7f7f7f"
"""Dashed edges between classes that share a feature (``label_only=True``)."""


LABEL_FILL = "#fbd3d3"


def _multilabel_parts(model) -> dict:
    """What a drawing needs from a fitted MultilabelBNClassifier or MultilabelBNEnsemble."""
    model = model[-1] if hasattr(model, "steps") else model
    if not hasattr(model, "bridge_parents_"):
        hint = " (not fitted: call fit(X, Y) first)" if hasattr(model, "feature_selection") else ""
        raise TypeError(
            f"draw_multilabel needs a fitted MultilabelBNClassifier or MultilabelBNEnsemble; "
            f"got {type(model).__name__}{hint}. Draw single-label classifiers with draw_structure."
        )
    labels = list(model.label_names_)
    label_set = set(labels)
    if hasattr(model, "networks_"):
        members = [
            (
                net.title or f"root: {labels[r]}",
                labels[r] if r < len(labels) else None,
                [(u, v) for u, v in net.dag.edges if u in label_set and v in label_set],
            )
            for r, net in enumerate(model.networks_)
        ]
        kind = "BN ensemble"
    else:
        members = [
            (None, model.root_, [(u, v) for u, v in model.network_.dag.edges if u in label_set and v in label_set])
        ]
        kind = "mFAN" if getattr(model, "class_graph", "nb") == "fan" else "mNB"
    return {
        "labels": labels,
        "features": list(model.selected_features_),
        "bridge": {f: tuple(p) for f, p in model.bridge_parents_.items()},
        "members": members,
        "kind": kind,
        "treewidth": int(model.treewidth_),
    }


def _pick_multilabel_features(parts: dict, features, max_features):
    selected = parts["features"]
    keep = list(selected)
    if features is not None:
        if isinstance(features, str):
            features = [features]
        wanted = list(features)
        unknown = [f for f in wanted if f not in parts["bridge"]]
        if unknown:
            raise ValueError(
                f"features={unknown!r} are not selected features of the model; selected are "
                f"{selected[:10]}{' ...' if len(selected) > 10 else ''} (selected_features_)."
            )
        keep = [f for f in keep if f in set(wanted)]
    if max_features is not None:
        if not isinstance(max_features, (int, np.integer)) or isinstance(max_features, bool) or max_features < 1:
            raise ValueError(
                f"max_features={max_features!r} is not valid; give a number of features >= 1, or None for all."
            )
        rank = {f: i for i, f in enumerate(selected)}
        keep = sorted(keep, key=lambda f: (-len(parts["bridge"][f]), rank[f]))[: int(max_features)]
        keep = sorted(keep, key=rank.__getitem__)
    note = "" if len(keep) == len(selected) else f"{len(keep)} of {len(selected)} features shown"
    return keep, note


def _two_lines(name: str) -> str:
    """``name`` broken in two lines at the separator nearest its middle (kept at the end of the first)."""
    cuts = [m.end() for m in re.finditer(r"[-_./:| ]+", name) if 0 < m.start() and m.end() < len(name)]
    if not cuts:
        return name
    cut = min(cuts, key=lambda i: abs(2 * i - len(name)))
    return name[:cut].rstrip(" ") + "\n" + name[cut:]


def _class_box(text: str, font: float) -> tuple:
    """(width, height) in inches of a class's box: its (bold) lines and a margin."""
    lines = text.split("\n")
    return max(_text_inches(line, font, True) for line in lines) + 0.22, font * (0.9 + 1.2 * len(lines)) / 72


def _bezier_points(p0, p1, rads, t):
    """Points of matplotlib's ``arc3`` curves from ``p0`` to ``p1``: ``(len(rads), len(t), 2)``."""
    d = p1 - p0
    ctrl = (p0 + p1) / 2 + rads[:, None] * np.array([d[1], -d[0]])[None, :]
    t = t[None, :, None]
    return (1 - t) ** 2 * p0 + 2 * t * (1 - t) * ctrl[:, None, :] + t**2 * p1


class _MultilabelLayout:
    """Node positions and box sizes (in inches) of a multilabel drawing, and its routed bridge arcs.

    Classes are on one row at ``y = 0``, in the largest font (11 to 9 points,
    then names in two lines at 10 to 8) that keeps the row within ``max_width``
    inches. Features are on rows below, in aligned columns as many as the width
    holds, sorted by the mean position of their class parents and filled column
    by column. A bridge arc to a lower row passes every row above it through a
    gap between two nodes (as a layered drawing routes long edges through dummy
    nodes): it is a smooth path, vertical inside each row and S-shaped between
    rows, so it never crosses a node; the gaps of the aligned columns make lanes
    that an arc follows down to its row.
    """

    def __init__(self, labels, feats, bridge, *, class_text, feature_text, label_only, max_width=None):
        n_l, n_f = len(labels), len(feats)
        self.labels, self.feats, self.bridge = labels, feats, bridge
        budget = math.inf if max_width is None else max_width
        self.feature_font = 9.0 if n_f <= 20 else 8.0 if n_f <= 50 else 7.0
        self.text = {f: feature_text[f] for f in feats}
        self.size = {
            f: (_text_inches(feature_text[f], self.feature_font) + 0.16, self.feature_font * 2.0 / 72) for f in feats
        }
        largest = 11.0 if n_l <= 8 else 10.0 if n_l <= 16 else 8.0
        one = [(f, 1) for f in (11.0, 10.0, 9.0) if f <= largest] or [(8.0, 1)]
        options = one + [(f, 2) for f in (10.0, 9.0, 8.0) if f <= largest]
        tried = []  # (class step, font, text, sizes): the first that fits, else the narrowest
        for font, lines in options:
            text = {c: _two_lines(class_text[c]) if lines == 2 else class_text[c] for c in labels}
            size = {c: _class_box(text[c], font) for c in labels}
            high = max(h for _, h in size.values())  # one height for the row
            size = {c: (w, high) for c, (w, _) in size.items()}
            tried.append((max(w for w, _ in size.values()) + 0.3, font, text, size))
            if tried[-1][0] * n_l - 0.3 <= budget:
                break
        else:  # none fits: the narrowest
            tried.sort(key=lambda t: -t[0])
        class_step, self.class_font, text, size = tried[-1]
        self.text.update(text)
        self.size.update(size)
        self.pos, self.rows = {}, []
        width = class_step * (n_l - 1)
        if n_f and not label_only:
            fw = max(self.size[f][0] for f in feats)
            step = fw + min(0.45 * fw, 0.4)
            if max_width is None:  # about 1.3 sqrt(n) columns, 10 to 16 inches wide
                target = min(max(width + class_step, 1.3 * math.sqrt(n_f) * step, 10.0), max(16.0, width))
                cols = max(1, int(target // step))
            else:  # within the width or the row of classes (arcs in the outer lanes and margins: 0.8 in more)
                cols = max(1, int((max(budget, class_step * n_l - 0.3) - 0.8 - fw) // step) + 1)
            n_rows = int(math.ceil(n_f / cols))
            cols = int(math.ceil(n_f / n_rows))
            block = step * (cols - 1)
            if n_l > 1:
                class_step = max(class_step, block / (n_l - 1))
            xs = {c: (i - (n_l - 1) / 2) * class_step for i, c in enumerate(labels)}
            rank = {f: i for i, f in enumerate(feats)}
            index = {c: i for i, c in enumerate(labels)}

            def key(f):
                pa = bridge[f]
                return (
                    (0, float(np.mean([xs[c] for c in pa])), tuple(index[c] for c in pa), rank[f])
                    if pa
                    else (1, 0.0, (), rank[f])
                )

            fh = max(self.size[f][1] for f in feats)
            row_gap = fh + 0.5
            top = -max(1.4, 0.11 * block)
            self.rows = [[] for _ in range(n_rows)]
            for i, f in enumerate(sorted(feats, key=key)):
                col, row = divmod(i, n_rows)
                self.pos[f] = (-block / 2 + col * step, top - row * row_gap)
                self.rows[row].append(f)
        for i, c in enumerate(labels):
            self.pos[c] = ((i - (n_l - 1) / 2) * class_step, 0.0)
        self.boxes = {
            v: (x - self.size[v][0] / 2, x + self.size[v][0] / 2, y - self.size[v][1] / 2, y + self.size[v][1] / 2)
            for v, (x, y) in self.pos.items()
        }
        self.bridge_paths = {}
        self.reach = [min(b[0] for b in self.boxes.values()), max(b[1] for b in self.boxes.values())]
        if self.rows:
            self._route_bridge()

    def _route_bridge(self):
        row_of = {f: r for r, row in enumerate(self.rows) for f in row}
        row_y = [self.pos[row[0]][1] for row in self.rows]
        half = max(self.size[f][1] for f in self.feats) / 2 + 0.05
        gaps = []  # per row: (centre, half width) between neighbouring boxes and past both ends
        for row in self.rows:
            spans = sorted(self.boxes[f][:2] for f in row)
            inner = [((a[1] + b[0]) / 2, (b[0] - a[1]) / 2) for a, b in zip(spans, spans[1:])]
            gaps.append([(spans[0][0] - 0.3, 0.25)] + inner + [(spans[-1][1] + 0.3, 0.25)])
        arcs = [(c, f) for f in self.feats for c in self.bridge[f]]
        start = {a: (self.pos[a[0]][0], self.boxes[a[0]][2]) for a in arcs}
        end = {a: (self.pos[a[1]][0], self.boxes[a[1]][3] + 0.01) for a in arcs}
        through, users = {}, {}
        for a in arcs:  # the gap nearest to the straight line, in every row above the feature's
            (x0, y0), (x1, y1) = start[a], end[a]
            through[a] = []
            for k in range(row_of[a[1]]):
                ideal = x0 + (x1 - x0) * (y0 - row_y[k]) / (y0 - y1)
                g = min(range(len(gaps[k])), key=lambda i, k=k, ideal=ideal: abs(gaps[k][i][0] - ideal))
                through[a].append(g)
                users.setdefault((k, g), []).append(a)
        xs = {}
        for (k, g), passing in users.items():  # spread the arcs sharing a gap, in the order they leave it
            centre, hw = gaps[k][g]
            passing.sort(key=lambda a: (end[a][0], start[a][0]))
            offsets = np.linspace(-0.6 * hw, 0.6 * hw, len(passing)) if len(passing) > 1 else [0.0]
            for a, dx in zip(passing, offsets):
                xs[(a, k)] = centre + float(dx)

        def first_x(a):
            return xs[(a, 0)] if through[a] else end[a][0]

        for node, key_x, pick, width in ((0, first_x, start, 0.7), (1, lambda a: start[a][0], end, 0.5)):
            groups = {}
            for a in arcs:
                groups.setdefault(a[node], []).append(a)
            for v, group in groups.items():  # spread the ends on a node's edge, in the order they go
                if len(group) > 1:
                    group.sort(key=key_x)
                    w = width * self.size[v][0] / 2
                    for a, dx in zip(group, np.linspace(-w, w, len(group))):
                        pick[a] = (self.pos[v][0] + float(dx), pick[a][1])
        for a in arcs:
            points = [start[a]]
            for k, _ in enumerate(through[a]):
                points += [(xs[(a, k)], row_y[k] + half), (xs[(a, k)], row_y[k] - half)]
            points.append(end[a])
            verts, codes = [points[0]], [1]  # Path.MOVETO
            for (px, py), (qx, qy) in zip(points, points[1:]):
                if px == qx and py - qy <= 2 * half + 1e-9 and len(verts) > 1:  # inside a row: straight down
                    verts.append((qx, qy))
                    codes.append(2)  # Path.LINETO
                else:
                    drop = 0.5 * (py - qy)
                    verts += [(px, py - drop), (qx, qy + drop), (qx, qy)]
                    codes += [4, 4, 4]  # Path.CURVE4
            self.bridge_paths[a] = (verts, codes)
            x_all = [v[0] for v in verts]
            self.reach = [min(self.reach[0], min(x_all)), max(self.reach[1], max(x_all))]

    def class_arcs(self, pairs, *, above=True) -> list:
        """``(u, v, start, end, rad)`` for arcs between classes of the row, bowed above it (or below).

        An arc runs from the top edge of one box to the top edge of the other
        (bottom edges when below), so it cannot cross a class between them. All
        arcs have one curvature, so an arc over a longer span is higher
        everywhere over a shorter one it contains; the ends on one box are
        spread along its edge with the longer arcs nearer the middle, so that
        arcs sharing a box stay nested too.
        """
        edge = 3 if above else 2
        ends = {}
        for u, v in pairs:
            ends.setdefault(u, []).append(((u, v), self.pos[v][0]))
            ends.setdefault(v, []).append(((u, v), self.pos[u][0]))
        anchor = {}
        for c, group in ends.items():
            group.sort(key=lambda item: (item[1] > self.pos[c][0], -item[1]))
            w = 0.36 * self.size[c][0]
            offsets = np.linspace(-w, w, len(group)) if len(group) > 1 else [0.0]
            for (pair, _), dx in zip(group, offsets):
                anchor[(pair, c)] = (self.pos[c][0] + float(dx), self.boxes[c][edge])
        out = []
        for u, v in pairs:
            p0, p1 = anchor[((u, v), u)], anchor[((u, v), v)]
            sign = np.sign(p1[0] - p0[0])
            out.append((u, v, p0, p1, float(-0.28 * sign if above else 0.28 * sign)))
        return out


def _arc_crossings(order, edges) -> int:
    """Pairs of arcs drawn on the same side of a row in this order that cross (shared ends do not)."""
    at = {v: i for i, v in enumerate(order)}
    spans = [tuple(sorted((at[u], at[v]))) for u, v in edges]
    return sum(1 for (a, b), (c, d) in itertools.combinations(spans, 2) if a < c < b < d or c < a < d < b)


def _class_order(labels, edges, root) -> list:
    """Order of the classes on their row: label order, unless a tree order has fewer crossing arcs.

    The tree order walks the class subgraph without the root's arcs depth first
    (trees and children in label order), so that those arcs nest, and puts the
    root where its arcs cross the fewest (nearest the middle on ties).
    """
    if root not in labels or len(labels) < 3:
        return list(labels)
    rank = {c: i for i, c in enumerate(labels)}
    forest = nx.DiGraph()
    forest.add_nodes_from(c for c in labels if c != root)
    forest.add_edges_from((u, v) for u, v in edges if root not in (u, v))
    walk = []
    for start in sorted((c for c in forest if forest.in_degree(c) == 0), key=rank.__getitem__):
        walk += [
            c
            for c in nx.dfs_preorder_nodes(forest, start, sort_neighbors=lambda ns: sorted(ns, key=rank.get))
            if c not in walk
        ]
    walk += [c for c in labels if c != root and c not in walk]  # a cycle cannot occur; kept for safety
    middle = len(walk) / 2
    best = min(
        range(len(walk) + 1), key=lambda i: (_arc_crossings(walk[:i] + [root] + walk[i:], edges), abs(i - middle))
    )
    tree_order = walk[:best] + [root] + walk[best:]
    return tree_order if _arc_crossings(tree_order, edges) < _arc_crossings(labels, edges) else list(labels)


def _moral_pairs(labels, bridge, feats) -> dict:
    """``{(a, b): number of features}`` for the pairs of classes that are parents of a common feature."""
    index = {c: i for i, c in enumerate(labels)}
    pairs: Counter = Counter()
    for f in feats:
        pairs.update(itertools.combinations(sorted(bridge[f], key=index.__getitem__), 2))
    return dict(pairs)


def _panel_geometry(layout, class_edges, *, label_only, moral, notes, legend=True) -> dict:
    """Arcs, legend and extents (inches at scale 1) of one panel, before anything is drawn."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    labels = layout.labels
    feats = [] if label_only else layout.feats
    arcs = layout.class_arcs(class_edges, above=True)
    dashed = layout.class_arcs(list(moral), above=False) if label_only else []
    nodes = (*labels, *feats)
    row_h = max(layout.size[c][1] for c in labels) / 2
    # an arc3 curve bows out by half its curvature times its span
    above = max([0.5 * abs(r) * abs(p1[0] - p0[0]) for *_, p0, p1, r in arcs], default=0.0)
    below = max([0.5 * abs(r) * abs(p1[0] - p0[0]) + 0.12 for *_, p0, p1, r in dashed], default=0.0)
    handles = [Line2D([], [], color=CLASS_ARC_COLOR, lw=3.0, label="class subgraph arc")]
    if label_only:
        handles.append(
            Line2D([], [], color=MORAL_COLOR, lw=1.4, ls="--", label="classes that share features (how many, if > 1)")
        )
    else:
        handles.append(Line2D([], [], color=BRIDGE_COLOR, lw=1.2, label="bridge arc (class \u2192 feature)"))
    handles += [
        Patch(facecolor=CLASS_COLOR, edgecolor="black", label="root class"),
        Patch(facecolor=LABEL_FILL, edgecolor=CLASS_COLOR, label="class"),
    ]
    if any(layout.bridge[f] for f in feats):
        handles.append(Patch(facecolor=FEATURE_COLOR, edgecolor="#1f77b4", label="feature"))
    if any(not layout.bridge[f] for f in feats):
        handles.append(Patch(facecolor=PALE_FILL, edgecolor="#bbbbbb", label="feature with no class parent"))
    x_lo = min(layout.boxes[v][0] for v in nodes) - 0.15
    x_hi = max(layout.boxes[v][1] for v in nodes) + 0.15
    if feats:  # bridge arcs may bow out beyond the nodes
        x_lo, x_hi = min(x_lo, layout.reach[0] - 0.1), max(x_hi, layout.reach[1] + 0.1)
    widths = [_text_inches(h.get_label(), 8.0) + 0.75 for h in handles]
    x_lo, x_hi = min(x_lo, -(max(widths) + 0.3) / 2), max(x_hi, (max(widths) + 0.3) / 2)
    width = x_hi - x_lo
    ncol = len(handles)
    while ncol > 1 and sum(sorted(widths)[-ncol:]) > width - 0.2:
        ncol -= 1
    legend_rows = int(math.ceil(len(handles) / ncol)) if legend else 0
    handles = handles if legend else []
    wrapped = []
    chars = max(30, int((width - 0.1) / (0.55 * 7.5 / 72)))
    for note in notes:  # wrap the notes to the drawing's width, at spaces
        line = ""
        for word in note.split(" "):
            if line and len(line) + 1 + len(word) > chars:
                wrapped.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        wrapped.append(line)
    band = 0.1 + 0.25 * legend_rows + 0.17 * len(wrapped)
    y_hi = row_h + above + 0.15
    y_lo = min(min(layout.boxes[v][2] for v in nodes), -row_h - below) - 0.25 - band
    return {
        "arcs": arcs,
        "dashed": dashed,
        "moral": moral,
        "feats": feats,
        "handles": handles,
        "ncol": ncol,
        "legend_rows": legend_rows,
        "notes": wrapped,
        "x_lo": x_lo,
        "x_hi": x_hi,
        "y_lo": y_lo,
        "y_hi": y_hi,
        "width": width,
        "height": y_hi - y_lo,
    }


def _draw_multilabel_panel(ax, layout, geom, root, *, title):
    """Draw one panel on ``ax`` with equal aspect; fonts and lines scaled to inches per data
    unit. Returns ``ax``."""
    ax.set_xlim(geom["x_lo"], geom["x_hi"])
    ax.set_ylim(geom["y_lo"], geom["y_hi"])
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    fig = ax.figure
    box = ax.get_position()
    s = min(box.width * fig.get_figwidth() / geom["width"], box.height * fig.get_figheight() / geom["height"])
    _draw_multilabel_nodes(ax, layout, geom["feats"], root, s)
    _draw_bridge_arcs(ax, layout, geom["feats"], s)
    _draw_moral_edges(ax, geom, s)
    _draw_class_arcs(ax, geom, len(layout.labels), s)
    _draw_multilabel_legend(ax, geom, s)
    if title:
        ax.set_title(title, fontsize=12 * s)
    return ax


def _arc(p0, p1, rad: float, **style):
    """An arc from ``p0`` to ``p1`` bowed by ``rad`` (``arc3``), drawn to the points themselves."""
    from matplotlib.patches import FancyArrowPatch

    return FancyArrowPatch(p0, p1, connectionstyle=f"arc3,rad={rad:.4f}", shrinkA=0, shrinkB=0, **style)


def _draw_class_arcs(ax, geom, n_labels: int, s: float) -> None:
    """The arcs of the class subgraph, thick and blue, at scale ``s``."""
    head = (14 if n_labels <= 8 else 11) * s
    for _, _, p0, p1, rad in geom["arcs"]:
        ax.add_patch(
            _arc(p0, p1, rad, arrowstyle="-|>", mutation_scale=head, lw=2.6 * s, color=CLASS_ARC_COLOR, zorder=2)
        )


def _draw_multilabel_nodes(ax, layout, feats, root, s) -> None:
    """A labelled box per class (the root filled red) and per feature (pale without a class
    parent), at scale ``s``."""
    from matplotlib.patches import FancyBboxPatch

    labels = layout.labels
    for v in (*labels, *feats):
        x0, x1, y0, y1 = layout.boxes[v]
        is_class = v in labels
        if is_class:
            face, edge, lw = (CLASS_COLOR, "black", 1.8) if v == root else (LABEL_FILL, CLASS_COLOR, 1.2)
        elif layout.bridge[v]:
            face, edge, lw = FEATURE_COLOR, "#1f77b4", 0.8
        else:
            face, edge, lw = PALE_FILL, "#bbbbbb", 0.8
        patch = FancyBboxPatch(
            (x0, y0),
            x1 - x0,
            y1 - y0,
            boxstyle="round,pad=0,rounding_size=0.06",
            facecolor=face,
            edgecolor=edge,
            linewidth=lw * s,
            zorder=3,
        )
        ax.add_patch(patch)
        pale = not is_class and not layout.bridge[v]
        ax.text(
            *layout.pos[v],
            layout.text[v].replace("$", r"\$"),
            ha="center",
            va="center",
            zorder=4,
            fontsize=(layout.class_font if is_class else layout.feature_font) * s,
            fontweight="bold" if is_class else "normal",
            color="white" if v == root else "#999999" if pale else "black",
        )


def _draw_bridge_arcs(ax, layout, feats, s) -> None:
    """The routed bridge arcs from each feature's class parents, at scale ``s``."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    for f in feats:
        for c in layout.bridge[f]:
            verts, codes = layout.bridge_paths[(c, f)]
            ax.add_patch(
                FancyArrowPatch(
                    path=Path(verts, codes),
                    arrowstyle="-|>",
                    mutation_scale=7 * s,
                    lw=0.75 * s,
                    color=BRIDGE_COLOR,
                    alpha=0.8,
                    zorder=1,
                )
            )


def _draw_moral_edges(ax, geom, s) -> None:
    """The dashed edges between classes that share features, wider and labelled with the
    count when they share more than one."""
    for a, b, p0, p1, rad in geom["dashed"]:
        k = geom["moral"][(a, b)]
        lw = (1.0 + 0.35 * math.log2(k)) * s
        ax.add_patch(_arc(p0, p1, rad, arrowstyle="-", lw=lw, linestyle="--", color=MORAL_COLOR, zorder=1))
        if k == 1:
            continue
        mid = _bezier_points(np.array(p0), np.array(p1), np.array([rad]), np.array([0.5]))[0, 0]
        ax.text(
            *mid,
            str(k),
            ha="center",
            va="center",
            fontsize=7.5 * s,
            color="#333333",
            zorder=4,
            bbox={"boxstyle": "round,pad=0.12", "facecolor": "white", "edgecolor": "none"},
        )


def _draw_multilabel_legend(ax, geom, s) -> None:
    """The legend (when the panel has one) above the note lines, at the bottom of the panel."""
    notes = geom["notes"]
    y_notes = geom["y_lo"] + 0.05
    legend_top = y_notes + 0.17 * len(notes) + 0.25 * geom["legend_rows"] + 0.05
    if geom["handles"]:
        ax.legend(
            handles=geom["handles"],
            loc="upper center",
            ncol=geom["ncol"],
            fontsize=8 * s,
            bbox_to_anchor=(0.5 * (geom["x_lo"] + geom["x_hi"]), legend_top),
            bbox_transform=ax.transData,
            frameon=False,
            handlelength=2.2,
            columnspacing=1.2,
            borderaxespad=0,
            borderpad=0,
        )
    for i, line in enumerate(notes):
        ax.text(
            geom["x_lo"] + 0.1,
            y_notes + 0.17 * (len(notes) - 1 - i),
            line,
            ha="left",
            va="bottom",
            fontsize=7.5 * s,
            color="#333333",
        )


@overload
def draw_multilabel(
    model: BaseEstimator,
    ax: None = None,
    *,
    features: str | Iterable[Hashable] | None = ...,
    max_features: int | None = ...,
    label_only: bool = ...,
    title: str | None = ...,
    figsize: tuple[float, float] | None = ...,
    max_width: float | None = ...,
) -> Figure: ...


@overload
def draw_multilabel(
    model: BaseEstimator,
    ax: Axes,
    *,
    features: str | Iterable[Hashable] | None = ...,
    max_features: int | None = ...,
    label_only: bool = ...,
    title: str | None = ...,
    figsize: tuple[float, float] | None = ...,
    max_width: float | None = ...,
) -> Figure | SubFigure: ...


def draw_multilabel(
    model: BaseEstimator,
    ax: Axes | None = None,
    *,
    features: str | Iterable[Hashable] | None = None,
    max_features: int | None = None,
    label_only: bool = False,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    max_width: float | None = 9.0,
) -> Figure | SubFigure:
    """Draw a multilabel Bayesian network (mNB, mFAN): class subgraph, bridge and features.

    Parameters
    ----------
    model : fitted MultilabelBNClassifier or MultilabelBNEnsemble
        An ensemble is drawn one panel per member (the first four, with a note,
        when there are more), every panel with the same layout.
    ax : matplotlib Axes, optional
        Axes to draw on (a single network only); fonts and lines are scaled to
        its size. By default a figure sized to the network is made.
    features : list of feature names or str, optional
        Draw only these of the selected features (``selected_features_``; a str:
        that one feature).
    max_features : int, optional
        Draw at most this many features, those with the most class parents first
        (ties in input order); applied after ``features``.
    label_only : bool, default=False
        Draw only the classes: the class subgraph and, as dashed grey edges
        labelled with their count, the pairs of classes that are parents of a
        common feature (among the features drawn). These moral edges and the
        class subgraph make the graph whose treewidth bounds the cost of exact
        queries; the title gives the model's treewidth.
    title : str, optional
        Default: the kind of model (mNB, mFAN, BN ensemble), the root, the number
        of selected features and the treewidth (and how many features are shown).
    figsize : (float, float), optional
        Size of the figure made when ``ax`` is omitted (default: sized to the
        network, one inch per unit of the layout, so that text keeps its size).
    max_width : float or None, default=9.0
        Width in inches that the drawing is laid out to fit (``figsize`` or
        ``ax`` then scale it, shape kept): the class names get the largest font (11 to 9 points) that fits,
        else are set in two lines, broken at a separator (``amazed-`` over
        ``suprised``); the features get as many columns as fit, and more rows.
        At 9 inches, every text still shows at 7 pixels or more when the figure
        is scaled down to a 720-pixel page column. A row of classes that cannot
        fit (many classes) makes the drawing wider. ``None``: no limit (about
        1.3 sqrt(n) columns of features, 10 to 16 inches wide).

    Returns
    -------
    matplotlib.figure.Figure
        The figure made; with ``ax``, ``ax.figure`` (a ``SubFigure`` when the
        Axes is in one).

    Notes
    -----
    The classes are on one row at the top, the root filled in red, in label
    order unless a depth-first order of the class forest has fewer crossing
    arcs (a single network; an ensemble's panels share label order). Arcs of
    the class subgraph are thicker and shown in blue (Corani et al. 2014,
    Figure 1); they run from the top edge of one class to the top edge of
    another, bowed above the row (``arc3``), so they pass over the classes in
    between. Features are in aligned columns on rows below, filled column by
    column in the order of the mean position of their class parents; thin
    orange bridge arcs come down from their class parents, and an arc to a
    lower row passes each row above it through a gap between two columns (the
    gaps make lanes between the columns), so that no arc crosses a node. A
    feature with no class parent (independent of every class) is drawn pale.

    Names longer than 18 characters are shortened with an ellipsis: first the
    tokens that most long names have at the same place become one (on emotions,
    ``Mean_Acc1298_Mean_Mem40_Centroid`` is drawn ``Mean…Mean…Centroid``, and a
    note under the legend says what the ellipsis stands for); then the middle
    of a name still too long is cut, and the note gives its full name.
    """
    parts = _multilabel_parts(model)
    feats, note = _pick_multilabel_features(parts, features, max_features)
    members = parts["members"]
    if len(members) > 1 and ax is not None:
        raise ValueError(
            "A MultilabelBNEnsemble is drawn one panel per member in a figure of its own; "
            "omit ax= (or draw one member's network with draw_structure)."
        )
    layout, notes, moral = _multilabel_layout(parts, feats, label_only, max_width)
    title = _short(_default_title(parts, label_only, note) if title is None else title, 300)
    picked = members[:4]
    if len(members) > len(picked):
        notes = notes + [f"First {len(picked)} of {len(members)} members shown."]
    geoms = _panel_geometries(layout, picked, label_only=label_only, moral=moral, notes=notes)
    if ax is not None:
        _draw_multilabel_panel(ax, layout, geoms[0], members[0][1], title=title)
        return ax.figure
    return _panels_figure(layout, picked, geoms, title, figsize=figsize, max_width=max_width)


def _panel_geometries(layout, picked: list, *, label_only: bool, moral: dict, notes: list) -> list[dict]:
    """The geometry of each member's panel; the last panel has the legend and the notes."""
    last = len(picked) - 1
    return [
        _panel_geometry(
            layout, edges, label_only=label_only, moral=moral, notes=notes if i == last else [], legend=i == last
        )
        for i, (_, _, edges) in enumerate(picked)
    ]


def _multilabel_layout(parts: dict, feats: list, label_only: bool, max_width) -> tuple:
    """``(layout, notes, moral)``: the :class:`_MultilabelLayout` of the drawn classes and
    features (the margins taken off ``max_width``), the notes on shortened names, and the
    moral pairs of classes. ValueError for a ``max_width`` that is not a positive width."""
    labels, bridge, members = parts["labels"], parts["bridge"], parts["members"]
    class_text, class_notes = _abbreviate(labels)
    feature_text, feature_notes = _abbreviate(feats)
    notes = [n.replace("feature names", "class names") for n in class_notes]
    if not label_only:
        notes += feature_notes
    moral = _moral_pairs(labels, bridge, feats)
    row = _class_order(labels, members[0][2], members[0][1]) if len(members) == 1 else labels
    if max_width is not None and (
        not isinstance(max_width, numbers.Real) or isinstance(max_width, bool) or not 0 < max_width < math.inf
    ):
        raise ValueError(f"max_width={max_width!r} is not valid; give a width in inches > 0, or None for no limit.")
    layout = _MultilabelLayout(
        row,
        feats,
        bridge,
        class_text=class_text,
        feature_text=feature_text,
        label_only=label_only,
        max_width=None if max_width is None else max_width - 0.7,  # the figure's margins and the panel's
    )
    return layout, notes, moral


def _default_title(parts: dict, label_only: bool, note: str | None) -> str:
    """The title of a drawing: the kind of model, its root (one network), the number of
    selected features and the treewidth, and ``note`` (how many features are shown)."""
    members = parts["members"]
    kind, tw, n_sel = parts["kind"], parts["treewidth"], len(parts["features"])
    single = len(members) == 1
    if label_only:
        return (
            f"{kind} class subgraph"
            + (f" (root: {members[0][1]})" if single else "")
            + f", treewidth {tw}\ndashed: pairs of classes that are parents of a common feature"
            + (f" (among the {note})" if note else "")
        )
    if single:
        default = f"{kind}, root: {members[0][1]}, {n_sel} selected features, treewidth {tw}"
        return default + (f"\n({note})" if note else "")
    return f"{kind}: {len(members)} members (logarithmic pooling), {n_sel} selected features, treewidth {tw}" + (
        f"\n({note})" if note else ""
    )


def _panels_figure(layout, picked: list, geoms: list, title: str, *, figsize, max_width):
    """A figure of the panels stacked, at one inch per layout unit (``figsize`` scales it all
    alike), each with its own title (one network: ``title``, wrapped to the figure's width)."""
    import matplotlib.pyplot as plt

    single = len(picked) == 1
    side, bottom = 0.2, 0.1
    width = max(g["width"] for g in geoms) + 2 * side
    if title:  # the figure widened for the title's lines (up to max_width), which are wrapped to it
        needed = max(_text_inches(line, 12.5) for line in title.split("\n")) + 0.3
        width = max(width, needed if max_width is None else min(needed, max_width))
        title = "\n".join(_wrap(title, width - 0.3, 12.5))
    top = 0.18 + 0.22 * (title.count("\n") + 1) if title else 0.1
    panel_top = 0.0 if single else 0.35
    height = top + bottom + sum(g["height"] + panel_top for g in geoms)
    fig = plt.figure(figsize=figsize or (width, height))
    fw, fh = fig.get_figwidth(), fig.get_figheight()
    scale = min(fw / width, fh / height)  # a given figsize shrinks (or grows) everything alike
    y = fh - top * scale
    for (member_title, root, _), geom in zip(picked, geoms):
        y -= panel_top * scale
        w, h = geom["width"] * scale, geom["height"] * scale
        ax_i = fig.add_axes([(fw - w) / 2 / fw, (y - h) / fh, w / fw, h / fh])
        _draw_multilabel_panel(
            ax_i, layout, geom, root, title=title if single else _short(member_title or f"root: {root}", 80)
        )
        y -= h
    if not single and title:
        fig.suptitle(title, fontsize=12.5 * scale, y=1 - 0.12 * scale / fh, va="top")
    return fig
