"""Paper B's outcome-based fairness definitions on one set of predictions, without cross-validation folds.

:func:`outcome_tests` runs each definition (:data:`OUTCOME_TESTS`) as a two-sample score test for proportions
or Welch's t for mean scores, each with its bootstrap interval
(:func:`fairstats.bootstrap.bootstrap_disparity`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairstats._proportions import STATSMODELS_ERRORS, diff_score_intervals, score_test_or_reason, score_tests
from fairstats._result import Result
from fairstats._rows import METRIC_COEFFICIENTS, SCORE_METRICS, TwoGroupRows, two_group_rows
from fairstats._small import MIN_EXPECTED, MIN_NORMAL, expected_reason, size_reason
from fairstats._validation import ALTERNATIVES, as_list, level_iv
from fairstats._warnings import UndefinedTestWarning
from fairstats.bootstrap import BootstrapDisparityResult, bootstrap_disparity_rows
from fairstats.equivalence import (
    DEFAULT_MARGIN,
    RATE_EQUIVALENCE_COLUMNS,
    margin_iv,
    rate_equivalence_many,
    welch_equivalence,
)
from fairstats.power import DEFAULT_POWER

__all__ = ["OUTCOME_TESTS", "OutcomeTestsResult", "UndefinedTestWarning", "outcome_tests"]

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

# Proportions tested by the two-sample score test: (numerator, denominator) over the cells. The FN/FP ratio is
# equal in two groups exactly when the share of false negatives among the errors, FN / (FN + FP), is.
_TESTED_PROPORTION: dict[str, tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = {
    **{m: METRIC_COEFFICIENTS[m] for m in ("ppr", "tpr", "fpr", "fnr", "tnr", "ppv", "npv", "accuracy")},
    "fn_fp_ratio": ((0, 0, 1, 0), (0, 1, 1, 0)),
}
# The bootstrap's columns in each row.
_SHOWN = ("value_a", "value_b", "estimate", "ci_low", "ci_high")
# scipy's alternative -> statsmodels' name for it.
_SM_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


@dataclass(frozen=True, eq=False)
class OutcomeTestsResult(Result):
    """Paper B's outcome-based fairness tests on one set of predictions, with bootstrap intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (test, metric), in :data:`OUTCOME_TESTS` order: ``test, metric, group_a, group_b,
        value_a, value_b, estimate, ci_low, ci_high, count_a, nobs_a, count_b, nobs_b, statistic, pvalue,
        alternative, alpha, significant, method, reason, equivalence_pvalue, equivalence_ci_low,
        equivalence_ci_high, margin_low, margin_high, equivalence_scale, equivalence_method, mde``
        (``alpha`` is the family level divided by the number of metrics of the definition, as paper B's
        Bonferroni; ``significant = pvalue < alpha``; ``reason`` says why a test is undefined, ""
        otherwise; the equivalence columns are those of
        :class:`fairstats.equivalence.EquivalenceResult` at ``alpha``).
    bootstrap : BootstrapDisparityResult
        The intervals' bootstrap (one per metric).
    alpha : float
        Family level of each definition.
    """

    table: pd.DataFrame
    bootstrap: BootstrapDisparityResult
    alpha: float

    _table = "table"
    _omit = ("bootstrap",)


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


def _weighted_moments(x: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """Mean, sample standard deviation (ddof 1) and size of values ``x`` held by ``w`` people each."""
    n = float(w.sum())
    mean = float(w @ x / n)
    return mean, float(np.sqrt(w @ (x - mean) ** 2 / (n - 1))), n


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
    margin: float = DEFAULT_MARGIN,
    margin_ratio: float | None = None,
    power: float = DEFAULT_POWER,
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
    margin, margin_ratio, power
        Of the equivalence test beside each difference test (:func:`fairstats.equivalence.rate_equivalence`
        for rates: the difference within ±``margin``, or with ``margin_ratio`` the ratio within
        [margin_ratio, 1 / margin_ratio]; :func:`fairstats.equivalence.welch_equivalence` for mean scores,
        always the difference) and of its minimum detectable disparity ``mde``.

    Returns
    -------
    OutcomeTestsResult

    Raises
    ------
    ValueError, TypeError
        As :func:`bootstrap_disparity`; an unknown test, a balance test without ``y_score``, a margin outside
        (0, 1).

    Warns
    -----
    UndefinedTestWarning
        A difference test could not be computed (its row has p = NaN and a ``reason``).

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
            t for t in OUTCOME_TESTS if y_score is not None or not set(OUTCOME_TESTS[t]) & set(SCORE_METRICS)
        ]
    else:
        tests = as_list(tests, name="tests")
        for t in tests:
            if t not in OUTCOME_TESTS:
                raise ValueError(f"`tests`: unknown test {t!r}; choose from {list(OUTCOME_TESTS)}")
    needed = list(dict.fromkeys(m for t in tests for m in OUTCOME_TESTS[t]))
    alpha = level_iv(alpha, "alpha")
    margin = margin_iv(margin, "margin")
    if margin_ratio is not None:
        margin_ratio = margin_iv(margin_ratio, "margin_ratio")
    power = level_iv(power, "power")
    alternatives = _alternatives_iv(alternative, needed)
    # validated once here (or counted, for Counts and other engines' frames); the bootstrap takes the prepared
    # rows and the two groups found
    prep = two_group_rows(data, group, y_true, y_pred, y_score, groups, needed, favorable)
    rows, boot = _outcome_rows(
        prep,
        tests,
        alternatives,
        favorable=favorable,
        alpha=alpha,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        rng=rng,
        warn=warn,
        margin=margin,
        margin_ratio=margin_ratio,
        power=power,
    )
    return OutcomeTestsResult(table=pd.DataFrame(rows), bootstrap=boot, alpha=alpha)


def _outcome_rows(
    prep: TwoGroupRows,
    tests: Sequence[str],
    alternatives: Mapping[str, str],
    *,
    rng: int | np.random.Generator | None,
    **options,
) -> tuple[list[dict], BootstrapDisparityResult]:
    """:func:`outcome_tests` on validated data (:func:`fairstats._rows.two_group_rows` with the metrics of
    ``tests``, and the options checked): the table's rows and the bootstrap (:func:`outcome_rows_many` of one
    comparison)."""
    return outcome_rows_many([prep], [rng], tests, alternatives, **options)[0]


def outcome_rows_many(
    preps: Sequence[TwoGroupRows],
    rngs: Sequence[int | np.random.Generator | None],
    tests: Sequence[str],
    alternatives: Mapping[str, str],
    *,
    favorable: int,
    alpha: float,
    n_resamples: int,
    confidence_level: float,
    method: str,
    warn: bool,
    margin: float,
    margin_ratio: float | None,
    power: float,
    progress: Callable[[], object] | None = None,
) -> list[tuple[list[dict], BootstrapDisparityResult]]:
    """:func:`outcome_tests`' rows and bootstrap for many comparisons (``preps[i]`` the validated two-group
    rows of comparison ``i``, bootstrapped with ``rngs[i]``): each comparison's bootstrap on its own stream,
    then the score tests, the TOSTs, their intervals and the minimum detectable differences of all the
    comparisons' rates at once (:func:`fairstats._proportions.score_tests`,
    :func:`fairstats.equivalence.rate_equivalence_many`); the mean-score tests one comparison at a time. The
    audit prepares a grouping once and passes each group against the reference (the two groups' masks
    swapped in). ``progress`` is called after each comparison's bootstrap."""
    boots, per_metric = [], []
    for prep, rng in zip(preps, rngs, strict=True):
        boot = bootstrap_disparity_rows(
            prep,
            favorable=favorable,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            rng=rng,
            warn=warn,
        )
        boots.append(boot)
        per_metric.append(_comparison_metrics(prep, boot, alternatives, confidence_level))
        if progress is not None:
            progress()
    _rate_tests(per_metric)
    _rate_intervals(per_metric, 1 - confidence_level)
    for metrics in per_metric:
        for m, entry in metrics.items():
            if entry["reason"]:
                warnings.warn(UndefinedTestWarning(f"{m}: test undefined, {entry['reason']}"), stacklevel=3)
    equivalences = _equivalences(per_metric, tests, alpha=alpha, margin=margin, margin_ratio=margin_ratio,
                                 power=power)  # fmt: skip
    out = []
    for i, boot in enumerate(boots):
        at = {m: j for j, m in enumerate(boot.metrics)}
        shown = {c: getattr(boot, c).to_numpy() for c in _SHOWN}
        rows = []
        for t in tests:
            level = alpha / len(OUTCOME_TESTS[t])
            for m in OUTCOME_TESTS[t]:
                e = per_metric[i][m]
                eq = equivalences[i, t, m]
                values_m = {c: float(values[at[m]]) for c, values in shown.items()}
                if e["interval"] is not None:  # the score interval where the rate has one (issue 39)
                    values_m["ci_low"], values_m["ci_high"] = e["interval"]
                rows.append(
                    {
                        "grouping": " x ".join(boot.group_columns),
                        "test": t,
                        "metric": m,
                        "group_a": boot.group_a,
                        "group_b": boot.group_b,
                        **values_m,
                        "ci_method": "score" if e["interval"] is not None else str(boot.ci_method[m]),
                        "count_a": e["count_a"],
                        "nobs_a": e["nobs_a"],
                        "count_b": e["count_b"],
                        "nobs_b": e["nobs_b"],
                        "statistic": e["statistic"],
                        "pvalue": e["pvalue"],
                        "alternative": e["alternative"],
                        "alpha": level,
                        "significant": bool(e["pvalue"] < level),
                        "method": e["how"],
                        "reason": e["reason"],
                        "equivalence_pvalue": eq["pvalue"],
                        "equivalence_ci_low": eq["ci_low"],
                        "equivalence_ci_high": eq["ci_high"],
                        "margin_low": eq["margin_low"],
                        "margin_high": eq["margin_high"],
                        "equivalence_scale": eq["scale"],
                        "equivalence_method": eq["method"] + (f" (undefined: {eq['reason']})" if eq["reason"]
                                                              else ""),  # fmt: skip
                        "mde": eq["mde"],
                    }
                )
        out.append((rows, boot))
    return out


