"""Drawings of multilabel networks: the arcs drawn are the model's, nodes are labelled and not crossed."""

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from bnclf.models._multilabel import MultilabelBNClassifier, MultilabelBNEnsemble  # noqa: E402
from bnclf.plot._multilabel import BRIDGE_COLOR, CLASS_ARC_COLOR, MORAL_COLOR, PALE_FILL, draw_multilabel


def synthetic(n_rows=300, n_labels=4, n_features=8, seed=0, names=None):
    """Correlated labels; feature j depends on labels j and j+2 (3 states); the last feature is noise."""
    rng = np.random.default_rng(seed)
    Y = np.zeros((n_rows, n_labels), dtype=int)
    Y[:, 0] = rng.random(n_rows) < 0.5
    for i in range(1, n_labels):
        flip = rng.random(n_rows) < 0.25
        Y[:, i] = np.where(flip, rng.random(n_rows) < 0.3, Y[:, i - 1])
    X = np.empty((n_rows, n_features), dtype=object)
    for j in range(n_features):
        a, b = j % n_labels, (j + 2) % n_labels
        signal = Y[:, a] + Y[:, b] * (j % 2)
        noise = rng.integers(0, 3, n_rows)
        keep = rng.random(n_rows) < (0.0 if j == n_features - 1 else 0.7)
        X[:, j] = np.where(keep, signal, noise).astype(str)
    columns = names or [f"f{j}" for j in range(n_features)]
    return pd.DataFrame(X, columns=columns), pd.DataFrame(Y, columns=[f"L{i}" for i in range(n_labels)])


@pytest.fixture(scope="module")
def data():
    return synthetic()


@pytest.fixture(scope="module", params=["nb", "fan"])
def model(request, data):
    X, Y = data
    return MultilabelBNClassifier(class_graph=request.param, feature_selection=None).fit(X, Y)


def arrows(fig, color):
    rgb = np.array(to_rgb(color))
    return [
        p
        for ax in fig.axes
        for p in ax.patches
        if isinstance(p, FancyArrowPatch) and np.allclose(p.get_edgecolor()[:3], rgb)
    ]


def class_edges(model, dag=None):
    labels = set(model.label_names_)
    return [(u, v) for u, v in (dag if dag is not None else model.dag_).edges if u in labels and v in labels]


def texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def boxes(fig):
    """Node boxes by their text: (x0, x1, y0, y1) in data coordinates."""
    ax = fig.axes[0]
    out = {}
    for patch in (p for p in ax.patches if isinstance(p, FancyBboxPatch)):
        x0, y0 = patch.get_x(), patch.get_y()
        x1, y1 = x0 + patch.get_width(), y0 + patch.get_height()
        inside = [t.get_text() for t in ax.texts if x0 < t.get_position()[0] < x1 and y0 < t.get_position()[1] < y1]
        assert len(inside) == 1
        out[inside[0]] = (x0, x1, y0, y1)
    return out


def path_points(arrow, step=0.01):
    """Points along the arrow's drawn path (curves flattened), every ``step`` data units."""
    points = []
    for polygon in arrow.get_path().to_polygons(closed_only=False):
        for a, b in zip(polygon, polygon[1:]):
            n = max(2, int(np.hypot(*(b - a)) / step) + 1)
            points.append(a + np.linspace(0, 1, n)[:, None] * (b - a))
    return np.vstack(points)


def test_arcs_by_colour_are_the_class_subgraph_and_the_bridge(model):
    fig = draw_multilabel(model)
    n_bridge = sum(len(p) for p in model.bridge_parents_.values())
    assert n_bridge > 0 and (model.class_graph == "nb" or len(class_edges(model)) > len(model.label_names_) - 1)
    assert len(arrows(fig, CLASS_ARC_COLOR)) == len(class_edges(model))
    assert len(arrows(fig, BRIDGE_COLOR)) == n_bridge
    assert len(arrows(fig, MORAL_COLOR)) == 0
    blue = arrows(fig, CLASS_ARC_COLOR)[0]
    orange = arrows(fig, BRIDGE_COLOR)[0]
    assert blue.get_linewidth() > 2 * orange.get_linewidth()  # class arcs are the thick ones
    plt.close(fig)


