"""The code passes the linter and the formatter configured in pyproject.toml (ruff:
pyflakes, pycodestyle, import order, bugbear; ``ruff format`` at line length 120)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["bnclf", "tests", "benchmarks", "examples", "docs"]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    pytest.importorskip("ruff")  # in the test extras; skipped only in a bare environment
    exe = shutil.which("ruff")
    cmd = [exe] if exe else [sys.executable, "-m", "ruff"]
    # --no-cache: the test writes nothing into the repository (no .ruff_cache)
    return subprocess.run(
        cmd + list(args) + ["--no-cache"] + PATHS, cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_check_is_clean():
    result = _ruff("check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_applied():
    result = _ruff("format", "--check")
    assert result.returncode == 0, "run `ruff format " + " ".join(PATHS) + "`:\n" + result.stdout + result.stderr
