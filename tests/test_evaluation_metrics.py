"""Metrics of bnclf.evaluation against scikit-learn and hand computations."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm

from bnclf.evaluation import _metrics as m


def _random_proba(rng, n, k):
    p = rng.random((n, k)) + 0.05
    return p / p.sum(axis=1, keepdims=True)


def test_zero_one_loss_and_accuracy():
    y = np.array(["a", "b", "b", "c"])
    yp = np.array(["a", "b", "c", "a"])
    assert m.zero_one_loss(y, yp) == 0.5
    assert m.accuracy(y, yp) == 0.5
    assert m.zero_one_loss(y, yp) == skm.zero_one_loss(y, yp)
    with pytest.raises(ValueError, match="inconsistent"):
        m.zero_one_loss(y, yp[:3])


def test_log_loss_equals_sklearn():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 50)
    p = _random_proba(rng, 50, 3)
    assert m.log_loss(y, p, [0, 1, 2]) == pytest.approx(skm.log_loss(y, p, labels=[0, 1, 2]))
    # a zero probability for the true class is clipped, not infinite
    p0 = np.array([[1.0, 0.0], [0.5, 0.5]])
    assert np.isfinite(m.log_loss([1, 0], p0, [0, 1]))


def test_binary_auc_equals_sklearn():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 80)
    score = np.round(rng.random(80), 1)  # ties
    p = np.column_stack([1 - score, score])
    assert m.roc_auc(y, p) == pytest.approx(skm.roc_auc_score(y, score))
    assert m.roc_auc(y, score, [0, 1]) == pytest.approx(skm.roc_auc_score(y, score))
    labels = np.array(["neg", "pos"])[y]
    assert m.roc_auc(labels, p, ["neg", "pos"]) == pytest.approx(skm.roc_auc_score(y, score))


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_multiclass_ovr_auc_equals_sklearn(average):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, 120)
    p = _random_proba(rng, 120, 4)
    ours = m.roc_auc(y, p, multi_class="ovr", average=average)
    ref = skm.roc_auc_score(y, p, multi_class="ovr", average=average)
    assert ours == pytest.approx(ref)


def test_hand_till_equals_sklearn_ovo():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 120)
    p = _random_proba(rng, 120, 4)
    ref = skm.roc_auc_score(y, p, multi_class="ovo", average="macro")
    assert m.hand_till_auc(y, p) == pytest.approx(ref)
    assert m.roc_auc(y, p) == pytest.approx(ref)


def test_hand_till_hand_example():
    y = np.array([0, 0, 1, 1, 2, 2])
    p = np.array([[0.7, 0.2, 0.1], [0.4, 0.4, 0.2], [0.3, 0.6, 0.1], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.1, 0.2, 0.7]])
    # A(0|1): p0 of class 0 {.7,.4} vs class 1 {.3,.5}: 3 of 4 pairs -> .75; A(1|0) = .75
    # A(0|2) = A(2|0) = 1
    # A(1|2): p1 of class 1 {.6,.3} vs class 2 {.3,.2}: 3.5 of 4 (one tie) -> .875; A(2|1) = 1
    expected = (0.75 + 1.0 + (0.875 + 1.0) / 2) / 3
    assert m.hand_till_auc(y, p) == pytest.approx(expected)
    assert expected == pytest.approx(0.8958333333)


def test_kappa_hand_example():
    a = ["a", "a", "a", "b", "b", "c"]
    b = ["a", "a", "b", "b", "c", "c"]
    # D = [[2,1,0],[0,1,1],[0,0,1]], m = 6: Θ1 = 4/6, Θ2 = (3*2 + 2*2 + 1*2)/36 = 1/3
    assert m.kappa(a, b) == pytest.approx((4 / 6 - 1 / 3) / (1 - 1 / 3))
    assert m.kappa(a, b) == pytest.approx(0.5)
    assert m.kappa(a, b) == pytest.approx(skm.cohen_kappa_score(a, b))
    assert m.kappa(a, a) == 1.0
    assert m.kappa(["x", "x"], ["x", "x"]) == 1.0
    # disagreement below chance
    assert m.kappa(["a", "b"], ["b", "a"]) < 0


def test_kohavi_wolpert_hand_example_with_noise():
    classes = ["a", "b", "c"]
    # instance 1: target (1, 0, 0); predictions over 4 training sets a, a, b, c
    # instance 2: target (.5, .5, 0); predictions a, b, b, b
    preds = np.array([["a", "a"], ["a", "b"], ["b", "b"], ["c", "b"]])
    target = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])
    res = m.kohavi_wolpert(["a", "a"], preds, classes=classes, target_proba=target)
    # x1: P^ = (.5,.25,.25): bias² = ½(.25+.0625+.0625) = .1875, var = ½(1-.375) = .3125,
    #     noise 0, loss = 1 - .5 = .5
    # x2: P^ = (.25,.75,0): bias² = ½(.0625+.0625) = .0625, var = ½(1-.625) = .1875,
    #     noise = ½(1-.5) = .25, loss = 1 - (.125+.375) = .5
    assert res.per_instance["bias"].tolist() == pytest.approx([0.1875, 0.0625])
    assert res.per_instance["variance"].tolist() == pytest.approx([0.3125, 0.1875])
    assert res.per_instance["noise"].tolist() == pytest.approx([0.0, 0.25])
    assert res.per_instance["loss"].tolist() == pytest.approx([0.5, 0.5])
    assert (res.bias, res.variance, res.noise, res.loss) == pytest.approx((0.125, 0.25, 0.125, 0.5))
    assert res.bias + res.variance + res.noise == pytest.approx(res.loss)


def test_kohavi_wolpert_observed_labels():
    preds = np.array([["a", "a"], ["a", "b"], ["b", "b"], ["c", "b"]])
    res = m.kohavi_wolpert(["a", "b"], preds)
    # x2 target (0,1,0), P^ = (.25,.75,0): bias² = ½(.0625+.0625) = .0625, var = .1875
    assert res.per_instance["bias"].tolist() == pytest.approx([0.1875, 0.0625])
    assert res.noise == 0.0
    # with a point-mass target, bias + variance is the mean zero-one loss of the trials
    assert res.loss == pytest.approx(np.mean(preds != np.array(["a", "b"])))
    assert res.bias + res.variance == pytest.approx(res.loss)


def test_kohavi_wolpert_shape_check():
    with pytest.raises(ValueError, match="n_trials"):
        m.kohavi_wolpert([0, 1, 1], np.zeros((3, 2)))


def test_multilabel_accuracies_hand_example():
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0]])
    P = np.array([[1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 0, 0]])
    # exact matches: rows 1 and 4 -> 2/4; label agreement: 10 of 12
    assert m.global_accuracy(Y, P) == 0.5
    assert m.hamming_accuracy(Y, P) == pytest.approx(10 / 12)
    assert m.hamming_accuracy(Y, P) == pytest.approx(1 - skm.hamming_loss(Y, P))
    assert m.global_accuracy(Y, P) == pytest.approx(skm.accuracy_score(Y, P))
    with pytest.raises(ValueError):
        m.global_accuracy(Y, P[:, :2])


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=60))
def test_per_class_report_equals_sklearn(pairs):
    """The confusion matrix and per-class scores against scikit-learn's, with classes never
    predicted, never true, or absent altogether (class 5)."""
    from types import SimpleNamespace

    from bnclf.evaluation._reports import per_class_report

    classes = ["c0", "c1", "c2", "c3", "c4", "c5"]
    y_true = [classes[a] for a, _ in pairs]
    y_pred = [classes[b] for _, b in pairs]
    cv = SimpleNamespace(predictions=pd.DataFrame({"y_true": y_true, "y_pred": y_pred}), classes=classes)
    confusion, per_class = per_class_report(cv)
    np.testing.assert_array_equal(confusion.to_numpy(), skm.confusion_matrix(y_true, y_pred, labels=classes))
    p, r, f, n = skm.precision_recall_fscore_support(y_true, y_pred, labels=classes, zero_division=0)
    np.testing.assert_allclose(
        per_class[["precision", "recall", "f1"]].to_numpy(), np.column_stack([p, r, f]), rtol=1e-15
    )
    np.testing.assert_array_equal(per_class["support"].to_numpy(), n)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=60))
def test_kappa_equals_sklearn_everywhere(pairs):
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    expected = 1.0 if len(set(a) | set(b)) == 1 else skm.cohen_kappa_score(a, b)
    assert m.kappa(a, b) == pytest.approx(expected, abs=1e-12)


@given(st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0])), min_size=2, max_size=60))
def test_binary_auc_with_ties_equals_sklearn(pairs):
    y = np.array([t for t, _ in pairs])
    score = np.array([s for _, s in pairs])
    expected = skm.roc_auc_score(y, score) if 0 < y.sum() < len(y) else float("nan")
    assert m.roc_auc(y.astype(int), score, [0, 1]) == pytest.approx(expected, nan_ok=True, abs=1e-12)
