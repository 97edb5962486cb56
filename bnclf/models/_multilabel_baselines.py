"""Binary relevance and the ensemble of classifier chains with naive Bayes as the base classifier.

The baselines of Corani, Antonucci, Mauá & Gabaglio (2014), *Trading off speed
and accuracy in multilabel classification* (section 5): binary relevance (one
naive Bayes per label) and the ensemble of classifier chains (ECC, Read,
Pfahringer, Holmes & Frank 2011, *Classifier chains for multi-label
classification*, Machine Learning 85(3)), 20 chains of naive Bayes.

Both are scikit-learn's :class:`~sklearn.multioutput.MultiOutputClassifier` and
:class:`~sklearn.multioutput.ClassifierChain` around :class:`CodesNaiveBayes`,
a :class:`~bnclf.NaiveBayesClassifier` over integer codes. The
features are discretized and coded once, as the multilabel Bayesian networks
do (quartiles of the continuous columns, then :class:`~bnclf.encoding.FeatureEncoder`),
so every column the base classifier sees, including the 0/1 label columns a
chain appends, is a categorical column of codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bnclf._params import Checked, Integer, Number, Transformer, check_parameters
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import UNKNOWN, python_scalar
from bnclf.inference._kernels import log_posterior
from bnclf.models._base import BayesNetClassifier, replay_fit
from bnclf.models._multilabel import as_label_matrix, encode_multilabel_training
from bnclf.models._naive import NaiveBayesClassifier
from bnclf.models._registry import Registered

if TYPE_CHECKING:
    from scipy.sparse import spmatrix


__all__ = [
    "CodesNaiveBayes",
    "BinaryRelevanceNB",
    "EnsembleOfClassifierChains",
    "binary_relevance",
    "ensemble_of_classifier_chains",
]


_M = Number(0, meaning="the m-estimate weight of naive Bayes", note="1 is the default, 0 is maximum likelihood")

_DISCRETIZER = Transformer(("quantile",), "the discretizer of continuous columns", none="no discretization")


class CodesNaiveBayes(Registered, ClassifierMixin, BaseEstimator):
    """Naive Bayes over integer-coded columns, every column categorical, for a 0/1 target.

    The base classifier of :class:`BinaryRelevanceNB` and
    :class:`EnsembleOfClassifierChains`: column ``j`` of ``X`` holds codes
    ``0..r_j-1`` and is a categorical variable with exactly those states,
    whatever its dtype (a classifier chain appends the predicted labels as
    float columns). The model is a :class:`~bnclf.NaiveBayesClassifier`
    with the same ``m``, fitted on the codes as they are (its encoder maps
    code ``k`` to state ``k``), with the classes 0 and 1 declared.

    Parameters
    ----------
    m : float, default=1.0
        m-estimate weight of the CPTs (see :class:`~bnclf.NaiveBayesClassifier`).
    n_categories : sequence of int, optional
        Number of states of the first ``len(n_categories)`` columns (the coded
        features); any further column (a chained label) and, without this,
        every column has the states ``0..max`` of its training codes.

    Attributes
    ----------
    classes_ : ndarray
        ``array([0, 1])``.
    nb_ : NaiveBayesClassifier or None
        The fitted naive Bayes over columns ``x0, x1, ...`` and the class
        ``label``; None for ``m=0`` and a target with one value.
    cardinalities_ : ndarray
        States per column.

    Notes
    -----
    A code outside ``0..r_j-1`` at predict time (``-1``, the code of a value
    the feature coder has no state for, or a chained label never seen in
    training) is summed out. Both classes are declared, so a target with one
    value in the training rows (a label never, or always, relevant there)
    still gives a naive Bayes: the missing class has the m-estimated prior
    ``(m/2) / (N + m)`` and uniform CPTs. With ``m=0`` (maximum likelihood)
    such a target is predicted with probability 1.
    """

    _parameters = {"m": _M, "n_categories": Checked("fit (one count of states per column)")}

    def __init__(self, *, m: float = 1.0, n_categories: Sequence[int] | None = None) -> None:
        self.m = m
        self.n_categories = n_categories

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    @staticmethod
    def _codes(X) -> np.ndarray:
        array = np.asarray(X)
        if array.ndim != 2:
            raise ValueError(f"X has shape {array.shape}; expected a 2-D array of integer codes.")
        if array.dtype.kind == "f":
            if not np.isfinite(array).all() or not np.array_equal(array, np.round(array)):
                raise ValueError("X holds non-integral values; CodesNaiveBayes takes integer codes.")
        elif array.dtype.kind not in "iub":
            raise ValueError(f"X has dtype {array.dtype}; CodesNaiveBayes takes integer codes.")
        return array.astype(np.int64)

    def fit(self, X: ArrayLike, y: ArrayLike) -> CodesNaiveBayes:
        """Fit naive Bayes on the coded columns of ``X`` and the 0/1 target ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_columns)
            Integer codes ``>= 0`` (integral floats accepted).
        y : array-like of shape (n_samples,)
            0/1 (or boolean) target.

        Returns
        -------
        self
        """
        check_parameters(self)
        codes = self._codes(X)
        target = np.asarray(y)
        if target.ndim != 1 or len(target) != len(codes):
            raise ValueError(f"y has shape {target.shape}; expected one 0/1 value per row of X ({len(codes)} rows).")
        if not np.isin(target, (0, 1)).all():
            raise ValueError("y holds values other than 0 and 1; CodesNaiveBayes predicts one binary label.")
        target = target.astype(np.int64)
        if not len(codes):
            raise ValueError("X has 0 samples; at least one training row is required.")
        if (codes < 0).any():
            raise ValueError("X holds negative codes in training; every training value needs a state.")
        given = [] if self.n_categories is None else [int(r) for r in self.n_categories]
        if len(given) > codes.shape[1]:
            raise ValueError(f"n_categories gives {len(given)} columns but X has {codes.shape[1]}.")
        cards = np.maximum(codes.max(axis=0) + 1, 1)
        if given:
            over = np.flatnonzero(cards[: len(given)] > np.asarray(given))
            if len(over):
                j = int(over[0])
                raise ValueError(f"column {j} has code {cards[j] - 1} but n_categories[{j}]={given[j]}.")
            cards[: len(given)] = given
        self.cardinalities_ = cards
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = codes.shape[1]
        if self.m == 0 and target.min() == target.max():
            # maximum likelihood cannot estimate P(x | c) of a class with no row: the prior decides
            self.nb_ = None
            self._constant = int(target[0])
            return self
        names = [f"x{j}" for j in range(codes.shape[1])]
        self.nb_ = replay_fit(
            NaiveBayesClassifier(m=self.m),
            _codes_encoder(names, cards),
            self.classes_,
            "label",
            codes,
            target,
            n_features_in=codes.shape[1],
        )
        return self

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``(n_samples, 2)`` probabilities of 0 and 1."""
        check_is_fitted(self, "cardinalities_")
        codes = self._codes(X)
        if codes.shape[1] != len(self.cardinalities_):
            raise ValueError(
                f"X has {codes.shape[1]} columns, but CodesNaiveBayes is expecting {len(self.cardinalities_)}."
            )
        if self.nb_ is None:
            return np.tile(np.eye(2)[self._constant], (len(codes), 1))
        codes = np.where((codes >= 0) & (codes < self.cardinalities_), codes, UNKNOWN)  # no state: summed out
        return np.exp(log_posterior(self.nb_.network_.joint_log_likelihood(codes)))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The more probable value, 0 on a tie."""
        proba = self.predict_proba(X)
        return (proba[:, 1] > proba[:, 0]).astype(np.int64)


def _codes_encoder(names, cards) -> FeatureEncoder:
    """The encoder of columns whose values are already the codes ``0..r-1`` (no missing state)."""
    return FeatureEncoder.from_states(names, [range(int(r)) for r in np.asarray(cards, dtype=np.int64)])


class _CodedMultilabel(Registered, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Shared fitting of the baselines: discretize, code once, then ``_fit_coded(codes, labels)``."""

    _multilabel = True

    _check_predict_frame = BayesNetClassifier._check_predict_frame

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    _parameters = {"m": _M, "discretizer": _DISCRETIZER}

    def _check_params(self):
        check_parameters(self)

    def fit(self, X: ArrayLike | pd.DataFrame, Y: ArrayLike | pd.DataFrame | spmatrix) -> _CodedMultilabel:
        """Discretize and code the features, then fit the naive Bayes models.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Features; continuous columns are discretized by ``discretizer``.
        Y : DataFrame or array-like of shape (n_samples, n_labels)
            Binary indicator matrix (0/1 or booleans), or a DataFrame of label
            columns (their names are kept in ``label_names_``).

        Returns
        -------
        self
        """
        self._check_params()
        codes, labels, names, self._discretizer, self._encoder = encode_multilabel_training(self, X, Y)
        self.label_names_ = [python_scalar(n) for n in names]
        self.classes_ = [np.array([0, 1]) for _ in names]
        return self._fit_coded(codes, labels)

    def _encode(self, X) -> np.ndarray:
        check_is_fitted(self, "label_names_")
        frame = self._check_predict_frame(X)
        if self._discretizer is not None:
            frame = self._discretizer.transform(frame)
        return self._encoder.transform(frame)

    def _base(self) -> CodesNaiveBayes:
        return CodesNaiveBayes(m=self.m, n_categories=tuple(int(r) for r in self._encoder.cardinalities_))

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


