"""Tree-augmented naive Bayes."""

from __future__ import annotations

import numbers
from collections.abc import Hashable

from bnclf._params import Checked
from bnclf.learn._restricted import learn_tan
from bnclf.models._base import BayesNetClassifier


class TANClassifier(BayesNetClassifier):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997).

    The features form a maximum weighted spanning tree of ``I(Xi; Xj | C)``
    directed away from a root; the class is a parent of every feature.

    Parameters
    ----------
    root : int, str or None, default=None
        Root feature, by name or by position; a value that is a column name is
        taken as the name (with a warning when it is also another column's
        position). ``None``: the feature with the largest ``I(X; C)``.
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.

    Notes
    -----
    Ties between equal edge weights go to the lower feature index (Prim's
    algorithm in index order). Every feature is connected, even by a zero-weight
    edge, so the tree always spans all features.

    References
    ----------
    Friedman, Geiger & Goldszmidt (1997), Bayesian network classifiers, Machine
    Learning 29. Sun, Wang & Sun (2017), Entropy 19, Algorithm 1.
    """

    short_names = {"tan": {}}

    _parameters = {"root": Checked("fit (a feature's name or position, or None)")}

    def __init__(
        self,
        *,
        root: Hashable | None = None,
        m: float = 1.0,
        missing: str = "category",
        handle_unknown: str = "marginalize",
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.root = root

    def _root_index(self):
        names = list(self._encoder.feature_names_)
        if self.root is None:
            return None
        integral = isinstance(self.root, numbers.Integral) and not isinstance(self.root, bool)
        if self.root in names:  # a name first, also when column names are integers
            index = names.index(self.root)
            if integral and 0 <= self.root < len(names) and index != self.root:
                import warnings

                warnings.warn(
                    f"root={self.root!r} is both a column name and a position; it is taken "
                    f"as the column named {self.root!r} (position {index}). Pass "
                    f"root={names[self.root]!r} for the column at position {self.root}.",
                    UserWarning,
                    stacklevel=3,
                )
            return index
        if integral and 0 <= self.root < len(names):
            return int(self.root)
        raise ValueError(
            f"root={self.root!r} is not a feature; give a position in 0..{len(names) - 1}, "
            f"a feature name such as {names[0]!r}, or None for the most informative feature."
        )

    def _learn_structure(self, cache):
        return learn_tan(cache, root=self._root_index())
