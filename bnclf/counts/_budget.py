"""The memory budget of count tables: whether a table, or the tables of a fit, may be made.

Every check compares the bytes of float64 cells (8 each) with
:func:`bnclf._config.memory_budget` before anything is allocated, and raises
:class:`bnclf._config.TableTooLargeError` naming the columns and the fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from bnclf._config import TableTooLargeError, memory_budget, readable_size

_RAISE_BUDGET = "bnclf.set_config(memory_budget=...) or $BNCLF_MEMORY_BUDGET raises the budget."


def describe_columns(cardinalities: np.ndarray, names: Sequence[str], variables: Iterable[int]) -> str:
    """``'name' (r values), ...`` of ``variables``, for an error message."""
    return ", ".join(f"{names[v]!r} ({int(cardinalities[v])} values)" for v in variables)


def check_table_size(
    cardinalities: np.ndarray,
    names: Sequence[str],
    family: Iterable[int],
    cells: float | None = None,
    what: str = "the count table of",
) -> None:
    """Raise :class:`TableTooLargeError` if the table of ``family`` (or ``cells`` float64
    cells, when given) would not fit the memory budget.

    The message reads ``{what} {columns} would have ...``: ``what`` names the array, the
    columns are those of ``family`` (names from ``names``, sizes from ``cardinalities``).
    """
    family = [int(v) for v in family]
    if cells is None:
        cells = float(np.prod([float(cardinalities[v]) for v in family]))
    need, budget = 8.0 * cells, memory_budget()
    if need <= budget:
        return
    raise TableTooLargeError(
        f"{what} {describe_columns(cardinalities, names, family)} would have {cells:,.0f} cells "
        f"({readable_size(need)}), over the memory budget of {readable_size(budget)}. Lower k or max_parents, "
        f"merge rare categories, discretize many-valued columns, or drop identifier columns; {_RAISE_BUDGET}"
    )


def family_cells(cardinalities: np.ndarray, families: Sequence[Sequence[int]]) -> np.ndarray:
    """The number of cells of each family's table (float64), one product per family length."""
    cards = cardinalities.astype(np.float64)
    cells = np.empty(len(families))
    by_length: dict[int, list[int]] = {}
    for k, key in enumerate(families):
        by_length.setdefault(len(key), []).append(k)
    for length, members in by_length.items():
        keys = np.array([list(families[k]) for k in members], dtype=np.int64).reshape(len(members), length)
        cells[members] = cards[keys].prod(axis=1)
    return cells


def check_tables_total(
    cardinalities: np.ndarray, names: Sequence[str], families: Sequence[Sequence[int]], held_cells: float
) -> None:
    """Raise :class:`TableTooLargeError` if the tables of ``families``, added to
    ``held_cells`` cells already held, would together exceed the memory budget.

    Every table of a fit may pass the budget on its own while their sum does not (AODE's
    SPODEs on many many-valued columns). When the largest table is over the budget on its
    own, the error is :func:`check_table_size`'s, naming it.
    """
    if not len(families):
        return
    cells = family_cells(cardinalities, families)
    need, budget = 8.0 * (held_cells + float(cells.sum())), memory_budget()
    if need <= budget:
        return
    largest = families[int(np.argmax(cells))]
    check_table_size(cardinalities, names, largest)
    raise TableTooLargeError(
        f"the {len(families):,} count tables this fit needs (the largest of "
        f"{describe_columns(cardinalities, names, largest)}) would together take {readable_size(need)} "
        f"with those already counted, over the memory budget of {readable_size(budget)}. Lower k or max_parents, "
        "use fewer or fewer-valued columns (discretize with fewer bins, merge rare categories, drop identifier "
        f"columns) or a learner with fewer families; {_RAISE_BUDGET}"
    )
