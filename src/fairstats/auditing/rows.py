"""The row step every task shares: the input's rows counted, ``--where`` filters applied in order, the
reader contract, the decision rule, and the validated grouping.

:func:`prepared_rows` takes what :func:`fairstats.auditing.inputs.read` read and gives :class:`Rows`, what
every
task computes from. A pandas frame's rows are counted first (:func:`fairstats.auditing.counting.count_rows`)
unless a test needs each person's row, so that every reader's rows take the same path and give the same
numbers. ``--where PREDICATE`` (repeatable) keeps the rows for which each SQL predicate holds
(:mod:`fairstats._where`: checked to be an expression over the input's columns, evaluated by DuckDB with
external access off); the people each removes are counted for the report. The reader contract
(:func:`fairstats.auditing.columns.input_columns`) then settles repeated column names and group values;
``--y-pred-positive L1,L2`` or ``--y-pred-threshold T`` turn ``--y-pred`` into the 0/1 decision
(:class:`fairstats._decision_rule.DecisionRule`), written into the report as the rule used; and
:func:`fairstats.auditing.grouping.checked_rows` checks the roles' columns.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fairstats.auditing.errors import INPUT_WARNINGS, AuditError
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.records import LINES, RecordLines
from fairstats.auditing.source import Source
from fairstats.auditing.writing import one_line

__all__ = ["Rows", "Selected", "audit_columns", "predicate_columns", "prepared_rows", "select_rows"]


@dataclass(frozen=True)
class Rows:
    """The checked rows of a task: ``data`` (rows, or distinct combinations with ``weight`` people each),
    the :class:`~fairstats.auditing.source.Source`, each filter with the people it removed, the decision rule
    in words, the input's warnings (kept as the report's notes) and a counts table's declared categories."""

    data: pd.DataFrame
    weight: np.ndarray | None
    source: Source
    filters: tuple[tuple[str, int], ...] = ()
    decision_rule: str | None = None
    warned: tuple[str, ...] = ()
    declared: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of people."""
        return len(self.data) if self.weight is None else int(np.asarray(self.weight).sum())


def prepared_rows(found, options: AuditOptions) -> Rows:
    """The row step on ``found`` (an :class:`~fairstats.auditing.inputs.Input`) for the checked ``options``.

    Raises
    ------
    AuditError
        A bad predicate, no row left, a decision rule that does not fit, a column missing or with missing
        values, a single group, an identifier-like group column (named with the input, column and row).
    """
    from fairstats.auditing.columns import READ_WARNINGS, input_columns
    from fairstats.auditing.grouping import checked_rows

    data, weight, source = found.rows, found.weight, found.source
    if weight is None and not options.per_person:
        data, weight = _counted(data, options)
    selected = select_rows(data, weight, options, source.name, rule=False)
    data, weight = selected.data, selected.weight
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = input_columns(data, options, source, weight)
        data = _decided(data, options, source.name)
        data = checked_rows(data, options, source, weight)
    read = found.rows.attrs.get(READ_WARNINGS, ())  # warned while reading (a counts table's repeated columns)
    warned = tuple(dict.fromkeys(
        [*read, *(one_line(w.message) for w in caught if issubclass(w.category, INPUT_WARNINGS))]))
    return Rows(data, weight, source, selected.filters, rule_words(options), warned, found.declared)


def _counted(data: pd.DataFrame, options: AuditOptions) -> tuple[pd.DataFrame, np.ndarray | None]:
    """Rows ``data`` counted over the columns the task reads; the rows as they are when one of those is
    missing or cannot be counted (a list in a group column): the checks then name what is wrong."""
    from fairstats.auditing.counting import count_rows

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


def _decided(data: pd.DataFrame, options: AuditOptions, where: str) -> pd.DataFrame:
    """``--y-pred`` (and a comparison's ``--y-pred-baseline``) as the 0/1 decision of the decision rule (the
    rows as they are without one)."""
    rules = options.decision_rules
    if not rules:
        return data
    data = data.copy()
    for rule, flag in zip(rules, ("--y-pred", "--y-pred-baseline"), strict=False):
        try:
            decision = rule.apply(data[rule.column], source=where)
        except KeyError:
            raise AuditError(f"{where}: no column {rule.column!r} ({flag})") from None
        except ValueError as err:
            raise AuditError(one_line(err)) from None
        data[rule.column] = decision.astype(np.int64)
    return data


def rule_words(options: AuditOptions) -> str | None:
    """The decision rules in words, as the report and ``--json`` give them (None: the columns as given)."""
    return "; ".join(rule.describe() for rule in options.decision_rules) or None


@dataclass(frozen=True)
class Selected:
    """The rows kept, their weights, each filter with the people it removed, the decision rule in words."""

    data: pd.DataFrame
    weight: np.ndarray | None
    filters: tuple[tuple[str, int], ...]
    decision_rule: str | None


def audit_columns(options: AuditOptions, columns: Sequence[str] = ()) -> list[str]:
    """The columns read: the task's, and those its ``where`` predicates read (of ``columns``)."""
    keys = list(options.columns)
    if options.where:
        keys += predicate_columns(options, [str(c) for c in columns])
    return list(dict.fromkeys(keys))


