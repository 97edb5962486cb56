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

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from bnclf._config import TableTooLargeError, memory_budget, readable_size, row_chunks
from bnclf._logsumexp import logsumexp
from bnclf.inference._elimination import elimination_order, moral_treewidth


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
        order = elimination_order([s for s, _ in factors], summed + maximized, cardinalities, first=set(summed)).order
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
            factors.append((rest, logsumexp(table, axis=axis)))
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
        order = elimination_order([s for s, _ in factors], variables, cardinalities).order
    position = {v: k for k, v in enumerate(order)}

    def reduce(table, axis):
        return table.max(axis=axis) if maximize else logsumexp(table, axis=axis)

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
            out[v] = belief - logsumexp(belief, axis=1)[:, None]
    return out


class LabelKernel:
    """Exact batched queries over the classes of a multilabel network.

    Parameters
    ----------
    feature_families : list of tuple
        ``(feature, *class variables)`` with class variables numbered
        ``m + i``; parents in CPT axis order.
    feature_cpts : list of ndarray
        Log-CPTs, axes ``(feature, *parents)``.
    class_factors : list of (scope, table, weight)
        Class CPTs as log factors over class indices ``0..n-1`` (table with a
        leading axis of size 1), each multiplied by ``weight`` (1 for a single
        network, ``1/n`` per member for the pooled ensemble).
    m, n : int
        Number of features and of classes.

    Notes
    -----
    Features with the same set of class parents are summed into one factor
    per row (one gather per feature), so the elimination sees one factor per
    distinct parent set. A feature whose value is unknown (code -1) adds zero,
    which sums it out exactly since it has no children.
    """

    def __init__(
        self,
        feature_families: Sequence[Sequence[int]],
        feature_cpts: Sequence[np.ndarray],
        class_factors: Iterable[tuple[Sequence[int], np.ndarray, float]],
        m: int,
        n: int,
    ) -> None:
        self.m, self.n = m, n
        self.class_factors = [(tuple(s), t * w) for s, t, w in class_factors]
        groups: dict[tuple, list] = {}
        for family, table in zip(feature_families, feature_cpts):
            parents = [p - m for p in family[1:]]
            if not parents:
                continue  # independent of every class: a constant per row
            order = sorted(range(len(parents)), key=lambda a: parents[a])
            scope = tuple(parents[a] for a in order)
            flat = table.transpose([0] + [a + 1 for a in order]).reshape(table.shape[0], -1)
            groups.setdefault(scope, []).append((family[0], flat))
        self.groups = groups
        self.cards = [2] * n

    def scopes(self) -> list[tuple]:
        return [s for s, _ in self.class_factors] + list(self.groups)

    def treewidth(self) -> int:
        return moral_treewidth(self.scopes(), self.n)

    def factors(self, codes: np.ndarray) -> list:
        """Log factors over classes for the rows of ``codes`` (class CPTs shared, features per row)."""
        out = list(self.class_factors)
        rows = len(codes)
        for scope, members in self.groups.items():
            total = np.zeros((rows, 2 ** len(scope)))
            for j, flat in members:
                x = codes[:, j]
                known = x >= 0
                if known.all():
                    total += flat[x]
                else:
                    total[known] += flat[x[known]]
            out.append((scope, total.reshape((rows,) + (2,) * len(scope))))
        return out

    def _plan(self, summed, maximized, given):
        scopes = [tuple(v for v in s if v not in given) for s in self.scopes()]
        order, widest, _ = elimination_order(scopes, list(summed) + list(maximized), self.cards, first=set(summed))
        need = 8.0 * 2**widest
        if need > memory_budget():
            raise TableTooLargeError(
                f"This query needs a factor over {widest} classes ({2**widest:,} cells, {readable_size(need)} "
                f"per row), over the memory budget of {readable_size(memory_budget())}. Query fewer labels, give "
                "some labels, lower max_parents, or use MultilabelBNClassifier instead of the ensemble."
            )
        return order, 2**widest

    def _tree_cells(self, order, given) -> int:
        """Cells per row of all the cliques of ``order`` (a calibration keeps them all)."""
        pool = [set(v for v in s if v not in given) for s in self.scopes()]
        total = 0
        for v in order:
            touching = [s for s in pool if v in s]
            pool = [s for s in pool if v not in s]
            clique = set().union(*touching) | {v}
            total += 2 ** len(clique)
            pool.append(clique - {v})
        return total

    def _run(self, codes, summed, maximized, given):
        """Eliminate in row chunks: yields ``(rows, kept_scope, kept, argmax)`` per chunk."""
        order, cells = self._plan(summed, maximized, given)
        for rows in row_chunks(len(codes), cells):
            n_rows = rows.stop - rows.start
            factors = reduce_evidence(self.factors(codes[rows]), given)
            kept_scope, kept, argmax = eliminate(
                factors, self.cards, n_rows, summed=summed, maximized=maximized, order=order
            )
            yield rows, kept_scope, np.broadcast_to(kept, (n_rows,) + kept.shape[1:]), argmax

    def map(self, codes: np.ndarray, index: Sequence[int], given: Mapping[int, int]) -> np.ndarray:
        """``(n_rows, len(index))`` MAP states of the labels ``index`` (others summed out)."""
        return self.map_value(codes, index, given)[0]

    def map_value(
        self, codes: np.ndarray, index: Sequence[int], given: Mapping[int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """MAP states of ``index`` and their log value ``max log P(c_index, given, x)`` (unnormalized)."""
        free = [i for i in range(self.n) if i not in given and i not in index]
        states = np.zeros((len(codes), len(index)), dtype=np.int64)
        values = np.zeros(len(codes))
        if not len(codes):
            return states, values
        for rows, _, kept, argmax in self._run(codes, free, index, given):
            for position, i in enumerate(index):
                states[rows, position] = argmax[i]
            values[rows] = kept.reshape(-1)
        return states, values

    def nonempty_map(
        self, codes: np.ndarray, index: Sequence[int], given: Mapping[int, int], states: np.ndarray
    ) -> np.ndarray:
        """Replace all-zero MAP answers (with all-zero ``given``) by the best non-empty configuration.

        The best non-empty configuration has some label at 1, so its value is
        ``max_i maxmarginal_i(1)``; one max-product calibration gives every
        label's max-marginal, and one MAP query with the best label forced to
        1 decodes the configuration.
        """
        empty = np.flatnonzero(~states.any(axis=1))
        if not len(empty) or not index:
            return states
        states = states.copy()
        sub = codes[empty]
        free = [i for i in range(self.n) if i not in given]
        summed = [i for i in free if i not in index]
        best_label = np.zeros(len(empty), dtype=np.int64)
        if summed:  # a marginal MAP query: max over ``index`` of sums over the rest, one label at a time
            values = np.full((len(empty), len(index)), -np.inf)
            for position, i in enumerate(index):
                _, values[:, position] = self.map_value(sub, [k for k in index if k != i], {**given, i: 1})
            best_label = values.argmax(axis=1)
        else:
            order, _ = self._plan(free, [], given)
            for rows in row_chunks(len(sub), self._tree_cells(order, given)):
                factors = reduce_evidence(self.factors(sub[rows]), given)
                peaks = clique_tree_marginals(
                    factors, self.cards, rows.stop - rows.start, index, order=order, maximize=True
                )
                best_label[rows] = np.column_stack([peaks[i][:, 1] for i in index]).argmax(axis=1)
        for position, i in enumerate(index):
            rows = np.flatnonzero(best_label == position)
            if not len(rows):
                continue
            rest = [k for k in index if k != i]
            found, _ = self.map_value(sub[rows], rest, {**given, i: 1})
            answer = np.zeros((len(rows), len(index)), dtype=np.int64)
            answer[:, position] = 1
            for column, k in enumerate(rest):
                answer[:, index.index(k)] = found[:, column]
            states[empty[rows]] = answer
        return states

    def marginals(self, codes: np.ndarray, index: Sequence[int], given: Mapping[int, int]) -> np.ndarray:
        """``(n_rows, len(index))`` probabilities ``P(C_i = 1 | x, given)`` from one clique-tree calibration."""
        out = np.zeros((len(codes), len(index)))
        free = [i for i in range(self.n) if i not in given]
        for position, i in enumerate(index):
            if i in given:
                out[:, position] = given[i]
        wanted = [i for i in index if i not in given]
        if not len(codes) or not wanted:
            return out
        order, _ = self._plan(free, [], given)
        for rows in row_chunks(len(codes), self._tree_cells(order, given)):
            factors = reduce_evidence(self.factors(codes[rows]), given)
            logs = clique_tree_marginals(factors, self.cards, rows.stop - rows.start, wanted, order=order)
            for position, i in enumerate(index):
                if i in logs:
                    out[rows, position] = np.exp(logs[i][:, 1])
        return out
