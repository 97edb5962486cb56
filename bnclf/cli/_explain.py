"""``bnclf explain``: one row's exact per-feature contributions (``--contributions``), or the
networks an instance-specific model built for it."""

from __future__ import annotations

import argparse

from bnclf.cli._common import _refuse_multilabel, final_estimator, read_features


def cmd_explain(args: argparse.Namespace) -> None:
    from bnclf.io._models import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    _refuse_multilabel(est, "explain")
    if args.contributions:
        return _contributions(args, model, est)
    if args.against is not None:
        raise ValueError("--against goes with --contributions.")
    if not hasattr(est, "explain"):
        raise ValueError(
            f"{type(est).__name__} builds one structure for all rows: 'bnclf explain --contributions' "
            "splits a row's log-odds by feature, and 'bnclf plot' draws the structure. Without "
            "--contributions, 'bnclf explain' shows the networks of the instance-specific classifiers "
            "(lkdb, akdb, ltan, targetkdb)."
        )
    _, row = _read_row(args, model, est)
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


def _read_row(args: argparse.Namespace, model, est) -> tuple:
    """``--row`` of the data file as read (``raw``) and as the classifier sees it (a
    Pipeline's steps before it applied), with the model's columns checked."""
    X = read_features(args.data, args, model)
    names = list(getattr(model, "feature_names_in_", est.feature_names_in_))
    missing = [c for c in names if c not in X.columns]
    if missing:
        raise ValueError(f"{args.data} lacks the model's columns {missing}.")
    if not 0 <= args.row < len(X):
        raise ValueError(f"--row {args.row} is not a row of {args.data} (it has {len(X)} rows; rows count from 0).")
    raw = X[names].iloc[[args.row]]
    return raw, model[:-1].transform(raw) if hasattr(model, "steps") else raw


def _as_in_data(value) -> str:
    """A feature's value as the data file writes it: text as it is, a number without a sign
    or padding (``19``, ``21208.68``; a whole number read as float, because its column has
    empty cells, without ``.0``), and ``(missing)`` for an empty cell."""
    import numbers

    import pandas as pd

    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return "(missing)"
    if isinstance(value, (bool, numbers.Integral)):
        return str(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    return str(value)


def _contributions(args: argparse.Namespace, model, est) -> None:
    """Print one row's contributions (and draw the waterfall with ``--plot``)."""
    import pandas as pd

    raw, row = _read_row(args, model, est)
    against = None
    if args.against is not None:
        labels = {str(c): c for c in est.classes_}
        if args.against not in labels:
            raise ValueError(f"--against {args.against!r} is not a class of the model; its classes: {list(labels)}.")
        against = labels[args.against]
    if not hasattr(est, "contributions"):
        raise ValueError(
            f"{type(est).__name__} has no exact contributions (it builds a network per row): drop --contributions."
        )
    table = est.contributions(row, against=against)
    if "member" in table.index.names:
        print(
            f"{type(est).__name__} averages its members: its log-odds is not a sum of feature terms, so each "
            "member's split is printed with its weight."
        )
        print(table.round(4).to_string())
        return
    terms = table.iloc[0]
    predicted, other = table.index[0][1], table.index[0][2]
    proba = est.predict_proba(row)[0]
    classes = [str(c) for c in est.classes_]
    print(
        f"row {args.row}: predicted {predicted!r} (P = {proba[classes.index(str(predicted))]:.4f}) against "
        f"{other!r} (P = {proba[classes.index(str(other))]:.4f})"
    )
    shown = pd.DataFrame(
        {
            "value": [""] + [_as_in_data(raw.iloc[0][name]) for name in terms.index[1:]],
            "contribution": terms.to_numpy(),
        },
        index=terms.index,
    )
    shown = pd.concat([shown.iloc[:1], shown.iloc[1:].sort_values("contribution", key=abs, ascending=False)])
    print(shown.to_string(formatters={"contribution": lambda v: f"{v:+.4f}"}))
    print(f"sum (the log-odds): {terms.sum():+.6f}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        from bnclf.io._files import staged
        from bnclf.plot._contributions import draw_contributions

        ax = draw_contributions(model, raw, against=against)
        try:
            with staged(args.plot) as (tmp,):
                ax.figure.savefig(tmp, dpi=110)
        finally:
            plt.close(ax.figure)
        print(f"wrote {args.plot}")
