"""What a predict-time value without a state becomes: matched by its text, a missing state,
unknown (summed out), or refused; and the warning when most of a column is unseen."""

from __future__ import annotations

import warnings
from collections.abc import Hashable

import numpy as np
import pandas as pd

from bnclf.encoding._columns import _objects
from bnclf.encoding._frames import UnseenValuesWarning, _text

Column = np.ndarray | pd.api.extensions.ExtensionArray
"""A column's values: a numpy array or a pandas extension array."""


def match_by_text(name: Hashable, labels: list, values: Column, col: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """``col`` with the codes of the unseen values whose text names exactly one of the
    observed states ``labels`` of column ``name`` (``col`` itself when none does).

    A column read as integers at predict time but as strings ``'0'``, ``'1'``
    at fit time (or the other way round) would otherwise have every value
    unseen and summed out, and the model would answer its prior. When the
    known states have distinct texts, a value is matched by its text (an
    integral float by the text of its integer). When several states share a
    text (``1`` and ``'1'``), a value with that text is an error that names the
    column and the fix, rather than a guess.

    Raises
    ------
    ValueError
        An unseen value's text is the text of several states.
    """
    texts = pd.Index([_text(v) for v in labels])
    codes, distinct = pd.factorize(_objects(values)[unseen])
    if not texts.is_unique:  # e.g. both 1 and '1' are states: a value with that text is ambiguous
        shared = set(texts[texts.duplicated(keep=False)])
        clash = [v for v in distinct if _text(v) in shared]
        if clash:
            states = [s for s in labels if _text(s) == _text(clash[0])]
            raise ValueError(
                f"column {name!r}: the value {clash[0]!r} matches none of the "
                f"training states exactly, and its text matches several of them ({states!r}); "
                "give the column the type it had in training (e.g. .astype(str), or "
                ".astype(int)), so that each value names one state."
            )
        return col  # no value's text is ambiguous: the unseen values stay unseen
    matched = texts.get_indexer([_text(v) for v in distinct])  # once per distinct value
    col = col.copy()
    col[np.flatnonzero(unseen)] = matched[codes]
    return col


def refuse_unseen(name: Hashable, states: list, values: Column, unseen: np.ndarray) -> None:
    """Raise the ValueError for the values of column ``name`` never seen in training."""
    examples = pd.unique(_objects(values)[unseen])[:5].tolist()
    raise ValueError(
        f"column {name!r} has values never seen in training: {examples}; known "
        f"values are {states[:10]}. Use handle_unknown='marginalize' "
        "to sum them out, or refit on data that contains them."
    )


def fill_missing(
    name: Hashable, missing_code: int | None, col: np.ndarray, missing: np.ndarray, refuse: bool
) -> np.ndarray:
    """``col`` with its ``missing`` values given the ``"<missing>"`` state ``missing_code``;
    without one they stay unknown, or are a ValueError when ``refuse``."""
    if missing.any():
        if missing_code is not None:
            col[missing] = missing_code
        elif refuse:
            raise ValueError(
                f"column {name!r} has {int(missing.sum())} missing "
                "values, which the model has no state for, and handle_unknown='error'; "
                "use handle_unknown='marginalize' to sum them out exactly."
            )
    return col


def warn_if_mostly_unseen(
    name: Hashable, states: list, values: Column, unseen: np.ndarray, missing: np.ndarray
) -> None:
    """Warn (:class:`UnseenValuesWarning`) when at least 10 values of column ``name`` are
    observed and half of them or more were never seen in training. The warning names the
    code that asked for the codes (three frames up: the encoder's coding steps)."""
    observed = int((~missing).sum())
    if observed >= 10 and unseen.sum() >= 0.5 * observed:
        examples = pd.unique(_objects(values)[unseen])[:3].tolist()
        warnings.warn(
            f"column {name!r}: {int(unseen.sum())} of {observed} values "
            f"were never seen in training (e.g. {examples}; known: "
            f"{states[:5]}); they are summed out, so the model answers "
            "without this column. Check that the column has the same type and coding as "
            "in training.",
            UnseenValuesWarning,
            stacklevel=4,
        )
