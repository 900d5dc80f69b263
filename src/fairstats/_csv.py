"""The one CSV writer: every field a reader could split is quoted, every would-be formula defused.

pandas (through Python's ``csv`` module) quotes a field that holds the delimiter, the quote character or the
line terminator (``\\n``). Other readers also end a record at ``\\r``, and ``str.splitlines`` (and so many
line
readers) at ``\\x0b``, ``\\x0c``, ``\\x1c``–``\\x1e``, ``\\x85``, U+2028 and U+2029: a field holding one of
those
is written unquoted and splits its record there. :func:`csv_text` writes what pandas writes, byte for byte,
except that such fields are quoted too, and that text a spreadsheet would read as a formula gets a leading
``'`` (:func:`spreadsheet_safe`). Read back with a CSV reader (``newline=""``, as the ``csv`` module
documents),
every record has the same number of fields and exactly the values written (apart from that ``'``).
"""

from __future__ import annotations

import csv
import io
import re

import pandas as pd

from fairstats._text import LINE_BREAKS

__all__ = ["csv_text", "spreadsheet_safe"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_SPLITTERS = frozenset(LINE_BREAKS) - {"\n"}  # "\n" is quoted by pandas already
_QUOTED = frozenset({",", '"', *LINE_BREAKS})
_MARK = '"'  # appended to a field that must be quoted: pandas then quotes it (and doubles the mark)


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with text cells that a spreadsheet would run as a formula prefixed by ``'``.

    A text cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, and not a plain number
    (``-1``, ``+0.5``), gets a leading apostrophe (OWASP, "CSV Injection"): spreadsheets then show it as text.
    Numbers and other text are unchanged. The CSV files are the only outputs changed this way; the Markdown
    tables and the report show the value as written (as code).
    """
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue

        def safe(v: object) -> object:
            if isinstance(v, str) and v.startswith(_FORMULA_START) and not _NUMBER.match(v):
                return "'" + v
            return v

        out[column] = values.map(safe).astype(object)
    return out


def _splits(value: object) -> bool:
    return isinstance(value, str) and not _SPLITTERS.isdisjoint(value)


def _field(text: str) -> str:
    """One field as Python's csv module writes it with QUOTE_MINIMAL, plus quoting at every line break."""
    if not _QUOTED.isdisjoint(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as CSV text (no index, ``\\n`` line ends), spreadsheet-safe, line-breaking fields quoted.

    Column names are checked as well as values. When no field holds a line break other than ``\\n`` the text
    is
    exactly ``spreadsheet_safe(frame).to_csv(index=False, lineterminator="\\n")``.
    """
    safe = spreadsheet_safe(frame)
    header_splits = any(_splits(str(c)) for c in safe.columns)
    text_columns = [
        c for c in safe.columns
        if pd.api.types.is_object_dtype(safe[c]) or pd.api.types.is_string_dtype(safe[c])
    ]  # fmt: skip
    marked = {c: safe[c].map(_splits).to_numpy(dtype=bool) for c in text_columns}
    if not header_splits and not any(m.any() for m in marked.values()):
        return safe.to_csv(index=False, lineterminator="\n")
    # Let pandas format every value as always, with a mark on the fields that need quoting so that its output
    # parses back into exactly its fields; then write the fields again, quoting those too.
    work = safe.copy()
    for c, m in marked.items():
        if m.any():
            work[c] = [v + _MARK if hit else v for v, hit in zip(work[c].to_numpy(), m, strict=True)]
    work.columns = [f"{c}{_MARK}" if _splits(str(c)) else c for c in work.columns]
    records = list(csv.reader(io.StringIO(work.to_csv(index=False, lineterminator="\n"), newline="")))
    header = [
        h[: -len(_MARK)] if _splits(str(c)) else h for h, c in zip(records[0], safe.columns, strict=True)
    ]  # fmt: skip
    lines = ['""' if header == [""] else ",".join(_field(h) for h in header)]  # a lone empty name too
    columns = list(safe.columns)
    for i, record in enumerate(records[1:]):
        fields = []
        for c, value in zip(columns, record, strict=True):
            if c in marked and marked[c][i]:
                value = value[: -len(_MARK)]
            fields.append(value)
        if len(fields) == 1 and fields[0] == "":
            lines.append('""')  # a lone empty field, as the csv module writes it
        else:
            lines.append(",".join(_field(v) for v in fields))
    return "\n".join(lines) + "\n"
