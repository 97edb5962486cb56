"""Structure learners: pure functions from count tables to DAGs.

Every learner takes a :class:`~bnclf.stats.CountCache` and returns a
``networkx.DiGraph`` over variable indices: features ``0 .. d-1`` and the class
``d`` (``cache.class_index``). Learners never mutate their input.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from .stats import CountCache


def _with_class_parent(parents: dict[int, list[int]], cache: CountCache) -> nx.DiGraph:
    """A DAG whose features have the class plus the given feature parents."""
    c = cache.class_index
    graph = nx.DiGraph()
    graph.add_nodes_from(range(cache.n_features + 1))
    for i in range(cache.n_features):
        graph.add_edge(c, i)
        graph.add_edges_from((int(p), i) for p in parents.get(i, ()))
    return graph


def learn_nb(cache: CountCache) -> nx.DiGraph:
    """Naive Bayes: the class is the only parent of every feature."""
    return _with_class_parent({}, cache)


def maximum_spanning_arborescence(weights: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """Prim's maximum spanning tree, oriented away from the root, for a batch of graphs.

    Parameters
    ----------
    weights : array (B, d, d) or (d, d)
        Symmetric edge weights of complete graphs.
    roots : array (B,) or int
        Root node of each tree.

    Returns
    -------
    parents : array (B, d) or (d,)
        Parent of each node in its tree; ``-1`` for the root.

    Notes
    -----
    The B trees are grown in lockstep with numpy, so batching many instances
    (instance-specific learners) costs ``d`` vectorized steps. Ties go to the
    lowest node index among the candidates, and a node keeps its first-found
    best parent on equal weights, so the result is deterministic. Every node is
    connected, whatever its weight (zero weights included): the result is a
    spanning tree, never a forest.
    """
    w = np.asarray(weights, dtype=float)
    single = w.ndim == 2
    if single:
        w = w[None]
    batch, d, _ = w.shape
    rows = np.arange(batch)
    roots = np.broadcast_to(np.asarray(roots, dtype=np.int64), (batch,))
    parents = np.full((batch, d), -1, dtype=np.int64)
    in_tree = np.zeros((batch, d), dtype=bool)
    in_tree[rows, roots] = True
    best = w[rows, roots].copy()
    best_from = np.repeat(roots[:, None], d, axis=1)
    for _ in range(d - 1):
        nxt = np.argmax(np.where(in_tree, -np.inf, best), axis=1)
        parents[rows, nxt] = best_from[rows, nxt]
        in_tree[rows, nxt] = True
        cand = w[rows, nxt]
        better = (cand > best) & ~in_tree
        best = np.where(better, cand, best)
        best_from = np.where(better, nxt[:, None], best_from)
    return parents[0] if single else parents


def learn_tan(cache: CountCache, *, root: int | None = None) -> nx.DiGraph:
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997).

    Edge weights ``I(Xi; Xj | C)``; a maximum weighted spanning tree over the
    features, directed away from ``root``; the class is a parent of every
    feature.

    Parameters
    ----------
    root : int, optional
        Root feature. Default: the feature with the largest ``I(X; C)`` (lowest
        index on ties), the rule of Sun et al. (2017).
    """
    if cache.n_features == 1:
        return learn_nb(cache)
    if root is None:
        root = int(np.argmax(cache.mi_with_class()))
    parents = maximum_spanning_arborescence(cache.cmi_matrix(), root)
    return _with_class_parent({i: [p] for i, p in enumerate(parents) if p >= 0}, cache)


def learn_kdb(cache: CountCache, *, k: int = 2) -> nx.DiGraph:
    """k-dependence Bayesian classifier (Sahami 1996).

    Features are ranked by ``I(X; C)`` (descending, lower index first on ties);
    each takes as parents up to ``k`` features ranked before it with the highest
    ``I(Xi; Xj | C)`` (earlier rank first on ties), plus the class.

    Notes
    -----
    Sahami's algorithm also admits a threshold on the CMI below which no arc is
    added; like the source papers and Weka, parents are taken whatever their CMI.
    """
    order = np.argsort(-cache.mi_with_class(), kind="stable")
    cmi = cache.cmi_matrix()
    parents = {}
    for rank, i in enumerate(order):
        earlier = order[:rank]
        chosen = earlier[np.argsort(-cmi[i, earlier], kind="stable")[:k]]
        parents[int(i)] = sorted(int(p) for p in chosen)
    return _with_class_parent(parents, cache)

