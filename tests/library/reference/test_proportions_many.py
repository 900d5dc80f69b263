"""Two proportions for many comparisons at once (fairstats._proportions.score_tests, score_tosts,
score_confints; fairstats.equivalence.rate_equivalence_many) against statsmodels one comparison at a time.

Reference: statsmodels 0.15 ``test_proportions_2indep``, ``tost_proportions_2indep`` and
``confint_proportions_2indep(method="score")`` called per comparison, as the library called them before
issue 37. Comparisons drawn from small and large groups, with counts of 0 and of the whole group, where
statsmodels' interval refuses more than half of them: the same ones must be refused with the same message.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from statsmodels.stats import proportion as smp

from fairstats._proportions import _score_diff_pvalue, score_confints, score_tests, score_tosts
from fairstats.equivalence import RATE_EQUIVALENCE_COLUMNS, rate_equivalence, rate_equivalence_many


def _comparisons(k: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    n1 = rng.integers(1, 60, k).astype(float)
    n2 = rng.integers(1, 3000, k).astype(float)
    c1 = np.minimum(np.floor(rng.random(k) * (n1 + 1)), n1)
    c2 = np.minimum(np.floor(rng.random(k) * (n2 + 1)), n2)
    return c1, n1, c2, n2


def test_score_statistic_for_an_array_of_differences_equals_statsmodels():
    c1, n1, c2, n2 = _comparisons(400, 1)
    value = np.random.default_rng(2).uniform(-0.9, 0.9, 400)
    value[::7] = 0.0  # the pooled branch
    ours = _score_diff_pvalue(c1, n1, c2, n2, value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = np.array([smp.test_proportions_2indep(c1[i], n1[i], c2[i], n2[i], value=value[i],
                                                    compare="diff", method="score").pvalue
                        for i in range(400)])  # fmt: skip
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    # a last-bit change of z moves a p-value of 1e-35 by 1e-13 (relative): the tail amplifies it
    np.testing.assert_allclose(ours[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-11, atol=1e-300)


@pytest.mark.parametrize("alternative", ["two-sided", "larger", "smaller"])
def test_score_tests_and_tosts_equal_one_call_per_comparison(alternative):
    c1, n1, c2, n2 = _comparisons(200, 3)
    stat, p = score_tests(c1, n1, c2, n2, alternative)
    low, high, tost = score_tosts(c1, n1, c2, n2, -0.1, 0.1, "diff")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(200):
            one = smp.test_proportions_2indep(c1[i], n1[i], c2[i], n2[i], method="score",
                                              alternative=alternative)  # fmt: skip
            if np.isfinite(one.pvalue):
                assert (stat[i], p[i]) == pytest.approx((one.statistic, one.pvalue), rel=1e-9, abs=1e-300)
            else:
                assert np.isnan(stat[i]) and np.isnan(p[i])
            ref = smp.tost_proportions_2indep(c1[i], n1[i], c2[i], n2[i], -0.1, 0.1, method="score")
            for ours, theirs in ((low[i], ref.results_larger.pvalue), (high[i], ref.results_smaller.pvalue),
                                 (tost[i], ref.pvalue)):  # fmt: skip
                # far in the tail (p = 1e-240) the last bits of z move p by 1e-11 (relative)
                assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-300, nan_ok=True)


@pytest.mark.parametrize("seed", [5, 6])
def test_score_intervals_equal_statsmodels_and_refuse_the_same_comparisons(seed):
    # statsmodels' brentq stops within xtol = 2e-12: the bounds agree to that; where statsmodels raises (a
    # NaN p-value at a bracket's end, no change of sign), the same message and no bound
    c1, n1, c2, n2 = _comparisons(600, seed)
    low, high, error = score_confints(c1, n1, c2, n2, 0.1)
    refused = 0
    for i in range(600):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = smp.confint_proportions_2indep(c1[i], n1[i], c2[i], n2[i], method="score",
                                                     compare="diff", alpha=0.1)  # fmt: skip
        except ValueError as err:
            refused += 1
            assert error[i] == str(err) and np.isnan(low[i]) and np.isnan(high[i])
            continue
        assert error[i] == ""
        assert (low[i], high[i]) == pytest.approx(ref, abs=2e-12)
        # the bounds are the roots of the two-sided p-value at alpha, to the last bits
        at_bounds = _score_diff_pvalue(c1[i], n1[i], c2[i], n2[i], np.array([low[i], high[i]]))
        np.testing.assert_allclose(at_bounds, 0.1, atol=1e-12)
    assert 100 < refused < 500  # both kinds of comparison are here


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
