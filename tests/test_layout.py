"""The package's layout shows the flow of the data, and keeps its promises to old code.

* No import cycle between bnclf's modules (top-level imports; imports inside functions
  and under ``if TYPE_CHECKING:`` run later and are left out), nor between its
  subpackages, and the subpackages depend on each other only downstream in the flow
  ``encoding -> counts -> learn -> network/inference -> models -> io -> plot ->
  evaluation -> cli``.
* Imports inside functions do not reach downstream in the flow either, except
  ``Network``'s notebook conveniences (``to_pgmpy``, ``_repr_svg_``).
* Internal modules start with an underscore; no module is much over 800 lines, no class
  over 300 and no function over 100.
* No module reads another module's private attributes (``obj._x`` where no class of the
  reading module defines ``_x``), nor imports a private name from another subpackage.
* The compiled kernels (Cython, built at install) sit in the subpackage whose code calls
  them: ``counts``, ``learn`` or ``inference``; nothing imports numba.
* Every module name of bnclf 0.1 still imports, and reading one of its names warns
  (``DeprecationWarning``) and names where it lives today.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import warnings
from pathlib import Path

import networkx as nx
import pytest

import bnclf

PACKAGE = Path(bnclf.__file__).parent

#: the subpackages in the order the data flows through them; a package may import only
#: from the packages before it (and from bnclf's private top-level modules)
FLOW = [
    "encoding",
    "counts",
    "learn",
    "inference",
    "network",
    "models",
    "io",
    "plot",
    "datasets",
    "evaluation",
    "cli",
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _top_level_imports(tree: ast.Module):
    """The modules imported when the module is imported: every top-level ``import`` and
    ``from ... import`` (also inside top-level ``try``/``if``), except under
    ``if TYPE_CHECKING:``."""
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for inner in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(inner, ast.Import):
                yield from (alias.name for alias in inner.names)
            elif isinstance(inner, ast.ImportFrom) and inner.level == 0 and inner.module:
                submodules = [f"{inner.module}.{alias.name}" for alias in inner.names]
                found = [name for name in submodules if name in MODULES]
                yield from found
                if len(found) < len(submodules):  # names defined in the module itself
                    yield inner.module


def _import_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for name, path in MODULES.items():
        graph.add_node(name)
        for target in _top_level_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if target in MODULES and target != name:
                graph.add_edge(name, target)
    return graph


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_graph_sees_the_imports():
    """The parser finds what it should, so that the tests below can fail."""
    graph = _import_graph()
    assert graph.has_edge("bnclf.models._base", "bnclf.counts._cache")
    assert graph.has_edge("bnclf.counts._cache", "bnclf.encoding._frames")
    assert graph.has_edge("bnclf.models", "bnclf.models._base")
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import bnclf.models\n")
    assert list(_top_level_imports(tree)) == ["typing"]


def test_no_import_cycle_between_modules():
    cycles = list(nx.simple_cycles(_import_graph()))
    assert not cycles, f"import cycles: {cycles[:5]}"


def test_packages_import_only_upstream_in_the_flow():
    order = {name: k for k, name in enumerate(FLOW)}
    assert set(order) == {_package(m) for m in MODULES if _package(m) and not _package(m).startswith("_")}
    wrong = sorted(
        (source, target)
        for source, target in _import_graph().edges
        if _package(source) in order and _package(target) in order and order[_package(target)] > order[_package(source)]
    )
    assert not wrong, f"imports against the flow: {wrong}"


def test_internal_modules_are_private_and_short():
    public = [name for name in MODULES if name.count(".") >= 2 and not name.rsplit(".", 1)[1].startswith("_")]
    assert not public, f"modules inside subpackages should start with an underscore: {public}"
    long = {name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > 850}
    assert not long, f"modules over 850 lines: {long}"


#: functions that may import downstream in the flow when called: conveniences a notebook
#: looks for on the class (``Network.to_pgmpy`` writes through io; ``_repr_svg_`` draws)
DEFERRED_ALLOWED = {("bnclf.network", "to_pgmpy"), ("bnclf.network", "_repr_svg_")}


def _deferred_imports(tree: ast.Module):
    """``(function, imported module)`` for every import inside a function body."""
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    yield from ((function.name, alias.name) for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    yield function.name, node.module
                    yield from ((function.name, f"{node.module}.{a.name}") for a in node.names)


def test_imports_inside_functions_do_not_reach_downstream():
    order = {name: k for k, name in enumerate(FLOW)}
    found = {
        (name, function, target)
        for name, path in MODULES.items()
        for function, target in _deferred_imports(ast.parse(path.read_text(encoding="utf-8")))
        if target in MODULES
    }
    assert ("bnclf.network", "to_pgmpy", "bnclf.io._pgmpy") in found  # the parser sees them
    wrong = sorted(
        (source, function, target)
        for source, function, target in found
        if _package(source) in order
        and _package(target) in order
        and order[_package(target)] > order[_package(source)]
        and (source, function) not in DEFERRED_ALLOWED
    )
    assert not wrong, f"imports inside functions against the flow: {wrong}"


def _sizes(kind):
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, kind):
                yield f"{name}.{node.name}", node.end_lineno - node.lineno + 1


def test_classes_and_functions_are_short():
    classes = {name: n for name, n in _sizes(ast.ClassDef) if n > 300}
    assert not classes, f"classes over 300 lines: {classes}"
    functions = {name: n for name, n in _sizes((ast.FunctionDef, ast.AsyncFunctionDef)) if n > 100}
    assert not functions, f"functions over 100 lines: {functions}"


#: private attributes of other libraries read on purpose, each with its fallback in place
FOREIGN_PRIVATE = {
    ("bnclf.encoding._columns", "_mgr"),  # pandas' block storage: a frame's columns without a Series each
    ("bnclf.cli._compare", "_SubParsersAction"),  # argparse's subcommand table, to list subcommands
}


def _defined_by_classes(tree: ast.Module) -> set[str]:
    names = set()
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)  # self._x = ..., also on another instance of the class
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)  # __slots__, getattr(self, "_x")
    return names


def _private_reads(tree: ast.Module):
    own = _defined_by_classes(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            and node.attr not in own
        ):
            yield node.attr, node.lineno


def test_no_module_reads_another_modules_private_attributes():
    tree = ast.parse("class A:\n    def f(self):\n        self._a = 1\n\ndef g(b, c):\n    return b._a, c._b\n")
    assert [name for name, _ in _private_reads(tree)] == ["_b"]  # the check can fail
    reads = sorted(
        f"{name}:{line} .{attr}"
        for name, path in MODULES.items()
        for attr, line in _private_reads(ast.parse(path.read_text(encoding="utf-8")))
        if (name, attr) not in FOREIGN_PRIVATE
    )
    assert not reads, f"private attributes read across modules: {reads}"


def _home(module: str) -> str:
    """The subpackage a module belongs to; ``""`` for bnclf's top-level modules."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else ""


