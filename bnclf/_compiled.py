"""Compiled loops for the hot paths, when numba is installed (``pip install 'bnclf[fast]'``, or
``'.[fast]'`` from a checkout).

:func:`compiled_loops` gives the module of loops (:mod:`bnclf._compiled_loops`) or
``None``; each caller keeps its numpy path for ``None``, and the two paths give the same
answers to rounding (the tests run both; see :mod:`bnclf._compiled_loops`). numba is
imported on the first call that could use it, never by ``import bnclf``: importing it takes
about 0.5 s, and compiling a loop the first time about 1.5 s, which numba keeps on disk for
the next process (which loads it in about 0.5 s in all).

Which path runs is the ``compiled`` setting (:func:`bnclf.set_config`): ``None`` (the
default) compiles when numba is installed, unless the environment variable
``BNCLF_COMPILED`` is ``0``; ``False`` keeps the numpy paths; ``True`` requires numba.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import warnings
from types import ModuleType

from bnclf._config import _setting

_OFF = ("0", "false", "no", "off")


def compiled_loops() -> ModuleType | None:
    """The compiled loops, or ``None`` where the numpy paths run (see the module docstring).

    Raises
    ------
    ImportError
        When the ``compiled`` setting is ``True`` and numba cannot be imported.
    """
    setting = _setting("compiled")
    if setting is False:
        return None
    if setting is None and os.environ.get("BNCLF_COMPILED", "").strip().lower() in _OFF:
        return None
    loops = _load()
    if loops is None and setting is True:
        raise ImportError(
            "compiled=True needs numba, which cannot be imported here: install it with "
            "pip install 'bnclf[fast]' (or '.[fast]' from a checkout), or set compiled=None to use it "
            "only when present."
        )
    return loops


@functools.lru_cache(maxsize=1)
def _load() -> ModuleType | None:
    if importlib.util.find_spec("numba") is None:
        return None
    try:
        from bnclf import _compiled_loops
    except Exception as error:  # e.g. a numba too old for the installed numpy
        warnings.warn(
            f"numba is installed but could not be used ({type(error).__name__}: {error}); the "
            "numpy paths run instead. Install a numba that supports this numpy, or set "
            "BNCLF_COMPILED=0 to silence this.",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    return _compiled_loops
