"""Loaders of the seed papers' data sets and the imputing discretizer of seeds 003 and 004.

A loader takes the data folder (or ``None``) and returns ``(X, y)``; it raises
:class:`Missing` when the file it needs is not in that folder.
"""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from bnclf.datasets import load_dataset
from bnclf.encoding import MDLDiscretizer
from bnclf.evaluation._compare import load_dataset_spec
from bnclf.io._arff import load_arff_xy

REPO = Path(__file__).resolve().parents[2]
#: the shared folder of UCI copies and MULAN sets the analyses read by default
DEFAULT_UCI = REPO.parent / "shared" / "data" / "uci"
DEFAULT_MULTILABEL = REPO.parent / "shared" / "data" / "multilabel"
#: the text copies of the seed papers (read by the ensembles checks)
SEEDS = REPO.parent / "shared" / "seeds"
DEFAULT_OUT = REPO / "benchmarks" / "results" / "reproduction"


class Missing(Exception):
    """A source file is not available."""


def _uci(uci_dir, name) -> Path:
    if uci_dir is None:
        raise Missing(name)
    p = Path(uci_dir) / name
    if not p.exists():
        raise Missing(name)
    return p


def _read_text(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return path.read_text(encoding="utf-8", errors="replace")


def load_arff(path: Path, drop=()):
    """ARFF with Weka's range annotations (``integer [1,10]``) removed."""
    text = _read_text(path)
    text = re.sub(r"(?im)^(\s*@attribute\s+\S+\s+(?:integer|real|numeric))\s*\[[^\]\r\n]*\]", r"\1", text)
    X, y = load_arff_xy(io.StringIO(text))
    return X.drop(columns=list(drop)), y


def _nominal(X: pd.DataFrame, columns) -> pd.DataFrame:
    X = X.copy()
    for c in columns:
        X[c] = (
            X[c].map(lambda v: v if pd.isna(v) else str(int(v)) if float(v).is_integer() else str(v)).astype("category")
        )
    return X


def load_lung_cancer(uci_dir):
    # class first, 56 integer-coded nominal attributes, '?' missing, no header
    d = pd.read_csv(_uci(uci_dir, "lung-cancer.data"), header=None, na_values="?")
    y = d.pop(0).astype(str).rename("class")
    d.columns = [f"a{j}" for j in range(1, d.shape[1] + 1)]
    return _nominal(d, d.columns), y


def load_shuttle(uci_dir):
    d = pd.read_csv(_uci(uci_dir, "shuttle.tsv.gz"), sep="\t")
    y = d.pop("target").astype(str).rename("class")
    return d.astype(float), y


def load_poker(uci_dir):
    d = pd.read_csv(_uci(uci_dir, "poker-hand-training-true.data"), header=None)
    y = d.pop(d.columns[-1]).astype(str).rename("class")
    d.columns = ["S1", "C1", "S2", "C2", "S3", "C3", "S4", "C4", "S5", "C5"]
    return _nominal(d, d.columns), y  # suits and ranks are nominal (UCI)


def load_connect4(uci_dir):
    d = pd.read_csv(_uci(uci_dir, "connect-4.tsv.gz"), sep="\t")
    y = d.pop("target").astype(str).rename("class")
    return _nominal(d, d.columns), y


def load_adult(uci_dir):
    cols = [
        "age",
        "workclass",
        "fnlwgt",
        "education",
        "education-num",
        "marital-status",
        "occupation",
        "relationship",
        "race",
        "sex",
        "capital-gain",
        "capital-loss",
        "hours-per-week",
        "native-country",
        "class",
    ]
    parts = []
    for f in ("adult.data.gz", "adult.test.gz"):
        parts.append(
            pd.read_csv(
                _uci(uci_dir, f),
                header=None,
                names=cols,
                sep=r",\s*",
                engine="python",
                na_values="?",
                skip_blank_lines=True,
            )
        )
    d = pd.concat(parts, ignore_index=True).dropna(subset=["class"])
    y = d.pop("class").astype(str).str.rstrip(".").rename("class")
    for c in d.columns:
        if d[c].dtype == object:
            d[c] = d[c].astype("category")
        else:
            d[c] = d[c].astype(float)
    return d, y


def keel(name, nominal=()):
    def load(_uci_dir):
        _, X, y = load_dataset_spec(f"keel:{name}")
        return _nominal(X, [X.columns[j] for j in nominal]), y

    return load


def embedded(name):
    return lambda _uci_dir: load_dataset(name)


def uci_arff(fname, drop=()):
    return lambda uci_dir: load_arff(_uci(uci_dir, fname), drop)


def first_available(*loaders):
    def load(uci_dir):
        for i, f in enumerate(loaders):
            try:
                return f(uci_dir)
            except Missing:
                if i == len(loaders) - 1:
                    raise

    return load


def drop_missing_rows(loader):
    def load(uci_dir):
        X, y = loader(uci_dir)
        keep = ~X.isna().any(axis=1)
        return X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)

    return load


class ModeMeanImputer(TransformerMixin, BaseEstimator):
    """Replace missing values by the training mode (nominal) or mean (numeric)."""

    def fit(self, X, y=None):
        X = pd.DataFrame(X)
        self.fill_ = {}
        for c in X.columns:
            col = X[c]
            if pd.api.types.is_float_dtype(col) or pd.api.types.is_integer_dtype(col):
                self.fill_[c] = col.mean()
            elif col.notna().any():
                self.fill_[c] = col.mode(dropna=True).iloc[0]
        return self

    def transform(self, X):
        X = pd.DataFrame(X).copy()
        for c, v in self.fill_.items():
            if X[c].isna().any():
                X[c] = X[c].fillna(v)
        return X


class ImputeThenMDL(TransformerMixin, BaseEstimator):
    """Seed 003's preprocessing: mode/mean imputation, then MDL discretization."""

    def fit(self, X, y):
        self.imputer_ = ModeMeanImputer().fit(X)
        self.mdl_ = MDLDiscretizer().fit(self.imputer_.transform(X), y)
        return self

    def transform(self, X):
        return self.mdl_.transform(self.imputer_.transform(X))
