"""Evaluation of classifiers: CV protocols, metrics, statistical tests, plots.

See ``docs/evaluation.md`` for the protocols, the formulas and references, and
the ``bnclf compare`` command. :mod:`bnclf.evaluation` compares
multilabel classifiers by the protocol of Corani et al. (2014):
``multilabel_fold_scores`` runs several classifiers on the same folds and
returns one row per (classifier, fold), while :func:`cross_validate_multilabel`
keeps the predictions of one estimator.

The names below are imported on first use (PEP 562): ``bnclf fit`` and ``bnclf predict``
read a model builder from here without loading SciPy's statistics or the plots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bnclf._lazy as _lazy

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ imports on demand
    from bnclf.evaluation._compare import (
        ComparisonSummary,
        compare,
        render_report,
        summarize,
        write_report,
    )
    from bnclf.evaluation._dataset_specs import load_dataset_spec
    from bnclf.evaluation._metrics import (
        KohaviWolpertResult,
        accuracy,
        global_accuracy,
        hamming_accuracy,
        hand_till_auc,
        kappa,
        kohavi_wolpert,
        log_loss,
        roc_auc,
        zero_one_loss,
    )
    from bnclf.evaluation._multilabel import (
        compare_multilabel,
        empty_rate,
        least_relevant_label_folds,
        load_multilabel_spec,
        multilabel_fold_scores,
        summarize_multilabel,
    )
    from bnclf.evaluation._plots import nemenyi_cliques, plot_critical_difference, plot_dataset_bars, plot_paper_vs_ours
    from bnclf.evaluation._protocols import (
        CVPredictions,
        MultilabelCVPredictions,
        Split,
        build_pipeline,
        cross_validate_many,
        cross_validate_multilabel,
        cross_validate_predictions,
        least_relevant_label,
        make_cv_splits,
        multilabel_cv_splits,
    )
    from bnclf.evaluation._stats_tests import (
        BayesianResult,
        FriedmanResult,
        TTestResult,
        WinDrawLoss,
        average_ranks,
        bayesian_correlated_ttest,
        bayesian_signed_rank,
        bonferroni_dunn_critical_difference,
        bonferroni_dunn_from_ranks,
        bonferroni_dunn_test,
        corrected_repeated_cv_ttest,
        friedman_test,
        nemenyi_critical_difference,
        nemenyi_q,
        nemenyi_test,
        rank_scores,
        sign_test,
        wilcoxon_signed_rank,
        win_draw_loss,
        win_draw_loss_table,
    )
    from bnclf.models._registry import CLASSIFIERS, make_classifier, parse_classifier_spec, register_classifier

__all__ = [
    # plots (matplotlib Figures)
    "plot_critical_difference",
    "plot_paper_vs_ours",
    "plot_dataset_bars",
    "nemenyi_cliques",
    # protocols
    "Split",
    "make_cv_splits",
    "multilabel_cv_splits",
    "least_relevant_label",
    "build_pipeline",
    "cross_validate_predictions",
    "cross_validate_many",
    "CVPredictions",
    "cross_validate_multilabel",
    "MultilabelCVPredictions",
    # multilabel comparisons (bnclf.evaluation)
    "least_relevant_label_folds",
    "empty_rate",
    "summarize_multilabel",
    "compare_multilabel",
    "multilabel_fold_scores",
    "load_multilabel_spec",
    # metrics
    "zero_one_loss",
    "accuracy",
    "log_loss",
    "roc_auc",
    "hand_till_auc",
    "kappa",
    "kohavi_wolpert",
    "KohaviWolpertResult",
    "global_accuracy",
    "hamming_accuracy",
    # statistical tests
    "rank_scores",
    "average_ranks",
    "friedman_test",
    "FriedmanResult",
    "nemenyi_q",
    "nemenyi_critical_difference",
    "nemenyi_test",
    "bonferroni_dunn_critical_difference",
    "bonferroni_dunn_test",
    "bonferroni_dunn_from_ranks",
    "win_draw_loss",
    "WinDrawLoss",
    "sign_test",
    "win_draw_loss_table",
    "wilcoxon_signed_rank",
    "corrected_repeated_cv_ttest",
    "TTestResult",
    "bayesian_signed_rank",
    "bayesian_correlated_ttest",
    "BayesianResult",
    # comparisons
    "compare",
    "summarize",
    "write_report",
    "render_report",
    "ComparisonSummary",
    "make_classifier",
    "parse_classifier_spec",
    "register_classifier",
    "load_dataset_spec",
    "CLASSIFIERS",
]

#: each public name -> the module that defines it, imported when the name is first read
_LAZY = {
    **dict.fromkeys(
        ["ComparisonSummary", "compare", "render_report", "summarize", "write_report"],
        "bnclf.evaluation._compare",
    ),
    "load_dataset_spec": "bnclf.evaluation._dataset_specs",
    **dict.fromkeys(
        [
            "KohaviWolpertResult",
            "accuracy",
            "global_accuracy",
            "hamming_accuracy",
            "hand_till_auc",
            "kappa",
            "kohavi_wolpert",
            "log_loss",
            "roc_auc",
            "zero_one_loss",
        ],
        "bnclf.evaluation._metrics",
    ),
    **dict.fromkeys(
        [
            "compare_multilabel",
            "empty_rate",
            "least_relevant_label_folds",
            "load_multilabel_spec",
            "multilabel_fold_scores",
            "summarize_multilabel",
        ],
        "bnclf.evaluation._multilabel",
    ),
    **dict.fromkeys(
        ["nemenyi_cliques", "plot_critical_difference", "plot_dataset_bars", "plot_paper_vs_ours"],
        "bnclf.evaluation._plots",
    ),
    **dict.fromkeys(
        [
            "CVPredictions",
            "MultilabelCVPredictions",
            "Split",
            "build_pipeline",
            "cross_validate_many",
            "cross_validate_multilabel",
            "cross_validate_predictions",
            "least_relevant_label",
            "make_cv_splits",
            "multilabel_cv_splits",
        ],
        "bnclf.evaluation._protocols",
    ),
    **dict.fromkeys(
        [
            "BayesianResult",
            "FriedmanResult",
            "TTestResult",
            "WinDrawLoss",
            "average_ranks",
            "bayesian_correlated_ttest",
            "bayesian_signed_rank",
            "bonferroni_dunn_critical_difference",
            "bonferroni_dunn_from_ranks",
            "bonferroni_dunn_test",
            "corrected_repeated_cv_ttest",
            "friedman_test",
            "nemenyi_critical_difference",
            "nemenyi_q",
            "nemenyi_test",
            "rank_scores",
            "sign_test",
            "wilcoxon_signed_rank",
            "win_draw_loss",
            "win_draw_loss_table",
        ],
        "bnclf.evaluation._stats_tests",
    ),
    **dict.fromkeys(
        ["CLASSIFIERS", "make_classifier", "parse_classifier_spec", "register_classifier"], "bnclf.models._registry"
    ),
}

__getattr__, __dir__ = _lazy.lazy_attributes(__name__, _LAZY)
