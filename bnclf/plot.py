"""Drawings of learned structures (matplotlib)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

CLASS_COLOR = "#d62728"
FEATURE_COLOR = "#aec7e8"
PARENT_COLOR = "#ff7f0e"
"""Arcs into the class (an unrestricted network's class parents)."""


def _graph_and_class(obj, class_node=None):
    from .network import Network

    if isinstance(obj, Network):
        return obj.dag, (obj.class_name if obj.has_class else None)
    if hasattr(obj, "network_members"):
        return _graph_and_class(obj.network_members()[0][1])
    if hasattr(obj, "get_cpds") or isinstance(obj, nx.DiGraph):
        graph = nx.DiGraph()
        graph.add_nodes_from(obj.nodes)
        graph.add_edges_from((u, v) for u, v in obj.edges)  # bare edges: no weight=None attributes
        if class_node is False:  # e.g. a class-conditional member of a multinet
            return graph, None
        if class_node is None:
            roots = [v for v in graph if graph.in_degree(v) == 0 and graph.out_degree(v) > 0]
            class_node = max(roots, key=graph.out_degree) if roots else None
        return graph, class_node
    raise TypeError(
        f"draw_structure needs a fitted bnclf estimator, a networkx DiGraph or a pgmpy "
        f"network; got {type(obj).__name__}."
    )


def structure_layout(graph: nx.DiGraph, class_node=None) -> dict:
    """Layered positions: the class on top, features by generation of the feature subgraph.

    Within a layer, nodes follow a depth-first order of the forest formed by
    each feature's first feature parent, which keeps subtrees together and
    arcs short; wide layers wrap into several rows so that ~60 features stay
    readable.
    """
    features = graph.subgraph([v for v in graph if v != class_node]).copy()
    forest = nx.DiGraph()
    forest.add_nodes_from(features)
    for v in features:
        parents = sorted(features.predecessors(v), key=str)
        if parents:
            forest.add_edge(parents[0], v)
    order = {}
    for root in sorted((v for v in forest if forest.in_degree(v) == 0), key=str):
        for v in nx.dfs_preorder_nodes(forest, root, sort_neighbors=lambda ns: sorted(ns, key=str)):
            order[v] = len(order)
    layers = [sorted(layer, key=order.__getitem__) for layer in nx.topological_generations(features)]
    max_width = max(8, int(math.ceil(math.sqrt(max(len(features), 1)) * 1.6)))
    rows = []
    for layer in layers:
        for start in range(0, len(layer), max_width):
            rows.append(layer[start:start + max_width])
    pos = {}
    for r, row in enumerate(rows):
        xs = np.linspace(-(len(row) - 1) / 2, (len(row) - 1) / 2, len(row)) if len(row) > 1 else [0.0]
        shift = 0.25 if r % 2 else 0.0  # stagger rows so vertical arcs do not hide each other
        for x, node in zip(xs, row):
            pos[node] = (float(x) + shift, -float(r + 1))
    if class_node is not None:
        pos[class_node] = (0.0, 0.6)
    return pos


def select_nodes(graph: nx.DiGraph, class_node=None, *, features=None,
                 markov_blanket_only: bool = False, max_features=None):
    """The subgraph to draw and a note on what was left out (``""`` when nothing was).

    ``features`` keeps the named features; ``markov_blanket_only`` keeps the class's
    Markov blanket (parents, children, children's other parents); ``max_features``
    then keeps that many features, those with the most arcs among features first
    (ties by name). The class node always stays.
    """
    all_features = [v for v in graph if v != class_node]
    keep = list(all_features)
    if features is not None:
        wanted = list(features)
        unknown = [f for f in wanted if f not in graph]
        if unknown:
            raise ValueError(f"features={unknown!r} are not nodes of the network; nodes are "
                             f"{all_features[:10]}{' ...' if len(all_features) > 10 else ''}.")
        keep = [v for v in keep if v in set(wanted)]
    if markov_blanket_only:
        if class_node is None:
            raise ValueError("markov_blanket_only=True needs a network with a class node.")
        from .structure import markov_blanket

        blanket = set(markov_blanket(graph, class_node))
        keep = [v for v in keep if v in blanket]
    if max_features is not None:
        if not isinstance(max_features, (int, np.integer)) or max_features < 1:
            raise ValueError(f"max_features={max_features!r} is not valid; give a number of "
                             "features >= 1, or None for all.")
        sub = graph.subgraph(keep)
        keep = sorted(keep, key=lambda v: (-sub.degree(v), str(v)))[:int(max_features)]
    nodes = keep + ([class_node] if class_node is not None else [])
    note = "" if len(keep) == len(all_features) else \
        f"{len(keep)} of {len(all_features)} features shown"
    return graph.subgraph(nodes).copy(), note


def draw_structure(obj, ax=None, *, class_node=None, title=None, font_size=None, pos=None,
                   highlight=(), features=None, markov_blanket_only=False, max_features=None):
    """Draw a Bayesian network classifier's structure.

    Parameters
    ----------
    obj : fitted BayesNetClassifier, Network, networkx.DiGraph or pgmpy network
        An estimator with several networks (ensemble, multinet) is drawn with
        :func:`draw_members`, one panel per member.
    ax : matplotlib Axes, optional
        Axes to draw on; a figure sized to the graph is made when omitted.
    class_node : hashable or False, optional
        The class node (taken from the estimator; for a bare graph, the parentless
        node with most children). ``False``: the graph has no class node (a
        multinet member read back from a file).
    title : str, optional
    font_size : float, optional
        Label size; by default shrinks with the number of nodes.
    pos : dict, optional
        Node positions (default: :func:`structure_layout`); pass one layout to
        several drawings to compare them node for node.
    highlight : collection of (parent, child), optional
        Arcs among features drawn in red (e.g. those another network lacks).
    features, markov_blanket_only, max_features : optional
        Draw only part of a large network: the named features, the class's Markov
        blanket, and at most this many features (the most connected first); see
        :func:`select_nodes`. The title then says how many features are shown.

    Returns
    -------
    matplotlib.axes.Axes
        (an array of Axes for an estimator with several networks)

    Notes
    -----
    The class node is drawn in red at the top, its arcs to the features in light
    grey so that the arcs among features (the learned part) stand out in black.
    In an unrestricted network (RMCV, hill climbing) arcs into the class are orange;
    features outside the class's Markov blanket are drawn pale, and arcs outside
    the class families (which do not change the class of a fully observed row)
    grey and dashed; the title then says how many features the blanket holds.
    """
    import matplotlib.pyplot as plt

    obj = obj[-1] if hasattr(obj, "steps") else obj
    if hasattr(obj, "network_members") and len(obj.network_members()) > 1:
        if features is not None or markov_blanket_only or max_features is not None:
            raise ValueError("features=, markov_blanket_only= and max_features= select nodes of "
                             "one network; draw a member (obj.networks_[i]) to use them.")
        return draw_members(obj, title=title, font_size=font_size)
    graph, class_node = _graph_and_class(obj, class_node)
    graph, note = select_nodes(graph, class_node, features=features,
                               markov_blanket_only=markov_blanket_only, max_features=max_features)
    if note:
        title = f"{title} ({note})" if title else note
    if pos is None:
        pos = structure_layout(graph, class_node)
    else:
        pos = {v: pos[v] for v in graph if v in pos} | {
            v: p for v, p in structure_layout(graph, class_node).items() if v not in pos}
    n = graph.number_of_nodes()
    width = max(abs(x) for x, _ in pos.values()) * 2 + 2
    height = max(abs(y) for _, y in pos.values()) + 1.6
    if ax is None:
        _, ax = plt.subplots(figsize=(min(max(6, width * 1.4), 30), min(max(4, height * 1.2), 24)))
    font_size = font_size or (10 if n <= 20 else 8 if n <= 40 else 6)
    class_edges = [(u, v) for u, v in graph.edges if u == class_node]
    highlight = {tuple(e) for e in highlight}
    # the class families (the class's own and its children's) decide the class; arcs
    # outside them and features outside the Markov blanket are drawn faint
    children = set(graph.successors(class_node)) if class_node is not None else set()
    deciding = {v for v in graph if class_node is None or v == class_node or v in children}
    into_class = [(u, v) for u, v in graph.edges if v == class_node and (u, v) not in highlight]
    other_edges = [(u, v) for u, v in graph.edges if u != class_node and v != class_node
                   and (u, v) not in highlight and v in deciding]
    faint_edges = [(u, v) for u, v in graph.edges if u != class_node and v != class_node
                   and (u, v) not in highlight and v not in deciding]
    red_edges = [(u, v) for u, v in graph.edges if u != class_node and (u, v) in highlight]
    if class_node is not None:
        from .structure import markov_blanket

        blanket = set(markov_blanket(graph, class_node))
    else:
        blanket = set(graph)
    outside = [v for v in graph if v != class_node and v not in blanket]
    # class arcs fan out: those to the left bow left, those to the right bow right, so
    # they do not run straight through the nodes of the layers in between
    if class_node is not None:
        cx = pos[class_node][0]
        for side, rad in ((-1, -0.12), (0, 0.0), (1, 0.12)):
            edges = [(u, v) for u, v in class_edges if np.sign(round(pos[v][0] - cx, 6)) == side]
            if edges:
                nx.draw_networkx_edges(graph, pos, edgelist=edges, ax=ax, edge_color="#cccccc",
                                       arrows=True, arrowsize=8, width=0.6, node_size=900,
                                       connectionstyle=f"arc3,rad={rad}")
    nx.draw_networkx_edges(graph, pos, edgelist=other_edges, ax=ax, edge_color="black",
                           arrows=True, arrowsize=14, width=1.4, node_size=900,
                           connectionstyle="arc3,rad=0.08")
    if faint_edges:
        nx.draw_networkx_edges(graph, pos, edgelist=faint_edges, ax=ax, edge_color="#bbbbbb",
                               arrows=True, arrowsize=10, width=0.9, node_size=900,
                               style="dashed", connectionstyle="arc3,rad=0.08")
    if into_class:
        nx.draw_networkx_edges(graph, pos, edgelist=into_class, ax=ax, edge_color=PARENT_COLOR,
                               arrows=True, arrowsize=16, width=2.0, node_size=1400,
                               connectionstyle="arc3,rad=0.08")
    if red_edges:
        nx.draw_networkx_edges(graph, pos, edgelist=red_edges, ax=ax, edge_color=CLASS_COLOR,
                               arrows=True, arrowsize=16, width=2.2, node_size=900,
                               connectionstyle="arc3,rad=0.08")
    features = [v for v in graph if v != class_node and v in blanket]
    nx.draw_networkx_nodes(graph, pos, nodelist=features, ax=ax, node_color=FEATURE_COLOR,
                           edgecolors="#1f77b4", node_size=900)
    if outside:
        nx.draw_networkx_nodes(graph, pos, nodelist=outside, ax=ax, node_color="#f4f4f4",
                               edgecolors="#bbbbbb", node_size=900)
        n_features = graph.number_of_nodes() - 1
        note = f"Markov blanket: {n_features - len(outside)} of {n_features} features"
        title = f"{title}\n{note}" if title else note
    if class_node is not None:
        nx.draw_networkx_nodes(graph, pos, nodelist=[class_node], ax=ax, node_color=CLASS_COLOR,
                               edgecolors="black", node_size=1400, node_shape="s")
    labels = {v: _short(v) for v in graph}
    nx.draw_networkx_labels(graph, pos, labels=labels, ax=ax, font_size=font_size)
    if class_node is not None:
        nx.draw_networkx_labels(graph, pos, labels={class_node: labels[class_node]}, ax=ax,
                                font_size=font_size, font_color="white", font_weight="bold")
    if title:
        ax.set_title(title)
    ax.set_axis_off()
    ax.margins(0.05)
    return ax


def draw_members(est, *, members=None, ncols=None, title=None, font_size=None):
    """Draw every network of an ensemble or a multinet, one panel per member.

    Parameters
    ----------
    est : fitted BayesNetClassifier
    members : list of int, optional
        Positions of the members to draw (default: all of them, or the first 16
        when there are more).
    ncols : int, optional
        Panels per row (default: up to 4).
    title : str, optional
        Figure title.

    Returns
    -------
    ndarray of matplotlib Axes
        The panels, titled by each member's role (its root, super-parent or
        class label) and, for ensembles, its weight.
    """
    import matplotlib.pyplot as plt

    all_members = est.network_members()
    chosen = range(min(len(all_members), 16)) if members is None else list(members)
    bad = [i for i in chosen if not (isinstance(i, (int, np.integer)) and 0 <= i < len(all_members))]
    if bad or not len(chosen):
        raise ValueError(
            f"members={members!r} is not valid; give positions in 0..{len(all_members) - 1} "
            f"of the {len(all_members)} networks (see network_members()), or None for the first 16."
        )
    picked = [all_members[i] for i in chosen]
    ncols = ncols or min(4, len(picked))
    nrows = int(math.ceil(len(picked) / ncols))
    n_nodes = max(len(net.families) for _, net in picked)
    size = 4.0 + 0.2 * n_nodes
    fig, axes = plt.subplots(nrows, ncols, figsize=(min(size * ncols, 40), min(size * 0.8 * nrows, 60)),
                             squeeze=False)
    weights = getattr(est, "weights_", None)
    for i, (ax, (key, net)) in enumerate(zip(axes.flat, picked)):
        label = net.title or str(key)
        if weights is not None and est._network_kind == "ensemble":
            label += f"  (w = {weights[list(chosen)[i]]:.3g})"
        draw_structure(net, ax=ax, title=_short(label, 60), font_size=font_size)
    for ax in list(axes.flat)[len(picked):]:
        ax.set_axis_off()
    if title:
        fig.suptitle(title)
    return axes


def draw_explanation(explanation, *, parts=None, ncols=None, title=None, font_size=None):
    """Draw the networks an instance-specific classifier built for one row, side by side.

    Parameters
    ----------
    explanation : Explanation
        From ``estimator.explain(row)`` (LKDB, AKDB, LTAN, TargetKDB).
    parts : list of str, optional
        Names of the networks to draw (keys of ``explanation.networks``; default:
        all, the first 16 when there are more).
    ncols : int, optional
        Panels per row (default: up to 4).
    title : str, optional
        Figure title (default: the prediction and, for LTAN, the labels kept).

    Returns
    -------
    ndarray of matplotlib Axes

    Notes
    -----
    Every panel uses the layout of the first network (the generalist or the
    regular model), so nodes sit in the same place in every panel; arcs among
    features that the first network does not have (either direction) are drawn
    in red: where the instance's structure departs from the global one. Each
    title gives the part's answer and its probability.
    """
    import matplotlib.pyplot as plt

    names = list(explanation.networks)
    chosen = names[:16] if parts is None else list(parts)
    unknown = [p for p in chosen if p not in explanation.networks]
    if unknown or not chosen:
        raise ValueError(f"parts={parts!r} is not valid; choose among {names}.")
    nets = [explanation.networks[p] for p in chosen]
    base = explanation.networks[names[0]]
    base_graph, base_class = _graph_and_class(base)
    layout = structure_layout(base_graph, base_class)
    base_arcs = {frozenset((u, v)) for u, v in base_graph.edges if base_class not in (u, v)}
    ncols = ncols or min(4, len(nets))
    nrows = int(math.ceil(len(nets) / ncols))
    size = 4.0 + 0.2 * max(len(net.families) for net in nets)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, layout="constrained",
                             figsize=(min(size * ncols, 40), min(size * 0.85 * nrows, 60)))
    for ax, name, net in zip(axes.flat, chosen, nets):
        graph, _ = _graph_and_class(net)
        new = [(u, v) for u, v in graph.edges if net.class_name not in (u, v)
               and frozenset((u, v)) not in base_arcs]
        post = explanation.posteriors.get(name) or {}
        answer = max(post, key=post.get) if post else None
        label = name if answer is None else f"{name}\n{answer}: {post[answer]:.3f}"
        draw_structure(net, ax=ax, title=_short(label, 80), font_size=font_size,
                       pos=layout, highlight=new)
    for ax in list(axes.flat)[len(nets):]:
        ax.set_axis_off()
    if title is None:
        title = f"prediction: {explanation.prediction}"
        if "omega" in explanation.details:
            title += f"   (labels kept: {', '.join(map(str, explanation.details['omega']))})"
    fig.suptitle(_short(title, 200))
    return axes


