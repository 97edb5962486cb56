"""AODE's kernel: the joint log-likelihood of every SPODE from the all-pairs log-CPT table.

In an averaged one-dependence estimator (Webb, Boughton & Wang 2005) each feature in
turn is the super-parent of all the others, so the children's log-CPTs of all the
members are the blocks of one ``(R, R, n_classes)`` table of ``log P(x_j | x_p, c)``
(:func:`bnclf.learn._parameters.child_given_pair_log_table`, whose cells a prediction forms
for the values its rows hold). A row's SPODE sums are read from that table directly, without
building a network per member.
"""

from __future__ import annotations

import functools

import numpy as np

from bnclf._compiled import compiled_loops
from bnclf._config import single_threaded_blas
from bnclf._logsumexp import logsumexp
from bnclf._threads import even_parts, run_parts, too_small_to_cut
from bnclf.inference._kernels import log_weighted_sum
from bnclf.learn._parameters import PairLogTable

_LOOP_NS = 0.6
"""Nanoseconds of the compiled SPODE loops per row, child, super-parent and class (splice's
319 rows in about 2.4 ms on the benchmark machine), to cut their rows among threads."""

_CHILD_SUM_CELLS = 2**16
"""Cells of the block of rows whose SPODE sums the gather path adds up (512 KiB)."""

_PRODUCT_CELLS = 2**18
"""Cells of the block of one-hot rows times the table that the product path forms at once
(2 MiB of float64); the grouped product's block holds the one-hot rows twice (as they are and
sorted by a super-parent's value) and the sums of one super-parent."""

_COMPACT_SHARE = 0.75
"""The compiled loop reads a sub-table of the values in use when they are at most this share
of all values (splice's 4 of 8 letters: a quarter of the table, 5.8 ms instead of 7.8 ms on
the benchmark machine)."""

_BY_PARENT_CLASSES = (2, 3)
"""Class counts whose compiled loop reads the sub-table laid out by super-parent value, each
SPODE's sum in a register (:func:`bnclf._compiled_loops._parent_sums`: splice's loop 2.4 →
1.9 ms); the sums are the same bits as the child-major loop's."""

_PROBABILITY_CELLS = 2**18
"""The compiled loop multiplies probabilities (no exponential per row, member and class) when
the table has at most this many cells (letter's 166,400: its exponentials cost about 1.5 ms
once, against about 7 ms of exponentials per prediction of 2,000 rows); larger tables
(splice's 691,200) stay in logarithms."""

_LOWEST_LOG_PRODUCT = -700.0
"""The products are taken only when no row's product of entries, times its smallest positive
member weight, can go below ``exp(-700)``: above the smallest normal float64
(``exp(-708)``), so no product loses precision."""

_GATHER_NS = (5.0, 2.1)
"""Nanoseconds of the gather path per row, child and super-parent: a fixed part and a part
per class (measured on the benchmark machine: 11 ns with splice's 3 classes, 60 ns with
letter's 26)."""

_PRODUCT_NS = 0.1
"""Nanoseconds of the product path per row, pair of values in use and class (BLAS
multiply-adds with the one-hot and the sub-table formed: 0.1 ns on splice and letter)."""

_GROUP_NS = (20_000.0, 0.5)
"""Nanoseconds of the grouped product path beyond its multiply-adds: per group of rows (one
super-parent value in one block of rows: a product call, its rows found and written) and
per row, super-parent and value in use (the one-hot rows sorted by the super-parent's
value). Measured on the benchmark machine: letter's 2,000 rows take 11 ms grouped against
23 ms in one product; splice's 319 rows in 240 groups take 9 ms against 3 ms."""


def _log_weights(weights: np.ndarray) -> np.ndarray:
    """``log(weights)`` of ``(rows, members)`` weights (``-inf`` leaves a member out), each row's
    the same bits as ``np.log`` of it: when every row holds the first row's weights (every
    super-parent qualifies in every row, splice's 319 rows), their logarithms are taken once
    (splice: 0.08 → 0.02 ms)."""
    out = np.empty(weights.shape)
    with np.errstate(divide="ignore"):
        if len(weights) and (weights.strides[0] == 0 or (weights == weights[0]).all()):  # one row, repeated
            out[:] = np.log(weights[0])
        else:
            np.log(weights, out=out)
    return out


