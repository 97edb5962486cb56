"""sample_weight: weighted counts, checked against the rows repeated (integer weights), the
rows dropped (weight 0) and scikit-learn's CategoricalNB (fractional weights)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB
from sklearn.utils.validation import has_fit_parameter

from bnclf import (
    MDLDiscretizer,
    NaiveBayesClassifier,
    QuantileDiscretizer,
    TANClassifier,
)
from bnclf.datasets import load_dataset
from bnclf.encoding._discretize import weighted_quantiles
from bnclf.io import load_model, save_model
from bnclf.models import CLASSIFIERS

WEIGHTED = sorted(name for name, make in CLASSIFIERS.items() if has_fit_parameter(make(), "sample_weight"))
UNWEIGHTED = sorted(set(CLASSIFIERS) - set(WEIGHTED))


@pytest.fixture(scope="module")
def soybean():
    """Soybean's first 14 columns (missing values in several) and its 19 classes."""
    X, y = load_dataset("soybean")
    return X.iloc[:, :14], y


def _members(model):
    return [net for _, net in model.network_members()]


def _assert_same_model(a, b, X):
    nets_a, nets_b = _members(a), _members(b)
    assert len(nets_a) == len(nets_b)
    for one, two in zip(nets_a, nets_b):
        assert one.families == two.families
        assert one.states == two.states
        for t1, t2 in zip(one.log_cpts, two.log_cpts):
            np.testing.assert_array_equal(t1, t2)
    for name in ("weights_", "class_log_prior_"):
        if name in a.__dict__:
            np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_the_learners_that_take_weights_are_the_count_learners():
    counting = {"aode", "atan", "bmccl", "etan", "kdb", "nb", "tan", "waode", "watan"}
    # learners that read rows have no sample_weight, so scikit-learn's wrappers know
    reading = {"akdb", "bnc-2p", "bnc-mdl", "hc", "lkdb", "ltan", "rmcv", "rmho", "rmho-ar", "rmho-f", "targetkdb"}
    # bnclf's own learners, each on its side (a learner added to the registry may be on either)
    assert counting | reading <= set(CLASSIFIERS)
    assert set(WEIGHTED) & (counting | reading) == counting
    assert set(UNWEIGHTED) & (counting | reading) == reading


@pytest.mark.parametrize("missing", ["category", "ignore"])
@pytest.mark.parametrize("name", WEIGHTED)
def test_integer_weights_are_the_rows_repeated(soybean, name, missing):
    """Structure, CPTs, member weights and predictions bit for bit; zeros included."""
    X, y = soybean
    weights = np.random.default_rng(3).integers(0, 4, len(X))
    repeat = np.repeat(np.arange(len(X)), weights)
    params = {"missing": missing}
    if name == "kdb":
        params["k"] = 2
    weighted = CLASSIFIERS[name](**params).fit(X, y, sample_weight=weights)
    repeated = CLASSIFIERS[name](**params).fit(X.iloc[repeat], y.iloc[repeat])
    _assert_same_model(weighted, repeated, X)


def test_weight_zero_is_the_row_dropped():
    """A row of weight 0 adds no state and no class: as if it were not there."""
    X = pd.DataFrame({"a": ["x", "y", "x", "y", "z"], "b": ["p", "q", "q", "p", "r"]})
    y = np.array(["u", "v", "u", "v", "w"])
    weights = np.array([1, 2, 1, 1, 0])
    weighted = TANClassifier().fit(X, y, sample_weight=weights)
    dropped = TANClassifier().fit(X.iloc[:4], y[:4], sample_weight=weights[:4])
    assert list(weighted.classes_) == ["u", "v"]
    assert weighted.categories_ == dropped.categories_
    assert weighted.categories_["a"] == ["x", "y"] and weighted.categories_["b"] == ["p", "q"]
    repeat = np.repeat(np.arange(5), weights)
    _assert_same_model(weighted, TANClassifier().fit(X.iloc[repeat], y[repeat]), X)
    assert (weighted.predict_proba(X) == dropped.predict_proba(X)).all()  # dropped has 'z' unseen: summed out


def test_all_ones_and_none_are_the_unweighted_fit(soybean):
    X, y = soybean
    plain = TANClassifier().fit(X, y)
    _assert_same_model(TANClassifier().fit(X, y, sample_weight=np.ones(len(X))), plain, X)
    _assert_same_model(TANClassifier().fit(X, y, sample_weight=None), plain, X)


