"""Files: ARFF and MULAN data, BIF, XMLBIF and UAI networks, model files, text views of CPTs.

Every written network file is read back and compared before the call returns; model
files hold a model's parameters and load without running code
(:func:`save_model`, :func:`load_model`).
"""

from typing import TYPE_CHECKING

import bnclf._compat as _compat
import bnclf._lazy as _lazy

#: public name -> its module, imported on first use (reading a model file needs neither
#: pgmpy nor the ARFF reader)
_LAZY = {
    "read_arff": "bnclf.io._arff",
    "write_arff": "bnclf.io._arff",
    "load_arff_xy": "bnclf.io._arff",
    "load_mulan": "bnclf.io._arff",
    "write_network": "bnclf.io._networks",
    "read_network": "bnclf.io._networks",
    "read_networks": "bnclf.io._networks",
    "save_model": "bnclf.io._models",
    "load_model": "bnclf.io._models",
    "cpt_table": "bnclf.io._text",
    "network_dot": "bnclf.io._text",
}

__all__ = [
    "read_arff",
    "write_arff",
    "load_arff_xy",
    "load_mulan",
    "write_network",
    "read_network",
    "read_networks",
    "save_model",
    "load_model",
    "cpt_table",
    "network_dot",
]

if TYPE_CHECKING:
    from bnclf.io._arff import load_arff_xy, load_mulan, read_arff, write_arff
    from bnclf.io._models import load_model, save_model
    from bnclf.io._networks import read_network, read_networks, write_network
    from bnclf.io._text import cpt_table, network_dot

__getattr__, __dir__ = _lazy.lazy_attributes(__name__, _LAZY, fallback=_compat.moved_attributes(__name__))
