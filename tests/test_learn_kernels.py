"""The Cython kernels of bnclf.learn against independent numpy references.

* ``fold_family_entries`` (RMCV/RMHO's per-fold family entries) against the counts by
  ``np.bincount`` (all rows, and the evaluated rows with the fold as an extra axis: each fold's
  training table is their difference), the m-estimate of :func:`bnclf.counts.m_estimate` or the
  maximum-likelihood lookup, and a fancy-indexed read of every row's cell.
* ``zero_one_errors`` (the errors of each neighbour's sums) against sums formed by whole-array
  numpy steps and the prediction rule taken a few passes over a batch (``first_best``'s), and
  row by row by :func:`first_best` itself.
* ``_PairCells`` (AODE's all-pairs log-CPT table) against the dense formula broadcast over the
  pair counts of every value, counted from the rows by one-hot products.

Where the kernel and the reference take the same floating-point steps the comparison is bit
for bit (the references take the C library's logarithm through ``math.log`` where the kernel
does); weighted sums, added in another order, agree to ``1e-12``.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bnclf
import bnclf._threads
from bnclf import config_context
from bnclf.counts._cache import CountCache
from bnclf.counts._measures import m_estimate
from bnclf.encoding._frames import DiscreteData
from bnclf.learn import _class_score, _fold_scores, _pair_tables
from bnclf.learn._class_score import TIE_TOLERANCE, ClassScore, FamilyContributions, first_best
from bnclf.learn._parameters import PairLogTable, child_given_pair_log_table
from bnclf.learn._search import DagState
from bnclf.models._search_based import _holdout_folds

fold_family_entries, zero_one_errors = _fold_scores.fold_family_entries, _fold_scores.zero_one_errors
PairCells = _pair_tables._PairCells

_c_log = np.frompyfunc(lambda x: math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan), 1, 1)


def c_log(values) -> np.ndarray:
    """The C library's natural logarithm of every value (``math.log``), the kernels' own:
    numpy's may round a few values the other way."""
    return np.asarray(_c_log(np.asarray(values, dtype=float)), dtype=float)


# ----------------------------------------------------------------------------- references
def reference_fold_entries(codes, cards, folds, family, m, zero_penalty, logs):
    """The entries ``(n_classes, n_eval)`` of ``family`` by numpy: counts by ``np.bincount``
    (all rows; the evaluated rows by (cell, fold)), each fold's training table their
    difference (resubstitution, ``folds`` None: all rows), its m-estimate or maximum
    likelihood (an unseen configuration uniform) and every evaluated row's cell."""
    n, c = codes.shape[0], codes.shape[1] - 1
    if folds is None:
        eval_rows, fold, k = np.arange(n), np.zeros(n, dtype=np.int64), 1
    else:
        eval_rows = np.flatnonzero(folds >= 0)
        fold = folds[eval_rows]
        k = int(fold.max()) + 1 if eval_rows.size else 1
    shape = [int(cards[v]) for v in family]
    strides = [math.prod(shape[i + 1 :]) for i in range(len(family))]
    size = math.prod(shape)
    offsets = np.zeros(n, dtype=np.int64)
    for v, stride in zip(family, strides):
        if v != c:
            offsets += codes[:, v] * stride
    class_stride = strides[family.index(c)]
    flat = offsets + codes[:, c] * class_stride
    every = np.bincount(flat, minlength=size)[:, None]
    if folds is None:
        train = every
    else:
        held = np.bincount(flat[eval_rows] * k + fold, minlength=size * k).reshape(size, k)
        train = every - held
    train = train.reshape(shape[0], -1)  # child by (parent configuration, fold)
    if m > 0:
        log_table = c_log(m_estimate(train, m)).ravel()
    else:
        totals = train.sum(axis=0)
        unseen = totals == 0
        train = train + unseen  # one count of each child value: log(1) - log(r), uniform
        totals[unseen] = shape[0]
        log_table = (logs[train] - logs[totals]).ravel()
    rows = offsets[eval_rows] * k + fold
    entries = log_table[rows + class_stride * k * np.arange(cards[c])[:, None]]
    return np.maximum(entries, -zero_penalty)


