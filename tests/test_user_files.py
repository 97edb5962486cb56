"""Files as users write them and writes that fail.

* A failed write is never a success: an ``ENOSPC`` injected into the staged write of a
  file ends in an error naming the file, which keeps its previous content; standard
  output sent to ``/dev/full`` (and ``-o /dev/full``) ends with a non-zero exit naming it,
  and a device target is never replaced by a regular file.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bnclf.cli import main
from bnclf.datasets import load_dataset

FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(
    not (FULL.exists() and stat.S_ISCHR(FULL.stat().st_mode)), reason="no /dev/full device here"
)


def _iris_files(folder: Path) -> tuple[Path, Path]:
    """A TAN model fitted on iris and the rows it was fitted on."""
    X, y = load_dataset("iris")
    rows = folder / "iris.csv"
    X.assign(cls=y).to_csv(rows, index=False)
    model = folder / "iris.bnclf"
    assert main(["fit", str(rows), "-o", str(model)]) is None
    return model, rows


def _bnclf(args: list[str], cwd: Path, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """``bnclf ARGS`` in a fresh interpreter, run outside the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "bnclf", *args], cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, text=True, check=False
    )


# -- 4. writes that fail --------------------------------------------------------------
def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_while_writing_keeps_the_previous_file(tmp_path, monkeypatch, capsys):
    model, rows = _iris_files(tmp_path)
    target = tmp_path / "out.csv"
    target.write_text("previous content\n")
    real_to_csv = pd.DataFrame.to_csv

    def half_then_full(self, path, *args, **kwargs):  # half of the rows reach the disk, then it is full
        real_to_csv(self.iloc[: len(self) // 2], path, *args, **kwargs)
        _no_space()

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full)
    assert main(["predict", str(model), str(rows), "-o", str(target)]) == 2
    out, err = capsys.readouterr()
    assert "wrote" not in out
    assert str(target) in err and "No space left on device" in err and "previous content" in err
    assert target.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []  # nothing left behind


@pytest.mark.parametrize("command", ["predict", "fit"])
def test_a_full_disk_at_the_flush_keeps_the_previous_file(tmp_path, monkeypatch, capsys, command):
    """The data are flushed to disk (fsync) before the rename: an error there is reported."""
    import bnclf.io._files

    model, rows = _iris_files(tmp_path)
    target = tmp_path / ("out.csv" if command == "predict" else "model.bnclf")
    target.write_bytes(b"previous")
    monkeypatch.setattr(bnclf.io._files.os, "fsync", _no_space)
    argv = ["predict", str(model), str(rows)] if command == "predict" else ["fit", str(rows)]
    assert main([*argv, "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"could not write {target}: No space left on device (errno ENOSPC)" in err
    assert target.read_bytes() == b"previous"


def test_a_full_disk_for_a_new_file_writes_nothing(tmp_path, monkeypatch, capsys):
    import bnclf.io._files

    model, rows = _iris_files(tmp_path)
    target = tmp_path / "new.csv"
    monkeypatch.setattr(bnclf.io._files.os, "fsync", _no_space)
    assert main(["predict", str(model), str(rows), "-o", str(target)]) == 2
    assert "no file was written" in capsys.readouterr().err
    assert not target.exists()


@needs_dev_full
def test_predictions_to_dev_full_fail(tmp_path):
    model, rows = _iris_files(tmp_path)
    result = _bnclf(["predict", str(model), str(rows), "-o", str(FULL)], tmp_path)
    assert result.returncode != 0
    assert "wrote" not in result.stdout
    assert "could not write /dev/full: No space left on device" in result.stderr
    assert stat.S_ISCHR(FULL.stat().st_mode)  # the device is written to, not replaced by a file


@needs_dev_full
@pytest.mark.parametrize("command", ["predict", "show"])
def test_standard_output_to_dev_full_fails(tmp_path, command):
    model, rows = _iris_files(tmp_path)
    argv = ["predict", str(model), str(rows)] if command == "predict" else ["show", str(model)]
    with open(FULL, "w") as full:
        result = _bnclf(argv, tmp_path, stdout=full)
    assert result.returncode == 2, result.stderr
    assert "standard output (/dev/full): No space left on device" in result.stderr
    assert "Exception ignored" not in result.stderr  # one error, not Python's at exit


def test_a_device_target_is_written_not_replaced(tmp_path, capsys):
    model, rows = _iris_files(tmp_path)
    assert main(["predict", str(model), str(rows), "-o", os.devnull]) is None
    assert stat.S_ISCHR(Path(os.devnull).stat().st_mode)
