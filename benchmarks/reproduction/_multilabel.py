"""One fold of seed 002's multilabel protocol (Corani et al. 2014) and its summary."""

from __future__ import annotations

import time
from argparse import Namespace

import numpy as np
import pandas as pd

from bnclf.evaluation._metrics import global_accuracy, hamming_accuracy
from bnclf.io._arff import load_mulan
from bnclf.models._multilabel import MultilabelBNClassifier, MultilabelBNEnsemble
from bnclf.models._multilabel_baselines import binary_relevance, ensemble_of_classifier_chains

#: the classifiers in the order of the paper's tables
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


def multilabel_fold(name: str, X: pd.DataFrame, Y: pd.DataFrame, split, *, ensemble_max_labels: int) -> dict:
    """One fold of seed 002's protocol (:func:`run_fold` with the paper's settings).

    Parameters
    ----------
    name : str
    X, Y : pandas.DataFrame
        Features and the label frame.
    split : Split
    ensemble_max_labels : int
        The BN ensemble runs only on data sets with at most this many labels.

    Returns
    -------
    dict
        The fold's global and Hamming accuracies per classifier (and their details).
    """
    args = Namespace(ensemble_max_labels=ensemble_max_labels, max_parents={})
    return run_fold(name, X, Y, split, args)
