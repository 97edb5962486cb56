"""Multilabel speed: batched exact queries against pgmpy, and how learning grows.

1. **Queries.** mNB and mFAN fitted on 80% of emotions and yeast (quartile
   discretization and CFS, the paper's defaults). On the held-out rows: the joint
   MAP of all classes (empty prevented and allowed) and the per-class marginals,
   batched over all rows, against pgmpy 1.x ``VariableElimination.map_query`` and
   ``.query(joint=False)`` on ``to_pgmpy()``, one call per row with the row's
   selected features as evidence (the only way pgmpy answers a batch). pgmpy is
   timed on the first ``--pgmpy-rows`` rows and both sides are reported per row;
   the answers are compared on those rows (marginals to 1e-9; MAP by the
   probability it attains, since ties may pick different states).
2. **Learning growth.** Fit time of mNB (no feature selection, so the bridge search
   is what grows) on yeast against the number of labels (the first n of 14) and
   of features (the first m of 103), with log-log slopes; and CFS's share.

Run: ``python -m benchmarks.speed multilabel [--data-dir ../shared/data/multilabel]``.
Writes ``benchmarks/results/multilabel_speed.json`` (or ``--out``) and prints
Markdown tables.
"""

from __future__ import annotations

import argparse
import platform
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.speed.harness import REPO, RESULTS, best_of, write_json
from bnclf.io._arff import read_arff
from bnclf.models._multilabel import MultilabelBNClassifier

DATA = {"emotions": ("emotions/emotions.arff", 6), "yeast": ("yeast/yeast.arff.gz", 14)}


def load(data_dir: Path, name: str):
    path, n_labels = DATA[name]
    frame = read_arff(data_dir / path)
    return frame.iloc[:, :-n_labels], frame.iloc[:, -n_labels:].astype(int)


def pgmpy_answers(model, rows: pd.DataFrame):
    """Per-row pgmpy MAP and marginals with the selected features as evidence."""
    from bnclf.io._pgmpy import variable_elimination

    infer = variable_elimination(model.to_pgmpy())
    states = model.network_.categories
    codes = model._encode(rows)
    names = model._encoder.feature_names_
    labels = [str(x) for x in model.label_names_]
    maps, margs, t_map, t_marg = [], [], 0.0, 0.0
    for r in range(len(rows)):
        evidence = {
            str(f): states[f][codes[r, names.index(f)]]
            for f in model.selected_features_
            if codes[r, names.index(f)] >= 0
        }
        seconds, answer = best_of(lambda: infer.map_query(labels, evidence=evidence, show_progress=False), 1)
        t_map += seconds
        seconds, factors = best_of(lambda: infer.query(labels, evidence=evidence, joint=False, show_progress=False), 1)
        t_marg += seconds
        maps.append([int(answer[name]) for name in labels])
        margs.append([factors[name].values[factors[name].state_names[name].index(1)] for name in labels])
    return np.array(maps), np.array(margs), t_map / len(rows), t_marg / len(rows)


def attained(model, rows, states):
    """``log P(c, x)`` of one configuration per row, from the model's exact kernel."""
    kernel = model._kernel
    codes = model._encode(rows)
    given_rows = []
    for r in range(len(rows)):
        given = {i: int(v) for i, v in enumerate(states[r])}
        _, value = kernel.map_value(codes[r : r + 1], [], given)
        given_rows.append(value[0])
    return np.array(given_rows)


def query_benchmark(data_dir, name, kind, n_pgmpy, log):
    X, Y = load(data_dir, name)
    cut = int(0.8 * len(X))
    model = MultilabelBNClassifier(class_graph=kind).fit(X.iloc[:cut], Y.iloc[:cut])
    test = X.iloc[cut:]
    n = len(test)
    t_joint, pred = best_of(lambda: model.predict(test), 3)
    model.set_params(allow_empty=True)
    t_plain, plain = best_of(lambda: model.predict(test), 3)
    model.set_params(allow_empty=False)
    t_marg, marg = best_of(lambda: model.predict_proba(test), 3)
    log(
        f"{name} {kind}: ours {1e3 * t_plain / n:.3f} ms/row MAP, {1e3 * t_marg / n:.3f} ms/row marginals; "
        f"pgmpy on {n_pgmpy} rows ..."
    )
    sub = test.iloc[:n_pgmpy]
    pg_map, pg_marg, pg_t_map, pg_t_marg = pgmpy_answers(model, sub)
    same_marg = float(np.abs(pg_marg - marg[:n_pgmpy]).max())
    ours_value = attained(model, sub, plain[:n_pgmpy])
    pg_value = attained(model, sub, pg_map)
    same_map = bool(np.allclose(ours_value, pg_value, atol=1e-9))
    return {
        "dataset": name,
        "model": "mFAN" if kind == "fan" else "mNB",
        "test_rows": n,
        "labels": len(model.label_names_),
        "selected_features": len(model.selected_features_),
        "treewidth": int(model.treewidth_),
        "ours_map_ms_per_row": 1e3 * t_plain / n,
        "ours_nonempty_map_ms_per_row": 1e3 * t_joint / n,
        "ours_marginals_ms_per_row": 1e3 * t_marg / n,
        "pgmpy_rows": n_pgmpy,
        "pgmpy_map_ms_per_row": 1e3 * pg_t_map,
        "pgmpy_marginals_ms_per_row": 1e3 * pg_t_marg,
        "map_speedup": pg_t_map / (t_plain / n),
        "marginals_speedup": pg_t_marg / (t_marg / n),
        "max_marginal_difference": same_marg,
        "map_attains_pgmpy_value": same_map,
        "empty_map_rows": int((~plain.any(axis=1)).sum()),
    }


