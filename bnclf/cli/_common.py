"""What the commands share: reading data files, building models from specs, the
multilabel switch, writing rows, and the options every command takes."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the commands import what they use when they run (the start-up stays short)
    import pandas as pd
    from sklearn.base import BaseEstimator


# -- data and models ---------------------------------------------------------------
def _csv_options(args) -> dict:
    names = getattr(args, "names", None)
    no_header, header = getattr(args, "no_header", False), getattr(args, "header", False)
    if no_header and header:
        raise ValueError("--header and --no-header contradict each other; give one of them.")
    return {
        "header": "always" if header else not no_header,
        "sep": getattr(args, "sep", None),
        "names": [n.strip() for n in names.split(",")] if names else None,
    }


def read_table(
    path: str | os.PathLike, target: str | None = None, args: argparse.Namespace | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Features and target of a CSV or ARFF file (``--class``, default the last column)."""
    from bnclf.datasets import load_table

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
        from bnclf.io._arff import read_arff

        return read_arff(path)
    from bnclf.datasets import read_csv_table

    options = _csv_options(args)
    features = getattr(model, "feature_names_in_", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_csv_table(path, **options)
    headed = not options["header"] and features is not None and _first_row_names(frame, features)
    for w in caught:  # the check against the model's names below says it better
        if not (headed and "looks like column names" in str(w.message)):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if headed:
        warnings.warn(
            f"the first line of {path} holds the model's column names ({', '.join(map(str, features[:4]))}"
            f"{', ...' if len(features) > 4 else ''}): with --no-header it is predicted as a row. If it is "
            "the header line, leave out --no-header (or pass --header when the names are numbers).",
            UserWarning,
            stacklevel=2,
        )
    if not options["header"] and options["names"] is None and features is not None:
        if frame.shape[1] == len(features):  # the model's features, without a class column
            frame.columns = list(features)
    return frame


def _first_row_names(frame: pd.DataFrame, features) -> bool:
    """Whether the first row of a headerless table holds every one of the model's feature
    names (a header line read as data)."""
    if frame.shape[0] == 0:
        return False
    cells = {str(c).strip() for c in frame.iloc[0].tolist()}
    numbers = {_as_number(c) for c in cells} - {None}
    return all(str(f) in cells or _as_number(str(f)) in numbers - {None} for f in features)


def _as_number(text: str) -> float | None:
    """``text`` as a number (``2019`` and ``2019.0`` are one), or None."""
    try:
        return float(text)
    except ValueError:
        return None


def final_estimator(model: BaseEstimator) -> BaseEstimator:
    """The Bayesian network classifier inside a pipeline (or the model itself)."""
    return model[-1] if hasattr(model, "steps") else model


# -- multilabel data and models --------------------------------------------------------
def is_multilabel_spec(spec: str) -> bool:
    """Whether a classifier spec names a multilabel classifier (``mnb``, ``br(m=2)``, ...)."""
    from bnclf.models._registry import MULTILABEL_CLASSIFIERS, parse_classifier_spec

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
    from bnclf.models._registry import MULTILABEL_CLASSIFIERS

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
    from bnclf.datasets import list_multilabel_datasets

    return name in list_multilabel_datasets()


def _labels_declared(path) -> bool:
    """Whether an ARFF file names its labels: a MULAN label file beside it or a MEKA ``-C`` tag."""
    from bnclf.io._arff import meka_label_count, sibling_label_file

    path = Path(path)
    name = path.name.lower()
    if not path.is_file() or not name.endswith((".arff", ".arff.gz")):
        return False
    if sibling_label_file(path) is not None:
        return True
    import gzip

    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for _, line in zip(range(1000), fh):
            text = line.strip()
            if text.lower().startswith("@relation"):
                relation = text[len("@relation") :].strip().strip("'\"")
                try:
                    return meka_label_count(relation) is not None
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
    from bnclf.evaluation._multilabel import load_multilabel_spec

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


def _is_multilabel_network(est) -> bool:
    from bnclf.models._multilabel import MultilabelBNClassifier

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
    from bnclf.encoding._frames import shown_names

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
    """``out`` into ``--output`` (staged: written in full or not at all), else onto standard
    output, flushed here so that a failed write (a full disk) is an error naming it."""
    if args.output:
        write_csv(out, args.output)
        print(f"wrote {len(out)} {what} -> {args.output}")
        return
    try:
        out.to_csv(sys.stdout, index=False)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `bnclf predict ... | head`: the reader stopped, not an error
        raise
    except OSError as exc:
        from bnclf.io._files import WRITE_ERRORS, write_error

        if exc.errno not in WRITE_ERRORS:
            raise
        raise write_error(exc, f"the {what} to {stdout_name()}", "the output is incomplete") from None


def stdout_name() -> str:
    """``standard output``, with the file it goes to when the system says (``/dev/full``)."""
    try:
        target = os.readlink(f"/proc/self/fd/{sys.stdout.fileno()}")
    except (OSError, ValueError, AttributeError):
        return "standard output"
    return f"standard output ({target})"


# -- parser -----------------------------------------------------------------------------
def with_names(text: str) -> str:
    """``text`` with the registered classifier names in place of ``{classifiers}`` and
    ``{multilabel_classifiers}``; they are filled in only when a help text is printed, so
    building the parser imports no estimator (nor the registry, unless a placeholder is there)."""
    if "{classifiers}" in text:
        from bnclf.models._registry import classifier_names_help

        text = text.replace("{classifiers}", classifier_names_help())
    if "{multilabel_classifiers}" in text:
        from bnclf.models._registry import multilabel_names_help

        text = text.replace("{multilabel_classifiers}", multilabel_names_help())
    return text


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with the classifier names filled in when help is printed."""

    def _get_help_string(self, action: argparse.Action) -> str:
        return with_names(super()._get_help_string(action) or "")

    def _format_text(self, text: str) -> str:
        return super()._format_text(with_names(text))


class RawDescriptionHelpFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """:class:`HelpFormatter` that keeps the line breaks of descriptions and epilogs."""


class Subparsers(Protocol):
    """What ``parser.add_subparsers()`` returns, as the commands use it: ``add_parser``
    makes the subparser of one command."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def _add_model_options(p):
    p.add_argument(
        "--model",
        help="classifier spec: one of {classifiers}, or with parameters "
        "e.g. 'kdb(k=3)', 'kdb(k=3, m=5)' (m: the m-estimate's weight, default 1), 'etan(k=2)', "
        "'aode(smoothing=\"weka\")' (default: tan); "
        "multilabel: one of {multilabel_classifiers}, e.g. 'mfan(alpha=2)' "
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
    p.add_argument(
        "--header",
        action="store_true",
        help="the CSV file's first line names the columns even though its names are numbers (years: "
        "2019,2020,label); without it such a line is refused as data",
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


# What each command reads and writes, as (what the user calls it, the argument's dest); the
# outputs of write_network include its name map and manifest, those of compare its report.
_COMMAND_FILES = {
    "fit": ({"DATA": "data", "--xml": "xml"}, {"--output": "output"}),
    "predict": ({"MODEL_FILE": "model_file", "DATA": "data"}, {"--output": "output"}),
    "query": ({"MODEL_FILE": "model_file", "DATA": "data"}, {"--output": "output"}),
    "evaluate": (
        {"DATA": "data", "--test": "test", "--xml": "xml"},
        {"--output": "output", "--predictions": "predictions", "--html": "html"},
    ),
    "export": ({"MODEL_FILE": "model_file"}, {"--output": "output"}),
    "plot": ({"MODEL_FILE": "model_file"}, {"--output": "output"}),
    "explain": ({"MODEL_FILE": "model_file", "DATA": "data"}, {"--plot": "plot"}),
    "compare": ({"--datasets": "datasets", "--xml": "xml"}, {"--html": "html"}),
}
_COMPARE_OUTPUTS = ("results.csv", "report.md", "cd_diagram.png", "scores_by_dataset.png")


def check_command_files(args: argparse.Namespace) -> None:
    """Refuse, before anything is read, a command whose output is one of its inputs
    (``bnclf predict m.bnclf rows.csv -o rows.csv``) or whose two outputs are one file."""
    from bnclf.io._files import check_outputs

    reads, writes = _COMMAND_FILES.get(args.command, ({}, {}))
    inputs = {}
    for label, dest in reads.items():
        value = getattr(args, dest, None)
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, str) and not v.lower().startswith("keel:"):
                inputs[label if len(values) == 1 else f"{label} {v!r}"] = v
    outputs = {label: getattr(args, dest, None) for label, dest in writes.items()}
    if args.command == "export" and args.output:
        from bnclf.io._networks import MANIFEST_SUFFIX, NAME_MAP_SUFFIX

        outputs["the name map (--output + .names.json)"] = args.output + NAME_MAP_SUFFIX
        outputs["the manifest (--output + .manifest.json)"] = args.output + MANIFEST_SUFFIX
    if args.command == "compare" and getattr(args, "out", None):
        for name in _COMPARE_OUTPUTS:
            outputs[f"--output's {name}"] = str(Path(args.out) / name)
    check_outputs(outputs, inputs)


def write_csv(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """``frame`` as a CSV file without its index, written in full or not at all."""
    from bnclf.io._files import staged

    with staged(path) as (tmp,):
        frame.to_csv(tmp, index=False)
