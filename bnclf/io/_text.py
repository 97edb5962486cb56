"""Text views of a network: a CPT as a table, the structure as Graphviz DOT."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from bnclf.network import Network


def cpt_table(net: Network, node: Hashable) -> pd.DataFrame:
    """The CPT of ``node`` as probabilities: one row per state, one column per parent
    configuration (a MultiIndex over the parents, in CPT axis order)."""
    families = net.named_families
    if node not in families:
        raise ValueError(f"no node {node!r} in this network; nodes: {list(families)}.")
    parents = families[node]
    table = np.exp(net.named_log_cpts[node])
    states = net.categories
    rows = pd.Index([str(s) for s in states[node]], name=str(node))
    if not parents:
        return pd.DataFrame({"P": table}, index=rows)
    columns = pd.MultiIndex.from_product(
        [[str(s) for s in states[p]] for p in parents], names=[str(p) for p in parents]
    )
    return pd.DataFrame(table.reshape(len(rows), -1), index=rows, columns=columns)


def network_dot(net: Network) -> str:
    """The network in Graphviz DOT (the class node, if any, drawn as a box).

    Notes
    -----
    Nodes get identifiers ``n0, n1, ...`` and show their names through HTML-like labels
    (``label=<...>``, with ``& < > "`` escaped). In a quoted DOT string a backslash before
    the closing quote escapes it, so a name ending in ``\\`` cannot be written quoted; an
    HTML-like label takes every character as it is.
    """
    from html import escape

    def label(v) -> str:
        return "<" + escape(str(v), quote=True).replace("\n", "<br/>") + ">"

    nodes = list(dict.fromkeys([*(([net.class_name]) if net.has_class else []), *net.named_families]))
    for parents in net.named_families.values():
        nodes.extend(p for p in parents if p not in nodes)
    ids = {v: f"n{k}" for k, v in enumerate(nodes)}
    lines = ["digraph bnclf {", "  rankdir=TB;"]
    if net.title:
        lines.append(f"  label={label(net.title)}; labelloc=t;")
    for v in nodes:
        style = (
            ', shape=box, style=filled, fillcolor="#d62728", fontcolor=white'
            if net.has_class and v == net.class_name
            else ""
        )
        lines.append(f"  {ids[v]} [label={label(v)}{style}];")
    for child, parents in net.named_families.items():
        lines.extend(f"  {ids[p]} -> {ids[child]};" for p in parents)
    lines.append("}")
    return "\n".join(lines)
