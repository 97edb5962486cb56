"""The compiled kernels: every ``.pyx`` file under ``bnclf/`` becomes an extension module of
the same dotted name, built by ``pip install .`` (a C compiler is needed, as for any source
install of a compiled package). Each ``.pyx`` file carries its Cython directives in its
first lines, so ``cythonize -i FILE.pyx`` builds it alone the same way while developing.
Everything else about the package is in ``pyproject.toml``."""

import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

here = Path(__file__).parent
sources = sorted(path.relative_to(here) for path in (here / "bnclf").rglob("*.pyx"))
extensions = [Extension(".".join(path.with_suffix("").parts), [str(path)]) for path in sources]
# the extensions compile in parallel, one per CPU: they are independent
setup(
    ext_modules=cythonize(extensions, language_level=3, quiet=True, nthreads=os.cpu_count() or 1),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
