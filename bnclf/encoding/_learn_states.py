"""The states of an encoder's columns: learned from a training frame (what
:meth:`FeatureEncoder.fit` finds), or given as labels, and checked."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bnclf.encoding._columns import (
    _column_values,
    _dense_integer_codes,
    _encode_arrow_text,
    _has_pyarrow,
    _hashable,
    _sorted_codes,
    _sorted_factorize,
    dtype_labels,
)
from bnclf.encoding._frames import (
    MAX_INTEGER_CATEGORIES,
    IdLikeColumnWarning,
    ManyValuedIntegerWarning,
    _looks_continuous,
    _unique_missing_label,
    index_labels,
    python_scalar,
    shown_names,
)

#: how many frames a warning below climbs to reach the code that called the encoder's fit:
#: the warning's helper, the step that calls it, :func:`learn_states`, ``FeatureEncoder._fit``, ``fit``
#: (or ``fit_transform``), that code, and its caller
_FIT_STACKLEVEL = 7


@dataclass
class LearnedStates:
    """The states :func:`learn_states` found in a training frame.

    Attributes
    ----------
    names : list
        The columns, in order.
    categories : list of list
        Each column's states in code order, the ``"<missing>"`` state last when the column
        had missing values and ``missing="category"``.
    missing_codes : list of int or None
        The code of each column's ``"<missing>"`` state, None when it has none.
    category_maps : dict
        ``{position: (dtype, None, labels, None)}`` for the categorical columns, whose
        dtype's categories are the states (the map of that dtype to the states is the
        identity): the first entries of :class:`~bnclf.encoding._state_coder.StateCoder`'s
        category maps.
    codes : ndarray of int64 or None
        The training codes, ``(rows, columns)`` column-major (``UNKNOWN`` where a value is
        missing and has no state), when asked for; else None.
    """

    names: list
    categories: list
    missing_codes: list
    category_maps: dict
    codes: np.ndarray | None


def learn_states(X: pd.DataFrame, missing: str, keep_codes: bool) -> LearnedStates:
    """The states of every column of ``X`` and, when ``keep_codes``, its codes.

    A categorical column's states are its dtype's categories, in their order (unused ones
    included); any other column's are its distinct values, sorted (by type name and text
    when they do not compare). Missing values become a state of their own
    (``missing="category"``), are left unknown (``"ignore"``) or are refused (``"error"``).

    Raises
    ------
    ValueError
        ``X`` has no column, two column names with the same text, a column without an
        observed value, a float column with non-integral values (continuous), values that
        cannot be hashed, or missing values under ``missing="error"``.

    Warns
    -----
    ManyValuedIntegerWarning
        A numeric column with more than ``MAX_INTEGER_CATEGORIES`` distinct values.
    IdLikeColumnWarning
        A column of at least 50 values that differ in (nearly) every row.
    """
    names = _checked_names(X)
    n = X.shape[0]
    # column-major: each column is written, and counted from, as one contiguous block
    codes = np.empty((n, len(names)), dtype=np.int64, order="F") if keep_codes else None
    columns, block = _column_values(X)
    arrow = _encode_arrow_text(columns) if _has_pyarrow() else {}  # Arrow-backed text, in one pass
    dense = _dense_integer_codes(columns, block, codes)  # short-range integers: counted, codes written
    categories, category_maps, locals_ = [], {}, []
    for j, (name, values) in enumerate(zip(names, columns)):
        if j in dense:
            local, labels = None, dense[j]  # no missing value; its codes are written
        else:
            local, labels = _column_states(name, values, arrow.get(j))
        _check_labels(name, values, labels)
        if isinstance(values.dtype, pd.CategoricalDtype):  # its categories are the states (no map)
            category_maps[j] = (values.dtype, None, labels, None)
        if keep_codes and local is not None:
            codes[:, j] = local  # a categorical column's int8 or int16 codes, cast
        locals_.append(local)
        categories.append(labels)
    missing_codes = _missing_states(names, categories, locals_, codes, n, missing)
    return LearnedStates(names, categories, missing_codes, category_maps, codes)


def _checked_names(X: pd.DataFrame) -> list:
    if X.shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
            "required: X has no feature columns."
        )
    names = index_labels(X.columns)
    if len(set(map(str, names))) != len(names):
        raise ValueError(f"Feature names must be unique as text; got {names}.")
    return names


def _column_states(name, values, factorized: tuple | None) -> tuple[np.ndarray, list]:
    """``(codes, labels)`` of one column that was not counted as short-range integers: a
    categorical column's codes (-1: missing) and categories; otherwise its values' index
    among its sorted distinct values (``factorized``: the column's ``(codes, distinct
    values)`` when the text columns were encoded together)."""
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        labels = dtype_labels(dtype)
        if not labels:
            raise ValueError(f"column {name!r} has no observed values; drop it.")
        return values.codes, labels  # -1: missing (int8 or int16: cast where written)
    if getattr(dtype, "kind", "O") == "f" and _looks_continuous(values):
        raise ValueError(
            f"column {name!r} looks continuous ({pd.unique(values[~pd.isna(values)]).size} distinct "
            "float values); discretize it first, e.g. with bnclf.MDLDiscretizer in "
            "make_pipeline(MDLDiscretizer(), TANClassifier()) (command line: "
            "--discretize mdl), or cast it to a categorical dtype if its values are categories."
        )
    if factorized is not None:
        local, labels = _sorted_codes(*factorized)
    else:
        try:
            local, labels = _sorted_factorize(values)
        except TypeError as exc:  # lists, dicts, sets: values that cannot be told apart
            bad = next((v for v in values if not _hashable(v)), None)
            raise ValueError(
                f"column {name!r} holds {type(bad).__name__} values such as {bad!r}, which cannot be "
                "categories; a cell must be a number, a text or a category: convert the column "
                f"(e.g. X[{name!r}].astype(str)) or drop it."
            ) from exc
    return local, labels


def _check_labels(name, values, labels: list) -> None:
    """Warn when a numeric column has many values; refuse a column without one."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return  # checked by _column_states, before its codes are read
    if getattr(values.dtype, "kind", "O") in "iuf":  # numpy, masked and arrow dtypes
        _warn_if_many_valued(name, len(labels))
    if not labels:
        raise ValueError(f"column {name!r} has no observed values; drop it.")


