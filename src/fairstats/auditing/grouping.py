"""The validated grouping, the step every task shares after the rows: the columns of each role present, no
missing value where a role cannot have one, each grouping's groups, and the warnings about them.

:class:`Grouping` is a grouping as a small value (its columns, its name, the labels of its groups).
:func:`roles` says which column plays which role in a task (from the checked
:class:`~fairstats.auditing.AuditOptions`), :func:`present_iv` checks that the input has them (with a
suggestion for a misspelt name), and :func:`checked_rows` checks the rows once: missing values (named with the
people they hold and the row of the first), two or more groups per group column, identifier-like columns
refused, white-space and look-alike variants warned (:class:`~fairstats.auditing.GroupWhitespaceWarning`,
:class:`~fairstats.auditing.GroupLookalikeWarning`).
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._text import display_text, lookalike_pairs
from fairstats.auditing.columns import LINES
from fairstats.auditing.counting import people_in
from fairstats.auditing.errors import AuditError, GroupLookalikeWarning, GroupWhitespaceWarning
from fairstats.auditing.source import Source
from fairstats.auditing.writing import one_line
from fairstats.groups import group_labels

__all__ = [
    "SEPARATOR", "Grouping", "Role", "checked_rows", "chosen_references", "present_iv", "roles", "where_in",
]

#: Between the columns of an intersection in its name (``sex x race``), as every audit output writes it.
SEPARATOR = " x "
#: An id-like grouping: at least this many groups (more than a reader can take in) ...
ID_LIKE_GROUPS = 1000
#: ... of which at least this share ...
ID_LIKE_SHARE = 0.5
#: ... hold fewer than this many people (the audit notes an interval of fewer cases as unreliable) is refused.
ID_LIKE_SIZE = 10


@dataclass(frozen=True)
class Grouping:
    """One grouping: ``columns`` (one column, or several for their intersection), its ``name`` as the
    outputs show it, and ``labels``, the labels of its groups in the order of the tables (empty until the
    groups are known)."""

    columns: tuple[str, ...]
    labels: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """``race``, or ``sex x race`` for an intersection."""
        return SEPARATOR.join(self.columns)

    @property
    def group(self) -> str | list[str]:
        """The ``group`` argument of the library's functions: the column, or the list of columns."""
        return list(self.columns) if len(self.columns) > 1 else self.columns[0]


@dataclass(frozen=True)
class Role:
    """A column of the input and the role it plays: ``flag`` (as messages name it), ``column``, whether it
    is a group column, and whether a missing value is allowed there (an impact ratio's unknown category, a
    date the report counts as missing)."""

    flag: str
    column: str
    group: bool = False
    missing_allowed: bool = False


def roles(options) -> list[Role]:
    """The roles of the columns ``options`` (a checked :class:`~fairstats.auditing.AuditOptions`) reads."""
    out = []
    for column in options.groups:
        flag = "--group"
        if options.standard == "ll144":
            flag = "--sex" if column == options.sex else "--race"
        out.append(Role(flag, column, group=True, missing_allowed=options.missing_as_unknown))
    named = (("--y-true", options.y_true, False), ("--y-pred", options.y_pred, False),
             ("--y-pred-baseline", options.y_pred_baseline, False), ("--y-score", options.y_score, False),
             ("--y-score-baseline", options.y_score_baseline, False), ("--fold", options.fold, False),
             ("--scoring-rate", options.scoring_rate, False), ("--date", options.date, True))  # fmt: skip
    out += [Role(flag, column, missing_allowed=ok) for flag, column, ok in named if column is not None]
    return out


def _closest(name: str, columns: Sequence[str]) -> str | None:
    lower = {c.lower(): c for c in columns}
    if name.lower() in lower:
        return lower[name.lower()]
    close = difflib.get_close_matches(name, list(columns), n=1, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), list(lower), n=1, cutoff=0.6)
        close = [lower[c] for c in close]
    return close[0] if close else None


def present_iv(names: Sequence[str], options, source: Source) -> None:
    """:class:`AuditError` for the first role whose column ``names`` lacks, with the closest name."""
    names = [str(c) for c in names]
    for role in roles(options):
        if role.column not in names:
            hint = _closest(role.column, names)
            suggestion = f"; did you mean {hint!r}?" if hint else f"; columns are {names[:12]!r}"
            raise AuditError(f"{role.flag}: column {role.column!r} not found in {source.name}{suggestion}")


def where_in(data: pd.DataFrame, position: int, source: Source) -> str:
    """Row ``position`` of ``data`` as a message names it (a CSV file's line, a counted row's first one)."""
    return source.where(
        position, counted=bool(data.attrs.get("fairstats_counted")), lines=data.attrs.get(LINES)
    )


