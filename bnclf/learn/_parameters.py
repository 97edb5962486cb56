"""Parameters: log-CPT arrays from count tables.

Every table follows the family convention of :mod:`bnclf.counts`: axes
``(child, *parents)`` with the class, when it is a parent, on the last axis.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from bnclf._compiled import compiled_loops
from bnclf._threads import even_parts, run_parts, too_small_to_cut
from bnclf.counts._cache import CountCache
from bnclf.counts._measures import m_estimate

_LOG_CELL_NS = 1.5
"""Nanoseconds of the compiled log-CPT table per cell (a count's logarithm read from a table,
written into a fresh array: splice's 691,200 cells in about 1 ms on the benchmark machine),
to cut its rows among threads."""


def m_estimated_log_cpts(cache: CountCache, families: Sequence[Sequence[int]], m: float = 1.0) -> list[np.ndarray]:
    """Natural-log CPTs ``log P(child | parents)`` by m-estimation, one per family.

    ``P(x | pa) = (N(x, pa) + m/|X|) / (N(pa) + m)`` (Mitchell 1997; used with
    m = 1 by Sun et al. 2017 and the ETAN paper); the class prior is the
    parentless family ``(N(c) + m/|C|) / (N + m)``. ``m = 0`` is maximum
    likelihood (Kelner & Lerner 2012).

    Notes
    -----
    ``N(pa)`` is the sum of the family's own table over the child axis. It
    equals the parent count except under ``missing="ignore"``, where rows with
    a missing child are left out of both numerator and denominator
    (available-case estimation). With ``m = 0`` a parent configuration never
    seen gets the uniform distribution, and a child value never seen with a seen
    configuration gets probability 0 (log -inf).
    """
    if m < 0:
        raise ValueError(f"m={m!r} must be >= 0 (m=0 is maximum likelihood, m=1 the default).")
    cache.counts_many(families)
    tables = [cache.counts(family) for family in families]
    by_shape: dict[tuple, list[int]] = {}
    for k, table in enumerate(tables):
        by_shape.setdefault(table.shape, []).append(k)
    out: list = [None] * len(tables)
    with np.errstate(divide="ignore"):
        for members in by_shape.values():  # tables of one shape at once, stacked on a last axis
            stacked = np.stack([tables[k] for k in members], axis=-1)
            logs = np.ascontiguousarray(np.moveaxis(np.log(m_estimate(stacked, m)), -1, 0))
            for k, log_cpt in zip(members, logs):
                out[k] = log_cpt
    return out


def child_given_pair_log_cpts(cache: CountCache, alpha: ArrayLike, beta: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``(log_tables, offsets)``: the whole table of :func:`child_given_pair_log_table`."""
    table = child_given_pair_log_table(cache, alpha, beta)
    return table.full(), table.offsets


def child_given_pair_log_table(cache: CountCache, alpha: ArrayLike, beta: ArrayLike) -> PairLogTable:
    """``log P(x_j | x_p, c)`` for every ordered feature pair at once.

    ``P(x_j | x_p, c) = (N(x_j, x_p, c) + alpha_j) / (N(x_p, c) + beta_j)``, with
    ``N(x_p, c)`` the sum of the pair's own table over ``x_j`` (as
    :func:`m_estimated_log_cpts` does) and the uniform ``1/r_j`` where the
    denominator is zero. m-estimation is ``alpha_j = m / r_j``, ``beta_j = m``;
    Laplace is ``alpha_j = 1``, ``beta_j = r_j``.

    Parameters
    ----------
    cache : CountCache
    alpha, beta : array of shape (n_features,) or float
        Per child feature.

    Returns
    -------
    PairLogTable
        Its :meth:`~PairLogTable.full` table has shape ``(R, R, n_classes)`` (see
        :meth:`CountCache.pair_blocks`); the CPT of the family ``(j, p, class)`` is
        ``full()[offsets[j]:offsets[j] + r_j, offsets[p]:offsets[p] + r_p]``. The diagonal
        blocks (``j == p``) are zero. With the compiled loops the table is made when first
        asked for, and :meth:`~PairLogTable.sub_table` gives the cells of some values alone.

    Notes
    -----
    The counts are :meth:`CountCache.pair_counts_in_use`: a cell of a value that no
    row holds has no count, so its entry is ``log(alpha_j) - log(N(x_p, c) + beta_j)``,
    written a child feature at a time, and only the cells of the values in use take a
    logarithm of their own. The entries are those of the full formula over every cell,
    bit for bit when the counts are exact integers (unweighted rows, integer weights);
    non-integer weights are summed in another order, to within rounding. With the rows'
    whole counts, the denominator of a child feature that every row knows is the parent
    value's own count, the diagonal ``N(x_p, x_p, c)`` (the feature's values partition the
    rows), so only features with unknown values are summed.

    With the compiled loops the fit keeps what every cell reads (the counts, the
    denominators' logarithms, the logarithms of whole counts) and forms cells when asked:
    a prediction reads the cells of the values its rows hold (splice: 240 of 480 values, a
    quarter of the cells), and the whole table is made for the member networks, an export or
    a model file, the same numbers either way.
    """
    d, n_classes = cache.n_features, cache.n_classes
    cards = cache.cardinalities[:d]
    width = int(cards.sum())
    cache.check_all_pairs_size(what="log-CPT")
    counts, used, offsets = cache.pair_counts_in_use()
    owner = np.repeat(np.arange(d), cards)  # feature of each row of the table
    alpha, beta = _per_feature(alpha, d), _per_feature(beta, d)
    # N(x_p, c) summed over each child's block, one row per child feature: the values in use
    # are summed by feature, a parent value no row holds has no rows
    loops = compiled_loops()
    held_by = owner[used]
    held = np.bincount(held_by, minlength=d) > 0
    sums = np.zeros((d, used.size, n_classes) if loops is None or not cache.whole_counts else (0, 0, 0))
    if used.size and sums.size and cache.whole_counts:  # whole numbers: exact in any order
        complete = held & ~cache._has_unknown[:d]  # every row knows j: its values sum to the diagonal
        sums[complete] = np.diagonal(counts).T
        for j in np.flatnonzero(held & ~complete):
            lo, hi = np.searchsorted(held_by, [j, j + 1])
            sums[j] = counts[lo:hi].sum(axis=0)
    elif used.size and sums.size:  # weighted sums (summed by the loop when whole counts)
        sums[held] = np.add.reduceat(counts, np.searchsorted(held_by, np.flatnonzero(held)), axis=0)
    if loops is not None:  # the same steps, a cell at a time (diagonal blocks zero), rows cut among threads
        counts, cards = np.ascontiguousarray(counts), cards.astype(np.int64)
        complete = ~cache._has_unknown[:d] if not sums.size else np.zeros(d, dtype=bool)  # summed as it is
        shared = loops.log_table_denominators(counts, sums, used, owner, cards, alpha, beta, width, complete)
        cells = (counts, shared[0], owner, cards, alpha, beta, *shared[1:])
        return PairLogTable(offsets, cards, n_classes, cells=cells)
    denominator = np.repeat(beta[:, None, None], width, axis=1).repeat(n_classes, axis=2)
    denominator[:, used] += sums
    with np.errstate(divide="ignore", invalid="ignore"):
        log_denominator = np.log(denominator)
        log_alpha = np.log(alpha)
        tables = np.empty((width, width, n_classes))
        for j, (start, r) in enumerate(zip(offsets, cards)):  # a cell no row counts: log(0 + alpha_j)
            tables[start : start + r] = log_alpha[j] - log_denominator[j]
        in_use = np.add(counts, alpha[held_by, None, None])
        np.log(in_use, out=in_use)
        by_feature = log_denominator[:, used]  # (child feature, parent value in use, class)
        for j, (lo, hi) in enumerate(zip(*np.searchsorted(held_by, [np.arange(d), np.arange(1, d + 1)]))):
            in_use[lo:hi] -= by_feature[j]  # the rows of child feature j's values in use
        # cells (used[a], used[b]) as rows of the flat (R * R, n_classes) table: one put
        tables.reshape(width * width, n_classes)[(used[:, None] * width + used).ravel()] = in_use.reshape(-1, n_classes)
    empty = denominator <= 0  # a parent configuration with no rows: uniform
    if empty.any():
        uniform = np.broadcast_to(-np.log(cards[owner].astype(float))[:, None, None], tables.shape)
        empty = empty[owner]
        tables[empty] = uniform[empty]
    for start, r in zip(offsets, cards):  # j == p: not a family
        tables[start : start + r, start : start + r] = 0.0
    return PairLogTable(offsets, cards, n_classes, table=tables)


def _per_feature(value: ArrayLike, d: int) -> np.ndarray:
    """``value`` (a number, or one per feature) as a contiguous float array of ``d`` entries."""
    if isinstance(value, np.ndarray) and value.shape == (d,):
        return np.ascontiguousarray(value, dtype=float)
    if np.ndim(value) == 0:
        return np.full(d, float(value))
    return np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=float), (d,)))


