"""Tests of bnclf.io.load_mulan (MULAN/MEKA multilabel ARFF) and the embedded multilabel data."""

import gzip
import io
import warnings

import numpy as np
import pandas as pd
import pytest

from bnclf.datasets import (
    list_multilabel_datasets,
    load_multilabel_dataset,
    multilabel_dataset_path,
)
from bnclf.io._arff import load_mulan

EMOTIONS_LABELS = ["amazed-suprised", "happy-pleased", "relaxing-calm", "quiet-still", "sad-lonely", "angry-aggresive"]

# Labels last (MULAN layout): two nominal {0,1} labels and a numeric 0/1 one.
DENSE = """@relation toy
@attribute f1 numeric
@attribute f2 {a,b}
@attribute red {0,1}
@attribute green {0,1}
@attribute blue numeric
@data
1.5,a,1,0,1
?,b,0,0,0
2.0,a,1,1,0
"""
DENSE_Y = {"red": [1, 0, 1], "green": [0, 0, 1], "blue": [1, 0, 0]}

# Sparse rows: omitted entries are 0 (the first declared value of a {0,1} attribute).
SPARSE = """@relation sparse
@attribute w1 {0,1}
@attribute w2 numeric
@attribute l1 {0,1}
@attribute l2 {0,1}
@data
{0 1, 3 1}
{1 2.5, 2 1}
{}
"""

# Labels first, as MEKA writes them.
MEKA = """@relation 'songs: -C 2'
@attribute rock {0,1}
@attribute jazz {0,1}
@attribute tempo numeric
@attribute mode {major,minor}
@data
1,0,120,major
1,1,96,minor
0,1,60,minor
"""

LABEL_XML = """<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="{0}"></label>
<label name="{1}"></label>
</labels>
"""


def _frame_y(Y):
    return {name: Y[name].tolist() for name in Y.columns}


def _assert_indicator(Y, names):
    assert list(Y.columns) == names
    assert all(dtype == np.int8 for dtype in Y.dtypes)
    assert set(np.unique(Y.to_numpy())) <= {0, 1}


# --------------------------------------------------------------------------- embedded emotions


def test_embedded_emotions_loads_with_the_xml_labels():
    assert list_multilabel_datasets() == ["emotions"]
    X, Y = load_multilabel_dataset("emotions")
    assert X.shape == (593, 72)
    assert all(dtype == np.float64 for dtype in X.dtypes)
    assert Y.shape == (593, 6)
    _assert_indicator(Y, EMOTIONS_LABELS)
    assert Y.index.equals(X.index)
    assert Y.to_numpy().sum(axis=1).mean() == pytest.approx(1.868, abs=1e-3)  # label cardinality (MULAN)
    assert str(multilabel_dataset_path("emotions")).endswith("emotions.arff.gz")


def test_unknown_multilabel_dataset_lists_the_choices():
    with pytest.raises(ValueError, match=r"'nope'.*\['emotions'\]"):
        load_multilabel_dataset("nope")


# --------------------------------------------------------------------------- choosing the labels


def test_dense_by_count_keeps_feature_types():
    X, Y = load_mulan(io.StringIO(DENSE), n_labels=3)
    assert list(X.columns) == ["f1", "f2"]
    assert X["f1"].dtype == np.float64 and np.isnan(X["f1"].iloc[1])
    assert list(X["f2"].cat.categories) == ["a", "b"]
    _assert_indicator(Y, ["red", "green", "blue"])
    assert _frame_y(Y) == DENSE_Y
    assert X.attrs["relation"] == "toy"


def test_negative_count_means_the_first_attributes():
    X, Y = load_mulan(io.StringIO(MEKA), n_labels=-2)
    assert list(X.columns) == ["tempo", "mode"]
    assert _frame_y(Y) == {"rock": [1, 1, 0], "jazz": [0, 1, 1]}


def test_by_names_in_file_order():
    X, Y = load_mulan(io.StringIO(DENSE), ["blue", "red"])
    assert list(X.columns) == ["f1", "f2", "green"]
    assert list(X["green"].cat.categories) == ["0", "1"]  # not a label here: an ordinary feature
    _assert_indicator(Y, ["red", "blue"])
    assert _frame_y(Y) == {"red": DENSE_Y["red"], "blue": DENSE_Y["blue"]}


