"""bnclf: Bayesian network classifiers on pgmpy with a scikit-learn interface."""

__version__ = "0.1.0"
