"""Group labels, and the validated two-group sample that the bootstrap, the outcome tests and the fold-aware
disparity share.

:func:`group_labels` names each row's group as :func:`fairstats.confusion.confusion_table` does; the private
``_prepare_iv`` validates a frame once for the two-group functions (columns, labels, score, the two groups,
the metrics) and returns each row's confusion cell with the two groups' masks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._validation import CheckedFrame, as_list, checked_frame
from fairstats.counts import as_rows
from fairstats.metrics import METRICS, _binary_iv, _counts_iv

__all__ = ["group_labels", "intersection_label"]

_SCORE_METRICS = ("mean_score_pos", "mean_score_neg")
_SEPARATOR = " - "


def _as_written(part: str) -> bool:
    """A part shown as written: non-empty, no separator inside or at an edge, no leading quote."""
    return (
        part != ""
        and " -" not in part
        and "- " not in part
        and not part[0].isspace()
        and not part[-1].isspace()
        and part[0] not in "-'\""
        and part[-1] != "-"
    )


def intersection_label(values: Sequence[object]) -> str:
    """Display label of one intersectional group: its values as text joined by ``" - "``, unambiguously.

    A value that could blur the separator (it contains ``" -"`` or ``"- "``, starts or ends with white space
    or ``-``, starts with a quote, or is empty) is written as a quoted Python literal (``repr``), so that two
    different tuples never get the same label: ``("x - y", "w")`` gives ``'x - y' - w`` and ``("x", "y - w")``
    gives ``x - 'y - w'``. Ordinary values are unchanged (``"Female - African-American"``), and so is the
    value of a single column.
    """
    texts = [str(v) for v in values]
    if len(texts) == 1:  # one column: its value as it is
        return texts[0]
    return _SEPARATOR.join(t if _as_written(t) else repr(t) for t in texts)


def group_labels(data: pd.DataFrame, group: str | Sequence[str]) -> pd.Series:
    """Group label of each row: the column's value as text, or the listed columns' values joined by ``" - "``
    (:func:`intersection_label`, unambiguous).

    The labels are those of :func:`fairstats.confusion.confusion_table` (``"Female - African-American"`` for
    ``group=["sex", "race"]``), so that tables from both modules line up.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per person.
    group : str or list of str
        Sensitive attribute column(s).

    Returns
    -------
    pandas.Series
        Strings, index of ``data``, named ``" x ".join(group)``.

    Raises
    ------
    ValueError
        A column is missing or holds NaN.
    """
    columns = as_list(group, name="group")
    data = checked_frame(data, columns).frame
    if len(columns) == 1:
        labels = data[columns[0]].astype(str).to_numpy(dtype=object)
    else:  # one label per distinct combination, not per row: factorize each column, label the combinations
        # on the values' text, which is all a label depends on (1 and 1.0 hash alike but read "1", "1.0")
        factors = [pd.factorize(data[c].astype(str).to_numpy(dtype=object)) for c in columns]
        shape = [max(len(u), 1) for _, u in factors]
        flat = np.ravel_multi_index([codes for codes, _ in factors], shape)
        combos, inverse = np.unique(flat, return_inverse=True)
        parts = np.unravel_index(combos, shape)
        uniques = [u for _, u in factors]
        names = np.array(
            [intersection_label([u[i] for u, i in zip(uniques, idx, strict=True)])
             for idx in zip(*parts, strict=True)],
            dtype=object,
        )  # fmt: skip
        labels = names.take(inverse.ravel())
    return pd.Series(labels, index=data.index, name=" x ".join(columns))


def _ordered_groups(data: pd.DataFrame, columns: list[str]) -> list[str]:
    """Group labels present in ``data``, in :func:`confusion_table` order (sorted by the columns' values)."""
    combos = data[columns].drop_duplicates()
    try:
        combos = combos.sort_values(columns, kind="stable")
    except TypeError:
        raise TypeError(
            f"`group` {columns!r}: a column mixes values that cannot be sorted; use one type"
        ) from None
    return group_labels(combos, columns).tolist()


@dataclass(frozen=True)
class _Prepared:
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


def _prepare_iv(data, group, y_true, y_pred, y_score, groups, metrics, favorable, *, where="`data`"):
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
    if favorable not in (0, 1):
        raise ValueError(
            f"`favorable` must be 0 or 1 (the label of the favourable outcome), got {favorable!r}"
        )
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
        _counts_iv(frame, "y_true", "y_pred", "y_score" if y_score is not None else None, label_column,
                   None, (), favorable)
        true_fav = _binary_iv(frame, "y_true", favorable, "y_true")
        pred_fav = _binary_iv(frame, "y_pred", favorable, "y_pred")
    except (ValueError, TypeError) as err:
        message = str(err).replace("'y_true'", repr(y_true)).replace("'y_pred'", repr(y_pred))
        if y_score is not None:
            message = message.replace("'y_score'", repr(y_score))
        raise type(err)(message) from None
    order = _ordered_groups(data, columns)
    if groups is None:
        if len(order) != 2:
            raise ValueError(
                f"`group` {columns!r} has {len(order)} groups {order[:6]!r}; name the two to compare with "
                "`groups=(a, b)`"
            )
        group_a, group_b = order
    else:
        if isinstance(groups, str) or not isinstance(groups, Sequence) or len(groups) != 2:
            raise TypeError(f"`groups` must be a pair (a, b) of group labels, got {groups!r}")
        group_a, group_b = (str(g) for g in groups)
        for g in (group_a, group_b):
            if g not in order:
                raise ValueError(
                    f"`groups`: group {g!r} does not occur in `group` {columns!r}; groups: {order!r}"
                )
        if group_a == group_b:
            raise ValueError(f"`groups` names the same group twice: {group_a!r}")
    available = [m for m in METRICS if y_score is not None or m not in _SCORE_METRICS]
    if metrics is None:
        metrics = tuple(available)
    else:
        metrics = tuple(as_list(metrics, name="metrics"))
        for m in metrics:
            if m not in METRICS:
                raise ValueError(f"`metrics`: unknown metric {m!r}; choose from {list(METRICS)}")
            if m in _SCORE_METRICS and y_score is None:
                raise ValueError(f"`metrics`: {m!r} needs `y_score`")
    cell = np.where(pred_fav, np.where(true_fav, 0, 1), np.where(true_fav, 2, 3)).astype(np.int64)
    score = data[y_score].to_numpy(dtype=float) if y_score is not None else None
    values = labels.to_numpy()
    return _Prepared(
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
