"""The counts of every pair of feature values within each class, and what one cache reads from them.

:class:`PairCounts` is the all-pairs part of a :class:`bnclf.counts.CountCache`: it counts the
pairs of the values the rows hold (:mod:`bnclf.counts._bitsets`), lays them out as the pair
blocks, reads the per-value tables off their diagonal and the information terms of every pair
of features (:mod:`bnclf.counts._pair_terms`), and keeps each of these once made.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

import bnclf.counts._tally as _tally
from bnclf._threads import even_parts, run_parts
from bnclf.counts._bitsets import bitset_bytes, pair_counts_by_bits, weighted_pair_counts
from bnclf.counts._pair_terms import (
    PairSources,
    ValueLayout,
    check_pair_terms_size,
    feature_groups,
    pair_sources,
    pair_tables,
    pair_terms,
)
from bnclf.counts._rows import _VariableRows

if TYPE_CHECKING:
    from bnclf.counts._cache import CountCache


class ValuePlan(NamedTuple):
    """Which values the rows hold and how their pairs are counted, as
    :func:`bnclf.counts._tally.plan_values` fills them: ``used`` the positions of the values in
    use (increasing), ``column`` each value's place among them, ``bit_column`` its bitset's
    column, ``last_of`` (for the value without a bitset) its feature's first value in use, else
    ``-1``, ``order`` the values with a bitset then those without, ``n_counted`` how many have
    one."""

    used: np.ndarray
    column: np.ndarray
    bit_column: np.ndarray
    last_of: np.ndarray
    order: np.ndarray
    n_counted: int


class PairCounts:
    """The all-pairs arrays of one cache, each made once.

    The cache is passed to each call (its variables, budget checks, names for messages and,
    without rows, its :meth:`~bnclf.counts.CountCache.pair_blocks`: a summary's summed
    blocks); none is kept, so a cache and its pair counts form no reference cycle and are freed
    as soon as the cache is (a part of a cut into feature groups as soon as its terms are read).

    Parameters
    ----------
    rows : _VariableRows or None
        The coded rows, or None for a summary of counts.
    weights : ndarray or None
        The rows' weights.
    has_unknown : ndarray of bool
        Per variable, whether some row leaves it unknown.
    tables : dict
        The cache's ``family -> table`` memo, into which the tables read off the pair
        counts are put (never replacing a table held).

    Attributes
    ----------
    sources : PairSources or None
        The arrays the terms were read from, kept when the counts are whole numbers (the
        ``(i, j, class)`` tables are read from them exactly by :meth:`pair_tables`).
    value_class : ndarray or None
        ``(values, classes)``: the ``(j, class)`` tables stacked, once read off the diagonal.
    """

    def __init__(
        self, rows: _VariableRows | None, weights: np.ndarray | None, has_unknown: np.ndarray, tables: dict
    ) -> None:
        self._rows = rows
        self._weights = weights
        self._has_unknown = has_unknown
        self._tables = tables
        self.sources: PairSources | None = None
        self.value_class: np.ndarray | None = None
        self._plan: ValuePlan | None = None  # until the counts are made
        self._in_use: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # until the blocks are made
        self._blocks: tuple[np.ndarray, np.ndarray] | None = None
        self._terms: tuple[np.ndarray, np.ndarray] | None = None

    # -- the counts ----------------------------------------------------------------------------------
    def blocks(self, cache: CountCache) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`bnclf.counts.CountCache.pair_blocks` of the rows; from then on the counts in
        use are read from the blocks (one copy of the counts)."""
        if self._blocks is not None:
            return self._blocks
        width = int(cache.cardinalities[: cache.n_features].sum())
        cache.check_all_pairs_size()
        counts, used, offsets = self.counts_in_use(cache)
        blocks = np.zeros((width, width, cache.n_classes))
        blocks.reshape(width * width, -1)[(used[:, None] * width + used).ravel()] = counts.reshape(-1, cache.n_classes)
        self._blocks = (blocks, offsets)
        self._in_use = None
        return self._blocks

    def counts_in_use(self, cache: CountCache) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`bnclf.counts.CountCache.pair_counts_in_use`: from the rows (bitsets, or the
        weights added row by row), or read from the blocks once made or without rows."""
        if self._in_use is not None:
            return self._in_use
        if self._blocks is not None or self._rows is None:
            # the blocks (or, without rows, the summed tables): the values whose row of the
            # blocks is not all zero (a row cache also keeps values held only by rows of
            # weight 0, whose cells are zero: the same blocks)
            blocks, offsets = cache.pair_blocks()
            used = np.flatnonzero(blocks.any(axis=(1, 2)))
            return blocks[used[:, None], used], used, offsets
        d = cache.n_features
        cards = cache.cardinalities[:d]
        plan = self.plan(cache)
        n_used = plan.used.size
        offsets = np.cumsum(cards) - cards
        cache.check_all_pairs_size(n_used, extra=self._bitset_bytes(cache, n_used))
        counts = np.zeros((n_used, n_used, cache.n_classes))
        features, y = self._rows[:d], self._rows[cache.class_index]
        if n_used and self._weights is None:
            order = plan.order
            bits = (plan.bit_column, plan.last_of[:n_used], order[: plan.n_counted], order[plan.n_counted : n_used])
            pair_counts_by_bits(features, y, bits, offsets, cards, counts)
        elif n_used:
            weighted_pair_counts(features, y, self._weights, plan.column, offsets, counts)
        self._in_use = (counts, plan.used, offsets)
        self._plan = None
        return self._in_use

    def plan(self, cache: CountCache) -> ValuePlan:
        """The :class:`ValuePlan` of the rows' values, kept until the counts are made: one pass
        over the rows, which sizes :meth:`counts_in_use` before it allocates."""
        if self._plan is not None:
            return self._plan
        d = cache.n_features
        cards = cache.cardinalities[:d]
        width = int(cards.sum())
        offsets = np.cumsum(cards) - cards
        seen = np.zeros(width, dtype=np.uint8)  # whether some row holds each value (whatever its weight)
        held = functools.partial(_tally.values_held, self._rows[:d], offsets, seen)
        run_parts(held, even_parts(d, float(d) * cache.n_samples))
        used, column, bit_column, last_of, order = (np.empty(width, dtype=np.int64) for _ in range(5))
        n_used, n_counted = _tally.plan_values(
            seen, cards, self._has_unknown[:d].view(np.uint8), used, column, bit_column, last_of, order
        )
        self._plan = ValuePlan(used[:n_used], column, bit_column, last_of, order, int(n_counted))
        return self._plan

    def _bitset_bytes(self, cache: CountCache, n_used: int) -> float:
        """Bytes of the bitset buffers beside the counts of ``n_used`` values (none when weighted)."""
        if self._weights is not None:
            return 0.0
        return bitset_bytes(n_used, cache.n_features, cache.n_samples, cache.n_classes)

    # -- tables read off the counts ------------------------------------------------------------------
    def tables_from_diagonal(self, cache: CountCache) -> None:
        """:meth:`bnclf.counts.CountCache.tables_from_pair_counts`: hold each feature's
        ``(j, class)`` and ``(j,)`` tables, and :attr:`value_class`, from the diagonal of the
        counts in use when those are counted and unweighted (whole numbers); else nothing."""
        if self._in_use is None or self._weights is not None:
            return
        counts, used, offsets = self._in_use
        d, c = cache.n_features, cache.class_index
        cards = cache.cardinalities[:d]
        by_value = np.zeros((int(cards.sum()), cache.n_classes))
        by_value[used] = np.diagonal(counts).T  # counts[a, a, :]
        self.value_class = by_value
        # each feature's tables are slices of one copy of each array, apart from the stacked array
        # the cache keeps; tables are read, never written in place: a write would reach the
        # feature's neighbours
        by_class, by_value_only = by_value.copy(), by_value.sum(axis=1)
        for j, (start, r) in enumerate(zip(offsets.tolist(), cards.tolist())):
            self._tables.setdefault((j, c), by_class[start : start + r])
            self._tables.setdefault((j,), by_value_only[start : start + r])

    def pair_tables(self, cache: CountCache, pairs: list[tuple[int, int, int]]) -> None:
        """Hold the tables ``(i, j, class)`` of ``pairs`` (``i < j``), read exactly from
        :attr:`sources` (which must be set)."""
        self._tables.update(pair_tables(self.sources, cache.cardinalities, cache.n_classes, pairs))

    # -- the information terms -----------------------------------------------------------------------
    def information_terms(
        self, cache: CountCache, part_terms: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`bnclf.counts.CountCache.pair_information_terms`: all features at once, or a
        pair of feature groups at a time when only that fits the memory budget
        (``part_terms(features)``: the terms of the rows restricted to ``features``; None: never
        cut)."""
        if self._terms is None:
            groups = None if part_terms is None else self.term_groups(cache)
            self._terms = self._terms_at_once(cache) if groups is None else _terms_by_groups(cache, groups, part_terms)
        return self._terms

    def _terms_at_once(self, cache: CountCache) -> tuple[np.ndarray, np.ndarray]:
        d = cache.n_features
        cards = cache.cardinalities[:d]
        # whole counts are exact in float32 below 2**24 rows: half the memory
        exact = np.float32 if cache.whole_counts and cache.n_samples < 2**24 else np.float64
        self._check_terms_size(cache, np.dtype(exact).itemsize)  # before anything large is allocated
        layout = ValueLayout(cards)
        counts, used, _ = self.counts_in_use(cache)
        sources = pair_sources(counts, used, layout, cache.n_classes, exact)
        if cache.whole_counts:  # exact tables of pairs, for counts_many
            self.sources = sources
        terms, with_class = pair_terms(sources, layout)
        if self._weights is None:  # exact integers; weighted last values carry rounding: counted instead
            offsets = layout.offsets
            for i in range(d):
                self._tables.setdefault((i, cache.class_index), with_class[offsets[i] : offsets[i] + cards[i]])
        return np.moveaxis(terms, 0, -1), np.moveaxis(sources.known_pairs, 0, -1)

    def _check_terms_size(self, cache: CountCache, itemsize: int) -> None:
        """:func:`bnclf.counts._pair_terms.check_pair_terms_size` with the bytes of the counts
        in use (from the rows, this reads which values are in use: one pass, no large array)."""
        cards = cache.cardinalities[: cache.n_features]
        if self._in_use is not None:
            counts = float(self._in_use[0].nbytes)
        elif self._rows is not None and self._blocks is None:
            n_used = self.plan(cache).used.size
            counts = 8.0 * n_used * n_used * cache.n_classes + self._bitset_bytes(cache, n_used)
        else:  # the blocks (made, or assembled from the tables), and their values in use
            width = float(cards.sum())
            counts = 16.0 * width * width * cache.n_classes
        check_pair_terms_size(cards, cache.names, cache.n_classes, counts, itemsize)

    def term_groups(self, cache: CountCache) -> list[np.ndarray] | None:
        """:func:`bnclf.counts._pair_terms.feature_groups` of the rows' features; None without
        rows, once the counts are made, or below four features."""
        d = cache.n_features
        if self._rows is None or self._in_use is not None or d < 4:
            return None
        itemsize = 4 if cache.whole_counts and cache.n_samples < 2**24 else 8
        n_used = self.plan(cache).used.size
        bitsets = functools.partial(self._bitset_bytes, cache)
        return feature_groups(cache.cardinalities[:d], cache.n_classes, cache.n_samples, n_used, itemsize, bitsets)


def _terms_by_groups(
    cache: CountCache, groups: list[np.ndarray], part_terms: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    """The terms ``(features, features, classes)`` a pair of feature groups at a time: each
    pair's are ``part_terms`` of the two groups' features (the same numbers as all at once)."""
    d, n_classes = cache.n_features, cache.n_classes
    terms = np.zeros((d, d, n_classes))
    known_pairs = np.zeros((d, d, n_classes))
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            features = np.concatenate((groups[a], groups[b]))
            part, part_known = part_terms(features)
            where = np.ix_(features, features)
            terms[where] = part
            known_pairs[where] = part_known
            del part, part_known
    return terms, known_pairs
