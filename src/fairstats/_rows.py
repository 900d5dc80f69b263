"""A decision's rows, checked once: the cells and metrics they are counted into, the checks of the labels
and columns, and the two-group sample.

The shared piece below the families that count decisions: :mod:`fairstats.metrics` (group metrics),
:mod:`fairstats.bootstrap`, :mod:`fairstats.folds`, :mod:`fairstats.outcomes`, :mod:`fairstats.search` and the
audit. :data:`CELLS` and :data:`METRIC_DEFINITIONS` say what is counted (re-exported by
:mod:`fairstats.metrics`); :func:`favorable_iv`, :func:`binary_labels_iv` and :func:`decision_rows_iv` check a
frame's labels and columns; :func:`two_group_rows` validates a frame once for the two-group functions and
returns a :class:`TwoGroupRows` (each row's confusion cell, with the two groups' masks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._format import plain as _plain
from fairstats._validation import CheckedFrame, as_list, checked_frame, group_pair_iv
from fairstats.counts import as_rows
from fairstats.groups import group_labels

__all__ = [
    "CELLS",
    "METRICS",
    "METRIC_COEFFICIENTS",
    "METRIC_DEFINITIONS",
    "SCORE_METRICS",
    "TwoGroupRows",
    "binary_labels_iv",
    "decision_rows_iv",
    "favorable_iv",
    "ordered_groups",
    "two_group_rows",
]

#: Confusion cells, in output order (favourable outcome = "positive").
CELLS: tuple[str, ...] = ("tp", "fp", "fn", "tn")

#: Metric name -> (numerator, denominator, meaning). ``fav`` is the favourable label, S the score.
METRIC_DEFINITIONS: dict[str, tuple[str, str, str]] = {
    "ppr": ("tp + fp", "n", "P(ŷ = fav): positive (favourable) prediction rate; group fairness (II-B)"),
    "tpr": ("tp", "tp + fn", "P(ŷ = fav | y = fav); equalized odds (II-F)"),
    "fpr": ("fp", "fp + tn", "P(ŷ = fav | y ≠ fav); predictive equality (II-D), equalized odds (II-F)"),
    "fnr": ("fn", "tp + fn", "P(ŷ ≠ fav | y = fav); equal opportunity (II-E)"),
    "tnr": ("tn", "fp + tn", "P(ŷ ≠ fav | y ≠ fav)"),
    "ppv": (
        "tp",
        "tp + fp",
        "P(y = fav | ŷ = fav); predictive parity (II-C), conditional use accuracy (II-G)",
    ),
    "npv": ("tn", "tn + fn", "P(y ≠ fav | ŷ ≠ fav); conditional use accuracy equality (II-G)"),
    "accuracy": ("tp + tn", "n", "P(ŷ = y); overall accuracy equality (II-H)"),
    "fn_fp_ratio": ("fn", "fp", "FN / FP; treatment equality (II-I)"),
    "mean_score_pos": (
        "sum of S over y = fav",
        "tp + fn",
        "E(S | y = fav); balance for positive class (II-L)",
    ),
    "mean_score_neg": (
        "sum of S over y ≠ fav",
        "fp + tn",
        "E(S | y ≠ fav); balance for negative class (II-M)",
    ),
}

#: Metric names in output order.
METRICS: tuple[str, ...] = tuple(METRIC_DEFINITIONS)
#: The metrics that need a score.
SCORE_METRICS: tuple[str, ...] = ("mean_score_pos", "mean_score_neg")

#: Numerator and denominator of each metric as coefficients over the cells (tp, fp, fn, tn), the order of
#: :data:`CELLS`; the score metrics' numerators are score sums (:mod:`fairstats.bootstrap`).
METRIC_COEFFICIENTS: dict[str, tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = {
    "ppr": ((1, 1, 0, 0), (1, 1, 1, 1)),
    "tpr": ((1, 0, 0, 0), (1, 0, 1, 0)),
    "fpr": ((0, 1, 0, 0), (0, 1, 0, 1)),
    "fnr": ((0, 0, 1, 0), (1, 0, 1, 0)),
    "tnr": ((0, 0, 0, 1), (0, 1, 0, 1)),
    "ppv": ((1, 0, 0, 0), (1, 1, 0, 0)),
    "npv": ((0, 0, 0, 1), (0, 0, 1, 1)),
    "accuracy": ((1, 0, 0, 1), (1, 1, 1, 1)),
    "fn_fp_ratio": ((0, 0, 1, 0), (0, 1, 0, 0)),
    "mean_score_pos": ((0, 0, 0, 0), (1, 0, 1, 0)),
    "mean_score_neg": ((0, 0, 0, 0), (0, 1, 0, 1)),
}


def favorable_iv(favorable: object) -> int:
    """``favorable`` as 0 or 1, the label of the favourable outcome (``ValueError`` naming it otherwise)."""
    if isinstance(favorable, bool) or favorable not in (0, 1):
        raise ValueError(
            f"`favorable` must be 0 or 1 (the label of the favourable outcome), got {favorable!r}"
        )
    return int(favorable)


def binary_labels_iv(data: pd.DataFrame, column: str, favorable: object, parameter: str) -> np.ndarray:
    """Return ``data[column] == favorable`` as booleans; the column must hold 0/1 labels only."""
    values = data[column]
    if pd.api.types.is_float_dtype(values) and not np.all(np.isin(values.to_numpy(), (0.0, 1.0))):
        bad = _plain(values[~values.isin((0.0, 1.0))].iloc[0])
        raise ValueError(f"`{parameter}`: column {column!r} must be binary (0/1), found value {bad!r}")
    labels = pd.unique(values)
    if len(labels) > 2:
        raise ValueError(
            f"`{parameter}`: column {column!r} must be binary, found {len(labels)} distinct values, "
            f"e.g. {sorted(map(str, labels))[:5]}"
        )
    allowed = {0, 1, favorable}
    for label in labels:
        if label not in allowed:
            raise ValueError(
                f"`{parameter}`: column {column!r} has value {_plain(label)!r}; expected 0/1 labels "
                f"(favorable={favorable!r})"
            )
    return (values == favorable).to_numpy()


def decision_rows_iv(
    data: object,
    y_true: str,
    y_pred: str,
    y_score: str | None,
    group: str,
    fold: str | None,
    by: Sequence[str],
    favorable: object,
) -> tuple[pd.DataFrame, list[str], np.ndarray | None]:
    """The decision columns checked (names, strata, the favourable label, a score in [0, 1]) and the rows:
    ``(frame, strata, weight)``, a pandas frame as it is and any other engine's frame or Counts counted."""
    if by is None:
        by = ()
    elif isinstance(by, str):
        by = (by,)
    if not isinstance(by, Sequence) or not all(isinstance(b, str) for b in by):
        raise TypeError(f"`by` must be a sequence of column names (possibly empty), got {by!r}")
    for name, value in (("y_true", y_true), ("y_pred", y_pred), ("group", group)):
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be a column name (str), got {value!r}")
    if fold is not None and not isinstance(fold, str):
        raise TypeError(f"`fold` must be a column name (str) or None, got {fold!r}")
    if y_score is not None and not isinstance(y_score, str):
        raise TypeError(f"`y_score` must be a column name (str) or None, got {y_score!r}")
    favorable_iv(favorable)
    strata = [*by, *([fold] if fold is not None else [])]
    if group in strata:
        raise ValueError(f"`group` column {group!r} is also a stratum column (`by`/`fold`)")
    if len(set(strata)) != len(strata):
        raise ValueError(f"stratum columns repeat: {strata!r}")
    columns = [*strata, group, y_true, y_pred, *([y_score] if y_score is not None else [])]
    # a pandas frame as it is; any other engine's frame (polars, pyarrow, DuckDB, Spark) or Counts counted
    data, weight = as_rows(data, columns, where="`data`")
    data = checked_frame(data, columns, where="data").frame
    if y_score is not None:
        score = data[y_score]
        if not pd.api.types.is_numeric_dtype(score):
            raise TypeError(f"`y_score`: column {y_score!r} must be numeric, got dtype {score.dtype}")
        out = (score < 0) | (score > 1)
        if out.any():
            raise ValueError(
                f"`y_score`: column {y_score!r} must lie in [0, 1], found {_plain(score[out].iloc[0])!r} "
                f"at row {_plain(score.index[out.to_numpy()][0])!r}"
            )
    return data, strata, weight


