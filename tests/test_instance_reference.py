"""Instance-specific learners (LKDB, AKDB, LTAN, TargetKDB) against a plain reference.

The reference (``tests/instance_reference.py``) builds one test row's structures
with Python loops and boolean masks; here the batched estimators of ``bnclf`` must
give the same structures exactly and the same posteriors to 1e-12 on three real
data sets (iris, soybean, glass), including rows with missing and unseen values.
A hand-worked example (in the spirit of Sun et al. 2017, Table 8) checks the reference
itself with exact fractions, and sanity tests tie it to the oracle-tested NB, TAN
and KDB estimators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction as F
from functools import lru_cache
from pathlib import Path

import instance_reference as ref
import numpy as np
import pytest

from bnclf import (
    AKDBClassifier,
    KDBClassifier,
    LKDBClassifier,
    LTANClassifier,
    MDLDiscretizer,
    NaiveBayesClassifier,
    TANClassifier,
    TargetKDBClassifier,
)
from bnclf.datasets import load_dataset
from bnclf.io._arff import load_arff_xy

DATA = Path(__file__).parent / "data"
M = 1.0
ATOL = 1e-12
UNSEEN = 12345.0  # a raw value never seen in training
ROW_CAP = {"iris": 60, "glass": 60, "soybean": 20}


# ------------------------------------------------------------------------------------ data sets


@dataclass
class Case:
    """One data set coded for the reference and for the library.

    ``X``/``y`` training codes, ``r``/``l`` cardinalities and class count,
    ``Xq`` the compared test rows as codes (-1 unknown), ``lib_q`` the same rows as
    the library gets them (floats, NaN or an unseen value where unknown), ``yq``
    their true class codes.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    r: np.ndarray
    l: int
    Xq: np.ndarray
    lib_q: np.ndarray
    yq: np.ndarray
    mi_terms: dict
    class_mi: list


def _stratified_split(y_codes, seed, train_fraction=0.7):
    rng = np.random.default_rng(seed)
    train, test = [], []
    for c in np.unique(y_codes):
        rows = rng.permutation(np.flatnonzero(y_codes == c))
        cut = max(1, int(round(train_fraction * len(rows))))
        train.extend(rows[:cut])
        test.extend(rows[cut:])
    return np.sort(train), rng.permutation(test)


def _raw_tables(name, seed):
    """Raw feature values (floats, no missing in training) of a train/test split, and labels."""
    if name == "soybean":
        X, y = load_dataset("soybean")
        # a missing training value is a category of its own (the library's default):
        # give it the value 999 before coding
        raw = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns]).astype(float)
        raw[raw < 0] = 999.0
        labels = np.asarray(y.astype(str))
        train, test = _stratified_split(np.unique(labels, return_inverse=True)[1], seed)
        return raw[train], raw[test], labels[train], labels[test]
    X, y = load_arff_xy(DATA / f"{name}.arff")
    labels = np.asarray(y.astype(str))
    train, test = _stratified_split(np.unique(labels, return_inverse=True)[1], seed)
    disc = MDLDiscretizer().fit(X.iloc[train], labels[train])
    binned_train = disc.transform(X.iloc[train])
    binned_test = disc.transform(X.iloc[test])
    raw_train = np.column_stack([binned_train[c].cat.codes.to_numpy() for c in X.columns])
    raw_test = np.column_stack([binned_test[c].cat.codes.to_numpy() for c in X.columns])
    return raw_train.astype(float), raw_test.astype(float), labels[train], labels[test]


@lru_cache(maxsize=None)
def load_case(name) -> Case:
    raw_train, raw_test, y_train, y_test = _raw_tables(name, seed=2017)
    rng = np.random.default_rng(7)
    n_rows = min(ROW_CAP[name], len(raw_test))
    raw_q = raw_test[:n_rows].copy()
    d = raw_q.shape[1]
    # inject unknowns: every third row loses 1-3 attributes (NaN); row 2 gets an unseen value
    for q in range(1, n_rows, 3):
        hide = rng.choice(d, size=min(d - 1, int(rng.integers(1, 4))), replace=False)
        raw_q[q, hide] = np.nan
    unseen_at = (2, int(rng.integers(d)))
    raw_q[unseen_at] = UNSEEN
    if name == "iris":  # one row with every attribute unknown (the joint is the prior)
        raw_q[4, :] = np.nan
    X, Xq, r = ref.encode(raw_train, raw_q)
    classes = np.unique(y_train)
    y = np.searchsorted(classes, y_train)
    yq = np.searchsorted(classes, y_test[:n_rows])
    assert np.all(classes[yq] == y_test[:n_rows])
    lib_q = np.where(Xq == ref.UNKNOWN, np.nan, Xq).astype(float)
    lib_q[unseen_at] = UNSEEN
    l = len(classes)
    return Case(
        name, X, y, r, l, Xq, lib_q, yq, ref.label_mi_terms(X, y, r, l), ref.mutual_information_with_class(X, y, r, l)
    )


CASES = ["iris", "soybean", "glass"]


def _row_msg(case, q, what):
    return f"{case.name} row {q} (codes {case.Xq[q].tolist()}): {what}"


def _assert_proba(case, q, ours, expected, what):
    np.testing.assert_allclose(ours, expected, rtol=0, atol=ATOL, err_msg=_row_msg(case, q, what))


def _assert_same(case, q, ours, expected, what):
    np.testing.assert_array_equal(ours, expected, err_msg=_row_msg(case, q, what))


class Mismatches:
    """Collects every row's differences so one failure lists them all."""

    def __init__(self, case):
        self.case, self.items = case, []

    def same(self, q, ours, expected, what):
        ours, expected = np.asarray(ours), np.asarray(expected)
        if ours.shape != expected.shape or not np.array_equal(ours, expected):
            same_shape = ours.shape == expected.shape
            where = np.argwhere(ours != expected).tolist() if same_shape else "shape"
            self.items.append(
                f"row {q}: {what} differ at {where}:\n  library   {ours.tolist()}\n  reference {expected.tolist()}"
            )

    def close(self, q, ours, expected, what):
        gap = np.max(np.abs(np.asarray(ours, dtype=float) - np.asarray(expected, dtype=float)))
        if not gap <= ATOL:
            self.items.append(
                f"row {q}: {what} differ by {gap:.3g}:\n"
                f"  library   {np.round(ours, 6).tolist()}\n"
                f"  reference {np.round(expected, 6).tolist()}"
            )

    def check(self):
        if self.items:
            rows = len({item.split(":")[0] for item in self.items})
            pytest.fail(
                f"{self.case.name}: {len(self.items)} differences in {rows} of "
                f"{len(self.case.Xq)} rows\n" + "\n".join(self.items[:25]),
                pytrace=False,
            )


def _tan_feature_parents(model, d):
    """Feature parents (d,) of a fitted TAN from its dag_ (-1 for the root)."""
    names = model.node_names_[:d]
    parents = np.full(d, -1)
    for i, name in enumerate(names):
        ps = [names.index(p) for p in model.dag_.predecessors(name) if p in names]
        assert len(ps) <= 1
        if ps:
            parents[i] = ps[0]
    return parents


