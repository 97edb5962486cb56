"""Model files: size against the number of training rows, save and load time, this bnclf and an older one.

For naive Bayes, TAN, KDB(k=2), AODE and RMCV (single-label) and mNB (multilabel), each
fitted on the same data at two sizes, a subprocess records for this checkout and for the
commit ``--old`` (checked out into a temporary git worktree):

* the size of the safe model file (``save_model``) and of a pickle of the fitted model;
* the time to save, and the median time to load the file (``load_model``), next to the
  time to read the file's arrays alone (the floor of a load without refitting) and to fit;
* whether the loaded model predicts bit for bit what the saved one predicts.

Data: kr-vs-kp (3,196 rows x 36 attributes) repeated 5 and 50 times (15,980 and 159,800
rows), and 15,980 / 159,800 random rows of 36 three-valued attributes with a binary class
(``--rmcv-rows`` caps RMCV's rows: its cross-validated search is the slow part); MULAN
emotions repeated 1 and 10 times for mNB. Writes ``benchmarks/results/model_file.json`` and
prints a Markdown table.

Run: ``python -m benchmarks.speed model_file``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.speed.harness import (
    REPO,
    RESULTS,
    checkout,
    checkout_env,
    checkout_script,
    git_commit,
    platform_name,
    run_json,
    today,
    write_json,
)

WORK = checkout_script(r"""
import io, json, pickle, tempfile, warnings, zipfile
from pathlib import Path
import numpy as np, pandas as pd
from bnclf import make_classifier
from bnclf.datasets import load_dataset, load_multilabel_dataset
from bnclf.io import load_model, save_model
from bnclf.models import make_multilabel_classifier
warnings.simplefilter("ignore")
rmcv_rows = int(sys.argv[2])

def median(fn, repeats=5):
    seconds, out = median_of(fn, repeats)
    return float(seconds), out

def read_arrays(path):  # the arrays of the file, read and nothing else
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.endswith(".npy"):
                np.lib.format.read_array(archive.open(name))
            elif name.endswith(".npz"):
                data = np.load(io.BytesIO(archive.read(name)))
                [data[k] for k in data.files]

kr_X, kr_y = load_dataset("kr-vs-kp")
rng = np.random.default_rng(0)
def random_table(rows):
    X = pd.DataFrame(rng.integers(0, 3, (rows, 36)), columns=[f"a{j}" for j in range(36)]).astype("category")
    return X, pd.Series(rng.integers(0, 2, rows), name="class")
tables = {}
for times in (5, 50):
    X = pd.concat([kr_X] * times, ignore_index=True)
    tables[("kr-vs-kp", len(kr_X) * times)] = (X, pd.concat([kr_y] * times, ignore_index=True))
for rows in (15_980, 159_800):
    tables[("random", rows)] = random_table(rows)
em_X, em_Y = load_multilabel_dataset("emotions")
out = []
folder = Path(tempfile.mkdtemp())
jobs = [(spec, key) for key in tables for spec in ("nb", "tan", "kdb(k=2)", "aode", "rmcv")]
jobs += [("mnb", ("emotions", len(em_X) * t)) for t in (1, 10)]
for spec, (data, rows) in jobs:
    if spec == "rmcv" and rows > rmcv_rows:
        continue
    if spec == "mnb":
        t = rows // len(em_X)
        X, Y = pd.concat([em_X] * t, ignore_index=True), pd.concat([em_Y] * t, ignore_index=True)
        fit, model = best_of(lambda: make_multilabel_classifier("mnb").fit(X, Y), 1)
        test = X.iloc[:500]
    else:
        X, y = tables[(data, rows)]
        fit, model = best_of(lambda: make_classifier(spec).fit(X, y), 1)
        test = X.iloc[:2000]
    path = folder / "model.bnclf"
    save, _ = best_of(lambda: save_model(model, path), 1)
    load, back = median(lambda: load_model(path))
    arrays, _ = median(lambda: read_arrays(path))
    same = bool(np.array_equal(np.asarray(back.predict_proba(test)), np.asarray(model.predict_proba(test))))
    out.append({"model": spec, "data": data, "rows": rows, "file_bytes": path.stat().st_size,
                "pickle_bytes": len(pickle.dumps(model)), "fit_s": fit, "save_s": save, "load_s": load,
                "read_arrays_s": arrays, "load_overhead_s": load - arrays, "bit_identical": same})
    print(json.dumps(out[-1]), file=sys.stderr)
print(json.dumps(out))
""")


def run(source: Path, rmcv_rows: int) -> list:
    """The rows of the checkout at ``source`` (a subprocess)."""
    return run_json([sys.executable, "-c", WORK, str(source), str(rmcv_rows)], env=checkout_env(source))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="fa4d99f", help="the commit to compare with (default: files of rows)")
    parser.add_argument("--rmcv-rows", type=int, default=159_800)
    parser.add_argument("--out", default=str(RESULTS / "model_file.json"))
    parser.add_argument(
        "--reuse-before",
        action="store_true",
        help="take the older commit's figures from --out when it holds that commit's (its loads refit: slow)",
    )
    args = parser.parse_args(argv)
    import pandas as pd

    now = run(REPO, args.rmcv_rows)
    previous = json.loads(Path(args.out).read_text()) if Path(args.out).exists() else {}
    if args.reuse_before and previous.get("old_commit") == args.old and previous.get("before"):
        before = previous["before"]
    else:
        with checkout(args.old) as (old, _):
            before = run(old, args.rmcv_rows)
    report = {
        "machine": platform_name(),
        "date": today(),
        "pandas": pd.__version__,
        "commit": git_commit(),
        "old_commit": args.old,
        "now": now,
        "before": before,
    }
    write_json(args.out, report)
    old = {(r["model"], r["data"], r["rows"]): r for r in before}
    print(
        "| model | data | rows | file now | file before | pickle now | pickle before "
        "| load now (arrays) | load before | fit |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in now:
        b = old.get((r["model"], r["data"], r["rows"]), {})
        print(
            f"| {r['model']} | {r['data']} | {r['rows']:,} | {r['file_bytes'] / 1e3:,.1f} kB | "
            f"{b.get('file_bytes', float('nan')) / 1e3:,.1f} kB | {r['pickle_bytes'] / 1e3:,.1f} kB | "
            f"{b.get('pickle_bytes', float('nan')) / 1e3:,.1f} kB | {r['load_s'] * 1e3:.1f} ms "
            f"({r['read_arrays_s'] * 1e3:.1f} ms) | {b.get('load_s', float('nan')) * 1e3:.1f} ms | "
            f"{r['fit_s'] * 1e3:.0f} ms |"
        )


if __name__ == "__main__":
    main()