def _comparison_metrics(
    prep: TwoGroupRows, boot: BootstrapDisparityResult, alternatives, confidence_level: float
) -> dict[str, dict]:
    """One comparison's counts per metric, the rates' score intervals and small-group rules
    (:mod:`fairstats._small`) and, for the mean scores, Welch's t (the rates' score tests are
    :func:`_rate_tests`', for all comparisons at once)."""
    counts = {}
    for name, mask in (("a", prep.mask_a), ("b", prep.mask_b)):
        weight = None if prep.weight is None else prep.weight[mask]
        counts[name] = np.bincount(prep.cell[mask], weights=weight, minlength=4).astype(float)
    out = {}
    for m in prep.metrics:
        alt = alternatives[m]
        if m in SCORE_METRICS:
            true_fav = np.isin(prep.cell, (0, 2))
            cls = true_fav if m == "mean_score_pos" else ~true_fav
            xa, xb = prep.score[prep.mask_a & cls], prep.score[prep.mask_b & cls]
            if prep.weight is None:
                wa, wb = np.ones(xa.size), np.ones(xb.size)
            else:
                wa, wb = prep.weight[prep.mask_a & cls], prep.weight[prep.mask_b & cls]
            count_a, nobs_a, count_b, nobs_b = (
                float(wa @ xa),
                float(wa.sum()),
                float(wb @ xb),
                float(wb.sum()),
            )
            reason = ""
            small = [(n_, g_) for n_, g_ in ((nobs_a, prep.group_a), (nobs_b, prep.group_b))
                     if n_ < MIN_NORMAL]  # fmt: skip
            if small:
                reason = size_reason(small[0][0], "scores of this class", small[0][1],
                                     "Welch's t does not hold its size")  # fmt: skip
            if nobs_a >= 2 and nobs_b >= 2 and not small:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    if prep.weight is None:
                        res = stats.ttest_ind(xa, xb, equal_var=False, alternative=alt)
                    else:  # the same Welch t from the counted scores' means and variances
                        res = stats.ttest_ind_from_stats(
                            *_weighted_moments(xa, wa), *_weighted_moments(xb, wb),
                            equal_var=False, alternative=alt,
                        )
                stat, p = float(res.statistic), float(res.pvalue)
                if not np.isfinite(p):
                    reason = "Welch t undefined (zero spread in both groups)"
            else:
                stat = p = float("nan")
            how = "Welch two-sample t on scores (scipy.stats.ttest_ind, equal_var=False)"
            interval = None
            # the equivalence test takes one value per person (counted scores expanded by their counts)
            equivalence = (xa, xb)
            if prep.weight is not None:
                equivalence = (np.repeat(xa, wa.astype(np.int64)), np.repeat(xb, wb.astype(np.int64)))
        else:
            num, den = (np.asarray(c, dtype=float) for c in _TESTED_PROPORTION[m])
            count_a, nobs_a = float(counts["a"] @ num), float(counts["a"] @ den)
            count_b, nobs_b = float(counts["b"] @ num), float(counts["b"] @ den)
            stat = p = float("nan")
            reason = ""
            interval = None
            what = "FN / (FN + FP)" if m == "fn_fp_ratio" else m.upper() if m != "accuracy" else "accuracy"
            if nobs_a > 0 and nobs_b > 0:  # the score test needs expected cases and non-cases in each group
                pooled = (count_a + count_b) / (nobs_a + nobs_b)
                expected = [(min(n_ * pooled, n_ * (1 - pooled)), n_, g_)
                            for n_, g_ in ((nobs_a, prep.group_a), (nobs_b, prep.group_b))]  # fmt: skip
                least, n_least, g_least = min(expected, key=lambda e: e[0])
                if least < MIN_EXPECTED:
                    side = "cases" if n_least * pooled <= n_least * (1 - pooled) else "non-cases"
                    reason = expected_reason(n_least, least, f"{what} {side}", g_least)
                if m != "fn_fp_ratio":  # the FN/FP ratio's difference is not the tested proportion's
                    interval = _PENDING  # :func:`_rate_intervals`, for all comparisons at once
            else:
                empty = boot.group_a if not nobs_a > 0 else boot.group_b
                reason = f"no case in the denominator of group {empty!r}"
            equivalence = (count_a, nobs_a, count_b, nobs_b)
            how = f"score test of two proportions, {what} (Miettinen-Nurminen; statsmodels)"
            if interval is not None:
                how += "; Miettinen-Nurminen score interval"
        out[m] = {"count_a": count_a, "nobs_a": nobs_a, "count_b": count_b, "nobs_b": nobs_b,
                  "statistic": stat, "pvalue": p, "alternative": alt, "how": how, "reason": reason,
                  "data": equivalence, "interval": interval}  # fmt: skip
    return out