def growth_benchmark(data_dir, log):
    X, Y = load(data_dir, "yeast")
    rows = []
    for n_labels in (2, 4, 6, 8, 10, 12, 14):
        t, model = best_of(lambda: MultilabelBNClassifier(feature_selection=None).fit(X, Y.iloc[:, :n_labels]), 1)
        rows.append(
            {
                "vary": "labels",
                "labels": n_labels,
                "features": X.shape[1],
                "fit_s": t,
                "max_parents": model.bridge_stats_["max_parents"],
                "sets_scored": model.bridge_stats_["scored"],
            }
        )
        log(f"labels={n_labels}: {t:.2f} s")
    for n_features in (10, 25, 50, 103):
        t, model = best_of(lambda: MultilabelBNClassifier(feature_selection=None).fit(X.iloc[:, :n_features], Y), 1)
        rows.append(
            {
                "vary": "features",
                "labels": 14,
                "features": n_features,
                "fit_s": t,
                "max_parents": model.bridge_stats_["max_parents"],
                "sets_scored": model.bridge_stats_["scored"],
            }
        )
        log(f"features={n_features}: {t:.2f} s")
    t_cfs, _ = best_of(lambda: MultilabelBNClassifier().fit(X, Y), 1)
    return rows, t_cfs


def slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data" / "multilabel")
    parser.add_argument("--pgmpy-rows", type=int, default=25)
    parser.add_argument("--out", type=Path, default=RESULTS / "multilabel_speed.json")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", FutureWarning)

    def log(msg):
        print(msg, flush=True)

    queries = [
        query_benchmark(args.data_dir, name, kind, args.pgmpy_rows, log)
        for name in ("emotions", "yeast")
        for kind in ("nb", "fan")
    ]
    growth, t_cfs = growth_benchmark(args.data_dir, log)
    by_labels = [r for r in growth if r["vary"] == "labels"]
    by_features = [r for r in growth if r["vary"] == "features"]
    result = {
        "machine": {"python": platform.python_version(), "cpu_count": __import__("os").cpu_count()},
        "queries": queries,
        "growth": growth,
        "slope_fit_vs_labels": slope([r["labels"] for r in by_labels], [r["fit_s"] for r in by_labels]),
        "slope_fit_vs_features": slope([r["features"] for r in by_features], [r["fit_s"] for r in by_features]),
        "yeast_fit_with_cfs_s": t_cfs,
    }
    write_json(args.out, result, newline=False)
    print(
        "\n| data | model | tw | labels | features | ours MAP ms/row | pgmpy MAP ms/row | MAP x "
        "| ours marginals ms/row | pgmpy marginals ms/row | marginals x | max diff | MAP same value |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for q in queries:
        print(
            f"| {q['dataset']} | {q['model']} | {q['treewidth']} | {q['labels']} | {q['selected_features']} "
            f"| {q['ours_map_ms_per_row']:.3f} | {q['pgmpy_map_ms_per_row']:.1f} | {q['map_speedup']:.0f} "
            f"| {q['ours_marginals_ms_per_row']:.3f} | {q['pgmpy_marginals_ms_per_row']:.1f} "
            f"| {q['marginals_speedup']:.0f} | {q['max_marginal_difference']:.1e} "
            f"| {q['map_attains_pgmpy_value']} |"
        )
    print("\n| vary | labels | features | bound g | sets scored | fit s |")
    print("|---|---|---|---|---|---|")
    for r in growth:
        print(
            f"| {r['vary']} | {r['labels']} | {r['features']} | {r['max_parents']} | {r['sets_scored']:,} "
            f"| {r['fit_s']:.2f} |"
        )
    print(
        f"\nslopes: fit ~ labels^{result['slope_fit_vs_labels']:.2f}, "
        f"features^{result['slope_fit_vs_features']:.2f}; yeast with CFS {t_cfs:.2f} s"
    )


if __name__ == "__main__":
    main()
