"""``bnclf evaluate``: cross-validation of one or more models on one data file."""

from __future__ import annotations

import argparse

import pandas as pd

from bnclf.cli._common import read_multilabel, read_table, wants_multilabel, write_csv
from bnclf.evaluation._reports import cross_validate_models, evaluate_multilabel, per_class_report


def _print_table(table: pd.DataFrame, title: str):
    print(title)
    extra = [c for c in ("log_loss", "auc") if c in table.columns]
    width = max(12, *(len(str(m)) + 2 for m in table["model"]))
    head = f"{'model':<{width}}{'accuracy':>10}{'± std':>9}"
    head += "".join(f"{c.replace('_', ' '):>10}" for c in extra)
    print(head + f"{'fit (s)':>10}{'predict (s)':>13}")
    for r in table.to_dict("records"):
        line = f"{r['model']:<{width}}{r['accuracy']:>10.4f}{r['std']:>9.4f}"
        line += "".join(f"{r[c]:>10.4f}" for c in extra)
        print(line + f"{r['fit_s']:>10.3f}{r['predict_s']:>13.4f}")


def _fmt_cell(value, spec: str) -> str:
    return "-" if value is None or pd.isna(value) else format(value, spec)


def _print_multilabel_table(table: pd.DataFrame, title: str):
    print(title)
    width = max(12, *(len(str(m)) + 2 for m in table["model"]))
    print(
        f"{'':<{width}}{'global accuracy':>18}{'Hamming accuracy':>19}{'empty':>8}"
        f"{'empty allowed: global':>23}{'Hamming':>9}{'empty':>8}{'treewidth':>11}{'features':>10}"
        f"{'fit (s)':>10}{'predict (s)':>13}"
    )
    for r in table.to_dict("records"):
        print(
            f"{r['model']:<{width}}{r['global_accuracy']:>9.4f} ± {r['global_accuracy_std']:.4f}"
            f"{r['hamming_accuracy']:>10.4f} ± {r['hamming_accuracy_std']:.4f}{r['empty_rate']:>8.3f}"
            f"{_fmt_cell(r['global_accuracy_empty_allowed'], '.4f'):>23}"
            f"{_fmt_cell(r['hamming_accuracy_empty_allowed'], '.4f'):>9}"
            f"{_fmt_cell(r['empty_rate_empty_allowed'], '.3f'):>8}"
            f"{_fmt_cell(r['treewidth'], '.1f'):>11}{_fmt_cell(r['n_selected_features'], '.1f'):>10}"
            f"{r['fit_s']:>10.3f}{r['predict_s']:>13.4f}"
        )


def _evaluate_multilabel(args, specs):
    if args.predictions:
        raise ValueError(
            "--predictions is for single-label evaluation; for a multilabel model, fit it "
            "('bnclf fit') and write its label sets with 'bnclf predict'."
        )
    X, Y = read_multilabel(args.data, args)
    folds = 5 if args.folds is None else args.folds
    table = evaluate_multilabel(
        X,
        Y,
        specs,
        n_splits=folds,
        seed=args.seed,
        discretize=args.discretize,
        n_bins=args.bins,
        verbose=int(not args.no_progress),
        n_jobs=args.jobs,
    )
    least = table.attrs.get("protocol", {}).get("stratified_on")
    _print_multilabel_table(
        table,
        f"{folds}-fold CV stratified on the least relevant label ({least}) on "
        f"{args.data} ({X.shape[0]} rows, {X.shape[1]} features, "
        f"{Y.shape[1]} labels)",
    )
    if args.output:
        write_csv(table, args.output)


def cmd_evaluate(args: argparse.Namespace) -> None:
    from bnclf.cli._compare import _split_top_level

    specs = None if args.models is None else _split_top_level([args.models])
    if specs is not None and not specs:
        raise ValueError(
            "--models is empty; give classifier specs separated by commas, e.g. --models 'nb,tan,kdb(k=3, m=5)'."
        )
    if wants_multilabel(args, specs or []):
        return _evaluate_multilabel(args, specs or ["mnb", "mfan", "br", "ecc"])
    specs = specs or ["nb", "tan", "kdb"]
    X, y = read_table(args.data, args.target, args)
    args.folds = 10 if args.folds is None else args.folds
    table, cvs = cross_validate_models(
        X,
        y,
        specs,
        n_splits=args.folds,
        discretize=args.discretize or "mdl",
        n_bins=args.bins,
        seed=args.seed,
        metrics=("accuracy", "log_loss", "auc"),
        return_cv=True,
        n_jobs=args.jobs,
        verbose=int(not args.no_progress),
    )
    _print_table(
        table,
        f"{args.folds}-fold stratified CV on {args.data} "
        f"({X.shape[0]} rows, {X.shape[1]} features, {y.nunique()} classes)",
    )
    if not args.brief:
        for spec, cv in cvs.items():
            confusion, per_class = per_class_report(cv)
            print(f"\n{spec}: out-of-fold confusion matrix (rows: true class)")
            print(confusion.to_string())
            print(per_class.round(4).to_string())
    if args.output:
        write_csv(table, args.output)
    if args.predictions:
        frames = []
        for spec, cv in cvs.items():
            pred = cv.predictions[["row", "fold", "y_true", "y_pred"]].copy()
            pred.insert(0, "model", spec)
            for j, label in enumerate(cv.classes):
                pred[f"P({label})"] = cv.proba[:, j]
            frames.append(pred)
        write_csv(pd.concat(frames, ignore_index=True), args.predictions)
        print(f"wrote the out-of-fold predictions of {len(cvs)} model(s) -> {args.predictions}")
