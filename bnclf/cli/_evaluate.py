"""``bnclf evaluate``: cross-validation of one or more models on one data file, or models
fitted on one file and scored on another (``--test``)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from bnclf.cli._common import _csv_options, _drop_columns, read_multilabel, read_table, wants_multilabel, write_csv

if TYPE_CHECKING:
    import pandas as pd

_METRICS = ("accuracy", "log_loss", "auc", "kappa")
_HEADERS = {"log_loss": "log loss", "auc": "AUC", "kappa": "kappa"}
_TIME_HEADERS = {True: ("fit total (s)", "predict total (s)"), False: ("fit (s)", "predict (s)")}
"""The timing columns' headers: cross-validation (``spread``) sums the folds' seconds, beside
scores that are means over the folds; one test set has one fit and one prediction."""
_TIME_NOTE = "fit/predict total: seconds summed over all folds (the scores are means over the folds)."


def _print_table(table: pd.DataFrame, title: str, n_classes: int | None = None, *, spread: bool = True) -> None:
    """The results table; ``spread`` shows the standard deviation of the fold accuracies (not
    for one test set). With more than two classes the AUC column is Hand and Till's M."""
    print(title)
    extra = [c for c in ("log_loss", "auc", "kappa") if c in table.columns]
    multiclass = n_classes is not None and n_classes > 2
    headers = {**_HEADERS, "auc": "AUC (M)" if multiclass else "AUC"}
    width = max(12, *(len(str(m)) + 2 for m in table["model"]))
    head = f"{'model':<{width}}{'accuracy':>10}" + (f"{'± std':>9}" if spread else "")
    head += "".join(f"{headers[c]:>10}" for c in extra)
    fit, predict = _TIME_HEADERS[spread]
    print(head + f"{fit:>{len(fit) + 2}}{predict:>{len(predict) + 2}}")
    for r in table.to_dict("records"):
        line = f"{r['model']:<{width}}{r['accuracy']:>10.4f}" + (f"{r['std']:>9.4f}" if spread else "")
        line += "".join(f"{_fmt_cell(r[c], '.4f'):>10}" for c in extra)
        print(line + f"{r['fit_s']:>{len(fit) + 2}.3f}{r['predict_s']:>{len(predict) + 2}.4f}")
    if spread:
        print(_TIME_NOTE)
    if "auc" in extra and multiclass:
        print(
            f"AUC (M): Hand and Till's (2001) multi-class AUC for the {n_classes} classes, the mean over "
            "pairs of classes of the AUC of each pair."
        )
    if "kappa" in extra:
        print("kappa: Cohen's kappa of the predictions against the true classes (0: chance agreement, 1: all right).")


def _fmt_cell(value, spec: str) -> str:
    import pandas as pd

    return "-" if value is None or pd.isna(value) else format(value, spec)


def _print_multilabel_table(table: pd.DataFrame, title: str, *, spread: bool = True) -> None:
    print(title)
    fit, predict = _TIME_HEADERS[spread]
    width = max(12, *(len(str(m)) + 2 for m in table["model"]))
    print(
        f"{'':<{width}}{'global accuracy':>18}{'Hamming accuracy':>19}{'empty':>8}"
        f"{'empty allowed: global':>23}{'Hamming':>9}{'empty':>8}{'treewidth':>11}{'features':>10}"
        f"{fit:>{len(fit) + 2}}{predict:>{len(predict) + 2}}"
    )
    for r in table.to_dict("records"):
        if spread:
            scores = (
                f"{r['global_accuracy']:>9.4f} ± {r['global_accuracy_std']:.4f}"
                f"{r['hamming_accuracy']:>10.4f} ± {r['hamming_accuracy_std']:.4f}"
            )
        else:
            scores = f"{r['global_accuracy']:>18.4f}{r['hamming_accuracy']:>19.4f}"
        print(
            f"{r['model']:<{width}}{scores}{r['empty_rate']:>8.3f}"
            f"{_fmt_cell(r['global_accuracy_empty_allowed'], '.4f'):>23}"
            f"{_fmt_cell(r['hamming_accuracy_empty_allowed'], '.4f'):>9}"
            f"{_fmt_cell(r['empty_rate_empty_allowed'], '.3f'):>8}"
            f"{_fmt_cell(r['treewidth'], '.1f'):>11}{_fmt_cell(r['n_selected_features'], '.1f'):>10}"
            f"{r['fit_s']:>{len(fit) + 2}.3f}{r['predict_s']:>{len(predict) + 2}.4f}"
        )
    if spread:
        print(_TIME_NOTE)


