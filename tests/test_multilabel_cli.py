"""The bnclf command on multilabel data: fit, predict, query, evaluate, compare, and the errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bnclf.cli._main import main
from bnclf.datasets import load_multilabel_dataset
from bnclf.io._arff import write_arff
from bnclf.io._models import load_model, save_model
from bnclf.models import make_multilabel_classifier


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The first 200 rows of emotions as ARFF (labels last; with and without a MULAN XML) and CSV,
    and 30 further rows with an identifier column and no labels."""
    X, Y = load_multilabel_dataset("emotions")
    folder = tmp_path_factory.mktemp("multilabel")
    table = X.iloc[:200].join(Y.iloc[:200])
    write_arff(table, folder / "emo.arff", relation="emo")
    (folder / "declared").mkdir()
    write_arff(table, folder / "declared" / "emo.arff", relation="emo")
    labels = "".join(f'<label name="{name}"></label>' for name in Y.columns)
    (folder / "declared" / "emo.xml").write_text(
        f'<?xml version="1.0" encoding="utf-8"?><labels xmlns="http://mulan.sourceforge.net/labels">{labels}</labels>',
        encoding="utf-8",
    )
    table.to_csv(folder / "emo.csv", index=False)
    rows = X.iloc[200:230].reset_index(drop=True)
    rows.assign(song=[f"s{i}" for i in range(30)]).to_csv(folder / "rows.csv", index=False)
    return {
        "arff": folder / "emo.arff",
        "declared": folder / "declared" / "emo.arff",
        "csv": folder / "emo.csv",
        "rows": folder / "rows.csv",
        "X": rows,
        "labels": list(Y.columns),
    }


