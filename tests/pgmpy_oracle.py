"""Independent answers from pgmpy for the tests: posteriors and joint probabilities."""

import numpy as np
import pandas as pd

from bnclf.io._pgmpy import variable_elimination


def observed(row: pd.Series) -> dict:
    """Evidence from a row: missing values and values that are not states are left out."""
    return {k: v for k, v in row.items() if not pd.isna(v)}


def log_evidence(model, evidence: dict, infer=None) -> float:
    """``log P(evidence)`` under a pgmpy network, by the chain rule over VariableElimination
    queries: ``P(e1..ek) = prod_i P(e_i | e_1..e_{i-1})``."""
    infer = infer or variable_elimination(model)
    total, given = 0.0, {}
    for var, value in evidence.items():
        if given:
            factor = infer.query([var], evidence=dict(given), show_progress=False)
        else:
            factor = infer.query([var], show_progress=False)
        total += np.log(factor.values[factor.state_names[var].index(value)])
        given[var] = value
    return total


def log_joint_per_class(model, class_name, classes, evidence: dict, infer=None) -> np.ndarray:
    """``log P(c, evidence)`` for every class of a network that has a class node."""
    infer = infer or variable_elimination(model)
    out = []
    for c in classes:
        out.append(log_evidence(model, {class_name: c, **evidence}, infer))
    return np.array(out)


def posterior(model, class_name, classes, evidence: dict, infer=None) -> np.ndarray:
    """``P(c | evidence)`` by one VariableElimination query."""
    infer = infer or variable_elimination(model)
    factor = infer.query([class_name], evidence=evidence, show_progress=False)
    states = factor.state_names[class_name]
    return np.array([factor.values[states.index(c)] for c in classes])
