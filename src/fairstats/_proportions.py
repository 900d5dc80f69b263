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
    "diff_score_intervals",
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
        # both sides' roots in one call (each element's iterations are its own): lower bounds between -1
        # and the estimate, upper ones between the estimate and 1
        lo_idx, hi_idx = np.flatnonzero(solve_low), np.flatnonzero(solve_high)
        idx = np.concatenate([lo_idx, hi_idx])
        unsolved = []
        if idx.size:
            a = np.concatenate([np.full(lo_idx.size, inner_low), param[hi_idx]])
            b = np.concatenate([param[lo_idx], np.full(hi_idx.size, inner_high)])
            root = find_root(gap, (a, b), args=tuple(v[idx] for v in (c1, n1, c2, n2, level)))
            x = np.where(root.success, root.x, np.nan)
            low[lo_idx], high[hi_idx] = x[: lo_idx.size], x[lo_idx.size :]
            unsolved = idx[~root.success].tolist()
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


# --------------------------------------------------------------------------------------------------------
# diff_score_interval for many comparisons at once: the same floats
# --------------------------------------------------------------------------------------------------------


def _brentq_many(f, xa, xb, fa, fb, xtol: float, rtol: float, maxiter: int):
    """scipy's ``brentq`` (``scipy/optimize/Zeros/brentq.c``) run on many problems at once, step for step:
    the same operations in the same order on each problem, so the same root to the bit. ``f(x, idx)``
    evaluates problems ``idx`` at ``x``; ``fa``, ``fb`` are ``f`` at the brackets ``xa``, ``xb``. Returns
    the roots and a mask of the problems where scipy's would have raised (a NaN value of ``f``, ``f(xa)``
    and ``f(xb)`` of one sign, no convergence in ``maxiter`` steps), whose roots are NaN."""
    m = xa.size
    root = np.full(m, np.nan)
    failed = np.isnan(fa) | np.isnan(fb) | (fa * fb > 0)
    at_a = ~failed & (fa == 0)
    at_b = ~failed & ~at_a & (fb == 0)
    root[at_a], root[at_b] = xa[at_a], xb[at_b]
    ids = np.flatnonzero(~(failed | at_a | at_b))
    # the state of the problems still running (scipy's names): previous, current and contrapoint
    xp, xc, fp, fc = xa[ids], xb[ids], fa[ids], fb[ids]
    xk, fk, sp, sc = np.zeros(ids.size), np.zeros(ids.size), np.zeros(ids.size), np.zeros(ids.size)
    with np.errstate(all="ignore"):
        for _ in range(maxiter):
            if not ids.size:
                break
            flip = (fp != 0) & (fc != 0) & (np.signbit(fp) != np.signbit(fc))
            if flip.any():
                xk, fk = np.where(flip, xp, xk), np.where(flip, fp, fk)
                step = xc - xp
                sp, sc = np.where(flip, step, sp), np.where(flip, step, sc)
            swap = np.abs(fk) < np.abs(fc)
            if swap.any():
                xp, xc, xk = np.where(swap, xc, xp), np.where(swap, xk, xc), np.where(swap, xc, xk)
                fp, fc, fk = np.where(swap, fc, fp), np.where(swap, fk, fc), np.where(swap, fc, fk)
            delta = (xtol + rtol * np.abs(xc)) / 2
            sbis = (xk - xc) / 2
            converged = (fc == 0) | (np.abs(sbis) < delta)
            if converged.any():
                root[ids[converged]] = xc[converged]
                live = ~converged
                ids, xp, xc, xk, fp, fc, fk, sp, sc, delta, sbis = (
                    v[live] for v in (ids, xp, xc, xk, fp, fc, fk, sp, sc, delta, sbis))  # fmt: skip
                if not ids.size:
                    break
            dpre, dblk = (fp - fc) / (xp - xc), (fk - fc) / (xk - xc)
            stry = np.where(
                xp == xk,
                -fc * (xc - xp) / (fc - fp),  # interpolate
                -fc * (fk * dblk - fp * dpre) / (dblk * dpre * (fk - fp)),  # extrapolate
            )
            a, b = np.abs(sp), 3 * np.abs(sbis) - delta
            good = (a > delta) & (np.abs(fc) < np.abs(fp)) & (2 * np.abs(stry) < np.where(a < b, a, b))
            sp, sc = np.where(good, sc, sbis), np.where(good, stry, sbis)
            xp, fp = xc, fc
            xc = np.where(np.abs(sc) > delta, xc + sc, xc + np.where(sbis > 0, delta, -delta))
            fc = f(xc, ids)
            bad = np.isnan(fc)
            if bad.any():  # scipy's brentq raises: this problem is left to the caller
                failed[ids[bad]] = True
                ids, xp, xc, xk, fp, fc, fk, sp, sc = (
                    v[~bad] for v in (ids, xp, xc, xk, fp, fc, fk, sp, sc))  # fmt: skip
    failed[ids] = True  # not converged in maxiter steps
    root[failed] = np.nan
    return root, failed


def _slopes(q, c1, f1, c2, f2, d):
    """``_restricted_rate``'s ``slope`` for arrays: its four terms added in its order, each only where its
    count is not 0 (adding 0 leaves a sum as it is)."""
    with np.errstate(all="ignore"):
        out = np.zeros(q.shape)
        out = out + np.where(c1 != 0, c1 / (q + d), 0.0)
        out = out - np.where(f1 != 0, f1 / (1.0 - q - d), 0.0)
        out = out + np.where(c2 != 0, c2 / q, 0.0)
        return out - np.where(f2 != 0, f2 / (1.0 - q), 0.0)


