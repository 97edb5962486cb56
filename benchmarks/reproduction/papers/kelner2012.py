"""Seed 001: Kelner & Lerner (2012), IJAR 53 -- RMCV and its comparators (Tables 2, 5 and 6).

The data set mapping with Table 6's NBC and TAN columns, the 13 classifiers, the published
accuracies of Tables 2 and 6, Table 5's iris figures and the headline protocol.
"""

from __future__ import annotations

from functools import partial

from .._data import drop_missing_rows, embedded, keel, uci_arff
from .._engine import spec_key
from .._folds import cv_fold, cv_splits, load_datasets, mean_over_folds, paper_frame
from .._paper import Paper

# Kelner & Lerner (2012) Table 6: mean (std) accuracy in %, 10 x CV5.
SEED001 = [
    # name, instances, features, classes, loader, source, NBC, NBC std, TAN, TAN std, note
    ("Australian", 690, 14, 2, keel("australian"), "keel:australian", 85.46, 2.3, 82.86, 3.1, ""),
    ("Breast", 683, 9, 2, keel("wisconsin"), "keel:wisconsin", 96.71, 1.5, 89.65, 2.3, ""),
    ("Chess", 3196, 36, 2, embedded("kr-vs-kp"), "embedded kr-vs-kp", 87.59, 1.1, 92.55, 1.1, ""),
    (
        "Cleve",
        296,
        11,
        2,
        drop_missing_rows(embedded("heart-c")),
        "embedded heart-c",
        82.87,
        3.6,
        80.73,
        4.0,
        "303 - 7 rows with missing values; 13 attributes, not 11",
    ),
    ("Crx", 653, 15, 2, keel("crx"), "keel:crx", 85.61, 2.3, 83.89, 2.7, ""),
    ("Diabetes", 768, 8, 2, keel("pima"), "keel:pima", 73.90, 2.8, 72.59, 3.3, "same data as Pima"),
    ("Glass", 214, 9, 6, uci_arff("glass.arff"), "uci/glass.arff", 57.61, 6.4, 56.65, 7.8, ""),
    ("Hayes", 160, 4, 3, keel("hayes-roth", nominal=(0, 1, 2, 3)), "keel:hayes-roth", 83.50, 5.2, 72.13, 6.6, ""),
    ("Heart", 270, 13, 2, keel("heart"), "keel:heart", 83.00, 4.6, 77.11, 5.0, ""),
    (
        "Hepatitis",
        80,
        19,
        2,
        drop_missing_rows(uci_arff("hepatitis.arff")),
        "uci/hepatitis.arff",
        82.25,
        9.2,
        84.25,
        10.2,
        "155 - 75 rows with missing values",
    ),
    ("Iris", 150, 4, 3, embedded("iris"), "embedded iris", 93.20, 4.0, 94.20, 3.7, ""),
    ("Letter", 20000, 16, 26, keel("letter"), "keel:letter", 74.71, 0.6, 87.32, 0.5, ""),
    ("Lymphography", 148, 18, 4, uci_arff("lymph.arff"), "uci/lymph.arff", 78.56, 6.2, 77.19, 6.4, ""),
    ("Pima", 768, 8, 2, keel("pima"), "keel:pima", 74.35, 2.9, 71.51, 3.5, "same data as Diabetes"),
    ("Tic-Tac-Toe", 958, 9, 2, keel("tic-tac-toe"), "keel:tic-tac-toe", 69.96, 3.0, 76.23, 3.0, ""),
    ("Vehicle", 846, 18, 4, keel("vehicle"), "keel:vehicle", 63.71, 3.5, 73.85, 3.6, ""),
    ("Voting", 232, 16, 2, keel("housevotes"), "keel:housevotes", 91.92, 3.6, 94.33, 3.8, ""),
]
SEED001_MISSING = [
    "Corral (synthetic)",
    "Flare (1389 rows)",
    "Glass2 (163-row subset of glass)",
    "Mofn (synthetic)",
    "Shuttle (5800-row MLC++ subset; we have the 58000 rows)",
]

