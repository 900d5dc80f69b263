"""Logistic recalibration, LR tests of equal calibration and the ICI per group (fairstats.recalibration)."""

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from scipy.special import expit, logit

import fairstats.recalibration as rc
from fairstats import Counts, UndefinedTestWarning, calibration_curves, recalibration_tests
from fairstats._score_input import score_counts_iv


def people(rng, n, *, groups=("a", "b"), distort=None, decimals=2):
    """``n`` people per group with probabilities uniform on [0.05, 0.95] (rounded) and outcomes drawn from
    them; ``distort`` maps a group to (intercept, slope) of its true recalibration curve."""
    frames = []
    for g in groups:
        p = np.round(rng.uniform(0.05, 0.95, n), decimals)
        a, b = (distort or {}).get(g, (0.0, 1.0))
        y = (rng.random(n) < expit(a + b * logit(p))).astype(int)
        frames.append(pd.DataFrame({"g": g, "p": p, "y": y}))
    return pd.concat(frames, ignore_index=True)


def test_counted_fit_equals_the_fit_on_the_people():
    rng = np.random.default_rng(1)
    df = people(rng, 400, distort={"b": (0.3, 0.8)})
    res = recalibration_tests(df, group="g", y_true="y", y_score="p", n_resamples=0).groups.set_index("group")
    b = df[df.g == "b"]
    fit = sm.GLM(b["y"], sm.add_constant(logit(b["p"])), family=sm.families.Binomial()).fit(tol=1e-12)
    assert res.loc["b", "slope"] == pytest.approx(fit.params.iloc[1], rel=1e-9)
    assert res.loc["b", "slope_se"] == pytest.approx(fit.bse.iloc[1], rel=1e-7)
    citl = sm.GLM(b["y"], np.ones(len(b)), offset=logit(b["p"]), family=sm.families.Binomial()).fit(tol=1e-12)
    assert res.loc["b", "citl"] == pytest.approx(citl.params.iloc[0], rel=1e-9)


def test_planted_miscalibration_is_found_in_that_group_only():
    rng = np.random.default_rng(2)
    df = people(rng, 1500, groups=("a", "b", "c"), distort={"c": (0.6, 0.6)})
    res = recalibration_tests(df, group="g", y_true="y", y_score="p", n_resamples=99, rng=3)
    t = res.comparisons.set_index("group")
    assert t.loc["c", "verdict"] == "disparity" and t.loc["b", "verdict"] == "inconclusive"
    assert t.loc["c", "slope_difference"] < 0 < t.loc["c", "citl_difference"]
    g = res.groups.set_index("group")
    assert g.loc["c", "ici"] > 2 * g.loc["a", "ici"]
    assert (g["ici_ci_low"] <= g["ici"]).all() and (g["ici"] <= g["ici_ci_high"]).all()
    assert res.overall["df"] == 4 and res.overall["pvalue"] < 1e-6
    assert set(t.columns) >= {"pvalue_adj", "verdict", "verdict_note", "statistic", "df"}


def test_ici_equals_the_mean_distance_to_the_spline_curve():
    rng = np.random.default_rng(4)
    df = people(rng, 500, distort={"a": (0.0, 0.7)})
    c = score_counts_iv(df, group="g", y_true="y", y_score="p")
    pos, neg, s = c.pos["a"], c.neg["a"], c.score["a"]
    basis = rc._spline_basis(s, pos + neg)
    assert basis.shape[1] == 4  # restricted cubic spline with 4 knots (ICI_KNOTS), intercept included
    ici = recalibration_tests(df, group="g", y_true="y", y_score="p", n_resamples=0).groups.loc[0, "ici"]
    curve = sm.GLM(np.column_stack([pos, neg]), basis, family=sm.families.Binomial()).fit().predict(basis)
    assert ici == pytest.approx(np.average(np.abs(curve - s), weights=pos + neg), rel=1e-6)


def test_same_result_from_counts_and_the_seed_fixes_the_bootstrap():
    df = people(np.random.default_rng(5), 300)
    a = recalibration_tests(df, group="g", y_true="y", y_score="p", n_resamples=49, rng=7)
    b = recalibration_tests(Counts.from_frame(df, columns=["g", "y", "p"]), group="g", y_true="y",
                            y_score="p", n_resamples=49, rng=7)
    pd.testing.assert_frame_equal(a.groups, b.groups)
    pd.testing.assert_frame_equal(a.comparisons, b.comparisons)


