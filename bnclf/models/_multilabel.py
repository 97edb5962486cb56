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

import numbers
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, clone
from sklearn.utils.validation import check_is_fitted

from bnclf._params import VERBOSE, Boolean, Integer, Number, Options, Transformer, check_parameters
from bnclf.counts._cache import CountCache
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import (
    MISSING_OPTIONS,
    UNKNOWN_OPTIONS,
    DiscreteData,
    as_frame,
    python_scalar,
    record_feature_names,
)
from bnclf.inference._labels import LabelKernel
from bnclf.learn._multilabel import (
    bdeu_log_cpt,
    bridge_search_size,
    default_max_parents,
    learn_bridge,
    learn_class_graph,
    naive_class_graph,
)
from bnclf.models._base import BayesNetClassifier, FittedState
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
        from bnclf.encoding._discretize import QuantileDiscretizer

        disc = QuantileDiscretizer(n_bins=4) if estimator.discretizer == "quantile" else clone(estimator.discretizer)
        frame = disc.fit_transform(frame)
        estimator._discretizer = disc
    encoder = FeatureEncoder(missing, handle_unknown)
    codes = encoder.fit_transform(frame)
    estimator._encoder = encoder
    return codes, labels, names


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


class MultilabelBNClassifier(Registered, FittedState, MultiOutputMixin, ClassifierMixin, BaseEstimator):
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
        bridge = self._learn_bridge(codes[:, selected], cards[selected], labels)
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

    def _learn_bridge(self, codes, cards, labels) -> dict:
        import warnings

        from tqdm.auto import tqdm

        n_rows, n = labels.shape
        bound = default_max_parents(n_rows, n) if self.max_parents is None else min(int(self.max_parents), n)
        n_label_sets = len(np.unique(labels, axis=0)) if n_rows else 0
        size = bridge_search_size(n_rows, cards, n_label_sets, n, bound)
        if size["seconds"] > 60:
            warnings.warn(
                f"{type(self).__name__}: the bridge search scores up to {size['pairs']:,} feature and "
                f"class-set pairs ({len(cards)} features, {size['sets']:,} sets of at most {bound} of {n} "
                f"classes, {n_label_sets:,} label combinations): up to about {size['seconds'] / 60:.0f} "
                "minutes on one core (pruning usually saves much of it). Lower max_parents, keep "
                "feature_selection='cfs', or pass verbose=1 to follow it.",
                UserWarning,
                stacklevel=4,
            )
        with tqdm(total=size["sets"], desc="bridge", unit="sets", disable=not self.verbose, leave=False) as bar:
            return learn_bridge(codes, cards, labels, alpha=self.alpha, max_parents=bound, progress=bar.update)

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
        return NetworkMembers([(None, self.network_)], self)

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

    def contributions(self, X: ArrayLike | pd.DataFrame) -> pd.DataFrame:
        """Each feature's exact contribution to each label's log-odds under the MAP configuration.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        DataFrame
            Index ``(row, label, value)``: ``value`` is the label's state in the MAP
            configuration (``map_query``'s answer over all labels). Columns: ``"(labels)"``,
            the class subgraph's families, then one per feature. Each row sums to
            ``log P(label = value, others at the MAP, x) - log P(label = 1 - value,
            others at the MAP, x)``, the label's log-odds of keeping its MAP state with
            the others fixed.

        Notes
        -----
        ``log P(y, x)`` is a sum of one term per family: each feature's ``log P(x_j |
        its class parents)`` and each class's ``log P(y_i | pa_i)`` (the ensemble: the
        members' class subgraphs averaged, as it pools them). Flipping one label changes
        only the families that contain it, so a feature whose class parents exclude the
        label contributes zero, and a missing or unseen feature contributes zero (it has
        no children; its CPT sums out to one).
        """
        codes = self._encode(X)
        states = np.asarray(self.map_query(X).to_numpy(), dtype=np.int64)
        n, m = codes.shape
        n_labels = len(self.label_names_)
        values = np.zeros((n, n_labels, m + 1))
        for label in range(n_labels):
            kept, flipped = states.copy(), states.copy()
            flipped[:, label] = 1 - states[:, label]
            for family, table, weight in self._class_factors:
                if label in family:
                    table = np.asarray(table)[0]
                    values[:, label, 0] += weight * (
                        table[tuple(kept[:, v] for v in family)] - table[tuple(flipped[:, v] for v in family)]
                    )
            for family, table in zip(self._feature_families, self._feature_cpts):
                if m + label not in family[1:]:
                    continue
                j = family[0]
                known = codes[:, j] >= 0
                x = np.where(known, codes[:, j], 0)
                first = table[(x, *[kept[:, p - m] for p in family[1:]])]
                second = table[(x, *[flipped[:, p - m] for p in family[1:]])]
                values[:, label, 1 + j] = np.where(known, first - second, 0.0)
        index = X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(n)
        frame = pd.DataFrame(
            values.reshape(n * n_labels, m + 1),
            index=pd.MultiIndex.from_arrays(
                [
                    np.repeat(np.asarray(index), n_labels),
                    np.tile(np.asarray(self.label_names_, dtype=object), n),
                    states.reshape(-1),
                ],
                names=["row", "label", "value"],
            ),
            columns=["(labels)", *[python_scalar(c) for c in self._encoder.feature_names_]],
        )
        return frame

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
