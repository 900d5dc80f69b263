"""A static HTML site of one experiment's results: index, published vs reproduced, tables, figures, notebooks.

The site lives in ``results/<experiment>/report/`` and is self-contained: every link is relative and points
inside the site folder, so the folder can be opened from disk, zipped or served as it is. The workflow
(``workflow/rules/site.smk``) fills it in three steps: nbconvert renders each executed notebook to
``notebooks/<stage>/<name>.html``, each figure is copied to ``figures/<stage>/<name>.png``, and
:func:`build_site` writes ``index.html`` and ``pages/*.html`` from the result tables.

A *stage* is a results folder with ``tables/``, ``figures/`` or ``notebooks/`` below it, named by its path
relative to ``results/<experiment>`` (``compas/propublica_violent``, ``nij/authors``, ``nij/paper`` ...).
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.published import PVR_COLUMNS, summarise_published_vs_reproduced
from fairstats import __version__
from fairstats.reporting import atomic_write_text

__all__ = [
    "FIGURE_CAPTIONS",
    "SiteBuild",
    "build_site",
    "figure_caption",
    "html_table",
    "published_vs_reproduced_html",
    "stage_title",
]

#: Caption of each kind of figure, by a regular expression on the file name (without ``.png``); the first
#: match wins. ``{...}`` fields are filled from the pattern's named groups.
FIGURE_CAPTIONS: tuple[tuple[str, str], ...] = (
    (
        r"(?P<grouping>\w+)_residuals",
        "Paper A, post hoc analysis: adjusted standardized residuals of the equal confusion test for the "
        "grouping '{grouping}' (rows: groups, columns: confusion cells TP, FN, FP, TN). Red: more people "
        "in the cell than expected under equal confusion, blue: fewer; marked * past the Bonferroni cut-off, "
        "\u2020 past the strict cut-off 3.29 (paper A Tables V, VI, IX).",
    ),
    (
        r"(?P<grouping>\w+)_confusion_matrices",
        "Paper A: one confusion matrix per group of the grouping '{grouping}' (prediction: Medium/High risk; "
        "truth: violent re-offence within two years); each cell gives the count and its share of the group, "
        "so groups of different sizes can be compared side by side.",
    ),
    (
        r"table1_accuracy_distribution",
        "Paper B, Table I: accuracy of each model on every test fold (boxes), by source (our rerun, the "
        "authors' committed per-fold results); dashed lines are the means printed in Table I.",
    ),
    (
        r"table1_ours_vs_authors",
        "Paper B, Table I: our per-fold accuracy against the authors', fold by fold (top; green: the same "
        "number of correct predictions) and the distribution of the differences in correct predictions "
        "(bottom).",
    ),
    (
        r"paper_b_fold_distributions",
        "Paper B: the per-fold values behind the fold-based t-tests, one box per race, model, metric and "
        "source (the authors' per-fold results, our rerun). The boxes are wide compared with the distance "
        "between the White and Black centres: a fold has only 103 people.",
    ),
    (
        r"paper_b_calibration_curves",
        "Paper B, calibration (Tables XII, XIII): per model and race, the observed share of the favourable "
        "outcome in each of the 10 score bins against the mean predicted probability of it; marker area "
        "grows with the people in the bin. Calibrated for both races = both curves on the diagonal.",
    ),
    (
        r"paper_b_naive_vs_corrected_pvalues",
        "Paper B: each fold-based t-test's p-value under the paper's formula (the t statistic without its "
        "square root) against its p-value under the corrected resampled t (Nadeau & Bengio 2003), log "
        "scales; dashed lines at alpha. Points above the horizontal line and left of the vertical one were "
        "violations for the paper and are not under the corrected test.",
    ),
    (
        r"naive_vs_corrected_pvalues",
        "Beyond the papers: evidence (-log10 p) of each of paper B's fold-based tests, per battery source. "
        "Left: the paper's p-value against the corrected resampled t's; right: the corrected p-value against "
        "its Holm adjustment over the whole battery. Dashed lines mark alpha.",
    ),
    (
        r"verdicts",
        "Beyond the papers: the verdict of every test of paper B's battery per model, as printed by the "
        "paper, under the corrected t, and after Holm and Benjamini-Hochberg adjustment over the battery.",
    ),
    (
        r"forest_disparities",
        "Beyond the papers: each group disparity (White - Black on NIJ, Caucasian - African-American on "
        "COMPAS) with a 95% bootstrap confidence interval (BCa, people resampled within their group), per "
        "model and metric; the line at 0 is no disparity.",
    ),
)

_STAGE_TITLES: tuple[tuple[str, str], ...] = (
    (r"compas/(?P<name>\w+)", "Paper A \u2014 equal confusion fairness on COMPAS, filter preset '{name}'"),
    (r"nij/authors",
     "Paper B \u2014 the authors' committed per-fold results through the paper's formulas and correct tests"),
    (r"nij/paper",
     "Paper B \u2014 our rerun with the authors' folds, design matrix and estimators (preset 'paper')"),
    (r"nij/clean",
     "Paper B \u2014 our rerun, clean design: no ID, standardised inputs, converged fits (preset 'clean')"),
    (r"nij/(?P<name>\w+)", "Paper B \u2014 our rerun, model preset '{name}'"),
    (r"inference/compas/(?P<name>\w+)",
     "Beyond the papers \u2014 paper B's outcome tests on COMPAS without folds (filter preset '{name}')"),
    (r"inference/nij/authors",
     "Beyond the papers \u2014 the authors' battery, adjusted for multiplicity (Holm, BH), with verdicts"),
    (r"inference/nij/(?P<name>\w+)",
     "Beyond the papers \u2014 NIJ preset '{name}': equal confusion test, disparities with intervals, "
     "adjusted battery"),
    (r"inference",
     "Beyond the papers \u2014 which fairness violations hold up (corrected tests, multiplicity, intervals)"),
)

# Tables whose rows are decisions (a test rejects or not): listed again under "Verdicts" on the index.
_VERDICT = re.compile(r"equal_confusion_tests|battery|verdict|decision", re.IGNORECASE)
# Boolean columns whose True value is a finding worth seeing (coloured in every table).
_FINDING = re.compile(r"^(reject\w*|significant\w*|flag\w*|violat\w*)$")
_SKIP_DIRS = {"logs", "benchmarks", "report", "predictions"}

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1180px;
padding:0 1.2rem 3rem;color:#1d232b;line-height:1.45}
header{border-bottom:3px solid #2b6cb0;margin-bottom:1rem}
h1{font-size:1.7rem;margin:1.2rem 0 .3rem}h2{margin-top:2.2rem;border-bottom:1px solid #d5dbe3}
h3{margin-top:1.6rem}
nav a{margin-right:1rem}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0 1rem}
th,td{border:1px solid #d5dbe3;padding:.2rem .45rem;vertical-align:top}
th{background:#eef2f7;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.mismatch td{background:#fde2e1}
tr.match td.flag{color:#22663a}
tr.mismatch td.flag{color:#a61b1b;font-weight:bold}
td.finding{background:#fff1c2;font-weight:bold}
.cards{display:flex;flex-wrap:wrap;gap:1rem}
figure{margin:0 0 1.5rem;max-width:100%}
.cards figure{width:270px}
.cards img{width:100%;max-height:240px;object-fit:contain;object-position:left top;border:1px solid #d5dbe3}
figure img{max-width:min(100%,900px)}
.cards{align-items:flex-start}
figcaption{font-size:.85rem;color:#46505c}
.note{color:#46505c;font-size:.9rem}
.scroll{overflow-x:auto}
code{background:#f3f5f8;padding:0 .2rem}
"""

