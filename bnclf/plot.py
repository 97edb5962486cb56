"""Drawings of learned structures (matplotlib)."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

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


# -- multilabel networks (mNB, mFAN, the BN ensemble) ---------------------------------

CLASS_ARC_COLOR = "#1f77b4"
"""Arcs of a multilabel network's class subgraph (thick and blue, as in Corani et al.'s Figure 1)."""
BRIDGE_COLOR = "#f28e2b"
"""Bridge arcs, from a class to a feature (thin)."""
MORAL_COLOR = "#7f7f7f"
"""Dashed edges between classes that share a feature (``label_only=True``)."""
LABEL_FILL = "#fbd3d3"
PALE_FILL = "#f4f4f4"

_ELLIPSIS = "\u2026"
_LABEL_LIMIT = 18
_SEPARATORS = re.compile(r"([_\-. /:|]+)")


def _text_inches(text: str, size: float, bold: bool = False) -> float:
    """Width in inches of ``text`` set at ``size`` points (a mathtext-free TextPath)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    try:
        path = TextPath((0, 0), text.replace("$", r"\$"), size=size,
                        prop=FontProperties(weight="bold" if bold else "normal"))
        return float(path.get_extents().width) / 72.0
    except Exception:  # an exotic glyph: a generous estimate
        return 0.62 * size * len(text) / 72.0


def _middle_cut(text: str, limit: int, tail: int) -> str:
    tail = min(tail, limit - 2)
    return text[: limit - 1 - tail] + _ELLIPSIS + text[len(text) - tail:]


