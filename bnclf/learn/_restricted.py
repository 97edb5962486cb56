"""Structure learners: pure functions from count tables to DAGs.

Every learner takes a :class:`~bnclf.counts.CountCache` and returns a
``networkx.DiGraph`` over variable indices: features ``0 .. d-1`` and the class
``d`` (``cache.class_index``). Learners never mutate their input.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bnclf.counts._cache import CountCache
from bnclf.counts._measures import comparable

if TYPE_CHECKING:
    import networkx as nx


def _with_class_parent(parents: dict[int, list[int]], cache: CountCache) -> nx.DiGraph:
    """A DAG whose features have the class plus the given feature parents."""
    import networkx as nx  # imported when a structure is learned, not when a model is loaded

    c = cache.class_index
    graph = nx.DiGraph()
    graph.add_nodes_from(range(cache.n_features + 1))
    graph.add_edges_from(
        [(c, i) for i in range(cache.n_features)] + [(int(p), i) for i, ps in parents.items() for p in ps]
    )
    return graph


def graph_families(graph: nx.DiGraph, class_index: int) -> list[tuple[int, ...]]:
    """Families ``(child, *parents)`` of every node, parents by index with the class last."""
    return [
        (node, *sorted(graph.predecessors(node), key=lambda p: (p == class_index, p))) for node in sorted(graph.nodes)
    ]


def markov_blanket(graph: nx.DiGraph, node: Hashable) -> list:
    """Parents, children and the children's other parents of ``node``, sorted by text."""
    blanket = set(graph.predecessors(node)) | set(graph.successors(node))
    for child in graph.successors(node):
        blanket |= set(graph.predecessors(child))
    blanket.discard(node)
    return sorted(blanket, key=str)


def learn_nb(cache: CountCache) -> nx.DiGraph:
    """Naive Bayes: the class is the only parent of every feature."""
    return _with_class_parent({}, cache)


