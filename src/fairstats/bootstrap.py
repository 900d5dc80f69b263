r"""Bootstrap confidence intervals for group disparities: how large is the disparity, give or take?

:func:`bootstrap_disparity` gives seeded bootstrap confidence intervals (percentile, basic or BCa) for the
difference of a group metric (positive prediction rate, TPR, FPR, PPV, NPV, accuracy, FN/FP ratio, mean score
by true class) between two groups; :func:`bootstrap_cramers_v` for Cramér's V of the equal confusion table
(paper A's confusion parity error).

The bootstrap resamples people within each group (group sizes fixed, the two-sample design of
:func:`scipy.stats.bootstrap`). Every statistic here depends on a person only through a few categories
(confusion cell, and the score when there is one), so one resample of a group is a multinomial draw of
category counts — the same distribution as drawing people with replacement, at a cost independent of the
group's size. The intervals follow :func:`scipy.stats.bootstrap` exactly (same quantile rule, same BCa bias
and acceleration estimates; the jackknife is computed once per category instead of once per person, which
gives the same values); the tests check the intervals against scipy's on the same bootstrap distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fairstats._contingency import ContingencyTable
from fairstats._deprecation import attribute
from fairstats._resampling import (
    drop_undefined,
    interval_ends,
    interval_levels,
    multinomial_draws,
    n_resamples_iv,
    rng_iv,
    row_multinomial_draws,
)
from fairstats._result import Result
from fairstats._rows import METRIC_COEFFICIENTS, TwoGroupRows, two_group_rows
from fairstats._validation import as_list, level_iv
from fairstats._warnings import BCaUndefinedWarning, UndefinedResampleWarning

__all__ = [
    "CI_METHODS",
    "BootstrapCramersVResult",
    "BootstrapDisparityResult",
    "BCaUndefinedWarning",
    "UndefinedResampleWarning",
    "bootstrap_cramers_v",
    "bootstrap_disparity",
]


def __getattr__(name: str) -> object:
    return attribute(__name__, name)  # a result class renamed after its function (issue 38): warn, name it


#: Bootstrap interval methods (scipy.stats.bootstrap's names).
CI_METHODS = ("percentile", "basic", "BCa")


# --------------------------------------------------------------------------------------------------------
# small checks
# --------------------------------------------------------------------------------------------------------


def _method_iv(method: object) -> str:
    if method not in CI_METHODS:
        raise ValueError(f"`method` must be one of {list(CI_METHODS)}, got {method!r}")
    return str(method)


# --------------------------------------------------------------------------------------------------------
# bootstrap machinery: category counts, multinomial resampling, scipy-exact intervals
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Sample:
    """One group's people, compressed to categories: cell (tp, fp, fn, tn = 0..3), score, count."""

    cell: np.ndarray  # (k,) int
    score: np.ndarray  # (k,) float (0 when there is no score)
    count: np.ndarray  # (k,) int64, all > 0

    @property
    def n(self) -> int:
        return int(self.count.sum())


def _compress(cell: np.ndarray, score: np.ndarray | None, weight: np.ndarray | None = None) -> _Sample:
    """Categories of one group's rows; ``weight`` = people per row when the rows are counts."""
    if score is None:
        counts = np.bincount(cell, weights=weight, minlength=4).astype(np.int64)
        keep = np.flatnonzero(counts)
        return _Sample(
            cell=keep.astype(np.int64), score=np.zeros(keep.size), count=counts[keep].astype(np.int64)
        )
    frame = pd.DataFrame({"cell": cell, "score": score, "n": 1 if weight is None else weight})
    grouped = frame.groupby(["cell", "score"], sort=True)["n"].sum()
    grouped = grouped[grouped > 0]
    index = grouped.index
    return _Sample(
        cell=index.get_level_values("cell").to_numpy(dtype=np.int64),
        score=index.get_level_values("score").to_numpy(dtype=float),
        count=grouped.to_numpy(dtype=np.int64),
    )


def _cell_sums(weights: np.ndarray, sample: _Sample) -> tuple[np.ndarray, np.ndarray]:
    """Cell counts (..., 4) and score sums by true class (..., 2) for category weights (..., k)."""
    onehot = np.zeros((sample.cell.size, 4))
    onehot[np.arange(sample.cell.size), sample.cell] = 1.0
    counts = weights @ onehot
    true_fav = np.isin(sample.cell, (0, 2)).astype(float)  # tp, fn: y = favorable
    scores = np.stack([sample.score * true_fav, sample.score * (1.0 - true_fav)], axis=1)
    return counts, weights @ scores


