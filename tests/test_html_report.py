"""``bnclf compare --html`` and ``bnclf evaluate --html``: one self-contained page whose tables
hold the numbers of the Markdown report and the CSV files of the same run, whose figures are
inline SVG that parse, and which refers to nothing outside itself. The browser test (slow)
opens the pages in headless Chromium."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnclf.cli._main import main
from bnclf.datasets import dataset_path, load_dataset


class _Page(HTMLParser):
    """The tables of a page (rows of cell texts, the caption apart) and every tag with its attributes."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self.tags: list[tuple[str, dict]] = []
        self._table = self._row = self._cell = None
        self._in_caption = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self._table = {"caption": "", "rows": []}
            self.tables.append(self._table)
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table["rows"].append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        elif tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._in_caption and self._table is not None:
            self._table["caption"] += data
        elif self._cell is not None:
            self._cell.append(data)


def check_page(text: str) -> _Page:
    """What every report must be: parseable, self-contained (nothing fetched: no script, style
    sheet, font or image from elsewhere; links only to anchors of the page), its SVG figures
    well-formed XML with ids unique in the page and references that resolve."""
    assert text.startswith("<!DOCTYPE html>")
    page = _Page(text)
    for tag, attrs in page.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed", "img", "base"), tag
        for name in ("src", "href", "xlink:href", "action", "poster"):
            value = attrs.get(name)
            if value is not None:
                assert value.startswith("#"), (tag, name, value)
        assert "url(" not in attrs.get("style", "") or "url(#" in attrs.get("style", ""), attrs
    assert "@import" not in text and "@font-face" not in text
    assert not re.search(r"""url\(\s*['"]?(?!#)""", text), "a url() that is not an anchor of the page"
    svgs = re.findall(r"<svg\b.*?</svg>", text, flags=re.S)
    assert len(svgs) == text.count("<svg "), "nested or unclosed <svg>"
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert float(root.get("width").removesuffix("pt")) > 0 and float(root.get("height").removesuffix("pt")) > 0
        assert root.get("role") == "img" and root.get("aria-label")
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), "ids shared by two elements"
    refs = set(re.findall(r'href="#([^"]+)"', text)) | set(re.findall(r"url\(#([^)]+)\)", text))
    assert refs <= set(ids), refs - set(ids)
    return page


