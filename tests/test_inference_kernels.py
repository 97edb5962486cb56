"""The compiled prediction kernels against independent numpy references: the gather-add of a
network (:meth:`FamilyGather.summed`), AODE's SPODE kernel (:class:`SuperParentKernel`, its
members and their combination) and :func:`log_weighted_sum`; and the same bits in one thread
and in two."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bnclf
import bnclf._threads as threads
from bnclf._logsumexp import logsumexp
from bnclf.inference import _spodes
from bnclf.inference._kernels import FamilyGather, log_posterior, log_weighted_sum
from bnclf.inference._super_parent import SuperParentKernel

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def cut_anything(monkeypatch):
    """Every kernel's rows cut among threads however few they are."""
    monkeypatch.setattr(threads, "MIN_PART_STEPS", 0)


def in_threads(call, counts=(1, 2)):
    """``call()`` in each number of threads; the results, which must be the same bits."""
    results = []
    for k in counts:
        with bnclf.config_context(n_threads=k):
            results.append(call())
    for other in results[1:]:
        np.testing.assert_array_equal(other, results[0])
    return results[0]


# ----------------------------------------------------------------------------- references
def reference_family_sums(families, tables, class_index, n_classes, codes):
    """Each family's table read at the row's values (the class axis last), added family after
    family from the first family's entries: numpy fancy indexing, one family at a time."""
    total = None
    for family, table in zip(families, tables):
        table = np.asarray(table, dtype=float)
        if class_index in family:
            table = np.moveaxis(table, family.index(class_index), -1)
        else:
            table = np.repeat(table[..., None], n_classes, axis=-1)
        entries = table[tuple(codes[:, v] for v in family if v != class_index)]
        total = entries.copy() if total is None else total + entries
    return np.zeros((codes.shape[0], n_classes)) if total is None else total


def reference_spodes(pairs, offsets, cards, priors, parents, nb_prior, nb_children, codes):
    """``(n, d + 1, C)``: every SPODE's joint log-likelihood, then naive Bayes', by numpy
    gathers (the former numpy path): the children's entries ``pairs[g_j, g_p]`` added child
    after child from zero (an unknown child adds nothing), then the prior, then the
    super-parent's entry; an unknown super-parent summed over its values by a log-sum-exp."""
    n, d = codes.shape
    c = pairs.shape[2]
    known = codes >= 0
    position = np.where(known, codes + offsets, 0)
    out = np.empty((n, d + 1, c))
    sums = np.zeros((n, d, c))
    for j in range(d):  # one child at a time: (rows, parents, classes)
        entries = pairs[position[:, j : j + 1], position]
        entries[~known[:, j]] = 0.0
        sums += entries
    out[:, :d] = sums + priors
    out[:, :d] += parents[position]
    nb = np.where(known[:, :, None], nb_children[position], 0.0)
    out[:, d] = nb_prior + nb.sum(axis=1)
    for p in range(d):
        rows = np.flatnonzero(~known[:, p])
        if not rows.size:
            continue
        values = offsets[p] + np.arange(cards[p])
        entries = pairs[position[rows][:, :, None], values]  # (rows, j, v, C)
        entries = np.where(known[rows][:, :, None, None], entries, 0.0).sum(axis=1)
        with np.errstate(divide="ignore"):
            out[rows, p] = logsumexp(entries + priors[p] + parents[values], axis=1)
    return out


def reference_log_weighted_sum(values, weights):
    """``log sum_m w_m exp(v_m)`` by numpy's log-sum-exp over the members."""
    w = np.broadcast_to(np.asarray(weights, dtype=float), values.shape[:2])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # over: a NaN's slice, shifted by 0
        return logsumexp(values + np.log(w)[:, :, None], axis=1)


