"""Network files: ``write_network`` of an AODE and a TAN on soybean, in BIF, XMLBIF and UAI, now and before.

``write_network`` writes each file and reads it back before it returns (see its Notes):
an AODE on soybean (35 features, 19 classes) is 36 member files and a manifest, a TAN
one file. For each model and format a fresh subprocess of this checkout and of the
commit ``--old`` (checked out into a temporary git worktree) fits the model (not timed;
an AODE's member networks are built before the clock starts too) and times two calls:

* **first call**: what ``bnclf export`` costs: it includes importing pgmpy and, for BIF,
  building pgmpy's BIF grammars (once per process);
* **second call**: the same write again in the same process.

Both checkouts must write the same bytes (the SHA-256 of every file written, manifest and
name maps included, is compared): only the reading back differs. The floor beside them is
timed in a fresh process of this checkout that has imported what the timed calls find
imported (bnclf, its estimators and ``bnclf.io``): importing pgmpy as ``read_network``
does, then building the two BIF grammars. The runs of the two checkouts alternate, ``--repeats``
times, and the median is kept. Writes ``benchmarks/results/export.json`` and prints a
Markdown table.

Run: ``python -m benchmarks.speed export`` (the older commit's AODE BIF takes minutes).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.speed.harness import (
    REPO,
    RESULTS,
    checkout,
    checkout_env,
    checkout_script,
    fresh_process,
    git_commit,
    platform_name,
    today,
    write_json,
)

MODELS = ("AODE", "TAN")
FORMATS = ("bif", "xmlbif", "uai")

WORK = checkout_script(r"""
import hashlib, json, warnings
from pathlib import Path
from bnclf import AODEClassifier, TANClassifier
from bnclf.datasets import load_dataset
from bnclf.io import write_network
warnings.simplefilter("ignore")
model, fmt, folder = sys.argv[2], sys.argv[3], Path(sys.argv[4])
X, y = load_dataset("soybean")
est = {"AODE": AODEClassifier, "TAN": TANClassifier}[model]().fit(X, y)
members = len(est.network_members())  # built here, not in the timed calls
times = []
for run in ("first", "second"):
    out = folder / run
    out.mkdir(parents=True)
    times.append(best_of(lambda: write_network(est, out / f"{model.lower()}.{fmt}"), 1)[0])
files = sorted((folder / "first").iterdir())
digest = hashlib.sha256()
for path in files:
    digest.update(path.name.encode() + b"\0" + path.read_bytes())
print(json.dumps({"first_s": times[0], "second_s": times[1], "networks": members, "files": len(files),
                  "sha256": digest.hexdigest()}))
""")

# no harness imported: the floor is what the timed calls find imported, nothing more
FLOOR = checkout_script(
    r"""
import time, warnings
warnings.simplefilter("ignore")
from bnclf import AODEClassifier, TANClassifier  # what a timed call finds imported already
from bnclf.datasets import load_dataset
from bnclf.io import write_network
start = time.perf_counter()
from bnclf.io._pgmpy import _pgmpy
_pgmpy()
import pgmpy.readwrite
imported = time.perf_counter()
from bnclf.io._networks import _bif_reader
reader = _bif_reader()
blank = reader.__new__(reader)
blank.get_variable_grammar(); blank.get_probability_grammar()
print(imported - start, time.perf_counter() - imported)
""",
    harness=False,
)


def _run(source: Path, model: str, fmt: str, folder: Path) -> dict:
    argv = [sys.executable, "-c", WORK, str(source), model, fmt, str(folder)]
    try:
        _, out = fresh_process(argv, cwd=folder.parent, env=checkout_env(source, home=True, mpl=True))
    except RuntimeError as error:
        raise RuntimeError(f"{model} {fmt} at {source}: {error}") from None
    return json.loads(out.strip().splitlines()[-1])


def _floor(source: Path, folder: Path) -> tuple[float, float]:
    argv = [sys.executable, "-c", FLOOR, str(source)]
    _, out = fresh_process(argv, cwd=folder, env=checkout_env(source, home=True, mpl=True))
    imported, grammars = map(float, out.split())
    return imported, grammars


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="a5b7c06", help="the commit to compare with (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=1, help="subprocesses per cell (default: %(default)s)")
    parser.add_argument("--out", default=str(RESULTS / "export.json"))
    args = parser.parse_args(argv)
    import pandas as pd

    runs: dict[str, dict[str, list[dict]]] = {"now": {}, "before": {}}
    floors: list[tuple[float, float]] = []
    with checkout(args.old) as (old, scratch), tempfile.TemporaryDirectory() as tmp:
        sources = {"now": REPO, "before": old}
        for repeat in range(args.repeats):
            floors.append(_floor(REPO, scratch))
            for model in MODELS:
                for fmt in FORMATS:
                    for key in ("now", "before") if repeat % 2 == 0 else ("before", "now"):
                        folder = Path(tmp) / f"{key}-{model}-{fmt}-{repeat}"
                        result = _run(sources[key], model, fmt, folder)
                        runs[key].setdefault(f"{model} {fmt}", []).append(result)
                        print(f"{key} {model} {fmt}: {json.dumps(result)}", file=sys.stderr)
    medians = {
        key: {
            cell: {t: statistics.median(r[t] for r in results) for t in ("first_s", "second_s")}
            for cell, results in cells.items()
        }
        for key, cells in runs.items()
    }
    same = {cell: {r["sha256"] for r in runs["now"][cell] + runs["before"][cell]} for cell in runs["now"]}
    report = {
        "machine": platform_name(),
        "python": platform.python_version(),
        "date": today(),
        "pandas": pd.__version__,
        "commit": git_commit(),
        "old_commit": args.old,
        "repeats": args.repeats,
        "floor_s": {
            "import pgmpy": statistics.median(f[0] for f in floors),
            "BIF grammars": statistics.median(f[1] for f in floors),
        },
        "same_files": {cell: len(digests) == 1 for cell, digests in same.items()},
        "median_s": medians,
        "runs": runs,
    }
    write_json(args.out, report)
    print(f"| model | format | files | first call now | before ({args.old}) | second call now | before | same files |")
    print("|---|---|---|---|---|---|---|---|")
    for cell, results in runs["now"].items():
        model, fmt = cell.split()
        now, before = medians["now"][cell], medians["before"][cell]
        same = "yes" if report["same_files"][cell] else "NO"
        print(
            f"| {model} | {fmt.upper()} | {results[0]['files']} | {now['first_s']:.2f} s | {before['first_s']:.2f} s "
            f"| {now['second_s']:.2f} s | {before['second_s']:.2f} s | {same} |"
        )
    floor = report["floor_s"]
    print(f"\nfloor: import pgmpy {floor['import pgmpy']:.2f} s, BIF grammars {floor['BIF grammars']:.2f} s")


if __name__ == "__main__":
    main()
