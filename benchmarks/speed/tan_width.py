"""TAN fit time against the number of attributes: this bnclf, an older one and pyAgrum.

Data: synthetic, N = 10,000 rows, n attributes with ``--values`` values (default 4,
strings), 3 classes; every
third attribute copies its predecessor with probability 0.7, so the trees are not
arbitrary. For n in ``--widths`` (default 50, 100, 300):

* bnclf ``TANClassifier().fit`` (best of ``--repeats``) on the table given as text (strings,
  as generated), as a categorical frame and as an integer array;
* the same inputs fitted by the bnclf of commit ``--old`` (default ``2249442~1``, which
  counts and measures the attribute pairs one pair at a time), checked out into a
  temporary git worktree and run in a subprocess on the same data (best of 2);
* pyAgrum ``BNClassifier(learningMethod="TAN")`` with ``setNumberOfThreads(1)``
  (best of ``--repeats``), on the text frame;

plus bnclf's TAN fit on MULAN ``medical`` (978 rows, 1,493 attributes; the last label as
the class) when ``--medical PATH`` is given. Writes ``benchmarks/results/tan_width.json``
and prints a Markdown table.

Run: ``python -m benchmarks.speed tan_width [--widths 50,100,300] [--values 4]``.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchmarks.speed.harness import RESULTS, best_of, checkout, checkout_script, write_json
from benchmarks.speed.synthetic import make_data

TIMER = checkout_script("""
import pickle
from bnclf import TANClassifier
X, y = pickle.load(open(sys.argv[2], "rb"))
print(best_of(lambda: TANClassifier().fit(X, y), int(sys.argv[3]))[0])
""")


def inputs(X):
    """The same table as a text frame (``make_data``'s), a categorical frame and an integer
    array: the three kinds of input a user brings, each fitted by both versions."""
    return {
        "text": X,
        "categorical": X.astype("category"),
        "integer array": X.astype(np.int64).to_numpy(),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", default="50,100,300")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--values", type=int, default=4, help="values per attribute")
    parser.add_argument("--old", default="2249442~1")
    parser.add_argument("--medical", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=RESULTS / "tan_width.json")
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
            agrum, _ = best_of(
                lambda: skbn.BNClassifier(
                    type_processor=DiscreteTypeProcessor(),
                    learningMethod="TAN",
                    prior="Smoothing",
                    priorWeight=1 / args.values,
                ).fit(X, y),
                args.repeats,
            )
            for kind, data in inputs(X).items():
                ours, _ = best_of(lambda: TANClassifier().fit(data, y), args.repeats)
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
            "bnclf_tan_fit_s": best_of(lambda: TANClassifier().fit(X, y), args.repeats)[0],
        }
        print(result["medical"])
    write_json(args.out, result, newline=False)
    print("\n| attributes | input | bnclf | bnclf before | pyAgrum (text) | vs before | vs pyAgrum |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['n_attributes']} | {r['input']} | {r['bnclf_s']:.3f} s | {r['bnclf_before_s']:.2f} s | "
            f"{r['pyagrum_s']:.2f} s | {r['speedup_vs_before']:.1f}x | {r['speedup_vs_pyagrum']:.0f}x |"
        )


if __name__ == "__main__":
    main()
