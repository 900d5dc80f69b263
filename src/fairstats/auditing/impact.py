"""``fairstats audit --impact-ratios`` / ``fairstats.audit(..., task="impact_ratios")``: the audit in the
regulators' terms, a task of the one audit.

Selection (or scoring) rates, impact ratios, the four-fifths verdicts and their statistics by
:func:`fairstats.impact_ratios`, for the ``--group`` columns (and their intersection) or, with
``--standard ll144``, in NYC Local Law 144's layout: sex, race/ethnicity and their intersection, the unknown
counts, the 2 % note and the date range of the data. The options, input, filters, decision rule and grouping
checks are every task's (:mod:`fairstats.auditing.options`, :mod:`fairstats.auditing.inputs`,
:mod:`fairstats.auditing.rows`); :func:`impact_audit` computes :class:`ImpactAudit` from the checked rows, and
:meth:`~fairstats.auditing.protocol.AuditResult.save` writes ``impact_ratios.csv`` (and ``.md``), the figure
and
``report.md`` / ``report.html`` (``report.pdf``) all or nothing. No ``--y-true`` is needed: impact ratios
compare decisions, not errors.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats.auditing.errors import AuditError
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.protocol import AuditResult
from fairstats.auditing.rows import Rows
from fairstats.auditing.source import Source
from fairstats.auditing.tables import user_warnings
from fairstats.auditing.writing import atomic_write_text, one_line
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.groups import intersection_label
from fairstats.impact import ImpactRatiosResult, impact_ratios

__all__ = ["ImpactAudit", "impact_audit"]

#: Figure rows at most (the table holds every category).
_MAX_FIGURE_ROWS = 60
#: LL144's share under which a category may be excluded from the impact ratios (6 RCNY § 5-301).
_TWO_PERCENT = 0.02


def _dates(values: pd.Series, weight: np.ndarray | None, options: AuditOptions, source: Source):
    """The data's date range (first and last day, ISO text, in UTC) and the people without a date. Dates
    written as text are read as ISO 8601 or in ``--date-format``; other text or numbers are refused (read
    day-first or month-first, ``01/03/2021`` gives another range: :mod:`fairstats._where`)."""
    import datetime as dt

    from fairstats._format import plain
    from fairstats._where import WhereError, date_text, dates_of

    column, date_format = options.date, options.date_format
    weight = np.ones(len(values), dtype=np.int64) if weight is None else np.asarray(weight)
    missing = values.isna().to_numpy()
    present = values[~missing]
    what = f"--date: column {column!r} of {source.name}"
    if len(present) == 0:
        raise AuditError(f"{what} has no date")
    if date_format is not None and not pd.api.types.is_datetime64_any_dtype(present):
        try:
            dates = dates_of(present, date_format, what=what)
        except WhereError as err:
            raise AuditError(one_line(err)) from None
    elif pd.api.types.is_datetime64_any_dtype(present) or all(isinstance(v, dt.date) for v in present):
        dates = pd.to_datetime(present)
    else:
        example = date_text(present)
        if example is None and all(isinstance(v, str) for v in present):
            try:
                dates = pd.to_datetime(present, format="ISO8601")
            except (ValueError, TypeError, OverflowError):
                read = pd.to_datetime(present, format="ISO8601", errors="coerce", utc=True)
                bad = present[read.isna().to_numpy()].iloc[0] if read.isna().any() else present.iloc[0]
                raise AuditError(f"{what} holds {bad!r}, not a date in ISO 8601 (YYYY-MM-DD; or name its "
                                 "format with --date-format)") from None  # fmt: skip
        if example is not None:
            raise AuditError(
                f"{what} holds {example!r}, not a date in ISO 8601 (YYYY-MM-DD), which read day-first or "
                "month-first gives other dates: name its format with --date-format (e.g. %d/%m/%Y)"
            )
        if not all(isinstance(v, str) for v in present):
            number = next(v for v in present if not isinstance(v, str))
            raise AuditError(f"{what} holds {plain(number)!r}, not a date: dates are ISO 8601 text "
                             "(YYYY-MM-DD) or need --date-format (e.g. %Y%m%d)")  # fmt: skip
    if getattr(dates.dt, "tz", None) is not None:
        dates = dates.dt.tz_convert("UTC")
    return (dates.min().date().isoformat(), dates.max().date().isoformat()), int(weight[missing].sum())


def _favorable(values: pd.Series, options: AuditOptions, source: Source) -> object:
    """The selected label: ``--favorable`` as written (the number it names for a column of 0/1 numbers or
    booleans: ``"1"``, ``"1.0"`` and ``"true"`` are 1), else 1 for a decision of 0/1 labels."""
    if options.favorable is not None:
        if pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values):
            text = options.favorable.strip().lower()
            number = {"true": 1, "false": 0}.get(text)
            try:
                number = float(text) if number is None else number
            except ValueError:
                raise AuditError(f"--favorable {options.favorable!r}: --y-pred {options.y_pred!r} of "
                                 f"{source.name} holds numbers (0/1); name 0 or 1") from None  # fmt: skip
            return int(number) if float(number).is_integer() else number
        return options.favorable
    found = sorted({str(v) for v in values.dropna()})
    if set(found) <= {"0", "1"}:
        return "1" if not (pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values)) else 1
    raise AuditError(
        f"--favorable: --y-pred {options.y_pred!r} of {source.name} has the labels {found[:8]!r}; name the "
        "selected one with --favorable"
    )


def _library_data(rows: Rows, options: AuditOptions) -> tuple[object, tuple]:
    """What :func:`fairstats.impact_ratios` reads: the rows, or counted rows as :class:`fairstats.Counts`
    (whose keys hold no missing value: a missing group value, counted as unknown with
    ``--missing-as-unknown``, is stood for by a label the data do not hold, passed as one more unknown)."""
    columns = [*options.groups, options.selected]
    if rows.weight is None:
        return rows.data[columns], ()
    table = rows.data[columns].copy()
    stand_in: tuple = ()
    if options.missing_as_unknown and table[list(options.groups)].isna().any().any():
        taken = {str(v) for c in options.groups for v in table[c].dropna().unique()}
        label = "(missing)"
        while label in taken:
            label = f"({label})"
        for c in options.groups:
            table[c] = table[c].astype(object).where(table[c].notna(), label)
        stand_in = (label,)
    table[COUNT_COLUMN] = rows.weight
    return Counts.from_table(table, keys=columns, where=repr(rows.source.name)), stand_in


def _references(rows: Rows, options: AuditOptions) -> object:
    """``--reference``: per grouping, the first label given that is one of its categories (``"max"``, the
    most selected category, for the others); "max" when none is given."""
    if not options.reference:
        return "max"
    chosen, labels_seen = {}, set()
    for grouping in options.groupings:
        values = rows.data[list(grouping.columns)].dropna().drop_duplicates()
        labels = {intersection_label(tuple(v)) for v in values.itertuples(index=False)}
        labels_seen |= labels
        match = next((r for r in options.reference if r in labels), None)
        if match is not None:
            chosen[grouping.name] = match
    unused = [r for r in options.reference if r not in labels_seen]
    if unused:
        shown = ", ".join(repr(g) for g in sorted(labels_seen)[:20])
        raise AuditError(
            f"--reference {unused[0]!r} is not a category of any grouping; the categories: {shown}"
        )
    return chosen


def impact_audit(rows: Rows, options: AuditOptions) -> ImpactAudit:
    """The impact ratios of the checked ``rows`` under ``options``; bad data raise :class:`AuditError`
    naming the input, the column and the value."""
    source = rows.source
    groupings = [list(g.columns) for g in options.groupings]
    data, stand_in = _library_data(rows, options)
    favorable = 1
    if options.scoring_rate is None:
        favorable = _favorable(rows.data[options.y_pred], options, source)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = impact_ratios(
                data,
                group=groupings if len(groupings) > 1 else groupings[0],
                y_pred=options.selected,
                reference=_references(rows, options),
                favorable=favorable,
                scoring_rate=options.scoring_rate is not None,
                min_share=options.min_share,
                unknown=[*options.unknown, *stand_in] or None,
                missing_as_unknown=options.missing_as_unknown,
                categories=rows.declared or None,
                alpha=options.alpha,
            )
        except (ValueError, TypeError) as err:
            message = one_line(err).replace("`data`", source.name)
            raise AuditError(message.replace("missing_as_unknown=True", "--missing-as-unknown")) from None
    notes = list(dict.fromkeys([*rows.warned, *user_warnings(caught)]))
    date_range = None
    if options.date is not None:
        date_range, missing_dates = _dates(rows.data[options.date], rows.weight, options, source)
        if missing_dates:
            notes.append(f"--date {options.date!r}: {missing_dates:,} people without a date")
    return ImpactAudit(options=options, source=source, result=result, date_range=date_range,
                       notes=tuple(notes), filters=rows.filters, decision_rule=rows.decision_rule,
                       warnings=rows.warned)


def _about(n: object) -> str:
    """A size rounded to two significant digits for a sentence ("about 310")."""
    return f"{float(f'{float(n):.2g}'):,.0f}"


def _people(n: object) -> str:
    n = int(n)
    return f"{n:,} person" if n == 1 else f"{n:,} people"


def _percent(rate: float) -> str:
    return "n/a" if not np.isfinite(rate) else f"{100 * rate:.1f} %"


@dataclass(frozen=True, eq=False)
class ImpactAudit(AuditResult):
    """The impact-ratio audit's answer: :attr:`table` (``impact_ratios.csv``), the library's result, the date
    range of the data and the notes; :meth:`~fairstats.auditing.protocol.AuditResult.save` writes the output
    folder, :meth:`summary` the text."""

    options: AuditOptions
    source: Source
    result: ImpactRatiosResult
    date_range: tuple[str, str] | None
    notes: tuple[str, ...] = ()
    filters: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()  # the input's warnings (printed by the command line; in the notes too)
    decision_rule: str | None = None
    command: str | None = None

    verdict_column = "four_fifths"
    disparity_verdict = "below 4/5"
    json_finding_columns = (
        "grouping", "category", "n", "selected", "selection_rate", "reference", "reference_rate",
        "impact_ratio", "impact_ratio_ci_low", "impact_ratio_ci_high", "ci_level", "z_pvalue_holm",
        "fisher_pvalue_holm", "four_fifths",
    )  # fmt: skip

    @property
    def n(self) -> int:
        """Number of people."""
        return int(self.result.n)

    @property
    def table(self) -> pd.DataFrame:
        """The rows of ``impact_ratios.csv``."""
        return self.result.to_frame()

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table the output folder holds: ``impact_ratios``."""
        return {"impact_ratios": self.table}

    def json_groupings(self) -> list[dict]:
        """Per grouping: its categories' people, selected and rates, its comparison category."""
        table = self.result.table
        out = []
        for grouping in self.result.groupings:
            name = " x ".join(grouping)
            part = table[table["grouping"] == name]
            out.append({
                "name": name,
                "groups": [str(c) for c in part["category"]],
                "sizes": {str(c): int(k) for c, k in zip(part["category"], part["n"], strict=True)},
                "reference": self.result.references.get(name),
                "rates": {str(c): {"selected": int(x), "rate": None if pd.isna(r) else float(r)}
                          for c, x, r in zip(part["category"], part["selected"], part["selection_rate"],
                                             strict=True)},
            })  # fmt: skip
        return out

    def json_extra(self) -> dict:
        return {"rate": "scoring" if self.result.scoring_rate else "selection",
                "standard": self.options.standard, "family_size": int(self.result.family_size),
                "date_range": list(self.date_range) if self.date_range else None}  # fmt: skip

    def summary(self, out: Path | str | None = None, *, notes=None) -> str:
        """The plain-language summary (what the command prints); with ``out``, the line naming the report."""
        from fairstats._text import display_text as visible

        table = self.result.table
        compared = table[table["role"] == "compared"]
        counts = compared["four_fifths"].value_counts()
        rate = "scoring rate" if self.result.scoring_rate else "selection rate"
        lines = [
            f"fairstats audit --impact-ratios: {self.result.n:,} people, {rate}s of "
            + ", ".join(" x ".join(g) for g in self.result.groupings),
            f"  four-fifths verdicts over {self.result.family_size} comparison(s) "
            f"({100 * self.result.confidence_level:.2f} % intervals each, Bonferroni): "
            + ", ".join(f"{v} {int(counts.get(v, 0))}" for v in
                        ("below 4/5", "inconclusive", "at or above 4/5", "undefined")),
        ]
        below = compared[compared["four_fifths"] == "below 4/5"]
        for row in below.head(10).to_dict(orient="records"):
            lines.append(
                f"    below 4/5: {visible(row['grouping'])} = {visible(row['category'])}, impact ratio "
                f"{row['impact_ratio']:.3f} [{row['impact_ratio_ci_low']:.3f}, "
                f"{row['impact_ratio_ci_high']:.3f}]"
            )
        if self.notes:
            lines.append(f"  {len(self.notes)} note(s): see the report")
        if out is not None:
            lines.append(f"  report: {Path(out) / 'report.html'}")
        return "\n".join(lines)

    def write_into(self, folder: Path, *, pdf: bool = False) -> tuple[str, ...]:
        """Write the audit's files into the work folder ``folder`` (``pdf``: also ``report.pdf``); return the
        notes the report lists."""
        from fairstats.auditing.folder import write_tables

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figure = draw_impact_figure(self.result.table, folder)
        notes = tuple(dict.fromkeys((*self.notes, *user_warnings(caught))))
        write_tables(folder, [("impact_ratios", self.table)])
        write_impact_report(folder, self, notes, figure)
        if pdf:
            from fairstats.auditing.pdf import print_pdf

            print_pdf(folder / "report.html", folder / "report.pdf")
        return notes


