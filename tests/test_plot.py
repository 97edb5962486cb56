"""Structure drawings are real PNGs of the right graph."""

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
import pytest

from bnclf import NaiveBayesClassifier, TANClassifier
from bnclf.plot import draw_structure, save_structure_png, structure_layout


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
    from bnclf.io import read_networks, write_network

    X, y = krkp
    axes = draw_structure(ATANClassifier().fit(X.iloc[:, :20], y))
    assert sum(bool(ax.get_title()) for ax in axes.flat) == 16
    plt.close("all")
    bmc = ChowLiuMultinetClassifier().fit(X.iloc[:, :6], y)
    model = read_networks(write_network(bmc, tmp_path / "b.bif"))["networks"]["won"]
    from bnclf.plot import _graph_and_class

    assert _graph_and_class(model)[1] is not None  # guessed: the root feature
    assert _graph_and_class(model, class_node=False)[1] is None
    ax = draw_structure(model, class_node=False)
    assert len(ax.collections) >= 1
    plt.close("all")


def test_draw_members_rejects_positions_that_are_not_members(krkp):
    import pytest

    from bnclf import ChowLiuMultinetClassifier
    from bnclf.plot import draw_members

    X, y = krkp
    bmc = ChowLiuMultinetClassifier().fit(X.iloc[:, :4], y)
    for bad in ([5], [], ["won"]):
        with pytest.raises(ValueError, match="members=.*positions in 0..1"):
            draw_members(bmc, members=bad)


def test_large_networks_can_be_drawn_in_part(krkp, tmp_path):
    import matplotlib.pyplot as plt

    from bnclf import KDBClassifier
    from bnclf.plot import draw_structure, select_nodes

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
    from bnclf.cli import main
    from bnclf.datasets import load_dataset

    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    model = str(tmp_path / "m.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "kdb(k=2)", "-o", model])
    png = tmp_path / "p.png"
    assert main(["plot", model, "-o", str(png), "--max-features", "2",
                 "--markov-blanket-only"]) is None
    assert png.stat().st_size > 5000
    assert main(["plot", model, "-o", str(png), "--features", "nope"]) == 2
    assert "not nodes" in capsys.readouterr().err


def test_unrestricted_structure_and_search_trace(krkp, tmp_path):
    from matplotlib.colors import to_hex

    from bnclf import RMCVClassifier
    from bnclf.plot import draw_search_trace

    X, y = krkp
    est = RMCVClassifier(start="empty", random_state=0).fit(X, y)
    outside = set(X.columns) - set(est.markov_blanket_)
    assert outside and list(est.dag_.predecessors(est.class_name_))
    ax = draw_structure(est, title="RMCV")
    n_blanket = len(est.markov_blanket_)
    assert ax.get_title() == f"RMCV\nMarkov blanket: {n_blanket} of {X.shape[1]} features"
    pale = [coll for coll in ax.collections if hasattr(coll, "get_offsets")
            and len(coll.get_facecolor()) and to_hex(coll.get_facecolor()[0]) == "#f4f4f4"]
    assert len(pale) == 1 and len(pale[0].get_offsets()) == len(outside)  # drawn pale
    ax.figure.savefig(tmp_path / "s.png")
    plt.close(ax.figure)
    axes = draw_search_trace(est, title="trace")
    line = axes[0].get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), est.search_trace_["score"])
    axes[0].figure.savefig(tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 5000
    plt.close(axes[0].figure)
    with pytest.raises(TypeError, match="search_trace_"):
        draw_search_trace(TANClassifier().fit(X.iloc[:, :5], y))


def test_cli_plot_trace(tmp_path, capsys):
    from bnclf.cli import main
    from bnclf.datasets import load_dataset

    X, y = load_dataset("iris")
    X.assign(**{"class": y}).to_csv(tmp_path / "iris.csv", index=False)
    model = str(tmp_path / "m.bnclf")
    main(["fit", str(tmp_path / "iris.csv"), "--model", "rmcv(start=empty, random_state=1)",
          "-o", model])
    png = tmp_path / "trace.png"
    assert main(["plot", model, "--trace", "-o", str(png)]) is None
    assert png.stat().st_size > 5000
    main(["fit", str(tmp_path / "iris.csv"), "--model", "nb", "-o", model])
    assert main(["plot", model, "--trace", "-o", str(png)]) == 2
    assert "no structure search" in capsys.readouterr().err
