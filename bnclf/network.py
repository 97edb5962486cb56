"""The network value: one discrete Bayesian network, from which everything else is derived.

A fitted estimator holds one :class:`Network` (``network_``) or several
(``networks_``: the members of an ensemble, or one class-conditional network per
label of a multinet). The inference kernel, the pgmpy export, the BIF/XMLBIF
writer and the drawings all read this one value, so no downstream code needs
to know which learner built it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bnclf.inference._kernels import NetworkKernel

if TYPE_CHECKING:
    import networkx as nx
    from pgmpy.models import DiscreteBayesianNetwork

__all__ = ["Network", "NetworkMembers", "check_log_cpt", "check_log_cpts"]


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
        # deferred: io comes after network in the flow; a convenience notebooks look for here
        from bnclf.io._pgmpy import network_from_tables

        return network_from_tables(self.dag, self.named_families, self.named_log_cpts, self.categories)

    def _repr_svg_(self) -> str:
        """The drawing of :func:`bnclf.plot.draw_structure`, for notebooks."""
        # deferred: plot comes after network in the flow; notebooks look for this method here
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
    """Whether ``child -> parents`` has no directed cycle (Kahn's algorithm, without
    building a networkx graph: a model file's networks are checked on every load)."""
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
    """``[(key, Network), ...]``: the fitted networks of an estimator and how they combine.

    What ``network_members()`` returns: a list, so code that unpacks the pairs keeps
    working, with the public attributes below, so that exporters and drawings need not
    know the estimator's class. A notebook shows it drawn (one panel per member, as
    :func:`bnclf.plot.draw_structure` draws the estimator).

    Parameters
    ----------
    items : iterable of (key, Network)
        ``key`` is None for a single network, the member position for an ensemble, and
        the class label for a multinet.
    owner : estimator, optional
        The fitted estimator the networks belong to.
    kind : {"single", "ensemble", "multinet"}, default="single"
        How the networks combine: one network; a weighted mixture of members over the
        same variables; one class-conditional network per class label.
    weights : ndarray of shape (n_members,), optional
        An ensemble's member weights (``weights_``), in member order.
    combine : {"joint", "posterior"}, optional
        An ensemble's rule: ``P(c, x) = sum_m w_m P_m(c, x)`` or ``P(c | x) = sum_m
        w_m P_m(c | x)``.
    exported : callable, optional
        Returns the ``(key, Network)`` pairs a set of network files holds (default: every
        member); an ensemble leaves out a member no row can use.
    manifest_extras : callable, optional
        Returns a dict of what a reader of the files needs besides the networks, weights
        and combination rule (e.g. AODE's per-row weight rule); default: nothing.
    """

    def __init__(
        self,
        items: Any = (),
        owner: Any = None,
        *,
        kind: str = "single",
        weights: ArrayLike | None = None,
        combine: str | None = None,
        exported: Callable[[], list] | None = None,
        manifest_extras: Callable[[], dict] | None = None,
    ) -> None:
        super().__init__(items)
        self.owner = owner
        self.kind = kind
        self.weights = None if weights is None else np.asarray(weights)
        self.combine = combine
        self._exported = exported
        self._manifest_extras = manifest_extras

    @property
    def exported(self) -> list:
        """The ``(key, Network)`` pairs :func:`bnclf.io.write_network` writes: every member,
        less one that no row can use (AODE's naive Bayes fallback when every SPODE
        qualifies for every row)."""
        return list(self) if self._exported is None else list(self._exported())

    @property
    def manifest_extras(self) -> dict:
        """Entries a set of network files adds to its manifest besides the networks,
        weights and combination rule (empty for most estimators)."""
        return {} if self._manifest_extras is None else dict(self._manifest_extras())

    def _repr_svg_(self) -> str:
        # deferred: plot comes after network in the flow; notebooks look for this method here
        from bnclf.plot._structures import structure_svg

        return structure_svg(self.owner if self.owner is not None else self[0][1])


_NORMALIZED = 1e-6
"""How far from one the probabilities of a stored CPT column may sum."""


def check_log_cpts(tables: Sequence[np.ndarray], whats: Sequence[str]) -> None:
    """:func:`check_log_cpt` of many tables in a few array operations: one maximum and one
    ``exp`` over all of them, one sum per table; a failure is named by checking each."""
    tables = [np.asarray(t) for t in tables]
    if not tables:
        return
    if any(t.dtype.kind != "f" for t in tables) or any(t.size == 0 for t in tables):
        for table, what in zip(tables, whats):
            check_log_cpt(table, what)
        return
    flat = np.concatenate([t.ravel() for t in tables])
    good = bool(np.maximum.reduce(flat) <= _NORMALIZED)  # rules out NaN, +inf and values above 0
    if good:
        exp, sums, offset = np.exp(flat), [], 0
        for table in tables:
            sums.append(np.add.reduce(exp[offset : offset + table.size].reshape(table.shape[0], -1), axis=0))
            offset += table.size
        with np.errstate(divide="ignore"):
            good = bool(np.all(np.abs(np.log(np.concatenate(sums))) <= _NORMALIZED))
    if not good:
        for table, what in zip(tables, whats):
            check_log_cpt(table, what)
        raise ValueError("the log-CPTs do not hold log-probabilities that sum to one")


def check_log_cpt(table: np.ndarray, what: str) -> None:
    """Raise a ValueError unless ``table`` holds natural-log probabilities: no NaN, no
    ``+inf``, each distribution over its first axis summing to one."""
    table = np.asarray(table)
    if table.dtype.kind != "f":
        raise ValueError(f"the log-CPT of {what} holds values that are not log-probabilities")
    if table.size:
        # One maximum rules out NaN (it propagates), +inf and values above 0; a log-probability
        # is at most 0, so exp cannot overflow (scipy's logsumexp gives the same sums at many
        # times the cost per small table, and a model holds thousands of them).
        if not np.maximum.reduce(table, axis=None) <= _NORMALIZED:
            raise ValueError(f"the log-CPT of {what} holds values that are not log-probabilities")
        with np.errstate(divide="ignore"):
            sums = np.log(np.add.reduce(np.exp(table), axis=0))
        if not np.all(np.abs(sums) <= _NORMALIZED):
            raise ValueError(f"the distributions of {what} do not sum to one (log-sums up to {np.abs(sums).max():.3g})")
