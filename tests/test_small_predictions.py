"""Small inputs: a few rows are coded a value at a time, a numpy array without a frame.

Every way of coding the same data gives the same codes, errors and warnings: value by value
(at most ``_SMALL_ROWS`` rows) or vectorized, the frame's columns read from its blocks or
through ``DataFrame.items``, a numpy array as it is or as the frame ``as_frame`` makes of it,
on an encoder whose lookups are built or a fresh copy of it. No timings here: speed is
measured, not tested.
"""

import copy
import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bnclf.encoding._columns as columns_module
import bnclf.encoding._state_coder as coder_module
from bnclf import AODEClassifier, TANClassifier
from bnclf.encoding._columns import _frame_arrays, _objects
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import UNKNOWN, as_frame

pa = pytest.importorskip("pyarrow")

MISSING = [None, np.nan]

# the values of a column of each family: training draws from all but the last, which is
# then a value never seen in training (a non-integral float: a training column of floats
# holds whole numbers, or it looks continuous)
FAMILIES = {
    "text": ["a", "b", "1", "zz"],
    "int": [0, 1, 2, 7],
    "float": [0.0, 1.0, 3.0, 0.5],
    "bool": [True, False],
    "mixed": ["a", 1, 2.0, "2", False, "new"],
}

KINDS = ("object", "default", "category", "nullable", "arrow")

NULLABLE = {"text": "string", "int": "Int64", "float": "Float64", "bool": "boolean"}

ARROW = {"text": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}


def column(values: list, family: str, kind: str, order: list[int]) -> pd.Series:
    """``values`` as a column of ``kind``; object when the kind cannot hold them."""
    try:
        if kind == "default":
            return pd.Series(values)
        if kind == "category" and family != "mixed":
            present = list(dict.fromkeys(v for v in values if not pd.isna(v)))
            extra = [v for v in FAMILIES[family] if v not in present][:1]
            categories = [(present + extra)[k] for k in order if k < len(present + extra)]
            categories += [v for v in present + extra if v not in categories]
            return pd.Series(pd.Categorical(values, categories=categories))
        if kind == "nullable" and family in NULLABLE:
            return pd.Series(values, dtype=NULLABLE[family])
        if kind == "arrow" and family in ARROW:
            return pd.Series(values, dtype=pd.ArrowDtype(ARROW[family]))
    except (TypeError, ValueError):
        pass
    return pd.Series(values, dtype=object)


@st.composite
def frames(draw, families: list[str], n_rows: int, training: bool) -> pd.DataFrame:
    """A frame of ``n_rows`` rows, one column per family, of kinds drawn at random."""
    data = {}
    for j, family in enumerate(families):
        pool = FAMILIES[family][:-1] if training else FAMILIES[family]
        values = draw(st.lists(st.sampled_from(pool + MISSING), min_size=n_rows, max_size=n_rows))
        if training:
            values[0] = pool[j % len(pool)]  # every training column has an observed value
        kind = draw(st.sampled_from(KINDS))
        order = draw(st.permutations(range(len(FAMILIES[family]))))
        data[f"f{j}"] = column(values, family, kind, order)
    return pd.DataFrame(data)


