"""AODE's kernel: the joint log-likelihood of every SPODE from the all-pairs log-CPT table.

In an averaged one-dependence estimator (Webb, Boughton & Wang 2005) each feature in
turn is the super-parent of all the others, so the children's log-CPTs of all the
members are the blocks of one ``(R, R, n_classes)`` table of ``log P(x_j | x_p, c)``
(:func:`bnclf.learn._parameters.child_given_pair_log_table`, whose cells a prediction forms
for the values its rows hold). A row's SPODE sums are read from that table directly, without
building a network per member, by one compiled kernel
(:func:`bnclf.inference._spodes.spode_joints`).
"""

from __future__ import annotations

import numpy as np

from bnclf._threads import even_parts, run_parts, too_small_to_cut
from bnclf.inference._spodes import spode_joints, values_outside
from bnclf.learn._parameters import PairLogTable


def _diagonal_cells(owner: np.ndarray, offsets: np.ndarray, cardinalities: np.ndarray) -> np.ndarray:
    """The rows ``g * width + h`` of the flat pair table whose values ``g`` and ``h`` belong to
    one feature (the diagonal blocks ``j == p``; ``owner``: each value's feature), in one array."""
    width = owner.size
    size = cardinalities[owner]  # each value's block: the values of its own feature
    first = np.repeat(np.arange(owner.size) * width + offsets[owner], size)
    step = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
    return first + step


