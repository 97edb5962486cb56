"""Every ``bnclf`` command of the README's and the docs' ``bash`` blocks runs.

Each command line (comments removed, ``&&`` chains split, the part before a shell pipe
kept) is run through :func:`bnclf.cli.main` in a temporary folder that holds the files the
pages name: ``data.csv`` (heart-c, class ``target`` in the last column), ``new.csv`` (its
features with a ``patient_id`` column), ``train.csv`` and ``test.csv`` (its first 200 rows and
the others), ``data.arff``, ``soybean.csv``, ``emotions.arff`` (labels last; its first 400
rows and the others in ``emotions-train.arff`` and ``emotions-test.arff``) and ``rows.arff``
(its features). Continuation lines are joined. ``pip``,
``pytest`` and ``python`` lines are the set-up and the benchmarks, run elsewhere."""

import re
import shlex
from pathlib import Path

import matplotlib
import pytest

from bnclf.cli._main import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))


def commands():
    found = []
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for block in re.findall(r"```bash\n(.*?)```", text, re.S):
            for line in block.replace("\\\n", " ").splitlines():  # continuation lines joined
                line = line.split(" #")[0].split("|")[0].strip()
                for part in (p.strip() for p in line.split("&&")):
                    if part.startswith("bnclf "):
                        found.append((page, part))
    return found


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    from bnclf.datasets import load_dataset
    from bnclf.io._arff import write_arff

    d = tmp_path_factory.mktemp("doc-commands")
    X, y = load_dataset("heart-c")
    X.assign(target=y).to_csv(d / "data.csv", index=False)
    X.assign(target=y).iloc[:200].to_csv(d / "train.csv", index=False)
    X.assign(target=y).iloc[200:].to_csv(d / "test.csv", index=False)
    X.assign(patient_id=[f"p{i}" for i in range(len(X))]).iloc[:20].to_csv(d / "new.csv", index=False)
    write_arff(X.assign(target=y), d / "data.arff", relation="heart-c")
    Xs, ys = load_dataset("soybean")
    Xs.assign(**{"class": ys}).to_csv(d / "soybean.csv", index=False)
    from bnclf.datasets import load_multilabel_dataset

    Xm, Ym = load_multilabel_dataset("emotions")
    write_arff(Xm.join(Ym.astype(str)), d / "emotions.arff", relation="emotions")
    write_arff(Xm.join(Ym.astype(str)).iloc[:400], d / "emotions-train.arff", relation="emotions-train")
    write_arff(Xm.join(Ym.astype(str)).iloc[400:], d / "emotions-test.arff", relation="emotions-test")
    write_arff(Xm.iloc[:30], d / "rows.arff", relation="emotions-rows")
    return d


def test_the_pages_have_commands():
    assert len(commands()) >= 15


@pytest.mark.parametrize("page, command", commands(), ids=[f"{p}: {c}" for p, c in commands()])
def test_documented_command_runs(page, command, folder, monkeypatch, keel_files):
    matplotlib.use("Agg")
    monkeypatch.chdir(folder)
    argv = shlex.split(command)[1:]
    try:
        status = main(argv + (["--no-progress"] if argv[0] in ("evaluate", "compare") and "--help" not in argv else []))
    except SystemExit as exc:  # --help
        status = exc.code
    assert status in (None, 0), f"{page}: {command} exited with {status}"