def _kdb_feature_parents(model, d, k):
    names = model.node_names_[:d]
    out = []
    for name in names:
        feature_parents = [names.index(p) for p in model.dag_.predecessors(name) if p in names]
        out.append(ref.padded(feature_parents, k))
    return np.array(out, dtype=np.int64).reshape(d, k)


# -------------------------------------------------------------- the data sets are what we think


@pytest.mark.parametrize("name", CASES)
def test_cases_have_known_and_unknown_rows(name):
    case = load_case(name)
    assert case.X.min() == 0 and np.all(case.X.max(axis=0) == case.r - 1)
    assert np.array_equal(np.unique(case.y), np.arange(case.l))
    unknown_rows = (case.Xq == ref.UNKNOWN).any(axis=1)
    assert 0 < unknown_rows.sum() < len(case.Xq)
    assert case.lib_q[2].tolist().count(UNSEEN) == 1


# ----------------------------------------------------------- sanity of the reference (runs now)


def test_encode_maps_sorted_training_values_and_unknowns():
    train = np.array([[3.0, 10.0], [1.0, 10.0], [3.0, 20.0]])
    test = np.array([[1.0, 20.0], [2.0, np.nan], [3.0, 30.0]])
    X, Xq, r = ref.encode(train, test)
    np.testing.assert_array_equal(X, [[1, 0], [0, 0], [1, 1]])
    np.testing.assert_array_equal(Xq, [[0, 1], [-1, -1], [1, -1]])
    np.testing.assert_array_equal(r, [2, 2])


def test_prim_ties_and_strict_updates():
    w = [[0, 2, 2, 0], [2, 0, 0, 2], [2, 0, 0, 5], [0, 2, 5, 0]]
    # from 0: best = (., 2, 2, 0); tie between 1 and 2 -> 1 (lower index); then
    # w[1][3] = 2 > 0 -> 3 from 1; then 2 (best 2); w[2][3] = 5 > 2 -> 3 from 2
    assert ref.prim_tree([0, 1, 2, 3], w, 0) == {0: -1, 1: 0, 2: 0, 3: 2}
    # strictness: an equal weight does not move a node to a later tree node
    w = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    assert ref.prim_tree([0, 1, 2], w, 0) == {0: -1, 1: 0, 2: 0}
    # every node is connected, even by negative weights; only the listed nodes are used
    w = np.full((5, 5), -3.0)
    assert ref.prim_tree([1, 3, 4], w, 3) == {3: -1, 1: 3, 4: 3}


def test_rank_and_parent_tie_rules():
    assert ref.rank_attributes([0, 1, 2, 3], {0: 0.5, 1: 0.7, 2: 0.5, 3: 0.7}) == [1, 3, 0, 2]
    # candidates in rank order [3, 0, 2]; 0 and 2 tie: the earlier-ranked (0) first
    assert ref.choose_parents([3, 0, 2], {3: 0.1, 0: 0.4, 2: 0.4}, 2) == [0, 2]
    assert ref.choose_parents([3, 0, 2], {3: 0.1, 0: 0.4, 2: 0.4}, 1) == [0]
    assert ref.padded([4, 1], 3) == [1, 4, -1]


def test_kappa_of_eqs_25_to_27():
    # D = [[2, 1], [0, 1]], M = 4: Θ1 = 3/4, Θ2 = (3/4)(2/4) + (1/4)(2/4) = 1/2, κ = 1/2
    assert ref.cohen_kappa([0, 0, 0, 1], [0, 0, 1, 1], 2) == pytest.approx(0.5, abs=1e-15)
    assert ref.cohen_kappa([1, 1], [1, 1], 3) == 1.0
    assert math.isnan(ref.cohen_kappa([], [], 3))


def test_logof_compares_the_rationals_exactly():
    a = ref.LogOf(2**200 * 3, 2**200 * 7)  # 3/7, unreduced
    assert a == ref.LogOf(3, 7) and not a < ref.LogOf(3, 7) and not a > ref.LogOf(3, 7)
    big = 10**40
    assert ref.LogOf(big + 1, big) > ref.LogOf(big, big)  # 1e-40 apart: decided exactly
    assert ref.LogOf(big, big) == ref.ZERO
    assert ref.LogOf(1, 2) < ref.ZERO < ref.LogOf(3, 2)
    assert ref.product([ref.LogOf(3, 2), ref.LogOf(2, 3)]) == ref.ZERO
    assert ref.log_of_powers([(3, 2, 2), (4, 9, 1)]) == ref.ZERO  # (3/2)^2 * 4/9 = 1
    assert ref.LogOf(8, 1).bits() == 3.0 and ref.LogOf(8, 1).bits(3) == 1.0


def test_exact_measures_equal_the_textbook_formulas():
    """The log-of-a-product forms equal the float formulas of the conventions."""
    case = load_case("glass")
    X, y, r, l = case.X, case.y, case.r, case.l
    n = len(y)
    p_c = np.bincount(y, minlength=l) / n
    for i in range(X.shape[1]):  # I(X_i; C)
        p_ac = np.array([[np.sum((X[:, i] == a) & (y == c)) / n for c in range(l)] for a in range(r[i])])
        p_a = p_ac.sum(axis=1)
        expected = sum(
            p_ac[a, c] * math.log2(p_ac[a, c] / (p_a[a] * p_c[c]))
            for a in range(r[i])
            for c in range(l)
            if p_ac[a, c] > 0
        )
        assert case.class_mi[i].bits(n) == pytest.approx(expected, abs=1e-12)
    for c in range(l):  # p(c) I(X_i; X_j | c)
        Xc = X[y == c]
        for i, j in [(1, 3), (3, 6), (5, 7)]:
            joint = np.array([[np.mean((Xc[:, i] == a) & (Xc[:, j] == b)) for b in range(r[j])] for a in range(r[i])])
            pa, pb = joint.sum(axis=1), joint.sum(axis=0)
            mi = sum(
                joint[a, b] * math.log2(joint[a, b] / (pa[a] * pb[b]))
                for a in range(r[i])
                for b in range(r[j])
                if joint[a, b] > 0
            )
            assert case.mi_terms[c, i, j].bits(n) == pytest.approx(p_c[c] * mi, abs=1e-12)
    x = case.Xq[0]
    cnt = ref.RowCounts(X, y, l, x)
    eq = {i: X[:, i] == x[i] for i in range(len(x))}
    for i in cnt.known:
        p_ic = np.array([np.sum(eq[i] & (y == c)) / n for c in range(l)])
        lmi = sum(p_ic[c] * math.log2(p_ic[c] / (p_ic.sum() * p_c[c])) for c in range(l) if p_ic[c])
        assert ref.local_mi(cnt, i).bits(n) == pytest.approx(lmi, abs=1e-12)
        for label in range(l):  # pointwise y-MI, both smoothings
            n_iy, n_i, n_y = np.sum(eq[i] & (y == label)), np.sum(eq[i]), np.sum(y == label)
            p_xy = (n_iy + M / (r[i] * l)) / (n + M)
            p_x = sum((np.sum(eq[i] & (y == c)) + M / (r[i] * l)) / (n + M) for c in range(l))
            p_y = sum((np.sum((X[:, i] == a) & (y == label)) + M / (r[i] * l)) / (n + M) for a in range(r[i]))
            assert ref.pointwise_y_mi(cnt, r, l, i, label, M).bits() == pytest.approx(
                math.log2(p_xy / (p_x * p_y)), abs=1e-12
            )
            pseudo = ((n_iy + 1 / l) / (n + 1)) / (((n_i + 1) / (n + 1)) * ((n_y + 1 / l) / (n + 1)))
            assert ref.pointwise_y_mi(cnt, r, l, i, label, M, "pseudo-instance").bits() == (
                pytest.approx(math.log2(pseudo), abs=1e-12)
            )
    for i in cnt.known:
        for j in cnt.known:
            if i >= j:
                continue
            n_ijc = np.array([np.sum(eq[i] & eq[j] & (y == c)) for c in range(l)])
            n_cls = np.bincount(y, minlength=l)
            p_i_c = [np.sum(eq[i] & (y == c)) / n_cls[c] for c in range(l)]
            p_j_c = [np.sum(eq[j] & (y == c)) / n_cls[c] for c in range(l)]
            clmi = sum(
                n_ijc[c] / n * math.log2((n_ijc[c] / n_cls[c]) / (p_i_c[c] * p_j_c[c])) for c in range(l) if n_ijc[c]
            )
            assert ref.conditional_local_mi(cnt, i, j).bits(n) == pytest.approx(clmi, abs=1e-12)
            for c in range(l):  # CPMI with P(x_i|c) and P(x_j|c) as sums of the joint
                n_c = np.sum(y == c)

                def p_joint(a, b):
                    return (np.sum((X[:, i] == a) & (X[:, j] == b) & (y == c)) + M / (r[i] * r[j])) / (n_c + M)

                p_i = sum(p_joint(x[i], b) for b in range(r[j]))
                p_j = sum(p_joint(a, x[j]) for a in range(r[i]))
                assert ref.cpmi(cnt, r, i, j, c, M).bits() == pytest.approx(
                    math.log2(p_joint(x[i], x[j]) / (p_i * p_j)), abs=1e-12
                )
                n_iy, n_jy = np.sum(eq[i] & (y == c)), np.sum(eq[j] & (y == c))
                pseudo = ((n_ijc[c] + 1 / l) / (n_c + 1 / l)) / (
                    (n_iy + 1 / l) / (n_c + 1 / l) * (n_jy + 1 / l) / (n_c + 1 / l)
                )
                assert ref.pointwise_y_cmi(cnt, r, l, i, j, c, M, "pseudo-instance").bits() == (
                    pytest.approx(math.log2(pseudo), abs=1e-12)
                )


