r"""Inference that holds up: multiplicity control, bootstrap confidence intervals, fold-aware intervals.

Three questions a fairness audit must answer beyond "is p below 0.05?":

* **How many tests were run?** A battery of a dozen fairness definitions times four models is a family of
  some fifty tests; at α = 0.05 a few "violations" are expected by chance alone. :func:`adjust_pvalues`
  applies Holm's step-down (family-wise error) or Benjamini–Hochberg's step-up (false discovery rate)
  adjustment over a whole battery table, per family (``by``), through
  :func:`statsmodels.stats.multitest.multipletests`; :func:`verdict_table` sets the paper's verdict beside
  the corrected t and both adjustments, one row per model and fairness definition.
* **How large is the disparity, give or take?** :func:`bootstrap_disparity` gives seeded bootstrap
  confidence intervals (percentile, basic or BCa) for the difference of a group metric (positive prediction
  rate, TPR, FPR, PPV, NPV, accuracy, FN/FP ratio, mean score by true class) between two groups;
  :func:`bootstrap_cramers_v` for Cramér's V of the equal confusion table (paper A's confusion parity error).
* **Is the disparity real without folds?** :func:`outcome_tests` runs paper B's outcome-based definitions on
  one set of predictions (no cross-validation folds): two-sample score tests for proportions, Welch's t for
  mean scores, each with its bootstrap interval. :func:`fold_disparity` is the fold-aware counterpart:
  per-fold group metrics, the four t-tests of :func:`fairstats.ttests.fold_ttest` and an interval from the
  corrected resampled t.

The bootstrap resamples people within each group (group sizes fixed, the two-sample design of
:func:`scipy.stats.bootstrap`). Every statistic here depends on a person only through a few categories
(confusion cell, and the score when there is one), so one resample of a group is a multinomial draw of
category counts — the same distribution as drawing people with replacement, at a cost independent of the
group's size. The intervals follow :func:`scipy.stats.bootstrap` exactly (same quantile rule, same BCa bias
and acceleration estimates; the jackknife is computed once per category instead of once per person, which
gives the same values); the tests check the intervals against scipy's on the same bootstrap distribution.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import ndtr, ndtri
from statsmodels.stats import proportion as sm_proportion
from statsmodels.stats.multitest import multipletests

from fairstats._validation import as_list, require_columns, require_frame, require_no_nan
from fairstats.confusion import confusion_table
from fairstats.metrics import METRICS, group_metrics
from fairstats.ttests import ALTERNATIVES, fold_ttest

__all__ = [
    "ADJUST_METHODS",
    "CI_METHODS",
    "OUTCOME_TESTS",
    "CramersVBootstrapResult",
    "DisparityBootstrapResult",
    "FoldDisparityResult",
    "OutcomeTestsResult",
    "UndefinedResampleWarning",
    "adjust_pvalues",
    "bootstrap_cramers_v",
    "bootstrap_disparity",
    "fold_disparity",
    "group_labels",
    "outcome_tests",
    "verdict_table",
]

#: statsmodels ``multipletests`` methods accepted by :func:`adjust_pvalues`, with their column suffix.
ADJUST_METHODS: dict[str, str] = {"holm": "holm", "fdr_bh": "bh", "bonferroni": "bonferroni", "fdr_by": "by"}

#: Bootstrap interval methods (scipy.stats.bootstrap's names).
CI_METHODS = ("percentile", "basic", "BCa")

#: Paper B's outcome-based fairness definitions (sections II-B to II-I, II-L, II-M) and the group metrics
#: (:data:`fairstats.metrics.METRICS`) each one compares. Two metrics: the paper tests both at alpha / 2.
OUTCOME_TESTS: dict[str, tuple[str, ...]] = {
    "group_fairness": ("ppr",),
    "predictive_parity": ("ppv",),
    "predictive_equality": ("fpr",),
    "equal_opportunity": ("fnr",),
    "equalized_odds": ("tpr", "fpr"),
    "conditional_use_accuracy_equality": ("ppv", "npv"),
    "overall_accuracy_equality": ("accuracy",),
    "treatment_equality": ("fn_fp_ratio",),
    "balance_positive_class": ("mean_score_pos",),
    "balance_negative_class": ("mean_score_neg",),
}

_SCORE_METRICS = ("mean_score_pos", "mean_score_neg")
# Numerator and denominator of each count metric as coefficients over the cells (tp, fp, fn, tn), the order
# of fairstats.metrics.CELLS; the score metrics' numerators are score sums (see _metric_values).
_COEF: dict[str, tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = {
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
# Proportions tested by the two-sample score test: (numerator, denominator) over the cells. The FN/FP ratio is
# equal in two groups exactly when the share of false negatives among the errors, FN / (FN + FP), is.
_TESTED_PROPORTION: dict[str, tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = {
    **{m: _COEF[m] for m in ("ppr", "tpr", "fpr", "fnr", "tnr", "ppv", "npv", "accuracy")},
    "fn_fp_ratio": ((0, 0, 1, 0), (0, 1, 1, 0)),
}
# scipy's alternative -> statsmodels' name for it.
_SM_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}
# Multinomial draws are used while a group has at most this many categories; beyond it, index resampling.
_MAX_MULTINOMIAL_CATEGORIES = 256
# Elements per batch of resampled counts (memory bound).
_BATCH_ELEMENTS = 4_000_000


class UndefinedResampleWarning(UserWarning):
    """Some bootstrap resamples leave a statistic undefined (a zero denominator); the CI leaves them out."""


# --------------------------------------------------------------------------------------------------------
# small checks
# --------------------------------------------------------------------------------------------------------


def _level_iv(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        raise ValueError(f"`{name}` must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def _n_resamples_iv(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise ValueError(f"`n_resamples` must be a positive integer, got {value!r}")
    return int(value)


def _method_iv(method: object) -> str:
    if method not in CI_METHODS:
        raise ValueError(f"`method` must be one of {list(CI_METHODS)}, got {method!r}")
    return str(method)


def _rng_iv(rng: object) -> np.random.Generator:
    if not (rng is None or isinstance(rng, numbers.Integral | np.random.Generator | np.random.SeedSequence)):
        raise TypeError(f"`rng` must be None, an int seed or a numpy Generator, got {type(rng).__name__}")
    if isinstance(rng, bool):
        raise TypeError(f"`rng` must be None, an int seed or a numpy Generator, got {rng!r}")
    return np.random.default_rng(rng)


def _plain(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else value


def group_labels(data: pd.DataFrame, group: str | Sequence[str]) -> pd.Series:
    """Group label of each row: the column's value as text, or the listed columns' values joined by ``" - "``.

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
    data = require_frame(data)
    columns = as_list(group, name="group")
    require_columns(data, columns, where="`data`")
    require_no_nan(data, columns, where="`data`")
    labels = data[columns[0]].astype(str).astype(object)
    for column in columns[1:]:
        labels = labels + " - " + data[column].astype(str).astype(object)
    return pd.Series(labels.to_numpy(dtype=object), index=data.index, name=" x ".join(columns))


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