def test_by_xml_file_with_namespace_and_hierarchy(tmp_path):
    xml = tmp_path / "labels.xml"
    xml.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<labels xmlns="http://mulan.sourceforge.net/labels">\n'
        '  <label name="blue"><label name="green"></label></label>\n'
        '  <label name="red"></label>\n'
        "</labels>\n"
    )
    X, Y = load_mulan(io.StringIO(DENSE), xml=xml)
    assert list(X.columns) == ["f1", "f2"]
    _assert_indicator(Y, ["red", "green", "blue"])
    assert _frame_y(Y) == DENSE_Y
    plain = tmp_path / "plain.xml"  # no namespace
    plain.write_text('<labels><label name="green"/></labels>')
    assert list(load_mulan(io.StringIO(DENSE), xml=str(plain))[1].columns) == ["green"]


def test_sparse_rows_from_a_file(tmp_path):
    path = tmp_path / "sparse.arff"
    path.write_text(SPARSE)
    X, Y = load_mulan(path, n_labels=2)
    assert X["w1"].tolist() == ["1", "0", "0"]
    assert X["w2"].tolist() == [0.0, 2.5, 0.0]
    _assert_indicator(Y, ["l1", "l2"])
    assert _frame_y(Y) == {"l1": [0, 1, 0], "l2": [1, 0, 0]}
    assert _frame_y(load_mulan(io.StringIO(SPARSE), ["l2"])[1]) == {"l2": [1, 0, 0]}


@pytest.mark.parametrize("file_name", ["toy.arff", "toy-train.arff", "toy-test.arff.gz", "toy.arff.gz"])
def test_sibling_xml_is_found(tmp_path, file_name):
    path = tmp_path / file_name
    if file_name.endswith(".gz"):
        path.write_bytes(gzip.compress(DENSE.encode()))
    else:
        path.write_text(DENSE)
    (tmp_path / "toy.xml").write_text(LABEL_XML.format("red", "green"))
    X, Y = load_mulan(path)
    assert list(X.columns) == ["f1", "f2", "blue"]
    assert _frame_y(Y) == {"red": DENSE_Y["red"], "green": DENSE_Y["green"]}


def test_sibling_xml_of_the_split_itself_comes_first(tmp_path):
    path = tmp_path / "toy-train.arff"
    path.write_text(DENSE)
    (tmp_path / "toy.xml").write_text(LABEL_XML.format("red", "green"))
    (tmp_path / "toy-train.xml").write_text(LABEL_XML.format("green", "blue"))
    assert list(load_mulan(path)[1].columns) == ["green", "blue"]


def test_meka_tag_positive_means_the_first_attributes():
    X, Y = load_mulan(io.StringIO(MEKA))
    assert list(X.columns) == ["tempo", "mode"]
    _assert_indicator(Y, ["rock", "jazz"])
    assert _frame_y(Y) == {"rock": [1, 1, 0], "jazz": [0, 1, 1]}


def test_meka_tag_negative_means_the_last_attributes():
    text = DENSE.replace("@relation toy", "@relation 'toy: -C -2 -split-percentage 50'")
    X, Y = load_mulan(io.StringIO(text))
    assert list(X.columns) == ["f1", "f2", "red"]
    assert _frame_y(Y) == {"green": DENSE_Y["green"], "blue": DENSE_Y["blue"]}


def test_explicit_choice_overrides_the_meka_tag():
    X, Y = load_mulan(io.StringIO(MEKA), ["jazz"])
    assert list(X.columns) == ["rock", "tempo", "mode"]
    assert list(Y.columns) == ["jazz"]
    with pytest.raises(ValueError, match=r"label column 'mode' is nominal with values \{major, minor\}"):
        load_mulan(io.StringIO(MEKA), n_labels=1)


