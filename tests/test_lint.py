"""The code passes the linter configured in pyproject.toml (ruff: pyflakes, pycodestyle,
import order, bugbear)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check_is_clean():
    pytest.importorskip("ruff")  # in the test extras; skipped only in a bare environment
    exe = shutil.which("ruff") or sys.executable
    cmd = [exe, "check"] if exe != sys.executable else [exe, "-m", "ruff", "check"]
    result = subprocess.run(
        cmd + ["bnclf", "tests", "benchmarks", "examples", "docs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
