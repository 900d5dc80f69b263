r"""Sufficient statistics: every test of fairstats depends on the people only through counts.

The equal confusion test needs the group x confusion-cell table; the rate comparisons and their bootstrap
the same counts per group; the score metrics the counts per distinct score. :class:`Counts` holds exactly
that: one row per distinct combination of the columns a test uses (groups, fold, ``y_true``, ``y_pred``,
score) and the number of people ``n`` who have it.
It is built from rows once, inside the engine that holds them:

* :meth:`Counts.from_frame` takes a pandas, polars (eager or lazy), pyarrow (table or dataset), DuckDB or
  Spark frame through `narwhals <https://narwhals-dev.github.io/narwhals/>`_; the ``GROUP BY`` runs in that
  engine (lazily where it is lazy) and only the counts come back;
* :meth:`Counts.from_parquet` scans a parquet file or a folder of parquet files with DuckDB, in bounded
  memory;
* :meth:`Counts.from_table` checks a table of counts made elsewhere (e.g. one SQL ``GROUP BY`` in a
  warehouse; ``fairstats audit --counts``).

Every function that takes ``data`` (:meth:`fairstats.ContingencyTable.from_frame`,
:func:`fairstats.equal_confusion_test`, :func:`fairstats.bootstrap_cramers_v`,
:func:`fairstats.bootstrap_disparity`, :func:`fairstats.outcome_tests`) accepts a :class:`Counts` or any of
those frames, and gives the result it gives on the same rows as a pandas DataFrame. The bootstraps resample
each group's counts, :math:`\mathrm{Multinomial}(n_g, c_{gu} / n_g)` over the group's categories :math:`u`
(the distribution of the counts when :math:`n_g` people are drawn with replacement), so they cost the same for
10³ or 10⁹ people.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._validation import CheckedFrame

__all__ = ["COUNT_COLUMN", "Counts", "as_rows", "column_names", "count_frame", "parquet_relation", "rows_of"]

#: Name of the count column of :class:`Counts` tables and of ``fairstats audit --counts`` files.
COUNT_COLUMN = "n"
#: The most people a :class:`Counts` holds: every integer up to it is exact in float64, where the tests
#: compute (a larger total would be rounded, or wrap around in int64).
MAX_PEOPLE = 2**53 - 1


def _columns_iv(columns: object) -> list[str]:
    if isinstance(columns, str):
        columns = [columns]
    if not isinstance(columns, Sequence) or not columns or not all(isinstance(c, str) for c in columns):
        raise TypeError(f"`columns` must be a non-empty list of column names, got {columns!r}")
    columns = list(dict.fromkeys(columns))
    if COUNT_COLUMN in columns:
        raise ValueError(f"`columns`: {COUNT_COLUMN!r} is the count column and cannot be a key")
    return columns


def _missing_iv(table: pd.DataFrame, where: str) -> None:
    """Missing keys: rows of people with a missing value, named with their number."""
    for column in table.columns:
        if column == COUNT_COLUMN:
            continue
        isna = table[column].isna().to_numpy()
        if isna.any():
            people = int(table.loc[isna, COUNT_COLUMN].sum())
            raise ValueError(f"{where}: column {column!r} has {people} missing value(s) (NaN)")


def _nested_iv(table: pd.DataFrame, where: str) -> None:
    """Key columns holding lists, arrays, structs or maps: refused, naming the column (one value a row)."""
    for column in table.columns:
        if column == COUNT_COLUMN or not pd.api.types.is_object_dtype(table[column]):
            continue
        for value in table[column]:
            if isinstance(value, list | tuple | np.ndarray | dict | set):
                kind = "a struct or map" if isinstance(value, dict) else "a list"
                raise ValueError(
                    f"{where}: column {column!r} holds {kind} ({type(value).__name__}); a key column holds "
                    "one value per row (text, a number, a date): flatten it first"
                )


def duckdb_utc():
    """A DuckDB connection whose clock is UTC: a timestamp with a zone becomes the same text, date and hour on
    every machine (DuckDB's default is the machine's zone); one without a zone is read as UTC."""
    import duckdb

    connection = duckdb.connect()
    connection.execute("SET TimeZone = 'UTC'")
    return connection


def _native(data: object) -> object:
    """A pyarrow dataset as a lazy DuckDB relation (narwhals reads tables, not datasets)."""
    try:
        import pyarrow.dataset as ds
    except ImportError:  # pragma: no cover - pyarrow is a core dependency
        return data
    if isinstance(data, ds.Dataset):
        return duckdb_utc().from_arrow(data)
    return data


def _narwhals(data: object, where: str):
    import narwhals.stable.v2 as nw

    try:
        return nw.from_native(_native(data))
    except TypeError:
        raise TypeError(
            f"{where} must be a data frame (pandas, polars, pyarrow, DuckDB, Spark, ...) or Counts, got "
            f"{type(data).__name__}"
        ) from None


def column_names(data: object, *, where: str = "`data`") -> list[str]:
    """The column names of any data frame narwhals reads (pandas, polars, pyarrow, DuckDB, Spark), as text;
    ``TypeError`` naming ``where`` for anything else."""
    return [str(c) for c in _narwhals(data, where).columns]


def count_frame(data: object, columns: Sequence[str], *, where: str = "`data`") -> pd.DataFrame:
    """``SELECT columns, count(*) AS n ... GROUP BY columns`` inside the frame's own engine, missing values
    kept as a value of their own (a :class:`Counts` refuses them; a caller that allows them, such as the
    impact ratios' unknown category, counts with this). ``ValueError`` naming a missing column."""
    import narwhals.stable.v2 as nw

    frame = _narwhals(data, where)
    names = list(frame.columns)
    missing = [c for c in columns if c not in names]
    if missing:
        raise ValueError(f"{where}: missing column(s) {missing!r}; it has {names[:12]!r}")
    counted = frame.group_by(*columns, drop_null_keys=False).agg(nw.len().alias(COUNT_COLUMN))
    if isinstance(counted, nw.LazyFrame):
        counted = counted.collect()
    table = counted.to_pandas()
    table[COUNT_COLUMN] = table[COUNT_COLUMN].astype(np.int64)
    return table


def rows_of(data: object, columns: Sequence[str], *, where: str = "`data`") -> pd.DataFrame:
    """The ``columns`` of every row of any data frame as a pandas frame (a lazy engine runs the selection and
    only those columns leave it): for the tests that need each person's row."""
    import narwhals.stable.v2 as nw

    frame = _narwhals(data, where)
    names = list(frame.columns)
    missing = [c for c in columns if c not in names]
    if missing:
        raise ValueError(f"{where}: missing column(s) {missing!r}; it has {names[:12]!r}")
    selected = frame.select(*columns)
    if isinstance(selected, nw.LazyFrame):
        selected = selected.collect()
    return selected.to_pandas()


def parquet_relation(path: str | os.PathLike):
    """A DuckDB relation over a parquet file, or a folder of parquet files (searched recursively): nothing is
    read until it is queried. ``ValueError`` naming the path for a missing, empty or unreadable input."""
    import duckdb

    path = Path(path)
    if path.is_dir():
        files = sorted(str(p) for p in path.rglob("*") if p.suffix.lower() in (".parquet", ".pq"))
        if not files:
            raise ValueError(f"{str(path)!r}: folder holds no .parquet files")
    elif path.is_file():
        files = [str(path)]
    else:
        raise ValueError(f"{str(path)!r}: no such parquet file or folder")
    try:
        return duckdb_utc().read_parquet(files)
    except duckdb.Error as error:
        message = " ".join(str(error).split())
        raise ValueError(f"could not read {str(path)!r} as parquet: {message}") from None


@dataclass(frozen=True)
class Counts:
    """How many people have each combination of the columns a test uses: the sufficient statistics.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per distinct combination of ``keys`` (sorted by them when they sort) and the column ``n``
        (int64, > 0) of people with it.
    keys : tuple of str
        The columns counted over (groups, fold, ``y_true``, ``y_pred``, score: whatever was asked).
    source : str
        Where the counts come from, for messages.

    Notes
    -----
    A test that uses columns :math:`K' \\subseteq K` needs only :math:`\\sum` of ``n`` over the other keys,
    so one :class:`Counts` over all the columns an audit uses serves every test of it. The size of ``table``
    is the number of distinct combinations (groups x folds x label pairs x distinct scores), not of people.
    """

    table: pd.DataFrame
    keys: tuple[str, ...]
    source: str = "counts"

    @property
    def n(self) -> int:
        """Number of people."""
        return int(self.table[COUNT_COLUMN].sum())

    def to_frame(self) -> pd.DataFrame:
        """The table (keys and ``n``), a copy."""
        return self.table.copy()

    def select(self, columns: Sequence[str]) -> Counts:
        """The counts over ``columns`` only (``n`` summed over the other keys)."""
        columns = _columns_iv(columns)
        missing = [c for c in columns if c not in self.keys]
        if missing:
            raise ValueError(f"{self.source}: missing column(s) {missing!r}; it counts {list(self.keys)!r}")
        return aggregated(self.table, columns, source=self.source)

    @classmethod
    def from_frame(cls, data: object, *, columns: Sequence[str], where: str = "`data`") -> Counts:
        """Count the distinct combinations of ``columns`` in any data frame, inside its engine.

        Parameters
        ----------
        data : data frame
            pandas, polars ``DataFrame``/``LazyFrame``, pyarrow ``Table``/``Dataset``, DuckDB relation,
            PySpark ``DataFrame`` (anything `narwhals` reads), one row per person.
        columns : list of str, keyword-only
            Columns to count over.
        where : str, keyword-only
            Name of the input in messages.

        Returns
        -------
        Counts

        Raises
        ------
        ValueError
            Missing column, missing values (NaN/null) in a column, no rows.
        TypeError
            ``data`` not a data frame.

        Notes
        -----
        One ``group_by(columns).agg(len())`` in the frame's engine: lazy frames (polars, DuckDB, Spark) run it
        when collected, so only the counts leave the engine. Memory and time beyond the engine's scan grow
        with the number of distinct combinations, not of rows.
        """
        if isinstance(data, Counts):
            return data.select(columns)
        columns = _columns_iv(columns)
        table = count_frame(data, columns, where=where)
        if table.empty or int(table[COUNT_COLUMN].sum()) == 0:
            raise ValueError(f"{where} is empty (0 rows)")
        _missing_iv(table, where)
        _nested_iv(table, where)
        return aggregated(table, columns, source=where)

    @classmethod
    def from_parquet(cls, path: str | os.PathLike, *, columns: Sequence[str]) -> Counts:
        """Count a parquet file, or a folder of parquet files (searched recursively), with DuckDB.

        DuckDB scans the files in a streaming hash aggregate (bounded memory, all cores); only the counts
        come back. Raises ``ValueError`` naming the path for a missing, empty or unreadable file.
        """
        return cls.from_frame(parquet_relation(path), columns=columns, where=repr(str(Path(path))))

    @classmethod
    def from_table(
        cls, table: pd.DataFrame, *, keys: Sequence[str], where: str = "`table`"
    ) -> Counts:
        """Check a table of counts made elsewhere: the ``keys`` columns and an integer column ``n`` >= 0.

        Rows that repeat a combination are added up; rows with ``n = 0`` are dropped.

        Raises
        ------
        ValueError
            Missing column, missing key value, ``n`` missing, negative or not a whole number (named with its
            row), more than :data:`MAX_PEOPLE` people in all (the sum compared exactly, the largest count
            named with its row), or no people at all.
        """
        if not isinstance(table, pd.DataFrame):
            raise TypeError(f"{where} must be a pandas DataFrame, got {type(table).__name__}")
        keys = _columns_iv(keys)
        missing = [c for c in [*keys, COUNT_COLUMN] if c not in table.columns]
        if missing:
            raise ValueError(
                f"{where}: missing column(s) {missing!r}; a counts table has the key columns and "
                f"{COUNT_COLUMN!r} (the number of people); it has {[str(c) for c in table.columns][:12]!r}"
            )
        counts = table[COUNT_COLUMN]
        if pd.api.types.is_bool_dtype(counts) or not pd.api.types.is_numeric_dtype(counts):
            raise ValueError(f"{where}: column {COUNT_COLUMN!r} must hold whole numbers, got {counts.dtype}")
        values = counts.to_numpy(dtype=float)
        for bad, what in (
            (np.isnan(values), "a missing count"),
            (values < 0, "a negative count"),
            (np.isinf(values) | (values != np.round(values)), "a count that is not a whole number"),
        ):
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"{where}: column {COUNT_COLUMN!r} has {what}, {counts.iloc[i]}, on row {i + 1}"
                )
        # math.fsum rounds the exact sum once; every integer below 2**53 is a float64: an exact comparison
        if math.fsum(values) > MAX_PEOPLE:
            big = int(np.argmax(values))
            raise ValueError(
                f"{where}: column {COUNT_COLUMN!r} adds up to more than {MAX_PEOPLE:,} people "
                f"(2**53 - 1, the most the tests count exactly in float64); its largest count is "
                f"{counts.iloc[big]} on row {big + 1}"
            )
        frame = table[keys].copy()
        frame[COUNT_COLUMN] = values.astype(np.int64)
        if int(frame[COUNT_COLUMN].sum()) == 0:
            raise ValueError(f"{where}: column {COUNT_COLUMN!r} counts no people")
        _missing_iv(frame, where)
        _nested_iv(frame, where)
        return aggregated(frame, keys, source=where)


