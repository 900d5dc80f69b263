"""A static HTML site of one experiment's results: index, published vs reproduced, tables, figures, notebooks.

The site lives in ``results/<experiment>/report/`` and is self-contained: every link is relative and points
inside the site folder, so the folder can be opened from disk, zipped or served as it is. The workflow
(``workflow/rules/site.smk``) fills it in three steps: nbconvert renders each executed notebook to
``notebooks/<stage>/<name>.html``, each figure is copied to ``figures/<stage>/<name>.png``, and
:func:`build_site` writes ``index.html`` and ``pages/*.html`` from the result tables.

The pages are Jinja2 templates (``compendium/publish/templates/``: ``base.html``, ``index.html``,
``stage.html``, ``published-vs-reproduced.html``, ``course.html``, ``table.html``, ``site.css``) rendered with
autoescaping:
every string that comes from data or file names (group values, column names, notes, captions) is shown as
text. This module only gathers what the pages show.

A *stage* is a results folder with ``tables/``, ``figures/`` or ``notebooks/`` below it, named by its path
relative to ``results/<experiment>`` (``compas/propublica_violent``, ``nij/authors``, ``nij/paper`` ...).

The course (:mod:`compendium.course`): when the workflow has rendered the labs' student notebooks into
``course/<lab>.html`` (beside ``course/<lab>.ipynb``), the index gets a "Course" section and
``pages/course.html`` lists the labs with their goals and timings, in the catalogue's order.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import jinja2
import numpy as np
import pandas as pd
from markupsafe import Markup

from compendium.publish.published import PVR_COLUMNS, summarise_published_vs_reproduced
from compendium.publish.pvr_classes import by_number, summarise_by_number
from compendium.publish.reporting import atomic_write_text
from fairstats import __version__

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
        r"model_comparison",
        "Paper B, model against model: for every pair of the four models, the change of each disparity "
        "(Black - White) from one model to the other over the 250 shared folds (corrected resampled t, 95% "
        "interval), and the change of accuracy and AUC (green). Filled: one model's disparity is smaller in "
        "size than the other's (or its accuracy higher), after Holm over all pairs; a hollow marker whose "
        "interval misses 0 is a change that leaves neither disparity shown smaller (one lies near 0).",
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
        r"top_subgroups",
        "Which subgroup? COMPAS: the false positive rate of the 15 subgroups (up to three values of sex, "
        "race, age category, charge degree) that differ most from the rest, against the rest's rate; "
        "filled = disparity after the Westfall-Young max-T adjustment over the whole search.",
    ),
    (
        r"null_minimum_p",
        "Which subgroup? The smallest p-value of the whole subgroup search on COMPAS data with the attribute "
        "labels permuted (no disparity anywhere): unadjusted, it is below alpha in nearly every data set; "
        "Westfall-Young adjusted, in about alpha of them.",
    ),
    (
        r"null_ever_alarm",
        "Monitoring: share of simulated streams with no disparity that have alarmed by each batch, for the "
        "anytime-valid monitor and for a z test run after every batch; the dashed line is alpha.",
    ),
    (
        r"planted_decisions",
        "Monitoring: decisions until the monitor alarms on a planted difference in selection rate (share of "
        "streams), against the size of a fixed-sample test planned for 80 % and 95 % power.",
    ),
    (
        r"compas_replay",
        "Monitoring: COMPAS decisions replayed by screening date; each group's rate difference to the "
        "reference with its running 95% confidence sequence, per rate.",
    ),
    (
        r"impact_ratios",
        "Impact ratios (LL144, the four-fifths rule): each category's rate of low-risk ratings divided by "
        "the most selected category's, with its score interval at the family level (Bonferroni); the dashed "
        "line is four fifths (0.8).",
    ),
    (
        r"forest_disparities",
        "Beyond the papers: each group disparity (White - Black on NIJ, Caucasian - African-American on "
        "COMPAS) with a 95% bootstrap confidence interval (BCa, people resampled within their group), per "
        "model and metric; the line at 0 is no disparity.",
    ),
)

_STAGE_TITLES: tuple[tuple[str, str], ...] = (
    (r"monitoring",
     "Beyond the papers \u2014 watching a deployed system: anytime-valid monitoring, simulated and COMPAS"),
    (r"compas/subgroup_search",
     "Beyond the papers \u2014 which subgroup? COMPAS searched, p-values adjusted for the whole search"),
    (r"compas/violent_three_level",
     "Beyond the papers \u2014 COMPAS's three-level decision (Low / Medium / High): equal confusion test on "
     "the decision \u00d7 outcome cells, per-level shares and the ordinal test"),
    (r"compas/impact_ratios",
     "Beyond the papers \u2014 impact ratios in the regulators' terms: NYC Local Law 144's layout and the "
     "four-fifths rule with its statistics, COMPAS low-risk ratings as selections"),
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


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("compendium.publish", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def _render(template: str, **context: object) -> str:
    return _templates().get_template(template).render(version=__version__, **context)


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
    n_labs : int
        Course labs linked (0 when the site has no ``course/`` folder).
    """

    index: Path
    pages: tuple[Path, ...]
    stages: tuple[str, ...]
    n_tables: int
    n_figures: int
    n_notebooks: int
    n_published: int
    n_matching: int
    n_labs: int = 0

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
    markupsafe.Markup
        ``<div class="scroll"><table>...</table></div>`` and, if rows were left out, a note (template
        ``table.html``; every cell escaped).

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
    rows = []
    for i, row in enumerate(frame.iloc[:max_rows].itertuples(index=False, name=None)):
        cells = []
        for col, value in zip(cols, row, strict=True):
            text, numeric = _format_value(value)
            classes = (["num"] if numeric else []) + (["flag"] if col in flags else [])
            if col in finding and text == "True":
                classes.append("finding")
            cells.append({"text": text, "classes": classes})
        rows.append({"cls": row_classes[i] if row_classes is not None else "", "cells": cells})
    table = {"columns": cols, "rows": rows, "n_rows": len(frame), "left_out": len(frame) > max_rows}
    return Markup(_render("table.html", table=table))


