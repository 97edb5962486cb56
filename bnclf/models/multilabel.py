"""Multilabel Bayesian network classifiers: mNB, mFAN and the BN ensemble (Corani et al. 2014).

Every class ``C_1..C_n`` is a binary node; features have only class parents
(the *bridge*, BDeu-optimal per feature) and the classes form a naive or
forest-augmented subgraph. Queries are exact max-/sum-product over the class
variables with the features absorbed as evidence (:mod:`bnclf.label_inference`).
Binary relevance and the ensemble of classifier chains, the paper's baselines,
are scikit-learn's ``MultiOutputClassifier`` and ``ClassifierChain`` around
:class:`~bnclf.models.naive.NaiveBayesClassifier`.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, clone
from sklearn.utils.validation import check_is_fitted

from ..data import (
    MISSING_OPTIONS,
    UNKNOWN_OPTIONS,
    DiscreteData,
    FeatureEncoder,
    as_frame,
    check_option,
    python_scalar,
    record_feature_names,
)
from ..label_inference import clique_tree_marginals, eliminate, min_fill_order, reduce_evidence, row_chunks
from ..multilabel_structure import (
    bdeu_log_cpt,
    learn_bridge,
    learn_class_graph,
    moral_treewidth,
    naive_class_graph,
)
from ..network import Network
from ..stats import CountCache, TableTooLargeError, _size, memory_budget
from .base import BayesNetClassifier, FittedState

if TYPE_CHECKING:
    import networkx as nx
    from pgmpy.models import DiscreteBayesianNetwork
    from scipy.sparse import spmatrix

CLASS_GRAPHS = ("nb", "fan")
QUERIES = ("joint", "marginal")


def as_label_matrix(Y: ArrayLike | pd.DataFrame | spmatrix) -> tuple[np.ndarray, list]:
    """A multilabel target as ``(codes (n, L) int8 0/1, label names)``.

    Accepts a binary indicator matrix (ndarray, list of lists, sparse matrix)
    or a DataFrame of label columns (names kept); values must be 0/1 or
    booleans, with no missing value.
    """
    if Y is None:
        raise ValueError(
            "A multilabel target Y is required: pass fit(X, Y) with Y a 0/1 indicator "
            "matrix or a DataFrame of label columns."
        )
    if hasattr(Y, "toarray"):
        Y = Y.toarray()
    if isinstance(Y, pd.DataFrame):
        names = [python_scalar(c) for c in Y.columns]
        frame = Y
    else:
        array = np.asarray(Y, dtype=object)
        if array.ndim != 2:
            raise ValueError(
                f"Y has shape {array.shape}; a multilabel target is 2-D (n_samples, n_labels). For a "
                "single label use a single-label classifier, or Y.reshape(-1, 1)."
            )
        names = [f"label{i}" for i in range(array.shape[1])]
        frame = pd.DataFrame(array, columns=names)
    if frame.shape[1] == 0:
        raise ValueError("Y has no label columns; a multilabel target needs at least one.")
    codes = np.empty(frame.shape, dtype=np.int8)
    for i, name in enumerate(frame.columns):
        column = frame.iloc[:, i]
        if column.isna().any():
            raise ValueError(
                f"Label column {name!r} has missing values; multilabel targets must be "
                "complete 0/1 indicators (drop or fill those rows)."
            )
        values = pd.to_numeric(
            column.astype(object).map(lambda v: int(v) if isinstance(v, (bool, np.bool_)) else v), errors="coerce"
        )
        if values.isna().any() or not values.isin([0, 1]).all():
            bad = sorted({str(v) for v in column[~values.isin([0, 1]) | values.isna()]})[:5]
            raise ValueError(
                f"Label column {name!r} has values {bad}; labels must be 0/1 or booleans "
                "(binarize it, e.g. with sklearn.preprocessing.MultiLabelBinarizer)."
            )
        codes[:, i] = values.to_numpy(dtype=np.int8)
    return codes, names


def check_discretizer(discretizer: object) -> None:
    """Raise unless ``discretizer`` is ``"quantile"``, None or a transformer with ``fit_transform``."""
    if not (discretizer is None or discretizer == "quantile" or hasattr(discretizer, "fit_transform")):
        raise ValueError(
            f"discretizer={discretizer!r} is not valid; give 'quantile', None "
            "or a transformer with fit/transform (e.g. MDLDiscretizer())."
        )


def encode_multilabel_training(
    estimator: BaseEstimator,
    X: ArrayLike | pd.DataFrame,
    Y: ArrayLike | pd.DataFrame | spmatrix,
    missing: str = "category",
    handle_unknown: str = "marginalize",
) -> tuple[np.ndarray, np.ndarray, list]:
    """Check ``X`` and ``Y``, fit the estimator's discretizer and encoder: ``(codes, labels, names)``.

    Sets ``estimator._discretizer`` (from its ``discretizer`` parameter:
    ``"quantile"`` is 4 quartile bins, None none, or a transformer, cloned),
    ``estimator._encoder`` and the scikit-learn feature-name attributes.
    """
    frame = as_frame(X)
    if frame.shape[0] == 0:
        raise ValueError("X has 0 samples; at least one training row is required.")
    labels, names = as_label_matrix(Y)
    if labels.shape[0] != frame.shape[0]:
        raise ValueError(f"X has {frame.shape[0]} rows but Y has {labels.shape[0]}; they must match.")
    record_feature_names(estimator, X, frame)
    estimator._discretizer = None
    if estimator.discretizer is not None:
        from ..discretize import QuantileDiscretizer

        disc = QuantileDiscretizer(n_bins=4) if estimator.discretizer == "quantile" else clone(estimator.discretizer)
        frame = disc.fit_transform(frame)
        estimator._discretizer = disc
    encoder = FeatureEncoder(missing, handle_unknown)
    codes = encoder.fit_transform(frame)
    estimator._encoder = encoder
    return codes, labels, names


def cfs_union(codes: ArrayLike, cardinalities: ArrayLike, labels: np.ndarray) -> np.ndarray:
    """Features selected by CFS for any label (Corani et al. 2014, section 3): sorted column indices.

    CFS runs once per label on the coded features (:func:`bnclf.cfs.cfs_select`
    with Weka's defaults: best-first search, locally predictive features
    added, Weka-compatible symmetric uncertainty); the symmetric-uncertainty
    matrix of the features is computed once and shared.
    """
    from ..cfs import cfs_select, symmetric_uncertainty_matrix, symmetric_uncertainty_with

    codes = np.asarray(codes)
    if codes.shape[1] == 0:
        return np.arange(0)
    cards = np.asarray(cardinalities, dtype=np.int64)
    su = symmetric_uncertainty_matrix(codes, cards)
    chosen: set[int] = set()
    for i in range(labels.shape[1]):
        target = np.asarray(labels[:, i], dtype=np.int64)
        su_target = symmetric_uncertainty_with(codes, cards, target, 2)
        chosen.update(
            int(j)
            for j in cfs_select(
                codes, cards, target, 2, su=su, su_target=su_target, locally_predictive=True, weka_compatible=True
            )
        )
    return np.array(sorted(chosen), dtype=np.int64)


class MultilabelBNClassifier(FittedState, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Multilabel naive (mNB) or forest-augmented (mFAN) Bayesian network classifier.

    Corani, Antonucci, Mauá & Gabaglio (2014), *Trading off speed and accuracy
    in multilabel classification*.

    Parameters
    ----------
    class_graph : {"nb", "fan"}, default="nb"
        Class subgraph: naive Bayes (mNB) or forest-augmented naive Bayes (mFAN),
        optimized for every root, the best-scoring root kept.
    alpha : float, default=5
        BDeu equivalent sample size, for the structure scores and the
        parameters (the paper's setting).
    max_parents : int, optional
        Largest set of class parents of a feature; by default the largest
        ``g`` with ``2**g`` at most the square root of the number of training
        rows and at most 20,000 candidate sets
        (:func:`~bnclf.multilabel_structure.default_max_parents`).
    feature_selection : {"cfs", None}, default="cfs"
        CFS once per label on the discretized features, the union kept
        (:func:`bnclf.cfs.cfs_select` with Weka's defaults: best-first search,
        locally predictive features added); None keeps every feature.
    query : {"joint", "marginal"}, default="joint"
        What :meth:`predict` answers: the joint MAP configuration of all
        classes, or each class's marginal decision.
    allow_empty : bool, default=False
        Allow the empty prediction (no relevant class). By default the joint
        query returns the most probable non-empty configuration, and the
        marginal query, if no class passes 0.5, the single most probable class.
    discretizer : "quantile", None or a transformer, default="quantile"
        Applied to continuous columns before encoding, fitted on the training
        rows: ``"quantile"`` is the paper's quartile binning
        (:class:`~bnclf.discretize.QuantileDiscretizer` with 4 bins).
    missing, handle_unknown
        As for :class:`~bnclf.models.base.BayesNetClassifier`. A feature value
        missing or unseen at predict time is summed out exactly.

    Attributes
    ----------
    network_ : bnclf.network.Network
        Classes and selected features; ``to_pgmpy()`` exports it.
    dag_ : networkx.DiGraph
    label_names_ : list
    classes_ : list of ndarray
        ``[array([0, 1])] * n_labels`` (scikit-learn's multi-output convention).
    root_ : label name of the class subgraph's root.
    selected_features_ : list of the selected feature names (in input order).
    bridge_parents_ : dict
        Feature name -> tuple of class names.
    treewidth_ : int
        Largest clique of the min-fill triangulation of the moral graph over
        the classes once the features are observed (the paper's convention:
        clique size, not size minus one).
    bridge_stats_ : dict
        Candidate parent sets scored and pruned, and the bound used.

    Notes
    -----
    ``predict_proba`` returns an ``(n_samples, n_labels)`` array of the
    marginal probabilities that each class is relevant (as scikit-learn's
    multilabel neural networks do, rather than a list of two-column arrays).
    Features with no class parent are independent of every class and take no
    part in the queries; they stay in the exported network.
    """

    _check_predict_frame = BayesNetClassifier._check_predict_frame

    def __init__(
        self,
        class_graph: str = "nb",
        alpha: float = 5.0,
        max_parents: int | None = None,
        feature_selection: str | None = "cfs",
        query: str = "joint",
        allow_empty: bool = False,
        discretizer: str | BaseEstimator | None = "quantile",
        missing: str = "category",
        handle_unknown: str = "marginalize",
    ) -> None:
        self.class_graph = class_graph
        self.alpha = alpha
        self.max_parents = max_parents
        self.feature_selection = feature_selection
        self.query = query
        self.allow_empty = allow_empty
        self.discretizer = discretizer
        self.missing = missing
        self.handle_unknown = handle_unknown

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    # -- parameters ------------------------------------------------------------------
    def _check_params(self):
        if not isinstance(self, MultilabelBNEnsemble):
            check_option("class_graph", self.class_graph, CLASS_GRAPHS)
        check_option("query", self.query, QUERIES)
        check_option("feature_selection", self.feature_selection, ("cfs", None))
        check_option("missing", self.missing, MISSING_OPTIONS)
        check_option("handle_unknown", self.handle_unknown, UNKNOWN_OPTIONS)
        if self.missing == "ignore":
            raise ValueError(
                "missing='ignore' is not available for multilabel networks; use "
                "missing='category' (a missing value is a state of its own)."
            )
        if (
            not isinstance(self.alpha, numbers.Real)
            or isinstance(self.alpha, bool)
            or not 0 < self.alpha < float("inf")
        ):
            raise ValueError(
                f"alpha={self.alpha!r} is not valid; alpha is the BDeu equivalent sample "
                "size, a finite number > 0 (the paper uses 5)."
            )
        if self.max_parents is not None and (
            not isinstance(self.max_parents, numbers.Integral)
            or isinstance(self.max_parents, bool)
            or self.max_parents < 0
        ):
            raise ValueError(
                f"max_parents={self.max_parents!r} is not valid; give an integer >= 0 "
                "(the largest set of class parents of a feature) or None for the default."
            )
        if not isinstance(self.allow_empty, (bool, np.bool_)):
            raise ValueError(f"allow_empty={self.allow_empty!r} is not valid; give True or False.")
        check_discretizer(self.discretizer)

    # -- fitting -----------------------------------------------------------------------
    def fit(self, X: ArrayLike | pd.DataFrame, Y: ArrayLike | pd.DataFrame | spmatrix) -> MultilabelBNClassifier:
        """Learn the bridge, the class subgraph and the BDeu parameters.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Features; continuous columns are discretized by ``discretizer``.
        Y : DataFrame or array-like of shape (n_samples, n_labels)
            Binary indicator matrix (0/1 or booleans), or a DataFrame of label
            columns whose names become the class node names.

        Returns
        -------
        self
        """
        self._check_params()
        codes, labels, names = encode_multilabel_training(self, X, Y, self.missing, self.handle_unknown)
        feature_names = [python_scalar(c) for c in self._encoder.feature_names_]
        clash = set(map(str, feature_names)) & set(map(str, names))
        if clash:
            raise ValueError(
                f"Label names {sorted(clash)} are also feature names; rename the label "
                "columns (nodes of one network need distinct names)."
            )
        self.label_names_ = list(names)
        self.classes_ = [np.array([0, 1]) for _ in names]
        self._fit_coded(codes, labels)
        return self

    def _fit_coded(self, codes: np.ndarray, labels: np.ndarray):
        m, n = codes.shape[1], labels.shape[1]
        for derived in ("_fast_plan_", "_label_kernel"):
            self.__dict__.pop(derived, None)
        cards = np.asarray(self._encoder.cardinalities_, dtype=np.int64)
        data = DiscreteData(
            np.hstack([codes, labels.astype(np.int64)]),
            np.append(cards, np.full(n, 2)),
            np.zeros(len(codes), dtype=np.int64),
            1,
        )
        cache = CountCache(data)
        cache.names = [str(v) for v in list(self._encoder.feature_names_) + self.label_names_] + ["-"]
        selected = self._select_features(codes, cards, labels)
        bridge = learn_bridge(
            codes[:, selected], cards[selected], labels, alpha=self.alpha, max_parents=self.max_parents
        )
        parents = {int(j): tuple(sorted(p)) for j, p in zip(selected, bridge["parents"])}
        self.bridge_stats_ = {k: bridge[k] for k in ("scored", "pruned", "max_parents")}
        self._learn_class_part(labels)
        names = list(self._encoder.feature_names_) + list(self.label_names_)
        states = list(self._encoder.categories_) + [[0, 1] for _ in range(n)]
        feature_families = [(j, *[m + c for c in parents[j]]) for j in selected]
        feature_cpts = [bdeu_log_cpt(cache.counts(f), self.alpha) for f in feature_families]
        self._feature_families = feature_families
        self._feature_cpts = feature_cpts
        self._names, self._states = names, states
        self._build_networks(cache, m, n)
        self.selected_features_ = [names[j] for j in selected]
        self.bridge_parents_ = {names[j]: tuple(self.label_names_[c] for c in parents[j]) for j in selected}
        self._build_derived()
        self.treewidth_ = self._kernel.treewidth()
        return self

    def _select_features(self, codes, cards, labels) -> np.ndarray:
        if self.feature_selection is None:
            return np.arange(codes.shape[1])
        return cfs_union(codes, cards, labels)

    def _learn_class_part(self, labels):
        graph = learn_class_graph(labels, kind=self.class_graph, alpha=self.alpha)
        self._class_parents = [tuple(p) for p in graph["parents"]]
        self.root_ = self.label_names_[graph["root"]]
        self.class_graph_score_ = float(graph["score"])
        self.root_scores_ = dict(zip(self.label_names_, graph["root_scores"].tolist()))

    def _class_tables(self, cache, m, parents):
        families = [(m + i, *[m + p for p in pa]) for i, pa in enumerate(parents)]
        return families, [bdeu_log_cpt(cache.counts(f), self.alpha) for f in families]

    def _build_networks(self, cache, m, n):
        families, tables = self._class_tables(cache, m, self._class_parents)
        self._class_factors = [((f[0] - m, *[p - m for p in f[1:]]), t[None], 1.0) for f, t in zip(families, tables)]
        self.network_ = Network(
            families + self._feature_families,
            tables + self._feature_cpts,
            self._names,
            self._states,
            None,
            title=f"{'mFAN' if self.class_graph == 'fan' else 'mNB'}, root: {self.root_}",
        )

    # -- the fitted network ---------------------------------------------------------------
    _derived = ("_fast_plan_", "_label_kernel")
    """Built from the fitted state at the end of a fit and on load: never stored."""
    _fitted_attribute = "label_names_"

    def _build_derived(self) -> None:
        self._label_kernel = LabelKernel(
            self._feature_families,
            self._feature_cpts,
            self._class_factors,
            len(self._encoder.feature_names_),
            len(self.label_names_),
        )

    @property
    def _kernel(self) -> LabelKernel:
        """The query kernel over the classes."""
        return self._label_kernel

    def _check_fitted_state(self) -> None:
        """Raise a ValueError unless a loaded model is consistent (encoder, labels, networks)."""
        if "label_names_" not in self.__dict__:
            return
        if len(self._encoder.feature_names_) != self.n_features_in_:
            raise ValueError("the encoder's columns do not match n_features_in_.")
        states = list(self._encoder.categories_) + [[0, 1] for _ in self.label_names_]
        members = [net for _, net in self.network_members()]
        if any(net.states != states for net in members) or self._states != states:
            raise ValueError("the states of the networks differ from the encoder's and the labels'.")
        for family, table in zip(self._feature_families, self._feature_cpts):
            if np.shape(table) != tuple(len(states[v]) for v in family):
                raise ValueError(f"the feature CPT of {family} does not fit the states.")

    @property
    def dag_(self) -> nx.DiGraph:
        check_is_fitted(self, "network_")
        return self.network_.dag

    def network_members(self) -> list:
        """``[(None, network_)]`` (the ensemble lists its members)."""
        check_is_fitted(self, "label_names_")
        return [(None, self.network_)]

    def to_pgmpy(self) -> DiscreteBayesianNetwork:
        """The fitted network as a pgmpy ``DiscreteBayesianNetwork`` (classes and selected features)."""
        check_is_fitted(self, "network_")
        return self.network_.to_pgmpy()

    # -- queries ---------------------------------------------------------------------------
    def _encode(self, X) -> np.ndarray:
        check_is_fitted(self, "label_names_")
        frame = self._check_predict_frame(X)
        codes = self._encode_by_cut_points(frame)
        if codes is not None:
            return codes
        if self._discretizer is not None:
            frame = self._discretizer.transform(frame)
        return self._encoder.transform(frame)

    def _fast_plan(self):
        """``[(feature index, cut points)]`` when every feature in the network is a discretized column.

        Then a row's codes are interval positions (``numpy.searchsorted``), with no
        categorical columns built; None otherwise.
        """
        plan = self.__dict__.get("_fast_plan_")
        if plan is None:
            plan = False
            cuts = getattr(self._discretizer, "cut_points_", None)
            names = list(self._encoder.feature_names_)
            used = sorted({f[0] for f in self._feature_families})
            if cuts is not None and all(names[j] in cuts for j in used):
                bins = self._discretizer.bin_labels_
                if all(list(self._encoder.categories_[j][: len(bins[names[j]])]) == list(bins[names[j]]) for j in used):
                    plan = [(j, np.asarray(cuts[names[j]], dtype=float)) for j in used]
            self._fast_plan_ = plan
        return plan or None

    def _encode_by_cut_points(self, frame: pd.DataFrame):
        plan = self._fast_plan()
        if plan is None:
            return None
        codes = np.zeros(frame.shape, dtype=np.int64)
        for j, cuts in plan:
            column = frame.iloc[:, j]
            if not pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
                return None
            values = column.to_numpy(dtype=float)
            if np.isnan(values).any():
                return None  # missing values take the general path (state or summed out)
            codes[:, j] = np.searchsorted(cuts, values, side="left")
        return codes

    def _label_index(self, labels) -> list[int]:
        if labels is None:
            return list(range(len(self.label_names_)))
        if isinstance(labels, (str, numbers.Integral)) and not isinstance(labels, bool):
            labels = [labels]
        out = []
        for name in labels:
            if name not in self.label_names_:
                raise ValueError(f"Unknown label {name!r}; the labels are {self.label_names_}.")
            out.append(self.label_names_.index(name))
        if len(set(out)) != len(out):
            raise ValueError(f"labels={list(labels)!r} names a label twice.")
        return out

    def _given(self, given) -> dict:
        if not given:
            return {}
        if not isinstance(given, dict):
            raise ValueError(
                f"given={given!r} is not valid; give a dict of label name -> 0 or 1, e.g. given={{'happy': 1}}."
            )
        out = {}
        for name, value in given.items():
            if name not in self.label_names_:
                raise ValueError(f"Unknown label {name!r} in given; the labels are {self.label_names_}.")
            if value not in (0, 1) or isinstance(value, float) and not float(value).is_integer():
                raise ValueError(f"given[{name!r}]={value!r} is not valid; a label is observed as 0 or 1.")
            out[self.label_names_.index(name)] = int(value)
        return out

    def map_query(
        self,
        X: ArrayLike | pd.DataFrame,
        labels: Hashable | Sequence[Hashable] | None = None,
        given: dict[Hashable, int] | None = None,
    ) -> pd.DataFrame:
        """Most probable joint configuration of ``labels`` given the features (and ``given`` labels).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Feature rows; missing or unseen values are summed out.
        labels : list of label names, optional
            The labels to maximize over (default: every label not in ``given``).
            The other free labels are summed out (a marginal MAP query).
        given : dict, optional
            Observed labels, ``{name: 0 or 1}``.

        Returns
        -------
        pandas.DataFrame
            One 0/1 column per queried label, one row per sample.

        Notes
        -----
        Unless ``allow_empty`` is set, when the query covers every label not in
        ``given`` and the answer together with ``given`` would be the empty
        configuration, the most probable non-empty configuration is returned
        instead: the best of the MAP answers with one more label forced to 1,
        which together cover every non-empty configuration.
        """
        given = self._given(given)
        index = (
            self._label_index(labels)
            if labels is not None
            else [i for i in range(len(self.label_names_)) if i not in given]
        )
        overlap = [self.label_names_[i] for i in index if i in given]
        if overlap:
            raise ValueError(f"Labels {overlap} are both queried and given; drop them from one.")
        codes = self._encode(X)
        states = self._kernel.map(codes, index, given)
        full = len(index) + len(given) == len(self.label_names_)
        if full and not self.allow_empty and not any(given.values()):
            states = self._kernel.nonempty_map(codes, index, given, states)
        return pd.DataFrame(states, columns=[self.label_names_[i] for i in index])

    def marginal_query(
        self,
        X: ArrayLike | pd.DataFrame,
        labels: Hashable | Sequence[Hashable] | None = None,
        given: dict[Hashable, int] | None = None,
    ) -> pd.DataFrame:
        """Probability that each of ``labels`` is relevant, given the features (and ``given`` labels).

        Returns
        -------
        pandas.DataFrame
            ``P(label = 1 | x, given)``, one column per label (given labels
            show their observed value).
        """
        given = self._given(given)
        index = self._label_index(labels)
        codes = self._encode(X)
        probs = self._kernel.marginals(codes, index, given)
        return pd.DataFrame(probs, columns=[self.label_names_[i] for i in index])

    def predict_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Marginal probability that each class is relevant: ``(n_samples, n_labels)``."""
        codes = self._encode(X)
        return self._kernel.marginals(codes, list(range(len(self.label_names_))), {})

    def predict(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Joint MAP configuration (``query="joint"``) or marginal decisions: ``(n_samples, n_labels)`` 0/1."""
        codes = self._encode(X)
        every = list(range(len(self.label_names_)))
        if self.query == "joint":
            states = self._kernel.map(codes, every, {})
            if not self.allow_empty:
                states = self._kernel.nonempty_map(codes, every, {}, states)
            return states
        probs = self._kernel.marginals(codes, every, {})
        states = (probs > 0.5).astype(np.int64)
        if not self.allow_empty:
            empty = ~states.any(axis=1)
            states[np.flatnonzero(empty), probs[empty].argmax(axis=1)] = 1
        return states

    def score(
        self,
        X: ArrayLike | pd.DataFrame,
        y: ArrayLike | pd.DataFrame | spmatrix,
        sample_weight: ArrayLike | None = None,
    ) -> float:
        """Global accuracy (exact match of the whole label set)."""
        from sklearn.metrics import accuracy_score

        labels, _ = as_label_matrix(y)
        return accuracy_score(labels, self.predict(X), sample_weight=sample_weight)


