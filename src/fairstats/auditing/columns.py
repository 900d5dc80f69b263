"""The reader contract: one rule for repeated column names and for the kinds of group values, on every path.

Every way into the audit (a CSV file read by pandas, parquet read by pandas/pyarrow, parquet counted by
DuckDB, a table of counts, a data frame given to :func:`fairstats.audit`) hands its columns, repeated names
kept, to :func:`input_columns`: :func:`unique_columns`, then :func:`group_values` on its group columns, so
that every path refuses the same inputs with the same message and gives the audit the same types.

Repeated column names (:func:`unique_columns`): copies that hold the same values are one column
(:class:`~fairstats.auditing.DuplicateColumnWarning`, once per name; ProPublica's
``compas-scores-two-years.csv`` repeats ``decile_score``, ``priors_count`` and ``two_year_recid`` this way);
copies that differ are refused when the audit uses the column (:class:`~fairstats.auditing.AuditError` naming
the first row where they differ) and warned about when it does not (the first copy is kept, unused).

Group values (:func:`group_values`): text, numbers and booleans are kept; dates, times, time stamps and
durations become their ISO 8601 text (one spelling on every path); binary values become their UTF-8 text;
binary values that are not UTF-8, and nested values (lists, arrays, structs, maps), are refused naming the
column, the row and the kind.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from fairstats._text import display_text
from fairstats.auditing.errors import AuditError, DuplicateColumnWarning
from fairstats.counts import COUNT_COLUMN

__all__ = ["LINES", "READ_WARNINGS", "group_values", "input_columns", "unique_columns"]

#: ``DataFrame.attrs`` key of a CSV file's record lines (:class:`fairstats.auditing.inputs.RecordLines`).
LINES = "fairstats_lines"
#: ``DataFrame.attrs`` key of the input warnings raised while reading (kept as the audit's notes).
READ_WARNINGS = "fairstats_read_warnings"


def _missing(x: object) -> bool:
    return x is None or x is pd.NA or x is pd.NaT or (isinstance(x, float) and np.isnan(x))


def _same(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Row by row: do the two copies hold the same value (missing equals missing)?"""
    if a.reset_index(drop=True).equals(b.reset_index(drop=True)):
        return np.ones(len(a), dtype=bool)
    out = np.empty(len(a), dtype=bool)
    for i, (x, y) in enumerate(zip(a.to_numpy(dtype=object), b.to_numpy(dtype=object), strict=True)):
        if _missing(x) or _missing(y):
            out[i] = _missing(x) and _missing(y)
            continue
        try:
            out[i] = bool(x == y)
        except (TypeError, ValueError):  # arrays, structs: compared as text
            out[i] = str(x) == str(y)
    return out


def unique_columns(
    data: pd.DataFrame, used: Sequence[str], *, name: str, where: Callable[[int], str]
) -> pd.DataFrame:
    """``data`` with each repeated column name kept once (the first copy), by the rule of this module.

    Parameters
    ----------
    data : pandas.DataFrame
        The input as read, repeated column names kept (labels compared as text).
    used : sequence of str
        The columns the audit uses (groups, labels, score, fold, search columns, counts).
    name : str
        The input's name, as messages quote it.
    where : callable
        Row position (0-based) -> its place as messages name it (a CSV file's physical line).
    """
    labels = [str(c) for c in data.columns]
    if len(set(labels)) == len(labels):
        return data
    keep = []
    for i, label in enumerate(labels):
        if label in labels[:i]:
            continue
        keep.append(i)
        copies = [j for j, other in enumerate(labels) if other == label]
        if len(copies) == 1:
            continue
        first = data.iloc[:, i]
        differ = None
        for j in copies[1:]:
            same = _same(first, data.iloc[:, j])
            if not same.all():
                differ = int(np.flatnonzero(~same)[0])
                break
        shown = display_text(repr(label))
        if differ is None:
            warnings.warn(
                f"{name}: column {shown} occurs {len(copies)} times with the same values; it is read once",
                DuplicateColumnWarning,
                stacklevel=2,
            )
        elif label in used:
            raise AuditError(
                f"{name}: column {shown} occurs {len(copies)} times and its copies differ, first on "
                f"{where(differ)}; the audit uses it: keep one copy (or rename the others)"
            )
        else:
            warnings.warn(
                f"{name}: column {shown} occurs {len(copies)} times and its copies differ (first on "
                f"{where(differ)}); the audit does not use it",
                DuplicateColumnWarning,
                stacklevel=2,
            )
    out = data.iloc[:, keep].copy()
    out.columns = [labels[i] for i in keep]
    return out


