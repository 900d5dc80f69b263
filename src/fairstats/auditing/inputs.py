"""Reading the audit's input: CSV or parquet files of predictions, tables of counts, DuckDB's counting path.

:func:`read_input` turns ``PREDICTIONS`` (or ``--counts FILE``) into rows and the number of people each stands
for, and names the input in a :class:`Source` that the checks' messages quote. Group columns of a CSV file are
read as text, as written (``01`` and ``1``, ``NA`` and ``None`` are groups of their own). Every failure is an
:class:`~fairstats.auditing.AuditError` naming the file.

A CSV file is read from one stream, once (``/dev/stdin`` and other pipes work), and a message names a row by
its physical line (a quoted field holding a line break makes the two differ). Repeated column names are kept
as read on every path, so that the one rule of :mod:`fairstats.auditing.columns` applies to all of them.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats.auditing.columns import LINES, input_columns
from fairstats.auditing.errors import AuditError
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.records import RecordLines, record_starts
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.reporting import one_line

__all__ = [
    "LINES",
    "READ_WARNINGS",
    "RecordLines",
    "Source",
    "audit_columns",
    "is_parquet",
    "read_audit_input",
    "read_counts_file",
    "read_input",
    "read_predictions_file",
]

#: ``DataFrame.attrs`` key of the input warnings raised while reading (kept as the audit's notes).
READ_WARNINGS = "fairstats_read_warnings"


@dataclass(frozen=True)
class Source:
    """Where the audit's data came from, as its messages and report name it.

    ``kind``: ``"csv"``, ``"parquet"`` (a file or a folder of files), ``"counts"`` (``--counts FILE``) or
    ``"frame"`` (a data frame given to :func:`fairstats.audit`); ``path``: the file (None for a frame).
    """

    name: str
    kind: str
    path: Path | None = None

    @classmethod
    def of_file(cls, path: Path, *, counts: bool = False) -> Source:
        kind = "counts" if counts else "parquet" if is_parquet(path) else "csv"
        return cls(name=path.name, kind=kind, path=path)

    def where(self, position: int, *, counted: bool, lines: RecordLines | None = None) -> str:
        """Row ``position`` (0-based) of the input as a message names it: a CSV file's physical line number
        (``lines``: the record each row stands for and the line it starts on,
        :mod:`fairstats.auditing.records`)."""
        if lines is not None:  # rows (counted or filtered) that know the input record each stands for
            if self.kind == "csv":
                return f"line {lines.line(position)} of {self.name}"
            return f"row {lines.record(position) + 1} of {self.name}"
        if counted:
            what = "the counts table" if self.kind == "counts" else "the counted rows"
            return f"row {position + 1} of {what} of {self.name}"
        if self.kind in ("parquet", "frame"):
            return f"row {position + 1} of {self.name}"
        line = position + 2 if lines is None else lines.line(position)
        return f"line {line} of {self.name}"


def is_parquet(path: Path) -> bool:
    """A parquet file (``.parquet``, ``.pq``) or a folder (of parquet files)."""
    return path.suffix.lower() in (".parquet", ".pq") or path.is_dir()


def audit_columns(options: AuditOptions, columns: Sequence[str] = ()) -> list[str]:
    """The columns counted: the audit's, and those its ``--where`` predicates read (of ``columns``)."""
    keys = [*options.groups, *options.search, options.y_true, options.y_pred]
    if options.where:
        from fairstats.auditing.rows import predicate_columns

        keys += predicate_columns(options, [str(c) for c in columns])
    return list(dict.fromkeys(keys))


