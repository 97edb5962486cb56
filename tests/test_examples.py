"""Every example script runs and writes what it promises."""

import runpy
from pathlib import Path

import matplotlib.pyplot as plt

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_structures_side_by_side(tmp_path):
    runpy.run_path(str(EXAMPLES / "structures_side_by_side.py"))["main"](tmp_path)
    image = plt.imread(tmp_path / "structures_heart-c.png")
    assert image.shape[1] > 2 * image.shape[0]
    assert (tmp_path / "tan_heart-c.bif").exists()


def test_ensembles_and_multinets(tmp_path):
    models = runpy.run_path(str(EXAMPLES / "ensembles_and_multinets.py"))["main"](tmp_path)
    assert len(models) == 9
    for name in ("bmccl", "etan", "watan"):
        image = plt.imread(tmp_path / f"{name}_heart-c.png")
        assert image[..., :3].std() > 0.05
    assert (tmp_path / "bmccl_heart-c.xmlbif.manifest.json").exists()


def test_instance_specific(tmp_path):
    models, explanation = runpy.run_path(str(EXAMPLES / "instance_specific.py"))["main"](tmp_path)
    assert len(models) == 6
    assert explanation.details["reconsidered"]
    image = plt.imread(tmp_path / "ltan_explained.png")
    assert image[..., :3].std() > 0.05
    assert "TAN-IE" in (tmp_path / "ltan_explained.txt").read_text()


def test_explain_a_prediction(tmp_path, capsys):
    model, table = runpy.run_path(str(EXAMPLES / "explain_a_prediction.py"))["main"](tmp_path)
    printed = capsys.readouterr().out
    total, exact = (float(v) for v in printed.split("sum ")[1].split(" = log-odds "))
    assert abs(total - exact) < 1e-12 and exact > 0  # the predicted class beats the true one
    assert table.index[0][1] != table.index[0][2]
    for name in ("explain_heart-c_tan.png", "explain_heart-c_waterfall.png"):
        image = plt.imread(tmp_path / name)
        assert image[..., :3].std() > 0.05


def test_rmcv(tmp_path):
    models = runpy.run_path(str(EXAMPLES / "rmcv.py"))["main"](tmp_path)
    assert len(models) == 8
    for name in ("rmcv_heart-c.png", "rmcv_trace_heart-c.png"):
        image = plt.imread(tmp_path / name)
        assert image[..., :3].std() > 0.05
    assert (tmp_path / "rmcv_heart-c.bif").read_text().startswith("network")


def test_multilabel(tmp_path):
    model, check = runpy.run_path(str(EXAMPLES / "multilabel.py"))["main"](tmp_path)
    assert abs(check["pgmpy"] - check["bnclf"]) < 1e-9
    assert model.treewidth_ >= 2
    for name in ("multilabel_emotions_mnb.png", "multilabel_emotions_classes.png"):
        image = plt.imread(tmp_path / name)
        assert image[..., :3].std() > 0.05
