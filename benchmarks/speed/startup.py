"""Start-up of the ``bnclf`` command (``--version``, ``--help``, a 10-row ``predict``): this checkout and an older one.

Each command runs as a fresh ``python -m bnclf ...`` subprocess (the wall-clock time a
user waits, interpreter start included), ``--repeats`` times, and the median is kept. The
runs of this checkout and of the commit ``--old`` (checked out into a temporary git
worktree) alternate, so that both see the same load of the machine. The ``predict`` is 10
rows of heart-c with a TAN model (``bnclf fit data.csv``: MDL discretization and TAN, the
default), fitted by each checkout itself. Python's bytecode is cached, as in an installed
package: a first, untimed run of every command writes it (``__pycache__``, ignored by git).
Two floors are timed beside them: ``python -c pass`` (the interpreter alone) and ``python
-c "import pandas, sklearn.pipeline"`` (what a prediction cannot avoid: the rows are read
by pandas and the model is a scikit-learn pipeline). Writes
``benchmarks/results/startup.json`` and prints a Markdown table.

Run: ``python -m benchmarks.speed startup`` (``--repeats 15`` on a busy machine).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.speed.harness import REPO, RESULTS, checkout, fresh_process, git_commit, today, write_json

COMMANDS = {
    "--version": ["-m", "bnclf", "--version"],
    "--help": ["-m", "bnclf", "--help"],
    "predict 10 rows (TAN)": ["-m", "bnclf", "predict", "{model}", "{rows}"],
}
FLOORS = {
    "python -c pass": ["-c", "pass"],
    "import pandas, sklearn.pipeline": ["-c", "import pandas, sklearn.pipeline"],
}


def _env(source: Path | None) -> dict:
    env = {"PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"}  # bytecode cached, as installed
    if source is not None:
        env["PYTHONPATH"] = str(source)
    return env


def _run(argv: list[str], source: Path | None, cwd: Path) -> float:
    return fresh_process([sys.executable, *argv], cwd=cwd, env=_env(source))[0]


def _prepare(source: Path, folder: Path) -> dict[str, str]:
    """Data and a TAN model fitted by the checkout at ``source``; the paths by placeholder."""
    folder.mkdir(parents=True, exist_ok=True)
    code = (
        "import sys\n"
        "from bnclf.datasets import load_dataset\n"
        "X, y = load_dataset('heart-c')\n"
        "X.assign(target=y).to_csv(sys.argv[1] + '/data.csv', index=False)\n"
        "X.iloc[:10].to_csv(sys.argv[1] + '/rows.csv', index=False)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(folder)], cwd=folder, env=_env(source), check=True)
    _run(["-m", "bnclf", "fit", "data.csv", "-o", "tan.bnclf"], source, folder)
    return {"{model}": str(folder / "tan.bnclf"), "{rows}": str(folder / "rows.csv")}


def _argv(argv: list[str], paths: dict[str, str]) -> list[str]:
    return [paths.get(a, a) for a in argv]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="11b49fe", help="the commit to compare with (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=9, help="runs of each command (default: %(default)s)")
    parser.add_argument("--out", default=str(RESULTS / "startup.json"))
    args = parser.parse_args(argv)
    import pandas as pd

    times: dict[str, dict[str, list[float]]] = {"now": {}, "before": {}, "floor": {}}
    with checkout(args.old) as (old, scratch), tempfile.TemporaryDirectory() as tmp:
        sources = {"now": REPO, "before": old}
        paths = {key: _prepare(source, Path(tmp) / key) for key, source in sources.items()}
        for key, source in sources.items():  # untimed: writes the bytecode of what each command imports
            for command in COMMANDS.values():
                _run(_argv(command, paths[key]), source, Path(tmp) / key)
        for repeat in range(args.repeats):
            for name, command in FLOORS.items():
                times["floor"].setdefault(name, []).append(_run(command, None, scratch))
            for key in ("now", "before") if repeat % 2 == 0 else ("before", "now"):
                for name, command in COMMANDS.items():
                    seconds = _run(_argv(command, paths[key]), sources[key], Path(tmp) / key)
                    times[key].setdefault(name, []).append(seconds)
            print(f"run {repeat + 1}/{args.repeats}", file=sys.stderr)
    medians = {key: {name: statistics.median(ts) for name, ts in runs.items()} for key, runs in times.items()}
    report = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "date": today(),
        "pandas": pd.__version__,
        "commit": git_commit(),
        "old_commit": args.old,
        "repeats": args.repeats,
        "median_s": medians,
        "runs_s": times,
    }
    write_json(args.out, report)
    print(f"| command | now | before ({args.old}) |")
    print("|---|---|---|")
    for name in COMMANDS:
        print(f"| `bnclf {name}` | {medians['now'][name]:.2f} s | {medians['before'][name]:.2f} s |")
    for name in FLOORS:
        print(f"| floor: `{name}` | {medians['floor'][name]:.2f} s | |")


if __name__ == "__main__":
    main()
