"""The module names of bnclf 0.1, still importable, with a DeprecationWarning.

bnclf 0.2 moved its modules into subpackages named after the flow of the data
(``encoding``, ``counts``, ``learn``, ``inference``, ``models``, ``io``, ``plot``, ``cli``,
``evaluation``), with the internals in modules whose names start with an underscore.
Every name a user could import from a 0.1 module still imports from it: the old module
is made on demand (a finder on ``sys.meta_path``), and reading a name from it warns and
points to its place today. They are removed in bnclf 0.3 (the deprecation policy is in
CHANGELOG.md). Packages that kept their name (``bnclf.io``, ``bnclf.plot``,
``bnclf.inference``, ``bnclf.cli``) look up the internals they used to hold the same way
(:func:`moved_attributes`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

#: old module -> the modules that hold its names today (searched in this order)
MOVED: dict[str, tuple[str, ...]] = {
    "bnclf.config": ("bnclf._config",),
    "bnclf.data": ("bnclf.encoding._frames", "bnclf.encoding._encoder", "bnclf.encoding._columns"),
    "bnclf.discretize": ("bnclf.encoding._discretize",),
    "bnclf.stats": (
        "bnclf.counts._cache",
        "bnclf.counts._summary",
        "bnclf.counts._measures",
        "bnclf._entropy",
        "bnclf._config",
    ),
    "bnclf.chunked": ("bnclf.counts._chunks", "bnclf.models._dask"),
    "bnclf.structure": ("bnclf.learn._restricted",),
    "bnclf.params": ("bnclf.learn._parameters",),
    "bnclf.scores": ("bnclf.learn._scores",),
    "bnclf.search": ("bnclf.learn._search", "bnclf.learn._class_score"),
    "bnclf.instance": ("bnclf.learn._instance", "bnclf._config"),
    "bnclf.multilabel_structure": ("bnclf.learn._multilabel",),
    "bnclf.cfs": ("bnclf.learn._cfs",),
    "bnclf.label_inference": ("bnclf.inference._labels", "bnclf.inference._elimination", "bnclf._config"),
    "bnclf.pgmpy_adapter": ("bnclf.io._pgmpy",),
    "bnclf.arff": ("bnclf.io._arff",),
    "bnclf.modelfile": ("bnclf.io._modelfile", "bnclf.network"),
    "bnclf.models.base": ("bnclf.models._base", "bnclf.models._registry"),
    "bnclf.models.naive": ("bnclf.models._naive",),
    "bnclf.models.tree": ("bnclf.models._tree",),
    "bnclf.models.kdb": ("bnclf.models._kdb",),
    "bnclf.models.ensembles": ("bnclf.models._ensembles",),
    "bnclf.models.multinets": ("bnclf.models._multinets",),
    "bnclf.models.instance_specific": ("bnclf.models._instance_specific",),
    "bnclf.models.search_based": ("bnclf.models._search_based",),
    "bnclf.models.multilabel": ("bnclf.models._multilabel", "bnclf.inference._labels"),
    "bnclf.models.multilabel_baselines": ("bnclf.models._multilabel_baselines",),
    "bnclf.models.registry": ("bnclf.models._registry",),
    "bnclf.evaluation.metrics": ("bnclf.evaluation._metrics",),
    "bnclf.evaluation.protocols": ("bnclf.evaluation._protocols",),
    "bnclf.evaluation.compare": ("bnclf.evaluation._compare", "bnclf.models._registry"),
    "bnclf.evaluation.stats_tests": ("bnclf.evaluation._stats_tests",),
    "bnclf.evaluation.plots": ("bnclf.evaluation._plots",),
    "bnclf.evaluation.multilabel": ("bnclf.evaluation._multilabel",),
    "bnclf.evaluation.cli": ("bnclf.cli._compare",),
}

#: packages that kept their name: the internals they held -> their modules today
MOVED_FROM_PACKAGES: dict[str, tuple[str, ...]] = {
    "bnclf.inference": ("bnclf.inference._kernels", "bnclf.inference._elimination", "bnclf._config"),
    "bnclf.io": ("bnclf.io._networks", "bnclf.io._models", "bnclf.io._pgmpy"),
    "bnclf.plot": (
        "bnclf.plot._layout",
        "bnclf.plot._structures",
        "bnclf.plot._explanations",
        "bnclf.plot._traces",
        "bnclf.plot._multilabel",
    ),
    "bnclf.cli": (
        "bnclf.cli._common",
        "bnclf.cli._main",
        "bnclf.cli._fit",
        "bnclf.cli._predict",
        "bnclf.cli._evaluate",
        "bnclf.cli._export",
        "bnclf.cli._plot",
        "bnclf.cli._show",
        "bnclf.cli._explain",
        "bnclf.cli._demo",
        "bnclf.evaluation._reports",
        "bnclf.io._text",
    ),
}


def _find(name: str, modules: Sequence[str], where: str) -> tuple[Any, str]:
    for module_name in modules:
        module = importlib.import_module(module_name)
        if name in vars(module):
            return vars(module)[name], module_name
    raise AttributeError(f"module {where!r} has no attribute {name!r}")


#: the public packages, searched in this order for a name's home today
PUBLIC = (
    "bnclf",
    "bnclf.models",
    "bnclf.encoding",
    "bnclf.counts",
    "bnclf.learn",
    "bnclf.inference",
    "bnclf.io",
    "bnclf.plot",
    "bnclf.evaluation",
    "bnclf.datasets",
)


def _public_home(name: str, module_name: str) -> str:
    """Where a user should import ``name`` from today: ``bnclf`` or the first public package
    that exports the same object, else its module."""
    value = vars(importlib.import_module(module_name)).get(name)
    for package in PUBLIC:
        module = importlib.import_module(package)
        if name in getattr(module, "__all__", ()) and getattr(module, name, None) is value:
            return package
    return module_name


def _warn(old: str, name: str, home: str) -> None:
    warnings.warn(
        f"{old}.{name} moved in bnclf 0.2; import it from {_public_home(name, home)} "
        "(the old name is removed in bnclf 0.3; see CHANGELOG.md).",
        DeprecationWarning,
        stacklevel=3,
    )


def moved_attributes(package: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a name it no longer holds is looked up
    where it lives today, with a DeprecationWarning."""
    modules = MOVED_FROM_PACKAGES[package]

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value, home = _find(name, modules, package)
        _warn(package, name, home)
        return value

    return __getattr__


class _OldModule(types.ModuleType):
    """A 0.1 module: its names are read from where they live today, with a warning."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value, home = _find(name, MOVED[self.__name__], self.__name__)
        _warn(self.__name__, name, home)
        return value


class _OldModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes the 0.1 modules of :data:`MOVED` on import."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = _OldModule(spec.name)
        module.__doc__ = f"Deprecated: the names of {spec.name} now live in {', '.join(MOVED[spec.name])}."
        return module

    def exec_module(self, module) -> None:
        warnings.warn(
            f"{module.__name__} is a module of bnclf 0.1; its names moved in bnclf 0.2 (reading "
            "one says where it lives now). It is removed in bnclf 0.3 (see CHANGELOG.md).",
            DeprecationWarning,
            stacklevel=2,
        )


def install() -> None:
    """Put the finder of the 0.1 modules on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _OldModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(_OldModuleFinder())
