"""The compiled loops of the hot paths, for numba (imported only through :mod:`bnclf._compiled`).

Each loop does what a numpy path of the same name does, in the same order of floating-point
operations where that order decides a result (the class a score predicts, the counts): RMCV's
scores and AODE's tables are the numpy path's numbers (a logarithm is the C library's ``log``,
where numpy on an AVX-512 machine has a SIMD routine of its own that rounds a few values in
ten thousand the other way), and AODE's posteriors agree to rounding (its small-table loop
multiplies probabilities, so a prediction may differ only where two classes tie exactly).
The tests run both paths and compare them. A loop visits each row once, where the numpy
paths make a pass over a whole array per step.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from bnclf._compiled_counts import (  # noqa: F401 - the all-pairs counts' loops, read as loops.<name>
    _TILE,
    bitset_layout,
    bitset_pair_counts,
    bitset_pair_rows,
    bitset_slots,
    diagonal_row,
    fill_bitsets,
    last_value_columns,
    last_value_diagonal,
    last_value_pairs,
    last_value_rows,
    mirror_rows,
    pair_sources,
    values_held,
    values_in_use,
)

_jit = numba.njit(cache=True, nogil=True)
_jit_inline = numba.njit(cache=True, nogil=True, inline="always")


@_jit
def zero_one_errors(base, entries, y, impossible, tolerance):  # pragma: no cover - compiled
    """Errors of the first best class of ``base + entries``, ``(n_classes, n_rows)`` sums,
    against the classes ``y``.

    The rule of :func:`bnclf.learn._class_score.first_best`, as
    :meth:`bnclf.learn._class_score.ClassScore._first_best_is_true_class` applies it: a row
    is right when its true class is within ``tolerance`` of the best and no class below
    it is; where every class is below ``impossible`` the prediction is class 0 (with two
    classes, where class 1 is not above it, as the two-class numpy path does).
    """
    n_classes, n = base.shape
    errors = 0
    if n_classes == 2:
        for r in range(n):
            first, second = base[0, r] + entries[0, r], base[1, r] + entries[1, r]
            errors += (1 if (second > first + tolerance and second > impossible) else 0) != y[r]
        return errors
    for r in range(n):
        best = base[0, r] + entries[0, r]
        for c in range(1, n_classes):
            s = base[c, r] + entries[c, r]
            best = s if s > best else best
        threshold = best - tolerance
        true = y[r]
        right = base[true, r] + entries[true, r] >= threshold
        for c in range(true):
            if base[c, r] + entries[c, r] >= threshold:
                right = False
        if best < impossible:  # every class impossible: class 0
            right = true == 0
        errors += not right
    return errors


_ROWS_PER_BLOCK = 32
"""Rows whose SPODE sums are formed together, a child feature at a time: the table's stripes of
one child feature's values are read for all of them while they are in cache."""


@_jit
def spode_sums(position, known, flat, width, out):  # pragma: no cover - compiled
    """Each SPODE's children's sum ``out[t, p] = sum_j flat[g_tj * width + g_tp]`` over the
    known children ``j`` of row ``t`` (:class:`bnclf.inference.SuperParentKernel`'s gather
    path, in its order: children in turn, from zero)."""
    for start in range(0, position.shape[0], _ROWS_PER_BLOCK):
        stop = min(position.shape[0], start + _ROWS_PER_BLOCK)
        _children_sums(position, known, flat, width, start, stop, out[start:stop])


@_jit
def _children_sums(position, known, flat, width, start, stop, out, multiply=False):  # pragma: no cover - compiled
    """:func:`spode_sums` of rows ``start:stop`` into ``out`` ``(rows, >= d, n_classes)``, or with
    ``multiply`` the products of ``flat``'s entries (probabilities), from one.

    A child feature at a time for all the rows: the entries of child ``j``'s value lie in one
    stripe of ``flat`` (a super-parent value's row after another, in increasing order), and
    the stripes of ``j``'s values stay in cache while every row reads from them; each row's
    sums are still taken children in turn, from zero.

    Two and three classes pass their count as a constant, which the compiler carries into
    :func:`_add_children` and unrolls: splice's loop (three classes) takes about 40 % less
    time than with the count read from the array."""
    d, n_classes = position.shape[1], flat.shape[1]
    for t in range(stop - start):
        for p in range(d):
            for c in range(n_classes):
                out[t, p, c] = 1.0 if multiply else 0.0
    if n_classes == 2:
        _add_children(position, known, flat, width, start, stop, out, 2, multiply)
    elif n_classes == 3:
        _add_children(position, known, flat, width, start, stop, out, 3, multiply)
    else:
        _add_children(position, known, flat, width, start, stop, out, n_classes, multiply)


