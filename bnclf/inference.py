"""Vectorized inference kernel: ``log P(c, x)`` for a batch of rows and every class.

A Bayesian network classifier with every feature observed needs no inference
engine: the joint of each class is a sum of log-CPT entries, one gathered per
family. Features that are missing or unseen (code ``UNKNOWN``) are summed out
exactly: rows are grouped by their pattern of unknown features; for each
pattern, unknown nodes without observed descendants are barren and drop out,
and the remaining ones are eliminated by one ``numpy.einsum`` contraction over
the factors that mention them (variable elimination, batched over the rows).
"""

from __future__ import annotations

import networkx as nx
import numpy as np


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
        self.log_cpts = [np.asarray(t, dtype=float) for t in log_cpts]
        self.class_index = int(class_index)
        self.n_classes = next(t.shape[f.index(class_index)] for f, t in
                              zip(self.families, self.log_cpts) if class_index in f)
        self._flat = [t.ravel() for t in self.log_cpts]
        self._strides = [np.array(t.strides, dtype=np.int64) // t.itemsize for t in self.log_cpts]
        self._children = {f[0]: [] for f in self.families}
        for f in self.families:
            for p in f[1:]:
                self._children[p].append(f[0])

    def joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x_observed)`` as an array ``(n_samples, n_classes)``."""
        codes = np.asarray(codes, dtype=np.int64)
        unknown = codes < 0
        if not unknown.any():
            return self._gather_all(codes, range(len(self.families)))
        out = np.empty((codes.shape[0], self.n_classes))
        patterns, inverse = np.unique(unknown, axis=0, return_inverse=True)
        order = np.argsort(inverse.ravel(), kind="stable")
        groups = np.split(order, np.cumsum(np.bincount(inverse.ravel()))[:-1])
        for pattern, rows in zip(patterns, groups):
            out[rows] = self._with_unknown(codes[rows], set(np.flatnonzero(pattern).tolist()))
        return out

    # -- all observed: gathers ---------------------------------------------------
    def _gather_all(self, codes, family_ids) -> np.ndarray:
        jll = np.zeros((codes.shape[0], self.n_classes))
        for f in family_ids:
            jll += self._gather(codes, f)
        return jll

    def _gather(self, codes, f) -> np.ndarray:
        """Entries of family ``f`` for each row: shape (n, n_classes) or (n, 1)."""
        family, strides = self.families[f], self._strides[f]
        offset = np.zeros(codes.shape[0], dtype=np.int64)
        class_stride = None
        for var, stride in zip(family, strides):
            if var == self.class_index:
                class_stride = stride
            else:
                offset += codes[:, var] * stride
        if class_stride is None:
            return self._flat[f][offset][:, None]
        return self._flat[f][offset[:, None] + class_stride * np.arange(self.n_classes)]

    # -- some unknown: exact elimination ------------------------------------------
    def _with_unknown(self, codes, unknown: set) -> np.ndarray:
        barren = _barren(unknown, self._children)
        summed = unknown - barren
        plain, touching = [], []
        for f, family in enumerate(self.families):
            if family[0] in barren:
                continue  # a barren node's CPT sums to one
            (touching if summed.intersection(family) else plain).append(f)
        jll = self._gather_all(codes, plain)
        if not touching:
            return jll
        n = codes.shape[0]
        operands, log_scale, has_class = [], np.zeros(n), False
        label_of = {v: 2 + i for i, v in enumerate(sorted(summed))}  # einsum wants labels < 52
        label_of[self.class_index] = 1
        for f in touching:
            factor, labels = self._factor(codes, f, summed, label_of)
            peak = factor.reshape(n, -1).max(axis=1)
            peak = np.where(np.isfinite(peak), peak, 0.0)
            log_scale += peak
            operands += [np.exp(factor - peak.reshape((n,) + (1,) * (factor.ndim - 1))), labels]
            has_class |= 1 in labels
        out = [0, 1] if has_class else [0]
        with np.errstate(divide="ignore"):
            total = np.log(np.einsum(*operands, out, optimize="greedy"))
        return jll + log_scale[:, None] + (total if has_class else total[:, None])

    def _factor(self, codes, f, summed, label_of):
        """Family ``f`` with observed axes gathered: (n, [class], *summed vars) and einsum labels."""
        family, table = self.families[f], self.log_cpts[f]
        observed = [a for a, v in enumerate(family) if v != self.class_index and v not in summed]
        kept = [a for a, v in enumerate(family) if v == self.class_index or v in summed]
        kept.sort(key=lambda a: family[a] != self.class_index)  # class axis first
        moved = np.transpose(table, observed + kept)
        kept_shape = moved.shape[len(observed):]
        n = codes.shape[0]
        if observed:
            obs_shape = moved.shape[: len(observed)]
            index = np.ravel_multi_index(codes[:, [family[a] for a in observed]].T, obs_shape)
            factor = moved.reshape((-1,) + kept_shape)[index]
        else:
            factor = np.broadcast_to(moved, (n,) + kept_shape)
        labels = [0] + [label_of[family[a]] for a in kept]
        return factor, labels


def _barren(unknown: set, children: dict) -> set:
    """Unknown nodes none of whose descendants is observed (their CPTs sum out to one)."""
    barren: set = set()
    changed = True
    while changed:
        changed = False
        for node in unknown - barren:
            if all(child in barren for child in children[node]):
                barren.add(node)
                changed = True
    return barren


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
