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
    """The network in Graphviz DOT (the class node, if any, drawn as a box)."""

    def quote(v):
        return '"' + str(v).replace('"', r"\"") + '"'

    lines = [f"digraph {quote(net.title or 'bnclf')} {{", "  rankdir=TB;"]
    if net.has_class:
        lines.append(f'  {quote(net.class_name)} [shape=box, style=filled, fillcolor="#d62728", fontcolor=white];')
    for child, parents in net.named_families.items():
        lines.append(f"  {quote(child)};")
        lines.extend(f"  {quote(p)} -> {quote(child)};" for p in parents)
    lines.append("}")
    return "\n".join(lines)
