"""fairstats.inference: multiplicity control, bootstrap intervals, no-fold outcome tests, fold-aware
intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats import proportion as sm_proportion
from statsmodels.stats.multitest import multipletests

from fairstats import inference
from fairstats.confusion import confusion_parity_error, confusion_table
from fairstats.inference import (
    OUTCOME_TESTS,
    adjust_pvalues,
    bootstrap_cramers_v,
    bootstrap_disparity,
    fold_disparity,
    group_labels,
    outcome_tests,
    verdict_table,
)
from fairstats.metrics import group_metrics
from fairstats.ttests import fold_ttest


def _people(seed: int = 0, n: int = 300, *, groups=("a", "b"), score: bool = False) -> pd.DataFrame:
    """Random people with a group, 0/1 labels (group a predicted 1 more often) and a score on a 0.05 grid."""
    rng = np.random.default_rng(seed)
    g = rng.choice(list(groups), n)
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < np.where(g == groups[0], 0.6, 0.4)).astype(int)
    frame = pd.DataFrame({"g": g, "y": y, "p": p})
    if score:
        frame["s"] = np.round(rng.random(n) * 20) / 20
    return frame


SMALL = _people(0, 80, score=True)
MEDIUM = _people(1, 600, score=True)


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
    v = verdict_table(battery)
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
    overall = verdict_table(battery)  # m = 10: 0.006 * 10 = 0.06
    per_model = verdict_table(battery, family="model")  # m = 5: 0.006 * 5 = 0.03
    assert not overall["holm"].any()
    assert per_model.loc[per_model["test"] == "t0", "holm"].all()


def test_verdict_table_needs_its_columns():
    with pytest.raises(ValueError, match="significant_paper"):
        verdict_table(BATTERY.rename(columns={"pvalue": "pvalue_corrected"}))


# --------------------------------------------------------------------------------------------------------
# bootstrap_disparity
# --------------------------------------------------------------------------------------------------------


def test_bootstrap_is_seeded_and_deterministic():
    kwargs = dict(group="g", y_true="y", y_pred="p", y_score="s", n_resamples=300)
    first = bootstrap_disparity(MEDIUM, rng=7, **kwargs)
    second = bootstrap_disparity(MEDIUM, rng=7, **kwargs)
    other = bootstrap_disparity(MEDIUM, rng=8, **kwargs)
    np.testing.assert_array_equal(first.bootstrap_distribution, second.bootstrap_distribution)
    pd.testing.assert_frame_equal(first.to_frame(), second.to_frame())
    assert not np.array_equal(first.bootstrap_distribution, other.bootstrap_distribution)
    generator = bootstrap_disparity(MEDIUM, rng=np.random.default_rng(7), **kwargs)
    np.testing.assert_array_equal(first.bootstrap_distribution, generator.bootstrap_distribution)


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_interval_contains_the_estimate(method):
    res = bootstrap_disparity(
        MEDIUM, group="g", y_true="y", y_pred="p", y_score="s", n_resamples=999, rng=1, method=method
    )
    assert (res.ci_low < res.estimate).all() and (res.estimate < res.ci_high).all()
    assert (res.ci_method == method).all()
    assert res.bootstrap_distribution.shape == (999, len(res.metrics))


def test_estimates_equal_group_metrics_and_are_oriented_a_minus_b():
    res = bootstrap_disparity(
        MEDIUM,
        group="g",
        y_true="y",
        y_pred="p",
        y_score="s",
        favorable=0,
        groups=("b", "a"),
        n_resamples=50,
        rng=0,
    )
    wide = group_metrics(
        MEDIUM, y_true="y", y_pred="p", y_score="s", group="g", fold=None, by=(), favorable=0, form="wide"
    ).set_index("g")
    for metric in res.metrics:
        assert res.value_a[metric] == pytest.approx(wide.loc["b", metric], rel=1e-12)
        assert res.value_b[metric] == pytest.approx(wide.loc["a", metric], rel=1e-12)
        assert res.estimate[metric] == pytest.approx(wide.loc["b", metric] - wide.loc["a", metric], rel=1e-12)
    frame = res.to_frame()
    assert frame["metric"].tolist() == list(res.metrics)
    assert (frame["group_a"] == "b").all() and (frame["n_a"] == (MEDIUM["g"] == "b").sum()).all()


class _Distribution:
    """Stand-in for a scipy BootstrapResult: scipy.stats.bootstrap only reads ``bootstrap_distribution``."""

    def __init__(self, values):
        self.bootstrap_distribution = values


def _scipy_statistic(frame: pd.DataFrame, metric: str, fav: int = 1):
    """The metric difference a - b as a vectorised function of resampled row indices (scipy's bootstrap)."""
    parts = {g: frame[frame["g"] == g] for g in ("a", "b")}

    def values(idx, g):
        part = parts[g]
        y, p, s = (part[c].to_numpy()[np.asarray(idx, dtype=int)] for c in ("y", "p", "s"))
        tf, pf = y == fav, p == fav
        counts = np.stack(
            [(pf & tf).sum(-1), (pf & ~tf).sum(-1), (~pf & tf).sum(-1), (~pf & ~tf).sum(-1)], -1
        )
        sums = np.stack([(s * tf).sum(-1), (s * ~tf).sum(-1)], -1)
        return inference._metric_values(counts.astype(float), sums, [metric])[..., 0]

    return lambda ia, ib, axis=-1: values(ia, "a") - values(ib, "b")


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_interval_equals_scipy_bootstrap_on_the_same_distribution(method):
    # scipy's BCa jackknife leaves out each person; ours each category once, weighted: same values
    res = bootstrap_disparity(
        SMALL, group="g", y_true="y", y_pred="p", y_score="s", n_resamples=1500, rng=4, method=method
    )
    n_a, n_b = int((SMALL["g"] == "a").sum()), int((SMALL["g"] == "b").sum())
    for j, metric in enumerate(res.metrics):
        boot = res.bootstrap_distribution[:, j]
        if np.isnan(boot).any():
            continue
        ref = stats.bootstrap(
            (np.arange(n_a), np.arange(n_b)),
            _scipy_statistic(SMALL, metric),
            n_resamples=0,
            bootstrap_result=_Distribution(boot),
            method=method,
            vectorized=True,
        ).confidence_interval
        assert res.ci_low[metric] == pytest.approx(ref.low, rel=1e-10, abs=1e-12), metric
        assert res.ci_high[metric] == pytest.approx(ref.high, rel=1e-10, abs=1e-12), metric


def test_multinomial_resampling_has_the_spread_of_resampling_people():
    # same bootstrap distribution as scipy's own resampling of people: standard errors agree within MC error
    res = bootstrap_disparity(
        MEDIUM,
        group="g",
        y_true="y",
        y_pred="p",
        y_score="s",
        metrics=["ppr", "tpr"],
        n_resamples=4000,
        rng=2,
        method="percentile",
    )
    n_a, n_b = int((MEDIUM["g"] == "a").sum()), int((MEDIUM["g"] == "b").sum())
    for j, metric in enumerate(res.metrics):
        ref = stats.bootstrap(
            (np.arange(n_a), np.arange(n_b)),
            _scipy_statistic(MEDIUM, metric),
            n_resamples=4000,
            vectorized=True,
            rng=3,
            method="percentile",
        )
        assert np.std(res.bootstrap_distribution[:, j], ddof=1) == pytest.approx(ref.standard_error, rel=0.08)


def test_index_resampling_for_continuous_scores(monkeypatch):
    continuous = MEDIUM.assign(s=np.random.default_rng(5).random(len(MEDIUM)))
    kwargs = dict(group="g", y_true="y", y_pred="p", y_score="s", n_resamples=1500, method="percentile")
    by_index = bootstrap_disparity(
        continuous, rng=1, **kwargs
    )  # > 256 distinct scores: people drawn by index
    monkeypatch.setattr(inference, "_MAX_MULTINOMIAL_CATEGORIES", 10**9)
    multinomial = bootstrap_disparity(continuous, rng=1, **kwargs)
    assert not np.array_equal(by_index.bootstrap_distribution, multinomial.bootstrap_distribution)
    sd_index = np.nanstd(by_index.bootstrap_distribution, axis=0, ddof=1)
    sd_multi = np.nanstd(multinomial.bootstrap_distribution, axis=0, ddof=1)
    np.testing.assert_allclose(sd_index, sd_multi, rtol=0.1)
    np.testing.assert_allclose(by_index.estimate, multinomial.estimate, rtol=1e-12)


def test_undefined_resamples_are_counted_and_warned():
    tiny = pd.DataFrame(
        {"g": ["a"] * 3 + ["b"] * 30, "y": [0, 0, 1] + [0, 1] * 15, "p": [1, 0, 0] + [1, 0] * 15}
    )
    with pytest.warns(inference.UndefinedResampleWarning, match="ppv"):
        res = bootstrap_disparity(
            tiny, group="g", y_true="y", y_pred="p", metrics=["ppv"], n_resamples=500, rng=0
        )
    assert 0 < res.n_undefined["ppv"] < 500
    assert np.isfinite(res.ci_low["ppv"])


def test_intersectional_labels_match_confusion_table():
    frame = MEDIUM.assign(h=np.where(np.arange(len(MEDIUM)) % 3 == 0, "x", "y"))
    labels = group_labels(frame, ["g", "h"])
    table = confusion_table(frame, group=["g", "h"], y_true="y", y_pred="p")
    assert sorted(labels.unique()) == sorted(table.index)
    res = bootstrap_disparity(
        frame,
        group=["g", "h"],
        y_true="y",
        y_pred="p",
        groups=("a - x", "b - y"),
        metrics=["ppr"],
        n_resamples=20,
        rng=0,
    )
    assert res.n_a == int(((frame["g"] == "a") & (frame["h"] == "x")).sum())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"groups": ("a", "c")}, "group 'c' does not occur"),
        ({"groups": ("a", "a")}, "same group twice"),
        ({"metrics": ["ppr", "tpx"]}, "unknown metric 'tpx'"),
        ({"metrics": ["mean_score_pos"], "y_score": None}, "needs `y_score`"),
        ({"favorable": 2}, "favorable"),
        ({"method": "bca"}, "method"),
        ({"confidence_level": 95}, "confidence_level"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"y_true": "why"}, "missing column.*'why'"),
    ],
)
def test_bootstrap_refuses_bad_input(kwargs, match):
    args = dict(group="g", y_true="y", y_pred="p", y_score="s", n_resamples=10, rng=0) | kwargs
    with pytest.raises(ValueError, match=match):
        bootstrap_disparity(SMALL, **args)


