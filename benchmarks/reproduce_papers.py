"""The five seed papers as protocols for ``reproduce.py``: data sets, folds, one fold's work,
our value per classifier, and the published values.

Everything scientific comes from the per-paper scripts: the data set mappings and loaders
(``reproduce_seed000.py``), the classifier sets (``reproduce_instance.py``,
``reproduce_ensembles.py``, ``reproduce_rmcv.py``), the preprocessing (``ImputeThenMDL``),
the multilabel fold (``reproduce_multilabel.run_fold``) and the published tables embedded in
those scripts and in ``tests/data/sun2017_table4.csv``. A fold runs the classifiers through
``bnclf.evaluation.cross_validate_many`` on the very split ``compare`` would make, with the
estimators seeded as ``compare`` seeds them, so a fold's numbers equal those of the scripts.
"""

from __future__ import annotations

import sys
import warnings
from argparse import Namespace
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import reproduce_ensembles as ens  # noqa: E402
import reproduce_instance as ri  # noqa: E402
import reproduce_multilabel as rm  # noqa: E402
import reproduce_rmcv as rr  # noqa: E402
import reproduce_seed000 as r0  # noqa: E402
from reproduce import Dataset, Paper, spec_key  # noqa: E402

from bnclf.evaluation import cross_validate_many, kohavi_wolpert, make_cv_splits, multilabel_cv_splits  # noqa: E402
from bnclf.evaluation._compare import _classifier_items  # noqa: E402

#: key -> (seed number, title, aliases)
CATALOGUE = {
    "sun2017": ("000", "Sun, Wang & Sun (2017), Table 4", ("000", "seed000", "ltan")),
    "kelner2012": ("001", "Kelner & Lerner (2012), Tables 2 and 6", ("001", "seed001", "rmcv")),
    "corani2014": ("002", "Corani, Antonucci, Mauá & Gabaglio (2014), Tables 3-4", ("002", "seed002", "multilabel")),
    "long2019": ("003", "Long, Wang & Sun (2019), ETAN, Tables A2-A3", ("003", "seed003", "etan")),
    "duan2019": (
        "004",
        "Duan, Wang, Mammadov, Lou & Sun (2019), discriminatory target learning",
        ("004", "seed004", "target", "dtl"),
    ),
}

#: Duan et al. (2019), Sec. 4: the per-data-set tables are lost in the text found; the text
#: quotes these zero-one losses (its "Waveform" is not Waveform-5000: its values are far
#: below that generator's Bayes error, see docs/reproduction.md).
DUAN2019_QUOTED = {"Heart-disease-c": {"KDB(k=2)": 0.2244, "KDB^e": 0.2079}}
DUAN2019_WDL = "26/13/3"


def resolve(names: Sequence[str]) -> list[str]:
    """Paper keys for names, seed numbers or aliases (``all`` for every paper).

    Parameters
    ----------
    names : sequence of str

    Returns
    -------
    list of str

    Raises
    ------
    KeyError
        For a name that is none of these.
    """
    lookup = {k: k for k in CATALOGUE}
    for key, (_, _, aliases) in CATALOGUE.items():
        lookup.update(dict.fromkeys(aliases, key))
    keys = []
    for name in names:
        if name.lower() == "all":
            keys += list(CATALOGUE)
        elif name.lower() in lookup:
            keys.append(lookup[name.lower()])
        else:
            raise KeyError(f"unknown paper {name!r}; known: {', '.join(lookup)}, all")
    return list(dict.fromkeys(keys))


