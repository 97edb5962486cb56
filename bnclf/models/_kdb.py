"""k-dependence Bayesian classifiers."""

from __future__ import annotations

from bnclf._params import Integer
from bnclf.learn._restricted import learn_kdb
from bnclf.models._base import BayesNetClassifier


class KDBClassifier(BayesNetClassifier):
    """k-dependence Bayesian classifier (Sahami 1996).

    Features ranked by ``I(X; C)``; each takes up to ``k`` earlier-ranked
    features with the highest ``I(Xi; Xj | C)`` as parents, plus the class.
    ``k=0`` is naive Bayes; ``k=1`` is a one-dependence classifier.

    Parameters
    ----------
    k : int, default=2
        Maximum number of feature parents per feature.
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
    Sahami (1996), Learning limited dependence Bayesian classifiers, KDD.
    Sun, Wang & Sun (2017), Entropy 19, Algorithm 2.
    """

    short_names = {"kdb": {}}

    def __init__(
        self, *, k: int = 2, m: float = 1.0, missing: str = "category", handle_unknown: str = "marginalize"
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.k = k

    _parameters = {
        "k": Integer(0, "the number of feature parents", "2 is the default, 0 gives naive Bayes"),
    }

    def _count_passes(self) -> int:
        return 2 if int(self.k) >= 2 else 1  # (x, pa_1, pa_2, class) is not among the pair tables

    def _learn_structure(self, cache):
        return learn_kdb(cache, k=int(self.k))