def _metric_values(counts: np.ndarray, sums: np.ndarray, metrics: Sequence[str]) -> np.ndarray:
    """Metric values (..., n_metrics) from cell counts (..., 4) and score sums (..., 2); NaN for x/0."""
    out = np.full((*counts.shape[:-1], len(metrics)), np.nan)
    for j, metric in enumerate(metrics):
        num_coef, den_coef = METRIC_COEFFICIENTS[metric]
        den = counts @ np.asarray(den_coef, dtype=float)
        if metric == "mean_score_pos":
            num = sums[..., 0]
        elif metric == "mean_score_neg":
            num = sums[..., 1]
        else:
            num = counts @ np.asarray(num_coef, dtype=float)
        np.divide(num, den, out=out[..., j], where=den > 0)
    return out


# --------------------------------------------------------------------------------------------------------
# bootstrap_disparity
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BootstrapDisparityResult(Result):
    """Differences of group metrics between two groups, with bootstrap confidence intervals.

    Attributes
    ----------
    group_columns : tuple of str
        The sensitive attribute column(s).
    group_a, group_b : str
        The two groups compared; every difference is ``metric(group_a) - metric(group_b)``.
    favorable : object
        Label of the favourable outcome (the "positive" class of the metrics).
    metrics : tuple of str
        Metric names (:data:`fairstats.metrics.METRICS`), the index of every Series below.
    value_a, value_b : pandas.Series
        The metric in each group (NaN when undefined).
    estimate : pandas.Series
        ``value_a - value_b``.
    ci_low, ci_high : pandas.Series
        Bounds of the two-sided interval at ``confidence_level`` (NaN when the estimate is undefined).
    ci_method : pandas.Series
        Interval method used per metric: ``method``, or ``"undefined"`` (NaN interval, with a
        :class:`BCaUndefinedWarning`) where BCa's bias correction or
        acceleration is undefined (e.g. a leave-one-out sample with an empty denominator).
    denominator_a, denominator_b : pandas.Series
        The metric's denominator in each group (people; e.g. actual positives for TPR).
    n_undefined : pandas.Series
        Resamples where the difference is undefined, left out of the interval.
    n_a, n_b : int
        People in each group.
    confidence_level : float
    method : str
        Requested interval method (``percentile``, ``basic`` or ``BCa``).
    n_resamples : int
    bootstrap_distribution : numpy.ndarray
        Shape (n_resamples, n_metrics): the resampled differences (NaN where undefined).
    """

    group_columns: tuple[str, ...]
    group_a: str
    group_b: str
    favorable: object
    metrics: tuple[str, ...]
    value_a: pd.Series
    value_b: pd.Series
    estimate: pd.Series
    ci_low: pd.Series
    ci_high: pd.Series
    ci_method: pd.Series
    denominator_a: pd.Series
    denominator_b: pd.Series
    n_undefined: pd.Series
    n_a: int
    n_b: int
    confidence_level: float
    method: str
    n_resamples: int
    bootstrap_distribution: np.ndarray = field(repr=False)

    _omit = (
        "value_a", "value_b", "estimate", "ci_low", "ci_high", "ci_method", "denominator_a", "denominator_b",
        "n_undefined", "bootstrap_distribution",
    )  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per metric: ``grouping, group_a, group_b, metric, value_a, value_b, estimate, ci_low,
        ci_high, denominator_a, denominator_b, n_a, n_b, n_undefined, confidence_level, ci_method,
        n_resamples``."""
        m = list(self.metrics)
        return pd.DataFrame(
            {
                "grouping": " x ".join(self.group_columns),
                "group_a": self.group_a,
                "group_b": self.group_b,
                "metric": m,
                "value_a": self.value_a.to_numpy(),
                "value_b": self.value_b.to_numpy(),
                "estimate": self.estimate.to_numpy(),
                "ci_low": self.ci_low.to_numpy(),
                "ci_high": self.ci_high.to_numpy(),
                "denominator_a": self.denominator_a.to_numpy(),
                "denominator_b": self.denominator_b.to_numpy(),
                "n_a": self.n_a,
                "n_b": self.n_b,
                "n_undefined": self.n_undefined.to_numpy(),
                "confidence_level": self.confidence_level,
                "ci_method": self.ci_method.to_numpy(),
                "n_resamples": self.n_resamples,
            }
        )


def _two_sample(prep: TwoGroupRows) -> tuple[_Sample, _Sample]:
    def one(mask):
        weight = None if prep.weight is None else prep.weight[mask]
        return _compress(prep.cell[mask], None if prep.score is None else prep.score[mask], weight)

    return one(prep.mask_a), one(prep.mask_b)


def _disparity_jackknife(sample_a: _Sample, sample_b: _Sample, metrics: Sequence[str]):
    """Per metric, per sample: leave-one-out differences for each category, with the category's count."""
    ca, sa = _cell_sums(sample_a.count.astype(float), sample_a)
    cb, sb = _cell_sums(sample_b.count.astype(float), sample_b)
    va = _metric_values(ca, sa, metrics)
    vb = _metric_values(cb, sb, metrics)
    out = []
    for sample, full_c, full_s, other, sign in ((sample_a, ca, sa, vb, 1.0), (sample_b, cb, sb, va, -1.0)):
        # leaving out one person of category u removes that person's cell and score: one row per category
        k = sample.cell.size
        one_c = np.zeros((k, 4))
        one_c[np.arange(k), sample.cell] = 1.0
        true_fav = np.isin(sample.cell, (0, 2)).astype(float)
        one_s = np.stack([sample.score * true_fav, sample.score * (1.0 - true_fav)], axis=1)
        v_loo = _metric_values(full_c[None, :] - one_c, full_s[None, :] - one_s, metrics)  # (k, n_metrics)
        diff = sign * (v_loo - other[None, :])
        out.append((diff, sample.count.astype(float)))
    return out


