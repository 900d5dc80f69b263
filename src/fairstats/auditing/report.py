"""The report of an audit: the Markdown report, its HTML page and the terminal summary.

The reports come from Jinja2 templates (``fairstats/auditing/templates``). Group values, column names and
labels from the data are shown as display text (:func:`fairstats._text.display_text`: line breaks, controls,
bidi and invisible characters visible) as inline code or escaped in Markdown (autolinks too), autoescaped in
HTML: never interpreted as Markdown or HTML.
"""

from __future__ import annotations

import re
from functools import lru_cache, partial
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._format import figure_text
from fairstats._format import pvalue_relation as _p_eq
from fairstats._format import pvalue_text as _p
from fairstats._text import display_text
from fairstats._version import __version__
from fairstats.auditing.tables import SMALL
from fairstats.auditing.verdicts import VERDICT_INTRO, verdict_counts, verdict_sentences
from fairstats.auditing.writing import atomic_write_text

__all__ = [
    "comparison_rows", "markdown_code", "markdown_table", "markdown_text", "number_text",
    "score_sections", "sort_orders", "summary_lines", "verdict_tally", "write_report",
]

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


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>!|&~#])")
# What GFM's autolink extension (and linkify-it's fuzzy links) would make a link of: the ``:`` of ``scheme://``,
# every ``@`` (e-mail addresses, ``mailto:``), and a ``.`` between a word character and a letter (``www.x``,
# ``example.com``). A backslash before it splits the text node the autolinker scans, so no link is made.
_AUTOLINK = re.compile(r"(:(?=//)|@|(?<=\w)\.(?=[^\W\d_]))")


def markdown_text(text: object) -> str:
    """``text`` escaped for Markdown: characters that could start markup or an autolink get a backslash; one
    line of display text (:func:`fairstats._text.display_text`)."""
    return _AUTOLINK.sub(r"\\\1", _MD_SPECIAL.sub(r"\\\1", display_text(text)))


def markdown_code(text: object, *, table: bool = False) -> str:
    """``text`` as Markdown inline code (a fence longer than any run of backticks inside; in a ``table``
    cell ``|`` escaped, as GitHub Markdown needs there)."""
    shown = display_text(text)
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


@lru_cache(maxsize=2)
def template_environment(kind: str):
    """The Jinja2 environment of the ``md`` or ``html`` reports, made once per process: its compiled
    templates are kept, so a later save does not compile them again (issue 37)."""
    import jinja2
    from markupsafe import Markup, escape

    if kind == "html":
        env = jinja2.Environment(
            loader=jinja2.PackageLoader("fairstats.auditing", "templates"),
            autoescape=True,
            # every value as display text (then autoescaped): no control, bidi or invisible character raw
            finalize=lambda v: v if isinstance(v, Markup) else display_text(v),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
        )
        env.filters["code"] = lambda v: Markup("<code>{}</code>").format(escape(display_text(v)))
        env.filters["tcode"] = env.filters["code"]
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
    env.filters["tcode"] = lambda v: Markup(markdown_code(v, table=True))
    env.filters["own_file"] = _own_file_name
    return env


def audited_context(audit) -> dict:
    """The rows every report's "What was audited" shares (``audited.md.j2``/``.html.j2``): each filter with
    the people it removed (and the zone its timestamps were compared in, the format its date text was read
    in), the decision rule (where the task makes a decision of ``y_pred``), the options
    given (:meth:`fairstats.auditing.AuditOptions.shown`)."""
    from fairstats._where import TIME_ZONE

    options = audit.options
    return {
        "filters": [(predicate, f"{int(removed):,}") for predicate, removed in audit.filters],
        "time_zone": TIME_ZONE,
        "date_format": options.date_format,
        "decision_rule": audit.decision_rule,
        "decides": options.task != "regression" and options.scoring_rate is None,
        "y_preds": [c for c in (options.y_pred, options.y_pred_baseline) if c is not None],
        "options": options.shown(),
    }


