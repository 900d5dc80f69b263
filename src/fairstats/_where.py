"""Row filters as SQL predicates over the input's columns, checked to be expressions and nothing else.

``fairstats audit --where "days_b_screening_arrest BETWEEN -30 AND 30"`` keeps the rows for which the
predicate is true (SQL semantics: a predicate that is NULL drops the row). A predicate is parsed by DuckDB
(``json_serialize_sql``) as the ``WHERE`` clause of ``SELECT * FROM fairstats_input`` and accepted only when
the statement is exactly that: one ``SELECT`` of the input table whose ``WHERE`` clause holds column
references, constants, comparisons, ``AND``/``OR``/``NOT``, ``BETWEEN``, ``IN`` lists, ``IS [NOT] NULL``,
``LIKE``, ``CASE``, casts, arithmetic and the scalar functions of :data:`ALLOWED_FUNCTIONS`. Subqueries, table
functions (``read_csv``, ...), other statements, window functions, parameters and every other function are
refused with a one-line message naming the predicate. It is then evaluated in a DuckDB connection with
external access (files, network, extensions) switched off.

A predicate means what it says on every machine:

* **Names bind exactly as written.** A column name must be one of the input's, spelled and cased alike.
  DuckDB itself matches names without regard to case, so two columns a predicate reads that differ only in
  case (``"Race"`` and ``race``) are refused: neither could be told from the other.
* **Time is UTC** (:data:`TIME_ZONE`). A timestamp with a zone is compared, and cut into days and hours, in
  UTC; one without a zone is read as UTC. DuckDB's default is the machine's zone, under which the same
  predicate keeps other rows on another machine.
* **Dates written as text** other than ISO 8601 (``01/03/2021``: the first of March or the third of January)
  are refused in a column a predicate reads unless their format is named (``date_format``, e.g.
  ``%d/%m/%Y``): compared as text, their order is not the dates' order. With a format, every column a
  predicate reads whose text values are all dates written so (ISO text too, with ``%Y-%m-%d``) is read as
  dates (naive, so UTC) and compared as dates: ``day < '2024-2-1'`` then means the date. Without one, ISO text
  (``2021-03-01``) is left as text, which sorts as its dates do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "ALLOWED_FUNCTIONS", "TIME_ZONE", "WhereError", "check_predicate", "date_columns", "date_text",
    "dates_of", "where_masks",
]  # fmt: skip

_TABLE = "fairstats_input"
#: The zone every predicate's timestamps are compared and cut into days in (see the module).
TIME_ZONE = "UTC"
#: Date text: day, month and year as numbers, any order, with ``/``, ``.`` or ``-`` (and a time after).
_DATE_TEXT = re.compile(r"\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}(?:[ T].*)?\s*", re.DOTALL)
#: ISO 8601 dates (year first, then month and day), with an optional time.
_ISO_DATE = re.compile(r"\s*[+-]?\d{4}-\d{2}-\d{2}(?:[ T].*)?\s*", re.DOTALL)

#: Scalar functions a predicate may call (pure functions of their arguments; DuckDB's names and operators).
ALLOWED_FUNCTIONS = frozenset(
    {
        "+", "-", "*", "/", "//", "%", "||", "~~", "!~~", "~~*", "!~~*", "abs", "ceil", "ceiling",
        "coalesce", "contains", "date_part", "datepart", "day", "ends_with", "floor", "greatest", "hour",
        "ifnull", "least", "left", "length", "lower", "ltrim", "month", "nullif", "prefix", "regexp_matches",
        "right", "round", "rtrim", "sign", "starts_with", "strlen", "substr", "substring", "suffix", "trim",
        "upper", "year",
    }
)  # fmt: skip
_ALLOWED_CLASSES = frozenset(
    {"BETWEEN", "CASE", "CAST", "COLUMN_REF", "COMPARISON", "CONJUNCTION", "CONSTANT", "FUNCTION", "OPERATOR",
     "TYPE"}
)


class WhereError(ValueError):
    """A ``--where`` predicate that is not an allowed expression over the input's columns."""


def _connect():
    import duckdb

    connection = duckdb.connect(
        config={
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
        }
    )
    connection.execute(f"SET TimeZone = '{TIME_ZONE}'")  # not the machine's zone (see the module)
    return connection