# --------------------------------------------------------------------------------------------------------
# figure and report
# --------------------------------------------------------------------------------------------------------


def draw_impact_figure(table: pd.DataFrame, folder: Path) -> str | None:
    """Every defined impact ratio with its interval and the comparison categories at 1, against the 0.8 line:
    ``impact_ratios.png`` in ``folder`` (None when no ratio is defined). Data strings shown as plain text."""
    import matplotlib.pyplot as plt

    from fairstats._format import PLAIN, figure_text
    from fairstats.auditing.writing import save_figure, set_style

    rows = table[table["impact_ratio"].notna()]
    if rows.empty:
        return None
    total = len(rows)
    rows = rows.head(_MAX_FIGURE_ROWS)
    set_style()
    labels = [f"{figure_text(g)}: {figure_text(c)}" for g, c in zip(rows["grouping"], rows["category"],
                                                                        strict=True)]
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 0.38 * len(rows) + 2.4))
    ratio = rows["impact_ratio"].to_numpy(float)
    low = rows["impact_ratio_ci_low"].to_numpy(float)
    high = rows["impact_ratio_ci_high"].to_numpy(float)
    verdict = rows["four_fifths"].to_numpy(object)
    has_ci = np.isfinite(low) & np.isfinite(high)
    ax.axvline(0.8, color="black", ls="--", lw=1, label="four fifths (0.8)")
    ax.axvline(1.0, color="grey", lw=0.8)
    ax.hlines(y[has_ci], low[has_ci], high[has_ci], color="black", lw=1.2)
    styles = (
        ("below 4/5", {"color": "black"}, "below 4/5 (whole interval)"),
        ("inconclusive", {"color": "lightgrey", "edgecolors": "black"},
         "inconclusive (interval contains 0.8)"),
        ("at or above 4/5", {"color": "white", "edgecolors": "black"}, "at or above 4/5 (whole interval)"),
        ("", {"color": "black", "marker": "D", "s": 18}, "comparison category (ratio 1)"),
    )
    for value, style, label in styles:
        mask = verdict == value
        if mask.any():
            ax.scatter(ratio[mask], y[mask], zorder=3, label=label, **{"s": 36, **style})
    ax.set_yticks(y)
    ax.set_yticklabels(labels, **PLAIN)  # data strings as written: no mathtext
    ax.invert_yaxis()
    lowest = float(np.nanmin(np.where(has_ci, low, ratio)))
    highest = float(np.nanmax(np.where(has_ci, high, ratio)))
    ax.set_xlim(max(0.0, min(0.5, lowest - 0.05)), max(1.1, highest + 0.05))
    ax.set_xlabel("impact ratio (rate / rate of the comparison category)")
    level = rows["ci_level"].dropna()
    shown = f"; the first {len(rows)} of {total}" if total > len(rows) else ""
    ax.set_title(
        "Impact ratios with their score intervals"
        + (f" ({100 * level.iloc[0]:.2f} % each, Bonferroni)" if len(level) else "")
        + shown,
        fontsize=10,
    )
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=8, frameon=False)
    path = save_figure(fig, folder / "impact_ratios.png", pdf=False)
    plt.close(fig)
    return path.name