def outcome(encode) -> tuple:
    """What ``encode()`` gives: the codes (dtype, shape, order, values) or the error, and
    bnclf's warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            codes = encode()
            result = ("codes", codes.dtype.str, codes.shape, codes.flags.f_contiguous, codes.tolist())
        except ValueError as exc:
            result = ("ValueError", str(exc))
    shown = [(w.category.__name__, str(w.message)) for w in caught if w.category.__module__.startswith("bnclf")]
    return result, shown


def every_path(encoder: FeatureEncoder, X, encode=None) -> list[tuple]:
    """The outcomes of coding ``X`` every way: value by value or vectorized, the frame's
    columns read from its blocks or through ``DataFrame.items``, on ``encoder`` (whose
    lookups have been built) and on a fresh copy of it."""
    encode = encode or (lambda enc: enc.codes(X))
    out = []
    for small in (True, False):
        for blocks in (True, False):
            for fresh in (False, True):
                enc = copy.deepcopy(encoder) if fresh else encoder  # a copy has no lookups built
                with mock.patch.object(coder_module, "_SMALL_ROWS", 1 << 30 if small else -1):
                    if blocks:
                        out.append(outcome(lambda: encode(enc)))
                    else:
                        with mock.patch.object(columns_module, "_frame_arrays", lambda frame: None):
                            out.append(outcome(lambda: encode(enc)))
    return out


def fitted(train: pd.DataFrame, missing: str, handle_unknown: str) -> FeatureEncoder:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return FeatureEncoder(missing=missing, handle_unknown=handle_unknown).fit(train)
        except ValueError:
            assume(False)


FAMILY_LISTS = st.lists(st.sampled_from(sorted(FAMILIES)), min_size=1, max_size=4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    families=FAMILY_LISTS,
    missing=st.sampled_from(["category", "ignore"]),
    handle_unknown=st.sampled_from(["marginalize", "error"]),
)
def test_frames_code_alike_every_way(data, families, missing, handle_unknown):
    """Unseen values, missing ones (None, NaN, pd.NA), mixed types, categorical, nullable,
    text and Arrow columns: the same codes, errors and warnings every way, and for the
    frame's rows repeated past the value-by-value size."""
    train = data.draw(frames(families, data.draw(st.integers(2, 12)), training=True))
    test = data.draw(frames(families, data.draw(st.integers(0, 6)), training=False))
    encoder = fitted(train, missing, handle_unknown)
    outcomes = every_path(encoder, test)
    assert all(o == outcomes[0] for o in outcomes), outcomes
    if len(test):
        repeated = pd.concat([test] * (coder_module._SMALL_ROWS // len(test) + 1), ignore_index=True)
        outcomes = every_path(encoder, repeated)
        assert all(o == outcomes[0] for o in outcomes), outcomes
    outcomes = every_path(encoder, test, lambda enc: enc.transform(test.iloc[:, ::-1]))  # selected by name
    assert all(o == outcomes[0] for o in outcomes), outcomes


ARRAY_POOLS = {
    "object": ["a", "b", "zz", 0, 1, 7, 1.0, 0.5, True, "1", None, np.nan, pd.NA],
    "int64": [0, 1, 2, 7, -3],
    "float64": [0.0, 1.0, 7.0, 0.5, np.nan],
    "bool": [True, False],
    "uint8": [0, 1, 2, 255],
    "float16": [0.0, 1.0, 2.0, np.nan],
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    families=FAMILY_LISTS,
    dtype=st.sampled_from(sorted(ARRAY_POOLS)),
    missing=st.sampled_from(["category", "ignore"]),
    handle_unknown=st.sampled_from(["marginalize", "error"]),
)
def test_arrays_code_as_their_frames(data, families, dtype, missing, handle_unknown):
    """A numpy array is coded column by column without a frame: as the frame ``as_frame``
    makes of it, every way, whatever its dtype and values."""
    train = data.draw(frames(families, data.draw(st.integers(2, 12)), training=True))
    encoder = fitted(train, missing, handle_unknown)
    n = data.draw(st.integers(0, 6))
    size = n * len(families)
    cells = data.draw(st.lists(st.sampled_from(ARRAY_POOLS[dtype]), min_size=size, max_size=size))
    array = np.array(cells, dtype=object if dtype == "object" else dtype).reshape(n, len(families))
    as_array = every_path(encoder, array)
    as_its_frame = every_path(encoder, as_frame(array, encoder.feature_index))
    assert all(o == as_array[0] for o in as_array + as_its_frame), (as_array, as_its_frame)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_arrays_pandas_would_convert_go_through_a_frame():
    """Text, a matrix, a masked array: coded as the frame ``as_frame`` makes of them."""
    encoder = FeatureEncoder().fit(pd.DataFrame({"a": ["x", "y"], "b": ["1", "2"]}))
    for array in (
        np.array([["x", "2"], ["q", "1"]]),
        np.asmatrix(np.array([["x", "1"]], dtype=object)),
        np.ma.masked_array(np.array([["y", "2"]], dtype=object), mask=[[True, False]]),
    ):
        frame = as_frame(array, encoder.feature_index)
        np.testing.assert_array_equal(encoder.codes(array), encoder.codes(frame))
    assert encoder.codes(np.array([["x", "2"], ["q", "1"]])).tolist() == [[0, 1], [UNKNOWN, 0]]


def test_values_that_cannot_be_categories_are_named_every_way():
    encoder = FeatureEncoder().fit(pd.DataFrame({"a": ["x", "y"], "b": [1, 2]}))
    array = np.empty((1, 2), dtype=object)
    array[0, 0], array[0, 1] = "x", [1]
    for result, _ in every_path(encoder, array) + every_path(encoder, pd.DataFrame(array, columns=["a", "b"])):
        assert result[0] == "ValueError" and "column 'b' holds list values such as [1]" in result[1]


def test_missing_and_unseen_values_in_a_numpy_row():
    """The ``<missing>`` state when training had one, else summed out; an unseen value
    summed out, or an error under ``handle_unknown="error"``."""
    train = pd.DataFrame({"a": ["x", "y", None], "b": [1, 2, 1]})
    enc = FeatureEncoder().fit(train)
    row = np.array([[None, 3]], dtype=object)
    assert enc.codes(row).tolist() == [[enc.missing_codes_[0], UNKNOWN]]
    assert enc.codes(np.array([[np.nan, 2.0]], dtype=object)).tolist() == [[2, 1]]
    assert enc.codes(np.array([[1.0, 2.0]])).tolist() == [[UNKNOWN, 1]]
    strict = FeatureEncoder(handle_unknown="error").fit(train)
    with pytest.raises(ValueError, match=r"column 'b' has values never seen in training: \[3\]"):
        strict.codes(row)
    strict = FeatureEncoder(missing="ignore", handle_unknown="error").fit(train)
    with pytest.raises(ValueError, match=r"column 'a' has 1 missing values"):
        strict.codes(np.array([[None, 2]], dtype=object))


def test_integers_read_as_text_match_by_text_in_a_numpy_row():
    enc = FeatureEncoder().fit(pd.DataFrame({"t": ["0", "1"]}))
    assert enc.codes(np.array([[1], [0], [5]])).tolist() == [[1], [0], [UNKNOWN]]


def _frame_of_every_dtype() -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "obj": pd.Series(["a", None, 1], dtype=object),
            "int": [1, 2, 3],
            "cat": pd.Categorical(["x", "y", None]),
            "float": [1.0, np.nan, 2.0],
            "str": pd.Series(["a", "b", None], dtype="string"),
            "arrow": pd.Series(["u", None, "w"], dtype=pd.ArrowDtype(pa.string())),
            "nullable": pd.array([1, None, 3], dtype="Int64"),
            "int2": [4, 5, 6],
            "date": pd.to_datetime(["2020-01-01", None, "2021-01-01"]),
            "bool": [True, False, True],
        }
    )
    frame.insert(2, "later", [7, 8, 9])  # a block of its own, between the others
    return frame


