"""Two independent proportions: score tests (Miettinen–Nurminen), their intervals, the TOST, z and Fisher.

The one home of the two-proportion tests that the outcome tests (:mod:`fairstats.outcomes`), the
decision-level rates (:mod:`fairstats.levels`), the equivalence tests (:mod:`fairstats.equivalence`) and the
impact ratios (:mod:`fairstats.impact`) share. The statistics are statsmodels' (``test_proportions_2indep``,
``confint_proportions_2indep``, ``tost_proportions_2indep``, all with ``method="score"``, where they are
right: statsmodels' restricted estimate of a non-zero difference is not the likelihood's maximum (its
issue #10269), so the difference's TOST and interval use the score statistic of :func:`_score_diff_statistic`;
``score_test_proportions_2indep(compare="ratio")``, inverted by Brent's method for the ratio's interval;
``proportions_ztest``) and scipy's (``fisher_exact``); this module only turns their answers into plain floats,
remembers the answers of the repeated ones (:mod:`fairstats._memo`: many small groups share the same counts)
and, in :func:`score_test_or_reason`, says why a test is undefined instead of raising.

An audit asks the same questions of many comparisons, so the score test, the TOST and the score interval of
the difference also come for arrays of comparisons at once (:func:`score_tests`, :func:`score_tosts`,
:func:`score_confints`): statsmodels' own functions on arrays where they take them; the interval, which
statsmodels finds by one ``brentq`` per bound and comparison, by scipy's elementwise root finder on the same
score statistic (:func:`_score_diff_pvalue`, statsmodels' formula for an array of hypothesised differences),
from statsmodels' own starting bracket, so that the same comparisons get an interval or none.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from fairstats._memo import remembered

__all__ = [
    "STATSMODELS_ERRORS",
    "diff_score",
    "diff_score_interval",
    "fisher_test",
    "pooled_z_test",
    "ratio_score",
    "ratio_score_interval",
    "score_confint",
    "score_confints",
    "score_test",
    "score_test_or_reason",
    "score_tests",
    "score_tosts",
]

#: What statsmodels raises when the score test's root finding or its variance fails (tiny groups, 0 or 1).
STATSMODELS_ERRORS = (ValueError, ZeroDivisionError, FloatingPointError)


@remembered
def score_test(count_a, nobs_a, count_b, nobs_b, alternative) -> tuple[float, float]:
    """Statistic and p-value of statsmodels' ``test_proportions_2indep(method="score", compare="diff")``;
    remembered, as many small groups share the same counts. ``alternative`` is statsmodels' word
    (``"two-sided"``, ``"larger"``, ``"smaller"``)."""
    from statsmodels.stats import proportion as smp

    res = smp.test_proportions_2indep(
        count_a, nobs_a, count_b, nobs_b, method="score", compare="diff", alternative=alternative
    )
    return float(res.statistic), float(res.pvalue)


def score_test_or_reason(
    count_a, nobs_a, count_b, nobs_b, alternative="two-sided"
) -> tuple[float, float, str]:
    """:func:`score_test` with statsmodels' warnings silenced: ``(statistic, pvalue, error)``.

    Both numbers are NaN when the p-value is not finite or statsmodels failed; ``error`` is then
    ``"statsmodels test_proportions_2indep failed: ..."`` (one line), and ``""`` otherwise. The caller has
    checked that both denominators are positive and words the non-finite case for its own table.
    """
    nan = float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            stat, p = score_test(count_a, nobs_a, count_b, nobs_b, alternative)
        except STATSMODELS_ERRORS as err:
            return nan, nan, f"statsmodels test_proportions_2indep failed: {err}".replace("\n", " ")
    if not np.isfinite(p):
        return nan, nan, ""
    return stat, p, ""


def _floats(*values) -> list[np.ndarray]:
    """The arguments as float arrays of one broadcast shape."""
    return list(np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values)))


def score_tests(count_a, nobs_a, count_b, nobs_b, alternative="two-sided") -> tuple[np.ndarray, np.ndarray]:
    """:func:`score_test_or_reason` for arrays of comparisons (every denominator positive): statistics and
    p-values, NaN where the p-value is not finite. statsmodels' ``test_proportions_2indep(method="score")``
    on the arrays, its warnings silenced; what it raises is raised (the caller asks again one comparison at
    a time)."""
    from statsmodels.stats import proportion as smp

    four = _floats(count_a, nobs_a, count_b, nobs_b)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = smp.test_proportions_2indep(*four, method="score", compare="diff", alternative=alternative)
    stat, p = np.asarray(res.statistic, dtype=float), np.asarray(res.pvalue, dtype=float)
    finite = np.isfinite(p)
    return np.where(finite, stat, np.nan), np.where(finite, p, np.nan)


def score_tosts(count_a, nobs_a, count_b, nobs_b, low, high, compare) -> tuple[np.ndarray, ...]:
    """The TOST of two one-sided score tests on arrays of comparisons: ``(p against low, p against high,
    p)``, as statsmodels' ``tost_proportions_2indep(method="score")`` defines them (the larger one-sided
    p-value). The ratio's are statsmodels'; the difference's are :func:`_score_diff_statistic` at ``low`` and
    ``high``: statsmodels' restricted estimate of a non-zero difference is not the maximum (its cubic's linear
    coefficient has ``count0`` for ``nobs0``, statsmodels issue #10269), which moved the TOST's p-values."""
    from scipy import special
    from statsmodels.stats import proportion as smp

    four = _floats(count_a, nobs_a, count_b, nobs_b)
    if compare == "ratio":
        res = smp.tost_proportions_2indep(*four, low, high, method="score", compare=compare)
        pvalues = (res.results_larger.pvalue, res.results_smaller.pvalue, res.pvalue)
        return tuple(np.asarray(v, dtype=float) for v in pvalues)
    with np.errstate(all="ignore"):
        p_low = special.ndtr(-_score_diff_statistic(*four, low))  # H0: p_a - p_b <= low
        p_high = special.ndtr(_score_diff_statistic(*four, high))  # H0: p_a - p_b >= high
    return p_low, p_high, np.maximum(p_low, p_high)


