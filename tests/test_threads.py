"""Compiled kernels shared among threads: the setting, where the work is cut, the pool, and the
results, which must be the same bits however many threads compute them."""

import os
import threading

import numpy as np
import pandas as pd
import pytest

import bnclf
from bnclf import AODEClassifier, TANClassifier, WAODEClassifier, config_context
from bnclf import _threads as threads


# ----------------------------------------------------------------------------- the setting
def test_the_setting_then_the_environment_then_the_cpus(monkeypatch):
    monkeypatch.delenv("BNCLF_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert bnclf.get_config()["n_threads"] is None
    assert threads.thread_count() == threads._cpus() <= len(os.sched_getaffinity(0))
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # what joblib's process workers get
    assert threads.thread_count() == 3
    monkeypatch.setenv("BNCLF_NUM_THREADS", "5")  # ours first
    assert threads.thread_count() == 5
    with config_context(n_threads=2):  # the setting over both
        assert threads.thread_count() == 2
        assert bnclf.get_config()["n_threads"] == 2
    bnclf.set_config(n_threads=np.int64(4))
    try:
        assert threads.thread_count() == 4 and type(bnclf.get_config()["n_threads"]) is int
    finally:
        bnclf.set_config(n_threads=None)
    assert threads.thread_count() == 5


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_a_bad_thread_count_names_the_setting_and_the_fix(bad):
    with pytest.raises((TypeError, ValueError), match=r"n_threads=.*threads >= 1"):
        bnclf.set_config(n_threads=bad)
    with pytest.raises((TypeError, ValueError), match=r"n_threads=.*threads >= 1"):
        with config_context(n_threads=bad):
            pass
    assert bnclf.get_config()["n_threads"] is None


@pytest.mark.parametrize("text", ["0", "two", "-3"])
def test_a_bad_environment_variable_names_it_whatever_the_work(text, monkeypatch):
    monkeypatch.setenv("BNCLF_NUM_THREADS", text)
    with pytest.raises(ValueError, match=r"\$BNCLF_NUM_THREADS=.*unset it"):
        threads.thread_count()
    with pytest.raises(ValueError, match=r"\$BNCLF_NUM_THREADS=.*unset it"):
        threads.even_parts(1, 1.0)  # a loop too small to cut still reports it


@pytest.mark.parametrize(("text", "expected"), [("4,2", 4), ("3", 3), ("0", None), ("many", None), (" ", None)])
def test_omp_num_threads_is_read_leniently(text, expected, monkeypatch):
    """Other libraries own ``$OMP_NUM_THREADS``: its first level counts (OpenMP's nested
    ``"4,2"``), anything else is ignored rather than an error."""
    monkeypatch.delenv("BNCLF_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", text)
    assert threads.thread_count() == (threads._cpus() if expected is None else expected)


def test_the_default_is_joblibs_count_of_the_cpus(monkeypatch):
    """The CPUs are counted as joblib counts them (affinity, container quota), including its
    own cap, ``$LOKY_MAX_CPU_COUNT``."""
    import joblib

    monkeypatch.delenv("BNCLF_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    threads._cpus.cache_clear()
    try:
        assert threads.thread_count() == joblib.cpu_count() <= len(os.sched_getaffinity(0))
        monkeypatch.setenv("LOKY_MAX_CPU_COUNT", "1")
        threads._cpus.cache_clear()
        assert joblib.cpu_count() == 1
        assert threads.thread_count() == 1
    finally:
        monkeypatch.undo()
        threads._cpus.cache_clear()


# ----------------------------------------------------------------------------- the parts
def test_parts_cover_the_items_once_and_small_work_stays_whole():
    with config_context(n_threads=4):
        assert threads.even_parts(10, 1.0) == [(0, 10)]  # too little work to share
        assert threads.even_parts(10, 1e9) == [(0, 2), (2, 5), (5, 7), (7, 10)]
        assert threads.even_parts(3, 1e9) == [(0, 1), (1, 2), (2, 3)]  # no more parts than items
        assert threads.part_count(100, 2.5 * threads.MIN_PART_STEPS) == 2  # each part its minimum of work
        assert threads.even_parts(0, 1e9) == []
    with config_context(n_threads=1):
        assert threads.even_parts(10, 1e9) == [(0, 10)]


@pytest.mark.parametrize("k", [2, 3, 7])
def test_triangle_parts_share_the_triangle_evenly(k):
    n = 1000
    with config_context(n_threads=k):
        parts = threads.triangle_parts(n, 1e12)
    assert parts[0][0] == 0 and parts[-1][1] == n and all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    work = [sum(n - a for a in range(lo, hi)) for lo, hi in parts]  # item a pairs with the n - a from it on
    assert len(parts) == k
    assert max(work) / min(work) < 1.02
    assert parts[0][1] - parts[0][0] < parts[-1][1] - parts[-1][0]  # the heavy first items: a short run


def test_run_parts_runs_every_part_the_first_here_and_the_others_elsewhere():
    seen = []
    lock = threading.Lock()

    def task(a, b):
        with lock:
            seen.append((a, b, threading.get_ident()))

    threads.run_parts(task, [(0, 2), (2, 5), (5, 9)])
    assert sorted(p[:2] for p in seen) == [(0, 2), (2, 5), (5, 9)]
    here = threading.get_ident()
    assert [t == here for a, b, t in sorted(seen)] == [True, False, False]


def test_run_parts_waits_for_every_part_before_raising():
    done = []

    def task(a, b):
        if a == 0:
            raise RuntimeError("part 0 failed")
        threading.Event().wait(0.05)
        done.append(a)

    with pytest.raises(RuntimeError, match="part 0 failed"):
        threads.run_parts(task, [(0, 1), (1, 2), (2, 3)])
    assert sorted(done) == [1, 2]  # the others finished first: nothing writes after the caller returns
    with pytest.raises(ValueError, match="part 2"):
        threads.run_parts(lambda a, b: (_ for _ in ()).throw(ValueError(f"part {a}")) if a == 2 else None,
                          [(0, 1), (2, 3)])  # fmt: skip


def test_callers_in_many_threads_share_a_growing_pool(monkeypatch):
    """Threads that start at once, each cutting its work into another number of parts, make
    and grow the pool together: every part runs, and no caller finds its pool shut down."""
    monkeypatch.setattr(threads, "_pool", None)
    errors, done = [], []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def caller(k):
        barrier.wait()
        for trial in range(30):
            ran = []
            try:
                threads.run_parts(lambda a, b: ran.append(a), [(i, i + 1) for i in range(2 + (k + trial) % 7)])
            except Exception as exc:  # noqa: BLE001 - any error is the finding
                with lock:
                    errors.append(exc)
            with lock:
                done.append(sorted(ran) == list(range(2 + (k + trial) % 7)))

    workers = [threading.Thread(target=caller, args=(k,)) for k in range(8)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=60)
    assert not errors and len(done) == 240 and all(done)


def test_a_part_that_cuts_its_own_work_runs_it_in_turn():
    """A part running in the pool that calls run_parts again runs those parts itself, in
    its own thread: it never waits for pool threads that may all be busy with parts like it.
    In a child process with a time limit, so that a deadlock fails the test instead of
    hanging the run."""
    import subprocess
    import sys

    code = """
import threading
from bnclf import _threads as threads
inner = []
def outer(a, b):
    threads.run_parts(lambda c, d: inner.append((a, c, threading.get_ident())), [(0, 1), (1, 2), (2, 3)])
threads.run_parts(outer, [(0, 1), (1, 2)])
assert sorted((a, c) for a, c, _ in inner) == [(a, c) for a in (0, 1) for c in (0, 1, 2)], inner
assert len({t for a, c, t in inner if a == 1}) == 1  # the pool's part ran its own parts in its thread
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_child_forked_while_the_lock_is_held_still_runs_parts():
    """A fork while another thread holds the pool's lock: the child gets a lock and a pool of
    its own, and its parts run (in a child process with a time limit)."""
    import subprocess
    import sys

    code = """
import os, threading
from bnclf import _threads as threads
threads.run_parts(lambda a, b: None, [(0, 1), (1, 2)])
with threads._lock:  # as if another thread were submitting at the fork
    pid = os.fork()
    if pid == 0:
        ran = []
        threads.run_parts(lambda a, b: ran.append(a), [(0, 1), (1, 2), (2, 3)])
        os._exit(0 if sorted(ran) == [0, 1, 2] else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "0", (result.stdout, result.stderr)


def test_a_forked_child_makes_its_own_pool(monkeypatch):
    threads.run_parts(lambda a, b: None, [(0, 1), (1, 2)])
    parent = threads._pool[1]
    monkeypatch.setattr(threads.os, "getpid", lambda: -1)  # as seen from a child of fork
    ran = []
    threads.run_parts(lambda a, b: ran.append(a), [(0, 1), (1, 2)])
    assert sorted(ran) == [0, 1] and threads._pool[1] is not parent and threads._pool[0] == -1
    monkeypatch.undo()
    threads.run_parts(lambda a, b: None, [(0, 1), (1, 2)])  # and the parent's process again its own
    assert threads._pool[0] == os.getpid()


# ----------------------------------------------------------------------------- the same bits
@pytest.fixture
def every_loop_cut(monkeypatch):
    """Every loop cut into as many parts as threads, however little work it holds; the parts
    that run recorded per loop."""
    monkeypatch.setattr(threads, "MIN_PART_STEPS", 0.0)
    cuts = []
    real = threads.run_parts

    def recording(task, parts):
        cuts.append(len(parts))
        return real(task, parts)

    for module in ("bnclf.counts._bitsets", "bnclf.learn._parameters", "bnclf.inference._super_parent"):
        monkeypatch.setattr(f"{module}.run_parts", recording)
    return cuts


def _data(seed=0, n=900, classes=3):
    """Features of 1 to 12 values, values no row holds, unknown training values (under
    ``missing="ignore"``) in two features, and test rows with missing and unseen values."""
    rng = np.random.default_rng(seed)
    cards = [2, 5, 1, 12, 3, 7, 4, 9, 2, 6]
    X = pd.DataFrame(
        {f"f{j}": pd.Categorical(rng.integers(0, max(1, r - 1), n), categories=range(r)) for j, r in enumerate(cards)}
    )
    for j in (1, 7):
        X.iloc[rng.random(n) < 0.1, j] = np.nan
    y = pd.Series(rng.integers(0, classes, n))
    test = X.iloc[:120].astype(object).copy()
    test.iloc[5, 3] = np.nan
    test.iloc[9, 4] = "never-seen"
    return X, y, test


@pytest.mark.parametrize("n_threads", [2, 3, 5])
@pytest.mark.parametrize(
    "est", [AODEClassifier(missing="ignore"), WAODEClassifier(smoothing="weka")], ids=["aode", "waode"]
)
def test_aode_fit_and_predict_are_the_same_bits_in_any_number_of_threads(est, n_threads, every_loop_cut, monkeypatch):
    """Pair counts (bitsets by feature, pairs by bitset, the lower half by tiles of rows, the
    values without a bitset one by one; chunks of 64 rows too), the log-CPT table by rows,
    and the SPODE kernel by test rows (the members' weighted log-sum, and each member's
    joint): equal to one thread's, bit for bit."""
    import bnclf.counts._bitsets as bitsets

    X, y, test = _data()
    known = test.iloc[10:]  # rows without an unknown value
    results = {}
    for threads_ in (1, n_threads):
        for words in (1, bitsets.CHUNK_WORDS):
            monkeypatch.setattr(bitsets, "CHUNK_WORDS", words)
            with config_context(n_threads=threads_):
                model = est.__class__(**est.get_params()).fit(X, y)
                tables = np.asarray(model._spode_tables["pairs"])  # the whole table, made now
                results[threads_, words] = (
                    tables,
                    model.predict_proba(test),
                    model.predict_log_proba(known),
                    model.member_joint_log_proba(test),
                )
    assert max(every_loop_cut) == n_threads  # the loops were cut
    one = results[1, bitsets.CHUNK_WORDS]
    for key, got in results.items():
        for a, b in zip(one, got):
            np.testing.assert_array_equal(a, b, err_msg=str(key))


def test_a_fitted_kernel_predicts_the_same_bits_in_any_number_of_threads(every_loop_cut):
    """One fitted model: its predictions cut among 2 and 4 threads are one thread's."""
    X, y, test = _data(seed=1, classes=6)
    known = test.iloc[10:]
    model = AODEClassifier().fit(X, y)
    with config_context(n_threads=1):
        one = model.predict_log_proba(known), model.predict_log_proba(test)
    for k in (2, 4):
        with config_context(n_threads=k):
            np.testing.assert_array_equal(model.predict_log_proba(known), one[0])
            np.testing.assert_array_equal(model.predict_log_proba(test), one[1])
    assert max(every_loop_cut) == 4


def test_tan_reads_the_same_pair_counts_in_any_number_of_threads(every_loop_cut):
    X, y, _ = _data(seed=2)
    fits = []
    for k in (1, 3):
        with config_context(n_threads=k):
            model = TANClassifier().fit(X, y)
            fits.append((sorted(model.network_.graph.edges), [c.copy() for c in model.network_.log_cpts]))
    assert 3 in every_loop_cut
    assert fits[0][0] == fits[1][0]
    for a, b in zip(fits[0][1], fits[1][1]):
        np.testing.assert_array_equal(a, b)
