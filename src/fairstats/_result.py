"""The result base: ``to_record()`` and ``to_frame()`` of every result, written once.

After scipy.stats' ``_result_classes.py``: every public function returns a frozen dataclass with named fields;
this mixin gives each of them the same two views.

- ``to_record()``: a flat ``dict`` (one record): by default every field in field order, except the table
  that ``to_frame`` returns (``_table``) and the fields named in ``_omit`` (further tables, arrays, nested
  results); a class whose record has other columns lists them, fields or properties, in ``_record``.
- ``to_frame()``: a copy of the ``_table`` field for a result that is a table (one row per comparison), or
  one row holding ``to_record()`` for a result that is one test.

A class whose frame is not one of these (the equal confusion test's per-cell table, the t tests' one row per
test) overrides the method; the columns and their order are each class's own and documented there.
``tests/unit/test_one_definition.py`` fails on a second result base.
"""

from __future__ import annotations

from dataclasses import fields
from typing import ClassVar

import pandas as pd

__all__ = ["Result"]


class Result:
    """Mixin for a frozen dataclass result: :meth:`to_record` and :meth:`to_frame`."""

    __slots__ = ()

    #: The field :meth:`to_frame` returns a copy of; ``None``: one row of :meth:`to_record`.
    _table: ClassVar[str | None] = None
    #: Names (fields or properties) of :meth:`to_record`, in order; ``None``: the fields (see ``_omit``).
    _record: ClassVar[tuple[str, ...] | None] = None
    #: Fields left out of the default record (besides ``_table``).
    _omit: ClassVar[tuple[str, ...]] = ()

    def to_record(self) -> dict[str, object]:
        """One flat ``dict``: the fields in field order (without tables), or the class's ``_record``."""
        names = self._record
        if names is None:
            names = tuple(f.name for f in fields(self) if f.name != self._table and f.name not in self._omit)
        return {name: getattr(self, name) for name in names}

    def to_frame(self) -> pd.DataFrame:
        """The result's table (a copy), or one row with the columns of :meth:`to_record`."""
        if self._table is not None:
            return getattr(self, self._table).copy()
        return pd.DataFrame([self.to_record()])