# Marks the page when every image has loaded, so a headless browser can check it from the DOM.
_IMAGE_CHECK = """
<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !i.complete || i.naturalWidth === 0; });
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-images-broken", String(broken.length));
  document.body.setAttribute("data-images-broken-src",
    broken.map(function (i) { return i.getAttribute("src"); }).join(" "));
});
</script>
"""


@dataclass(frozen=True)
class SiteBuild:
    """What :func:`build_site` wrote.

    Attributes
    ----------
    index : pathlib.Path
        The site's entry page, ``<site_dir>/index.html``.
    pages : tuple of pathlib.Path
        Every other page written (``pages/*.html``), sorted.
    stages : tuple of str
        The stages found, sorted (``compas/propublica_violent``, ``nij/authors`` ...).
    n_tables, n_figures, n_notebooks : int
        Tables rendered, figures and notebooks linked.
    n_published, n_matching : int
        Rows of the published-vs-reproduced table, and how many of them match (0 when there is none).
    """

    index: Path
    pages: tuple[Path, ...]
    stages: tuple[str, ...]
    n_tables: int
    n_figures: int
    n_notebooks: int
    n_published: int
    n_matching: int

    def to_frame(self) -> pd.DataFrame:
        """One row per page written: ``page`` (path relative to the site folder)."""
        root = self.index.parent
        return pd.DataFrame({"page": [p.relative_to(root).as_posix() for p in (self.index, *self.pages)]})


