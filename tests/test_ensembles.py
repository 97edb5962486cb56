"""Ensembles (AODE, WAODE, ATAN, WATAN) against pgmpy, TAN and hand formulas."""

import numpy as np
import pandas as pd
import pytest
from pgmpy_oracle import log_joint_per_class, observed, posterior
from sklearn.base import clone

from bnclf import (
    AODEClassifier,
    ATANClassifier,
    TANClassifier,
    WAODEClassifier,
    WATANClassifier,
    make_classifier,
)
from bnclf.counts._measures import mutual_information
from bnclf.inference._kernels import StackedKernel, log_posterior
from bnclf.io._pgmpy import variable_elimination

ENSEMBLES = [AODEClassifier(), WAODEClassifier(), AODEClassifier(smoothing="weka"), ATANClassifier(), WATANClassifier()]
IDS = ["aode", "waode", "aode-weka", "atan", "watan"]


@pytest.fixture(scope="module")
def small(krkp):
    X, y = krkp
    return X.iloc[:, :7], y


def rows_with_unknowns(X, start, n, seed=0):
    rng = np.random.default_rng(seed)
    test = X.iloc[start : start + n].astype(object).copy()
    for r in range(1, n):
        j = rng.choice(X.shape[1], size=1 + r % 3, replace=False)
        test.iat[r, j[0]] = np.nan
        if len(j) > 1:
            test.iat[r, j[1]] = "never-seen"
    return test


@pytest.mark.parametrize("est", ENSEMBLES, ids=IDS)
def test_members_equal_pgmpy_and_the_ensemble_is_their_weighted_combination(est, small):
    X, y = small
    est = clone(est).fit(X.iloc[:2000], y.iloc[:2000])
    test = rows_with_unknowns(X, 2000, 6)
    evidence = [observed(test.iloc[r].where(test.iloc[r] != "never-seen", np.nan)) for r in range(len(test))]
    members = est.member_joint_log_proba(test)
    weights = est.member_weights(test)
    models = est.to_pgmpy()
    assert isinstance(models, list) and len(models) == len(est.networks_)
    expected = np.zeros((len(test), len(est.classes_)))
    for m, model in enumerate(models):
        infer = variable_elimination(model)
        for r, ev in enumerate(evidence):
            ref_post = posterior(model, est.class_name_, est.classes_, ev, infer)
            np.testing.assert_allclose(np.exp(log_posterior(members[r : r + 1, m]))[0], ref_post, atol=1e-9)
            if est._combine == "joint":
                if weights[r, m] > 0 or m == 0:
                    ref_joint = log_joint_per_class(model, est.class_name_, est.classes_, ev, infer)
                    np.testing.assert_allclose(members[r, m], ref_joint, atol=1e-9)
                    expected[r] += weights[r, m] * np.exp(ref_joint)
            else:
                expected[r] += weights[r, m] * ref_post
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(est.predict_proba(test), expected, atol=1e-9)


def test_atan_members_are_the_tans_rooted_at_each_feature(small):
    X, y = small
    atan = ATANClassifier().fit(X, y)
    for r in range(X.shape[1]):
        tan = TANClassifier(root=r).fit(X, y)
        member = atan.networks_[r]
        assert member.named_families == tan.families_
        for child, table in tan.log_cpts_.items():
            np.testing.assert_array_equal(member.named_log_cpts[child], table)
    np.testing.assert_allclose(atan.weights_, np.full(X.shape[1], 1 / X.shape[1]))


def test_atan_with_one_root_feature_is_tan(small):
    X, y = small
    X1 = X.iloc[:, :1]
    np.testing.assert_allclose(
        ATANClassifier().fit(X1, y).predict_proba(X1), TANClassifier().fit(X1, y).predict_proba(X1), atol=1e-12
    )


