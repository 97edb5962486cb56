"""The five seed papers as data: each module holds a paper's data sets, published values
and protocol, and builds the :class:`~reproduction._paper.Paper` that ``reproduce.py`` runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._paper import Paper
from . import corani2014, duan2019, kelner2012, long2019, sun2017

#: key -> (seed number, title, aliases)
CATALOGUE = {
    "sun2017": ("000", "Sun, Wang & Sun (2017), Table 4", ("000", "seed000", "ltan")),
    "kelner2012": ("001", "Kelner & Lerner (2012), Tables 2 and 6", ("001", "seed001", "rmcv")),
    "corani2014": ("002", "Corani, Antonucci, Mauá & Gabaglio (2014), Tables 3-4", ("002", "seed002", "multilabel")),
    "long2019": ("003", "Long, Wang & Sun (2019), ETAN, Tables A2-A3", ("003", "seed003", "etan")),
    "duan2019": (
        "004",
        "Duan, Wang, Mammadov, Lou & Sun (2019), discriminatory target learning",
        ("004", "seed004", "target", "dtl"),
    ),
}


def resolve(names: Sequence[str]) -> list[str]:
    """Paper keys for names, seed numbers or aliases (``all`` for every paper).

    Parameters
    ----------
    names : sequence of str

    Returns
    -------
    list of str

    Raises
    ------
    KeyError
        For a name that is none of these.
    """
    lookup = {k: k for k in CATALOGUE}
    for key, (_, _, aliases) in CATALOGUE.items():
        lookup.update(dict.fromkeys(aliases, key))
    keys = []
    for name in names:
        if name.lower() == "all":
            keys += list(CATALOGUE)
        elif name.lower() in lookup:
            keys.append(lookup[name.lower()])
        else:
            raise KeyError(f"unknown paper {name!r}; known: {', '.join(lookup)}, all")
    return list(dict.fromkeys(keys))


FACTORIES = {
    "sun2017": sun2017.make_paper,
    "kelner2012": kelner2012.make_paper,
    "corani2014": corani2014.make_paper,
    "long2019": long2019.make_paper,
    "duan2019": duan2019.make_paper,
}


def make_paper(key: str, quick: bool = False) -> Paper:
    """The protocol of a paper.

    Parameters
    ----------
    key : str
        A key of :data:`CATALOGUE` (see :func:`resolve` for the aliases).
    quick : bool, default=False
        A few small data sets and fewer repetitions.

    Returns
    -------
    Paper
    """
    return FACTORIES[key](quick=quick)
