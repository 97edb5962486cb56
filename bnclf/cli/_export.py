"""``bnclf export``: a model's network(s) as BIF, XMLBIF or UAI files."""

from __future__ import annotations

import argparse

from bnclf.cli._common import _refuse_multilabel, final_estimator


def cmd_export(args: argparse.Namespace) -> None:
    from bnclf.io._models import load_model
    from bnclf.io._networks import exported_members, write_network

    est = final_estimator(load_model(args.model_file))
    _refuse_multilabel(est, "export", networks_ok=True)
    path = write_network(est, args.output, fmt=args.format)
    if path.name.endswith(".manifest.json"):
        print(
            f"wrote {len(exported_members(est))} member networks and the manifest {path}, "
            "each verified by reading it back"
        )
    else:
        print(f"wrote {path} (+ name map {path}.names.json), verified by reading it back")
    one_state = getattr(est, "one_state_features_", [])
    if one_state:
        print(f"left out the one-state features (no information): {', '.join(map(str, one_state))}")
