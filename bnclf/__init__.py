"""bnclf: Bayesian network classifiers on pgmpy with a scikit-learn interface.

Estimators (NB, TAN, KDB) learn structures from count tables, predict with a
vectorized kernel that equals pgmpy's exact inference, and export to pgmpy,
BIF and XMLBIF.
"""

__version__ = "0.1.0"

from .discretize import MDLDiscretizer, QuantileDiscretizer  # noqa: E402
from .models import (  # noqa: E402
    BayesNetClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    TANClassifier,
    make_classifier,
)

__all__ = [
    "BayesNetClassifier",
    "NaiveBayesClassifier",
    "TANClassifier",
    "KDBClassifier",
    "make_classifier",
    "MDLDiscretizer",
    "QuantileDiscretizer",
]
