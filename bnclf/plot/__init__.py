"""Drawings of learned structures: one panel per network, multilabel graphs, search traces.

Structures are drawn by a layered layout (class on top, features in rows ordered to cut
crossings); an ensemble or multinet gets one panel per member, an instance-specific
model the networks it built for one row.
"""

import bnclf._compat as _compat
from bnclf.plot._contributions import draw_contributions
from bnclf.plot._explanations import draw_explanation
from bnclf.plot._layout import model_class_information, select_nodes, structure_layout
from bnclf.plot._multilabel import draw_multilabel
from bnclf.plot._structures import draw_members, draw_structure, save_structure_png
from bnclf.plot._traces import draw_search_trace

__all__ = [
    "draw_structure",
    "draw_members",
    "draw_explanation",
    "draw_contributions",
    "draw_multilabel",
    "draw_search_trace",
    "save_structure_png",
    "structure_layout",
    "select_nodes",
    "model_class_information",
]

__getattr__ = _compat.moved_attributes(__name__)
