"""The queries of a fitted multilabel network (:class:`~bnclf.models.MultilabelBNClassifier`).

Pure functions of the fitted parts, which the estimator's ``map_query``,
``marginal_query``, ``predict`` and ``contributions`` hand their work to: the label
arguments checked and turned into class positions, the answers of the query kernel
(:class:`bnclf.inference._labels.LabelKernel`) with the non-empty rule, each feature's
share of a label's log-odds; and :class:`CutPointCoder`, which codes numeric rows by
interval position without building categorical columns.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import python_scalar
from bnclf.inference._labels import LabelKernel

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


class CutPointCoder:
    """Codes of rows by interval position when every feature in the network is a discretized column.

    Parameters
    ----------
    discretizer : fitted discretizer or None
        Read for ``cut_points_`` and ``bin_labels_`` (a :class:`~bnclf.QuantileDiscretizer`).
    encoder : FeatureEncoder
        The fitted encoder of the discretized frame.
    features : iterable of int
        The feature positions the network uses.

    Attributes
    ----------
    plan : list of (int, ndarray) or None
        ``(feature position, cut points)`` of every used feature, when each is a column
        with cut points whose bins are the encoder's first states (in order); None
        otherwise.
    """

    def __init__(self, discretizer: BaseEstimator | None, encoder: FeatureEncoder, features: Iterable[int]) -> None:
        self.plan = None
        cuts = getattr(discretizer, "cut_points_", None)
        names = list(encoder.feature_names_)
        used = sorted(set(features))
        if cuts is not None and all(names[j] in cuts for j in used):
            bins = discretizer.bin_labels_
            if all(list(encoder.categories_[j][: len(bins[names[j]])]) == list(bins[names[j]]) for j in used):
                self.plan = [(j, np.asarray(cuts[names[j]], dtype=float)) for j in used]

    def codes(self, frame: pd.DataFrame) -> np.ndarray | None:
        """``(n_rows, n_columns)`` int64 codes (0 for the columns the network does not use),
        equal to discretizing then encoding; None when there is no plan or a used column is
        not numeric or has a missing value (those take the general path)."""
        if self.plan is None:
            return None
        codes = np.zeros(frame.shape, dtype=np.int64)
        for j, cuts in self.plan:
            column = frame.iloc[:, j]
            if not pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
                return None
            values = column.to_numpy(dtype=float)
            if np.isnan(values).any():
                return None  # missing values take the general path (state or summed out)
            codes[:, j] = np.searchsorted(cuts, values, side="left")
        return codes


class MultilabelQueries:
    """The queries of a fitted multilabel network: MAP and marginal queries, predictions and
    each feature's share of a label's log-odds.

    The role of :class:`~bnclf.models.MultilabelBNClassifier` (and its ensemble) that
    answers questions once the network is fitted. The host provides ``label_names_``, the
    parameters ``allow_empty`` and ``query``, ``_encode(X)`` (the feature codes of rows,
    checked as fitted), the query kernel ``_kernel`` and, for :meth:`contributions`, the
    fitted factors ``_class_factors``, ``_feature_families``, ``_feature_cpts`` and the
    encoder ``_encoder``.
    """

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

        Raises
        ------
        ValueError
            For an unknown label, a label named twice or both queried and given, or a
            given value other than 0 and 1.

        Notes
        -----
        Unless ``allow_empty`` is set, when the query covers every label not in
        ``given`` and the answer together with ``given`` would be the empty
        configuration, the most probable non-empty configuration is returned
        instead: the best of the MAP answers with one more label forced to 1,
        which together cover every non-empty configuration.
        """
        index, given = map_query_labels(self.label_names_, labels, given)
        codes = self._encode(X)
        states = map_states(self._kernel, codes, len(self.label_names_), index, given, self.allow_empty)
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
        given = observed_labels(self.label_names_, given)
        index = label_positions(self.label_names_, labels)
        probs = self._kernel.marginals(self._encode(X), index, given)
        return pd.DataFrame(probs, columns=[self.label_names_[i] for i in index])

    def predict_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Marginal probability that each class is relevant: ``(n_samples, n_labels)``."""
        codes = self._encode(X)
        return self._kernel.marginals(codes, list(range(len(self.label_names_))), {})

    def predict(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Joint MAP configuration (``query="joint"``) or marginal decisions: ``(n_samples, n_labels)`` 0/1."""
        codes = self._encode(X)
        return predicted_labels(self._kernel, codes, len(self.label_names_), self.query, self.allow_empty)

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
        values = label_contributions(codes, states, self._class_factors, self._feature_families, self._feature_cpts)
        rows = X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(codes.shape[0])
        return contributions_frame(values, rows, self.label_names_, states, self._encoder.feature_names_)


def label_positions(label_names: list, labels: Hashable | Sequence[Hashable] | None) -> list[int]:
    """Positions of ``labels`` (one name or a list; None: every label) in ``label_names``.

    Raises a ValueError naming an unknown label or a label named twice.
    """
    if labels is None:
        return list(range(len(label_names)))
    if isinstance(labels, (str, numbers.Integral)) and not isinstance(labels, bool):
        labels = [labels]
    out = []
    for name in labels:
        if name not in label_names:
            raise ValueError(f"Unknown label {name!r}; the labels are {label_names}.")
        out.append(label_names.index(name))
    if len(set(out)) != len(out):
        raise ValueError(f"labels={list(labels)!r} names a label twice.")
    return out


