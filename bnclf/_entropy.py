"""``n ln n`` and the entropy of a count table: the two sums every information measure of
bnclf is made of (:mod:`bnclf.counts`), and the MDL discretizer's (:mod:`bnclf.encoding`),
kept below both so that encoding does not depend on counting."""

from __future__ import annotations

import math
from typing import overload

import numpy as np
from numpy.typing import ArrayLike


@overload
def xlogx(counts: float) -> float: ...


@overload
def xlogx(counts: np.ndarray) -> np.ndarray: ...


def xlogx(counts: ArrayLike) -> np.ndarray | float:
    """``n * ln(n)`` with ``0 ln 0 = 0`` (Weka's ``ContingencyTables.lnFunc``), elementwise;
    a single count gives a NumPy float."""
    counts = np.asarray(counts, dtype=float)
    out = np.zeros_like(counts)
    np.log(counts, out=out, where=counts > 0)
    out *= counts
    return out if out.ndim else out[()]


def entropy(counts: ArrayLike) -> float:
    """Shannon entropy in bits of the distribution given by a count table.

    Computed as ``(N ln N - sum_k n_k ln n_k) / (N ln 2)``, summed in cell order
    as Weka's ``ContingencyTables.entropy`` does, so that the MDL discretizer's
    ties resolve exactly as Weka's.
    """
    counts = np.asarray(counts, dtype=float).ravel()
    total = float(counts.sum())
    if total <= 0:
        return 0.0
    acc = -float(np.add.accumulate(xlogx(counts))[-1])  # Weka's sequential loop: 0 - t0 - t1 - ...
    return (acc + float(xlogx(total))) / (total * math.log(2.0))