def _score_diff_statistic(count1, nobs1, count2, nobs2, value):
    r"""Miettinen–Nurminen score statistic of :math:`p_1 - p_2 = \delta` for arrays of comparisons and of
    hypothesised differences :math:`\delta` (``value``): :math:`z = (\hat p_1 - \hat p_2 - \delta) / se`,
    the variance at the restricted maximum-likelihood proportions times N / (N - 1).

    The restricted proportion :math:`\tilde p_2` is the root of the likelihood equation's cubic in closed
    form (Miettinen & Nurminen 1985, Appendix; Farrington & Manning 1990, Eq. 4): :math:`L_3 = N`,
    :math:`L_2 = (n_1 + 2 n_2)\delta - N - C`, :math:`L_1 = (n_2 \delta - N - 2 x_2)\delta + C`,
    :math:`L_0 = x_2 \delta (1 - \delta)`, solved by its trigonometric form. statsmodels
    (``score_test_proportions_2indep``, 0.14) writes :math:`x_2` for :math:`n_2` in :math:`L_1` (issue
    #10269): its statistic is not the score statistic away from :math:`\delta = 0`. Here the coefficient is
    the paper's, the arccos argument and the root are kept in their ranges against rounding, and the
    statistic is tested equal to the one of a restricted estimate found by root finding (:func:`diff_score`)
    to 1e-10; at :math:`\delta = 0` the pooled proportion, statsmodels' statistic.
    """
    nobs, count = nobs1 + nobs2, count1 + count2
    p1, p0 = count1 / nobs1, count2 / nobs2
    diff = np.asarray(value, dtype=float)
    tmp3 = nobs
    tmp2 = (nobs1 + 2 * nobs2) * diff - nobs - count
    tmp1 = (nobs2 * diff - nobs - 2 * count2) * diff + count
    tmp0 = count2 * diff * (1 - diff)
    q = (tmp2 / (3 * tmp3)) ** 3 - tmp1 * tmp2 / (6 * tmp3**2) + tmp0 / (2 * tmp3)
    p = np.sign(q) * np.sqrt((tmp2 / (3 * tmp3)) ** 2 - tmp1 / (3 * tmp3))
    a = (np.pi + np.arccos(np.clip(q / p**3, -1.0, 1.0))) / 3
    prop0 = 2 * p * np.cos(a) - tmp2 / (3 * tmp3)
    prop0 = np.where(diff == 0, count / nobs, prop0)
    prop0 = np.clip(prop0, np.maximum(0.0, -diff), np.minimum(1.0, 1.0 - diff))
    prop1 = prop0 + diff
    var = (prop1 * (1 - prop1) / nobs1 + prop0 * (1 - prop0) / nobs2) * (nobs / (nobs - 1))
    return (p1 - p0 - diff) / np.sqrt(var)


