"""Seeds: a model that searches at random records the seed it was fitted with.

``bnclf fit`` without ``--seed`` draws one, fits with it and keeps it in the model file
(the estimator's ``random_state``), ``bnclf show`` prints it, and ``--seed`` with it fits
the same structure again. ``evaluate`` and ``compare`` seed such models with ``--seed``
too (it already shuffled their folds), unless the spec sets ``random_state``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from bnclf.cli._main import main
from bnclf.datasets import load_dataset
from bnclf.evaluation._reports import cross_validate_models, seeded
from bnclf.io._models import load_model
from bnclf.models import make_classifier, make_multilabel_classifier


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    X, y = load_dataset("heart-c")
    path = tmp_path_factory.mktemp("seeds") / "heart.csv"
    X.iloc[:200].assign(num=y.iloc[:200]).to_csv(path, index=False)
    return path


def _families(path):
    return load_model(path)[-1].network_.named_families


def _fit(argv, capsys) -> str:
    assert main(["fit", *argv]) is None
    return capsys.readouterr().out


def test_a_drawn_seed_is_recorded_shown_and_refits_the_same_structure(data, tmp_path, capsys):
    seeds = []
    for run in range(3):  # "three bnclf fit --model rmcv runs": each says which seed made it
        path = tmp_path / f"r{run}.bnclf"
        out = _fit([str(data), "--model", "rmcv", "-o", str(path)], capsys)
        seed = int(re.search(r"seed (\d+) drawn \(--seed \1 fits this model again\)", out).group(1))
        assert load_model(path)[-1].get_params()["random_state"] == seed  # the fitted estimator holds it
        assert main(["show", str(path)]) is None
        assert f"seed: {seed} (random_state; 'bnclf fit --seed {seed}'" in capsys.readouterr().out
        again = tmp_path / f"again{run}.bnclf"
        assert f", seed {seed} ->" in _fit(
            [str(data), "--model", "rmcv", "--seed", str(seed), "-o", str(again)], capsys
        )
        assert _families(again) == _families(path)
        X = pd.read_csv(data).drop(columns="num")
        np.testing.assert_array_equal(load_model(again).predict_proba(X), load_model(path).predict_proba(X))
        seeds.append(seed)
    assert len(set(seeds)) == 3  # drawn afresh (a collision has odds of 1 in 2^31)


def test_a_seed_gives_the_structure_the_library_gives(data, tmp_path, capsys):
    from bnclf.datasets import load_table
    from bnclf.evaluation._reports import build_model

    _fit([str(data), "--model", "hc", "--seed", "11", "-o", str(tmp_path / "hc.bnclf")], capsys)
    X, y = load_table(data)
    model = build_model("hc(random_state=11)").fit(X, y)
    assert _families(tmp_path / "hc.bnclf") == model[-1].network_.named_families


def test_seed_errors_and_warnings(data, tmp_path, capsys):
    argv = [str(data), "--model", "rmcv(random_state=3)", "--seed", "4", "-o", str(tmp_path / "x.bnclf")]
    assert main(["fit", *argv]) == 2
    assert (
        "--seed 4 and random_state=3 in the model spec 'rmcv(random_state=3)' are two seeds" in capsys.readouterr().err
    )
    out = _fit([str(data), "--model", "rmcv(random_state=3)", "-o", str(tmp_path / "x.bnclf")], capsys)
    assert ", seed" not in out and load_model(tmp_path / "x.bnclf")[-1].random_state == 3
    assert main(["fit", str(data), "--model", "tan", "--seed", "4", "-o", str(tmp_path / "t.bnclf")]) is None
    assert "--seed 4: tan makes no random choice" in capsys.readouterr().err
    assert main(["show", str(tmp_path / "t.bnclf")]) is None
    assert "seed:" not in capsys.readouterr().out


def test_multilabel_chains_take_the_seed(tmp_path, capsys):
    from bnclf.datasets import load_multilabel_dataset

    X, Y = load_multilabel_dataset("emotions")
    X.iloc[:150].join(Y.iloc[:150]).to_csv(tmp_path / "emo.csv", index=False)
    _fit(
        [
            str(tmp_path / "emo.csv"),
            "--n-labels",
            "6",
            "--model",
            "ecc",
            "--seed",
            "9",
            "-o",
            str(tmp_path / "e.bnclf"),
        ],
        capsys,
    )
    model = load_model(tmp_path / "e.bnclf")
    expected = make_multilabel_classifier("ecc(random_state=9)").fit(X.iloc[:150], Y.iloc[:150])
    assert model.random_state == 9 and model.chain_seeds_ == expected.chain_seeds_
    assert main(["show", str(tmp_path / "e.bnclf")]) is None
    out = capsys.readouterr().out
    assert "seed: 9" in out and f"chain seeds (20): {', '.join(map(str, expected.chain_seeds_))}" in out


def test_evaluate_seed_seeds_the_search(data, tmp_path):
    from bnclf.datasets import load_table

    X, y = load_table(data)
    for seed in (2, 5):
        out = tmp_path / f"r{seed}.csv"
        argv = ["evaluate", str(data), "--models", "rmcv", "--folds", "3", "--seed", str(seed), "--no-progress"]
        assert main([*argv, "--brief", "-o", str(out)]) is None
        expected = cross_validate_models(X, y, [f"rmcv(random_state={seed})"], n_splits=3, seed=seed, verbose=0)
        assert pd.read_csv(out)["accuracy"][0] == pytest.approx(expected["accuracy"][0], abs=0)


def test_compare_seed_seeds_the_search():
    from bnclf.evaluation import compare

    X, y = load_dataset("heart-c")
    kwargs = {"n_splits": 3, "random_state": 4, "verbose": 0}
    unset = compare([("heart", X.iloc[:150], y.iloc[:150])], ["rmcv"], **kwargs)
    given = compare([("heart", X.iloc[:150], y.iloc[:150])], ["rmcv(random_state=4)"], **kwargs)
    np.testing.assert_array_equal(unset["zero_one_loss"], given["zero_one_loss"])
    np.testing.assert_array_equal(unset["log_loss"], given["log_loss"])


def test_seeded_sets_only_what_no_one_set():
    rmcv = make_classifier("rmcv")
    assert seeded(rmcv, 3).random_state == 3 and rmcv.random_state is None  # cloned, not changed
    assert seeded(make_classifier("rmcv(random_state=1)"), 3, "rmcv(random_state=1)").random_state == 1
    assert seeded(make_classifier("rmcv").set_params(random_state=1), 3).random_state == 1  # an instance's own seed
    assert seeded(make_multilabel_classifier("ecc"), 3, "ecc").random_state == 3  # a default seed, from a spec
    assert seeded(make_multilabel_classifier("ecc"), 3).random_state == 0  # ... kept in an instance
    tan = make_classifier("tan")
    assert seeded(tan, 3) is tan and seeded(rmcv, None) is rmcv
    from bnclf.evaluation._reports import build_model

    pipeline = seeded(build_model("rmcv"), 8, "rmcv")
    assert pipeline[-1].random_state == 8
