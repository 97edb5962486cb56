"""Names of a package imported on first use (PEP 562), so that importing the package, or
the ``bnclf`` command's parser, loads none of the heavy dependencies (pandas,
scikit-learn, SciPy, networkx, pgmpy, matplotlib) before a name that needs them is read."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_attributes(
    package: str,
    names: Mapping[str, str],
    fallback: Callable[[str], Any] | None = None,
    submodules: Sequence[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module ``__getattr__`` and ``__dir__`` for ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : mapping of str to str
        Each public name and the module that defines it; the module is imported when the
        name is first read, and the value is then kept in the package's namespace.
    fallback : callable, optional
        The ``__getattr__`` to ask for any other name (e.g. the names a package held in
        bnclf 0.1); without it such a name raises ``AttributeError``.
    submodules : sequence of str, optional
        Submodules imported when read as attributes (``bnclf.models`` after ``import bnclf``).

    Returns
    -------
    __getattr__, __dir__ : callable
    """

    def __getattr__(name: str) -> Any:
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        module = names.get(name)
        if module is None:
            # a submodule not imported yet (``from bnclf.io import _modelfile`` asks first) is
            # not looked up among the old names: the import system then imports it
            if fallback is not None and importlib.util.find_spec(f"{package}.{name}") is None:
                return fallback(name)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # read once: later lookups find it at once
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *names})

    return __getattr__, __dir__
