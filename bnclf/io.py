"""BIF / XMLBIF export and import, and estimator persistence.

pgmpy's BIF and XMLBIF writers cannot faithfully store arbitrary names: node
names with spaces cannot be read back from BIF, interval states such as
``(-inf, 2.5]`` make a BIF file unreadable, XMLBIF rewrites states (``0.5`` to
``0_5``; ``<5`` and ``>=5`` both to ``_5``), integer node names fail to write
and numeric states come back as strings. So every file is written with safe
identifiers (letters, digits and ``_``, distinct even ignoring case, because pgmpy's BIF
reader matches names case-insensitively), the original names and state labels
(with their Python types: str, int, float, bool; other labels such as
timestamps as text) go to a JSON name map beside the file
(``<file>.names.json``), and the file is read back and compared with the model
before the call returns.
"""

from __future__ import annotations

import json
import pickle
import re
import warnings
from pathlib import Path

import numpy as np

from . import __version__
from .data import python_scalar
from .pgmpy_adapter import _pgmpy, network_from_tables, tables_from_network

_FORMATS = {".bif": "bif", ".xml": "xmlbif", ".xmlbif": "xmlbif"}
_KEYWORDS = {"network", "variable", "probability", "property", "type", "discrete", "table", "default"}
NAME_MAP_SUFFIX = ".names.json"


def _json_label(v):
    """The label as JSON keeps it: str, int, float, bool or None; anything else as text."""
    v = python_scalar(v)
    return v if isinstance(v, (str, int, float, bool)) or v is None else str(v)


def safe_identifiers(labels, prefix: str) -> list[str]:
    """Distinct identifiers made of letters, digits and ``_`` for ``labels``, in order."""
    out, used = [], set()
    for label in labels:
        base = re.sub(r"[^A-Za-z0-9_]+", "_", str(label)).strip("_") or prefix
        if base[0].isdigit():
            base = prefix + "_" + base
        if base.lower() in _KEYWORDS:
            base += "_"
        name, i = base, 2
        while name.lower() in used:  # pgmpy's BIF reader matches names case-insensitively
            name, i = f"{base}_{i}", i + 1
        used.add(name.lower())
        out.append(name)
    return out


def _network_parts(model_or_estimator):
    """``(dag, families, prob tables, states)`` of an estimator or a pgmpy network."""
    if hasattr(model_or_estimator, "get_params") and not hasattr(model_or_estimator, "get_cpds"):
        from sklearn.utils.validation import check_is_fitted

        est = model_or_estimator[-1] if hasattr(model_or_estimator, "steps") else model_or_estimator
        if not hasattr(est, "_fit_network"):
            raise TypeError(
                f"Cannot export a {type(est).__name__}; pass a fitted bnclf classifier "
                "(or a pipeline ending in one) or a pgmpy DiscreteBayesianNetwork."
            )
        check_is_fitted(est, "log_cpts_")
        tables = {k: np.exp(v) for k, v in est.log_cpts_.items()}
        return est.dag_, dict(est.families_), tables, est.categories_
    model = model_or_estimator
    if not hasattr(model, "get_cpds"):
        raise TypeError(
            f"Cannot export a {type(model).__name__}; pass a fitted bnclf classifier or a "
            "pgmpy DiscreteBayesianNetwork."
        )
    families, tables, states = tables_from_network(model)
    import networkx as nx

    dag = nx.DiGraph()
    dag.add_nodes_from(model.nodes)
    dag.add_edges_from(model.edges)
    return dag, families, tables, states


def _format_of(path: Path, fmt):
    fmt = fmt or _FORMATS.get(path.suffix.lower())
    if fmt not in ("bif", "xmlbif"):
        raise ValueError(
            f"Cannot tell the format of {str(path)!r}; use a .bif or .xmlbif/.xml suffix or "
            "pass fmt='bif' or fmt='xmlbif'."
        )
    return fmt


