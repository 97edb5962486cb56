"""Explanations of a prediction: exact per-feature contributions to the log-odds.

:class:`Explanations` is the part of :class:`bnclf.models.BayesNetClassifier` that answers
``contributions``; the arithmetic is :mod:`bnclf.inference._contributions`'s
(``chain_terms``, ``log_odds_split``), this module picks the classes compared and lays
the result out as a DataFrame. The inference module is imported when first used: it
loads networkx, which a prediction does not need.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from bnclf.encoding._frames import python_scalar


class Explanations:
    """``contributions(X, against)``, from the terms ``_contribution_terms(codes)`` that add
    up to ``log P(c, x)``; a multinet overrides that, an ensemble ``contributions``."""

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

        Raises
        ------
        ValueError
            When ``against`` is not a class label, None or ``"each"``.
        TypeError
            For a model without one network whose terms add up to its posterior.

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
        from bnclf.inference._contributions import log_odds_split  # deferred: it loads networkx

        check_is_fitted(self, "classes_")
        codes = self._encode(X)
        terms = self._contribution_terms(codes)
        joint = self._joint_log_likelihood(codes)
        values, rows, predicted, other = log_odds_split(terms, joint, self._against_code(against))
        return self._contribution_frame(X, len(codes), values, rows, predicted, other)

    def _against_code(self, against: Any) -> str | int | None:
        """``against`` as ``log_odds_split`` takes it: None, ``"each"`` or a class code."""
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
        from bnclf.inference._contributions import chain_terms  # deferred: it loads networkx

        if "network_" not in self.__dict__:
            raise TypeError(
                f"{type(self).__name__} has no single network whose terms add up to its posterior; "
                "contributions are defined for one network (NB, TAN, KDB, the search learners), "
                "multinets and, per member, ensembles."
            )
        return chain_terms(self.network_, codes)

    def _contribution_frame(
        self,
        X: Any,
        n_rows: int,
        values: np.ndarray,
        rows: np.ndarray,
        predicted: np.ndarray,
        other: np.ndarray,
        extra: dict | None = None,
    ) -> pd.DataFrame:
        """The contributions ``values`` indexed by ``(row, predicted, against)`` (labels, and
        ``X``'s index when it is a DataFrame), with the ``extra`` levels after ``against``."""
        index = X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(n_rows)
        labels = np.asarray([python_scalar(c) for c in self.classes_], dtype=object)
        levels = {"row": np.asarray(index)[rows], "predicted": labels[predicted], "against": labels[other]}
        levels.update(extra or {})
        columns = ["(prior)", *[python_scalar(name) for name in self._encoder.feature_names_]]
        return pd.DataFrame(
            values, index=pd.MultiIndex.from_arrays(list(levels.values()), names=list(levels)), columns=columns
        )

    def _part_contributions(self, X: Any, against: str | int | None) -> pd.DataFrame:
        """The chain-rule split of every network ``explain`` builds for each row of ``X``
        (the instance-specific learners' ``contributions``; see there). ``against`` is a
        class code, ``"each"`` or None (the runner-up of the model's posterior)."""
        from bnclf.inference._contributions import chain_terms, log_odds_split  # deferred: it loads networkx

        frame = self._check_predict_frame(X)
        codes = self._encode(frame)
        log_proba = self.predict_log_proba(frame)  # the classifier's answer picks the classes compared
        labels = np.asarray([python_scalar(c) for c in self.classes_], dtype=object)
        index = X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(len(frame))
        records, keys = [], []
        for i in range(len(frame)):  # one row at a time: the networks are built per row
            explanation = self.explain(frame.iloc[[i]])
            for part, network in explanation.networks.items():
                terms = chain_terms(network, codes[i : i + 1])
                if terms.shape[2] == 1:  # a class-conditional part: its log P(x | label), split
                    records.append(terms[0, :, 0])
                    keys.append((index[i], part, labels[int(np.argmax(log_proba[i]))], None))
                    continue
                values, _, predicted, other = log_odds_split(terms, log_proba[i : i + 1], against)
                records.extend(values)
                keys.extend((index[i], part, labels[p], labels[o]) for p, o in zip(predicted, other))
        columns = ["(prior)", *[python_scalar(name) for name in self._encoder.feature_names_]]
        return pd.DataFrame(
            np.array(records).reshape(len(records), len(columns)),
            index=pd.MultiIndex.from_tuples(keys, names=["row", "part", "predicted", "against"]),
            columns=columns,
        )
