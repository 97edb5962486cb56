"""Vectorized inference kernel: ``log P(c, x)`` for a batch of rows and every class.

A Bayesian network classifier with every feature observed needs no inference
engine: the joint of each class is a sum of log-CPT entries, one gathered per
family. Rows with features that are missing or unseen (code ``UNKNOWN``) are
answered exactly by variable elimination batched over those rows: each feature
gets an evidence vector (one-hot when observed, all ones when unknown), and the
features are summed out one at a time in an elimination order fixed once per
network, so the work is a few small ``numpy.einsum`` calls per feature whatever
the pattern of missing values.
"""

from __future__ import annotations

import heapq
import math

import networkx as nx
import numpy as np

_CHUNK_CELLS = 2**22
"""Largest intermediate factor, in cells, that one elimination batch may create."""


class NetworkKernel:
    """Joint log-likelihood of a discrete DAG with a class node.

    Parameters
    ----------
    families : list of tuple of int
        ``(child, *parents)`` for every node, class included.
    log_cpts : list of ndarray
        Natural-log CPT of each family, axes in family order.
    class_index : int
        Index of the class variable (the features are ``0 .. class_index-1``).
    """

    def __init__(self, families, log_cpts, class_index: int):
        self.families = [tuple(int(v) for v in f) for f in families]
        self.log_cpts = [np.ascontiguousarray(t, dtype=float) for t in log_cpts]
        self.class_index = int(class_index)
        self.cardinalities = {}
        for family, table in zip(self.families, self.log_cpts):
            self.cardinalities.update(zip(family, table.shape))
        self.n_classes = self.cardinalities[self.class_index]
        self._flat = [t.ravel() for t in self.log_cpts]
        self._strides = [np.array(t.strides, dtype=np.int64) // t.itemsize for t in self.log_cpts]
        self._tables = [np.exp(t) for t in self.log_cpts]
        self._features = sorted(v for v in self.cardinalities if v != self.class_index)
        self._elimination = None  # (order, cells per row), computed on first use
        self._children = {v: [] for v in self._features}
        graph = nx.DiGraph()
        graph.add_nodes_from(self._features)
        for family in self.families:
            for parent in family[1:]:
                if parent != self.class_index and family[0] != self.class_index:
                    self._children[parent].append(family[0])
                    graph.add_edge(parent, family[0])
        self._children_first = list(reversed(list(nx.topological_sort(graph))))

    def _elimination_plan(self):
        if self._elimination is None:
            self._elimination = elimination_order(self.families, self.cardinalities,
                                                  self.class_index)
        return self._elimination

    def joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x_observed)`` as an array ``(n_samples, n_classes)``."""
        codes = np.asarray(codes, dtype=np.int64)
        unknown = codes < 0
        if not unknown.any():
            return self._gather_all(codes)
        # An unknown feature none of whose descendants is observed is barren: its CPT
        # sums out to one, so rows whose unknowns are all barren need only gathers.
        barren = self._barren(unknown)
        simple = (barren == unknown).all(axis=1)
        out = np.empty((codes.shape[0], self.n_classes))
        out[simple] = self._gather_all(np.where(unknown[simple], 0, codes[simple]),
                                       skip=barren[simple])
        rows = np.flatnonzero(~simple)
        step = max(1, _CHUNK_CELLS // self._elimination_plan()[1])
        for start in range(0, rows.size, step):
            chunk = rows[start:start + step]
            out[chunk] = self._eliminate(codes[chunk])
        return out

    # -- all observed: gathers ---------------------------------------------------
    def _gather_all(self, codes, skip=None) -> np.ndarray:
        """Sum of every family's entries; ``skip[r, v]`` leaves out the family of ``v`` in row r."""
        jll = np.zeros((codes.shape[0], self.n_classes))
        for f, family in enumerate(self.families):
            entries = self._gather(codes, f)
            if skip is not None and family[0] != self.class_index:
                entries = np.where(skip[:, family[0], None], 0.0, entries)
            jll += entries
        return jll

    def _barren(self, unknown) -> np.ndarray:
        """Per row, the unknown features with no observed descendant (children first)."""
        barren = unknown.copy()
        for v in self._children_first:
            children = self._children[v]
            if children:
                barren[:, v] &= barren[:, children].all(axis=1)
        return barren

    def _gather(self, codes, f) -> np.ndarray:
        """Entries of family ``f`` for each row: shape (n, n_classes) or (n, 1)."""
        offset = np.zeros(codes.shape[0], dtype=np.int64)
        class_stride = None
        for var, stride in zip(self.families[f], self._strides[f]):
            if var == self.class_index:
                class_stride = stride
            else:
                offset += codes[:, var] * stride
        if class_stride is None:
            return self._flat[f][offset][:, None]
        return self._flat[f][offset[:, None] + class_stride * np.arange(self.n_classes)]

    # -- some unknown: batched variable elimination --------------------------------
    def _eliminate(self, codes) -> np.ndarray:
        """Exact ``log P(c, x_observed)`` for rows with unknown features.

        Factors carry labels: ``"n"`` for the row (batch) axis, variable indices
        for the others. Each elimination multiplies the factors that mention a
        feature and sums it out; the new factor is rescaled per row (its maximum
        kept in ``log_scale``) so that long products cannot underflow.
        """
        n = codes.shape[0]
        factors = [(t, f) for t, f in zip(self._tables, self.families)]
        for v in self._features:
            evidence = np.zeros((n, self.cardinalities[v]))
            known = codes[:, v] >= 0
            evidence[np.flatnonzero(known), codes[known, v]] = 1.0
            evidence[~known] = 1.0
            factors.append((evidence, ("n", v)))
        log_scale = np.zeros(n)
        for v in self._elimination_plan()[0]:
            involved = [fac for fac in factors if v in fac[1]]
            factors = [fac for fac in factors if v not in fac[1]]
            kept = _union_labels(involved, drop=v)
            product = _contract(involved, kept)
            peak = product.reshape(n, -1).max(axis=1)
            peak = np.where(peak > 0, peak, 1.0)
            product = product / peak.reshape((n,) + (1,) * (product.ndim - 1))
            log_scale += np.log(peak)
            factors.append((product, kept))
        total = _contract(factors, ("n", self.class_index)) if factors else np.ones((n, 1))
        total = np.broadcast_to(total, (n, self.n_classes))
        with np.errstate(divide="ignore"):
            return np.log(total) + log_scale[:, None]