def checked_rows(
    data: pd.DataFrame, options, source: Source, weight: np.ndarray | None
) -> pd.DataFrame:
    """A copy of ``data`` with text column names, every role's column present, no missing value where the
    role allows none, each group column holding at least two groups (the monitor's batches excepted),
    white-space and look-alike variants warned, identifier-like columns refused."""
    columns = [str(c) for c in data.columns]
    data = data.copy()
    data.columns = columns
    if weight is not None:
        data.attrs["fairstats_counted"] = True  # rows are distinct combinations (messages say so)
    present_iv(columns, options, source)
    for role in roles(options):
        if role.missing_allowed:
            continue
        missing = data[role.column].isna().to_numpy()
        if missing.any():
            first = int(np.flatnonzero(missing)[0])
            hint = "; --missing-as-unknown counts them as unknown" if options.task == "impact_ratios" and \
                role.group else ""  # fmt: skip
            raise AuditError(
                f"{role.flag}: column {role.column!r} has {people_in(missing, weight)} missing value(s) "
                f"(NaN), first on {where_in(data, first, source)}{hint}"
            )
    for role in roles(options):
        if not role.group:
            continue
        column = role.column
        values = pd.unique(data[column])
        if len(values) < 2 and options.task in ("decisions", "regression", "comparison"):
            raise AuditError(
                f"--group: column {column!r} has a single group {one_line(values[0])!r}; "
                "an audit compares at least two groups"
            )
        variants = _whitespace_variants(data, column, weight)
        if variants:
            warnings.warn(variants, GroupWhitespaceWarning, stacklevel=2)
        lookalikes = _lookalikes(data, column)
        if lookalikes:
            warnings.warn(lookalikes, GroupLookalikeWarning, stacklevel=2)
    for grouping in options.groupings:  # each column first, then their intersection
        _too_many_groups_iv(data, weight, grouping)
    return data


def chosen_references(data: pd.DataFrame, options) -> dict[str, str | None]:
    """``--reference`` per grouping (name -> label): the first label given that is one of the grouping's
    groups, None where none is (the task's default, the largest group). :class:`AuditError` names a label
    that no grouping uses."""
    chosen, labels = {}, set()
    for grouping in options.groupings:
        found = set(group_labels(data, grouping.group).unique()) if options.reference else set()
        labels |= found
        chosen[grouping.name] = next((r for r in options.reference if r in found), None)
    unused = [r for r in options.reference if r not in chosen.values()]
    if unused:
        shown = ", ".join(repr(g) for g in sorted(labels)[:20])
        raise AuditError(f"--reference {unused[0]!r} is not a group of any grouping; the groups: {shown}")
    return chosen


def _whitespace_variants(data: pd.DataFrame, column: str, weight: np.ndarray | None = None) -> str | None:
    """The groups of ``column`` that differ only in surrounding white space, with their people."""
    present = data[column].notna().to_numpy()
    text = data.loc[present, column].astype(str)
    if weight is None:
        counts = text.value_counts(sort=False)
    else:
        counts = pd.Series(np.asarray(weight)[present], index=text.index).groupby(
            text.to_numpy(), sort=False).sum()  # fmt: skip
    stripped = pd.Series(counts.index.str.strip(), index=counts.index)
    clashes = [
        sorted(names) for _, names in stripped.groupby(stripped, sort=True).groups.items() if len(names) > 1
    ]
    if not clashes:
        return None
    pieces = "; ".join(", ".join(f"{n!r} ({int(counts[n]):,})" for n in names) for names in clashes)
    return (
        f"--group {column!r}: values that differ only in surrounding white space are audited as separate "
        f"groups: {pieces}"
    )


def _too_many_groups_iv(data: pd.DataFrame, weight: np.ndarray | None, grouping: Grouping) -> None:
    """Refuse, before any test, a grouping of at least :data:`ID_LIKE_GROUPS` groups of which at least half
    hold fewer than :data:`ID_LIKE_SIZE` people: an identifier (or an intersection of fine columns), not an
    attribute. Its comparisons could say nothing (every interval of a group of 2 is unreliable) and would
    take minutes; one line names the grouping and its numbers instead."""
    columns = list(grouping.columns)
    people = np.ones(len(data)) if weight is None else np.asarray(weight, dtype=float)
    sizes = pd.Series(people).groupby([data[c].to_numpy() for c in columns], sort=False).sum()
    if len(sizes) < ID_LIKE_GROUPS:
        return
    small = int((sizes < ID_LIKE_SIZE).sum())
    if small >= ID_LIKE_SHARE * len(sizes):
        what = (f"column {columns[0]!r} looks like an identifier, not a group" if len(columns) == 1
                else f"the intersection {grouping.name!r} has groups too small to compare")  # fmt: skip
        raise AuditError(
            f"--group: {what}: {len(sizes):,} groups, {small:,} of them with fewer than {ID_LIKE_SIZE} "
            f"people; audit a coarser attribute (or bin this one)"
        )


def _lookalikes(data: pd.DataFrame, column: str) -> str | None:
    """The groups of ``column`` that display alike (:func:`fairstats._text.lookalike_pairs`), named as
    escaped text."""
    pairs = lookalike_pairs(pd.unique(data[column].dropna()))
    if not pairs:
        return None
    shown = "; ".join(
        f"{display_text(ascii(a))} and {display_text(ascii(b))} ({why})" for a, b, why in pairs[:20]
    )
    more = f"; and {len(pairs) - 20:,} more pairs" if len(pairs) > 20 else ""
    return (
        f"--group {display_text(repr(column))}: values that look alike are audited as separate groups: "
        f"{shown}{more}"
    )