def reference_log_posterior(jll):
    """``jll - logsumexp(jll)`` over the last axis, uniform where the normalizer is not finite."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = logsumexp(jll, axis=-1, keepdims=True)
    dead = ~np.isfinite(total)
    return np.where(dead, -np.log(jll.shape[-1]), jll - np.where(dead, 0.0, total))


def assert_close(got, expected, rtol=1e-12):
    """Equal to ``rtol``, with the same NaN and infinities."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(got) & (got > 0), np.isinf(expected) & (expected > 0))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=rtol, atol=1e-12)


# ----------------------------------------------------------------------------- random models
def random_spode_tables(rng, cards, n_classes, impossible=0.0):
    """AODE's tables for features of ``cards`` values: log-probabilities that sum to one over
    each child (the pair table's diagonal blocks zero); ``impossible``: the share of the pair
    table's entries set to ``-inf``."""
    cards = np.asarray(cards, dtype=np.int64)
    d, width = len(cards), int(cards.sum())
    offsets = np.cumsum(cards) - cards
    pairs = np.zeros((width, width, n_classes))
    for j in range(d):
        block = rng.dirichlet(np.ones(cards[j]), size=(width, n_classes)).transpose(2, 0, 1)
        pairs[offsets[j] : offsets[j] + cards[j]] = np.log(block)
    if impossible:
        pairs[rng.random(pairs.shape) < impossible] = -np.inf
    for j in range(d):
        pairs[offsets[j] : offsets[j] + cards[j], offsets[j] : offsets[j] + cards[j]] = 0.0
    priors = np.log(rng.dirichlet(np.ones(n_classes), size=d))
    parents = np.concatenate([np.log(rng.dirichlet(np.ones(r), size=n_classes).T) for r in cards])
    nb_prior = np.log(rng.dirichlet(np.ones(n_classes)))
    nb_children = np.concatenate([np.log(rng.dirichlet(np.ones(r), size=n_classes).T) for r in cards])
    return pairs, offsets, cards, priors, parents, nb_prior, nb_children


def random_codes(rng, cards, n, unknown):
    codes = rng.integers(0, np.asarray(cards), size=(n, len(cards)))
    codes[rng.random(codes.shape) < unknown] = -1
    return codes


spode_cases = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "cards": st.lists(st.integers(1, 4), min_size=1, max_size=6),
        "n_classes": st.integers(1, 11),
        "n": st.integers(0, 30),
        "unknown": st.sampled_from([0.0, 0.1, 0.4, 1.0]),
        "impossible": st.sampled_from([0.0, 0.0, 0.2]),
        "weights": st.sampled_from(["one row", "each row", "zeros"]),
    }
)


# ----------------------------------------------------------------------------- the SPODE kernel
@SETTINGS
@given(case=spode_cases)
def test_spode_members_equal_the_numpy_gathers(case, cut_anything):
    """Every member of every row: bit for bit where every super-parent is known (the same
    additions in the same order), to 1e-12 where one is summed over its values; in one
    thread and in two, the same bits."""
    rng = np.random.default_rng(case["seed"])
    tables = random_spode_tables(rng, case["cards"], case["n_classes"], case["impossible"])
    codes = random_codes(rng, case["cards"], case["n"], case["unknown"])
    kernel = SuperParentKernel(*tables)
    got = in_threads(lambda: kernel(codes))
    expected = reference_spodes(*tables, codes)
    assert got.shape == (case["n"], len(case["cards"]) + 1, case["n_classes"])
    known = codes >= 0
    np.testing.assert_array_equal(got[:, :-1][known], expected[:, :-1][known])
    np.testing.assert_array_equal(got[:, -1], expected[:, -1])
    assert_close(got, expected)