def _bootstrap_differences(sample_a, sample_b, metrics, n_resamples, rng) -> np.ndarray:
    values = []
    for sample in (sample_a, sample_b):
        parts = []
        for weights in multinomial_draws(sample.count, n_resamples, rng):
            c, s = _cell_sums(weights, sample)
            parts.append(_metric_values(c, s, metrics))
        values.append(np.concatenate(parts, axis=0))
    with np.errstate(invalid="ignore"):
        return values[0] - values[1]


def bootstrap_disparity(
    data: pd.DataFrame,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    groups: Sequence[object] | None = None,
    y_score: str | None = None,
    metrics: Sequence[str] | None = None,
    favorable: int = 1,
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    method: str = "BCa",
    rng: int | np.random.Generator | None = None,
    warn: bool = True,
) -> BootstrapDisparityResult:
    r"""Bootstrap confidence intervals for metric differences between two groups (no folds needed).

    Parameters
    ----------
    data : pandas.DataFrame
        One row per person: predictions of one model (e.g. out-of-fold predictions, or a deployed score).
    group : str or list of str
        Sensitive attribute column(s); a list means intersectional groups labelled as in
        :func:`group_labels` (``"Female - African-American"``).
    y_true, y_pred : str
        Columns of the observed and predicted binary labels (0/1).
    groups : pair of labels, optional
        ``(a, b)``: differences are ``metric(a) - metric(b)``. Default: the two groups of ``group`` in sorted
        order (an error if there are more than two).
    y_score : str, optional
        Column of a score in [0, 1]; enables ``mean_score_pos`` and ``mean_score_neg``.
    metrics : list of str, optional
        Metrics of :data:`fairstats.metrics.METRICS` (default: all that the columns allow).
    favorable : {0, 1}, default 1
        Label of the favourable outcome, for truth and prediction (paper B: 0 = no recidivism).
    n_resamples : int, default 9999
        Bootstrap resamples.
    confidence_level : float, default 0.95
    method : {"percentile", "basic", "BCa"}, default "BCa"
        Interval, as in :func:`scipy.stats.bootstrap`.
    rng : int, numpy.random.Generator or None
        Seed or generator (``numpy.random.default_rng(rng)``); a seed gives identical results every run.
    warn : bool, default True
        Warn (:class:`UndefinedResampleWarning`) when resamples leave a difference undefined.

    Returns
    -------
    BootstrapDisparityResult
        Estimates, intervals and the bootstrap distribution; ``to_frame()`` gives one row per metric.

    Raises
    ------
    ValueError
        Missing column, NaN, non-binary labels, score outside [0, 1], a group of ``groups`` absent, more than
        two groups without ``groups``, unknown metric, bad level, ``method`` or ``n_resamples``.
    TypeError
        ``data`` not a DataFrame, a column name not a string, ``rng`` of another type.

    Warns
    -----
    UndefinedResampleWarning
        Some resamples have an empty denominator (e.g. no false positive in a small group).

    Notes
    -----
    Each group is resampled separately, with its size fixed (two independent samples, as
    :func:`scipy.stats.bootstrap` does with two data sets). A person enters every statistic only through a
    category :math:`u` (confusion cell with the favourable outcome as "positive", and the score), so the
    resampled category counts of a group of size :math:`n` with observed counts :math:`c_u` are
    :math:`\mathrm{Multinomial}(n, c_u / n)`, exactly the distribution of counts when :math:`n` people are
    drawn with replacement. Groups with more than 256 categories (a continuous score) draw people by index.

    With :math:`\hat\theta = m_a - m_b` and :math:`\hat\theta^*_b` its resampled values, the percentile
    interval takes the :math:`\alpha/2` and :math:`1 - \alpha/2` quantiles of :math:`\hat\theta^*` (linear
    interpolation); ``basic`` reflects them,
    :math:`(2\hat\theta - q_{1-\alpha/2}, 2\hat\theta - q_{\alpha/2})`;
    BCa shifts the quantile levels to :math:`\Phi(z_0 + (z_0 + z)/(1 - a(z_0 + z)))` with
    :math:`z_0 = \Phi^{-1}(\#\{\hat\theta^* < \hat\theta\}/B + \#\{\hat\theta^* \le \hat\theta\}/B)/2)` and
    the jackknife acceleration :math:`a` of Efron & Tibshirani (1993, Eq. 14.15), summed over both samples as
    scipy does. Resamples where the difference is undefined (0 in a denominator) are left out and counted.

    References
    ----------
    B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993, Ch. 13-14
    (percentile, BCa) and Sec. 8.3 (two-sample bootstrap); A. C. Davison and D. V. Hinkley, *Bootstrap
    Methods and their Application*, 1997, Sec. 5.2 (basic interval). The metrics: paper B, Sections II-B to
    II-M (see :func:`fairstats.metrics.group_metrics`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 6 + ["b"] * 6, "y": [1, 1, 1, 0, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0]})
    >>> res = bootstrap_disparity(df, group="g", y_true="y", y_pred="p", metrics=["ppr"],
    ...                           n_resamples=999, rng=1, method="percentile")
    >>> round(float(res.estimate["ppr"]), 4)
    0.3333
    """
    prep = two_group_rows(data, group, y_true, y_pred, y_score, groups, metrics, favorable)
    return bootstrap_disparity_rows(
        prep,
        favorable=favorable,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        rng=rng,
        warn=warn,
    )