def test_every_node_is_labelled_and_the_title_says_what_it_is(model):
    fig = draw_multilabel(model)
    shown = texts(fig)
    for name in [*model.label_names_, *model.selected_features_]:
        assert shown.count(name) == 1, name
    title = fig.axes[0].get_title()
    kind = "mFAN" if model.class_graph == "fan" else "mNB"
    assert kind in title and f"root: {model.root_}" in title
    assert f"{len(model.selected_features_)} selected features" in title and f"treewidth {model.treewidth_}" in title
    plt.close(fig)


def test_root_is_highlighted_and_parentless_features_are_pale(model):
    fig = draw_multilabel(model)
    ax = fig.axes[0]
    by_text = boxes(fig)
    face = {
        name: next(
            p
            for p in ax.patches
            if isinstance(p, FancyBboxPatch)
            and (p.get_x(), p.get_x() + p.get_width(), p.get_y(), p.get_y() + p.get_height()) == box
        ).get_facecolor()[:3]
        for name, box in by_text.items()
    }
    assert np.allclose(face[model.root_], to_rgb("#d62728"))
    assert all(not np.allclose(face[c], to_rgb("#d62728")) for c in model.label_names_ if c != model.root_)
    parentless = [f for f, p in model.bridge_parents_.items() if not p]
    assert parentless  # the noise feature
    for f in model.selected_features_:
        assert np.allclose(face[f], to_rgb(PALE_FILL)) == (f in parentless)
    plt.close(fig)


def test_classes_on_top_and_no_arc_crosses_a_node(model):
    fig = draw_multilabel(model)
    by_text = boxes(fig)
    class_bottom = min(by_text[c][2] for c in model.label_names_)
    class_top = max(by_text[c][3] for c in model.label_names_)
    assert all(by_text[f][3] < class_bottom for f in model.selected_features_)
    assert len({by_text[c][2] for c in model.label_names_}) == 1  # one row
    tol = 0.02
    for arrow in arrows(fig, CLASS_ARC_COLOR) + arrows(fig, BRIDGE_COLOR):
        pts = path_points(arrow)
        for x0, x1, y0, y1 in by_text.values():
            inside = (pts[:, 0] > x0 + tol) & (pts[:, 0] < x1 - tol) & (pts[:, 1] > y0 + tol) & (pts[:, 1] < y1 - tol)
            assert not inside.any()
    for arrow in arrows(fig, CLASS_ARC_COLOR):  # bowed above the row
        assert path_points(arrow)[:, 1].min() >= class_top - tol
    plt.close(fig)


def test_features_and_max_features_restrict_the_drawing(model):
    chosen = ["f1", "f4", "f6"]
    fig = draw_multilabel(model, features=chosen)
    shown = set(texts(fig))
    assert shown >= set(chosen) and not shown & (set(model.selected_features_) - set(chosen))
    assert len(arrows(fig, BRIDGE_COLOR)) == sum(len(model.bridge_parents_[f]) for f in chosen)
    assert "3 of 8 features shown" in fig.axes[0].get_title()
    plt.close(fig)

    order = sorted(
        model.selected_features_, key=lambda f: (-len(model.bridge_parents_[f]), model.selected_features_.index(f))
    )
    fig = draw_multilabel(model, max_features=3)
    shown = set(texts(fig))
    assert shown & set(model.selected_features_) == set(order[:3])
    assert len(arrows(fig, BRIDGE_COLOR)) == sum(len(model.bridge_parents_[f]) for f in order[:3])
    plt.close(fig)

    fig = draw_multilabel(model, features=chosen, max_features=1)
    best = max(chosen, key=lambda f: (len(model.bridge_parents_[f]), -chosen.index(f)))
    assert set(texts(fig)) & set(model.selected_features_) == {best}
    plt.close(fig)