def _score_diff_pvalue(count1, nobs1, count2, nobs2, value):
    r"""Two-sided p-value of :func:`_score_diff_statistic`."""
    from scipy import special

    return special.ndtr(-np.abs(_score_diff_statistic(count1, nobs1, count2, nobs2, value))) * 2


def score_confints(count_a, nobs_a, count_b, nobs_b, alpha) -> tuple[np.ndarray, np.ndarray]:
    """:func:`diff_score_interval` for arrays of comparisons (every denominator positive; ``alpha`` one
    level or one per comparison): ``(low, high)``, which always exist within [-1, 1].

    Each bound is the root of the two-sided p-value of :func:`_score_diff_statistic` minus ``alpha`` between
    the estimate and -1 or 1 (the end itself where the p-value there is still above ``alpha``), found for
    every comparison at once by ``scipy.optimize.elementwise.find_root``; a root it does not reach, by
    :func:`diff_score_interval`. statsmodels' ``confint_proportions_2indep(method="score")`` inverts its own
    statistic (issue #10269, see :func:`_score_diff_statistic`) from a Wald bracket that can leave [-1, 1]:
    it refused more than half of a test's comparisons and was off by up to 0.06 on others.
    """
    from scipy.optimize.elementwise import find_root

    arrays = _floats(count_a, nobs_a, count_b, nobs_b, alpha)
    shape = arrays[0].shape
    c1, n1, c2, n2, level = (v.ravel() for v in arrays)
    k = c1.size

    def gap(v, *four_and_level):
        return _score_diff_pvalue(*four_and_level[:4], v) - four_and_level[4]

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        param = c1 / n1 - c2 / n2
        inner_low, inner_high = np.nextafter(-1.0, 0.0), np.nextafter(1.0, 0.0)
        low, high = np.full(k, -1.0), np.full(k, 1.0)
        # an end is the bound where the test at it still does not reject (or the estimate is the end)
        solve_low = (param > -1) & (gap(np.full(k, inner_low), c1, n1, c2, n2, level) < 0)
        solve_high = (param < 1) & (gap(np.full(k, inner_high), c1, n1, c2, n2, level) < 0)
        low[param <= -1], high[param >= 1] = param[param <= -1], param[param >= 1]
        unsolved = []
        sides = ((solve_low, (inner_low, None), low), (solve_high, (None, inner_high), high))
        for where, bracket, out in sides:
            idx = np.flatnonzero(where)
            if not idx.size:
                continue
            a = np.full(idx.size, bracket[0]) if bracket[0] is not None else param[idx]
            b = np.full(idx.size, bracket[1]) if bracket[1] is not None else param[idx]
            root = find_root(gap, (a, b), args=tuple(v[idx] for v in (c1, n1, c2, n2, level)))
            out[idx] = np.where(root.success, root.x, np.nan)
            unsolved.extend(idx[~root.success])
    for i in sorted(set(unsolved)):
        low[i], high[i] = diff_score_interval(c1[i], n1[i], c2[i], n2[i], float(level[i]))
    return low.reshape(shape), high.reshape(shape)