def ordered_groups(data: pd.DataFrame, columns: list[str]) -> list[str]:
    """Group labels present in ``data``, in :meth:`fairstats.ContingencyTable.from_frame`'s order (sorted by
    the columns' values)."""
    combos = data[columns].drop_duplicates()
    try:
        combos = combos.sort_values(columns, kind="stable")
    except TypeError:
        raise TypeError(
            f"`group` {columns!r}: a column mixes values that cannot be sorted; use one type"
        ) from None
    return group_labels(combos, columns).tolist()


@dataclass(frozen=True)
class TwoGroupRows:
    """The rows of two groups, validated once (:func:`two_group_rows`): each row's favourable-relative cell
    and score, and the masks of the two groups compared."""

    data: CheckedFrame  # the user's frame, its used columns checked: pass it on, not the bare frame
    columns: list[str]
    labels: pd.Series
    group_a: str
    group_b: str
    metrics: tuple[str, ...]
    cell: np.ndarray  # per row, favourable-relative cell 0..3
    score: np.ndarray | None
    mask_a: np.ndarray
    mask_b: np.ndarray
    weight: np.ndarray | None = None  # people per row when the rows are counts (fairstats.counts)


def two_group_rows(data, group, y_true, y_pred, y_score, groups, metrics, favorable, *, where="`data`"):
    """Shared validation of the two-group functions; returns the rows' cells and the two groups' masks."""
    columns = as_list(group, name="group")
    for name, value in (("y_true", y_true), ("y_pred", y_pred)):
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be one column name, got {value!r}")
    if y_score is not None and not isinstance(y_score, str):
        raise TypeError(f"`y_score` must be a column name or None, got {y_score!r}")
    used = [*columns, y_true, y_pred, *([y_score] if y_score is not None else [])]
    data, weight = as_rows(data, used, where=where)  # a pandas frame or CheckedFrame as it is, else counted
    checked = checked_frame(data, used, where=where)
    data = checked.frame
    favorable_iv(favorable)
    # validation of labels and score (binary 0/1, score in [0, 1]): fairstats.metrics' checks, its messages
    labels = group_labels(checked, columns)
    label_column = "__fairstats_group__"
    frame = pd.DataFrame(
        {
            label_column: labels.to_numpy(),
            "y_true": data[y_true].to_numpy(),
            "y_pred": data[y_pred].to_numpy(),
        },
    )
    if y_score is not None:
        frame["y_score"] = data[y_score].to_numpy()
    try:
        decision_rows_iv(
            frame,
            "y_true",
            "y_pred",
            "y_score" if y_score is not None else None,
            label_column,
            None,
            (),
            favorable,
        )
        true_fav = binary_labels_iv(frame, "y_true", favorable, "y_true")
        pred_fav = binary_labels_iv(frame, "y_pred", favorable, "y_pred")
    except (ValueError, TypeError) as err:
        message = str(err).replace("'y_true'", repr(y_true)).replace("'y_pred'", repr(y_pred))
        if y_score is not None:
            message = message.replace("'y_score'", repr(y_score))
        raise type(err)(message) from None
    order = ordered_groups(data, columns)
    if groups is None:
        if len(order) != 2:
            raise ValueError(
                f"`group` {columns!r} has {len(order)} groups {order[:6]!r}; name the two to compare with "
                "`groups=(a, b)`"
            )
        group_a, group_b = order
    else:
        group_a, group_b = (str(g) for g in group_pair_iv(groups))
        for g in (group_a, group_b):
            if g not in order:
                raise ValueError(
                    f"`groups`: group {g!r} does not occur in `group` {columns!r}; groups: {order!r}"
                )
        if group_a == group_b:
            raise ValueError(f"`groups` names the same group twice: {group_a!r}")
    available = [m for m in METRICS if y_score is not None or m not in SCORE_METRICS]
    if metrics is None:
        metrics = tuple(available)
    else:
        metrics = tuple(as_list(metrics, name="metrics"))
        for m in metrics:
            if m not in METRICS:
                raise ValueError(f"`metrics`: unknown metric {m!r}; choose from {list(METRICS)}")
            if m in SCORE_METRICS and y_score is None:
                raise ValueError(f"`metrics`: {m!r} needs `y_score`")
    cell = np.where(pred_fav, np.where(true_fav, 0, 1), np.where(true_fav, 2, 3)).astype(np.int64)
    score = data[y_score].to_numpy(dtype=float) if y_score is not None else None
    values = labels.to_numpy()
    return TwoGroupRows(
        data=checked,
        columns=columns,
        labels=labels,
        group_a=group_a,
        group_b=group_b,
        metrics=metrics,
        cell=cell,
        score=score,
        mask_a=values == group_a,
        mask_b=values == group_b,
        weight=weight,
    )
