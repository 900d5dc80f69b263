r"""Discrimination of a risk score per group: the AUC with DeLong's variance, and differences between groups.

A score that ranks people well in one group and poorly in another treats them unequally even when its
decisions look balanced. :func:`auc_tests` estimates each group's area under the ROC curve with DeLong's
variance (DeLong, DeLong & Clarke-Pearson 1988) and compares each group with a reference group: the two
groups are independent samples, so the difference of their AUCs has the sum of their variances and a normal
z test, with its interval, its minimum detectable difference and a three-way verdict
(:func:`fairstats.multiplicity.three_way_verdicts`). Everything is computed from the counts of (group,
outcome, score) (:class:`fairstats.Counts`), so any real-valued score (COMPAS' deciles included) and any
engine or size works; :func:`auc_delong` is the single-sample computation.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from fairstats._deprecation import arrays_replaced
from fairstats._resampling import n_resamples_iv, rng_iv
from fairstats._result import Result
from fairstats._score_input import (
    ScoreCounts,
    delong,
    labels_iv,
    reference_iv,
    score_counts_iv,
    score_options_iv,
    score_verdicts,
)
from fairstats._small import MIN_NORMAL, size_reason
from fairstats._validation import level_iv, require_columns, require_frame
from fairstats.equivalence import DEFAULT_MARGIN, z_equivalence
from fairstats.outcomes import UndefinedTestWarning
from fairstats.power import DEFAULT_POWER

__all__ = ["AUCResult", "AUCTestsResult", "auc_delong", "auc_tests", "roc_curves"]


@dataclass(frozen=True)
class AUCResult(Result):
    r"""The AUC of one sample with DeLong's variance.

    Attributes
    ----------
    auc : float
        :math:`P(S^+ > S^-) + \tfrac12 P(S^+ = S^-)`, the Mann–Whitney estimate (NaN without positives or
        negatives).
    variance : float
        DeLong's variance of ``auc`` (NaN with fewer than 2 positives or 2 negatives).
    se : float
        Its square root.
    ci_low, ci_high : float
        ``auc`` ± :math:`z_{(1+c)/2}` ``se`` at ``confidence_level``, clipped to [0, 1] (as pROC's
        ``ci.auc(method="delong")``).
    n_pos, n_neg : float
        People with the positive (``pos_label``) outcome and with the other one.
    confidence_level : float
    """

    auc: float
    variance: float
    se: float
    ci_low: float
    ci_high: float
    n_pos: float
    n_neg: float
    confidence_level: float


def _result(pos, neg, confidence_level) -> AUCResult:
    auc, var = delong(pos, neg)
    se = float(np.sqrt(var)) if np.isfinite(var) else float("nan")
    z = float(stats.norm.ppf(0.5 + confidence_level / 2))
    low, high = (float(np.clip(auc - z * se, 0, 1)), float(np.clip(auc + z * se, 0, 1)))
    return AUCResult(auc, var, se, low, high, float(pos.sum()), float(neg.sum()), confidence_level)


def _auc_delong_arrays(
    y_true: ArrayLike, y_score: ArrayLike, *, pos_label: object = None, confidence_level: float = 0.95
) -> AUCResult:
    """:func:`auc_delong` of two arrays, one value per person (its call before 0.3)."""
    confidence_level = level_iv(confidence_level, "confidence_level")
    counted = _one_sample_iv(y_true, y_score, pos_label)
    return _result(counted[1], counted[2], confidence_level)




@arrays_replaced(
    _auc_delong_arrays, arrays=("y_true", "y_score"), use="auc_delong(data, y_true=, y_score=)"
)
def auc_delong(
    data: pd.DataFrame,
    *,
    y_true: str,
    y_score: str,
    pos_label: object = None,
    confidence_level: float = 0.95,
) -> AUCResult:
    r"""AUC of ``y_score`` for the outcome ``y_true == pos_label``, with DeLong's variance.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per person (for the AUC of each group, or counts, see :func:`auc_tests`).
    y_true : str
        Column of the binary outcome (0/1, or ``pos_label`` and one other value).
    y_score : str
        Column of the score: any real value, higher meaning more likely ``pos_label``; ties allowed.
    pos_label : optional
        The outcome value the score predicts (the "cases" of pROC, scikit-learn's ``pos_label``): for a
        risk score of recidivism, the value meaning recidivism, whichever outcome is the favourable one.
        Default: 1, with 0/1 labels; other labels need it named.
    confidence_level : float, default 0.95

    Returns
    -------
    AUCResult

    Raises
    ------
    ValueError
        A missing column, no people, a missing or non-finite score, an outcome that is not binary.
    TypeError
        ``data`` not a pandas DataFrame. Until 0.4 the call of arrays ``(y_true, y_score)`` still works, with
        a ``DeprecationWarning``.

    Notes
    -----
    With :math:`m` positives :math:`X_i`, :math:`n` negatives :math:`Y_j` and
    :math:`\psi(x, y) = 1[x > y] + \tfrac12 1[x = y]`, the placements
    :math:`V_{10}(X_i) = \frac1n \sum_j \psi(X_i, Y_j)` and
    :math:`V_{01}(Y_j) = \frac1m \sum_i \psi(X_i, Y_j)`
    give :math:`\hat\theta = \bar V_{10}` and DeLong's variance (DeLong et al. 1988, Eqs. 3-5)

    .. math:: \widehat{\mathrm{Var}}(\hat\theta) = \frac{S_{10}}{m} + \frac{S_{01}}{n}, \qquad
              S_{10} = \frac{\sum_i (V_{10}(X_i) - \hat\theta)^2}{m - 1}, \;
              S_{01} = \frac{\sum_j (V_{01}(Y_j) - \hat\theta)^2}{n - 1}.

    The placements are the midranks of Sun & Xu (2014): after sorting the distinct scores once, the
    placement of a score is the number of the other class below it plus half those tied with it, a
    cumulative sum over the counts per distinct score; the whole computation is :math:`O(n \log n)` for the
    sort and :math:`O(K)` over the :math:`K` distinct scores after it. Hand-written because neither scipy
    nor statsmodels has DeLong's variance; checked against R's pROC (``var(roc, method="delong")``) in
    ``tests/reference``.

    References
    ----------
    E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the areas under two or more correlated
    receiver operating characteristic curves: a nonparametric approach", Biometrics 44(3):837-845, 1988;
    X. Sun and W. Xu, "Fast implementation of DeLong's algorithm for comparing the areas under correlated
    receiver operating characteristic curves", IEEE Signal Processing Letters 21(11):1389-1393, 2014.

    Examples
    --------
    >>> df = pd.DataFrame({"y": [0, 0, 1, 1, 0, 1], "s": [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]})
    >>> r = auc_delong(df, y_true="y", y_score="s")
    >>> round(r.auc, 4)
    0.8889
    """
    frame = require_frame(data)
    require_columns(frame, [y_true, y_score], where="`data`")
    y, score = frame[y_true].to_numpy(), frame[y_score].to_numpy()
    return _auc_delong_arrays(y, score, pos_label=pos_label, confidence_level=confidence_level)


def _one_sample_iv(y_true, y_score, pos_label) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.asarray(y_true)
    s = np.asarray(y_score)
    if y.ndim != 1 or s.ndim != 1 or y.shape != s.shape:
        raise ValueError(
            f"`y_true` and `y_score` must be 1-D of the same length, got {y.shape} and {s.shape}"
        )
    if y.size == 0:
        raise ValueError("`y_true` is empty (0 values)")
    labels = pd.unique(pd.Series(y))
    if len(labels) > 2:
        found = sorted(map(str, labels))[:5]
        raise ValueError(f"`y_true` must be binary, found {len(labels)} distinct values, e.g. {found}")
    pos_label = labels_iv(labels, pos_label, "`y_true`")
    try:
        s = s.astype(float)
    except (TypeError, ValueError):
        raise ValueError("`y_score` must hold numbers") from None
    if not np.isfinite(s).all():
        raise ValueError(f"`y_score` has a value that is not finite, {float(s[~np.isfinite(s)][0])!r}")
    values, inverse = np.unique(s, return_inverse=True)
    is_pos = y == pos_label
    pos = np.bincount(inverse, weights=is_pos.astype(float), minlength=values.size)
    neg = np.bincount(inverse, weights=(~is_pos).astype(float), minlength=values.size)
    return values, pos, neg


@dataclass(frozen=True, eq=False)
class AUCTestsResult(Result):
    """AUC per group and the difference of each group's AUC from the reference group's.

    Attributes
    ----------
    groups : pandas.DataFrame
        One row per group: ``grouping, group, n_pos, n_neg, auc, variance, se, ci_low, ci_high``.
    comparisons : pandas.DataFrame
        One row per group other than the reference: ``grouping, group, reference, metric`` (``"auc"``),
        ``value, value_reference, estimate`` (AUC of the group minus the reference's), ``se`` (root of the
        sum of the two DeLong variances), ``statistic`` (z), ``pvalue, pvalue_adj`` (Holm over the
        comparisons), ``ci_low, ci_high`` (at ``confidence_level``), ``mde`` (at ``alpha`` and ``power``),
        ``equivalence_pvalue`` (TOST within ±``margin``), ``margin``, ``pvalue_holm_equivalence``,
        ``verdict, verdict_note`` (:func:`fairstats.multiplicity.three_way_verdicts`), ``alternative``,
        ``method``, ``reason`` (why a test is undefined, "" otherwise), ``n, n_reference``.
    reference : str
    alpha, confidence_level, margin : float
    """

    groups: pd.DataFrame
    comparisons: pd.DataFrame
    reference: str
    alpha: float
    confidence_level: float
    margin: float

    _table = "comparisons"
    _omit = ("groups",)


def _z_pvalue(z: float, alternative: str) -> float:
    if not np.isfinite(z):
        return float("nan")
    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    return float(2 * stats.norm.sf(abs(z)))


def auc_tests(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_score: str,
    pos_label: object = None,
    reference: object = None,
    alternative: str = "two-sided",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    margin: float = DEFAULT_MARGIN,
    power: float = DEFAULT_POWER,
) -> AUCTestsResult:
    r"""AUC of a score per group (DeLong's variance) and a z test of each group's difference from a reference.

    Parameters
    ----------
    data : data frame or Counts
        One row per person (pandas, polars, pyarrow, DuckDB, Spark: counted in its engine), or
        :class:`fairstats.Counts` over the group columns, ``y_true`` and ``y_score``.
    group : str or list of str
        Sensitive attribute column(s); several columns make intersectional groups.
    y_true : str
        Binary outcome column.
    y_score : str
        Score column: any real number, higher meaning more likely ``pos_label``.
    pos_label : optional
        The outcome value the score predicts (as :func:`auc_delong`).
    reference : optional
        The group every other group is compared with (default: the largest).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        About AUC(group) − AUC(reference).
    alpha : float, default 0.05
        Family-wise level of the verdicts (Holm over the comparisons) and of the MDE.
    confidence_level : float, default 0.95
        Of the per-group and difference intervals.
    margin : float, default 0.1
        Equivalence margin of the AUC difference (:data:`fairstats.equivalence.DEFAULT_MARGIN`, the library's
        margin for a difference on [0, 1]; there is no published convention for AUCs, so set one that matters
        to you).
    power : float, default 0.8
        Of the minimum detectable difference ``mde``.

    Returns
    -------
    AUCTestsResult

    Raises
    ------
    ValueError, TypeError
        Missing columns or values, a non-binary outcome, a score that is not a finite number, fewer than two
        groups, an unknown reference, options out of range.

    Warns
    -----
    UndefinedTestWarning
        A comparison with fewer than 20 positives or 20 negatives in a group (the z test does not hold its
        size there: 18 % at 5 % with 3 positives and 12 negatives against 200 and 800), or whose variance
        is zero (both AUCs exactly 0 or 1): its p-value is NaN, its verdict ``undefined``, the reason naming
        the group and its count. The groups' AUCs and intervals are still given.

    Notes
    -----
    Each group's AUC and variance is :func:`auc_delong`. The groups hold different people, so the two
    estimates are independent and

    .. math:: z = \frac{\hat\theta_g - \hat\theta_r}{\sqrt{\widehat{\mathrm{Var}}(\hat\theta_g)
              + \widehat{\mathrm{Var}}(\hat\theta_r)}}

    is asymptotically standard normal under equal AUCs (DeLong et al. 1988, Sec. 3, for unpaired curves;
    pROC's ``roc.test(paired=FALSE, method="delong")`` computes the same statistic, but refers it to a t
    with Welch's degrees of freedom). The interval is the difference ± :math:`z_{(1+c)/2}` se, the MDE
    :func:`fairstats.power.mde_z`, and the equivalence test :func:`fairstats.equivalence.z_equivalence`.

    References
    ----------
    DeLong, DeLong & Clarke-Pearson, Biometrics 44, 1988; Sun & Xu, IEEE SPL 21, 2014; X. Robin et al.,
    "pROC: an open-source package for R and S+ to analyze and compare ROC curves", BMC Bioinformatics 12:77,
    2011.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 6 + ["b"] * 6, "y": [0, 1] * 6,
    ...                    "s": [0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.5, 0.4, 0.2, 0.6, 0.1, 0.3]})
    >>> auc_tests(df, group="g", y_true="y", y_score="s").groups["auc"].round(4).tolist()
    [1.0, 0.7778]
    """
    alpha, confidence_level, margin, power = score_options_iv(alpha, confidence_level, margin, power,
                                                               alternative)
    counted = score_counts_iv(data, group=group, y_true=y_true, y_score=y_score, pos_label=pos_label)
    ref = reference_iv(counted, reference)
    return _auc_tests(counted, ref, alternative, alpha, confidence_level, margin, power)


def _auc_tests(counted: ScoreCounts, ref, alternative, alpha, confidence_level, margin, power):
    per = {g: _result(counted.pos[g], counted.neg[g], confidence_level) for g in counted.groups}
    groups = pd.DataFrame(
        [
            {"grouping": counted.grouping, "group": g, "n_pos": r.n_pos, "n_neg": r.n_neg, "auc": r.auc,
             "variance": r.variance, "se": r.se, "ci_low": r.ci_low, "ci_high": r.ci_high}
            for g, r in per.items()
        ]
    )
    z_ci = float(stats.norm.ppf(0.5 + confidence_level / 2))
    rows = []
    method = "difference of independent AUCs, DeLong variances, normal z"
    for g in counted.groups:
        if g == ref:
            continue
        a, b = per[g], per[ref]
        estimate = a.auc - b.auc
        se = float(np.sqrt(a.variance + b.variance))
        reason = ""
        small = [(count, what, name) for name, r in ((g, a), (ref, b))
                 for count, what in ((r.n_pos, "positives"), (r.n_neg, "negatives")) if count < MIN_NORMAL]
        if small:  # the smallest count, the group's own (or the reference's, named as such)
            reason = size_reason(*min(small, key=lambda s: s[0]),
                                 "DeLong's normal approximation does not hold its size")
        elif not np.isfinite(se):
            reason = "fewer than 2 positives or 2 negatives in a group: no DeLong variance"
        elif se == 0:
            reason = "zero DeLong variance in both groups (each AUC is 0 or 1)"
        # the statistic is shown where it exists; a group too small for the normal has no p-value
        z = estimate / se if np.isfinite(se) and se > 0 else float("nan")
        p = _z_pvalue(z, alternative) if not reason else float("nan")
        if reason:
            message = f"auc {g!r} vs {ref!r}: test undefined, {reason}"
            warnings.warn(UndefinedTestWarning(message), stacklevel=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # undefined equivalence: the row says why
            eq = z_equivalence(estimate, se if not reason else float("nan"), margin=margin, alpha=alpha,
                               power=power, alternative=alternative, method=method)
        rows.append(
            {
                "grouping": counted.grouping, "group": g, "reference": ref, "metric": "auc",
                "value": a.auc, "value_reference": b.auc, "estimate": estimate, "se": se, "statistic": z,
                "pvalue": p,
                "ci_low": estimate - z_ci * se if not reason else float("nan"),
                "ci_high": estimate + z_ci * se if not reason else float("nan"),
                "mde": eq.mde, "equivalence_pvalue": eq.pvalue, "margin": margin, "alternative": alternative,
                "method": method, "reason": reason, "n": a.n_pos + a.n_neg, "n_reference": b.n_pos + b.n_neg,
            }
        )
    comparisons = score_verdicts(pd.DataFrame(rows), alpha)
    return AUCTestsResult(groups, comparisons, ref, alpha, confidence_level, margin)


def roc_curves(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_score: str,
    pos_label: object = None,
    grid: int = 101,
    n_resamples: int = 199,
    confidence_level: float = 0.95,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Each group's empirical ROC curve from the counts per distinct score, with a pointwise band (figures).

    Returns a tidy frame ``grouping, group, fpr, tpr, band_low, band_high``: the true positive rate at
    ``grid`` false positive rates from 0 to 1 (the empirical curve, ties as diagonal segments, interpolated
    linearly), and its pointwise percentile band over ``n_resamples`` stratified resamples (positives and
    negatives of the group drawn separately from their counts per score; NaN with ``n_resamples = 0``).
    A group without positives or negatives has NaN rates.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y": [0, 1] * 4, "s": [1, 2, 3, 4, 4, 3, 2, 1]})
    >>> c = roc_curves(df, group="g", y_true="y", y_score="s", grid=3, n_resamples=0)
    >>> c.query("group == 'a'")["tpr"].tolist()
    [0.5, 1.0, 1.0]
    """
    confidence_level = level_iv(confidence_level, "confidence_level")
    n_resamples = n_resamples_iv(n_resamples, zero="no ICI interval")
    generator = rng_iv(rng)
    counted = score_counts_iv(data, group=group, y_true=y_true, y_score=y_score, pos_label=pos_label)
    fprs = np.linspace(0, 1, grid)
    tail = (1 - confidence_level) / 2

    def curve(pos, neg):
        pos, neg = pos[::-1], neg[::-1]  # thresholds from the highest score down
        with np.errstate(divide="ignore", invalid="ignore"):
            tpr = np.r_[0.0, np.cumsum(pos)] / pos.sum()
            fpr = np.r_[0.0, np.cumsum(neg)] / neg.sum()
        if not (np.isfinite(tpr).all() and np.isfinite(fpr).all()):
            return np.full(fprs.size, np.nan)
        # the curve between its points: at a vertical step (one fpr, several tpr) the highest tpr, and from
        # there the segment to the first point of the next fpr
        right = np.minimum(np.searchsorted(fpr, fprs, side="right"), fpr.size - 1)
        left = right - 1
        span = fpr[right] - fpr[left]
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(span > 0, (fprs - fpr[left]) / span, 1.0)
        return np.clip(tpr[left] + np.clip(w, 0, 1) * (tpr[right] - tpr[left]), 0, 1)

    parts = []
    for g in counted.groups:
        pos, neg = counted.pos[g], counted.neg[g]
        tpr = curve(pos, neg)
        low = high = np.full(fprs.size, np.nan)
        if n_resamples and np.isfinite(tpr).all():
            m, n = int(round(pos.sum())), int(round(neg.sum()))
            draws = np.array([curve(generator.multinomial(m, pos / pos.sum()).astype(float),
                                    generator.multinomial(n, neg / neg.sum()).astype(float))
                              for _ in range(n_resamples)])
            low, high = np.quantile(draws, [tail, 1 - tail], axis=0)
        parts.append(pd.DataFrame({"grouping": counted.grouping, "group": g, "fpr": fprs, "tpr": tpr,
                                   "band_low": low, "band_high": high}))
    return pd.concat(parts, ignore_index=True)
