"""The fitting steps of a multilabel network (:class:`~bnclf.models.MultilabelBNClassifier`).

The estimator's fit goes: the coded features and labels in one count cache
(:func:`label_count_cache`), the bridge search with its time warning and progress bar
(:func:`search_bridge`), the features' families and BDeu tables
(:func:`bridge_families`, :func:`bdeu_tables`), then the class subgraph. A loaded
model's parts are checked against each other by :func:`check_label_network_state`.
"""

from __future__ import annotations

import warnings

import numpy as np

from bnclf.counts._cache import CountCache
from bnclf.encoding._encoder import FeatureEncoder
from bnclf.encoding._frames import DiscreteData
from bnclf.learn._multilabel import bdeu_log_cpt, bridge_search_size, default_max_parents, learn_bridge


def label_count_cache(codes: np.ndarray, labels: np.ndarray, cards: np.ndarray, names: list) -> CountCache:
    """A count cache over the features (``codes``, cardinalities ``cards``) then the 0/1
    labels, variables named ``names`` (features then labels), with one constant class."""
    n = labels.shape[1]
    data = DiscreteData(
        np.hstack([codes, labels.astype(np.int64)]),
        np.append(cards, np.full(n, 2)),
        np.zeros(len(codes), dtype=np.int64),
        1,
    )
    cache = CountCache(data)
    cache.names = [str(v) for v in names] + ["-"]
    return cache


def bdeu_tables(cache: CountCache, families: list[tuple], alpha: float) -> list[np.ndarray]:
    """The BDeu posterior-mean log-CPT of each family (:func:`bnclf.learn._multilabel.bdeu_log_cpt`)."""
    return [bdeu_log_cpt(cache.counts(f), alpha) for f in families]


def search_bridge(
    codes: np.ndarray,
    cards: np.ndarray,
    labels: np.ndarray,
    *,
    alpha: float,
    max_parents: int | None,
    verbose: int,
    owner: str,
) -> dict:
    """:func:`bnclf.learn.learn_bridge` on the selected features, with the default bound on
    the class parents when ``max_parents`` is None.

    Warns (UserWarning, at the caller of the estimator's ``fit``) before a search estimated
    at more than a minute (:func:`bnclf.learn._multilabel.bridge_search_size`); ``verbose``
    shows a tqdm bar over the candidate sets. ``owner`` names the estimator in the warning.
    """
    from tqdm.auto import tqdm  # imported when a fit needs it, not with bnclf

    n_rows, n = labels.shape
    bound = default_max_parents(n_rows, n) if max_parents is None else min(int(max_parents), n)
    n_label_sets = len(np.unique(labels, axis=0)) if n_rows else 0
    size = bridge_search_size(n_rows, cards, n_label_sets, n, bound)
    if size["seconds"] > 60:
        warnings.warn(
            f"{owner}: the bridge search scores up to {size['pairs']:,} feature and "
            f"class-set pairs ({len(cards)} features, {size['sets']:,} sets of at most {bound} of {n} "
            f"classes, {n_label_sets:,} label combinations): up to about {size['seconds'] / 60:.0f} "
            "minutes on one core (pruning usually saves much of it). Lower max_parents, keep "
            "feature_selection='cfs', or pass verbose=1 to follow it.",
            UserWarning,
            stacklevel=4,  # search_bridge <- _fit_coded <- fit <- the caller
        )
    with tqdm(total=size["sets"], desc="bridge", unit="sets", disable=not verbose, leave=False) as bar:
        return learn_bridge(codes, cards, labels, alpha=alpha, max_parents=bound, progress=bar.update)


def bridge_families(selected: np.ndarray, found: list[tuple], m: int) -> tuple[dict, list[tuple]]:
    """``(parents, families)`` of the selected features from the bridge's parent sets
    ``found`` (class indices): ``parents[j]`` the sorted class indices of feature ``j``,
    the families ``(j, *m + class)`` in the order of ``selected``."""
    parents = {int(j): tuple(sorted(p)) for j, p in zip(selected, found)}
    return parents, [(j, *[m + c for c in parents[j]]) for j in selected]


def check_label_network_state(
    encoder: FeatureEncoder,
    n_features_in: int,
    label_names: list,
    networks: list,
    states: list,
    families: list,
    cpts: list,
) -> None:
    """Raise a ValueError unless a loaded multilabel model's parts agree: the encoder's
    columns with ``n_features_in``; the states of the ``networks`` and the stored
    ``states`` with the encoder's and the labels'; each feature CPT's shape with the
    states of its family."""
    if len(encoder.feature_names_) != n_features_in:
        raise ValueError("the encoder's columns do not match n_features_in_.")
    expected = list(encoder.categories_) + [[0, 1] for _ in label_names]
    if any(net.states != expected for net in networks) or states != expected:
        raise ValueError("the states of the networks differ from the encoder's and the labels'.")
    for family, table in zip(families, cpts):
        if np.shape(table) != tuple(len(expected[v]) for v in family):
            raise ValueError(f"the feature CPT of {family} does not fit the states.")
