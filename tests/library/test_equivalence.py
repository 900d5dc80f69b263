"""Equivalence tests, minimum detectable disparity and the three-way verdict against statsmodels, scipy and
closed forms on small cases (issue 12)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats import proportion as smp
from statsmodels.stats import weightstats as smw
from statsmodels.stats.power import GofChisquarePower, NormalIndPower, TTestPower

from fairstats._proportions import diff_score, diff_score_interval
from fairstats.equivalence import (
    EquivalenceUndefinedWarning,
    cramers_v_equivalence,
    fold_equivalence,
    margin_iv,
    rate_equivalence,
    t_equivalence,
    welch_equivalence,
)
from fairstats.folds import fold_disparity
from fairstats.multiplicity import REAL_WITHIN_MARGIN, three_way_verdicts
from fairstats.outcomes import UndefinedTestWarning, outcome_tests
from fairstats.power import mde_cramers_v, mde_rate_difference, mde_t, mde_z


def test_rate_tost_is_two_one_sided_score_tests_at_the_restricted_maximum():
    # the one-sided Miettinen-Nurminen score tests at -0.1 and 0.1, each at the restricted maximum-likelihood
    # estimate found by root finding (diff_score); statsmodels' tost_proportions_2indep computes the same
    # tests from a closed form with a wrong coefficient away from 0 (statsmodels issue #10269)
    r = rate_equivalence(40, 100, 45, 110, margin=0.1)
    p_low = stats.norm.sf(diff_score(40, 100, 45, 110, -0.1))
    p_high = stats.norm.cdf(diff_score(40, 100, 45, 110, 0.1))
    assert (r.pvalue_low, r.pvalue_high) == pytest.approx((p_low, p_high), rel=1e-9)
    assert r.pvalue == pytest.approx(max(r.pvalue_low, r.pvalue_high), rel=1e-12)
    assert r.estimate == pytest.approx(40 / 100 - 45 / 110)
    assert (r.ci_low, r.ci_high) == pytest.approx(diff_score_interval(40, 100, 45, 110, 0.10), abs=1e-10)
    assert r.scale == "difference" and not r.equivalent  # n = 100: the 90 % interval is wider than ±0.1


def test_rate_tost_ratio_four_fifths():
    # statsmodels: tost_proportions_2indep(400, 1000, 420, 1000, 0.8, 1.25, method="score", compare="ratio")
    r = rate_equivalence(400, 1000, 420, 1000, margin_ratio=0.8)
    ref = smp.tost_proportions_2indep(400, 1000, 420, 1000, 0.8, 1.25, method="score", compare="ratio")
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert (r.margin_low, r.margin_high) == (0.8, 1.25)
    assert r.estimate == pytest.approx(400 / 420) and r.equivalent


def test_rate_tost_empty_denominator_is_undefined_with_reason():
    with pytest.warns(EquivalenceUndefinedWarning, match="denominator of group a"):
        r = rate_equivalence(0, 0, 5, 10)
    assert r.undefined and np.isnan(r.pvalue) and not r.equivalent


def test_t_tost_closed_form_equals_ttost_paired():
    # With se = s_d / sqrt(J) (no correction) the TOST is statsmodels' ttost_paired.
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.5, 0.05, 12), rng.normal(0.49, 0.05, 12)
    d = a - b
    se = d.std(ddof=1) / np.sqrt(d.size)
    r = t_equivalence(d.mean(), se, d.size - 1, margin=0.05)
    ref_p = smw.ttost_paired(a, b, -0.05, 0.05)[0]
    assert r.pvalue == pytest.approx(ref_p, rel=1e-10)


def test_fold_tost_uses_corrected_variance():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.5, 0.02, 10), rng.normal(0.5, 0.02, 10)
    d = a - b
    se = np.sqrt((1 / 10 + 1 / 9) * d.var(ddof=1))
    r = fold_equivalence(a, b, margin=0.03)
    p_low = stats.t.sf((d.mean() + 0.03) / se, 9)
    p_high = stats.t.cdf((d.mean() - 0.03) / se, 9)
    assert r.pvalue == pytest.approx(max(p_low, p_high), rel=1e-12)
    assert r.ci_high - r.ci_low == pytest.approx(2 * stats.t.ppf(0.95, 9) * se)


def test_welch_tost_equals_ttost_ind_unequal():
    rng = np.random.default_rng(5)
    a, b = rng.uniform(0, 1, 30), rng.uniform(0.1, 0.9, 45)
    r = welch_equivalence(a, b, margin=0.15)
    ref_p = smw.ttost_ind(a, b, -0.15, 0.15, usevar="unequal")[0]
    assert r.pvalue == pytest.approx(ref_p, rel=1e-10)


def test_wellek_test_closed_form_and_upper_bound():
    table = np.array([[480, 520], [500, 500]])
    r = cramers_v_equivalence(table, margin=0.1)
    chi2 = stats.chi2_contingency(table, correction=False).statistic
    # Wellek (2010), Sec. 9.2: p = P(chi2_1(n * eps^2) <= X^2), n = 2000, q - 1 = 1.
    assert r.pvalue == pytest.approx(stats.ncx2.cdf(chi2, 1, 2000 * 0.01), rel=1e-12)
    assert r.estimate == pytest.approx(np.sqrt(chi2 / 2000))
    lam = (r.ci_high**2) * 2000
    assert stats.ncx2.cdf(chi2, 1, lam) == pytest.approx(0.05, abs=1e-8)
    assert r.equivalent == (r.ci_high < 0.1)


def test_mde_rate_closed_form():
    # Equal groups: h = (z_0.975 + z_0.8) sqrt(2 / n); p = sin^2(asin(sqrt(0.5)) + h/2) - 0.5 = sin(h) / 2.
    h = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * np.sqrt(2 / 1000)
    assert mde_rate_difference(1000, 1000, 0.5) == pytest.approx(np.sin(h) / 2, rel=1e-3)
    # statsmodels' own number, converted back: power at the mde is 0.8.
    mde = mde_rate_difference(300, 900, 0.2)
    p_a = 0.2 + mde
    h_a = 2 * np.arcsin(np.sqrt(p_a)) - 2 * np.arcsin(np.sqrt(0.2))
    down = 0.2 - (np.sin(np.arcsin(np.sqrt(0.2)) - h_a / 2) ** 2)
    assert mde >= down  # the larger of the two directions is reported
    assert NormalIndPower().power(h_a, nobs1=300, alpha=0.05, ratio=3) == pytest.approx(0.8, abs=1e-4)
    assert np.isnan(mde_rate_difference(0, 10, 0.5))


def test_mde_for_many_comparisons_at_once_against_statsmodels_per_comparison():
    # The reference: statsmodels' NormalIndPower().solve_power, one brentq per comparison (brentq_expanding,
    # xtol 1e-5 on h). The vectorised closed form (h = x / sqrt(n), one non-centrality x) agrees to that
    # tolerance, gives each comparison what the scalar call gives, and its h has power 0.8 to 1e-12 (exact
    # where statsmodels' stops at its tolerance).
    rng = np.random.default_rng(37)
    n_a, n_b = rng.integers(1, 5000, 60).astype(float), rng.integers(1, 5000, 60).astype(float)
    rate = rng.random(60)
    for alternative, sm in (("two-sided", "two-sided"), ("greater", "larger"), ("less", "larger")):
        many = mde_rate_difference(n_a, n_b, rate, alpha=0.025, alternative=alternative)
        assert isinstance(many, np.ndarray) and many.shape == (60,)
        for i in range(60):
            one = mde_rate_difference(n_a[i], n_b[i], rate[i], alpha=0.025, alternative=alternative)
            assert many[i] == one
            h_sm = float(np.squeeze(NormalIndPower().solve_power(
                effect_size=None, nobs1=n_a[i], alpha=0.025, power=0.8, ratio=n_b[i] / n_a[i],
                alternative=sm)))
            phi = np.arcsin(np.sqrt(rate[i]))
            up = np.sin(np.clip(phi + h_sm / 2, 0, np.pi / 2)) ** 2 - rate[i]
            down = rate[i] - np.sin(np.clip(phi - h_sm / 2, 0, np.pi / 2)) ** 2
            assert many[i] == pytest.approx(max(up, down), abs=1e-5)
    for i in range(3):
        h = 2.801581787013579 / np.sqrt(1 / (1 / n_a[i] + 1 / n_b[i]))  # two-sided 0.05, 80 %
        power = NormalIndPower().power(h, nobs1=n_a[i], alpha=0.05, ratio=n_b[i] / n_a[i])
        assert power == pytest.approx(0.8, abs=1e-12)
    # undefined comparisons stay NaN among defined ones; the mde of an estimate's se, too
    out = mde_rate_difference([0, 10, 10], [10, 0, 10], [0.5, 0.5, np.nan])
    assert np.isnan(out).all()
    np.testing.assert_array_equal(mde_z([0.01, 0.02]), [mde_z(0.01), mde_z(0.02)])
    assert np.isnan(mde_z([0.0, np.nan, -1.0])).all()


def test_mde_t_and_v_have_power_0_8():  # abs=1e-4: solve_power's root-finding tolerance
    # mde_t: non-centrality delta / se on df; TTestPower at nobs = df + 1 has non-centrality e * sqrt(nobs).
    delta = mde_t(0.01, 249)
    power = TTestPower().power(delta / 0.01 / np.sqrt(250), nobs=250, alpha=0.05)
    assert power == pytest.approx(0.8, abs=1e-4)
    nc = delta / 0.01
    crit = stats.t.ppf(0.975, 249)
    assert stats.nct.sf(crit, 249, nc) + stats.nct.cdf(-crit, 249, nc) == pytest.approx(0.8, abs=1e-4)
    v = mde_cramers_v(1000, 3, 2)
    power = GofChisquarePower().power(v, nobs=1000, n_bins=4, alpha=0.05)
    assert power == pytest.approx(0.8, abs=1e-12)  # the non-centrality solved to the last bits
    for df, n in ((1, 50), (15, 4020), (30, 4020)):  # statsmodels' solve per size, to its tolerance
        w = GofChisquarePower().solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8, n_bins=df + 1)
        assert mde_cramers_v(n, df, 2) == pytest.approx(w, abs=1e-5)
    # Cohen (1988) Table 7.4.6: lambda = 10.90 for df = 3, alpha = 0.05, power 0.80.
    assert v**2 * 1000 == pytest.approx(10.90, abs=0.01)


def test_mde_t_when_statsmodels_answers_with_an_array():
    # At nobs = 81.05 (df of a Welch t in an audit with --y-score) statsmodels' brentq fails and its fsolve
    # fallback returns a (1,) array; mde_t used to stop with "only 0-dimensional arrays can be converted".
    df = 80.05118840195648
    raw = TTestPower().solve_power(effect_size=None, nobs=df + 1, alpha=0.05, power=0.8)
    assert np.ndim(raw) == 1  # the statsmodels behaviour this test is about
    delta = mde_t(0.01, df)
    assert isinstance(delta, float)
    power = TTestPower().power(delta / 0.01 / np.sqrt(df + 1), nobs=df + 1, alpha=0.05)
    assert power == pytest.approx(0.8, abs=1e-4)


@pytest.mark.parametrize("bad", [-0.1, 0, 1, 1.5, float("nan"), "0.1", True])
def test_bad_margins_are_refused(bad):
    with pytest.raises(ValueError, match="`margin`"):
        margin_iv(bad)


def test_three_way_verdicts_and_real_within_margin():
    t = pd.DataFrame(
        {
            "pvalue": [1e-9, 1e-9, 0.6, 0.6, np.nan, 0.7],
            "equivalence_pvalue": [0.6, 1e-9, 1e-9, 0.6, 0.01, np.nan],
            "reason": ["", "", "", "", "statsmodels failed", ""],
        }
    )
    out = three_way_verdicts(t, reason="reason")
    assert out["verdict"].tolist() == [
        "disparity", "equivalent", "equivalent", "inconclusive", "undefined", "inconclusive",
    ]  # fmt: skip
    assert out["verdict_note"].iloc[1] == REAL_WITHIN_MARGIN
    assert "statsmodels failed" in out["verdict_note"].iloc[4]
    assert out["verdict_note"].iloc[5] == "no equivalence test for this comparison"


def test_three_way_holm_adjusts_equivalence_pvalues():
    # Two TOST p-values of 0.03: each below 0.05, but Holm's smallest adjusted is 0.06 -> not equivalent.
    t = pd.DataFrame({"pvalue": [0.5, 0.5], "equivalence_pvalue": [0.03, 0.03]})
    out = three_way_verdicts(t)
    assert out["pvalue_holm_equivalence"].tolist() == pytest.approx([0.06, 0.06])
    assert out["verdict"].tolist() == ["inconclusive", "inconclusive"]


def test_outcome_tests_statsmodels_error_is_undefined_not_nonsignificant(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(smp, "test_proportions_2indep", broken)
    df = pd.DataFrame({"g": ["a"] * 40 + ["b"] * 40, "y": [1, 0] * 40, "p": [1] * 30 + [0] * 50})
    with pytest.warns(UndefinedTestWarning, match="boom"):
        res = outcome_tests(df, group="g", y_true="y", y_pred="p", tests=["group_fairness"],
                            n_resamples=99, rng=0, method="percentile")
    row = res.table.iloc[0]
    assert np.isnan(row["pvalue"]) and "boom" in row["reason"] and not row["significant"]
    out = three_way_verdicts(res.table, reason="reason")
    assert out["verdict"].iloc[0] == "undefined"


def test_outcome_tests_and_fold_disparity_carry_equivalence_columns():
    rng = np.random.default_rng(0)
    n = 4000
    df = pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n),
                       "f": np.arange(n) % 10})
    res = outcome_tests(df, group="g", y_true="y", y_pred="p", tests=["group_fairness"], n_resamples=99,
                        rng=0, method="percentile", margin=0.1)
    row = res.table.iloc[0]
    ref = rate_equivalence(row["count_a"], row["nobs_a"], row["count_b"], row["nobs_b"], margin=0.1)
    assert row["equivalence_pvalue"] == pytest.approx(ref.pvalue) and row["mde"] == pytest.approx(ref.mde)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fold = fold_disparity(df, group="g", y_true="y", y_pred="p", fold="f", metrics=["ppr"], margin=0.1)
    assert {"equivalence_pvalue", "mde", "margin_high"} <= set(fold.table.columns)
    assert 0 <= fold.table["equivalence_pvalue"].iloc[0] <= 1


def test_where_statsmodels_score_test_is_nan_the_tost_is_defined():
    # 1/51 vs 12/51 with margin 0.2: statsmodels' score test of the lower bound returned NaN (the arccos of
    # its constrained MLE got an argument just above 1 by rounding, statsmodels 0.14 proportion.py; found by
    # the property test); the restricted estimate kept in range gives the test, equal to the root-found one
    one = rate_equivalence(1, 51, 12, 51, margin=0.2)
    assert not one.undefined and np.isfinite(one.pvalue)
    assert one.pvalue_low == pytest.approx(stats.norm.sf(diff_score(1, 51, 12, 51, -0.2)), rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize(("p_a", "p_b", "n_a", "n_b"), [(0.4, 0.3, 200, 200), (0.2, 0.1, 40, 300),
                                                      (0.15, 0.05, 30, 30), (0.05, 0.15, 500, 60)])
def test_rate_tost_size_at_the_margin(p_a, p_b, n_a, n_b):
    """Size of the difference's TOST where the true difference is the margin (0.1, the null's edge), large
    and small groups: the rate of 'equivalent' at alpha 0.05 stays at or below 0.05 + 3 Monte Carlo SE
    (4,000 draws; seen 0.049, 0.039, 0.001, 0.045)."""
    rng = np.random.default_rng([20240607, n_a, n_b])
    draws = 4000
    ca, cb = rng.binomial(n_a, p_a, draws).astype(float), rng.binomial(n_b, p_b, draws).astype(float)
    from fairstats.equivalence import rate_equivalence_many

    out = rate_equivalence_many(ca, np.full(draws, float(n_a)), cb, np.full(draws, float(n_b)), margin=0.1,
                                margin_ratio=None, alpha=0.05, power=0.8)  # fmt: skip
    assert np.isfinite(out["pvalue"]).all()
    assert np.mean(out["pvalue"] < 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / draws)
