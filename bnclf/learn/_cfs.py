"""Correlation-based feature selection (CFS) over integer codes.

CFS (Hall 1999) scores a feature subset ``S`` of size ``k`` by its *merit*

.. math::

    \\mathrm{merit}(S) = \\frac{k\\,\\overline{r_{cf}}}{\\sqrt{k + k(k-1)\\,\\overline{r_{ff}}}}

where :math:`\\overline{r_{cf}}` is the mean symmetric uncertainty (SU) between the
features of ``S`` and the target and :math:`\\overline{r_{ff}}` the mean SU over the
pairs of distinct features of ``S``: a good subset holds features that predict the
target and do not predict each other. The subset is found by a forward best-first
search, as in Weka's ``CfsSubsetEval`` with ``BestFirst`` (Witten & Frank, *Data
Mining*, ch. 7.1). Corani et al. (2014) run CFS once per label of a multilabel
problem and keep the union of the selections; the feature-feature SU matrix does not
depend on the label, so :func:`symmetric_uncertainty_matrix` is computed once and
passed to every :func:`cfs_select` call.

Everything here is a pure function of integer codes ``0 .. r_j - 1`` (no missing
values: a caller that has them codes them as a category of their own).

Notes
-----
*Ties.* Of two identical columns :func:`cfs_select` takes the lower-index one: a subset
holding the other copy instead has the same merit and is evaluated later. (Both copies
can be selected together when that raises the merit, e.g. next to weakly relevant
features.)

*The improvement tolerance* matters on many weakly relevant features: tiny merit gains
from features of small SU keep resetting the stale counter under ``1e-12``.

*Missing values.* Coding a missing value as a state of its own is Weka's ``-M`` option
("treat missing as a separate value"); by default Weka instead spreads the counts of
missing values over the observed states, so on data with missing values Weka without
``-M`` can select differently. Weka also discretizes numeric attributes (Fayyad-Irani
MDL) before computing SU; here the caller discretizes.

*Locally predictive features.* A candidate is rejected only if some selected feature
is *more* correlated with it than the target is. Weka does not add features with zero
SU with the target either, through its rule that a zero feature-feature SU counts as 1.

*Weka compatibility.* Merits may still differ from Weka's in the last bits (Weka sums
the terms in index order), which matters only for exact ties. Of the differences
``weka_compatible`` applies, (4), Weka's near-zero SU, changes selections most: Weka
treats two independent features as fully redundant, so it never pairs exactly
independent predictors and, on many weakly relevant features, stops far earlier (the
plain search keeps adding features whose small SU with the target still raises the
merit).

References
----------
M. A. Hall (1999). *Correlation-based feature selection for machine learning*. PhD
thesis, Department of Computer Science, University of Waikato, Hamilton, New Zealand.

G. Corani, A. Antonucci, D. D. Mauá and S. Gabaglio (2014). Trading off speed and
accuracy in multilabel classification. In *Probabilistic Graphical Models (PGM 2014)*,
LNCS 8754, pp. 145-159. Springer.

I. H. Witten and E. Frank (2005). *Data Mining: Practical Machine Learning Tools and
Techniques*, 2nd ed., section 7.1. Morgan Kaufmann.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from bnclf._config import row_chunks
from bnclf._entropy import xlogx

__all__ = [
    "MAX_BLOCK_CELLS",
    "MIN_IMPROVEMENT",
    "cfs_merit",
    "cfs_select",
    "symmetric_uncertainty_matrix",
    "symmetric_uncertainty_with",
]


MAX_BLOCK_CELLS = 2**26
"""Largest temporary array (cells) built while counting pairs: one-hot rows and count blocks."""


MIN_IMPROVEMENT = 1e-12
"""A child replaces the best subset only if its merit exceeds the best merit by more than this."""


_WEKA_MIN_IMPROVEMENT = 1e-5  # BestFirst: (merit - best_merit) > 0.00001


_WEKA_ZERO = 1e-6  # weka.core.Utils.eq(a, 0): |a| < 1e-6


_ZERO_INFO_ULPS = 64  # |N I| below this many ulps of N ln N is rounding noise: I = 0


def _check_codes(codes, cardinalities, what: str = "codes") -> tuple[np.ndarray, np.ndarray]:
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (n_rows, n_features); got shape {codes.shape}.")
    if codes.dtype == bool:
        codes = codes.astype(np.int64)
    if not np.issubdtype(codes.dtype, np.integer):
        raise ValueError(f"{what} must hold integer codes; got dtype {codes.dtype}.")
    cards = np.asarray(cardinalities)
    if cards.shape != (codes.shape[1],):
        raise ValueError(f"cardinalities must have one entry per column ({codes.shape[1]}); got shape {cards.shape}.")
    if not np.issubdtype(cards.dtype, np.integer):
        if not np.all(np.equal(np.mod(cards, 1), 0)):
            raise ValueError("cardinalities must be integers.")
    cards = cards.astype(np.int64)
    if (cards < 1).any():
        bad = int(np.flatnonzero(cards < 1)[0])
        raise ValueError(f"cardinality of column {bad} is {cards[bad]}; every column needs at least one state.")
    codes = codes.astype(np.int64, copy=False)
    if codes.size:
        if codes.min() < 0:
            bad = int(np.flatnonzero((codes < 0).any(axis=0))[0])
            raise ValueError(f"column {bad} has a negative code; code missing values as a category of their own.")
        over = codes.max(axis=0) >= cards
        if over.any():
            bad = int(np.flatnonzero(over)[0])
            raise ValueError(f"column {bad} has code {int(codes[:, bad].max())} >= its cardinality {cards[bad]}.")
    return codes, cards


def _check_target(target, n_target_values, n_rows: int) -> tuple[np.ndarray, int]:
    target = np.asarray(target)
    if target.ndim != 1 or target.shape[0] != n_rows:
        raise ValueError(f"target must be a 1-D array of {n_rows} codes; got shape {target.shape}.")
    codes, cards = _check_codes(target[:, None], [n_target_values], what="target")
    return codes[:, 0], int(cards[0])


def _starts(cards: np.ndarray) -> np.ndarray:
    """Offset of each column's first indicator in the one-hot layout."""
    return np.concatenate(([0], np.cumsum(cards)[:-1])).astype(np.int64)


