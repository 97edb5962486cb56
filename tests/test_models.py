"""Estimators against independent answers: pgmpy exact inference and scikit-learn."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from bnclf import KDBClassifier, NaiveBayesClassifier, TANClassifier, make_classifier
from bnclf.io._pgmpy import variable_elimination

ESTIMATORS = [NaiveBayesClassifier(), TANClassifier(), KDBClassifier(k=2), KDBClassifier(k=3)]
IDS = ["nb", "tan", "kdb2", "kdb3"]


def pgmpy_posterior(est, row: pd.Series, infer=None):
    """P(class | observed features of row) by pgmpy VariableElimination."""
    infer = infer or variable_elimination(est.to_pgmpy())
    evidence = {k: v for k, v in row.items() if not pd.isna(v)}
    factor = infer.query([est.class_name_], evidence=evidence, show_progress=False)
    states = factor.state_names[est.class_name_]
    return np.array([factor.values[states.index(c)] for c in est.classes_])


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_predict_proba_equals_pgmpy_variable_elimination(est, soybean):
    X, y = soybean  # 19 classes, missing values as a state of their own
    est = clone(est).fit(X, y)
    infer = variable_elimination(est.to_pgmpy())
    rows = np.random.default_rng(1).choice(len(X), 12, replace=False)
    ours = est.predict_proba(X.iloc[rows])
    for r, i in enumerate(rows):
        row = X.iloc[i].astype(object).where(X.iloc[i].notna(), "<missing>")
        np.testing.assert_allclose(ours[r], pgmpy_posterior(est, row, infer), atol=1e-9)


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_missing_and_unseen_values_are_marginalized_exactly(est, krkp):
    X, y = krkp
    est = clone(est).fit(X.iloc[:2000], y.iloc[:2000])
    infer = variable_elimination(est.to_pgmpy())
    rng = np.random.default_rng(7)
    test = X.iloc[2000:2016].astype(object).copy()
    for r in range(len(test)):
        hide = rng.choice(X.shape[1], size=r % 6 + 1, replace=False)
        for j in hide[: len(hide) // 2 + 1]:
            test.iat[r, j] = np.nan
        for j in hide[len(hide) // 2 + 1 :]:
            test.iat[r, j] = "never-seen"
    ours = est.predict_proba(test)
    for r in range(len(test)):
        row = test.iloc[r].where(test.iloc[r] != "never-seen", np.nan)
        np.testing.assert_allclose(ours[r], pgmpy_posterior(est, row, infer), atol=1e-9)


def test_marginalizing_everything_gives_the_prior(krkp):
    X, y = krkp
    est = TANClassifier().fit(X, y)
    blank = pd.DataFrame([[np.nan] * X.shape[1]], columns=X.columns)
    counts = y.astype(str).value_counts().reindex(est.classes_).to_numpy()
    np.testing.assert_allclose(est.predict_proba(blank)[0], (counts + 0.5) / (len(y) + 1))


def test_handle_unknown_error_names_the_column(krkp):
    X, y = krkp
    est = NaiveBayesClassifier(handle_unknown="error").fit(X, y)
    bad = X.iloc[:2].astype(object).copy()
    bad.iat[0, 3] = "zzz"
    with pytest.raises(ValueError, match=f"column '{X.columns[3]}'.*never seen"):
        est.predict(bad)
    bad = X.iloc[:2].astype(object).copy()
    bad.iat[1, 4] = np.nan
    with pytest.raises(ValueError, match=f"column '{X.columns[4]}'.*missing"):
        est.predict(bad)


def test_naive_bayes_equals_categorical_nb(krkp):
    X, y = krkp
    binary = [c for c in X.columns if len(X[c].cat.categories) == 2]
    Xb = X[binary]
    codes = OrdinalEncoder(categories=[list(Xb[c].cat.categories) for c in binary]).fit_transform(Xb)
    counts = y.value_counts().reindex(sorted(y.unique())).to_numpy()
    for m, alpha in [(1.0, 0.5), (4.0, 2.0), (0.0, 1e-10)]:
        ours = NaiveBayesClassifier(m=m).fit(Xb, y)
        prior = (counts + m / 2) / (counts.sum() + m)  # the m-estimated class prior, by formula
        ref = CategoricalNB(alpha=alpha, force_alpha=True, class_prior=prior).fit(codes, y)
        np.testing.assert_allclose(ours.predict_proba(Xb), ref.predict_proba(codes), atol=1e-9)
        assert (ours.predict(Xb) == ref.predict(codes)).all()


def test_naive_bayes_ml_equals_categorical_nb_with_mixed_cardinalities(soybean):
    X, y = soybean
    X = X.fillna(X.mode().iloc[0])  # no missing: CategoricalNB cannot have them
    codes = OrdinalEncoder().fit_transform(X.astype(str))
    counts = y.value_counts().reindex(sorted(y.unique())).to_numpy()
    ours = NaiveBayesClassifier(m=0).fit(X.astype(str), y)
    ref = CategoricalNB(alpha=1e-10, force_alpha=True, class_prior=counts / counts.sum()).fit(codes, y)
    # maximum likelihood: unseen (value, class) pairs get probability 0 here and
    # ~1e-10 there, so posteriors agree to ~1e-8
    np.testing.assert_allclose(ours.predict_proba(X.astype(str)), ref.predict_proba(codes), atol=1e-7)
    assert (ours.predict(X.astype(str)) == ref.predict(codes)).all()


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_pickle_clone_and_determinism(est, krkp):
    X, y = krkp
    a = clone(est).fit(X, y)
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict_proba(X[:50]), b.predict_proba(X[:50]))
    c = clone(a).fit(X, y)
    assert sorted(c.dag_.edges) == sorted(a.dag_.edges)
    np.testing.assert_array_equal(a.predict_proba(X[:50]), c.predict_proba(X[:50]))
    assert clone(a).get_params() == est.get_params()


def test_fitted_attributes(krkp):
    X, y = krkp
    est = KDBClassifier(k=2).fit(X, y)
    assert est.n_features_in_ == 36 and list(est.feature_names_in_) == list(X.columns)
    assert list(est.classes_) == sorted(y.unique())
    assert est.dag_.number_of_nodes() == 37 and est.class_name_ == "class"
    for child, parents in est.families_.items():
        table = np.exp(est.log_cpts_[child])
        assert table.shape[0] == len(est.categories_[child])
        assert table.shape[1:] == tuple(len(est.categories_[p]) for p in parents)
        np.testing.assert_allclose(table.sum(axis=0), 1.0)
        assert set(parents) == set(est.dag_.predecessors(child))
    assert max(len(p) for c, p in est.families_.items() if c != "class") == 3  # k=2 + class


def test_to_pgmpy_uses_original_labels(krkp):
    X, y = krkp
    model = TANClassifier().fit(X, y).to_pgmpy()
    cpd = model.get_cpds("class")
    assert sorted(cpd.state_names["class"]) == sorted(y.unique())
    assert model.get_cpds(X.columns[0]).state_names[X.columns[0]] == list(X[X.columns[0]].cat.categories)
    assert type(model).__name__ == "DiscreteBayesianNetwork"


def test_pipelines_and_cross_validation(krkp):
    X, y = krkp
    scores = cross_val_score(make_pipeline(TANClassifier()), X, y, cv=3)
    assert scores.mean() > 0.85


def test_numpy_input_and_integer_categories():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 5))
    y = (X[:, 0] + X[:, 1] > 3).astype(int)
    est = TANClassifier().fit(X, y)
    assert not hasattr(est, "feature_names_in_")
    assert est.score(X, y) > 0.9
    assert list(est.dag_.nodes)[:2] == ["x0", "x1"]


def test_make_classifier_specs():
    assert make_classifier("kdb(k=3)").k == 3
    assert make_classifier("TAN(root=2, m=0)").get_params()["root"] == 2
    with pytest.raises(ValueError, match="Unknown classifier 'svm'"):
        make_classifier("svm")
    with pytest.raises(ValueError, match="no parameter"):
        make_classifier("nb(k=2)")


@pytest.mark.parametrize(
    "est, match",
    [
        (NaiveBayesClassifier(m=-1), "m=-1 is not valid"),
        (KDBClassifier(k=-2), "k=-2 is not valid"),
        (KDBClassifier(k=1.5), "k=1.5 is not valid"),
        (TANClassifier(root="nope"), "root='nope' is not a feature"),
        (TANClassifier(root=99), "root=99 is not a feature"),
        (NaiveBayesClassifier(missing="drop"), "missing='drop' is not valid"),
        (NaiveBayesClassifier(handle_unknown="ignore"), "handle_unknown='ignore' is not valid"),
    ],
)
def test_bad_parameters_are_named(est, match, krkp):
    X, y = krkp
    with pytest.raises(ValueError, match=match):
        est.fit(X.iloc[::30], y.iloc[::30])


def test_bad_data_errors():
    X = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [0.1, 2.7, 3.3, 1.2]})
    y = pd.Series(["p", "q", "p", "q"])
    with pytest.raises(ValueError, match=r"column 'b' looks continuous.*MDLDiscretizer"):
        NaiveBayesClassifier().fit(X, y)
    X = X[["a"]]
    with pytest.raises(ValueError, match="missing labels"):
        NaiveBayesClassifier().fit(X, pd.Series(["p", None, "p", "q"]))
    with pytest.raises(ValueError, match="only one class"):
        NaiveBayesClassifier().fit(X, ["p"] * 4)
    with pytest.raises(ValueError, match="0 samples"):
        NaiveBayesClassifier().fit(X.iloc[:0], [])
    with pytest.raises(ValueError, match="X has 4 rows but y has 3"):
        NaiveBayesClassifier().fit(X, ["p", "q", "p"])
    est = NaiveBayesClassifier().fit(X, y)
    with pytest.raises(ValueError, match=r"missing \['a'\], unexpected \['c'\]"):
        est.predict(pd.DataFrame({"c": ["x"]}))
    with pytest.raises(ValueError, match="X has 2 features, but NaiveBayesClassifier is expecting 1"):
        est.predict(np.array([["x", "y"]]))
    with pytest.raises(ValueError, match="missing values and missing='error'"):
        NaiveBayesClassifier(missing="error").fit(pd.DataFrame({"a": ["x", None, "y", "x"]}), y)


def test_missing_ignore_uses_available_cases():
    X = pd.DataFrame({"a": ["x", None, "y", "x", "y", "y"]})
    y = ["p", "p", "q", "p", "q", "q"]
    est = NaiveBayesClassifier(missing="ignore", m=0).fit(X, y)
    # P(a | p) from the two observed p rows only: both 'x'
    np.testing.assert_allclose(np.exp(est.log_cpts_["a"][:, 0]), [1.0, 0.0])
    assert est.categories_["a"] == ["x", "y"]
    # predict-time missing is summed out: the posterior is the prior
    np.testing.assert_allclose(est.predict_proba(pd.DataFrame({"a": [None]}))[0], [0.5, 0.5])


def test_missing_category_is_used_at_predict_time():
    X = pd.DataFrame({"a": ["x", None, None, "y", "y", "y"]})
    y = ["p", "p", "p", "q", "q", "q"]
    est = NaiveBayesClassifier().fit(X, y)
    assert est.categories_["a"] == ["x", "y", "<missing>"]
    assert est.predict(pd.DataFrame({"a": [None]}))[0] == "p"


def test_mixed_type_labels_give_one_dimensional_classes():
    X = pd.DataFrame({"a": ["x", "y", "x", "y"]})
    est = NaiveBayesClassifier().fit(X, np.array([1, "a", 1, "a"], dtype=object))
    assert est.classes_.shape == (2,) and est.predict(X).shape == (4,)
    assert list(est.predict(X)) == [1, "a", 1, "a"]
    est.to_pgmpy()


def test_many_unknown_features_are_summed_out_exactly():
    # a 60-feature noisy chain: with only the last feature observed, 59 unknowns must be
    # summed out along the whole tree
    rng = np.random.default_rng(0)
    n, d = 600, 60
    y = rng.integers(0, 2, n)
    cols = [np.where(rng.random(n) < 0.8, y, 1 - y)]
    for _ in range(d - 1):
        cols.append(np.where(rng.random(n) < 0.85, cols[-1], rng.integers(0, 2, n)))
    X = pd.DataFrame(np.column_stack(cols)).add_prefix("f")
    est = TANClassifier(root="f0").fit(X, y)
    test = pd.DataFrame(
        [[np.nan] * (d - 1) + [1], [1] + [np.nan] * (d - 1), [np.nan if j % 3 else 0 for j in range(d)]],
        columns=X.columns,
    )
    infer = variable_elimination(est.to_pgmpy())
    ours = est.predict_proba(test)
    for r in range(len(test)):
        np.testing.assert_allclose(ours[r], pgmpy_posterior(est, test.iloc[r], infer), atol=1e-9)


def test_all_missing_categorical_column_is_summed_out():
    X = pd.DataFrame({"a": pd.Categorical(list("xyxy")), "b": list("ppqq")})
    est = TANClassifier().fit(X, [0, 1, 1, 0])
    blank_a = pd.DataFrame({"a": pd.Series([np.nan], dtype="category"), "b": ["p"]})
    np.testing.assert_allclose(
        est.predict_proba(blank_a), est.predict_proba(blank_a[["b"]].assign(a=np.nan)[["a", "b"]])
    )
    np.testing.assert_allclose(est.predict_proba(blank_a)[0], pgmpy_posterior(est, pd.Series({"b": "p"})))


def test_integer_column_names_are_matched_by_name(soybean):
    X, y = soybean
    X = X.set_axis(range(X.shape[1]), axis=1)
    est = KDBClassifier().fit(X, y)
    shuffled = X[X.columns[::-1]]
    np.testing.assert_array_equal(est.predict_proba(shuffled[:50]), est.predict_proba(X[:50]))


def test_tan_root_resolves_integer_column_names_by_name_first():
    import warnings

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, size=(60, 4)), columns=[3, 1, 2, 0]).astype(str)
    y = rng.integers(0, 2, 60)
    with pytest.warns(UserWarning, match="both a column name and a position"):
        named = TANClassifier(root=0).fit(X, y)
    assert named.families_[0] == ("class",)  # the column named 0 (position 3) is the root
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        by_name = TANClassifier(root=2).fit(X, y)  # name 2 is at position 2: no ambiguity
    assert by_name.families_[2] == ("class",)