class PairLogTable:
    """The table of :func:`child_given_pair_log_table`: ``(R, R, n_classes)`` entries
    ``log P(x_j | x_p, c)`` of every child value ``g`` (row) under every parent value ``h``
    (column) and class, made whole on first need, or only the cells of some values.

    Parameters
    ----------
    offsets, cardinalities : ndarray (d,)
        Each feature's first value position and number of values.
    n_classes : int
    table : ndarray (R, R, n_classes), optional
        The whole table, when it is made at once (the numpy path, a loaded model).
    cells : tuple, optional
        What the compiled loops' cells read (:func:`bnclf._compiled_loops.log_table_rows`'
        arguments after its table), kept until the whole table is made.

    Notes
    -----
    Once the whole table is made, what its cells read is dropped: the object then holds the
    table alone, as a model did before (the pair counts of the values in use are as large
    as the table when every value is in use). A pickle holds the whole table. Threads may
    ask at once: each makes the same table, and a reader never finds neither.
    """

    def __init__(
        self,
        offsets: ArrayLike,
        cardinalities: ArrayLike,
        n_classes: int,
        table: np.ndarray | None = None,
        cells: tuple | None = None,
    ) -> None:
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.cardinalities = np.asarray(cardinalities, dtype=np.int64)
        width = int(self.cardinalities.sum())
        self.shape = (width, width, int(n_classes))
        self._table = None if table is None else np.asarray(table, dtype=float)
        self._cells = cells if table is None else None

    def __array__(self, dtype: DTypeLike = None, copy: bool | None = None) -> np.ndarray:
        table = self.full()
        return table.astype(dtype, copy=bool(copy)) if dtype is not None else (table.copy() if copy else table)

    def __getstate__(self) -> dict:
        return dict(self.__dict__, _table=self.full(), _cells=None)  # the whole table, not its inputs

    def full(self) -> np.ndarray:
        """The whole table (made once, its rows cut among threads)."""
        table = self._table
        if table is None:
            cells = self._cells
            if cells is None:  # made meanwhile by another thread (the table is set first)
                return self._table
            from bnclf import _compiled_loops as loops  # cells are kept only where the loops ran

            table = np.empty(self.shape)
            work = float(table.size) * _LOG_CELL_NS
            if too_small_to_cut(work):  # one part, without asking for the thread count
                loops.log_table_rows(table, *cells, 0, self.shape[0])
            else:
                run_parts(functools.partial(loops.log_table_rows, table, *cells), even_parts(self.shape[0], work))
            self._table = table
            self._cells = None  # what the cells read: no longer needed
        return table

    def sub_table(self, used: np.ndarray, by_parent: bool = False) -> np.ndarray:
        """``(V, V * n_classes)``: the cells among the value positions ``used`` (increasing),
        row ``a`` the child value ``used[a]`` and its columns each parent value in use and
        class; with ``by_parent``, row ``a`` the parent value and its columns the children.
        Formed cell by cell while the whole table is not made (the same numbers), else taken
        from it."""
        v, n_classes = used.size, self.shape[2]
        cells = self._cells  # before the table: full() sets the table before it drops the cells
        if cells is None:
            flat = self._table.reshape(-1, n_classes)
            rows, columns = (used[None, :], used[:, None]) if by_parent else (used[:, None], used)
            return np.take(flat, (rows * self.shape[0] + columns).ravel(), axis=0).reshape(v, v * n_classes)
        from bnclf import _compiled_loops as loops

        out = np.empty((v * v, n_classes))
        used = np.ascontiguousarray(used, dtype=np.int64)
        part = functools.partial(loops.log_table_cells, out, used, bool(by_parent), cells)
        run_parts(part, even_parts(v, float(out.size) * _LOG_CELL_NS))
        return out.reshape(v, v * n_classes)