def _positive_proba(model: CodesNaiveBayes, codes) -> np.ndarray:
    return model.predict_proba(codes)[:, 1]


class BinaryRelevanceNB(_CodedMultilabel):
    """Binary relevance: one naive Bayes per label, each ignoring the other labels.

    scikit-learn's :class:`~sklearn.multioutput.MultiOutputClassifier` around
    :class:`CodesNaiveBayes`, on features discretized and coded as the
    multilabel Bayesian networks code them. A baseline of Corani et al. (2014,
    section 5); see Read et al. (2011) for binary relevance.

    Parameters
    ----------
    m : float, default=1.0
        m-estimate weight of every naive Bayes.
    discretizer : "quantile", None or a transformer, default="quantile"
        Applied to continuous columns before coding, fitted on the training
        rows: ``"quantile"`` is quartile binning
        (:class:`~bnclf.QuantileDiscretizer` with 4 bins).

    Attributes
    ----------
    estimator_ : sklearn.multioutput.MultiOutputClassifier
        Fitted on the coded features; ``estimator_.estimators_[i]`` is the
        :class:`CodesNaiveBayes` of label ``i``.
    label_names_ : list
    classes_ : list of ndarray
        ``[array([0, 1])] * n_labels``.

    Notes
    -----
    Predictions may be empty (no relevant label), as in MEKA.

    References
    ----------
    .. [1] Read, J., Pfahringer, B., Holmes, G., Frank, E. (2011). Classifier
       chains for multi-label classification. Machine Learning 85(3), 333–359.
    .. [2] Corani, G., Antonucci, A., Mauá, D. D., Gabaglio, S. (2014). Trading
       off speed and accuracy in multilabel classification. PGM 2014.
    """

    short_names = {"br": {}}

    def __init__(self, *, m: float = 1.0, discretizer: str | BaseEstimator | None = "quantile") -> None:
        self.m = m
        self.discretizer = discretizer

    def _fit_coded(self, codes: np.ndarray, labels: np.ndarray):
        from sklearn.multioutput import MultiOutputClassifier  # imported when fitted (not on import)

        self.estimator_ = MultiOutputClassifier(self._base()).fit(codes, labels.astype(np.int64))
        return self

    def predict_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Probability that each label is relevant: ``(n_samples, n_labels)``."""
        codes = self._encode(X)
        return np.column_stack([_positive_proba(e, codes) for e in self.estimator_.estimators_])

    def predict(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Each label's naive Bayes decision: ``(n_samples, n_labels)`` 0/1."""
        return np.asarray(self.estimator_.predict(self._encode(X)), dtype=np.int64)

    def network_members(self) -> list:
        """``(label name, Network)`` of every label's naive Bayes (a constant label has none)."""
        check_is_fitted(self, "estimator_")
        return [
            (name, e.nb_.network_)
            for name, e in zip(self.label_names_, self.estimator_.estimators_)
            if e.nb_ is not None
        ]


