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

from libc.math cimport INFINITY, exp, isfinite, log
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc


cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #include <string.h>

    /* Where the compiler and the C library can choose a function's version by the processor
       at run time (GCC, glibc, x86-64), the vectorizable loops below are also compiled for
       AVX2 and AVX-512 (four or eight numbers a step); elsewhere for the build's instruction
       set alone. Every version takes the same steps in the same order (no multiply and add
       fused into one rounding): the same numbers on every processor. */
    #if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && defined(__GNUC__) \
        && !defined(__clang__) && __GNUC__ >= 8
    #define BNCLF_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), optimize("fp-contract=off")))
    #else
    #define BNCLF_CLONES
    #endif
    #if defined(_MSC_VER)
    #define BNCLF_RESTRICT __restrict
    #define BNCLF_INLINE __inline
    #else
    #define BNCLF_RESTRICT restrict
    #define BNCLF_INLINE inline
    #endif

    /* Four stripes' sums over the children of eight classes from each stripe's pointer:
       o_i[c] = sum_k s_i[kids[k] + c], the children in turn from zero. */
    BNCLF_CLONES
    static void bnclf_four_stripes_eight(const double *s0, const double *s1, const double *s2, const double *s3,
                                         const Py_ssize_t *kids, Py_ssize_t n_kids,
                                         double *o0, double *o1, double *o2, double *o3) {
        double a[8] = {0.0}, b[8] = {0.0}, e[8] = {0.0}, f[8] = {0.0};
        Py_ssize_t k;
        int c;
        for (k = 0; k < n_kids; k++) {
            Py_ssize_t q = kids[k];
            for (c = 0; c < 8; c++) {
                a[c] += s0[q + c];
                b[c] += s1[q + c];
                e[c] += s2[q + c];
                f[c] += s3[q + c];
            }
        }
        for (c = 0; c < 8; c++) {
            o0[c] = a[c];
            o1[c] = b[c];
            o2[c] = e[c];
            o3[c] = f[c];
        }
    }

    /* exp(x) by steps the compiler can vectorize: x = k ln2 + r with |r| <= ln2 / 2 (k
       rounded to nearest by adding 1.5 * 2^52, ln2 in two parts so that k ln2's high part
       is exact), exp(r) by its Taylor polynomial of degree 13 (the remainder below 5e-18),
       times 2^k built in the exponent bits: within a few units in the last place of exp
       for x in [-708, 708]. Below, 0 (exp would be subnormal or 0); above, +inf; NaN gives
       NaN. */
    static BNCLF_INLINE double bnclf_exp(double x) {
        const double shift = 6755399441055744.0, log2e = 1.4426950408889634;
        const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
        double kd = x * log2e + shift;  /* outside [-708, 708]: any number, replaced below */
        uint64_t bits;
        memcpy(&bits, &kd, sizeof bits);
        kd -= shift;
        double r = (x - kd * ln2_hi) - kd * ln2_lo;
        double p = 1.0 / 6227020800.0;
        p = p * r + 1.0 / 479001600.0;
        p = p * r + 1.0 / 39916800.0;
        p = p * r + 1.0 / 3628800.0;
        p = p * r + 1.0 / 362880.0;
        p = p * r + 1.0 / 40320.0;
        p = p * r + 1.0 / 5040.0;
        p = p * r + 1.0 / 720.0;
        p = p * r + 1.0 / 120.0;
        p = p * r + 1.0 / 24.0;
        p = p * r + 1.0 / 6.0;
        p = p * r + 0.5;
        p = p * r + 1.0;
        p = p * r + 1.0;
        uint64_t scale_bits = (bits + 1023u) << 52;
        double scale;
        memcpy(&scale, &scale_bits, sizeof scale);
        double y = p * scale;
        y = x < -708.0 ? 0.0 : y;
        return x > 708.0 ? INFINITY : y;
    }

    /* out[c] = log sum_m exp(values[m, c] + log_weights[m]) of row-major (members, classes)
       values, shifted by the maximum over the members: a NaN term gives NaN; no finite term
       (every one -inf, or none) shifts by 0 and gives -inf. The exponentials by bnclf_exp,
       added member after member: the largest term adds exp(0) = 1, so a term whose exp is
       below the smallest normal number (bnclf_exp: 0) adds nothing to the sum either way.
       scratch: (members + 2) classes numbers. */
    BNCLF_CLONES
    static void bnclf_log_weighted_row(const double *BNCLF_RESTRICT values, const double *BNCLF_RESTRICT log_weights,
                                       Py_ssize_t n_members, Py_ssize_t n_classes, double *BNCLF_RESTRICT scratch,
                                       double *BNCLF_RESTRICT out) {
        Py_ssize_t m, c;
        double *BNCLF_RESTRICT terms = scratch;
        double *BNCLF_RESTRICT peak = scratch + n_members * n_classes;
        double *BNCLF_RESTRICT undefined = peak + n_classes;
        for (c = 0; c < n_classes; c++) {
            peak[c] = -INFINITY;
            undefined[c] = 0.0;
        }
        for (m = 0; m < n_members; m++) {
            const double *BNCLF_RESTRICT row = values + m * n_classes;
            double *BNCLF_RESTRICT term = terms + m * n_classes;
            double w = log_weights[m];
            for (c = 0; c < n_classes; c++) {
                double v = row[c] + w;
                term[c] = v;
                peak[c] = v > peak[c] ? v : peak[c];
                undefined[c] = v != v ? 1.0 : undefined[c];
            }
        }
        for (c = 0; c < n_classes; c++) {
            peak[c] = isfinite(peak[c]) ? peak[c] : 0.0;
            out[c] = 0.0;
        }
        for (m = 0; m < n_members; m++) {
            const double *BNCLF_RESTRICT term = terms + m * n_classes;
            for (c = 0; c < n_classes; c++) {
                out[c] = out[c] + bnclf_exp(term[c] - peak[c]);
            }
        }
        for (c = 0; c < n_classes; c++) {
            out[c] = undefined[c] != 0.0 ? NAN : (out[c] > 0.0 ? log(out[c]) : -INFINITY) + peak[c];
        }
    }
    """
    void _four_stripes_eight "bnclf_four_stripes_eight"(
        const double* s0, const double* s1, const double* s2, const double* s3,
        const Py_ssize_t* kids, Py_ssize_t n_kids, double* o0, double* o1, double* o2, double* o3,
    ) noexcept nogil
    void _combine "bnclf_log_weighted_row"(
        const double* values,
        const double* log_weights,
        Py_ssize_t n_members,
        Py_ssize_t n_classes,
        double* scratch,
        double* out,
    ) noexcept nogil


cdef inline void _stripe_sums(
    const double* stripe, const Py_ssize_t* kids, Py_ssize_t n_kids, Py_ssize_t n_classes, double* sums
) noexcept nogil:
    """``sums[c] = sum_k stripe[kids[k] + c]``, the children ``k`` in turn from zero."""
    cdef Py_ssize_t k, c
    cdef const double* entry
    for c in range(n_classes):
        sums[c] = 0.0
    for k in range(n_kids):
        entry = stripe + kids[k]
        for c in range(n_classes):
            sums[c] = sums[c] + entry[c]


cdef inline void _four_stripes_two(
    const double** stripes, const Py_ssize_t* kids, Py_ssize_t n_kids, double** sums
) noexcept nogil:
    """:func:`_stripe_sums` of four stripes of two classes at once, each sum in a register of
    its own (the same additions in the same order)."""
    cdef const double* s0 = stripes[0]
    cdef const double* s1 = stripes[1]
    cdef const double* s2 = stripes[2]
    cdef const double* s3 = stripes[3]
    cdef double a0 = 0.0, a1 = 0.0, b0 = 0.0, b1 = 0.0, e0 = 0.0, e1 = 0.0, f0 = 0.0, f1 = 0.0
    cdef Py_ssize_t k, q
    for k in range(n_kids):
        q = kids[k]
        a0 = a0 + s0[q]
        a1 = a1 + s0[q + 1]
        b0 = b0 + s1[q]
        b1 = b1 + s1[q + 1]
        e0 = e0 + s2[q]
        e1 = e1 + s2[q + 1]
        f0 = f0 + s3[q]
        f1 = f1 + s3[q + 1]
    sums[0][0] = a0
    sums[0][1] = a1
    sums[1][0] = b0
    sums[1][1] = b1
    sums[2][0] = e0
    sums[2][1] = e1
    sums[3][0] = f0
    sums[3][1] = f1


cdef inline void _four_stripes_three(
    const double** stripes, const Py_ssize_t* kids, Py_ssize_t n_kids, double** sums
) noexcept nogil:
    """:func:`_four_stripes_two` for three classes."""
    cdef const double* s0 = stripes[0]
    cdef const double* s1 = stripes[1]
    cdef const double* s2 = stripes[2]
    cdef const double* s3 = stripes[3]
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, b0 = 0.0, b1 = 0.0, b2 = 0.0
    cdef double e0 = 0.0, e1 = 0.0, e2 = 0.0, f0 = 0.0, f1 = 0.0, f2 = 0.0
    cdef Py_ssize_t k, q
    for k in range(n_kids):
        q = kids[k]
        a0 = a0 + s0[q]
        a1 = a1 + s0[q + 1]
        a2 = a2 + s0[q + 2]
        b0 = b0 + s1[q]
        b1 = b1 + s1[q + 1]
        b2 = b2 + s1[q + 2]
        e0 = e0 + s2[q]
        e1 = e1 + s2[q + 1]
        e2 = e2 + s2[q + 2]
        f0 = f0 + s3[q]
        f1 = f1 + s3[q + 1]
        f2 = f2 + s3[q + 2]
    sums[0][0] = a0
    sums[0][1] = a1
    sums[0][2] = a2
    sums[1][0] = b0
    sums[1][1] = b1
    sums[1][2] = b2
    sums[2][0] = e0
    sums[2][1] = e1
    sums[2][2] = e2
    sums[3][0] = f0
    sums[3][1] = f1
    sums[3][2] = f2


cdef inline void _four_stripes_four(
    const double** stripes, const Py_ssize_t* kids, Py_ssize_t n_kids, Py_ssize_t first, double** sums
) noexcept nogil:
    """:func:`_four_stripes_two` for the four classes from ``first``."""
    cdef const double* s0 = stripes[0] + first
    cdef const double* s1 = stripes[1] + first
    cdef const double* s2 = stripes[2] + first
    cdef const double* s3 = stripes[3] + first
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0
    cdef double e0 = 0.0, e1 = 0.0, e2 = 0.0, e3 = 0.0, f0 = 0.0, f1 = 0.0, f2 = 0.0, f3 = 0.0
    cdef Py_ssize_t k, q
    for k in range(n_kids):
        q = kids[k]
        a0 = a0 + s0[q]
        a1 = a1 + s0[q + 1]
        a2 = a2 + s0[q + 2]
        a3 = a3 + s0[q + 3]
        b0 = b0 + s1[q]
        b1 = b1 + s1[q + 1]
        b2 = b2 + s1[q + 2]
        b3 = b3 + s1[q + 3]
        e0 = e0 + s2[q]
        e1 = e1 + s2[q + 1]
        e2 = e2 + s2[q + 2]
        e3 = e3 + s2[q + 3]
        f0 = f0 + s3[q]
        f1 = f1 + s3[q + 1]
        f2 = f2 + s3[q + 2]
        f3 = f3 + s3[q + 3]
    sums[0][first] = a0
    sums[0][first + 1] = a1
    sums[0][first + 2] = a2
    sums[0][first + 3] = a3
    sums[1][first] = b0
    sums[1][first + 1] = b1
    sums[1][first + 2] = b2
    sums[1][first + 3] = b3
    sums[2][first] = e0
    sums[2][first + 1] = e1
    sums[2][first + 2] = e2
    sums[2][first + 3] = e3
    sums[3][first] = f0
    sums[3][first + 1] = f1
    sums[3][first + 2] = f2
    sums[3][first + 3] = f3


cdef inline void _four_stripe_sums(
    const double** stripes, const Py_ssize_t* kids, Py_ssize_t n_kids, Py_ssize_t n_classes, double** sums
) noexcept nogil:
    """:func:`_stripe_sums` of four stripes at once, each sum in a register of its own: two or
    three classes in one pass, eight classes or more eight a pass (the last four, or eight,
    overlapping the previous ones when the count is not a multiple of eight: the same sums,
    written again), four to seven four a pass (likewise); one class a stripe at a time."""
    cdef Py_ssize_t first = 0, i
    if n_classes == 2:
        _four_stripes_two(stripes, kids, n_kids, sums)
    elif n_classes == 3:
        _four_stripes_three(stripes, kids, n_kids, sums)
    elif n_classes >= 8:
        while first < n_classes:
            if first + 8 > n_classes and first + 4 >= n_classes:  # four or fewer left: the last four
                _four_stripes_four(stripes, kids, n_kids, n_classes - 4, sums)
                break
            if first + 8 > n_classes:
                first = n_classes - 8
            _four_stripes_eight(stripes[0] + first, stripes[1] + first, stripes[2] + first, stripes[3] + first,
                                kids, n_kids, sums[0] + first, sums[1] + first, sums[2] + first, sums[3] + first)
            first += 8
    elif n_classes >= 4:
        while first < n_classes:
            if first + 4 > n_classes:
                first = n_classes - 4
            _four_stripes_four(stripes, kids, n_kids, first, sums)
            first += 4
    else:
        for i in range(4):
            _stripe_sums(stripes[i], kids, n_kids, n_classes, sums[i])


def log_weighted_sum(
    const double[:, :, ::1] values,
    const double[:, :] weights,
    bint weights_per_row,
    double[:, ::1] out,
    Py_ssize_t start,
    Py_ssize_t stop,
):
    """``out[t, c] = log sum_m w_m exp(values[t, m, c])`` for the rows ``t`` in ``start:stop``:
    ``log sum_m exp(values[t, m, c] + log w_m)``, shifted by the maximum over the members for
    each row and class.

    ``values`` ``(n, members, classes)``; ``weights`` ``(n, members)`` when
    ``weights_per_row``, else ``(1, members)`` for every row (its logarithms taken once). A
    NaN term gives NaN; a row and class whose every term is ``-inf`` (a member of weight zero
    gives ``-inf``) gives ``-inf``.
    """
    cdef Py_ssize_t n_members = values.shape[1], n_classes = values.shape[2], t, m
    cdef double* log_weights
    with nogil:
        log_weights = <double*>malloc((n_members + 1 + (n_members + 2) * n_classes) * sizeof(double))
        if log_weights == NULL:
            with gil:
                raise MemoryError()
        for t in range(start, stop):
            if t == start or weights_per_row:
                for m in range(n_members):
                    log_weights[m] = log(weights[t if weights_per_row else 0, m])
            _combine(&values[t, 0, 0], log_weights, n_members, n_classes, log_weights + n_members, &out[t, 0])
        free(log_weights)


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
    const double[:, :] weights,
    bint weights_per_row,
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
    super-parent value, whose diagonal blocks (two values of one feature) are zero: the
    super-parent's own entry is added as a child's, and adds nothing. Member ``d`` is naive
    Bayes, ``nb_prior + sum_{j known} nb_children[g_j]`` (the children in turn from zero).
    An unknown value (a negative code) is summed out exactly: as a child it is left out (its
    CPT sums to one); as super-parent ``p``, member ``p`` is ``log sum_v exp(.)`` of the sums
    above over ``p``'s values ``v`` (shifted by their maximum; NaN propagates, every term
    ``-inf`` gives ``-inf``).

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
    weights : float64 (n, d + 1), or (1, d + 1), any strides
        ``w_m`` of each row when ``weights_per_row``, else of every row (read when
        ``combine``: each row's logarithms, or those of the one row once).
    weights_per_row : bool
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
    cdef Py_ssize_t t, j, p, c, v, i, size, n_kids, n_known, bad = -1
    cdef int64_t code, h, first
    cdef int64_t* position
    cdef Py_ssize_t* index
    cdef Py_ssize_t* kids
    cdef Py_ssize_t* known_parents
    cdef char* known
    cdef double* buffer
    cdef double* row_weights
    cdef double* terms
    cdef double* scratch
    cdef double* sums
    cdef double* member
    cdef const double* entry
    cdef const double* stripes[4]
    cdef double* four[4]
    cdef const double* start_of_table = &table[0, 0] if table.shape[0] else NULL
    cdef double peak, total
    while width * width < table.shape[0]:
        width += 1
    for j in range(d):
        if cardinalities[j] > most:
            most = cardinalities[j]
    with nogil:
        position = <int64_t*>malloc((d + 1) * sizeof(int64_t))
        index = <Py_ssize_t*>malloc((3 * d + 1) * sizeof(Py_ssize_t))
        known = <char*>malloc(d + 1)
        buffer = <double*>malloc(
            ((d + 1) * n_classes + (d + 1) + most * n_classes + (d + 3) * n_classes + 1) * sizeof(double)
        )
        if position == NULL or index == NULL or known == NULL or buffer == NULL:
            free(position)
            free(index)
            free(known)
            free(buffer)
            with gil:
                raise MemoryError()
        kids = index + d
        known_parents = kids + d
        row_weights = buffer + (d + 1) * n_classes
        terms = row_weights + (d + 1)
        scratch = terms + most * n_classes
        for t in range(start, stop):
            n_kids = 0
            n_known = 0
            for j in range(d):  # each value's position, its index in the table, the known ones
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
                kids[n_kids] = index[j] * n_classes  # a child's entries within a stripe
                n_kids += 1
                known_parents[n_known] = j
                n_known += 1
            if bad >= 0:
                break
            member = buffer if combine else &members[t, 0, 0]
            # the known super-parents, four at a time: each sum over every known child (the
            # diagonal block's zero for the super-parent itself adds nothing)
            i = 0
            while i + 4 <= n_known:
                for v in range(4):
                    p = known_parents[i + v]
                    stripes[v] = start_of_table + index[p] * width * n_classes
                    four[v] = member + p * n_classes
                _four_stripe_sums(stripes, kids, n_kids, n_classes, four)
                i += 4
            while i < n_known:
                p = known_parents[i]
                _stripe_sums(start_of_table + index[p] * width * n_classes, kids, n_kids, n_classes,
                             member + p * n_classes)
                i += 1
            for p in range(d):
                sums = member + p * n_classes
                if known[p]:
                    for c in range(n_classes):
                        sums[c] = (sums[c] + priors[p, c]) + parents[position[p], c]
                    continue
                # an unknown super-parent: each of its values' sums, then their log-sum-exp
                size = cardinalities[p]
                first = offsets[p]
                for v in range(size):
                    h = first + v
                    _stripe_sums(start_of_table + place[h] * width * n_classes, kids, n_kids, n_classes,
                                 terms + v * n_classes)
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
                if t == start or weights_per_row:
                    for p in range(d + 1):
                        row_weights[p] = log(weights[t if weights_per_row else 0, p])
                _combine(member, row_weights, d + 1, n_classes, scratch, &out[t, 0])
        free(position)
        free(index)
        free(known)
        free(buffer)
    return bad


def values_outside(
    const int64_t[:, :] codes,
    const int64_t[::1] offsets,
    const int64_t[::1] cardinalities,
    const int64_t[::1] place,
    char[::1] mark=None,
):
    """How many of the values :func:`spode_joints` would read have no ``place`` (``place[g] <
    0``): those the rows hold, and every value of a feature some row leaves unknown (a
    negative code); with ``mark`` ``(R,)``, they are marked there and each counted once,
    without, the count stops at the first. A code past its feature's values is skipped
    (:func:`spode_joints` reports it)."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], t, j, count = 0
    cdef int64_t code, g, v
    cdef char* summed
    cdef bint marking = mark is not None
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
                        if place[g] < 0 and not (marking and mark[g]):
                            if marking:
                                mark[g] = 1
                            count += 1
                elif not summed[j]:
                    summed[j] = 1
                    for v in range(cardinalities[j]):
                        g = offsets[j] + v
                        if place[g] < 0 and not (marking and mark[g]):
                            if marking:
                                mark[g] = 1
                            count += 1
                if count and not marking:
                    break
            if count and not marking:
                break
        free(summed)
    return count


def every_value_frequent(const int64_t[:, :] codes, const double[::1] counts, const int64_t[::1] offsets, double limit):
    """Whether every value of ``codes`` ``(rows, features)``, any strides, is known (not
    negative) and its training count, ``counts[offsets[j] + code]``, is at least ``limit``
    (AODE's frequency limit: every super-parent of every row qualifies). The codes must be
    below their features' cardinalities."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], t, j
    cdef int64_t code
    cdef bint frequent = True
    with nogil:
        for t in range(n):
            for j in range(d):
                code = codes[t, j]
                if code < 0 or not counts[offsets[j] + code] >= limit:
                    frequent = False
                    break
            if not frequent:
                break
    return frequent
