"""Instance-specific classifiers: a structure for every test instance.

LKDB and AKDB (Sun et al. 2017, §2.2.3 and its reference [5]), the label-driven
LTAN (Sun et al. 2017, Algorithm 4) and discriminatory target learning for KDB
(Duan et al. 2019).
Structures are built for whole batches of rows with numpy (see :mod:`bnclf.learn`);
:meth:`InstanceSpecificClassifier.explain` returns the
networks built for one row as :class:`~bnclf.network.Network` values (pgmpy
through ``to_pgmpy()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from bnclf._config import row_chunks
from bnclf._kappa import kappa
from bnclf._params import Integer, Number, Options
from bnclf.counts._measures import comparable
from bnclf.encoding._frames import python_scalar
from bnclf.inference._kernels import log_posterior
from bnclf.learn._instance import LocalParameters, LocalTables, local_kdb_parents, local_tree_parents, tree_roots
from bnclf.learn._parameters import m_estimated_log_cpts
from bnclf.learn._restricted import graph_families, learn_kdb, learn_tan
from bnclf.models._base import BayesNetClassifier
from bnclf.network import Network, NetworkMembers

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Explanation:
    """The networks an instance-specific classifier built for one row, and their answers.

    Attributes
    ----------
    row : dict
        The row, ``feature -> value`` (unknown values as given).
    prediction : object
        The classifier's label for the row.
    proba : dict
        ``label -> P(label | row)``: the classifier's posterior.
    networks : dict
        ``part name -> Network``, in the order they are drawn: the generalist or
        regular model first, then the per-instance networks.
    posteriors : dict
        ``part name -> {label: probability}``: what each part answered
        (normalized over the labels that part considers).
    details : dict
        Learner-specific facts (LTAN: ``omega``, the labels kept; ``reconsidered``).
    """

    row: dict
    prediction: object
    proba: dict
    networks: dict
    posteriors: dict
    details: dict = field(default_factory=dict)

    def to_pgmpy(self) -> dict:
        """``part name -> pgmpy DiscreteBayesianNetework`` with CPDs (states named)."""
        return {name: net.to_pgmpy() for name, net in self.networks.items()}

    def parents(self) -> dict:
        """``part name -> {feature: [feature parents]}`` (the class left out)."""
        out = {}
        for name, net in self.networks.items():
            fams = net.named_families
            out[name] = {
                child: [p for p in ps if p != net.class_name] for child, ps in fams.items() if child != net.class_name
            }
        return out

    def __str__(self) -> str:
        lines = [f"prediction: {self.prediction!r}"]
        for key, value in self.details.items():
            lines.append(f"{key}: {value}")
        for name, parents in self.parents().items():
            post = self.posteriors.get(name)
            best = max(post, key=post.get) if post else None
            lines.append(f"[{name}]" + (f"  answers {best!r} ({post[best]:.4f})" if post else ""))
            arcs = [f"{', '.join(map(str, ps))} -> {child}" for child, ps in parents.items() if ps]
            lines.append("  " + ("; ".join(arcs) if arcs else "no arcs among features"))
        return "\n".join(lines)


class InstanceSpecificClassifier(BayesNetClassifier):
    """Base class: training rows kept for prediction, rows predicted in bounded chunks.

    Subclasses implement ``_fit_local(data, cache)``, ``_chunk(codes) -> dict``
    (at least ``"proba"``: the posterior of each row of the chunk) and
    ``_explain_parts(codes_row, parts) -> (networks, posteriors, details)``.

    Notes
    -----
    An instance-specific model keeps its coded training rows: a structure is built for
    every test row, and the CPT entries of a family with two or more feature parents
    (the families of that row's structure) are counted from the rows at predict time.
    The fitted model, its pickle and its model file therefore grow with the training
    data, unlike the other learners', which keep count tables. The value-level tables
    computed at fit time (local and pointwise measures) are kept too; the count cache,
    the per-row parameter tables and the row bitsets are rebuilt from the rows on first
    use.
    """

    _abstract = True

    _network_kind = "instance"
    _counts_needed = None  # per-row structures read the training rows

    def fit(self, X: ArrayLike | pd.DataFrame, y: ArrayLike | pd.DataFrame | None = None) -> BayesNetClassifier:
        """Learn from discrete features ``X`` and labels ``y`` (see :meth:`BayesNetClassifier.fit`).

        No ``sample_weight``: this learner reads the training rows themselves
        (per-row structures and their counts), not weighted count tables, so weights have no
        single meaning here. scikit-learn's ``has_fit_parameter(model, "sample_weight")``
        is False, and boosting or bagging wrappers say so; repeat rows to weight them.
        """
        return super().fit(X, y)

    _derived = ("_counts_cache", "_local_parameters", "_local_tables")

    def _fit_network(self, cache, rows):
        self._rows = rows
        self._counts_cache = cache
        self._build_derived()
        self._fit_local(rows, cache)

    def _check_fitted_state(self) -> None:
        super()._check_fitted_state()
        rows = self.__dict__.get("_rows")
        if rows is not None and (
            not np.array_equal(rows.cardinalities, self._encoder.cardinalities_) or rows.n_classes != len(self.classes_)
        ):
            raise ValueError("the kept training rows do not have the cardinalities of the states.")

    def _build_derived(self) -> None:
        from bnclf.counts._cache import CountCache

        if self.__dict__.get("_counts_cache") is None:
            cache = self._counts_cache = CountCache(self._rows)
            cache.names = [str(name) for name in self.node_names_]
        self._local_parameters = LocalParameters(self._rows, self._counts_cache, self.m)
        self._local_tables = LocalTables(self._counts_cache)

    @property
    def _cache(self):
        """The count cache of the training rows."""
        return self._counts_cache

    @property
    def _local(self) -> LocalParameters:
        return self._local_parameters

    @property
    def _tables(self) -> LocalTables:
        return self._local_tables

    def _cells_per_row(self) -> int:
        """Cells of the largest per-row array a chunk builds (a few d x d score matrices)."""
        return 4 * self.n_features_in_**2

    def _chunks(self, codes):
        return row_chunks(len(codes), self._cells_per_row())

    def _run(self, codes) -> dict:
        try:  # family counts are shared between the chunks of one call only
            parts = [self._chunk(codes[rows]) for rows in self._chunks(codes)]
        finally:
            self._local.forget()
        if not parts:
            return {"proba": np.zeros((0, len(self.classes_)))}
        return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}

    def _joint_log_likelihood(self, codes):
        with np.errstate(divide="ignore"):
            return np.log(self._run(codes)["proba"])

    def local_structures(self, X: ArrayLike | pd.DataFrame) -> dict:
        """The per-row structures and part posteriors of these rows (arrays; see subclasses)."""
        out = self._run(self._encode(X))
        out.pop("proba")
        return out

    # -- the fitted networks -------------------------------------------------------
    def network_members(self) -> list:
        check_is_fitted(self, "classes_")
        if "network_" not in self.__dict__:
            raise ValueError(
                f"{type(self).__name__} has no network fitted in advance: it builds one per "
                "test instance. Use explain(row) for the networks of a row "
                "(explain(row).to_pgmpy() for pgmpy objects)."
            )
        return NetworkMembers([(None, self.network_)], self)

    def _single_network(self):
        if "network_" in self.__dict__:
            return self.network_
        check_is_fitted(self, "classes_")
        raise AttributeError(
            f"{type(self).__name__} has no network fitted in advance (dag_, families_, "
            "log_cpts_): it builds one per test instance; use explain(row).networks."
        )

    # -- explanations ----------------------------------------------------------------
    def contributions(self, X: ArrayLike | pd.DataFrame, against: object = None) -> pd.DataFrame:
        """Exact per-feature contributions of each network built for each row.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        against : None, class label or "each", default=None
            As for :meth:`BayesNetClassifier.contributions`; the predicted class and the
            runner-up are the classifier's (its combined posterior).

        Returns
        -------
        DataFrame
            Index ``(row, part, predicted, against)``: one row per network that
            :meth:`explain` shows for the row (``part`` its name there: the regular
            model, then the per-instance networks) and per pair of classes; the columns
            of :meth:`BayesNetClassifier.contributions`. Each row sums to that part's
            log-odds, ``log P_part(predicted, x) - log P_part(against, x)``; a part that
            is one label's class-conditional network (LTAN's experts) has no other class
            to compare with: its row (``against`` None) splits its ``log P(x | label)``.

        Notes
        -----
        The parts are combined by averaging posteriors (AKDB, target learning) or by
        LTAN's label-driven rule, so the classifier's own log-odds is not a sum of feature
        terms; each part's is, exactly (:func:`bnclf.inference._contributions.chain_terms`).
        The networks are built one row at a time, as :meth:`explain` builds them.
        """
        check_is_fitted(self, "classes_")
        return self._part_contributions(X, self._against_code(against))

    def explain(self, X_row: ArrayLike | pd.DataFrame | pd.Series) -> Explanation:
        """The networks built for one row, with their CPDs and the posterior of each part.

        Parameters
        ----------
        X_row : DataFrame with one row, Series, or array-like of shape (n_features,)
            or (1, n_features).

        Returns
        -------
        Explanation
        """
        check_is_fitted(self, "classes_")
        import pandas as pd

        if isinstance(X_row, pd.Series):
            X_row = X_row.to_frame().T
        elif not isinstance(X_row, pd.DataFrame):
            arr = np.asarray(X_row, dtype=object)
            X_row = arr.reshape(1, -1) if arr.ndim == 1 else arr
        codes = self._encode(X_row)
        if codes.shape[0] != 1:
            raise ValueError(f"explain takes one row; got {codes.shape[0]}. Pass X.iloc[[i]].")
        parts = self._run(codes)
        networks, posteriors, details = self._explain_parts(codes, parts)
        labels = self._labels()
        proba = dict(zip(labels, parts["proba"][0].tolist()))
        frame = X_row if isinstance(X_row, pd.DataFrame) else pd.DataFrame(X_row)
        row = dict(zip(self._encoder.feature_names_, frame.iloc[0].tolist()))
        return Explanation(row, labels[int(np.argmax(parts["proba"][0]))], proba, networks, posteriors, details)

    def _labels(self):
        return [python_scalar(c) for c in self.classes_]

    def _posterior_dict(self, values, mask=None) -> dict:
        labels = self._labels()
        return {
            lab: float(v)
            for lab, v, keep in zip(labels, values, np.ones(len(labels), bool) if mask is None else mask)
            if keep
        }

    def _row_network(self, parents, codes_row, title) -> Network:
        """The network of one row: feature ``i`` with parents ``parents[i]`` (-1 padded) and the class."""
        c = self._cache.class_index
        families = []
        for i in range(self.n_features_in_):
            ps = [int(p) for p in np.atleast_1d(parents[i]) if p >= 0]
            families.append((i, *sorted(ps), c))
        families.append((c,))
        return self._make_network(families, self._cache, title=title)

    def _expert_network(self, parents, label, title):
        """A class-free network (multinet member) with CPTs ``P(x_i | pa, c=label)``."""
        c = self._cache.class_index
        families = [
            (i, *sorted(int(p) for p in np.atleast_1d(parents[i]) if p >= 0)) for i in range(self.n_features_in_)
        ]
        tables = m_estimated_log_cpts(self._cache, [f + (c,) for f in families], self.m)
        return self._make_network(families, self._cache, [t[..., label] for t in tables], title=title)


# -- LKDB / AKDB ---------------------------------------------------------------------------
class LKDBClassifier(InstanceSpecificClassifier):
    """Local KDB: a k-dependence structure learned for every test instance (Sun et al. 2017 §2.2.3).

    For a row ``x``, the attributes are ranked by the local mutual information
    of the row's own values ``I(x_i; C) = sum_c P(x_i, c) log P(x_i, c) / (P(x_i) P(c))``
    (Sun et al. 2017 Eq. 9) and each takes as parents the ``k`` earlier-ranked
    attributes with the highest conditional local mutual information
    ``I(x_i; x_j | C) = sum_c P(x_i, x_j, c) log P(x_i, x_j | c) / (P(x_i | c) P(x_j | c))``
    (Eq. 10); the class is a parent of every attribute. CPTs are m-estimates
    from the training counts.

    Parameters
    ----------
    k : int, default=1
        Maximum number of feature parents (the papers use k = 1 for AKDB).
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
    Ties: lower attribute index first in the ranking, the earlier-ranked
    attribute first among parent candidates (as :func:`bnclf.learn.learn_kdb`).
    Parents are taken whatever their CLMI, as KDB takes them whatever their CMI.
    A value unknown at predict time leaves its attribute out of the row's
    structure (ranking, parents): it is a class-only leaf, summed out.

    References
    ----------
    Sun, Wang & Sun (2017), Label-driven learning framework, Entropy 19, §2.2.3
    and its reference [5] (Wang et al., local KDB and AKDB).
    """

    short_names = {"lkdb": {}}

    def __init__(
        self, *, k: int = 1, m: float = 1.0, missing: str = "category", handle_unknown: str = "marginalize"
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.k = k

    _parameters = {"k": Integer(0, "the number of feature parents of each attribute", "1 is the default")}

    def _fit_local(self, data, cache):
        self._lmi = comparable(self._tables.local_mi())
        self._clmi = comparable(self._tables.conditional_local_mi())

    def _lkdb_parents(self, codes):
        idx, known = self._tables.flat_index(codes)
        pair = self._clmi[idx[:, :, None], idx[:, None, :]]
        return local_kdb_parents(self._lmi[idx], pair, known, int(self.k))

    def _chunk(self, codes):
        parents = self._lkdb_parents(codes)
        jll = self._local.joint_log(codes, parents)
        return {"proba": np.exp(log_posterior(jll)), "parents": parents}

    def _explain_parts(self, codes, parts):
        net = self._row_network(parts["parents"][0], codes[0], "LKDB for this row")
        return {"LKDB": net}, {"LKDB": self._posterior_dict(parts["proba"][0])}, {}


class AKDBClassifier(LKDBClassifier):
    """Averaged KDB: the mean of the KDB and the LKDB posteriors (Sun et al. 2017 §2.2.3, ref. [5]).

    ``P(c | x) = (P_KDB(c | x) + P_LKDB(c | x)) / 2``, both k-dependence.
    ``network_`` is the fitted KDB; the LKDB network of a row comes from
    :meth:`explain`.

    Parameters
    ----------
    k : int, default=1
        Maximum number of feature parents of the KDB and of each row's LKDB
        (the papers use k = 1 for AKDB).
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.
    """

    short_names = {"akdb": {}}

    def _fit_local(self, data, cache):
        super()._fit_local(data, cache)
        graph = learn_kdb(cache, k=int(self.k))
        self.network_ = self._make_network(graph_families(graph, cache.class_index), cache, title=f"KDB (k={self.k})")

    def _chunk(self, codes):
        out = super()._chunk(codes)
        kdb = np.exp(log_posterior(self.network_.joint_log_likelihood(codes)))
        out["lkdb_proba"] = out["proba"]
        out["kdb_proba"] = kdb
        out["proba"] = (kdb + out["lkdb_proba"]) / 2
        return out

    def _explain_parts(self, codes, parts):
        net = self._row_network(parts["parents"][0], codes[0], "LKDB for this row")
        return (
            {"KDB": self.network_, "LKDB": net},
            {"KDB": self._posterior_dict(parts["kdb_proba"][0]), "LKDB": self._posterior_dict(parts["lkdb_proba"][0])},
            {},
        )


# -- LTAN ------------------------------------------------------------------------------------
def _softmax_over(logits, mask):
    """Posterior normalized over ``mask`` (zero outside), rows of (n, l)."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.where(mask, np.exp(z), 0.0)
    return e / e.sum(axis=1, keepdims=True)