@SETTINGS
@given(case=spode_cases)
def test_spode_combination_equals_the_numpy_log_sum_exp_of_the_members(case, cut_anything):
    """``log sum_m w_m P_m(c, x)`` with one row of weights for every row, each row's own
    weights (WAODE's, AODE's frequency limit), or weights of zero (a member left out, a row
    with every member left out: ``-inf``)."""
    rng = np.random.default_rng(case["seed"])
    tables = random_spode_tables(rng, case["cards"], case["n_classes"], case["impossible"])
    codes = random_codes(rng, case["cards"], case["n"], case["unknown"])
    d = len(case["cards"])
    if case["weights"] == "one row":
        weights = rng.dirichlet(np.ones(d + 1))
    else:
        weights = rng.dirichlet(np.ones(d + 1), size=case["n"])
        if case["weights"] == "zeros":
            weights[rng.random(weights.shape) < 0.5] = 0.0
            weights[::4] = 0.0
    kernel = SuperParentKernel(*tables)
    got = in_threads(lambda: kernel.log_weighted_sum(codes, weights))
    assert got.shape == (case["n"], case["n_classes"])
    assert_close(got, reference_log_weighted_sum(reference_spodes(*tables, codes), weights))
    assert_close(got, log_weighted_sum(kernel(codes), weights), rtol=1e-13)


@pytest.mark.parametrize("n_classes", [1, 2, 3, 4, 5, 7, 8, 11, 13, 26])
def test_spode_kernel_of_many_rows_and_one_feature(n_classes, cut_anything):
    """Enough rows for every thread, every class count (the blocks of four and eight classes,
    the last block overlapping); and a single feature, whose one SPODE has no child."""
    rng = np.random.default_rng(n_classes)
    for cards in ([3, 1, 4, 2, 5, 2, 3], [4]):
        tables = random_spode_tables(rng, cards, n_classes)
        codes = random_codes(rng, cards, 500, 0.05)
        kernel = SuperParentKernel(*tables)
        got = in_threads(lambda: kernel(codes), (1, 2, 3))
        assert_close(got, reference_spodes(*tables, codes))
        weights = rng.dirichlet(np.ones(len(cards) + 1))
        combined = in_threads(lambda: kernel.log_weighted_sum(codes, weights), (1, 2, 3))
        assert_close(combined, reference_log_weighted_sum(got, weights))


def test_spode_kernel_reads_the_values_in_use_whatever_came_before():
    """The kernel keeps the sub-table of the values its rows used, and takes a larger one for
    rows that hold more: any order of calls gives the bits of a fresh kernel, and the table
    grows to the values of every call (an unknown value: every value of its feature)."""
    rng = np.random.default_rng(3)
    cards = [5, 3, 6, 2]
    tables = random_spode_tables(rng, cards, 3)
    narrow = rng.integers(0, 2, size=(20, 4))
    wide = random_codes(rng, cards, 20, 0.0)
    unknown = narrow.copy()
    unknown[3, 2] = -1
    kernel = SuperParentKernel(*tables)
    for codes in (narrow, wide, narrow, unknown):
        np.testing.assert_array_equal(kernel(codes), SuperParentKernel(*tables)(codes))
    place, table = kernel._in_use
    offsets = tables[1]
    held = np.flatnonzero(place >= 0)
    expected = np.unique(np.concatenate([narrow + offsets, wide + offsets]).ravel())
    np.testing.assert_array_equal(held, expected)
    assert table.shape == (held.size**2, 3)
    fresh = SuperParentKernel(*tables)
    fresh(unknown)
    assert set(range(offsets[2], offsets[2] + cards[2])) <= set(np.flatnonzero(fresh._in_use[0] >= 0))


def test_spode_kernel_of_no_row():
    tables = random_spode_tables(np.random.default_rng(0), [2, 3], 4)
    kernel = SuperParentKernel(*tables)
    assert kernel(np.zeros((0, 2), dtype=np.int64)).shape == (0, 3, 4)
    assert kernel.log_weighted_sum(np.zeros((0, 2), dtype=np.int64), np.ones(3) / 3).shape == (0, 4)


def test_spode_kernel_refuses_a_code_past_its_features_values():
    tables = random_spode_tables(np.random.default_rng(0), [2, 3], 2)
    kernel = SuperParentKernel(*tables)
    with pytest.raises(ValueError, match="code 3 for feature 1, which has 3 values"):
        kernel(np.array([[0, 1], [1, 3]]))
    with pytest.raises(ValueError, match="codes of 2 features"):
        kernel(np.zeros((2, 3), dtype=np.int64))


