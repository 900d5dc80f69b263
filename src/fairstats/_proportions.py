"""Two independent proportions: score tests (Miettinen–Nurminen), their intervals, the TOST, z and Fisher.

The one home of the two-proportion tests that the outcome tests (:mod:`fairstats.outcomes`), the
decision-level rates (:mod:`fairstats.levels`), the equivalence tests (:mod:`fairstats.equivalence`) and the
impact ratios (:mod:`fairstats.impact`) share. The statistics are statsmodels' (``test_proportions_2indep``,
``confint_proportions_2indep``, ``tost_proportions_2indep``, all with ``method="score"``;
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
    """statsmodels' ``tost_proportions_2indep(method="score")`` on arrays of comparisons: ``(p against low,
    p against high, p)``."""
    from statsmodels.stats import proportion as smp

    four = _floats(count_a, nobs_a, count_b, nobs_b)
    res = smp.tost_proportions_2indep(*four, low, high, method="score", compare=compare)
    return tuple(np.asarray(v, dtype=float) for v in (res.results_larger.pvalue, res.results_smaller.pvalue,
                                                       res.pvalue))  # fmt: skip


def _score_diff_pvalue(count1, nobs1, count2, nobs2, value):
    r"""Two-sided p-value of the Miettinen–Nurminen score test of :math:`p_1 - p_2 = \delta` for arrays of
    comparisons and of hypothesised differences :math:`\delta` (``value``).

    statsmodels' ``score_test_proportions_2indep(compare="diff", correction=True)`` takes one :math:`\delta`
    for all comparisons; the interval inversion needs one per comparison, so its formula is repeated here
    operation for operation: the restricted maximum-likelihood proportions in closed form (the root of a
    cubic, Miettinen & Nurminen 1985, Appendix; Farrington & Manning 1990), the pooled proportion at
    :math:`\delta = 0`, the variance times N / (N - 1), :math:`z = (\hat p_1 - \hat p_2 - \delta) / se`
    (tested equal to statsmodels').
    """
    from scipy import special

    nobs, count = nobs1 + nobs2, count1 + count2
    p1, p0 = count1 / nobs1, count2 / nobs2
    diff = value
    tmp3 = nobs
    tmp2 = (nobs1 + 2 * nobs2) * diff - nobs - count
    tmp1 = (count2 * diff - nobs - 2 * count2) * diff + count
    tmp0 = count2 * diff * (1 - diff)
    q = (tmp2 / (3 * tmp3)) ** 3 - tmp1 * tmp2 / (6 * tmp3**2) + tmp0 / (2 * tmp3)
    p = np.sign(q) * np.sqrt((tmp2 / (3 * tmp3)) ** 2 - tmp1 / (3 * tmp3))
    a = (np.pi + np.arccos(q / p**3)) / 3
    prop0 = 2 * p * np.cos(a) - tmp2 / (3 * tmp3)
    pooled = count / nobs
    prop0 = np.where(diff == 0, pooled, prop0)
    prop1 = np.where(diff == 0, pooled, prop0 + diff)
    var = prop1 * (1 - prop1) / nobs1 + prop0 * (1 - prop0) / nobs2
    var = var * (nobs / (nobs - 1))
    z = (p1 - p0 - diff) / np.sqrt(var)
    return special.ndtr(-np.abs(z)) * 2


def score_confints(count_a, nobs_a, count_b, nobs_b, alpha) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`score_confint` of the difference for arrays of comparisons (every denominator positive;
    ``alpha`` one level or one per comparison): ``(low, high, error)``, ``error`` the message statsmodels
    raises where it finds no interval (the bounds are then NaN), "" elsewhere.

    statsmodels (``_score_confint_inversion``) brackets the upper bound between the estimate and the Wald
    interval's upper end widened by a half (at most 0.99999), the lower bound between the Wald lower end
    widened by a quarter and the estimate, and solves each with scipy's ``brentq``, which refuses a bracket
    whose ends give a NaN p-value or no change of sign. The same brackets and refusals here (the upper bound
    first, as statsmodels); the bounds of every other comparison are found at once by
    ``scipy.optimize.elementwise.find_root`` on :func:`_score_diff_pvalue` minus ``alpha``, to the last bits
    (statsmodels' ``brentq`` stops within ``xtol=2e-12``: tested equal to it to 1e-11); a root the elementwise
    solver does not reach goes to statsmodels itself, one comparison at a time.
    """
    from scipy import special
    from scipy.optimize.elementwise import find_root

    arrays = _floats(count_a, nobs_a, count_b, nobs_b, alpha)
    shape = arrays[0].shape
    c1, n1, c2, n2, level = (v.ravel() for v in arrays)
    k = c1.size
    low, high = np.full(k, np.nan), np.full(k, np.nan)
    error = np.full(k, "", dtype=object)

    def gap(v, *four_and_level):
        return _score_diff_pvalue(*four_and_level[:4], v) - four_and_level[4]

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        p1, p2 = c1 / n1, c2 / n2
        param = p1 - p2
        d_wald = -special.ndtri(level / 2) * np.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
        wald_low, wald_high = param - d_wald, param + d_wald
        ub = np.minimum(wald_high + np.abs(wald_high) * 0.5, 0.99999)
        lb = wald_low - np.abs(wald_low) * 0.25
        ends = {}
        for name, v in (("param", param), ("ub", ub), ("lb", lb)):
            ends[name] = gap(v, c1, n1, c2, n2, level)
        # brentq's refusals, in its order: f(a) then f(b) NaN, then no change of sign; upper bound first
        for a, b in (("param", "ub"), ("lb", "param")):
            x_of = {"param": param, "ub": ub, "lb": lb}
            for end in (a, b):
                bad = (error == "") & np.isnan(ends[end])
                error[bad] = [f"The function value at x={float(x)} is NaN; solver cannot continue."
                              for x in x_of[end][bad]]  # fmt: skip
            bad = (error == "") & (ends[a] * ends[b] > 0)
            error[bad] = "f(a) and f(b) must have different signs"
        solve = np.flatnonzero(error == "")
        unsolved = np.array([], dtype=np.intp)
        if solve.size:
            four = [np.concatenate([v[solve], v[solve]]) for v in (c1, n1, c2, n2, level)]
            root = find_root(gap, (np.concatenate([lb[solve], param[solve]]),
                                   np.concatenate([param[solve], ub[solve]])), args=tuple(four))  # fmt: skip
            ok = root.success[: solve.size] & root.success[solve.size :]
            low[solve] = np.where(ok, root.x[: solve.size], np.nan)
            high[solve] = np.where(ok, root.x[solve.size :], np.nan)
            unsolved = solve[~ok]
    for i in unsolved:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                low[i], high[i] = score_confint(c1[i], n1[i], c2[i], n2[i], "diff", level[i])
        except STATSMODELS_ERRORS as err:
            error[i] = str(err)
    return low.reshape(shape), high.reshape(shape), error.reshape(shape)


def score_confint(count_a, nobs_a, count_b, nobs_b, compare, alpha) -> tuple[float, float]:
    """statsmodels' ``confint_proportions_2indep(method="score")`` as two numbers."""
    from statsmodels.stats import proportion as smp

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
