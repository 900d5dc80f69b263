"""``fairstats audit --impact-ratios``: the audit in the regulators' terms (issue 25), in the wing.

Selection (or scoring) rates, impact ratios, the four-fifths verdicts and their statistics by
:func:`fairstats.impact_ratios`, for the ``--group`` columns (and their intersection) or, with
``--standard ll144``, in NYC Local Law 144's layout: sex, race/ethnicity and their intersection, the unknown
counts, the 2 % note and the date range of the data. :class:`ImpactOptions` checks the options once;
:func:`read_impact_input` reads the file (a CSV in memory, parquet counted in DuckDB, a table of counts);
:func:`run_impact` gives an :class:`ImpactAudit`, whose :meth:`~ImpactAudit.save` writes ``impact_ratios.csv``
(and ``.md``), the figure and ``report.md`` / ``report.html`` all or nothing, as the binary audit's folder.
No ``--y-true`` is needed: impact ratios compare decisions, not errors.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats.auditing.errors import AuditError
from fairstats.auditing.inputs import Source, is_parquet, read_predictions_file
from fairstats.auditing.options import check_level
from fairstats.auditing.tables import user_warnings
from fairstats.counts import Counts
from fairstats.impact import ImpactRatiosResult, impact_ratios
from fairstats.reporting import atomic_write_text, one_line

__all__ = ["ImpactAudit", "ImpactOptions", "read_impact_input", "run_impact"]

#: ``--standard`` values.
STANDARDS = ("ll144",)
#: Figure rows at most (the table holds every category).
_MAX_FIGURE_ROWS = 60
#: LL144's share under which a category may be excluded from the impact ratios (6 RCNY § 5-301).
_TWO_PERCENT = 0.02


def _checked(option: str, check, value):
    try:
        return check(value)
    except ValueError as err:
        raise AuditError(f"{option}: {err}") from None


@dataclass(frozen=True)
class ImpactOptions:
    """The checked options of ``fairstats audit --impact-ratios`` (made once; :class:`AuditError` names the
    option and the value).

    ``groups``: the ``--group`` columns (each a grouping, and their intersection when several); with
    ``standard="ll144"`` the groupings are ``sex``, ``race`` and their intersection instead. ``decision``
    (``--y-pred``) with ``favorable`` naming the selected label, or ``scoring`` (``--scoring-rate COL``), a
    score whose share above the median is the rate.
    """

    groups: tuple[str, ...] = ()
    decision: str | None = None
    favorable: str | None = None
    scoring: str | None = None
    standard: str | None = None
    sex: str | None = None
    race: str | None = None
    date: str | None = None
    min_share: float | None = None
    missing_as_unknown: bool = False
    unknown: tuple[str, ...] = ()
    alpha: float = 0.05

    def __post_init__(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731 - frozen: set once here
        groups = (self.groups,) if isinstance(self.groups, str) else self.groups
        put("groups", tuple(str(g) for g in groups))
        put("unknown", tuple(str(u) for u in self.unknown))
        put("alpha", _checked("--alpha", check_level, self.alpha))
        if self.min_share is not None:
            put("min_share", _checked("--min-share", check_level, self.min_share))
        if (self.decision is None) == (self.scoring is None):
            raise AuditError(
                "--impact-ratios: give the decision with --y-pred (and --favorable naming the selected "
                "label), or a score with --scoring-rate COL, not both or neither"
            )
        if self.scoring is not None and self.favorable is not None:
            raise AuditError("--favorable: with --scoring-rate the rate is the share above the median")
        if self.standard is not None and self.standard not in STANDARDS:
            raise AuditError(f"--standard must be one of {', '.join(STANDARDS)}, got {self.standard!r}")
        if self.standard == "ll144":
            if self.sex is None or self.race is None:
                raise AuditError(
                    "--standard ll144 needs --sex COL and --race COL (and optionally --date COL)"
                )
            if self.groups:
                raise AuditError(
                    "--group: with --standard ll144 the groupings are --sex, --race and their intersection"
                )
        else:
            for option, given in (("--sex", self.sex), ("--race", self.race)):
                if given is not None:
                    raise AuditError(f"{option} belongs to --standard ll144")
            if not self.groups:
                raise AuditError("--impact-ratios: give at least one --group column (or --standard ll144)")
        columns = [*self.group_columns, self.selected]
        if self.date is not None:
            columns.append(self.date)
        dup = next((c for i, c in enumerate(columns) if c in columns[:i]), None)
        if dup is not None:
            raise AuditError(f"column {dup!r} is given for two roles; each role needs its own column")

    @property
    def selected(self) -> str:
        """The decision or score column."""
        return self.decision if self.decision is not None else self.scoring  # type: ignore[return-value]

    @property
    def group_columns(self) -> tuple[str, ...]:
        return (self.sex, self.race) if self.standard == "ll144" else self.groups  # type: ignore[return-value]

    @property
    def groupings(self) -> list[tuple[str, ...]]:
        """Each group column, then (with several) their intersection."""
        columns = self.group_columns
        return [(c,) for c in columns] + ([tuple(columns)] if len(columns) > 1 else [])

    @property
    def columns(self) -> list[str]:
        """Every column the audit reads."""
        return [*self.group_columns, self.selected, *([self.date] if self.date is not None else [])]


# --------------------------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Input:
    data: object  # a pandas frame, a DuckDB relation or Counts: what fairstats.impact_ratios reads
    date_range: tuple[str, str] | None
    missing_dates: int
    categories: dict | None = None  # a counts table's rows with n = 0 declare categories without anybody


def _missing_columns_iv(names: list[str], options: ImpactOptions, path: Path) -> None:
    missing = [c for c in options.columns if c not in names]
    if missing:
        raise AuditError(f"{path.name}: missing column(s) {missing!r}; it has {names[:12]!r}")


def _dates(values: pd.Series, weight: np.ndarray | None, options: ImpactOptions, path: Path):
    """The data's date range (first and last day, ISO text) and the people without a date."""
    weight = np.ones(len(values), dtype=np.int64) if weight is None else weight
    missing = values.isna().to_numpy()
    try:
        dates = pd.to_datetime(values[~missing], format="mixed")
    except (ValueError, TypeError) as err:
        raise AuditError(
            f"--date: column {options.date!r} of {path.name}: not a date ({one_line(err)})"
        ) from None
    if len(dates) == 0:
        raise AuditError(f"--date: column {options.date!r} of {path.name} has no date")
    return (dates.min().date().isoformat(), dates.max().date().isoformat()), int(weight[missing].sum())


