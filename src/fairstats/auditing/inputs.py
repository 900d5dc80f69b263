"""The input step every task shares: a file (CSV, parquet file or folder, a table of counts) or an in-memory
frame of any engine, read into rows and the number of people each stands for.

:func:`read` is the one way in. It reads only the columns the task uses (its roles, the subgroup search's and
those the ``where`` predicates read) and counts them where no test needs each person's row
(:attr:`~fairstats.auditing.AuditOptions.per_person`): a CSV file as it is read (pyarrow, then
:mod:`fairstats.auditing.counting`), parquet in DuckDB, a polars, pyarrow, DuckDB or Spark frame inside its
own
engine (:func:`fairstats.counts.count_frame`); a pandas frame stays rows (counted next, by
:func:`fairstats.auditing.rows.prepared_rows`). Missing values are kept on every path: the grouping step names
them, or counts them as unknown where the task allows it. The result, :class:`Input`, names its
:class:`~fairstats.auditing.source.Source` for the messages.

Group columns of a CSV file are read as text, as written (``01`` and ``1``, ``NA`` and ``None`` are groups of
their own). A CSV file is read from one stream, once (``/dev/stdin`` and other pipes work), and a message
names
a row by its physical line (a quoted field holding a line break makes the two differ). Repeated column names
are
kept as read on every path, so that the one rule of :mod:`fairstats.auditing.columns` applies to all of them.
Every failure is an :class:`~fairstats.auditing.AuditError` naming the input.
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._validation import require_flat_columns
from fairstats.auditing.columns import LINES, READ_WARNINGS, input_columns
from fairstats.auditing.errors import AuditError
from fairstats.auditing.grouping import present_iv
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.records import RecordLines, record_starts
from fairstats.auditing.rows import audit_columns
from fairstats.auditing.source import Source, is_parquet
from fairstats.auditing.writing import one_line
from fairstats.counts import COUNT_COLUMN, Counts, column_names, count_frame, parquet_relation, rows_of

__all__ = [
    "Input",
    "Source",
    "read",
    "read_predictions_file",
]

@dataclass(frozen=True)
class Input:
    """What :func:`read` gives: ``rows`` (one per person, or one per distinct combination of the used columns
    with ``weight`` people each), the :class:`Source`, and the categories a table of counts lists with nobody
    (``declared``: column -> values, from its rows with ``n = 0``)."""

    rows: pd.DataFrame
    weight: np.ndarray | None
    source: Source
    declared: dict[str, list] = field(default_factory=dict)


def read(data: object, options: AuditOptions, *, counts: bool = False) -> Input:
    """The input step: ``data`` (a path, or a data frame of any engine, or :class:`fairstats.Counts`) as
    :class:`Input` for the checked ``options``; ``counts``: ``data`` is a file of counts (``--counts``).

    Raises
    ------
    AuditError
        A file that is missing, unreadable or empty, a column the task needs that the input lacks (with the
        closest name), a bad table of counts; named with the input.
    """
    if isinstance(data, str | os.PathLike):
        path = Path(data)
        if counts:
            return _read_counts_file(path, options)
        return _read_file(path, options)
    if counts:
        raise AuditError("--counts names a file; give a frame of counts as fairstats.Counts")
    return _read_frame(data, options)


def _read_file(path: Path, options: AuditOptions) -> Input:
    source = Source.of_file(path)
    if options.per_person or not is_parquet(path):
        rows, weight = _read_rows_or_csv_counted(path, options)
        return Input(rows, weight, source)
    if not path.exists():
        raise AuditError(f"file {str(path)!r} not found")
    try:
        relation = parquet_relation(path)
    except ValueError as err:
        raise AuditError(one_line(err)) from None
    names = [str(c) for c in relation.columns]
    if _parquet_repeats_names(path, audit_columns(options, names)):
        return Input(read_predictions_file(path, text_columns=options.groups + options.search), None, source)
    present_iv(names, options, source)
    try:
        table = count_frame(relation, audit_columns(options, names), where=repr(path.name))
    except Exception as err:  # noqa: BLE001 - DuckDB's errors on a file it cannot scan
        raise AuditError(f"could not read {str(path)!r} as parquet: {one_line(err)}") from None
    if table.empty or int(table[COUNT_COLUMN].sum()) == 0:
        raise AuditError(f"{str(path)!r} has no rows")
    return Input(table.drop(columns=[COUNT_COLUMN]), table[COUNT_COLUMN].to_numpy(), source)


def _read_frame(data: object, options: AuditOptions) -> Input:
    """A data frame given to :func:`fairstats.audit`: pandas as rows; :class:`Counts` as its table; any other
    engine's frame counted (or, where a test needs each person, its used columns collected) in that engine."""
    source = Source(name="the data", kind="frame")
    if isinstance(data, pd.DataFrame):
        try:
            require_flat_columns(data)
        except ValueError as err:
            raise AuditError(str(err)) from None
        if len(data) == 0:
            raise AuditError("`data` has no rows")
        return Input(data, None, source)
    if isinstance(data, Counts):
        if options.per_person:
            raise AuditError(
                f"`data`: {_per_person_words(options)} needs one row per person, not fairstats.Counts"
            )
        table = data.table
        present_iv([str(c) for c in table.columns], options, source)
        source = Source(name="the data", kind="counts")
        return Input(table.drop(columns=[COUNT_COLUMN]), table[COUNT_COLUMN].to_numpy(), source)
    try:
        names = column_names(data)
    except TypeError as err:
        raise AuditError(one_line(err)) from None
    if len(set(names)) != len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise AuditError(f"`data` repeats a column name: {repeated!r}")
    present_iv(names, options, source)
    used = audit_columns(options, names)
    try:
        if options.per_person:
            rows = rows_of(data, used)
            if len(rows) == 0:
                raise AuditError("`data` has no rows")
            return Input(rows, None, source)
        table = count_frame(data, used)
    except (TypeError, ValueError) as err:
        raise AuditError(one_line(err)) from None
    if table.empty or int(table[COUNT_COLUMN].sum()) == 0:
        raise AuditError("`data` has no rows")
    return Input(table.drop(columns=[COUNT_COLUMN]), table[COUNT_COLUMN].to_numpy(),
                 Source(name="the data", kind="frame"))


