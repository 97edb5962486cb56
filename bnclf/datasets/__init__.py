"""Small real data sets shipped inside the package (no download).

=============  =======  ========  =======  ===============================================
name           rows     features  classes  notes
=============  =======  ========  =======  ===============================================
kr-vs-kp       3196     36        2        chess endgame, all nominal (the demo default)
soybean        683      35        19       nominal, with missing values
heart-c        303      13        2        mixed numeric and nominal, with missing values
iris           150      4         3        numeric (discretize first)
=============  =======  ========  =======  ===============================================

All are the standard UCI versions in Weka's ARFF format; the target is the last
attribute. Sources: UCI Machine Learning Repository (Dua & Graff); kr-vs-kp by
Shapiro (1987), soybean by Michalski & Chilausky (1980), heart-c by Detrano et
al. (1989), iris by Fisher (1936).
"""

from __future__ import annotations

from importlib import resources

_FILES = {
    "kr-vs-kp": "kr-vs-kp.arff.gz",
    "soybean": "soybean.arff.gz",
    "heart-c": "heart-c.arff.gz",
    "iris": "iris.arff",
}

DEFAULT_DATASET = "kr-vs-kp"


def list_datasets() -> list[str]:
    """Names of the embedded data sets."""
    return sorted(_FILES)


def dataset_path(name: str):
    """Path of an embedded data set's ARFF file."""
    if name not in _FILES:
        raise ValueError(f"Unknown embedded data set {name!r}; choose one of {list_datasets()}.")
    return resources.files(__name__) / _FILES[name]


def load_dataset(name: str = DEFAULT_DATASET):
    """Features and target of an embedded data set.

    Returns
    -------
    X : pandas.DataFrame
        Nominal attributes as ``category`` columns, numeric ones as float.
    y : pandas.Series
        The class (the last attribute).
    """
    from ..arff import load_arff_xy

    with resources.as_file(dataset_path(name)) as path:
        return load_arff_xy(path)


MAX_INTEGER_CATEGORIES = 10
"""Integer CSV columns with more distinct values than this are read as continuous."""


def read_csv_table(path):
    """A delimited text file as a DataFrame: separator sniffed, ``?`` read as missing,
    a UTF-8 byte-order mark kept out of the first column name."""
    import pandas as pd

    return pd.read_csv(path, sep=None, engine="python", na_values=["?"], encoding="utf-8-sig")


def load_table(path, target=None):
    """Features and target of a CSV or ARFF file.

    Parameters
    ----------
    path : str or Path
        ``.csv`` (any delimiter pandas can sniff; ``?`` and empty cells are
        missing), ``.csv.gz``, ``.arff`` or ``.arff.gz``.
    target : str, optional
        Target column; default the last one.

    Notes
    -----
    CSV files carry no types. A numeric column of whole numbers (missing cells
    allowed) with at most ``MAX_INTEGER_CATEGORIES`` distinct values is read as
    integer categories (nullable ``Int64``); any other numeric column (ages,
    counts, measurements) is read as float, so that discretizers treat it as
    continuous, as an ARFF ``numeric`` attribute would be. ARFF files declare
    their types and are read as declared.
    """
    from pathlib import Path

    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    name = path.name.lower()
    if name.endswith((".arff", ".arff.gz")):
        from ..arff import load_arff_xy

        return load_arff_xy(path, target=target)
    frame = read_csv_table(path)
    target = frame.columns[-1] if target is None else target
    if target not in frame.columns:
        raise ValueError(
            f"target column {target!r} is not a column of {path}; columns are {list(frame.columns)}"
        )
    X = frame.drop(columns=[target])
    for column in X.columns:
        values = X[column]
        if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        observed = values.dropna()
        whole = bool((observed == observed.round()).all())
        if whole and observed.nunique() <= MAX_INTEGER_CATEGORIES:
            X[column] = values.astype("Int64")  # integer categories, missing values kept
        else:
            X[column] = values.astype(float)  # continuous: left to the discretizer
    return X, frame[target]
