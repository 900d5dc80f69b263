"""Deprecated (until 0.4): the equal confusion test at scale is :class:`fairstats.ContingencyTable`'s.

The table of integer codes is :meth:`fairstats.ContingencyTable.from_codes` (cells from
:meth:`fairstats.ContingencyTable.binary_cell_codes`), the table of a parquet file or folder
:meth:`fairstats.ContingencyTable.from_parquet`, and the test over either
:func:`fairstats.equal_confusion_test`.
The four functions below give what those calls give, with a :class:`DeprecationWarning` naming them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from fairstats._contingency import BINARY_CELLS, DEFAULT_CHUNK_SIZE, ContingencyTable
from fairstats._deprecation import superseded
from fairstats.confusion import EqualConfusionResult, equal_confusion_test

__all__ = ["DEFAULT_CHUNK_SIZE"]


@superseded
def binary_cell_codes(y_true: object, *, y_pred: object) -> np.ndarray:
    """Deprecated (until 0.4): :meth:`fairstats.ContingencyTable.binary_cell_codes`, the same codes."""
    return ContingencyTable.binary_cell_codes(y_true, y_pred=y_pred)


@superseded
def confusion_table_from_codes(
    group_codes: np.ndarray,
    cell_codes: np.ndarray,
    *,
    groups: int | Sequence[object],
    cells: int | Sequence[tuple[object, object, object]] = BINARY_CELLS,
    group: str = "group",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> pd.DataFrame:
    """Deprecated (until 0.4): ``ContingencyTable.from_codes(...).frame()``, the same table."""
    return ContingencyTable.from_codes(
        group_codes, cell_codes, groups=groups, cells=cells, group=group, chunk_size=chunk_size
    ).frame()


@superseded
def confusion_table_parquet(
    path: str | os.PathLike, *, group: str | Sequence[str], y_true: str, y_pred: str
) -> pd.DataFrame:
    """Deprecated (until 0.4): ``ContingencyTable.from_parquet(...).frame()``, the same table."""
    return ContingencyTable.from_parquet(path, group=group, y_true=y_true, y_pred=y_pred).frame()


@superseded
def equal_confusion_test_parquet(
    path: str | os.PathLike,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    alpha: float = 0.05,
    posthoc_alpha: float = 0.05,
    posthoc_strict_alpha: float = 0.001,
    n_resamples: int = 9999,
    permutation: Literal["auto", "always", "never"] = "auto",
    rng: int | np.random.Generator | None = None,
) -> EqualConfusionResult:
    """Deprecated (until 0.4): ``equal_confusion_test(ContingencyTable.from_parquet(path, ...), ...)``, the
    same result."""
    return equal_confusion_test(
        ContingencyTable.from_parquet(path, group=group, y_true=y_true, y_pred=y_pred),
        alpha=alpha,
        posthoc_alpha=posthoc_alpha,
        posthoc_strict_alpha=posthoc_strict_alpha,
        n_resamples=n_resamples,
        permutation=permutation,
        rng=rng,
    )
