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
from bnclf._config import memory_budget
from bnclf._entropy import xlogx
from bnclf._threads import even_parts, run_parts
from bnclf.counts._budget import check_table_size, check_tables_total
from bnclf.counts._measures import conditional_mutual_information, label_conditional_mi
from bnclf.counts._pair_terms import cmi_from_terms, per_label_from_terms
from bnclf.counts._pairs import PairCounts
from bnclf.counts._rows import _VariableRows
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

    Raises
    ------
    ValueError
        If ``data`` has no class codes.

    Notes
    -----
    Tables are additive over rows: the tables of two disjoint row sets sum to the
    table of their union. :meth:`summary` keeps the tables a learner needs without the
    rows (:class:`CountSummary`, added with ``+``), which is how chunked, distributed
    and incremental counting plug in without touching any learner. The all-pairs arrays
    (pair blocks, pair counts, information terms) are those of
    :class:`bnclf.counts._pairs.PairCounts`.
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
        self._pairs = PairCounts(self._matrix, self._weights, self._has_unknown, self._tables)
        self._pairs_within_budget = -1  # the widest all-pairs array that passed the budget

    @property
    def whole_counts(self) -> bool:
        """Whether every count is known to be a whole number: rows without weights (a
        summary of chunks may hold weighted sums)."""
        return self._weights is None and self._columns is not None

    @property
    def has_unknown(self) -> np.ndarray:
        """Per variable (the class last), whether some counted row left it unknown (a
        negative code): such rows are out of that variable's tables. Read-only."""
        view = self._has_unknown.view()
        view.flags.writeable = False
        return view

    @property
    def total(self) -> float:
        """The number of rows counted, or the sum of their weights."""
        return float(self.n_samples) if self._weights is None else float(self._weights.sum())

    # -- the memory budget ----------------------------------------------------------------------------
    def check_size(self, family: Iterable[int], cells: float | None = None, what: str = "the count table of") -> None:
        """Raise :class:`TableTooLargeError` if ``family``'s table (or ``cells`` float64
        cells) would not fit the memory budget, naming the columns and the fix
        (:func:`bnclf.counts._budget.check_table_size`)."""
        check_table_size(self.cardinalities, self.names, family, cells, what)

    def check_total(self, families: Sequence[Sequence[int]]) -> None:
        """Raise :class:`TableTooLargeError` if the tables of ``families``, added to those
        this cache already holds, would together exceed the memory budget
        (:func:`bnclf.counts._budget.check_tables_total`)."""
        held = float(sum(table.size for table in self._tables.values())) if len(families) else 0.0
        check_tables_total(self.cardinalities, self.names, families, held)

    def check_all_pairs_size(self, values: int | None = None, what: str = "count", extra: float = 0.0) -> None:
        """:meth:`check_size` of an all-pairs array, ``(values, values, n_classes)`` cells
        (``values``: every feature value by default), named as the all-pairs ``what`` array,
        with ``extra`` bytes of buffers held beside it."""
        d = self.n_features
        cards = self.cardinalities[:d]
        width = int(cards.sum()) if values is None else int(values)
        if not extra and width <= self._pairs_within_budget:  # a wider array passed
            return
        if 8.0 * width * width * self.n_classes + extra <= memory_budget():
            if not extra:
                self._pairs_within_budget = width
            return
        kind = "in all" if values is None else "in use"
        self.check_size(
            [int(np.argmax(cards))],
            cells=float(width) * width * self.n_classes + extra / 8.0,
            what=f"the all-pairs {what} array of the {d} features ({width} values {kind}; the largest column:",
        )

    # -- counting ---------------------------------------------------------------------------------------
    def counts(self, family: Iterable[int], *, memoize: bool = True) -> np.ndarray:
        """Count table of ``family`` (variable indices), one axis per variable in that order.

        Tables are computed once per *set* of variables (the canonical key is the sorted
        family) and returned transposed to the order asked for, so ``(i, j, c)`` and ``(j, i,
        c)`` share one count; ``memoize=False`` counts without keeping the table (for learners
        that look at very many large families once each). The table returned is the one held:
        read it, never write into it.

        Raises
        ------
        ValueError
            If ``family`` names a variable twice.
        TableTooLargeError
            If the table would not fit the memory budget.
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
        """Count many families at once and memoize them (the same tables as :meth:`counts`).

        Families of the same size are counted by one call of the counting kernel
        (:func:`bnclf.counts._tally.count_families`, the families cut among threads). Use it
        before asking :meth:`counts` for hundreds of tables (all pairs, all SPODE families).
        :meth:`check_total` runs first, then :meth:`check_size` of each family.
        """
        todo: dict[int, dict[tuple, None]] = {}
        for family in families:
            key = tuple(sorted(int(v) for v in family))
            if key and key not in self._tables and len(set(key)) == len(key):
                todo.setdefault(len(key), {})[key] = None
        self.check_total([key for group in todo.values() for key in group])
        if self._pairs.sources is not None and 3 in todo:  # exact pair tables from the pair terms' arrays
            pairs = [key for key in todo[3] if key[2] == self.class_index]
            self._pairs.pair_tables(self, pairs)
            for key in pairs:
                del todo[3][key]
        for size, group in todo.items():
            if self._columns is None:
                for key in group:
                    self.counts(key)
            elif group:
                self._count_group(np.array(list(group), dtype=np.int64).reshape(-1, size))

    def _count_group(self, keys: np.ndarray) -> None:
        """Memoize the tables of the families ``keys`` ``(families, size)``, counted at once."""
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

    def _count(self, family: tuple) -> np.ndarray:
        """The table of the sorted ``family`` (``()``: the total), counted from the rows."""
        if not family:
            return np.array(float(self.total))
        self.check_size(family)
        shape = tuple(int(self.cardinalities[v]) for v in family)
        return self._count_families(np.array([family], dtype=np.int64))[0].reshape(shape)

    def summary(self, families: Iterable[Sequence[int]] = (), *, pairs: bool = False) -> CountSummary:
        """The tables of ``families`` (and, with ``pairs``, of every ``(i, j, class)``
        pair) as a :class:`CountSummary`, without the rows: the additive state of these
        rows (a chunk's, a partition's, a model's)."""
        from bnclf.counts._summary import CountSummary  # the summary is a cache: it imports this module

        return CountSummary.from_cache(self, families, pairs=pairs)

    def including(self, families: Iterable[Sequence[int]]) -> CountCache:
        """This cache with the tables of ``families`` counted (rows answer every table)."""
        self.counts_many(families)
        return self

    # -- the tables of one feature and the class --------------------------------------------------------
    @property
    def class_counts(self) -> np.ndarray:
        """The class table ``(n_classes,)``."""
        return self.counts((self.class_index,))

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
        stacked = self._pairs.value_class
        if stacked is None:
            d, c = self.n_features, self.class_index
            self.counts_many([(j, c) for j in range(d)])
            stacked = np.concatenate([self.counts((j, c)) for j in range(d)])
        return stacked

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

    # -- every pair of features -------------------------------------------------------------------------
    def pair_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """Counts of every pair of feature values within each class, in one array.

        Returns ``(blocks, offsets)``: ``blocks`` has shape ``(R, R, n_classes)`` with ``R =
        sum_i r_i``, and the table ``(i, j, class)`` is ``blocks[offsets[i]:offsets[i] + r_i,
        offsets[j]:offsets[j] + r_j]``. The cells of the values some row holds are
        :meth:`pair_counts_in_use`; the others are zero. A merged cache sums its parts'
        blocks. Raises :class:`TableTooLargeError` past the memory budget.
        """
        return self._pairs.blocks(self)

    def pair_counts_in_use(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`pair_blocks` restricted to the values the rows hold.

        Returns ``(counts, used, offsets)``: ``used`` holds the positions (in
        :meth:`pair_blocks`' layout, increasing) of the values that some row holds, and
        ``counts[a, b, c] = blocks[used[a], used[b], c]``; every other cell of the blocks is
        zero. A row whose value of ``i`` or ``j`` is unknown is left out of that pair only, as
        :meth:`counts` does. Unweighted rows give exact whole counts (from bitsets,
        :func:`bnclf.counts._bitsets.pair_counts_by_bits`); weighted rows add their weights
        in row order, the sums of each pair's bincount
        (:func:`bnclf.counts._bitsets.weighted_pair_counts`).
        """
        return self._pairs.counts_in_use(self)

    def tables_from_pair_counts(self) -> None:
        """Memoize each feature's tables ``(j, class)`` and ``(j,)`` from the diagonal of
        :meth:`pair_counts_in_use` (a value paired with itself is its count within each
        class), when those are counted and exact: rows unweighted, so the counts are integers
        and equal the bincounts, which then need no pass over the rows."""
        self._pairs.tables_from_diagonal(self)

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

    def pair_information_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """For every feature pair and class: ``S[i, j, c] = sum_ab N_abc ln(N_abc N_c /
        (N_ac N_bc))`` and ``N_c``, both ``(d, d, n_classes)`` (memoized).

        ``I(Xi; Xj | C) = sum_c S / (N ln 2)`` and ``I(Xi; Xj | C=c) = S / (N_c ln 2)``.
        The marginals are those of each pair's own table (under ``missing="ignore"`` a
        row with either value unknown is left out of that pair only), as
        :func:`conditional_mutual_information` computes them.

        Notes
        -----
        The terms are read from :meth:`pair_counts_in_use` (:mod:`bnclf.counts._pair_terms`).
        Every array held at once is sized against the memory budget before the first is
        allocated. Past it, when the results and the arrays of two groups of features fit, the
        terms are made a pair of groups at a time from the rows restricted to their features
        (the same numbers); otherwise :class:`TableTooLargeError` names the columns, the
        arrays and the fix.
        """
        return self._pairs.information_terms(self, self._part_terms)

    def _part_terms(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`pair_information_terms` of the rows restricted to ``features``, all at once."""
        codes = self._matrix[features].T
        y = self._columns[self.class_index]
        part = CountCache(DiscreteData(codes, self.cardinalities[features], y, self.n_classes, self._weights))
        part._pairs.cut_into_groups = False  # sized with the groups: never cut again
        return part.pair_information_terms()

    def _pair_terms_direct(self) -> bool:
        """Whether :meth:`cmi_matrix` and :meth:`per_label_cmi` take every pair at once
        (:meth:`pair_information_terms`): from the rows, or from pair blocks small enough
        to build; otherwise they go pair by pair."""
        return self._columns is not None or self.pair_blocks_fit()

    def cmi_matrix(self) -> np.ndarray:
        """Symmetric matrix of ``I(Xi; Xj | C)`` in bits (zero diagonal); learners compare
        its entries through :func:`comparable`.

        All pairs at once (:meth:`pair_information_terms`); a cache merged from parts
        whose pair blocks would be too large goes pair by pair.
        """
        d, c = self.n_features, self.class_index
        if self._pair_terms_direct():
            return cmi_from_terms(*self.pair_information_terms())
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
            return per_label_from_terms(*self.pair_information_terms())
        self.count_all_pairs()
        out = np.zeros((self.n_classes, d, d))
        for i in range(d):
            for j in range(i + 1, d):
                out[:, i, j] = out[:, j, i] = label_conditional_mi(self.counts((i, j, c)))
        return out
