"""The ``bnclf`` command: fit, predict, evaluate, export, plot, compare and demo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .structure import markov_blanket


# -- data and models ---------------------------------------------------------------
def _csv_options(args) -> dict:
    names = getattr(args, "names", None)
    return {"header": not getattr(args, "no_header", False), "sep": getattr(args, "sep", None),
            "names": [n.strip() for n in names.split(",")] if names else None}


def read_table(path, target=None, args=None):
    """Features and target of a CSV or ARFF file (``--class``, default the last column)."""
    from .datasets import load_table

    return load_table(path, target, **_csv_options(args))


def read_features(path, args=None):
    """All columns of a CSV or ARFF file (for predict)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.name.lower().endswith((".arff", ".arff.gz")):
        from .arff import read_arff

        return read_arff(path)
    from .datasets import read_csv_table

    return read_csv_table(path, **_csv_options(args))


def _discretizer(discretize: str, n_bins: int):
    """The transformer for ``--discretize`` (None for ``none``)."""
    from .evaluation.protocols import resolve_discretizer

    return resolve_discretizer(discretize, n_bins=n_bins)


def build_model(spec: str, discretize: str = "mdl", n_bins: int = 4):
    """A classifier from a spec like ``tan`` or ``kdb(k=3)``, behind a discretizer if asked."""
    from .evaluation.protocols import build_pipeline
    from .models import make_classifier

    return build_pipeline(make_classifier(spec), _discretizer(discretize, n_bins))


def final_estimator(model):
    """The Bayesian network classifier inside a pipeline (or the model itself)."""
    return model[-1] if hasattr(model, "steps") else model


# -- subcommands ---------------------------------------------------------------------
def cmd_fit(args):
    from .io import save_model

    X, y = read_table(args.data, args.target, args)
    model = build_model(args.model, args.discretize, args.bins).fit(X, y)
    save_model(model, args.output)
    print(f"fitted {args.model} on {X.shape[0]} rows x {X.shape[1]} features -> {args.output}")


def cmd_predict(args):
    from .io import load_model

    model = load_model(args.model_file)
    X = read_features(args.data, args)
    est = final_estimator(model)
    ids = None
    if args.id is not None:
        if args.id not in X.columns:
            raise ValueError(f"--id {args.id!r} is not a column of {args.data}; columns: "
                             f"{list(X.columns)[:10]}.")
        ids = X[args.id].to_numpy()
    names = getattr(model, "feature_names_in_", None)
    if names is not None and not set(names) <= set(X.columns):
        lacking = [c for c in names if c not in X.columns]
        raise ValueError(f"{args.data} lacks the model's columns {lacking}; the model was "
                         f"fitted on {list(names)} (other columns are ignored).")
    if names is not None:
        X = X[list(names)]  # the training columns, in training order; others are ignored
    elif args.id is not None and args.id in X.columns:
        X = X.drop(columns=[args.id])
    out = pd.DataFrame({"prediction": model.predict(X)})
    if ids is not None:
        out.insert(0, args.id, ids)
    if args.proba:
        proba = model.predict_proba(X)
        for j, label in enumerate(est.classes_):
            out[f"P({label})"] = proba[:, j]
    if args.output:
        out.to_csv(args.output, index=False)
        print(f"wrote {len(out)} predictions -> {args.output}")
    else:
        out.to_csv(sys.stdout, index=False)


def cross_validate_models(X, y, specs, *, n_splits=10, discretize="mdl", n_bins=4, seed=0,
                          progress=True, metrics=("accuracy",), return_cv=False, n_jobs=1):
    """Stratified k-fold scores of each model spec, by the evaluation harness's protocol.

    The folds are those of :func:`bnclf.evaluation.make_cv_splits` with ``seed`` (the
    same as ``bnclf compare``); a discretizer, when the data has float columns, is fitted
    on each training fold only. ``metrics`` are fold metrics of the harness
    (``accuracy``, ``log_loss``, ``auc``), averaged over the folds; the standard
    deviation is the accuracy's. With ``return_cv`` also returns ``{spec: CVPredictions}``
    (the out-of-fold predictions and probabilities).
    """
    from .evaluation.protocols import cross_validate_predictions, make_cv_splits
    from .models import make_classifier

    needs_disc = any(pd.api.types.is_float_dtype(X[c]) for c in X.columns)
    discretizer = _discretizer(discretize, n_bins) if needs_disc else None
    splits = make_cv_splits(np.asarray(y), n_splits=n_splits, random_state=seed)
    rows, cvs = [], {}
    for spec in specs:
        cv = cross_validate_predictions(make_classifier(spec), X, y, splits=splits,
                                        discretizer=discretizer, progress=progress, context=spec,
                                        n_jobs=n_jobs)
        cvs[spec] = cv
        scores = cv.fold_scores(tuple(dict.fromkeys(("accuracy",) + tuple(metrics))))
        row = {"model": spec, "accuracy": scores["accuracy"].mean(),
               "std": scores["accuracy"].std(ddof=0)}
        row.update({m: scores[m].mean() for m in metrics if m != "accuracy"})
        row.update({"fit_s": cv.folds["fit_time"].sum(),
                    "predict_s": cv.folds["predict_time"].sum()})
        rows.append(row)
    table = pd.DataFrame(rows)
    return (table, cvs) if return_cv else table


