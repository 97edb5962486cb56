"""Encoding: raw columns become integer codes, once.

The first room of the flow (data → **codes** → counts → structure → parameters →
network → inference): validation of ``X`` and ``y``, the discretizers of continuous
columns, and the :class:`FeatureEncoder` that maps every value to a code ``0..r-1`` (and
``UNKNOWN``, -1, for a value the model sums out). Everything downstream sees only
:class:`DiscreteData`.
"""

from bnclf.encoding._discretize import MDLDiscretizer, QuantileDiscretizer
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import (
    MISSING_LABEL,
    UNKNOWN,
    DiscreteData,
    IdLikeColumnWarning,
    ManyValuedIntegerWarning,
    UnseenValuesWarning,
    encode_target,
)

__all__ = [
    "FeatureEncoder",
    "DiscreteData",
    "encode_target",
    "MDLDiscretizer",
    "QuantileDiscretizer",
    "UNKNOWN",
    "MISSING_LABEL",
    "IdLikeColumnWarning",
    "ManyValuedIntegerWarning",
    "UnseenValuesWarning",
]
