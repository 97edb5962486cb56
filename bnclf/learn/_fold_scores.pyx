# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The kernels of RMCV's and RMHO's cross-validated 0/1 loss
(:mod:`bnclf.learn._class_score`): a family's log-CPT entries at every evaluation row, with
the parameters of that row's training part, and the errors of the first best class of
summed entries.

Both release the GIL. :func:`fold_family_entries` is one family, in the calling thread;
:func:`zero_one_errors` scores a run of one step's neighbours, each by its own steps, so
:class:`bnclf.learn._class_score.ClassScore` cuts the neighbours among threads and gets the
same errors in any number of them.
"""

from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBuffer_Release, PyObject_GetBuffer
from libc.math cimport log
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, malloc


cdef int _CODE_OUT_OF_RANGE = 1
cdef int _FOLD_OUT_OF_RANGE = 2
cdef int _WRONG_EVAL_COUNT = 3
cdef int _NO_MEMORY = 4


def fold_family_entries(
    const int64_t[:, ::1] codes,
    const int64_t[::1] family,
    const int64_t[::1] shape,
    Py_ssize_t class_position,
    const int64_t[::1] fold,
    Py_ssize_t n_folds,
    bint leave_out,
    const double[::1] logs,
    double m,
    double zero_penalty,
    double[:, ::1] out,
):
    """Write the log-CPT entries of one family at every evaluation row, for every class value,
    each with the parameters of the row's training part, into ``out``.

    Parameters
    ----------
    codes : ndarray of int64 (N, n_variables), C-contiguous
        Coded rows, no unknown codes.
    family : ndarray of int64 (f,)
        The family's variables (columns of ``codes``): the child first, then its parents; the
        class at ``class_position`` (its axis holds ``out.shape[0]`` values).
    shape : ndarray of int64 (f,)
        Each variable's number of values; the family's table is row-major in this order.
    class_position : int
        The class's place in ``family`` (0: the class is the child).
    fold : ndarray of int64 (N,)
        Each row's fold: ``g`` in ``0 .. n_folds - 1``, evaluated; ``-1``, never evaluated and
        always in the training part.
    n_folds : int
    leave_out : bool
        True: a row of fold ``g`` is scored with the counts of every row outside fold ``g``
        (K-fold cross-validation, a holdout). False: with the counts of every row
        (resubstitution; then ``n_folds`` is 1).
    logs : ndarray of float64
        ``log(0), log(1), ...`` up to at least ``max(N, shape[0])`` (read when ``m == 0``).
    m : float
        ``m > 0``: the m-estimate ``log((N(x, pa) + m / r) / (N(pa) + m))``. ``m == 0``:
        maximum likelihood ``logs[N(x, pa)] - logs[N(pa)]``, and ``-logs[r]`` (uniform) for a
        parent configuration without training rows.
    zero_penalty : float
        Entries below ``-zero_penalty`` (a zero probability: ``-inf``) are raised to it.
    out : ndarray of float64 (n_classes, n_eval), C-contiguous
        Column ``i`` is the ``i``-th evaluated row (``fold >= 0``) in row order; row ``c`` the
        entry with the class set to ``c``.

    Raises
    ------
    ValueError
        A code outside its variable's values, a fold outside ``-1 .. n_folds - 1``, a number
        of evaluated rows other than ``out.shape[1]``, or ``logs`` too short.
    MemoryError
        The working tables (three of ``n_folds`` cells per table cell) cannot be allocated.

    Notes
    -----
    The counts are whole numbers, exact in any order. A row's entry is its cell's, so the
    numbers are those of counting each fold's training table, taking its logarithms
    (:func:`bnclf.counts.m_estimate`, or the lookup of ``logs``) and reading every row's cell:
    bit for bit under maximum likelihood (the same lookups and one subtraction), and by the C
    library's ``log`` of the same quotient under the m-estimate.
    """
    cdef Py_ssize_t n = codes.shape[0], f = family.shape[0], t
    if shape.shape[0] != f or not 0 <= class_position < f or n_folds < 1 or fold.shape[0] != n:
        raise ValueError("fold_family_entries: family, shape, class_position, fold and n_folds do not agree.")
    if out.shape[0] != shape[class_position]:
        raise ValueError(f"fold_family_entries: out has {out.shape[0]} rows for {shape[class_position]} classes.")
    for t in range(f):
        if not 0 <= family[t] < codes.shape[1] or shape[t] < 1:
            raise ValueError("fold_family_entries: a family variable outside the codes' columns, or without values.")
    if m <= 0.0 and logs.shape[0] <= max(n, shape[0]):
        raise ValueError(f"fold_family_entries: logs holds {logs.shape[0]} entries; it needs {max(n, shape[0]) + 1}.")
    cdef int status
    with nogil:
        status = _entries(codes, family, shape, class_position, fold, n_folds, leave_out, logs, m, zero_penalty, out)
    if status == _CODE_OUT_OF_RANGE:
        raise ValueError("fold_family_entries: a code outside its variable's values.")
    if status == _FOLD_OUT_OF_RANGE:
        raise ValueError(f"fold_family_entries: a fold outside -1 .. {n_folds - 1}.")
    if status == _WRONG_EVAL_COUNT:
        raise ValueError(f"fold_family_entries: out has {out.shape[1]} columns for another number of evaluated rows.")
    if status == _NO_MEMORY:
        raise MemoryError("fold_family_entries: the working tables of the family could not be allocated.")


cdef int _entries(
    const int64_t[:, ::1] codes,
    const int64_t[::1] family,
    const int64_t[::1] shape,
    Py_ssize_t class_position,
    const int64_t[::1] fold,
    Py_ssize_t k,
    bint leave_out,
    const double[::1] logs,
    double m,
    double zero_penalty,
    double[:, ::1] out,
) noexcept nogil:
    cdef Py_ssize_t n = codes.shape[0], f = family.shape[0], n_eval = out.shape[1], n_classes = out.shape[0]
    cdef Py_ssize_t t, a, g, i, c, cell
    cdef int64_t r = shape[0], size = 1, columns, class_stride = 1, stride, code, v, count, denominator
    cdef int64_t total, column
    cdef double entry
    for a in range(f):
        size *= shape[a]
    for a in range(class_position + 1, f):
        class_stride *= shape[a]
    columns = size // r  # parent configurations, the class among them unless it is the child
    cdef int64_t *held = <int64_t *> calloc(size * k, sizeof(int64_t))  # (cell, fold) held out; then train
    cdef int64_t *never = <int64_t *> calloc(size, sizeof(int64_t))  # per cell: rows never evaluated
    cdef int64_t *parent_total = <int64_t *> calloc(columns * k, sizeof(int64_t))  # (configuration, fold)
    cdef int64_t *place = <int64_t *> malloc((n_eval if n_eval > 0 else 1) * sizeof(int64_t))
    cdef double *table = <double *> malloc(size * k * sizeof(double))
    cdef int status = 0
    if held == NULL or never == NULL or parent_total == NULL or place == NULL or table == NULL:
        status = _NO_MEMORY
    i = 0
    t = 0
    while status == 0 and t < n:  # each row's cell without the class, and the counts
        cell = 0
        stride = size
        for a in range(f):
            stride //= shape[a]
            if a != class_position:
                code = codes[t, family[a]]
                if code < 0 or code >= shape[a]:
                    status = _CODE_OUT_OF_RANGE
                cell += code * stride
        code = codes[t, family[class_position]]
        if code < 0 or code >= n_classes:
            status = _CODE_OUT_OF_RANGE
        g = fold[t]
        if status != 0:  # nothing written for a row with a code outside its values
            break
        if g >= k or g < -1:
            status = _FOLD_OUT_OF_RANGE
        elif g == -1:
            never[cell + code * class_stride] += 1
        elif i >= n_eval:
            status = _WRONG_EVAL_COUNT
        else:
            place[i] = cell * k + g  # the (cell, fold) of the row, the class left out
            held[(cell + code * class_stride) * k + g] += 1
            i += 1
        t += 1
    if status == 0 and i != n_eval:
        status = _WRONG_EVAL_COUNT
    if status != 0:
        free(held); free(never); free(parent_total); free(place); free(table)
        return status
    for cell in range(size):  # each fold's training counts, and their sums over the child
        total = never[cell]
        for g in range(k):
            total += held[cell * k + g]
        column = (cell % columns) * k
        for g in range(k):
            count = total - held[cell * k + g] if leave_out else total
            held[cell * k + g] = count
            parent_total[column + g] += count
    for cell in range(size):
        column = (cell % columns) * k
        for g in range(k):
            count, denominator = held[cell * k + g], parent_total[column + g]
            if m > 0.0:
                entry = log((count + m / r) / (denominator + m))
            elif denominator == 0:  # a configuration without training rows: uniform
                entry = -logs[r]
            else:
                entry = logs[count] - logs[denominator]
            table[cell * k + g] = entry if entry > -zero_penalty else -zero_penalty
    for c in range(n_classes):
        column = c * class_stride * k
        for i in range(n_eval):
            out[c, i] = table[place[i] + column]
    free(held); free(never); free(parent_total); free(place); free(table)
    return 0


def zero_one_errors(
    list arrays,
    const int64_t[:, ::1] plan,
    const int64_t[::1] y,
    double impossible,
    double tolerance,
    int64_t[::1] out,
    Py_ssize_t start,
    Py_ssize_t stop,
):
    """Write into ``out[start:stop]`` the number of rows whose first best class of each
    neighbour's sums is not ``y``.

    Parameters
    ----------
    arrays : list of ndarray of float64 (n_classes, n_rows), C-contiguous
        Summed log-CPT entries of each row (column) for each class (row), and the entries
        added to or taken from them.
    plan : ndarray of int64 (n_neighbours, width)
        Row ``k`` makes neighbour ``k``'s sums: ``arrays[plan[k, 0]]``, then, for ``j = 1, 2,
        ...`` until a 0, plus ``arrays[plan[k, j] - 1]`` when ``plan[k, j] > 0`` and less
        ``arrays[-plan[k, j] - 1]`` when it is negative, cell by cell in that order.
    y : ndarray of int64 (n_rows,)
        The true classes, in ``0 .. n_classes - 1``.
    impossible : float
        A sum below it is an impossible class.
    tolerance : float
        Sums within it of the best are ties.
    out : ndarray of int64 (n_neighbours,)
    start, stop : int
        The neighbours to score (the rows of ``plan``): parts of one plan may run in threads
        at once.

    Raises
    ------
    ValueError
        Arrays of another shape or not C-contiguous float64, a plan entry outside ``arrays``,
        or a class outside ``0 .. n_classes - 1``.

    Notes
    -----
    The rule of :func:`bnclf.learn._class_score.first_best`: the prediction is the lowest
    class within ``tolerance`` of the best; where every class is below ``impossible`` it is
    class 0. With two classes the prediction is class 1 when its sum is above class 0's plus
    ``tolerance`` and above ``impossible``. Each cell's sum is formed by the same additions
    and subtractions in the same order as the whole arrays would be, so the errors are those
    of forming every neighbour's sums first and predicting from them; each neighbour is
    scored by its own steps, so parts give the same errors in any number of threads.
    """
    cdef Py_ssize_t n = y.shape[0], width = plan.shape[1], n_arrays = len(arrays), k, j, a
    if stop > plan.shape[0] or start < 0 or out.shape[0] != plan.shape[0] or width < 1:
        raise ValueError("zero_one_errors: plan, out, start and stop do not agree.")
    if start >= stop:
        return
    if n_arrays == 0:
        raise ValueError("zero_one_errors: no arrays.")
    cdef _Buffers buffers = _Buffers(arrays, n)
    cdef Py_ssize_t n_classes = buffers.n_classes
    for k in range(start, stop):
        for j in range(width):
            a = plan[k, j]
            if (j == 0 and not 0 <= a < n_arrays) or (j > 0 and not -n_arrays <= a <= n_arrays):
                raise ValueError(f"zero_one_errors: plan[{k}, {j}] = {a} is outside the {n_arrays} arrays.")
            if j > 0 and a == 0:
                break
    for k in range(n):
        if not 0 <= y[k] < n_classes:
            raise ValueError(f"zero_one_errors: a class outside 0 .. {n_classes - 1}.")
    cdef double *scratch = <double *> malloc((n_classes + 2) * max(n, 1) * sizeof(double))
    if scratch == NULL:
        raise MemoryError("zero_one_errors: no memory for one neighbour's sums.")
    with nogil:
        for k in range(start, stop):
            out[k] = _neighbour_errors(buffers.data, plan, k, n_classes, n, &y[0], scratch, impossible, tolerance)
    free(scratch)


cdef class _Buffers:
    """The data of a list of ``(n_classes, n)`` float64 C-contiguous arrays, held for the
    life of the object."""

    cdef Py_buffer *views
    cdef const double **data
    cdef Py_ssize_t count, n_classes

    def __cinit__(self, list arrays, Py_ssize_t n):
        self.views = <Py_buffer *> calloc(len(arrays), sizeof(Py_buffer))
        self.data = <const double **> calloc(len(arrays), sizeof(double *))
        if self.views == NULL or self.data == NULL:
            raise MemoryError("zero_one_errors: no memory for the arrays' addresses.")
        cdef Py_ssize_t i
        cdef Py_buffer *view
        for i in range(len(arrays)):
            view = &self.views[i]
            PyObject_GetBuffer(arrays[i], view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
            self.count = i + 1
            if i == 0:
                self.n_classes = view.shape[0] if view.ndim == 2 else 0
            if (view.ndim != 2 or view.itemsize != 8 or not _is_double(view.format)
                    or view.shape[0] != self.n_classes or view.shape[1] != n or self.n_classes < 1):
                raise ValueError(f"zero_one_errors: arrays[{i}] is not float64 of the shape (n_classes, {n}).")
            self.data[i] = <const double *> view.buf

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.views != NULL:
            for i in range(self.count):
                PyBuffer_Release(&self.views[i])
        free(self.views)
        free(<void *> self.data)


cdef bint _is_double(const char *format) noexcept:
    """Whether a buffer format is one native float64 (``d``, ``@d`` or ``=d``)."""
    if format == NULL:
        return False
    if format[0] in b"@=":
        format += 1
    return format[0] == b"d" and format[1] == 0


cdef extern from *:
    """
    #include <stdint.h>

    /* Where the compiler and the C library can choose a function's version by the processor
       at run time (GCC, glibc, x86-64), these loops are also compiled for AVX2 and AVX-512;
       elsewhere for the build's instruction set alone. Every version takes the same steps
       (additions, subtractions and comparisons, no multiplication to fuse): the same bits. */
    #if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && defined(__GNUC__) \
        && !defined(__clang__) && __GNUC__ >= 8
    #define BNCLF_SCORE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
    #else
    #define BNCLF_SCORE_CLONES
    #endif

    /* Two classes: the rows whose prediction (class 1 where its sum is above class 0's plus
       the tolerance and above `impossible`, else class 0) is not y (0 or 1). The sums are
       s0[i] + a0[i] and s1[i] + a1[i], or s0[i] and s1[i] where a0 is NULL. */
    BNCLF_SCORE_CLONES
    static int64_t bnclf_two_class_errors(const double *s0, const double *s1, const double *a0, const double *a1,
                                          Py_ssize_t n, const int64_t *y, double impossible, double tolerance) {
        int64_t errors = 0;
        Py_ssize_t i;
        if (a0 == NULL) {
            for (i = 0; i < n; i++) {
                double first = s0[i], second = s1[i];
                int64_t predicted = (second > first + tolerance) & (second > impossible);
                errors += predicted ^ y[i];
            }
        } else {
            for (i = 0; i < n; i++) {
                double first = s0[i] + a0[i], second = s1[i] + a1[i];
                int64_t predicted = (second > first + tolerance) & (second > impossible);
                errors += predicted ^ y[i];
            }
        }
        return errors;
    }

    /* best[i] = the larger of best[i] and the row's sum (row[i] + add[i], or row[i] where add
       is NULL); with `start`, best[i] = the sum. */
    BNCLF_SCORE_CLONES
    static void bnclf_best_pass(const double *row, const double *add, double *best, Py_ssize_t n, int start) {
        Py_ssize_t i;
        if (start) {
            if (add == NULL)
                for (i = 0; i < n; i++) best[i] = row[i];
            else
                for (i = 0; i < n; i++) best[i] = row[i] + add[i];
        } else if (add == NULL) {
            for (i = 0; i < n; i++) best[i] = row[i] > best[i] ? row[i] : best[i];
        } else {
            for (i = 0; i < n; i++) {
                double s = row[i] + add[i];
                best[i] = s > best[i] ? s : best[i];
            }
        }
    }

    /* first[i] = c where the row's sum reaches threshold[i] and first[i] is not 0 (a row
       given class 0 keeps it). */
    BNCLF_SCORE_CLONES
    static void bnclf_first_pass(const double *row, const double *add, const double *threshold, double *first,
                                 double c, Py_ssize_t n) {
        Py_ssize_t i;
        if (add == NULL) {
            for (i = 0; i < n; i++) first[i] = ((row[i] >= threshold[i]) & (first[i] != 0.0)) ? c : first[i];
        } else {
            for (i = 0; i < n; i++) first[i] = ((row[i] + add[i] >= threshold[i]) & (first[i] != 0.0)) ? c : first[i];
        }
    }

    /* sums[i] = sums[i] + term[i] (sign > 0) or sums[i] - term[i]. */
    BNCLF_SCORE_CLONES
    static void bnclf_add_pass(double *sums, const double *term, Py_ssize_t n, int sign) {
        Py_ssize_t i;
        if (sign > 0)
            for (i = 0; i < n; i++) sums[i] = sums[i] + term[i];
        else
            for (i = 0; i < n; i++) sums[i] = sums[i] - term[i];
    }
    """
    int64_t bnclf_two_class_errors(const double *s0, const double *s1, const double *a0, const double *a1,
                                   Py_ssize_t n, const int64_t *y, double impossible, double tolerance) nogil
    void bnclf_best_pass(const double *row, const double *add, double *best, Py_ssize_t n, int start) nogil
    void bnclf_first_pass(const double *row, const double *add, const double *threshold, double *first, double c,
                          Py_ssize_t n) nogil
    void bnclf_add_pass(double *sums, const double *term, Py_ssize_t n, int sign) nogil


cdef int64_t _neighbour_errors(
    const double **data,
    const int64_t[:, ::1] plan,
    Py_ssize_t k,
    Py_ssize_t n_classes,
    Py_ssize_t n,
    const int64_t *y,
    double *scratch,
    double impossible,
    double tolerance,
) noexcept nogil:
    """The errors of neighbour ``k`` of :func:`zero_one_errors`: its base alone, its base plus
    one array (read as they are), or else its sums formed in ``scratch`` first (the same
    steps, a cell at a time). ``scratch`` holds ``(n_classes + 2) * n`` numbers."""
    cdef const double *base = data[plan[k, 0]]
    cdef const double *added = NULL
    cdef Py_ssize_t width = plan.shape[1], j, i, size = n_classes * n
    cdef int64_t a
    cdef double *sums
    if width > 1 and plan[k, 1] > 0 and (width == 2 or plan[k, 2] == 0):  # one array added
        added = data[plan[k, 1] - 1]
    elif width > 1 and plan[k, 1] != 0:
        sums = scratch + 2 * n
        for i in range(size):
            sums[i] = base[i]
        for j in range(1, width):
            a = plan[k, j]
            if a == 0:
                break
            bnclf_add_pass(sums, data[a - 1] if a > 0 else data[-a - 1], size, 1 if a > 0 else -1)
        base = sums
    if n_classes == 2:
        return bnclf_two_class_errors(base, base + n, added, added + n if added != NULL else NULL, n, y,
                                      impossible, tolerance)
    return _errors(base, added, n_classes, n, y, impossible, tolerance, scratch)


cdef int64_t _errors(
    const double *base,
    const double *added,
    Py_ssize_t n_classes,
    Py_ssize_t n,
    const int64_t *y,
    double impossible,
    double tolerance,
    double *scratch,
) noexcept nogil:
    """The errors of :func:`zero_one_errors` with one class or three and more, a class's sums
    at a time: each row's best sum (the largest), then its first class within the tolerance
    of it (the classes from the last to the first, the lower one kept), compared with the
    true class (a row's true class is within the tolerance of the best and no class below it
    is exactly when it is that first class)."""
    cdef Py_ssize_t i, c
    cdef int64_t errors = 0
    cdef double *best = scratch  # each row's best sum, then less the tolerance
    cdef double *first = scratch + n  # each row's first class within the tolerance
    for c in range(n_classes):
        bnclf_best_pass(base + c * n, added + c * n if added != NULL else NULL, best, n, c == 0)
    for i in range(n):
        first[i] = 0.0 if best[i] < impossible else n_classes  # every class impossible: class 0
        best[i] = best[i] - tolerance
    for c in range(n_classes - 1, -1, -1):
        bnclf_first_pass(base + c * n, added + c * n if added != NULL else NULL, best, first, c, n)
    for i in range(n):
        errors += first[i] != <double> y[i]
    return errors
