"""A feature column absent at predict: ``missing_columns="marginalize"`` sums it out.
Oracle: the same rows with that column present and empty."""

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

from bnclf import AODEClassifier, KDBClassifier, NaiveBayesClassifier, TANClassifier
from bnclf.cli._main import main
from bnclf.datasets import load_dataset

COLUMNS = ["sex", "cp", "fbs", "restecg", "exang", "slope", "ca", "thal"]  # ca and thal have missing cells
METHODS = ["predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"]


@pytest.fixture(scope="module")
def heart():
    X, y = load_dataset("heart-c")
    return X, y


@pytest.mark.parametrize(
    "make",
    [TANClassifier, NaiveBayesClassifier, AODEClassifier, lambda: KDBClassifier(k=2)],
    ids=["tan", "nb", "aode", "kdb2"],
)
@pytest.mark.parametrize("absent", [["cp"], ["thal"], ["cp", "ca", "thal"]])
def test_an_absent_column_predicts_as_the_column_present_and_empty(heart, make, absent):
    X, y = heart
    X = X[COLUMNS]
    model = make().fit(X, y)
    assert "<missing>" in model.categories_["thal"]  # training had missing cells there: its state
    empty = X.assign(**{c: np.nan for c in absent})
    for method in METHODS:
        with pytest.warns(UserWarning, match="lacks the model's feature columns.*" + absent[0]):
            got = getattr(model, method)(X.drop(columns=absent), missing_columns="marginalize")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            want = getattr(model, method)(empty)
        np.testing.assert_array_equal(got, want)
    # the oracle is not vacuous: the absent columns change the posteriors
    assert not np.allclose(model.predict_proba(X), model.predict_proba(empty))


def test_the_default_is_scikit_learns_error_and_other_inputs_keep_theirs(heart):
    X, y = heart
    X = X[COLUMNS]
    model = TANClassifier().fit(X, y)
    for method in METHODS:
        signature = inspect.signature(getattr(model, method))
        assert signature.parameters["missing_columns"].default == "error"
        assert signature.parameters["missing_columns"].kind is inspect.Parameter.KEYWORD_ONLY
        assert 'missing_columns : {"error", "marginalize"}' in getattr(model, method).__doc__
        with pytest.raises(ValueError, match="X has 7 features"):
            getattr(model, method)(X.drop(columns=["cp"]))
    with pytest.raises(ValueError, match="missing_columns must be one of.*'sum'"):
        model.predict(X, missing_columns="sum")
    with pytest.raises(ValueError, match=r"unexpected \['colour'\]"):  # a column the model never had
        model.predict(X.drop(columns=["cp"]).assign(colour=1), missing_columns="marginalize")
    with pytest.raises(ValueError, match="X has 7 features"):  # an array has no names to go by
        model.predict(X.drop(columns=["cp"]).to_numpy(), missing_columns="marginalize")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing absent: no warning, the same predictions
        np.testing.assert_array_equal(model.predict(X, missing_columns="marginalize"), model.predict(X))


def _predict_cli(model, rows, out, capsys):
    capsys.readouterr()
    assert main(["predict", str(model), str(rows), "--proba", "-o", str(out)]) in (0, None)
    return out.read_text(), capsys.readouterr().err


@pytest.mark.parametrize(
    "spec, columns",
    [("tan", COLUMNS), ("nb", COLUMNS), ("aode", COLUMNS), ("kdb(k=2)", COLUMNS), ("tan", None)],
    ids=["tan", "nb", "aode", "kdb2", "tan-mdl-pipeline"],
)
def test_bnclf_predict_sums_out_an_absent_column_as_an_empty_one(heart, spec, columns, tmp_path, capsys):
    X, y = heart
    X = X if columns is None else X[columns]  # None: every column, the numeric ones through MDLDiscretizer
    train = tmp_path / "train.csv"
    X.assign(num=y).to_csv(train, index=False)
    model = tmp_path / "m.bnclf"
    main(["fit", str(train), "--class", "num", "--model", spec, "-o", str(model)])
    absent = ["thal", "cp"] + (["age"] if columns is None else [])
    X.drop(columns=absent).to_csv(tmp_path / "lacking.csv", index=False)
    X.assign(**{c: np.nan for c in absent}).to_csv(tmp_path / "empty.csv", index=False)
    got, err = _predict_cli(model, tmp_path / "lacking.csv", tmp_path / "got.csv", capsys)
    want, err_empty = _predict_cli(model, tmp_path / "empty.csv", tmp_path / "want.csv", capsys)
    assert got == want
    lines = [line for line in err.splitlines() if line.startswith("bnclf: warning:")]
    assert len(lines) == 1 and "lacking.csv" in lines[0] and all(f"'{c}'" in lines[0] for c in absent), err
    assert "lacks" not in err_empty
    full = pd.read_csv(tmp_path / "got.csv")
    assert len(full) == len(X)
