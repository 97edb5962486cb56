# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The kernel of AODE's all-pairs log-CPT table (:func:`bnclf.learn._parameters.child_given_pair_log_table`):
``log P(x_j | x_p, c)`` of every child value under every parent value and class, formed from
the pair counts of the values that rows hold, the whole table or the cells of some values.

The cells release the GIL; :class:`bnclf.learn._parameters.PairLogTable` cuts their rows
among threads. Each cell is written by its own steps, so the table is the same, bit for bit,
in any number of threads and whether it is made whole or a few cells at a time.
"""

from libc.math cimport INFINITY, log
from libc.stdint cimport int64_t


cdef struct _Reads:
    # the addresses of what a cell reads (the arrays held by a _PairCells)
    const double *counts  # (V, V, n_classes)
    const double *log_denominator  # (d, V, n_classes)
    const double *log_alpha_plus  # (distinct alphas, plus_width)
    const int64_t *owner
    const int64_t *local
    const int64_t *alpha_of
    const double *alpha
    const double *log_alpha
    const double *uniform
    const double *unseen
    Py_ssize_t n_used, plus_width
    bint whole


cdef class _PairCells:
    """What every cell of the all-pairs table reads, formed once from the pair counts.

    Parameters
    ----------
    counts : ndarray of float64 (V, V, n_classes), C-contiguous
        ``counts[a, b, c]``: the rows of class ``c`` that hold value ``used[a]`` and value
        ``used[b]`` (whole numbers, or sums of row weights).
    used : ndarray of int64 (V,)
        The value positions that some row holds, increasing, each below ``width``.
    owner : ndarray of int64 (width,)
        Each value position's feature (non-decreasing: a feature's values are consecutive).
    cardinalities : ndarray of int64 (d,)
        Each feature's number of values (``width`` in all).
    alpha, beta : ndarray of float64 (d,)
        Per child feature: ``P(x_j | x_p, c) = (N(x_j, x_p, c) + alpha_j) / (N(x_p, c) + beta_j)``.
    whole_counts : bool
        The counts are whole numbers (unweighted rows, or integer weights).
    complete : ndarray of bool (d,)
        The features that every row knows. With whole counts, such a child feature's values
        sum, under a parent value, to that parent value's own count ``counts[b, b, c]`` (its
        values partition the rows), which is read instead of adding them.

    Raises
    ------
    ValueError
        Arrays whose shapes do not agree, or a value position outside the table.

    Notes
    -----
    ``N(x_p, c)``, the denominator's count of child feature ``j`` under parent value ``b``, is
    the sum of the counts of ``j``'s values in use, added in increasing order (the counts of
    a value no row holds are zero). Its logarithm ``log(N(x_p, c) + beta_j)`` is kept per child
    feature, parent value in use and class (``-inf``: no rows, the cell is the uniform ``-log
    r_j``). The logarithm of a whole count ``k`` plus ``alpha`` (or ``beta``) is read from a
    table of ``log(k + alpha)`` for ``k = 0 .. the largest count``, one row per distinct
    ``alpha`` (``beta``), when that table holds fewer logarithms than the cells would take: the
    same numbers (the logarithm of the same sum). Every logarithm is the C library's ``log``.
    """

    cdef const double[:, :, ::1] counts
    cdef const int64_t[::1] owner
    cdef const int64_t[::1] cardinalities
    cdef const double[::1] alpha
    cdef int64_t[::1] local  # each value position's place among those in use (-1: none)
    cdef double[:, :, ::1] log_denominator  # (d, V, n_classes)
    cdef double[:, ::1] log_alpha_plus  # (distinct alphas, largest count + 1): log(k + alpha)
    cdef int64_t[::1] alpha_of  # each feature's row of log_alpha_plus
    cdef double[::1] log_alpha, uniform, unseen  # per child feature
    cdef bint whole  # every count read from log_alpha_plus
    cdef _Reads reads
    cdef readonly Py_ssize_t width, n_classes

    def __init__(self, counts, used, owner, cardinalities, alpha, beta, bint whole_counts, complete):
        import numpy as np  # the caller's arrays, checked and converted once

        counts = np.ascontiguousarray(counts, dtype=np.float64)
        used = np.ascontiguousarray(used, dtype=np.int64)
        owner = np.ascontiguousarray(owner, dtype=np.int64)
        cardinalities = np.ascontiguousarray(cardinalities, dtype=np.int64)
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        beta = np.ascontiguousarray(beta, dtype=np.float64)
        complete = np.ascontiguousarray(complete, dtype=np.uint8) if whole_counts else np.zeros(len(alpha), np.uint8)
        d, n_used, n_classes, width = len(cardinalities), len(used), counts.shape[2], len(owner)
        if (counts.shape[:2] != (n_used, n_used) or alpha.shape != (d,) or beta.shape != (d,)
                or complete.shape != (d,) or width != int(cardinalities.sum())
                or (n_used and (used.min() < 0 or used.max() >= width)) or (width and owner.max() >= d)):
            raise ValueError("_PairCells: counts, used, owner, cardinalities, alpha and beta do not agree.")
        self.counts, self.owner, self.cardinalities, self.alpha = counts, owner, cardinalities, alpha
        self.width, self.n_classes = width, n_classes
        local = np.full(width, -1, dtype=np.int64)
        local[used] = np.arange(n_used)
        self.local = local
        sums = np.zeros((d if not complete.all() else 0, n_used, n_classes))
        cdef double largest = _denominator_sums(counts, used, owner, complete, sums)
        alphas, betas = np.unique(alpha), np.unique(beta)
        self.alpha_of = np.searchsorted(alphas, alpha).astype(np.int64)
        beta_of = np.searchsorted(betas, beta).astype(np.int64)
        lookup = (len(alphas) + len(betas)) * (largest + 1.0) < float(n_used) * n_used * n_classes
        size = int(largest) + 1 if lookup else 0
        self.log_alpha_plus = np.empty((len(alphas), size))
        log_beta_plus = np.empty((len(betas), size))
        _logs_plus(alphas, self.log_alpha_plus)
        _logs_plus(betas, log_beta_plus)
        self.log_denominator = np.empty((d, n_used, n_classes))
        first_complete = np.full(len(betas), -1, dtype=np.int64)  # per beta: the first complete feature
        _log_denominators(counts, sums, complete, beta, beta_of, log_beta_plus, first_complete, self.log_denominator)
        self.whole = lookup and whole_counts
        self.log_alpha, self.uniform, self.unseen = np.empty(d), np.empty(d), np.empty(d)
        _feature_constants(alpha, beta, cardinalities, self.log_alpha, self.uniform, self.unseen)
        self.reads = _Reads(
            &self.counts[0, 0, 0], &self.log_denominator[0, 0, 0], &self.log_alpha_plus[0, 0], &self.owner[0],
            &self.local[0], &self.alpha_of[0], &self.alpha[0], &self.log_alpha[0], &self.uniform[0], &self.unseen[0],
            n_used, size, self.whole,
        )  # addresses only (an empty array's is never read)

    def write_rows(self, double[:, :, ::1] table, Py_ssize_t start, Py_ssize_t stop):
        """Write rows ``start:stop`` (child values) of the whole table ``(width, width,
        n_classes)``: ``log(N + alpha_j) - log(N(x_p, c) + beta_j)``, ``log(alpha_j) - ...``
        for a child value no row holds, ``log(alpha_j) - log(beta_j)`` for a parent value no
        row holds, the uniform ``-log r_j`` where the denominator has no rows (and ``beta_j``
        is 0), and zero in the diagonal blocks (``j == p``)."""
        if table.shape[0] != self.width or table.shape[1] != self.width or table.shape[2] != self.n_classes:
            raise ValueError(f"write_rows: the table is not ({self.width}, {self.width}, {self.n_classes}).")
        if not 0 <= start <= stop <= self.width:
            raise ValueError(f"write_rows: rows {start}:{stop} of {self.width}.")
        cdef Py_ssize_t g, h, n_classes = self.n_classes, width = self.width
        cdef const _Reads *reads = &self.reads
        cdef double *cells = &table[0, 0, 0]
        with nogil:
            for g in range(start, stop):
                if n_classes == 2:  # the count a constant: the loops over the classes unrolled
                    _row(reads, cells + g * width * 2, g, width, 2)
                elif n_classes == 3:
                    _row(reads, cells + g * width * 3, g, width, 3)
                else:
                    _row(reads, cells + g * width * n_classes, g, width, n_classes)

    def write_cells(self, double[:, ::1] out, const int64_t[::1] used, bint by_parent, Py_ssize_t start,
                    Py_ssize_t stop):
        """Write the cells among the value positions ``used`` into ``out`` ``(V * V,
        n_classes)``, rows ``a`` in ``start:stop``: row ``a * V + b`` holds child value
        ``used[a]`` under parent value ``used[b]`` (``by_parent``: parent value ``used[a]``
        and child value ``used[b]``), each by the steps of :meth:`write_rows` (the same
        numbers, bit for bit)."""
        cdef Py_ssize_t v = used.shape[0], a, b
        if out.shape[0] != v * v or out.shape[1] != self.n_classes or not 0 <= start <= stop <= v:
            raise ValueError(f"write_cells: out is not ({v * v}, {self.n_classes}), or rows {start}:{stop} of {v}.")
        for a in range(v):
            if not 0 <= used[a] < self.width:
                raise ValueError(f"write_cells: value position {used[a]} outside the table of {self.width}.")
        cdef Py_ssize_t n_classes = self.n_classes, g, h
        cdef const _Reads *reads = &self.reads
        cdef double *cells = &out[0, 0]
        with nogil:
            for a in range(start, stop):
                for b in range(v):
                    if by_parent:
                        g = used[b]
                        h = used[a]
                    else:
                        g = used[a]
                        h = used[b]
                    if n_classes == 2:
                        _cell(reads, cells + (a * v + b) * 2, g, h, 2)
                    elif n_classes == 3:
                        _cell(reads, cells + (a * v + b) * 3, g, h, 3)
                    else:
                        _cell(reads, cells + (a * v + b) * n_classes, g, h, n_classes)


cdef inline void _row(const _Reads *t, double *row, Py_ssize_t g, Py_ssize_t width, Py_ssize_t n_classes) noexcept nogil:
    """The entries of child value ``g`` under every parent value: :func:`_cell`'s, with the
    child's feature and its constants read once."""
    cdef int64_t j = t.owner[g], a = t.local[g], b
    cdef Py_ssize_t c, h
    cdef double ld, unseen = t.unseen[j], uniform = t.uniform[j], log_alpha = t.log_alpha[j], alpha = t.alpha[j]
    cdef double *cell
    cdef const double *denominators = t.log_denominator + j * t.n_used * n_classes
    cdef const double *counts = t.counts + (a if a > 0 else 0) * t.n_used * n_classes
    cdef const double *plus = t.log_alpha_plus + t.alpha_of[j] * t.plus_width
    cdef const double *den
    cdef const double *count
    for h in range(width):
        cell = row + h * n_classes
        b = t.local[h]
        if t.owner[h] == j:  # j == p: not a family
            for c in range(n_classes):
                cell[c] = 0.0
        elif b < 0:  # a parent value no row holds
            for c in range(n_classes):
                cell[c] = unseen
        else:
            den = denominators + b * n_classes
            count = counts + b * n_classes
            for c in range(n_classes):
                ld = den[c]
                if ld == -INFINITY:
                    cell[c] = uniform
                elif a < 0:
                    cell[c] = log_alpha - ld
                elif t.whole:
                    cell[c] = plus[<int64_t> count[c]] - ld
                else:
                    cell[c] = log(count[c] + alpha) - ld


