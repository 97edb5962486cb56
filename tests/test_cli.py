"""The bnclf command end to end, on real files."""

import numpy as np
import pandas as pd
import pytest

from bnclf.cli._main import main
from bnclf.datasets import dataset_path, load_dataset


@pytest.fixture(scope="module")
def heart_csv(tmp_path_factory):
    X, y = load_dataset("heart-c")
    path = tmp_path_factory.mktemp("cli") / "heart.csv"
    X.assign(num=y).to_csv(path, index=False)
    return path


def test_fit_predict_export_plot(heart_csv, tmp_path, capsys):
    model = tmp_path / "m.bnclf"
    main(["fit", str(heart_csv), "--class", "num", "--model", "kdb(k=1)", "-o", str(model)])
    assert model.exists()
    main(["predict", str(model), str(heart_csv), "--proba", "-o", str(tmp_path / "p.csv")])
    preds = pd.read_csv(tmp_path / "p.csv")
    assert len(preds) == 303 and list(preds.columns) == ["prediction", "P(<50)", "P(>50_1)"]
    truth = load_dataset("heart-c")[1].astype(str).to_numpy()
    assert (preds["prediction"].astype(str).to_numpy() == truth).mean() > 0.75
    main(["export", str(model), "-o", str(tmp_path / "m.bif")])
    main(["export", str(model), "-o", str(tmp_path / "m.xml")])
    main(["plot", str(model), "-o", str(tmp_path / "m.png")])
    assert (tmp_path / "m.bif").stat().st_size > 0 and (tmp_path / "m.png").stat().st_size > 1000
    assert "verified by reading it back" in capsys.readouterr().out


def test_evaluate_arff(tmp_path, capsys):
    main(["evaluate", str(dataset_path("iris")), "--folds", "5", "-o", str(tmp_path / "r.csv")])
    out = capsys.readouterr().out
    assert "5-fold stratified CV" in out and "tan" in out
    table = pd.read_csv(tmp_path / "r.csv")
    assert list(table["model"]) == ["nb", "tan", "kdb"] and (table["accuracy"] > 0.85).all()


def test_demo_writes_png_and_xmlbif(tmp_path, capsys):
    main(["demo", "--folds", "3", "-o", str(tmp_path / "demo")])
    out = capsys.readouterr().out
    assert "kr-vs-kp" in out and "kdb" in out
    for name in ("tan_structure.png", "tan.bifxml", "tan.bifxml.names.json", "cv_results.csv"):
        assert (tmp_path / "demo" / name).exists()


