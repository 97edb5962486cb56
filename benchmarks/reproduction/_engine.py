"""Run a paper's protocol fold by fold, with a fold cache, and write its outputs.

Every finished fold is stored in ``OUT/PAPER/cache/`` as a small JSON file whose name holds
a hash of everything that determines it: the paper's protocol and its version string, the
classifier specs, the fold seed, the fold's row indices, a hash of the data set's contents,
and the bnclf version with a hash of its sources. A rerun (also after Ctrl-C) computes only
the missing folds; ``use_cache=False`` recomputes every fold (and rewrites the cache).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from ._paper import Dataset, Paper
from ._report import build_table, draw_scatter, render_markdown

__all__ = ["Dataset", "Paper", "RunResult", "code_version", "data_fingerprint", "run_paper", "spec_key"]


# --------------------------------------------------------------------------- cache keys
def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def code_version() -> str:
    """The bnclf version and a hash of the sources of the bnclf that was imported.

    Returns
    -------
    str
        ``"bnclf 0.2.0, sources 1a2b3c4d5e6f"``; any change to a ``.py`` file of the package
        gives another hash (and so other cache keys).
    """
    import bnclf

    root = Path(bnclf.__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return f"bnclf {bnclf.__version__}, sources {h.hexdigest()[:12]}"


def data_fingerprint(X: Any, y: Any) -> str:
    """A hash of a data set's contents: columns, types, values and labels.

    Parameters
    ----------
    X : pandas.DataFrame
    y : pandas.Series or pandas.DataFrame

    Returns
    -------
    str
        16 hexadecimal digits.
    """
    h = hashlib.sha256()
    for part in (X, y):
        frame = part if isinstance(part, pd.DataFrame) else pd.DataFrame({"y": np.asarray(part)})
        h.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
        h.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return h.hexdigest()[:16]


def spec_key(spec: Any) -> Any:
    """A stable, JSON-able description of a classifier spec or estimator instance.

    Parameters
    ----------
    spec : str or estimator
        A bnclf spec string is kept as it is; an estimator becomes its class name and its
        parameters (functions by qualified name, so that no memory address enters a key).

    Returns
    -------
    str or dict
    """
    if isinstance(spec, str):
        return spec

    def value(v):
        if hasattr(v, "get_params"):  # its own parameters are listed with the prefix of its name
            return type(v).__name__
        if callable(v):
            return f"{getattr(v, '__module__', '')}.{getattr(v, '__qualname__', repr(v))}"
        if isinstance(v, (list, tuple)):
            return [value(item) for item in v]
        return repr(v)

    params = spec.get_params(deep=True) if hasattr(spec, "get_params") else {}
    return {"class": type(spec).__name__, "params": {k: value(v) for k, v in sorted(params.items())}}


def _indices_digest(idx: np.ndarray) -> str:
    return hashlib.sha256(np.asarray(idx, dtype=np.int64).tobytes()).hexdigest()[:16]


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)


# --------------------------------------------------------------------------- running
@dataclass
class RunResult:
    """What :func:`run_paper` did.

    Attributes
    ----------
    table : pandas.DataFrame
        The rows of ``table.csv``.
    computed, cached : int
        Folds computed in this run and folds read from the cache.
    seconds : float
        Wall time.
    out : pathlib.Path
        The paper's output folder.
    """

    table: pd.DataFrame
    computed: int
    cached: int
    seconds: float
    out: Path


def _call(u, task, name, X, y, split, kwargs):
    t0 = time.perf_counter()
    result = task(name, X, y, split, **kwargs)
    return u, result, time.perf_counter() - t0


def _write_json(path: Path, payload: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(payload, default=_json_default), encoding="utf-8")
    os.replace(tmp, path)  # atomic: an interrupted write leaves no half file


def _json_default(v):
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def run_paper(
    paper: Paper,
    out: Path,
    *,
    data_dir: Path | None = None,
    jobs: int = 1,
    use_cache: bool = True,
    progress: bool = True,
    log: Callable[[str], None] = tqdm.write,
) -> RunResult:
    """Run a paper's protocol fold by fold (reusing cached folds), then write its outputs.

    Parameters
    ----------
    paper : Paper
    out : pathlib.Path
        The parent folder; the outputs go to ``out / paper.key``.
    data_dir : pathlib.Path, optional
        The folder of data files the user points to (UCI copies, MULAN sets).
    jobs : int, default=1
        Folds computed in parallel (joblib processes).
    use_cache : bool, default=True
        Read finished folds from the cache; when False every fold is computed (and the
        cache rewritten).
    progress : bool, default=True
        A progress bar over the (data set, fold) units.
    log : callable
        Where the lines about the run go.

    Returns
    -------
    RunResult
    """
    t0 = time.perf_counter()
    folder = Path(out) / paper.key
    cache = folder / "cache"
    datasets, skipped = paper.load(data_dir)
    if not datasets:
        raise RuntimeError(f"{paper.key}: no data set could be loaded ({'; '.join(skipped)})")
    code = code_version()
    units = plan_units(paper, datasets, cache, code)
    results, seconds_of = read_cache(units) if use_cache else ({}, {})
    n_cached = len(results)
    todo = [u for u in range(len(units)) if u not in results]
    try:
        computed = compute_units(paper, datasets, units, todo, results, seconds_of, jobs=jobs, progress=progress)
    except KeyboardInterrupt:
        done = len(results)
        log(f"{paper.key}: interrupted; {done} of {len(units)} folds are in {cache}, rerun to resume")
        raise
    ours = aggregate(paper, datasets, units, results)
    table = build_table(paper, ours, [ds.name for ds in datasets])
    seconds = time.perf_counter() - t0
    info = {
        "paper": paper.key,
        "seed": paper.seed,
        "title": paper.title,
        "mode": paper.mode,
        "protocol": paper.protocol,
        "protocol_version": paper.version,
        "code": code,
        "datasets": {ds.name: {"rows": len(ds.y), "source": ds.source} for ds in datasets},
        "skipped": skipped,
        "folds": len(units),
        "computed": computed,
        "cached": n_cached,
        "seconds": round(seconds, 1),
        "fold_seconds": round(sum(seconds_of.values()), 1),
        "jobs": jobs,
    }
    write_outputs(paper, folder, table, info)
    log(
        f"{paper.key}: {len(units)} folds, {computed} computed, {n_cached} from the cache, "
        f"{seconds:.1f} s; outputs in {folder}"
    )
    return RunResult(table, computed, n_cached, seconds, folder)


def plan_units(paper: Paper, datasets: list[Dataset], cache: Path, code: str) -> list[tuple]:
    """The (data set, fold) units of a run, each with its cache file and key.

    Returns
    -------
    list of (int, Split, pathlib.Path, dict)
        The index of the data set, the fold, the cache file and the key stored in it.
    """
    units = []
    for i, ds in enumerate(datasets):
        fingerprint = data_fingerprint(ds.X, ds.y)
        for split in paper.splits(ds):
            key = {
                "paper": paper.key,
                "version": paper.version,
                "protocol": paper.protocol,
                "code": code,
                "dataset": ds.name,
                "data": fingerprint,
                "repeat": int(split.repeat),
                "fold": int(split.fold),
                "train": _indices_digest(split.train),
                "test": _indices_digest(split.test),
            }
            name = f"r{split.repeat:02d}-f{split.fold:02d}-{_digest(key)[:16]}.json"
            units.append((i, split, cache / _slug(ds.name) / name, key))
    return units


def read_cache(units: list[tuple]) -> tuple[dict[int, dict], dict[int, float]]:
    """The results and compute times of the units whose cache file holds their key.

    A missing, unreadable or stale file (another key) leaves its unit out.
    """
    results: dict[int, dict] = {}
    seconds_of: dict[int, float] = {}
    for u, (_, _, path, key) in enumerate(units):
        if not path.exists():
            continue
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if stored.get("key") == key:
            results[u] = stored["result"]
            seconds_of[u] = float(stored.get("seconds", 0.0))
    return results, seconds_of


def compute_units(paper, datasets, units, todo, results, seconds_of, *, jobs: int, progress: bool) -> int:
    """Compute the units ``todo`` (in parallel with ``jobs`` > 1), storing each as it finishes.

    ``results`` and ``seconds_of`` are filled in place and every finished unit is written to
    its cache file at once, so an interruption keeps the units done so far.

    Returns
    -------
    int
        The number of units computed.
    """
    bar = tqdm(total=len(units), desc=paper.key, unit="fold", disable=not progress, file=sys.stderr)
    bar.update(len(units) - len(todo))
    computed = 0

    def store(u, result, seconds):
        nonlocal computed
        i, split, path, key = units[u]
        _write_json(path, {"key": key, "result": result, "seconds": seconds})
        results[u] = result
        seconds_of[u] = seconds
        computed += 1
        bar.set_postfix_str(f"{datasets[i].name} r{split.repeat} f{split.fold}")
        bar.update(1)

    def call(u):
        i, split, _, _ = units[u]
        ds = datasets[i]
        return delayed(_call)(u, paper.task, ds.name, ds.X, ds.y, split, paper.task_kwargs)

    try:
        if jobs == 1 or len(todo) <= 1:
            for u in todo:
                i, split, _, _ = units[u]
                ds = datasets[i]
                bar.set_postfix_str(f"{ds.name} r{split.repeat} f{split.fold}")
                store(*_call(u, paper.task, ds.name, ds.X, ds.y, split, paper.task_kwargs))
        else:
            for u, result, seconds in Parallel(n_jobs=jobs, return_as="generator_unordered")(call(u) for u in todo):
                store(u, result, seconds)
    finally:
        bar.close()
    return computed


def aggregate(paper: Paper, datasets: list[Dataset], units: list[tuple], results: dict[int, dict]) -> pd.DataFrame:
    """Our values: ``paper.aggregate`` over each data set's folds, with ``run`` and ``N``."""
    rows = []
    for i, ds in enumerate(datasets):
        folds = [(units[u][1], results[u]) for u in range(len(units)) if units[u][0] == i]
        agg = paper.aggregate(ds, folds)
        agg.insert(0, "run", ds.name)
        agg["N"] = len(ds.y)
        rows.append(agg)
    return pd.concat(rows, ignore_index=True)


def write_outputs(paper: Paper, folder: Path, table: pd.DataFrame, info: dict) -> None:
    """``table.csv``, ``table.md``, ``scatter.png`` and ``run.json`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / "table.csv", index=False)
    (folder / "table.md").write_text(render_markdown(paper, table, info), encoding="utf-8")
    draw_scatter(paper, table, folder / "scatter.png")
    (folder / "run.json").write_text(json.dumps(info, indent=1, default=_json_default), encoding="utf-8")