def _is_true(series: pd.Series) -> pd.Series:
    return series.astype(str).str.strip().str.lower().eq("true")


def published_vs_reproduced_html(table: pd.DataFrame, *, only_mismatches: bool = False) -> str:
    """Render the published-vs-reproduced table, mismatching rows coloured, notes shown.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns :data:`compendium.publish.published.PVR_COLUMNS`, and ``class`` and ``evidence`` where
        present (``class`` before the note, ``evidence`` after it); ``published`` is the number as printed.
    only_mismatches : bool, default False
        Keep only the rows whose ``matches`` is not True (the deviations).

    Returns
    -------
    markupsafe.Markup
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
    # the class of each row and the committed result or test behind it (compendium.publish.pvr_classes)
    order = [c for c in PVR_COLUMNS if c != "note"]
    order += [c for c in ("class", "note", "evidence") if c in shown.columns or c == "note"]
    view = shown[order].assign(
        published=shown["published"].astype(str),
        matches=np.where(ok, "\u2713 yes", "\u2717 no"),
        note=shown["note"].fillna(""),
    )
    classes = ["match" if m else "mismatch" for m in ok]
    return html_table(view.reset_index(drop=True), max_rows=max(len(view), 1), row_classes=classes,
                      flag_columns=["matches"])


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


def _pvr_context(pvr: pd.DataFrame | None) -> dict | None:
    """What the pages show of the published-vs-reproduced table (None when the experiment has none)."""
    if pvr is None:
        return None
    matched = _is_true(pvr["matches"])
    n, k = len(pvr), int(matched.sum())
    summary, classes = _pvr_summary(pvr)
    per_number = ""
    if "class" in pvr.columns:
        # one class per printed number, the best any source gives it (compendium.publish.pvr_classes)
        counts = summarise_by_number(by_number(pvr))
        per_number = html_table(counts, max_rows=max(len(counts), 1))
    return {
        "n": n,
        "k": k,
        "by_number": per_number,
        "summary": html_table(summary, row_classes=classes),
        "deviations": published_vs_reproduced_html(pvr, only_mismatches=True) if k < n else "",
        "full": published_vs_reproduced_html(pvr),
    }


@dataclass
class _Stage:
    """What a stage's page and its card on the index show (links relative to the site folder)."""

    name: str
    title: str
    slug: str
    page: str
    notebooks: list[dict] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)
    tables: list[dict] = field(default_factory=list)