def read_counts_file(path: Path, options: AuditOptions) -> Counts:
    """Read a table of counts (``--counts``): the ``--group`` columns, ``--y-true``, ``--y-pred`` and ``n``,
    the number of people with that combination; CSV or parquet. Raises
    :class:`AuditError` naming the file, column and value for a missing column or a bad count."""
    if path.is_dir():
        raise AuditError(f"--counts {str(path)!r} is a folder, not a CSV or parquet file")
    table = read_predictions_file(path, text_columns=(*options.groups, *options.search))
    table.columns = [str(c) for c in table.columns]
    source = Source.of_file(path, counts=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = input_columns(table, options, source, np.ones(len(table)))
    try:
        keys = audit_columns(options, table.columns)
        counts = Counts.from_table(table, keys=keys, where=repr(path.name))
    except ValueError as err:
        raise AuditError(f"--counts: {one_line(err)}") from None
    counts.table.attrs[READ_WARNINGS] = tuple(
        dict.fromkeys(one_line(w.message) for w in caught if issubclass(w.category, UserWarning))
    )
    return counts


def _count_parquet(path: Path, options: AuditOptions) -> Counts:
    """A parquet file or folder counted by DuckDB over the audit's columns (bounded memory)."""
    try:
        return Counts.from_parquet(path, columns=audit_columns(options))
    except ValueError as err:
        raise AuditError(one_line(err)) from None


def read_input(
    path: Path, options: AuditOptions, *, counts: bool = False
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The input as rows with the number of people each stands for (None: one person per row).

    A table of counts, and parquet files or folders without ``--fold``/``--y-score``/``--where``, are counted
    (their size does not matter); CSV, and parquet with ``--fold``/``--y-score`` (whose tests need each
    person) or ``--where`` (whose columns may hold missing values), are read into memory."""
    if counts:
        table = read_counts_file(path, options)
    elif (
        is_parquet(path)
        and path.exists()
        and options.fold is None
        and options.y_score is None
        and not options.where  # the predicates' columns may hold missing values: the rows are read
        and not _parquet_repeats_names(path, audit_columns(options))
    ):
        table = _count_parquet(path, options)
    else:
        return read_predictions_file(path, text_columns=(*options.groups, *options.search)), None
    return table.table, table.table[COUNT_COLUMN].to_numpy()


def _parquet_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix.lower() in (".parquet", ".pq") and p.is_file())
    return [path]


def _parquet_repeats_names(path: Path, used: Sequence[str] = ()) -> bool:
    """Does a parquet file (or a file of the folder) name a column twice, or hold a ``used`` column of
    nested values (lists, structs, maps) or binary values? Such input is read by pandas (every copy kept,
    refused or warned by :mod:`fairstats.auditing.columns`' rule with the same messages as every other
    path), not counted by DuckDB, which would rename the copies."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for file in _parquet_files(path):
        try:
            schema = pq.read_schema(file)
        except Exception:  # noqa: BLE001 - unreadable: the reader that follows names the error
            return False
        if len(set(schema.names)) != len(schema.names):
            return True
        for field in schema:
            kind = field.type
            if field.name in used and (
                pa.types.is_nested(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
            ):
                return True
    return False


def _read_parquet_repeated(path: Path) -> pd.DataFrame:
    """Parquet whose columns repeat a name, every copy kept (pyarrow's dataset reader refuses them)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables, names = [], None
    for file in _parquet_files(path):
        table = pq.ParquetFile(file).read()
        if names is None:
            names = table.column_names
        elif table.column_names != names:
            raise AuditError(
                f"{str(path)!r}: the file {file.name!r} has other columns than the first file of the folder"
            )
        tables.append(table.rename_columns([f"c{i}" for i in range(table.num_columns)]))
    data = pa.concat_tables(tables).to_pandas()
    data.columns = names
    return data

def _csv_names(raw: bytes) -> list[str]:
    """The header's fields as written (repeated names kept)."""
    header = pd.read_csv(io.BytesIO(raw), header=None, nrows=1, dtype=str, keep_default_na=False)
    return header.iloc[0].tolist() if len(header) else []


def _csv_frame(raw: bytes, names: list[str], text_columns: Sequence[str], path: Path) -> pd.DataFrame:
    """CSV ``raw`` as pandas reads it, ``text_columns`` as written, columns named ``names``."""
    data = pd.read_csv(io.BytesIO(raw))
    if len(data.columns) != len(names):  # pragma: no cover - pandas reads the header it was given
        raise AuditError(f"could not read {str(path)!r} as CSV: the header has {len(names)} fields")
    text = [i for i, name in enumerate(names) if name in text_columns]
    if text:  # as written: no number or NA inference ("01" is not "1", "NA" is a group); empty is missing
        read = pd.read_csv(io.BytesIO(raw), usecols=text, dtype=str, keep_default_na=False, na_values=[""])
        for j, i in enumerate(text):
            values = read.iloc[:, j]
            data[data.columns[i]] = values.astype(object).where(values.notna(), np.nan)
    data.columns = names
    return data


def _spans(raw: bytes, records: int) -> bool:
    """Does a record of CSV ``raw`` (``records`` data records) span lines, or a blank line come between?"""
    physical = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    return b'"' in raw and physical != records + 1  # equal: no blank line, every record on one line


def _lines(raw: bytes, records: int, *, rows: np.ndarray | None = None) -> RecordLines | None:
    """Where the records of CSV ``raw`` start (None: record ``i`` on line ``i + 2``); ``rows``: the record
    each row of the frame stands for. For counted rows the lines are found when a message first needs them
    (the file's bytes are kept until then, and no line is counted when no message needs one)."""
    if rows is None:
        return RecordLines.of_text(raw.decode("utf-8", errors="replace")) if _spans(raw, records) else None
    if b'"' not in raw:
        return RecordLines(records=rows)

    def starts() -> list[int] | None:
        if not _spans(raw, records):
            return None
        return record_starts(raw.decode("utf-8", errors="replace"))

    return RecordLines(starts, records=rows)


def _read_csv(path: Path, text_columns: Sequence[str], raw: bytes | None = None) -> pd.DataFrame:
    """The CSV file, read from one stream once (a pipe works); repeated column names kept as written."""
    raw = path.read_bytes() if raw is None else raw
    names = _csv_names(raw)
    data = _csv_frame(raw, names, text_columns, path)
    lines = _lines(raw, len(data))
    if lines is not None:
        data.attrs[LINES] = lines
    return data


def _arrow_text(raw: bytes, fields: list[str], chosen: list[str]):
    """The ``chosen`` columns of CSV ``raw`` as dictionary-coded text, every value as written, one dictionary
    per column (the header is record 0, dropped), or None when pyarrow refuses the file. A file with a quote
    is read fast first (a line break inside a quoted value then makes pyarrow's blocks and records
    disagree, which it reports), and again with line breaks allowed in values when that fails."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    convert = pacsv.ConvertOptions(
        include_columns=chosen,
        column_types={c: pa.dictionary(pa.int32(), pa.string()) for c in chosen},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    for spans in (False, True) if b'"' in raw else (False,):
        try:
            return pacsv.read_csv(
                pa.py_buffer(raw),
                read_options=pacsv.ReadOptions(column_names=fields),
                parse_options=pacsv.ParseOptions(newlines_in_values=spans),
                convert_options=convert,
            ).slice(1).unify_dictionaries()
        except (pa.ArrowException, ValueError):
            continue
    return None


def _count_csv(raw: bytes, options: AuditOptions, path: Path) -> tuple[pd.DataFrame, np.ndarray] | None:
    """A CSV file counted as it is read (:mod:`fairstats.auditing.counting`), or None when pyarrow cannot
    read it exactly as pandas does (then pandas reads it, and names what is wrong).

    pyarrow reads only the counted columns, as text; their dictionary codes give the combinations; pandas
    then reads each combination's first record as it reads the whole file (the combinations hold every
    distinct value of every column, so it infers the same types and missing values).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from fairstats.auditing.counting import count_codes, counted_columns

    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None  # pandas reads the whole file and says where
    try:
        names = _csv_names(raw)
        used = audit_columns(options, names)
    except (AuditError, ValueError, pd.errors.ParserError):
        return None
    if not names or any(column not in names for column in used):
        return None  # the checks name the missing column, with the file's columns
    keep = counted_columns(names, used)
    fields = [f"c{i}" for i in range(len(names))]
    chosen = [fields[i] for i in keep]
    table = _arrow_text(raw, fields, chosen)
    if table is None:
        return None  # ragged rows, an open quote ...: pandas reads (or refuses) the file as always
    if table.num_rows == 0:
        return None
    codes, sizes = [], []
    for name in chosen:
        chunks = table.column(name).chunks
        if any(c.null_count for c in chunks):  # pragma: no cover - text columns hold no nulls
            return None
        codes.append(np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks]))
        sizes.append(len(chunks[0].dictionary))
    first, people = count_codes(codes, sizes)
    del codes
    records = table.num_rows
    sink = pa.BufferOutputStream()
    pacsv.write_csv(table.take(pa.array(first)), sink)
    del table
    frame = _csv_frame(
        sink.getvalue().to_pybytes(), [names[i] for i in keep], (*options.groups, *options.search), path
    )
    frame.attrs[LINES] = _lines(raw, records, rows=first)
    return frame, people