def _one_hot(codes: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """Indicator matrix (rows x width), float64: column ``starts[j] + codes[:, j]`` is 1."""
    z = np.zeros((codes.shape[0], width), dtype=np.float64)
    if codes.size:
        z[np.arange(codes.shape[0])[:, None], codes + starts] = 1.0
    return z


def _marginal_terms(codes: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """``sum_a n_a ln n_a`` for every column (n_a: count of state a)."""
    starts = _starts(cards)
    counts = np.bincount((codes + starts).ravel(), minlength=int(cards.sum())).astype(np.float64)
    return np.add.reduceat(xlogx(counts), starts)


def _su_from_terms(joint: np.ndarray, m_a: np.ndarray, m_b: np.ndarray, n_rows: int) -> np.ndarray:
    """SU from ``sum n ln n`` of the joint tables (``joint``, shape (a, b)) and of the
    marginals (``m_a``, ``m_b``), with ``N ln N`` from ``n_rows``."""
    total = float(xlogx(np.array([float(n_rows)]))[0])
    h_a = total - m_a  # N H(A)
    h_b = total - m_b
    info = joint - m_a[:, None] - m_b[None, :] + total  # N I(A; B)
    info[np.abs(info) <= _ZERO_INFO_ULPS * np.finfo(np.float64).eps * max(total, 1.0)] = 0.0
    denom = h_a[:, None] + h_b[None, :]
    su = np.zeros(info.shape, dtype=np.float64)
    np.divide(2.0 * info, denom, out=su, where=denom > 0)
    return np.clip(su, 0.0, 1.0)


def symmetric_uncertainty_matrix(
    codes: ArrayLike, cardinalities: ArrayLike, *, max_block_cells: int = MAX_BLOCK_CELLS
) -> np.ndarray:
    """Symmetric uncertainty between every pair of columns.

    .. math:: SU(X_i, X_j) = \\frac{2\\, I(X_i; X_j)}{H(X_i) + H(X_j)}

    with empirical frequencies and ``0 ln 0 = 0`` (the log base cancels).

    Parameters
    ----------
    codes : array of int, shape (n_rows, d)
        Codes ``0 .. cardinalities[j] - 1``; no negative codes (code missing values as
        a category of their own).
    cardinalities : array of int, shape (d,)
        Number of states of each column (states that never occur are allowed).
    max_block_cells : int, default=MAX_BLOCK_CELLS
        Largest temporary array, in cells (float64): the one-hot indicator rows and
        each block of pair counts are cut so as not to exceed it (one block always
        holds at least one column, or one row, whatever the bound).

    Returns
    -------
    su : ndarray of float64, shape (d, d)
        Symmetric, entries in ``[0, 1]``; ``su[i, i]`` is 1 for a column with positive
        entropy and 0 for a constant column.

    Notes
    -----
    All pair count tables come from one product of one-hot indicator matrices
    :math:`Z^\\top Z` (float64, so counts are exact integers), computed for a block of
    columns against all later columns at a time; the entropy sums
    :math:`\\sum n \\ln n` of the tables are reduced per column pair with
    ``np.add.reduceat``. No Python loop runs over pairs or rows.

    ``SU = 0`` when :math:`H(X_i) + H(X_j) = 0` (both columns constant) and also, since
    then :math:`I = 0`, when one of them is constant. A value of :math:`N\\,I` within
    rounding error of zero (at most 64 ulps of :math:`N \\ln N`) is set to exactly 0,
    so exactly independent columns get ``SU = 0``; results are clipped to ``[0, 1]``.
    The diagonal is set exactly (1 or 0) rather than computed.
    """
    codes, cards = _check_codes(codes, cardinalities)
    n_rows, d = codes.shape
    su = np.zeros((d, d), dtype=np.float64)
    if d == 0:
        return su
    starts = _starts(cards)
    width = int(cards.sum())
    marg = _marginal_terms(codes, cards)
    one_hot_once = n_rows * width <= max_block_cells
    z_all = _one_hot(codes, starts, width) if one_hot_once else None

    # column blocks: rows [a, b) of the pair table against columns [a, d)
    a = 0
    while a < d:
        rest = width - starts[a]
        b = a + 1
        while b < d and (starts[b] + cards[b] - starts[a]) * rest <= max_block_cells:
            b += 1
        lo, mid = int(starts[a]), int(starts[b]) if b < d else width
        counts = np.zeros((mid - lo, width - lo), dtype=np.float64)
        if one_hot_once:
            counts += z_all[:, lo:mid].T @ z_all[:, lo:]
        else:
            for rows in row_chunks(n_rows, width - lo, max_block_cells):
                z = _one_hot(codes[rows, a:], starts[a:] - lo, width - lo)
                counts += z[:, : mid - lo].T @ z
        terms = np.add.reduceat(np.add.reduceat(xlogx(counts), starts[a:b] - lo, axis=0), starts[a:] - lo, axis=1)
        block = _su_from_terms(terms, marg[a:b], marg[a:], n_rows)
        su[a:b, a:] = block
        a = b
    upper = np.triu_indices(d, 1)
    su[upper[1], upper[0]] = su[upper]  # one value per pair: exactly symmetric
    np.fill_diagonal(su, (marg < float(xlogx(np.array([float(n_rows)]))[0])).astype(np.float64))
    return su


def symmetric_uncertainty_with(
    codes: ArrayLike,
    cardinalities: ArrayLike,
    target: ArrayLike,
    n_target_values: int,
    *,
    max_block_cells: int = MAX_BLOCK_CELLS,
) -> np.ndarray:
    """Symmetric uncertainty between every column and one target column.

    Parameters
    ----------
    codes : array of int, shape (n_rows, d)
        Codes ``0 .. cardinalities[j] - 1`` (no negative codes).
    cardinalities : array of int, shape (d,)
    target : array of int, shape (n_rows,)
        Target codes ``0 .. n_target_values - 1``.
    n_target_values : int
    max_block_cells : int, default=MAX_BLOCK_CELLS
        Largest one-hot temporary (cells); rows are processed in blocks below it.

    Returns
    -------
    su : ndarray of float64, shape (d,)
        ``SU(X_j, target)``, in ``[0, 1]``; 0 for a constant column or a constant target.

    Notes
    -----
    Same definition and rounding rules as :func:`symmetric_uncertainty_matrix`; the
    counts of all (column, target) tables come from one product of one-hot matrices.
    """
    codes, cards = _check_codes(codes, cardinalities)
    n_rows, d = codes.shape
    target, r_t = _check_target(target, n_target_values, n_rows)
    if d == 0:
        return np.zeros(0, dtype=np.float64)
    starts = _starts(cards)
    width = int(cards.sum())
    counts = np.zeros((width, r_t), dtype=np.float64)
    for rows in row_chunks(n_rows, width + r_t, max_block_cells):
        z = _one_hot(codes[rows], starts, width)
        t = _one_hot(target[rows, None], np.zeros(1, dtype=np.int64), r_t)
        counts += z.T @ t
    joint = np.add.reduceat(xlogx(counts), starts, axis=0).sum(axis=1)
    m_t = _marginal_terms(target[:, None], np.array([r_t]))
    return _su_from_terms(joint[:, None], _marginal_terms(codes, cards), m_t, n_rows)[:, 0]


def cfs_merit(subset: Iterable[int], su: ArrayLike, su_target: ArrayLike) -> float:
    """Hall's merit of one feature subset.

    Parameters
    ----------
    subset : iterable of int
        Column indices (duplicates are ignored).
    su : array, shape (d, d)
        Feature-feature symmetric uncertainty (:func:`symmetric_uncertainty_matrix`).
    su_target : array, shape (d,)
        Feature-target symmetric uncertainty (:func:`symmetric_uncertainty_with`).

    Returns
    -------
    float
        :math:`\\sum_{f \\in S} SU(f, c) / \\sqrt{k + 2 \\sum_{\\{f, g\\} \\subseteq S} SU(f, g)}`,
        which equals :math:`k \\overline{r_{cf}} / \\sqrt{k + k(k-1) \\overline{r_{ff}}}`;
        0 for the empty set.
    """
    idx = np.array(sorted({int(f) for f in subset}), dtype=np.intp)
    if idx.size == 0:
        return 0.0
    su = np.asarray(su, dtype=np.float64)
    pairs = np.triu(su[np.ix_(idx, idx)], 1).sum()
    denom = idx.size + 2.0 * pairs
    return float(np.asarray(su_target, dtype=np.float64)[idx].sum() / np.sqrt(denom)) if denom > 0 else 0.0


def _improve(merits: np.ndarray, best_merit: float, tol: float) -> tuple[int, float]:
    """Scan children in order; each one whose merit exceeds the current best by more
    than ``tol`` becomes the best. Returns (position of the last such child or -1, best)."""
    chosen, pos = -1, 0
    while True:
        hits = np.flatnonzero(merits[pos:] - best_merit > tol)
        if hits.size == 0:
            return chosen, best_merit
        chosen = pos + int(hits[0])
        best_merit = float(merits[chosen])
        pos = chosen + 1


class _Expanded:
    """Subsets already expanded, kept as boolean masks grouped by size; a child
    ``S + {f}`` was generated before iff an expanded ``E`` of the same size as ``S``
    has ``E = S - {g} + {f}``."""

    def __init__(self, d: int):
        self.d = d
        self.masks: dict[int, np.ndarray] = {}
        self.count: dict[int, int] = {}

    def generated_before(self, subset: np.ndarray) -> np.ndarray:
        k = subset.size
        n = self.count.get(k, 0)
        if k == 0 or n == 0:
            return np.zeros(0, dtype=np.intp)
        masks = self.masks[k][:n]
        rows = masks[:, subset].sum(axis=1) == k - 1
        if not rows.any():
            return np.zeros(0, dtype=np.intp)
        extra = masks[rows].copy()
        extra[:, subset] = False
        return np.flatnonzero(extra.any(axis=0))

    def add(self, subset: np.ndarray) -> None:
        k = subset.size
        n = self.count.get(k, 0)
        masks = self.masks.get(k)
        if masks is None or n == masks.shape[0]:
            grown = np.zeros((max(8, 2 * n), self.d), dtype=bool)
            if masks is not None:
                grown[:n] = masks[:n]
            self.masks[k] = masks = grown
        masks[n] = False
        masks[n, subset] = True
        self.count[k] = n + 1


def _children(subset: np.ndarray, t: float, p: float, su: np.ndarray, su_target: np.ndarray):
    """Target sums, pair sums and merits of ``subset + {f}`` for every feature f."""
    k = subset.size
    t_all = t + su_target
    p_all = p + (su[:, subset].sum(axis=1) if k else np.zeros(su.shape[0]))
    merits = t_all / np.sqrt((k + 1) + 2.0 * p_all)
    return t_all, p_all, merits


def _search_open(su, su_target, max_stale: int, tol: float) -> tuple[tuple[int, ...], float]:
    """Best-first search with an unbounded open list and no repeated subsets.

    The open list is stored compactly (per expansion, its children's merits in numpy
    arrays), each subset is evaluated once, and a child's merit is updated from its
    parent's sums in O(k) per child, vectorized over all children of a parent.
    """
    d = su.shape[0]
    expanded = _Expanded(d)
    best, best_merit, stale = (), 0.0, 0
    # batches of children, one per expansion: (parent, feats, merits, t, p) sorted by (-merit, feature)
    # the heap holds the next child of every batch: (-merit, batch, feature), i.e. ties first-in
    # first-out (earlier expansion first, then lower feature); the root is batch -1
    batches: list[tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None] = []
    cursors: list[int] = []
    heap: list[tuple[float, int, int]] = [(-0.0, -1, -1)]
    while stale < max_stale and heap:
        _, bid, f = heapq.heappop(heap)
        if bid < 0:
            subset, t, p = (), 0.0, 0.0
        else:
            parent, feats, merits, ts, ps = batches[bid]
            pos = cursors[bid]
            subset = tuple(sorted(parent + (f,)))
            t, p = float(ts[pos]), float(ps[pos])
            cursors[bid] = pos + 1
            if pos + 1 < feats.size:
                heapq.heappush(heap, (-float(merits[pos + 1]), bid, int(feats[pos + 1])))
            else:
                batches[bid] = None  # all its children are taken
        members = np.array(subset, dtype=np.intp)
        keep = np.ones(d, dtype=bool)
        keep[members] = False
        keep[expanded.generated_before(members)] = False
        expanded.add(members)
        cand = np.flatnonzero(keep)
        t_all, p_all, m_all = _children(members, t, p, su, su_target)
        merits = m_all[cand]
        chosen, best_merit = _improve(merits, best_merit, tol)
        if chosen >= 0:
            best, stale = tuple(sorted(subset + (int(cand[chosen]),))), 0
        else:
            stale += 1
        if cand.size:
            order = np.argsort(-merits, kind="stable")
            feats = cand[order]
            bid = len(batches)
            batches.append((subset, feats, merits[order], t_all[feats], p_all[feats]))
            cursors.append(0)
            heapq.heappush(heap, (-float(merits[order[0]]), bid, int(feats[0])))
    return best, best_merit


def _search_weka(su, su_target, max_stale: int, tol: float) -> tuple[tuple[int, ...], float]:
    """Weka's BestFirst: open list of at most ``max_stale`` entries, every child (seen
    or not) inserted into it."""
    d = su.shape[0]
    best, best_merit, stale, seq = (), 0.0, 0, 0
    open_list: list[tuple[float, int, tuple[int, ...], float, float]] = [(0.0, 0, (), 0.0, 0.0)]
    while stale < max_stale and open_list:
        _, _, subset, t, p = open_list.pop(0)
        members = np.array(subset, dtype=np.intp)
        keep = np.ones(d, dtype=bool)
        keep[members] = False
        cand = np.flatnonzero(keep)
        t_all, p_all, m_all = _children(members, t, p, su, su_target)
        merits = m_all[cand]
        chosen, best_merit = _improve(merits, best_merit, tol)
        if chosen >= 0:
            best, stale = tuple(sorted(subset + (int(cand[chosen]),))), 0
        else:
            stale += 1
        top = np.argsort(-merits, kind="stable")[:max_stale]
        for i in np.sort(top):  # insertion in feature order, as Weka inserts them
            seq += 1
            f = int(cand[i])
            open_list.append((float(merits[i]), seq, tuple(sorted(subset + (f,))), float(t_all[f]), float(p_all[f])))
        open_list.sort(key=lambda e: (-e[0], e[1]))
        del open_list[max_stale:]
    return best, best_merit


def _weka_correlations(su: np.ndarray, su_target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SU as Weka's CfsSubsetEval uses it: near-zero (|SU| < 1e-6) feature-target SU is
    0, near-zero feature-feature SU is 1, and all values are stored as float32."""
    su = np.where(np.abs(su) < _WEKA_ZERO, 1.0, su).astype(np.float32).astype(np.float64)
    su_target = np.where(np.abs(su_target) < _WEKA_ZERO, 0.0, su_target).astype(np.float32).astype(np.float64)
    return su, su_target


def _locally_predictive(selected, su, su_target, require_positive: bool) -> list[int]:
    chosen = list(selected)
    in_set = np.zeros(su.shape[0], dtype=bool)
    in_set[chosen] = True
    order = np.lexsort((np.arange(su.shape[0]), -su_target))  # descending SU with target, lower index first
    for j in order:
        if in_set[j]:
            continue
        if require_positive and su_target[j] <= 0:
            break
        if not chosen or np.all(su[chosen, j] <= su_target[j]):
            chosen.append(int(j))
            in_set[j] = True
    return chosen


def cfs_select(
    codes: ArrayLike | None,
    cardinalities: ArrayLike | None,
    target: ArrayLike | None,
    n_target_values: int | None,
    *,
    max_stale: int = 5,
    su: ArrayLike | None = None,
    su_target: ArrayLike | None = None,
    locally_predictive: bool = False,
    weka_compatible: bool = False,
    min_improvement: float | None = None,
) -> list[int]:
    """Correlation-based feature selection: best-first forward search for the subset of
    highest merit (Hall 1999).

    Parameters
    ----------
    codes : array of int, shape (n_rows, d), or None
        Feature codes ``0 .. cardinalities[j] - 1`` (no negative codes). May be None
        when both ``su`` and ``su_target`` are given.
    cardinalities : array of int, shape (d,), or None
    target : array of int, shape (n_rows,), or None
        Target codes ``0 .. n_target_values - 1``; may be None when ``su_target`` is given.
    n_target_values : int or None
    max_stale : int, default=5
        Stop after this many consecutive expansions that did not improve the best subset
        (Weka's ``searchTermination``).
    su : array, shape (d, d), optional
        Precomputed :func:`symmetric_uncertainty_matrix` of ``codes``, shared by the calls
        on the same features (e.g. one per label).
    su_target : array, shape (d,), optional
        Precomputed :func:`symmetric_uncertainty_with` of ``codes`` and ``target``.
    locally_predictive : bool, default=False
        After the search, add locally predictive features (Weka's ``locallyPredictive``
        option, on by default in Weka); see Notes.
    weka_compatible : bool, default=False
        Reproduce Weka's ``CfsSubsetEval`` + ``BestFirst`` (3.6 to 3.8) exactly rather
        than the plain search described here; see Notes.
    min_improvement : float, optional
        How much a child's merit must exceed the best merit to replace it; default
        ``1e-12`` (``MIN_IMPROVEMENT``), or Weka's ``1e-5`` when ``weka_compatible``
        (see the module notes).

    Returns
    -------
    list of int
        Selected columns, ascending; empty if no feature has positive SU with the target.

    Notes
    -----
    *Merit.* ``merit(S) = sum_{f in S} SU(f, c) / sqrt(k + 2 sum_{f<g in S} SU(f, g))``
    (Hall's merit); the diagonal of ``su`` is never used. The empty set has merit 0
    and is where the search starts (Weka's evaluator returns 0 for a zero denominator).

    *Search.* The open list starts with the empty set. Each step removes the open subset
    of highest merit and *expands* it: every one-feature-larger child not generated
    before is evaluated and put on the open list. Children are then scanned in
    ascending order of the added feature and each one whose merit exceeds the best merit
    so far by more than ``min_improvement`` (default ``1e-12``) becomes the best subset
    (Weka's sequential rule; with this tolerance it amounts to taking the best child,
    lower index on ties). If the expansion produced a new best subset the stale counter
    is reset to 0, otherwise it is incremented (also when the subset had no new
    children); the search stops when the counter reaches ``max_stale`` or the open list
    is empty. The open list is unbounded and each subset is evaluated once. With
    ``max_stale`` above ``2**d`` the search is exhaustive.

    *Ties.* Open subsets of equal merit are expanded first-in first-out (a parent's
    children in ascending order of the added feature). Among children of equal merit
    the lower added feature becomes the best; in general, among subsets whose merits
    differ by at most ``min_improvement`` the one evaluated first is kept.

    *Locally predictive features.* If ``locally_predictive``, the features not selected
    are visited in descending order of SU with the target (lower index first on ties)
    and each is added when its SU with the target is at least its SU with every feature
    selected so far, including those added by this rule (Weka's ``addLocallyPredictive``).
    Features with zero SU with the target are not added.

    *Weka compatibility.* ``weka_compatible=True`` applies the remaining differences of
    Weka's implementation: (1) the open list holds at most ``max_stale`` subsets, the
    lowest merits (the latest inserted among equals) being dropped; (2) a child that
    was generated before is put on the open list again (Weka's cache only saves its
    re-evaluation), so one subset can be expanded more than once; (3) the improvement
    tolerance defaults to ``1e-5``; (4) feature-target SU below ``1e-6`` counts as 0 and
    feature-feature SU below ``1e-6`` counts as 1; (5) SU values are rounded to float32,
    as Weka stores them; (6) the locally predictive rule does not skip features with
    zero SU with the target (it cannot add one unless nothing else was selected).
    Merits may still differ from Weka's in the last bits (see the module notes).
    """
    max_stale = _checked_max_stale(max_stale)
    su, su_target = _correlations(codes, cardinalities, target, n_target_values, su, su_target)
    if su_target.shape == (0,):
        return []
    if weka_compatible:
        su, su_target = _weka_correlations(su, su_target)
    search = _search_weka if weka_compatible else _search_open
    selected = list(search(su, su_target, max_stale, _tolerance(min_improvement, weka_compatible))[0])
    if locally_predictive:
        selected = _locally_predictive(selected, su, su_target, require_positive=not weka_compatible)
    return sorted(selected)


def _checked_max_stale(max_stale) -> int:
    if isinstance(max_stale, bool) or int(max_stale) != max_stale or max_stale < 1:
        raise ValueError(f"max_stale must be a positive integer; got {max_stale!r}.")
    return int(max_stale)


def _correlations(codes, cardinalities, target, n_target_values, su, su_target) -> tuple[np.ndarray, np.ndarray]:
    """``(su (d, d), su_target (d,))`` as float64: the given ones checked, the others computed from the codes."""
    if codes is not None:
        codes, cards = _check_codes(codes, cardinalities)
        d = codes.shape[1]
    elif su is None or su_target is None:
        raise ValueError("codes may be None only when both su and su_target are given.")
    else:
        d = np.asarray(su).shape[0]
    if su is None:
        su = symmetric_uncertainty_matrix(codes, cards)
    su = np.asarray(su, dtype=np.float64)
    if su.shape != (d, d):
        raise ValueError(f"su must have shape ({d}, {d}); got {su.shape}.")
    if su_target is None:
        if target is None or n_target_values is None:
            raise ValueError("target and n_target_values are needed when su_target is not given.")
        su_target = symmetric_uncertainty_with(codes, cards, target, n_target_values)
    su_target = np.asarray(su_target, dtype=np.float64)
    if su_target.shape != (d,):
        raise ValueError(f"su_target must have shape ({d},); got {su_target.shape}.")
    return su, su_target


def _tolerance(min_improvement: float | None, weka_compatible: bool) -> float:
    """The improvement a child's merit needs over the best: given, or the default of the search."""
    if min_improvement is None:
        min_improvement = _WEKA_MIN_IMPROVEMENT if weka_compatible else MIN_IMPROVEMENT
    if not min_improvement >= 0:
        raise ValueError(f"min_improvement must be >= 0; got {min_improvement!r}.")
    return float(min_improvement)
