"""Estimators: thin scikit-learn classes over the learners, one module per family.

Network → inference → **models**: each estimator validates and encodes its data, hands
counts to its learner, keeps the fitted networks and answers predictions through their
kernels. Every class registers itself where it is defined (its ``short_names``): specs
such as ``"kdb(k=3)"``, the command line, the model files and the scikit-learn checks all
read that one registry.
"""

from bnclf.models._base import BayesNetClassifier
from bnclf.models._ensembles import AODEClassifier, ATANClassifier, EnsembleClassifier, WAODEClassifier, WATANClassifier
from bnclf.models._instance_specific import (
    AKDBClassifier,
    InstanceSpecificClassifier,
    LKDBClassifier,
    LTANClassifier,
    TargetKDBClassifier,
)
from bnclf.models._kdb import KDBClassifier
from bnclf.models._multilabel import MultilabelBNClassifier, MultilabelBNEnsemble
from bnclf.models._multilabel_baselines import BinaryRelevanceNB, EnsembleOfClassifierChains
from bnclf.models._multinets import ChowLiuMultinetClassifier, ETANClassifier, MultinetClassifier
from bnclf.models._naive import NaiveBayesClassifier
from bnclf.models._registry import (
    CLASSIFIERS,
    ESTIMATORS,
    MULTILABEL_CLASSIFIERS,
    make_classifier,
    make_multilabel_classifier,
    parse_classifier_spec,
    register_classifier,
)
from bnclf.models._search_based import HillClimbClassifier, RMCVClassifier
from bnclf.models._tree import TANClassifier

__all__ = [
    "NaiveBayesClassifier",
    "TANClassifier",
    "KDBClassifier",
    "AODEClassifier",
    "WAODEClassifier",
    "ATANClassifier",
    "WATANClassifier",
    "ChowLiuMultinetClassifier",
    "ETANClassifier",
    "LKDBClassifier",
    "AKDBClassifier",
    "LTANClassifier",
    "TargetKDBClassifier",
    "RMCVClassifier",
    "HillClimbClassifier",
    "MultilabelBNClassifier",
    "MultilabelBNEnsemble",
    "BinaryRelevanceNB",
    "EnsembleOfClassifierChains",
    "BayesNetClassifier",
    "EnsembleClassifier",
    "MultinetClassifier",
    "InstanceSpecificClassifier",
    "make_classifier",
    "make_multilabel_classifier",
    "parse_classifier_spec",
    "register_classifier",
    "CLASSIFIERS",
    "MULTILABEL_CLASSIFIERS",
    "ESTIMATORS",
]
