"""Seed 003: Long, Wang & Sun (2019), ETAN, Entropy 21, 721 -- Tables A1-A3, 2 and 3.

The data set mapping with Tables A2-A3's NB, TAN and KDB columns, the classifier set (with
scikit-learn's logistic regression), the published bias and variance of all seven columns,
the W/D/L records of Tables 2-3 and the headline protocol.
"""

from __future__ import annotations

from functools import partial

import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

from .._data import ImputeThenMDL, embedded, keel, uci_arff
from .._engine import spec_key
from .._folds import bias_variance, cv_fold, cv_splits, load_datasets, paper_frame
from .._paper import Paper


def _as_str(X):
    """Discretized frame -> strings, so that OneHotEncoder sees one type per column."""
    return pd.DataFrame(X).astype(str)


def make_lr(C=1.0):
    """scikit-learn LR on one-hot codes of the (discretized) attributes."""
    return make_pipeline(
        FunctionTransformer(_as_str), OneHotEncoder(handle_unknown="ignore"), LogisticRegression(C=C, max_iter=10000)
    )


def seed003_classifiers():
    """Seed 003's classifiers: our label -> spec or estimator (two logistic regressions)."""
    return {
        "NB": "nb",
        "TAN": "tan",
        "KDB": "kdb(k=2)",
        "ETAN": "etan(k=2)",
        "AODE": "aode",
        "WAODE": "waode",
        "LR": make_lr(1.0),
        "LR(C=1e4)": make_lr(1e4),
    }


