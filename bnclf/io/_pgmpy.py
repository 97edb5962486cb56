"""The one place that imports pgmpy (lazily: it is slow to import and warns).

Conversions between bnclf's tables (axes ``(child, *parents)``, natural-log
probabilities) and pgmpy's ``TabularCPD`` (2-D values, columns varying the last
evidence variable fastest).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import networkx as nx
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork


def _pgmpy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        import pgmpy.factors.discrete
        import pgmpy.inference  # noqa: F401
        import pgmpy.models
    return pgmpy


def network_from_tables(
    dag: nx.DiGraph,
    families: Mapping[Hashable, Sequence[Hashable]],
    log_cpts: Mapping[Hashable, Any],
    categories: Mapping[Hashable, Sequence[Any]],
) -> DiscreteBayesianNetwork:
    """A pgmpy ``DiscreteBayesianNetwork`` from named families and log-CPTs.

    Parameters
    ----------
    dag : networkx.DiGraph
        Structure with named nodes.
    families : dict
        ``child -> tuple of parents`` in CPT axis order.
    log_cpts : dict
        ``child -> ndarray`` of log-probabilities with axes ``(child, *parents)``.
    categories : dict
        ``node -> list of state labels``.
    """
    pgmpy = _pgmpy()
    model = pgmpy.models.DiscreteBayesianNetwork()
    model.add_nodes_from(list(dag.nodes))  # nodes first: an edge list alone drops isolated nodes
    model.add_edges_from([(u, v) for u, v in dag.edges])
    cpds = []
    for child, parents in families.items():
        table = np.exp(np.asarray(log_cpts[child], dtype=float))
        expected = tuple(len(categories[v]) for v in (child, *parents))
        if table.shape != expected:
            raise ValueError(f"CPT of {child!r} has shape {table.shape}, expected {expected}.")
        values = table.reshape(table.shape[0], -1)
        values = values / values.sum(axis=0, keepdims=True)
        cpds.append(
            pgmpy.factors.discrete.TabularCPD(
                child,
                table.shape[0],
                values,
                evidence=list(parents) or None,
                evidence_card=list(table.shape[1:]) or None,
                state_names={v: list(categories[v]) for v in (child, *parents)},
            )
        )
    model.add_cpds(*cpds)
    model.check_model()
    return model


def tables_from_network(
    model: DiscreteBayesianNetwork,
) -> tuple[dict[Hashable, tuple[Hashable, ...]], dict[Hashable, np.ndarray], dict[Hashable, list[Any]]]:
    """Families, probability tables (axes ``(child, *parents)``) and states of a pgmpy model."""
    families, tables, states = {}, {}, {}
    for cpd in model.get_cpds():
        child, parents = cpd.variable, tuple(cpd.variables[1:])
        families[child] = parents
        tables[child] = np.asarray(cpd.get_values(), dtype=float).reshape(cpd.cardinality)
        states.update({v: list(cpd.state_names[v]) for v in cpd.variables})
    return families, tables, states


def variable_elimination(model: DiscreteBayesianNetwork) -> VariableElimination:
    """pgmpy's exact ``VariableElimination`` on ``model`` (the test oracle)."""
    return _pgmpy().inference.VariableElimination(model)
