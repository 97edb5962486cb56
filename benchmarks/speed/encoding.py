"""Input types on pandas 2 and pandas 3: naive Bayes fit and predict, this bnclf and an older one.

For every Python interpreter given with ``--python`` (one with pandas 2.x, one with pandas
3.x), and for this checkout and the commit ``--old`` (checked out into a temporary git
worktree), a subprocess times ``NaiveBayesClassifier().fit`` and ``.predict`` on the same
table given as

* a categorical frame, an integer frame and an integer ndarray;
* an object frame (Python strings), a text ndarray (object);
* a ``str`` frame: pandas 3's default string dtype (Arrow-backed where pyarrow is
  installed); on pandas 2, ``string[pyarrow]``, the dtype pandas 3's ``str`` is;
* ``string[python]`` (pandas' string dtype held as Python objects).

Tables: kr-vs-kp (3,196 rows x 36 attributes) and a synthetic table of 10,000 rows x 300
attributes of 4 values (``benchmarks.speed.synthetic.make_data``). Each figure is the median of
``--repeats`` calls, the input types taking turns call by call (drift in the machine's
state hits them alike); predicts are on a model fitted once. Writes
``benchmarks/results/encoding.json`` and prints a Markdown table per table, with each
type's ratio to the categorical frame of the same run.

Run: ``python -m benchmarks.speed encoding --python /path/to/pandas2/python
/path/to/pandas3/python``.
"""

from __future__ import annotations

import argparse
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
import json, warnings
import numpy as np, pandas as pd
from bnclf import NaiveBayesClassifier
from bnclf.datasets import load_dataset
from benchmarks.speed.synthetic import make_data
warnings.simplefilter("ignore")
repeats = int(sys.argv[2])
pandas3 = int(pd.__version__.split(".")[0]) >= 3

def types(X):
    text = X.astype(str).astype(object)
    codes = np.column_stack([X[c].cat.codes for c in X]).astype(np.int64)
    return {
        "categorical frame": X,
        "integer frame": pd.DataFrame(codes, columns=X.columns),
        "integer ndarray": codes,
        "object frame": text,
        "text ndarray": text.to_numpy(),
        "str frame": text.astype("str" if pandas3 else "string[pyarrow]"),
        "string[python] frame": text.astype("string[python]"),
    }

out = {"pandas": pd.__version__, "numpy": np.__version__, "tables": {}}
tables = {"kr-vs-kp": load_dataset("kr-vs-kp")}
X300, y300 = make_data(300)
tables["300 attributes"] = (X300.astype("category"), y300)
for table, (X, y) in tables.items():
    inputs = types(X)
    fitted = {name: NaiveBayesClassifier().fit(data, y) for name, data in inputs.items()}
    fitting = {name: NaiveBayesClassifier() for name in inputs}
    fits = interleaved({n: (lambda m=fitting[n], d=d: m.fit(d, y)) for n, d in inputs.items()}, repeats)
    predicts = interleaved({n: (lambda m=fitted[n], d=d: m.predict(d)) for n, d in inputs.items()}, repeats)
    out["tables"][table] = {
        name: {"fit_ms": float(np.median(fits[name]) * 1e3), "predict_ms": float(np.median(predicts[name]) * 1e3)}
        for name in inputs
    }
print(json.dumps(out))
""")


def run(python: str, source: Path, repeats: int) -> dict:
    """The figures of one interpreter and one checkout (a subprocess)."""
    return run_json([python, "-c", WORK, str(source), str(repeats)], env=checkout_env(source))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", nargs="+", default=[sys.executable], help="interpreters (pandas 2 and 3)")
    parser.add_argument("--old", default="fa4d99f", help="the commit to compare with (default: the address encoder)")
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--out", default=str(RESULTS / "encoding.json"))
    args = parser.parse_args(argv)
    runs = []
    with checkout(args.old) as (old, _):
        for python in args.python:
            for label, source in (("now", REPO), ("before", old)):
                result = run(python, source, args.repeats)
                result.update(version=label, python=python)
                runs.append(result)
                print(f"{label} on pandas {result['pandas']}: done", file=sys.stderr)
    for result in runs:
        for table in result["tables"].values():
            base = table["categorical frame"]
            for figures in table.values():
                figures["fit_vs_categorical"] = figures["fit_ms"] / base["fit_ms"]
                figures["predict_vs_categorical"] = figures["predict_ms"] / base["predict_ms"]
    report = {
        "machine": platform_name(),
        "date": today(),
        "commit": git_commit(),
        "old_commit": args.old,
        "repeats": args.repeats,
        "runs": runs,
    }
    write_json(args.out, report)
    for table in runs[0]["tables"]:
        print(f"\n### {table}: NB fit / predict, ms (ratio to the categorical frame)\n")
        heads = [f"{r['version']}, pandas {r['pandas']}" for r in runs]
        print("| input | " + " | ".join(heads) + " |")
        print("|---" * (len(runs) + 1) + "|")
        for name in runs[0]["tables"][table]:
            cells = []
            for r in runs:
                f = r["tables"][table][name]
                cells.append(
                    f"{f['fit_ms']:.2f} ({f['fit_vs_categorical']:.2f}) / "
                    f"{f['predict_ms']:.2f} ({f['predict_vs_categorical']:.2f})"
                )
            print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