def observed_labels(label_names: list, given: dict | None) -> dict[int, int]:
    """``given`` (label name -> 0 or 1) as label position -> int; ``{}`` for None or empty.

    Raises a ValueError for a non-dict, an unknown label or a value other than 0 and 1.
    """
    if not given:
        return {}
    if not isinstance(given, dict):
        raise ValueError(
            f"given={given!r} is not valid; give a dict of label name -> 0 or 1, e.g. given={{'happy': 1}}."
        )
    out = {}
    for name, value in given.items():
        if name not in label_names:
            raise ValueError(f"Unknown label {name!r} in given; the labels are {label_names}.")
        if value not in (0, 1) or isinstance(value, float) and not float(value).is_integer():
            raise ValueError(f"given[{name!r}]={value!r} is not valid; a label is observed as 0 or 1.")
        out[label_names.index(name)] = int(value)
    return out


def map_query_labels(
    label_names: list, labels: Hashable | Sequence[Hashable] | None, given: dict | None
) -> tuple[list[int], dict[int, int]]:
    """The positions a MAP query maximizes over (default: every label not given) and the
    observed ones; a ValueError when a label is both queried and given."""
    given = observed_labels(label_names, given)
    index = (
        label_positions(label_names, labels)
        if labels is not None
        else [i for i in range(len(label_names)) if i not in given]
    )
    overlap = [label_names[i] for i in index if i in given]
    if overlap:
        raise ValueError(f"Labels {overlap} are both queried and given; drop them from one.")
    return index, given


def map_states(
    kernel: LabelKernel, codes: np.ndarray, n_labels: int, index: list[int], given: dict[int, int], allow_empty: bool
) -> np.ndarray:
    """``(n_rows, len(index))`` 0/1 MAP states of the labels ``index``; unless
    ``allow_empty``, the best non-empty configuration when the query with ``given`` covers
    every label, no given label is 1, and the MAP answer is empty."""
    states = kernel.map(codes, index, given)
    full = len(index) + len(given) == n_labels
    if full and not allow_empty and not any(given.values()):
        states = kernel.nonempty_map(codes, index, given, states)
    return states


def predicted_labels(
    kernel: LabelKernel, codes: np.ndarray, n_labels: int, query: str, allow_empty: bool
) -> np.ndarray:
    """``(n_rows, n_labels)`` 0/1: the joint MAP configuration (``query="joint"``) or each
    label's marginal decision (probability above 0.5); unless ``allow_empty``, an empty
    answer becomes the best non-empty configuration, or the single most probable label."""
    every = list(range(n_labels))
    if query == "joint":
        return map_states(kernel, codes, n_labels, every, {}, allow_empty)
    probs = kernel.marginals(codes, every, {})
    states = (probs > 0.5).astype(np.int64)
    if not allow_empty:
        empty = ~states.any(axis=1)
        states[np.flatnonzero(empty), probs[empty].argmax(axis=1)] = 1
    return states


def label_contributions(
    codes: np.ndarray,
    states: np.ndarray,
    class_factors: list,
    feature_families: list,
    feature_cpts: list,
) -> np.ndarray:
    """``(n_rows, n_labels, 1 + n_features)``: each label's log-odds of keeping its state in
    ``states`` against flipping it, the others fixed, split into the class factors' share
    (column 0) and each feature's (see ``MultilabelBNClassifier.contributions``).

    ``class_factors`` are ``(scope over labels, table with a leading axis of 1, weight)``;
    ``feature_families`` are ``(feature, *labels numbered m + i)`` with their log-CPTs.
    An unknown feature value (code -1) contributes zero.
    """
    n, m = codes.shape
    n_labels = states.shape[1]
    values = np.zeros((n, n_labels, m + 1))
    for label in range(n_labels):
        kept, flipped = states.copy(), states.copy()
        flipped[:, label] = 1 - states[:, label]
        for family, table, weight in class_factors:
            if label in family:
                table = np.asarray(table)[0]
                values[:, label, 0] += weight * (
                    table[tuple(kept[:, v] for v in family)] - table[tuple(flipped[:, v] for v in family)]
                )
        for family, table in zip(feature_families, feature_cpts):
            if m + label not in family[1:]:
                continue
            j = family[0]
            known = codes[:, j] >= 0
            x = np.where(known, codes[:, j], 0)
            first = table[(x, *[kept[:, p - m] for p in family[1:]])]
            second = table[(x, *[flipped[:, p - m] for p in family[1:]])]
            values[:, label, 1 + j] = np.where(known, first - second, 0.0)
    return values


def contributions_frame(
    values: np.ndarray, rows: pd.Index, label_names: list, states: np.ndarray, feature_names: Sequence[Hashable]
) -> pd.DataFrame:
    """:func:`label_contributions` as a frame indexed ``(row, label, value)``, columns
    ``"(labels)"`` then the feature names."""
    n, n_labels, width = values.shape
    return pd.DataFrame(
        values.reshape(n * n_labels, width),
        index=pd.MultiIndex.from_arrays(
            [
                np.repeat(np.asarray(rows), n_labels),
                np.tile(np.asarray(label_names, dtype=object), n),
                states.reshape(-1),
            ],
            names=["row", "label", "value"],
        ),
        columns=["(labels)", *[python_scalar(c) for c in feature_names]],
    )