# Tables A2 (bias) and A3 (variance): NB, TAN, KDB (k = 2) columns.
SEED003 = [
    # name, instances, attributes, classes, loader, source, bias NB/TAN/KDB, var NB/TAN/KDB, note
    (
        "Labor",
        57,
        16,
        2,
        uci_arff("labor.arff"),
        "uci/labor.arff",
        (0.0289, 0.0211, 0.0279),
        (0.0395, 0.0632, 0.0721),
        "",
    ),
    ("Iris", 150, 4, 3, embedded("iris"), "embedded iris", (0.0590, 0.0550, 0.0656), (0.0390, 0.0510, 0.0364), ""),
    (
        "Hungarian",
        294,
        13,
        2,
        uci_arff("heart-h.arff"),
        "uci/heart-h.arff",
        (0.1646, 0.1454, 0.1480),
        (0.0201, 0.0556, 0.0561),
        "",
    ),
    (
        "Heart-Disease-C",
        303,
        13,
        2,
        embedded("heart-c"),
        "embedded heart-c",
        (0.1297, 0.1263, 0.1299),
        (0.0248, 0.0479, 0.0582),
        "",
    ),
    (
        "Ionosphere",
        351,
        34,
        2,
        keel("ionosphere"),
        "keel:ionosphere",
        (0.1220, 0.0800, 0.0855),
        (0.0242, 0.0414, 0.0581),
        "",
    ),
    (
        "Balance-Scale",
        625,
        4,
        3,
        uci_arff("balance-scale.arff"),
        "uci/balance-scale.arff",
        (0.1840, 0.1843, 0.1902),
        (0.0848, 0.0941, 0.0872),
        "",
    ),
    (
        "Soybean",
        683,
        35,
        19,
        embedded("soybean"),
        "embedded soybean",
        (0.1015, 0.0504, 0.0491),
        (0.0302, 0.0593, 0.0439),
        "",
    ),
    (
        "Breast-Cancer-W",
        699,
        9,
        2,
        uci_arff("breast-w.arff"),
        "uci/breast-w.arff",
        (0.0187, 0.0315, 0.0449),
        (0.0010, 0.0372, 0.0504),
        "",
    ),
    ("Pima-Ind-Diabetes", 768, 8, 2, keel("pima"), "keel:pima", (0.1957, 0.1946, 0.1944), (0.0715, 0.0663, 0.0689), ""),
    ("Vehicle", 846, 18, 4, keel("vehicle"), "keel:vehicle", (0.3330, 0.2384, 0.2494), (0.1120, 0.1297, 0.1283), ""),
    (
        "Anneal",
        898,
        38,
        6,
        uci_arff("anneal.arff"),
        "uci/anneal.arff",
        (0.0354, 0.0195, 0.0073),
        (0.0168, 0.0156, 0.0152),
        "",
    ),
    (
        "Vowel",
        990,
        13,
        11,
        keel("vowel", nominal=(0, 1, 2)),
        "keel:vowel",
        (0.3301, 0.1931, 0.1745),
        (0.2542, 0.2466, 0.2325),
        "",
    ),
    (
        "Waveform-5000",
        5000,
        40,
        3,
        uci_arff("waveform-5000.arff.gz"),
        "uci/waveform-5000.arff.gz",
        (0.1762, 0.1232, 0.1157),
        (0.0259, 0.0687, 0.0843),
        "",
    ),
    (
        "Page-Blocks",
        5473,
        10,
        5,
        uci_arff("page-blocks.arff"),
        "uci/page-blocks.arff",
        (0.0451, 0.0306, 0.0280),
        (0.0135, 0.0144, 0.0177),
        "",
    ),
    (
        "Optdigits",
        5620,
        64,
        10,
        keel("optdigits"),
        "keel:optdigits",
        (0.0685, 0.0275, 0.0250),
        (0.0153, 0.0185, 0.0254),
        "",
    ),
    (
        "Satellite",
        6435,
        36,
        6,
        keel("satimage"),
        "keel:satimage",
        (0.1746, 0.0948, 0.0808),
        (0.0139, 0.0368, 0.0455),
        "",
    ),
    (
        "Letter-Recog",
        20000,
        16,
        26,
        keel("letter"),
        "keel:letter",
        (0.2207, 0.1032, 0.1387),
        (0.0471, 0.0591, 0.0113),
        "",
    ),
]
SEED003_DIFFERENT = [
    "House-Votes-84 (keel:housevotes has 232 of 435 rows)",
    "Cylinder-Bands (keel:bands 365 x 19 vs 540 x 39)",
    "Credit-A (keel:crx has 653 of 690 rows)",
    "Led (keel:led7digit has 500 of 1000 rows)",
    "Spambase (keel:spambase has 4597 of 4601 rows)",
    "Mushrooms (keel:mushroom has 5644 of 8124 rows)",
    "Poker-Hand (25010 of 1025010 rows)",
    "Lymphography (Table 1 row garbled in the text copy)",
    "Labor-Negotiations (the same UCI data as Labor; the paper's two rows differ)",
    "Adult, Connect-4 (available, left out for time)",
]

