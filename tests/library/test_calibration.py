"""The library's calibration test by score bin (fairstats.calibration_independence_test): the per-bin χ² of
independence and the CMH test against scipy and statsmodels, small bins left out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2, chi2_contingency
from statsmodels.stats.contingency_tables import StratifiedTable

from fairstats.calibration import SmallExpectedCountWarning, calibration_independence_test


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


COLS = {"group": "race", "y_true": "y_true", "y_score": "y_score"}


def test_independence_test_matches_scipy_and_statsmodels():
    rng = np.random.default_rng(11)
    n = 3000
    score = rng.random(n)
    g = rng.choice(["BLACK", "WHITE"], n)
    y = (rng.random(n) < score + 0.05 * (g == "BLACK")).astype(int)
    data = pd.DataFrame({"race": g, "y_true": y, "y_score": score})
    r = calibration_independence_test(data, **COLS, groups=("BLACK", "WHITE"), n_bins=5)
    bins = np.minimum((score * 5).astype(int), 4)  # equal-width bins of width 0.2
    tables, total = [], 0.0
    for j in range(5):
        m = bins == j
        t = np.array([[np.sum(m & (g == grp) & (y == out)) for out in (0, 1)] for grp in ("BLACK", "WHITE")])
        tables.append(t.astype(float))
        total += chi2_contingency(t, correction=False).statistic
    assert r.df == 5 and r.n_bins_used == 5
    assert r.statistic == pytest.approx(total, rel=1e-12)
    assert r.pvalue == pytest.approx(chi2.sf(total, 5), rel=1e-12)
    cmh = StratifiedTable(tables).test_null_odds(correction=False)
    assert r.cmh_statistic == pytest.approx(cmh.statistic, rel=1e-12)
    assert r.cmh_pvalue == pytest.approx(cmh.pvalue, rel=1e-12)
    assert r.table["rate_protected"].between(0, 1).all()


def test_independence_test_leaves_out_small_bins():
    rows = (
        _people("B", 0.2, 40, 20)
        + _people("W", 0.3, 40, 10)
        + _people("B", 0.8, 3, 1)
        + _people("W", 0.9, 4, 1)
    )
    df = pd.DataFrame(rows, columns=["race", "y_score", "y_true"])
    with pytest.warns(SmallExpectedCountWarning, match="bins \\[1\\]"):
        r = calibration_independence_test(df, **COLS, groups=("B", "W"), n_bins=2)
    assert r.table["used"].tolist() == [True, False]
    assert r.df == 1
    expected = chi2_contingency(np.array([[20, 20], [10, 30]]), correction=False).statistic
    assert r.statistic == pytest.approx(expected)


def test_independence_bins_are_correctly_rounded_fractions():
    # a score stored as 0.3 belongs to [0.3, 0.4) (np.linspace would make the edge 0.30000000000000004 and put
    # it in [0.2, 0.3)); 1.0 belongs to the last bin
    rows = (
        _people("B", 0.3, 10, 5)
        + _people("W", 0.3, 10, 5)
        + _people("B", 1.0, 10, 5)
        + _people("W", 1.0, 10, 5)
    )
    df = pd.DataFrame(rows, columns=["race", "y_score", "y_true"])
    with pytest.warns(SmallExpectedCountWarning):
        r = calibration_independence_test(
            df, **COLS, groups=("B", "W"), n_bins=10, min_expected=1
        )
    counts = r.table.set_index("bin")["n_protected"]
    assert (counts[3], counts[2], counts[9]) == (10, 0, 10)


def test_other_groups_are_ignored(two_bins):
    extra = pd.DataFrame([("HISPANIC", 0.2, 1)] * 5, columns=two_bins.columns)
    opts = {"groups": ("B", "W"), "n_bins": 2, "favorable": 0, "min_expected": 1}
    a = calibration_independence_test(two_bins, **COLS, **opts)
    b = calibration_independence_test(pd.concat([two_bins, extra]), **COLS, **opts)
    assert a.statistic == b.statistic and a.cmh_statistic == b.cmh_statistic


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"groups": ("X", "W")}, "`groups`: group 'X' does not occur"),
        ({"groups": ("B", "B")}, "`groups`: the two groups must differ"),
        ({"n_bins": 0}, "`n_bins` must be a positive integer, got 0"),
        ({"favorable": 2}, "`favorable` must be 0 or 1"),
    ],
)
def test_bad_options(two_bins, kwargs, match):
    opts = {"groups": ("B", "W"), "n_bins": 2} | kwargs
    with pytest.raises(ValueError, match=match):
        calibration_independence_test(two_bins, **COLS, **opts)


def test_bad_data(two_bins):
    opts = {**COLS, "groups": ("B", "W")}
    y, s = two_bins["y_true"], two_bins["y_score"]
    with pytest.raises(ValueError, match="`y_true` must be binary 0/1, got 2 at position 0"):
        calibration_independence_test(two_bins.assign(y_true=y.replace(0, 2)), **opts)
    with pytest.raises(ValueError, match="`y_score` must lie in \\[0, 1\\].*1.2 at position 0"):
        calibration_independence_test(two_bins.assign(y_score=s.where(s.index > 0, 1.2)), **opts)
    with pytest.raises(ValueError, match=r"`data`: missing column\(s\) 'score' \(did you mean 'y_score'\?\)"):
        calibration_independence_test(two_bins, **{**opts, "y_score": "score"})
    with pytest.raises(TypeError, match="`y_score` must be numeric"):
        calibration_independence_test(two_bins.assign(y_score=s.astype(str)), **opts)
    with pytest.raises(TypeError, match="`data` must be a pandas DataFrame"):
        calibration_independence_test(two_bins.to_dict(), **opts)


def test_intersectional_groups_are_named_as_the_contingency_table_names_them(two_bins):
    data = two_bins.assign(sex="F")
    opts = {"y_true": "y_true", "y_score": "y_score", "n_bins": 2, "favorable": 0, "min_expected": 1}
    a = calibration_independence_test(
        data, group=["race", "sex"], groups=("B - F", "W - F"), **opts
    )
    b = calibration_independence_test(data, group="race", groups=("B", "W"), **opts)
    assert a.to_record() == {**b.to_record(), "group_a": "B - F", "group_b": "W - F"}


def test_the_call_with_arrays_warns_until_0_4_and_answers_the_same(two_bins):
    opts = {"groups": ("B", "W"), "n_bins": 2, "favorable": 0, "min_expected": 1}
    new = calibration_independence_test(two_bins, **COLS, **opts)
    y, s, g = two_bins["y_true"], two_bins["y_score"], two_bins["race"]
    said = (r"^fairstats\.calibration_independence_test with arrays is deprecated since fairstats 0\.3 and "
            r"goes in 0\.4: use calibration_independence_test\(data, group=, y_true=, y_score=")  # fmt: skip
    for call in (
        lambda: calibration_independence_test(y, s, g, **opts),
        lambda: calibration_independence_test(y.to_numpy(), s.to_numpy(), g.to_numpy(), **opts),
        lambda: calibration_independence_test(y_true=y, y_score=s, group=g, **opts),
    ):
        with pytest.warns(DeprecationWarning, match=said) as caught:
            old = call()
        assert caught[0].filename == __file__
        assert old.to_record() == new.to_record()
        pd.testing.assert_frame_equal(old.table, new.table, check_exact=True)


def test_protected_and_unprotected_are_the_old_names_of_groups_until_0_4(two_bins):
    """``protected=a, unprotected=b`` (before 0.3) is ``groups=(a, b)``, the pair's name in every function of
    two groups: it warns and gives the same test; the result's ``protected``/``unprotected`` are
    ``group_a``/``group_b`` with a warning; half a pair, or both spellings at once, is a TypeError."""
    args = {"n_bins": 2, "favorable": 0, "min_expected": 1}
    new = calibration_independence_test(two_bins, **COLS, groups=("B", "W"), **args)
    assert (new.group_a, new.group_b) == ("B", "W")
    with pytest.warns(DeprecationWarning, match=r"`protected` and `unprotected` of "
                      r"fairstats.calibration_independence_test .* use `groups=\(protected, unprotected\)`$"):
        old = calibration_independence_test(two_bins, **COLS, protected="B", unprotected="W", **args)
    assert old.to_record() == new.to_record()
    pd.testing.assert_frame_equal(old.table, new.table)
    with pytest.warns(DeprecationWarning, match="use `group_a`"):
        assert new.protected == "B"
    with pytest.warns(DeprecationWarning, match="use `group_b`"):
        assert new.unprotected == "W"
    with pytest.raises(TypeError, match="got `protected` without its pair"):
        calibration_independence_test(two_bins, **COLS, protected="B", **args)
    with pytest.raises(TypeError, match="got both `protected` .* and `groups`"):
        calibration_independence_test(two_bins, **COLS, protected="B", unprotected="W", groups=("B", "W"))
    with pytest.raises(TypeError, match=r"`groups` must be a pair \(a, b\) of group labels, got 'BW'"):
        calibration_independence_test(two_bins, **COLS, groups="BW")
