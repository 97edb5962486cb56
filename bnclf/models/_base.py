"""The scikit-learn base class shared by every Bayesian network classifier."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from bnclf._params import Number, Options, check_parameters
from bnclf.counts._cache import CountCache
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import (
    MISSING_OPTIONS,
    UNKNOWN_OPTIONS,
    DiscreteData,
    as_frame,
    check_sample_weight,
    class_name_of,
    encode_target,
    index_labels,
    missing_columns_keyword,
    python_scalar,
    record_feature_names,
    shown_names,
)
from bnclf.inference._kernels import log_posterior
from bnclf.learn._parameters import m_estimated_log_cpts
from bnclf.learn._restricted import graph_families
from bnclf.models._registry import Registered
from bnclf.network import Network, NetworkMembers

if TYPE_CHECKING:
    import dask.dataframe as dd
    import networkx as nx
    from pgmpy.models import DiscreteBayesianNetwork


class FittedState:
    """A model's state is what it stores: ``__getstate__`` leaves out the ``_derived``
    attributes (kernels), and ``__setstate__`` (a pickle, a model file) checks the loaded
    state and builds them again."""

    _derived: tuple[str, ...] = ()
    _fitted_attribute = "classes_"

    def _build_derived(self) -> None:
        """Build the ``_derived`` attributes from the fitted state (predict leaves the
        estimator's ``__dict__`` unchanged, as scikit-learn requires)."""

    def _check_fitted_state(self) -> None:
        """Raise a ValueError when the fitted state is inconsistent."""

    def __getstate__(self) -> dict:
        state = dict(super().__getstate__())  # a copy: object.__getstate__ returns __dict__ itself
        for name in self._derived:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if self._fitted_attribute in self.__dict__:
            self._check_fitted_state()
            self._build_derived()


class BayesNetClassifier(Registered, FittedState, ClassifierMixin, BaseEstimator):
    """Base class: validation, encoding, counting, parameters and prediction.

    A subclass implements :meth:`_learn_structure` (a pure structure learner
    applied to the count cache); classifiers that are not one DAG (ensembles,
    multinets, instance-specific learners) override :meth:`_fit_network` and
    :meth:`_joint_log_likelihood` instead. ``predict``, ``predict_proba`` and
    ``predict_log_proba`` all derive from ``_joint_log_likelihood``.

    Parameters
    ----------
    m : float, default=1.0
        m-estimate weight of the CPTs (``m=0``: maximum likelihood).
    missing : {"category", "ignore", "error"}, default="category"
        Missing training values: a state of their own, left out of the counts,
        or rejected. See :class:`bnclf.encoding.FeatureEncoder`.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        Predict-time values with no state in the model (missing, or never seen
        in training): summed out exactly, or rejected.

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Feature names, when ``fit`` got a DataFrame with string column names.
    dag_ : networkx.DiGraph
        The learned structure, nodes named by feature and class names.
    class_name_ : str or hashable
        Name of the class node in ``dag_``: the name of ``y`` if it has one (a
        ``Series`` name or a one-column ``DataFrame``'s column, not always a str), else
        ``"class"``.
    families_ : dict
        ``child -> tuple of parents`` in the axis order of its CPT (class last).
    log_cpts_ : dict
        ``child -> ndarray`` of natural-log probabilities with axes
        ``(child, *families_[child])``.
    categories_ : dict
        ``node -> list`` of state labels in code order.
    """

    _abstract = True

    _network_kind = "single"
    """``"single"``, ``"ensemble"`` or ``"multinet"``: how the fitted networks combine."""

    def __init__(self, *, m: float = 1.0, missing: str = "category", handle_unknown: str = "marginalize") -> None:
        self.m = m
        self.missing = missing
        self.handle_unknown = handle_unknown

    # -- scikit-learn plumbing ----------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    _parameters = {
        "m": Number(0, meaning="the m-estimate weight", note="1 is the default, 0 is maximum likelihood"),
        "missing": Options(MISSING_OPTIONS, "what a missing feature value is in training"),
        "handle_unknown": Options(UNKNOWN_OPTIONS, "what becomes of an unknown value at predict time"),
    }

    def _check_params(self):
        """Check the constructor parameters against :attr:`_parameters` (one table per
        class, see :mod:`bnclf._params`); subclasses add checks between parameters."""
        check_parameters(self)

    # -- fitting -----------------------------------------------------------------------------
    _counts_needed: str | None = "pairs"
    """The count tables this learner reads before its structure is known, declared so that a
    fit from chunks or Dask partitions can count them: ``"class"`` (the class and every
    ``(x_j, class)`` table), ``"pairs"`` (also every ``(x_i, x_j, class)`` table), or None
    (the learner reads the coded rows: it cannot learn from summed counts). Tables a
    learner needs once its structure is known are asked for with
    ``counts.including(families)``, which counts them in one more pass over the chunks."""

    _derived: tuple[str, ...] = ()
    """Attributes built from the fitted state (kernels) by ``_build_derived``, at the end of a
    fit and when a model is loaded: never stored, in a pickle or a model file."""

    def _count_passes(self) -> int:
        """Passes over the chunks that count tables: 2 when the CPT families are not among
        the tables of ``_counts_needed`` (KDB with ``k >= 2``)."""
        return 1

    def fit(
        self,
        X: ArrayLike | pd.DataFrame,
        y: ArrayLike | pd.DataFrame | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> BayesNetClassifier:
        """Learn structure and parameters from discrete features ``X`` and labels ``y``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features), or Dask DataFrame
            Discrete features: object, category, bool or integer columns.
            Continuous columns raise an error; discretize them first (e.g.
            ``make_pipeline(MDLDiscretizer(), TANClassifier())``). A Dask DataFrame is
            counted partition by partition (see :meth:`fit_chunks` for the protocol and
            the supported learners); the model equals the in-memory fit on the computed
            DataFrame.
        y : array-like of shape (n_samples,), one-column DataFrame, or Dask Series
            Class labels; a Dask Series with the partitions of ``X`` when ``X`` is a Dask
            DataFrame. Required: the default ``None`` (scikit-learn's signature) raises a
            ValueError.
        sample_weight : array-like of shape (n_samples,), optional
            How many times each row counts, finite and ``>= 0``: every count table is a
            weighted count, so structure scores and CPTs see a row of weight 2 as two
            rows (boosting, bagging and class reweighting work through it). A row of
            weight 0 is left out before encoding, exactly as if it were dropped (its
            values add no state). Learners that read training rows rather than counts
            (the instance-specific and the search learners) have no ``sample_weight``:
            their ``fit(X, y)`` says so to scikit-learn's ``has_fit_parameter``.

        Returns
        -------
        self

        Notes
        -----
        Weighted counts are sums of weights in float64, so integer weights give the
        tables of the rows repeated that many times, bit for bit, and with them the same
        structure, CPTs and predictions.
        """
        self._check_params()
        if _is_dask(X):
            if sample_weight is not None:
                raise ValueError("sample_weight is not taken with a Dask DataFrame; fit in memory, or repeat the rows.")
            from bnclf.counts._chunks import dask_source

            return self._fit_source(dask_source(X, y))
        if isinstance(X, Iterator):
            raise TypeError(
                f"fit got an iterator ({type(X).__name__}); to fit from chunks of rows pass "
                "(X, y) pairs to fit_chunks(chunks) instead."
            )
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None; "
                "pass the class labels as fit(X, y)."
            )
        frame = as_frame(X)
        if frame.shape[0] == 0:
            raise ValueError("X has 0 samples; at least one training row is required.")
        classes, y_codes = encode_target(y)
        if len(y_codes) != frame.shape[0]:
            raise ValueError(
                f"X has {frame.shape[0]} rows but y has {len(y_codes)}; they must match: give one label per row of X."
            )
        weights = check_sample_weight(sample_weight, frame.shape[0])
        if weights is not None and not weights.all():  # weight 0: the row is dropped
            frame, classes, y_codes, weights = _drop_unweighted(frame, classes, y_codes, weights)
        encoder = FeatureEncoder(self.missing, self.handle_unknown)
        codes = encoder.fit_transform(frame)
        self._forget_fitted()
        record_feature_names(self, X, frame)
        self._set_labels(encoder, classes, class_name_of(y, encoder.feature_names_))
        return self._fit_coded(DiscreteData(codes, encoder.cardinalities_, y_codes, len(classes), weights))

    def fit_chunks(
        self,
        chunks: Iterable | Callable[[], Iterator],
        *,
        categories: Mapping[Any, Any] | None = None,
        classes: ArrayLike | None = None,
    ) -> BayesNetClassifier:
        """Learn from chunks of rows that are never all in memory at once.

        Each chunk is coded and counted on its own and the count summaries are added;
        the learner runs on the sum. Counts are additive and sums of integer counts are
        exact, so the model equals ``fit(pd.concat(Xs), pd.concat(ys))`` bit for bit
        (same structure, same log-CPTs), however the rows are cut.

        Parameters
        ----------
        chunks : list of (X, y) pairs, function returning an iterator of them, or iterator
            Each ``X`` a DataFrame (or array) with the same columns, each ``y`` its class
            labels; an ``(X, y, sample_weight)`` triple weights the chunk's rows (as
            :meth:`fit` does; rows of weight 0 are dropped as the chunk is read). A list,
            or a function returning a new iterator, may be read several times: once to
            collect the categories of the columns whose categories are not declared,
            once to count, and once more for the CPT families of ``KDBClassifier(k>=2)``.
            An iterator (a generator) is read once, so every column's categories and the
            classes must be declared, and the learner must need one counting pass.
        categories : dict, optional
            ``column -> list of categories``: declares them (the codes follow this
            order, as for a pandas ``CategoricalDtype`` column); a value outside them is
            an error. Columns with a ``CategoricalDtype`` in the first chunk are
            declared already; the other columns get their sorted distinct values over
            all chunks, as in memory.
        classes : array-like, optional
            Every class label (declared classes that no row has are dropped, as in
            memory). Default: the categories of a categorical ``y``, else the labels
            collected in the first pass.

        Returns
        -------
        self

        Raises
        ------
        TypeError
            For a learner that reads training rows (ETAN, the instance-specific and the
            search-based learners); the message lists those that learn from counts.
        ValueError
            For a chunk value outside the agreed categories, naming the column and the
            way to declare them.

        Notes
        -----
        Why a method of its own rather than ``fit(chunks)``: in scikit-learn ``fit(X,
        y)`` means rows and labels (pipelines, cross-validation and ``clone`` slice
        ``X``), ``y=None`` is an error for a classifier, and a generator can be read
        once while a fit may need several passes, which this method checks and
        explains. A Dask DataFrame, which is a table of rows, goes to ``fit(X, y)``.
        The fitted model is the same as an in-memory fit's and is saved the same way.
        """
        from bnclf.counts._chunks import chunk_source

        self._check_counts_learner()
        return self._fit_source(chunk_source(chunks, categories), classes)

    def refit_parameters(self, X: Any, y: Any = None, *, add: bool = False) -> BayesNetClassifier:
        """Recount the CPTs of the learned structure on new data; the structure is kept.

        Parameters
        ----------
        X : DataFrame, array-like, Dask DataFrame, or chunks
            Rows with the fitted columns; or, with ``y=None``, ``(X, y)`` chunks as
            :meth:`fit_chunks` takes them (read once: the families to count are known).
        y : array-like or Dask Series, optional
            Class labels of ``X``; they must be among ``classes_``.
        add : bool, default=False
            ``False``: the CPTs come from the new rows only. ``True``: the new counts are
            added to the counts the model was fitted on (``counts_``), so that ``fit(A)``
            then ``refit_parameters(B, add=True)`` has the CPTs of the structure learned on
            A with the counts of A and B.

        Returns
        -------
        self

        Notes
        -----
        The model's states stay; a value outside them is an error. A column that had no
        missing values and has some in the new rows gains the ``<missing>`` state when
        ``missing="category"``. Single-network estimators only (not ensembles,
        multinets or instance-specific learners).
        """
        from bnclf.counts._chunks import chunk_source, dask_source, frame_source, is_dask_collection

        check_is_fitted(self, "classes_")
        if "network_" not in self.__dict__ or "counts_" not in self.__dict__:
            raise TypeError(
                f"{type(self).__name__} is not one network with kept counts (ensembles, multinets and "
                "instance-specific learners are not); refit_parameters keeps one learned structure "
                "and recounts its families. Use fit instead."
            )
        if is_dask_collection(X):
            source = dask_source(X, y)
        elif y is None:
            source = chunk_source(X)
        else:
            source = frame_source(self._check_predict_frame(X), y)
        if list(source.names) != list(self._encoder.feature_names_):
            raise ValueError(
                f"the data has the columns {list(source.names)[:10]}, the model "
                f"{list(self._encoder.feature_names_)[:10]}; they must be the same."
            )
        return self._add_counts(source, self.network_.families, add=add)

    def _partial_fit(self, X, y, classes=None, categories=None, sample_weight=None) -> BayesNetClassifier:
        """Add the counts of one chunk of rows to ``counts_`` and recompute the CPTs of the
        structure ``_learn_structure`` gives without counts (see ``partial_fit``)."""
        from bnclf.counts._chunks import _target_series, classes_of, declare, first_chunk_encoder, frame_source

        self._check_params()
        first = "counts_" not in self.__dict__ or not hasattr(self, "classes_")
        if first:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: every class "
                    "label that any chunk may have (scikit-learn's convention)."
                )
            frame = declare(X, categories)
            if frame.shape[0] == 0:
                raise ValueError("X has 0 samples; at least one training row is required.")
            weights = check_sample_weight(sample_weight, frame.shape[0])
            if weights is not None and not weights.all():  # the first chunk's states: rows of weight > 0
                keep = np.flatnonzero(weights > 0)
                frame, y, sample_weight = frame.iloc[keep], _target_series(y).iloc[keep], weights[keep]
            classes_ = classes_of(classes, y)
            self._forget_fitted()
            record_feature_names(self, X, frame)
            encoder = first_chunk_encoder(frame, self.missing, self.handle_unknown)
            self._set_labels(encoder, classes_, class_name_of(y, encoder.feature_names_))
        else:
            if classes is not None and not np.array_equal(classes_of(classes, y), self.classes_):
                raise ValueError(
                    f"classes={list(classes_of(classes, y))} differs from the classes of the first call, "
                    f"{list(self.classes_)}; pass the same classes or none."
                )
            if categories:
                raise ValueError("categories= is taken on the first call to partial_fit only.")
            frame = self._check_predict_frame(X)
        d = len(self._encoder.feature_names_)
        families = [(j, d) for j in range(d)] + [(d,)]
        source = frame_source(frame, y, where=" in this partial_fit call", weights=sample_weight)
        return self._add_counts(source, families, add=not first)

    def _add_counts(self, source, families, add: bool) -> BayesNetClassifier:
        """Count ``families`` on ``source`` with the model's states (added to ``counts_``
        with ``add``) and make the network's CPTs from them: the parameter step of ``fit``,
        for a structure that does not change."""
        from bnclf.counts._chunks import count_with_states

        families = [tuple(int(v) for v in f) for f in families]
        new, encoder, grown = count_with_states(source, self._encoder, self.classes_, families)
        new = new.summary(families)
        if add:
            old = self.counts_
            new = old.with_new_states(grown) + new if grown else old + new
        title = self.network_.title if "network_" in self.__dict__ else ""
        self._encoder = encoder
        new.names = [str(name) for name in self.node_names_]
        self.network_ = self._make_network(families, new, title=title)
        self.counts_ = new
        self._build_derived()
        return self

    def _fit_source(self, source, classes=None) -> BayesNetClassifier:
        """Fit from a source of chunks (``fit_chunks``, a Dask DataFrame): count the declared
        tables chunk by chunk, then the same path as an in-memory fit (:meth:`_fit_counts`)."""
        from bnclf.counts._chunks import summarize

        self._check_params()
        self._check_counts_learner()
        if source.one_shot and self._count_passes() > 1:
            raise ValueError(
                f"{self!r} counts its CPT families in a second pass, after its structure; an "
                "iterator can be read once. Pass a list of (X, y) pairs or a function returning "
                "a new iterator."
            )
        found = summarize(
            source,
            missing=self.missing,
            handle_unknown=self.handle_unknown,
            pairs=self._counts_needed == "pairs",
            classes=classes,
        )
        self._forget_fitted()
        record_feature_names(self, found.first_X, found.meta)
        self._set_labels(found.encoder, found.classes, found.class_name)
        self._fit_counts(found.counts, None)
        return self

    def _check_counts_learner(self) -> None:
        if self._counts_needed is None:
            raise TypeError(
                f"{type(self).__name__} cannot be fitted from chunks or a Dask DataFrame: it reads "
                "the training rows, which summed count tables do not keep. Supported (learners that "
                "learn from counts): " + ", ".join(_counts_learners()) + ". Fit it in memory instead (concatenate "
                "the chunks, or compute the Dask DataFrame)."
            )

    def _set_labels(self, encoder: FeatureEncoder, classes: np.ndarray, class_name: Hashable) -> None:
        self._encoder = encoder
        self.classes_ = classes
        self.class_name_ = class_name

    def _forget_fitted(self) -> None:
        """Drop what an earlier fit learned (a refit may change the kind of model)."""
        for attr in ("network_", "networks_", "weights_", "class_log_prior_", "counts_") + self._derived:
            self.__dict__.pop(attr, None)

    def _fit_coded(self, data: DiscreteData) -> BayesNetClassifier:
        """Learn from coded rows once ``classes_``, ``_encoder`` and the names are set: a
        count cache over the rows (it counts any table a learner asks for) goes through
        :meth:`_fit_counts`, the path every fit takes."""
        return self._fit_counts(CountCache(data), data)

    def _fit_counts(self, counts: CountCache, rows: DiscreteData | None) -> BayesNetClassifier:
        """The one fitting path: the learner and the parameter step on ``counts`` (a
        cache over in-memory rows, or a summary of chunks); ``rows`` are the coded rows
        when the fit has them (None from chunks)."""
        counts.names = [str(name) for name in self.node_names_]
        self._fit_network(counts, rows)
        self._build_derived()
        return self

    def _fit_network(self, counts: CountCache, rows: DiscreteData | None) -> None:
        """Learn the network(s) of this estimator from its counts (and rows).

        Single-DAG subclasses provide ``_learn_structure(counts) -> networkx.DiGraph`` (a
        pure learner from :mod:`bnclf.learn` applied to the counts) and get
        ``network_``, with ``counts_`` the summary of its CPT families. Ensembles and
        multinets override this hook and set ``networks_``; learners that read rows
        (instance-specific, cross-validated; ``_counts_needed = None``) take ``rows``.
        """
        graph = self._learn_structure(counts)
        families = graph_families(graph, counts.class_index)
        counts = counts.including(families)
        self.network_ = self._make_network(families, counts)
        self.counts_ = counts.summary(families)

    def _check_fitted_state(self) -> None:
        """Raise a ValueError unless a loaded model is consistent: its encoder, classes,
        networks, weights and kept counts describe the same variables and states."""
        if "classes_" not in self.__dict__:
            return  # not fitted: nothing to check
        encoder = self._encoder
        if len(encoder.feature_names_) != self.n_features_in_:
            raise ValueError(
                f"the encoder has {len(encoder.feature_names_)} columns but n_features_in_ is {self.n_features_in_}."
            )
        classes = list(np.asarray(self.classes_).tolist())
        if len(classes) < 2 or len(set(map(repr, classes))) != len(classes):
            raise ValueError(f"the classes {classes[:10]} are not two or more distinct labels.")
        states = self._states()
        members = [self.network_] if "network_" in self.__dict__ else list(self.__dict__.get("networks_", []))
        for net in members:
            if net.states != states:
                raise ValueError(f"the states of network {net.title or 0!r} differ from the encoder's and the classes.")
        weights = self.__dict__.get("weights_")
        if weights is not None:
            weights = np.asarray(weights, dtype=float)
            if weights.shape != (self._stored_member_count(),) or not np.isfinite(weights).all() or (weights < 0).any():
                raise ValueError("the member weights are not one finite weight >= 0 per network.")
        prior = self.__dict__.get("class_log_prior_")
        if prior is not None:
            from bnclf.io._modelfile import check_log_cpt

            if np.shape(prior) != (len(classes),):
                raise ValueError("the class prior does not have one entry per class.")
            check_log_cpt(prior, "the class prior")
        counts = self.__dict__.get("counts_")
        if counts is not None:
            expected = np.append(encoder.cardinalities_, len(classes))
            if not np.array_equal(counts.cardinalities, expected):
                raise ValueError("the kept count tables do not have the cardinalities of the states.")

    def _stored_member_count(self) -> int:
        """How many member networks the fitted state describes (those it stores here)."""
        return len(self.__dict__.get("networks_", []))

    def _make_network(self, families, cache: CountCache, log_cpts=None, title="") -> Network:
        """A :class:`~bnclf.network.Network` of this estimator's variables.

        ``log_cpts`` default to the m-estimates of the families from ``cache``.
        """
        if log_cpts is None:
            log_cpts = m_estimated_log_cpts(cache, families, self.m)
        return Network(families, log_cpts, self.node_names_, self._states(), cache.class_index, title=title)

    def _states(self) -> list:
        return self._encoder.categories_ + [[python_scalar(c) for c in self.classes_]]

    # -- the fitted network(s) ---------------------------------------------------------
    def network_members(self) -> list:
        """The fitted networks as ``[(key, Network), ...]``.

        ``key`` is ``None`` for a single-network estimator, the member position
        for an ensemble, and the class label for a multinet. The list shows itself
        drawn in a notebook (one panel per member), as each ``Network`` does.
        """
        check_is_fitted(self, "classes_")
        if hasattr(self, "network_"):
            return NetworkMembers([(None, self.network_)], self)
        if self._network_kind == "multinet":
            return NetworkMembers([(python_scalar(c), net) for c, net in zip(self.classes_, self.networks_)], self)
        return NetworkMembers(enumerate(self.networks_), self)

    def _single_network(self) -> Network:
        if "network_" in self.__dict__:
            return self.network_
        if "networks_" in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__} holds {len(self.networks_)} networks; read them from "
                "networks_ (or network_members()), not from dag_/families_/log_cpts_."
            )
        raise AttributeError(f"This {type(self).__name__} instance is not fitted yet.")

    @property
    def dag_(self) -> nx.DiGraph:
        """The learned structure, nodes named by feature and class names."""
        return self._single_network().dag

    @property
    def families_(self) -> dict:
        """``child -> tuple of parents`` in the axis order of its CPT (class last)."""
        return self._single_network().named_families

    @property
    def log_cpts_(self) -> dict:
        """``child -> ndarray`` of natural-log probabilities, axes ``(child, *families_[child])``."""
        return self._single_network().named_log_cpts

    @property
    def node_names_(self) -> list:
        """Feature names followed by the class node name (index order of the codes)."""
        return list(self._encoder.feature_names_) + [self.class_name_]

    @property
    def categories_(self) -> dict:
        """``node -> list`` of state labels in code order."""
        return dict(zip(self.node_names_, self._states()))

    @property
    def one_state_features_(self) -> list:
        """The features with one state, which network files leave out.

        A feature with one state (a numeric column in which MDL discretization found no
        cut point, or a column with one value in training) carries no information: its
        CPT is one everywhere, so it adds nothing to any posterior, and a child that has
        it as a parent is conditioned on its one value. :func:`bnclf.io.write_network`
        leaves it out of the files it writes (pyAgrum refuses a variable with fewer than
        two states); predictions are the same with or without it.
        """
        check_is_fitted(self, "classes_")
        names, states = self._encoder.feature_names_, self._encoder.categories_
        return [name for name, values in zip(names, states) if len(values) == 1]

    # -- prediction -----------------------------------------------------------------
    def _encode(self, X) -> np.ndarray:
        check_is_fitted(self, "classes_")
        frame = self._check_predict_frame(X)
        return self._encoder._codes(frame)

    def _check_predict_frame(self, X) -> pd.DataFrame:
        names = self._encoder.feature_names_
        if isinstance(X, pd.DataFrame):
            if X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input. Pass the columns it was fitted on, "
                    f"model.feature_names_in_ = {shown_names(names)}."
                )
            columns = index_labels(X.columns)  # once: pandas 3 boxes each name of a text index anew
            if columns == names:
                return X
            if hasattr(self, "feature_names_in_"):
                missing = [c for c in names if c not in X.columns]
                extra = [c for c in X.columns if c not in names]
                raise ValueError(
                    "The feature names should match those that were passed during fit: "
                    f"missing {missing}, unexpected {extra}"
                    + ("" if missing or extra else ", same names in another order")
                    + "; select them with X[model.feature_names_in_]."
                )
            if set(columns) == set(names):  # non-string names, same set: select by name
                return X[names]
            return X.set_axis(names, axis=1)
        if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[1] == self.n_features_in_:
            return as_frame(X, self._encoder.feature_index)  # named as fitted, no renaming
        frame = as_frame(X)
        if frame.shape[1] == self.n_features_in_:
            frame.columns = names
        else:
            raise ValueError(
                f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input. Pass the columns it was fitted on, "
                f"model.feature_names_in_ = {shown_names(names)}."
            )
        return frame

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x)`` for coded rows: array ``(n_samples, n_classes)``."""
        return self.network_.joint_log_likelihood(codes)

    @missing_columns_keyword
    def predict_joint_log_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray | dd.DataFrame:
        """Joint log-probabilities ``log P(c, x)`` (unnormalized log posteriors).

        A Dask DataFrame gives a lazy Dask DataFrame, one column per class (as for
        :meth:`predict_proba`).
        """
        if _is_dask(X):
            return _predict_dask(self, X, "predict_joint_log_proba")
        return self._predict_rows(X, _identity)

    @missing_columns_keyword
    def predict_log_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray | dd.DataFrame:
        """Log posteriors ``log P(c | x)``, columns in the order of ``classes_``.

        A Dask DataFrame gives a lazy Dask DataFrame, one column per class.
        """
        if _is_dask(X):
            return _predict_dask(self, X, "predict_log_proba")
        return self._predict_rows(X, log_posterior)

    @missing_columns_keyword
    def predict_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray | dd.DataFrame:
        """Posteriors ``P(c | x)``, columns in the order of ``classes_``.

        A Dask DataFrame gives a lazy Dask DataFrame with one column per class (named by
        the class labels), computed partition by partition (``map_partitions``).
        """
        if _is_dask(X):
            return _predict_dask(self, X, "predict_proba")
        return self._predict_rows(X, _posterior)

    @missing_columns_keyword
    def predict(self, X: ArrayLike | pd.DataFrame) -> np.ndarray | dd.Series:
        """Most probable class (the lowest class index on exact ties).

        A Dask DataFrame gives a lazy Dask Series (named ``class_name_``), computed
        partition by partition (``map_partitions``).
        """
        if _is_dask(X):
            return _predict_dask(self, X, "predict")
        return self._predict_rows(X, lambda jll: self.classes_[np.argmax(jll, axis=1)])

    def _predict_rows(self, X, finish: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``finish(log P(c, x))`` of the rows of ``X``, encoded and scored
        ``_PREDICT_ROWS`` rows at a time into one preallocated result, so the codes and
        the kernel's temporaries stay a few MiB however many rows are predicted."""
        if not hasattr(self, "classes_"):  # scikit-learn's check and message, where it fails
            check_is_fitted(self, "classes_")
        if type(X) is np.ndarray and X.ndim == 2 and X.shape[1] == self.n_features_in_:
            rows = X  # coded column by column, as the frame that _check_predict_frame makes of it
        else:
            rows = self._check_predict_frame(X)
        n = rows.shape[0]
        if n <= _PREDICT_ROWS:
            return finish(self._joint_log_likelihood(self._encoder._codes(rows)))
        out = None
        for start in range(0, n, _PREDICT_ROWS):
            chunk = slice(start, start + _PREDICT_ROWS)
            codes = self._encoder._codes(rows[chunk] if isinstance(rows, np.ndarray) else rows.iloc[chunk])
            part = finish(self._joint_log_likelihood(codes))
            if out is None:
                out = np.empty((n,) + part.shape[1:], dtype=part.dtype)
            out[start : start + part.shape[0]] = part
        return out

    # -- explanations ------------------------------------------------------------------
    def contributions(self, X: ArrayLike | pd.DataFrame, against: Any = None) -> pd.DataFrame:
        """Exact per-feature contributions to the log-odds of the predicted class.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to explain; missing and unseen values are summed out.
        against : None, class label or "each", default=None
            The class the predicted one is compared with: the runner-up of each row
            (None), a given class, or every other class (one output row per pair).

        Returns
        -------
        DataFrame
            Index ``(row, predicted, against)``; one column for the class prior, named
            ``"(prior)"``, then one per feature (its family). Each row sums to
            ``log P(predicted | x) - log P(against | x)`` (to about 1e-12).

        Notes
        -----
        ``log P(c, x)`` of one network is a sum of one term per family, so the log-odds
        of two classes split exactly: feature ``j``'s column is the difference, between
        the two classes, of ``log P(x_j | pa_j)``, and the prior's of ``log P(c)``. A
        family that couples the class with another feature, ``P(x_j | x_i, c)``, is
        attributed to its child ``x_j``; features whose family does not contain the
        class contribute zero. A missing or unseen feature contributes zero, and its
        observed children's columns carry the evidence with it summed out:
        ``log P(x_k | x_{o,<k}, c)`` by the chain rule in a topological order of the
        features (:func:`bnclf.inference._contributions.chain_terms`). A multinet's
        columns are the differences of each class's own network's terms.
        """
        from bnclf.inference._contributions import log_odds_split

        check_is_fitted(self, "classes_")
        codes = self._encode(X)
        terms = self._contribution_terms(codes)
        joint = self._joint_log_likelihood(codes)
        values, rows, predicted, other = log_odds_split(terms, joint, self._against_code(against))
        return self._contribution_frame(X, len(codes), values, rows, predicted, other)

    def _against_code(self, against: Any) -> str | int | None:
        if against is None or (isinstance(against, str) and against == "each"):
            return against
        matches = [i for i, label in enumerate(self.classes_) if label == against]
        if not matches:
            raise ValueError(
                f"against={against!r} is not a class of this model; its classes are "
                f"{[python_scalar(c) for c in self.classes_]} (or pass None for the runner-up, 'each' for all)."
            )
        return matches[0]

    def _contribution_terms(self, codes: np.ndarray) -> np.ndarray:
        """``(n, 1 + d, n_classes)`` terms summing to ``log P(c, x)`` (the prior, then each feature)."""
        from bnclf.inference._contributions import chain_terms

        if "network_" not in self.__dict__:
            raise TypeError(
                f"{type(self).__name__} has no single network whose terms add up to its posterior; "
                "contributions are defined for one network (NB, TAN, KDB, the search learners), "
                "multinets and, per member, ensembles."
            )
        return chain_terms(self.network_, codes)

    def _contribution_frame(self, X, n_rows, values, rows, predicted, other, extra=None) -> pd.DataFrame:
        index = X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(n_rows)
        labels = np.asarray([python_scalar(c) for c in self.classes_], dtype=object)
        levels = {"row": np.asarray(index)[rows], "predicted": labels[predicted], "against": labels[other]}
        levels.update(extra or {})
        columns = ["(prior)", *[python_scalar(name) for name in self._encoder.feature_names_]]
        return pd.DataFrame(
            values, index=pd.MultiIndex.from_arrays(list(levels.values()), names=list(levels)), columns=columns
        )

    def to_pgmpy(
        self,
    ) -> DiscreteBayesianNetwork | list[DiscreteBayesianNetwork] | dict[Hashable, DiscreteBayesianNetwork]:
        """The fitted model as pgmpy ``DiscreteBayesianNetwork`` object(s).

        One network for a single-DAG classifier; a list (member order, see
        ``weights_``) for an ensemble; a dict keyed by class label for a
        multinet, whose member networks are class-conditional (no class node).
        States carry the original category labels; node names are the feature
        names and ``class_name_``. Use :func:`bnclf.io.write_network` to write
        them to BIF, XMLBIF or UAI files.
        """
        members = self.network_members()
        if members[0][0] is None:
            return members[0][1].to_pgmpy()
        if self._network_kind == "multinet":
            return {key: net.to_pgmpy() for key, net in members}
        return [net.to_pgmpy() for _, net in members]


