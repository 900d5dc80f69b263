"""The group × confusion-cell table, counted once: the contingency object of the equal confusion analysis.

After statsmodels' ``contingency_tables.Table``: a :class:`ContingencyTable` is built once, from rows
(:meth:`ContingencyTable.from_rows`: a frame of any engine, a :class:`fairstats.Counts`, a checked frame),
from a table already counted (:meth:`ContingencyTable.from_observed`: :func:`fairstats.confusion_table`'s,
:func:`fairstats.decision_table`'s, or one made from integer codes or a parquet file by
:mod:`fairstats.scale`), or taken as it is (:meth:`ContingencyTable.of`), and then asked for what the
statistics need: the labelled table (:meth:`~ContingencyTable.frame`), the adjusted residuals
(:meth:`~ContingencyTable.residuals`), Cramér's V (:meth:`~ContingencyTable.cramers_v`) and paper A's ratio
tables (:meth:`~ContingencyTable.ratios`). The tests take it in place of their ``data``
(:func:`fairstats.equal_confusion_test`, :func:`fairstats.cramers_v_interval`,
:func:`fairstats.bootstrap_cramers_v`, :func:`fairstats.confusion_table`, ...), so that the audit counts each
grouping's table once for the test, its V interval and its equivalence test.

Groups and cells without any case are left out, with a note each; labels are sorted (categories in their
declared order), never in set or hash order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats.contingency import association
from statsmodels.stats.contingency_tables import Table

from fairstats._validation import as_list, checked_frame
from fairstats.counts import as_rows
from fairstats.groups import intersection_label

__all__ = ["BINARY_CELLS", "ContingencyTable", "column_names_iv", "drop_empty", "group_codes"]

#: Binary cells in the paper's printed order: (label, y_pred, y_true).
BINARY_CELLS: tuple[tuple[str, int, int], ...] = (("TP", 1, 1), ("FN", 0, 1), ("FP", 1, 0), ("TN", 0, 0))


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

    Shared by :meth:`ContingencyTable.from_rows`, the large-data tables of :mod:`fairstats.scale` and
    the decision tables of :mod:`fairstats.levels`. Returns the labelled
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


@dataclass(frozen=True)
class ContingencyTable:
    """The group × confusion-cell table ``O`` of one grouping, with its labels and notes.

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
    """

    observed: pd.DataFrame
    cells: pd.DataFrame
    group_columns: tuple[str, ...]
    notes: tuple[str, ...]

    @classmethod
    def of(cls, data: object, group: object, y_true: object, y_pred: object) -> ContingencyTable:
        """``data`` itself when it is a :class:`ContingencyTable` of ``group`` (``ValueError`` when it is of
        other columns), else :meth:`from_rows`."""
        if isinstance(data, ContingencyTable):
            columns = tuple(as_list(group, name="group"))
            if columns != data.group_columns:
                raise ValueError(
                    f"`group` {list(columns)!r} is not the table's grouping {list(data.group_columns)!r}"
                )
            return data
        return cls.from_rows(data, group, y_true, y_pred)

    @classmethod
    def from_rows(cls, data: object, group: object, y_true: object, y_pred: object) -> ContingencyTable:
        """Count the table from rows: one per person, or counts (``fairstats.Counts``, another engine's
        frame, counted there). Binary 0/1 labels give the cells ``TP, FN, FP, TN``, other labels one cell
        ``"pred=a, true=b"`` per pair in sorted order."""
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
        return cls(observed=observed, cells=cells, group_columns=tuple(group_columns), notes=tuple(notes))

    @classmethod
    def from_observed(cls, observed: object) -> ContingencyTable:
        """A table already counted: a DataFrame of integer counts, groups x cells, with no empty group or
        cell (``TypeError``/``ValueError`` naming ``observed`` otherwise). Its ``attrs`` (those of
        :meth:`frame`) give the cells' labels, the group columns and the notes."""
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
