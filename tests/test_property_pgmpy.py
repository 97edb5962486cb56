"""Property test: on random data with missing and unseen values at predict time, every
single-network classifier's posterior equals pgmpy VariableElimination on its export."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pgmpy_oracle import posterior

from bnclf import KDBClassifier, NaiveBayesClassifier, TANClassifier
from bnclf.io._pgmpy import variable_elimination

ESTIMATORS = {
    "nb": lambda m: NaiveBayesClassifier(m=m),
    "tan": lambda m: TANClassifier(m=m),
    "kdb2": lambda m: KDBClassifier(k=2, m=m),
}


@st.composite
def problems(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    d = draw(st.integers(2, 4))
    cards = [draw(st.integers(2, 3)) for _ in range(d)]
    n = draw(st.integers(15, 60))
    n_classes = draw(st.integers(2, 3))
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)  # every class occurs
    X = pd.DataFrame({f"f{i}": rng.integers(0, r, n) for i, r in enumerate(cards)})
    X["f0"] = (X["f0"] + y) % cards[0]  # some dependence on the class
    X = X.astype(str).astype(object)
    if draw(st.booleans()):  # missing training values: a state of their own
        X.iloc[rng.integers(0, n, 3), 1] = np.nan
    test = X.iloc[:6].copy()
    for r in range(6):  # unknowns at predict time: missing and never-seen values
        for col in rng.choice(d, size=int(rng.integers(0, d + 1)), replace=False):
            test.iat[r, col] = np.nan if rng.random() < 0.5 else "unseen"
    m = draw(st.sampled_from([0.0, 0.5, 1.0]))
    name = draw(st.sampled_from(sorted(ESTIMATORS)))
    return X, y, test, m, name


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_posteriors_equal_pgmpy_variable_elimination(problem):
    X, y, test, m, name = problem
    est = ESTIMATORS[name](m).fit(X, y)
    proba = est.predict_proba(test)
    model = est.to_pgmpy()
    infer = variable_elimination(model)
    states = est.categories_
    classes = [int(c) for c in est.classes_]
    for r in range(len(test)):
        evidence = {}
        for col, value in test.iloc[r].items():
            if pd.isna(value):
                if "<missing>" in states[col]:  # training had blanks: missing is that state
                    evidence[col] = "<missing>"
            elif value in states[col]:
                evidence[col] = value
        want = posterior(model, est.class_name_, classes, evidence, infer)
        if np.isnan(want).all():  # P(evidence) = 0 (only with m = 0): pgmpy has no answer,
            want = np.full(len(classes), 1 / len(classes))  # ours is the uniform posterior
        np.testing.assert_allclose(proba[r], want, rtol=0, atol=1e-9)
