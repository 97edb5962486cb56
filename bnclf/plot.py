"""Drawings of learned structures (matplotlib)."""

from __future__ import annotations

import itertools
import math
import os
import re
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import networkx as nx
import numpy as np
from matplotlib.artist import Artist

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure
    from pgmpy.models import DiscreteBayesianNetwork
    from sklearn.base import BaseEstimator

    from .models.instance_specific import Explanation
    from .network import Network

_PathT = TypeVar("_PathT", bound=str | os.PathLike)

CLASS_COLOR = "#d62728"
FEATURE_COLOR = "#aec7e8"
PARENT_COLOR = "#ff7f0e"
"""Arcs into the class (an unrestricted network's class parents)."""


def _graph_and_class(obj, class_node=None):
    from .network import Network

    if isinstance(obj, Network):
        return obj.dag, (obj.class_name if obj.has_class else None)
    if hasattr(obj, "network_members"):
        return _graph_and_class(obj.network_members()[0][1])
    if hasattr(obj, "get_cpds") or isinstance(obj, nx.DiGraph):
        graph = nx.DiGraph()
        graph.add_nodes_from(obj.nodes)
        graph.add_edges_from((u, v) for u, v in obj.edges)  # bare edges: no weight=None attributes
        if class_node is False:  # e.g. a class-conditional member of a multinet
            return graph, None
        if class_node is None:
            roots = [v for v in graph if graph.in_degree(v) == 0 and graph.out_degree(v) > 0]
            class_node = max(roots, key=graph.out_degree) if roots else None
        return graph, class_node
    raise TypeError(
        f"draw_structure needs a fitted bnclf estimator, a networkx DiGraph or a pgmpy "
        f"network; got {type(obj).__name__}."
    )


CLASS_EDGE_COLOR = "#c4c4c4"
"""Arcs from the class to the features: thin and light grey (every feature has one)."""
CLASS_EDGE_WIDTH = 0.7
"""Line width (points) of the arcs from the class."""
FEATURE_EDGE_COLOR = "black"
"""Arcs among features, the learned part of the structure."""
FEATURE_EDGE_WIDTH = 1.4
"""Line width (points) of the arcs among features."""
FAINT_EDGE_COLOR = "#bbbbbb"
"""Arcs outside the class families of an unrestricted network (dashed)."""

_NODE_GAP = 0.3  # inches between neighbouring boxes of a row
_LANE_GAP = 0.13  # between a box and an arc passing through its row
_LANE = 0.07  # between two arcs from the class passing through a row side by side
_ARC_LANE = 0.12  # between other arcs passing through a row side by side
_NAME_LIMIT = 24  # longer names are abbreviated, and the notes give them in full


def _forest_order(features: nx.DiGraph) -> dict:
    """Depth-first order of the forest formed by each feature's first parent (subtrees stay together)."""
    forest = nx.DiGraph()
    forest.add_nodes_from(features)
    for v in features:
        parents = sorted(features.predecessors(v), key=str)
        if parents:
            forest.add_edge(parents[0], v)
    order = {}
    for root in sorted((v for v in forest if forest.in_degree(v) == 0), key=str):
        for v in nx.dfs_preorder_nodes(forest, root, sort_neighbors=lambda ns: sorted(ns, key=str)):
            order[v] = len(order)
    return order