def test_bootstrap_needs_two_groups_named_when_there_are_more():
    three = _people(2, 90, groups=("a", "b", "c"))
    with pytest.raises(ValueError, match="3 groups"):
        bootstrap_disparity(three, group="g", y_true="y", y_pred="p", n_resamples=10)
    with pytest.raises(ValueError, match="has value 2; expected 0/1 labels"):
        bootstrap_disparity(SMALL.assign(y=SMALL["y"] * 2), group="g", y_true="y", y_pred="p", n_resamples=10)


# --------------------------------------------------------------------------------------------------------
# bootstrap_cramers_v
# --------------------------------------------------------------------------------------------------------


def test_cramers_v_interval_seeded_and_equal_to_scipy():
    frame = _people(6, 120, groups=("a", "b", "c"))
    res = bootstrap_cramers_v(frame, group="g", y_true="y", y_pred="p", n_resamples=800, rng=1)
    again = bootstrap_cramers_v(frame, group="g", y_true="y", y_pred="p", n_resamples=800, rng=1)
    np.testing.assert_array_equal(res.bootstrap_distribution, again.bootstrap_distribution)
    assert res.statistic == pytest.approx(
        confusion_parity_error(frame, group="g", y_true="y", y_pred="p"), rel=1e-12
    )
    assert res.ci_low < res.statistic < res.ci_high and res.ci_method == "BCa"
    observed = confusion_table(frame, group="g", y_true="y", y_pred="p").to_numpy()
    samples = [np.repeat(np.arange(observed.shape[1]), row) for row in observed]

    def statistic(*resampled, axis=-1):
        tables = np.stack(
            [(np.asarray(s)[..., None] == np.arange(observed.shape[1])).sum(-2) for s in resampled], -2
        )
        return inference._cramers_v(tables)

    ref = stats.bootstrap(
        samples,
        statistic,
        n_resamples=0,
        bootstrap_result=_Distribution(res.bootstrap_distribution),
        method="BCa",
        vectorized=True,
    ).confidence_interval
    assert (res.ci_low, res.ci_high) == pytest.approx((ref.low, ref.high), rel=1e-10)
    record = res.to_frame().iloc[0]
    assert record["grouping"] == "g" and record["n"] == 120 and record["n_groups"] == 3


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


