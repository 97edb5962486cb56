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
    """
    n, d = position.shape
    n_classes = probabilities.shape[1]
    block = np.empty((_ROWS_PER_BLOCK, d, n_classes))
    total = np.empty(n_classes)
    for start in range(0, n, _ROWS_PER_BLOCK):
        stop = min(n, start + _ROWS_PER_BLOCK)
        _children_sums(position, known, probabilities, width, start, stop, block, True)
        for t in range(start, stop):
            members = block[t - start]
            for c in range(n_classes):  # naive Bayes first, then each SPODE in turn (classes innermost)
                total[c] = nb_prior[c]
            for j in range(d):
                if known[t, j]:
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
    """:func:`bnclf.counts._bitsets.bitset_slots` in one pass: ``(slot, last_of)``, each value in
    use's bitset (then one for the values no row holds) and, for the last value in use of a
    feature that no row leaves unknown, its feature's first value in use (else ``-1``)."""
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
    return slot, last_of


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
