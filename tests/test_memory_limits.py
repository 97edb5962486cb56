"""The default memory budget follows the process's own limits: its cgroup's memory limit and
its address-space limit, not only the machine's memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bnclf
import bnclf._config as config

resource = pytest.importorskip("resource")


@pytest.fixture
def default_budget(monkeypatch):
    """The default budget, read afresh: no setting, no environment variable, nothing cached."""
    monkeypatch.delenv("BNCLF_MEMORY_BUDGET", raising=False)
    config.set_config(memory_budget=None)
    config._machine_memory.cache_clear()
    yield
    config._machine_memory.cache_clear()


def _limits(monkeypatch, address_space, data=None):
    unlimited = resource.RLIM_INFINITY

    def getrlimit(which):
        if which == resource.RLIMIT_AS:
            soft = unlimited if address_space is None else address_space
        elif which == resource.RLIMIT_DATA:
            soft = unlimited if data is None else data
        else:
            return (unlimited, unlimited)
        return (soft, unlimited)

    monkeypatch.setattr(resource, "getrlimit", getrlimit)


def _files(monkeypatch, tmp_path, v2=None, v1=None):
    paths = []
    for version, text in (("v2", v2), ("v1", v1)):
        path = tmp_path / version
        path.unlink(missing_ok=True)
        if text is not None:
            path.write_text(text)
        paths.append(str(path))
    monkeypatch.setattr(config, "_CGROUP_MEMORY_FILES", tuple(paths))
    config._machine_memory.cache_clear()


def test_the_default_budget_is_a_quarter_of_the_least_limit(monkeypatch, tmp_path, default_budget):
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    _limits(monkeypatch, None)
    _files(monkeypatch, tmp_path)  # no cgroup files: the machine's memory
    assert config.memory_budget() == physical // 4
    _limits(monkeypatch, 3 << 30)  # ulimit -v: a quarter of the address space
    assert config.memory_budget() == (3 << 30) // 4
    _limits(monkeypatch, None, data=2 << 30)
    assert config.memory_budget() == (2 << 30) // 4
    _limits(monkeypatch, None)
    _files(monkeypatch, tmp_path, v2=f"{1 << 30}\n")  # cgroup v2
    assert config.memory_budget() == (1 << 30) // 4
    _files(monkeypatch, tmp_path, v2="max\n", v1=f"{1 << 30}\n")  # v2 without a limit: not v1's
    assert config.memory_budget() == physical // 4
    _files(monkeypatch, tmp_path, v1=f"{512 << 20}\n")  # cgroup v1
    assert config.memory_budget() == (512 << 20) // 4
    _files(monkeypatch, tmp_path, v1="9223372036854771712\n")  # v1's "no limit"
    assert config.memory_budget() == physical // 4
    _files(monkeypatch, tmp_path, v2="garbage\n")
    assert config.memory_budget() == physical // 4
    _files(monkeypatch, tmp_path, v2=f"{1 << 40}\n")  # a limit above the machine's memory
    assert config.memory_budget() == physical // 4
    # the lowest of all; a setting or the environment still wins
    _files(monkeypatch, tmp_path, v2=f"{2 << 30}\n")
    _limits(monkeypatch, 1 << 30)
    assert config.memory_budget() == (1 << 30) // 4
    monkeypatch.setenv("BNCLF_MEMORY_BUDGET", "8G")
    assert config.memory_budget() == 8 << 30
    with config.config_context(memory_budget="1G"):
        assert config.memory_budget() == 1 << 30


def test_no_limit_can_be_read(monkeypatch, default_budget):
    def unreadable(name):
        raise ValueError(name)

    monkeypatch.setattr(os, "sysconf", unreadable)
    monkeypatch.setattr(config, "_CGROUP_MEMORY_FILES", ())
    _limits(monkeypatch, None)
    assert config.memory_budget() == (16 << 30) // 4


def _address_space(limit):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return set_limit


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_a_fit_too_large_for_the_address_space_is_refused_by_name(tmp_path):
    """AODE on 150 columns of 100 values (3 classes) needs 11,175 tables of 240 kB, 2.5 GiB
    together: under a 3 GiB address-space limit the command line refuses it before counting,
    naming the columns and the fix (exit 2), instead of running out of memory."""
    rng = np.random.default_rng(0)
    n, d = 300, 150
    frame = pd.DataFrame({f"f{j}": np.char.add("v", (np.arange(n) % 100).astype(str)) for j in range(d)})
    frame = frame.apply(lambda column: column.sample(frac=1.0, random_state=rng.integers(1 << 31)).to_numpy())
    frame["label"] = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
    data = tmp_path / "wide.csv"
    frame.to_csv(data, index=False)
    env = {key: value for key, value in os.environ.items() if key != "BNCLF_MEMORY_BUDGET"}
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"  # thread stacks take address space too
    env["PYTHONPATH"] = str(Path(bnclf.__file__).parents[1])  # the installed bnclf, with its compiled kernels
    done = subprocess.run(
        [sys.executable, "-m", "bnclf", "fit", str(data), "--model", "aode", "-o", str(tmp_path / "m.bnclf")],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # outside the checkout, whose bnclf has no kernels unless built in place
        env=env,
        preexec_fn=_address_space(3 << 30),
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert "memory budget of 768.0 MiB" in done.stderr, done.stderr
    assert "'f" in done.stderr and "Lower k or max_parents" in done.stderr
    assert "Traceback" not in done.stderr and "Unable to allocate" not in done.stderr
    assert not (tmp_path / "m.bnclf").exists()
