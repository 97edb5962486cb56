"""Classifier specs and short names."""

import pytest

from bnclf import KDBClassifier, TANClassifier
from bnclf.models import CLASSIFIERS, make_classifier, parse_classifier_spec, register_classifier


def test_parse_specs():
    assert parse_classifier_spec("kdb(k=3, m=1.0)") == ("kdb", {"k": 3, "m": 1.0})
    assert parse_classifier_spec(" tan ") == ("tan", {})
    assert parse_classifier_spec("aode(smoothing='weka')") == ("aode", {"smoothing": "weka"})
    assert parse_classifier_spec("hc(criterion=mdl)") == ("hc", {"criterion": "mdl"})
    assert parse_classifier_spec("bnc-2p(max_parents=3)") == ("bnc-2p", {"max_parents": 3})
    for bad, match in [
        ("kdb(3)", "by name"),
        ("kdb(k=[x])", "literal"),
        ("1+", "parse"),
        ("kdb(**a)", "kwargs"),
        ("kdb(k=__import__('os'))", "literal"),
    ]:
        with pytest.raises(ValueError, match=match):
            parse_classifier_spec(bad)


def test_every_short_name_builds_its_estimator():
    for name in ["nb", "tan", "kdb", "aode", "waode", "atan", "watan", "bmccl", "etan"]:
        est = make_classifier(name)
        assert hasattr(est, "fit") and type(est).__module__.startswith("bnclf.models")
    assert make_classifier("KDBClassifier(k=1)").k == 1
    assert isinstance(make_classifier("TANClassifier"), TANClassifier)


def test_specs_never_import_or_call_arbitrary_code(tmp_path):
    marker = tmp_path / "ran"
    for spec in (
        f"os.system(command='touch {marker}')",
        f"subprocess.getoutput(cmd='touch {marker}')",
        "bnclf.TANClassifier",
    ):
        with pytest.raises(ValueError, match="import path"):
            make_classifier(spec)
    assert not marker.exists()


def test_base_classes_are_not_classifier_names():
    for name in ("ensemble", "multinet", "bayesnet"):
        with pytest.raises(ValueError, match="Unknown classifier"):
            make_classifier(name)


def test_unknown_names_and_parameters_are_explained():
    with pytest.raises(ValueError, match="Unknown classifier 'nope'.*choose one of"):
        make_classifier("nope")
    with pytest.raises(ValueError, match="has no parameter \\['q'\\]; valid parameters"):
        make_classifier("kdb(q=1)")
    with pytest.raises(TypeError):
        make_classifier(42)


def test_register_a_factory():
    register_classifier("kdb1", lambda **kw: KDBClassifier(k=1, **kw))
    try:
        assert make_classifier("KDB1").k == 1
    finally:
        CLASSIFIERS.pop("kdb1")