def bootstrap_disparity_rows(
    prep: TwoGroupRows, *, favorable, n_resamples, confidence_level, method, rng, warn
) -> BootstrapDisparityResult:
    """:func:`bootstrap_disparity` on rows already validated (:func:`fairstats._rows.two_group_rows`); the
    outcome tests call it with their own rows."""
    confidence_level = level_iv(confidence_level, "confidence_level")
    n_resamples = n_resamples_iv(n_resamples)
    method = _method_iv(method)
    generator = rng_iv(rng)
    sample_a, sample_b = _two_sample(prep)
    metrics = prep.metrics

    ca, sa = _cell_sums(sample_a.count.astype(float), sample_a)
    cb, sb = _cell_sums(sample_b.count.astype(float), sample_b)
    value_a = _metric_values(ca, sa, metrics)
    value_b = _metric_values(cb, sb, metrics)
    with np.errstate(invalid="ignore"):
        estimate = value_a - value_b
    boot = _bootstrap_differences(sample_a, sample_b, metrics, n_resamples, generator)
    jack = _disparity_jackknife(sample_a, sample_b, metrics) if method == "BCa" else None

    columns, levels, used, undefined = [], [], [], []
    for j, metric in enumerate(metrics):
        column, bad = drop_undefined(
            boot[:, j],
            f"{metric} difference {prep.group_a!r} - {prep.group_b!r}",
            warn and np.isfinite(estimate[j]),
        )
        jk = None
        if jack is not None:
            jk = [(values[:, j], m) for values, m in jack]
            if any(not np.all(np.isfinite(v)) for v, _ in jk):
                jk = None
        probs, how = interval_levels(
            float(estimate[j]),
            column,
            jk,
            confidence_level=confidence_level,
            method=method,
            what=f"{metric} difference {prep.group_a!r} - {prep.group_b!r}",
            warn=warn,
        )
        columns.append(column)
        levels.append(probs)
        used.append(how)
        undefined.append(bad)
    ends = interval_ends([float(e) for e in estimate], columns, levels, method)
    lows, highs = [low for low, _ in ends], [high for _, high in ends]

    def dens(counts):
        return [float(counts @ np.asarray(METRIC_COEFFICIENTS[m][1], dtype=float)) for m in metrics]

    index = pd.Index(list(metrics), name="metric")
    return BootstrapDisparityResult(
        group_columns=tuple(prep.columns),
        group_a=prep.group_a,
        group_b=prep.group_b,
        favorable=favorable,
        metrics=tuple(metrics),
        value_a=pd.Series(value_a, index=index, name="value_a"),
        value_b=pd.Series(value_b, index=index, name="value_b"),
        estimate=pd.Series(estimate, index=index, name="estimate"),
        ci_low=pd.Series(lows, index=index, name="ci_low", dtype=float),
        ci_high=pd.Series(highs, index=index, name="ci_high", dtype=float),
        ci_method=pd.Series(used, index=index, name="ci_method", dtype=object),
        denominator_a=pd.Series(dens(ca), index=index, name="denominator_a"),
        denominator_b=pd.Series(dens(cb), index=index, name="denominator_b"),
        n_undefined=pd.Series(undefined, index=index, name="n_undefined", dtype=np.int64),
        n_a=sample_a.n,
        n_b=sample_b.n,
        confidence_level=confidence_level,
        method=method,
        n_resamples=n_resamples,
        bootstrap_distribution=boot,
    )


