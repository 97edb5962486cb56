"""Naive Bayes."""

from ..structure import learn_nb
from .base import BayesNetClassifier


class NaiveBayesClassifier(BayesNetClassifier):
    """Naive Bayes over discrete features: ``P(c, x) = P(c) prod_i P(x_i | c)``.

    Parameters are m-estimated (``m=1`` by default; ``m=0`` is maximum
    likelihood). With features of cardinality ``r`` and ``m = alpha * r`` the
    feature CPTs equal scikit-learn's ``CategoricalNB(alpha=alpha)``; the class
    prior differs (``(N(c) + m/|C|) / (N + m)`` here, ``N(c) / N`` there).

    Parameters
    ----------
    m : float, default=1.0
    missing : {"category", "ignore", "error"}, default="category"
    handle_unknown : {"marginalize", "error"}, default="marginalize"

    References
    ----------
    Sun, Wang & Sun (2017), Label-Driven Learning Framework, Entropy 19, §2.
    """

    def _learn_structure(self, cache):
        return learn_nb(cache)
