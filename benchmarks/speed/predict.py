"""Prediction cost: rows in bounded memory, per-call overhead, and input types.

Three measurements, each of this bnclf and of the bnclf of commit ``--old`` (default
``2249442~1``; run from a temporary git worktree in a subprocess on the same data):

1. **5M rows.** NB, TAN and KDB(k=2) fitted on 5,000,000 rows x 11 attributes of the
   synthetic network of ``benchmarks.speed.synthetic``; ``predict_proba`` on all of them: wall time
   and the peak of traced allocations (``tracemalloc``) beyond the result, as a share of
   the coded data (5M x 11 int64 = 440 MB).
2. **Per-call overhead** on kr-vs-kp (36 attributes): the median time of ``predict`` on
   one row and on 200 rows, against scikit-learn's ``CategoricalNB`` on the integer codes.
3. **Input types.** NB ``fit`` and ``predict`` on kr-vs-kp given as categorical, object,
   string, integer DataFrames and integer and string ndarrays (median of 41 calls, the
   types taking turns call by call): the ratio of each to the fastest.

Run: ``python -m benchmarks.speed predict``; the figures go to
``benchmarks/results/predict.json`` (``--out`` to write elsewhere).
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
    median_of,
    platform_name,
    run_json,
    write_json,
)

WORK = checkout_script(r"""
import json, warnings
import numpy as np, pandas as pd
from benchmarks.speed.synthetic import synthetic
from bnclf import KDBClassifier, NaiveBayesClassifier, TANClassifier
from bnclf.datasets import load_dataset
warnings.simplefilter("ignore")
rows = int(sys.argv[2])

def median_ms(fn, repeats):
    return float(median_of(fn, repeats)[0] * 1e3)

out = {"large": {}, "overhead": {}, "types": {}}
X, y, codes, _ = synthetic(rows, 11, seed=0)
for name, make in (("NB", NaiveBayesClassifier), ("TAN", TANClassifier), ("KDB2", lambda: KDBClassifier(k=2))):
    model = make().fit(X, y)
    proba, seconds, peak = traced(lambda: model.predict_proba(X))
    extra = peak * 2**20 - proba.nbytes
    out["large"][name] = {"predict_proba_s": seconds, "peak_extra_mib": extra / 2**20,
                          "peak_extra_share_of_codes": extra / codes.nbytes}
    del model, proba
del X, y, codes

X, y = load_dataset("kr-vs-kp")
nb = NaiveBayesClassifier().fit(X, y)
out["overhead"]["predict_1_row_ms"] = median_ms(lambda: nb.predict(X.iloc[:1]), 300)
out["overhead"]["predict_200_rows_ms"] = median_ms(lambda: nb.predict(X.iloc[:200]), 200)
codes = np.column_stack([X[c].cat.codes for c in X]).astype(np.int64)
inputs = {"categorical frame": X, "object frame": X.astype(object), "string frame": X.astype(str),
          "integer frame": pd.DataFrame(codes, columns=X.columns), "integer ndarray": codes,
          "string ndarray": X.astype(str).to_numpy()}
fitted = {name: NaiveBayesClassifier().fit(data, y) for name, data in inputs.items()}  # predicted, never refitted
fitting = {name: NaiveBayesClassifier() for name in inputs}
fits = interleaved({n: (lambda m=fitting[n], d=d: m.fit(d, y)) for n, d in inputs.items()}, 41)
predicts = interleaved({n: (lambda m=fitted[n], d=d: m.predict(d)) for n, d in inputs.items()}, 41)
for name in inputs:
    out["types"][name] = {"fit_ms": float(np.median(fits[name]) * 1e3),
                          "predict_ms": float(np.median(predicts[name]) * 1e3)}
print(json.dumps(out))
""")


def run(source: Path, rows: int) -> dict:
    """The figures of the checkout at ``source`` (a subprocess)."""
    return run_json([sys.executable, "-c", WORK, str(source), str(rows)], env=checkout_env(source))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--old", default="2249442~1")
    parser.add_argument("--out", default=str(RESULTS / "predict.json"))
    args = parser.parse_args(argv)
    import numpy as np
    from sklearn.naive_bayes import CategoricalNB

    from bnclf.datasets import load_dataset

    X, y = load_dataset("kr-vs-kp")
    codes = np.column_stack([X[c].cat.codes for c in X]).astype(np.int64)
    cnb = CategoricalNB().fit(codes, y)

    def median_ms(fn, repeats):
        return float(median_of(fn, repeats)[0] * 1e3)

    peer = {
        "predict_1_row_ms": median_ms(lambda: cnb.predict(codes[:1]), 300),
        "predict_200_rows_ms": median_ms(lambda: cnb.predict(codes[:200]), 200),
    }
    now = run(REPO, args.rows)
    with checkout(args.old) as (old, _):
        before = run(old, args.rows)
    for label, result in (("now", now), ("before", before)):
        fastest_fit = min(v["fit_ms"] for v in result["types"].values())
        fastest_predict = min(v["predict_ms"] for v in result["types"].values())
        for v in result["types"].values():
            v["fit_ratio_to_fastest"] = v["fit_ms"] / fastest_fit
            v["predict_ratio_to_fastest"] = v["predict_ms"] / fastest_predict
        result["overhead"]["ratio_to_categorical_nb_1_row"] = (
            result["overhead"]["predict_1_row_ms"] / peer["predict_1_row_ms"]
        )
    speedup = {
        name: before["large"][name]["predict_proba_s"] / now["large"][name]["predict_proba_s"] for name in now["large"]
    }
    report = {
        "machine": platform_name(),
        "rows": args.rows,
        "old_commit": args.old,
        "categorical_nb": peer,
        "now": now,
        "before": before,
        "predict_proba_speedup_5M": speedup,
    }
    write_json(args.out, report)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
