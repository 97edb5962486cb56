"""Self-contained HTML reports of ``bnclf compare`` and ``bnclf evaluate``.

One file holds everything: the tables (the numbers of the Markdown and text reports, formatted
the same way), the figures as inline SVG (matplotlib, text drawn as paths, so no font is
needed), a small inline style sheet, and nothing that is fetched: no script, no external style
sheet, font or image. A Content-Security-Policy in the page says so to the browser.

Structure drawings of large models are capped: at most :data:`MAX_FEATURES` features of a
network (the most connected, as ``draw_structure(max_features=...)`` picks them), at most
:data:`MAX_MEMBERS` members of an ensemble or multinet, and in a comparison at most
:data:`MAX_STRUCTURES` drawings; the page says what was left out.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bnclf._version import __version__

if TYPE_CHECKING:
    import os

    from matplotlib.figure import Figure

    from bnclf.evaluation._compare import ComparisonSummary
    from bnclf.evaluation._protocols import CVPredictions

__all__ = [
    "MAX_FEATURES",
    "MAX_MEMBERS",
    "MAX_STRUCTURES",
    "compare_html",
    "confusion_table",
    "evaluate_html",
    "evaluate_multilabel_html",
    "figure_svg",
    "fit_compare_models",
    "html_table",
    "inline_svg",
    "structure_figure",
    "write_html",
]

MAX_FEATURES = 20
"""Features drawn per network (the most connected ones); the drawing's title says how many."""

MAX_MEMBERS = 4
"""Members drawn per ensemble or multinet (the first ones)."""

MAX_STRUCTURES = 24
"""Structure drawings in a comparison report (datasets in order, every classifier of each)."""

_STYLE = """
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;color:#222;margin:0 auto;max-width:1200px;
padding:0 24px 48px;line-height:1.45;font-size:15px}
h1{font-size:26px;margin:24px 0 6px}h2{font-size:20px;border-bottom:1px solid #ccc;padding-bottom:3px;
margin-top:34px}h3{font-size:16px;margin:22px 0 6px}
p,li{max-width:900px}.note,figcaption,.meta{color:#555;font-size:13px}
table{border-collapse:collapse;margin:6px 0 14px;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px}th{background:#f2f2f2;font-weight:600}
td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody th{text-align:left;background:#fafafa}td.best{font-weight:700}
caption{text-align:left;font-size:13px;color:#444;padding-bottom:3px;caption-side:top}
figure{margin:10px 0 18px}figure svg{display:block;max-width:100%;height:auto}
.row{display:flex;flex-wrap:wrap;gap:18px 28px;align-items:flex-start}
.row figure{margin:0}.row>*{min-width:0;max-width:100%}.scroll{overflow-x:auto;max-width:100%}
table.cm th,table.cm td{padding:2px 6px}table.cm td.zero{color:#bbb}table.cm tbody th{white-space:nowrap}
th.up{vertical-align:bottom;padding:4px 2px}th.up span{writing-mode:vertical-rl;transform:rotate(180deg);
white-space:nowrap}
nav ul{columns:2;font-size:14px;padding-left:20px}
"""

# the page loads nothing: no scripts, no requests; inline styles and SVG only
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


# -- figures -------------------------------------------------------------------------------------
_PROLOG = re.compile(r"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*|<metadata>.*?</metadata>\s*", re.S)
_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(href="#|url\(#)([^")]+)')


def inline_svg(svg: str, prefix: str, label: str | None = None) -> str:
    """SVG text (matplotlib's) made fit to sit in an HTML page.

    The XML prolog, the DOCTYPE and the metadata go; every ``id`` and each reference to one
    (``href="#..."``, ``url(#...)``) gets ``prefix``, so that the figures of one page do not
    share ids (an id given to several elements, as the structure drawings name their groups, is
    numbered from its second use on; references keep meaning the first); the root element gets
    ``role="img"`` and ``aria-label``.
    """
    text = _PROLOG.sub("", svg).strip()
    seen: dict[str, int] = {}

    def unique(match: re.Match) -> str:  # the drawings name groups ("node", "arc:class") once each
        name = match.group(1)
        seen[name] = seen.get(name, 0) + 1
        return f'id="{prefix}-{name}"' if seen[name] == 1 else f'id="{prefix}-{name}-{seen[name]}"'

    text = _ID.sub(unique, text)
    text = _REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text)
    attrs = ' role="img"' + (f' aria-label="{_esc(label)}"' if label else "")
    return text.replace("<svg ", f"<svg{attrs} ", 1)


