"""Every example script runs and writes what it promises; what it prints names no folder of
the machine it ran on, and the text of its figures is legible in the documentation's gallery.

The gallery (docs/gallery_hooks.py) shows each PNG an example writes at its own size, scaled
down to the page's content column when wider: pydata-sphinx-theme's column is 720 px wide in a
wide window (624 px in a 1280-px one), so a figure ``w`` inches wide shows text of ``s`` points
at ``s * dpi / 72 * min(1, 720 / (w * dpi))`` pixels, whatever its dpi once it is wider than the
column. Every text a saved figure draws must show at :data:`MIN_PX` pixels or more.
"""

import runpy
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
COLUMN_PX = 720  # the gallery's content column, at most
MIN_PX = 7.0
# Figures that cannot meet MIN_PX at the column's width, with the size their smallest text
# has now (so that they get no smaller) and why. The gallery links every figure to its
# full-size file. None at present: every figure is held to MIN_PX.
KNOWN_SMALL: dict[str, float] = {}


@pytest.fixture
def run_example(tmp_path, capsys, monkeypatch):
    """``run_example(name)``: run ``examples/<name>.py``'s ``main(tmp_path)``, check what it
    printed and the figures it saved, and return what ``main`` returned and what it printed."""
    saved = {}  # PNG file name -> smallest text it drew, in pixels of the gallery's page
    savefig, draw_text = Figure.savefig, Text.draw

    def recording_savefig(fig, fname, *args, **kwargs):
        sizes = []

        def draw(text, renderer):
            if text.get_visible() and text.get_text().strip():
                sizes.append(renderer.points_to_pixels(text.get_fontsize()))
            return draw_text(text, renderer)

        monkeypatch.setattr(Text, "draw", draw)
        try:
            savefig(fig, fname, *args, **kwargs)
        finally:
            monkeypatch.setattr(Text, "draw", draw_text)
        if isinstance(fname, (str, Path)) and Path(fname).suffix == ".png":
            width = plt.imread(fname).shape[1]
            saved[Path(fname).name] = min(sizes, default=float("inf")) * min(1.0, COLUMN_PX / width)

    monkeypatch.setattr(Figure, "savefig", recording_savefig)

    def run(name):
        result = runpy.run_path(str(EXAMPLES / f"{name}.py"))["main"](tmp_path)
        printed = capsys.readouterr().out
        for folder in {str(tmp_path), str(tmp_path.resolve()), str(EXAMPLES.parent)}:
            assert folder not in printed, f"{name} printed the path {folder}"
        assert saved, f"{name} saved no figure"
        for file, smallest in saved.items():
            floor = KNOWN_SMALL.get(file, MIN_PX)
            assert smallest >= floor, f"{file}: text {smallest:.1f} px high on the gallery's page (< {floor})"
        return result, printed

    return run


def test_structures_side_by_side(tmp_path, run_example):
    run_example("structures_side_by_side")
    for name in ("nb", "tan", "kdb"):
        image = plt.imread(tmp_path / f"{name}_heart-c.png")
        assert image[..., :3].std() > 0.05
        assert image.shape[1] <= COLUMN_PX  # drawn at full size on the gallery's page
    assert (tmp_path / "tan_heart-c.bif").exists()


def test_ensembles_and_multinets(tmp_path, run_example):
    models, _ = run_example("ensembles_and_multinets")
    assert len(models) == 9
    for name in ("bmccl", "etan", "watan"):
        image = plt.imread(tmp_path / f"{name}_heart-c.png")
        assert image[..., :3].std() > 0.05
    assert (tmp_path / "bmccl_heart-c.xmlbif.manifest.json").exists()


def test_instance_specific(tmp_path, run_example):
    (models, explanation), _ = run_example("instance_specific")
    assert len(models) == 6
    assert explanation.details["reconsidered"]
    image = plt.imread(tmp_path / "ltan_explained.png")
    assert image[..., :3].std() > 0.05
    assert "TAN-IE" in (tmp_path / "ltan_explained.txt").read_text()


def test_explain_a_prediction(tmp_path, run_example):
    (model, table), printed = run_example("explain_a_prediction")
    total, exact = (float(v) for v in printed.split("sum ")[1].split(" = log-odds "))
    assert abs(total - exact) < 1e-12 and exact > 0  # the predicted class beats the true one
    assert table.index[0][1] != table.index[0][2]
    for name in ("explain_heart-c_tan.png", "explain_heart-c_waterfall.png"):
        image = plt.imread(tmp_path / name)
        assert image[..., :3].std() > 0.05


def test_rmcv(tmp_path, run_example):
    models, _ = run_example("rmcv")
    assert len(models) == 8
    for name in ("rmcv_heart-c.png", "rmcv_trace_heart-c.png"):
        image = plt.imread(tmp_path / name)
        assert image[..., :3].std() > 0.05
    assert (tmp_path / "rmcv_heart-c.bif").read_text().startswith("network")


def test_multilabel(tmp_path, run_example):
    (model, check), _ = run_example("multilabel")
    assert abs(check["pgmpy"] - check["bnclf"]) < 1e-9
    assert model.treewidth_ >= 2
    for name in ("multilabel_emotions_mnb.png", "multilabel_emotions_classes.png"):
        image = plt.imread(tmp_path / name)
        assert image[..., :3].std() > 0.05
