"""Parameters: log-CPT arrays from count tables.

Every table follows the family convention of :mod:`bnclf.counts`: axes
``(child, *parents)`` with the class, when it is a parent, on the last axis.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from bnclf._threads import even_parts, run_parts, too_small_to_cut
from bnclf.counts._cache import CountCache
from bnclf.counts._measures import m_estimate
from bnclf.learn._pair_tables import _PairCells


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
        blocks (``j == p``) are zero. The table is made when first asked for, and
        :meth:`~PairLogTable.sub_table` gives the cells of some values alone.

    Notes
    -----
    The counts are :meth:`CountCache.pair_counts_in_use`: a cell of a value that no row
    holds has no count, so its entry is ``log(alpha_j) - log(N(x_p, c) + beta_j)``, and only
    the cells of the values in use take a logarithm of their own. The entries are those of
    the full formula over every cell, to the last bit of the C library's logarithm; with
    weighted rows, the denominators' counts are sums of the weighted counts, in increasing
    value order. With whole counts, the denominator of a child feature that every row knows
    is the parent value's own count, the diagonal ``N(x_p, x_p, c)`` (the feature's values
    partition the rows), so only features with unknown values are summed.

    The fit keeps what every cell reads (:class:`bnclf.learn._pair_tables._PairCells`: the
    counts, the denominators' logarithms, the logarithms of whole counts) and forms cells
    when asked: a prediction reads the cells of the values its rows hold, and the whole
    table is made for the member networks, an export or a model file, the same numbers
    either way.
    """
    d, n_classes = cache.n_features, cache.n_classes
    cards = cache.cardinalities[:d].astype(np.int64)
    cache.check_all_pairs_size(what="log-CPT")
    counts, used, offsets = cache.pair_counts_in_use()
    owner = np.repeat(np.arange(d, dtype=np.int64), cards)  # feature of each row of the table
    complete = ~np.asarray(cache.has_unknown[:d], dtype=bool)  # every row knows the feature
    cells = _PairCells(
        counts, used, owner, cards, _per_feature(alpha, d), _per_feature(beta, d), cache.whole_counts, complete
    )
    return PairLogTable(offsets, cards, n_classes, cells=cells)


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
        The whole table, when it is given whole (a loaded model, an array).
    cells : _PairCells, optional
        What the cells read (:class:`bnclf.learn._pair_tables._PairCells`), when the table
        is made from counts: every fit.

    Notes
    -----
    A table made from counts holds what its cells read until the whole table is made, and
    the table alone from then on (the pair counts of the values in use are as large as the
    table when every value is in use); a table given whole holds it alone. A pickle holds the
    whole table. Threads may ask at once: each makes the same table, and a reader never
    finds neither.
    """

    def __init__(
        self,
        offsets: ArrayLike,
        cardinalities: ArrayLike,
        n_classes: int,
        table: np.ndarray | None = None,
        cells: _PairCells | None = None,
    ) -> None:
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.cardinalities = np.asarray(cardinalities, dtype=np.int64)
        width = int(self.cardinalities.sum())
        self.shape = (width, width, int(n_classes))
        if (table is None) == (cells is None):
            raise ValueError("PairLogTable: give the whole table or what its cells read, one of the two.")
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
            table = np.empty(self.shape)
            work = float(table.size)  # one step per entry
            if too_small_to_cut(work):  # one part, without asking for the thread count
                cells.write_rows(table, 0, self.shape[0])
            else:
                run_parts(functools.partial(cells.write_rows, table), even_parts(self.shape[0], work))
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
        out = np.empty((v * v, n_classes))
        used = np.ascontiguousarray(used, dtype=np.int64)
        work = float(out.size)  # one step per entry
        if too_small_to_cut(work):
            cells.write_cells(out, used, bool(by_parent), 0, v)
        else:
            run_parts(functools.partial(cells.write_cells, out, used, bool(by_parent)), even_parts(v, work))
        return out.reshape(v, v * n_classes)