def _walk(node: object, columns: set[str], problems: list[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, columns, problems)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("class")
    if kind is not None:
        if kind not in _ALLOWED_CLASSES:
            problems.append(kind.lower().replace("_", " "))
        elif kind == "FUNCTION":
            name = str(node.get("function_name", "")).lower()
            ordered = (node.get("order_bys") or {}).get("orders")
            if name not in ALLOWED_FUNCTIONS or node.get("filter") or node.get("distinct") or ordered:
                problems.append(f"function {name}()")
        elif kind == "COLUMN_REF":
            names = node.get("column_names") or []
            columns.add(".".join(str(n) for n in names))
    for key, value in node.items():
        if key not in ("class", "type", "alias", "query_location", "query_location_length"):
            _walk(value, columns, problems)


def check_predicate(predicate: str, columns: Sequence[str]) -> set[str]:
    """The columns ``predicate`` reads; :class:`WhereError` unless it is an allowed expression over them."""
    if not isinstance(predicate, str) or not predicate.strip():
        raise WhereError(f"--where {predicate!r}: an empty predicate")
    con = _connect()
    try:
        statement = f"SELECT * FROM {_TABLE} WHERE {predicate}"
        raw = con.execute("SELECT json_serialize_sql(?)", [statement]).fetchone()
    finally:
        con.close()
    tree = json.loads(raw[0])
    if tree.get("error"):
        message = " ".join(str(tree.get("error_message", "not an expression")).split())
        if "Only SELECT statements" in message:
            message = "one expression only (no other statement)"
        raise WhereError(f"--where {predicate!r}: {message}")
    statements = tree.get("statements") or []
    node = statements[0].get("node", {}) if len(statements) == 1 else {}
    source = node.get("from_table") or {}
    plain = (
        len(statements) == 1
        and node.get("type") == "SELECT_NODE"
        and source.get("type") == "BASE_TABLE"
        and source.get("table_name") == _TABLE
        and not node.get("modifiers")
        and not (node.get("cte_map") or {}).get("map")
        and not node.get("group_expressions")
        and node.get("having") is None
        and node.get("qualify") is None
        and node.get("sample") is None
        and [e.get("class") for e in node.get("select_list", [])] == ["STAR"]
    )
    if not plain:
        raise WhereError(f"--where {predicate!r}: one expression over the input's columns only")
    used: set[str] = set()
    problems: list[str] = []
    _walk(node.get("where_clause"), used, problems)
    if problems:
        shown = ", ".join(dict.fromkeys(problems))
        raise WhereError(f"--where {predicate!r}: not allowed in a row filter: {shown}")
    known = {str(c) for c in columns}
    missing = sorted(used - known)
    if missing:
        import difflib

        cased = sorted(c for c in known if c.casefold() == missing[0].casefold())
        close = cased or difflib.get_close_matches(missing[0], sorted(known), n=1)
        hint = f" (did you mean {close[0]!r}?{' Names match exactly, case too.' if cased else ''})" if close \
            else ""  # fmt: skip
        raise WhereError(f"--where {predicate!r}: no column {missing[0]!r} in the input{hint}")
    folded: dict[str, str] = {}
    for name in sorted(used):
        other = folded.setdefault(name.casefold(), name)
        if other != name:
            raise WhereError(
                f"--where {predicate!r}: the columns {other!r} and {name!r} differ only in case, which the "
                "SQL engine does not tell apart; rename one of them"
            )
    return used


def date_text(values: pd.Series) -> str | None:
    """The first value of ``values`` if they are dates written as text other than ISO 8601 (day, month and
    year as numbers, see the module), else None."""
    if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
        return None
    present = values.dropna()
    if present.empty or not all(isinstance(v, str) for v in present):
        return None
    distinct = pd.unique(present)
    if not all(_DATE_TEXT.fullmatch(v) for v in distinct) or all(_ISO_DATE.fullmatch(v) for v in distinct):
        return None
    return next(v for v in distinct if not _ISO_DATE.fullmatch(v))


def _as_dates(values: pd.Series, date_format: str) -> tuple[pd.Series, object]:
    """``values`` read as dates written ``date_format``, and the first value that is not one (None: all are;
    a missing value stays missing)."""
    text = values.astype(object).where(values.notna(), None)
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):  # 20210301
        text = pd.Series([None if v is None else f"{v:.0f}" if isinstance(v, float) and v.is_integer()
                          else str(v) for v in text], index=values.index, dtype=object)  # fmt: skip
    read = pd.to_datetime(text, format=date_format, exact=True, errors="coerce")
    bad = read.isna().to_numpy() & text.notna().to_numpy()
    return read, (text[bad].iloc[0] if bad.any() else None)