def _report_context(audit, notes: tuple[str, ...], figures: list[dict]) -> dict:
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
        "A comparison whose group is too small for its test (rates: fewer than 5 expected cases or "
        "non-cases under the pooled rate; means of scores: fewer than 20 people) has no verdict: "
        "'undefined', the reason naming the group and its count; rates keep their score interval. "
        f"Bootstrap intervals (the FN/FP ratio, mean scores) with fewer than {SMALL} cases in a "
        "denominator are unreliable (the note column of tests.csv).",
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
        "audited": audited_context(audit),
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
        "sizes": [sizes_item(name, sizes) for name, sizes in audit.sizes.items()],
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


def sizes_item(name: str, sizes: dict[str, int]) -> dict:
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


def write_report(folder: Path, audit, notes: tuple[str, ...], figures: list[dict]) -> None:
    """Write ``report.md`` and ``report.html`` into ``folder`` from the package's Jinja2 templates.

    Every data-derived string (group values, column names, labels, the input's file name, notes quoting
    them) is rendered as text: inline code or backslash-escaped in Markdown, autoescaped ``<code>`` in HTML,
    line breaks shown as ``⏎``. The HTML page loads nothing but the figures beside it. ``levels`` (issue 17
    A, from :mod:`fairstats.auditing.levels`) replaces the binary outcome tests by the multi-level section.
    ``search``: the context of the subgroup search section (:class:`fairstats.auditing.search.SearchSection`),
    or None.
    """
    from fairstats.auditing.methods import methods
    from fairstats.auditing.provenance import input_hashes, report_date, versions

    context = _report_context(audit, notes, figures)
    context["sections"] = grouping_sections(audit, figures, context["equal"])
    context["summary"] = summary_rows(audit, context["equal"])
    context["headline"] = headline(audit, context["equal"])
    context["methods"] = methods(audit)  # fairstats.auditing.methods
    context["columns"] = [heading for heading, _ in COMPARISON_COLUMNS]
    hashes, more_files = input_hashes(audit.source.path)
    context["provenance"] = {
        "hashes": hashes,
        "more_files": more_files,
        "kind": audit.source.kind,
        "command": audit.command or "(not recorded)",
        "date": report_date(),
        "versions": versions(),
        "seed": audit.options.seed,
        "n_resamples": audit.options.n_resamples,
    }
    context["other_figures"] = [f for f in figures if f["grouping"] is None]
    context["scores"] = score_sections(audit, figures)  # issue 26: --y-score's tests, [] without them
    context["score_columns"] = [heading for heading, _ in SCORE_COLUMNS]
    context["score_words"] = [
        (m, SCORE_WORDS[m]) for m in (*dict.fromkeys(audit.score_tests["metric"]), "ici") if m in SCORE_WORDS
    ] if audit.score_tests is not None else []  # fmt: skip
    context["y_score"] = audit.options.y_score
    context["score_outcome"] = "1" if set(audit.labels) <= {"0", "1"} else audit.labels[0]
    context["score_total"] = 0 if audit.score_tests is None else len(audit.score_tests)
    sentence = score_headline(audit)
    if sentence is not None:
        context["headline"] = [*context["headline"], sentence]
    levels = audit.level_context
    search = audit.search.context if audit.search is not None else None
    context["levels"] = levels  # multi-level decisions (issue 17 A); None for a two-level decision
    if levels is not None:
        context["caveats"] = levels["caveats"]
    context["search"] = search  # subgroup search: context of search.*.j2 (fairstats.auditing.search) or None
    fav, other = audit.labels
    for kind, name in (("md", "report.md"), ("html", "report.html")):
        env = template_environment(kind)
        text = env.get_template(f"report.{kind}.j2").render(
            **context, describe=_describer(fav, other, env.filters["code"])
        )
        atomic_write_text(folder / name, text)


