"""Coding raw values as the index of their observed state, column by column.

:class:`StateCoder` holds the lookup structures of a fitted encoder's states (built on first
use) and codes the columns of a call with them; what a value without a state becomes
(a missing state, an error, a match by text) is the encoder's decision, not the coder's.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np
import pandas as pd

from bnclf.encoding._columns import (
    _DENSE_RANGE,
    _category_codes,
    _encode_arrow_text,
    _has_pyarrow,
    _hashable,
    _integer_ranges,
    _objects,
    _shifted_chunks,
    dtype_labels,
)
from bnclf.encoding._frames import UNKNOWN
from bnclf.encoding._unknown_values import Column

_DICT_LOOKUPS = 1 << 10
"""Columns with at most this many distinct values look them up in a ``dict``; more, in a
``pd.Index`` (one vectorized call)."""


_SMALL_ROWS = 64
"""Inputs of at most this many rows are coded by a ``dict`` lookup per value: below a few
dozen rows that costs less than building a hash table for the call."""


class StateCoder:
    """The codes of raw values among the observed states of each column.

    Parameters
    ----------
    observed : list of list
        The labels that raw values map to, per column, in code order (a fitted encoder's
        ``observed_``: its states without ``"<missing>"``). Read, never changed.
    category_maps : dict, optional
        Category maps known already: ``{position: (dtype, None, labels, None)}`` for the
        training frame's categorical columns, whose categories are the states.

    Notes
    -----
    Values are matched by Python equality, as a ``dict`` would match them. The lookup
    structures are built on first use and kept: a ``dict`` per column, an object
    ``pd.Index`` per column, a table indexed by value for integer states in a short range,
    and, per column, the map of the last categorical dtype seen to the states.
    """

    def __init__(self, observed: list[list], category_maps: dict | None = None) -> None:
        self.observed = observed
        self.category_maps = {} if category_maps is None else category_maps
        self.state_indexes: dict[int, pd.Index] = {}
        self.integer_tables: dict[int, tuple[int, np.ndarray] | None] = {}
        self.lookup_dicts: list[dict] | None = None

    def code(self, columns: list | None, block: np.ndarray | None, n: int) -> tuple[np.ndarray, list[int]]:
        """``(by_column, unknown)``: the codes of ``n`` rows, ``(columns, n)`` (row ``j``: column
        ``j``'s codes; ``UNKNOWN`` where a value is missing or has no state), and the positions
        of the columns that hold an ``UNKNOWN`` code.

        The rows are given as the values of each column and, when they share a numpy dtype,
        as one ``(n, columns)`` block (``columns`` None: the block's columns). At most
        ``_SMALL_ROWS`` rows are coded value by value, more by vectorized lookups: both give
        the same codes. A value that cannot be hashed raises a TypeError.
        """
        by_column = np.empty((len(self.observed), n), dtype=np.int64)
        if n == 0:
            return by_column, []
        if n <= _SMALL_ROWS:
            return by_column, self._code_small(columns, block, by_column)
        columns = list(block.T) if columns is None else columns
        arrow = _encode_arrow_text(columns) if _has_pyarrow() else {}
        coded = self._code_integers(columns, by_column, block)
        for j, values in enumerate(columns):
            if j not in coded:
                by_column[j] = self.column_codes(j, values, arrow.get(j))
        return by_column, np.flatnonzero(by_column.min(axis=1) <= UNKNOWN).tolist()

    def column_codes(self, j: int, values: Column, factorized: tuple | None = None) -> np.ndarray:
        """The observed-state codes of one column's values, ``UNKNOWN`` where a value is
        missing or has no state (a category column's own codes, int8 or int16, when its
        categories are the fitted states: the caller writes them into its int64 array).
        ``factorized``: the column's ``(codes, distinct values)`` when the text columns were
        factorized together."""
        if isinstance(values.dtype, pd.CategoricalDtype):  # through its categories' map
            own = _category_codes(values)
            mapping = self.category_map(j, values.dtype)
            return own if mapping is None else mapping[own]  # -1 -> UNKNOWN
        local, uniques = factorized if factorized is not None else pd.factorize(values)
        uniques = uniques.tolist() if not isinstance(uniques, list) else uniques
        if len(uniques) <= _DICT_LOOKUPS:  # a few distinct values: a dict lookup each
            get = self.lookups()[j].get
            lookup = np.array([get(v, UNKNOWN) if _hashable(v) else UNKNOWN for v in uniques] + [UNKNOWN])
        else:
            lookup = np.append(self.state_index(j).get_indexer(np.asarray(uniques, dtype=object)), UNKNOWN)
        return lookup.take(local)  # local -1 (missing) -> UNKNOWN

    def _code_integers(self, columns: list, by_column: np.ndarray, block: np.ndarray | None = None) -> set[int]:
        """Write the codes of the numpy integer columns whose states are integers in a
        short range and whose values all lie in it into ``by_column``, a chunk of columns
        at a time by one gather from a table of all their codes indexed by value; return
        their positions."""
        positions, lows, highs = _integer_ranges(columns, block)
        chosen, chosen_lows, tables = [], [], []
        for j, low, high in zip(positions, lows, highs):
            table = self.integer_table(j)
            # every value inside the table, compared as Python integers: exact at the ends of every type
            if table is not None and table[0] <= low and high < table[0] + len(table[1]):
                chosen.append(j)
                chosen_lows.append(table[0])
                tables.append(table[1])
        if not chosen:
            return set()
        sizes = np.array([len(t) for t in tables], dtype=np.int64)
        table = np.concatenate(tables)
        for start, rows in _shifted_chunks(columns, chosen, chosen_lows, np.cumsum(sizes) - sizes):
            targets = chosen[start : start + len(rows)]
            if targets == list(range(targets[0], targets[0] + len(targets))):
                table.take(rows, out=by_column[targets[0] : targets[0] + len(targets)])
            else:
                by_column[targets] = table.take(rows)
        return set(chosen)

    def _code_small(self, columns: list | None, block: np.ndarray | None, by_column: np.ndarray) -> list[int]:
        """Write the codes of a few rows into ``by_column`` by a ``dict`` lookup per value
        (the rows of a one-block ``block`` as Python scalars, a row at a time; a category
        column by its codes, through the map of its categories) and return the positions of
        the columns with an ``UNKNOWN`` code. A value that cannot be hashed raises a
        TypeError."""
        lookups = self.lookups()
        if block is not None:
            rows = [list(map(dict.get, lookups, row, repeat(UNKNOWN))) for row in block.tolist()]
            by_column.T[:] = rows
            if not any(UNKNOWN in row for row in rows):
                return []
        else:
            flat, maps = [], self.category_maps  # column after column
            for j, values in enumerate(columns):
                dtype = values.dtype
                if isinstance(dtype, pd.CategoricalDtype):
                    own = _category_codes(values).tolist()
                    seen = maps.get(j)  # the map of the last dtype seen (category_map), by identity
                    mapping = seen[3] if seen is not None and seen[0] is dtype else self.category_map(j, dtype, True)
                    flat += own if mapping is None else [mapping[c] for c in own]  # -1 -> UNKNOWN
                else:
                    flat += map(lookups[j].get, _objects(values).tolist(), repeat(UNKNOWN))
            by_column.reshape(-1)[:] = flat  # a view: by_column is C-ordered
            if UNKNOWN not in flat:
                return []
        return np.flatnonzero((by_column == UNKNOWN).any(axis=1)).tolist()

    def state_index(self, j: int) -> pd.Index:
        """The observed states of column ``j`` as an object ``pd.Index`` (built on first use)."""
        index = self.state_indexes.get(j)
        if index is None:
            index = self.state_indexes[j] = pd.Index(self.observed[j], dtype=object)
        return index

    def integer_table(self, j: int) -> tuple[int, np.ndarray] | None:
        """``(low, codes)`` with ``codes[v - low]`` the state of integer value ``v``
        (``UNKNOWN`` if none), when every observed label of column ``j`` is an integer
        within a range of at most ``_DENSE_RANGE``; else ``None``."""
        tables = self.integer_tables
        if j not in tables:
            labels = self.observed[j]
            table = None
            if all(isinstance(v, int) and not isinstance(v, bool) for v in labels):
                low, high = min(labels), max(labels)
                if high - low < _DENSE_RANGE and -(2**63) <= low and high < 2**63:
                    codes = np.full(high - low + 1, UNKNOWN, dtype=np.int64)
                    codes[np.array(labels, dtype=np.int64) - low] = np.arange(len(labels))
                    table = (low, codes)
            tables[j] = table
        return tables[j]

    def category_map(self, j: int, dtype: pd.CategoricalDtype, listed: bool = False) -> np.ndarray | list | None:
        """Codes of ``dtype``'s categories in the fitted states, ``UNKNOWN`` appended (for
        the code -1 of a missing value), as an array (a list of Python integers when
        ``listed``); ``None`` when they are the fitted states.

        Kept for the last dtype of each column: the same dtype maps by identity, another
        whose categories are the same labels in the same order (another frame's equal dtype)
        reuses its map. Categories are compared as the lists of Python scalars the states
        are (Python equality, value by value: 2**53 + 1 is not 2.0**53), which costs less
        than ``Index.equals``."""
        maps = self.category_maps
        seen = maps.get(j)
        if seen is not None and seen[0] is dtype:
            return seen[3] if listed else seen[1]
        labels = dtype_labels(dtype)
        if seen is not None and labels == seen[2]:
            mapping, mapped = seen[1], seen[3]
        elif labels == self.observed[j]:
            mapping = mapped = None
        else:
            known = self.state_index(j)
            mapping = np.append(known.get_indexer(np.asarray(labels, dtype=object)), UNKNOWN).astype(np.int64)
            mapped = mapping.tolist()
        maps[j] = (dtype, mapping, labels, mapped)
        return mapped if listed else mapping

    def lookups(self) -> list[dict]:
        """``value -> code`` of every column's observed labels (built on first use)."""
        if self.lookup_dicts is None:
            self.lookup_dicts = [{v: k for k, v in enumerate(labels)} for labels in self.observed]
        return self.lookup_dicts
