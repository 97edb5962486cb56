"""Instance-specific learners: batched parts against count tables, KDB/TAN, and pgmpy on
the networks ``explain`` returns."""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from pgmpy_oracle import log_evidence, observed, posterior
from sklearn.base import clone
from sklearn.metrics import cohen_kappa_score

from bnclf import (
    AKDBClassifier,
    LKDBClassifier,
    LTANClassifier,
    TANClassifier,
    TargetKDBClassifier,
    _config,
    make_classifier,
)
from bnclf.counts._cache import CountCache
from bnclf.encoding._frames import DiscreteData
from bnclf.learn._instance import LocalParameters, MatchCounter, local_kdb_parents
from bnclf.learn._parameters import m_estimated_log_cpts
from bnclf.learn._restricted import learn_kdb, maximum_spanning_arborescence
from bnclf.models._instance_specific import cohen_kappa


def random_data(seed, n=300, cards=(2, 3, 4, 3, 2), n_classes=3, missing=False):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, r, n) for r in cards])
    y = rng.integers(0, n_classes, n)
    codes[:, 1] = (codes[:, 0] + y + rng.integers(0, 2, n)) % cards[1]  # some dependence
    if missing:
        codes[rng.random(codes.shape) < 0.1] = -1
    return DiscreteData(codes, np.array(cards), y, n_classes)


@pytest.mark.parametrize("missing", [False, True])
def test_match_counter_equals_count_tables(missing):
    data = random_data(0, missing=missing)
    cache, counter = CountCache(data), MatchCounter(data)
    R = counter.width
    for family in [(0,), (2, 1), (0, 3, 4), (1, 2, 3, 4)]:
        table = cache.counts(family + (cache.class_index,))
        for values in itertools.product(*[range(data.cardinalities[v]) for v in family]):
            index = [counter.offsets[v] + x for v, x in zip(family, values)]
            np.testing.assert_array_equal(counter.counts(np.array([index]))[0], table[values])
        # "child known" and "every row" bitsets
        known = counter.counts(np.array([[R + family[0], R + data.n_features]]))[0]
        np.testing.assert_array_equal(known, cache.counts((family[0], cache.class_index)).sum(0))


@pytest.mark.parametrize("m", [1.0, 0.0, 3.0])
@pytest.mark.parametrize("missing", [False, True])
def test_local_parameters_equal_m_estimated_cpts(m, missing):
    data = random_data(1, missing=missing)
    cache = CountCache(data)
    local = LocalParameters(data, cache, m)
    rng = np.random.default_rng(2)
    codes = np.column_stack([rng.integers(0, r, 40) for r in data.cardinalities])
    c = cache.class_index
    for family in [(3,), (1, 0), (4, 2, 0), (0, 1, 2, 3)]:
        child, parents = family[0], list(family[1:])
        rows = np.arange(len(codes))
        got = local.entries(codes, rows, np.full(len(rows), child), np.array([parents + [-1]] * len(rows)))
        table = m_estimated_log_cpts(cache, [(child, *sorted(parents), c)], m)[0]
        sp = sorted(parents)
        want = table[(codes[:, child], *[codes[:, p] for p in sp])]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        labels = rng.integers(0, data.n_classes, len(rows))
        one = local.entries(codes, rows, np.full(len(rows), child), np.array([parents + [-1]] * len(rows)), labels)
        np.testing.assert_allclose(one, want[rows, labels], rtol=0, atol=1e-12)


def test_local_kdb_parents_with_global_scores_is_kdb(krkp):
    X, y = krkp
    X = X.iloc[:, :12]
    est = LKDBClassifier().fit(X, y)
    cache = est._cache
    mi, cmi = cache.mi_with_class(), cache.cmi_matrix()
    d = X.shape[1]
    for k in (1, 2, 3):
        parents = local_kdb_parents(np.tile(mi, (3, 1)), np.broadcast_to(cmi, (3, d, d)), np.ones((3, d), bool), k)
        graph = learn_kdb(cache, k=k)
        for i in range(d):
            want = sorted(p for p in graph.predecessors(i) if p != cache.class_index)
            got = [p for p in parents[0, i] if p >= 0]
            assert got == want
        assert (parents == parents[0]).all()


