"""Long fits from the command line: the estimate and warning that the API gives reach the
``bnclf`` commands as one line each, and ``-v`` shows the models' own progress bars."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bnclf.models._multinets as multinets
from bnclf.cli._main import main
from bnclf.evaluation._reports import build_model, with_verbose
from bnclf.io._models import load_model
from bnclf.models import make_classifier, make_multilabel_classifier


@pytest.fixture
def data_csv(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"f{i}": rng.choice(["a", "b", "c"], 60) for i in range(5)})
    frame["label"] = np.where((frame["f0"] == "a") | (frame["f1"] == "b"), "yes", "no")
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def long_etan(monkeypatch):
    """ETAN's estimate made to exceed its one-minute threshold (a synthetic search size)."""
    monkeypatch.setattr(multinets, "etan_search_size", lambda d, k: 10**9)


def _warning_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("bnclf: warning: ETANClassifier")]


@pytest.mark.parametrize(
    "command",
    [
        ["fit", "{data}", "--model", "etan(k=2)", "-o", "{tmp}/m.bnclf"],
        ["evaluate", "{data}", "--models", "etan(k=2)", "--folds", "2", "--no-progress"],
        ["evaluate", "{data}", "--models", "etan(k=2)", "--test", "{data}"],
        ["compare", "--datasets", "{data}", "--classifiers", "etan(k=2)", "--folds", "2", "--no-progress"],
    ],
)
def test_long_fit_warning_reaches_every_command(command, data_csv, tmp_path, long_etan, capsys):
    argv = [a.format(data=data_csv, tmp=tmp_path) for a in command]
    assert main(argv) in (None, 0)
    err = capsys.readouterr().err
    lines = _warning_lines(err)
    assert lines, err
    assert len(lines) == len(set(lines))  # each text once
    assert "minutes on one core" in lines[0] and "run with -v" in lines[0]
    assert "UserWarning" not in err and "warnings.warn" not in err  # one line, no source location


def test_long_fit_warning_with_v_does_not_suggest_v(data_csv, tmp_path, long_etan, capsys):
    assert main(["fit", str(data_csv), "--model", "etan(k=2)", "-o", str(tmp_path / "m.bnclf"), "-v"]) is None
    (line,) = _warning_lines(capsys.readouterr().err)
    assert "minutes on one core" in line and "-v" not in line and "verbose=1" not in line


def test_short_fit_is_silent(data_csv, tmp_path, capsys):
    assert main(["fit", str(data_csv), "--model", "etan(k=2)", "-o", str(tmp_path / "m.bnclf")]) is None
    err = capsys.readouterr().err
    assert "warning" not in err and "ETAN:" not in err


def test_v_shows_the_model_progress_and_fits_the_same_model(data_csv, tmp_path, capsys):
    quiet, loud = tmp_path / "quiet.bnclf", tmp_path / "loud.bnclf"
    assert main(["fit", str(data_csv), "--model", "etan(k=2)", "-o", str(quiet)]) is None
    assert "ETAN" not in capsys.readouterr().err
    assert main(["fit", str(data_csv), "--model", "etan(k=2)", "-o", str(loud), "--verbose"]) is None
    err = capsys.readouterr().err
    assert "ETAN:" in err and "%|" in err  # tqdm's bar on standard error
    # oracle: the progress bar changes nothing of the model
    X = pd.read_csv(data_csv).drop(columns="label")
    a, b = load_model(quiet), load_model(loud)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "{data}", "--models", "nb,etan(k=2)", "--folds", "2", "--no-progress", "-v"],
        ["evaluate", "{data}", "--models", "etan(k=2)", "--test", "{data}", "-v"],
        ["compare", "--datasets", "{data}", "--classifiers", "nb", "etan(k=2)", "--folds", "2", "--no-progress", "-v"],
    ],
)
def test_v_shows_progress_in_evaluate_and_compare(command, data_csv, capsys):
    assert main([a.format(data=data_csv) for a in command]) in (None, 0)
    err = capsys.readouterr().err
    assert "ETAN:" in err and "%|" in err


def test_without_v_evaluate_and_compare_show_no_model_progress(data_csv, capsys):
    argv = ["compare", "--datasets", str(data_csv), "--classifiers", "etan(k=2)", "--folds", "2", "--no-progress"]
    assert main(argv) == 0
    assert "ETAN:" not in capsys.readouterr().err


def test_v_and_its_help_on_the_commands_that_fit(capsys):
    for command in ("fit", "evaluate", "compare"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "-v, --verbose" in out and "etan" in out


def test_with_verbose_sets_bnclf_models_only_and_keeps_the_spec():
    pipe = with_verbose(build_model("etan", "mdl", 4), 1, "etan")
    params = pipe.get_params(deep=True)
    assert params["verbose"] is False  # scikit-learn's Pipeline: its step timings stay off
    assert [params[k] for k in params if k.endswith("__verbose")] == [1]
    assert with_verbose(make_classifier("etan(verbose=0)"), 1, "etan(verbose=0)").verbose == 0
    assert with_verbose(make_classifier("hc"), 1, "hc").verbose == 1
    assert with_verbose(make_multilabel_classifier("bn-ensemble"), 1, "bn-ensemble").verbose == 1
    nb = make_classifier("nb")
    assert with_verbose(nb, 1, "nb") is nb  # no verbose parameter: unchanged
    etan = make_classifier("etan")
    assert with_verbose(etan, 0, "etan") is etan


def _warns_and_doubles(x):
    import warnings

    warnings.warn(f"long work ahead for {x}", UserWarning)
    return 2 * x


def test_warnings_of_worker_processes_are_raised_in_the_parent():
    """Under joblib workers (``--jobs N``), each task's warnings come back with its result and
    are raised in the calling process, where the command line prints them as one line each."""
    import warnings

    from bnclf.evaluation._protocols import _parallel_map

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = _parallel_map(_warns_and_doubles, [(1,), (2,), (3,)], n_jobs=2)
    assert results == [2, 4, 6]
    texts = sorted(str(w.message) for w in caught if issubclass(w.category, UserWarning))
    assert texts == ["long work ahead for 1", "long work ahead for 2", "long work ahead for 3"]


def test_a_warning_from_workers_is_one_cli_line(tmp_path):
    """``bnclf evaluate --jobs 2``: the warnings raised in the folds' worker processes print
    as the serial run prints them, ``bnclf: warning:`` lines, each once, without Python's
    source location (an identifier column warns in every fold)."""
    import subprocess
    import sys
    from pathlib import Path

    import bnclf
    from bnclf.datasets import load_dataset

    X, y = load_dataset("iris")
    X.assign(ident=[f"r{i}" for i in range(len(X))], target=y).to_csv(tmp_path / "ids.csv", index=False)
    env = {"PYTHONPATH": str(Path(bnclf.__file__).parents[1]), "PATH": "", "MPLBACKEND": "Agg"}
    base = [sys.executable, "-m", "bnclf", "evaluate", str(tmp_path / "ids.csv"), "--models", "nb", "--folds", "3"]
    runs = {}
    for jobs in ("1", "2"):
        done = subprocess.run(
            [*base, "--brief", "--no-progress", "--jobs", jobs],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        runs[jobs] = done.stderr.splitlines()
    assert runs["2"] == runs["1"], runs
    assert sum("like an identifier" in line for line in runs["2"]) == 1
    assert runs["2"] and all(line.startswith("bnclf: warning: ") for line in runs["2"]), runs["2"]
