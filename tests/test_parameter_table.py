"""Constructor parameters are declared once per estimator (``_parameters``) and checked
in one place (:func:`bnclf._params.check_parameters`): every parameter has an entry,
every entry rejects what it should with a message that names the parameter, its
meaning and what it accepts, and the renamed ``progress`` still works with a warning."""

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

from bnclf import MDLDiscretizer, QuantileDiscretizer
from bnclf._params import Checked, Integer, Number, Options, Transformer, parameter_table
from bnclf.evaluation import cross_validate_predictions
from bnclf.models import ESTIMATORS, HillClimbClassifier, RMCVClassifier

ALL = [*ESTIMATORS, MDLDiscretizer, QuantileDiscretizer]


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_every_constructor_parameter_has_exactly_one_entry(cls):
    assert set(parameter_table(cls)) == set(cls().get_params(deep=False))


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_constructors_are_keyword_only(cls):
    kinds = {p.kind for name, p in inspect.signature(cls.__init__).parameters.items() if name != "self"}
    assert kinds <= {inspect.Parameter.KEYWORD_ONLY}, cls.__name__


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_every_default_is_accepted(cls):
    params = cls().get_params(deep=False)
    for name, constraint in parameter_table(cls).items():
        assert constraint.allows(params[name]), (cls.__name__, name)


def _rejected(constraint):
    """Values the constraint must refuse (a bool where a number is asked, out of range,
    NaN, a wrong type), derived from the constraint itself."""
    if isinstance(constraint, Integer):
        values = [constraint.minimum - 1, 1.5, True, "2"]
    elif isinstance(constraint, Number):
        values = [float("nan"), float("inf"), True, "1"]
        if constraint.low is not None:
            values.append(constraint.low if constraint.low_open else constraint.low - 1)
        if constraint.high is not None:
            values.append(constraint.high if constraint.high_open else constraint.high + 1)
    elif isinstance(constraint, Options):
        values = ["no-such-option", 12345]
    elif isinstance(constraint, Transformer):
        values = ["no-such-discretizer", 3]
    else:
        values = [2]  # Boolean
    if constraint.none is None:
        values.append(None)
    return values


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_out_of_range_values_are_named_in_the_error(cls):
    for name, constraint in parameter_table(cls).items():
        if isinstance(constraint, Checked):
            continue
        for value in _rejected(constraint):
            if name in ("progress", "verbose") and isinstance(value, bool):
                continue  # verbose=True is 1; progress=True is the old spelling
            assert not constraint.allows(value), (cls.__name__, name, value)
            message = constraint.message(name, value)
            assert message.startswith(f"{name}={value!r} is not valid; "), message
            if isinstance(constraint, Options):
                assert "choose one of" in message, message
            else:  # what the parameter is, then what it accepts
                assert constraint.meaning and f"{name} is {constraint.meaning}, " in message, message
                assert constraint.accepts(name) in message, message


def test_messages_say_what_the_parameter_is_and_its_default():
    table = parameter_table(RMCVClassifier)
    assert table["n_splits"].message("n_splits", 1) == (
        "n_splits=1 is not valid; n_splits is the number of validation folds K, an integer >= 2 "
        "(4 is the default; the RMHO variants hold out 1/K of the rows)."
    )
    assert table["max_parents"].message("max_parents", -1) == (
        "max_parents=-1 is not valid; max_parents is the most parents a node may have (the class "
        "counts), an integer >= 0, or None (no limit) (None, the default, is no limit)."
    )
    assert table["start"].message("start", "full") == (
        "start='full' is not valid; choose one of ['nb', 'empty'] (start is the first graph of the search)."
    )
    from bnclf import LTANClassifier

    assert parameter_table(LTANClassifier)["delta"].message("delta", 0) == (
        "delta=0 is not valid; delta is the label filtering threshold, a number with 0 < delta <= 1 "
        "(0.1 is the default)."
    )


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: RMCVClassifier(n_splits=1), r"n_splits=1 is not valid; n_splits is the number of validation folds"),
        (lambda: HillClimbClassifier(ess=0), r"ess=0 is not valid; ess is BDeu's equivalent sample size"),
        (lambda: HillClimbClassifier(verbose=-1), r"verbose=-1 is not valid"),
        (lambda: HillClimbClassifier(start="nb", max_parents=0), r"below the naive Bayes start"),
        (lambda: QuantileDiscretizer(n_bins=1), r"n_bins=1 is not valid; n_bins is the number of bins"),
    ],
)
def test_fit_checks_the_table(make, match):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 3, 40), "b": rng.integers(0, 3, 40)}).astype("category")
    y = rng.integers(0, 2, 40)
    with pytest.raises(ValueError, match=match):
        make().fit(X, y)


def test_progress_was_renamed_verbose_and_still_works_with_a_warning(capsys):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"x{j}": rng.integers(0, 3, 60) for j in range(3)}).astype("category")
    y = rng.integers(0, 2, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = HillClimbClassifier(random_state=0).fit(X, y)
    with pytest.warns(FutureWarning, match=r"progress= was renamed verbose="):
        old = HillClimbClassifier(random_state=0, progress=True).fit(X, y)
    assert sorted(old.dag_.edges) == sorted(quiet.dag_.edges)
    assert "move" in capsys.readouterr().err  # the tqdm bar was shown
    from sklearn.naive_bayes import CategoricalNB

    with pytest.warns(FutureWarning, match=r"cross_validate_predictions: progress= was renamed"):
        cross_validate_predictions(CategoricalNB(), X.apply(lambda c: c.cat.codes), y, n_splits=2, progress=False)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_every_constructor_parameter_is_described_in_the_docstring(cls):
    """The API reference shows each parameter with its meaning, not its type alone."""
    docscrape = pytest.importorskip("numpydoc.docscrape")
    described = {}
    for entry in docscrape.ClassDoc(cls, config={"show_class_members": False})["Parameters"]:
        for name in entry.name.split(","):
            described[name.strip()] = " ".join(entry.desc).strip()
    for name in cls().get_params(deep=False):
        assert described.get(name), f"{cls.__name__}: parameter {name!r} has no description"