def test_masked_prim_spans_exactly_the_active_nodes():
    rng = np.random.default_rng(5)
    d = 7
    w = rng.random((20, d, d))
    w = w + np.swapaxes(w, 1, 2)
    active = rng.random((20, d)) < 0.7
    active[:, 0] = True
    parents = maximum_spanning_arborescence(w, 0, active=active)
    for b in range(20):
        nodes = np.flatnonzero(active[b])
        g = nx.Graph()
        g.add_weighted_edges_from((i, j, w[b, i, j]) for i, j in itertools.combinations(nodes, 2))
        g.add_nodes_from(nodes)
        best = nx.maximum_spanning_tree(g)
        got = {frozenset((i, p)) for i, p in enumerate(parents[b]) if p >= 0}
        assert got == {frozenset(e) for e in best.edges}
        assert (parents[b][~active[b]] == -1).all()


UNSEEN = "never-seen"


def _with_unknowns(test, rng, n_rows=3):
    """Rows with 1..n_rows values never seen in training (soybean's NaN is a training
    category of its own, so unknown values are made with a new label)."""
    test = test.astype(object).copy()
    for r in range(n_rows + 1):
        cols = rng.choice(test.shape[1], size=r + 1, replace=False)
        for col in cols:
            test.iat[r, col] = UNSEEN
    return test


def known_evidence(row):
    return {k: v for k, v in observed(row).items() if v != UNSEEN}


@pytest.mark.parametrize(
    "est",
    [
        LKDBClassifier(k=1),
        LKDBClassifier(k=2),
        AKDBClassifier(k=1),
        TargetKDBClassifier(k=2),
        TargetKDBClassifier(k=1, smoothing="pseudo-instance-as-printed"),
        TargetKDBClassifier(k=2, measures="pointwise", combine="posterior-average", smoothing="m-estimate"),
        TargetKDBClassifier(k=1, measures="pointwise", combine="posterior-average", smoothing="pseudo-instance"),
    ],
    ids=["lkdb1", "lkdb2", "akdb1", "target2", "target1-printed", "target2-0.2.0", "target1-0.2.0-pseudo"],
)
def test_explained_networks_give_the_model_posterior_through_pgmpy(est, soybean):
    X, y = soybean
    X = X.iloc[:, :9]
    est.fit(X.iloc[:450], y.iloc[:450])
    test = _with_unknowns(X.iloc[450:456], np.random.default_rng(0))
    proba = est.predict_proba(test)
    classes = [str(c) for c in est.classes_]
    for r in range(len(test)):
        expl = est.explain(test.iloc[[r]])
        evidence = known_evidence(test.iloc[r])
        parts = {}
        models = expl.to_pgmpy()
        for name, model in models.items():
            parts[name] = posterior(model, est.class_name_, classes, evidence)
            np.testing.assert_allclose(parts[name], list(expl.posteriors[name].values()), rtol=0, atol=1e-9)
        if isinstance(est, TargetKDBClassifier):
            if est.combine == "own-label":  # P(c, x | kdb_c) = P(x | kdb_c) P(c | x, kdb_c), normalized
                own = [
                    np.exp(log_evidence(models[f"kdb_{c}"], evidence)) * parts[f"kdb_{c}"][y]
                    for y, c in enumerate(classes)
                ]
                kdb_e = np.array(own) / np.sum(own)
            else:
                kdb_e = np.mean([parts[f"kdb_{c}"] for c in classes], axis=0)
            np.testing.assert_allclose(list(expl.posteriors["kdb_e"].values()), kdb_e, rtol=0, atol=1e-9)
            want = (kdb_e + parts["KDB"]) / 2
        elif isinstance(est, AKDBClassifier):
            want = (parts["KDB"] + parts["LKDB"]) / 2
        else:
            want = parts["LKDB"]
        np.testing.assert_allclose(proba[r], want, rtol=0, atol=1e-9)
        assert expl.prediction == est.predict(test.iloc[[r]])[0]