def _pack(desired, weights, gaps) -> np.ndarray:
    """Positions nearest to ``desired`` (weighted least squares) keeping ``x[i+1] - x[i] >= gaps[i]``.

    With ``y = x - cumsum(gaps)`` the constraint is ``y`` non-decreasing, so this
    is an isotonic regression, solved by pooling adjacent violators.
    """
    offsets = np.concatenate([[0.0], np.cumsum(gaps)])
    blocks = []  # [mean, weight, count]
    for t, w in zip(np.asarray(desired, dtype=float) - offsets, weights):
        blocks.append([t, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            (m1, w1, n1), (m2, w2, n2) = blocks.pop(-2), blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return np.repeat([b[0] for b in blocks], [b[2] for b in blocks]) + offsets


def _row_crossings(rows, down) -> int:
    """Crossing segments between neighbouring rows (segments sharing an end do not cross)."""
    total = 0
    for upper, lower in zip(rows, rows[1:]):
        at = {s: i for i, s in enumerate(lower)}
        segs = np.array([(i, at[t]) for i, s in enumerate(upper) for t in down.get(s, ())], dtype=float)
        if len(segs) > 1:
            a, b = segs[:, 0], segs[:, 1]
            total += int(np.sum((a[:, None] < a[None, :]) & (b[:, None] > b[None, :])))
    return total


def _order_rows(rows, up, down, sweeps: int = 12) -> list:
    """Orders within rows with fewer crossings: barycentre sweeps down and up, the best order kept."""
    rows = [list(r) for r in rows]
    best, best_crossings = [list(r) for r in rows], _row_crossings(rows, down)
    place = {s: (i + 0.5) / len(row) for row in rows for i, s in enumerate(row)}
    for _ in range(sweeps):
        for indices, nbrs in ((range(1, len(rows)), up), (range(len(rows) - 2, -1, -1), down)):
            for r in indices:
                key = {s: float(np.mean([place[t] for t in nbrs[s]])) if nbrs.get(s) else place[s] for s in rows[r]}
                rows[r].sort(key=key.__getitem__)
                place.update({s: (i + 0.5) / len(rows[r]) for i, s in enumerate(rows[r])})
        crossings = _row_crossings(rows, down)
        if crossings < best_crossings:
            best, best_crossings = [list(r) for r in rows], crossings
        if best_crossings == 0:
            break
    return best


class _StructureLayout:
    """Boxes (in inches) and routed arcs of one network's drawing.

    Nodes sit on rows: the class alone on the top row, the features on rows
    below by generation of the feature subgraph (a wide generation wraps onto
    several rows). An arc between rows that are not neighbours passes every row
    in between through a lane of its own, as a layered drawing routes long
    edges through dummy nodes: the lanes are placed with the nodes (orders by
    barycentre sweeps, positions by least squares on the arcs' horizontal
    lengths, long arcs straightened), so a lane is never inside a box. An arc
    is vertical inside a row and an S-shaped cubic curve between two rows,
    where there are no boxes; it leaves a box from its
    bottom edge and enters one at its top edge (an arc into the class, drawn
    upward, the other way round), the ends on one edge spread in the order of
    where the arcs go. No arc passes through a box.

    With ``pos`` given, the rows are its distinct heights and the order within
    a row its x order (moved apart where boxes would overlap); an arc then
    passes each row in between through the gap nearest to its straight line,
    and an arc between two nodes of one row bows above that row.
    """

    def __init__(self, graph, class_node, text, *, font, pos=None):
        self.graph, self.class_node, self.text, self.font = graph, class_node, text, font
        self.class_font = font + 1.5
        self.size = {}
        for v in graph:
            if v == class_node:
                self.size[v] = (
                    max(_text_inches(text[v], self.class_font, True) + 0.36, 0.8),
                    self.class_font * 2.5 / 72,
                )
            else:
                self.size[v] = (_text_inches(text[v], font) + 0.22, font * 2.1 / 72)
        self.arcs = list(graph.edges)
        self.lanes = {}  # arc -> [(row, x)] of the rows it passes, top to bottom
        if pos is None:
            self._layered()
        else:
            self._given(pos)
        self._route()

    # -- rows, orders and positions ----------------------------------------------------
    def _layered(self):
        graph, c = self.graph, self.class_node
        feats = [v for v in graph if v != c]
        sub = graph.subgraph(feats)
        order = _forest_order(sub)
        rows = [[c]] if c is not None else []
        room = sum(self.size[v][0] + _NODE_GAP for v in feats)
        target = max(7.0, 1.9 * math.sqrt(room))  # inches of boxes in a row before it wraps
        for gen in nx.topological_generations(sub):
            gen = sorted(gen, key=order.__getitem__)
            k = max(1, int(math.ceil(sum(self.size[v][0] + _NODE_GAP for v in gen) / target)))
            per = int(math.ceil(len(gen) / k))
            rows += [gen[i : i + per] for i in range(0, len(gen), per)]
        row_of = {v: r for r, row in enumerate(rows) for v in row}
        node_of, row_slots = [], [[] for _ in rows]  # slots: the nodes, then one lane per arc and row passed
        slot = {}
        for r, row in enumerate(rows):
            for v in row:
                slot[v] = len(node_of)
                node_of.append(v)
                row_slots[r].append(slot[v])
        up, down, chains = {}, {}, {}
        place = {v: (i + 0.5) / len(row) for row in rows for i, v in enumerate(row)}
        start = {slot[v]: place[v] for v in place}  # a first order: lanes on the straight line of their arc
        for u, v in self.arcs:
            top, bottom = (u, v) if row_of[u] < row_of[v] else (v, u)
            chain = [slot[top]]
            for r in range(row_of[top] + 1, row_of[bottom]):
                t = (r - row_of[top]) / (row_of[bottom] - row_of[top])
                start[len(node_of)] = place[top] + t * (place[bottom] - place[top])
                chain.append(len(node_of))
                row_slots[r].append(len(node_of))
                node_of.append(None)
            chain.append(slot[bottom])
            for a, b in zip(chain, chain[1:]):
                down.setdefault(a, []).append(b)
                up.setdefault(b, []).append(a)
            chains[(u, v)] = chain
        for row in row_slots:
            row.sort(key=start.__getitem__)
        row_slots = _order_rows(row_slots, up, down, sweeps=12 if len(node_of) < 3000 else 4)
        lane_gap = {s: _LANE if u == self.class_node else _ARC_LANE for (u, _), ch in chains.items() for s in ch[1:-1]}
        runs = [ch[1:-1] for ch in chains.values() if len(ch) > 2]
        x = self._place_slots(row_slots, up, down, node_of, lane_gap, runs)
        self.rows = [[node_of[s] for s in row if node_of[s] is not None] for row in row_slots]
        self.pos = {node_of[s]: (x[s], 0.0) for row in row_slots for s in row if node_of[s] is not None}
        self.lanes = {
            a: [(r, x[s]) for r, s in zip(range(row_of[node_of[ch[0]]] + 1, len(rows)), ch[1:-1])]
            for a, ch in chains.items()
        }
        self._set_rows(
            spread=[
                max([abs(x[a] - x[b]) for a in upper for b in down.get(a, ())], default=0.0) for upper in row_slots[:-1]
            ]
        )

    def _place_slots(self, rows, up, down, node_of, lane_gap, runs) -> dict:
        """x of every slot, given the orders within rows.

        A few sweeps toward the mean of the neighbours above, then below, spread
        the rows; then block coordinate descent on the sum of squared horizontal
        lengths of the segments, weighted 1 between boxes, 2 between a box and a
        lane and 8 between two lanes (Sugiyama's priorities, so that long arcs
        run straight), each row solved exactly by :func:`_pack`; last, the lanes
        of each long arc are lined up where the slots beside them leave room.
        """
        width = [self.size[v][0] if v is not None else 0.0 for v in node_of]

        def gaps(row):
            out = []
            for a, b in zip(row, row[1:]):
                lanes = (node_of[a] is None) + (node_of[b] is None)
                if lanes == 2:
                    out.append((lane_gap[a] + lane_gap[b]) / 2)
                else:
                    out.append((width[a] + width[b]) / 2 + (_LANE_GAP if lanes else _NODE_GAP))
            return np.array(out)

        row_gaps = [gaps(row) for row in rows]
        x = {}
        for row, g in zip(rows, row_gaps):
            xs = np.concatenate([[0.0], np.cumsum(g)])
            x.update(zip(row, xs - xs[-1] / 2))
        for indices, nbrs in [(range(1, len(rows)), up), (range(len(rows) - 2, -1, -1), down)] * 4:
            for r in indices:
                row = rows[r]
                desired = [float(np.mean([x[t] for t in nbrs[s]])) if nbrs.get(s) else x[s] for s in row]
                weight = [(4.0 if node_of[s] is None else 1.0) if nbrs.get(s) else 0.05 for s in row]
                x.update(zip(row, _pack(desired, weight, row_gaps[r])))
        lane = [v is None for v in node_of]
        near = {
            s: [
                (t, 8.0 if lane[s] and lane[t] else 2.0 if lane[s] or lane[t] else 1.0)
                for t in up.get(s, []) + down.get(s, [])
            ]
            for row in rows
            for s in row
        }
        order = list(range(len(rows))) + list(range(len(rows) - 2, 0, -1))
        for _ in range(30):
            for r in order:
                row = rows[r]
                weight = [sum(w for _, w in near[s]) or 0.05 for s in row]
                desired = [
                    sum(w * x[t] for t, w in near[s]) / total if near[s] else x[s] for s, total in zip(row, weight)
                ]
                x.update(zip(row, _pack(desired, weight, row_gaps[r])))
        self._straighten(rows, row_gaps, runs, x, passes=6)
        mid = (min(x.values()) + max(x.values())) / 2
        return {s: v - mid for s, v in x.items()}

    @staticmethod
    def _straighten(rows, row_gaps, runs, x, passes=3):
        """Line up the lanes of each long arc where the slots beside them leave room, longest arcs first."""
        where = {}
        for r, row in enumerate(rows):
            for i, s in enumerate(row):
                where[s] = (r, i)

        def room(s):
            r, i = where[s]
            row, g = rows[r], row_gaps[r]
            lo = x[row[i - 1]] + g[i - 1] if i > 0 else -np.inf
            hi = x[row[i + 1]] - g[i] if i + 1 < len(row) else np.inf
            return lo, max(lo, hi)

        for _ in range(passes):
            for run in sorted(runs, key=len, reverse=True):
                start, lo, hi = 0, -np.inf, np.inf
                for i in range(len(run) + 1):
                    if i < len(run):
                        a, b = room(run[i])
                        if max(lo, a) <= min(hi, b) + 1e-9:
                            lo, hi = max(lo, a), max(max(lo, a), min(hi, b))
                            continue
                    part = run[start:i]
                    value = min(max(float(np.median([x[s] for s in part])), lo), hi)
                    for s in part:
                        x[s] = value
                    if i < len(run):
                        start, (lo, hi) = i, room(run[i])

    def _given(self, pos):
        graph = self.graph
        placed = {v: (float(pos[v][0]), float(pos[v][1])) for v in graph if v in pos}
        heights = sorted({round(p[1], 6) for p in placed.values()}, reverse=True)
        rows = [
            sorted((v for v in placed if round(placed[v][1], 6) == h), key=lambda v: (placed[v][0], str(v)))
            for h in heights
        ]
        missing = sorted((v for v in graph if v not in placed), key=str)
        if missing:
            rows.append(missing)
            heights.append((heights[-1] - 1.0) if heights else 0.0)
        xs = {}
        for row in rows:  # as given, moved apart where boxes would overlap
            desired = [placed[v][0] if v in placed else i for i, v in enumerate(row)]
            gaps = [(self.size[a][0] + self.size[b][0]) / 2 + _NODE_GAP for a, b in zip(row, row[1:])]
            xs.update(zip(row, _pack(desired, [1.0] * len(row), gaps)))
        self.rows = rows
        self.pos = {v: (xs[v], 0.0) for v in graph}
        self._set_rows(given=heights)
        row_of = {v: r for r, row in enumerate(rows) for v in row}
        users = {}
        for u, v in self.arcs:
            top, bottom = (u, v) if row_of[u] <= row_of[v] else (v, u)
            (x0, y0), (x1, y1) = self.pos[top], self.pos[bottom]
            self.lanes[(u, v)] = []
            for r in range(row_of[top] + 1, row_of[bottom]):
                ideal = x0 + (x1 - x0) * (y0 - self.row_y[r]) / (y0 - y1)
                g = min(range(len(self.gaps[r])), key=lambda i, r=r, ideal=ideal: abs(self.gaps[r][i][0] - ideal))
                self.lanes[(u, v)].append((r, g))
                users.setdefault((r, g), []).append((u, v))
        lane_x = {}
        for (r, g), passing in users.items():  # spread the arcs sharing a gap, in the order they leave it
            centre, half = self.gaps[r][g]
            passing.sort(key=lambda a: (self.pos[a[1]][0], self.pos[a[0]][0]))
            offsets = np.linspace(-0.6 * half, 0.6 * half, len(passing)) if len(passing) > 1 else [0.0]
            lane_x.update({(a, r): centre + float(dx) for a, dx in zip(passing, offsets)})
        self.lanes = {a: [(r, lane_x[(a, r)]) for r, _ in passed] for a, passed in self.lanes.items()}

    def _set_rows(self, spread=None, given=None):
        """Heights of the rows: a row is as tall as its tallest box; between rows, room for the curves."""
        self.band = [max(self.size[v][1] for v in row) / 2 for row in self.rows]
        self.row_y = [0.0]
        for r in range(1, len(self.rows)):
            need = self.band[r - 1] + self.band[r]
            if given is not None:
                step = max(need + 0.5, given[r - 1] - given[r])
            else:
                step = need + min(1.3, max(0.5, 0.3 + 0.11 * spread[r - 1]))
            self.row_y.append(self.row_y[-1] - step)
        self.pos = {v: (self.pos[v][0], self.row_y[r]) for r, row in enumerate(self.rows) for v in row}
        self.boxes = {
            v: (x - self.size[v][0] / 2, x + self.size[v][0] / 2, y - self.size[v][1] / 2, y + self.size[v][1] / 2)
            for v, (x, y) in self.pos.items()
        }
        self.gaps = []  # per row: (centre, half width) of the gaps between boxes and past both ends
        for row in self.rows:
            spans = sorted(self.boxes[v][:2] for v in row)
            inner = [((a[1] + b[0]) / 2, (b[0] - a[1]) / 2) for a, b in zip(spans, spans[1:])]
            self.gaps.append([(spans[0][0] - 0.3, 0.25)] + inner + [(spans[-1][1] + 0.3, 0.25)])

    # -- arcs ----------------------------------------------------------------------------
    def _route(self):
        row_of = {v: r for r, row in enumerate(self.rows) for v in row}
        ends = {}  # (node, "top" | "bottom") -> [(arc, x the arc heads for)]
        for u, v in self.arcs:
            lanes = self.lanes[(u, v)]
            if row_of[u] == row_of[v]:
                ends.setdefault((u, "top"), []).append(((u, v), self.pos[v][0]))
                ends.setdefault((v, "top"), []).append(((u, v), self.pos[u][0]))
                continue
            top, bottom = (u, v) if row_of[u] < row_of[v] else (v, u)
            ends.setdefault((top, "bottom"), []).append(((u, v), lanes[0][1] if lanes else self.pos[bottom][0]))
            ends.setdefault((bottom, "top"), []).append(((u, v), lanes[-1][1] if lanes else self.pos[top][0]))
        port = {}
        for (v, side), group in ends.items():
            group.sort(key=lambda item: item[1])
            w = self.size[v][0]
            span = min((0.8 if v == self.class_node else 0.7) * w, 0.14 * (len(group) - 1))
            offsets = np.linspace(-span / 2, span / 2, len(group)) if len(group) > 1 else [0.0]
            y = self.boxes[v][3] if side == "top" else self.boxes[v][2]
            for (arc, _), dx in zip(group, offsets):
                port[(arc, v)] = (self.pos[v][0] + float(dx), y)
        self.paths = {}
        for u, v in self.arcs:
            p, q = port[((u, v), u)], port[((u, v), v)]
            if row_of[u] == row_of[v]:
                r = row_of[u]
                room = (self.row_y[r - 1] - self.band[r - 1] - self.row_y[r] - self.band[r]) if r else 2.0
                bow = min(0.3 + 0.12 * abs(q[0] - p[0]), 0.95 * room / 0.75)
                self.paths[(u, v)] = ([p, (p[0], p[1] + bow), (q[0], q[1] + bow), q], [1, 4, 4, 4])
                continue
            downward = row_of[u] < row_of[v]
            points = [p if downward else q]
            for r, x in self.lanes[(u, v)]:
                points += [(x, self.row_y[r] + self.band[r]), (x, self.row_y[r] - self.band[r])]
            points.append(q if downward else p)
            if not downward:
                points.reverse()
            verts, codes = [points[0]], [1]  # Path.MOVETO
            for i, (a, b) in enumerate(zip(points, points[1:])):
                if i % 2:  # through a row: straight
                    verts.append(b)
                    codes.append(2)  # Path.LINETO
                else:  # between rows: vertical at both ends
                    mid = (a[1] + b[1]) / 2
                    verts += [(a[0], mid), (b[0], mid), b]
                    codes += [4, 4, 4]  # Path.CURVE4
            self.paths[(u, v)] = (verts, codes)

    def extent(self) -> tuple:
        """``(x_lo, x_hi, y_lo, y_hi)`` of the boxes and the arcs."""
        xs = [b[0] for b in self.boxes.values()] + [b[1] for b in self.boxes.values()]
        ys = [b[2] for b in self.boxes.values()] + [b[3] for b in self.boxes.values()]
        for verts, _ in self.paths.values():  # control points bound the curves
            xs += [p[0] for p in verts]
            ys += [p[1] for p in verts]
        return min(xs), max(xs), min(ys), max(ys)


def structure_layout(
    graph: nx.DiGraph, class_node: Hashable | None = None, *, font_size: float | None = None
) -> dict[Hashable, tuple[float, float]]:
    """Positions (in inches) of a layered drawing: the class on top, features by generation.

    Parameters
    ----------
    graph : networkx.DiGraph
    class_node : hashable, optional
        Drawn alone on the top row.
    font_size : float, optional
        Label size the boxes are measured for (default as :func:`draw_structure`).

    Returns
    -------
    dict
        ``node -> (x, y)``; pass it as ``pos=`` to several drawings to compare
        them node for node.

    Notes
    -----
    Features are on rows by generation of the feature subgraph (a wide
    generation wraps onto several rows), so every arc among features points
    down; the order within a row and the positions leave a lane in every row an
    arc passes (see :func:`draw_structure`).
    """
    font = font_size or _default_font(graph.number_of_nodes())
    text, _ = _node_text(graph, class_node)
    return dict(_StructureLayout(graph, class_node, text, font=font).pos)


def _default_font(n_nodes: int) -> float:
    return 10.0 if n_nodes <= 16 else 9.0 if n_nodes <= 45 else 8.0


def _node_text(graph, class_node):
    """Display labels of the nodes (long names abbreviated) and notes on what was shortened."""
    feats = [v for v in graph if v != class_node]
    text, notes = _abbreviate(feats, limit=_NAME_LIMIT)
    if class_node is not None:
        text[class_node] = _clip(class_node, 40)
    return text, notes


def model_class_information(obj: Any) -> dict:
    """Mutual information of every feature with the class under a fitted network, in nats.

    Parameters
    ----------
    obj : fitted BayesNetClassifier or Network
        A network with a class node (an estimator with several networks: its first).

    Returns
    -------
    dict
        ``feature name -> I(X; C)`` from the network's own ``P(x, c)``: every
        other feature summed out by the network's kernel (exact for any
        structure).
    """
    from .network import Network

    obj = obj[-1] if hasattr(obj, "steps") else obj
    net = obj if isinstance(obj, Network) else obj.network_members()[0][1] if hasattr(obj, "network_members") else None
    if net is None or not net.has_class:
        raise TypeError(
            "rank='mi' needs a fitted bnclf estimator or a Network with a class node; "
            "for other graphs pass rank= a mapping feature -> score."
        )
    feats = [v for v in net.nodes if v != net.class_index]
    index = [(v, s) for v in feats for s in range(len(net.states[v]))]
    codes = np.full((len(index), len(net.names)), -1, dtype=np.int64)
    codes[:, net.class_index] = 0
    for row, (v, s) in enumerate(index):
        codes[row, v] = s
    joint = np.exp(net.joint_log_likelihood(codes))
    out, row = {}, 0
    for v in feats:
        table = joint[row : row + len(net.states[v])]
        row += len(net.states[v])
        table = table / table.sum()
        outer = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True)
        nz = table > 0
        out[net.names[v]] = float(np.sum(table[nz] * np.log(table[nz] / outer[nz])))
    return out


def select_nodes(
    graph: nx.DiGraph,
    class_node: Hashable | None = None,
    *,
    features: str | Iterable[Hashable] | None = None,
    markov_blanket_only: bool = False,
    max_features: int | None = None,
    rank: Mapping[Hashable, float] | None = None,
) -> tuple[nx.DiGraph, str]:
    """The subgraph to draw and a note on what was left out (``""`` when nothing was).

    Parameters
    ----------
    graph : networkx.DiGraph
    class_node : hashable, optional
        Always kept.
    features : list or str, optional
        Keep only these features (a str: that one feature).
    markov_blanket_only : bool, default=False
        Keep only the class's Markov blanket (parents, children, children's
        other parents).
    max_features : int, optional
        Then keep at most this many features, ranked by ``rank``.
    rank : mapping, optional
        ``feature -> score``, highest kept first (ties by name). By default the
        features with the most arcs among features come first.

    Returns
    -------
    (networkx.DiGraph, str)
    """
    all_features = [v for v in graph if v != class_node]
    keep = list(all_features)
    if features is not None:
        wanted = [features] if isinstance(features, str) else list(features)
        unknown = [f for f in wanted if f not in graph]
        if unknown:
            raise ValueError(
                f"features={unknown!r} are not nodes of the network; nodes are "
                f"{all_features[:10]}{' ...' if len(all_features) > 10 else ''}."
            )
        keep = [v for v in keep if v in set(wanted)]
    if markov_blanket_only:
        if class_node is None:
            raise ValueError("markov_blanket_only=True needs a network with a class node.")
        from .structure import markov_blanket

        blanket = set(markov_blanket(graph, class_node))
        keep = [v for v in keep if v in blanket]
    if max_features is not None:
        if not isinstance(max_features, (int, np.integer)) or isinstance(max_features, bool) or max_features < 1:
            raise ValueError(
                f"max_features={max_features!r} is not valid; give a number of features >= 1, or None for all."
            )
        if rank is None:
            sub = graph.subgraph(keep)
            keep = sorted(keep, key=lambda v: (-sub.degree(v), str(v)))[: int(max_features)]
        else:
            keep = sorted(keep, key=lambda v: (-float(rank.get(v, -np.inf)), str(v)))[: int(max_features)]
    nodes = keep + ([class_node] if class_node is not None else [])
    note = "" if len(keep) == len(all_features) else f"{len(keep)} of {len(all_features)} features shown"
    return graph.subgraph(nodes).copy(), note


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


def _clip(name, limit: int) -> str:
    """``str(name)``, its end cut off with an ellipsis when longer than ``limit``."""
    text = str(name)
    return text if len(text) <= limit else text[: limit - 1] + _ELLIPSIS


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
        from .structure import markov_blanket

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
    entries = []  # (kind, label): arcs, then nodes
    if legend:
        present = set(kinds.values())
        entries = [(k, _ARC_LEGEND[k]) for k in _ARC_STYLE if k in present]
        if class_node is not None:
            entries.append(("node:class", "class"))
        entries.append(("node:feature", "feature"))
        if outside:
            entries.append(("node:outside", "feature outside the Markov blanket"))
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


def _render_structure(ax, spec, *, title_size=12.0, frame=None):
    """Draw a prepared network on ``ax`` (equal aspect; sizes follow the Axes' scale).

    ``frame``, (width, height) in layout units, widens the limits around the
    drawing (centred, top-aligned), so that the panels of one figure share a scale.
    """
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path

    layout, kinds, outside = spec["layout"], spec["kinds"], spec["outside"]
    extra_w, extra_h = (
        (0.0, 0.0) if frame is None else (max(0.0, frame[0] - spec["width"]), max(0.0, frame[1] - spec["height"]))
    )
    ax.set_xlim(spec["x_lo"] - extra_w / 2, spec["x_hi"] + extra_w / 2)
    ax.set_ylim(spec["y_lo"] - extra_h, spec["y_hi"])
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    scaler = _ScaleWithAxes()
    ax.add_artist(scaler)
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
    y = spec["legend_top"] - 0.22
    for row in spec["legend_rows"]:
        x = (spec["x_lo"] + spec["x_hi"]) / 2 - sum(w for _, w in row) / 2 + 0.15
        for (kind, text), w in row:
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
            else:
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
            ax.add_patch(sample)
            scaler.add(
                ax.text(x + 0.58, y, text, ha="left", va="center", fontsize=8.0, color="#333333"), "set_fontsize", 8.0
            )
            x += w
        y -= 0.24
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
        if features is not None or markov_blanket_only or max_features is not None:
            raise ValueError(
                "features=, markov_blanket_only= and max_features= select nodes of "
                "one network; draw a member (obj.networks_[i]) to use them."
            )
        return draw_members(obj, title=title, font_size=font_size)
    spec = _structure_spec(
        obj,
        class_node=class_node,
        title=title,
        font_size=font_size,
        pos=pos,
        highlight=highlight,
        features=features,
        markov_blanket_only=markov_blanket_only,
        max_features=max_features,
        rank=rank,
        legend=legend,
    )
    if ax is None:
        axes = _panel_figure([spec], ncols=1)
        ax = axes[0, 0]
    _render_structure(ax, spec)
    return ax


_MAX_FIGURE = (60.0, 80.0)  # inches; a larger drawing is scaled down, text with it


def _panel_figure(specs, *, ncols, suptitle=None):
    """A figure of ``ceil(len(specs) / ncols)`` rows of equal panels, sized so that the largest drawing
    has one inch per layout unit (less when the figure would exceed ``_MAX_FIGURE``)."""
    import matplotlib.pyplot as plt

    nrows = int(math.ceil(len(specs) / ncols))
    w = max(spec["width"] for spec in specs)
    h = max(spec["height"] for spec in specs)
    title_band = (
        0.15 + 0.22 * max(spec["title_lines"] for spec in specs) if any(spec["title_lines"] for spec in specs) else 0.1
    )
    side, gap, bottom = 0.2, 0.4, 0.15
    top = 0.2 + 0.25 * (suptitle.count("\n") + 1) if suptitle else 0.0
    fig_w = ncols * w + (ncols - 1) * gap + 2 * side
    fig_h = nrows * (h + title_band) + top + bottom
    shrink = min(1.0, _MAX_FIGURE[0] / fig_w, _MAX_FIGURE[1] / fig_h)
    fig, axes = plt.subplots(nrows, ncols, figsize=(fig_w * shrink, fig_h * shrink), squeeze=False)
    fig.subplots_adjust(
        left=side / fig_w,
        right=1 - side / fig_w,
        bottom=bottom / fig_h,
        top=1 - (top + title_band) / fig_h,
        wspace=gap / w,
        hspace=title_band / h,
    )
    if suptitle:
        fig.suptitle(suptitle, fontsize=13 * shrink, y=1 - 0.1 / fig_h, va="top")
    return axes


def draw_members(
    est: BaseEstimator,
    *,
    members: Sequence[int] | None = None,
    ncols: int | None = None,
    title: str | None = None,
    font_size: float | None = None,
) -> np.ndarray:
    """Draw every network of an ensemble or a multinet, one panel per member.

    Parameters
    ----------
    est : fitted BayesNetClassifier
    members : list of int, optional
        Positions of the members to draw (default: all of them, or the first 16
        when there are more).
    ncols : int, optional
        Panels per row (default: up to 4).
    title : str, optional
        Figure title.
    font_size : float, optional
        Label size (see :func:`draw_structure`).

    Returns
    -------
    ndarray of matplotlib Axes
        The panels, titled by each member's role (its root, super-parent or
        class label) and, for ensembles, its weight; each drawn as by
        :func:`draw_structure` (without a legend), the figure sized to the
        largest.
    """
    all_members = est.network_members()
    chosen = range(min(len(all_members), 16)) if members is None else list(members)
    bad = [i for i in chosen if not (isinstance(i, (int, np.integer)) and 0 <= i < len(all_members))]
    if bad or not len(chosen):
        raise ValueError(
            f"members={members!r} is not valid; give positions in 0..{len(all_members) - 1} "
            f"of the {len(all_members)} networks (see network_members()), or None for the first 16."
        )
    picked = [all_members[i] for i in chosen]
    weights = getattr(est, "weights_", None)
    specs = []
    for i, (key, net) in enumerate(picked):
        label = net.title or str(key)
        if weights is not None and est._network_kind == "ensemble":
            label += f"  (w = {weights[list(chosen)[i]]:.3g})"
        specs.append(_structure_spec(net, title=_clip(label, 60), font_size=font_size, legend=False))
    ncols = ncols or min(4, len(picked))
    axes = _panel_figure(specs, ncols=ncols, suptitle=title)
    frame = (max(spec["width"] for spec in specs), max(spec["height"] for spec in specs))
    for ax, spec in zip(axes.flat, specs):
        _render_structure(ax, spec, frame=frame)
    for ax in list(axes.flat)[len(picked) :]:
        ax.set_axis_off()
    return axes


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
    regular model), so nodes sit in the same place in every panel; arcs among
    features that the first network does not have (either direction) are drawn
    in red: where the instance's structure departs from the global one. Each
    title gives the part's answer and its probability.
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
    specs = []
    for name, net in zip(chosen, nets):
        graph, _ = _graph_and_class(net)
        new = [(u, v) for u, v in graph.edges if net.class_name not in (u, v) and frozenset((u, v)) not in base_arcs]
        post = explanation.posteriors.get(name) or {}
        answer = max(post, key=post.get) if post else None
        label = name if answer is None else f"{name}\n{answer}: {post[answer]:.3f}"
        specs.append(
            _structure_spec(net, title=_clip(label, 80), font_size=font_size, pos=layout, highlight=new, legend=False)
        )
    if title is None:
        title = f"prediction: {explanation.prediction}"
        if "omega" in explanation.details:
            title += f"   (labels kept: {', '.join(map(str, explanation.details['omega']))})"
    axes = _panel_figure(specs, ncols=ncols or min(4, len(nets)), suptitle=_clip(title, 200))
    frame = (max(spec["width"] for spec in specs), max(spec["height"] for spec in specs))
    for ax, spec in zip(axes.flat, specs):
        _render_structure(ax, spec, frame=frame)
    for ax in list(axes.flat)[len(nets) :]:
        ax.set_axis_off()
    return axes


