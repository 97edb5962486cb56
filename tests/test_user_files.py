"""Files as users write them and writes that fail.

* A failed write is never a success: an ``ENOSPC`` injected into the staged write of a
  file ends in an error naming the file, which keeps its previous content; standard
  output sent to ``/dev/full`` (and ``-o /dev/full``) ends with a non-zero exit naming it,
  and a device target is never replaced by a regular file.
"""

from __future__ import annotations

import errno
import os
import re
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


# -- 1. R's NA --------------------------------------------------------------------------
def _heart_c(folder: Path) -> tuple[Path, Path]:
    """heart-c written with empty cells for missing values, and with R's ``NA``."""
    X, y = load_dataset("heart-c")
    frame = X.assign(num=y)
    empty, na = folder / "empty.csv", folder / "na.csv"
    frame.to_csv(empty, index=False)
    frame.to_csv(na, index=False, na_rep="NA")
    return empty, na


def test_r_na_reads_as_the_empty_cells_do(tmp_path):
    from bnclf.datasets import load_table, read_csv_table

    empty, na = _heart_c(tmp_path)
    assert "NA" in na.read_text() and "NA" not in empty.read_text()
    with pytest.warns(UserWarning, match=r"'ca': 'NA' \(5 cells\).*text columns 'thal': 'NA' \(2 cells\)"):
        frame = read_csv_table(na)
    pd.testing.assert_frame_equal(frame, read_csv_table(empty))
    with pytest.warns(UserWarning, match="missing-value tokens"):
        X_na, y_na = load_table(na)
    X, y = load_table(empty)
    pd.testing.assert_frame_equal(X_na, X)
    assert X_na["ca"].dtype == "Int64"  # whole numbers 0-3 with missing cells: integer categories, as from empty


def test_r_na_gives_the_same_model_and_predictions(tmp_path, capsys):
    from bnclf.io import load_model

    empty, na = _heart_c(tmp_path)
    shown, predicted, models = {}, {}, {}
    for data in (empty, na):
        model = tmp_path / f"{data.stem}.bnclf"
        assert main(["fit", str(data), "-o", str(model)]) is None
        capsys.readouterr()
        assert main(["show", str(model), "--cpt", "ca", "--cpt", "thal", "--cpt", "num"]) is None
        shown[data.stem] = capsys.readouterr().out.replace(str(model), "")
        models[data.stem] = load_model(model)[-1]
        for rows in (empty, na):
            out = tmp_path / f"p_{data.stem}_{rows.stem}.csv"
            assert main(["predict", str(model), str(rows), "--proba", "-o", str(out)]) is None
            predicted[data.stem, rows.stem] = out.read_text()
    assert shown["na"] == shown["empty"]
    assert len(set(predicted.values())) == 1
    a, b = models["empty"], models["na"]
    assert sorted(a.dag_.edges()) == sorted(b.dag_.edges())
    for cpd in a.to_pgmpy().get_cpds():
        other = b.to_pgmpy().get_cpds(cpd.variable)
        assert cpd.state_names == other.state_names
        assert (abs(cpd.get_values() - other.get_values()) == 0).all()


@pytest.mark.parametrize("token", ["NA", "N/A", "NaN", "null", "None", "<NA>", "NULL", "nan", "#N/A"])
def test_each_missing_token_in_numbers_is_missing(tmp_path, token):
    from bnclf.datasets import read_csv_table

    path = tmp_path / "t.csv"
    path.write_text(f"income,region,class\n1200.5,EU,a\n{token},NA,b\n900,EU,a\n1500,NA,b\n")
    with pytest.warns(UserWarning, match=rf"'income': {token!r} \(1 cells\)") as caught:
        frame = read_csv_table(path)
    assert len(caught) == 1
    assert frame["income"].dtype == float and frame["income"].isna().tolist() == [False, True, False, False]
    if token == "NA":  # the file writes missing values as NA: its text columns too, said in the warning
        assert frame["region"].isna().sum() == 2 and "'region': 'NA' (2 cells)" in str(caught[0].message)
    else:
        assert frame["region"].tolist() == ["EU", "NA", "EU", "NA"]


def test_na_as_a_value_of_a_text_column_is_kept(tmp_path, recwarn):
    from bnclf.datasets import load_table

    path = tmp_path / "t.csv"
    path.write_text("region,income,code,class\nNA,1.5,NA,a\nEU,2.5,NA,b\nNA,,NA,a\nASIA,3,NA,b\n")
    X, _ = load_table(path)
    assert X["region"].tolist() == ["NA", "EU", "NA", "ASIA"]
    assert X["code"].tolist() == ["NA"] * 4  # a column of only NA is text, not an empty column
    assert X["income"].isna().sum() == 1
    assert not [w for w in recwarn if "missing-value" in str(w.message)]