def test_sibling_xml_wins_over_a_disagreeing_meka_tag(tmp_path):
    path = tmp_path / "toy.arff"
    path.write_text(DENSE.replace("@relation toy", "@relation 'toy: -C 2'"))
    (tmp_path / "toy.xml").write_text(LABEL_XML.format("green", "blue"))
    with pytest.warns(UserWarning, match=r"'-C 2'.*first 2.*using toy\.xml"):
        X, Y = load_mulan(path)
    assert list(Y.columns) == ["green", "blue"]
    path.write_text(DENSE.replace("@relation toy", "@relation 'toy: -C -3'"))
    (tmp_path / "toy.xml").write_text(
        LABEL_XML.format("red", "green").replace("</labels>", '<label name="blue"/></labels>')
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # they agree: no warning
        assert list(load_mulan(path)[1].columns) == ["red", "green", "blue"]


def test_no_way_to_find_the_labels_says_how():
    with pytest.raises(ValueError, match=r"Cannot tell which attributes.*labels=.*n_labels=.*xml="):
        load_mulan(io.StringIO(DENSE))


# --------------------------------------------------------------------------- errors


def test_non_binary_label_columns_are_named():
    with pytest.raises(ValueError, match=r"label column 'f2' is nominal with values \{a, b\}.*binarize"):
        load_mulan(io.StringIO(DENSE), ["f2", "red"])
    with pytest.raises(ValueError, match=r"label column 'f1' .*numeric with values other than 0 and 1 \(1\.5, 2\)"):
        load_mulan(io.StringIO(DENSE.replace("?,b", "0,b")), ["f1"])
    with pytest.raises(ValueError, match=r"label column 'f1' has 1 missing value"):
        load_mulan(io.StringIO(DENSE), n_labels=5)


def test_unknown_label_names_are_listed_with_available_ones():
    with pytest.raises(ValueError, match=r"\['purple', 'Green'\].*similar attributes: \['green'"):
        load_mulan(io.StringIO(DENSE), ["red", "purple", "Green"])
    with pytest.raises(ValueError, match=r"labels names 1 label\(s\).*\['nothing'\]; its last attributes are \["):
        load_mulan(io.StringIO(DENSE), ["nothing"])


def test_unknown_names_in_an_xml_file(tmp_path):
    xml = tmp_path / "labels.xml"
    xml.write_text(LABEL_XML.format("red", "yellow"))
    with pytest.raises(ValueError, match=r"the label file .*labels\.xml names 1 label\(s\).*\['yellow'\]"):
        load_mulan(io.StringIO(DENSE), xml=xml)


def test_missing_label_value_is_named():
    text = DENSE.replace("2.0,a,1,1,0", "2.0,a,1,?,0")
    with pytest.raises(ValueError, match=r"label column 'green' has 1 missing value\(s\) \('\?'\)"):
        load_mulan(io.StringIO(text), n_labels=3)
    sparse = SPARSE.replace("{}", "{3 ?}")
    with pytest.raises(ValueError, match=r"label column 'l2' has 1 missing value"):
        load_mulan(io.StringIO(sparse), n_labels=2)


def test_only_one_way_of_choosing_the_labels():
    with pytest.raises(ValueError, match=r"labels and n_labels; pass only one"):
        load_mulan(io.StringIO(DENSE), ["red"], n_labels=2)
    with pytest.raises(ValueError, match=r"n_labels and xml"):
        load_mulan(io.StringIO(DENSE), n_labels=2, xml="labels.xml")


def test_bad_counts_name_the_parameter():
    with pytest.raises(ValueError, match=r"n_labels=0 gives 0 label attributes but the file has 5"):
        load_mulan(io.StringIO(DENSE), n_labels=0)
    with pytest.raises(ValueError, match=r"n_labels=-6"):
        load_mulan(io.StringIO(DENSE), n_labels=-6)
    with pytest.raises(TypeError, match=r"n_labels=2\.5 must be a whole number"):
        load_mulan(io.StringIO(DENSE), n_labels=2.5)
    with pytest.raises(ValueError, match=r"MEKA tag '-C 0'"):
        load_mulan(io.StringIO(MEKA.replace("-C 2", "-C 0")))
    with pytest.raises(ValueError, match=r"MEKA option -C without a whole number"):
        load_mulan(io.StringIO(MEKA.replace("-C 2", "-C two")))


def test_not_a_mulan_label_file(tmp_path):
    xml = tmp_path / "bad.xml"
    xml.write_text("<network><label name='red'/></network>")
    with pytest.raises(ValueError, match=r"not a MULAN label file: its root element is <network>"):
        load_mulan(io.StringIO(DENSE), xml=xml)
    xml.write_text("<labels><label name='red'>")
    with pytest.raises(ValueError, match=r"Cannot parse the MULAN label file"):
        load_mulan(io.StringIO(DENSE), xml=xml)


def test_y_is_a_sklearn_indicator_matrix():
    from sklearn.utils.multiclass import type_of_target

    _, Y = load_mulan(io.StringIO(DENSE), n_labels=3)
    assert type_of_target(Y.to_numpy()) == "multilabel-indicator"
    pd.testing.assert_index_equal(Y.columns, pd.Index(["red", "green", "blue"]))
