"""Discretization of continuous features, as scikit-learn transformers.

Two transformers turn continuous columns into interval categories that the
Bayesian network classifiers can count:

* :class:`MDLDiscretizer` -- supervised, Fayyad & Irani's (1993) recursive
  minimum-entropy splitting with the MDL stopping rule [1]_, matching Weka 3.6's
  ``weka.filters.supervised.attribute.Discretize`` with default options.
* :class:`QuantileDiscretizer` -- unsupervised, equal-frequency bins whose
  edges are training quantiles (quartiles by default).

Both learn cut points on the training rows only (``fit``) and map any data
onto the same intervals (``transform``). The output is a DataFrame in which
each discretized column is a pandas ``Categorical`` whose categories are the
interval labels in increasing order, e.g. ``(-inf, 2.45]``, ``(2.45, 4.75]``,
``(4.75, inf)``; a value ``v`` falls in ``(a, b]`` when ``a < v <= b``. Other
columns pass through untouched and missing values stay missing.

References
----------
.. [1] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of
   continuous-valued attributes for classification learning", in
   *Proceedings of the 13th International Joint Conference on Artificial
   Intelligence (IJCAI)*, 1993, pp. 1022-1027.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from bnclf._entropy import entropy
from bnclf._entropy import xlogx as _xlogx
from bnclf._params import Checked, Integer, check_parameters
from bnclf.encoding._frames import as_frame, as_target_vector, check_sample_weight, is_quantity, record_feature_names

__all__ = ["MDLDiscretizer", "QuantileDiscretizer", "interval_labels", "mdl_cut_points"]


_LN2 = math.log(2.0)


def interval_labels(cut_points: Iterable[float]) -> list[str]:
    """Labels of the intervals defined by sorted cut points.

    Parameters
    ----------
    cut_points : array-like of float
        Strictly increasing cut points ``c_0 < c_1 < ... < c_{m-1}``.

    Returns
    -------
    list of str
        ``m + 1`` labels ``(-inf, c_0]``, ``(c_0, c_1]``, ..., ``(c_{m-1}, inf)``;
        ``["(-inf, inf)"]`` when there is no cut point. Numbers are written
        with 6 significant digits (``format(v, ".6g")``), or more when needed
        to keep the labels distinct.

    Examples
    --------
    >>> interval_labels([2.45, 4.75])
    ['(-inf, 2.45]', '(2.45, 4.75]', '(4.75, inf)']
    >>> interval_labels([])
    ['(-inf, inf)']
    """
    cuts = [float(c) for c in cut_points]
    if not cuts:
        return ["(-inf, inf)"]
    for digits in range(6, 18):
        text = [format(c, f".{digits}g") for c in cuts]
        if len(set(text)) == len(text):
            break
    else:  # pragma: no cover - 17 significant digits always round-trip
        text = [repr(c) for c in cuts]
    bounds = ["-inf", *text, "inf"]
    labels = [f"({lo}, {hi}]" for lo, hi in zip(bounds[:-2], bounds[1:-1])]
    labels.append(f"({bounds[-2]}, inf)")
    return labels


def _conditional_entropies(left: np.ndarray, right: np.ndarray, total: float) -> np.ndarray:
    """Class entropy after each candidate binary split, in bits.

    ``left`` and ``right`` hold one row of class counts per candidate. The sum
    runs in the order of Weka's ``ContingencyTables.entropyConditionedOnRows``,
    so exact ties between candidates resolve the same way.
    """
    n_candidates, n_classes = left.shape
    rows = np.empty((2 * n_classes + 2, n_candidates))  # one row per term, candidates along the rows
    rows[:n_classes] = left.T
    rows[n_classes] = left.sum(axis=1)
    rows[n_classes + 1 : -1] = right.T
    rows[-1] = right.sum(axis=1)
    terms = _xlogx(rows)
    terms[n_classes] *= -1.0
    terms[-1] *= -1.0
    # a running sum down the rows (np.add.accumulate is sequential): for every candidate the
    # same additions, in the same order, as Weka's loop over the cells
    acc = np.add.accumulate(terms, axis=0)[-1]
    return -acc / (total * _LN2)


def _accept_split(prior: np.ndarray, left: np.ndarray, right: np.ndarray, n_cut_points: int) -> bool:
    """Fayyad & Irani's MDL criterion (Weka's ``FayyadAndIranisMDL``)."""
    n = float(prior.sum())
    prior_entropy = entropy(prior)
    split_entropy = float(_conditional_entropies(left[None, :], right[None, :], n)[0])
    gain = prior_entropy - split_entropy
    k = int(np.count_nonzero(prior > 0))
    k_left = int(np.count_nonzero(left > 0))
    k_right = int(np.count_nonzero(right > 0))
    delta = math.log(3.0**k - 2.0) / _LN2 - (k * prior_entropy - k_right * entropy(right) - k_left * entropy(left))
    return gain > (math.log(n_cut_points) / _LN2 + delta) / n


_LARGEST = float(np.finfo(float).max)
"""The finite stand-in for an infinite cut point."""


def weighted_quantiles(values: np.ndarray, weights: np.ndarray, probs: np.ndarray, lower: bool = False) -> np.ndarray:
    """Quantiles of ``values`` repeated by ``weights``, as :func:`numpy.quantile` (linear) reads them.

    Parameters
    ----------
    values, weights : ndarray of shape (n,)
        Finite or infinite values and positive weights.
    probs : ndarray
        Probabilities in ``[0, 1]``.
    lower : bool, default=False
        Take the lower value of each interpolation pair (numpy's ``method="lower"``).

    Notes
    -----
    With ``W`` the total weight, the quantile ``p`` sits at position ``h = (W - 1) p``
    of the sorted values repeated by their weights (the linear method's position for
    ``W`` values); the value at a position ``i`` is the first sorted value whose
    cumulative weight exceeds ``i``, and the quantile interpolates between the values at
    ``floor(h)`` and ``floor(h) + 1``. Integer weights therefore give exactly
    ``np.quantile(np.repeat(values, weights), probs)``; fractional weights read the same
    rule on the cumulative weights (a total below 1 puts every quantile at the smallest value).
    """
    order = np.argsort(values, kind="stable")
    sorted_values, cumulative = values[order], np.cumsum(np.asarray(weights, dtype=float)[order])
    h = np.maximum(cumulative[-1] - 1.0, 0.0) * np.asarray(probs, dtype=float)
    base = np.floor(h)

    def at(position):
        return sorted_values[np.minimum(np.searchsorted(cumulative, position, side="right"), len(sorted_values) - 1)]

    below = at(base)
    if lower:
        return below
    above = at(base + 1.0)
    frac = h - base
    # numpy's linear interpolation, in its own form: below + (above - below) * frac, with
    # the lerp taken from above when frac >= 0.5 (as numpy does, for bitwise equality)
    diff = above - below
    return np.where(frac >= 0.5, above - diff * (1.0 - frac), below + diff * frac)


def _boundary(below: float, above: float) -> float:
    """A finite cut point ``c`` with ``below <= c < above`` for two consecutive distinct
    sorted values: their midpoint (as Weka), or, next to an infinite value, the largest
    finite number on the far side (``-inf | x`` gives the most negative float, ``x | inf``
    the largest float), so an infinite value gets an interval of its own and the labels
    stay finite."""
    if np.isfinite(below) and np.isfinite(above):
        with np.errstate(over="ignore"):
            middle = (below + above) / 2.0
        return middle if np.isfinite(middle) else below / 2.0 + above / 2.0  # no overflow
    if np.isneginf(below):
        return -_LARGEST if above > -_LARGEST else float(below)  # -inf | x
    return _LARGEST  # x | inf, or -inf | inf


def mdl_cut_points(x: np.ndarray, y_codes: np.ndarray, n_classes: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Fayyad & Irani MDL cut points of one continuous variable.

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
        Values; ``NaN`` entries are ignored.
    y_codes : ndarray of shape (n_samples,)
        Class codes in ``0 .. n_classes-1``.
    n_classes : int
        Number of classes.
    weights : ndarray of shape (n_samples,), optional
        Row weights (``sample_weight``): class counts, ``N`` and ``N - 1`` below are
        sums of weights, so integer weights give the cut points of the rows repeated.

    Returns
    -------
    ndarray of float
        Sorted cut points (possibly empty).

    Notes
    -----
    A segment of the sorted values is split at the boundary (midpoint between
    two consecutive distinct values) of minimum class entropy; the first such
    boundary wins a tie. The split is kept when the information gain exceeds
    ``(log2(N - 1) + log2(3**k - 2) - (k E - k1 E1 - k2 E2)) / N``, and both
    halves are then split in the same way. ``N - 1`` counts every position
    between two of the segment's ``N`` sorted values, as Weka does by default
    (``-E`` off), not only boundaries between distinct values.

    All candidate boundaries of a segment are scored at once from cumulative
    class counts; only the recursion over accepted segments is a Python loop.
    With weights, a segment whose weights sum to at most 1 is not split (it
    holds fewer than two rows' worth of values).
    """
    x = np.asarray(x, dtype=float)
    y_codes = np.asarray(y_codes, dtype=np.intp)
    keep = ~np.isnan(x)
    if weights is not None:
        keep &= np.asarray(weights) > 0
    x, y_codes = x[keep], y_codes[keep]
    n = x.size
    if n < 2:
        return np.empty(0)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    dtype = np.int64 if weights is None else np.float64
    onehot = np.zeros((n, n_classes), dtype=dtype)
    onehot[np.arange(n), y_codes[order]] = 1 if weights is None else np.asarray(weights, dtype=float)[keep][order]
    cum = np.zeros((n + 1, n_classes), dtype=dtype)
    np.cumsum(onehot, axis=0, out=cum[1:])
    del onehot
    # distinct[i]: a boundary lies between sorted positions i and i + 1
    distinct = xs[:-1] < xs[1:]

    cuts = []
    stack = [(0, n)]  # half-open segments [first, last) of the sorted values
    while stack:
        first, last = stack.pop()
        size = last - first
        if size < 2:
            continue
        candidates = first + np.flatnonzero(distinct[first : last - 1])
        if candidates.size == 0:
            continue
        prior = cum[last] - cum[first]
        total = float(size) if weights is None else float(prior.sum())  # rows, or their weight
        if total <= 1.0:
            continue
        prior_entropy = entropy(prior)
        left = cum[candidates + 1] - cum[first]
        right = prior - left
        entropies = _conditional_entropies(left, right, total)
        best = int(np.argmin(entropies))  # first minimum, as Weka's strict '<'
        if not entropies[best] < prior_entropy:
            continue
        if not _accept_split(prior, left[best], right[best], total - 1.0):
            continue
        i = int(candidates[best])
        cuts.append(_boundary(xs[i], xs[i + 1]))
        stack.append((first, i + 1))
        stack.append((i + 1, last))
    return np.array(sorted(cuts), dtype=float)


def _as_float(column: pd.Series, name) -> np.ndarray:
    try:
        return column.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"column {name!r} cannot be discretized: it holds non-numeric values (dtype {column.dtype})."
        ) from exc


