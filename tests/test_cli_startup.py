"""The command starts fast: it imports what a command needs when it needs it.

Structural, not timed: a fresh interpreter imports ``bnclf`` and ``bnclf.cli``, builds the
parser and runs ``--version`` and ``--help``, and none of pandas, scikit-learn, SciPy,
networkx, pgmpy or matplotlib is loaded; a ``predict`` with a TAN model loads neither
networkx, pgmpy nor matplotlib (``python -m benchmarks.speed startup`` times them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bnclf

SOURCE = Path(bnclf.__file__).resolve().parents[1]  # the checkout under test, for subprocesses
HEAVY = ["pandas", "sklearn", "scipy", "networkx", "pgmpy", "matplotlib"]

REPORT = """
import contextlib, io, json, sys
{setup}
print(json.dumps(sorted(({{m.split(".")[0] for m in sys.modules}} | set(sys.modules)) & set({heavy!r}))))
"""


def _loaded(setup: str, cwd: Path, watch: list[str] = HEAVY) -> list[str]:
    """The packages of ``watch`` (top-level packages or whole module names) that a fresh
    interpreter holds after running ``setup``."""
    env = {**os.environ, "PYTHONPATH": str(SOURCE), "MPLBACKEND": "Agg"}
    code = REPORT.format(setup=setup, heavy=watch)
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def _quietly(argv: list[str]) -> str:
    """Run ``bnclf <argv>`` in the subprocess, its output swallowed, ``SystemExit`` kept."""
    return (
        "from bnclf.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
    )


def test_the_test_can_see_a_heavy_import(tmp_path):
    assert _loaded("import bnclf.cli; from bnclf import TANClassifier", tmp_path) == ["pandas", "scipy", "sklearn"]


@pytest.mark.parametrize(
    "setup",
    [
        "import bnclf",
        "import bnclf.cli; bnclf.cli.build_parser()",
        _quietly(["--version"]),
        _quietly(["--help"]),
        _quietly(["predict", "--help"]),
        "import bnclf, bnclf.io, bnclf.datasets; dir(bnclf); bnclf.__version__",
    ],
    ids=["import bnclf", "build_parser", "--version", "--help", "predict --help", "bnclf.io, dir(bnclf)"],
)
def test_the_parser_loads_no_heavy_package(setup, tmp_path):
    assert _loaded(setup, tmp_path) == []


def test_the_help_still_lists_the_registered_classifiers(capsys):
    from bnclf.cli import main
    from bnclf.models import CLASSIFIERS, MULTILABEL_CLASSIFIERS

    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "{classifiers}" not in text and "{multilabel_classifiers}" not in text
    assert ", ".join(sorted(CLASSIFIERS)) in text
    assert ", ".join(sorted(MULTILABEL_CLASSIFIERS)) in text
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert ", ".join(sorted(CLASSIFIERS)) in capsys.readouterr().out


def test_a_prediction_loads_neither_networkx_pgmpy_nor_matplotlib(tmp_path):
    from bnclf.cli import main
    from bnclf.datasets import load_dataset

    X, y = load_dataset("heart-c")
    X.assign(target=y).to_csv(tmp_path / "data.csv", index=False)
    X.iloc[:10].to_csv(tmp_path / "rows.csv", index=False)
    assert main(["fit", str(tmp_path / "data.csv"), "-o", str(tmp_path / "tan.bnclf")]) is None
    argv = ["predict", str(tmp_path / "tan.bnclf"), str(tmp_path / "rows.csv"), "--proba"]
    watch = [*HEAVY, "bnclf.io._networks", "bnclf.io._pgmpy", "bnclf.evaluation", "sklearn.multioutput"]
    loaded = _loaded(_quietly(argv), tmp_path, watch)
    assert not {"networkx", "pgmpy", "matplotlib"} & set(loaded), loaded
    assert not {"bnclf.io._networks", "bnclf.io._pgmpy", "bnclf.evaluation", "sklearn.multioutput"} & set(loaded)
    assert {"pandas", "sklearn"} <= set(loaded)  # the rows and the pipeline need them


def test_fit_and_evaluate_load_no_statistics_nor_model_selection(tmp_path):
    """scikit-learn's base imports ``scipy.stats``; the command holds a stand-in for it, which
    fit, predict and evaluate on a test file never read. Nor do they load
    ``sklearn.model_selection`` or ``sklearn.metrics`` (which would load it): the folds and
    the scores are bnclf's own."""
    from bnclf.datasets import load_dataset

    X, y = load_dataset("heart-c")
    X.iloc[:200].assign(target=y[:200]).to_csv(tmp_path / "train.csv", index=False)
    X.iloc[200:].assign(target=y[200:]).to_csv(tmp_path / "test.csv", index=False)
    heavy = ["scipy.stats._stats_py", "sklearn.model_selection", "sklearn.metrics"]
    fit = ["fit", str(tmp_path / "train.csv"), "--model", "rmcv", "-o", str(tmp_path / "m.bnclf")]
    evaluate = ["evaluate", str(tmp_path / "train.csv"), "--test", str(tmp_path / "test.csv"), "--models", "rmcv,aode"]
    for argv in (fit, evaluate):
        loaded = _loaded(_quietly(argv), tmp_path, [*heavy, "bnclf.models._search_based"])
        assert loaded == ["bnclf.models._search_based"], (argv[0], loaded)  # rmcv ran, without them


def test_a_deferred_module_is_whole_on_first_use(tmp_path):
    """The stand-in answers every way a module is used: attribute, ``from`` import, submodule."""
    code = (
        "from bnclf.cli._imports import defer_unused\n"
        "defer_unused()\n"
        "import scipy.stats, sys\n"
        "assert '_stats_py' not in str(sorted(sys.modules)), 'loaded at once'\n"
        "assert abs(scipy.stats.norm.cdf(0.0) - 0.5) < 1e-15\n"
        "from scipy.stats import rankdata\n"
        "import scipy.stats.mstats\n"
        "assert list(rankdata([3, 1, 3])) == [2.5, 1.0, 2.5]\n"
    )
    assert _loaded(code, tmp_path, ["scipy.stats._stats_py"]) == ["scipy.stats._stats_py"]


def test_the_lazy_names_are_the_public_names():
    import bnclf.evaluation
    import bnclf.io

    for package in (bnclf.io, bnclf.evaluation):
        assert set(package._LAZY) == set(package.__all__)
        assert set(package.__all__) <= set(dir(package))
        for name in package.__all__:
            assert getattr(package, name) is getattr(sys.modules[package._LAZY[name]], name)
    # the top level: the estimators bnclf.models exports, taken from the registry, and the rest
    estimators = {c.__name__ for c in bnclf.models.ESTIMATORS if c.__name__ in bnclf.models.__all__}
    assert {"NaiveBayesClassifier", "TANClassifier", "MultilabelBNEnsemble", "BinaryRelevanceNB"} <= estimators
    assert set(bnclf.__all__) == estimators | set(bnclf._LAZY)
    assert set(bnclf.__all__) <= set(dir(bnclf))
    for name in bnclf.__all__:
        home = bnclf.models if name in estimators else sys.modules[bnclf._LAZY[name]]
        assert getattr(bnclf, name) is getattr(home, name)
    with pytest.raises(AttributeError, match="has no attribute 'CodesNaiveBayes'"):
        bnclf.CodesNaiveBayes  # noqa: B018  (registered for model files, not exported by bnclf.models)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        bnclf.nothing  # noqa: B018
    assert bnclf.models.TANClassifier is bnclf.TANClassifier  # subpackages as attributes
