"""Count tables without the rows: the additive summary of chunks, partitions and models."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from bnclf._config import memory_budget
from bnclf.counts._cache import CountCache
from bnclf.counts._tables import CountTables


class MissingCountsError(LookupError):
    """A :class:`CountSummary` was asked for count tables that no pass counted.

    Attributes
    ----------
    families : list of tuple
        The missing families, each as its sorted tuple of variable indices.
    """

    def __init__(self, families: Iterable[Sequence[int]], names: Sequence[str] | None = None) -> None:
        self.families = sorted({tuple(sorted(int(v) for v in f)) for f in families})

        def label(family):
            return "(" + ", ".join(str(names[v]) if names is not None else str(v) for v in family) + ")"

        shown = ", ".join(label(f) for f in self.families[:5])
        more = f" and {len(self.families) - 5} more" if len(self.families) > 5 else ""
        super().__init__(
            f"the count tables of {shown}{more} were not counted: a summary of counts "
            "holds only what its passes over the data counted. Count them in one more pass "
            "(CountCache(chunk).summary(families) on each chunk, summed) and add them with "
            "add_tables."
        )


def _held_table(family: Sequence[int], table: ArrayLike, cardinalities: np.ndarray) -> tuple[tuple, np.ndarray]:
    """``(key, table)``: ``table`` of ``family`` as held, float64 with axes in the sorted order
    of ``key``; ValueError when its shape is not the family's cardinalities."""
    family = tuple(int(v) for v in family)
    key = tuple(sorted(family))
    table = np.asarray(table, dtype=np.float64)
    if table.shape != tuple(int(cardinalities[v]) for v in family):
        raise ValueError(
            f"the table of {family} has shape {table.shape}, not the "
            f"cardinalities {[int(cardinalities[v]) for v in family]}."
        )
    return key, table if key == family else np.ascontiguousarray(table.transpose([family.index(v) for v in key]))


def _smallest_superset(
    key: tuple, held: Iterable[tuple], cardinalities: np.ndarray, has_unknown: np.ndarray, blocks: bool
) -> tuple | None:
    """The family with the fewest cells whose table sums to ``key``'s: a held family (or, with
    pair ``blocks``, a family ``(i, j, class)``) that holds ``key``'s variables and more, the
    others never unknown; None when there is none."""
    c = len(cardinalities) - 1
    wanted = set(key)
    supersets = [k for k in held if wanted < set(k)]
    if blocks and len(key) < 3:
        rest = [v for v in key if v != c]
        if len(rest) == 2:
            supersets.append((*rest, c))
        elif len(rest) == 1:
            supersets += [tuple(sorted((rest[0], j))) + (c,) for j in range(c) if j != rest[0]][:1]
    supersets = [k for k in supersets if not has_unknown[list(set(k) - wanted)].any()]
    if not supersets:
        return None
    return min(supersets, key=lambda k: float(np.prod([float(cardinalities[v]) for v in k])))


