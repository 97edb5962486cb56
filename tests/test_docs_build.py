"""The documentation site builds with warnings as errors, and has what it promises.

The build runs on a copy of ``docs/`` and ``examples/`` in pytest's temporary folder (the
build generates sources next to ``docs/conf.py``: the API stubs, the staged examples and
the gallery), as ``sphinx-build -W --keep-going -b html docs <tmp>/html``. It executes
every example of the gallery and takes about 50 s on two cores. The docs packages come
with the ``test`` extra (``docs`` extra on its own); without them the tests are skipped.
"""

import importlib
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# written by a build into docs/ (git-ignored), not copied
GENERATED = ("_build", "_gallery_src", "auto_examples", "generated", "__pycache__")
PAGES = [
    "getting-started",
    "estimators",
    "ensembles",
    "instance_specific",
    "rmcv",
    "multilabel",
    "discretization",
    "evaluation",
    "scaling",
    "reproduction",
    "performance",
    "architecture",
]
NOT_DOCUMENTED = {"bnclf.cli"}  # the command line: its --help, README and getting-started.md
MODULES = ["bnclf"] + [  # every public package and module (the internals start with "_")
    f"bnclf.{info.name}"
    for info in pkgutil.iter_modules(importlib.import_module("bnclf").__path__)
    if not info.name.startswith("_") and f"bnclf.{info.name}" not in NOT_DOCUMENTED
]


def _snapshot(folder):
    return {
        str(p): p.stat().st_mtime_ns
        for p in folder.rglob("*")
        if not any(part in GENERATED for part in p.relative_to(folder).parts)
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for module in ("sphinx", "numpydoc", "myst_parser", "sphinx_gallery", "pydata_sphinx_theme"):
        pytest.importorskip(module)
    work = tmp_path_factory.mktemp("docs-build")
    shutil.copytree(DOCS, work / "docs", ignore=shutil.ignore_patterns(*GENERATED))
    shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns(*GENERATED))
    try:  # docs/reproduction.md shows figures from benchmarks/results
        (work / "benchmarks").symlink_to(ROOT / "benchmarks", target_is_directory=True)
    except OSError:
        shutil.copytree(ROOT / "benchmarks", work / "benchmarks")
    before = _snapshot(DOCS) | _snapshot(ROOT / "examples")
    env = dict(os.environ, MPLBACKEND="Agg")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            str(work / "docs"),
            str(work / "html"),
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, f"sphinx-build failed:\n{result.stderr[-20000:]}"
    assert _snapshot(DOCS) | _snapshot(ROOT / "examples") == before, "the build wrote into the repository"
    return work / "html"


def _inventory(html):
    """``{(name, domain:role)}`` of the built objects.inv."""
    data = (html / "objects.inv").read_bytes()
    body = zlib.decompress(data.split(b"\n", 4)[4]).decode()
    found = set()
    for line in body.splitlines():
        match = re.match(r"(.+?)\s+(\S+:\S+)\s+-?\d+\s", line)
        if match:
            found.add((match.group(1), match.group(2)))
    return found


def _public(module):
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", None) == module.__name__
    ]


def test_index_links_the_pages_in_order(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    main = index[index.index("<main") :]
    positions = [main.find(f'href="{page}.html"') for page in PAGES]
    assert all(p >= 0 for p in positions), dict(zip(PAGES, positions))
    assert positions == sorted(positions)
    for target in ("api/index.html", "auto_examples/index.html"):
        assert f'href="{target}"' in main
    for page in DOCS.glob("*.md"):  # every Markdown page of docs/ is in the site
        assert (site / f"{page.stem}.html").exists(), page.name


def test_every_public_name_has_a_page(site):
    inventory = _inventory(site)
    names = {name for name, _ in inventory}
    modules = MODULES
    for modname in modules:
        assert (modname, "py:module") in inventory, modname
    exported = {}  # object -> every public name it has
    for modname in modules:
        module = importlib.import_module(modname)
        for name in _public(module):
            exported.setdefault(id(getattr(module, name)), set()).add(f"{modname}.{name}")
    missing = sorted(min(full) for full in exported.values() if not full & names)
    assert not missing, f"public names without a page: {missing}"


def test_estimator_page(site):
    page = (site / "api" / "generated" / "bnclf.MultilabelBNClassifier.html").read_text(encoding="utf-8")
    for section in (
        "Parameters",
        "Attributes",
        'id="bnclf.MultilabelBNClassifier.fit"',
        'id="bnclf.MultilabelBNClassifier.map_query"',
    ):
        assert section in page, section
    assert "get_params" not in page  # scikit-learn's inherited members are not repeated


def test_gallery_shows_every_example_with_its_figures(site):
    gallery = (site / "auto_examples" / "index.html").read_text(encoding="utf-8")
    for script in sorted((ROOT / "examples").glob("*.py")):
        page = site / "auto_examples" / f"{script.stem}.html"
        assert page.exists(), script.name
        assert f'href="{script.stem}.html"' in gallery
        text = page.read_text(encoding="utf-8")
        assert re.search(rf'<img [^>]*src="\.\./_images/sphx_glr_{script.stem}_001\.png"', text), script.name
        assert "sphx-glr-script-out" in text  # what the script printed
        # one image below the other, each up to the page's width (not a row of small ones),
        # and a link to the full-size file
        assert "sphx-glr-horizontal" not in text and "sphx-glr-multi-img" not in text, script.name
        for image in re.findall(r'<img [^>]*src="\.\./_images/(sphx_glr_[^"]+\.png)"', text):
            assert f'href="../_images/{image}"' in text, image


def test_gallery_pages_show_no_path_of_the_build(site):
    """What the examples print names the files they wrote, not the folders of the machine
    that built the site (its temporary build folder, the repository)."""
    work = site.parent
    folders = {str(work), str(work.resolve()), str(ROOT)}
    pages = sorted((site / "auto_examples").glob("*.html")) + sorted((site / "_sources" / "auto_examples").glob("*"))
    assert len(pages) > len(list((ROOT / "examples").glob("*.py")))
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for folder in folders:
            assert folder not in text, f"{page.relative_to(site)} shows {folder}"