_PREDICT_ROWS = 1 << 16
"""Rows encoded and scored at a time by the predict methods."""


def _drop_unweighted(frame: pd.DataFrame, classes: np.ndarray, y_codes: np.ndarray, weights: np.ndarray):
    """The rows of positive weight, with the classes that they have (as if the others were dropped)."""
    keep = weights > 0
    present = np.unique(y_codes[keep])
    if present.size < 2:
        raise ValueError(
            f"the rows of positive sample_weight have only one class ({python_scalar(classes[present[0]])!r}); "
            "a classifier needs rows of at least two classes with a positive weight."
        )
    rank = np.full(len(classes), -1, dtype=np.int64)
    rank[present] = np.arange(present.size)
    return frame.iloc[np.flatnonzero(keep)], classes[present], rank[y_codes[keep]], weights[keep]


def _identity(jll: np.ndarray) -> np.ndarray:
    return jll


def _posterior(jll: np.ndarray) -> np.ndarray:
    return np.exp(log_posterior(jll))


def _is_dask(X) -> bool:
    """A Dask collection, recognized by its type's module (Dask is not imported here)."""
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")


def _predict_dask(model, X, method):
    from bnclf.models._dask import _predict_dask

    return _predict_dask(model, X, method)


def _counts_learners() -> list[str]:
    """The names of bnclf's estimators that learn from counts (``_counts_needed`` set)."""
    from bnclf.models._registry import ESTIMATORS, _registered

    _registered()
    return [
        cls.__name__ for cls in ESTIMATORS if issubclass(cls, BayesNetClassifier) and cls._counts_needed is not None
    ]
