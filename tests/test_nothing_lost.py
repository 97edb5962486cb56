"""Nothing is lost: no command writes onto one of its inputs, an interrupted or failed
write leaves the previous file as it was, a write replaces a planted link instead of
writing through it, and dataset or member names cannot reach outside their folder."""

import json
import os
import pickle
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnclf import AODEClassifier, NaiveBayesClassifier, TANClassifier
from bnclf.cli._main import main
from bnclf.datasets import load_dataset
from bnclf.io import read_networks, save_model, write_network
from bnclf.io._files import check_outputs, same_file, staged


def _snapshot(folder: Path) -> dict:
    """Every file below ``folder`` (links included, not followed) with its bytes."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[str(path.relative_to(folder))] = ("link", os.readlink(path))
        elif path.is_file():
            out[str(path.relative_to(folder))] = path.read_bytes()
    return out


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    d = tmp_path_factory.mktemp("lost")
    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(d / "iris.csv", index=False)
    X.to_csv(d / "rows.csv", index=False)
    assert main(["fit", str(d / "iris.csv"), "--model", "nb", "-o", str(d / "m.bnclf")]) is None
    assert main(["fit", "emotions", "--model", "mnb", "-o", str(d / "ml.bnclf")]) is None
    Xe, _ = __import__("bnclf.datasets", fromlist=["x"]).load_multilabel_dataset("emotions")
    Xe.iloc[:5].to_csv(d / "ml_rows.csv", index=False)
    os.symlink(d / "rows.csv", d / "link_to_rows.csv")
    return d


# (id, argv, the option and the input the message must name)
CLASHES = [
    ("fit onto its data", ["fit", "{d}/iris.csv", "--model", "nb", "-o", "{d}/iris.csv"], ["--output", "DATA"]),
    ("predict onto its rows", ["predict", "{d}/m.bnclf", "{d}/rows.csv", "-o", "{d}/rows.csv"], ["--output", "DATA"]),
    ("predict onto its model", ["predict", "{d}/m.bnclf", "{d}/rows.csv", "-o", "{d}/m.bnclf"], ["MODEL_FILE"]),
    (
        "predict through a link to its rows",
        ["predict", "{d}/m.bnclf", "{d}/rows.csv", "-o", "{d}/link_to_rows.csv"],
        ["--output", "DATA"],
    ),
    ("export onto its model", ["export", "{d}/m.bnclf", "-o", "{d}/m.bnclf", "--format", "bif"], ["MODEL_FILE"]),
    ("evaluate onto its data", ["evaluate", "{d}/iris.csv", "--models", "nb", "-o", "{d}/iris.csv"], ["--output"]),
    (
        "evaluate predictions onto its data",
        ["evaluate", "{d}/iris.csv", "--models", "nb", "--predictions", "{d}/iris.csv"],
        ["--predictions", "DATA"],
    ),
    (
        "evaluate two outputs in one file",
        ["evaluate", "{d}/iris.csv", "--models", "nb", "-o", "{d}/a.csv", "--predictions", "{d}/./a.csv"],
        ["--output and --predictions are the same file"],
    ),
    (
        "query onto its rows",
        ["query", "{d}/ml.bnclf", "{d}/ml_rows.csv", "--marginal", "-o", "{d}/ml_rows.csv"],
        ["--output", "DATA"],
    ),
    ("plot onto its model", ["plot", "{d}/m.bnclf", "-o", "{d}/m.bnclf"], ["MODEL_FILE"]),
    (
        "compare report onto its data",
        ["compare", "--datasets", "{d}/results.csv", "--classifiers", "nb", "--out", "{d}"],
        ["results.csv", "--datasets"],
    ),
]


@pytest.mark.parametrize("argv, patterns", [c[1:] for c in CLASHES], ids=[c[0] for c in CLASHES])
def test_no_command_writes_onto_its_own_input(argv, patterns, workspace, capsys):
    if "compare" in argv:
        (workspace / "results.csv").write_bytes((workspace / "iris.csv").read_bytes())
    before = _snapshot(workspace)
    argv = [a.replace("{d}", str(workspace)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bnclf: error:"), err
    assert "Choose another output file" in err or "give each its own file" in err, err
    for pattern in patterns:
        assert pattern in err, f"{pattern!r} not in {err!r}"
    assert _snapshot(workspace) == before  # nothing on disk changed, not even a temporary file
    if "compare" in argv:
        (workspace / "results.csv").unlink()


def test_same_file_sees_links_and_hard_links(tmp_path):
    (tmp_path / "a").write_text("x")
    os.symlink(tmp_path / "a", tmp_path / "b")
    os.link(tmp_path / "a", tmp_path / "c")
    assert same_file(tmp_path / "a", tmp_path / "b")
    assert same_file(tmp_path / "a", tmp_path / "c")
    assert same_file(tmp_path / "sub" / ".." / "a", tmp_path / "a")
    assert not same_file(tmp_path / "a", tmp_path / "d")  # d does not exist
    check_outputs({"--output": tmp_path / "d"}, {"DATA": tmp_path / "a", "--xml": None})
    with pytest.raises(ValueError, match="--output .* is the input DATA"):
        check_outputs({"--output": tmp_path / "c"}, {"DATA": tmp_path / "a"})


def _interrupt_during(monkeypatch, obj, name, exc=KeyboardInterrupt):
    """Make ``obj.name`` write part of its output and then raise ``exc``."""
    original = getattr(obj, name)

    def broken(*args, **kwargs):
        original(*args, **kwargs)
        raise exc("interrupted mid-write")

    monkeypatch.setattr(obj, name, broken)


def test_an_interrupted_model_file_write_leaves_the_previous_file(tmp_path, monkeypatch):
    X, y = load_dataset("kr-vs-kp")
    path = save_model(NaiveBayesClassifier().fit(X, y), tmp_path / "m.bnclf")
    before = _snapshot(tmp_path)
    _interrupt_during(monkeypatch, np.lib.format, "write_array")
    with pytest.raises(KeyboardInterrupt):
        save_model(TANClassifier().fit(X, y), path)
    assert _snapshot(tmp_path) == before  # the old model, no half-written archive, no temporary folder
    monkeypatch.undo()
    _interrupt_during(monkeypatch, pickle, "dump")
    with pytest.raises(KeyboardInterrupt):
        save_model(TANClassifier().fit(X, y), path, format="pickle")
    assert _snapshot(tmp_path) == before


def test_an_interrupted_fit_command_leaves_the_previous_model(tmp_path, monkeypatch, capsys):
    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    assert main(["fit", str(tmp_path / "iris.csv"), "--model", "nb", "-o", str(tmp_path / "m.bnclf")]) is None
    before = _snapshot(tmp_path)
    _interrupt_during(monkeypatch, np.lib.format, "write_array")
    assert main(["fit", str(tmp_path / "iris.csv"), "--model", "tan", "-o", str(tmp_path / "m.bnclf")]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


def test_an_interrupted_compare_leaves_the_previous_report(tmp_path, monkeypatch):
    from bnclf.evaluation import compare, write_report

    results = compare([("iris", *load_dataset("iris"))], ["nb"], n_splits=3, verbose=0)
    write_report(results, tmp_path)
    before = _snapshot(tmp_path)
    assert {"results.csv", "report.md", "scores_by_dataset.png"} <= set(before)
    _interrupt_during(monkeypatch, pd.DataFrame, "to_csv", RuntimeError)
    with pytest.raises(RuntimeError, match="mid-write"):
        write_report(results.assign(score=0.5), tmp_path)
    assert _snapshot(tmp_path) == before


def test_a_network_that_fails_its_check_leaves_the_previous_files(tmp_path, monkeypatch):
    X, y = load_dataset("kr-vs-kp")
    path = write_network(NaiveBayesClassifier().fit(X, y), tmp_path / "m.bif")
    before = _snapshot(tmp_path)
    assert set(before) == {"m.bif", "m.bif.names.json"}

    def differs(*args, **kwargs):
        raise RuntimeError("m.bif does not read back as written")

    monkeypatch.setattr("bnclf.io._networks._verify", differs)
    with pytest.raises(RuntimeError, match="read back"):
        write_network(TANClassifier().fit(X, y), path)
    assert _snapshot(tmp_path) == before


def test_a_network_set_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    X, y = load_dataset("kr-vs-kp")
    rows = X.sample(400, random_state=0).index
    X, y = X.loc[rows].iloc[:, :3], y.loc[rows]
    model = AODEClassifier().fit(X, y)
    manifest = write_network(model, tmp_path / "a.bif")
    before = _snapshot(tmp_path)
    # Interrupted while writing the first member's name map: no member is renamed into place.
    _interrupt_during(monkeypatch, json, "dumps")
    with pytest.raises(KeyboardInterrupt):
        write_network(AODEClassifier(m=5).fit(X, y), tmp_path / "a.bif")
    assert _snapshot(tmp_path) == before
    monkeypatch.undo()
    assert len(read_networks(manifest)["networks"]) == len(model.network_members())


def test_writes_replace_a_planted_link_instead_of_writing_through_it(tmp_path):
    X, y = load_dataset("kr-vs-kp")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.json").write_text("keep me")
    (outside / "precious.bnclf").write_text("keep me too")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside / "precious.json", out / "m.bif.names.json")
    os.symlink(outside / "precious.bnclf", out / "m.bnclf")
    write_network(NaiveBayesClassifier().fit(X, y), out / "m.bif")
    save_model(NaiveBayesClassifier().fit(X, y), out / "m.bnclf")
    assert (outside / "precious.json").read_text() == "keep me"
    assert (outside / "precious.bnclf").read_text() == "keep me too"
    assert not (out / "m.bif.names.json").is_symlink() and not (out / "m.bnclf").is_symlink()
    assert json.loads((out / "m.bif.names.json").read_text())["format"] == "bnclf-name-map/1"


def test_staged_writes_land_whole_and_clean_up(tmp_path):
    (tmp_path / "a.txt").write_text("old")
    with pytest.raises(ZeroDivisionError):
        with staged(tmp_path / "a.txt", tmp_path / "sub" / "b.txt") as (a, b):
            a.write_text("new")
            b.write_text("new")
            1 / 0
    assert (tmp_path / "a.txt").read_text() == "old" and not (tmp_path / "sub" / "b.txt").exists()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.txt", "sub"]  # no temporary folder left
    with staged(tmp_path / "a.txt") as (a,):
        assert a.parent != tmp_path and a.name == "a.txt"
        a.write_text("new")
    assert (tmp_path / "a.txt").read_text() == "new"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.txt", "sub"]


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/passwd", "iris/../../x", "..", ".hidden", "a\\b"])
def test_a_keel_name_cannot_reach_outside_the_package(name):
    from bnclf.evaluation import load_dataset_spec

    with pytest.raises(ValueError, match="is not a KEEL dataset name.*no folders"):
        load_dataset_spec(f"keel:{name}")


@pytest.fixture(scope="module")
def network_set(tmp_path_factory):
    X, y = load_dataset("kr-vs-kp")
    folder = tmp_path_factory.mktemp("set")
    write_network(AODEClassifier().fit(X.iloc[::10, :3], y.iloc[::10]), folder / "a.bif")
    return folder


@pytest.mark.parametrize("member", ["../evil.bif", "/tmp/evil.bif", "sub/m.bif", "..", "", None, 3])
def test_a_manifest_member_cannot_reach_outside_its_folder(tmp_path, network_set, member):
    shutil.copytree(network_set, tmp_path / "set")
    manifest = tmp_path / "set" / "a.bif.manifest.json"
    data = json.loads(manifest.read_text())
    data["members"][1]["file"] = member
    manifest.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"a\.bif\.manifest\.json: member file .* is not a file name"):
        read_networks(manifest)
