"""Bayesian multinets: one class-conditional network per label (BMC-CL, ETAN)."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from bnclf._params import VERBOSE, Integer
from bnclf.inference._kernels import StackedKernel
from bnclf.learn._parameters import m_estimated_log_cpts
from bnclf.learn._restricted import etan_search_size, graph_families, learn_chow_liu_multinet, learn_etan_submodel
from bnclf.models._base import BayesNetClassifier


class MultinetClassifier(BayesNetClassifier, metaclass=ABCMeta):
    """Base class of Bayesian multinets (Geiger & Heckerman 1996).

    ``P(c, x) = P(c) prod_i P_{B^c}(x_i | pa_c(x_i))`` (Sun et al. 2017 Eq. 11): the
    class prior times the likelihood of ``x`` under the network of label c.
    Subclasses implement ``_learn_multinet(cache) -> list of DiGraph`` (one DAG
    over the features per class code).

    Attributes
    ----------
    networks_ : list of Network
        The class-conditional network of each class, in the order of
        ``classes_``. They have no class node; their CPTs
        ``P(x_i | pa_c(x_i), c)`` are m-estimated from the rows of class c.
    class_log_prior_ : ndarray of shape (n_classes,)
        ``log P(c)``, m-estimated.
    """

    _abstract = True

    _network_kind = "multinet"
    _derived = ("_stacked",)

    def _fit_network(self, cache, rows):
        c = cache.class_index
        graphs = self._learn_multinet(cache)
        networks = []
        for label, graph in enumerate(graphs):
            families = graph_families(graph, c)
            # P(x | pa, c) is the class-c slice of the m-estimated CPT of (x, *pa, C)
            tables = m_estimated_log_cpts(cache, [f + (c,) for f in families], self.m)
            tables = [t[..., label] for t in tables]
            name = self.classes_[label]
            networks.append(self._make_network(families, cache, tables, title=f"class = {name}"))
        self.networks_ = networks
        self.class_log_prior_ = m_estimated_log_cpts(cache, [(c,)], self.m)[0]

    def _build_derived(self) -> None:
        self._stacked = StackedKernel(self.networks_, 1)

    def _member_kernel(self) -> StackedKernel:
        return self._stacked

    def _joint_log_likelihood(self, codes):
        return self._member_kernel()(codes)[:, :, 0] + self.class_log_prior_

    def _contribution_terms(self, codes: np.ndarray) -> np.ndarray:
        """The prior, then each class's own network's chain-rule terms (see ``contributions``)."""
        from bnclf.inference._contributions import chain_terms

        terms = np.zeros((codes.shape[0], codes.shape[1] + 1, len(self.networks_)))
        terms[:, 0, :] = self.class_log_prior_
        for label, network in enumerate(self.networks_):
            terms[:, :, label] += chain_terms(network, codes)[:, :, 0]
        return terms

    def member_log_likelihood(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """``log P_{B^c}(x)`` under each label's network: array ``(n_samples, n_classes)``."""
        return self._member_kernel()(self._encode(X))[:, :, 0]

    @abstractmethod
    def _learn_multinet(self, cache) -> list:
        """One DAG over the features per class code (a pure learner applied to the cache)."""


class ChowLiuMultinetClassifier(MultinetClassifier):
    """Bayesian Chow–Liu tree multinet (BMC-CL; Friedman et al. 1997; Sun et al. 2017 Algorithm 3).

    For each label c, a maximum spanning tree of the label-conditional mutual
    information ``I(Xi; Xj | c)`` over the features, rooted at the feature with
    the largest ``I(X; C)``; ``P(c, x) = P(c) prod_i P(x_i | pa_c(x_i), c)``.

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
    Friedman, Geiger & Goldszmidt (1997), Bayesian network classifiers, Machine
    Learning 29. Sun, Wang & Sun (2017), Entropy 19, §2.3, Eqs. (11)–(13).
    """

    short_names = {"bmccl": {}}

    def _learn_multinet(self, cache):
        return learn_chow_liu_multinet(cache)


class ETANClassifier(MultinetClassifier):
    """Extensive TAN: one k-dependence sub-model per class label (the ETAN paper, 2019).

    Each label's sub-model starts from the attribute pair with the largest
    ``I(Xi; Xj | y)`` and adds, one at a time, the attribute and parent set
    (``min(k, |S|)`` attributes already added) with the largest high-order
    conditional mutual information ``I(Xi; Pi | y)``. Classification is
    ``argmax_y P(y) prod_i P(x_i | pi_i^y, y)``.

    Parameters
    ----------
    k : int, default=2
        Number of attribute parents per attribute (``k >= 1``).
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.
    verbose : int, default=0
        1 shows a progress bar over the attributes added to the sub-models.

    Notes
    -----
    See :func:`bnclf.learn.learn_etan_submodel` for the readings of the
    lost Algorithm 2 (orientation of the first pair, ties, ``k > 2``).

    The search scores about ``p**3 (k - 1) / 3`` attribute and parent-set pairs for ``p``
    attributes (:func:`bnclf.learn.etan_search_size`), each one count of the rows into a
    table of ``r**(k+1)`` cells per class for ``r`` values an attribute. A fit estimated to
    take more than a minute warns before it starts, with the estimate and the ways to
    shorten it.

    References
    ----------
    Extensive TAN (ETAN), Entropy 21 (2019) 721, Algorithms 2–3 and Figure 5.
    """

    short_names = {"etan": {}}

    def __init__(
        self,
        *,
        k: int = 2,
        m: float = 1.0,
        missing: str = "category",
        handle_unknown: str = "marginalize",
        verbose: int = 0,
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.k = k
        self.verbose = verbose

    _parameters = {
        "k": Integer(1, "the number of attribute parents of each attribute in a sub-model", "2 is the default"),
        "verbose": VERBOSE,
    }

    _counts_needed = None  # the sub-models' searches ask for tables one at a time

    def _learn_multinet(self, cache):
        import warnings

        from tqdm.auto import tqdm

        d, n, k = cache.n_features, cache.n_samples, int(self.k)
        pairs = etan_search_size(d, k)
        values = float(np.mean(cache.cardinalities[:d])) if d else 1.0
        cells = values ** (min(k, max(d - 1, 1)) + 1) * cache.n_classes  # one family's table
        seconds = pairs * (2e-5 + 6e-9 * (n + cells))  # one count of the rows and its table each
        if seconds > 60:
            warnings.warn(
                f"ETANClassifier(k={self.k}) on {d} attributes and {n:,} rows scores about {pairs:,} "
                f"attribute and parent-set pairs: about {seconds / 60:.0f} minutes on one core. Lower k"
                + (
                    " or select attributes first (e.g. CFS)."
                    if self.verbose
                    else ", select attributes first (e.g. CFS), or pass verbose=1 to follow it."
                ),
                UserWarning,
                stacklevel=4,
            )
        scores = {}  # I(Xi; Pi | y) for every label, shared by the sub-models
        with tqdm(total=cache.n_classes * max(d - 2, 0), desc="ETAN", disable=not self.verbose, leave=False) as bar:
            return [
                learn_etan_submodel(cache, label, k=int(self.k), scores=scores, progress=bar.update)
                for label in range(cache.n_classes)
            ]
