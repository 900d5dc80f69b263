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
from typing import overload

import numpy as np
import pandas as pd

#: Accepted values of ``alternative`` (scipy's vocabulary; the hypothesis is about the first sample minus the
#: second, or a group minus its reference).
ALTERNATIVES = ("two-sided", "less", "greater")


def alternative_iv(alternative: object) -> str:
    """``alternative`` when it is one of :data:`ALTERNATIVES` (``ValueError`` naming it otherwise)."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"`alternative` must be one of {list(ALTERNATIVES)}, got {alternative!r}")
    return str(alternative)


def positive_margin_iv(value: object, name: str = "margin") -> float:
    """``value`` as a positive finite float (a margin on the scale of the outcome, e.g. of a residual)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(float(value)):
        raise ValueError(f"`{name}` must be a positive finite number, got {value!r}")
    if not float(value) > 0:
        raise ValueError(f"`{name}` must be positive, got {value!r}")
    return float(value)


def as_list(value: str | Sequence[str], *, name: str) -> list[str]:
    """Return ``value`` as a list of column names (a single name becomes a one-element list)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"`{name}` must be a column name or a non-empty list of column names, got {value!r}")


def group_pair_iv(groups: object) -> tuple[object, object]:
    """``groups=(a, b)``, the two groups a function of two groups compares: a pair of labels, or TypeError."""
    if isinstance(groups, str) or not isinstance(groups, Sequence) or len(groups) != 2:
        raise TypeError(f"`groups` must be a pair (a, b) of group labels, got {groups!r}")
    return groups[0], groups[1]


@overload
def level_iv(value: object, name: str) -> float: ...
@overload
def level_iv(value: object, name: str, *, none: bool) -> float | None: ...
def level_iv(value: object, name: str, *, none: bool = False) -> float | None:
    """Return ``value`` as a float strictly between 0 and 1: an alpha, a confidence level, a power, a margin
    on rates. The one check of "a level in (0, 1)" (``ValueError`` naming ``name`` and the value); with
    ``none``, None is allowed and returned."""
    if none and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        allowed = " or None" if none else ""
        raise ValueError(f"`{name}` must be a number strictly between 0 and 1{allowed}, got {value!r}")
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


def _fold_values(values: object, *, name: str) -> np.ndarray:
    if isinstance(values, str | bytes):
        raise TypeError(f"`{name}` must be a 1-D array of numbers (one per fold), got a string {values!r}")
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"`{name}` must be a 1-D array of numbers (one per fold); could not convert {values!r} to float"
        ) from None
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D (one value per fold), got shape {arr.shape}")
    inf = np.flatnonzero(np.isinf(arr))
    if inf.size:
        raise ValueError(
            f"`{name}` has an infinite value {float(arr[inf[0]])} at fold {int(inf[0])}; "
            "an undefined per-fold value must be NaN"
        )
    return arr


def fold_pairs_iv(a, b, alternative, alpha, test_train_ratio):
    """Two fold-aligned arrays of per-fold values and the options of a fold t-test (the fold t-test's and the
    fold equivalence test's one check): ``(a, b, a_ok, b_ok, pair_ok, test_train_ratio)``."""
    a = _fold_values(a, name="a")
    b = _fold_values(b, name="b")
    if a.shape != b.shape:
        raise ValueError(
            f"`a` and `b` must be aligned by fold (same length), got {a.shape[0]} and {b.shape[0]} values"
        )
    alternative_iv(alternative)
    level_iv(alpha, "alpha")
    k = a.shape[0]
    if test_train_ratio is None:
        if k < 2:
            raise ValueError(f"`a` and `b` need at least 2 folds, got {k}")
        test_train_ratio = 1.0 / (k - 1)
    elif (
        isinstance(test_train_ratio, bool)
        or not isinstance(test_train_ratio, int | float | np.floating)
        or not np.isfinite(test_train_ratio)
        or test_train_ratio <= 0
    ):
        raise ValueError(
            f"`test_train_ratio` must be a positive finite number or None, got {test_train_ratio!r}"
        )
    a_ok, b_ok = ~np.isnan(a), ~np.isnan(b)
    pair_ok = a_ok & b_ok
    for label, count in (
        ("`a` has", int(a_ok.sum())),
        ("`b` has", int(b_ok.sum())),
        ("`a` and `b` have", int(pair_ok.sum())),
    ):
        if count < 2:
            what = "folds where both are non-NaN" if label.endswith("have") else "non-NaN fold values"
            raise ValueError(f"{label} {count} {what} of {k}; every t-test needs at least 2")
    return a, b, a_ok, b_ok, pair_ok, float(test_train_ratio)
