"""``bnclf plot``: draw a model's structure (or a multilabel network) as a PNG."""

from __future__ import annotations

import argparse

from bnclf.cli._common import _is_multilabel_network, _refuse_multilabel, final_estimator


def cmd_plot(args: argparse.Namespace) -> None:
    from bnclf.io._models import load_model
    from bnclf.plot._structures import save_structure_png

    est = final_estimator(load_model(args.model_file))
    _refuse_multilabel(est, "plot", networks_ok=True)
    if _is_multilabel_network(est):
        import matplotlib.pyplot as plt

        from bnclf.plot._multilabel import draw_multilabel

        features = [f.strip() for f in args.features.split(",")] if args.features else None
        fig = draw_multilabel(
            est, features=features, max_features=args.max_features, label_only=args.labels_only, title=args.title
        )
        fig.savefig(args.output, dpi=120, bbox_inches="tight")
        plt.close(fig)
        print(f"wrote {args.output}")
        return
    if args.labels_only:
        raise ValueError(
            f"--labels-only draws the labels of a multilabel network (mnb, mfan, bn-ensemble); this is a "
            f"single-label {type(est).__name__}: drop --labels-only (--markov-blanket-only draws the class's "
            "neighbourhood)."
        )
    if args.trace:
        import matplotlib.pyplot as plt

        from bnclf.plot._traces import draw_search_trace

        if not hasattr(est, "search_trace_"):
            raise ValueError(
                f"--trace: {type(est).__name__} has no structure search; it is "
                "for rmcv, rmho, hc, bnc-mdl and bnc-2p models."
            )
        axes = draw_search_trace(est, title=args.title)
        axes[0].figure.savefig(args.output, dpi=120, bbox_inches="tight")
        plt.close(axes[0].figure)
        print(f"wrote {args.output}")
        return
    features = [f.strip() for f in args.features.split(",")] if args.features else None
    save_structure_png(
        est,
        args.output,
        title=args.title,
        features=features,
        markov_blanket_only=args.markov_blanket_only,
        max_features=args.max_features,
    )
    print(f"wrote {args.output}")
