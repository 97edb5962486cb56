"""The safe model file: every model round-trips bit for bit without refitting, holds its
parameters and not its rows, and a crafted, damaged, foreign or inconsistent file is refused
by name without running anything."""

import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from bnclf import MDLDiscretizer, QuantileDiscretizer, make_classifier
from bnclf.io._models import load_model, save_model
from bnclf.models._registry import CLASSIFIERS

SPECS = sorted(CLASSIFIERS) + [
    "kdb(k=1, m=0)",
    "aode(smoothing='weka')",
    "targetkdb(k=1, smoothing='pseudo-instance')",
    "targetkdb(measures='pointwise', combine='posterior-average', smoothing='m-estimate')",
]


@pytest.mark.parametrize("spec", SPECS)
def test_every_classifier_round_trips_bit_for_bit(spec, soybean, tmp_path):
    X, y = soybean
    X, y = X.iloc[:300, :8], y.iloc[:300]
    est = make_classifier(spec).fit(X, y)
    path = save_model(est, tmp_path / "m.bnclf")
    assert zipfile.is_zipfile(path)
    back = load_model(path)
    assert type(back) is type(est) and back.get_params() == est.get_params()
    test = X.iloc[:40].astype(object).copy()
    test.iat[0, 1] = "never-seen"
    test.iat[1, 2] = None
    np.testing.assert_array_equal(back.predict_proba(test), est.predict_proba(test))
    assert list(back.classes_) == list(est.classes_)
    # parameters, not rows (but for the instance-specific learners, which predict from them)
    assert hasattr(back, "_rows") == spec.startswith(("akdb", "lkdb", "ltan", "targetkdb"))


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
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    assert back[-1].classes_.dtype == model[-1].classes_.dtype
    assert back[-1].categories_ == model[-1].categories_
    for labels in (np.array(["b", "a"])[y % 2], (y % 2).astype(bool), y.astype(float)):
        model = make_classifier("nb").fit(X[["n", "s"]], labels)
        back = load_model(save_model(model, tmp_path / "l.bnclf"))
        assert back.classes_.dtype == model.classes_.dtype and list(back.classes_) == list(model.classes_)
        np.testing.assert_array_equal(back.predict(X[["n", "s"]]), model.predict(X[["n", "s"]]))


def _synthetic(rows, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows)
    X = pd.DataFrame({f"x{j}": rng.integers(0, 3, rows) + (y * (j % 2)) for j in range(10)}).astype("category")
    return X, y


def test_model_files_are_the_size_of_their_parameters_not_of_the_data(tmp_path):
    """The same learners on 2,000 and 20,000 rows of the same data: stored bytes within
    10 %, files within 25 % (instance-specific learners keep their rows and are left out)."""

    small, large = _synthetic(2_000), _synthetic(20_000)
    for spec in ("nb", "tan", "kdb", "aode", "waode", "atan", "bmccl", "etan", "rmcv(n_splits=3)", "hc"):
        models = [make_classifier(spec).fit(*data) for data in (small, large)]
        paths = [save_model(model, tmp_path / f"{k}.bnclf") for k, model in enumerate(models)]
        with zipfile.ZipFile(paths[1]) as archive:  # no array as long as the data
            meta = json.loads(archive.read("model.json"))
            shapes = [
                _at(meta, found)["array"][2] for found in _find(meta, lambda t: isinstance(t, dict) and "array" in t)
            ]
        assert not any(20_000 in shape for shape in shapes), spec
        if spec.startswith(("rmcv", "hc")):  # a searched structure (and its trace) may grow with the data
            continue
        # what is stored (before compression) is the same size; larger counts deflate a
        # little less well, so the files themselves may differ by a few kB
        stored = [sum(info.file_size for info in zipfile.ZipFile(path).infolist()) for path in paths]
        assert stored[1] <= 1.1 * stored[0], (spec, stored)
        sizes = [path.stat().st_size for path in paths]
        assert sizes[1] <= 1.25 * sizes[0], (spec, sizes)


