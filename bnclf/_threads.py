"""Sharing a compiled loop among threads: how many, where to cut its work, and the pool.

The compiled kernels (Cython, built at install beside the code they serve in
:mod:`bnclf.counts`, :mod:`bnclf.learn` and :mod:`bnclf.inference`) release the GIL, so a loop whose work
splits into independent parts (rows of a table, test rows) runs its parts in as many
threads at once. Each part writes its own slice of one output array, and every cell is
computed by the same steps in the same order as in one thread, so the results are the
same, bit for bit, whatever the number of threads.

How many threads is the ``n_threads`` setting (:func:`bnclf.set_config`): ``None`` (the
default) reads ``$BNCLF_NUM_THREADS``, else ``$OMP_NUM_THREADS`` (set by joblib's process
workers, its default loky backend, so that workers do not oversubscribe the cores, and by
cluster schedulers), else the CPUs this process may run on, within a container's CPU quota.
A loop is cut into at most that many parts, and into fewer when a part would hold fewer
than :data:`MIN_PART_STEPS` steps of its inner loop (a gather, an addition, a bitset word):
a thread takes some tens of microseconds to wake, which small loops would not win back. The
rule counts steps, not time: no figure measured on one machine decides how work is cut.

The first part runs in the calling thread and the others in a pool of worker threads,
kept for the process (a forked child, which inherits no threads, makes its own, with a lock
of its own in case another thread held the parent's at the fork). The pool
only grows, and parts are submitted under a lock, so callers in many threads at once share
it safely; a part that runs in the pool never cuts its own work again (it could wait for
threads that are all busy with parts like it).
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from bnclf._config import _check_n_threads, _setting

MIN_PART_STEPS = 1 << 17
"""Inner-loop steps below which a loop is not cut further (about 131,000: at a few steps per
nanosecond, a part of some tens of microseconds, the time a pool thread takes to wake)."""

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor, int] | None = None  # (pid, executor, workers)
_in_pool = threading.local()  # .active: this thread runs a part for the pool


def _after_fork_in_child() -> None:
    global _lock, _pool
    _lock, _pool = threading.Lock(), None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def thread_count() -> int:
    """The threads a loop may use: the ``n_threads`` setting, else ``$BNCLF_NUM_THREADS``,
    else ``$OMP_NUM_THREADS``, else the CPUs available to this process (see the module).

    ``$BNCLF_NUM_THREADS`` must be a whole number >= 1 (a ValueError names it otherwise).
    ``$OMP_NUM_THREADS`` belongs to other libraries too and is read leniently: its first
    level (``"4,2"``: 4), and ignored unless that is a whole number >= 1.
    """
    setting = _setting("n_threads")
    if setting is not None:
        return setting
    text = os.environ.get("BNCLF_NUM_THREADS", "").strip()
    if text:
        try:
            return _check_n_threads(int(text), "BNCLF_NUM_THREADS")  # type: ignore[return-value]
        except (TypeError, ValueError):
            raise ValueError(
                f"$BNCLF_NUM_THREADS={text!r} is not a whole number of threads >= 1; unset it or give one, e.g. 1."
            ) from None
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if first.isdigit() and int(first) >= 1:
        return int(first)
    return _cpus()


@functools.lru_cache(maxsize=1)
def _cpus() -> int:
    """The CPUs this process may use, as joblib counts them (:func:`joblib.cpu_count`: the
    affinity mask, within a container's CPU quota rounded up, and ``$LOKY_MAX_CPU_COUNT``);
    read once."""
    import joblib  # loaded with scikit-learn by every estimator that counts threads

    return max(1, int(joblib.cpu_count()))


def even_parts(n_items: int, work: float) -> list[tuple[int, int]]:
    """``[(start, stop), ...]``: ``n_items`` items of equal work (``work`` steps in all) cut into
    as many runs as :func:`part_count` allows, of sizes that differ by at most one."""
    k = part_count(n_items, work)
    cuts = [n_items * i // k for i in range(k + 1)]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def triangle_parts(n_items: int, work: float) -> list[tuple[int, int]]:
    """As :func:`even_parts` for items whose work falls in a straight line from the first to
    nothing (item ``a`` of ``n`` pairs with the ``n - a`` items from it on): the cuts at
    ``n (1 - sqrt(1 - i / k))`` give each run the same share of the triangle."""
    k = part_count(n_items, work)
    cuts = [0] + [round(n_items * (1.0 - math.sqrt(1.0 - i / k))) for i in range(1, k)] + [n_items]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def part_count(n_items: int, work: float) -> int:
    """How many parts: at most :func:`thread_count` and ``n_items``, each with at least
    :data:`MIN_PART_STEPS` of the ``work`` steps; at least one. In a pool thread, one: a part
    never waits for parts of its own (the pool may have no thread free to run them)."""
    threads = thread_count()  # first, so that a bad setting is reported whatever the work
    if n_items <= 1 or too_small_to_cut(work) or getattr(_in_pool, "active", False):
        return 1
    most = int(work // MIN_PART_STEPS) if MIN_PART_STEPS > 0 else n_items
    return max(1, min(threads, n_items, most))


def too_small_to_cut(work: float) -> bool:
    """Whether :func:`part_count` gives one part for this much work whatever the thread count
    (its first test, without reading the setting)."""
    return work < 2.0 * MIN_PART_STEPS


def run_parts(task: Callable[[int, int], object], parts: list[tuple[int, int]]) -> None:
    """``task(start, stop)`` for each part at once: the first in this thread, the others in
    the pool. Every part finishes before this returns; the first error is raised then.
    Called from a pool thread (a part that cuts its own work), every part runs in that
    thread, in turn."""
    if len(parts) <= 1 or getattr(_in_pool, "active", False):
        for start, stop in parts:
            task(start, stop)
        return
    futures = _submit(functools.partial(_pooled, task), parts[1:])
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


def _pooled(task: Callable[[int, int], object], start: int, stop: int) -> object:
    """``task(start, stop)`` in a pool thread, marked as such (see :func:`run_parts`)."""
    _in_pool.active = True
    try:
        return task(start, stop)
    finally:
        _in_pool.active = False


def _submit(task: Callable[[int, int], object], parts: list[tuple[int, int]]) -> list:
    """Submit ``task(start, stop)`` for each part to the process's pool, which holds at least
    one thread per part (a larger pool replaces a smaller one; the smaller is not shut down,
    since another caller may be submitting to it: its threads end when it is collected).
    Under the lock: no two callers make a pool at once."""
    global _pool
    with _lock:
        pool = _pool
        if pool is None or pool[0] != os.getpid() or pool[2] < len(parts):
            workers = len(parts)
            pool = _pool = (os.getpid(), ThreadPoolExecutor(workers, thread_name_prefix="bnclf-loop"), workers)
        return [pool[1].submit(task, start, stop) for start, stop in parts]
