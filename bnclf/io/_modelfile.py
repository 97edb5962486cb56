"""The safe model file: a fitted model's parameters as JSON and ``.npy`` arrays in a zip archive.

A pickle runs whatever its author put in it at load time, so the command line never
unpickles. ``save_model`` writes this format instead:

* ``model.json`` — the format, the bnclf version, and the model as a tree of plain
  values (numbers, text, lists), in which each object a model is made of (bnclf's
  estimators, a pipeline of bnclf's discretizers, networks, encoders, count summaries)
  is named by its class and given by its state: the networks' structures and log-CPTs,
  weights, encoder states, cut points and, where ``partial_fit`` or
  ``refit_parameters`` need them, count tables. Class names are looked up in an
  allow-list of bnclf's own classes (and scikit-learn's ``Pipeline`` and the two
  multi-output wrappers of the multilabel baselines), never imported by name.
* ``arrays/<n>.npy`` — the numeric arrays of that tree, those of one dtype one after the
  other in one member (``allow_pickle=False``); the tree refers to each as
  ``[member, offset, shape]``.

A model file holds what the model holds: no training rows (the instance-specific
learners, which build a network per test row from their training rows, are the
exception and say so), so its size does not grow with the data. Loading builds each
object from its stored state without refitting, and checks what can be checked from
the file itself before using it: no member but ``model.json`` and the arrays it refers
to (any other is refused unread), no member inflated past the size its header declares,
every array's size against the memory budget before it is read; each object's state
holds exactly its class's parameters (named in ``__init__``) and fitted attributes
(scikit-learn's names: ending in ``_`` or starting with one ``_``, never a name the
class defines, such as a method), each parameter meeting the constraint ``fit`` checks
it against; shapes against the cardinalities of the states, finite log-CPTs whose
distributions sum to one, sorted finite cut points, unique states, unique feature names
that agree with the encoder, codes in range.
A failed check names the file and what is wrong. The file is trusted to be what its
author meant (nothing stops an author from writing consistent wrong numbers); it is
never run.

Files of the first format (``bnclf-safe/1``), which stored the coded training rows and
refitted on load, are still read that way; save them again to get this format.
"""

from __future__ import annotations

import functools
import inspect
import io
import json
import math
import os
import sys
import zipfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


FORMAT = "bnclf-safe/2"


LEGACY_FORMAT = "bnclf-safe/1"


_JSON_LIMIT = 256 << 20
"""Largest ``model.json`` read (bytes, inflated)."""


class ModelFileError(ValueError):
    """A model file that cannot be read: the message names the file and what is wrong."""


# -- the classes a model file may name ----------------------------------------------------------------
def _allowed_classes(multioutput: bool = True) -> dict[str, type]:
    """``qualified name -> class`` of everything a model file may hold: the registered
    estimators, the values they are made of, and the discretizers and pipelines around them
    (scikit-learn's two multi-output wrappers only with ``multioutput``: the reader adds them
    when a file names them, so that loading another model does not import them)."""
    from sklearn.pipeline import Pipeline

    from bnclf.counts._summary import CountSummary
    from bnclf.encoding import DiscreteData, FeatureEncoder, MDLDiscretizer, QuantileDiscretizer
    from bnclf.models._registry import ESTIMATORS, import_estimators
    from bnclf.network import Network

    import_estimators()
    classes = list(ESTIMATORS)
    classes += [Network, FeatureEncoder, CountSummary, DiscreteData, MDLDiscretizer, QuantileDiscretizer]
    classes += [Pipeline]
    if multioutput:
        classes += _multioutput_classes()
    return {_qualified(c): c for c in classes}


def _multioutput_classes() -> list[type]:
    from sklearn.multioutput import ClassifierChain, MultiOutputClassifier

    return [MultiOutputClassifier, ClassifierChain]


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _state_of(obj) -> dict:
    getstate = getattr(obj, "__getstate__", None)
    state = getstate() if getstate is not None else None
    return dict(vars(obj)) if state is None else dict(state)


