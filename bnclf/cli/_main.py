"""The ``bnclf`` argument parser and its entry point: one subcommand per module of
:mod:`bnclf.cli`, usage errors as one line pointing to ``--help``."""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import NoReturn

from bnclf._config import TableTooLargeError
from bnclf._version import __version__
from bnclf.cli._common import (
    HelpFormatter,
    Subparsers,
    _add_csv_options,
    _add_discretize_options,
    _add_label_options,
    _add_model_options,
    check_command_files,
    stdout_name,
)
from bnclf.cli._compare import add_compare_subparser, add_verbose_option
from bnclf.cli._imports import defer_unused


def _command(module: str, name: str) -> Callable[[argparse.Namespace], int | None]:
    """The function ``name`` of ``bnclf.cli.<module>``, imported when the command runs: each
    command loads only what it needs (``--help`` and ``--version`` load none of them)."""

    def run(args: argparse.Namespace) -> int | None:
        return getattr(importlib.import_module(f"bnclf.cli.{module}"), name)(args)

    run.__name__ = run.__qualname__ = name
    return run


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one ``bnclf: error:`` line (exit status 2)
    that points to the command's ``--help``, like every other error of the command line."""

    def __init__(self, *args, formatter_class: type[argparse.HelpFormatter] = HelpFormatter, **kwargs) -> None:
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"bnclf: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``bnclf`` parser: ``--version`` and one subparser per command, in the order
    ``--help`` lists them; each parsed namespace carries ``func``, the command to run."""
    from bnclf.datasets import list_multilabel_datasets

    parser = _Parser(
        prog="bnclf",
        description="Bayesian network classifiers on pgmpy: single-label (NB, TAN, KDB, AODE, ..., RMCV) "
        "and multilabel (mNB, mFAN, the BN ensemble).",
    )
    parser.add_argument("--version", action="version", version=f"bnclf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    embedded_multilabel = ", ".join(list_multilabel_datasets())
    _add_fit(sub, embedded_multilabel)
    _add_predict(sub)
    _add_query(sub)
    _add_evaluate(sub, embedded_multilabel)
    _add_export(sub)
    _add_plot(sub)
    _add_show(sub)
    _add_explain(sub)
    _add_demo(sub)
    add_compare_subparser(sub)
    return parser


def _add_fit(sub: Subparsers, embedded_multilabel: str) -> None:
    """``bnclf fit DATA``: fit one classifier and save it as a model file."""
    p = sub.add_parser("fit", help="fit a classifier on a CSV/ARFF file and save it")
    p.add_argument(
        "data", help=f"training data (.csv or .arff[.gz]), or an embedded multilabel data set ({embedded_multilabel})"
    )
    p.add_argument("--class", dest="target", help="target column (default: the last column)")
    p.add_argument("-o", "--output", default="model.bnclf", help="model file (default: %(default)s)")
    p.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="seed of a model that searches at random (rmcv, rmho, hc, bnc-mdl, bnc-2p, ecc: its random_state); "
        "without it a seed is drawn, used and kept in the model file ('bnclf show' prints it), so that "
        "--seed N fits the same model again",
    )
    _add_model_options(p)
    add_verbose_option(p)
    _add_label_options(p)
    _add_csv_options(p)
    p.set_defaults(func=_command("_fit", "cmd_fit"))


def _add_predict(sub: Subparsers) -> None:
    """``bnclf predict MODEL DATA``: a saved model's predictions (and accuracy) on rows."""
    p = sub.add_parser(
        "predict",
        help="predict with a saved model (and its accuracy when the rows have the class column)",
        description="Predict the rows of a file with a saved model. When the rows also have the model's "
        "class column (multilabel: its label columns), the accuracy on them is printed too (standard "
        "error when the predictions go to standard output); 'bnclf evaluate TRAIN --test TEST' prints "
        "the full report (log loss, AUC, kappa, confusion matrix, per-class scores).",
    )
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument(
        "data", help="rows to classify (.csv or .arff); extra columns are ignored, except the class column (accuracy)"
    )
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
    p.set_defaults(func=_command("_predict", "cmd_predict"))