def test_models_fitted_from_chunks_dask_and_partial_fit_save_and_load_bit_for_bit(tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    X, y = _synthetic(3_000)
    y = pd.Series(y, name="label")
    chunks = [(X.iloc[i : i + 700], y.iloc[i : i + 700]) for i in range(0, len(X), 700)]
    frame = dd.from_pandas(X.assign(label=y), npartitions=3)
    partial = make_classifier("nb")
    for part_X, part_y in chunks:
        partial.partial_fit(part_X, part_y, classes=[0, 1])
    models = {
        "chunks": make_classifier("kdb(k=2)").fit_chunks(chunks),
        "dask": make_classifier("tan").fit(frame.drop(columns="label"), frame["label"]),
        "partial_fit": partial,
        "refit": make_classifier("tan").fit(X.iloc[:1000], y.iloc[:1000]).refit_parameters(X, y, add=True),
    }
    for name, model in models.items():
        back = load_model(save_model(model, tmp_path / f"{name}.bnclf"))
        np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X), err_msg=name)
        if name == "partial_fit":  # it continues from the counts it was saved with
            more = X.iloc[:500].assign(x0=pd.Categorical([None] * 500, categories=X["x0"].cat.categories))
            a = back.partial_fit(more, y.iloc[:500])
            b = model.partial_fit(more, y.iloc[:500])
            np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_files_of_the_first_format_are_read_by_refitting_their_rows():
    """Files written by bnclf before model files held parameters (stored rows, refitted on
    load): read, and predicting what the bnclf that wrote them predicted."""
    from bnclf.datasets import load_dataset, load_multilabel_dataset

    here = Path(__file__).parent / "data" / "model_v1"
    expected = json.loads((here / "expected.json").read_text())
    X, _ = load_dataset("soybean")
    rng = np.random.default_rng(0)
    yy = rng.integers(0, 3, 150)
    Xn = pd.DataFrame({"v": rng.normal(yy, 1.0), "s": rng.choice(["a", "b", None], 150)})
    Xm, _ = load_multilabel_dataset("emotions")
    rows = {"tan": X.iloc[:30, :6], "rmcv": X.iloc[:30, :6], "ltan": X.iloc[:30, :6], "mdl_nb": Xn.iloc[:30]}
    rows.update(mnb=Xm.iloc[:30, :8], ecc=Xm.iloc[:30, :8])
    for name, test in rows.items():
        model = load_model(here / f"{name}.bnclf")
        np.testing.assert_allclose(np.asarray(model.predict_proba(test)), expected[name], atol=1e-12, err_msg=name)


def test_target_kdb_saved_before_its_reading_parameters_loads_with_the_reading_it_was_fitted_with(soybean, tmp_path):
    """A TargetKDB saved by bnclf 0.2.0 (no ``measures`` or ``combine``: the pointwise
    measures and the posterior average) predicts what it predicted then, and says so in
    its parameters; so does a pickle of one."""
    here = Path(__file__).parent / "data" / "model_v2"
    expected = json.loads((here / "expected.json").read_text())["targetkdb_0.2.0"]
    X, y = soybean
    X, y = X.iloc[:150, :7], y.iloc[:150]
    test = X.iloc[:30].astype(object).copy()
    test.iat[0, 1] = None
    model = load_model(here / "targetkdb_0.2.0.bnclf")
    params = model.get_params()
    assert (params["measures"], params["combine"], params["smoothing"]) == (
        "pointwise",
        "posterior-average",
        "m-estimate",
    )
    np.testing.assert_allclose(model.predict_proba(test), expected, rtol=0, atol=1e-12)
    # refitting with those parameters gives the same model; the new default differs
    again = make_classifier("targetkdb").set_params(measures="pointwise", combine="posterior-average")
    again.set_params(smoothing="m-estimate").fit(X, y)
    np.testing.assert_allclose(again.predict_proba(test), expected, rtol=0, atol=1e-12)
    assert np.abs(make_classifier("targetkdb").fit(X, y).predict_proba(test) - expected).max() > 1e-3
    # a pickle's state without the two parameters
    state = again.__getstate__()
    del state["measures"], state["combine"]
    old = type(again).__new__(type(again))
    old.__setstate__(state)
    assert (old.measures, old.combine) == ("pointwise", "posterior-average")
    np.testing.assert_array_equal(old.predict_proba(test), again.predict_proba(test))
    back = load_model(save_model(model, tmp_path / "again.bnclf"))
    assert back.get_params() == params


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
    from bnclf.cli._main import main

    assert main(["predict", str(path), str(path)]) == 2
    assert not marker.exists()


