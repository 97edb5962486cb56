"""The one timing harness of the speed benchmarks.

Every benchmark of :mod:`benchmarks.speed` times through these functions, so that a figure
means the same thing in every result file:

* in one process: :func:`best_of` (the minimum of ``repeats`` calls), :func:`median_of`,
  :func:`interleaved` (calls taking turns, round after round), :func:`timed` (the minimum
  with the garbage collector off while timing), :func:`timed_pair` (two sides taking turns,
  so that both meet the same load of a shared machine) and :func:`traced` (wall time and
  the peak of traced allocations);
* in a fresh process, as a user waits for it: :func:`fresh_process` (interpreter start and
  imports included) and :func:`run_json` (a timing script whose last line of output is JSON);
* against another commit of this repository: :func:`checkout` (a temporary git worktree),
  :func:`checkout_env` (a subprocess environment that imports that checkout's bnclf) and
  :func:`checkout_script` (a timing script run by that checkout's bnclf with these timers);
* peers: pgmpy, pyAgrum and scikit-learn are timed in the same process with the functions
  above; Weka through :mod:`benchmarks.weka_runner` (``time_weka``: the best of ``repeats``
  builds and test passes inside one warm JVM; ``run_weka``: its command line);
* the record: :func:`git_commit`, :func:`platform_name`, :func:`today`, and
  :func:`write_json`, which creates the folder and writes the report.

Only the standard library is imported here, so that a timing subprocess of an older
checkout can import this module too.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

SPEED = Path(__file__).resolve().parent
BENCHMARKS = SPEED.parent
REPO = BENCHMARKS.parent
RESULTS = BENCHMARKS / "results"


# -- in one process --------------------------------------------------------------------------
def best_of(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """``(fastest seconds, result of the last call)`` of ``repeats`` calls of ``fn``."""
    seconds, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        seconds.append(time.perf_counter() - start)
    return min(seconds), out


def median_of(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """``(median seconds, result of the last call)`` of ``repeats`` calls of ``fn``."""
    seconds, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), out


def interleaved(calls: dict[str, Callable[[], Any]], repeats: int) -> dict[str, list[float]]:
    """Every call's seconds, by name: the calls take turns, round after round, ``repeats``
    rounds, so that drift in the machine's state hits them alike."""
    seconds: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, fn in calls.items():
            start = time.perf_counter()
            fn()
            seconds[name].append(time.perf_counter() - start)
    return seconds


def timed(fn: Callable[[], Any], repeats: int = 1) -> tuple[float, list[float], Any]:
    """``(fastest seconds, every call's seconds, result of the last call)``, each call timed
    after a collection and with the garbage collector off (a collection inside a millisecond
    call would be most of it)."""
    times, result = [], None
    for _ in range(repeats):
        gc.collect()
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            t0 = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - t0)
        finally:
            if gc_was_on:
                gc.enable()
    return min(times), times, result


def timed_pair(fn_a, fn_b, repeats: int, inner_a: int = 1):
    """Two functions timed in turn (a, b, a, b, ...), so that both see the same machine load.

    Each round keeps the best of ``inner_a`` calls of ``fn_a`` (:func:`timed`) and one call of
    ``fn_b``. Returns ``(best a, per-round a, last a result, best b, per-round b, last b
    result)``.
    """
    ta, tb, ra, rb = [], [], None, None
    for _ in range(repeats):
        best, _, ra = timed(fn_a, inner_a)
        ta.append(best)
        best, _, rb = timed(fn_b)
        tb.append(best)
    return min(ta), ta, ra, min(tb), tb, rb


def traced(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """``(result, seconds, peak MiB)``: one call, with the largest allocation traced by
    ``tracemalloc`` (which numpy reports to) during it."""
    tracemalloc.start()
    start = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, seconds, peak


# -- in a fresh process ----------------------------------------------------------------------
def fresh_process(argv: list[str], *, cwd: Path, env: dict) -> tuple[float, str]:
    """``(wall seconds, stdout)`` of one subprocess, as a user waits for it (interpreter start
    and imports included). Raises ``RuntimeError`` with the end of stderr when it fails."""
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed: {result.stderr[-2000:]}")
    return elapsed, result.stdout


def run_json(argv: list[str], *, env: dict, cwd: Path | None = None) -> Any:
    """The JSON printed on the last line of a timing subprocess (raises on failure)."""
    result = subprocess.run(argv, check=True, capture_output=True, text=True, env=env, cwd=cwd)
    return json.loads(result.stdout.strip().splitlines()[-1])


def checkout_env(source: Path, *, home: bool = False, mpl: bool = False) -> dict:
    """A minimal subprocess environment whose ``import bnclf`` is the checkout at ``source``
    (``PYTHONPATH``); ``home`` passes ``$HOME`` on, ``mpl`` sets matplotlib's Agg backend."""
    env = {"PYTHONPATH": str(source), "PATH": "/usr/bin:/bin"}
    if mpl:
        env["MPLBACKEND"] = "Agg"
    if home and "HOME" in os.environ:
        env["HOME"] = os.environ["HOME"]
    return env


# -- another commit --------------------------------------------------------------------------
_PROLOGUE = """
import sys
sys.path[:0] = [sys.argv[1], {repo!r}]  # the checkout's bnclf first, then this harness
import bnclf
assert bnclf.__file__.startswith(sys.argv[1]), bnclf.__file__  # the checkout's code
"""


def checkout_script(body: str, *, harness: bool = True) -> str:
    """Source for ``python -c`` that imports the bnclf of the checkout given as its first
    argument (asserting it did), then runs ``body``. With ``harness``, ``body`` may use this
    module's timers (``best_of``, ``interleaved``, ``median_of``, ``timed``, ``traced``) and
    :mod:`benchmarks.speed.synthetic`, imported from this checkout whatever the commit."""
    head = _PROLOGUE.format(repo=str(REPO))
    if harness:
        head += "from benchmarks.speed.harness import best_of, interleaved, median_of, timed, traced\n"
    return head + body


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[tuple[Path, Path]]:
    """``(worktree, scratch)``: ``commit`` checked out into a temporary git worktree (import
    its bnclf by putting the worktree first on ``sys.path`` of a subprocess), and a scratch
    folder for data files; both are removed on exit."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(old), commit], check=True, capture_output=True
        )
        try:
            yield old, Path(tmp)
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False, capture_output=True
            )


# -- the record ------------------------------------------------------------------------------
def git_commit(path: Path = REPO) -> str:
    """The short hash of ``HEAD`` of the repository at ``path`` ("" outside one)."""
    out = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip()


def platform_name() -> str:
    """``platform.platform()``: the "machine" of most result files."""
    return platform.platform()


def today() -> str:
    """Today's date, ISO format."""
    return date.today().isoformat()


def write_json(path: Path | str, report: Any, *, indent: int = 1, newline: bool = True, default=None) -> Path:
    """Write ``report`` as JSON to ``path`` (its folder created); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=indent, default=default) + ("\n" if newline else ""))
    return path
