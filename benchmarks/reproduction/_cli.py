"""The command line of ``benchmarks/reproduce.py``: one command per paper.

``reproduce.py PAPER`` runs the paper's headline protocol (:mod:`reproduction.papers`,
:func:`reproduction._engine.run_paper`); ``reproduce.py PAPER --analysis NAME ...`` runs
the paper's further analyses (:data:`reproduction.analyses.ANALYSES`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from ._data import DEFAULT_OUT
from ._engine import run_paper
from .analyses import ANALYSES
from .papers import CATALOGUE, make_paper, resolve

USAGE = """Run a seed paper's protocol and put its table and ours side by side; or run its analyses.

  reproduce.py PAPER [PAPER ...] [--quick] [--data DIR] [--out DIR] [--jobs N] [--no-cache]
  reproduce.py PAPER --analysis NAME [NAME ...] [--data DIR] [--out DIR] [--datasets ...] [...]
  reproduce.py --list
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser: the headline options, then those of the analyses.

    Returns
    -------
    argparse.ArgumentParser
    """
    ap = argparse.ArgumentParser(description=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("papers", nargs="*", metavar="PAPER", help="paper key, seed number or alias; 'all' for every one")
    ap.add_argument("--list", action="store_true", help="list the papers, their aliases and their analyses")
    ap.add_argument("--quick", action="store_true", help="a few small data sets and fewer repetitions")
    ap.add_argument("--data", type=Path, default=None, help="folder of data files (UCI copies, MULAN sets)")
    ap.add_argument("--out", type=Path, default=None, help=f"output folder (default {DEFAULT_OUT}, quick: .../quick)")
    ap.add_argument("--jobs", type=int, default=1, help="folds computed in parallel (default 1)")
    ap.add_argument("--no-cache", dest="cache", action="store_false", help="recompute every fold")
    ap.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    add_analysis_options(ap.add_argument_group("analyses (with --analysis)"))
    return ap


def add_analysis_options(group) -> None:
    """The options of ``--analysis``; each analysis reads the ones it needs."""
    group.add_argument(
        "--analysis", nargs="+", metavar="NAME", help="the paper's analyses to run ('all' for every one)"
    )
    group.add_argument("--seed", type=int, default=0, help="fold seed (default 0)")
    group.add_argument("--datasets", nargs="*", default=None, help="only these data sets")
    group.add_argument("--skip", nargs="*", default=[], help="leave these data sets out (instance, targetkdb)")
    group.add_argument("--resume", action="store_true", help="reuse the analysis' per-data-set cache")
    group.add_argument(
        "--fold-seeds",
        type=int,
        default=None,
        help="extra fold seeds for the spread on small sets (default 5; 0 = off)",
    )
    group.add_argument("--bv", nargs="+", default=None, metavar="RxK", help="bias/variance protocols: R x K-fold CV")
    group.add_argument("--cv10", action=argparse.BooleanOptionalAction, default=True, help="long2019 ensembles")
    group.add_argument("--checks", nargs="+", default=None, help="long2019 checks: paper poker labor etan lr")
    group.add_argument("--folds", type=int, default=5, help="corani2014 multilabel: folds (default 5)")
    group.add_argument("--ensemble-max-labels", type=int, default=16, help="corani2014 multilabel (default 16)")
    group.add_argument("--keep", action="store_true", help="corani2014 multilabel: keep other data sets' folds")
    group.add_argument("--max-parents", default="", help="corani2014 multilabel: bridge bounds, e.g. medical=2")


def print_list() -> None:
    """The papers, their aliases and their analyses."""
    for key, (seed, title, aliases) in CATALOGUE.items():
        print(f"{key:<11s} {seed}  {title}  (aliases: {', '.join(aliases)})")
        for name, (text, _) in ANALYSES[key].items():
            print(f"    --analysis {name:<16s} {text}")


def run_analyses(ap: argparse.ArgumentParser, keys: list[str], args: argparse.Namespace) -> int:
    """Run ``args.analysis`` of each paper in ``keys``; the exit status."""
    args.out = args.out or DEFAULT_OUT
    args.out.mkdir(parents=True, exist_ok=True)
    for key in keys:
        names = list(ANALYSES[key]) if args.analysis == ["all"] else args.analysis
        unknown = [n for n in names if n not in ANALYSES[key]]
        if unknown:
            ap.error(f"{key} has no analysis {', '.join(unknown)}; it has {', '.join(ANALYSES[key])}")
        for name in names:
            t0 = time.perf_counter()
            ANALYSES[key][name][1](args)
            print(f"{key} {name}: {time.perf_counter() - t0:.0f} s; outputs in {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see :data:`USAGE`).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, 2 without a paper, 130 when interrupted.
    """
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.list or not args.papers:
        print_list()
        return 0 if args.list else 2
    try:
        keys = resolve(args.papers)
    except KeyError as exc:
        ap.error(str(exc.args[0]))
    if args.data is not None and not args.data.is_dir():
        ap.error(f"--data {args.data}: not a folder")
    if args.analysis:
        return run_analyses(ap, keys, args)
    out = args.out or (DEFAULT_OUT / "quick" if args.quick else DEFAULT_OUT)
    for key in keys:
        paper = make_paper(key, quick=args.quick)
        try:
            run_paper(paper, out, data_dir=args.data, jobs=args.jobs, use_cache=args.cache, progress=args.progress)
        except KeyboardInterrupt:
            return 130
    return 0
