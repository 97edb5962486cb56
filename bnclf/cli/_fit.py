"""``bnclf fit``: fit a model on a data file and write a model file."""

from __future__ import annotations

import argparse

from bnclf.cli._common import read_multilabel, read_table, wants_multilabel
from bnclf.evaluation._reports import build_model, build_multilabel_model


# -- subcommands ---------------------------------------------------------------------
def cmd_fit(args: argparse.Namespace) -> None:
    from bnclf.io._models import save_model

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
