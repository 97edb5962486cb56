"""Files: ARFF and MULAN data, BIF, XMLBIF and UAI networks, model files, text views of CPTs.

Every written network file is read back and compared before the call returns; model
files hold a model's parameters and load without running code
(:func:`save_model`, :func:`load_model`).
"""

import bnclf._compat as _compat
from bnclf.io._arff import load_arff_xy, load_mulan, read_arff, write_arff
from bnclf.io._models import load_model, save_model
from bnclf.io._networks import read_network, read_networks, write_network
from bnclf.io._text import cpt_table, network_dot

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

__getattr__ = _compat.moved_attributes(__name__)