def read_impact_input(path: Path, options: ImpactOptions, *, counts: bool = False) -> _Input:
    """Read ``path`` for the impact-ratio audit: a CSV file into memory (group and decision columns as text,
    as written), parquet files counted by DuckDB (missing values kept for ``--missing-as-unknown``), or a
    table of counts (``--counts``). :class:`AuditError` names the file, the column and the value."""
    text = [*options.group_columns, *([options.decision] if options.decision is not None else [])]
    if counts:
        table = read_predictions_file(path, text_columns=text)
        table.columns = [str(c) for c in table.columns]
        _missing_columns_iv(list(table.columns), options, path)
        try:
            data = Counts.from_table(table, keys=options.columns, where=repr(path.name))
        except ValueError as err:
            raise AuditError(f"--counts: {one_line(err)}") from None
        dates = (None, 0)
        if options.date is not None:
            dates = _dates(data.table[options.date], data.table["n"].to_numpy(), options, path)
        categories = None
        if (pd.to_numeric(table["n"], errors="coerce") == 0).any():  # categories listed with nobody
            categories = {
                c: sorted(table[c].dropna().unique().tolist(), key=str) for c in options.group_columns
            }
        return _Input(data, *dates, categories=categories)
    if is_parquet(path) and path.exists():
        import duckdb

        files = sorted(str(p) for p in path.rglob("*.parquet")) if path.is_dir() else [str(path)]
        if not files:
            raise AuditError(f"{str(path)!r} is a folder without .parquet files, not a CSV or parquet file")
        try:
            relation = duckdb.connect().read_parquet(files)
        except duckdb.Error as err:
            raise AuditError(f"could not read {str(path)!r} as parquet: {one_line(err)}") from None
        _missing_columns_iv(list(relation.columns), options, path)
        dates = (None, 0)
        if options.date is not None:
            by_date = relation.aggregate(f'"{options.date}", count(*) AS n', f'"{options.date}"').df()
            dates = _dates(by_date[options.date], by_date["n"].to_numpy(), options, path)
        return _Input(relation.select(*[f'"{c}"' for c in options.columns]), *dates)
    frame = read_predictions_file(path, text_columns=text)
    frame.columns = [str(c) for c in frame.columns]
    _missing_columns_iv(list(frame.columns), options, path)
    dates = (None, 0) if options.date is None else _dates(frame[options.date], None, options, path)
    return _Input(frame[options.columns], *dates)


