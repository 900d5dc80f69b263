"""fairstats.multiplicity: Holm / Benjamini-Hochberg adjustment of a battery, verdict tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from fairstats.multiplicity import adjust_pvalues, verdict_table

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


# --------------------------------------------------------------------------------------------------------
# verdict_table
# --------------------------------------------------------------------------------------------------------


def test_verdicts_cover_every_case():
    battery = pd.DataFrame(
        {
            "model": "m",
            "test": [
                "survives",
                "bh_only",
                "bh_only",
                "lost_mult",
                "lost_t",
                "missed",
                "none",
                "two",
                "two",
                "nop",
            ],
            "alpha": [0.05] * 7 + [0.025, 0.025, 0.05],
            "pvalue_corrected": [1e-6, 0.012, 0.012, 0.045, 0.2, 1e-7, 0.7, 0.03, 0.012, np.nan],
            "significant_paper": [True, True, True, True, True, False, False, "True", "False", True],
        }
    )
    v = verdict_table(battery, pvalue="pvalue_corrected")
    verdicts = dict(zip(v["test"], v["verdict"], strict=True))
    assert verdicts == {
        "survives": "violation survives",
        "bh_only": "survives FDR (BH) only",
        "lost_mult": "lost under multiplicity control",
        "lost_t": "lost under the corrected t",
        "missed": "violation the paper did not report",
        "none": "no violation (as the paper)",
        "two": "survives FDR (BH) only",
        "nop": "no p-value",
    }
    two = v.set_index("test").loc["two"]
    # the 0.03 row is not significant at its Bonferroni level 0.025, the 0.012 row is: "any" of the two
    assert two["n_tests"] == 2 and bool(two["corrected"]) and bool(two["paper"])
    adjusted = adjust_pvalues(battery, method="holm", pvalue="pvalue_corrected")
    assert two["pvalue_holm_min"] == pytest.approx(
        adjusted.loc[battery["test"] == "two", "pvalue_holm"].min()
    )
    assert list(v["test"]) == list(dict.fromkeys(battery["test"]))  # battery order kept


def test_verdicts_per_model_family_are_less_strict():
    battery = pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], 5),
            "test": [f"t{i}" for i in range(5)] * 2,
            "pvalue_corrected": [0.006, 0.5, 0.6, 0.7, 0.8] * 2,
            "significant_paper": True,
        }
    )
    overall = verdict_table(battery, pvalue="pvalue_corrected")  # m = 10: 0.006 * 10 = 0.06
    per_model = verdict_table(battery, pvalue="pvalue_corrected", family="model")  # m = 5: 0.006 * 5 = 0.03
    assert not overall["holm"].any()
    assert per_model.loc[per_model["test"] == "t0", "holm"].all()


def test_verdict_table_needs_its_columns():
    with pytest.raises(ValueError, match="significant_paper"):
        verdict_table(BATTERY.rename(columns={"pvalue": "pvalue_corrected"}))


def test_a_repeated_hypothesis_enters_the_family_once():
    # Reference: statsmodels multipletests([0.01, 0.04], method="holm") = [0.02, 0.04]; the third row repeats
    # the first hypothesis (paper B's Table VI repeats Table IV) and gets its adjusted p, not a family of 3.
    t = pd.DataFrame({"pvalue": [0.01, 0.04, 0.01], "hyp": ["fpr", "ppv", "fpr"]})
    out = adjust_pvalues(t, pvalue="pvalue", hypothesis="hyp")
    assert out["pvalue_holm"].round(6).tolist() == [0.02, 0.04, 0.02]
    assert out["family_size_holm"].tolist() == [2, 2, 2]
    without = adjust_pvalues(t, pvalue="pvalue")
    assert without["family_size_holm"].tolist() == [3, 3, 3]
