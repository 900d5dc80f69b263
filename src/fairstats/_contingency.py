"""The group × confusion-cell table, counted once: the contingency table of the equal confusion analysis.

After statsmodels' ``contingency_tables.Table``: a :class:`ContingencyTable` is built once, from whatever
holds the people, and then asked for what the statistics need. Its constructors:

* :meth:`ContingencyTable.from_frame`: rows, one per person (a frame of any engine) or counted (a
  :class:`fairstats.Counts`), and the names of the group, true-label and predicted-label columns;
* :meth:`ContingencyTable.from_observed`: a table already counted (groups x cells, e.g.
  :func:`fairstats.decision_table`'s);
* :meth:`ContingencyTable.from_codes`: integer group and cell codes (cells from
  :meth:`ContingencyTable.binary_cell_codes`), counted in fixed-size chunks, for 10⁸ people and more;
* :meth:`ContingencyTable.from_parquet`: a parquet file or folder, counted by DuckDB (data larger than
  memory).

Each gives the same table for the same people (labels, order, notes). The table's methods are the labelled
table (:meth:`~ContingencyTable.frame`), the adjusted residuals (:meth:`~ContingencyTable.residuals`),
Cramér's V (:meth:`~ContingencyTable.cramers_v`) and paper A's ratio tables
(:meth:`~ContingencyTable.ratios`).
:func:`fairstats.equal_confusion_test` and the functions of its family (:func:`fairstats.cramers_v_interval`,
:func:`fairstats.bootstrap_cramers_v`, ...) take it in place of their ``data``, so that the audit counts each
grouping's table once for the test, its V interval and its equivalence test.

Groups and cells without any case are left out, with a note each; labels are sorted (categories in their
declared order), never in set or hash order.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats.contingency import association
from statsmodels.stats.contingency_tables import Table

from fairstats._validation import as_list, checked_frame
from fairstats.counts import Counts, as_rows
from fairstats.groups import intersection_label

__all__ = [
    "BINARY_CELLS",
    "DEFAULT_CHUNK_SIZE",
    "ContingencyTable",
    "column_names_iv",
    "drop_empty",
    "group_codes",
]

#: Binary cells in the paper's printed order: (label, y_pred, y_true).
BINARY_CELLS: tuple[tuple[str, int, int], ...] = (("TP", 1, 1), ("FN", 0, 1), ("FP", 1, 0), ("TN", 0, 0))

#: Rows per chunk of :meth:`ContingencyTable.from_codes` (fits in the CPU cache with its intp copy).
DEFAULT_CHUNK_SIZE = 1 << 16


def _sorted_unique(values: pd.Series, *, name: str, column: str) -> list:
    """Distinct values of ``values`` in sorted order (categories in their declared order)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return list(values.cat.categories)
    uniques = pd.unique(values.to_numpy())
    try:
        return sorted(uniques.tolist())
    except TypeError:
        raise TypeError(
            f"`{name}`: column {column!r} mixes values that cannot be sorted "
            f"({sorted({type(v).__name__ for v in uniques.tolist()})}); use one type"
        ) from None


def _is_binary(labels: list) -> bool:
    return all(isinstance(v, bool | int | float | np.integer | np.floating) and v in (0, 1) for v in labels)


