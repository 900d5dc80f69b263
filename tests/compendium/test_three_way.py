"""Paper B's battery with three-way verdicts (compendium.paper_b.three_way, issue 12)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.power import NormalIndPower

from compendium.paper_b.three_way import battery_three_way, conclusions_three_way, power_curve


def _battery():
    # Two models x (ppr, ppv) + one McNemar row without a t: estimate / statistic_corrected = se.
    return pd.DataFrame(
        {
            "model": ["lr", "lr", "rf", "rf", "lr"],
            "test": ["group_fairness", "predictive_parity", "group_fairness", "predictive_parity", "causal"],
            "metric": ["ppr", "ppv", "ppr", "ppv", "prediction_vs_counterfactual"],
            "alternative": ["greater", "greater", "greater", "two-sided", "two-sided"],
            "estimate": [0.15, 0.01, 0.002, 0.03, np.nan],
            "statistic_corrected": [10.0, 0.5, 0.4, 0.6, np.nan],
            "df_corrected": [249.0] * 4 + [np.nan],
            "n_pairs": [250] * 5,
            "n_white": [250] * 5,
            "n_black": [250] * 5,
            "pvalue_correct": [1e-12, 0.3, 0.35, 0.55, 0.5],
        }
    )


def test_battery_three_way_verdicts_and_tost():
    out = battery_three_way(_battery(), margin=0.1)
    expected = ["disparity", "equivalent", "equivalent", "inconclusive", "inconclusive"]
    assert out["verdict"].tolist() == expected
    # TOST by hand on the ppv row of lr: se = 0.01 / 0.5 = 0.02, df 249
    se = 0.02
    p = max(stats.t.sf((0.01 + 0.1) / se, 249), stats.t.cdf((0.01 - 0.1) / se, 249))
    assert out.loc[1, "equivalence_pvalue"] == pytest.approx(p, rel=1e-12)
    assert out.loc[4, "verdict_note"] == "no equivalence test for this comparison"
    # a real difference inside the margin (0.05, se 0.005) is equivalent, with the note
    small = battery_three_way(_battery().assign(estimate=[0.05, 0.01, 0.002, 0.03, np.nan]), margin=0.1)
    assert small.loc[0, "verdict"] == "equivalent"
    assert small.loc[0, "verdict_note"] == "real but within the margin"
    gf = conclusions_three_way({"a": small}, labels={"lr": "LR"}).set_index("test").loc["group_fairness"]
    assert gf["equivalent"] == "all" and gf["real_within_margin"] == "LR"
    assert gf["reading"] == "equivalent within ±0.1 in every model (a real but smaller difference: LR)"
    conclusions = conclusions_three_way({"authors": out}, labels={"lr": "LR", "rf": "RF"})
    pp = conclusions.set_index("test").loc["predictive_parity"]
    assert pp["equivalent"] == "LR" and pp["inconclusive"] == "RF" and pp["reading"] == "mixed"
    assert conclusions.set_index("test").loc["causal", "reading"].startswith("absence of evidence")


def test_power_curve_matches_statsmodels_and_grows():
    curve = power_curve(np.array([0.0, 0.02, 0.05]), sd_fold=0.1, n_a=2000, n_b=3000, rate_b=0.3)
    assert curve["power_folds"].iloc[0] == pytest.approx(0.05, abs=1e-9)
    assert curve["power_folds"].is_monotonic_increasing
    assert curve["power_single_split"].is_monotonic_increasing
    h = 2 * np.arcsin(np.sqrt(0.35)) - 2 * np.arcsin(np.sqrt(0.3))
    ref = NormalIndPower().power(h, nobs1=2000, alpha=0.05, ratio=1.5)
    assert curve["power_single_split"].iloc[2] == pytest.approx(ref, rel=1e-12)
