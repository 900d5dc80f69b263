"""The result protocol every task's audit follows: :class:`AuditResult`.

Whatever the task — the audit of decisions (:class:`~fairstats.auditing.Audit`), impact ratios
(:class:`~fairstats.auditing.impact.ImpactAudit`), regression (:class:`~fairstats.auditing.regression.
RegressionAudit`) — its answer has ``tables`` (every table of the output folder, by file stem),
:meth:`~AuditResult.summary` (the plain-language text the command prints), :meth:`~AuditResult.to_dict` (what
``--json`` prints: numbers as numbers, per grouping its groups' sizes and rates), ``has_disparity`` (what
``--fail-on disparity`` exits on), :meth:`~AuditResult.save` (the output folder, all or nothing, with
``pdf=True`` for ``report.pdf``) and an HTML view for notebooks. A task's class implements the parts marked
below; the rest is written here once.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

__all__ = ["AuditResult"]


class AuditResult:
    """The protocol of an audit's answer (a mixin of the tasks' frozen dataclasses, which hold the fields
    ``options``, ``source``, ``n``, ``filters``, ``decision_rule`` and ``command``).

    A task's class implements :attr:`tables`, :attr:`has_disparity`, :meth:`summary`, :meth:`write_into` and
    :meth:`json_groupings` (and may add to :meth:`to_dict` with :meth:`json_extra`); :meth:`save`,
    :meth:`to_dict`, ``_repr_html_`` and ``repr`` are common. Results compare by identity (their fields hold
    data frames) and are hashable.
    """

    #: The tables' column holding each comparison's verdict, and the verdict that is a disparity.
    verdict_column = "verdict"
    disparity_verdict = "disparity"
    #: The columns of a disparity's row that ``--json`` lists.
    json_finding_columns: tuple[str, ...] = (
        "grouping", "group", "reference", "test", "metric", "estimate", "ci_low", "ci_high", "pvalue",
        "pvalue_adj", "verdict",
    )  # fmt: skip

    # --- implemented by each task
    # ----------------------------------------------------------------------------

    @property
    def tables(self) -> dict[str, pd.DataFrame]:  # pragma: no cover - abstract
        """Every table the output folder holds, by file stem, in the order they are written."""
        raise NotImplementedError

    def summary(self, out: Path | str | None = None, *, notes=None) -> str:  # pragma: no cover - abstract
        """The plain-language summary (what ``fairstats audit`` prints); with ``out``, the line naming the
        report saved there."""
        raise NotImplementedError

    def write_into(self, folder: Path, *, pdf: bool = False) -> tuple[str, ...]:  # pragma: no cover
        """Write the audit's files into the work folder ``folder``; return the notes the report lists."""
        raise NotImplementedError

    def json_groupings(self) -> list[dict]:  # pragma: no cover - abstract
        """Per grouping: ``name``, ``groups``, ``sizes`` (people), ``reference`` and ``rates`` (group ->
        measure -> value), plain JSON values."""
        raise NotImplementedError

    def json_extra(self) -> dict:
        """What the task adds to :meth:`to_dict` (nothing by default)."""
        return {}

    # --- common
    # -------------------------------------------------------------------------------------------------

    @property
    def has_disparity(self) -> bool:
        """Whether a table's verdict is a disparity (what ``--fail-on disparity`` exits on)."""
        return any(
            self.verdict_column in frame.columns
            and bool((frame[self.verdict_column].astype(str) == self.disparity_verdict).any())
            for frame in self.tables.values()
        )

    def to_dict(self) -> dict:
        """A machine-readable summary (what ``--json`` prints): the task, the input, its filters and decision
        rule, the options given, per grouping its groups' sizes and rates, the verdict counts of every table
        and every comparison found a disparity. Numbers as numbers; NaN as None."""
        from fairstats._format import json_records
        from fairstats._version import __version__

        options = self.options
        column, word = self.verdict_column, self.disparity_verdict
        verdicts = {
            name: {str(k): int(v) for k, v in frame[column].astype(str).value_counts().sort_index().items()
                   if str(k)}
            for name, frame in self.tables.items() if column in frame.columns
        }  # fmt: skip
        found = {
            name: json_records(frame[frame[column].astype(str) == word],
                               [c for c in self.json_finding_columns if c in frame.columns])
            for name, frame in self.tables.items() if name != "equal_confusion" and column in frame.columns
        }  # fmt: skip
        return {
            "fairstats": __version__,
            "task": options.task,
            "input": {"name": self.source.name, "kind": self.source.kind},
            "n": int(self.n),
            "filters": [{"where": w, "removed": int(k)} for w, k in self.filters],
            "decision_rule": self.decision_rule,
            "options": _json_options(options),
            "alpha": options.alpha,
            "groupings": self.json_groupings(),
            "verdicts": verdicts,
            "disparities": {k: v for k, v in found.items() if v},
            **self.json_extra(),
            "has_disparity": self.has_disparity,
        }

    def save(self, out: Path | str, *, pdf: bool = False) -> str:
        """Write the output folder ``out``: tables (CSV and Markdown), figures, ``report.md``/``.html`` (and
        ``report.pdf`` with ``pdf=True``), all or nothing.

        The report's date is the time of writing, or ``SOURCE_DATE_EPOCH`` (seconds since 1970, UTC) when that
        environment variable is set: with it, two runs on the same input write the same bytes. ``pdf=True``
        prints ``report.html`` with headless Chromium (:mod:`fairstats.auditing.pdf`). Everything is built in
        a work folder beside ``out``, which changes only when every step succeeded, and only if it is new,
        empty, or an earlier audit's folder holding nothing but the files that audit wrote
        (:func:`fairstats.auditing.folder.check_out_folder`). Returns the summary naming the report.

        Raises
        ------
        AuditError
            An ``out`` the audit may not replace, a bad ``SOURCE_DATE_EPOCH``, or ``pdf=True`` without a
            headless Chromium (:class:`~fairstats.auditing.errors.PdfRendererError`); nothing is written.
        """
        from fairstats.auditing.folder import write_folder
        from fairstats.auditing.pdf import find_renderer
        from fairstats.auditing.provenance import report_date

        if not isinstance(pdf, bool):
            from fairstats.auditing.errors import AuditError

            raise AuditError(f"save: `pdf` must be True or False, got {pdf!r}")
        out = Path(out)
        report_date()  # a bad SOURCE_DATE_EPOCH stops here, before anything is written
        if pdf:
            find_renderer()
        inputs = (self.source.path,) if self.source.path is not None else ()
        notes = write_folder(out, inputs, partial(self.write_into, pdf=pdf))
        return self.summary(out, notes=notes)

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
        from fairstats._text import display_text

        names = ", ".join(g["name"] for g in self.json_groupings())
        return display_text(f"<fairstats {type(self).__name__} ({self.options.task}) of {int(self.n):,} "
                            f"people: {names}>")  # fmt: skip


def _json_options(options) -> dict:
    """The options that apply to the task, keyword -> value, as plain JSON values (tuples as lists)."""
    from fairstats.auditing.options import OPTIONS

    out = {}
    for opt in OPTIONS:
        if not opt.attribute or opt.attribute == "task" or options.task not in opt.tasks:
            continue
        value = getattr(options, opt.attribute)
        out[opt.name] = list(value) if isinstance(value, tuple) else value
    return out
