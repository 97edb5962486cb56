"""``bnclf evaluate TRAIN --test TEST`` (Weka's ``-t``/``-T``), the accuracy ``bnclf predict``
prints when the rows carry the class, κ and the AUC's name in the report, and the warning
for classes with fewer rows than folds.

The oracle is the estimator fitted in Python on the training file (as ``bnclf fit`` builds
it: the MDL discretizer, then the classifier) and scored on the test file by scikit-learn's
metrics.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    hamming_loss,
    log_loss,
    precision_recall_fscore_support,
    roc_auc_score,
)
from sklearn.pipeline import make_pipeline

from bnclf import MDLDiscretizer, make_classifier
from bnclf.cli._main import main
from bnclf.datasets import load_dataset, load_multilabel_dataset, load_table
from bnclf.io._arff import write_arff
from bnclf.models import make_multilabel_classifier


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    """heart-c (2 classes) and soybean (19) in a training and a test file each; one test
    row of heart-c has a chest-pain type training never saw."""
    folder = tmp_path_factory.mktemp("train-test")
    out = {}
    for name, target, seed in (("heart-c", "num", 0), ("soybean", "class", 1)):
        X, y = load_dataset(name)
        table = X.assign(**{target: y})
        order = np.random.default_rng(seed).permutation(len(table))
        cut = int(0.65 * len(table))
        train, test = table.iloc[order[:cut]], table.iloc[order[cut:]].copy()
        if name == "heart-c":
            test["cp"] = test["cp"].astype(object)
            test.iloc[0, test.columns.get_loc("cp")] = "never_seen"
        train.to_csv(folder / f"{name}-train.csv", index=False)
        test.to_csv(folder / f"{name}-test.csv", index=False)
        out[name] = (folder / f"{name}-train.csv", folder / f"{name}-test.csv")
    return out


def _oracle(spec, train, test, random_state=None):
    """The model fitted in Python on the training file, its predictions on the test file."""
    X, y = load_table(train)
    X_test, y_test = load_table(test, y.name)
    estimator = make_classifier(spec)
    if random_state is not None:
        estimator.set_params(random_state=random_state)
    model = make_pipeline(MDLDiscretizer(), estimator).fit(X, y)
    return model, X_test, y_test.to_numpy()


@pytest.mark.parametrize("data", ["heart-c", "soybean"])
def test_test_file_scores_equal_scikit_learn_on_the_python_model(data, split, tmp_path, capsys):
    train, test = split[data]
    table_file, pred_file = tmp_path / "table.csv", tmp_path / "pred.csv"
    argv = ["evaluate", str(train), "--test", str(test), "--models", "nb,tan,rmcv", "-o", str(table_file)]
    assert main([*argv, "--predictions", str(pred_file)]) is None
    out = capsys.readouterr().out
    assert f"tested on {test}" in out and "± std" not in out and out.count("test confusion matrix") == 3
    assert ("AUC (M)" in out and "Hand and Till" in out) == (data == "soybean")
    table = pd.read_csv(table_file).set_index("model")
    predictions = pd.read_csv(pred_file)
    for spec in ("nb", "tan", "rmcv"):
        # --seed defaults to 0, which seeds RMCV's search
        model, X_test, y_test = _oracle(spec, train, test, random_state=0 if spec == "rmcv" else None)
        y_pred, proba = model.predict(X_test), model.predict_proba(X_test)
        classes = list(model.classes_)
        row = table.loc[spec]
        assert row["accuracy"] == pytest.approx(accuracy_score(y_test, y_pred))
        assert row["kappa"] == pytest.approx(cohen_kappa_score(y_test, y_pred))
        # a zero probability (rmcv's m=0) costs -log(1e-15), bnclf's documented clip
        clipped = np.clip(proba, 1e-15, 1)
        assert row["log_loss"] == pytest.approx(
            log_loss(y_test, clipped / clipped.sum(1, keepdims=True), labels=classes)
        )
        present = [c in set(y_test) for c in classes]
        if len(classes) == 2:
            expected_auc = roc_auc_score(y_test, proba[:, 1])
        else:  # Hand and Till's M over the classes the test rows have (scikit-learn's one-vs-one)
            kept = np.isin(y_test, np.array(classes)[present])
            expected_auc = roc_auc_score(
                y_test[kept], proba[kept][:, present], multi_class="ovo", labels=np.array(classes)[present]
            )
        assert row["auc"] == pytest.approx(expected_auc)
        part = predictions[predictions["model"] == spec]
        assert part["y_pred"].astype(str).tolist() == [str(v) for v in y_pred]
        np.testing.assert_allclose(part[[f"P({c})" for c in classes]].to_numpy(), proba, rtol=1e-12)
        # the printed confusion matrix and per-class scores are scikit-learn's
        matrix = confusion_matrix(y_test, y_pred, labels=classes)
        block = out.split(f"{spec}: test confusion matrix (rows: true class)")[1]
        first_row = block.splitlines()[3].split()
        assert [int(v) for v in first_row[1:]] == matrix[0].tolist()
        p, r, f, n = precision_recall_fscore_support(y_test, y_pred, labels=classes, zero_division=0)
        first_class = next(line for line in block.split("support")[1].splitlines() if line.startswith(str(classes[0])))
        assert [float(v) for v in first_class.split()[-4:]] == pytest.approx([p[0], r[0], f[0], n[0]], abs=5e-5)


def test_a_value_training_never_saw_is_summed_out_as_at_predict_time(split, tmp_path, capsys):
    train, test = split["heart-c"]
    model, X_test, _ = _oracle("tan", train, test)
    assert "never_seen" in set(X_test["cp"].astype(str))
    assert (
        main(["evaluate", str(train), "--test", str(test), "--models", "tan", "--predictions", str(tmp_path / "p.csv")])
        is None
    )
    part = pd.read_csv(tmp_path / "p.csv")
    np.testing.assert_allclose(
        part.iloc[0][[f"P({c})" for c in model.classes_]].astype(float), model.predict_proba(X_test)[0]
    )
    # ... and equal to what fit + predict give
    assert main(["fit", str(train), "--model", "tan", "-o", str(tmp_path / "m.bnclf")]) is None
    assert main(["predict", str(tmp_path / "m.bnclf"), str(test), "--proba", "-o", str(tmp_path / "q.csv")]) is None
    np.testing.assert_allclose(
        pd.read_csv(tmp_path / "q.csv")[[f"P({c})" for c in model.classes_]].to_numpy(),
        part[[f"P({c})" for c in model.classes_]].to_numpy(),
    )


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--folds", "5"], "--folds is for cross-validation and --test scores"),
        (["--jobs", "2"], "--jobs is for cross-validation"),
        (["--folds", "5", "--jobs", "2"], "--folds and --jobs are for cross-validation"),
    ],
)
def test_fold_options_conflict_with_a_test_file(extra, message, split, capsys):
    train, test = split["heart-c"]
    assert main(["evaluate", str(train), "--test", str(test), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bnclf: error:") and message in err and "drop" in err


def test_a_test_file_without_the_training_columns_is_refused(split, tmp_path, capsys):
    train, test = split["heart-c"]
    pd.read_csv(test).drop(columns=["age"]).to_csv(tmp_path / "t.csv", index=False)
    assert main(["evaluate", str(train), "--test", str(tmp_path / "t.csv")]) == 2
    assert "lacks the feature columns ['age']" in capsys.readouterr().err
    pd.read_csv(test).drop(columns=["num"]).to_csv(tmp_path / "u.csv", index=False)
    assert main(["evaluate", str(train), "--test", str(tmp_path / "u.csv")]) == 2
    assert "num" in capsys.readouterr().err
    assert main(["evaluate", str(train), "--test", str(train), "--models", "nb", "--brief"]) is None
    assert "is the training file" in capsys.readouterr().err


def test_a_class_only_the_test_file_has_counts_as_an_error(split, tmp_path, capsys):
    train, test = split["heart-c"]
    rows = pd.read_csv(test)
    rows.loc[:4, "num"] = "other"
    rows.to_csv(tmp_path / "t.csv", index=False)
    assert (
        main(
            ["evaluate", str(train), "--test", str(tmp_path / "t.csv"), "--models", "nb", "-o", str(tmp_path / "r.csv")]
        )
        is None
    )
    assert "class values the training rows lack: ['other']" in capsys.readouterr().err
    model, X_test, y_test = _oracle("nb", train, tmp_path / "t.csv")
    assert pd.read_csv(tmp_path / "r.csv")["accuracy"][0] == pytest.approx(
        accuracy_score(y_test, model.predict(X_test))
    )


def test_multilabel_test_file_scores_equal_the_python_model(tmp_path, capsys):
    X, Y = load_multilabel_dataset("emotions")
    write_arff(X.iloc[:400].join(Y.iloc[:400]), tmp_path / "train.arff", relation="emo-train")
    X.iloc[400:].join(Y.iloc[400:]).to_csv(tmp_path / "test.csv", index=False)  # labels found by name
    argv = ["evaluate", str(tmp_path / "train.arff"), "--n-labels", "6", "--test", str(tmp_path / "test.csv")]
    assert main([*argv, "--models", "mnb,br", "-o", str(tmp_path / "r.csv")]) is None
    assert "tested on" in capsys.readouterr().out
    table = pd.read_csv(tmp_path / "r.csv").set_index("model")
    for spec in ("mnb", "br"):
        model = make_multilabel_classifier(spec).fit(X.iloc[:400], Y.iloc[:400])
        Y_pred, Y_true = model.predict(X.iloc[400:]), Y.iloc[400:].to_numpy()
        assert table.loc[spec, "global_accuracy"] == pytest.approx(accuracy_score(Y_true, Y_pred))
        assert table.loc[spec, "hamming_accuracy"] == pytest.approx(1 - hamming_loss(Y_true, Y_pred))
        assert np.isnan(table.loc[spec, "global_accuracy_std"])
    assert main([*argv, "--folds", "3"]) == 2


def test_predict_reports_the_accuracy_when_the_rows_have_the_class(split, tmp_path, capsys):
    train, test = split["soybean"]
    model_file = str(tmp_path / "m.bnclf")
    assert main(["fit", str(train), "--model", "nb", "-o", model_file]) is None
    capsys.readouterr()
    model, X_test, y_test = _oracle("nb", train, test)
    expected = accuracy_score(y_test, model.predict(X_test))
    assert main(["predict", model_file, str(test), "-o", str(tmp_path / "p.csv")]) is None
    out = capsys.readouterr().out
    right = int(round(expected * len(y_test)))
    assert f"accuracy on the {len(y_test)} rows with a 'class' value: {expected:.4f} ({right} of {len(y_test)})" in out
    assert main(["predict", model_file, str(test)]) is None  # predictions on stdout: the accuracy on stderr
    captured = capsys.readouterr()
    assert "accuracy" in captured.err and "accuracy" not in captured.out
    assert len(pd.read_csv(pd.io.common.StringIO(captured.out))) == len(y_test)
    pd.read_csv(test).drop(columns=["class"]).to_csv(tmp_path / "rows.csv", index=False)
    assert main(["predict", model_file, str(tmp_path / "rows.csv"), "-o", str(tmp_path / "p.csv")]) is None
    assert "the rows have no 'class' column; with it predict also prints the accuracy" in capsys.readouterr().out


def test_predict_reports_multilabel_accuracies(tmp_path, capsys):
    X, Y = load_multilabel_dataset("emotions")
    X.iloc[:300].join(Y.iloc[:300]).to_csv(tmp_path / "train.csv", index=False)
    X.iloc[300:].join(Y.iloc[300:]).to_csv(tmp_path / "test.csv", index=False)
    model_file = str(tmp_path / "m.bnclf")
    assert main(["fit", str(tmp_path / "train.csv"), "--n-labels", "6", "-o", model_file]) is None
    assert main(["predict", model_file, str(tmp_path / "test.csv"), "-o", str(tmp_path / "p.csv")]) is None
    Y_pred = make_multilabel_classifier("mnb").fit(X.iloc[:300], Y.iloc[:300]).predict(X.iloc[300:])
    out = capsys.readouterr().out
    assert f"global accuracy {accuracy_score(Y.iloc[300:].to_numpy(), Y_pred):.4f}" in out
    assert f"Hamming accuracy {1 - hamming_loss(Y.iloc[300:].to_numpy(), Y_pred):.4f}" in out


def test_a_class_with_fewer_rows_than_folds_is_warned_about(tmp_path, capsys):
    X, y = load_dataset("heart-c")
    y = y.astype(object).copy()
    y.iloc[:2] = "rare"  # like nursery's 'recommend': 2 rows
    X.assign(num=y).to_csv(tmp_path / "rare.csv", index=False)
    assert (
        main(["evaluate", str(tmp_path / "rare.csv"), "--models", "nb", "--folds", "5", "--no-progress", "--brief"])
        is None
    )
    err = capsys.readouterr().err
    assert "bnclf: warning: class 'rare' (2 rows) has fewer rows than the 5 folds" in err and "--folds 2" in err
    status = main(
        [
            "compare",
            "--datasets",
            str(tmp_path / "rare.csv"),
            "--classifiers",
            "nb",
            "tan",
            "--folds",
            "3",
            "--no-progress",
        ]
    )
    assert status == 0
    assert "warning: rare: class 'rare' (2 rows) has fewer rows than the 3 folds" in capsys.readouterr().err
    assert (
        main(["evaluate", str(tmp_path / "rare.csv"), "--models", "nb", "--folds", "2", "--no-progress", "--brief"])
        is None
    )
    assert "fewer rows than" not in capsys.readouterr().err
