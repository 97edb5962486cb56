"""Instance-specific structure learning, batched over test rows.

The instance-specific learners of Sun et al. (2017) (LKDB, the label-driven LTAN) and
of Duan et al. (2019) (discriminatory target learning) build a structure for every test
instance from measures of that instance's own attribute values. Everything a
row needs is a *gather* from tables computed once at fit time:

- :class:`LocalTables`: the value-level information measures (local MI, local
  CMI, conditional pointwise MI, pointwise y-MI) as arrays indexed by value
  codes, so the (rows x attributes x attributes) score arrays of a batch are
  one fancy-indexing step;
- :func:`local_kdb_parents`: KDB parent choice for a batch of rankings, one
  vectorized step per rank position;
- :func:`~bnclf.learn.maximum_spanning_arborescence`: Prim's algorithm run
  in lockstep over a batch of weight matrices;
- :class:`LocalParameters`: ``log P(x_i | x_pa, c)`` at each row's own values
  for families that differ from row to row, from pair tables or from
  :class:`MatchCounter` (row bitsets: a count is a few ANDs and popcounts).

No step loops over test rows; loops run over attribute positions only. Rows
are processed in chunks so memory stays bounded (:func:`bnclf._config.row_chunks`).

Unknown values
--------------
An attribute whose value is unknown in a test row (missing, or a category
never seen in training) is left out of that row's structure: it is not ranked,
has no feature parents, is nobody's parent and is in no spanning tree. In the
row's network it is a leaf whose only parent is the class, and summing a leaf
out contributes a factor of one, so it simply drops out of the joint. This is
exact marginalization for the structure built for that row (checked against
pgmpy on the networks returned by ``explain``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bnclf.counts._cache import CountCache
from bnclf.encoding._frames import DiscreteData
from bnclf.learn._parameters import child_given_pair_log_cpts, m_estimated_log_cpts

_MEMO_CELLS = 2**24
"""Cells of family counts :class:`LocalParameters` keeps between chunks."""


# -- value-level information measures ------------------------------------------------
class LocalTables:
    """Information measures of single attribute values and value pairs, from fit-time counts.

    Value ``v`` of attribute ``i`` has the flat index ``offsets[i] + v``
    (``R = sum_i r_i`` values in all). Summed measures use empirical
    frequencies with ``0 log 0 = 0``; pointwise measures use smoothed
    estimates (DESIGN §3). All are in bits.

    Parameters
    ----------
    cache : CountCache
        Training counts.
    """

    def __init__(self, cache: CountCache) -> None:
        d, c = cache.n_features, cache.class_index
        self.n_features, self.n_classes = d, cache.n_classes
        self.cards = cache.cardinalities[:d].astype(np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.cards)[:-1]]).astype(np.int64)
        self.owner = np.repeat(np.arange(d), self.cards)  # attribute of each flat value
        cache.counts_many([(i, c) for i in range(d)])
        self.value_class = np.concatenate([cache.counts((i, c)) for i in range(d)])  # (R, l)
        self.blocks = cache.pair_blocks()[0]  # (R, R, l) pair counts within each class
        self._cache = cache

    def flat_index(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat value indices ``(B, d)`` of coded rows and their known mask."""
        known = codes >= 0
        return self.offsets + np.where(known, codes, 0), known

    # block sums: per-(i, j) class counts and per-(value, j) marginals within the pair table
    def _pair_marginals(self):
        if not hasattr(self, "_marg"):
            row_marg = np.add.reduceat(self.blocks, self.offsets, axis=1)  # (R, d, l)
            pair_total = np.add.reduceat(row_marg, self.offsets, axis=0)  # (d, d, l)
            self._marg = row_marg, pair_total
        return self._marg

    def local_mi(self) -> np.ndarray:
        """``I(x_i; C) = sum_c p(x_i, c) log2 p(x_i, c) / (p(x_i) p(c))`` (Sun et al. 2017 Eq. 9): (R,)."""
        n = self.value_class
        total = np.add.reduceat(n, self.offsets, axis=0)  # (d, l): N(c) among rows with i known
        n_all = total.sum(axis=1)[self.owner][:, None]
        p_vc = n / n_all
        p_v = n.sum(axis=1, keepdims=True) / n_all
        p_c = total[self.owner] / n_all
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(n > 0, p_vc * np.log2(p_vc / (p_v * p_c)), 0.0)
        return terms.sum(axis=1)

    def conditional_local_mi(self) -> np.ndarray:
        """``I(x_i; x_j | C) = sum_c p(x_i, x_j, c) log2 p(x_i, x_j | c) / (p(x_i | c) p(x_j | c))``
        (Sun et al. 2017 Eq. 10) for every value pair: (R, R); diagonal blocks are meaningless."""
        row_marg, pair_total = self._pair_marginals()
        n = self.blocks
        o = self.owner
        n_pair = pair_total[o][:, o]  # (R, R, l): N(c) among rows with both known
        n_i = row_marg[:, o]  # (R, R, l): N(x_i, c) within the pair's rows
        n_j = np.swapaxes(row_marg[:, o], 0, 1)
        total = n_pair.sum(axis=2, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(n > 0, (n / total) * np.log2(n * n_pair / (n_i * n_j)), 0.0)
        return terms.sum(axis=2)

    def class_weighted_label_mi(self) -> np.ndarray:
        """``p(c) I(X_i; X_j | c)``: array (l, d, d), the per-label terms of RCMI (Sun et al. 2017 Eq. 16)."""
        counts = self._cache.class_counts
        return self._cache.per_label_cmi() * (counts / counts.sum())[:, None, None]

    def conditional_pointwise_mi(self, m: float) -> np.ndarray:
        """CPMI ``log2 P(x_i, x_j | c) / (P(x_i | c) P(x_j | c))`` (Sun et al. 2017 Eq. 18): (R, R, l).

        ``P(x_i, x_j | c) = (N(x_i, x_j, c) + m/(r_i r_j)) / (N(c) + m)`` and the
        conditionals are its sums, as :func:`bnclf.counts.pointwise_class_cmi`.
        """
        o, r = self.owner, self.cards.astype(float)
        return self._pointwise_pair_ratio((m / (r[o][:, None] * r[o][None, :]))[:, :, None], m / r[o], m)

    def _pointwise_pair_ratio(self, joint_add, marginal_add, total_add) -> np.ndarray:
        """``log2 P(x_i, x_j | c) / (P(x_i | c) P(x_j | c))`` for every value pair and class,
        with ``P(x_i, x_j | c) = (N(x_i, x_j, c) + joint_add) / (N(c) + total_add)`` and
        ``P(x_i | c) = (N(x_i, c) + marginal_add[x_i]) / (N(c) + total_add)``, the counts
        taken within the pair's rows."""
        row_marg, pair_total = self._pair_marginals()
        o = self.owner
        n_pair = pair_total[o][:, o] + total_add
        margin = row_marg[:, o] + np.broadcast_to(marginal_add, o.shape)[:, None, None]
        joint = (self.blocks + joint_add) / n_pair
        p_i = margin / n_pair
        p_j = np.swapaxes(margin, 0, 1) / n_pair
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log2(joint / (p_i * p_j))

    def pointwise_class_mi(self, m: float) -> np.ndarray:
        """Pointwise y-MI ``log2 P(x_i, y) / (P(x_i) P(y))`` (Duan et al. 2019, Eq. 8, unweighted): (R, l).

        ``(x_i, y)`` is smoothed as one variable of ``r_i l`` states, as
        :func:`bnclf.counts.pointwise_class_mi`.
        """
        from bnclf.counts._measures import pointwise_class_mi

        parts = np.split(self.value_class, self.offsets[1:])
        return np.concatenate([pointwise_class_mi(part, m) for part in parts])

    def pseudo_instance_measures(self, *, as_printed: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Pointwise y-MI (R, l) and y-CMI (R, R, l) with the test instance added as a
        pseudo training row of weight ``1/l`` in every class (Duan et al. 2019, Eq. 9).

        ``P(x_i, y) = (N(x_i, y) + 1/l) / (N + 1)``, ``P(x_i) = (N(x_i) + 1) / (N + 1)``,
        ``P(y) = (N(y) + 1/l) / (N + 1)``; ``P(x_i, x_j | y) = (N(x_i, x_j, y) + 1/l) /
        (N(y) + 1/l)`` and ``P(x_i | y) = (N(x_i, y) + 1/l) / (N(y) + 1/l)``. Every
        count is at the instance's own values, so both are tables over values.
        ``as_printed``: ``P(x_i) = (N(x_i) + 1/l) / (N + 1)``, Eq. 9 as printed (the
        pseudo-instance it describes adds 1 to ``N(x_i)``, its weight over all classes).
        """
        l = self.n_classes
        n = self.value_class
        total = np.add.reduceat(n, self.offsets, axis=0)[self.owner]  # (R, l) N(y), i known
        n_all = total.sum(axis=1, keepdims=True)
        p_xy = (n + 1.0 / l) / (n_all + 1)
        p_x = (n.sum(axis=1, keepdims=True) + (1.0 / l if as_printed else 1)) / (n_all + 1)
        p_y = (total + 1.0 / l) / (n_all + 1)
        ymi = np.log2(p_xy / (p_x * p_y))
        return ymi, self._pointwise_pair_ratio(1.0 / l, 1.0 / l, 1.0 / l)

    def target_weights(self, smoothing: str, m: float) -> tuple[np.ndarray, np.ndarray]:
        """The joint probabilities that weight the pointwise y-MI and y-CMI (Duan et al.
        2019, Eqs. 8 and 2): ``P(x_i, y)`` (R, l) and ``P(x_i, x_j, y)`` (R, R, l).

        ``smoothing="m-estimate"``: the estimates inside :meth:`pointwise_class_mi`
        and :meth:`conditional_pointwise_mi`, ``P(x_i, y) = (N(x_i, y) + m/(r_i l)) /
        (N + m)`` and ``P(x_i, x_j, y) = P(x_i, x_j | y) P(y)`` with ``P(x_i, x_j | y) =
        (N(x_i, x_j, y) + m/(r_i r_j)) / (N(y) + m)`` and ``P(y) = (N(y) + m/l) / (N + m)``.
        The pseudo-instance readings (Eq. 9): ``P(x_i, y) = (N(x_i, y) + 1/l) / (N + 1)``
        and ``P(x_i, x_j, y) = (N(x_i, x_j, y) + 1/l) / (N + 1)``. Counts are taken among
        the rows where the attribute (the pair) is known, as in the measures.
        """
        l = self.n_classes
        n = self.value_class
        total = np.add.reduceat(n, self.offsets, axis=0)[self.owner]  # (R, l) N(y), i known
        n_all = total.sum(axis=1, keepdims=True)
        _, pair_total = self._pair_marginals()
        o = self.owner
        n_pair = pair_total[o][:, o]  # (R, R, l): N(y) among rows with both known
        pair_all = n_pair.sum(axis=2, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            if smoothing == "m-estimate":
                r = self.cards[o].astype(float)
                single = (n + m / (r[:, None] * l)) / (n_all + m)
                joint = (self.blocks + (m / (r[:, None] * r[None, :]))[:, :, None]) / (n_pair + m)
                pair = joint * (n_pair + m / l) / (pair_all + m)
            else:
                single = (n + 1.0 / l) / (n_all + 1)
                pair = (self.blocks + 1.0 / l) / (pair_all + 1)
        return single, pair


# -- structures ------------------------------------------------------------------------
def local_kdb_parents(
    rank_scores: ArrayLike, pair_scores: np.ndarray, known: np.ndarray, k: int, *, positive_only: bool = False
) -> np.ndarray:
    """KDB parent sets for a batch of instance-specific rankings.

    Parameters
    ----------
    rank_scores : array (B, d)
        Attribute scores of each row (or model); attributes are ranked by
        descending score, the lower index first on ties.
    pair_scores : array (B, d, d)
        ``pair_scores[b, i, j]``: how strongly ``j`` qualifies as a parent of ``i``.
    known : bool array (B, d)
        Attributes in the structure; the others are unranked, parentless and
        nobody's parent.
    k : int
        Maximum number of parents.
    positive_only : bool
        Keep only candidates with a score > 0 (Duan et al. 2019, Algorithm 2: a
        non-positive pointwise y-CMI means "independent or irrelevant on this point").

    Returns
    -------
    parents : int array (B, d, k)
        Parent attributes of each attribute, ascending, padded with -1.

    Notes
    -----
    The attribute at rank p takes up to k of the attributes ranked before it
    with the highest score, the earlier-ranked first on ties (the rule of
    :func:`bnclf.learn.learn_kdb`). One vectorized step per rank position.
    """
    rank_scores = np.asarray(rank_scores, dtype=float)
    batch, d = rank_scores.shape
    parents = np.full((batch, d, max(k, 0)), -1, dtype=np.int64)
    if k <= 0 or d < 2:
        return parents
    order = np.argsort(np.where(known, -rank_scores, np.inf), axis=1, kind="stable")
    rows = np.arange(batch)
    for p in range(1, d):
        child = order[:, p]
        cand = order[:, :p]
        s = pair_scores[rows[:, None], child[:, None], cand]
        valid = known[rows[:, None], cand] & known[rows, child][:, None]
        if positive_only:
            valid &= s > 0
        s = np.where(valid & ~np.isnan(s), s, -np.inf)
        take = min(k, p)
        if take == 1:
            pick = np.argmax(np.where(valid, s, -np.inf), axis=1)[:, None]
        else:
            pick = np.argsort(-s, axis=1, kind="stable")[:, :take]
        chosen = np.take_along_axis(cand, pick, axis=1)
        chosen = np.where(np.take_along_axis(valid, pick, axis=1), chosen, d)
        chosen = np.sort(chosen, axis=1)
        parents[rows, child, :take] = np.where(chosen == d, -1, chosen)
    return parents


def local_tree_parents(weights: np.ndarray, roots: np.ndarray | int, known: np.ndarray) -> np.ndarray:
    """Maximum spanning trees over each row's known attributes: parents (B, d), -1 for none."""
    from bnclf.learn._restricted import maximum_spanning_arborescence

    return maximum_spanning_arborescence(weights, roots, active=known)


def tree_roots(scores: np.ndarray, known: np.ndarray) -> np.ndarray:
    """The known attribute with the largest score per row (lowest index on ties)."""
    return np.argmax(np.where(known, scores[None, :], -np.inf), axis=1)


def _flat_keys(keys: np.ndarray, base: int):
    """One int64 per row of a non-negative integer array (values < ``base``), or None
    when the rows do not fit in 62 bits."""
    if base ** keys.shape[1] >= 2**62:
        return None
    flat = np.zeros(len(keys), dtype=np.int64)
    for col in keys.T:
        flat = flat * base + col
    return flat


def _unique_rows(keys: np.ndarray, base: int):
    """Distinct rows of a non-negative integer array (values < ``base``) and the inverse map."""
    flat = _flat_keys(keys, base)
    if flat is not None:
        _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        return keys[first], inverse.reshape(-1)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1)


# -- counting per-row families ----------------------------------------------------------------
class MatchCounter:
    """Class-wise counts of the training rows that match a few (attribute, value) conditions.

    Training rows are sorted by class and each class's rows padded to a multiple
    of 64, so the rows with a given attribute value form a bitset of ``W``
    64-bit words whose class segments are whole words. The count of a family at
    one instance's values in every class is the popcount of the AND of a few
    bitsets, summed per class segment: ``O((k + 1) W)`` word operations, for any
    number of parents.

    Bitset index ``offsets[i] + v`` is "attribute i has value v";
    ``R + i`` is "attribute i is known"; ``R + d`` is every row.
    """

    def __init__(self, data: DiscreteData) -> None:
        codes, y = np.asarray(data.codes), np.asarray(data.y)
        d, l = data.n_features, int(data.n_classes)
        cards = np.asarray(data.cardinalities, dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
        width = int(cards.sum())
        class_rows = [np.flatnonzero(y == c) for c in range(l)]
        sizes = np.array([max(1, -(-len(r) // 64)) * 64 for r in class_rows], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        n_bits = int(sizes.sum()) or 64
        self.n_words = n_bits // 64
        self.class_word_starts = (starts // 64).astype(np.int64)
        self.n_classes = l
        position = np.empty(len(y), dtype=np.int64)
        for c, rows in enumerate(class_rows):
            position[rows] = starts[c] + np.arange(len(rows))
        bits = np.zeros((width + d + 1, self.n_words), dtype=np.uint64)
        for i in range(d):
            onehot = np.zeros((n_bits, int(cards[i]) + 1), dtype=bool)
            col = codes[:, i]
            onehot[position, np.where(col >= 0, col, cards[i])] = True
            packed = np.packbits(onehot, axis=0, bitorder="little")  # (n_bits/8, r_i + 1)
            words = np.ascontiguousarray(packed.T).view(np.uint64)  # (r_i + 1, W)
            bits[self.offsets[i] : self.offsets[i] + cards[i]] = words[:-1]
            bits[width + i] = np.bitwise_or.reduce(words[:-1], axis=0)
        every = np.zeros(n_bits, dtype=bool)
        every[position] = True
        bits[width + d] = np.packbits(every, bitorder="little").view(np.uint64)
        self.bits = bits
        self.width, self.n_features = width, d

    def counts(self, index: np.ndarray) -> np.ndarray:
        """Counts ``(F, n_classes)`` of the rows matching every bitset named in ``index`` (F, q)."""
        index = np.asarray(index, dtype=np.int64)
        out = np.empty((len(index), self.n_classes))
        step = max(1, (1 << 21) // max(1, self.n_words))
        for start in range(0, len(index), step):
            part = index[start : start + step]
            acc = self.bits[part[:, 0]]
            for q in range(1, part.shape[1]):
                acc &= self.bits[part[:, q]]
            # popcount per word, summed per class segment by one small matrix product
            out[start : start + step] = np.bitwise_count(acc).astype(np.float32) @ self._segments
        return out

    @property
    def _segments(self) -> np.ndarray:
        """Indicator ``(W, n_classes)`` of the words of each class segment."""
        if getattr(self, "_segment_matrix", None) is None:
            owner = np.searchsorted(self.class_word_starts, np.arange(self.n_words), side="right") - 1
            self._segment_matrix = np.eye(self.n_classes, dtype=np.float32)[owner]
        return self._segment_matrix


class LocalParameters:
    """``log P(x_i | x_pa, c)`` at each row's own values for families chosen per row.

    The values equal the entries of :func:`bnclf.learn.m_estimated_log_cpts`
    for the same family, so a per-row network built from them is the network
    ``explain`` exports. No parent: the attribute-class table; one parent: the
    all-pairs table of :func:`bnclf.learn._parameters.child_given_pair_log_cpts`; more:
    :class:`MatchCounter` counts, each distinct family counted once per batch and
    remembered for the later chunks of the same call (:meth:`forget` ends a call).
    """

    def __init__(self, data: DiscreteData, cache: CountCache, m: float) -> None:
        d, c = cache.n_features, cache.class_index
        self.m = float(m)
        self.cards = cache.cardinalities[:d].astype(np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.cards)[:-1]]).astype(np.int64)
        tables = m_estimated_log_cpts(cache, [(i, c) for i in range(d)], m)
        self.single = np.concatenate(tables)  # (R, l)
        self.class_log_prior = m_estimated_log_cpts(cache, [(c,)], m)[0]
        self._cache, self._data = cache, data
        self._pairs = None
        self._counter = None
        self._memo = {}  # parents + 1 -> (sorted flat family keys, log-CPT rows)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_memo"] = {}
        return state

    def forget(self) -> None:
        """Drop the family counts remembered between chunks."""
        self._memo = {}

    @property
    def pairs(self) -> np.ndarray:
        if self._pairs is None:
            cards = self.cards.astype(float)
            self._pairs = child_given_pair_log_cpts(self._cache, self.m / cards, self.m)[0]
        return self._pairs

    @property
    def counter(self) -> MatchCounter:
        if self._counter is None:
            self._counter = MatchCounter(self._data)
        return self._counter

    def entries(
        self, codes: np.ndarray, rows: ArrayLike, child: ArrayLike, parents: ArrayLike, labels: ArrayLike | None = None
    ) -> np.ndarray:
        """Log-CPT entries of per-row families.

        Parameters
        ----------
        codes : int array (B, d)
            Coded rows of the batch.
        rows, child : int arrays (F,)
            Row of the batch and child attribute of each request (the child's
            value must be known).
        parents : int array (F, k)
            Parent attributes, valid ones first, padded with -1.
        labels : int array (F,), optional
            Return only this class's entry per request.

        Returns
        -------
        array (F, n_classes), or (F,) with ``labels``.
        """
        rows, child = np.asarray(rows), np.asarray(child)
        parents = np.asarray(parents).reshape(len(child), -1)
        n_par = (parents >= 0).sum(axis=1)
        value = self.offsets[child] + codes[rows, child]
        out = np.empty((len(child), self.single.shape[1]))
        sel = n_par == 0
        out[sel] = self.single[value[sel]]
        sel = n_par == 1
        if sel.any():
            p = parents[sel, 0]
            out[sel] = self.pairs[value[sel], self.offsets[p] + codes[rows[sel], p]]
        sel = n_par >= 2
        if sel.any():
            out[sel] = self._counted(codes, rows[sel], child[sel], parents[sel])
        if labels is None:
            return out
        return out[np.arange(len(out)), np.asarray(labels)]

    def _counted(self, codes, rows, child, parents) -> np.ndarray:
        counter = self.counter
        valid = parents >= 0
        pv = np.where(
            valid,
            self.offsets[np.maximum(parents, 0)] + codes[rows[:, None], np.maximum(parents, 0)],
            counter.width + counter.n_features,
        )
        value = self.offsets[child] + codes[rows, child]
        keys = np.column_stack([value, pv])  # a flat value index names its attribute too
        unique, inverse = _unique_rows(keys, counter.width + counter.n_features + 1)
        tables = self._memo.get(unique.shape[1])
        if tables is not None:  # counted in an earlier chunk: reuse (rows share values)
            known_keys, known_vals = tables
            flat = _flat_keys(unique, counter.width + counter.n_features + 1)
            pos = np.minimum(np.searchsorted(known_keys, flat), len(known_keys) - 1)
            hit = known_keys[pos] == flat if len(known_keys) else np.zeros(len(flat), bool)
        else:
            hit = np.zeros(len(unique), bool)
        out = np.empty((len(unique), counter.n_classes))
        if hit.any():
            out[hit] = known_vals[pos[hit]]
        if (~hit).any():
            out[~hit] = self._count_families(unique[~hit])
            self._remember(unique[~hit], out[~hit])
        return out[inverse]

    def _remember(self, unique, values):
        base = self.counter.width + self.counter.n_features + 1
        flat = _flat_keys(unique, base)
        if flat is None:
            return
        old = self._memo.get(unique.shape[1])
        if old is not None:
            flat = np.concatenate([old[0], flat])
            values = np.concatenate([old[1], values])
        if flat.size * values.shape[1] > _MEMO_CELLS:
            self._memo.pop(unique.shape[1], None)
            return
        order = np.argsort(flat, kind="stable")
        self._memo[unique.shape[1]] = (flat[order], values[order])

    def _count_families(self, unique) -> np.ndarray:
        """Log-CPT entries ``(F, l)`` of families given as rows ``(child value, *parent values)``."""
        counter = self.counter
        numerator = counter.counts(unique)
        child_u = np.searchsorted(self.offsets, unique[:, 0], side="right") - 1
        denominator = np.empty_like(numerator)
        # two parents and a child never unknown in training: N(pa, c) is a pair count
        pair = (
            (unique[:, 3:] == counter.width + counter.n_features).all(axis=1)
            if unique.shape[1] > 3
            else np.ones(len(unique), bool)
        )
        pair &= ~self._cache.has_unknown[child_u] & (unique[:, 2] < counter.width)
        if pair.any():
            blocks = self._cache.pair_blocks()[0]
            denominator[pair] = blocks[unique[pair, 1], unique[pair, 2]]
        rest = ~pair
        if rest.any():
            denominator[rest] = counter.counts(np.column_stack([counter.width + child_u[rest], unique[rest, 1:]]))
        r = self.cards[child_u].astype(float)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            table = np.where(
                denominator + self.m > 0, np.log(numerator + self.m / r) - np.log(denominator + self.m), -np.log(r)
            )
        return table

    def joint_log(self, codes: np.ndarray, parents: ArrayLike, labels: ArrayLike | None = None) -> np.ndarray:
        """``log P(c) + sum over known i of log P(x_i | x_pa(i), c)`` for per-row structures.

        ``parents`` is ``(B, M, d, k)`` (M structures per row) or ``(B, d, k)``;
        returns ``(B, M, l)`` / ``(B, l)``, or with ``labels`` (B, M) the entry of
        each structure's own label only: ``(B, M)``.
        """
        parents = np.asarray(parents)
        squeeze = parents.ndim == 3
        if squeeze:
            parents = parents[:, None]
        batch, n_models, d, k = parents.shape
        known = codes >= 0
        b, mdl, i = np.nonzero(np.broadcast_to(known[:, None, :], (batch, n_models, d)))
        lab = None if labels is None else np.asarray(labels)[b, mdl]
        terms = self.entries(codes, b, i, parents[b, mdl, i], lab)
        n_classes = len(self.class_log_prior)
        full = np.zeros((batch, n_models, d) + (() if labels is not None else (n_classes,)))
        full[b, mdl, i] = terms
        if labels is None:
            out = self.class_log_prior + full.sum(axis=2)
        else:
            out = self.class_log_prior[np.asarray(labels)] + full.sum(axis=2)
        return out[:, 0] if squeeze else out