def write_network(model_or_estimator, path, fmt=None) -> Path:
    """Write a fitted estimator or pgmpy network as BIF or XMLBIF, verified by reading back.

    Parameters
    ----------
    model_or_estimator : BayesNetClassifier or pgmpy DiscreteBayesianNetwork
    path : str or Path
        Target file; the suffix chooses the format unless ``fmt`` is given.
    fmt : {"bif", "xmlbif"}, optional

    Returns
    -------
    Path
        The file written. The name map is written to ``path + ".names.json"``.

    Raises
    ------
    RuntimeError
        If the file read back differs from the model (structure, states, or any
        probability by more than 1e-9).
    """
    path = Path(path)
    fmt = _format_of(path, fmt)
    dag, families, tables, states = _network_parts(model_or_estimator)
    nodes = list(dag.nodes)
    node_ids = dict(zip(nodes, safe_identifiers(nodes, "n")))
    state_ids = {v: safe_identifiers(states[v], "s") for v in nodes}
    safe_dag = dag.__class__()
    safe_dag.add_nodes_from(node_ids[v] for v in nodes)
    safe_dag.add_edges_from((node_ids[u], node_ids[v]) for u, v in dag.edges)
    with np.errstate(divide="ignore"):
        safe_model = network_from_tables(
            safe_dag,
            {node_ids[c]: tuple(node_ids[p] for p in ps) for c, ps in families.items()},
            {node_ids[c]: np.log(t) for c, t in tables.items()},
            {node_ids[v]: state_ids[v] for v in nodes},
        )
    _pgmpy()
    from pgmpy.readwrite import BIFWriter, XMLBIFWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if fmt == "bif":
            BIFWriter(safe_model).write_bif(str(path))
        else:
            XMLBIFWriter(safe_model).write_xmlbif(str(path))
    name_map = {
        "format": "bnclf-name-map/1",
        "bnclf_version": __version__,
        "nodes": [[node_ids[v], _json_label(v)] for v in nodes],
        "states": {node_ids[v]: [[s, _json_label(o)] for s, o in zip(state_ids[v], states[v])]
                   for v in nodes},
    }
    map_path = Path(str(path) + NAME_MAP_SUFFIX)
    map_path.write_text(json.dumps(name_map, indent=1, ensure_ascii=False), encoding="utf-8")
    expected_states = {v: [_json_label(o) for o in states[v]] for v in nodes}
    try:
        _verify(read_network(path, fmt=fmt), dag, families, tables, expected_states, path)
    except Exception:
        path.unlink(missing_ok=True)  # never leave an unverified file behind
        map_path.unlink(missing_ok=True)
        raise
    return path


def read_network(path, fmt=None):
    """Read a BIF or XMLBIF file into a pgmpy ``DiscreteBayesianNetwork``.

    If a bnclf name map sits beside the file, original node names and state
    labels (with their types) are restored; otherwise names are as in the file
    and states are strings.
    """
    path = Path(path)
    fmt = _format_of(path, fmt)
    _pgmpy()
    from pgmpy.readwrite import BIFReader, XMLBIFReader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reader = BIFReader(str(path)) if fmt == "bif" else XMLBIFReader(str(path))
        model = reader.get_model()
    map_path = Path(str(path) + NAME_MAP_SUFFIX)
    if not map_path.exists():
        return model
    name_map = json.loads(map_path.read_text(encoding="utf-8"))
    node_of = {safe: orig for safe, orig in name_map["nodes"]}
    families, tables, states = tables_from_network(model)
    state_of = {safe: {s: o for s, o in pairs} for safe, pairs in name_map["states"].items()}
    import networkx as nx

    dag = nx.DiGraph()
    dag.add_nodes_from(node_of[safe] for safe, _ in name_map["nodes"])
    dag.add_edges_from((node_of[u], node_of[v]) for u, v in model.edges)
    with np.errstate(divide="ignore"):
        return network_from_tables(
            dag,
            {node_of[c]: tuple(node_of[p] for p in ps) for c, ps in families.items()},
            {node_of[c]: np.log(t) for c, t in tables.items()},
            {node_of[v]: [state_of[v][str(s)] for s in ss] for v, ss in states.items()},
        )


def _verify(model, dag, families, tables, states, path):
    """Compare a network read back with what was written; raise on any difference."""
    got_families, got_tables, got_states = tables_from_network(model)
    problems = []
    if set(model.nodes) != set(dag.nodes) or set(model.edges) != set(dag.edges):
        problems.append("structure differs")
    for child, parents in families.items():
        if child not in got_families or set(got_families[child]) != set(parents):
            problems.append(f"parents of {child!r} differ")
            continue
        order = [0] + [1 + got_families[child].index(p) for p in parents]
        got = np.transpose(got_tables[child], order)
        for var in (child, *parents):
            if list(got_states[var]) != list(states[var]):
                problems.append(f"states of {var!r} differ")
        if got.shape != tables[child].shape or not np.allclose(got, tables[child], rtol=0, atol=1e-9):
            problems.append(f"CPT of {child!r} differs")
    if problems:
        raise RuntimeError(f"{path} does not read back as written: {sorted(set(problems))[:5]}")


# -- estimator persistence ---------------------------------------------------------
def save_model(estimator, path) -> Path:
    """Pickle a fitted estimator with the bnclf version that wrote it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        pickle.dump({"format": "bnclf-model/1", "bnclf_version": __version__,
                     "estimator": estimator}, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def load_model(path):
    """Load an estimator written by :func:`save_model` (only load files you trust)."""
    with open(path, "rb") as fh:
        payload = pickle.load(fh)  # noqa: S301 - documented: trusted files only
    if not isinstance(payload, dict) or payload.get("format") != "bnclf-model/1":
        raise ValueError(f"{path} is not a bnclf model file (written by bnclf.io.save_model).")
    return payload["estimator"]