def _restricted_rates(c1, n1, c2, n2, d):
    """:func:`_restricted_rate` for arrays (the same floats); NaN where its ``brentq`` would raise."""
    f1, f2 = n1 - c1, n2 - c2
    low, high = np.maximum(0.0, -d), np.minimum(1.0, 1.0 - d)
    tiny = 1e-13 * np.maximum(high - low, 1e-300)
    a, b = low + tiny, high - tiny
    out = np.where(high - low <= 2 * tiny, low, np.nan)
    todo = np.isnan(out)
    s_a = _slopes(a, c1, f1, c2, f2, d)
    at_low = todo & ~(s_a > 0)
    out[at_low] = low[at_low]
    todo &= ~at_low
    s_b = _slopes(b, c1, f1, c2, f2, d)
    at_high = todo & ~(s_b < 0)
    out[at_high] = high[at_high]
    todo &= ~at_high
    idx = np.flatnonzero(todo)
    if idx.size:
        args = tuple(v[idx] for v in (c1, f1, c2, f2, d))

        def slope(x, sub):
            return _slopes(x, *(v[sub] for v in args))

        root, _ = _brentq_many(slope, a[idx], b[idx], s_a[idx], s_b[idx], xtol=1e-15, rtol=1e-15, maxiter=500)
        out[idx] = root
    return out


def _diff_scores(c1, n1, c2, n2, d):
    """:func:`diff_score` for arrays (the same floats); NaN where it would raise."""
    numerator = c1 / n1 - c2 / n2 - d
    out = np.zeros(numerator.shape)
    idx = np.flatnonzero(numerator != 0)
    if not idx.size:
        return out
    c1, n1, c2, n2, d, num = (v[idx] for v in (c1, n1, c2, n2, d, numerator))
    with np.errstate(all="ignore"):
        q = _restricted_rates(c1, n1, c2, n2, d)
        p = np.minimum(np.maximum(q + d, 0.0), 1.0)
        n = n1 + n2
        variance = (p * (1 - p) / n1 + q * (1 - q) / n2) * n / (n - 1)
        out[idx] = np.where(variance <= 0, np.copysign(np.inf, num), num / np.sqrt(variance))
    return out


def diff_score_intervals(count1, nobs1, count2, nobs2, alpha) -> tuple[np.ndarray, np.ndarray]:
    """:func:`diff_score_interval` for arrays of comparisons (``alpha`` one level or one per comparison):
    the same two floats for each, from the same root finding run on all of them at once (:func:`_brentq_many`,
    scipy's ``brentq`` step for step, around the restricted estimates of :func:`_restricted_rates`,
    ``_restricted_rate``'s); a comparison where a step would fail is handed to :func:`diff_score_interval`
    (which raises as it would have)."""
    from scipy import stats

    c1, n1, c2, n2, level = (np.ravel(v) for v in _floats(count1, nobs1, count2, nobs2, alpha))
    k = c1.size
    zs = {a: float(stats.norm.isf(a / 2)) for a in set(level.tolist())}
    z = np.array([zs[a] for a in level.tolist()])
    estimate = c1 / n1 - c2 / n2
    # both bounds of every comparison as one set of problems: the lower (end -1) then the upper (end 1)
    end = np.repeat([-1.0, 1.0], k)
    target = np.concatenate([z, -z])
    four = [np.concatenate([v, v]) for v in (c1, n1, c2, n2)]
    est = np.concatenate([estimate, estimate])
    inner = np.repeat([math.nextafter(-1.0, 0.0), math.nextafter(1.0, 0.0)], k)
    at_inner = _diff_scores(*four, inner) - target
    out = np.where((est == end) | (at_inner * -end <= 0), end, np.nan)
    failed = np.isnan(out)
    idx = np.flatnonzero(failed & ~np.isnan(at_inner) & (est != inner))
    failed[idx] = False
    if idx.size:
        args = tuple(v[idx] for v in (*four, target))

        def gap(x, sub):
            return _diff_scores(*(v[sub] for v in args[:4]), x) - args[4][sub]

        lower = end[idx] < 0  # brentq(gap, inner, estimate); the upper: brentq(gap, estimate, inner)
        at_estimate = -target[idx]  # the score statistic is 0 at the estimate
        xa, xb = np.where(lower, inner[idx], est[idx]), np.where(lower, est[idx], inner[idx])
        fa, fb = np.where(lower, at_inner[idx], at_estimate), np.where(lower, at_estimate, at_inner[idx])
        root, bad = _brentq_many(gap, xa, xb, fa, fb, xtol=1e-14, rtol=1e-13, maxiter=100)
        out[idx] = root
        failed[idx[bad]] = True
    bounds = [out[:k], out[k:]]
    failed = failed[:k] | failed[k:]
    low, high = bounds
    for i in np.flatnonzero(failed):
        low[i], high[i] = diff_score_interval(float(c1[i]), float(n1[i]), float(c2[i]), float(n2[i]),
                                              float(level[i]))  # fmt: skip
    shape = np.shape(_floats(count1, nobs1, count2, nobs2, alpha)[0])
    return low.reshape(shape), high.reshape(shape)