def _short(name, limit=14) -> str:
    text = str(name)
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("$", r"\$")  # a literal dollar, not matplotlib mathtext


def save_structure_png(obj, path, **kwargs):
    """Draw ``obj`` with :func:`draw_structure` and save it as a PNG; returns the path."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ax = draw_structure(obj, **kwargs)
    fig = ax.flat[0].figure if isinstance(ax, np.ndarray) else ax.figure
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_search_trace(obj, ax=None, *, title=None):
    """Plot a structure search: the score after every accepted move.

    Parameters
    ----------
    obj : fitted RMCVClassifier or HillClimbClassifier, or its ``search_trace_``
    ax : matplotlib Axes, optional
        Draw only the score curve on it; without it a figure with two panels is
        made: the score, and per step how many neighbours there were and how many
        had to be scored.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes or ndarray of Axes
    """
    import matplotlib.pyplot as plt

    trace = getattr(obj, "search_trace_", obj)
    if not hasattr(trace, "columns") or "score" not in trace.columns:
        raise TypeError("draw_search_trace needs a fitted RMCVClassifier or HillClimbClassifier "
                        "(or its search_trace_ DataFrame).")
    axes = None
    if ax is None:
        _, axes = plt.subplots(2, 1, figsize=(7.5, 6), sharex=True,
                               gridspec_kw={"height_ratios": [2, 1]})
        ax = axes[0]
    ax.plot(trace["iteration"], trace["score"], color="#555555", lw=1.2, zorder=1)
    styles = {"start": ("o", "black"), "add": ("^", "#2ca02c"), "delete": ("v", "#d62728"),
              "reverse": ("s", "#1f77b4")}
    for kind, (marker, color) in styles.items():
        part = trace[trace["move"] == kind]
        if len(part):
            ax.scatter(part["iteration"], part["score"], marker=marker, color=color, s=36,
                       zorder=2, label=kind)
    if len(trace) <= 16:
        for _, row in trace.iloc[1:].iterrows():
            ax.annotate(str(row["arc"]), (row["iteration"], row["score"]), fontsize=7,
                        xytext=(4, 4), textcoords="offset points", rotation=20)
    ax.set_ylabel("score")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title)
    if axes is None:
        ax.set_xlabel("accepted moves")
        return ax
    steps = trace.iloc[1:]
    axes[1].bar(steps["iteration"] - 0.2, steps["n_candidates"], width=0.4, color="#cccccc",
                label="neighbours")
    axes[1].bar(steps["iteration"] + 0.2, steps["n_scored"], width=0.4, color="#1f77b4",
                label="scored")
    axes[1].set_xlabel("accepted moves")
    axes[1].set_ylabel("moves")
    axes[1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes[1].grid(alpha=0.3)
    return axes