def _check_test_options(args: argparse.Namespace) -> None:
    """``--test`` scores one test file: the options of the folds have no meaning with it."""
    if args.test is None:
        return
    given = [flag for flag, value in (("--folds", args.folds), ("--jobs", args.jobs)) if value is not None]
    if given:
        raise ValueError(
            f"{' and '.join(given)} {'are' if len(given) > 1 else 'is'} for cross-validation and --test scores "
            f"the models fitted on {args.data} on the rows of {args.test} once, without folds; drop "
            f"{' and '.join(given)}, or drop --test to cross-validate."
        )
    try:
        if os.path.samefile(args.data, args.test):
            import warnings

            warnings.warn(
                f"--test {args.test} is the training file: the models are scored on the rows they were fitted on, "
                "which flatters them; give held-out rows, or cross-validate (drop --test).",
                UserWarning,
                stacklevel=2,
            )
    except OSError:  # an embedded data set, or a file that the reader reports
        pass


def _test_features(X_train: pd.DataFrame, X_test: pd.DataFrame, args: argparse.Namespace) -> pd.DataFrame:
    """The test rows' columns of the training features, in training order (others ignored)."""
    from bnclf.encoding._frames import shown_names

    lacking = [c for c in X_train.columns if c not in X_test.columns]
    if lacking:
        raise ValueError(
            f"--test {args.test} lacks the feature columns {shown_names(lacking)} of {args.data}; a test "
            f"file has the training file's columns ({shown_names(X_train.columns)})."
        )
    return X_test[list(X_train.columns)]


def _write_predictions(cvs: dict, path: str, test: bool) -> None:
    import pandas as pd

    frames = []
    for spec, cv in cvs.items():
        pred = cv.predictions[["row", "y_true", "y_pred"] if test else ["row", "fold", "y_true", "y_pred"]].copy()
        pred.insert(0, "model", spec)
        for j, label in enumerate(cv.classes):
            pred[f"P({label})"] = cv.proba[:, j]
        frames.append(pred)
    write_csv(pd.concat(frames, ignore_index=True), path)
    what = "test" if test else "out-of-fold"
    print(f"wrote the {what} predictions of {len(cvs)} model(s) -> {path}")


def _evaluate_multilabel(args, specs):
    if args.predictions:
        raise ValueError(
            "--predictions is for single-label evaluation; for a multilabel model, fit it "
            "('bnclf fit') and write its label sets with 'bnclf predict'."
        )
    X, Y = read_multilabel(args.data, args)
    if args.test is not None:
        from bnclf.evaluation._multilabel import load_multilabel_spec
        from bnclf.evaluation._reports import train_test_multilabel

        # the test file's labels are the training labels, by name (whatever names them in DATA)
        _, X_test, Y_test = load_multilabel_spec(args.test, labels=list(Y.columns), csv_options=_csv_options(args))
        X_test = _test_features(X, _drop_columns(X_test, args.test, args), args)
        table = train_test_multilabel(
            X,
            Y,
            X_test,
            Y_test,
            specs,
            discretize=args.discretize,
            n_bins=args.bins,
            seed=args.seed,
            model_verbose=int(args.verbose),
        )
        heading = (
            f"fitted on {args.data} ({X.shape[0]} rows, {X.shape[1]} features, {Y.shape[1]} labels), "
            f"tested on {args.test} ({X_test.shape[0]} rows)"
        )
        _print_multilabel_table(table, heading, spread=False)
    else:
        from bnclf.evaluation._reports import evaluate_multilabel

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
            n_jobs=1 if args.jobs is None else args.jobs,
            model_verbose=int(args.verbose),
        )
        least = table.attrs.get("protocol", {}).get("stratified_on")
        heading = (
            f"{folds}-fold CV stratified on the least relevant label ({least}) on "
            f"{args.data} ({X.shape[0]} rows, {X.shape[1]} features, "
            f"{Y.shape[1]} labels)"
        )
        _print_multilabel_table(table, heading)
    if args.output:
        write_csv(table, args.output)
    if args.html:
        from bnclf.evaluation._html import evaluate_multilabel_html, write_html
        from bnclf.evaluation._reports import build_multilabel_model, seeded, with_verbose

        models = {}
        for spec in specs:
            try:
                model = seeded(build_multilabel_model(spec, args.discretize, args.bins), args.seed, spec)
                model = with_verbose(model, int(args.verbose), spec)
                models[spec] = model.fit(X, Y)
            except Exception as exc:  # the scores are in: a model that cannot be drawn is noted
                models[spec] = f"could not be fitted on all rows: {type(exc).__name__}: {exc}"
        page = evaluate_multilabel_html(
            table, heading=heading, spread=args.test is None, models=models, fitted_on=f", fitted on all of {args.data}"
        )
        write_html(page, args.html)
        print(f"wrote the HTML report -> {args.html}")