# --------------------------------------------------------------------------- single-label folds
def cv_fold(
    name: str,
    X: pd.DataFrame,
    y: pd.Series,
    split,
    *,
    classifiers: dict,
    discretizer,
    seed: int,
    keep_predictions: bool = False,
) -> dict:
    """Every classifier on one split, as ``compare`` runs it; a JSON-able result.

    Parameters
    ----------
    name : str
        The data set (for error messages).
    X, y : data
    split : Split
        The fold (``make_cv_splits`` of the paper's protocol).
    classifiers : dict
        Label -> spec or estimator, seeded with ``seed`` as ``compare`` seeds them.
    discretizer : str or transformer
        Fitted on the training rows of the fold.
    seed : int
    keep_predictions : bool, default=False
        Also keep the predicted labels (as codes into ``np.unique(y)``, in the order of
        ``split.test``), for the bias-variance decomposition over repeats.

    Returns
    -------
    dict
        ``{"classifiers": {label: {"zero_one_loss", "accuracy", "n_train", "n_test",
        "fit_time", "predict_time"[, "y_pred"]}}, "convergence_warnings": int}``.
    """
    from sklearn.exceptions import ConvergenceWarning

    items = _classifier_items(classifiers, seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        cvps = cross_validate_many(
            [est for _, est in items],
            X,
            np.asarray(y),
            splits=[split],
            discretizer=discretizer,
            contexts=[f"{label} on {name}:" for label, _ in items],
        )
    for w in caught:  # the others are shown as usual
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    classes = np.unique(np.asarray(y))
    out = {}
    for (label, _), cvp in zip(items, cvps):
        row = cvp.fold_scores(("zero_one_loss", "accuracy")).iloc[0]
        rec = {k: float(row[k]) for k in ("zero_one_loss", "accuracy", "fit_time", "predict_time")}
        rec.update(n_train=int(row["n_train"]), n_test=int(row["n_test"]))
        if keep_predictions:
            pred = cvp.predictions.sort_values("row")
            assert np.array_equal(pred["row"].to_numpy(), np.sort(split.test))
            rec["y_pred"] = np.searchsorted(classes, pred["y_pred"].to_numpy()).tolist()
        out[label] = rec
    return {
        "classifiers": out,
        "convergence_warnings": sum(issubclass(w.category, ConvergenceWarning) for w in caught),
    }


def mean_over_folds(ds: Dataset, folds: list, *, metric: str, measure: str, scale: float = 1.0) -> pd.DataFrame:
    """Our value: the mean over the folds of a fold metric, per classifier.

    Parameters
    ----------
    ds : Dataset
    folds : list of (Split, dict)
        The results of :func:`cv_fold`.
    metric : str
        ``zero_one_loss`` or ``accuracy``.
    measure : str
        The measure's name in the table.
    scale : float, default=1.0
        100 for percentages.

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier, measure, ours``.
    """
    labels = list(folds[0][1]["classifiers"])
    rows = [
        {
            "classifier": c,
            "measure": measure,
            "ours": scale * float(np.mean([res["classifiers"][c][metric] for _, res in folds])),
        }
        for c in labels
    ]
    return pd.DataFrame(rows)


def bias_variance(ds: Dataset, folds: list) -> pd.DataFrame:
    """Our Kohavi-Wolpert loss, bias and variance per classifier, over the repeats.

    Parameters
    ----------
    ds : Dataset
    folds : list of (Split, dict)
        The results of :func:`cv_fold` with ``keep_predictions=True``; every row is
        predicted once per repeat.

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier, measure, ours`` with the measures ``loss (bias + variance)``,
        ``bias`` and ``variance``.
    """
    y = np.asarray(ds.y)
    classes = np.unique(y)
    repeats = sorted({int(s.repeat) for s, _ in folds})
    rows = []
    for c in folds[0][1]["classifiers"]:
        mat = np.empty((len(repeats), len(y)), dtype=y.dtype)
        for s, res in folds:
            mat[repeats.index(int(s.repeat)), np.sort(s.test)] = classes[res["classifiers"][c]["y_pred"]]
        kw = kohavi_wolpert(y, mat, classes=classes)
        for measure, v in (("loss (bias + variance)", kw.loss), ("bias", kw.bias), ("variance", kw.variance)):
            rows.append({"classifier": c, "measure": measure, "ours": v})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- data
def _load(specs, data_dir, only=None, drop_missing=False):
    """Load (name, loader, source) specs; a data set whose file is absent is skipped."""
    datasets, skipped, seen = [], [], {}
    for name, loader, source in specs:
        if only is not None and name not in only:
            continue
        if loader is None:
            skipped.append(f"{name} (no copy)")
            continue
        if source in seen:  # the same data under two names (Diabetes, Pima): run once
            continue
        try:
            X, y = loader(data_dir)
        except r0.Missing as exc:
            skipped.append(f"{name} ({exc} not in --data)")
            continue
        except (ImportError, OSError) as exc:
            skipped.append(f"{name} ({type(exc).__name__}: {exc})")
            continue
        if " (else " in source:  # "uci/breast-w.arff (else keel:wisconsin, 683 rows)": which one loaded
            first, other = source.split(" (else ")
            found = data_dir is not None and (Path(data_dir) / first.removeprefix("uci/")).exists()
            source = first if found else other.split(",")[0]
        if drop_missing:
            keep = ~X.isna().any(axis=1)
            X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
        seen[source] = name
        datasets.append(Dataset(name, X, y, source))
    return datasets, skipped


def _cv_splits(ds: Dataset, *, n_splits: int, n_repeats, seed: int):
    repeats = n_repeats(ds) if callable(n_repeats) else n_repeats
    return make_cv_splits(np.asarray(ds.y), n_splits=n_splits, n_repeats=repeats, random_state=seed)


def _paper_frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["dataset", "run", "classifier", "measure", "paper"])


