"""Reproduce the seed papers: one command per paper.

Usage::

    python benchmarks/reproduce.py PAPER [PAPER ...] [--quick] [--data DIR] [--out DIR]
                                   [--jobs N] [--no-cache] [--no-progress]
    python benchmarks/reproduce.py PAPER --analysis NAME [NAME ...] [--data DIR] [--out DIR]
                                   [--seed 0] [--datasets NAME ...] [--resume] [...]
    python benchmarks/reproduce.py --list

``PAPER`` is one of

* ``sun2017`` (alias ``000``): Sun, Wang & Sun (2017), Table 4, zero-one loss of LTAN, NB,
  TAN, KDB(k=1), AODE, WATAN and AKDB(k=1);
* ``kelner2012`` (``001``): Kelner & Lerner (2012), Tables 2 and 6, accuracy of RMCV, its
  variants and its comparators;
* ``corani2014`` (``002``): Corani et al. (2014), Tables 3-4, global and Hamming accuracy of
  the multilabel classifiers;
* ``long2019`` (``003``): ETAN (2019), Tables A2-A3, bias and variance (and their sum);
* ``duan2019`` (``004``, ``target``, ``dtl``): discriminatory target learning (2019), KDB^e
  against KDB(k=2); the paper's per-data-set tables are lost, so only the values its text
  quotes are compared;

or ``all``. Without ``--analysis`` the command runs the paper's headline protocol and writes
``OUT/PAPER/table.csv``, ``table.md``, ``scatter.png`` and ``run.json``, with every finished
fold cached in ``OUT/PAPER/cache/``. With ``--analysis`` it runs the paper's further analyses
(``--list`` names them). The code is the package ``benchmarks/reproduction/``; see
docs/reproduction.md.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reproduction._cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