@pytest.mark.parametrize("name", CASES)
def test_reference_lkdb_with_k0_is_naive_bayes(name):
    case = load_case(name)
    nb = NaiveBayesClassifier(m=M).fit(case.X, case.y).predict_proba(case.lib_q)
    for q, x in enumerate(case.Xq):
        parents, proba = ref.lkdb_reference(case.X, case.y, case.r, case.l, x, 0, M)
        assert parents.shape == (len(x), 0)
        _assert_proba(case, q, proba, nb[q], "LKDB(k=0) vs NaiveBayesClassifier")


@pytest.mark.parametrize("name", CASES)
def test_reference_joint_with_kdb_structure_is_kdb(name):
    case = load_case(name)
    d = case.X.shape[1]
    model = KDBClassifier(k=2, m=M).fit(case.X, case.y)
    parents = _kdb_feature_parents(model, d, 2)
    proba = model.predict_proba(case.lib_q)
    complete = ~(case.Xq == ref.UNKNOWN).any(axis=1)
    for q in np.flatnonzero(complete):
        joint = ref.joint_log(case.X, case.y, case.r, case.l, case.Xq[q], parents, M)
        ours = ref.normalize_log(joint)
        _assert_proba(case, q, ours, proba[q], "joint_log with KDB(k=2)'s parents vs KDBClassifier")


@pytest.mark.parametrize("name", CASES)
def test_reference_tan_ie_with_every_label_is_tan(name):
    """With Ω' = all labels, R_ij = I(Xi; Xj | C): TAN-IE is TAN (same tree, same posterior)."""
    case = load_case(name)
    d = case.X.shape[1]
    tan = TANClassifier(m=M).fit(case.X, case.y)
    tan_parents = _tan_feature_parents(tan, d)
    tan_proba = tan.predict_proba(case.lib_q)
    complete = np.flatnonzero(~(case.Xq == ref.UNKNOWN).any(axis=1))
    assert len(complete) > 10
    # with every attribute known and Ω' = all labels the tree does not depend on the row
    every_label = np.ones(case.l, dtype=bool)
    # soybean has I(X25; X2 | C) = 0 exactly (computed as 2e-18) and glass three constant
    # attributes: TANClassifier compares weights after rounding, so exact ties go by index
    tree = ref.refined_tree(case.Xq[complete[0]], every_label, case.mi_terms, case.class_mi)
    np.testing.assert_array_equal(tree, tan_parents, err_msg=f"{name}: TAN-IE vs TAN")
    uniform = np.full(case.l, 1 / case.l)  # a stated generalist keeping every label in Ω'
    for q in complete[:12]:
        out = ref.ltan_reference(
            case.X, case.y, case.r, case.l, case.Xq[q], uniform, 0.1, M, case.mi_terms, case.class_mi
        )
        assert out["omega"].all() and out["reconsidered"]
        _assert_same(case, q, out["refined_parents"], tan_parents, "TAN-IE tree vs TAN dag_")
        _assert_proba(case, q, out["refined_proba"], tan_proba[q], "TAN-IE vs TAN posterior")


@pytest.mark.parametrize("name", CASES)
def test_reference_ltan_final_posterior_is_a_distribution(name):
    case = load_case(name)
    pg = TANClassifier(m=M).fit(case.X, case.y).predict_proba(case.lib_q)
    for q, x in enumerate(case.Xq):
        out = ref.ltan_reference(case.X, case.y, case.r, case.l, x, pg[q], 0.5, M, case.mi_terms, case.class_mi)
        assert out["proba"].sum() == pytest.approx(1.0, abs=1e-12)
        if not out["reconsidered"]:
            assert out["omega"].sum() == 1 and np.array_equal(out["proba"], pg[q])
            continue
        for key in ("refined_proba", "expert_proba"):
            assert out[key].sum() == pytest.approx(1.0, abs=1e-12)
            assert np.all((out[key] > 0) == out["omega"])
        outside = ~out["omega"]
        np.testing.assert_array_equal(out["proba"][outside], pg[q][outside])
        # unknown attributes are in no tree
        unknown = x == ref.UNKNOWN
        assert np.all(out["refined_parents"][unknown] == -1)
        assert not np.isin(np.flatnonzero(unknown), out["expert_parents"]).any()


