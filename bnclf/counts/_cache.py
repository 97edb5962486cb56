"""Count tables of coded rows, counted on demand.

Counts are the one substrate of bnclf: every structure score and every CPT is a pure
function of count arrays built here by the counting kernels (:mod:`bnclf.counts._tally`).
Variables are numbered ``0 .. d-1`` for the features and ``d`` for the class, so a *family*
is a tuple of variable indices and its count table has one axis per variable in that order.
All ``(x_i, x_j, class)`` tables and the pair measures come from the counts of every pair of
values in use (:mod:`bnclf.counts._bitsets`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

import bnclf.counts._tally as _tally
from bnclf._config import TableTooLargeError, _size, memory_budget
from bnclf._entropy import xlogx
from bnclf._threads import even_parts, run_parts
from bnclf.counts._bitsets import CHUNK_WORDS, pair_counts_by_bits, weighted_pair_counts
from bnclf.counts._measures import conditional_mutual_information, label_conditional_mi
from bnclf.counts._rows import _SegmentSums, _VariableRows
from bnclf.encoding._frames import DiscreteData

if TYPE_CHECKING:
    from bnclf.counts._summary import CountSummary

_PAIR_BLOCK_CELLS = 2**24
"""Largest all-pairs count array (cells) that :meth:`CountCache.pair_blocks` builds."""


class CountCache:
    """Memoized count tables of one data set (or one CV fold).

    Parameters
    ----------
    data : DiscreteData
        Coded training data with class codes. Rows whose code is negative for a
        variable of a family (``missing="ignore"``) are left out of that
        family's table only. With ``data.weights`` a row counts as its weight in
        every table (its weight added in row order, as ``np.bincount(...,
        weights=...)``): integer weights give the tables of the rows repeated, exactly.

    Notes
    -----
    Tables are additive over rows: the tables of two disjoint row sets sum to the
    table of their union. :meth:`summary` keeps the tables a learner needs without the
    rows (:class:`CountSummary`, added with ``+``), which is how chunked, distributed
    and incremental counting plug in without touching any learner.
    """

    def __init__(self, data: DiscreteData) -> None:
        if data.y is None:
            raise ValueError("CountCache needs class codes (data.y).")
        self.n_features = data.n_features
        self.class_index = data.n_features
        self.n_classes = int(data.n_classes)
        self.n_samples = data.n_samples
        self.cardinalities = np.concatenate((data.cardinalities, [self.n_classes])).astype(np.int64, copy=False)
        # one row of codes per variable (the class last), each contiguous: combined codes
        # are sums of code * stride, and many families gather their rows in one take. The
        # encoder's column-major codes are read in place (no second copy of the data).
        self._matrix = _VariableRows(data.codes, data.y)
        self._columns = self._matrix.rows()
        lowest = data.codes.min(axis=0) if self.n_samples else np.zeros(self.n_features, dtype=np.int64)
        self._has_unknown = np.concatenate((lowest < 0, [False]))
        self._weights = None if data.weights is None else np.asarray(data.weights, dtype=np.float64)
        self.names = [f"x{j}" for j in range(self.n_features)] + ["class"]
        self._tables: dict[tuple, np.ndarray] = {}

    @property
    def whole_counts(self) -> bool:
        """Whether every count is known to be a whole number: rows without weights (a
        summary of chunks may hold weighted sums)."""
        return self._weights is None and self._columns is not None

    # -- counting ------------------------------------------------------------
    def check_size(self, family: Iterable[int], cells: float | None = None, what: str = "the count table of") -> None:
        """Raise :class:`TableTooLargeError` if ``family``'s table (or ``cells`` float64
        cells) would not fit the memory budget, naming the columns and the fix."""
        family = [int(v) for v in family]
        if cells is None:
            cells = float(np.prod([float(self.cardinalities[v]) for v in family]))
        need, budget = 8.0 * cells, memory_budget()
        if need <= budget:
            return
        columns = ", ".join(f"{self.names[v]!r} ({int(self.cardinalities[v])} values)" for v in family)
        raise TableTooLargeError(
            f"{what} {columns} would have {cells:,.0f} cells ({_size(need)}), over the "
            f"memory budget of {_size(budget)}. Lower k or max_parents, merge rare "
            "categories, discretize many-valued columns, or drop identifier columns; "
            "bnclf.set_config(memory_budget=...) or $BNCLF_MEMORY_BUDGET raises the budget."
        )

    def check_total(self, families: Sequence[Sequence[int]]) -> None:
        """Raise :class:`TableTooLargeError` if the tables of ``families``, added to those
        this cache already holds, would together exceed the memory budget: every table of
        a fit may pass the budget on its own while their sum does not (AODE's SPODEs on
        many many-valued columns)."""
        if not len(families):
            return
        cards = self.cardinalities.astype(np.float64)
        cells = np.empty(len(families))
        by_length: dict[int, list[int]] = {}
        for k, key in enumerate(families):
            by_length.setdefault(len(key), []).append(k)
        for length, members in by_length.items():  # families of one length: one product
            keys = np.array([list(families[k]) for k in members], dtype=np.int64).reshape(len(members), length)
            cells[members] = cards[keys].prod(axis=1)
        held = float(sum(table.size for table in self._tables.values()))
        need, budget = 8.0 * (held + float(cells.sum())), memory_budget()
        if need <= budget:
            return
        largest = families[int(np.argmax(cells))]
        self.check_size(largest)  # one table over the budget on its own: say which
        columns = ", ".join(f"{self.names[v]!r} ({int(self.cardinalities[v])} values)" for v in largest)
        raise TableTooLargeError(
            f"the {len(families):,} count tables this fit needs (the largest of {columns}) would "
            f"together take {_size(need)} with those already counted, over the memory budget of "
            f"{_size(budget)}. Lower k or max_parents, use fewer or fewer-valued columns (discretize with "
            "fewer bins, merge rare categories, drop identifier columns) or a learner with fewer families; "
            "bnclf.set_config(memory_budget=...) or $BNCLF_MEMORY_BUDGET raises the budget."
        )

    def counts(self, family: Iterable[int], *, memoize: bool = True) -> np.ndarray:
        """Count table of ``family`` (variable indices), one axis per variable in that order.

        ``memoize=False`` counts without keeping the table (for learners that
        look at very many large families once each).

        Tables are computed once per *set* of variables (the canonical key is
        the sorted family) and returned transposed to the order asked for, so
        ``(i, j, c)`` and ``(j, i, c)`` share one count.
        """
        family = tuple(int(v) for v in family)
        key = tuple(sorted(family))
        if len(set(key)) != len(key):
            raise ValueError(f"family {family} names a variable twice.")
        table = self._tables.get(key)
        if table is None:
            table = self._count(key)
            if memoize:
                self._tables[key] = table
        if key == family:
            return table
        return table.transpose([key.index(v) for v in family])

    def counts_many(self, families: Iterable[Sequence[int]]) -> None:
        """Count many families at once and memoize them.

        Families of the same size are counted by one call of the counting kernel
        (:func:`bnclf.counts._tally.count_families`, the families cut among threads), their
        tables laid end to end in one array. Use it before asking :meth:`counts` for
        hundreds of tables (all pairs, all SPODE families).
        """
        todo = {}
        for family in families:
            key = tuple(sorted(int(v) for v in family))
            if key and key not in self._tables and len(set(key)) == len(key):
                todo.setdefault(len(key), {})[key] = None
        self.check_total([key for group in todo.values() for key in group])
        if getattr(self, "_pair_sources", None) is not None and 3 in todo:
            pairs = [key for key in todo[3] if key[2] == self.class_index]
            self._tables_from_products(pairs)
            for key in pairs:
                del todo[3][key]
        if self._columns is None:
            for group in todo.values():
                for key in group:
                    self.counts(key)
            return
        for size, group in todo.items():
            if not group:
                continue
            keys = np.array(list(group), dtype=np.int64).reshape(-1, size)
            shapes = self.cardinalities[keys]
            for key in keys[shapes.prod(axis=1, dtype=np.float64) * 8.0 > memory_budget()]:
                self.check_size(key)  # raises, naming the first family over the budget
            tables, bases = self._count_families(keys)
            for key, base, shape in zip(keys.tolist(), bases.tolist(), shapes.tolist()):
                self._tables[tuple(key)] = tables[base : base + math.prod(shape)].reshape(shape)

    def _count_families(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(tables, bases)``: the tables of the families ``keys`` ``(families, size)`` (sorted
        variable indices), laid end to end in one float64 array, family ``f``'s from
        ``bases[f]``, each C-ordered along its variables."""
        shapes = self.cardinalities[keys]
        strides = np.ones_like(shapes)  # a cell's index: the sum of each code times its stride
        strides[:, :-1] = np.cumprod(shapes[:, :0:-1], axis=1)[:, ::-1]
        sizes = shapes.prod(axis=1)
        bases = np.zeros(len(keys), dtype=np.int64)
        np.cumsum(sizes[:-1], out=bases[1:])
        tables = np.zeros(int(sizes.sum()))
        count = functools.partial(
            _tally.count_families, self._matrix[: self.n_features], self._columns[self.class_index], keys, strides,
            bases, sizes, self._weights, tables
        )  # fmt: skip
        run_parts(count, even_parts(len(keys), float(len(keys)) * self.n_samples * keys.shape[1]))
        return tables, bases

    def _tables_from_products(self, pairs: list[tuple[int, int, int]]) -> None:
        """Memoize the tables ``(i, j, class)`` of ``pairs`` (``i < j``) from the value-pair
        products that :meth:`pair_information_terms` formed: the counted cells as they are,
        a row or column of a last value as totals minus counted cells. Pairs of the same
        shape are read in one indexing."""
        products, by_feature, known_pairs, roff = self._pair_sources
        cards = self.cardinalities
        shapes: dict[tuple[int, int], list] = {}
        for key in pairs:
            shapes.setdefault((int(cards[key[0]]), int(cards[key[1]])), []).append(key)
        for (ri, rj), keys in shapes.items():
            first, second = (np.array([key[slot] for key in keys]) for slot in (0, 1))
            rows = roff[first][:, None] + np.arange(ri - 1)  # (pairs, counted values of i)
            cols = roff[second][:, None] + np.arange(rj - 1)
            table = np.empty((self.n_classes, len(keys), ri, rj))
            counted = products[:, rows[:, :, None], cols[:, None, :]]
            table[:, :, :-1, :-1] = counted
            table[:, :, :-1, -1] = by_feature[:, rows, second[:, None]] - counted.sum(axis=3)
            table[:, :, -1, :-1] = by_feature[:, cols, first[:, None]] - counted.sum(axis=2)
            table[:, :, -1, -1] = (
                known_pairs[:, first, second] - table[:, :, :-1, :].sum(axis=(2, 3)) - table[:, :, -1, :-1].sum(axis=2)
            )
            table = np.ascontiguousarray(np.moveaxis(table, 0, -1))
            np.maximum(table, 0.0, out=table)  # totals minus cells: no rounding below zero (summed weights)
            for key, one in zip(keys, table):
                self._tables[key] = one

    def check_all_pairs_size(self, values: int | None = None, what: str = "count", extra: float = 0.0) -> None:
        """:meth:`check_size` of an all-pairs array, ``(values, values, n_classes)`` cells
        (``values``: every feature value by default), named as the all-pairs ``what`` array,
        with ``extra`` bytes of buffers held beside it."""
        d = self.n_features
        cards = self.cardinalities[:d]
        width = int(cards.sum()) if values is None else int(values)
        if not extra and width <= self.__dict__.get("_pairs_within_budget", -1):  # a wider array passed
            return
        if 8.0 * width * width * self.n_classes + extra <= memory_budget():  # within the budget
            if not extra:
                self._pairs_within_budget = width
            return
        kind = "in all" if values is None else "in use"
        self.check_size(
            [int(np.argmax(cards))],
            cells=float(width) * width * self.n_classes + extra / 8.0,
            what=f"the all-pairs {what} array of the {d} features ({width} values {kind}; the largest column:",
        )

    def pair_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """Counts of every pair of feature values within each class, in one array.

        Returns ``(blocks, offsets)``: ``blocks`` has shape ``(R, R, n_classes)``
        with ``R = sum_i r_i``, and the table ``(i, j, class)`` is
        ``blocks[offsets[i]:offsets[i] + r_i, offsets[j]:offsets[j] + r_j]``.
        The cells of the values some row holds are :meth:`pair_counts_in_use`; the
        others are zero. A merged cache sums its parts' blocks.
        """
        if getattr(self, "_pair_blocks", None) is not None:
            return self._pair_blocks
        width = int(self.cardinalities[: self.n_features].sum())
        self.check_all_pairs_size()
        counts, used, offsets = self.pair_counts_in_use()
        blocks = np.zeros((width, width, self.n_classes))
        blocks.reshape(width * width, -1)[(used[:, None] * width + used).ravel()] = counts.reshape(-1, self.n_classes)
        self._pair_blocks = (blocks, offsets)
        self._pair_counts = None  # read from the blocks from now on: one copy of the counts
        return self._pair_blocks

    def pair_counts_in_use(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`pair_blocks` restricted to the values the rows hold.

        Returns ``(counts, used, offsets)``: ``used`` holds the positions (in
        :meth:`pair_blocks`' layout, increasing) of the values that some row holds,
        and ``counts[a, b, c] = blocks[used[a], used[b], c]``; every other cell of
        the blocks is zero.

        Notes
        -----
        Leaving out the values no row holds makes the counts smaller by the square of the
        share of values in use. A row whose value of ``i`` or ``j`` is unknown (``-1``) is
        left out of that pair only, as :meth:`counts` does.

        Unweighted rows are counted from bitsets (:func:`bnclf.counts._bitsets.pair_counts_by_bits`):
        each value's rows of each class, 64 to a word, and a pair's count is the number of bits
        its two bitsets share (one AND and one population count per 64 rows, for the pairs
        ``a <= b`` only). A feature that no row leaves unknown counts one value fewer: its last
        value's counts are the totals less the others' (exact, whole numbers). Weighted rows
        add their weights to the cell of each pair of their known values, in row order
        (:func:`bnclf.counts._bitsets.weighted_pair_counts`): the sums of each pair's bincount.
        """
        memo = getattr(self, "_pair_counts", None)
        if memo is not None:
            return memo
        if getattr(self, "_pair_blocks", None) is not None or self._columns is None:
            # the blocks (or, without rows, the summed tables): the values whose row of the
            # blocks is not all zero (a row cache also keeps values held only by rows of
            # weight 0, whose cells are zero: the same blocks)
            blocks, offsets = self.pair_blocks()
            used = np.flatnonzero(blocks.any(axis=(1, 2)))
            return blocks[used[:, None], used], used, offsets
        d = self.n_features
        cards = self.cardinalities[:d]
        used, column, bit_column, last_of, order, n_counted = self._pair_plan()
        n_used = used.size
        offsets = np.cumsum(cards) - cards
        self.check_all_pairs_size(n_used, extra=self._bitset_bytes(n_used))
        counts = np.zeros((n_used, n_used, self.n_classes))
        features, y = self._matrix[:d], self._columns[self.class_index]
        if n_used and self._weights is None:
            plan = (bit_column, last_of[:n_used], order[:n_counted], order[n_counted:n_used])
            pair_counts_by_bits(features, y, plan, offsets, cards, counts)
        elif n_used:
            weighted_pair_counts(features, y, self._weights, column, offsets, counts)
        self._pair_counts = (counts, used, offsets)
        self._plan = None
        return self._pair_counts

    def _pair_plan(self) -> tuple[np.ndarray, ...]:
        """``(used, column, bit_column, last_of, order, n_counted)`` of
        :func:`bnclf.counts._tally.plan_values` for the rows' values (``used``: the positions of
        the values some row holds, cut to their number), memoized until the counts are made:
        one pass over the rows, which sizes :meth:`pair_counts_in_use` before it allocates."""
        plan = getattr(self, "_plan", None)
        if plan is not None:
            return plan
        d = self.n_features
        cards = self.cardinalities[:d]
        width = int(cards.sum())
        offsets = np.cumsum(cards) - cards
        seen = np.zeros(width, dtype=np.uint8)  # whether some row holds each value (whatever its weight)
        held = functools.partial(_tally.values_held, self._matrix[:d], offsets, seen)
        run_parts(held, even_parts(d, float(d) * self.n_samples))
        used, column, bit_column, last_of, order = (np.empty(width, dtype=np.int64) for _ in range(5))
        n_used, n_counted = _tally.plan_values(
            seen, cards, self._has_unknown[:d].view(np.uint8), used, column, bit_column, last_of, order
        )
        self._plan = (used[:n_used], column, bit_column, last_of, order, int(n_counted))
        return self._plan

    def _bitset_bytes(self, n_used: int) -> float:
        """Bytes of the buffers :func:`bnclf.counts._bitsets.pair_counts_by_bits` holds while
        it counts ``n_used`` values (a chunk's bitsets and its rows' places), besides the counts."""
        if self._weights is not None or not n_used:
            return 0.0
        d, n = self.n_features, self.n_samples
        rows = min(n, max(64, CHUNK_WORDS // max(1, n_used) * 64))
        words = rows / 64.0 + self.n_classes + 1
        return 8.0 * (words * (n_used + d) + 2 * rows + 2 * n_used * self.n_classes)

    def tables_from_pair_counts(self) -> None:
        """Memoize each feature's tables ``(j, class)`` and ``(j,)`` from the diagonal of
        :meth:`pair_counts_in_use` (a value paired with itself is its count within each
        class), when those are counted and exact: rows unweighted, so the counts are integers
        and equal the bincounts, which then need no pass over the rows."""
        memo = getattr(self, "_pair_counts", None)
        if memo is None or self._weights is not None:
            return
        counts, used, offsets = memo
        d, c = self.n_features, self.class_index
        cards = self.cardinalities[:d]
        by_value = np.zeros((int(cards.sum()), self.n_classes))
        by_value[used] = np.diagonal(counts).T  # counts[a, a, :]
        self._value_class_counts = by_value
        # each feature's tables are slices of one copy of each array, apart from the stacked array
        # the cache keeps (a copy per table cost a numpy call each); tables are read, never
        # written in place: a write would reach the feature's neighbours
        by_class, by_value_only = by_value.copy(), by_value.sum(axis=1)
        for j, (start, r) in enumerate(zip(offsets.tolist(), cards.tolist())):
            self._tables.setdefault((j, c), by_class[start : start + r])
            self._tables.setdefault((j,), by_value_only[start : start + r])

    def value_counts(self) -> list[np.ndarray]:
        """The table ``(j,)`` of every feature, in order (memoized; read from the pair counts'
        diagonal by :meth:`tables_from_pair_counts` when it has run, else counted at once)."""
        d = self.n_features
        tables = [self._tables.get((j,)) for j in range(d)]
        if any(table is None for table in tables):
            self.counts_many([(j,) for j in range(d)])
            tables = [self.counts((j,)) for j in range(d)]
        return tables

    def value_class_counts(self) -> np.ndarray:
        """``(R, n_classes)``: the tables ``(j, class)`` of every feature, stacked by value
        position (as read from the pair counts' diagonal when those are counted: the array
        the cache keeps, not to be changed)."""
        stacked = getattr(self, "_value_class_counts", None)
        if stacked is None:
            d, c = self.n_features, self.class_index
            self.counts_many([(j, c) for j in range(d)])
            stacked = np.concatenate([self.counts((j, c)) for j in range(d)])
        return stacked

    def pair_blocks_fit(self) -> bool:
        """Whether :meth:`pair_blocks` is small enough to build (at most 2**24 cells).

        The array has ``(sum_i r_i)^2 * n_classes`` cells: a feature with
        thousands of values makes it quadratically large, while the pair tables
        themselves grow only linearly; then pairs are counted family by family.
        """
        width = int(self.cardinalities[: self.n_features].sum())
        return width * width * self.n_classes <= _PAIR_BLOCK_CELLS

    def count_all_pairs(self) -> None:
        """Memoize the table ``(i, j, class)`` of every feature pair ``i < j`` from
        :meth:`pair_blocks` (one pass over the data for all pairs), or with
        :meth:`counts_many` when the blocks would be too large."""
        d, c = self.n_features, self.class_index
        todo = [(i, j) for i in range(d) for j in range(i + 1, d) if (i, j, c) not in self._tables]
        if not todo:
            return
        if not self.pair_blocks_fit():
            self.counts_many([(i, j, c) for i, j in todo])
            return
        blocks, offsets = self.pair_blocks()
        cards = self.cardinalities[:d]
        for i, j in todo:
            block = blocks[offsets[i] : offsets[i] + cards[i], offsets[j] : offsets[j] + cards[j]]
            self._tables[(i, j, c)] = np.ascontiguousarray(block)

    def _count(self, family: tuple) -> np.ndarray:
        if not family:
            return np.array(float(self.total))
        self.check_size(family)
        shape = tuple(int(self.cardinalities[v]) for v in family)
        return self._count_families(np.array([family], dtype=np.int64))[0].reshape(shape)

    @property
    def total(self) -> float:
        """The number of rows counted, or the sum of their weights."""
        return float(self.n_samples) if self._weights is None else float(self._weights.sum())

    def summary(self, families: Iterable[Sequence[int]] = (), *, pairs: bool = False) -> CountSummary:
        """The tables of ``families`` (and, with ``pairs``, of every ``(i, j, class)``
        pair) as a :class:`CountSummary`, without the rows: the additive state of these
        rows (a chunk's, a partition's, a model's)."""
        from bnclf.counts._summary import CountSummary

        return CountSummary.from_cache(self, families, pairs=pairs)

    def including(self, families: Iterable[Sequence[int]]) -> CountCache:
        """This cache with the tables of ``families`` counted (rows answer every table)."""
        self.counts_many(families)
        return self

    # -- shortcuts used by the learners ----------------------------------------
    @property
    def class_counts(self) -> np.ndarray:
        return self.counts((self.class_index,))

    def mi_with_class(self) -> np.ndarray:
        """``I(Xi; C)`` for every feature, in bits (compare them through :func:`comparable`).

        ``(sum xlogx(N_ac) - sum_a xlogx(N_a) - sum_c xlogx(N_c) + xlogx(N)) / (N ln 2)`` over
        each feature's own table, for all features at once.
        """
        tables, offsets = self.feature_class_counts()
        class_sums = np.add.reduceat(tables, offsets, axis=0)  # (features, classes)
        totals = class_sums.sum(axis=1)
        value_terms = xlogx(tables).sum(axis=1) - xlogx(tables.sum(axis=1))
        terms = np.add.reduceat(value_terms, offsets) - xlogx(class_sums).sum(axis=1) + xlogx(totals)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.maximum(np.where(totals > 0, terms / (totals * math.log(2.0)), 0.0), 0.0)

    def feature_class_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``(i, class)`` tables of all features stacked: ``(tables, offsets)``, the table
        of feature i being ``tables[offsets[i]:offsets[i] + r_i]`` (memoized as each family).

        From the rows, one call of the counting kernel for every feature (the features cut
        among threads), whose tables laid end to end are the stacked array.
        """
        d, c = self.n_features, self.class_index
        cards = self.cardinalities[:d]
        offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
        if self._columns is not None and any((i, c) not in self._tables for i in range(d)):
            self.check_size(
                [int(np.argmax(cards))],
                cells=float(cards.sum()) * self.n_classes,
                what="the feature-class counts of all features; the largest column:",
            )
            keys = np.column_stack([np.arange(d), np.full(d, c)]).astype(np.int64)
            tables = self._count_families(keys)[0].reshape(-1, self.n_classes)
            for i in range(d):
                self._tables[(i, c)] = tables[offsets[i] : offsets[i] + cards[i]]
            return tables, offsets
        self.counts_many([(i, c) for i in range(d)])
        return np.concatenate([self.counts((i, c)) for i in range(d)]), offsets

    def cmi_matrix(self) -> np.ndarray:
        """Symmetric matrix of ``I(Xi; Xj | C)`` in bits (zero diagonal); learners compare
        its entries through :func:`comparable`.

        All pairs at once (:meth:`pair_information_terms`); a cache merged from parts
        whose pair blocks would be too large goes pair by pair.
        """
        d, c = self.n_features, self.class_index
        if self._pair_terms_direct():
            terms, class_totals = self.pair_information_terms()
            totals = class_totals.sum(axis=-1)
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.where(totals > 0, terms.sum(axis=-1) / (totals * math.log(2.0)), 0.0)
            out = np.maximum(out, 0.0)
            np.fill_diagonal(out, 0.0)
            return out
        self.count_all_pairs()
        out = np.zeros((d, d))
        for i in range(d):
            for j in range(i + 1, d):
                out[i, j] = out[j, i] = conditional_mutual_information(self.counts((i, j, c)))
        return out

    def per_label_cmi(self) -> np.ndarray:
        """``I(Xi; Xj | C=c)``: array ``(n_classes, d, d)``, MI within each class's rows
        (learners compare them, or sums of them, through :func:`comparable`)."""
        d, c = self.n_features, self.class_index
        if self._pair_terms_direct():
            terms, class_totals = self.pair_information_terms()
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.where(class_totals > 0, terms / (class_totals * math.log(2.0)), 0.0)
            out = np.maximum(np.moveaxis(out, -1, 0), 0.0)
            for label in out:
                np.fill_diagonal(label, 0.0)
            return out
        self.count_all_pairs()
        out = np.zeros((self.n_classes, d, d))
        for i in range(d):
            for j in range(i + 1, d):
                out[:, i, j] = out[:, j, i] = label_conditional_mi(self.counts((i, j, c)))
        return out

    def _pair_terms_direct(self) -> bool:
        """Whether :meth:`cmi_matrix` and :meth:`per_label_cmi` take every pair at once
        (:meth:`pair_information_terms`): from the rows, or from pair blocks small enough
        to build; otherwise they go pair by pair."""
        return self._columns is not None or self.pair_blocks_fit()

    def pair_information_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """For every feature pair and class: ``S[i, j, c] = sum_ab N_abc ln(N_abc N_c /
        (N_ac N_bc))`` and ``N_c``, both ``(d, d, n_classes)``.

        ``I(Xi; Xj | C) = sum_c S / (N ln 2)`` and ``I(Xi; Xj | C=c) = S / (N_c ln 2)``.
        The marginals are those of each pair's own table (under ``missing="ignore"`` a
        row with either value unknown is left out of that pair only), as
        :func:`conditional_mutual_information` computes them.

        Notes
        -----
        The counts are :meth:`pair_counts_in_use` (from the rows, or a cache merged from
        parts: its parts' summed :meth:`pair_blocks`), read into three class-first arrays
        (:func:`bnclf.counts._tally.pair_sources`): the value pairs, a value's rows with the
        other feature known and the rows with both known. Value pairs are kept for every
        value but the last of each feature, whose counts are the totals less the others'; the
        terms are summed over a group of features at a time, so no temporary exceeds about
        :data:`_PAIR_GROUP_CELLS` cells. Every array held at once (the counts, the kept value
        pairs, the sums by value and feature and by pair of features) is sized together against
        the memory budget before the first is allocated. Past it, when the results and the
        arrays of two groups of features fit, the terms are made a pair of groups at a time from
        the rows restricted to their features (the same numbers); otherwise
        :class:`TableTooLargeError` names the columns, the arrays and the fix.
        """
        if getattr(self, "_pair_terms", None) is not None:
            return self._pair_terms
        groups = None if self.__dict__.get("_one_pair_of_groups") else self._pair_term_groups()
        if groups is not None:
            return self._pair_terms_by_groups(groups)
        d, n_classes = self.n_features, self.n_classes
        cards = self.cardinalities[:d]
        offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
        width = int(cards.sum())
        # Value pairs are counted for every value but the last of each feature (a feature
        # with one value keeps one column, which stays zero): the counts with a last value
        # are the totals minus the others, so the arrays are (1 - 1/r)**2 as large.
        kept = np.maximum(cards - 1, 1)
        roff = np.concatenate([[0], np.cumsum(kept)[:-1]]).astype(np.int64)
        rwidth = int(kept.sum())
        # whole counts are exact in float32 below 2**24 rows: half the memory
        exact = np.float32 if self.whole_counts and self.n_samples < 2**24 else np.float64
        self._check_pair_terms_size(np.dtype(exact).itemsize)  # before anything large is allocated
        value = np.arange(width) - np.repeat(offsets, cards)  # each full column's value
        owner = np.repeat(np.arange(d), cards)
        counted = value < cards[owner] - 1
        column = np.full(width, rwidth, dtype=np.int64)  # full column -> reduced one (rwidth: none)
        column[counted] = roff[owner[counted]] + value[counted]
        # class-first arrays: products[c, a, b] = N_abc of counted values a and b, by_feature[c, a, j] =
        # N_ac among the rows with feature j known, known_pairs[c, i, j] = N_c among the rows with i and j known
        counts, used, _ = self.pair_counts_in_use()
        products = np.zeros((n_classes, rwidth, rwidth), dtype=exact)
        by_feature = np.zeros((n_classes, rwidth, d))
        known_pairs = np.zeros((n_classes, d, d))
        sources = functools.partial(
            _tally.pair_sources, np.ascontiguousarray(counts), owner[used], column[used], products, by_feature,
            known_pairs
        )  # fmt: skip
        run_parts(sources, even_parts(n_classes, float(n_classes) * used.size * used.size))
        if self.whole_counts:  # exact tables of pairs, for counts_many
            self._pair_sources = (products, by_feature, known_pairs, roff)
        # S = sum_ab xlogx(N_abc) - sum_a xlogx(N_ac) - sum_b xlogx(N_bc) + xlogx(N_c), the
        # marginals being those of the pair's own table (the sums of its cells)
        sums = _SegmentSums(roff, kept)  # over each feature's counted values
        last = known_pairs - sums(by_feature, axis=1)  # (C, i, j): N of i's last value
        # the (i, class) tables come with them: the counted values from by_feature, the last
        # value from last (rows with i known, twice)
        own = by_feature[:, np.arange(rwidth), np.repeat(np.arange(d), kept)]  # (C, counted values)
        own_last = last[:, np.arange(d), np.arange(d)]  # (C, features)
        with_class = np.where(counted[:, None], own.T[np.minimum(column, rwidth - 1)], own_last.T[owner])
        np.maximum(with_class, 0.0, out=with_class)  # a last value's count, a difference: never below zero
        if self._weights is None:  # exact integers; weighted last values carry rounding: counted instead
            for i in range(d):
                self._tables.setdefault((i, self.class_index), with_class[offsets[i] : offsets[i] + cards[i]])
        marginal = sums(xlogx(by_feature), axis=1)
        marginal += xlogx(last)  # sum_a xlogx(N_ac)
        terms = xlogx(known_pairs)
        terms -= marginal
        terms -= marginal.transpose(0, 2, 1)
        del marginal
        # the counts with a last value are totals minus counted cells: with_last[c, a, j] =
        # N_a(j known) - sum_b N_ab (value a with j's last value) is, by symmetry, also the
        # count of j's last value with a; its sums come from each group of value pairs
        with_last = np.empty((n_classes, rwidth, d))  # sum over j's counted values of N_ab, then by_feature less it
        per_feature = rwidth * n_classes * int(kept.max(initial=1))
        group = max(1, _PAIR_GROUP_CELLS // max(1, per_feature))
        for start in range(0, d, group):
            stop = min(d, start + group)
            lo, hi = int(roff[start]), int(roff[stop - 1] + kept[stop - 1])
            # pairs (i, j) with i in the group and j >= i: the rest follows by symmetry
            joint = products[:, lo:hi, lo:]  # (C, counted values of the group, counted values from lo on)
            rows, cols = sums.part(start, stop), sums.part(start, d)
            with_last[:, lo:hi, start:] = cols(joint, axis=2)
            with_last[:, lo:, start:stop] = rows(joint, axis=1).transpose(0, 2, 1)
            terms[:, start:stop, start:] += rows(cols(xlogx(joint), axis=2), axis=1)
        np.subtract(by_feature, with_last, out=with_last)
        cells = sums(xlogx(with_last), axis=1)  # (C, i, j): sum_a xlogx(N(a, j's last))
        cells += cells.transpose(0, 2, 1).copy()
        both_last = sums(with_last, axis=1).transpose(0, 2, 1)
        del with_last
        np.subtract(last, both_last, out=both_last)
        del last
        cells += xlogx(both_last)
        del both_last
        terms += cells
        del cells
        np.copyto(terms, 0.0, where=~np.triu(np.ones((d, d), dtype=bool), 1))  # the lower half by symmetry
        terms += terms.transpose(0, 2, 1).copy()
        self._pair_terms = (np.moveaxis(terms, 0, -1), np.moveaxis(known_pairs, 0, -1))
        return self._pair_terms

    def _pair_terms_need(self, cards: np.ndarray, counts: float, itemsize: int) -> tuple[dict[str, float], float]:
        """``(parts, need)``: the bytes of the arrays :meth:`pair_information_terms` holds at
        once for features of cardinalities ``cards`` whose value-pair counts take ``counts``
        bytes (the largest arrays by name, and their total)."""
        d, n_classes = cards.size, self.n_classes
        cards = cards.astype(np.float64)
        width, rwidth = float(cards.sum()), float(np.maximum(cards - 1, 1).sum())
        parts = {
            "the counts of value pairs": counts,
            "the kept value pairs": float(itemsize) * n_classes * rwidth * rwidth,
            "the sums by value and feature": 8.0 * n_classes * rwidth * d * _VALUE_FEATURE_ARRAYS,
            "the sums by pair of features": 8.0 * n_classes * d * d * _PAIR_ARRAYS,
            "the temporaries of a group of features": 16.0
            * min(n_classes * rwidth * rwidth, max(_PAIR_GROUP_CELLS, n_classes * rwidth * cards.max(initial=1))),
        }
        return parts, sum(parts.values()) + 8.0 * n_classes * width * 4  # and per-value tables and indices

    def _check_pair_terms_size(self, itemsize: int) -> None:
        """Raise :class:`TableTooLargeError` if the arrays :meth:`pair_information_terms` holds at
        once (the value-pair counts, the kept value pairs of ``itemsize`` bytes, the per-value
        and per-pair sums) would together exceed the memory budget, naming the columns and the
        fix; from the rows, this reads which values are in use (one pass, no large array)."""
        d, n_classes = self.n_features, self.n_classes
        cards = self.cardinalities[:d]
        width = float(cards.sum())
        memo = getattr(self, "_pair_counts", None)
        if memo is not None:
            counts = float(memo[0].nbytes)
        elif self._columns is not None and getattr(self, "_pair_blocks", None) is None:
            n_used = self._pair_plan()[0].size
            counts = 8.0 * n_used * n_used * n_classes + self._bitset_bytes(n_used)
        else:  # the blocks (made, or assembled from the tables), and their values in use
            counts = 16.0 * width * width * n_classes
        parts, need = self._pair_terms_need(cards, counts, itemsize)
        budget = memory_budget()
        if need <= budget:
            return
        largest = ", ".join(
            f"{self.names[v]!r} ({int(cards[v])} values)" for v in np.argsort(-cards, kind="stable")[:3].tolist()
        )
        itemized = ", ".join(f"{name} {_size(size)}" for name, size in sorted(parts.items(), key=lambda p: -p[1]))
        raise TableTooLargeError(
            f"the all-pairs information of the {d:,} features ({width:,.0f} values in all, {n_classes} classes; "
            f"the largest columns: {largest}) would take {_size(need)} at once ({itemized}), over the memory "
            f"budget of {_size(budget)}: these arrays grow with the square of the number of features and of values. "
            "Select fewer columns (for example with scikit-learn's SelectKBest in a Pipeline), drop identifier "
            "columns, merge rare categories or discretize with fewer bins, or use a learner that compares no "
            "pairs of features "
            "(NaiveBayesClassifier); bnclf.set_config(memory_budget=...) or $BNCLF_MEMORY_BUDGET raises the budget."
        )

    def _pair_term_groups(self) -> list[np.ndarray] | None:
        """Groups of consecutive features whose pairs of groups :meth:`pair_information_terms`
        takes one at a time, when all the features at once would exceed the memory budget but
        the results (``(features, features, classes)`` twice) and one pair of groups fit it;
        None otherwise (at once, or refused). Needs the rows."""
        d, n_classes = self.n_features, self.n_classes
        if self._columns is None or getattr(self, "_pair_counts", None) is not None or d < 4:
            return None
        itemsize = 4 if self.whole_counts and self.n_samples < 2**24 else 8
        cards = self.cardinalities[:d]
        n_used = self._pair_plan()[0].size
        budget = memory_budget()
        whole = 8.0 * n_used * n_used * n_classes + self._bitset_bytes(n_used)
        if self._pair_terms_need(cards, whole, itemsize)[1] <= budget:
            return None
        results = 8.0 * d * d * (n_classes * _RESULT_ARRAYS + _RESULT_ARRAYS)  # with the callers' (d, d) arrays
        for n_groups in range(2, d // 2 + 1):
            groups = np.array_split(np.arange(d), n_groups)
            widest = sorted((cards[group] for group in groups), key=lambda c: -int(c.sum()))[:2]
            union = np.concatenate(widest)  # the pair of groups with the most values: an upper bound
            values = float(union.sum())
            need = self._pair_terms_need(union, 8.0 * values * values * n_classes, itemsize)[1]
            need += self._bitset_bytes(int(values)) + 8.0 * self.n_samples * union.size  # and a copy of their codes
            if results + need <= budget:
                return groups
        return None

    def _pair_terms_by_groups(self, groups: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`pair_information_terms` a pair of feature groups at a time: each pair's terms
        are those of the cache of the rows restricted to the two groups' features (the same
        numbers as all features at once), written into the ``(features, features, classes)``
        results."""
        d, n_classes = self.n_features, self.n_classes
        terms = np.zeros((d, d, n_classes))
        known_pairs = np.zeros((d, d, n_classes))
        y = self._columns[self.class_index]
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                features = np.concatenate((groups[a], groups[b]))
                part = CountCache(
                    DiscreteData(self._matrix[features].T, self.cardinalities[features], y, n_classes, self._weights)
                )
                part._one_pair_of_groups = True  # sized with the groups: never cut again
                part_terms, part_known = part.pair_information_terms()
                where = np.ix_(features, features)
                terms[where] = part_terms
                known_pairs[where] = part_known
                del part, part_terms, part_known
        self._pair_terms = (terms, known_pairs)
        return self._pair_terms


_RESULT_ARRAYS = 3
"""Arrays of ``(features, features, classes)`` that :meth:`CountCache.pair_information_terms`
a pair of feature groups at a time holds besides one pair's (the results, a pair's results), and
of ``(features, features)`` that its callers make."""

_VALUE_FEATURE_ARRAYS = 3
"""Arrays of ``(classes, kept values, features)`` that :meth:`CountCache.pair_information_terms`
holds at once (the values with each feature known, the values with each feature's last value,
a temporary of their terms)."""

_PAIR_ARRAYS = 6
"""Arrays of ``(classes, features, features)`` that :meth:`CountCache.pair_information_terms`
holds at once (the rows with both known, a first value's counts, the terms, temporaries; the
callers' results)."""


_PAIR_GROUP_CELLS = 1 << 18
"""Cells of the value-pair arrays that :meth:`CountCache.pair_information_terms` takes at a
time."""
