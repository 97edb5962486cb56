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

import functools
import math
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence

import numpy as np
from numpy.typing import ArrayLike

from bnclf._config import memory_budget
from bnclf._logsumexp import logsumexp
from bnclf._threads import even_parts, run_parts, too_small_to_cut
from bnclf.counts._cache import CountCache
from bnclf.learn._fold_scores import fold_family_entries, zero_one_errors
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
    that fits in memory, far inside :data:`TIE_TOLERANCE`.

    A family's entries are one call of the compiled
    :func:`bnclf.learn._fold_scores.fold_family_entries`, for every case alike (K folds, a
    holdout whose other rows are never evaluated, resubstitution): one pass over the rows
    counts each (cell, fold), one over the cells forms each fold's training counts (all rows'
    less the fold's own) and their logarithms, and one reads every evaluation row's cell.
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
        self.class_index = self.codes.shape[1] - 1
        self.n_classes = int(self.cards[self.class_index])
        self.m = float(m)
        n_rows = self.codes.shape[0]
        self.resubstitution = folds is None
        if folds is None:  # every row evaluated with the counts of every row: one fold, nothing left out
            self._row_folds = np.zeros(n_rows, dtype=np.int64)
            self.eval_rows = np.arange(n_rows)
        else:
            self._row_folds = np.ascontiguousarray(folds, dtype=np.int64)
            if self._row_folds.shape != (n_rows,) or (self._row_folds < -1).any():
                raise ValueError(f"folds: one fold >= 0 (or -1: never evaluated) per row of the {n_rows} rows.")
            self.eval_rows = np.flatnonzero(self._row_folds >= 0)
        self.n_folds = int(self._row_folds.max()) + 1 if self.eval_rows.size else 1
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
        size = math.prod(shape)
        cells = float(size) * (3 * self.n_folds + 1)  # per-fold counts, training counts and log table; totals
        if self.cache is not None and 8.0 * cells > self._budget:
            self.cache.check_size(family, cells=cells)  # raises, naming the columns
        entries = np.empty((self.n_classes, self.n_eval))
        fold_family_entries(
            self.codes,
            np.array(family, dtype=np.int64),
            np.array(shape, dtype=np.int64),
            family.index(c),
            self._row_folds,
            self.n_folds,
            not self.resubstitution,
            self._log_of_counts,
            self.m,
            self.zero_penalty,
            entries,
        )
        return entries


_SCORE_BATCH_CELLS = 1 << 17
"""Cells of the neighbours' summed contributions scored at once by the conditional
log-likelihood (1 MiB: they are written and read back while in cache)."""


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

    The 0/1 loss of each neighbour is one pass of the compiled
    :func:`bnclf.learn._fold_scores.zero_one_errors` over its sums (the current sums less
    the changed family's old entries, formed once per changed family, plus its new ones).
    The CLL and CMDL are formed in numpy, a batch of neighbours at a time: a different
    computation (a log-sum-exp over the classes of each row), which no kernel computes.
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
            plan = np.arange(len(sums), dtype=np.int64)[:, None]  # each batch member alone
            with np.errstate(invalid="ignore", divide="ignore"):  # no evaluation row: NaN
                return self._errors([np.ascontiguousarray(s) for s in sums], plan) / self.contributions.n_eval
        log_joint = np.where(sums < impossible, -np.inf, sums)
        rows = np.arange(self.contributions.n_eval)
        with np.errstate(invalid="ignore"):
            cll = (log_joint[:, self.contributions.y, rows] - logsumexp(log_joint, axis=1)).sum(axis=-1)
        if self.kind == "cll":
            return cll
        return 0.5 * dim * self._log_n - cll

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
        if self.kind == "zero_one":
            values[scored] = self._zero_one(state, moves, scored)
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
        groups, reversals = self._grouped(moves, scored)
        for child, members in groups.items():
            base = self._base_without(child, parents)
            for i in members:
                new = moves[i].changes(parents)[0][1]
                yield i, base, (self.contributions.get(child, new) if self._has_class(child, new) else None)
        for i in reversals:
            sums = self._finite.copy()
            self._apply_delta(moves[i], parents, sums)
            yield i, sums, None

    @staticmethod
    def _grouped(moves: list[Move], scored: np.ndarray) -> tuple[dict, list]:
        """The scored moves that change one family, grouped by its child, and the reversals."""
        groups, reversals = {}, []
        for i in scored:
            move = moves[i]
            (reversals if move.kind == REVERSE else groups.setdefault(move.v, [])).append(i)
        return groups, reversals

    def _base_without(self, child: int, parents) -> np.ndarray:
        """The current sums without the entries of ``child``'s family (the current ones when it
        has no class)."""
        old = parents[child]
        return self._finite - self.contributions.get(child, old) if self._has_class(child, old) else self._finite

    def _zero_one(self, state: DagState, moves: list[Move], scored: np.ndarray) -> np.ndarray:
        """The 0/1 loss of each scored move, by one call of
        :func:`bnclf.learn._fold_scores.zero_one_errors` for all of them (cut among threads):
        a move that changes one family adds its new entries (if it has the class) to the
        current sums without its old ones, formed once per changed family; a reversal takes
        the current sums and subtracts and adds the entries of both its families, in the
        order :meth:`_apply_delta` would. The sums without each changed family's old entries
        (one array of the current sums' shape per changed family) are held for the call."""
        parents = state.parents
        groups, reversals = self._grouped(moves, scored)
        arrays, order, plan_rows = [self._finite], [], []
        get, has_class = self.contributions.get, self._has_class
        for child, members in groups.items():
            arrays.append(self._base_without(child, parents))
            base = len(arrays) - 1
            for i in members:
                new = moves[i].changes(parents)[0][1]
                if has_class(child, new):
                    arrays.append(get(child, new))
                    plan_rows.append((base, len(arrays)))
                else:
                    plan_rows.append((base, 0))
            order.extend(members)
        for i in reversals:
            terms = []
            for child, new in moves[i].changes(parents):
                old = parents[child]
                if has_class(child, old):
                    arrays.append(get(child, old))
                    terms.append(-len(arrays))
                if has_class(child, new):
                    arrays.append(get(child, new))
                    terms.append(len(arrays))
            plan_rows.append((0, *terms))
            order.append(i)
        width = max(map(len, plan_rows), default=1)
        plan = np.zeros((len(plan_rows), width), dtype=np.int64)
        for k, row in enumerate(plan_rows):
            plan[k, : len(row)] = row
        values = np.empty(len(moves))
        with np.errstate(invalid="ignore", divide="ignore"):  # no evaluation row: NaN
            values[order] = self._errors(arrays, plan) / self.contributions.n_eval
        return values[scored]

    def _errors(self, arrays: list[np.ndarray], plan: np.ndarray) -> np.ndarray:
        """:func:`bnclf.learn._fold_scores.zero_one_errors` of every row of ``plan``, its rows
        cut among threads (each neighbour's errors by its own steps: the same in any number of
        threads)."""
        y = self.contributions.y
        errors = np.zeros(len(plan), dtype=np.int64)
        if not y.size or not len(plan):
            return errors
        impossible = -0.5 * self.contributions.zero_penalty
        task = functools.partial(zero_one_errors, arrays, plan, y, impossible, TIE_TOLERANCE, errors)
        work = float(len(plan)) * self.n_classes * y.size  # one step per cell of each neighbour's sums
        if too_small_to_cut(work):
            task(0, len(plan))
        else:
            run_parts(task, even_parts(len(plan), work))
        return errors

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