def _tables_of_markdown(text: str) -> list[list[list[str]]]:
    """The tables of a Markdown report, each a list of rows of cell texts (bold marks dropped)."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip().replace("**", "") for c in line.strip().strip("|").split("|")]
            if set("".join(cells)) <= set("-"):
                continue  # the rule under the header
            if current is None:
                current = []
                tables.append(current)
            current.append(cells)
        else:
            current = None
    return tables


@pytest.fixture(scope="module")
def evaluate_run(tmp_path_factory):
    """One ``bnclf evaluate --html`` run on heart-c: an ensemble (aode, capped to 4 members) and an
    instance-specific model (lkdb, no structure in advance) among the models."""
    folder = tmp_path_factory.mktemp("html-evaluate")
    argv = [
        "evaluate",
        str(dataset_path("heart-c")),
        "--folds",
        "3",
        "--models",
        "nb,tan,aode,lkdb",
        "--no-progress",
        "-o",
        str(folder / "table.csv"),
        "--predictions",
        str(folder / "predictions.csv"),
        "--html",
        str(folder / "report.html"),
    ]
    assert main(argv) in (None, 0)
    return folder


def test_evaluate_html_holds_the_numbers_of_the_csv_files(evaluate_run):
    text = (evaluate_run / "report.html").read_text(encoding="utf-8")
    page = check_page(text)
    table = pd.read_csv(evaluate_run / "table.csv")
    scores = page.tables[0]["rows"]
    assert scores[0] == ["model", "accuracy", "± std", "log loss", "AUC", "kappa", "fit total (s)", "predict total (s)"]
    assert "fit/predict total: seconds summed over all folds" in text
    formats = {"accuracy": ".4f", "std": ".4f", "log_loss": ".4f", "auc": ".4f", "kappa": ".4f"}
    formats.update({"fit_s": ".3f", "predict_s": ".4f"})
    expected = [[r["model"], *(format(r[c], f) for c, f in formats.items())] for r in table.to_dict("records")]
    assert scores[1:] == expected
    # each model's confusion matrix is the cross-tabulation of its out-of-fold predictions
    predictions = pd.read_csv(evaluate_run / "predictions.csv", dtype={"y_true": str, "y_pred": str})
    confusions = [t["rows"] for t in page.tables if t["rows"][0][0] == "true \\ predicted"]
    assert len(confusions) == 4
    for spec, rows in zip(["nb", "tan", "aode", "lkdb"], confusions):
        labels = rows[0][1:]
        pred = predictions[predictions["model"] == spec]
        counts = pd.crosstab(pred["y_true"], pred["y_pred"]).reindex(index=labels, columns=labels, fill_value=0)
        assert [r[0] for r in rows[1:]] == labels
        assert np.array_equal(np.array([r[1:] for r in rows[1:]], dtype=int), counts.to_numpy()), spec
    # the accuracy bars, then the structures of nb, tan and aode (lkdb has none in advance)
    labels = re.findall(r'<svg role="img" aria-label="([^"]+)"', text)
    assert labels[0] == "accuracy per model"
    assert [label.split(",")[0] for label in labels[1:]] == ["structure of nb", "structure of tan", "structure of aode"]
    assert "The first 4 of its 14 networks are drawn." in text
    assert "LKDBClassifier builds its networks for each row it classifies" in text
    assert "Hand and Till" not in text  # two classes: the AUC is the binary one


def test_compare_html_holds_the_numbers_of_the_markdown_report(tmp_path, keel_files, capsys):
    html_file = tmp_path / "page.html"
    argv = ["compare", "--datasets", "keel:iris,keel:tae", "--classifiers", "nb", "kdb(k=1)", "aode"]
    argv += ["--folds", "3", "--out", str(tmp_path / "out"), "--html", str(html_file), "--no-progress"]
    assert main(argv) == 0
    assert f"wrote the HTML report -> {html_file}" in capsys.readouterr().out
    text = html_file.read_text(encoding="utf-8")
    page = check_page(text)
    markdown = _tables_of_markdown((tmp_path / "out" / "report.md").read_text(encoding="utf-8"))
    html_tables = [t["rows"] for t in page.tables]
    assert len(markdown) >= 8  # datasets, means, ranks, Bonferroni-Dunn, W/D/L, Wilcoxon, t-test, log loss, AUC
    assert html_tables[: len(markdown)] == markdown
    # the mean table's numbers are those of results.csv
    results = pd.read_csv(tmp_path / "out" / "results.csv")
    mean = results.groupby(["dataset", "classifier"])["zero_one_loss"].mean()
    means = {row[0]: row[1:] for row in html_tables[1][1:]}
    assert means["iris"] == [f"{mean['iris', c]:.4f}" for c in ["nb", "kdb(k=1)", "aode"]]
    # the figures: bars, CD diagram, then each classifier's structure on each dataset
    labels = re.findall(r'<svg role="img" aria-label="([^"]+)"', text)
    assert labels[:2] == ["mean zero-one loss per dataset", "critical-difference diagram"]
    assert labels[2:] == [f"structure of {c} on {d}" for d in ("iris", "tae") for c in ("nb", "kdb(k=1)", "aode")]
    # a confusion matrix per dataset and classifier, over every row of the dataset once
    confusions = [t for t in page.tables if t["rows"][0][0] == "true \\ predicted"]
    assert [t["caption"] for t in confusions] == ["nb", "kdb(k=1)", "aode"] * 2
    sizes = [150] * 3 + [151] * 3
    assert [sum(int(v) for row in t["rows"][1:] for v in row[1:]) for t in confusions] == sizes


def test_names_are_escaped(tmp_path):
    from bnclf.evaluation import compare, summarize
    from bnclf.evaluation._html import compare_html, fit_compare_models

    X, y = load_dataset("iris")
    name, clf = "<b>iris</b> & co", "nb<script>alert(1)</script>"
    y = y.astype(str).str.replace("Iris-setosa", "<i>setosa</i>")
    results, predictions = compare(
        [(name, X, y)], {clf: "nb"}, n_splits=3, verbose=0, return_predictions=True, discretizer="mdl"
    )
    summary = summarize(results)
    models, _ = fit_compare_models([(name, X, y)], {clf: "nb"}, discretizer="mdl", random_state=0, keep=[name])
    text = compare_html(results, summary, predictions=predictions, models=models)
    check_page(text)
    assert "<script" not in text and "<b>iris" not in text and "<i>setosa" not in text
    assert "&lt;b&gt;iris&lt;/b&gt; &amp; co" in text and "nb&lt;script&gt;" in text and "&lt;i&gt;setosa" in text


def test_inlined_figures_keep_their_ids_apart():
    from matplotlib.figure import Figure

    from bnclf.evaluation._html import figure_svg

    parts = []
    for prefix in ("fig1", "fig2"):
        fig = Figure(figsize=(2, 2))
        ax = fig.add_subplot(1, 1, 1)
        ax.plot([0, 1], [1, 0])
        ax.set_title("A & <B>")
        parts.append(figure_svg(fig, prefix, "a label"))
    for prefix, svg in zip(("fig1", "fig2"), parts):
        assert not svg.startswith("<?xml") and "<!DOCTYPE" not in svg and "<metadata>" not in svg
        assert svg.startswith('<svg role="img" aria-label="a label"')
        ids = re.findall(r'\bid="([^"]+)"', svg)
        assert ids and all(i.startswith(prefix + "-") for i in ids)
        refs = re.findall(r'href="#([^"]+)"', svg) + re.findall(r"url\(#([^)]+)\)", svg)
        assert refs and set(refs) <= set(ids)
    page = "<!DOCTYPE html>" + "".join(parts)
    check_page(page)


def test_evaluate_html_multilabel_and_test_file(tmp_path):
    """Multilabel data: the printed table and mnb's structure (br has none); --test: no ± std."""
    out = tmp_path / "ml.html"
    argv = ["evaluate", "emotions", "--models", "mnb,br", "--folds", "2", "--no-progress", "--html", str(out)]
    assert main(argv) in (None, 0)
    page = check_page(out.read_text(encoding="utf-8"))
    assert page.tables[0]["rows"][0][:5] == ["model", "global accuracy", "± std", "Hamming accuracy", "± std"]
    assert [r[0] for r in page.tables[0]["rows"][1:]] == ["mnb", "br"]
    text = out.read_text(encoding="utf-8")
    assert re.findall(r'aria-label="([^"]+)"', text) == ["structure of mnb, fitted on all of emotions"]
    assert "BinaryRelevanceNB is not a Bayesian network" in text

    X, y = load_dataset("iris")
    frame = X.assign(species=y)
    frame.iloc[::3].to_csv(tmp_path / "test.csv", index=False)
    frame.drop(frame.index[::3]).to_csv(tmp_path / "train.csv", index=False)
    out = tmp_path / "tt.html"
    argv = ["evaluate", str(tmp_path / "train.csv"), "--test", str(tmp_path / "test.csv"), "--models", "nb,tan"]
    assert main([*argv, "-o", str(tmp_path / "tt.csv"), "--html", str(out)]) in (None, 0)
    page = check_page(out.read_text(encoding="utf-8"))
    assert page.tables[0]["rows"][0] == ["model", "accuracy", "log loss", "AUC (M)", "kappa", "fit (s)", "predict (s)"]
    table = pd.read_csv(tmp_path / "tt.csv")
    assert [r[1] for r in page.tables[0]["rows"][1:]] == [f"{a:.4f}" for a in table["accuracy"]]
    assert "confusion matrix (test)" in [t["caption"] for t in page.tables]