@_jit
def _add_children(position, known, flat, width, start, stop, out, n_classes, multiply):  # pragma: no cover - compiled
    """The loop of :func:`_children_sums` for ``n_classes`` classes."""
    d = position.shape[1]
    for j in range(d):
        for t in range(start, stop):
            if not known[t, j]:
                continue
            stripe = position[t, j] * width
            members = out[t - start]
            for p in range(d):
                row = stripe + position[t, p]
                if multiply:
                    for c in range(n_classes):
                        members[p, c] *= flat[row, c]
                else:
                    for c in range(n_classes):
                        members[p, c] += flat[row, c]


@_jit
def _parent_sums(position, by_parent, width, start, stop, out, n_classes):  # pragma: no cover - compiled
    """:func:`_children_sums`' sums of rows whose values are all known, from the table laid out
    by super-parent value (``by_parent[g_p * width + g_j]`` is ``flat[g_j * width + g_p]``), for
    two or three classes: four super-parents of a row at a time, each sum in a register, its
    children added in turn from zero (the same additions in the same order: the same bits). A
    super-parent value's row of the table is read along its children's values, in increasing
    order, and the sums are written once, where the child-major loop loads and stores each sum
    per child. Other class counts run a pass over the children per class.

    No child is tested for being known (a test per child cost splice's loop a quarter of its
    time): the sums of a row with an unknown value are meaningless, and
    :func:`averaged_spodes` leaves such rows to its caller."""
    d = position.shape[1]
    three = n_classes == 3
    p = 0
    if n_classes == 2 or three:
        while p + 4 <= d:
            for t in range(start, stop):
                b0, b1 = position[t, p] * width, position[t, p + 1] * width
                b2, b3 = position[t, p + 2] * width, position[t, p + 3] * width
                a0 = a1 = a2 = e0 = e1 = e2 = h0 = h1 = h2 = k0 = k1 = k2 = 0.0
                for j in range(d):
                    g = position[t, j]
                    r0, r1, r2, r3 = b0 + g, b1 + g, b2 + g, b3 + g
                    a0 += by_parent[r0, 0]
                    a1 += by_parent[r0, 1]
                    e0 += by_parent[r1, 0]
                    e1 += by_parent[r1, 1]
                    h0 += by_parent[r2, 0]
                    h1 += by_parent[r2, 1]
                    k0 += by_parent[r3, 0]
                    k1 += by_parent[r3, 1]
                    if three:
                        a2 += by_parent[r0, 2]
                        e2 += by_parent[r1, 2]
                        h2 += by_parent[r2, 2]
                        k2 += by_parent[r3, 2]
                members = out[t - start]
                members[p, 0], members[p, 1] = a0, a1
                members[p + 1, 0], members[p + 1, 1] = e0, e1
                members[p + 2, 0], members[p + 2, 1] = h0, h1
                members[p + 3, 0], members[p + 3, 1] = k0, k1
                if three:
                    members[p, 2], members[p + 1, 2], members[p + 2, 2], members[p + 3, 2] = a2, e2, h2, k2
            p += 4
    for q in range(p, d):  # the last super-parents (all of them for other class counts)
        for t in range(start, stop):
            base = position[t, q] * width
            for c in range(n_classes):
                total = 0.0
                for j in range(d):
                    total += by_parent[base + position[t, j], c]
                out[t - start, q, c] = total