# --------------------------------------------------------------------------------------------------------
# the audit
# --------------------------------------------------------------------------------------------------------


def _favorable(data: object, options: ImpactOptions, source: Source) -> object:
    """The selected label: ``--favorable`` as written, else 1 for a decision of 0/1 labels."""
    if options.favorable is not None:
        return options.favorable
    if isinstance(data, pd.DataFrame):
        values = data[options.decision]
    else:  # Counts or a DuckDB relation: the decision's distinct values, counted in the engine
        try:
            values = Counts.from_frame(data, columns=[options.decision], where=source.name).table[
                options.decision
            ]
        except ValueError as err:
            raise AuditError(f"--y-pred: {one_line(err)}") from None
    found = sorted({str(v) for v in values.dropna()})
    if set(found) <= {"0", "1"}:
        return "1" if not (pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values)) else 1
    raise AuditError(
        f"--favorable: --y-pred {options.decision!r} of {source.name} has the labels {found[:8]!r}; name the "
        "selected one with --favorable"
    )


def run_impact(data: _Input, options: ImpactOptions, source: Source) -> ImpactAudit:
    """The impact ratios of ``data`` (from :func:`read_impact_input`) under ``options``; bad data raise
    :class:`AuditError` naming the file, the column and the value."""
    groupings = options.groupings
    group = [list(g) for g in groupings]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = impact_ratios(
                data.data,
                group=group if len(group) > 1 else group[0],
                selected=options.selected,
                favorable=1 if options.scoring is not None else _favorable(data.data, options, source),
                scoring_rate=options.scoring is not None,
                min_share=options.min_share,
                unknown=list(options.unknown) or None,
                missing_as_unknown=options.missing_as_unknown,
                categories=data.categories,
                alpha=options.alpha,
            )
        except (ValueError, TypeError) as err:
            message = one_line(err).replace("`data`", source.name)
            raise AuditError(message.replace("missing_as_unknown=True", "--missing-as-unknown")) from None
    notes = list(dict.fromkeys(user_warnings(caught)))
    if data.missing_dates:
        notes.append(f"--date {options.date!r}: {data.missing_dates:,} people without a date")
    return ImpactAudit(options=options, source=source, result=result, date_range=data.date_range,
                       notes=tuple(notes))


def _about(n: object) -> str:
    """A size rounded to two significant digits for a sentence ("about 310")."""
    return f"{float(f'{float(n):.2g}'):,.0f}"


def _people(n: object) -> str:
    n = int(n)
    return f"{n:,} person" if n == 1 else f"{n:,} people"


def _percent(rate: float) -> str:
    return "n/a" if not np.isfinite(rate) else f"{100 * rate:.1f} %"


