"""``bnclf show``: a model's structure, CPTs (``--cpt``) or DOT text (``--dot``)."""

from __future__ import annotations

import argparse

from bnclf.cli._common import _refuse_multilabel, final_estimator
from bnclf.io._text import cpt_table, network_dot
from bnclf.learn._restricted import markov_blanket


def _print_seed(est) -> None:
    """The seed of a model that searches at random: what fits it again."""
    params = est.get_params()
    if "random_state" not in params:
        return
    seed = params["random_state"]
    if seed is None:
        print(
            "seed: none recorded (random_state=None): another fit may find another structure; "
            "'bnclf fit --seed N' records one"
        )
    else:
        print(f"seed: {seed!r} (random_state; 'bnclf fit --seed {seed}' on the same data fits this model again)")


def cmd_show(args: argparse.Namespace) -> None:
    from bnclf.io._models import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    _refuse_multilabel(est, "show")
    try:
        members = est.network_members()
    except ValueError as exc:  # an instance-specific model with no network in advance
        members, no_network = [], str(exc)
    if args.member is not None:
        keys = [str(k) for k, _ in members]
        if keys == ["None"]:
            raise ValueError(
                f"{type(est).__name__} has one network; --member picks a member of "
                "an ensemble (a position) or a multinet (a class label)."
            )
        if args.member not in keys:
            raise ValueError(f"--member {args.member!r} is not one of {keys}.")
        members = [m for m in members if str(m[0]) == args.member]
    for node in args.cpt or []:
        for _, net in members:
            if node not in net.named_families:
                raise ValueError(f"--cpt {node!r}: no such node; nodes: {list(net.named_families)}.")
    if args.dot:
        if not members:
            raise ValueError(no_network)
        print("\n".join(network_dot(net) for _, net in members))
        return
    params = ", ".join(f"{k}={v!r}" for k, v in sorted(est.get_params().items()))
    print(f"{type(est).__name__}({params})")
    _print_seed(est)
    print(f"classes ({len(est.classes_)}): {', '.join(map(str, est.classes_))}")
    print(f"features ({est.n_features_in_}): {', '.join(map(str, est._encoder.feature_names_))}")
    for _, step in model.steps[:-1] if hasattr(model, "steps") else []:
        cuts = getattr(step, "cut_points_", None)
        if not cuts:
            continue
        print(f"cut points ({type(step).__name__}):")
        for column, points in cuts.items():
            shown = ", ".join(f"{p:.6g}" for p in points) if len(points) else "(none: one bin)"
            print(f"  {column}: {shown}")
    if not members:
        print(no_network)
        return
    for key, net in members:
        if key is not None or net.title:
            print(f"\n[{net.title or key}]" + (f" (member {key})" if key is not None else ""))
        print("structure (child <- parents):")
        for child, parents in net.named_families.items():
            print(f"  {child} <- {', '.join(map(str, parents)) if parents else '(no parents)'}")
        if net.has_class:
            blanket = markov_blanket(net.dag, net.class_name)
            print(f"  Markov blanket of {net.class_name} ({len(blanket)}): {', '.join(map(str, blanket))}")
        for node in args.cpt or []:
            given = ", ".join(map(str, net.named_families[node])) or "-"
            print(f"\n  P({node} | {given})")
            print(cpt_table(net, node).round(4).to_string(line_width=120))  # wide tables in blocks