def markdown_table(frame: pd.DataFrame, *, digits: int = 4) -> str:
    """The audit's Markdown rendering of a table: text cells escaped (data values as inline code)."""
    from fairstats.auditing.writing import to_markdown

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
        f"fairstats audit: {audit.n:,} people, favourable outcome = {display_text(fav)}, "
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
    scores = getattr(audit, "score_tests", None)
    if scores is not None:  # issue 26
        lines.append(f"  score tests of {display_text(options.y_score)} (score_tests.csv, Holm over the "
                     f"file): {len(scores)} comparisons, {verdict_counts(scores)}")
    if notes:
        lines.append(f"  {len(notes)} note(s): see the report")
    return lines


# --------------------------------------------------------------------------------------------------------
# the report's first screen, the sections per grouping, methods and provenance (issue 30, item 3)
# --------------------------------------------------------------------------------------------------------

#: The comparison table's columns: (heading, how a click on it sorts). "text": by the text, "value": by the
#: number (NaN last), "verdict": disparity first. Column 0 is the order of tests.csv.
COMPARISON_COLUMNS = (
    ("group", "order"),
    ("measure", "text"),
    ("group value", "value"),
    ("reference", "value"),
    ("difference", "value"),
    ("95% interval, unadjusted", "value"),
    ("Holm p", "value"),
    ("verdict", "verdict"),
    ("MDE", "value"),
)
_VERDICT_ORDER = {"disparity": 0, "inconclusive": 1, "equivalent": 2, "undefined": 3}


def number_text(value: float, sign: bool = False) -> str:
    """A number as the reports' tables show it: three decimals (``sign``: with its sign), or ``n/a``."""
    if not np.isfinite(value):
        return "n/a"
    return f"{value:+.3f}" if sign else f"{value:.3f}"


_f3 = number_text


def sort_orders(keys: list[np.ndarray]) -> list[list[int]]:
    """For each row, its position when sorted by each of ``keys`` (one array per column, 1-based, stable,
    NaN last; text sorts as text): the CSS ``order`` of a sortable table's rows."""
    n = len(keys[0]) if keys else 0
    order = np.arange(n)
    ranks = []
    for key in keys:
        if key.dtype.kind == "f":
            nan = np.isnan(key)
            sorted_idx = np.lexsort((order, np.where(nan, 0, key), nan))
        else:
            sorted_idx = np.lexsort((order, key))
        rank = np.empty(n, dtype=int)
        rank[sorted_idx] = np.arange(1, n + 1)
        ranks.append(rank.tolist())
    return [[ranks[c][i] for c in range(len(keys))] for i in range(n)]


def _ranks(frame: pd.DataFrame) -> list[list[int]]:
    """For each row of ``frame`` (the comparisons shown) its position when sorted by each column of
    :data:`COMPARISON_COLUMNS` (1-based, stable, NaN last): the CSS ``order`` of the sortable table."""
    order = np.arange(len(frame))
    return sort_orders([
        order,
        frame["metric"].astype(str).to_numpy(),
        frame["value_group"].to_numpy(dtype=float),
        frame["value_reference"].to_numpy(dtype=float),
        frame["estimate"].to_numpy(dtype=float),
        frame["ci_low"].to_numpy(dtype=float),
        frame["pvalue_adj"].to_numpy(dtype=float),
        np.array([_VERDICT_ORDER.get(v, 4) for v in frame["verdict"]]),
        frame["mde"].to_numpy(dtype=float),
    ])