def _fill(patterns: Sequence[tuple[str, str]], name: str, default: str) -> str:
    for pattern, text in patterns:
        m = re.fullmatch(pattern, name)
        if m:
            return text.format(**m.groupdict())
    return default


def figure_caption(path: str | os.PathLike) -> str:
    """Caption of a figure file, from :data:`FIGURE_CAPTIONS` (its file name, humanised, when none matches).

    Examples
    --------
    >>> figure_caption("results/default/compas/propublica_violent/figures/race_residuals.png")[:31]
    'Paper A, post hoc analysis: adj'
    """
    name = Path(path).stem
    return _fill(FIGURE_CAPTIONS, name, name.replace("_", " ").capitalize() + ".")


def stage_title(stage: str) -> str:
    """Heading of a stage, e.g. ``nij/authors`` -> "Paper B -- the authors' committed per-fold results..."."""
    return _fill(_STAGE_TITLES, stage, stage)


def _format_value(value: object) -> tuple[str, bool]:
    """Display text of a cell and whether it is numeric (right-aligned); display only, CSVs keep precision."""
    if value is None or value is pd.NA or (isinstance(value, float | np.floating) and np.isnan(value)):
        return "", False
    if isinstance(value, bool | np.bool_):
        return str(bool(value)), False
    if isinstance(value, int | np.integer):
        return f"{int(value)}", True
    if isinstance(value, float | np.floating):
        v = float(value)
        return (f"{int(v)}" if v.is_integer() and abs(v) < 1e15 else f"{v:.6g}"), True
    return str(value), False