@pytest.fixture(scope="module")
def mnb_file(files, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "mnb.bnclf"
    assert main(["fit", str(files["arff"]), "--n-labels", "6", "--model", "mnb", "-o", str(path)]) in (None, 0)
    return path


def test_fit_predict_reads_back_a_label_matrix(files, mnb_file, tmp_path, capsys):
    model = load_model(mnb_file)
    assert model.label_names_ == files["labels"] and not hasattr(model, "_training_data")
    out = tmp_path / "p.csv"
    main(["predict", str(mnb_file), str(files["rows"]), "--id", "song", "-o", str(out)])
    pred = pd.read_csv(out)
    assert list(pred.columns) == ["song"] + files["labels"] and pred.shape == (30, 7)
    values = pred[files["labels"]].to_numpy()
    assert set(np.unique(values)) <= {0, 1} and values.any(axis=1).all()  # no empty prediction
    np.testing.assert_array_equal(values, model.predict(files["X"]))
    assert pred["song"].tolist() == [f"s{i}" for i in range(30)]
    main(["predict", str(mnb_file), str(files["rows"]), "--proba", "-o", str(out)])
    proba = pd.read_csv(out)
    assert list(proba.columns) == files["labels"] + [f"P({n})" for n in files["labels"]]
    np.testing.assert_allclose(proba[[f"P({n})" for n in files["labels"]]], model.predict_proba(files["X"]))
    assert "wrote 30 label sets" in capsys.readouterr().out


def test_query_answers_equal_the_python_api(files, mnb_file, tmp_path):
    model = load_model(mnb_file)
    happy, sad, calm = "happy-pleased", "sad-lonely", "relaxing-calm"
    out = tmp_path / "q.csv"
    main(
        [
            "query",
            str(mnb_file),
            str(files["rows"]),
            "--map",
            "--given",
            f"{happy}=1",
            "--given",
            f"{sad}=0",
            "-o",
            str(out),
        ]
    )
    answers = pd.read_csv(out)
    expected = model.map_query(files["X"], given={happy: 1, sad: 0})
    assert list(answers.columns) == list(expected.columns) and happy not in answers.columns
    np.testing.assert_array_equal(answers.to_numpy(), expected.to_numpy())
    main(["query", str(mnb_file), str(files["rows"]), "--map", "--labels", f"{calm},{sad}", "-o", str(out)])
    np.testing.assert_array_equal(
        pd.read_csv(out).to_numpy(), model.map_query(files["X"], labels=[calm, sad]).to_numpy()
    )
    main(
        [
            "query",
            str(mnb_file),
            str(files["rows"]),
            "--marginal",
            "--labels",
            f"{calm},{happy}",
            "--given",
            f"{sad}=1",
            "--id",
            "song",
            "-o",
            str(out),
        ]
    )
    answers = pd.read_csv(out)
    assert list(answers.columns) == ["song", f"P({calm})", f"P({happy})"]
    expected = model.marginal_query(files["X"], labels=[calm, happy], given={sad: 1})
    np.testing.assert_allclose(answers[[f"P({calm})", f"P({happy})"]].to_numpy(), expected.to_numpy())
    main(["query", str(mnb_file), str(files["rows"]), "--marginal", "-o", str(out)])
    np.testing.assert_allclose(pd.read_csv(out).to_numpy(), model.predict_proba(files["X"]))


def test_labels_by_name_by_xml_and_the_embedded_data(files, tmp_path, capsys):
    by_name = tmp_path / "byname.bnclf"
    main(["fit", str(files["csv"]), "--labels", "happy-pleased,sad-lonely", "--model", "br", "-o", str(by_name)])
    model = load_model(by_name)
    assert model.label_names_ == ["happy-pleased", "sad-lonely"] and model.n_features_in_ == 76
    declared = tmp_path / "declared.bnclf"
    main(["fit", str(files["declared"]), "-o", str(declared)])  # a sibling XML: multilabel, mnb
    assert type(load_model(declared)).__name__ == "MultilabelBNClassifier"
    embedded = tmp_path / "embedded.bnclf"
    main(["fit", "emotions", "--model", "ecc(n_chains=2)", "-o", str(embedded)])
    ecc = load_model(embedded)
    assert ecc.n_chains == 2 and len(ecc.label_names_) == 6
    out = capsys.readouterr().out
    assert "6 labels" in out and "2 labels (happy-pleased, sad-lonely)" in out


def test_evaluate_reports_both_accuracies(files, tmp_path, capsys):
    out = tmp_path / "r.csv"
    main(
        [
            "evaluate",
            str(files["arff"]),
            "--n-labels",
            "6",
            "--models",
            "mnb,br",
            "--folds",
            "3",
            "--no-progress",
            "-o",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert "global accuracy" in text and "Hamming accuracy" in text and "least relevant label" in text
    table = pd.read_csv(out)
    assert list(table["model"]) == ["mnb", "br"]
    assert table["global_accuracy"].between(0.05, 0.6).all() and table["hamming_accuracy"].between(0.6, 0.95).all()
    assert table.loc[0, ["global_accuracy_empty_allowed", "treewidth"]].notna().all()
    assert table.loc[1, ["global_accuracy_empty_allowed", "treewidth"]].isna().all()


def test_compare_ranks_multilabel_classifiers(files, tmp_path, capsys):
    code = main(
        [
            "compare",
            "--datasets",
            str(files["arff"]),
            str(files["declared"]),
            "--n-labels",
            "6",
            "--classifiers",
            "mnb(feature_selection=None)",
            "br",
            "--folds",
            "3",
            "--no-progress",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "## Multilabel scores" in text and "Hamming accuracy" in text and "Average ranks" in text
    results = pd.read_csv(tmp_path / "results.csv")
    np.testing.assert_allclose(results["zero_one_loss"], 1 - results["global_accuracy"])
    assert "## Multilabel scores" in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_every_multilabel_model_round_trips_through_a_safe_file(files, tmp_path):
    X, Y = load_multilabel_dataset("emotions")
    X, Y = X.iloc[:150], Y.iloc[:150]
    for spec in ("mnb", "mfan", "bn-ensemble", "br", "ecc(n_chains=3, random_state=None)"):
        model = make_multilabel_classifier(spec).fit(X, Y)
        path = save_model(model, tmp_path / "m.bnclf")
        back = load_model(path)
        assert type(back) is type(model) and back.get_params() == model.get_params()
        np.testing.assert_allclose(back.predict_proba(files["X"]), model.predict_proba(files["X"]))
        np.testing.assert_array_equal(back.predict(files["X"]), model.predict(files["X"]))


def test_errors_name_the_problem(files, mnb_file, tmp_path, capsys):
    single = tmp_path / "single.bnclf"
    main(["fit", str(files["csv"]), "--class", "happy-pleased", "--model", "nb", "-o", str(single)])
    capsys.readouterr()
    rows, csv = str(files["rows"]), str(files["csv"])
    cases = [
        (["fit", csv, "--labels", "happy,sad-lonely"], "label 'happy' is not a column"),
        (["fit", csv, "--model", "mnb", "-o", str(tmp_path / "x.bnclf")], "no labels given"),
        (["fit", str(files["arff"]), "--model", "mfan"], "no labels given"),
        (["fit", csv, "--labels", "sad-lonely", "--model", "tan"], "tan is a single-label classifier"),
        (["fit", csv, "--labels", "sad-lonely", "--discretize", "mdl"], "--discretize mdl"),
        (["query", str(mnb_file), rows, "--map", "--given", "happy-pleased=2"], "observed as 0 or 1"),
        (["query", str(mnb_file), rows, "--map", "--given", "happy=1"], "unknown label 'happy'"),
        (["query", str(mnb_file), rows, "--marginal", "--labels", "happy"], "unknown label 'happy'"),
        (["query", str(single), rows, "--map"], "use 'bnclf predict'"),
        (["show", str(mnb_file), "--cpt", "nope"], "--cpt 'nope': no such node"),
        (["show", str(mnb_file), "--member", "0"], "has one network"),
        (["plot", str(single), "--labels-only", "-o", str(tmp_path / "x.png")], "--labels-only draws the labels"),
        (["evaluate", csv, "--models", "nb,mnb"], "evaluate single-label and multilabel"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("bnclf: error:") and message in err and err.count("\n") == 1, (argv, err)
    br = tmp_path / "br.bnclf"
    main(["fit", csv, "--n-labels", "6", "--model", "br", "-o", str(br)])
    assert main(["query", str(br), rows, "--map"]) == 2
    assert "answers no MAP or marginal queries" in capsys.readouterr().err
    assert main(["compare", "--datasets", csv, "--classifiers", "nb", "mnb"]) == 2
    assert "compare single-label and multilabel" in capsys.readouterr().err


def test_query_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["query", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--map" in out and "--marginal" in out and "--given" in out


def test_an_inconsistent_multilabel_file_is_refused(files, mnb_file, tmp_path):
    import io
    import json
    import zipfile

    with zipfile.ZipFile(mnb_file) as archive:
        meta = json.loads(archive.read("model.json"))
        members = {n: archive.read(n) for n in archive.namelist() if n.startswith("arrays/")}
    meta["model"]["state"]["dict"] = [
        [k, v] if k != "label_names_" else [k, v[:-1]] for k, v in meta["model"]["state"]["dict"]
    ]  # one label fewer than the networks have
    broken = tmp_path / "broken.bnclf"
    with zipfile.ZipFile(broken, "w") as archive:
        archive.writestr("model.json", json.dumps(meta))
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(ValueError, match="broken.bnclf.*states of the networks differ"):
        load_model(broken)
    del io


def test_export_and_plot_a_multilabel_network(mnb_file, tmp_path, capsys):
    import matplotlib.pyplot as plt

    from bnclf.io._networks import read_network

    model = load_model(mnb_file)
    out = tmp_path / "mnb.xmlbif"
    assert main(["export", str(mnb_file), "-o", str(out)]) in (None, 0)
    net = read_network(out)
    assert set(net.nodes()) == set(model.network_.dag.nodes)
    assert set(model.label_names_) <= set(net.nodes())
    png = tmp_path / "mnb.png"
    assert main(["plot", str(mnb_file), "-o", str(png), "--max-features", "10"]) in (None, 0)
    assert plt.imread(png)[..., :3].std() > 0.05
    capsys.readouterr()


def test_show_prints_the_label_graph_and_each_feature_s_label_parents(files, tmp_path, capsys):
    path = tmp_path / "mfan.bnclf"
    main(["fit", str(files["arff"]), "--n-labels", "6", "--model", "mfan", "-o", str(path)])
    model = load_model(path)
    capsys.readouterr()
    assert main(["show", str(path)]) is None
    out = capsys.readouterr().out
    labels = list(model.label_names_)
    arcs = [(u, v) for u, v in model.network_.dag.edges if u in labels and v in labels]
    assert arcs and f"[mFAN, root: {model.root_}]" in out
    assert (
        f"labels (6): {', '.join(labels)}" in out
        and f"treewidth of the label part (what exact queries cost): {model.treewidth_}" in out
    )
    graph = out.split("label graph (label <- label parents):\n")[1].split("\n\n")[0].splitlines()
    assert graph == [
        f"  {label} <- {', '.join(u for u, v in arcs if v == label) or '(no parents)'}" for label in labels
    ]
    bridge = out.split("bridge (feature <- label parents; selected features only):\n")[1].splitlines()
    assert bridge == [
        f"  {f} <- {', '.join(model.bridge_parents_[f]) or '(no label parent: independent)'}"
        for f in model.selected_features_
    ]
    assert "cut points (QuantileDiscretizer):" in out  # the quartiles of the continuous features
    assert main(["show", str(path), "--cpt", labels[0]]) is None
    assert f"P({labels[0]} | " in capsys.readouterr().out
    assert main(["show", str(path), "--dot"]) is None
    assert capsys.readouterr().out.startswith("digraph")


def test_show_an_ensemble_member_and_a_model_that_is_no_network(files, tmp_path, capsys):
    path, br = tmp_path / "ens.bnclf", tmp_path / "br.bnclf"
    main(["fit", str(files["arff"]), "--n-labels", "6", "--model", "bn-ensemble", "-o", str(path)])
    main(["fit", str(files["arff"]), "--n-labels", "6", "--model", "br", "-o", str(br)])
    capsys.readouterr()
    assert main(["show", str(path), "--member", "1"]) is None
    out = capsys.readouterr().out
    second = files["labels"][1]
    assert f"[root: {second}] (member 1)" in out and out.count("label graph") == 1
    assert f"  {second} <- (no parents)" in out  # each member of the ensemble is rooted at one label
    assert main(["show", str(br)]) is None
    out = capsys.readouterr().out
    assert "labels (6)" in out and "BinaryRelevanceNB is not one Bayesian network" in out
    assert main(["show", str(br), "--dot"]) == 2


def test_plot_labels_only_draws_the_label_subgraph(mnb_file, tmp_path, capsys, monkeypatch):
    import matplotlib.pyplot as plt

    import bnclf.plot._multilabel as drawing

    calls = []
    original = drawing.draw_multilabel

    def recording(model, **kwargs):
        calls.append(kwargs)
        return original(model, **kwargs)

    monkeypatch.setattr(drawing, "draw_multilabel", recording)
    png = tmp_path / "labels.png"
    assert main(["plot", str(mnb_file), "--labels-only", "-o", str(png)]) is None
    assert calls[-1]["label_only"] is True and plt.imread(png)[..., :3].std() > 0.05
    assert main(["plot", str(mnb_file), "-o", str(png)]) is None
    assert calls[-1]["label_only"] is False
    capsys.readouterr()