def drop_empty(
    counts: np.ndarray,
    group_labels: list,
    cells: list[tuple[object, object, object]],
    *,
    group_columns: Sequence[str],
    single_group_where: str,
    few_cells_head: str,
) -> tuple[pd.DataFrame, list[tuple[object, object, object]], list[str]]:
    """Drop groups and cells without cases from ``counts`` (noting each) and label what is left.

    Shared by :meth:`ContingencyTable.from_frame`, :meth:`ContingencyTable.from_codes` and the decision
    tables of :mod:`fairstats.levels`. Returns the labelled
    table (index ``group``, columns ``cell``), the kept ``(cell, y_pred, y_true)`` rows and the notes.
    Raises ``ValueError`` if fewer than two groups or two cells have cases.
    """
    keep_rows = counts.sum(axis=1) > 0
    keep_cols = counts.sum(axis=0) > 0
    notes = [f"group {group_labels[i]!r} has no cases and is left out" for i in np.flatnonzero(~keep_rows)]
    notes += [
        f"cell {cells[j][0]!r} (y_pred={cells[j][1]!r}, y_true={cells[j][2]!r}) has no cases "
        "in any group and is left out"
        for j in np.flatnonzero(~keep_cols)
    ]
    kept_groups = [group_labels[i] for i in np.flatnonzero(keep_rows)]
    if len(kept_groups) < 2:
        raise ValueError(
            f"`group` {list(group_columns)!r} has a single group {kept_groups[0]!r} {single_group_where}; "
            "the equal confusion test compares at least two groups"
        )
    kept_cells = [cells[j] for j in np.flatnonzero(keep_cols)]
    if len(kept_cells) < 2:
        raise ValueError(
            f"{few_cells_head} (only {[c[0] for c in kept_cells]!r}); the test needs at least two"
        )
    observed = pd.DataFrame(
        counts[np.ix_(keep_rows, keep_cols)].astype(np.int64),
        index=pd.Index(kept_groups, name="group"),
        columns=pd.Index([c[0] for c in kept_cells], name="cell"),
    )
    return observed, kept_cells, notes


def column_names_iv(group: object, y_true: object, y_pred: object) -> list[str]:
    """Check the column-name arguments (not the data); return the group columns as a list."""
    group_columns = as_list(group, name="group")
    for name, value in (("y_true", y_true), ("y_pred", y_pred)):
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be one column name, got {value!r}")
    if len(set(group_columns)) != len(group_columns):
        raise ValueError(f"`group` lists a column twice: {group_columns!r}")
    clash = sorted(set(group_columns) & {y_true, y_pred})
    if clash:
        raise ValueError(f"`group` column {clash[0]!r} is also `y_true` or `y_pred`")
    return group_columns