def dates_of(values: pd.Series, date_format: str, *, what: str) -> pd.Series:
    """``values`` (text, or numbers such as 20210301) read as dates written ``date_format``: every value that
    is not missing must fit it (:class:`WhereError` naming ``what`` and the first that does not)."""
    read, bad = _as_dates(values, date_format)
    if bad is not None:
        raise WhereError(f"{what}: {bad!r} is not a date written {date_format!r}")
    return read


def date_columns(frame: pd.DataFrame, date_format: str) -> list[str]:
    """The text columns of ``frame`` whose values (missing ones aside, at least one) are all dates written
    ``date_format``: what a predicate compares as dates."""
    out = []
    for column in frame.columns:
        values = frame[column]
        text = pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)
        if text and values.notna().any() and all(isinstance(v, str) for v in values.dropna()):
            if _as_dates(values, date_format)[1] is None:
                out.append(column)
    return out


def _read_dates(frame: pd.DataFrame, date_format: str | None, source: str, shown: str) -> pd.DataFrame:
    """The columns a predicate reads, those of date text read as dates (see the module)."""
    fitting = set() if date_format is None else set(date_columns(frame, date_format))
    for column in frame.columns:
        if column in fitting:
            frame[column] = _as_dates(frame[column], date_format)[0]
            continue
        example = date_text(frame[column])
        if example is None:
            continue
        if date_format is None:
            raise WhereError(
                f"{source}: --where {shown!r}: column {column!r} holds dates written as text ({example!r}), "
                "which the filter would compare as text and which read day-first or month-first differ; "
                "name their format with --date-format (e.g. %d/%m/%Y) to compare them as dates"
            )
        bad = _as_dates(frame[column], date_format)[1]
        raise WhereError(
            f"{source}: --where {shown!r}: column {column!r} holds {bad!r}, not a date written "
            f"{date_format!r}"
        )
    return frame


def where_masks(
    data: pd.DataFrame,
    predicates: Sequence[str],
    *,
    source: str = "the input",
    date_format: str | None = None,
) -> list[np.ndarray]:
    """For each predicate in turn, the rows kept by it and every earlier one (booleans over ``data``).

    The rows kept by all are ``np.logical_and.reduce(masks)``; the rows removed by predicate ``i`` are
    ``masks[i - 1] & ~masks[i]`` (with ``masks[-1]`` all true before the first). ``date_format``: how the
    date text of the columns the predicates read is written (see the module); without it, such a column is
    refused.
    """
    used: set[str] = set()
    for predicate in predicates:
        used |= check_predicate(predicate, list(data.columns))
    frame = data[[c for c in data.columns if str(c) in used]].copy()
    frame.columns = [str(c) for c in frame.columns]
    frame = _read_dates(frame, date_format, source, " AND ".join(predicates))
    row = "__fairstats_row"
    while row.casefold() in {c.casefold() for c in frame.columns}:  # DuckDB's names ignore case
        row += "_"
    frame[row] = np.arange(len(frame), dtype=np.int64)
    con = _connect()
    masks: list[np.ndarray] = []
    try:
        con.register(_TABLE, frame)
        kept = np.ones(len(data), dtype=bool)
        for predicate in predicates:
            try:  # exactly the statement check_predicate parsed: the predicate cannot leave its WHERE clause
                got = con.execute(f"SELECT * FROM {_TABLE} WHERE {predicate}").fetchnumpy()
            except Exception as err:  # duckdb's errors: types that do not compare, a bad cast, ...
                message = " ".join(str(err).split("LINE 1:")[0].split())
                raise WhereError(f"{source}: --where {predicate!r}: {message}") from None
            keep = np.zeros(len(data), dtype=bool)
            keep[np.asarray(got[row], dtype=np.int64)] = True
            kept = kept & keep
            masks.append(kept.copy())
    finally:
        con.close()
    return masks
