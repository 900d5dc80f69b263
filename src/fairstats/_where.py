"""Row filters as SQL predicates over the input's columns, checked to be expressions and nothing else.

``fairstats audit --where "days_b_screening_arrest BETWEEN -30 AND 30"`` keeps the rows for which the
predicate
is true (SQL semantics: a predicate that is NULL drops the row). A predicate is parsed by DuckDB
(``json_serialize_sql``) as the ``WHERE`` clause of ``SELECT * FROM fairstats_input`` and accepted only when
the statement is exactly that: one ``SELECT`` of the input table whose ``WHERE`` clause holds column
references,
constants, comparisons, ``AND``/``OR``/``NOT``, ``BETWEEN``, ``IN`` lists, ``IS [NOT] NULL``, ``LIKE``,
``CASE``, casts, arithmetic and the scalar functions of :data:`ALLOWED_FUNCTIONS`. Subqueries, table
functions (``read_csv``, ...), other statements, window functions, parameters and every other function are
refused with a one-line message naming the predicate. It is then evaluated in a DuckDB connection with
external
access (files, network, extensions) switched off.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["ALLOWED_FUNCTIONS", "WhereError", "check_predicate", "where_masks"]

_TABLE = "fairstats_input"

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

    return duckdb.connect(
        config={
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
        }
    )


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

        close = difflib.get_close_matches(missing[0], sorted(known), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise WhereError(f"--where {predicate!r}: no column {missing[0]!r} in the input{hint}")
    return used


def where_masks(
    data: pd.DataFrame, predicates: Sequence[str], *, source: str = "the input"
) -> list[np.ndarray]:
    """For each predicate in turn, the rows kept by it and every earlier one (booleans over ``data``).

    The rows kept by all are ``np.logical_and.reduce(masks)``; the rows removed by predicate ``i`` are
    ``masks[i - 1] & ~masks[i]`` (with ``masks[-1]`` all true before the first).
    """
    used: set[str] = set()
    for predicate in predicates:
        used |= check_predicate(predicate, list(data.columns))
    frame = data[[c for c in data.columns if str(c) in used]].copy()
    frame.columns = [str(c) for c in frame.columns]
    row = "__fairstats_row"
    while row in frame.columns:
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
