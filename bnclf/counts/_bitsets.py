"""The all-pairs counts from bitsets: :meth:`bnclf.counts.CountCache.pair_counts_in_use` with the
compiled loops and unweighted rows.

Each value's rows of each class are a bitset (64 rows to a word, each class's rows in order),
and a pair's count within a class is the number of bits its two bitsets share: one AND and
one ``popcount`` per 64 rows, for the pairs ``a <= b`` only, where a one-hot product makes 64
multiply-adds and both halves. The bitsets are the columns of one ``(words, bitsets)``
array, so that a word of one bitset meets the same word of all the others along a row (vector
ANDs and popcounts). The last value in use of a feature that no row leaves
unknown takes no bitset: its counts are the totals less its feature's other values' (exact:
whole numbers). The steps that hold the work (setting the bits, counting the pairs, the
lower half, the values without a bitset) are cut among threads where each part gets enough
of it (:mod:`bnclf._threads`; the rest is serial and small), and each part writes cells no
other part writes, so the counts are the same integers however many threads there are.
"""

from __future__ import annotations

import functools
from types import ModuleType

import numpy as np

from bnclf._threads import even_parts, part_count, run_parts, too_small_to_cut, triangle_parts

POPCOUNT_NS = 0.25
"""Nanoseconds per pair of bitsets and word (an AND and a ``popcount``, vectorized: splice's
0.28 ms on the benchmark machine), to cut the work among threads; :data:`BIT_NS` per row and
feature of setting the bits (splice 0.15 ms), :data:`COPY_NS` per cell copied (the lower half:
0.11 ms) and :data:`SUBTRACT_NS` per cell of a whole row subtracted (the values without a
bitset: 0.04 ms)."""

BIT_NS = 1.0
COPY_NS = 1.0
SUBTRACT_NS = 0.2

CHUNK_WORDS = 1 << 18
"""Words (of 64 rows each) of the bitsets of a chunk of rows: 2 MiB, however many rows the data has."""


def pair_counts_by_bits(
    loops: ModuleType,
    matrix: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    used: np.ndarray,
    cards: np.ndarray,
    column: np.ndarray,
    offsets: np.ndarray,
    has_unknown: np.ndarray,
) -> np.ndarray:
    """``counts[a, b, c]``: the rows of class ``c`` that hold values ``used[a]`` and ``used[b]``.

    ``matrix`` ``(features, rows)`` holds the codes (``-1``: unknown), ``y`` the classes,
    ``column`` each value's place among those in use (``used.size``: none) and ``offsets``
    each feature's first value. A chunk of rows at a time, the bitsets are set (cut among
    threads by feature) and their pairs counted (by bitset: bitset ``a`` pairs with those from
    it on, a triangle); then the lower half is copied (by rows) and the values without a
    bitset are derived (one by one). Exact integers in float64. When no step has enough work
    to cut among threads (small data), the same steps run in one compiled call
    (``bitset_pair_counts``), which saves a call and its Python around each.
    """
    d, n = matrix.shape
    # bitset_slots' arrays, then each bitset's value and the values without one, in one pass
    slot, last_of, counted, derived = loops.bitset_slots(used, cards, has_unknown)
    counts = np.zeros((used.size, used.size, n_classes))  # the upper half while counting
    totals = np.zeros(n_classes)  # the rows of each class
    slot = slot[column]
    step = max(64, CHUNK_WORDS // max(1, used.size) * 64)
    tile = loops._TILE  # the lower half, in whole tiles of rows (mirror_rows' own): the last rows copy the most
    tiles = -(-used.size // tile)
    mirror_ns = used.size * used.size / 2 * n_classes * COPY_NS
    rows_ns = derived.size * float(used.size) * n_classes * SUBTRACT_NS * float(cards.max(initial=1))
    columns_ns = float(derived.size) * counted.size * n_classes * COPY_NS
    work = (  # each step's items and estimated nanoseconds (the bitsets' over every chunk)
        (d, float(d) * n * BIT_NS),
        (counted.size, counted.size * (counted.size + 1) / 2 * (n / 64.0 + n_classes) * POPCOUNT_NS),
        (tiles, mirror_ns),
        (derived.size, rows_ns),
        (derived.size, columns_ns),
    )
    # every step in this thread: one call
    if too_small_to_cut(max(ns for _, ns in work)) or all(part_count(items, ns) == 1 for items, ns in work):
        loops.bitset_pair_counts(matrix, y, slot, offsets, counted, derived, last_of, counts, totals, step)
        return counts
    for start in range(0, n, step):
        first_word, word, bit = loops.bitset_layout(y, n_classes, start, min(n, start + step), totals)
        bits = np.zeros((first_word[-1], counted.size + d), dtype=np.uint64)  # spare columns after the counted
        fill = functools.partial(loops.fill_bitsets, matrix, slot, offsets, word, bit, bits, start)
        run_parts(fill, even_parts(d, float(d) * word.size * BIT_NS))
        pairs = counted.size * (counted.size + 1) / 2 * float(first_word[-1]) * POPCOUNT_NS
        rows = functools.partial(loops.bitset_pair_rows, bits, first_word, counted, counts)
        run_parts(rows, triangle_parts(counted.size, pairs))
    halves = triangle_parts(tiles, mirror_ns)
    run_parts(lambda a, b: loops.mirror_rows(counts, (tiles - b) * tile, min(used.size, (tiles - a) * tile)), halves)
    loops.last_value_diagonal(counts, totals, last_of, derived)
    rows = functools.partial(loops.last_value_rows, counts, loops.diagonal_row(counts), last_of, derived)
    run_parts(rows, even_parts(derived.size, rows_ns))
    columns = functools.partial(loops.last_value_columns, counts, counted, derived)
    run_parts(columns, even_parts(derived.size, columns_ns))
    loops.last_value_pairs(counts, last_of, derived)
    return counts
