"""Structure drawings are real PNGs of the right graph."""

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from matplotlib.path import Path

from bnclf import NaiveBayesClassifier, TANClassifier
from bnclf.plot._layout import structure_layout
from bnclf.plot._structures import draw_structure, save_structure_png


def test_png_of_a_fitted_tan(tmp_path, krkp):
    X, y = krkp
    est = TANClassifier().fit(X, y)
    path = save_structure_png(est, tmp_path / "tan.png", title="TAN")
    image = plt.imread(path)
    assert image.shape[0] > 300 and image.shape[1] > 300
    assert image[..., :3].std() > 0.05  # something is drawn


def test_layout_puts_the_class_on_top_and_arcs_downward(krkp):
    X, y = krkp
    est = TANClassifier().fit(X, y)
    pos = structure_layout(est.dag_, est.class_name_)
    assert set(pos) == set(est.dag_.nodes)
    assert all(pos[est.class_name_][1] > pos[v][1] for v in X.columns)
    assert all(pos[u][1] > pos[v][1] for u, v in est.dag_.edges)


def test_sixty_features_wrap_into_rows():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, (200, 60))).add_prefix("f")
    est = NaiveBayesClassifier().fit(X, rng.integers(0, 2, 200))
    pos = structure_layout(est.dag_, est.class_name_)
    rows = {y for node, (x, y) in pos.items() if node != est.class_name_}
    assert len(rows) >= 4  # at most ~13 per row
    ax = draw_structure(est)
    assert len(ax.texts) >= 61
    plt.close(ax.figure)


def test_draws_plain_graphs_and_pgmpy_models(krkp):
    X, y = krkp
    est = TANClassifier().fit(X.iloc[:, :8], y)
    fig, axes = plt.subplots(1, 2)
    draw_structure(est.to_pgmpy(), ax=axes[0])
    g = nx.DiGraph([("C", "a"), ("C", "b"), ("a", "b")])
    assert draw_structure(g, ax=axes[1]) is axes[1]
    plt.close(fig)


def test_dollar_signs_are_literal(tmp_path):
    X = pd.DataFrame({"cost_$_per_$_": list("abab"), "a$^$b": list("aabb")})
    est = TANClassifier().fit(X, [0, 1, 1, 0])
    assert save_structure_png(est, tmp_path / "d.png").exists()


def test_multinet_and_ensemble_draw_a_panel_per_member(tmp_path, krkp):
    from bnclf import ChowLiuMultinetClassifier, WATANClassifier

    X, y = krkp
    X = X.iloc[:, :8]
    bmc = ChowLiuMultinetClassifier().fit(X, y)
    axes = draw_structure(bmc)
    titled = [ax.get_title() for ax in axes.flat if ax.get_title()]
    assert titled == [f"class = {c}" for c in bmc.classes_]
    path = save_structure_png(bmc, tmp_path / "bmc.png")
    assert plt.imread(path)[..., :3].std() > 0.05
    plt.close("all")
    axes = draw_structure(WATANClassifier().fit(X, y))
    assert sum(bool(ax.get_title()) for ax in axes.flat) == 8
    assert "root:" in axes.flat[0].get_title() and "w =" in axes.flat[0].get_title()
    plt.close("all")


def test_large_ensembles_draw_sixteen_panels_and_multinet_files_draw_without_a_class(krkp, tmp_path):
    from bnclf import ATANClassifier, ChowLiuMultinetClassifier
    from bnclf.io._networks import read_networks, write_network

    X, y = krkp
    axes = draw_structure(ATANClassifier().fit(X.iloc[:, :20], y))
    assert sum(bool(ax.get_title()) for ax in axes.flat) == 16
    plt.close("all")
    bmc = ChowLiuMultinetClassifier().fit(X.iloc[:, :6], y)
    model = read_networks(write_network(bmc, tmp_path / "b.bif"))["networks"]["won"]
    from bnclf.plot._layout import _graph_and_class

    assert _graph_and_class(model)[1] is not None  # guessed: the root feature
    assert _graph_and_class(model, class_node=False)[1] is None
    ax = draw_structure(model, class_node=False)
    assert len(_node_labels(ax)) == 6 and not _arcs(ax, "class")
    plt.close("all")