def html_table(
    frame: pd.DataFrame,
    *,
    max_rows: int = 400,
    row_classes: Sequence[str] | None = None,
    flag_columns: Sequence[str] = (),
) -> str:
    """Render ``frame`` as an HTML table (escaped; numbers to 6 significant digits, for display only).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; its index is dropped (reset it first to keep it).
    max_rows : int, default 400
        Rows shown; a note under the table says how many were left out.
    row_classes : sequence of str, optional
        A CSS class per row (e.g. ``"mismatch"``), same length as ``frame``.
    flag_columns : sequence of str
        Columns whose cells get the CSS class ``flag`` (e.g. the ``matches`` column).

    Returns
    -------
    str
        ``<div class="scroll"><table>...</table></div>`` and, if rows were left out, a note.

    Notes
    -----
    Boolean columns named ``reject*``, ``significant*``, ``flag*`` or ``violat*`` have their True cells
    marked with the CSS class ``finding``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame: expected a pandas DataFrame, got {type(frame).__name__}")
    if row_classes is not None and len(row_classes) != len(frame):
        raise ValueError(f"row_classes: {len(row_classes)} classes for {len(frame)} rows")
    if max_rows < 1:
        raise ValueError(f"max_rows: must be at least 1, got {max_rows}")
    cols = [str(c) for c in frame.columns]
    finding = {c for c in cols if _FINDING.match(c)}
    flags = set(flag_columns)
    out = ['<div class="scroll"><table>', "<thead><tr>"]
    out += [f"<th>{html.escape(c)}</th>" for c in cols]
    out.append("</tr></thead><tbody>")
    shown = frame.iloc[:max_rows]
    for i, row in enumerate(shown.itertuples(index=False, name=None)):
        cls = f' class="{html.escape(row_classes[i])}"' if row_classes is not None and row_classes[i] else ""
        out.append(f"<tr{cls}>")
        for col, value in zip(cols, row, strict=True):
            text, numeric = _format_value(value)
            classes = (["num"] if numeric else []) + (["flag"] if col in flags else [])
            if col in finding and text == "True":
                classes.append("finding")
            attr = f' class="{" ".join(classes)}"' if classes else ""
            out.append(f"<td{attr}>{html.escape(text)}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    if len(frame) > max_rows:
        out.append(f'<p class="note">First {max_rows} of {len(frame)} rows; the CSV has them all.</p>')
    return "".join(out)


def _is_true(series: pd.Series) -> pd.Series:
    return series.astype(str).str.strip().str.lower().eq("true")


def published_vs_reproduced_html(table: pd.DataFrame, *, only_mismatches: bool = False) -> str:
    """Render the published-vs-reproduced table, mismatching rows coloured, notes shown.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns :data:`fairstats.reporting.PVR_COLUMNS`; ``published`` is the number as printed.
    only_mismatches : bool, default False
        Keep only the rows whose ``matches`` is not True (the deviations).

    Returns
    -------
    str
        An HTML table; rows that do not match have the CSS class ``mismatch`` and a cross in ``matches``.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table: expected a pandas DataFrame, got {type(table).__name__}")
    missing = [c for c in PVR_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table: column {missing[0]!r} missing (the table needs {PVR_COLUMNS})")
    matched = _is_true(table["matches"])
    shown = table.loc[~matched] if only_mismatches else table
    ok = matched.loc[shown.index]
    view = shown[PVR_COLUMNS].assign(
        published=shown["published"].astype(str),
        matches=np.where(ok, "\u2713 yes", "\u2717 no"),
        note=shown["note"].fillna(""),
    )
    classes = ["match" if m else "mismatch" for m in ok]
    return html_table(view.reset_index(drop=True), max_rows=max(len(view), 1), row_classes=classes,
                      flag_columns=["matches"])


def _a(href: str, text: str) -> str:
    return f'<a href="{html.escape(href)}">{html.escape(text)}</a>'


def _page(title: str, body: str, *, depth: int) -> str:
    up = "../" * depth
    nav = " ".join([_a(f"{up}index.html", "Index"),
                    _a(f"{up}pages/published-vs-reproduced.html", "Published vs reproduced"),
                    _a(f"{up}workflow.html", "Workflow provenance")])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        f"<header><h1>{html.escape(title)}</h1><nav>{nav}</nav></header>\n{body}\n"
        f'<footer><p class="note">Built by <code>compendium.site</code> (fairstats {__version__}) with '
        "<code>make report</code>. Numbers are rounded for display; the CSV files under "
        f"<code>results/</code> keep full precision.</p></footer>\n{_IMAGE_CHECK}</body></html>\n"
    )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _table_title(csv_path: Path) -> str:
    md = csv_path.with_suffix(".md")
    if md.is_file():
        first = md.read_text(encoding="utf-8").splitlines()[:1]
        if first and first[0].startswith("# "):
            return first[0][2:].strip()
    return csv_path.stem.replace("_", " ")


def _stages(results_dir: Path, site_dir: Path) -> list[str]:
    found = set()
    for kind in ("tables", "figures", "notebooks"):
        for d in results_dir.rglob(kind):
            rel = d.parent.relative_to(results_dir)
            if d.is_dir() and d.parent != site_dir and not set(rel.parts) & _SKIP_DIRS:
                found.add(rel.as_posix())
    # figures and notebooks already placed in the site count too (a stage with no tables of its own)
    for kind in ("figures", "notebooks"):
        base = site_dir / kind
        if base.is_dir():
            found.update(f.parent.relative_to(base).as_posix() for f in base.rglob("*") if f.is_file())
    return sorted((s for s in found if s != "."), key=_stage_key)


