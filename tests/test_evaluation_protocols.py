"""CV protocols: discretization inside training folds, stratification, seeds, coverage."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.multioutput import MultiOutputClassifier
from sklearn.naive_bayes import GaussianNB

from bnclf.evaluation import _metrics as m
from bnclf.evaluation import (
    build_pipeline,
    cross_validate_multilabel,
    cross_validate_predictions,
    least_relevant_label,
    make_cv_splits,
    multilabel_cv_splits,
)


class SpyTransformer(TransformerMixin, BaseEstimator):
    """Pass-through transformer that records the row labels it is fitted on and applied to."""

    fitted_on: list = []
    applied_to: list = []

    def fit(self, X, y=None):
        SpyTransformer.fitted_on.append(X.index.to_numpy().copy())
        return self

    def transform(self, X):
        SpyTransformer.applied_to.append(X.index.to_numpy().copy())
        return X


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 103
    y = np.array(["a"] * 60 + ["b"] * 31 + ["c"] * 12)
    shift = pd.Series(y).map({"a": 0.0, "b": 1.0, "c": 2.0}).to_numpy()
    X = pd.DataFrame(
        {"u": rng.normal(shift, 1.0), "v": rng.normal(-shift, 1.0)}, index=np.arange(n) * 10 + 7
    )  # labels differ from positions
    return X, y


def test_discretizer_fitted_only_on_training_folds(data):
    X, y = data
    SpyTransformer.fitted_on.clear()
    SpyTransformer.applied_to.clear()
    cvp = cross_validate_predictions(
        GaussianNB(), X, y, n_splits=5, n_repeats=2, discretizer=SpyTransformer(), random_state=3
    )
    splits = make_cv_splits(y, n_splits=5, n_repeats=2, random_state=3)
    assert len(SpyTransformer.fitted_on) == len(splits) == 10
    labels = X.index.to_numpy()
    for fitted, split in zip(SpyTransformer.fitted_on, splits):
        assert np.array_equal(np.sort(fitted), np.sort(labels[split.train]))
        assert not set(fitted) & set(labels[split.test])
    # the test fold is only transformed, never fitted
    test_sets = [set(labels[s.test]) for s in splits]
    applied_test = [set(a) for a in SpyTransformer.applied_to if set(a) in test_sets]
    assert len(applied_test) >= len(splits)
    assert cvp.folds["n_train"].tolist() == [len(s.train) for s in splits]


def test_build_pipeline_clones():
    est = GaussianNB()
    pipe = build_pipeline(est, SpyTransformer())
    assert pipe.steps[-1][1] is not est
    assert build_pipeline(est, None) is not est
    assert build_pipeline(est, "none").__class__ is GaussianNB
    with pytest.raises(ValueError, match="unknown discretizer"):
        build_pipeline(est, "bogus")


def test_named_discretizers_resolve():
    pytest.importorskip("bnclf.encoding")
    from bnclf.encoding._discretize import MDLDiscretizer, QuantileDiscretizer

    assert isinstance(build_pipeline(GaussianNB(), "mdl").steps[0][1], MDLDiscretizer)
    assert isinstance(build_pipeline(GaussianNB(), "quantile").steps[0][1], QuantileDiscretizer)


def test_folds_stratified_and_reproducible(data):
    _, y = data
    splits = make_cv_splits(y, n_splits=10, n_repeats=3, random_state=42)
    assert len(splits) == 30
    counts = pd.Series(y).value_counts()
    for s in splits:
        test_counts = pd.Series(y[s.test]).value_counts().reindex(counts.index, fill_value=0)
        # each class is spread as evenly as possible over the folds
        assert np.all(np.abs(test_counts - counts / 10) < 1)
    again = make_cv_splits(y, n_splits=10, n_repeats=3, random_state=42)
    assert all(np.array_equal(a.test, b.test) for a, b in zip(splits, again))
    other = make_cv_splits(y, n_splits=10, n_repeats=3, random_state=43)
    assert not all(np.array_equal(a.test, b.test) for a, b in zip(splits, other))
    # repeats differ from each other; the first repeat equals the 1 x k CV of the same seed
    assert not np.array_equal(splits[0].test, splits[10].test)
    single = make_cv_splits(y, n_splits=10, n_repeats=1, random_state=42)
    assert all(np.array_equal(a.test, b.test) for a, b in zip(single, splits[:10]))


def test_predictions_cover_every_row_once_per_repeat(data):
    X, y = data
    cvp = cross_validate_predictions(GaussianNB(), X, y, n_splits=5, n_repeats=3, random_state=0)
    pred = cvp.predictions
    assert len(pred) == 3 * len(y)
    for r in range(3):
        rows = pred.loc[pred["repeat"] == r, "row"].to_numpy()
        assert np.array_equal(np.sort(rows), np.arange(len(y)))
    assert np.array_equal(pred["y_true"].to_numpy(), np.tile(y, 3))
    assert np.array_equal(pred["index"].to_numpy(), np.tile(X.index.to_numpy(), 3))
    assert cvp.proba.shape == (3 * len(y), 3)
    assert np.allclose(cvp.proba.sum(axis=1), 1.0)
    assert list(cvp.classes) == ["a", "b", "c"]
    # predicted label = argmax probability
    assert np.array_equal(cvp.classes[cvp.proba.argmax(axis=1)], pred["y_pred"].to_numpy())


def test_predictions_match_direct_fit(data):
    X, y = data
    cvp = cross_validate_predictions(GaussianNB(), X, y, n_splits=4, random_state=1)
    for s in make_cv_splits(y, n_splits=4, random_state=1):
        model = GaussianNB().fit(X.iloc[s.train], y[s.train])
        got = cvp.predictions.set_index("row").loc[s.test]
        assert np.array_equal(got["y_pred"].to_numpy(), model.predict(X.iloc[s.test]))
        assert (got["fold"] == s.fold).all()


def test_fold_scores(data):
    X, y = data
    cvp = cross_validate_predictions(GaussianNB(), X, y, n_splits=5, n_repeats=2, random_state=0)
    fs = cvp.fold_scores()
    assert len(fs) == 10
    assert set(fs.columns) >= {
        "repeat",
        "fold",
        "zero_one_loss",
        "accuracy",
        "log_loss",
        "auc",
        "n_train",
        "n_test",
        "fit_time",
        "predict_time",
    }
    oof = cvp.oof(0)
    sel = oof["fold"] == 2
    expected = m.zero_one_loss(oof.loc[sel, "y_true"], oof.loc[sel, "y_pred"])
    got = fs[(fs["repeat"] == 0) & (fs["fold"] == 2)]["zero_one_loss"].item()
    assert got == pytest.approx(expected)
    assert (fs["zero_one_loss"] + fs["accuracy"]).tolist() == pytest.approx([1.0] * 10)
    custom = cvp.fold_scores({"n_wrong": lambda yt, yp, p, c: np.sum(yt != yp)})
    assert (custom["n_wrong"] == fs["zero_one_loss"] * fs["n_test"]).all()


def test_bias_variance_from_repeats(data):
    X, y = data
    cvp = cross_validate_predictions(GaussianNB(), X, y, n_splits=3, n_repeats=4, random_state=0)
    bv = cvp.bias_variance()
    mat = cvp.prediction_matrix()
    assert mat.shape == (4, len(y))
    assert bv.loss == pytest.approx(np.mean(mat != y[None, :]))
    assert bv.bias + bv.variance == pytest.approx(bv.loss)
    assert bv.variance > 0


def test_parallel_equals_serial(data):
    X, y = data
    a = cross_validate_predictions(GaussianNB(), X, y, n_splits=4, random_state=0, n_jobs=1)
    b = cross_validate_predictions(GaussianNB(), X, y, n_splits=4, random_state=0, n_jobs=2, verbose=1)
    pd.testing.assert_frame_equal(a.predictions, b.predictions)
    assert np.allclose(a.proba, b.proba)


def test_missing_class_in_training_fold():
    # class "c" has one member: the model of the fold that tests it never saw "c";
    # its probability column is then 0 and the metrics stay finite
    X = pd.DataFrame({"u": np.arange(11.0)})
    y = np.array(["a"] * 5 + ["b"] * 5 + ["c"])
    cvp = cross_validate_predictions(GaussianNB(), X, y, n_splits=3, random_state=0)
    assert cvp.proba.shape == (11, 3)
    row_c = cvp.predictions["y_true"] == "c"
    assert cvp.proba[row_c.to_numpy(), 2].tolist() == [0.0]
    fs = cvp.fold_scores()
    assert np.isfinite(fs[["zero_one_loss", "log_loss", "auc"]].to_numpy()).all()


def test_errors_name_the_fold(data):
    X, y = data

    class Broken(GaussianNB):
        def fit(self, X, y):
            raise ValueError("boom")

    with pytest.raises(RuntimeError, match="repeat 0 fold 0: ValueError: boom"):
        cross_validate_predictions(Broken(), X, y, n_splits=3)


def test_multilabel_stratified_on_least_relevant_label():
    rng = np.random.default_rng(0)
    n = 100
    Y = np.column_stack([rng.random(n) < 0.5, rng.random(n) < 0.4, np.zeros(n, bool)]).astype(int)
    Y[rng.choice(n, 10, replace=False), 2] = 1  # label 2 is relevant for 10 instances only
    assert least_relevant_label(Y) == 2
    splits = multilabel_cv_splits(Y, n_splits=5, random_state=0)
    for s in splits:
        assert Y[s.test, 2].sum() == 2  # 10 positives spread evenly over 5 folds
    X = pd.DataFrame({"f0": rng.normal(Y[:, 0], 1), "f1": rng.normal(Y[:, 1], 1)})
    res = cross_validate_multilabel(MultiOutputClassifier(GaussianNB()), X, Y, n_splits=5)
    assert res.Y_pred.shape == Y.shape
    assert sorted(res.rows["row"]) == list(range(n))
    order = np.argsort(res.rows["row"].to_numpy())
    assert np.array_equal(res.Y_true[order], Y)
    s = res.scores()
    assert 0 <= s["global_accuracy"] <= s["hamming_accuracy"] <= 1
    assert res.folds["hamming_accuracy"].mean() == pytest.approx(s["hamming_accuracy"])


def test_input_validation(data):
    X, y = data
    with pytest.raises(ValueError, match="rows"):
        cross_validate_predictions(GaussianNB(), X.iloc[:10], y)
    with pytest.raises(ValueError, match="n_splits"):
        make_cv_splits(y, n_splits=1)


def test_shared_fold_coding_gives_the_models_of_the_raw_columns():
    """The harness makes a fold's discrete columns categorical once for every bnclf
    classifier: models and predictions equal those fitted on the raw columns, unseen
    test values stay unseen (not missing), and many-valued integer and float columns
    are left to the encoder."""
    from bnclf import KDBClassifier, NaiveBayesClassifier, TANClassifier
    from bnclf.evaluation._protocols import shared_categories

    rng = np.random.default_rng(5)
    n = 240
    y = rng.choice(["p", "q", "r"], n)
    X = pd.DataFrame(
        {
            "s": pd.Series(rng.choice(["b", "a", "c", None], n), dtype=object),
            "i": rng.integers(0, 4, n),
            "t": rng.choice([True, False], n),
            "many": rng.integers(0, 40, n),
        }
    )
    X.loc[X.index[-5:], "s"] = "only-in-test"
    train, test = np.arange(n - 40), np.arange(n - 40, n)
    X_tr, X_te = shared_categories(X.iloc[train], X.iloc[test])
    assert isinstance(X_tr["s"].dtype, pd.CategoricalDtype) and "only-in-test" in X_te["s"].cat.categories
    assert X_tr["many"].dtype == X["many"].dtype  # a quantity: left as it is
    assert X_te["s"].isna().sum() == X["s"].iloc[test].isna().sum()  # unseen is not missing
    for make in (
        NaiveBayesClassifier,
        TANClassifier,
        lambda: KDBClassifier(k=2),
        lambda: NaiveBayesClassifier(missing="ignore"),
    ):
        with pytest.warns(UserWarning, match="many"):
            raw = make().fit(X.iloc[train], y[train])
        with pytest.warns(UserWarning, match="many"):
            shared = make().fit(X_tr, y[train])
        for a, b in zip(raw.network_.log_cpts, shared.network_.log_cpts):
            assert np.array_equal(a, b)
        assert np.array_equal(raw.predict_proba(X.iloc[test]), shared.predict_proba(X_te))


def test_predictions_match_direct_fit_bnclf():
    from bnclf import TANClassifier
    from bnclf.datasets import load_dataset

    X, y = load_dataset("soybean")
    y = np.asarray(y)
    cvp = cross_validate_predictions(TANClassifier(), X.astype(object), y, n_splits=3, random_state=2, discretizer=None)
    for s in make_cv_splits(y, n_splits=3, random_state=2):
        model = TANClassifier().fit(X.astype(object).iloc[s.train], y[s.train])
        got = cvp.predictions.set_index("row").loc[s.test]
        assert np.array_equal(got["y_pred"].to_numpy(), model.predict(X.astype(object).iloc[s.test]))
        proba = model.predict_proba(X.astype(object).iloc[s.test])
        columns = [list(cvp.classes).index(c) for c in model.classes_]
        np.testing.assert_allclose(cvp.proba[s.test][:, columns], proba, rtol=0, atol=1e-12)