def test_fractional_weights_give_categorical_nb_s_tables():
    """With every feature of r values, the m-estimate (N_xc + m/r)/(N_c + m) is CategoricalNB's
    Laplace estimate with alpha = m/r; the tables are weighted counts in both."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (400, 5))
    y = rng.integers(0, 3, 400)
    X[:3], y[:3] = 2, [0, 1, 2]  # every value of every feature seen
    weights = rng.uniform(0.05, 3.0, 400)
    ours = NaiveBayesClassifier(m=1.5).fit(X, y, sample_weight=weights)
    theirs = CategoricalNB(alpha=0.5, min_categories=3).fit(X, y, sample_weight=weights)
    for j in range(5):
        expected = theirs.feature_log_prob_[j].T  # (values, classes), as our (x_j, class) CPT
        np.testing.assert_allclose(ours.log_cpts_[f"x{j}"], expected, rtol=0, atol=1e-12)
    # the class prior: (N_c + m/K) / (N + m) of the weighted counts
    counts = np.bincount(y, weights=weights)
    np.testing.assert_allclose(
        np.exp(ours.log_cpts_["class"]), (counts + 0.5) / (counts.sum() + 1.5), rtol=0, atol=1e-12
    )


def test_partial_fit_and_weighted_chunks_equal_the_weighted_fit(soybean):
    X, y = soybean
    X = X.astype("category")  # declared states: the chunks agree on them
    weights = np.random.default_rng(5).uniform(0, 2, len(X))
    weights[::7] = 0
    whole = NaiveBayesClassifier().fit(X, y, sample_weight=weights)
    parts = np.array_split(np.arange(len(X)), 4)
    incremental = NaiveBayesClassifier()
    for part in parts:
        incremental.partial_fit(X.iloc[part], y.iloc[part], classes=np.unique(y), sample_weight=weights[part])
    chunked = TANClassifier().fit_chunks([(X.iloc[p], y.iloc[p], weights[p]) for p in parts])
    np.testing.assert_allclose(incremental.predict_proba(X), whole.predict_proba(X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        chunked.predict_proba(X),
        TANClassifier().fit(X, y, sample_weight=weights).predict_proba(X),
        rtol=0,
        atol=1e-12,
    )


def test_a_weighted_model_saves_and_loads(tmp_path, soybean):
    X, y = soybean
    weights = np.random.default_rng(6).uniform(0.2, 2.0, len(X))
    model = TANClassifier().fit(X, y, sample_weight=weights)
    loaded = load_model(save_model(model, tmp_path / "weighted.bnclf"))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("discretizer", [MDLDiscretizer, QuantileDiscretizer])
def test_discretizer_weights_are_the_rows_repeated(discretizer):
    X, y = load_dataset("heart-c")
    numeric = X.select_dtypes("number")
    weights = np.random.default_rng(2).integers(0, 4, len(X))
    repeat = np.repeat(np.arange(len(X)), weights)
    weighted = discretizer().fit(numeric, y, sample_weight=weights)
    repeated = discretizer().fit(numeric.iloc[repeat], y.iloc[repeat])
    assert weighted.columns_ == repeated.columns_
    assert sum(len(c) for c in weighted.cut_points_.values()) > 0
    for column in weighted.columns_:
        np.testing.assert_array_equal(weighted.cut_points_[column], repeated.cut_points_[column])


def test_weighted_quantiles_are_numpy_s_on_repeated_values():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        values = np.round(rng.normal(size=n), int(rng.integers(0, 3)))
        weights = rng.integers(1, 5, n)
        probs = np.arange(1, int(rng.integers(2, 9))) / 8
        np.testing.assert_array_equal(
            weighted_quantiles(values, weights, probs), np.quantile(np.repeat(values, weights), probs)
        )


def test_a_pipeline_routes_weights_and_boosting_works():
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.pipeline import make_pipeline

    X, y = load_dataset("heart-c")
    weights = np.random.default_rng(4).integers(1, 3, len(X))
    pipe = make_pipeline(MDLDiscretizer(), TANClassifier())
    pipe.fit(X, y, mdldiscretizer__sample_weight=weights, tanclassifier__sample_weight=weights)
    repeat = np.repeat(np.arange(len(X)), weights)
    again = make_pipeline(MDLDiscretizer(), TANClassifier()).fit(X.iloc[repeat], y.iloc[repeat])
    np.testing.assert_array_equal(pipe.predict_proba(X), again.predict_proba(X))
    # boosting reweights rows every round: integer-coded features, our NB as the weak learner
    codes = np.random.default_rng(0).integers(0, 3, (300, 4))
    target = (codes[:, 0] + codes[:, 1] > 2).astype(int)
    boosted = AdaBoostClassifier(NaiveBayesClassifier(), n_estimators=5, random_state=0).fit(codes, target)
    assert len(boosted.estimators_) >= 2 and boosted.score(codes, target) > 0.7


@pytest.mark.parametrize(
    "weights, pattern",
    [
        ([1, -1, 1, 1], r"negative, NaN or infinite .*row 1.*>= 0"),
        ([1, np.nan, 1, 1], r"negative, NaN or infinite .*row 1"),
        ([1, 1, 1], r"3 values but X has 4 rows"),
        ([0, 0, 0, 0], r"every sample_weight is zero"),
        (["a", "b", "c", "d"], r"must hold numbers"),
        ([[1, 1], [1, 1], [1, 1], [1, 1]], r"shape \(4, 2\).*1-D"),
        ([1, 1, 0, 0], r"positive sample_weight have only one class \('u'\)"),
    ],
)
def test_bad_weights_are_refused_by_name(weights, pattern):
    X = pd.DataFrame({"a": ["x", "y", "x", "y"]})
    with pytest.raises(ValueError, match=pattern):
        NaiveBayesClassifier().fit(X, ["u", "u", "v", "v"], sample_weight=weights)


def test_learners_that_read_rows_have_no_sample_weight():
    from sklearn.ensemble import AdaBoostClassifier

    codes = np.random.default_rng(0).integers(0, 3, (60, 3))
    with pytest.raises(ValueError, match="doesn't support sample_weight"):
        AdaBoostClassifier(CLASSIFIERS["lkdb"]()).fit(codes, codes[:, 0] > 0)
    with pytest.raises(TypeError, match="sample_weight"):
        CLASSIFIERS["rmcv"]().fit(codes, codes[:, 0] > 0, sample_weight=np.ones(60))