def _context(audit: ImpactAudit, notes: tuple[str, ...], figure: str | None) -> dict:
    """The report's context: plain values (the templates escape data strings)."""
    from fairstats._version import __version__

    options, result = audit.options, audit.result
    records = result.table.to_dict(orient="records")
    rate_word = "scoring rate" if result.scoring_rate else "selection rate"
    findings = []
    for r in records:
        if r["role"] != "compared":
            continue
        base = {"grouping": r["grouping"], "category": r["category"], "reference": r["reference"] or "",
                "n": _people(r["n"]), "rate": _percent(r["selection_rate"]),
                "reference_rate": _percent(r["reference_rate"]), "verdict": r["four_fifths"],
                "reason": r["excluded_reason"], "reversed_by_one": False}  # fmt: skip
        if r["four_fifths"] != "undefined":
            base.update(
                ratio=f"{r['impact_ratio']:.3f}", low=f"{r['impact_ratio_ci_low']:.3f}",
                high=f"{r['impact_ratio_ci_high']:.3f}",
                about="" if pd.isna(r["n_to_decide"]) else _about(r["n_to_decide"]),
                reversed_by_one=bool(r["reversed_by_one"]),
                shortfall=f"{int(np.ceil(max(r['shortfall'], 0.0) - 1e-9)):,}",
            )  # fmt: skip
        findings.append(base)
    counts = result.table.loc[result.table["role"] == "compared", "four_fifths"].value_counts()
    scoring = result.scoring_rate
    from fairstats.auditing.report import audited_context

    return {
        "version": __version__,
        "audited": audited_context(audit),
        "input_name": audit.source.name,
        "ir": {
            "standard": options.standard, "sex": options.sex, "race": options.race, "date": options.date,
            "date_range": audit.date_range, "n": f"{result.n:,}", "scoring": scoring,
            "decision": options.selected, "favorable": options.favorable or "1",
            "median": f"{result.median:g}" if scoring else "",
            "ties": f"{_ties(result):,}" if scoring else "0",
            "rate_word": rate_word,
            "groupings": [" x ".join(g) for g in result.groupings],
            "references": [{"grouping": g, "category": c} for g, c in result.references.items()],
            "family_size": result.family_size,
            "level": f"{100 * result.confidence_level:.2f} %",
            "family_level": f"{100 * (1 - result.alpha):g} %",
            "verdict_counts": [(v, int(counts.get(v, 0))) for v in
                               ("below 4/5", "inconclusive", "at or above 4/5", "undefined")],
            "findings": findings,
            "excluded": [
                {"grouping": r["grouping"], "category": r["category"], "n": _people(r["n"]),
                 "share": f"{100 * r['share']:.2f} %", "rate": _percent(r["selection_rate"])}
                for r in records if r["role"] == "excluded"
            ],
            "small": [
                {"grouping": r["grouping"], "category": r["category"], "share": f"{100 * r['share']:.2f} %"}
                for r in records if r["role"] in ("compared", "reference") and r["share"] < _TWO_PERCENT
            ],
            "unknown": [
                {"grouping": r["grouping"], "n": _people(r["n"]), "rate": _percent(r["selection_rate"])}
                for r in records if r["role"] == "unknown"
            ],
            "min_share": None if options.min_share is None else f"{options.min_share:g}",
            "missing_as_unknown": options.missing_as_unknown,
            "figure": figure,
        },
        "notes": list(notes),
    }


def _ties(result: ImpactRatiosResult) -> int:
    """People whose score equals the median, over the first grouping (every person is in each grouping)."""
    first = " x ".join(result.groupings[0])
    part = result.table[result.table["grouping"] == first]
    return int(part["ties_at_median"].fillna(0).sum())


def write_impact_report(folder: Path, audit: ImpactAudit, notes: tuple[str, ...], figure: str | None) -> None:
    """``report.md`` and ``report.html`` from the wing's templates (``impact.md.j2``, ``impact.html.j2``):
    data strings as text (inline code or escaped in Markdown, autoescaped in HTML)."""
    from fairstats.auditing.report import template_environment

    context = _context(audit, notes, figure)
    for kind in ("md", "html"):
        text = template_environment(kind).get_template(f"impact.{kind}.j2").render(**context)
        atomic_write_text(folder / f"report.{kind}", text)
