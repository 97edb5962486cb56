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

Run: ``python benchmarks/reproduce_multilabel.py [--data-dir ../shared/data/multilabel]
[--only emotions,yeast]``. Writes ``benchmarks/results/reproduction/multilabel_seed002.json``
and prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from bnclf.evaluation._metrics import global_accuracy, hamming_accuracy
from bnclf.evaluation._protocols import multilabel_cv_splits
from bnclf.io._arff import load_mulan
from bnclf.models._multilabel import MultilabelBNClassifier, MultilabelBNEnsemble
from bnclf.models._multilabel_baselines import binary_relevance, ensemble_of_classifier_chains

HERE = Path(__file__).resolve().parent
DATASETS = {  # name: ARFF path under the data folder (labels from the XML beside it)
    "emotions": "emotions/emotions.arff",
    "yeast": "yeast/yeast.arff.gz",
    "slashdot": "slashdot/slashdot.arff",
    "genbase": "genbase/genbase.arff.gz",
    "enron": "enron/enron.arff",
    "cal500": "cal500/cal500.arff",
    "medical": "medical/medical.arff",
}
# Table 2 (treewidth mNB/ensemble, selected/original features), Tables 3-4
# (ensemble, mNB, mFAN, ECC, BR), Table 5 (global accuracy, empty prevented/allowed)
PAPER = {
    "emotions": {
        "tw": (5, 6),
        "features": (22, 72),
        "global": (0.28, 0.22, 0.22, 0.25, 0.25),
        "hamming": (0.79, 0.77, 0.77, 0.76, 0.75),
    },
    "yeast": {
        "tw": (8, 14),
        "features": (28, 103),
        "global": (0.14, 0.07, 0.09, 0.13, 0.11),
        "hamming": (0.78, 0.77, 0.76, 0.76, 0.75),
    },
    "slashdot": {
        "tw": (22, 22),
        "features": (465, 1079),
        "global": (0.49, 0.42, 0.42, 0.44, 0.41),
        "hamming": (0.96, 0.95, 0.95, 0.95, 0.86),
        "empty": ((0.49, 0.40), (0.42, 0.34)),
    },
    "genbase": {
        "tw": (23, 27),
        "features": (82, 1186),
        "global": (0.95, 0.94, 0.93, 0.76, 0.77),
        "hamming": (1.00, 1.00, 1.00, 0.99, 0.98),
        "empty": ((0.95, 0.94), (0.94, 0.94)),
    },
    "enron": {
        "tw": (32, 53),
        "features": (220, 1001),
        "global": (0.12, 0.06, 0.11, 0.02, 0.02),
        "hamming": (0.95, 0.94, 0.94, 0.77, 0.87),
        "empty": ((0.12, 0.07), (0.06, 0.05)),
    },
    "cal500": {
        "tw": (10, 174),
        "features": (66, 68),
        "global": (0.00, 0.00, 0.00, 0.00, 0.00),
        "hamming": (0.86, 0.86, 0.86, 0.59, 0.63),
    },
    "medical": {
        "tw": (35, 45),
        "features": (436, 1449),
        "global": (0.69, 0.65, 0.62, 0.20, 0.18),
        "hamming": (0.99, 0.99, 0.98, 0.98, 0.69),
        "empty": ((0.69, 0.64), (0.65, 0.60)),
    },
}
ORDER = ("ensemble", "mNB", "mFAN", "ECC", "BR")


def load_set(path):
    """A MULAN data set without its identifier columns (features, label frame)."""
    X, Y = load_mulan(path)
    identifiers = [
        c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c]) and X[c].nunique(dropna=False) >= len(X)
    ]
    return X.drop(columns=identifiers), Y  # a text column with a value per row (genbase's protein id)


def run_fold(name, X, Y, split, args):
    """Every classifier on one split of the protocol; the fold's results as a JSON-able dict."""
    labels = Y.to_numpy()
    with_ensemble = labels.shape[1] <= args.ensemble_max_labels
    X_tr, X_te = X.iloc[split.train], X.iloc[split.test]
    Y_tr, Y_te = Y.iloc[split.train], labels[split.test]
    fold = {"dataset": name, "fold": split.fold, "n_test": len(split.test)}
    bound = args.max_parents.get(name)
    models = {
        "mNB": MultilabelBNClassifier(class_graph="nb", max_parents=bound),
        "mFAN": MultilabelBNClassifier(class_graph="fan", max_parents=bound),
    }
    if with_ensemble:
        models["ensemble"] = MultilabelBNEnsemble(max_parents=bound)
    selected = None
    for key, model in models.items():
        start = time.perf_counter()
        model.fit(X_tr, Y_tr)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        model.set_params(allow_empty=True)
        plain = model.predict(X_te)
        # the empty-prevented answer from the same MAP (what predict does with allow_empty=False)
        pred = model._kernel.nonempty_map(model._encode(X_te), list(range(labels.shape[1])), {}, plain)
        predict_s = time.perf_counter() - start
        fold[key] = {
            "global": global_accuracy(Y_te, pred),
            "hamming": hamming_accuracy(Y_te, pred),
            "bound": bound,
            "global_empty_allowed": global_accuracy(Y_te, plain),
            "hamming_empty_allowed": hamming_accuracy(Y_te, plain),
            "empty_answers_allowed": int((~plain.any(axis=1)).sum()),
            "treewidth": int(model.treewidth_),
            "selected": len(model.selected_features_),
            "max_parents": int(model.bridge_stats_["max_parents"]),
            "fit_s": fit_s,
            "predict_s": predict_s,
        }
        if key == "mNB":
            selected = list(model.selected_features_)
            fold["root"] = str(model.root_)
    for key, model in (("BR", binary_relevance()), ("ECC", ensemble_of_classifier_chains(random_state=0))):
        start = time.perf_counter()
        model.fit(X_tr[selected], Y_tr)
        fit_s = time.perf_counter() - start
        pred = np.asarray(model.predict(X_te[selected]))
        fold[key] = {
            "global": global_accuracy(Y_te, pred),
            "hamming": hamming_accuracy(Y_te, pred),
            "empty_answers": int((~pred.any(axis=1)).sum()),
            "fit_s": fit_s,
        }
    return fold


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


def summarize(rows):
    out = {}
    for name in dict.fromkeys(r["dataset"] for r in rows):
        folds = [r for r in rows if r["dataset"] == name]
        entry = {}
        for key in ORDER:
            if key not in folds[0]:
                continue
            entry[key] = {
                metric: float(np.mean([f[key][metric] for f in folds]))
                for metric in folds[0][key]
                if metric not in ("max_parents", "bound")
            }
        out[name] = entry
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=HERE.parent.parent / "shared" / "data" / "multilabel")
    parser.add_argument("--only", default=",".join(DATASETS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ensemble-max-labels", type=int, default=16)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "reproduction" / "multilabel_seed002.json")
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    parser.add_argument("--keep", action="store_true", help="keep other data sets' results from --out")
    parser.add_argument("--max-parents", default="", help="per data set bridge bounds, e.g. medical=2")
    args = parser.parse_args(argv)
    args.max_parents = {k: int(v) for k, v in (item.split("=") for item in args.max_parents.split(",") if item)}
    warnings.simplefilter("ignore")

    def log(msg):
        tqdm.write(msg)

    rows = []
    if args.keep and args.out.exists():  # keep the other data sets' folds from an earlier run
        rows = [r for r in json.loads(args.out.read_text())["folds"] if r["dataset"] not in args.only.split(",")]
    for name in args.only.split(","):
        X, Y = load_set(args.data_dir / DATASETS[name])
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


if __name__ == "__main__":
    main()
