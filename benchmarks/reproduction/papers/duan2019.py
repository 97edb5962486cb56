"""Seed 004: Duan, Wang, Mammadov, Lou & Sun (2019), Entropy 21, 537 -- discriminatory target learning.

The paper's per-data-set tables are lost in the text found: its W/D/L record, average
ranks and the two losses its text quotes are the published values. The data sets are
those of seed 000.
"""

from __future__ import annotations

from functools import partial

import pandas as pd

from .._data import ImputeThenMDL
from .._engine import spec_key
from .._folds import cv_fold, cv_splits, load_datasets, mean_over_folds, paper_frame
from .._paper import Paper
from .sun2017 import SEED000, SMALL

SEED004_CLASSIFIERS = {
    "KDB(k=2)": "kdb(k=2)",
    "KDB^e": "targetkdb(k=2)",
    "KDB^e, Eq. 9 as printed": "targetkdb(k=2, smoothing='pseudo-instance-as-printed')",
    "KDB^e, 0.2.0 reading": "targetkdb(k=2, measures='pointwise', combine='posterior-average', smoothing='m-estimate')",
}
# part 004a: the paper's reading with one of its two changes undone, and with both
SEED004_ABLATION = {
    "weighted, posterior average": "targetkdb(k=2, combine='posterior-average')",
    "pointwise, own label": "targetkdb(k=2, measures='pointwise')",
    "pointwise, posterior average": "targetkdb(k=2, measures='pointwise', combine='posterior-average')",
}
# Duan et al. (2019), Sec. 4 (42 data sets; the per-data-set tables are lost in the text copy)
SEED004_PAPER = {
    "W/D/L KDB^e vs KDB(k=2), zero-one loss": "26/13/3",
    "average rank (of 7) KDB^e": 2.5952,
    "average rank (of 7) kdb^e": 3.5595,
    "average rank (of 7) RF": 3.7024,
}

#: Duan et al. (2019), Sec. 4: the per-data-set tables are lost in the text found; the text
#: quotes these zero-one losses (its "Waveform" is not Waveform-5000: its values are far
#: below that generator's Bayes error, see docs/reproduction.md).
DUAN2019_QUOTED = {"Heart-disease-c": {"KDB(k=2)": 0.2244, "KDB^e": 0.2079}}
DUAN2019_WDL = "26/13/3"


def make_paper(quick: bool = False) -> Paper:
    """Seed 004: KDB^e (TargetKDB(k=2)) against KDB(k=2), 10-fold CV, ImputeThenMDL."""
    seed, clfs = 0, SEED004_CLASSIFIERS
    specs = [(s[1], s[5], s[6]) for s in SEED000]
    paper = paper_frame([(d, d, c, "zero-one loss", v) for d, vals in DUAN2019_QUOTED.items() for c, v in vals.items()])

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
        load=partial(load_datasets, specs, only=SMALL if quick else None),
        splits=partial(cv_splits, n_splits=10, n_repeats=1, seed=seed),
        task=cv_fold,
        task_kwargs={"classifiers": clfs, "discretizer": ImputeThenMDL(), "seed": seed},
        aggregate=partial(mean_over_folds, metric="zero_one_loss", measure="zero-one loss"),
        paper_values=paper,
        classifiers=list(clfs),
        measures=["zero-one loss"],
        extra=wdl,
        mode="quick (3 small data sets)" if quick else "full",
    )
