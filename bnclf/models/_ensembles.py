"""Ensembles of Bayesian networks: AODE, WAODE, ATAN and WATAN."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from bnclf._config import row_chunks
from bnclf._params import Integer, Options
from bnclf.inference._kernels import StackedKernel, log_weighted_posterior, log_weighted_sum
from bnclf.inference._super_parent import SuperParentKernel
from bnclf.learn._parameters import PairLogTable, child_given_pair_log_table, m_estimated_log_cpts
from bnclf.learn._restricted import graph_families, learn_atan, spode_families
from bnclf.models._base import BayesNetClassifier
from bnclf.models._super_parents import SuperParentWeights, frequency_limit_manifest, spode_networks
from bnclf.network import check_log_cpts


class EnsembleClassifier(BayesNetClassifier):
    """Base class of classifiers that combine several networks over the same variables.

    Subclasses set ``networks_`` and ``weights_`` in ``_fit_network``. The
    combination is the class attribute ``_combine``:

    * ``"joint"``: ``P(c, x) = sum_m w_m P_m(c, x)`` (AODE, WAODE; Webb et al. 2005);
    * ``"posterior"``: ``P(c | x) = sum_m w_m P_m(c | x)`` (ATAN, WATAN; Jiang et al. 2012).
      There ``predict_joint_log_proba`` returns the log of this averaged posterior
      (the members' joints have no common scale to average).

    Weights are normalized to sum to one. Subclasses may make them depend on
    the row through :meth:`_row_weights` (AODE's frequency limit).

    Attributes
    ----------
    networks_ : list of Network
        The member networks.
    weights_ : ndarray of shape (n_members,)
        Their combination weights.
    """

    _abstract = True

    _network_kind = "ensemble"
    _combine = "joint"
    _derived = ("_stacked",)

    def _set_members(self, networks, weights):
        self.networks_ = list(networks)
        self.weights_ = _normalized(weights)

    def _build_derived(self) -> None:
        self._stacked = StackedKernel(self.networks_, len(self.classes_))

    def _member_kernel(self) -> StackedKernel:
        return self._stacked

    def _row_weights(self, codes) -> np.ndarray:
        """Weights ``(M,)`` or ``(n, M)`` of the members for these coded rows."""
        return self.weights_

    def member_joint_log_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """``log P_m(c, x)`` of every member: array ``(n_samples, n_members, n_classes)``."""
        return self._member_kernel()(self._encode(X))

    def member_weights(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """The weight of every member for every row: array ``(n_samples, n_members)``."""
        codes = self._encode(X)
        return np.array(np.broadcast_to(self._row_weights(codes), (codes.shape[0], len(self.networks_))))

    def contributions(self, X: ArrayLike | pd.DataFrame, against: Any = None) -> pd.DataFrame:
        """Exact per-feature contributions to each member's log-odds, with the member's weight.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        against : None, class label or "each", default=None
            As for :meth:`BayesNetClassifier.contributions`; the predicted class and
            the runner-up are the ensemble's.

        Returns
        -------
        DataFrame
            Index ``(row, member, weight, predicted, against)``, one row per member
            (in ``networks_`` order) and pair of classes; the columns of
            :meth:`BayesNetClassifier.contributions`. Each row sums to that member's
            log-odds, ``log P_m(predicted, x) - log P_m(against, x)`` (posteriors for
            ATAN/WATAN, whose members' joints are scaled alike, so the same value).

        Notes
        -----
        The ensemble's log-odds is ``log sum_m w_m P_m(a, x) - log sum_m w_m P_m(b,
        x)``: the log of a weighted sum of products, which is not a sum of one term per
        feature. A feature's effect on it depends on every other feature's (through
        which member dominates the sum), so no split into feature terms is both exact
        and independent of the others; each member's log-odds is such a sum, and the
        members and their weights are given exactly instead.
        """
        from bnclf.inference._contributions import chain_terms, log_odds_split

        check_is_fitted(self, "classes_")
        codes = self._encode(X)
        n, n_members = codes.shape[0], len(self.networks_)
        joint = self._joint_log_likelihood(codes)
        weights = np.broadcast_to(self._row_weights(codes), (n, n_members))
        against = self._against_code(against)
        frames = []
        for m, network in enumerate(self.networks_):
            terms = chain_terms(network, codes)
            values, rows, predicted, other = log_odds_split(terms, joint, against)
            extra = {"member": np.full(len(rows), m), "weight": weights[rows, m]}
            frames.append(self._contribution_frame(X, n, values, rows, predicted, other, extra))
        frame = pd.concat(frames)
        order = np.lexsort((np.repeat(np.arange(n_members), [len(f) for f in frames]), _row_order(frames)))
        return frame.iloc[order].reorder_levels(["row", "member", "weight", "predicted", "against"])

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """The combined ``log P(c, x)`` (or log posterior): AODE's all-pairs kernel combines its
        members itself, every row at once; other members a block of rows at a time, so that the
        ``(rows, members, classes)`` arrays of a block stay small (:data:`_ENSEMBLE_CELLS`)."""
        kernel = self._member_kernel()
        combine = log_weighted_posterior if self._combine == "posterior" else log_weighted_sum
        weights = self._row_weights(codes)
        if combine is log_weighted_sum and hasattr(kernel, "log_weighted_sum"):  # AODE's all-pairs kernel
            return kernel.log_weighted_sum(codes, weights)  # no (rows, members, classes) array: every row at once
        n = codes.shape[0]
        out = np.empty((n, len(self.classes_)))
        for rows in row_chunks(n, len(self.weights_) * len(self.classes_), _ENSEMBLE_CELLS):
            w = weights if weights.ndim == 1 else weights[rows]
            out[rows] = combine(kernel(codes[rows]), w)
        return out


_ENSEMBLE_CELLS = 1 << 16
"""Cells of the ``(rows, members, classes)`` arrays of one block of rows (512 KiB): arrays
this small are reused from the allocator's heap, where a large one is fresh memory, whose
pages are touched anew each call."""


def _normalized(weights) -> np.ndarray:
    """Weights that sum to one (uniform when they are all zero)."""
    weights = np.asarray(weights, dtype=float)
    total = weights.sum()
    return weights / total if total > 0 else np.full(len(weights), 1 / len(weights))


def _spode_tables_of(networks: list) -> dict:
    """The tables of :meth:`AODEClassifier._fit_spode_tables` from the member networks
    (every SPODE, then naive Bayes) of a model stored with its networks."""
    d = len(networks) - 1
    by_child = [dict(zip((f[0] for f in net.families), net.log_cpts)) for net in networks]
    cards = [len(states) for states in networks[0].states[:d]]
    pairs = np.zeros((sum(cards), sum(cards), len(networks[0].states[d])))
    offsets = np.cumsum(cards) - cards
    for p in range(d):
        for j in range(d):
            if j != p:
                pairs[offsets[j] : offsets[j] + cards[j], offsets[p] : offsets[p] + cards[p]] = by_child[p][j]
    return {
        "pairs": pairs,
        "priors": np.stack([by_child[p][d] for p in range(d)]),
        "parents": np.concatenate([by_child[p][p] for p in range(d)]),
        "nb_prior": by_child[d][d],
        "nb_children": np.concatenate([by_child[d][j] for j in range(d)]),
    }


def _check_spode_tables(tables: dict, categories: list, n_classes: int) -> None:
    """Raise a ValueError unless the SPODE tables have the shapes of the states and hold
    log-probabilities that sum to one over each child."""
    cards = np.array([len(states) for states in categories], dtype=np.int64)
    d, width = len(cards), int(cards.sum())
    shapes = {
        "pairs": (width, width, n_classes),
        "priors": (d, n_classes),
        "parents": (width, n_classes),
        "nb_prior": (n_classes,),
        "nb_children": (width, n_classes),
    }
    if not isinstance(tables, dict) or set(tables) != set(shapes):
        raise ValueError(f"the SPODE tables are not the five tables {sorted(shapes)}.")
    for name, shape in shapes.items():
        if np.shape(tables[name]) != shape:
            raise ValueError(f"the SPODE table {name!r} has shape {np.shape(tables[name])}, not {shape}.")
    offsets = np.cumsum(cards) - cards
    block = [slice(o, o + r) for o, r in zip(offsets, cards)]
    cpts = [tables["nb_prior"], *tables["priors"]]
    whats = ["the naive Bayes class prior", *(f"the class prior of SPODE {p}" for p in range(d))]
    for p in range(d):
        cpts += [tables["parents"][block[p]], tables["nb_children"][block[p]]]
        whats += [f"the super-parent of SPODE {p}", f"feature {p} in naive Bayes"]
    # every child block of SPODE p at once: columns of parent p's values, rows of every other feature
    for p in range(d):
        children = np.delete(tables["pairs"][:, block[p]], np.arange(offsets[p], offsets[p] + cards[p]), axis=0)
        cpts += np.split(children, np.cumsum(np.delete(cards, p))[:-1])
        whats += [f"feature {j} in SPODE {p}" for j in range(d) if j != p]
    check_log_cpts(cpts, whats)


def _row_order(frames: list) -> np.ndarray:
    """Each output row's position within its member's frame (rows, then classes), for sorting
    the members' frames row by row."""
    return np.concatenate([np.arange(len(f)) for f in frames])


_SMOOTHING = ("m-estimate", "weka")


class AODEClassifier(EnsembleClassifier):
    """Averaged one-dependence estimators (Webb, Boughton & Wang 2005).

    ``P(c, x) = mean over qualifying parents p of P(c, x_p) prod_{j != p} P(x_j | c, x_p)``.
    A feature qualifies as super-parent for a row when its value occurs at
    least ``frequency_limit`` times in the training data; when none qualifies
    the prediction is naive Bayes'.

    Parameters
    ----------
    frequency_limit : int, default=1
        Minimum training count of the super-parent's value.
    smoothing : {"m-estimate", "weka"}, default="m-estimate"
        ``"m-estimate"``: every CPT is m-estimated with ``m`` (the papers'
        protocol). ``"weka"``: the estimates of Weka 3.6's
        ``weka.classifiers.bayes.AODE`` (Laplace), so that predictions equal
        Weka's; see Notes.
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.

    Attributes
    ----------
    networks_ : list of Network
        The SPODE of each feature (in feature order), then naive Bayes (the
        fallback, weight 0 in ``weights_``). :func:`bnclf.io.write_network`
        writes the fallback only when a row can use it (``frequency_limit`` > 0).
    weights_ : ndarray
        Base weights: uniform over the SPODEs here, ``I(Xp; C)`` in WAODE.

    Notes
    -----
    Each SPODE is a network ``C -> Xp``, ``{C, Xp} -> Xj``, so ``P(c, x_p)`` is
    ``P(c) P(x_p | c)``. The frequency limit is applied per row by
    :meth:`member_weights`: a super-parent value never seen in training, or
    missing when training had no ``<missing>`` state, has frequency 0 and
    qualifies only with ``frequency_limit=0`` (its SPODE then sums it out
    exactly). A missing value that training recorded as the ``<missing>``
    state is counted like any other value. Joint probabilities, not
    posteriors, are averaged (Webb et al. 2005, Eq. 5).

    With ``smoothing="weka"`` the estimates are Weka 3.6's:
    ``P(c, x_p) = (N(c, x_p) + 1) / (N + |C| |X_p|)`` (so
    ``P(c) = (N(c) + |X_p|) / (N + |C| |X_p|)`` and
    ``P(x_p | c) = (N(c, x_p) + 1) / (N(c) + |X_p|)`` in network form),
    ``P(x_j | c, x_p) = (N(c, x_p, x_j) + 1) / (N(c, x_p) + |X_j|)`` and, for the
    fallback, Laplace estimates of naive Bayes. Weka leaves a missing value
    out of its counts; bnclf gives it a state of its own by default, so
    predictions equal Weka's on data without missing values.

    References
    ----------
    Webb, Boughton & Wang (2005), Not so naive Bayes: aggregating one-dependence
    estimators, Machine Learning 58. Sun, Wang & Sun (2017), Entropy 19, §2.2.
    """

    short_names = {"aode": {}}

    def __init__(
        self,
        *,
        frequency_limit: int = 1,
        smoothing: str = "m-estimate",
        m: float = 1.0,
        missing: str = "category",
        handle_unknown: str = "marginalize",
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.frequency_limit = frequency_limit
        self.smoothing = smoothing

    _parameters = {
        "frequency_limit": Integer(
            0,
            "the minimum training count of a super-parent's value",
            "1 is the default, 0 lets every feature qualify",
        ),
        "smoothing": Options(
            _SMOOTHING, "the estimator of the probabilities: the papers' m-estimates or Weka 3.6's Laplace estimates"
        ),
    }

    def _parent_weights(self, cache) -> np.ndarray:
        return np.ones(cache.n_features)

    def _frequency_limit(self):
        return self.frequency_limit

    _derived = ("_stacked", "_spodes", "_built_networks", "_super_parent_weights")

    def _fit_network(self, cache, rows):
        self.__dict__.pop("_spode_tables", None)  # a refit on wide data stores networks instead
        d = cache.n_features
        self._all_pairs_kernel = bool(cache.pair_blocks_fit())  # else: features with very many values
        if self._all_pairs_kernel:  # the pair counts first: their diagonal holds the (j, class) tables
            cache.check_all_pairs_size(what="log-CPT")
            cache.pair_counts_in_use()
            cache.tables_from_pair_counts()
        weights = self._parent_weights(cache)
        if not (weights > 0).any():  # e.g. no feature informs the class: plain average
            weights = np.ones(d)
        self._value_counts = cache.value_counts()
        if self._all_pairs_kernel:
            self._spode_tables = self._fit_spode_tables(cache)
            self.weights_ = _normalized(np.append(weights, 0.0))
            return
        cache.counts_many([(j, p, cache.class_index) for p in range(d) for j in range(d) if j != p])
        small = self._small_tables(cache)
        children = {f: self._child_log_cpt(cache, f) for p in range(d) for f in spode_families(d, p) if len(f) == 3}
        self._set_members(self._spode_networks(small, children.get), np.append(weights, 0.0))

    def _member_title(self, parent) -> str:
        if parent is None:
            return "naive Bayes (no super-parent qualifies)"
        return f"super-parent: {self.node_names_[parent]}"

    def _fit_spode_tables(self, cache) -> dict:
        """Every log-CPT of the SPODEs and of the naive Bayes fallback, as arrays: the
        children's ``log P(x_j | x_p, c)`` are the all-pairs table (diagonal blocks zero),
        the rest is :meth:`_small_tables`."""
        return {"pairs": self._pair_log_cpts(cache), **self._small_tables(cache)}

    def _small_tables(self, cache) -> dict:
        """The SPODEs' class priors ``(d, n_classes)`` and super-parents' ``log P(x_p | c)``,
        naive Bayes' class prior and ``log P(x_j | c)``; the tables of a feature's values
        are stacked by value position ``(R, n_classes)``. All from the ``(x_j, c)`` counts
        in a few array operations, with the estimates of :meth:`_spode_estimates`.

        Notes
        -----
        ``N(c)`` of a feature's table is the class count itself when every row knows the
        feature and the counts are whole numbers (the feature's values partition the rows:
        the same integers); it is summed feature by feature when some feature has an unknown
        value or the counts are weighted."""
        c, d = cache.class_index, cache.n_features
        counts = cache.value_class_counts()  # (R, C): N(x_j, c)
        r = cache.cardinalities[:d]
        per_value = np.repeat(np.arange(d), r)
        classes = cache.counts((c,))
        if cache.whole_counts and not cache.has_unknown[:d].any():  # (C,): every feature's N(c)
            by_class = classes
        elif cache.whole_counts:  # N(c) of each feature's table: whole numbers, exact in any order
            by_class = np.add.reduceat(counts, np.cumsum(r) - r, axis=0)[per_value]
        else:  # weighted sums: its rows added in order
            by_class = np.zeros((d, counts.shape[1]))
            np.add.at(by_class, per_value, counts)
            by_class = by_class[per_value]
        with np.errstate(divide="ignore"):
            nb_tables = self._estimates(counts, by_class, r[per_value], classes)
            nb_prior, nb_children = np.log(nb_tables[0]), np.log(nb_tables[1])
            priors, parents = self._spode_estimates(counts, by_class, r, per_value, classes, nb_prior, nb_children)
        return {"priors": priors, "parents": parents, "nb_prior": nb_prior, "nb_children": nb_children}

    def _estimates(self, counts, by_class, r, classes) -> tuple:
        """``P(c)`` and ``P(x_j | c)`` (rows of ``counts``, ``r`` values each) of naive Bayes:
        m-estimates, or Weka's Laplace estimates. ``by_class``: ``N(c)`` of each row's
        feature, ``(R, C)``, or ``(C,)`` when it is the class count for every feature."""
        n_classes = classes.shape[0]
        if self.smoothing == "weka":  # (N(x, pa) + 1) / (N(pa) + |X|)
            return (classes + 1.0) / (classes.sum() + n_classes), (counts + 1.0) / (by_class + r[:, None])
        m = self.m
        with np.errstate(divide="ignore", invalid="ignore"):  # m_estimate, every table at once
            prior = (classes + m / n_classes) / (classes.sum(axis=0, keepdims=True) + m)
            children = (counts + m / r[:, None]) / (by_class + m)
        prior = np.where(classes.sum(axis=0, keepdims=True) + m > 0, prior, 1.0 / n_classes)
        return prior, np.where(by_class + m > 0, children, 1.0 / r[:, None])

    def _spode_estimates(self, counts, by_class, r, per_value, classes, nb_prior, nb_children) -> tuple:
        """Log of each SPODE's class prior ``(d, C)`` and super-parent's ``P(x_p | c)`` ``(R, C)``.

        m-estimates: naive Bayes' tables (``nb_prior``, ``nb_children``, their logarithms).
        Weka's AODE: the network form of the Laplace joint ``P(c, x_p) = (N(c, x_p) + 1) /
        (N + |C| |X_p|)``, whose ``P(x_p | c)`` is naive Bayes' Laplace estimate.
        """
        d = len(r)
        if self.smoothing != "weka":
            return np.repeat(nb_prior[None], d, axis=0), nb_children.copy()
        prior = (classes + r[:, None]) / (classes.sum() + classes.shape[0] * r[:, None])
        return np.log(prior), nb_children.copy()  # a table of its own: the member networks' CPTs view it

    @property
    def networks_(self) -> list:
        """The member networks: each SPODE (in feature order), then naive Bayes.

        Built on first use from the fitted tables (a fit and a prediction need only the
        tables); the networks are the same, CPT for CPT, as those of data too wide for
        the all-pairs table, which are built during the fit.
        """
        members = self.__dict__.get("networks_", self.__dict__.get("_built_networks"))
        if members is None:
            if "_spode_tables" not in self.__dict__:
                raise AttributeError(f"'{type(self).__name__}' object has no attribute 'networks_'")
            members = self.__dict__["_built_networks"] = self._spode_networks()
        return members

    @networks_.setter
    def networks_(self, members: list) -> None:
        self.__dict__["networks_"] = members

    def _spode_networks(self, tables=None, child_cpt=None) -> list:
        """The member networks from the SPODE tables (the fitted ones by default), their CPTs
        views of them; ``child_cpt(family)`` gives the children's CPTs where the tables hold
        no all-pairs table (:func:`bnclf.models._super_parents.spode_networks`)."""
        tables = self._spode_tables if tables is None else tables
        cards = [len(states) for states in self._encoder.categories_]
        return spode_networks(tables, child_cpt, cards, self.node_names_, self._states(), self._member_title)

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        tables = state.get("_spode_tables")
        if tables is not None:  # stored whole: a PairLogTable made whole, an array as it is
            state["_spode_tables"] = dict(tables, pairs=np.asarray(tables["pairs"]))
        return state

    def __setstate__(self, state: dict) -> None:
        if state.get("_all_pairs_kernel") and "_spode_tables" not in state and "networks_" in state:
            state = dict(state)  # saved when the member networks were stored: their tables
            state["_spode_tables"] = _spode_tables_of(state.pop("networks_"))
        super().__setstate__(state)

    def _stored_member_count(self) -> int:
        if "_spode_tables" in self.__dict__:
            return len(self._encoder.categories_) + 1
        return super()._stored_member_count()

    def _check_fitted_state(self) -> None:
        super()._check_fitted_state()
        if "_spode_tables" in self.__dict__:
            _check_spode_tables(self._spode_tables, self._encoder.categories_, len(self.classes_))

    def _build_derived(self) -> None:
        cards = np.asarray(self._encoder.cardinalities_, dtype=np.int64)
        weights = SuperParentWeights(self._value_counts, cards, self.weights_)
        self._super_parent_weights = weights
        if self._all_pairs_kernel:
            tables = self._spode_tables
            self._spodes = SuperParentKernel(
                tables["pairs"],
                weights.offsets,
                cards,
                tables["priors"],
                tables["parents"],
                tables["nb_prior"],
                tables["nb_children"],
            )
        else:
            super()._build_derived()

    def _member_kernel(self):
        return self._spodes if self._all_pairs_kernel else self._stacked

    def _child_log_cpt(self, cache, family):
        """``log P(x_j | x_p, c)`` of one SPODE child (for data too wide for the all-pairs table)."""
        counts = cache.counts(family)
        r = counts.shape[0]
        alpha, beta = self._child_smoothing(r)
        denominator = counts.sum(axis=0, keepdims=True) + beta
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(denominator > 0, np.log(counts + alpha) - np.log(denominator), -np.log(r))

    def _child_smoothing(self, r):
        """``(alpha, beta)`` of ``P(x_j | x_p, c) = (N + alpha) / (N(x_p, c) + beta)`` for ``|X_j| = r``."""
        if self.smoothing == "weka":
            return 1.0, r  # Laplace
        return self.m / r, self.m

    def _pair_log_cpts(self, cache) -> PairLogTable:
        """``log P(x_j | x_p, c)`` of every SPODE child at once (see the class Notes), made whole
        when first needed (:class:`bnclf.learn._parameters.PairLogTable`; always before the model is
        stored)."""
        r = cache.cardinalities[: cache.n_features].astype(float)
        return child_given_pair_log_table(cache, *self._child_smoothing(r))

    def _exported_members(self) -> list:
        """The members a set of network files holds: every SPODE, and the naive Bayes
        fallback only when a row can use it. With ``frequency_limit=0`` (and in WAODE with
        ``smoothing="weka"``) every SPODE qualifies for every row, so no row falls back."""
        members = self.network_members()
        return members if self._frequency_limit() > 0 else members[:-1]

    def _manifest_extras(self) -> dict:
        """What a reader of the exported files needs to reproduce the per-row weights."""
        return frequency_limit_manifest(self._frequency_limit(), self.node_names_, self._value_counts)

    def _row_weights(self, codes) -> np.ndarray:
        """Each row's member weights ``(n, d + 1)`` under the frequency limit, or the weights
        ``(d + 1,)`` of every row, read-only, when every super-parent qualifies in every row
        (:class:`bnclf.models._super_parents.SuperParentWeights`)."""
        return self._super_parent_weights(codes, self._frequency_limit())


class WAODEClassifier(AODEClassifier):
    """Weighted AODE: the SPODE of parent ``Xp`` weighted by ``I(Xp; C)`` (Jiang & Zhang 2006).

    Parameters
    ----------
    frequency_limit : int, default=1
        Minimum training count of the super-parent's value (with ``smoothing="weka"``,
        none: every feature is a super-parent).
    smoothing : {"m-estimate", "weka"}, default="m-estimate"
        ``"m-estimate"``: every CPT is m-estimated with ``m``. ``"weka"``: the
        estimates and weights of Weka 3.6's ``weka.classifiers.bayes.WAODE``; see Notes.
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.

    Attributes
    ----------
    As :class:`AODEClassifier`; ``weights_`` holds the mutual informations
    (normalized to sum to one).

    Notes
    -----
    With ``smoothing="weka"`` the estimates are Weka 3.6's
    ``weka.classifiers.bayes.WAODE``: every feature is a super-parent (no
    frequency limit); ``P(c, x_p) = (N(c, x_p) + 1/(|C| |X_p|)) / (N + 1)``
    (in network form the m-estimated class prior times
    ``P(x_p | c) = (N(c, x_p) + 1/(|C| |X_p|)) / (N(c) + 1/|C|)``),
    ``P(x_j | c, x_p) = (N(c, x_p, x_j) + 1/|X_j|) / (N(c, x_p) + 1)``, and weights
    the unsmoothed ``I(Xp; C)`` in which a term is dropped when ``P(c, v)`` or
    ``P(c) P(v)`` is below ``1e-6`` (Weka's ``Utils.SMALL``). Weka's WAODE
    rejects training data with missing values and reads a missing test value
    as the first declared value; bnclf sums it out.

    References
    ----------
    Jiang & Zhang (2006), Weightily averaged one-dependence estimators, PRICAI.
    The ETAN paper (Entropy 21, 721, 2019) uses it as a comparator.
    """

    short_names = {"waode": {}}

    def _parent_weights(self, cache) -> np.ndarray:
        if self.smoothing != "weka":
            return cache.mi_with_class()
        # every feature's (value, class) table stacked: the elementwise steps at once, and per
        # feature only the sums, each as np.sum takes it (the same bits as a feature at a time)
        cards = cache.cardinalities[: cache.n_features]
        ends = np.cumsum(cards)
        p = cache.value_class_counts() / cache.total
        pv = p.sum(axis=1, keepdims=True)
        pc = np.repeat([p[e - r : e].sum(axis=0) for e, r in zip(ends.tolist(), cards.tolist())], cards, axis=0)
        expected = pv * pc
        keep = (p >= 1e-6) & (expected >= 1e-6)
        with np.errstate(divide="ignore", invalid="ignore"):
            flat = (p * np.log2(p / expected))[keep]
        kept = np.cumsum(keep.sum(axis=1))[ends - 1]  # the kept terms up to each feature's end
        return np.array([flat[a:b].sum() for a, b in zip([0, *kept[:-1].tolist()], kept.tolist())])

    def _frequency_limit(self):
        return 0 if self.smoothing == "weka" else self.frequency_limit

    def _child_smoothing(self, r):
        if self.smoothing != "weka":
            return super()._child_smoothing(r)
        return 1.0 / r, 1.0  # (N + 1/|X_j|) / (N(x_p, c) + 1)

    def _spode_estimates(self, counts, by_class, r, per_value, classes, nb_prior, nb_children) -> tuple:
        """As :meth:`AODEClassifier._spode_estimates`; Weka's WAODE: ``P(c) = (N(c) + 1/|C|) /
        (N + 1)`` and ``P(x_p | c) = (N(c, x_p) + 1/(|C| |X_p|)) / (N(c) + 1/|C|)``."""
        if self.smoothing != "weka":
            return super()._spode_estimates(counts, by_class, r, per_value, classes, nb_prior, nb_children)
        n_classes = classes.shape[0]
        prior = np.log((classes + 1.0 / n_classes) / (classes.sum() + 1.0))
        parents = (counts + 1.0 / (n_classes * r[per_value, None])) / (by_class + 1.0 / n_classes)
        return np.broadcast_to(prior, (len(r), n_classes)), np.log(parents)


class ATANClassifier(EnsembleClassifier):
    """Averaged TAN: one TAN per root feature, posteriors averaged (Jiang et al. 2012).

    Parameters
    ----------
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.

    Attributes
    ----------
    networks_ : list of Network
        The TAN rooted at each feature, in feature order: member ``r`` equals
        ``TANClassifier(root=r)``.
    weights_ : ndarray
        Uniform here; ``I(X_root; C)`` in :class:`WATANClassifier`.

    Notes
    -----
    Sun et al. (2017) §2.2.2: "the estimated class-membership probabilities of each
    built TAN are averaged", so posteriors, not joints, are combined.

    References
    ----------
    Jiang, Cai, Wang & Zhang (2012), Improving tree augmented naive Bayes for
    class probability estimation, Knowledge-Based Systems 26. Sun, Wang & Sun
    (2017), Entropy 19, §2.2.2.
    """

    short_names = {"atan": {}}

    _combine = "posterior"

    def _root_weights(self, cache) -> np.ndarray:
        return np.ones(cache.n_features)

    def _fit_network(self, cache, rows):
        members = [graph_families(g, cache.class_index) for g in learn_atan(cache)]
        # the TANs share most families (the class prior, each tree edge in one of its two
        # orientations): every distinct family is estimated once
        unique = list(dict.fromkeys(family for families in members for family in families))
        tables = dict(zip(unique, m_estimated_log_cpts(cache, unique, self.m)))
        networks = [
            self._make_network(families, cache, [tables[f] for f in families], title=f"root: {self.node_names_[r]}")
            for r, families in enumerate(members)
        ]
        self._set_members(networks, self._root_weights(cache)[: len(networks)])


class WATANClassifier(ATANClassifier):
    """Weighted ATAN: the TAN rooted at ``Xr`` weighted by ``I(Xr; C)`` (Jiang et al. 2012).

    When every feature has zero mutual information with the class, the weights
    fall back to uniform.

    Parameters
    ----------
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.

    Attributes
    ----------
    As :class:`ATANClassifier`; ``weights_`` holds the mutual informations
    ``I(Xr; C)`` (normalized to sum to one).
    """

    short_names = {"watan": {}}

    def _root_weights(self, cache) -> np.ndarray:
        return cache.mi_with_class()