def _short(name, limit=14) -> str:
    text = str(name)
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("$", r"\$")  # a literal dollar, not matplotlib mathtext


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
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


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
    ax.set_ylabel("score")
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


# -- multilabel networks (mNB, mFAN, the BN ensemble) ---------------------------------

CLASS_ARC_COLOR = "#1f77b4"
"""Arcs of a multilabel network's class subgraph (thick and blue, as in Corani et al.'s Figure 1)."""
BRIDGE_COLOR = "#f28e2b"
"""Bridge arcs, from a class to a feature (thin)."""
MORAL_COLOR = "#7f7f7f"
"""Dashed edges between classes that share a feature (``label_only=True``)."""
LABEL_FILL = "#fbd3d3"
PALE_FILL = "#f4f4f4"

_ELLIPSIS = "\u2026"
_LABEL_LIMIT = 18
_SEPARATORS = re.compile(r"([_\-. /:|]+)")


def _text_inches(text: str, size: float, bold: bool = False) -> float:
    """Width in inches of ``text`` set at ``size`` points (a mathtext-free TextPath)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    try:
        path = TextPath(
            (0, 0), text.replace("$", r"\$"), size=size, prop=FontProperties(weight="bold" if bold else "normal")
        )
        return float(path.get_extents().width) / 72.0
    except Exception:  # an exotic glyph: a generous estimate
        return 0.62 * size * len(text) / 72.0


def _middle_cut(text: str, limit: int, tail: int) -> str:
    tail = min(tail, limit - 2)
    return text[: limit - 1 - tail] + _ELLIPSIS + text[len(text) - tail :]


def _abbreviate(names, limit: int = _LABEL_LIMIT):
    """Distinct display labels of at most ``limit`` characters, and notes on what was shortened.

    Names within the limit are kept. In longer names, a token (between ``_``,
    ``-``, ``.``, ...) that most long names (three quarters) have at the same
    place says little about any one of them and becomes an ellipsis
    (``Mean_Acc1298_Mean_Mem40_Centroid`` -> ``Mean…Mean…Centroid``); a name
    still too long keeps its start and its end around an ellipsis, and its full
    name goes into the notes.
    """
    text = {n: str(n) for n in names}
    long = [n for n in names if len(text[n]) > limit]
    notes = []
    if not long:
        return text, notes
    label = dict(text)
    split = {n: _SEPARATORS.split(text[n]) for n in long}
    shared = {}  # position -> the token most long names have there (3 letters or more)
    for i in range(max(len(parts[0::2]) for parts in split.values())):
        counts = Counter(parts[2 * i] for parts in split.values() if len(parts) > 2 * i)
        token, k = counts.most_common(1)[0]
        if len(long) >= 2 and k >= 2 and k >= 0.75 * len(long) and len(token) >= 3:
            shared[i] = token

    def without(n, drop):
        tokens, seps = split[n][0::2], split[n][1::2]
        pieces, dropped = [], False
        for i, token in enumerate(tokens):
            if i in drop and shared[i] == token:
                dropped = True
                continue
            if pieces or dropped:
                pieces.append(_ELLIPSIS if dropped else seps[i - 1])
            pieces.append(token)
            dropped = False
        return "".join(pieces + ([_ELLIPSIS] if dropped else [])) or _ELLIPSIS

    having = [n for n in long if any(len(split[n]) > 2 * i and split[n][2 * i] == t for i, t in shared.items())]
    drop = []  # the longest shared tokens first, as many as the names that have them need to fit
    for i in sorted(shared, key=lambda i: (-len(shared[i]), i)):
        if all(len(without(n, drop)) <= limit for n in having):
            break
        drop.append(i)
    if drop:
        label.update({n: without(n, drop) for n in long})
        notes.append(
            f"{_ELLIPSIS} in long feature names stands for what most of them have there: "
            + ", ".join(shared[i] for i in sorted(drop))
        )
    cut = []
    for n in long:
        if len(label[n]) > limit:
            label[n] = _middle_cut(label[n], limit, (limit - 1) // 2)
            cut.append(n)
    seen = Counter(label.values())
    tails = sorted(range(1, limit - 1), key=lambda t: (abs(t - (limit - 1) / 2), -t))
    for n in long:  # still ambiguous: cut the full name, the most even cuts first
        if seen[label[n]] > 1:
            for tail in tails:
                candidate = _middle_cut(text[n], limit, tail)
                if seen[candidate] == 0:
                    break
            else:
                candidate = f"{label[n]}#{sum(1 for v in label.values() if v == label[n])}"
            seen[label[n]] -= 1
            seen[candidate] += 1
            label[n] = candidate
            if n not in cut:
                cut.append(n)
    if cut:
        shown = cut[:12]
        notes.append(
            "; ".join(f"{label[n]} = {text[n]}" for n in shown)
            + (f"; and {len(cut) - len(shown)} more" if len(cut) > len(shown) else "")
        )
    return label, notes


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


def _bezier_points(p0, p1, rads, t):
    """Points of matplotlib's ``arc3`` curves from ``p0`` to ``p1``: ``(len(rads), len(t), 2)``."""
    d = p1 - p0
    ctrl = (p0 + p1) / 2 + rads[:, None] * np.array([d[1], -d[0]])[None, :]
    t = t[None, :, None]
    return (1 - t) ** 2 * p0 + 2 * t * (1 - t) * ctrl[:, None, :] + t**2 * p1


