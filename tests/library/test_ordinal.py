"""The linear-by-linear association test (issue 17) against statsmodels, the textbook formula by hand, and
Agresti's published example."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import Table

from fairstats import (
    OrdinalShiftTestsResult,
    UndefinedTestWarning,
    decision_table,
    linear_by_linear_test,
    ordinal_shift_tests,
)
from fairstats._result import Result

SMALL = [
    ([[20, 15, 5], [10, 15, 15]], None, None),
    ([[3, 0, 2, 1], [1, 4, 0, 2], [0, 1, 3, 5]], [1.0, 2.0, 4.0], [0.0, 1.0, 1.5, 3.0]),
    ([[5, 1], [2, 2], [0, 6]], [0.0, 1.0, 2.0], [0.0, 1.0]),
]


def _by_hand(table, u, v):
    """Agresti (2013), Eq. 3.15: M^2 = (n - 1) r^2, r the correlation of the scores over the people."""
    table = np.asarray(table, dtype=float)
    u = np.arange(table.shape[0]) if u is None else np.asarray(u, dtype=float)
    v = np.arange(table.shape[1]) if v is None else np.asarray(v, dtype=float)
    ii, jj = np.meshgrid(np.arange(table.shape[0]), np.arange(table.shape[1]), indexing="ij")
    x = np.repeat(u[ii.ravel()], table.ravel().astype(int))
    y = np.repeat(v[jj.ravel()], table.ravel().astype(int))
    r = np.corrcoef(x, y)[0, 1]
    return (x.size - 1) * r**2, r


@pytest.mark.parametrize(("table", "u", "v"), SMALL)
def test_equals_statsmodels_and_the_formula(table, u, v):
    res = linear_by_linear_test(table, row_scores=u, col_scores=v)
    sm = Table(np.asarray(table, dtype=float), shift_zeros=False).test_ordinal_association(
        row_scores=None if u is None else np.asarray(u), col_scores=None if v is None else np.asarray(v)
    )
    m2, r = _by_hand(table, u, v)
    assert res.zscore == pytest.approx(sm.zscore, rel=1e-12)
    assert res.pvalue == pytest.approx(sm.pvalue, rel=1e-12)
    assert res.statistic == pytest.approx(m2, rel=1e-10)
    assert res.correlation == pytest.approx(r, rel=1e-10)
    assert res.pvalue == pytest.approx(stats.chi2.sf(m2, 1), rel=1e-9)


def test_agresti_infant_malformation():
    # Agresti, Categorical Data Analysis, 3rd ed. (2013), Sec. 3.4 (Table 3.8): alcohol consumption scores
    # 0, 0.5, 1.5, 4.0, 7.0 x malformation absent/present; printed r = 0.0142, M^2 = 6.57, P = 0.0104.
    table = np.array([[17066, 48], [14464, 38], [788, 5], [126, 1], [37, 1]])
    res = linear_by_linear_test(table, row_scores=[0, 0.5, 1.5, 4.0, 7.0], col_scores=[0, 1])
    assert res.n == 32574
    assert res.correlation == pytest.approx(0.0142, abs=5e-5)
    assert res.statistic == pytest.approx(6.57, abs=0.005)
    assert res.pvalue == pytest.approx(0.0104, abs=5e-5)


def test_zeros_are_not_shifted_and_one_sided_alternatives():
    table = [[4, 0, 0], [0, 0, 4]]
    two = linear_by_linear_test(table)
    assert two.correlation == pytest.approx(1.0)  # statsmodels' default shift_zeros would lower r
    greater = linear_by_linear_test(table, alternative="greater")
    less = linear_by_linear_test(table, alternative="less")
    assert greater.pvalue == pytest.approx(two.pvalue / 2)
    assert less.pvalue == pytest.approx(1 - two.pvalue / 2)


def test_no_variance_is_undefined_with_a_named_warning():
    with pytest.warns(UndefinedTestWarning, match="same row score or the same column score"):
        res = linear_by_linear_test([[0, 5, 0], [0, 7, 0]])
    assert np.isnan(res.statistic) and np.isnan(res.pvalue) and res.reason


def test_shift_tests_find_the_shifted_group():
    rng = np.random.default_rng(1)
    n = 1200
    g = rng.choice(["a", "b", "c"], n)
    y = rng.integers(0, 2, n)
    d = np.clip(np.round(rng.normal(np.where(g == "b", 0.8, 0.0) + y, 0.8)), 0, 2).astype(int)
    df = pd.DataFrame({"g": g, "y": y, "d": np.array(["Low", "Medium", "High"], dtype=object)[d]})
    t = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=["Low", "Medium", "High"])
    result = ordinal_shift_tests(t, reference="a")
    assert isinstance(result, OrdinalShiftTestsResult) and isinstance(result, Result)
    assert (result.reference, result.alpha, result.scores) == ("a", 0.05, (0.0, 1.0, 2.0))
    out = result.table
    assert set(out["group"]) == {"b", "c"} and set(out["condition"]) == {"all", "y_true=0", "y_true=1"}
    pd.testing.assert_frame_equal(result.to_frame(), out)
    row = out.query("group == 'b' and condition == 'y_true=0'").iloc[0]
    assert row["zscore"] > 0 and row["pvalue_adj"] < 0.001
    sub = df[(df.y == 0) & df.g.isin(["a", "b"])]
    m2, _ = _by_hand(pd.crosstab(sub.g, sub.d)[["Low", "Medium", "High"]].to_numpy(), [0, 1], [0, 1, 2])
    assert row["statistic"] == pytest.approx(m2, rel=1e-10)
    assert not out.query("group == 'c'")["significant_adj"].any()


def test_shift_tests_answer_as_their_table_until_0_4_with_a_warning():
    """Before 0.3 ordinal_shift_tests returned its table: column access and DataFrame methods still reach
    it, each with a DeprecationWarning naming ``.table``; the result's own fields are not forwarded."""
    df = pd.DataFrame({"g": list("ab") * 60, "y": [0, 0, 1, 1] * 30, "d": ["Low", "High", "Medium"] * 40})
    t = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=["Low", "Medium", "High"])
    result = ordinal_shift_tests(t, reference="a")
    with pytest.warns(DeprecationWarning, match=r"no longer a DataFrame: use \.table\[\.\.\.\]"):
        pd.testing.assert_series_equal(result["pvalue"], result.table["pvalue"])
    with pytest.warns(DeprecationWarning, match=r"use \.table\.query"):
        assert result.query("group == 'b'").equals(result.table.query("group == 'b'"))
    with pytest.warns(DeprecationWarning, match=r"use \.table\.zscore"):
        pd.testing.assert_series_equal(result.zscore, result.table["zscore"])
    assert result.reference == "a"  # the field, not the table's column
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        result.nonsense  # noqa: B018