def test_no_private_name_is_imported_from_another_subpackage():
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("bnclf"):
                source = node.module if node.module in MODULES else ""
                for alias in node.names:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    if private and f"{node.module}.{alias.name}" not in MODULES:
                        if _home(source or node.module) != _home(name):
                            found.append(f"{name} imports {node.module}.{alias.name}")
    assert not found, f"private names imported across subpackages: {found}"


SOURCE = Path(__file__).resolve().parents[1] / "bnclf"  # the checkout: the .pyx sources are not installed
KERNEL_HOMES = ("counts", "learn", "inference")


def test_compiled_kernels_live_beside_the_code_they_serve():
    sources = sorted(SOURCE.rglob("*.pyx"))
    assert sources, "no Cython source found in the checkout"
    for path in sources:
        parts = path.relative_to(SOURCE).parts
        assert len(parts) == 2 and parts[0] in KERNEL_HOMES, f"{path.name}: kernels go in {KERNEL_HOMES}"
        name = "bnclf." + ".".join(path.relative_to(SOURCE).with_suffix("").parts)
        built = importlib.import_module(name)  # built by pip install: an extension module, not Python
        assert Path(built.__file__).suffix in (".so", ".pyd"), built.__file__
    extensions = [p for p in PACKAGE.rglob("*") if p.suffix in (".so", ".pyd")]
    assert {p.relative_to(PACKAGE).parts[0] for p in extensions} <= set(KERNEL_HOMES), extensions
    for name, path in MODULES.items():  # one path per computation: no JIT layer beside the kernels
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert not {m for m in imported if m.split(".")[0] == "numba"}, f"{name} imports numba"


OLD_NAMES = [
    ("bnclf.data", "FeatureEncoder", "bnclf.encoding"),
    ("bnclf.stats", "CountCache", "bnclf.counts"),
    ("bnclf.stats", "entropy", "bnclf.counts"),
    ("bnclf.structure", "learn_tan", "bnclf.learn"),
    ("bnclf.config", "get_config", "bnclf"),
    ("bnclf.discretize", "MDLDiscretizer", "bnclf"),
    ("bnclf.modelfile", "check_log_cpt", "bnclf.network"),
    ("bnclf.models.kdb", "KDBClassifier", "bnclf"),
    ("bnclf.models.registry", "register_classifier", "bnclf.models"),
    ("bnclf.evaluation.metrics", "kappa", "bnclf.evaluation"),
    ("bnclf.io", "cpt_table", "bnclf.io"),
    ("bnclf.inference", "FamilyGather", "bnclf.inference._kernels"),
    ("bnclf.label_inference", "LabelKernel", "bnclf.inference._labels"),
]


@pytest.mark.parametrize("old, name, home", OLD_NAMES, ids=[f"{o}.{n}" for o, n, _ in OLD_NAMES])
def test_names_of_bnclf_0_1_still_import_and_say_where_they_live(old, name, home):
    if name in getattr(importlib.import_module(old), "__all__", ()):  # still public there
        assert getattr(importlib.import_module(old), name) is not None
        return
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved in bnclf 0\.2; import it from {home}\b"):
        value = getattr(importlib.import_module(old), name)
    assert value is getattr(importlib.import_module(home), name)


def test_an_old_from_import_works_in_a_fresh_interpreter(tmp_path):
    code = (
        "import warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "try:\n"
        "    from bnclf.models.naive import NaiveBayesClassifier\n"
        "except DeprecationWarning as warning:\n"
        "    print('warned:', warning)\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        "from bnclf.models.naive import NaiveBayesClassifier\n"
        "import bnclf\n"
        "assert NaiveBayesClassifier is bnclf.NaiveBayesClassifier\n"
    )
    # run outside the checkout: its bnclf has no compiled kernels unless built in place
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "warned: bnclf.models.naive is a module of bnclf 0.1; its names moved in bnclf 0.2" in result.stdout


def test_the_current_names_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for package in ["bnclf", *(f"bnclf.{name}" for name in FLOW)]:
            module = importlib.import_module(package)
            for name in getattr(module, "__all__", ()):
                getattr(module, name)