@_jit
def averaged_spodes(
    position, known, flat, width, priors, parents, nb_prior, nb_children, log_weights, out, by_parent=False
):  # pragma: no cover - compiled
    """AODE's combined ``log sum_m w_m P_m(c, x)`` of the rows whose values are all known
    (every feature is a super-parent); the other rows of ``out`` are left as they are, for
    the caller to sum over their unknown values.

    Member ``p < d`` is SPODE ``p``: its children's ``flat[g_j * width + g_p]`` (the
    diagonal of ``flat`` is zero), its prior ``priors[p]`` and its super-parent's
    ``parents[g_p]``; member ``d`` is naive Bayes. The sums are taken in the order of
    :class:`bnclf.inference.SuperParentKernel` (children in turn from zero, then the prior,
    then the super-parent), the combination in that of :func:`log_weighted_sum`.
    ``log_weights`` is ``(rows, d + 1)``. With ``by_parent``, ``flat`` is laid out by
    super-parent value and :func:`_parent_sums` adds the children.
    """
    n, d = position.shape
    n_classes = flat.shape[1]
    block = np.empty((_ROWS_PER_BLOCK, d + 1, n_classes))
    for start in range(0, n, _ROWS_PER_BLOCK):
        stop = min(n, start + _ROWS_PER_BLOCK)
        if not by_parent:
            _children_sums(position, known, flat, width, start, stop, block)
        elif n_classes == 2:  # the count as a constant: one compiled copy each
            _parent_sums(position, flat, width, start, stop, block, 2)
        elif n_classes == 3:
            _parent_sums(position, flat, width, start, stop, block, 3)
        else:
            _parent_sums(position, flat, width, start, stop, block, n_classes)
        for t in range(start, stop):
            if not _all_known(known[t]):
                continue
            members = block[t - start]
            for p in range(d):
                g = position[t, p]
                for c in range(n_classes):
                    members[p, c] = (members[p, c] + priors[p, c]) + parents[g, c]
            for c in range(n_classes):
                total = 0.0
                for j in range(d):
                    total += nb_children[position[t, j], c]
                members[d, c] = nb_prior[c] + total
            _log_weighted_row(members, log_weights[t], out[t])


@_jit
def _children_products(position, known, probabilities, width, start, stop, out):  # pragma: no cover - compiled
    """:func:`_children_sums`' products of rows ``start:stop`` into ``out``; with four classes or
    more, those of the rows whose values are all known alone, by :func:`_row_products` (the same
    products in the same order: the same bits), the other rows of ``out`` left as they are."""
    if probabilities.shape[1] < 4:
        _children_sums(position, known, probabilities, width, start, stop, out, True)
        return
    entries = probabilities.reshape(probabilities.size)
    for t in range(start, stop):
        if _all_known(known[t]):
            _row_products(position[t], entries, width, probabilities.shape[1], out[t - start])


@_jit
def _row_products(values, entries, width, n_classes, members):  # pragma: no cover - compiled
    """Each SPODE's product of its children's probabilities for one row whose values (positions)
    are all known: ``members[p, c] = prod_j entries[(g_j * width + g_p) * n_classes + c]``, the
    children in turn from one, for ``n_classes >= 4``.

    Four super-parents and four classes at a time (:func:`_four_parents`), each product in a
    register of its own: the sixteen products advance together, where a product kept in memory
    waits for the multiplication before it (the child-major loop takes about 1.7 times as long
    on vowel's eleven classes). The last four classes overlap the previous ones when the count
    is not a multiple of four (the same products, written again)."""
    d = values.shape[0]
    p = 0
    while p + 4 <= d:
        _four_parents(values, entries, width, n_classes, p, members)
        p += 4
    for q in range(p, d):
        _one_parent(values, entries, width, n_classes, q, members)


@_jit_inline
def _four_parents(values, entries, width, n_classes, p, members):  # pragma: no cover - compiled
    """:func:`_row_products` of super-parents ``p`` to ``p + 3``. Indices are unsigned, so
    that the compiler does not test them for wrapping around."""
    w, k = np.uint64(width), np.uint64(n_classes)
    g0, g1 = np.uint64(values[p]), np.uint64(values[p + 1])
    g2, g3 = np.uint64(values[p + 2]), np.uint64(values[p + 3])
    first = 0
    while first < n_classes:
        if first + 4 > n_classes:
            first = n_classes - 4
        c = np.uint64(first)
        a00 = a01 = a02 = a03 = a10 = a11 = a12 = a13 = 1.0
        a20 = a21 = a22 = a23 = a30 = a31 = a32 = a33 = 1.0
        for j in range(values.shape[0]):
            stripe = np.uint64(values[j]) * w
            a00, a01, a02, a03 = _times4(entries, (stripe + g0) * k + c, a00, a01, a02, a03)
            a10, a11, a12, a13 = _times4(entries, (stripe + g1) * k + c, a10, a11, a12, a13)
            a20, a21, a22, a23 = _times4(entries, (stripe + g2) * k + c, a20, a21, a22, a23)
            a30, a31, a32, a33 = _times4(entries, (stripe + g3) * k + c, a30, a31, a32, a33)
        _store4(members[p], first, a00, a01, a02, a03)
        _store4(members[p + 1], first, a10, a11, a12, a13)
        _store4(members[p + 2], first, a20, a21, a22, a23)
        _store4(members[p + 3], first, a30, a31, a32, a33)
        first += 4