class MultilabelBNEnsemble(MultilabelBNClassifier):
    """The BN ensemble: one naive class graph per root, shared bridge, logarithmic opinion pooling.

    Corani et al. (2014, section 3; their earlier work [1]). Member ``r`` has
    class ``C_r`` as root and every other class as its child (not optimized);
    all members share the BDeu-optimal bridge. The pooled posterior is
    ``P(c | x) ∝ prod_r P_r(c | x)^(1/n)``.

    Parameters
    ----------
    alpha, max_parents, feature_selection, query, allow_empty, discretizer,
    missing, handle_unknown
        As for :class:`MultilabelBNClassifier`.

    Attributes
    ----------
    networks_ : list of Network
        The members (member ``r`` has root ``label_names_[r]``).

    Notes
    -----
    Because the members share the bridge, the pooled log-posterior is the
    bridge factors plus the average of the members' class-subgraph
    log-probabilities: pairwise factors between every two classes. Queries on
    it are exact (variable elimination over a complete graph, treewidth equal
    to the number of classes). When one row's widest factor, ``2**n_labels``
    cells, exceeds the memory budget (about 27 classes with the default
    budget), queries raise :class:`~bnclf.stats.TableTooLargeError` rather
    than answer approximately; use :class:`MultilabelBNClassifier` there, as
    the paper recommends.
    """

    def __init__(
        self,
        alpha: float = 5.0,
        max_parents: int | None = None,
        feature_selection: str | None = "cfs",
        query: str = "joint",
        allow_empty: bool = False,
        discretizer: str | BaseEstimator | None = "quantile",
        missing: str = "category",
        handle_unknown: str = "marginalize",
    ) -> None:
        self.alpha = alpha
        self.max_parents = max_parents
        self.feature_selection = feature_selection
        self.query = query
        self.allow_empty = allow_empty
        self.discretizer = discretizer
        self.missing = missing
        self.handle_unknown = handle_unknown

    def _learn_class_part(self, labels):
        self.root_ = None

    def _build_networks(self, cache, m, n):
        members, factors = [], []
        for r in range(n):
            families, tables = self._class_tables(cache, m, naive_class_graph(n, r))
            members.append(
                Network(
                    families + self._feature_families,
                    tables + self._feature_cpts,
                    self._names,
                    self._states,
                    None,
                    title=f"root: {self.label_names_[r]}",
                )
            )
            factors += [((f[0] - m, *[p - m for p in f[1:]]), t[None], 1.0 / n) for f, t in zip(families, tables)]
        self.networks_ = members
        self._class_factors = factors

    @property
    def dag_(self) -> nx.DiGraph:
        raise AttributeError("MultilabelBNEnsemble holds one network per root; read networks_[r].dag.")

    def network_members(self) -> list:
        check_is_fitted(self, "networks_")
        return list(enumerate(self.networks_))

    def to_pgmpy(self) -> list[DiscreteBayesianNetwork]:  # type: ignore[override]
        """The members as a list of pgmpy ``DiscreteBayesianNetwork`` (member ``r`` rooted at label ``r``)."""
        check_is_fitted(self, "networks_")
        return [net.to_pgmpy() for net in self.networks_]


