"""Library-wide settings, in the scikit-learn idiom: :func:`get_config`, :func:`set_config`
and the :func:`config_context` context manager.

Two settings:

* ``memory_budget``: the most bytes one count table (or the arrays the all-pairs measures
  hold together, or one table of a multilabel query) may take. Past it, fitting raises
  :class:`bnclf.counts.TableTooLargeError`, naming the columns, the cells and bytes, and the
  fix, before anything is allocated.
* ``n_threads``: how many threads the compiled kernels may share a large loop among
  (:mod:`bnclf._threads`).

Examples
--------
>>> import bnclf
>>> with bnclf.config_context(memory_budget="512M"):
...     bnclf.get_config()["memory_budget"]
536870912
>>> bnclf.get_config()["memory_budget"] is None  # the default: see memory_budget()
True
"""

from __future__ import annotations

import contextlib
import functools
import operator
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

__all__ = ["get_config", "set_config", "config_context", "memory_budget", "parse_size"]


_UNSET = object()


_global_config: dict[str, Any] = {"memory_budget": None, "n_threads": None}  # set_config


_local = threading.local()  # config_context: a per-thread overlay, so threads never mix blocks


def _overlay() -> dict[str, Any] | None:
    return getattr(_local, "config", None)


def parse_size(value: int | float | str, what: str = "memory_budget") -> int:
    """Bytes from an int, a float or a text such as ``"8G"``, ``"500M"``, ``"64K"``, ``"1e9"``."""
    if isinstance(value, bool):
        raise TypeError(f"{what}={value!r} is not a size; give bytes or a text such as '8G' or '500M'.")
    if isinstance(value, (int, float)):
        size = value
    else:
        text = str(value).strip().upper().removesuffix("B").removesuffix("I")
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
        try:
            size = float(text.rstrip("KMGT")) * scale
        except ValueError:
            raise ValueError(f"{what}={value!r} is not a size; give bytes or a text such as '8G' or '500M'.") from None
    if not size == size or size <= 0 or size == float("inf"):  # NaN, negative, zero, infinite
        raise ValueError(f"{what}={value!r} must be a positive, finite number of bytes, e.g. '8G'.")
    return int(size)


def _setting(name: str) -> Any:
    """One setting as :func:`get_config` gives it, without copying the settings."""
    return (_overlay() or _global_config)[name]


def get_config() -> dict[str, Any]:
    """The current settings, as a new dict.

    ``memory_budget`` is ``None`` unless set: then :func:`memory_budget` falls back on the
    environment variable ``BNCLF_MEMORY_BUDGET``, else a quarter of the memory this process
    may use (the physical memory, its cgroup's limit and its ``RLIMIT_AS``, whichever is least).
    """
    return dict(_overlay() or _global_config)


def set_config(
    *,
    memory_budget: int | float | str | None = _UNSET,  # type: ignore[assignment]
    n_threads: int | None = _UNSET,  # type: ignore[assignment]
) -> None:
    """Change settings for the rest of the session (see :func:`config_context` for a block).

    Parameters
    ----------
    memory_budget : int, float, str or None
        Most bytes one count table may take: bytes, or a text such as ``"8G"`` or
        ``"500M"``. ``None`` restores the default (``$BNCLF_MEMORY_BUDGET``, else a
        quarter of the memory this process may use: :func:`usable_memory`).
    n_threads : int or None
        How many threads a compiled loop may be shared among (AODE's and WAODE's pair
        counts, log-CPT table and prediction; every count of values in pairs): ``None``
        (the default) reads ``$BNCLF_NUM_THREADS``, else ``$OMP_NUM_THREADS`` (which
        joblib's process workers and cluster schedulers set; its first level, ignored unless a whole
        number >= 1), else the CPUs this process may run on (within a container's CPU quota);
        ``1`` runs every loop in the calling thread. A loop is shared only when each thread
        gets enough work to gain from it, and the results are the same, bit for bit,
        whatever the number (:mod:`bnclf._threads`).

    Notes
    -----
    The setting is process-wide (inside a :func:`config_context` block it also changes that
    block's setting until the block ends). The evaluation harness's joblib workers and the Dask
    counting tasks of :mod:`bnclf.counts` receive the budget of the process that starts
    them, so a budget set here holds for them too.
    """
    if memory_budget is not _UNSET:
        value = None if memory_budget is None else parse_size(memory_budget)
        _global_config["memory_budget"] = value
        if _overlay() is not None:
            _overlay()["memory_budget"] = value
    if n_threads is not _UNSET:
        value = _check_n_threads(n_threads)
        _global_config["n_threads"] = value
        if _overlay() is not None:
            _overlay()["n_threads"] = value


def _check_n_threads(value: Any, what: str = "n_threads") -> int | None:
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise TypeError
        value = operator.index(value)  # int and numpy integers; not floats
    except TypeError:
        raise TypeError(f"{what}={value!r}: give a whole number of threads >= 1, or None (every CPU).") from None
    if value < 1:
        raise ValueError(f"{what}={value!r}: give a whole number of threads >= 1 (1: no threads), or None (every CPU).")
    return int(value)