def group_codes(data: pd.DataFrame, group_columns: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Each row's group code and the labels of all groups: every combination of the listed columns' values,
    in sorted order (empty ones are dropped later by :func:`drop_empty`)."""
    levels = [_sorted_unique(data[c], name="group", column=c) for c in group_columns]
    codes = []
    for column, lev in zip(group_columns, levels, strict=True):
        idx = pd.Index(lev).get_indexer(data[column].to_numpy())
        codes.append(idx)
    shape = tuple(len(lev) for lev in levels)
    row_full = np.ravel_multi_index(codes, shape) if len(codes) > 1 else codes[0]
    combos = [tuple(c) for c in np.ndindex(*shape)]
    row_labels = [intersection_label([levels[k][i] for k, i in enumerate(combo)]) for combo in combos]
    return row_full, row_labels


# --------------------------------------------------------------------------------------------------------
# integer codes (ContingencyTable.from_codes, .binary_cell_codes)
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


@dataclass(frozen=True)
class ContingencyTable:
    """The group × confusion-cell table ``O`` of one grouping, with its labels and notes.

    Build it with one of its constructors, from whatever holds the people: :meth:`from_frame` (a frame and
    its column names), :meth:`from_observed` (a table already counted), :meth:`from_codes` (integer codes) or
    :meth:`from_parquet` (a parquet file or folder). Each gives the same table for the same people; pass it
    to :func:`fairstats.equal_confusion_test` (or :func:`fairstats.cramers_v_interval`, ...) in place of a
    frame.

    Attributes
    ----------
    observed : pandas.DataFrame
        Integer counts (int64), index ``group`` (sorted), columns ``cell``; no empty group or cell.
    cells : pandas.DataFrame
        One row per column of ``observed``, in its order: ``cell, y_pred, y_true``.
    group_columns : tuple of str
        The ``group`` column(s).
    notes : tuple of str
        The groups and cells left out for having no case.
    label_columns : tuple of (str, str) or None
        The ``(y_true, y_pred)`` columns the table was counted from; ``None`` for a table counted elsewhere
        (:meth:`from_observed`, :meth:`from_codes`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 0, 1, 0], "p": [1, 1, 0, 0]})
    >>> table = ContingencyTable.from_frame(df, group="g", y_true="y", y_pred="p")
    >>> table.observed.to_numpy().tolist()
    [[1, 0, 1, 0], [0, 1, 0, 1]]
    >>> codes = ContingencyTable.binary_cell_codes([1, 0, 1, 0], y_pred=[1, 1, 0, 0])
    >>> ContingencyTable.from_codes([0, 0, 1, 1], codes, groups=["a", "b"]).observed.to_numpy().tolist()
    [[1, 0, 1, 0], [0, 1, 0, 1]]
    """

    observed: pd.DataFrame
    cells: pd.DataFrame
    group_columns: tuple[str, ...]
    notes: tuple[str, ...]
    label_columns: tuple[str, str] | None = None

    @classmethod
    def of(cls, data: object, group: object, y_true: object, y_pred: object) -> ContingencyTable:
        """What the functions of the family do with their ``data``: a :class:`ContingencyTable` as it is
        (``group``, ``y_true`` and ``y_pred`` may be left out; given, they must be the table's columns,
        ``ValueError`` otherwise), anything else counted by :meth:`from_frame` (the three are needed)."""
        if isinstance(data, ContingencyTable):
            if group is not None:
                columns = tuple(as_list(group, name="group"))
                if columns != data.group_columns:
                    raise ValueError(
                        f"`group` {list(columns)!r} is not the table's grouping {list(data.group_columns)!r}"
                    )
            for k, (name, value) in enumerate((("y_true", y_true), ("y_pred", y_pred))):
                if value is None:
                    continue
                if data.label_columns is None:
                    raise ValueError(
                        f"`{name}` {value!r} names a column, but the table was counted elsewhere and has no "
                        f"label columns; leave `{name}` out with a ContingencyTable"
                    )
                if value != data.label_columns[k]:
                    raise ValueError(
                        f"`{name}` {value!r} is not the table's {name} column {data.label_columns[k]!r}"
                    )
            return data
        missing = [n for n, v in (("group", group), ("y_true", y_true), ("y_pred", y_pred)) if v is None]
        if missing:
            raise TypeError(
                f"{' and '.join(f'`{n}`' for n in missing)} must name the column(s) of `data` (a frame); "
                "only a ContingencyTable is taken without them"
            )
        return cls.from_frame(data, group=group, y_true=y_true, y_pred=y_pred)

    @classmethod
    def from_frame(
        cls, data: object, *, group: str | Sequence[str], y_true: str, y_pred: str
    ) -> ContingencyTable:
        """Count the table from rows: one per person, or counted.

        Parameters
        ----------
        data : pandas.DataFrame, fairstats.Counts or another engine's frame
            One row per person, or counts (a :class:`fairstats.Counts`; a polars, pyarrow, DuckDB or Spark
            frame is counted in its engine).
        group : str or list of str, keyword-only
            Sensitive attribute column(s). A list means intersectional groups, labelled by joining the
            values in the listed order with ``" - "`` (``["sex", "race"]`` gives
            ``"Female - African-American"``).
        y_true, y_pred : str, keyword-only
            Columns of the true and the predicted label (binary 0/1, or any number of classes).

        Returns
        -------
        ContingencyTable
            Index ``group`` (sorted), columns ``cell``: binary 0/1 labels give the cells ``TP, FN, FP, TN``
            (paper A's order), other labels one cell ``"pred=a, true=b"`` per (y_pred, y_true) pair in
            sorted order. Groups and cells without any case are left out, with a note each.

        Raises
        ------
        ValueError
            Missing column, NaN in one of the columns, a single group, fewer than two outcome cells.
        TypeError
            ``data`` not a frame, a column name not a string, labels that cannot be sorted.

        Notes
        -----
        Row :math:`i` of :math:`\\mathbf{O}` is group :math:`i`'s confusion matrix, flattened (paper A,
        Fig. 1).

        References
        ----------
        F. Gursoy, I. A. Kakadiaris, "Equal Confusion Fairness: Measuring Group-Based Disparities in Automated
        Decision Systems", ICDMW 2022, pp. 137-146, Sec. III-A, Fig. 1.
        """
        group_columns = column_names_iv(group, y_true, y_pred)
        columns = [*group_columns, y_true, y_pred]
        data, weight = as_rows(data, columns)  # a pandas frame or CheckedFrame as it is; other frames counted
        data = checked_frame(data, columns).frame

        row_full, row_labels = group_codes(data, group_columns)

        # Outcome cells: binary 0/1 labels give TP, FN, FP, TN; otherwise one cell per (y_pred, y_true) pair.
        label_set = set(_sorted_unique(data[y_true], name="y_true", column=y_true))
        label_set |= set(_sorted_unique(data[y_pred], name="y_pred", column=y_pred))
        try:
            labels = sorted(label_set)
        except TypeError:
            raise TypeError(
                f"`y_true` {y_true!r} and `y_pred` {y_pred!r} hold labels of different types that cannot be "
                f"sorted together: {sorted(map(repr, label_set))}"
            ) from None
        if _is_binary(labels):
            yt = data[y_true].to_numpy().astype(np.int64)
            yp = data[y_pred].to_numpy().astype(np.int64)
            cell_full = (1 - yt) * 2 + (1 - yp)
            cell_rows = [(label, p, t) for label, p, t in BINARY_CELLS]
        else:
            index = pd.Index(labels)
            ip = index.get_indexer(data[y_pred].to_numpy())
            it = index.get_indexer(data[y_true].to_numpy())
            k = len(labels)
            cell_full = ip * k + it
            cell_rows = [(f"pred={p}, true={t}", p, t) for p in labels for t in labels]

        q_full, r_full = len(row_labels), len(cell_rows)
        counts = np.bincount(row_full * r_full + cell_full, weights=weight, minlength=q_full * r_full)
        counts = counts.astype(np.int64).reshape(q_full, r_full)  # weights are whole numbers of people
        observed, kept_cells, notes = drop_empty(
            counts,
            row_labels,
            cell_rows,
            group_columns=group_columns,
            single_group_where="in `data`",
            few_cells_head=f"`y_true` {y_true!r} / `y_pred` {y_pred!r} give fewer than two outcome cells",
        )
        cells = pd.DataFrame(kept_cells, columns=["cell", "y_pred", "y_true"])
        return cls(
            observed=observed,
            cells=cells,
            group_columns=tuple(group_columns),
            notes=tuple(notes),
            label_columns=(y_true, y_pred),
        )

    @classmethod
    def from_observed(cls, observed: object) -> ContingencyTable:
        """A table already counted (by :func:`fairstats.decision_table`, another program, a paper).

        Parameters
        ----------
        observed : pandas.DataFrame
            Groups x cells, non-negative integer counts, no empty group or cell. Its ``attrs`` (those of
            :meth:`frame`: ``cells``, the cells' (y_pred, y_true) key; ``group_columns``; ``notes``) are kept
            when present.

        Returns
        -------
        ContingencyTable
            The table as given (its order kept), labelled ``group`` x ``cell`` unless it names its axes.

        Raises
        ------
        ValueError
            Fewer than two groups or cells, a negative count, an empty group or cell (each named).
        TypeError
            ``observed`` not a DataFrame of integers.

        Examples
        --------
        >>> O = pd.DataFrame([[40, 20, 30, 110], [25, 30, 20, 125]], index=["a", "b"],
        ...                  columns=["TP", "FN", "FP", "TN"])
        >>> ContingencyTable.from_observed(O).observed.shape
        (2, 4)
        """
        if not isinstance(observed, pd.DataFrame):
            raise TypeError(
                f"`observed` must be a pandas DataFrame (groups x cells), got {type(observed).__name__}"
            )
        values = observed.to_numpy()
        if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
            raise ValueError(
                f"`observed` must have at least two groups and two cells, got shape {values.shape}"
            )
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
        return cls._labelled(observed, values)

    @classmethod
    def _labelled(cls, observed: pd.DataFrame, values: np.ndarray) -> ContingencyTable:
        labelled = pd.DataFrame(
            values.astype(np.int64),
            index=pd.Index(observed.index, name=observed.index.name or "group"),
            columns=pd.Index(observed.columns, name=observed.columns.name or "cell"),
        )
        key = observed.attrs.get("cells")
        if key is None:
            key = [{"cell": c, "y_pred": None, "y_true": None} for c in labelled.columns]
        cells = pd.DataFrame(list(key), columns=["cell", "y_pred", "y_true"])
        cells = cells.set_index("cell").loc[list(labelled.columns)].reset_index()
        return cls(
            observed=labelled,
            cells=cells,
            group_columns=tuple(observed.attrs.get("group_columns", [labelled.index.name])),
            notes=tuple(observed.attrs.get("notes", ())),
        )

    @classmethod
    def from_codes(
        cls,
        group_codes: np.ndarray,
        cell_codes: np.ndarray,
        *,
        groups: int | Sequence[object],
        cells: int | Sequence[tuple[object, object, object]] = BINARY_CELLS,
        group: str = "group",
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> ContingencyTable:
        """Count the table from integer codes, in one pass with a fixed-size buffer (10⁸ people and more).

        Parameters
        ----------
        group_codes : array_like of int, shape (n,)
            Group of each person as a code ``0 .. q-1`` (any integer dtype; ``int8`` keeps the input small).
        cell_codes : array_like of int, shape (n,)
            Confusion cell of each person as a code ``0 .. r-1``, e.g. from :meth:`binary_cell_codes`.
        groups : int or sequence, keyword-only
            Group labels in code order (``q = len(groups)``), or the number of groups (labels ``0 .. q-1``).
        cells : int or sequence of (label, y_pred, y_true), keyword-only
            Cells in code order. Default :data:`BINARY_CELLS` (``TP, FN, FP, TN``), the codes of
            :meth:`binary_cell_codes`. A count ``r`` gives labels ``0 .. r-1`` without a (y_pred, y_true) key.
        group : str, keyword-only
            Name of the sensitive attribute, kept as ``group_columns`` (a display name: nothing is looked up).
        chunk_size : int, keyword-only
            Rows counted per :func:`numpy.bincount` call; sets the size of the only buffer.

        Returns
        -------
        ContingencyTable
            Groups and cells in code order, labelled as :meth:`from_frame` labels them: groups and cells
            without any case are left out, with a note each.

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
        ``chunk_size`` rows in the smallest integer type that holds :math:`q r`. Besides the input, memory is
        one buffer of ``chunk_size`` rows (and numpy's ``intp`` copy of it inside ``bincount``) plus
        :math:`O(q r)`, independent of n; time is one pass over the codes (plus a min/max pass that checks
        their range).

        References
        ----------
        Paper A (Gursoy and Kakadiaris 2022), Sec. III-A, Fig. 1.
        """
        group_codes, cell_codes, group_labels, cell_rows, chunk_size = _table_from_codes_iv(
            group_codes, cell_codes, groups, cells, group, chunk_size
        )
        counts = _count_codes(group_codes, cell_codes, len(group_labels), len(cell_rows), chunk_size)
        observed, kept_cells, notes = drop_empty(
            counts,
            group_labels,
            cell_rows,
            group_columns=(group,),
            single_group_where="with cases",
            few_cells_head="fewer than two outcome cells have cases",
        )
        observed.attrs["notes"] = notes
        observed.attrs["cells"] = [{"cell": c, "y_pred": p, "y_true": t} for c, p, t in kept_cells]
        observed.attrs["group_columns"] = [group]
        return cls._labelled(observed, observed.to_numpy())

    @classmethod
    def from_parquet(
        cls, path: str | os.PathLike, *, group: str | Sequence[str], y_true: str, y_pred: str
    ) -> ContingencyTable:
        """Count the table of a parquet file or folder of parquet files with DuckDB (data larger than memory).

        Parameters
        ----------
        path : str or path-like
            Parquet file, or folder of parquet files (searched recursively), with one row per person.
        group, y_true, y_pred : keyword-only
            As in :meth:`from_frame`.

        Returns
        -------
        ContingencyTable
            The table :meth:`from_frame` gives for the same rows read into memory: same labels, same order
            (groups and labels sorted by value), same notes.

        Raises
        ------
        ValueError
            No such file or not parquet, missing column, missing values, a single group, fewer than two
            outcome cells.
        TypeError
            Column names not strings, labels that cannot be sorted.

        Notes
        -----
        :meth:`fairstats.Counts.from_parquet`: DuckDB's streaming ``GROUP BY`` over the files (memory bounded
        by the distinct (group, y_pred, y_true) combinations, whatever the size of the files), then
        :meth:`from_frame` on the counts. A pandas ``Categorical``'s declared order is not kept in parquet:
        labels are sorted by value.
        """
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"`path` must be a file path, got {type(path).__name__}")
        group_columns = column_names_iv(group, y_true, y_pred)
        counts = Counts.from_parquet(path, columns=[*group_columns, y_true, y_pred])
        return cls.from_frame(counts, group=group, y_true=y_true, y_pred=y_pred)

    @staticmethod
    def binary_cell_codes(y_true: object, *, y_pred: object) -> np.ndarray:
        """Confusion cell code of each person from binary labels, for :meth:`from_codes`: 0 = TP, 1 = FN,
        2 = FP, 3 = TN.

        Parameters
        ----------
        y_true : array_like of int or bool, shape (n,)
            True labels, 0/1.
        y_pred : array_like of int or bool, shape (n,), keyword-only
            Predicted labels, 0/1.

        Returns
        -------
        numpy.ndarray of int8, shape (n,)
            ``2 (1 - y_true) + (1 - y_pred)``: the index of the person's cell in :data:`BINARY_CELLS`
            (paper A's order ``TP, FN, FP, TN``).

        Raises
        ------
        ValueError
            Lengths differ, arrays empty or not 1-D, or a label other than 0/1 (named with its position).
        TypeError
            Labels that are not integers or booleans.

        Examples
        --------
        >>> ContingencyTable.binary_cell_codes([1, 1, 0, 0], y_pred=[1, 0, 1, 0]).tolist()
        [0, 1, 2, 3]
        """
        yt, yp = _binary_cell_codes_iv(y_true, y_pred)
        codes = np.subtract(1, yt, dtype=np.int8)
        codes *= 2
        codes += 1
        codes -= yp.astype(np.int8, copy=False)
        return codes

    def frame(self) -> pd.DataFrame:
        """``observed`` (a copy) with ``attrs``: ``notes``, ``cells`` (records) and ``group_columns``."""
        out = self.observed.copy()
        out.attrs["notes"] = list(self.notes)
        out.attrs["cells"] = self.cells.to_dict(orient="records")
        out.attrs["group_columns"] = list(self.group_columns)
        return out

    def residuals(self) -> pd.DataFrame:
        """Adjusted standardized residuals (statsmodels ``Table(O, shift_zeros=False).standardized_resids``),
        labelled as ``observed``."""
        values = Table(self.observed.to_numpy(dtype=float), shift_zeros=False).standardized_resids
        return pd.DataFrame(
            np.asarray(values, dtype=float), index=self.observed.index, columns=self.observed.columns
        )

    def cramers_v(self) -> float:
        """Cramér's V without continuity correction (``scipy.stats.contingency.association``)."""
        return float(association(self.observed.to_numpy(), method="cramer", correction=False))

    def ratios(self) -> pd.DataFrame:
        """Paper A's ratio tables, tidy (the columns of :func:`fairstats.confusion_ratios`)."""
        observed = self.observed
        key = self.cells.set_index("cell").loc[observed.columns]
        long = observed.stack().rename("observed").reset_index()
        long["y_pred"] = key.loc[long["cell"], "y_pred"].to_numpy()
        long["y_true"] = key.loc[long["cell"], "y_true"].to_numpy()
        long["n"] = long.groupby("group", sort=False)["observed"].transform("sum")
        long["share_of_group"] = long["observed"] / long["n"]
        long["actual_total"] = long.groupby(["group", "y_true"], sort=False)["observed"].transform("sum")
        with np.errstate(invalid="ignore", divide="ignore"):
            long["share_of_actual"] = long["observed"] / long["actual_total"].where(long["actual_total"] > 0)
        cols = ["group", "cell", "y_pred", "y_true", "observed", "n", "share_of_group", "actual_total"]
        return long[[*cols, "share_of_actual"]]
