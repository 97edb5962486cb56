"""Naive Bayes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
from numpy.typing import ArrayLike

from bnclf.learn._restricted import learn_nb
from bnclf.models._base import BayesNetClassifier


class NaiveBayesClassifier(BayesNetClassifier):
    """Naive Bayes over discrete features: ``P(c, x) = P(c) prod_i P(x_i | c)``.

    Parameters are m-estimated (``m=1`` by default; ``m=0`` is maximum
    likelihood). With features of cardinality ``r`` and ``m = alpha * r`` the
    feature CPTs equal scikit-learn's ``CategoricalNB(alpha=alpha)``; the class
    prior differs (``(N(c) + m/|C|) / (N + m)`` here, ``N(c) / N`` there).

    Parameters
    ----------
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.

    References
    ----------
    Sun, Wang & Sun (2017), Label-Driven Learning Framework, Entropy 19, §2.
    """

    short_names = {"nb": {}}

    _counts_needed = "class"

    def _learn_structure(self, cache):
        return learn_nb(cache)

    def partial_fit(
        self,
        X: ArrayLike | pd.DataFrame,
        y: ArrayLike | pd.DataFrame,
        classes: ArrayLike | None = None,
        categories: Mapping[Any, Any] | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> NaiveBayesClassifier:
        """Add the counts of one chunk of rows and recompute the CPTs (incremental fit).

        The ``(x_j, class)`` and class count tables are kept and summed over the calls,
        and the CPTs are m-estimated from the sums, so ``partial_fit`` over the chunks of
        a data set gives the same model, bit for bit, as ``fit`` on their concatenation
        (when the first chunk settles the categories, see below). A model fitted with
        ``fit`` continues from its counts.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            One chunk of rows, with the columns of the first call.
        y : array-like of shape (n_samples,) or one-column DataFrame
            Its class labels.
        classes : array-like, optional
            Every class label any chunk may have: required on the first call (as in
            scikit-learn), optional afterwards (it must then be the same).
        categories : dict, optional
            First call only: ``column -> list of categories`` for columns that are not
            categorical. The first call fixes each column's states: its declared
            categories (a pandas ``CategoricalDtype`` or ``categories=``), else the
            values of the first chunk; a later value outside them raises an error naming
            the column and how to declare its categories. A column whose missing values
            first appear in a later chunk gains the ``<missing>`` state then
            (``missing="category"``).
        sample_weight : array-like of shape (n_samples,), optional
            How many times each row of this chunk counts (as in :meth:`fit`).

        Returns
        -------
        self
        """
        return self._partial_fit(X, y, classes=classes, categories=categories, sample_weight=sample_weight)