def test_watan_and_waode_weights_are_the_class_mutual_information(small):
    X, y = small
    mi = np.array([mutual_information(pd.crosstab(X[c], y).to_numpy()) for c in X.columns])
    np.testing.assert_allclose(WATANClassifier().fit(X, y).weights_, mi / mi.sum(), atol=1e-12)
    waode = WAODEClassifier().fit(X, y)
    np.testing.assert_allclose(waode.weights_[:-1], mi / mi.sum(), atol=1e-12)
    assert waode.weights_[-1] == 0  # the naive Bayes fallback


def test_aode_equals_the_spode_average_by_hand(small):
    """AODE(m=1) by the formula of Webb et al. with m-estimates written out in numpy."""
    X, y = small
    Xtr, ytr, Xte = X.iloc[:1500], y.iloc[:1500], X.iloc[1500:1530]
    est = AODEClassifier().fit(Xtr, ytr)
    classes = list(est.classes_)
    codes = {c: pd.Categorical(Xtr[c], categories=est.categories_[c]).codes for c in X.columns}
    tcodes = {c: pd.Categorical(Xte[c], categories=est.categories_[c]).codes for c in X.columns}
    yc = np.array([classes.index(v) for v in ytr])
    n, C = len(ytr), len(classes)
    prior = (np.bincount(yc, minlength=C) + 1 / C) / (n + 1)
    joint = np.zeros((len(Xte), C))
    for p in X.columns:
        rp = len(est.categories_[p])
        for r in range(len(Xte)):
            vp = tcodes[p][r]
            for c in range(C):
                in_c = yc == c
                n_pc = np.sum(in_c & (codes[p] == vp))
                prob = prior[c] * (n_pc + 1 / rp) / (in_c.sum() + 1)
                for j in X.columns:
                    if j == p:
                        continue
                    rj = len(est.categories_[j])
                    n_jpc = np.sum(in_c & (codes[p] == vp) & (codes[j] == tcodes[j][r]))
                    prob *= (n_jpc + 1 / rj) / (n_pc + 1)
                joint[r, c] += prob / X.shape[1]
    np.testing.assert_allclose(est.predict_joint_log_proba(Xte), np.log(joint), rtol=1e-10)


def test_frequency_limit_falls_back_to_naive_bayes(small):
    X, y = small
    est = AODEClassifier(frequency_limit=10**9).fit(X, y)
    nb = make_classifier("nb").fit(X, y)
    np.testing.assert_allclose(est.predict_proba(X[:20]), nb.predict_proba(X[:20]), atol=1e-12)
    w = est.member_weights(X[:3])
    assert (w[:, -1] == 1).all() and (w[:, :-1] == 0).all()


def test_unseen_super_parent_value_does_not_qualify(small):
    X, y = small
    est = AODEClassifier().fit(X, y)
    row = X.iloc[:1].astype(object).copy()
    row.iat[0, 2] = "never-seen"
    w = est.member_weights(row)[0]
    assert w[2] == 0 and w[-1] == 0 and np.isclose(w.sum(), 1)


@pytest.mark.parametrize(
    "spec,cls",
    [
        ("aode", AODEClassifier),
        ("waode", WAODEClassifier),
        ("atan", ATANClassifier),
        ("watan", WATANClassifier),
        ("aode(frequency_limit=5, smoothing='weka')", AODEClassifier),
    ],
)
def test_registry_names(spec, cls):
    assert isinstance(make_classifier(spec), cls)


@pytest.mark.parametrize(
    "params,match",
    [
        ({"frequency_limit": -1}, "frequency_limit"),
        ({"frequency_limit": 1.5}, "frequency_limit"),
        ({"smoothing": "laplace"}, "smoothing.*weka"),
        ({"m": -1}, "m=-1"),
    ],
)
def test_bad_parameters_name_themselves(params, match, small):
    X, y = small
    with pytest.raises(ValueError, match=match):
        AODEClassifier(**params).fit(X, y)


