"""Tampered model files, one test per class of tampering: each is refused with the file and
the field named, nothing of the model runs, nothing is written outside the test's folder,
and what is read is bounded (unreferenced members are never opened; no member inflates
past its declared size)."""

import json
import os
import struct
import sys
import zipfile
import zlib

import numpy as np
import pytest

from bnclf import make_classifier
from bnclf.datasets import load_dataset
from bnclf.io._modelfile import _CHUNK, ModelFileError
from bnclf.io._models import load_model, save_model


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Saved models (TAN, AODE, a multilabel model), with rows to predict."""
    folder = tmp_path_factory.mktemp("saved")
    X, y = load_dataset("soybean")
    X, y = X.iloc[:200, :6], y.iloc[:200]
    out = {"rows": X.iloc[:30]}
    for spec in ("tan", "aode"):
        est = make_classifier(spec).fit(X, y)
        out[spec] = (save_model(est, folder / f"{spec}.bnclf"), est)
    from bnclf.datasets import load_multilabel_dataset
    from bnclf.models._multilabel import MultilabelBNClassifier

    Xm, Ym = load_multilabel_dataset("emotions")
    ml = MultilabelBNClassifier().fit(Xm.iloc[:150, :5], Ym.iloc[:150])
    out["multilabel"] = (save_model(ml, folder / "ml.bnclf"), ml)
    return out


def _members(path):
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def _write(out, members):
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out


def _edit_json(path, out, edit):
    members = _members(path)
    meta = json.loads(members["model.json"])
    edit(meta)
    members["model.json"] = json.dumps(meta)
    return _write(out, members)


def _top_state(meta):
    """The ``[key, value]`` pairs of the top object's state."""
    return meta["model"]["state"]["dict"]


def _object_state(meta, suffix):
    """The state pairs of the first object whose class name ends with ``suffix``."""
    stack = [meta]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if str(value.get("object", "")).endswith(suffix):
                return value["state"]["dict"]
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    raise KeyError(suffix)


def _set(pairs, key, value):
    for pair in pairs:
        if pair[0] == key:
            pair[1] = value
            return
    pairs.append([key, value])


@pytest.fixture
def refused(tmp_path, monkeypatch):
    """Load a file and return the refusal; checks that no model object had its state set
    (nothing of it ran) and that nothing was written outside ``tmp_path``."""
    from bnclf.models import _base

    built = []
    real = _base.FittedState.__setstate__
    monkeypatch.setattr(_base.FittedState, "__setstate__", lambda self, state: built.append(self) or real(self, state))
    outside = os.path.dirname(str(tmp_path))
    monkeypatch.chdir(tmp_path)

    def load(path):
        before = set(os.listdir(outside))
        with pytest.raises(ModelFileError) as info:
            load_model(path)
        assert set(os.listdir(outside)) == before
        assert str(path) in str(info.value)
        return str(info.value), built

    return load


@pytest.mark.parametrize(
    "key, value",
    [
        ("predict_proba", "x"),
        ("fit", [1, 2, 3]),
        ("__class__", "x"),
        ("__dict__", {"dict": []}),
        ("__reduce__", "x"),
        ("__setstate__", 1),
        ("__init__", 1),
        ("__getattr__", 1),
        ("_check_params", 1),  # a method with a private name
        ("dag_", 1),  # a property: computed, never stored
        ("surprise", 1),
    ],
)
def test_a_state_key_the_class_does_not_declare_is_refused_by_name(saved, tmp_path, refused, key, value):
    path = _edit_json(saved["tan"][0], tmp_path / "keys.bnclf", lambda m: _set(_top_state(m), key, value))
    message, built = refused(path)
    assert f"state key {key!r}" in message and "TANClassifier" in message
    assert built == []  # refused before the state was set: nothing of it was built
    load_model(saved["tan"][0])
    assert built  # (the untampered file sets it)


def test_a_network_state_holds_its_constructors_arguments_only(saved, tmp_path, refused):
    path = _edit_json(saved["tan"][0], tmp_path / "net.bnclf", lambda m: _set(_object_state(m, ".Network"), "check", 1))
    message, _ = refused(path)
    assert "state key 'check'" in message and "Network" in message