def _compress(cell: np.ndarray, score: np.ndarray | None) -> _Sample:
    if score is None:
        counts = np.bincount(cell, minlength=4)
        keep = np.flatnonzero(counts)
        return _Sample(
            cell=keep.astype(np.int64), score=np.zeros(keep.size), count=counts[keep].astype(np.int64)
        )
    frame = pd.DataFrame({"cell": cell, "score": score})
    grouped = frame.groupby(["cell", "score"], sort=True).size()
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
        num_coef, den_coef = _COEF[metric]
        den = counts @ np.asarray(den_coef, dtype=float)
        if metric == "mean_score_pos":
            num = sums[..., 0]
        elif metric == "mean_score_neg":
            num = sums[..., 1]
        else:
            num = counts @ np.asarray(num_coef, dtype=float)
        np.divide(num, den, out=out[..., j], where=den > 0)
    return out


def _resample_weights(sample: _Sample, n_resamples: int, rng: np.random.Generator):
    """Yield batches of resampled category counts (b, k): a bootstrap resample of the group's people."""
    k, n = sample.count.size, sample.n
    if k <= _MAX_MULTINOMIAL_CATEGORIES:
        pvals = sample.count / n
        batch = max(1, min(n_resamples, _BATCH_ELEMENTS // max(k, 1)))
        done = 0
        while done < n_resamples:
            b = min(batch, n_resamples - done)
            yield rng.multinomial(n, pvals, size=b).astype(float)
            done += b
        return
    # many categories (a continuous score): draw people by index, then count categories per resample
    category = np.repeat(np.arange(k), sample.count)
    batch = max(1, min(n_resamples, _BATCH_ELEMENTS // max(n, 1)))
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        drawn = category[rng.integers(0, n, size=(b, n))]
        flat = (np.arange(b)[:, None] * k + drawn).ravel()
        yield np.bincount(flat, minlength=b * k).reshape(b, k).astype(float)
        done += b


def _percentile_of_score(boot: np.ndarray, value: float) -> float:
    """scipy.stats.bootstrap's ``_percentile_of_score``: the 'mean' kind, as a fraction."""
    return float(((boot < value).sum() + (boot <= value).sum()) / (2 * boot.size))


def _acceleration(jackknife: Sequence[tuple[np.ndarray, np.ndarray]]) -> float:
    """BCa acceleration from per-sample jackknife values and their multiplicities (scipy's estimator).

    ``jackknife[j] = (theta_i, m_i)``: leaving out one person of category i of sample j gives theta_i, and
    sample j has m_i such people. Same sums as scipy's ``_bca_interval`` over the n_j leave-one-out values.
    """
    nums, dens = 0.0, 0.0
    for theta, m in jackknife:
        n = float(m.sum())
        mean = float((m * theta).sum() / n)
        u = (n - 1.0) * (mean - theta)
        nums += float((m * u**3).sum() / n**3)
        dens += float((m * u**2).sum() / n**2)
    return (1.0 / 6.0) * nums / dens**1.5 if dens > 0 else float("nan")


def _interval(
    estimate: float,
    boot: np.ndarray,
    jackknife: Sequence[tuple[np.ndarray, np.ndarray]] | None,
    *,
    confidence_level: float,
    method: str,
) -> tuple[float, float, str]:
    """Two-sided interval as scipy.stats.bootstrap computes it from ``boot``; falls back to percentile when
    BCa's bias or acceleration is undefined. Returns (low, high, method used)."""
    if boot.size == 0 or not np.isfinite(estimate):
        return float("nan"), float("nan"), method
    alpha = (1.0 - confidence_level) / 2.0
    probs = (alpha, 1.0 - alpha)
    used = method
    if method == "BCa":
        z0 = float(ndtri(_percentile_of_score(boot, estimate)))
        a_hat = _acceleration(jackknife) if jackknife is not None else float("nan")
        if np.isfinite(z0) and np.isfinite(a_hat):
            z = float(ndtri(alpha))
            num1, num2 = z0 + z, z0 - z
            probs = (float(ndtr(z0 + num1 / (1 - a_hat * num1))), float(ndtr(z0 + num2 / (1 - a_hat * num2))))
        else:
            used = "percentile"
    low, high = (float(v) for v in stats.quantile(boot, np.asarray(probs)))
    if method == "basic":
        low, high = 2 * estimate - high, 2 * estimate - low
    return low, high, used


def _drop_undefined(boot: np.ndarray, what: str, warn: bool) -> tuple[np.ndarray, int]:
    ok = np.isfinite(boot)
    bad = int((~ok).sum())
    if bad and warn:
        warnings.warn(
            UndefinedResampleWarning(
                f"{what}: {bad} of {boot.size} bootstrap resamples leave it undefined (a zero denominator); "
                "the interval uses the others"
            ),
            stacklevel=3,
        )
    return boot[ok], bad


# --------------------------------------------------------------------------------------------------------
# bootstrap_disparity
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DisparityBootstrapResult:
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
        Interval method used per metric: ``method``, or ``"percentile"`` where BCa's bias correction or
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


@dataclass(frozen=True)
class _Prepared:
    columns: list[str]
    labels: pd.Series
    group_a: str
    group_b: str
    metrics: tuple[str, ...]
    cell: np.ndarray  # per row, favourable-relative cell 0..3
    score: np.ndarray | None
    mask_a: np.ndarray
    mask_b: np.ndarray


def _prepare_iv(data, group, y_true, y_pred, y_score, groups, metrics, favorable, *, where="`data`"):
    """Shared validation of the two-group functions; returns the rows' cells and the two groups' masks."""
    data = require_frame(data)
    columns = as_list(group, name="group")
    for name, value in (("y_true", y_true), ("y_pred", y_pred)):
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be one column name, got {value!r}")
    if y_score is not None and not isinstance(y_score, str):
        raise TypeError(f"`y_score` must be a column name or None, got {y_score!r}")
    used = [*columns, y_true, y_pred, *([y_score] if y_score is not None else [])]
    require_columns(data, used, where=where)
    require_no_nan(data, used, where=where)
    if favorable not in (0, 1):
        raise ValueError(
            f"`favorable` must be 0 or 1 (the label of the favourable outcome), got {favorable!r}"
        )
    # validation of labels and score (binary 0/1, score in [0, 1]) by fairstats.metrics
    label_column = "__fairstats_group__"
    frame = pd.DataFrame(
        {
            label_column: group_labels(data, columns).to_numpy(),
            "y_true": data[y_true].to_numpy(),
            "y_pred": data[y_pred].to_numpy(),
        },
    )
    if y_score is not None:
        frame["y_score"] = data[y_score].to_numpy()
    try:
        group_metrics(
            frame,
            y_true="y_true",
            y_pred="y_pred",
            y_score="y_score" if y_score is not None else None,
            group=label_column,
            fold=None,
            by=(),
            favorable=favorable,
            form="wide",
            warn=False,
        )
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
    labels = group_labels(data, columns)
    true_fav = (data[y_true] == favorable).to_numpy()
    pred_fav = (data[y_pred] == favorable).to_numpy()
    cell = np.where(pred_fav, np.where(true_fav, 0, 1), np.where(true_fav, 2, 3)).astype(np.int64)
    score = data[y_score].to_numpy(dtype=float) if y_score is not None else None
    values = labels.to_numpy()
    return _Prepared(
        columns=columns,
        labels=labels,
        group_a=group_a,
        group_b=group_b,
        metrics=metrics,
        cell=cell,
        score=score,
        mask_a=values == group_a,
        mask_b=values == group_b,
    )


def _two_sample(prep: _Prepared) -> tuple[_Sample, _Sample]:
    def one(mask):
        return _compress(prep.cell[mask], None if prep.score is None else prep.score[mask])

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
        for weights in _resample_weights(sample, n_resamples, rng):
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
) -> DisparityBootstrapResult:
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
    DisparityBootstrapResult
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
    prep = _prepare_iv(data, group, y_true, y_pred, y_score, groups, metrics, favorable)
    confidence_level = _level_iv(confidence_level, "confidence_level")
    n_resamples = _n_resamples_iv(n_resamples)
    method = _method_iv(method)
    generator = _rng_iv(rng)
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

    lows, highs, used, undefined = [], [], [], []
    for j, metric in enumerate(metrics):
        column, bad = _drop_undefined(
            boot[:, j],
            f"{metric} difference {prep.group_a!r} - {prep.group_b!r}",
            warn and np.isfinite(estimate[j]),
        )
        jk = None
        if jack is not None:
            jk = [(values[:, j], m) for values, m in jack]
            if any(not np.all(np.isfinite(v)) for v, _ in jk):
                jk = None
        low, high, how = _interval(
            float(estimate[j]), column, jk, confidence_level=confidence_level, method=method
        )
        lows.append(low)
        highs.append(high)
        used.append(how)
        undefined.append(bad)

    def dens(counts):
        return [float(counts @ np.asarray(_COEF[m][1], dtype=float)) for m in metrics]

    index = pd.Index(list(metrics), name="metric")
    return DisparityBootstrapResult(
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
class CramersVBootstrapResult:
    """Cramér's V of the equal confusion table (paper A's confusion parity error) with a bootstrap interval.

    Attributes
    ----------
    statistic : float
        Cramér's V of the observed table (equals :func:`fairstats.confusion_parity_error`).
    ci_low, ci_high : float
        Two-sided interval at ``confidence_level``.
    ci_method : str
        Interval method used (``method``, or ``"percentile"`` when BCa is undefined).
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

    def to_record(self) -> dict[str, object]:
        """Scalar fields as a dict (``grouping`` = the columns joined by ``" x "``)."""
        return {
            "grouping": " x ".join(self.group_columns),
            "statistic": self.statistic,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "ci_method": self.ci_method,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "n_undefined": self.n_undefined,
            "n": self.n,
            "n_groups": self.n_groups,
            "n_cells": self.n_cells,
        }

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of :meth:`to_record`."""
        return pd.DataFrame([self.to_record()])


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
    data: pd.DataFrame,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    method: str = "BCa",
    rng: int | np.random.Generator | None = None,
    warn: bool = True,
) -> CramersVBootstrapResult:
    r"""Bootstrap confidence interval for Cramér's V of the group × confusion-cell table (paper A, Eq. 3).

    Parameters
    ----------
    data, group, y_true, y_pred
        As in :func:`fairstats.confusion.equal_confusion_test` (binary or multi-class labels).
    n_resamples : int, default 9999
    confidence_level : float, default 0.95
    method : {"percentile", "basic", "BCa"}, default "BCa"
    rng : int, numpy.random.Generator or None
        Seed or generator; a seed gives identical results every run.
    warn : bool, default True
        Warn when resamples leave V undefined.

    Returns
    -------
    CramersVBootstrapResult

    Raises
    ------
    ValueError, TypeError
        As :func:`fairstats.confusion.confusion_table`; bad level, ``method``, ``n_resamples`` or ``rng``.

    Notes
    -----
    Each group's row of the table :math:`O` is resampled as
    :math:`\mathrm{Multinomial}(O_{i*}, O_{ij}/O_{i*})` (people drawn with replacement within their group;
    group sizes fixed), and V recomputed:

    .. math:: V^* = \sqrt{\frac{\chi^{2*}}{n \, (\min(q, r^*) - 1)}}

    with :math:`r^*` the resample's non-empty cells. The BCa jackknife leaves out one person of each
    (group, cell). V is bounded below by 0 and biased upwards in small samples, so an interval for a V near 0
    does not cover 0 even when the groups do not differ: read it as the precision of V, and the equal
    confusion test (or its permutation p-value) as the test of "no difference".

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
    observed = confusion_table(data, group=group, y_true=y_true, y_pred=y_pred)
    confidence_level = _level_iv(confidence_level, "confidence_level")
    n_resamples = _n_resamples_iv(n_resamples)
    method = _method_iv(method)
    generator = _rng_iv(rng)
    o = observed.to_numpy().astype(np.int64)
    q, r = o.shape
    n = int(o.sum())
    statistic = float(_cramers_v(o))

    boot = np.empty(n_resamples)
    batch = max(1, min(n_resamples, _BATCH_ELEMENTS // (q * r)))
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        tables = np.stack(
            [generator.multinomial(o[i].sum(), o[i] / o[i].sum(), size=b) for i in range(q)], axis=1
        )
        boot[done : done + b] = _cramers_v(tables)
        done += b
    column, bad = _drop_undefined(boot, f"Cramér's V of {list(observed.index.names)}", warn)

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
    low, high, used = _interval(statistic, column, jack, confidence_level=confidence_level, method=method)
    columns = as_list(group, name="group")
    return CramersVBootstrapResult(
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


# --------------------------------------------------------------------------------------------------------
# outcome_tests: paper B's outcome definitions without folds
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class OutcomeTestsResult:
    """Paper B's outcome-based fairness tests on one set of predictions, with bootstrap intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (test, metric), in :data:`OUTCOME_TESTS` order: ``test, metric, group_a, group_b,
        value_a, value_b, estimate, ci_low, ci_high, count_a, nobs_a, count_b, nobs_b, statistic, pvalue,
        alternative, alpha, significant, method`` (``alpha`` is the family level divided by the number of
        metrics of the definition, as paper B's Bonferroni; ``significant = pvalue < alpha``).
    bootstrap : DisparityBootstrapResult
        The intervals' bootstrap (one per metric).
    alpha : float
        Family level of each definition.
    """

    table: pd.DataFrame
    bootstrap: DisparityBootstrapResult
    alpha: float

    def to_frame(self) -> pd.DataFrame:
        """The ``table`` (a copy), with ``grouping`` first."""
        return self.table.copy()


def _alternatives_iv(alternative: object, metrics: Sequence[str]) -> dict[str, str]:
    if isinstance(alternative, str):
        if alternative not in ALTERNATIVES:
            raise ValueError(f"`alternative` must be one of {list(ALTERNATIVES)}, got {alternative!r}")
        return dict.fromkeys(metrics, alternative)
    if isinstance(alternative, Mapping):
        out = {}
        for m in metrics:
            value = alternative.get(m, "two-sided")
            if value not in ALTERNATIVES:
                raise ValueError(f"`alternative[{m!r}]` must be one of {list(ALTERNATIVES)}, got {value!r}")
            out[m] = value
        return out
    raise TypeError(f"`alternative` must be a string or a mapping metric -> alternative, got {alternative!r}")


def outcome_tests(
    data: pd.DataFrame,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    groups: Sequence[object] | None = None,
    y_score: str | None = None,
    tests: Sequence[str] | None = None,
    favorable: int = 1,
    alternative: str | Mapping[str, str] = "two-sided",
    alpha: float = 0.05,
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    method: str = "BCa",
    rng: int | np.random.Generator | None = None,
    warn: bool = True,
) -> OutcomeTestsResult:
    r"""Paper B's outcome-based fairness definitions between two groups, without cross-validation folds.

    Paper B tests each definition by comparing 250 per-fold values per group with a t-test. With a single set
    of predictions (COMPAS scores, a deployed model) the same questions are tests of two independent
    proportions, or of two means for the score-based definitions; each comes with a bootstrap interval of the
    difference (:func:`bootstrap_disparity`).

    Parameters
    ----------
    data, group, y_true, y_pred, groups, y_score, favorable
        As in :func:`bootstrap_disparity`.
    tests : list of str, optional
        Keys of :data:`OUTCOME_TESTS` (default: all, the balance tests only with ``y_score``).
    alternative : str or mapping metric -> str, default "two-sided"
        Alternative about ``metric(a) - metric(b)`` (``"greater"``: a's is larger), per metric if a mapping.
    alpha : float, default 0.05
        Level of each definition; a definition with two metrics tests each at ``alpha / 2`` (paper B).
    n_resamples, confidence_level, method, rng, warn
        Of the bootstrap intervals (:func:`bootstrap_disparity`).

    Returns
    -------
    OutcomeTestsResult

    Raises
    ------
    ValueError, TypeError
        As :func:`bootstrap_disparity`; an unknown test, or a balance test without ``y_score``.

    Notes
    -----
    Rates (PPR, TPR, FPR, FNR, PPV, NPV, accuracy) are proportions :math:`k_g / n_g` with the denominator
    of the metric (e.g. actual favourable outcomes for TPR); they are compared with the score test for the
    difference of two independent binomial proportions (Miettinen & Nurminen 1985;
    ``statsmodels.stats.proportion.test_proportions_2indep(method="score")``). Treatment equality compares
    FN/FP ratios; they are equal exactly when the share of false negatives among the errors,
    :math:`FN / (FN + FP)`, is, which is the proportion tested. Balance for the positive (negative) class
    compares mean scores of people with the favourable (unfavourable) outcome by Welch's t
    (``scipy.stats.ttest_ind(equal_var=False)``). The tests condition on the denominators and treat people as
    independent, which out-of-fold predictions of cross-validated models are only approximately.

    References
    ----------
    Paper B, Sections II-B to II-I, II-L, II-M (definitions, tails, Bonferroni alpha / 2); O. Miettinen and
    M. Nurminen, "Comparative analysis of two rates", Statistics in Medicine 4(2), 1985; B. L. Welch,
    Biometrika 34, 1947; S. Verma and J. Rubin, "Fairness definitions explained", FairWare 2018.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 40 + ["b"] * 40, "y": [1, 0] * 40,
    ...                    "p": [1] * 30 + [0] * 10 + [1] * 10 + [0] * 30})
    >>> res = outcome_tests(df, group="g", y_true="y", y_pred="p", tests=["group_fairness"],
    ...                     n_resamples=199, rng=0)
    >>> res.table[["metric", "estimate"]].to_numpy().tolist()
    [['ppr', 0.5]]
    """
    if tests is None:
        tests = [
            t for t in OUTCOME_TESTS if y_score is not None or not set(OUTCOME_TESTS[t]) & set(_SCORE_METRICS)
        ]
    else:
        tests = as_list(tests, name="tests")
        for t in tests:
            if t not in OUTCOME_TESTS:
                raise ValueError(f"`tests`: unknown test {t!r}; choose from {list(OUTCOME_TESTS)}")
    needed = list(dict.fromkeys(m for t in tests for m in OUTCOME_TESTS[t]))
    alpha = _level_iv(alpha, "alpha")
    alternatives = _alternatives_iv(alternative, needed)
    boot = bootstrap_disparity(
        data,
        group=group,
        y_true=y_true,
        y_pred=y_pred,
        groups=groups,
        y_score=y_score,
        metrics=needed,
        favorable=favorable,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        rng=rng,
        warn=warn,
    )
    prep = _prepare_iv(data, group, y_true, y_pred, y_score, (boot.group_a, boot.group_b), needed, favorable)
    counts = {}
    for name, mask in (("a", prep.mask_a), ("b", prep.mask_b)):
        counts[name] = np.bincount(prep.cell[mask], minlength=4).astype(float)

    per_metric = {}
    for m in needed:
        alt = alternatives[m]
        if m in _SCORE_METRICS:
            true_fav = np.isin(prep.cell, (0, 2))
            cls = true_fav if m == "mean_score_pos" else ~true_fav
            xa, xb = prep.score[prep.mask_a & cls], prep.score[prep.mask_b & cls]
            count_a, nobs_a, count_b, nobs_b = (
                float(xa.sum()),
                float(xa.size),
                float(xb.sum()),
                float(xb.size),
            )
            if xa.size >= 2 and xb.size >= 2:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    res = stats.ttest_ind(xa, xb, equal_var=False, alternative=alt)
                stat, p = float(res.statistic), float(res.pvalue)
            else:
                stat = p = float("nan")
            how = "Welch two-sample t on scores (scipy.stats.ttest_ind, equal_var=False)"
        else:
            num, den = (np.asarray(c, dtype=float) for c in _TESTED_PROPORTION[m])
            count_a, nobs_a = float(counts["a"] @ num), float(counts["a"] @ den)
            count_b, nobs_b = float(counts["b"] @ num), float(counts["b"] @ den)
            stat = p = float("nan")
            if nobs_a > 0 and nobs_b > 0:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        res = sm_proportion.test_proportions_2indep(
                            count_a,
                            nobs_a,
                            count_b,
                            nobs_b,
                            method="score",
                            compare="diff",
                            alternative=_SM_ALTERNATIVE[alt],
                        )
                        stat, p = float(res.statistic), float(res.pvalue)
                    except (ValueError, ZeroDivisionError, FloatingPointError):
                        stat = p = float("nan")
                if not np.isfinite(p):
                    stat = p = float("nan")
            what = "FN / (FN + FP)" if m == "fn_fp_ratio" else m.upper() if m != "accuracy" else "accuracy"
            how = f"score test of two proportions, {what} (Miettinen-Nurminen; statsmodels)"
        per_metric[m] = (count_a, nobs_a, count_b, nobs_b, stat, p, alt, how)

    rows = []
    for t in tests:
        level = alpha / len(OUTCOME_TESTS[t])
        for m in OUTCOME_TESTS[t]:
            count_a, nobs_a, count_b, nobs_b, stat, p, alt, how = per_metric[m]
            rows.append(
                {
                    "grouping": " x ".join(boot.group_columns),
                    "test": t,
                    "metric": m,
                    "group_a": boot.group_a,
                    "group_b": boot.group_b,
                    "value_a": float(boot.value_a[m]),
                    "value_b": float(boot.value_b[m]),
                    "estimate": float(boot.estimate[m]),
                    "ci_low": float(boot.ci_low[m]),
                    "ci_high": float(boot.ci_high[m]),
                    "count_a": count_a,
                    "nobs_a": nobs_a,
                    "count_b": count_b,
                    "nobs_b": nobs_b,
                    "statistic": stat,
                    "pvalue": p,
                    "alternative": alt,
                    "alpha": level,
                    "significant": bool(p < level),
                    "method": how,
                }
            )
    return OutcomeTestsResult(table=pd.DataFrame(rows), bootstrap=boot, alpha=alpha)


# --------------------------------------------------------------------------------------------------------
# fold_disparity: the fold-aware variant
# --------------------------------------------------------------------------------------------------------


_FOLD_COLUMNS = [
    "grouping", "group_a", "group_b", "metric", "k", "n_pairs", "mean_a", "mean_b", "estimate", "ci_low",
    "ci_high", "statistic_paper_formula", "pvalue_paper_formula", "statistic_pooled", "pvalue_pooled",
    "statistic_paired", "pvalue_paired", "statistic_corrected", "df_corrected", "pvalue_corrected",
    "significant_corrected", "alternative", "alpha", "note",
]  # fmt: skip


@dataclass(frozen=True, eq=False)
class FoldDisparityResult:
    """Per-fold group metrics of two groups compared with paper B's formula and three proper t-tests.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per metric: ``grouping, group_a, group_b, metric, k, n_pairs, mean_a, mean_b, estimate``
        (mean within-fold difference a - b), ``ci_low, ci_high`` (from the corrected resampled t),
        ``statistic_paper_formula, pvalue_paper_formula, statistic_pooled, pvalue_pooled, statistic_paired,
        pvalue_paired, statistic_corrected, df_corrected, pvalue_corrected, significant_corrected,
        alternative, alpha, note``. A metric defined in fewer than 2 folds of both groups is not tested:
        NaN statistics and a ``note``.
    per_fold : pandas.DataFrame
        Long per-fold values: ``fold, metric, value_a, value_b``.
    confidence_level : float
    """

    table: pd.DataFrame
    per_fold: pd.DataFrame
    confidence_level: float

    def to_frame(self) -> pd.DataFrame:
        """The per-metric ``table`` (a copy)."""
        return self.table.copy()


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
    require_columns(require_frame(data), [fold], where="`data`")
    require_no_nan(data, [fold], where="`data`")
    prep = _prepare_iv(data, group, y_true, y_pred, y_score, groups, metrics, favorable)
    if alternative not in ALTERNATIVES:
        raise ValueError(f"`alternative` must be one of {list(ALTERNATIVES)}, got {alternative!r}")
    alpha = _level_iv(alpha, "alpha")
    confidence_level = _level_iv(confidence_level, "confidence_level")
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
                "statistic_paper_formula": res.statistic_paper_formula,
                "pvalue_paper_formula": res.pvalue_paper_formula,
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
                "note": "" if res.n_pairs == res.k else f"{res.k - res.n_pairs} folds undefined, left out",
            }
        )
    return FoldDisparityResult(
        table=pd.DataFrame(rows, columns=_FOLD_COLUMNS),
        per_fold=pd.concat(per_fold, ignore_index=True),
        confidence_level=confidence_level,
    )


# --------------------------------------------------------------------------------------------------------
# multiplicity
# --------------------------------------------------------------------------------------------------------


def _pvalue_columns_iv(table: pd.DataFrame, pvalue: object) -> list[str]:
    columns = as_list(pvalue, name="pvalue")
    require_columns(table, columns, where="`table`")
    for c in columns:
        values = pd.to_numeric(table[c], errors="coerce")
        bad = table[c].notna() & values.isna()
        if bad.any():
            raise ValueError(
                f"`table`: column {c!r} has a non-numeric p-value {_plain(table.loc[bad, c].iloc[0])!r}"
            )
        out = values.notna() & ((values < 0) | (values > 1))
        if out.any():
            raise ValueError(
                f"`table`: column {c!r} has p-value {_plain(values[out].iloc[0])!r} outside [0, 1]"
            )
    return columns


def _coalesce(table: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """First non-NaN p-value among ``columns`` per row, and the column it came from ("" when none)."""
    p = np.full(len(table), np.nan)
    source = np.full(len(table), "", dtype=object)
    for c in columns:
        values = pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float)
        take = np.isnan(p) & ~np.isnan(values)
        p[take] = values[take]
        source[take] = c
    return p, source


def adjust_pvalues(
    table: pd.DataFrame,
    *,
    method: str = "holm",
    by: str | Sequence[str] | None = None,
    pvalue: str | Sequence[str] = "pvalue_corrected",
    alpha: float = 0.05,
    suffix: str | None = None,
) -> pd.DataFrame:
    r"""Multiplicity-adjusted p-values over a battery of tests, overall or per family.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per test (e.g. paper B's ``battery.csv``: one row per model, definition and metric).
    method : {"holm", "fdr_bh", "bonferroni", "fdr_by"}, default "holm"
        ``"holm"``: Holm's step-down, family-wise error rate; ``"fdr_bh"``: Benjamini–Hochberg step-up,
        false discovery rate (statsmodels ``multipletests`` names).
    by : str or list of str, optional
        Columns whose values define separate families (e.g. ``"model"``: each model's tests are one family).
        Default: the whole table is one family.
    pvalue : str or list of str, default "pvalue_corrected"
        Column of the p-values. A list takes, per row, the first non-NaN value (e.g.
        ``["pvalue_corrected", "pvalue"]`` for a battery whose χ² and McNemar rows have no corrected t).
    alpha : float, default 0.05
        Family level of the ``significant_<suffix>`` verdict.
    suffix : str, optional
        Names of the added columns (default: ``"holm"``, ``"bh"``, ``"bonferroni"`` or ``"by"``).

    Returns
    -------
    pandas.DataFrame
        A copy of ``table`` in the same row order with added columns ``pvalue_<suffix>`` (adjusted, NaN where
        the row has no p-value), ``significant_<suffix>`` (``pvalue_<suffix> < alpha``),
        ``family_size_<suffix>`` (tests in the row's family with a p-value) and, when ``pvalue`` is a list,
        ``pvalue_source``.

    Raises
    ------
    ValueError
        Missing column, NaN in a ``by`` column, a p-value outside [0, 1] or not numeric, unknown ``method``,
        ``alpha`` outside (0, 1).
    TypeError
        ``table`` not a DataFrame, column names not strings.

    Notes
    -----
    With the m p-values of a family sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`, Holm's adjusted p-values
    are :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1) p_{(j)})` and Benjamini–Hochberg's
    :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, m p_{(j)} / j)`; a test is significant when
    :math:`\tilde p < \alpha`. Holm controls the probability of any false violation in the family under any
    dependence; BH controls the expected share of false violations among those reported, under independence
    or positive dependence (which tests on the same predictions plausibly have). Rows without a p-value (NaN)
    are left out of the family and stay NaN.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6, 1979;
    Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", JRSS B 57, 1995;
    statsmodels ``statsmodels.stats.multitest.multipletests``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["lr", "lr", "rf"], "pvalue": [0.01, 0.04, 0.03]})
    >>> adjust_pvalues(t, pvalue="pvalue")["pvalue_holm"].round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues(t, pvalue="pvalue", by="model")["pvalue_holm"].round(4).tolist()
    [0.02, 0.04, 0.03]
    """
    table = require_frame(table, name="table")
    if method not in ADJUST_METHODS:
        raise ValueError(f"`method` must be one of {list(ADJUST_METHODS)}, got {method!r}")
    alpha = _level_iv(alpha, "alpha")
    columns = _pvalue_columns_iv(table, pvalue)
    by_columns = [] if by is None else as_list(by, name="by")
    require_columns(table, by_columns, where="`table`")
    require_no_nan(table, by_columns, where="`table`")
    if suffix is None:
        suffix = ADJUST_METHODS[method]
    if not isinstance(suffix, str) or not suffix:
        raise TypeError(f"`suffix` must be a non-empty string, got {suffix!r}")

    p, source = _coalesce(table, columns)
    if by_columns:
        family = table.groupby(by_columns, sort=False, dropna=False).ngroup().to_numpy()
    else:
        family = np.zeros(len(table), dtype=np.int64)
    adjusted = np.full(len(table), np.nan)
    size = np.zeros(len(table), dtype=np.int64)
    for f in np.unique(family):
        rows = np.flatnonzero((family == f) & ~np.isnan(p))
        size[family == f] = rows.size
        if rows.size:
            adjusted[rows] = multipletests(p[rows], alpha=alpha, method=method)[1]
    out = table.copy()
    if len(columns) > 1:
        out["pvalue_source"] = source
    out[f"pvalue_{suffix}"] = adjusted
    out[f"significant_{suffix}"] = adjusted < alpha
    out[f"family_size_{suffix}"] = size
    return out


def _as_bool(values: pd.Series) -> np.ndarray:
    """True/False from bools, 0/1 or the strings "True"/"False" (CSV round trip); anything else is False."""
    mapped = values.map(
        lambda v: (
            bool(v) if isinstance(v, bool | np.bool_ | int | np.integer) else str(v).strip().lower() == "true"
        )
    )
    return mapped.to_numpy(dtype=bool)


def verdict_table(
    battery: pd.DataFrame,
    *,
    alpha: float = 0.05,
    by: str | Sequence[str] = ("model",),
    test: str = "test",
    pvalue: str | Sequence[str] = "pvalue_corrected",
    paper: str = "significant_paper",
    family: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """Which of a battery's violations survive: the paper's verdict, the corrected t, Holm and BH.

    Parameters
    ----------
    battery : pandas.DataFrame
        One row per test, e.g. paper B's ``battery.csv`` (``table, model, test, metric, alternative, alpha,
        ..., pvalue_corrected, significant_paper, significant_corrected, source``).
    alpha : float, default 0.05
        Family level of the Holm and BH verdicts (and the corrected t's level when the battery has no
        ``alpha`` column).
    by : str or list of str, default ("model",)
        Columns that, with ``test``, make one row of the verdict table.
    test : str, default "test"
        Column naming the fairness definition; a definition with several rows (e.g. equalized odds: TPR and
        FPR) is violated when any of its rows is.
    pvalue : str or list of str, default "pvalue_corrected"
        p-value column(s) of the corrected verdicts (a list: first non-NaN per row, see
        :func:`adjust_pvalues`).
    paper : str, default "significant_paper"
        Column of the paper's verdict per row (bool, or "True"/"False" text).
    family : str or list of str, optional
        Families of the multiplicity adjustment (default: the whole battery is one family; ``"model"``: each
        model's tests).

    Returns
    -------
    pandas.DataFrame
        One row per (``by``, ``test``) in the battery's order: ``*by, test, n_tests, n_tested`` (rows with a
        p-value), ``paper`` (any row significant as published), ``corrected`` (any row with
        ``pvalue < alpha`` of that row, i.e. the paper's α and its Bonferroni α / 2), ``holm``, ``bh`` (any
        row with adjusted p < ``alpha``), ``pvalue_min`` (smallest corrected p), ``pvalue_holm_min``,
        ``pvalue_bh_min`` and ``verdict``, one of: ``"violation survives"`` (paper and Holm),
        ``"survives FDR (BH) only"``, ``"lost under multiplicity control"`` (corrected t but neither
        adjustment), ``"lost under the corrected t"``, ``"violation the paper did not report"``,
        ``"no violation (as the paper)"`` and ``"no p-value"``.

    Raises
    ------
    ValueError, TypeError
        As :func:`adjust_pvalues`; a missing ``test``, ``by`` or ``paper`` column.

    Notes
    -----
    The corrected verdict keeps the paper's per-test level (Bonferroni alpha / 2 for two-test definitions);
    Holm and BH replace it by one adjustment over the family, so the two-test definitions are not penalised
    twice.

    References
    ----------
    See :func:`adjust_pvalues`; paper B, Sections II-B to II-O (the verdicts).

    Examples
    --------
    >>> import pandas as pd
    >>> b = pd.DataFrame({"model": "lr", "test": ["a", "b", "c"], "pvalue_corrected": [0.001, 0.045, 0.2],
    ...                   "significant_paper": True})
    >>> verdict_table(b)["verdict"].tolist()
    ['violation survives', 'lost under multiplicity control', 'lost under the corrected t']
    """
    battery = require_frame(battery, name="battery")
    by_columns = as_list(by, name="by")
    if not isinstance(test, str) or not isinstance(paper, str):
        raise TypeError("`test` and `paper` must be column names")
    require_columns(battery, [*by_columns, test, paper], where="`battery`")
    require_no_nan(battery, [*by_columns, test], where="`battery`")
    alpha = _level_iv(alpha, "alpha")
    columns = _pvalue_columns_iv(battery, pvalue)
    adjusted = adjust_pvalues(battery, method="holm", by=family, pvalue=columns, alpha=alpha, suffix="holm")
    adjusted = adjust_pvalues(adjusted, method="fdr_bh", by=family, pvalue=columns, alpha=alpha, suffix="bh")
    p, _ = _coalesce(battery, columns)
    row_alpha = (
        pd.to_numeric(battery["alpha"], errors="coerce").fillna(alpha).to_numpy(dtype=float)
        if "alpha" in battery.columns
        else np.full(len(battery), alpha)
    )
    frame = pd.DataFrame(
        {
            **{c: battery[c].to_numpy() for c in by_columns},
            test: battery[test].to_numpy(),
            "_tested": ~np.isnan(p),
            "_paper": _as_bool(battery[paper]),
            "_corrected": p < row_alpha,
            "_holm": adjusted["significant_holm"].to_numpy(),
            "_bh": adjusted["significant_bh"].to_numpy(),
            "_p": p,
            "_p_holm": adjusted["pvalue_holm"].to_numpy(),
            "_p_bh": adjusted["pvalue_bh"].to_numpy(),
        }
    )
    out = (
        frame.groupby([*by_columns, test], sort=False)
        .agg(
            n_tests=("_tested", "size"),
            n_tested=("_tested", "sum"),
            paper=("_paper", "any"),
            corrected=("_corrected", "any"),
            holm=("_holm", "any"),
            bh=("_bh", "any"),
            pvalue_min=("_p", "min"),
            pvalue_holm_min=("_p_holm", "min"),
            pvalue_bh_min=("_p_bh", "min"),
        )
        .reset_index()
    )
    out["n_tested"] = out["n_tested"].astype(np.int64)

    def verdict(row) -> str:
        if row["n_tested"] == 0:
            return "no p-value"
        if row["paper"]:
            if row["holm"]:
                return "violation survives"
            if row["bh"]:
                return "survives FDR (BH) only"
            if row["corrected"]:
                return "lost under multiplicity control"
            return "lost under the corrected t"
        if row["holm"] or row["bh"] or row["corrected"]:
            return "violation the paper did not report"
        return "no violation (as the paper)"

    out["verdict"] = out.apply(verdict, axis=1) if len(out) else pd.Series(dtype=object)
    return out
