"""Reproduction of the seed papers: papers as data, one runner.

* :mod:`.papers`: one module per paper with its data sets, published values and protocol;
  ``make_paper(key)`` builds the :class:`Paper` the runner runs.
* :mod:`._engine`: :func:`run_paper` runs a paper fold by fold with a fold cache and writes
  ``table.csv``, ``table.md``, ``scatter.png`` and ``run.json`` (:mod:`._report`).
* :mod:`.analyses`: the further analyses of each paper (W/D/L, Friedman tests, spreads,
  diagnostics, checks).
* Shared protocol code: :mod:`._data` (loaders, ``ImputeThenMDL``), :mod:`._folds` (one
  single-label fold), :mod:`._multilabel` (one multilabel fold), :mod:`._shared` (tables,
  ``compare`` per data set with a cache, W/D/L).

The one entry is ``python benchmarks/reproduce.py`` (:func:`._cli.main`).
"""

from __future__ import annotations

from ._engine import RunResult, code_version, data_fingerprint, run_paper, spec_key
from ._paper import Dataset, Paper
from .papers import CATALOGUE, make_paper, resolve

__all__ = [
    "CATALOGUE",
    "Dataset",
    "Paper",
    "RunResult",
    "code_version",
    "data_fingerprint",
    "make_paper",
    "resolve",
    "run_paper",
    "spec_key",
]
