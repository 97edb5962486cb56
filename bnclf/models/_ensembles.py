"""Ensembles of Bayesian networks: AODE, WAODE, ATAN and WATAN."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from bnclf._params import Integer, Options
from bnclf.inference._kernels import StackedKernel, SuperParentKernel, log_weighted_posterior, log_weighted_sum
from bnclf.learn._parameters import child_given_pair_log_cpts, m_estimated_log_cpts
from bnclf.learn._restricted import graph_families, learn_aode, learn_atan, learn_nb
from bnclf.models._base import BayesNetClassifier


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
        weights = np.asarray(weights, dtype=float)
        total = weights.sum()
        self.networks_ = list(networks)
        self.weights_ = weights / total if total > 0 else np.full(len(weights), 1 / len(weights))

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
        members = self._member_kernel()(codes)
        weights = self._row_weights(codes)
        if self._combine == "posterior":
            return log_weighted_posterior(members, weights)
        return log_weighted_sum(members, weights)


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

    _derived = ("_stacked", "_spodes")

    def _fit_network(self, cache, rows):
        c, d = cache.class_index, cache.n_features
        dense = cache.pair_blocks_fit()  # else: features with very many values
        if dense:
            pair_tables, offsets = self._pair_log_cpts(cache)
        else:
            cache.counts_many([(j, p, c) for p in range(d) for j in range(d) if j != p])
        cards = cache.cardinalities
        networks = []
        for p, graph in enumerate(learn_aode(cache)):
            families = graph_families(graph, c)
            tables = []
            for family in families:
                if len(family) == 3 and not dense:
                    tables.append(self._child_log_cpt(cache, family))
                elif len(family) == 3:  # (j, p, C): a slice of the all-pairs table
                    j = family[0]
                    tables.append(pair_tables[offsets[j] : offsets[j] + cards[j], offsets[p] : offsets[p] + cards[p]])
                else:
                    tables.append(self._small_log_cpt(cache, family, p))
            title = f"super-parent: {self.node_names_[p]}"
            networks.append(self._make_network(families, cache, tables, title=title))
        nb_families = graph_families(learn_nb(cache), c)
        nb_tables = [self._small_log_cpt(cache, f, None) for f in nb_families]
        networks.append(
            self._make_network(nb_families, cache, nb_tables, title="naive Bayes (no super-parent qualifies)")
        )
        weights = self._parent_weights(cache)
        if not (weights > 0).any():  # e.g. no feature informs the class: plain average
            weights = np.ones(d)
        self._set_members(networks, np.append(weights, 0.0))
        self._value_counts = [cache.counts((i,)) for i in range(d)]
        self._all_pairs_kernel = bool(dense)

    def _build_derived(self) -> None:
        if self._all_pairs_kernel:
            self._spodes = self._super_parent_kernel()
        else:
            super()._build_derived()

    def _member_kernel(self):
        return self._spodes if self._all_pairs_kernel else self._stacked

    def _super_parent_kernel(self) -> SuperParentKernel:
        """The all-pairs kernel of the SPODEs, from the member networks' tables: the block of
        child ``j`` and super-parent ``p`` is ``log P(x_j | x_p, c)`` of SPODE ``p``."""
        d = len(self.networks_) - 1
        c = d
        cards = np.array([len(states) for states in self.networks_[0].states[:d]], dtype=np.int64)
        offsets = np.cumsum(cards) - cards
        width = int(cards.sum())
        by_child = [dict(zip((f[0] for f in net.families), net.log_cpts)) for net in self.networks_]
        pair_tables = np.zeros((width, width, len(self.classes_)))
        for p in range(d):
            for j in range(d):
                if j != p:
                    pair_tables[offsets[j] : offsets[j] + cards[j], offsets[p] : offsets[p] + cards[p]] = by_child[p][j]
        return SuperParentKernel(
            pair_tables,
            offsets,
            cards,
            spode_priors=[by_child[p][c] for p in range(d)],
            spode_parents=[by_child[p][p] for p in range(d)],
            nb_tables=[by_child[d][c]] + [by_child[d][j] for j in range(d)],
        )

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

    def _pair_log_cpts(self, cache):
        """``log P(x_j | x_p, c)`` of every SPODE child at once (see the class Notes)."""
        r = cache.cardinalities[: cache.n_features].astype(float)
        return child_given_pair_log_cpts(cache, *self._child_smoothing(r))

    def _small_log_cpt(self, cache, family, parent):
        """The class prior or ``P(x_p | c)`` of the SPODE of ``parent`` (None: naive Bayes)."""
        if self.smoothing != "weka":
            return m_estimated_log_cpts(cache, [family], self.m)[0]
        counts = cache.counts(family)
        if family[0] == cache.class_index and parent is not None:
            r = cache.cardinalities[parent]  # the marginal of the Laplace joint P(c, x_p)
            p = (counts + r) / (counts.sum() + counts.shape[0] * r)
        else:  # Laplace: (N(x, pa) + 1) / (N(pa) + |X|)
            p = (counts + 1.0) / (counts.sum(axis=0, keepdims=True) + counts.shape[0])
        return np.log(p)

    def _exported_members(self) -> list:
        """The members a set of network files holds: every SPODE, and the naive Bayes
        fallback only when a row can use it. With ``frequency_limit=0`` (and in WAODE with
        ``smoothing="weka"``) every SPODE qualifies for every row, so no row falls back."""
        members = self.network_members()
        return members if self._frequency_limit() > 0 else members[:-1]

    def _manifest_extras(self) -> dict:
        """What a reader of the exported files needs to reproduce the per-row weights."""
        if self._frequency_limit() > 0:
            rule = (
                "a SPODE's weight is zero for a row whose super-parent value occurs fewer than "
                "frequency_limit times in training (value_counts); the weights of a row are "
                "renormalized; the last member (naive Bayes) has weight 1 when no SPODE qualifies"
            )
        else:
            rule = (
                "frequency_limit is 0, so every SPODE qualifies for every row and the weights are "
                "the same for every row (the naive Bayes fallback, which no row uses, is not written)"
            )
        return {
            "frequency_limit": self._frequency_limit(),
            "value_counts": {
                str(name): [float(v) for v in counts] for name, counts in zip(self.node_names_, self._value_counts)
            },
            "row_weights": rule,
        }

    def _row_weights(self, codes) -> np.ndarray:
        n, d = codes.shape
        base = self.weights_[:d]
        frequency = np.zeros((n, d))
        for i in range(d):
            known = codes[:, i] >= 0
            frequency[known, i] = self._value_counts[i][codes[known, i]]
        qualifies = frequency >= self._frequency_limit()
        weights = np.zeros((n, d + 1))
        weights[:, :d] = np.where(qualifies, base, 0.0)
        none = ~(weights[:, :d] > 0).any(axis=1)
        weights[none, d] = 1.0
        return weights / weights.sum(axis=1, keepdims=True)


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
        c = cache.class_index
        weights = np.zeros(cache.n_features)
        for i in range(cache.n_features):
            p = cache.counts((i, c)) / cache.total
            pv, pc = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
            keep = (p >= 1e-6) & (pv * pc >= 1e-6)
            weights[i] = np.sum(p[keep] * np.log2(p[keep] / (pv * pc)[keep]))
        return weights

    def _frequency_limit(self):
        return 0 if self.smoothing == "weka" else self.frequency_limit

    def _child_smoothing(self, r):
        if self.smoothing != "weka":
            return super()._child_smoothing(r)
        return 1.0 / r, 1.0  # (N + 1/|X_j|) / (N(x_p, c) + 1)

    def _small_log_cpt(self, cache, family, parent):
        if self.smoothing != "weka" or parent is None:
            return super()._small_log_cpt(cache, family, parent)
        counts, n_classes = cache.counts(family), cache.n_classes
        if family[0] == cache.class_index:  # (N(c) + 1/|C|) / (N + 1)
            return np.log((counts + 1.0 / n_classes) / (counts.sum() + 1.0))
        r = counts.shape[0]  # (N(c, x_p) + 1/(|C||X_p|)) / (N(c) + 1/|C|)
        return np.log((counts + 1.0 / (n_classes * r)) / (counts.sum(axis=0, keepdims=True) + 1.0 / n_classes))


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
        graphs = learn_atan(cache)
        networks = [
            self._make_network(graph_families(g, cache.class_index), cache, title=f"root: {self.node_names_[r]}")
            for r, g in enumerate(graphs)
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