def test_spode_kernel_reads_codes_of_any_layout():
    rng = np.random.default_rng(1)
    tables = random_spode_tables(rng, [3, 2, 4], 3)
    codes = random_codes(rng, [3, 2, 4], 40, 0.1)
    kernel = SuperParentKernel(*tables)
    expected = kernel(codes)
    np.testing.assert_array_equal(kernel(np.asfortranarray(codes)), expected)
    np.testing.assert_array_equal(kernel(np.repeat(codes, 2, axis=1)[:, ::2]), expected)
    np.testing.assert_array_equal(kernel(codes.astype(np.int32)), expected)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 6), d=st.integers(1, 5), limit=st.sampled_from([0.0, 1.0, 2.5]))
def test_every_value_frequent_equals_the_numpy_gathers(seed, n, d, limit):
    """AODE's test that every super-parent of every row qualifies: every code known and its
    training count at least the limit (the rows' counts gathered by numpy)."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(1, 4, d)
    offsets = np.cumsum(cards) - cards
    counts = rng.integers(0, 4, int(cards.sum())).astype(float)
    codes = random_codes(rng, cards, n, 0.05)
    expected = bool((codes >= 0).all() and (counts[np.where(codes >= 0, codes + offsets, 0)] >= limit).all())
    assert _spodes.every_value_frequent(codes, counts, offsets, limit) == expected
    assert _spodes.every_value_frequent(np.asfortranarray(codes), counts, offsets, limit) == expected


# ----------------------------------------------------------------------------- log_weighted_sum
@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 20),
    members=st.integers(1, 8),
    n_classes=st.integers(1, 11),
    per_row=st.booleans(),
)
def test_log_weighted_sum_equals_the_numpy_log_sum_exp(seed, n, members, n_classes, per_row, cut_anything):
    """Values far apart, ``-inf`` (a member, or every member, giving zero), NaN; weights of
    zero (a member, every member); one row of weights or each row's."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, members, n_classes)) * 300
    values[rng.random(values.shape) < 0.1] = -np.inf
    if n > 3:
        values[1, :, 0] = -np.inf
        values[2, 0, -1] = np.nan
    weights = rng.random((n, members) if per_row else members)
    weights[rng.random(weights.shape) < 0.2] = 0.0
    if per_row and n > 4:
        weights[4] = 0.0
    with np.errstate(invalid="ignore"):
        got = in_threads(lambda: log_weighted_sum(values, weights))
        expected = reference_log_weighted_sum(values, weights)
    assert got.shape == (n, n_classes)
    assert_close(got, expected, rtol=1e-13)


def test_combinations_refuse_weights_of_another_shape():
    tables = random_spode_tables(np.random.default_rng(0), [2, 3], 2)
    kernel, codes = SuperParentKernel(*tables), np.zeros((4, 2), dtype=np.int64)
    for bad in (np.ones(2), np.ones((3, 3)), np.ones((4, 2))):
        with pytest.raises(ValueError, match="weights of shape"):
            kernel.log_weighted_sum(codes, bad)
        with pytest.raises(ValueError, match="weights of shape"):
            log_weighted_sum(np.zeros((4, 3, 2)), bad)
    np.testing.assert_array_equal(kernel.log_weighted_sum(codes, 0.5), kernel.log_weighted_sum(codes, np.full(3, 0.5)))


def test_log_weighted_sum_reads_values_of_any_layout():
    values = np.random.default_rng(0).normal(size=(6, 4, 3))
    weights = np.array([0.1, 0.2, 0.3, 0.4])
    expected = log_weighted_sum(values, weights)
    np.testing.assert_array_equal(log_weighted_sum(np.asfortranarray(values), weights), expected)
    np.testing.assert_array_equal(log_weighted_sum(values, np.tile(weights, (6, 1))), expected)


