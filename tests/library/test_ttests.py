"""Fold-based t-tests: the three statistics on small hand-computed cases, tails, NaN handling, validation."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairstats.ttests import FOLD_TESTS, FoldTTestResult, fold_ttest

# K = 4 folds. By hand: mean(a) = 2.5, var(a) = 5/3; mean(b) = 1, var(b) = 2/3; s_p^2 = 7/6;
# d = a - b = [1, 0, 2, 3]: mean 1.5, var 5/3.
A4 = [1.0, 2.0, 3.0, 4.0]
B4 = [0.0, 2.0, 1.0, 1.0]


def test_three_statistics_by_hand():
    res = fold_ttest(A4, B4, alternative="greater")
    # pooled: 1.5 / sqrt(7/6 * 1/2) = 1.5 sqrt(12/7)
    assert res.statistic_pooled == pytest.approx(1.5 * math.sqrt(12 / 7), rel=1e-12)
    assert res.df_pooled == 6
    # paired: 1.5 / sqrt((5/3) / 4) = 1.5 sqrt(12/5)
    assert res.statistic_paired == pytest.approx(1.5 * math.sqrt(12 / 5), rel=1e-12)
    assert res.df_paired == 3
    # corrected, r = 1/(K-1) = 1/3: 1.5 / sqrt((1/4 + 1/3) * 5/3) = 1.5 / sqrt(35/36) = 9 / sqrt(35)
    assert res.statistic_corrected == pytest.approx(9 / math.sqrt(35), rel=1e-12)
    assert res.df_corrected == 3
    assert res.test_train_ratio == pytest.approx(1 / 3)
    assert (res.mean_a, res.mean_b, res.estimate, res.mean_difference) == pytest.approx((2.5, 1.0, 1.5, 1.5))
    assert (res.k, res.n_a, res.n_b, res.n_pairs) == (4, 4, 4, 4)


def test_pooled_with_unequal_groups_drops_nan_per_group():
    a = [1.0, 2.0, 4.0, np.nan]
    b = [0.0, 1.0, 1.0, 5.0]
    res = fold_ttest(a, b)
    assert (res.n_a, res.n_b, res.n_pairs) == (3, 4, 3)
    ref = stats.ttest_ind([1.0, 2.0, 4.0], [0.0, 1.0, 1.0, 5.0], equal_var=True)
    assert res.statistic_pooled == pytest.approx(ref.statistic, rel=1e-12)
    assert res.df_pooled == 5


def test_nan_folds_are_dropped_pairwise_for_paired_and_corrected():
    # complete pairs: a = [1, 2, 4], b = [0, 1, 1]: d = [1, 1, 3], mean 5/3, var 4/3.
    res = fold_ttest([1.0, 2.0, 4.0, np.nan], [0.0, 1.0, 1.0, 5.0], alternative="greater")
    assert res.statistic_paired == pytest.approx(2.5, rel=1e-12)  # (5/3) / sqrt(4/9)
    assert res.df_paired == res.df_corrected == 2
    # r stays 1/(K-1) with the design's K = 4, J = 3 pairs: (5/3) / sqrt((1/3 + 1/3) 4/3) = 5 / sqrt(8)
    assert res.statistic_corrected == pytest.approx(5 / math.sqrt(8), rel=1e-12)
    # the same pairs without the NaN fold: K = 3, r = 1/2
    res3 = fold_ttest([1.0, 2.0, 4.0], [0.0, 1.0, 1.0], alternative="greater")
    assert res3.statistic_paired == pytest.approx(res.statistic_paired, rel=1e-12)
    assert res3.statistic_corrected == pytest.approx(math.sqrt(2.5), rel=1e-12)  # (5/3) / sqrt(5/6 * 4/3)


def _t2_sf(t):
    # Student t with 2 df in closed form: F(t) = 1/2 + t / (2 sqrt(2 + t^2))
    return 0.5 - t / (2 * math.sqrt(2 + t * t))


def test_corrected_pvalues_by_hand_for_each_tail():
    a, b = [1.0, 2.0, 4.0], [0.0, 1.0, 1.0]
    t = math.sqrt(2.5)  # corrected t, df 2
    upper = _t2_sf(t)  # 0.127322
    assert upper == pytest.approx(0.127322, abs=1e-6)
    assert fold_ttest(a, b, alternative="greater").pvalue_corrected == pytest.approx(upper, rel=1e-9)
    assert fold_ttest(a, b, alternative="less").pvalue_corrected == pytest.approx(1 - upper, rel=1e-9)
    assert fold_ttest(a, b, alternative="two-sided").pvalue_corrected == pytest.approx(2 * upper, rel=1e-9)
    # swapping the groups flips the statistic and the one-sided tail, keeps the two-sided p
    swapped = fold_ttest(b, a, alternative="greater")
    assert swapped.statistic_corrected == pytest.approx(-t, rel=1e-12)
    assert swapped.pvalue_corrected == pytest.approx(1 - upper, rel=1e-9)
    assert fold_ttest(b, a).pvalue_corrected == pytest.approx(2 * upper, rel=1e-9)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_pooled_and_paired_follow_scipy(alternative):
    res = fold_ttest(A4, B4, alternative=alternative)
    pooled = stats.ttest_ind(A4, B4, equal_var=True, alternative=alternative)
    paired = stats.ttest_rel(A4, B4, alternative=alternative)
    assert res.pvalue_pooled == pytest.approx(pooled.pvalue, rel=1e-12)
    assert res.pvalue_paired == pytest.approx(paired.pvalue, rel=1e-12)


def test_verdicts_use_alpha_and_the_tail():
    res = fold_ttest(A4, B4, alternative="greater", alpha=0.05)
    # paired t = 2.324 on 3 df: one-sided p = 0.0514 > 0.05
    assert res.pvalue_paired == pytest.approx(0.0514, abs=5e-4)
    assert res.significant_paired is False
    assert fold_ttest(A4, B4, alternative="greater", alpha=0.06).significant_paired is True
    # the pooled t's one-sided p = 0.049: significant at 0.05, not at 0.04
    assert fold_ttest(A4, B4, alternative="greater", alpha=0.04).significant_pooled is False
    assert fold_ttest(A4, B4, alternative="greater", alpha=0.05).significant_pooled is True
    less = fold_ttest(A4, B4, alternative="less", alpha=0.05)
    assert not any(getattr(less, f"significant_{t}") for t in FOLD_TESTS)


def test_explicit_test_train_ratio():
    res = fold_ttest(A4, B4, test_train_ratio=0.25)
    assert res.statistic_corrected == pytest.approx(1.5 / math.sqrt((0.25 + 0.25) * 5 / 3), rel=1e-12)


@pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")  # scipy, on the zero spread
def test_zero_spread_gives_infinite_or_nan_statistics():
    res = fold_ttest([1.0, 2.0, 3.0], [0.0, 1.0, 2.0], alternative="greater")
    assert math.isinf(res.statistic_corrected) and res.pvalue_corrected == 0.0
    same = fold_ttest([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert math.isnan(same.statistic_corrected) and math.isnan(same.pvalue_corrected)
    assert same.significant_corrected is False


def test_result_is_frozen_and_tidy():
    res = fold_ttest(A4, B4, alternative="greater")
    assert isinstance(res, FoldTTestResult)
    with pytest.raises(AttributeError):
        res.alpha = 0.1
    frame = res.to_frame()
    assert list(frame["test"]) == list(FOLD_TESTS)
    assert list(frame["n"]) == [8, 4, 4]
    assert frame.loc[frame["test"] == "corrected", "statistic"].item() == pytest.approx(9 / math.sqrt(35))
    assert res.to_record()["statistic_paired"] == res.statistic_paired


def test_accepts_series_positionally():
    res = fold_ttest(pd.Series(A4, index=[3, 2, 1, 0]), pd.Series(B4))
    assert res.statistic_paired == pytest.approx(1.5 * math.sqrt(12 / 5), rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0]}, "aligned by fold"),
        ({"a": [1.0, np.inf, 3.0], "b": [1.0, 2.0, 3.0]}, r"`a` has an infinite value inf at fold 1"),
        ({"a": [[1.0, 2.0]], "b": [[1.0, 2.0]]}, "must be 1-D"),
        ({"alternative": "right"}, "`alternative` must be one of"),
        ({"alpha": 1.5}, r"`alpha` must be a number strictly between 0 and 1, got 1.5"),
        ({"test_train_ratio": -1.0}, "`test_train_ratio` must be a positive"),
        ({"a": [1.0, np.nan, np.nan], "b": [1.0, 2.0, 3.0]}, "`a` has 1 non-NaN fold values of 3"),
        ({"a": [1.0, 2.0, np.nan], "b": [np.nan, 2.0, 3.0]}, "`a` and `b` have 1 folds where both"),
    ],
)
def test_validation_names_the_parameter(kwargs, message):
    args = {"a": A4, "b": B4} | kwargs
    a, b = args.pop("a"), args.pop("b")
    with pytest.raises(ValueError, match=message):
        fold_ttest(a, b, **args)


def test_non_numeric_input_is_a_type_error():
    with pytest.raises(TypeError, match="`b` must be a 1-D array of numbers"):
        fold_ttest(A4, ["x", "y", "z", "w"])
    with pytest.raises(TypeError, match="`a` must be a 1-D array of numbers"):
        fold_ttest("1234", B4)