#: What :func:`pandas.api.types.infer_dtype` calls a column whose every value is kept as it is (text,
#: numbers, booleans, missing values): such a column is passed on without looking at each value.
_KEPT = frozenset({"string", "empty", "integer", "floating", "mixed-integer-float", "boolean", "decimal"})


def _iso(value: object) -> object:
    if isinstance(value, pd.Timestamp | dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, pd.Timedelta | dt.timedelta | np.timedelta64):
        return pd.Timedelta(value).isoformat()
    if isinstance(value, np.datetime64):
        return pd.Timestamp(value).isoformat()
    return value


def _kind(value: object) -> str | None:
    """What a value that cannot be a group is, or None."""
    if isinstance(value, list | tuple | np.ndarray | set | frozenset):
        return "a list"
    if isinstance(value, dict):
        return "a struct or map"
    return None


def group_values(
    data: pd.DataFrame, columns: Sequence[str], *, name: str, where: Callable[[int], str]
) -> pd.DataFrame:
    """``data`` with each group column's values as the audit shows them (see the module), or
    :class:`~fairstats.auditing.AuditError` naming the input ``name``, the column and the first bad row."""
    out = data
    for column in dict.fromkeys(columns):
        if column not in data.columns:
            continue
        values = data[column]
        if isinstance(values, pd.DataFrame):  # repeated name: unique_columns has not run (a caller's bug)
            raise AuditError(f"{name}: column {display_text(repr(column))} occurs more than once")
        dtype = values.dtype
        shown = display_text(repr(column))
        if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
            text = [v if v is pd.NaT else _iso(v) for v in values]
            new = pd.Series(text, index=values.index, dtype=object).where(values.notna(), np.nan)
        elif pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.ArrowDtype):
            if pd.api.types.infer_dtype(values, skipna=True) in _KEPT:  # nothing to change: no row loop
                continue
            items = values.to_numpy(dtype=object)
            new_items = []
            changed = False
            for i, v in enumerate(items):
                kind = _kind(v)
                if kind is not None:
                    raise AuditError(
                        f"{name}: --group column {shown} holds {kind} on {where(i)}; a group is one value "
                        "(text, a number, a date): flatten the column first"
                    )
                if isinstance(v, bytes | bytearray | memoryview):
                    try:
                        v = bytes(v).decode("utf-8")
                    except UnicodeDecodeError:
                        raise AuditError(
                            f"{name}: --group column {shown} holds binary data that is not UTF-8 text on "
                            f"{where(i)}; decode it to text first"
                        ) from None
                    changed = True
                else:
                    iso = _iso(v)
                    changed = changed or iso is not v
                    v = iso
                new_items.append(v)
            if not changed:
                continue
            new = pd.Series(new_items, index=values.index, dtype=object)
        else:
            continue
        if out is data:
            out = data.copy()
        out[column] = new
    return out


def input_columns(
    data: pd.DataFrame, options, source, weight: np.ndarray | None
) -> pd.DataFrame:
    """The reader contract (:mod:`fairstats.auditing.columns`) on rows or counts from any path: repeated
    column names by its one rule, group values as the audit shows them (or refused). ``options``: the
    :class:`~fairstats.auditing.AuditOptions`; ``source``: the input's
    :class:`~fairstats.auditing.source.Source`; ``weight``: people per row (None: one each)."""
    lines = data.attrs.get(LINES)

    def where(position: int) -> str:
        return source.where(position, counted=weight is not None, lines=lines)

    used = list(options.columns)
    if weight is not None:
        used.append(COUNT_COLUMN)
    data = unique_columns(data, used, name=source.name, where=where)
    return group_values(data, [*options.groups, *options.search], name=source.name, where=where)
