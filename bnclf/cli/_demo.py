"""``bnclf demo``: cross-validation of NB, TAN and KDB on the embedded kr-vs-kp data."""

from __future__ import annotations

import argparse
from pathlib import Path

from bnclf.cli._common import final_estimator, write_csv
from bnclf.cli._evaluate import _print_table
from bnclf.evaluation._reports import build_model, cross_validate_models

NETWORK_FILE = "tan.bifxml"
"""The demo's network file: XMLBIF under the suffix every reader takes (pyAgrum's ``gum.loadBN``
picks its parser by suffix and reads ``.bifxml``, not ``.xmlbif``)."""


def cmd_demo(args: argparse.Namespace) -> None:
    from bnclf.datasets import load_dataset
    from bnclf.io._networks import write_network
    from bnclf.plot._structures import save_structure_png

    X, y = load_dataset(args.dataset)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    table = cross_validate_models(X, y, ["nb", "tan", "kdb"], n_splits=args.folds, seed=args.seed)
    _print_table(
        table,
        f"{args.folds}-fold stratified CV on the embedded {args.dataset!r} data "
        f"({X.shape[0]} rows, {X.shape[1]} features, {y.nunique()} classes)",
    )
    write_csv(table, out / "cv_results.csv")
    model = build_model("tan").fit(X, y)
    tan = final_estimator(model)
    png = save_structure_png(tan, out / "tan_structure.png", title=f"TAN on {args.dataset}")
    # XMLBIF named as pyAgrum wants it (it refuses ".xmlbif"); pgmpy and Weka read any name
    xml = write_network(tan, out / NETWORK_FILE)
    print(
        f"TAN structure -> {png}\nTAN network   -> {xml} (XMLBIF for pgmpy, pyAgrum and Weka; "
        "verified by reading it back)"
    )
