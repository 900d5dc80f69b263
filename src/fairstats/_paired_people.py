r"""Two models on the same people, counted once: the input of :mod:`fairstats.disparity_change`.

:func:`count_iv` counts the data over (groups, fold, outcome, both decisions, both scores) and checks it into
:class:`Counted`: per distinct row its group, fold, cell of (outcome, baseline decision, new decision)
(:func:`fairstats._paired.cell_codes`), scores and number of people. :func:`people_moments` gives each
comparison's moments for the delta method over people (each group's pair of values and its covariance,
:mod:`fairstats._paired`; the groups independent), :func:`fold_values` each fold's values for the corrected t
(:func:`fairstats._change_tests.fold_moments`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._change_tests import Options, moments
from fairstats._format import plain as _plain
from fairstats._paired import (
    RATE_METRICS,
    auc_pair,
    auc_values,
    cell_codes,
    mean_pair,
    rate_pair,
    rate_values,
)
from fairstats._score_input import labels_iv
from fairstats._validation import CheckedFrame, as_list
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.groups import group_labels

__all__ = ["METHOD_AUC", "METHOD_MEAN", "METHOD_RATE", "Counted", "count_iv", "fold_values", "people_moments"]

METHOD_RATE = (
    "paired delta method on the (outcome, baseline decision, decision) counts of each group "
    "(Moskowitz & Pepe 2006), +{k:g} per cell in the variance; normal z"
)
METHOD_AUC = "paired DeLong covariance of the two AUCs in each group (DeLong et al. 1988); normal z"
METHOD_MEAN = "paired covariance of the two mean scores in each group; normal z"


def _binary_iv(table: pd.DataFrame, column: str, parameter: str, favorable: object) -> np.ndarray:
    """``table[column] == favorable`` for a column of 0/1 labels (the messages of
    :func:`fairstats.group_metrics`)."""
    values = table[column]
    for label in pd.unique(values):
        if label not in (0, 1):  # 0/1, 0.0/1.0 or False/True
            raise ValueError(
                f"`{parameter}`: column {column!r} has value {_plain(label)!r}; expected 0/1 labels "
                f"(favorable={favorable!r})"
            )
    return (values == favorable).to_numpy()


def _score_iv(table: pd.DataFrame, column: str, parameter: str) -> np.ndarray:
    values = table[column]
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        raise ValueError(f"`{parameter}`: column {column!r} must hold numbers, got {values.dtype}")
    out = values.to_numpy(dtype=float)
    if not np.isfinite(out).all():
        raise ValueError(
            f"`{parameter}`: column {column!r} has a value that is not finite, "
            f"{float(out[~np.isfinite(out)][0])!r}"
        )
    return out


@dataclass(frozen=True)
class Counted:
    """The people counted once: per distinct row, its group, fold, cell, scores and number of people."""

    grouping: str
    groups: tuple[str, ...]
    reference: str
    group: np.ndarray  # index into groups
    fold: np.ndarray | None  # fold code
    n_folds: int
    cell: np.ndarray
    positive: np.ndarray | None  # outcome == pos_label (the AUC's cases)
    truth: np.ndarray  # outcome == favorable
    score_base: np.ndarray | None
    score_new: np.ndarray | None
    weight: np.ndarray


def count_iv(
    data,
    group,
    y_true,
    y_pred,
    y_pred_baseline,
    y_score,
    y_score_baseline,
    fold,
    favorable,
    pos_label,
    reference,
) -> Counted:
    columns = as_list(group, name="group")
    named = {"y_true": y_true, "y_pred": y_pred, "y_pred_baseline": y_pred_baseline}
    if fold is not None:
        named["fold"] = fold
    if (y_score is None) != (y_score_baseline is None):
        raise ValueError("`y_score` and `y_score_baseline` go together: give both models' scores, or neither")
    if y_score is not None:
        named.update(y_score=y_score, y_score_baseline=y_score_baseline)
    for name, value in named.items():
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be one column name, got {value!r}")
    used = [*columns, *named.values()]
    if len(set(used)) != len(used):
        raise ValueError(
            f"`group`, {', '.join(f'`{n}`' for n in named)} must name different columns, got {used!r}"
        )
    if favorable not in (0, 1) or isinstance(favorable, bool):
        raise ValueError(
            f"`favorable` must be 0 or 1 (the label of the favourable outcome), got {favorable!r}"
        )
    if isinstance(data, CheckedFrame):  # a pandas frame checked by an outer call (an audit mode)
        data = data.frame
    table = Counts.from_frame(data, columns=used).table
    truth = _binary_iv(table, y_true, "y_true", favorable)
    base = _binary_iv(table, y_pred_baseline, "y_pred_baseline", favorable)
    new = _binary_iv(table, y_pred, "y_pred", favorable)
    combos = table[columns].drop_duplicates()
    try:
        combos = combos.sort_values(columns, kind="stable")
    except TypeError:
        raise TypeError(
            f"`group` {columns!r}: a column mixes values that cannot be sorted; use one type"
        ) from None
    order = list(dict.fromkeys(group_labels(combos, columns)))
    if len(order) < 2:
        raise ValueError(
            f"`group` {columns!r} has {len(order)} group {order!r}; a disparity needs at least 2"
        )
    index = {g: i for i, g in enumerate(order)}
    codes = np.array([index[g] for g in group_labels(table, columns)], dtype=np.int64)
    weight = table[COUNT_COLUMN].to_numpy(dtype=float)
    if reference is None:
        sizes = np.bincount(codes, weights=weight, minlength=len(order))
        reference = order[int(np.argmax(sizes))]
    elif str(reference) not in index:
        raise ValueError(
            f"`reference`: group {reference!r} does not occur in `group` {' x '.join(columns)!r}; "
            f"groups: {order!r}"
        )
    fold_code, n_folds = None, 0
    if fold is not None:
        fold_code, uniques = pd.factorize(table[fold], sort=True)
        n_folds = len(uniques)
        if n_folds < 2:
            raise ValueError(f"`fold`: column {fold!r} has {n_folds} fold; the fold version needs at least 2")
    positive = score_base = score_new = None
    if y_score is not None:
        labels = pd.unique(table[y_true])
        pos = labels_iv(labels, pos_label, f"`y_true`: column {y_true!r}")
        positive = (table[y_true] == pos).to_numpy()
        score_base = _score_iv(table, y_score_baseline, "y_score_baseline")
        score_new = _score_iv(table, y_score, "y_score")
    elif pos_label is not None:
        raise ValueError(
            "`pos_label` names the outcome the scores predict; give `y_score` and "
            "`y_score_baseline`, or leave it out"
        )
    return Counted(
        " x ".join(columns),
        tuple(order),
        str(reference),
        codes,
        fold_code,
        n_folds,
        cell_codes(truth, base, new),
        positive,
        truth,
        score_base,
        score_new,
        weight,
    )


# --------------------------------------------------------------------------------------------------------
# the two paths: people (delta method) and folds (corrected t)
# --------------------------------------------------------------------------------------------------------


def _pair(counted: Counted, mask: np.ndarray, metric: str, pseudo_count: float):
    """(values (base, new), covariance, reason) of ``metric`` over the people of ``mask``."""
    if metric in RATE_METRICS:
        counts = np.bincount(counted.cell[mask], weights=counted.weight[mask], minlength=8)
        return rate_pair(counts, metric, pseudo_count)
    if metric == "auc":
        return auc_pair(
            counted.score_base[mask], counted.score_new[mask], counted.positive[mask], counted.weight[mask]
        )
    cls = counted.truth if metric == "mean_score_pos" else ~counted.truth
    keep = mask & cls
    return mean_pair(counted.score_base[keep], counted.score_new[keep], counted.weight[keep])


def _changed(counted: Counted, mask: np.ndarray) -> float:
    """People of ``mask`` whose two decisions differ."""
    differ = ((counted.cell >> 1) & 1) != (counted.cell & 1)
    return float(counted.weight[mask & differ].sum())


def people_moments(counted: Counted, metrics, options: Options, pseudo_count: float) -> list[dict]:
    ratio = options.scale == "ratio"
    masks = [counted.group == i for i in range(len(counted.groups))]
    ref = counted.groups.index(counted.reference)
    rows = []
    for m in metrics:
        pairs = [_pair(counted, mask, m, pseudo_count) for mask in masks]
        on_ratio = ratio and m in RATE_METRICS
        method = (
            METHOD_RATE.format(k=pseudo_count)
            if m in RATE_METRICS
            else METHOD_AUC
            if m == "auc"
            else METHOD_MEAN
        )
        for i, g in enumerate(counted.groups):
            if i == ref:
                continue
            (vg, cg, rg), (vr, cr, rr) = pairs[i], pairs[ref]
            reason = f"group {g!r}: {rg}" if rg else f"reference {counted.reference!r}: {rr}" if rr else ""
            if not reason and on_ratio:
                zero = [w for w, v in ((g, vg), (counted.reference, vr)) if (v <= 0).any()]
                if zero:
                    reason = f"ratio undefined: {m} is 0 in group {zero[0]!r} for a model"
                else:  # log scale: the delta method's Jacobian diag(1 / m)
                    cg, cr = cg / np.outer(vg, vg), cr / np.outer(vr, vr)
                    vg, vr = np.log(vg), np.log(vr)
            d = vg - vr  # (base, new)
            cov = cg + cr  # the groups hold different people
            rows.append(
                moments(
                    grouping=counted.grouping,
                    group=g,
                    reference=counted.reference,
                    family="fairness",
                    metric=m,
                    scale="ratio" if on_ratio else "difference",
                    base=d[0],
                    new=d[1],
                    var_u=cov[0, 0] + cov[1, 1] - 2 * cov[0, 1],
                    var_v=cov[0, 0] + cov[1, 1] + 2 * cov[0, 1],
                    df=np.inf,
                    n=float(counted.weight[masks[i]].sum()),
                    n_reference=float(counted.weight[masks[ref]].sum()),
                    n_changed=_changed(counted, masks[i]),
                    n_changed_reference=_changed(counted, masks[ref]),
                    n_folds=np.nan,
                    method=method,
                    reason=reason,
                )
            )
    everyone = np.ones(counted.weight.size, dtype=bool)
    for m in ("accuracy", *(("auc",) if counted.score_base is not None and "auc" in metrics else ())):
        v, c, reason = _pair(counted, everyone, m, pseudo_count)
        rows.append(
            moments(
                grouping="",
                group="",
                reference="",
                family="accuracy",
                metric=m,
                scale="difference",
                base=v[0],
                new=v[1],
                var_u=c[0, 0] + c[1, 1] - 2 * c[0, 1],
                var_v=np.nan,
                df=np.inf,
                n=float(counted.weight.sum()),
                n_reference=np.nan,
                n_changed=_changed(counted, everyone),
                n_changed_reference=np.nan,
                n_folds=np.nan,
                method=METHOD_RATE.format(k=pseudo_count) if m == "accuracy" else METHOD_AUC,
                reason=reason,
            )
        )
    return rows


def _values(counted: Counted, mask: np.ndarray, metric: str) -> tuple[float, float]:
    """(baseline, new) value of a score metric over the people of ``mask`` (NaN over no one)."""
    if metric == "auc":
        positive, weight = counted.positive[mask], counted.weight[mask]
        return tuple(auc_values(s[mask], positive, weight) for s in (counted.score_base, counted.score_new))
    keep = mask & (counted.truth if metric == "mean_score_pos" else ~counted.truth)
    w = counted.weight[keep]
    if not w.sum() > 0:
        return float("nan"), float("nan")
    return tuple(float(s[keep] @ w / w.sum()) for s in (counted.score_base, counted.score_new))


def fold_values(counted: Counted, metrics) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per fold: each group's metrics for both models (``fold, group, metric, value, value_baseline``), and
    the models' accuracy (AUC) over everyone (``fold, metric, value, value_baseline``)."""
    n_groups, folds = len(counted.groups), np.arange(counted.n_folds)
    key = counted.fold * n_groups + counted.group
    counts = np.bincount(
        key * 8 + counted.cell, weights=counted.weight, minlength=counted.n_folds * n_groups * 8
    ).reshape(counted.n_folds, n_groups, 8)

    def frame(metric, base, new, **keys):
        return pd.DataFrame({**keys, "metric": metric, "value": new, "value_baseline": base})

    parts = []
    for m in metrics:
        if m in RATE_METRICS:
            base, new = rate_values(counts, m, "base"), rate_values(counts, m, "new")
        else:
            pairs = np.array(
                [
                    [_values(counted, (counted.fold == f) & (counted.group == g), m) for g in range(n_groups)]
                    for f in folds
                ]
            )  # (folds, groups, 2)
            base, new = pairs[..., 0], pairs[..., 1]
        for g, label in enumerate(counted.groups):
            parts.append(frame(m, base[:, g], new[:, g], fold=folds, group=label))
    total = counts.sum(axis=1)
    overall = [
        frame(
            "accuracy",
            rate_values(total, "accuracy", "base"),
            rate_values(total, "accuracy", "new"),
            fold=folds,
        )
    ]
    if counted.score_base is not None and "auc" in metrics:
        aucs = np.array([_values(counted, counted.fold == f, "auc") for f in folds])
        overall.append(frame("auc", aucs[:, 0], aucs[:, 1], fold=folds))
    return pd.concat(parts, ignore_index=True), pd.concat(overall, ignore_index=True)