def _abbreviate(names, limit: int = _LABEL_LIMIT):
    """Distinct display labels of at most ``limit`` characters, and notes on what was shortened.

    Names within the limit are kept. In longer names, a token (between ``_``,
    ``-``, ``.``, ...) that most long names (three quarters) have at the same
    place says little about any one of them and becomes an ellipsis
    (``Mean_Acc1298_Mean_Mem40_Centroid`` -> ``Mean…Mean…Centroid``); a name
    still too long keeps its start and its end around an ellipsis, and its full
    name goes into the notes.
    """
    text = {n: str(n) for n in names}
    long = [n for n in names if len(text[n]) > limit]
    notes = []
    if not long:
        return text, notes
    label = dict(text)
    split = {n: _SEPARATORS.split(text[n]) for n in long}
    shared = {}  # position -> the token most long names have there (3 letters or more)
    for i in range(max(len(parts[0::2]) for parts in split.values())):
        counts = Counter(parts[2 * i] for parts in split.values() if len(parts) > 2 * i)
        token, k = counts.most_common(1)[0]
        if len(long) >= 2 and k >= 2 and k >= 0.75 * len(long) and len(token) >= 3:
            shared[i] = token

    def without(n, drop):
        tokens, seps = split[n][0::2], split[n][1::2]
        pieces, dropped = [], False
        for i, token in enumerate(tokens):
            if i in drop and shared[i] == token:
                dropped = True
                continue
            if pieces or dropped:
                pieces.append(_ELLIPSIS if dropped else seps[i - 1])
            pieces.append(token)
            dropped = False
        return "".join(pieces + ([_ELLIPSIS] if dropped else [])) or _ELLIPSIS

    having = [n for n in long if any(len(split[n]) > 2 * i and split[n][2 * i] == t for i, t in shared.items())]
    drop = []  # the longest shared tokens first, as many as the names that have them need to fit
    for i in sorted(shared, key=lambda i: (-len(shared[i]), i)):
        if all(len(without(n, drop)) <= limit for n in having):
            break
        drop.append(i)
    if drop:
        label.update({n: without(n, drop) for n in long})
        notes.append(f"{_ELLIPSIS} in long feature names stands for what most of them have there: "
                     + ", ".join(shared[i] for i in sorted(drop)))
    cut = []
    for n in long:
        if len(label[n]) > limit:
            label[n] = _middle_cut(label[n], limit, (limit - 1) // 2)
            cut.append(n)
    seen = Counter(label.values())
    tails = sorted(range(1, limit - 1), key=lambda t: (abs(t - (limit - 1) / 2), -t))
    for n in long:  # still ambiguous: cut the full name, the most even cuts first
        if seen[label[n]] > 1:
            for tail in tails:
                candidate = _middle_cut(text[n], limit, tail)
                if seen[candidate] == 0:
                    break
            else:
                candidate = f"{label[n]}#{sum(1 for v in label.values() if v == label[n])}"
            seen[label[n]] -= 1
            seen[candidate] += 1
            label[n] = candidate
            if n not in cut:
                cut.append(n)
    if cut:
        shown = cut[:12]
        notes.append("; ".join(f"{label[n]} = {text[n]}" for n in shown)
                     + (f"; and {len(cut) - len(shown)} more" if len(cut) > len(shown) else ""))
    return label, notes


def _multilabel_parts(model) -> dict:
    """What a drawing needs from a fitted MultilabelBNClassifier or MultilabelBNEnsemble."""
    model = model[-1] if hasattr(model, "steps") else model
    if not hasattr(model, "bridge_parents_"):
        hint = " (not fitted: call fit(X, Y) first)" if hasattr(model, "feature_selection") else ""
        raise TypeError(f"draw_multilabel needs a fitted MultilabelBNClassifier or MultilabelBNEnsemble; "
                        f"got {type(model).__name__}{hint}. Draw single-label classifiers with draw_structure.")
    labels = list(model.label_names_)
    label_set = set(labels)
    if hasattr(model, "networks_"):
        members = [(net.title or f"root: {labels[r]}", labels[r] if r < len(labels) else None,
                    [(u, v) for u, v in net.dag.edges if u in label_set and v in label_set])
                   for r, net in enumerate(model.networks_)]
        kind = "BN ensemble"
    else:
        members = [(None, model.root_,
                    [(u, v) for u, v in model.network_.dag.edges if u in label_set and v in label_set])]
        kind = "mFAN" if getattr(model, "class_graph", "nb") == "fan" else "mNB"
    return {"labels": labels, "features": list(model.selected_features_),
            "bridge": {f: tuple(p) for f, p in model.bridge_parents_.items()},
            "members": members, "kind": kind, "treewidth": int(model.treewidth_)}


def _pick_multilabel_features(parts: dict, features, max_features):
    selected = parts["features"]
    keep = list(selected)
    if features is not None:
        if isinstance(features, str):
            features = [features]
        wanted = list(features)
        unknown = [f for f in wanted if f not in parts["bridge"]]
        if unknown:
            raise ValueError(f"features={unknown!r} are not selected features of the model; selected are "
                             f"{selected[:10]}{' ...' if len(selected) > 10 else ''} (selected_features_).")
        keep = [f for f in keep if f in set(wanted)]
    if max_features is not None:
        if not isinstance(max_features, (int, np.integer)) or isinstance(max_features, bool) or max_features < 1:
            raise ValueError(f"max_features={max_features!r} is not valid; give a number of features >= 1, "
                             "or None for all.")
        rank = {f: i for i, f in enumerate(selected)}
        keep = sorted(keep, key=lambda f: (-len(parts["bridge"][f]), rank[f]))[:int(max_features)]
        keep = sorted(keep, key=rank.__getitem__)
    note = "" if len(keep) == len(selected) else f"{len(keep)} of {len(selected)} features shown"
    return keep, note


def _bezier_points(p0, p1, rads, t):
    """Points of matplotlib's ``arc3`` curves from ``p0`` to ``p1``: ``(len(rads), len(t), 2)``."""
    d = p1 - p0
    ctrl = (p0 + p1) / 2 + rads[:, None] * np.array([d[1], -d[0]])[None, :]
    t = t[None, :, None]
    return (1 - t) ** 2 * p0 + 2 * t * (1 - t) * ctrl[:, None, :] + t ** 2 * p1


class _MultilabelLayout:
    """Node positions and box sizes (in inches) of a multilabel drawing, and its routed bridge arcs.

    Classes are on one row at ``y = 0``; features on rows below, sorted by the
    mean position of their class parents and filled column by column (each row
    shifted a little, so that the gaps of successive rows do not line up). A
    bridge arc to a lower row passes every row above it through a gap between
    two nodes (as a layered drawing routes long edges through dummy nodes): it
    is a smooth path, vertical inside each row and S-shaped between rows, so it
    never crosses a node.
    """

    def __init__(self, labels, feats, bridge, *, class_text, feature_text, label_only):
        n_l, n_f = len(labels), len(feats)
        self.labels, self.feats, self.bridge = labels, feats, bridge
        self.class_font = 11.0 if n_l <= 8 else 10.0 if n_l <= 16 else 8.0
        self.feature_font = 9.0 if n_f <= 20 else 8.0 if n_f <= 50 else 7.0
        self.text = {**{c: class_text[c] for c in labels}, **{f: feature_text[f] for f in feats}}
        self.size = {c: (_text_inches(class_text[c], self.class_font, True) + 0.22,
                         self.class_font * 2.1 / 72) for c in labels}
        self.size.update({f: (_text_inches(feature_text[f], self.feature_font) + 0.16,
                              self.feature_font * 2.0 / 72) for f in feats})
        self.pos, self.rows = {}, []
        class_step = max(self.size[c][0] for c in labels) + 0.3
        width = class_step * (n_l - 1)
        if n_f and not label_only:
            fw = max(self.size[f][0] for f in feats)
            step = fw * 1.45
            target = min(max(width + class_step, 1.3 * math.sqrt(n_f) * step, 10.0), max(16.0, width))
            n_rows = int(math.ceil(n_f / max(1, int(target // step))))
            cols = int(math.ceil(n_f / n_rows))
            block = step * (cols - 1) + step * (n_rows - 1) / n_rows
            if n_l > 1:
                class_step = max(class_step, block / (n_l - 1))
            xs = {c: (i - (n_l - 1) / 2) * class_step for i, c in enumerate(labels)}
            rank = {f: i for i, f in enumerate(feats)}
            index = {c: i for i, c in enumerate(labels)}

            def key(f):
                pa = bridge[f]
                return (0, float(np.mean([xs[c] for c in pa])), tuple(index[c] for c in pa), rank[f]) \
                    if pa else (1, 0.0, (), rank[f])

            fh = max(self.size[f][1] for f in feats)
            row_gap = fh + 0.5
            top = -max(1.4, 0.11 * block)
            self.rows = [[] for _ in range(n_rows)]
            for i, f in enumerate(sorted(feats, key=key)):
                col, row = divmod(i, n_rows)
                self.pos[f] = (-block / 2 + col * step + row * step / n_rows, top - row * row_gap)
                self.rows[row].append(f)
        for i, c in enumerate(labels):
            self.pos[c] = ((i - (n_l - 1) / 2) * class_step, 0.0)
        self.boxes = {v: (x - self.size[v][0] / 2, x + self.size[v][0] / 2,
                          y - self.size[v][1] / 2, y + self.size[v][1] / 2) for v, (x, y) in self.pos.items()}
        self.bridge_paths = {}
        self.reach = [min(b[0] for b in self.boxes.values()), max(b[1] for b in self.boxes.values())]
        if self.rows:
            self._route_bridge()

    def _route_bridge(self):
        row_of = {f: r for r, row in enumerate(self.rows) for f in row}
        row_y = [self.pos[row[0]][1] for row in self.rows]
        half = max(self.size[f][1] for f in self.feats) / 2 + 0.05
        gaps = []  # per row: (centre, half width) between neighbouring boxes and past both ends
        for row in self.rows:
            spans = sorted(self.boxes[f][:2] for f in row)
            inner = [((a[1] + b[0]) / 2, (b[0] - a[1]) / 2) for a, b in zip(spans, spans[1:])]
            gaps.append([(spans[0][0] - 0.3, 0.25)] + inner + [(spans[-1][1] + 0.3, 0.25)])
        arcs = [(c, f) for f in self.feats for c in self.bridge[f]]
        start = {a: (self.pos[a[0]][0], self.boxes[a[0]][2]) for a in arcs}
        end = {a: (self.pos[a[1]][0], self.boxes[a[1]][3] + 0.01) for a in arcs}
        through, users = {}, {}
        for a in arcs:  # the gap nearest to the straight line, in every row above the feature's
            (x0, y0), (x1, y1) = start[a], end[a]
            through[a] = []
            for k in range(row_of[a[1]]):
                ideal = x0 + (x1 - x0) * (y0 - row_y[k]) / (y0 - y1)
                g = min(range(len(gaps[k])), key=lambda i, k=k, ideal=ideal: abs(gaps[k][i][0] - ideal))
                through[a].append(g)
                users.setdefault((k, g), []).append(a)
        xs = {}
        for (k, g), passing in users.items():  # spread the arcs sharing a gap, in the order they leave it
            centre, hw = gaps[k][g]
            passing.sort(key=lambda a: (end[a][0], start[a][0]))
            offsets = np.linspace(-0.6 * hw, 0.6 * hw, len(passing)) if len(passing) > 1 else [0.0]
            for a, dx in zip(passing, offsets):
                xs[(a, k)] = centre + float(dx)

        def first_x(a):
            return xs[(a, 0)] if through[a] else end[a][0]

        for node, key_x, pick, width in ((0, first_x, start, 0.7), (1, lambda a: start[a][0], end, 0.5)):
            groups = {}
            for a in arcs:
                groups.setdefault(a[node], []).append(a)
            for v, group in groups.items():  # spread the ends on a node's edge, in the order they go
                if len(group) > 1:
                    group.sort(key=key_x)
                    w = width * self.size[v][0] / 2
                    for a, dx in zip(group, np.linspace(-w, w, len(group))):
                        pick[a] = (self.pos[v][0] + float(dx), pick[a][1])
        for a in arcs:
            points = [start[a]]
            for k, _ in enumerate(through[a]):
                points += [(xs[(a, k)], row_y[k] + half), (xs[(a, k)], row_y[k] - half)]
            points.append(end[a])
            verts, codes = [points[0]], [1]  # Path.MOVETO
            for (px, py), (qx, qy) in zip(points, points[1:]):
                if px == qx and py - qy <= 2 * half + 1e-9 and len(verts) > 1:  # inside a row: straight down
                    verts.append((qx, qy))
                    codes.append(2)  # Path.LINETO
                else:
                    drop = 0.5 * (py - qy)
                    verts += [(px, py - drop), (qx, qy + drop), (qx, qy)]
                    codes += [4, 4, 4]  # Path.CURVE4
            self.bridge_paths[a] = (verts, codes)
            x_all = [v[0] for v in verts]
            self.reach = [min(self.reach[0], min(x_all)), max(self.reach[1], max(x_all))]

    def class_arcs(self, pairs, *, above=True) -> list:
        """``(u, v, start, end, rad)`` for arcs between classes of the row, bowed above it (or below).

        An arc runs from the top edge of one box to the top edge of the other
        (bottom edges when below), so it cannot cross a class between them. All
        arcs have one curvature, so an arc over a longer span is higher
        everywhere over a shorter one it contains; the ends on one box are
        spread along its edge with the longer arcs nearer the middle, so that
        arcs sharing a box stay nested too.
        """
        edge = 3 if above else 2
        ends = {}
        for u, v in pairs:
            ends.setdefault(u, []).append(((u, v), self.pos[v][0]))
            ends.setdefault(v, []).append(((u, v), self.pos[u][0]))
        anchor = {}
        for c, group in ends.items():
            group.sort(key=lambda item: (item[1] > self.pos[c][0], -item[1]))
            w = 0.36 * self.size[c][0]
            offsets = np.linspace(-w, w, len(group)) if len(group) > 1 else [0.0]
            for (pair, _), dx in zip(group, offsets):
                anchor[(pair, c)] = (self.pos[c][0] + float(dx), self.boxes[c][edge])
        out = []
        for u, v in pairs:
            p0, p1 = anchor[((u, v), u)], anchor[((u, v), v)]
            sign = np.sign(p1[0] - p0[0])
            out.append((u, v, p0, p1, float(-0.28 * sign if above else 0.28 * sign)))
        return out


def _arc_crossings(order, edges) -> int:
    """Pairs of arcs drawn on the same side of a row in this order that cross (shared ends do not)."""
    at = {v: i for i, v in enumerate(order)}
    spans = [tuple(sorted((at[u], at[v]))) for u, v in edges]
    return sum(1 for (a, b), (c, d) in itertools.combinations(spans, 2) if a < c < b < d or c < a < d < b)


def _class_order(labels, edges, root) -> list:
    """Order of the classes on their row: label order, unless a tree order has fewer crossing arcs.

    The tree order walks the class subgraph without the root's arcs depth first
    (trees and children in label order), so that those arcs nest, and puts the
    root where its arcs cross the fewest (nearest the middle on ties).
    """
    if root not in labels or len(labels) < 3:
        return list(labels)
    rank = {c: i for i, c in enumerate(labels)}
    forest = nx.DiGraph()
    forest.add_nodes_from(c for c in labels if c != root)
    forest.add_edges_from((u, v) for u, v in edges if root not in (u, v))
    walk = []
    for start in sorted((c for c in forest if forest.in_degree(c) == 0), key=rank.__getitem__):
        walk += [c for c in nx.dfs_preorder_nodes(forest, start, sort_neighbors=lambda ns: sorted(ns, key=rank.get))
                 if c not in walk]
    walk += [c for c in labels if c != root and c not in walk]  # a cycle cannot occur; kept for safety
    middle = len(walk) / 2
    best = min(range(len(walk) + 1),
               key=lambda i: (_arc_crossings(walk[:i] + [root] + walk[i:], edges), abs(i - middle)))
    tree_order = walk[:best] + [root] + walk[best:]
    return tree_order if _arc_crossings(tree_order, edges) < _arc_crossings(labels, edges) else list(labels)


def _moral_pairs(labels, bridge, feats) -> dict:
    """``{(a, b): number of features}`` for the pairs of classes that are parents of a common feature."""
    index = {c: i for i, c in enumerate(labels)}
    pairs: Counter = Counter()
    for f in feats:
        pairs.update(itertools.combinations(sorted(bridge[f], key=index.__getitem__), 2))
    return dict(pairs)


def _panel_geometry(layout, class_edges, *, label_only, moral, notes, legend=True) -> dict:
    """Arcs, legend and extents (inches at scale 1) of one panel, before anything is drawn."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    labels = layout.labels
    feats = [] if label_only else layout.feats
    arcs = layout.class_arcs(class_edges, above=True)
    dashed = layout.class_arcs(list(moral), above=False) if label_only else []
    nodes = (*labels, *feats)
    row_h = max(layout.size[c][1] for c in labels) / 2
    # an arc3 curve bows out by half its curvature times its span
    above = max([0.5 * abs(r) * abs(p1[0] - p0[0]) for *_, p0, p1, r in arcs], default=0.0)
    below = max([0.5 * abs(r) * abs(p1[0] - p0[0]) + 0.12 for *_, p0, p1, r in dashed], default=0.0)
    handles = [Line2D([], [], color=CLASS_ARC_COLOR, lw=3.0, label="class subgraph arc")]
    if label_only:
        handles.append(Line2D([], [], color=MORAL_COLOR, lw=1.4, ls="--",
                              label="classes that share features (how many, if > 1)"))
    else:
        handles.append(Line2D([], [], color=BRIDGE_COLOR, lw=1.2, label="bridge arc (class \u2192 feature)"))
    handles += [Patch(facecolor=CLASS_COLOR, edgecolor="black", label="root class"),
                Patch(facecolor=LABEL_FILL, edgecolor=CLASS_COLOR, label="class")]
    if any(layout.bridge[f] for f in feats):
        handles.append(Patch(facecolor=FEATURE_COLOR, edgecolor="#1f77b4", label="feature"))
    if any(not layout.bridge[f] for f in feats):
        handles.append(Patch(facecolor=PALE_FILL, edgecolor="#bbbbbb", label="feature with no class parent"))
    x_lo = min(layout.boxes[v][0] for v in nodes) - 0.15
    x_hi = max(layout.boxes[v][1] for v in nodes) + 0.15
    if feats:  # bridge arcs may bow out beyond the nodes
        x_lo, x_hi = min(x_lo, layout.reach[0] - 0.1), max(x_hi, layout.reach[1] + 0.1)
    widths = [_text_inches(h.get_label(), 8.0) + 0.75 for h in handles]
    x_lo, x_hi = min(x_lo, -(max(widths) + 0.3) / 2), max(x_hi, (max(widths) + 0.3) / 2)
    width = x_hi - x_lo
    ncol = len(handles)
    while ncol > 1 and sum(sorted(widths)[-ncol:]) > width - 0.2:
        ncol -= 1
    legend_rows = int(math.ceil(len(handles) / ncol)) if legend else 0
    handles = handles if legend else []
    wrapped = []
    chars = max(30, int((width - 0.1) / (0.55 * 7.5 / 72)))
    for note in notes:  # wrap the notes to the drawing's width, at spaces
        line = ""
        for word in note.split(" "):
            if line and len(line) + 1 + len(word) > chars:
                wrapped.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        wrapped.append(line)
    band = 0.1 + 0.25 * legend_rows + 0.17 * len(wrapped)
    y_hi = row_h + above + 0.15
    y_lo = min(min(layout.boxes[v][2] for v in nodes), -row_h - below) - 0.25 - band
    return {"arcs": arcs, "dashed": dashed, "moral": moral, "feats": feats, "handles": handles, "ncol": ncol,
            "legend_rows": legend_rows, "notes": wrapped, "x_lo": x_lo, "x_hi": x_hi, "y_lo": y_lo,
            "y_hi": y_hi, "width": width, "height": y_hi - y_lo}


def _draw_multilabel_panel(ax, layout, geom, root, *, title):
    """Draw one panel on ``ax`` with equal aspect; fonts and lines scaled to inches per data unit."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path

    labels, feats = layout.labels, geom["feats"]
    ax.set_xlim(geom["x_lo"], geom["x_hi"])
    ax.set_ylim(geom["y_lo"], geom["y_hi"])
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    fig = ax.figure
    box = ax.get_position()
    s = min(box.width * fig.get_figwidth() / geom["width"], box.height * fig.get_figheight() / geom["height"])
    patches = {}
    for v in (*labels, *feats):
        x0, x1, y0, y1 = layout.boxes[v]
        is_class = v in labels
        if is_class:
            face, edge, lw = (CLASS_COLOR, "black", 1.8) if v == root else (LABEL_FILL, CLASS_COLOR, 1.2)
        elif layout.bridge[v]:
            face, edge, lw = FEATURE_COLOR, "#1f77b4", 0.8
        else:
            face, edge, lw = PALE_FILL, "#bbbbbb", 0.8
        patch = FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0,rounding_size=0.06",
                               facecolor=face, edgecolor=edge, linewidth=lw * s, zorder=3)
        ax.add_patch(patch)
        patches[v] = patch
        pale = not is_class and not layout.bridge[v]
        ax.text(*layout.pos[v], layout.text[v].replace("$", r"\$"), ha="center", va="center", zorder=4,
                fontsize=(layout.class_font if is_class else layout.feature_font) * s,
                fontweight="bold" if is_class else "normal",
                color="white" if v == root else "#999999" if pale else "black")
    for f in feats:
        for c in layout.bridge[f]:
            verts, codes = layout.bridge_paths[(c, f)]
            ax.add_patch(FancyArrowPatch(path=Path(verts, codes), arrowstyle="-|>", mutation_scale=7 * s,
                                         lw=0.75 * s, color=BRIDGE_COLOR, alpha=0.8, zorder=1))
    for a, b, p0, p1, rad in geom["dashed"]:
        k = geom["moral"][(a, b)]
        ax.add_patch(FancyArrowPatch(p0, p1, connectionstyle=f"arc3,rad={rad:.4f}", arrowstyle="-",
                                     lw=(1.0 + 0.35 * math.log2(k)) * s, linestyle="--", color=MORAL_COLOR,
                                     shrinkA=0, shrinkB=0, zorder=1))
        if k == 1:
            continue
        mid = _bezier_points(np.array(p0), np.array(p1), np.array([rad]), np.array([0.5]))[0, 0]
        ax.text(*mid, str(k), ha="center", va="center", fontsize=7.5 * s, color="#333333", zorder=4,
                bbox={"boxstyle": "round,pad=0.12", "facecolor": "white", "edgecolor": "none"})
    for _, _, p0, p1, rad in geom["arcs"]:
        ax.add_patch(FancyArrowPatch(p0, p1, connectionstyle=f"arc3,rad={rad:.4f}", arrowstyle="-|>",
                                     mutation_scale=(14 if len(labels) <= 8 else 11) * s, lw=2.6 * s,
                                     color=CLASS_ARC_COLOR, shrinkA=0, shrinkB=0, zorder=2))
    notes = geom["notes"]
    y_notes = geom["y_lo"] + 0.05
    legend_top = y_notes + 0.17 * len(notes) + 0.25 * geom["legend_rows"] + 0.05
    if geom["handles"]:
        ax.legend(handles=geom["handles"], loc="upper center", ncol=geom["ncol"], fontsize=8 * s,
                  bbox_to_anchor=(0.5 * (geom["x_lo"] + geom["x_hi"]), legend_top), bbox_transform=ax.transData,
                  frameon=False, handlelength=2.2, columnspacing=1.2, borderaxespad=0, borderpad=0)
    for i, line in enumerate(notes):
        ax.text(geom["x_lo"] + 0.1, y_notes + 0.17 * (len(notes) - 1 - i), line, ha="left", va="bottom",
                fontsize=7.5 * s, color="#333333")
    if title:
        ax.set_title(title, fontsize=12 * s)
    return ax


def draw_multilabel(model, ax=None, *, features=None, max_features=None, label_only=False, title=None,
                    figsize=None):
    """Draw a multilabel Bayesian network (mNB, mFAN): class subgraph, bridge and features.

    Parameters
    ----------
    model : fitted MultilabelBNClassifier or MultilabelBNEnsemble
        An ensemble is drawn one panel per member (the first four, with a note,
        when there are more), every panel with the same layout.
    ax : matplotlib Axes, optional
        Axes to draw on (a single network only); fonts and lines are scaled to
        its size. By default a figure sized to the network is made.
    features : list of feature names, optional
        Draw only these of the selected features (``selected_features_``).
    max_features : int, optional
        Draw at most this many features, those with the most class parents first
        (ties in input order); applied after ``features``.
    label_only : bool, default=False
        Draw only the classes: the class subgraph and, as dashed grey edges
        labelled with their count, the pairs of classes that are parents of a
        common feature (among the features drawn). These moral edges and the
        class subgraph make the graph whose treewidth bounds the cost of exact
        queries; the title gives the model's treewidth.
    title : str, optional
        Default: the kind of model (mNB, mFAN, BN ensemble), the root, the number
        of selected features and the treewidth (and how many features are shown).
    figsize : (float, float), optional
        Size of the figure made when ``ax`` is omitted (default: sized to the
        network, one inch per unit of the layout, so that text keeps its size).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The classes are on one row at the top, the root filled in red, in label
    order unless a depth-first order of the class forest has fewer crossing
    arcs (a single network; an ensemble's panels share label order). Arcs of
    the class subgraph are thicker and shown in blue (Corani et al. 2014,
    Figure 1); they run from the top edge of one class to the top edge of
    another, bowed above the row (``arc3``), so they pass over the classes in
    between. Features are on rows below, filled column by column in the order
    of the mean position of their class parents; thin orange bridge arcs come
    down from their class parents, and an arc to a lower row passes each row
    above it through a gap between two nodes, so that no arc crosses a node.
    A feature with no class parent (independent of every class) is drawn pale.

    Names longer than 18 characters are shortened with an ellipsis: first the
    tokens that most long names have at the same place become one (on emotions,
    ``Mean_Acc1298_Mean_Mem40_Centroid`` is drawn ``Mean…Mean…Centroid``, and a
    note under the legend says what the ellipsis stands for); then the middle
    of a name still too long is cut, and the note gives its full name.
    """
    import matplotlib.pyplot as plt

    parts = _multilabel_parts(model)
    feats, note = _pick_multilabel_features(parts, features, max_features)
    labels, bridge, members = parts["labels"], parts["bridge"], parts["members"]
    if len(members) > 1 and ax is not None:
        raise ValueError("A MultilabelBNEnsemble is drawn one panel per member in a figure of its own; "
                         "omit ax= (or draw one member's network with draw_structure).")
    class_text, class_notes = _abbreviate(labels)
    feature_text, feature_notes = _abbreviate(feats)
    notes = [n.replace("feature names", "class names") for n in class_notes]
    if not label_only:
        notes += feature_notes
    moral = _moral_pairs(labels, bridge, feats)
    row = _class_order(labels, members[0][2], members[0][1]) if len(members) == 1 else labels
    layout = _MultilabelLayout(row, feats, bridge, class_text=class_text, feature_text=feature_text,
                               label_only=label_only)
    kind, tw, n_sel = parts["kind"], parts["treewidth"], len(parts["features"])
    single = len(members) == 1
    if label_only:
        default = (f"{kind} class subgraph" + (f" (root: {members[0][1]})" if single else "")
                   + f", treewidth {tw}\ndashed: pairs of classes that are parents of a common feature"
                   + (f" (among the {note})" if note else ""))
    elif single:
        default = f"{kind}, root: {members[0][1]}, {n_sel} selected features, treewidth {tw}"
        default += f"\n({note})" if note else ""
    else:
        default = (f"{kind}: {len(members)} members (logarithmic pooling), {n_sel} selected features, "
                   f"treewidth {tw}" + (f"\n({note})" if note else ""))
    title = _short(default if title is None else title, 300)
    picked = members[:4]
    if len(members) > len(picked):
        notes = notes + [f"First {len(picked)} of {len(members)} members shown."]
    geoms = [_panel_geometry(layout, edges, label_only=label_only, moral=moral,
                             notes=notes if i == len(picked) - 1 else [], legend=i == len(picked) - 1)
             for i, (_, _, edges) in enumerate(picked)]
    if ax is not None:
        _draw_multilabel_panel(ax, layout, geoms[0], members[0][1], title=title)
        return ax.figure
    # one inch per layout unit; panels stacked, each with its own title (one network: the title)
    side, bottom = 0.2, 0.1
    top = 0.18 + 0.22 * (title.count("\n") + 1) if title else 0.1
    panel_top = 0.0 if single else 0.35
    width = max(g["width"] for g in geoms) + 2 * side
    height = top + bottom + sum(g["height"] + panel_top for g in geoms)
    fig = plt.figure(figsize=figsize or (width, height))
    fw, fh = fig.get_figwidth(), fig.get_figheight()
    scale = min(fw / width, fh / height)  # a given figsize shrinks (or grows) everything alike
    y = fh - top * scale
    for (member_title, root, _), geom in zip(picked, geoms):
        y -= panel_top * scale
        w, h = geom["width"] * scale, geom["height"] * scale
        ax_i = fig.add_axes([(fw - w) / 2 / fw, (y - h) / fh, w / fw, h / fh])
        _draw_multilabel_panel(ax_i, layout, geom, root,
                               title=title if single else _short(member_title or f"root: {root}", 80))
        y -= h
    if not single and title:
        fig.suptitle(title, fontsize=12.5 * scale, y=1 - 0.12 * scale / fh, va="top")
    return fig
