"""Vectorized inference kernels: ``log P(c, x)`` for a batch of rows and every class.

A Bayesian network classifier with every feature observed needs no inference
engine: the joint of each class is a sum of log-CPT entries, one gathered per
family. :class:`FamilyGather` does those gathers for any list of families at
once (the families of one network, or of every member of an ensemble); their
sums, a network's prediction, are one compiled pass over the rows
(:mod:`bnclf.inference._gather_add`). Rows with features that are missing or unseen (code
``UNKNOWN``) are answered exactly by variable elimination batched over those
rows: each feature gets an evidence vector (one-hot when observed, all ones
when unknown), and the features are summed out one at a time in an elimination
order fixed once per network, so the work is a few small ``numpy.einsum`` calls
per feature whatever the pattern of missing values; in networks with wide factors,
:class:`ComponentSums` first enumerates the joint values of each row's small groups
of unknowns that share families.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

import bnclf._config as _config
from bnclf._threads import even_parts, run_parts, too_small_to_cut
from bnclf.inference._elimination import elimination_order, sum_out
from bnclf.inference._gather_add import family_sums
from bnclf.inference._posterior import log_posteriors
from bnclf.inference._spodes import log_weighted_sum as _log_weighted_sum

if TYPE_CHECKING:
    from bnclf.network import Network


_BATCHED_VE_CELLS = 2**16
"""Largest factor per row for which one elimination plan serves every pattern of unknowns;
denser networks eliminate each pattern's own unknowns instead."""


_ENUMERATED_VALUES = 2**10
"""Most joint values of a component of unknowns that is summed out by enumeration; rows
with a larger component go through variable elimination."""


_COMPONENTS_FROM_CELLS = 2**12
"""Networks whose widest elimination factor per row has at least this many cells sum
rows' unknowns out by components (:class:`ComponentSums`); narrower ones
(TAN) by one batched elimination."""


_SHARED_CELLS = 2**18
"""Entries gathered per batch for the members of an ensemble."""