class EnsembleOfClassifierChains(_CodedMultilabel):
    """Ensemble of classifier chains (ECC) of naive Bayes, averaged and thresholded at 0.5.

    Each chain is scikit-learn's :class:`~sklearn.multioutput.ClassifierChain`
    around :class:`CodesNaiveBayes`: the naive Bayes of the ``k``-th label in
    the chain's order also sees the labels before it (the true labels in
    training, its predecessors' predictions at predict time). Chains differ by
    their random label order (Read et al. 2011) and, with ``max_samples``,
    by their training rows. A label is
    predicted relevant when the average over chains of its probability is at
    least ``threshold``. A baseline of Corani et al. (2014, section 5), with 20
    chains.

    Parameters
    ----------
    n_chains : int, default=20
        Number of chains (the paper's 20).
    m : float, default=1.0
        m-estimate weight of every naive Bayes.
    discretizer : "quantile", None or a transformer, default="quantile"
        As for :class:`BinaryRelevanceNB`.
    random_state : int, RandomState or None, default=0
        Draws each chain's seed (its order and, with ``max_samples``, its rows).
    order : "random" or sequence of int, default="random"
        ``"random"``: each chain draws its own order; a permutation of the
        label positions: every chain uses it.
    max_samples : float in (0, 1], optional
        Each chain is fitted on this fraction of the training rows, drawn
        without replacement (MEKA's multilabel bagging draws bags of 67 % of
        the rows by default); by default every chain sees every row.
    threshold : float, default=0.5
        A label is predicted relevant when its probability averaged over the chains
        is at least this.

    Attributes
    ----------
    chains_ : list of sklearn.multioutput.ClassifierChain
        Fitted on the coded features; ``chains_[i].order_`` is chain ``i``'s order.
    chain_seeds_ : list of int
        The seed of each chain, drawn from ``random_state``.
    label_names_ : list
    classes_ : list of ndarray

    Notes
    -----
    Predictions may be empty (no relevant label), as in MEKA.

    References
    ----------
    .. [1] Read, J., Pfahringer, B., Holmes, G., Frank, E. (2011). Classifier
       chains for multi-label classification. Machine Learning 85(3), 333–359.
    .. [2] Corani, G., Antonucci, A., Mauá, D. D., Gabaglio, S. (2014). Trading
       off speed and accuracy in multilabel classification. PGM 2014.
    """

    short_names = {"ecc": {}}

    def __init__(
        self,
        *,
        n_chains: int = 20,
        m: float = 1.0,
        discretizer: str | BaseEstimator | None = "quantile",
        random_state: int | np.random.RandomState | None = 0,
        order: str | Sequence[int] = "random",
        max_samples: float | None = None,
        threshold: float = 0.5,
    ) -> None:
        self.n_chains = n_chains
        self.m = m
        self.discretizer = discretizer
        self.random_state = random_state
        self.order = order
        self.max_samples = max_samples
        self.threshold = threshold

    _parameters = {
        "n_chains": Integer(1, "the number of classifier chains", "20 is the default"),
        "random_state": Checked("scikit-learn's check_random_state"),
        "order": Checked("EnsembleOfClassifierChains (checked in _check_params)"),
        "max_samples": Number(
            0, 1, low_open=True, meaning="the fraction of rows each chain is fitted on", none="every row"
        ),
        "threshold": Number(0, 1, meaning="the vote share above which a label is predicted", note="0.5 is the default"),
    }

    def _check_params(self):
        super()._check_params()
        if not (isinstance(self.order, str) and self.order == "random"):
            if isinstance(self.order, str) or not hasattr(self.order, "__len__"):
                raise ValueError(
                    f"order={self.order!r} is not valid; give 'random' or a permutation "
                    "of the label positions, e.g. [2, 0, 1]."
                )

    def _fit_coded(self, codes: np.ndarray, labels: np.ndarray, chain_seeds: list | None = None):
        n_labels = labels.shape[1]
        if not isinstance(self.order, str):
            order = [int(i) for i in self.order]
            if sorted(order) != list(range(n_labels)):
                raise ValueError(
                    f"order={list(self.order)!r} is not a permutation of the {n_labels} "
                    f"label positions 0..{n_labels - 1}."
                )
        else:
            order = "random"
        seeds = chain_seeds  # a first-format model file replays the drawn seeds
        if seeds is None:
            seeds = check_random_state(self.random_state).randint(np.iinfo(np.int32).max, size=int(self.n_chains))
        self.chain_seeds_ = [int(seed) for seed in seeds]
        from sklearn.multioutput import ClassifierChain  # imported when fitted (not on import)

        base = self._base()
        target = labels.astype(np.int64)
        chains = []
        for seed in self.chain_seeds_:
            rows = slice(None)
            if self.max_samples is not None:
                size = max(1, int(round(self.max_samples * len(codes))))
                rows = np.sort(np.random.RandomState(seed).choice(len(codes), size, replace=False))
            chain = ClassifierChain(base, order=order, random_state=int(seed))
            chains.append(chain.fit(codes[rows], target[rows]))
        self.chains_ = chains
        return self

    def predict_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Average over chains of the probability that each label is relevant: ``(n_samples, n_labels)``."""
        check_is_fitted(self, "chains_")
        codes = self._encode(X)
        return np.mean([chain.predict_proba(codes) for chain in self.chains_], axis=0)

    def predict(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Labels whose average probability is at least ``threshold``: ``(n_samples, n_labels)`` 0/1."""
        return (self.predict_proba(X) >= self.threshold).astype(np.int64)

    def network_members(self) -> list:
        """``("chain i: label", Network)`` of every naive Bayes of every chain."""
        check_is_fitted(self, "chains_")
        out = []
        for i, chain in enumerate(self.chains_):
            for position, e in zip(chain.order_, chain.estimators_):
                if e.nb_ is not None:
                    out.append((f"chain {i}: {self.label_names_[position]}", e.nb_.network_))
        return out


