"""Seed 002: Corani, Antonucci, Mauá & Gabaglio (2014) -- multilabel classification (Tables 2-5).

The MULAN data sets, the published values of Tables 2-5 and the headline protocol (one
fold is :func:`reproduction._multilabel.run_fold`).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from bnclf.evaluation import multilabel_cv_splits

from .._folds import paper_frame
from .._multilabel import ORDER, load_set, multilabel_fold, summarize
from .._paper import Dataset, Paper

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


def _multilabel_ours(ds: Dataset, folds: list) -> pd.DataFrame:
    summary = summarize([res for _, res in folds])[ds.name]
    rows = []
    for clf in ORDER:
        for measure, key in (("global accuracy", "global"), ("Hamming accuracy", "hamming")):
            rows.append(
                {"classifier": clf, "measure": measure, "ours": summary[clf][key] if clf in summary else np.nan}
            )
    return pd.DataFrame(rows)


def _load_multilabel(data_dir, only=None):
    from bnclf.datasets import load_multilabel_dataset

    datasets, skipped = [], []
    for name, rel in DATASETS.items():
        if only is not None and name not in only:
            continue
        path = Path(data_dir) / rel if data_dir is not None else None
        if path is not None and path.exists():
            X, Y = load_set(path)
            datasets.append(Dataset(name, X, Y, str(path)))
        elif name == "emotions":
            X, Y = load_multilabel_dataset("emotions")
            datasets.append(Dataset(name, X, Y, "embedded emotions"))
        else:
            skipped.append(f"{name} ({rel} not in --data)")
    return datasets, skipped


def make_paper(quick: bool = False) -> Paper:
    """Seed 002, Tables 3-4: 5-fold CV stratified on the least relevant label."""
    seed, max_labels = 0, 16
    rows = [
        (name, name, clf, measure, p[key][j])
        for name, p in PAPER.items()
        for j, clf in enumerate(ORDER)
        for measure, key in (("global accuracy", "global"), ("Hamming accuracy", "hamming"))
    ]
    return Paper(
        key="corani2014",
        seed="002",
        title="Corani, Antonucci, Mauá & Gabaglio (2014), Tables 3-4",
        protocol={"folds": 5, "seed": seed, "ensemble_max_labels": max_labels, "max_parents": {}},
        protocol_text=(
            f"5-fold CV stratified on the least relevant label (fold seed {seed}); per training part: "
            "quartile bins, CFS per label (union kept), then the BN ensemble (only on data sets with at most "
            f"{max_labels} labels), mNB, mFAN, ECC and BR (on the features CFS selected). Global and Hamming "
            "accuracy with the empty prediction prevented, the mean over the folds. Scene is not available."
        ),
        version="corani2014-1",
        load=partial(_load_multilabel, only=("emotions",) if quick else None),
        splits=lambda ds: multilabel_cv_splits(ds.y.to_numpy(), n_splits=5, random_state=seed),
        task=multilabel_fold,
        task_kwargs={"ensemble_max_labels": max_labels},
        aggregate=_multilabel_ours,
        paper_values=paper_frame(rows),
        classifiers=list(ORDER),
        measures=["global accuracy", "Hamming accuracy"],
        resolution=0.005,
        mode="quick (emotions)" if quick else "full",
    )