# Reading order of the stages: paper A, paper B (authors, paper preset, other presets), beyond the papers.
_STAGE_ORDER = (r"compas/.*", r"nij/authors", r"nij/paper", r"nij/.*", r"inference", r"inference/compas/.*",
                r"inference/nij/authors", r"inference/nij/.*")


def _stage_key(stage: str) -> tuple[int, str]:
    rank = next((i for i, p in enumerate(_STAGE_ORDER) if re.fullmatch(p, stage)), len(_STAGE_ORDER))
    return rank, stage


def _build_site_iv(results_dir, site_dir, published_vs_reproduced, max_rows):
    results_dir, site_dir = Path(results_dir), Path(site_dir)
    if not results_dir.is_dir():
        raise ValueError(f"results_dir: folder {str(results_dir)!r} does not exist")
    if max_rows < 1:
        raise ValueError(f"max_rows: must be at least 1, got {max_rows}")
    pvr = None
    if published_vs_reproduced:
        path = Path(published_vs_reproduced)
        if not path.is_file():
            raise ValueError(f"published_vs_reproduced: file {str(path)!r} does not exist")
        pvr = pd.read_csv(path, dtype={"published": str})
        missing = [c for c in PVR_COLUMNS if c not in pvr.columns]
        if missing:
            raise ValueError(f"published_vs_reproduced: {str(path)!r} has no column {missing[0]!r}")
    return results_dir, site_dir, pvr