def comparison_rows(part: pd.DataFrame, *, file: str = "tests.csv") -> tuple[list[dict], str]:
    """The comparisons of one grouping for the report's table (at most :data:`_MAX_LISTED`, those with the
    smallest adjusted p-values, in the order of ``file``) and the line on those left out. ``part`` has the
    columns of tests.csv that :data:`COMPARISON_COLUMNS` shows (``value_group``, ``value_reference``,
    ``estimate``, ``ci_low``, ``ci_high``, ``pvalue_adj``, ``verdict``, ``mde``)."""
    shown, left = _first_listed(part, part["pvalue_adj"].to_numpy(dtype=float))
    shown = shown.sort_index(kind="stable")
    rows = []
    for r, rank in zip(shown.to_dict(orient="records"), _ranks(shown), strict=True):
        calibration = r["metric"] == "calibration"
        interval = (
            "n/a" if calibration or not (np.isfinite(r["ci_low"]) and np.isfinite(r["ci_high"]))
            else f"{r['ci_low']:+.3f} to {r['ci_high']:+.3f}"
        )  # fmt: skip
        rows.append(
            {
                "group": r["group"],
                "metric": r["metric"],
                "value_group": "" if calibration else _f3(r["value_group"]),
                "value_reference": "" if calibration else _f3(r["value_reference"]),
                "estimate": "" if calibration else _f3(r["estimate"], sign=True),
                "interval": interval,
                "p_adj": _p(r["pvalue_adj"]),
                "verdict": r["verdict"],
                "mde": _f3(r["mde"]),
                "order": rank,
            }
        )
    more = (
        f"… and {left:,} more comparisons (shown: the {_MAX_LISTED} with the smallest adjusted p-values; "
        f"{file} has every one)"
        if left
        else ""
    )
    return rows, more


_comparison_rows = comparison_rows


def verdict_tally(values: pd.Series) -> dict[str, int]:
    """How many of ``values`` are each of the four verdicts (``disparity`` first)."""
    return _counts(values)


def _counts(values: pd.Series) -> dict[str, int]:
    counts = values.value_counts()
    return {v: int(counts.get(v, 0)) for v in ("disparity", "equivalent", "inconclusive", "undefined")}


def grouping_sections(audit, figures: list[dict], equal_rows: list[dict]) -> list[dict]:
    """One report section per grouping: its equal confusion result, flagged cells, comparisons and
    figures (``figures``: dicts with ``file``, ``grouping``, ``kind``, ``alt``)."""
    tests, residuals = audit.tests, audit.residuals
    sections = []
    for k, (name, eq) in enumerate(zip(audit.equal_confusion["grouping"], equal_rows, strict=True)):
        part = tests[tests["grouping"] == name] if len(tests) else tests
        rows, more = _comparison_rows(part) if len(part) else ([], "")
        mine = residuals[(residuals["grouping"] == name) & residuals["flag_bonferroni"]]
        flagged, flagged_left = _first_listed(mine, -mine["adjusted_residual"].abs().to_numpy())
        sections.append(
            {
                "id": f"grouping-{k + 1}",
                "index": k + 1,
                "name": name,
                "reference": audit.references.get(name),
                "n_groups": len(audit.sizes.get(name, {})),
                "sizes": sizes_item(name, audit.sizes.get(name, {})),
                "equal": eq,
                "flagged": [
                    {"group": r["group"], "cell": r["cell"], "observed": int(r["observed"]),
                     "expected": f"{r['expected']:.1f}", "residual": f"{r['adjusted_residual']:+.1f}"}
                    for r in flagged.to_dict(orient="records")
                ],  # fmt: skip
                "flagged_more": f"… and {flagged_left:,} more (residuals.csv has every one)"
                if flagged_left
                else "",
                "comparisons": rows,
                "comparisons_more": more,
                "figures": [f for f in figures if f["grouping"] == name and f["kind"] in
                            ("residuals", "disparities")],
            }
        )
    return sections


def summary_rows(audit, equal_rows: list[dict]) -> list[dict]:
    """The first screen's table: one row per grouping (equal confusion test and verdict counts)."""
    tests = audit.tests
    out = []
    for row, eq in zip(audit.equal_confusion.to_dict(orient="records"), equal_rows, strict=True):
        part = tests[tests["grouping"] == row["grouping"]] if len(tests) else tests
        counts = _counts(part["verdict"]) if len(part) else dict.fromkeys(_VERDICT_ORDER, 0)
        out.append(
            {
                "grouping": row["grouping"],
                "n_groups": len(audit.sizes.get(row["grouping"], {})),
                "chi2": eq["chi2"],
                "df": eq["df"],
                "p": _p(row["pvalue"]),
                "v": eq["v"],
                "differ": eq["verdict"],
                "v_verdict": row.get("verdict", ""),
                "n": len(part),
                **counts,
            }
        )
    return out


