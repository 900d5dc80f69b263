"""Two proportions for many comparisons at once (fairstats._proportions.score_tests, score_tosts,
score_confints; fairstats.equivalence.rate_equivalence_many) against one comparison at a time.

References: statsmodels 0.15 ``test_proportions_2indep(method="score")`` per comparison for the test of no
difference; for a non-zero difference (the TOST's margins, the interval's bounds), the Miettinen-Nurminen
statistic at the restricted maximum-likelihood estimate found by root finding (``diff_score``; it gives R's
``PropCIs::diffscoreci``, tests/library/test_outcomes.py), because statsmodels' closed form has a wrong
coefficient there (statsmodels issue #10269: shown below, where it moves the statistic by more than 0.5).
Comparisons drawn from small and large groups, with counts of 0 and of the whole group.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import special
from statsmodels.stats import proportion as smp

from fairstats._proportions import (
    _score_diff_pvalue,
    _score_diff_statistic,
    diff_score,
    diff_score_interval,
    diff_score_intervals,
    score_confints,
    score_tests,
    score_tosts,
)
from fairstats.equivalence import RATE_EQUIVALENCE_COLUMNS, rate_equivalence, rate_equivalence_many


def _comparisons(k: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    n1 = rng.integers(1, 60, k).astype(float)
    n2 = rng.integers(1, 3000, k).astype(float)
    c1 = np.minimum(np.floor(rng.random(k) * (n1 + 1)), n1)
    c2 = np.minimum(np.floor(rng.random(k) * (n2 + 1)), n2)
    return c1, n1, c2, n2


def test_score_statistic_for_an_array_of_differences_is_at_the_restricted_maximum():
    c1, n1, c2, n2 = _comparisons(400, 1)
    value = np.random.default_rng(2).uniform(-0.9, 0.9, 400)
    value[::7] = 0.0  # the pooled branch
    with np.errstate(all="ignore"):
        ours = _score_diff_statistic(c1, n1, c2, n2, value)
    ref = np.array([diff_score(c1[i], n1[i], c2[i], n2[i], value[i]) for i in range(400)])
    finite = np.isfinite(ref)
    np.testing.assert_array_equal(np.isfinite(ours), finite)
    np.testing.assert_allclose(ours[finite], ref[finite], rtol=1e-9, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        at_zero = [smp.test_proportions_2indep(c1[i], n1[i], c2[i], n2[i], value=0.0, compare="diff",
                                               method="score").statistic
                   for i in range(0, 400, 7)]  # fmt: skip
    np.testing.assert_allclose(ours[::7], np.array(at_zero, dtype=float), rtol=1e-11, equal_nan=True)


def test_statsmodels_closed_form_is_off_away_from_zero_and_ours_is_not():
    """statsmodels issue #10269: 26 of 30 against 145 of 374 at a difference of 0.5647 (a bound of the 90 %
    interval): the score statistic of the restricted maximum is -1.644 (found by scipy's bounded
    minimisation of the negative log-likelihood here, independently of both); statsmodels gives -1.058."""
    from scipy import optimize

    c1, n1, c2, n2, d = 26.0, 30.0, 145.0, 374.0, 0.5647

    def nll(q):
        p = q + d
        return -(c1 * np.log(p) + (n1 - c1) * np.log(1 - p) + c2 * np.log(q) + (n2 - c2) * np.log(1 - q))

    q = optimize.minimize_scalar(nll, bounds=(1e-12, 1 - d - 1e-12), method="bounded",
                                 options={"xatol": 1e-13}).x  # fmt: skip
    n = n1 + n2
    brute = (c1 / n1 - c2 / n2 - d) / np.sqrt(((q + d) * (1 - q - d) / n1 + q * (1 - q) / n2) * n / (n - 1))
    assert float(_score_diff_statistic(c1, n1, c2, n2, d)) == pytest.approx(brute, rel=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = smp.test_proportions_2indep(c1, n1, c2, n2, value=d, compare="diff", method="score")
    theirs = theirs.statistic
    assert abs(theirs - brute) > 0.5


@pytest.mark.parametrize("alternative", ["two-sided", "larger", "smaller"])
def test_score_tests_and_tosts_equal_one_call_per_comparison(alternative):
    c1, n1, c2, n2 = _comparisons(200, 3)
    stat, p = score_tests(c1, n1, c2, n2, alternative)
    low, high, tost = score_tosts(c1, n1, c2, n2, -0.1, 0.1, "diff")
    ratio = score_tosts(c1, n1, c2, n2, 0.8, 1.25, "ratio")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(200):
            one = smp.test_proportions_2indep(c1[i], n1[i], c2[i], n2[i], method="score",
                                              alternative=alternative)  # fmt: skip
            if np.isfinite(one.pvalue):
                assert (stat[i], p[i]) == pytest.approx((one.statistic, one.pvalue), rel=1e-9, abs=1e-300)
            else:
                assert np.isnan(stat[i]) and np.isnan(p[i])
            # the difference's TOST: one-sided tests at the margins, the larger p-value
            ref_low = special.ndtr(-diff_score(c1[i], n1[i], c2[i], n2[i], -0.1))
            ref_high = special.ndtr(diff_score(c1[i], n1[i], c2[i], n2[i], 0.1))
            for ours, theirs in ((low[i], ref_low), (high[i], ref_high), (tost[i], max(ref_low, ref_high))):
                assert ours == pytest.approx(theirs, rel=1e-8, abs=1e-300, nan_ok=True)
            ref = smp.tost_proportions_2indep(c1[i], n1[i], c2[i], n2[i], 0.8, 1.25, method="score",
                                              compare="ratio")  # fmt: skip
            for ours, theirs in ((ratio[0][i], ref.results_larger.pvalue),
                                 (ratio[1][i], ref.results_smaller.pvalue), (ratio[2][i], ref.pvalue)):
                assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-300, nan_ok=True)


@pytest.mark.parametrize("seed", [5, 6])
def test_score_intervals_equal_one_comparison_at_a_time_and_always_exist(seed):
    # statsmodels' own inversion refused more than half of these (a NaN p-value at an end of its Wald
    # bracket, no change of sign); the score interval exists within [-1, 1] for every one
    c1, n1, c2, n2 = _comparisons(600, seed)
    low, high = score_confints(c1, n1, c2, n2, 0.1)
    assert np.isfinite(low).all() and np.isfinite(high).all()
    for i in range(600):
        assert (low[i], high[i]) == pytest.approx(diff_score_interval(c1[i], n1[i], c2[i], n2[i], 0.1),
                                                  abs=1e-10)  # fmt: skip
        inside = [b for b in (low[i], high[i]) if -1 < b < 1]
        if inside:  # a bound inside (-1, 1) is a root of the two-sided p-value at alpha
            np.testing.assert_allclose(_score_diff_pvalue(c1[i], n1[i], c2[i], n2[i], np.array(inside)), 0.1,
                                       atol=1e-9)


def test_rate_equivalence_many_equals_one_comparison_at_a_time():
    c1, n1, c2, n2 = _comparisons(150, 8)
    n1[:5] = 0  # an empty denominator
    c1[:5] = 0
    for margin_ratio in (None, 0.8):
        many = rate_equivalence_many(c1, n1, c2, n2, margin=0.1, margin_ratio=margin_ratio, alpha=0.025,
                                     power=0.8, alternative="greater")  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(150):
                one = rate_equivalence(c1[i], n1[i], c2[i], n2[i], margin=0.1, margin_ratio=margin_ratio,
                                       alpha=0.025, alternative="greater")  # fmt: skip
                for name in RATE_EQUIVALENCE_COLUMNS:
                    assert many[name][i] == pytest.approx(getattr(one, name), nan_ok=True, rel=0, abs=0) \
                        if isinstance(many[name][i], float) else many[name][i] == getattr(one, name)


def test_score_intervals_at_once_are_the_one_at_a_time_floats():
    """diff_score_intervals (the audit's outcome rows, issue 37): every bound the same float as
    diff_score_interval's, to the bit, on drawn comparisons with counts of 0 and of the whole group, one
    level or one per comparison, and an array's shape kept."""
    c1, n1, c2, n2 = _comparisons(600, 7)
    c1[::11], c2[::13], c1[::17], c2[::19] = 0.0, n2[::13], n1[::17], 0.0
    n1[::5] = n2[::5]  # groups of one size, large ones too
    c1[::5] = np.minimum(c1[::5] * 37, n1[::5])
    alpha = np.random.default_rng(8).choice([0.05, 0.1, 0.01, 0.05 / 7], 600)
    low, high = diff_score_intervals(c1, n1, c2, n2, alpha)
    diff_score_interval.cache_clear()
    ref = np.array([diff_score_interval(float(c1[i]), float(n1[i]), float(c2[i]), float(n2[i]),
                                        float(alpha[i])) for i in range(600)])  # fmt: skip
    np.testing.assert_array_equal(low, ref[:, 0])
    np.testing.assert_array_equal(high, ref[:, 1])
    low, high = diff_score_intervals(c1[:6].reshape(2, 3), n1[:6].reshape(2, 3), c2[:6].reshape(2, 3),
                                     n2[:6].reshape(2, 3), 0.05)  # fmt: skip
    assert low.shape == high.shape == (2, 3)
    assert (float(low[1, 2]), float(high[1, 2])) == diff_score_interval(c1[5], n1[5], c2[5], n2[5], 0.05)


def test_score_confints_of_many_are_each_comparisons_own():
    """score_confints finds both bounds of every comparison in one root finding (issue 37): each bound is
    the float the comparison gets alone, to the bit (each element's iterations are its own)."""
    c1, n1, c2, n2 = _comparisons(120, 11)
    c1[::9], c2[::10] = 0.0, n2[::10]
    alpha = np.random.default_rng(12).choice([0.1, 0.2], 120)
    low, high = score_confints(c1, n1, c2, n2, alpha)
    alone = np.array([[float(v[0]) for v in score_confints(c1[i:i + 1], n1[i:i + 1], c2[i:i + 1], n2[i:i + 1],
                                                           alpha[i:i + 1])] for i in range(120)])  # fmt: skip
    np.testing.assert_array_equal(low, alone[:, 0])
    np.testing.assert_array_equal(high, alone[:, 1])