def score_confint(count_a, nobs_a, count_b, nobs_b, compare, alpha) -> tuple[float, float]:
    """The score interval as two numbers: of the difference :func:`diff_score_interval` (statsmodels' is
    off away from 0, issue #10269); of the ratio statsmodels' ``confint_proportions_2indep(method="score",
    compare="ratio")``."""
    from statsmodels.stats import proportion as smp

    if compare == "diff":
        return diff_score_interval(float(count_a), float(nobs_a), float(count_b), float(nobs_b), float(alpha))
    low, high = smp.confint_proportions_2indep(
        count_a, nobs_a, count_b, nobs_b, method="score", compare=compare, alpha=alpha
    )
    return float(low), float(high)


def ratio_score(
    count1: float, nobs1: float, count2: float, nobs2: float, value: float, correction: bool = True
) -> float:
    """Miettinen–Nurminen score statistic of ``p1 / p2 = value`` (statsmodels), 0 at the estimate itself;
    ``correction=False``: without the N / (N - 1) factor, Koopman's statistic."""
    from statsmodels.stats.proportion import score_test_proportions_2indep

    if value * count2 * nobs1 == count1 * nobs2:  # the estimate: the numerator p1 - value p2 is 0
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        statistic, _ = score_test_proportions_2indep(
            count1, nobs1, count2, nobs2, value=value, compare="ratio", correction=correction,
            return_results=False,
        )
    return float(statistic)


@remembered
def ratio_score_interval(
    count1: float, nobs1: float, count2: float, nobs2: float, alpha: float, correction: bool = True
):
    r"""Score interval of :math:`p_1 / p_2` at level ``1 - alpha``: the values not rejected by the two-sided
    Miettinen–Nurminen score test (Koopman's with ``correction=False``), found by Brent's method
    (``count2 > 0``)."""
    from scipy import optimize, stats

    z = float(stats.norm.isf(alpha / 2))
    estimate = (count1 / nobs1) / (count2 / nobs2)

    def lower_gap(v):
        return ratio_score(count1, nobs1, count2, nobs2, v, correction) - z

    def upper_gap(v):
        return ratio_score(count1, nobs1, count2, nobs2, v, correction) + z

    if count1 == 0:
        low = 0.0
    else:
        a, b = estimate / 2, estimate  # lower_gap(estimate) = -z < 0
        while lower_gap(a) <= 0:
            a, b = a / 2, a
        low = optimize.brentq(lower_gap, a, b, xtol=1e-14, rtol=1e-13, maxiter=500)
    a, b = estimate, max(2 * estimate, 1 / nobs1)  # upper_gap(estimate) = z > 0
    while upper_gap(b) >= 0:
        a, b = b, 2 * b
    high = optimize.brentq(upper_gap, a, b, xtol=1e-14, rtol=1e-13, maxiter=500)
    return float(low), float(high)


def pooled_z_test(count1, nobs1, count2, nobs2):
    """Pooled two-proportion z test (statsmodels ``proportions_ztest``); NaN if the pooled rate is 0 or 1."""
    from statsmodels.stats.proportion import proportions_ztest

    pooled = (count1 + count2) / (nobs1 + nobs2)
    if pooled in (0.0, 1.0):
        return float("nan"), float("nan")
    statistic, pvalue = proportions_ztest(np.array([count1, count2]), np.array([nobs1, nobs2]))
    return float(statistic), float(pvalue)


def fisher_test(count1, nobs1, count2, nobs2) -> float:
    """Two-sided p-value of Fisher's exact test of the 2 x 2 table (scipy ``fisher_exact``)."""
    from scipy import stats

    table = [[int(count1), int(nobs1 - count1)], [int(count2), int(nobs2 - count2)]]
    return float(stats.fisher_exact(table, alternative="two-sided").pvalue)


