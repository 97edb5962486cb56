"""The parts of AODE and WAODE (:class:`~bnclf.models.AODEClassifier`) that are not the estimates.

* :class:`SuperParentWeights`: each row's member weights under the frequency limit (a
  SPODE counts for a row when its super-parent value is frequent enough in training).
* :func:`spode_networks`: the member networks, every SPODE then naive Bayes, from the
  fitted SPODE tables.
* :func:`frequency_limit_manifest`: what a reader of the exported network files needs to
  reproduce the row weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from bnclf.inference._spodes import every_value_frequent
from bnclf.learn._restricted import spode_families
from bnclf.network import Network


class SuperParentWeights:
    """The member weights ``(SPODE 0..d-1, naive Bayes)`` of rows under AODE's frequency limit.

    Parameters
    ----------
    value_counts : sequence of ndarray
        Each feature's training count of each of its values.
    cardinalities : array-like of shape (d,)
        The features' numbers of states (the lengths of ``value_counts``).
    base : ndarray of shape (d,)
        The SPODEs' weights before the limit.

    Attributes
    ----------
    counts : ndarray
        Every feature's value counts in one array, then a 0 for an unknown value.
    offsets : ndarray of shape (d,)
        Each feature's first position in ``counts``.
    every_qualifies : ndarray of shape (d + 1,)
        The weights of a row in which every super-parent qualifies (read-only).
    """

    def __init__(self, value_counts: Sequence[np.ndarray], cardinalities: ArrayLike, base: np.ndarray) -> None:
        cards = np.asarray(cardinalities, dtype=np.int64)
        self.offsets = np.cumsum(cards) - cards
        self.counts = np.concatenate([*value_counts, [0.0]]).astype(float, copy=False)
        self.base = base
        self.every_qualifies = self.qualified(np.ones((1, len(value_counts)), dtype=bool))[0]
        self.every_qualifies.flags.writeable = False

    def __call__(self, codes: np.ndarray, limit: float) -> np.ndarray:
        """Each row's weights ``(n, d + 1)``: the SPODEs whose super-parent value has at least
        ``limit`` training rows, else naive Bayes alone, normalized. When every super-parent
        qualifies in every row (a limit of 0, or every value known and frequent enough),
        :attr:`every_qualifies` ``(d + 1,)``, the same numbers for every row."""
        n, d = codes.shape
        if limit <= 0 or not n or every_value_frequent(codes, self.counts, self.offsets, limit):
            return self.every_qualifies
        # each row's count of its value of each feature, in one gather (unknown: the 0 at the end)
        frequency = self.counts.take(np.where(codes >= 0, codes + self.offsets, self.counts.size - 1))
        return self.qualified(frequency >= limit)

    def qualified(self, qualifies: np.ndarray) -> np.ndarray:
        """The normalized weights ``(n, d + 1)`` of rows whose super-parents ``qualifies`` ``(n, d)``:
        the base weights of the qualifying SPODEs, or naive Bayes alone when none qualifies."""
        n, d = qualifies.shape
        weights = np.zeros((n, d + 1))
        weights[:, :d] = np.where(qualifies, self.base[:d], 0.0)
        none = ~(weights[:, :d] > 0).any(axis=1)
        weights[none, d] = 1.0
        return weights / weights.sum(axis=1, keepdims=True)


def spode_networks(
    tables: dict,
    child_cpt: Callable[[tuple], np.ndarray] | None,
    cardinalities: ArrayLike,
    node_names: list,
    states: list,
    title: Callable[[int | None], str],
) -> list[Network]:
    """The member networks, the SPODE of each feature then naive Bayes, their CPTs views of ``tables``.

    ``tables`` holds ``priors`` ``(d, C)``, ``parents`` and ``nb_children`` (stacked by
    value position), ``nb_prior`` and, unless ``child_cpt`` is given, ``pairs`` (the
    all-pairs table); ``child_cpt(family)`` gives a SPODE child's CPT otherwise.
    ``title(p)`` names the member of super-parent ``p`` (None: naive Bayes).
    """
    d = len(node_names) - 1
    cards = np.asarray(cardinalities, dtype=np.int64)
    block = [slice(o, o + r) for o, r in zip(np.cumsum(cards) - cards, cards)]
    if child_cpt is None:
        pairs = np.asarray(tables["pairs"])  # a PairLogTable made whole
        child_cpt = lambda family: pairs[block[family[0]], block[family[1]]]  # noqa: E731
    networks = []
    for p in [*range(d), None]:
        if p is None:
            cpts = [tables["nb_children"][block[j]] for j in range(d)] + [tables["nb_prior"]]
        else:
            cpts = [child_cpt((j, p, d)) for j in range(d)] + [tables["priors"][p]]
            cpts[p] = tables["parents"][block[p]]
        networks.append(Network(spode_families(d, p), cpts, node_names, states, d, title=title(p)))
    return networks


def frequency_limit_manifest(limit: float, node_names: list, value_counts: Sequence[np.ndarray]) -> dict:
    """The manifest entries of AODE's exported networks: the frequency limit, each feature's
    value counts, and the rule that makes the row weights from them."""
    if limit > 0:
        rule = (
            "a SPODE's weight is zero for a row whose super-parent value occurs fewer than "
            "frequency_limit times in training (value_counts); the weights of a row are "
            "renormalized; the last member (naive Bayes) has weight 1 when no SPODE qualifies"
        )
    else:
        rule = (
            "frequency_limit is 0, so every SPODE qualifies for every row and the weights are "
            "the same for every row (the naive Bayes fallback, which no row uses, is not written)"
        )
    return {
        "frequency_limit": limit,
        "value_counts": {str(name): [float(v) for v in counts] for name, counts in zip(node_names, value_counts)},
        "row_weights": rule,
    }