def test_panels_share_one_scale_and_each_row_is_as_tall_as_its_drawings(krkp):
    from bnclf import WATANClassifier
    from bnclf.plot._structures import draw_members

    X, y = krkp
    est = WATANClassifier().fit(X.iloc[:, :8], y)
    axes = draw_members(est, ncols=1)
    fig = axes.flat[0].figure
    fig.canvas.draw()
    for ax in axes.flat:  # one inch per layout unit in every panel: labels keep their size
        (x0, _), (x1, _) = ax.transData.transform([(0.0, 0.0), (1.0, 0.0)])
        assert abs((x1 - x0) / fig.dpi - 1) < 0.01, ax.get_title()
    heights = [ax.get_position().height * fig.get_figheight() for ax in axes.flat]
    assert max(heights) - min(heights) > 0.3  # not every row as tall as the tallest drawing
    plt.close(fig)


def test_draw_members_rejects_positions_that_are_not_members(krkp):
    import pytest

    from bnclf import ChowLiuMultinetClassifier
    from bnclf.plot._structures import draw_members

    X, y = krkp
    bmc = ChowLiuMultinetClassifier().fit(X.iloc[:, :4], y)
    for bad in ([5], [], ["won"]):
        with pytest.raises(ValueError, match="members=.*positions in 0..1"):
            draw_members(bmc, members=bad)


def test_aode_s_unused_fallback_is_drawn_only_when_asked_for(krkp):
    import matplotlib.pyplot as plt

    from bnclf import AODEClassifier
    from bnclf.plot._structures import draw_members

    X, y = krkp
    aode = AODEClassifier().fit(X.iloc[:, :4], y)
    assert len(aode.network_members()) == 5 and aode.weights_[-1] == 0
    axes = draw_members(aode)
    titles = [ax.get_title() for ax in axes.flat if ax.get_title()]
    assert len(titles) == 4 and all(t.startswith("super-parent") for t in titles)
    assert "weight 0 not drawn" in axes.flat[0].figure._suptitle.get_text()
    plt.close("all")
    axes = draw_members(aode, members=[4])
    assert [ax.get_title() for ax in axes.flat if ax.get_title()][0].startswith("naive Bayes")
    plt.close("all")


def test_large_networks_can_be_drawn_in_part(krkp, tmp_path):
    import matplotlib.pyplot as plt

    from bnclf import KDBClassifier
    from bnclf.plot._layout import select_nodes
    from bnclf.plot._structures import draw_structure

    X, y = krkp
    est = KDBClassifier(k=2).fit(X, y)
    g = est.dag_
    sub, note = select_nodes(g, "class", max_features=10)
    assert sub.number_of_nodes() == 11 and note == f"10 of {X.shape[1]} features shown"
    degrees = dict(g.subgraph([v for v in g if v != "class"]).degree())
    kept = [v for v in sub if v != "class"]
    assert min(degrees[v] for v in kept) >= max(degrees[v] for v in degrees if v not in kept)
    sub, _ = select_nodes(g, "class", markov_blanket_only=True)
    assert set(sub) - {"class"} <= set(X.columns)
    sub, _ = select_nodes(g, "class", features=list(X.columns[:3]))
    assert set(sub) == set(X.columns[:3]) | {"class"}
    with pytest.raises(ValueError, match="not nodes of the network"):
        select_nodes(g, "class", features=["nope"])
    with pytest.raises(ValueError, match="max_features=0"):
        select_nodes(g, "class", max_features=0)
    ax = draw_structure(est, max_features=12, title="KDB")
    assert ax.get_title() == f"KDB (12 of {X.shape[1]} features shown)"
    plt.close(ax.figure)


