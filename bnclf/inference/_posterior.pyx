# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Joint log-likelihoods normalized into log posteriors, row by row
(:func:`bnclf.inference._kernels.log_posterior`). Rows are independent: rows cut among
threads give the numbers of one pass, bit for bit."""

from libc.math cimport INFINITY, exp, isfinite, log


def log_posteriors(const double[:, ::1] jll, double[:, ::1] out, Py_ssize_t start, Py_ssize_t stop):
    """``out[t] = jll[t] - log sum_c exp(jll[t, c])`` for the rows ``t`` in ``start:stop``, the
    sum shifted by the row's maximum (by 0 when that is not finite) and taken class after
    class. A row whose normalizer is not finite (every class ``-inf``, a NaN or ``+inf``)
    gets the uniform ``-log(n_classes)``."""
    cdef Py_ssize_t n_classes = jll.shape[1], t, c
    cdef double peak, total, uniform = -log(<double>n_classes) if n_classes else 0.0
    cdef bint undefined
    with nogil:
        for t in range(start, stop):
            peak = -INFINITY
            undefined = False
            for c in range(n_classes):
                if jll[t, c] != jll[t, c]:
                    undefined = True
                elif jll[t, c] > peak:
                    peak = jll[t, c]
            if not isfinite(peak):
                peak = 0.0
            total = 0.0
            for c in range(n_classes):
                total = total + exp(jll[t, c] - peak)
            total = log(total) + peak
            if undefined or not isfinite(total):
                for c in range(n_classes):
                    out[t, c] = uniform
            else:
                for c in range(n_classes):
                    out[t, c] = jll[t, c] - total