# Seed 003 Tables A2 (bias) and A3 (variance), as printed, for the 17 mapped data sets.
# Columns: NB, TAN, KDB, LR, ETAN, AODE, WAODE. The WAODE column is the printed one:
# Table 2's WAODE cells are computed from it, but many of its rows are not aligned
# with their data set (e.g. Satellite bias 0.0002; see docs/reproduction.md).
PAPER003_COLS = ("NB", "TAN", "KDB", "LR", "ETAN", "AODE", "WAODE")
TABLE_A2 = {  # bias
    "Labor": (0.0289, 0.0211, 0.0279, 0.0211, 0.0274, 0.0205, 0.0200),
    "Iris": (0.0590, 0.0550, 0.0656, 0.0343, 0.0760, 0.0626, 0.0624),
    "Hungarian": (0.1646, 0.1454, 0.1480, 0.1057, 0.1456, 0.1597, 0.1611),
    "Heart-Disease-C": (0.1297, 0.1263, 0.1299, 0.1300, 0.1300, 0.1171, 0.1092),
    "Ionosphere": (0.1220, 0.0800, 0.0855, 0.1117, 0.0817, 0.0903, 0.0061),
    "Balance-Scale": (0.1840, 0.1843, 0.1902, 0.0753, 0.1877, 0.1905, 0.0503),
    "Soybean": (0.1015, 0.0504, 0.0491, 0.0656, 0.0622, 0.0690, 0.0900),
    "Breast-Cancer-W": (0.0187, 0.0315, 0.0449, 0.0375, 0.0263, 0.0243, 0.1941),
    "Pima-Ind-Diabetes": (0.1957, 0.1946, 0.1944, 0.1898, 0.1905, 0.1935, 0.2398),
    "Vehicle": (0.3330, 0.2384, 0.2494, 0.1540, 0.2482, 0.2435, 0.0194),
    "Anneal": (0.0354, 0.0195, 0.0073, 0.0788, 0.0186, 0.0180, 0.2104),
    "Vowel": (0.3301, 0.1931, 0.1745, 0.1688, 0.2135, 0.2268, 0.1811),
    "Waveform-5000": (0.1762, 0.1232, 0.1157, 0.1207, 0.1122, 0.1233, 0.2172),
    "Page-Blocks": (0.0451, 0.0306, 0.0280, 0.0282, 0.0259, 0.0259, 0.0224),
    "Optdigits": (0.0685, 0.0275, 0.0250, 0.0382, 0.0182, 0.0203, 0.0902),
    "Satellite": (0.1746, 0.0948, 0.0808, 0.1064, 0.0834, 0.0889, 0.0002),
    "Letter-Recog": (0.2207, 0.1032, 0.1387, 0.1945, 0.0569, 0.0806, 0.0892),
}
TABLE_A3 = {  # variance
    "Labor": (0.0395, 0.0632, 0.0721, 0.0328, 0.0779, 0.0268, 0.0221),
    "Iris": (0.0390, 0.0510, 0.0364, 0.0327, 0.0460, 0.0394, 0.0396),
    "Hungarian": (0.0201, 0.0556, 0.0561, 0.0751, 0.0411, 0.0270, 0.0317),
    "Heart-Disease-C": (0.0248, 0.0479, 0.0582, 0.0920, 0.0591, 0.0304, 0.0383),
    "Ionosphere": (0.0242, 0.0414, 0.0581, 0.0946, 0.0448, 0.0319, 0.0242),
    "Balance-Scale": (0.0848, 0.0941, 0.0872, 0.0339, 0.0863, 0.0854, 0.0334),
    "Soybean": (0.0302, 0.0593, 0.0439, 0.0839, 0.0395, 0.0288, 0.0321),
    "Breast-Cancer-W": (0.0010, 0.0372, 0.0504, 0.0395, 0.0376, 0.0118, 0.0700),
    "Pima-Ind-Diabetes": (0.0715, 0.0663, 0.0689, 0.0425, 0.0697, 0.0729, 0.1276),
    "Vehicle": (0.1120, 0.1297, 0.1283, 0.0797, 0.1330, 0.1246, 0.0161),
    "Anneal": (0.0168, 0.0156, 0.0152, 0.0593, 0.0139, 0.0118, 0.0604),
    "Vowel": (0.2542, 0.2466, 0.2325, 0.2239, 0.2310, 0.2465, 0.2489),
    "Waveform-5000": (0.0259, 0.0687, 0.0843, 0.0310, 0.0693, 0.0403, 0.1311),
    "Page-Blocks": (0.0135, 0.0144, 0.0177, 0.0123, 0.0139, 0.0111, 0.0137),
    "Optdigits": (0.0153, 0.0185, 0.0254, 0.0752, 0.0162, 0.0133, 0.0364),
    "Satellite": (0.0139, 0.0368, 0.0455, 0.0517, 0.0395, 0.0325, 0.0001),
    "Letter-Recog": (0.0471, 0.0591, 0.0113, 0.0422, 0.0523, 0.0709, 0.0417),
}
# Seed 003 Table 2 (W/D/L on 40 data sets, 5 % rule) and Table 3 (ETAN vs LR, 38 sets).
TABLE2 = {
    "loss": {
        ("ETAN", "NB"): "30/6/4",
        ("ETAN", "TAN"): "21/11/8",
        ("ETAN", "KDB"): "19/12/9",
        ("ETAN", "AODE"): "18/13/9",
        ("ETAN", "WAODE"): "15/15/10",
        ("AODE", "NB"): "29/8/3",
        ("WAODE", "NB"): "28/7/5",
        ("KDB", "TAN"): "16/13/11",
        ("ETAN", "LR"): "26/4/8",
    },
    "bias": {
        ("ETAN", "NB"): "32/4/4",
        ("ETAN", "TAN"): "18/14/8",
        ("ETAN", "KDB"): "9/19/12",
        ("ETAN", "AODE"): "20/13/7",
        ("ETAN", "WAODE"): "19/3/18",
        ("AODE", "NB"): "31/7/2",
        ("WAODE", "NB"): "24/2/14",
        ("KDB", "TAN"): "18/14/8",
        ("ETAN", "LR"): "22/5/11",
    },
    "var": {
        ("ETAN", "NB"): "4/5/31",
        ("ETAN", "TAN"): "15/8/17",
        ("ETAN", "KDB"): "24/6/10",
        ("ETAN", "AODE"): "3/6/31",
        ("ETAN", "WAODE"): "18/3/19",
        ("AODE", "NB"): "10/11/19",
        ("WAODE", "NB"): "12/5/22",
        ("KDB", "TAN"): "10/7/23",
        ("ETAN", "LR"): "21/3/14",
    },
}
WDL_PAIRS_003 = list(TABLE2["loss"])


