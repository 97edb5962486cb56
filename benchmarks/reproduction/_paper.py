"""A paper as data: its protocol, its data sets and its published values.

:class:`Paper` is what a module of :mod:`reproduction.papers` builds and what
:func:`reproduction._engine.run_paper` runs; :class:`Dataset` is one loaded data set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd


@dataclass
class Dataset:
    """One data set as a paper's protocol runs it.

    Attributes
    ----------
    name : str
        Our name of the data set (the paper's, for the rows it has).
    X : pandas.DataFrame
        Features.
    y : pandas.Series or pandas.DataFrame
        Labels (a frame for multilabel data).
    source : str
        Where the data came from (``keel:NAME``, ``embedded NAME``, a file).
    """

    name: str
    X: Any
    y: Any
    source: str = ""


@dataclass
class Paper:
    """A paper's protocol: what to run, fold by fold, and the values to compare with.

    Attributes
    ----------
    key : str
        Short name (``sun2017``); the output folder.
    seed : str
        The seed number of the paper in docs/reproduction.md (``000``).
    title : str
        Authors, year and table.
    protocol : dict
        Everything of the protocol that determines one fold's result (JSON-able): it is
        part of every cache key. Settings that only choose which folds run (the data
        sets, the number of repeats) do not belong here, so that a quick run and a full
        run share their common folds.
    protocol_text : str
        The protocol in words, for ``table.md``.
    version : str
        Version of the per-paper code; change it when a fold would come out differently.
    load : callable
        ``load(data_dir) -> (datasets, skipped)``: the data sets to run, and one line per
        data set left out (with the reason).
    splits : callable
        ``splits(dataset) -> list of Split``: the folds of a data set.
    task : callable
        ``task(name, X, y, split, **task_kwargs) -> dict``: one fold, a JSON-able result.
        Defined at module level, so that ``--jobs`` can send it to a worker.
    aggregate : callable
        ``aggregate(dataset, [(split, result), ...]) -> DataFrame`` with columns
        ``classifier, measure, ours``: our value per classifier and measure.
    paper_values : pandas.DataFrame
        The published values: columns ``dataset`` (the paper's name), ``run`` (the data
        set whose results stand for it), ``classifier``, ``measure``, ``paper``.
    classifiers, measures : list of str
        Their order in the tables.
    scale : float
        100 when the values are percentages, else 1 (for the standard errors).
    resolution : float
        Half a unit of the last digit the paper prints.
    notes : list of str
        Lines for ``table.md``.
    extra : callable, optional
        ``extra(table) -> list of str``: more Markdown (e.g. a W/D/L record).
    """

    key: str
    seed: str
    title: str
    protocol: dict
    protocol_text: str
    version: str
    load: Callable[[Path | None], tuple[list[Dataset], list[str]]]
    splits: Callable[[Dataset], list]
    task: Callable[..., dict]
    aggregate: Callable[[Dataset, list], pd.DataFrame]
    paper_values: pd.DataFrame
    classifiers: list[str]
    measures: list[str]
    task_kwargs: dict = field(default_factory=dict)
    scale: float = 1.0
    resolution: float = 0.00005
    notes: list[str] = field(default_factory=list)
    extra: Callable[[pd.DataFrame], list[str]] | None = None
    mode: str = "full"