def test_ensemble_has_no_single_dag(small):
    X, y = small
    est = ATANClassifier().fit(X, y)
    assert not hasattr(est, "dag_")
    with pytest.raises(AttributeError, match="networks_"):
        est.families_
    assert [k for k, _ in est.network_members()] == list(range(X.shape[1]))


@pytest.fixture(params=[1, 2], ids=["one-thread", "two-threads"])
def spode_threads(request, monkeypatch):
    """The SPODE kernel in one thread, and with its rows cut between two threads however few."""
    import bnclf._threads as threads
    from bnclf import config_context

    monkeypatch.setattr(threads, "MIN_PART_STEPS", 0)
    with config_context(n_threads=request.param):
        yield request.param


def test_aode_tensor_kernel_equals_the_member_networks(small, spode_threads):
    X, y = small
    for est in (AODEClassifier(), WAODEClassifier(smoothing="weka")):
        est.fit(X, y)
        codes = est._encoder.transform(X.iloc[:300])
        spodes = est._member_kernel()
        assert type(spodes).__name__ == "SuperParentKernel"
        stacked = StackedKernel(est.networks_, len(est.classes_))
        np.testing.assert_allclose(spodes(codes), stacked(codes), atol=1e-10)
        for m, net in enumerate(est.networks_):
            np.testing.assert_allclose(spodes(codes)[:, m], net.joint_log_likelihood(codes), atol=1e-10)


def test_aode_tensor_kernel_sums_out_unknown_children_and_super_parents(small, spode_threads):
    X, y = small
    for est in (AODEClassifier(frequency_limit=0), WAODEClassifier(smoothing="weka")):
        est.fit(X, y)
        codes = est._encoder.transform(X.iloc[:200])
        rng = np.random.default_rng(4)
        codes[rng.random(codes.shape) < 0.2] = -1
        ours = est._member_kernel()(codes)
        for m, net in enumerate(est.networks_):
            np.testing.assert_allclose(ours[:, m], net.joint_log_likelihood(codes), atol=1e-10)


def test_aode_kernel_sums_a_table_with_impossible_entries(small):
    """A table with log-probabilities of ``-inf`` (maximum likelihood) gives the member
    networks' sums, without NaN, for rows with unknown children and super-parents too."""
    from bnclf.inference._super_parent import SuperParentKernel

    X, y = small
    est = AODEClassifier().fit(X, y)
    codes = est._encoder.transform(X.iloc[:100])
    codes[np.random.default_rng(2).random(codes.shape) < 0.1] = -1
    pairs = np.asarray(est._spode_tables["pairs"])  # the whole table
    impossible = np.where(pairs < -3.0, -np.inf, pairs)
    assert np.isneginf(impossible).any()
    fitted = est._member_kernel()
    small_tables = [est._spode_tables[k] for k in ("priors", "parents", "nb_prior", "nb_children")]
    kernel = SuperParentKernel(impossible, fitted.offsets, fitted.parents_per_feature, *small_tables)
    with np.errstate(invalid="raise"):
        sums = kernel(codes)
    assert not np.isnan(sums).any() and np.isneginf(sums).any()
    reference = SuperParentKernel(pairs, fitted.offsets, fitted.parents_per_feature, *small_tables)
    for member, net in zip(np.moveaxis(reference(codes), 1, 0), est.networks_):
        np.testing.assert_allclose(member, net.joint_log_likelihood(codes), atol=1e-10)


def test_aode_kernel_zeroes_exactly_the_diagonal_blocks():
    """j == p is not a family: the kernel zeroes the blocks of a feature's values with
    themselves (uneven cardinalities) and keeps every other cell, without changing the
    caller's array; a table already zero there is used as it is."""
    from bnclf.inference._super_parent import SuperParentKernel

    cards = np.array([2, 5, 1, 3])
    offsets = np.cumsum(cards) - cards
    width, c = int(cards.sum()), 2
    tables = -np.random.default_rng(0).random((width, width, c)) - 0.1
    expected = tables.copy()
    for o, r in zip(offsets, cards):
        expected[o : o + r, o : o + r] = 0.0
    small = (np.zeros((4, c)), np.zeros((width, c)), np.zeros(c), np.zeros((width, c)))
    kernel = SuperParentKernel(tables, offsets, cards, *small)
    np.testing.assert_array_equal(kernel.tables, expected)
    assert (tables != 0).all()  # the argument is left as it was
    assert SuperParentKernel(expected, offsets, cards, *small).tables is expected


