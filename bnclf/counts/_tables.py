"""Count tables by family, and what a learner reads from them, however they were counted.

Variables are numbered ``0 .. d-1`` for the features and ``d`` for the class, so a *family*
is a tuple of variable indices and its count table has one axis per variable in that order.
:class:`CountTables` holds the tables, sizes new ones against the memory budget and reads the
per-feature tables, the all-pairs arrays (:class:`bnclf.counts._pairs.PairCounts`) and the
pair measures; :class:`bnclf.counts.CountCache` counts what it lacks from the rows, and
:class:`bnclf.counts.CountSummary` derives it from the tables it holds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike

from bnclf._config import memory_budget
from bnclf.counts._budget import check_table_size, check_tables_total
from bnclf.counts._measures import conditional_mutual_information, label_conditional_mi
from bnclf.counts._pair_terms import cmi_from_terms, per_label_from_terms
from bnclf.counts._pairs import PairCounts
from bnclf.counts._rows import _VariableRows

_PAIR_BLOCK_CELLS = 2**24
"""Largest all-pairs count array (cells) that :meth:`CountTables.pair_blocks` builds."""


class CountTables(ABC):
    """The count tables of some rows by family: held, counted on demand by a subclass.

    Parameters
    ----------
    cardinalities : array-like of int
        Cardinalities of the features, then of the class (``n_features + 1`` values).
    n_samples : int
        Number of rows counted.
    has_unknown : array-like of bool
        Per variable, whether some counted row had an unknown (negative) code there.
    rows : _VariableRows, optional
        The coded rows the tables are counted from (None: no rows).
    weights : ndarray, optional
        The rows' weights.

    Notes
    -----
    A subclass supplies what is not held: ``_count(family)`` (one sorted family),
    :meth:`counts_many`, :meth:`pair_information_terms` and ``_pair_terms_direct()``
    (whether the pair measures take every pair at once).
    """

    def __init__(
        self,
        cardinalities: ArrayLike,
        n_samples: int,
        has_unknown: ArrayLike,
        rows: _VariableRows | None = None,
        weights: np.ndarray | None = None,
    ) -> None:
        self.cardinalities = np.asarray(cardinalities, dtype=np.int64)
        self.n_features = len(self.cardinalities) - 1
        self.class_index = self.n_features
        self.n_classes = int(self.cardinalities[-1])
        self.n_samples = int(n_samples)
        self.names = [f"x{j}" for j in range(self.n_features)] + ["class"]
        self._has_unknown = np.asarray(has_unknown, dtype=bool)
        self._tables: dict[tuple, np.ndarray] = {}
        self._pairs = PairCounts(rows, weights, self._has_unknown, self._tables)
        self._pairs_within_budget = -1  # the widest all-pairs array that passed the budget

    @property
    def has_unknown(self) -> np.ndarray:
        """Per variable (the class last), whether some counted row left it unknown (a
        negative code): such rows are out of that variable's tables. Read-only."""
        view = self._has_unknown.view()
        view.flags.writeable = False
        return view

    @property
    def held(self) -> Mapping[tuple, np.ndarray]:
        """The tables held, ``sorted family -> table`` in the order they were made (read-only)."""
        return MappingProxyType(self._tables)

    # -- the memory budget ----------------------------------------------------------------------------
    def check_size(self, family: Iterable[int], cells: float | None = None, what: str = "the count table of") -> None:
        """Raise :class:`TableTooLargeError` if ``family``'s table (or ``cells`` float64
        cells) would not fit the memory budget, naming the columns and the fix
        (:func:`bnclf.counts._budget.check_table_size`)."""
        check_table_size(self.cardinalities, self.names, family, cells, what)

    def check_total(self, families: Sequence[Sequence[int]]) -> None:
        """Raise :class:`TableTooLargeError` if the tables of ``families``, added to those
        held, would together exceed the memory budget
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

    # -- tables by family -------------------------------------------------------------------------------
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

    @abstractmethod
    def _count(self, family: tuple) -> np.ndarray:
        """The table of the sorted ``family`` that is not held (``()``: the total)."""

    @abstractmethod
    def counts_many(self, families: Iterable[Sequence[int]]) -> None:
        """Memoize the tables of ``families`` (the same tables as :meth:`counts`)."""

    def including(self, families: Iterable[Sequence[int]]) -> CountTables:
        """These tables with those of ``families`` held (:meth:`counts_many`)."""
        self.counts_many(families)
        return self

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

    @abstractmethod
    def pair_information_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S, N_c)`` of every feature pair and class, both ``(d, d, n_classes)``."""

    @abstractmethod
    def _pair_terms_direct(self) -> bool:
        """Whether :meth:`cmi_matrix` and :meth:`per_label_cmi` take every pair at once
        (:meth:`pair_information_terms`); otherwise they go pair by pair."""

    def cmi_matrix(self) -> np.ndarray:
        """Symmetric matrix of ``I(Xi; Xj | C)`` in bits (zero diagonal); learners compare
        its entries through :func:`comparable`.

        All pairs at once (:meth:`pair_information_terms`); a cache merged from parts
        whose pair blocks would be too large goes pair by pair.
        """
        if self._pair_terms_direct():
            return cmi_from_terms(*self.pair_information_terms())
        return self._pair_by_pair(conditional_mutual_information, ())

    def per_label_cmi(self) -> np.ndarray:
        """``I(Xi; Xj | C=c)``: array ``(n_classes, d, d)``, MI within each class's rows
        (learners compare them, or sums of them, through :func:`comparable`)."""
        if self._pair_terms_direct():
            return per_label_from_terms(*self.pair_information_terms())
        return self._pair_by_pair(label_conditional_mi, (self.n_classes,))

    def _pair_by_pair(self, measure: Callable[[np.ndarray], ArrayLike], shape: tuple[int, ...]) -> np.ndarray:
        """``out[..., i, j] = out[..., j, i] = measure(table (i, j, class))`` (``shape``: the
        measure's), zero diagonal, from every pair's own table."""
        d, c = self.n_features, self.class_index
        self.count_all_pairs()
        out = np.zeros((*shape, d, d))
        for i in range(d):
            for j in range(i + 1, d):
                out[..., i, j] = out[..., j, i] = measure(self.counts((i, j, c)))
        return out