@_jit_inline
def _one_parent(values, entries, width, n_classes, p, members):  # pragma: no cover - compiled
    """:func:`_row_products` of super-parent ``p`` alone."""
    w, k = np.uint64(width), np.uint64(n_classes)
    g = np.uint64(values[p])
    first = 0
    while first < n_classes:
        if first + 4 > n_classes:
            first = n_classes - 4
        c = np.uint64(first)
        a0 = a1 = a2 = a3 = 1.0
        for j in range(values.shape[0]):
            a0, a1, a2, a3 = _times4(entries, (np.uint64(values[j]) * w + g) * k + c, a0, a1, a2, a3)
        _store4(members[p], first, a0, a1, a2, a3)
        first += 4


@_jit_inline
def _times4(entries, r, a0, a1, a2, a3):  # pragma: no cover - compiled
    """``(a0 * entries[r], ..., a3 * entries[r + 3])`` (``r`` unsigned)."""
    one = np.uint64(1)
    return a0 * entries[r], a1 * entries[r + one], a2 * entries[r + one + one], a3 * entries[r + one + one + one]


@_jit
def _store4(row, first, a0, a1, a2, a3):  # pragma: no cover - compiled
    """``row[first:first + 4] = a0, a1, a2, a3``."""
    row[first] = a0
    row[first + 1] = a1
    row[first + 2] = a2
    row[first + 3] = a3


@_jit
def _all_known(known):  # pragma: no cover - compiled
    """Whether a row's values are all known."""
    for k in known:
        if not k:
            return False
    return True


@_jit
def averaged_spode_probabilities(
    position, known, probabilities, width, priors, parents, nb_prior, nb_children, weights, out
):  # pragma: no cover - compiled
    """:func:`averaged_spodes` with every table as probabilities (``exp`` of the log-CPTs):
    ``out[t, c] = log sum_m w_m P_m(c, x)`` from products, as Weka's AODE computes it, with
    one logarithm per row and class and no exponential. The caller makes sure no product
    can fall below the smallest normal number (:class:`bnclf.inference.SuperParentKernel`).
    As there, rows with an unknown value are left as they are, for the caller to sum over it.
    """
    n, d = position.shape
    n_classes = probabilities.shape[1]
    block = np.empty((_ROWS_PER_BLOCK, d, n_classes))
    total = np.empty(n_classes)
    for start in range(0, n, _ROWS_PER_BLOCK):
        stop = min(n, start + _ROWS_PER_BLOCK)
        _children_products(position, known, probabilities, width, start, stop, block)
        for t in range(start, stop):
            if not _all_known(known[t]):
                continue
            members = block[t - start]
            for c in range(n_classes):  # naive Bayes first, then each SPODE in turn (classes innermost)
                total[c] = nb_prior[c]
            for j in range(d):
                children = nb_children[position[t, j]]
                for c in range(n_classes):
                    total[c] *= children[c]
            for c in range(n_classes):
                total[c] *= weights[t, d]
            for p in range(d):
                w, parent = weights[t, p], parents[position[t, p]]
                for c in range(n_classes):
                    total[c] += w * (members[p, c] * priors[p, c] * parent[c])
            for c in range(n_classes):
                out[t, c] = math.log(total[c]) if total[c] > 0.0 else -np.inf


@_jit
def row_positions(codes, offsets):  # pragma: no cover - compiled
    """``(position, known, every_known)`` of ``codes`` ``(rows, features)``: each value's
    position ``offsets[j] + code`` (0 where unknown), whether it is known, and whether all are
    (the steps of ``known = codes >= 0``, ``np.where(known, codes + offsets, 0)``, ``known.all()``)."""
    n, d = codes.shape
    position = np.empty((n, d), dtype=np.int64)
    known = np.empty((n, d), dtype=np.bool_)
    every_known = True
    for t in range(n):
        for j in range(d):
            code = codes[t, j]
            if code >= 0:
                position[t, j] = offsets[j] + code
                known[t, j] = True
            else:
                position[t, j] = 0
                known[t, j] = False
                every_known = False
    return position, known, every_known


