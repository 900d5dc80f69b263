"""Paper B's calibration and well-calibration chi-squared (compendium.paper_b.calibration): hand-computed
Eq. 1-2, the well-calibration ends, the bins, and the checks (moved from the library with the functions,
issue 38)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2

from compendium.paper_b.calibration import (
    CalibrationResult,
    EmptyBinWarning,
    calibration_test,
    score_bins,
    well_calibration_test,
)


def _people(group: str, score: float, n: int, n_fav: int, favorable: int = 0) -> list[tuple]:
    """n people of ``group`` with ``score``, n_fav of them with y = favorable."""
    other = 1 - favorable
    return [(group, score, favorable)] * n_fav + [(group, score, other)] * (n - n_fav)


@pytest.fixture
def two_bins() -> pd.DataFrame:
    # n_bins = 2, favorable = 0 (no recidivism counted)
    # protected B:   bin 0: α=4, θ=3    bin 1: α=5,  θ=1
    # unprotected W: bin 0: β=8, γ=4    bin 1: β=10, γ=4
    rows = (
        _people("B", 0.2, 4, 3) + _people("B", 0.8, 5, 1) + _people("W", 0.3, 8, 4) + _people("W", 0.6, 10, 4)
    )
    return pd.DataFrame(rows, columns=["race", "y_score", "y_true"])


def _args(df: pd.DataFrame) -> tuple:
    return df["y_true"], df["y_score"], df["race"]


def test_calibration_hand_computed(two_bins):
    r = calibration_test(*_args(two_bins), protected="B", unprotected="W", n_bins=2, favorable=0)
    # λ0 = 3/4·8 = 6, (6-4)²/4 = 1;  λ1 = 1/5·10 = 2, (2-4)²/4 = 1
    assert isinstance(r, CalibrationResult)
    assert r.table["lambda"].tolist() == [6.0, 2.0]
    assert r.table["contribution"].tolist() == [1.0, 1.0]
    assert r.table[["alpha", "theta", "beta", "gamma"]].to_numpy().tolist() == [[4, 3, 8, 4], [5, 1, 10, 4]]
    assert (r.statistic, r.df, r.n_terms_used) == (2.0, 1, 2)
    assert r.pvalue == pytest.approx(chi2.sf(2.0, 1))
    assert r.to_frame().loc[0, "test"] == "calibration"


def test_calibration_counts_favorable_one(two_bins):
    r = calibration_test(*_args(two_bins), protected="B", unprotected="W", n_bins=2, favorable=1)
    # counted y=1: θ = (1, 4), γ = (4, 6): λ0 = 1/4·8 = 2, (2-4)²/4 = 1;  λ1 = 4/5·10 = 8, (8-6)²/6 = 2/3
    assert r.statistic == pytest.approx(1 + 2 / 3)


def test_calibration_empty_bin_left_out_with_warning(two_bins):
    with pytest.warns(EmptyBinWarning, match="4 bin\\(s\\).*bin 2 \\(α=0, β=10, γ=4\\)"):
        r = calibration_test(*_args(two_bins), protected="B", unprotected="W", n_bins=4, favorable=0)
    # bins (width 0.25): B 0.2 -> 0, B 0.8 -> 3, W 0.3 -> 1, W 0.6 -> 2: no bin has both groups
    assert r.n_terms_used == 0 and np.isnan(r.pvalue)
    assert not r.table["used"].any()


def test_calibration_df_is_k_minus_one_when_all_bins_defined():
    rng = np.random.default_rng(7)
    n = 4000
    score = rng.random(n)
    y = rng.integers(0, 2, n)  # outcome rate 1/2 in every bin: no well-calibration term picks the end p = 0
    g = rng.choice(["BLACK", "WHITE"], n)
    r = calibration_test(y, score, g, protected="BLACK", unprotected="WHITE", favorable=0)
    w = well_calibration_test(y, score, g, protected="BLACK", unprotected="WHITE", favorable=1)
    assert (r.df, r.n_bins) == (9, 10)
    assert w.df == 19 and len(w.table) == 20


def test_well_calibration_hand_computed(two_bins):
    # favorable = 0: bin 0 (score [0, .5)) -> P(no recid) in [.5, 1]; bin 1 ([.5, 1]) -> [0, .5]
    # bin 0, β = 8, ends 4 / 8: protected λ=6 ties (|6-4| = |6-8|) -> lower end 4, (6-4)²/4 = 1;
    #                             unprotected γ=4 -> 4, 0
    # bin 1, β = 10, ends 0 / 5: protected λ=2 -> end 0 (|2-0| < |2-5|): expected 0, left out;
    #                             unprotected γ=4 -> 5, (4-5)²/5 = 0.2
    with pytest.warns(EmptyBinWarning, match="1 term\\(s\\).*bin 1 protected"):
        r = well_calibration_test(*_args(two_bins), protected="B", unprotected="W", n_bins=2, favorable=0)
    t = r.table
    assert t["role"].tolist() == ["protected", "unprotected"] * 2
    assert t["observed"].tolist() == [6.0, 4.0, 2.0, 4.0]
    assert t["p_expected"].tolist() == [0.5, 0.5, 0.0, 0.5]
    assert t["expected"].tolist() == [4.0, 4.0, 0.0, 5.0]
    assert t["used"].tolist() == [True, True, False, True]
    assert r.statistic == pytest.approx(1.2)
    assert (r.df, r.n_terms_used) == (2, 3)
    assert r.pvalue == pytest.approx(chi2.sf(1.2, 2))


def test_well_calibration_favorable_one_uses_score_interval(two_bins):
    with pytest.warns(EmptyBinWarning, match="bin 0 protected"):
        r = well_calibration_test(*_args(two_bins), protected="B", unprotected="W", n_bins=2, favorable=1)
    # counted y=1: bin 0 interval [0, .5], β=8 -> ends 0 / 4; protected λ = 1/4·8 = 2 ties -> 0 (left out)
    assert r.table["p_lower"].tolist() == [0.0, 0.0, 0.5, 0.5]
    assert r.table["p_upper"].tolist() == [0.5, 0.5, 1.0, 1.0]
    # bin 1, β=10, ends 5 / 10: protected λ = 4/5·10 = 8 -> 10, (8-10)²/10 = .4; unprotected γ=6 -> 5, 1/5
    # bin 0 unprotected γ = 4 -> 4, 0
    assert r.statistic == pytest.approx(0.4 + 0.2 + 0.0)


def test_score_bins_edges():
    # 0.3 belongs to [0.3, 0.4) (np.linspace would give the edge 0.30000000000000004)
    assert score_bins([0.0, 0.1, 0.3, 0.7, 0.29999, 0.9999, 1.0]).tolist() == [0, 1, 3, 7, 2, 9, 9]
    assert score_bins([0.5, 0.49], n_bins=2).tolist() == [1, 0]


def test_other_groups_are_ignored(two_bins):
    extra = pd.DataFrame([("HISPANIC", 0.2, 1)] * 5, columns=two_bins.columns)
    a = calibration_test(*_args(two_bins), protected="B", unprotected="W", n_bins=2, favorable=0)
    b = calibration_test(
        *_args(pd.concat([two_bins, extra])), protected="B", unprotected="W", n_bins=2, favorable=0
    )
    assert a.statistic == b.statistic


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        # checked by the library's calibration_independence_test, whose pair is `groups=(a, b)`
        ({"protected": "X"}, "`groups`: group 'X' does not occur"),
        ({"unprotected": "B"}, "`groups`: the two groups must differ"),
        ({"n_bins": 0}, "`n_bins` must be a positive integer, got 0"),
        ({"favorable": 2}, "`favorable` must be 0 or 1"),
    ],
)
def test_bad_options(two_bins, kwargs, match):
    opts = {"protected": "B", "unprotected": "W", "n_bins": 2} | kwargs
    with pytest.raises(ValueError, match=match):
        calibration_test(*_args(two_bins), **opts)


def test_bad_data(two_bins):
    y, s, g = _args(two_bins)
    opts = {"protected": "B", "unprotected": "W"}
    with pytest.raises(ValueError, match="`y_true` must be binary 0/1, got 2 at position 0"):
        well_calibration_test(y.replace(0, 2), s, g, **opts)
    with pytest.raises(ValueError, match="`y_score` must lie in \\[0, 1\\].*1.2 at position 0"):
        calibration_test(y, s.where(s.index > 0, 1.2), g, **opts)
    with pytest.raises(ValueError, match="equal length"):
        calibration_test(y[:-1], s, g, **opts)
    with pytest.raises(TypeError, match="`y_score` must be numeric"):
        calibration_test(y, s.astype(str), g, **opts)