class CountSummary(CountCache):
    """Count tables of some rows, without the rows: the additive state of a fit.

    A summary holds the tables a learner needs (the class, the ``(x_j, class)`` tables,
    the all-pairs ``(x_i, x_j, class)`` array, a network's CPT families): computed from
    the rows of a frame (:meth:`CountCache.summary`), from each chunk of rows or each
    partition of a Dask DataFrame, and added with ``+`` (counts are additive over rows,
    and sums of integer counts are exact, so a sum over parts equals the tables of the
    concatenated rows bit for bit). Learners read it as any cache. A table that was not
    counted, and cannot be summed out of one that was, is counted by :meth:`including`
    in one more pass over the rows when the summary has a ``recount`` (the source of
    its rows), and raises :class:`MissingCountsError` naming it otherwise.

    Single-network models keep the summary of their CPT families (``counts_``), which
    ``partial_fit`` and ``refit_parameters(add=True)`` add to.

    Parameters
    ----------
    cardinalities : array-like of int
        Cardinalities of the features, then of the class (``n_features + 1`` values).
    n_samples : int
        Number of rows counted.
    tables : dict, optional
        ``family -> count table`` with axes in family order; kept under the sorted family.
    pair_blocks : ndarray, optional
        The all-pairs array of :meth:`CountCache.pair_blocks`, shape ``(R, R, n_classes)``.
    has_unknown : array-like of bool, optional
        Per variable, whether some counted row had an unknown (``-1``) code there, left
        out of the tables that contain the variable. A table is summed out of a larger
        one only over variables without unknown codes. Default: none.

    Attributes
    ----------
    recount : callable or None
        ``recount(families) -> CountSummary``: the same rows counted again for more
        families (set by the driver of a chunked fit; None for a summary on its own).

    Notes
    -----
    Which tables can be derived: a held table; the ``(i, j, class)`` tables from the pair
    blocks; a table whose variables are a subset of a held (or block) table's, summed
    over variables that are never unknown (``(i,)`` from ``(i, class)``); the empty
    family (the number of rows).
    """

    def __init__(
        self,
        cardinalities: ArrayLike,
        n_samples: int,
        tables: dict | None = None,
        pair_blocks: np.ndarray | None = None,
        has_unknown: ArrayLike | None = None,
    ) -> None:
        cards = np.asarray(cardinalities, dtype=np.int64).copy()
        unknown = (
            np.zeros(len(cards), dtype=bool) if has_unknown is None else np.asarray(has_unknown, dtype=bool).copy()
        )
        CountTables.__init__(self, cards, n_samples, unknown)  # CountCache.__init__ reads rows: none here
        self._columns = self._matrix = None
        self._weights = None  # no rows: weighted or not, the tables are the sums they hold
        self._one_pair_of_groups = False  # without rows the pair terms are never cut into groups
        for family, table in (tables or {}).items():
            key, table = _held_table(family, table, self.cardinalities)
            self._tables[key] = table
        self._pair_blocks = None
        self.recount = None
        if pair_blocks is not None:
            width = int(self.cardinalities[: self.n_features].sum())
            if np.shape(pair_blocks) != (width, width, self.n_classes):
                raise ValueError(
                    f"pair_blocks has shape {np.shape(pair_blocks)}, not {(width, width, self.n_classes)}."
                )
            self._pair_blocks = (np.asarray(pair_blocks, dtype=np.float64), self._offsets())

    @classmethod
    def from_cache(
        cls, cache: CountCache, families: Iterable[Sequence[int]] = (), *, pairs: bool = False
    ) -> CountSummary:
        """The tables of ``families`` (and, with ``pairs``, of every ``(i, j, class)``
        pair: the pair blocks, or the pair tables when the blocks are too large) counted
        on ``cache``, without its rows."""
        keys = sorted({tuple(sorted(int(v) for v in f)) for f in families} - {()})
        cache.counts_many(keys)
        tables = {key: cache.counts(key) for key in keys}
        blocks = None
        if pairs and cache.pair_blocks_fit():
            blocks = cache.pair_blocks()[0]
        elif pairs:
            d, c = cache.n_features, cache.class_index
            cache.count_all_pairs()
            tables.update({(i, j, c): cache.counts((i, j, c)) for i in range(d) for j in range(i + 1, d)})
        return cls(cache.cardinalities, cache.n_samples, tables, blocks, cache.has_unknown)

    def including(self, families: Iterable[Sequence[int]]) -> CountSummary:
        """This summary with the tables of ``families`` held: counted in one more pass over
        the rows (:attr:`recount`) when some cannot be derived from the held ones."""
        keys = {tuple(sorted(int(v) for v in f)) for f in families}
        missing = sorted(
            k for k in keys if k and len(set(k)) == len(k) and k not in self._tables and self._source(k) is None
        )
        if missing:
            if self.recount is None:
                raise MissingCountsError(missing, self.names)
            self.add_tables(self.recount(missing))
        return self

    def __getstate__(self) -> dict:
        """The counts: cardinalities, rows, tables, pair blocks, unknown flags and names
        (the measures memoized from them and the source of the rows are left out)."""
        return {
            "cardinalities": self.cardinalities,
            "n_samples": self.n_samples,
            "tables": dict(self._tables),
            "pair_blocks": None if self._pair_blocks is None else self._pair_blocks[0],
            "has_unknown": self._has_unknown,
            "names": list(self.names),
        }

    def __setstate__(self, state: dict) -> None:
        self.__init__(
            state["cardinalities"], state["n_samples"], state["tables"], state["pair_blocks"], state["has_unknown"]
        )
        self.names = list(state["names"])
        if self.n_samples < 0 or any((t < 0).any() or not np.isfinite(t).all() for t in self._tables.values()):
            raise ValueError("count tables must hold finite counts >= 0.")

    # -- combining -----------------------------------------------------------------------
    def _check_same_variables(self, other: CountSummary) -> None:
        if not np.array_equal(self.cardinalities, other.cardinalities):
            raise ValueError(
                "Cannot add count tables with different cardinalities "
                f"({self.cardinalities.tolist()} and {other.cardinalities.tolist()}); encode "
                "every chunk with the same categories."
            )

    def __add__(self, other: CountSummary) -> CountSummary:
        """The tables of the rows of both caches (disjoint rows): every table summed."""
        if not isinstance(other, CountSummary):
            return NotImplemented
        self._check_same_variables(other)
        if set(self._tables) != set(other.held) or (self._pair_blocks is None) != (other._pair_blocks is None):
            raise ValueError(
                "Cannot add count caches that hold different tables; count the same families on every chunk."
            )
        tables = {key: table + other.held[key] for key, table in self._tables.items()}
        blocks = None if self._pair_blocks is None else self._pair_blocks[0] + other._pair_blocks[0]
        return CountSummary(
            self.cardinalities, self.n_samples + other.n_samples, tables, blocks, self._has_unknown | other.has_unknown
        )

    def add_tables(self, other: CountSummary) -> None:
        """Take the tables of ``other``, counted on the same rows in another pass."""
        self._check_same_variables(other)
        if other.n_samples != self.n_samples:
            raise ValueError(
                f"the added tables count {other.n_samples} rows, these {self.n_samples}; "
                "another pass must count the same rows."
            )
        for key, table in other.held.items():
            self._tables.setdefault(key, table)
        if self._pair_blocks is None and other._pair_blocks is not None:
            self._pair_blocks = other._pair_blocks
        self._has_unknown |= other.has_unknown

    def take(self, keep: Sequence[ArrayLike], has_unknown: ArrayLike | None = None) -> CountSummary:
        """The tables restricted to (and reordered by) the states ``keep[v]`` of every
        variable ``v``: drops states that no row has (a reserved ``<missing>`` state, a
        declared class that did not occur) or that are left out (``missing="ignore"``)."""
        keep = [np.asarray(k, dtype=np.int64) for k in keep]
        cards = [len(k) for k in keep]

        def cut(table, family):
            for axis, v in enumerate(family):
                if len(keep[v]) != table.shape[axis] or np.any(keep[v] != np.arange(len(keep[v]))):
                    table = np.take(table, keep[v], axis=axis)
            return table

        tables = {key: cut(table, key) for key, table in self._tables.items()}
        blocks = None
        if self._pair_blocks is not None:
            offsets = self._offsets()
            width = np.concatenate([offsets[i] + keep[i] for i in range(self.n_features)])
            blocks = self._pair_blocks[0][np.ix_(width, width, keep[self.class_index])]
        return CountSummary(
            cards, self.n_samples, tables, blocks, self._has_unknown if has_unknown is None else has_unknown
        )

    def with_new_states(self, variables: Iterable[int]) -> CountSummary:
        """The tables with one more state, counted zero times, at the end of each of
        ``variables`` (a column that gains its ``<missing>`` state)."""
        grown = set(int(v) for v in variables)
        cards = self.cardinalities.copy()
        cards[list(grown)] += 1
        tables = {}
        for family, table in self._tables.items():
            pad = [(0, 1 if v in grown else 0) for v in family]
            tables[family] = np.pad(table, pad) if any(p[1] for p in pad) else table
        summary = CountSummary(cards, self.n_samples, tables, None, self._has_unknown)
        summary.names = list(self.names)
        return summary

    @property
    def families(self) -> list[tuple[int, ...]]:
        """The (sorted) families whose tables are held."""
        return sorted(self._tables)

    @property
    def total(self) -> float:
        """The number of rows counted, or the sum of their weights (the class table's sum)."""
        return float(self.counts((self.class_index,)).sum())

    # -- the CountCache interface ----------------------------------------------------------
    def _offsets(self) -> np.ndarray:
        cards = self.cardinalities[: self.n_features]
        return np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)

    def _source(self, key: tuple):
        """How to get the table of ``key``: a function, or None when it was not counted."""
        c = self.class_index
        blocks = self._pair_blocks
        if not key:
            return lambda: np.array(self.total)
        if blocks is not None and len(key) == 3 and key[2] == c:
            i, j = key[0], key[1]
            offsets, cards = blocks[1], self.cardinalities
            return lambda: np.ascontiguousarray(
                blocks[0][offsets[i] : offsets[i] + cards[i], offsets[j] : offsets[j] + cards[j]]
            )
        best = _smallest_superset(key, self._tables, self.cardinalities, self._has_unknown, blocks is not None)
        if best is None:
            return None
        wanted = set(key)

        def summed():
            table = self._tables[best] if best in self._tables else self._source(best)()
            axes = tuple(axis for axis, v in enumerate(best) if v not in wanted)
            return table.sum(axis=axes)  # integer counts: exact in any order

        return summed

    def _count(self, family: tuple) -> np.ndarray:
        source = self._source(family)
        if source is None:
            raise MissingCountsError([family], self.names)
        return source()

    def counts_many(self, families: Iterable[Sequence[int]]) -> None:
        """Derive and memoize the tables of ``families``; raise :class:`MissingCountsError`
        naming every family of the call that was not counted."""
        keys = {tuple(sorted(int(v) for v in f)) for f in families}
        keys = [k for k in keys if k and k not in self._tables and len(set(k)) == len(k)]
        missing = [k for k in keys if self._source(k) is None]
        if missing:
            raise MissingCountsError(missing, self.names)
        for key in keys:
            self.counts(key)

    def _pair_tables_held(self) -> bool:
        d, c = self.n_features, self.class_index
        return all((i, j, c) in self._tables for i in range(d) for j in range(i + 1, d))

    def pair_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """The summed pair blocks, or the array assembled from the ``(i, j, class)`` tables."""
        if self._pair_blocks is not None:
            return self._pair_blocks
        d, c = self.n_features, self.class_index
        if not self._pair_tables_held():
            raise MissingCountsError(
                [(i, j, c) for i in range(d) for j in range(i + 1, d) if (i, j, c) not in self._tables], self.names
            )
        cards = self.cardinalities[:d]
        width = int(cards.sum())
        self.check_all_pairs_size()
        offsets = self._offsets()
        blocks = np.zeros((width, width, self.n_classes))
        for i in range(d):
            rows = slice(offsets[i], offsets[i] + cards[i])
            blocks[rows, rows] = np.einsum("ac,ab->abc", self.counts((i, c)), np.eye(int(cards[i])))
            for j in range(i + 1, d):
                cols = slice(offsets[j], offsets[j] + cards[j])
                blocks[rows, cols] = self._tables[(i, j, c)]
                blocks[cols, rows] = self._tables[(i, j, c)].transpose(1, 0, 2)
        self._pair_blocks = (blocks, offsets)
        return self._pair_blocks

    def _pair_terms_direct(self) -> bool:
        if self._pair_blocks is not None:
            return True
        width = float(self.cardinalities[: self.n_features].sum())
        return self._pair_tables_held() and 8.0 * width * width * self.n_classes <= memory_budget()
