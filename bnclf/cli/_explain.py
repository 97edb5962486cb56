"""``bnclf explain``: the networks an instance-specific model built for one row."""

from __future__ import annotations

import argparse

from bnclf.cli._common import _refuse_multilabel, final_estimator, read_features


def cmd_explain(args: argparse.Namespace) -> None:
    from bnclf.io._models import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    _refuse_multilabel(est, "explain")
    if not hasattr(est, "explain"):
        raise ValueError(
            f"{type(est).__name__} builds one structure for all rows; 'bnclf explain' is for the "
            "instance-specific classifiers (lkdb, akdb, ltan, targetkdb). Use 'bnclf plot'."
        )
    X = read_features(args.data, args, model)
    names = list(getattr(model, "feature_names_in_", est.feature_names_in_))
    missing = [c for c in names if c not in X.columns]
    if missing:
        raise ValueError(f"{args.data} lacks the model's columns {missing}.")
    if not 0 <= args.row < len(X):
        raise ValueError(f"--row {args.row} is not a row of {args.data} (it has {len(X)} rows; rows count from 0).")
    row = X[names].iloc[[args.row]]
    if hasattr(model, "steps"):
        row = model[:-1].transform(row)
    explanation = est.explain(row)
    print(explanation)
    if args.plot:
        import matplotlib

        from bnclf.plot._explanations import draw_explanation

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        axes = draw_explanation(explanation)
        fig = axes.flat[0].figure
        fig.savefig(args.plot, dpi=110)
        plt.close(fig)
        print(f"wrote {args.plot}")