def reference_sums(arrays, plan_row):
    """A neighbour's sums by whole-array numpy steps, in the plan's order."""
    sums = arrays[plan_row[0]].copy()
    for term in plan_row[1:]:
        if term == 0:
            break
        if term > 0:
            sums += arrays[term - 1]
        else:
            sums -= arrays[-term - 1]
    return sums


def reference_batch_errors(sums, y, impossible):
    """Errors of each ``(batch, n_classes, n)`` sums by the batched numpy rule: two classes,
    class 1 where it beats class 0 by the tolerance and is possible; else a row is right when
    its true class is within the tolerance of the best and the best below it is not (class 0
    where every class is impossible)."""
    n_classes = sums.shape[1]
    if n_classes == 2:
        predicted = first_best(sums, axis=1)
        predicted &= sums[:, 1] > impossible
        return (predicted != y).sum(axis=-1)
    below = np.where(np.arange(n_classes)[:, None] < y, 0.0, -np.inf)
    best = sums.max(axis=1)
    threshold = best - TIE_TOLERANCE
    correct = np.take_along_axis(sums, np.broadcast_to(y, (sums.shape[0], 1, y.size)), axis=1)[:, 0] >= threshold
    correct &= np.add(sums, below).max(axis=1) < threshold
    dead = best < impossible
    correct &= ~dead
    correct |= dead & (y == 0)
    return (~correct).sum(axis=-1)


def row_by_row_errors(sums, y, impossible):
    """The errors of :func:`first_best` applied to each row, impossible classes as ``-inf``."""
    predicted = first_best(np.where(sums < impossible, -np.inf, sums).T)
    return int((predicted != y).sum())


def reference_pair_table(codes, cards, y, n_classes, weights, alpha, beta):
    """The whole ``(R, R, n_classes)`` table by broadcasting: the pair counts of every value
    by one-hot products of the rows (an unknown code has no one-hot entry), each child
    feature's denominator the sum of its block's rows (in value order), the logarithms of
    ``counts + alpha_j`` and ``denominator + beta_j``, the uniform where the denominator is
    zero and the diagonal blocks zero."""
    d = len(cards)
    width = int(np.sum(cards))
    offsets = np.cumsum(cards) - cards
    onehot = np.zeros((len(y), width))
    for j in range(d):
        known = codes[:, j] >= 0
        onehot[np.flatnonzero(known), offsets[j] + codes[known, j]] = 1.0
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    blocks = np.zeros((width, width, n_classes))
    for c in range(n_classes):
        rows = onehot[y == c]
        blocks[:, :, c] = (rows * w[y == c, None]).T @ rows
    owner = np.repeat(np.arange(d), cards)
    denominator = np.zeros((d, width, n_classes))
    for g in range(width):  # in value order
        denominator[owner[g]] += blocks[g]
    denominator = denominator[owner] + np.asarray(beta, dtype=float)[owner, None, None]
    with np.errstate(invalid="ignore"):  # -inf - -inf: an empty configuration, uniform below
        table = c_log(blocks + np.asarray(alpha, dtype=float)[owner, None, None]) - c_log(denominator)
    empty = denominator <= 0
    table[empty] = np.broadcast_to(-c_log(np.asarray(cards, dtype=float))[owner, None, None], table.shape)[empty]
    table[owner[:, None] == owner[None, :]] = 0.0
    return table