@pytest.mark.parametrize("combine", ["own-label", "posterior-average"])
@pytest.mark.parametrize("name", CASES)
def test_reference_target_kdb_with_k0_averages_naive_bayes_and_kdb(name, combine):
    """With k = 0 every micro model is naive Bayes, so kdb_e is NB's posterior whichever
    way the micro models are combined."""
    case = load_case(name)
    nb = NaiveBayesClassifier(m=M).fit(case.X, case.y).predict_proba(case.lib_q)
    kdb = KDBClassifier(k=1, m=M).fit(case.X, case.y).predict_proba(case.lib_q)
    for q in range(0, len(case.Xq), 5):
        parents, micro, kdb_e, proba = ref.target_kdb_reference(
            case.X, case.y, case.r, case.l, case.Xq[q], 0, kdb[q], M, combine=combine
        )
        _assert_proba(case, q, micro, np.tile(nb[q], (case.l, 1)), "micro models with k=0")
        _assert_proba(case, q, kdb_e, nb[q], "kdb_e with k=0")
        _assert_proba(case, q, proba, (nb[q] + kdb[q]) / 2, "final with k=0")


# ------------------------------------------------------------------------ a hand-worked example


# 3 binary attributes, 3 classes, 4 rows each (so P(c) = (4 + 1/3)/(12 + 1) = 1/3 for all)
HAND_X = np.array(
    [
        [1, 0, 1],
        [1, 1, 1],
        [0, 1, 0],
        [1, 0, 0],  # class 0
        [1, 0, 0],
        [0, 0, 1],
        [1, 0, 1],
        [0, 1, 0],  # class 1
        [0, 1, 0],
        [0, 1, 1],
        [0, 0, 1],
        [0, 1, 0],  # class 2
    ]
)
HAND_Y = np.repeat([0, 1, 2], 4)
HAND_R = np.array([2, 2, 2])
HAND_ROW = np.array([1, 0, 0])
HAND_PG = np.array([0.56, 0.40, 0.04])  # a stated generalist posterior


def _mi_bits(table):
    """MI in bits of a contingency table given as nested lists of counts (hand helper)."""
    n = sum(map(sum, table))
    rows = [sum(t) for t in table]
    cols = [sum(t[b] for t in table) for b in range(len(table[0]))]
    return sum(
        t / n * math.log2(t * n / (rows[a] * cols[b])) for a, row in enumerate(table) for b, t in enumerate(row) if t
    )


def _hand_worked():
    """Everything the LTAN reference should give on HAND_ROW, worked out by hand."""
    hand = {}
    # Ω' (δ = 0.1): P_G(c)/P_G(ĉ) = 0.56/0.56 = 1, 0.40/0.56 = 0.714, 0.04/0.56 = 0.071 < 0.1
    hand["omega"] = np.array([True, True, False])

    # Root: I(X; C) from the tables N(X_i = a, c) (rows a = 0, 1; columns c = 0, 1, 2).
    #   X0: a=0 -> (1, 2, 4), a=1 -> (3, 2, 0);  X1: (2, 3, 1), (2, 1, 3);  X2: (2, 2, 2) twice.
    # I(X2; C) = 0 (X2 is independent of C); I(X0; C) = 1.585 - 1.209 = 0.376 bits >
    # I(X1; C) = 1.585 - 1.459 = 0.126 bits, so the root is X0.
    mi = [_mi_bits([[1, 2, 4], [3, 2, 0]]), _mi_bits([[2, 3, 1], [2, 1, 3]]), _mi_bits([[2, 2, 2], [2, 2, 2]])]
    assert mi[0] > mi[1] > mi[2] == 0.0
    hand["class_mi"] = mi

    # Experts: CPMI ratio for binary attributes, m = 1, N_c = 4:
    #   P(x_i,x_j|c)/(P(x_i|c)P(x_j|c)) = (4 N_ijc + 1)(N_c + 1) / ((2 N_ic + 1)(2 N_jc + 1))
    # x = (1, 0, 0).
    # class 0 rows (1,0,1) (1,1,1) (0,1,0) (1,0,0): N(x0=1)=3, N(x1=0)=2, N(x2=0)=2,
    #   N(x0=1,x1=0)=2, N(x0=1,x2=0)=1, N(x1=0,x2=0)=1
    #   w01 = 9*5/(7*5) = 9/7, w02 = 5*5/(7*5) = 5/7, w12 = 5*5/(5*5) = 1
    # class 1 rows (1,0,0) (0,0,1) (1,0,1) (0,1,0): N(x0=1)=2, N(x1=0)=3, N(x2=0)=2,
    #   N(x0=1,x1=0)=2, N(x0=1,x2=0)=1, N(x1=0,x2=0)=1
    #   w01 = 9*5/(5*7) = 9/7, w02 = 5*5/(5*5) = 1, w12 = 5*5/(7*5) = 5/7
    hand["cpmi_ratio"] = {
        0: {(0, 1): F(9, 7), (0, 2): F(5, 7), (1, 2): F(1)},
        1: {(0, 1): F(9, 7), (0, 2): F(1), (1, 2): F(5, 7)},
    }
    # Prim from X0.
    # Expert 0: best = {1: log2 9/7 > 0, 2: log2 5/7 < 0} -> X1 from X0; w12 = 0 > log2 5/7,
    #   so X2 from X1: the chain X0 -> X1 -> X2.
    # Expert 1: best = {1: log2 9/7, 2: 0} -> X1 from X0; w12 = log2 5/7 < 0: X2 stays
    #   from X0: the star X0 -> X1, X0 -> X2.
    hand["expert_parents"] = np.array([[-1, 0, 1], [-1, 0, 0], [-1, -1, -1]])
    # Expert scores s_c = P(c) P(x0|c) P(x1|x_pa,c) P(x2|x_pa,c), with
    # P(x|pa,c) = (N(x,pa,c) + 1/2)/(N(pa,c) + 1):
    #   s_0 = 1/3 * (3+1/2)/5 * (2+1/2)/(3+1) * (1+1/2)/(2+1) = 1/3 * 7/10 * 5/8 * 1/2 = 7/96
    #   s_1 = 1/3 * (2+1/2)/5 * (2+1/2)/(2+1) * (1+1/2)/(2+1) = 1/3 * 1/2 * 5/6 * 1/2 = 5/72
    s0 = F(1, 3) * F(7, 10) * F(5, 8) * F(1, 2)
    s1 = F(1, 3) * F(1, 2) * F(5, 6) * F(1, 2)
    assert (s0, s1) == (F(7, 96), F(5, 72))
    # P_E = (7/96, 5/72) / (7/96 + 5/72) = (21/288, 20/288) / (41/288) = (21/41, 20/41)
    hand["expert_proba"] = [F(21, 41), F(20, 41), F(0)]

    # TAN-IE: R_ij = p(0) I(Xi;Xj|0) + p(1) I(Xi;Xj|1), p(0) = p(1) = 1/3. Tables
    # (rows = value of the first attribute):
    #   class 0: X0X1 [[0,1],[2,1]], X0X2 [[1,0],[1,2]], X1X2 [[1,1],[1,1]] (independent)
    #   class 1: X0X1 [[1,1],[2,0]], X0X2 [[1,1],[1,1]] (independent), X1X2 [[1,2],[1,0]]
    # All four non-independent tables have one empty cell and margins {1,3} x {2,2}, so
    # they share one MI value v > 0: R01 = 2v/3, R02 = v/3, R12 = v/3.
    v = _mi_bits([[0, 1], [2, 1]])
    for table in ([[1, 0], [1, 2]], [[1, 1], [2, 0]], [[1, 2], [1, 0]]):
        assert _mi_bits(table) == pytest.approx(v, abs=1e-15)
    assert _mi_bits([[1, 1], [1, 1]]) == 0.0
    # Prim from X0: best = {1: 2v/3, 2: v/3} -> X1 from X0; R12 = v/3 is not > v/3 (a tie,
    # the update is strict), so X2 stays from X0: the star X0 -> X1, X0 -> X2.
    hand["refined_parents"] = np.array([-1, 0, 0])
    # TAN-IE scores with that star: P(c) P(x0|c) P(x1|x0,c) P(x2|x0,c)
    #   c=0: 1/3 * 7/10 * (2+1/2)/(3+1) * (1+1/2)/(3+1) = 1/3 * 7/10 * 5/8 * 3/8 = 7/128
    #   c=1: 1/3 * 1/2  * (2+1/2)/(2+1) * (1+1/2)/(2+1) = 1/3 * 1/2 * 5/6 * 1/2 = 5/72
    t0 = F(1, 3) * F(7, 10) * F(5, 8) * F(3, 8)
    t1 = F(1, 3) * F(1, 2) * F(5, 6) * F(1, 2)
    # P_RG = (7/128, 5/72) / (7/128 + 5/72) = (63/1152, 80/1152) / (143/1152)
    hand["refined_proba"] = [t0 / (t0 + t1), t1 / (t0 + t1), F(0)]
    assert hand["refined_proba"][:2] == [F(63, 143), F(80, 143)]
    # Final: P_G(Ω') = 0.96 shared by (P_RG + P_E)/2; P(c2) = 0.04 kept.
    #   c0: 0.96 * (63/143 + 21/41)/2 = 0.457..., c1: 0.96 * (80/143 + 20/41)/2 = 0.502...
    # The experts prefer c0 (as TAN does), TAN-IE prefers c1 and wins the average:
    # LTAN changes TAN's answer, as in Sun et al. (2017) Table 8.
    hand["proba"] = [F(96, 100) * (hand["refined_proba"][c] + hand["expert_proba"][c]) / 2 for c in (0, 1)] + [
        F(4, 100)
    ]
    assert hand["proba"][1] > hand["proba"][0]
    return hand


