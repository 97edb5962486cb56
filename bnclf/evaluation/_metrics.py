"""Performance measures for classifiers evaluated by cross-validation.

Every function here is a pure function of labels, predicted labels and/or class
probabilities, so it can be applied to the per-fold predictions kept by
:func:`bnclf.evaluation.cross_validate_predictions` long after the experiment
ran.

Each measure :mod:`sklearn.metrics` has is computed by it; these functions add what the
cross-validation protocol needs around it: the columns of ``proba`` named by ``classes``
(a fold may lack a class), ``nan`` for an empty fold, and a label set for κ. Our own
code is kept where scikit-learn lacks the measure: Hand and Till's M for a fold without
some class (scikit-learn's ``"ovo"`` needs every class present), and Kohavi and
Wolpert's bias–variance decomposition.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from bnclf._kappa import as_1d
from bnclf._kappa import kappa as kappa  # one definition, read by models too

__all__ = [
    "zero_one_loss",
    "accuracy",
    "log_loss",
    "roc_auc",
    "hand_till_auc",
    "kappa",
    "KohaviWolpertResult",
    "kohavi_wolpert",
    "global_accuracy",
    "hamming_accuracy",
]


def _checked_classes(y_true: np.ndarray, proba: np.ndarray, classes: ArrayLike | None) -> np.ndarray:
    """``classes`` (default: the labels of y_true), checked against proba's shape."""
    classes = np.asarray(np.unique(y_true) if classes is None else classes)
    if proba.shape != (len(y_true), len(classes)):
        raise ValueError(f"proba has shape {proba.shape}, expected ({len(y_true)}, {len(classes)})")
    return classes


def _check_same_length(*arrays):
    lengths = {len(a) for a in arrays}
    if len(lengths) > 1:
        raise ValueError(f"inconsistent numbers of samples: {sorted(lengths)}")