def figure_svg(fig: Figure, prefix: str, label: str | None = None, *, tight: bool = True) -> str:
    """A matplotlib figure as inline SVG text (see :func:`inline_svg`); the figure is closed."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": prefix}):
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight" if tight else None)
    if getattr(fig.canvas, "manager", None) is not None:  # a pyplot figure (the structure drawings)
        import matplotlib.pyplot as plt

        plt.close(fig)
    return inline_svg(buffer.getvalue(), prefix, label)


class _Ids:
    """Unique ``fig<n>`` prefixes for the figures of one page."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"fig{self.n}"


def structure_figure(
    model: Any, prefix: str, label: str, *, max_features: int = MAX_FEATURES, max_members: int = MAX_MEMBERS
) -> tuple[str | None, list[str]]:
    """A fitted model's structure as inline SVG, and notes on what was left out.

    A single network is drawn with at most ``max_features`` features; an ensemble or a
    multinet with its first ``max_members`` members (as many features each); a multilabel
    network with :func:`~bnclf.plot.draw_multilabel`. A model without a network of its own
    (an instance-specific learner, a multilabel baseline) gives ``None`` and a note.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    est = model[-1] if hasattr(model, "steps") else model
    name = type(est).__name__
    if getattr(est, "_multilabel", False):
        if not hasattr(est, "bridge_parents_"):
            return None, [f"{name} is not a Bayesian network: there is no structure to draw."]
        from bnclf.plot._multilabel import draw_multilabel

        fig = draw_multilabel(est, max_features=max_features)
        return figure_svg(fig, prefix, label), []
    try:
        members = est.network_members()
    except (ValueError, AttributeError):
        return None, [
            f"{name} builds its networks for each row it classifies, not in advance: there is no "
            "structure to draw ('bnclf explain' draws those of one row)."
        ]
    from bnclf.plot._structures import draw_members, draw_structure

    notes = []
    if len(members) == 1:
        ax = draw_structure(est, max_features=max_features)
    else:
        shown = min(len(members), max_members)
        # two panels a row, so that each is drawn at half the page's width, not a quarter
        ax = draw_members(est, members=list(range(shown)), max_features=max_features, ncols=min(2, shown))
        if shown < len(members):
            notes.append(f"The first {shown} of its {len(members)} networks are drawn.")
    fig = ax.flat[0].figure if isinstance(ax, np.ndarray) else ax.figure
    return figure_svg(fig, prefix, label, tight=False), notes


def _figure(svg: str, caption: str | None = None) -> str:
    cap = f"<figcaption>{_esc(caption)}</figcaption>" if caption else ""
    return f"<figure>{svg}{cap}</figure>"


# -- tables --------------------------------------------------------------------------------------
def _fmt(value: Any, digits: int = 4) -> str:
    from bnclf.evaluation._compare import _fmt as md_fmt

    return md_fmt(value, digits)


def html_table(
    df: pd.DataFrame,
    *,
    index_name: str = "",
    digits: int = 4,
    bold: pd.DataFrame | None = None,
    caption: str | None = None,
    formats: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    bold_rows: Sequence[Any] = (),
) -> str:
    """A table of ``df``: its index as row headers, each cell as the Markdown report writes it
    (:func:`bnclf.evaluation._compare._fmt` with ``digits``, or ``format(value, formats[column])``);
    cells where ``bold`` is true are bold (class ``best``)."""
    formats = dict(formats or {})
    headers = dict(headers or {})
    head = "".join(f"<th>{_esc(headers.get(str(c), c))}</th>" for c in df.columns)
    out = [f"<table><caption>{_esc(caption)}</caption>" if caption else "<table>"]
    out.append(f"<thead><tr><th>{_esc(index_name)}</th>{head}</tr></thead><tbody>")
    marks = None
    if bold is not None:  # aligned by label, as the Markdown table looks cells up (rows it lacks: not bold)
        marks = bold.reindex(index=df.index, columns=df.columns).fillna(False).astype(bool).to_numpy()
    for i, idx in enumerate(df.index):
        label = f"<strong>{_esc(idx)}</strong>" if idx in bold_rows else _esc(idx)
        cells = []
        for j, c in enumerate(df.columns):
            v = df.iat[i, j]  # the column's own type (iterrows would make a row of mixed columns float)
            if str(c) in formats and not (v is None or (isinstance(v, float) and np.isnan(v))):
                text = format(v, formats[str(c)])
            else:
                text = _fmt(v, digits)
            strong = marks is not None and bool(marks[i, j])
            cells.append(f'<td class="best">{_esc(text)}</td>' if strong else f"<td>{_esc(text)}</td>")
        out.append(f"<tr><th>{label}</th>{''.join(cells)}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def confusion_table(confusion: pd.DataFrame, caption: str) -> str:
    """A confusion matrix (rows: true class) as a table, each cell shaded by its share of its row.

    With more than four classes, or long class names, the column headers are written upwards,
    so that the table is as narrow as its numbers; zeros are pale. A table still wider than the
    page scrolls sideways by itself.
    """
    names = [str(c) for c in confusion.columns]
    upright = len(names) <= 4 and sum(len(n) for n in names) <= 48
    head = "".join(f"<th>{_esc(c)}</th>" if upright else f'<th class="up"><span>{_esc(c)}</span></th>' for c in names)
    out = [f'<div class="scroll"><table class="cm"><caption>{_esc(caption)}</caption>']
    out.append(f"<thead><tr><th>true \\ predicted</th>{head}</tr></thead><tbody>")
    values = confusion.to_numpy()
    for i, true in enumerate(confusion.index):
        total = values[i].sum()
        cells = []
        for j, count in enumerate(values[i]):
            if not count:
                cells.append('<td class="zero">0</td>')
                continue
            colour = "31,119,180" if i == j else "214,39,40"
            share = count / total if total else 0.0
            cells.append(f'<td style="background:rgba({colour},{0.08 + 0.6 * share:.2f})">{int(count)}</td>')
        out.append(f"<tr><th>{_esc(true)}</th>{''.join(cells)}</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


# -- the page -----------------------------------------------------------------------------------
def _page(title: str, body: Sequence[str], sections: Sequence[tuple[str, str]]) -> str:
    nav = "".join(f'<li><a href="#{anchor}">{_esc(name)}</a></li>' for anchor, name in sections)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta name="generator" content="bnclf {_esc(__version__)}">',
            f"<title>{_esc(title)}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            f"<h1>{_esc(title)}</h1>",
            f"<nav><ul>{nav}</ul></nav>" if len(sections) > 2 else "",
            *body,
            f'<p class="meta">Written by bnclf {_esc(__version__)}. This file is self-contained: it loads '
            "nothing from elsewhere.</p>",
            "</body>",
            "</html>",
            "",
        ]
    )


class _Sections:
    """The ``<h2>`` sections of a page, with anchors for the table of contents."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def __call__(self, name: str) -> str:
        anchor = f"s{len(self.items) + 1}"
        self.items.append((anchor, name))
        return f'<h2 id="{anchor}">{_esc(name)}</h2>'


