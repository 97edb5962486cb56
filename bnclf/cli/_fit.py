"""``bnclf fit``: fit a model on a data file and write a model file."""

from __future__ import annotations

import argparse
import warnings
from typing import TYPE_CHECKING

from bnclf.cli._common import read_multilabel, read_table, wants_multilabel

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


def _random_state_keys(model: BaseEstimator) -> list[str]:
    """The ``random_state`` parameters of a model (inside a pipeline too)."""
    return [key for key in model.get_params(deep=True) if key == "random_state" or key.endswith("__random_state")]


def with_seed(model: BaseEstimator, spec: str, seed: int | None) -> tuple[BaseEstimator, str]:
    """``model`` with its seed, and the words that say so after ``fitted ...``.

    A model that draws at random (a ``random_state`` parameter: RMCV, hill climbing,
    classifier chains) gets ``seed``; a model whose seed is unset (None) gets, without
    ``--seed``, a seed drawn here, so that the fitted model's parameters hold the seed that
    made it (``bnclf show`` prints it) and ``--seed`` fits it again. A seed the spec sets is
    kept, and ``--seed`` with another one is refused. A model without random choices
    ignores ``--seed``, with a warning.
    """
    from bnclf.evaluation._reports import seeded
    from bnclf.models._registry import parse_classifier_spec

    keys = _random_state_keys(model)
    if not keys:
        if seed is not None:
            warnings.warn(
                f"--seed {seed}: {spec} makes no random choice (its structure follows from the data), so the seed "
                "is not used; it seeds rmcv, rmho, hc, bnc-mdl, bnc-2p and ecc.",
                UserWarning,
                stacklevel=2,
            )
        return model, ""
    given = parse_classifier_spec(spec)[1]
    if "random_state" in given:  # the spec's own seed (None included: asked for no seed)
        own = given["random_state"]
        if seed is not None and own != seed:
            raise ValueError(
                f"--seed {seed} and random_state={own!r} in the model spec {spec!r} are two seeds; give one of them."
            )
        return model, ""
    if seed is not None:
        return seeded(model, seed, spec), f", seed {seed}"
    params = model.get_params(deep=True)
    if all(params[key] is not None for key in keys):  # a default seed (ecc: 0), kept in the file
        return model, ""
    import secrets

    seed = secrets.randbelow(2**31 - 1)  # any seed numpy's RandomState takes
    return seeded(model, seed), f", seed {seed} drawn (--seed {seed} fits this model again)"


# -- subcommands ---------------------------------------------------------------------
def cmd_fit(args: argparse.Namespace) -> None:
    from bnclf.evaluation._reports import build_model, build_multilabel_model, with_verbose
    from bnclf.io._models import save_model

    if wants_multilabel(args, [args.model] if args.model else []):
        spec = args.model or "mnb"
        X, Y = read_multilabel(args.data, args)
        model, seed_note = with_seed(build_multilabel_model(spec, args.discretize, args.bins), spec, args.seed)
        model = with_verbose(model, int(args.verbose), spec)  # -v: the model's progress bar
        model.fit(X, Y)
        save_model(model, args.output)
        print(
            f"fitted {spec} on {X.shape[0]} rows x {X.shape[1]} features, {Y.shape[1]} labels "
            f"({', '.join(map(str, Y.columns))}){seed_note} -> {args.output}"
        )
        return
    spec = args.model or "tan"
    X, y = read_table(args.data, args.target, args)
    model, seed_note = with_seed(build_model(spec, args.discretize or "mdl", args.bins), spec, args.seed)
    model = with_verbose(model, int(args.verbose), spec)  # -v: the model's progress bar
    model.fit(X, y)
    save_model(model, args.output)
    print(f"fitted {spec} on {X.shape[0]} rows x {X.shape[1]} features{seed_note} -> {args.output}")