def _union_labels(factors, drop=None) -> tuple:
    """Labels of the product of ``factors`` (row axis first), without ``drop``."""
    labels = []
    for _, fl in factors:
        labels.extend(label for label in fl if label != drop and label not in labels)
    labels.sort(key=lambda label: label != "n")
    return tuple(labels)


def _contract(factors, out_labels) -> np.ndarray:
    """``einsum`` of labelled factors onto ``out_labels`` (labels absent from all factors dropped)."""
    present = set().union(*(fl for _, fl in factors))
    out_labels = tuple(label for label in out_labels if label in present)
    local = {label: i for i, label in enumerate(sorted(present, key=str))}
    if len(local) > 52:
        raise ValueError(
            f"Exact marginalization would need a factor over {len(local)} variables; this "
            "network is too densely connected to sum out missing values exactly."
        )
    operands = []
    for table, fl in factors:
        operands += [table, [local[label] for label in fl]]
    return np.einsum(*operands, [local[label] for label in out_labels], optimize="greedy")


def elimination_order(families, cardinalities, class_index) -> tuple[list, int]:
    """Greedy min-weight elimination order of the features; the class is never eliminated.

    The weight of a feature is the number of cells of the factor its elimination
    creates. Returns the order and the largest such factor per row (class axis
    included), which sizes the row batches.
    """
    neighbours = {v: set() for v in cardinalities if v != class_index}
    for family in families:
        members = [v for v in family if v != class_index]
        for a in members:
            neighbours[a].update(b for b in members if b != a)

    def weight(v):
        return math.prod(cardinalities[u] for u in neighbours[v]) * cardinalities[v]

    current = {v: weight(v) for v in neighbours}
    heap = [(w, v) for v, w in current.items()]
    heapq.heapify(heap)
    order, widest = [], 1
    while heap:
        w, v = heapq.heappop(heap)
        if v not in neighbours or current[v] != w:
            continue  # eliminated already, or a stale weight
        order.append(v)
        widest = max(widest, w)
        around = neighbours.pop(v)
        for a in around:
            neighbours[a].discard(v)
            neighbours[a].update(around - {a})
        for a in around:
            current[a] = weight(a)
            heapq.heappush(heap, (current[a], a))
    return order, widest * cardinalities[class_index]


def log_posterior(jll: np.ndarray) -> np.ndarray:
    """Normalize joint log-likelihoods into log posteriors, row by row.

    A row whose every class has probability zero (possible only with ``m = 0``)
    gets the uniform posterior rather than NaN.
    """
    peak = jll.max(axis=1, keepdims=True)
    dead = ~np.isfinite(peak)
    shifted = np.where(dead, 0.0, jll - np.where(dead, 0.0, peak))
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def graph_families(graph: nx.DiGraph, class_index: int) -> list[tuple[int, ...]]:
    """Families ``(child, *parents)`` of every node, parents by index with the class last."""
    return [
        (node, *sorted(graph.predecessors(node), key=lambda p: (p == class_index, p)))
        for node in sorted(graph.nodes)
    ]