class _BaseDiscretizer(TransformerMixin, BaseEstimator):
    """Column selection, validation and interval encoding shared by the discretizers."""

    _parameters = {"columns": Checked("fit (column names of X, or None for every quantity column)")}

    def _select_columns(self, frame: pd.DataFrame) -> list:
        columns = self.columns
        if columns is None:  # float columns and many-valued integer columns (bnclf.encoding)
            return [c for c in frame.columns if is_quantity(frame[c])]
        if isinstance(columns, (str, numbers.Integral)) or not np.iterable(columns):
            columns = [columns]
        columns = list(columns)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ValueError(
                f"columns {missing} were given in `columns` but are not in X; X has the columns {list(frame.columns)}."
            )
        return columns

    def _start_fit(self, X, y=None):
        frame, is_frame = as_frame(X, infer_types=True), isinstance(X, pd.DataFrame)
        n, d = frame.shape
        if n == 0:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={frame.shape}) while a minimum of 1 is "
                f"required by {type(self).__name__}."
            )
        if d == 0:
            raise ValueError(
                f"Found array with 0 feature(s) (shape={frame.shape}) while a minimum of 1 is "
                f"required by {type(self).__name__}."
            )
        if y is not None:
            y = as_target_vector(y, n)
        record_feature_names(self, X, frame)
        names = list(frame.columns)
        self._columns_in = names
        self._fitted_on_frame = is_frame
        self.columns_ = self._select_columns(frame)
        return frame, y

    def _finish_fit(self, cut_points: dict):
        self.cut_points_ = cut_points
        self.bin_labels_ = {c: interval_labels(cuts) for c, cuts in cut_points.items()}
        return self

    @classmethod
    def restored(
        cls,
        params: dict,
        *,
        columns_in: list,
        fitted_on_frame: bool,
        columns: list,
        n_features_in: int,
        feature_names_in: list | None,
        cut_points: dict,
    ) -> _BaseDiscretizer:
        """A fitted discretizer from stored values (a model file), as ``fit`` leaves it.

        ``params`` are the constructor's; ``columns_in`` the columns seen by ``fit``, in
        order; ``fitted_on_frame`` whether ``fit`` saw a DataFrame (``transform`` then
        matches columns by name); ``columns`` the discretized ones (``columns_``);
        ``cut_points`` maps each of them to its increasing cut points.
        """
        step = cls(**params)
        step._columns_in = list(columns_in)
        step._fitted_on_frame = bool(fitted_on_frame)
        step.columns_ = list(columns)
        step.n_features_in_ = int(n_features_in)
        if feature_names_in is not None:
            step.feature_names_in_ = np.asarray(feature_names_in, dtype=object)
        return step._finish_fit({c: np.asarray(cuts, dtype=float) for c, cuts in cut_points.items()})

    def transform(self, X: ArrayLike | pd.DataFrame) -> pd.DataFrame:
        """Map the discretized columns onto their intervals.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Data with the columns seen in ``fit``.

        Returns
        -------
        pandas.DataFrame
            Same columns (in ``fit`` order) and index. Each discretized column
            is a ``Categorical`` of interval labels (``bin_labels_``); a value
            ``v`` goes to ``(a, b]`` when ``a < v <= b``, values beyond the
            training range go to the first or last interval, and missing
            values stay missing. Other columns are returned unchanged.
        """
        check_is_fitted(self, "cut_points_")
        frame, is_frame = as_frame(X, infer_types=True), isinstance(X, pd.DataFrame)
        expected = self._columns_in
        if is_frame and self._fitted_on_frame:
            present = set(frame.columns)
            missing = [c for c in expected if c not in present]
            if missing:
                raise ValueError(f"X is missing the columns {missing}, which {type(self).__name__} was fitted with.")
            extra = [c for c in frame.columns if c not in set(expected)]
            if extra:
                raise ValueError(f"X has the columns {extra}, which {type(self).__name__} was not fitted with.")
            if list(frame.columns) != list(expected):
                frame = frame[expected]
        else:
            if frame.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input."
                )
            if list(frame.columns) != list(expected):
                frame = frame.set_axis(expected, axis=1)
        out = frame.copy()
        for name, cuts in self.cut_points_.items():
            values = _as_float(frame[name], name)
            codes = np.searchsorted(cuts, values, side="left")
            codes[np.isnan(values)] = -1
            out[name] = pd.Categorical.from_codes(codes, categories=self.bin_labels_[name])
        return out

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> np.ndarray:
        """Output column names: the input column names, unchanged."""
        check_is_fitted(self, "cut_points_")
        return np.asarray([str(c) for c in self._columns_in], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


class MDLDiscretizer(_BaseDiscretizer):
    """Supervised discretization by Fayyad & Irani's MDL criterion.

    Each selected column is split recursively: a set of training values is
    cut at the boundary that minimises the class entropy of the two halves,
    and the cut is kept only if its information gain pays for itself under
    the minimum description length principle; the halves are then split the
    same way. The result matches Weka 3.6's
    ``weka.filters.supervised.attribute.Discretize`` with default options.

    Parameters
    ----------
    columns : list of column labels, optional
        Columns to discretize. By default every column of float dtype, and
        every integer column with more than ``bnclf.encoding._frames.MAX_INTEGER_CATEGORIES``
        (10) distinct values, is discretized (for an ndarray the columns are
        named ``x0 .. x{d-1}``): the integer-column rule the command line
        follows too. Other integer columns, boolean, category and object
        columns pass through untouched unless listed here; a listed column
        must hold numbers.

    Attributes
    ----------
    cut_points_ : dict
        Column label -> sorted 1-D float ndarray of cut points (empty when no
        cut was accepted, giving the single interval ``(-inf, inf)``).
    bin_labels_ : dict
        Column label -> list of interval labels, the categories of that
        column in the output.
    columns_ : list
        The discretized columns, in input order.
    n_features_in_ : int
        Number of columns seen in ``fit``.
    feature_names_in_ : ndarray of str
        Column names seen in ``fit``; defined only when ``X`` was a DataFrame
        whose column names are all strings.

    See Also
    --------
    QuantileDiscretizer : unsupervised equal-frequency bins.

    Notes
    -----
    For a set ``S`` of ``N`` training values holding ``k`` classes, with class
    entropy ``E``, the best binary cut splits it into ``S1`` and ``S2``
    (``k1``, ``k2`` classes, entropies ``E1``, ``E2``) with information gain
    ``G = E - (|S1| E1 + |S2| E2) / N``. The cut is accepted when

    ``G > (log2(N - 1) + log2(3**k - 2) - (k E - k1 E1 - k2 E2)) / N``.

    Candidate cuts are the midpoints between consecutive distinct sorted
    values; among equally good cuts the smallest wins. As in Weka, ``N - 1``
    counts all positions between sorted values (Weka's default, without its
    ``-E`` "better encoding" option). Missing values of a column are left out
    when its cut points are learned and are missing in the output. Rows with
    a missing class are rejected, since Weka's handling of them (counting
    them as the first class) is an artefact.

    References
    ----------
    .. [1] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of
       continuous-valued attributes for classification learning", in
       *Proceedings of the 13th International Joint Conference on Artificial
       Intelligence (IJCAI)*, 1993, pp. 1022-1027.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> disc = MDLDiscretizer().fit(X, y)
    >>> disc.cut_points_
    {'x0': array([6.5])}
    >>> disc.transform([[0.0], [7.0]])["x0"].tolist()
    ['(-inf, 6.5]', '(6.5, inf)']
    """

    def __init__(self, *, columns: Sequence[Hashable] | None = None) -> None:
        self.columns = columns

    def fit(
        self, X: ArrayLike | pd.DataFrame, y: ArrayLike | None = None, sample_weight: ArrayLike | None = None
    ) -> MDLDiscretizer:
        """Learn the cut points of the selected columns from training data.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Training features.
        y : array-like of shape (n_samples,)
            Class labels (any hashable values); must not contain missing values.
        sample_weight : array-like of shape (n_samples,), optional
            How many times each row counts (class counts and ``N`` are sums of
            weights; integer weights give the cut points of the rows repeated).

        Returns
        -------
        self : MDLDiscretizer
        """
        if y is None:
            raise ValueError(
                "MDLDiscretizer requires y to be passed, but the target y is None: it is "
                "supervised and needs the class labels, call fit(X, y). "
                "For unsupervised bins use QuantileDiscretizer."
            )
        shape = np.shape(y) if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y).shape
        if len(shape) == 2 and shape[1] > 1:
            raise ValueError(
                f"MDLDiscretizer is supervised by one class, but y has {shape[1]} columns (a label "
                "matrix?). For multilabel data use QuantileDiscretizer (discretizer='quantile')."
            )
        check_parameters(self)
        frame, y = self._start_fit(X, y)
        missing = np.asarray(pd.isna(y), dtype=bool)
        if missing.any():
            raise ValueError(
                f"y contains {int(missing.sum())} missing value(s); MDLDiscretizer needs a class "
                "label for every training row. Drop those rows first, e.g. "
                "keep = pd.notna(y); X, y = X[keep], y[keep]."
            )
        weights = check_sample_weight(sample_weight, len(frame))
        codes, classes = pd.factorize(y, sort=False)
        cut_points = {}
        for name in self.columns_:
            values = _as_float(frame[name], name)
            cut_points[name] = mdl_cut_points(values, codes, len(classes), weights)
        return self._finish_fit(cut_points)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


