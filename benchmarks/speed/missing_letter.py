"""Prediction with missing values: bnclf's exact marginalization against pgmpy's.

On the same letter data as ``tan_letter`` (18,000 training rows, 5 quantile
bins, 26 classes), 20% of the test values are blanked at random. bnclf's TAN and KDB(k=2)
sum the blanks out in ``predict_proba``; pgmpy answers the same question with
``VariableElimination.query`` on the exported network, evidence = the observed values.
Posteriors must agree to 1e-9; the ratio of times is reported. pyAgrum and scikit-learn
reject missing values, so they have no entry.

    python -m benchmarks.speed missing_letter [--pgmpy-rows 200]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from benchmarks.speed.harness import RESULTS, best_of, write_json
from benchmarks.speed.tan_letter import prepare
from bnclf import KDBClassifier, TANClassifier
from bnclf.io._pgmpy import variable_elimination

MISSING_RATE = 0.2


def pgmpy_posteriors(infer, est, rows):
    """The class posterior of every row by pgmpy's variable elimination ``infer`` on ``est``'s
    exported network, the row's observed values as evidence (one query per row)."""
    out = []
    for _, row in tqdm(rows.iterrows(), total=len(rows), desc=f"pgmpy {type(est).__name__}"):
        evidence = {k: v for k, v in row.items() if not isinstance(v, float)}
        q = infer.query([est.class_name_], evidence=evidence, show_progress=False)
        states = q.state_names[est.class_name_]
        out.append([q.values[states.index(c)] for c in est.classes_])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pgmpy-rows", type=int, default=200, help="test rows queried through pgmpy (time extrapolated per row)"
    )
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
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
        sub = test.iloc[: args.pgmpy_rows]
        infer = variable_elimination(est.to_pgmpy())  # not timed: the queries are
        pgmpy_s, ref = best_of(lambda: pgmpy_posteriors(infer, est, sub), 1)
        pgmpy_per_row = pgmpy_s / len(sub)
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
    write_json(out / "missing_letter.json", rows, newline=False)
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
