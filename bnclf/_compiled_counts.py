"""The compiled loops of the all-pairs counts (bitsets) and the pair measures read from them,
re-exported by :mod:`bnclf._compiled_loops` (imported only through :mod:`bnclf._compiled`).

The counts are whole numbers, the same integers as the numpy one-hot products in any order
of steps and however the work is cut among threads (see :mod:`bnclf.counts._bitsets`).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic

_jit = numba.njit(cache=True, nogil=True)


@intrinsic
def _popcount(typingctx, word):  # pragma: no cover - compiled
    """The number of set bits of a uint64 (LLVM's ``ctpop``: one instruction where the CPU has it)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@_jit
def bitset_layout(y, n_classes, start, stop, totals):  # pragma: no cover - compiled
    """Where rows ``start:stop`` go in the bitsets of :func:`fill_bitsets`: ``(first_word, word,
    bit)``, each class's rows in order, in words of 64 (class ``c``'s words are
    ``first_word[c]:first_word[c + 1]``), and each row's word and bit; ``totals[c]`` gains the
    chunk's rows of class ``c``."""
    in_class = np.zeros(n_classes, dtype=np.int64)
    for t in range(start, stop):
        in_class[y[t]] += 1
    first_word = np.zeros(n_classes + 1, dtype=np.int64)
    for c in range(n_classes):
        first_word[c + 1] = first_word[c] + (in_class[c] + 63) // 64
        totals[c] += in_class[c]
    word = np.empty(stop - start, dtype=np.int64)
    bit = np.empty(stop - start, dtype=np.uint64)
    place = np.zeros(n_classes, dtype=np.int64)
    for t in range(start, stop):
        c = y[t]
        k = place[c]
        place[c] = k + 1
        word[t - start] = first_word[c] + (k >> 6)
        bit[t - start] = np.uint64(1) << np.uint64(k & 63)
    return first_word, word, bit


@_jit
def fill_bitsets(matrix, slot, offsets, word, bit, bits, start, first, last):  # pragma: no cover - compiled
    """Set the bits of features ``first:last`` for the rows from ``start`` (:func:`bitset_layout`'s
    ``word`` and ``bit``): value ``offsets[i] + code`` of feature ``i`` owns bitset
    ``slot[offsets[i] + code]``, column ``slot`` of ``bits`` ``(words, bitsets)``. ``matrix``
    ``(features, rows)`` holds the codes (``-1``: unknown, no value). The last value in use of a
    feature that every row knows has no bitset to count (its slot is a spare column of its
    feature's, never read): its counts are the totals less its feature's other values'
    (:func:`last_value_rows`), so a feature of ``r`` values in use counts ``r - 1``. A feature's
    columns are its own: features cut among threads set the same bits."""
    n = word.shape[0]
    flat = bits.reshape(-1)  # one index per bit set, unsigned: half the time of bits[w, s]
    row = np.empty(n, dtype=np.uint64)  # where each row's word of the bitsets starts
    for t in range(n):
        row[t] = word[t] * bits.shape[1]
    for i in range(first, last):  # a feature's codes are contiguous
        codes, slots = matrix[i, start : start + n], slot[offsets[i] :]
        for t in range(n):
            code = codes[t]
            if code >= 0:
                flat[row[t] + np.uint64(slots[code])] |= bit[t]


@_jit
def bitset_pair_rows(bits, first_word, counted, counts, start, stop):  # pragma: no cover - compiled
    """``counts[a, b, c] +=`` the rows of class ``c`` that hold value ``a`` and value ``b``, for
    the bitsets ``start:stop`` of :func:`fill_bitsets` and every ``b >= a`` (the upper half;
    ``counted`` is each bitset's value): one AND and one ``popcount`` per 64 rows, where
    one-hot products take 64 multiplications each. A bitset's row of ``counts`` is written
    by it alone, so bitsets cut among threads give the counts of one pass.

    Notes
    -----
    ``bits`` is ``(words, bitsets)``: a word of bitset ``a`` meets the same word of every
    ``b >= a`` along one contiguous row, which the compiler turns into vector ANDs and
    popcounts (:func:`_shared_bits`); with a bitset's words contiguous instead, each pair's
    few words of a class (a dozen on letter and splice) left only scalar popcounts and
    gathers: 0.33 and 0.71 ms on letter and splice, against 0.23 and 0.28 ms."""
    n, n_classes = counted.shape[0], first_word.shape[0] - 1
    shared = np.empty(n, dtype=np.uint64)
    for a in range(start, stop):
        out = counts[counted[a]]
        for c in range(n_classes):
            shared[: n - a] = 0
            for w in range(first_word[c], first_word[c + 1]):
                row = bits[w, a:n]
                _shared_bits(shared, row, row[0])
            for k in range(n - a):
                out[counted[a + k], c] += float(shared[k])


@_jit
def _shared_bits(shared, row, word):  # pragma: no cover - compiled
    """``shared[k] +=`` the bits ``word`` shares with ``row[k]``, for every ``k`` of ``row``
    (a loop of its own, over arrays that start at 0: the compiler vectorizes it)."""
    for k in range(row.shape[0]):
        shared[k] += _popcount(word & row[k])


_TILE = 16
"""Values per side of the squares the lower half is copied in (their rows stay in cache)."""


@_jit
def mirror_rows(counts, start, stop):  # pragma: no cover - compiled
    """The lower half of rows ``start:stop`` from the upper (exact: whole numbers below 2**53),
    a square of :data:`_TILE` values at a time; ``start`` a multiple of the tile. Each row is
    written alone and reads only the upper half: row ranges cut among threads copy the same."""
    n_classes = counts.shape[2]
    if n_classes == 2:  # the count as a constant: the copies of a cell unrolled
        _mirror_tiles(counts, start, stop, 2)
    elif n_classes == 3:
        _mirror_tiles(counts, start, stop, 3)
    else:
        _mirror_tiles(counts, start, stop, n_classes)


@_jit
def _mirror_tiles(counts, start, stop, n_classes):  # pragma: no cover - compiled
    """The loop of :func:`mirror_rows` for ``n_classes`` classes, through one unsigned index
    (splice: 0.11 ms with ``counts[a, b, c]``, 0.04 ms so)."""
    flat = counts.reshape(-1)
    step, width = np.uint64(counts.shape[1] * n_classes), np.uint64(n_classes)
    for a0 in range(start, stop, _TILE):
        for b0 in range(0, a0 + 1, _TILE):
            for a in range(a0, min(a0 + _TILE, stop)):
                for b in range(b0, min(b0 + _TILE, a)):
                    to, source = np.uint64(a) * step + np.uint64(b) * width, np.uint64(b) * step + np.uint64(a) * width
                    for c in range(n_classes):
                        flat[to + np.uint64(c)] = flat[source + np.uint64(c)]


@_jit
def last_value_diagonal(counts, totals, last_of, derived):  # pragma: no cover - compiled
    """The own counts ``N(l, c) = N(c) - sum N(a, c)`` of the values without a bitset
    (``derived``, those with ``last_of[l] >= 0``: the last value in use of a feature every row
    knows, whose first value in use is ``last_of[l]``), over the feature's other values ``a``:
    whole numbers, exact."""
    n_classes = counts.shape[2]
    for l in derived:
        for c in range(n_classes):
            total = totals[c]
            for a in range(last_of[l], l):
                total -= counts[a, a, c]
            counts[l, l, c] = total


@_jit
def last_value_rows(counts, diagonal, last_of, derived, start, stop):  # pragma: no cover - compiled
    """Row ``l`` of the values ``derived[start:stop]`` without a bitset: ``N(l, b, c) = N(b, c) -
    sum N(a, b, c)`` over ``l``'s feature's other values ``a`` (after :func:`mirror_rows` and
    :func:`last_value_diagonal`; ``diagonal`` is ``N(b, c)`` as one row, read before the parts
    start), a whole row at a time (vector subtractions). Right for every ``b`` with a bitset
    (for ``l`` itself and its feature's other values too: a row holds one value of a feature,
    so ``N(a, b) = 0`` for two of them); the cells of two values without a bitset are
    :func:`last_value_pairs`' to write, and :func:`last_value_columns` copies the rows into
    their columns. Each ``l`` writes its own row and reads only rows with a bitset, which no
    part writes: cut among threads, the same."""
    size = diagonal.shape[0]
    flat = counts.reshape(-1)
    for k in range(start, stop):
        l = derived[k]
        row = flat[l * size : (l + 1) * size]
        for e in range(size):
            row[e] = diagonal[e]
        for a in range(last_of[l], l):
            other = flat[a * size : (a + 1) * size]
            for e in range(size):
                row[e] -= other[e]


@_jit
def diagonal_row(counts):  # pragma: no cover - compiled
    """``N(b, c) = counts[b, b, c]`` as one row ``(n_used * n_classes,)``, a copy: what
    :func:`last_value_rows` reads, taken before any row is rewritten."""
    n_used, n_classes = counts.shape[0], counts.shape[2]
    out = np.empty(n_used * n_classes)
    for b in range(n_used):
        for c in range(n_classes):
            out[b * n_classes + c] = counts[b, b, c]
    return out


@_jit
def last_value_columns(counts, counted, derived, start, stop):  # pragma: no cover - compiled
    """Column ``l`` of the values ``derived[start:stop]`` from their rows (:func:`last_value_rows`),
    in the rows of the values with a bitset. Each ``l`` writes its own column: cut among
    threads, the same."""
    n_classes = counts.shape[2]
    for k in range(start, stop):
        l = derived[k]
        for b in counted:
            for c in range(n_classes):
                counts[b, l, c] = counts[l, b, c]


@_jit
def last_value_pairs(counts, last_of, derived):  # pragma: no cover - compiled
    """The cells of two values without a bitset, last: ``N(l, m, c) = N(m, c) - sum N(a, m, c)``
    over ``l``'s feature's other values ``a`` (after :func:`last_value_rows`)."""
    n_classes = counts.shape[2]
    for l in derived:
        for m in derived:
            if m != l:
                for c in range(n_classes):
                    total = counts[m, m, c]
                    for a in range(last_of[l], l):
                        total -= counts[a, m, c]
                    counts[l, m, c] = total


@_jit
def bitset_pair_counts(matrix, y, slot, offsets, counted, derived, last_of, counts, totals, step):  # pragma: no cover
    """:func:`bnclf.counts._bitsets.pair_counts_by_bits`' steps in this thread, in one call: for
    each chunk of ``step`` rows :func:`bitset_layout`, :func:`fill_bitsets` and
    :func:`bitset_pair_rows`, then :func:`mirror_rows`, :func:`last_value_diagonal`,
    :func:`last_value_rows`, :func:`last_value_columns` and :func:`last_value_pairs` (the same
    loops, whole: the same integers). For data whose steps are each too short to cut among
    threads, where a call per step cost more than the steps (vowel: 0.12 against 0.05 ms)."""
    d, n = matrix.shape
    n_used, n_classes = counts.shape[0], counts.shape[2]
    for start in range(0, n, step):
        first_word, word, bit = bitset_layout(y, n_classes, start, min(n, start + step), totals)
        bits = np.zeros((first_word[-1], counted.shape[0] + d), dtype=np.uint64)
        fill_bitsets(matrix, slot, offsets, word, bit, bits, start, 0, d)
        bitset_pair_rows(bits, first_word, counted, counts, 0, counted.shape[0])
    mirror_rows(counts, 0, n_used)
    last_value_diagonal(counts, totals, last_of, derived)
    last_value_rows(counts, diagonal_row(counts), last_of, derived, 0, derived.shape[0])
    last_value_columns(counts, counted, derived, 0, derived.shape[0])
    last_value_pairs(counts, last_of, derived)


@_jit
def values_in_use(seen):  # pragma: no cover - compiled
    """``(used, column)``: the positions of the values held (``seen``, increasing) and each
    value's place among them (``used.size`` for a value no row holds)."""
    used = np.flatnonzero(seen)
    column = np.full(seen.shape[0], used.shape[0], dtype=np.int64)
    for a in range(used.shape[0]):
        column[used[a]] = a
    return used, column


@_jit
def bitset_slots(used, cards, has_unknown):  # pragma: no cover - compiled
    """``(slot, last_of, counted, derived)``: each value in use's bitset, then one for the values
    no row holds; for the last value in use of a feature that no row leaves unknown, its
    feature's first value in use (else ``-1``); then the values with a bitset and those without
    (``last_of`` negative, and not), increasing.

    The last value in use of each feature that no row leaves unknown (``has_unknown`` false)
    takes no bitset of its own: its counts are totals less the others'. Its bits go to a spare
    column of its feature's, after the counted bitsets (column ``counted.size + feature``),
    never read: each column is written by one feature, so features cut among threads share
    none, and the bits are set without a branch on the value (a branch that about one row in
    four takes, on splice, cost 0.37 of 0.8 ms)."""
    n_used, d = used.shape[0], cards.shape[0]
    last_of = np.full(n_used, -1, dtype=np.int64)
    owner = np.empty(n_used, dtype=np.int64)
    a, end = 0, 0
    for j in range(d):  # the values in use of feature j: used[first:a], increasing
        end += cards[j]
        first = a
        while a < n_used and used[a] < end:
            owner[a] = j
            a += 1
        if a > first and not has_unknown[j]:
            last_of[a - 1] = first
    slot = np.empty(n_used + 1, dtype=np.int64)
    past = 0
    for a in range(n_used):
        if last_of[a] < 0:
            slot[a] = past
            past += 1
    for a in range(n_used):
        if last_of[a] >= 0:
            slot[a] = past + owner[a]
    slot[n_used] = past
    counted, derived = np.empty(past, dtype=np.int64), np.empty(n_used - past, dtype=np.int64)
    k, m = 0, 0
    for a in range(n_used):
        if last_of[a] < 0:
            counted[k] = a
            k += 1
        else:
            derived[m] = a
            m += 1
    return slot, last_of, counted, derived


@_jit
def values_held(matrix, offsets, width):  # pragma: no cover - compiled
    """Whether some row holds each value (``offsets[i] + code`` of feature ``i``; ``-1``: none)."""
    seen = np.zeros(width, dtype=np.bool_)
    for i in range(matrix.shape[0]):
        codes, mine = matrix[i], seen[offsets[i] :]
        for t in range(codes.shape[0]):
            code = codes[t]
            if code >= 0:
                mine[np.uint64(code)] = True  # an unsigned index: half the time
    return seen


@_jit
def pair_sources(counts, owner, column, n_features, out):  # pragma: no cover - compiled
    """:meth:`bnclf.counts.CountCache.pair_information_terms`' count arrays from the counts of
    every pair of values in use (``counts[a, b, c]``; ``owner[a]`` the feature of value ``a``,
    ``column[a]`` its counted column or ``out.shape[1]`` for a feature's last value), in one
    pass: ``out[c, column[a], column[b]]`` the counted value pairs, ``by_feature[c, column[a],
    j]`` value ``a``'s rows with feature ``j`` known (the sum over ``j``'s values) and
    ``known_pairs[c, i, j]`` the rows with both known (the sum of the pair's cells). Whole
    numbers: the sums are exact in any order, equal to the one-hot products' bit for bit."""
    n_used, n_classes, width = counts.shape[0], counts.shape[2], out.shape[1]
    by_feature = np.zeros((n_classes, width, n_features))
    known_pairs = np.zeros((n_classes, n_features, n_features))
    for c in range(n_classes):  # a class at a time: each array written along its rows
        for a in range(n_used):
            i, ca = owner[a], column[a]
            for b in range(n_used):
                j, cb = owner[b], column[b]
                value = counts[a, b, c]
                known_pairs[c, i, j] += value
                if ca < width:
                    by_feature[c, ca, j] += value
                    if cb < width:
                        out[c, ca, cb] = value
    return by_feature, known_pairs