def cmd_evaluate(args: argparse.Namespace) -> None:
    from bnclf.cli._compare import _split_top_level

    specs = None if args.models is None else _split_top_level([args.models])
    if specs is not None and not specs:
        raise ValueError(
            "--models is empty; give classifier specs separated by commas, e.g. --models 'nb,tan,kdb(k=3, m=5)'."
        )
    _check_test_options(args)
    if wants_multilabel(args, specs or []):
        return _evaluate_multilabel(args, specs or ["mnb", "mfan", "br", "ecc"])
    from bnclf.evaluation._reports import cross_validate_models, per_class_report, train_test_models

    specs = specs or ["nb", "tan", "kdb"]
    X, y = read_table(args.data, args.target, args)
    if args.test is not None:
        # the class column of the test file is the training file's, by name
        X_test, y_test = read_table(args.test, args.target if args.target is not None else y.name, args)
        X_test = _test_features(X, X_test, args)
        table, cvs = train_test_models(
            X,
            y,
            X_test,
            y_test,
            specs,
            discretize=args.discretize or "mdl",
            n_bins=args.bins,
            seed=args.seed,
            metrics=_METRICS,
            model_verbose=int(args.verbose),
        )
        n_classes = len(next(iter(cvs.values())).classes)
        heading = (
            f"fitted on {args.data} ({X.shape[0]} rows, {X.shape[1]} features, {y.nunique()} classes), "
            f"tested on {args.test} ({X_test.shape[0]} rows)"
        )
        _print_table(table, heading, n_classes, spread=False)
        where = "test"
    else:
        args.folds = 10 if args.folds is None else args.folds
        table, cvs = cross_validate_models(
            X,
            y,
            specs,
            n_splits=args.folds,
            discretize=args.discretize or "mdl",
            n_bins=args.bins,
            seed=args.seed,
            metrics=_METRICS,
            return_cv=True,
            n_jobs=1 if args.jobs is None else args.jobs,
            verbose=int(not args.no_progress),
            model_verbose=int(args.verbose),
        )
        n_classes = y.nunique()
        heading = (
            f"{args.folds}-fold stratified CV on {args.data} "
            f"({X.shape[0]} rows, {X.shape[1]} features, {n_classes} classes)"
        )
        _print_table(table, heading, n_classes)
        where = "out-of-fold"
    if not args.brief:
        for spec, cv in cvs.items():
            confusion, per_class = per_class_report(cv)
            print(f"\n{spec}: {where} confusion matrix (rows: true class)")
            print(confusion.to_string())
            print(per_class.round(4).to_string())
    if args.output:
        write_csv(table, args.output)
    if args.predictions:
        _write_predictions(cvs, args.predictions, test=args.test is not None)
    if args.html:
        _write_html(args, table, cvs, heading, where, X, y)


def _write_html(args, table, cvs, heading: str, where: str, X, y) -> None:
    """The report as one HTML page; each model is fitted on all of DATA (as 'bnclf fit' fits it)
    for its structure, which is the model --test scored."""
    from bnclf.evaluation._html import evaluate_html, write_html
    from bnclf.evaluation._reports import build_model, seeded, with_verbose

    models = {}
    for spec in cvs:
        try:
            model = seeded(build_model(spec, args.discretize or "mdl", args.bins), args.seed, spec)
            model = with_verbose(model, int(args.verbose), spec)
            models[spec] = model.fit(X, y)
        except Exception as exc:  # the scores are in: a model that cannot be drawn is noted
            models[spec] = f"could not be fitted on all rows: {type(exc).__name__}: {exc}"
    page = evaluate_html(
        table,
        cvs,
        heading=heading,
        where=where,
        spread=args.test is None,
        models=models,
        fitted_on=f", fitted on all of {args.data}",
    )
    write_html(page, args.html)
    print(f"wrote the HTML report -> {args.html}")