@pytest.mark.parametrize(
    "spec, name, value, shown",
    [
        ("aode", "frequency_limit", {"float": "nan"}, "frequency_limit=nan"),
        ("aode", "frequency_limit", {"float": "inf"}, "frequency_limit=inf"),
        ("tan", "m", "x", "m='x'"),
        ("tan", "root", -1, "root"),
    ],
)
def test_stored_parameters_meet_the_constructors_constraints(saved, tmp_path, refused, spec, name, value, shown):
    path = _edit_json(saved[spec][0], tmp_path / "param.bnclf", lambda m: _set(_top_state(m), name, value))
    est = saved[spec][1]
    if name == "root":  # a parameter whose constraint accepts anything is checked by fit, not here
        load_model(path)
        return
    message, built = refused(path)
    assert f"parameter {name}" in message and shown in message and built == []
    assert est.get_params()[name] != value  # the untampered file loads (the oracle below)
    np.testing.assert_array_equal(
        load_model(saved[spec][0]).predict_proba(saved["rows"]), est.predict_proba(saved["rows"])
    )


def test_fitted_attributes_agree_with_each_other(saved, tmp_path, refused):
    est = saved["tan"][1]
    names = list(est.feature_names_in_)
    twice = [names[0], names[0], *names[2:]]
    path = _edit_json(
        saved["tan"][0],
        tmp_path / "names.bnclf",
        lambda m: _set(
            _top_state(m), "feature_names_in_", {"objects": twice, "dtype": "object", "shape": [len(twice)]}
        ),
    )
    message, _ = refused(path)
    assert "feature_names_in_" in message and repr(names[0]) in message and "more than once" in message
    swapped = [names[1], names[0], *names[2:]]
    path = _edit_json(
        saved["tan"][0],
        tmp_path / "order.bnclf",
        lambda m: _set(
            _top_state(m), "feature_names_in_", {"objects": swapped, "dtype": "object", "shape": [len(swapped)]}
        ),
    )
    message, _ = refused(path)
    assert "does not agree with the encoder's columns" in message

    def two_states(meta):
        for pair in _top_state(meta):
            if pair[0] == "classes_":
                pair[1][0] = {"objects": [0, 2], "dtype": "<i8", "shape": [2]}

    path = _edit_json(saved["multilabel"][0], tmp_path / "labels.bnclf", two_states)
    message, _ = refused(path)
    assert "classes of label" in message and "[0, 1]" in message


def test_a_long_integer_names_its_field_and_pythons_digit_limit(saved, tmp_path, refused):
    members = _members(saved["tan"][0])
    meta = json.loads(members["model.json"])
    _set(_top_state(meta), "m", "@long@")
    members["model.json"] = json.dumps(meta).replace('"@long@"', "9" * 5000)
    path = _write(tmp_path / "long.bnclf", members)
    message, _ = refused(path)
    assert "['m']" in message and "5,000 digits" in message
    assert f"{sys.get_int_max_str_digits():,} digits" in message