def _add_query(sub: Subparsers) -> None:
    """``bnclf query MODEL DATA``: MAP or marginal queries over a multilabel network's labels."""
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
    p.set_defaults(func=_command("_predict", "cmd_query"))


def _add_evaluate(sub: Subparsers, embedded_multilabel: str) -> None:
    """``bnclf evaluate DATA``: cross-validation, or a test file, of one or more classifiers."""
    p = sub.add_parser(
        "evaluate",
        help="k-fold stratified cross-validation, or a test file (--test): accuracy, log loss, AUC, kappa, "
        "confusion matrix, per-class scores (multilabel: global and Hamming accuracy)",
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
        "--test",
        metavar="TEST",
        help="fit each model on DATA and score it on the rows of TEST instead of cross-validating (Weka's "
        "-t/-T); TEST has DATA's columns (multilabel: its labels), coded as the model fitted on DATA "
        "codes them (values training never saw are summed out); not with --folds or --jobs",
    )
    p.add_argument(
        "--folds", type=int, help="number of folds (default: 10; multilabel: 5, stratified on the least relevant label)"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the fold shuffle and of the models that search at random (rmcv, rmho, hc, bnc-mdl, "
        "bnc-2p, ecc), unless their spec sets random_state (default: %(default)s)",
    )
    p.add_argument("-o", "--output", help="CSV file for the results table")
    p.add_argument("--jobs", type=int, metavar="N", help="parallel jobs over folds; -1 = all cores (default: 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar over the folds")
    add_verbose_option(p)
    p.add_argument(
        "--predictions",
        help="CSV file for every out-of-fold prediction (with --test: every test prediction) and its class "
        "probabilities (one row per model and row)",
    )
    p.add_argument("--brief", action="store_true", help="only the table: no confusion matrix or per-class scores")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="also write the report as one self-contained HTML file: the table, each model's confusion "
        "matrix, per-class scores and structure (fitted on all of DATA), figures as inline SVG",
    )
    _add_discretize_options(p)
    _add_label_options(p)
    _add_csv_options(p)
    p.set_defaults(func=_command("_evaluate", "cmd_evaluate"))


def _add_export(sub: Subparsers) -> None:
    """``bnclf export MODEL``: a saved model as BIF, XMLBIF or UAI."""
    p = sub.add_parser("export", help="write a saved model as BIF, XMLBIF or UAI")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument(
        "-o", "--output", required=True, help="target file (.bif; .xmlbif, .xml or .bifxml for XMLBIF; .uai)"
    )
    p.add_argument("--format", choices=["bif", "xmlbif", "uai"], help="format (default: from the suffix)")
    p.set_defaults(func=_command("_export", "cmd_export"))


def _add_plot(sub: Subparsers) -> None:
    """``bnclf plot MODEL``: a saved model's structure (or search trace) as PNG."""
    p = sub.add_parser("plot", help="draw a saved model's structure as PNG")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("-o", "--output", default="structure.png", help="PNG file (default: %(default)s)")
    p.add_argument("--title", help="figure title")
    p.add_argument("--features", help="comma-separated features to draw (default: all)")
    p.add_argument("--markov-blanket-only", action="store_true", help="draw only the class's Markov blanket")
    p.add_argument("--max-features", type=int, help="draw at most this many features, the most connected first")
    p.add_argument(
        "--labels-only",
        action="store_true",
        help="multilabel network (mnb, mfan, bn-ensemble): draw only the labels, their subgraph and, dashed, "
        "the pairs of labels that are parents of a common feature",
    )
    p.add_argument(
        "--trace",
        action="store_true",
        help="draw the structure search (score per accepted move) of an rmcv, "
        "rmho, hc, bnc-mdl or bnc-2p model instead",
    )
    p.set_defaults(func=_command("_plot", "cmd_plot"))


def _add_show(sub: Subparsers) -> None:
    """``bnclf show MODEL``: a saved model printed as text."""
    p = sub.add_parser(
        "show",
        help="print a saved model: structure, Markov blanket, cut points, seed, CPTs (--cpt), Graphviz (--dot); "
        "multilabel: the label graph and each feature's label parents",
    )
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument(
        "--cpt", action="append", metavar="NODE", help="also print the CPT of NODE as a labelled table (repeatable)"
    )
    p.add_argument("--dot", action="store_true", help="print the network(s) in Graphviz DOT")
    p.add_argument("--member", help="only this member of an ensemble or multinet (its position, or its class label)")
    p.set_defaults(func=_command("_show", "cmd_show"))