def test_frequency_limit_zero_lets_a_never_seen_declared_value_qualify():
    rng = np.random.default_rng(0)
    cats = ["a", "b", "c", "rare"]  # "rare" is declared but absent from training
    X = pd.DataFrame({f"f{i}": pd.Categorical(rng.choice(cats[:3], 200), categories=cats) for i in range(3)})
    y = rng.integers(0, 2, 200)
    test = X.iloc[:1].copy()
    test.iloc[0, 0] = "rare"
    assert AODEClassifier().fit(X, y).member_weights(test)[0, 0] == 0  # limit 1: skipped
    w = AODEClassifier(frequency_limit=0).fit(X, y).member_weights(test)[0]
    np.testing.assert_allclose(w, [1 / 3, 1 / 3, 1 / 3, 0])
    w = WAODEClassifier(smoothing="weka").fit(X, y).member_weights(test)[0]
    assert w[0] > 0 and w[-1] == 0  # Weka's WAODE uses every super-parent


def test_wide_features_use_per_family_tables_with_the_same_result(small, monkeypatch):
    import bnclf.counts._tables as stats

    X, y = small
    test = rows_with_unknowns(X, 2000, 12)
    dense = [
        est.fit(X, y).predict_proba(test)
        for est in (AODEClassifier(), WAODEClassifier(smoothing="weka"), ATANClassifier())
    ]
    monkeypatch.setattr(stats, "_PAIR_BLOCK_CELLS", 0)
    for est, expected in zip((AODEClassifier(), WAODEClassifier(smoothing="weka"), ATANClassifier()), dense):
        est.fit(X, y)
        assert type(est._member_kernel()).__name__ == "StackedKernel"
        np.testing.assert_allclose(est.predict_proba(test), expected, atol=1e-12)


def test_combinations_keep_far_classes_finite():
    from bnclf.inference._kernels import log_weighted_posterior, log_weighted_sum

    joints = np.array([[[-2000.0, 0.0], [-2100.0, -5.0]]])
    got = log_weighted_posterior(joints, np.array([0.5, 0.5]))
    assert np.isfinite(got).all() and got[0, 0] == pytest.approx(np.log(0.5) - 2000, abs=1e-9)
    got = log_weighted_sum(joints, np.array([0.5, 0.5]))
    assert got[0, 0] == pytest.approx(np.log(0.5) - 2000, abs=1e-9)


def test_uninformative_features_give_uniform_spode_weights():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": ["x"] * 40, "b": ["y"] * 40})  # no information about the class
    y = rng.integers(0, 2, 40)
    est = WAODEClassifier().fit(X, y)
    np.testing.assert_allclose(est.weights_, [0.5, 0.5, 0.0])


def _members(est):
    return [(net.families, net.log_cpts, net.title) for net in est.networks_]