def test_hand_worked_ltan_example_matches_the_reference():
    hand = _hand_worked()
    X, y, r, x = HAND_X, HAND_Y, HAND_R, HAND_ROW
    class_mi = ref.mutual_information_with_class(X, y, r, 3)
    np.testing.assert_allclose([v.bits(len(y)) for v in class_mi], hand["class_mi"], rtol=0, atol=1e-14)
    cnt = ref.RowCounts(X, y, 3, x)
    for c, ratios in hand["cpmi_ratio"].items():
        for (i, j), ratio in ratios.items():
            exact = ref.LogOf(ratio.numerator, ratio.denominator)
            assert ref.cpmi(cnt, r, i, j, c) == exact
            assert ref.cpmi(cnt, r, i, j, c).bits() == pytest.approx(math.log2(ratio), abs=1e-15)
            assert ref.cpmi(cnt, r, j, i, c) == ref.cpmi(cnt, r, i, j, c)
    # the exact tie of the refined tree: R02 == R12
    terms = ref.label_mi_terms(X, y, r, 3)
    assert terms[0, 0, 2] * terms[1, 0, 2] == terms[0, 1, 2] * terms[1, 1, 2]
    out = ref.ltan_reference(X, y, r, 3, x, HAND_PG, delta=0.1, m=1.0)
    np.testing.assert_array_equal(out["omega"], hand["omega"])
    assert out["reconsidered"]
    np.testing.assert_array_equal(out["expert_parents"], hand["expert_parents"])
    np.testing.assert_array_equal(out["refined_parents"], hand["refined_parents"])
    for key in ("expert_proba", "refined_proba", "proba"):
        np.testing.assert_allclose(out[key], [float(v) for v in hand[key]], rtol=0, atol=1e-15, err_msg=key)


def test_hand_worked_generalist_keeps_the_same_labels():
    """The real TAN generalist on the hand data also keeps Ω' = {c0, c1} at δ = 0.1."""
    pg = TANClassifier(m=1.0).fit(HAND_X, HAND_Y).predict_proba(HAND_ROW[None].astype(float))[0]
    c_hat = int(np.argmax(pg))
    np.testing.assert_array_equal(pg / pg[c_hat] >= 0.1, [True, True, False])


def test_hand_worked_example_in_the_library():
    hand = _hand_worked()
    model = LTANClassifier(delta=0.1, m=1.0).fit(HAND_X, HAND_Y)
    row = HAND_ROW[None].astype(float)
    pg = TANClassifier(m=1.0).fit(HAND_X, HAND_Y).predict_proba(row)[0]
    local = model.local_structures(row)
    np.testing.assert_allclose(local["generalist_proba"][0], pg, rtol=0, atol=ATOL)
    np.testing.assert_array_equal(local["omega"][0], hand["omega"])
    assert bool(local["reconsidered"][0])
    np.testing.assert_array_equal(local["expert_parents"][0], hand["expert_parents"])
    np.testing.assert_allclose(local["expert_proba"][0], [float(v) for v in hand["expert_proba"]], rtol=0, atol=ATOL)
    np.testing.assert_allclose(local["refined_proba"][0], [float(v) for v in hand["refined_proba"]], rtol=0, atol=ATOL)
    final = [pg[:2].sum() * float(hand["refined_proba"][c] + hand["expert_proba"][c]) / 2 for c in (0, 1)] + [pg[2]]
    np.testing.assert_allclose(model.predict_proba(row)[0], final, rtol=0, atol=ATOL)


def test_hand_worked_tie_in_the_refined_tree_is_broken_by_the_rule():
    """R02 and R12 are equal (v/3): Prim's strict update must keep X2 under the root X0.
    A batched implementation whose sums round differently can get X1 -> X2 instead."""
    local = LTANClassifier(delta=0.1, m=1.0).fit(HAND_X, HAND_Y).local_structures(HAND_ROW[None].astype(float))
    np.testing.assert_array_equal(local["refined_parents"][0], [-1, 0, 0])


# --------------------------------------------- discriminatory target learning, worked by hand

# Duan et al. (2019) on a tiny example: 3 attributes (r = 2, 3, 2), 3 classes of 4 rows.
TARGET_X = np.array(
    [
        [0, 0, 0],
        [1, 1, 0],
        [1, 0, 0],
        [1, 0, 1],  # class 0
        [1, 0, 1],
        [0, 1, 1],
        [1, 2, 1],
        [0, 2, 0],  # class 1
        [0, 2, 0],
        [1, 2, 0],
        [1, 2, 1],
        [1, 1, 0],  # class 2
    ]
)
TARGET_Y = np.repeat([0, 1, 2], 4)
TARGET_R = [2, 3, 2]
TARGET_ROW = [0, 0, 1]


def _count(X, y, conditions, label=None):
    """Training rows with ``X[t][i] == v`` for every ``(i, v)`` in conditions (and class ``label``)."""
    return sum(
        1 for t in range(len(y)) if all(X[t][i] == v for i, v in conditions) and (label is None or y[t] == label)
    )