def write_html(text: str, path: str | os.PathLike) -> None:
    """``text`` written to ``path`` in full or not at all (:func:`bnclf.io._files.staged`)."""
    from bnclf.io._files import staged

    with staged(path) as (tmp,):
        tmp.write_text(text, encoding="utf-8")


# -- bnclf compare -------------------------------------------------------------------------------
def compare_html(
    results: pd.DataFrame,
    summary: ComparisonSummary,
    *,
    predictions: Mapping[tuple[str, str], CVPredictions] | None = None,
    models: Mapping[tuple[str, str], Any] | None = None,
    extra: Sequence[tuple[str, str, pd.DataFrame]] = (),
    notes: Sequence[str] = (),
) -> str:
    """The HTML page of a comparison: what :func:`~bnclf.evaluation._compare.render_report`
    writes in Markdown (the same tables, the same numbers), the critical-difference diagram
    and the bars per dataset as inline SVG, and per dataset the pooled out-of-fold confusion
    matrix of each classifier (``predictions``) and its structure (``models``: a fitted model,
    or a text saying why there is none, per (dataset, classifier)).

    ``extra`` adds sections (heading, text, table); ``notes`` are shown under the structures.
    """
    page = _ComparisonPage(results, summary)
    body = page.result_sections()
    for heading, text, table in extra:
        body += [page.h2(heading), f"<p>{_esc(text)}</p>" if text else "", html_table(table, index_name="dataset")]
    if predictions or models:
        body += page.per_dataset(predictions, models)
    body += [f'<p class="note">{_esc(n)}</p>' for n in notes]
    body += page.closing_sections()
    return _page("Classifier comparison", body, page.h2.items)