def predicate_columns(options: AuditOptions, columns: list[str]) -> list[str]:
    """The columns the ``--where`` predicates read (checked against ``columns``), in input order."""
    from fairstats._where import WhereError, check_predicate

    used: set[str] = set()
    for predicate in options.where:
        try:
            used |= check_predicate(predicate, columns)
        except WhereError as err:
            raise AuditError(one_line(err)) from None
    return [c for c in columns if c in used]


def select_rows(
    data: pd.DataFrame, weight: np.ndarray | None, options: AuditOptions, where: str, *, rule: bool = True
) -> Selected:
    """Apply ``options.where`` and (``rule``) ``options.decision_rule`` to rows ``data`` (``weight``: people
    per row).

    Raises
    ------
    AuditError
        A predicate that is not an allowed expression or fails on the data, no row left, a decision rule
        that does not fit the ``--y-pred`` column (named with the file ``where``).
    """
    from fairstats._where import WhereError, date_columns, where_masks

    filters: list[tuple[str, int]] = []
    if options.where:
        try:
            masks = where_masks(data, options.where, source=where, date_format=options.date_format)
        except WhereError as err:
            raise AuditError(one_line(err)) from None
        if options.date_format is not None and options.date is None:  # the format must read something
            names = [str(c) for c in data.columns]
            used = set(predicate_columns(options, names))
            read = data.loc[:, [n in used for n in names]].set_axis([n for n in names if n in used], axis=1)
            if not date_columns(read, options.date_format):
                shown = ", ".join(map(repr, read.columns))
                raise AuditError(f"--date-format {options.date_format!r}: no column --where reads ({shown}) "
                                 "holds dates written so; leave it out")  # fmt: skip
        people = np.ones(len(data)) if weight is None else np.asarray(weight, dtype=float)
        before = np.ones(len(data), dtype=bool)
        for predicate, kept in zip(options.where, masks, strict=True):
            filters.append((predicate, int(round(people[before & ~kept].sum()))))
            before = kept
        if not before.any():
            raise AuditError(f"{where}: no row is left after --where {' AND '.join(options.where)!r}")
        lines = data.attrs.get(LINES)
        data = data[before].reset_index(drop=True)
        if lines is not None or weight is None:  # messages keep naming the input's own lines and rows
            data.attrs[LINES] = (lines if lines is not None else RecordLines()).take(before)
        weight = None if weight is None else np.asarray(weight)[before]
    if rule:
        data = _decided(data, options, where)
    return Selected(data, weight, tuple(filters), rule_words(options))
