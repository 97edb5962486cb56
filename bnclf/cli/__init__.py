"""The ``bnclf`` command: a module per command, argument parsing and printing only."""

import bnclf._compat as _compat
from bnclf.cli._main import build_parser, main

__all__ = ["main", "build_parser"]

__getattr__ = _compat.moved_attributes(__name__)