class _ComparisonPage:
    """The sections of :func:`compare_html`'s page, each a list of HTML fragments; the
    sections share the page's figure ids and ``<h2>`` anchors, so they are made in page
    order."""

    def __init__(self, results: pd.DataFrame, summary: ComparisonSummary) -> None:
        from bnclf.evaluation._compare import _METRIC_LABEL

        self.results, self.summary = results, summary
        self.new_id, self.h2 = _Ids(), _Sections()
        self.label = _METRIC_LABEL.get(summary.metric, summary.metric)
        self.proto = results.attrs.get("protocol", {})

    def result_sections(self) -> list[str]:
        """Protocol, datasets, means (with the bars), ranks, Friedman and post-hoc tests,
        W/D/L, Wilcoxon, corrected t-test, bias and variance, and the other metrics."""
        return [
            *self.protocol(),
            *self.datasets(),
            *self.means(),
            *self.ranks(),
            *self.friedman(),
            *self.win_draw_loss(),
            *self.wilcoxon(),
            *self.ttest(),
            *self.bias_variance(),
            *self.other_metrics(),
        ]

    def protocol(self) -> list[str]:
        proto = self.proto
        if not proto:
            return []
        reps = proto.get("n_repeats", 1)
        cv = f"{proto.get('n_splits')}-fold stratified CV"
        if reps != 1:
            cv = f"{reps}×{cv}"
        return [
            f"<p>Protocol: {_esc(cv)}, fold seed {_esc(proto.get('random_state'))}, discretizer "
            f"<code>{_esc(proto.get('discretizer'))}</code> (fitted inside each training fold). "
            "Same folds for every classifier on a dataset.</p>"
        ]

    def datasets(self) -> list[str]:
        info = self.results.attrs.get("datasets")
        if not info:
            return []
        table = pd.DataFrame(info).T[["instances", "features", "classes"]]
        return [self.h2("Datasets"), html_table(table, index_name="dataset")]

    def means(self) -> list[str]:
        from bnclf.evaluation._plots import plot_dataset_bars

        summary, label = self.summary, self.label
        direction = "lower is better" if summary.lower_is_better else "higher is better"
        mean = summary.mean
        best = mean.eq(mean.min(axis=1) if summary.lower_is_better else mean.max(axis=1), axis=0)
        out = [
            self.h2(f"Mean {label} per dataset ({direction})"),
            f"<p>Mean over folds{' and repeats' if self.proto.get('n_repeats', 1) > 1 else ''}; the best value on "
            "each dataset in bold.</p>",
            html_table(
                pd.concat([mean, mean.mean().to_frame("mean").T]),
                index_name="dataset",
                bold=best,
                bold_rows=["mean"],
            ),
        ]
        bars = plot_dataset_bars(summary.mean, summary.std, metric=f"mean {label}")
        out.append(
            _figure(
                figure_svg(bars, self.new_id(), f"mean {label} per dataset"),
                f"Mean {label} per dataset and classifier; the error bars are the standard deviations over folds.",
            )
        )
        return out

    def ranks(self) -> list[str]:
        if self.summary.average_ranks is None:
            return []
        ranks = self.summary.average_ranks.sort_values()
        return [
            self.h2("Average ranks"),
            "<p>Rank 1 is best; ties share the average rank.</p>",
            html_table(ranks.to_frame("average rank"), index_name="classifier", digits=3),
        ]

    def friedman(self) -> list[str]:
        summary, f = self.summary, self.summary.friedman
        if f is None:
            return []
        k, n = f.n_classifiers, f.n_datasets
        out = [
            self.h2("Friedman test and post-hoc tests"),
            "<ul>",
            f"<li>Friedman χ²<sub>F</sub> = {f.statistic:.3f} (df = {f.df}, N = {n} datasets, k = {k} "
            f"classifiers), p = {_esc(_fmt(f.pvalue))}</li>",
            f"<li>Iman–Davenport F<sub>F</sub> = {f.iman_davenport:.3f} (df = {k - 1}, {(k - 1) * (n - 1)}), "
            f"p = {_esc(_fmt(f.iman_davenport_pvalue))}</li>",
            f"<li>Nemenyi critical difference (α = {summary.alpha}): CD = {summary.nemenyi_cd:.4f}</li>",
            "</ul>",
        ]
        if summary.nemenyi_pvalues is not None:
            from bnclf.evaluation._compare import _rank_gaps_beyond_cd

            pairs = [f"{_esc(a)} vs {_esc(b)} (|ΔR| = {gap:.3f})" for a, b, gap in _rank_gaps_beyond_cd(summary)]
            out.append(
                "<p>Pairs whose average ranks differ by at least the CD: "
                + ("; ".join(pairs) if pairs else "none")
                + ".</p>"
            )
        out += self.cd_diagram()
        if summary.bonferroni_dunn is not None:
            bd = summary.bonferroni_dunn
            control = summary.average_ranks.idxmin()
            out += [
                f"<p>Bonferroni–Dunn test against the best-ranked classifier, <strong>{_esc(control)}</strong>:</p>",
                html_table(
                    bd[["average_rank", "rank_difference", "pvalue_adjusted", "significant"]], index_name="classifier"
                ),
            ]
        if f.pvalue >= summary.alpha:
            out.append(
                f"<p>The Friedman test does not reject equal ranks at α = {summary.alpha}; the post-hoc "
                "results are shown for information only.</p>"
            )
        return out

    def cd_diagram(self) -> list[str]:
        from bnclf.evaluation._plots import plot_critical_difference

        summary = self.summary
        if summary.average_ranks is None or summary.nemenyi_cd is None:
            return []
        cd = plot_critical_difference(
            summary.average_ranks, summary.nemenyi_cd, title=f"Nemenyi test on {self.label} (α = {summary.alpha})"
        )
        return [
            _figure(
                figure_svg(cd, self.new_id(), "critical-difference diagram"),
                "Critical-difference diagram: average ranks (best on the right); a thick bar joins "
                "classifiers whose ranks differ by less than the CD.",
            )
        ]

    def win_draw_loss(self) -> list[str]:
        summary = self.summary
        if summary.wdl is None:
            return []
        sig = summary.wdl_pvalues < summary.alpha
        return [
            self.h2("Win/draw/loss"),
            f"<p>Row classifier against column classifier over datasets. A win: the row classifier's {self.label} "
            "improves on the column classifier's by at least 5 % (relative); a loss: the reverse; otherwise a "
            f"draw. Bold: one-tailed binomial sign test of wins against losses, p &lt; {summary.alpha}.</p>",
            html_table(summary.wdl, index_name="W/D/L", bold=sig),
        ]

    def wilcoxon(self) -> list[str]:
        if self.summary.wilcoxon_pvalues is None:
            return []
        return [
            self.h2("Wilcoxon signed-rank test"),
            f"<p>Two-sided p-values over datasets of the mean {self.label} per dataset.</p>",
            html_table(self.summary.wilcoxon_pvalues, index_name=""),
        ]

    def ttest(self) -> list[str]:
        tt = self.summary.corrected_ttest
        if tt is None or tt.empty:
            return []
        control = tt.attrs.get("control")
        cells = tt.map(lambda v: "–" if pd.isna(v) else ("(-) " if v < 0 else "") + _fmt(abs(v)))
        return [
            self.h2("Corrected repeated CV t-test"),
            "<p>Two-sided p-values of the corrected repeated k-fold CV t-test (Nadeau–Bengio) on the per-fold "
            f"{self.label}, <strong>{_esc(control)}</strong> (best average rank) against each other classifier, per "
            f"dataset. (-): {_esc(control)} is not favoured on that dataset; bold: p &lt; {self.summary.alpha}.</p>",
            html_table(cells, index_name="dataset", bold=tt.abs() < self.summary.alpha),
        ]

    def bias_variance(self) -> list[str]:
        summary, bv = self.summary, self.summary.bias_variance
        if bv is None:
            return []
        out = [
            self.h2("Kohavi–Wolpert bias and variance"),
            "<p>Estimated from the repeats: each instance is predicted once per repeat by a model trained "
            "without it. loss = bias + variance (noise folded into bias).</p>",
        ]
        for part in ("bias", "variance"):
            tab = bv.pivot(index="dataset", columns="classifier", values=part)
            tab = tab.reindex(index=summary.mean.index, columns=summary.mean.columns)
            out += [f"<h3>{part}</h3>", html_table(tab, index_name="dataset")]
        return out

    def other_metrics(self) -> list[str]:
        from bnclf.evaluation._compare import other_metric_means

        out = []
        for label, tab in other_metric_means(self.results, self.summary):
            out += [self.h2(f"Mean {label} per dataset"), html_table(tab, index_name="dataset")]
        return out

    def per_dataset(self, predictions: Mapping | None, models: Mapping | None) -> list[str]:
        """Per dataset, each classifier's pooled confusion matrix and structure drawing."""
        reps = self.proto.get("n_repeats", 1)
        pooled = "out-of-fold predictions" + (f", pooled over the {reps} repeats" if reps > 1 else "")
        out = [
            self.h2("Per dataset: confusion matrices and structures"),
            f"<p>Confusion matrices of the {pooled} (rows: true class; shading: the share of the row). "
            "Structures: each classifier fitted on all rows of the dataset, as <code>bnclf fit</code> "
            f"fits it (at most {MAX_FEATURES} features of a network, the most connected; at most "
            f"{MAX_MEMBERS} members of an ensemble).</p>",
        ]
        classifiers = self.summary.mean.columns
        for dname in self.summary.mean.index:
            out.append(f"<h3>{_esc(dname)}</h3>")
            tables = [
                confusion_table(_confusion(predictions[(dname, c)]), str(c))
                for c in classifiers
                if predictions and (dname, c) in predictions
            ]
            if tables:
                out.append(f'<div class="row">{"".join(tables)}</div>')
            figures = [
                _structure_block(models[(dname, c)], self.new_id(), f"{c} on {dname}")
                for c in classifiers
                if models and (dname, c) in models
            ]
            if figures:
                out.append(f'<div class="row">{"".join(figures)}</div>')
        return out

    def closing_sections(self) -> list[str]:
        """The summary's notes and ``keep_going``'s failures."""
        out = []
        if self.summary.notes:
            out += [self.h2("Notes"), "<ul>", *(f"<li>{_esc(n)}</li>" for n in self.summary.notes), "</ul>"]
        failures = self.results.attrs.get("failures") or []
        if failures:
            frame = pd.DataFrame(failures).set_index("dataset")[["classifier", "stage", "error"]]
            frame["error"] = frame["error"].astype(str).str[:300]
            out += [self.h2("Failures (left out of the comparison)"), html_table(frame, index_name="dataset")]
        return out