def zero_one_loss(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Fraction of misclassified instances.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels.

    Returns
    -------
    float
        ``mean(y_true != y_pred)``; ``nan`` for empty input.
    """
    y_true = as_1d(y_true, "y_true")
    y_pred = as_1d(y_pred, "y_pred")
    _check_same_length(y_true, y_pred)
    if len(y_true) == 0:
        return float("nan")
    # the count divided by n, exactly the fraction (``1 - accuracy`` rounds differently)
    return np.count_nonzero(~_equal(y_true, y_pred)) / len(y_true)


def accuracy(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Fraction of correctly classified instances, ``1 - zero_one_loss``."""
    y_true = as_1d(y_true, "y_true")
    y_pred = as_1d(y_pred, "y_pred")
    _check_same_length(y_true, y_pred)
    if len(y_true) == 0:
        return float("nan")
    return np.count_nonzero(_equal(y_true, y_pred)) / len(y_true)


def _equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise ``a == b`` of two label arrays, also of two kinds (numbers against text:
    nowhere equal)."""
    same = a == b
    if isinstance(same, np.ndarray) and same.shape == a.shape:
        return same
    return np.fromiter((x == y for x, y in zip(a.tolist(), b.tolist())), dtype=bool, count=len(a))


def _class_index(y_true, classes):
    classes = np.asarray(classes)
    lookup = {c: i for i, c in enumerate(classes.tolist())}
    try:
        return np.fromiter((lookup[v] for v in np.asarray(y_true).tolist()), dtype=np.intp, count=len(y_true))
    except KeyError as exc:
        raise ValueError(f"label {exc.args[0]!r} in y_true is not among the classes {classes.tolist()}") from None


def log_loss(y_true: ArrayLike, proba: ArrayLike, classes: ArrayLike | None = None, *, eps: float = 1e-15) -> float:
    """Mean negative natural log of the probability given to the true class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    proba : array-like of shape (n_samples, n_classes)
        Class probabilities; columns follow ``classes``. Rows are renormalized to
        sum to one.
    classes : array-like of shape (n_classes,), optional
        Labels of the columns of ``proba``; default: the sorted unique labels of
        ``y_true`` (then ``proba`` must have that many columns).
    eps : float, default=1e-15
        Probabilities are clipped to ``[eps, 1]`` before the log, so a zero
        probability for the true class costs ``-log(eps)`` (about 34.5) instead
        of infinity.

    Returns
    -------
    float
    """
    y_true = as_1d(y_true, "y_true")
    proba = np.asarray(proba, dtype=float)
    if proba.ndim == 1:  # binary: probability of the positive (second) class
        proba = np.column_stack([1.0 - proba, proba])
    classes = _checked_classes(y_true, proba, classes)
    if len(y_true) == 0:
        return float("nan")
    _class_index(y_true, classes)  # every label among the classes, or the error naming it
    totals = proba.sum(axis=1, keepdims=True)
    proba = np.clip(proba / np.where(totals > 0, totals, 1.0), eps, 1.0)  # a zero costs -log(eps)
    true = proba[np.arange(len(y_true)), _class_index(y_true, classes)]
    return float(-np.mean(np.log(true)))


def _binary_auc(scores_pos, scores_neg) -> float:
    """Mann–Whitney estimate of P(score_pos > score_neg) + ½ P(tie)."""
    n_pos, n_neg = len(scores_pos), len(scores_neg)
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = _average_ranks(np.concatenate([scores_pos, scores_neg]))
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1 of ``values``, ties sharing the mean of the ranks they span."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])  # first of each run of ties
    stops = np.r_[starts[1:], len(values)]
    ranks = np.empty(len(values))
    ranks[order] = np.repeat((starts + 1 + stops) / 2.0, stops - starts)
    return ranks


def hand_till_auc(y_true: ArrayLike, proba: ArrayLike, classes: ArrayLike | None = None) -> float:
    """Hand–Till multi-class AUC, the M measure.

    ``M = 2 / (c (c - 1)) * sum_{i<j} (A(i|j) + A(j|i)) / 2`` where ``A(i|j)`` is
    the probability that a random instance of class i gets a higher estimated
    ``P(i | x)`` than a random instance of class j (ties count one half).
    Classes absent from ``y_true`` are left out of the average.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    proba : array-like of shape (n_samples, n_classes)
    classes : array-like of shape (n_classes,), optional
        Labels of the columns of ``proba``; default sorted unique ``y_true``.

    Returns
    -------
    float
        ``nan`` when fewer than two classes occur in ``y_true``.

    References
    ----------
    .. [1] Hand, D. J., Till, R. J. (2001). A simple generalisation of the area
       under the ROC curve for multiple class classification problems. Machine
       Learning 45, 171–186.
    """
    y_true = as_1d(y_true, "y_true")
    proba = np.asarray(proba, dtype=float)
    classes = _checked_classes(y_true, proba, classes)
    idx = _class_index(y_true, classes)
    present = np.unique(idx)
    if len(present) < 2:
        return float("nan")
    total = 0.0
    n_pairs = 0
    for a in range(len(present)):
        for b in range(a + 1, len(present)):
            i, j = present[a], present[b]
            in_i, in_j = idx == i, idx == j
            a_ij = _binary_auc(proba[in_i, i], proba[in_j, i])
            a_ji = _binary_auc(proba[in_j, j], proba[in_i, j])
            total += (a_ij + a_ji) / 2.0
            n_pairs += 1
    return total / n_pairs


def roc_auc(
    y_true: ArrayLike,
    proba: ArrayLike,
    classes: ArrayLike | None = None,
    *,
    multi_class: str = "hand_till",
    average: str = "macro",
) -> float:
    """Area under the ROC curve, binary or multi-class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Class probabilities (columns follow ``classes``), or for a binary task
        the score of the positive class (the second class).
    classes : array-like, optional
        Labels of the columns of ``proba``; default sorted unique ``y_true``.
    multi_class : {"hand_till", "ovr"}, default="hand_till"
        For more than two classes: the Hand–Till M measure
        (:func:`hand_till_auc`, the same as scikit-learn's ``"ovo"`` macro), or
        one-vs-rest AUCs averaged over classes.
    average : {"macro", "weighted"}, default="macro"
        One-vs-rest averaging: unweighted, or weighted by class prevalence.

    Returns
    -------
    float
        ``nan`` when ``y_true`` holds a single class.

    Notes
    -----
    The binary AUC is the Mann–Whitney statistic ``(S - n1 (n1 + 1) / 2) / (n1
    n0)`` with ``S`` the rank sum of the positive instances (average ranks for
    ties), which equals the trapezoidal area under the ROC curve.
    """
    y_true = as_1d(y_true, "y_true")
    proba = np.asarray(proba, dtype=float)
    if classes is None:
        classes = np.unique(y_true)
    classes = np.asarray(classes)
    if proba.ndim == 1:
        if len(classes) != 2:
            raise ValueError("a 1-D score vector needs exactly two classes")
        proba = np.column_stack([1.0 - proba, proba])
    idx = _class_index(y_true, classes)
    if len(classes) == 2:
        pos = idx == 1
        return _binary_auc(proba[pos, 1], proba[~pos, 1])
    if multi_class == "hand_till":
        return hand_till_auc(y_true, proba, classes)
    if multi_class != "ovr":
        raise ValueError(f"multi_class must be 'hand_till' or 'ovr', got {multi_class!r}")
    if average not in ("macro", "weighted"):
        raise ValueError(f"average must be 'macro' or 'weighted', got {average!r}")
    # one-vs-rest over the classes that occur (and not in every row)
    present = [c for c in range(len(classes)) if 0 < np.count_nonzero(idx == c) < len(idx)]
    if not present:
        return float("nan")
    aucs = [_binary_auc(proba[idx == c, c], proba[idx != c, c]) for c in present]
    weights = [np.count_nonzero(idx == c) for c in present]
    return float(np.mean(aucs) if average == "macro" else np.average(aucs, weights=weights))


@dataclass(frozen=True)
class KohaviWolpertResult:
    """Kohavi–Wolpert decomposition of the expected zero-one loss.

    Attributes
    ----------
    loss : float
        Expected zero-one loss, ``bias + variance + noise`` (exactly, for the
        plug-in estimates used here).
    bias : float
        Mean over instances of the squared-bias term ``bias²_x``.
    variance : float
        Mean over instances of ``variance_x``.
    noise : float
        Mean over instances of the intrinsic-noise term ``σ²_x`` (0 when the
        target is taken as the observed label).
    per_instance : pandas.DataFrame
        Columns ``loss``, ``bias``, ``variance``, ``noise`` per instance.
    """

    loss: float
    bias: float
    variance: float
    noise: float
    per_instance: pd.DataFrame


def kohavi_wolpert(
    y_true: ArrayLike,
    predictions: ArrayLike,
    *,
    classes: ArrayLike | None = None,
    target_proba: ArrayLike | None = None,
) -> KohaviWolpertResult:
    """Kohavi–Wolpert bias–variance decomposition of the zero-one loss.

    For an instance x with target distribution ``P(Y | x)`` and the distribution
    ``P(Ŷ | x)`` of the label predicted by classifiers trained on different
    training sets,

    - ``bias²_x = ½ Σ_y (P(Y=y|x) - P(Ŷ=y|x))²``
    - ``variance_x = ½ (1 - Σ_y P(Ŷ=y|x)²)``
    - ``σ²_x = ½ (1 - Σ_y P(Y=y|x)²)``

    and the expected zero-one loss ``1 - Σ_y P(Y=y|x) P(Ŷ=y|x)`` equals
    ``σ²_x + bias²_x + variance_x``. The reported values are means over
    instances.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed labels of the test instances.
    predictions : array-like of shape (n_trials, n_samples)
        Label predicted for each instance by the classifier of each trial
        (each trial trained on a different training set), e.g. one row per
        repeat of a repeated cross-validation (see
        :meth:`CVPredictions.bias_variance`).
    classes : array-like, optional
        Label set; default: union of ``y_true`` and ``predictions``.
    target_proba : array-like of shape (n_samples, n_classes), optional
        Known target distribution ``P(Y | x)`` (columns follow ``classes``),
        e.g. for synthetic data. By default the target is the observed label
        (a point mass), so ``noise`` is 0 and any intrinsic noise is part of the
        bias term, as in Kohavi and Wolpert's experiments.

    Returns
    -------
    KohaviWolpertResult

    Notes
    -----
    These are the plug-in (frequency) estimates; Kohavi and Wolpert also give
    finite-sample corrections that are not applied here, following common
    practice (e.g. Weka's ``BVDecompose``). The ETAN paper (2019) reports the KW bias and
    variance estimated by cross-validation; here that is obtained from r×k
    repeated CV, where each instance is predicted once per repeat by a model
    trained without it.

    References
    ----------
    .. [1] Kohavi, R., Wolpert, D. H. (1996). Bias plus variance decomposition
       for zero-one loss functions. ICML 1996, 275–283.
    .. [2] (2019). Extensive TAN (ETAN). Entropy 21, 721, §5.
    """
    y_true = as_1d(y_true, "y_true")
    predictions = np.asarray(predictions)
    if predictions.ndim == 1:
        predictions = predictions[None, :]
    if predictions.ndim != 2 or predictions.shape[1] != len(y_true):
        raise ValueError(f"predictions must have shape (n_trials, {len(y_true)}), got {predictions.shape}")
    if classes is None:
        classes = np.unique(np.concatenate([y_true, predictions.ravel()]))
    classes = np.asarray(classes)
    n_classes = len(classes)
    n_trials, n = predictions.shape
    pred_idx = _class_index(predictions.ravel(), classes).reshape(n_trials, n)
    p_hat = np.zeros((n, n_classes))
    np.add.at(p_hat, (np.tile(np.arange(n), n_trials), pred_idx.ravel()), 1.0)
    p_hat /= n_trials
    if target_proba is None:
        p_y = np.zeros((n, n_classes))
        p_y[np.arange(n), _class_index(y_true, classes)] = 1.0
    else:
        p_y = np.asarray(target_proba, dtype=float)
        if p_y.shape != (n, n_classes):
            raise ValueError(f"target_proba must have shape {(n, n_classes)}, got {p_y.shape}")
    bias = 0.5 * np.sum((p_y - p_hat) ** 2, axis=1)
    variance = 0.5 * (1.0 - np.sum(p_hat**2, axis=1))
    noise = 0.5 * (1.0 - np.sum(p_y**2, axis=1))
    loss = 1.0 - np.sum(p_y * p_hat, axis=1)
    per = pd.DataFrame({"loss": loss, "bias": bias, "variance": variance, "noise": noise})
    return KohaviWolpertResult(
        loss=float(loss.mean()),
        bias=float(bias.mean()),
        variance=float(variance.mean()),
        noise=float(noise.mean()),
        per_instance=per,
    )


def _as_2d_labels(Y, name):
    arr = np.asarray(Y)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_labels), got shape {arr.shape}")
    return arr


def _paired_label_matrices(Y_true, Y_pred):
    Y_true = _as_2d_labels(Y_true, "Y_true")
    Y_pred = _as_2d_labels(Y_pred, "Y_pred")
    if Y_true.shape != Y_pred.shape:
        raise ValueError(f"shapes differ: {Y_true.shape} vs {Y_pred.shape}")
    return Y_true, Y_pred


def global_accuracy(Y_true: ArrayLike | pd.DataFrame, Y_pred: ArrayLike | pd.DataFrame) -> float:
    """Multilabel global accuracy (exact match).

    The fraction of instances whose whole predicted label vector equals the
    true one: ``acc = (1/N) Σ_i I(ŷ_i = y_i)``.

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n_samples, n_labels)
        Binary (or any discrete) relevance matrices.

    References
    ----------
    .. [1] Corani, G., Antonucci, A., Mauá, D. D., Gabaglio, S. (2014). Trading
       off speed and accuracy in multilabel classification. PGM 2014.
    """
    Y_true, Y_pred = _paired_label_matrices(Y_true, Y_pred)
    if len(Y_true) == 0:
        return float("nan")
    return float(np.mean(np.all(Y_true == Y_pred, axis=1)))  # sklearn's subset accuracy, for any values


def hamming_accuracy(Y_true: ArrayLike | pd.DataFrame, Y_pred: ArrayLike | pd.DataFrame) -> float:
    """Multilabel Hamming accuracy (mean label accuracy), ``1 - Hamming loss``.

    ``H_acc = (1/(N n)) Σ_i Σ_j I(ŷ_ij = y_ij)`` over N instances and n labels.

    References
    ----------
    .. [1] Corani, G., Antonucci, A., Mauá, D. D., Gabaglio, S. (2014). Trading
       off speed and accuracy in multilabel classification. PGM 2014.
    """
    Y_true, Y_pred = _paired_label_matrices(Y_true, Y_pred)
    return float(np.mean(Y_true == Y_pred))