def test_the_html_file_may_not_be_an_input_or_another_output(tmp_path, keel_files, capsys):
    data = tmp_path / "iris.csv"
    X, y = load_dataset("iris")
    X.assign(species=y).to_csv(data, index=False)
    assert main(["evaluate", str(data), "--html", str(data)]) == 2
    assert "--html" in capsys.readouterr().err
    assert main(["evaluate", str(data), "-o", str(tmp_path / "a.csv"), "--html", str(tmp_path / "a.csv")]) == 2
    assert "the same file" in capsys.readouterr().err
    out = tmp_path / "out"
    argv = ["compare", "--datasets", "keel:iris", "--out", str(out), "--html", str(out / "report.md")]
    assert main(argv) == 2
    assert "--html" in capsys.readouterr().err


def test_help_mentions_html(capsys):
    for command in ("compare", "evaluate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "--html FILE" in capsys.readouterr().out


# -- in a browser --------------------------------------------------------------------------------
@pytest.mark.slow
def test_reports_in_headless_chromium(evaluate_run, tmp_path, keel_files, capsys):
    """Both pages in headless Chromium, 1280 pixels wide: every figure laid out with a size, nothing
    wider than the window, no console message, no error, no request besides the page."""
    from browser import find_chromium, inspect_page

    if find_chromium() is None:
        pytest.skip("no Chromium (apt-get install chromium)")
    compared = tmp_path / "compare.html"
    argv = ["compare", "--datasets", "keel:iris,keel:tae,keel:vehicle", "--classifiers", "nb", "tan", "aode"]
    assert main([*argv, "--folds", "3", "--html", str(compared), "--no-progress"]) == 0
    capsys.readouterr()
    for path in (evaluate_run / "report.html", compared):
        text = path.read_text(encoding="utf-8")
        report = inspect_page(path, width=1280)
        n_svg = text.count("<svg ")
        assert len(report["svgs"]) == n_svg and n_svg >= 4
        for svg in report["svgs"]:
            assert svg["w"] > 50 and svg["h"] > 50, svg
            assert svg["x"] >= 0 and svg["x"] + svg["w"] <= 1280, svg
        assert report["images"] == []
        assert report["console"] == [] and report["exceptions"] == [] and report["requests"] == []
        assert report["overflowing"] == [] and report["page"]["w"] == 1280
        assert report["tables"] == text.count("<table")
        shot = report["screenshot"]
        assert shot[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(shot[16:20], "big") == 1280  # the IHDR width
        assert int.from_bytes(shot[20:24], "big") == report["page"]["h"]
        Path(tmp_path / f"{path.stem}.png").write_bytes(shot)


def test_compare_html_multilabel(tmp_path, capsys):
    out, page_file = tmp_path / "out", tmp_path / "ml.html"
    argv = ["compare", "--datasets", "emotions", "--classifiers", "mnb", "br", "--folds", "2", "--no-progress"]
    assert main([*argv, "--out", str(out), "--html", str(page_file)]) == 0
    capsys.readouterr()
    text = page_file.read_text(encoding="utf-8")
    page = check_page(text)
    markdown = _tables_of_markdown((out / "report.md").read_text(encoding="utf-8"))
    html_tables = [t["rows"] for t in page.tables]
    assert html_tables == markdown  # the comparison's tables, then the multilabel scores
    assert html_tables[-1][0][:3] == ["dataset", "classifier", "global accuracy"]
    assert "Multilabel comparisons show no confusion matrices or structures" in text


def test_structures_of_a_comparison_are_capped():
    from bnclf.evaluation._html import fit_compare_models

    X, y = load_dataset("iris")
    data = [("a", X, y), ("b", X, y), ("c", X, y)]
    models, notes = fit_compare_models(data, ["nb", "tan"], discretizer="mdl", random_state=0, keep=["a", "b", "c"])
    assert list(models) == [(d, c) for d in "abc" for c in ("nb", "tan")] and notes == []
    models, notes = fit_compare_models(data, ["nb", "tan"], discretizer="mdl", random_state=0, keep=["a", "c"], limit=3)
    assert list(models) == [("a", "nb"), ("a", "tan")]
    assert notes == ["Structures are drawn for the first 1 of the 2 datasets only (3 drawings at most)."]
    models, _ = fit_compare_models(data, ["nb", "tan"], discretizer="mdl", random_state=0, keep=["b"], limit=1)
    assert list(models) == [("b", "nb"), ("b", "tan")]  # the first dataset in any case
