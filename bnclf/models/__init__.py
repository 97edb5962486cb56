"""Estimators, one module per family of classifiers."""

from .base import BayesNetClassifier
from .ensembles import (
    AODEClassifier,
    ATANClassifier,
    EnsembleClassifier,
    WAODEClassifier,
    WATANClassifier,
)
from .instance_specific import (
    AKDBClassifier,
    InstanceSpecificClassifier,
    LKDBClassifier,
    LTANClassifier,
    TargetKDBClassifier,
)
from .kdb import KDBClassifier
from .multilabel import MultilabelBNClassifier, MultilabelBNEnsemble
from .multinets import ChowLiuMultinetClassifier, ETANClassifier, MultinetClassifier
from .naive import NaiveBayesClassifier
from .search_based import HillClimbClassifier, RMCVClassifier
from .tree import TANClassifier

__all__ = [
    "BayesNetClassifier",
    "EnsembleClassifier",
    "MultinetClassifier",
    "NaiveBayesClassifier",
    "TANClassifier",
    "KDBClassifier",
    "AODEClassifier",
    "WAODEClassifier",
    "ATANClassifier",
    "WATANClassifier",
    "ChowLiuMultinetClassifier",
    "ETANClassifier",
    "InstanceSpecificClassifier",
    "LKDBClassifier",
    "AKDBClassifier",
    "LTANClassifier",
    "TargetKDBClassifier",
    "RMCVClassifier",
    "HillClimbClassifier",
    "MultilabelBNClassifier",
    "MultilabelBNEnsemble",
]
from .registry import (
    CLASSIFIERS,
    MULTILABEL_CLASSIFIERS,
    make_classifier,
    make_multilabel_classifier,
    parse_classifier_spec,
    register_classifier,
)

__all__ += [
    "CLASSIFIERS",
    "MULTILABEL_CLASSIFIERS",
    "make_classifier",
    "make_multilabel_classifier",
    "parse_classifier_spec",
    "register_classifier",
]
