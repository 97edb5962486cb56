"""The scikit-learn base class shared by every Bayesian network classifier.

:class:`BayesNetClassifier` holds the parameters and the fitting entry points (``fit``,
``fit_chunks``) and the one fitting path, ``_fit_counts``; its other roles are mixins of
their own modules: :class:`~bnclf.models._predictions.Predictions` (the predict methods),
:class:`~bnclf.models._explanations.Explanations` (``contributions``),
:class:`~bnclf.models._parameters.ParameterStep` (CPTs from counts, ``refit_parameters``,
``partial_fit``) and :class:`~bnclf.models._fitted.FittedNetworks` (``network_members``,
``dag_`` and the other views of the fitted networks). Where a fit's counts come from
(rows, chunks, Dask partitions) is :mod:`bnclf.models._sources`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin

from bnclf._params import Number, Options
from bnclf.counts._cache import CountCache
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import MISSING_OPTIONS, UNKNOWN_OPTIONS, DiscreteData, record_feature_names
from bnclf.learn._restricted import graph_families
from bnclf.models._explanations import Explanations
from bnclf.models._fitted import FittedNetworks
from bnclf.models._parameters import ParameterStep
from bnclf.models._predictions import Predictions
from bnclf.models._registry import ESTIMATORS, Registered, import_estimators
from bnclf.models._sources import dask_fit_source, is_dask, training_rows


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


class BayesNetClassifier(
    Registered, Predictions, Explanations, ParameterStep, FittedNetworks, FittedState, ClassifierMixin, BaseEstimator
):
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

    _replay_seed: int | None = None
    """The search seed a first-format model file stored, set while :func:`replay_fit` refits."""

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
        if is_dask(X):
            return self._fit_source(dask_fit_source(X, y, sample_weight))
        rows = training_rows(X, y, sample_weight, self.missing, self.handle_unknown, who=type(self).__name__)
        self._forget_fitted()
        record_feature_names(self, X, rows.frame)
        self._set_labels(rows.encoder, rows.classes, rows.class_name)
        return self._fit_coded(rows.data)

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

    def _fit_source(self, source: Any, classes: ArrayLike | None = None) -> BayesNetClassifier:
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
        """Raise a TypeError, listing the learners that can, when this one cannot learn from
        summed counts (``_counts_needed`` None)."""
        if self._counts_needed is None:
            raise TypeError(
                f"{type(self).__name__} cannot be fitted from chunks or a Dask DataFrame: it reads "
                "the training rows, which summed count tables do not keep. Supported (learners that "
                "learn from counts): " + ", ".join(_counts_learners()) + ". Fit it in memory instead (concatenate "
                "the chunks, or compute the Dask DataFrame)."
            )

    def _set_labels(self, encoder: FeatureEncoder, classes: np.ndarray, class_name: Hashable) -> None:
        """Keep the fitted encoder, the class labels and the class node's name."""
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


def _counts_learners() -> list[str]:
    """The names of bnclf's estimators that learn from counts (``_counts_needed`` set)."""
    import_estimators()
    return [
        cls.__name__ for cls in ESTIMATORS if issubclass(cls, BayesNetClassifier) and cls._counts_needed is not None
    ]


def replay_fit(
    estimator: BayesNetClassifier,
    encoder: FeatureEncoder,
    classes: np.ndarray,
    class_name: Hashable,
    codes: np.ndarray,
    y_codes: np.ndarray,
    search_seed: int | None = None,
    n_features_in: int | None = None,
) -> BayesNetClassifier:
    """Fit ``estimator`` on rows already coded with given states: a first-format model
    file's training rows, or a wrapper that codes its own rows.

    ``encoder``, ``classes`` and ``class_name`` become the fitted ones as they are;
    ``n_features_in``, when given, becomes ``n_features_in_`` (else the caller sets it, and
    ``feature_names_in_``); ``codes`` (``-1`` for no state) and ``y_codes`` must fit them.
    ``search_seed`` replays the random draws of a search learner's fit. Returns
    ``estimator``, fitted as ``fit`` would have fitted it on those rows.
    """
    estimator._set_labels(encoder, classes, class_name)
    if n_features_in is not None:
        estimator.n_features_in_ = int(n_features_in)
    if search_seed is not None:
        estimator._replay_seed = int(search_seed)
    try:
        estimator._fit_coded(DiscreteData(codes, encoder.cardinalities_, y_codes, len(classes)))
    finally:
        estimator.__dict__.pop("_replay_seed", None)
    return estimator