# ----------------------------------------------------------------------------- log_posterior
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 20), n_classes=st.integers(1, 11), shape=st.integers(1, 3))
def test_log_posterior_equals_the_numpy_normalization(seed, n, n_classes, shape, cut_anything):
    """Rows far apart, classes of ``-inf``, rows of every class ``-inf``, NaN and ``+inf``
    (uniform), in one, two or three axes."""
    rng = np.random.default_rng(seed)
    jll = rng.normal(size=(n, n_classes)) * 500
    jll[rng.random(jll.shape) < 0.2] = -np.inf
    if n > 4:
        jll[1] = -np.inf
        jll[2, 0] = np.nan
        jll[3, -1] = np.inf
    if shape == 1 and n:
        jll = jll[0]
    elif shape == 3:
        jll = np.stack([jll, jll[::-1]], axis=1)
    got = in_threads(lambda: log_posterior(jll))
    assert got.shape == jll.shape
    assert_close(got, reference_log_posterior(jll))


# ----------------------------------------------------------------------------- the gather-add
def random_families(rng, d, n_classes, most_parents):
    """A network over ``d`` features and the class ``d``: each feature's family has the class
    (or not) and up to ``most_parents`` earlier features; the class has feature parents too."""
    cards = list(rng.integers(1, 5, d)) + [n_classes]
    families = []
    for v in range(d):
        parents = sorted(rng.choice(v, size=min(v, int(rng.integers(0, most_parents + 1))), replace=False).tolist())
        with_class = [d] if rng.random() < 0.8 else []
        family = [v, *parents, *with_class]
        order = rng.permutation(len(family))  # any order of axes, the class anywhere
        families.append(tuple(int(family[i]) for i in order))
    families.append((d, *sorted(rng.choice(d, size=min(d, 1), replace=False).tolist())))
    tables = [np.log(rng.random(tuple(cards[v] for v in f))) for f in families]
    return families, tables, cards


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 7),
    n=st.integers(0, 40),
    n_classes=st.integers(1, 11),
    most_parents=st.integers(0, 3),
)
def test_family_sums_equal_the_numpy_gathers_bit_for_bit(seed, d, n, n_classes, most_parents, cut_anything):
    rng = np.random.default_rng(seed)
    families, tables, cards = random_families(rng, d, n_classes, most_parents)
    gather = FamilyGather(families, tables, class_index=d, n_classes=n_classes)
    codes = rng.integers(0, np.array(cards[:d]), size=(n, d))
    codes = np.column_stack([codes, np.zeros(n, dtype=np.int64)])  # the class column, never read
    got = in_threads(lambda: gather.summed(codes))
    assert got.shape == (n, n_classes)
    np.testing.assert_array_equal(got, reference_family_sums(families, tables, d, n_classes, codes))
    np.testing.assert_array_equal(gather.summed(np.asfortranarray(codes)), got)


def test_family_sums_of_no_family_and_of_no_row():
    empty = FamilyGather([], [], class_index=0, n_classes=3)
    np.testing.assert_array_equal(empty.summed(np.zeros((2, 1), dtype=np.int64)), np.zeros((2, 3)))
    gather = FamilyGather([(1,), (0, 1)], [np.log([0.5, 0.5]), np.log(np.full((3, 2), 1 / 3))], 1, 2)
    assert gather.summed(np.zeros((0, 2), dtype=np.int64)).shape == (0, 2)


def test_family_sums_refuse_unknown_and_out_of_range_codes():
    gather = FamilyGather([(1,), (0, 1)], [np.log([0.5, 0.5]), np.log(np.full((3, 2), 1 / 3))], 1, 2)
    with pytest.raises(ValueError, match="negative"):
        gather.summed(np.array([[0, 0], [-1, 0]]))
    with pytest.raises(ValueError, match="code 3 in column 0, which has 3 values"):
        gather.summed(np.array([[0, 0], [3, 0]]))
