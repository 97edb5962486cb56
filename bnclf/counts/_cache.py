"""Count tables of coded rows, counted on demand.

Counts are the one substrate of bnclf: every structure score and every CPT is a pure
function of count arrays built here by the counting kernels (:mod:`bnclf.counts._tally`).
A family's table, and every family of one size at once, comes from the rows
(:func:`bnclf.counts._tally.count_families`); all ``(x_i, x_j, class)`` tables and the pair
measures come from the counts of every pair of values in use (:mod:`bnclf.counts._pairs`).
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
from bnclf.counts._rows import _VariableRows
from bnclf.counts._tables import CountTables
from bnclf.encoding._frames import DiscreteData

if TYPE_CHECKING:
    from bnclf.counts._summary import CountSummary


class CountCache(CountTables):
    """Memoized count tables of one data set (or one CV fold), counted from its rows.

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
    and incremental counting plug in without touching any learner. The reads a summary
    shares (budget checks, per-feature tables, pair blocks, pair measures) are those of
    :class:`bnclf.counts._tables.CountTables`.
    """

    def __init__(self, data: DiscreteData) -> None:
        if data.y is None:
            raise ValueError("CountCache needs class codes (data.y).")
        n_classes = int(data.n_classes)
        # one row of codes per variable (the class last), each contiguous: combined codes
        # are sums of code * stride, and many families gather their rows in one take. The
        # encoder's column-major codes are read in place (no second copy of the data).
        self._matrix = _VariableRows(data.codes, data.y)
        self._columns = self._matrix.rows()
        lowest = data.codes.min(axis=0) if data.n_samples else np.zeros(data.n_features, dtype=np.int64)
        self._weights = None if data.weights is None else np.asarray(data.weights, dtype=np.float64)
        super().__init__(
            np.concatenate((data.cardinalities, [n_classes])).astype(np.int64, copy=False),
            data.n_samples,
            np.concatenate((lowest < 0, [False])),
            self._matrix,
            self._weights,
        )
        self._one_pair_of_groups = False  # a part of a cut of the features into groups

    @property
    def whole_counts(self) -> bool:
        """Whether every count is known to be a whole number: rows without weights (a
        summary of chunks may hold weighted sums)."""
        return self._weights is None and self._columns is not None

    @property
    def total(self) -> float:
        """The number of rows counted, or the sum of their weights."""
        return float(self.n_samples) if self._weights is None else float(self._weights.sum())

    # -- counting ---------------------------------------------------------------------------------------
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

    # -- the tables of one feature and the class, every pair of features -----------------------------
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
        return self._pairs.information_terms(self, None if self._one_pair_of_groups else self._part_terms)

    def _part_terms(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`pair_information_terms` of the rows restricted to ``features``, all at once."""
        codes = self._matrix[features].T
        y = self._columns[self.class_index]
        part = CountCache(DiscreteData(codes, self.cardinalities[features], y, self.n_classes, self._weights))
        part._one_pair_of_groups = True  # sized with the groups: never cut again
        return part.pair_information_terms()

    def _pair_terms_direct(self) -> bool:
        """Whether :meth:`cmi_matrix` and :meth:`per_label_cmi` take every pair at once
        (:meth:`pair_information_terms`): from the rows, or from pair blocks small enough
        to build; otherwise they go pair by pair."""
        return self._columns is not None or self.pair_blocks_fit()
