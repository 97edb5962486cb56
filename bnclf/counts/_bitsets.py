"""The all-pairs counts: :meth:`bnclf.counts.CountCache.pair_counts_in_use`'s kernels, cut
among threads.

Unweighted rows are counted from bitsets: each value's rows of each class, 64 rows to a
word, and a pair's count within a class is the number of bits its two bitsets share (one AND
and one population count per 64 rows, for the pairs ``a <= b`` only). The bitsets are the
columns of one ``(words, bitsets)`` array, so that a word of one bitset meets the same word of
all the others along a row. The last value in use of a feature that no row leaves unknown
takes no bitset: its counts are the totals less its feature's other values' (exact: whole
numbers). Weighted rows are no bits to AND: each row adds its weight to the cell of every
pair of its known values (:func:`bnclf.counts._tally.weighted_pair_rows`).

The steps that hold the work (setting the bits, counting the pairs, the lower half, the values
without a bitset; a feature's pairs of weighted rows) are cut among threads where each part
gets enough of it (:mod:`bnclf._threads`: work counted in inner-loop steps), and each part
writes cells no other part writes, so the counts are the same numbers however many threads
there are.
"""

from __future__ import annotations

import functools

import numpy as np

import bnclf.counts._tally as _tally
from bnclf._threads import even_parts, part_count, run_parts, too_small_to_cut, triangle_parts

CHUNK_WORDS = 1 << 18
"""Words (of 64 rows each) of the bitsets of a chunk of rows: 2 MiB, however many rows the data has."""

_TILE = _tally.MIRROR_TILE
"""Values per side of the squares the lower half is copied in: the row ranges cut among threads
start at multiples of it."""


def pair_counts_by_bits(
    features: np.ndarray,
    y: np.ndarray,
    plan: tuple[np.ndarray, ...],
    offsets: np.ndarray,
    cards: np.ndarray,
    counts: np.ndarray,
) -> None:
    """``counts[a, b, c]``: the rows of class ``c`` that hold values ``used[a]`` and ``used[b]``.

    ``features`` ``(features, rows)`` holds the codes (``-1``: unknown), ``y`` the classes,
    ``plan`` is ``(bit_column, last_of, counted, derived)`` of
    :func:`bnclf.counts._tally.plan_values`, ``offsets`` each feature's first value and
    ``counts`` ``(values in use, values in use, classes)`` zeros, filled. A chunk of rows at a
    time, the bitsets are set (cut among threads by feature) and their pairs counted (by
    bitset: bitset ``a`` pairs with those from it on, a triangle); then the lower half is
    copied (by rows) and the values without a bitset are derived (one by one). Exact integers
    in float64. When no step has enough work to cut among threads, every step runs in one
    call (:func:`bnclf.counts._tally.bitset_pair_counts`), which saves a call from Python per
    step.
    """
    bit_column, last_of, counted, derived = plan
    d, n = features.shape
    n_used, n_classes = counts.shape[0], counts.shape[2]
    totals = np.zeros(n_classes)  # the rows of each class
    step = max(64, CHUNK_WORDS // max(1, n_used) * 64)
    tiles = -(-n_used // _TILE)
    mirror = n_used * n_used / 2 * n_classes
    rows_work = derived.size * float(n_used) * n_classes * float(cards.max(initial=1))
    columns_work = float(derived.size) * counted.size * n_classes
    work = (  # each step's items and inner-loop steps (the bitsets' over every chunk)
        (d, float(d) * n),
        (counted.size, counted.size * (counted.size + 1) / 2 * (n / 64.0 + n_classes)),
        (tiles, mirror),
        (derived.size, rows_work),
        (derived.size, columns_work),
    )
    if too_small_to_cut(max(steps for _, steps in work)) or all(part_count(*step_work) == 1 for step_work in work):
        _tally.bitset_pair_counts(features, y, bit_column, offsets, counted, derived, last_of, counts, totals, step)
        return
    for start in range(0, n, step):
        stop = min(n, start + step)
        first_word = np.empty(n_classes + 1, dtype=np.int64)
        word, bit = np.empty(stop - start, dtype=np.int64), np.empty(stop - start, dtype=np.uint64)
        _tally.bitset_layout(y, start, stop, totals, first_word, word, bit)
        bits = np.zeros((int(first_word[-1]), counted.size + d), dtype=np.uint64)  # spare columns after the counted
        fill = functools.partial(_tally.fill_bitsets, features, bit_column, offsets, word, bit, bits, start)
        run_parts(fill, even_parts(d, float(d) * word.size))
        pairs = counted.size * (counted.size + 1) / 2 * float(first_word[-1])
        rows = functools.partial(_tally.bitset_pair_rows, bits, first_word, counted, counts)
        run_parts(rows, triangle_parts(counted.size, pairs))
    mirror_rows(counts)
    if not derived.size:
        return
    _tally.last_value_diagonal(counts, totals, last_of, derived)
    diagonal = np.empty(n_used * n_classes)
    _tally.diagonal_row(counts, diagonal)
    rows = functools.partial(_tally.last_value_rows, counts, diagonal, last_of, derived)
    run_parts(rows, even_parts(derived.size, rows_work))
    columns = functools.partial(_tally.last_value_columns, counts, counted, derived)
    run_parts(columns, even_parts(derived.size, columns_work))
    _tally.last_value_pairs(counts, last_of, derived)


def weighted_pair_counts(
    features: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray,
    column: np.ndarray,
    offsets: np.ndarray,
    counts: np.ndarray,
) -> None:
    """``counts[a, b, c]``: the summed weights of the rows of class ``c`` that hold values
    ``used[a]`` and ``used[b]`` (``column``: each value's place among those in use), in row
    order; ``counts`` starts at zero. The features' pairs are cut among threads (feature ``i``
    pairs with those from it on, a triangle), then the lower half is copied."""
    d, n = features.shape
    pairs = functools.partial(_tally.weighted_pair_rows, features, y, weights, column, offsets, counts)
    run_parts(pairs, triangle_parts(d, d * (d + 1) / 2 * float(n)))
    mirror_rows(counts)


def mirror_rows(counts: np.ndarray) -> None:
    """The lower half of ``counts`` from the upper, rows cut among threads in whole tiles (the
    last rows copy the most)."""
    n_used = counts.shape[0]
    tiles = -(-n_used // _TILE)
    halves = triangle_parts(tiles, n_used * n_used / 2 * counts.shape[2])
    run_parts(lambda a, b: _tally.mirror_rows(counts, (tiles - b) * _TILE, min(n_used, (tiles - a) * _TILE)), halves)


def bitset_bytes(n_used: int, n_features: int, n_samples: int, n_classes: int) -> float:
    """Bytes of the buffers :func:`pair_counts_by_bits` holds besides the counts while it counts
    ``n_used`` values of ``n_samples`` rows: a chunk's bitsets and its rows' places."""
    if not n_used:
        return 0.0
    rows = min(n_samples, max(64, CHUNK_WORDS // max(1, n_used) * 64))
    words = rows / 64.0 + n_classes + 1
    return 8.0 * (words * (n_used + n_features) + 2 * rows + 2 * n_used * n_classes)
