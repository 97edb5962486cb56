"""The pgmpy boundary: layouts, state names and round trips."""

import numpy as np
import pytest

from bnclf.io._pgmpy import network_from_tables, tables_from_network, variable_elimination
from bnclf.network import Network


def two_parent_network():
    rng = np.random.default_rng(0)
    p_a = rng.dirichlet([1, 1, 1])
    p_c = rng.dirichlet([1, 1])
    p_x = rng.dirichlet([1, 1, 1, 1], size=6).T.reshape(4, 3, 2)  # axes (x, a, c)
    names = ["a", "x", "c"]
    states = [["lo", "mid", "hi"], [0, 1, 2, 3], [True, False]]
    return (
        Network([(0,), (1, 0, 2), (2,)], [np.log(p_a), np.log(p_x), np.log(p_c)], names, states, class_index=2),
        p_a,
        p_x,
        p_c,
    )


def test_cpd_layout_and_state_names():
    net, _, p_x, _ = two_parent_network()
    model = net.to_pgmpy()
    cpd = model.get_cpds("x")
    assert cpd.variables == ["x", "a", "c"]
    assert cpd.state_names["a"] == ["lo", "mid", "hi"] and cpd.state_names["c"] == [True, False]
    # column order: the last evidence variable varies fastest
    np.testing.assert_allclose(cpd.get_values(), p_x.reshape(4, 6))
    assert cpd.get_value(x=3, a="mid", c=False) == pytest.approx(p_x[3, 1, 1])


def test_tables_round_trip():
    net, p_a, p_x, p_c = two_parent_network()
    families, tables, states = tables_from_network(net.to_pgmpy())
    assert families == {"a": (), "x": ("a", "c"), "c": ()}
    np.testing.assert_allclose(tables["x"], p_x)
    np.testing.assert_allclose(tables["a"], p_a)
    assert states["x"] == [0, 1, 2, 3]


def test_exact_inference_on_the_export_equals_enumeration():
    net, p_a, p_x, p_c = two_parent_network()
    infer = variable_elimination(net.to_pgmpy())
    got = infer.query(["c"], evidence={"x": 2}, show_progress=False)
    joint = np.einsum("a,c,ac->c", p_a, p_c, p_x[2])
    np.testing.assert_allclose(got.values, joint / joint.sum(), atol=1e-12)


def test_shape_mismatch_is_rejected():
    import networkx as nx

    dag = nx.DiGraph()
    dag.add_node("x")
    with pytest.raises(ValueError, match="CPT of 'x' has shape"):
        network_from_tables(dag, {"x": ()}, {"x": np.zeros(3)}, {"x": [0, 1]})
