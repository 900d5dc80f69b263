"""fairstats.outcomes: paper B's outcome-based tests without folds."""

from __future__ import annotations

import pytest
from people import MEDIUM
from scipy import stats
from statsmodels.stats import proportion as sm_proportion

from fairstats.outcomes import OUTCOME_TESTS, outcome_tests

# --------------------------------------------------------------------------------------------------------
# outcome_tests
# --------------------------------------------------------------------------------------------------------


def test_outcome_tests_use_the_score_test_and_welch():
    res = outcome_tests(
        MEDIUM,
        group="g",
        y_true="y",
        y_pred="p",
        y_score="s",
        n_resamples=200,
        rng=0,
        alternative={"ppr": "greater"},
    )
    table = res.to_frame()
    assert table["test"].tolist() == [t for t in OUTCOME_TESTS for _ in OUTCOME_TESTS[t]]
    a, b = MEDIUM[MEDIUM["g"] == "a"], MEDIUM[MEDIUM["g"] == "b"]
    ppr = table.set_index("metric").loc["ppr"]
    expected = sm_proportion.test_proportions_2indep(
        a["p"].sum(), len(a), b["p"].sum(), len(b), method="score", compare="diff", alternative="larger"
    )
    assert ppr["pvalue"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert ppr["alternative"] == "greater"
    # treatment equality: FN / (FN + FP) compared between the groups
    te = table.set_index("metric").loc["fn_fp_ratio"]
    fn_a, fp_a = ((a["p"] == 0) & (a["y"] == 1)).sum(), ((a["p"] == 1) & (a["y"] == 0)).sum()
    assert (te["count_a"], te["nobs_a"]) == (fn_a, fn_a + fp_a)
    # balance for the positive class: Welch's t on scores of people with y = favourable (1)
    bal = table.set_index("metric").loc["mean_score_pos"]
    welch = stats.ttest_ind(a.loc[a["y"] == 1, "s"], b.loc[b["y"] == 1, "s"], equal_var=False)
    assert bal["pvalue"] == pytest.approx(welch.pvalue, rel=1e-12)
    # two-metric definitions at alpha / 2 (paper B's Bonferroni)
    assert table.loc[table["test"] == "equalized_odds", "alpha"].tolist() == [0.025, 0.025]
    assert table.loc[table["test"] == "group_fairness", "alpha"].tolist() == [0.05]
    assert (table["significant"] == (table["pvalue"] < table["alpha"])).all()
    assert (table["ci_low"] <= table["estimate"]).all() and (table["estimate"] <= table["ci_high"]).all()


def test_outcome_tests_without_score_skip_the_balance_tests():
    table = outcome_tests(MEDIUM, group="g", y_true="y", y_pred="p", n_resamples=50, rng=0).table
    assert "balance_positive_class" not in set(table["test"])
    with pytest.raises(ValueError, match="unknown test"):
        outcome_tests(MEDIUM, group="g", y_true="y", y_pred="p", tests=["calibration"], n_resamples=10)
