"""Count tables and the information measures computed from them.

Counts are the one substrate of bnclf: every structure score and every CPT is a
pure function of count arrays built here with ``np.bincount`` over combined
codes. Variables are numbered ``0 .. d-1`` for the features and ``d`` for the
class, so a *family* is a tuple of variable indices and its count table has one
axis per variable in that order.

Information measures are in bits (log base 2), as the source papers define them.
Summed measures (entropy, MI, CMI, per-label CMI) use empirical frequencies with
``0 log 0 = 0``; pointwise measures use m-estimated probabilities so that an
unseen combination gives a finite, strongly negative value.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Sequence
from typing import overload

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from .config import memory_budget
from .data import DiscreteData
from .inference import single_threaded_blas

_PAIR_BLOCK_CELLS = 2**24
"""Largest all-pairs count array (cells) that :meth:`CountCache.pair_blocks` builds."""


class TableTooLargeError(MemoryError):
    """A count table (or a temporary of the all-pairs counts) would exceed the memory
    budget (:func:`bnclf.config.memory_budget`); the message names the columns and the fix."""


def _size(n_bytes: float) -> str:
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{int(n_bytes)} bytes"


class CountCache:
    """Memoized count tables of one data set (or one CV fold).

    Parameters
    ----------
    data : DiscreteData
        Coded training data with class codes. Rows whose code is negative for a
        variable of a family (``missing="ignore"``) are left out of that
        family's table only.

    Notes
    -----
    Tables are additive over rows: the tables of two disjoint row sets sum to the
    table of their union. :meth:`summary` keeps the tables a learner needs without the
    rows (:class:`CountSummary`, added with ``+``), which is how chunked, distributed
    and incremental counting plug in without touching any learner.
    """

    def __init__(self, data: DiscreteData) -> None:
        if data.y is None:
            raise ValueError("CountCache needs class codes (data.y).")
        self.n_features = data.n_features
        self.class_index = data.n_features
        self.n_classes = int(data.n_classes)
        self.n_samples = data.n_samples
        self.cardinalities = np.append(data.cardinalities, self.n_classes).astype(np.int64)
        # one row of codes per variable (the class last), each contiguous: combined codes
        # are sums of code * stride, and many families gather their rows in one take
        self._matrix = np.empty((self.n_features + 1, self.n_samples), dtype=np.int64)
        self._matrix[: self.n_features] = data.codes.T
        self._matrix[self.n_features] = data.y
        self._columns = list(self._matrix)
        self._has_unknown = np.append((data.codes < 0).any(axis=0), False)
        self.names = [f"x{j}" for j in range(self.n_features)] + ["class"]
        self._tables: dict[tuple, np.ndarray] = {}

    # -- counting ------------------------------------------------------------
    def check_size(self, family: Iterable[int], cells: float | None = None, what: str = "the count table of") -> None:
        """Raise :class:`TableTooLargeError` if ``family``'s table (or ``cells`` float64
        cells) would not fit the memory budget, naming the columns and the fix."""
        family = [int(v) for v in family]
        if cells is None:
            cells = float(np.prod([float(self.cardinalities[v]) for v in family]))
        need, budget = 8.0 * cells, memory_budget()
        if need <= budget:
            return
        columns = ", ".join(f"{self.names[v]!r} ({int(self.cardinalities[v])} values)" for v in family)
        raise TableTooLargeError(
            f"{what} {columns} would have {cells:,.0f} cells ({_size(need)}), over the "
            f"memory budget of {_size(budget)}. Lower k or max_parents, merge rare "
            "categories, discretize many-valued columns, or drop identifier columns; "
            "bnclf.set_config(memory_budget=...) or $BNCLF_MEMORY_BUDGET raises the budget."
        )

    def counts(self, family: Iterable[int], *, memoize: bool = True) -> np.ndarray:
        """Count table of ``family`` (variable indices), one axis per variable in that order.

        ``memoize=False`` counts without keeping the table (for learners that
        look at very many large families once each).

        Tables are computed once per *set* of variables (the canonical key is
        the sorted family) and returned transposed to the order asked for, so
        ``(i, j, c)`` and ``(j, i, c)`` share one count.
        """
        family = tuple(int(v) for v in family)
        key = tuple(sorted(family))
        if len(set(key)) != len(key):
            raise ValueError(f"family {family} names a variable twice.")
        table = self._tables.get(key)
        if table is None:
            table = self._count(key)
            if memoize:
                self._tables[key] = table
        if key == family:
            return table
        return table.transpose([key.index(v) for v in family])

    def counts_many(self, families: Iterable[Sequence[int]]) -> None:
        """Count many families at once (one ``np.bincount`` per batch) and memoize them.

        Families of the same size are counted together: their combined codes
        form an ``(n_rows, n_families)`` array offset so that the tables do not
        overlap, and one bincount fills them all. Use it before asking
        :meth:`counts` for hundreds of tables (all pairs, all SPODE families).
        """
        todo = {}
        for family in families:
            key = tuple(sorted(int(v) for v in family))
            if key and key not in self._tables and len(set(key)) == len(key):
                todo.setdefault(len(key), {})[key] = None
        if getattr(self, "_pair_sources", None) is not None and 3 in todo:
            pairs = [key for key in todo[3] if key[2] == self.class_index]
            self._tables_from_products(pairs)
            for key in pairs:
                del todo[3][key]
        if self._columns is None:
            for group in todo.values():
                for key in group:
                    self.counts(key)
            return
        matrix = self._matrix  # (variables, rows): a family's codes are rows of it
        for size, group in todo.items():
            keys = np.array(list(group), dtype=np.int64).reshape(-1, size)
            unknown = self._has_unknown[keys].any(axis=1)
            for key in map(tuple, keys[unknown]):  # rows to skip differ per family
                self.counts(key)
            keys = keys[~unknown]
            if not len(keys):
                continue
            shapes = self.cardinalities[keys]
            for key in keys[shapes.prod(axis=1, dtype=np.float64) * 8.0 > memory_budget()]:
                self.check_size(key)  # raises, naming the first family over the budget
            strides = np.cumprod(shapes[:, ::-1], axis=1)[:, ::-1]
            strides = np.concatenate([strides[:, 1:], np.ones((len(keys), 1), np.int64)], axis=1)
            sizes = shapes.prod(axis=1)
            per_batch = max(1, (1 << 22) // max(1, self.n_samples * size))
            for start in range(0, len(keys), per_batch):
                part = slice(start, start + per_batch)
                bases = np.concatenate([[0], np.cumsum(sizes[part])[:-1]])
                flat = matrix[keys[part, 0]]
                flat *= strides[part, 0, None]
                flat += bases[:, None]
                for slot in range(1, size):
                    variables, factors = keys[part, slot], strides[part, slot]
                    if (variables == variables[0]).all() and (factors == factors[0]).all():
                        flat += matrix[variables[0]] * factors[0]  # one row for all (the class)
                    else:
                        codes = matrix[variables]
                        codes *= factors[:, None]
                        flat += codes
                counts = np.bincount(flat.ravel(), minlength=int(sizes[part].sum()))
                counts = counts.astype(np.float64)
                for key, base, shape, n_cells in zip(keys[part], bases, shapes[part], sizes[part]):
                    self._tables[tuple(int(v) for v in key)] = counts[base : base + n_cells].reshape(tuple(shape))

    def _tables_from_products(self, pairs: list[tuple[int, int, int]]) -> None:
        """Memoize the tables ``(i, j, class)`` of ``pairs`` (``i < j``) from the value-pair
        products that :meth:`pair_information_terms` formed: the counted cells as they are,
        a row or column of a last value as totals minus counted cells. Pairs of the same
        shape are read in one indexing."""
        products, by_feature, known_pairs, roff = self._pair_sources
        cards = self.cardinalities
        shapes: dict[tuple[int, int], list] = {}
        for key in pairs:
            shapes.setdefault((int(cards[key[0]]), int(cards[key[1]])), []).append(key)
        for (ri, rj), keys in shapes.items():
            first, second = (np.array([key[slot] for key in keys]) for slot in (0, 1))
            rows = roff[first][:, None] + np.arange(ri - 1)  # (pairs, counted values of i)
            cols = roff[second][:, None] + np.arange(rj - 1)
            table = np.empty((self.n_classes, len(keys), ri, rj))
            counted = products[:, rows[:, :, None], cols[:, None, :]]
            table[:, :, :-1, :-1] = counted
            table[:, :, :-1, -1] = by_feature[:, rows, second[:, None]] - counted.sum(axis=3)
            table[:, :, -1, :-1] = by_feature[:, cols, first[:, None]] - counted.sum(axis=2)
            table[:, :, -1, -1] = (
                known_pairs[:, first, second] - table[:, :, :-1, :].sum(axis=(2, 3)) - table[:, :, -1, :-1].sum(axis=2)
            )
            table = np.ascontiguousarray(np.moveaxis(table, 0, -1))
            for key, one in zip(keys, table):
                self._tables[key] = one

    def pair_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """Counts of every pair of feature values within each class, in one array.

        Returns ``(blocks, offsets)``: ``blocks`` has shape ``(R, R, n_classes)``
        with ``R = sum_i r_i``, and the table ``(i, j, class)`` is
        ``blocks[offsets[i]:offsets[i] + r_i, offsets[j]:offsets[j] + r_j]``.
        With ``H`` the one-hot codes of all features, the counts within class c
        are ``H_c^T H_c`` (``H_c``: the rows of class c), one BLAS product per
        class. A row whose value of ``i`` or ``j`` is unknown (``-1``) has no
        one-hot entry for it, so it is left out of that pair only, as
        :meth:`counts` does. A merged cache sums its parts' blocks.
        """
        if getattr(self, "_pair_blocks", None) is not None:
            return self._pair_blocks
        d, c = self.n_features, self.class_index
        cards = self.cardinalities[:d]
        width = float(cards.sum())
        self.check_size(
            [int(np.argmax(cards))],
            cells=width * width * self.n_classes,
            what=f"the all-pairs count array of the {d} features ({int(width)} values in all; the largest column:",
        )
        offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
        y = self._columns[c]
        width = int(cards.sum())
        blocks = np.empty((width, width, self.n_classes))
        # float32 sums of 0/1 products are exact integers below 2**24 rows
        dtype = np.float32 if self.n_samples < 2**24 else np.float64
        for label in range(self.n_classes):
            rows = np.flatnonzero(y == label)
            onehot = np.zeros((rows.size, width), dtype=dtype)
            for i in range(d):
                codes = self._columns[i][rows]
                known = codes >= 0
                onehot[np.flatnonzero(known), offsets[i] + codes[known]] = 1.0
            with single_threaded_blas():
                blocks[:, :, label] = onehot.T @ onehot
        self._pair_blocks = (blocks, offsets)
        return self._pair_blocks

    def pair_blocks_fit(self) -> bool:
        """Whether :meth:`pair_blocks` is small enough to build (at most 2**24 cells).

        The array has ``(sum_i r_i)^2 * n_classes`` cells: a feature with
        thousands of values makes it quadratically large, while the pair tables
        themselves grow only linearly; then pairs are counted family by family.
        """
        width = int(self.cardinalities[: self.n_features].sum())
        return width * width * self.n_classes <= _PAIR_BLOCK_CELLS

    def count_all_pairs(self) -> None:
        """Memoize the table ``(i, j, class)`` of every feature pair ``i < j`` from
        :meth:`pair_blocks` (one pass over the data for all pairs), or with
        :meth:`counts_many` when the blocks would be too large."""
        d, c = self.n_features, self.class_index
        todo = [(i, j) for i in range(d) for j in range(i + 1, d) if (i, j, c) not in self._tables]
        if not todo:
            return
        if not self.pair_blocks_fit():
            self.counts_many([(i, j, c) for i, j in todo])
            return
        blocks, offsets = self.pair_blocks()
        cards = self.cardinalities[:d]
        for i, j in todo:
            block = blocks[offsets[i] : offsets[i] + cards[i], offsets[j] : offsets[j] + cards[j]]
            self._tables[(i, j, c)] = np.ascontiguousarray(block)

    def _count(self, family: tuple) -> np.ndarray:
        if not family:
            return np.array(float(self.n_samples))
        self.check_size(family)
        shape = tuple(int(self.cardinalities[v]) for v in family)
        strides = np.cumprod((1,) + shape[:0:-1])[::-1]
        flat = self._columns[family[-1]].copy()
        for v, stride in zip(family[:-1], strides[:-1]):
            flat += self._columns[v] * int(stride)
        unknown = [self._columns[v] < 0 for v in family if self._has_unknown[v]]
        if unknown:
            flat = flat[~np.logical_or.reduce(unknown)]
        return np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape).astype(np.float64)

    def summary(self, families: Iterable[Sequence[int]] = (), *, pairs: bool = False) -> CountSummary:
        """The tables of ``families`` (and, with ``pairs``, of every ``(i, j, class)``
        pair) as a :class:`CountSummary`, without the rows: the additive state of these
        rows (a chunk's, a partition's, a model's)."""
        return CountSummary.from_cache(self, families, pairs=pairs)

    def including(self, families: Iterable[Sequence[int]]) -> CountCache:
        """This cache with the tables of ``families`` counted (rows answer every table)."""
        self.counts_many(families)
        return self

    # -- shortcuts used by the learners ----------------------------------------
    @property
    def class_counts(self) -> np.ndarray:
        return self.counts((self.class_index,))

    def mi_with_class(self) -> np.ndarray:
        """``I(Xi; C)`` for every feature, in bits (compare them through :func:`comparable`).

        ``(sum xlogx(N_ac) - sum_a xlogx(N_a) - sum_c xlogx(N_c) + xlogx(N)) / (N ln 2)`` over
        each feature's own table, for all features at once.
        """
        tables, offsets = self.feature_class_counts()
        class_sums = np.add.reduceat(tables, offsets, axis=0)  # (features, classes)
        totals = class_sums.sum(axis=1)
        value_terms = xlogx(tables).sum(axis=1) - xlogx(tables.sum(axis=1))
        terms = np.add.reduceat(value_terms, offsets) - xlogx(class_sums).sum(axis=1) + xlogx(totals)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.maximum(np.where(totals > 0, terms / (totals * math.log(2.0)), 0.0), 0.0)

    def feature_class_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``(i, class)`` tables of all features stacked: ``(tables, offsets)``, the table
        of feature i being ``tables[offsets[i]:offsets[i] + r_i]`` (memoized as each family).

        From the rows, one ``np.bincount`` over the codes of all features at once.
        """
        d, c = self.n_features, self.class_index
        cards = self.cardinalities[:d]
        offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
        if self._columns is not None and any((i, c) not in self._tables for i in range(d)):
            self.check_size(
                [int(np.argmax(cards))],
                cells=float(cards.sum()) * self.n_classes,
                what="the feature-class counts of all features; the largest column:",
            )
            flat = self._matrix[:d] + offsets[:, None]
            flat *= self.n_classes
            flat += self._matrix[c]
            if self._has_unknown[:d].any():
                flat = flat[self._matrix[:d] >= 0]
            tables = np.bincount(flat.ravel(), minlength=int(cards.sum()) * self.n_classes)
            tables = tables.reshape(-1, self.n_classes).astype(np.float64)
            for i in range(d):
                self._tables[(i, c)] = tables[offsets[i] : offsets[i] + cards[i]]
            return tables, offsets
        self.counts_many([(i, c) for i in range(d)])
        return np.concatenate([self.counts((i, c)) for i in range(d)]), offsets

    def cmi_matrix(self) -> np.ndarray:
        """Symmetric matrix of ``I(Xi; Xj | C)`` in bits (zero diagonal); learners compare
        its entries through :func:`comparable`.

        All pairs at once (:meth:`pair_information_terms`); a cache merged from parts
        whose pair blocks would be too large goes pair by pair.
        """
        d, c = self.n_features, self.class_index
        if self._pair_terms_direct():
            terms, class_totals = self.pair_information_terms()
            totals = class_totals.sum(axis=-1)
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.where(totals > 0, terms.sum(axis=-1) / (totals * math.log(2.0)), 0.0)
            out = np.maximum(out, 0.0)
            np.fill_diagonal(out, 0.0)
            return out
        self.count_all_pairs()
        out = np.zeros((d, d))
        for i in range(d):
            for j in range(i + 1, d):
                out[i, j] = out[j, i] = conditional_mutual_information(self.counts((i, j, c)))
        return out

    def per_label_cmi(self) -> np.ndarray:
        """``I(Xi; Xj | C=c)``: array ``(n_classes, d, d)``, MI within each class's rows
        (learners compare them, or sums of them, through :func:`comparable`)."""
        d, c = self.n_features, self.class_index
        if self._pair_terms_direct():
            terms, class_totals = self.pair_information_terms()
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.where(class_totals > 0, terms / (class_totals * math.log(2.0)), 0.0)
            out = np.maximum(np.moveaxis(out, -1, 0), 0.0)
            for label in out:
                np.fill_diagonal(label, 0.0)
            return out
        self.count_all_pairs()
        out = np.zeros((self.n_classes, d, d))
        for i in range(d):
            for j in range(i + 1, d):
                out[:, i, j] = out[:, j, i] = label_conditional_mi(self.counts((i, j, c)))
        return out

    def _pair_terms_direct(self) -> bool:
        """Whether :meth:`cmi_matrix` and :meth:`per_label_cmi` take every pair at once
        (:meth:`pair_information_terms`): from the rows, or from pair blocks small enough
        to build; otherwise they go pair by pair."""
        return self._columns is not None or self.pair_blocks_fit()

    def pair_information_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """For every feature pair and class: ``S[i, j, c] = sum_ab N_abc ln(N_abc N_c /
        (N_ac N_bc))`` and ``N_c``, both ``(d, d, n_classes)``.

        ``I(Xi; Xj | C) = sum_c S / (N ln 2)`` and ``I(Xi; Xj | C=c) = S / (N_c ln 2)``.
        The marginals are those of each pair's own table (under ``missing="ignore"`` a
        row with either value unknown is left out of that pair only), as
        :func:`conditional_mutual_information` computes them.

        Notes
        -----
        The counts come from one-hot products per class, ``H_c^T H_c`` (value pairs),
        ``H_c^T K_c`` (a value and the other feature known) and ``K_c^T K_c`` (both
        known), with ``K`` the known-value indicators. Value pairs are formed for a
        group of features at a time, so no array exceeds about 2**22 cells however
        many features there are; a cache merged from parts (no rows) sums its parts'
        :meth:`pair_blocks`.
        """
        if getattr(self, "_pair_terms", None) is not None:
            return self._pair_terms
        d, n_classes = self.n_features, self.n_classes
        cards = self.cardinalities[:d]
        offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
        width = int(cards.sum())
        # sized before anything is allocated: the largest temporary is the value pairs of one
        # feature with all values, or the per-feature marginals (C, values, d)
        largest = [int(v) for v in np.argsort(-cards, kind="stable")[:3]]  # named in the error
        self.check_size(
            largest,
            cells=float(n_classes) * width * max(float(cards[largest[0]]), d),
            what=f"the all-pairs counts of the {d} features ({width} values in all), whose largest columns are",
        )
        # Value pairs are counted for every value but the last of each feature (a feature
        # with one value keeps one column, which stays zero): the counts with a last value
        # are the totals minus the others, so the products are (1 - 1/r)**2 as large.
        kept = np.maximum(cards - 1, 1)
        roff = np.concatenate([[0], np.cumsum(kept)[:-1]]).astype(np.int64)
        rwidth = int(kept.sum())
        value = np.arange(width) - np.repeat(offsets, cards)  # each full column's value
        owner = np.repeat(np.arange(d), cards)
        counted = value < cards[owner] - 1
        column = np.full(width, rwidth, dtype=np.int64)  # full column -> reduced one (rwidth: none)
        column[counted] = roff[owner[counted]] + value[counted]
        # class-first arrays: by_feature[c, a, j] = N_ac among the rows with feature j known
        # (a: a counted value), known_pairs[c, i, j] = N_c among the rows with i and j known
        products = None  # all counted value pairs, when formed at once
        if self._columns is None:  # merged or summed tables: no rows, the pair blocks
            source = np.zeros(rwidth, dtype=np.int64)
            source[column[counted]] = np.flatnonzero(counted)
            padding = np.ones(rwidth, dtype=bool)
            padding[column[counted]] = False  # the zero column of a one-valued feature
            blocks = np.moveaxis(self.pair_blocks()[0], -1, 0)
            full = np.add.reduceat(blocks, offsets, axis=2)
            known_pairs = np.add.reduceat(full, offsets, axis=1)
            by_feature = full[:, source]
            by_feature[:, padding] = 0.0
            reduced = blocks[:, source][:, :, source]
            reduced[:, padding] = 0.0
            reduced[:, :, padding] = 0.0

            def joint_rows(lo, hi):
                return reduced[:, lo:hi, lo:]
        else:
            # All value pairs in one product per class (a symmetric rank-k update) when their
            # array is small; else a group of features' rows at a time, from one-hot rows kept
            # when they are small, or made again for each pass (bounded memory).
            if float(n_classes) * rwidth * rwidth <= _FULL_PRODUCT_CELLS:
                exact = np.float32 if self.n_samples < 2**24 else np.float64  # integer sums
                products = np.zeros((n_classes, rwidth, rwidth), dtype=exact)
            kept_rows = None
            if products is None and float(self._matrix.shape[1]) * rwidth * 4 <= _ONEHOT_KEEP_BYTES:
                kept_rows = list(self._class_onehot_chunks(offsets, column, rwidth))

            def chunks():
                return kept_rows if kept_rows is not None else self._class_onehot_chunks(offsets, column, rwidth)

            def product(onehot, lo, hi):
                # a large product is worth the BLAS's threads; small ones run faster on one
                large = onehot.shape[0] * (hi - lo) * (rwidth - lo) >= _THREADED_PRODUCT
                with contextlib.nullcontext() if large else single_threaded_blas():
                    return onehot[:, lo:hi].T @ onehot[:, lo:]

            by_feature = np.zeros((n_classes, rwidth, d))
            known_pairs = np.zeros((n_classes, d, d))
            for label, onehot, known in chunks():
                if products is not None:
                    products[label] += product(onehot, 0, rwidth)
                if known is None:  # no unknown values: N_ac whatever the other feature
                    by_feature[label] += onehot.sum(axis=0)[:, None]  # float32: exact below 2**24 rows
                    known_pairs[label] += onehot.shape[0]
                    continue
                with single_threaded_blas():
                    by_feature[label] += onehot.T @ known
                    known_pairs[label] += known.T @ known

            if products is not None:  # the tables of feature pairs, for counts_many to read
                self._pair_sources = (products, by_feature, known_pairs, roff)

            def joint_rows(lo, hi):
                if products is not None:
                    return products[:, lo:hi, lo:]
                joint = np.zeros((n_classes, hi - lo, rwidth - lo))
                for label, onehot, _ in chunks():
                    joint[label] += product(onehot, lo, hi)
                return joint

        # S = sum_ab xlogx(N_abc) - sum_a xlogx(N_ac) - sum_b xlogx(N_bc) + xlogx(N_c), the
        # marginals being those of the pair's own table (the sums of its cells)
        sums = _SegmentSums(roff, kept)  # over each feature's counted values
        last = known_pairs - sums(by_feature, axis=1)  # (C, i, j): N of i's last value
        # the (i, class) tables come with them: the counted values from by_feature, the last
        # value from last (rows with i known, twice)
        own = by_feature[:, np.arange(rwidth), np.repeat(np.arange(d), kept)]  # (C, counted values)
        own_last = last[:, np.arange(d), np.arange(d)]  # (C, features)
        with_class = np.where(counted[:, None], own.T[np.minimum(column, rwidth - 1)], own_last.T[owner])
        for i in range(d):
            self._tables.setdefault((i, self.class_index), with_class[offsets[i] : offsets[i] + cards[i]])
        marginal = sums(xlogx(by_feature), axis=1) + xlogx(last)  # sum_a xlogx(N_ac)
        terms = xlogx(known_pairs) - marginal - marginal.transpose(0, 2, 1)
        # the counts with a last value are totals minus counted cells: with_last[c, a, j] =
        # N_a(j known) - sum_b N_ab (value a with j's last value) is, by symmetry, also the
        # count of j's last value with a; its sums come from each group of value pairs
        counted_sums = np.empty((n_classes, rwidth, d))  # sum over j's counted values of N_ab
        per_feature = rwidth * n_classes * int(kept.max())
        # products formed per group are worth larger groups (skinny products run slowly)
        cells = _PAIR_GROUP_CELLS * (8 if self._columns is not None and products is None else 1)
        group = max(1, cells // max(1, per_feature))
        for start in range(0, d, group):
            stop = min(d, start + group)
            lo, hi = int(roff[start]), int(roff[stop - 1] + kept[stop - 1])
            # pairs (i, j) with i in the group and j >= i: the rest follows by symmetry
            joint = joint_rows(lo, hi)  # (C, counted values of the group, counted values from lo on)
            rows, cols = sums.part(start, stop), sums.part(start, d)
            counted_sums[:, lo:hi, start:] = cols(joint, axis=2)
            counted_sums[:, lo:, start:stop] = rows(joint, axis=1).transpose(0, 2, 1)
            terms[:, start:stop, start:] += rows(cols(xlogx(joint), axis=2), axis=1)
        with_last = by_feature - counted_sums
        cells = sums(xlogx(with_last), axis=1)  # (C, i, j): sum_a xlogx(N(a, j's last))
        both_last = last - sums(with_last, axis=1).transpose(0, 2, 1)
        terms += cells + cells.transpose(0, 2, 1) + xlogx(both_last)
        upper = np.triu(np.ones((d, d), dtype=bool), 1)
        terms = np.where(upper, terms, 0.0)
        terms = terms + terms.transpose(0, 2, 1)
        self._pair_terms = (np.moveaxis(terms, 0, -1), np.moveaxis(known_pairs, 0, -1))
        return self._pair_terms

    def _class_onehot_chunks(self, offsets, column, rwidth):
        """``(label, one-hot values, known indicators)`` for the rows of each class, in
        row chunks of at most about 2**22 one-hot cells (float32: exact counts).

        ``column`` maps each value (its full column, ``offsets[i] + code``) to its one-hot
        column (``rwidth`` of them), or to ``rwidth`` for a value left out. The known
        indicators are ``None`` when no feature has an unknown value.
        """
        d = self.n_features
        y = self._columns[self.class_index]
        unknown = bool(self._has_unknown[:d].any())
        owner = np.zeros(rwidth, dtype=np.int64)  # the feature and value of each one-hot column
        value = np.full(rwidth, -2, dtype=np.int64)  # -2: no value (a one-valued feature's column)
        full = np.flatnonzero(column < rwidth)
        owner[column[full]] = np.searchsorted(offsets, full, side="right") - 1
        value[column[full]] = full - offsets[owner[column[full]]]
        small = int(self.cardinalities[:d].max()) < 2**15
        matrix = self._matrix[:d].astype(np.int16) if small else self._matrix[:d]  # (features, rows)
        value = value.astype(matrix.dtype)
        equal = rwidth % d == 0 and np.array_equal(owner, np.repeat(np.arange(d), rwidth // d))
        step = max(1, _ONEHOT_CHUNK_CELLS // rwidth)
        for label in range(self.n_classes):
            rows = np.flatnonzero(y == label)
            for start in range(0, rows.size, step):
                codes = matrix.take(rows[start : start + step], axis=1)  # row-major, as the comparisons need
                # column-major one-hot rows: one comparison per column (an unknown code, -1, matches none)
                if equal:  # every feature has k columns: compare each feature's codes with its k values
                    onehot = np.equal(codes[:, None, :], value.reshape(d, -1)[:, :, None]).reshape(rwidth, -1)
                else:
                    onehot = np.equal(codes[owner], value[:, None])
                onehot = onehot.astype(np.float32)
                known = (codes >= 0).T.astype(np.float32) if unknown else None
                yield label, onehot.T, known


class _SegmentSums:
    """Sums over consecutive segments of an axis (``np.add.reduceat`` at ``starts``), the
    segments being each feature's values; when every segment has the same length, strided
    slices added in order (the same sums, bit for bit, several times faster)."""

    def __init__(self, starts: np.ndarray, lengths: np.ndarray) -> None:
        self.starts, self.lengths = starts, lengths
        self.equal = int(lengths[0]) if lengths.size and (lengths == lengths[0]).all() else 0

    def part(self, start: int, stop: int) -> "_SegmentSums":
        """The sums over the segments ``start:stop``, for an axis that begins at the first."""
        return _SegmentSums(self.starts[start:stop] - self.starts[start], self.lengths[start:stop])

    def __call__(self, array: np.ndarray, axis: int) -> np.ndarray:
        if not self.equal:
            return np.add.reduceat(array, self.starts, axis=axis)
        k = self.equal
        split = array.reshape(array.shape[:axis] + (len(self.starts), k) + array.shape[axis + 1 :])
        index = (slice(None),) * (axis + 1)
        out = np.array(split[index + (0,)], dtype=np.result_type(array, np.float64) if k > 1 else None)
        for t in range(1, k):
            out += split[index + (t,)]
        return out


_ONEHOT_CHUNK_CELLS = 1 << 22
"""Cells of the one-hot row chunks of :meth:`CountCache.pair_information_terms`."""

_ONEHOT_KEEP_BYTES = 1 << 28
"""Largest one-hot matrix of all rows (float32 bytes) that :meth:`CountCache.pair_information_terms`
keeps for its passes over the value pairs; a larger one is made again, chunk by chunk, for
each pass."""

_PAIR_GROUP_CELLS = 1 << 18
"""Cells of the value-pair arrays that :meth:`CountCache.pair_information_terms` takes at a
time (eight times as many when it forms them per group)."""

_FULL_PRODUCT_CELLS = 1 << 25
"""Largest array of all value pairs (counted values squared, times classes; float32, so at
most 128 MiB) that :meth:`CountCache.pair_information_terms` forms in one product per class."""

_THREADED_PRODUCT = 1 << 27
"""Multiply-adds from which a one-hot product of the all-pairs counts may use every BLAS
thread."""


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
        self.cardinalities = np.asarray(cardinalities, dtype=np.int64).copy()
        self.n_features = len(self.cardinalities) - 1
        self.class_index = self.n_features
        self.n_classes = int(self.cardinalities[-1])
        self.n_samples = int(n_samples)
        self._columns = self._matrix = None
        self._has_unknown = (
            np.zeros(len(self.cardinalities), dtype=bool)
            if has_unknown is None
            else np.asarray(has_unknown, dtype=bool).copy()
        )
        self.names = [f"x{j}" for j in range(self.n_features)] + ["class"]
        self._tables = {}
        for family, table in (tables or {}).items():
            family = tuple(int(v) for v in family)
            key = tuple(sorted(family))
            table = np.asarray(table, dtype=np.float64)
            if table.shape != tuple(int(self.cardinalities[v]) for v in family):
                raise ValueError(
                    f"the table of {family} has shape {table.shape}, not the "
                    f"cardinalities {[int(self.cardinalities[v]) for v in family]}."
                )
            self._tables[key] = (
                table if key == family else np.ascontiguousarray(table.transpose([family.index(v) for v in key]))
            )
        self._pair_terms = None
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
        return cls(cache.cardinalities, cache.n_samples, tables, blocks, cache._has_unknown)

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
        if set(self._tables) != set(other._tables) or (self._pair_blocks is None) != (other._pair_blocks is None):
            raise ValueError(
                "Cannot add count caches that hold different tables; count the same families on every chunk."
            )
        tables = {key: table + other._tables[key] for key, table in self._tables.items()}
        blocks = None if self._pair_blocks is None else self._pair_blocks[0] + other._pair_blocks[0]
        return CountSummary(
            self.cardinalities, self.n_samples + other.n_samples, tables, blocks, self._has_unknown | other._has_unknown
        )

    def add_tables(self, other: CountSummary) -> None:
        """Take the tables of ``other``, counted on the same rows in another pass."""
        self._check_same_variables(other)
        if other.n_samples != self.n_samples:
            raise ValueError(
                f"the added tables count {other.n_samples} rows, these {self.n_samples}; "
                "another pass must count the same rows."
            )
        for key, table in other._tables.items():
            self._tables.setdefault(key, table)
        if self._pair_blocks is None and other._pair_blocks is not None:
            self._pair_blocks = other._pair_blocks
        self._has_unknown |= other._has_unknown

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

    # -- the CountCache interface ----------------------------------------------------------
    def _offsets(self) -> np.ndarray:
        cards = self.cardinalities[: self.n_features]
        return np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)

    def _source(self, key: tuple):
        """How to get the table of ``key``: a function, or None when it was not counted."""
        c = self.class_index
        blocks = self._pair_blocks
        if not key:
            return lambda: np.array(float(self.n_samples))
        if blocks is not None and len(key) == 3 and key[2] == c:
            i, j = key[0], key[1]
            offsets, cards = blocks[1], self.cardinalities
            return lambda: np.ascontiguousarray(
                blocks[0][offsets[i] : offsets[i] + cards[i], offsets[j] : offsets[j] + cards[j]]
            )
        wanted = set(key)
        supersets = [k for k in self._tables if wanted < set(k)]
        if blocks is not None and len(key) < 3:
            rest = [v for v in key if v != c]
            if len(rest) == 2:
                supersets.append((*rest, c))
            elif len(rest) == 1:
                supersets += [tuple(sorted((rest[0], j))) + (c,) for j in range(self.n_features) if j != rest[0]][:1]
        supersets = [k for k in supersets if not self._has_unknown[list(set(k) - wanted)].any()]
        if not supersets:
            return None
        best = min(supersets, key=lambda k: float(np.prod([float(self.cardinalities[v]) for v in k])))

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
        self.check_size(
            [int(np.argmax(cards))],
            cells=float(width) * width * self.n_classes,
            what=f"the all-pairs count array of the {d} features ({width} values in all; the largest column:",
        )
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


_SCORE_DECIMALS = 10
"""Scores are compared after rounding to this many decimals (bits): see :func:`comparable`."""


@overload
def comparable(scores: float) -> float: ...
@overload
def comparable(scores: np.ndarray) -> np.ndarray: ...


def comparable(scores: np.ndarray | float) -> np.ndarray | float:
    """Scores rounded to ``1e-10`` so that values equal in exact arithmetic compare equal.

    An array gives an array of the same shape, a single score (a search's current
    score) a NumPy float.

    Information measures are logs of ratios of counts; two of them that are
    mathematically equal (two attributes with identical counts, a CMI that is
    exactly zero) often differ by ~1e-16 after floating-point division and
    summation in different orders. Rounding first lets the stated tie rules
    (lower index, earlier rank) decide such ties, instead of rounding noise.
    Genuinely different scores closer than 1e-10 bits are treated as tied.
    """
    return np.round(scores, _SCORE_DECIMALS)


# -- summed measures (empirical frequencies) ------------------------------------
def _plogp_ratio(joint: np.ndarray, denom: np.ndarray) -> float:
    """Sum of ``joint * log2(joint / denom)`` over cells with ``joint > 0``."""
    mask = joint > 0
    return float(np.sum(joint[mask] * np.log2(joint[mask] / denom[mask])))


@overload
def xlogx(counts: float) -> float: ...
@overload
def xlogx(counts: np.ndarray) -> np.ndarray: ...


def xlogx(counts: ArrayLike) -> np.ndarray | float:
    """``n * ln(n)`` with ``0 ln 0 = 0`` (Weka's ``ContingencyTables.lnFunc``), elementwise;
    a single count gives a NumPy float."""
    counts = np.asarray(counts, dtype=float)
    out = np.zeros_like(counts)
    np.log(counts, out=out, where=counts > 0)
    out *= counts
    return out if out.ndim else out[()]


def entropy(counts: ArrayLike) -> float:
    """Shannon entropy in bits of the distribution given by a count table.

    Computed as ``(N ln N - sum_k n_k ln n_k) / (N ln 2)``, summed in cell order
    as Weka's ``ContingencyTables.entropy`` does, so that the MDL discretizer's
    ties resolve exactly as Weka's.
    """
    counts = np.asarray(counts, dtype=float).ravel()
    total = float(counts.sum())
    if total <= 0:
        return 0.0
    acc = -float(np.add.accumulate(xlogx(counts))[-1])  # Weka's sequential loop: 0 - t0 - t1 - ...
    return (acc + float(xlogx(total))) / (total * math.log(2.0))


def mutual_information(counts: ArrayLike) -> float:
    """``I(X; Y)`` in bits from a table with axis 0 = X and the other axes = Y."""
    n = np.asarray(counts, dtype=float)
    n = n.reshape(n.shape[0], -1)
    total = n.sum()
    if total <= 0:
        return 0.0
    p = n / total
    px = p.sum(axis=1, keepdims=True)
    py = p.sum(axis=0, keepdims=True)
    return max(_plogp_ratio(p, px * py), 0.0)


def conditional_mutual_information(counts: ArrayLike) -> float:
    """``I(X; Y | Z)`` in bits from a table with axes ``(X, Y, *Z)``.

    ``Y`` may itself be a parent set: reshape its axes into one before calling,
    or pass a table with axes ``(X, *Y, Z)`` flattened by the caller.
    """
    n = np.asarray(counts, dtype=float)
    n = n.reshape(n.shape[0], n.shape[1], -1)
    total = n.sum()
    if total <= 0:
        return 0.0
    p = n / total
    pz = p.sum(axis=(0, 1), keepdims=True)
    pxz = p.sum(axis=1, keepdims=True)
    pyz = p.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = pxz * pyz / pz
    return max(_plogp_ratio(p, denom), 0.0)


def label_conditional_mi(counts: ArrayLike) -> np.ndarray:
    """``I(X; Y | C=c)`` for each class c from a table ``(X, Y, C)``: MI within class c, in bits.

    Vectorized over the classes; a class with no rows gets 0.
    """
    n = np.asarray(counts, dtype=float)
    n = n.reshape(n.shape[0], -1, n.shape[-1])
    total = n.sum(axis=(0, 1))
    p = n / np.where(total > 0, total, 1.0)
    px = p.sum(axis=1, keepdims=True)
    py = p.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(p / (px * py)), 0.0)
    return np.maximum(terms.sum(axis=(0, 1)), 0.0)


# -- smoothed probabilities and pointwise measures ------------------------------
def m_estimate(counts: ArrayLike, m: float = 1.0) -> np.ndarray:
    """``P(x | pa) = (N(x, pa) + m/|X|) / (N(pa) + m)`` for a table with axes ``(X, *pa)``.

    A table with one axis gives a marginal ``(N(x) + m/|X|) / (N + m)``. With
    ``m = 0`` (maximum likelihood) a parent configuration never seen in training
    gets the uniform distribution.
    """
    n = np.asarray(counts, dtype=float)
    r = n.shape[0]
    npa = n.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (n + m / r) / (npa + m)
    return np.where(npa + m > 0, p, 1.0 / r)


def pointwise_class_mi(counts_xc: ArrayLike, m: float = 1.0) -> np.ndarray:
    """Pointwise y-MI ``log2 P(x, c) / (P(x) P(c))`` for every ``(x, c)``.

    Parameters
    ----------
    counts_xc : array-like of shape ``(|X|, |C|)``
        Counts ``N(x, c)``.
    m : float
        m-estimate weight; the joint is smoothed as one variable of ``|X||C|``
        states and the marginals are its sums, so the three estimates agree.
    """
    joint = m_estimate(np.asarray(counts_xc, dtype=float).reshape(-1), m).reshape(np.shape(counts_xc))
    px = joint.sum(axis=1, keepdims=True)
    pc = joint.sum(axis=0, keepdims=True)
    return np.log2(joint / (px * pc))


def pointwise_class_cmi(counts_xyc: ArrayLike, m: float = 1.0) -> np.ndarray:
    """Pointwise y-CMI (CPMI) ``log2 P(x, y | c) / (P(x | c) P(y | c))`` for every cell.

    ``P(x, y | c) = (N(x, y, c) + m/(|X||Y|)) / (N(c) + m)``; the conditionals
    ``P(x | c)`` and ``P(y | c)`` are its sums, which equal their own
    m-estimates.
    """
    n = np.asarray(counts_xyc, dtype=float)
    nx, ny, nc = n.shape
    joint = m_estimate(n.reshape(nx * ny, nc), m).reshape(nx, ny, nc)
    return np.log2(joint / (joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)))


# -- scores -------------------------------------------------------------------------
def bdeu_score(counts: ArrayLike, ess: float = 1.0) -> float:
    """BDeu local score (natural log) of a family table with axes ``(child, *parents)``.

    ``sum_j [lnG(a_j) - lnG(a_j + N_j) + sum_k (lnG(a_jk + N_jk) - lnG(a_jk))]`` with
    ``a_j = ess / q`` and ``a_jk = ess / (q r)`` (Heckerman, Geiger & Chickering 1995),
    where ``r`` is the child's cardinality and ``q`` the number of parent
    configurations.
    """
    n = np.asarray(counts, dtype=float)
    r = n.shape[0]
    n = n.reshape(r, -1)
    q = n.shape[1]
    a_j, a_jk = ess / q, ess / (q * r)
    n_j = n.sum(axis=0)
    return float(np.sum(gammaln(a_j) - gammaln(a_j + n_j)) + np.sum(gammaln(a_jk + n) - gammaln(a_jk)))


ChunkedCountCache = CountSummary
"""The former name of :class:`CountSummary`."""
