"""network_members() says how an estimator's networks combine, in public attributes."""

import numpy as np
import pytest

from bnclf.datasets import load_dataset
from bnclf.models import (
    AODEClassifier,
    ATANClassifier,
    ChowLiuMultinetClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from bnclf.network import NetworkMembers


@pytest.fixture(scope="module")
def data():
    X, y = load_dataset("soybean")
    return X.iloc[:200, :6], y.iloc[:200]


def test_one_network(data):
    model = TANClassifier().fit(*data)
    members = model.network_members()
    assert isinstance(members, NetworkMembers) and members.owner is model
    assert members.kind == "single" and members.weights is None and members.combine is None
    assert members.exported == [(None, model.network_)]
    assert members.manifest_extras == {}


@pytest.mark.parametrize("cls, combine", [(AODEClassifier, "joint"), (ATANClassifier, "posterior")])
def test_an_ensemble(data, cls, combine):
    model = cls().fit(*data)
    members = model.network_members()
    assert members.kind == "ensemble" and members.combine == combine
    np.testing.assert_array_equal(members.weights, model.weights_)
    assert [key for key, _ in members] == list(range(len(model.weights_)))
    assert len(members.exported) in (len(members), len(members) - 1)  # AODE may leave out its fallback


def test_aode_leaves_out_the_fallback_no_row_uses(data):
    model = AODEClassifier(frequency_limit=0).fit(*data)
    members = model.network_members()
    assert members.exported == list(members)[:-1]
    assert members.manifest_extras["frequency_limit"] == 0


def test_a_multinet(data):
    model = ChowLiuMultinetClassifier().fit(*data)
    members = model.network_members()
    assert members.kind == "multinet" and members.weights is None and members.combine is None
    assert [key for key, _ in members] == list(model.classes_)


def test_the_fitted_encoder_is_public(data):
    X, y = data
    model = NaiveBayesClassifier().fit(X, y)
    assert list(model.feature_encoder_.feature_names_) == list(X.columns)
    assert model.feature_encoder_.categories_ == [model.categories_[c] for c in X.columns]
    assert not hasattr(NaiveBayesClassifier(), "feature_encoder_")
