"""Decomposable local scores against pgmpy's BIC, K2 and BDeu on real data."""

import itertools
import math
import warnings

import numpy as np
import pytest

from bnclf.counts._cache import CountCache
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import DiscreteData, encode_target
from bnclf.learn._scores import local_score


@pytest.fixture(scope="module")
def data(soybean):
    X, y = soybean
    X = X.iloc[:, :6]
    encoder = FeatureEncoder().fit(X)
    classes, codes = encode_target(y)
    coded = DiscreteData(encoder.transform(X, training=True), encoder.cardinalities_, codes, len(classes))
    frame = X.astype(object).fillna("<missing>").astype(str).assign(cls=y.astype(str))
    return CountCache(coded), frame


@pytest.mark.parametrize("score, pgmpy_name", [("bic", "BIC"), ("k2", "K2"), ("bdeu", "BDeu")])
def test_local_scores_equal_pgmpy(score, pgmpy_name, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgmpy.estimators as estimators

        cache, frame = data
        names = list(frame.columns)  # features, then the class (index d)
        ref = getattr(estimators, pgmpy_name)(frame)
        families = [(0, ()), (6, ()), (1, (6,)), (2, (0, 6)), (6, (3, 4)), (5, (1, 2, 6))]
        families += [(i, (j,)) for i, j in itertools.permutations(range(4), 2)]
        for child, parents in families:
            ours = local_score(cache, child, parents, score)
            want = ref.local_score(names[child], [names[p] for p in parents])
            if score == "k2":  # pgmpy adds lnG(r) for each unseen parent configuration
                table = cache.counts((child, *sorted(parents))).reshape(cache.cardinalities[child], -1)
                unseen = int((table.sum(axis=0) == 0).sum())
                want -= unseen * math.lgamma(cache.cardinalities[child])
            assert ours == pytest.approx(want, rel=1e-10, abs=1e-8), (child, parents)


def test_score_name_is_checked(data):
    with pytest.raises(ValueError, match="score='aic'"):
        local_score(data[0], 0, (), "aic")
    assert np.isfinite(local_score(data[0], 0, (1,), "mdl"))


def test_k2_by_hand():
    from bnclf.learn._scores import bic_score, k2_score

    # child with 3 states, parent with 2 states; the second configuration never occurs
    table = np.array([[2, 0], [1, 0], [0, 0]])
    # Cooper-Herskovits: lnG(3) - lnG(3 + 3) + lnG(3) + lnG(2) + lnG(1), and 0 for the unseen one
    want = math.lgamma(3) - math.lgamma(6) + math.lgamma(3) + math.lgamma(2) + math.lgamma(1)
    assert k2_score(table) == pytest.approx(want)
    # BIC: 2 log(2/3) + 1 log(1/3) - log(3)/2 * (3 - 1) * 2
    assert bic_score(table) == pytest.approx(2 * math.log(2 / 3) + math.log(1 / 3) - 2 * math.log(3))
