"""Scores of the class given the features for the hill climber of :mod:`bnclf.learn._search`:
the cross-validated or holdout 0/1 loss of RMCV and RMHO (Kelner & Lerner 2012), and the
conditional log-likelihood of BNC-2P and BNC-MDL (Grossman & Domingos 2004).

They are not decomposable, but the log-posterior of the class is a sum of the log-CPT
entries of the families that contain the class, so :class:`ClassScore` keeps, per
evaluation row and class, the running sum of those entries and a move recomputes only the
families it changes (:class:`FamilyContributions`). A move that changes no family
containing the class cannot change the class posterior, so it is never re-scored.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence

import numpy as np
from numpy.typing import ArrayLike

from bnclf._compiled import compiled_loops
from bnclf._config import memory_budget
from bnclf._logsumexp import logsumexp
from bnclf.counts._cache import CountCache
from bnclf.counts._measures import m_estimate
from bnclf.learn._search import REVERSE, DagState, Move

__all__ = ["FamilyContributions", "ClassScore", "first_best", "dag_score_from_scratch", "TIE_TOLERANCE"]


class FamilyContributions:
    """Log-CPT entries of families at evaluation rows, for every class value.

    For a family that contains the class, :meth:`get` returns the ``(n_classes,
    n_eval)`` entries ``log P(x_child | x_parents)`` of each evaluation row with
    the class set to each value, the CPT estimated from that row's training part:
    for K-fold cross-validation the other folds, for a holdout the rows outside it,
    and for resubstitution (``folds=None``) all rows. A family without the class
    gives the same entry for every class and is never asked for.

    Parameters
    ----------
    codes : ndarray of int (N, d + 1)
        Coded features with the class codes as the last column; no unknown codes.
    cardinalities : array of int (d + 1,)
    folds : ndarray of int (N,), optional
        Fold of every row: ``k >= 0`` -- evaluated with parameters from the rows
        outside fold ``k``; ``-1`` -- never evaluated, always in the training part.
        ``None``: every row is evaluated with parameters from all rows.
    m : float
        m-estimate weight (0: maximum likelihood, as Kelner & Lerner 2012).
    budget_bytes : int
        Memo size; the least recently used families are evicted past it.
    cache : CountCache, optional
        The count cache of the same variables: every family's tables are sized against
        the memory budget by its :meth:`~bnclf.counts.CountCache.check_size` before they
        are counted (an error names the columns and the fix).

    Notes
    -----
    A zero probability is stored as the finite log-value ``-zero_penalty``, a power of
    two larger than four times any sum of finite entries can reach (every entry is
    at least ``-ln N`` under maximum likelihood, and a sum has at most ``d + 1``
    of them), so sums and differences of contributions stay finite and a class is
    impossible in a row exactly when its sum is below ``-zero_penalty / 2``. The
    rounding of a running sum through such entries is below ``1e-11`` for any data
    that fits in memory, far inside :data:`TIE_TOLERANCE`. All folds are counted at once: one ``np.bincount``
    of the family's codes over all rows and one over the evaluation rows with the
    fold as an extra axis; the training table of fold ``k`` is their difference.
    """

    def __init__(
        self,
        codes: ArrayLike,
        cardinalities: ArrayLike,
        folds: ArrayLike | None = None,
        *,
        m: float = 0.0,
        budget_bytes: int = 1 << 30,
        cache: CountCache | None = None,
    ) -> None:
        self.cache = cache
        self.codes = np.ascontiguousarray(codes, dtype=np.int64)
        if (self.codes < 0).any():
            raise ValueError("FamilyContributions needs complete codes (no unknown values).")
        self.cards = np.asarray(cardinalities, dtype=np.int64)
        self._columns = [np.ascontiguousarray(col) for col in self.codes.T]
        self.class_index = self.codes.shape[1] - 1
        self.n_classes = int(self.cards[self.class_index])
        self.m = float(m)
        if folds is None:
            self.eval_rows = np.arange(self.codes.shape[0])
            self.fold = np.zeros(self.codes.shape[0], dtype=np.int64)
            self.n_folds = 1
            self.resubstitution = True
        else:
            folds = np.asarray(folds, dtype=np.int64)
            self.eval_rows = np.flatnonzero(folds >= 0)
            self.fold = folds[self.eval_rows]
            self.n_folds = int(self.fold.max()) + 1 if self.eval_rows.size else 1
            self.resubstitution = False
        self._all_evaluated = self.eval_rows.size == self.codes.shape[0]
        self.y = self.codes[self.eval_rows, self.class_index]
        n_vars = self.codes.shape[1]
        lowest = np.log(max(self.codes.shape[0], 2))  # a nonzero ML probability is >= 1/N
        if self.m > 0:  # (m/r) / (N + m): no zeros, but keep the bound honest
            lowest = np.log(self.cards.max() * (self.codes.shape[0] + self.m) / self.m)
        self.zero_penalty = float(2.0 ** np.ceil(np.log2(4 * n_vars * (lowest + 1))))
        with np.errstate(divide="ignore"):  # counts up to N (and r, the uniform's denominator)
            self._log_of_counts = np.log(np.arange(max(self.codes.shape[0], int(self.cards.max())) + 1, dtype=float))
        self.budget = int(budget_bytes)
        self._budget = memory_budget()
        self._classes = np.arange(self.n_classes)[:, None]
        self._memo: OrderedDict = OrderedDict()
        self._bytes = 0
        self.n_computed = 0

    @property
    def n_eval(self) -> int:
        return int(self.eval_rows.size)

    def family(self, child: int, parents: Collection[int]) -> tuple:
        """CPT axis order: the child, feature parents ascending, the class last."""
        c = self.class_index
        return (int(child), *sorted(int(p) for p in parents if p != c), *((c,) if c in parents else ()))

    def get(self, child: int, parents: Collection[int]) -> np.ndarray:
        """Entries ``(n_classes, n_eval)``; see the class docstring."""
        key = (child, parents if isinstance(parents, frozenset) else frozenset(parents))
        hit = self._memo.get(key)
        if hit is not None:
            self._memo.move_to_end(key)
            return hit
        value = self._compute(self.family(child, parents))
        self._memo[key] = value
        self._bytes += value.nbytes
        while self._bytes > self.budget and len(self._memo) > 1:
            _, old = self._memo.popitem(last=False)
            self._bytes -= old.nbytes
        return value

    def _compute(self, family: tuple) -> np.ndarray:
        self.n_computed += 1
        c = self.class_index
        if c not in family:
            raise ValueError(f"family {family} does not contain the class.")
        shape = [int(self.cards[v]) for v in family]
        strides = [math.prod(shape[i + 1 :]) for i in range(len(family))]
        size = math.prod(shape)
        cells = float(size) * (3 * self.n_folds + 1)  # per-fold counts, training counts and log table; totals
        if self.cache is not None and 8.0 * cells > self._budget:
            self.cache.check_size(family, cells=cells)  # raises, naming the columns
        k = self.n_folds
        class_stride = strides[family.index(c)] * k
        loops = None if self.resubstitution or not self._all_evaluated else compiled_loops()
        if loops is not None:
            return loops.fold_family_entries(
                self.codes,
                np.array(family, dtype=np.int64),
                np.array(strides, dtype=np.int64),
                family.index(c),
                self.n_classes,
                self.fold,
                k,
                shape[0],
                self._log_of_counts,
                self.m,
                self.zero_penalty,
            )
        if self.resubstitution or not self._all_evaluated:
            offsets = np.zeros(self.codes.shape[0], dtype=np.int64)
            for v, stride in zip(family, strides):
                if v != c:
                    offsets += self._columns[v] * stride
            flat = offsets + self._columns[c] * (class_stride // k)
            if self.resubstitution:
                train = np.bincount(flat, minlength=size)[:, None]
            else:
                held = np.bincount(flat[self.eval_rows] * k + self.fold, minlength=size * k).reshape(size, k)
                train = np.bincount(flat, minlength=size)[:, None] - held
            rows = offsets[self.eval_rows] * k + self.fold
        else:  # every row is held out once: the cells of each row's own fold, counted once
            rows = self.fold.copy()  # offset * k + fold, the class left out
            for v, stride in zip(family, strides):
                if v != c:
                    rows += self._columns[v] * (stride * k)
            held = np.bincount(rows + self._columns[c] * class_stride, minlength=size * k).reshape(size, k)
            train = held.sum(axis=1, keepdims=True) - held
        train = train.reshape(shape[0], -1)  # child by (parent configuration, fold)
        if self.m > 0:
            log_table = np.log(m_estimate(train, self.m)).ravel()
        else:  # maximum likelihood; an unseen configuration is uniform
            totals = train.sum(axis=0)
            unseen = totals == 0
            if unseen.any():  # one count of each child value: log(1) - log(r) = -log(r), uniform
                train += unseen
                totals[unseen] = shape[0]
            logs = self._log_of_counts  # log(0), ..., log(N): a lookup, the same numbers as np.log
            log_table = (logs[train] - logs[totals]).ravel()
        entries = log_table[rows + class_stride * self._classes]
        # every finite entry is above -zero_penalty (see the class Notes): only -inf changes
        return np.maximum(entries, -self.zero_penalty, out=entries)


_SCORE_BATCH_CELLS = 1 << 17
"""Cells of the neighbours' summed contributions scored at once (1 MiB: they are written
and read back while in cache)."""


TIE_TOLERANCE = 1e-9
"""Log-probabilities closer than this (nats) are ties for the predicted class."""


def first_best(log_joint: np.ndarray, axis: int = -1, tolerance: float = TIE_TOLERANCE) -> np.ndarray:
    """Index of the predicted class along ``axis``: the lowest index whose value is
    within ``tolerance`` of the best.

    Values equal in exact arithmetic but summed in different orders (a running sum
    and a fresh one) so give the same class. Rows where every class is ``-inf`` get
    class 0.
    """
    if log_joint.shape[axis] == 2:
        first, second = np.moveaxis(log_joint, axis, 0)
        return (second > first + tolerance).astype(np.intp)
    best = log_joint.max(axis=axis, keepdims=True)
    return np.argmax(log_joint >= best - tolerance, axis=axis)


def _first_best_class(sums: np.ndarray, tolerance: float = TIE_TOLERANCE) -> np.ndarray:
    """:func:`first_best` over axis 1 of ``(batch, n_classes, n_eval)`` sums, one class at a
    time: whole ``(batch, n_eval)`` planes, where an arg-max over the middle axis would
    visit the classes of one row at a time."""
    n_classes = sums.shape[1]
    if n_classes == 2:
        return first_best(sums, axis=1, tolerance=tolerance)
    best = sums.max(axis=1)
    best -= tolerance
    predicted = np.zeros(best.shape, dtype=np.intp)
    found = sums[:, 0] >= best
    for c in range(1, n_classes):
        hit = sums[:, c] >= best
        hit &= ~found
        np.copyto(predicted, c, where=hit)
        found |= hit
    return predicted


class ClassScore:
    """A score of the class given the features, from summed family contributions.

    Parameters
    ----------
    contributions : FamilyContributions
    kind : {"zero_one", "cll", "cmdl"}
        ``"zero_one"``: the error rate of the argmax class on the evaluation rows
        (RMCV, Eq. 10; RMHO, Eq. 11), lower is better. ``"cll"``: the conditional
        log-likelihood ``sum_i log P(c_i | x_i)`` (higher is better). ``"cmdl"``:
        ``½ Dim(G) log N - CLL`` (Grossman & Domingos 2004), lower is better.
    redraw : callable, optional
        ``redraw(rng) -> FamilyContributions``: new evaluation rows at every step
        (RMHO's holdout drawn anew).

    Notes
    -----
    ``log P(c | x)`` is, up to a per-row constant, the sum over the families that
    contain the class of their log-CPT entries: the other families do not depend on
    the class. The score keeps that sum (see :class:`FamilyContributions` for zeros) for
    the current graph; a move adds the difference of the one or two families it
    changes. Moves that change no family containing the class leave the
    class posterior -- and so the 0/1 loss and the CLL -- unchanged, and are not
    re-scored; under CMDL they change only the dimension term. The predicted class
    is :func:`first_best`: the lowest class index on ties (rows where every class
    is impossible go to class 0).
    """

    def __init__(
        self,
        contributions: FamilyContributions,
        kind: str = "zero_one",
        *,
        redraw: Callable[[np.random.RandomState], FamilyContributions] | None = None,
    ) -> None:
        if kind not in ("zero_one", "cll", "cmdl"):
            raise ValueError(f"kind={kind!r}: choose 'zero_one', 'cll' or 'cmdl'.")
        self.contributions = contributions
        self.kind = kind
        self.redraw = redraw
        self.greater_is_better = kind == "cll"
        self.class_index = contributions.class_index
        self.n_classes = contributions.n_classes
        self.cards = contributions.cards
        self._log_n = float(np.log(max(len(contributions.codes), 1)))
        self.current = None

    # -- the current sums ---------------------------------------------------------------
    def _has_class(self, child: int, parents) -> bool:
        """Whether the family ``child <- parents`` contains the class."""
        return child == self.class_index or self.class_index in parents

    def _sums(self, parents):
        finite = np.zeros((self.n_classes, self.contributions.n_eval))
        for v, pa in enumerate(parents):
            if self._has_class(v, pa):
                finite += self.contributions.get(v, pa)
        return finite

    def dimension(self, child: int, parents: Collection[int]) -> float:
        """Free parameters of the family ``child <- parents``: ``(r - 1) q``."""
        q = float(np.prod([self.cards[p] for p in parents])) if parents else 1.0
        return (self.cards[child] - 1) * q

    def _value(self, sums, dim):
        """Scores of summed contributions ``(batch, n_classes, n_eval)``: ``(batch,)``."""
        impossible = -0.5 * self.contributions.zero_penalty
        if self.kind == "zero_one":
            if self.n_classes == 2:  # all impossible: class 0
                predicted = _first_best_class(sums)
                predicted &= sums[:, 1] > impossible
                return (predicted != self.contributions.y).mean(axis=-1)
            wrong = ~self._first_best_is_true_class(sums, impossible)
            return wrong.mean(axis=-1)
        log_joint = np.where(sums < impossible, -np.inf, sums)
        rows = np.arange(self.contributions.n_eval)
        with np.errstate(invalid="ignore"):
            cll = (log_joint[:, self.contributions.y, rows] - logsumexp(log_joint, axis=1)).sum(axis=-1)
        if self.kind == "cll":
            return cll
        return 0.5 * dim * self._log_n - cll

    def _first_best_is_true_class(self, sums: np.ndarray, impossible: float) -> np.ndarray:
        """Whether :func:`first_best` of each ``(batch, n_classes, n_eval)`` row is its true
        class: the true class is within the tolerance of the best and the best of the
        classes below it is not (class 0 where every class is impossible).

        The best below the true class is a maximum after adding a mask of ``-inf`` at
        the true class and above: a few passes over the sums, where the first best
        class of every row takes a pass per class.
        """
        y = self.contributions.y
        source, below, true = self.__dict__.get("_true_class_cells", (None, None, None))
        if source is not y:  # RMHO draws new evaluation rows (kept by their classes, not their memo)
            below = np.where(np.arange(self.n_classes)[:, None] < y, 0.0, -np.inf)
            true = y * y.size + np.arange(y.size)  # each row's true class in a flat (class, row) plane
            self._true_class_cells = (y, below, true)
        best = sums.max(axis=1)
        threshold = best - TIE_TOLERANCE
        correct = np.take(sums.reshape(sums.shape[0], -1), true, axis=1) >= threshold
        correct &= np.add(sums, below).max(axis=1) < threshold
        dead = best < impossible  # every class impossible: class 0
        correct &= ~dead
        dead &= y == 0
        correct |= dead
        return correct

    def start(self, state: DagState) -> float:
        parents = state.parents
        self._finite = self._sums(parents)
        self._dim = sum(self.dimension(v, pa) for v, pa in enumerate(parents))
        self.current = float(self._value(self._finite[None], np.array([self._dim]))[0])
        return self.current

    def new_step(self, state: DagState, rng: np.random.RandomState) -> None:
        """RMHO: draw new evaluation rows for this step's neighbours.

        The current graph keeps the score it was accepted with (the algorithm of
        Kelner & Lerner 2012, Section 4, scores the current graph once), so a step
        compares the neighbours on the new holdout with that score.
        """
        if self.redraw is None:
            return None
        kept = self.current
        self.contributions = self.redraw(rng)
        self.start(state)
        self.current = kept
        return None

    def _apply_delta(self, move: Move, parents, finite) -> None:
        """Add the move's change of the class-family sums to ``finite``."""
        for child, new in move.changes(parents):
            old = parents[child]
            if self._has_class(child, old):
                finite -= self.contributions.get(child, old)
            if self._has_class(child, new):
                finite += self.contributions.get(child, new)

    def _dim_delta(self, move: Move, parents) -> float:
        return sum(
            self.dimension(child, new) - self.dimension(child, parents[child]) for child, new in move.changes(parents)
        )

    def evaluate(self, state: DagState, moves: list[Move]) -> tuple[np.ndarray, int]:
        parents = state.parents
        c = self.class_index
        values = np.full(len(moves), self.current)
        touching = np.array([m.touches(parents, c) for m in moves], dtype=bool)
        dims = np.zeros(len(moves))
        if self.kind == "cmdl":  # every move changes the dimension term
            dims = np.array([self._dim_delta(m, parents) for m in moves]) + self._dim
            values[~touching] += 0.5 * (dims[~touching] - self._dim) * self._log_n
        scored = np.flatnonzero(touching)
        loops = compiled_loops() if self.kind == "zero_one" else None
        if loops is not None:
            values[scored] = self._zero_one_compiled(loops, state, moves, scored)
            return values, len(scored)
        per_row = max(1, self.contributions.n_eval * self.n_classes)
        batch = max(1, min(len(scored), _SCORE_BATCH_CELLS // per_row))
        finite = np.empty((batch,) + self._finite.shape)
        filled = []

        def flush():
            if filled:
                k = len(filled)
                values[filled] = self._value(finite[:k], dims[filled])
                filled.clear()

        for i, base, entries in self._neighbour_sums(parents, moves, scored):
            j = len(filled)
            if entries is None:
                finite[j] = base
            else:
                np.add(base, entries, out=finite[j])
            filled.append(i)
            if len(filled) == batch:
                flush()
        flush()
        return values, len(scored)

    def _neighbour_sums(self, parents, moves: list[Move], scored: np.ndarray):
        """``(i, base, entries)`` for each scored move ``i``: its class-family sums are ``base +
        entries`` (``entries`` None: ``base`` alone). Moves that change one family (additions,
        deletions) are grouped by that family, so the sums without its old entries are
        formed once per group; a reversal's sums are the current ones with both changes."""
        groups, reversals = {}, []
        for i in scored:
            move = moves[i]
            (reversals if move.kind == REVERSE else groups.setdefault(move.v, [])).append(i)
        for child, members in groups.items():
            old = parents[child]
            base = self._finite
            if self._has_class(child, old):
                base = base - self.contributions.get(child, old)
            for i in members:
                new = moves[i].changes(parents)[0][1]
                yield i, base, (self.contributions.get(child, new) if self._has_class(child, new) else None)
        for i in reversals:
            sums = self._finite.copy()
            self._apply_delta(moves[i], parents, sums)
            yield i, sums, None

    def _zero_one_compiled(self, loops, state: DagState, moves: list[Move], scored: np.ndarray) -> np.ndarray:
        """The 0/1 loss of each scored move by the compiled loop: each neighbour's sums are
        added and scored row by row in one pass (the numpy path of :meth:`evaluate` forms
        them in batches and scores a batch in a few passes; the errors are the same)."""
        y, n = self.contributions.y, self.contributions.n_eval
        impossible = -0.5 * self.contributions.zero_penalty
        zeros = np.zeros_like(self._finite)  # the sums of a move that adds no entries: x + 0 is x
        out = np.empty(len(moves))
        for i, base, entries in self._neighbour_sums(state.parents, moves, scored):
            out[i] = loops.zero_one_errors(base, zeros if entries is None else entries, y, impossible, TIE_TOLERANCE)
        return out[scored] / n

    def accept(self, state: DagState, move: Move) -> None:
        parents = state.parents
        self._apply_delta(move, parents, self._finite)
        self._dim += self._dim_delta(move, parents)
        self.current = float(self._value(self._finite[None], np.array([self._dim]))[0])


def dag_score_from_scratch(
    parents: Sequence[Collection[int]], contributions: FamilyContributions, kind: str = "zero_one"
) -> float:
    """The :class:`ClassScore` of a DAG given by its parent sets, summed afresh.

    For tests and the all-DAG enumeration: no running sums, no move deltas.
    """
    score = ClassScore(contributions, kind)
    state = DagState(len(parents), [(p, v) for v, pa in enumerate(parents) for p in pa])
    return score.start(state)