# -- writing ------------------------------------------------------------------------------------------
class _Writer:
    """Turns a model into a JSON tree and a list of numeric arrays."""

    def __init__(self, allowed: dict[str, type]) -> None:
        self.packs: dict[str, list[np.ndarray]] = {}  # dtype -> the flattened arrays of that dtype
        self.sizes: dict[str, int] = {}
        self.names = {cls: name for name, cls in allowed.items()}

    def encode(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, np.generic):
            return self.encode(value.item(), where)
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {"float": repr(value)}
        if isinstance(value, np.ndarray):
            return self._array(value, where)
        if isinstance(value, list):
            return [self.encode(v, where) for v in value]
        if isinstance(value, tuple):
            return {"tuple": [self.encode(v, where) for v in value]}
        if isinstance(value, dict):
            return {"dict": [[self.encode(k, where), self.encode(v, f"{where}[{k!r}]")] for k, v in value.items()]}
        if isinstance(value, pd.DataFrame):
            if not isinstance(value.index, pd.RangeIndex) or value.index.start != 0 or value.index.step != 1:
                raise ValueError(f"{where}: a table with an index of its own cannot be stored in a safe model file.")
            columns = [self.encode(c, where) for c in value.columns]
            data = [self._array(value[c].to_numpy(), f"{where}[{c!r}]") for c in value.columns]
            return {"frame": {"columns": columns, "data": data}}
        name = self.names.get(type(value))
        if name is not None:
            return {"object": name, "state": self.encode(_state_of(value), f"{where}.{type(value).__name__}")}
        raise ValueError(
            f"{where} holds {value!r} ({type(value).__name__}), which cannot be stored in a safe model "
            "file (it holds numbers, text, booleans and bnclf's own objects); use "
            "save_model(..., format='pickle') for trusted use, or recode it (labels as text or numbers)."
        )

    def _array(self, array: np.ndarray, where: str) -> Any:
        kind = array.dtype.kind
        if kind in "biuf":
            key = array.dtype.str
            if key not in self.packs:
                self.packs[key], self.sizes[key] = [], 0
            offset = self.sizes[key]
            self.packs[key].append(np.ascontiguousarray(array).ravel())
            self.sizes[key] += array.size
            return {"array": [list(self.packs).index(key), offset, list(array.shape)]}
        if kind in "OUS":
            items = [self.encode(v, where) for v in array.ravel().tolist()]
            return {"objects": items, "dtype": "object" if kind == "O" else array.dtype.str, "shape": list(array.shape)}
        raise ValueError(
            f"{where} is an array of {array.dtype}, which cannot be stored in a safe model file; use "
            "save_model(..., format='pickle') for trusted use."
        )


def dump(model: BaseEstimator, path: str | os.PathLike) -> Path:
    """Write a fitted bnclf model (a classifier, a multilabel classifier, or a pipeline of
    bnclf discretizers ending in a classifier)."""
    from sklearn.pipeline import Pipeline
    from sklearn.utils.validation import check_is_fitted

    from bnclf import __version__

    # a model that holds scikit-learn's multi-output wrappers has imported them: the writer
    # allows them then, and a command saving another model does not import them
    allowed = _allowed_classes(multioutput="sklearn.multioutput" in sys.modules)
    steps = list(model.steps) if isinstance(model, Pipeline) else [("model", model)]
    for name, step in steps:
        if _qualified(type(step)) not in allowed:
            what = "pipeline step" if isinstance(model, Pipeline) else "model"
            raise ValueError(
                f"{what} {name!r} ({type(step).__name__}) is not one of bnclf's models or discretizers; a "
                "safe model file holds bnclf's own objects (use format='pickle' for others)."
            )
        check_is_fitted(step)
    writer = _Writer(allowed)
    tree = writer.encode(model, "the model")
    meta = {"format": FORMAT, "bnclf_version": __version__, "model": tree}
    arrays = [np.concatenate(parts) if parts else np.empty(0) for parts in writer.packs.values()]
    return _write(path, json.dumps(meta, indent=None, separators=(",", ":")), arrays)