def _eq9_by_hand(X, y, x, l, as_printed=False):
    """The estimates of Eq. 9 at the row's values, by loops over the training rows:
    ``P(y)``, ``P(x_i)``, ``P(x_i, y)`` and ``P(x_i, x_j, y)``, each ``(count + 1/l) / (N + 1)``
    but ``P(x_i)``, whose count gets 1 (the pseudo-instance's weight over all classes) or,
    as printed, 1/l."""
    n, d = len(y), len(x)
    p_y = [(_count(X, y, [], c) + 1 / l) / (n + 1) for c in range(l)]
    p_x = [(_count(X, y, [(i, x[i])]) + (1 / l if as_printed else 1)) / (n + 1) for i in range(d)]
    p_xy = [[(_count(X, y, [(i, x[i])], c) + 1 / l) / (n + 1) for c in range(l)] for i in range(d)]
    p_xxy = [
        [[(_count(X, y, [(i, x[i]), (j, x[j])], c) + 1 / l) / (n + 1) for c in range(l)] for j in range(d)]
        for i in range(d)
    ]
    return p_y, p_x, p_xy, p_xxy


def _target_by_hand(X, y, r, x, k, *, measures, combine, as_printed=False, m=1.0):
    """Discriminatory target learning for one row (every attribute known), from the
    definitions with plain loops: Eqs. 8 and 2 on the Eq. 9 estimates (conditionals as
    ratios, Eq. 10), Algorithm 2, m-estimated CPTs, the combiner of Sec. 3 (or the mean
    of the micro posteriors), and KDB(k) from the empirical MI (with 3 attributes and
    k = 2 its structure is fixed by the MI order alone)."""
    n, d, l = len(y), len(x), int(max(y)) + 1
    p_y, p_x, p_xy, p_xxy = _eq9_by_hand(X, y, x, l, as_printed)
    ymi, ycmi = np.zeros((l, d)), np.zeros((l, d, d))
    for c in range(l):
        for i in range(d):
            ratio = p_xy[i][c] / (p_x[i] * p_y[c])
            ymi[c, i] = math.log2(ratio) * (p_xy[i][c] if measures == "weighted" else 1)
            for j in range(d):
                if i != j:
                    ratio = (p_xxy[i][j][c] / p_y[c]) / ((p_xy[i][c] / p_y[c]) * (p_xy[j][c] / p_y[c]))
                    ycmi[c, i, j] = math.log2(ratio) * (p_xxy[i][j][c] if measures == "weighted" else 1)

    def cpt(i, parents, label):  # (N(x_i, pa, c) + m/r_i) / (N(pa, c) + m)
        pa = [(p, x[p]) for p in parents]
        return (_count(X, y, [(i, x[i])] + pa, label) + m / r[i]) / (_count(X, y, pa, label) + m)

    def joint(parents, label):
        out = (_count(X, y, [], label) + m / l) / (n + m)
        for i in range(d):
            out *= cpt(i, parents[i], label)
        return out

    structures, joints = [], np.zeros((l, l))
    for c in range(l):
        order = sorted(range(d), key=lambda i: -ymi[c, i])  # stable: the lower index first on ties
        parents = {i: [] for i in range(d)}
        for p, i in enumerate(order):
            candidates = sorted((j for j in order[:p] if ycmi[c, i, j] > 0), key=lambda j: -ycmi[c, i, j])
            parents[i] = sorted(candidates[:k])
        structures.append(parents)
        joints[c] = [joint(parents, label) for label in range(l)]
    micro = joints / joints.sum(axis=1, keepdims=True)
    own = np.diag(joints)
    kdb_e = own / own.sum() if combine == "own-label" else micro.mean(axis=0)
    # KDB(k = 2) over 3 attributes: by the empirical I(X_i; C), the second takes the first,
    # the third both
    mi = []
    for i in range(d):
        terms = 0.0
        for a in range(r[i]):
            for c in range(l):
                n_ac, n_a, n_c = _count(X, y, [(i, a)], c), _count(X, y, [(i, a)]), _count(X, y, [], c)
                if n_ac:
                    terms += n_ac / n * math.log2(n_ac * n / (n_a * n_c))
        mi.append(terms)
    order = sorted(range(d), key=lambda i: -mi[i])
    kdb_parents = {i: sorted(order[: order.index(i)][:k]) for i in range(d)}
    kdb_joint = np.array([joint(kdb_parents, label) for label in range(l)])
    kdb = kdb_joint / kdb_joint.sum()
    return {
        "ymi": ymi,
        "ycmi": ycmi,
        "parents": structures,
        "micro": micro,
        "kdb_e": kdb_e,
        "kdb": kdb,
        "proba": (kdb_e + kdb) / 2,
    }


def _padded_parents(structures, d, k):
    return np.array([[sorted(s[i]) + [-1] * (k - len(s[i])) for i in range(d)] for s in structures])


def test_hand_worked_eq9_estimates():
    """The Eq. 9 estimates of the example, worked out as fractions (N = 12, l = 3)."""
    p_y, p_x, p_xy, p_xxy = _eq9_by_hand(TARGET_X, TARGET_Y, TARGET_ROW, 3)
    # 4 rows per class: P(y) = (4 + 1/3) / 13 = 1/3
    np.testing.assert_allclose(p_y, [1 / 3] * 3, rtol=0, atol=1e-15)
    # N(x0 = 0) = 4, N(x1 = 0) = 4, N(x2 = 1) = 5: P(x_i) = (N + 1) / 13
    np.testing.assert_allclose(p_x, [5 / 13, 5 / 13, 6 / 13], rtol=0, atol=1e-15)
    # as printed: (N + 1/3) / 13
    printed = _eq9_by_hand(TARGET_X, TARGET_Y, TARGET_ROW, 3, as_printed=True)[1]
    np.testing.assert_allclose(printed, [13 / 39, 13 / 39, 16 / 39], rtol=0, atol=1e-15)
    # N(x_i, y) = (1, 2, 1), (3, 1, 0), (1, 3, 1): P(x_i, y) = (3 N + 1) / 39
    want = [[4, 7, 4], [10, 4, 1], [4, 10, 4]]
    np.testing.assert_allclose(p_xy, np.array(want) / 39, rtol=0, atol=1e-15)
    # N(x0, x1, y) = (1, 0, 0), N(x0, x2, y) = (0, 1, 0), N(x1, x2, y) = (1, 1, 0)
    for (i, j), counts in {(0, 1): [1, 0, 0], (0, 2): [0, 1, 0], (1, 2): [1, 1, 0]}.items():
        np.testing.assert_allclose(p_xxy[i][j], (3 * np.array(counts) + 1) / 39, rtol=0, atol=1e-15)
        np.testing.assert_allclose(p_xxy[j][i], p_xxy[i][j], rtol=0, atol=1e-15)