def binary_relevance(m: float = 1.0, discretizer: str | BaseEstimator | None = "quantile") -> BinaryRelevanceNB:
    """Binary relevance of naive Bayes (registered as ``"br"``); see :class:`BinaryRelevanceNB`.

    Parameters
    ----------
    m : float, default=1.0
        m-estimate weight of every naive Bayes.
    discretizer : "quantile", None or a transformer, default="quantile"
        Quartile binning of the continuous columns by default.

    Returns
    -------
    BinaryRelevanceNB
    """
    return BinaryRelevanceNB(m=m, discretizer=discretizer)


def ensemble_of_classifier_chains(
    n_chains: int = 20,
    m: float = 1.0,
    discretizer: str | BaseEstimator | None = "quantile",
    random_state: int | np.random.RandomState | None = 0,
    **params: Any,
) -> EnsembleOfClassifierChains:
    """ECC of naive Bayes (registered as ``"ecc"``); see :class:`EnsembleOfClassifierChains`.

    Parameters
    ----------
    n_chains : int, default=20
        Number of chains (the paper's 20).
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    discretizer : "quantile", None or a transformer, default="quantile"
    random_state : int, RandomState or None, default=0
    **params
        ``order``, ``max_samples``, ``threshold`` of :class:`EnsembleOfClassifierChains`.

    Returns
    -------
    EnsembleOfClassifierChains
    """
    return EnsembleOfClassifierChains(
        n_chains=n_chains, m=m, discretizer=discretizer, random_state=random_state, **params
    )