cdef inline void _cell(const _Reads *t, double *cell, Py_ssize_t g, Py_ssize_t h, Py_ssize_t n_classes) noexcept nogil:
    """The ``n_classes`` entries of child value ``g`` under parent value ``h``."""
    cdef int64_t j = t.owner[g], a = t.local[g], b = t.local[h]
    cdef Py_ssize_t c
    cdef double ld, value
    cdef const double *denominators
    cdef const double *counts
    cdef const double *plus
    if t.owner[h] == j:  # j == p: not a family
        for c in range(n_classes):
            cell[c] = 0.0
        return
    if b < 0:  # a parent value no row holds
        value = t.unseen[j]
        for c in range(n_classes):
            cell[c] = value
        return
    denominators = t.log_denominator + (j * t.n_used + b) * n_classes
    counts = t.counts + (a * t.n_used + b) * n_classes
    plus = t.log_alpha_plus + t.alpha_of[j] * t.plus_width
    for c in range(n_classes):
        ld = denominators[c]
        if ld == -INFINITY:
            cell[c] = t.uniform[j]
        elif a < 0:
            cell[c] = t.log_alpha[j] - ld
        elif t.whole:
            cell[c] = plus[<int64_t> counts[c]] - ld
        else:
            cell[c] = log(counts[c] + t.alpha[j]) - ld