def test_scores_of_zero_or_one_make_the_recalibration_undefined_not_the_ici():
    df = people(np.random.default_rng(6), 300)
    df.loc[df.index[:5], "p"] = 1.0
    with pytest.warns(UndefinedTestWarning, match="score of exactly 0 or 1"):
        res = recalibration_tests(df, group="g", y_true="y", y_score="p", n_resamples=0)
    g = res.groups.set_index("group")
    assert np.isnan(g.loc["a", "slope"]) and np.isfinite(g.loc["a", "ici"])
    assert res.comparisons.loc[0, "verdict"] == "undefined"
    assert "infinite logit" in res.overall["reason"] or res.overall["reason"]
    # the comparison's reason says whose count it is (issue 39: it quoted the reference's as the group's)
    comparison = res.comparisons.iloc[0]
    whose = comparison["group"] if np.isnan(g.loc[comparison["group"], "slope"]) else comparison["reference"]
    role = "group" if whose == comparison["group"] else "reference"
    assert comparison["reason"].startswith(f"{role} {whose!r}: 5 people have a score of exactly 0 or 1")


def test_scores_outside_the_unit_interval_are_refused():
    df = people(np.random.default_rng(7), 50)
    df.loc[3, "p"] = 1.5
    with pytest.raises(ValueError, match=r"column 'p' has value 1.5 in group 'a'; calibration needs"):
        recalibration_tests(df, group="g", y_true="y", y_score="p")
    with pytest.raises(ValueError, match="`n_resamples`"):
        recalibration_tests(people(np.random.default_rng(7), 50), group="g", y_true="y", y_score="p",
                            n_resamples=-1)


def test_calibration_curves_follow_the_planted_curve():
    df = people(np.random.default_rng(8), 4000, distort={"b": (0.0, 0.5)})
    curves = calibration_curves(df, group="g", y_true="y", y_score="p", grid=11)
    b = curves[curves.group == "b"]
    truth = expit(0.5 * logit(b["score"].to_numpy()))
    assert np.max(np.abs(b["observed"].to_numpy() - truth)) < 0.08
    assert list(curves.columns) == ["grouping", "group", "score", "observed", "band_low", "band_high"]
    low, high = curves["band_low"], curves["band_high"]
    assert (low <= curves["observed"]).all() and (curves["observed"] <= high).all()


def null_rejections(rng, n, reps, *, distort_b=(0.0, 1.0), decimals=2):
    """Share of ``reps`` data sets (two groups of ``n``, both calibrated unless ``distort_b``) in which the LR
    test of equal recalibration, and each group's Wald tests of calibration-in-the-large = 0 and slope = 1,
    reject at 5 %. Through the per-group fit and the LR of ``recalibration_tests`` (``_recalibrate``,
    ``_pooled``, ``_lr``); the table around them is checked above and costs three times as much."""
    z = stats.norm.ppf(0.975)
    hits = np.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(reps):
            c = score_counts_iv(people(rng, n, distort={"b": distort_b}, decimals=decimals), group="g",
                                y_true="y", y_score="p")
            fits, values = [], []
            for g in c.groups:
                v, fit = rc._recalibrate(c.pos[g], c.neg[g], c.score[g], z)
                fits.append(fit)
                values.append(v)
            stat, df = rc._lr(fits, rc._pooled(c, c.groups))
            hits += [stats.chi2.sf(stat, df) < 0.05, values[0]["citl_pvalue"] < 0.05,
                     values[0]["slope_pvalue"] < 0.05]
    return hits / reps


def test_size_quick_n200():
    """150 null data sets of 200 + 200 calibrated people: the LR test and the Wald tests of group a reject
    within 3 Monte-Carlo standard errors (0.053) of 5 %."""
    rates = null_rejections(np.random.default_rng(26), 200, 150)
    assert np.all(np.abs(rates - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 150)), rates


def test_power_quick():
    """Group b's curve with intercept 0.4 and slope 0.6 (over-confident scores) with 200 + 200 people: the
    LR test rejects in most of 50 data sets (seen: 0.5 for the slope alone)."""
    rates = null_rejections(np.random.default_rng(27), 200, 50, distort_b=(0.4, 0.6))
    assert rates[0] > 0.6, rates


@pytest.mark.slow
@pytest.mark.parametrize("n, reps, decimals", [(200, 1500, 2), (20_000, 1000, 3)])
def test_size_slow(n, reps, decimals):
    """Null rejection rates within 3 Monte-Carlo standard errors of 5 % (1000 data sets at 20,000 people per
    group: with 300, the slope test of group a rejected 27 times, 3.2 standard errors above; with another
    seed 5 of 150)."""
    rates = null_rejections(np.random.default_rng(n), n, reps, decimals=decimals)
    assert np.all(np.abs(rates - 0.05) < 3 * np.sqrt(0.05 * 0.95 / reps)), rates
