"""The layered layout of a network drawing: the class on top, features in rows ordered to
cut crossings, arcs routed through lanes; colours and text helpers shared by every drawing."""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from typing import Any, TypeVar

import networkx as nx
import numpy as np

_PathT = TypeVar("_PathT", bound=str | os.PathLike)


CLASS_COLOR = "#d62728"


FEATURE_COLOR = "#aec7e8"


PARENT_COLOR = "#ff7f0e"
"""Arcs into the class (an unrestricted network's class parents)."""


def _graph_and_class(obj, class_node=None):
    from bnclf.network import Network

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


def _straighten(rows, row_gaps, runs, x, passes=3):
    """Line up the lanes of each long arc where the slots beside them leave room, longest arcs first.

    ``rows`` are the slots of each row in order, ``row_gaps`` the least distances between
    neighbours, ``runs`` the lane slots of each long arc; ``x`` (slot -> x) is updated in place.
    """
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
        _straighten(rows, row_gaps, runs, x, passes=6)
        mid = (min(x.values()) + max(x.values())) / 2
        return {s: v - mid for s, v in x.items()}

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
    from bnclf.network import Network

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
        from bnclf.learn._restricted import markov_blanket

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


def _short(name, limit=14) -> str:
    text = str(name)
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("$", r"\$")  # a literal dollar, not matplotlib mathtext


def _clip(name, limit: int) -> str:
    """``str(name)``, its end cut off with an ellipsis when longer than ``limit``."""
    text = str(name)
    return text if len(text) <= limit else text[: limit - 1] + _ELLIPSIS
