"""The ``bnclf`` command: fit, predict, query, evaluate, export, plot, compare and demo.

``fit``, ``predict``, ``evaluate`` and ``compare`` take multilabel data (labels by
``--labels``, ``--n-labels``, ``--xml``, or declared by the file) and multilabel
classifiers (``mnb``, ``mfan``, ``bn-ensemble``, ``br``, ``ecc``); ``query`` answers
MAP and marginal queries over the labels of a multilabel network.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import warnings
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, overload

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from . import __version__
from .data import shown_names
from .structure import markov_blanket

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

    from .evaluation.protocols import CVPredictions
    from .network import Network


# -- data and models ---------------------------------------------------------------
def _csv_options(args) -> dict:
    names = getattr(args, "names", None)
    return {
        "header": not getattr(args, "no_header", False),
        "sep": getattr(args, "sep", None),
        "names": [n.strip() for n in names.split(",")] if names else None,
    }


def read_table(
    path: str | os.PathLike, target: str | None = None, args: argparse.Namespace | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Features and target of a CSV or ARFF file (``--class``, default the last column)."""
    from .datasets import load_table

    X, y = load_table(path, target, **_csv_options(args))
    return _drop_columns(X, path, args), y


def _drop_columns(X: pd.DataFrame, path, args) -> pd.DataFrame:
    """``X`` without the ``--drop`` columns (each must be a column of the file)."""
    text = getattr(args, "drop", None)
    if not text:
        return X
    drop = [c.strip() for c in text.split(",") if c.strip()]
    absent = [c for c in drop if c not in X.columns]
    if absent:
        raise ValueError(f"--drop {absent} are not feature columns of {path}; its columns are {list(X.columns)}.")
    return X.drop(columns=drop)


def read_features(path: str | os.PathLike, args: argparse.Namespace | None = None, model: Any = None) -> pd.DataFrame:
    """All columns of a CSV or ARFF file (for predict). A headerless CSV file (``--no-header``
    without ``--names``) with as many columns as ``model`` has features gets their names."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.name.lower().endswith((".arff", ".arff.gz")):
        from .arff import read_arff

        return read_arff(path)
    from .datasets import read_csv_table

    options = _csv_options(args)
    frame = read_csv_table(path, **options)
    features = getattr(model, "feature_names_in_", None)
    if not options["header"] and options["names"] is None and features is not None:
        if frame.shape[1] == len(features):  # the model's features, without a class column
            frame.columns = list(features)
    return frame


def _discretizer(discretize: str, n_bins: int):
    """The transformer for ``--discretize`` (None for ``none``)."""
    from .evaluation.protocols import resolve_discretizer

    return resolve_discretizer(discretize, n_bins=n_bins)


def build_model(spec: str, discretize: str = "mdl", n_bins: int = 4) -> BaseEstimator:
    """A classifier from a spec like ``tan`` or ``kdb(k=3)``, behind a discretizer if asked."""
    from .evaluation.protocols import build_pipeline
    from .models import make_classifier

    return build_pipeline(make_classifier(spec), _discretizer(discretize, n_bins))


def final_estimator(model: BaseEstimator) -> BaseEstimator:
    """The Bayesian network classifier inside a pipeline (or the model itself)."""
    return model[-1] if hasattr(model, "steps") else model


# -- multilabel data and models --------------------------------------------------------
def is_multilabel_spec(spec: str) -> bool:
    """Whether a classifier spec names a multilabel classifier (``mnb``, ``br(m=2)``, ...)."""
    from .models.registry import MULTILABEL_CLASSIFIERS, parse_classifier_spec

    try:
        name, _ = parse_classifier_spec(spec)
    except ValueError:
        return False
    return name.lower() in MULTILABEL_CLASSIFIERS


def is_multilabel_model(est: object) -> bool:
    """Whether a fitted model predicts a label set (it has ``label_names_``)."""
    return hasattr(est, "label_names_")


def multilabel_names_help() -> str:
    """The registered multilabel classifier names, for help texts and errors."""
    from .models.registry import MULTILABEL_CLASSIFIERS

    return ", ".join(sorted(MULTILABEL_CLASSIFIERS))


def _label_options(args) -> dict:
    labels = getattr(args, "labels", None)
    if labels is not None:
        labels = [name.strip() for name in labels.split(",") if name.strip()]
        if not labels:
            raise ValueError("--labels is empty; give the label columns separated by commas, e.g. --labels happy,sad.")
    n_labels = getattr(args, "n_labels", None)
    if n_labels is not None and n_labels < 1:
        raise ValueError(f"--n-labels {n_labels} is not valid; give the number of trailing label columns (>= 1).")
    return {"labels": labels, "n_labels": n_labels, "xml": getattr(args, "xml", None)}


def _embedded_multilabel(name: str) -> bool:
    from .datasets import list_multilabel_datasets

    return name in list_multilabel_datasets()


def _labels_declared(path) -> bool:
    """Whether an ARFF file names its labels: a MULAN label file beside it or a MEKA ``-C`` tag."""
    from .arff import _meka_label_count, _sibling_label_file

    path = Path(path)
    name = path.name.lower()
    if not path.is_file() or not name.endswith((".arff", ".arff.gz")):
        return False
    if _sibling_label_file(path) is not None:
        return True
    import gzip

    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for _, line in zip(range(1000), fh):
            text = line.strip()
            if text.lower().startswith("@relation"):
                relation = text[len("@relation") :].strip().strip("'\"")
                try:
                    return _meka_label_count(relation) is not None
                except ValueError:
                    return True  # a malformed tag: load_mulan names the problem
    return False


def wants_multilabel(args: argparse.Namespace, specs: Sequence[str]) -> bool:
    """Multilabel mode: labels given, a multilabel classifier named, or data that declares labels.

    A mix of single-label and multilabel classifier specs, or label options with a
    single-label classifier, is refused with the fix.
    """
    options = _label_options(args)
    given = [
        flag
        for flag, key in (("--labels", "labels"), ("--n-labels", "n_labels"), ("--xml", "xml"))
        if options[key] is not None
    ]
    multi = [s for s in specs if is_multilabel_spec(s)]
    single = [s for s in specs if not is_multilabel_spec(s)]
    data = str(getattr(args, "data", ""))
    declared = _labels_declared(data) or (not Path(data).exists() and _embedded_multilabel(data))
    if multi and single:
        raise ValueError(
            f"{', '.join(single)} {'predicts' if len(single) == 1 else 'predict'} one class "
            f"and {', '.join(multi)} a label set; evaluate single-label and multilabel "
            "classifiers separately."
        )
    if multi or given or (declared and not single):
        if single:
            raise ValueError(
                f"{single[0]} is a single-label classifier; for multilabel data "
                f"({', '.join(given) or data}) use one of {multilabel_names_help()}."
            )
        if getattr(args, "target", None) is not None:
            raise ValueError(
                "--class names the target of a single-label classifier; a multilabel "
                "classifier takes its labels from --labels, --n-labels or --xml."
            )
        return True
    return False


def read_multilabel(data: str | os.PathLike, args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Features and 0/1 label matrix of a MULAN/MEKA ARFF file, a CSV file or an embedded data set."""
    from .evaluation.multilabel import load_multilabel_spec

    options = _label_options(args)
    name = str(data).lower()
    if (
        all(v is None for v in options.values())
        and name.endswith((".arff", ".arff.gz"))
        and Path(data).is_file()
        and not _labels_declared(data)
    ):
        raise ValueError(
            f"no labels given for {data}: name them with --labels a,b,..., count the "
            "trailing label columns with --n-labels K, or give the MULAN label file with "
            "--xml FILE (a <stem>.xml beside the ARFF file, or a MEKA '-C K' relation tag, "
            "is found without options)."
        )
    _, X, Y = load_multilabel_spec(data, **options, csv_options=_csv_options(args))
    return _drop_columns(X, data, args), Y


