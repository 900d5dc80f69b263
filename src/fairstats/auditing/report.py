"""The report of an audit: the Markdown report, its HTML page and the terminal summary.

The reports come from Jinja2 templates (``fairstats/auditing/templates``). Group values, column names and
labels from the data are shown as text (inline code or escaped in Markdown, autoescaped in HTML, line breaks
made visible), never interpreted as Markdown or HTML.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._format import figure_text, visible
from fairstats._version import __version__
from fairstats.auditing.tables import SMALL
from fairstats.auditing.verdicts import VERDICT_INTRO, verdict_counts, verdict_sentences
from fairstats.reporting import atomic_write_text

__all__ = ["markdown_code", "markdown_table", "markdown_text", "summary_lines", "write_report"]

_METRIC_WORDS = {
    "ppr": "share predicted {fav}",
    "tpr": "among actual {fav}, share predicted {fav}",
    "fpr": "among actual {other}, share (wrongly) predicted {fav}",
    "fnr": "among actual {fav}, share (wrongly) predicted {other}",
    "tnr": "among actual {other}, share predicted {other}",
    "ppv": "among predicted {fav}, share actually {fav}",
    "npv": "among predicted {other}, share actually {other}",
    "accuracy": "share of correct predictions",
    "fn_fp_ratio": "people wrongly denied {fav} per person wrongly granted {fav} (FN / FP)",
    "mean_score_pos": "mean score of people with actual {fav}",
    "mean_score_neg": "mean score of people with actual {other}",
    "calibration": "outcome rate within score bins (calibration)",
}

_TEST_WORDS = {
    "group_fairness": "group fairness",
    "equalized_odds": "equalized odds / equal opportunity",
    "conditional_use_accuracy_equality": "conditional use accuracy equality",
    "overall_accuracy_equality": "overall accuracy equality",
    "treatment_equality": "treatment equality",
    "balance_positive_class": "balance for the favourable class",
    "balance_negative_class": "balance for the unfavourable class",
    "calibration": "calibration",
}




#: The report's lists (group sizes, flagged cells, significant comparisons, verdicts, notes) show at most this
#: many items, with a line saying how many there are and where all of them are: a 2,000-group audit's report
#: stays readable (and quick to write); the CSV files are always complete.
_MAX_LISTED = 200


def _first_listed(frame: pd.DataFrame, rank: np.ndarray) -> tuple[pd.DataFrame, int]:
    """``frame`` when it fits in a list, else its :data:`_MAX_LISTED` rows ranked first by ``rank``
    (ascending, stable, NaN last), and the number of rows left out."""
    if len(frame) <= _MAX_LISTED:
        return frame, 0
    order = np.argsort(rank, kind="stable")[:_MAX_LISTED]
    return frame.iloc[order], len(frame) - _MAX_LISTED


# --------------------------------------------------------------------------------------------------------
# report (Jinja2 templates in fairstats/templates: report.md.j2, report.html.j2)
# --------------------------------------------------------------------------------------------------------


def _p(p: float) -> str:
    if not np.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _p_eq(p: float) -> str:
    text = _p(p)
    return text if text.startswith(("<", "n/a")) else f"= {text}"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>!|&~#])")


def markdown_text(text: object) -> str:
    """``text`` escaped for Markdown: characters that could start markup get a backslash; one line."""
    return _MD_SPECIAL.sub(r"\\\1", visible(text))


def markdown_code(text: object, *, table: bool = False) -> str:
    """``text`` as Markdown inline code (a fence longer than any run of backticks inside; in a ``table``
    cell ``|`` escaped, as GitHub Markdown needs there)."""
    shown = visible(text)
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    if table:
        shown = shown.replace("|", "\\|")
    return f"{fence}{pad}{shown}{pad}{fence}"


def _own_file_name(name: str):
    """A file name the audit chose itself (ASCII letters, digits, ``_.-``), safe as-is in both formats."""
    from markupsafe import Markup

    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"not a file name of the audit: {name!r}")
    return Markup(name)


def _environment(kind: str):
    import jinja2
    from markupsafe import Markup, escape

    if kind == "html":
        env = jinja2.Environment(
            loader=jinja2.PackageLoader("fairstats.auditing", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
        )
        env.filters["code"] = lambda v: Markup("<code>{}</code>").format(escape(visible(v)))
        env.filters["own_file"] = _own_file_name
        return env

    def finalize(value: object) -> str:
        return str(value) if isinstance(value, Markup) else markdown_text(value)

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("fairstats.auditing", "templates"),
        autoescape=False,
        finalize=finalize,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["code"] = lambda v: Markup(markdown_code(v))
    env.filters["own_file"] = _own_file_name
    return env


def _report_context(audit, notes: tuple[str, ...], figures: list[str]) -> dict:
    options, equal, residuals, tests = audit.options, audit.equal_confusion, audit.residuals, audit.tests
    fav, other = audit.labels
    first = next(iter(audit.results.values()))
    rows = []
    for row in equal.to_dict(orient="records"):
        differ = row["pvalue"] < options.alpha
        verdict = "the groups differ" if differ else "no clear difference"
        permutation = ""
        if not row["cochran_ok"]:
            permutation = (
                "Some groups are small, so the usual p-value is approximate; the permutation p-value, which "
                f"does not need large groups, is {_p(row['pvalue_permutation'])}."
            )
            if differ and row["pvalue_permutation"] >= options.alpha:
                verdict = (
                    "the usual test says the groups differ, but the permutation test does not confirm it"
                )
        rows.append(
            {
                "grouping": row["grouping"],
                "verdict": verdict,
                "chi2": f"{row['statistic']:.2f}",
                "df": row["df"],
                "p": _p_eq(row["pvalue"]),
                "v": f"{row['cramers_v']:.3f}",
                "v_estimate": f"{row['cramers_v_estimate']:.3f}",
                "v_low": f"{row['cramers_v_ci_low']:.3f}",
                "v_high": f"{row['cramers_v_ci_high']:.3f}",
                "v_note": row["cramers_v_note"],
                "effect_size": row["effect_size"],
                "permutation": permutation,
            }
        )
    flagged_rows, flagged_left = _first_listed(
        residuals[residuals["flag_bonferroni"]],
        -residuals.loc[residuals["flag_bonferroni"], "adjusted_residual"].abs().to_numpy(),
    )
    flagged = [
        {
            "grouping": r["grouping"],
            "group": r["group"],
            "direction": "more" if r["adjusted_residual"] > 0 else "fewer",
            "cell": r["cell"],
            "y_pred": r["y_pred"],
            "y_true": r["y_true"],
            "observed": int(r["observed"]),
            "expected": f"{r['expected']:.1f}",
            "residual": f"{r['adjusted_residual']:+.1f}",
        }
        for r in flagged_rows.to_dict(orient="records")
    ]
    significant_all = tests[tests["significant_adj"]] if len(tests) else tests
    significant_rows, significant_left = _first_listed(
        significant_all, significant_all["pvalue_adj"].to_numpy(dtype=float) if len(tests) else np.array([])
    )
    significant = [
        {
            "grouping": r["grouping"],
            "group": r["group"],
            "reference": r["reference"],
            "calibration": r["metric"] == "calibration",
            "metric": r["metric"],
            "value_group": f"{r['value_group']:.3f}",
            "value_reference": f"{r['value_reference']:.3f}",
            "estimate": f"{r['estimate']:+.3f}",
            "ci_low": f"{r['ci_low']:+.3f}",
            "ci_high": f"{r['ci_high']:+.3f}",
            "p_adj": _p_eq(r["pvalue_adj"]),
        }
        for r in significant_rows.to_dict(orient="records")
    ]
    verdict_rows, verdict_left = _first_listed(
        tests, tests["pvalue_adj"].to_numpy(dtype=float) if len(tests) else np.array([])
    )
    notes = list(dict.fromkeys(notes))
    glossary = [
        {"metric": m, "test": _TEST_WORDS.get(t, t)}
        for m, t in (
            tests[["metric", "test"]].drop_duplicates("metric").itertuples(index=False) if len(tests) else []
        )
    ]
    caveats = [
        "A significant difference says the disparity is unlikely to be chance in these data; it does not "
        "say why it arises, nor whether it is unfair in context.",
        f"Intervals for comparisons with fewer than {SMALL} cases in a denominator are unreliable "
        "(see the note column of tests.csv).",
    ]
    if options.fold is None:
        caveats.append(
            "Intervals and tests treat people as independent. Out-of-fold predictions of cross-validated "
            "models are only approximately so; use --fold for fold-aware tests."
        )
        caveats.append(
            f"The intervals of the disparities are BCa bootstrap intervals ({options.n_resamples} resamples, "
            f"seed {options.seed}): group sizes fixed, people resampled within their group."
        )
    return {
        "version": __version__,
        "input_name": audit.source.name,
        "seed": options.seed,
        "n_people": f"{audit.n:,}",
        "y_true": options.y_true,
        "y_pred": options.y_pred,
        "fav": fav,
        "other": other,
        "groups": list(options.groups),
        "alpha": f"{options.alpha:g}",
        "fold": options.fold,
        "sizes": [_sizes_item(name, sizes) for name, sizes in audit.sizes.items()],
        "cells": first.cells[["cell", "y_pred", "y_true"]].to_dict(orient="records"),
        "equal": rows,
        "flagged": flagged,
        "comparisons": bool(len(tests)),
        "total": int(tests["pvalue"].notna().sum()) if len(tests) else 0,
        "n_holm": int(tests["significant_adj"].sum()) if len(tests) else 0,
        "n_bh": int(tests["significant_bh"].sum()) if len(tests) else 0,
        "n_raw": int(tests["significant"].sum()) if len(tests) else 0,
        "significant": significant,
        "more": {
            "flagged": f"… and {flagged_left:,} more flagged cells (shown: the {_MAX_LISTED} with the "
            "largest |residual|; flag_bonferroni in residuals.csv marks every one)"
            if flagged_left
            else "",
            "significant": f"… and {significant_left:,} more (shown: the {_MAX_LISTED} with the smallest "
            "adjusted p-values; significant_adj in tests.csv marks every one)"
            if significant_left
            else "",
            "verdicts": f"Shown: the {_MAX_LISTED} of {len(tests):,} comparisons with the smallest adjusted "
            f"p-values ({verdict_counts(tests)}); the verdict column of tests.csv has every one."
            if verdict_left
            else "",
            "notes": f"… and {len(notes) - _MAX_LISTED:,} more notes (each comparison's own are in the "
            "note and verdict_note columns of tests.csv)"
            if len(notes) > _MAX_LISTED
            else "",
        },
        "glossary": glossary,
        "figures": figures,
        "caveats": caveats,
        "notes": notes[:_MAX_LISTED],
        # issue 12: the three-way verdicts, plain sentences (the templates escape them) and the verdict word
        "verdict_intro": VERDICT_INTRO,
        "verdicts": verdict_sentences(verdict_rows, equal, labels=audit.labels, alpha=options.alpha),
    }


def _sizes_item(name: str, sizes: dict[str, int]) -> dict:
    """A grouping's group sizes for the report: every group, or the first :data:`_MAX_LISTED` and a line
    on the others."""
    items = list(sizes.items())
    more = ""
    if len(items) > _MAX_LISTED:
        rest = [k for _, k in items[_MAX_LISTED:]]
        low, high = min(rest), max(rest)
        people = f"{low:,} people each" if low == high else f"{low:,} to {high:,} people"
        more = f" … and {len(rest):,} more groups of {people} (residuals.csv has every group's counts)"
    return {"name": name, "sizes": [(g, f"{k:,}") for g, k in items[:_MAX_LISTED]], "more": more}


def _describer(fav: str, other: str, code):
    """``describe(metric)``: the metric in words, with the outcome labels rendered by ``code``."""
    from markupsafe import Markup

    def describe(metric: str):
        words = _METRIC_WORDS.get(metric, "{metric}")
        parts = re.split(r"(\{fav\}|\{other\}|\{metric\})", words)
        labels = {"{fav}": fav, "{other}": other, "{metric}": metric}
        return Markup("".join(str(code(labels[p])) if p in labels else p for p in parts))

    return describe


def write_report(folder: Path, audit, notes: tuple[str, ...], figures: list[str]) -> None:
    """Write ``report.md`` and ``report.html`` into ``folder`` from the package's Jinja2 templates.

    Every data-derived string (group values, column names, labels, the input's file name, notes quoting
    them) is rendered as text: inline code or backslash-escaped in Markdown, autoescaped ``<code>`` in HTML,
    line breaks shown as ``⏎``. The HTML page loads nothing but the figures beside it. ``levels`` (issue 17
    A, from :mod:`fairstats.auditing.levels`) replaces the binary outcome tests by the multi-level section.
    ``search``: the context of the subgroup search section (:class:`fairstats.auditing.search.SearchSection`),
    or None.
    """
    context = _report_context(audit, notes, figures)
    levels = audit.level_context
    search = audit.search.context if audit.search is not None else None
    context["levels"] = levels  # multi-level decisions (issue 17 A); None for a two-level decision
    if levels is not None:
        context["caveats"] = levels["caveats"]
    context["search"] = search  # subgroup search: context of search.*.j2 (fairstats.auditing.search) or None
    fav, other = audit.labels
    for kind, name in (("md", "report.md"), ("html", "report.html")):
        env = _environment(kind)
        text = env.get_template(f"report.{kind}.j2").render(
            **context, describe=_describer(fav, other, env.filters["code"])
        )
        atomic_write_text(folder / name, text)


def markdown_table(frame: pd.DataFrame, *, digits: int = 4) -> str:
    """The audit's Markdown rendering of a table: text cells escaped (data values as inline code)."""
    from fairstats.reporting import to_markdown

    shown = frame.copy()
    for column in shown.columns:
        if pd.api.types.is_object_dtype(shown[column]) or pd.api.types.is_string_dtype(shown[column]):
            render = partial(markdown_code, table=True) if column in _DATA_COLUMNS else markdown_text
            shown[column] = [
                v if v is None or (isinstance(v, float) and np.isnan(v)) else render(v) for v in shown[column]
            ]
    shown.columns = [markdown_text(c) for c in shown.columns]
    return to_markdown(shown, digits=digits)