def _confusion(cv: CVPredictions) -> pd.DataFrame:
    from bnclf.evaluation._reports import per_class_report

    return per_class_report(cv)[0]


def _structure_block(model: Any, prefix: str, label: str) -> str:
    """A figure of a model's structure, or a note saying why there is none."""
    if isinstance(model, str):  # why there is no model
        return f'<p class="note">{_esc(label)}: {_esc(model)}</p>'
    svg, notes = structure_figure(model, prefix, f"structure of {label}")
    if svg is None:
        return f'<p class="note">{_esc(label)}: {_esc(" ".join(notes))}</p>'
    return _figure(svg, " ".join([f"Structure of {label}.", *notes]))


def fit_compare_models(
    datasets: Sequence[Any],
    classifiers: Any,
    *,
    discretizer: Any,
    random_state: int | None,
    keep: Sequence[str],
    limit: int = MAX_STRUCTURES,
) -> tuple[dict[tuple[str, str], Any], list[str]]:
    """Each classifier fitted on all rows of each dataset of ``keep`` (in order), for its drawing:
    the discretizer fitted on the rows, then the classifier (seeded as ``compare`` seeds it).

    Stops after ``limit`` models; returns ``{(dataset, classifier): model or why not}`` and notes.
    """
    from bnclf.evaluation._compare import _classifier_items
    from bnclf.evaluation._dataset_specs import dataset_items
    from bnclf.evaluation._protocols import build_pipeline

    wanted = list(keep)
    items = [item for item in dataset_items(list(datasets), []) if item[0] in wanted]  # [] skips a failed load
    clf_items = _classifier_items(classifiers, random_state)
    models: dict[tuple[str, str], Any] = {}
    notes = []
    for dname, X, y in items:
        if models and len(models) + len(clf_items) > limit:  # the first dataset is drawn in any case
            drawn = len({d for d, _ in models})
            notes.append(
                f"Structures are drawn for the first {drawn} of the {len(items)} datasets only "
                f"({limit} drawings at most)."
            )
            break
        for cname, est in clf_items:
            try:
                models[(dname, cname)] = build_pipeline(est, discretizer).fit(X, y.to_numpy())
            except Exception as exc:  # the comparison ran: a model that cannot be drawn is noted
                models[(dname, cname)] = f"could not be fitted on all rows: {type(exc).__name__}: {exc}"
    return models, notes


