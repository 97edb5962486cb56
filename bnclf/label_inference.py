"""Exact queries over the class variables of a multilabel network, batched over rows.

In a multilabel Bayesian network classifier (Corani et al. 2014) features have
only class parents and no children. Once a row's features are observed, each
feature CPT becomes a factor over its class parents, so the joint MAP
configuration of the classes and their marginals are max-/sum-product problems
over the class variables alone. This module solves them by variable elimination
with one elimination order for all rows, every factor carrying a leading row
axis (size 1 when the factor is the same for every row, as the class CPTs are).

A factor is a pair ``(scope, table)``: ``scope`` a tuple of variable indices and
``table`` an array of natural-log values with shape ``(rows or 1, *cards)``, one
axis per scope variable in scope order. Elimination works in log space
(broadcast additions, then a log-sum-exp or a max over one axis), so nothing
underflows however many features a row has.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from .stats import TableTooLargeError, _size, memory_budget

_CHUNK_CELLS = 1 << 22
"""Largest intermediate factor, in cells, of one batch of rows."""


def min_fill_order(
    scopes: Iterable[Sequence[int]],
    variables: Iterable[int],
    cardinalities: Mapping[int, int] | Sequence[int],
    *,
    first: Iterable[int] | None = None,
) -> tuple[list, int]:
    """Greedy min-fill elimination order of ``variables`` on the interaction graph of ``scopes``.

    Parameters
    ----------
    scopes : iterable of tuple of int
        Scopes of the factors; variables in a common scope are neighbours.
    variables : iterable of int
        The variables to eliminate.
    cardinalities : mapping or sequence
        Number of states of each variable.
    first : set of int, optional
        Variables that must all be eliminated before the others (the summed
        variables of a marginal MAP query come before the maximized ones).

    Returns
    -------
    order : list of int
    widest : int
        Largest number of variables in one elimination clique (the eliminated
        variable and its neighbours at that point).

    Notes
    -----
    The next variable is the one whose elimination adds the fewest fill-in
    edges, ties broken by the smaller clique (in cells), then the smaller
    index, so the order is deterministic.
    """
    variables = [int(v) for v in variables]
    todo = set(variables)
    neighbours: dict[int, set] = {}
    for scope in scopes:
        for a in scope:
            neighbours.setdefault(int(a), set()).update(int(b) for b in scope if b != a)
    for v in variables:
        neighbours.setdefault(v, set())
    first = set() if first is None else {int(v) for v in first} & todo
    order, widest = [], 1
    while todo:
        pool = (first & todo) or todo
        best = None
        for v in sorted(pool):
            around = neighbours[v]
            fill = sum(1 for a in around for b in around if a < b and b not in neighbours[a])
            cells = math.prod(int(cardinalities[u]) for u in around) * int(cardinalities[v])
            key = (fill, cells, v)
            if best is None or key < best:
                best = key
        v = best[2]
        around = neighbours.pop(v)
        widest = max(widest, len(around) + 1)
        for a in around:
            neighbours[a].discard(v)
            neighbours[a].update(around - {a})
        todo.discard(v)
        order.append(v)
    return order, widest


def reduce_evidence(factors: Iterable[tuple[Sequence[int], np.ndarray]], given: Mapping[int, int]) -> list:
    """Slice every factor at the observed values ``given`` (variable -> state code)."""
    out = []
    for scope, table in factors:
        if not any(v in given for v in scope):
            out.append((scope, table))
            continue
        index = [slice(None)] + [given[v] if v in given else slice(None) for v in scope]
        out.append((tuple(v for v in scope if v not in given), table[tuple(index)]))
    return out


def _expand(scope, table, target) -> np.ndarray:
    """View of ``table`` with one axis per variable of ``target`` (size 1 where absent)."""
    order = sorted(range(len(scope)), key=lambda a: target.index(scope[a]))
    moved = table.transpose([0] + [a + 1 for a in order])
    shape = [moved.shape[0]] + [1] * len(target)
    for position, a in enumerate(order):
        shape[target.index(scope[a]) + 1] = moved.shape[position + 1]
    return moved.reshape(shape)


def combine(factors: Sequence[tuple[Sequence[int], np.ndarray]], target: Iterable[int], n_rows: int) -> np.ndarray:
    """Sum of log factors as one table over ``target`` with a leading row axis.

    Small factors are first summed in groups over the union of their scopes
    (each group at most an eighth of the target's cells), so the full-size
    additions number the groups, not the factors: the clique of a variable
    that many features share is built from a few partial sums.
    """
    target = tuple(target)
    if not factors:
        return np.zeros((1,) + (1,) * len(target))
    limit = max(len(target) - 3, 1)
    groups: list[tuple[set, list]] = []
    for scope, table in sorted(factors, key=lambda f: -len(f[0])):
        if len(scope) > limit:
            groups.append((set(scope), [(scope, table)]))
            continue
        best = None
        for position, (members_scope, _) in enumerate(groups):
            grown = len(members_scope | set(scope))
            if grown <= limit and (best is None or grown < best[0]):
                best = (grown, position)
        if best is None:
            groups.append((set(scope), [(scope, table)]))
        else:
            groups[best[1]][0].update(scope)
            groups[best[1]][1].append((scope, table))
    partial = []
    for members_scope, members in groups:
        if len(members) == 1:
            partial.append(members[0])
            continue
        union = tuple(sorted(members_scope))
        partial.append((union, _add(members, union)))
    return _add(partial, target)


def _add(factors, target) -> np.ndarray:
    """Broadcast sum of factors over ``target`` (every factor's scope within it)."""
    views = [_expand(scope, table, target) for scope, table in factors]
    shape = np.broadcast_shapes(*(v.shape for v in views))
    out = np.empty(shape)
    np.copyto(out, views[0])
    for view in views[1:]:
        out += view
    return out


def _logsumexp(table: np.ndarray, axis) -> np.ndarray:
    """Log-sum-exp over one axis or a tuple of axes (removed from the result)."""
    peak = table.max(axis=axis, keepdims=True)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(divide="ignore"):
        summed = np.log(np.exp(table - safe).sum(axis=axis, keepdims=True)) + safe
    return np.squeeze(summed, axis=axis)


def eliminate(
    factors: Sequence[tuple[Sequence[int], np.ndarray]],
    cardinalities: Mapping[int, int] | Sequence[int],
    n_rows: int,
    *,
    summed: Iterable[int] = (),
    maximized: Iterable[int] = (),
    order: Sequence[int] | None = None,
) -> tuple[tuple[int, ...], np.ndarray, dict[int, np.ndarray]]:
    """Eliminate ``summed`` (log-sum-exp) then ``maximized`` (max) variables; exact.

    Parameters
    ----------
    factors : list of (scope, table)
        Log factors; tables have a leading row axis of size ``n_rows`` or 1.
    cardinalities : sequence
        States of every variable index.
    n_rows : int
    summed, maximized : iterable of int
        Variables to sum out and to maximize out. Every other variable of the
        factors is kept.
    order : list of int, optional
        Elimination order; by default min-fill with the summed variables first.

    Returns
    -------
    kept_scope : tuple of int
        The variables left, sorted.
    kept : ndarray, shape ``(n_rows or 1, *cards of kept_scope)``
        Log of the remaining function of the kept variables.
    argmax : dict
        ``variable -> (n_rows,)`` maximizing states of the maximized variables,
        traced back through the elimination. Filled only when no variable is
        kept (a MAP query); otherwise empty.
    """
    summed, maximized = [int(v) for v in summed], [int(v) for v in maximized]
    if order is None:
        order, _ = min_fill_order([s for s, _ in factors], summed + maximized, cardinalities, first=set(summed))
    is_max = set(maximized)
    factors = list(factors)
    traces = []
    for v in order:
        touching = [f for f in factors if v in f[0]]
        factors = [f for f in factors if v not in f[0]]
        target = tuple(sorted({u for s, _ in touching for u in s}))
        if not touching:
            continue
        table = combine(touching, target, n_rows)
        axis = target.index(v) + 1
        rest = tuple(u for u in target if u != v)
        if v in is_max:
            traces.append((v, rest, table.argmax(axis=axis)))
            factors.append((rest, table.max(axis=axis)))
        else:
            factors.append((rest, _logsumexp(table, axis)))
    kept_scope = tuple(sorted({u for s, _ in factors for u in s}))
    kept = combine(factors, kept_scope, n_rows)
    argmax = {}
    if not kept_scope and traces:
        rows = np.arange(n_rows)
        for v, rest, arg in reversed(traces):
            index = [rows if arg.shape[0] > 1 else np.zeros(n_rows, dtype=np.intp)]
            index += [argmax[u] for u in rest]
            argmax[v] = arg[tuple(index)]
    return kept_scope, kept, argmax


def clique_tree_marginals(
    factors: Sequence[tuple[Sequence[int], np.ndarray]],
    cardinalities: Mapping[int, int] | Sequence[int],
    n_rows: int,
    variables: Iterable[int],
    order: Sequence[int] | None = None,
    *,
    maximize: bool = False,
) -> dict:
    """Log marginals of every variable in ``variables`` from one calibration of a clique tree.

    The cliques are those of variable elimination along ``order`` (min-fill by
    default): eliminating ``v`` combines the factors that mention it into the
    clique potential ``psi_v`` over ``C_v`` and sends ``m_v = logsumexp_v psi_v``
    to the clique of the first variable of ``C_v - {v}`` eliminated after ``v``.
    The downward pass gives every clique its belief,
    ``beta_v = psi_v + (sum of beta_parent over C_parent - C_v) - m_v``, so all
    marginals cost two passes instead of one elimination per variable.

    With ``maximize=True`` the sums are maxima (max-product calibration) and
    the result is each variable's max-marginal, ``max log P(c, x)`` over the
    configurations with that variable at each state, not normalized; the
    maxima of the other connected parts of the graph (and constant factors)
    are added, so max-marginals of different variables compare.

    Returns
    -------
    dict
        ``variable -> (n_rows, cards)`` log marginals, normalized per row.

    Notes
    -----
    The downward message divides by ``m_v`` (a subtraction in log space), which
    is exact when ``m_v`` is finite; BDeu-posterior tables have no zeros, and
    observed classes are sliced away before calibration, so it always is.
    """
    variables = [int(v) for v in variables]
    if order is None:
        order, _ = min_fill_order([s for s, _ in factors], variables, cardinalities)
    position = {v: k for k, v in enumerate(order)}

    def reduce(table, axis):
        return table.max(axis=axis) if maximize else _logsumexp(table, axis)

    pool = [(scope, table, None) for scope, table in factors]  # (scope, table, sending clique)
    cliques = {}
    for v in order:
        touching = [f for f in pool if v in f[0]]
        pool = [f for f in pool if v not in f[0]]
        target = tuple(sorted({u for s, _, _ in touching for u in s} | {v}))
        psi = combine([(s, t) for s, t, _ in touching], target, n_rows)
        psi = np.broadcast_to(psi, (n_rows,) + psi.shape[1:]) if psi.shape[0] == 1 else psi
        axis = target.index(v) + 1
        message = reduce(psi, axis)
        rest = tuple(u for u in target if u != v)
        parent = min(rest, key=position.__getitem__) if rest else None
        cliques[v] = {"scope": target, "psi": psi, "message": message, "rest": rest, "parent": parent}
        pool.append((rest, message, v))
    # what is left has no variable: each connected part's total (its root's message) and
    # constant factors. A clique's belief covers its own part; the rest is added back below.
    everything = sum((np.broadcast_to(t, (n_rows,)) for _, t, _ in pool), np.zeros(n_rows))
    beliefs, root_of, linear = {}, {}, {}

    def project(v, axes):
        """Marginal of clique ``v``'s belief over ``axes`` (log space), reusing one exponentiation."""
        if maximize:
            return beliefs[v].max(axis=axes)
        if v not in linear:
            belief = beliefs[v]
            peak = belief.max(axis=tuple(range(1, belief.ndim)), keepdims=True)
            peak = np.where(np.isfinite(peak), peak, 0.0)
            linear[v] = (np.exp(belief - peak), peak.reshape(-1))
        values, peak = linear[v]
        with np.errstate(divide="ignore"):
            return np.log(values.sum(axis=axes)) + peak.reshape((-1,) + (1,) * (values.ndim - 1 - len(axes)))

    for v in reversed(order):
        clique = cliques[v]
        belief = clique["psi"]
        parent = clique["parent"]
        root_of[v] = v if parent is None else root_of[parent]
        if parent is not None:
            above = cliques[parent]
            drop = [above["scope"].index(u) + 1 for u in above["scope"] if u not in clique["rest"]]
            incoming = project(parent, tuple(drop)) if drop else beliefs[parent]
            down = incoming - clique["message"]  # scopes are sorted, so the separator axes line up
            belief = belief + _expand(clique["rest"], down, clique["scope"])
        beliefs[v] = belief
    out = {}
    for v in variables:
        scope = cliques[v]["scope"]
        others = tuple(scope.index(u) + 1 for u in scope if u != v)
        belief = project(v, others) if others else beliefs[v]
        if maximize:  # the other parts' maxima multiply in
            out[v] = belief + (everything - cliques[root_of[v]]["message"])[:, None]
        else:
            out[v] = belief - _logsumexp(belief, 1)[:, None]
    return out


def row_chunks(n_rows: int, widest_cells: int) -> Iterator[slice]:
    """Row slices so that no intermediate factor of a chunk exceeds the chunk cell budget."""
    budget_rows = max(1, _CHUNK_CELLS // max(1, widest_cells))
    for lo in range(0, n_rows, budget_rows):
        yield slice(lo, min(n_rows, lo + budget_rows))


def check_width(widest: int, cardinalities: int | None, what: str) -> int:
    """Cells per row of the widest clique (binary classes: 2**widest); raise if one row exceeds the budget."""
    cells = 2**widest if cardinalities is None else int(cardinalities) ** widest
    need = 8.0 * cells
    if need > memory_budget():
        raise TableTooLargeError(
            f"{what} needs a factor over {widest} classes ({cells:,} cells, {_size(need)} per row), "
            f"over the memory budget of {_size(memory_budget())}. Lower max_parents, select fewer "
            "features, query fewer labels, or raise the budget (bnclf.set_config(memory_budget=...))."
        )
    return cells