def _grouped_rows(values: int, n_classes: int) -> int:
    """Rows of a block of the grouped product: its one-hot rows (twice) and one super-parent's
    sums within :data:`_PRODUCT_CELLS`."""
    return max(1, _PRODUCT_CELLS // max(1, 2 * values + n_classes))


def _diagonal_cells(owner: np.ndarray, offsets: np.ndarray, cardinalities: np.ndarray) -> np.ndarray:
    """The rows ``g * width + h`` of the flat pair table whose values ``g`` and ``h`` belong to
    one feature (the diagonal blocks ``j == p``; ``owner``: each value's feature), in one array."""
    width = owner.size
    size = cardinalities[owner]  # each value's block: the values of its own feature
    first = np.repeat(np.arange(owner.size) * width + offsets[owner], size)
    step = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
    return first + step


class SuperParentKernel:
    """Joint log-likelihoods of AODE's members (every SPODE, then naive Bayes).

    Parameters
    ----------
    pair_tables : ndarray (R, R, n_classes), or PairLogTable
        ``log P(x_j | x_p, c)`` for every ordered pair, laid out as
        :meth:`bnclf.counts.CountCache.pair_blocks` (rows: child values, columns:
        parent values); a :class:`bnclf.learn._parameters.PairLogTable` is made whole only
        when a path needs the whole table (the compiled loop over rows whose values are all
        known reads the cells of the values they hold).
    offsets, cardinalities : ndarray (d,)
        First row of each feature's block, and its number of values.
    spode_priors : ndarray (d, n_classes)
        ``log P(c)`` of each SPODE.
    spode_parents : ndarray (R, n_classes)
        ``log P(x_p | c)`` of each SPODE's super-parent, the rows of feature ``p`` at
        ``offsets[p]``.
    nb_prior : ndarray (n_classes,)
        Naive Bayes' class prior.
    nb_children : ndarray (R, n_classes)
        Naive Bayes' ``log P(x_j | c)``, laid out as ``spode_parents``.

    Notes
    -----
    With ``g_i = offsets[i] + x_i`` the position of each value, the children's entries
    of every SPODE for a row are ``pair_tables[g_j, g_p, :]``, and SPODE ``p``'s
    children sum to ``sum_j pair_tables[g_j, g_p, :]`` (the diagonal blocks, ``j = p``,
    are zeroed). Three ways give these sums, the same up to the order of summation:

    * **gather**: ``(n, d, d, n_classes)`` entries, one ``numpy.take`` of contiguous
      class rows per child ``j``, added in place to a block of rows that stays in cache;
    * **product**: with ``Z`` the one-hot ``(n, V)`` of the rows' known values among
      the ``V`` values the rows use, ``S = Z @ pair_tables[used, used]`` is
      ``(n, V, n_classes)``, and SPODE ``p`` of row ``t`` reads ``S[t, g_tp]``:
      ``n V^2 n_classes`` multiply-adds of a BLAS product in place of ``n d^2
      n_classes`` gathers. An unknown child has no one-hot entry, so it is summed out
      as in the gather;
    * **grouped product**: the rows of each super-parent value ``g`` times the table's
      columns of ``g`` only, ``Z[rows] @ pair_tables[used, g]``: ``n d V n_classes``
      multiply-adds (the whole product forms every value's sum for every row), in one
      product call per value and block of rows.

    A product is taken when its estimated time (:data:`_PRODUCT_NS` per multiply-add, and
    :data:`_GROUP_NS` for the groups) is below the gathers' (:data:`_GATHER_NS`), which
    favours it for few values in use per feature (splice's 4 bases in use and 3 classes:
    the whole product, 6 ms against 13 ms; letter's 5 bins and 26 classes: the groups,
    about 1.3 against 1.7 ms per block of 148 rows), and the table is finite
    (a log-probability of ``-inf``, from maximum likelihood, times a zero of the one-hot
    would be NaN).
    """

    def __init__(
        self,
        pair_tables: np.ndarray | PairLogTable,
        offsets: np.ndarray,
        cardinalities: np.ndarray,
        spode_priors: np.ndarray,
        spode_parents: np.ndarray,
        nb_prior: np.ndarray,
        nb_children: np.ndarray,
    ) -> None:
        d = len(offsets)
        cardinalities = np.asarray(cardinalities, dtype=np.int64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        if not isinstance(pair_tables, PairLogTable):  # an array: its diagonal blocks zeroed
            tables = np.asarray(pair_tables, dtype=float)
            diagonal = _diagonal_cells(np.repeat(np.arange(d), cardinalities), self.offsets, cardinalities)
            if np.take(tables.reshape(-1, tables.shape[2]), diagonal, axis=0).any():  # j == p: adds nothing
                tables = tables.copy()
                tables.reshape(-1, tables.shape[2])[diagonal] = 0.0
            pair_tables = PairLogTable(self.offsets, cardinalities, tables.shape[2], table=tables)
        self._pairs = pair_tables
        self._width = pair_tables.shape[0]
        self._tables_in_use = {}  # layout (by super-parent value?) -> (values in use, their sub-table)
        self.n_classes = pair_tables.shape[2]
        self.priors = np.asarray(spode_priors, dtype=float)
        self.parents = np.asarray(spode_parents, dtype=float)  # (R, n_classes), rows by value position
        self.nb_prior = np.asarray(nb_prior, dtype=float)
        self.nb_children = np.asarray(nb_children, dtype=float)
        self.parents_per_feature = cardinalities
        self.d = d
        small = self._width * self._width * self.n_classes <= _PROBABILITY_CELLS
        loops = compiled_loops()
        self._probabilities, self._lowest_log_product = (
            self._probability_tables(loops) if loops is not None and small else (None, None)
        )

    @functools.cached_property
    def _owner(self) -> np.ndarray:
        """Each value's feature (made on first use: the product path does not read it)."""
        return np.repeat(np.arange(self.d), self.parents_per_feature)

    @property
    def tables(self) -> np.ndarray:
        """The whole ``(R, R, n_classes)`` table (diagonal blocks zero), made on first use."""
        return self._pairs.full()

    @property
    def _flat(self) -> np.ndarray:
        """The whole table as ``(R * R, n_classes)``: row ``j * R + p``, a contiguous run of classes."""
        return self._pairs.full().reshape(-1, self.n_classes)

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        """``(n_samples, d + 1, n_classes)``: every SPODE's ``log P_p(c, x)``, then naive Bayes'.

        Unknown values (code ``-1``) are summed out exactly: in a SPODE an
        unknown child has no children, so its CPT sums to one and it is left
        out; an unknown super-parent is summed over its values (a log-sum-exp
        over ``r_p`` terms, one feature at a time).
        """
        codes = np.asarray(codes, dtype=np.int64)
        n, d, c = codes.shape[0], self.d, self.n_classes
        known = codes >= 0
        position = np.where(known, codes + self.offsets, 0)
        any_unknown = not known.all()
        out = np.empty((n, d + 1, c))
        loops = compiled_loops()
        used, grouped = self._values_in_use(position, known) if n and loops is None and self._finite else (None, False)
        if loops is not None:  # the gather path's sums, compiled (rows cut among threads)
            sums = out[:, :d]
            run_parts(
                lambda a, b: loops.spode_sums(position[a:b], known[a:b], self._flat, self._width, sums[a:b]),
                self._row_parts(n),
            )
        elif used is not None:
            self._children_by_product(position, known, used, out[:, :d], grouped)
        else:
            self._children_by_gather(position, known, any_unknown, out[:, :d])
        out[:, :d] += self.priors
        out[:, :d] += self.parents[position]
        nb = self.nb_children[position]
        if any_unknown:
            nb = np.where(known[:, :, None], nb, 0.0)
        out[:, d] = self.nb_prior + nb.sum(axis=1)
        if any_unknown:
            for p in np.flatnonzero(~known.all(axis=0)):
                out[~known[:, p], p] = self._summed_over_parent(position[~known[:, p]], known[~known[:, p]], p)
        return out

    def log_weighted_sum(self, codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """``(n_samples, n_classes)``: ``log sum_m w_m P_m(c, x)`` over the members of
        :meth:`__call__` with weights ``(d + 1,)`` or ``(n_samples, d + 1)``, as
        :func:`bnclf.inference._kernels.log_weighted_sum` gives it from them.

        With the compiled loops (:mod:`bnclf._compiled`), rows whose values are all known
        are combined in one pass, without the ``(rows, members, classes)`` array:

        * when the table is small enough and no product can underflow
          (:meth:`_probability_tables`), from products of probabilities, as Weka's AODE
          does: one logarithm per row and class instead of an exponential per member
          (the same values to about ``d`` units in the last place);
        * else from the sums of :meth:`__call__`, added in the same order (the
          combination's exponentials and logarithm may differ from numpy's in the last
          bit), over the sub-table of the values the rows hold when that is much smaller;
          with two or three classes always over that sub-table, laid out by super-parent
          value, so that the loop keeps each sum in a register (:data:`_BY_PARENT_CLASSES`).

        Rows with an unknown value, and every row without the compiled loops, take
        :meth:`__call__` and the combination.
        """
        codes = np.asarray(codes, dtype=np.int64)
        loops = compiled_loops()
        if loops is None:
            return log_weighted_sum(self(codes), weights)
        n = codes.shape[0]
        weights = np.asarray(weights, dtype=float)
        w = np.empty((n, self.d + 1))  # each row's weights, contiguous, as the loops read them
        w[...] = weights
        position, known, every_known = loops.row_positions(codes, self.offsets)
        out = np.empty((n, self.n_classes))
        checked = weights if weights.ndim == 1 else w  # one row's weights for every row, or each row's
        if self._probabilities is not None and self._weights_keep_products_normal(checked, loops):
            tables, width = self._probabilities, self._width
            run_parts(
                lambda a, b: loops.averaged_spode_probabilities(
                    position[a:b], known[a:b], tables[0], width, *tables[1:], w[a:b], out[a:b]
                ),
                self._row_parts(n),
            )
            if not every_known:
                self._unknown_super_parents(codes, known, w, out)
            return out
        log_w = _log_weights(np.broadcast_to(weights, w.shape) if weights.ndim == 1 else w)  # one row: one log
        width, parents, nb_children = self._width, self.parents, self.nb_children
        by_parent = self.n_classes in _BY_PARENT_CLASSES  # the loop that keeps each sum in a register
        used = self._values_for_sub_table(position, known, by_parent) if n else None
        if used is not None:  # the sub-table of the values in use: fewer cache lines to read
            local = np.zeros(width, dtype=np.int64)
            local[used] = np.arange(used.size)
            position, width = local[position], used.size
            flat = self._sub_table(used, by_parent).reshape(width * width, self.n_classes)
            parents, nb_children = parents[used], nb_children[used]
        else:
            flat = self._flat
        by_parent = by_parent and used is not None
        priors, nb_prior = self.priors, self.nb_prior
        run_parts(
            lambda a, b: loops.averaged_spodes(
                position[a:b],
                known[a:b],
                flat,
                width,
                priors,
                parents,
                nb_prior,
                nb_children,
                log_w[a:b],
                out[a:b],
                by_parent,
            ),  # fmt: skip
            self._row_parts(n),
        )
        if not every_known:
            self._unknown_super_parents(codes, known, w, out)
        return out

    def _row_parts(self, n: int) -> list[tuple[int, int]]:
        """The compiled loops' rows cut among threads (each row's sums are its own: the same
        bits however the rows are cut), by their estimated work (:data:`_LOOP_NS`)."""
        work = float(n) * self.d * self.d * self.n_classes * _LOOP_NS
        return [(0, n)] if n and too_small_to_cut(work) else even_parts(n, work)

    @functools.cached_property
    def _finite(self) -> bool:
        """No NaN and no ``-inf`` in the pair table (log-probabilities are at most 0), which
        the numpy product path needs (``-inf`` times a zero of the one-hot is NaN)."""
        return bool(np.isfinite(np.add.reduce(self.tables, axis=None)))

    def _weights_keep_products_normal(self, weights: np.ndarray, loops) -> bool:
        """Whether every weighted product stays above ``exp(-700)``: finite, non-negative
        weights (one row's ``(d + 1,)``, or each row's) whose smallest positive one does not
        take the lowest product below it (``loops``: the compiled loops)."""
        if weights.ndim == 1:  # one row for every row: that row
            weights = weights[None]
        smallest = loops.smallest_positive_weight(weights)  # one pass, the weights in place
        if not smallest > 0:  # none positive (0), or one negative, NaN or infinite (-1)
            return False
        return self._lowest_log_product + float(np.log(smallest)) >= _LOWEST_LOG_PRODUCT

    def _unknown_super_parents(self, codes, known, weights, out) -> None:
        """Rows with an unknown value (which may be a super-parent, summed over its values)
        by :meth:`__call__` and the combination."""
        if not known.all():
            rows = np.flatnonzero(~known.all(axis=1))
            out[rows] = log_weighted_sum(self(codes[rows]), weights[rows])

    def _probability_tables(self, loops) -> tuple:
        """``(tables, lowest)``: the tables as probabilities, for the compiled product path, and
        the lowest log-product of a row's entries, when the table has at most
        :data:`_PROBABILITY_CELLS` cells and that product cannot fall below ``exp(-700)`` (a
        SPODE multiplies ``d + 1`` entries; naive Bayes ``d + 1``); else ``(None, None)``.
        Made once per kernel: ``exp`` of the table, about 1.5 ms for letter's."""
        if self._width * self._width * self.n_classes > _PROBABILITY_CELLS or not self.d:
            return None, None
        flat = self._flat
        if flat.size and not flat.max() <= 0:  # NaN or above 0: not log-probabilities
            return None, None
        table = float(flat.min()) if flat.size else 0.0
        if table == -np.inf:  # the smallest finite entry
            finite = flat[np.isfinite(flat)]
            table = float(finite.min()) if finite.size else 0.0
        # the same of the small tables in one compiled pass (NaN: an entry NaN or above 0)
        small = (self.priors, self.parents, self.nb_prior, self.nb_children)
        priors, parents, nb_prior, nb_children = loops.lowest_log_entries(*(np.ravel(t) for t in small))
        if priors != priors or parents != parents or nb_prior != nb_prior or nb_children != nb_children:
            return None, None
        lowest = min(priors + parents + self.d * table, nb_prior + self.d * nb_children)
        if lowest < _LOWEST_LOG_PRODUCT:
            return None, None
        with np.errstate(under="ignore"):
            tables = tuple(np.exp(t) for t in (self._flat, self.priors, self.parents, self.nb_prior, self.nb_children))
        return tables, lowest

    def _values_in_use(self, position: np.ndarray, known: np.ndarray) -> tuple[np.ndarray | None, bool]:
        """``(used, grouped)``: the value positions the rows hold, when few enough for a product
        path, and whether its products go by super-parent value (:meth:`_children_by_product`);
        ``(None, False)`` for the gathers. Exactly those values: a product over more columns
        rounds differently."""
        used = np.flatnonzero(np.bincount(position[known], minlength=self._width))
        if not used.size:  # every value unknown: no product to form
            return None, False
        n, d, c, v = float(len(position)), float(self.d), self.n_classes, float(used.size)
        gather = n * d * d * (_GATHER_NS[0] + _GATHER_NS[1] * c)
        product = n * v * v * c * _PRODUCT_NS
        blocks = np.ceil(n / _grouped_rows(v, c))  # each block of rows makes its own groups
        grouped = n * d * v * (c * _PRODUCT_NS + _GROUP_NS[1]) + blocks * v * _GROUP_NS[0]
        if min(product, grouped) > gather:
            return None, False
        return used, grouped < product

    def _values_for_sub_table(self, position: np.ndarray, known: np.ndarray, by_parent: bool = False):
        """The values of the compiled loop's sub-table: those the rows hold, or those of the last
        sub-table of that layout when they include them (the loop reads the same entries in the
        same order, whatever else the sub-table holds); None when none, or, for the table by
        child value (which the loop can read whole), more than :data:`_COMPACT_SHARE` of all."""
        seen = np.bincount(position[known], minlength=self._width) > 0
        held = self._tables_in_use.get(by_parent)
        used = held[0] if held is not None and seen[held[0]].sum() == seen.sum() else np.flatnonzero(seen)
        return used if 0 < used.size and (by_parent or used.size <= _COMPACT_SHARE * self._width) else None

    def _children_by_gather(self, position, known, any_unknown, spodes) -> None:
        """Write each SPODE's children's sum into ``spodes`` ``(n, d, C)`` by gathers."""
        n, d, c = position.shape[0], self.d, self.n_classes
        step = max(1, _CHILD_SUM_CELLS // max(1, d * c))
        for s in range(0, n, step):
            g, ok = position[s : s + step], known[s : s + step]
            block = spodes[s : s + step]
            block[...] = 0.0
            columns = g * self._width  # the row of child j's value, then the column of each parent's
            for j in range(d):  # one child at a time: (rows, parents, classes) entries, added in place
                entries = np.take(self._flat, columns[:, j : j + 1] + g, axis=0)
                if any_unknown and not ok[:, j].all():
                    entries[~ok[:, j]] = 0.0  # an unknown child is summed out: its CPT sums to one
                block += entries

    def _children_by_product(self, position, known, used, spodes, grouped=False) -> None:
        """Write each SPODE's children's sum into ``spodes`` ``(n, d, C)`` by one product
        of the one-hot rows and the table of the values in use, a block of rows at a time.

        ``grouped``: the rows of each super-parent value times that value's columns of the
        table: ``d`` times fewer multiply-adds than the whole product (which forms every
        super-parent value's sum for every row), for a product call per value and block of
        rows (letter's 26 classes: 2,000 rows in 11 ms instead of 23 ms)."""
        n, c, v = position.shape[0], self.n_classes, used.size
        local = np.zeros(self._width, dtype=np.int64)
        local[used] = np.arange(v)
        index = local[position]  # each value's place among those in use (unknown: 0, masked below)
        table = self._sub_table(used)
        step = _grouped_rows(v, c) if grouped else max(1, _PRODUCT_CELLS // max(1, v * c))
        if grouped:  # each feature's values in use: a run of places (used is increasing, features in order)
            runs = np.searchsorted(self._owner[used], np.arange(self.d + 1))
        for s in range(0, n, step):
            rows = min(step, n - s)
            where, ok = index[s : s + rows], known[s : s + rows]
            onehot = np.zeros((rows, v))
            if ok.all():
                onehot[np.arange(rows)[:, None], where] = 1.0
            else:
                r, j = np.nonzero(ok)
                onehot[r, where[r, j]] = 1.0
            block = spodes[s : s + rows]
            with single_threaded_blas():
                if not grouped:
                    sums = (onehot @ table).reshape(rows * v, c)
                    block[...] = np.take(sums, (np.arange(rows) * v)[:, None] + where, axis=0)
                    continue
                for p in range(self.d):  # the rows by p's value: each value's rows one slice
                    order = np.argsort(where[:, p], kind="stable")
                    bounds = np.searchsorted(where[order, p], np.arange(runs[p], runs[p + 1] + 1))
                    sorted_rows, sums = onehot[order], np.empty((rows, c))
                    for k in range(runs[p + 1] - runs[p]):
                        lo, hi = bounds[k], bounds[k + 1]
                        if hi > lo:
                            value = runs[p] + k
                            np.matmul(sorted_rows[lo:hi], table[:, value * c : (value + 1) * c], out=sums[lo:hi])
                    block[order[bounds[0] : bounds[-1]], p] = sums[bounds[0] : bounds[-1]]

    def _sub_table(self, used: np.ndarray, by_parent: bool = False) -> np.ndarray:
        """``(V, V * n_classes)``: the table's rows and columns of the values ``used``
        (child value, then parent value and class; ``by_parent``: parent value, then child
        value and class), kept for the next block of rows, which likely uses the same values
        (:meth:`bnclf.learn._parameters.PairLogTable.sub_table`: formed from the counts when the whole
        table is not made)."""
        held = self._tables_in_use.get(by_parent)
        if held is not None and (held[0] is used or np.array_equal(held[0], used)):
            return held[1]
        table = self._pairs.sub_table(used, by_parent)
        self._tables_in_use[by_parent] = (used, table)
        return table

    def _summed_over_parent(self, position, known, p) -> np.ndarray:
        """``log sum_v P_p(c, x_p = v, x_observed)`` for rows whose super-parent p is unknown."""
        values = self.offsets[p] + np.arange(self.parents_per_feature[p])
        rows = (position[:, :, None] * self._width + values).reshape(-1)  # (row, j, v)
        entries = np.take(self._flat, rows, axis=0).reshape(len(position), self.d, len(values), -1)
        entries = np.where(known[:, :, None, None], entries, 0.0).sum(axis=1)  # (row, v, c)
        terms = entries + self.priors[p] + self.parents[values]
        with np.errstate(divide="ignore"):
            return logsumexp(terms, axis=1)