def _rewrite(path, out, edit_json=None, edit_arrays=None, raw_members=None):
    """A copy of the model file ``path`` at ``out`` with ``model.json`` and the arrays edited."""
    import io

    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("model.json"))
        names = sorted((n for n in archive.namelist() if n.startswith("arrays/")), key=lambda n: int(n[7:-4]))
        arrays = [np.load(io.BytesIO(archive.read(n))) for n in names]
    if edit_json:
        edit_json(meta)
    if edit_arrays:
        edit_arrays(arrays)
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("model.json", json.dumps(meta))
        for k, array in enumerate(arrays):
            if f"arrays/{k}.npy" not in (raw_members or {}):
                buffer = io.BytesIO()
                np.save(buffer, array)
                archive.writestr(f"arrays/{k}.npy", buffer.getvalue())
        for name, data in (raw_members or {}).items():
            archive.writestr(name, data)
    return out


def _find(tree, test, path=()):
    """Paths (key sequences) of the entries of a model.json tree for which ``test`` holds."""
    if test(tree):
        yield path
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _find(value, test, path + (key,))
    elif isinstance(tree, list):
        for k, value in enumerate(tree):
            yield from _find(value, test, path + (k,))


def _at(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def _state_entry(meta, name):
    """The JSON entry of the attribute ``name`` in the first object state that has it."""
    for path in _find(meta, lambda t: isinstance(t, list) and len(t) == 2 and t[0] == name):
        return _at(meta, path)
    raise KeyError(name)


def test_damaged_foreign_and_inconsistent_files_are_refused_by_name(soybean, tmp_path):
    X, y = soybean
    model = make_pipeline(MDLDiscretizer(), make_classifier("tan"))
    informative = pd.Series(y.iloc[:200].cat.codes.to_numpy() * 2.0, index=X.index[:200])
    Xd = X.iloc[:200, :5].assign(num=informative + np.random.default_rng(0).normal(scale=0.1, size=200))
    path = save_model(model.fit(Xd, y.iloc[:200]), tmp_path / "m.bnclf")
    lkdb = save_model(make_classifier("lkdb").fit(X.iloc[:200, :5], y.iloc[:200]), tmp_path / "lkdb.bnclf")
    (tmp_path / "empty.bnclf").write_bytes(b"")
    (tmp_path / "cut.bnclf").write_bytes(path.read_bytes()[:300])
    with zipfile.ZipFile(tmp_path / "foreign.bnclf", "w") as archive:
        archive.writestr("hello.txt", "hi")

    meta = json.loads(zipfile.ZipFile(path).read("model.json"))
    cpt = _state_entry(meta, "log_cpts")[1][0]["array"]  # [member, offset, shape] of the first log-CPT

    def edit_region(reference, change):
        def edit(arrays):
            member, offset, shape = reference
            size = int(np.prod(shape))
            region = arrays[member][offset : offset + size].reshape(shape)
            arrays[member] = arrays[member].copy()
            arrays[member][offset : offset + size] = change(region).ravel()

        return edit

    def shorter_cpt(meta):  # the first log-CPT declared one value short
        _state_entry(meta, "log_cpts")[1][0]["array"][2][0] -= 1

    def code_class(meta):
        next(iter(_find(meta, lambda t: isinstance(t, dict) and str(t.get("object", "")).endswith("TANClassifier"))))
        for found in _find(meta, lambda t: isinstance(t, dict) and str(t.get("object", "")).endswith("TANClassifier")):
            _at(meta, found)["object"] = "os.system"

    def repeat_state(meta):
        categories = _state_entry(meta, "categories_")[1]
        categories[0][1] = categories[0][0]

    cuts = _state_entry(meta, "cut_points_")[1]["dict"][0][1]["array"]
    assert model[0].cut_points_["num"].size >= 2

    cases = {
        "empty.bnclf": (None, "is empty, not a bnclf model file"),
        "cut.bnclf": (None, "not a safe bnclf model file|not a readable bnclf model file"),
        "foreign.bnclf": (None, "not a readable bnclf model file"),
        "version.bnclf": (dict(edit_json=lambda m: m.update(format="bnclf-safe/99")), "model format 'bnclf-safe/99'"),
        "class.bnclf": (dict(edit_json=code_class), "'os.system' is not one of bnclf's model classes"),
        "nan.bnclf": (dict(edit_arrays=edit_region(cpt, lambda t: t * np.nan)), "not log-probabilities"),
        "sum.bnclf": (dict(edit_arrays=edit_region(cpt, lambda t: t + 0.1)), "do not sum to one"),
        "shape.bnclf": (dict(edit_json=shorter_cpt), "has shape"),
        "states.bnclf": (dict(edit_json=repeat_state), "repeated states"),
        "cuts.bnclf": (
            dict(edit_arrays=edit_region(cuts, lambda t: t[::-1])),
            "cut points of column 'num' are not finite and increasing",
        ),
    }
    for name, (edit, message) in cases.items():
        if edit is not None:
            _rewrite(path, tmp_path / name, **edit)
        with pytest.raises(ValueError, match=message) as info:
            load_model(tmp_path / name)
        assert name in str(info.value)

    rows = _state_entry(json.loads(zipfile.ZipFile(lkdb).read("model.json")), "codes")[1]["array"]
    assert rows[2] == [200, 5]  # the training rows an instance-specific model keeps
    _rewrite(lkdb, tmp_path / "codes.bnclf", edit_arrays=edit_region(rows, lambda t: t + 100))
    with pytest.raises(ValueError, match="codes.bnclf.*codes do not fit"):
        load_model(tmp_path / "codes.bnclf")
    # an array too large for the memory budget is refused from its header, before it is read
    import io

    buffer = io.BytesIO()
    np.lib.format.write_array_header_2_0(buffer, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)})
    _rewrite(path, tmp_path / "huge.bnclf", raw_members={"arrays/999.npy": buffer.getvalue()})
    with pytest.raises(ValueError, match="huge.bnclf: member 'arrays/999.npy' .* is not referenced by model.json"):
        load_model(tmp_path / "huge.bnclf")

    _rewrite(path, tmp_path / "big.bnclf", raw_members={"arrays/0.npy": buffer.getvalue()})
    with pytest.raises(ValueError, match=r"big.bnclf: arrays/0.npy declares 7.3 TiB of values but holds \d+ bytes"):
        load_model(tmp_path / "big.bnclf")
    import bnclf

    with bnclf.config_context(memory_budget="1K"):
        with pytest.raises(ValueError, match="m.bnclf: its arrays would take .* over the budget of 1024 bytes"):
            load_model(path)


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


