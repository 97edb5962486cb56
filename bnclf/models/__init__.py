"""Estimators, one module per family of classifiers."""

from .base import BayesNetClassifier
from .kdb import KDBClassifier
from .naive import NaiveBayesClassifier
from .tree import TANClassifier

__all__ = ["BayesNetClassifier", "NaiveBayesClassifier", "TANClassifier", "KDBClassifier"]
from .registry import CLASSIFIERS, make_classifier, parse_classifier_spec, register_classifier

__all__ += ["CLASSIFIERS", "make_classifier", "parse_classifier_spec", "register_classifier"]