def headline(audit, equal_rows: list[dict]) -> list[str]:
    """The verdicts in three plain sentences (the templates escape them)."""
    from fairstats.auditing.writing import one_line

    options, tests = audit.options, audit.tests
    differ = [one_line(g) for g, r in zip(audit.equal_confusion["grouping"], equal_rows, strict=True)
              if r["verdict"] == "the groups differ"]  # fmt: skip
    alike = [one_line(g) for g in audit.equal_confusion["grouping"] if one_line(g) not in differ]

    def names(items: list[str]) -> str:
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

    if differ:
        first = f"The confusion matrices of the groups differ by {names(differ)} (equal confusion test, α = "
        first += f"{options.alpha:g})" + (f"; no clear difference by {names(alike)}." if alike else ".")
    else:
        first = f"No clear difference between the groups' confusion matrices by {names(alike)} "
        first += f"(equal confusion test, α = {options.alpha:g})."
    if audit.level_context is not None:
        lv = audit.level_context
        counts = ", ".join(f"{k} {v}" for v, k in lv["verdict_counts"])
        second = (
            f"The shares of people at each decision level were compared with the largest group's in "
            f"{lv['total']} comparisons, with Holm's adjustment."
        )
        third = f"Verdicts: {counts}."
        return [first, second, third]
    if not len(tests):
        return [first, "No group could be compared with a reference group.", "There are no verdicts."]
    total = int(tests["pvalue"].notna().sum())
    n_holm = int(tests["significant_adj"].sum())
    second = (
        f"{n_holm} of {total} comparisons of a group's rates with its grouping's reference group are "
        f"significant after Holm's adjustment ({int(tests['significant'].sum())} before adjustment)."
    )
    c = _counts(tests["verdict"])
    third = (
        f"Three-way verdicts ({options.margin_text}): {c['disparity']} disparity, {c['equivalent']} "
        f"equivalent, {c['inconclusive']} inconclusive (the data cannot tell), {c['undefined']} undefined."
    )
    return [first, second, third]


# --------------------------------------------------------------------------------------------------------
# the score tests' section (--y-score with a binary outcome; issue 26)
# --------------------------------------------------------------------------------------------------------

#: The score table's columns: (heading, how a click on it sorts), as :data:`COMPARISON_COLUMNS`.
SCORE_COLUMNS = (
    ("group", "order"),
    ("measure", "text"),
    ("reference", "text"),
    ("estimate", "value"),
    ("95% interval", "value"),
    ("Holm p", "value"),
    ("verdict", "verdict"),
)

#: The score measures in words (the section's glossary), in the order of score_tests.csv.
SCORE_WORDS = {
    "auc": "difference of the AUCs (group minus reference; DeLong's variances, normal z): how well the "
    "score ranks people with the outcome above people without it",
    "calibration": "likelihood-ratio test that the group's logistic recalibration (intercept and slope) is "
    "the reference's (no estimate here: each group's calibration-in-the-large and slope, with intervals, are "
    "in score_groups.csv)",
    "ks_positive": "Kolmogorov–Smirnov distance between the score distributions among people with the "
    "outcome",
    "mann_whitney_positive": "among people with the outcome, the chance that a group member scores above "
    "a reference member (0.5: alike)",
    "mean_score_positive": "difference of the mean scores among people with the outcome (Welch)",
    "ks_negative": "Kolmogorov–Smirnov distance between the score distributions among people without the "
    "outcome",
    "mann_whitney_negative": "among people without the outcome, the chance that a group member scores above "
    "a reference member (0.5: alike)",
    "mean_score_negative": "difference of the mean scores among people without the outcome (Welch)",
    "ici": "integrated calibration index of the group: the mean distance between its smooth calibration "
    "curve and the diagonal (bootstrap interval); an estimate only, never below 0 and biased upward, so "
    "no test and no verdict",
}


