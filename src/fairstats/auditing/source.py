"""Where the audit's data came from, as its messages and its report name it: :class:`Source`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fairstats.auditing.records import RecordLines

__all__ = ["Source", "is_parquet"]


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