def test_batched_cpt_checks_agree_with_one_table_at_a_time():
    import networkx as nx

    from bnclf.network import _acyclic, check_log_cpt, check_log_cpts

    rng = np.random.default_rng(0)
    tables = []
    for shape in [(3,), (2, 4), (5, 3, 2), (4, 1)]:
        p = rng.random(shape) + 0.01
        tables.append(np.log(p / p.sum(axis=0)))
    names = [f"'t{k}'" for k in range(len(tables))]
    check_log_cpts(tables, names)  # valid: no error
    for k, damage in [(1, 0.01), (2, np.nan), (3, np.inf)]:
        broken = [t.copy() for t in tables]
        broken[k].flat[0] += damage
        with pytest.raises(ValueError) as batched:
            check_log_cpts(broken, names)
        with pytest.raises(ValueError) as single:
            check_log_cpt(broken[k], names[k])
        assert str(batched.value) == str(single.value) and names[k] in str(batched.value)
    # acyclicity against networkx on random parent maps
    for seed in range(200):
        r = np.random.default_rng(seed)
        parents = {v: [int(p) for p in r.choice(6, size=r.integers(0, 3), replace=False) if p != v] for v in range(6)}
        graph = nx.DiGraph([(p, v) for v, ps in parents.items() for p in ps])
        graph.add_nodes_from(parents)
        assert _acyclic(parents) == nx.is_directed_acyclic_graph(graph)