def _missing_states(
    names: list, categories: list, locals_: list, codes: np.ndarray | None, n: int, missing: str
) -> list:
    """Each column's ``"<missing>"`` code (None when it has none) among ``n`` rows: the
    missing values get a state of their own (appended to ``categories``, written into
    ``codes``), are left out, or are an error."""
    if codes is not None:  # the columns' least codes in one pass
        lowest = codes.min(axis=0).tolist() if n else [0] * len(names)
    else:
        lowest = [local.min() if local is not None and local.size else 0 for local in locals_]
    missing_codes = []
    for j, (name, local, low) in enumerate(zip(names, locals_, lowest)):
        labels = categories[j]
        if low >= 0 and len(labels) < 50:  # no missing value, too few values to look like an id
            missing_codes.append(None)
            continue
        is_missing = local < 0 if low < 0 else None
        n_missing = 0 if is_missing is None else int(np.count_nonzero(is_missing))
        _warn_if_id_like(name, len(labels), n - n_missing)
        code = None
        if n_missing:
            if missing == "error":
                raise ValueError(
                    f"column {name!r} has {n_missing} missing values and "
                    "missing='error'; use missing='category' (a state of its own) or "
                    "missing='ignore' (left out of the counts), or impute them first."
                )
            if missing == "category":
                code = len(labels)
                categories[j] = labels + [_unique_missing_label(labels)]
                if codes is not None:
                    codes[is_missing, j] = code
        missing_codes.append(code)
    return missing_codes


def _warn_if_many_valued(name, n_values: int) -> None:
    if n_values <= MAX_INTEGER_CATEGORIES:
        return
    warnings.warn(
        f"column {name!r} is an integer column with {n_values} distinct "
        f"values (more than {MAX_INTEGER_CATEGORIES}); each value becomes a "
        "category. If it is a quantity, discretize it (MDLDiscretizer and "
        "QuantileDiscretizer bin such columns, e.g. make_pipeline(MDLDiscretizer(), "
        "TANClassifier()); command line: --discretize mdl); if its values are "
        "categories, cast it with .astype('category') to keep them and silence this warning.",
        ManyValuedIntegerWarning,
        stacklevel=_FIT_STACKLEVEL,
    )


def _warn_if_id_like(name, n_values: int, n_known: int) -> None:
    if not (n_values >= 50 and n_values >= 0.9 * n_known):
        return
    every = "every row" if n_values == n_known else "nearly every row"
    warnings.warn(
        f"column {name!r} has a different value in {every} ({n_values} values in "
        f"{n_known} rows), like an identifier: it tells little about the class of a new "
        f"row and makes its count tables as large as the data; drop it (command line: --drop {name}).",
        IdLikeColumnWarning,
        stacklevel=_FIT_STACKLEVEL,
    )


def given_states(labels: list, has_missing: list | None, missing: str) -> tuple[list, list]:
    """``(categories, missing_codes)`` of columns with these observed ``labels`` (in code
    order, as Python scalars after this) and, per column, whether it had missing values
    (None: none had): a column with missing values gets the ``"<missing>"`` state, last,
    under ``missing="category"``; under any other option its missing values have no state."""
    labels = [[python_scalar(v) for v in column] for column in labels]
    has_missing = [False] * len(labels) if has_missing is None else [bool(h) for h in has_missing]
    categories, codes = [], []
    for column, has in zip(labels, has_missing):
        if has and missing == "category":
            codes.append(len(column))
            column = column + [_unique_missing_label(column)]
        else:
            codes.append(None)
        categories.append(column)
    return categories, codes


def check_states(names: list, categories: list, codes: list) -> None:
    """Raise a ValueError unless the states are consistent: one list of states per column
    (``categories``) and one missing-state code per column (``codes``), names unique as
    text, each list non-empty and without repeated states, and every ``"<missing>"`` state
    the last of its column."""
    if not (len(names) == len(categories) == len(codes)):
        raise ValueError(
            f"the encoder has {len(names)} feature names, {len(categories)} state lists and "
            f"{len(codes)} missing-state codes; they must be one per column."
        )
    if len(set(map(str, names))) != len(names):
        raise ValueError(f"feature names must be unique as text; got {shown_names(names)}.")
    for name, states, code in zip(names, categories, codes):
        if not states:
            raise ValueError(f"column {name!r} has no states.")
        if not pd.Index(states, dtype=object).is_unique:
            raise ValueError(f"column {name!r} has repeated states: {states[:10]}.")
        if code is not None and code != len(states) - 1:
            raise ValueError(f"column {name!r}: the missing-value state must be its last state, not {code}.")
