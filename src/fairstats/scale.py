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
* :func:`confusion_table_parquet` streams a parquet file in record batches (``pyarrow``
  ``ParquetFile.iter_batches``), for data larger than memory;
* :func:`equal_confusion_test_table` runs the equal confusion test on a labelled table from either, and
  :func:`equal_confusion_test_parquet` chains the streaming table and the test.

The tables are labelled exactly as :func:`fairstats.confusion.confusion_table` labels them (same group and
cell order, same notes about empty groups and cells), so the results equal the DataFrame path's.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats.contingency import association

from fairstats._validation import as_list
from fairstats.confusion import (
    BINARY_CELLS,
    COCHRAN_SHARE,
    EFFECT_SIZE_SOURCE,
    EqualConfusionResult,
    SmallExpectedCountWarning,
    _check_level,
    _effect_size_label,
    _is_binary,
    _residuals,
    effect_size_thresholds,
)

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_CHUNK_SIZE",
    "binary_cell_codes",
    "confusion_table_from_codes",
    "confusion_table_parquet",
    "equal_confusion_test_parquet",
    "equal_confusion_test_table",
]

#: Rows per chunk of :func:`confusion_table_from_codes` (fits in the CPU cache with its intp copy).
DEFAULT_CHUNK_SIZE = 1 << 16
#: Rows per record batch of :func:`confusion_table_parquet`.
DEFAULT_BATCH_SIZE = 1 << 20


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
    keep_rows = counts.sum(axis=1) > 0
    keep_cols = counts.sum(axis=0) > 0
    notes = list(notes)
    notes += [f"group {group_labels[i]!r} has no cases and is left out" for i in np.flatnonzero(~keep_rows)]
    notes += [
        f"cell {cells[j][0]!r} (y_pred={cells[j][1]!r}, y_true={cells[j][2]!r}) has no cases "
        "in any group and is left out"
        for j in np.flatnonzero(~keep_cols)
    ]
    kept_groups = [group_labels[i] for i in np.flatnonzero(keep_rows)]
    if len(kept_groups) < 2:
        raise ValueError(
            f"`group` {list(group_columns)!r} has a single group {kept_groups[0]!r} with cases; "
            "the equal confusion test compares at least two groups"
        )
    kept_cells = [cells[j] for j in np.flatnonzero(keep_cols)]
    if len(kept_cells) < 2:
        raise ValueError(
            f"fewer than two outcome cells have cases (only {[c[0] for c in kept_cells]!r}); "
            "the test needs at least two"
        )
    out = pd.DataFrame(
        counts[np.ix_(keep_rows, keep_cols)].astype(np.int64),
        index=pd.Index(kept_groups, name="group"),
        columns=pd.Index([c[0] for c in kept_cells], name="cell"),
    )
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
# parquet, streamed in record batches
# --------------------------------------------------------------------------------------------------------


def _sorted_labels(values: set, *, name: str, column: str, path: str) -> list:
    try:
        return sorted(values)
    except TypeError:
        raise TypeError(
            f"{path!r}: `{name}` column {column!r} mixes values that cannot be sorted "
            f"({sorted({type(v).__name__ for v in values})}); use one type"
        ) from None


def _parquet_iv(path, group, y_true, y_pred, batch_size):
    import pyarrow.parquet as pq

    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"`path` must be a file path, got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`path`: no parquet file {str(path)!r}")
    group_columns = as_list(group, name="group")
    for name, value in (("y_true", y_true), ("y_pred", y_pred)):
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be one column name, got {value!r}")
    if len(set(group_columns)) != len(group_columns):
        raise ValueError(f"`group` lists a column twice: {group_columns!r}")
    clash = sorted(set(group_columns) & {y_true, y_pred})
    if clash:
        raise ValueError(f"`group` column {clash[0]!r} is also `y_true` or `y_pred`")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer) or batch_size < 1:
        raise ValueError(f"`batch_size` must be a positive integer, got {batch_size!r}")
    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises its own types for a damaged file
        raise ValueError(f"`path`: {str(path)!r} is not a readable parquet file ({error})") from None
    names = parquet.schema_arrow.names
    missing = [c for c in [*group_columns, y_true, y_pred] if c not in names]
    if missing:
        raise ValueError(f"{str(path)!r}: missing column(s) {missing!r}; it has {names!r}")
    if parquet.metadata.num_rows == 0:
        raise ValueError(f"{str(path)!r} has no rows")
    return parquet, str(path), group_columns, int(batch_size)