def _score_bars(values: pd.Series, errors: pd.Series | None, label: str):
    """Horizontal bars of one score per model (first model on top), each with its value."""
    from bnclf.evaluation._plots import _new_figure

    n = len(values)
    fig = _new_figure((6.5, 0.9 + 0.38 * n))
    ax = fig.add_subplot(1, 1, 1)
    y = np.arange(n)[::-1]
    err = None if errors is None else errors.to_numpy(dtype=float)
    ax.barh(y, values.to_numpy(dtype=float), xerr=err, height=0.6, color="#4c78a8", capsize=3, error_kw={"lw": 0.8})
    for yi, v in zip(y, values):
        ax.text(
            0.01, yi, f"{v:.4f}", va="center", ha="left", color="white", fontsize=9, transform=ax.get_yaxis_transform()
        )
    ax.set_yticks(y)
    ax.set_yticklabels([str(i) for i in values.index], fontsize=9)
    ax.set_xlim(0, 1)
    ax.set_xlabel(label)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


# -- bnclf evaluate ------------------------------------------------------------------------------
_EVAL_HEADERS = {
    "accuracy": "accuracy",
    "std": "± std",
    "log_loss": "log loss",
    "auc": "AUC",
    "kappa": "kappa",
    "fit_s": "fit (s)",
    "predict_s": "predict (s)",
}
_EVAL_FORMATS = {"fit_s": ".3f", "predict_s": ".4f"}