class FamilyGather:
    """Gathers the log-CPT entries of many families for a batch of rows, in one index.

    Parameters
    ----------
    families : list of tuple of int
        ``(child, *parents)`` variable indices of each family.
    log_cpts : list of ndarray
        Log-CPT of each family, one axis per family variable in family order.
    class_index : int
        Index of the class variable. A family without it contributes the same
        entry to every class.
    n_classes : int
        Number of classes (columns of the result).

    Notes
    -----
    Every table is laid out with the class axis last (a table without the class is
    repeated along it) and all are stacked into one array of rows of ``n_classes``
    entries. For family ``f`` the row of a sample is ``base[f] + sum_v code[v] *
    stride[f, v]`` over its non-class variables, so every family of every network is
    answered by one ``take`` of contiguous rows (:meth:`__call__`), and their sums by one
    compiled pass that adds each row's entries family after family (:meth:`summed`). A
    negative code (an unknown value) is rejected rather than allowed to wrap around to the
    last cell of a table; callers replace or sum out unknown values first.
    """

    def __init__(
        self, families: Sequence[Sequence[int]], log_cpts: Sequence[ArrayLike], class_index: int, n_classes: int
    ) -> None:
        families = [tuple(int(v) for v in f) for f in families]
        tables = [np.asarray(t, dtype=float) for t in log_cpts]
        if len(families) != len(tables):
            raise ValueError(f"{len(families)} families but {len(tables)} tables.")
        self.class_index = int(class_index)
        self.n_classes = int(n_classes)
        self.n_families = len(families)
        width = max([sum(v != class_index for v in f) for f in families] + [1])
        var_rows, stride_rows, blocks, bases, base = [], [], [], [], 0
        for family, table in zip(families, tables):
            if table.ndim != len(family):
                raise ValueError(f"family {family} has a table with {table.ndim} axes.")
            if self.class_index in family:
                table = np.moveaxis(table, family.index(self.class_index), -1)
            else:
                table = np.broadcast_to(table[..., None], table.shape + (self.n_classes,))
            own = [v for v in family if v != class_index]
            strides, step = [], 1
            for size in reversed(table.shape[:-1]):  # C-contiguous strides, in rows
                strides.append(step)
                step *= size
            strides.reverse()
            var_rows.append(own + [0] * (width - len(own)))
            stride_rows.append(strides + [0] * (width - len(own)))
            blocks.append(table.reshape(-1, self.n_classes))
            bases.append(base)
            base += step
        self._vars = np.array(var_rows, dtype=np.int64).reshape(self.n_families, width)
        self._strides = np.array(stride_rows, dtype=np.int64).reshape(self.n_families, width)
        self._bases = np.array(bases, dtype=np.int64)
        self._rows = np.ascontiguousarray(np.concatenate(blocks)) if blocks else np.zeros((0, self.n_classes))
        self._used = np.unique(self._vars[self._strides != 0])
        # the kernel's slots: each family's variables other than the class, without padding
        lengths = [len(f) - (self.class_index in f) for f in families]
        real = np.arange(width) < np.array(lengths, dtype=np.int64).reshape(-1, 1)
        sizes = [[size for v, size in zip(f, t.shape) if v != self.class_index] for f, t in zip(families, tables)]
        self._slots = (
            np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            np.ascontiguousarray(self._vars[real]),
            np.ascontiguousarray(self._strides[real]),
            np.array([s for family in sizes for s in family], dtype=np.int64),
            self._bases,
        )

    def _check(self, codes: np.ndarray) -> np.ndarray:
        codes = np.asarray(codes, dtype=np.int64)
        if codes.size and codes.min() < 0 and any(codes[:, v].min(initial=0) < 0 for v in self._used):
            raise ValueError(
                "FamilyGather got a negative (unknown) code; sum unknown values out (or replace them) before gathering."
            )
        return codes

    def _offsets(self, block: np.ndarray) -> np.ndarray:
        """Row of every family's entries in the stacked tables: ``(n, n_families)``."""
        offset = self._bases + block[:, self._vars[:, 0]] * self._strides[:, 0]
        for slot in range(1, self._vars.shape[1]):
            offset += block[:, self._vars[:, slot]] * self._strides[:, slot]
        return offset

    def _family_rows(self, block: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """:meth:`_offsets` transposed, ``(n_families, n)``, each family's rows contiguous
        (written into ``out`` when given)."""
        columns = block.T  # a view: rows of column-major codes are contiguous
        offset = np.take(columns, self._vars[:, 0], axis=0, out=out)
        offset *= self._strides[:, 0, None]
        for slot in range(1, self._vars.shape[1]):
            offset += columns[self._vars[:, slot]] * self._strides[:, slot, None]
        offset += self._bases[:, None]
        return offset

    def _entries(self, block: np.ndarray) -> np.ndarray:
        return self._rows.take(self._offsets(block), axis=0)

    def _row_step(self) -> int:
        return max(1, _config.CHUNK_CELLS // max(1, self.n_families * self.n_classes))

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        """Entries ``(n_samples, n_families, n_classes)`` of every family for every row."""
        codes = self._check(codes)
        step = self._row_step()
        if codes.shape[0] <= step:
            return self._entries(codes)
        return np.concatenate([self._entries(codes[s : s + step]) for s in range(0, codes.shape[0], step)])

    def summed(self, codes: np.ndarray) -> np.ndarray:
        """Sum of every family's entries for every row: ``(n_samples, n_classes)``.

        One compiled pass (:func:`bnclf.inference._gather_add.family_sums`), rows cut among
        threads; the families of a row are summed in family order, so the sums are the same
        bits however the rows are cut. Codes of any layout are read in place.

        Raises
        ------
        ValueError
            A family reads a negative (unknown) code, or a code past its variable's values.
        """
        codes = np.asarray(codes, dtype=np.int64)
        out, bad = self._sums(codes)
        if bad is not None:
            self._refuse(codes, bad)
        return out

    def _sums(self, codes: np.ndarray) -> tuple[np.ndarray, tuple[int, int] | None]:
        """:meth:`summed` of int64 ``codes``, and ``(row, column)`` of the first code (row by
        row) that a family cannot read (negative, or past its values), or None."""
        n = codes.shape[0]
        out = np.empty((n, self.n_classes))
        slots = self._slots
        work = float(n) * (slots[1].size + self.n_families * self.n_classes)
        if too_small_to_cut(work):
            bad = family_sums(codes, *slots, self._rows, out, 0, n)
        else:
            found = []
            run_parts(lambda a, b: found.append(family_sums(codes, *slots, self._rows, out, a, b)), even_parts(n, work))
            bad = min((b for b in found if b >= 0), default=-1)
        if bad < 0:
            return out, None
        row, slot = divmod(bad, slots[1].size)
        return out, (row, int(slots[1][slot]))

    def _refuse(self, codes: np.ndarray, bad: tuple[int, int]) -> None:
        """Raise the ValueError of :meth:`summed` for the code at ``bad`` ``(row, column)``."""
        code = int(codes[bad])
        if code < 0:
            raise ValueError(
                "FamilyGather got a negative (unknown) code; sum unknown values out (or replace them) before gathering."
            )
        size = self._slots[3][np.flatnonzero(self._slots[1] == bad[1])[0]]
        raise ValueError(f"FamilyGather got code {code} in column {bad[1]}, which has {size} values.")


class NetworkKernel:
    """Joint log-likelihood of one discrete DAG, exact for any structure.

    Parameters
    ----------
    families : list of tuple of int
        ``(child, *parents)`` for every node of the network.
    log_cpts : list of ndarray
        Natural-log CPT of each family, axes in family order.
    class_index : int
        Index of the class variable. The class may be a root, have feature
        parents, or be absent (a class-conditional member of a multinet, whose
        kernel returns one column, ``log P(x)``).

    Notes
    -----
    Rows with unknown features whose unknowns are all *barren* (no observed
    descendant; the class counts as observed, because every class value is
    scored) need only gathers, since a barren node's CPT sums to one. Other
    rows are summed out exactly: in networks with wide elimination factors, by
    enumerating each row's components of unknowns (:class:`ComponentSums`), rows
    with a large component left over; then by one batched variable elimination
    plan when its factors are small, else by each pattern of unknowns' own
    elimination (:func:`~bnclf.inference._elimination.sum_out` in both).
    """

    def __init__(self, families: Sequence[Sequence[int]], log_cpts: Sequence[ArrayLike], class_index: int) -> None:
        self.families = [tuple(int(v) for v in f) for f in families]
        self.log_cpts = [np.ascontiguousarray(t, dtype=float) for t in log_cpts]
        self.class_index = int(class_index)
        self.cardinalities = {}
        for family, table in zip(self.families, self.log_cpts):
            self.cardinalities.update(zip(family, table.shape))
        self.n_classes = self.cardinalities.get(self.class_index, 1)
        self.gather = FamilyGather(self.families, self.log_cpts, self.class_index, self.n_classes)
        self._components = ComponentSums(self)
        self._tables = [np.exp(t) for t in self.log_cpts]
        self._features = sorted(v for v in self.cardinalities if v != self.class_index)
        self._elimination = None  # (order, cells per row), computed on first use
        self._children = {v: [] for v in self._features}
        self._feeds_class = set()
        for family in self.families:
            for parent in family[1:]:
                if parent == self.class_index:
                    continue
                if family[0] == self.class_index:
                    self._feeds_class.add(parent)
                else:
                    self._children[parent].append(family[0])
        self._children_first = _children_first(self._features, self._children)
        has_class = self.class_index in self.cardinalities
        self._class_free = np.array([self.class_index not in f for f in self.families]) if has_class else None
        self._any_class_free = self._class_free is not None and bool(self._class_free.any())

    def _elimination_plan(self):
        """``(order, cells per row)``: every feature in the one elimination order (the class
        is never eliminated; it multiplies the widest factor by its states)."""
        if self._elimination is None:
            c = self.class_index
            scopes = [[v for v in family if v != c] for family in self.families]
            features = [v for v in self.cardinalities if v != c]
            found = elimination_order(scopes, features, self.cardinalities)
            self._elimination = (found.order, found.widest_cells * self.cardinalities.get(c, 1))
        return self._elimination

    def joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x_observed)`` as an array ``(n_samples, n_classes)``.

        A fully observed row that is impossible for every class because of a zero in
        a family *without* the class (possible only with ``m = 0`` and a class that
        is not a parent of every feature) gets the sum over the families that
        contain the class instead: the families without it are the same for every
        class, and for any ``m > 0`` they cancel from the posterior, so this is the
        posterior's limit as ``m -> 0``.
        """
        codes = np.asarray(codes, dtype=np.int64)
        out = self._joint(codes)
        if not self._any_class_free:
            return out
        dead = np.isneginf(out).all(axis=1) & (codes[:, self._features] >= 0).all(axis=1)
        if dead.any():
            entries = self.gather(codes[dead])
            out[dead] = entries[:, ~self._class_free].sum(axis=1)
        return out

    def _joint(self, codes: np.ndarray) -> np.ndarray:
        out, bad = self.gather._sums(codes)  # every row at once, unless a value is unknown
        if bad is None:
            return out
        if codes[bad] >= 0:  # a code past its variable's values
            self.gather._refuse(codes, bad)
        unknown = codes < 0
        complete = ~unknown[:, self._features].any(axis=1)  # the rows whose values are all known: the kernel's sums
        if complete.any():
            sums, bad = self.gather._sums(codes[complete])
            if bad is not None:
                self.gather._refuse(codes[complete], bad)
            out[complete] = sums
        barren = self._barren(unknown)
        simple = (barren == unknown).all(axis=1) & ~complete
        if simple.any():
            entries = self.gather(np.where(unknown[simple], 0, codes[simple]))
            keep = ~self._family_skipped(barren[simple])
            out[simple] = np.where(keep[:, :, None], entries, 0.0).sum(axis=1)
        rows = np.flatnonzero(~simple & ~complete)
        if not rows.size:
            return out
        widest = self._elimination_plan()[1]
        if widest >= _COMPONENTS_FROM_CELLS:  # wide factors: enumerate the unknowns' components
            rows = self._components(codes, unknown, barren, self._family_skipped(barren[rows]), rows, out)
            if not rows.size:
                return out
        if widest <= _BATCHED_VE_CELLS:  # one plan for every pattern of unknowns
            step = max(1, _config.CHUNK_CELLS // widest)
            for start in range(0, rows.size, step):
                chunk = rows[start : start + step]
                out[chunk] = self._eliminate(codes[chunk])
            return out
        # dense network: sum out only each pattern's own non-barren unknowns
        patterns, which = np.unique(unknown[rows], axis=0, return_inverse=True)
        for k, pattern in enumerate(patterns):
            group = rows[which.ravel() == k]
            out[group] = self._eliminate_pattern(codes[group], pattern)
        return out

    def _family_skipped(self, barren) -> np.ndarray:
        """``(n, n_families)``: the family's child is barren in that row (its CPT sums to one)."""
        children = np.array([f[0] for f in self.families])
        is_feature = children != self.class_index
        skipped = np.zeros((barren.shape[0], len(self.families)), dtype=bool)
        skipped[:, is_feature] = barren[:, children[is_feature]]
        return skipped

    def _barren(self, unknown) -> np.ndarray:
        """Per row, the unknown features with no observed descendant (children first).

        A feature that is a parent of the class is never barren: the class is
        scored at every value, so it acts as an observed child.
        """
        barren = unknown.copy()
        for v in self._feeds_class:
            barren[:, v] = False
        for v in self._children_first:
            children = self._children[v]
            if children:
                barren[:, v] &= barren[:, children].all(axis=1)
        return barren

    # -- some unknown: variable elimination ------------------------------------------
    def _eliminate_pattern(self, codes, pattern) -> np.ndarray:
        """Exact ``log P(c, x_observed)`` for rows that share one set of unknown features.

        Barren unknowns and their families are dropped; every other family is
        reduced to the observed values of its row (a gather), so only the
        remaining unknowns are summed out, in a min-weight order over the
        reduced factors. Families without unknowns are summed in log space.
        """
        n = codes.shape[0]
        barren = self._barren(pattern[None, :])[0]
        left = {v for v in self._features if pattern[v] and not barren[v]}
        log_part = np.zeros((n, self.n_classes))
        factors = []
        for family, table in zip(self.families, self.log_cpts):
            child = family[0]
            if child != self.class_index and barren[child]:
                continue
            keep = [v for v in family if v in left or v == self.class_index]
            observed = [v for v in family if v not in keep]
            moved = np.moveaxis(table, [family.index(v) for v in observed], list(range(len(observed))))
            reduced = (
                moved[tuple(codes[:, v] for v in observed)] if observed else np.broadcast_to(moved, (n,) + moved.shape)
            )
            if not any(v in left for v in keep):
                if keep:  # the class only: (n, C)
                    log_part += reduced.reshape(n, -1)
                else:
                    log_part += reduced.reshape(n, 1)
                continue
            factors.append((np.exp(reduced), ("n", *keep)))
        if not factors:
            return log_part
        local = [tuple(label for label in fl if label != "n") for _, fl in factors]
        scopes = [[v for v in scope if v != self.class_index] for scope in local]
        order = elimination_order(scopes, left, self.cardinalities).order
        return sum_out(factors, order, n, self.class_index, self.n_classes) + log_part

    # -- some unknown: batched variable elimination --------------------------------
    def _eliminate(self, codes) -> np.ndarray:
        """Exact ``log P(c, x_observed)`` for rows with unknown features.

        Factors carry labels: ``"n"`` for the row (batch) axis, variable indices
        for the others. Each elimination multiplies the factors that mention a
        feature and sums it out; the new factor is rescaled per row (its maximum
        kept in ``log_scale``) so that long products cannot underflow.
        """
        n = codes.shape[0]
        factors = [(t, f) for t, f in zip(self._tables, self.families)]
        for v in self._features:
            evidence = np.zeros((n, self.cardinalities[v]))
            known = codes[:, v] >= 0
            evidence[np.flatnonzero(known), codes[known, v]] = 1.0
            evidence[~known] = 1.0
            factors.append((evidence, ("n", v)))
        return sum_out(factors, self._elimination_plan()[0], n, self.class_index, self.n_classes)


class ComponentSums:
    """Sums rows' unknown features out component by component, by enumeration.

    Parameters
    ----------
    kernel : NetworkKernel
        The network: its families, log-CPTs, class, cardinalities and gather are read.

    Notes
    -----
    The plan of each set of enumerated features and kept families (a gather of those
    families and the table shift of every joint value) is built on first use and kept.
    """

    def __init__(self, kernel: NetworkKernel) -> None:
        self.families, self.log_cpts = kernel.families, kernel.log_cpts
        self.class_index, self.n_classes = kernel.class_index, kernel.n_classes
        self.cardinalities, self.gather = kernel.cardinalities, kernel.gather
        self.plans = {}

    def __call__(self, codes, unknown, barren, skipped, rows, out) -> np.ndarray:
        """Write ``log P(c, x_observed)`` of the rows at positions ``rows`` of ``codes`` into
        ``out`` (``(n, n_classes)``), summing their unknown features that are not barren out
        component by component; return the positions of the rows left for variable
        elimination.

        ``unknown`` and ``barren`` are ``(n, d)`` boolean (a feature's code is unknown; an
        unknown feature has no observed descendant), ``skipped`` is ``(len(rows),
        n_families)`` boolean (a family whose child is barren in that row: its CPT sums to
        one).

        In a row, the non-barren unknown features split into components: two are joined
        when they share a family. The families that touch a component involve no other
        unknown, so ``log P(c, x_observed)`` is the sum of the families that touch no
        unknown (gathered) and, per component, the log of the sum over the joint values
        of its features of the product of the families that touch it. That sum is done
        by enumeration: each joint value is a completed row, gathered like a fully
        observed one. Components with the same features (and kept families) are handled
        together for all their rows. Rows with a component of more than
        ``_ENUMERATED_VALUES`` joint values are returned, for variable elimination.
        """
        n, d = rows.size, codes.shape[1]
        live = unknown[rows] & ~barren[rows]
        members = self._family_members(d)  # (d, n_families): feature v in family f
        variables, owner = self._split(live)
        touched = (variables.astype(np.int64) @ members.astype(np.int64)) > 0
        kept = touched & ~skipped[owner]
        log_cards = np.log(np.array([self.cardinalities.get(v, 1) for v in range(d)], dtype=float))
        too_big = (variables @ log_cards > math.log(_ENUMERATED_VALUES) + 1e-9) | (kept.sum(axis=1) > 16)
        deferred = np.zeros(n, dtype=bool)
        deferred[owner[too_big]] = True
        safe = np.where(unknown[rows], 0, codes[rows])
        untouched = ~skipped & ~((live.astype(np.int64) @ members.astype(np.int64)) > 0)
        total = self._untouched_sums(safe, untouched)
        chosen = np.flatnonzero(~deferred[owner])
        self._add_component_sums(total, safe, variables[chosen], kept[chosen], owner[chosen])
        out[rows[~deferred]] = total[~deferred]
        return rows[deferred]

    def _split(self, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(variables, owner)`` of the components of the ``(n, d)`` boolean ``live``
        unknowns: ``variables[k]``, the features of component ``k`` (``(components, d)``
        boolean), and ``owner[k]``, its row. Two live features of a row are in one
        component when they share a family."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        n, d = live.shape
        first, second = self._couplings(d)
        both = live[:, first] & live[:, second]
        at, pair = np.nonzero(both)
        node_rows, node_vars = np.nonzero(live)
        graph = coo_matrix(
            (np.ones(at.size, dtype=np.int8), (at * d + first[pair], at * d + second[pair])), shape=(n * d, n * d)
        )
        labels = connected_components(graph, directed=False)[1][node_rows * d + node_vars]
        _, component = np.unique(labels, return_inverse=True)
        n_components = int(component.max()) + 1
        variables = np.zeros((n_components, d), dtype=bool)
        variables[component, node_vars] = True
        owner = np.zeros(n_components, dtype=np.int64)
        owner[component] = node_rows
        return variables, owner

    def _untouched_sums(self, safe: np.ndarray, untouched: np.ndarray) -> np.ndarray:
        """``(n, n_classes)``: each row's sum of the families marked in ``untouched``
        (``(n, n_families)``: the families that touch no unknown), gathered from the codes
        ``safe`` (0 at the unknowns) in batches of rows."""
        n = safe.shape[0]
        total = np.zeros((n, self.n_classes))
        step = max(1, _config.CHUNK_CELLS // max(1, self.gather.n_families * self.n_classes))
        for start in range(0, n, step):
            entries = self.gather(safe[start : start + step])
            total[start : start + step] = np.where(untouched[start : start + step, :, None], entries, 0.0).sum(axis=1)
        return total

    def _add_component_sums(self, total, safe, variables, kept, owner) -> None:
        """Add to ``total`` the enumerated sum of each component (its features
        ``variables[k]``, its families ``kept[k]``, its row ``owner[k]``); components with the
        same features and families are enumerated together for all their rows."""
        d = variables.shape[1]
        bits = np.concatenate([variables, kept], axis=1)
        packed = np.packbits(bits, axis=1)
        packed = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
        _, first, group = np.unique(packed, return_index=True, return_inverse=True)
        order = np.argsort(group, kind="stable")
        bounds = np.searchsorted(group[order], np.arange(first.size + 1))
        for k, at in enumerate(first):
            where = owner[order[bounds[k] : bounds[k + 1]]]
            component_vars = np.flatnonzero(bits[at, :d])
            families = tuple(np.flatnonzero(bits[at, d:]))
            total[where] += self._enumerate(safe[where], component_vars, families)

    def _enumerate(self, codes, variables, families) -> np.ndarray:
        """``log sum_values prod_families`` for rows whose ``variables`` are summed out,
        over the given families: ``(n, n_classes)``. ``codes`` holds 0 at ``variables``.

        The entry of family ``f`` at joint value ``a`` is at row ``base_f(x) + shift_f(a)``
        of its table: the observed part once per row, the enumerated part once per group.
        """
        plans = self.plans
        key = (tuple(variables), families)
        plan = plans.get(key)
        if plan is None:
            gather = FamilyGather(
                [self.families[f] for f in families],
                [self.log_cpts[f] for f in families],
                self.class_index,
                self.n_classes,
            )
            cards = [self.cardinalities[v] for v in variables]
            grid = np.indices(cards).reshape(len(cards), -1)  # (len(variables), joint values)
            strides = np.zeros((gather.n_families, codes.shape[1]), dtype=np.int64)
            for slot in range(gather._vars.shape[1]):
                np.add.at(strides, (np.arange(gather.n_families), gather._vars[:, slot]), gather._strides[:, slot])
            plan = plans[key] = (gather, strides[:, variables] @ grid, np.exp(gather._rows))
        gather, shifts, probabilities = plan
        values, n = shifts.shape[1], codes.shape[0]
        out = np.empty((n, self.n_classes))
        step = max(1, _config.CHUNK_CELLS // max(1, values * self.n_classes))
        for start in range(0, n, step):
            base = gather._family_rows(codes[start : start + step])  # (n_families, rows)
            # a product of at most 16 CPT entries: no underflow for any table bnclf fits
            product = probabilities.take(base[0][:, None] + shifts[0], axis=0)
            for f in range(1, gather.n_families):
                product *= probabilities.take(base[f][:, None] + shifts[f], axis=0)
            with np.errstate(divide="ignore"):
                out[start : start + step] = np.log(product.sum(axis=1))
        return out

    def _family_members(self, d) -> np.ndarray:
        """``(d, n_families)`` boolean: feature ``v`` is a variable of family ``f``."""
        members = np.zeros((d, len(self.families)), dtype=bool)
        for f, family in enumerate(self.families):
            for v in family:
                if v != self.class_index and v < d:
                    members[v, f] = True
        return members

    def _couplings(self, d) -> tuple[np.ndarray, np.ndarray]:
        """The pairs of features that share a family (each pair once)."""
        pairs = sorted(
            {
                (min(a, b), max(a, b))
                for family in self.families
                for a in family
                for b in family
                if a != b and self.class_index not in (a, b) and max(a, b) < d
            }
        )
        array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        return array[:, 0], array[:, 1]


class StackedKernel:
    """Joint log-likelihoods of several networks over the same variables, sharing gathers.

    Parameters
    ----------
    members : list
        The member networks (members of an ensemble, or the class-conditional
        networks of a multinet): objects with ``families``, ``log_cpts``,
        ``class_index`` and a ``kernel`` (a :class:`NetworkKernel`, built only
        when rows with unknown values need it), such as
        :class:`bnclf.network.Network`.
    n_classes : int
        Columns of each member's result: the number of classes, or 1 for
        class-conditional members.

    Notes
    -----
    Members of an ensemble share many families: the TANs of ATAN share the
    class prior and, for every tree edge, one of its two orientations; the
    SPODEs of AODE share the class prior and ``P(x_p | c)``. Identical families
    (same variables, same table) are gathered once, into an array ``E`` of
    shape ``(n_unique, n, n_classes)`` by one fancy index per batch of rows, and
    each member's sum is one product with the sparse 0/1 incidence matrix of
    members and unique families. Batches are sized to stay in cache. Rows with
    unknown values go through each member's own exact kernel.
    """

    def __init__(self, members: Iterable[Network], n_classes: int) -> None:
        self.members = list(members)
        self.n_classes = int(n_classes)
        self.gather = None  # built on first use

    def _build(self):
        class_index = self.members[0].class_index
        families, tables, index, pairs = [], [], {}, []
        for m, member in enumerate(self.members):
            for family, table in zip(member.families, member.log_cpts):
                key = (family, table.shape, hash(table.tobytes()))
                f = index.get(key)
                if f is None or not np.array_equal(tables[f], table):
                    f = len(families)
                    index[key] = f
                    families.append(family)
                    tables.append(table)
                pairs.append((f, m))
        from scipy.sparse import csr_matrix

        f_index, m_index = np.array(pairs, dtype=np.int64).reshape(-1, 2).T
        # sparse: only a member's own families enter its sum (no 0 * -inf when m = 0)
        self._incidence = csr_matrix(
            (np.ones(len(pairs)), (m_index, f_index)), shape=(len(self.members), len(families))
        )
        self.gather = FamilyGather(families, tables, class_index, self.n_classes)
        self._features = sorted({v for f in families for v in f if v != class_index})

    def _shared(self, codes: np.ndarray) -> np.ndarray:
        gather = self.gather
        codes = gather._check(codes)
        n, n_members, n_classes = codes.shape[0], len(self.members), self.n_classes
        out = np.empty((n, n_members, n_classes))
        step = max(1, _SHARED_CELLS // max(1, gather.n_families * n_classes))
        for s in range(0, n, step):
            block = codes[s : s + step]
            entries = gather._rows.take(gather._family_rows(block), axis=0)  # (n_unique, rows, C)
            sums = self._incidence @ entries.reshape(gather.n_families, -1)
            out[s : s + step] = sums.reshape(n_members, block.shape[0], n_classes).transpose(1, 0, 2)
        return out

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        """``(n_samples, n_members, n_classes)`` joint log-likelihoods of every member."""
        if self.gather is None:
            self._build()
        codes = np.asarray(codes, dtype=np.int64)
        unknown = (codes[:, self._features] < 0).any(axis=1)
        if not unknown.any():
            return self._shared(codes)
        out = np.empty((codes.shape[0], len(self.members), self.n_classes))
        if (~unknown).any():
            out[~unknown] = self._shared(codes[~unknown])
        rows = np.flatnonzero(unknown)
        for m, member in enumerate(self.members):
            out[rows, m] = member.kernel.joint_log_likelihood(codes[rows])
        return out


def log_weighted_sum(log_values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``log sum_m w_m exp(v_m)`` over axis 1 of ``(n, M, C)`` values; weights ``(M,)`` or ``(n, M)``.

    Values are shifted by their maximum over the members with a positive
    weight, for each row and class, so a class far below the others keeps a
    finite value. Members with zero weight are left out (their values may be
    ``-inf``); a row and class whose every member is left out, or gives ``-inf``,
    gives ``-inf``, and a NaN value gives NaN. One compiled pass
    (:func:`bnclf.inference._spodes.log_weighted_sum`), rows cut among threads.
    """
    values = np.ascontiguousarray(log_values, dtype=float)
    n, m, c = values.shape
    w = np.asarray(weights, dtype=float)
    per_row = w.ndim == 2
    if w.shape not in ((), (m,), (n, m)):
        raise ValueError(f"weights of shape {w.shape} for {n} rows of {m} members.")
    if not per_row:  # one row of weights for every row: its logarithms taken once
        w = np.full((1, m), w) if w.ndim == 0 else w.reshape(1, m)
    out = np.empty((n, c))
    work = float(values.size)
    if too_small_to_cut(work):
        _log_weighted_sum(values, w, per_row, out, 0, n)
    else:
        run_parts(lambda a, b: _log_weighted_sum(values, w, per_row, out, a, b), even_parts(n, work))
    return out


def log_weighted_posterior(log_joints: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``log sum_m w_m P_m(c | x)`` from members' joints ``(n, M, C)``; weights ``(M,)`` or ``(n, M)``.

    Each member's log posterior is computed exactly (:func:`log_posterior`), then
    combined by :func:`log_weighted_sum`, so a class far below the others keeps
    a finite log posterior. A member whose every class has probability zero
    contributes the uniform posterior.
    """
    n, m, c = log_joints.shape
    posteriors = log_posterior(log_joints.reshape(n * m, c)).reshape(n, m, c)
    return log_weighted_sum(posteriors, weights)


def log_posterior(jll: np.ndarray) -> np.ndarray:
    """Normalize joint log-likelihoods into log posteriors over the last axis (classes).

    A row whose every class has probability zero (possible only with ``m = 0``)
    gets the uniform posterior rather than NaN, and so does a row with a NaN or
    ``+inf``. One compiled pass (:func:`bnclf.inference._posterior.log_posteriors`),
    rows cut among threads.
    """
    values = np.asarray(jll, dtype=float)
    if values.ndim == 0:
        raise ValueError("log_posterior takes an array with a class axis.")
    flat = np.ascontiguousarray(values.reshape(-1, values.shape[-1]) if values.ndim != 2 else values)
    n = flat.shape[0]
    out = np.empty(flat.shape)
    work = float(flat.size)
    if too_small_to_cut(work):
        log_posteriors(flat, out, 0, n)
    else:
        run_parts(lambda a, b: log_posteriors(flat, out, a, b), even_parts(n, work))
    return out.reshape(values.shape)


def _children_first(features: list[int], children: dict[int, list[int]]) -> list[int]:
    """The features in an order where each comes after all its children (Kahn's algorithm
    on the feature arcs, reversed)."""
    waiting = dict.fromkeys(features, 0)
    for v in features:
        for child in children[v]:
            waiting[child] += 1
    ready = [v for v in features if waiting[v] == 0]
    order = []
    while ready:
        v = ready.pop()
        order.append(v)
        for child in children[v]:
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    if len(order) != len(features):
        raise ValueError("the families do not form a directed acyclic graph.")
    return order[::-1]