@_jit
def _lowest_log_entry(table):  # pragma: no cover - compiled
    """The smallest finite entry of ``table`` (1-D), ``0.0`` when none; NaN when an entry is
    NaN or above 0 (not a log-probability)."""
    lowest = 0.0
    for i in range(table.shape[0]):
        v = table[i]
        if not v <= 0.0:
            return np.nan
        if -np.inf < v < lowest:
            lowest = v
    return lowest


@_jit
def lowest_log_entries(priors, parents, nb_prior, nb_children):  # pragma: no cover - compiled
    """:func:`_lowest_log_entry` of each of AODE's small tables (1-D views), in one call (a
    scalar loop: numpy's vector reductions are faster on the large pair table only)."""
    return (
        _lowest_log_entry(priors),
        _lowest_log_entry(parents),
        _lowest_log_entry(nb_prior),
        _lowest_log_entry(nb_children),
    )


@_jit
def smallest_positive_weight(weights):  # pragma: no cover - compiled
    """The smallest positive entry of ``(rows, members)`` weights (any strides: one row
    broadcast to every row is read in place), ``0.0`` when none is positive, ``-1.0`` when
    an entry is negative, NaN or infinite."""
    smallest = np.inf
    for t in range(weights.shape[0]):
        for m in range(weights.shape[1]):
            w = weights[t, m]
            if not (w >= 0.0 and w < np.inf):
                return -1.0
            if 0.0 < w < smallest:
                smallest = w
    return smallest if smallest < np.inf else 0.0


@_jit
def every_value_frequent(codes, counts, offsets, limit):  # pragma: no cover - compiled
    """Whether every value of ``codes`` ``(rows, features)`` is known and its training count,
    ``counts[offsets[j] + code]``, is at least ``limit``."""
    for t in range(codes.shape[0]):
        for j in range(codes.shape[1]):
            code = codes[t, j]
            if code < 0 or counts[offsets[j] + code] < limit:
                return False
    return True


@_jit
def _log_weighted_row(values, log_weights, out):  # pragma: no cover - compiled
    """:func:`log_weighted_sum` of one row: ``values`` ``(members, classes)``."""
    n_members, n_classes = values.shape
    for c in range(n_classes):
        peak = -np.inf
        undefined = False
        for m in range(n_members):
            v = values[m, c] + log_weights[m]
            if math.isnan(v):
                undefined = True
            elif v > peak:
                peak = v
        if undefined:  # NaN propagates
            out[c] = np.nan
            continue
        if not math.isfinite(peak):  # every term -inf (or an infinite term): shift by 0
            peak = 0.0
        total = 0.0
        for m in range(n_members):
            total += math.exp((values[m, c] + log_weights[m]) - peak)
        out[c] = (math.log(total) if total > 0.0 else -np.inf) + peak


@_jit
def log_weighted_sum(values, log_weights, out):  # pragma: no cover - compiled
    """``out[t, c] = log sum_m exp(values[t, m, c] + log_weights[t, m])``, shifted by the
    maximum over the members (:func:`bnclf.inference._kernels.log_weighted_sum`'s steps:
    the sum, its maximum, the exponentials added in member order, the logarithm)."""
    for t in range(values.shape[0]):
        _log_weighted_row(values[t], log_weights[t], out[t])