# --------------------------------------------------------------------------------------------------------
# fold_disparity
# --------------------------------------------------------------------------------------------------------


def test_fold_disparity_interval_is_the_corrected_t_inverted():
    frame = _people(9, 800).assign(fold=np.arange(800) % 8)
    res = fold_disparity(frame, group="g", y_true="y", y_pred="p", fold="fold", metrics=["ppr", "fpr"])
    table = res.to_frame().set_index("metric")
    wide = group_metrics(
        frame, y_true="y", y_pred="p", group="g", fold="fold", by=(), favorable=1, form="wide"
    )
    a = wide[wide["g"] == "a"].set_index("fold")["ppr"].to_numpy()
    b = wide[wide["g"] == "b"].set_index("fold")["ppr"].to_numpy()
    d = a - b
    k = len(d)
    half = stats.t.isf(0.025, k - 1) * np.sqrt((1 / k + 1 / (k - 1)) * d.var(ddof=1))  # Nadeau & Bengio
    assert table.loc["ppr", "ci_low"] == pytest.approx(d.mean() - half, rel=1e-12)
    assert table.loc["ppr", "ci_high"] == pytest.approx(d.mean() + half, rel=1e-12)
    ref = fold_ttest(a, b)
    assert table.loc["ppr", "pvalue_corrected"] == pytest.approx(ref.pvalue_corrected, rel=1e-12)
    assert table.loc["ppr", "statistic_paper_formula"] == pytest.approx(
        ref.statistic_paper_formula, rel=1e-12
    )
    assert set(res.per_fold["metric"]) == {"ppr", "fpr"} and len(res.per_fold) == 16


def test_fold_disparity_reports_metrics_it_cannot_test():
    frame = _people(9, 400).assign(fold=np.arange(400) % 4)
    frame.loc[(frame["g"] == "a") & (frame["fold"] > 0), "y"] = 1  # group a: actual 0 only in fold 0
    res = fold_disparity(frame, group="g", y_true="y", y_pred="p", fold="fold", metrics=["ppr", "fpr"])
    table = res.to_frame().set_index("metric")
    assert np.isfinite(table.loc["ppr", "pvalue_corrected"])
    assert np.isnan(table.loc["fpr", "pvalue_corrected"]) and "not tested" in table.loc["fpr", "note"]
