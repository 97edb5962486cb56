# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""AODE's and WAODE's prediction: every SPODE's joint log-likelihood, naive Bayes', and
their weighted combination ``log sum_m w_m P_m(c, x)``
(:class:`bnclf.inference._super_parent.SuperParentKernel`), and that combination of any
members' values (:func:`bnclf.inference._kernels.log_weighted_sum`).

One kernel, :func:`spode_joints`, serves both AODE and WAODE (they differ only in their
tables and weights) and both of the kernel's answers: the members' values, or their
combination, from the same per-row steps. Rows are independent: rows cut among threads
give the numbers of one pass, bit for bit.
"""

from libc.math cimport INFINITY, NAN, exp, isfinite, isnan, log
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc


cdef inline void _combine(
    const double* values, const double* log_weights, Py_ssize_t n_members, Py_ssize_t n_classes, double* out
) noexcept nogil:
    """``out[c] = log sum_m exp(values[m, c] + log_weights[m])`` (``values`` row-major ``(members,
    classes)``), shifted by the maximum over the members: a NaN term gives NaN, no finite term
    (every one ``-inf``, or none at all) shifts by 0 and gives ``-inf``."""
    cdef Py_ssize_t m, c
    cdef double v, peak, total
    cdef bint undefined
    for c in range(n_classes):
        peak = -INFINITY
        undefined = False
        for m in range(n_members):
            v = values[m * n_classes + c] + log_weights[m]
            if isnan(v):
                undefined = True
            elif v > peak:
                peak = v
        if undefined:
            out[c] = NAN
            continue
        if not isfinite(peak):
            peak = 0.0
        total = 0.0
        for m in range(n_members):
            total = total + exp((values[m * n_classes + c] + log_weights[m]) - peak)
        out[c] = (log(total) if total > 0.0 else -INFINITY) + peak


def log_weighted_sum(
    const double[:, :, ::1] values, const double[:, :] log_weights, double[:, ::1] out, Py_ssize_t start, Py_ssize_t stop
):
    """``out[t, c] = log sum_m exp(values[t, m, c] + log_weights[t, m])`` for the rows ``t`` in
    ``start:stop``, shifted by the maximum over the members for each row and class.

    ``values`` ``(n, members, classes)``; ``log_weights`` ``(n, members)``, any strides (one row
    broadcast to every row is read in place). A NaN term gives NaN; a row and class whose
    every term is ``-inf`` (a member of weight zero gives ``-inf``) gives ``-inf``.
    """
    cdef Py_ssize_t n_members = values.shape[1], n_classes = values.shape[2], t, m
    cdef double* row_weights
    with nogil:
        row_weights = <double*>malloc((n_members + 1) * sizeof(double))
        if row_weights == NULL:
            with gil:
                raise MemoryError()
        for t in range(start, stop):
            for m in range(n_members):
                row_weights[m] = log_weights[t, m]
            _combine(&values[t, 0, 0], row_weights, n_members, n_classes, &out[t, 0])
        free(row_weights)


def spode_joints(
    const int64_t[:, :] codes,
    const int64_t[::1] offsets,
    const int64_t[::1] cardinalities,
    const int64_t[::1] place,
    const double[:, ::1] table,
    const double[:, ::1] priors,
    const double[:, ::1] parents,
    const double[::1] nb_prior,
    const double[:, ::1] nb_children,
    const double[:, :] log_weights,
    double[:, :, ::1] members,
    double[:, ::1] out,
    bint combine,
    Py_ssize_t start,
    Py_ssize_t stop,
):
    """Every SPODE's and naive Bayes' ``log P_m(c, x)`` of the rows ``start:stop``, or their
    combination ``log sum_m w_m P_m(c, x)``.

    With ``g_j = offsets[j] + codes[t, j]`` the position of row ``t``'s value of feature
    ``j`` among all ``R`` values, member ``p < d`` (the SPODE of super-parent ``p``) is

        ``sum_{j != p, known} T(g_p, g_j) + priors[p] + parents[g_p]``

    added in that order (the children in turn from zero, then the prior, then the
    super-parent's entry), where ``T(h, g) = table[place[h] * V + place[g]]`` is
    ``log P(x_j = g | x_p = h, c)`` in the table of the ``V`` values in use laid out by
    super-parent value. Member ``d`` is naive Bayes, ``nb_prior + sum_{j known}
    nb_children[g_j]`` (the children in turn from zero). An unknown value (a negative code)
    is summed out exactly: as a child it is left out (its CPT sums to one); as super-parent
    ``p``, member ``p`` is ``log sum_v exp(.)`` of the sums above over ``p``'s values ``v``
    (shifted by their maximum; NaN propagates, every term ``-inf`` gives ``-inf``).

    Parameters
    ----------
    codes : int64 (n, d), any strides
    offsets, cardinalities : int64 (d,)
        Each feature's first value position and number of values.
    place : int64 (R,)
        Each value's index among the values of ``table`` (``-1``: not among them); every
        value a row holds, and every value of a feature a row leaves unknown, must be.
    table : float64 (V * V, n_classes)
    priors : float64 (d, n_classes)
    parents, nb_children : float64 (R, n_classes)
    nb_prior : float64 (n_classes,)
    log_weights : float64 (n, d + 1), any strides
        ``log w_m`` of each row (read when ``combine``).
    members : float64 (n, d + 1, n_classes)
        Written when not ``combine`` (may be ``(0, d + 1, n_classes)`` otherwise).
    out : float64 (n, n_classes)
        Written when ``combine``, as :func:`log_weighted_sum` combines the members (may be
        ``(0, n_classes)`` otherwise).

    Returns
    -------
    int
        ``-1``, or ``row * d + j`` of the first value (row by row) whose code is not below
        its feature's cardinality or whose position has no ``place`` (for an unknown value:
        one of its feature's values without a ``place``); the rows from that one on are then
        left unwritten.
    """
    cdef Py_ssize_t d = codes.shape[1], n_classes = table.shape[1], width = 0, most = 1
    cdef Py_ssize_t t, j, p, c, v, size, bad = -1
    cdef int64_t code, h, first
    cdef int64_t* position
    cdef int64_t* index
    cdef char* known
    cdef double* buffer
    cdef double* row_weights
    cdef double* terms
    cdef double* sums
    cdef double* member
    cdef const double* stripe
    cdef const double* entry
    cdef double peak, total
    while width * width < table.shape[0]:
        width += 1
    for j in range(d):
        if cardinalities[j] > most:
            most = cardinalities[j]
    with nogil:
        position = <int64_t*>malloc((2 * d + 1) * sizeof(int64_t))
        known = <char*>malloc(d + 1)
        buffer = <double*>malloc(((d + 1) * n_classes + (d + 1) + most * n_classes + 1) * sizeof(double))
        if position == NULL or known == NULL or buffer == NULL:
            free(position)
            free(known)
            free(buffer)
            with gil:
                raise MemoryError()
        index = position + d
        row_weights = buffer + (d + 1) * n_classes
        terms = row_weights + (d + 1)
        for t in range(start, stop):
            for j in range(d):  # each value's position and its index in the table
                code = codes[t, j]
                known[j] = code >= 0
                position[j] = 0
                index[j] = 0
                if code < 0:  # summed over its values: each must have a place
                    for v in range(cardinalities[j]):
                        if place[offsets[j] + v] < 0:
                            bad = t * d + j
                    if bad >= 0:
                        break
                    continue
                if code >= cardinalities[j] or place[offsets[j] + code] < 0:
                    bad = t * d + j
                    break
                position[j] = offsets[j] + code
                index[j] = place[position[j]]
            if bad >= 0:
                break
            member = buffer if combine else &members[t, 0, 0]
            for p in range(d):
                sums = member + p * n_classes
                if known[p]:
                    stripe = &table[index[p] * width, 0]
                    for c in range(n_classes):
                        sums[c] = 0.0
                    for j in range(d):
                        if known[j] and j != p:
                            entry = stripe + index[j] * n_classes
                            for c in range(n_classes):
                                sums[c] = sums[c] + entry[c]
                    for c in range(n_classes):
                        sums[c] = (sums[c] + priors[p, c]) + parents[position[p], c]
                    continue
                # an unknown super-parent: each of its values' sums, then their log-sum-exp
                size = cardinalities[p]
                first = offsets[p]
                for v in range(size):
                    h = first + v
                    stripe = &table[place[h] * width, 0]
                    for c in range(n_classes):
                        terms[v * n_classes + c] = 0.0
                    for j in range(d):
                        if known[j]:
                            entry = stripe + index[j] * n_classes
                            for c in range(n_classes):
                                terms[v * n_classes + c] = terms[v * n_classes + c] + entry[c]
                    for c in range(n_classes):
                        terms[v * n_classes + c] = (terms[v * n_classes + c] + priors[p, c]) + parents[h, c]
                for c in range(n_classes):
                    peak = -INFINITY
                    for v in range(size):
                        if terms[v * n_classes + c] > peak:
                            peak = terms[v * n_classes + c]
                    if not isfinite(peak):  # every term -inf (or an infinite term): shift by 0
                        peak = 0.0
                    total = 0.0
                    for v in range(size):
                        total = total + exp(terms[v * n_classes + c] - peak)
                    sums[c] = log(total) + peak  # NaN propagates; log(0) is -inf
            sums = member + d * n_classes  # naive Bayes
            for c in range(n_classes):
                sums[c] = 0.0
            for j in range(d):
                if known[j]:
                    entry = &nb_children[position[j], 0]
                    for c in range(n_classes):
                        sums[c] = sums[c] + entry[c]
            for c in range(n_classes):
                sums[c] = nb_prior[c] + sums[c]
            if combine:
                for p in range(d + 1):
                    row_weights[p] = log_weights[t, p]
                _combine(member, row_weights, d + 1, n_classes, &out[t, 0])
        free(position)
        free(known)
        free(buffer)
    return bad


def values_outside(
    const int64_t[:, :] codes,
    const int64_t[::1] offsets,
    const int64_t[::1] cardinalities,
    const int64_t[::1] place,
    char[::1] mark,
):
    """Mark in ``mark`` ``(R,)`` the values :func:`spode_joints` would read that have no
    ``place`` (``place[g] < 0``): those the rows hold, and every value of a feature some row
    leaves unknown (a negative code); returns how many were marked. A code past its feature's
    values is skipped (:func:`spode_joints` reports it)."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], t, j, count = 0
    cdef int64_t code, g, v
    cdef char* summed
    with nogil:
        summed = <char*>malloc(d + 1)  # a feature whose every value was looked at
        if summed == NULL:
            with gil:
                raise MemoryError()
        for j in range(d):
            summed[j] = 0
        for t in range(n):
            for j in range(d):
                code = codes[t, j]
                if code >= 0:
                    if code < cardinalities[j]:
                        g = offsets[j] + code
                        if place[g] < 0 and not mark[g]:
                            mark[g] = 1
                            count += 1
                elif not summed[j]:
                    summed[j] = 1
                    for v in range(cardinalities[j]):
                        g = offsets[j] + v
                        if place[g] < 0 and not mark[g]:
                            mark[g] = 1
                            count += 1
        free(summed)
    return count