def test_errors_name_the_problem(heart_csv, tmp_path, capsys):
    cases = [
        (["fit", str(heart_csv), "--class", "nope"], "target column 'nope' is not a column"),
        (["fit", str(heart_csv), "--model", "svm"], "Unknown classifier 'svm'"),
        (["fit", str(tmp_path / "missing.csv")], "no such file"),
        (
            ["fit", str(heart_csv), "--class", "num", "--discretize", "none", "-o", str(tmp_path / "x.bnclf")],
            "looks continuous",
        ),
        (["fit", str(heart_csv), "--class", "num", "--model", "kdb(k=-1)"], "k=-1 is not valid"),
        (["export", str(tmp_path / "none.bnclf"), "-o", "x.bif"], "no such model file"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        lines = capsys.readouterr().err.splitlines()  # warnings (e.g. whole-number columns), then one error
        errors = [line for line in lines if line.startswith("bnclf: error:")]
        assert lines[-1] == errors[0] and len(errors) == 1 and message in errors[0], (argv, lines)
        assert all(line.startswith("bnclf: warning:") for line in lines[:-1]), lines


@pytest.mark.parametrize("command", ["fit", "predict", "evaluate", "export", "plot", "demo"])
def test_help_everywhere(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: bnclf" in capsys.readouterr().out


def test_models_with_several_parameters_and_an_empty_list(heart_csv, capsys):
    main(["evaluate", str(heart_csv), "--class", "num", "--folds", "3", "--models", "kdb(k=1, m=5),nb"])
    out = capsys.readouterr().out
    assert "kdb(k=1, m=5)" in out and "\nnb " in out
    assert main(["evaluate", str(heart_csv), "--class", "num", "--models", ""]) == 2
    assert "bnclf: error: --models is empty" in capsys.readouterr().err


def test_a_byte_order_mark_never_reaches_a_column_name(tmp_path):
    from bnclf.datasets import load_table

    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffa,b,class\nx,y,1\ny,x,0\n".encode("utf-8"))
    X, y = load_table(path)
    assert list(X.columns) == ["a", "b"] and y.name == "class"


def test_show_prints_structure_blanket_cuts_cpts_and_dot(tmp_path, capsys):
    import networkx as nx

    from bnclf.cli._main import main
    from bnclf.datasets import load_dataset
    from bnclf.io._models import load_model
    from bnclf.learn._restricted import markov_blanket

    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    path = str(tmp_path / "kdb.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "kdb(k=2)", "-o", path])
    capsys.readouterr()
    assert main(["show", path, "--cpt", "petalwidth"]) is None
    out = capsys.readouterr().out
    est = load_model(path)[-1]
    for child, parents in est.families_.items():
        assert f"  {child} <- {', '.join(parents) if parents else '(no parents)'}" in out
    # the Markov blanket against networkx's own definition
    g = est.dag_
    want = set(g.predecessors("class")) | set(g.successors("class"))
    for c in g.successors("class"):
        want |= set(g.predecessors(c))
    want.discard("class")
    assert markov_blanket(g, "class") == sorted(want)
    assert f"Markov blanket of class ({len(want)})" in out
    cuts = load_model(path)[0].cut_points_["petalwidth"]
    assert f"petalwidth: {', '.join(f'{p:.6g}' for p in cuts)}" in out
    # the CPT table: a column sums to one and equals exp(log_cpts_)
    table = np.exp(est.log_cpts_["petalwidth"]).reshape(len(cuts) + 1, -1)
    for value in np.round(table[:, 0], 4):
        assert f"{value:.4f}".rstrip("0").rstrip(".") in out
    assert main(["show", path, "--dot"]) is None
    dot = capsys.readouterr().out
    assert dot.startswith("digraph") and dot.count("->") == g.number_of_edges()
    assert main(["show", path, "--cpt", "nope"]) == 2
    assert "no such node" in capsys.readouterr().err
    assert main(["show", path, "--member", "0"]) == 2
    assert "one network" in capsys.readouterr().err
    assert nx.is_directed_acyclic_graph(g)


def test_show_multinet_member_and_instance_specific(tmp_path, capsys):
    from bnclf.cli._main import main
    from bnclf.datasets import load_dataset

    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    path = str(tmp_path / "b.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "bmccl", "-o", path])
    capsys.readouterr()
    assert main(["show", path, "--member", "Iris-setosa"]) is None
    out = capsys.readouterr().out
    assert "[class = Iris-setosa]" in out and "Iris-virginica]" not in out
    path = str(tmp_path / "l.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "lkdb", "-o", path])
    capsys.readouterr()
    assert main(["show", path]) is None
    assert "explain(row)" in capsys.readouterr().out


def test_evaluate_reports_metrics_confusion_and_writes_predictions(tmp_path, capsys):
    from sklearn.metrics import accuracy_score, cohen_kappa_score, log_loss, roc_auc_score

    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    out = tmp_path / "oof.csv"
    assert (
        main(
            [
                "evaluate",
                str(tmp_path / "iris.csv"),
                "--models",
                "nb,tan",
                "--folds",
                "5",
                "--predictions",
                str(out),
                "-o",
                str(tmp_path / "table.csv"),
            ]
        )
        is None
    )
    text = capsys.readouterr().out
    assert "log loss" in text and "AUC (M)" in text and "Hand and Till" in text and "kappa" in text
    assert text.count("out-of-fold confusion matrix") == 2 and "precision" in text
    oof = pd.read_csv(out)
    table = pd.read_csv(tmp_path / "table.csv")
    for spec in ("nb", "tan"):
        part = oof[oof["model"] == spec]
        assert sorted(part["row"]) == list(range(150))  # each row once, out of fold
        proba = part[[f"P({c})" for c in sorted(y.unique())]].to_numpy()
        np.testing.assert_allclose(proba.sum(axis=1), 1)
        row = table[table["model"] == spec].iloc[0]
        # the table's means are fold means; with equal folds they equal the pooled values
        assert row["accuracy"] == pytest.approx(accuracy_score(part["y_true"], part["y_pred"]))
        assert row["log_loss"] == pytest.approx(log_loss(part["y_true"], proba, labels=sorted(y.unique())), rel=1e-9)
        # kappa and the AUC (Hand and Till's M, scikit-learn's one-vs-one) are fold means too
        folds = part.groupby("fold")
        kappas = [cohen_kappa_score(f["y_true"], f["y_pred"]) for _, f in folds]
        assert row["kappa"] == pytest.approx(np.mean(kappas))
        aucs = [
            roc_auc_score(f["y_true"], f[[f"P({c})" for c in sorted(y.unique())]], multi_class="ovo") for _, f in folds
        ]
        assert row["auc"] == pytest.approx(np.mean(aucs))


def test_predict_carries_an_identifier_column(tmp_path, capsys):
    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    model = str(tmp_path / "m.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "nb", "-o", model])
    X.assign(rid=np.arange(1000, 1150)).to_csv(tmp_path / "rows.csv", index=False)
    out = tmp_path / "pred.csv"
    assert main(["predict", model, str(tmp_path / "rows.csv"), "--id", "rid", "-o", str(out)]) is None
    pred = pd.read_csv(out)
    assert list(pred.columns[:2]) == ["rid", "prediction"]
    assert pred["rid"].tolist() == list(range(1000, 1150))
    capsys.readouterr()
    assert main(["predict", model, str(tmp_path / "rows.csv"), "--id", "nope"]) == 2
    assert "--id 'nope'" in capsys.readouterr().err


def test_headerless_files_are_refused_with_the_fix_and_read_with_options(tmp_path, capsys):
    from bnclf.datasets import read_csv_table

    rows = (
        "39, State-gov, 77516, Bachelors, <=50K\n50, Self-emp, 83311, Bachelors, <=50K\n"
        "38, Private, 215646, HS-grad, >50K\n53, Private, 234721, 11th, >50K\n"
    )
    (tmp_path / "adult.data").write_text(rows)
    with pytest.raises(ValueError, match="looks like data.*--no-header"):
        read_csv_table(tmp_path / "adult.data")
    frame = read_csv_table(tmp_path / "adult.data", header=False)
    assert list(frame.columns) == ["x1", "x2", "x3", "x4", "class"] and len(frame) == 4
    assert frame["x2"].tolist()[0] == "State-gov"  # no leading space
    assert main(["fit", str(tmp_path / "adult.data"), "-o", str(tmp_path / "m.bnclf"), "--model", "nb"]) == 2
    assert "--no-header" in capsys.readouterr().err
    (tmp_path / "semi.csv").write_text(rows.replace(", ", ";"))
    names = "age,work,fnlwgt,edu,income"
    assert (
        main(
            [
                "fit",
                str(tmp_path / "semi.csv"),
                "--no-header",
                "--sep",
                ";",
                "--names",
                names,
                "--model",
                "nb",
                "-o",
                str(tmp_path / "m.bnclf"),
            ]
        )
        is None
    )
    capsys.readouterr()
    assert (
        main(
            [
                "predict",
                str(tmp_path / "m.bnclf"),
                str(tmp_path / "semi.csv"),
                "--no-header",
                "--sep",
                ";",
                "--names",
                names,
            ]
        )
        is None
    )
    assert capsys.readouterr().out.splitlines()[0] == "prediction"
    assert (
        main(
            [
                "fit",
                str(tmp_path / "semi.csv"),
                "--no-header",
                "--sep",
                ";",
                "--names",
                "a,b",
                "-o",
                str(tmp_path / "m.bnclf"),
            ]
        )
        == 2
    )
    assert "--names gives 2 names" in capsys.readouterr().err


def test_identifier_columns_warn_in_one_line_and_can_be_dropped(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 120
    names = [f"animal{i}" for i in range(n - 10)] + ["animal0"] * 10  # 110 values in 120 rows: nearly every row
    frame = pd.DataFrame(
        {"name": names, "a": rng.integers(0, 3, n).astype(str), "cls": rng.integers(0, 2, n).astype(str)}
    )
    path = tmp_path / "ids.csv"
    frame.to_csv(path, index=False)
    model = tmp_path / "m.bnclf"
    assert main(["fit", str(path), "-o", str(model)]) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bnclf: warning: column 'name'"), err
    assert "110 values in 120 rows" in err and "--drop name" in err
    assert main(["fit", str(path), "--drop", "name", "-o", str(model)]) is None
    assert capsys.readouterr().err == ""
    assert main(["predict", str(model), str(path)]) is None  # the dropped column is ignored at predict
    assert capsys.readouterr().out.count("\n") == n + 1
    assert main(["fit", str(path), "--drop", "nmae", "-o", str(model)]) == 2
    assert "--drop ['nmae'] are not feature columns" in capsys.readouterr().err


def test_a_table_past_the_memory_budget_is_one_error_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BNCLF_MEMORY_BUDGET", "100")
    path = tmp_path / "small.csv"
    pd.DataFrame({"a": list("xyzxyz") * 5, "b": list("uvwwvu") * 5, "c": list("pq") * 15}).to_csv(path, index=False)
    assert main(["fit", str(path), "--model", "kdb(k=1)", "-o", str(tmp_path / "m.bnclf")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bnclf: error: the ") and "memory budget of 100 bytes" in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_a_defect_is_one_error_line_unless_the_traceback_is_asked_for(tmp_path, capsys, monkeypatch):
    import bnclf.cli._fit  # the module of the command, which the parser imports when it runs

    def broken(args):
        raise IndexError("index 3 is out of bounds")

    monkeypatch.setattr(bnclf.cli._fit, "cmd_fit", broken)
    monkeypatch.delenv("BNCLF_TRACEBACK", raising=False)
    assert main(["fit", "any.csv"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bnclf: error: internal error: IndexError: index 3")
    assert "BNCLF_TRACEBACK=1" in err
    monkeypatch.setenv("BNCLF_TRACEBACK", "1")
    with pytest.raises(IndexError):
        main(["fit", "any.csv"])


def test_headerless_rows_to_predict_get_the_model_feature_names(tmp_path, capsys):
    rows = "".join(f"{a},{b},{c}\n" for a, b, c in zip("xyxyxyxy", "uuvvuvuv", "01010110"))
    (tmp_path / "train.csv").write_text(rows)
    (tmp_path / "new.csv").write_text("".join(line.rsplit(",", 1)[0] + "\n" for line in rows.splitlines()))
    model = str(tmp_path / "m.bnclf")
    assert main(["fit", str(tmp_path / "train.csv"), "--no-header", "--model", "nb", "-o", model]) is None
    capsys.readouterr()
    for rows_file in ("new.csv", "train.csv"):  # without the class column, and with it
        assert main(["predict", model, str(tmp_path / rows_file), "--no-header"]) is None
        out = capsys.readouterr().out.splitlines()
        assert out[0] == "prediction" and len(out) == 9


def test_id_column_that_is_a_feature_is_named_in_one_warning(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"pid": [f"p{i % 7}" for i in range(60)], "a": rng.integers(0, 3, 60).astype(str), "cls": list("ab") * 30}
    )
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.assign(pid=[f"q{i}" for i in range(60)]).to_csv(tmp_path / "new.csv", index=False)
    model = str(tmp_path / "m.bnclf")
    assert main(["fit", str(tmp_path / "t.csv"), "--model", "nb", "-o", model]) is None
    capsys.readouterr()
    assert main(["predict", model, str(tmp_path / "new.csv"), "--id", "pid", "--proba"]) is None
    err = capsys.readouterr().err.splitlines()
    assert sum("--id 'pid' is also a feature" in line and "--drop pid" in line for line in err) == 1
    unseen = [line for line in err if "never seen in training" in line]
    assert len(unseen) == 1  # predict and predict_proba both code the rows: the warning once


def test_separator_is_sniffed_among_the_usual_ones_and_odd_files_are_named(tmp_path, capsys):
    from bnclf.datasets import read_csv_table

    (tmp_path / "one.csv").write_text("class\nx\ny\nx\n")  # csv.Sniffer alone splits this on 's'
    assert list(read_csv_table(tmp_path / "one.csv").columns) == ["class"]
    for sep in (",", ";", "\t", "|", " "):
        (tmp_path / "t.csv").write_text(sep.join(["a", "b", "class"]) + "\n" + sep.join(["1", "2", "x"]) + "\n")
        assert list(read_csv_table(tmp_path / "t.csv").columns) == ["a", "b", "class"], repr(sep)
    assert main(["fit", str(tmp_path / "one.csv")]) == 2
    assert "has one column, ['class']" in capsys.readouterr().err
    (tmp_path / "empty.csv").write_text("a,class\n")
    assert main(["fit", str(tmp_path / "empty.csv")]) == 2
    assert "has no data rows" in capsys.readouterr().err


def test_show_prints_headed_sections_and_wraps_wide_tables(heart_csv, tmp_path, capsys):
    model = str(tmp_path / "k.bnclf")
    main(["fit", str(heart_csv), "--class", "num", "--model", "kdb(k=3)", "-o", model])
    capsys.readouterr()
    main(["show", model, "--cpt", "age"])
    out = capsys.readouterr().out
    assert "structure (child <- parents):" in out
    assert max(len(line) for line in out.splitlines()) <= 120


@pytest.mark.parametrize(
    "argv, words",
    [
        (["compare", "--datasets", "iris", "--folds", "x"], ["argument --folds", "'bnclf compare --help'"]),
        (["fit"], ["required: data", "'bnclf fit --help'"]),
        (["nope"], ["invalid choice: 'nope'", "'bnclf --help'"]),
    ],
)
def test_usage_errors_are_one_error_line(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bnclf: error: ") and "usage:" not in err
    assert all(w in err for w in words)


def test_csv_files_that_cannot_be_read_as_tables_are_named(tmp_path, capsys):
    from bnclf.datasets import read_csv_table

    (tmp_path / "ragged.csv").write_text("a,b,c\n1,2,x\n3,4,5,6\n")
    (tmp_path / "nothing.csv").write_text("")
    (tmp_path / "rows.csv").write_text("1,2,x\n3,4,y\n5,6,x\n")
    (tmp_path / "tabs.csv").write_text("a\tb\tc\n1\t2\tx\n3\t4\ty\n")
    for name, words in (("ragged.csv", ["ragged.csv", "Expected 3 fields", "--sep"]), ("nothing.csv", ["empty"])):
        assert main(["fit", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("bnclf: error: cannot read") and all(w in err for w in words), err
    # --names without --no-header: the data-like first line is refused, not dropped
    assert main(["fit", str(tmp_path / "rows.csv"), "--names", "a,b,c"]) == 2
    assert "looks like data" in capsys.readouterr().err
    assert read_csv_table(tmp_path / "tabs.csv", sep="\\t").shape == (2, 3)  # '\t' as typed in a shell


def test_compare_takes_the_class_column_and_the_number_of_bins(tmp_path, capsys, monkeypatch):
    from bnclf import QuantileDiscretizer
    from bnclf.datasets import load_dataset

    bins = []
    original = QuantileDiscretizer.fit

    def recording_fit(self, X, y=None):
        bins.append(self.n_bins)
        return original(self, X, y)

    monkeypatch.setattr(QuantileDiscretizer, "fit", recording_fit)
    X, y = load_dataset("iris")
    X.assign(species=y, code=np.arange(len(y)) % 3).to_csv(tmp_path / "iris.csv", index=False)
    argv = ["compare", "--datasets", str(tmp_path / "iris.csv"), "--models", "nb", "--folds", "3", "--no-progress"]
    assert main([*argv, "--class", "species", "--discretizer", "quantile", "--bins", "3", "-o", str(tmp_path)]) == 0
    capsys.readouterr()
    assert bins == [3, 3, 3]  # one quantile fit per fold, with --bins
    results = pd.read_csv(tmp_path / "results.csv")
    assert results["accuracy"].mean() > 0.8  # the species, not the last column 'code'
    assert main([*argv, "--class", "nope"]) == 2
    assert "'nope'" in capsys.readouterr().err


def test_numpys_allocation_error_gets_the_out_of_memory_advice(tmp_path, monkeypatch, capsys):
    """numpy's "Unable to allocate" (a MemoryError subclass) is reported with the advice, one
    line, exit 2; a sized table's TableTooLargeError keeps its own message."""
    import numpy as np

    from bnclf import NaiveBayesClassifier
    from bnclf.cli import main
    from bnclf.datasets import load_dataset

    X, y = load_dataset("iris")
    X.assign(target=y).to_csv(tmp_path / "iris.csv", index=False)
    monkeypatch.setattr(NaiveBayesClassifier, "fit", lambda self, X, y=None, **kw: np.empty(1 << 50))
    assert main(["fit", str(tmp_path / "iris.csv"), "--model", "nb", "-o", str(tmp_path / "m.bnclf")]) == 2
    err = capsys.readouterr().err
    assert "bnclf: error: out of memory (Unable to allocate" in err and "use fewer rows or columns" in err
    assert "Traceback" not in err and not (tmp_path / "m.bnclf").exists()
