"""Fold-aware disparity: is a group disparity real across cross-validation folds?

:func:`fold_disparity` computes per-fold group metrics, the three t-tests of
:func:`fairstats.ttests.fold_ttest` and an interval from the corrected resampled t.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairstats._result import Result
from fairstats._rows import two_group_rows
from fairstats._validation import alternative_iv, checked_frame, level_iv
from fairstats.equivalence import DEFAULT_MARGIN, margin_iv, t_equivalence
from fairstats.metrics import group_metrics
from fairstats.ttests import fold_ttest

__all__ = ["FoldDisparityResult", "fold_disparity"]

_FOLD_COLUMNS = [
    "grouping", "group_a", "group_b", "metric", "k", "n_pairs", "mean_a", "mean_b", "estimate", "ci_low",
    "ci_high", "statistic_pooled", "pvalue_pooled",
    "statistic_paired", "pvalue_paired", "statistic_corrected", "df_corrected", "pvalue_corrected",
    "significant_corrected", "alternative", "alpha", "note", "equivalence_pvalue", "equivalence_ci_low",
    "equivalence_ci_high", "margin_low", "margin_high", "mde",
]  # fmt: skip


@dataclass(frozen=True, eq=False)
class FoldDisparityResult(Result):
    """Per-fold group metrics of two groups compared with three t-tests (pooled, paired, corrected).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per metric: ``grouping, group_a, group_b, metric, k, n_pairs, mean_a, mean_b, estimate``
        (mean within-fold difference a - b), ``ci_low, ci_high`` (from the corrected resampled t),
        ``statistic_pooled, pvalue_pooled, statistic_paired,
        pvalue_paired, statistic_corrected, df_corrected, pvalue_corrected, significant_corrected,
        alternative, alpha, note``, and the equivalence test on the same corrected variance
        (:func:`fairstats.equivalence.fold_equivalence`): ``equivalence_pvalue, equivalence_ci_low,
        equivalence_ci_high`` (its 1 - 2 alpha interval), ``margin_low, margin_high, mde``. A
        metric defined in fewer than 2 folds of both groups is not tested:
        NaN statistics and a ``note``.
    per_fold : pandas.DataFrame
        Long per-fold values: ``fold, metric, value_a, value_b``.
    confidence_level : float
    """

    table: pd.DataFrame
    per_fold: pd.DataFrame
    confidence_level: float

    _table = "table"
    _omit = ("per_fold",)


def fold_disparity(
    data: pd.DataFrame,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    fold: str,
    groups: Sequence[object] | None = None,
    y_score: str | None = None,
    metrics: Sequence[str] | None = None,
    favorable: int = 1,
    alternative: str = "two-sided",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    margin: float = DEFAULT_MARGIN,
    power: float = 0.8,
) -> FoldDisparityResult:
    r"""Compare two groups' per-fold metrics from cross-validated predictions, with a fold-aware interval.

    Parameters
    ----------
    data, group, y_true, y_pred, groups, y_score, metrics, favorable
        As in :func:`bootstrap_disparity`; ``data`` holds out-of-fold predictions of one model.
    fold : str
        Column of the test fold of each row.
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        Alternative about ``metric(a) - metric(b)``.
    alpha : float, default 0.05
        Level of ``significant_corrected``.
    confidence_level : float, default 0.95
        Of the interval around the mean within-fold difference.
    margin : float, default 0.1
        Equivalence margin of the mean difference (TOST at ``alpha``, df :math:`J - 1`).
    power : float, default 0.8
        Of the minimum detectable difference ``mde`` (:func:`fairstats.power.mde_t`).

    Returns
    -------
    FoldDisparityResult

    Raises
    ------
    ValueError, TypeError
        As :func:`bootstrap_disparity` and :func:`fairstats.ttests.fold_ttest` (fewer than 2 folds with both
        groups defined).

    Notes
    -----
    Metrics per fold and group come from :func:`fairstats.metrics.group_metrics`; the tests from
    :func:`fairstats.ttests.fold_ttest`. The interval inverts the corrected resampled t of Nadeau & Bengio
    (2003): with :math:`d_i` the within-fold differences over :math:`J` folds and :math:`r = 1/(K-1)`,

    .. math:: \bar d \pm t_{J-1,\,1-(1-c)/2} \sqrt{(1/J + r)\, s_d^2}.

    Folds' test sets are disjoint but their models share most training data; the correction inflates the
    variance for that overlap, which a bootstrap of people (or of folds) ignores.

    References
    ----------
    C. Nadeau and Y. Bengio, "Inference for the Generalization Error", Machine Learning 52(3), 2003;
    R. R. Bouckaert and E. Frank, PAKDD 2004; paper B, Sections II-B to II-M.
    """
    if not isinstance(fold, str):
        raise TypeError(f"`fold` must be one column name, got {fold!r}")
    checked = checked_frame(data, [fold])
    prep = two_group_rows(checked, group, y_true, y_pred, y_score, groups, metrics, favorable)
    data = prep.data.frame
    alternative_iv(alternative)
    alpha = level_iv(alpha, "alpha")
    confidence_level = level_iv(confidence_level, "confidence_level")
    margin = margin_iv(margin, "margin")
    power = level_iv(power, "power")
    keep = prep.mask_a | prep.mask_b
    frame = pd.DataFrame(
        {
            "fold": data[fold].to_numpy()[keep],
            "group": prep.labels.to_numpy()[keep],
            "y_true": (data[y_true].to_numpy() == favorable)[keep].astype(np.int64),
            "y_pred": (data[y_pred].to_numpy() == favorable)[keep].astype(np.int64),
        }
    )
    if y_score is not None:
        frame["y_score"] = prep.score[keep]
    wide = group_metrics(
        frame,
        y_true="y_true",
        y_pred="y_pred",
        y_score="y_score" if y_score is not None else None,
        group="group",
        fold="fold",
        by=(),
        favorable=1,
        form="wide",
        warn=False,
    )
    a = wide[wide["group"] == prep.group_a].set_index("fold")
    b = wide[wide["group"] == prep.group_b].set_index("fold")
    folds = a.index.union(b.index).sort_values()
    a, b = a.reindex(folds), b.reindex(folds)
    rows, per_fold = [], []
    for m in prep.metrics:
        va, vb = a[m].to_numpy(dtype=float), b[m].to_numpy(dtype=float)
        per_fold.append(pd.DataFrame({"fold": folds, "metric": m, "value_a": va, "value_b": vb}))
        try:
            res = fold_ttest(va, vb, alternative=alternative, alpha=alpha)
        except ValueError as err:  # fewer than 2 folds where the metric is defined in both groups
            rows.append(
                {
                    "grouping": " x ".join(prep.columns),
                    "group_a": prep.group_a,
                    "group_b": prep.group_b,
                    "metric": m,
                    "k": int(folds.size),
                    "n_pairs": int((~(np.isnan(va) | np.isnan(vb))).sum()),
                    "alternative": alternative,
                    "alpha": alpha,
                    "note": f"not tested: {err}",
                }
            )
            continue
        d = (va - vb)[~(np.isnan(va) | np.isnan(vb))]
        se = np.sqrt((1.0 / d.size + res.test_train_ratio) * d.var(ddof=1))
        half = float(stats.t.isf((1 - confidence_level) / 2, d.size - 1) * se)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zero spread: the equivalence columns are NaN, the note says so
            eq = t_equivalence(
                res.mean_difference, float(se), float(d.size - 1), margin=margin, alpha=alpha, power=power,
                alternative=alternative,
            )
        rows.append(
            {
                "grouping": " x ".join(prep.columns),
                "group_a": prep.group_a,
                "group_b": prep.group_b,
                "metric": m,
                "k": res.k,
                "n_pairs": res.n_pairs,
                "mean_a": res.mean_a,
                "mean_b": res.mean_b,
                "estimate": res.mean_difference,
                "ci_low": res.mean_difference - half,
                "ci_high": res.mean_difference + half,
                "statistic_pooled": res.statistic_pooled,
                "pvalue_pooled": res.pvalue_pooled,
                "statistic_paired": res.statistic_paired,
                "pvalue_paired": res.pvalue_paired,
                "statistic_corrected": res.statistic_corrected,
                "df_corrected": res.df_corrected,
                "pvalue_corrected": res.pvalue_corrected,
                "significant_corrected": res.significant_corrected,
                "alternative": alternative,
                "alpha": alpha,
                "note": "; ".join(
                    n
                    for n in (
                        "" if res.n_pairs == res.k else f"{res.k - res.n_pairs} folds undefined, left out",
                        f"equivalence test undefined: {eq.reason}" if eq.reason else "",
                    )
                    if n
                ),
                "equivalence_pvalue": eq.pvalue,
                "equivalence_ci_low": eq.ci_low,
                "equivalence_ci_high": eq.ci_high,
                "margin_low": eq.margin_low,
                "margin_high": eq.margin_high,
                "mde": eq.mde,
            }
        )
    return FoldDisparityResult(
        table=pd.DataFrame(rows, columns=_FOLD_COLUMNS),
        per_fold=pd.concat(per_fold, ignore_index=True),
        confidence_level=confidence_level,
    )