def test_hand_worked_target_kdb_measures_in_the_library_and_the_reference():
    """The weighted pointwise y-MI and y-CMI (Eqs. 8 and 2 on Eq. 9), their weights and
    bare log ratios: the library's value tables and the reference against the loops."""
    X, y, x = TARGET_X, TARGET_Y, TARGET_ROW
    hand = _target_by_hand(X, y, TARGET_R, x, 2, measures="weighted", combine="own-label")
    bare = _target_by_hand(X, y, TARGET_R, x, 2, measures="pointwise", combine="own-label")
    p_y, p_x, p_xy, p_xxy = _eq9_by_hand(X, y, x, 3)
    # worked values: label 2, X0 and X1: P(x0, x1, y2) = 1/39 and the ratio
    # P(x0, x1 | y2) / (P(x0 | y2) P(x1 | y2)) = (1/13) / ((4/13) (1/13)) = 13/4
    assert hand["ycmi"][2, 0, 1] == pytest.approx(math.log2(13 / 4) / 39, abs=1e-15)
    # label 0, X1: P(x1, y0) = 10/39, ratio (10/39) / ((5/13) (1/3)) = 2: 10/39 bits
    assert hand["ymi"][0, 1] == pytest.approx(10 / 39, abs=1e-15)
    model = TargetKDBClassifier(k=2).fit(X, y)
    tables = model._tables
    idx, _ = tables.flat_index(np.array([x]))
    idx = idx[0]
    ymi, ycmi = tables.pseudo_instance_measures()
    w_mi, w_cmi = tables.target_weights("pseudo-instance", 1.0)
    pair = np.ix_(idx, idx)
    np.testing.assert_allclose(w_mi[idx].T, np.array(p_xy).T, rtol=0, atol=1e-15)
    np.testing.assert_allclose(np.moveaxis(w_cmi[pair], 2, 0), np.moveaxis(np.array(p_xxy), 2, 0), atol=1e-15)
    np.testing.assert_allclose(ymi[idx].T, bare["ymi"], rtol=0, atol=1e-13)
    np.testing.assert_allclose((w_mi * ymi)[idx].T, hand["ymi"], rtol=0, atol=1e-14)
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(np.moveaxis(ycmi[pair], 2, 0)[:, off], bare["ycmi"][:, off], rtol=0, atol=1e-13)
    weighted = np.moveaxis((w_cmi * ycmi)[pair], 2, 0)
    np.testing.assert_allclose(weighted[:, off], hand["ycmi"][:, off], rtol=0, atol=1e-14)
    cnt = ref.RowCounts(X, y, 3, np.array(x))
    for c in range(3):
        for i in range(3):
            weight = ref.y_mi_weight(cnt, TARGET_R, 3, i, c, 1.0, "pseudo-instance")
            assert float(weight) == pytest.approx(p_xy[i][c], abs=1e-15)
            value = ref.WeightedLog(weight, ref.pointwise_y_mi(cnt, TARGET_R, 3, i, c, 1.0, "pseudo-instance"))
            assert value.bits() == pytest.approx(hand["ymi"][c, i], abs=1e-14)
            for j in range(3):
                if i != j:
                    weight = ref.y_cmi_weight(cnt, TARGET_R, 3, i, j, c, 1.0, "pseudo-instance")
                    assert float(weight) == pytest.approx(p_xxy[i][j][c], abs=1e-15)
                    ratio = ref.pointwise_y_cmi(cnt, TARGET_R, 3, i, j, c, 1.0, "pseudo-instance")
                    assert ref.WeightedLog(weight, ratio).bits() == pytest.approx(hand["ycmi"][c, i, j], abs=1e-14)
    # as printed, P(x_i) differs: so does the y-MI, the same shift log2(P / P_printed) for every label
    printed = TargetKDBClassifier(k=2, smoothing="pseudo-instance-as-printed").fit(X, y)
    ymi_printed = printed._tables.pseudo_instance_measures(as_printed=True)[0][idx].T
    shift = [math.log2((_count(X, y, [(i, x[i])]) + 1) / (_count(X, y, [(i, x[i])]) + 1 / 3)) for i in range(3)]
    np.testing.assert_allclose(ymi_printed - bare["ymi"], np.tile(shift, (3, 1)), rtol=0, atol=1e-13)


HAND_READINGS = {
    "paper": ({}, dict(measures="weighted", combine="own-label")),
    "paper-eq9-as-printed": (
        {"smoothing": "pseudo-instance-as-printed"},
        dict(measures="weighted", combine="own-label", as_printed=True),
    ),
    "own-label-pointwise": ({"measures": "pointwise"}, dict(measures="pointwise", combine="own-label")),
    "0.2.0-pseudo-instance": (
        {"measures": "pointwise", "combine": "posterior-average"},
        dict(measures="pointwise", combine="posterior-average"),
    ),
}