SMALL_SEED000 = ("Iris", "Teaching-ae", "Heart-disease-c")


# --------------------------------------------------------------------------- the papers
def sun2017(quick: bool = False) -> Paper:
    """Seed 000, Table 4: 10-fold CV, MDL, m = 1, missing values a state of their own."""
    seed, clfs = 0, ri.SEED000_CLASSIFIERS
    specs = [(s[1], s[5], s[6]) for s in r0.SEED000]
    table4 = pd.read_csv(r0.TABLE4_CSV)
    paper = _paper_frame(
        [
            (r["dataset"], r["dataset"], label, "zero-one loss", float(r[col]))
            for _, r in table4.iterrows()
            for label, col in ri.PAPER_COL.items()
        ]
    )
    return Paper(
        key="sun2017",
        seed="000",
        title="Sun, Wang & Sun (2017), Table 4",
        protocol={
            "classifiers": {k: spec_key(v) for k, v in clfs.items()},
            "n_splits": 10,
            "seed": seed,
            "discretizer": "mdl",
        },
        protocol_text=(
            f"10-fold stratified CV (fold seed {seed}), MDL discretization fitted inside each training "
            "fold, m-estimate m = 1, missing values a state of their own; zero-one loss as the mean of "
            "the 10 fold losses (the paper's values are pooled errors/N: they differ where folds have "
            "unequal sizes, by at most 0.0063 in docs/reproduction.md). The paper's KDB is k = 1, its "
            "AKDB k = 1, its LTAN δ = 0.1."
        ),
        version="sun2017-1",
        load=partial(_load, specs, only=SMALL_SEED000 if quick else None),
        splits=partial(_cv_splits, n_splits=10, n_repeats=1, seed=seed),
        task=cv_fold,
        task_kwargs={"classifiers": clfs, "discretizer": "mdl", "seed": seed},
        aggregate=partial(mean_over_folds, metric="zero_one_loss", measure="zero-one loss"),
        paper_values=paper,
        classifiers=list(clfs),
        measures=["zero-one loss"],
        notes=[
            "Data sets marked `different` in docs/reproduction.md (Cylinder-bands, Mushrooms, Poker-hand, "
            "Breast-cancer-w from keel) are other versions of the paper's."
        ],
        mode="quick (3 small data sets)" if quick else "full",
    )