def test_label_only_draws_the_moral_edges_and_the_treewidth(model):
    pairs = {frozenset(p) for parents in model.bridge_parents_.values() for p in itertools.combinations(parents, 2)}
    assert pairs
    fig = draw_multilabel(model, label_only=True)
    assert len(arrows(fig, MORAL_COLOR)) == len(pairs)
    assert all(a.get_linestyle() == "--" for a in arrows(fig, MORAL_COLOR))
    assert len(arrows(fig, CLASS_ARC_COLOR)) == len(class_edges(model))
    assert len(arrows(fig, BRIDGE_COLOR)) == 0
    assert f"treewidth {model.treewidth_}" in fig.axes[0].get_title()
    shown = texts(fig)
    assert all(c in shown for c in model.label_names_)
    assert not set(shown) & set(model.selected_features_)
    plt.close(fig)

    # moral edges among the features drawn only
    some = model.selected_features_[:2]
    sub = {frozenset(p) for f in some for p in itertools.combinations(model.bridge_parents_[f], 2)}
    fig = draw_multilabel(model, label_only=True, features=some)
    assert len(arrows(fig, MORAL_COLOR)) == len(sub)
    plt.close(fig)


def test_saved_png_is_a_real_image(tmp_path, model):
    fig = draw_multilabel(model)
    path = tmp_path / "multilabel.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    assert path.stat().st_size > 5000
    image = plt.imread(path)
    assert image.shape[0] > 200 and image.shape[1] > 300
    assert image[..., :3].std() > 0.05


def test_draws_on_a_given_axes(model):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    assert draw_multilabel(model, ax=axes[1], title="mine") is fig
    assert axes[1].get_title() == "mine" and len(arrows(fig, CLASS_ARC_COLOR)) == len(class_edges(model))
    assert not axes[0].patches
    plt.close(fig)


def test_ensemble_draws_a_panel_per_member(data):
    X, Y = data
    ens = MultilabelBNEnsemble(feature_selection=None).fit(X, Y)
    fig = draw_multilabel(ens)
    assert len(fig.axes) == len(ens.networks_) == 4
    for ax, net, root in zip(fig.axes, ens.networks_, ens.label_names_):
        blue = [
            p
            for p in ax.patches
            if isinstance(p, FancyArrowPatch) and np.allclose(p.get_edgecolor()[:3], to_rgb(CLASS_ARC_COLOR))
        ]
        assert len(blue) == len(class_edges(ens, net.dag))
        assert root in ax.get_title()
    assert "BN ensemble" in fig.texts[0].get_text()
    plt.close(fig)
    with pytest.raises(ValueError, match="panel per member"):
        draw_multilabel(ens, ax=plt.gca())
    plt.close("all")


def test_more_members_than_panels_say_so():
    X, Y = synthetic(n_labels=6, n_features=7, seed=1)
    ens = MultilabelBNEnsemble(feature_selection=None).fit(X, Y)
    fig = draw_multilabel(ens, label_only=True)
    assert len(fig.axes) == 4
    assert any("First 4 of 6 members shown" in t for t in texts(fig))
    plt.close(fig)


def test_long_names_are_shortened_distinctly_with_a_note():
    names = [f"Mean_Acc1298_{kind}_Mem40_MFCC_{j}" for j in range(3) for kind in ("Mean", "Std")]
    names += ["a_name_that_is_far_too_long_to_fit_1", "BH$_x$"]
    X, Y = synthetic(n_features=len(names), names=names)
    model = MultilabelBNClassifier(feature_selection=None).fit(X, Y)
    fig = draw_multilabel(model)
    shown = texts(fig)
    labels = [t for t in shown if t not in model.label_names_][: len(names)]
    assert len(set(labels)) == len(names)
    assert all(len(t.replace("\\$", "$")) <= 18 for t in labels)
    assert "Mean…Std…MFCC_0" in shown and r"BH\$_x\$" in shown
    note = " ".join(shown)
    assert "Acc1298" in note and "a_name_that_is_far_too_long_to_fit_1" in note
    plt.close(fig)


