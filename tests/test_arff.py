"""Tests of bnclf.io: dense, sparse and gzip ARFF reading, writing, X/y split.

The expected values of the fixtures were also checked by loading them with
Weka 3.6 (``weka.core.converters.ConverterUtils.DataSource``).
"""

import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

from bnclf.io._arff import load_arff_xy, read_arff, write_arff

DATA = Path(__file__).parent / "data"


def _categorical(values, categories=None, **kwargs):
    """A categorical as read_arff gives it: its categories held as Python objects (pandas 3
    would otherwise hold text categories in its Arrow-backed ``str`` dtype)."""
    categories = None if categories is None else pd.Index(list(categories), dtype=object)
    return pd.Categorical(values, categories=categories, **kwargs)


def _expected_dense():
    return pd.DataFrame(
        {
            "width": [1.5, np.nan, 2.25, -0.5, 3.0],
            "count": [3.0, 4.0, np.nan, 7.0, 0.0],
            "colour": _categorical(["red", "green", None, "blue", "blue"], categories=["red", "green", "blue"]),
            "note": np.array(["hello", "two words", np.nan, "x", "it's"], dtype=object),
            "label": _categorical(["yes", "no", "yes", None, "no"], categories=["yes", "no"]),
        }
    )


def test_dense_with_missing_values_crlf_and_padded_nominals():
    raw = (DATA / "dense_missing.arff").read_bytes()
    assert b"\r\n" in raw  # the fixture really has CRLF line endings
    df = read_arff(DATA / "dense_missing.arff")
    pdt.assert_frame_equal(df, _expected_dense())
    # declared order kept, whitespace after the commas of "{ red, green, blue}" trimmed
    assert list(df["colour"].cat.categories) == ["red", "green", "blue"]
    assert df["width"].dtype == np.float64 and df["count"].dtype == np.float64
    assert df["note"].dtype == object or isinstance(df["note"].dtype, pd.StringDtype)  # pandas 3: str
    assert df.attrs["relation"] == "dense_missing"


def test_sparse_rows_fill_zero_and_first_nominal_value():
    df = read_arff(DATA / "sparse.arff")
    expected = pd.DataFrame(
        {
            "a": [1.5, 0.0, 0.0, np.nan, 0.0],
            "b": _categorical(["x", "y", "x", "z", "x"], categories=["x", "y", "z"]),
            "c": [3.0, 0.0, 0.0, 0.0, -2.5],
            "d": _categorical(["0", "1", "0", "0", None], categories=["0", "1"]),
            "class": _categorical(["neg", "pos", "pos", "pos", "pos"], categories=["pos", "neg"]),
        }
    )
    pdt.assert_frame_equal(df, expected)


def test_gzip_file_path_and_file_objects():
    plain = read_arff(DATA / "dense_missing.arff")
    pdt.assert_frame_equal(read_arff(DATA / "dense_missing.arff.gz"), plain)
    pdt.assert_frame_equal(read_arff(str(DATA / "dense_missing.arff.gz")), plain)
    with open(DATA / "dense_missing.arff.gz", "rb") as handle:  # binary gzip stream
        pdt.assert_frame_equal(read_arff(handle), plain)
    with open(DATA / "dense_missing.arff", encoding="utf-8", newline="") as handle:
        pdt.assert_frame_equal(read_arff(handle), plain)


def test_weka_example_files():
    iris = read_arff(DATA / "iris.arff")
    assert iris.shape == (150, 5)
    species = ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]
    assert list(iris["class"].cat.categories) == species
    assert (iris.dtypes.iloc[:4] == np.float64).all()

    glass = read_arff(DATA / "glass.arff")  # CRLF, long comment header, quoted names
    assert glass.shape == (214, 10)
    assert list(glass.columns[:3]) == ["RI", "Na", "Mg"]
    assert glass["Type"].cat.categories[0] == "build wind float"
    assert glass["Type"].value_counts()["build wind non-float"] == 76

    labor = read_arff(DATA / "labor.arff")
    assert labor.shape == (57, 17)
    assert labor["duration"].isna().sum() == 1
    assert labor.isna().sum().sum() == 326


