"""TAN fit time against the number of attributes: bnclf now, bnclf before the all-pairs
counting change, and pyAgrum, in one run.

Data: synthetic, N = 10,000 rows, n attributes with ``--values`` values (default 4,
strings), 3 classes; every
third attribute copies its predecessor with probability 0.7, so the trees are not
arbitrary. For n in ``--widths`` (default 50, 100, 300):

* bnclf ``TANClassifier().fit`` (best of ``--repeats``) on the table given as text (strings,
  as generated), as a categorical frame and as an integer array;
* the same inputs fitted by the bnclf of commit ``--old`` (default ``2249442~1``, the last before
  all-pairs counting, which counted and measured pair by pair), checked out into a
  temporary git worktree and run in a subprocess on the same data (best of 2);
* pyAgrum ``BNClassifier(learningMethod="TAN")`` with ``setNumberOfThreads(1)``
  (best of ``--repeats``), on the text frame;

plus bnclf's TAN fit on MULAN ``medical`` (978 rows, 1,493 attributes; the last label as
the class) when ``--medical PATH`` is given. Writes ``benchmarks/results/tan_width.json``
and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from old_commit import checkout  # benchmarks/ is on sys.path when run as a script

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results" / "tan_width.json"

TIMER = """
import sys, time, pickle
sys.path.insert(0, sys.argv[1])
from bnclf import TANClassifier
import bnclf
assert bnclf.__file__.startswith(sys.argv[1]), bnclf.__file__  # the checkout's code
X, y = pickle.load(open(sys.argv[2], "rb"))
best = float("inf")
for _ in range(int(sys.argv[3])):
    t = time.perf_counter(); TANClassifier().fit(X, y); best = min(best, time.perf_counter() - t)
print(best)
"""


def make_data(n, rows=10_000, values=4, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, values, size=(rows, n))
    for j in range(2, n, 3):
        copy = rng.random(rows) < 0.7
        codes[copy, j] = codes[copy, j - 1]
    X = pd.DataFrame(codes.astype(str), columns=[f"f{i}" for i in range(n)])
    y = pd.Series(rng.integers(0, 3, rows).astype(str), name="class")
    return X, y


def inputs(X):
    """The same table as a text frame (``make_data``'s), a categorical frame and an integer
    array: the three kinds of input a user brings, each fitted by both versions."""
    return {
        "text": X,
        "categorical": X.astype("category"),
        "integer array": X.astype(np.int64).to_numpy(),
    }


def best_of(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", default="50,100,300")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--values", type=int, default=4, help="values per attribute")
    parser.add_argument("--old", default="2249442~1")
    parser.add_argument("--medical", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    import pickle

    import pyagrum
    import pyagrum.skbn as skbn
    from pyagrum.lib.discreteTypeProcessor import DiscreteTypeProcessor

    from bnclf import TANClassifier

    pyagrum.setNumberOfThreads(1)
    rows = []
    with checkout(args.old) as (old, scratch):
        for n in map(int, args.widths.split(",")):
            X, y = make_data(n, values=args.values)
            agrum = best_of(
                lambda: skbn.BNClassifier(
                    type_processor=DiscreteTypeProcessor(),
                    learningMethod="TAN",
                    prior="Smoothing",
                    priorWeight=1 / args.values,
                ).fit(X, y),
                args.repeats,
            )
            for kind, data in inputs(X).items():
                ours = best_of(lambda: TANClassifier().fit(data, y), args.repeats)
                pickled = scratch / "data.pkl"
                pickled.write_bytes(pickle.dumps((data, y)))
                out = subprocess.run(
                    [sys.executable, "-c", TIMER, str(old), str(pickled), "2"],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                before = float(out.stdout.split()[-1])
                rows.append(
                    dict(
                        n_attributes=n,
                        n_rows=len(y),
                        input=kind,
                        bnclf_s=ours,
                        bnclf_before_s=before,
                        pyagrum_s=agrum,
                        speedup_vs_before=before / ours,
                        speedup_vs_pyagrum=agrum / ours,
                    )
                )
                print(rows[-1], flush=True)
    result = {
        "machine": platform.platform(),
        "python": sys.version.split()[0],
        "pyagrum": pyagrum.__version__,
        "old_commit": args.old,
        "values_per_attribute": args.values,
        "widths": rows,
    }
    if args.medical:
        from bnclf.io._arff import load_arff_xy

        X, y = load_arff_xy(args.medical)
        result["medical"] = {
            "n_rows": len(y),
            "n_attributes": X.shape[1],
            "bnclf_tan_fit_s": best_of(lambda: TANClassifier().fit(X, y), args.repeats),
        }
        print(result["medical"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print("\n| attributes | input | bnclf | bnclf before | pyAgrum (text) | vs before | vs pyAgrum |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['n_attributes']} | {r['input']} | {r['bnclf_s']:.3f} s | {r['bnclf_before_s']:.2f} s | "
            f"{r['pyagrum_s']:.2f} s | {r['speedup_vs_before']:.1f}x | {r['speedup_vs_pyagrum']:.0f}x |"
        )


if __name__ == "__main__":
    main()
