"""The compendium's own checks of the tables it reads and builds (the papers' files, the workflow's tables).

The fairstats library validates the data handed to it itself, once, where they enter it; its checks are
private to it. These are the compendium's: messages name the file or argument, the column and the value.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd


def require_table(
    data: object, columns: Iterable[str] = (), *, where: str, nonempty: bool = False, complete: bool = False
) -> pd.DataFrame:
    """Return ``data`` if it is a DataFrame with ``columns`` (``nonempty``: at least one row; ``complete``: no
    missing value in ``columns``); raise ``TypeError``/``ValueError`` naming ``where`` and the column."""
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"{where} must be a pandas DataFrame, got {type(data).__name__}")
    if nonempty and len(data) == 0:
        raise ValueError(f"{where} is empty (0 rows)")
    columns = list(columns)
    missing = [repr(c) for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"{where}: missing column(s) {', '.join(missing)}")
    if complete:
        nan = data[columns].isna().sum()
        nan = nan[nan > 0]
        if len(nan):
            column, count = nan.index[0], int(nan.iloc[0])
            raise ValueError(f"{where}: column {column!r} has {count} missing value(s) (NaN)")
    return data


def require_values(data: pd.DataFrame, column: str, allowed: Iterable[object], *, where: str) -> None:
    """Raise ``ValueError`` naming the column and the first value outside ``allowed``."""
    allowed = list(allowed)
    bad = ~data[column].isin(allowed)
    if bad.any():
        value, expected = data.loc[bad, column].iloc[0], sorted(map(str, allowed))
        raise ValueError(
            f"{where}: column {column!r} has value {value!r} outside the expected set {expected}"
        )