def test_date_attributes_are_read_as_text():
    text = "@relation d\n@attribute when date 'yyyy-MM-dd'\n@attribute v numeric\n@data\n'2001-04-03',1\n?,2\n"
    df = read_arff(io.StringIO(text))
    assert df["when"].tolist()[0] == "2001-04-03"
    assert pd.isna(df["when"].iloc[1])
    assert df["v"].tolist() == [1.0, 2.0]


def test_invalid_file_raises_value_error():
    with pytest.raises(ValueError, match="Cannot parse ARFF"):
        read_arff(io.StringIO("@relation r\n@attribute a {x,y}\n@data\nz\n"))


def test_load_arff_xy_default_and_named_target():
    X, y = load_arff_xy(DATA / "iris.arff")
    assert X.shape == (150, 4) and y.name == "class"
    assert "class" not in X.columns

    X, y = load_arff_xy(DATA / "dense_missing.arff", target="colour")
    assert y.name == "colour"
    assert list(X.columns) == ["width", "count", "note", "label"]


def test_load_arff_xy_unknown_target_names_it():
    with pytest.raises(ValueError, match="'species'"):
        load_arff_xy(DATA / "iris.arff", target="species")


def _tricky_frame():
    return pd.DataFrame(
        {
            "num col": [1.5, np.nan, 1e-300, -3.0, 0.1 + 0.2],
            "int": [1, 2, 3, 4, 5],
            "cat": _categorical(
                ["a b", "it's", None, "x,y", "%p"],
                categories=["a b", "it's", "x,y", "{q}", "%p", "unused"],
            ),
            "text": np.array(["p", None, "back\\slash", "?", "é"], dtype=object),
            "flag": [True, False, True, True, False],
        }
    )


@pytest.mark.parametrize("suffix", [".arff", ".arff.gz"])
def test_round_trip(tmp_path, suffix):
    df = _tricky_frame()
    path = tmp_path / f"out{suffix}"
    write_arff(df, path, relation="round trip")
    if suffix.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            assert handle.readline().startswith("@relation 'round trip'")
    back = read_arff(path)
    assert back.attrs["relation"] == "round trip"

    expected = df.copy()
    expected["int"] = expected["int"].astype(float)
    expected["text"] = _categorical(df["text"], categories=["?", "back\\slash", "p", "é"])
    expected["flag"] = _categorical(df["flag"].map(str), categories=["False", "True"])
    pdt.assert_frame_equal(back, expected)
    # exact float round trip
    assert back["num col"].iloc[4] == 0.1 + 0.2


def test_round_trip_of_fixture_files(tmp_path):
    for name in ["dense_missing.arff", "sparse.arff", "iris.arff", "labor.arff"]:
        df = read_arff(DATA / name)
        write_arff(df, tmp_path / name, relation=df.attrs["relation"])
        back = read_arff(tmp_path / name)
        string_cols = [c for c in df.columns if df[c].dtype == object or isinstance(df[c].dtype, pd.StringDtype)]
        # string attributes come back nominal; compare their values
        for c in string_cols:
            pdt.assert_series_equal(back[c].astype(object), df[c].astype(object))
        pdt.assert_frame_equal(back.drop(columns=string_cols), df.drop(columns=string_cols))


def test_write_to_text_buffer_and_type_errors():
    buffer = io.StringIO()
    write_arff(pd.DataFrame({"a": [1.0, np.inf]}), buffer)
    assert buffer.getvalue().splitlines()[-1] == "Infinity"
    assert read_arff(io.StringIO(buffer.getvalue()))["a"].tolist() == [1.0, np.inf]
    with pytest.raises(TypeError, match="DataFrame"):
        write_arff(np.zeros((2, 2)), io.StringIO())


def test_weka_range_notation_is_read():
    import io

    text = (
        "@relation r\n@attribute x integer [0,10]\n@attribute 'y y' REAL [0.0, 1.5]\n"
        "@attribute z numeric (1, 2)\n@attribute c {a,b}\n@data\n1,0.5,1,a\n3,1.2,2,b\n"
    )
    df = read_arff(io.StringIO(text))
    assert list(df.columns) == ["x", "y y", "z", "c"]
    assert df["x"].tolist() == [1.0, 3.0] and df["y y"].tolist() == [0.5, 1.2]
    assert list(df["c"].cat.categories) == ["a", "b"]
