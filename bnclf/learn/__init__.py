"""Learning: pure functions from counts to structures and parameters.

Counts → **structure** → **parameters**: the restricted learners of the papers (naive
Bayes, TAN, KDB, the SPODEs of AODE, ATAN's trees, the Chow–Liu multinet, ETAN's
sub-models) return a ``networkx.DiGraph`` over variable indices (the class is variable
``d``); the hill-climbing engine searches unrestricted DAGs; the instance-specific
learners build a structure per test row in batches; the multilabel learners find the
bridge and the class subgraph; :func:`m_estimated_log_cpts` turns families into
log-CPTs. Learners never mutate the counts they read.
"""

from bnclf.learn._cfs import cfs_select
from bnclf.learn._multilabel import learn_bridge, learn_class_graph
from bnclf.learn._parameters import m_estimated_log_cpts
from bnclf.learn._restricted import (
    etan_search_size,
    graph_families,
    learn_aode,
    learn_atan,
    learn_chow_liu_multinet,
    learn_etan_submodel,
    learn_kdb,
    learn_nb,
    learn_spode,
    learn_tan,
    markov_blanket,
    maximum_spanning_arborescence,
)
from bnclf.learn._search import hill_climb

__all__ = [
    "learn_nb",
    "learn_tan",
    "learn_kdb",
    "learn_spode",
    "learn_aode",
    "learn_atan",
    "learn_chow_liu_multinet",
    "learn_etan_submodel",
    "etan_search_size",
    "maximum_spanning_arborescence",
    "graph_families",
    "markov_blanket",
    "m_estimated_log_cpts",
    "hill_climb",
    "learn_bridge",
    "learn_class_graph",
    "cfs_select",
]