def read_audit_input(
    path: Path, options: AuditOptions, *, counts: bool = False
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """What ``fairstats audit`` reads: :func:`read_input`, except that a CSV file is counted as it is read
    when the audit needs no row of its own (no ``--y-score``, ``--fold``), so that a large file costs about
    what pyarrow takes to read it. The checks then see each distinct combination once, with its people, and
    name the line of its first record, as they would on the rows."""
    if counts or is_parquet(path) or options.fold is not None or options.y_score is not None:
        return read_input(path, options, counts=counts)
    if not path.exists():
        raise AuditError(f"file {str(path)!r} not found")
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise AuditError(f"could not read {str(path)!r} as CSV: {one_line(err)}") from None
    found = _count_csv(raw, options, path)
    if found is not None:
        return found
    return read_predictions_file(path, text_columns=(*options.groups, *options.search), _raw=raw), None


def read_predictions_file(
    path: Path, *, text_columns: Sequence[str] = (), _raw: bytes | None = None
) -> pd.DataFrame:
    """Read a CSV or parquet file of predictions; raise :class:`AuditError` naming the file on failure.

    ``text_columns`` of a CSV file are read as text, as written (no number or NA inference; an empty field
    is missing). Repeated column names are kept (:mod:`fairstats.auditing.columns` applies its rule).
    """
    if not path.exists():
        raise AuditError(f"file {str(path)!r} not found")
    if path.is_dir() and not any(path.rglob("*.parquet")):
        raise AuditError(f"{str(path)!r} is a folder without .parquet files, not a CSV or parquet file")
    try:
        if is_parquet(path):
            data = _read_parquet_repeated(path) if _parquet_repeats_names(path) else pd.read_parquet(path)
        else:
            data = _read_csv(path, text_columns, _raw)
    except pd.errors.EmptyDataError:
        raise AuditError(f"{str(path)!r} is empty") from None
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as err:
        kind = "parquet" if is_parquet(path) else "CSV"
        raise AuditError(f"could not read {str(path)!r} as {kind}: {one_line(err)}") from None
    except Exception as err:  # pyarrow's own errors  # noqa: BLE001
        raise AuditError(f"could not read {str(path)!r}: {one_line(err)}") from None
    if len(data) == 0:
        raise AuditError(f"{str(path)!r} has no rows")
    return data