@pytest.mark.parametrize(
    "make",
    [
        _frame_of_every_dtype,
        lambda: _frame_of_every_dtype().iloc[1:, ::-1],
        lambda: _frame_of_every_dtype()[["int2", "cat", "int", "later", "obj"]],
        lambda: pd.DataFrame(np.arange(12).reshape(3, 4)).iloc[:, [2, 0, 3, 1]],
        lambda: pd.DataFrame(np.arange(12).reshape(3, 4), columns=list("abcd")).T,
        lambda: pd.DataFrame(index=range(3)),
        lambda: pd.DataFrame({"a": []}),
    ],
)
def test_frame_arrays_are_the_columns_arrays(make):
    """The arrays read from a frame's blocks are its columns' arrays, in order."""
    frame = make()
    arrays = _frame_arrays(frame)
    assert arrays is not None and len(arrays) == frame.shape[1]
    for j, values in enumerate(arrays):
        expected = frame.iloc[:, j].array
        expected = expected.to_numpy() if isinstance(expected, pd.arrays.NumpyExtensionArray) else expected
        assert type(values) is type(expected) and values.dtype == expected.dtype
        assert _objects(values).tolist() == _objects(expected).tolist() or (
            pd.isna(_objects(values)).tolist() == pd.isna(_objects(expected)).tolist()
        )
        np.testing.assert_array_equal(pd.isna(values), pd.isna(expected))


def test_frame_arrays_of_another_storage_are_none():
    class Stored:
        shape = (1, 1)
        _mgr = object()

    assert _frame_arrays(Stored()) is None


@pytest.mark.parametrize("cls", [TANClassifier, AODEClassifier])
def test_one_row_predictions_equal_those_of_many_rows(krkp, cls):
    """A numpy row, a one-row frame and the first row of a large frame: the same
    posteriors, labels and warnings; unseen and missing values summed out alike."""
    X, y = krkp
    model = cls().fit(X, y)
    many = model.predict_proba(X.iloc[:100])
    rows = X.to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither input warns (feature names included)
        for i in (0, 57):
            np.testing.assert_array_equal(model.predict_proba(rows[i : i + 1]), many[i : i + 1])
            np.testing.assert_array_equal(model.predict_proba(X.iloc[i : i + 1]), many[i : i + 1])
            assert model.predict(rows[i : i + 1]).tolist() == model.predict(X.iloc[[i]]).tolist()
    odd = rows[:3].copy()
    odd[0, 0], odd[1, 5], odd[2, 7] = None, "never seen", np.nan
    odd_frame = pd.DataFrame(odd, columns=X.columns)  # object columns
    categorical = X.iloc[:3].copy()
    categorical.iloc[0, 0] = categorical.iloc[2, 7] = np.nan
    np.testing.assert_array_equal(model.predict_proba(odd[[0, 2]]), model.predict_proba(categorical.iloc[[0, 2]]))
    np.testing.assert_array_equal(model.predict_proba(odd), model.predict_proba(odd_frame))
    np.testing.assert_array_equal(model.predict_proba(odd[:1]), model.predict_proba(odd_frame.iloc[:1]))
    np.testing.assert_array_equal(
        model.predict_proba(np.concatenate([odd] * 30)), np.concatenate([model.predict_proba(odd)] * 30)
    )


def test_numpy_rows_are_checked_as_before(krkp):
    X, y = krkp
    model = TANClassifier().fit(X, y)
    with pytest.raises(ValueError, match="X has 35 features, but TANClassifier is expecting 36 features"):
        model.predict_proba(X.to_numpy()[:1, :35])
    with pytest.raises(ValueError, match="Expected a 2-D array"):
        model.predict_proba(X.to_numpy()[0])
    with pytest.raises(ValueError, match="Complex data not supported"):
        model.predict_proba(np.ones((1, 36), dtype=complex))
