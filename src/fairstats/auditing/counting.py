"""Rows to distinct combinations, once: each column's codes, one code per combination, people per code.

Every test of a two-level or multi-level audit without ``--y-score`` and ``--fold`` depends on the people
only through the number with each combination of the columns it reads (:mod:`fairstats.counts`). Rows of
any reader (a CSV file, parquet files read row by row, a pandas frame given to :func:`fairstats.audit`) are
therefore counted here before anything is checked or computed, so that the same people give the same
numbers whichever reader brought them:

* each column is coded once (:func:`pandas.factorize`; a CSV file's text columns by pyarrow's
  ``dictionary_encode``), the codes are combined into one code per distinct combination (mixed radix,
  re-coded by :func:`pandas.factorize` before it could overflow), and the people are counted with
  :func:`numpy.bincount`;
* the combinations keep the order of their first row, and each stands for that row: the row itself (every
  value as the reader gave it) is the combination's row of the counted frame, and the frame's
  :class:`~fairstats.auditing.records.RecordLines` names it, so that a message about the first bad value
  names the same line or row as it would on the rows themselves (the first bad combination is the one whose
  first row comes first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from fairstats.auditing.records import LINES, RecordLines

__all__ = ["count_codes", "count_rows", "counted_columns", "first_rows", "people_in"]

_LIMIT = 2**62  # combined codes stay below this (int64)


def counted_columns(names: Sequence[str], used: Sequence[str]) -> list[int]:
    """Positions of the columns counted over: those the audit uses and every copy of a repeated name
    (whose copies :mod:`fairstats.auditing.columns` compares, used or not)."""
    wanted = set(used)
    repeated = {n for n, k in Counter(names).items() if k > 1}
    return [i for i, n in enumerate(names) if n in wanted or n in repeated]


def first_rows(combined: np.ndarray) -> np.ndarray:
    """The position of each combination's first row (codes numbered in order of first occurrence)."""
    if len(combined) == 0:
        return np.zeros(0, dtype=np.int64)
    running = np.maximum.accumulate(combined)
    new = np.empty(len(combined), dtype=bool)
    new[0] = True
    new[1:] = running[1:] > running[:-1]
    return np.flatnonzero(new)


def count_codes(codes: Sequence[np.ndarray], sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(first, people)`` of the distinct combinations of the column codes (``codes[j]`` in
    ``range(sizes[j])``, one per row), in the order in which they first occur: the position of each one's
    first row and its number of rows.

    The codes are combined into one integer per row (mixed radix; re-coded by :func:`pandas.factorize`
    before the product of the sizes could overflow int64). When that integer has few possible values (at
    most twice the number of rows), :func:`numpy.bincount` counts them and ``numpy.minimum.at`` finds each
    one's first row; otherwise :func:`pandas.factorize` numbers them in order of first occurrence.
    """
    n = len(codes[0]) if codes else 0
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for column, size in zip(codes, sizes, strict=True):
        size = max(int(size), 1)
        if span * size >= _LIMIT:
            key, uniques = pd.factorize(key)
            span = max(len(uniques), 1)
        key = key * size + column.astype(np.int64, copy=False)
        span *= size
    if span <= max(2 * n, 1 << 16):
        people = np.bincount(key, minlength=span)
        first = np.full(span, n, dtype=np.int64)
        np.minimum.at(first, key, np.arange(n, dtype=np.int64))
        present = np.flatnonzero(people)
        order = np.argsort(first[present], kind="stable")
        return first[present][order], people[present][order].astype(np.int64)
    combined, _ = pd.factorize(key)  # numbered in order of first occurrence
    return first_rows(combined), np.bincount(combined).astype(np.int64)


def count_rows(data: pd.DataFrame, used: Sequence[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """``(combinations, people)``: the first row of each distinct combination of the ``used`` columns (and
    of every copy of a repeated column name) of rows ``data``, in order of first occurrence, and the number
    of rows with it. Missing values are a value of their own. The combinations' ``attrs`` keep ``data``'s,
    with :data:`~fairstats.auditing.records.LINES` naming each combination's first row."""
    names = [str(c) for c in data.columns]
    keep = counted_columns(names, used)
    codes, sizes = [], []
    for i in keep:
        column, uniques = pd.factorize(data.iloc[:, i], use_na_sentinel=False)
        codes.append(column)
        sizes.append(len(uniques))
    first, people = count_codes(codes, sizes)
    out = data.iloc[first, keep].reset_index(drop=True)
    out.attrs = dict(data.attrs)
    lines = data.attrs.get(LINES)
    out.attrs[LINES] = (lines if lines is not None else RecordLines()).take(first)
    return out, people


def people_in(mask: np.ndarray, weight: np.ndarray | None) -> int:
    """The number of people in the rows ``mask`` (``weight``: people per row of counted rows, None: one)."""
    return int(mask.sum()) if weight is None else int(np.asarray(weight)[mask].sum())