def _stage(stage: str, results_dir: Path, site_dir: Path, max_rows: int) -> _Stage:
    slug = _slug(stage)
    out = _Stage(name=stage, title=stage_title(stage), slug=slug, page=f"pages/{slug}.html")
    out.notebooks = [{"href": f"notebooks/{stage}/{nb.name}", "name": nb.stem}
                     for nb in sorted((site_dir / "notebooks" / stage).glob("*.html"))]
    out.figures = [{"href": f"figures/{stage}/{fig.name}", "name": fig.stem,
                    "anchor": f"fig-{_slug(fig.stem)}", "caption": figure_caption(fig)}
                   for fig in sorted((site_dir / "figures" / stage).glob("*.png"))]
    for t in sorted((results_dir / stage / "tables").glob("*.csv")):
        frame = pd.read_csv(t)
        out.tables.append({"stem": t.stem, "file": t.name, "title": _table_title(t),
                           "anchor": f"table-{_slug(t.stem)}", "n_rows": len(frame),
                           "html": html_table(frame, max_rows=max_rows),
                           "verdict": bool(_VERDICT.search(t.stem))})
    return out


def _course(site_dir: Path) -> list[dict]:
    """The course labs rendered in ``site_dir/course/`` (catalogue order); empty when there are none."""
    from compendium.course.labs import LABS

    labs = []
    for lab in LABS:
        html, ipynb = site_dir / "course" / f"{lab.stem}.html", site_dir / "course" / f"{lab.stem}.ipynb"
        if not html.is_file():
            continue
        if not ipynb.is_file():
            raise ValueError(f"site_dir: {str(html)!r} has no notebook beside it ({ipynb.name})")
        seconds = lab.compute_seconds
        labs.append({"number": lab.number, "title": lab.title, "minutes": lab.minutes,
                     "goals": list(lab.goals),
                     "href": f"course/{html.name}", "ipynb": f"course/{ipynb.name}",
                     "compute": "" if seconds != seconds else f"about {seconds:.0f} s"})
    return labs


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
    pvr_context = _pvr_context(pvr)
    built = [_stage(stage, results_dir, site_dir, max_rows) for stage in stages]
    pages = [atomic_write_text(site_dir / "pages" / "published-vs-reproduced.html",
                               _render("published-vs-reproduced.html", depth=1, pvr=pvr_context,
                                       title=f"Published vs reproduced \u2014 {experiment}"))]
    pages += [atomic_write_text(site_dir / st.page, _render("stage.html", depth=1, title=st.title, stage=st,
                                                               experiment=experiment))
              for st in built]
    verdicts = [{"href": f"{st.page}#{t['anchor']}", "title": t["title"], "stage": st.name}
                for st in built for t in st.tables if t["verdict"]]
    course = _course(site_dir)
    if course:
        pages.append(atomic_write_text(site_dir / "pages" / "course.html",
                                       _render("course.html", depth=1, course=course,
                                               title="Course \u2014 fairness statistics with fairstats")))
    index = _render("index.html", depth=0, title=f"fairstats \u2014 {experiment}", experiment=experiment,
                    pvr=pvr_context, stages=built, verdicts=verdicts, course=course)
    index = atomic_write_text(site_dir / "index.html", index)
    return SiteBuild(
        index=index,
        pages=tuple(sorted(pages)),
        stages=tuple(stages),
        n_tables=sum(len(st.tables) for st in built),
        n_figures=sum(len(st.figures) for st in built),
        n_notebooks=sum(len(st.notebooks) for st in built),
        n_published=0 if pvr_context is None else pvr_context["n"],
        n_matching=0 if pvr_context is None else pvr_context["k"],
        n_labs=len(course),
    )