@pytest.mark.parametrize("reading", list(HAND_READINGS))
def test_hand_worked_target_kdb_in_the_library_and_the_reference(reading):
    """Structures, micro posteriors, kdb_e, KDB and the answer for the example row: the
    library and the reference against the loops over the definitions."""
    params, hand_params = HAND_READINGS[reading]
    X, y, x = TARGET_X, TARGET_Y, TARGET_ROW
    hand = _target_by_hand(X, y, TARGET_R, x, 2, **hand_params)
    want_parents = _padded_parents(hand["parents"], 3, 2)
    model = TargetKDBClassifier(k=2, **params).fit(X, y)
    row = np.array([x], dtype=float)
    local = model.local_structures(row)
    np.testing.assert_array_equal(local["parents"][0], want_parents)
    for key, got in (("micro", "micro_proba"), ("kdb_e", "kdb_e_proba"), ("kdb", "kdb_proba")):
        np.testing.assert_allclose(local[got][0], hand[key], rtol=0, atol=1e-13, err_msg=key)
    np.testing.assert_allclose(model.predict_proba(row)[0], hand["proba"], rtol=0, atol=1e-13)
    smoothing = params.get("smoothing", "pseudo-instance")
    measures, combine = params.get("measures", "weighted"), params.get("combine", "own-label")
    parents, micro, kdb_e, proba = ref.target_kdb_reference(
        X, y, np.array(TARGET_R), 3, np.array(x), 2, hand["kdb"], 1.0, smoothing, measures, combine
    )
    np.testing.assert_array_equal(parents, want_parents)
    np.testing.assert_allclose(kdb_e, hand["kdb_e"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(proba, hand["proba"], rtol=0, atol=1e-13)


def test_hand_worked_target_kdb_readings_differ():
    """The example tells the readings apart: for label 2 the weights reorder X1 and X2
    (weighted -0.0595 > -0.0600, bare -2.32 < -0.58), so kdb_2 has X0 -> X1 -> X2 instead
    of X0, X2 -> X1; and the paper's reading answers label 1 where bnclf 0.2.0's answered 0."""
    X, y, x, r = TARGET_X, TARGET_Y, TARGET_ROW, TARGET_R
    paper = _target_by_hand(X, y, r, x, 2, measures="weighted", combine="own-label")
    old = _target_by_hand(X, y, r, x, 2, measures="pointwise", combine="posterior-average")
    assert paper["parents"][2] == {0: [], 1: [0], 2: [1]}
    assert old["parents"][2] == {0: [], 1: [0, 2], 2: []}
    assert paper["parents"][:2] == old["parents"][:2]
    assert np.argmax(paper["proba"]) == 1 and np.argmax(old["proba"]) == 0
    # the sign test is the same with and without the weights
    assert ((paper["ycmi"] > 0) == (old["ycmi"] > 0)).all()
    assert TargetKDBClassifier(k=2).fit(X, y).predict(np.array([x], dtype=float))[0] == 1
    old_model = TargetKDBClassifier(k=2, measures="pointwise", combine="posterior-average").fit(X, y)
    assert old_model.predict(np.array([x], dtype=float))[0] == 0


def test_weighted_log_compares_exactly():
    """``WeightedLog`` ties ``(1/2) log2(9/4)`` and ``log2(3/2)`` exactly, and orders by sign."""
    half = ref.WeightedLog(F(1, 2), ref.LogOf(9, 4))
    one = ref.WeightedLog(F(1), ref.LogOf(3, 2))
    assert half == one and not half < one and not half > one
    assert ref.WeightedLog(F(1, 3), ref.LogOf(9, 4)) < one
    assert ref.WeightedLog(F(5), ref.LogOf(3, 4)) < ref.WeightedLog(F(1, 100), ref.LogOf(1))
    assert ref.is_positive(one) and not ref.is_positive(ref.WeightedLog(F(2), ref.LogOf(1)))


# ------------------------------------------------------------ the library against the reference


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("name", CASES)
def test_lkdb_matches_reference(name, k):
    case = load_case(name)
    model = LKDBClassifier(k=k, m=M).fit(case.X, case.y)
    np.testing.assert_array_equal(model.classes_, np.arange(case.l))
    proba = model.predict_proba(case.lib_q)
    parents = model.local_structures(case.lib_q)["parents"]
    assert parents.shape == (len(case.Xq), case.X.shape[1], k)
    diff = Mismatches(case)
    for q, x in enumerate(case.Xq):
        ref_parents, ref_proba = ref.lkdb_reference(case.X, case.y, case.r, case.l, x, k, M)
        diff.same(q, parents[q], ref_parents, f"LKDB(k={k}) parents")
        diff.close(q, proba[q], ref_proba, f"LKDB(k={k}) posterior")
    diff.check()


@pytest.mark.parametrize("name", CASES)
def test_akdb_matches_reference(name):
    case = load_case(name)
    k = 1
    model = AKDBClassifier(k=k, m=M).fit(case.X, case.y)
    proba = model.predict_proba(case.lib_q)
    parents = model.local_structures(case.lib_q)["parents"]
    kdb = KDBClassifier(k=k, m=M).fit(case.X, case.y).predict_proba(case.lib_q)
    diff = Mismatches(case)
    for q, x in enumerate(case.Xq):
        ref_parents, ref_proba = ref.akdb_reference(case.X, case.y, case.r, case.l, x, k, kdb[q], M)
        diff.same(q, parents[q], ref_parents, "AKDB's LKDB parents")
        diff.close(q, proba[q], ref_proba, "AKDB posterior")
    diff.check()


def _ltan_reference_rows(case, delta):
    pg = TANClassifier(m=M).fit(case.X, case.y).predict_proba(case.lib_q)
    rows = [
        ref.ltan_reference(case.X, case.y, case.r, case.l, x, pg[q], delta, M, case.mi_terms, case.class_mi)
        for q, x in enumerate(case.Xq)
    ]
    return pg, rows


@pytest.mark.parametrize("delta", [0.1, 0.5])
@pytest.mark.parametrize("name", CASES)
def test_ltan_matches_reference(name, delta):
    case = load_case(name)
    model = LTANClassifier(delta=delta, m=M).fit(case.X, case.y)
    proba = model.predict_proba(case.lib_q)
    local = model.local_structures(case.lib_q)
    pg, rows = _ltan_reference_rows(case, delta)
    assert any(out["reconsidered"] for out in rows), "no reconsidered row: the test is vacuous"
    diff = Mismatches(case)
    for q, out in enumerate(rows):
        diff.close(q, local["generalist_proba"][q], pg[q], "generalist posterior")
        diff.same(q, local["omega"][q], out["omega"], "omega")
        diff.same(q, bool(local["reconsidered"][q]), out["reconsidered"], "reconsidered")
        diff.same(q, local["refined_parents"][q], out["refined_parents"], "TAN-IE parents")
        diff.same(q, local["expert_parents"][q], out["expert_parents"], "expert parents")
        diff.close(q, local["refined_proba"][q], out["refined_proba"], "TAN-IE posterior")
        diff.close(q, local["expert_proba"][q], out["expert_proba"], "expert posterior")
        diff.close(q, proba[q], out["proba"], "LTAN posterior")
    diff.check()


@pytest.mark.parametrize("delta", [0.1, 0.5])
def test_ltan_diagnostics_match_reference(delta):
    case = load_case("glass")
    model = LTANClassifier(delta=delta, m=M).fit(case.X, case.y)
    pg, rows = _ltan_reference_rows(case, delta)
    expected = ref.ltan_diagnostics(rows, pg, case.yq)
    got = model.diagnose(case.lib_q, case.yq)
    np.testing.assert_array_equal(got["reconsidered"], expected["reconsidered"])
    for key in ("llp", "r_bar", "cp", "lp", "kappa"):
        np.testing.assert_allclose(got[key], expected[key], rtol=0, atol=1e-12, equal_nan=True, err_msg=key)
    without_y = model.diagnose(case.lib_q)
    np.testing.assert_array_equal(without_y["reconsidered"], expected["reconsidered"])
    for key in ("llp", "r_bar"):
        np.testing.assert_allclose(without_y[key], expected[key], rtol=0, atol=1e-12, equal_nan=True, err_msg=key)


# the readings of TargetKDB: the paper's (the default) and those kept as parameters
TARGET_READINGS = {
    "paper": {},
    "paper-eq9-as-printed": {"smoothing": "pseudo-instance-as-printed"},
    "weighted-m-estimate": {"smoothing": "m-estimate"},
    "own-label-pointwise": {"measures": "pointwise"},
    "0.2.0": {"measures": "pointwise", "combine": "posterior-average", "smoothing": "m-estimate"},
    "0.2.0-pseudo-instance": {"measures": "pointwise", "combine": "posterior-average", "smoothing": "pseudo-instance"},
}


@pytest.mark.parametrize("reading", list(TARGET_READINGS))
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("name", CASES)
def test_target_kdb_matches_reference(name, k, reading):
    """The batched learner equals the reference built one row at a time, from boolean-mask
    counts, for every reading: the same micro structures exactly, the same posteriors."""
    case = load_case(name)
    params = TARGET_READINGS[reading]
    model = TargetKDBClassifier(k=k, m=M, **params).fit(case.X, case.y)
    proba = model.predict_proba(case.lib_q)
    local = model.local_structures(case.lib_q)
    d, l = case.X.shape[1], case.l
    assert local["parents"].shape == (len(case.Xq), l, d, k)
    assert local["micro_proba"].shape == (len(case.Xq), l, l)
    kdb = KDBClassifier(k=k, m=M).fit(case.X, case.y).predict_proba(case.lib_q)
    diff = Mismatches(case)
    for q, x in enumerate(case.Xq):
        parents, micro, kdb_e, final = ref.target_kdb_reference(case.X, case.y, case.r, l, x, k, kdb[q], M, **params)
        for label in range(l):
            diff.same(q, local["parents"][q][label], parents[label], f"kdb_{label} parents")
            diff.close(q, local["micro_proba"][q][label], micro[label], f"kdb_{label} posterior")
        diff.close(q, local["kdb_e_proba"][q], kdb_e, "kdb_e")
        diff.close(q, proba[q], final, "TargetKDB posterior")
    diff.check()
