"""Small input checks shared by the public functions, and the validated table they pass inward.

Each public function validates its input in a private ``_<name>_iv`` helper that calls these. Messages name
the parameter, the column and the offending value, so that a user can fix the input without reading code.

Data are checked once, where they enter the library: :func:`checked_frame` turns the user's DataFrame into a
:class:`CheckedFrame` (not empty; the named columns present, with no missing value), and a function that
calls other library functions on the same data passes that value, not the bare frame. The functions inside
then find their columns already checked and skip the checks (one audit used to check the same columns for
NaN at every layer: the audit, the outcome tests, the bootstrap, the group metrics, the confusion table).
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd


def as_list(value: str | Sequence[str], *, name: str) -> list[str]:
    """Return ``value`` as a list of column names (a single name becomes a one-element list)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"`{name}` must be a column name or a non-empty list of column names, got {value!r}")


def level_iv(value: object, name: str) -> float:
    """Return ``value`` as a float strictly between 0 and 1 (a confidence level or an alpha)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        raise ValueError(f"`{name}` must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


@dataclass(frozen=True, eq=False)
class CheckedFrame:
    """A DataFrame already checked at the library's boundary.

    Attributes
    ----------
    frame : pandas.DataFrame
        The user's data, not copied and not changed; at least one row.
    complete : frozenset of str
        Columns known to exist in ``frame`` with no missing value.
    """

    frame: pd.DataFrame
    complete: frozenset[str]


def checked_frame(
    data: object, columns: Iterable[str], *, name: str = "data", where: str | None = None
) -> CheckedFrame:
    """Check ``data`` (a DataFrame, or a :class:`CheckedFrame` from an outer call) for ``columns``.

    A :class:`CheckedFrame` whose ``complete`` columns include ``columns`` is returned as it is, unchecked
    again; otherwise only the columns not yet checked are (``require_columns``, ``require_no_nan``).
    Messages name ``where`` (default: the parameter ``name`` in backquotes).
    """
    where = f"`{name}`" if where is None else where
    if isinstance(data, CheckedFrame):
        frame, done = data.frame, data.complete
    else:
        frame, done = require_frame(data, name=name), frozenset()
    todo = [c for c in dict.fromkeys(columns) if c not in done]
    if not todo and isinstance(data, CheckedFrame):
        return data
    require_columns(frame, todo, where=where)
    require_no_nan(frame, todo, where=where)
    return CheckedFrame(frame, done | frozenset(todo))


def require_frame(data: object, *, name: str = "data") -> pd.DataFrame:
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"`{name}` must be a pandas DataFrame, got {type(data).__name__}")
    require_flat_columns(data, name=name)
    if len(data) == 0:
        raise ValueError(f"`{name}` is empty (0 rows)")
    return data


def require_flat_columns(data: pd.DataFrame, *, name: str = "data") -> None:
    """Raise ``ValueError`` for columns of several levels (a pandas MultiIndex): a column is named by one
    name, and a level's name alone may repeat or name another column."""
    if isinstance(data.columns, pd.MultiIndex):
        raise ValueError(
            f"`{name}` has columns of {data.columns.nlevels} levels (a pandas MultiIndex, the first "
            f"{data.columns[0]!r}); give each column one name, e.g. data.columns = ['_'.join(map(str, c)) "
            "for c in data.columns]"
        )


def require_columns(data: pd.DataFrame, columns: Iterable[str], *, where: str = "data") -> None:
    """Raise ``KeyError``-like ``ValueError`` naming each missing column and the closest existing name."""
    missing = [c for c in columns if c not in data.columns]
    if not missing:
        return
    hints = []
    for c in missing:
        close = difflib.get_close_matches(c, [str(x) for x in data.columns], n=1)
        hints.append(f"{c!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise ValueError(f"{where}: missing column(s) {', '.join(hints)}")


def require_no_nan(data: pd.DataFrame, columns: Iterable[str], *, where: str = "data") -> None:
    """Raise ``ValueError`` naming the first column with missing values, how many, and the first row."""
    for c in columns:
        isna = data[c].isna().to_numpy()
        if isna.any():
            first = data.index[np.flatnonzero(isna)[0]]
            raise ValueError(
                f"{where}: column {c!r} has {int(isna.sum())} missing value(s) (NaN), first at row {first!r}"
            )