cdef double _denominator_sums(
    const double[:, :, ::1] counts,
    const int64_t[::1] used,
    const int64_t[::1] owner,
    const unsigned char[::1] complete,
    double[:, :, ::1] sums,
) noexcept nogil:
    """``sums[j, b, c]``: the counts of parent value ``used[b]`` summed over child feature
    ``j``'s values in use, in increasing order, for each feature not ``complete`` (``sums`` has
    no rows when all are); returns the largest denominator count (the diagonal counts too
    where a feature is complete)."""
    cdef Py_ssize_t n_used = counts.shape[0], n_classes = counts.shape[2], d = complete.shape[0]
    cdef Py_ssize_t a, b, c, j
    cdef double largest = 0.0
    cdef bint any_complete = False
    for j in range(d):
        any_complete = any_complete or complete[j]
    if any_complete:
        for b in range(n_used):
            for c in range(n_classes):
                largest = max(largest, counts[b, b, c])
    if sums.shape[0] == 0:
        return largest
    for a in range(n_used):
        j = owner[used[a]]
        if not complete[j]:
            for b in range(n_used):
                for c in range(n_classes):
                    sums[j, b, c] += counts[a, b, c]
    for j in range(d):
        if not complete[j]:
            for b in range(n_used):
                for c in range(n_classes):
                    largest = max(largest, sums[j, b, c])
    return largest