#: A rate's score interval still to be found (:func:`_rate_intervals`).
_PENDING = ("pending",)


def _rate_intervals(per_metric: list[dict[str, dict]], alpha: float) -> None:
    """The Miettinen-Nurminen score interval of every comparison's rates that has one, at once
    (:func:`fairstats._proportions.diff_score_intervals`: the floats of ``diff_score_interval``, one
    comparison at a time); entries updated in place."""
    entries = [e for metrics in per_metric for e in metrics.values() if e["interval"] is _PENDING]
    if not entries:
        return
    four = [[e[k] for e in entries] for k in ("count_a", "nobs_a", "count_b", "nobs_b")]
    low, high = diff_score_intervals(*four, alpha)
    for e, lo, hi in zip(entries, low.tolist(), high.tolist(), strict=True):
        e["interval"] = (lo, hi)


def _rate_tests(per_metric: list[dict[str, dict]]) -> None:
    """The score test of every comparison's rates with both denominators positive, at once per alternative
    (:func:`fairstats._proportions.score_tests`); entries updated in place."""
    todo = [(e, _SM_ALTERNATIVE[e["alternative"]]) for metrics in per_metric for m, e in metrics.items()
            if m not in SCORE_METRICS and not e["reason"]]  # fmt: skip
    for alt in dict.fromkeys(a for _, a in todo):
        entries = [e for e, a in todo if a == alt]
        four = [[e[k] for e in entries] for k in ("count_a", "nobs_a", "count_b", "nobs_b")]
        try:
            stat, p = score_tests(*four, alt)
            errors = [""] * len(entries)
        except STATSMODELS_ERRORS:  # which comparisons statsmodels refuses: one at a time
            answers = [score_test_or_reason(*(f[j] for f in four), alt) for j in range(len(entries))]
            stat, p, errors = zip(*answers, strict=True)
        for e, s_, p_, error in zip(entries, stat, p, errors, strict=True):
            e["statistic"], e["pvalue"] = float(s_), float(p_)
            if not np.isfinite(p_):
                e["reason"] = error or "score test p-value is not finite (the rate is 0 or 1 in both groups)"


