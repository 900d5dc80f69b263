"""Unit tests for fairstats.mcnemar: exact binomial sums, the paired table."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from fairstats.mcnemar import (
    McNemarResult,
    mcnemar_midp,
    mcnemar_midp_table,
    paired_table,
)


def _midp_by_hand(b: int, c: int) -> float:
    """Two-sided mid-p from exact binomial sums with integer arithmetic (fractions of 2**n)."""
    n, m = b + c, min(b, c)
    tail = sum(comb(n, i) for i in range(m + 1))
    return min(1.0, (2 * tail - comb(n, m)) / 2**n)


@pytest.mark.parametrize(("b", "c"), [(0, 0), (0, 5), (5, 0), (3, 3), (1, 9), (13, 15), (27, 14), (60, 41)])
def test_midp_equals_exact_binomial_sum(b, c):
    r = mcnemar_midp(b, c)
    assert r.pvalue == pytest.approx(_midp_by_hand(b, c), rel=1e-12, abs=1e-300)
    assert (r.statistic, r.b, r.c, r.n) == (min(b, c), b, c, b + c)
    assert mcnemar_midp(c, b).pvalue == pytest.approx(r.pvalue, rel=1e-14)  # symmetric


def test_midp_small_known_values():
    # n = 4, b = 0: 2·(1/16) − 1/16 = 1/16
    assert mcnemar_midp(0, 4).pvalue == pytest.approx(1 / 16)
    # n = 3, b = 1: 2·(1/8 + 3/8) − 3/8 = 5/8
    assert mcnemar_midp(1, 2).pvalue == pytest.approx(5 / 8)
    # equal counts cap at 1; no discordant pairs give 1
    assert mcnemar_midp(4, 4).pvalue == 1.0
    assert mcnemar_midp(0, 0).pvalue == 1.0


def test_midp_is_exact_mcnemar_minus_point_probability():
    # statsmodels' exact McNemar p = 2·P(X <= min), capped at 1; mid-p subtracts P(X = min)
    for b, c in [(13, 15), (27, 14), (136, 153), (2, 11)]:
        exact = sm_mcnemar(np.array([[0, b], [c, 0]]), exact=True).pvalue
        n, m = b + c, min(b, c)
        expected = exact - comb(n, m) / 2**n
        assert mcnemar_midp(b, c).pvalue == pytest.approx(expected, rel=1e-10)


def test_one_sided_midp():
    # n = 3, b = 1: less = P(X<1) + P(X=1)/2 = 1/8 + 3/16 = 5/16; greater = P(X>1) + P(X=1)/2 = 4/8 + 3/16
    assert mcnemar_midp(1, 2, alternative="less").pvalue == pytest.approx(5 / 16)
    assert mcnemar_midp(1, 2, alternative="greater").pvalue == pytest.approx(11 / 16)
    lo = mcnemar_midp(7, 20, alternative="less").pvalue
    hi = mcnemar_midp(7, 20, alternative="greater").pvalue
    assert lo + hi == pytest.approx(1.0)
    assert 2 * lo == pytest.approx(mcnemar_midp(7, 20).pvalue)


# Paper B, Table XX's discordant counts (K, N-K); mid-p values as in compendium.paper_b.as_published.
TABLE_XX = [(13, 15), (27, 14), (136, 153), (208, 184)]


def test_midp_of_table_xx_counts():
    got = [mcnemar_midp(k, nk).pvalue for k, nk in TABLE_XX]
    np.testing.assert_allclose(got, [0.711071, 0.0435585, 0.318147, 0.225988], rtol=1e-5)


def test_table_xxv_extreme_rows():
    # Paper B Table XXV: 2167/2403 printed 0.0005, 3726/3447 printed 0.001
    assert round(mcnemar_midp(2167, 2403).pvalue, 4) == 0.0005
    assert round(mcnemar_midp(3726, 3447).pvalue, 3) == 0.001


def test_paired_table_labelled_axes():
    t = paired_table([0, 0, 0, 1, 1, 1, 1], [0, 1, 1, 0, 1, 1, 1], names=("original", "neighbor"))
    assert t.index.name == "original" and t.columns.name == "neighbor"
    assert t.to_numpy().tolist() == [[1, 2], [1, 3]]
    r = mcnemar_midp_table(t)
    assert (r.b, r.c) == (2, 1)


def test_table_xvi_counts_through_table():
    # Paper B Table XVI, logistic regression, unprotected: [[3029, 13], [15, 7892]] -> K = 13
    r = mcnemar_midp_table(pd.DataFrame([[3029, 13], [15, 7892]]))
    assert (r.b, r.c, r.n, r.statistic) == (13, 15, 28, 13)


def test_result_frame():
    r = mcnemar_midp(3, 9)
    assert isinstance(r, McNemarResult)
    frame = r.to_frame()
    assert list(frame.columns) == ["statistic", "b", "c", "n", "pvalue", "alternative", "method"]
    assert frame.loc[0, "pvalue"] == r.pvalue


def test_bad_input():
    with pytest.raises(ValueError, match="`b` must be a count >= 0, got -1"):
        mcnemar_midp(-1, 3)
    with pytest.raises(TypeError, match="`c` must be a whole count, got 2.5"):
        mcnemar_midp(1, 2.5)
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        mcnemar_midp(1, 2, alternative="two_sided")
    with pytest.raises(ValueError, match="equal length, got 3 and 2"):
        paired_table([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="`b` has value 2 at position 1"):
        paired_table([0, 1], [0, 2])
    with pytest.raises(ValueError, match="`table` must be 2×2"):
        mcnemar_midp_table([[1, 2, 3]])