@pytest.mark.parametrize(
    "make",
    [
        lambda: AODEClassifier(),
        lambda: AODEClassifier(smoothing="weka", missing="ignore"),
        lambda: WAODEClassifier(),
        lambda: WAODEClassifier(smoothing="weka"),
        lambda: AODEClassifier(m=0),
    ],
    ids=["aode", "aode-weka-ignore", "waode", "waode-weka", "aode-m0"],
)
def test_members_built_on_first_use_equal_the_per_family_members_bit_for_bit(make, soybean, monkeypatch):
    """A fit and a prediction build no member network; the networks built from the fitted
    tables afterwards are exactly those the per-family path (data too wide for the
    all-pairs table) builds during its fit: every CPT equal to the last bit. Weighted
    counts are sums of weights in another order on the two paths (a BLAS product, a
    bincount), so there the CPTs agree to rounding."""
    import bnclf.counts._tables as stats

    X, y = soybean
    weights = np.random.default_rng(3).random(len(y)) * 3
    for sample_weight in (weights, None):
        lazy = make().fit(X, y, sample_weight=sample_weight)
        lazy.predict_proba(X.iloc[:20])
        assert "networks_" not in lazy.__dict__ and "_built_networks" not in lazy.__dict__
        with monkeypatch.context() as patch:
            patch.setattr(stats, "_PAIR_BLOCK_CELLS", 0)
            eager = make().fit(X, y, sample_weight=sample_weight)
        assert "networks_" in eager.__dict__
        for (fam_a, cpts_a, title_a), (fam_b, cpts_b, title_b) in zip(_members(lazy), _members(eager), strict=True):
            assert fam_a == fam_b and title_a == title_b
            for a, b in zip(cpts_a, cpts_b, strict=True):
                if sample_weight is None:
                    np.testing.assert_array_equal(a, b)
                else:
                    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(lazy.weights_, eager.weights_)


def test_members_built_on_first_use_export_the_files_of_the_per_family_members(small, monkeypatch, tmp_path):
    import bnclf.counts._tables as stats
    from bnclf.io import write_network

    X, y = small
    texts = []
    for wide in (False, True):
        with monkeypatch.context() as patch:
            if wide:
                patch.setattr(stats, "_PAIR_BLOCK_CELLS", 0)
            est = AODEClassifier(frequency_limit=5).fit(X, y)
        folder = tmp_path / str(wide)
        folder.mkdir()
        write_network(est, folder / "aode.xmlbif")
        texts.append({p.name: p.read_bytes() for p in folder.iterdir()})
    assert texts[0] == texts[1] and len(texts[0]) > X.shape[1]


def test_spode_families_are_those_of_the_spode_graphs(small):
    from bnclf.learn._restricted import graph_families, learn_nb, learn_spode, spode_families

    est = AODEClassifier().fit(*small)
    d = small[0].shape[1]

    class Shape:  # what a structure learner reads of the cache
        n_features, class_index = d, d

    for p in range(d):
        assert spode_families(d, p) == graph_families(learn_spode(Shape, p), d)
    assert spode_families(d, None) == graph_families(learn_nb(Shape), d)
    assert [net.families for net in est.networks_] == [spode_families(d, p) for p in [*range(d), None]]


def test_an_aode_stored_with_its_member_networks_still_loads(small, tmp_path):
    """Models saved when AODE stored its member networks (pickles, model files) load into
    the tables, with the same predictions."""
    import pickle

    X, y = small
    for est in (AODEClassifier(), WAODEClassifier(smoothing="weka")):
        est.fit(X, y)
        state = est.__getstate__()
        tables = state.pop("_spode_tables")
        state["networks_"] = est.networks_
        old = type(est).__new__(type(est))
        old.__setstate__(state)
        assert "networks_" not in old.__dict__
        for name, table in tables.items():
            np.testing.assert_array_equal(old._spode_tables[name], table)
        np.testing.assert_array_equal(old.predict_proba(X[:50]), est.predict_proba(X[:50]))
        again = pickle.loads(pickle.dumps(old))
        np.testing.assert_array_equal(again.predict_proba(X[:50]), est.predict_proba(X[:50]))


