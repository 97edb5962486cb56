"""The network value: one discrete Bayesian network, from which everything else is derived.

A fitted estimator holds one :class:`Network` (``network_``) or several
(``networks_``: the members of an ensemble, or one class-conditional network per
label of a multinet). The inference kernel, the pgmpy export, the BIF/XMLBIF
writer and the drawings all read this one value, so no downstream code needs
to know which learner built it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bnclf.inference._kernels import NetworkKernel

if TYPE_CHECKING:
    import networkx as nx
    from pgmpy.models import DiscreteBayesianNetwork

__all__ = ["Network"]


class Network:
    """A DAG over variable indices with its families, log-CPTs, names and states.

    Parameters
    ----------
    families : list of tuple of int
        ``(child, *parents)`` for every node of the network, parents in CPT axis
        order (the class, when it is a parent, last).
    log_cpts : list of ndarray
        Natural-log ``P(child | parents)`` of each family, axes ``(child, *parents)``.
    names : sequence
        Node name of every variable index of the data (features, then the class).
        The network may use only some of them: a class-conditional member of a
        multinet has no class node.
    states : sequence of list
        State labels of every variable index, in code order.
    class_index : int or None
        Index of the class variable; None for a multilabel network, whose
        classes are ordinary nodes.
    title : str, optional
        What this network is within its estimator (e.g. ``"root: age"`` or
        ``"class = yes"``); used by drawings and file manifests.
    """

    def __init__(
        self,
        families: Sequence[Sequence[int]],
        log_cpts: Sequence[ArrayLike],
        names: Sequence[Hashable],
        states: Sequence[Sequence[Any]],
        class_index: int | None,
        title: str = "",
    ) -> None:
        self.families = [tuple(int(v) for v in f) for f in families]
        self.log_cpts = [np.asarray(t, dtype=float) for t in log_cpts]
        if len(self.families) != len(self.log_cpts):
            raise ValueError(f"{len(self.families)} families but {len(self.log_cpts)} CPTs.")
        self.names = list(names)
        self.states = [list(s) for s in states]
        self.class_index = None if class_index is None else int(class_index)
        self.title = title
        for family, table in zip(self.families, self.log_cpts):
            expected = tuple(len(self.states[v]) for v in family)
            if table.shape != expected:
                raise ValueError(f"CPT of {self.names[family[0]]!r} has shape {table.shape}, expected {expected}.")
        self._kernel = None

    # -- structure ------------------------------------------------------------------
    @property
    def nodes(self) -> list[int]:
        """Variable indices of the network's nodes."""
        return [f[0] for f in self.families]

    @property
    def has_class(self) -> bool:
        """Whether the class is a node of this network (False for a multinet member)."""
        return self.class_index in self.nodes

    @property
    def graph(self) -> nx.DiGraph:
        """The DAG over variable indices."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        graph.add_edges_from((p, f[0]) for f in self.families for p in f[1:])
        return graph

    @property
    def dag(self) -> nx.DiGraph:
        """The DAG with nodes named by feature and class names."""
        import networkx as nx

        return nx.relabel_nodes(self.graph, {v: self.names[v] for v in self.nodes}, copy=True)

    @property
    def class_name(self) -> Hashable | None:
        """Name of the class node (also for a multinet member, which lacks it)."""
        return None if self.class_index is None else self.names[self.class_index]

    # -- named views ----------------------------------------------------------------
    @property
    def named_families(self) -> dict:
        """``child name -> tuple of parent names`` in CPT axis order."""
        return {self.names[f[0]]: tuple(self.names[p] for p in f[1:]) for f in self.families}

    @property
    def named_log_cpts(self) -> dict:
        """``child name -> log-CPT`` with axes ``(child, *parents)``."""
        return {self.names[f[0]]: t for f, t in zip(self.families, self.log_cpts)}

    @property
    def categories(self) -> dict:
        """``node name -> list of state labels`` for the network's nodes."""
        return {self.names[v]: list(self.states[v]) for v in self.nodes}

    # -- inference and export -------------------------------------------------------------
    @property
    def kernel(self) -> NetworkKernel:
        """The vectorized kernel of this network (built on first use)."""
        if self._kernel is None:
            self._kernel = NetworkKernel(self.families, self.log_cpts, self.class_index)
        return self._kernel

    def joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x_observed)``: ``(n, n_classes)``, or ``(n, 1)`` without a class node."""
        return self.kernel.joint_log_likelihood(codes)

    def to_pgmpy(self) -> DiscreteBayesianNetwork:
        """This network as a pgmpy ``DiscreteBayesianNetwork`` with named nodes and states."""
        from bnclf.io._pgmpy import network_from_tables

        return network_from_tables(self.dag, self.named_families, self.named_log_cpts, self.categories)

    def _repr_svg_(self) -> str:
        """The drawing of :func:`bnclf.plot.draw_structure`, for notebooks."""
        from bnclf.plot._structures import structure_svg

        return structure_svg(self)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_kernel", None)  # rebuilt on first use
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._kernel = None

    def check(self) -> None:
        """Raise a ValueError unless the network is consistent: families over the named
        variables, each variable a child once, CPT shapes that match the states, and
        log-CPTs whose distributions sum to one (what a model file is checked against)."""
        from bnclf.io._modelfile import check_log_cpts

        n = len(self.names)
        if len(self.states) != n:
            raise ValueError(f"the network names {n} variables but gives states for {len(self.states)}.")
        if len(self.families) != len(self.log_cpts):
            raise ValueError(f"{len(self.families)} families but {len(self.log_cpts)} CPTs.")
        children = [f[0] for f in self.families]
        if len(set(children)) != len(children):
            raise ValueError("a variable is the child of two families.")
        for family, table in zip(self.families, self.log_cpts):
            if not family or len(set(family)) != len(family) or not all(0 <= v < n for v in family):
                raise ValueError(f"family {family} is not a family of distinct variables 0..{n - 1}.")
            expected = tuple(len(self.states[v]) for v in family)
            if np.shape(table) != expected:
                raise ValueError(f"CPT of {self.names[family[0]]!r} has shape {np.shape(table)}, expected {expected}.")
        check_log_cpts(self.log_cpts, [repr(self.names[f[0]]) for f in self.families])
        if self.class_index is not None and not 0 <= self.class_index < n:
            raise ValueError(f"class index {self.class_index} is not a variable.")
        if not _acyclic({f[0]: f[1:] for f in self.families}):
            raise ValueError("the families do not form a directed acyclic graph.")

    def __repr__(self) -> str:
        edges = sum(len(f) - 1 for f in self.families)
        what = f" {self.title!r}" if self.title else ""
        return f"<Network{what}: {len(self.families)} nodes, {edges} arcs>"


def _acyclic(parents: dict[int, Sequence[int]]) -> bool:
    """Whether ``child -> parents`` has no directed cycle (Kahn's algorithm: a model file's
    networks are checked on every load, and this costs microseconds where building a
    networkx graph costs half a millisecond)."""
    children: dict[int, list[int]] = {}
    waiting = {}
    for child, ps in parents.items():
        waiting[child] = len(ps)
        for p in ps:
            children.setdefault(p, []).append(child)
            waiting.setdefault(p, 0)
    ready = [v for v, k in waiting.items() if k == 0]
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for child in children.get(v, ()):
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    return seen == len(waiting)


class NetworkMembers(list):
    """``[(key, Network), ...]`` as ``network_members()`` returns it: a list, which a
    notebook shows drawn (one panel per member, as :func:`bnclf.plot.draw_structure`
    draws the estimator)."""

    def __init__(self, items: Any = (), owner: Any = None) -> None:
        super().__init__(items)
        self.owner = owner

    def _repr_svg_(self) -> str:
        from bnclf.plot._structures import structure_svg

        return structure_svg(self.owner if self.owner is not None else self[0][1])