def paper003(table, clf):
    j = PAPER003_COLS.index(clf)
    return pd.Series({k: v[j] for k, v in table.items()})


def make_paper(quick: bool = False) -> Paper:
    """Seed 003, Tables A2-A3: Kohavi-Wolpert bias and variance from 10 x 2-fold CV."""
    seed, clfs = 0, seed003_classifiers()
    repeats = 3 if quick else 10
    specs = [(s[0], s[4], s[5]) for s in SEED003]
    rows = []
    for name in TABLE_A2:
        for j, label in enumerate(PAPER003_COLS):
            b, v = TABLE_A2[name][j], TABLE_A3[name][j]
            rows += [
                (name, name, label, "loss (bias + variance)", round(b + v, 4)),
                (name, name, label, "bias", b),
                (name, name, label, "variance", v),
            ]
    return Paper(
        key="long2019",
        seed="003",
        title="Long, Wang & Sun (2019), ETAN, Tables A2-A3",
        protocol={
            "classifiers": {k: spec_key(v) for k, v in clfs.items()},
            "n_splits": 2,
            "seed": seed,
            "discretizer": "ImputeThenMDL",
            "predictions": "kept",
        },
        protocol_text=(
            f"{repeats} x 2-fold stratified CV (fold seed {seed}), missing values replaced by the training "
            "fold's mode/mean, then MDL inside each training fold (`ImputeThenMDL`), m-estimate m = 1; "
            "Kohavi-Wolpert bias and variance over the repeats (noise folded into the bias, so loss = bias "
            "+ variance). The paper's loss is its bias (A2) plus its variance (A3); Table A1 is lost. LR is "
            "scikit-learn's LogisticRegression on one-hot codes of the discretized attributes (C = 1; "
            "`LR(C=1e4)` has no column in the paper)." + (" Quick mode: the protocol has 10 repeats." if quick else "")
        ),
        version="long2019-1",
        load=partial(load_datasets, specs, only=("Iris", "Heart-Disease-C") if quick else None),
        splits=partial(cv_splits, n_splits=2, n_repeats=repeats, seed=seed),
        task=cv_fold,
        task_kwargs={"classifiers": clfs, "discretizer": ImputeThenMDL(), "seed": seed, "keep_predictions": True},
        aggregate=bias_variance,
        paper_values=paper_frame(rows),
        classifiers=list(clfs),
        measures=["loss (bias + variance)", "bias", "variance"],
        notes=[
            "The paper's WAODE column is as printed: many of its rows are not aligned with their data set "
            "(e.g. Satellite bias 0.0002; see docs/reproduction.md).",
            "Not run: " + "; ".join(SEED003_DIFFERENT) + ".",
        ],
        mode=f"quick (2 small data sets, {repeats} x 2-fold)" if quick else "full",
    )
