"""Decisions with more than two levels (issue 17): the group x (decision, outcome) table, the equal confusion
test on its k*m cells, and the per-level rate comparisons."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats import proportion as smp

from fairstats import (
    ContingencyTable,
    Counts,
    UndefinedTestWarning,
    decision_table,
    equal_confusion_test,
    level_rate_tests,
)

LEVELS = ["Low", "Medium", "High"]


def _people(n: int = 900, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    y = rng.integers(0, 2, n)
    shift = np.where(g == "b", 0.8, 0.0) + y  # group b decided higher
    d = np.clip(np.round(rng.normal(shift, 0.8)), 0, 2).astype(int)
    return pd.DataFrame({"g": g, "y": y, "d": np.array(LEVELS, dtype=object)[d]})


def test_table_is_in_declared_order_and_counts_every_person():
    df = _people()
    t = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=LEVELS)
    assert list(t.columns) == [f"pred={d}, true={o}" for d in LEVELS for o in (0, 1)]
    assert list(t.index) == ["a", "b", "c"]
    assert int(t.to_numpy().sum()) == len(df)
    expected = pd.crosstab(df["g"], [df["d"], df["y"]]).loc[:, [(d, o) for d in LEVELS for o in (0, 1)]]
    np.testing.assert_array_equal(t.to_numpy(), expected.to_numpy())


def test_done_when_chi2_equals_scipy_for_three_levels():
    df = _people()
    t = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=LEVELS)
    res = equal_confusion_test(ContingencyTable.from_observed(t), permutation="never")
    ref = stats.chi2_contingency(pd.crosstab(df["g"], [df["y"], df["d"]]).to_numpy(), correction=False)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.df == ref.dof == 2 * 5
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_counts_give_the_same_table():
    df = _people()
    counted = Counts.from_frame(df, columns=["g", "y", "d"])
    a = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=LEVELS)
    b = decision_table(counted, group="g", y_true="y", y_pred="d", decision_levels=LEVELS)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        (["Low", "High"], r"column 'd' has the value 'Medium' \(row \d+\) that is not among `decision_lev"),
        (["Low"], "at least two levels"),
        (["Low", "Medium", "Low", "High"], "lists the level 'Low' twice"),
    ],
)
def test_bad_levels_are_refused(levels, message):
    with pytest.raises(ValueError, match=message):
        decision_table(_people(), group="g", y_true="y", y_pred="d", decision_levels=levels)


def test_undeclared_outcome_is_refused():
    with pytest.raises(ValueError, match=r"column 'y' has the value 1 .* not among `outcome_levels`"):
        decision_table(_people(), group="g", y_true="y", y_pred="d", decision_levels=LEVELS,
                       outcome_levels=[0, 2])


def test_rate_rows_equal_statsmodels_score_test():
    df = _people()
    t = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=LEVELS)
    res = level_rate_tests(t)
    assert res.reference == df["g"].value_counts().idxmax()
    row = res.table.query("group == 'b' and condition == 'y_true=0' and level == 'High'").iloc[0]
    b0, r0 = df[(df.g == "b") & (df.y == 0)], df[(df.g == res.reference) & (df.y == 0)]
    ref = smp.test_proportions_2indep((b0.d == "High").sum(), len(b0), (r0.d == "High").sum(), len(r0),
                                  method="score", compare="diff")
    assert row["pvalue"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert row["estimate"] == pytest.approx((b0.d == "High").mean() - (r0.d == "High").mean(), abs=1e-15)
    # the planted shift is found among the people without the outcome, after Holm
    assert row["verdict"] == "disparity" and row["pvalue_adj"] < 0.05
    assert set(res.table["verdict"]) <= {"disparity", "equivalent", "inconclusive", "undefined"}
    assert len(res.table) == 2 * 3 * 3  # 2 groups x (all + 2 outcome levels) x 3 levels


def test_empty_denominator_is_undefined_with_a_named_warning():
    df = _people()
    df = df[~((df.g == "a") & (df.y == 1))]  # group a: nobody with outcome 1
    t = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=LEVELS)
    with pytest.warns(UndefinedTestWarning, match="no case in the denominator"):
        res = level_rate_tests(t, reference="c")
    rows = res.table.query("group == 'a' and condition == 'y_true=1'")
    assert len(rows) == 3 and rows["pvalue"].isna().all() and (rows["verdict"] == "undefined").all()


def test_unknown_reference_and_plain_table_are_refused():
    t = decision_table(_people(), group="g", y_true="y", y_pred="d", decision_levels=LEVELS)
    with pytest.raises(ValueError, match="`reference` 'z' is not a group"):
        level_rate_tests(t, reference="z")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = pd.DataFrame(t.to_numpy(), index=t.index, columns=t.columns)
    with pytest.raises(ValueError, match="must come from fairstats.decision_table"):
        level_rate_tests(plain)