def build_multilabel_model(spec: str, discretize: str | None = None, n_bins: int = 4) -> BaseEstimator:
    """A multilabel classifier from a spec; ``discretize`` (``quantile`` or ``none``) sets its discretizer."""
    from .models import make_multilabel_classifier

    est = make_multilabel_classifier(spec)
    if n_bins != 4:
        raise ValueError(
            f"--bins {n_bins}: multilabel classifiers bin continuous columns in quartiles "
            "(the protocol of Corani et al. 2014); drop --bins."
        )
    if discretize is None:
        return est
    if discretize == "mdl":
        raise ValueError(
            "--discretize mdl needs one class to split on; multilabel classifiers bin "
            "continuous columns in quartiles (--discretize quantile, the default) or "
            "take them as they are (--discretize none)."
        )
    return est.set_params(discretizer="quantile" if discretize == "quantile" else None)


def _is_multilabel_network(est) -> bool:
    from .models.multilabel import MultilabelBNClassifier

    return isinstance(est, MultilabelBNClassifier)


def _refuse_multilabel(est, command: str, networks_ok: bool = False) -> None:
    if is_multilabel_model(est) and not (networks_ok and _is_multilabel_network(est)):
        raise ValueError(
            f"'bnclf {command}' is for single-label models and this is a multilabel "
            f"{type(est).__name__}; use 'bnclf predict' (label sets, --proba marginals) "
            "or 'bnclf query' (MAP and marginal queries)."
        )


def _model_columns(model, X, args):
    """The model's feature columns of the rows (others ignored), and the ``--id`` column."""
    ids = None
    names = getattr(model, "feature_names_in_", None)
    if args.id is not None:
        if args.id not in X.columns:
            raise ValueError(f"--id {args.id!r} is not a column of {args.data}; columns: {shown_names(X.columns)}.")
        ids = X[args.id].to_numpy()
        if names is not None and args.id in list(names):
            warnings.warn(
                f"--id {args.id!r} is also a feature of the model (it was fitted with that column), "
                f"so its values take part in the prediction; refit with --drop {args.id} to leave it out.",
                UserWarning,
                stacklevel=2,
            )
    if names is not None and not set(names) <= set(X.columns):
        lacking = [c for c in names if c not in X.columns]
        raise ValueError(
            f"{args.data} lacks the model's columns {shown_names(lacking)}; the model was "
            f"fitted on {shown_names(names)} (other columns are ignored)."
        )
    if names is not None:
        X = X[list(names)]  # the training columns, in training order; others are ignored
    elif args.id is not None and args.id in X.columns:
        X = X.drop(columns=[args.id])
    return X, ids


