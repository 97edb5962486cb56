"""BIF, XMLBIF and UAI files of fitted networks, with name maps; sets of member files with a manifest.

Every written file is read back and compared with the network before the call returns.
The text of each format and the names it can hold are in :mod:`bnclf.io._formats`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bnclf._version import __version__
from bnclf.encoding._frames import python_scalar
from bnclf.io._files import staged
from bnclf.io._formats import (
    bif_names,
    bif_text,
    network_file_problem,
    read_bif,
    read_uai,
    uai_text,
    xmlbif_names,
    xmlbif_text,
)
from bnclf.io._pgmpy import _pgmpy, network_from_tables, tables_from_network

if TYPE_CHECKING:
    from pgmpy.models import DiscreteBayesianNetwork
    from sklearn.base import BaseEstimator

    from bnclf.network import Network, NetworkMembers


_FORMATS = {".bif": "bif", ".xml": "xmlbif", ".xmlbif": "xmlbif", ".bifxml": "xmlbif", ".uai": "uai"}
"""The suffixes that choose a format (``.bifxml`` is pyAgrum's name for XMLBIF)."""


_KEYWORDS = {"network", "variable", "probability", "property", "type", "discrete", "table", "default"}


NAME_MAP_SUFFIX = ".names.json"


def _json_label(v):
    """The label as JSON keeps it: str, int, float, bool or None; anything else as text."""
    v = python_scalar(v)
    return v if isinstance(v, (str, int, float, bool)) or v is None else str(v)


def safe_identifiers(labels: Iterable[Hashable], prefix: str) -> list[str]:
    """Distinct identifiers made of letters, digits and ``_`` for ``labels``, in order (the
    file names of a multinet's members, ``<stem>.class_<label><suffix>``)."""
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


def fitted_estimator(obj: Any) -> BaseEstimator | None:
    """The fitted bnclf classifier in ``obj`` (itself, or the last step of a pipeline), or None."""
    if not (hasattr(obj, "get_params") and not hasattr(obj, "get_cpds")):
        return None
    from sklearn.utils.validation import check_is_fitted

    est = obj[-1] if hasattr(obj, "steps") else obj
    if not hasattr(est, "network_members"):
        raise TypeError(
            f"Cannot export a {type(est).__name__}; pass a fitted bnclf classifier "
            "(or a pipeline ending in one) or a pgmpy DiscreteBayesianNetwork."
        )
    check_is_fitted(est, "classes_")
    return est


def _network_parts(model_or_estimator):
    """``(nodes, families, prob tables, states, class name)`` of a Network, a one-network
    estimator or a pgmpy network; nodes in the order files list them: a Network's by
    variable index (the features in column order, then the class), a pgmpy network's as
    it holds them. The class name is None for a pgmpy network and a network without one."""
    from bnclf.network import Network

    net = model_or_estimator
    est = None if isinstance(net, Network) else fitted_estimator(net)
    if est is not None:
        members = est.network_members()
        if len(members) != 1:
            raise ValueError(
                f"{type(est).__name__} holds {len(members)} networks; write them with "
                "write_network (one file per member plus a manifest)."
            )
        net = members[0][1]
    if isinstance(net, Network):
        tables = {k: np.exp(v) for k, v in net.named_log_cpts.items()}
        nodes = [net.names[v] for v in sorted(net.nodes)]
        return nodes, net.named_families, tables, net.categories, net.class_name if net.has_class else None
    model = model_or_estimator
    if not hasattr(model, "get_cpds"):
        raise TypeError(
            f"Cannot export a {type(model).__name__}; pass a fitted bnclf classifier or a "
            "pgmpy DiscreteBayesianNetwork."
        )
    families, tables, states = tables_from_network(model)
    return list(model.nodes), families, tables, states, None


def leave_out_one_state(
    nodes: Sequence[Hashable],
    families: Mapping[Hashable, Sequence[Hashable]],
    tables: Mapping[Hashable, np.ndarray],
    states: Mapping[Hashable, Sequence[Any]],
    keep: Hashable | None = None,
) -> tuple[list, dict, dict, list]:
    """The network without its one-state variables (but ``keep``, the class), and those left out.

    Parameters
    ----------
    nodes : list
        Node names in file order.
    families : dict
        ``child -> tuple of parents`` in CPT axis order.
    tables : dict
        ``child -> ndarray`` of probabilities, axes ``(child, *parents)``.
    states : dict
        ``node -> list of state labels``.
    keep : hashable, optional
        A node never left out (the class node).

    Returns
    -------
    nodes, families, tables : as given, without the one-state variables
    omitted : list of (node, state)
        The variables left out, each with its one state, in file order.

    Notes
    -----
    A variable with one state is that state with probability one, whatever its parents:
    its table is all ones, so leaving it out (summing it out) is exact, and a child that
    has it as a parent keeps the slice of its table at that state (conditioning on a
    value that has probability one). Every query on the other variables is unchanged.
    pyAgrum refuses a variable with fewer than two states, so files leave them out.
    """
    gone = {v for v in nodes if len(states[v]) == 1 and v != keep}
    if not gone:
        return list(nodes), dict(families), dict(tables), []
    kept_families, kept_tables = {}, {}
    for child in nodes:
        if child in gone:
            continue
        parents = tuple(families[child])
        at = tuple(0 if p in gone else slice(None) for p in parents)
        kept_tables[child] = np.asarray(tables[child])[(slice(None), *at)]
        kept_families[child] = tuple(p for p in parents if p not in gone)
    omitted = [(v, states[v][0]) for v in nodes if v in gone]
    return [v for v in nodes if v not in gone], kept_families, kept_tables, omitted


def _format_of(path: Path, fmt):
    fmt = fmt or _FORMATS.get(path.suffix.lower())
    if fmt not in ("bif", "xmlbif", "uai"):
        raise ValueError(
            f"Cannot tell the format of {str(path)!r}; use a .bif, .xmlbif (.xml, .bifxml) or .uai "
            "suffix or pass fmt='bif', 'xmlbif' or 'uai' (command line: --format bif, xmlbif or uai)."
        )
    return fmt


def write_network(
    model_or_estimator: BaseEstimator | Network | DiscreteBayesianNetwork,
    path: str | os.PathLike,
    fmt: str | None = None,
) -> Path:
    """Write a fitted estimator or pgmpy network as BIF, XMLBIF or UAI, verified by reading back.

    Parameters
    ----------
    model_or_estimator : BayesNetClassifier, Network or pgmpy DiscreteBayesianNetwork
        An estimator that holds several networks (an ensemble or a multinet)
        is written as one file per member, ``<stem>.<member><suffix>``, plus a
        manifest ``<path>.manifest.json`` that lists the member files with their
        weights (ensemble) or class labels and class prior (multinet). Each
        member file is read back and compared as it is written, and the
        manifest is read back and compared with what it should list (the
        member files, each by its hash) before anything is renamed into place.
        A member that no row can use is not written (AODE's naive Bayes
        fallback when ``frequency_limit=0``).
    path : str or Path
        Target file; the suffix chooses the format unless ``fmt`` is given:
        ``.bif``; ``.xmlbif``, ``.xml`` or ``.bifxml`` (pyAgrum's suffix) for
        XMLBIF; ``.uai``.
    fmt : {"bif", "xmlbif", "uai"}, optional

    Returns
    -------
    Path
        The file written (the manifest, for several networks). The name map is
        written to ``path + ".names.json"``.

    Raises
    ------
    RuntimeError
        If a file read back differs from the model (structure, states, or any
        probability by more than 1e-9), or a BIF file does not read back in
        bnclf's strict reader of the layout it writes.

    Notes
    -----
    The files are written to be read unchanged by pgmpy, pyAgrum and (XMLBIF) Weka 3.6:

    * **Names.** XMLBIF holds the variable and state names themselves (escaped);
      BIF holds the closest names its grammar allows, by a rule given in
      :func:`bnclf.io._formats.bif_names` (``(-inf, 54.5]`` is ``_-inf_54.5``);
      UAI holds no names (variable ``i`` is the ``i``-th node, state ``k`` the
      ``k``-th state). The name map beside the file gives every original name
      with its Python type, and :func:`read_network` restores them.
    * **UAI readers.** A UAI file is read exactly by :func:`read_network`; pyAgrum 3.3
      reads a table over two or more parents in another order than the format's, and
      pgmpy's ``UAIReader`` does not keep the format's order either. Writing UAI warns
      so, naming the file and how many tables are affected; for pyAgrum write
      ``.bifxml``, for pgmpy ``.bif`` or ``.xmlbif``.
    * **Order.** Variables are listed in column order with the class last (Weka's
      ``BIFReader`` takes the last variable as the class).
    * **One-state variables are left out.** A feature with one state (a numeric
      column in which MDL discretization found no cut point) carries no
      information: its table is all ones, so leaving it out changes no query on
      the other variables, and a child that has it as a parent keeps the slice
      of its table at that state. pyAgrum refuses such a variable. The name map
      lists what was left out (``omitted``); the estimator lists them as
      ``one_state_features_``.
    * **Verification.** Every file is read back with its name map and compared
      with the model before anything is renamed into place: an XMLBIF file by
      pgmpy's ``XMLBIFReader``, a UAI file by bnclf's reader
      (:func:`read_network`), a BIF file by bnclf's strict reader of the layout
      it writes (:func:`bnclf.io._formats.read_bif`) and by pgmpy's
      ``BIFReader``, which must both read it as written. pgmpy's ``BIFReader``
      parses every line with pyparsing, so of a set of member files it reads the
      smallest, and then, smallest first, any other with a variable, a state of
      a variable or a table with a number of parents that the files it has read
      did not have (an AODE's members all have the same variables: pgmpy reads
      one or two of its files); bnclf's reader reads every member.
    """
    path = Path(path)
    fmt = _format_of(path, fmt)
    est = fitted_estimator(model_or_estimator)
    if est is not None and len(est.network_members()) > 1:
        written = _write_members(est, path, fmt)
    else:
        with staged(path, Path(str(path) + NAME_MAP_SUFFIX)) as (tmp, _):
            _write_single(model_or_estimator, tmp, fmt, shown=path)
        written = path
    if fmt == "uai":
        warnings.warn(uai_readers(path, _multi_parent_tables(est or model_or_estimator)), UserWarning, stacklevel=2)
    return written


def uai_readers(path: Path, multi_parent: int) -> str:
    """Which tools read the UAI file ``path`` right, and what to write for pyAgrum and pgmpy
    instead (``multi_parent``: how many of its tables have two or more parents)."""
    which = (
        f"{multi_parent} table(s) of this file have two or more parents and read wrong there"
        if multi_parent
        else "no table of this file has two or more parents, so pyAgrum reads this file right"
    )
    return (
        f"{path}: UAI is read exactly by bnclf.io.read_network; pyAgrum 3.3 (gum.loadBN) reads a table "
        f"over two or more parents in another order than the format's ({which}), and pgmpy's UAIReader "
        "does not keep the format's table order. For pyAgrum write .bifxml (XMLBIF, exact names and "
        "probabilities); for pgmpy .bif or .xmlbif."
    )


def _multi_parent_tables(obj) -> int:
    """How many tables of ``obj`` (an estimator's exported members, a Network or a pgmpy
    network) have two or more parents."""
    from bnclf.network import Network

    if hasattr(obj, "get_cpds"):
        return sum(len(obj.get_parents(v)) >= 2 for v in obj.nodes)
    nets = [obj] if isinstance(obj, Network) else [net for _, net in exported_members(obj)]
    return sum(len(family) >= 3 for net in nets for family in net.families)


def _file_names(nodes, states, fmt) -> tuple[dict, dict]:
    """The names a file of format ``fmt`` gives the nodes and the states of each node."""
    if fmt == "uai":
        return {v: f"var_{i}" for i, v in enumerate(nodes)}, {v: list(range(len(states[v]))) for v in nodes}
    if fmt == "bif":
        return dict(zip(nodes, bif_names(nodes, state=False))), {v: bif_names(states[v], state=True) for v in nodes}
    return dict(zip(nodes, xmlbif_names(nodes))), {v: xmlbif_names(states[v]) for v in nodes}


_WRITERS = {"bif": bif_text, "xmlbif": xmlbif_text, "uai": uai_text}


def _write_single(model_or_estimator, path: Path, fmt: str, shown: Path, read_by_pgmpy: set | None = None) -> str:
    """Write one network and its name map at ``path`` (a staged file) and read it back;
    messages name ``shown``, the file the user asked for. Returns the file's SHA-256.

    The file is read back with its name map and compared with the network (see
    :func:`write_network`): BIF by bnclf's strict reader and, unless ``read_by_pgmpy`` holds
    all that the file has, by pgmpy's ``BIFReader``; XMLBIF and UAI by :func:`read_network`.
    ``read_by_pgmpy`` collects what the files of a set that pgmpy has read had: each
    variable with its states, as the files name them, and each number of parents of a table
    (None: a single file, always read)."""
    nodes, families, tables, states, class_name = _network_parts(model_or_estimator)
    nodes, families, tables, omitted = leave_out_one_state(nodes, families, tables, states, keep=class_name)
    if not nodes:
        raise ValueError(
            f"Cannot write {shown}: every variable of the network has one state, so the file would be "
            "empty (a one-state variable is left out of network files; it carries no information)."
        )
    node_ids, state_ids = _file_names(nodes, states, fmt)
    text = _WRITERS[fmt](
        [node_ids[v] for v in nodes],
        {node_ids[c]: [node_ids[p] for p in families[c]] for c in nodes},
        {node_ids[c]: tables[c] for c in nodes},
        {node_ids[v]: state_ids[v] for v in nodes},
    )
    path.write_text(text, encoding="utf-8")
    name_map = {
        "format": "bnclf-name-map/1",
        "bnclf_version": __version__,
        "nodes": [[node_ids[v], _json_label(v)] for v in nodes],
        "states": {node_ids[v]: [[s, _json_label(o)] for s, o in zip(state_ids[v], states[v])] for v in nodes},
    }
    if omitted:
        name_map["omitted"] = [[_json_label(v), _json_label(s)] for v, s in omitted]
    name_map["sha256"] = _sha256(path)
    map_path = Path(str(path) + NAME_MAP_SUFFIX)
    map_path.write_text(json.dumps(name_map, indent=1, ensure_ascii=False), encoding="utf-8")
    expected_states = {v: [_json_label(o) for o in states[v]] for v in nodes}
    import networkx as nx

    dag = nx.DiGraph()
    dag.add_nodes_from(nodes)
    dag.add_edges_from((p, c) for c in nodes for p in families[c])
    # Read back before the staged files replace anything: an unverified file never lands.
    if fmt == "bif":
        try:
            back = _renamed(path, *read_bif(path))
        except ValueError as exc:
            raise RuntimeError(f"{shown} does not read back as written: {exc}") from None
        _verify(back, dag, families, tables, expected_states, shown)
    has = {(node_ids[v], tuple(state_ids[v])) for v in nodes} | {("parents", len(families[c])) for c in nodes}
    if fmt != "bif" or read_by_pgmpy is None or not has <= read_by_pgmpy:
        _verify(_parts_of(read_network(path, fmt=fmt)), dag, families, tables, expected_states, shown)
        if read_by_pgmpy is not None:
            read_by_pgmpy |= has
    return name_map["sha256"]


MANIFEST_SUFFIX = ".manifest.json"


def exported_members(est: BaseEstimator) -> list:
    """The member networks :func:`write_network` writes for ``est``, as ``(key, Network)``:
    ``network_members().exported``, which leaves out a member no row can use (AODE's naive
    Bayes fallback when every SPODE qualifies for every row)."""
    return _described(est).exported


def _described(est: BaseEstimator) -> NetworkMembers:
    """``est.network_members()`` as a :class:`~bnclf.network.NetworkMembers` (a multilabel
    baseline returns a plain list: its members, nothing more said)."""
    from bnclf.network import NetworkMembers

    members = est.network_members()
    return members if isinstance(members, NetworkMembers) else NetworkMembers(members, est)


def _write_members(est, path: Path, fmt: str) -> Path:
    """One verified file per member network, and a manifest; the set is read back and compared."""
    described = _described(est)
    members = described.exported
    keys = (
        [f"member{i:02d}" for i in range(len(members))]
        if described.kind == "ensemble"
        else ["class_" + s for s in safe_identifiers([k for k, _ in members], "c")]
    )
    manifest_path = Path(str(path) + MANIFEST_SUFFIX)
    member_paths = [path.with_name(f"{path.stem}.{key}{path.suffix}") for key in keys]
    targets = [manifest_path, *member_paths, *(Path(str(m) + NAME_MAP_SUFFIX) for m in member_paths)]
    with staged(*targets) as staged_paths:
        _write_member_files(est, described, members, member_paths, staged_paths, fmt)
    return manifest_path


def _write_member_files(est, described, members, member_paths, staged_paths, fmt) -> None:
    """The member files and the manifest, written at their staged paths and read back;
    ``described`` is ``est.network_members()`` (kind, weights, combination rule, extras)."""
    kind = described.kind
    manifest_path = staged_paths[0]
    digests, read_by_pgmpy = {}, set()
    # smallest first: the files pgmpy's BIF reader reads (see _write_single) are the small ones
    for i in sorted(range(len(members)), key=lambda i: sum(np.size(t) for t in members[i][1].log_cpts)):
        digests[i] = _write_single(
            members[i][1], staged_paths[1 + i], fmt, shown=member_paths[i], read_by_pgmpy=read_by_pgmpy
        )
    hashes = [digests[i] for i in range(len(members))]
    entries = []
    for (label, net), member_path in zip(members, member_paths):
        entry = {"file": member_path.name, "title": net.title}
        if kind == "multinet":
            entry["label"] = _json_label(label)
        entries.append(entry)
    manifest = {
        "format": "bnclf-network-set/1",
        "bnclf_version": __version__,
        "estimator": type(est).__name__,
        "kind": kind,
        "class": _json_label(est.class_name_),
        "members": entries,
    }
    if kind == "ensemble":
        manifest["weights"] = [float(described.weights[k]) for k, _ in members]
        manifest["combine"] = described.combine
    else:
        manifest["class_prior"] = [float(p) for p in np.exp(est.class_log_prior_)]
    manifest.update(described.manifest_extras)
    text = json.dumps(manifest, indent=1, ensure_ascii=False)
    manifest_path.write_text(text, encoding="utf-8")
    # Each member file was read back and compared as it was written (_write_single); the set
    # is checked without parsing the members again: the manifest reads back as written and
    # lists exactly those files, each still the file that was compared (its hash).
    _, back, files = _read_manifest(manifest_path)
    problems = []
    if json.dumps(back, indent=1, ensure_ascii=False) != text:
        problems.append("the manifest differs")
    if [f.name for f in files] != [p.name for p in member_paths]:
        problems.append("the member files differ")
    elif [_sha256(f) if f.is_file() else None for f in files] != hashes:
        problems.append("a member file is not the one that was read back")
    if problems:
        raise RuntimeError(f"{manifest_path.name} does not read back as written: {'; '.join(problems)}")


def read_networks(path: str | os.PathLike, fmt: str | None = None) -> dict[str, Any]:
    """Read a set of networks written by :func:`write_network` for an ensemble or a multinet.

    Parameters
    ----------
    path : str or Path
        The manifest (``<file>.manifest.json``) or the path given to
        :func:`write_network`.

    Returns
    -------
    dict
        ``kind`` (``"ensemble"`` or ``"multinet"``), ``networks`` (a list of
        pgmpy networks for an ensemble, a dict keyed by class label for a
        multinet), and ``weights`` and ``combine`` (ensemble) or
        ``class_prior`` (multinet, a dict keyed by class label).
    """
    path, manifest, files = _read_manifest(path)
    out = {"kind": manifest["kind"], "estimator": manifest["estimator"]}
    if manifest["kind"] == "multinet":
        labels = [entry["label"] for entry in manifest["members"]]
        out["networks"] = {label: read_network(f, fmt=fmt) for label, f in zip(labels, files)}
        out["class_prior"] = dict(zip(labels, manifest["class_prior"]))
    else:
        out["networks"] = [read_network(f, fmt=fmt) for f in files]
        out["weights"] = manifest["weights"]
        out["combine"] = manifest["combine"]
        for key in ("frequency_limit", "value_counts", "row_weights"):
            if key in manifest:
                out[key] = manifest[key]
    return out


def _read_manifest(path) -> tuple[Path, dict, list[Path]]:
    """``(manifest path, manifest, member files)`` of a set written by :func:`write_network`
    (``path``: the manifest or the path given to it); the members are not read."""
    path = Path(path)
    if not str(path).endswith(MANIFEST_SUFFIX):
        path = Path(str(path) + MANIFEST_SUFFIX)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than the reader follows
        raise ValueError(
            f"{path} is not a bnclf network-set manifest ({type(exc).__name__}); write the set again "
            "with write_network."
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != "bnclf-network-set/1":
        raise ValueError(f"{path} is not a bnclf network-set manifest.")
    files = [path.with_name(_member_file(entry, path)) for entry in manifest.get("members") or []]
    if not files:
        raise ValueError(f"{path} lists no member networks; write the set again with write_network.")
    return path, manifest, files


def _member_file(entry, manifest: Path) -> str:
    """The file name of one member of a manifest: a plain name in the manifest's folder."""
    name = entry.get("file") if isinstance(entry, dict) else None
    if not isinstance(name, str) or name in ("", ".", "..") or Path(name).name != name or "\\" in name:
        raise ValueError(
            f"{manifest}: member file {name!r} is not a file name in the manifest's folder (members "
            "are read only beside their manifest: no folders, no '..'); write the set again with "
            "write_network."
        )
    return name


@functools.cache
def _bif_reader() -> type:
    """pgmpy's ``BIFReader`` with its two grammars built once per process.

    ``BIFReader`` builds them on every read, and building them (pyparsing words over all
    of Unicode's letters) is costly, which every read would pay again.
    The grammars depend on nothing but pyparsing, so one copy serves every read.
    """
    from pgmpy.readwrite import BIFReader

    class CachedGrammarBIFReader(BIFReader):
        grammars: dict = {}

        def get_variable_grammar(self):
            if "variable" not in self.grammars:
                self.grammars["variable"] = super().get_variable_grammar()
            return self.grammars["variable"]

        def get_probability_grammar(self):
            if "probability" not in self.grammars:
                self.grammars["probability"] = super().get_probability_grammar()
            return self.grammars["probability"]

    return CachedGrammarBIFReader


def read_network(path: str | os.PathLike, fmt: str | None = None) -> DiscreteBayesianNetwork:
    """Read a BIF, XMLBIF or UAI file into a pgmpy ``DiscreteBayesianNetwork``.

    If a bnclf name map sits beside the file, original node names and state
    labels (with their types) are restored; otherwise names are as in the file
    and states are strings (for UAI, which has no names, the nodes are
    ``var_0``, ``var_1``, ... and the states ``0 .. r-1``). Variables that
    :func:`write_network` left out (one state) are not in the network; the name
    map lists them under ``omitted``.

    Notes
    -----
    BIF is read by pgmpy's ``BIFReader``, XMLBIF by its ``XMLBIFReader``; UAI by
    bnclf (:func:`bnclf.io._formats.read_uai`), since pgmpy's ``UAIReader`` and
    ``UAIWriter`` do not use the format's table order.
    """
    path = Path(path)
    fmt = _format_of(path, fmt)
    _pgmpy()
    from pgmpy.readwrite import XMLBIFReader

    if not path.is_file():
        raise FileNotFoundError(f"no such network file: {path}")
    where = _bif_problem(path) if fmt == "bif" else ""
    if where:  # pgmpy's parser skips text it does not understand
        raise ValueError(f"{path} is not a readable BIF network ({where.rstrip('; ')}); it may be damaged.")
    problem = network_file_problem(path, fmt) if fmt != "uai" else ""
    if problem:
        raise ValueError(f"{path} is not a valid {fmt.upper()} network: {problem}.")
    if fmt == "uai":
        parts = read_uai(path)  # its errors name the file
        if Path(str(path) + NAME_MAP_SUFFIX).exists():  # one pgmpy network, in the original names
            return _network_of(*_renamed(path, *parts))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if fmt == "uai":
                model = _network_of(*parts)
            else:
                reader = _bif_reader()(str(path)) if fmt == "bif" else XMLBIFReader(str(path))
                model = reader.get_model()
            model.check_model()
        except Exception as exc:  # pgmpy's parsers raise many kinds of errors
            detail = " ".join(str(exc).split())[:200] or type(exc).__name__
            where = _bif_problem(path, str(exc)) if fmt == "bif" else ""
            raise ValueError(
                f"{path} is not a readable {fmt.upper()} network ({where}{detail}); it may be truncated "
                "or not a network file."
            ) from None
    missing = [v for v in model.nodes if model.get_cpds(v) is None]
    if missing or not model.nodes:
        where = _bif_problem(path, " ".join(map(str, missing[:1]))) if fmt == "bif" else ""
        raise ValueError(
            f"{path} is not a complete {fmt.upper()} network: {where}no probability "
            f"table for {missing[:5] or 'any variable'}; it may be truncated."
        )
    if not Path(str(path) + NAME_MAP_SUFFIX).exists():
        return model
    families, tables, states = tables_from_network(model)
    return _network_of(*_renamed(path, list(model.nodes), families, tables, states))


def _renamed(path: Path, nodes, families, tables, states) -> tuple[list, dict, dict, dict]:
    """The parts of the network read from ``path`` (named as in the file) in the original
    names of its name map, which is checked: it must be the map of this file (its hash)."""
    map_path = Path(str(path) + NAME_MAP_SUFFIX)
    try:
        name_map = json.loads(map_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{map_path} is not a bnclf name map: {exc}") from None
    except RecursionError:
        raise ValueError(
            f"{map_path} is not a bnclf name map: it nests lists or objects deeper than a JSON reader "
            "follows (a name map is two levels deep); write the network again with "
            "bnclf.io.write_network, or delete the name map to read the file with its own names."
        ) from None
    if not isinstance(name_map, dict) or not {"sha256", "nodes", "states"} <= set(name_map):
        raise ValueError(
            f"{map_path} is not a complete bnclf name map (it needs the keys sha256, nodes and states); "
            "write the network again with bnclf.io.write_network, or delete the name map to read "
            "the file with its own names."
        )
    expected = name_map["sha256"]
    if expected != _sha256(path):
        raise ValueError(
            f"{map_path} belongs to another version of {path.name} (its hash does not match); "
            "write the network again with bnclf.io.write_network, or delete the name map to "
            "read the file with its own names."
        )
    node_of, state_of = _checked_name_map(name_map, states, map_path)
    return (
        [node_of[safe] for safe, _ in name_map["nodes"]],
        {node_of[c]: tuple(node_of[p] for p in ps) for c, ps in families.items()},
        {node_of[c]: t for c, t in tables.items()},
        {node_of[v]: [state_of[v][str(s)] for s in ss] for v, ss in states.items()},
    )


def _parts_of(model) -> tuple[list, dict, dict, dict]:
    """``(nodes, families, tables, states)`` of a pgmpy network (tables: probabilities with
    axes ``(child, *parents)``)."""
    return (list(model.nodes), *tables_from_network(model))


def _network_of(nodes, families, tables, states) -> DiscreteBayesianNetwork:
    """A pgmpy network of named parts (probability tables, axes ``(child, *parents)``)."""
    import networkx as nx

    dag = nx.DiGraph()
    dag.add_nodes_from(nodes)
    dag.add_edges_from((p, c) for c, ps in families.items() for p in ps)
    with np.errstate(divide="ignore"):
        return network_from_tables(dag, families, {c: np.log(t) for c, t in tables.items()}, states)


def _checked_name_map(name_map: dict, states: dict, map_path: Path) -> tuple[dict, dict]:
    """The node and state maps of a name map, each field checked against the network read
    (``states``: its state names per node) and refused with the file and the field named."""

    def fail(field: str, what: str):
        raise ValueError(
            f"{map_path}: {field}: {what}; write the network again with bnclf.io.write_network, or delete "
            "the name map to read the file with its own names."
        )

    def pairs(value, field: str) -> list:
        if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
            fail(field, "expected a list of [name in the file, original] pairs")
        for _, original in value:
            if isinstance(original, (list, dict)):
                fail(field, f"{original!r} cannot be a name (a name is a number, a text, true/false or null)")
        firsts, seconds = [str(p[0]) for p in value], [json.dumps(p[1]) for p in value]
        for names, side in ((firsts, "in the file"), (seconds, "original")):
            if len(set(names)) != len(names):
                fail(field, f"a name {side} is listed twice")
        return value

    node_of = {str(safe): original for safe, original in pairs(name_map["nodes"], "nodes")}
    if set(node_of) != {str(v) for v in states}:
        fail("nodes", f"lists {sorted(node_of)[:5]}, but the network has {sorted(map(str, states))[:5]}")
    if not isinstance(name_map["states"], dict) or set(name_map["states"]) != set(node_of):
        fail("states", "expected one entry per node of the network")
    state_of = {}
    for node, entries in name_map["states"].items():
        state_of[node] = {str(s): original for s, original in pairs(entries, f"states of {node}")}
        if set(state_of[node]) != {str(s) for s in states[node]}:
            fail(f"states of {node}", f"lists {sorted(state_of[node])[:5]}, but the file has {list(states[node])[:5]}")
    return node_of, state_of


def _bif_problem(path, message: str = "") -> str:
    """Where a BIF file goes wrong, as ``"line N: ...; "`` (empty if no line is to blame):
    a block whose ``{`` is never closed (a truncated file), a stray ``}``, text outside
    any statement, or the ``variable`` line of a variable named in ``message`` (pgmpy's
    error) that has no probability block."""
    import re

    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    depth, opened = 0, 0
    for number, line in enumerate(lines, 1):
        text = line.split("//")[0].strip()
        if depth == 0 and text and not re.match(r"(network|variable|probability)\b|[{}]", text):
            return f"line {number}: unexpected text {text[:40]!r}; "
        for char in text:
            if char == "{":
                depth += 1
                opened = number if depth == 1 else opened
            elif char == "}":
                depth -= 1
                if depth < 0:
                    return f"line {number}: a '}}' closes no block; "
    if depth > 0:
        return f"line {opened}: the block opened there is not closed (the file ends at line {len(lines)}); "
    for number, line in enumerate(lines, 1):
        kind = re.search(r"type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}", line)
        if kind:
            raw = kind.group(2)  # as pgmpy reads it: comma-separated if there is a comma
            listed = [s.strip() for s in raw.split(",") if s.strip()] if "," in raw else raw.split()
            if int(kind.group(1)) != len(listed):
                return (
                    f"line {number}: declares {kind.group(1)} states but lists {len(listed)} "
                    f"({', '.join(listed[:6])}); "
                )
    declared = {m.group(1): n for n, line in enumerate(lines, 1) if (m := re.match(r"\s*variable\s+(\S+)", line))}
    blocks = {
        m.group(1): n for n, line in enumerate(lines, 1) if (m := re.match(r"\s*probability\s*\(\s*([^\s|)]+)", line))
    }
    for name, number in declared.items():
        if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", message):
            if "not equal to 1" in message and name in blocks:
                return f"line {blocks[name]}: the probabilities of {name} do not sum to one; "
            return f"line {number}: variable {name} has no probability block; "
    return ""


def _sha256(path) -> str:
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _verify(back, dag, families, tables, states, path):
    """Compare a network read back, ``(nodes, families, tables, states)``, with what was
    written; raise on any difference."""
    got_nodes, got_families, got_tables, got_states = back
    got_edges = {(p, c) for c, ps in got_families.items() for p in ps}
    problems = []
    if set(got_nodes) != set(dag.nodes) or got_edges != set(dag.edges):
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