cdef void _logs_plus(const double[::1] values, double[:, ::1] out) noexcept nogil:
    """``out[i, k] = log(k + values[i])`` (``-inf`` where the sum is not positive)."""
    cdef Py_ssize_t i, k
    cdef double s
    for i in range(out.shape[0]):
        for k in range(out.shape[1]):
            s = k + values[i]
            out[i, k] = log(s) if s > 0.0 else -INFINITY


cdef void _log_denominators(
    const double[:, :, ::1] counts,
    const double[:, :, ::1] sums,
    const unsigned char[::1] complete,
    const double[::1] beta,
    const int64_t[::1] beta_of,
    const double[:, ::1] log_beta_plus,
    int64_t[::1] first_complete,
    double[:, :, ::1] out,
) noexcept nogil:
    """``out[j, b, c] = log(N(x_p, c) + beta_j)`` (``-inf``: no rows and ``beta_j`` 0), the count
    the diagonal's for a complete feature, else ``sums[j]``'s; a whole count's logarithm read
    from ``log_beta_plus`` when it has columns. Complete features of one ``beta`` share the
    numbers of the first."""
    cdef Py_ssize_t d = out.shape[0], n_used = out.shape[1], n_classes = out.shape[2], j, b, c
    cdef Py_ssize_t size = log_beta_plus.shape[1]
    cdef double total, den
    cdef int64_t first
    for j in range(d):
        first = first_complete[beta_of[j]] if complete[j] else -1
        if first >= 0:  # the same sums and beta: the same numbers
            for b in range(n_used):
                for c in range(n_classes):
                    out[j, b, c] = out[first, b, c]
            continue
        if complete[j]:
            first_complete[beta_of[j]] = j
        for b in range(n_used):
            for c in range(n_classes):
                total = counts[b, b, c] if complete[j] else sums[j, b, c]
                den = beta[j] + total
                if den <= 0.0:
                    out[j, b, c] = -INFINITY
                elif size > 0 and total == <double> (<int64_t> total):
                    out[j, b, c] = log_beta_plus[beta_of[j], <int64_t> total]
                else:
                    out[j, b, c] = log(den)


cdef void _feature_constants(
    const double[::1] alpha,
    const double[::1] beta,
    const int64_t[::1] cardinalities,
    double[::1] log_alpha,
    double[::1] uniform,
    double[::1] unseen,
) noexcept nogil:
    """Per child feature: ``log(alpha_j)`` (``-inf`` when 0), the uniform ``-log r_j``, and the
    entry under a parent value no row holds, ``log(alpha_j) - log(beta_j)`` (uniform when
    ``beta_j`` is 0)."""
    cdef Py_ssize_t j
    for j in range(alpha.shape[0]):
        log_alpha[j] = log(alpha[j]) if alpha[j] > 0.0 else -INFINITY
        uniform[j] = -log(<double> cardinalities[j])
        unseen[j] = log_alpha[j] - log(beta[j]) if beta[j] > 0.0 else uniform[j]
