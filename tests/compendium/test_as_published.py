"""compendium.paper_b.as_published: paper B's fold t and Table XX/XXV McNemar formula, as printed.

Moved from the library's tests (tests/library/test_ttests.py, test_mcnemar.py, test_awareness.py) with the
functions (issue 24); the numbers checked are the same.
"""

from __future__ import annotations

import math
from math import comb

import numpy as np
import pytest
from scipy import stats

from compendium.paper_b.as_published import (
    AS_PUBLISHED_LABEL,
    FoldTTestAsPublished,
    fold_ttest_as_published,
    mcnemar_midp_as_published,
)
from fairstats import awareness_test, fold_ttest, mcnemar_midp, nearest_other_group

# K = 4 folds. By hand: mean(a) = 2.5, var(a) = 5/3; mean(b) = 1, var(b) = 2/3; s_p^2 = 7/6.
A4 = [1.0, 2.0, 3.0, 4.0]
B4 = [0.0, 2.0, 1.0, 1.0]


def test_paper_formula_by_hand_beside_the_library_fields():
    res = fold_ttest_as_published(A4, B4, alternative="greater")
    # paper: 1.5 / (sqrt(7/6) * (1/4 + 1/4)) = 3 sqrt(6/7)
    assert res.statistic_paper_formula == pytest.approx(3 * math.sqrt(6 / 7), rel=1e-12)
    assert res.df_paper_formula == 6
    lib = fold_ttest(A4, B4, alternative="greater")
    assert isinstance(res, FoldTTestAsPublished)
    assert (res.statistic_pooled, res.statistic_paired, res.statistic_corrected) == (
        lib.statistic_pooled, lib.statistic_paired, lib.statistic_corrected
    )
    frame = res.to_frame()
    assert frame["test"].tolist() == ["paper_formula", "pooled", "paired", "corrected"]
    assert frame.loc[0, "label"] == AS_PUBLISHED_LABEL
    assert frame.loc[0, "statistic"] == res.statistic_paper_formula and frame.loc[0, "n"] == 8


def test_paper_formula_is_pooled_t_times_sqrt_k_over_2():
    # t_paper = t_pooled / sqrt(1/K + 1/K) = t_pooled * sqrt(K/2): 11.18 for the paper's K = 250.
    rng = np.random.default_rng(20240607)
    for k in (3, 10, 250):
        a, b = rng.normal(0.3, 0.05, k), rng.normal(0.28, 0.06, k)
        res = fold_ttest_as_published(a, b)
        assert res.statistic_paper_formula / res.statistic_pooled == pytest.approx(
            math.sqrt(k / 2), rel=1e-12
        )
    assert math.sqrt(250 / 2) == pytest.approx(11.18, abs=0.005)


def test_paper_formula_with_unequal_groups_drops_nan_per_group():
    a = [1.0, 2.0, 4.0, np.nan]
    b = [0.0, 1.0, 1.0, 5.0]
    res = fold_ttest_as_published(a, b)
    assert (res.n_a, res.n_b, res.n_pairs) == (3, 4, 3)
    ref = stats.ttest_ind([1.0, 2.0, 4.0], [0.0, 1.0, 1.0, 5.0], equal_var=True)
    assert res.df_pooled == res.df_paper_formula == 5
    assert res.statistic_paper_formula == pytest.approx(ref.statistic / math.sqrt(1 / 3 + 1 / 4), rel=1e-12)


@pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")  # scipy, on the zero spread
def test_paper_formula_pvalue_by_hand():
    # K = 2: a = [1, 3], b = [0, 2]; s_p^2 = 2, t = 1 / (sqrt 2 * 1) = 1/sqrt 2 on 2 df
    res = fold_ttest_as_published([1.0, 3.0], [0.0, 2.0], alternative="greater")
    assert res.statistic_paper_formula == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    assert res.pvalue_paper_formula == pytest.approx(0.5 - 1 / (2 * math.sqrt(5)), rel=1e-9)
    less = fold_ttest_as_published([1.0, 3.0], [0.0, 2.0], alternative="less")
    assert less.pvalue_paper_formula == pytest.approx(0.5 + 1 / (2 * math.sqrt(5)), rel=1e-9)


def test_paper_verdict_uses_alpha():
    # at alpha = 0.04 the paper's statistic (p = 0.016, 6 df) is significant, the pooled t (p = 0.049) is not
    strict = fold_ttest_as_published(A4, B4, alternative="greater", alpha=0.04)
    assert strict.significant_paper_formula is True and strict.significant_pooled is False


def test_paper_formula_validates_through_the_library():
    with pytest.raises(ValueError, match="aligned by fold"):
        fold_ttest_as_published([1.0, 2.0], [1.0, 2.0, 3.0])


# Paper B, Table XX (K, N-K, printed p); K = cell [0, 1] of Tables XVI-XIX.
TABLE_XX = [(13, 15, "0.78"), (27, 14, "0.0516"), (136, 153, "0.332"), (208, 184, "0.236")]


def _rounds_to(value: float, printed: str) -> bool:
    decimals = len(printed.split(".")[1])
    return round(value, decimals) == float(printed)


@pytest.mark.parametrize(("k", "nk", "printed"), TABLE_XX)
def test_as_published_reproduces_table_xx(k, nk, printed):
    r = mcnemar_midp_as_published(k, nk)
    assert _rounds_to(r.pvalue, printed)
    assert r.method == "as-published"
    n, m = k + nk, min(k, nk)
    assert (r.statistic, r.b, r.c, r.n, r.alternative) == (m, k, nk, n, "two-sided")
    assert r.pvalue == pytest.approx((2 * sum(comb(n, i) for i in range(m + 1)) - comb(n, m) / 2) / 2**n)


def test_midp_does_not_reproduce_table_xx():
    assert not any(_rounds_to(mcnemar_midp(k, nk).pvalue, p) for k, nk, p in TABLE_XX)
    # the verdict that changes at alpha = 0.05: LR protected
    assert mcnemar_midp(27, 14).pvalue < 0.05 < mcnemar_midp_as_published(27, 14).pvalue


def test_table_xxv_extreme_rows():
    # Paper B Table XXV: 2167/2403 printed 0.0005, 3726/3447 printed 0.001 (both formulas round alike)
    for k, nk, printed in [(2167, 2403, "0.0005"), (3726, 3447, "0.001")]:
        assert _rounds_to(mcnemar_midp(k, nk).pvalue, printed)
        assert _rounds_to(mcnemar_midp_as_published(k, nk).pvalue, printed)


def test_as_published_validates_through_the_library():
    with pytest.raises(ValueError):
        mcnemar_midp_as_published(-1, 3)


def test_as_published_on_an_awareness_table():
    # the small example of tests/library/test_awareness.py: group B's discordant counts b = 1, c = 2
    x = np.array([[0.0], [10.0], [20.0], [30.0], [1.0], [11.0], [21.0]])
    g = np.array(["A", "A", "A", "A", "B", "B", "B"])
    y = np.array([0, 0, 1, 1, 1, 1, 0])
    tb = awareness_test(y, nearest_other_group(x, g)).tests["B"]
    assert mcnemar_midp_as_published(tb.b, tb.c).pvalue == pytest.approx(2 * 0.5 - 0.5 * 3 / 8)
