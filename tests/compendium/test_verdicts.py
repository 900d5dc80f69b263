"""compendium.paper_b.verdicts: which of paper B's violations survive (moved from the library's tests with
verdict_table, issue 24: tests/library/test_multiplicity.py and test_hostile_inputs.py; the same numbers)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from compendium.paper_b.verdicts import PAPER_VERDICTS, verdict_table
from fairstats import adjust_pvalues

BATTERY = pd.DataFrame(
    {
        "model": ["lr", "lr", "rf", "rf"],
        "test": ["t1", "t2", "t1", "t2"],
        "pvalue": [0.01, 0.04, 0.03, 0.005],
    }
)


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


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([True, False, True], ["violation survives", "no violation (as the paper)", "violation survives"]),
        (
            ["yes", "No", " TRUE "],
            ["violation survives", "no violation (as the paper)", "violation survives"],
        ),
        (["1", "0", 1.0], ["violation survives", "no violation (as the paper)", "violation survives"]),
        ([1, 0, "1.0"], ["violation survives", "no violation (as the paper)", "violation survives"]),
    ],
)
def test_verdict_table_accepts_the_documented_spellings(values, expected):
    battery = pd.DataFrame(
        {
            "model": "lr",
            "test": ["a", "b", "c"],
            "pvalue_corrected": [0.001, 0.2, 0.002],
            "significant_paper": values,
        }
    )
    assert verdict_table(battery, pvalue="pvalue_corrected")["verdict"].tolist() == expected


@pytest.mark.parametrize("bad", ["maybe", 2, np.nan, None, "", 0.5])
def test_verdict_table_refuses_other_spellings(bad):
    battery = pd.DataFrame(
        {
            "model": "lr",
            "test": ["a", "b"],
            "pvalue_corrected": [0.001, 0.2],
            "significant_paper": [True, bad],
        }
    )
    with pytest.raises(ValueError, match=r"`battery` column 'significant_paper', row 1: .* is not a verdict"):
        verdict_table(battery, pvalue="pvalue_corrected")




def test_every_verdict_is_declared():
    battery = pd.DataFrame(
        {"model": "m", "test": ["a", "b"], "pvalue": [1e-6, 0.9], "significant_paper": True}
    )
    assert set(verdict_table(battery)["verdict"]) <= set(PAPER_VERDICTS)


def test_a_missing_by_value_is_refused():
    battery = pd.DataFrame(
        {"model": ["lr", None], "test": ["a", "b"], "pvalue": [0.1, 0.2], "significant_paper": True}
    )
    with pytest.raises(ValueError, match=r"column 'model' has 1 missing value\(s\) \(NaN\), first at row 1"):
        verdict_table(battery)