def test_ltan_explained_networks_through_pgmpy(soybean):
    X, y = soybean
    X = X.iloc[:, :10]
    est = LTANClassifier(delta=0.1).fit(X.iloc[:400], y.iloc[:400])
    test = X.iloc[400:].astype(object).copy()
    rec = np.flatnonzero(est.diagnose(test)["reconsidered"])
    assert len(rec) >= 5
    test = test.iloc[rec[:6]].copy()
    test.iat[0, 2] = UNSEEN
    test.iat[1, 0] = UNSEEN
    test.iat[1, 4] = UNSEEN
    proba = est.predict_proba(test)
    classes = [str(c) for c in est.classes_]
    for r in range(len(test)):
        expl = est.explain(test.iloc[[r]])
        assert expl.details["reconsidered"]
        omega = expl.details["omega"]
        keep = np.array([c in omega for c in classes])
        evidence = known_evidence(test.iloc[r])
        models = expl.to_pgmpy()
        gen = posterior(models["TAN (generalist)"], est.class_name_, classes, evidence)
        refined = posterior(models["TAN-IE (refined generalist)"], est.class_name_, classes, evidence)
        refined = np.where(keep, refined, 0) / refined[keep].sum()
        prior = np.exp(est._local.class_log_prior)
        scores = np.zeros(len(classes))
        for c in np.flatnonzero(keep):
            scores[c] = prior[c] * np.exp(log_evidence(models[f"expert {classes[c]}"], evidence))
        expert = scores / scores.sum()
        want = np.where(keep, gen[keep].sum() * (refined + expert) / 2, gen)
        np.testing.assert_allclose(proba[r], want, rtol=0, atol=1e-9)
        np.testing.assert_allclose(list(expl.posteriors["experts (IBMC-CL)"].values()), expert[keep], rtol=0, atol=1e-9)


def test_tan_ie_with_all_labels_kept_is_tan(soybean):
    X, y = soybean
    est = LTANClassifier(delta=1e-300).fit(X.iloc[:500], y.iloc[:500])
    tan = TANClassifier().fit(X.iloc[:500], y.iloc[:500])
    test = X.iloc[500:560]
    parts = est.local_structures(test)
    full = parts["omega"].all(axis=1)
    assert full.sum() > 10
    names = list(X.columns)
    want = [names.index(p[0]) if p[:-1] else -1 for p in (tan.families_[n] for n in names)]
    for r in np.flatnonzero(full):
        assert parts["refined_parents"][r].tolist() == want
    np.testing.assert_allclose(parts["generalist_proba"], tan.predict_proba(test), atol=1e-12)


def test_binary_problem_tan_ie_tree_is_tan_tree(krkp):
    X, y = krkp
    X = X.iloc[:, :15]
    est = LTANClassifier(delta=0.1).fit(X.iloc[:2500], y.iloc[:2500])
    tan = TANClassifier().fit(X.iloc[:2500], y.iloc[:2500])
    parts = est.local_structures(X.iloc[2500:])
    assert parts["reconsidered"].sum() > 5
    names = list(X.columns)
    want = [names.index(tan.families_[n][0]) if len(tan.families_[n]) > 1 else -1 for n in names]
    for r in np.flatnonzero(parts["reconsidered"]):
        assert parts["refined_parents"][r].tolist() == want


@pytest.mark.parametrize(
    "est",
    [
        LKDBClassifier(k=2),
        LTANClassifier(),
        TargetKDBClassifier(),
        TargetKDBClassifier(measures="pointwise", combine="posterior-average", smoothing="m-estimate"),
    ],
    ids=["lkdb", "ltan", "target", "target-0.2.0"],
)
def test_chunked_batches_give_the_same_answers(est, soybean, monkeypatch):
    X, y = soybean
    est.fit(X.iloc[:500], y.iloc[:500])
    test = _with_unknowns(X.iloc[500:], np.random.default_rng(1))
    whole = est.local_structures(test)
    whole_p = est.predict_proba(test)
    monkeypatch.setattr(_config, "CHUNK_CELLS", 1)  # one row per batch
    parts = est.local_structures(test)
    np.testing.assert_allclose(est.predict_proba(test), whole_p, rtol=0, atol=1e-13)
    for key, value in whole.items():
        np.testing.assert_allclose(parts[key], value, rtol=0, atol=1e-13)


@pytest.mark.parametrize("k", [1, 2])
def test_target_kdb_batch_equals_each_row_alone(k, soybean):
    """Brute force: each test row predicted by a call of its own (its micro KDBs built
    and counted for it alone) gives what the batch gives for it, structures and all."""
    X, y = soybean
    est = TargetKDBClassifier(k=k).fit(X.iloc[:450], y.iloc[:450])
    test = _with_unknowns(X.iloc[450:490], np.random.default_rng(3))
    batch = est.local_structures(test)
    proba = est.predict_proba(test)
    for r in range(len(test)):
        alone = est.local_structures(test.iloc[[r]])
        np.testing.assert_array_equal(alone["parents"][0], batch["parents"][r])
        for key in ("micro_proba", "kdb_e_proba", "kdb_proba"):
            np.testing.assert_allclose(alone[key][0], batch[key][r], rtol=0, atol=1e-13, err_msg=key)
        np.testing.assert_allclose(est.predict_proba(test.iloc[[r]])[0], proba[r], rtol=0, atol=1e-13)


