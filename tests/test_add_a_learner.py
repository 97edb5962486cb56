"""The "How to add a learner" walk-through of docs/architecture.md, followed to the letter.

The package is copied to a temporary folder; the code blocks of the walk-through are
written into the copy (new files as they are; the lines for ``bnclf/models/__init__.py``
inserted beside the others), and nothing else is changed. A fresh interpreter then checks
that the toy learner works everywhere a learner should: its short names, the command
line, safe model files, fitting from chunks and from a Dask DataFrame, pgmpy export,
scikit-learn's estimator checks, the layout rules and the start-up rules (what ``import
bnclf`` and the command's parser load); and the walk-through's own test passes. So the
walk-through cannot drift from the code.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bnclf

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"


def _walkthrough_blocks() -> dict[str, str]:
    """``path -> code`` for every Python block of the section whose first line names a file."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## How to add a learner", 1)[1].split("\n## ", 1)[0]
    blocks = {}
    for code in re.findall(r"```python\n(.*?)```", section, re.S):
        first, _, body = code.partition("\n")
        match = re.fullmatch(r"# ((?:bnclf|tests)/[\w/]+\.py)", first.strip())
        if match:
            blocks[match.group(1)] = body
    return blocks


def _add_to_models_init(init: str, lines: str) -> str:
    """Put the walk-through's import beside the other imports and its name in ``__all__``."""
    imports = [line for line in lines.splitlines() if line.startswith("from ")]
    names = [f'"{name}",' for line in lines.splitlines() if "__all__" in line for name in re.findall(r'"(\w+)"', line)]
    assert imports and names, lines
    head, _, rest = init.partition("__all__ = [\n")
    return (
        head.rstrip("\n")
        + "\n"
        + "\n".join(imports)
        + "\n\n__all__ = [\n"
        + "".join(f"    {n}\n" for n in names)
        + rest
    )


CHECKS = r"""
import json, subprocess, sys, warnings, zipfile
import numpy as np
import pandas as pd

import bnclf
from bnclf import make_classifier
from bnclf.io import load_model, save_model
from bnclf.models import CLASSIFIERS, ESTIMATORS, ChainClassifier

assert ChainClassifier in ESTIMATORS
assert bnclf.ChainClassifier is ChainClassifier and "ChainClassifier" in bnclf.__all__  # the top level too
assert CLASSIFIERS["chain-reversed"]().reverse is True

rng = np.random.default_rng(1)
X = pd.DataFrame({f"x{j}": rng.integers(0, 3, 300) for j in range(4)}).astype("category")
y = pd.Series(np.where(rng.random(300) < 0.5, "yes", "no"), name="label")
model = make_classifier("chain(m=0.5)").fit(X, y)
chain = [("x0", "x1"), ("x1", "x2"), ("x2", "x3")]
assert sorted(model.dag_.edges) == sorted(chain + [("label", f"x{j}") for j in range(4)])

# the parameter table is checked by fit
try:
    ChainClassifier(reverse="yes").fit(X, y)
except ValueError as error:
    assert "reverse='yes' is not valid; reverse is whether the arcs run" in str(error), error
else:
    raise AssertionError("reverse='yes' was accepted")

# a safe model file: the class is on the allow-list, no refit
path = save_model(model, sys.argv[1] + "/chain.bnclf")
back = load_model(path)
assert type(back) is ChainClassifier
np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))

# from chunks and from Dask, bit for bit
chunked = ChainClassifier(m=0.5).fit_chunks([(X.iloc[:100], y.iloc[:100]), (X.iloc[100:], y.iloc[100:])])
np.testing.assert_array_equal(chunked.predict_proba(X), model.predict_proba(X))
import dask.dataframe as dd
dask_model = ChainClassifier(m=0.5).fit(dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3))
np.testing.assert_array_equal(dask_model.predict_proba(X), model.predict_proba(X))

# pgmpy export and the command line
assert len(model.to_pgmpy().edges()) == 7
X.assign(label=y).to_csv(sys.argv[1] + "/toy.csv", index=False)
out = subprocess.run([sys.executable, "-m", "bnclf", "fit", sys.argv[1] + "/toy.csv", "--class", "label",
                      "--model", "chain-reversed", "--out", sys.argv[1] + "/cli.bnclf"],
                     capture_output=True, text=True)
assert out.returncode == 0, out.stderr
assert ("x1", "x0") in load_model(sys.argv[1] + "/cli.bnclf")[-1].dag_.edges  # a Pipeline
usage = subprocess.run([sys.executable, "-m", "bnclf", "fit", "--help"], capture_output=True, text=True).stdout
assert "chain" in usage

# scikit-learn's checks, with the exemptions every bnclf classifier has (continuous features)
from sklearn.utils.estimator_checks import check_estimator
continuous = ["check_positive_only_tag_during_fit", "check_sample_weight_equivalence_on_dense_data"]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    check_estimator(ChainClassifier(), expected_failed_checks=dict.fromkeys(continuous, "continuous"))
print("all checks passed")
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="checks the doc with the current toolchain only")
def test_the_walkthrough_adds_a_working_learner(tmp_path):
    pytest.importorskip("dask.dataframe")
    blocks = _walkthrough_blocks()
    assert set(blocks) == {
        "bnclf/learn/_chain.py",
        "bnclf/models/_chain.py",
        "bnclf/models/__init__.py",
        "tests/test_chain.py",
    }
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "bnclf", copy / "bnclf", ignore=shutil.ignore_patterns("__pycache__"))
    built = Path(bnclf.__file__).parent  # the installed package: its compiled kernels, as an in-place build
    for extension in [*built.rglob("*.so"), *built.rglob("*.pyd")]:
        shutil.copy(extension, copy / "bnclf" / extension.relative_to(built))
    (copy / "tests").mkdir()
    for name in ("pgmpy_oracle.py", "test_layout.py", "test_parameter_table.py", "test_cli_startup.py"):
        shutil.copy(ROOT / "tests" / name, copy / "tests" / name)
    before = {p.relative_to(copy).as_posix(): p.read_bytes() for p in (copy / "bnclf").rglob("*") if p.is_file()}

    for path, code in blocks.items():
        target = copy / path
        if path == "bnclf/models/__init__.py":
            target.write_text(_add_to_models_init(target.read_text(), code))
        else:
            assert not target.exists(), f"the walk-through should create {path}"
            target.write_text(code)

    after = {p.relative_to(copy).as_posix(): p.read_bytes() for p in (copy / "bnclf").rglob("*") if p.is_file()}
    changed = {path for path in after if before.get(path) != after[path]}
    assert changed == {"bnclf/learn/_chain.py", "bnclf/models/_chain.py", "bnclf/models/__init__.py"}

    env = {"PYTHONPATH": str(copy), "PATH": "", "MPLBACKEND": "Agg", "HOME": str(tmp_path)}
    script = tmp_path / "checks.py"
    script.write_text(CHECKS)
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path)], cwd=copy, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "all checks passed" in result.stdout
    tests = [
        "tests/test_chain.py",
        "tests/test_layout.py",
        "tests/test_parameter_table.py",
        "tests/test_cli_startup.py",
    ]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert re.search(r"\b\d+ passed\b", result.stdout) and "failed" not in result.stdout
