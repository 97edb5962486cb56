"""Prediction with missing values: bnclf's exact marginalization against pgmpy's.

On the same letter data as ``bench_tan_letter.py`` (18,000 training rows, 5 quantile
bins, 26 classes), 20% of the test values are blanked at random. bnclf's TAN and KDB(k=2)
sum the blanks out in ``predict_proba``; pgmpy answers the same question with
``VariableElimination.query`` on the exported network, evidence = the observed values.
Posteriors must agree to 1e-9; the ratio of times is reported. pyAgrum and scikit-learn
reject missing values, so they have no entry.

    python benchmarks/bench_missing_letter.py [--pgmpy-rows 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tan_letter import prepare  # noqa: E402

from bnclf import KDBClassifier, TANClassifier  # noqa: E402
from bnclf.io._pgmpy import variable_elimination  # noqa: E402

MISSING_RATE = 0.2


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pgmpy-rows", type=int, default=200, help="test rows queried through pgmpy (time extrapolated per row)"
    )
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"))
    args = parser.parse_args(argv)
    from tqdm.auto import tqdm

    d = prepare(args)
    test = d["Dte"].copy()
    rng = np.random.default_rng(0)
    blank = rng.random(test.shape) < MISSING_RATE
    for j, column in enumerate(test.columns):
        test.loc[blank[:, j], column] = np.nan
    rows = []
    for est in (TANClassifier(), KDBClassifier(k=2)):
        est.fit(d["Dtr"], d["ytr"])
        ours_s, ours = best_of(lambda: est.predict_proba(test), 5)
        infer = variable_elimination(est.to_pgmpy())
        sub = test.iloc[: args.pgmpy_rows]
        start = time.perf_counter()
        ref = []
        for _, row in tqdm(sub.iterrows(), total=len(sub), desc=f"pgmpy {type(est).__name__}"):
            evidence = {k: v for k, v in row.items() if not isinstance(v, float)}
            q = infer.query([est.class_name_], evidence=evidence, show_progress=False)
            states = q.state_names[est.class_name_]
            ref.append([q.values[states.index(c)] for c in est.classes_])
        pgmpy_per_row = (time.perf_counter() - start) / len(sub)
        diff = float(np.max(np.abs(np.array(ref) - ours[: len(sub)])))
        rows.append(
            {
                "model": type(est).__name__,
                "rows": len(test),
                "bnclf_s": ours_s,
                "bnclf_us_per_row": 1e6 * ours_s / len(test),
                "pgmpy_ms_per_row": 1e3 * pgmpy_per_row,
                "ratio": pgmpy_per_row * len(test) / ours_s,
                "max_abs_diff": diff,
            }
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "missing_letter.json").write_text(json.dumps(rows, indent=1))
    lines = [
        "| model | bnclf, 2,000 rows | bnclf per row | pgmpy per row | pgmpy / bnclf | max abs diff |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {1e3 * r['bnclf_s']:.1f} ms | {r['bnclf_us_per_row']:.1f} µs "
            f"| {r['pgmpy_ms_per_row']:.2f} ms | {r['ratio']:.0f}× | {r['max_abs_diff']:.1e} |"
        )
    (out / "missing_letter.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
