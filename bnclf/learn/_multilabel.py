"""Structure and parameters of multilabel networks (Corani et al. 2014): the bridge and the class subgraph.

Classes ``C_1..C_n`` are binary; features have only class parents and no
children (the multilabel naive assumption), so the BDeu score of the whole
graph splits into the features' local scores (the bridge) and the classes'
local scores (the class subgraph), and each part is optimized on its own.

* :func:`learn_bridge`: for every feature, the BDeu-optimal parent set among the
  subsets of the classes, exact under a bound on its size, with a pruning rule
  that never discards an optimal set.
* :func:`bridge_search_size`: its work, known before it starts.
* :func:`learn_class_graph`: the best naive (mNB) or forest-augmented (mFAN)
  class subgraph over every possible root.
* :func:`bdeu_log_cpt`: the BDeu posterior-mean CPT of a family.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.special import comb, gammaln

_SCORE_CELLS = 1 << 23
"""Count cells scored per batch of candidate parent sets (bounds the bridge's memory)."""


def bdeu_log_cpt(counts: ArrayLike, alpha: float) -> np.ndarray:
    """Log of the BDeu posterior mean ``(n_ijk + a/(q r)) / (n_ij + a/q)``, axes ``(child, *parents)``."""
    counts = np.asarray(counts, dtype=float)
    r = counts.shape[0]
    q = int(np.prod(counts.shape[1:], dtype=np.int64)) if counts.ndim > 1 else 1
    a_jk, a_j = alpha / (q * r), alpha / q
    return np.log(counts + a_jk) - np.log(counts.sum(axis=0, keepdims=True) + a_j)


def default_max_parents(n_rows: int, n_classes: int, budget: int = 20_000) -> int:
    """The default bound on a feature's class parents, from the number of training rows.

    The largest ``g`` with ``2**g <= sqrt(n_rows)`` (each parent configuration
    expects at least ``sqrt(n_rows)`` rows) whose candidate sets, all subsets
    of at most ``g`` classes, number at most ``budget``.

    Notes
    -----
    Corani et al. (2014, section 4) cite de Campos & Ji for a maximum in-degree
    of ``O(log N)``; this is that bound with the constant ``1/2``. It keeps the
    exhaustive search affordable and rarely binds: BDeu-optimal parent sets are
    usually smaller.
    """
    g = 0
    while (
        g < n_classes and 4 ** (g + 1) <= n_rows and sum(comb(n_classes, k, exact=True) for k in range(g + 2)) <= budget
    ):
        g += 1
    return g


def _set_ranks(sets: np.ndarray, n: int) -> np.ndarray:
    """Lexicographic rank of each sorted k-subset of ``range(n)`` among all k-subsets."""
    m, k = sets.shape
    rank = np.zeros(m, dtype=np.int64)
    previous = np.full(m, -1, dtype=np.int64)
    for t in range(k):
        # subsets whose t-th element lies between previous+1 and sets[:, t]-1 come first
        for value in range(n):
            skip = (value > previous) & (value < sets[:, t])
            if skip.any():
                rank[skip] += comb(n - value - 1, k - t - 1, exact=True)
        previous = sets[:, t]
    return rank


def bridge_search_size(
    n_rows: int, feature_cards: ArrayLike, n_label_sets: int, n_labels: int, max_parents: int
) -> dict:
    """How much work :func:`learn_bridge` does at most, before it starts.

    Parameters
    ----------
    n_rows : int
    feature_cards : array-like of shape (m,)
        Cardinalities of the features searched.
    n_label_sets : int
        Distinct label configurations among the rows (``U`` below).
    n_labels, max_parents : int

    Returns
    -------
    dict with ``sets`` (candidate parent sets, all subsets of at most
    ``max_parents`` classes), ``pairs`` (feature and set pairs: ``m * sets``),
    ``cell_sums`` (the additions of the counting products: each set sums the
    ``U`` label configurations into every feature state) and ``seconds``, a
    rough single-core estimate from them: ``1.3e-9 * cell_sums + 2e-6 * pairs
    + 1e-8 * n_rows * m``.

    Notes
    -----
    These are upper bounds: the pruning rule of :func:`learn_bridge` skips the
    supersets of closed sets, often most of the larger ones.
    """
    cards = np.asarray(feature_cards, dtype=np.int64)
    sets = sum(int(comb(n_labels, k, exact=True)) for k in range(max_parents + 1))
    cell_sums = float(sets) * n_label_sets * float(cards.sum())
    return {
        "sets": sets,
        "pairs": sets * len(cards),
        "cell_sums": cell_sums,
        "seconds": cell_sums * 1.3e-9 + 2e-6 * sets * len(cards) + 1e-8 * n_rows * len(cards),
    }


def learn_bridge(
    feature_codes: np.ndarray,
    feature_cards: ArrayLike,
    label_codes: np.ndarray,
    *,
    alpha: float = 5.0,
    max_parents: int | None = None,
    prune: bool = True,
    progress: Callable[[int], object] | None = None,
) -> dict:
    """BDeu-optimal class parents of every feature (Corani et al. 2014, eq. 6).

    Parameters
    ----------
    feature_codes : ndarray of shape (n_rows, m), int
        Feature codes ``0..r_j-1`` (no negative codes).
    feature_cards : array-like of shape (m,)
    label_codes : ndarray of shape (n_rows, n), 0/1
    alpha : float, default=5
        BDeu equivalent sample size.
    max_parents : int, optional
        Largest parent set; default :func:`default_max_parents`.
    prune : bool, default=True
        Use the bound below to skip sets that cannot be optimal. The result is
        the same either way; ``False`` scores every set (the test oracle).
    progress : callable, optional
        Called with the number of candidate sets done (scored or pruned) after
        each batch; the calls add up to ``bridge_search_size(...)["sets"]``
        (e.g. a tqdm bar's ``update``).

    Returns
    -------
    dict with keys ``parents`` (list of tuples of class indices, one per
    feature), ``scores`` (their BDeu scores), ``empty_scores`` (the BDeu of
    each feature without parents), ``scored`` and ``pruned`` (how many
    (feature, set) pairs were scored and skipped) and ``max_parents``.

    Notes
    -----
    Sets are visited by size, then lexicographically; the first set with the
    highest score wins, so ties go to the smaller set.

    **Pruning** (de Campos & Ji 2011, for BDeu). The BDeu term of one parent
    configuration is the log-probability of that configuration's sequence of
    child values under a Dirichlet-multinomial whose prior counts sum to
    ``a_j``, each value ``a_jk = a_j / r``. The first occurrence of each value
    has probability ``a_jk / (a_j + t) <= 1/r`` and every other factor is at
    most 1, so the term is at most ``-d ln r`` with ``d`` the number of
    distinct child values seen with that configuration. Summing, a parent set
    ``P`` scores at most ``-nnz(P) ln r``, where ``nnz`` counts the non-zero
    cells of its ``(child, configuration)`` table. Adding parents only splits
    cells, so ``nnz`` never decreases and the bound holds for every superset
    of ``P``. When it is no better than the best score found so far, no
    superset of ``P`` can be strictly better, and none is scored. Both the
    pruned and the exhaustive search therefore return the same set.

    **Counting.** Rows are first grouped by their label configuration (``U``
    distinct ones); a feature's table for any parent set is its ``(r, U)``
    table with the columns merged by the set's projection, so all features and
    many candidate sets are counted by one matrix product per batch.
    """
    x = np.asarray(feature_codes, dtype=np.int64)
    labels = np.asarray(label_codes, dtype=np.int64)
    cards = np.asarray(feature_cards, dtype=np.int64)
    n_rows, m = x.shape
    n = labels.shape[1]
    if max_parents is None:
        max_parents = default_max_parents(n_rows, n)
    max_parents = int(min(max_parents, n))
    # features sorted by cardinality, so per-feature sums are reshapes of equal-width blocks
    perm = np.argsort(cards, kind="stable")
    search = _BridgeSearch(_FeatureLabelTable(x[:, perm], cards[perm], labels), alpha, prune, progress)
    for k in range(max_parents + 1):
        search.visit(k)
    back = np.argsort(perm)
    return {
        "parents": [search.best_set[i] for i in back],
        "scores": search.best[back],
        "empty_scores": search.empty_scores[back],
        "scored": search.scored,
        "pruned": search.pruned,
        "max_parents": max_parents,
    }


class _FeatureLabelTable:
    """Every feature's counts against the distinct label configurations, features sorted by cardinality.

    ``table[offset_j + value, combo]`` counts the rows of feature ``j`` with that value
    and label configuration ``combos[combo]`` (int32); ``groups`` lists ``(first state
    row, number of features, cardinality)`` per cardinality; ``log_r`` is each feature's
    ``ln r``.
    """

    def __init__(self, x: np.ndarray, cards: np.ndarray, labels: np.ndarray) -> None:
        combos, inverse = np.unique(labels, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        u = combos.shape[0]
        offsets = np.concatenate([[0], np.cumsum(cards)])
        total = int(offsets[-1])
        flat = (x + offsets[:-1]) * u + inverse[:, None]
        self.table = np.bincount(flat.ravel(), minlength=total * u).reshape(total, u).astype(np.int32)
        self.groups = [
            (int(offsets[np.searchsorted(cards, r)]), int(np.sum(cards == r)), int(r)) for r in np.unique(cards)
        ]
        self.combos = combos
        self.log_r = np.log(cards.astype(float))
        self.n_features, self.n_labels, self.n_states = len(cards), labels.shape[1], total


class _BridgeSearch:
    """The state of :func:`learn_bridge`'s search, visited one parent-set size at a time.

    ``best`` and ``best_set`` hold each feature's best score and set so far,
    ``empty_scores`` the scores of the empty set, ``scored`` and ``pruned`` the
    (feature, set) pairs scored and skipped.
    """

    def __init__(self, counts: _FeatureLabelTable, alpha: float, prune: bool, progress) -> None:
        m = counts.n_features
        self.counts, self.alpha, self.prune, self.progress = counts, alpha, prune, progress
        self.best = np.full(m, -np.inf)
        self.best_set: list[tuple] = [()] * m
        self.empty_scores = np.zeros(m)
        self.scored = self.pruned = 0
        self._closed = None  # (m, sets of the previous size): their supersets are not scored

    def visit(self, k: int) -> None:
        """Score every set of ``k`` classes not pruned, keep the strictly better ones, close sets."""
        counts, n, m = self.counts, self.counts.n_labels, self.counts.n_features
        sets = np.array(list(itertools.combinations(range(n), k)), dtype=np.int64)
        sets = sets.reshape(len(sets), k)
        blocked = self._blocked(sets, k)
        self.pruned += int(blocked.sum())
        live = np.flatnonzero(~blocked.all(axis=0))
        if self.progress is not None and len(sets) > len(live):
            self.progress(len(sets) - len(live))  # sets pruned for every feature
        bounds = np.full((m, len(sets)), np.inf)
        step = max(1, _SCORE_CELLS // max(1, counts.n_states * min(2**k, counts.combos.shape[0])))
        for lo in range(0, len(live), step):
            chunk = live[lo : lo + step]
            scores, nnz = _score_sets(counts.table, counts.groups, counts.combos, sets[chunk], self.alpha)
            scores = np.where(blocked[:, chunk], -np.inf, scores)
            self.scored += int((~blocked[:, chunk]).sum())
            if k == 0:
                self.empty_scores = scores[:, 0].copy()
            self._keep_better(scores, sets[chunk])
            bounds[:, chunk] = -nnz * counts.log_r[:, None]
            if self.progress is not None:
                self.progress(len(chunk))
        # a set is closed (no superset scored) once its bound is no better than the best so far
        self._closed = blocked | (bounds <= self.best[:, None])

    def _blocked(self, sets: np.ndarray, k: int) -> np.ndarray:
        """``(m, len(sets))``: True where a subset one class smaller is closed (pruning only)."""
        blocked = np.zeros((self.counts.n_features, len(sets)), dtype=bool)
        if k > 0 and self.prune:
            for drop in range(k):
                blocked |= self._closed[:, _set_ranks(np.delete(sets, drop, axis=1), self.counts.n_labels)]
        return blocked

    def _keep_better(self, scores: np.ndarray, sets: np.ndarray) -> None:
        top = scores.argmax(axis=1)  # first best in visiting order; only a strictly better set replaces
        value = scores[np.arange(len(top)), top]
        better = value > self.best
        self.best = np.where(better, value, self.best)
        for j in np.flatnonzero(better):
            self.best_set[j] = tuple(int(c) for c in sets[top[j]])


def _score_sets(table, groups, combos, sets, alpha):
    """BDeu of every feature with every parent set of ``sets`` (one size), and non-zero cell counts.

    ``table`` is the integer ``(states of all features, label combinations)``
    count matrix, features ordered by cardinality; ``groups`` lists
    ``(first state row, number of features, cardinality)`` per cardinality. A
    set's configuration counts are the columns of ``table`` summed by the
    set's projection (a sparse product). Counts are integers, so the
    log-gamma terms are read from tables indexed by count.
    """
    n_sets, k = sets.shape
    u = combos.shape[0]
    weights = 1 << np.arange(k, dtype=np.int64)
    codes = (combos[:, sets] * weights).sum(axis=2).T if k else np.zeros((n_sets, u), dtype=np.int64)
    configs = 2**k
    width = min(configs, u)
    if configs <= u:
        column = codes + np.arange(n_sets)[:, None] * configs
    else:  # more configurations than label combinations: number the ones present
        order = np.argsort(codes, axis=1, kind="stable")
        ranked = np.take_along_axis(codes, order, axis=1)
        new = np.concatenate([np.ones((n_sets, 1), dtype=bool), ranked[:, 1:] != ranked[:, :-1]], axis=1)
        column = np.empty_like(codes)
        np.put_along_axis(column, order, np.cumsum(new, axis=1) - 1, axis=1)
        column += np.arange(n_sets)[:, None] * width
    projection = sparse.csr_matrix(
        (np.ones(column.size, dtype=np.int32), (column.ravel(), np.tile(np.arange(u), n_sets))),
        shape=(n_sets * width, u),
    )
    counts = np.asarray(projection @ table.T)  # (n_sets * width, total states)
    a_j = alpha / configs
    scores, nnz = [], []
    for start, n_features, r in groups:
        block = counts[:, start : start + n_features * r].reshape(-1, n_features, r)
        n_j = block[:, :, 0].copy()
        for v in range(1, r):
            n_j += block[:, :, v]
        steps = np.arange(int(n_j.max(initial=0)) + 1, dtype=float)
        a_jk = a_j / r
        cell_table = gammaln(a_jk + steps) - gammaln(a_jk)
        per_config = (gammaln(a_j) - gammaln(a_j + steps))[n_j]  # (n_sets * width, n_features)
        seen = np.zeros(n_j.shape, dtype=np.int32)
        for v in range(r):
            values = block[:, :, v]
            per_config += cell_table[values]
            seen += values > 0
        scores.append(per_config.reshape(n_sets, width, n_features).sum(axis=1).T)
        nnz.append(seen.reshape(n_sets, width, n_features).sum(axis=1).T)
    return np.concatenate(scores), np.concatenate(nnz)


def label_family_scores(label_codes: np.ndarray, alpha: float = 5.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BDeu of every class with no parent, one parent and two parents.

    Returns
    -------
    s0 : ndarray (n,)
        ``BDeu(C_i, {})``.
    s1 : ndarray (n, n)
        ``s1[r, i] = BDeu(C_i, {C_r})`` (diagonal ``-inf``).
    s2 : ndarray (n, n, n)
        ``s2[r, j, i] = BDeu(C_i, {C_r, C_j})`` (``-inf`` where indices repeat).
    """
    y = np.asarray(label_codes, dtype=float)
    n_rows, n = y.shape
    ones = y.sum(axis=0)
    c1 = np.stack([n_rows - ones, ones])  # (2, n)
    s0 = _bdeu_binary(c1[:, None, :].transpose(2, 0, 1).reshape(n, 2, 1), alpha)
    both = y.T @ y  # n11[a, b]
    # pair counts n[a_val, b_val] for parent a, child b
    p11 = both
    p10 = ones[:, None] - both  # a=1, b=0
    p01 = ones[None, :] - both  # a=0, b=1
    p00 = n_rows - p11 - p10 - p01
    # child axis first: (child value, parent value)
    pair = np.stack([np.stack([p00, p10], axis=-1), np.stack([p01, p11], axis=-1)], axis=-2)
    s1 = _bdeu_binary(pair.reshape(n * n, 2, 2), alpha).reshape(n, n)
    np.fill_diagonal(s1, -np.inf)
    s2 = np.full((n, n, n), -np.inf)
    z = 1.0 - y
    for r in range(n):
        cols = []
        for root_value in (z[:, r], y[:, r]):
            w_one = y * root_value[:, None]
            w_zero = z * root_value[:, None]
            # t[j_val, i_val] for parent j and child i, given root value
            cols.append(
                np.stack([np.stack([w_zero.T @ z, w_zero.T @ y], -1), np.stack([w_one.T @ z, w_one.T @ y], -1)], -2)
            )
        t = np.stack(cols, axis=-1)  # (j, i, j_val, i_val, root_val)
        fam = t.transpose(0, 1, 3, 2, 4).reshape(n * n, 2, 4)  # child, (j_val, root_val)
        block = _bdeu_binary(fam, alpha).reshape(n, n)
        block[r, :] = -np.inf
        block[:, r] = -np.inf
        np.fill_diagonal(block, -np.inf)
        s2[r] = block
    return s0, s1, s2


def _bdeu_binary(tables, alpha):
    """BDeu of many ``(r, q)`` tables at once: ``tables`` has shape ``(t, r, q)``."""
    tables = np.asarray(tables, dtype=float)
    _, r, q = tables.shape
    a_jk, a_j = alpha / (r * q), alpha / q
    n_j = tables.sum(axis=1)
    return (gammaln(a_j) - gammaln(a_j + n_j)).sum(axis=1) + (gammaln(a_jk + tables) - gammaln(a_jk)).sum(axis=(1, 2))


def maximum_branching(weights: ArrayLike) -> np.ndarray:
    """Maximum-weight branching of a directed graph (Edmonds 1967), arcs of positive weight only.

    Parameters
    ----------
    weights : ndarray of shape (n, n)
        ``weights[u, v]`` is the weight of the arc ``u -> v``; arcs of weight
        ``<= 0`` (or ``-inf``) are absent.

    Returns
    -------
    ndarray of shape (n,)
        The parent of every node in the branching, ``-1`` for none.

    Notes
    -----
    Every node first takes its heaviest entering arc. Each cycle among those
    choices is contracted into one node, an arc ``u -> v`` entering cycle ``C``
    weighing ``w(u, v) - w(pi(v), v) + min_C w`` (entering at ``v`` replaces
    ``v``'s cycle arc, while not entering drops the lightest cycle arc), and the
    contracted graph is solved the same way. Expanding keeps every cycle arc
    but the one replaced or dropped. Dense arrays throughout: ``O(n^2)`` per
    contraction. Ties go to the lower node index.
    """
    w = np.array(weights, dtype=float)
    n = w.shape[0]
    w[~(w > 0)] = -np.inf
    np.fill_diagonal(w, -np.inf)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    best = w.argmax(axis=0)
    parent = np.where(np.isfinite(w[best, np.arange(n)]), best, -1)
    # cycles of the functional graph node -> parent
    state = np.zeros(n, dtype=np.int64)  # 0 unseen, 1 on the current path, 2 done
    cycles = []
    for start in range(n):
        path, v = [], start
        while v != -1 and state[v] == 0:
            state[v] = 1
            path.append(v)
            v = parent[v]
        if v != -1 and state[v] == 1:
            cycles.append(path[path.index(v) :])
        for u in path:
            state[u] = 2
    if not cycles:
        return parent
    group = np.arange(n)
    for c, cycle in enumerate(cycles):
        for v in cycle:
            group[v] = n + c  # provisional id, renumbered below
    labels, group = np.unique(group, return_inverse=True)
    k = len(labels)
    adjusted = w.copy()
    lightest = {}
    for cycle in cycles:
        cycle_w = np.array([w[parent[v], v] for v in cycle])
        lightest[group[cycle[0]]] = cycle[int(cycle_w.argmin())]
        for v in cycle:
            adjusted[:, v] -= w[parent[v], v] - cycle_w.min()
    same = group[:, None] == group[None, :]
    adjusted[same] = -np.inf
    # best original arc for every pair of contracted nodes
    flat = np.full((k, k), -np.inf)
    arg_u = np.zeros((k, k), dtype=np.int64)
    arg_v = np.zeros((k, k), dtype=np.int64)
    order = np.argsort(-adjusted, axis=None, kind="stable")
    us, vs = np.unravel_index(order, adjusted.shape)
    values = adjusted[us, vs]
    keep = np.isfinite(values)
    us, vs, values = us[keep], vs[keep], values[keep]
    ga, gb = group[us], group[vs]
    first = np.unique(ga * k + gb, return_index=True)[1]  # heaviest arc per pair (stable: lowest index)
    flat[ga[first], gb[first]] = values[first]
    arg_u[ga[first], gb[first]] = us[first]
    arg_v[ga[first], gb[first]] = vs[first]
    contracted = maximum_branching(flat)
    result = np.full(n, -1, dtype=np.int64)
    cycle_of = {group[c[0]]: c for c in cycles}
    for b in range(k):
        a = contracted[b]
        if b in cycle_of:
            cycle = cycle_of[b]
            for v in cycle:
                result[v] = parent[v]
            if a == -1:
                result[lightest[b]] = -1
            else:
                result[arg_v[a, b]] = arg_u[a, b]
        else:
            (v,) = np.flatnonzero(group == b)
            result[v] = arg_u[a, b] if a != -1 else -1
    return result


def learn_class_graph(label_codes: np.ndarray, *, kind: str = "nb", alpha: float = 5.0) -> dict:
    """Best naive (mNB) or forest-augmented (mFAN) class subgraph over every root.

    Parameters
    ----------
    label_codes : ndarray of shape (n_rows, n), 0/1
    kind : {"nb", "fan"}
    alpha : float, default=5

    Returns
    -------
    dict with ``parents`` (list of tuples: each class's parents, the root
    first), ``root``, ``score`` (BDeu of the class subgraph) and
    ``root_scores`` (the best score for every root).

    Notes
    -----
    mNB links a non-root class to the root iff ``BDeu(C_i, {root}) > BDeu(C_i, {})``
    (eq. 7). mFAN lets each non-root class have no parent, the root, or the
    root and one other class, without cycles: with
    ``base_i = max(BDeu(C_i, {}), BDeu(C_i, {root}))`` and
    ``w(j -> i) = BDeu(C_i, {root, C_j}) - base_i``, the best forest is a
    maximum branching over the positive arcs (:func:`maximum_branching`,
    Edmonds' algorithm on dense arrays). The root with the highest subgraph score
    is kept; ties go to the lower class index.
    """
    s0, s1, s2 = label_family_scores(label_codes, alpha)
    n = len(s0)
    best = None
    root_scores = np.empty(n)
    for root in range(n):
        parents: list[tuple] = [()] * n
        score = s0[root]
        for i in range(n):
            if i == root:
                continue
            linked = s1[root, i] > s0[i]
            parents[i] = (root,) if linked else ()
            score += s1[root, i] if linked else s0[i]
        if kind == "fan" and n > 2:
            base = np.maximum(s0, s1[root])
            gain = s2[root] - base[None, :]  # gain[j, i] of the arc j -> i; -inf on the root and diagonal
            for i, j in enumerate(maximum_branching(gain)):
                if j >= 0:
                    parents[i] = (root, int(j))
                    score += gain[j, i]
        root_scores[root] = score
        if best is None or score > best[0]:
            best = (score, root, parents)
    return {"parents": best[2], "root": best[1], "score": best[0], "root_scores": root_scores}


def naive_class_graph(n: int, root: int) -> list[tuple]:
    """Parents of the unoptimized naive class graph with ``root`` (every other class a child)."""
    return [() if i == root else (root,) for i in range(n)]


def enumerate_fans(n: int, root: int) -> Iterator[list[tuple]]:
    """Every feasible FAN class subgraph with ``root``: parents ``()``, ``(root,)`` or ``(root, j)``, acyclic."""
    import networkx as nx

    others = [i for i in range(n) if i != root]
    options = {i: [(), (root,)] + [(root, j) for j in others if j != i] for i in others}
    for choice in itertools.product(*(options[i] for i in others)):
        parents: list[tuple] = [()] * n
        for i, pa in zip(others, choice):
            parents[i] = pa
        graph = nx.DiGraph((pa[1], i) for i, pa in enumerate(parents) if len(pa) == 2)
        if nx.is_directed_acyclic_graph(graph):
            yield parents
