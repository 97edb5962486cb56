"""``benchmarks/reproduce.py`` (the package ``benchmarks/reproduction``): one command per paper,
its tables, scatter and fold cache.

* The fast tests run the engine on a made-up protocol (two tiny data sets, a task that
  counts its calls): the table holds the published value, ours, the difference and the
  tolerance check; the second run reads every fold from the cache; ``use_cache=False``
  recomputes them; a change of the protocol's version changes every key; an interrupted
  run resumes with the missing folds only. Keys of estimator instances hold no memory
  address (they would never match in another process).
* The slow tests run every paper's quick mode into a temporary folder and check the
  published values the table holds against numbers copied from the papers, "ours" against
  an independent computation for one cell (naive Bayes with scikit-learn's
  ``StratifiedKFold``), the PNG, and that a second run computes no fold.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import reproduction  # noqa: E402
from reproduction import papers as rp  # noqa: E402

from bnclf.evaluation import make_cv_splits  # noqa: E402

CALLS = []


def fake_task(name, X, y, split, *, interrupt_after=None):
    """Classifier "A" scores the share of odd row numbers in the test fold, "B" one minus it."""
    if interrupt_after is not None and len(CALLS) >= interrupt_after:
        raise KeyboardInterrupt
    CALLS.append((name, split.repeat, split.fold))
    odd = float(np.mean(np.asarray(split.test) % 2))
    return {"classifiers": {"A": {"loss": odd}, "B": {"loss": 1 - odd}}}


def fake_aggregate(ds, folds):
    rows = [
        {"classifier": c, "measure": "loss", "ours": float(np.mean([r["classifiers"][c]["loss"] for _, r in folds]))}
        for c in ("A", "B")
    ]
    return pd.DataFrame(rows)


def fake_load(data_dir, n=(40, 60)):
    rng = np.random.RandomState(0)
    datasets = []
    for name, rows in zip(("one", "two"), n):
        X = pd.DataFrame({"x": rng.randint(0, 3, rows)})
        y = pd.Series(np.arange(rows) % 2).astype(str)
        datasets.append(reproduction.Dataset(name, X, y, "made up"))
    return datasets, ["three (no copy)"]


def fake_paper(version="v1", **task_kwargs):
    paper_values = pd.DataFrame(
        [
            ("one", "one", "A", "loss", 0.5),  # ours is 0.5 (half the rows are odd)
            ("one", "one", "B", "loss", 0.1),  # far away
            ("two", "two", "A", "loss", 0.52),  # within the standard error
            ("three", "three", "A", "loss", 0.3),  # a data set that did not run
        ],
        columns=["dataset", "run", "classifier", "measure", "paper"],
    )
    return reproduction.Paper(
        key="fake",
        seed="999",
        title="A made-up paper",
        protocol={"n_splits": 4, "seed": 0},
        protocol_text="4-fold CV.",
        version=version,
        load=fake_load,
        splits=lambda ds: make_cv_splits(ds.y.to_numpy(), n_splits=4, random_state=0),
        task=fake_task,
        task_kwargs=task_kwargs,
        aggregate=fake_aggregate,
        paper_values=paper_values,
        classifiers=["A", "B"],
        measures=["loss"],
    )


def run(paper, out, **kw):
    CALLS.clear()
    return reproduction.run_paper(paper, out, progress=False, log=lambda msg: None, **kw)


def test_table_scatter_and_run_record(tmp_path):
    res = run(fake_paper(), tmp_path)
    folder = tmp_path / "fake"
    assert res.out == folder and res.computed == 8 and res.cached == 0 and len(CALLS) == 8
    table = pd.read_csv(folder / "table.csv")
    assert list(table.columns) == [
        "dataset",
        "classifier",
        "measure",
        "N",
        "paper",
        "ours",
        "diff",
        "SE",
        "tolerance",
        "within",
    ]
    assert set(table["dataset"]) == {"one", "two"}  # "three" did not run
    cell = table.set_index(["dataset", "classifier"])
    assert cell.loc[("one", "A"), "ours"] == pytest.approx(0.5)
    assert cell.loc[("one", "A"), "diff"] == pytest.approx(0.0)
    assert cell.loc[("one", "A"), "within"]
    se = np.sqrt(0.3 * 0.7 / 40)  # p = the mean of ours (0.5) and the paper's (0.1)
    assert cell.loc[("one", "B"), "SE"] == pytest.approx(se, abs=1e-6)
    assert not cell.loc[("one", "B"), "within"]
    assert cell.loc[("two", "A"), "within"]  # 0.5 against 0.52: within sqrt(.51 * .49 / 60) = 0.065
    assert pd.isna(cell.loc[("two", "B"), "paper"]) and pd.isna(cell.loc[("two", "B"), "within"])
    md = (folder / "table.md").read_text(encoding="utf-8")
    assert "**2 of 3 values are within one standard error" in md
    assert "Not run (1): three (no copy)" in md
    assert "| one | 40 | 0.5000 | 0.5000 | +0.0000 ✓ |" in md
    png = (folder / "scatter.png").read_bytes()
    assert png[:4] == b"\x89PNG" and len(png) > 5000
    info = json.loads((folder / "run.json").read_text())
    assert info["computed"] == 8 and info["cached"] == 0 and info["folds"] == 8 and info["fold_seconds"] >= 0


def test_second_run_reads_the_cache_and_no_cache_recomputes(tmp_path):
    first = run(fake_paper(), tmp_path)
    files = sorted((tmp_path / "fake" / "cache").rglob("*.json"))
    assert len(files) == 8
    second = run(fake_paper(), tmp_path)
    assert second.computed == 0 and second.cached == 8 and CALLS == []
    pd.testing.assert_frame_equal(first.table, second.table)
    third = run(fake_paper(), tmp_path, use_cache=False)
    assert third.computed == 8 and len(CALLS) == 8
    assert sorted((tmp_path / "fake" / "cache").rglob("*.json")) == files  # rewritten, same keys


def test_the_key_holds_the_protocol_version_and_the_data(tmp_path):
    run(fake_paper(), tmp_path)
    assert run(fake_paper(version="v2"), tmp_path).computed == 8
    other = fake_paper()
    other.load = partial(fake_load, n=(40, 61))  # data set "two" changes
    res = run(other, tmp_path)
    assert res.computed == 4 and {c[0] for c in CALLS} == {"two"}


def test_an_interrupted_run_resumes(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        run(fake_paper(interrupt_after=3), tmp_path)
    assert len(list((tmp_path / "fake" / "cache").rglob("*.json"))) == 3
    res = run(fake_paper(), tmp_path)
    assert res.computed == 5 and res.cached == 3


def test_keys_of_estimators_are_stable():
    sys.path.insert(0, str(BENCHMARKS))
    from reproduction.papers.long2019 import make_lr

    key = json.dumps(reproduction.spec_key(make_lr(1.0)), sort_keys=True)
    assert "0x" not in key and key == json.dumps(reproduction.spec_key(make_lr(1.0)), sort_keys=True)
    assert "reproduction.papers.long2019._as_str" in key
    assert reproduction.spec_key("kdb(k=2)") == "kdb(k=2)"


def test_aliases():
    assert rp.resolve(["000", "target", "ETAN", "kelner2012"]) == ["sun2017", "duan2019", "long2019", "kelner2012"]
    assert rp.resolve(["all"]) == list(rp.CATALOGUE)
    with pytest.raises(KeyError):
        rp.resolve(["nosuchpaper"])


# --------------------------------------------------------------------------- every paper, quick
def _nb_by_hand(X, y, *, n_splits, n_repeats, metric):
    """Naive Bayes over r x k stratified folds made with scikit-learn directly: repeat r
    shuffles with the r-th draw of RandomState(0), as the protocols do."""
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline

    from bnclf import MDLDiscretizer, NaiveBayesClassifier

    rng = np.random.RandomState(0)
    scores = []
    for _ in range(n_repeats):
        cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=rng.randint(np.iinfo(np.int32).max))
        for tr, te in cv.split(X, y):
            model = make_pipeline(MDLDiscretizer(), NaiveBayesClassifier()).fit(X.iloc[tr], y.iloc[tr])
            wrong = np.mean(np.asarray(model.predict(X.iloc[te])) != y.iloc[te].to_numpy())
            scores.append(wrong if metric == "loss" else 100 * (1 - wrong))
    return float(np.mean(scores))


#: numbers copied from the papers' tables: (data set, classifier, measure) -> value
PUBLISHED = {
    "sun2017": {
        ("Iris", "NB", "zero-one loss"): 0.0867,
        ("Heart-disease-c", "TAN", "zero-one loss"): 0.2079,
        ("Teaching-ae", "AODE", "zero-one loss"): 0.4570,
    },
    "kelner2012": {
        ("Iris", "NBC", "accuracy (%)"): 93.20,
        ("Iris", "RMCV (NBC)", "accuracy (%)"): 93.73,
        ("Cleve", "TAN", "accuracy (%)"): 80.73,
    },
    "long2019": {
        ("Iris", "NB", "bias"): 0.0590,
        ("Iris", "NB", "loss (bias + variance)"): 0.0980,
        ("Heart-Disease-C", "ETAN", "variance"): 0.0591,
    },
    "corani2014": {
        ("emotions", "mNB", "global accuracy"): 0.22,
        ("emotions", "ensemble", "Hamming accuracy"): 0.79,
    },
    "duan2019": {
        ("Heart-disease-c", "KDB(k=2)", "zero-one loss"): 0.2244,
        ("Heart-disease-c", "KDB^e", "zero-one loss"): 0.2079,
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("key", list(PUBLISHED))
def test_quick_mode(key, tmp_path):
    from bnclf.datasets import load_dataset

    paper = rp.make_paper(key, quick=True)
    first = reproduction.run_paper(paper, tmp_path, progress=False)
    folder = tmp_path / key
    for name in ("table.csv", "table.md", "scatter.png", "run.json"):
        assert (folder / name).stat().st_size > 0, name
    assert (folder / "scatter.png").read_bytes()[:4] == b"\x89PNG"
    table = pd.read_csv(folder / "table.csv").set_index(["dataset", "classifier", "measure"])
    for cell, value in PUBLISHED[key].items():
        assert table.loc[cell, "paper"] == pytest.approx(value, abs=1e-9), cell
        assert np.isfinite(table.loc[cell, "ours"]), cell
    if key == "sun2017":
        X, y = load_dataset("iris")
        expected = _nb_by_hand(X, y, n_splits=10, n_repeats=1, metric="loss")
        assert table.loc[("Iris", "NB", "zero-one loss"), "ours"] == pytest.approx(expected, abs=1e-6)
    if key == "kelner2012":
        X, y = load_dataset("iris")
        expected = _nb_by_hand(X, y, n_splits=5, n_repeats=2, metric="accuracy")
        assert table.loc[("Iris", "NBC", "accuracy (%)"), "ours"] == pytest.approx(expected, abs=1e-6)
    assert first.computed > 0 and first.cached == 0
    second = reproduction.run_paper(rp.make_paper(key, quick=True), tmp_path, progress=False)
    assert second.computed == 0 and second.cached == first.computed
    pd.testing.assert_frame_equal(first.table, second.table)
    assert json.loads((folder / "run.json").read_text())["computed"] == 0