# ----------------------------------------------------------------------------- strategies
@st.composite
def family_problems(draw):
    """Coded rows (features and the class last, no unknown code), folds of one of three kinds
    (K folds, a holdout whose other rows are never evaluated, resubstitution), a family with
    the class in it and m (0: maximum likelihood, unseen configurations included)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_features = draw(st.integers(0, 4))
    n_classes = draw(st.integers(1, 11))
    n = draw(st.integers(0, 60))
    cards = np.append(rng.integers(1, 5, n_features), n_classes).astype(np.int64)
    codes = np.column_stack([rng.integers(0, r, n) for r in cards]).astype(np.int64).reshape(n, n_features + 1)
    kind = draw(st.sampled_from(["folds", "holdout", "resubstitution"]))
    k = draw(st.integers(2, 10))
    if kind == "folds":
        folds = rng.integers(0, k, n)
    elif kind == "holdout":
        folds = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), -1)
    else:
        folds = None
    child = draw(st.integers(0, n_features))
    parents = [v for v in range(n_features + 1) if v != child and rng.random() < 0.5]
    if child != n_features and n_features not in parents:
        parents.append(n_features)  # the class is in every scored family
    m = draw(st.sampled_from([0.0, 0.5, 1.0, 3.0]))
    return codes, cards, folds, child, parents, m


# ----------------------------------------------------------------------------- RMCV's entries
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family_problems())
def test_fold_family_entries_equal_the_bincount_reference(problem):
    codes, cards, folds, child, parents, m = problem
    table = FamilyContributions(codes, cards, folds, m=m)
    got = table.get(child, frozenset(parents))
    family = table.family(child, parents)
    expected = reference_fold_entries(codes, cards, folds, family, m, table.zero_penalty, table._log_of_counts)
    assert got.shape == (cards[-1], table.n_eval) == expected.shape
    np.testing.assert_array_equal(got, expected)  # the same lookups, quotients and C logarithms


@pytest.mark.parametrize("m", [0.0, 1.0])
@pytest.mark.parametrize("all_folds", [True, False], ids=["folds", "holdout"])
def test_fold_entries_of_the_search_families_equal_the_reference(krkp, m, all_folds):
    """Every family shape the search asks for (the class as a parent and as the child, one to
    four parents, configurations no fold's training rows hold) on real data."""
    from test_search import coded

    X, y = krkp
    rows = np.random.default_rng(1).permutation(len(y))[:500]
    _, codes, cards = coded(X.iloc[rows, :10].reset_index(drop=True), y.iloc[rows].reset_index(drop=True))
    d = codes.shape[1] - 1
    folds = _holdout_folds(codes[:, d], 10, 0, all_folds=all_folds)
    families = [(3, [d]), (d, []), (d, [2]), (d, [2, 5]), (4, [1, d]), (0, [6, 7, d]), (9, [0, 1, 2, d])]
    for f in (folds, None):
        table = FamilyContributions(codes, cards, f, m=m)
        for child, parents in families:
            family = table.family(child, parents)
            expected = reference_fold_entries(codes, cards, f, family, m, table.zero_penalty, table._log_of_counts)
            np.testing.assert_array_equal(table.get(child, frozenset(parents)), expected)


def test_fold_family_entries_refuse_what_they_cannot_read():
    codes = np.array([[0, 1], [1, 0], [2, 1]], dtype=np.int64)
    logs = np.append(-np.inf, np.log(np.arange(1.0, 4.0)))
    family, shape = np.array([0, 1], dtype=np.int64), np.array([3, 2], dtype=np.int64)
    out = np.empty((2, 3))
    fold_family_entries(codes, family, shape, 1, np.array([0, 1, 0]), 2, True, logs, 0.0, 64.0, out)
    with pytest.raises(ValueError, match="code outside"):
        fold_family_entries(codes, family, np.array([2, 2]), 1, np.array([0, 1, 0]), 2, True, logs, 0.0, 64.0, out)
    with pytest.raises(ValueError, match="fold outside"):
        fold_family_entries(codes, family, shape, 1, np.array([0, 2, 0]), 2, True, logs, 0.0, 64.0, out)
    with pytest.raises(ValueError, match="columns for another number"):
        fold_family_entries(codes, family, shape, 1, np.array([0, -1, 0]), 2, True, logs, 0.0, 64.0, out)
    with pytest.raises(ValueError, match="logs holds"):
        fold_family_entries(codes, family, shape, 1, np.array([0, 1, 0]), 2, True, logs[:2], 0.0, 64.0, out)
    with pytest.raises(ValueError, match="complete codes"):
        FamilyContributions(np.array([[0, 1], [-1, 0]]), [2, 2])
    with pytest.raises(ValueError, match="folds"):
        FamilyContributions(codes, [3, 2], np.array([0, 1]))


def test_no_evaluation_row_and_no_row():
    """A holdout that holds no row scores NaN; no row at all: empty entries."""
    codes = np.array([[0, 1], [1, 0], [1, 1]])
    table = FamilyContributions(codes, [2, 2], np.full(3, -1))
    assert table.get(1, frozenset([0])).shape == (2, 0)
    score = ClassScore(table)
    assert np.isnan(score.start(DagState(2, [(1, 0)])))
    empty = FamilyContributions(np.zeros((0, 3), dtype=np.int64), [2, 3, 4], None, m=1.0)
    assert empty.get(2, frozenset([0, 1])).shape == (4, 0)
    assert empty.get(0, frozenset([2])).shape == (4, 0)


# ----------------------------------------------------------------------------- 0/1 errors
@st.composite
def neighbour_sums(draw):
    """Sums of several neighbours with exact ties, ties within the tolerance, rows where every
    class is impossible and rows where class 0 alone is, and plans of 0 to 4 terms."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_classes = draw(st.integers(1, 11))
    n = draw(st.integers(0, 50))
    zero_penalty = 1024.0
    arrays = []
    for _ in range(draw(st.integers(1, 6))):
        a = rng.normal(size=(n_classes, n)).round(1)  # many exact ties
        case = rng.integers(0, 5)
        if case == 1 and n_classes > 1:
            a[1] = a[0] + rng.choice([1e-11, -1e-11, 2e-9])  # within the tolerance, or just past it
        elif case == 2:
            a[:, ::3] = -zero_penalty  # every class impossible
        elif case == 3:
            a[0, ::2] = -zero_penalty  # class 0 alone impossible
        elif case == 4:
            a[:] = 0.0
        arrays.append(a)
    plan = np.zeros((draw(st.integers(0, 8)), 5), dtype=np.int64)
    for row in plan:
        row[0] = rng.integers(0, len(arrays))
        for j in range(1, 1 + rng.integers(0, 5)):
            row[j] = rng.integers(1, len(arrays) + 1) * rng.choice([1, -1])
    y = rng.integers(0, n_classes, n)
    return arrays, plan, y, -0.5 * zero_penalty


@settings(max_examples=200, deadline=None)
@given(neighbour_sums())
def test_zero_one_errors_equal_the_batched_rule_and_first_best(problem):
    arrays, plan, y, impossible = problem
    out = np.full(len(plan), -1, dtype=np.int64)
    zero_one_errors(arrays, plan, y, impossible, TIE_TOLERANCE, out, 0, len(plan))
    sums = np.array([reference_sums(arrays, row) for row in plan]).reshape(len(plan), *arrays[0].shape)
    np.testing.assert_array_equal(out, reference_batch_errors(sums, y, impossible))
    assert out.tolist() == [row_by_row_errors(s, y, impossible) for s in sums]
    part = np.full(len(plan), -1, dtype=np.int64)  # a part writes its own neighbours only
    zero_one_errors(arrays, plan, y, impossible, TIE_TOLERANCE, part, len(plan) // 2, len(plan))
    assert (part[: len(plan) // 2] == -1).all() and (part[len(plan) // 2 :] == out[len(plan) // 2 :]).all()


def test_zero_one_errors_refuse_what_they_cannot_read():
    a = np.zeros((3, 4))
    out = np.zeros(1, dtype=np.int64)
    y = np.array([0, 1, 2, 0])
    zero_one_errors([a], np.zeros((1, 1), dtype=np.int64), y, -1.0, 1e-9, out, 0, 1)
    with pytest.raises(ValueError, match="outside the 1 arrays"):
        zero_one_errors([a], np.array([[0, 2]]), y, -1.0, 1e-9, out, 0, 1)
    with pytest.raises(ValueError, match="class outside"):
        zero_one_errors([a], np.zeros((1, 1), dtype=np.int64), np.array([0, 1, 3, 0]), -1.0, 1e-9, out, 0, 1)
    with pytest.raises(ValueError, match="float64 of the shape"):
        zero_one_errors([a, np.zeros((2, 4))], np.zeros((1, 1), dtype=np.int64), y, -1.0, 1e-9, out, 0, 1)
    with pytest.raises(ValueError, match="float64 of the shape"):
        zero_one_errors([a.astype(np.float32)], np.zeros((1, 1), dtype=np.int64), y, -1.0, 1e-9, out, 0, 1)
    with pytest.raises(ValueError):
        zero_one_errors([np.asfortranarray(np.zeros((3, 4)))[:, ::2]], np.zeros((1, 1), dtype=np.int64), y[:2],
                        -1.0, 1e-9, out, 0, 1)  # fmt: skip


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_zero_one_errors_of_one_sum_equal_first_best_row_by_row(n_classes):
    """Many rows, in the six cases of ties and impossible classes (the numba loop's test)."""
    rng = np.random.default_rng(n_classes)
    n = 400
    y = rng.integers(0, n_classes, n)
    zero_penalty = 1024.0
    impossible = -0.5 * zero_penalty
    for case in range(6):
        base = rng.normal(size=(n_classes, n)).round(1)
        entries = rng.normal(size=(n_classes, n)).round(1)
        if case == 1:
            entries[1] = base[0] + entries[0] - base[1] + 1e-11
        if case == 2:
            base[:, ::7] = -zero_penalty
        if case == 3:
            base[0, ::5] = -zero_penalty
        if case == 4:
            entries[:] = 0.0
        out = np.zeros(2, dtype=np.int64)
        zero_one_errors([base, entries, base + entries], np.array([[0, 2], [2, 0]]), y, impossible, TIE_TOLERANCE,
                        out, 0, 2)  # fmt: skip
        assert out.tolist() == [row_by_row_errors(base + entries, y, impossible)] * 2


def _reference_fold_entries_kernel(codes, family, shape, class_position, fold, n_folds, leave_out, logs, m, zp, out):
    """``fold_family_entries``' signature over :func:`reference_fold_entries`."""
    cards = np.zeros(codes.shape[1], dtype=np.int64)
    cards[family] = shape
    local = np.append(np.delete(np.arange(codes.shape[1]), family[class_position]), family[class_position])
    moved = codes[:, local]  # the class last, as the reference reads it
    where = {v: i for i, v in enumerate(local)}
    order = tuple(where[v] for v in family)
    out[:] = reference_fold_entries(moved, cards[local], fold if leave_out else None, order, m, zp, logs)


def _reference_zero_one_errors(arrays, plan, y, impossible, tolerance, out, start, stop):
    """``zero_one_errors``' signature over :func:`reference_sums` and :func:`reference_batch_errors`."""
    assert tolerance == TIE_TOLERANCE
    for k in range(start, stop):
        out[k] = reference_batch_errors(reference_sums(arrays, plan[k])[None], y, impossible)[0]


@pytest.mark.parametrize("variant, n_splits", [("cv", 5), ("cv", 10), ("holdout", 4)])
@pytest.mark.parametrize("dataset", ["krkp", "soybean"])
def test_searches_with_the_kernels_equal_searches_with_the_references(dataset, variant, n_splits, request, monkeypatch):
    """RMCV and RMHO fitted with the kernels and with the numpy references in their place: the
    same moves, scores (bit for bit) and structures."""
    X, y = request.getfixturevalue(dataset)
    rows = np.random.default_rng(3).permutation(len(y))[:600]
    X = X.iloc[rows, :10] if dataset == "krkp" else X.iloc[rows, :8]
    y = y.iloc[rows]
    fits = []
    for reference in (False, True):
        if reference:
            monkeypatch.setattr(_class_score, "fold_family_entries", _reference_fold_entries_kernel)
            monkeypatch.setattr(_class_score, "zero_one_errors", _reference_zero_one_errors)
        model = bnclf.RMCVClassifier(n_splits=n_splits, variant=variant, random_state=0).fit(X, y)
        fits.append((sorted(model.network_.graph.edges), model.search_trace_["score"].tolist()))
    assert fits[0] == fits[1]
    assert len(fits[0][1]) > 2  # some moves taken


def test_scores_of_moves_equal_the_reference_and_do_not_depend_on_threads(krkp, monkeypatch):
    """Every legal move's 0/1 loss (additions, deletions and reversals, families with and
    without the class) against the reference sums and rule; one thread and two (every loop
    cut) give the same values."""
    from test_search import coded

    X, y = krkp
    rows = np.random.default_rng(2).permutation(len(y))[:800]
    _, codes, cards = coded(X.iloc[rows, :12].reset_index(drop=True), y.iloc[rows].reset_index(drop=True))
    d = codes.shape[1] - 1
    folds = _holdout_folds(codes[:, d], 5, 0, all_folds=True)
    state = DagState(d + 1, [(d, j) for j in range(d)] + [(0, 1), (3, 4)])
    moves = state.legal_moves()
    table = FamilyContributions(codes, cards, folds)
    expected = []
    for move in moves:
        other = state.copy()
        other.apply(move)
        sums = np.zeros((cards[d], table.n_eval))
        for v, pa in enumerate(other.parents):
            if v == d or d in pa:
                sums += table.get(v, pa)
        expected.append(reference_batch_errors(sums[None], table.y, -0.5 * table.zero_penalty)[0] / table.n_eval)
    monkeypatch.setattr(bnclf._threads, "MIN_PART_STEPS", 0)
    values = {}
    for n_threads in (1, 2):
        with config_context(n_threads=n_threads):
            score = ClassScore(table)
            score.start(state)
            values[n_threads] = score.evaluate(state, moves)
    np.testing.assert_array_equal(values[1][0], values[2][0])
    assert values[1][1] == values[2][1] == sum(m.touches(state.parents, d) for m in moves)
    # the running sums (subtract the old, add the new) and sums formed afresh: the same ties
    np.testing.assert_array_equal(values[1][0], expected)


# ----------------------------------------------------------------------------- the pair table
@st.composite
def pair_problems(draw):
    """Rows with unknown codes (in some features or none), values no row holds, weights
    (whole or not) or none, 1 to 11 classes, 0 to 60 rows, 0 to 4 features, and the smoothing
    of m-estimation (m = 0: maximum likelihood, empty parent configurations uniform) or Laplace."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    d = draw(st.integers(0, 4))
    n_classes = draw(st.integers(1, 11))
    n = draw(st.integers(0, 60))
    cards = rng.integers(1, 5, d).astype(np.int64)
    codes = np.zeros((n, d), dtype=np.int64)
    for j, r in enumerate(cards):  # the last value of some features held by no row
        codes[:, j] = rng.integers(0, max(1, r - rng.integers(0, 2)), n)
    for j in range(d):
        if draw(st.booleans()):
            codes[rng.random(n) < 0.2, j] = -1
    y = rng.integers(0, n_classes, n)
    weights = draw(st.sampled_from([None, "whole", "real"]))
    if weights == "whole":
        weights = rng.integers(0, 4, n).astype(float)
    elif weights == "real":
        weights = rng.uniform(0.1, 3.0, n)
    smoothing = draw(st.sampled_from([0.0, 1.0, 2.5, "laplace"]))
    alpha, beta = (
        (np.ones(d), cards.astype(float)) if smoothing == "laplace" else (smoothing / cards, np.full(d, smoothing))
    )
    return codes, cards, y, n_classes, weights, alpha, beta


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair_problems())
def test_pair_table_equals_the_broadcast_reference(problem):
    codes, cards, y, n_classes, weights, alpha, beta = problem
    data = DiscreteData(codes, cards, y, n_classes, weights=weights)
    table = child_given_pair_log_table(CountCache(data), alpha, beta)
    expected = reference_pair_table(codes, cards, y, n_classes, weights, alpha, beta)
    width = int(cards.sum())
    chosen = np.flatnonzero(np.random.default_rng(len(y)).random(width) < 0.6)
    by_child, by_parent = table.sub_table(chosen, False), table.sub_table(chosen, True)
    got = table.full()
    assert got.shape == expected.shape == (width, width, n_classes)
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    if weights is None or np.array_equal(weights, np.round(weights)):
        np.testing.assert_array_equal(got, expected)
    else:  # weighted sums added in another order
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    flat, v = got.reshape(-1, n_classes), chosen.size
    np.testing.assert_array_equal(by_child, flat[(chosen[:, None] * width + chosen).ravel()].reshape(v, v * n_classes))
    np.testing.assert_array_equal(
        by_parent, flat[(chosen[None, :] * width + chosen[:, None]).ravel()].reshape(v, v * n_classes)
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 11), st.booleans())
def test_pair_cells_from_any_counts_equal_the_dense_formula(seed, n_classes, whole):
    """The kernel alone, on counts that no rows make (whole or not, zeros, values out of use):
    each child feature's denominator the sum of its values' counts, in value order."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(1, 5, rng.integers(0, 5)).astype(np.int64)
    d, width = len(cards), int(cards.sum())
    used = np.flatnonzero(rng.random(width) < 0.7)
    counts = rng.integers(0, 6, (used.size, used.size, n_classes)).astype(float)
    if not whole:
        counts *= rng.uniform(0.5, 1.5, counts.shape)
    alpha = rng.choice([0.0, 0.25, 1.0], d)
    beta = rng.choice([0.0, 1.0, 3.0], d)
    owner = np.repeat(np.arange(d, dtype=np.int64), cards)
    cells = PairCells(counts, used, owner, cards, alpha, beta, whole, np.zeros(d, dtype=bool))
    got = np.empty((width, width, n_classes))
    cells.write_rows(got, 0, width)
    blocks = np.zeros((width, width, n_classes))
    blocks[np.ix_(used, used)] = counts
    denominator = np.zeros((d, width, n_classes))
    for g in range(width):
        denominator[owner[g]] += blocks[g]
    denominator = denominator[owner] + beta[owner, None, None]
    with np.errstate(invalid="ignore"):  # -inf - -inf: an empty configuration, uniform below
        expected = c_log(blocks + alpha[owner, None, None]) - c_log(denominator)
    empty = denominator <= 0
    expected[empty] = np.broadcast_to(-c_log(cards.astype(float))[owner, None, None], expected.shape)[empty]
    expected[owner[:, None] == owner[None, :]] = 0.0
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n_classes", [1, 2, 3, 7])
def test_pair_table_is_the_same_in_one_and_two_threads(n_classes, monkeypatch):
    rng = np.random.default_rng(n_classes)
    cards = np.array([3, 5, 2, 4, 6])
    codes = np.column_stack([rng.integers(0, r, 300) for r in cards])
    codes[rng.random(codes.shape) < 0.1] = -1
    data = DiscreteData(codes, cards, rng.integers(0, n_classes, 300), n_classes, weights=rng.uniform(0, 2, 300))
    chosen = np.array([0, 2, 3, 7, 8, 11, 12, 19])
    monkeypatch.setattr(bnclf._threads, "MIN_PART_STEPS", 0)
    results = []
    for n_threads in (1, 2):
        with config_context(n_threads=n_threads):
            table = child_given_pair_log_table(CountCache(data), 1.0 / cards, 1.0)
            parts = (table.sub_table(chosen, False), table.sub_table(chosen, True), table.full())
            results.append(parts)
    for one, two in zip(*results):
        np.testing.assert_array_equal(one, two)


def test_pair_log_table_holds_its_cells_until_made_whole():
    """A table made from counts holds what its cells read (no table) until asked for the
    whole, then the table alone; a table given whole holds it alone, and one of the two must
    be given."""
    import pickle

    rng = np.random.default_rng(0)
    cards = np.array([2, 3])
    data = DiscreteData(rng.integers(0, 2, (20, 2)), cards, rng.integers(0, 2, 20), 2)
    table = child_given_pair_log_table(CountCache(data), 0.5, 1.0)
    assert table._table is None and isinstance(table._cells, PairCells)
    again = pickle.loads(pickle.dumps(table))  # a pickle holds the whole table
    assert again._cells is None
    whole = table.full()
    assert table._cells is None and table.full() is whole
    np.testing.assert_array_equal(again.full(), whole)
    given = PairLogTable(table.offsets, cards, 2, table=whole)
    np.testing.assert_array_equal(
        given.sub_table(np.array([0, 2, 4]), True), table.sub_table(np.array([0, 2, 4]), True)
    )
    with pytest.raises(ValueError, match="one of the two"):
        PairLogTable(table.offsets, cards, 2)
    with pytest.raises(ValueError, match="do not agree"):
        PairCells(np.zeros((2, 2, 2)), np.array([0, 9]), np.repeat(np.arange(2), cards), cards, np.ones(2), np.ones(2),
                  True, np.ones(2, dtype=bool))  # fmt: skip
    cells = table_cells = child_given_pair_log_table(CountCache(data), 0.5, 1.0)._cells
    with pytest.raises(ValueError, match="not \\(5, 5, 2\\)"):
        cells.write_rows(np.empty((4, 5, 2)), 0, 4)
    with pytest.raises(ValueError, match="outside the table"):
        table_cells.write_cells(np.empty((1, 2)), np.array([7]), False, 0, 1)


@pytest.mark.parametrize(
    "est",
    [
        bnclf.AODEClassifier(),
        bnclf.AODEClassifier(m=0.0),
        bnclf.AODEClassifier(smoothing="weka"),
        bnclf.WAODEClassifier(smoothing="weka"),
    ],
    ids=["aode", "aode-ml", "aode-weka", "waode-weka"],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_aode_tables_on_real_data_equal_the_reference(krkp, est, weighted):
    """The fitted all-pairs table (rows with unknown values, m-estimation, maximum likelihood
    and Weka's smoothing; weighted rows) against the broadcast reference of its rows."""
    from sklearn.base import clone

    X, y = krkp
    rows = np.random.default_rng(4).permutation(len(y))[:900]
    X, y = X.iloc[rows, :14].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)
    X = X.mask(np.random.default_rng(5).random(X.shape) < 0.05)  # unknown values
    weights = np.random.default_rng(2).random(len(y)) * 3 if weighted else None
    fitted = clone(est).fit(X, y, sample_weight=weights)
    pairs = fitted._spode_tables["pairs"]
    codes = fitted._encoder.transform(X)
    cards = np.array([len(c) for c in fitted._encoder.categories_], dtype=np.int64)
    classes = np.searchsorted(fitted.classes_, np.asarray(y))
    alpha, beta = fitted._child_smoothing(cards.astype(float))
    alpha, beta = np.broadcast_to(alpha, cards.shape), np.broadcast_to(beta, cards.shape)
    expected = reference_pair_table(codes, cards, classes, len(fitted.classes_), weights, alpha, beta)
    got = np.asarray(pairs)
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    if weighted:
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, expected)


def test_the_package_keeps_no_second_path():
    """No module of bnclf.learn asks for the numba loops."""
    from pathlib import Path

    folder = Path(bnclf.__file__).parent / "learn"
    for path in folder.glob("*.py"):
        text = path.read_text()
        assert "compiled_loops" not in text and "_compiled_loops" not in text, path.name
    assert not hasattr(_class_score, "compiled_loops")