#: Columns of the audit tables that hold values from the data.
_DATA_COLUMNS = ("grouping", "group", "reference", "cell", "y_pred", "y_true")


def summary_lines(audit, notes: tuple[str, ...]) -> list[str]:
    """The terminal summary of a two-level audit, line by line (without the line naming the report)."""
    options, equal, tests = audit.options, audit.equal_confusion, audit.tests
    fav, _ = audit.labels
    lines = [
        f"fairstats audit: {audit.n:,} people, favourable outcome = {visible(fav)}, "
        f"alpha = {options.alpha:g}"
    ]
    lines.append("  equal confusion test (do the groups' confusion matrices differ?)")
    names = {g: figure_text(g) for g in equal["grouping"]}
    width = max(len(g) for g in names.values())
    for row in equal.to_dict(orient="records"):
        p = _p(row["pvalue"])
        p = p if p.startswith("<") else f"= {p}"
        verdict = "differ" if row["pvalue"] < options.alpha else "no clear difference"
        perm = "" if row["cochran_ok"] else f" (permutation p {_p(row['pvalue_permutation'])})"
        lines.append(
            f"    {names[row['grouping']]:<{width}}  chi2 = {row['statistic']:8.2f}  df = {row['df']:<3} "
            f"p {p:<8} V = {row['cramers_v']:.3f} (corrected {row['cramers_v_estimate']:.3f} "
            f"[{row['cramers_v_ci_low']:.3f}, {row['cramers_v_ci_high']:.3f}])  {verdict}{perm}"
        )
    if len(tests):
        lines.append(
            f"  outcome disparities: {int(tests['significant_adj'].sum())} of "
            f"{int(tests['pvalue'].notna().sum())} "
            f"comparisons significant after Holm ({int(tests['significant_bh'].sum())} after BH, "
            f"{int(tests['significant'].sum())} unadjusted)"
        )
    if len(tests):
        lines.append(f"  three-way verdicts ({options.margin_text}): {verdict_counts(tests)}")  # issue 12
    if notes:
        lines.append(f"  {len(notes)} note(s): see the report")
    return lines