# --------------------------------------------------------------------------------------------------------
# bootstrap_cramers_v
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BootstrapCramersVResult(Result):
    """Cramér's V of the equal confusion table (paper A's confusion parity error) with a bootstrap interval.

    Attributes
    ----------
    statistic : float
        Cramér's V of the observed table (equals :func:`fairstats.confusion_parity_error`).
    ci_low, ci_high : float
        Two-sided interval at ``confidence_level``.
    ci_method : str
        Interval method used (``method``, or ``"undefined"``, NaN interval and :class:`BCaUndefinedWarning`,
        when BCa is undefined).
    confidence_level : float
    method : str
        Requested method.
    n_resamples : int
    n_undefined : int
        Resamples with fewer than two non-empty cells (V undefined), left out.
    n : int
        People in the table.
    n_groups, n_cells : int
        Rows and columns of the observed table.
    group_columns : tuple of str
    bootstrap_distribution : numpy.ndarray
        Resampled V values (NaN where undefined).
    """

    statistic: float
    ci_low: float
    ci_high: float
    ci_method: str
    confidence_level: float
    method: str
    n_resamples: int
    n_undefined: int
    n: int
    n_groups: int
    n_cells: int
    group_columns: tuple[str, ...]
    bootstrap_distribution: np.ndarray = field(repr=False)

    _record = (
        "grouping", "statistic", "ci_low", "ci_high", "ci_method", "confidence_level", "n_resamples",
        "n_undefined", "n", "n_groups", "n_cells",
    )  # fmt: skip

    @property
    def grouping(self) -> str:
        """The group columns joined by ``" x "`` (the record's ``grouping``)."""
        return " x ".join(self.group_columns)


def _cramers_v(tables: np.ndarray) -> np.ndarray:
    """Cramér's V of each table (..., q, r) without continuity correction; empty columns drop out."""
    tables = np.asarray(tables, dtype=float)
    n = tables.sum(axis=(-2, -1))
    rows = tables.sum(axis=-1)
    cols = tables.sum(axis=-2)
    expected = rows[..., :, None] * cols[..., None, :] / n[..., None, None]
    contrib = np.zeros_like(tables)
    np.divide((tables - expected) ** 2, expected, out=contrib, where=expected > 0)
    chi2 = contrib.sum(axis=(-2, -1))
    q_eff = (rows > 0).sum(axis=-1)
    r_eff = (cols > 0).sum(axis=-1)
    df_star = np.minimum(q_eff, r_eff) - 1
    out = np.full(chi2.shape, np.nan)
    np.divide(chi2, n * df_star, out=out, where=df_star > 0)
    return np.sqrt(out)


