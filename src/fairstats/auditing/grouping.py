"""A grouping of the audit as a small value: its columns, its name, and the labels of its groups."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Grouping"]

#: Between the columns of an intersection in its name (``sex x race``), as every audit output writes it.
SEPARATOR = " x "


@dataclass(frozen=True)
class Grouping:
    """One grouping: ``columns`` (one column, or several for their intersection), its ``name`` as the
    outputs show it, and ``labels``, the labels of its groups in the order of the tables (empty until the
    groups are known)."""

    columns: tuple[str, ...]
    labels: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """``race``, or ``sex x race`` for an intersection."""
        return SEPARATOR.join(self.columns)

    @property
    def group(self) -> str | list[str]:
        """The ``group`` argument of the library's functions: the column, or the list of columns."""
        return list(self.columns) if len(self.columns) > 1 else self.columns[0]