def _per_person_words(options: AuditOptions) -> str:
    if options.task in ("regression", "monitor"):
        return {"regression": "--task regression", "monitor": "fairstats monitor"}[options.task]
    return "--y-score" if options.y_score is not None else "--fold"


def _read_counts_file(path: Path, options: AuditOptions) -> Input:
    """A table of counts (``--counts``): the columns the task uses and ``n``, the number of people with that
    combination; CSV or parquet. Rows with ``n = 0`` declare categories without anybody (the impact ratios
    list them)."""
    if options.per_person:
        raise AuditError(
            f"--counts: {_per_person_words(options)} needs one row per person (its tests use each person's "
            "row); audit the rows instead"
        )
    if path.is_dir():
        raise AuditError(f"--counts {str(path)!r} is a folder, not a CSV or parquet file")
    table = read_predictions_file(path, text_columns=(*options.groups, *options.search))
    table.columns = [str(c) for c in table.columns]
    source = Source.of_file(path, counts=True)
    present_iv(list(table.columns), options, source)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = input_columns(table, options, source, np.ones(len(table)))
    keys = audit_columns(options, table.columns)
    declared = {}
    zero = pd.to_numeric(table[COUNT_COLUMN], errors="coerce") == 0 if COUNT_COLUMN in table else None
    if zero is not None and zero.any():
        declared = {c: sorted(table[c].dropna().unique().tolist(), key=str) for c in options.groups}
    missing_ok = [c for c in keys if options.missing_as_unknown and c in options.groups]
    try:
        filled = table.copy()
        for c in missing_ok:  # checked by Counts without its missing values, which are kept below
            filled[c] = filled[c].where(filled[c].notna(), "")
        Counts.from_table(filled, keys=keys, where=repr(path.name))
    except ValueError as err:
        raise AuditError(f"--counts: {one_line(err)}") from None
    table = table[table[COUNT_COLUMN].astype(float) > 0].reset_index(drop=True)
    rows = table[keys]
    rows.attrs[READ_WARNINGS] = tuple(
        dict.fromkeys(one_line(w.message) for w in caught if issubclass(w.category, UserWarning))
    )
    return Input(rows, table[COUNT_COLUMN].to_numpy().astype(np.int64), source, declared)


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
        for column in schema:
            kind = column.type
            if column.name in used and (
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


def _read_rows_or_csv_counted(path: Path, options: AuditOptions) -> tuple[pd.DataFrame, np.ndarray | None]:
    """A file's rows; a CSV file counted as it is read when no test needs each person's row, so that a large
    file costs about what pyarrow takes to read it (the checks then see each distinct combination once, with
    its people, and name the line of its first record, as they would on the rows)."""
    text = (*options.groups, *options.search)
    if options.per_person or is_parquet(path):
        return read_predictions_file(path, text_columns=text), None
    if not path.exists():
        raise AuditError(f"file {str(path)!r} not found")
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise AuditError(f"could not read {str(path)!r} as CSV: {one_line(err)}") from None
    found = _count_csv(raw, options, path)
    if found is not None:
        return found
    return read_predictions_file(path, text_columns=text, _raw=raw), None


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