def test_r_na_with_decimal_commas(tmp_path):
    from bnclf.datasets import read_csv_table

    path = tmp_path / "t.csv"
    path.write_text("x;y;class\n1,5;2;a\nNA;3;b\n2,25;NA;a\n")
    with pytest.warns(UserWarning, match="missing-value tokens"):
        frame = read_csv_table(path)
    assert frame["x"].tolist()[0] == 1.5 and pd.isna(frame["x"][1]) and frame["x"][2] == 2.25
    assert pd.isna(frame["y"][2]) and frame["y"].dtype == float


# -- 3. headers that are numbers, --no-header on a header line, short lines ------------
def _years(folder: Path) -> tuple[Path, Path, pd.DataFrame]:
    """A table whose header line is years and a label, and its rows without the label."""
    import numpy as np

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"2019": rng.normal(size=60).round(2), "2020": rng.normal(size=60).round(2)})
    frame["2021"] = rng.integers(0, 3, 60)
    frame["label"] = np.where(frame["2019"] + rng.normal(size=60) * 0.3 > 0, "yes", "no")
    data, rows = folder / "years.csv", folder / "years_rows.csv"
    frame.to_csv(data, index=False)
    frame.drop(columns="label").to_csv(rows, index=False)
    return data, rows, frame


def test_a_header_of_years_is_read_with_header(tmp_path, capsys):
    from bnclf.datasets import load_table

    data, rows, frame = _years(tmp_path)
    assert main(["fit", str(data), "-o", str(tmp_path / "m.bnclf")]) == 2
    assert "pass --header" in capsys.readouterr().err  # refused, with the way to read it
    X, y = load_table(data, header="always")
    assert list(X.columns) == ["2019", "2020", "2021"] and len(X) == 60
    assert sorted(y.unique()) == ["no", "yes"]  # the header line is not a row, 'label' no class
    model = tmp_path / "m.bnclf"
    assert main(["fit", str(data), "--header", "-o", str(model)]) is None
    assert "on 60 rows x 3 features" in capsys.readouterr().out
    out = tmp_path / "p.csv"
    assert main(["predict", str(model), str(rows), "--header", "-o", str(out)]) is None
    # the oracle: the same model fitted on the frame through the API predicts the same
    from bnclf.io import load_model

    expected = load_model(model).predict(frame[["2019", "2020", "2021"]].astype({"2021": "Int64"}))
    assert pd.read_csv(out)["prediction"].tolist() == list(expected)


def test_no_header_on_a_header_of_years_warns_at_fit_and_predict(tmp_path, capsys):
    data, rows, _ = _years(tmp_path)
    model = tmp_path / "m.bnclf"
    assert main(["fit", str(data), "--no-header", "-o", str(model)]) is None
    assert re.search(r"warning: the first line of .* looks like column names.*--header", capsys.readouterr().err)
    good = tmp_path / "good.bnclf"
    assert main(["fit", str(data), "--header", "-o", str(good)]) is None
    capsys.readouterr()
    assert main(["predict", str(good), str(rows), "--no-header", "-o", str(tmp_path / "p.csv")]) is None
    err = capsys.readouterr().err
    assert re.search(
        r"warning: the first line of .*years_rows.csv holds the model's column names \(2019, 2020, 2021\)", err
    )
    assert "predicted as a row" in err


def test_header_and_no_header_together_are_refused(tmp_path, capsys):
    data, _, _ = _years(tmp_path)
    assert main(["fit", str(data), "--header", "--no-header"]) == 2
    assert "--header and --no-header" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["fit", "predict"])
def test_short_lines_are_named_by_line(tmp_path, capsys, command):
    model, rows = _iris_files(tmp_path)
    lines = rows.read_text().splitlines()
    lines[5] = ",".join(lines[5].split(",")[:3])  # line 6: three cells of five
    lines[8] = ",".join(lines[8].split(",")[:2])  # line 9: two
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    argv = ["fit", str(bad), "-o", str(tmp_path / "x.bnclf")] if command == "fit" else ["predict", str(model), str(bad)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{bad} has lines with fewer cells than its 5 columns: line 6 (3 cells), line 9 (2 cells)" in err


def test_long_lines_at_predict_are_named_by_line(tmp_path, capsys):
    model, rows = _iris_files(tmp_path)
    lines = rows.read_text().splitlines()
    lines[6] += ",9"
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    assert main(["predict", str(model), str(bad)]) == 2
    assert "line 7" in capsys.readouterr().err


def test_empty_trailing_cells_are_not_short_lines(tmp_path):
    from bnclf.datasets import read_csv_table

    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,x,\n2,y,p\n\n3,,\n")
    frame = read_csv_table(path)
    assert frame.shape == (3, 3) and frame["c"].isna().sum() == 2
