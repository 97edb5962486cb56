"""The information terms of every pair of features, from the counts of every pair of values.

For features ``i``, ``j`` and class ``c``, ``S[i, j, c] = sum_ab N_abc ln(N_abc N_c / (N_ac
N_bc))``, the marginals being those of the pair's own table (a row with either value unknown is
left out of that pair only); ``I(Xi; Xj | C) = sum_c S / (N ln 2)`` and ``I(Xi; Xj | C=c) = S /
(N_c ln 2)``, in bits, as :func:`bnclf.counts.conditional_mutual_information` and
:func:`bnclf.counts.label_conditional_mi` compute them table by table.

The counts ``(values in use, values in use, classes)`` are read into three class-first arrays
(:class:`PairSources`). Value pairs are kept for every value but the last of each feature (a
feature with one value keeps one column, which stays zero): the counts with a last value are the
totals less the others', so the arrays are ``(1 - 1/r)**2`` as large. The terms are summed over
a group of features at a time, so that no temporary exceeds about :data:`_PAIR_GROUP_CELLS`
cells; :func:`pair_terms_need` sizes every array held at once.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

import bnclf.counts._tally as _tally
from bnclf._config import TableTooLargeError, memory_budget, readable_size
from bnclf._entropy import xlogx
from bnclf._threads import even_parts, run_parts
from bnclf.counts._budget import describe_columns
from bnclf.counts._rows import _SegmentSums

_RESULT_ARRAYS = 3
"""Arrays of ``(features, features, classes)`` that the terms made a pair of feature groups at a
time hold besides one pair's (the results, a pair's results), and of ``(features, features)``
that the callers make."""

_VALUE_FEATURE_ARRAYS = 3
"""Arrays of ``(classes, kept values, features)`` held at once (the values with each feature
known, the values with each feature's last value, a temporary of their terms)."""

_PAIR_ARRAYS = 6
"""Arrays of ``(classes, features, features)`` held at once (the rows with both known, a first
value's counts, the terms, temporaries; the callers' results)."""

_PAIR_GROUP_CELLS = 1 << 18
"""Cells of the value-pair arrays that :func:`pair_terms` takes at a time."""


class ValueLayout:
    """Where each value of features of cardinalities ``cards`` sits.

    Attributes
    ----------
    offsets, width : each feature's first position among all values, and their number.
    kept, roff, rwidth : per feature, the values whose pairs are counted (all but the last,
        at least one), each feature's first position among them, and their number.
    owner : the feature of each value (``width``).
    counted : whether each value is kept (``width``, bool).
    column : each value's position among the kept ones (``rwidth`` for a last value).
    sums : :class:`bnclf.counts._rows._SegmentSums` over each feature's kept values.
    """

    def __init__(self, cards: np.ndarray) -> None:
        d = cards.size
        self.cards = cards
        self.offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
        self.width = int(cards.sum())
        self.kept = np.maximum(cards - 1, 1)
        self.roff = np.concatenate([[0], np.cumsum(self.kept)[:-1]]).astype(np.int64)
        self.rwidth = int(self.kept.sum())
        value = np.arange(self.width) - np.repeat(self.offsets, cards)  # each value's code
        self.owner = np.repeat(np.arange(d), cards)
        self.counted = value < cards[self.owner] - 1
        self.column = np.full(self.width, self.rwidth, dtype=np.int64)
        self.column[self.counted] = self.roff[self.owner[self.counted]] + value[self.counted]
        self.sums = _SegmentSums(self.roff, self.kept)


class PairSources(NamedTuple):
    """The class-first arrays the terms are read from: ``products[c, a, b] = N_abc`` of kept
    values ``a`` and ``b``, ``by_feature[c, a, j] = N_ac`` among the rows with feature ``j``
    known, ``known_pairs[c, i, j] = N_c`` among the rows with ``i`` and ``j`` known, and
    ``roff`` (:attr:`ValueLayout.roff`)."""

    products: np.ndarray
    by_feature: np.ndarray
    known_pairs: np.ndarray
    roff: np.ndarray


def pair_sources(counts: np.ndarray, used: np.ndarray, layout: ValueLayout, n_classes: int, dtype: type) -> PairSources:
    """:class:`PairSources` of the value-pair ``counts`` of the values at positions ``used``
    (:func:`bnclf.counts._tally.pair_sources`, the classes cut among threads); ``products`` in
    ``dtype`` (float32 is exact for whole counts below ``2**24`` rows), the others float64."""
    d = layout.cards.size
    products = np.zeros((n_classes, layout.rwidth, layout.rwidth), dtype=dtype)
    by_feature = np.zeros((n_classes, layout.rwidth, d))
    known_pairs = np.zeros((n_classes, d, d))
    fill = functools.partial(
        _tally.pair_sources, np.ascontiguousarray(counts), layout.owner[used], layout.column[used], products,
        by_feature, known_pairs
    )  # fmt: skip
    run_parts(fill, even_parts(n_classes, float(n_classes) * used.size * used.size))
    return PairSources(products, by_feature, known_pairs, layout.roff)


def pair_terms(sources: PairSources, layout: ValueLayout) -> tuple[np.ndarray, np.ndarray]:
    """``(terms, with_class)``: ``S`` class-first ``(classes, features, features)``, and the
    ``(j, class)`` tables of every feature stacked by value position ``(values, classes)``
    (a last value's counts are differences, clipped at zero).

    ``S = sum_ab xlogx(N_abc) - sum_a xlogx(N_ac) - sum_b xlogx(N_bc) + xlogx(N_c)`` with the
    sums over each pair's own table; its cells with a last value are totals less counted cells.
    """
    sums = layout.sums
    last = sources.known_pairs - sums(sources.by_feature, axis=1)  # (C, i, j): N of i's last value
    with_class = _class_tables(sources, last, layout)
    terms = _marginal_terms(sources, last, sums)
    with_last = _add_counted_pairs(terms, sources, layout)
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
    d = terms.shape[1]
    np.copyto(terms, 0.0, where=~np.triu(np.ones((d, d), dtype=bool), 1))  # the lower half by symmetry
    terms += terms.transpose(0, 2, 1).copy()
    return terms, with_class


def _class_tables(sources: PairSources, last: np.ndarray, layout: ValueLayout) -> np.ndarray:
    """The ``(j, class)`` tables stacked ``(values, classes)``: the kept values' from
    ``by_feature``, a last value's from ``last`` (the rows with ``j`` known, twice)."""
    d, rwidth = layout.cards.size, layout.rwidth
    own = sources.by_feature[:, np.arange(rwidth), np.repeat(np.arange(d), layout.kept)]  # (C, kept values)
    own_last = last[:, np.arange(d), np.arange(d)]  # (C, features)
    with_class = np.where(
        layout.counted[:, None], own.T[np.minimum(layout.column, rwidth - 1)], own_last.T[layout.owner]
    )
    np.maximum(with_class, 0.0, out=with_class)  # a last value's count, a difference: never below zero
    return with_class


def _marginal_terms(sources: PairSources, last: np.ndarray, sums: _SegmentSums) -> np.ndarray:
    """``xlogx(N_c) - sum_a xlogx(N_ac) - sum_b xlogx(N_bc)`` of every pair, class-first."""
    marginal = sums(xlogx(sources.by_feature), axis=1)
    marginal += xlogx(last)  # sum_a xlogx(N_ac)
    terms = xlogx(sources.known_pairs)
    terms -= marginal
    terms -= marginal.transpose(0, 2, 1)
    return terms


def _add_counted_pairs(terms: np.ndarray, sources: PairSources, layout: ValueLayout) -> np.ndarray:
    """Add ``sum_ab xlogx(N_abc)`` over the kept value pairs to ``terms`` (upper half), a group
    of features at a time, and return ``with_last[c, a, j]``: the count of value ``a`` with
    ``j``'s last value (``N_a(j known)`` less ``sum_b N_ab`` over ``j``'s kept values; by
    symmetry also the count of ``j``'s last value with ``a``)."""
    products, by_feature = sources.products, sources.by_feature
    n_classes, rwidth, d = by_feature.shape
    roff, kept, sums = layout.roff, layout.kept, layout.sums
    with_last = np.empty((n_classes, rwidth, d))
    per_feature = rwidth * n_classes * int(kept.max(initial=1))
    group = max(1, _PAIR_GROUP_CELLS // max(1, per_feature))
    for start in range(0, d, group):
        stop = min(d, start + group)
        lo, hi = int(roff[start]), int(roff[stop - 1] + kept[stop - 1])
        # pairs (i, j) with i in the group and j >= i: the rest follows by symmetry
        joint = products[:, lo:hi, lo:]  # (C, kept values of the group, kept values from lo on)
        rows, cols = sums.part(start, stop), sums.part(start, d)
        with_last[:, lo:hi, start:] = cols(joint, axis=2)
        with_last[:, lo:, start:stop] = rows(joint, axis=1).transpose(0, 2, 1)
        terms[:, start:stop, start:] += rows(cols(xlogx(joint), axis=2), axis=1)
    np.subtract(by_feature, with_last, out=with_last)
    return with_last


def pair_tables(
    sources: PairSources, cardinalities: np.ndarray, n_classes: int, pairs: Sequence[tuple[int, int, int]]
) -> dict[tuple, np.ndarray]:
    """The tables ``(i, j, class)`` of ``pairs`` (``i < j``) read from whole-count ``sources``:
    the counted cells as they are, a row or column of a last value as totals less counted
    cells (clipped at zero). Pairs of the same shape are read in one indexing."""
    products, by_feature, known_pairs, roff = sources
    shapes: dict[tuple[int, int], list] = {}
    for key in pairs:
        shapes.setdefault((int(cardinalities[key[0]]), int(cardinalities[key[1]])), []).append(key)
    tables = {}
    for (ri, rj), keys in shapes.items():
        first, second = (np.array([key[slot] for key in keys]) for slot in (0, 1))
        rows = roff[first][:, None] + np.arange(ri - 1)  # (pairs, counted values of i)
        cols = roff[second][:, None] + np.arange(rj - 1)
        table = np.empty((n_classes, len(keys), ri, rj))
        counted = products[:, rows[:, :, None], cols[:, None, :]]
        table[:, :, :-1, :-1] = counted
        table[:, :, :-1, -1] = by_feature[:, rows, second[:, None]] - counted.sum(axis=3)
        table[:, :, -1, :-1] = by_feature[:, cols, first[:, None]] - counted.sum(axis=2)
        table[:, :, -1, -1] = (
            known_pairs[:, first, second] - table[:, :, :-1, :].sum(axis=(2, 3)) - table[:, :, -1, :-1].sum(axis=2)
        )
        table = np.ascontiguousarray(np.moveaxis(table, 0, -1))
        np.maximum(table, 0.0, out=table)  # totals minus cells: no rounding below zero (summed weights)
        tables.update(zip(keys, table))
    return tables


# -- what the terms give ---------------------------------------------------------------------------
def cmi_from_terms(terms: np.ndarray, class_totals: np.ndarray) -> np.ndarray:
    """``I(Xi; Xj | C)`` in bits ``(d, d)`` from ``S`` and ``N_c`` ``(d, d, classes)``: zero
    diagonal, zero where a pair has no rows, never below zero."""
    totals = class_totals.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(totals > 0, terms.sum(axis=-1) / (totals * math.log(2.0)), 0.0)
    out = np.maximum(out, 0.0)
    np.fill_diagonal(out, 0.0)
    return out


def per_label_from_terms(terms: np.ndarray, class_totals: np.ndarray) -> np.ndarray:
    """``I(Xi; Xj | C=c)`` in bits ``(classes, d, d)`` from ``S`` and ``N_c`` ``(d, d,
    classes)``: zero diagonals, zero where a class has no rows of a pair, never below zero."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(class_totals > 0, terms / (class_totals * math.log(2.0)), 0.0)
    out = np.maximum(np.moveaxis(out, -1, 0), 0.0)
    for label in out:
        np.fill_diagonal(label, 0.0)
    return out


# -- memory ----------------------------------------------------------------------------------------
def pair_terms_need(cards: np.ndarray, n_classes: int, counts: float, itemsize: int) -> tuple[dict[str, float], float]:
    """``(parts, need)``: the bytes of the arrays the terms hold at once for features of
    cardinalities ``cards`` whose value-pair counts take ``counts`` bytes and whose kept value
    pairs take ``itemsize`` bytes a cell (the largest arrays by name, and their total)."""
    d = cards.size
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


def check_pair_terms_size(
    cards: np.ndarray, names: Sequence[str], n_classes: int, counts: float, itemsize: int
) -> None:
    """Raise :class:`TableTooLargeError` if :func:`pair_terms_need` is over the memory budget,
    naming the three columns with the most values, the arrays and the fix."""
    parts, need = pair_terms_need(cards, n_classes, counts, itemsize)
    budget = memory_budget()
    if need <= budget:
        return
    d, width = cards.size, float(cards.sum())
    largest = describe_columns(cards, names, np.argsort(-cards, kind="stable")[:3].tolist())
    itemized = ", ".join(f"{name} {readable_size(size)}" for name, size in sorted(parts.items(), key=lambda p: -p[1]))
    raise TableTooLargeError(
        f"the all-pairs information of the {d:,} features ({width:,.0f} values in all, {n_classes} classes; "
        f"the largest columns: {largest}) would take {readable_size(need)} at once ({itemized}), over the memory "
        f"budget of {readable_size(budget)}: these arrays grow with the square of the number of features and of "
        "values. "
        "Select fewer columns (for example with scikit-learn's SelectKBest in a Pipeline), drop identifier "
        "columns, merge rare categories or discretize with fewer bins, or use a learner that compares no "
        "pairs of features "
        "(NaiveBayesClassifier); bnclf.set_config(memory_budget=...) or $BNCLF_MEMORY_BUDGET raises the budget."
    )


def feature_groups(
    cards: np.ndarray, n_classes: int, n_samples: int, n_used: int, itemsize: int, bitsets: Callable[[int], float]
) -> list[np.ndarray] | None:
    """Groups of consecutive features whose pairs of groups the terms may take one at a time:
    None when every feature at once fits the memory budget (``n_used`` values in use, counted
    with ``bitsets(values)`` bytes of buffers), else the fewest groups for which the results
    ``(features, features, classes)`` and the arrays of the pair of groups with the most values
    (with a copy of their codes) fit; None when no number of groups fits."""
    d = cards.size
    budget = memory_budget()
    whole = 8.0 * n_used * n_used * n_classes + bitsets(n_used)
    if pair_terms_need(cards, n_classes, whole, itemsize)[1] <= budget:
        return None
    results = 8.0 * d * d * (n_classes * _RESULT_ARRAYS + _RESULT_ARRAYS)  # with the callers' (d, d) arrays
    for n_groups in range(2, d // 2 + 1):
        groups = np.array_split(np.arange(d), n_groups)
        widest = sorted((cards[group] for group in groups), key=lambda c: -int(c.sum()))[:2]
        union = np.concatenate(widest)  # the pair of groups with the most values: an upper bound
        values = float(union.sum())
        need = pair_terms_need(union, n_classes, 8.0 * values * values * n_classes, itemsize)[1]
        need += bitsets(int(values)) + 8.0 * n_samples * union.size  # and a copy of their codes
        if results + need <= budget:
            return groups
    return None