def _equivalences(per_metric, tests, *, alpha, margin, margin_ratio, power) -> dict[tuple, dict]:
    """The equivalence test of every (comparison, test, metric) at its level: the rates' at once per
    alternative (:func:`fairstats.equivalence.rate_equivalence_many`), the mean scores' one at a time."""
    out: dict[tuple, dict] = {}
    rates: dict[tuple, list] = {}
    for i, metrics in enumerate(per_metric):
        for t in tests:
            level = alpha / len(OUTCOME_TESTS[t])
            for m in OUTCOME_TESTS[t]:
                e = metrics[m]
                if m in SCORE_METRICS:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # an undefined test is reported by its row
                        eq = welch_equivalence(*e["data"], margin=margin, alpha=level, power=power,
                                               alternative=e["alternative"])  # fmt: skip
                    out[i, t, m] = {c: getattr(eq, c) for c in (*RATE_EQUIVALENCE_COLUMNS, "scale")}
                else:
                    rates.setdefault(e["alternative"], []).append(((i, t, m), level, e["data"]))
    for alt, items in rates.items():
        four = [[data[k] for _, _, data in items] for k in range(4)]
        columns = rate_equivalence_many(*four, margin=margin, margin_ratio=margin_ratio,
                                        alpha=[level for _, level, _ in items], power=power,
                                        alternative=alt)  # fmt: skip
        scale = "difference" if margin_ratio is None else "ratio"
        for j, (key, _, _) in enumerate(items):
            entry = {c: columns[c][j] for c in RATE_EQUIVALENCE_COLUMNS}
            entry.update({c: float(v) for c, v in entry.items() if c not in ("method", "reason")})
            out[key] = {**entry, "scale": scale}
    return out
