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
