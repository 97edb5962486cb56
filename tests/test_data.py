"""Encoding: dtypes, missing values, unseen categories, clear errors."""

import numpy as np
import pandas as pd
import pytest

import bnclf.encoding
from bnclf import NaiveBayesClassifier
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import UNKNOWN, as_frame, encode_target


def test_dtypes_are_encoded_once_with_their_labels():
    X = pd.DataFrame(
        {
            "obj": ["b", "a", "b", None],
            "cat": pd.Categorical(["lo", "hi", "lo", "hi"], categories=["lo", "mid", "hi"]),
            "int": [3, 1, 2, 3],
            "bool": [True, False, True, True],
            "intfloat": [1.0, 2.0, np.nan, 1.0],
        }
    )
    enc = FeatureEncoder().fit(X)
    assert enc.categories_ == [
        ["a", "b", "<missing>"],
        ["lo", "mid", "hi"],
        [1, 2, 3],
        [False, True],
        [1.0, 2.0, "<missing>"],
    ]
    codes = enc.transform(X, training=True)
    assert codes.tolist() == [[1, 0, 2, 1, 0], [0, 2, 0, 0, 1], [1, 0, 1, 1, 2], [2, 2, 2, 1, 0]]
    assert enc.cardinalities_.tolist() == [3, 3, 3, 2, 3]


def test_unseen_and_missing_at_predict_time():
    enc = FeatureEncoder().fit(pd.DataFrame({"a": ["x", "y"], "b": [1, 2]}))
    codes = enc.transform(pd.DataFrame({"a": ["z", None], "b": [2, 7]}))
    assert codes.tolist() == [[UNKNOWN, 1], [UNKNOWN, UNKNOWN]]
    strict = FeatureEncoder(handle_unknown="error").fit(pd.DataFrame({"a": ["x", "y"]}))
    with pytest.raises(ValueError, match=r"column 'a' has values never seen in training: \['z'\]"):
        strict.transform(pd.DataFrame({"a": ["z"]}))


def test_missing_label_never_clashes():
    enc = FeatureEncoder().fit(pd.DataFrame({"a": ["<missing>", None, "x"]}))
    assert enc.categories_[0] == ["<missing>", "x", "<<missing>>"]
    assert enc.transform(pd.DataFrame({"a": [None, "<missing>"]})).ravel().tolist() == [2, 0]


def test_numbers_match_across_int_and_float_types():
    enc = FeatureEncoder().fit(pd.DataFrame({"a": [1, 2, 3]}))
    assert enc.transform(pd.DataFrame({"a": [2.0, 3.0]})).ravel().tolist() == [1, 2]


def test_errors_name_the_column_and_the_fix():
    with pytest.raises(ValueError, match=r"column 'w' looks continuous \(3 distinct"):
        FeatureEncoder().fit(pd.DataFrame({"w": [0.5, 1.25, 2.0]}))
    with pytest.raises(ValueError, match="column 'e' has no observed values"):
        FeatureEncoder().fit(pd.DataFrame({"e": [None, None]}))
    with pytest.raises(ValueError, match="0 feature"):
        FeatureEncoder().fit(pd.DataFrame(index=range(3)))
    with pytest.raises(ValueError, match="Reshape your data"):
        as_frame(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="y holds continuous values"):
        encode_target([0.5, 1.5])
    with pytest.raises(ValueError, match="y has 2 columns"):
        encode_target(pd.DataFrame({"a": [1, 2], "b": [1, 2]}))
    with pytest.raises(TypeError, match="Sparse matrices are not supported"):
        from scipy.sparse import csr_matrix

        as_frame(csr_matrix(np.eye(2)))


def test_csv_integer_categories_keep_their_values_with_missing_cells(tmp_path):
    from bnclf.datasets import load_table

    path = tmp_path / "t.csv"
    path.write_text(
        "code,size,label\n1,10.5,a\n2,?,b\n3,11.25,a\n?,9.0,b\n4,15,a\n"
        + "".join(f"{i % 4 + 1},{i}.5,b\n" for i in range(12))
    )
    X, y = load_table(path)
    assert str(X["code"].dtype) == "Int64" and X["code"].isna().sum() == 1
    assert X["size"].dtype == float
    assert list(y[:2]) == ["a", "b"]


