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

#: the public names that are not estimators -> the module imported when one is first read
_LAZY = {
    "BayesNetClassifier": "bnclf.models",
    "make_classifier": "bnclf.models",
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


def _estimators() -> dict[str, type]:
    """The estimator classes :mod:`bnclf.models` exports, by name, from the registry
    (importing :mod:`bnclf.models` registers them all, a learner added by the walk-through
    too)."""
    import bnclf.models as models

    return {cls.__name__: cls for cls in models.ESTIMATORS if cls.__name__ in models.__all__}


def _estimator(name: str) -> type:
    if name == "__all__":  # ``from bnclf import *``: the estimators, then the other names
        return [*_estimators(), *(n for n in _LAZY if n not in _estimators())]  # type: ignore[return-value]
    if name.startswith("_") or name not in _estimators():
        raise AttributeError(f"module 'bnclf' has no attribute {name!r}")
    return _estimators()[name]


# What type checkers and IDEs see. At run time the names come from __getattr__: the
# estimators from the registry, so that a learner added to bnclf.models is bnclf.<Name>.
if TYPE_CHECKING:
    from bnclf._config import (
        config_context as config_context,
    )
    from bnclf._config import (
        get_config as get_config,
    )
    from bnclf._config import (
        set_config as set_config,
    )
    from bnclf.encoding import (
        MDLDiscretizer as MDLDiscretizer,
    )
    from bnclf.encoding import (
        QuantileDiscretizer as QuantileDiscretizer,
    )
    from bnclf.models import (
        AKDBClassifier as AKDBClassifier,
    )
    from bnclf.models import (
        AODEClassifier as AODEClassifier,
    )
    from bnclf.models import (
        ATANClassifier as ATANClassifier,
    )
    from bnclf.models import (
        BayesNetClassifier as BayesNetClassifier,
    )
    from bnclf.models import (
        ChowLiuMultinetClassifier as ChowLiuMultinetClassifier,
    )
    from bnclf.models import (
        ETANClassifier as ETANClassifier,
    )
    from bnclf.models import (
        HillClimbClassifier as HillClimbClassifier,
    )
    from bnclf.models import (
        KDBClassifier as KDBClassifier,
    )
    from bnclf.models import (
        LKDBClassifier as LKDBClassifier,
    )
    from bnclf.models import (
        LTANClassifier as LTANClassifier,
    )
    from bnclf.models import (
        MultilabelBNClassifier as MultilabelBNClassifier,
    )
    from bnclf.models import (
        MultilabelBNEnsemble as MultilabelBNEnsemble,
    )
    from bnclf.models import (
        NaiveBayesClassifier as NaiveBayesClassifier,
    )
    from bnclf.models import (
        RMCVClassifier as RMCVClassifier,
    )
    from bnclf.models import (
        TANClassifier as TANClassifier,
    )
    from bnclf.models import (
        TargetKDBClassifier as TargetKDBClassifier,
    )
    from bnclf.models import (
        WAODEClassifier as WAODEClassifier,
    )
    from bnclf.models import (
        WATANClassifier as WATANClassifier,
    )
    from bnclf.models import (
        make_classifier as make_classifier,
    )
    from bnclf.network import (
        Network as Network,
    )


__getattr__, _lazy_dir = _lazy.lazy_attributes(__name__, _LAZY, fallback=_estimator, submodules=_SUBPACKAGES)


def __dir__() -> list[str]:
    """The names of the package; the estimators' once :mod:`bnclf.models` is imported."""
    import sys

    return sorted({*_lazy_dir(), *(_estimators() if "bnclf.models" in sys.modules else ())})