def _restricted_rate(count1, nobs1, count2, nobs2, delta: float) -> float:
    """The second rate's maximum-likelihood estimate under p1 - p2 = ``delta``: the root of the decreasing
    derivative of the concave log-likelihood in p2 on its feasible range, or an end of it."""
    from scipy import optimize

    fail1, fail2 = nobs1 - count1, nobs2 - count2
    low, high = max(0.0, -delta), min(1.0, 1.0 - delta)

    def slope(q: float) -> float:
        q, out = np.float64(q), np.float64(0.0)  # x / 0 is inf here (the end of the feasible range)
        if count1:
            out += count1 / (q + delta)
        if fail1:
            out -= fail1 / (1.0 - q - delta)
        if count2:
            out += count2 / q
        if fail2:
            out -= fail2 / (1.0 - q)
        return float(out)

    tiny = 1e-13 * max(high - low, 1e-300)
    if high - low <= 2 * tiny:
        return low
    with np.errstate(divide="ignore", invalid="ignore"):
        if not slope(low + tiny) > 0:
            return low
        if not slope(high - tiny) < 0:
            return high
        return float(optimize.brentq(slope, low + tiny, high - tiny, xtol=1e-15, rtol=1e-15, maxiter=500))


def diff_score(count1, nobs1, count2, nobs2, delta: float) -> float:
    r"""Miettinen–Nurminen score statistic of :math:`p_1 - p_2 = \delta` (0 at the estimate):
    :math:`z = (\hat p_1 - \hat p_2 - \delta) / \sqrt{(\tilde p_1 (1 - \tilde p_1)/n_1 + \tilde p_2
    (1 - \tilde p_2)/n_2)\, N / (N - 1)}` with the restricted estimates :math:`\tilde p` (Miettinen & Nurminen
    1985, Eq. 8; statsmodels' ``score_test_proportions_2indep(compare="diff", correction=True)``, whose
    closed-form restricted estimate returns NaN in parts of the range, e.g. 2 of 20 against 300 of 1,000 at
    its own estimate -0.2 and below, so the estimate is found by root finding here)."""
    numerator = count1 / nobs1 - count2 / nobs2 - delta
    if numerator == 0:
        return 0.0
    q = _restricted_rate(count1, nobs1, count2, nobs2, delta)
    p = min(max(q + delta, 0.0), 1.0)
    n = nobs1 + nobs2
    variance = (p * (1 - p) / nobs1 + q * (1 - q) / nobs2) * n / (n - 1)
    if variance <= 0:
        return math.copysign(math.inf, numerator)
    return float(numerator / math.sqrt(variance))


@remembered
def diff_score_interval(count1, nobs1, count2, nobs2, alpha: float) -> tuple[float, float]:
    r"""Miettinen–Nurminen score interval of :math:`p_1 - p_2` at level ``1 - alpha``: the differences not
    rejected by the two-sided score test (:func:`diff_score`), found by Brent's method within [-1, 1]. It
    keeps its coverage where the bootstrap degenerates (0 to 5 cases in a group; Newcombe 1998)."""
    from scipy import optimize, stats

    z = float(stats.norm.isf(alpha / 2))
    estimate = count1 / nobs1 - count2 / nobs2
    ends = []
    for end, target in ((-1.0, z), (1.0, -z)):
        def gap(d, target=target):
            return diff_score(count1, nobs1, count2, nobs2, d) - target

        inner = math.nextafter(end, 0.0)
        if estimate == end or gap(inner) * (1 if end < 0 else -1) <= 0:
            ends.append(end)
        else:
            ends.append(float(optimize.brentq(gap, *sorted((estimate, inner)), xtol=1e-14, rtol=1e-13)))
    return ends[0], ends[1]