class LTANClassifier(InstanceSpecificClassifier):
    """Label-driven TAN (Sun et al. 2017, Algorithm 4): a generalist TAN, then label filtering
    and label specialization for the instances it is unsure about.

    1. The generalist TAN gives ``P_G(c | x)``; ``Omega' = {c : P_G(c|x) / P_G(c^|x) >= delta}``
       (Eq. 14). With ``|Omega'| = 1`` the answer is the generalist's.
    2. Refined generalist TAN-IE: a spanning tree on the reduced CMI
       ``R_ij = sum_{c in Omega'} P(c) I(X_i; X_j | c)`` (Eq. 16), the per-label terms
       computed once at fit time; root and CPTs as TAN's.
    3. Experts IBMC-CL: for each ``c`` in ``Omega'``, a Chow–Liu tree on the
       conditional pointwise MI of the row's own values
       ``log P(x_i, x_j | c) / (P(x_i | c) P(x_j | c))`` (Eq. 18); expert ``E^c``
       scores ``P(c) prod_i P(x_i | pa_c(x_i), c)``.
    4. Both are normalized over ``Omega'`` and averaged (Table 8); the answer is
       their argmax.

    Parameters
    ----------
    delta : float, default=0.1
        Label filtering threshold, ``0 < delta <= 1`` (the paper's choice, §4.1).
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.

    Attributes
    ----------
    network_ : Network
        The generalist TAN.

    Notes
    -----
    ``predict_proba`` of a reconsidered row gives the labels of ``Omega'`` the
    generalist's mass on ``Omega'`` split by the averaged posterior, and keeps
    the generalist's probabilities of the other labels: the probabilities sum
    to one and their argmax is the paper's answer (a label outside ``Omega'``
    has less than ``delta`` times the top label's mass, which the best label of
    ``Omega'`` always exceeds).
    When ``Omega'`` holds every label, RCMI is the CMI and TAN-IE uses TAN's
    own weight matrix (the per-label sum equals it only up to rounding, which
    could break TAN's ties differently), so it is exactly the generalist's tree.
    Both trees are rooted at the attribute with the largest ``I(X; C)`` (TAN's
    rule; the experts' root is left open by Algorithm 2). Pointwise MI uses the
    m-estimates (DESIGN §3). Ties in Prim's algorithm go to the lowest index.
    A value unknown at predict time leaves its attribute out of the row's
    trees; the generalist sums it out exactly.

    References
    ----------
    Sun, Wang & Sun (2017), Label-driven learning framework: towards more
    accurate Bayesian network classifiers through discrimination of
    high-confidence labels, Entropy 19, 661.
    """

    short_names = {"ltan": {}}

    def __init__(
        self, *, delta: float = 0.1, m: float = 1.0, missing: str = "category", handle_unknown: str = "marginalize"
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.delta = delta

    _parameters = {
        "delta": Number(0, 1, low_open=True, meaning="the label filtering threshold", note="0.1 is the default")
    }

    def _fit_local(self, data, cache):
        graph = learn_tan(cache)
        self.network_ = self._make_network(graph_families(graph, cache.class_index), cache, title="TAN (generalist)")
        self._mi = comparable(cache.mi_with_class())
        self._cmi = comparable(cache.cmi_matrix())
        self._rcmi_terms = self._tables.class_weighted_label_mi().reshape(cache.n_classes, -1)
        self._cpmi = comparable(self._tables.conditional_pointwise_mi(self.m))

    def _chunk(self, codes):
        n, d, l = len(codes), self.n_features_in_, len(self.classes_)
        generalist = np.exp(log_posterior(self.network_.joint_log_likelihood(codes)))
        omega = generalist / generalist.max(axis=1, keepdims=True) >= self.delta
        reconsidered = omega.sum(axis=1) > 1
        out = {
            "proba": generalist.copy(),
            "generalist_proba": generalist,
            "omega": omega,
            "reconsidered": reconsidered,
            "refined_parents": np.full((n, d), -1, dtype=np.int64),
            "expert_parents": np.full((n, l, d), -1, dtype=np.int64),
            "refined_proba": np.zeros((n, l)),
            "expert_proba": np.zeros((n, l)),
        }
        rows = np.flatnonzero(reconsidered)
        if rows.size == 0:
            return out
        sub, keep = codes[rows], omega[rows]
        idx, known = self._tables.flat_index(sub)
        roots = tree_roots(self._mi, known)
        # refined generalist TAN-IE: RCMI = sum over Omega' of the per-label terms
        weights = comparable((keep.astype(float) @ self._rcmi_terms).reshape(-1, d, d))
        weights[keep.all(axis=1)] = self._cmi  # Omega' = all labels: exactly TAN's weights
        refined_parents = local_tree_parents(weights, roots, known)
        refined = _softmax_over(self._local.joint_log(sub, refined_parents[:, :, None]), keep)
        # experts: one CPMI Chow-Liu tree per (row, label in Omega')
        pr, pc = np.nonzero(keep)
        expert_parents = np.empty((len(pr), d), dtype=np.int64)
        scores = np.empty(len(pr))
        for part in row_chunks(len(pr), d * d):  # (row, label) pairs in bounded batches
            q, c = pr[part], pc[part]
            ix = idx[q]
            cpmi = self._cpmi[ix[:, :, None], ix[:, None, :], c[:, None, None]]
            expert_parents[part] = local_tree_parents(cpmi, roots[q], known[q])
            scores[part] = self._local.joint_log(sub[q], expert_parents[part][:, None, :, None], labels=c[:, None])[
                :, 0
            ]
        logits = np.full((len(rows), l), -np.inf)
        logits[pr, pc] = scores
        expert = _softmax_over(logits, keep)
        mass = (generalist[rows] * keep).sum(axis=1, keepdims=True)
        out["proba"][rows] = np.where(keep, mass * (refined + expert) / 2, generalist[rows])
        out["refined_parents"][rows] = refined_parents
        out["expert_parents"][rows[pr], pc] = expert_parents
        out["refined_proba"][rows] = refined
        out["expert_proba"][rows] = expert
        return out

    def diagnose(self, X: ArrayLike | pd.DataFrame, y: ArrayLike | None = None) -> dict:
        """The label-driven diagnostics of Sun et al. (2017) §4.3 on the rows of ``X``.

        Returns
        -------
        dict
            ``reconsidered`` (bool array: ``|Omega'| > 1``, Eq. 21), ``n_reconsidered``,
            ``llp`` (% of rows reconsidered, Eq. 22), ``r_bar`` (mean ``|Omega'|`` of
            the reconsidered rows, NaN if none), ``omega`` (bool array (n, l)). With
            true labels ``y`` also ``cp`` and ``lp`` (% of reconsidered rows the
            framework corrects / breaks, Eqs. 23–24) and ``kappa`` (agreement of
            TAN-IE and the experts on the reconsidered rows, Eqs. 25–27). All
            percentages are NaN when no row is reconsidered. A true label the model
            was not fitted with is wrong for both the generalist and LTAN.
        """
        codes = self._encode(X)
        parts = self._run(codes)
        rec = parts["reconsidered"]
        n_rec = int(rec.sum())
        out = {
            "reconsidered": rec,
            "n_reconsidered": n_rec,
            "omega": parts["omega"],
            "llp": 100.0 * n_rec / len(rec) if len(rec) else float("nan"),
            "r_bar": float(parts["omega"][rec].sum(axis=1).mean()) if n_rec else float("nan"),
        }
        if y is None:
            return out
        truth = self._label_codes(y, len(rec))
        general = np.argmax(parts["generalist_proba"], axis=1)
        final = np.argmax(parts["proba"], axis=1)
        if n_rec:
            out["cp"] = 100.0 * np.sum(rec & (general != truth) & (final == truth)) / n_rec
            out["lp"] = 100.0 * np.sum(rec & (general == truth) & (final != truth)) / n_rec
            out["kappa"] = cohen_kappa(
                np.argmax(parts["refined_proba"][rec], axis=1),
                np.argmax(parts["expert_proba"][rec], axis=1),
                len(self.classes_),
            )
        else:
            out["cp"] = out["lp"] = out["kappa"] = float("nan")
        return out

    def _label_codes(self, y, n) -> np.ndarray:
        """Class codes of true labels; ``-1`` for a label the model was not fitted with
        (a test fold can hold a class its training fold lacks): such a row is wrong for
        the generalist and for LTAN alike, so it counts towards neither CP nor LP."""
        y = np.asarray(y, dtype=object).ravel()
        if len(y) != n:
            raise ValueError(f"y has {len(y)} labels but X has {n} rows; they must match.")
        if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in y):
            raise ValueError("y has missing labels; diagnose needs the true label of every row.")
        lookup = {python_scalar(c): i for i, c in enumerate(self.classes_)}
        return np.array([lookup.get(python_scalar(v), -1) for v in y])

    def _explain_parts(self, codes, parts):
        keep = parts["omega"][0]
        labels = self._labels()
        networks = {"TAN (generalist)": self.network_}
        posteriors = {"TAN (generalist)": self._posterior_dict(parts["generalist_proba"][0])}
        details = {"reconsidered": bool(parts["reconsidered"][0]), "omega": [lab for lab, k in zip(labels, keep) if k]}
        if parts["reconsidered"][0]:
            networks["TAN-IE (refined generalist)"] = self._row_network(
                parts["refined_parents"][0], codes[0], "TAN-IE (refined generalist)"
            )
            posteriors["TAN-IE (refined generalist)"] = self._posterior_dict(parts["refined_proba"][0], keep)
            expert = self._posterior_dict(parts["expert_proba"][0], keep)
            for c in np.flatnonzero(keep):
                name = f"expert {labels[c]}"
                networks[name] = self._expert_network(
                    parts["expert_parents"][0, c], c, f"expert for class = {labels[c]}"
                )
                posteriors[name] = {labels[c]: expert[labels[c]]}
            posteriors["experts (IBMC-CL)"] = expert
        return networks, posteriors, details


