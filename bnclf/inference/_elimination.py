"""Variable elimination over factors with a leading row axis: the elimination order and
the contraction of factors, shared by the network kernels and the label queries."""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np


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


def sum_out(factors: list, order: Iterable[Hashable], n: int, class_index: int, n_classes: int) -> np.ndarray:
    """Sum the labelled factors over the variables of ``order``: ``log`` of the result,
    ``(n, n_classes)``. Each new factor is rescaled per row (its maximum kept in
    log space) so that long products cannot underflow."""
    log_scale = np.zeros(n)
    for v in order:
        involved = [fac for fac in factors if v in fac[1]]
        factors = [fac for fac in factors if v not in fac[1]]
        kept = _union_labels(involved, drop=v)
        product = _contract(involved, kept)
        peak = product.reshape(n, -1).max(axis=1)
        peak = np.where(peak > 0, peak, 1.0)
        product = product / peak.reshape((n,) + (1,) * (product.ndim - 1))
        log_scale += np.log(peak)
        factors.append((product, kept))
    total = _contract(factors, ("n", class_index)) if factors else np.ones((n, 1))
    total = np.broadcast_to(total.reshape(n, -1), (n, n_classes))
    with np.errstate(divide="ignore"):
        return np.log(total) + log_scale[:, None]


class EliminationOrder(NamedTuple):
    """An elimination order and the size of its largest clique."""

    order: list
    widest: int
    """The most variables in one elimination clique (the eliminated variable and its
    neighbours at that point)."""
    widest_cells: int
    """The most cells of one factor an elimination creates (the clique's states)."""


def elimination_order(
    scopes: Iterable[Sequence[Hashable]],
    variables: Iterable[Hashable],
    cardinalities: Mapping[Hashable, int] | Sequence[int],
    *,
    first: Iterable[Hashable] | None = None,
) -> EliminationOrder:
    """Greedy min-fill elimination order of ``variables`` on the interaction graph of ``scopes``.

    The one elimination order of bnclf: the network kernels sum unknown features out in it
    (the class is left out of the scopes and never eliminated), and the multilabel queries
    eliminate classes in it.

    Parameters
    ----------
    scopes : iterable of sequences
        Scopes of the factors; variables in a common scope are neighbours. Variables
        of the scopes that are not in ``variables`` count as neighbours but are kept.
    variables : iterable
        The variables to eliminate (sortable: ties go to the smaller).
    cardinalities : mapping or sequence
        Number of states of each variable.
    first : iterable, optional
        Variables that must all be eliminated before the others (the summed variables
        of a marginal MAP query come before the maximized ones).

    Returns
    -------
    EliminationOrder

    Notes
    -----
    The next variable is the one whose elimination adds the fewest fill-in edges, ties
    broken by the smaller clique (in cells), then the smaller variable, so the order is
    deterministic. Eliminating a variable changes the fill-in of its neighbours and of
    their neighbours only; those are re-scored, and the others keep their place in a
    heap, so sparse networks of thousands of variables are ordered quickly.
    """
    variables = list(variables)
    todo = set(variables)
    first = set() if first is None else set(first) & todo
    neighbours: dict[Hashable, set] = {v: set() for v in variables}
    for scope in scopes:
        scope = list(scope)
        for a in scope:
            neighbours.setdefault(a, set()).update(b for b in scope if b != a)

    def key(v):
        around = neighbours[v]
        fill = sum(1 for a in around for b in around if a < b and b not in neighbours[a])
        cells = math.prod(int(cardinalities[u]) for u in around) * int(cardinalities[v])
        return (v not in first, fill, cells, v)

    current = {v: key(v) for v in variables}
    heap = list(current.values())
    heapq.heapify(heap)
    order, widest, widest_cells = [], 1, 1
    while heap:
        entry = heapq.heappop(heap)
        v = entry[-1]
        if v not in todo or current[v] != entry:
            continue  # eliminated already, or a stale key
        order.append(v)
        todo.discard(v)
        around = neighbours.pop(v)
        widest = max(widest, len(around) + 1)
        widest_cells = max(widest_cells, entry[2])
        for a in around:
            neighbours[a].discard(v)
            neighbours[a].update(around - {a})
        touched = set(around).union(*(neighbours[a] for a in around)) & todo
        for u in touched:
            current[u] = key(u)
            heapq.heappush(heap, current[u])
    return EliminationOrder(order, widest, widest_cells)


def moral_treewidth(scopes: Iterable[Sequence[int]], n: int) -> int:
    """Largest clique (in variables) of the min-fill triangulation of the classes' moral graph.

    ``scopes`` are the families over classes ``0..n-1`` (class CPTs and each feature's
    class parents, the features being observed). Follows Corani et al.'s footnote: the size
    of the largest clique, not that size minus one.
    """
    return elimination_order(scopes, range(n), [2] * n).widest