def _write_rows(out: pd.DataFrame, args, what: str):
    if args.output:
        out.to_csv(args.output, index=False)
        print(f"wrote {len(out)} {what} -> {args.output}")
    else:
        out.to_csv(sys.stdout, index=False)


# -- subcommands ---------------------------------------------------------------------
def cmd_fit(args: argparse.Namespace) -> None:
    from .io import save_model

    if wants_multilabel(args, [args.model] if args.model else []):
        spec = args.model or "mnb"
        X, Y = read_multilabel(args.data, args)
        model = build_multilabel_model(spec, args.discretize, args.bins).fit(X, Y)
        save_model(model, args.output)
        print(
            f"fitted {spec} on {X.shape[0]} rows x {X.shape[1]} features, {Y.shape[1]} labels "
            f"({', '.join(map(str, Y.columns))}) -> {args.output}"
        )
        return
    spec = args.model or "tan"
    X, y = read_table(args.data, args.target, args)
    model = build_model(spec, args.discretize or "mdl", args.bins).fit(X, y)
    save_model(model, args.output)
    print(f"fitted {spec} on {X.shape[0]} rows x {X.shape[1]} features -> {args.output}")


def _predict_multilabel(model, args):
    X, ids = _model_columns(model, read_features(args.data, args, model), args)
    names = [str(n) for n in model.label_names_]
    out = pd.DataFrame(np.asarray(model.predict(X), dtype=np.int64), columns=names)
    if ids is not None:
        out.insert(0, args.id, ids)
    if args.proba:
        proba = model.predict_proba(X)
        for j, name in enumerate(names):
            out[f"P({name})"] = proba[:, j]
    _write_rows(out, args, "label sets")


def cmd_predict(args: argparse.Namespace) -> None:
    from .io import load_model

    model = load_model(args.model_file)
    if is_multilabel_model(final_estimator(model)):
        return _predict_multilabel(model, args)
    est = final_estimator(model)
    X, ids = _model_columns(model, read_features(args.data, args, model), args)
    out = pd.DataFrame({"prediction": model.predict(X)})
    if ids is not None:
        out.insert(0, args.id, ids)
    if args.proba:
        proba = model.predict_proba(X)
        for j, label in enumerate(est.classes_):
            out[f"P({label})"] = proba[:, j]
    _write_rows(out, args, "predictions")


def _given(values, model) -> dict:
    """``--given name=0|1`` options as ``{name: 0 or 1}``."""
    given: dict[Hashable, int] = {}
    for item in values or []:
        name, sep, value = item.rpartition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise ValueError(f"--given {item!r} is not valid; write --given LABEL=0 or --given LABEL=1.")
        if name not in map(str, model.label_names_):
            raise ValueError(
                f"--given {item!r}: unknown label {name!r}; the labels are {', '.join(map(str, model.label_names_))}."
            )
        if value not in ("0", "1"):
            raise ValueError(f"--given {item!r}: a label is observed as 0 or 1, not {value!r}.")
        label = next(n for n in model.label_names_ if str(n) == name)
        if label in given and given[label] != int(value):
            raise ValueError(f"--given gives {name!r} twice, as {given[label]} and {value}.")
        given[label] = int(value)
    return given


def cmd_query(args: argparse.Namespace) -> None:
    from .io import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    if not is_multilabel_model(est):
        raise ValueError(
            f"'bnclf query' asks a multilabel Bayesian network about its labels and "
            f"{type(est).__name__} predicts one class; use 'bnclf predict' (--proba for "
            "the class probabilities)."
        )
    if not hasattr(est, "map_query"):
        raise ValueError(
            f"{type(est).__name__} answers no MAP or marginal queries (it is not one "
            "network); use 'bnclf predict' (--proba for the marginals), or fit mnb, mfan "
            "or bn-ensemble for queries."
        )
    labels = None
    if args.labels is not None:
        labels = [name.strip() for name in args.labels.split(",") if name.strip()]
        if not labels:
            raise ValueError("--labels is empty; give label names separated by commas.")
        by_text = {str(n): n for n in est.label_names_}
        unknown = [name for name in labels if name not in by_text]
        if unknown:
            raise ValueError(f"--labels: unknown label {unknown[0]!r}; the labels are {', '.join(by_text)}.")
        labels = [by_text[name] for name in labels]
    given = _given(args.given, est)
    X, ids = _model_columns(model, read_features(args.data, args, model), args)
    if args.map:
        out = est.map_query(X, labels=labels, given=given).astype(np.int64)
        what = "MAP answers"
    else:
        out = est.marginal_query(X, labels=labels, given=given)
        out.columns = [f"P({name})" for name in out.columns]
        what = "marginal answers"
    out.columns = [str(c) for c in out.columns]
    if ids is not None:
        out.insert(0, args.id, ids)
    _write_rows(out.reset_index(drop=True), args, what)


