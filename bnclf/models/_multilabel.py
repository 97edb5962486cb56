"""Multilabel Bayesian network classifiers: mNB, mFAN and the BN ensemble (Corani et al. 2014).

Every class ``C_1..C_n`` is a binary node; features have only class parents
(the *bridge*, BDeu-optimal per feature) and the classes form a naive or
forest-augmented subgraph. Queries are exact max-/sum-product over the class
variables with the features absorbed as evidence (:mod:`bnclf.inference`).
Binary relevance and the ensemble of classifier chains, the paper's baselines,
are scikit-learn's ``MultiOutputClassifier`` and ``ClassifierChain`` around
:class:`~bnclf.NaiveBayesClassifier`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, clone
from sklearn.utils.validation import check_is_fitted

from bnclf._params import VERBOSE, Boolean, Integer, Number, Options, Transformer, check_parameters
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import (
    MISSING_OPTIONS,
    UNKNOWN_OPTIONS,
    as_frame,
    python_scalar,
    record_feature_names,
)
from bnclf.inference._labels import LabelKernel
from bnclf.learn._multilabel import learn_class_graph, naive_class_graph
from bnclf.models._base import BayesNetClassifier, FittedState
from bnclf.models._multilabel_fit import (
    bdeu_tables,
    bridge_families,
    check_label_network_state,
    label_count_cache,
    search_bridge,
)
from bnclf.models._multilabel_queries import CutPointCoder, MultilabelQueries
from bnclf.models._registry import Registered
from bnclf.network import Network, NetworkMembers

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


def encode_multilabel_training(
    estimator: BaseEstimator,
    X: ArrayLike | pd.DataFrame,
    Y: ArrayLike | pd.DataFrame | spmatrix,
    missing: str = "category",
    handle_unknown: str = "marginalize",
) -> tuple[np.ndarray, np.ndarray, list, Any, FeatureEncoder]:
    """Check ``X`` and ``Y``, fit a discretizer and an encoder:
    ``(codes, labels, names, discretizer, encoder)``.

    The discretizer comes from the estimator's ``discretizer`` parameter (``"quantile"`` is
    4 quartile bins, None none, or a transformer, cloned); the estimator keeps both. Sets
    the scikit-learn feature-name attributes on ``estimator``.
    """
    frame = as_frame(X)
    if frame.shape[0] == 0:
        raise ValueError("X has 0 samples; at least one training row is required.")
    labels, names = as_label_matrix(Y)
    if labels.shape[0] != frame.shape[0]:
        raise ValueError(f"X has {frame.shape[0]} rows but Y has {labels.shape[0]}; they must match.")
    record_feature_names(estimator, X, frame)
    disc = None
    if estimator.discretizer is not None:
        from bnclf.encoding._discretize import QuantileDiscretizer

        disc = QuantileDiscretizer(n_bins=4) if estimator.discretizer == "quantile" else clone(estimator.discretizer)
        frame = disc.fit_transform(frame)
    encoder = FeatureEncoder(missing, handle_unknown)
    codes = encoder.fit_transform(frame)
    return codes, labels, names, disc, encoder


def cfs_union(codes: ArrayLike, cardinalities: ArrayLike, labels: np.ndarray) -> np.ndarray:
    """Features selected by CFS for any label (Corani et al. 2014, section 3): sorted column indices.

    CFS runs once per label on the coded features (:func:`bnclf.learn.cfs_select`
    with Weka's defaults: best-first search, locally predictive features
    added, Weka-compatible symmetric uncertainty); the symmetric-uncertainty
    matrix of the features is computed once and shared.
    """
    from bnclf.learn._cfs import cfs_select, symmetric_uncertainty_matrix, symmetric_uncertainty_with

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


class MultilabelBNClassifier(
    Registered, FittedState, MultilabelQueries, MultiOutputMixin, ClassifierMixin, BaseEstimator
):
    """Multilabel naive (mNB) or forest-augmented (mFAN) Bayesian network classifier.

    Corani, Antonucci, Mauá & Gabaglio (2014), *Trading off speed and accuracy
    in multilabel classification*. The queries (``map_query``, ``marginal_query``,
    ``predict``, ``contributions``) are those of
    :class:`~bnclf.models._multilabel_queries.MultilabelQueries`.

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
        (:func:`~bnclf.learn._multilabel.default_max_parents`).
    feature_selection : {"cfs", None}, default="cfs"
        CFS once per label on the discretized features, the union kept
        (:func:`bnclf.learn.cfs_select` with Weka's defaults: best-first search,
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
        (:class:`~bnclf.QuantileDiscretizer` with 4 bins).
    missing, handle_unknown
        As for :class:`~bnclf.BayesNetClassifier`. A feature value
        missing or unseen at predict time is summed out exactly.
    verbose : int, default=0
        1 shows a tqdm bar over the bridge's candidate parent sets. Whatever
        its value, a fit whose bridge search is estimated at more than a
        minute warns before it starts
        (:func:`~bnclf.learn._multilabel.bridge_search_size`).

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

    _multilabel = True

    short_names = {"mnb": {"class_graph": "nb"}, "mfan": {"class_graph": "fan"}}

    _check_predict_frame = BayesNetClassifier._check_predict_frame

    def __init__(
        self,
        *,
        class_graph: str = "nb",
        alpha: float = 5.0,
        max_parents: int | None = None,
        feature_selection: str | None = "cfs",
        query: str = "joint",
        allow_empty: bool = False,
        discretizer: str | BaseEstimator | None = "quantile",
        missing: str = "category",
        handle_unknown: str = "marginalize",
        verbose: int = 0,
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
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    # -- parameters ------------------------------------------------------------------
    _parameters = {
        "class_graph": Options(CLASS_GRAPHS, "the graph among the labels"),
        "alpha": Number(0, low_open=True, meaning="the BDeu equivalent sample size", note="the paper uses 5"),
        "max_parents": Integer(0, "the largest set of class parents of a feature", none="the default from the rows"),
        "feature_selection": Options(("cfs",), "the feature selection before the bridge search", none="no selection"),
        "query": Options(QUERIES, "what predict answers: the joint MAP or each class's marginal decision"),
        "allow_empty": Boolean("whether predict may answer the empty set of classes"),
        "discretizer": Transformer(("quantile",), "the discretizer of continuous columns", none="no discretization"),
        "missing": Options(MISSING_OPTIONS, "what a missing feature value is in training"),
        "handle_unknown": Options(UNKNOWN_OPTIONS, "what becomes of an unknown value at predict time"),
        "verbose": VERBOSE,
    }

    def _check_params(self):
        check_parameters(self)
        if self.missing == "ignore":
            raise ValueError(
                "missing='ignore' is not available for multilabel networks; use "
                "missing='category' (a missing value is a state of its own)."
            )

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
        codes, labels, names, self._discretizer, self._encoder = encode_multilabel_training(
            self, X, Y, self.missing, self.handle_unknown
        )
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
        for derived in self._derived:
            self.__dict__.pop(derived, None)
        m, n = codes.shape[1], labels.shape[1]
        names = list(self._encoder.feature_names_) + list(self.label_names_)
        cards = np.asarray(self._encoder.cardinalities_, dtype=np.int64)
        cache = label_count_cache(codes, labels, cards, names)
        selected = np.arange(m) if self.feature_selection is None else cfs_union(codes, cards, labels)
        bridge = search_bridge(
            codes[:, selected],
            cards[selected],
            labels,
            alpha=self.alpha,
            max_parents=self.max_parents,
            verbose=self.verbose,
            owner=type(self).__name__,
        )
        parents, families = bridge_families(selected, bridge["parents"], m)
        self.bridge_stats_ = {k: bridge[k] for k in ("scored", "pruned", "max_parents")}
        self._learn_class_part(labels)
        self._feature_families, self._feature_cpts = families, bdeu_tables(cache, families, self.alpha)
        self._names, self._states = names, list(self._encoder.categories_) + [[0, 1] for _ in range(n)]
        self._build_networks(cache, m, n)
        self.selected_features_ = [names[j] for j in selected]
        self.bridge_parents_ = {names[j]: tuple(self.label_names_[c] for c in parents[j]) for j in selected}
        self._build_derived()
        self.treewidth_ = self._kernel.treewidth()
        return self

    def _learn_class_part(self, labels):
        graph = learn_class_graph(labels, kind=self.class_graph, alpha=self.alpha)
        self._class_parents = [tuple(p) for p in graph["parents"]]
        self.root_ = self.label_names_[graph["root"]]
        self.class_graph_score_ = float(graph["score"])
        self.root_scores_ = dict(zip(self.label_names_, graph["root_scores"].tolist()))

    def _class_tables(self, cache, m, parents):
        families = [(m + i, *[m + p for p in pa]) for i, pa in enumerate(parents)]
        return families, bdeu_tables(cache, families, self.alpha)

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
    _derived = ("_cut_points", "_label_kernel")
    """Built from the fitted state at the end of a fit and on load: never stored."""
    _fitted_attribute = "label_names_"

    def _build_derived(self) -> None:
        m = len(self._encoder.feature_names_)
        kernel = LabelKernel(self._feature_families, self._feature_cpts, self._class_factors, m, len(self.label_names_))
        self._label_kernel = kernel
        self._cut_points = CutPointCoder(self._discretizer, self._encoder, [f[0] for f in self._feature_families])

    @property
    def _kernel(self) -> LabelKernel:
        """The query kernel over the classes."""
        return self._label_kernel

    def _check_fitted_state(self) -> None:
        """Raise a ValueError unless a loaded model is consistent (encoder, labels, networks)."""
        if "label_names_" in self.__dict__:
            networks = [net for _, net in self.network_members()]
            check_label_network_state(
                self._encoder,
                self.n_features_in_,
                self.label_names_,
                networks,
                self._states,
                self._feature_families,
                self._feature_cpts,
            )

    @property
    def dag_(self) -> nx.DiGraph:
        check_is_fitted(self, "network_")
        return self.network_.dag

    def network_members(self) -> list:
        """``[(None, network_)]`` (the ensemble lists its members)."""
        check_is_fitted(self, "label_names_")
        return NetworkMembers([(None, self.network_)], self)

    def to_pgmpy(self) -> DiscreteBayesianNetwork:
        """The fitted network as a pgmpy ``DiscreteBayesianNetwork`` (classes and selected features)."""
        check_is_fitted(self, "network_")
        return self.network_.to_pgmpy()

    # -- queries ---------------------------------------------------------------------------
    def _encode(self, X) -> np.ndarray:
        """Feature codes of ``X``: by cut points when they suffice, else discretized and encoded."""
        check_is_fitted(self, "label_names_")
        frame = self._check_predict_frame(X)
        codes = self._cut_points.codes(frame)
        if codes is not None:
            return codes
        if self._discretizer is not None:
            frame = self._discretizer.transform(frame)
        return self._encoder.transform(frame)

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
    alpha, max_parents, feature_selection, query, allow_empty, discretizer, missing, handle_unknown, verbose
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
    budget), queries raise :class:`~bnclf.counts.TableTooLargeError` rather
    than answer approximately; use :class:`MultilabelBNClassifier` there, as
    the paper recommends.
    """

    short_names = {"bn-ensemble": {}}

    _parameters = {"class_graph": None}  # one member per class graph

    def __init__(
        self,
        *,
        alpha: float = 5.0,
        max_parents: int | None = None,
        feature_selection: str | None = "cfs",
        query: str = "joint",
        allow_empty: bool = False,
        discretizer: str | BaseEstimator | None = "quantile",
        missing: str = "category",
        handle_unknown: str = "marginalize",
        verbose: int = 0,
    ) -> None:
        self.alpha = alpha
        self.max_parents = max_parents
        self.feature_selection = feature_selection
        self.query = query
        self.allow_empty = allow_empty
        self.discretizer = discretizer
        self.missing = missing
        self.handle_unknown = handle_unknown
        self.verbose = verbose

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
        return NetworkMembers(enumerate(self.networks_), self)

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


def replay_multilabel_fit(
    estimator: BaseEstimator,
    discretizer: Any,
    encoder: FeatureEncoder,
    label_names: list,
    codes: np.ndarray,
    labels: np.ndarray,
    *,
    n_features_in: int,
    feature_names_in: list | None = None,
    chain_seeds: list | None = None,
) -> BaseEstimator:
    """Fit a multilabel estimator on rows already coded with given states: a first-format
    model file's training rows.

    ``discretizer`` (or None) and ``encoder`` become the fitted ones as they are, with the
    label names and the scikit-learn feature attributes; ``codes`` (``-1`` for no state)
    and the 0/1 ``labels`` must fit them. ``chain_seeds`` replays the chains drawn by an
    ensemble of classifier chains. Returns ``estimator``, fitted as the file's model was.
    """
    estimator._discretizer = discretizer
    estimator._encoder = encoder
    estimator.label_names_ = list(label_names)
    estimator.classes_ = [np.array([0, 1]) for _ in label_names]
    estimator.n_features_in_ = int(n_features_in)
    if feature_names_in is not None:
        estimator.feature_names_in_ = np.asarray(feature_names_in, dtype=object)
    labels = labels.astype(np.int8)
    if chain_seeds is None:
        return estimator._fit_coded(codes, labels)
    return estimator._fit_coded(codes, labels, [int(s) for s in chain_seeds])