def per_class_report(cv) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pooled out-of-fold confusion matrix and per-class precision, recall, F1 and support."""
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    pred = cv.predictions
    labels = list(cv.classes)
    matrix = confusion_matrix(pred["y_true"], pred["y_pred"], labels=labels)
    names = [str(c) for c in labels]
    confusion = pd.DataFrame(matrix, index=pd.Index(names, name="true"),
                             columns=pd.Index(names, name="predicted"))
    p, r, f, n = precision_recall_fscore_support(pred["y_true"], pred["y_pred"], labels=labels,
                                                 zero_division=0)
    per_class = pd.DataFrame({"precision": p, "recall": r, "f1": f, "support": n},
                             index=pd.Index(names, name="class"))
    return confusion, per_class


def _print_table(table: pd.DataFrame, title: str):
    print(title)
    extra = [c for c in ("log_loss", "auc") if c in table.columns]
    width = max(12, *(len(str(m)) + 2 for m in table["model"]))
    head = f"{'model':<{width}}{'accuracy':>10}{'± std':>9}"
    head += "".join(f"{c.replace('_', ' '):>10}" for c in extra)
    print(head + f"{'fit (s)':>10}{'predict (s)':>13}")
    for r in table.to_dict("records"):
        line = f"{r['model']:<{width}}{r['accuracy']:>10.4f}{r['std']:>9.4f}"
        line += "".join(f"{r[c]:>10.4f}" for c in extra)
        print(line + f"{r['fit_s']:>10.3f}{r['predict_s']:>13.4f}")


def cmd_evaluate(args):
    X, y = read_table(args.data, args.target, args)
    from .evaluation.cli import _split_top_level

    specs = _split_top_level([args.models])
    if not specs:
        raise ValueError("--models is empty; give classifier specs separated by commas, "
                         "e.g. --models 'nb,tan,kdb(k=3, m=5)'.")
    table, cvs = cross_validate_models(X, y, specs, n_splits=args.folds,
                                       discretize=args.discretize, n_bins=args.bins,
                                       seed=args.seed, metrics=("accuracy", "log_loss", "auc"),
                                       return_cv=True, n_jobs=args.jobs,
                                       progress=not args.no_progress)
    _print_table(table, f"{args.folds}-fold stratified CV on {args.data} "
                        f"({X.shape[0]} rows, {X.shape[1]} features, {y.nunique()} classes)")
    if not args.brief:
        for spec, cv in cvs.items():
            confusion, per_class = per_class_report(cv)
            print(f"\n{spec}: out-of-fold confusion matrix (rows: true class)")
            print(confusion.to_string())
            print(per_class.round(4).to_string())
    if args.output:
        table.to_csv(args.output, index=False)
    if args.predictions:
        frames = []
        for spec, cv in cvs.items():
            pred = cv.predictions[["row", "fold", "y_true", "y_pred"]].copy()
            pred.insert(0, "model", spec)
            for j, label in enumerate(cv.classes):
                pred[f"P({label})"] = cv.proba[:, j]
            frames.append(pred)
        pd.concat(frames, ignore_index=True).to_csv(args.predictions, index=False)
        print(f"wrote the out-of-fold predictions of {len(cvs)} model(s) -> {args.predictions}")


def cmd_export(args):
    from .io import load_model, write_network

    est = final_estimator(load_model(args.model_file))
    path = write_network(est, args.output, fmt=args.format)
    if path.name.endswith(".manifest.json"):
        print(f"wrote {len(est.network_members())} member networks and the manifest {path}, "
              "each verified by reading it back")
    else:
        print(f"wrote {path} (+ name map {path}.names.json), verified by reading it back")


def cmd_plot(args):
    from .io import load_model
    from .plot import save_structure_png

    est = final_estimator(load_model(args.model_file))
    if args.trace:
        import matplotlib.pyplot as plt

        from .plot import draw_search_trace

        if not hasattr(est, "search_trace_"):
            raise ValueError(f"--trace: {type(est).__name__} has no structure search; it is "
                             "for rmcv, rmho, hc, bnc-mdl and bnc-2p models.")
        axes = draw_search_trace(est, title=args.title)
        axes[0].figure.savefig(args.output, dpi=120, bbox_inches="tight")
        plt.close(axes[0].figure)
        print(f"wrote {args.output}")
        return
    features = [f.strip() for f in args.features.split(",")] if args.features else None
    save_structure_png(est, args.output, title=args.title, features=features,
                       markov_blanket_only=args.markov_blanket_only,
                       max_features=args.max_features)
    print(f"wrote {args.output}")


def cpt_table(net, node) -> pd.DataFrame:
    """The CPT of ``node`` as probabilities: one row per state, one column per parent
    configuration (a MultiIndex over the parents, in CPT axis order)."""
    families = net.named_families
    if node not in families:
        raise ValueError(f"no node {node!r} in this network; nodes: {list(families)}.")
    parents = families[node]
    table = np.exp(net.named_log_cpts[node])
    states = net.categories
    rows = pd.Index([str(s) for s in states[node]], name=str(node))
    if not parents:
        return pd.DataFrame({"P": table}, index=rows)
    columns = pd.MultiIndex.from_product([[str(s) for s in states[p]] for p in parents],
                                         names=[str(p) for p in parents])
    return pd.DataFrame(table.reshape(len(rows), -1), index=rows, columns=columns)


def network_dot(net) -> str:
    """The network in Graphviz DOT (the class node, if any, drawn as a box)."""
    def quote(v):
        return '"' + str(v).replace('"', r'\"') + '"'

    lines = [f"digraph {quote(net.title or 'bnclf')} {{", "  rankdir=TB;"]
    if net.has_class:
        lines.append(f"  {quote(net.class_name)} [shape=box, style=filled, fillcolor=\"#d62728\", "
                     "fontcolor=white];")
    for child, parents in net.named_families.items():
        lines.append(f"  {quote(child)};")
        lines.extend(f"  {quote(p)} -> {quote(child)};" for p in parents)
    lines.append("}")
    return "\n".join(lines)


def cmd_show(args):
    from .io import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    try:
        members = est.network_members()
    except ValueError as exc:  # an instance-specific model with no network in advance
        members, no_network = [], str(exc)
    if args.member is not None:
        keys = [str(k) for k, _ in members]
        if keys == ["None"]:
            raise ValueError(f"{type(est).__name__} has one network; --member picks a member of "
                             "an ensemble (a position) or a multinet (a class label).")
        if args.member not in keys:
            raise ValueError(f"--member {args.member!r} is not one of {keys}.")
        members = [m for m in members if str(m[0]) == args.member]
    for node in args.cpt or []:
        for _, net in members:
            if node not in net.named_families:
                raise ValueError(f"--cpt {node!r}: no such node; nodes: "
                                 f"{list(net.named_families)}.")
    if args.dot:
        if not members:
            raise ValueError(no_network)
        print("\n".join(network_dot(net) for _, net in members))
        return
    params = ", ".join(f"{k}={v!r}" for k, v in sorted(est.get_params().items()))
    print(f"{type(est).__name__}({params})")
    print(f"classes ({len(est.classes_)}): {', '.join(map(str, est.classes_))}")
    print(f"features ({est.n_features_in_}): {', '.join(map(str, est._encoder.feature_names_))}")
    for _, step in (model.steps[:-1] if hasattr(model, "steps") else []):
        cuts = getattr(step, "cut_points_", None)
        if cuts is None:
            continue
        print(f"cut points ({type(step).__name__}):")
        for column, points in cuts.items():
            shown = ", ".join(f"{p:.6g}" for p in points) if len(points) else "(none: one bin)"
            print(f"  {column}: {shown}")
    if not members:
        print(no_network)
        return
    for key, net in members:
        if key is not None or net.title:
            print(f"\n[{net.title or key}]" + (f" (member {key})" if key is not None else ""))
        for child, parents in net.named_families.items():
            print(f"  {child} <- {', '.join(map(str, parents)) if parents else '(no parents)'}")
        if net.has_class:
            blanket = markov_blanket(net.dag, net.class_name)
            print(f"  Markov blanket of {net.class_name} ({len(blanket)}): "
                  f"{', '.join(map(str, blanket))}")
        for node in args.cpt or []:
            given = ", ".join(map(str, net.named_families[node])) or "-"
            with pd.option_context("display.max_columns", 12, "display.width", 120):
                print(f"\n  P({node} | {given})")
                print(cpt_table(net, node).round(4).to_string())


def cmd_explain(args):
    from .io import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    if not hasattr(est, "explain"):
        raise ValueError(
            f"{type(est).__name__} builds one structure for all rows; 'bnclf explain' is for the "
            "instance-specific classifiers (lkdb, akdb, ltan, targetkdb). Use 'bnclf plot'."
        )
    X = read_features(args.data, args)
    names = list(getattr(model, "feature_names_in_", est.feature_names_in_))
    missing = [c for c in names if c not in X.columns]
    if missing:
        raise ValueError(f"{args.data} lacks the model's columns {missing}.")
    if not 0 <= args.row < len(X):
        raise ValueError(f"--row {args.row} is not a row of {args.data} (it has {len(X)} rows; "
                         "rows count from 0).")
    row = X[names].iloc[[args.row]]
    if hasattr(model, "steps"):
        row = model[:-1].transform(row)
    explanation = est.explain(row)
    print(explanation)
    if args.plot:
        import matplotlib

        from .plot import draw_explanation

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        axes = draw_explanation(explanation)
        fig = axes.flat[0].figure
        fig.savefig(args.plot, dpi=110)
        plt.close(fig)
        print(f"wrote {args.plot}")


def cmd_demo(args):
    from .datasets import load_dataset
    from .io import write_network
    from .plot import save_structure_png

    X, y = load_dataset(args.dataset)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    table = cross_validate_models(X, y, ["nb", "tan", "kdb"], n_splits=args.folds, seed=args.seed)
    _print_table(table, f"{args.folds}-fold stratified CV on the embedded {args.dataset!r} data "
                        f"({X.shape[0]} rows, {X.shape[1]} features, {y.nunique()} classes)")
    table.to_csv(out / "cv_results.csv", index=False)
    model = build_model("tan").fit(X, y)
    tan = final_estimator(model)
    png = save_structure_png(tan, out / "tan_structure.png", title=f"TAN on {args.dataset}")
    xml = write_network(tan, out / "tan.xmlbif")
    print(f"TAN structure -> {png}\nTAN network   -> {xml} (verified by reading it back)")


# -- parser -----------------------------------------------------------------------------
def _add_model_options(p, default="tan"):
    from .models.registry import classifier_names_help

    p.add_argument("--model", default=default,
                   help=f"classifier spec: one of {classifier_names_help()}, or with parameters "
                        "e.g. 'kdb(k=3)', 'etan(k=2)', 'aode(smoothing=\"weka\")' "
                        "(default: %(default)s)")
    _add_discretize_options(p)


def _add_csv_options(p):
    p.add_argument("--no-header", action="store_true",
                   help="the CSV file has no header line (columns x1.., the last 'class')")
    p.add_argument("--sep", help="CSV column separator (default: sniffed), e.g. ';' or '\\t'")
    p.add_argument("--names", help="comma-separated column names for the CSV file")


def _add_discretize_options(p):
    p.add_argument("--discretizer", "--discretize", dest="discretize",
                   choices=["mdl", "quantile", "none"], default="mdl",
                   help="discretizer for continuous columns, fitted on training rows only "
                        "(default: %(default)s)")
    p.add_argument("--bins", type=int, default=4, help="bins for --discretize quantile")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bnclf", description="Bayesian network classifiers (NB, TAN, KDB) on pgmpy.")
    parser.add_argument("--version", action="version", version=f"bnclf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("fit", help="fit a classifier on a CSV/ARFF file and save it")
    p.add_argument("data", help="training data (.csv or .arff[.gz])")
    p.add_argument("--class", dest="target", help="target column (default: the last column)")
    p.add_argument("-o", "--output", default="model.bnclf", help="model file (default: %(default)s)")
    _add_model_options(p)
    _add_csv_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("predict", help="predict with a saved model")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("data", help="rows to classify (.csv or .arff); extra columns are ignored")
    p.add_argument("-o", "--output", help="CSV file for predictions (default: standard output)")
    p.add_argument("--proba", action="store_true", help="also write class probabilities")
    p.add_argument("--id", help="a column of the rows to copy into the output (an identifier); "
                                "it is not used as a feature")
    _add_csv_options(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("evaluate", help="k-fold stratified cross-validation accuracy")
    p.add_argument("data", help="data (.csv or .arff[.gz])")
    p.add_argument("--class", dest="target", help="target column (default: the last column)")
    p.add_argument("--models", default="nb,tan,kdb",
                   help="comma-separated classifier specs (default: %(default)s)")
    p.add_argument("--folds", type=int, default=10, help="number of folds (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="shuffling seed (default: %(default)s)")
    p.add_argument("-o", "--output", help="CSV file for the results table")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="parallel jobs over folds; -1 = all cores (default: 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--predictions", help="CSV file for every out-of-fold prediction and its "
                                         "class probabilities (one row per model and row)")
    p.add_argument("--brief", action="store_true",
                   help="only the table: no confusion matrix or per-class scores")
    _add_discretize_options(p)
    _add_csv_options(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("export", help="write a saved model as BIF or XMLBIF")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("-o", "--output", required=True, help="target file (.bif, .xmlbif or .xml)")
    p.add_argument("--format", choices=["bif", "xmlbif"], help="format (default: from the suffix)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("plot", help="draw a saved model's structure as PNG")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("-o", "--output", default="structure.png", help="PNG file (default: %(default)s)")
    p.add_argument("--title", help="figure title")
    p.add_argument("--features", help="comma-separated features to draw (default: all)")
    p.add_argument("--markov-blanket-only", action="store_true",
                   help="draw only the class's Markov blanket")
    p.add_argument("--max-features", type=int,
                   help="draw at most this many features, the most connected first")
    p.add_argument("--trace", action="store_true",
                   help="draw the structure search (score per accepted move) of an rmcv, "
                        "rmho, hc, bnc-mdl or bnc-2p model instead")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("show", help="print a saved model: structure, Markov blanket, cut "
                                    "points, CPTs (--cpt), Graphviz (--dot)")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("--cpt", action="append", metavar="NODE",
                   help="also print the CPT of NODE as a labelled table (repeatable)")
    p.add_argument("--dot", action="store_true", help="print the network(s) in Graphviz DOT")
    p.add_argument("--member", help="only this member of an ensemble or multinet "
                                    "(its position, or its class label)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("explain", help="show the networks an instance-specific model "
                                       "(lkdb, akdb, ltan, targetkdb) builds for one row")
    p.add_argument("model_file", help="model written by 'bnclf fit'")
    p.add_argument("data", help="rows (.csv or .arff) with the model's feature columns")
    p.add_argument("--row", type=int, default=0, help="row to explain, from 0 (default: 0)")
    p.add_argument("--plot", help="also draw the networks side by side into this PNG")
    _add_csv_options(p)
    p.set_defaults(func=cmd_explain)

    from .datasets import DEFAULT_DATASET, list_datasets

    p = sub.add_parser("demo", help="10-fold CV of NB, TAN and KDB on an embedded data set; "
                                    "TAN drawn as PNG and written as XMLBIF")
    p.add_argument("--dataset", default=DEFAULT_DATASET, choices=list_datasets(),
                   help="embedded data set (default: %(default)s)")
    p.add_argument("--folds", type=int, default=10, help="number of folds (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="shuffling seed (default: %(default)s)")
    p.add_argument("-o", "--output", default="bnclf-demo",
                   help="folder for the PNG, XMLBIF and results (default: %(default)s)")
    p.set_defaults(func=cmd_demo)

    try:
        from .evaluation.cli import add_compare_subparser
    except ImportError:  # the evaluation harness is optional at import time
        pass
    else:
        add_compare_subparser(sub)
    return parser


def main(argv=None):
    """Run the command line; user errors end with ``bnclf: error: ...`` and exit status 2."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, KeyError, RuntimeError, OSError) as exc:
        if isinstance(exc, BrokenPipeError):  # e.g. `bnclf predict ... | head`
            sys.stderr.close()
            return 0
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"bnclf: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