@_jit
def fold_family_entries(
    codes, family, strides, class_position, n_classes, fold, k, r, logs, m, zero_penalty
):  # pragma: no cover
    """The log-CPT entries ``(n_classes, n_rows)`` of one family at every row, with the
    parameters of the row's own fold (every row held out once), for every class value:
    :meth:`bnclf.learn._class_score.FamilyContributions.get`'s all-folds branch, its counts,
    table and reading in three passes.

    ``codes`` are ``(rows, variables)``; ``family`` the variables (the child first, its
    axis of ``r`` values; the class at ``class_position``) with the row-major ``strides``
    of the family's table. Maximum likelihood (``m == 0``) reads ``log N`` from ``logs``
    (an unseen parent configuration is uniform); ``m > 0`` is the m-estimate. Entries
    below ``-zero_penalty`` (zeros) are raised to it.
    """
    n, f = codes.shape[0], family.shape[0]
    columns = strides[0]  # parent configurations (the class among them unless it is the child)
    size = columns * r
    class_stride = strides[class_position]
    rows = np.zeros(n, dtype=np.int64)  # each row's (cell without the class, fold)
    for a in range(f):
        if a != class_position:
            v, stride = family[a], strides[a]
            for t in range(n):
                rows[t] += codes[t, v] * stride
    held = np.zeros(size * k, dtype=np.int64)  # (cell, fold): the rows each fold holds out
    v = family[class_position]
    for t in range(n):
        rows[t] = rows[t] * k + fold[t]
        held[rows[t] + codes[t, v] * class_stride * k] += 1
    train = np.empty(size * k, dtype=np.int64)  # (cell, fold): the rest
    parent_total = np.zeros(columns * k, dtype=np.int64)  # (configuration, fold)
    for cell in range(size):
        total = 0
        for g in range(k):
            total += held[cell * k + g]
        column = (cell % columns) * k
        for g in range(k):
            count = total - held[cell * k + g]
            train[cell * k + g] = count
            parent_total[column + g] += count
    table = np.empty(size * k)
    for cell in range(size):
        column = (cell % columns) * k
        for g in range(k):
            count, denominator = train[cell * k + g], parent_total[column + g]
            if m > 0.0:
                entry = math.log((count + m / r) / (denominator + m))
            elif denominator == 0:  # an unseen configuration: uniform
                entry = -logs[r]
            else:
                entry = logs[count] - logs[denominator]
            table[cell * k + g] = entry if entry > -zero_penalty else -zero_penalty
    out = np.empty((n_classes, n))
    step = class_stride * k
    for c in range(n_classes):
        for t in range(n):
            out[c, t] = table[rows[t] + c * step]
    return out


@_jit
def log_table_denominators(counts, sums, used, owner, cards, alpha, beta, width, complete):  # pragma: no cover
    """What every cell of :func:`bnclf.learn.child_given_pair_log_cpts`' table ``(width, width,
    n_classes)`` of ``log P(x_j | x_p, c)`` reads, from the counts of the values in use
    (``counts[a, b]`` of values ``used[a]``, ``used[b]``; ``owner`` is each value's feature):
    ``(local, log_den, whole, log_alpha_plus, alpha_of)``, for :func:`log_table_rows`.

    ``sums[j, b]`` are the counts of parent value ``used[b]`` summed over child feature
    ``j``'s values (summed here, in order, when ``sums`` is empty: exact for whole counts);
    ``log_den[j, b, c] = log(N(x_p, c) + beta_j)`` (``-inf``: no rows); ``local`` is each
    value's place among those in use (``-1``: none). A feature that every row knows
    (``complete[j]``) sums, over its values, to the parent value's own count, the diagonal
    ``counts[b, b]``: whole counts read it instead of adding the feature's values.

    The logarithm of a whole count is read from a table of ``log(k + alpha)`` (and
    ``log(k + beta)``) for ``k = 0 .. largest sum``, one per distinct ``alpha`` (``beta``),
    when that table is the smaller: the same numbers, from fewer logarithms (splice: about
    6,000 in place of 300,000). Unweighted rows (``sums`` empty) read every count so
    (``whole``); with weighted rows only the whole denominators are read, the rest takes ``log``.
    """
    n_used, n_classes = used.shape[0], counts.shape[2]
    d = cards.shape[0]
    local = np.full(width, -1, dtype=np.int64)
    for a in range(n_used):
        local[used[a]] = a
    whole_counts = sums.shape[0] == 0
    diagonal = np.empty((n_used, n_classes))  # N(x_p, c): what a feature every row knows sums to
    for b in range(n_used):
        for c in range(n_classes):
            diagonal[b, c] = counts[b, b, c]
    if whole_counts:  # N(x_p, c) over the values in use of each child feature some row leaves unknown
        sums = np.zeros((d if not complete.all() else 0, n_used, n_classes))
        for a in range(n_used):
            j = owner[used[a]]
            if not complete[j]:
                for b in range(n_used):
                    for c in range(n_classes):
                        sums[j, b, c] += counts[a, b, c]
    else:
        complete = np.zeros(d, dtype=np.bool_)  # weighted sums: as given
    largest = 0.0
    if complete.any():  # the features every row knows all sum to the diagonal: scanned once
        for b in range(n_used):
            for c in range(n_classes):
                largest = max(largest, diagonal[b, c])
    for j in range(d):
        if not complete[j]:
            for b in range(n_used):
                for c in range(n_classes):
                    largest = max(largest, sums[j, b, c])
    alphas, betas = np.unique(alpha), np.unique(beta)
    alpha_of, beta_of = np.searchsorted(alphas, alpha), np.searchsorted(betas, beta)  # each one's row
    lookup = (alphas.shape[0] + betas.shape[0]) * (largest + 1.0) < n_used * n_used * n_classes
    size = int(largest) + 1 if lookup else 0
    log_alpha_plus = np.empty((alphas.shape[0], size))  # log(k + alpha), k = 0 .. largest
    log_beta_plus = np.empty((betas.shape[0], size))
    for k in range(size):
        for i in range(alphas.shape[0]):
            log_alpha_plus[i, k] = math.log(k + alphas[i]) if k + alphas[i] > 0.0 else -np.inf
        for i in range(betas.shape[0]):
            log_beta_plus[i, k] = math.log(k + betas[i]) if k + betas[i] > 0.0 else -np.inf
    log_den = np.empty((d, n_used, n_classes))  # log(N(x_p, c) + beta_j); -inf: no rows
    first_complete = np.full(betas.shape[0], -1)  # the first feature every row knows, per beta
    for j in range(d):
        if complete[j] and first_complete[beta_of[j]] >= 0:  # the same sums and beta: the same row
            log_den[j] = log_den[first_complete[beta_of[j]]]
            continue
        if complete[j]:
            first_complete[beta_of[j]] = j
        sums_j = diagonal if complete[j] else sums[j]
        for b in range(n_used):
            for c in range(n_classes):
                total = sums_j[b, c]
                den = beta[j] + total
                if den <= 0.0:
                    log_den[j, b, c] = -np.inf
                elif lookup and total == int(total):
                    log_den[j, b, c] = log_beta_plus[beta_of[j], int(total)]
                else:
                    log_den[j, b, c] = math.log(den)
    whole = lookup and whole_counts  # every count a whole number: read from the table, unchecked
    return local, log_den, whole, log_alpha_plus, alpha_of


