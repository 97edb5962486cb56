"""Exact per-feature contributions to a network's log-odds, by the chain rule.

A Bayesian network classifier's ``log P(c, x)`` is a sum of one term per family when
every feature is observed, so the log-odds of two classes split exactly into one term
per family. :func:`chain_terms` computes those terms for rows with missing or unseen
values too, by the chain rule in a topological order of the features:

``log P(c, x_o) = log P(c) + sum_j log P(x_j | x_{o,<j}, c)``

over the observed features ``x_o`` (``x_{o,<j}``: those before ``j`` in the order). Each
term is a difference of two exact marginals, ``log P(c, x_{o,<=j}) - log P(c, x_{o,<j})``,
computed by the network's kernel with the features after ``j`` summed out; since they
come later in a topological order, they are barren and cost only gathers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from bnclf.encoding._frames import UNKNOWN

if TYPE_CHECKING:
    from bnclf.network import Network


def feature_order(network: Network, n_features: int) -> list[int]:
    """The features of ``network`` in topological order, the lower index first among the
    features that may come next (``networkx.lexicographical_topological_sort``); features
    of the data that are not nodes of the network come last (their terms are zero)."""
    graph = nx.DiGraph()
    nodes = [v for v in network.nodes if v != network.class_index]
    graph.add_nodes_from(nodes)
    graph.add_edges_from((p, f[0]) for f in network.families for p in f[1:] if p != network.class_index)
    graph.remove_nodes_from([network.class_index])
    order = [int(v) for v in nx.lexicographical_topological_sort(graph)]
    return order + [j for j in range(n_features) if j not in set(order)]


def chain_terms(network: Network, codes: np.ndarray) -> np.ndarray:
    """The chain-rule terms of ``log P(c, x)`` for every row and class.

    Parameters
    ----------
    network : Network
        A network with the class as a node (its kernel returns one column per class),
        or a class-conditional member of a multinet (one column, ``log P(x)``).
    codes : ndarray of shape (n_rows, n_features)
        Feature codes; ``-1`` marks a missing or unseen value, which is summed out.

    Returns
    -------
    ndarray of shape (n_rows, n_features + 1, n_columns)
        Index 0 is ``log P(c)`` (zero for a network without the class); index ``1 + j``
        is feature ``j``'s term ``log P(x_j | x_{o,<j}, c)``. The terms of a row sum to
        the kernel's ``log P(c, x_o)``, up to floating-point rounding.

    Notes
    -----
    *What a feature contributes.* With every value observed, feature ``j``'s term is its
    family's log-CPT entry ``log P(x_j | pa_j)`` (its parents, the class among them, come
    before it in a topological order, and ``x_j`` is independent of its other
    predecessors given them), so the terms do not depend on the order. A missing or
    unseen feature contributes zero: it is summed out, and what its observed children
    say is carried by their own terms, ``log P(x_k | x_{o,<k}, c)`` with the missing
    parent summed out. Only then does the order matter; it is the lexicographic
    topological order of :func:`feature_order`. A family that couples the class with
    another feature (``P(x_j | x_i, c)``) is attributed to its child ``x_j``. When the
    class has feature parents (a hill-climbing result), index 0 is the marginal
    ``log P(c)`` and each feature's term is conditional on the class.
    """
    codes = np.asarray(codes, dtype=np.int64)
    n, d = codes.shape
    kernel = network.kernel
    work = np.full_like(codes, UNKNOWN)
    previous = kernel.joint_log_likelihood(work)
    terms = np.zeros((n, d + 1, previous.shape[1]))
    terms[:, 0] = previous
    nodes = set(network.nodes)
    for j in feature_order(network, d):
        if j not in nodes:
            continue
        observed = codes[:, j] != UNKNOWN
        if not observed.any():
            continue
        work[:, j] = codes[:, j]
        current = kernel.joint_log_likelihood(work)
        with np.errstate(invalid="ignore"):  # -inf - -inf: a class already impossible (m=0)
            terms[:, 1 + j] = np.where(observed[:, None] & (current != previous), current - previous, 0.0)
        previous = current
    return terms


def log_odds_split(
    terms: np.ndarray, joint: np.ndarray, against: str | int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-row differences of ``terms`` between the predicted class and another.

    Parameters
    ----------
    terms : ndarray of shape (n_rows, n_terms, n_classes)
    joint : ndarray of shape (n_rows, n_classes)
        ``log P(c, x)``, whose argmax is the predicted class.
    against : None, "each" or int
        None: the runner-up of each row; ``"each"``: every other class (one output row
        per row and other class); an int: that class code.

    Returns
    -------
    values : ndarray of shape (n_out, n_terms)
    rows, predicted, other : ndarray of shape (n_out,)
        The input row, predicted class code and other class code of each output row.
    """
    n, _, k = terms.shape
    predicted = np.argmax(joint, axis=1)
    if against is None:
        masked = np.where(np.arange(k)[None, :] == predicted[:, None], -np.inf, joint)
        rows, other = np.arange(n), np.argmax(masked, axis=1)
    elif against == "each":
        every = np.broadcast_to(np.arange(k), (n, k))
        keep = every != predicted[:, None]
        rows, other = np.nonzero(keep)[0], every[keep]
    else:
        rows, other = np.arange(n), np.full(n, int(against))
    chosen = predicted[rows]
    first, second = terms[rows, :, chosen], terms[rows, :, other]
    with np.errstate(invalid="ignore"):  # two impossible terms (m=0) differ by nothing
        values = np.where(first == second, 0.0, first - second)
    return values, rows, chosen, other