def _add_explain(sub: Subparsers) -> None:
    """``bnclf explain MODEL DATA``: one row's feature contributions, or its instance-specific networks."""
    p = sub.add_parser(
        "explain",
        help="explain one row: each feature's exact contribution to the log-odds (--contributions), or the "
        "networks an instance-specific model (lkdb, akdb, ltan, targetkdb) builds for it",
    )
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("data", help="rows (.csv or .arff) with the model's feature columns")
    p.add_argument("--row", type=int, default=0, help="row to explain, from 0 (default: 0)")
    p.add_argument(
        "--contributions",
        action="store_true",
        help="print each feature's exact contribution to the log-odds of the predicted class against the "
        "runner-up (or --against); --plot draws the waterfall",
    )
    p.add_argument("--against", help="with --contributions: the class to compare with (default: the runner-up)")
    p.add_argument("--plot", help="also draw into this PNG: the waterfall, or the networks side by side")
    _add_csv_options(p)
    p.set_defaults(func=_command("_explain", "cmd_explain"))


def _add_demo(sub: Subparsers) -> None:
    """``bnclf demo``: cross-validation of NB, TAN and KDB on an embedded data set."""
    from bnclf.datasets import DEFAULT_DATASET, list_datasets

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
    p.set_defaults(func=_command("_demo", "cmd_demo"))


def main(argv: Sequence[str] | None = None) -> int | None:
    """Run the command line; user errors end with ``bnclf: error: ...`` and exit status 2.

    Returns the exit status: 2 after a user error, 0 on a broken pipe, otherwise what the
    command returns (None for success, the status of ``compare``).
    """
    args = build_parser().parse_args(argv)
    defer_unused()  # scipy.stats, which scikit-learn imports and few commands use
    with warnings.catch_warnings():
        warnings.showwarning = functools.partial(_show_warning, shown=set())  # one line each, once
        try:
            check_command_files(args)
            status = args.func(args)
            _flush_stdout()  # what is still buffered: a full disk is an error, not a success
            return status
        except (ValueError, TypeError, KeyError, RuntimeError, OSError, MemoryError) as exc:
            if isinstance(exc, BrokenPipeError):  # e.g. `bnclf predict ... | head`
                sys.stderr.close()
                return 0
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            from bnclf.io._files import WRITE_ERRORS, write_error

            name = stdout_name()
            # a print that failed: a write error of no file (the commands' files are staged,
            # and their errors name them)
            printing = isinstance(exc, OSError) and exc.errno in WRITE_ERRORS and exc.filename is None
            failed = _drop_failed_stdout()
            if isinstance(exc, OSError) and exc.strerror and (failed or printing):
                message = write_error(exc, name, "the output is incomplete")
            # not a sized table (TableTooLargeError names its columns): numpy's "Unable to allocate" too
            if isinstance(exc, MemoryError) and not isinstance(exc, TableTooLargeError):
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


def _flush_stdout() -> None:
    """Flush standard output; a failed write (``> /dev/full``) raises an error that names it."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        from bnclf.io._files import write_error

        raise write_error(exc, stdout_name(), "the output is incomplete") from None


def _drop_failed_stdout() -> bool:
    """After an error: whether standard output cannot take what is buffered for it; if so
    it is pointed at the null device, so that Python's own flush at exit neither fails
    again nor changes the exit status."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
        return True
    return False


def _show_warning(message, category, filename, lineno, file=None, line=None, *, shown: set[str]) -> None:
    """Warnings as one line each, ``bnclf: warning: ...`` (the library's own and its
    dependencies'), without the Python source location, each text once per command
    (``predict --proba`` codes the rows for the labels and for the probabilities). A model's
    warning that a fit will take minutes points to ``-v``, the command line's ``verbose=1``."""
    text = str(message).replace("pass verbose=1 to follow it", "run with -v (verbose=1) to follow it")
    if text in shown:
        return
    shown.add(text)
    print(f"bnclf: warning: {text}", file=sys.stderr if file is None else file)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