def _pvr_summary(pvr: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """One row per (paper, table), one column per source: "matching / numbers"; a class per row."""
    long = summarise_published_vs_reproduced(pvr)
    long["cell"] = [f"{m} / {t}" for m, t in zip(long["matching"], long["numbers"], strict=True)]
    wide = long.pivot(index=["paper", "table"], columns="source", values="cell")
    order = long[["paper", "table"]].drop_duplicates()  # the collected table's order (Roman numerals)
    wide = wide.reindex(pd.MultiIndex.from_frame(order)).fillna("").reset_index()
    wide.columns.name = None
    bad = (long["matching"] < long["numbers"]).groupby([long["paper"], long["table"]], sort=False).any()
    classes = ["mismatch" if bad.loc[(p, t)] else "match" for p, t in zip(wide["paper"], wide["table"],
                                                                              strict=True)]
    return wide, classes


def _pvr_sections(pvr: pd.DataFrame | None) -> tuple[str, str, str, int, int]:
    """(index section, deviations section, full page body, numbers, matching)."""
    head = '<h2 id="published-vs-reproduced">Published vs reproduced</h2>'
    if pvr is None:
        none = "<p>This experiment has no published-vs-reproduced table (no stage compared with a paper).</p>"
        return head + none, "", none, 0, 0
    matched = _is_true(pvr["matches"])
    n, k = len(pvr), int(matched.sum())
    summary, classes = _pvr_summary(pvr)
    section = (
        f"{head}<p>{n} printed numbers compared at the printed precision: <b>{k} match</b>, "
        f"<b>{n - k} deviate</b>, each deviation with a note saying why "
        f"({_a('#deviations', 'listed')} at the end of this page; "
        f"{_a('pages/published-vs-reproduced.html', 'the full table')} has every number). "
        "Each cell: numbers matching / numbers compared, per source; rows in red: tables with at least one "
        "deviation.</p>" + html_table(summary, row_classes=classes)
    )
    deviations = '<h2 id="deviations">Deviations from the published numbers</h2>' + (
        published_vs_reproduced_html(pvr, only_mismatches=True) if k < n
        else "<p>None: every printed number is reproduced.</p>"
    )
    full = (f"<p>Every number printed in the two papers beside ours: {n} numbers, {k} match at the printed "
            f"precision, {n - k} do not (rows in red, each with a note saying why).</p>"
            + published_vs_reproduced_html(pvr))
    return section, deviations, full, n, k


@dataclass
class _Stage:
    page: str
    body: list[str]
    card: list[str]
    verdicts: list[str]
    n_tables: int = 0
    n_figures: int = 0
    n_notebooks: int = 0


def _stage(stage: str, results_dir: Path, site_dir: Path, experiment: str, max_rows: int) -> _Stage:
    out = _Stage(page=f"pages/{_slug(stage)}.html", verdicts=[], card=[],
                 body=[f'<p class="note">Results folder <code>results/{html.escape(experiment)}/'
                       f"{html.escape(stage)}/</code>.</p>"])
    notebooks = sorted((site_dir / "notebooks" / stage).glob("*.html"))
    if notebooks:
        links = ", ".join(_a(f"../notebooks/{stage}/{nb.name}", nb.stem) for nb in notebooks)
        out.body.append(f'<h2 id="notebooks">Notebooks</h2><p>The executed notebook, step by step: {links}.'
                        "</p>")
        out.card.append("<p>Notebook: " + ", ".join(_a(f"notebooks/{stage}/{nb.name}", nb.stem)
                                                   for nb in notebooks) + "</p>")
        out.n_notebooks = len(notebooks)

    figures = sorted((site_dir / "figures" / stage).glob("*.png"))
    if figures:
        out.body.append('<h2 id="figures">Figures</h2>')
        thumbs = []
        for fig in figures:
            name, anchor = html.escape(fig.stem), f"fig-{_slug(fig.stem)}"
            out.body.append(f'<figure id="{anchor}"><img src="../figures/{stage}/{fig.name}" alt="{name}">'
                            f"<figcaption><b>{name}</b>. {html.escape(figure_caption(fig))}</figcaption>"
                            "</figure>")
            thumbs.append(f'<figure><a href="{out.page}#{anchor}"><img src="figures/{stage}/{fig.name}" '
                          f'alt="{name}"></a><figcaption>{name}</figcaption></figure>')
        out.card.append('<div class="cards">' + "".join(thumbs) + "</div>")
        out.n_figures = len(figures)

    tables = sorted((results_dir / stage / "tables").glob("*.csv"))
    if tables:
        toc = "".join(f"<li>{_a(f'#table-{_slug(t.stem)}', _table_title(t))}</li>" for t in tables)
        out.body.append(f'<h2 id="tables">Tables</h2><ul>{toc}</ul>')
        for t in tables:
            frame, title, anchor = pd.read_csv(t), _table_title(t), f"table-{_slug(t.stem)}"
            out.body.append(f'<h3 id="{anchor}">{html.escape(title)}</h3><p class="note"><code>'
                            f"{html.escape(t.name)}</code>, {len(frame)} rows</p>"
                            + html_table(frame, max_rows=max_rows))
            if _VERDICT.search(t.stem):
                out.verdicts.append(f"<li>{_a(f'{out.page}#{anchor}', title)} "
                                    f'<span class="note">({html.escape(stage)})</span></li>')
        out.card.append(f"<p>{_a(f'{out.page}#tables', f'{len(tables)} tables')}: " + ", ".join(
            _a(f"{out.page}#table-{_slug(t.stem)}", t.stem) for t in tables) + "</p>")
        out.n_tables = len(tables)
    return out


def build_site(
    results_dir: str | os.PathLike,
    site_dir: str | os.PathLike,
    *,
    experiment: str,
    published_vs_reproduced: str | os.PathLike | None = None,
    max_rows: int = 400,
) -> SiteBuild:
    """Write ``index.html`` and ``pages/*.html`` of an experiment's site.

    Parameters
    ----------
    results_dir : path
        ``results/<experiment>``: its stages' ``tables/*.csv`` are rendered (titles from the ``.md`` beside).
    site_dir : path
        The site folder (``results/<experiment>/report``). Figures must already be in
        ``figures/<stage>/*.png`` and rendered notebooks in ``notebooks/<stage>/*.html``; they are linked.
    experiment : str
        The experiment's name (config ``experiment``), shown in titles.
    published_vs_reproduced : path, optional
        The collected published-vs-reproduced CSV; its summary, deviations and full table are shown.
    max_rows : int, default 400
        Rows shown per table; longer tables say how many were left out.

    Returns
    -------
    SiteBuild
        The pages written and what they contain.

    Raises
    ------
    ValueError
        ``results_dir`` or ``published_vs_reproduced`` missing, or the latter without the PVR columns.

    Notes
    -----
    Every link is relative and stays inside ``site_dir``; the pages link ``workflow.html`` (Snakemake's
    provenance report, which ``make report`` writes after this). The output is deterministic: stages, tables
    and figures in sorted order, no timestamps. Each page carries a small script that, once the page has
    loaded, records on ``<body>`` how many images it has (``data-images``) and how many failed to load
    (``data-images-broken``), so a headless browser can check it from the rendered DOM.

    Examples
    --------
    >>> build_site("results/default", "results/default/report", experiment="default",
    ...            published_vs_reproduced="results/published-vs-reproduced.csv")  # doctest: +SKIP
    """
    results_dir, site_dir, pvr = _build_site_iv(results_dir, site_dir, published_vs_reproduced, max_rows)
    stages = _stages(results_dir, site_dir)
    pvr_section, deviations, pvr_page, n_published, n_matching = _pvr_sections(pvr)
    pages = [atomic_write_text(site_dir / "pages" / "published-vs-reproduced.html",
                               _page(f"Published vs reproduced \u2014 {experiment}", pvr_page, depth=1))]
    built = {stage: _stage(stage, results_dir, site_dir, experiment, max_rows) for stage in stages}
    for stage, st in built.items():
        page = _page(stage_title(stage), "\n".join(st.body), depth=1)
        pages.append(atomic_write_text(site_dir / st.page, page))

    verdicts = [v for st in built.values() for v in st.verdicts]
    contents = [_a("#published-vs-reproduced", "published vs reproduced"),
                _a("#stages", "stages (figures, tables, notebooks)")]
    contents += [_a("#verdicts", "verdicts")] if verdicts else []
    contents += [_a("#deviations", "deviations")] if deviations else []
    intro = (
        f"<p>The results of the experiment <b>{html.escape(experiment)}</b> of the fairstats compendium, "
        "which rebuilds two papers from their raw data: paper A (Gursoy &amp; Kakadiaris, <i>Equal confusion "
        "fairness</i>, COMPAS) and paper B (<i>Detecting statistically significant fairness violations in "
        "recidivism forecasting algorithms</i>, NIJ). Start with the published-vs-reproduced table, then "
        "open a stage: its page shows the figures and every table, its notebook explains each step.</p>"
        f'<p class="note">How this was made: {_a("workflow.html", "the workflow provenance report")} '
        "(Snakemake: every rule, its inputs, code, software and runtime; each figure with its caption).</p>"
        "<p><b>Contents</b>: " + " \u00b7 ".join(contents) + "</p>"
    )
    stage_sections = [f'<h3 id="stage-{_slug(stage)}">{_a(st.page, stage_title(stage))}</h3>'
                      + "".join(st.card) for stage, st in built.items()]
    verdict_section = ('<h2 id="verdicts">Verdicts</h2><p>Tables where each row is a test and its '
                       "decision:</p><ul>" + "".join(verdicts) + "</ul>") if verdicts else ""
    body = "\n".join([intro, pvr_section, '<h2 id="stages">Stages</h2>', *stage_sections, verdict_section,
                      deviations])
    index = atomic_write_text(site_dir / "index.html", _page(f"fairstats \u2014 {experiment}", body, depth=0))
    return SiteBuild(
        index=index,
        pages=tuple(sorted(pages)),
        stages=tuple(stages),
        n_tables=sum(st.n_tables for st in built.values()),
        n_figures=sum(st.n_figures for st in built.values()),
        n_notebooks=sum(st.n_notebooks for st in built.values()),
        n_published=n_published,
        n_matching=n_matching,
    )
