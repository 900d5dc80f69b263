"""fairstats.multiplicity: Holm / Benjamini-Hochberg adjustment of a battery (verdicts: tests/compendium)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from fairstats.multiplicity import adjust_pvalues

# --------------------------------------------------------------------------------------------------------
# adjust_pvalues
# --------------------------------------------------------------------------------------------------------

BATTERY = pd.DataFrame(
    {
        "model": ["lr", "lr", "rf", "rf"],
        "test": ["t1", "t2", "t1", "t2"],
        "pvalue": [0.01, 0.04, 0.03, 0.005],
    }
)


def test_holm_and_bh_by_hand():
    # Holm: sorted 0.005*4, 0.01*3, 0.03*2, 0.04*1 -> 0.02, 0.03, 0.06, max(0.06, 0.04) = 0.06
    holm = adjust_pvalues(BATTERY, method="holm", pvalue="pvalue")
    np.testing.assert_allclose(holm["pvalue_holm"], [0.03, 0.06, 0.06, 0.02], rtol=1e-12)
    assert holm["significant_holm"].tolist() == [True, False, False, True]
    assert holm["family_size_holm"].tolist() == [4, 4, 4, 4]
    # BH: sorted 0.005*4/1, 0.01*4/2, 0.03*4/3, 0.04*4/4 = 0.02, 0.02, 0.04, 0.04 (already monotone)
    bh = adjust_pvalues(BATTERY, method="fdr_bh", pvalue="pvalue")
    np.testing.assert_allclose(bh["pvalue_bh"], [0.02, 0.04, 0.04, 0.02], rtol=1e-12)
    assert bh["significant_bh"].all()


@pytest.mark.parametrize("method", ["holm", "fdr_bh", "bonferroni", "fdr_by"])
def test_adjust_matches_statsmodels_overall_and_per_family(method):
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"model": np.repeat(["lda", "lr", "xgb"], 7), "pvalue": rng.random(21) ** 3})
    overall = adjust_pvalues(table, method=method, pvalue="pvalue", suffix="x")
    np.testing.assert_allclose(
        overall["pvalue_x"], multipletests(table["pvalue"], method=method)[1], rtol=1e-12
    )
    per_model = adjust_pvalues(table, method=method, pvalue="pvalue", by="model", suffix="x")
    for _, rows in table.groupby("model"):
        expected = multipletests(rows["pvalue"], method=method)[1]
        np.testing.assert_allclose(per_model.loc[rows.index, "pvalue_x"], expected, rtol=1e-12)
    assert (per_model["family_size_x"] == 7).all()
    assert list(per_model.columns[:2]) == ["model", "pvalue"]  # a copy, columns added at the end


def test_holm_equals_statsmodels_to_the_bit_with_ties_zeros_and_ones():
    # _holm repeats multipletests' Holm operations (without its gc.collect()): the same floats, ties (sorted
    # in any order give equal adjusted values), exact zeros and ones, one p-value, many
    from fairstats.multiplicity import _holm

    rng = np.random.default_rng(37)
    for size in (1, 2, 7, 50, 1000):
        p = rng.random(size) ** 4
        p[rng.random(size) < 0.2] = p[0]
        p[rng.random(size) < 0.05] = 0.0
        p[rng.random(size) < 0.05] = 1.0
        np.testing.assert_array_equal(_holm(p), multipletests(p, method="holm")[1])


def test_adjust_leaves_missing_pvalues_out_and_coalesces():
    table = pd.DataFrame(
        {"pvalue_corrected": [0.01, np.nan, 0.02, np.nan], "pvalue": [0.5, 0.03, 0.9, np.nan]}
    )
    only = adjust_pvalues(table, pvalue="pvalue_corrected")
    assert np.isnan(only["pvalue_holm"].iloc[1]) and np.isnan(only["pvalue_holm"].iloc[3])
    assert only["family_size_holm"].iloc[0] == 2
    np.testing.assert_allclose(only["pvalue_holm"].iloc[[0, 2]], [0.02, 0.02])
    both = adjust_pvalues(table, pvalue=["pvalue_corrected", "pvalue"])
    assert both["pvalue_source"].tolist() == ["pvalue_corrected", "pvalue", "pvalue_corrected", ""]
    np.testing.assert_allclose(
        both["pvalue_holm"].iloc[:3], multipletests([0.01, 0.03, 0.02], method="holm")[1]
    )


@pytest.mark.parametrize(
    ("kwargs", "table", "match"),
    [
        ({"method": "sidak_magic"}, BATTERY, "method"),
        ({"pvalue": "pval"}, BATTERY, "missing column.*'pval'.*did you mean 'pvalue'"),
        ({"pvalue": "pvalue", "alpha": 1.5}, BATTERY, "alpha"),
        ({"pvalue": "pvalue", "by": "modle"}, BATTERY, "modle"),
        ({"pvalue": "pvalue"}, BATTERY.assign(pvalue=[0.1, 1.2, 0.3, 0.4]), "outside \\[0, 1\\]"),
        ({"pvalue": "pvalue"}, BATTERY.assign(pvalue=["0.1", "x", "0.3", "0.4"]), "non-numeric"),
    ],
)
def test_adjust_refuses_bad_input(kwargs, table, match):
    with pytest.raises(ValueError, match=match):
        adjust_pvalues(table, **kwargs)


def test_a_repeated_hypothesis_enters_the_family_once():
    # Reference: statsmodels multipletests([0.01, 0.04], method="holm") = [0.02, 0.04]; the third row repeats
    # the first hypothesis (paper B's Table VI repeats Table IV) and gets its adjusted p, not a family of 3.
    t = pd.DataFrame({"pvalue": [0.01, 0.04, 0.01], "hyp": ["fpr", "ppv", "fpr"]})
    out = adjust_pvalues(t, pvalue="pvalue", hypothesis="hyp")
    assert out["pvalue_holm"].round(6).tolist() == [0.02, 0.04, 0.02]
    assert out["family_size_holm"].tolist() == [2, 2, 2]
    without = adjust_pvalues(t, pvalue="pvalue")
    assert without["family_size_holm"].tolist() == [3, 3, 3]
