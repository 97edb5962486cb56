"""``python -m bnclf``: the ``bnclf`` command, for environments without its script on PATH."""

import sys

from bnclf.cli import main

sys.exit(main())