class SuperParentKernel:
    """Joint log-likelihoods of AODE's members (every SPODE, then naive Bayes), and their
    weighted combination.

    Parameters
    ----------
    pair_tables : ndarray (R, R, n_classes), or PairLogTable
        ``log P(x_j | x_p, c)`` for every ordered pair, laid out as
        :meth:`bnclf.counts.CountCache.pair_blocks` (rows: child values, columns:
        parent values); of a :class:`bnclf.learn._parameters.PairLogTable` the kernel reads
        only :meth:`~bnclf.learn._parameters.PairLogTable.sub_table` of the values in use.
    offsets, cardinalities : ndarray (d,)
        First row of each feature's block, and its number of values.
    spode_priors : ndarray (d, n_classes)
        ``log P(c)`` of each SPODE.
    spode_parents : ndarray (R, n_classes)
        ``log P(x_p | c)`` of each SPODE's super-parent, the rows of feature ``p`` at
        ``offsets[p]``.
    nb_prior : ndarray (n_classes,)
        Naive Bayes' class prior.
    nb_children : ndarray (R, n_classes)
        Naive Bayes' ``log P(x_j | c)``, laid out as ``spode_parents``.

    Notes
    -----
    With ``g_i = offsets[i] + x_i`` the position of each value, SPODE ``p``'s children sum to
    ``sum_{j != p} pair_tables[g_j, g_p, :]``; the compiled kernel
    (:func:`bnclf.inference._spodes.spode_joints`) adds them for each row, super-parent and
    class, and sums an unknown value out exactly (an unknown child is left out, an unknown
    super-parent summed over its values).

    The kernel reads the table laid out by super-parent value (a super-parent value's
    children in one stripe), of the values in use: the values the rows hold and every value
    of a feature a row leaves unknown. The table of one call is kept, and read again by
    later calls whose values it holds; a call with a value it lacks takes the table of the
    values of both, so the table only grows, up to every value. The sums do not depend on
    which values the table holds: each is the same entries added in the same order.
    """

    def __init__(
        self,
        pair_tables: np.ndarray | PairLogTable,
        offsets: np.ndarray,
        cardinalities: np.ndarray,
        spode_priors: np.ndarray,
        spode_parents: np.ndarray,
        nb_prior: np.ndarray,
        nb_children: np.ndarray,
    ) -> None:
        d = len(offsets)
        cardinalities = np.ascontiguousarray(cardinalities, dtype=np.int64)
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        if not isinstance(pair_tables, PairLogTable):  # an array: its diagonal blocks zeroed
            tables = np.asarray(pair_tables, dtype=float)
            diagonal = _diagonal_cells(np.repeat(np.arange(d), cardinalities), self.offsets, cardinalities)
            if np.take(tables.reshape(-1, tables.shape[2]), diagonal, axis=0).any():  # j == p: adds nothing
                tables = tables.copy()
                tables.reshape(-1, tables.shape[2])[diagonal] = 0.0
            pair_tables = PairLogTable(self.offsets, cardinalities, tables.shape[2], table=tables)
        self._pairs = pair_tables
        self._width = pair_tables.shape[0]
        self.n_classes = pair_tables.shape[2]
        self.priors = np.ascontiguousarray(spode_priors, dtype=float)
        self.parents = np.ascontiguousarray(spode_parents, dtype=float)  # (R, n_classes), rows by value position
        self.nb_prior = np.ascontiguousarray(nb_prior, dtype=float)
        self.nb_children = np.ascontiguousarray(nb_children, dtype=float)
        self.parents_per_feature = cardinalities
        self.d = d
        self._owner = np.repeat(np.arange(d), cardinalities)  # each value's feature
        self._in_use = None  # (place of each value, their sub-table by super-parent value), made on first use
        self._no_weights = np.zeros((1, d + 1))  # what the kernel takes in place of what a call does not use
        self._no_members = np.empty((0, d + 1, self.n_classes))
        self._no_rows = np.empty((0, self.n_classes))

    def __getstate__(self) -> dict:
        return dict(self.__dict__, _in_use=None)  # the sub-table is made again when needed

    @property
    def tables(self) -> np.ndarray:
        """The whole ``(R, R, n_classes)`` table (diagonal blocks zero), made on first use."""
        return self._pairs.full()

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        """``(n_samples, d + 1, n_classes)``: every SPODE's ``log P_p(c, x)``, then naive Bayes'.

        Unknown values (code ``-1``) are summed out exactly: in a SPODE an
        unknown child has no children, so its CPT sums to one and it is left
        out; an unknown super-parent is summed over its values (a log-sum-exp
        over ``r_p`` terms).
        """
        codes = np.asarray(codes, dtype=np.int64)
        members = np.empty((codes.shape[0], self.d + 1, self.n_classes))
        self._run(codes, self._no_weights, False, members, self._no_rows, False)
        return members

    def log_weighted_sum(self, codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """``(n_samples, n_classes)``: ``log sum_m w_m P_m(c, x)`` over the members of
        :meth:`__call__` with weights ``(d + 1,)`` or ``(n_samples, d + 1)`` (or one number
        for every member), as :func:`bnclf.inference._kernels.log_weighted_sum` combines
        them, in one pass without the ``(rows, members, classes)`` array. A member of weight
        zero is left out."""
        codes = np.asarray(codes, dtype=np.int64)
        weights = np.asarray(weights, dtype=float)
        per_row = weights.ndim == 2
        if weights.shape not in ((), (self.d + 1,), (codes.shape[0], self.d + 1)):
            raise ValueError(f"weights of shape {weights.shape} for {codes.shape[0]} rows of {self.d + 1} members.")
        if not per_row:  # one row's weights for every row, their logarithms taken once
            weights = np.full((1, self.d + 1), weights) if weights.ndim == 0 else weights.reshape(1, -1)
        out = np.empty((codes.shape[0], self.n_classes))
        self._run(codes, weights, per_row, self._no_members, out, True)
        return out

    def _run(self, codes, weights, per_row, members, out, combine) -> None:
        """:func:`~bnclf.inference._spodes.spode_joints` of every row, cut among threads."""
        n, d = codes.shape[0], self.d
        if codes.ndim != 2 or codes.shape[1] != d:
            raise ValueError(f"the SPODE kernel takes codes of {d} features, not of shape {codes.shape}.")
        tables = (*self._table_for(codes), self.priors, self.parents, self.nb_prior, self.nb_children)
        arguments = (codes, self.offsets, self.parents_per_feature, *tables, weights, per_row, members, out, combine)
        work = float(n) * d * d * self.n_classes
        if too_small_to_cut(work):
            bad = spode_joints(*arguments, 0, n)
        else:
            found = []
            run_parts(lambda a, b: found.append(spode_joints(*arguments, a, b)), even_parts(n, work))
            bad = min((b for b in found if b >= 0), default=-1)
        if bad >= 0:
            row, j = divmod(bad, d)
            raise ValueError(
                f"the SPODE kernel got code {int(codes[row, j])} for feature {j}, which has "
                f"{int(self.parents_per_feature[j])} values."
            )

    def _table_for(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(place, table)``: the kept sub-table (:class:`SuperParentKernel`'s Notes) when it
        holds every value the rows read, else the sub-table of its values and theirs, kept."""
        held = self._in_use
        if held is None:
            held = (np.full(self._width, -1, dtype=np.int64), np.empty((0, self.n_classes)))
        elif not values_outside(codes, self.offsets, self.parents_per_feature, held[0]):
            return held
        mark = np.zeros(self._width, dtype=np.int8)
        if not values_outside(codes, self.offsets, self.parents_per_feature, held[0], mark):
            return held
        used = np.flatnonzero((held[0] >= 0) | (mark != 0))
        place = np.full(self._width, -1, dtype=np.int64)
        place[used] = np.arange(used.size)
        table = np.array(self._pairs.sub_table(used, True), dtype=float).reshape(used.size, used.size, -1)
        owner = self._owner[used]
        table[owner[:, None] == owner] = 0.0  # the diagonal blocks: the kernel adds them as children
        self._in_use = held = (place, table.reshape(used.size * used.size, self.n_classes))
        return held
