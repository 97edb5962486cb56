"""AODE and WAODE with smoothing="weka" against Weka 3.6.14's own predictions.

``tests/data/weka_aode_reference.csv`` holds the class Weka 3.6.14
(``weka.classifiers.bayes.AODE`` with default options, and ``WAODE``) predicted for
every test row of stratified 10-fold CV (``make_cv_splits(y, n_splits=10,
random_state=0)``) on kr-vs-kp, iris and glass, each fold discretized by
``MDLDiscretizer`` fitted on its training rows (cut points identical to Weka's).
It was made by ``benchmarks/make_weka_aode_reference.py``; when Weka is installed a
slow test re-runs Weka live on one fold.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnclf import AODEClassifier, MDLDiscretizer, WAODEClassifier
from bnclf.datasets import load_dataset, load_table
from bnclf.evaluation._protocols import make_cv_splits

DATA = Path(__file__).parent / "data"
REFERENCE = pd.read_csv(DATA / "weka_aode_reference.csv", dtype={"aode": str, "waode": str})


def load(name):
    return load_table(DATA / "glass.arff") if name == "glass" else load_dataset(name)


@pytest.fixture(scope="module")
def our_predictions():
    rows = []
    for name in ("kr-vs-kp", "iris", "glass"):
        X, y = load(name)
        for split in make_cv_splits(y, n_splits=10, random_state=0):
            X_tr, X_te, y_tr = X.iloc[split.train], X.iloc[split.test], y.iloc[split.train]
            disc = MDLDiscretizer().fit(X_tr, y_tr)
            D_tr, D_te = disc.transform(X_tr), disc.transform(X_te)
            aode = AODEClassifier(smoothing="weka").fit(D_tr, y_tr).predict(D_te)
            waode = WAODEClassifier(smoothing="weka").fit(D_tr, y_tr).predict(D_te)
            for r, a, w in zip(split.test, aode, waode):
                rows.append((name, split.fold, int(r), str(a), str(w)))
    return pd.DataFrame(rows, columns=["dataset", "fold", "row", "aode_ours", "waode_ours"])


@pytest.mark.parametrize("model", ["aode", "waode"])
@pytest.mark.parametrize("dataset", ["kr-vs-kp", "iris", "glass"])
def test_predictions_equal_weka(our_predictions, model, dataset):
    merged = REFERENCE.merge(our_predictions, on=["dataset", "fold", "row"], validate="1:1")
    part = merged[merged.dataset == dataset]
    assert len(part) == len(load(dataset)[1])
    agreement = np.mean(part[model] == part[f"{model}_ours"])
    assert agreement >= 0.995, f"{dataset} {model}: {agreement:.4f} agreement with Weka"


@pytest.mark.slow
def test_live_weka_on_one_fold(tmp_path):
    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    from make_weka_aode_reference import fold_frames
    from weka_runner import AODE, WAODE, run_weka, weka_available

    from bnclf.io._arff import write_arff

    if not weka_available():
        pytest.skip("Weka is not installed (apt-get install weka)")
    X, y = load("glass")
    split = make_cv_splits(y, n_splits=10, random_state=0)[3]
    train, test = fold_frames(X, y, split)
    write_arff(train, tmp_path / "tr.arff", relation="glass")
    write_arff(test, tmp_path / "te.arff", relation="glass")
    for cls, est in ((AODE, AODEClassifier(smoothing="weka")), (WAODE, WAODEClassifier(smoothing="weka"))):
        weka = run_weka(cls, tmp_path / "tr.arff", tmp_path / "te.arff", report_times=False)
        ours = est.fit(train.iloc[:, :-1], train.iloc[:, -1]).predict(test.iloc[:, :-1])
        assert np.mean(np.array(weka["predictions"]) == ours.astype(str)) >= 0.995