def _write(path, text: str, arrays: list[np.ndarray]) -> Path:
    from bnclf.io._files import staged

    path = Path(path)
    with staged(path) as (tmp,), zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.json", text)
        for k, array in enumerate(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            archive.writestr(f"arrays/{k}.npy", buffer.getvalue())
    return path


# -- reading ------------------------------------------------------------------------------------------
def is_model_archive(path: str | os.PathLike | IO[bytes]) -> bool:
    """Whether ``path`` is a zip archive (this format); pickles start otherwise."""
    return zipfile.is_zipfile(path)


def load(path: str | os.PathLike) -> BaseEstimator:
    """The model written by :func:`dump` (or a file of the first format); anything else is
    refused with a :class:`ModelFileError` naming the file."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            meta = _read_json(archive, path)
            found = meta.get("format") if isinstance(meta, dict) else None
            if found == LEGACY_FORMAT:
                from bnclf.io._modelfile_v1 import load_v1

                return load_v1(_legacy_archive(archive, path), meta, path)
            if found != FORMAT:
                raise ModelFileError(
                    f"{path} has model format {found!r}; this bnclf reads {FORMAT!r} (and "
                    f"{LEGACY_FORMAT!r}). Refit the model with this version ('bnclf fit', or "
                    "save_model after fit)."
                )
            referenced = _referenced_members(meta.get("model"))
            _refuse_unreferenced(archive, referenced, path)
            arrays = _read_arrays(archive, path)
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, UnicodeDecodeError) as exc:
        raise ModelFileError(
            f"{path} is not a readable bnclf model file ({type(exc).__name__}: {exc}); write one with "
            "'bnclf fit ... -o FILE' or bnclf.io.save_model."
        ) from None
    try:
        return _Reader(arrays, path).decode(meta.get("model"), "the model")
    except ModelFileError:
        raise
    except (KeyError, TypeError, IndexError, ValueError, AttributeError, RecursionError) as exc:
        raise ModelFileError(
            f"{path} is a damaged bnclf model file ({type(exc).__name__}: {exc}); refit the model."
        ) from None


_CHUNK = 1 << 20
"""Bytes inflated at a time: a member is never inflated past its declared size by more."""


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The bytes of one member, inflated a chunk at a time and never past the size its
    header declares (a stream that holds more fails its CRC check at that size)."""
    parts, left = [], info.file_size
    with archive.open(info) as handle:
        while left > 0:
            part = handle.read(min(left, _CHUNK))
            if not part:
                break
            parts.append(part)
            left -= len(part)
    return b"".join(parts)


class _BoundedArchive:
    """A first-format archive whose members are read a chunk at a time, never past their
    declared size (:func:`_read_member`)."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive

    def read(self, name: str) -> bytes:
        return _read_member(self.archive, self.archive.getinfo(name))


def _legacy_archive(archive: zipfile.ZipFile, path: Path) -> _BoundedArchive:
    """A first-format archive, checked before any member but ``model.json`` is read: it
    holds ``model.json`` and ``arrays.npz`` alone, and ``arrays.npz`` fits the memory budget."""
    from bnclf._config import memory_budget, readable_size

    for info in archive.infolist():
        if info.filename not in ("model.json", "arrays.npz"):
            raise ModelFileError(
                f"{path}: member {info.filename!r} ({info.file_size:,} bytes inflated) is not part of a "
                f"{LEGACY_FORMAT} model file (model.json and arrays.npz), so it was not read; refit the model."
            )
        if info.file_size > memory_budget():
            raise ModelFileError(
                f"{path}: {info.filename} inflates to {readable_size(info.file_size)}, over the memory budget of "
                f"{readable_size(memory_budget())} (bnclf.set_config(memory_budget=...) raises it)."
            )
    return _BoundedArchive(archive)


class _LongInteger:
    """An integer of ``digits`` digits, more than Python converts from text: refused with
    the field it is in once the tree is read."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _parse_int(text: str) -> int | _LongInteger:
    limit = sys.get_int_max_str_digits()
    digits = len(text.lstrip("-"))
    return _LongInteger(digits) if limit and digits > limit else int(text)


def _read_json(archive: zipfile.ZipFile, path: Path) -> Any:
    info = archive.getinfo("model.json")
    if info.file_size > _JSON_LIMIT:
        raise ModelFileError(f"{path}: model.json inflates to {info.file_size:,} bytes, more than a model file holds.")
    text = _read_member(archive, info).decode("utf-8")
    try:
        try:
            return json.loads(text)
        except ValueError as exc:
            if "integer string conversion" not in str(exc):
                raise
            return json.loads(text, parse_int=_parse_int)  # the field with the long integer is named
    except (ValueError, RecursionError) as exc:
        raise ModelFileError(f"{path}: model.json is not valid JSON ({type(exc).__name__}); refit the model.") from None


def _referenced_members(tree: Any) -> set[int]:
    """The array members (``arrays/<n>.npy``) that the tree of ``model.json`` refers to."""
    found, stack = set(), [tree]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            reference = value.get("array")
            if isinstance(reference, list) and reference and type(reference[0]) is int and reference[0] >= 0:
                found.add(reference[0])
            stack.extend(value.values())
    return found


def _refuse_unreferenced(archive: zipfile.ZipFile, referenced: set[int], path: Path) -> None:
    """Refuse a member other than ``model.json`` and the arrays it refers to, unread."""
    expected = {"model.json"} | {f"arrays/{k}.npy" for k in referenced}
    for info in archive.infolist():
        if info.filename not in expected:
            raise ModelFileError(
                f"{path}: member {info.filename!r} ({info.file_size:,} bytes inflated) is not referenced "
                "by model.json; a model file holds model.json and the arrays it refers to, so it was not "
                "read. Save the model again (save_model, or 'bnclf fit ... -o FILE')."
            )


def _read_arrays(archive: zipfile.ZipFile, path: Path) -> list[np.ndarray]:
    """Every ``arrays/<n>.npy`` member (all the numeric arrays of one dtype, one after the
    other), each sized from its header before it is read."""
    from bnclf._config import memory_budget, readable_size

    names = sorted(
        (n for n in archive.namelist() if n.startswith("arrays/") and n.endswith(".npy")),
        key=lambda n: int(n[len("arrays/") : -len(".npy")]),
    )
    if [n[len("arrays/") : -len(".npy")] for n in names] != [str(k) for k in range(len(names))]:
        raise ModelFileError(f"{path}: the arrays of the model file are not numbered 0, 1, 2, ...; refit the model.")
    budget, total, arrays = memory_budget(), 0, []
    for name in names:
        with archive.open(name) as handle:
            try:
                version = np.lib.format.read_magic(handle)
                read_header = (
                    np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
                )
                shape, _, dtype = read_header(handle)
            except ValueError as exc:
                raise ModelFileError(f"{path}: {name} is not a numpy array ({exc}).") from None
        if dtype.hasobject or dtype.kind not in "biuf":
            raise ModelFileError(f"{path}: {name} holds {dtype} values; a model file holds numbers.")
        declared = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
        if declared > archive.getinfo(name).file_size:  # the header promises more than the member holds
            raise ModelFileError(
                f"{path}: {name} declares {readable_size(declared)} of values but holds "
                f"{readable_size(archive.getinfo(name).file_size)}; the file is damaged. Refit the model."
            )
        total += declared
        if total > budget:
            raise ModelFileError(
                f"{path}: its arrays would take {readable_size(total)} of memory, over the budget of "
                f"{readable_size(budget)} "
                "(bnclf.set_config(memory_budget=...) or $BNCLF_MEMORY_BUDGET raises it)."
            )
        with archive.open(name) as handle:
            arrays.append(np.lib.format.read_array(handle, allow_pickle=False))
    return arrays


class _Reader:
    """Builds a model from the JSON tree and the arrays, checking each object it builds."""

    def __init__(self, arrays: list[np.ndarray], path: Path) -> None:
        self.arrays = arrays
        self.path = path
        self.allowed = _allowed_classes(multioutput=False)

    def fail(self, where: str, what: str):
        raise ModelFileError(f"{self.path}: {where}: {what}; refit the model (or save it again).")

    def decode(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, _LongInteger):
            self.fail(
                where,
                f"an integer of {value.digits:,} digits, more than Python's limit of "
                f"{sys.get_int_max_str_digits():,} digits for reading an integer from text "
                "(sys.set_int_max_str_digits); no model parameter needs one",
            )
        if isinstance(value, float):
            return value
        if isinstance(value, list):
            return [self.decode(v, where) for v in value]
        if not isinstance(value, dict) or len(value) == 0:
            self.fail(where, f"unexpected entry {value!r}")
        if "float" in value:
            text = value["float"]
            if text not in ("nan", "inf", "-inf"):
                self.fail(where, f"{text!r} is not a number")
            return float(text)
        if "array" in value:
            return self._array(value["array"], where)
        if "objects" in value:
            items = [self.decode(v, where) for v in value["objects"]]
            dtype = value.get("dtype", "object")
            out = np.empty(len(items), dtype=object)
            out[:] = items
            out = out.reshape(value["shape"])
            return out if dtype == "object" else out.astype(np.dtype(dtype))
        if "tuple" in value:
            return tuple(self.decode(v, where) for v in value["tuple"])
        if "dict" in value:
            return {_key(self.decode(k, where)): self.decode(v, f"{where}[{k!r}]") for k, v in value["dict"]}
        if "frame" in value:
            frame = value["frame"]
            columns = [self.decode(c, where) for c in frame["columns"]]
            data = [self.decode(c, where) for c in frame["data"]]
            return pd.DataFrame(dict(zip(range(len(columns)), data))).set_axis(columns, axis=1)
        if "object" in value:
            return self._object(value["object"], value["state"], where)
        self.fail(where, f"unexpected entry with keys {sorted(value)}")

    def _array(self, reference: Any, where: str) -> np.ndarray:
        """The array at ``[member, offset, shape]``: a view of the member that holds it."""
        ok = isinstance(reference, list) and len(reference) == 3 and isinstance(reference[2], list)
        member, offset, shape = reference if ok else (None, None, None)
        if not ok or not all(isinstance(v, int) and v >= 0 for v in [member, offset, *shape]):
            self.fail(where, f"{reference!r} is not a reference to an array")
        if member >= len(self.arrays):
            self.fail(where, f"array member {member} is not in the file")
        size = int(np.prod(shape, dtype=np.int64))
        if offset + size > self.arrays[member].size:
            self.fail(where, f"an array of shape {tuple(shape)} at {offset} runs past the end of member {member}")
        return self.arrays[member][offset : offset + size].reshape(shape)

    def _object(self, name: str, state: Any, where: str) -> Any:
        if name.startswith("sklearn.multioutput.") and name not in self.allowed:
            self.allowed.update({_qualified(c): c for c in _multioutput_classes()})
        cls = self.allowed.get(name)
        if cls is None:
            self.fail(where, f"{name!r} is not one of bnclf's model classes")
        state = self.decode(state, f"{where}.{name.rsplit('.', 1)[-1]}")
        if not isinstance(state, dict):
            self.fail(where, f"the state of {name} is not a mapping")
        _check_state(cls, state, lambda field, what: self.fail(f"{where} ({cls.__name__}) {field}", what))
        obj = cls.__new__(cls)
        try:
            setstate = getattr(obj, "__setstate__", None)
            if setstate is not None:
                setstate(state)
            else:
                obj.__dict__.update(state)
            _check(obj)
            _check_parameters(obj)
        except ModelFileError:
            raise
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            self.fail(f"{where} ({cls.__name__})", str(exc).rstrip("."))
        return obj


def _key(key):
    return tuple(key) if isinstance(key, list) else key


# -- what is checked, object by object ----------------------------------------------------------------------
_VALUE_STATES = {
    "bnclf.counts._summary.CountSummary": ("names",),
    "bnclf.network.Network": (),
    "bnclf.encoding._frames.DiscreteData": (),
}
"""The classes whose state is exactly their constructor's arguments (and these extra keys)."""


@functools.cache
def _init_parameters(cls: type) -> frozenset[str]:
    """The named parameters of ``cls.__init__``: the parameters a state may give."""
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    parameters = inspect.signature(cls.__init__).parameters.items()
    return frozenset(n for n, p in list(parameters)[1:] if p.kind not in kinds)


def _refused_key(cls: type, key: Any) -> str | None:
    """Why ``key`` is neither a declared parameter nor a fitted attribute of ``cls`` (None
    when it is one). A parameter is a named parameter of ``__init__``; a fitted attribute
    follows scikit-learn's naming (ends in ``_``, or starts with one ``_``) and is no name
    the class itself defines (a method, a property, a class attribute). The value classes
    (networks, count summaries, coded data) hold their constructor's arguments only."""
    if not isinstance(key, str) or not key.isidentifier():
        return "is not an attribute name"
    value_keys = _VALUE_STATES.get(_qualified(cls))
    if key in _init_parameters(cls) or (value_keys is not None and key in value_keys):
        return None
    if key.startswith("__") and key.endswith("__"):
        return "is one of Python's special attributes, never model data"
    if hasattr(cls, key):
        return f"is a method or class attribute of {cls.__name__}, never model data"
    if value_keys is None and (key.endswith("_") or key.startswith("_")):
        return None
    return f"is neither a parameter nor a fitted attribute of {cls.__name__}"


def _check_state(cls: type, state: dict, fail) -> None:
    """Refuse a state key that ``cls`` does not declare, and a stored parameter that its
    constraint (as ``__init__``'s values are checked at fit) does not accept; ``fail(field,
    what)`` raises."""
    from bnclf._params import parameter_table

    for key in state:
        reason = _refused_key(cls, key)
        if reason is not None:
            parameters = ", ".join(sorted(_init_parameters(cls))) or "none"
            fail(
                f"state key {key!r}",
                f"{key!r} {reason} (its parameters: {parameters}; its fitted attributes end in '_' or start with '_')",
            )
    for name, constraint in parameter_table(cls).items():
        if name in state and not constraint.allows(state[name]):
            fail(f"parameter {name}", constraint.message(name, state[name]).rstrip("."))


def _check_parameters(obj) -> None:
    """Every declared parameter of a loaded object, as set, against its constraint."""
    from bnclf._params import parameter_table

    for name, constraint in parameter_table(type(obj)).items():
        if name not in vars(obj):
            raise ValueError(f"parameter {name} is missing")
        value = vars(obj)[name]
        if not constraint.allows(value):
            raise ValueError(f"parameter {name}: {constraint.message(name, value).rstrip('.')}")


def _check_fitted_names(obj) -> None:
    """Unique ``feature_names_in_`` that agree with the encoder's columns, and a multilabel
    model's classes: each label's, its two states 0 and 1."""
    names = vars(obj).get("feature_names_in_")
    if names is not None:
        names = [str(n) for n in np.asarray(names, dtype=object).ravel().tolist()]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"feature_names_in_ lists {twice[:5]} more than once (column names are unique)")
        encoder = vars(obj).get("_encoder")
        if encoder is not None and names != [str(n) for n in getattr(encoder, "feature_names_", names)]:
            raise ValueError(
                f"feature_names_in_ {names[:5]} does not agree with the encoder's columns "
                f"{[str(n) for n in encoder.feature_names_][:5]}"
            )
    labels, classes = vars(obj).get("label_names_"), vars(obj).get("classes_")
    if labels is not None and classes is not None:
        if not isinstance(classes, (list, tuple)) or len(classes) != len(labels):
            raise ValueError(f"classes_ does not hold one entry per label ({len(labels)} labels)")
        for label, values in zip(labels, classes):
            if np.asarray(values, dtype=object).tolist() != [0, 1]:
                raise ValueError(f"the classes of label {label!r} are {values!r}, not its two states [0, 1]")


def _check(obj) -> None:
    """Raise a ValueError when a loaded object's state is inconsistent (what the file alone
    can tell)."""
    from bnclf.encoding._discretize import MDLDiscretizer, QuantileDiscretizer
    from bnclf.encoding._frames import DiscreteData
    from bnclf.network import Network

    if isinstance(obj, Network):
        obj.check()
    elif isinstance(obj, DiscreteData):
        obj.check()
    elif isinstance(obj, (MDLDiscretizer, QuantileDiscretizer)) and hasattr(obj, "cut_points_"):
        for column, cuts in obj.cut_points_.items():
            cuts = np.asarray(cuts, dtype=float)
            if not np.isfinite(cuts).all() or (np.diff(cuts) <= 0).any():
                raise ValueError(f"the cut points of column {column!r} are not finite and increasing: {cuts.tolist()}")
    check = getattr(obj, "_check_fitted_state", None)
    if check is not None:
        check()
    _check_fitted_names(obj)