def test_diagnostics_follow_the_equations(soybean):
    X, y = soybean
    est = LTANClassifier().fit(X.iloc[:450], y.iloc[:450])
    test, truth = X.iloc[450:], y.iloc[450:].to_numpy()
    diag = est.diagnose(test, truth)
    parts = est.local_structures(test)
    rec = parts["reconsidered"]
    assert diag["n_reconsidered"] == rec.sum() > 0
    assert diag["llp"] == pytest.approx(100 * rec.mean())
    assert diag["r_bar"] == pytest.approx(parts["omega"][rec].sum(1).mean())
    assert diag["r_bar"] >= 2
    gen = est.classes_[parts["generalist_proba"].argmax(1)]
    final = est.predict(test)
    assert diag["cp"] == pytest.approx(100 * np.mean((gen != truth)[rec] & (final == truth)[rec]))
    assert diag["lp"] == pytest.approx(100 * np.mean((gen == truth)[rec] & (final != truth)[rec]))
    a = parts["refined_proba"][rec].argmax(1)
    b = parts["expert_proba"][rec].argmax(1)
    assert diag["kappa"] == pytest.approx(cohen_kappa_score(a, b))
    # rows outside R are answered by the generalist
    np.testing.assert_allclose(est.predict_proba(test)[~rec], parts["generalist_proba"][~rec], rtol=1e-12, atol=1e-15)
    # the final label of a reconsidered row is in Omega'
    assert parts["omega"][np.arange(len(test)), est.predict_proba(test).argmax(1)].all()
    # a label the model never saw (a class missing from a training fold) is wrong for
    # both the generalist and LTAN: it counts towards neither CP nor LP
    unseen = truth.copy()
    unseen[rec.argmax()] = "not-a-class"
    other = est.diagnose(test, unseen)
    assert other["cp"] * rec.sum() <= diag["cp"] * rec.sum()
    assert other["lp"] * rec.sum() <= diag["lp"] * rec.sum()
    with pytest.raises(ValueError, match="must match"):
        est.diagnose(test.iloc[:2], truth[:3])


def test_cohen_kappa_edge_cases():
    assert cohen_kappa([0, 0], [0, 0], 2) == 1.0
    assert np.isnan(cohen_kappa([], [], 2))
    assert cohen_kappa([0, 1, 0, 1], [1, 0, 1, 0], 2) == pytest.approx(-1.0)


def test_registered_names_and_parameters():
    assert isinstance(make_classifier("lkdb"), LKDBClassifier)
    assert isinstance(make_classifier("akdb(k=2)"), AKDBClassifier)
    assert make_classifier("ltan(delta=0.2)").delta == 0.2
    assert make_classifier("targetkdb(k=1)").k == 1
    assert clone(TargetKDBClassifier(smoothing="pseudo-instance")).smoothing == "pseudo-instance"
    X = pd.DataFrame({"a": list("xyxy"), "b": list("uuvv")})
    y = [0, 1, 0, 1]
    with pytest.raises(ValueError, match="delta"):
        LTANClassifier(delta=0).fit(X, y)
    with pytest.raises(ValueError, match="delta"):
        LTANClassifier(delta=1.5).fit(X, y)
    with pytest.raises(ValueError, match="smoothing"):
        TargetKDBClassifier(smoothing="laplace").fit(X, y)
    with pytest.raises(ValueError, match="measures"):
        TargetKDBClassifier(measures="summed").fit(X, y)
    with pytest.raises(ValueError, match="combine"):
        TargetKDBClassifier(combine="vote").fit(X, y)
    paper = TargetKDBClassifier()
    assert (paper.measures, paper.combine, paper.smoothing) == ("weighted", "own-label", "pseudo-instance")
    old = make_classifier("targetkdb(measures='pointwise', combine='posterior-average', smoothing='m-estimate')")
    assert (old.measures, old.combine, old.smoothing) == ("pointwise", "posterior-average", "m-estimate")
    with pytest.raises(ValueError, match="k="):
        LKDBClassifier(k=-1).fit(X, y)