def kelner2012(quick: bool = False) -> Paper:
    """Seed 001, Tables 2 and 6: 10 x CV5 (Letter 1 x CV5), MDL, rows with missing values removed."""
    seed, clfs = 0, rr.CLASSIFIERS
    repeats = 2 if quick else 10
    specs = [(s[0], s[4], s[5]) for s in r0.SEED001]
    run_of, seen = {}, {}
    for name, _, source in specs:
        run_of[name] = seen.setdefault(source, name)
    paper = _paper_frame(
        [
            (name, run_of[name], label, "accuracy (%)", values[rr.PAPER_DATASETS.index(name)])
            for name in rr.PAPER_DATASETS
            for label, values in rr.PAPER.items()
        ]
    )
    only = ("Iris", "Cleve", "Hayes") if quick else None
    return Paper(
        key="kelner2012",
        seed="001",
        title="Kelner & Lerner (2012), Tables 2 and 6",
        protocol={
            "classifiers": {k: spec_key(v) for k, v in clfs.items()},
            "n_splits": 5,
            "seed": seed,
            "discretizer": "mdl",
            "rows with missing values": "removed",
        },
        protocol_text=(
            f"{repeats} x CV5 (five stratified folds, {repeats} permutations from fold seed {seed}; "
            "data sets over 10,000 rows, i.e. Letter, 1 x CV5), the same folds for every classifier, "
            "MDL discretization inside each training fold, instances with missing values removed; the "
            "searched networks with maximum likelihood (m = 0), NBC and TAN with m = 1; RMCV with K = 4 "
            "internal folds. Accuracy in %, the mean over the folds."
            + (" Quick mode: the paper has 10 permutations." if quick else "")
        ),
        version="kelner2012-1",
        load=partial(_load, specs, only=only, drop_missing=True),
        splits=partial(_cv_splits, n_splits=5, n_repeats=lambda ds: 1 if len(ds.y) > 10000 else repeats, seed=seed),
        task=cv_fold,
        task_kwargs={"classifiers": clfs, "discretizer": "mdl", "seed": seed},
        aggregate=partial(mean_over_folds, metric="accuracy", measure="accuracy (%)", scale=100.0),
        paper_values=paper,
        classifiers=list(clfs),
        measures=["accuracy (%)"],
        scale=100.0,
        resolution=0.005,
        notes=[
            "Pima is the same data as Diabetes and is run once.",
            "Not available: " + ", ".join(r0.SEED001_MISSING) + ".",
        ],
        mode=f"quick (3 small data sets, {repeats} x CV5)" if quick else "full",
    )


def long2019(quick: bool = False) -> Paper:
    """Seed 003, Tables A2-A3: Kohavi-Wolpert bias and variance from 10 x 2-fold CV."""
    seed, clfs = 0, ens.seed003_classifiers()
    repeats = 3 if quick else 10
    specs = [(s[0], s[4], s[5]) for s in r0.SEED003]
    rows = []
    for name in ens.TABLE_A2:
        for j, label in enumerate(ens.PAPER003_COLS):
            b, v = ens.TABLE_A2[name][j], ens.TABLE_A3[name][j]
            rows += [
                (name, name, label, "loss (bias + variance)", round(b + v, 4)),
                (name, name, label, "bias", b),
                (name, name, label, "variance", v),
            ]
    return Paper(
        key="long2019",
        seed="003",
        title="Long, Wang & Sun (2019), ETAN, Tables A2-A3",
        protocol={
            "classifiers": {k: spec_key(v) for k, v in clfs.items()},
            "n_splits": 2,
            "seed": seed,
            "discretizer": "ImputeThenMDL",
            "predictions": "kept",
        },
        protocol_text=(
            f"{repeats} x 2-fold stratified CV (fold seed {seed}), missing values replaced by the training "
            "fold's mode/mean, then MDL inside each training fold (`ImputeThenMDL`), m-estimate m = 1; "
            "Kohavi-Wolpert bias and variance over the repeats (noise folded into the bias, so loss = bias "
            "+ variance). The paper's loss is its bias (A2) plus its variance (A3); Table A1 is lost. LR is "
            "scikit-learn's LogisticRegression on one-hot codes of the discretized attributes (C = 1; "
            "`LR(C=1e4)` has no column in the paper)." + (" Quick mode: the protocol has 10 repeats." if quick else "")
        ),
        version="long2019-1",
        load=partial(_load, specs, only=("Iris", "Heart-Disease-C") if quick else None),
        splits=partial(_cv_splits, n_splits=2, n_repeats=repeats, seed=seed),
        task=cv_fold,
        task_kwargs={"classifiers": clfs, "discretizer": r0.ImputeThenMDL(), "seed": seed, "keep_predictions": True},
        aggregate=bias_variance,
        paper_values=_paper_frame(rows),
        classifiers=list(clfs),
        measures=["loss (bias + variance)", "bias", "variance"],
        notes=[
            "The paper's WAODE column is as printed: many of its rows are not aligned with their data set "
            "(e.g. Satellite bias 0.0002; see docs/reproduction.md).",
            "Not run: " + "; ".join(r0.SEED003_DIFFERENT) + ".",
        ],
        mode=f"quick (2 small data sets, {repeats} x 2-fold)" if quick else "full",
    )


