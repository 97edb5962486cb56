"""Modules that a command loads only when it reads them.

Every estimator derives from scikit-learn's ``sklearn.base``, which imports ``scipy.stats``
(through ``sklearn.utils.fixes``) for helpers that bnclf's fit and predict never call.
Loading it takes most of a command's start. Before a command runs, :func:`defer_unused`
puts a stand-in for each such module into ``sys.modules``: an import statement finds it at
once, and the first attribute read imports the real module and answers from it, so a
command that does use it (``compare``'s statistical tests) gets the whole module. Only the
command line does this; ``import bnclf`` leaves the import system as it is.

Notes
-----
:class:`importlib.util.LazyLoader` does not serve here: on Python 3.11 a second ``import``
of a lazy module reads its ``__spec__``, which loads it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

DEFERRED = ("scipy.stats",)
"""Modules that the dependencies import on every command and few commands use."""


class _Deferred(types.ModuleType):
    """A stand-in for a module not loaded yet: its first attribute read (beyond the module
    attributes the import system reads) loads the real module and takes its namespace."""

    def __getattr__(self, attribute: str) -> Any:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        real = importlib.import_module(name)  # sets the parent package's attribute to the module
        vars(self).update(vars(real))  # references held to the stand-in answer from now on
        return getattr(real, attribute)


def defer_unused(names: tuple[str, ...] = DEFERRED) -> None:
    """Install a stand-in for each module of ``names`` that is not imported yet.

    A name that cannot be found is skipped: the import that needs it fails as it would have.
    """
    for name in names:
        if name in sys.modules:
            continue
        try:
            spec = importlib.util.find_spec(name)  # imports the parent package (cheap)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        stand_in = _Deferred(name)
        stand_in.__spec__, stand_in.__file__ = spec, spec.origin
        stand_in.__path__ = list(spec.submodule_search_locations or [])
        sys.modules[name] = stand_in
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, stand_in)
