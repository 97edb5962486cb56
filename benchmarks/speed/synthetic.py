"""Synthetic tables of the speed benchmarks (numpy and pandas only, so that a timing
subprocess of an older checkout can import them too)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def synthetic(n_rows: int, n_features: int, seed: int = 0):
    """Rows of a chain-augmented naive Bayes network: class -> every feature, feature j-1 -> j.

    A class of 3 values and features of 3 to 5 states, each depending on the class and on the
    previous feature. Returns ``(X, y, codes, y_codes)``: ``X`` of ``category`` columns, ``y``
    of labels ``a``/``b``/``c``, and the same as integer codes.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    cards = 3 + np.arange(n_features) % 3
    codes = np.empty((n_rows, n_features), dtype=np.int64)
    previous = np.zeros(n_rows, dtype=np.int64)
    for j, r in enumerate(cards):
        shift = (y + previous) % r  # the state favoured by (class, previous feature)
        noise = rng.integers(0, r, n_rows)
        codes[:, j] = np.where(rng.random(n_rows) < 0.6, shift, noise)
        previous = codes[:, j]
    frame = pd.DataFrame(
        {
            f"x{j}": pd.Categorical.from_codes(codes[:, j], categories=[f"s{v}" for v in range(r)])
            for j, r in enumerate(cards)
        }
    )
    return frame, pd.Series(np.array(["a", "b", "c"])[y], name="class"), codes, y


def make_data(n, rows=10_000, values=4, seed=0):
    """``rows`` x ``n`` attributes of ``values`` values (text), a class of 3; every third
    attribute copies its predecessor with probability 0.7, so that TAN's trees are not
    arbitrary."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, values, size=(rows, n))
    for j in range(2, n, 3):
        copy = rng.random(rows) < 0.7
        codes[copy, j] = codes[copy, j - 1]
    X = pd.DataFrame(codes.astype(str), columns=[f"f{i}" for i in range(n)])
    y = pd.Series(rng.integers(0, 3, rows).astype(str), name="class")
    return X, y