def evaluate_html(
    table: pd.DataFrame,
    cvs: Mapping[str, CVPredictions],
    *,
    heading: str,
    where: str,
    spread: bool = True,
    models: Mapping[str, Any] | None = None,
    fitted_on: str = "",
) -> str:
    """The HTML page of ``bnclf evaluate``: the results table (the numbers the command prints),
    and per model its confusion matrix and per-class scores (``cvs``) and its structure
    (``models``: fitted models, or texts saying why there is none)."""
    n_classes = len(next(iter(cvs.values())).classes) if cvs else 0
    headers = dict(_EVAL_HEADERS)
    if n_classes > 2:
        headers["auc"] = "AUC (M)"
    if spread:  # cross-validation: the times are summed over the folds, beside mean scores
        headers.update(fit_s="fit total (s)", predict_s="predict total (s)")
    columns = ["accuracy", *(["std"] if spread else []), "log_loss", "auc", "kappa", "fit_s", "predict_s"]
    shown = table.set_index("model")[[c for c in columns if c in table.columns]]
    h2, body, new_id = _Sections(), [], _Ids()
    body += [f"<p>{_esc(heading)}</p>", h2("Scores")]
    body.append(html_table(shown, index_name="model", formats=_EVAL_FORMATS, headers=headers))
    if "auc" in shown.columns and n_classes > 2:
        body.append(
            f'<p class="note">AUC (M): Hand and Till\'s (2001) multi-class AUC for the {n_classes} classes, '
            "the mean over pairs of classes of the AUC of each pair.</p>"
        )
    if "kappa" in shown.columns:
        body.append(
            '<p class="note">kappa: Cohen\'s kappa of the predictions against the true classes '
            "(0: chance agreement, 1: all right).</p>"
        )
    if spread and "fit_s" in shown.columns:
        body.append(
            '<p class="note">fit/predict total: seconds summed over all folds (the scores are means over '
            "the folds).</p>"
        )
    if len(shown) > 1:
        fig = _score_bars(shown["accuracy"], shown["std"] if spread else None, "accuracy")
        spread_note = "; the error bars are the standard deviations over folds." if spread else "."
        body.append(_figure(figure_svg(fig, new_id(), "accuracy per model"), "Accuracy of each model" + spread_note))
    for spec, cv in cvs.items():
        from bnclf.evaluation._reports import per_class_report

        confusion, per_class = per_class_report(cv)
        body.append(h2(str(spec)))
        body.append(
            '<div class="row">'
            + confusion_table(confusion, f"confusion matrix ({where})")
            + html_table(per_class.round(4), index_name="class", formats={"support": "d"}, caption="per class")
            + "</div>"
        )
        if models is not None and spec in models:
            body.append(_structure_block(models[spec], new_id(), f"{spec}{fitted_on}"))
    if models is not None:
        body.append(
            f'<p class="note">Structures: at most {MAX_FEATURES} features of a network are drawn (the most '
            f"connected), and at most {MAX_MEMBERS} members of an ensemble or multinet.</p>"
        )
    return _page("Evaluation", body, h2.items)