def test_predict_time_type_mismatch_is_matched_by_text():
    import warnings

    from bnclf import NaiveBayesClassifier, TANClassifier
    from bnclf.encoding._frames import UnseenValuesWarning

    X = pd.DataFrame({"a": ["0", "1", "1", "0"] * 10, "b": ["x", "y", "y", "x"] * 10})
    y = [0, 1, 0, 1] * 10
    model = TANClassifier().fit(X, y)
    as_ints = X.assign(a=X["a"].astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matched: no unseen-value warning
        np.testing.assert_allclose(model.predict_proba(as_ints), model.predict_proba(X))
    # the other way round: integers at fit, strings (or integral floats) at predict
    model = NaiveBayesClassifier().fit(as_ints, y)
    np.testing.assert_allclose(model.predict_proba(X), model.predict_proba(as_ints))
    np.testing.assert_allclose(model.predict_proba(as_ints.assign(a=as_ints["a"] * 1.0)), model.predict_proba(as_ints))
    # mostly unseen values: summed out, with a warning naming the column
    with pytest.warns(UnseenValuesWarning, match="column 'a'.*never seen"):
        model.predict_proba(X.assign(a="7"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one unseen row is ordinary: no warning
        model.predict_proba(X.iloc[:1].assign(a="7"))


def test_text_matching_refuses_ambiguous_states():
    from bnclf import NaiveBayesClassifier

    X = pd.DataFrame({"a": pd.Series([1, "1", 2, "x"] * 5, dtype=object)})
    model = NaiveBayesClassifier().fit(X, [0, 1, 0, 1] * 5)
    assert len(model.categories_["a"]) == 4
    encoder = model._encoder
    # 1 and '1' are both states: the text '1' names two of them -- an error naming the fix
    column = pd.Series([np.float32(1.0), "2"], dtype=object)
    col = np.array([-1, -1])
    with pytest.raises(ValueError, match=r"column 'a': the value .*1\.0.* matches several .*\[1, '1'\].*astype"):
        encoder._match_by_text(0, column, col, np.array([True, True]))
    assert (model.predict_proba(pd.DataFrame({"a": [1.0, 2.0]})) == model.predict_proba(X.iloc[[0, 2]])).all()
    # values whose text names no state twice ('2' vs 2, 'y') are matched or stay unseen
    column = pd.Series(["2", "y"], dtype=object)
    np.testing.assert_array_equal(encoder._match_by_text(0, column, col, np.array([True, True])), [-1, -1])
    assert model.predict_proba(pd.DataFrame({"a": ["y"]})).shape == (1, 2)  # unseen: summed out


def test_one_integer_column_rule_in_python_and_on_the_command_line(tmp_path):
    import warnings

    from sklearn.pipeline import make_pipeline

    from bnclf import MDLDiscretizer, TANClassifier
    from bnclf.cli._main import main
    from bnclf.encoding._frames import ManyValuedIntegerWarning
    from bnclf.io._models import load_model

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    X = pd.DataFrame(
        {
            "amount": rng.integers(0, 60, 300) + 40 * y,  # a quantity
            "grade": rng.integers(1, 4, 300),  # 3 integer categories
            "colour": rng.choice(["r", "g"], 300),
        }
    )
    with pytest.warns(ManyValuedIntegerWarning, match="column 'amount'.*discretize"):
        TANClassifier().fit(X, y)
    # the same whole numbers as floats (a CSV read with --discretize none): the same warning
    with pytest.warns(ManyValuedIntegerWarning, match="column 'amount'.*--discretize mdl"):
        TANClassifier().fit(X.assign(amount=X["amount"].astype(float)), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ManyValuedIntegerWarning)
        TANClassifier().fit(X.assign(amount=X["amount"].astype("category")), y)
        python = make_pipeline(MDLDiscretizer(), TANClassifier()).fit(X, y)
    assert python[0].columns_ == ["amount"]  # the quantity is binned, 'grade' is kept
    X.assign(label=y).to_csv(tmp_path / "data.csv", index=False)
    main(["fit", str(tmp_path / "data.csv"), "--model", "tan", "-o", str(tmp_path / "m.bnclf")])
    cli = load_model(tmp_path / "m.bnclf")
    assert cli[0].columns_ == ["amount"]
    np.testing.assert_allclose(cli[0].cut_points_["amount"], python[0].cut_points_["amount"])
    np.testing.assert_allclose(cli.predict_proba(X), python.predict_proba(X))


def test_small_inputs_encode_as_large_ones():
    """Few rows go through dict lookups; the codes equal the vectorized path's."""
    import warnings

    from bnclf.encoding._encoder import FeatureEncoder
    from bnclf.encoding._state_coder import _SMALL_ROWS

    rng = np.random.default_rng(3)
    n = 300
    train = pd.DataFrame(
        {
            "s": rng.choice(["a", "b", "c", None], n),
            "i": rng.integers(0, 4, n),
            "c": pd.Categorical(rng.choice(["x", "y"], n), categories=["y", "x", "z"]),
            "t": rng.choice(["0", "1"], n),
            "b": rng.choice([True, False], n),
        }
    )
    test = pd.DataFrame(
        {
            "s": ["a", None, "never", "c"],
            "i": [3, 7, 0, 1],
            "c": pd.Categorical(["x", "z", None, "y"]),
            "t": [0, 1, 1, 0],
            "b": [True, False, True, True],
        }
    )
    for handle in ("marginalize",):
        enc = FeatureEncoder(handle_unknown=handle).fit(train)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            small = enc.transform(test)
            big = pd.concat([test] * (_SMALL_ROWS // len(test) + 1), ignore_index=True)
            large = enc.transform(big)[: len(test)]
        np.testing.assert_array_equal(small, large)
        assert small[2, 0] == -1 and small[1, 1] == -1  # unseen values are unknown
        assert small[1, 0] == enc.missing_codes_[0]  # missing takes its state
        assert list(small[:, 3]) == [0, 1, 1, 0]  # ints matched to '0'/'1' by text


def test_refitting_an_encoder_rebuilds_its_lookups():
    from bnclf.encoding._encoder import FeatureEncoder

    enc = FeatureEncoder().fit(pd.DataFrame({"a": ["x", "y"]}))
    assert enc.transform(pd.DataFrame({"a": ["y"]}))[0, 0] == 1
    enc.fit(pd.DataFrame({"a": ["w", "y", "z"]}))
    assert enc.transform(pd.DataFrame({"a": ["y", "z"]})).ravel().tolist() == [1, 2]


def _reference_codes(enc, frame, training=False):
    """Codes by the definition: the position of each value's label among the column's
    states (python equality), the missing state or -1 for a missing value, -1 if unseen."""
    out = np.empty(frame.shape, dtype=np.int64)
    for j, name in enumerate(enc.feature_names_):
        labels = enc.categories_[j][: len(enc.observed_[j])]
        position = {label: k for k, label in enumerate(labels)}
        for i, value in enumerate(frame[name].astype(object)):
            if pd.isna(value):
                code = enc.missing_codes_[j]
                out[i, j] = -1 if code is None else code
            else:
                key = value.item() if isinstance(value, np.generic) else value
                out[i, j] = position.get(key, -1)
    return out


@pytest.mark.parametrize("n", [5, 300, 3000])
def test_codes_of_every_column_kind_equal_the_definition(n):
    """fit_transform (one pass per column), transform of the training rows, and transform
    of new rows (short and long, fresh frames, other category orders, out-of-range and
    unseen integers) give the codes of the definition, for categorical, object, string,
    integer (dense and wide-range), nullable integer, bool and float-integral columns."""
    import warnings

    from bnclf.encoding._encoder import FeatureEncoder

    rng = np.random.default_rng(n)
    train = pd.DataFrame(
        {
            "cat": pd.Categorical(rng.choice(["x", "y", None], n), categories=["y", "x", "z"]),
            "obj": pd.Series(rng.choice(["a", "b", "c", None], n), dtype=object),
            "str": pd.Series(rng.choice(["p", "q"], n), dtype="string"),
            "int": rng.integers(-3, 5, n),
            "wide": rng.choice([0, 10**9, -(10**9)], n),
            "uint": rng.integers(0, 3, n).astype(np.uint8),
            "nullable": pd.array(rng.choice([1, 2, None], n), dtype="Int64"),
            "bool": rng.choice([True, False], n),
            "float": rng.choice([1.0, 2.0, np.nan], n),
        }
    )
    for missing in ("category", "ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            enc = FeatureEncoder(missing=missing)
            codes = enc.fit_transform(train)
            np.testing.assert_array_equal(codes, _reference_codes(enc, train))
            np.testing.assert_array_equal(enc.transform(train, training=True), codes)
            np.testing.assert_array_equal(enc.transform(train.copy()), codes)  # a fresh frame
            test = pd.DataFrame(
                {
                    "cat": pd.Categorical(rng.choice(["x", "z", "y", None], n), categories=["z", "y", "x", "w"]),
                    "obj": pd.Series(rng.choice(["a", "c", "new", None], n), dtype=object),
                    "str": pd.Series(rng.choice(["p", "q", None], n), dtype="string"),
                    "int": rng.integers(-6, 9, n),  # values outside the training range
                    "wide": rng.choice([0, 10**9, 7], n),
                    "uint": rng.integers(0, 5, n).astype(np.uint8),
                    "nullable": pd.array(rng.choice([1, 3, None], n), dtype="Int64"),
                    "bool": rng.choice([True, False], n),
                    "float": rng.choice([1.0, 2.0, 5.0, np.nan], n),
                }
            )
            np.testing.assert_array_equal(enc.transform(test), _reference_codes(enc, test))
            np.testing.assert_array_equal(enc.transform(test.iloc[:1]), _reference_codes(enc, test.iloc[:1]))


@pytest.mark.parametrize("n", [0, 1, 300, 3000])
def test_integer_blocks_coded_together_equal_the_definition(n):
    """Integer columns are coded a block at a time (one table of all their codes): many
    columns (several chunks of rows), int32 and uint8 blocks, integer columns between text
    columns, values outside a column's range (that column coded on its own), unseen
    values inside it, a column fitted on text given integers, and an integer array."""
    import warnings

    from bnclf.encoding._encoder import FeatureEncoder

    rng = np.random.default_rng(n)
    size = max(n, 50)
    train = pd.DataFrame({f"i{k}": rng.integers(-2, 3 + k % 4, size) for k in range(24)})
    train.insert(5, "text", rng.choice(["a", "b"], size).astype(object))
    train.insert(12, "digits", rng.choice(["1", "2"], size).astype(object))  # text: no table by value
    train["narrow"] = rng.integers(0, 3, size).astype(np.int32)
    train["byte"] = rng.integers(5, 8, size).astype(np.uint8)
    ends = train.assign(low=rng.choice([-(2**63), 1 - 2**63], size), high=rng.choice([2**63 - 1, 2**63 - 3], size))
    enc, ends_enc = FeatureEncoder().fit(train), FeatureEncoder().fit(ends)
    ends = ends.iloc[:n].assign(low=rng.choice([-(2**63), 1 - 2**63, 2**63 - 1, 0], n), high=ends.iloc[:n]["low"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnclf.encoding.UnseenValuesWarning)
        np.testing.assert_array_equal(ends_enc.transform(ends), _reference_codes(ends_enc, ends))  # shifts wrap
    test = train.iloc[:n].copy()
    variants = {"as fitted": test}
    if n:
        shuffled = test.copy()
        for k in range(24):
            shuffled[f"i{k}"] = rng.integers(-2, 3 + k % 4, n)
        shuffled["i3"] = rng.integers(-4, 9, n)  # outside the range: coded on its own
        shuffled["i7"] = np.where(rng.random(n) < 0.5, 3, shuffled["i7"])  # unseen inside the range
        shuffled["digits"] = rng.integers(7, 9, n)  # integers where text was fitted
        shuffled["byte"] = rng.integers(4, 9, n).astype(np.uint8)
        variants["new values"] = shuffled
        variants["one int block"] = test.assign(text=0, digits=0).astype(np.int64)
    for name, frame in variants.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_array_equal(enc.transform(frame), _reference_codes(enc, frame), err_msg=name)
    if n:
        integers = train.drop(columns=["text", "digits"]).to_numpy()
        model = NaiveBayesClassifier().fit(integers, np.arange(size) % 2)
        array = integers[:n]
        np.testing.assert_array_equal(model._encode(array), _reference_codes(model._encoder, as_frame(array)))


def test_category_columns_of_equal_and_reordered_dtypes_map_by_their_own_categories():
    """The map of a category column is kept for its dtype: the training frame's dtype maps by
    identity, an equal dtype (same categories, same order) reuses the map, and the same
    categories in another order (equal for pandas when unordered) or other categories get
    their own: every frame's codes are the definition's, whatever came before."""
    from bnclf.encoding._encoder import FeatureEncoder
    from bnclf.encoding._frames import UnseenValuesWarning

    rng = np.random.default_rng(7)
    values = rng.choice(["x", "y", "z"], 40)
    train = pd.DataFrame({"c": pd.Categorical(values, categories=["y", "x", "z"])})
    enc = FeatureEncoder()
    codes = enc.fit_transform(train)
    frames = [
        train.iloc[:10],  # the training dtype itself
        pd.DataFrame({"c": pd.Categorical(values, categories=["y", "x", "z"])}),  # equal, another object
        pd.DataFrame({"c": pd.Categorical(values, categories=["z", "x", "y"])}),  # reordered
        pd.DataFrame({"c": pd.Categorical(values, categories=["y", "x", "z"])}),  # back to the first order
        pd.DataFrame({"c": pd.Categorical(values, categories=["w", "y", "x", "z"])}),  # another category
        train,
    ]
    for frame in frames:
        np.testing.assert_array_equal(enc.transform(frame), _reference_codes(enc, frame))
    np.testing.assert_array_equal(enc.transform(frames[2]).ravel(), codes.ravel())
    # categories of another type that pandas' Index.equals calls equal (2**53 + 1 against
    # 2.0**53): their own map, in which the float is no state of the integer column
    big = 2**53 + 1
    enc = FeatureEncoder().fit(pd.DataFrame({"c": pd.Categorical([big, 5] * 100, categories=[big, 5])}))
    floats = pd.DataFrame({"c": pd.Categorical([float(2**53), 5.0] * 100, categories=[float(2**53), 5.0])})
    with pytest.warns(UnseenValuesWarning, match="never seen"):  # half the values: the float
        np.testing.assert_array_equal(enc.transform(floats), _reference_codes(enc, floats))


def test_dtype_labels_are_remembered_per_dtype_object_and_never_stale():
    """A categorical dtype's labels are read once per dtype object: each call gets a list of
    its own (changing it changes no later answer), an entry whose dtype is gone is never
    read (its id may be reused), and a dtype with very many categories is not kept."""
    import weakref

    from bnclf.encoding import _columns
    from bnclf.encoding._columns import dtype_labels

    dtype = pd.CategoricalDtype(["b", "a", "c"])
    first = dtype_labels(dtype)
    assert first == ["b", "a", "c"] and id(dtype) in _columns._DTYPE_LABELS
    first.append("mutated")
    assert dtype_labels(dtype) == ["b", "a", "c"]
    other = pd.CategoricalDtype([3, 1])
    _columns._DTYPE_LABELS[id(other)] = (weakref.ref(dtype), ("stale",))  # another dtype under its id
    assert dtype_labels(other) == [3, 1]
    assert _columns._DTYPE_LABELS[id(other)][0]() is other
    wide = pd.CategoricalDtype(range(_columns._DTYPE_LABELS_LONGEST + 1))
    assert dtype_labels(wide) == list(range(_columns._DTYPE_LABELS_LONGEST + 1))
    kept = _columns._DTYPE_LABELS.get(id(wide))  # an entry of a dtype gone may hold its id
    assert kept is None or kept[0]() is not wide


@pytest.mark.parametrize(
    "names",
    [["a", "b"], pd.Index(["a", "b"], dtype="str"), [1, 2], ["a", 2], pd.Index(["a", None], dtype="str")],
)
def test_index_labels_are_the_index_tolist(names):
    """Column names read through Arrow (text without a missing name) equal ``Index.tolist``."""
    from bnclf.encoding._frames import index_labels

    index = names if isinstance(names, pd.Index) else pd.Index(names)
    got, want = index_labels(index), index.tolist()
    assert len(got) == len(want)
    assert all(g == w or (pd.isna(g) and pd.isna(w)) for g, w in zip(got, want))
    assert [type(g) for g in got] == [type(w) for w in want]


def test_index_labels_are_remembered_per_index_object_and_never_stale():
    """An Index cannot change: its labels are read once per Index object, each call gets a
    list of its own, and an entry whose Index is gone (its id reused) is never read."""
    import weakref

    from bnclf.encoding import _frames
    from bnclf.encoding._frames import index_labels

    columns = pd.Index(["b", "a"])
    first = index_labels(columns)
    assert first == ["b", "a"] and id(columns) in _frames._INDEX_LABELS
    first.append("mutated")
    assert index_labels(columns) == ["b", "a"]
    other = pd.Index([3, 1])
    _frames._INDEX_LABELS[id(other)] = (weakref.ref(columns), ("stale",))  # another Index under its id
    assert index_labels(other) == [3, 1] and _frames._INDEX_LABELS[id(other)][0]() is other


def test_lookup_caches_are_rebuilt_and_not_pickled():
    import pickle

    from bnclf.encoding._encoder import _CACHES, FeatureEncoder

    enc = FeatureEncoder().fit(pd.DataFrame({"a": pd.Categorical(["x", "y"]), "b": [1, 2] * 1}))
    enc.transform(pd.DataFrame({"a": pd.Categorical(["y"] * 10), "b": [2] * 10}))  # a few rows: dict lookups
    enc.transform(pd.DataFrame({"a": ["y"] * 100, "b": [2] * 100}))  # many rows: tables and indexes
    coder = enc.__dict__.get("_coder")
    assert all(getattr(coder, key) for key in ("category_maps", "lookup_dicts", "integer_tables"))
    copy = pickle.loads(pickle.dumps(enc))
    assert not any(key in copy.__dict__ for key in _CACHES)
    assert not any(key in enc.__getstate__() for key in _CACHES)
    frame = pd.DataFrame({"a": pd.Categorical(["y", "x"], categories=["y", "x"]), "b": [2, 1]})
    assert copy.transform(frame).tolist() == enc.transform(frame).tolist() == [[1, 1], [0, 0]]


def _object_block(seed, pool):
    rng = np.random.default_rng(seed)
    block = pool[rng.integers(0, len(pool), (3000, 4))]
    block[rng.random(block.shape) < 0.2] = "".join(["a", "aa"])  # "aaa" in another object (or a new value)
    block[:, 3] = "".join(["a", "aa"])  # only another object of a value, for a whole column
    block[2000:2500, 0] = "late"  # a value that only late rows hold
    return block


def _reference_labels(values):
    """A column's states by the definition: its distinct values (pandas' representative of
    values equal in Python), sorted, by type name and text when they do not compare."""
    uniques = pd.unique(pd.Series(np.asarray(values, dtype=object)).dropna().to_numpy(dtype=object))
    try:
        ordered = sorted(uniques)
    except TypeError:
        ordered = sorted(uniques, key=lambda v: (type(v).__name__, str(v)))
    return [v.item() if isinstance(v, np.generic) else v for v in ordered]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "pool",
    [
        ["x", "b", "c", "a", "a" * 3],  # text: the columns are factorized together
        ["a", "b", None, np.nan, "c", 1, 1.0, True, (1, 2)],  # equal values of several types: one by one
        ["a", 10, 2, None, 2.5],  # values that do not compare: ordered by type name and text
    ],
)
def test_object_columns_factorized_together_equal_the_definition(seed, pool):
    """Object columns of one frame are factorized together: each column's states and codes
    are those of the definition, whatever the other columns hold (a strided, a reversed, a
    contiguous and a short column; equal values of several number types)."""
    import warnings

    block = _object_block(seed, np.array(pool, dtype=object))
    columns = {"a": block[:, 0], "b": block[::-1, 1], "c": block[:, 2], "d": block[:, 3]}
    frame = pd.DataFrame(columns, dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = FeatureEncoder()
        codes = encoder.fit_transform(frame)
        for j, values in enumerate(columns.values()):
            assert [repr(v) for v in encoder.observed_[j]] == [repr(v) for v in _reference_labels(values)], j
        np.testing.assert_array_equal(codes, _reference_codes(encoder, frame))
        np.testing.assert_array_equal(encoder.transform(frame), codes)
        for other in (frame.iloc[::-1], frame.iloc[:40], pd.DataFrame(block[::-1], columns=list("abcd"))):
            np.testing.assert_array_equal(encoder.transform(other), _reference_codes(encoder, other))


@pytest.mark.parametrize("rows", [1024, 3000])
def test_object_columns_of_numbers_beside_text_sort_their_own_values(rows):
    """Values of different columns that do not compare (numbers in one, text in another)
    leave each column's own order as it would be alone: numbers by value, not by text; and
    a text column with no observed value gets the message, not an internal error."""
    rng = np.random.default_rng(rows)
    frame = pd.DataFrame(
        {
            "numbers": pd.Series(rng.integers(-3, 3, rows).tolist(), dtype=object),
            "text": rng.choice(["b", "a", None], rows).astype(object),
            "both": pd.Series([[10, 2, "x"][k] for k in rng.integers(0, 3, rows)], dtype=object),
        }
    )
    encoder = FeatureEncoder()
    codes = encoder.fit_transform(frame)
    # a column whose own values do not compare: by type name and text
    assert encoder.categories_ == [[-3, -2, -1, 0, 1, 2], ["a", "b", "<missing>"], [10, 2, "x"]]
    np.testing.assert_array_equal(codes, _reference_codes(encoder, frame))
    with pytest.raises(ValueError, match="column 'empty' has no observed values; drop it"):
        FeatureEncoder().fit_transform(frame.assign(empty=pd.Series([None] * rows, dtype=object)))


def test_a_text_column_missing_in_most_rows_keeps_its_values():
    n = 3000
    note = np.where(np.arange(n) % 97 > 0, None, "yes").astype(object)
    encoder = FeatureEncoder()
    codes = encoder.fit_transform(pd.DataFrame({"note": note, "other": np.where(np.arange(n) % 2, "a", "b")}))
    assert encoder.categories_ == [["yes", "<missing>"], ["a", "b"]]
    np.testing.assert_array_equal(codes[:, 0], np.where(note == "yes", 0, 1))


def test_text_columns_equal_the_definition_whatever_rows_hold_their_values():
    """Values only late rows hold (a late value another column has early, an object no
    early row has, equal text in another object, a missing value seen elsewhere) get the
    codes of the definition: sorted distinct values, -1 where missing; for one object block
    and for a block per column."""
    n = 3000
    early = np.arange(n) < 64
    a, b, c = "ab", "cd", "ef"  # text of more than one character: a new object each time it is built
    odd, third = np.arange(n) % 2 == 1, np.arange(n) % 3 == 0
    a_b_in_turn = [a if o else b for o in odd]
    block = np.empty((n, 6), dtype=object)  # cells hold the objects a, b, c themselves
    block[:, 0] = a_b_in_turn
    block[100, 0] = "".join(["z", "y"])  # an object no early row holds
    block[:, 1] = [a if s else b for s in early]  # b only in late rows of this column
    block[:, 2] = [c if s else None for s in early]  # missing only in late rows
    block[:, 3] = [None if t else a for t in third]
    block[:, 4] = [c if s else "".join(["a", "b"]) for s in early]  # equal text, another object
    block[:, 5] = [c if s else v for s, v in zip(early, a_b_in_turn)]  # two late values
    frames = [pd.DataFrame(block, dtype=object), pd.DataFrame({j: block[:, j].copy() for j in range(6)}, dtype=object)]
    for frame in frames:
        encoder = FeatureEncoder(missing="ignore")
        codes = encoder.fit_transform(frame)
        for j in range(6):
            values = block[:, j]
            labels = sorted({v for v in values if v is not None})
            assert encoder.categories_[j] == labels, j
            expected = np.array([-1 if v is None else labels.index(v) for v in values])
            np.testing.assert_array_equal(codes[:, j], expected, err_msg=str(j))


def test_text_columns_equal_the_definition_over_repeated_and_fresh_frames():
    """Repeated and fresh frames of text columns (one object block, one block per column,
    text columns between integer ones), with unseen, missing and unhashable (list) or
    tuple values: the codes of the definition on every call."""
    import warnings

    rng = np.random.default_rng(0)
    n = 2000
    train = pd.DataFrame({f"t{k}": rng.choice(["a", "b", "c", None], n) for k in range(3)}, dtype=object)
    train.insert(1, "i", rng.integers(0, 3, n))
    enc = FeatureEncoder().fit(train)
    pools = [["a", "b", "c"], ["a", "b", "c", "new", None, np.nan], ["b", (1, 2), "a", "d"]]
    for call in range(8):
        pool = np.array(pools[call % 3], dtype=object)
        cells = pool[rng.integers(0, len(pool), (n, 3))]
        if call % 2:  # fresh objects of equal text
            cells = np.vectorize(lambda v: "".join(list(v)) if isinstance(v, str) else v, otypes=[object])(cells)
        frames = [
            pd.DataFrame({"t0": cells[:, 0], "i": rng.integers(0, 4, n), "t1": cells[:, 1], "t2": cells[:, 2]}),
            pd.DataFrame(cells[:, [0, 0, 1, 2]], columns=["t0", "i", "t1", "t2"], dtype=object).assign(i=1),
        ]
        for frame in frames:
            for rows in (frame, frame.iloc[:7]):  # many rows and a few
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    np.testing.assert_array_equal(enc.transform(rows), _reference_codes(enc, rows))


@pytest.mark.parametrize("rows", [7, 3000])
def test_string_dtypes_give_the_codes_of_the_definition(rows):
    """pandas string columns in every storage (python, Arrow, and pandas 3's default ``str``
    dtype where it exists), Arrow-typed columns, booleans and nullable integers, at fit and
    at predict time, alone and beside object columns: the codes of the definition and
    those of the same values as categories."""
    import warnings

    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(rows)
    values = rng.permutation(np.resize(np.array(["x", "y", "zz", None], dtype=object), rows))
    dtypes = ["string[python]", "string[pyarrow]", pd.ArrowDtype(__import__("pyarrow").string()), object]
    if hasattr(pd, "StringDtype") and pd.__version__ >= "3":
        dtypes.append("str")
    frame = pd.DataFrame({f"s{k}": pd.Series(values, dtype=dtype) for k, dtype in enumerate(dtypes)})
    frame["flag"] = pd.array(rng.choice([True, False, None], rows), dtype="boolean")
    frame["count"] = pd.array(rng.choice([1, 2, None], rows), dtype="Int64")
    as_category = frame.astype("category")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = FeatureEncoder()
        codes = encoder.fit_transform(frame)
        np.testing.assert_array_equal(codes, _reference_codes(encoder, frame))
        np.testing.assert_array_equal(codes, FeatureEncoder().fit_transform(as_category))
        assert encoder.categories_[0] == ["x", "y", "zz", "<missing>"]
        test = frame.iloc[::-1].copy()
        test["s1"] = pd.Series(rng.choice(["x", "new", None], rows), dtype="string[pyarrow]")
        np.testing.assert_array_equal(encoder.transform(test), _reference_codes(encoder, test))


def test_text_and_integer_columns_give_the_codes_of_categorical_ones():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 5, size=(2000, 6))
    frames = {
        "category": pd.DataFrame(codes).astype(str).astype("category"),
        "text": pd.DataFrame(codes).astype(str),
        "text from an array": pd.DataFrame(codes.astype(str).astype(object)),
        "integer": pd.DataFrame(codes),
    }
    expected = FeatureEncoder().fit_transform(frames["category"])
    np.testing.assert_array_equal(expected, codes)
    for name, frame in frames.items():
        np.testing.assert_array_equal(FeatureEncoder().fit_transform(frame), expected, err_msg=name)


def test_integer_columns_at_the_ends_of_their_types_keep_their_values():
    X = pd.DataFrame(
        {
            "wide": np.array([-(2**63), 2**63 - 1, 0] * 400, dtype=np.int64),  # a span past int64
            "large": np.array([2**63, 2**63 + 1, 2**63] * 400, dtype=np.uint64),  # past int64 itself
            "small": np.array([3, 5, 3] * 400, dtype=np.uint8),
        }
    )
    encoder = FeatureEncoder()
    codes = encoder.fit_transform(X)
    assert encoder.categories_ == [[-(2**63), 0, 2**63 - 1], [2**63, 2**63 + 1], [3, 5]]
    np.testing.assert_array_equal(codes[:3], [[0, 0, 0], [2, 1, 1], [1, 0, 0]])


def test_columns_categorical_in_training_read_as_any_kind_at_prediction():
    """An encoder fitted on category columns only reads a prediction's columns one by one
    without looking at the frame's dtypes first: a frame of integers, mixed or of categories
    with other categories gives the codes of the definition, and every frame (text of the
    integers too, matched by their text) the predictions of the training frame's own
    categories."""
    rng = np.random.default_rng(11)
    n = 200
    values = {f"f{j}": rng.integers(0, 3 + j, n) for j in range(4)}
    train = pd.DataFrame({k: pd.Categorical(v) for k, v in values.items()})
    y = (values["f0"] + values["f1"]) % 3
    model = NaiveBayesClassifier().fit(train, y)
    expected = model.predict_proba(train)
    frames = [
        pd.DataFrame(values),  # integers: one numpy dtype
        pd.DataFrame({k: v.astype(str) for k, v in values.items()}).astype(str),  # text of the integers
        pd.DataFrame({**{k: pd.Categorical(v) for k, v in values.items()}, "f2": values["f2"]}),  # mixed
        pd.DataFrame({k: pd.Categorical(v, categories=range(9)[::-1]) for k, v in values.items()}),  # reordered
    ]
    for k, frame in enumerate(frames):
        if k != 1:  # the definition matches values, not texts
            np.testing.assert_array_equal(model._encoder.transform(frame), _reference_codes(model._encoder, frame))
        np.testing.assert_allclose(model.predict_proba(frame), expected, rtol=1e-12)


@pytest.mark.parametrize(
    "labels, categories, ordered",
    [
        (["b", "a", "c", "a"], ["c", "b", "a", "z"], False),  # an unused category, categories not sorted
        (["b", "a", "c", "a"], ["c", "b", "a"], False),  # every category held, not sorted
        (["a", "b", "b"], ["a", "b"], False),  # every category held, sorted
        ([3, 1, 2, 2], [3, 2, 1, 7], True),  # ordered against the sort order
        ([1.0, 2.0, 2.0], None, False),
        ([True, False, True], None, False),
    ],
)
def test_a_categorical_target_is_coded_from_its_codes_as_its_values_are(labels, categories, ordered):
    """A categorical y is read from its codes (no Python object per label): the classes are
    the sorted labels it holds, the codes index them, as for the same labels in a plain array
    (again from the categories and their order remembered for the dtype, which the answers
    never share); and its missing labels, single class and non-integral floats are refused
    alike."""
    y = pd.Series(pd.Categorical(labels, categories=categories, ordered=ordered))
    expected = encode_target(pd.Series(np.asarray(labels)))
    for given in (y, y.array, y.to_frame(), y):
        classes, codes = encode_target(given)
        assert classes.tolist() == expected[0].tolist() and classes.dtype == expected[0].dtype
        np.testing.assert_array_equal(codes, expected[1])
        classes[:] = classes[::-1]  # the caller's own arrays
        codes[:] = -1
    with pytest.raises(ValueError, match="1 missing labels"):
        encode_target(pd.Series(pd.Categorical(["a", None, "b"])))
    with pytest.raises(ValueError, match="only one class"):
        encode_target(pd.Series(pd.Categorical(["a", "a"], categories=["a", "b"])))
    with pytest.raises(ValueError, match="continuous values"):
        encode_target(pd.Series(pd.Categorical([1.5, 2.0])))
    with pytest.raises(ValueError, match="y is empty"):
        encode_target(pd.Series(pd.Categorical([], categories=["a"])))


def test_arrays_are_read_in_place_never_written_nor_held():
    """A numpy X is read through a view (no copy of the rows): the fit and the predictions leave
    it as it was, and changing it afterwards changes nothing the model answers."""
    from bnclf import AODEClassifier

    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(60, 4))
    y = rng.integers(0, 2, size=60)
    frame = as_frame(X)
    assert np.shares_memory(frame.to_numpy(), X) and frame.columns.tolist() == ["x0", "x1", "x2", "x3"]
    before = X.copy()
    for model in (NaiveBayesClassifier(), AODEClassifier()):
        model.fit(X, y)
        proba = model.predict_proba(X)
        np.testing.assert_array_equal(X, before)
        X[:] = 0
        np.testing.assert_array_equal(model.predict_proba(before), proba)
        X[:] = before