CLASSIFIERS = {
    "RMCV (NBC)": "rmcv",
    "RMCV (empty)": "rmcv(start=empty)",
    "RMHO (NBC)": "rmho",
    "RMHO-f (NBC)": "rmho-f",
    "RMHO-ar (NBC)": "rmho-ar",
    "MDL (NBC)": "hc(criterion=mdl)",
    "MDL (empty)": "hc(criterion=mdl, start=empty)",
    "K2 (NBC)": "hc(criterion=k2)",
    "K2 (empty)": "hc(criterion=k2, start=empty)",
    "BNC-MDL": "bnc-mdl",
    "BNC-2P": "bnc-2p",
    "NBC": "nb",
    "TAN": "tan",
}
# seed 001, Table 2 (RMCV and RMHO variants) and Table 6 (comparators), mean accuracy %:
# one row per data set (PAPER_DATASETS), one column per classifier (in CLASSIFIERS' order)
_TABLE = """
Australian    86.14  85.10  86.01  85.65  85.65  86.26  85.72  84.33  83.96  84.77  81.14  85.46  82.86
Breast        96.91  96.56  96.85  96.79  96.79  97.08  96.29  96.71  95.40  91.83  77.12  96.71  89.65
Chess         97.43  94.25  92.78  94.93  94.93  95.64  94.66  94.89  95.40  95.41  93.16  87.59  92.55
Cleve         81.53  76.73  82.53  81.87  81.87  80.27  81.20  79.93  80.47  80.70  79.63  82.87  80.73
Crx           85.71  85.71  85.67  85.31  85.31  86.21  86.17  84.21  84.26  85.62  81.80  85.61  83.89
Diabetes      74.03  74.50  73.73  73.73  73.73  73.41  73.94  73.54  73.95  75.60  71.09  73.90  72.59
Glass         57.39  56.87  57.13  57.43  57.43  50.30  47.48  51.22  50.13  46.52  56.78  57.61  56.65
Hayes         84.75  84.38  82.31  82.19  82.19  85.69  85.69  85.69  81.56  85.69  66.69  83.50  72.13
Heart         81.52  74.59  82.41  81.70  81.70  81.96  81.07  81.44  81.26  80.52  59.56  83.00  77.11
Hepatitis     81.75  77.00  82.25  81.75  81.75  70.88  71.13  57.00  58.75  74.63  46.50  82.25  84.25
Iris          93.73  94.60  93.33  93.67  93.67  93.20  93.73  93.27  93.33  95.07  94.13  93.20  94.20
Letter        83.40  83.24  99.41  82.93  82.93  74.91  74.56  78.48  78.39  74.51  81.32  74.71  87.32
Lymphography  79.06  76.13  77.81  76.94  76.94  76.00  69.94  72.75  71.06  72.94  61.50  78.56  77.19
Pima          74.71  73.96  74.44  74.31  74.31  72.08  72.08  73.18  73.18  71.94  53.50  74.35  71.51
Tic-Tac-Toe   89.98  79.13  73.31  80.75  80.52  68.21  68.59  68.64  68.34  72.74  72.45  69.96  76.23
Vehicle       69.51  69.51  66.52  68.39  68.39  62.88  60.25  67.31  64.92  61.92  70.99  63.71  73.85
Voting        94.71  96.88  93.83  93.75  93.75  92.83  94.67  90.04  91.00  96.83  96.71  91.92  94.33
"""
PAPER_DATASETS = [line.split()[0] for line in _TABLE.strip().splitlines()]
PAPER = {
    label: [float(line.split()[1 + j]) for line in _TABLE.strip().splitlines()] for j, label in enumerate(CLASSIFIERS)
}
PAPER_TABLE5 = {"RMCV": 0.15e-2, "RMHO": 0.37e-2, "RMHO-f": 0.52e-2, "Training": 2.46e-2}


def make_paper(quick: bool = False) -> Paper:
    """Seed 001, Tables 2 and 6: 10 x CV5 (Letter 1 x CV5), MDL, rows with missing values removed."""
    seed, clfs = 0, CLASSIFIERS
    repeats = 2 if quick else 10
    specs = [(s[0], s[4], s[5]) for s in SEED001]
    run_of, seen = {}, {}
    for name, _, source in specs:
        run_of[name] = seen.setdefault(source, name)
    paper = paper_frame(
        [
            (name, run_of[name], label, "accuracy (%)", values[PAPER_DATASETS.index(name)])
            for name in PAPER_DATASETS
            for label, values in PAPER.items()
        ]
    )
    only = ("Iris", "Cleve", "Hayes") if quick else None
    return Paper(
        key="kelner2012",
        seed="001",
        title="Kelner & Lerner (2012), Tables 2 and 6",
        protocol={
            "classifiers": {k: spec_key(v) for k, v in clfs.items()},
            "n_splits": 5,
            "seed": seed,
            "discretizer": "mdl",
            "rows with missing values": "removed",
        },
        protocol_text=(
            f"{repeats} x CV5 (five stratified folds, {repeats} permutations from fold seed {seed}; "
            "data sets over 10,000 rows, i.e. Letter, 1 x CV5), the same folds for every classifier, "
            "MDL discretization inside each training fold, instances with missing values removed; the "
            "searched networks with maximum likelihood (m = 0), NBC and TAN with m = 1; RMCV with K = 4 "
            "internal folds. Accuracy in %, the mean over the folds."
            + (" Quick mode: the paper has 10 permutations." if quick else "")
        ),
        version="kelner2012-1",
        load=partial(load_datasets, specs, only=only, drop_missing=True),
        splits=partial(cv_splits, n_splits=5, n_repeats=lambda ds: 1 if len(ds.y) > 10000 else repeats, seed=seed),
        task=cv_fold,
        task_kwargs={"classifiers": clfs, "discretizer": "mdl", "seed": seed},
        aggregate=partial(mean_over_folds, metric="accuracy", measure="accuracy (%)", scale=100.0),
        paper_values=paper,
        classifiers=list(clfs),
        measures=["accuracy (%)"],
        scale=100.0,
        resolution=0.005,
        notes=[
            "Pima is the same data as Diabetes and is run once.",
            "Not available: " + ", ".join(SEED001_MISSING) + ".",
        ],
        mode=f"quick (3 small data sets, {repeats} x CV5)" if quick else "full",
    )