@_jit
def log_table_rows(
    tables, counts, local, owner, cards, alpha, beta, log_den, whole, log_alpha_plus, alpha_of, start, stop
):  # pragma: no cover - compiled
    """Rows ``start:stop`` (child values) of the table of :func:`log_table_denominators`: ``log(N
    + alpha_j) - log(N(x_p, c) + beta_j)``, or ``log(alpha_j) - ...`` for a child value no row
    holds, the uniform ``-log r_j`` where the denominator is zero, and the diagonal blocks
    (``j == p``) zero. Each row is written by its own steps: rows cut among threads give the
    table of one pass, bit for bit."""
    n_classes = counts.shape[2]
    if n_classes == 2:  # the count as a constant: the compiler unrolls the classes' loops
        _log_table_rows(
            tables, counts, local, owner, cards, alpha, beta, log_den, whole, log_alpha_plus, alpha_of, start, stop, 2
        )
    elif n_classes == 3:
        _log_table_rows(
            tables, counts, local, owner, cards, alpha, beta, log_den, whole, log_alpha_plus, alpha_of, start, stop, 3
        )
    else:
        _log_table_rows(
            tables, counts, local, owner, cards, alpha, beta, log_den, whole, log_alpha_plus, alpha_of, start, stop,
            n_classes,
        )  # fmt: skip


@_jit
def _log_table_rows(
    tables, counts, local, owner, cards, alpha, beta, log_den, whole, log_alpha_plus, alpha_of, start, stop, n_classes
):  # pragma: no cover - compiled
    """The cells of :func:`log_table_rows`, a child value's row at a time; ``whole``: every
    count a whole number, its ``log(k + alpha)`` read from ``log_alpha_plus`` (the logarithm
    of the same sum: the same number)."""
    width = tables.shape[0]
    for g in range(start, stop):  # child value
        j = owner[g]
        a = local[g]
        log_alpha = math.log(alpha[j]) if alpha[j] > 0.0 else -np.inf
        uniform = -math.log(cards[j])
        unseen = log_alpha - math.log(beta[j]) if beta[j] > 0.0 else uniform  # a parent value no row holds
        plus = log_alpha_plus[alpha_of[j]]
        for h in range(width):  # parent value
            if owner[h] == j:
                for c in range(n_classes):
                    tables[g, h, c] = 0.0
                continue
            b = local[h]
            if b < 0:
                for c in range(n_classes):
                    tables[g, h, c] = unseen
                continue
            for c in range(n_classes):
                ld = log_den[j, b, c]
                if ld == -np.inf:
                    tables[g, h, c] = uniform
                elif a < 0:
                    tables[g, h, c] = log_alpha - ld
                elif whole:
                    tables[g, h, c] = plus[int(counts[a, b, c])] - ld
                else:
                    tables[g, h, c] = math.log(counts[a, b, c] + alpha[j]) - ld


