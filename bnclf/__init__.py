"""bnclf: Bayesian network classifiers on pgmpy with a scikit-learn interface.

Estimators (NB, TAN, KDB, AODE, WAODE, ATAN, WATAN, BMC-CL, ETAN, LKDB, AKDB, LTAN,
TargetKDB, RMCV and hill climbing on MDL/K2/BDeu/CMDL/CLL; multilabel mNB, mFAN and the BN
ensemble) learn structures from count tables, predict with a
vectorized kernel that equals pgmpy's exact inference, and export to pgmpy,
BIF and XMLBIF.
"""

import bnclf._compat as _compat
from bnclf._version import __version__ as __version__

_compat.install()  # the module names of bnclf 0.1, with a DeprecationWarning

from bnclf._config import config_context, get_config, set_config  # noqa: E402
from bnclf.encoding import MDLDiscretizer, QuantileDiscretizer  # noqa: E402
from bnclf.models import (  # noqa: E402
    AKDBClassifier,
    AODEClassifier,
    ATANClassifier,
    BayesNetClassifier,
    ChowLiuMultinetClassifier,
    ETANClassifier,
    HillClimbClassifier,
    KDBClassifier,
    LKDBClassifier,
    LTANClassifier,
    MultilabelBNClassifier,
    MultilabelBNEnsemble,
    NaiveBayesClassifier,
    RMCVClassifier,
    TANClassifier,
    TargetKDBClassifier,
    WAODEClassifier,
    WATANClassifier,
    make_classifier,
)
from bnclf.network import Network  # noqa: E402

__all__ = [
    "BayesNetClassifier",
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
    "Network",
    "make_classifier",
    "MDLDiscretizer",
    "QuantileDiscretizer",
    "get_config",
    "set_config",
    "config_context",
]