def as_rows(data: object, columns: Sequence[str], *, where: str = "`data`") -> tuple[pd.DataFrame, object]:
    """``(frame, weight)`` for the row-based code: a pandas frame as it is (``weight`` None), anything else
    counted over ``columns`` (a :class:`Counts` or a frame of another engine), its rows weighted by ``n``.
    A :class:`fairstats._validation.CheckedFrame` (a pandas frame checked once, passed inward) is rows too."""
    if isinstance(data, pd.DataFrame | CheckedFrame):
        return data, None
    counts = Counts.from_frame(data, columns=list(dict.fromkeys(columns)), where=where)
    return counts.table, counts.table[COUNT_COLUMN].to_numpy()


def aggregated(table: pd.DataFrame, columns: list[str], *, source: str) -> Counts:
    """``table``'s counts (column ``n``) added up over ``columns``, without checking ``table`` again: for a
    table whose columns and counts are already checked (every constructor of :class:`Counts`, and the audit's
    prepared rows). Rows of no people are dropped; the combinations are sorted when their values sort."""
    summed = table.groupby(columns, sort=False, dropna=False, observed=True)[COUNT_COLUMN].sum()
    out = summed.reset_index()
    out = out[out[COUNT_COLUMN] > 0]
    try:
        out = out.sort_values(columns, kind="stable")
    except TypeError:  # mixed types: keep the engine's order; the tests sort labels themselves
        pass
    out = out.reset_index(drop=True)
    out[COUNT_COLUMN] = out[COUNT_COLUMN].astype(np.int64)
    return Counts(table=out, keys=tuple(columns), source=source)
