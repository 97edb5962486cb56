"""Build ``tests/data/weka_aode_reference.csv``: Weka 3.6's AODE and WAODE predictions.

Protocol (a test can regenerate exactly the same inputs):

* data sets: ``kr-vs-kp`` and ``iris`` from ``bnclf.datasets.load_dataset``, ``glass``
  from ``bnclf.datasets.load_table("tests/data/glass.arff")``; class = last attribute;
* folds: ``bnclf.evaluation.make_cv_splits(y, n_splits=10, random_state=0)``
  (stratified 10-fold, one repeat);
* in each fold ``bnclf.MDLDiscretizer()`` is fitted on the training rows only (it
  discretizes the float columns; kr-vs-kp has none and passes through unchanged),
  then transforms the training and the test rows;
* both parts are written with ``bnclf.io.write_arff``: every attribute nominal with
  exactly the categories (and order) of its pandas categorical column, unused ones
  included (Weka's Laplace corrections use the number of *declared* values); the
  class attribute last, declaring every label of the full data set in the file's
  order (glass declares 7 classes, one of them, 'vehic wind non-float', empty);
* Weka: ``java -cp /usr/share/java/weka.jar weka.classifiers.bayes.AODE -t train.arff
  -T test.arff -p 0`` (default options: ``-F 1``, Laplace) and the same with
  ``weka.classifiers.bayes.WAODE`` (no options), see ``benchmarks/weka_runner.py``.

Output columns: ``dataset, fold, row, aode, waode`` — ``row`` is the positional index
of the test row in the full data set, ``aode``/``waode`` Weka's predicted label (text;
empty if Weka predicted "?", which does not happen for these data).

Run from the repository root::

    python benchmarks/make_weka_aode_reference.py            # writes tests/data/...
    python benchmarks/make_weka_aode_reference.py --proba /tmp/weka_aode_proba.csv

``--proba`` also writes Weka's full-precision class distributions
(``distributionForInstance`` via ``weka_runner.time_weka``; needs ``javac``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from weka_runner import AODE, WAODE, run_weka, time_weka, weka_available, weka_version  # noqa: E402

from bnclf import MDLDiscretizer  # noqa: E402
from bnclf.datasets import load_dataset, load_table  # noqa: E402
from bnclf.evaluation._protocols import make_cv_splits  # noqa: E402
from bnclf.io._arff import write_arff  # noqa: E402

OUT = ROOT / "tests" / "data" / "weka_aode_reference.csv"
N_SPLITS = 10
RANDOM_STATE = 0


def load(name: str):
    if name == "glass":
        return load_table(ROOT / "tests" / "data" / "glass.arff")
    return load_dataset(name)


DATASETS = ["kr-vs-kp", "iris", "glass"]


def fold_frames(X: pd.DataFrame, y: pd.Series, split):
    """Discretized training and test frames of one fold, class last (categorical)."""
    X_tr, X_te = X.iloc[split.train], X.iloc[split.test]
    y_tr, y_te = y.iloc[split.train], y.iloc[split.test]
    disc = MDLDiscretizer().fit(X_tr, y_tr)
    D_tr, D_te = disc.transform(X_tr), disc.transform(X_te)
    classes = list(y.cat.categories)
    frames = []
    for D, yy in ((D_tr, y_tr), (D_te, y_te)):
        D = D.reset_index(drop=True)
        D[y.name] = pd.Categorical(yy.astype(object).to_numpy(), categories=classes)
        bad = [c for c in D.columns if not isinstance(D[c].dtype, pd.CategoricalDtype)]
        if bad:
            raise ValueError(f"columns {bad} are not categorical after discretization")
        frames.append(D)
    for c in frames[0].columns:  # same header in both files
        assert list(frames[0][c].cat.categories) == list(frames[1][c].cat.categories), c
    return frames


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument(
        "--proba", type=Path, default=None, help="also write Weka's full-precision distributions to this CSV"
    )
    p.add_argument("--keep-arff", type=Path, default=None, help="keep the fold ARFF files in this directory")
    args = p.parse_args(argv)
    if not weka_available():
        print("Weka is not available (apt-get install weka)", file=sys.stderr)
        return 1
    print(f"Weka {weka_version()}", flush=True)

    rows, proba_rows = [], []
    tmp = tempfile.TemporaryDirectory(prefix="weka-aode-ref-")
    workdir = Path(args.keep_arff) if args.keep_arff else Path(tmp.name)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        for name in DATASETS:
            X, y = load(name)
            splits = make_cv_splits(y, n_splits=N_SPLITS, random_state=RANDOM_STATE)
            n_agree = 0
            for split in splits:
                train, test = fold_frames(X, y, split)
                tr = workdir / f"{name}-fold{split.fold}-train.arff"
                te = workdir / f"{name}-fold{split.fold}-test.arff"
                write_arff(train, tr, relation=name)
                write_arff(test, te, relation=name)
                preds = {}
                for key, cls in (("aode", AODE), ("waode", WAODE)):
                    res = run_weka(cls, tr, te, report_times=False)
                    if len(res["predictions"]) != len(split.test):
                        raise RuntimeError(f"{name} fold {split.fold}: row count mismatch")
                    preds[key] = res["predictions"]
                    if args.proba is not None:
                        jt = time_weka(cls, tr, te, repeats=1)
                        if jt["predictions"] != res["predictions"]:
                            raise RuntimeError(
                                f"{name} fold {split.fold} {key}: in-JVM and command-line predictions differ"
                            )
                        for k, r in enumerate(split.test):
                            for c, label in enumerate(jt["classes"]):
                                proba_rows.append(
                                    (name, split.fold, int(r), key, label, repr(float(jt["distributions"][k, c])))
                                )
                for k, r in enumerate(split.test):
                    a, w = preds["aode"][k], preds["waode"][k]
                    n_agree += a == w
                    rows.append((name, split.fold, int(r), "" if a is None else a, "" if w is None else w))
            n = len(y)
            acc = {
                key: float(np.mean([r[3 + i] == str(y.iloc[r[2]]) for r in rows if r[0] == name]))
                for i, key in enumerate(("aode", "waode"))
            }
            print(
                f"{name}: {n} rows, AODE acc {acc['aode']:.4f}, WAODE acc {acc['waode']:.4f}, "
                f"AODE == WAODE on {n_agree}/{n}",
                flush=True,
            )
    finally:
        tmp.cleanup()

    out = pd.DataFrame(rows, columns=["dataset", "fold", "row", "aode", "waode"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(args.out, index=False)
    print(f"wrote {args.out} ({len(out)} rows)")
    if args.proba is not None:
        pd.DataFrame(proba_rows, columns=["dataset", "fold", "row", "model", "class", "p"]).to_csv(
            args.proba, index=False
        )
        print(f"wrote {args.proba} ({len(proba_rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