@pytest.mark.parametrize("est", [AODEClassifier(), WAODEClassifier(smoothing="weka")], ids=["aode", "waode-weka"])
def test_the_all_pairs_table_is_made_whole_only_when_asked_for(small, est, tmp_path):
    """A fit keeps what the table's cells read, and a prediction of rows whose values are all
    known forms only the cells of the values they hold: the whole table
    is made for the member networks, a pickle or a model file, which store it as an array,
    and the loaded model predicts the same bits."""
    import pickle

    from bnclf.io import load_model, save_model

    X, y = small
    est = clone(est).fit(X, y)
    pairs = est._spode_tables["pairs"]
    assert pairs._table is None
    proba = est.predict_proba(X[:200])
    assert pairs._table is None  # the cells of the values in use only
    state = est.__getstate__()
    assert pairs._table is not None and isinstance(state["_spode_tables"]["pairs"], np.ndarray)
    assert pairs._cells is None  # made whole: what its cells read is dropped
    assert est._spode_tables["pairs"] is pairs  # the fitted model keeps its table object
    lazy = clone(est).fit(X, y)  # a table not yet made pickles whole, and so does the kernel
    tables, kernel = pickle.loads(pickle.dumps((lazy._spode_tables, lazy._spodes)))
    np.testing.assert_array_equal(tables["pairs"]._table, pairs.full())
    np.testing.assert_array_equal(
        kernel.log_weighted_sum(est._encoder.transform(X[:50]), 1.0),
        lazy._spodes.log_weighted_sum(est._encoder.transform(X[:50]), 1.0),
    )
    again = pickle.loads(pickle.dumps(est))
    save_model(est, tmp_path / "aode.bnclf")
    loaded = load_model(tmp_path / "aode.bnclf")
    for model in (again, loaded):
        np.testing.assert_array_equal(model._spode_tables["pairs"], pairs.full())
        np.testing.assert_array_equal(model.predict_proba(X[:200]), proba)
    fresh = clone(est).fit(X, y)
    members = fresh.networks_  # the member networks read the whole table
    assert fresh._spode_tables["pairs"]._table is not None
    for a, b in zip(members, loaded.networks_):
        for x, z in zip(a.log_cpts, b.log_cpts):
            np.testing.assert_array_equal(x, z)


def test_spode_tables_that_are_not_distributions_are_refused(small):
    est = AODEClassifier().fit(*small)
    state = est.__getstate__()
    state["_spode_tables"] = dict(state["_spode_tables"], parents=state["_spode_tables"]["parents"] + 0.5)
    with pytest.raises(ValueError, match="super-parent of SPODE 0"):
        AODEClassifier.__new__(AODEClassifier).__setstate__(state)
    state["_spode_tables"] = dict(state["_spode_tables"], pairs=np.zeros((3, 3, 2)))
    with pytest.raises(ValueError, match="'pairs' has shape"):
        AODEClassifier.__new__(AODEClassifier).__setstate__(state)


def test_a_refit_on_wide_data_forgets_the_tables(small, monkeypatch):
    import bnclf.counts._tables as stats

    X, y = small
    est = AODEClassifier().fit(X, y)
    assert "_spode_tables" in est.__dict__
    monkeypatch.setattr(stats, "_PAIR_BLOCK_CELLS", 0)
    est.fit(X.iloc[:, :5], y)
    assert "_spode_tables" not in est.__dict__ and len(est.networks_) == 6
    assert est.predict_proba(X.iloc[:3, :5]).shape == (3, 2)


def test_ensembles_combine_members_a_block_of_rows_at_a_time(small, monkeypatch):
    """Blocks of one row, or of a few, give the posteriors of one block of all rows (AODE's
    row weights and the kernel's sub-table of the values in use, kept across blocks, included)."""
    import bnclf.models._ensembles as ensembles

    X, y = small
    test = rows_with_unknowns(X, 0, 40)
    for est in (AODEClassifier(), WAODEClassifier(smoothing="weka"), ATANClassifier()):
        est.fit(X, y)
        whole = est.predict_proba(test)
        for cells in (1, 7 * len(est.weights_) * len(est.classes_)):
            monkeypatch.setattr(ensembles, "_ENSEMBLE_CELLS", cells)
            np.testing.assert_allclose(est.predict_proba(test), whole, rtol=0, atol=1e-12)
        monkeypatch.undo()