@contextlib.contextmanager
def config_context(
    *,
    memory_budget: int | float | str | None = _UNSET,  # type: ignore[assignment]
    n_threads: int | None = _UNSET,  # type: ignore[assignment]
) -> Iterator[None]:
    """Settings for a ``with`` block in this thread; the earlier ones come back on leaving it.

    Parameters
    ----------
    memory_budget : int, float, str or None
        As in :func:`set_config`.
    n_threads : int or None
        As in :func:`set_config`.

    Notes
    -----
    The block's settings hold in the thread that enters it (as scikit-learn's
    ``config_context``); other threads, such as those of a Dask threaded scheduler, keep
    theirs. Tasks that bnclf sends to other threads or processes carry the caller's settings.
    """
    before = _overlay()
    config = get_config()
    if memory_budget is not _UNSET:
        config["memory_budget"] = None if memory_budget is None else parse_size(memory_budget)
    if n_threads is not _UNSET:
        config["n_threads"] = _check_n_threads(n_threads)
    _local.config = config
    try:
        yield
    finally:
        _local.config = before


def memory_budget() -> int:
    """Bytes one array may take: the ``memory_budget`` setting (:func:`set_config`), else
    ``$BNCLF_MEMORY_BUDGET`` (bytes; ``K``, ``M``, ``G`` suffixes allowed), else a quarter of
    the memory this process may use (:func:`usable_memory`)."""
    setting = _setting("memory_budget")
    if setting is not None:
        return int(setting)
    text = os.environ.get("BNCLF_MEMORY_BUDGET", "").strip()
    if text:
        return parse_size(text, "BNCLF_MEMORY_BUDGET")
    return _quarter_of_memory()


def _quarter_of_memory() -> int:
    """A quarter of :func:`usable_memory`."""
    return usable_memory() // 4


def usable_memory() -> int:
    """The memory this process may use, in bytes: the least of the physical memory, the
    memory limit of its cgroup (v2 ``memory.max``, v1 ``memory.limit_in_bytes``) and its
    address-space and data-segment limits (``RLIMIT_AS``, ``RLIMIT_DATA``, soft); 16 GiB when
    none of them can be read.

    The machine's memory and the cgroup's limit are read once; the process limits (which
    ``resource.setrlimit`` may lower) at each call.
    """
    sizes = [size for size in (_machine_memory(), _process_limit()) if size is not None]
    return min(sizes) if sizes else 16 << 30


@functools.lru_cache(maxsize=1)
def _machine_memory() -> int | None:
    """The physical memory, or the cgroup's memory limit when it is lower (read once), or None."""
    sizes = []
    try:
        sizes.append(int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")))
    except (AttributeError, ValueError, OSError):
        pass
    limit = _cgroup_memory_limit()
    if limit is not None:
        sizes.append(limit)
    return min(sizes) if sizes else None


_CGROUP_MEMORY_FILES = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
"""The memory limit of the process's cgroup: v2, then v1 (as :mod:`bnclf._threads` reads the CPU quota)."""


def _cgroup_memory_limit() -> int | None:
    """The memory limit of the process's cgroup in bytes, or None (no limit, or not Linux).
    v2 writes ``max`` for no limit, v1 a number near 2**63."""
    for path in _CGROUP_MEMORY_FILES:
        try:
            with open(path) as file:
                text = file.read().strip()
        except OSError:
            continue
        if text == "max":
            return None
        try:
            limit = int(text)
        except ValueError:
            continue
        return limit if 0 < limit < 1 << 60 else None
    return None


def _process_limit() -> int | None:
    """The lower of the soft ``RLIMIT_AS`` and ``RLIMIT_DATA`` limits, or None (unlimited, or
    not POSIX)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    limits = []
    for name in ("RLIMIT_AS", "RLIMIT_DATA"):
        try:
            soft = resource.getrlimit(getattr(resource, name))[0]
        except (AttributeError, ValueError, OSError):
            continue
        if soft != resource.RLIM_INFINITY and soft > 0:
            limits.append(int(soft))
    return min(limits) if limits else None


class ConfiguredCall:
    """``func`` run under the settings of the process that made this object: what a joblib or
    Dask task needs to see the caller's :func:`set_config` in another process."""

    def __init__(self, func: Callable, config: dict[str, Any] | None = None) -> None:
        self.func = func
        self.config = get_config() if config is None else dict(config)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with config_context(**self.config):
            return self.func(*args, **kwargs)


class TableTooLargeError(MemoryError):
    """A count table (or the arrays of the all-pairs measures together) would exceed the memory
    budget (:func:`bnclf._config.memory_budget`); the message names the columns and the fix."""


def readable_size(n_bytes: float) -> str:
    """``n_bytes`` for a message: in TiB, GiB or MiB with one decimal, else in bytes."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{int(n_bytes)} bytes"


_BLAS = None


def single_threaded_blas() -> AbstractContextManager[Any]:
    """A context in which BLAS uses one thread.

    The products here are small and run inside loops; on a busy two-core
    machine a multi-threaded BLAS that spins waiting for a second core is ten
    times slower than one thread.
    """
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


CHUNK_CELLS = 1 << 22
"""Cells of the largest temporary array one chunk of rows may make (32 MiB of float64)."""


def row_chunks(n_rows: int, cells_per_row: int, limit: int | None = None) -> Iterator[slice]:
    """Slices of at most ``limit // cells_per_row`` rows (at least one) covering ``n_rows``:
    the one way every kernel and learner walks rows in bounded memory (``limit``
    defaults to :data:`CHUNK_CELLS`, read at each call)."""
    step = max(1, int(CHUNK_CELLS if limit is None else limit) // max(1, int(cells_per_row)))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))
