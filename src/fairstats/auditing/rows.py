"""The rows audited and their decision: ``--where`` filters applied in order, then the decision rule.

``--where PREDICATE`` (repeatable) keeps the rows for which each SQL predicate holds
(:mod:`fairstats._where`: checked to be an expression over the input's columns, evaluated by DuckDB with
external access off); the people each removes are counted for the report. ``--y-pred-positive L1,L2`` or
``--y-pred-threshold T`` then turn ``--y-pred`` into the 0/1 decision (:class:`fairstats._decision_rule.
DecisionRule`), written into the report as the rule used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats.auditing.errors import AuditError
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.records import LINES, RecordLines
from fairstats.reporting import one_line

__all__ = ["Selected", "predicate_columns", "select_rows"]


@dataclass(frozen=True)
class Selected:
    """The rows kept, their weights, each filter with the people it removed, the decision rule in words."""

    data: pd.DataFrame
    weight: np.ndarray | None
    filters: tuple[tuple[str, int], ...]
    decision_rule: str | None


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


def select_rows(data: pd.DataFrame, weight: np.ndarray | None, options: AuditOptions, where: str) -> Selected:
    """Apply ``options.where`` and ``options.decision_rule`` to rows ``data`` (``weight``: people per row).

    Raises
    ------
    AuditError
        A predicate that is not an allowed expression or fails on the data, no row left, a decision rule
        that does not fit the ``--y-pred`` column (named with the file ``where``).
    """
    from fairstats._where import WhereError, where_masks

    filters: list[tuple[str, int]] = []
    if options.where:
        try:
            masks = where_masks(data, options.where, source=where)
        except WhereError as err:
            raise AuditError(one_line(err)) from None
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
    rule = options.decision_rule
    if rule is not None:
        try:
            decision = rule.apply(data[options.y_pred], source=where)
        except KeyError:
            raise AuditError(f"{where}: no column {options.y_pred!r} (--y-pred)") from None
        except ValueError as err:
            raise AuditError(one_line(err)) from None
        data = data.copy()
        data[options.y_pred] = decision.astype(np.int64)
    return Selected(data, weight, tuple(filters), None if rule is None else rule.describe())