def test_aode_predicts_a_row_whose_every_value_is_missing(small):
    """No value known: the kernel sums every super-parent out."""
    X, y = small
    test = X.iloc[:3].astype(object).copy()
    test.iloc[0, :] = np.nan
    for est in (AODEClassifier(), WAODEClassifier(smoothing="weka")):
        est.fit(X, y)
        codes = est._encoder.transform(test)
        ours = est._member_kernel()(codes)
        for m, net in enumerate(est.networks_):
            np.testing.assert_allclose(ours[:, m], net.joint_log_likelihood(codes), atol=1e-10)
        proba = est.predict_proba(test.iloc[:1])
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_one_row_of_weights_for_every_row_is_each_rows_own_bit_for_bit(small):
    """The kernel's combination with one row of weights ``(d + 1,)`` read for every row equals
    that of the same weights given for each row, bit for bit; a weight of zero leaves its
    member out (the combination of the other members, renormalized)."""
    X, y = small
    est = AODEClassifier().fit(X, y)
    kernel, d = est._member_kernel(), X.shape[1]
    codes = est._encoder.transform(X.iloc[:40])
    base = np.random.default_rng(7).dirichlet(np.ones(d + 1))
    base[3] = 0.0
    one = kernel.log_weighted_sum(codes, base)
    np.testing.assert_array_equal(one, kernel.log_weighted_sum(codes, np.tile(base, (40, 1))))
    kept = np.delete(np.arange(d + 1), 3)
    members = kernel(codes)[:, kept]
    np.testing.assert_allclose(one, np.log((np.exp(members) * base[kept, None]).sum(axis=1)), rtol=1e-12)


@pytest.mark.parametrize("make", [lambda: AODEClassifier(frequency_limit=3), lambda: AODEClassifier(frequency_limit=0),
                                  lambda: WAODEClassifier(smoothing="weka"), lambda: WAODEClassifier()])  # fmt: skip
def test_row_weights_of_rows_that_all_qualify_are_the_rows_own(make):
    """Rows whose super-parents all qualify share one row of weights ``(d + 1,)``, read-only;
    the numbers are those of each row's own weights, bit for bit, and rows with a rare or
    unknown value take their own. ``member_weights`` returns a writable ``(n, d + 1)`` array
    either way."""
    rng = np.random.default_rng(11)
    cats = ["a", "b", "c", "rare"]
    X = pd.DataFrame({f"f{i}": pd.Categorical(rng.choice(cats[:3], 300), categories=cats) for i in range(4)})
    X.iloc[:2, 1] = "rare"  # two training rows: below a limit of 3
    y = rng.integers(0, 3, 300)
    est = make().fit(X, y)
    limit = est._frequency_limit()
    weights = est._super_parent_weights
    counts, offsets = weights.counts, weights.offsets

    def own(codes):  # each row's weights from its own values: the formula, row by row
        frequency = counts.take(np.where(codes >= 0, codes + offsets, counts.size - 1))
        return np.vstack([weights.qualified(q[None, :]) for q in frequency >= limit])

    common = X.iloc[2:50]
    odd = X.iloc[:50].copy()
    odd.iloc[7, 2] = np.nan
    for rows in (common, odd):
        codes = est._encode(rows)
        got = est._row_weights(codes)
        np.testing.assert_array_equal(np.broadcast_to(got, (len(codes), 5)), own(codes))
        assert (got.shape == (5,) and not got.flags.writeable) or (rows is odd and limit > 0 and got.shape == (50, 5))
        assert est.member_weights(rows).flags.writeable
        np.testing.assert_array_equal(est.member_weights(rows), own(codes))
    assert est._row_weights(est._encode(X.iloc[:0])).shape == (5,)
    assert est.member_weights(X.iloc[:0]).shape == (0, 5)
