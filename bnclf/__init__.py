"""bnclf: Bayesian network classifiers on pgmpy with a scikit-learn interface.

Estimators (NB, TAN, KDB, AODE, WAODE, ATAN, WATAN, BMC-CL, ETAN, LKDB, AKDB, LTAN,
TargetKDB, RMCV and hill climbing on MDL/K2/BDeu/CMDL/CLL; multilabel mNB, mFAN and the BN
ensemble) learn structures from count tables, predict with a
vectorized kernel that equals pgmpy's exact inference, and export to pgmpy,
BIF and XMLBIF.

The names below are imported on first use (PEP 562), so that ``import bnclf`` (and the
``bnclf`` command's ``--help``) does not load pandas, scikit-learn, SciPy or networkx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bnclf._compat as _compat
import bnclf._lazy as _lazy
from bnclf._version import __version__ as __version__

_compat.install()  # the module names of bnclf 0.1, with a DeprecationWarning

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

#: each public name -> the module imported when the name is first read (the estimators and
#: make_classifier: bnclf.models)
_LAZY = {
    **dict.fromkeys(__all__, "bnclf.models"),
    "Network": "bnclf.network",
    "MDLDiscretizer": "bnclf.encoding",
    "QuantileDiscretizer": "bnclf.encoding",
    "get_config": "bnclf._config",
    "set_config": "bnclf._config",
    "config_context": "bnclf._config",
}

#: the subpackages, imported when read as attributes (``import bnclf; bnclf.models``)
_SUBPACKAGES = (
    *("encoding", "counts", "learn", "inference", "network", "models"),
    *("io", "plot", "datasets", "evaluation", "cli"),
)

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ imports on demand
    from bnclf._config import config_context, get_config, set_config
    from bnclf.encoding import MDLDiscretizer, QuantileDiscretizer
    from bnclf.models import (
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
    from bnclf.network import Network


__getattr__, __dir__ = _lazy.lazy_attributes(__name__, _LAZY, submodules=_SUBPACKAGES)
