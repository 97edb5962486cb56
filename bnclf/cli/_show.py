"""``bnclf show``: a model's structure, seed, CPTs (``--cpt``) or DOT text (``--dot``); for a
multilabel network, its label graph and the label parents of each feature."""

from __future__ import annotations

import argparse

from bnclf.cli._common import _is_multilabel_network, final_estimator, is_multilabel_model


def _members(est, args: argparse.Namespace) -> tuple[list, str | None]:
    """The ``(key, Network)`` members to show (``--member``), and why there are none."""
    if is_multilabel_model(est) and not _is_multilabel_network(est):  # br, ecc: a naive Bayes per label
        members, no_network = (
            [],
            (
                f"{type(est).__name__} is not one Bayesian network but a naive Bayes per label over coded "
                "features; 'bnclf show' prints its labels and parameters (mnb, mfan and bn-ensemble are networks)."
            ),
        )
    else:
        try:
            members, no_network = est.network_members(), None
        except ValueError as exc:  # instance-specific: no network in advance
            members, no_network = [], str(exc)
    if args.member is not None:
        keys = [str(k) for k, _ in members]
        if not members:
            raise ValueError(f"--member {args.member!r}: {no_network}")
        if keys == ["None"]:
            raise ValueError(
                f"{type(est).__name__} has one network; --member picks a member of an ensemble (a position), "
                "a multinet (a class label) or a BN ensemble (a position)."
            )
        if args.member not in keys:
            raise ValueError(f"--member {args.member!r} is not one of {keys}.")
        members = [m for m in members if str(m[0]) == args.member]
    for node in args.cpt or []:
        if not members:
            raise ValueError(f"--cpt {node!r}: {no_network}")
        for _, net in members:
            if node not in net.named_families:
                raise ValueError(f"--cpt {node!r}: no such node; nodes: {list(net.named_families)}.")
    return members, no_network


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


def _print_cut_points(model, est) -> None:
    steps = [step for _, step in model.steps[:-1]] if hasattr(model, "steps") else []
    steps += [step for step in [getattr(est, "_discretizer", None)] if step is not None]  # multilabel: inside
    for step in steps:
        cuts = getattr(step, "cut_points_", None)
        if not cuts:
            continue
        print(f"cut points ({type(step).__name__}):")
        for column, points in cuts.items():
            shown = ", ".join(f"{p:.6g}" for p in points) if len(points) else "(none: one bin)"
            print(f"  {column}: {shown}")


def _print_cpts(net, nodes) -> None:
    from bnclf.io._text import cpt_table

    for node in nodes or []:
        given = ", ".join(map(str, net.named_families[node])) or "-"
        print(f"\n  P({node} | {given})")
        print(cpt_table(net, node).round(4).to_string(line_width=120))  # wide tables in blocks


def _show_multilabel(model, est, members, args: argparse.Namespace) -> None:
    """Labels, features, the label graph of each member and each feature's label parents."""
    labels = list(est.label_names_)
    print(f"labels ({len(labels)}): {', '.join(map(str, labels))}")
    print(f"features ({est.n_features_in_}): {', '.join(map(str, est.feature_names_in_))}")
    _print_cut_points(model, est)
    if not _is_multilabel_network(est):
        chains = getattr(est, "chain_seeds_", None)
        if chains is not None:
            print(f"chain seeds ({len(chains)}): {', '.join(map(str, chains))}")
        print(
            f"{type(est).__name__} is not one Bayesian network (a naive Bayes per label"
            f"{', in chains' if chains is not None else ''}): there is no label graph to show."
        )
        return
    selected = list(est.selected_features_)
    print(f"selected features ({len(selected)} of {est.n_features_in_}): {', '.join(map(str, selected))}")
    print(f"treewidth of the label part (what exact queries cost): {est.treewidth_}")
    label_set = set(labels)
    for key, net in members:
        arcs = [(u, v) for u, v in net.dag.edges if u in label_set and v in label_set]
        root = getattr(est, "root_", None) if key is None else None
        title = net.title or (f"root: {root}" if root is not None else "")
        print(f"\n[{title}]" + (f" (member {key})" if key is not None else ""))
        print("label graph (label <- label parents):")
        for label in labels:
            parents = [u for u, v in arcs if v == label]
            print(f"  {label} <- {', '.join(map(str, parents)) if parents else '(no parents)'}")
        _print_cpts(net, args.cpt)
    print("\nbridge (feature <- label parents; selected features only):")
    for feature in selected:
        parents = est.bridge_parents_[feature]
        print(f"  {feature} <- {', '.join(map(str, parents)) if parents else '(no label parent: independent)'}")


def cmd_show(args: argparse.Namespace) -> None:
    from bnclf.io._models import load_model

    model = load_model(args.model_file)
    est = final_estimator(model)
    members, no_network = _members(est, args)
    if args.dot:
        if not members:
            raise ValueError(no_network)
        from bnclf.io._text import network_dot

        print("\n".join(network_dot(net) for _, net in members))
        return
    params = ", ".join(f"{k}={v!r}" for k, v in sorted(est.get_params().items()))
    print(f"{type(est).__name__}({params})")
    _print_seed(est)
    if is_multilabel_model(est):
        _show_multilabel(model, est, members, args)
        return
    print(f"classes ({len(est.classes_)}): {', '.join(map(str, est.classes_))}")
    print(f"features ({est.n_features_in_}): {', '.join(map(str, est.feature_encoder_.feature_names_))}")
    one_state = getattr(est, "one_state_features_", [])
    if one_state:
        print(
            f"one-state features ({len(one_state)}; no information, left out of exported networks): "
            + ", ".join(map(str, one_state))
        )
    _print_cut_points(model, est)
    if not members:
        print(no_network)
        return
    from bnclf.learn._restricted import markov_blanket

    for key, net in members:
        if key is not None or net.title:
            print(f"\n[{net.title or key}]" + (f" (member {key})" if key is not None else ""))
        print("structure (child <- parents):")
        for child, parents in net.named_families.items():
            print(f"  {child} <- {', '.join(map(str, parents)) if parents else '(no parents)'}")
        if net.has_class:
            blanket = markov_blanket(net.dag, net.class_name)
            print(f"  Markov blanket of {net.class_name} ({len(blanket)}): {', '.join(map(str, blanket))}")
        _print_cpts(net, args.cpt)
