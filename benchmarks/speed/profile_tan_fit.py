"""Where the time of ``TANClassifier.fit`` and ``predict`` goes on the letter benchmark data.

Replays the steps of ``BayesNetClassifier.fit`` / ``predict`` one by one on the same
data as ``tan_letter`` (18,000 x 16 training rows, 5 quantile bins, 26
classes) and times each step separately (best of repeats, no profiler overhead), then
prints a cProfile summary of whole fits for cross-checking.

    python -m benchmarks.speed profile_tan_fit
"""

from __future__ import annotations

import cProfile
import pstats

import networkx as nx
import numpy as np

from benchmarks.speed.harness import timed
from benchmarks.speed.tan_letter import prepare
from bnclf import TANClassifier
from bnclf.counts._cache import CountCache
from bnclf.counts._measures import conditional_mutual_information, mutual_information
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import DiscreteData, as_frame, encode_target
from bnclf.inference._kernels import NetworkKernel
from bnclf.learn._parameters import m_estimated_log_cpts
from bnclf.learn._restricted import graph_families, maximum_spanning_arborescence

REPEATS = 15


def fit_steps(X, y):
    """The steps of ``TANClassifier().fit(X, y)``, each timed on its own."""
    steps = {}

    def step(name, fn):
        best, _, out = timed(fn, REPEATS)
        steps[name] = best
        return out

    frame = as_frame(X)
    classes, y_codes = step("encode_target(y) (np.unique on labels)", lambda: encode_target(y))
    encoder = step("FeatureEncoder.fit(X)", lambda: FeatureEncoder().fit(frame))
    codes = step("FeatureEncoder.transform(X) (categorical -> codes)", lambda: encoder.transform(frame, training=True))
    data = DiscreteData(codes, encoder.cardinalities_, y_codes, len(classes))
    step("CountCache(data)", lambda: CountCache(data))
    cache = CountCache(data)
    d, c = cache.n_features, cache.class_index

    def mi_counts():
        fresh = CountCache(data)
        return [fresh.counts((i, c)) for i in range(d)], fresh

    step("count tables (Xi, C) x16 (np.bincount)", mi_counts)

    def cmi_counts():
        fresh = CountCache(data)
        return [fresh.counts((i, j, c)) for i in range(d) for j in range(i + 1, d)]

    tables = step("count tables (Xi, Xj, C) x120 (np.bincount)", cmi_counts)
    pair_tables = [cache.counts((i, c)) for i in range(d)]
    step("I(Xi;C) x16 from tables", lambda: [mutual_information(t) for t in pair_tables])
    step("I(Xi;Xj|C) x120 from tables", lambda: [conditional_mutual_information(t) for t in tables])
    cmi = cache.cmi_matrix()
    root = int(np.argmax(cache.mi_with_class()))
    step("Prim spanning tree", lambda: maximum_spanning_arborescence(cmi, root))
    clf = TANClassifier().fit(X, y)
    graph = nx.relabel_nodes(clf.dag_, {n: i for i, n in enumerate(clf.node_names_)})
    families = step("graph_families", lambda: graph_families(graph, c))
    tables = step("m-estimated log CPTs", lambda: m_estimated_log_cpts(cache, families, 1.0))
    step("NetworkKernel", lambda: NetworkKernel(families, tables, c))
    step("named dag_/families_/log_cpts_ (relabel)", lambda: clf._set_named_network(graph, families, tables))
    total, _, _ = timed(lambda: TANClassifier().fit(X, y), REPEATS)
    return steps, total


def predict_steps(clf, X):
    steps = {}
    best, _, codes = timed(lambda: clf._encode(X), REPEATS * 2)
    steps["_encode(X) (FeatureEncoder.transform)"] = best
    best, _, jll = timed(lambda: clf._kernel.joint_log_likelihood(codes), REPEATS * 2)
    steps["kernel: gather log-CPT entries"] = best
    best, _, _ = timed(lambda: clf.classes_[np.argmax(jll, axis=1)], REPEATS * 2)
    steps["argmax"] = best
    total, _, _ = timed(lambda: clf.predict(X), REPEATS * 2)
    return steps, total


def show(title, steps, total):
    print(f"\n{title}: total {total * 1e3:.1f} ms (best of repeats)")
    for name, s in steps.items():
        print(f"  {s * 1e3:7.2f} ms  {100 * s / total:5.1f}%  {name}")
    rest = total - sum(steps.values())
    print(f"  {rest * 1e3:7.2f} ms  {100 * rest / total:5.1f}%  (rest: checks, glue)")


def main(argv=None):
    d = prepare(None)
    X, y = d["Dtr"], d["ytr"]
    steps, total = fit_steps(X, y)
    show("TANClassifier.fit, 18,000 rows", steps, total)
    clf = TANClassifier().fit(X, y)
    steps, total = predict_steps(clf, d["Dte"])
    show("TANClassifier.predict, 2,000 rows", steps, total)

    print("\ncProfile of 20 fits (cumulative, top 15):")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(20):
        TANClassifier().fit(X, y)
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(15)


if __name__ == "__main__":
    main()