def cohen_kappa(a: ArrayLike, b: ArrayLike, n_labels: int) -> float:
    """κ agreement of two label-code vectors over ``n_labels`` labels (Sun et al. 2017 Eqs. 25–27):
    :func:`bnclf.evaluation.kappa` on the codes."""
    return kappa(np.asarray(a), np.asarray(b), labels=np.arange(n_labels))


# -- discriminatory target learning ----------------------------------------------------------
_TARGET_SMOOTHING = ("pseudo-instance", "pseudo-instance-as-printed", "m-estimate")
_TARGET_MEASURES = ("weighted", "pointwise")
_TARGET_COMBINE = ("own-label", "posterior-average")
_TARGET_BEFORE_PARAMETERS = {"measures": "pointwise", "combine": "posterior-average"}
"""What TargetKDB did before it had these parameters (bnclf 0.2.0): a pickle or model
file whose state lacks them was fitted with this reading."""


class TargetKDBClassifier(InstanceSpecificClassifier):
    """Discriminatory target learning with KDB (Duan et al. 2019): a micro KDB per test
    instance and label, combined with the regular KDB.

    For a row ``x`` and each label ``y``, ``kdb_y`` ranks the attributes by the
    pointwise y-MI of the row's own values (Eq. 8),
    ``I(x_i; y) = P(x_i, y) log P(x_i, y) / (P(x_i) P(y))``, and gives each up to
    ``k`` earlier-ranked parents with the highest **positive** pointwise y-CMI
    (Eq. 2), ``I(x_i; x_j | y) = P(x_i, x_j, y) log P(x_i, x_j | y) / (P(x_i | y) P(x_j | y))``
    (Algorithm 2; a non-positive value means the two values are y-conditionally
    independent or irrelevant on this point, and no arc is drawn). The probabilities
    inside the measures are the estimates of Eq. 9: the test row added to the training
    counts as one pseudo-instance spread evenly over the ``l`` labels. ``kdb_e``
    normalizes the joint each micro model gives its own label,
    ``P(y_i | x) = P(y_i, x | kdb_i) / sum_j P(y_j, x | kdb_j)`` (Sec. 3), and the
    answer is the mean of ``kdb_e`` and the regular KDB's posterior (the final KDB^e).

    Parameters
    ----------
    k : int, default=2
        Maximum number of feature parents of the regular KDB and of every micro KDB
        (the paper's experiments use k = 2).
    measures : {"weighted", "pointwise"}, default="weighted"
        ``"weighted"``: the paper's measures, the log ratios weighted by the joint
        probability ``P(x_i, y)`` or ``P(x_i, x_j, y)`` (Eqs. 8 and 2).
        ``"pointwise"``: the bare log ratios (bnclf 0.2.0's reading, made when the
        paper's formulas were not available). The weights are positive, so
        the sign test on the y-CMI is the same; the ranking and the choice among
        positive candidates differ.
    combine : {"own-label", "posterior-average"}, default="own-label"
        How the micro KDBs make ``kdb_e``. ``"own-label"``: each ``kdb_y`` scores
        only its own label, ``P(y, x | kdb_y)``, and these joints are normalized over
        the labels (the paper's linear combiner, Sec. 3). ``"posterior-average"``:
        the mean of the micro KDBs' full posteriors over all labels (bnclf 0.2.0's
        reading).
    smoothing : {"pseudo-instance", "pseudo-instance-as-printed", "m-estimate"}, \
default="pseudo-instance"
        The estimates inside the pointwise measures. ``"pseudo-instance"``: Eq. 9
        read as the paper explains it, the test row added to the counts with weight
        ``1/l`` in every class: ``P(y) = (N(y) + 1/l) / (N + 1)``, ``P(x_i, y) =
        (N(x_i, y) + 1/l) / (N + 1)``, ``P(x_i, x_j, y) = (N(x_i, x_j, y) + 1/l) /
        (N + 1)``, ``P(x_i) = (N(x_i) + 1) / (N + 1)``, conditionals as ratios
        (Eq. 10). ``"pseudo-instance-as-printed"``: the same, but ``P(x_i) =
        (N(x_i) + 1/l) / (N + 1)`` as Eq. 9 prints it. ``"m-estimate"``: the
        m-estimates of the CPTs (DESIGN §3; bnclf 0.2.0's default). CPTs are
        m-estimates whatever this is.
    m : float, default=1.0
        m-estimate weight of the CPTs, ``(N(x, pa) + m/r) / (N(pa) + m)``; ``m=0`` is
        maximum likelihood.
    missing : {"category", "ignore", "error"}, default="category"
        A missing training value: a state of its own (``"category"``), left out of the
        tables that hold its column (``"ignore"``, available-case counts), or an error.
        (The paper replaced missing values by the training mode or mean; impute them
        before fitting to do the same.)
    handle_unknown : {"marginalize", "error"}, default="marginalize"
        A value missing or unseen at predict time: summed out exactly
        (``"marginalize"``), or an error.

    Attributes
    ----------
    network_ : Network
        The regular KDB.

    Notes
    -----
    Readings where the paper leaves a choice:

    * **P(x_i) in Eq. 9.** As printed, ``P(x_i)`` gets ``+1/l`` like the joints.
      The paper derives Eq. 9 from one pseudo-instance carrying ``x_i`` with total
      weight 1 (``1/l`` in each of the ``l`` classes), which gives ``+1``, and only
      ``+1`` keeps ``sum_y P(x_i, y) = P(x_i)`` and ``sum_y P(y | x_i) = 1``. The
      printed formula contradicts its own derivation, so the default follows the
      derivation; ``"pseudo-instance-as-printed"`` keeps the formula. The two differ
      by ``log((N(x_i) + 1) / (N(x_i) + 1/l))``, the same for every label, so only
      the ranking inside a micro model changes.
    * **Algorithm 2** as printed tests the argmax index (``m > 0``) and never removes
      a chosen parent from the candidates; it is read as "up to k earlier attributes
      by decreasing y-CMI, only those with a positive y-CMI".
    * **Weighted measures with m-estimates**: the log ratio is the pointwise one and
      the weight is its joint, ``P(x_i, y)`` for the y-MI and ``P(x_i, x_j | y) P(y)``
      for the y-CMI. A zero joint (only with ``m = 0``) gives 0 (``0 log 0 = 0``).
    * **Ties**: lower attribute index first in a ranking, the earlier-ranked
      attribute first among parents. Measures are compared after rounding (weighted
      ones scaled by ``N + 1`` first, which changes no order).
    * **Unknown values**: a value unknown at predict time leaves its attribute out
      of every micro model of the row (a class-only leaf, summed out); the regular
      KDB sums it out exactly.

    Eq. 9 is used inside the measures only; the paper does not say how the CPTs are
    smoothed, and they are the m-estimates of every bnclf learner.
    ``explain(row).posteriors`` gives each micro KDB's own posterior over all labels
    (what its network answers) and ``kdb_e``.

    A model saved by bnclf 0.2.0 (a pickle or model file without ``measures`` and
    ``combine``) loads with ``measures="pointwise"`` and
    ``combine="posterior-average"``, the reading it was fitted with; its ``smoothing``
    is stored. ``TargetKDBClassifier(measures="pointwise",
    combine="posterior-average", smoothing="m-estimate")`` is that version's default.

    References
    ----------
    Duan, Wang, Mammadov, Lou & Sun (2019), Discriminatory target learning: mining
    significant dependence relationships from labeled and unlabeled data, Entropy 21(5),
    537, doi:10.3390/e21050537.
    """

    short_names = {"targetkdb": {}}

    def __init__(
        self,
        *,
        k: int = 2,
        measures: str = "weighted",
        combine: str = "own-label",
        smoothing: str = "pseudo-instance",
        m: float = 1.0,
        missing: str = "category",
        handle_unknown: str = "marginalize",
    ) -> None:
        super().__init__(m=m, missing=missing, handle_unknown=handle_unknown)
        self.k = k
        self.measures = measures
        self.combine = combine
        self.smoothing = smoothing

    _parameters = {
        "k": Integer(0, "the number of feature parents of each attribute in a micro KDB", "2 is the default"),
        "measures": Options(_TARGET_MEASURES, "the pointwise measures: weighted by their joint, or bare log ratios"),
        "combine": Options(_TARGET_COMBINE, "how the micro KDBs make kdb_e"),
        "smoothing": Options(_TARGET_SMOOTHING, "the estimator of the probabilities inside the pointwise measures"),
    }

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        for name, value in _TARGET_BEFORE_PARAMETERS.items():
            state.setdefault(name, value)
        super().__setstate__(state)

    def _cells_per_row(self):
        # one d x d pointwise y-CMI matrix per label, and the (d x d x l) gather behind it
        return 2 * self.n_features_in_**2 * len(self.classes_)

    def _fit_local(self, data, cache):
        graph = learn_kdb(cache, k=int(self.k))
        self.network_ = self._make_network(graph_families(graph, cache.class_index), cache, title=f"KDB (k={self.k})")
        self._ymi, self._ycmi = self._target_measures(cache)

    def _target_measures(self, cache):
        """The pointwise y-MI (R, l) and y-CMI (R, R, l) tables, ready to compare."""
        tables = self._tables
        if self.smoothing == "m-estimate":
            ymi = tables.pointwise_class_mi(self.m)
            ycmi = tables.conditional_pointwise_mi(self.m)
        else:
            ymi, ycmi = tables.pseudo_instance_measures(as_printed=self.smoothing == "pseudo-instance-as-printed")
        if self.measures == "weighted":
            # scaled by N + 1 (no order changes) so that rounding acts at the scale of counts
            scale = float(cache.class_counts.sum()) + 1.0
            w_mi, w_cmi = tables.target_weights(self.smoothing, self.m)
            with np.errstate(invalid="ignore"):
                ymi = np.where(w_mi > 0, (scale * w_mi) * ymi, 0.0)
                ycmi = np.where(w_cmi > 0, (scale * w_cmi) * ycmi, 0.0)
        return comparable(ymi), comparable(ycmi)

    def _chunk(self, codes):
        n, d, l = len(codes), self.n_features_in_, len(self.classes_)
        idx, known = self._tables.flat_index(codes)
        rank = np.moveaxis(self._ymi[idx], 2, 1).reshape(n * l, d)
        pair = np.moveaxis(self._ycmi[idx[:, :, None], idx[:, None, :]], 3, 1).reshape(n * l, d, d)
        known_rep = np.repeat(known, l, axis=0)
        parents = local_kdb_parents(rank, pair, known_rep, int(self.k), positive_only=True)
        parents = parents.reshape(n, l, d, -1)
        joint = self._local.joint_log(codes, parents)  # (n, l micro models, l labels)
        micro = np.exp(log_posterior(joint))
        if self.combine == "own-label":
            kdb_e = np.exp(log_posterior(joint[:, np.arange(l), np.arange(l)]))
        else:
            kdb_e = micro.mean(axis=1)
        kdb = np.exp(log_posterior(self.network_.joint_log_likelihood(codes)))
        return {
            "proba": (kdb_e + kdb) / 2,
            "parents": parents,
            "micro_proba": micro,
            "kdb_e_proba": kdb_e,
            "kdb_proba": kdb,
        }

    def _explain_parts(self, codes, parts):
        labels = self._labels()
        networks = {"KDB": self.network_}
        posteriors = {"KDB": self._posterior_dict(parts["kdb_proba"][0])}
        for y, lab in enumerate(labels):
            name = f"kdb_{lab}"
            networks[name] = self._row_network(parts["parents"][0, y], codes[0], f"micro KDB for label {lab}")
            posteriors[name] = self._posterior_dict(parts["micro_proba"][0, y])
        posteriors["kdb_e"] = self._posterior_dict(parts["kdb_e_proba"][0])
        return networks, posteriors, {"combine": self.combine}
