"""Structure learners against hand-worked examples and brute force."""

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

from bnclf.counts._cache import CountCache
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import DiscreteData, encode_target
from bnclf.learn._restricted import learn_kdb, learn_nb, learn_tan, maximum_spanning_arborescence


class HandCache:
    """Stands in for a CountCache with hand-chosen measures."""

    def __init__(self, mi, cmi):
        self._mi, self._cmi = np.asarray(mi, float), np.asarray(cmi, float)
        self.n_features = len(mi)
        self.class_index = len(mi)

    def mi_with_class(self):
        return self._mi

    def cmi_matrix(self):
        return self._cmi


def symmetric(d, weights):
    w = np.zeros((d, d))
    for (i, j), v in weights.items():
        w[i, j] = w[j, i] = v
    return w


def feature_parents(graph, class_index):
    return {v: sorted(p for p in graph.predecessors(v) if p != class_index) for v in graph if v != class_index}


def test_prim_hand_worked():
    # Worked by hand from root 0: take 0-1 (5); then 1-2 (4) beats 1-3 (3), 0-3 (2), 0-2 (1);
    # then 1-3 (3). Total 12.
    w = symmetric(4, {(0, 1): 5, (0, 2): 1, (0, 3): 2, (1, 2): 4, (1, 3): 3, (2, 3): 0})
    assert maximum_spanning_arborescence(w, 0).tolist() == [-1, 0, 1, 1]
    # Rooted at 3 the same undirected tree, directed away from 3.
    assert maximum_spanning_arborescence(w, 3).tolist() == [1, 3, 1, -1]
    # batched: both roots at once
    both = maximum_spanning_arborescence(np.stack([w, w]), np.array([0, 3]))
    assert both.tolist() == [[-1, 0, 1, 1], [1, 3, 1, -1]]


def test_zero_weights_still_span():
    w = np.zeros((5, 5))
    parents = maximum_spanning_arborescence(w, 2)
    assert (parents >= 0).sum() == 4 and parents[2] == -1


def test_learn_tan_hand_worked_with_default_root():
    mi = [0.1, 0.9, 0.3, 0.2]  # root = feature 1, the most informative
    cmi = symmetric(4, {(0, 1): 5, (0, 2): 1, (0, 3): 2, (1, 2): 4, (1, 3): 3, (2, 3): 0})
    graph = learn_tan(HandCache(mi, cmi))
    assert feature_parents(graph, 4) == {0: [1], 1: [], 2: [1], 3: [1]}
    assert all(graph.has_edge(4, i) for i in range(4))


def test_learn_kdb_hand_worked():
    # Ranking by MI: 1, 2, 3, 0.
    mi = [0.1, 0.5, 0.3, 0.2]
    cmi = symmetric(4, {(0, 1): 0.4, (0, 2): 0.1, (0, 3): 0.3, (1, 2): 0.2, (1, 3): 0.05, (2, 3): 0.25})
    cache = HandCache(mi, cmi)
    # k=2: X2 <- {1}; X3 <- {1, 2} (only two candidates); X0 <- the two best of
    # {1: .4, 2: .1, 3: .3} = {1, 3}
    assert feature_parents(learn_kdb(cache, k=2), 4) == {1: [], 2: [1], 3: [1, 2], 0: [1, 3]}
    # k=1: X3 <- 2 (.25 > .05); X0 <- 1 (.4)
    assert feature_parents(learn_kdb(cache, k=1), 4) == {1: [], 2: [1], 3: [2], 0: [1]}
    assert feature_parents(learn_kdb(cache, k=0), 4) == {0: [], 1: [], 2: [], 3: []}


def prufer_trees(d):
    """Every labelled tree on d nodes, as edge lists (Prüfer decoding)."""
    for seq in itertools.product(range(d), repeat=d - 2):
        degree = [1] * d
        for v in seq:
            degree[v] += 1
        edges = []
        for v in seq:
            leaf = min(i for i in range(d) if degree[i] == 1)
            edges.append((leaf, v))
            degree[leaf] -= 1
            degree[v] -= 1
        u, w = [i for i in range(d) if degree[i] == 1]
        edges.append((u, w))
        yield edges


def test_tan_tree_is_the_brute_force_maximum_on_real_data(krkp):
    X, y = krkp
    X = X.iloc[:, :7]
    codes = FeatureEncoder().fit(X).transform(X, training=True)
    classes, yc = encode_target(y)
    # independent CMI: sum_c P(c) I(Xi; Xj | c) with scikit-learn's MI (nats -> bits)
    d = codes.shape[1]
    w = np.zeros((d, d))
    for i, j in itertools.combinations(range(d), 2):
        w[i, j] = w[j, i] = sum(
            np.mean(yc == c) * mutual_info_score(codes[yc == c, i], codes[yc == c, j]) for c in range(len(classes))
        ) / math.log(2)
    best = max(sum(w[u, v] for u, v in edges) for edges in prufer_trees(d))
    cache = CountCache(DiscreteData(codes, codes.max(axis=0) + 1, yc, len(classes)))
    graph = learn_tan(cache)
    tree = [(u, v) for u, v in graph.edges if u != d]
    assert len(tree) == d - 1
    assert sum(w[u, v] for u, v in tree) == pytest.approx(best, rel=1e-12)
    assert nx.is_tree(nx.Graph(tree))
    root = int(np.argmax([mutual_info_score(codes[:, i], yc) for i in range(d)]))
    assert graph.in_degree(root) == 1  # only the class


def test_nb_structure():
    cache = HandCache([0.1, 0.2], np.zeros((2, 2)))
    graph = learn_nb(cache)
    assert sorted(graph.edges) == [(2, 0), (2, 1)]
