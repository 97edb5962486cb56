"""Growth: fit and predict time and peak memory against rows N and attributes n.

Synthetic data from a known network: a class with 3 values and features that each
depend on the class and on the previous feature (3 to 5 states), sampled with numpy
and handed over as ``category`` columns. Each time is the best of 3 calls on tables of
at most 10^6 cells, after a warm-up run, else of one call. For every (N, n) on two sweeps (rows
``10^4 .. 10^7`` at n = 11; attributes ``10 .. 1000`` at N = 10^4), NB, TAN,
KDB(k=2) and AODE are fitted on the data and predict 10^4 rows (all rows, up to
10^6, in the row sweep); scikit-learn's ``CategoricalNB`` and pyAgrum's TAN
``BNClassifier`` run where they are feasible. Peak memory is the largest traced
allocation during the call (``tracemalloc``, which numpy reports to), in MiB.

Log-log slopes of time against N and n are printed and stored with the raw numbers
in ``benchmarks/results/growth.json``; ``--plot`` writes ``docs/images/growth.png``.

Run: ``python -m benchmarks.speed growth [--max-rows 10000000] [--plot]``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.speed.harness import REPO, RESULTS, git_commit, platform_name, traced, write_json
from benchmarks.speed.synthetic import synthetic
from bnclf import AODEClassifier, KDBClassifier, NaiveBayesClassifier, TANClassifier


def best(fn, cells):
    """:func:`~benchmarks.speed.harness.traced`, the best of 3 calls on tables of at most 10^6
    cells (where one call is short enough for the machine's noise to show), else of 1."""
    runs = [traced(fn) for _ in range(3 if cells <= 10**6 else 1)]
    return min(runs, key=lambda run: run[1])


def run_point(n_rows, n_features, n_predict, peers, log):
    X, y, codes, y_codes = synthetic(n_rows, n_features)
    test = X.iloc[:n_predict]
    row = {"rows": n_rows, "features": n_features, "predicted": n_predict, "data_mib": codes.nbytes / 2**20}
    models = {
        "NB": NaiveBayesClassifier(),
        "TAN": TANClassifier(),
        "KDB2": KDBClassifier(k=2),
        "AODE": AODEClassifier(),
    }
    for name, model in models.items():
        if name == "AODE" and n_features > 300:
            continue  # n SPODEs of n features each: the all-pairs table alone is n^2 r^2 C cells
        _, fit_s, fit_mib = best(lambda: model.fit(X, y), n_rows * n_features)
        _, pred_s, pred_mib = best(lambda: model.predict_proba(test), n_predict * n_features)
        row[name] = {"fit_s": fit_s, "fit_peak_mib": fit_mib, "predict_s": pred_s, "predict_peak_mib": pred_mib}
        log(
            f"  N={n_rows:>9,} n={n_features:>4} {name:5s} fit {fit_s:7.2f} s ({fit_mib:7.1f} MiB) "
            f"predict {pred_s:7.3f} s ({pred_mib:7.1f} MiB)"
        )
    if "sklearn" in peers:
        from sklearn.naive_bayes import CategoricalNB

        cnb = CategoricalNB(alpha=1.0, min_categories=(3 + np.arange(n_features) % 3))
        _, fit_s, fit_mib = best(lambda: cnb.fit(codes, y_codes), n_rows * n_features)
        _, pred_s, pred_mib = best(lambda: cnb.predict_proba(codes[:n_predict]), n_predict * n_features)
        row["CategoricalNB"] = {
            "fit_s": fit_s,
            "fit_peak_mib": fit_mib,
            "predict_s": pred_s,
            "predict_peak_mib": pred_mib,
        }
        log(f"  N={n_rows:>9,} n={n_features:>4} CategoricalNB fit {fit_s:7.2f} s predict {pred_s:7.3f} s")
    if "pyagrum" in peers and n_rows <= 10**5 and n_features <= 100:
        try:
            import pyagrum
            from pyagrum.lib.discreteTypeProcessor import DiscreteTypeProcessor
            from pyagrum.skbn import BNClassifier

            pyagrum.setNumberOfThreads(1)
            clf = BNClassifier(
                type_processor=DiscreteTypeProcessor(), learningMethod="TAN", prior="Smoothing", priorWeight=1.0
            )
            strings = X.astype(str)
            _, fit_s, _ = traced(lambda: clf.fit(strings, y))
            _, pred_s, _ = traced(lambda: clf.predict_proba(strings.iloc[:n_predict]))
            row["pyAgrum TAN"] = {"fit_s": fit_s, "predict_s": pred_s}
            log(f"  N={n_rows:>9,} n={n_features:>4} pyAgrum TAN fit {fit_s:7.2f} s predict {pred_s:7.3f} s")
        except Exception as exc:  # an optional peer; record why it did not run
            row["pyAgrum TAN"] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
    return row


def slope(xs, ys):
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    keep = ys > 0
    return float(np.polyfit(np.log10(xs[keep]), np.log10(ys[keep]), 1)[0]) if keep.sum() >= 2 else float("nan")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-rows", type=int, default=10**7)
    parser.add_argument("--max-features", type=int, default=1000)
    parser.add_argument("--peers", default="sklearn,pyagrum")
    parser.add_argument("--out", type=Path, default=RESULTS / "growth.json")
    parser.add_argument("--plot", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    peers = set(args.peers.split(",")) if args.peers else set()

    def log(msg):
        print(msg, flush=True)

    rows_sweep = [n for n in (10**4, 10**5, 10**6, 10**7) if n <= args.max_rows]
    feature_sweep = [n for n in (10, 30, 100, 300, 1000) if n <= args.max_features]
    run_point(2000, 11, 2000, set(), lambda msg: None)  # warm up: imports, first calls
    log("rows sweep (n = 11)")
    by_rows = [run_point(n, 11, min(n, 10**6), peers, log) for n in rows_sweep]
    log("attributes sweep (N = 10^4)")
    by_features = [run_point(10**4, n, 10**4, peers, log) for n in feature_sweep]
    slopes = {}
    for name in ("NB", "TAN", "KDB2", "AODE", "CategoricalNB"):
        for sweep, key, points in (("rows", "rows", by_rows), ("features", "features", by_features)):
            pts = [p for p in points if name in p and "fit_s" in p[name]]
            if len(pts) >= 2:
                slopes[f"{name} fit vs {sweep}"] = slope([p[key] for p in pts], [p[name]["fit_s"] for p in pts])
                if sweep == "rows":
                    slopes[f"{name} predict vs rows"] = slope(
                        [p["predicted"] for p in pts], [p[name]["predict_s"] for p in pts]
                    )
    result = {
        "machine": platform_name(),
        "processors": os.cpu_count(),
        "commit": git_commit() or None,
        "date": time.strftime("%Y-%m-%d"),
        "by_rows": by_rows,
        "by_features": by_features,
        "slopes": slopes,
    }
    write_json(args.out, result, newline=False)
    log("\nlog-log slopes:")
    for key, value in slopes.items():
        log(f"  {key}: {value:.2f}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for ax, points, key, label in (
            (axes[0], by_rows, "rows", "rows N (n = 11)"),
            (axes[1], by_features, "features", "attributes n (N = 10^4)"),
        ):
            for name in ("NB", "TAN", "KDB2", "AODE", "CategoricalNB", "pyAgrum TAN"):
                pts = [p for p in points if name in p and "fit_s" in p[name]]
                if pts:
                    ax.loglog([p[key] for p in pts], [p[name]["fit_s"] for p in pts], "o-", label=name)
            ax.set_xlabel(label)
            ax.set_ylabel("fit time (s)")
            ax.grid(True, which="both", alpha=0.3)
        axes[0].legend(fontsize=8)
        fig.suptitle("Fit time growth (synthetic chain-augmented network, 3 classes)")
        fig.tight_layout()
        out = REPO / "docs" / "images" / "growth.png"
        fig.savefig(out, dpi=110)
        log(f"wrote {out}")


if __name__ == "__main__":
    main()
