"""scikit-learn's estimator checks over every estimator, each exemption with its reason."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from bnclf import (
    AKDBClassifier,
    AODEClassifier,
    ATANClassifier,
    ChowLiuMultinetClassifier,
    ETANClassifier,
    HillClimbClassifier,
    KDBClassifier,
    LKDBClassifier,
    LTANClassifier,
    MDLDiscretizer,
    NaiveBayesClassifier,
    QuantileDiscretizer,
    RMCVClassifier,
    TANClassifier,
    TargetKDBClassifier,
    WAODEClassifier,
    WATANClassifier,
)

CONTINUOUS = (
    "feeds continuous float features; bnclf classifiers require discrete features and reject "
    "continuous columns with an error that names the column and the discretizer to use"
)
CLASSIFIER_EXEMPTIONS = {"check_positive_only_tag_during_fit": CONTINUOUS}
LABEL_OUTPUT = (
    "compares transform outputs numerically; the output is a DataFrame of interval-label "
    "categoricals, by design (the classifiers count categories)"
)
DISCRETIZER_EXEMPTIONS = {
    name: LABEL_OUTPUT
    for name in [
        "check_transformer_general",
        "check_pipeline_consistency",
        "check_estimators_pickle",
        "check_transformer_data_not_an_array",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_fit_idempotent",
        "check_transformer_preserve_dtypes",
    ]
}


def expected_failures(estimator):
    if isinstance(estimator, (MDLDiscretizer, QuantileDiscretizer)):
        return DISCRETIZER_EXEMPTIONS
    return CLASSIFIER_EXEMPTIONS


@parametrize_with_checks(
    [
        NaiveBayesClassifier(),
        TANClassifier(),
        KDBClassifier(),
        KDBClassifier(k=0),
        AODEClassifier(),
        AODEClassifier(smoothing="weka"),
        WAODEClassifier(),
        ATANClassifier(),
        WATANClassifier(),
        ChowLiuMultinetClassifier(),
        ETANClassifier(),
        ETANClassifier(k=1),
        LKDBClassifier(),
        LKDBClassifier(k=2),
        AKDBClassifier(),
        LTANClassifier(),
        TargetKDBClassifier(),
        TargetKDBClassifier(smoothing="pseudo-instance"),
        RMCVClassifier(random_state=0),
        RMCVClassifier(variant="holdout", random_state=0),
        HillClimbClassifier(),
        HillClimbClassifier(criterion="cll", start="empty", max_parents=2),
        HillClimbClassifier(criterion="cmdl", start="empty"),
        MDLDiscretizer(),
        QuantileDiscretizer(),
    ],
    expected_failed_checks=expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
