"""The audit as an object in memory: :func:`audit` runs it on a data frame, :class:`Audit` holds the answer.

``fairstats.audit(data, group=..., y_true=..., y_pred=...)`` checks the data once, computes every table
(:mod:`fairstats.auditing.tables`, :mod:`fairstats.auditing.levels`, :mod:`fairstats.auditing.search`) and
returns an :class:`Audit`: ``.tests`` and ``.equal_confusion`` (the frames ``fairstats audit`` writes as
``tests.csv`` and ``equal_confusion.csv``), the other tables, the notes, :meth:`Audit.summary` (the
plain-language text), an HTML view for notebooks, and :meth:`Audit.save`, which writes the output folder all
or nothing (:mod:`fairstats.auditing.folder`: only files an audit wrote are ever replaced).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._csv import csv_text
from fairstats.auditing.errors import INPUT_WARNINGS, AuditError
from fairstats.auditing.folder import (
    OutFolderError,
    check_out_folder,
    discard_own,
    new_work_folder,
    swap_into_place,
)
from fairstats.auditing.grouping import Grouping
from fairstats.auditing.inputs import READ_WARNINGS, Source
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.search import SearchSection
from fairstats.auditing.tables import Tables, user_warnings
from fairstats.counts import Counts, as_rows
from fairstats.equivalence import DEFAULT_MARGIN, DEFAULT_MARGIN_V
from fairstats.reporting import atomic_write_text, one_line

__all__ = ["Audit", "Started", "audit", "run", "start", "write_folder"]


@dataclass(frozen=True)
class Audit:
    """An audit's checked inputs and results (what :func:`fairstats.audit` returns).

    Attributes
    ----------
    options : AuditOptions
        The checked options.
    source : Source
        The input as the messages and the report name it.
    n : int
        Number of people.
    labels : tuple of str
        ``(favourable, other)`` label as text (multi-level: the decision and outcome levels, joined).
    groupings : tuple of Grouping
        Each grouping audited, with its groups' labels.
    equal_confusion, residuals, tests : pandas.DataFrame
        The tables of ``equal_confusion.csv``, ``residuals.csv`` and ``tests.csv`` (``tests`` is empty, with
        its columns, for a multi-level decision).
    level_tests, ordinal_tests : pandas.DataFrame or None
        Multi-level decisions: ``level_tests.csv`` and ``ordinal_tests.csv``.
    search : SearchSection or None
        The subgroup search (``search=...``): ``search.tables`` (``subgroups``, ``subgroup_residuals``).
    notes : tuple of str
        Notes on the input and the tests, as the report lists them.
    warnings : tuple of str
        Warnings about the input (:class:`GroupWhitespaceWarning`), printed by the CLI.
    decision_rule : str or None
        How the prediction was derived from the input, in words (e.g. ``'positive prediction when
        score_text is "Medium" or "High"'``); None: the ``y_pred`` column as given. Shown on the report's
        first screen.
    filters : tuple of (str, int)
        Each row filter (a ``--where`` predicate) and the number of rows it removed, in order.
    command : str or None
        The exact command line (``fairstats audit ...``) or :func:`fairstats.audit` call that made the audit,
        for the report's provenance block.
    """

    options: AuditOptions
    source: Source
    n: int
    labels: tuple[str, str]
    groupings: tuple[Grouping, ...]
    equal_confusion: pd.DataFrame
    residuals: pd.DataFrame
    tests: pd.DataFrame
    results: dict  # grouping name -> EqualConfusionResult
    references: dict[str, str]
    sizes: dict[str, dict[str, int]]
    level_tests: pd.DataFrame | None
    ordinal_tests: pd.DataFrame | None
    level_context: dict | None  # the report's multi-level section (plain values)
    search: SearchSection | None
    warnings: tuple[str, ...]
    _notes_before: tuple[str, ...]  # notes that arose before the figures were drawn
    _notes_after: tuple[str, ...]  # and after (the subgroup search's warnings)
    decision_rule: str | None = None
    filters: tuple[tuple[str, int], ...] = ()
    command: str | None = None
    score_tests: pd.DataFrame | None = None  # --y-score with a binary outcome (issue 26): score_tests.csv
    score_groups: pd.DataFrame | None = None  # and score_groups.csv: each group's AUC and calibration (ICI)
    score_curves: dict | None = None  # grouping -> ScoreCurves: what the ROC and calibration figures draw

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self._notes_before, *self._notes_after)))

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table the output folder holds, by file stem, in the order they are written."""
        if self.level_tests is not None:
            out = {"equal_confusion": self.equal_confusion, "residuals": self.residuals,
                   "level_tests": self.level_tests}  # fmt: skip
            if self.ordinal_tests is not None:
                out["ordinal_tests"] = self.ordinal_tests
            return out
        out = {"equal_confusion": self.equal_confusion, "residuals": self.residuals, "tests": self.tests}
        if self.score_tests is not None:
            out["score_tests"] = self.score_tests
        if self.score_groups is not None:
            out["score_groups"] = self.score_groups
        if self.search is not None:
            out.update(self.search.tables)
        return out

    def summary(self, out: Path | str | None = None, *, notes: Sequence[str] | None = None) -> str:
        """The plain-language summary (what ``fairstats audit`` prints); with ``out``, the line naming the
        report saved there."""
        from fairstats.auditing.levels import level_summary
        from fairstats.auditing.report import summary_lines

        notes = self.notes if notes is None else tuple(notes)
        lines = summary_lines(self, notes)
        if self.level_context is not None:
            lines = level_summary(lines, self, self.options, self.level_context, self.ordinal_tests)
        if out is not None:
            lines.append(f"  report: {Path(out) / 'report.html'}")
        text = "\n".join(lines)
        if self.search is not None:
            text += "\n" + self.search.summary
        return text

    @property
    def decision_levels(self) -> tuple[str, ...] | None:
        return self.options.decision_levels

    @property
    def has_disparity(self) -> bool:
        """Whether any table holds the verdict ``disparity`` (what ``--fail-on disparity`` exits on)."""
        return any(
            "verdict" in frame.columns and bool((frame["verdict"].astype(str) == "disparity").any())
            for frame in self.tables.values()
        )

    def to_dict(self) -> dict:
        """A machine-readable summary (what ``fairstats audit --json`` prints): the input, the options that
        matter, per grouping its groups, sizes, reference and equal confusion test, the verdict counts of
        every table, and every comparison whose verdict is ``disparity``. Plain JSON values (NaN as None)."""
        from fairstats._format import json_records as records
        from fairstats._version import __version__

        equal = {row["grouping"]: row for row in records(
            self.equal_confusion, ["grouping", "statistic", "df", "pvalue", "cramers_v", "n", "verdict"])}
        verdicts = {
            name: {
                str(k): int(v) for k, v in frame["verdict"].astype(str).value_counts().sort_index().items()
            }
            for name, frame in self.tables.items() if "verdict" in frame.columns
        }  # fmt: skip
        found = {
            name: records(frame[frame["verdict"].astype(str) == "disparity"],
                          ["grouping", "group", "reference", "test", "metric", "estimate", "ci_low",
                           "ci_high", "pvalue", "pvalue_adj", "verdict"])
            for name, frame in self.tables.items() if name != "equal_confusion" and "verdict" in frame.columns
        }  # fmt: skip
        return {
            "fairstats": __version__,
            "input": {"name": self.source.name, "kind": self.source.kind},
            "n": int(self.n),
            "decision_rule": self.decision_rule,
            "filters": [{"where": w, "removed": int(k)} for w, k in self.filters],
            "alpha": self.options.alpha,
            "margin": self.options.margin_text,
            "seed": self.options.seed,
            "groupings": [
                {
                    "name": g.name,
                    "groups": list(g.labels),
                    "sizes": self.sizes.get(g.name, {}),
                    "reference": self.references.get(g.name) or None,
                    "equal_confusion": equal.get(g.name),
                }
                for g in self.groupings
            ],
            "verdicts": verdicts,
            "disparities": {k: v for k, v in found.items() if v},
            # --y-score (issue 26): each group's AUC and ICI (estimates; the tests' rows are in verdicts)
            "score_groups": None if self.score_groups is None else records(
                self.score_groups, ["grouping", "group", "n", "auc", "auc_ci_low", "auc_ci_high", "ici",
                                    "ici_ci_low", "ici_ci_high"]),
            "has_disparity": self.has_disparity,
        }

    def _repr_html_(self) -> str:
        from markupsafe import escape

        from fairstats._text import display_text

        shown = "\n".join(display_text(line) for line in self.summary().split("\n"))
        parts = [f"<pre>{escape(shown)}</pre>"]
        for name, frame in self.tables.items():
            view = frame.copy()  # data strings as display text (then escaped), as in report.html
            for column in view.columns:
                if pd.api.types.is_object_dtype(view[column]) or pd.api.types.is_string_dtype(view[column]):
                    view[column] = [display_text(v) if isinstance(v, str) else v for v in view[column]]
            view.columns = [display_text(c) for c in view.columns]
            parts.append(f"<h4>{escape(name)}</h4>" + view.to_html(index=False, max_rows=20, escape=True))
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"<fairstats Audit of {self.n:,} people: {', '.join(g.name for g in self.groupings)}>"

    def save(self, out: Path | str, *, pdf: bool = False) -> str:
        """Write the output folder ``out``: tables (CSV and Markdown), figures, ``report.md``/``.html``
        (and ``report.pdf`` with ``pdf=True``).

        The report's date is the time of writing, or ``SOURCE_DATE_EPOCH`` (seconds since 1970, UTC) when that
        environment variable is set: with it, two runs on the same input write the same bytes (the CSV files
        hold no date at all). ``pdf=True`` prints ``report.html`` to ``report.pdf`` with headless Chromium
        (:mod:`fairstats.auditing.pdf`); :class:`~fairstats.auditing.errors.PdfRendererError` when no Chromium
        is found, checked before anything is written.

        Everything is built in a work folder beside ``out``, which changes only when every step succeeded,
        and only if it is new, empty, or an earlier audit's folder holding nothing but the files that audit
        wrote (:func:`fairstats.auditing.folder.check_out_folder`). Returns the summary naming the report.

        Raises
        ------
        AuditError
            An ``out`` the audit may not replace; nothing is written.
        PdfRendererError
            ``pdf=True`` and no headless Chromium; nothing is written.
        """
        from fairstats.auditing.pdf import find_renderer
        from fairstats.auditing.provenance import report_date

        out = Path(out)
        report_date()  # a bad SOURCE_DATE_EPOCH stops here, before anything is written
        if pdf:
            find_renderer()
        inputs = (self.source.path,) if self.source.path is not None else ()
        notes = write_folder(out, inputs, partial(self.write_into, pdf=pdf))
        return self.summary(out, notes=notes)

    def write_into(self, folder: Path, *, pdf: bool = False) -> tuple[str, ...]:
        """Write the audit's files into the work folder ``folder`` (``pdf``: also ``report.pdf``); return
        the notes the report lists (with the warnings drawing the figures raised)."""
        from fairstats.auditing.figures import report_figures
        from fairstats.auditing.report import write_report
        from fairstats.auditing.search import draw_search_figure

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figures = report_figures(self, self.tests, folder, self.labels)
            if self.search is not None:
                alt = (
                    "Bar chart of the subgroup search's top comparisons: each subgroup's rate beside the "
                    "rate of the rest of the people, for the measure compared."
                )
                figures = [*figures, *({"file": name, "grouping": None, "kind": "subgroups", "alt": alt}
                                       for name in draw_search_figure(self.search, folder))]  # fmt: skip
        notes = tuple(dict.fromkeys((*self._notes_before, *user_warnings(caught), *self._notes_after)))
        write_tables(folder, list(self.tables.items()))
        write_report(folder, self, notes, figures)
        if pdf:
            from fairstats.auditing.pdf import print_pdf

            print_pdf(folder / "report.html", folder / "report.pdf")
        return notes


def write_folder(out: Path, inputs: tuple[Path, ...], write, *, target: Path | None = None):
    """Run ``write(work_folder)`` and put the work folder at ``out`` only if it succeeded (all or nothing);
    ``target``: ``out`` already checked (:func:`check_out_folder`). Returns what ``write`` returned."""
    if target is None:
        target = checked_out(out, inputs)
    try:
        tmp = new_work_folder(target)
        value = write(tmp)
        swap_into_place(tmp, target)
    except OutFolderError as err:
        discard_own(target)
        raise AuditError(str(err)) from None
    except BaseException:  # an interrupt may come while the work folder is being made: every one of ours
        discard_own(target)
        raise
    return value


def checked_out(out: Path, inputs: tuple[Path, ...]) -> Path:
    """The folder the audit may write at ``out`` (:func:`check_out_folder`), or :class:`AuditError`."""
    try:
        return check_out_folder(out, inputs=inputs)
    except OutFolderError as err:
        raise AuditError(str(err)) from None


def write_tables(folder: Path, tables: list[tuple[str, pd.DataFrame]]) -> None:
    """Each ``(name, frame)`` as ``name.csv`` (the one CSV writer, :func:`fairstats._csv.csv_text`: every
    field a reader could split quoted, would-be formulas defused) and ``name.md`` (data strings escaped) in
    ``folder``."""
    from fairstats.auditing.report import markdown_table

    for name, frame in tables:
        atomic_write_text(folder / f"{name}.csv", csv_text(frame))
        atomic_write_text(folder / f"{name}.md", markdown_table(frame, digits=4))


@dataclass(frozen=True)
class Started:
    """An audit whose input is checked and prepared (nothing computed yet): :meth:`finish` computes it."""

    prep: object  # Prepared or LevelsPrepared
    warned: tuple[str, ...]
    data: pd.DataFrame
    weight: np.ndarray | None
    options: AuditOptions
    source: Source
    filters: tuple[tuple[str, int], ...] = ()
    decision_rule: str | None = None

    def finish(self) -> Audit:
        """Compute the tables (and the subgroup search) of the prepared input."""
        from fairstats.auditing.prepare import label_text

        prep, options, data, weight = self.prep, self.options, self.data, self.weight
        if options.decision_levels is not None:
            from fairstats.auditing.levels import level_context, levels_tables

            tables: Tables = levels_tables(prep, options)
            context = level_context(options, prep, tables.level_tests, tables.ordinal_tests)
        else:
            from fairstats.auditing.tables import binary_tables

            tables = binary_tables(prep, options)
            context = None
        search = None
        after: tuple[str, ...] = ()
        scores, score_notes = None, ()
        if options.y_score is not None and options.decision_levels is None:  # issue 26
            from fairstats.auditing.scores import score_table

            scores = score_table(prep, options)
            score_notes = scores.notes
        if options.search:  # subgroup search (fairstats.auditing.search)
            from fairstats.auditing.search import run_search

            fav = prep.labels[0]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                search = run_search(
                    data, weight, columns=options.search,
                    y01=label_text(data[options.y_true]) == fav,
                    p01=label_text(data[options.y_pred]) == fav,
                    depth=options.search_depth, min_size=options.min_size, metrics=options.search_metrics,
                    alpha=options.alpha, n_resamples=options.n_resamples, seed=options.seed,
                )  # fmt: skip
            after = tuple(user_warnings(caught))
        return Audit(
            options=options,
            source=self.source,
            n=prep.n,
            labels=prep.labels,
            groupings=tables.groupings,
            equal_confusion=tables.equal_confusion,
            residuals=tables.residuals,
            tests=tables.tests,
            results=tables.results,
            references=tables.references,
            sizes=tables.sizes,
            level_tests=tables.level_tests,
            ordinal_tests=tables.ordinal_tests,
            level_context=context,
            search=search,
            warnings=self.warned,
            _notes_before=(*self.warned, *tables.notes, *tables.warned, *score_notes),
            _notes_after=after,
            decision_rule=self.decision_rule,
            filters=self.filters,
            score_tests=None if scores is None else scores.table,
            score_groups=None if scores is None else scores.groups,
            score_curves=None if scores is None else scores.curves,
        )


def start(data: pd.DataFrame, weight: np.ndarray | None, options: AuditOptions, source: Source) -> Started:
    """Check and prepare rows ``data`` (``weight``: people per row, None: one each) for ``options``.

    Rows are counted first (:func:`fairstats.auditing.counting.count_rows`) unless a test needs each
    person's row (``y_score``, ``fold``): every reader's rows then take the same path, and give the same
    numbers."""
    from fairstats.auditing.columns import input_columns
    from fairstats.auditing.prepare import prepare, prepare_levels
    from fairstats.auditing.rows import select_rows

    if weight is None and options.y_score is None and options.fold is None:
        data, weight = _counted(data, options)
    selected = select_rows(data, weight, options, source.name)
    data, weight = selected.data, selected.weight
    levels = options.decision_levels is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = input_columns(data, options, source, weight)
        prep = (prepare_levels if levels else prepare)(data, options, source, weight)
    # the input warnings (white-space and lookalike groups, duplicate columns) are kept as notes (and printed
    # by the CLI); the checks warn nothing else
    read = data.attrs.get(READ_WARNINGS, ())  # warned while reading (a table of counts' repeated columns)
    warned = tuple(
        dict.fromkeys(
            [*read, *(one_line(w.message) for w in caught if issubclass(w.category, INPUT_WARNINGS))]
        )
    )
    if options.search:  # subgroup search: check its columns before anything is computed
        from fairstats.auditing.search import search_iv

        roles = {options.y_true: "--y-true", options.y_pred: "--y-pred"}
        search_iv(data, options.search, roles, source.name, weight)
    return Started(prep, warned, data, weight, options, source, selected.filters, selected.decision_rule)


def _counted(data: pd.DataFrame, options: AuditOptions) -> tuple[pd.DataFrame, np.ndarray | None]:
    """Rows ``data`` counted over the columns the audit reads; the rows as they are when one of those is
    missing or cannot be counted (a list in a group column): the checks then name what is wrong."""
    from fairstats.auditing.counting import count_rows
    from fairstats.auditing.inputs import audit_columns

    names = [str(c) for c in data.columns]
    try:
        used = audit_columns(options, names)
    except AuditError:
        return data, None  # a bad --where predicate: select_rows names it
    if any(column not in names for column in used):
        return data, None
    try:
        return count_rows(data, used)
    except TypeError:  # unhashable values (lists, dicts): refused by the checks, naming the row
        return data, None


def run(data: pd.DataFrame, weight: np.ndarray | None, options: AuditOptions, source: Source) -> Audit:
    """The audit of checked ``options`` on rows ``data`` (``weight``: people per row, None: one each)."""
    return start(data, weight, options, source).finish()


def _column_names(data: object) -> list[str]:
    import narwhals.stable.v2 as nw

    try:
        return [str(c) for c in nw.from_native(data).columns]
    except TypeError:
        return []


def audit(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    y_score: str | None = None,
    fold: str | None = None,
    favorable: object = None,
    alpha: float = 0.05,
    margin: float = DEFAULT_MARGIN,
    margin_ratio: float | None = None,
    margin_v: float = DEFAULT_MARGIN_V,
    n_resamples: int = 9999,
    seed: int = 20240607,
    decision_levels: Sequence[str] | None = None,
    outcome_levels: Sequence[str] | None = None,
    ordered: bool = True,
    search: Sequence[str] = (),
    search_depth: int = 2,
    min_size: int = 30,
    search_metrics: Sequence[str] | None = None,
    reference: str | Sequence[str] | None = None,
    comparisons: str = "reference",
    where: str | Sequence[str] = (),
    y_pred_positive: str | Sequence[str] = (),
    y_pred_threshold: float | None = None,
) -> Audit:
    """Audit predictions for group disparities, in memory: what ``fairstats audit`` computes, as an object.

    Parameters
    ----------
    data : data frame or Counts
        One row per person (pandas; polars, pyarrow, DuckDB or Spark frames are counted in their engine), or
        a :class:`fairstats.Counts`. ``y_score`` and ``fold`` need a pandas frame (each person's row).
    group : str or list of str, keyword-only
        Sensitive attribute column(s); with several, their intersection is audited too.
    y_true, y_pred : str, keyword-only
        Columns of the true outcome and the prediction (two labels; with ``decision_levels``, its levels).
    y_score : str, optional, keyword-only
        Column of a score in [0, 1]: calibration and balance tests.
    fold : str, optional, keyword-only
        Column of the cross-validation test fold: the corrected resampled t instead of the bootstrap.
    favorable : optional, keyword-only
        The favourable label (default 1, with 0/1 labels).
    alpha, margin, margin_ratio, margin_v, n_resamples, seed : keyword-only
        As the command line's options (``n_resamples`` from 99 to 1,000,000).
    decision_levels, outcome_levels, ordered : keyword-only
        A decision with more than two levels (``--decision-levels``).
    search, search_depth, min_size, search_metrics : keyword-only
        The subgroup search (``--search``).
    reference : str or list of str, keyword-only
        The group every other group of a grouping is compared with: the first of these labels that is one
        of its groups (default: each grouping's largest group). ``--reference``.
    comparisons : {"reference", "pairs"}, keyword-only
        ``"pairs"``: every pair of groups once, instead of every group against the reference.
    where : str or list of str, keyword-only
        SQL predicates over the input's columns; only rows for which all hold are audited, and the report
        counts the people each removes (``--where``; :mod:`fairstats._where` says what a predicate may hold).
    y_pred_positive, y_pred_threshold : keyword-only
        Make the decision from ``y_pred``: these labels (a list, or ``"Medium,High"``) count as the positive
        prediction, or a score at or above the threshold does (``--y-pred-positive``,
        ``--y-pred-threshold``).

    Returns
    -------
    Audit
        ``.tests``, ``.equal_confusion``, ``.residuals`` ..., ``.summary()``, ``.save(folder)``.

    Raises
    ------
    AuditError
        Bad input (one line naming the option, column and value).

    Examples
    --------
    >>> result = fairstats.audit(frame, group=["sex", "race"], y_true="y", y_pred="p")  # doctest: +SKIP
    >>> result.tests[["grouping", "group", "metric", "estimate", "verdict"]]  # doctest: +SKIP
    >>> result.save("audit/")  # doctest: +SKIP
    """
    from fairstats.auditing.options import DEFAULT_SEARCH_METRICS

    given = {k: v for k, v in locals().items() if k not in ("data", "DEFAULT_SEARCH_METRICS")}
    options = AuditOptions(
        groups=(group,) if isinstance(group, str) else tuple(group),
        y_true=y_true, y_pred=y_pred, y_score=y_score, fold=fold, favorable=favorable, alpha=alpha,
        n_resamples=n_resamples, seed=seed, margin=margin, margin_ratio=margin_ratio, margin_v=margin_v,
        decision_levels=None if decision_levels is None else tuple(decision_levels),
        outcome_levels=None if outcome_levels is None else tuple(outcome_levels), ordered=ordered,
        search=(search,) if isinstance(search, str) else tuple(search or ()), search_depth=search_depth,
        min_size=min_size, search_metrics=tuple(search_metrics or DEFAULT_SEARCH_METRICS),
        reference=reference, comparisons=comparisons, where=where, y_pred_positive=y_pred_positive,
        y_pred_threshold=y_pred_threshold,
    )  # fmt: skip
    per_person = options.y_score is not None or options.fold is not None
    if per_person and not isinstance(data, pd.DataFrame):
        raise AuditError(
            "`data`: y_score and fold need one row per person (a pandas DataFrame); got "
            f"{type(data).__name__}"
        )
    keys = [*options.groups, *options.search, options.y_true, options.y_pred]
    if options.where and not isinstance(data, pd.DataFrame):  # count the predicates' columns too
        from fairstats.auditing.rows import predicate_columns

        names = list(data.keys) if isinstance(data, Counts) else _column_names(data)
        keys += [c for c in predicate_columns(options, names) if c not in keys]
    try:
        rows, weight = as_rows(data, keys, where="`data`")
    except (TypeError, ValueError) as err:
        raise AuditError(one_line(err)) from None
    if isinstance(data, Counts) or weight is not None:
        rows = rows.copy()
    if len(rows) == 0:
        raise AuditError("`data` has no rows")
    done = run(rows, weight, options, Source(name="the data", kind="frame"))
    return replace(done, command=call_text(given))


def call_text(given: dict) -> str:
    """The :func:`audit` call with the keyword arguments ``given`` (those equal to their defaults left out),
    for the report's provenance block: ``fairstats.audit(data, group='race', ...)``."""
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(audit).parameters.items()}
    parts = [
        f"{k}={v!r}" for k, v in given.items()
        if k in ("group", "y_true", "y_pred") or not _same(v, defaults.get(k))
    ]  # fmt: skip
    return f"fairstats.audit(data, {', '.join(parts)})"


def _same(value: object, default: object) -> bool:
    if isinstance(value, list | tuple) and isinstance(default, list | tuple):
        return list(value) == list(default)
    return value is None if default is None else value == default