class _MultilabelLayout:
    """Node positions and box sizes (in inches) of a multilabel drawing, and its routed bridge arcs.

    Classes are on one row at ``y = 0``; features on rows below, sorted by the
    mean position of their class parents and filled column by column (each row
    shifted a little, so that the gaps of successive rows do not line up). A
    bridge arc to a lower row passes every row above it through a gap between
    two nodes (as a layered drawing routes long edges through dummy nodes): it
    is a smooth path, vertical inside each row and S-shaped between rows, so it
    never crosses a node.
    """

    def __init__(self, labels, feats, bridge, *, class_text, feature_text, label_only):
        n_l, n_f = len(labels), len(feats)
        self.labels, self.feats, self.bridge = labels, feats, bridge
        self.class_font = 11.0 if n_l <= 8 else 10.0 if n_l <= 16 else 8.0
        self.feature_font = 9.0 if n_f <= 20 else 8.0 if n_f <= 50 else 7.0
        self.text = {**{c: class_text[c] for c in labels}, **{f: feature_text[f] for f in feats}}
        self.size = {
            c: (_text_inches(class_text[c], self.class_font, True) + 0.22, self.class_font * 2.1 / 72) for c in labels
        }
        self.size.update(
            {f: (_text_inches(feature_text[f], self.feature_font) + 0.16, self.feature_font * 2.0 / 72) for f in feats}
        )
        self.pos, self.rows = {}, []
        class_step = max(self.size[c][0] for c in labels) + 0.3
        width = class_step * (n_l - 1)
        if n_f and not label_only:
            fw = max(self.size[f][0] for f in feats)
            step = fw * 1.45
            target = min(max(width + class_step, 1.3 * math.sqrt(n_f) * step, 10.0), max(16.0, width))
            n_rows = int(math.ceil(n_f / max(1, int(target // step))))
            cols = int(math.ceil(n_f / n_rows))
            block = step * (cols - 1) + step * (n_rows - 1) / n_rows
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
                self.pos[f] = (-block / 2 + col * step + row * step / n_rows, top - row * row_gap)
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
    """Draw one panel on ``ax`` with equal aspect; fonts and lines scaled to inches per data unit."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path

    labels, feats = layout.labels, geom["feats"]
    ax.set_xlim(geom["x_lo"], geom["x_hi"])
    ax.set_ylim(geom["y_lo"], geom["y_hi"])
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    fig = ax.figure
    box = ax.get_position()
    s = min(box.width * fig.get_figwidth() / geom["width"], box.height * fig.get_figheight() / geom["height"])
    patches = {}
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
        patches[v] = patch
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
    for a, b, p0, p1, rad in geom["dashed"]:
        k = geom["moral"][(a, b)]
        ax.add_patch(
            FancyArrowPatch(
                p0,
                p1,
                connectionstyle=f"arc3,rad={rad:.4f}",
                arrowstyle="-",
                lw=(1.0 + 0.35 * math.log2(k)) * s,
                linestyle="--",
                color=MORAL_COLOR,
                shrinkA=0,
                shrinkB=0,
                zorder=1,
            )
        )
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
    for _, _, p0, p1, rad in geom["arcs"]:
        ax.add_patch(
            FancyArrowPatch(
                p0,
                p1,
                connectionstyle=f"arc3,rad={rad:.4f}",
                arrowstyle="-|>",
                mutation_scale=(14 if len(labels) <= 8 else 11) * s,
                lw=2.6 * s,
                color=CLASS_ARC_COLOR,
                shrinkA=0,
                shrinkB=0,
                zorder=2,
            )
        )
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
    if title:
        ax.set_title(title, fontsize=12 * s)
    return ax


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
    between. Features are on rows below, filled column by column in the order
    of the mean position of their class parents; thin orange bridge arcs come
    down from their class parents, and an arc to a lower row passes each row
    above it through a gap between two nodes, so that no arc crosses a node.
    A feature with no class parent (independent of every class) is drawn pale.

    Names longer than 18 characters are shortened with an ellipsis: first the
    tokens that most long names have at the same place become one (on emotions,
    ``Mean_Acc1298_Mean_Mem40_Centroid`` is drawn ``Mean…Mean…Centroid``, and a
    note under the legend says what the ellipsis stands for); then the middle
    of a name still too long is cut, and the note gives its full name.
    """
    import matplotlib.pyplot as plt

    parts = _multilabel_parts(model)
    feats, note = _pick_multilabel_features(parts, features, max_features)
    labels, bridge, members = parts["labels"], parts["bridge"], parts["members"]
    if len(members) > 1 and ax is not None:
        raise ValueError(
            "A MultilabelBNEnsemble is drawn one panel per member in a figure of its own; "
            "omit ax= (or draw one member's network with draw_structure)."
        )
    class_text, class_notes = _abbreviate(labels)
    feature_text, feature_notes = _abbreviate(feats)
    notes = [n.replace("feature names", "class names") for n in class_notes]
    if not label_only:
        notes += feature_notes
    moral = _moral_pairs(labels, bridge, feats)
    row = _class_order(labels, members[0][2], members[0][1]) if len(members) == 1 else labels
    layout = _MultilabelLayout(
        row, feats, bridge, class_text=class_text, feature_text=feature_text, label_only=label_only
    )
    kind, tw, n_sel = parts["kind"], parts["treewidth"], len(parts["features"])
    single = len(members) == 1
    if label_only:
        default = (
            f"{kind} class subgraph"
            + (f" (root: {members[0][1]})" if single else "")
            + f", treewidth {tw}\ndashed: pairs of classes that are parents of a common feature"
            + (f" (among the {note})" if note else "")
        )
    elif single:
        default = f"{kind}, root: {members[0][1]}, {n_sel} selected features, treewidth {tw}"
        default += f"\n({note})" if note else ""
    else:
        default = f"{kind}: {len(members)} members (logarithmic pooling), {n_sel} selected features, treewidth {tw}" + (
            f"\n({note})" if note else ""
        )
    title = _short(default if title is None else title, 300)
    picked = members[:4]
    if len(members) > len(picked):
        notes = notes + [f"First {len(picked)} of {len(members)} members shown."]
    geoms = [
        _panel_geometry(
            layout,
            edges,
            label_only=label_only,
            moral=moral,
            notes=notes if i == len(picked) - 1 else [],
            legend=i == len(picked) - 1,
        )
        for i, (_, _, edges) in enumerate(picked)
    ]
    if ax is not None:
        _draw_multilabel_panel(ax, layout, geoms[0], members[0][1], title=title)
        return ax.figure
    # one inch per layout unit; panels stacked, each with its own title (one network: the title)
    side, bottom = 0.2, 0.1
    top = 0.18 + 0.22 * (title.count("\n") + 1) if title else 0.1
    panel_top = 0.0 if single else 0.35
    width = max(g["width"] for g in geoms) + 2 * side
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