def _batch_codes(batch, column: str, *, path: str, offset: int) -> tuple[np.ndarray, list]:
    """Local codes and labels of one column of a record batch (dictionary-encoded when it is not yet)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = batch.column(column)
    if array.null_count:
        first = int(np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))[0])
        raise ValueError(
            f"{path!r}: column {column!r} has {array.null_count} missing value(s) in the batch starting at "
            f"row {offset}, first at row {offset + first}"
        )
    if not pa.types.is_dictionary(array.type):
        array = pc.dictionary_encode(array)
    return array.indices.to_numpy(zero_copy_only=False), array.dictionary.to_pylist()


def confusion_table_parquet(
    path: str | os.PathLike,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> pd.DataFrame:
    """Contingency matrix ``O`` of a parquet file, read in record batches (for data larger than memory).

    Parameters
    ----------
    path : str or path-like
        Parquet file with one row per person.
    group : str or list of str, keyword-only
        Sensitive attribute column(s); a list means intersectional groups, labelled ``"a - b"``.
    y_true, y_pred : str, keyword-only
        Columns of the true and the predicted label (binary 0/1 or multi-class).
    batch_size : int, keyword-only
        Rows per record batch (``pyarrow.parquet.ParquetFile.iter_batches``); memory is O(batch_size).

    Returns
    -------
    pandas.DataFrame
        The table :func:`fairstats.confusion.confusion_table` gives for the same rows read into memory:
        same labels, same order (groups and labels sorted by value), same ``attrs["notes"]`` and
        ``attrs["cells"]``.

    Raises
    ------
    ValueError
        No such file or not parquet, missing column, missing values (with the row), a single group,
        fewer than two outcome cells, ``batch_size`` < 1.
    TypeError
        Column names not strings, labels that cannot be sorted.

    Notes
    -----
    Each batch's columns are dictionary-encoded (``pyarrow.compute.dictionary_encode`` unless already), the
    batch's (group, y_pred, y_true) combinations counted with one :func:`numpy.bincount`, and the non-zero
    counts added to a running total keyed by label, so memory is one batch plus the distinct combinations.
    A pandas ``Categorical``'s declared order is not kept: labels are sorted by value.

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Sec. III-A, Fig. 1.
    """
    parquet, where, group_columns, batch_size = _parquet_iv(path, group, y_true, y_pred, batch_size)
    columns = [*group_columns, y_true, y_pred]
    read = list(dict.fromkeys(columns))
    totals: dict[tuple, int] = {}
    offset = 0
    for batch in parquet.iter_batches(batch_size=batch_size, columns=read):
        encoded = {c: _batch_codes(batch, c, path=where, offset=offset) for c in read}
        codes = [encoded[c][0] for c in columns]
        labels = [encoded[c][1] for c in columns]
        sizes = [len(lab) for lab in labels]
        local = np.bincount(np.ravel_multi_index(codes, sizes), minlength=math.prod(sizes))
        for flat in np.flatnonzero(local):
            index = np.unravel_index(flat, sizes)
            key = tuple(labels[k][int(i)] for k, i in enumerate(index))
            totals[key] = totals.get(key, 0) + int(local[flat])
        offset += batch.num_rows
    if not totals:
        raise ValueError(f"{where!r} has no rows")

    k = len(group_columns)
    levels = [
        _sorted_labels({key[i] for key in totals}, name="group", column=c, path=where)
        for i, c in enumerate(group_columns)
    ]
    true_labels = {key[k] for key in totals}
    pred_labels = {key[k + 1] for key in totals}
    try:
        labels = sorted(true_labels | pred_labels)
    except TypeError:
        raise TypeError(
            f"`y_true` {y_true!r} and `y_pred` {y_pred!r} hold labels of different types that cannot be "
            f"sorted together: {sorted(map(repr, true_labels | pred_labels))}"
        ) from None
    if _is_binary(labels):
        cell_rows = list(BINARY_CELLS)
        cell_index = {(p, t): j for j, (_, p, t) in enumerate(cell_rows)}
    else:
        cell_rows = [(f"pred={p}, true={t}", p, t) for p in labels for t in labels]
        cell_index = {(p, t): j for j, (_, p, t) in enumerate(cell_rows)}

    combos = list(itertools.product(*levels))
    group_index = {combo: i for i, combo in enumerate(combos)}
    counts = np.zeros((len(combos), len(cell_rows)), dtype=np.int64)
    for key, count in totals.items():
        true_value, pred_value = key[k], key[k + 1]
        if _is_binary(labels):
            true_value, pred_value = int(true_value), int(pred_value)
        counts[group_index[key[:k]], cell_index[(pred_value, true_value)]] += count
    group_labels = [" - ".join(str(v) for v in combo) for combo in combos]
    return _labelled_table(counts, group_labels, cell_rows, group_columns=group_columns)


# --------------------------------------------------------------------------------------------------------
# the test on a table
# --------------------------------------------------------------------------------------------------------


def _permutation_pvalue_table(
    observed: np.ndarray,
    expected: np.ndarray,
    statistic: float,
    *,
    n_resamples: int,
    rng: np.random.Generator,
) -> float:
    """Monte-Carlo p-value of Pearson's statistic over random tables with both margins of ``observed``.

    Shuffling group labels over people (what the DataFrame path does) gives exactly the tables of
    ``scipy.stats.random_table`` (multivariate hypergeometric, both margins fixed), so this is the same test
    drawn from the table alone; same ``>=`` tolerance as R's ``chisq.test(simulate.p.value = TRUE)``.
    """
    distribution = stats.random_table(observed.sum(axis=1), observed.sum(axis=0), seed=rng)
    threshold = statistic * (1.0 - 64 * np.finfo(float).eps)
    at_least = 0
    done = 0
    while done < n_resamples:
        b = min(10_000, n_resamples - done)
        tables = distribution.rvs(size=b)
        stat = (((tables - expected) ** 2) / expected).sum(axis=(1, 2))
        at_least += int((stat >= threshold).sum())
        done += b
    return (1.0 + at_least) / (1.0 + n_resamples)


def _test_table_iv(observed, alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng):
    if not isinstance(observed, pd.DataFrame):
        raise TypeError(
            f"`observed` must be a pandas DataFrame (groups x cells), got {type(observed).__name__}"
        )
    values = observed.to_numpy()
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
        raise ValueError(f"`observed` must have at least two groups and two cells, got shape {values.shape}")
    if not np.issubdtype(values.dtype, np.integer):
        raise TypeError(f"`observed` must hold integer counts, got dtype {values.dtype}")
    if (values < 0).any():
        i, j = np.argwhere(values < 0)[0]
        raise ValueError(
            f"`observed` has a negative count {values[i, j].item()} at group {observed.index[i]!r}, "
            f"cell {observed.columns[j]!r}"
        )
    for axis, what in ((1, "group"), (0, "cell")):
        empty = np.flatnonzero(values.sum(axis=axis) == 0)
        if empty.size:
            label = (observed.index if axis == 1 else observed.columns)[empty[0]]
            raise ValueError(f"`observed` {what} {label!r} has no cases; leave it out of the table")
    levels = (
        _check_level(alpha, "alpha"),
        _check_level(posthoc_alpha, "posthoc_alpha"),
        _check_level(posthoc_strict_alpha, "posthoc_strict_alpha"),
    )
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer) or n_resamples < 1:
        raise ValueError(f"`n_resamples` must be a positive integer, got {n_resamples!r}")
    if permutation not in ("auto", "always", "never"):
        raise ValueError(f"`permutation` must be 'auto', 'always' or 'never', got {permutation!r}")
    if not (rng is None or isinstance(rng, int | np.integer | np.random.Generator | np.random.SeedSequence)):
        raise TypeError(f"`rng` must be None, an int seed or a numpy Generator, got {type(rng).__name__}")
    return values.astype(np.int64), levels


def equal_confusion_test_table(
    observed: pd.DataFrame,
    *,
    alpha: float = 0.01,
    posthoc_alpha: float = 0.05,
    posthoc_strict_alpha: float = 0.001,
    n_resamples: int = 9999,
    permutation: Literal["auto", "always", "never"] = "auto",
    rng: int | np.random.Generator | None = None,
) -> EqualConfusionResult:
    """Equal confusion test on a contingency matrix that is already counted.

    The same test as :func:`fairstats.confusion.equal_confusion_test` (Pearson's chi-squared, Cramér's V,
    Cochran's rule, adjusted residuals at two cut-offs), for a table from
    :func:`confusion_table_from_codes`, :func:`confusion_table_parquet` or
    :func:`fairstats.confusion.confusion_table`.

    Parameters
    ----------
    observed : pandas.DataFrame
        Groups x cells, non-negative integer counts, no empty group or cell. Its ``attrs["cells"]``
        (cell key), ``attrs["notes"]`` and ``attrs["group_columns"]`` go into the result when present.
    alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation : keyword-only
        As in :func:`fairstats.confusion.equal_confusion_test`.
    rng : int, numpy.random.Generator or None, keyword-only
        Seed or generator of the permutation p-value.

    Returns
    -------
    EqualConfusionResult
        As :func:`fairstats.confusion.equal_confusion_test`; every field but ``pvalue_permutation`` equals the
        DataFrame path's for the same people.

    Raises
    ------
    ValueError
        Fewer than two groups or cells, a negative count, an empty group or cell, a level outside (0, 1),
        ``n_resamples`` < 1, unknown ``permutation``.
    TypeError
        ``observed`` not a DataFrame of integers, ``rng`` of another type.

    Warns
    -----
    SmallExpectedCountWarning
        When Cochran's rule fails.

    Notes
    -----
    .. math:: E_{ij} = \\frac{O_{i*} O_{*j}}{n}, \\qquad
        \\chi^2 = \\sum_{i,j} \\frac{(O_{ij} - E_{ij})^2}{E_{ij}}, \\qquad df = (q - 1)(r - 1)

    (``scipy.stats.chi2_contingency(O, correction=False)``), Cramér's V
    (``scipy.stats.contingency.association``) and adjusted residuals (statsmodels ``Table``), exactly as the
    DataFrame path. The permutation p-value draws tables with both margins fixed
    (``scipy.stats.random_table``), the distribution that shuffling group labels over people gives; it is the
    same test as the DataFrame path's but a different random stream, so its value differs within Monte-Carlo
    error.

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Eq. 1-4; W. M. Patefield, "Algorithm AS 159: An efficient method of
    generating random r x c tables with given row and column totals", Applied Statistics 30, 1981.

    Examples
    --------
    >>> O = pd.DataFrame([[40, 20, 30, 110], [25, 30, 20, 125]], index=["a", "b"],
    ...                  columns=["TP", "FN", "FP", "TN"])
    >>> res = equal_confusion_test_table(O)
    >>> res.df, res.n
    (3, 400)
    """
    o, (alpha, posthoc_alpha, posthoc_strict_alpha) = _test_table_iv(
        observed, alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng
    )
    labelled = pd.DataFrame(
        o,
        index=pd.Index(observed.index, name=observed.index.name or "group"),
        columns=pd.Index(observed.columns, name=observed.columns.name or "cell"),
    )
    key = observed.attrs.get("cells")
    if key is None:
        key = [{"cell": c, "y_pred": None, "y_true": None} for c in labelled.columns]
    cells = pd.DataFrame(list(key), columns=["cell", "y_pred", "y_true"])
    cells = cells.set_index("cell").loc[list(labelled.columns)].reset_index()
    group_columns = tuple(observed.attrs.get("group_columns", [labelled.index.name]))
    notes = tuple(observed.attrs.get("notes", ()))

    q, r = o.shape
    chi2 = stats.chi2_contingency(o, correction=False)
    expected_values = np.asarray(chi2.expected_freq, dtype=float)
    expected = pd.DataFrame(expected_values, index=labelled.index, columns=labelled.columns)
    residuals = _residuals(labelled)
    cramers_v = float(association(o, method="cramer", correction=False))
    df_star = int(min(q - 1, r - 1))
    thresholds = effect_size_thresholds(df_star)

    share_ge5 = float((expected_values >= 5).mean())
    min_expected = float(expected_values.min())
    cochran_ok = bool(share_ge5 >= COCHRAN_SHARE and min_expected >= 1)
    if not cochran_ok:
        message = (
            f"group {list(group_columns)!r}: Cochran's rule fails ({share_ge5:.0%} of expected "
            f"counts >= 5, smallest {min_expected:.3g}); the chi-squared p-value is approximate"
        )
        if permutation != "never":
            message += f", see the permutation p-value ({n_resamples} resamples)"
        warnings.warn(SmallExpectedCountWarning(message), stacklevel=2)
    do_permutation = permutation == "always" or (permutation == "auto" and not cochran_ok)
    pvalue_perm = (
        _permutation_pvalue_table(
            o,
            expected_values,
            float(chi2.statistic),
            n_resamples=int(n_resamples),
            rng=np.random.default_rng(rng),
        )
        if do_permutation
        else float("nan")
    )

    strict_cutoff = float(stats.norm.isf(posthoc_strict_alpha / 2))
    bonferroni_cutoff = float(stats.norm.isf(posthoc_alpha / (q * r) / 2))
    return EqualConfusionResult(
        statistic=float(chi2.statistic),
        pvalue=float(chi2.pvalue),
        df=int(chi2.dof),
        n=int(o.sum()),
        observed=labelled,
        expected=expected,
        residuals=residuals,
        cramers_v=cramers_v,
        df_star=df_star,
        effect_size=_effect_size_label(cramers_v, thresholds),
        effect_size_thresholds=thresholds,
        effect_size_source=EFFECT_SIZE_SOURCE,
        cochran_share_ge5=share_ge5,
        cochran_min_expected=min_expected,
        cochran_ok=cochran_ok,
        alpha=alpha,
        posthoc_alpha=posthoc_alpha,
        posthoc_strict_alpha=posthoc_strict_alpha,
        reject=bool(chi2.pvalue < alpha),
        strict_cutoff=strict_cutoff,
        bonferroni_cutoff=bonferroni_cutoff,
        flag_strict=residuals.abs() > strict_cutoff,
        flag_bonferroni=residuals.abs() > bonferroni_cutoff,
        pvalue_permutation=pvalue_perm,
        n_resamples=int(n_resamples) if do_permutation else 0,
        group_columns=group_columns,
        cells=cells,
        notes=notes,
    )


def equal_confusion_test_parquet(
    path: str | os.PathLike,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    batch_size: int = DEFAULT_BATCH_SIZE,
    alpha: float = 0.01,
    posthoc_alpha: float = 0.05,
    posthoc_strict_alpha: float = 0.001,
    n_resamples: int = 9999,
    permutation: Literal["auto", "always", "never"] = "auto",
    rng: int | np.random.Generator | None = None,
) -> EqualConfusionResult:
    """Equal confusion test of a parquet file, streamed in record batches.

    :func:`confusion_table_parquet` then :func:`equal_confusion_test_table`; parameters as there.

    Returns
    -------
    EqualConfusionResult
        Equal to :func:`fairstats.confusion.equal_confusion_test` on the file read into memory (but for
        ``pvalue_permutation``, see :func:`equal_confusion_test_table`).

    Raises
    ------
    ValueError, TypeError
        As :func:`confusion_table_parquet` and :func:`equal_confusion_test_table`.

    Notes
    -----
    Memory is O(``batch_size``) plus the distinct (group, y_pred, y_true) combinations, whatever the size of
    the file; the test is the one of :func:`fairstats.confusion.equal_confusion_test` (paper A, Eq. 1-4).

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Eq. 1-4.
    """
    table = confusion_table_parquet(path, group=group, y_true=y_true, y_pred=y_pred, batch_size=batch_size)
    return equal_confusion_test_table(
        table,
        alpha=alpha,
        posthoc_alpha=posthoc_alpha,
        posthoc_strict_alpha=posthoc_strict_alpha,
        n_resamples=n_resamples,
        permutation=permutation,
        rng=rng,
    )