def test_cli_plot_options(tmp_path, capsys):
    from bnclf.cli._main import main
    from bnclf.datasets import load_dataset

    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    model = str(tmp_path / "m.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "kdb(k=2)", "-o", model])
    png = tmp_path / "p.png"
    assert main(["plot", model, "-o", str(png), "--max-features", "2", "--markov-blanket-only"]) is None
    assert png.stat().st_size > 5000
    assert main(["plot", model, "-o", str(png), "--features", "nope"]) == 2
    assert "not nodes" in capsys.readouterr().err


def test_unrestricted_structure_and_search_trace(krkp, tmp_path):
    from matplotlib.colors import to_hex

    from bnclf import HillClimbClassifier, RMCVClassifier
    from bnclf.plot._traces import draw_search_trace

    X, y = krkp
    est = RMCVClassifier(start="empty", random_state=0).fit(X, y)
    outside = set(X.columns) - set(est.markov_blanket_)
    assert outside and list(est.dag_.predecessors(est.class_name_))
    ax = draw_structure(est, title="RMCV")
    n_blanket = len(est.markov_blanket_)
    assert ax.get_title() == f"RMCV\nMarkov blanket: {n_blanket} of {X.shape[1]} features"
    pale = [p for p in ax.patches if p.get_gid() == "node" and to_hex(p.get_facecolor()) == "#f4f4f4"]
    assert len(pale) == len(outside)  # drawn pale
    assert len(_arcs(ax, "parent")) == len(list(est.dag_.predecessors(est.class_name_)))
    ax.figure.savefig(tmp_path / "s.png")
    plt.close(ax.figure)
    axes = draw_search_trace(est, title="trace")
    line = axes[0].get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), est.search_trace_["score"])
    assert axes[0].get_ylabel() == "cross-validated 0/1 loss (lower is better)"  # the score is named
    hold_out = RMCVClassifier(variant="holdout", random_state=0).fit(X.iloc[:, :6], y)
    climber = HillClimbClassifier(criterion="k2").fit(X.iloc[:, :6], y)
    for model, name in [(hold_out, "hold-out 0/1 loss"), (climber, "log K2 score")]:
        ax = draw_search_trace(model, ax=plt.figure().gca())
        assert ax.get_ylabel().startswith(name)
        plt.close(ax.figure)
    axes[0].figure.savefig(tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 5000
    plt.close(axes[0].figure)
    with pytest.raises(TypeError, match="search_trace_"):
        draw_search_trace(TANClassifier().fit(X.iloc[:, :5], y))


def test_cli_plot_trace(tmp_path, capsys):
    from bnclf.cli._main import main
    from bnclf.datasets import load_dataset

    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    model = str(tmp_path / "m.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "rmcv(start=empty, random_state=1)", "-o", model])
    png = tmp_path / "trace.png"
    assert main(["plot", model, "--trace", "-o", str(png)]) is None
    assert png.stat().st_size > 5000
    main(["fit", str(tmp_path / "iris.csv"), "--model", "nb", "-o", model])
    assert main(["plot", model, "--trace", "-o", str(png)]) == 2
    assert "no structure search" in capsys.readouterr().err


# -- readable drawings: routed arcs, distinct class arcs, labels that fit ---------------------


def _node_labels(ax):
    return [t for t in ax.texts if t.get_gid() == "node"]


def _arcs(ax, kind=None):
    return [
        p
        for p in ax.patches
        if (p.get_gid() or "").startswith("arc:") and (kind is None or p.get_gid() == f"arc:{kind}")
    ]


def _drawn(ax):
    """After a draw: node boxes and label boxes, and every arc as points along its path (display units)."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    boxes = [p.get_window_extent(renderer) for p in ax.patches if p.get_gid() == "node"]
    labels = [t.get_window_extent(renderer) for t in _node_labels(ax)]
    arcs, t = [], np.linspace(0.0, 1.0, 60)
    for patch in _arcs(ax):
        path = patch.get_transform().transform_path(patch.get_path())  # the line, then its arrow head
        parts = []
        for segment, code in path.iter_bezier():
            if code == Path.MOVETO:
                parts.append([])
            parts[-1].append(segment(t))
        line, head = (np.vstack(part) for part in parts)
        arcs.append((line, head))
    return boxes, labels, arcs


def _inside(points, bbox, margin):
    return (
        (points[:, 0] > bbox.x0 + margin)
        & (points[:, 0] < bbox.x1 - margin)
        & (points[:, 1] > bbox.y0 + margin)
        & (points[:, 1] < bbox.y1 - margin)
    )


def _near(point, bbox, tol=2.0):
    return bbox.x0 - tol <= point[0] <= bbox.x1 + tol and bbox.y0 - tol <= point[1] <= bbox.y1 + tol


def _routed_cases(krkp):
    from bnclf import KDBClassifier

    X, y = krkp
    X = X.iloc[:, :14]
    tan = TANClassifier().fit(X, y)
    parents = nx.DiGraph(
        [("C", "a"), ("C", "b"), ("C", "c"), ("a", "b"), ("d", "C"), ("e", "C"), ("d", "c"), ("b", "c"), ("e", "f")]
    )  # arcs into the class, a feature outside the blanket
    grid = {v: (i % 4, -(i // 4)) for i, v in enumerate(tan.dag_)}  # given positions: arcs up, down, sideways
    return {
        "nb": (NaiveBayesClassifier().fit(X, y), {}),
        "tan": (tan, {}),
        "kdb": (KDBClassifier(k=2).fit(X, y), {}),
        "class parents": (parents, {"class_node": "C"}),
        "given positions": (tan, {"pos": grid}),
    }


@pytest.mark.parametrize("case", ["nb", "tan", "kdb", "class parents", "given positions"])
def test_no_arc_passes_through_a_node(krkp, case):
    model, kwargs = _routed_cases(krkp)[case]
    ax = draw_structure(model, **kwargs)
    boxes, labels, arcs = _drawn(ax)
    assert len(arcs) == (model if isinstance(model, nx.DiGraph) else model.dag_).number_of_edges()
    for label, box in zip(labels, boxes):  # a label fits its box
        assert box.x0 <= label.x0 and label.x1 <= box.x1 and box.y0 <= label.y0 and label.y1 <= box.y1
    for line, head in arcs:
        points = np.vstack([line, head])
        for box, label in zip(boxes, labels):
            assert not _inside(points, box, 1.0).any()  # arcs end on the edge of a box, never inside one
            assert not _inside(points, label, 0.0).any()
        start = [i for i, box in enumerate(boxes) if _near(line[0], box)]
        end = [i for i, box in enumerate(boxes) if any(_near(p, box, 4.0) for p in head)]  # the tip stops
        # short of the end by about a line width, so that the stroked head ends on the edge
        assert len(start) == 1 and len(end) == 1 and start != end  # from the edge of one box to another's
    plt.close(ax.figure)


def test_class_arcs_are_thin_and_grey_and_drawn_under_the_feature_arcs(krkp):
    from matplotlib.colors import to_hex

    from bnclf.plot._layout import CLASS_EDGE_COLOR, CLASS_EDGE_WIDTH, FEATURE_EDGE_COLOR, FEATURE_EDGE_WIDTH

    X, y = krkp
    est = TANClassifier().fit(X.iloc[:, :12], y)
    ax = draw_structure(est)
    ax.figure.canvas.draw()
    class_arcs, feature_arcs = _arcs(ax, "class"), _arcs(ax, "feature")
    assert len(class_arcs) == 12 and len(feature_arcs) == 11
    assert {to_hex(p.get_edgecolor()) for p in class_arcs} == {to_hex(CLASS_EDGE_COLOR)}
    assert {to_hex(p.get_edgecolor()) for p in feature_arcs} == {to_hex(FEATURE_EDGE_COLOR)}
    scale = feature_arcs[0].get_linewidth() / FEATURE_EDGE_WIDTH
    np.testing.assert_allclose([p.get_linewidth() for p in class_arcs], CLASS_EDGE_WIDTH * scale)
    np.testing.assert_allclose([p.get_linewidth() for p in feature_arcs], FEATURE_EDGE_WIDTH * scale)
    assert CLASS_EDGE_WIDTH < FEATURE_EDGE_WIDTH
    assert max(p.get_zorder() for p in class_arcs) < min(p.get_zorder() for p in feature_arcs)
    # the class's arcs fan out from the bottom of its box, on the top row
    _, _, arcs = _drawn(ax)
    class_label = next(t for t in _node_labels(ax) if t.get_text() == est.class_name_)
    class_box = class_label.get_window_extent()
    starts = [line[0] for patch, (line, _) in zip(_arcs(ax), arcs) if patch.get_gid() == "arc:class"]
    assert all(abs(p[1] - starts[0][1]) < 1e-6 and p[1] < class_box.y0 for p in starts)
    assert all(t.get_window_extent().y1 < class_box.y0 for t in _node_labels(ax) if t is not class_label)
    plt.close(ax.figure)


def test_features_max_features_and_markov_blanket_restrict_the_drawn_nodes(krkp):
    from bnclf import KDBClassifier
    from bnclf.plot._layout import model_class_information

    X, y = krkp
    est = KDBClassifier(k=2).fit(X, y)
    ax = draw_structure(est, features=list(X.columns[:5]))
    assert sorted(t.get_text() for t in _node_labels(ax)) == sorted([*X.columns[:5], "class"])
    ax = draw_structure(est, max_features=7)
    assert len(_node_labels(ax)) == 8 and "7 of 36 features shown" in ax.get_title()
    ax = draw_structure(est, max_features=6, rank="mi")
    mi = model_class_information(est)
    top = sorted(mi, key=mi.get, reverse=True)[:6]
    assert sorted(t.get_text() for t in _node_labels(ax) if t.get_text() != "class") == sorted(top)
    assert "mutual information" in ax.get_title()
    g = nx.DiGraph([("C", "a"), ("b", "a"), ("c", "b"), ("C", "d"), ("d", "e")])  # blanket of C: a, b, d
    ax = draw_structure(g, class_node="C", markov_blanket_only=True)
    assert sorted(t.get_text() for t in _node_labels(ax)) == ["C", "a", "b", "d"]
    with pytest.raises(ValueError, match="rank="):
        draw_structure(est, max_features=3, rank="nope")
    with pytest.raises(TypeError, match="rank='mi'"):
        draw_structure(g, class_node="C", max_features=2, rank="mi")
    plt.close("all")


def test_model_class_information_is_the_data_mutual_information_for_naive_bayes(krkp):
    from sklearn.metrics import mutual_info_score

    from bnclf.plot._layout import model_class_information

    X, y = krkp
    X = X.iloc[:, :10]
    for est in (NaiveBayesClassifier().fit(X, y), TANClassifier().fit(X, y)):
        mi = model_class_information(est)
        np.testing.assert_allclose(
            [mi[c] for c in X.columns], [mutual_info_score(X[c], y) for c in X.columns], atol=3e-3
        )  # m-estimates, not frequencies


def test_long_names_are_not_clipped(tmp_path):
    rng = np.random.default_rng(1)
    names = [
        "a_rather_long_name_24chr",
        "serum_cholesterol_level_in_mg_per_decilitre",
        "maximum_heart_rate_achieved_during_the_exercise_test",
        "x",
    ]
    X = pd.DataFrame(rng.integers(0, 3, (300, 4)), columns=names)
    y = (X.iloc[:, 0] + rng.integers(0, 2, 300)) % 2
    est = TANClassifier().fit(X, y.rename("a_class_with_a_long_name_too"))
    ax = draw_structure(est, title="a title that is much longer than the drawing is wide, so it wraps onto lines")
    fig = ax.figure
    fig.canvas.draw()
    figure_box = fig.bbox
    texts = _node_labels(ax) + [ax.title] + [t for t in ax.texts if t.get_gid() != "node"]
    for text in texts:
        box = text.get_window_extent()
        assert figure_box.x0 <= box.x0 and box.x1 <= figure_box.x1, text.get_text()
        assert figure_box.y0 <= box.y0 and box.y1 <= figure_box.y1, text.get_text()
    shown = {t.get_text() for t in _node_labels(ax)}
    assert {"a_rather_long_name_24chr", "x", "a_class_with_a_long_name_too"} <= shown  # 24 characters fit
    notes = " ".join(t.get_text() for t in ax.texts if t.get_gid() != "node")
    for long in names[1:3]:  # longer names are shortened, and the note under the drawing gives them in full
        assert long not in shown and long in notes.replace("\n", "")
    assert all(t.get_fontsize() >= 8 for t in _node_labels(ax))
    path = save_structure_png(est, tmp_path / "long.png")
    assert plt.imread(path).shape[1] > 300
    plt.close("all")


def test_figure_and_fonts_follow_the_graph():
    rng = np.random.default_rng(0)
    sizes = {}
    for d in (6, 60):
        X = pd.DataFrame(rng.integers(0, 2, (200, d))).add_prefix("f")
        ax = draw_structure(NaiveBayesClassifier().fit(X, rng.integers(0, 2, 200)))
        ax.figure.canvas.draw()
        sizes[d] = (ax.figure.get_size_inches(), min(t.get_fontsize() for t in _node_labels(ax)))
        plt.close(ax.figure)
    assert (sizes[60][0] > sizes[6][0]).all()
    assert sizes[6][1] >= sizes[60][1] >= 7.9  # one inch per layout unit: labels keep their size
    fig, axes = plt.subplots(1, 2, figsize=(8, 4))
    X = pd.DataFrame(rng.integers(0, 2, (200, 12))).add_prefix("f")
    draw_structure(TANClassifier().fit(X, rng.integers(0, 2, 200)), ax=axes[0])
    fig.tight_layout()
    fig.canvas.draw()  # on a given Axes, labels scale with the drawing and still fit their boxes
    renderer = fig.canvas.get_renderer()
    boxes = [p.get_window_extent(renderer) for p in axes[0].patches if p.get_gid() == "node"]
    for label, box in zip(_node_labels(axes[0]), boxes):
        extent = label.get_window_extent(renderer)
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1
    plt.close(fig)