def duan2019(quick: bool = False) -> Paper:
    """Seed 004: KDB^e (TargetKDB(k=2)) against KDB(k=2), 10-fold CV, ImputeThenMDL."""
    seed, clfs = 0, ri.SEED004_CLASSIFIERS
    specs = [(s[1], s[5], s[6]) for s in r0.SEED000]
    paper = _paper_frame(
        [(d, d, c, "zero-one loss", v) for d, vals in DUAN2019_QUOTED.items() for c, v in vals.items()]
    )

    def wdl(table: pd.DataFrame) -> list[str]:
        wide = table.pivot(index="dataset", columns="classifier", values="ours").round(4)
        a, b = wide["KDB^e"], wide["KDB(k=2)"]
        w, d, l_ = int((a < b).sum()), int((a == b).sum()), int((a > b).sum())
        return [
            f"W/D/L of KDB^e against KDB(k=2) on zero-one loss (any difference at four decimals): ours "
            f"{w}/{d}/{l_} on {len(wide)} data sets; the paper {DUAN2019_WDL} on 42.",
            "",
        ]

    return Paper(
        key="duan2019",
        seed="004",
        title="Duan et al. (2019), discriminatory target learning",
        protocol={
            "classifiers": {k: spec_key(v) for k, v in clfs.items()},
            "n_splits": 10,
            "seed": seed,
            "discretizer": "ImputeThenMDL",
        },
        protocol_text=(
            f"The paper's protocol: 10-fold stratified CV (fold seed {seed}), missing values replaced by the "
            "training fold's modes and means, MDL fitted on the training fold, m = 1; the seed-000 data "
            "sets. KDB^e is `targetkdb(k=2)` in the paper's reading; two other readings alongside. The "
            "paper's per-data-set tables are lost in the text found: the only values to compare are the "
            "two its text quotes for Heart-disease-c."
        ),
        version="duan2019-1",
        load=partial(_load, specs, only=SMALL_SEED000 if quick else None),
        splits=partial(_cv_splits, n_splits=10, n_repeats=1, seed=seed),
        task=cv_fold,
        task_kwargs={"classifiers": clfs, "discretizer": r0.ImputeThenMDL(), "seed": seed},
        aggregate=partial(mean_over_folds, metric="zero_one_loss", measure="zero-one loss"),
        paper_values=paper,
        classifiers=list(clfs),
        measures=["zero-one loss"],
        extra=wdl,
        mode="quick (3 small data sets)" if quick else "full",
    )


