"""Multilabel baselines (binary relevance, ECC) and the multilabel evaluation protocol.

Oracles: scikit-learn's metrics and ``CategoricalNB``, naive Bayes fitted label by
label, and a classifier chain run by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.metrics import accuracy_score, hamming_loss
from sklearn.naive_bayes import CategoricalNB

from bnclf.datasets import load_multilabel_dataset
from bnclf.encoding._discretize import QuantileDiscretizer
from bnclf.evaluation._compare import summarize
from bnclf.evaluation._metrics import global_accuracy, hamming_accuracy
from bnclf.evaluation._multilabel import (
    compare_multilabel,
    empty_rate,
    least_relevant_label_folds,
    multilabel_fold_scores,
    split_label_columns,
    summarize_multilabel,
)
from bnclf.evaluation._protocols import multilabel_cv_splits
from bnclf.models import NaiveBayesClassifier, make_multilabel_classifier
from bnclf.models._multilabel import MultilabelBNClassifier
from bnclf.models._multilabel_baselines import (
    BinaryRelevanceNB,
    CodesNaiveBayes,
    EnsembleOfClassifierChains,
    binary_relevance,
    ensemble_of_classifier_chains,
)


@pytest.fixture(scope="module")
def emotions():
    return load_multilabel_dataset("emotions")


@pytest.fixture(scope="module")
def small(emotions):
    X, Y = emotions
    return X.iloc[:240].reset_index(drop=True), Y.iloc[:240].reset_index(drop=True)


# -- metrics ----------------------------------------------------------------------------------
def test_metrics_equal_scikit_learn():
    rng = np.random.default_rng(0)
    for n_labels in (1, 3, 6):
        Y = rng.integers(0, 2, (50, n_labels))
        P = np.where(rng.random(Y.shape) < 0.8, Y, 1 - Y)
        assert global_accuracy(Y, P) == pytest.approx(accuracy_score(Y, P))
        assert hamming_accuracy(Y, P) == pytest.approx(1 - hamming_loss(Y, P))
        assert empty_rate(P) == pytest.approx(np.mean(P.sum(axis=1) == 0))
    assert empty_rate(np.array([[0, 0], [1, 0], [0, 0], [0, 1]])) == 0.5
    with pytest.raises(ValueError, match="2-D"):
        empty_rate([0, 1])


# -- folds --------------------------------------------------------------------------------------
def test_folds_are_stratified_on_the_least_relevant_label(emotions):
    _, Y = emotions
    counts = Y.sum(axis=0).to_numpy()
    least = int(np.argmin(counts))
    for n_splits in (3, 5, 7):
        folds = least_relevant_label_folds(Y, n_splits=n_splits, random_state=0)
        assert len(folds) == n_splits
        tests = [test for _, test in folds]
        assert sorted(np.concatenate(tests).tolist()) == list(range(len(Y)))
        sizes = [len(t) for t in tests]
        assert max(sizes) - min(sizes) <= 1
        positives = [int(Y.iloc[t, least].sum()) for t in tests]
        assert min(positives) > 0 and max(positives) - min(positives) <= 1
        for train, test in folds:
            assert not set(train) & set(test) and len(train) + len(test) == len(Y)
    same = multilabel_cv_splits(Y.to_numpy(), n_splits=5, random_state=0)
    assert all(np.array_equal(t, s.test) for (_, t), s in zip(least_relevant_label_folds(Y), same))


def test_fold_ties_go_to_the_first_label():
    Y = np.zeros((40, 3), dtype=int)
    Y[:10, 0] = 1
    Y[::4, 1] = 1  # 10 positives as well, spread differently
    Y[:, 2] = 1
    for _, test in least_relevant_label_folds(Y, n_splits=5):
        assert Y[test, 0].sum() == 2  # stratified on label 0, not on label 1


# -- binary relevance -----------------------------------------------------------------------------
def _coded(X):
    """Quartile-discretized features, as the baselines code them."""
    return QuantileDiscretizer(n_bins=4).fit_transform(X)


def test_binary_relevance_equals_naive_bayes_per_label(small):
    X, Y = small
    for m in (1.0, 3.0):
        br = binary_relevance(m=m).fit(X, Y)
        proba = br.predict_proba(X)
        assert proba.shape == Y.shape
        frame = _coded(X)
        for i, name in enumerate(Y.columns):
            nb = NaiveBayesClassifier(m=m).fit(frame, Y[name])
            np.testing.assert_allclose(proba[:, i], nb.predict_proba(frame)[:, 1], atol=1e-12)
            assert (br.predict(X)[:, i] == nb.predict(frame)).all()


def test_binary_relevance_equals_categorical_nb(small):
    X, Y = small
    frame = _coded(X)
    four = [c for c in frame.columns if len(frame[c].cat.categories) == 4]
    assert len(four) > 60
    codes = np.column_stack([frame[c].cat.codes.to_numpy() for c in four])
    m = 2.0
    br = BinaryRelevanceNB(m=m).fit(X[four], Y)
    for i in range(Y.shape[1]):
        y = Y.iloc[:, i].to_numpy()
        counts = np.bincount(y, minlength=2)
        prior = (counts + m / 2) / (counts.sum() + m)  # the m-estimated class prior
        ref = CategoricalNB(alpha=m / 4, force_alpha=True, class_prior=prior, min_categories=4).fit(codes, y)
        np.testing.assert_allclose(br.predict_proba(X[four])[:, i], ref.predict_proba(codes)[:, 1], atol=1e-9)


def test_baselines_fit_without_warnings_and_keep_label_names(small):
    X, Y = small
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for est in (binary_relevance(), ensemble_of_classifier_chains(n_chains=3)):
            est.fit(X, Y)
            P = est.predict(X.iloc[:30])
            assert P.shape == (30, 6) and set(np.unique(P)) <= {0, 1}
            assert est.label_names_ == list(Y.columns)
            assert 0.2 < est.score(X, Y) == global_accuracy(Y, est.predict(X))
            assert len(est.network_members()) == (6 if isinstance(est, BinaryRelevanceNB) else 18)


def test_codes_naive_bayes_treats_every_column_as_categorical():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, (200, 4))
    y = (X[:, 0] == 2).astype(int)
    as_int = CodesNaiveBayes().fit(X, y)
    as_float = CodesNaiveBayes().fit(X.astype(float), y)  # a chain appends float columns
    np.testing.assert_allclose(as_int.predict_proba(X), as_float.predict_proba(X.astype(float)))
    frame = pd.DataFrame({f"x{j}": pd.Categorical(X[:, j], categories=[0, 1, 2]) for j in range(4)})
    np.testing.assert_allclose(as_int.predict_proba(X), NaiveBayesClassifier().fit(frame, y).predict_proba(frame))
    # a code with no state is summed out: the answer of the model without that column
    unseen = X.copy()
    unseen[:, 1] = 7
    dropped = NaiveBayesClassifier().fit(frame.drop(columns="x1"), y).predict_proba(frame.drop(columns="x1"))
    np.testing.assert_allclose(as_int.predict_proba(unseen), dropped, atol=1e-12)
    with pytest.raises(ValueError, match="non-integral"):
        CodesNaiveBayes().fit(X + 0.5, y)
    with pytest.raises(ValueError, match="0 and 1"):
        CodesNaiveBayes().fit(X, y + 1)


def test_a_label_constant_in_training_still_gets_probabilities(small):
    X, Y = small
    Y = Y.copy()
    Y.iloc[:, 2] = 0
    br = binary_relevance().fit(X, Y)
    proba = br.predict_proba(X)
    assert proba.shape == Y.shape and (proba[:, 2] < 0.05).all() and (br.predict(X)[:, 2] == 0).all()
    ml = CodesNaiveBayes(m=0).fit(np.zeros((5, 2), dtype=int), np.ones(5, dtype=int))
    np.testing.assert_array_equal(ml.predict_proba(np.zeros((2, 2))), [[0, 1], [0, 1]])


# -- ensemble of classifier chains ----------------------------------------------------------------
def test_one_chain_equals_a_chain_run_by_hand(small):
    X, Y = small
    order = [3, 0, 5, 1, 4, 2]
    ecc = EnsembleOfClassifierChains(n_chains=1, order=order, m=1.0).fit(X, Y)
    assert list(ecc.chains_[0].order_) == order
    frame = _coded(X)
    train, test = frame.copy(), frame.iloc[:60].copy()
    proba = np.zeros((60, 6))
    for k in order:
        name = Y.columns[k]
        nb = NaiveBayesClassifier(m=1.0).fit(train, Y[name])
        proba[:, k] = nb.predict_proba(test)[:, 1]
        train[name] = pd.Categorical(Y[name], categories=[0, 1])  # true labels in training
        test[name] = pd.Categorical(nb.predict(test), categories=[0, 1])  # predictions at predict time
    np.testing.assert_allclose(ecc.predict_proba(X.iloc[:60]), proba, atol=1e-12)
    np.testing.assert_array_equal(ecc.predict(X.iloc[:60]), (proba >= 0.5).astype(int))


def test_ensemble_averages_random_chains(small):
    X, Y = small
    ecc = ensemble_of_classifier_chains(n_chains=4, random_state=3).fit(X, Y)
    orders = {tuple(c.order_) for c in ecc.chains_}
    assert len(orders) > 1
    mean = np.mean([c.predict_proba(ecc._encode(X)) for c in ecc.chains_], axis=0)
    np.testing.assert_allclose(ecc.predict_proba(X), mean)
    np.testing.assert_array_equal(ecc.predict(X), (mean >= 0.5).astype(int))
    again = ensemble_of_classifier_chains(n_chains=4, random_state=3).fit(X, Y)
    np.testing.assert_array_equal(again.predict_proba(X), ecc.predict_proba(X))
    sub = ensemble_of_classifier_chains(n_chains=2, max_samples=0.5).fit(X, Y)
    assert sub.predict_proba(X).shape == Y.shape
    with pytest.raises(ValueError, match="permutation"):
        EnsembleOfClassifierChains(order=[0, 1]).fit(X, Y)
    with pytest.raises(ValueError, match="n_chains"):
        EnsembleOfClassifierChains(n_chains=0).fit(X, Y)


def test_registry_names_the_baselines():
    br = make_multilabel_classifier("br(m=2)")
    assert isinstance(br, BinaryRelevanceNB) and br.m == 2
    ecc = make_multilabel_classifier("ecc(n_chains=3, threshold=0.4)")
    assert isinstance(ecc, EnsembleOfClassifierChains) and (ecc.n_chains, ecc.threshold) == (3, 0.4)
    assert ecc.random_state == 0
    with pytest.raises(ValueError, match="no parameter"):
        make_multilabel_classifier("br(k=1)")
    assert clone(ecc).get_params() == ecc.get_params()


# -- cross-validation --------------------------------------------------------------------------------
def test_cross_validate_on_emotions(emotions):
    X, Y = emotions
    estimators = {"mnb": "mnb", "br": binary_relevance()}
    cv = multilabel_fold_scores(estimators, X, Y, n_splits=5, random_state=0, verbose=0)
    assert len(cv) == 10 and list(cv["classifier"].unique()) == ["mnb", "br"]
    assert (cv.groupby("classifier")["n_test"].sum() == len(X)).all()
    assert cv["global_accuracy"].between(0.1, 0.5).all()
    assert cv["hamming_accuracy"].between(0.65, 0.9).all()
    assert (cv["global_accuracy"] <= cv["hamming_accuracy"]).all()
    bn, baseline = cv[cv["classifier"] == "mnb"], cv[cv["classifier"] == "br"]
    assert (bn["empty_rate"] == 0).all()  # empty predictions are prevented by default
    assert bn[["global_accuracy_empty_allowed", "treewidth", "n_selected_features"]].notna().all().all()
    assert baseline[["global_accuracy_empty_allowed", "treewidth"]].isna().all().all()
    assert not hasattr(estimators["br"], "label_names_")  # cloned per fold, never fitted in place

    # the empty-allowed scores are the same fitted model's answers with allow_empty=True
    train, test = least_relevant_label_folds(Y)[0]
    model = make_multilabel_classifier("mnb").fit(X.iloc[train], Y.iloc[train])
    allowed = model.set_params(allow_empty=True).predict(X.iloc[test])
    row = bn.iloc[0]
    assert row["global_accuracy_empty_allowed"] == pytest.approx(global_accuracy(Y.iloc[test], allowed))
    assert row["hamming_accuracy_empty_allowed"] == pytest.approx(hamming_accuracy(Y.iloc[test], allowed))
    assert row["empty_rate_empty_allowed"] == pytest.approx(empty_rate(allowed))
    assert row["treewidth"] == model.treewidth_ and row["n_selected_features"] == len(model.selected_features_)

    summary = summarize_multilabel(cv)
    assert list(summary.index) == ["mnb", "br"]
    assert summary.loc["br", "global_accuracy"] == pytest.approx(baseline["global_accuracy"].mean())
    assert summary.loc["mnb", "hamming_accuracy_std"] == pytest.approx(bn["hamming_accuracy"].std(ddof=0))


def test_cross_validate_restores_allow_empty_and_names_a_failing_fold(small):
    X, Y = small
    cv = multilabel_fold_scores(["mnb(feature_selection=None, allow_empty=True)"], X, Y, n_splits=3, verbose=0)
    np.testing.assert_allclose(cv["global_accuracy"], cv["global_accuracy_empty_allowed"])
    with pytest.raises(RuntimeError, match="bad fold 0"):
        multilabel_fold_scores(
            {"bad": MultilabelBNClassifier(alpha=5.0, max_parents=2, discretizer=None)}, X, Y, verbose=0
        )
    with pytest.raises(ValueError, match="repeat"):
        multilabel_fold_scores(["br", "br"], X, Y, verbose=0)


def test_compare_multilabel_feeds_the_comparison_tests(small, emotions):
    X, Y = small
    results = compare_multilabel(
        [("first", X.iloc[:120], Y.iloc[:120]), ("second", X.iloc[120:], Y.iloc[120:])],
        ["mnb(feature_selection=None)", "br"],
        n_splits=3,
        verbose=0,
    )
    assert set(results["dataset"]) == {"first", "second"} and (results["repeat"] == 0).all()
    np.testing.assert_allclose(results["zero_one_loss"], 1 - results["global_accuracy"])
    np.testing.assert_allclose(results["hamming_loss"], 1 - results["hamming_accuracy"])
    assert results.attrs["datasets"]["first"] == {"instances": 120, "features": 72, "classes": 6}
    summary = summarize(results, metric="zero_one_loss")
    assert summary.lower_is_better and summary.average_ranks is not None
    assert summarize(results, metric="hamming_loss").lower_is_better


def test_split_label_columns_by_name_or_count():
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"], "L1": [0, 1], "L2": [True, False]})
    X, Y = split_label_columns(frame, n_labels=2)
    assert list(X.columns) == ["a", "b"] and Y.to_numpy().tolist() == [[0, 1], [1, 0]]
    X, Y = split_label_columns(frame, labels=["L2"])
    assert list(X.columns) == ["a", "b", "L1"] and list(Y.columns) == ["L2"]
    with pytest.raises(ValueError, match="similar columns"):
        split_label_columns(frame, labels=["l1"])
    with pytest.raises(ValueError, match="no labels given"):
        split_label_columns(frame)
    with pytest.raises(ValueError, match="values"):
        split_label_columns(frame, labels=["b"])
