"""``bnclf predict`` and ``bnclf query``: labels, probabilities and multilabel queries for
the rows of a file."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Hashable

import numpy as np
import pandas as pd

from bnclf.cli._common import _model_columns, _write_rows, final_estimator, is_multilabel_model, read_features


def _with_ids(out: pd.DataFrame, args: argparse.Namespace, ids) -> pd.DataFrame:
    """``out`` with the ``--id`` column first; an identifier named like an output column
    is refused rather than written as a second column of that name."""
    if ids is None:
        return out
    if str(args.id) in map(str, out.columns):
        raise ValueError(
            f"--id {args.id!r} has the name of an output column ({', '.join(map(repr, map(str, out.columns)))}); "
            "rename that column of the rows (e.g. --names), or leave --id out."
        )
    out.insert(0, args.id, ids)
    return out


def _absent_as_empty(model, rows: pd.DataFrame, args: argparse.Namespace) -> pd.DataFrame:
    """``rows`` with the model's feature columns that it lacks added as empty columns (every
    value missing), with a warning naming them: each is then summed out as a missing cell is
    (or is its ``<missing>`` state if training had one), for a bare model and a pipeline
    alike. The predictions are those of the file with those columns present and empty. A
    file with none of the model's columns is refused (a ValueError naming both sets)."""
    from bnclf.encoding._frames import shown_names

    names = getattr(model, "feature_names_in_", None)
    lacking = [] if names is None else [c for c in names if c not in rows.columns]
    if not lacking:
        return rows
    if len(lacking) == len(names):  # none of them: most likely another file than meant
        raise ValueError(
            f"{args.data} has none of the model's columns {shown_names(lacking)} (its columns: "
            f"{shown_names(list(rows.columns))}); give a file with the columns the model was fitted on."
        )
    warnings.warn(
        f"{args.data} lacks the model's columns {shown_names(lacking)}; they are predicted as empty "
        "columns (every value missing, summed out as a missing cell is).",
        UserWarning,
        stacklevel=2,
    )
    return pd.concat([rows, pd.DataFrame(np.nan, index=rows.index, columns=lacking)], axis=1)


def _say(text: str, args: argparse.Namespace) -> None:
    """A line about the predictions: on standard output after ``wrote ...``, or on standard
    error when the predictions themselves go to standard output (so they stay a CSV file)."""
    print(text, file=sys.stdout if args.output else sys.stderr)


def _report_multilabel_accuracy(est, rows: pd.DataFrame, predicted: np.ndarray, args) -> None:
    """Global and Hamming accuracy when the rows carry every label column of the model."""
    names = list(est.label_names_)
    present = [n for n in names if n in rows.columns]
    if len(present) < len(names):
        if args.output:
            lacking = (
                "its label columns" if not present else f"the label columns {[n for n in names if n not in present]}"
            )
            _say(
                f"(the rows lack {lacking}; with them predict also prints the global and Hamming accuracy, "
                "and 'bnclf evaluate TRAIN --test TEST' the full report)",
                args,
            )
        return
    from bnclf.models._multilabel import as_label_matrix

    truth, _ = as_label_matrix(rows[names])
    same = truth == (np.asarray(predicted) != 0)  # the measures of bnclf.evaluation, without importing it
    _say(
        f"on the {len(truth)} rows, which have the labels: global accuracy {same.all(axis=1).mean():.4f}, "
        f"Hamming accuracy {same.mean():.4f}",
        args,
    )


def _report_accuracy(est, rows: pd.DataFrame, predicted: np.ndarray, args) -> None:
    """The accuracy on the rows whose class column (named as in training) is known; how to get
    it when the rows have no such column."""
    name = getattr(est, "class_name_", None)
    if name is None or name not in rows.columns or name in getattr(est, "feature_names_in_", ()):
        if args.output and name is not None:
            _say(
                f"(the rows have no {name!r} column; with it predict also prints the accuracy, and 'bnclf "
                "evaluate TRAIN --test TEST' the full report: log loss, AUC, kappa, confusion matrix)",
                args,
            )
        return
    truth = rows[name].to_numpy(dtype=object)
    known = ~pd.isna(truth)
    classes = set(est.classes_.tolist())
    by_text = {str(c): c for c in classes}
    # a class read back from text (e.g. 1 from a CSV file for a class fitted as "1") is that class
    truth = np.array([t if t in classes or str(t) not in by_text else by_text[str(t)] for t in truth], dtype=object)
    n = int(known.sum())
    if n == 0:
        _say(f"(the {name!r} column of the rows is empty: no accuracy)", args)
        return
    right = int((truth[known] == np.asarray(predicted, dtype=object)[known]).sum())
    unknown = sorted({str(t) for t in truth[known] if t not in classes})
    note = (
        f"; {len(unknown)} class value(s) the model does not know, counted as errors: {unknown[:5]}" if unknown else ""
    )
    missing = f" ({len(truth) - n} rows without a class left out)" if n < len(truth) else ""
    _say(f"accuracy on the {n} rows with a {name!r} value{missing}: {right / n:.4f} ({right} of {n}){note}", args)


def _predict_multilabel(model, args):
    rows = _absent_as_empty(model, read_features(args.data, args, model), args)
    X, ids = _model_columns(model, rows, args)
    names = [str(n) for n in model.label_names_]
    predicted = np.asarray(model.predict(X), dtype=np.int64)
    out = pd.DataFrame(predicted, columns=names)
    if args.proba:
        proba = model.predict_proba(X)
        for j, name in enumerate(names):
            out[f"P({name})"] = proba[:, j]
    _write_rows(_with_ids(out, args, ids), args, "label sets")
    _report_multilabel_accuracy(final_estimator(model), rows, predicted, args)


def cmd_predict(args: argparse.Namespace) -> None:
    from bnclf.io._models import load_model

    model = load_model(args.model_file)
    if is_multilabel_model(final_estimator(model)):
        return _predict_multilabel(model, args)
    est = final_estimator(model)
    rows = _absent_as_empty(model, read_features(args.data, args, model), args)
    X, ids = _model_columns(model, rows, args)
    predicted = model.predict(X)
    out = pd.DataFrame({"prediction": predicted})
    if args.proba:
        proba = model.predict_proba(X)
        for j, label in enumerate(est.classes_):
            out[f"P({label})"] = proba[:, j]
    _write_rows(_with_ids(out, args, ids), args, "predictions")
    _report_accuracy(est, rows, np.asarray(predicted), args)


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
    from bnclf.io._models import load_model

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
    _write_rows(_with_ids(out.reset_index(drop=True), args, ids), args, what)