@dataclass(frozen=True)
class ImpactAudit:
    """The impact-ratio audit's answer: :attr:`table` (``impact_ratios.csv``), the library's result, the date
    range of the data and the notes; :meth:`save` writes the output folder, :meth:`summary` the text."""

    options: ImpactOptions
    source: Source
    result: ImpactRatiosResult
    date_range: tuple[str, str] | None
    notes: tuple[str, ...] = field(default=())

    @property
    def table(self) -> pd.DataFrame:
        """The rows of ``impact_ratios.csv``."""
        return self.result.to_frame()

    @property
    def has_disparity(self) -> bool:
        """Whether a compared category's verdict is ``below 4/5`` (its whole interval below the four-fifths
        line): what ``--fail-on disparity`` exits on in this audit."""
        return bool((self.result.table["four_fifths"].astype(str) == "below 4/5").any())

    def to_dict(self) -> dict:
        """A machine-readable summary (what ``--json`` prints): the input, the options, the verdict counts
        and every category below four fifths. Plain JSON values (NaN as None)."""
        from fairstats._format import json_records
        from fairstats._version import __version__

        table = self.result.table
        compared = table[table["role"] == "compared"]
        below = compared[compared["four_fifths"].astype(str) == "below 4/5"]
        counts = compared["four_fifths"].astype(str).value_counts().sort_index()
        keep = ["grouping", "category", "n", "selected", "selection_rate", "rate", "reference",
                "reference_rate", "impact_ratio", "impact_ratio_ci_low", "impact_ratio_ci_high", "ci_level",
                "z_pvalue_holm", "fisher_pvalue_holm", "four_fifths"]
        return {
            "fairstats": __version__,
            "task": "impact_ratios",
            "input": {"name": self.source.name, "kind": self.source.kind},
            "n": int(self.result.n),
            "rate": "scoring" if self.result.scoring_rate else "selection",
            "alpha": self.options.alpha,
            "standard": self.options.standard,
            "groupings": [" x ".join(g) for g in self.result.groupings],
            "family_size": int(self.result.family_size),
            "verdicts": {"impact_ratios": {str(k): int(v) for k, v in counts.items()}},
            "disparities": {"impact_ratios": json_records(below, keep)} if len(below) else {},
            "has_disparity": self.has_disparity,
        }

    def summary(self, out: Path | str | None = None) -> str:
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

    def save(self, out: Path | str) -> str:
        """Write ``impact_ratios.csv``/``.md``, the figure and ``report.md``/``.html`` into ``out``, all or
        nothing (the binary audit's rules for ``out``); returns the summary."""
        from fairstats.auditing.result import write_folder

        out = Path(out)
        inputs = (self.source.path,) if self.source.path is not None else ()
        write_folder(out, inputs, self.write_into)
        return self.summary(out)

    def write_into(self, folder: Path) -> tuple[str, ...]:
        """Write the audit's files into the work folder ``folder``; return the notes the report lists."""
        from fairstats.auditing.result import write_tables

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figure = draw_impact_figure(self.result.table, folder)
        notes = tuple(dict.fromkeys((*self.notes, *user_warnings(caught))))
        write_tables(folder, [("impact_ratios", self.table)])
        write_impact_report(folder, self, notes, figure)
        return notes


# --------------------------------------------------------------------------------------------------------
# figure and report
# --------------------------------------------------------------------------------------------------------


def draw_impact_figure(table: pd.DataFrame, folder: Path) -> str | None:
    """Every defined impact ratio with its interval and the comparison categories at 1, against the 0.8 line:
    ``impact_ratios.png`` in ``folder`` (None when no ratio is defined). Data strings shown as plain text."""
    import matplotlib.pyplot as plt

    from fairstats._format import PLAIN, figure_text
    from fairstats.plotting import save_figure, set_style

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
    return {
        "version": __version__,
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
    from fairstats.auditing.report import _environment

    context = _context(audit, notes, figure)
    for kind in ("md", "html"):
        text = _environment(kind).get_template(f"impact.{kind}.j2").render(**context)
        atomic_write_text(folder / f"report.{kind}", text)