def test_lkdb_has_no_global_network_and_says_so(soybean):
    X, y = soybean
    est = LKDBClassifier().fit(X.iloc[:200, :5], y.iloc[:200])
    with pytest.raises(ValueError, match="explain"):
        est.to_pgmpy()
    with pytest.raises(AttributeError, match="explain"):
        est.dag_
    assert AKDBClassifier().fit(X.iloc[:200, :5], y.iloc[:200]).to_pgmpy() is not None
    with pytest.raises(ValueError, match="one row"):
        est.explain(X.iloc[:2, :5])


def test_explain_accepts_series_and_arrays(soybean):
    X, y = soybean
    est = LKDBClassifier().fit(X.iloc[:200, :5], y.iloc[:200])
    a = est.explain(X.iloc[0, :5])
    b = est.explain(X.iloc[0, :5].to_numpy())
    assert a.proba == b.proba
    assert "LKDB" in str(a)
    assert set(a.parents()["LKDB"]) == set(X.columns[:5])


def test_single_feature_and_two_classes():
    X = pd.DataFrame({"a": list("xyxyxx")})
    y = [0, 1, 0, 1, 1, 0]
    for est in (LKDBClassifier(), AKDBClassifier(), LTANClassifier(), TargetKDBClassifier()):
        p = est.fit(X, y).predict_proba(X)
        np.testing.assert_allclose(p.sum(1), 1)


def test_draw_explanation_marks_departures_and_saves_png(soybean, tmp_path):
    import matplotlib.pyplot as plt

    from bnclf.plot._explanations import draw_explanation

    X, y = soybean
    X = X.iloc[:, :10]
    est = LTANClassifier().fit(X.iloc[:450], y.iloc[:450])
    rec = np.flatnonzero(est.diagnose(X.iloc[450:])["reconsidered"])
    expl = est.explain(X.iloc[[450 + rec[0]]])
    axes = draw_explanation(expl)
    drawn = [ax for ax in axes.flat if ax.get_title()]
    assert len(drawn) == len(expl.networks)
    assert drawn[1].get_title().startswith("TAN-IE")
    # every panel draws parents above children (experts get their own layers), and a legend
    # names the red arcs
    checked = 0
    for ax, net in zip(drawn, expl.networks.values()):
        y_of = {t.get_text(): t.get_position()[1] for t in ax.texts}
        for u, v in net.dag.edges:
            if net.class_name not in (u, v) and u in y_of and v in y_of:
                assert y_of[u] > y_of[v], (ax.get_title(), u, v)
                checked += 1
    assert checked > len(X.columns)
    fig = axes.flat[0].figure
    assert any("does not have" in t.get_text() for legend in fig.legends for t in legend.get_texts())
    for ncols in (None, 1):  # the legend has a band of its own under the panels
        axes = draw_explanation(expl, ncols=ncols)
        fig = axes.flat[0].figure
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legend = fig.legends[0].get_window_extent(renderer)
        lowest = min(p.get_window_extent(renderer).y0 for ax in axes.flat for p in ax.patches if p.get_gid() == "node")
        assert legend.y1 < lowest, ncols
        if ncols is None:
            plt.close(fig)
    fig.savefig(tmp_path / "explain.png")
    plt.close(fig)
    assert (tmp_path / "explain.png").stat().st_size > 10_000
    with pytest.raises(ValueError, match="choose among"):
        draw_explanation(expl, parts=["nope"])


def test_cli_explain(tmp_path, capsys):
    from bnclf.cli._main import main
    from bnclf.datasets import load_dataset

    X, y = load_dataset("iris")
    frame = X.assign(**{"class": y})
    frame.to_csv(tmp_path / "iris.csv", index=False)
    model = str(tmp_path / "m.bnclf")
    assert main(["fit", str(tmp_path / "iris.csv"), "--model", "akdb", "-o", model]) is None
    capsys.readouterr()
    png = tmp_path / "e.png"
    assert main(["explain", model, str(tmp_path / "iris.csv"), "--row", "3", "--plot", str(png)]) is None
    out = capsys.readouterr().out
    assert "[LKDB]" in out and "[KDB]" in out and png.exists()
    assert main(["explain", model, str(tmp_path / "iris.csv"), "--row", "999"]) == 2
    assert "not a row" in capsys.readouterr().err
    tan = str(tmp_path / "t.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "tan", "-o", tan])
    assert main(["explain", tan, str(tmp_path / "iris.csv")]) == 2
    assert "instance-specific" in capsys.readouterr().err