@_jit
def log_table_cells(out, used, by_parent, cells, start, stop):  # pragma: no cover - compiled
    """The cells of :func:`log_table_rows`' table among the values ``used`` (increasing
    positions), into ``out`` ``(V * V, n_classes)``: row ``a * V + b`` holds child value
    ``used[a]`` under parent value ``used[b]``, or, with ``by_parent``, parent value ``used[a]``
    and child value ``used[b]``. ``cells`` is what :func:`log_table_rows` reads after its
    table, as one tuple. Rows ``start:stop`` of ``a``; each cell by the steps of
    :func:`_log_table_rows` (the same numbers, bit for bit), without the rest of the table."""
    n_classes = cells[0].shape[2]
    if n_classes == 2:  # the count as a constant, as in log_table_rows (a third less time)
        _log_table_cells(out, used, by_parent, cells, start, stop, 2)
    elif n_classes == 3:
        _log_table_cells(out, used, by_parent, cells, start, stop, 3)
    else:
        _log_table_cells(out, used, by_parent, cells, start, stop, n_classes)


@_jit
def _log_table_cells(out, used, by_parent, cells, start, stop, n_classes):  # pragma: no cover - compiled
    """The loop of :func:`log_table_cells` for ``n_classes`` classes: each value's feature and
    place among those counted looked up once, the child feature's constants once per feature."""
    counts, local, owner, cards, alpha, beta, log_den, whole, log_alpha_plus, alpha_of = cells
    v, d = used.shape[0], cards.shape[0]
    log_alpha, uniform, unseen = np.empty(d), np.empty(d), np.empty(d)  # each child feature's, as there
    for j in range(d):
        log_alpha[j] = math.log(alpha[j]) if alpha[j] > 0.0 else -np.inf
        uniform[j] = -math.log(cards[j])
        unseen[j] = log_alpha[j] - math.log(beta[j]) if beta[j] > 0.0 else uniform[j]
    feature, place = np.empty(v, dtype=np.int64), np.empty(v, dtype=np.int64)
    for b in range(v):
        feature[b], place[b] = owner[used[b]], local[used[b]]
    # one unsigned index into each array (a third less time than out[row, c] and the like)
    cells, dens, counted = out.reshape(-1), log_den.reshape(-1), counts.reshape(-1)
    width, n_counted = np.uint64(n_classes), np.uint64(counts.shape[0])
    for a in range(start, stop):
        for b in range(v):
            gi, hi = (b, a) if by_parent else (a, b)  # child value, parent value (among used)
            j, i, k = feature[gi], place[gi], place[hi]
            to = np.uint64(a * v + b) * width
            if feature[hi] == j:
                for c in range(n_classes):
                    cells[to + np.uint64(c)] = 0.0
            elif k < 0:
                for c in range(n_classes):
                    cells[to + np.uint64(c)] = unseen[j]
            else:
                plus = log_alpha_plus[alpha_of[j]]
                den = (np.uint64(j) * n_counted + np.uint64(k)) * width
                count = (np.uint64(max(i, 0)) * n_counted + np.uint64(k)) * width
                for c in range(n_classes):
                    ld = dens[den + np.uint64(c)]
                    if ld == -np.inf:
                        cells[to + np.uint64(c)] = uniform[j]
                    elif i < 0:
                        cells[to + np.uint64(c)] = log_alpha[j] - ld
                    elif whole:
                        cells[to + np.uint64(c)] = plus[np.uint64(counted[count + np.uint64(c)])] - ld
                    else:
                        cells[to + np.uint64(c)] = math.log(counted[count + np.uint64(c)] + alpha[j]) - ld
