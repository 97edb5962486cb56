"""Inference: the vectorized kernels that answer every prediction.

Network → **inference**: a network's kernel gathers log-CPT entries for all observed
rows and sums unknown values out exactly (batched variable elimination); ensembles share
gathers across members; the multilabel queries run variable elimination over the class
variables only. pgmpy's exact inference is the oracle these kernels are tested against.
"""

import bnclf._compat as _compat
from bnclf.inference._kernels import log_posterior

__all__ = ["log_posterior"]

__getattr__ = _compat.moved_attributes(__name__)
