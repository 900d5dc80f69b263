"""Which input record each row of the audit frame stands for, and the physical line that record starts on.

A message about a row names it as the input does: a CSV file's physical line, a parquet file's or a data
frame's row number. The audit frame's rows are not the input's: ``--where`` drops some and counting
(:mod:`fairstats.auditing.counting`) keeps one row per distinct combination, standing for its first
record. :class:`RecordLines` rides in ``DataFrame.attrs`` (:data:`LINES`) beside the frame and maps a row of
it back to that record: :meth:`RecordLines.take` follows a filter, :meth:`RecordLines.line` gives the line.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence

import numpy as np

from fairstats.auditing.columns import LINES

__all__ = ["LINES", "RecordLines"]


class RecordLines:
    """The input record of each row (``records``; None: row ``i`` is record ``i``) and the physical line on
    which each record starts (``starts``, 1-based, or a function computing them when first needed; None:
    every record is one line, record ``i`` is line ``i + 2``). Compared by identity and never copied, so
    that it can ride in ``DataFrame.attrs``."""

    def __init__(
        self,
        starts: Sequence[int] | Callable[[], Sequence[int] | None] | None = None,
        *,
        records: np.ndarray | None = None,
    ) -> None:
        self._starts = starts if starts is None or callable(starts) else np.asarray(starts, dtype=np.int64)
        self.records = None if records is None else np.asarray(records, dtype=np.int64)

    def record(self, position: int) -> int:
        """The input record (0-based) that row ``position`` of the frame stands for."""
        return int(position if self.records is None else self.records[position])

    def line(self, position: int) -> int:
        """The physical line (1-based) on which the record of row ``position`` starts."""
        record = self.record(position)
        if callable(self._starts):
            found = self._starts()
            self._starts = None if found is None else np.asarray(found, dtype=np.int64)
        return record + 2 if self._starts is None else int(self._starts[record])

    def take(self, positions: np.ndarray) -> RecordLines:
        """The records of the rows ``positions`` (indices, or a boolean mask) of the frame, in that order."""
        positions = np.asarray(positions)
        chosen = np.flatnonzero(positions) if positions.dtype == bool else positions.astype(np.int64)
        if self.records is not None:
            chosen = self.records[chosen]
        out = RecordLines(records=chosen)
        out._starts = self._starts
        return out

    def __deepcopy__(self, memo: dict) -> RecordLines:
        return self

    @classmethod
    def of_text(cls, text: str) -> RecordLines | None:
        """The records' first lines of CSV ``text`` as pandas reads it (blank lines skipped), or None when
        every record is one line (record ``i`` is then line ``i + 2``)."""
        starts = record_starts(text)
        return None if starts is None else cls(starts)


def record_starts(text: str) -> list[int] | None:
    """The physical line (1-based) on which each data record of CSV ``text`` starts (blank lines skipped,
    as pandas and pyarrow skip them), or None when record ``i`` is line ``i + 2`` for every record."""
    reader = csv.reader(io.StringIO(text, newline=""))
    starts, previous = [], 0
    for record in reader:
        if record:
            starts.append(previous + 1)
        previous = reader.line_num
    data = starts[1:]
    if all(line == i + 2 for i, line in enumerate(data)):
        return None
    return data