@overload
def cross_validate_models(
    X: pd.DataFrame,
    y: ArrayLike,
    specs: Sequence[str],
    *,
    n_splits: int = ...,
    discretize: str = ...,
    n_bins: int = ...,
    seed: int = ...,
    progress: bool = ...,
    metrics: Sequence[str] = ...,
    return_cv: Literal[False] = ...,
    n_jobs: int | None = ...,
) -> pd.DataFrame: ...
@overload
def cross_validate_models(
    X: pd.DataFrame,
    y: ArrayLike,
    specs: Sequence[str],
    *,
    n_splits: int = ...,
    discretize: str = ...,
    n_bins: int = ...,
    seed: int = ...,
    progress: bool = ...,
    metrics: Sequence[str] = ...,
    return_cv: Literal[True],
    n_jobs: int | None = ...,
) -> tuple[pd.DataFrame, dict[str, CVPredictions]]: ...


def cross_validate_models(
    X: pd.DataFrame,
    y: ArrayLike,
    specs: Sequence[str],
    *,
    n_splits: int = 10,
    discretize: str = "mdl",
    n_bins: int = 4,
    seed: int = 0,
    progress: bool = True,
    metrics: Sequence[str] = ("accuracy",),
    return_cv: bool = False,
    n_jobs: int | None = 1,
) -> pd.DataFrame | tuple[pd.DataFrame, dict[str, CVPredictions]]:
    """Stratified k-fold scores of each model spec, by the evaluation harness's protocol.

    The folds are those of :func:`bnclf.evaluation.make_cv_splits` with ``seed`` (the
    same as ``bnclf compare``); a discretizer, when the data has float columns, is fitted
    on each training fold only, once for all the models
    (:func:`bnclf.evaluation.cross_validate_many`). ``metrics`` are fold metrics of the harness
    (``accuracy``, ``log_loss``, ``auc``), averaged over the folds; the standard
    deviation is the accuracy's. With ``return_cv`` also returns ``{spec: CVPredictions}``
    (the out-of-fold predictions and probabilities).
    """
    from .evaluation.protocols import cross_validate_many, make_cv_splits
    from .models import make_classifier

    needs_disc = any(pd.api.types.is_float_dtype(X[c]) for c in X.columns)
    discretizer = _discretizer(discretize, n_bins) if needs_disc else None
    splits = make_cv_splits(np.asarray(y), n_splits=n_splits, random_state=seed)
    estimators = [make_classifier(spec) for spec in specs]  # every spec checked before any fold runs
    results = cross_validate_many(
        estimators, X, y, splits=splits, discretizer=discretizer, progress=progress, contexts=specs, n_jobs=n_jobs
    )
    rows, cvs = [], {}
    for spec, cv in zip(specs, results):
        cvs[spec] = cv
        scores = cv.fold_scores(tuple(dict.fromkeys(("accuracy",) + tuple(metrics))))
        row = {"model": spec, "accuracy": scores["accuracy"].mean(), "std": scores["accuracy"].std(ddof=0)}
        row.update({m: scores[m].mean() for m in metrics if m != "accuracy"})
        row.update({"fit_s": cv.folds["fit_time"].sum(), "predict_s": cv.folds["predict_time"].sum()})
        rows.append(row)
    table = pd.DataFrame(rows)
    return (table, cvs) if return_cv else table


