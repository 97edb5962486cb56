"""Unrestricted Bayesian network classifiers learned by hill climbing: RMCV and its comparators.

Both estimators run the one search engine of :mod:`bnclf.learn`; they differ only in
the score. The learned DAG is unrestricted: the class may have parents, and features
outside the class's Markov blanket may stay in the network (they do not change the
posterior of a fully observed row, and :attr:`markov_blanket_` lists the ones that do).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from bnclf._folds import fold_of_each_row
from bnclf._params import DEPRECATED, RENAMED_PROGRESS, VERBOSE, Checked, Integer, Number, Options, verbose_from
from bnclf.counts._cache import CountCache
from bnclf.encoding._frames import DiscreteData
from bnclf.learn._class_score import ClassScore, FamilyContributions
from bnclf.learn._restricted import graph_families, markov_blanket
from bnclf.learn._search import DagState, DecomposableScore, hill_climb
from bnclf.models._base import BayesNetClassifier

VARIANTS = ("cv", "holdout", "holdout-fixed", "holdout-fixed-no-reversal")


STARTS = ("nb", "empty")


HILL_CLIMB_SCORES = ("mdl", "k2", "bdeu", "cmdl", "cll")


class _SearchClassifier(BayesNetClassifier):
    """Shared plumbing: start graph, parameter checks, fitted search attributes."""

    _counts_needed = None  # the searches score families of any shape, and RMCV cross-validates rows

    def fit(self, X: ArrayLike | pd.DataFrame, y: ArrayLike | pd.DataFrame | None = None) -> BayesNetClassifier:
        """Learn from discrete features ``X`` and labels ``y`` (see :meth:`BayesNetClassifier.fit`).

        No ``sample_weight``: this learner reads the training rows themselves
        (cross-validated or row-scored searches), not weighted count tables, so weights have no
        single meaning here. scikit-learn's ``has_fit_parameter(model, "sample_weight")``
        is False, and boosting or bagging wrappers say so; repeat rows to weight them.
        """
        return super().fit(X, y)

    _parameters = {
        "m": Number(
            0, meaning="the m-estimate weight", note="0, the default here, is maximum likelihood as in the papers"
        ),
        "start": Options(STARTS, "the first graph of the search"),
        "max_parents": Integer(
            0, "the most parents a node may have (the class counts)", "None, the default, is no limit", none="no limit"
        ),
        "max_iter": Integer(0, "the most accepted moves", none="no limit"),
        "random_state": Checked("scikit-learn's check_random_state"),
        "verbose": VERBOSE,
        "progress": RENAMED_PROGRESS,
    }

    def _check_params(self):
        super()._check_params()
        if self.max_parents is not None and self.start == "nb" and self.max_parents < 1:
            raise ValueError(
                f"max_parents={self.max_parents} is below the naive Bayes start "
                "(every feature has the class as parent); use start='empty' "
                "or max_parents >= 1."
            )

    def _verbose(self) -> bool:
        return verbose_from(self.verbose, self.progress, type(self).__name__)

    def _search_rng(self) -> np.random.RandomState:
        """The generator of every random choice of one fit, from one seed drawn from
        ``random_state`` and kept as ``search_seed_``, so that a fit with
        ``random_state=None`` can be repeated (``random_state=model.search_seed_``); a
        model file of the first format, which refits on load, replays it."""
        seed = self._replay_seed  # set while a first-format model file is replayed (models._base.replay_fit)
        if seed is None:
            seed = check_random_state(self.random_state).randint(2**31 - 1)
        self.search_seed_ = int(seed)
        return np.random.RandomState(self.search_seed_)

    def _start_state(self, data: DiscreteData) -> DagState:
        d = data.n_features
        edges = [(d, j) for j in range(d)] if self.start == "nb" else []
        return DagState(d + 1, edges)

    def _complete_codes(self, data: DiscreteData) -> np.ndarray:
        if (data.codes < 0).any():
            raise ValueError(
                f"{type(self).__name__} scores structures on fully coded rows; missing='ignore' "
                "leaves values out. Use missing='category' (the default: a missing value is a "
                "state of its own) or missing='error'."
            )
        return np.column_stack([data.codes, data.y]).astype(np.int64)

    def _finish(self, result, data: DiscreteData, cache: CountCache):
        graph = _graph(result.state)
        self.network_ = self._make_network(graph_families(graph, cache.class_index), cache)
        self.n_iter_ = result.n_iter
        self.n_moves_ = result.n_moves
        self.score_ = result.score
        names = self.node_names_
        trace = pd.DataFrame(result.trace)
        trace["arc"] = ["" if u < 0 else f"{names[u]} -> {names[v]}" for u, v in zip(trace["u"], trace["v"])]
        self.search_trace_ = trace[["iteration", "move", "arc", "score", "n_candidates", "n_scored", "seconds"]]

    @property
    def markov_blanket_(self) -> list:
        """Features in the class's Markov blanket (parents, children, children's other
        parents): the features that decide the class of a fully observed row."""
        blanket = set(markov_blanket(self.network_.graph, self.network_.class_index))
        return [self.node_names_[v] for v in sorted(blanket)]


def _graph(state: DagState):
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(range(state.n))
    graph.add_edges_from(state.edges)
    return graph


def _holdout_folds(y: np.ndarray, n_splits: int, seed: int, *, all_folds: bool) -> np.ndarray:
    """Stratified fold of every row (``-1`` for rows outside a holdout); plain shuffled
    folds when no class has ``n_splits`` rows."""
    stratified = np.bincount(y).max() >= n_splits
    with warnings.catch_warnings():  # classes with fewer rows than folds are expected
        warnings.simplefilter("ignore", UserWarning)
        folds = fold_of_each_row(y, n_splits, stratified=stratified, shuffle=True, random_state=seed)
    if not all_folds:
        folds[folds != 0] = -1
    return folds


class RMCVClassifier(_SearchClassifier):
    """Risk minimization by cross validation (Kelner & Lerner 2012): an unrestricted
    Bayesian network classifier whose structure minimizes the cross-validated 0/1 loss.

    Hill climbing over DAGs (arc additions, deletions and reversals) from naive Bayes or
    the empty graph. The score of a DAG is the error rate of its argmax class over K
    stratified validation folds of the training set, parameters learned on the other
    folds (Eq. 10). The search moves to the best neighbour while the score strictly
    drops; the final parameters are learned on all training data.

    Parameters
    ----------
    n_splits : int, default=4
        K: the number of validation folds (RMCV), or the holdout is 1/K of the rows
        (RMHO variants).
    start : {"nb", "empty"}, default="nb"
        Start graph: naive Bayes or no arcs.
    variant : {"cv", "holdout", "holdout-fixed", "holdout-fixed-no-reversal"}, default="cv"
        ``"cv"``: RMCV, folds drawn once. ``"holdout"``: RMHO, one holdout drawn anew at
        every step (Eq. 11). ``"holdout-fixed"``: RMHO-f, one holdout fixed for the
        search. ``"holdout-fixed-no-reversal"``: RMHO-ar, RMHO-f without reversals.
    m : float, default=0.0
        m-estimate weight of the CPTs, in the search and in the final model (0:
        maximum likelihood, as the paper).
    max_parents : int, optional
        Most parents of any node (the class counts as a parent).
    max_iter : int, optional
        Most accepted moves.
    random_state : int, RandomState or None
        Draws the folds (or holdouts) and breaks ties among equally good moves.
    verbose : int, default=0
        1 (or True) shows a tqdm bar during the search.
    missing : {"category", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.
    progress : bool
        Deprecated: the old name of ``verbose`` (a ``FutureWarning``; it goes in 0.3).

    Attributes
    ----------
    dag_ : networkx.DiGraph
        The learned structure; the class may have parents.
    markov_blanket_ : list
        Features in the class's Markov blanket.
    search_trace_ : pandas.DataFrame
        One row per step: the move taken (``add``/``delete``/``reverse`` and the arc),
        the score after it, how many neighbours there were and how many were scored,
        and the seconds since the start. Row 0 is the start graph.
    n_iter_ : int
        Search steps (neighbourhoods evaluated), counting the last one, which found
        no improvement when the search converged.
    n_moves_ : int
        Accepted moves (``len(search_trace_) - 1``).
    score_ : float
        Score of the returned DAG (the validation error rate).
    search_seed_ : int
        The seed drawn from ``random_state`` for this fit's folds and tie breaks.

    Notes
    -----
    *Scoring.* The 0/1 loss of a row depends only on the families that contain the
    class (the class's own family and its children's); per validation row and class
    the search keeps the sum of their log-CPT entries, and a move recomputes only the
    family it changes (two for a reversal) from that fold's counts (Section 5.4).
    Moves that change no such family cannot change the score and are not scored;
    they are still neighbours, but never strictly better.

    *Ties.* The argmax class takes the lowest class index on ties; a row whose every
    class has probability zero (possible with ``m=0``) is given class 0. Moves with
    equal scores are chosen among at random (``random_state``); the paper does not
    say how it breaks ties, which are common with a 0/1 loss.

    *Prediction.* The final network is exact for any DAG, with missing and unseen
    values summed out. With ``m=0`` a fully observed row that is impossible under the
    whole network (a zero outside the class's families) is classified from the
    families that contain the class -- the limit of the posterior as ``m -> 0``.

    References
    ----------
    Kelner, R. & Lerner, B. (2012). Learning Bayesian network classifiers by risk
    minimization. International Journal of Approximate Reasoning 53, 248-272.
    """

    short_names = {
        "rmcv": {},
        "rmho": {"variant": "holdout"},
        "rmho-f": {"variant": "holdout-fixed"},
        "rmho-ar": {"variant": "holdout-fixed-no-reversal"},
    }

    def __init__(
        self,
        *,
        n_splits: int = 4,
        start: str = "nb",
        variant: str = "cv",
        m: float = 0.0,
        max_parents: int | None = None,
        max_iter: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        verbose: int = 0,
        missing: str = "category",
        progress: bool | str = DEPRECATED,
        handle_unknown: str = "marginalize",
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.n_splits = n_splits
        self.start = start
        self.variant = variant
        self.max_parents = max_parents
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.progress = progress

    _parameters = {
        "n_splits": Integer(
            2,
            "the number of validation folds K",
            "4 is the default; the RMHO variants hold out 1/K of the rows",
        ),
        "variant": Options(VARIANTS, "how the rows are split for validation"),
    }

    def _fit_network(self, cache: CountCache, data: DiscreteData):
        codes = self._complete_codes(data)
        k = int(self.n_splits)
        if data.n_samples < k:
            raise ValueError(
                f"RMCVClassifier needs at least n_splits={k} training rows to "
                f"form its validation folds; got {data.n_samples}. Lower n_splits."
            )
        rng = self._search_rng()
        y = data.y
        cards = cache.cardinalities

        def contributions(seed, all_folds):
            folds = _holdout_folds(y, k, seed, all_folds=all_folds)
            return FamilyContributions(codes, cards, folds, m=self.m, cache=cache)

        redraw = None
        if self.variant == "cv":
            table = contributions(rng.randint(2**31 - 1), True)
        else:
            table = contributions(rng.randint(2**31 - 1), False)
            if self.variant == "holdout":

                def redraw(step_rng):
                    return contributions(step_rng.randint(2**31 - 1), False)

        score = ClassScore(table, "zero_one", redraw=redraw)
        result = hill_climb(
            score,
            self._start_state(data),
            max_parents=self.max_parents,
            reversals=self.variant != "holdout-fixed-no-reversal",
            class_index=cache.class_index,
            max_iter=self.max_iter,
            random_state=rng,
            verbose=self._verbose(),
            description=f"{type(self).__name__} ({self.variant})",
        )
        self._finish(result, data, cache)


class HillClimbClassifier(_SearchClassifier):
    """An unrestricted Bayesian network classifier by hill climbing on a standard score.

    The comparators of Kelner & Lerner (2012, Table 4), on the same search engine as
    :class:`RMCVClassifier`: MDL and K2 from naive Bayes or the empty graph, BDeu, and
    the discriminative scores of Grossman & Domingos (2004): BNC-MDL (CMDL from the
    empty graph) and BNC-2P (CLL from the empty graph, at most two parents per node).

    Parameters
    ----------
    criterion : {"mdl", "k2", "bdeu", "cmdl", "cll"}, default="mdl"
        ``"mdl"``: ``½ Dim log N - LL`` (the negated BIC); ``"k2"``: Cooper &
        Herskovits; ``"bdeu"``: BDeu with equivalent sample size ``ess``;
        ``"cmdl"``: ``½ Dim log N - CLL``; ``"cll"``: the conditional
        log-likelihood of the class on the training rows. (Named ``criterion``, as
        scikit-learn's trees, because ``score`` is the estimator's accuracy method.)
    start : {"nb", "empty"}, default="nb"
        Start graph: naive Bayes or no arcs.
    max_parents : int, optional
        Most parents of any node (the class counts as a parent).
    ess : float, default=1.0
        BDeu's equivalent sample size.
    m : float, default=0.0
        m-estimate weight of the CPTs (and of the CLL/CMDL parameters in the search).
    max_iter : int, optional
        Most accepted moves; by default the search runs until no move improves the score.
    random_state : int, RandomState or None
        Breaks ties among equally good moves.
    verbose : int, default=0
        1 (or True) shows a tqdm bar during the search.
    missing : {"category", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.
    progress : bool
        Deprecated: the old name of ``verbose`` (a ``FutureWarning``; it goes in 0.3).

    Attributes
    ----------
    dag_, markov_blanket_, search_trace_, n_iter_, n_moves_, score_, search_seed_
        As :class:`RMCVClassifier`; ``score_`` is the score of the returned DAG.

    Notes
    -----
    The decomposable scores (MDL, K2, BDeu) come from the count cache and equal
    pgmpy's ``BIC`` (negated), ``K2`` and ``BDeu`` structure scores
    (:mod:`bnclf.learn`). CLL and CMDL use the class-family sums of
    :class:`bnclf.learn._class_score.ClassScore` with parameters from all training rows; ``Dim``
    counts ``(r - 1) q`` free parameters per node.

    References
    ----------
    Grossman, D. & Domingos, P. (2004). Learning Bayesian network classifiers by
    maximizing conditional likelihood. ICML.
    Kelner, R. & Lerner, B. (2012). IJAR 53, 248-272, Table 4.
    """

    short_names = {
        "hc": {},
        "bnc-mdl": {"criterion": "cmdl", "start": "empty"},  # Grossman & Domingos (2004)
        "bnc-2p": {"criterion": "cll", "start": "empty", "max_parents": 2},
    }

    def __init__(
        self,
        *,
        criterion: str = "mdl",
        start: str = "nb",
        max_parents: int | None = None,
        ess: float = 1.0,
        m: float = 0.0,
        max_iter: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        verbose: int = 0,
        missing: str = "category",
        progress: bool | str = DEPRECATED,
        handle_unknown: str = "marginalize",
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.criterion = criterion
        self.start = start
        self.max_parents = max_parents
        self.ess = ess
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.progress = progress

    _parameters = {
        "criterion": Options(HILL_CLIMB_SCORES, "the score the search maximizes"),
        "ess": Number(0, low_open=True, meaning="BDeu's equivalent sample size", note="1 is the default"),
    }

    def _fit_network(self, cache: CountCache, data: DiscreteData):
        if self.criterion in ("cmdl", "cll"):
            table = FamilyContributions(self._complete_codes(data), cache.cardinalities, None, m=self.m, cache=cache)
            score = ClassScore(table, self.criterion)
        else:
            score = DecomposableScore(cache, self.criterion, ess=float(self.ess))
        result = hill_climb(
            score,
            self._start_state(data),
            max_parents=self.max_parents,
            class_index=cache.class_index,
            max_iter=self.max_iter,
            random_state=self._search_rng(),
            verbose=self._verbose(),
            description=f"{type(self).__name__} ({self.criterion})",
        )
        self._finish(result, data, cache)