def maximum_spanning_arborescence(
    weights: np.ndarray, roots: np.ndarray | int, active: np.ndarray | None = None
) -> np.ndarray:
    """Prim's maximum spanning tree, oriented away from the root, for a batch of graphs.

    Parameters
    ----------
    weights : array (B, d, d) or (d, d)
        Symmetric edge weights of complete graphs.
    roots : array (B,) or int
        Root node of each tree.
    active : bool array (B, d) or (d,), optional
        Nodes to span (default: all). Inactive nodes stay out of the tree: they
        get no parent and are nobody's parent (instance-specific learners leave
        an attribute with an unknown value out of that instance's tree). The
        root must be active unless no node is.

    Returns
    -------
    parents : array (B, d) or (d,)
        Parent of each node in its tree; ``-1`` for the root and inactive nodes.

    Notes
    -----
    The B trees are grown in lockstep with numpy, so batching many instances
    (instance-specific learners) costs ``d`` vectorized steps. Ties go to the
    lowest node index among the candidates, and a node keeps its first-found
    best parent on equal weights (a candidate edge replaces it only when
    strictly heavier), so the result is deterministic. Every active node is
    connected, whatever its weight (zero, negative or ``-inf`` weights
    included): the result is a spanning tree, never a forest.
    """
    w = np.asarray(weights, dtype=float)
    single = w.ndim == 2
    if single:
        w = w[None]
    batch, d, _ = w.shape
    # -inf and NaN weights compare as the lowest finite weight, so they still connect
    w = np.where(np.isnan(w) | np.isneginf(w), -np.finfo(float).max, w)
    rows = np.arange(batch)
    roots = np.broadcast_to(np.asarray(roots, dtype=np.int64), (batch,))
    parents = np.full((batch, d), -1, dtype=np.int64)
    in_tree = np.zeros((batch, d), dtype=bool)
    if active is not None:
        in_tree |= ~np.broadcast_to(np.asarray(active, dtype=bool), (batch, d))
    in_tree[rows, roots] = True
    best = w[rows, roots].copy()
    best_from = np.repeat(roots[:, None], d, axis=1)
    steps = d - in_tree.sum(axis=1)  # nodes each tree still has to take in
    for step in range(int(steps.max(initial=0))):
        if steps.min() > step:
            open_rows, sub = rows, np.s_[:]
        else:
            open_rows = rows[steps > step]
            sub = np.s_[open_rows]
        nxt = np.argmax(np.where(in_tree[sub], -np.inf, best[sub]), axis=1)
        parents[open_rows, nxt] = best_from[open_rows, nxt]
        in_tree[open_rows, nxt] = True
        cand = w[open_rows, nxt]
        better = (cand > best[sub]) & ~in_tree[sub]
        best[sub] = np.where(better, cand, best[sub])
        best_from[sub] = np.where(better, nxt[:, None], best_from[sub])
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

    Notes
    -----
    Weights and scores are compared after :func:`bnclf.counts._measures.comparable` (rounded
    to 1e-10 bits), so measures that are equal in exact arithmetic (a constant
    attribute's zero CMI computed as 4e-18, two attributes with identical
    counts) are ties, decided by the tie rules rather than by rounding noise.
    Every structure learner here does the same.
    """
    if cache.n_features == 1:
        return learn_nb(cache)
    cmi = comparable(cache.cmi_matrix())  # first: its counting gives the (feature, class) tables too
    if root is None:
        root = int(np.argmax(comparable(cache.mi_with_class())))
    parents = maximum_spanning_arborescence(cmi, root)
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
    cmi = comparable(cache.cmi_matrix())  # first: its counting gives the (feature, class) tables too
    order = np.argsort(-comparable(cache.mi_with_class()), kind="stable")
    parents = {}
    for rank, i in enumerate(order):
        earlier = order[:rank]
        chosen = earlier[np.argsort(-cmi[i, earlier], kind="stable")[:k]]
        parents[int(i)] = sorted(int(p) for p in chosen)
    return _with_class_parent(parents, cache)


def learn_spode(cache: CountCache, parent: int) -> nx.DiGraph:
    """Super-parent one-dependence estimator: the class and ``parent`` are parents of every
    other feature; ``parent`` has the class as its only parent (Webb et al. 2005)."""
    parents = {i: [parent] for i in range(cache.n_features) if i != parent}
    return _with_class_parent(parents, cache)


def learn_aode(cache: CountCache) -> list[nx.DiGraph]:
    """The SPODEs of AODE: one per feature as super-parent, in feature order."""
    return [learn_spode(cache, p) for p in range(cache.n_features)]


def spode_families(n_features: int, parent: int | None) -> list[tuple[int, ...]]:
    """The families of the SPODE of ``parent`` (naive Bayes' for ``None``), as
    :func:`graph_families` gives them for :func:`learn_spode` (:func:`learn_nb`), without
    building the graph: an AODE holds ``d`` of them, all of the same known shape.

    Variables are ``0 .. d-1`` (features) and ``d`` (the class); families come in node
    order, parents by index with the class last: ``(j, p, d)`` for a child ``j``,
    ``(p, d)`` for the super-parent and ``(d,)`` for the class.
    """
    c = n_features
    children = [(j, c) if parent is None or j == parent else (j, parent, c) for j in range(n_features)]
    return [*children, (c,)]


def learn_atan(cache: CountCache) -> list[nx.DiGraph]:
    """One TAN per root feature (Jiang et al. 2012), in feature order.

    Notes
    -----
    The spanning trees are grown in lockstep from every root by
    :func:`maximum_spanning_arborescence` on the one CMI matrix, so member ``r``
    is exactly ``learn_tan(cache, root=r)``. Without ties among edge weights
    every member is the same undirected tree oriented away from its root; with
    ties Prim's choice may differ between roots, as it would for TAN.
    """
    d = cache.n_features
    if d == 1:
        return [learn_nb(cache)]
    cmi = comparable(cache.cmi_matrix())
    parents = maximum_spanning_arborescence(np.broadcast_to(cmi, (d, d, d)), np.arange(d))
    return [_with_class_parent({i: [p] for i, p in enumerate(row) if p >= 0}, cache) for row in parents]


def _feature_graph(parents: dict[int, list[int]], d: int) -> nx.DiGraph:
    """A DAG over the features only (a class-conditional network of a multinet)."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(range(d))
    for child, ps in parents.items():
        graph.add_edges_from((int(p), int(child)) for p in ps)
    return graph


def learn_chow_liu_multinet(cache: CountCache, *, root: int | None = None) -> list[nx.DiGraph]:
    """BMC-CL: for each class label c a Chow–Liu tree over the features (Sun et al. 2017, Alg. 3).

    Edge weights are the label-conditional MI ``I(Xi; Xj | c)`` (MI within the
    class-c rows, Sun et al. (2017) Eq. 13); each maximum spanning tree is oriented away
    from ``root``. Returns one DAG over the features (no class node) per label,
    in class-code order.

    Notes
    -----
    Algorithm 2 of the paper leaves the root open. Every label's tree is rooted
    at the same feature, TAN's default: the one with the largest ``I(X; C)``.
    With maximum-likelihood parameters the root does not change the
    distribution; with m-estimates it changes it slightly.
    """
    d = cache.n_features
    if root is None:
        root = int(np.argmax(comparable(cache.mi_with_class())))
    if d == 1:
        return [_feature_graph({}, 1) for _ in range(cache.n_classes)]
    parents = maximum_spanning_arborescence(comparable(cache.per_label_cmi()), root)
    return [_feature_graph({i: [p] for i, p in enumerate(row) if p >= 0}, d) for row in parents]


def etan_search_size(n_features: int, k: int) -> int:
    """About how many (attribute, parent set) pairs the ETAN sub-model searches of one fit
    score, each one count of the rows: at the step with ``s`` attributes added, each of the
    ``p - s`` others meets the parent sets that include the newest attribute (the others
    are memoized), and for ``k > 2`` its greedy extensions. It grows as ``p**3``."""
    total = 0
    for s in range(2, n_features):
        size = min(k, s)
        new_sets = 1 if size == 1 else (s - 1) + (size - 2) * s
        total += (n_features - s) * new_sets
    return total


def learn_etan_submodel(
    cache: CountCache,
    label: int,
    *,
    k: int = 2,
    scores: dict[tuple[int, tuple[int, ...]], np.ndarray] | None = None,
    progress: Callable[[int], Any] | None = None,
) -> nx.DiGraph:
    """One ETAN sub-model: a k-dependence network over the features for class ``label``.

    Start from the pair with the largest ``I(Xi; Xj | y)``; then repeatedly add
    the attribute ``Xi`` and parent set ``Pi`` (``|Pi| = min(k, |S|)`` among the
    attributes ``S`` already added) with the largest high-order CMI
    ``I(Xi; Pi | y)``, until every attribute is in (the ETAN paper, 2019, Algorithm 2 and
    the Figure 5 walk-through). The class is implicit: the sub-model is a DAG
    over the features, its CPTs estimated from the class-``label`` rows.

    Parameters
    ----------
    cache : CountCache
    label : int
        Class code of the sub-model.
    k : int
        Maximum number of feature parents.
    scores : dict, optional
        Memo ``(i, parents) -> I(Xi; parents | y)`` for every label, shared
        between the sub-models of one fit.
    progress : callable, optional
        Called with 1 after each attribute is added (a progress bar's ``update``).

    Notes
    -----
    The paper's Algorithm 2 text is lost; this follows DESIGN §4. Parent sets are
    enumerated exactly for ``k <= 2``. For ``k > 2`` the best pair is extended
    greedily, one parent at a time, by the largest ``I(Xi; Pi | y)``. The first
    pair is oriented from its lower-indexed attribute. Ties go to the lowest
    attribute index, then the lexicographically smallest parent set.
    """
    d = cache.n_features
    if d == 1:
        return _feature_graph({}, 1)
    scores = {} if scores is None else scores

    def score(i, parents):
        key = (i, tuple(sorted(parents)))
        if key not in scores:
            scores[key] = comparable(label_conditional_set_mi(cache, i, key[1]))
        return scores[key][label]

    lcmi = comparable(cache.per_label_cmi()[label])
    upper = np.triu(np.ones((d, d), dtype=bool), 1)
    flat = np.argmax(np.where(upper, lcmi, -np.inf))
    a, b = divmod(int(flat), d)
    added, parents = [a, b], {a: [], b: [a]}
    while len(added) < d:
        best = None
        size = min(k, len(added))
        for i in range(d):
            if i in parents:
                continue
            for cand in _parent_sets(added, size, lambda ps, i=i: score(i, ps)):
                value = score(i, cand)
                if best is None or value > best[0]:
                    best = (value, i, cand)
        _, i, cand = best
        parents[i] = sorted(cand)
        added.append(i)
        if progress is not None:
            progress(1)
    return _feature_graph(parents, d)


def _parent_sets(pool, size, score):
    """Candidate parent sets of ``size`` from ``pool``: all of them for ``size <= 2``;
    for larger sizes the best pair extended greedily by ``score``."""
    import itertools

    pool = sorted(pool)
    if size <= 2:
        return [tuple(c) for c in itertools.combinations(pool, size)]
    best = max(itertools.combinations(pool, 2), key=lambda ps: (score(ps), [-p for p in ps]))
    chosen = list(best)
    while len(chosen) < size:
        rest = [p for p in pool if p not in chosen]
        nxt = max(rest, key=lambda p: (score(tuple(sorted(chosen + [p]))), -p))
        chosen.append(nxt)
    return [tuple(sorted(chosen))]


def label_conditional_set_mi(cache: CountCache, i: int, parents: Sequence[int]) -> np.ndarray:
    """``I(Xi; Pi | C=c)`` in bits for every class c: the MI between ``Xi`` and the joint
    of ``parents`` within each class's rows."""
    from bnclf.counts._measures import label_conditional_mi

    table = cache.counts((i, *parents, cache.class_index), memoize=False)
    r = table.shape[0]
    return label_conditional_mi(table.reshape(r, -1, table.shape[-1]))