def per_class_report(cv: CVPredictions) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pooled out-of-fold confusion matrix and per-class precision, recall, F1 and support."""
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    pred = cv.predictions
    labels = list(cv.classes)
    matrix = confusion_matrix(pred["y_true"], pred["y_pred"], labels=labels)
    names = [str(c) for c in labels]
    confusion = pd.DataFrame(matrix, index=pd.Index(names, name="true"), columns=pd.Index(names, name="predicted"))
    p, r, f, n = precision_recall_fscore_support(pred["y_true"], pred["y_pred"], labels=labels, zero_division=0)
    per_class = pd.DataFrame({"precision": p, "recall": r, "f1": f, "support": n}, index=pd.Index(names, name="class"))
    return confusion, per_class


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


def evaluate_multilabel(
    X: ArrayLike | pd.DataFrame,
    Y: ArrayLike | pd.DataFrame,
    specs: Sequence[str],
    *,
    n_splits: int = 5,
    seed: int = 0,
    discretize: str | None = None,
    n_bins: int = 4,
    progress: bool = True,
    n_jobs: int | None = 1,
) -> pd.DataFrame:
    """Cross-validated scores of multilabel classifier specs: one row per spec (means over folds).

    The folds are stratified on the least relevant label
    (:func:`bnclf.evaluation.multilabel.multilabel_fold_scores`); columns ``model``,
    global and Hamming accuracy with their standard deviations, the rate of empty
    predictions, the same with empty predictions allowed (Bayesian networks), the mean
    treewidth and number of selected features, and the total ``fit_s`` and ``predict_s``.
    """
    from .evaluation.multilabel import multilabel_fold_scores, summarize_multilabel

    estimators = {spec: build_multilabel_model(spec, discretize, n_bins) for spec in specs}
    cv = multilabel_fold_scores(
        estimators, X, Y, n_splits=n_splits, random_state=seed, progress=progress, n_jobs=n_jobs
    )
    table = (
        summarize_multilabel(cv)
        .reset_index()
        .rename(columns={"classifier": "model", "fit_time": "fit_s", "predict_time": "predict_s"})
    )
    table.attrs = dict(cv.attrs)
    return table


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
        progress=not args.no_progress,
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
        table.to_csv(args.output, index=False)


def cmd_evaluate(args: argparse.Namespace) -> None:
    from .evaluation.cli import _split_top_level

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
        progress=not args.no_progress,
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
        table.to_csv(args.output, index=False)
    if args.predictions:
        frames = []
        for spec, cv in cvs.items():
            pred = cv.predictions[["row", "fold", "y_true", "y_pred"]].copy()
            pred.insert(0, "model", spec)
            for j, label in enumerate(cv.classes):
                pred[f"P({label})"] = cv.proba[:, j]
            frames.append(pred)
        pd.concat(frames, ignore_index=True).to_csv(args.predictions, index=False)
        print(f"wrote the out-of-fold predictions of {len(cvs)} model(s) -> {args.predictions}")


def cmd_export(args: argparse.Namespace) -> None:
    from .io import load_model, write_network

    est = final_estimator(load_model(args.model_file))
    _refuse_multilabel(est, "export", networks_ok=True)
    path = write_network(est, args.output, fmt=args.format)
    if path.name.endswith(".manifest.json"):
        print(
            f"wrote {len(est.network_members())} member networks and the manifest {path}, "
            "each verified by reading it back"
        )
    else:
        print(f"wrote {path} (+ name map {path}.names.json), verified by reading it back")


def cmd_plot(args: argparse.Namespace) -> None:
    from .io import load_model
    from .plot import save_structure_png

    est = final_estimator(load_model(args.model_file))
    _refuse_multilabel(est, "plot", networks_ok=True)
    if _is_multilabel_network(est):
        import matplotlib.pyplot as plt

        from .plot import draw_multilabel

        features = [f.strip() for f in args.features.split(",")] if args.features else None
        fig = draw_multilabel(est, features=features, max_features=args.max_features, title=args.title)
        fig.savefig(args.output, dpi=120, bbox_inches="tight")
        plt.close(fig)
        print(f"wrote {args.output}")
        return
    if args.trace:
        import matplotlib.pyplot as plt

        from .plot import draw_search_trace

        if not hasattr(est, "search_trace_"):
            raise ValueError(
                f"--trace: {type(est).__name__} has no structure search; it is "
                "for rmcv, rmho, hc, bnc-mdl and bnc-2p models."
            )
        axes = draw_search_trace(est, title=args.title)
        axes[0].figure.savefig(args.output, dpi=120, bbox_inches="tight")
        plt.close(axes[0].figure)
        print(f"wrote {args.output}")
        return
    features = [f.strip() for f in args.features.split(",")] if args.features else None
    save_structure_png(
        est,
        args.output,
        title=args.title,
        features=features,
        markov_blanket_only=args.markov_blanket_only,
        max_features=args.max_features,
    )
    print(f"wrote {args.output}")


def cpt_table(net: Network, node: Hashable) -> pd.DataFrame:
    """The CPT of ``node`` as probabilities: one row per state, one column per parent
    configuration (a MultiIndex over the parents, in CPT axis order)."""
    families = net.named_families
    if node not in families:
        raise ValueError(f"no node {node!r} in this network; nodes: {list(families)}.")
    parents = families[node]
    table = np.exp(net.named_log_cpts[node])
    states = net.categories
    rows = pd.Index([str(s) for s in states[node]], name=str(node))
    if not parents:
        return pd.DataFrame({"P": table}, index=rows)
    columns = pd.MultiIndex.from_product(
        [[str(s) for s in states[p]] for p in parents], names=[str(p) for p in parents]
    )
    return pd.DataFrame(table.reshape(len(rows), -1), index=rows, columns=columns)


def network_dot(net: Network) -> str:
    """The network in Graphviz DOT (the class node, if any, drawn as a box)."""

    def quote(v):
        return '"' + str(v).replace('"', r"\"") + '"'

    lines = [f"digraph {quote(net.title or 'bnclf')} {{", "  rankdir=TB;"]
    if net.has_class:
        lines.append(f'  {quote(net.class_name)} [shape=box, style=filled, fillcolor="#d62728", fontcolor=white];')
    for child, parents in net.named_families.items():
        lines.append(f"  {quote(child)};")
        lines.extend(f"  {quote(p)} -> {quote(child)};" for p in parents)
    lines.append("}")
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> None:
    from .io import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    _refuse_multilabel(est, "show")
    try:
        members = est.network_members()
    except ValueError as exc:  # an instance-specific model with no network in advance
        members, no_network = [], str(exc)
    if args.member is not None:
        keys = [str(k) for k, _ in members]
        if keys == ["None"]:
            raise ValueError(
                f"{type(est).__name__} has one network; --member picks a member of "
                "an ensemble (a position) or a multinet (a class label)."
            )
        if args.member not in keys:
            raise ValueError(f"--member {args.member!r} is not one of {keys}.")
        members = [m for m in members if str(m[0]) == args.member]
    for node in args.cpt or []:
        for _, net in members:
            if node not in net.named_families:
                raise ValueError(f"--cpt {node!r}: no such node; nodes: {list(net.named_families)}.")
    if args.dot:
        if not members:
            raise ValueError(no_network)
        print("\n".join(network_dot(net) for _, net in members))
        return
    params = ", ".join(f"{k}={v!r}" for k, v in sorted(est.get_params().items()))
    print(f"{type(est).__name__}({params})")
    print(f"classes ({len(est.classes_)}): {', '.join(map(str, est.classes_))}")
    print(f"features ({est.n_features_in_}): {', '.join(map(str, est._encoder.feature_names_))}")
    for _, step in model.steps[:-1] if hasattr(model, "steps") else []:
        cuts = getattr(step, "cut_points_", None)
        if not cuts:
            continue
        print(f"cut points ({type(step).__name__}):")
        for column, points in cuts.items():
            shown = ", ".join(f"{p:.6g}" for p in points) if len(points) else "(none: one bin)"
            print(f"  {column}: {shown}")
    if not members:
        print(no_network)
        return
    for key, net in members:
        if key is not None or net.title:
            print(f"\n[{net.title or key}]" + (f" (member {key})" if key is not None else ""))
        print("structure (child <- parents):")
        for child, parents in net.named_families.items():
            print(f"  {child} <- {', '.join(map(str, parents)) if parents else '(no parents)'}")
        if net.has_class:
            blanket = markov_blanket(net.dag, net.class_name)
            print(f"  Markov blanket of {net.class_name} ({len(blanket)}): {', '.join(map(str, blanket))}")
        for node in args.cpt or []:
            given = ", ".join(map(str, net.named_families[node])) or "-"
            print(f"\n  P({node} | {given})")
            print(cpt_table(net, node).round(4).to_string(line_width=120))  # wide tables in blocks


def cmd_explain(args: argparse.Namespace) -> None:
    from .io import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    _refuse_multilabel(est, "explain")
    if not hasattr(est, "explain"):
        raise ValueError(
            f"{type(est).__name__} builds one structure for all rows; 'bnclf explain' is for the "
            "instance-specific classifiers (lkdb, akdb, ltan, targetkdb). Use 'bnclf plot'."
        )
    X = read_features(args.data, args, model)
    names = list(getattr(model, "feature_names_in_", est.feature_names_in_))
    missing = [c for c in names if c not in X.columns]
    if missing:
        raise ValueError(f"{args.data} lacks the model's columns {missing}.")
    if not 0 <= args.row < len(X):
        raise ValueError(f"--row {args.row} is not a row of {args.data} (it has {len(X)} rows; rows count from 0).")
    row = X[names].iloc[[args.row]]
    if hasattr(model, "steps"):
        row = model[:-1].transform(row)
    explanation = est.explain(row)
    print(explanation)
    if args.plot:
        import matplotlib

        from .plot import draw_explanation

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        axes = draw_explanation(explanation)
        fig = axes.flat[0].figure
        fig.savefig(args.plot, dpi=110)
        plt.close(fig)
        print(f"wrote {args.plot}")


def cmd_demo(args: argparse.Namespace) -> None:
    from .datasets import load_dataset
    from .io import write_network
    from .plot import save_structure_png

    X, y = load_dataset(args.dataset)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    table = cross_validate_models(X, y, ["nb", "tan", "kdb"], n_splits=args.folds, seed=args.seed)
    _print_table(
        table,
        f"{args.folds}-fold stratified CV on the embedded {args.dataset!r} data "
        f"({X.shape[0]} rows, {X.shape[1]} features, {y.nunique()} classes)",
    )
    table.to_csv(out / "cv_results.csv", index=False)
    model = build_model("tan").fit(X, y)
    tan = final_estimator(model)
    png = save_structure_png(tan, out / "tan_structure.png", title=f"TAN on {args.dataset}")
    xml = write_network(tan, out / "tan.xmlbif")
    print(f"TAN structure -> {png}\nTAN network   -> {xml} (verified by reading it back)")


# -- parser -----------------------------------------------------------------------------
def _add_model_options(p):
    from .models.registry import classifier_names_help

    p.add_argument(
        "--model",
        help=f"classifier spec: one of {classifier_names_help()}, or with parameters "
        "e.g. 'kdb(k=3)', 'kdb(k=3, m=5)' (m: the m-estimate's weight, default 1), 'etan(k=2)', "
        "'aode(smoothing=\"weka\")' (default: tan); "
        f"multilabel: one of {multilabel_names_help()}, e.g. 'mfan(alpha=2)' "
        "(default: mnb)",
    )
    _add_discretize_options(p)


def _add_label_options(p):
    p.add_argument(
        "--labels", metavar="A,B,...", help="multilabel data: the 0/1 label columns, by name (comma-separated)"
    )
    p.add_argument(
        "--n-labels", type=int, metavar="K", help="multilabel data: the last K columns are the labels (MULAN's layout)"
    )
    p.add_argument(
        "--xml",
        metavar="FILE",
        help="multilabel data: a MULAN XML file naming the labels of an ARFF file (a "
        "sibling <stem>.xml and a MEKA '-C K' relation tag are found without options)",
    )


def _add_csv_options(p):
    p.add_argument(
        "--no-header", action="store_true", help="the CSV file has no header line (columns x1.., the last 'class')"
    )
    p.add_argument("--sep", help="CSV column separator (default: sniffed), e.g. ';' or '\\t'")
    p.add_argument(
        "--names",
        help="comma-separated column names for the CSV file (they replace its header line; "
        "with --no-header they name its columns)",
    )
    p.add_argument(
        "--drop",
        metavar="A,B,...",
        help="feature columns to leave out, e.g. an identifier (comma-separated); at predict "
        "time columns the model was not fitted on are ignored",
    )


def _add_discretize_options(p):
    p.add_argument(
        "--discretizer",
        "--discretize",
        dest="discretize",
        choices=["mdl", "quantile", "none"],
        help="discretizer for continuous columns, fitted on training rows only "
        "(default: mdl; multilabel classifiers: quantile, the quartiles)",
    )
    p.add_argument("--bins", type=int, default=4, help="bins for --discretize quantile")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one ``bnclf: error:`` line (exit status 2)
    that points to the command's ``--help``, like every other error of the command line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"bnclf: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bnclf",
        description="Bayesian network classifiers on pgmpy: single-label (NB, TAN, KDB, AODE, ..., RMCV) "
        "and multilabel (mNB, mFAN, the BN ensemble).",
    )
    parser.add_argument("--version", action="version", version=f"bnclf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from .datasets import list_multilabel_datasets

    embedded_multilabel = ", ".join(list_multilabel_datasets())

    p = sub.add_parser("fit", help="fit a classifier on a CSV/ARFF file and save it")
    p.add_argument(
        "data", help=f"training data (.csv or .arff[.gz]), or an embedded multilabel data set ({embedded_multilabel})"
    )
    p.add_argument("--class", dest="target", help="target column (default: the last column)")
    p.add_argument("-o", "--output", default="model.bnclf", help="model file (default: %(default)s)")
    _add_model_options(p)
    _add_label_options(p)
    _add_csv_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("predict", help="predict with a saved model")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("data", help="rows to classify (.csv or .arff); extra columns are ignored")
    p.add_argument("-o", "--output", help="CSV file for predictions (default: standard output)")
    p.add_argument(
        "--proba",
        action="store_true",
        help="also write class probabilities (multilabel: P(label), the marginal "
        "probability that each label is relevant)",
    )
    p.add_argument(
        "--id",
        help="a column of the rows to copy into the output (an identifier); it is a feature only if "
        "the model was fitted with it (fit --drop COLUMN leaves it out)",
    )
    _add_csv_options(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser(
        "query",
        help="MAP or marginal queries over the labels of a multilabel "
        "network (mnb, mfan, bn-ensemble), with observed labels",
    )
    p.add_argument("model_file", help="multilabel model written by 'bnclf fit'")
    p.add_argument("data", help="rows (.csv or .arff) with the model's feature columns; extra columns are ignored")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--map",
        action="store_true",
        help="the most probable joint configuration of the queried labels (0/1; other free labels summed out)",
    )
    what.add_argument("--marginal", action="store_true", help="P(label = 1) of each queried label")
    p.add_argument(
        "--labels", metavar="A,B,...", help="labels to query (default: every label; for --map every label not given)"
    )
    p.add_argument(
        "--given",
        action="append",
        metavar="LABEL=0|1",
        help="an observed label (repeatable), e.g. --given happy=1 --given sad=0",
    )
    p.add_argument("-o", "--output", help="CSV file for the answers (default: standard output)")
    p.add_argument("--id", help="a column of the rows to copy into the output (an identifier)")
    _add_csv_options(p)
    p.set_defaults(func=cmd_query)

    p = sub.add_parser(
        "evaluate", help="k-fold stratified cross-validation accuracy (multilabel: global and Hamming accuracy)"
    )
    p.add_argument(
        "data", help=f"data (.csv or .arff[.gz]), or an embedded multilabel data set ({embedded_multilabel})"
    )
    p.add_argument("--class", dest="target", help="target column (default: the last column)")
    p.add_argument(
        "--models",
        help='comma-separated classifier specs, e.g. "nb,tan(m=0),kdb(k=3, m=5)" (default: nb,tan,kdb; '
        "multilabel: mnb,mfan,br,ecc)",
    )
    p.add_argument(
        "--folds", type=int, help="number of folds (default: 10; multilabel: 5, stratified on the least relevant label)"
    )
    p.add_argument("--seed", type=int, default=0, help="shuffling seed (default: %(default)s)")
    p.add_argument("-o", "--output", help="CSV file for the results table")
    p.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="parallel jobs over folds; -1 = all cores (default: 1)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--predictions",
        help="CSV file for every out-of-fold prediction and its class probabilities (one row per model and row)",
    )
    p.add_argument("--brief", action="store_true", help="only the table: no confusion matrix or per-class scores")
    _add_discretize_options(p)
    _add_label_options(p)
    _add_csv_options(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("export", help="write a saved model as BIF or XMLBIF")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("-o", "--output", required=True, help="target file (.bif, .xmlbif or .xml)")
    p.add_argument("--format", choices=["bif", "xmlbif"], help="format (default: from the suffix)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("plot", help="draw a saved model's structure as PNG")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("-o", "--output", default="structure.png", help="PNG file (default: %(default)s)")
    p.add_argument("--title", help="figure title")
    p.add_argument("--features", help="comma-separated features to draw (default: all)")
    p.add_argument("--markov-blanket-only", action="store_true", help="draw only the class's Markov blanket")
    p.add_argument("--max-features", type=int, help="draw at most this many features, the most connected first")
    p.add_argument(
        "--trace",
        action="store_true",
        help="draw the structure search (score per accepted move) of an rmcv, "
        "rmho, hc, bnc-mdl or bnc-2p model instead",
    )
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser(
        "show", help="print a saved model: structure, Markov blanket, cut points, CPTs (--cpt), Graphviz (--dot)"
    )
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument(
        "--cpt", action="append", metavar="NODE", help="also print the CPT of NODE as a labelled table (repeatable)"
    )
    p.add_argument("--dot", action="store_true", help="print the network(s) in Graphviz DOT")
    p.add_argument("--member", help="only this member of an ensemble or multinet (its position, or its class label)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser(
        "explain", help="show the networks an instance-specific model (lkdb, akdb, ltan, targetkdb) builds for one row"
    )
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("data", help="rows (.csv or .arff) with the model's feature columns")
    p.add_argument("--row", type=int, default=0, help="row to explain, from 0 (default: 0)")
    p.add_argument("--plot", help="also draw the networks side by side into this PNG")
    _add_csv_options(p)
    p.set_defaults(func=cmd_explain)

    from .datasets import DEFAULT_DATASET, list_datasets

    p = sub.add_parser(
        "demo", help="10-fold CV of NB, TAN and KDB on an embedded data set; TAN drawn as PNG and written as XMLBIF"
    )
    p.add_argument(
        "--dataset", default=DEFAULT_DATASET, choices=list_datasets(), help="embedded data set (default: %(default)s)"
    )
    p.add_argument("--folds", type=int, default=10, help="number of folds (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="shuffling seed (default: %(default)s)")
    p.add_argument(
        "-o", "--output", default="bnclf-demo", help="folder for the PNG, XMLBIF and results (default: %(default)s)"
    )
    p.set_defaults(func=cmd_demo)

    try:
        from .evaluation.cli import add_compare_subparser
    except ImportError:  # the evaluation harness is optional at import time
        pass
    else:
        add_compare_subparser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int | None:
    """Run the command line; user errors end with ``bnclf: error: ...`` and exit status 2.

    Returns the exit status: 2 after a user error, 0 on a broken pipe, otherwise what the
    command returns (None for success, the status of ``compare``).
    """
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = functools.partial(_show_warning, shown=set())  # one line each, once
        try:
            return args.func(args)
        except (ValueError, TypeError, KeyError, RuntimeError, OSError, MemoryError) as exc:
            if isinstance(exc, BrokenPipeError):  # e.g. `bnclf predict ... | head`
                sys.stderr.close()
                return 0
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            if type(exc) is MemoryError:  # not a sized table (TableTooLargeError names its columns)
                message = (
                    f"out of memory{f' ({message})' if str(message) else ''}; use fewer rows or "
                    "columns, a lower k or max_parents, or discretize many-valued columns."
                )
            print(f"bnclf: error: {message}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("bnclf: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:  # a defect, not a user error: one line unless asked for the traceback
            if os.environ.get("BNCLF_TRACEBACK"):
                raise
            print(
                f"bnclf: error: internal error: {type(exc).__name__}: {exc} (set BNCLF_TRACEBACK=1 to see "
                "where; please report it with the command that caused it)",
                file=sys.stderr,
            )
            return 2


def _show_warning(message, category, filename, lineno, file=None, line=None, *, shown: set[str]) -> None:
    """Warnings as one line each, ``bnclf: warning: ...`` (the library's own and its
    dependencies'), without the Python source location, each text once per command
    (``predict --proba`` codes the rows for the labels and for the probabilities)."""
    text = str(message)
    if text in shown:
        return
    shown.add(text)
    print(f"bnclf: warning: {text}", file=sys.stderr if file is None else file)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