# -- memory: members never read, and none inflated past its declared size --------------------------------------
def _deflated(prefix: bytes, byte: int, mib: int) -> bytes:
    """A raw deflate stream of ``prefix`` and then ``mib`` MiB of ``byte``, made without
    compressing them (full flushes make every MiB the same bytes): about 1 KiB a MiB."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(bytes([byte]) * _CHUNK) + c.flush(zlib.Z_FULL_FLUSH)
    return head + block * mib + c.flush()


def _with_raw_member(members: dict, out, name: str, raw: bytes, size: int, crc: int):
    """A zip of ``members`` and ``name``, whose data is the raw deflate stream ``raw`` and
    whose headers declare ``size`` bytes inflated and the CRC ``crc``."""
    _write(out, {**{k: v for k, v in members.items() if k != name}, name: b""})
    with zipfile.ZipFile(out) as archive:
        infos = archive.infolist()
    blob = bytearray()
    central = []
    with open(out, "rb") as fh:
        data = fh.read()
    for info in infos:
        local = data[info.header_offset :]
        n, m = struct.unpack("<HH", local[26:30])
        body = raw if info.filename == name else local[30 + n + m : 30 + n + m + info.compress_size]
        crc_, size_ = (crc, size) if info.filename == name else (info.CRC, info.file_size)
        header = struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc_, len(body), size_, len(info.filename), 0
        )
        central.append((len(blob), info.filename, crc_, len(body), size_))
        blob += header + info.filename.encode() + body
    start = len(blob)
    for offset, filename, crc_, csize, usize in central:
        blob += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            8,
            0,
            0x21,
            crc_,
            csize,
            usize,
            len(filename),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        blob += filename.encode()
    blob += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central), len(blob) - start, start, 0)
    with open(out, "wb") as fh:
        fh.write(blob)
    return out


def test_a_member_model_json_never_references_is_refused_unread(saved, tmp_path, refused, monkeypatch):
    """3.5 GiB of zeros in 3.6 MB: refused from the zip directory, its data never opened."""
    members = _members(saved["tan"][0])
    path = _with_raw_member(members, tmp_path / "extra.bnclf", "arrays/7.npy", _deflated(b"", 0, 3584), 3584 << 20, 0)
    assert path.stat().st_size < 8 << 20
    opened = []
    real_open = zipfile.ZipFile.open

    def watched(self, name, *args, **kwargs):
        member = name if isinstance(name, str) else name.filename
        opened.append(member)
        assert member != "arrays/7.npy", "the unreferenced member was opened"
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", watched)
    message, _ = refused(path)
    assert "'arrays/7.npy'" in message and "not referenced by model.json" in message
    assert f"{3584 << 20:,} bytes" in message and "arrays/7.npy" not in opened


def test_no_member_inflates_past_its_declared_size(saved, tmp_path, monkeypatch):
    """model.json declares its own size but its stream goes on with 2 GiB of spaces: reading
    stops at the declared size, a chunk at a time; the model loads as saved."""
    members = _members(saved["tan"][0])
    text = members["model.json"]
    raw = _deflated(text, ord(" "), 2048)
    path = _with_raw_member(members, tmp_path / "bomb.bnclf", "model.json", raw, len(text), zlib.crc32(text))
    reads = []
    real_read = zipfile.ZipExtFile.read

    def watched(self, n=-1):
        reads.append(n)
        assert n is not None and 0 <= n <= _CHUNK, f"an unbounded read ({n})"
        return real_read(self, n)

    monkeypatch.setattr(zipfile.ZipExtFile, "read", watched)
    back = load_model(path)
    monkeypatch.undo()
    est = saved["tan"][1]
    np.testing.assert_array_equal(back.predict_proba(saved["rows"]), est.predict_proba(saved["rows"]))
    assert reads


def test_every_saved_model_still_loads_with_every_key_it_holds(saved):
    """The oracle of the key check: what save_model writes, load_model reads back, and it
    predicts as the model saved."""
    for spec in ("tan", "aode"):
        path, est = saved[spec]
        back = load_model(path)
        assert back.get_params() == est.get_params()
        np.testing.assert_array_equal(back.predict_proba(saved["rows"]), est.predict_proba(saved["rows"]))
    path, est = saved["multilabel"]
    assert load_model(path).label_names_ == est.label_names_


def test_a_first_format_file_is_held_to_its_two_members_read_within_their_sizes(tmp_path, monkeypatch, refused):
    """A bnclf-safe/1 file: another member is refused unread; its members are read a chunk
    at a time (the file still loads as before)."""
    from pathlib import Path

    v1 = Path(__file__).parent / "data" / "model_v1" / "tan.bnclf"
    members = _members(v1)
    assert sorted(members) == ["arrays.npz", "model.json"]
    path = _with_raw_member(members, tmp_path / "v1.bnclf", "zeros.bin", _deflated(b"", 0, 1024), 1024 << 20, 0)
    message, _ = refused(path)
    assert "'zeros.bin'" in message and "bnclf-safe/1" in message
    reads = []
    real_read = zipfile.ZipExtFile.read

    def watched(self, n=-1):
        reads.append(n)
        assert n is not None and 0 <= n <= _CHUNK, f"an unbounded read ({n})"
        return real_read(self, n)

    monkeypatch.setattr(zipfile.ZipExtFile, "read", watched)
    assert load_model(v1).classes_ is not None and reads