# --------------------------------------------------------------------------- multilabel
def multilabel_fold(name: str, X: pd.DataFrame, Y: pd.DataFrame, split, *, ensemble_max_labels: int) -> dict:
    """One fold of seed 002's protocol (``reproduce_multilabel.run_fold``).

    Parameters
    ----------
    name : str
    X, Y : pandas.DataFrame
        Features and the label frame.
    split : Split
    ensemble_max_labels : int
        The BN ensemble runs only on data sets with at most this many labels.

    Returns
    -------
    dict
        The fold's global and Hamming accuracies per classifier (and their details).
    """
    args = Namespace(ensemble_max_labels=ensemble_max_labels, max_parents={})
    return rm.run_fold(name, X, Y, split, args)


def _multilabel_ours(ds: Dataset, folds: list) -> pd.DataFrame:
    summary = rm.summarize([res for _, res in folds])[ds.name]
    rows = []
    for clf in rm.ORDER:
        for measure, key in (("global accuracy", "global"), ("Hamming accuracy", "hamming")):
            rows.append(
                {"classifier": clf, "measure": measure, "ours": summary[clf][key] if clf in summary else np.nan}
            )
    return pd.DataFrame(rows)


def _load_multilabel(data_dir, only=None):
    from bnclf.datasets import load_multilabel_dataset

    datasets, skipped = [], []
    for name, rel in rm.DATASETS.items():
        if only is not None and name not in only:
            continue
        path = Path(data_dir) / rel if data_dir is not None else None
        if path is not None and path.exists():
            X, Y = rm.load_set(path)
            datasets.append(Dataset(name, X, Y, str(path)))
        elif name == "emotions":
            X, Y = load_multilabel_dataset("emotions")
            datasets.append(Dataset(name, X, Y, "embedded emotions"))
        else:
            skipped.append(f"{name} ({rel} not in --data)")
    return datasets, skipped


def corani2014(quick: bool = False) -> Paper:
    """Seed 002, Tables 3-4: 5-fold CV stratified on the least relevant label."""
    seed, max_labels = 0, 16
    rows = [
        (name, name, clf, measure, p[key][j])
        for name, p in rm.PAPER.items()
        for j, clf in enumerate(rm.ORDER)
        for measure, key in (("global accuracy", "global"), ("Hamming accuracy", "hamming"))
    ]
    return Paper(
        key="corani2014",
        seed="002",
        title="Corani, Antonucci, Mauá & Gabaglio (2014), Tables 3-4",
        protocol={"folds": 5, "seed": seed, "ensemble_max_labels": max_labels, "max_parents": {}},
        protocol_text=(
            f"5-fold CV stratified on the least relevant label (fold seed {seed}); per training part: "
            "quartile bins, CFS per label (union kept), then the BN ensemble (only on data sets with at most "
            f"{max_labels} labels), mNB, mFAN, ECC and BR (on the features CFS selected). Global and Hamming "
            "accuracy with the empty prediction prevented, the mean over the folds. Scene is not available."
        ),
        version="corani2014-1",
        load=partial(_load_multilabel, only=("emotions",) if quick else None),
        splits=lambda ds: multilabel_cv_splits(ds.y.to_numpy(), n_splits=5, random_state=seed),
        task=multilabel_fold,
        task_kwargs={"ensemble_max_labels": max_labels},
        aggregate=_multilabel_ours,
        paper_values=_paper_frame(rows),
        classifiers=list(rm.ORDER),
        measures=["global accuracy", "Hamming accuracy"],
        resolution=0.005,
        mode="quick (emotions)" if quick else "full",
    )


FACTORIES = {
    "sun2017": sun2017,
    "kelner2012": kelner2012,
    "corani2014": corani2014,
    "long2019": long2019,
    "duan2019": duan2019,
}


def make_paper(key: str, quick: bool = False) -> Paper:
    """The protocol of a paper.

    Parameters
    ----------
    key : str
        A key of :data:`CATALOGUE` (see :func:`resolve` for the aliases).
    quick : bool, default=False
        A few small data sets and fewer repetitions.

    Returns
    -------
    Paper
    """
    return FACTORIES[key](quick=quick)
