"""Equal confusion test at scale: contingency tables from integer codes, and streamed from parquet files.

:func:`fairstats.confusion.equal_confusion_test` takes a DataFrame with one row per person; at 10⁸ people the
DataFrame itself, and pandas' factorising of its columns, need several GiB. The test only needs the
contingency matrix ``O`` (q groups x r confusion cells), so this module builds ``O`` without a per-person
frame and then runs the same test on it:

* :func:`binary_cell_codes` turns 0/1 ``y_true``/``y_pred`` arrays into cell codes 0-3 (``TP, FN, FP, TN``,
  paper A's order, as :func:`~fairstats.confusion.confusion_table` uses);
* :func:`confusion_table_from_codes` counts (group code, cell code) pairs with :func:`numpy.bincount` over
  fixed-size chunks, so the memory beyond the input is a fixed buffer plus O(q r), whatever the number of
  rows;
* :func:`confusion_table_parquet` counts a parquet file or folder with DuckDB
  (:meth:`fairstats.Counts.from_parquet`), for data larger than memory;
* :func:`equal_confusion_test_parquet` chains the streaming table and
  :func:`fairstats.confusion.equal_confusion_test_table`, the equal confusion test on a counted table (which
  takes the tables of either function).

The tables are labelled exactly as :func:`fairstats.confusion.confusion_table` labels them (same group and
cell order, same notes about empty groups and cells), so the results equal the DataFrame path's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from fairstats._contingency import BINARY_CELLS, column_names_iv, drop_empty
from fairstats.confusion import EqualConfusionResult, confusion_table, equal_confusion_test_table
from fairstats.counts import Counts

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "binary_cell_codes",
    "confusion_table_from_codes",
    "confusion_table_parquet",
    "equal_confusion_test_parquet",
]

#: Rows per chunk of :func:`confusion_table_from_codes` (fits in the CPU cache with its intp copy).
DEFAULT_CHUNK_SIZE = 1 << 16


# --------------------------------------------------------------------------------------------------------
# integer codes
# --------------------------------------------------------------------------------------------------------


def _integer_array(values: object, *, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"`{name}` is empty (0 rows)")
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"`{name}` must hold integer codes, got dtype {array.dtype}")
    return array


def _binary_cell_codes_iv(y_true: object, y_pred: object) -> tuple[np.ndarray, np.ndarray]:
    yt = np.asarray(y_true)
    yp = np.asarray(y_pred)
    for name, array in (("y_true", yt), ("y_pred", yp)):
        if array.dtype != bool:
            _integer_array(array, name=name)
            bad = (array != 0) & (array != 1)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"`{name}` must be binary (0/1), found {array[i].item()!r} at position {i}")
        elif array.ndim != 1 or array.size == 0:
            raise ValueError(f"`{name}` must be a non-empty one-dimensional array, got shape {array.shape}")
    if yt.shape != yp.shape:
        raise ValueError(f"`y_true` and `y_pred` differ in length: {yt.size} and {yp.size}")
    return yt, yp


def binary_cell_codes(y_true: object, *, y_pred: object) -> np.ndarray:
    """Confusion cell code of each person from binary labels: 0 = TP, 1 = FN, 2 = FP, 3 = TN.

    Parameters
    ----------
    y_true : array_like of int or bool, shape (n,)
        True labels, 0/1.
    y_pred : array_like of int or bool, shape (n,), keyword-only
        Predicted labels, 0/1.

    Returns
    -------
    numpy.ndarray of int8, shape (n,)
        ``2 (1 - y_true) + (1 - y_pred)``: the index of the person's cell in
        :data:`fairstats.confusion.BINARY_CELLS` (paper A's order ``TP, FN, FP, TN``).

    Raises
    ------
    ValueError
        Lengths differ, arrays empty or not 1-D, or a label other than 0/1 (named with its position).
    TypeError
        Labels that are not integers or booleans.

    Examples
    --------
    >>> binary_cell_codes([1, 1, 0, 0], y_pred=[1, 0, 1, 0]).tolist()
    [0, 1, 2, 3]
    """
    yt, yp = _binary_cell_codes_iv(y_true, y_pred)
    codes = np.subtract(1, yt, dtype=np.int8)
    codes *= 2
    codes += 1
    codes -= yp.astype(np.int8, copy=False)
    return codes


def _labels_iv(value: object, *, name: str) -> list:
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        if value < 1:
            raise ValueError(f"`{name}` must be a positive count or a sequence of labels, got {value!r}")
        return list(range(int(value)))
    if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray | pd.Index) or len(value) == 0:
        raise TypeError(f"`{name}` must be a positive count or a non-empty sequence of labels, got {value!r}")
    labels = list(value)
    if len(set(map(repr, labels))) != len(labels):
        raise ValueError(f"`{name}` repeats a label: {labels!r}")
    return labels


def _cells_iv(cells: object) -> list[tuple[object, object, object]]:
    """``cells`` as (label, y_pred, y_true) triples; a count r gives labels 0..r-1 without a key."""
    if isinstance(cells, int | np.integer) and not isinstance(cells, bool):
        return [(label, None, None) for label in _labels_iv(cells, name="cells")]
    rows = _labels_iv(cells, name="cells")
    out = []
    for row in rows:
        if isinstance(row, tuple) and len(row) == 3:
            out.append(row)
        else:
            out.append((row, None, None))
    return out


def _range_iv(codes: np.ndarray, size: int, *, name: str, what: str) -> None:
    low, high = codes.min(), codes.max()
    if low < 0 or high >= size:
        bad = (codes < 0) | (codes >= size)
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"`{name}` must be codes 0..{size - 1} (one per {what}), "
            f"found {codes[i].item()!r} at position {i}"
        )


def _count_codes(
    group_codes: np.ndarray, cell_codes: np.ndarray, q: int, r: int, chunk_size: int
) -> np.ndarray:
    """Counts of (group, cell) pairs, shape (q, r): one bincount per chunk of ``group * r + cell``."""
    size = q * r
    dtype = (
        np.int8 if size <= np.iinfo(np.int8).max else np.int16 if size <= np.iinfo(np.int16).max else np.intp
    )
    n = group_codes.size
    counts = np.zeros(size, dtype=np.int64)
    buffer = np.empty(min(chunk_size, n), dtype=dtype)
    for start in range(0, n, chunk_size):
        g = group_codes[start : start + chunk_size]
        combined = buffer[: g.size]
        np.multiply(g, r, out=combined, dtype=dtype, casting="unsafe")  # codes checked: no overflow
        np.add(combined, cell_codes[start : start + chunk_size], out=combined, dtype=dtype, casting="unsafe")
        counts += np.bincount(combined, minlength=size)
    return counts.reshape(q, r)


def _labelled_table(
    counts: np.ndarray,
    group_labels: list,
    cells: list[tuple[object, object, object]],
    *,
    group_columns: Sequence[str],
    notes: Sequence[str] = (),
) -> pd.DataFrame:
    """Drop empty groups and cells (with notes) and label the table as ``confusion_table`` does."""
    out, kept_cells, new_notes = drop_empty(
        counts,
        group_labels,
        cells,
        group_columns=group_columns,
        single_group_where="with cases",
        few_cells_head="fewer than two outcome cells have cases",
    )
    notes = [*notes, *new_notes]
    out.attrs["notes"] = notes
    out.attrs["cells"] = [{"cell": c, "y_pred": p, "y_true": t} for c, p, t in kept_cells]
    out.attrs["group_columns"] = list(group_columns)
    return out


def _table_from_codes_iv(group_codes, cell_codes, groups, cells, group, chunk_size):
    if not isinstance(group, str):
        raise TypeError(f"`group` must be the name of the sensitive attribute (str), got {group!r}")
    group_codes = _integer_array(group_codes, name="group_codes")
    cell_codes = _integer_array(cell_codes, name="cell_codes")
    if group_codes.size != cell_codes.size:
        raise ValueError(
            f"`group_codes` and `cell_codes` differ in length: {group_codes.size} and {cell_codes.size}"
        )
    group_labels = _labels_iv(groups, name="groups")
    cell_rows = _cells_iv(cells)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int | np.integer) or chunk_size < 1:
        raise ValueError(f"`chunk_size` must be a positive integer, got {chunk_size!r}")
    _range_iv(group_codes, len(group_labels), name="group_codes", what="group in `groups`")
    _range_iv(cell_codes, len(cell_rows), name="cell_codes", what="cell in `cells`")
    return group_codes, cell_codes, group_labels, cell_rows, int(chunk_size)


def confusion_table_from_codes(
    group_codes: np.ndarray,
    cell_codes: np.ndarray,
    *,
    groups: int | Sequence[object],
    cells: int | Sequence[tuple[object, object, object]] = BINARY_CELLS,
    group: str = "group",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> pd.DataFrame:
    """Contingency matrix ``O`` from integer codes, in one counting pass with a fixed-size buffer.

    Parameters
    ----------
    group_codes : array_like of int, shape (n,)
        Group of each person as a code ``0 .. q-1`` (any integer dtype; ``int8`` keeps the input small).
    cell_codes : array_like of int, shape (n,)
        Confusion cell of each person as a code ``0 .. r-1``, e.g. from :func:`binary_cell_codes`.
    groups : int or sequence, keyword-only
        Group labels in code order (``q = len(groups)``), or the number of groups (labels ``0 .. q-1``).
    cells : int or sequence of (label, y_pred, y_true), keyword-only
        Cells in code order. Default :data:`fairstats.confusion.BINARY_CELLS` (``TP, FN, FP, TN``), the
        codes of :func:`binary_cell_codes`. A count ``r`` gives labels ``0 .. r-1`` without a
        (y_pred, y_true) key.
    group : str, keyword-only
        Name of the sensitive attribute, kept as ``attrs["group_columns"]`` (the result's ``group_columns``).
    chunk_size : int, keyword-only
        Rows counted per :func:`numpy.bincount` call; sets the size of the only buffer.

    Returns
    -------
    pandas.DataFrame
        Integer counts, index ``group`` and columns ``cell`` in code order, labelled like
        :func:`fairstats.confusion.confusion_table`: groups and cells without any case are left out,
        ``attrs["notes"]`` says which, ``attrs["cells"]`` maps each cell to its (y_pred, y_true) pair.

    Raises
    ------
    ValueError
        Lengths differ, empty input, a code outside its range (named with its position), fewer than two
        groups or cells with cases, a repeated label, ``chunk_size`` < 1.
    TypeError
        Codes that are not integers; ``groups``/``cells`` neither a count nor a sequence.

    Notes
    -----
    :math:`O_{ij} = \\#\\{k : g_k = i, c_k = j\\}`, counted as ``bincount(g r + c)`` over chunks of
    ``chunk_size`` rows in the smallest integer type that holds :math:`q r`. Besides the input, memory is one
    buffer of ``chunk_size`` rows (and numpy's ``intp`` copy of it inside ``bincount``) plus :math:`O(q r)`,
    independent of n; time is one pass over the codes (plus a min/max pass that checks their range).

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Sec. III-A, Fig. 1.

    Examples
    --------
    >>> codes = binary_cell_codes([1, 0, 1, 0], y_pred=[1, 1, 0, 0])
    >>> confusion_table_from_codes([0, 0, 1, 1], codes, groups=["a", "b"]).to_numpy().tolist()
    [[1, 0, 1, 0], [0, 1, 0, 1]]
    """
    group_codes, cell_codes, group_labels, cell_rows, chunk_size = _table_from_codes_iv(
        group_codes, cell_codes, groups, cells, group, chunk_size
    )
    counts = _count_codes(group_codes, cell_codes, len(group_labels), len(cell_rows), chunk_size)
    return _labelled_table(counts, group_labels, cell_rows, group_columns=(group,))


# --------------------------------------------------------------------------------------------------------
# parquet, counted by DuckDB (fairstats.counts)
# --------------------------------------------------------------------------------------------------------


def confusion_table_parquet(
    path: str | os.PathLike,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
) -> pd.DataFrame:
    """Contingency matrix ``O`` of a parquet file or folder of parquet files, counted by DuckDB.

    Parameters
    ----------
    path : str or path-like
        Parquet file, or folder of parquet files (searched recursively), with one row per person.
    group : str or list of str, keyword-only
        Sensitive attribute column(s); a list means intersectional groups, labelled ``"a - b"``.
    y_true, y_pred : str, keyword-only
        Columns of the true and the predicted label (binary 0/1 or multi-class).

    Returns
    -------
    pandas.DataFrame
        The table :func:`fairstats.confusion.confusion_table` gives for the same rows read into memory:
        same labels, same order (groups and labels sorted by value), same ``attrs["notes"]`` and
        ``attrs["cells"]``.

    Raises
    ------
    ValueError
        No such file or not parquet, missing column, missing values, a single group, fewer than two outcome
        cells.
    TypeError
        Column names not strings, labels that cannot be sorted.

    Notes
    -----
    :meth:`fairstats.Counts.from_parquet`: DuckDB's streaming ``GROUP BY`` over the files (bounded memory),
    then :func:`fairstats.confusion.confusion_table` on the counts. A pandas ``Categorical``'s declared order
    is not kept in parquet: labels are sorted by value.

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Sec. III-A, Fig. 1.
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"`path` must be a file path, got {type(path).__name__}")
    group_columns = column_names_iv(group, y_true, y_pred)
    counts = Counts.from_parquet(path, columns=[*group_columns, y_true, y_pred])
    return confusion_table(counts, group=group, y_true=y_true, y_pred=y_pred)


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
    """Equal confusion test of a parquet file or folder, counted by DuckDB.

    :func:`confusion_table_parquet` then :func:`fairstats.confusion.equal_confusion_test_table`; parameters as
    there.

    Returns
    -------
    EqualConfusionResult
        Equal to :func:`fairstats.confusion.equal_confusion_test` on the file read into memory (the
        permutation p-value too, for the same ``rng``).

    Raises
    ------
    ValueError, TypeError
        As :func:`confusion_table_parquet` and :func:`fairstats.confusion.equal_confusion_test_table`.

    Notes
    -----
    Memory is DuckDB's streaming aggregate plus the distinct (group, y_pred, y_true) combinations, whatever
    the size of the files; the test is the one of :func:`fairstats.confusion.equal_confusion_test`
    (paper A, Eq. 1-4).

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Eq. 1-4.
    """
    table = confusion_table_parquet(path, group=group, y_true=y_true, y_pred=y_pred)
    return equal_confusion_test_table(
        table,
        alpha=alpha,
        posthoc_alpha=posthoc_alpha,
        posthoc_strict_alpha=posthoc_strict_alpha,
        n_resamples=n_resamples,
        permutation=permutation,
        rng=rng,
    )
