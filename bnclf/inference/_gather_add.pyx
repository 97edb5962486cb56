# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The gather-add of a network's prediction: for every row, the sum over the families of
the log-CPT row each family's values pick (:class:`bnclf.inference._kernels.FamilyGather`).

The families' tables are stacked into one array of rows of ``n_classes`` entries; family
``f`` picks row ``bases[f] + sum_s codes[t, columns[s]] * strides[s]`` over its slots ``s``
(``first_slot[f]`` to ``first_slot[f + 1]``), one slot per variable of the family other than
the class. Each row's sum is taken family after family, the first family's entries copied,
the others added in turn; rows are independent, so rows cut among threads give the sums of
one pass, bit for bit.
"""

from libc.stdint cimport int64_t, uint64_t


def family_sums(
    const int64_t[:, :] codes,
    const int64_t[::1] first_slot,
    const int64_t[::1] columns,
    const int64_t[::1] strides,
    const int64_t[::1] sizes,
    const int64_t[::1] bases,
    const double[:, ::1] rows,
    double[:, ::1] out,
    Py_ssize_t start,
    Py_ssize_t stop,
):
    """``out[t] = sum_f rows[bases[f] + sum_s codes[t, columns[s]] * strides[s]]`` for the rows
    ``t`` in ``start:stop``.

    Parameters
    ----------
    codes : int64 (n, n_columns), any strides
        The rows' codes.
    first_slot : int64 (n_families + 1,)
        Family ``f``'s slots are ``first_slot[f]:first_slot[f + 1]``.
    columns, strides, sizes : int64 (n_slots,)
        Each slot's column of ``codes``, its stride in table rows, and its number of values.
    bases : int64 (n_families,)
        Each family's first row in ``rows``.
    rows : float64 (n_rows, n_classes)
        The stacked tables.
    out : float64 (n, n_classes)
        Written for the rows ``start:stop`` (zeros when there is no family).

    Returns
    -------
    int
        ``-1``, or the first slot (in row order, then family order) whose code is negative
        or not below its ``sizes`` entry, as ``row * n_slots + slot``; the rows from that
        one on are then left unwritten.
    """
    cdef Py_ssize_t n_families = bases.shape[0], n_classes = rows.shape[1], n_slots = columns.shape[0]
    cdef Py_ssize_t t, f, s, c, bad = -1
    cdef int64_t index, code
    cdef const double* entries
    cdef double* total
    with nogil:
        for t in range(start, stop):
            total = &out[t, 0]
            if n_families == 0:
                for c in range(n_classes):
                    total[c] = 0.0
                continue
            for f in range(n_families):
                index = bases[f]
                for s in range(first_slot[f], first_slot[f + 1]):
                    code = codes[t, columns[s]]
                    if <uint64_t>code >= <uint64_t>sizes[s]:  # negative, or past the table
                        bad = t * n_slots + s
                        break
                    index = index + code * strides[s]
                if bad >= 0:
                    break
                entries = &rows[index, 0]
                if f == 0:
                    for c in range(n_classes):
                        total[c] = entries[c]
                else:
                    for c in range(n_classes):
                        total[c] = total[c] + entries[c]
            if bad >= 0:
                break
    return bad
