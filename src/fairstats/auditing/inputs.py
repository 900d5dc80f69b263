"""Reading the audit's input: CSV or parquet files of predictions, tables of counts, DuckDB's counting path.

:func:`read_input` turns ``PREDICTIONS`` (or ``--counts FILE``) into rows and the number of people each stands
for, and names the input in a :class:`Source` that the checks' messages quote. Group columns of a CSV file are
read as text, as written (``01`` and ``1``, ``NA`` and ``None`` are groups of their own). Every failure is an
:class:`~fairstats.auditing.AuditError` naming the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats.auditing.errors import AuditError
from fairstats.auditing.options import AuditOptions
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.reporting import one_line

__all__ = ["Source", "is_parquet", "read_counts_file", "read_input", "read_predictions_file"]


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

    def where(self, position: int, *, counted: bool) -> str:
        """Row ``position`` (0-based) of the input as a message names it: a CSV file's line number."""
        if counted:
            what = "the counts table" if self.kind == "counts" else "the counted rows"
            return f"row {position + 1} of {what} of {self.name}"
        if self.kind in ("parquet", "frame"):
            return f"row {position + 1} of {self.name}"
        return f"line {position + 2} of {self.name}"


def is_parquet(path: Path) -> bool:
    """A parquet file (``.parquet``, ``.pq``) or a folder (of parquet files)."""
    return path.suffix.lower() in (".parquet", ".pq") or path.is_dir()


def _keys(options: AuditOptions, columns: Sequence[str] = ()) -> list[str]:
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
    try:
        return Counts.from_table(table, keys=_keys(options, table.columns), where=repr(path.name))
    except ValueError as err:
        raise AuditError(f"--counts: {one_line(err)}") from None


def _count_parquet(path: Path, options: AuditOptions) -> Counts:
    """A parquet file or folder counted by DuckDB over the audit's columns (bounded memory)."""
    try:
        return Counts.from_parquet(path, columns=_keys(options))
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
    elif is_parquet(path) and path.exists() and options.fold is None and options.y_score is None and not (
        options.where  # the predicates' columns may hold missing values: the rows are read (into memory)
    ):
        table = _count_parquet(path, options)
    else:
        return read_predictions_file(path, text_columns=(*options.groups, *options.search)), None
    return table.table, table.table[COUNT_COLUMN].to_numpy()


def _duplicated_iv(columns: Sequence[object], path: Path) -> None:
    names = [str(c) for c in columns]
    dup = next((c for i, c in enumerate(names) if c in names[:i]), None)
    if dup is not None:
        raise AuditError(f"{str(path)!r}: column name {dup!r} occurs more than once in the header")


def _read_csv(path: Path, text_columns: Sequence[str]) -> pd.DataFrame:
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
    _duplicated_iv(header.iloc[0].tolist() if len(header) else [], path)
    data = pd.read_csv(path)
    text = [c for c in text_columns if c in data.columns]
    if text:  # as written: no number or NA inference ("01" is not "1", "NA" is a group); empty is missing
        raw = pd.read_csv(path, usecols=text, dtype=str, keep_default_na=False, na_values=[""])
        for column in text:
            data[column] = raw[column].astype(object).where(raw[column].notna(), np.nan)
    return data


def read_predictions_file(path: Path, *, text_columns: Sequence[str] = ()) -> pd.DataFrame:
    """Read a CSV or parquet file of predictions; raise :class:`AuditError` naming the file on failure.

    ``text_columns`` of a CSV file are read as text, as written (no number or NA inference; an empty field
    is missing). A header naming a column twice is refused.
    """
    if not path.exists():
        raise AuditError(f"file {str(path)!r} not found")
    if path.is_dir() and not any(path.rglob("*.parquet")):
        raise AuditError(f"{str(path)!r} is a folder without .parquet files, not a CSV or parquet file")
    try:
        if is_parquet(path):
            data = pd.read_parquet(path)
            _duplicated_iv(data.columns, path)
        else:
            data = _read_csv(path, text_columns)
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