def score_sections(audit, figures: list[dict]) -> list[dict]:
    """One subsection per grouping of the score tests: its comparisons and each group's ICI in one sortable
    table (at most :data:`_MAX_LISTED` comparisons, those with the smallest adjusted p-values) and its ROC
    and calibration figures. Empty without score tests."""
    tests, groups = audit.score_tests, audit.score_groups
    if tests is None:
        return []
    sections = []
    for k, name in enumerate(dict.fromkeys(tests["grouping"])):
        part = tests[tests["grouping"] == name]
        shown, left = _first_listed(part, part["pvalue_adj"].to_numpy(dtype=float))
        shown = shown.sort_index(kind="stable")
        ici = groups[groups["grouping"] == name] if groups is not None else groups
        frame = pd.concat([
            shown[["group", "metric", "reference", "estimate", "ci_low", "ci_high", "pvalue_adj", "verdict"]],
            pd.DataFrame({"group": ici["group"], "metric": "ici", "reference": "", "estimate": ici["ici"],
                          "ci_low": ici["ici_ci_low"], "ci_high": ici["ici_ci_high"], "pvalue_adj": np.nan,
                          "verdict": ""}),
        ], ignore_index=True)  # fmt: skip
        orders = sort_orders([
            np.arange(len(frame)), frame["metric"].astype(str).to_numpy(),
            frame["reference"].astype(str).to_numpy(), frame["estimate"].to_numpy(dtype=float),
            frame["ci_low"].to_numpy(dtype=float), frame["pvalue_adj"].to_numpy(dtype=float),
            np.array([_VERDICT_ORDER.get(v, 4) for v in frame["verdict"]]),
        ])  # fmt: skip
        rows = []
        for r, order in zip(frame.to_dict(orient="records"), orders, strict=True):
            finite = np.isfinite(r["ci_low"]) and np.isfinite(r["ci_high"])
            sign = r["metric"] in ("auc", "mean_score_positive", "mean_score_negative")
            rows.append({
                "group": r["group"], "metric": r["metric"], "reference": r["reference"],
                "estimate": "" if r["metric"] == "calibration" else number_text(r["estimate"], sign=sign),
                "interval": f"{number_text(r['ci_low'], sign)} to {number_text(r['ci_high'], sign)}"
                if finite else "n/a",
                "p_adj": "" if r["metric"] == "ici" else _p(r["pvalue_adj"]),
                "verdict": r["verdict"], "order": order,
            })  # fmt: skip
        sections.append({
            "id": f"scores-{k + 1}",
            "name": name,
            "reference": part["reference"].iloc[0],
            "comparisons": rows,
            "n": len(part),
            "counts": _counts(part["verdict"]),
            "more": f"… and {left:,} more comparisons (shown: the {_MAX_LISTED} with the smallest adjusted "
            "p-values; score_tests.csv has every one)" if left else "",
            "figures": [f for f in figures if f["grouping"] == name and f["kind"] in ("roc", "calibration")],
        })  # fmt: skip
    return sections


def score_headline(audit) -> str | None:
    """The first screen's sentence on the score tests (None without them)."""
    tests = audit.score_tests
    if tests is None:
        return None
    c = _counts(tests["verdict"])
    return (
        f"The score {audit.options.y_score!r} was tested too ({len(tests)} comparisons of AUC, calibration "
        f"and score distributions with each grouping's reference group, Holm's adjustment over them): "
        f"{c['disparity']} disparity, {c['equivalent']} equivalent, {c['inconclusive']} inconclusive, "
        f"{c['undefined']} undefined."
    )
