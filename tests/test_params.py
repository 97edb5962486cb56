"""m-estimated CPTs against hand-computed tables."""

import numpy as np
import pytest

from bnclf.counts._cache import CountCache
from bnclf.counts._measures import m_estimate
from bnclf.encoding._frames import DiscreteData
from bnclf.learn._parameters import m_estimated_log_cpts

X = np.array([0, 0, 1, 1, 1, 2, 0, 1])
C = np.array([0, 0, 0, 1, 1, 1, 1, 1])


def cache():
    return CountCache(DiscreteData(X[:, None], np.array([3]), C, 2))


def test_class_prior_and_feature_cpt_by_hand():
    prior, cpt = m_estimated_log_cpts(cache(), [(1,), (0, 1)], m=1.0)
    np.testing.assert_allclose(np.exp(prior), [(3 + 0.5) / 9, (5 + 0.5) / 9])
    # class 0 rows: x = 0, 0, 1; class 1 rows: x = 1, 1, 2, 0, 1
    expected = np.array(
        [[(2 + 1 / 3) / 4, (1 + 1 / 3) / 6], [(1 + 1 / 3) / 4, (3 + 1 / 3) / 6], [(0 + 1 / 3) / 4, (1 + 1 / 3) / 6]]
    )
    np.testing.assert_allclose(np.exp(cpt), expected)
    np.testing.assert_allclose(np.exp(cpt).sum(axis=0), 1.0)


def test_maximum_likelihood_and_unseen_parent_configuration():
    (cpt,) = m_estimated_log_cpts(cache(), [(0, 1)], m=0.0)
    np.testing.assert_allclose(np.exp(cpt)[:, 0], [2 / 3, 1 / 3, 0])
    assert np.isneginf(cpt[2, 0])
    counts = np.zeros((3, 2))
    counts[:, 0] = [1, 2, 3]
    np.testing.assert_allclose(m_estimate(counts, 0.0)[:, 1], [1 / 3] * 3)  # unseen: uniform


def test_negative_m_is_rejected():
    with pytest.raises(ValueError, match="m=-1"):
        m_estimated_log_cpts(cache(), [(1,)], m=-1)


@pytest.mark.parametrize("m", [0.0, 1.0, 2.5])
def test_all_pairs_cpts_equal_the_m_estimates_of_each_family(m):
    from bnclf.learn._parameters import child_given_pair_log_cpts

    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(7, 4))  # few rows: empty parent configurations occur
    y = rng.integers(0, 3, 7)
    cache = CountCache(DiscreteData(codes, np.array([3, 3, 3, 3]), y, 3))
    tables, off = child_given_pair_log_cpts(cache, m / 3.0, m)
    for j in range(4):
        for p in range(4):
            if j != p:
                expected = m_estimated_log_cpts(cache, [(j, p, 4)], m)[0]
                np.testing.assert_array_equal(
                    np.isneginf(tables[off[j] : off[j] + 3, off[p] : off[p] + 3]), np.isneginf(expected)
                )
                np.testing.assert_allclose(tables[off[j] : off[j] + 3, off[p] : off[p] + 3], expected)