def test_bad_arguments_are_explained(model):
    with pytest.raises(ValueError, match="not selected features"):
        draw_multilabel(model, features=["nope"])
    with pytest.raises(ValueError, match="max_features"):
        draw_multilabel(model, max_features=0)
    with pytest.raises(TypeError, match="fit"):
        draw_multilabel(MultilabelBNClassifier())
    with pytest.raises(TypeError, match="draw_structure"):
        draw_multilabel(object())


@pytest.fixture(scope="module")
def wide():
    """Six hyphenated class names and 45 long feature names (like emotions): one row of them is wider than a page."""
    names = [f"Mean_Acc1298_{kind}_Mem40_MFCC_{j}" for j in range(15) for kind in ("Mean", "Std", "Max")]
    X, Y = synthetic(n_rows=400, n_labels=6, n_features=len(names), names=names)
    Y.columns = ["amazed-suprised", "happy-pleased", "relaxing-calm", "quiet-still", "sad-lonely", "angry-aggresive"]
    return MultilabelBNClassifier(feature_selection=None).fit(X, Y)


def fonts(fig):
    return [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


@pytest.mark.parametrize("label_only", [False, True])
def test_a_wide_network_is_laid_out_within_max_width(wide, label_only):
    fig = draw_multilabel(wide, label_only=label_only)
    width = fig.get_figwidth()
    assert width <= 9.0
    # shown at a 720-pixel column, the smallest text is 7 pixels or more
    assert min(fonts(fig)) / 72 * 720 / width >= 7.0
    shown = [t.replace("\n", "") for t in texts(fig)]
    for name in wide.label_names_:  # the names that do not fit one line are broken at their hyphen
        assert shown.count(name) == 1, name
    assert "amazed-\nsuprised" in texts(fig)
    if not label_only:
        by_text = boxes(fig)
        rows = {by_text[f][2] for f in by_text if f not in wide.label_names_}
        assert len(rows) > 3  # features in more rows, not a wider figure
        tol = 0.02
        for arrow in arrows(fig, BRIDGE_COLOR):
            pts = path_points(arrow)
            for x0, x1, y0, y1 in by_text.values():
                inside = (
                    (pts[:, 0] > x0 + tol) & (pts[:, 0] < x1 - tol) & (pts[:, 1] > y0 + tol) & (pts[:, 1] < y1 - tol)
                )
                assert not inside.any()
    plt.close(fig)


def test_max_width_none_is_no_limit(wide):
    fig = draw_multilabel(wide, max_width=None)
    assert fig.get_figwidth() > 12  # one line of classes at 11 points, features in wide rows
    assert "amazed-suprised" in texts(fig)
    plt.close(fig)


def test_a_long_title_is_wrapped_within_the_figure(model):
    title = "a title longer than a drawing of four classes and eight features, " * 2
    fig = draw_multilabel(model, title=title.strip())
    assert fig.get_figwidth() <= 9.0  # widened for the title up to max_width, and the title wrapped
    shown = fig.axes[0].get_title()
    assert "\n" in shown and shown.replace("\n", " ") == title.strip()
    renderer = fig.canvas.get_renderer()
    box = fig.axes[0].title.get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width  # wrapped within the figure
    plt.close(fig)
    for bad in (0, -1.0, True, "9", float("inf")):
        with pytest.raises(ValueError, match="max_width"):
            draw_multilabel(model, max_width=bad)


def test_a_row_of_classes_too_long_for_max_width_widens_the_drawing():
    X, Y = synthetic(n_rows=200, n_labels=12, n_features=6, seed=2)
    Y.columns = [f"label_number_{i}" for i in range(12)]
    model = MultilabelBNClassifier(feature_selection=None).fit(X, Y)
    fig = draw_multilabel(model, label_only=True)
    assert fig.get_figwidth() > 9.0  # at the smallest font, in two lines, and still wider
    shown = texts(fig)
    assert all(f"label_\nnumber_{i}" in shown for i in range(12))
    plt.close(fig)
    fig = draw_multilabel(model, label_only=True, max_width=None)
    assert all(f"label_number_{i}" in texts(fig) for i in range(12))  # one line when there is no limit
    plt.close(fig)