class QuantileDiscretizer(_BaseDiscretizer):
    """Unsupervised equal-frequency discretization at training quantiles.

    Parameters
    ----------
    n_bins : int, default=4
        Number of bins wanted. The cut points are the ``1/n_bins, 2/n_bins,
        ..., (n_bins-1)/n_bins`` quantiles of the training values (quartiles
        by default), computed by :func:`numpy.quantile` (linear
        interpolation). Repeated quantiles collapse into one cut point, so a
        column with few distinct values gets fewer bins. More bins than
        training rows (and than 10) is refused at fit.
    columns : list of column labels, optional
        Columns to discretize; by default every float column and every
        integer column with more than 10 distinct values (see
        :class:`MDLDiscretizer`).

    Attributes
    ----------
    cut_points_ : dict
        Column label -> sorted 1-D float ndarray of cut points.
    bin_labels_ : dict
        Column label -> list of interval labels.
    columns_ : list
        The discretized columns, in input order.
    n_features_in_ : int
        Number of columns seen in ``fit``.
    feature_names_in_ : ndarray of str
        Column names seen in ``fit`` (DataFrame input with string names).

    Notes
    -----
    Intervals are closed on the right, ``(a, b]``. A cut point equal to the
    largest training value would leave the last interval empty of training
    rows, so it is dropped. Missing values are ignored when computing the
    quantiles and stay missing. A column whose training values are all
    missing, or all equal, becomes the single interval ``(-inf, inf)``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(1.0, 9.0).reshape(-1, 1)
    >>> QuantileDiscretizer(n_bins=4).fit(X).cut_points_["x0"]
    array([2.75, 4.5 , 6.25])
    """

    _parameters = {"n_bins": Integer(2, "the number of bins of each column", "4, quartiles, is the default")}

    def __init__(self, *, n_bins: int = 4, columns: Sequence[Hashable] | None = None) -> None:
        self.n_bins = n_bins
        self.columns = columns

    def fit(
        self, X: ArrayLike | pd.DataFrame, y: ArrayLike | None = None, sample_weight: ArrayLike | None = None
    ) -> QuantileDiscretizer:
        """Learn the quantile cut points of the selected columns.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Training features.
        y : ignored
            Accepted for pipeline compatibility.
        sample_weight : array-like of shape (n_samples,), optional
            How many times each row counts: the quantiles are those of the values
            repeated by their weights (:func:`weighted_quantiles`).

        Returns
        -------
        self : QuantileDiscretizer
        """
        check_parameters(self)
        n_bins = self.n_bins
        frame, _ = self._start_fit(X)  # unsupervised: y (a class, a label matrix or None) is not used
        if n_bins > max(len(frame), 10):  # a few bins on a few rows collapse into fewer
            raise ValueError(
                f"n_bins={n_bins} is more than the {len(frame)} training rows: a bin without a row "
                f"tells nothing; use at most {max(len(frame), 10)} bins, usually far fewer (4, quartiles, "
                "is the default; command line: --bins)."
            )
        weights = check_sample_weight(sample_weight, len(frame))
        probs = np.arange(1, n_bins) / n_bins
        cut_points = {}
        for name in self.columns_:
            values = _as_float(frame[name], name)
            known = ~np.isnan(values) if weights is None else ~np.isnan(values) & (weights > 0)
            values = values[known]
            if values.size == 0:
                cut_points[name] = np.empty(0)
                continue
            # quantiles of the values in order; with +-inf among them the lower value of the
            # interpolation pair is taken (no inf - inf), then _boundary's finite stand-ins
            method = "linear" if np.isfinite(values).all() else "lower"
            if weights is None:
                quantiles = np.quantile(values, probs, method=method)
            else:
                quantiles = weighted_quantiles(values, weights[known], probs, lower=method == "lower")
            cuts = np.unique(np.clip(quantiles, -_LARGEST, _LARGEST))
            cut_points[name] = cuts[cuts < values.max()]
        return self._finish_fit(cut_points)
