"""Count tables and information measures against hand-computed values and sklearn."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln
from sklearn.metrics import mutual_info_score

from bnclf._entropy import entropy
from bnclf.counts._cache import CountCache
from bnclf.counts._measures import (
    bdeu_score,
    conditional_mutual_information,
    label_conditional_mi,
    m_estimate,
    mutual_information,
    pointwise_class_cmi,
    pointwise_class_mi,
)
from bnclf.encoding._frames import DiscreteData

# A tiny table worked by hand: within class 0, Y copies X (1 bit); within class 1,
# X and Y are independent and uniform (0 bits). X is uniform in both classes.
C = np.array([0, 0, 0, 0, 1, 1, 1, 1])
X = np.array([0, 0, 1, 1, 0, 0, 1, 1])
Y = np.array([0, 0, 1, 1, 0, 1, 0, 1])


def tiny_cache():
    return CountCache(DiscreteData(np.column_stack([X, Y]), np.array([2, 2]), C, 2))


def test_counts_are_bincounts_of_the_rows():
    cache = tiny_cache()
    assert cache.counts((2,)).tolist() == [4, 4]
    assert cache.counts((0, 1, 2))[:, :, 0].tolist() == [[2, 0], [0, 2]]
    assert cache.counts((0, 1, 2))[:, :, 1].tolist() == [[1, 1], [1, 1]]
    assert cache.counts((1, 0)).tolist() == [[3, 1], [1, 3]]  # axes (Y, X)


def test_hand_computed_measures():
    cache = tiny_cache()
    assert entropy(cache.counts((0,))) == pytest.approx(1.0)
    assert entropy([3, 1]) == pytest.approx(-(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25)))
    assert cache.mi_with_class() == pytest.approx([0.0, 0.0])
    assert conditional_mutual_information(cache.counts((0, 1, 2))) == pytest.approx(0.5)
    assert label_conditional_mi(cache.counts((0, 1, 2))) == pytest.approx([1.0, 0.0])
    assert cache.cmi_matrix() == pytest.approx(np.array([[0, 0.5], [0.5, 0]]))
    assert cache.per_label_cmi()[:, 0, 1] == pytest.approx([1.0, 0.0])
    # I(X; Y) unconditionally: P(x,y) = [[3,1],[1,3]]/8
    expected = 2 * (3 / 8) * math.log2((3 / 8) / 0.25) + 2 * (1 / 8) * math.log2((1 / 8) / 0.25)
    assert mutual_information(cache.counts((0, 1))) == pytest.approx(expected)


def test_measures_agree_with_sklearn_on_real_data(krkp):
    X_, y_ = krkp
    from bnclf.encoding._encoder import FeatureEncoder
    from bnclf.encoding._frames import encode_target

    enc = FeatureEncoder().fit(X_)
    codes = enc.transform(X_, training=True)
    classes, yc = encode_target(y_)
    cache = CountCache(DiscreteData(codes, enc.cardinalities_, yc, len(classes)))
    for i in (0, 5, 20):
        ref = mutual_info_score(codes[:, i], yc) / math.log(2)
        assert cache.mi_with_class()[i] == pytest.approx(ref, abs=1e-12)
        table = pd.crosstab(codes[:, i], yc).to_numpy()
        assert np.array_equal(cache.counts((i, cache.class_index)), table)
    i, j = 3, 7
    ref = sum(
        np.mean(yc == c) * mutual_info_score(codes[yc == c, i], codes[yc == c, j]) / math.log(2) for c in range(2)
    )
    assert cache.cmi_matrix()[i, j] == pytest.approx(ref, abs=1e-12)


def test_pointwise_measures_use_m_estimates():
    counts = np.array([[3.0, 1.0], [1.0, 3.0]])  # N(x, c), N = 8
    # P(x=0, c=0) = (3 + 1/4) / 9 = 13/36; P(x=0) = P(c=0) = (4 + 1/2)/9 = 1/2
    assert pointwise_class_mi(counts, m=1)[0, 0] == pytest.approx(math.log2((13 / 36) / 0.25))
    # an unseen cell stays finite and negative
    pmi = pointwise_class_mi(np.array([[4.0, 0.0], [0.0, 4.0]]), m=1)
    assert np.isfinite(pmi).all() and pmi[0, 1] < -2
    cache = tiny_cache()
    cpmi = pointwise_class_cmi(cache.counts((0, 1, 2)), m=1)
    # class 0: P(0,0|c0) = (2 + 1/4)/5, P(x=0|c0) = (2 + 1/2)/5
    assert cpmi[0, 0, 0] == pytest.approx(math.log2((2.25 / 5) / (2.5 / 5) ** 2))
    assert cpmi[0, 1, 0] == pytest.approx(math.log2((0.25 / 5) / (2.5 / 5) ** 2))


def test_m_estimate_formula_and_ml_limit():
    counts = np.array([[3.0, 0.0], [1.0, 0.0]])  # child x parent
    p = m_estimate(counts, m=1)
    assert p[:, 0] == pytest.approx([(3 + 0.5) / 5, (1 + 0.5) / 5])
    assert p[:, 1] == pytest.approx([0.5, 0.5])
    ml = m_estimate(counts, m=0)
    assert ml[:, 0] == pytest.approx([0.75, 0.25])
    assert ml[:, 1] == pytest.approx([0.5, 0.5])  # unseen parent: uniform


def test_bdeu_hand_computed():
    # one binary child, no parents, counts (3, 1), ESS 1: q = 1, a_j = 1, a_jk = 1/2
    # Gamma(1)/Gamma(5) * Gamma(3.5)/Gamma(0.5) * Gamma(1.5)/Gamma(0.5) = 1/24 * 1.875 * 0.5
    assert bdeu_score([3, 1], ess=1) == pytest.approx(math.log(1 / 24 * 1.875 * 0.5))
    # with a binary parent, counts [[2, 1], [0, 1]] (child x parent), ESS 4: a_j = 2, a_jk = 1
    n = np.array([[2, 1], [0, 1]])
    by_hand = (gammaln(2) - gammaln(2 + 2) + gammaln(1 + 2) - gammaln(1) + 0) + (
        gammaln(2) - gammaln(2 + 2) + gammaln(1 + 1) - gammaln(1) + gammaln(1 + 1) - gammaln(1)
    )
    assert bdeu_score(n, ess=4) == pytest.approx(by_hand)


def test_missing_ignore_leaves_rows_out_of_that_family_only():
    codes = np.array([[0, 1], [-1, 0], [1, 1]])
    cache = CountCache(DiscreteData(codes, np.array([2, 2]), np.array([0, 1, 1]), 2))
    assert cache.counts((0, 2)).sum() == 2
    assert cache.counts((1, 2)).sum() == 3
    assert cache.class_counts.tolist() == [1, 2]


def test_summaries_add_to_the_tables_of_all_rows():
    cache = tiny_cache()
    half = DiscreteData(np.column_stack([X, Y]), np.array([2, 2]), C, 2)
    families = [(0, 1, 2)]
    a, b = (
        CountCache(half.subset(slice(0, 3))).summary(families),
        CountCache(half.subset(slice(3, 8))).summary(families),
    )
    assert np.array_equal((a + b).counts((0, 1, 2)), cache.counts((0, 1, 2)))


def test_tables_are_keyed_canonically_and_transposed_on_demand():
    cache = tiny_cache()
    a = cache.counts((0, 1, 2))
    b = cache.counts((2, 0, 1))
    assert len(cache._tables) == 1
    np.testing.assert_array_equal(b, np.transpose(a, (2, 0, 1)))
    with pytest.raises(ValueError, match="twice"):
        cache.counts((0, 0))


def test_added_summaries_hold_the_tables_of_the_parts_and_no_rows():
    cache = tiny_cache()
    half = DiscreteData(np.column_stack([X, Y]), np.array([2, 2]), C, 2)
    parts = [CountCache(half.subset(rows)).summary([(2,)], pairs=True) for rows in (slice(0, 5), slice(5, 8))]
    merged = parts[0] + parts[1]
    assert merged._columns is None and merged.n_samples == 8
    for family in [(2,), (0, 2), (1, 0, 2)]:
        np.testing.assert_array_equal(merged.counts(family), cache.counts(family))
    np.testing.assert_allclose(merged.cmi_matrix(), cache.cmi_matrix())
    other = CountCache(DiscreteData(np.zeros((2, 2), int), np.array([3, 2]), np.array([0, 1]), 2))
    with pytest.raises(ValueError, match="different cardinalities"):
        parts[0] + other.summary([(2,)], pairs=True)


def test_counting_many_families_at_once_equals_one_at_a_time():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(500, 5))
    codes[:, 4] = rng.integers(0, 4, size=500)
    y = rng.integers(0, 2, size=500)
    data = DiscreteData(codes, np.array([3, 3, 3, 3, 4]), y, 2)
    families = [(i, j, 5) for i in range(5) for j in range(i + 1, 5)] + [(3, 5), (4, 1, 0, 5)]
    batch = CountCache(data)
    batch.counts_many(families)
    assert len(batch._tables) == len(families)
    one = CountCache(data)
    for family in families:
        np.testing.assert_array_equal(batch.counts(family), one.counts(family))
    codes[::7, 2] = -1  # a variable with unknown values is counted per family, rows left out
    data = DiscreteData(codes, np.array([3, 3, 3, 3, 4]), y, 2)
    batch, one = CountCache(data), CountCache(data)
    batch.counts_many(families)
    for family in families:
        np.testing.assert_array_equal(batch.counts(family), one.counts(family))


def test_all_pairs_counts_equal_bincounts():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 4, size=(300, 6))
    codes[rng.random(codes.shape) < 0.1] = -1  # unknown values: left out per pair
    data = DiscreteData(codes, np.array([4, 4, 4, 4, 4, 4]), rng.integers(0, 3, 300), 3)
    fast, slow = CountCache(data), CountCache(data)
    fast.count_all_pairs()
    for i in range(6):
        for j in range(i + 1, 6):
            np.testing.assert_array_equal(fast.counts((j, i, 6)), slow.counts((j, i, 6)))


@pytest.mark.parametrize("missing", [False, True])
def test_tables_read_from_the_all_pairs_counts_equal_bincounts(missing):
    rng = np.random.default_rng(3)
    cards = np.array([2, 5, 3, 1, 4, 3])
    codes = np.column_stack([rng.integers(0, r, 300) for r in cards])
    if missing:
        codes[rng.random(codes.shape) < 0.15] = -1
    data = DiscreteData(codes, cards, rng.integers(0, 3, 300), 3)
    fast, slow = CountCache(data), CountCache(data)
    fast.cmi_matrix()  # forms the products, and the (feature, class) tables with them
    assert fast._pairs.sources is not None
    d = len(cards)
    families = [(j, i, d) for i in range(d) for j in range(i + 1, d)] + [(i, d) for i in range(d)]
    fast.counts_many(families)
    for family in families:
        np.testing.assert_array_equal(fast.counts(family), slow.counts(family))


@pytest.mark.parametrize("group_cells", [None, 1, 2000])  # one group of features, one feature, a few
@pytest.mark.parametrize("missing", [False, True])
# unequal cardinalities; equal ones (segment sums by strided slices); one value left per feature
@pytest.mark.parametrize("cards", [[2, 5, 3, 4, 1, 6], [4, 4, 4, 4, 4, 4], [2, 1, 2, 2, 1, 2]])
def test_all_pair_cmi_at_once_equals_pair_by_pair(missing, group_cells, cards, monkeypatch):
    import bnclf.counts._pair_terms
    from bnclf.counts._measures import conditional_mutual_information, label_conditional_mi

    if group_cells is not None:
        monkeypatch.setattr(bnclf.counts._pair_terms, "_PAIR_GROUP_CELLS", group_cells)

    rng = np.random.default_rng(7)
    cards = np.array(cards)
    codes = np.column_stack([rng.integers(0, r, 400) for r in cards])
    codes[:, 3] = np.where(rng.random(400) < 0.7, codes[:, 1] % 4, codes[:, 3])  # dependence
    if missing:
        codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 3, 400)
    cache = CountCache(DiscreteData(codes, cards, y, 3))
    cmi, per_label = cache.cmi_matrix(), cache.per_label_cmi()
    d = len(cards)
    for i in range(d):
        for j in range(d):
            if i == j:
                assert cmi[i, j] == 0 and (per_label[:, i, j] == 0).all()
                continue
            table = cache.counts((i, j, d))
            assert cmi[i, j] == pytest.approx(conditional_mutual_information(table), abs=1e-12)
            np.testing.assert_allclose(per_label[:, i, j], label_conditional_mi(table), atol=1e-12)
    assert cmi[1, 3] > 0.1 or cards[1] < 3
