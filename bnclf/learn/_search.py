"""Greedy hill climbing over DAGs: one engine for every score-and-search learner.

The engine (:func:`hill_climb`) moves from a start graph to its best neighbour (one
arc added, deleted or reversed) while that strictly improves the score, and records a
trace. It knows nothing about any score: a score object answers "what would each of
these moves give" and is told which move was taken. Two kinds are provided:

* :class:`DecomposableScore` -- MDL/BIC, K2 and BDeu: a sum of local scores of the
  families, so a move is scored by the one or two families it changes
  (:mod:`bnclf.learn`).
* :class:`ClassScore` -- scores of the class given the features: the cross-validated or
  holdout 0/1 loss of RMCV and RMHO (Kelner & Lerner 2012), and the conditional
  log-likelihood of BNC-2P and BNC-MDL (Grossman & Domingos 2004). They are not
  decomposable, but the log-posterior of the class is a sum of the log-CPT entries of
  the families that contain the class, so the score keeps, per evaluation row and
  class, the running sum of those entries and a move recomputes only the families it
  changes (:class:`FamilyContributions`). A move that changes no family containing the
  class cannot change the class posterior, so it is never re-scored.

Acyclicity is kept incrementally: :class:`DagState` holds the reachability matrix of
the current DAG, so whether a move would make a cycle is a table lookup, and the matrix
is updated once per accepted move.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from bnclf._config import memory_budget
from bnclf._logsumexp import logsumexp
from bnclf.counts._cache import CountCache
from bnclf.counts._measures import comparable, m_estimate
from bnclf.learn._scores import SCORES

__all__ = [
    "Move",
    "DagState",
    "hill_climb",
    "SearchResult",
    "DecomposableScore",
    "ClassScore",
    "FamilyContributions",
    "dag_score_from_scratch",
    "enumerate_dags",
    "first_best",
]


ADD, DELETE, REVERSE = "add", "delete", "reverse"


@dataclass(frozen=True)
class Move:
    """One arc change: ``add`` u→v, ``delete`` u→v, or ``reverse`` u→v into v→u."""

    kind: str
    u: int
    v: int

    def changes(self, parents: Sequence[frozenset[int]]) -> tuple:
        """``((node, new parent set), ...)``: the one or two families the move changes."""
        u, v = self.u, self.v
        if self.kind == ADD:
            return ((v, parents[v] | {u}),)
        if self.kind == DELETE:
            return ((v, parents[v] - {u}),)
        return ((v, parents[v] - {u}), (u, parents[u] | {v}))

    def touches(self, parents: Sequence[frozenset[int]], node: int) -> bool:
        """Whether the move changes a family that contains ``node`` (before or after)."""
        u, v = self.u, self.v
        if v == node or node in parents[v] or (self.kind == ADD and u == node):
            return True
        return self.kind == REVERSE and (u == node or node in parents[u])


class DagState:
    """A DAG over ``n`` nodes with its reachability matrix, kept up to date move by move.

    Parameters
    ----------
    n : int
        Number of nodes (variables ``0..n-1``).
    edges : iterable of (int, int)
        Arcs of the start graph; a cycle raises ``ValueError``.

    Notes
    -----
    ``reach[a, b]`` says there is a directed path from ``a`` to ``b`` (of length >= 1).
    Adding ``u -> v`` closes a cycle exactly when ``reach[v, u]``; reversing ``u -> v``
    does when another path leads from ``u`` to ``v``, i.e. when some other child of
    ``u`` reaches ``v`` (a row of ``adj @ reach``). An addition updates the matrix in
    place (every node that reaches ``u``, and ``u``, now reaches ``v`` and what ``v``
    reaches); a deletion or reversal recomputes it once, children first.
    """

    def __init__(self, n: int, edges: Iterable[tuple[int, int]] = ()) -> None:
        self.n = int(n)
        self.adj = np.zeros((self.n, self.n), dtype=bool)
        self.reach = np.zeros((self.n, self.n), dtype=bool)
        for u, v in edges:
            u, v = int(u), int(v)
            if u == v or self.reach[v, u] or self.adj[v, u]:
                raise ValueError(f"the arc {u} -> {v} closes a cycle.")
            if not self.adj[u, v]:
                self.apply(Move(ADD, u, v))

    @property
    def parents(self) -> list[frozenset]:
        """Parent set of every node."""
        return [frozenset(np.flatnonzero(self.adj[:, v]).tolist()) for v in range(self.n)]

    @property
    def edges(self) -> list[tuple[int, int]]:
        return [(int(u), int(v)) for u, v in zip(*np.nonzero(self.adj))]

    def copy(self) -> "DagState":
        other = DagState(self.n)
        other.adj = self.adj.copy()
        other.reach = self.reach.copy()
        return other

    def legal_moves(
        self, *, max_parents: int | None = None, reversals: bool = True, allowed: np.ndarray | None = None
    ) -> list[Move]:
        """Every single-arc change that keeps a DAG, in a fixed order.

        Parameters
        ----------
        max_parents : int, optional
            No node may end with more parents (the class counts as a parent).
        reversals : bool
            Include reversals.
        allowed : ndarray of bool (n, n), optional
            ``allowed[u, v]``: the arc ``u -> v`` may exist. Moves creating an arc
            that is not allowed are left out.
        """
        adj, n = self.adj, self.n
        n_parents = adj.sum(axis=0)
        can_add = ~adj & ~adj.T & ~np.eye(n, dtype=bool) & ~self.reach.T
        if max_parents is not None:
            can_add &= (n_parents < max_parents)[None, :]
        if allowed is not None:
            can_add &= allowed
        moves = [Move(ADD, int(u), int(v)) for u, v in zip(*np.nonzero(can_add))]
        moves += [Move(DELETE, int(u), int(v)) for u, v in zip(*np.nonzero(adj))]
        if reversals:
            other_path = (adj.astype(np.int32) @ self.reach.astype(np.int32)) > 0
            can_reverse = adj & ~other_path
            if max_parents is not None:
                can_reverse &= (n_parents < max_parents)[:, None]
            if allowed is not None:
                can_reverse &= allowed.T
            moves += [Move(REVERSE, int(u), int(v)) for u, v in zip(*np.nonzero(can_reverse))]
        return moves

    def apply(self, move: Move) -> None:
        """Make the move (assumed legal) and update the reachability matrix."""
        u, v = move.u, move.v
        if move.kind == ADD:
            self.adj[u, v] = True
            sources = self.reach[:, u].copy()
            sources[u] = True
            targets = self.reach[v].copy()
            targets[v] = True
            self.reach[sources] |= targets
            return
        self.adj[u, v] = False
        if move.kind == REVERSE:
            self.adj[v, u] = True
        self._recompute_reach()

    def _recompute_reach(self) -> None:
        order = _topological_order(self.adj)
        reach = np.zeros_like(self.reach)
        for a in reversed(order):
            children = np.flatnonzero(self.adj[a])
            if children.size:
                reach[a] = reach[children].any(axis=0)
                reach[a, children] = True
        self.reach = reach


def _topological_order(adj: np.ndarray) -> list[int]:
    indegree = adj.sum(axis=0).astype(int)
    ready = [int(v) for v in np.flatnonzero(indegree == 0)]
    order = []
    while ready:
        a = ready.pop()
        order.append(a)
        for c in np.flatnonzero(adj[a]):
            indegree[c] -= 1
            if indegree[c] == 0:
                ready.append(int(c))
    if len(order) != adj.shape[0]:
        raise ValueError("the graph has a cycle.")
    return order


# ----------------------------------------------------------------------------- engine
@dataclass
class SearchResult:
    """What :func:`hill_climb` returns."""

    state: DagState
    score: float
    n_iter: int
    """Neighbourhoods evaluated (steps), including the last one, which found no
    improvement when the search converged."""
    n_moves: int
    """Accepted moves."""
    trace: list = field(default_factory=list)
    """One dict per step (step 0 is the start graph): ``iteration``, ``move`` (kind),
    ``u``, ``v``, ``score``, ``n_candidates``, ``n_scored`` and ``seconds`` since the
    start."""


def hill_climb(
    score: DecomposableScore | ClassScore,
    state: DagState,
    *,
    max_parents: int | None = None,
    reversals: bool = True,
    allowed: np.ndarray | None = None,
    class_index: int | None = None,
    class_moves_only: bool = False,
    max_iter: int | None = None,
    random_state: int | np.random.RandomState | None = None,
    verbose: int = 0,
    description: str = "hill climbing",
) -> SearchResult:
    """Greedy hill climbing: take the best neighbour while it strictly improves the score.

    Parameters
    ----------
    score : DecomposableScore or ClassScore
        The score; see the module docstring for the protocol.
    state : DagState
        The start graph; it is modified in place and returned in the result.
    max_parents : int, optional
        Most parents per node (the class counts as a parent).
    reversals : bool, default=True
        Consider arc reversals as well as additions and deletions.
    allowed : ndarray of bool, optional
        Arcs that may exist (see :meth:`DagState.legal_moves`).
    class_index : int, optional
        The class node; needed by ``class_moves_only``.
    class_moves_only : bool, default=False
        Consider only moves that change a family containing the class (the moves
        that can change the class posterior).
    max_iter : int, optional
        Stop after this many accepted moves.
    random_state : int, RandomState or None
        Draws among equally good best moves (uniformly), and whatever the score
        draws (RMHO's holdout).
    verbose : int, default=0
        1 (or True) shows a tqdm bar, one tick per accepted move.

    Returns
    -------
    SearchResult

    Notes
    -----
    Scores are compared after :func:`bnclf.counts._measures.comparable` rounding, so moves
    whose scores are equal in exact arithmetic tie; ties among the best moves are
    broken at random (``random_state``). The search stops when no move improves the
    current score strictly (Kelner & Lerner 2012, Section 4).
    """
    if class_moves_only and class_index is None:
        raise ValueError("class_moves_only=True needs class_index.")
    rng = check_random_state(random_state)
    sign = 1.0 if score.greater_is_better else -1.0
    started = time.perf_counter()
    current = score.start(state)
    trace = [dict(iteration=0, move="start", u=-1, v=-1, score=float(current), n_candidates=0, n_scored=0, seconds=0.0)]
    bar = None
    if verbose:
        from tqdm.auto import tqdm

        bar = tqdm(desc=description, unit="move", leave=False)
    n_iter = n_moves = 0
    try:
        while max_iter is None or n_moves < max_iter:
            renewed = score.new_step(state, rng)
            if renewed is not None:
                current = renewed
            moves = state.legal_moves(max_parents=max_parents, reversals=reversals, allowed=allowed)
            if class_moves_only:
                parents = state.parents
                moves = [m for m in moves if m.touches(parents, class_index)]
            if not moves:
                break
            values, n_scored = score.evaluate(state, moves)
            n_iter += 1
            objective = comparable(sign * np.asarray(values, dtype=float))
            best = objective.max()
            if not best > comparable(sign * current):
                break
            ties = np.flatnonzero(objective == best)
            pick = int(ties[rng.randint(len(ties))]) if len(ties) > 1 else int(ties[0])
            move = moves[pick]
            score.accept(state, move)
            state.apply(move)
            current = float(values[pick])
            n_moves += 1
            trace.append(
                dict(
                    iteration=n_moves,
                    move=move.kind,
                    u=move.u,
                    v=move.v,
                    score=current,
                    n_candidates=len(moves),
                    n_scored=int(n_scored),
                    seconds=time.perf_counter() - started,
                )
            )
            if bar is not None:
                bar.update(1)
                bar.set_postfix(score=f"{current:.5g}")
    finally:
        if bar is not None:
            bar.close()
    return SearchResult(state=state, score=float(current), n_iter=n_iter, n_moves=n_moves, trace=trace)


# ----------------------------------------------------------------------------- scores
class DecomposableScore:
    """A sum of local family scores (:mod:`bnclf.learn`), memoized per family.

    Parameters
    ----------
    cache : CountCache
    score : {"mdl", "bic", "k2", "bdeu"}
        ``"mdl"`` reports the description length ``½ Dim log N - LL`` (lower is
        better; the negated BIC), the others the score itself (higher is better).
    ess : float
        BDeu's equivalent sample size.
    """

    def __init__(self, cache: CountCache, score: str = "mdl", ess: float = 1.0) -> None:
        if score not in SCORES:
            raise ValueError(f"score={score!r} is not a decomposable score; choose one of {sorted(SCORES)}.")
        self.cache = cache
        self.name = score
        self.ess = float(ess)
        self.greater_is_better = score != "mdl"
        self._sign = -1.0 if score == "mdl" else 1.0
        self._local_fn = SCORES[score]
        self._memo: dict[tuple, float] = {}
        self.current = None

    def local(self, child: int, parents: Iterable[int]) -> float:
        """Local score of ``child <- parents`` (in the reported orientation)."""
        key = (int(child), frozenset(int(p) for p in parents))
        value = self._memo.get(key)
        if value is None:
            family = (key[0], *sorted(key[1]))
            value = self._sign * self._local_fn(self.cache.counts(family), self.ess)
            self._memo[key] = value
        return value

    def total(self, parents: Iterable[Iterable[int]]) -> float:
        return float(sum(self.local(v, pa) for v, pa in enumerate(parents)))

    def start(self, state: DagState) -> float:
        self.current = self.total(state.parents)
        return self.current

    def new_step(self, state: DagState, rng: np.random.RandomState) -> None:
        return None

    def evaluate(self, state: DagState, moves: list[Move]) -> tuple[np.ndarray, int]:
        parents = state.parents
        new = [(c, pa) for m in moves for c, pa in m.changes(parents) if (c, pa) not in self._memo]
        if new:  # count every new family in one pass over the rows
            self.cache.counts_many([(c, *sorted(pa)) for c, pa in new])
        values = np.empty(len(moves))
        for i, move in enumerate(moves):
            delta = 0.0
            for child, pa in move.changes(parents):
                delta += self.local(child, pa) - self.local(child, parents[child])
            values[i] = self.current + delta
        return values, len(moves)

    def accept(self, state: DagState, move: Move) -> None:
        parents = state.parents
        for child, pa in move.changes(parents):
            self.current += self.local(child, pa) - self.local(child, parents[child])


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
        cells = float(size) * (2 * self.n_folds + 1)  # the per-fold counts and the training tables
        if self.cache is not None and 8.0 * cells > self._budget:
            self.cache.check_size(family, cells=cells)  # raises, naming the columns
        k = self.n_folds
        class_stride = strides[family.index(c)] * k
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
        per_row = max(1, self.contributions.n_eval * self.n_classes)
        batch = max(1, min(len(scored), _SCORE_BATCH_CELLS // per_row))
        finite = np.empty((batch,) + self._finite.shape)
        filled = []

        def flush():
            if filled:
                k = len(filled)
                values[filled] = self._value(finite[:k], dims[filled])
                filled.clear()

        # moves that change one family (additions, deletions) are grouped by that
        # family: the sums without its old entries are formed once per group
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
                j = len(filled)
                if self._has_class(child, new):
                    np.add(base, self.contributions.get(child, new), out=finite[j])
                else:
                    finite[j] = base
                filled.append(i)
                if len(filled) == batch:
                    flush()
        for i in reversals:
            j = len(filled)
            finite[j] = self._finite
            self._apply_delta(moves[i], parents, finite[j])
            filled.append(i)
            if len(filled) == batch:
                flush()
        flush()
        return values, len(scored)

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


def enumerate_dags(n: int) -> list[list[frozenset]]:
    """Every labelled DAG on ``n`` nodes, as parent sets (25 for 3 nodes, 543 for 4,
    29,281 for 5: OEIS A003024). For exhaustive oracles on tiny problems."""
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    codes = np.array(list(itertools.product(range(3), repeat=len(pairs))), dtype=np.int64)
    codes = codes.reshape(3 ** len(pairs), len(pairs))
    adj = np.zeros((codes.shape[0], n, n), dtype=np.int64)
    for p, (i, j) in enumerate(pairs):
        adj[codes[:, p] == 1, i, j] = 1
        adj[codes[:, p] == 2, j, i] = 1
    power = adj.copy()
    for _ in range(n - 1):  # acyclic iff the adjacency matrix is nilpotent
        power = np.minimum(power @ adj, 1)
    acyclic = adj[~power.any(axis=(1, 2))]
    return [[frozenset(np.flatnonzero(a[:, v]).tolist()) for v in range(n)] for a in acyclic]
