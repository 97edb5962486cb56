"""Constructor parameters, declared once per estimator and checked in one place.

Each estimator class lists its constructor parameters in a ``_parameters`` table, name
-> constraint; a subclass's table adds to (or overrides) its bases'. ``fit`` calls
:func:`check_parameters`, which checks every entry and raises a ``ValueError`` that
names the parameter, the value given, what the parameter means, what it accepts and its
default, e.g. ``k=-1 is not valid; k is the number of feature parents, an integer >= 0
(2 is the default, 0 gives naive Bayes).`` The tests check that every constructor
parameter of every registered estimator has an entry.

Checks between parameters (``start='nb'`` with ``max_parents=0``) stay in the
estimator's ``_check_params``, after the table's.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import Any


class Constraint(ABC):
    """What one parameter accepts; ``meaning`` and ``note`` make its error message.

    Parameters
    ----------
    meaning : str
        What the parameter is, e.g. ``"the number of feature parents"``.
    note : str
        The default and any special values, e.g. ``"2 is the default, 0 gives naive Bayes"``.
    none : str or None
        What ``None`` means where it is accepted (e.g. ``"no limit"``); ``None`` is not
        accepted when this is None.
    """

    def __init__(self, meaning: str = "", note: str = "", none: str | None = None) -> None:
        self.meaning, self.note, self.none = meaning, note, none

    def allows(self, value: Any) -> bool:
        """Whether ``value`` is accepted."""
        if value is None:
            return self.none is not None
        return self._allows(value)

    @abstractmethod
    def _allows(self, value: Any) -> bool:
        """Whether a value other than None is accepted."""

    @abstractmethod
    def accepts(self, name: str) -> str:
        """What is accepted, e.g. ``"an integer >= 0"`` (``name`` for ranges: ``"0 < delta <= 1"``)."""

    def message(self, name: str, value: Any) -> str:
        """The error message for ``name=value``."""
        accepted = self.accepts(name) + (f", or None ({self.none})" if self.none is not None else "")
        meaning = f"{name} is {self.meaning}, " if self.meaning else "give "
        note = f" ({self.note})" if self.note else ""
        return f"{name}={value!r} is not valid; {meaning}{accepted}{note}."


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


class Integer(Constraint):
    """An integer (not a bool) with ``minimum <= value``."""

    def __init__(self, minimum: int, meaning: str = "", note: str = "", none: str | None = None) -> None:
        super().__init__(meaning, note, none)
        self.minimum = minimum

    def _allows(self, value: Any) -> bool:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= self.minimum

    def accepts(self, name: str) -> str:
        return f"an integer >= {self.minimum}"


class Number(Constraint):
    """A finite real number (not a bool) between ``low`` and ``high``.

    ``low`` and ``high`` are included unless ``low_open``/``high_open``; either may be
    None (unbounded on that side).
    """

    def __init__(
        self,
        low: float | None = None,
        high: float | None = None,
        *,
        low_open: bool = False,
        high_open: bool = False,
        meaning: str = "",
        note: str = "",
        none: str | None = None,
    ) -> None:
        super().__init__(meaning, note, none)
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open

    def _allows(self, value: Any) -> bool:
        if not _is_real(value) or not math.isfinite(value):
            return False
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    def accepts(self, name: str) -> str:
        below = "<" if self.low_open else "<="
        above = "<" if self.high_open else "<="
        if self.low is not None and self.high is not None:
            return f"a number with {self.low:g} {below} {name} {above} {self.high:g}"
        if self.low is not None:
            return f"a finite number {'>' if self.low_open else '>='} {self.low:g}"
        if self.high is not None:
            return f"a finite number {above} {self.high:g}"
        return "a finite number"


class Options(Constraint):
    """One of a fixed set of values."""

    def __init__(self, options: Collection[Any], meaning: str = "", note: str = "", none: str | None = None) -> None:
        super().__init__(meaning, note, none)
        self.options = tuple(options)

    def _allows(self, value: Any) -> bool:
        try:
            return value in self.options
        except (TypeError, ValueError):  # unhashable values, arrays
            return False

    def accepts(self, name: str) -> str:
        return f"one of {list(self.options)}"

    def message(self, name: str, value: Any) -> str:
        options = list(self.options) + ([None] if self.none is not None else [])
        meaning = f" ({name} is {self.meaning})" if self.meaning else ""
        return f"{name}={value!r} is not valid; choose one of {options}{meaning}."


class Boolean(Constraint):
    """``True`` or ``False`` (NumPy's booleans too)."""

    def _allows(self, value: Any) -> bool:
        return isinstance(value, bool) or type(value).__name__ == "bool_"

    def accepts(self, name: str) -> str:
        return "True or False"


class Checked(Constraint):
    """A parameter checked by the estimator's ``_check_params`` or by what it is passed to
    (``random_state`` by scikit-learn's ``check_random_state``, a discretizer by
    ``check_discretizer``); listed so that the table names every parameter."""

    def __init__(self, by: str) -> None:
        super().__init__()
        self.by = by

    def allows(self, value: Any) -> bool:
        return True  # None included: the checker named by ``by`` decides

    def _allows(self, value: Any) -> bool:
        return True

    def accepts(self, name: str) -> str:
        return f"anything {self.by} accepts"


class Transformer(Constraint):
    """One of a few names, or an object with ``fit_transform`` (a discretizer)."""

    def __init__(self, names: Collection[str], meaning: str = "", note: str = "", none: str | None = None) -> None:
        super().__init__(meaning, note, none)
        self.names = tuple(names)

    def _allows(self, value: Any) -> bool:
        return (isinstance(value, str) and value in self.names) or (
            not isinstance(value, str) and hasattr(value, "fit_transform")
        )

    def accepts(self, name: str) -> str:
        names = " or ".join(repr(n) for n in self.names)
        return f"{names} or a transformer with fit/transform (e.g. MDLDiscretizer())"


@functools.cache
def parameter_table(cls: type) -> Mapping[str, Constraint]:
    """The ``_parameters`` of ``cls`` and its bases, a subclass's entries overriding (an
    entry set to None removes a parameter the subclass does not have); made once per class
    (a fit checks its parameters each time), read-only."""
    table: dict[str, Constraint | None] = {}
    for klass in reversed(cls.__mro__):
        table.update(vars(klass).get("_parameters", {}))
    return MappingProxyType({name: constraint for name, constraint in table.items() if constraint is not None})


def check_parameters(estimator: Any) -> None:
    """Raise a ValueError naming the first constructor parameter whose value its
    constraint does not accept."""
    for name, constraint in parameter_table(type(estimator)).items():
        value = getattr(estimator, name)
        if not constraint.allows(value):
            raise ValueError(constraint.message(name, value))


def check_option(name: str, value: Any, options: Collection[Any]) -> None:
    """Raise a ValueError naming ``name`` unless ``value`` is one of ``options``."""
    if isinstance(value, str) and value in options:  # the usual case, without a constraint object
        return
    constraint = Options(options)
    if not constraint.allows(value):
        raise ValueError(constraint.message(name, value))


DEPRECATED = "deprecated"
"""The default of a renamed constructor parameter kept for a release (scikit-learn's way)."""


def verbose_from(verbose: Any, progress: Any, where: str) -> bool:
    """Whether to show progress: ``verbose``, or the renamed ``progress`` where a caller
    still passes it (with a ``FutureWarning``; it goes in bnclf 0.3)."""
    if progress is not None and progress is not DEPRECATED and progress != DEPRECATED:
        warnings.warn(
            f"{where}: progress= was renamed verbose= in bnclf 0.2 and will be removed in 0.3; "
            f"pass verbose={int(bool(progress))}.",
            FutureWarning,
            stacklevel=3,
        )
        return bool(progress)
    return bool(verbose)


class _Verbosity(Integer):
    def _allows(self, value: Any) -> bool:
        return isinstance(value, bool) or super()._allows(value)


VERBOSE = _Verbosity(0, "how much to report while fitting", "0, the default, is silent; 1 shows a tqdm progress bar")
"""The constraint of ``verbose`` (``True``/``False`` are accepted as 1/0)."""

RENAMED_PROGRESS = Options((DEPRECATED, True, False), "renamed verbose")
"""The constraint of an estimator's deprecated ``progress``."""
