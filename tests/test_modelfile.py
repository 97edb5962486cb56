"""The safe model file: every classifier round-trips exactly; crafted, damaged, foreign
and tampered files are refused by name without running anything."""

import json
import pickle
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from bnclf import MDLDiscretizer, QuantileDiscretizer, make_classifier
from bnclf.io import load_model, save_model
from bnclf.models.registry import CLASSIFIERS

SPECS = sorted(CLASSIFIERS) + ["kdb(k=1, m=0)", "aode(smoothing='weka')", "targetkdb(k=1, smoothing='pseudo-instance')"]


@pytest.mark.parametrize("spec", SPECS)
def test_every_classifier_round_trips(spec, soybean, tmp_path):
    X, y = soybean
    X, y = X.iloc[:300, :8], y.iloc[:300]
    est = make_classifier(spec).fit(X, y)
    path = save_model(est, tmp_path / "m.bnclf")
    assert zipfile.is_zipfile(path)
    back = load_model(path)
    assert type(back) is type(est) and back.get_params() == est.get_params()
    test = X.iloc[:40].astype(object).copy()
    test.iat[0, 1] = "never-seen"
    np.testing.assert_allclose(back.predict_proba(test), est.predict_proba(test), atol=1e-12)
    assert list(back.classes_) == list(est.classes_)


@pytest.mark.parametrize("disc", [MDLDiscretizer(), QuantileDiscretizer(n_bins=3)])
def test_pipelines_and_label_types_round_trip(disc, tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    X = pd.DataFrame(
        {
            "v": rng.normal(y, 1.0),
            "n": rng.integers(0, 3, 200),
            "b": rng.random(200) < 0.5,
            "s": rng.choice(["a", "b", None], 200),
        }
    )
    model = make_pipeline(disc, make_classifier("tan")).fit(X, y)
    back = load_model(save_model(model, tmp_path / "p.bnclf"))
    assert back[0].cut_points_.keys() == model[0].cut_points_.keys()
    np.testing.assert_allclose(back.predict_proba(X), model.predict_proba(X), atol=1e-12)
    assert back[-1].classes_.dtype == model[-1].classes_.dtype
    assert back[-1].categories_ == model[-1].categories_


def test_a_crafted_pickle_is_not_run(tmp_path):
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.bnclf"
    path.write_bytes(pickle.dumps({"format": "bnclf-model/1", "estimator": Evil()}))
    with pytest.raises(ValueError, match="evil.bnclf.*pickle.*trusted=True"):
        load_model(path)
    assert not marker.exists()
    from bnclf.cli import main

    assert main(["predict", str(path), str(path)]) == 2
    assert not marker.exists()


def _rewrite(path, out, edit_json=None, edit_arrays=None):
    import io

    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("model.json"))
        arrays = dict(np.load(io.BytesIO(archive.read("arrays.npz"))))
    if edit_json:
        edit_json(meta)
    if edit_arrays:
        edit_arrays(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("model.json", json.dumps(meta))
        archive.writestr("arrays.npz", buffer.getvalue())
    return out


def test_damaged_foreign_and_tampered_files_are_refused_by_name(soybean, tmp_path):
    X, y = soybean
    path = save_model(make_classifier("tan").fit(X.iloc[:200, :5], y.iloc[:200]), tmp_path / "m.bnclf")
    (tmp_path / "empty.bnclf").write_bytes(b"")
    (tmp_path / "cut.bnclf").write_bytes(path.read_bytes()[:300])
    with zipfile.ZipFile(tmp_path / "foreign.bnclf", "w") as archive:
        archive.writestr("hello.txt", "hi")

    def bump(arrays):
        arrays["cpt_0_0"] = arrays["cpt_0_0"] + 0.1

    def code_class(meta):
        meta["classifier"]["class"] = "os.system"

    cases = {
        "empty.bnclf": "is empty, not a bnclf model file",
        "cut.bnclf": "not a safe bnclf model file|not a readable bnclf model file",
        "foreign.bnclf": "not a readable bnclf model file",
        "tampered.bnclf": "rebuilt model differs",
        "version.bnclf": "model format 'bnclf-safe/99'",
        "class.bnclf": "'os.system' is not a bnclf classifier",
        "codes.bnclf": "training codes do not fit",
    }
    _rewrite(path, tmp_path / "tampered.bnclf", edit_arrays=bump)
    _rewrite(path, tmp_path / "version.bnclf", edit_json=lambda m: m.update(format="bnclf-safe/99"))
    _rewrite(path, tmp_path / "class.bnclf", edit_json=code_class)
    _rewrite(path, tmp_path / "codes.bnclf", edit_arrays=lambda a: a.update(codes=a["codes"] + 100))
    for name, message in cases.items():
        with pytest.raises(ValueError, match=message) as info:
            load_model(tmp_path / name)
        assert name in str(info.value)


def test_pickle_remains_for_trusted_use(soybean, tmp_path):
    X, y = soybean
    est = make_classifier("nb").fit(X.iloc[:100, :4], y.iloc[:100])
    path = save_model(est, tmp_path / "m.pkl", format="pickle")
    np.testing.assert_allclose(
        load_model(path, trusted=True).predict_proba(X.iloc[:5, :4]), est.predict_proba(X.iloc[:5, :4])
    )
    with pytest.raises(ValueError, match="format='zip' is not valid"):
        save_model(est, tmp_path / "x", format="zip")


def test_labels_json_cannot_hold_are_refused_with_the_fix(tmp_path):
    X = pd.DataFrame({"when": [pd.Timestamp("2020-01-01"), pd.Timestamp("2021-01-01")] * 5})
    est = make_classifier("nb").fit(X, [0, 1] * 5)
    with pytest.raises(ValueError, match="format='pickle'"):
        save_model(est, tmp_path / "m.bnclf")