_MULTI_HEADERS = {
    "global_accuracy": "global accuracy",
    "global_accuracy_std": "± std",
    "hamming_accuracy": "Hamming accuracy",
    "hamming_accuracy_std": "± std",
    "empty_rate": "empty",
    "global_accuracy_empty_allowed": "empty allowed: global",
    "hamming_accuracy_empty_allowed": "Hamming",
    "empty_rate_empty_allowed": "empty",
    "treewidth": "treewidth",
    "n_selected_features": "features",
    "fit_s": "fit (s)",
    "predict_s": "predict (s)",
}
_MULTI_FORMATS = {
    "empty_rate": ".3f",
    "empty_rate_empty_allowed": ".3f",
    "treewidth": ".1f",
    "n_selected_features": ".1f",
    "fit_s": ".3f",
    "predict_s": ".4f",
}


def evaluate_multilabel_html(
    table: pd.DataFrame,
    *,
    heading: str,
    spread: bool = True,
    models: Mapping[str, Any] | None = None,
    fitted_on: str = "",
) -> str:
    """The HTML page of ``bnclf evaluate`` on multilabel data: the table the command prints and
    the structure of each multilabel network (``models``)."""
    columns = [c for c in _MULTI_HEADERS if c in table.columns and (spread or not c.endswith("_std"))]
    shown = table.set_index("model")[columns]
    h2, body, new_id = _Sections(), [], _Ids()
    body += [f"<p>{_esc(heading)}</p>", h2("Scores")]
    body.append(html_table(shown, index_name="model", formats=_MULTI_FORMATS, headers=_MULTI_HEADERS))
    body.append(
        '<p class="note">global accuracy: exact match of the label set; Hamming accuracy: the mean label '
        "accuracy; empty: the rate of empty predictions; empty allowed: the same fitted Bayesian networks "
        "with empty predictions allowed (Corani et al. 2014).</p>"
    )
    if models:
        body.append(h2("Structures"))
        for spec, model in models.items():
            body.append(f"<h3>{_esc(spec)}</h3>")
            body.append(_structure_block(model, new_id(), f"{spec}{fitted_on}"))
    return _page("Evaluation (multilabel)", body, h2.items)