def mnb(**params: Any) -> MultilabelBNClassifier:
    """mNB: :class:`MultilabelBNClassifier` with a naive class subgraph (registered as ``"mnb"``)."""
    return MultilabelBNClassifier(class_graph="nb", **params)


def mfan(**params: Any) -> MultilabelBNClassifier:
    """mFAN: :class:`MultilabelBNClassifier` with a forest-augmented class subgraph (``"mfan"``)."""
    return MultilabelBNClassifier(class_graph="fan", **params)


class LabelKernel:
    """Exact batched queries over the classes of a multilabel network.

    Parameters
    ----------
    feature_families : list of tuple
        ``(feature, *class variables)`` with class variables numbered
        ``m + i``; parents in CPT axis order.
    feature_cpts : list of ndarray
        Log-CPTs, axes ``(feature, *parents)``.
    class_factors : list of (scope, table, weight)
        Class CPTs as log factors over class indices ``0..n-1`` (table with a
        leading axis of size 1), each multiplied by ``weight`` (1 for a single
        network, ``1/n`` per member for the pooled ensemble).
    m, n : int
        Number of features and of classes.

    Notes
    -----
    Features with the same set of class parents are summed into one factor
    per row (one gather per feature), so the elimination sees one factor per
    distinct parent set. A feature whose value is unknown (code -1) adds zero,
    which sums it out exactly since it has no children.
    """

    def __init__(
        self,
        feature_families: Sequence[Sequence[int]],
        feature_cpts: Sequence[np.ndarray],
        class_factors: Iterable[tuple[Sequence[int], np.ndarray, float]],
        m: int,
        n: int,
    ) -> None:
        self.m, self.n = m, n
        self.class_factors = [(tuple(s), t * w) for s, t, w in class_factors]
        groups: dict[tuple, list] = {}
        for family, table in zip(feature_families, feature_cpts):
            parents = [p - m for p in family[1:]]
            if not parents:
                continue  # independent of every class: a constant per row
            order = sorted(range(len(parents)), key=lambda a: parents[a])
            scope = tuple(parents[a] for a in order)
            flat = table.transpose([0] + [a + 1 for a in order]).reshape(table.shape[0], -1)
            groups.setdefault(scope, []).append((family[0], flat))
        self.groups = groups
        self.cards = [2] * n

    def scopes(self) -> list[tuple]:
        return [s for s, _ in self.class_factors] + list(self.groups)

    def treewidth(self) -> int:
        return moral_treewidth(self.scopes(), self.n)

    def factors(self, codes: np.ndarray) -> list:
        """Log factors over classes for the rows of ``codes`` (class CPTs shared, features per row)."""
        out = list(self.class_factors)
        rows = len(codes)
        for scope, members in self.groups.items():
            total = np.zeros((rows, 2 ** len(scope)))
            for j, flat in members:
                x = codes[:, j]
                known = x >= 0
                if known.all():
                    total += flat[x]
                else:
                    total[known] += flat[x[known]]
            out.append((scope, total.reshape((rows,) + (2,) * len(scope))))
        return out

    def _plan(self, summed, maximized, given):
        scopes = [tuple(v for v in s if v not in given) for s in self.scopes()]
        order, widest = min_fill_order(scopes, list(summed) + list(maximized), self.cards, first=set(summed))
        need = 8.0 * 2**widest
        if need > memory_budget():
            raise TableTooLargeError(
                f"This query needs a factor over {widest} classes ({2**widest:,} cells, {_size(need)} "
                f"per row), over the memory budget of {_size(memory_budget())}. Query fewer labels, give "
                "some labels, lower max_parents, or use MultilabelBNClassifier instead of the ensemble."
            )
        return order, 2**widest

    def _tree_cells(self, order, given) -> int:
        """Cells per row of all the cliques of ``order`` (a calibration keeps them all)."""
        pool = [set(v for v in s if v not in given) for s in self.scopes()]
        total = 0
        for v in order:
            touching = [s for s in pool if v in s]
            pool = [s for s in pool if v not in s]
            clique = set().union(*touching) | {v}
            total += 2 ** len(clique)
            pool.append(clique - {v})
        return total

    def _run(self, codes, summed, maximized, given):
        """Eliminate in row chunks: yields ``(rows, kept_scope, kept, argmax)`` per chunk."""
        order, cells = self._plan(summed, maximized, given)
        for rows in row_chunks(len(codes), cells):
            n_rows = rows.stop - rows.start
            factors = reduce_evidence(self.factors(codes[rows]), given)
            kept_scope, kept, argmax = eliminate(
                factors, self.cards, n_rows, summed=summed, maximized=maximized, order=order
            )
            yield rows, kept_scope, np.broadcast_to(kept, (n_rows,) + kept.shape[1:]), argmax

    def map(self, codes: np.ndarray, index: Sequence[int], given: Mapping[int, int]) -> np.ndarray:
        """``(n_rows, len(index))`` MAP states of the labels ``index`` (others summed out)."""
        return self.map_value(codes, index, given)[0]

    def map_value(
        self, codes: np.ndarray, index: Sequence[int], given: Mapping[int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """MAP states of ``index`` and their log value ``max log P(c_index, given, x)`` (unnormalized)."""
        free = [i for i in range(self.n) if i not in given and i not in index]
        states = np.zeros((len(codes), len(index)), dtype=np.int64)
        values = np.zeros(len(codes))
        if not len(codes):
            return states, values
        for rows, _, kept, argmax in self._run(codes, free, index, given):
            for position, i in enumerate(index):
                states[rows, position] = argmax[i]
            values[rows] = kept.reshape(-1)
        return states, values

    def nonempty_map(
        self, codes: np.ndarray, index: Sequence[int], given: Mapping[int, int], states: np.ndarray
    ) -> np.ndarray:
        """Replace all-zero MAP answers (with all-zero ``given``) by the best non-empty configuration.

        The best non-empty configuration has some label at 1, so its value is
        ``max_i maxmarginal_i(1)``; one max-product calibration gives every
        label's max-marginal, and one MAP query with the best label forced to
        1 decodes the configuration.
        """
        empty = np.flatnonzero(~states.any(axis=1))
        if not len(empty) or not index:
            return states
        states = states.copy()
        sub = codes[empty]
        free = [i for i in range(self.n) if i not in given]
        summed = [i for i in free if i not in index]
        best_label = np.zeros(len(empty), dtype=np.int64)
        if summed:  # a marginal MAP query: max over ``index`` of sums over the rest, one label at a time
            values = np.full((len(empty), len(index)), -np.inf)
            for position, i in enumerate(index):
                _, values[:, position] = self.map_value(sub, [k for k in index if k != i], {**given, i: 1})
            best_label = values.argmax(axis=1)
        else:
            order, _ = self._plan(free, [], given)
            for rows in row_chunks(len(sub), self._tree_cells(order, given)):
                factors = reduce_evidence(self.factors(sub[rows]), given)
                peaks = clique_tree_marginals(
                    factors, self.cards, rows.stop - rows.start, index, order=order, maximize=True
                )
                best_label[rows] = np.column_stack([peaks[i][:, 1] for i in index]).argmax(axis=1)
        for position, i in enumerate(index):
            rows = np.flatnonzero(best_label == position)
            if not len(rows):
                continue
            rest = [k for k in index if k != i]
            found, _ = self.map_value(sub[rows], rest, {**given, i: 1})
            answer = np.zeros((len(rows), len(index)), dtype=np.int64)
            answer[:, position] = 1
            for column, k in enumerate(rest):
                answer[:, index.index(k)] = found[:, column]
            states[empty[rows]] = answer
        return states

    def marginals(self, codes: np.ndarray, index: Sequence[int], given: Mapping[int, int]) -> np.ndarray:
        """``(n_rows, len(index))`` probabilities ``P(C_i = 1 | x, given)`` from one clique-tree calibration."""
        out = np.zeros((len(codes), len(index)))
        free = [i for i in range(self.n) if i not in given]
        for position, i in enumerate(index):
            if i in given:
                out[:, position] = given[i]
        wanted = [i for i in index if i not in given]
        if not len(codes) or not wanted:
            return out
        order, _ = self._plan(free, [], given)
        for rows in row_chunks(len(codes), self._tree_cells(order, given)):
            factors = reduce_evidence(self.factors(codes[rows]), given)
            logs = clique_tree_marginals(factors, self.cards, rows.stop - rows.start, wanted, order=order)
            for position, i in enumerate(index):
                if i in logs:
                    out[rows, position] = np.exp(logs[i][:, 1])
        return out
