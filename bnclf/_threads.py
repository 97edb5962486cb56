"""Sharing a compiled loop among threads: how many, where to cut its work, and the pool.

The compiled loops (:mod:`bnclf._compiled_loops`) release the GIL, so a loop whose work
splits into independent parts (rows of a table, test rows) runs its parts in as many
threads at once. Each part writes its own slice of one output array, and every cell is
computed by the same steps in the same order as in one thread, so the results are the
same, bit for bit, whatever the number of threads.

How many threads is the ``n_threads`` setting (:func:`bnclf.set_config`): ``None`` (the
default) reads ``$BNCLF_NUM_THREADS``, else ``$OMP_NUM_THREADS`` (set by joblib in its
worker processes, so that workers do not oversubscribe the cores, and by cluster
schedulers), else the CPUs this process may run on. A loop is cut into at most that many
parts, and into fewer when a part would hold less than :data:`MIN_PART_NS` of work: a
thread takes some tens of microseconds to wake, which small loops would not win back.

The first part runs in the calling thread and the others in a pool of worker threads,
kept for the process (made again in a forked child, which inherits no threads).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from bnclf._config import _check_n_threads, get_config

MIN_PART_NS = 150_000.0
"""Estimated nanoseconds of work below which a loop is not cut further: a part of 0.15 ms
pays for the 30 to 80 microseconds a pool thread takes to wake on the benchmark machine."""

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor, int] | None = None  # (pid, executor, workers)


def thread_count() -> int:
    """The threads a loop may use: the ``n_threads`` setting, else ``$BNCLF_NUM_THREADS``,
    else ``$OMP_NUM_THREADS``, else the CPUs available to this process (see the module)."""
    setting = get_config().get("n_threads")
    if setting is not None:
        return setting
    for variable in ("BNCLF_NUM_THREADS", "OMP_NUM_THREADS"):
        text = os.environ.get(variable, "").strip()
        if text:
            try:
                return _check_n_threads(int(text), variable)  # type: ignore[return-value]
            except (TypeError, ValueError):
                raise ValueError(
                    f"${variable}={text!r} is not a whole number of threads >= 1; unset it or give one, e.g. 1."
                ) from None
    return _cpus()


def _cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def even_parts(n_items: int, work_ns: float) -> list[tuple[int, int]]:
    """``[(start, stop), ...]``: ``n_items`` items of equal work (``work_ns`` in all) cut into
    as many runs as :func:`part_count` allows, of sizes that differ by at most one."""
    k = part_count(n_items, work_ns)
    cuts = [n_items * i // k for i in range(k + 1)]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def triangle_parts(n_items: int, work_ns: float) -> list[tuple[int, int]]:
    """As :func:`even_parts` for items whose work falls in a straight line from the first to
    nothing (item ``a`` of ``n`` pairs with the ``n - a`` items from it on): the cuts at
    ``n (1 - sqrt(1 - i / k))`` give each run the same share of the triangle."""
    k = part_count(n_items, work_ns)
    cuts = [0] + [round(n_items * (1.0 - math.sqrt(1.0 - i / k))) for i in range(1, k)] + [n_items]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def part_count(n_items: int, work_ns: float) -> int:
    """How many parts: at most :func:`thread_count` and ``n_items``, each with at least
    :data:`MIN_PART_NS` of the estimated work; at least one."""
    if n_items <= 1 or work_ns < 2.0 * MIN_PART_NS:
        return 1
    most = int(work_ns // MIN_PART_NS) if MIN_PART_NS > 0 else n_items
    return max(1, min(thread_count(), n_items, most))


def run_parts(task: Callable[[int, int], object], parts: list[tuple[int, int]]) -> None:
    """``task(start, stop)`` for each part at once: the first in this thread, the others in
    the pool. Every part finishes before this returns; the first error is raised then."""
    if len(parts) <= 1:
        for start, stop in parts:
            task(start, stop)
        return
    pool = _executor(len(parts) - 1)
    futures = [pool.submit(task, start, stop) for start, stop in parts[1:]]
    error = None
    try:
        task(*parts[0])
    except BaseException as exc:  # the others still write into the caller's arrays: wait for them
        error = exc
    for future in futures:
        try:
            future.result()
        except BaseException as exc:
            error = error or exc
    if error is not None:
        raise error


def _executor(workers: int) -> ThreadPoolExecutor:
    """The process's pool, with at least ``workers`` threads (a larger one replaces it)."""
    global _pool
    with _lock:
        pool = _pool
        if pool is None or pool[0] != os.getpid() or pool[2] < workers:
            if pool is not None and pool[0] == os.getpid():
                pool[1].shutdown(wait=False)  # its threads end once their tasks are done
            pool = _pool = (os.getpid(), ThreadPoolExecutor(workers, thread_name_prefix="bnclf-loop"), workers)
        return pool[1]
