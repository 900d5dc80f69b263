"""Per-fold, per-group confusion counts and conditional rates, with the favourable outcome explicit.

One pass over the data: every row gets one integer code that combines its stratum (the ``by`` columns and
the fold), its group and its confusion cell, and a single :func:`numpy.bincount` counts them all. No Python
loop runs per fold or per group.

Which cell is which (``favorable`` is the label of the favourable outcome, the paper's "positive" class;
in the NIJ paper ``favorable=0``, no recidivism, for the truth *and* the prediction):

=========  ==============================  =========================  ============================
cell       definition                      favorable=0 (paper B)      authors' Confusion Distribution
=========  ==============================  =========================  ============================
``tp``     ŷ = favorable, y = favorable    ŷ = 0, y = 0               A (White) / B (Black)
``fp``     ŷ = favorable, y ≠ favorable    ŷ = 0, y = 1               C / D
``tn``     ŷ ≠ favorable, y ≠ favorable    ŷ = 1, y = 1               E / F
``fn``     ŷ ≠ favorable, y = favorable    ŷ = 1, y = 0               G / H
=========  ==============================  =========================  ============================

The metrics are proper conditional rates of these cells (see :data:`METRIC_DEFINITIONS`); a rate whose
denominator is 0 is undefined and stays NaN (never 0, never dropped); :func:`undefined_counts` counts them
and :func:`group_metrics` warns with :class:`UndefinedMetricWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from fairstats._rows import CELLS, METRIC_DEFINITIONS, METRICS, binary_labels_iv, decision_rows_iv
from fairstats._validation import require_columns, require_frame
from fairstats._warnings import UndefinedMetricWarning

__all__ = [
    "CELLS",
    "METRICS",
    "METRIC_DEFINITIONS",
    "UndefinedMetricWarning",
    "confusion_counts",
    "group_metrics",
    "undefined_counts",
]

# --------------------------------------------------------------------------------------------------------
# counting
# --------------------------------------------------------------------------------------------------------


def _cell_counts(
    data: pd.DataFrame,
    *,
    y_true: str,
    y_pred: str,
    y_score: str | None,
    group: str,
    strata: list[str],
    favorable: object,
    weight: np.ndarray | None = None,
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray | None]:
    """Counts per (stratum, group) of the four cells, and score sums per (stratum, group, true class).

    Returns the key frame (strata + group, every group for every observed stratum, sorted), an integer array
    of shape (n_keys, 4) in :data:`CELLS` order, and float score sums of shape (n_keys, 2)
    (column 0: y = favorable, column 1: y ≠ favorable) or None. ``weight`` (counted input: people per row)
    weights every row; counts stay exact integers (float64 holds them exactly below 2**53).
    """
    true_fav = binary_labels_iv(data, y_true, favorable, "y_true")
    pred_fav = binary_labels_iv(data, y_pred, favorable, "y_pred")

    # stratum code: one integer per observed combination of the stratum columns, in sorted order
    if strata:
        codes = []
        uniques = []
        for column in strata:
            c, u = pd.factorize(data[column], sort=True)
            codes.append(c)
            uniques.append(u)
        flat = np.ravel_multi_index(codes, [len(u) for u in uniques])
        observed, stratum_code = np.unique(flat, return_inverse=True)
        unravelled = np.unravel_index(observed, [len(u) for u in uniques])
        stratum_keys = pd.DataFrame(
            {column: u.take(idx) for column, u, idx in zip(strata, uniques, unravelled, strict=True)}
        )
    else:
        stratum_code = np.zeros(len(data), dtype=np.intp)
        stratum_keys = pd.DataFrame(index=range(1))
    group_code, group_labels = pd.factorize(data[group], sort=True)
    n_strata, n_groups = len(stratum_keys), len(group_labels)

    key = stratum_code * n_groups + group_code
    # cell index in CELLS order: tp=0 (pred fav, true fav), fp=1 (pred fav, true not), fn=2, tn=3
    cell = np.where(pred_fav, np.where(true_fav, 0, 1), np.where(true_fav, 2, 3))
    n_keys = n_strata * n_groups
    if weight is None:
        counts = np.bincount(key * 4 + cell, minlength=n_keys * 4).reshape(n_keys, 4)
    else:
        counts = np.bincount(key * 4 + cell, weights=weight, minlength=n_keys * 4).reshape(n_keys, 4)
        counts = np.rint(counts).astype(np.int64)
    sums = None
    if y_score is not None:
        score = data[y_score].to_numpy(dtype=float)
        if weight is not None:
            score = score * weight
        sums = np.bincount(key * 2 + (~true_fav), weights=score, minlength=n_keys * 2).reshape(n_keys, 2)

    keys = stratum_keys.loc[np.repeat(np.arange(n_strata), n_groups)].reset_index(drop=True)
    keys[group] = group_labels.take(np.tile(np.arange(n_groups), n_strata))
    return keys, counts, sums


def confusion_counts(
    data: object,
    *,
    group: str,
    y_true: str,
    y_pred: str,
    fold: str | None = None,
    by: Sequence[str] | None = None,
    favorable: object = 1,
) -> pd.DataFrame:
    """Count the four confusion cells per stratum (``by`` × ``fold``) and group, favourable outcome explicit.

    Parameters
    ----------
    data : DataFrame or Counts
        One row per person (and model): a pandas, polars, pyarrow, DuckDB or PySpark frame (anything
        narwhals reads; other engines are counted first) or a :class:`fairstats.Counts`.
    group : str
        Column with the group (e.g. race).
    y_true, y_pred : str
        Columns with the observed and predicted binary labels (0/1).
    fold : str or None, default None
        Column with the test fold; None pools all rows of a ``by`` stratum.
    by : sequence of str or None, default None
        Further stratum columns (e.g. ``("model",)``); None or empty: no further strata.
    favorable : {0, 1}, default 1
        Label of the favourable ("positive") outcome, for truth and prediction alike (paper B passes 0,
        no recidivism).

    Returns
    -------
    pandas.DataFrame
        Columns ``*by, fold, group, tp, fp, fn, tn, n`` (integers), sorted by the stratum columns then group.
        Every group appears in every observed stratum (a group absent from a fold gets ``n = 0``).
        ``tp`` = #(ŷ = fav, y = fav), ``fp`` = #(ŷ = fav, y ≠ fav), ``fn`` = #(ŷ ≠ fav, y = fav),
        ``tn`` = #(ŷ ≠ fav, y ≠ fav).

    Raises
    ------
    ValueError
        Missing column, missing values, non-binary labels, ``favorable`` not 0/1.
    TypeError
        ``data`` not a DataFrame or a column name not a string.

    Notes
    -----
    With ``favorable=0`` the cells are the NIJ authors' ``Confusion Distribution.csv`` columns
    A/B (= ``tp``, ŷ = 0 & y = 0), C/D (= ``fp``, ŷ = 0 & y = 1), E/F (= ``tn``, ŷ = 1 & y = 1) and
    G/H (= ``fn``, ŷ = 1 & y = 0), divided there by the group's size.

    References
    ----------
    Paper B (significant-fairness-violations-nij), sections II-B to II-I.

    Examples
    --------
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0], "race": ["B", "B", "W", "W"],
    ...                    "y_true": [0, 1, 0, 1], "y_pred": [0, 0, 1, 1]})
    >>> counts = confusion_counts(df, group="race", y_true="y_true", y_pred="y_pred")
    >>> counts[["race", "tp", "fp", "fn", "tn"]].to_numpy().tolist()
    [['B', 0, 0, 1, 1], ['W', 1, 1, 0, 0]]
    """
    data, strata, weight = decision_rows_iv(data, y_true, y_pred, None, group, fold, by, favorable)
    keys, counts, _ = _cell_counts(
        data, y_true=y_true, y_pred=y_pred, y_score=None, group=group, strata=strata, favorable=favorable,
        weight=weight,
    )
    out = keys.copy()
    for j, cell in enumerate(CELLS):
        out[cell] = counts[:, j].astype(np.int64)
    out["n"] = counts.sum(axis=1).astype(np.int64)
    return out


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    out = np.full(numerator.shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def group_metrics(
    data: object,
    *,
    group: str,
    y_true: str,
    y_pred: str,
    y_score: str | None = None,
    fold: str | None = None,
    by: Sequence[str] | None = None,
    favorable: object = 1,
    form: str = "long",
    warn: bool = True,
) -> pd.DataFrame:
    """Conditional rates per stratum (``by`` × ``fold``) and group, favourable outcome explicit.

    Parameters
    ----------
    data : DataFrame or Counts
        One row per person (and model): a pandas, polars, pyarrow, DuckDB or PySpark frame (anything
        narwhals reads; other engines are counted first) or a :class:`fairstats.Counts`.
    group : str
        Column with the group (e.g. race).
    y_true, y_pred : str
        Columns with the observed and predicted binary labels (0/1).
    y_score : str or None, default None
        Column with the score S in [0, 1] (paper B: P(recidivism) = P(y = 1)), used as is for the mean
        score by true class; None omits ``mean_score_pos``/``mean_score_neg``.
    fold : str or None, default None
        Column with the test fold; None pools all rows of a ``by`` stratum.
    by : sequence of str or None, default None
        Further stratum columns (e.g. ``("model",)``); None or empty: no further strata.
    favorable : {0, 1}, default 1
        Label of the favourable ("positive") outcome, for truth and prediction alike (paper B passes 0).
    form : {"long", "wide"}
        ``"long"``: one row per stratum, group and metric with columns
        ``*by, fold, group, metric, value, numerator, denominator``.
        ``"wide"``: one row per stratum and group, one column per metric (values only).
    warn : bool
        Emit :class:`UndefinedMetricWarning` when some value is undefined (0 denominator).

    Returns
    -------
    pandas.DataFrame
        Sorted by the stratum columns, group, then metric in :data:`METRICS` order. ``value`` =
        ``numerator / denominator``, NaN when ``denominator == 0``. ``numerator`` is a count (float dtype) or,
        for the mean scores, the sum of scores. Every group appears in every observed stratum.

    Raises
    ------
    ValueError
        Missing column, missing values, non-binary labels, score outside [0, 1], bad ``form``/``favorable``.
    TypeError
        ``data`` not a DataFrame, a column name not a string, non-numeric score.

    Notes
    -----
    With cells as in :func:`confusion_counts` (fav = ``favorable``, S = ``y_score``):

    .. math::

        \\mathrm{PPR} = \\frac{TP + FP}{n},\\;
        \\mathrm{TPR} = \\frac{TP}{TP + FN} = P(\\hat y = fav \\mid y = fav),\\;
        \\mathrm{FPR} = \\frac{FP}{FP + TN} = P(\\hat y = fav \\mid y \\ne fav),

        \\mathrm{FNR} = \\frac{FN}{TP + FN},\\; \\mathrm{TNR} = \\frac{TN}{FP + TN},\\;
        \\mathrm{PPV} = \\frac{TP}{TP + FP} = P(y = fav \\mid \\hat y = fav),\\;
        \\mathrm{NPV} = \\frac{TN}{TN + FN} = P(y \\ne fav \\mid \\hat y \\ne fav),

        \\mathrm{accuracy} = \\frac{TP + TN}{n},\\; \\mathrm{FN/FP},\\;
        E(S \\mid y = fav),\\; E(S \\mid y \\ne fav).

    With ``favorable=0`` these are exactly the paper's definitions: II-B P(ŷ=0 | race), II-C and II-G
    P(y=0 | ŷ=0) (PPV) and II-G P(y=1 | ŷ=1) (NPV), II-D P(ŷ=0 | y=1) (FPR), II-E P(ŷ=1 | y=0) (FNR),
    II-F P(ŷ=0 | y=0) (TPR), II-H P(ŷ = y),
    II-I FN/FP (the paper's text says both "false negatives to false positives" and "false positives to false
    negatives"; we follow Verma & Rubin's FN/FP), II-L E(S | y=0), II-M E(S | y=1) with S the predicted
    probability of recidivism. These match the authors' per-fold files: TPR = A/(A+G), FPR = C/(C+E),
    FNR = G/(A+G), PPV = A/(A+C), NPV = E/(E+G).

    References
    ----------
    Paper B, sections II-B to II-M. S. Verma and J. Rubin, "Fairness definitions explained", FairWare 2018.

    Examples
    --------
    >>> df = pd.DataFrame({"fold": [0] * 4, "race": ["B", "B", "W", "W"],
    ...                    "y_true": [0, 1, 0, 1], "y_pred": [0, 0, 1, 1]})
    >>> wide = group_metrics(df, group="race", y_true="y_true", y_pred="y_pred", form="wide")
    >>> wide[["race", "ppr", "tpr", "fpr"]].to_numpy().tolist()
    [['B', 0.0, 0.0, 0.0], ['W', 1.0, 1.0, 1.0]]
    """
    if form not in ("long", "wide"):
        raise ValueError(f"`form` must be 'long' or 'wide', got {form!r}")
    data, strata, weight = decision_rows_iv(data, y_true, y_pred, y_score, group, fold, by, favorable)
    keys, counts, sums = _cell_counts(
        data, y_true=y_true, y_pred=y_pred, y_score=y_score, group=group, strata=strata, favorable=favorable,
        weight=weight,
    )
    tp, fp, fn, tn = (counts[:, j].astype(float) for j in range(4))
    n = tp + fp + fn + tn
    parts: dict[str, tuple[np.ndarray, np.ndarray]] = {
        "ppr": (tp + fp, n),
        "tpr": (tp, tp + fn),
        "fpr": (fp, fp + tn),
        "fnr": (fn, tp + fn),
        "tnr": (tn, fp + tn),
        "ppv": (tp, tp + fp),
        "npv": (tn, tn + fn),
        "accuracy": (tp + tn, n),
        "fn_fp_ratio": (fn, fp),
    }
    if sums is not None:
        parts["mean_score_pos"] = (sums[:, 0], tp + fn)
        parts["mean_score_neg"] = (sums[:, 1], fp + tn)
    names = [m for m in METRICS if m in parts]
    numerator = np.stack([parts[m][0] for m in names], axis=1)  # (n_keys, n_metrics)
    denominator = np.stack([parts[m][1] for m in names], axis=1)
    value = _ratio(numerator, denominator)

    if warn and np.isnan(value).any():
        missing = np.isnan(value).sum(axis=0)
        summary = ", ".join(f"{m}: {int(k)}" for m, k in zip(names, missing, strict=True) if k)
        warnings.warn(
            f"undefined (0 denominator) values left NaN, count per metric over {len(keys)} strata × groups: "
            f"{summary}",
            UndefinedMetricWarning,
            stacklevel=2,
        )

    if form == "wide":
        out = keys.copy()
        for j, m in enumerate(names):
            out[m] = value[:, j]
        return out

    n_keys, n_metrics = value.shape
    out = keys.loc[np.repeat(np.arange(n_keys), n_metrics)].reset_index(drop=True)
    out["metric"] = np.tile(np.asarray(names, dtype=object), n_keys)
    out["value"] = value.ravel()
    out["numerator"] = numerator.ravel()
    out["denominator"] = denominator.ravel()
    return out


def undefined_counts(
    metrics: pd.DataFrame, *, group: str, fold: str | None = None
) -> pd.DataFrame:
    """Count undefined (NaN) values per metric and group in a long :func:`group_metrics` result.

    Parameters
    ----------
    metrics : pandas.DataFrame
        Long output of :func:`group_metrics` (columns ``metric``, ``value`` and the key columns).
    group : str
        Name of the group column in ``metrics``.
    fold : str or None
        Name of the fold column, which is counted over (folds are not kept as a key).

    Returns
    -------
    pandas.DataFrame
        Columns: the other key columns (e.g. ``model``), ``group``, ``metric``, ``n_undefined``
        (NaN values) and ``n`` (strata counted), sorted; metrics in :data:`METRICS` order.

    Raises
    ------
    ValueError
        ``metrics`` lacks ``metric``/``value`` or the group column.
    """
    metrics = require_frame(metrics, name="metrics")
    require_columns(metrics, ["metric", "value", group], where="metrics")
    drop = {"metric", "value", "numerator", "denominator", group, *([fold] if fold else [])}
    keys = [c for c in metrics.columns if c not in drop] + [group]
    order = {m: i for i, m in enumerate(METRICS)}
    frame = metrics.assign(_undefined=metrics["value"].isna(), _order=metrics["metric"].map(order))
    out = (
        frame.groupby([*keys, "_order", "metric"], sort=True, dropna=False)["_undefined"]
        .agg(n_undefined="sum", n="size")
        .reset_index()
        .drop(columns="_order")
    )
    out["n_undefined"] = out["n_undefined"].astype(np.int64)
    out["n"] = out["n"].astype(np.int64)
    return out
