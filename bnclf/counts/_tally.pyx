# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The counting kernels of :class:`bnclf.counts.CountCache`: every count table of coded rows.

Codes are int64, ``-1`` for an unknown value; the features' codes are the rows of one
``(features, rows)`` array, the class codes a row of their own (variable ``features``, the
class, in a family). A row with an unknown value in a family is left out of that family's
table. Every kernel releases the GIL and writes only the cells of the work it is given
(families, features, bitsets, classes or rows of a table, ``first:last``), each cell by the
same steps in the same order however the work is cut, so that parts run in threads at once
(:mod:`bnclf._threads`) give the numbers of one call, bit for bit.

Kernels
-------
:func:`count_families`
    The tables of families of variables: one pass over the rows per family, adding 1 (or
    the row's weight) into the cell of the row's codes, in row order (the sums of
    ``np.bincount``).
:func:`values_held` and :func:`plan_values`
    The values some row holds and where each goes in the all-pairs counts and the bitsets.
:func:`bitset_pair_counts` and its steps (:func:`bitset_layout`, :func:`fill_bitsets`,
:func:`bitset_pair_rows`, :func:`mirror_rows`, :func:`last_value_diagonal`,
:func:`diagonal_row`, :func:`last_value_rows`, :func:`last_value_columns`, :func:`last_value_pairs`)
    The counts of every pair of values in use within each class from unweighted rows.
:func:`weighted_pair_rows`
    The same counts from weighted rows (then :func:`mirror_rows`).
:func:`pair_sources`
    The arrays the pair information terms are computed from, read from those counts.
"""

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cdef extern from *:
    """
    #include <stdint.h>
    #include <stddef.h>

    /* shared[k] += the bits that bitset 0 shares with bitset k (k < width), over words
       first:last of a (words, stride) array of bitsets whose column 0 is bitset 0: one AND and
       one population count per word and pair. */
    #define BNCLF_PAIR_WORDS_BODY for (ptrdiff_t w = first; w < last; w++) { const uint64_t *row = bits + w * stride; const uint64_t word = row[0]; for (ptrdiff_t k = 0; k < width; k++) shared[k] += BNCLF_POPCOUNT(word & row[k]); }

    #if defined(__GNUC__) || defined(__clang__)
    #define BNCLF_POPCOUNT(x) ((uint64_t)__builtin_popcountll(x))
    #else
    static uint64_t bnclf_popcount_swar(uint64_t x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (x * 0x0101010101010101ULL) >> 56;
    }
    #define BNCLF_POPCOUNT(x) bnclf_popcount_swar(x)
    #endif

    static void bnclf_pair_words_plain(uint64_t *shared, const uint64_t *bits, ptrdiff_t stride,
                                       ptrdiff_t first, ptrdiff_t last, ptrdiff_t width) {
        BNCLF_PAIR_WORDS_BODY
    }

    /* x86 builds for the baseline CPU, which lacks a population count instruction: the loop is
       compiled again for CPUs that have one (and for those with vector population counts),
       and the CPU chooses at run time. The same integers either way. */
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __attribute__((target("popcnt")))
    static void bnclf_pair_words_popcnt(uint64_t *shared, const uint64_t *bits, ptrdiff_t stride,
                                        ptrdiff_t first, ptrdiff_t last, ptrdiff_t width) {
        BNCLF_PAIR_WORDS_BODY
    }
    __attribute__((target("popcnt,avx512f,avx512vpopcntdq")))
    static void bnclf_pair_words_vector(uint64_t *shared, const uint64_t *bits, ptrdiff_t stride,
                                        ptrdiff_t first, ptrdiff_t last, ptrdiff_t width) {
        BNCLF_PAIR_WORDS_BODY
    }
    static int bnclf_popcount_kind = -1;
    static void bnclf_pair_words(uint64_t *shared, const uint64_t *bits, ptrdiff_t stride,
                                 ptrdiff_t first, ptrdiff_t last, ptrdiff_t width) {
        int kind = bnclf_popcount_kind;
        if (kind < 0) {
            __builtin_cpu_init();
            kind = __builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512f") ? 2
                   : __builtin_cpu_supports("popcnt") ? 1 : 0;
            bnclf_popcount_kind = kind;
        }
        if (kind == 2) bnclf_pair_words_vector(shared, bits, stride, first, last, width);
        else if (kind == 1) bnclf_pair_words_popcnt(shared, bits, stride, first, last, width);
        else bnclf_pair_words_plain(shared, bits, stride, first, last, width);
    }
    #else
    #define bnclf_pair_words bnclf_pair_words_plain
    #endif
    """
    void bnclf_pair_words(uint64_t *shared, const uint64_t *bits, Py_ssize_t stride,
                          Py_ssize_t first, Py_ssize_t last, Py_ssize_t width) noexcept nogil


ctypedef fused real:
    float
    double

cdef Py_ssize_t TILE = 16
MIRROR_TILE = TILE
"""Values per side of the squares :func:`mirror_rows` copies (their rows stay in cache): a part
of the rows starts at a multiple of it."""

cdef Py_ssize_t ROW_BLOCK = 1024
"""Rows whose places :func:`weighted_pair_rows` looks up at a time (a bounded scratch)."""

cdef Py_ssize_t COPIES = 4
"""Copies of a table that unweighted rows are counted in, in turn (see :func:`count_families`)."""


# ------------------------------------------------------------------------------ family tables
def count_families(const int64_t[:, ::1] features, const int64_t[::1] y, const int64_t[:, ::1] variables,
                   const int64_t[:, ::1] strides, const int64_t[::1] bases, const int64_t[::1] sizes,
                   const double[::1] weights, double[::1] out, Py_ssize_t first, Py_ssize_t last):
    """Add the tables of families ``first:last`` into ``out``.

    Parameters
    ----------
    features : int64 array (features, rows)
        The features' codes (``-1``: unknown).
    y : int64 array (rows,)
        The class codes: variable ``features.shape[0]`` of a family.
    variables, strides : int64 arrays (families, size)
        Each family's variables and their strides: a row's cell is ``bases[f] + sum_s
        code[variables[f, s]] * strides[f, s]``.
    bases, sizes : int64 arrays (families,)
        Where each family's table starts in ``out``, and its cells.
    weights : float64 array (rows,) or None
        What each row adds (None: 1).
    out : float64 array
        The tables, added to (each family's cells are its own).

    Notes
    -----
    A row with an unknown code among a family's variables adds nothing to its table.
    Weighted rows add their weights to each cell in row order: the sums of ``np.bincount``
    over the combined codes, bit for bit. Unweighted rows are counted in whole numbers,
    exact; when a table has at most a quarter as many cells as there are rows, in four
    copies of it that take every fourth row (consecutive rows often share a cell, and an
    addition then waits for the one before), added up at the end: a scratch of at most
    one int64 per row.
    """
    cdef Py_ssize_t n = y.shape[0], d = features.shape[0], size = variables.shape[1], f, s, k
    cdef Py_ssize_t cells, most = 0
    cdef const double* w = NULL
    cdef const int64_t** rows
    cdef int64_t* tally = NULL
    cdef double* table
    cdef int64_t v
    if n == 0 or last <= first:
        return
    if weights is not None:
        w = &weights[0]
    else:
        for f in range(first, last):
            if COPIES * sizes[f] <= n:
                most = max(most, sizes[f])
    rows = <const int64_t**> malloc(max(size, 1) * sizeof(int64_t*))
    if most:
        tally = <int64_t*> malloc(COPIES * most * sizeof(int64_t))
    if rows == NULL or (most and tally == NULL):
        free(rows)
        free(tally)
        raise MemoryError()
    with nogil:
        for f in range(first, last):
            for s in range(size):
                v = variables[f, s]
                rows[s] = &y[0] if v == d else &features[v, 0]
            cells, table = sizes[f], &out[bases[f]]
            if w != NULL:
                _add_weights(rows, &strides[f, 0], size, n, w, table)
            elif COPIES * cells <= n:
                memset(tally, 0, COPIES * cells * sizeof(int64_t))
                _tally_copies(rows, &strides[f, 0], size, n, tally, cells)
                for k in range(cells):
                    table[k] += <double> (tally[k] + tally[cells + k] + tally[2 * cells + k] + tally[3 * cells + k])
            else:
                _add_ones(rows, &strides[f, 0], size, n, table)
    free(rows)
    free(tally)


cdef inline int64_t _cell(const int64_t** rows, const int64_t* stride, Py_ssize_t size, const int64_t* first,
                          const int64_t* second, int64_t s0, int64_t s1, Py_ssize_t t) noexcept nogil:
    """Row ``t``'s cell in its family's table, or ``-1`` when one of its codes is unknown (a
    negative code's sign bit spread over the word is ``-1``). A family of one or two variables
    (a feature and the class: naive Bayes' tables) reads ``first`` and ``second`` (the same row
    for one, with ``s1 = 0``)."""
    cdef int64_t code, other, index = 0, known = 0
    cdef Py_ssize_t s
    if size <= 2:
        code, other = first[t], second[t]
        return (code * s0 + other * s1) | ((code | other) >> 63)
    for s in range(size):
        code = rows[s][t]
        known |= code
        index += code * stride[s]
    return index | (known >> 63)


cdef void _add_weights(const int64_t** rows, const int64_t* stride, Py_ssize_t size, Py_ssize_t n,
                       const double* w, double* table) noexcept nogil:
    cdef const int64_t* first = rows[0]
    cdef const int64_t* second = rows[1] if size > 1 else rows[0]
    cdef int64_t s0 = stride[0], s1 = stride[1] if size > 1 else 0, cell
    cdef Py_ssize_t t
    for t in range(n):
        cell = _cell(rows, stride, size, first, second, s0, s1, t)
        if cell >= 0:
            table[cell] += w[t]


cdef void _add_ones(const int64_t** rows, const int64_t* stride, Py_ssize_t size, Py_ssize_t n,
                    double* table) noexcept nogil:
    cdef const int64_t* first = rows[0]
    cdef const int64_t* second = rows[1] if size > 1 else rows[0]
    cdef int64_t s0 = stride[0], s1 = stride[1] if size > 1 else 0, cell
    cdef Py_ssize_t t
    for t in range(n):
        cell = _cell(rows, stride, size, first, second, s0, s1, t)
        if cell >= 0:
            table[cell] += 1.0


cdef void _tally_copies(const int64_t** rows, const int64_t* stride, Py_ssize_t size, Py_ssize_t n,
                        int64_t* tally, Py_ssize_t cells) noexcept nogil:
    """Rows ``t`` counted in copy ``t % 4`` of the table (:data:`COPIES`), four rows a step."""
    cdef const int64_t* first = rows[0]
    cdef const int64_t* second = rows[1] if size > 1 else rows[0]
    cdef int64_t s0 = stride[0], s1 = stride[1] if size > 1 else 0, cell
    cdef int64_t* copy1 = tally + cells
    cdef int64_t* copy2 = tally + 2 * cells
    cdef int64_t* copy3 = tally + 3 * cells
    cdef Py_ssize_t t = 0
    while t + 4 <= n:
        cell = _cell(rows, stride, size, first, second, s0, s1, t)
        if cell >= 0:
            tally[cell] += 1
        cell = _cell(rows, stride, size, first, second, s0, s1, t + 1)
        if cell >= 0:
            copy1[cell] += 1
        cell = _cell(rows, stride, size, first, second, s0, s1, t + 2)
        if cell >= 0:
            copy2[cell] += 1
        cell = _cell(rows, stride, size, first, second, s0, s1, t + 3)
        if cell >= 0:
            copy3[cell] += 1
        t += 4
    while t < n:
        cell = _cell(rows, stride, size, first, second, s0, s1, t)
        if cell >= 0:
            tally[cell] += 1
        t += 1


# ------------------------------------------------------------------------------ the values in use
def values_held(const int64_t[:, ::1] features, const int64_t[::1] offsets, unsigned char[::1] seen,
                Py_ssize_t first, Py_ssize_t last):
    """``seen[offsets[j] + code] = 1`` for every code of features ``first:last`` (``-1``, unknown,
    is no value): whether some row holds each value. A feature's flags are its own: features
    cut among threads set the same flags."""
    cdef Py_ssize_t n = features.shape[1], j, t
    cdef const int64_t* codes
    cdef unsigned char* mine
    cdef int64_t code
    with nogil:
        for j in range(first, last):
            codes, mine = &features[j, 0], &seen[offsets[j]]
            for t in range(n):
                code = codes[t]
                if code >= 0:
                    mine[code] = 1


def plan_values(const unsigned char[::1] seen, const int64_t[::1] cards, const unsigned char[::1] has_unknown,
                int64_t[::1] used, int64_t[::1] column, int64_t[::1] bit_column, int64_t[::1] last_of,
                int64_t[::1] order):
    """The values in use and their places in the all-pairs counts and the bitsets.

    Parameters
    ----------
    seen : uint8 array (values,)
        Whether some row holds each value (feature ``j``'s values from ``sum(cards[:j])``,
        :func:`values_held`): the values in use.
    cards : int64 array (features,)
        Each feature's values.
    has_unknown : uint8 array (features,)
        Whether some row leaves the feature unknown.
    used, column, bit_column, last_of, order : int64 arrays
        Filled: ``used[:n_used]`` the values in use, increasing; ``column[v]`` value ``v``'s
        place among them (``n_used``: not in use); ``bit_column[v]`` its bitset's column;
        ``last_of[:n_used]``, for the last value in use of a feature no row leaves unknown, its
        feature's first value in use (its counts are the totals less the others': it takes no
        bitset), else ``-1``; ``order[:n_used]`` the values with a bitset, then those without,
        each increasing. ``used``, ``column`` and ``bit_column`` hold ``values`` entries,
        ``last_of`` and ``order`` at least ``n_used``.

    Returns
    -------
    (n_used, n_counted) : the values in use and those with a bitset (columns ``0:n_counted``).
        A value without one writes its bits to column ``n_counted + j`` of its feature ``j``,
        which is never read (the value not in use of a feature likewise).
    """
    cdef Py_ssize_t width = seen.shape[0], d = cards.shape[0], v, a, j, start, end, first, n_used = 0
    cdef Py_ssize_t n_counted = 0, k
    with nogil:
        for v in range(width):
            if seen[v]:
                used[n_used] = v
                n_used += 1
        for v in range(width):
            column[v] = n_used
        for a in range(n_used):
            column[used[a]] = a
            last_of[a] = -1
        a, end = 0, 0
        for j in range(d):
            start, end = end, end + cards[j]
            first = a
            while a < n_used and used[a] < end:
                a += 1
            if a > first and not has_unknown[j]:
                last_of[a - 1] = first
        for a in range(n_used):
            if last_of[a] < 0:
                order[n_counted] = a
                n_counted += 1
        k = n_counted
        for a in range(n_used):
            if last_of[a] >= 0:
                order[k] = a
                k += 1
        end = 0
        for j in range(d):
            start, end = end, end + cards[j]
            for v in range(start, end):
                bit_column[v] = n_counted + j  # a spare column of the feature's, never read
        for k in range(n_counted):
            bit_column[used[order[k]]] = k
    return n_used, n_counted


# ------------------------------------------------------------------------------ bitsets
def bitset_layout(const int64_t[::1] y, Py_ssize_t start, Py_ssize_t stop, double[::1] totals,
                  int64_t[::1] first_word, int64_t[::1] word, uint64_t[::1] bit):
    """Where rows ``start:stop`` go in the bitsets: each class's rows in order, 64 to a word;
    ``first_word`` ``(classes + 1,)`` the first word of each class (its words end where the
    next class's start), ``word`` and ``bit`` ``(stop - start,)`` each row's word and bit;
    ``totals[c]`` gains the rows of class ``c``."""
    with nogil:
        _layout(&y[0], start, stop, totals.shape[0], &totals[0], &first_word[0], &word[0], &bit[0])


cdef int _layout(const int64_t* y, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t n_classes, double* totals,
                 int64_t* first_word, int64_t* word, uint64_t* bit) noexcept nogil:
    cdef int64_t* place = <int64_t*> malloc(max(n_classes, 1) * sizeof(int64_t))
    cdef Py_ssize_t t, c
    cdef int64_t k
    if place == NULL:
        return -1
    memset(place, 0, n_classes * sizeof(int64_t))
    for t in range(start, stop):
        place[y[t]] += 1
    first_word[0] = 0
    for c in range(n_classes):
        first_word[c + 1] = first_word[c] + (place[c] + 63) // 64
        totals[c] += place[c]
        place[c] = 0
    for t in range(start, stop):
        c = y[t]
        k = place[c]
        place[c] = k + 1
        word[t - start] = first_word[c] + (k >> 6)
        bit[t - start] = (<uint64_t> 1) << (k & 63)
    free(place)
    return 0


def fill_bitsets(const int64_t[:, ::1] features, const int64_t[::1] bit_column, const int64_t[::1] offsets,
                 const int64_t[::1] word, const uint64_t[::1] bit, uint64_t[:, ::1] bits, Py_ssize_t start,
                 Py_ssize_t first, Py_ssize_t last):
    """Set the bits of features ``first:last`` for the rows from ``start`` (:func:`bitset_layout`'s
    ``word`` and ``bit``): value ``offsets[j] + code`` of feature ``j`` sets its bit in column
    ``bit_column[offsets[j] + code]`` of ``bits`` ``(words, columns)``. A feature's columns are
    its own (:func:`plan_values`): features cut among threads set the same bits."""
    with nogil:
        _fill(&features[0, 0], features.shape[1], &bit_column[0], &offsets[0], &word[0], &bit[0], &bits[0, 0],
              bits.shape[1], start, word.shape[0], first, last)


cdef void _fill(const int64_t* features, Py_ssize_t n, const int64_t* bit_column, const int64_t* offsets,
                const int64_t* word, const uint64_t* bit, uint64_t* bits, Py_ssize_t columns, Py_ssize_t start,
                Py_ssize_t rows, Py_ssize_t first, Py_ssize_t last) noexcept nogil:
    """:func:`fill_bitsets`, four features at a time along the rows: rows in a row often set a
    bit in the same word of the same bitset, and an OR then waits for the one before; the
    four features' ORs go to four bitsets of their own, and do not wait for each other."""
    cdef Py_ssize_t j = first, t, place
    cdef const int64_t* c0
    cdef const int64_t* c1
    cdef const int64_t* c2
    cdef const int64_t* c3
    cdef const int64_t* s0
    cdef const int64_t* s1
    cdef const int64_t* s2
    cdef const int64_t* s3
    cdef int64_t code
    cdef uint64_t b
    while j + 4 <= last:
        c0, c1, c2, c3 = features + j * n + start, features + (j + 1) * n + start, features + (j + 2) * n + start, \
            features + (j + 3) * n + start
        s0, s1, s2, s3 = bit_column + offsets[j], bit_column + offsets[j + 1], bit_column + offsets[j + 2], \
            bit_column + offsets[j + 3]
        for t in range(rows):
            place, b = word[t] * columns, bit[t]
            code = c0[t]
            if code >= 0:
                bits[place + s0[code]] |= b
            code = c1[t]
            if code >= 0:
                bits[place + s1[code]] |= b
            code = c2[t]
            if code >= 0:
                bits[place + s2[code]] |= b
            code = c3[t]
            if code >= 0:
                bits[place + s3[code]] |= b
        j += 4
    while j < last:
        c0, s0 = features + j * n + start, bit_column + offsets[j]
        for t in range(rows):
            code = c0[t]
            if code >= 0:
                bits[word[t] * columns + s0[code]] |= bit[t]
        j += 1


def bitset_pair_rows(const uint64_t[:, ::1] bits, const int64_t[::1] first_word, const int64_t[::1] counted,
                     double[:, :, ::1] counts, Py_ssize_t start, Py_ssize_t stop):
    """``counts[counted[a], counted[b], c] +=`` the rows of class ``c`` whose bits bitsets ``a``
    and ``b`` share, for bitsets ``a`` in ``start:stop`` and every ``b >= a`` (the upper half).
    A bitset's row of ``counts`` is written by it alone: bitsets cut among threads give the
    counts of one call."""
    if counted.shape[0] == 0 or stop <= start:
        return
    with nogil:
        _pair_rows(&bits[0, 0], bits.shape[1], &first_word[0], first_word.shape[0] - 1, &counted[0],
                   counted.shape[0], &counts[0, 0, 0], counts.shape[0], start, stop)


cdef int _pair_rows(const uint64_t* bits, Py_ssize_t columns, const int64_t* first_word, Py_ssize_t n_classes,
                    const int64_t* counted, Py_ssize_t n_counted, double* counts, Py_ssize_t n_used,
                    Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    """:func:`bitset_pair_rows`: ``bits`` ``(words, columns)``, a word of bitset ``a`` meeting
    the same word of every ``b >= a`` along one contiguous row; each class's shared bits are
    counted first, then added to ``a``'s row of ``counts`` along its cells."""
    cdef uint64_t* shared = <uint64_t*> malloc(max(n_counted * n_classes, 1) * sizeof(uint64_t))
    cdef Py_ssize_t a, c, k, width
    cdef double* out
    cdef double* cell
    if shared == NULL:
        return -1
    for a in range(start, stop):
        width = n_counted - a
        memset(shared, 0, n_classes * width * sizeof(uint64_t))
        for c in range(n_classes):
            bnclf_pair_words(shared + c * width, bits + a, columns, first_word[c], first_word[c + 1], width)
        out = counts + counted[a] * n_used * n_classes
        for k in range(width):
            cell = out + counted[a + k] * n_classes
            for c in range(n_classes):
                cell[c] += <double> shared[c * width + k]
    free(shared)
    return 0


def mirror_rows(double[:, :, ::1] counts, Py_ssize_t start, Py_ssize_t stop):
    """The lower half of rows ``start:stop`` of ``counts`` ``(values, values, classes)`` from the
    upper, a square of 16 values at a time (``start`` a multiple of 16). Each row is written
    alone and reads only the upper half: row ranges cut among threads copy the same."""
    with nogil:
        _mirror(&counts[0, 0, 0], counts.shape[0], counts.shape[2], start, stop)


cdef void _mirror(double* counts, Py_ssize_t n_used, Py_ssize_t n_classes, Py_ssize_t start,
                  Py_ssize_t stop) noexcept nogil:
    cdef Py_ssize_t a0, b0, a, b, c, step = n_used * n_classes
    cdef double* to
    cdef double* source
    a0 = start
    while a0 < stop:
        b0 = 0
        while b0 <= a0:
            for a in range(a0, min(a0 + TILE, stop)):
                for b in range(b0, min(b0 + TILE, a)):
                    to, source = counts + a * step + b * n_classes, counts + b * step + a * n_classes
                    for c in range(n_classes):
                        to[c] = source[c]
            b0 += TILE
        a0 += TILE


def last_value_diagonal(double[:, :, ::1] counts, const double[::1] totals, const int64_t[::1] last_of,
                        const int64_t[::1] derived):
    """The own counts ``N(l, c) = N(c) - sum_a N(a, c)`` of the values ``derived`` without a
    bitset (:func:`plan_values`), over their feature's other values ``a``: whole numbers, exact."""
    with nogil:
        _last_diagonal(&counts[0, 0, 0], counts.shape[0], counts.shape[2], &totals[0], &last_of[0],
                       &derived[0] if derived.shape[0] else NULL, derived.shape[0])


cdef void _last_diagonal(double* counts, Py_ssize_t n_used, Py_ssize_t n_classes, const double* totals,
                         const int64_t* last_of, const int64_t* derived, Py_ssize_t n_derived) noexcept nogil:
    cdef Py_ssize_t k, l, a, c, step = n_used * n_classes + n_classes
    cdef double total
    for k in range(n_derived):
        l = derived[k]
        for c in range(n_classes):
            total = totals[c]
            for a in range(last_of[l], l):
                total -= counts[a * step + c]
            counts[l * step + c] = total


def diagonal_row(const double[:, :, ::1] counts, double[::1] out):
    """``out[b * classes + c] = counts[b, b, c]``: what :func:`last_value_rows` reads, copied
    before any row is rewritten."""
    cdef Py_ssize_t n_used = counts.shape[0], n_classes = counts.shape[2], b, c
    with nogil:
        for b in range(n_used):
            for c in range(n_classes):
                out[b * n_classes + c] = counts[b, b, c]


def last_value_rows(double[:, :, ::1] counts, const double[::1] diagonal, const int64_t[::1] last_of,
                    const int64_t[::1] derived, Py_ssize_t start, Py_ssize_t stop):
    """Row ``l`` of the values ``derived[start:stop]``: ``N(l, b, c) = N(b, c) - sum_a N(a, b, c)``
    over ``l``'s feature's other values ``a``, a whole row at a time (after :func:`mirror_rows`
    and :func:`last_value_diagonal`; ``diagonal`` from :func:`diagonal_row`). Right for every
    ``b`` with a bitset and for ``l`` itself (a row holds one value of a feature); the cells of
    two values without a bitset are :func:`last_value_pairs`'. Each ``l`` writes its own row and
    reads only rows with a bitset: cut among threads, the same."""
    with nogil:
        _last_rows(&counts[0, 0, 0], counts.shape[0] * counts.shape[2], &diagonal[0], &last_of[0],
                   &derived[0] if derived.shape[0] else NULL, start, stop)


cdef void _last_rows(double* counts, Py_ssize_t size, const double* diagonal, const int64_t* last_of,
                     const int64_t* derived, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    cdef Py_ssize_t k, l, a, e
    cdef double* row
    cdef const double* other
    for k in range(start, stop):
        l = derived[k]
        row = counts + l * size
        for e in range(size):
            row[e] = diagonal[e]
        for a in range(last_of[l], l):
            other = counts + a * size
            for e in range(size):
                row[e] -= other[e]


def last_value_columns(double[:, :, ::1] counts, const int64_t[::1] counted, const int64_t[::1] derived,
                       Py_ssize_t start, Py_ssize_t stop):
    """Column ``l`` of the values ``derived[start:stop]`` from their rows
    (:func:`last_value_rows`), in the rows of the values with a bitset. Each ``l`` writes its
    own column: cut among threads, the same."""
    with nogil:
        _last_columns(&counts[0, 0, 0], counts.shape[0], counts.shape[2],
                      &counted[0] if counted.shape[0] else NULL, counted.shape[0],
                      &derived[0] if derived.shape[0] else NULL, start, stop)


cdef void _last_columns(double* counts, Py_ssize_t n_used, Py_ssize_t n_classes, const int64_t* counted,
                        Py_ssize_t n_counted, const int64_t* derived, Py_ssize_t start,
                        Py_ssize_t stop) noexcept nogil:
    cdef Py_ssize_t k, l, b, i, c, step = n_used * n_classes
    for k in range(start, stop):
        l = derived[k]
        for i in range(n_counted):
            b = counted[i]
            for c in range(n_classes):
                counts[b * step + l * n_classes + c] = counts[l * step + b * n_classes + c]


def last_value_pairs(double[:, :, ::1] counts, const int64_t[::1] last_of, const int64_t[::1] derived):
    """The cells of two values without a bitset, last: ``N(l, m, c) = N(m, c) - sum_a N(a, m, c)``
    over ``l``'s feature's other values ``a`` (after :func:`last_value_columns`)."""
    with nogil:
        _last_pairs(&counts[0, 0, 0], counts.shape[0], counts.shape[2], &last_of[0],
                    &derived[0] if derived.shape[0] else NULL, derived.shape[0])


cdef void _last_pairs(double* counts, Py_ssize_t n_used, Py_ssize_t n_classes, const int64_t* last_of,
                      const int64_t* derived, Py_ssize_t n_derived) noexcept nogil:
    cdef Py_ssize_t i, k, l, m, a, c, step = n_used * n_classes
    cdef double total
    for i in range(n_derived):
        l = derived[i]
        for k in range(n_derived):
            m = derived[k]
            if m == l:
                continue
            for c in range(n_classes):
                total = counts[m * step + m * n_classes + c]
                for a in range(last_of[l], l):
                    total -= counts[a * step + m * n_classes + c]
                counts[l * step + m * n_classes + c] = total


def bitset_pair_counts(const int64_t[:, ::1] features, const int64_t[::1] y, const int64_t[::1] bit_column,
                       const int64_t[::1] offsets, const int64_t[::1] counted, const int64_t[::1] derived,
                       const int64_t[::1] last_of, double[:, :, ::1] counts, double[::1] totals, Py_ssize_t step):
    """Every step of the unweighted all-pairs counts in this thread, in one call: for each chunk
    of ``step`` rows :func:`bitset_layout`, :func:`fill_bitsets` and :func:`bitset_pair_rows`,
    then :func:`mirror_rows` and the values without a bitset (:func:`last_value_diagonal`,
    :func:`last_value_rows`, :func:`last_value_columns`, :func:`last_value_pairs`): the same
    functions, so the same integers, without a call from Python per step (small data).

    ``counts`` ``(values in use, values in use, classes)`` starts at zero; ``totals``
    ``(classes,)`` gains each class's rows."""
    cdef Py_ssize_t d = features.shape[0], n = y.shape[0], n_used = counts.shape[0]
    cdef Py_ssize_t n_classes = counts.shape[2], n_counted = counted.shape[0], n_derived = derived.shape[0]
    cdef Py_ssize_t columns = n_counted + d, start, rows, words
    cdef int64_t* first_word = NULL
    cdef int64_t* word = NULL
    cdef uint64_t* bit = NULL
    cdef uint64_t* bits = NULL
    cdef double* diagonal = NULL
    cdef double* out = &counts[0, 0, 0] if n_used else NULL
    cdef const int64_t* counted_at = &counted[0] if n_counted else NULL
    cdef const int64_t* derived_at = &derived[0] if n_derived else NULL
    cdef int failed = 0
    cdef Py_ssize_t b, c
    if n_used == 0:
        return
    first_word = <int64_t*> malloc((n_classes + 1) * sizeof(int64_t))
    word = <int64_t*> malloc(max(1, min(step, n)) * sizeof(int64_t))
    bit = <uint64_t*> malloc(max(1, min(step, n)) * sizeof(uint64_t))
    diagonal = <double*> malloc(n_used * n_classes * sizeof(double))
    if first_word == NULL or word == NULL or bit == NULL or diagonal == NULL:
        failed = 1
    with nogil:
        start = 0
        while not failed and start < n:
            rows = min(step, n - start)
            if _layout(&y[0], start, start + rows, n_classes, &totals[0], first_word, word, bit):
                failed = 1
                break
            words = first_word[n_classes]
            bits = <uint64_t*> malloc(max(1, words * columns) * sizeof(uint64_t))
            if bits == NULL:
                failed = 1
                break
            memset(bits, 0, words * columns * sizeof(uint64_t))
            if d:
                _fill(&features[0, 0], n, &bit_column[0], &offsets[0], word, bit, bits, columns, start, rows, 0, d)
            if n_counted and _pair_rows(bits, columns, first_word, n_classes, counted_at, n_counted, out, n_used,
                                        0, n_counted):
                failed = 1
            free(bits)
            bits = NULL
            start += rows
        if not failed:
            _mirror(out, n_used, n_classes, 0, n_used)
            _last_diagonal(out, n_used, n_classes, &totals[0], &last_of[0], derived_at, n_derived)
            for b in range(n_used):
                for c in range(n_classes):
                    diagonal[b * n_classes + c] = out[(b * n_used + b) * n_classes + c]
            _last_rows(out, n_used * n_classes, diagonal, &last_of[0], derived_at, 0, n_derived)
            _last_columns(out, n_used, n_classes, counted_at, n_counted, derived_at, 0, n_derived)
            _last_pairs(out, n_used, n_classes, &last_of[0], derived_at, n_derived)
    free(first_word)
    free(word)
    free(bit)
    free(diagonal)
    if failed:
        raise MemoryError()


# ------------------------------------------------------------------------------ weighted rows
def weighted_pair_rows(const int64_t[:, ::1] features, const int64_t[::1] y, const double[::1] weights,
                       const int64_t[::1] column, const int64_t[::1] offsets, double[:, :, ::1] counts,
                       Py_ssize_t first, Py_ssize_t last):
    """``counts[a, b, c] +=`` the weights of the rows of class ``c`` that hold values ``a`` and
    ``b`` (places among the values in use: ``column[offsets[j] + code]``), for the values ``a``
    of features ``first:last`` and every ``b`` of a feature from ``a``'s on (the upper half; then
    :func:`mirror_rows`).

    Weights are no bits to AND, so weighted rows take this loop rather than the bitsets: each
    row adds its weight to the cell of every pair of its known values, in row order (the sums
    of ``np.bincount`` over the pair's combined codes, bit for bit). A feature's rows of
    ``counts`` are written by its part alone: features cut among threads, the same sums.
    """
    cdef Py_ssize_t d = features.shape[0], n = y.shape[0], n_used = counts.shape[0]
    cdef Py_ssize_t n_classes = counts.shape[2], t0, t, rows, i, j
    cdef int64_t* place
    cdef int64_t* pi
    cdef int64_t* pj
    cdef int64_t code, a, b
    cdef double* out
    cdef const double* w
    cdef const int64_t* cls
    if n == 0 or n_used == 0 or last <= first:
        return
    place = <int64_t*> malloc((d - first) * ROW_BLOCK * sizeof(int64_t))
    if place == NULL:
        raise MemoryError()
    out = &counts[0, 0, 0]
    with nogil:
        t0 = 0
        while t0 < n:
            rows = min(ROW_BLOCK, n - t0)
            for i in range(first, d):  # each row's place of each feature's value (-1: unknown)
                pi = place + (i - first) * ROW_BLOCK
                for t in range(rows):
                    code = features[i, t0 + t]
                    pi[t] = column[offsets[i] + code] if code >= 0 else -1
            w, cls = &weights[t0], &y[t0]
            for i in range(first, last):
                pi = place + (i - first) * ROW_BLOCK
                for j in range(i, d):
                    pj = place + (j - first) * ROW_BLOCK
                    for t in range(rows):
                        a, b = pi[t], pj[t]
                        if (a | b) >= 0:
                            out[(a * n_used + b) * n_classes + cls[t]] += w[t]
            t0 += rows
    free(place)


# ------------------------------------------------------------------------------ pair measures
def pair_sources(const double[:, :, ::1] counts, const int64_t[::1] owner, const int64_t[::1] column,
                 real[:, :, ::1] out, double[:, :, ::1] by_feature, double[:, :, ::1] known_pairs,
                 Py_ssize_t first, Py_ssize_t last):
    """The arrays of :meth:`bnclf.counts.CountCache.pair_information_terms`, for classes
    ``first:last``, from the counts of every pair of values in use (``counts[a, b, c]``;
    ``owner[a]`` value ``a``'s feature, ``column[a]`` its counted column, or ``out.shape[1]`` for
    a feature's last value): ``out[c, column[a], column[b]]`` the counted value pairs,
    ``by_feature[c, column[a], j]`` value ``a``'s rows with feature ``j`` known (the sum over
    ``j``'s values) and ``known_pairs[c, i, j]`` the rows with both known (the sum of the
    pair's cells). ``by_feature`` and ``known_pairs`` start at zero, ``out`` too where no
    counted pair writes; ``owner`` is increasing (a feature's values in use are a run). A
    value's cells with a feature are summed first, then added; ``known_pairs[c, j, i]`` is
    ``known_pairs[c, i, j]`` for ``i < j`` (symmetric, whatever the rounding of summed weights).
    Each class's cells are its own: classes cut among threads, the same sums."""
    cdef Py_ssize_t n_used = counts.shape[0], width = out.shape[1], d = known_pairs.shape[1], a, b, c, i, j, ca, cb
    cdef double value
    cdef double* total
    if n_used == 0 or last <= first:
        return
    total = <double*> malloc((last - first) * sizeof(double))
    if total == NULL:
        raise MemoryError()
    with nogil:
        for a in range(n_used):  # a's row of the counts, along its cells
            i, ca = owner[a], column[a]
            b = 0
            while b < n_used:  # the values in use of feature j: a run of b
                j = owner[b]
                for c in range(first, last):
                    total[c - first] = 0.0
                while b < n_used and owner[b] == j:
                    cb = column[b]
                    for c in range(first, last):
                        value = counts[a, b, c]
                        total[c - first] += value
                        if ca < width and cb < width:
                            out[c, ca, cb] = <real> value
                    b += 1
                for c in range(first, last):
                    known_pairs[c, i, j] += total[c - first]
                    if ca < width:
                        by_feature[c, ca, j] += total[c - first]
        for c in range(first, last):  # both known: symmetric, the sums over i's values before j's
            for i in range(d):
                for j in range(i):
                    known_pairs[c, i, j] = known_pairs[c, j, i]
    free(total)
