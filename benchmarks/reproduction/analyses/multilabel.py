"""Seed 002 (Corani et al. 2014), Tables 2-5: the MULAN sets under the paper's protocol.

Five-fold CV stratified on the least relevant label; numeric features cut at the training
quartiles; CFS per label (union kept) fitted on each training part; then the BN ensemble,
mNB, mFAN, ECC and binary relevance. The ensemble runs only where its exact queries are
affordable (at most ``--ensemble-max-labels`` labels; its treewidth is the number of
labels). ECC and BR use the features CFS selected for the fold (the paper selects features
"before training any classifier"), through the same quartile bins.

Reports, per data set: global and Hamming accuracy (mean over folds) with the empty
prediction prevented and allowed, mNB's treewidth and the number of selected features,
next to the paper's numbers.

Run: ``python benchmarks/reproduce.py corani2014 --analysis multilabel [--data DIR]
[--datasets emotions yeast]``. Writes ``benchmarks/results/reproduction/multilabel_seed002.json``
and prints Markdown tables.
"""

from __future__ import annotations

import json
import warnings

from tqdm import tqdm

from bnclf.evaluation import multilabel_cv_splits

from .._multilabel import ORDER, load_set, run_fold, summarize
from ..papers.corani2014 import DATASETS, PAPER


def run_dataset(name, X, Y, args, log):
    splits = multilabel_cv_splits(Y.to_numpy(), n_splits=args.folds, random_state=args.seed)
    rows = []
    for split in tqdm(splits, desc=name, disable=not args.progress):
        fold = run_fold(name, X, Y, split, args)
        rows.append(fold)
        log(
            f"{name} fold {split.fold}: "
            + ", ".join(f"{k} {fold[k]['global']:.3f}/{fold[k]['hamming']:.3f}" for k in ORDER if k in fold)
        )
    return rows


def run(args):
    """Run the protocol on ``args.only`` and write ``args.out`` (JSON), then print the tables.

    Parameters
    ----------
    args : argparse.Namespace
        ``data`` (the MULAN folder), ``only`` (comma-separated names), ``folds``, ``seed``,
        ``ensemble_max_labels``, ``out`` (the JSON file), ``progress``, ``keep`` (keep the
        other data sets' folds already in ``out``) and ``max_parents`` (``{name: bound}``).
    """
    warnings.simplefilter("ignore")

    def log(msg):
        tqdm.write(msg)

    rows = []
    if args.keep and args.out.exists():  # keep the other data sets' folds from an earlier run
        rows = [r for r in json.loads(args.out.read_text())["folds"] if r["dataset"] not in args.only.split(",")]
    for name in args.only.split(","):
        X, Y = load_set(args.data / DATASETS[name])
        rows += run_dataset(name, X, Y, args, log)
        summary = summarize(rows)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps(
                {
                    "folds": rows,
                    "summary": summary,
                    "paper": PAPER,
                    "protocol": {"folds": args.folds, "seed": args.seed},
                },
                indent=1,
            )
        )
    print_tables(summarize(rows))


def print_tables(summary):
    for metric, index in (("global", "global"), ("hamming", "hamming")):
        print(f"\n{metric} accuracy: ours / paper\n")
        print("| data set | " + " | ".join(ORDER) + " |")
        print("|---|" + "---|" * len(ORDER))
        for name, entry in summary.items():
            paper = PAPER[name][index]
            cells = [
                f"{entry[k][metric]:.3f} / {paper[i]:.2f}" if k in entry else f"— / {paper[i]:.2f}"
                for i, k in enumerate(ORDER)
            ]
            print(f"| {name} | " + " | ".join(cells) + " |")
    print("\ntreewidth and features (mNB): ours / paper; empty prevented -> allowed (global accuracy)\n")
    print("| data set | treewidth | selected features | mNB empty prevented / allowed | ensemble |")
    print("|---|---|---|---|---|")
    for name, entry in summary.items():
        p = PAPER[name]
        mnb = entry["mNB"]
        ens = entry.get("ensemble")
        ens_cell = f"{ens['global']:.3f} / {ens['global_empty_allowed']:.3f}" if ens else "—"
        print(
            f"| {name} | {mnb['treewidth']:.1f} / {p['tw'][0]} | {mnb['selected']:.0f} / {p['features'][0]} "
            f"(of {p['features'][1]}) | {mnb['global']:.3f} / {mnb['global_empty_allowed']:.3f} | {ens_cell} |"
        )