def bootstrap_cramers_v(
    data: pd.DataFrame | ContingencyTable,
    *,
    group: str | Sequence[str] | None = None,
    y_true: str | None = None,
    y_pred: str | None = None,
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    method: str = "BCa",
    rng: int | np.random.Generator | None = None,
    warn: bool = True,
) -> BootstrapCramersVResult:
    r"""Bootstrap confidence interval for Cramér's V of the group × confusion-cell table (paper A, Eq. 3).

    Parameters
    ----------
    data, group, y_true, y_pred
        As in :func:`fairstats.confusion.equal_confusion_test` (binary or multi-class labels; ``data`` may be
        a :class:`fairstats.ContingencyTable`).
    n_resamples : int, default 9999
    confidence_level : float, default 0.95
    method : {"percentile", "basic", "BCa"}, default "BCa"
    rng : int, numpy.random.Generator or None
        Seed or generator; a seed gives identical results every run.
    warn : bool, default True
        Warn when resamples leave V undefined.

    Returns
    -------
    BootstrapCramersVResult

    Raises
    ------
    ValueError, TypeError
        As :meth:`fairstats.ContingencyTable.from_frame`; bad level, ``method``, ``n_resamples`` or ``rng``.

    Notes
    -----
    Each group's row of the table :math:`O` is resampled as
    :math:`\mathrm{Multinomial}(O_{i*}, O_{ij}/O_{i*})` (people drawn with replacement within their group;
    group sizes fixed), and V recomputed:

    .. math:: V^* = \sqrt{\frac{\chi^{2*}}{n \, (\min(q, r^*) - 1)}}

    with :math:`r^*` the resample's non-empty cells. The BCa jackknife leaves out one person of each
    (group, cell). V is bounded below by 0 and biased upwards in small samples, so an interval for a V near 0
    does not cover 0 even when the groups do not differ: read it as the precision of V, and the equal
    confusion test (or its permutation p-value) as the test of "no difference". BCa on V can even exclude
    the observed V (many small groups); :func:`fairstats.cramers_v.cramers_v_interval` gives an interval
    with correct coverage near 0, which the audit and the compendium use.

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Eq. 3; Efron and Tibshirani (1993), Ch. 14 (BCa); H. Cramér,
    *Mathematical Methods of Statistics*, 1946.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": list("aaaaaabbbbbb"), "y": [1, 1, 1, 0, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0]})
    >>> res = bootstrap_cramers_v(df, group="g", y_true="y", y_pred="p", n_resamples=999, rng=0)
    >>> round(res.statistic, 4)
    0.3944
    """
    observed = ContingencyTable.of(data, group, y_true, y_pred).observed
    confidence_level = level_iv(confidence_level, "confidence_level")
    n_resamples = n_resamples_iv(n_resamples)
    method = _method_iv(method)
    generator = rng_iv(rng)
    o = observed.to_numpy().astype(np.int64)
    q, r = o.shape
    n = int(o.sum())
    statistic = float(_cramers_v(o))

    boot = np.concatenate([_cramers_v(tables) for tables in row_multinomial_draws(o, n_resamples, generator)])
    column, bad = drop_undefined(boot, f"Cramér's V of {list(observed.index.names)}", warn)

    jack = None
    if method == "BCa":
        jack = []
        for i in range(q):
            cells = np.flatnonzero(o[i])
            loo = np.repeat(o[None, :, :], cells.size, axis=0).astype(float)
            loo[np.arange(cells.size), i, cells] -= 1
            values = _cramers_v(loo)
            if not np.all(np.isfinite(values)):
                jack = None
                break
            jack.append((values, o[i, cells].astype(float)))
    probs, used = interval_levels(
        statistic,
        column,
        jack,
        confidence_level=confidence_level,
        method=method,
        what=f"Cramér's V of {list(observed.index.names)}",
        warn=warn,
    )
    ((low, high),) = interval_ends([statistic], [column], [probs], method)
    columns = as_list(group, name="group")
    return BootstrapCramersVResult(
        statistic=statistic,
        ci_low=low,
        ci_high=high,
        ci_method=used,
        confidence_level=confidence_level,
        method=method,
        n_resamples=n_resamples,
        n_undefined=bad,
        n=n,
        n_groups=q,
        n_cells=r,
        group_columns=tuple(columns),
        bootstrap_distribution=boot,
    )
