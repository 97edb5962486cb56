"""Greedy hill climbing over DAGs: one engine for every score-and-search learner.

The engine (:func:`hill_climb`) moves from a start graph to its best neighbour (one
arc added, deleted or reversed) while that strictly improves the score, and records a
trace. It knows nothing about any score: a score object answers "what would each of
these moves give" and is told which move was taken. Two kinds are provided:

* :class:`DecomposableScore` -- MDL/BIC, K2 and BDeu: a sum of local scores of the
  families, so a move is scored by the one or two families it changes
  (:mod:`bnclf.learn`).
* :class:`bnclf.learn._class_score.ClassScore` -- scores of the class given the
  features: the cross-validated or holdout 0/1 loss of RMCV and RMHO (Kelner & Lerner
  2012), and the conditional log-likelihood of BNC-2P and BNC-MDL (Grossman & Domingos
  2004), kept as running sums of the families that contain the class.

Acyclicity is kept incrementally: :class:`DagState` holds the reachability matrix of
the current DAG, so whether a move would make a cycle is a table lookup, and the matrix
is updated once per accepted move.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils import check_random_state

from bnclf.counts._cache import CountCache
from bnclf.counts._measures import comparable
from bnclf.learn._scores import SCORES

if TYPE_CHECKING:
    from bnclf.learn._class_score import ClassScore

__all__ = [
    "Move",
    "DagState",
    "hill_climb",
    "SearchResult",
    "DecomposableScore",
    "enumerate_dags",
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
    score: DecomposableScore | ClassScore,  # or any object with start, evaluate and accept
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
    trace = [_trace_step(0, "start", -1, -1, float(current), 0, 0, 0.0)]
    n_iter = n_moves = 0
    with _progress_bar(verbose, description) as bar:
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
            pick = _best_improving(comparable(sign * np.asarray(values, dtype=float)), comparable(sign * current), rng)
            if pick is None:
                break
            move = moves[pick]
            score.accept(state, move)
            state.apply(move)
            current = float(values[pick])
            n_moves += 1
            seconds = time.perf_counter() - started
            trace.append(_trace_step(n_moves, move.kind, move.u, move.v, current, len(moves), int(n_scored), seconds))
            if bar is not None:
                bar.update(1)
                bar.set_postfix(score=f"{current:.5g}")
    return SearchResult(state=state, score=float(current), n_iter=n_iter, n_moves=n_moves, trace=trace)


def _best_improving(objective: np.ndarray, current: float, rng: np.random.RandomState) -> int | None:
    """The position of a best move when it beats ``current`` strictly (a uniform draw among
    tied best moves), else None; values are already :func:`comparable`, larger is better."""
    best = objective.max()
    if not best > current:
        return None
    ties = np.flatnonzero(objective == best)
    return int(ties[rng.randint(len(ties))]) if len(ties) > 1 else int(ties[0])


def _trace_step(iteration, kind, u, v, score, n_candidates, n_scored, seconds) -> dict:
    """One entry of :attr:`SearchResult.trace`."""
    return dict(
        iteration=iteration,
        move=kind,
        u=u,
        v=v,
        score=score,
        n_candidates=n_candidates,
        n_scored=n_scored,
        seconds=seconds,
    )


@contextlib.contextmanager
def _progress_bar(verbose, description: str) -> Iterator:
    """A tqdm bar of accepted moves when ``verbose``, else None; closed on exit."""
    if not verbose:
        yield None
        return
    from tqdm.auto import tqdm

    bar = tqdm(desc=description, unit="move", leave=False)
    try:
        yield bar
    finally:
        bar.close()


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
