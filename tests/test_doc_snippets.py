"""Every ``python`` code block of the README and the docs runs.

The blocks of one page run in order in one namespace (later blocks use earlier ones), in a
temporary folder. A block preceded by ``<!-- snippet: skip ... -->`` is not run (the
comment says why)."""

import re
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
BLOCK = re.compile(r"(<!-- snippet: skip[^>]*-->\s*)?```python\n(.*?)```", re.S)


def blocks(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    return [code for skip, code in BLOCK.findall(text) if not skip]


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)])
def test_page_snippets_run(page, tmp_path, monkeypatch, keel_files):
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__snippet__"}
    for number, code in enumerate(blocks(page)):
        try:
            exec(compile(code, f"{page} (python block {number + 1})", "exec"), namespace)
        except Exception as exc:  # name the page and block
            raise AssertionError(f"{page}, python block {number + 1}: {type(exc).__name__}: {exc}") from exc


def _modules_with_examples():
    import importlib
    import pkgutil

    import bnclf

    names = ["bnclf"] + [m.name for m in pkgutil.walk_packages(bnclf.__path__, "bnclf.") if m.name != "bnclf.__main__"]
    files = {n: Path(importlib.import_module(n).__file__) for n in names}
    # Python modules; the compiled kernels' examples would be in their tests
    return [n for n, f in files.items() if f.suffix == ".py" and ">>> " in f.read_text(encoding="utf-8")]


@pytest.mark.parametrize("module", _modules_with_examples())
def test_docstring_examples_run(module, tmp_path, monkeypatch):
    """The ``>>>`` examples of the API reference (numpydoc Examples sections) are doctests."""
    import doctest
    import importlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(
        importlib.import_module(module), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0, f"{module}: {result.failed} of {result.attempted} examples failed (output above)"
