"""disparity_change and fold_disparity_change: planted changes, the verdicts' directions, small groups, input
checks, and simulations of size (the models differ in accuracy, not in disparity), power and coverage.

Reference values (DTComPair, a brute-force paired bootstrap, the corrected t by hand) are in
``tests/library/reference/test_disparity_change_reference.py``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from fairstats import (
    Counts,
    DisparityChangeResult,
    UndefinedTestWarning,
    disparity_change,
    disparity_change_verdicts,
    fold_disparity_change,
)
from fairstats.disparity_change import CHANGE_VERDICTS, DISPARITY_CHANGE_COLUMNS

KW = dict(group="g", y_true="y", y_pred="new", y_pred_baseline="old")


@pytest.fixture
def no_gc_in_holm(monkeypatch):
    """statsmodels' ``multipletests`` calls ``gc.collect()`` on every call (0.1 s); the simulations switch
    that off (it changes no number)."""
    import gc

    monkeypatch.setattr(gc, "collect", lambda *args: 0)


# --------------------------------------------------------------------------------------------------------
# designs: each group's people drawn over the eight cells of (outcome, baseline decision, new decision)
# --------------------------------------------------------------------------------------------------------


def cell_probabilities(prevalence, tpr_old, fpr_old, tpr_new, fpr_new, agree):
    """Probabilities of the eight cells (truth, old, new) of one group: the outcome with ``prevalence``, the
    baseline's decision with its TPR and FPR, the new model's a copy of the baseline's with probability
    ``agree`` and otherwise drawn to give the new TPR and FPR."""
    p = {}
    for t, prev in ((1, prevalence), (0, 1 - prevalence)):
        r_old = tpr_old if t else fpr_old
        r_new = tpr_new if t else fpr_new
        fresh = (r_new - agree * r_old) / (1 - agree)  # the new decision when it is not copied
        assert 0 <= fresh <= 1, "design: the new rate is out of reach at this agreement"
        for old in (1, 0):
            p_old = r_old if old else 1 - r_old
            for new in (1, 0):
                copied = agree * (new == old)
                drawn = (1 - agree) * (fresh if new else 1 - fresh)
                p[t, old, new] = prev * p_old * (copied + drawn)
    return p


def draw(rng, designs: dict[str, dict], sizes: dict[str, int]) -> Counts:
    """A Counts of one data set: each group's people drawn from its cell probabilities."""
    rows = []
    for g, p in designs.items():
        keys = list(p)
        counts = rng.multinomial(sizes[g], np.array([p[k] for k in keys]))
        rows += [(g, *k, c) for k, c in zip(keys, counts, strict=True) if c]
    table = pd.DataFrame(rows, columns=["g", "y", "old", "new", "n"])
    return Counts.from_table(table, keys=["g", "y", "old", "new"])


def true_rate(p, metric, model):
    """The population value of ``metric`` for ``model`` (1: old, 2: new) from the cell probabilities."""

    def share(cond):
        return sum(v for k, v in p.items() if cond(k[0], k[model]))

    num, den = {
        "ppr": (lambda t, d: d == 1, lambda t, d: True),
        "tpr": (lambda t, d: d == 1 and t == 1, lambda t, d: t == 1),
        "fpr": (lambda t, d: d == 1 and t == 0, lambda t, d: t == 0),
        "ppv": (lambda t, d: d == 1 and t == 1, lambda t, d: d == 1),
        "accuracy": (lambda t, d: d == t, lambda t, d: True),
    }[metric]
    return share(num) / share(den)


# Null design (size): the new model is more accurate (TPR + 0.06, FPR - 0.06 in both groups) with the same
# prevalence, so the disparities of PPR, TPR, FPR and accuracy are the same for both models (0.10, 0.10,
# 0.10, 0); the models agree on 70 % of the people.
NULL = {
    "a": cell_probabilities(0.4, 0.60, 0.30, 0.66, 0.24, 0.7),
    "b": cell_probabilities(0.4, 0.50, 0.20, 0.56, 0.14, 0.7),
}
NULL_METRICS = ["ppr", "tpr", "fpr", "accuracy"]


def test_the_null_design_has_equal_disparities_and_unequal_accuracies():
    for m in NULL_METRICS:
        d_old = true_rate(NULL["a"], m, 1) - true_rate(NULL["b"], m, 1)
        d_new = true_rate(NULL["a"], m, 2) - true_rate(NULL["b"], m, 2)
        assert d_new == pytest.approx(d_old, abs=1e-12), m
    assert true_rate(NULL["a"], "accuracy", 2) - true_rate(NULL["a"], "accuracy", 1) == pytest.approx(0.06)


def rejections(rng, designs, sizes, reps, metrics=NULL_METRICS, **kw):
    """Per metric, the share of data sets that reject at 0.05 the change test (the two-sided z of Delta, from
    ``statistic``) and the verdict's test (``pvalue``: fairer or less fair); the share whose Holm family
    (the verdicts) rejects anything; and the share that finds the new model more accurate (the gain, 0.06,
    is within the margin 0.1: the verdict is ``equivalent``, "real but within the margin (better)")."""
    from scipy import stats

    change = {m: 0 for m in metrics}
    verdict = {m: 0 for m in metrics}
    family = better = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no row may be undefined in these designs
        for _ in range(reps):
            t = disparity_change(draw(rng, designs, sizes), metrics=metrics, reference="b", **KW, **kw).table
            fair = t[t["family"] == "fairness"].set_index("metric")
            for m in metrics:
                change[m] += 2 * stats.norm.sf(abs(fair.loc[m, "statistic"])) < 0.05
                verdict[m] += fair.loc[m, "pvalue"] < 0.05
            family += (fair["pvalue_adj"] < 0.05).any()
            acc = t[t["family"] == "accuracy"].iloc[0]
            better += acc["pvalue_adj"] < 0.05 and acc["pvalue_better"] < acc["pvalue_worse"]
    share = lambda counts: {m: h / reps for m, h in counts.items()}  # noqa: E731
    return share(change), share(verdict), family / reps, better / reps


def test_size_when_only_accuracy_differs_quick(no_gc_in_holm):
    """200 data sets of 1,000 + 1,000 people: the change test rejects each unchanged disparity at a rate
    within 3 Monte Carlo standard errors (0.046) of 0.05, the verdict's test at most that (it equals the
    change test when both disparities lie far from 0, and is conservative near 0: the accuracy disparity is
    0), and the accuracy gain (0.06) is found nearly always."""
    change, verdict, family, better = rejections(np.random.default_rng(1), NULL, {"a": 1000, "b": 1000}, 200)
    bound = 3 * np.sqrt(0.05 * 0.95 / 200)
    for m in NULL_METRICS:
        assert abs(change[m] - 0.05) < bound, (m, change[m])
        assert verdict[m] <= change[m] and verdict[m] < 0.05 + bound, (m, verdict[m])
    assert family <= 0.05 + bound
    assert better > 0.95


@pytest.mark.slow
@pytest.mark.parametrize("size, reps", [(300, 4000), (3000, 2000)])
def test_size_when_only_accuracy_differs(no_gc_in_holm, size, reps):
    """The change test's rejection rate within 3 Monte Carlo standard errors of 0.05 for each unchanged
    disparity (300 + 300 people: 4,000 data sets, 3 se = 0.010; 3,000 + 3,000: 2,000 data sets, 0.015); the
    verdict's test at most 0.05 + 3 se, and within 3 se of 0.05 where both disparities (0.10) lie far from 0
    (PPR and FPR at 3,000 + 3,000: about 5 standard errors); Holm's family-wise rate at most 0.05 + 3 se."""
    change, verdict, family, _ = rejections(np.random.default_rng(size), NULL, {"a": size, "b": size}, reps)
    se = np.sqrt(0.05 * 0.95 / reps)
    for m in NULL_METRICS:
        assert abs(change[m] - 0.05) < 3 * se, (m, change[m])
        assert verdict[m] < 0.05 + 3 * se, (m, verdict[m])
    if size == 3000:
        for m in ("ppr", "fpr"):
            assert abs(verdict[m] - 0.05) < 3 * se, (m, verdict[m])
    assert family < 0.05 + 3 * se, family


# Alternative (power): the new model halves the TPR disparity (0.10 -> 0.05) and leaves FPR's.
def planted(agree=0.7, tpr_a=0.60):
    """TPR of group b 0.50 -> 0.55, of group a ``tpr_a`` for both models: the disparity ``tpr_a`` - 0.5
    shrinks by 0.05 (0.10 -> 0.05 by default: the new one near 0 for its standard error; 0.20 -> 0.15 with
    0.70)."""
    return {
        "a": cell_probabilities(0.4, tpr_a, 0.30, tpr_a, 0.30, agree),
        "b": cell_probabilities(0.4, 0.50, 0.20, 0.55, 0.20, agree),
    }


def test_a_planted_disparity_change_is_found_fairer():
    """TPR disparity 0.10 -> 0.05 for 5,000 + 5,000 people (power near 1; margin 0.02, so that the change is
    beyond it): ``fairer``, with the estimate near
    -0.05 and an interval holding it; FPR's unchanged disparity is not ``fairer``; swapping the two models
    reads ``less fair`` with the opposite estimate and the same p-value."""
    data = draw(np.random.default_rng(7), planted(), {"a": 5000, "b": 5000})
    t = disparity_change(data, metrics=["tpr", "fpr"], reference="b", margin=0.02, **KW).table
    t = t.set_index("metric")
    assert t.loc["tpr", "verdict"] == "fairer"
    assert t.loc["tpr", "ci_low"] < -0.05 < t.loc["tpr", "ci_high"]
    assert t.loc["fpr", "verdict"] not in ("fairer", "less fair")
    swapped = disparity_change(
        data,
        metrics=["tpr", "fpr"],
        reference="b",
        margin=0.02,
        group="g",
        y_true="y",
        y_pred="old",
        y_pred_baseline="new",
    ).table.set_index("metric")
    assert swapped.loc["tpr", "verdict"] == "less fair"
    assert swapped.loc["tpr", "estimate"] == pytest.approx(-t.loc["tpr", "estimate"], abs=1e-12)
    assert swapped.loc["tpr", "pvalue"] == pytest.approx(t.loc["tpr", "pvalue"], rel=1e-9)
    assert swapped.loc["tpr", "pvalue_better"] == pytest.approx(t.loc["tpr", "pvalue_worse"], rel=1e-9)


def test_power_against_a_planted_change_quick(no_gc_in_holm):
    """TPR disparity 0.10 -> 0.05 with 2,000 + 2,000 people: the change is found most of the time (50 data
    sets; the slow test measures the power)."""
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(50):
        t = disparity_change(
            draw(rng, planted(), {"a": 2000, "b": 2000}), metrics=["tpr"], reference="b", margin=0.02, **KW
        ).table
        found += t.loc[0, "verdict"] == "fairer"
    assert found / 50 > 0.6


def power(designs, reps, seed):
    """Over ``reps`` data sets of 2,000 + 2,000 people: the share that reads ``fairer`` (margin 0.02), the
    share whose change test (the z of Delta) rejects at 0.05, and the normal approximation's power of the
    change test at the median standard error, Phi(0.05 / se - z_0.975)."""
    from scipy import stats

    rng = np.random.default_rng(seed)
    fairer, change, ses = [], [], []
    for _ in range(reps):
        t = disparity_change(
            draw(rng, designs, {"a": 2000, "b": 2000}), metrics=["tpr"], reference="b", margin=0.02, **KW
        ).table.iloc[0]
        fairer.append(t["verdict"] == "fairer")
        change.append(2 * stats.norm.sf(abs(t["statistic"])) < 0.05)
        ses.append(t["estimate"] / t["statistic"])
    return np.mean(fairer), np.mean(change), stats.norm.cdf(0.05 / np.median(ses) - stats.norm.ppf(0.975))


@pytest.mark.slow
@pytest.mark.parametrize("tpr_a", [0.70, 0.60])
def test_power_against_a_planted_change(no_gc_in_holm, tpr_a):
    """2,000 data sets: the change test's power against a TPR disparity shrunk by 0.05 is the normal
    approximation's, within 3 Monte Carlo standard errors (0.03). From 0.20 to 0.15 the verdict reads
    ``fairer`` as often; from 0.10 to 0.05 less often, and never more: "fairer" also needs the new disparity
    shown not to overshoot to the other side (D_new + D_base > 0), which costs power when the new disparity is
    near 0 for its standard error."""
    fairer, change, expected = power(planted(tpr_a=tpr_a), 2000, 12)
    bound = 3 * np.sqrt(expected * (1 - expected) / 2000)
    assert abs(change - expected) < bound, (change, expected)
    assert fairer <= change
    if tpr_a == 0.70:
        assert abs(fairer - expected) < bound, (fairer, expected)


# --------------------------------------------------------------------------------------------------------
# small groups: coverage, and never a degenerate interval reading "fairer"
# --------------------------------------------------------------------------------------------------------


def coverage(rng, designs, sizes, reps, metrics):
    """Per metric: the share of defined intervals that hold the true change, and the share undefined."""
    truth = {
        m: (true_rate(designs["a"], m, 2) - true_rate(designs["b"], m, 2))
        - (true_rate(designs["a"], m, 1) - true_rate(designs["b"], m, 1))
        for m in metrics
    }
    held = {m: [] for m in metrics}
    undefined = {m: 0 for m in metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedTestWarning)
        for _ in range(reps):
            t = disparity_change(draw(rng, designs, sizes), metrics=metrics, reference="b", **KW).table
            t = t[t["family"] == "fairness"].set_index("metric")
            for m in metrics:
                if t.loc[m, "verdict"] == "undefined":
                    undefined[m] += 1
                else:
                    held[m].append(t.loc[m, "ci_low"] <= truth[m] <= t.loc[m, "ci_high"])
    return {m: np.mean(h) for m, h in held.items()}, {m: u / reps for m, u in undefined.items()}


# Small groups whose two models rarely disagree (agreement 0.85): few discordant people per group.
SMALL = {
    "a": cell_probabilities(0.4, 0.60, 0.30, 0.64, 0.26, 0.85),
    "b": cell_probabilities(0.4, 0.50, 0.20, 0.52, 0.18, 0.85),
}


def test_small_groups_keep_coverage_quick(no_gc_in_holm):
    """40 + 60 people, models agreeing on 85 % or more: 200 data sets; the 95 % intervals of PPR, TPR and FPR
    cover at least 0.90 (3 Monte Carlo standard errors below 0.95 is 0.904)."""
    held, _ = coverage(np.random.default_rng(21), SMALL, {"a": 40, "b": 60}, 200, ["ppr", "tpr", "fpr"])
    for m, c in held.items():
        assert c > 0.90, (m, c)


@pytest.mark.slow
@pytest.mark.parametrize("n_a, n_b", [(20, 30), (40, 60), (100, 150)])
def test_small_groups_keep_coverage(no_gc_in_holm, n_a, n_b):
    """3,000 data sets: the 95 % intervals of PPR, TPR, FPR, PPV and accuracy cover at least 0.95 - 3 Monte
    Carlo standard errors (0.938) where defined; undefined rows (a PPV with nobody selected) say why."""
    held, _ = coverage(
        np.random.default_rng(n_a),
        SMALL,
        {"a": n_a, "b": n_b},
        3000,
        ["ppr", "tpr", "fpr", "ppv", "accuracy"],
    )
    for m, c in held.items():
        assert c > 0.95 - 3 * np.sqrt(0.05 * 0.95 / 3000), (m, c)


def test_identical_decisions_in_tiny_groups_are_never_fairer_and_a_zero_variance_is_undefined():
    """Ten people per group and two models that decide alike: the change is 0 with a positive variance
    (the pseudo-count), so the verdict is ``equivalent`` or ``inconclusive``, never ``fairer``; with the
    plain delta method (``pseudo_count=0``) the variance is 0 and the row is ``undefined`` with a reason."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {"g": np.repeat(["a", "b"], 10), "y": rng.integers(0, 2, 20), "old": rng.integers(0, 2, 20)}
    ).assign(new=lambda f: f["old"])
    t = disparity_change(frame, metrics=["ppr", "tpr"], **KW).table
    assert set(t["verdict"]) <= {"equivalent", "inconclusive"}
    assert (t["estimate"] == 0).all() and (t["ci_high"] > t["ci_low"]).all()
    with pytest.warns(UndefinedTestWarning, match="no variance"):
        plain = disparity_change(frame, metrics=["ppr"], pseudo_count=0, **KW).table
    assert (plain["verdict"] == "undefined").all()
    assert plain["reason"].str.contains("no variance").all()
    assert plain["ci_low"].isna().all() and plain["pvalue"].isna().all()


def test_an_undefined_metric_is_undefined_with_its_reason():
    """Nobody in group a gets the favourable decision from the baseline: its PPV is undefined; on the ratio
    scale a rate of 0 is too."""
    frame = pd.DataFrame(
        {
            "g": ["a"] * 6 + ["b"] * 6,
            "y": [1, 0] * 6,
            "old": [0] * 6 + [1, 0, 1, 1, 0, 1],
            "new": [1, 0, 0, 1, 0, 0] + [1, 1, 0, 1, 0, 1],
        }
    )
    with pytest.warns(UndefinedTestWarning, match="ppv"):
        t = disparity_change(frame, metrics=["ppv", "tpr"], reference="b", **KW).table.set_index("metric")
    assert t.loc["ppv", "verdict"] == "undefined"
    assert "ppv undefined for the baseline" in t.loc["ppv", "reason"]
    assert t.loc["tpr", "verdict"] != "undefined"
    with pytest.warns(UndefinedTestWarning, match="ratio undefined"):
        r = disparity_change(frame, metrics=["ppr"], scale="ratio", reference="b", **KW).table
    assert r.loc[0, "verdict"] == "undefined" and "ratio undefined" in r.loc[0, "reason"]


def test_a_disparity_that_changes_sign_is_neither_fairer_nor_less_fair():
    """PPR disparity +0.1 under the baseline and -0.1 under the new model: the change (-0.2) is real, but
    neither model's disparity is smaller in size: ``inconclusive`` with a note."""
    designs = {
        "a": cell_probabilities(0.5, 0.6, 0.4, 0.4, 0.2, 0.5),
        "b": cell_probabilities(0.5, 0.5, 0.3, 0.5, 0.3, 0.5),
    }
    data = draw(np.random.default_rng(4), designs, {"a": 20000, "b": 20000})
    t = disparity_change(data, metrics=["ppr"], reference="b", **KW).table.iloc[0]
    assert t["ci_high"] < 0
    assert t["verdict"] == "inconclusive"
    assert "changed sign" in t["verdict_note"]


# --------------------------------------------------------------------------------------------------------
# the table, scores, folds, several groupings
# --------------------------------------------------------------------------------------------------------


def scored(rng, n=3000, folds=10):
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = rng.integers(0, 2, n)
    s_old = np.clip(0.5 * y + rng.normal(0.25, 0.2, n) + 0.1 * (g == "a"), 0, 1)
    s_new = np.clip(0.5 * y + rng.normal(0.25, 0.15, n), 0, 1)
    return pd.DataFrame(
        {
            "g": g,
            "sex": rng.choice(["f", "m"], n),
            "y": y,
            "old": (s_old > 0.5).astype(int),
            "new": (s_new > 0.5).astype(int),
            "s_old": s_old.round(3),
            "s_new": s_new.round(3),
            "fold": rng.integers(0, folds, n),
        }
    )


def test_the_table_has_its_columns_families_and_holm_within_each_family():
    frame = scored(np.random.default_rng(0))
    res = disparity_change(frame, y_score="s_new", y_score_baseline="s_old", **KW)
    t = res.to_frame()
    assert isinstance(res, DisparityChangeResult) and res.inference == "people"
    assert tuple(t.columns) == DISPARITY_CHANGE_COLUMNS
    assert set(t["verdict"]) <= set(CHANGE_VERDICTS)
    fair = t[t["family"] == "fairness"]
    assert set(fair["reference"]) == {"a"}  # the largest group
    assert fair.groupby("group")["metric"].apply(list).to_dict()["b"] == [
        "ppr",
        "tpr",
        "fpr",
        "ppv",
        "npv",
        "accuracy",
        "fn_fp_ratio",
        "mean_score_pos",
        "mean_score_neg",
        "auc",
    ]
    assert t.loc[t["family"] == "accuracy", "metric"].tolist() == ["accuracy", "auc"]
    for _, part in t.groupby("family"):  # Holm within the family: m times the smallest p at most
        m = part["pvalue"].notna().sum()
        smallest = part["pvalue"].idxmin()
        assert part.loc[smallest, "pvalue_adj"] == pytest.approx(min(1, m * part.loc[smallest, "pvalue"]))
        assert (part["pvalue_bh"] <= part["pvalue_adj"] + 1e-15).all()
    assert ((t["pvalue"] >= 0) & (t["pvalue"] <= 1)).all()
    assert t["n"].loc[t["family"] == "accuracy"].iloc[0] == len(frame)


def test_counts_and_rows_give_the_same_table():
    """Rows, their counts, shuffled rows and a frame checked by an outer call (an audit mode's) agree."""
    from fairstats._validation import checked_frame

    frame = scored(np.random.default_rng(1)).drop(columns=["s_old", "s_new", "fold", "sex"])
    rows = disparity_change(frame, **KW).table
    checked = disparity_change(checked_frame(frame, ["g", "y", "old", "new"]), **KW).table
    pd.testing.assert_frame_equal(rows, checked)
    booleans = frame.astype({"y": bool, "old": bool, "new": bool})
    pd.testing.assert_frame_equal(rows, disparity_change(booleans, **KW).table)
    counts = disparity_change(Counts.from_frame(frame, columns=["g", "y", "old", "new"]), **KW).table
    pd.testing.assert_frame_equal(rows, counts)
    shuffled = disparity_change(frame.sample(frac=1, random_state=2), **KW).table
    pd.testing.assert_frame_equal(rows, shuffled)


def test_fold_version_and_per_fold_values_agree():
    """disparity_change with ``fold`` equals fold_disparity_change on the per-fold rates computed here."""
    frame = scored(np.random.default_rng(2))
    res = disparity_change(frame, fold="fold", metrics=["ppr", "tpr"], **KW)
    assert res.inference == "folds" and (res.table["n_folds"] == 10).all()
    rows = []
    for (f, g), part in frame.groupby(["fold", "g"]):
        pos = part[part.y == 1]
        rows += [
            {
                "fold": f,
                "group": g,
                "metric": "ppr",
                "value": part["new"].mean(),
                "value_baseline": part["old"].mean(),
            },
            {
                "fold": f,
                "group": g,
                "metric": "tpr",
                "value": pos["new"].mean(),
                "value_baseline": pos["old"].mean(),
            },
        ]
    overall = (
        frame.groupby("fold")
        .apply(
            lambda p: pd.Series(
                {
                    "metric": "accuracy",
                    "value": (p["new"] == p["y"]).mean(),
                    "value_baseline": (p["old"] == p["y"]).mean(),
                }
            ),
            include_groups=False,
        )
        .reset_index()
    )
    again = fold_disparity_change(pd.DataFrame(rows), reference="a", grouping="g", overall=overall).table
    cols = [
        "group",
        "metric",
        "estimate",
        "ci_low",
        "ci_high",
        "statistic",
        "pvalue",
        "pvalue_adj",
        "verdict",
    ]
    pd.testing.assert_frame_equal(res.table[cols], again[cols])


def test_fold_version_leaves_out_undefined_folds_and_says_so():
    """About 10 people of group c per fold, favourable decisions rare: its FN/FP ratio is undefined (no false
    positive) in many folds, which the row leaves out and its method counts; a metric defined in fewer than 2
    folds is undefined."""
    rng = np.random.default_rng(3)
    frame = scored(rng, n=2000, folds=40).assign(
        old=rng.binomial(1, 0.2, 2000), new=rng.binomial(1, 0.2, 2000)
    )
    res = disparity_change(frame, fold="fold", metrics=["fn_fp_ratio"], **KW)
    row = res.table.set_index("group").loc["c"]
    assert 2 <= row["n_folds"] < 40 and row["verdict"] != "undefined"
    assert f"the {int(row['n_folds'])} of 40 folds" in row["method"]
    tiny = scored(np.random.default_rng(3), n=200, folds=40)
    with pytest.warns(UndefinedTestWarning, match="the fold version needs 2"):
        t = disparity_change(tiny, fold="fold", metrics=["fn_fp_ratio"], **KW).table
    assert "undefined" in set(t["verdict"])


def test_combine_makes_one_family_over_groupings():
    frame = scored(np.random.default_rng(4))
    by_g = disparity_change(frame, metrics=["ppr", "tpr"], **KW)
    by_sex = disparity_change(frame, metrics=["ppr", "tpr"], **{**KW, "group": "sex"})
    both = DisparityChangeResult.combine([by_g, by_sex]).table
    assert (both["family"] == "accuracy").sum() == 1
    assert set(both["grouping"]) == {"g", "sex", ""}
    fair = both[both["family"] == "fairness"]
    m = len(fair)
    low = fair["pvalue"].idxmin()
    assert fair.loc[low, "pvalue_adj"] == pytest.approx(min(1, m * fair.loc[low, "pvalue"]))
    with pytest.raises(ValueError, match="differ in alpha"):
        DisparityChangeResult.combine([by_g, disparity_change(frame, metrics=["ppr"], alpha=0.01, **KW)])
    with pytest.raises(ValueError, match="same comparison twice"):
        DisparityChangeResult.combine([by_g, by_g])


def test_verdicts_again_over_several_pairs_of_models():
    """Three models compared pairwise: one Holm family per ``by`` value and family, over every pair's rows;
    the verdicts follow the adjusted p-values, and the rows keep their order and values."""
    frame = scored(np.random.default_rng(8)).assign(third=lambda f: (f["s_new"] > 0.4).astype(int))
    kw = dict(group="g", y_true="y", metrics=["ppr", "tpr"])
    parts = [
        disparity_change(frame, y_pred=new, y_pred_baseline=old, **kw).table.assign(baseline=old, model=new)
        for old, new in (("old", "new"), ("old", "third"), ("new", "third"))
    ]
    table = pd.concat(parts, ignore_index=True)
    again = disparity_change_verdicts(table, by=["baseline"])
    assert (
        list(again.columns[:2]) == ["baseline", "model"]
        and tuple(again.columns[2:]) == DISPARITY_CHANGE_COLUMNS
    )
    pd.testing.assert_series_equal(again["estimate"], table["estimate"])
    for _, part in again.groupby(["baseline", "family"]):
        low = part["pvalue"].idxmin()
        m = part["pvalue"].notna().sum()
        assert part.loc[low, "pvalue_adj"] == pytest.approx(min(1, m * part.loc[low, "pvalue"]))
    one = disparity_change_verdicts(table)  # one family per family over all three pairs
    fair = one[one["family"] == "fairness"]
    low = fair["pvalue"].idxmin()
    assert fair.loc[low, "pvalue_adj"] == pytest.approx(min(1, len(fair) * fair.loc[low, "pvalue"]))
    significant = (one["pvalue_adj"] < 0.05) & (one["equivalence_pvalue_adj"] >= 0.05)
    assert set(one.loc[significant, "verdict"]) <= {"fairer", "less fair", "better", "worse"}
    with pytest.raises(ValueError, match="missing column"):
        disparity_change_verdicts(table.drop(columns="pvalue_better"))


def test_ratio_scale_reports_ratios_and_the_four_fifths_band():
    frame = scored(np.random.default_rng(5))
    t = disparity_change(
        frame, metrics=["ppr", "auc"], scale="ratio", y_score="s_new", y_score_baseline="s_old", **KW
    ).table
    fair = t[t["family"] == "fairness"].set_index(["group", "metric"])
    row = fair.loc[("b", "ppr")]
    assert row["scale"] == "ratio" and (row["margin_low"], row["margin_high"]) == (0.8, 1.25)
    assert row["estimate"] == pytest.approx(row["value"] / row["value_baseline"])
    assert row["ci_low"] < row["estimate"] < row["ci_high"]
    assert fair.loc[("b", "auc"), "scale"] == "difference"


# --------------------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("change, message", [
    (dict(y_pred="nope"), "missing column"),
    (dict(y_pred_baseline="new"), "different columns"),
    (dict(metrics=["auc"]), "needs `y_score`"),
    (dict(metrics=["roc"]), "unknown metric 'roc'"),
    (dict(scale="log"), "`scale`"),
    (dict(margin_ratio=0.8), "ratio scale only"),
    (dict(fold="fold", pseudo_count=0.5), "`pseudo_count` applies without `fold`"),
    (dict(test_train_ratio=0.1), "`test_train_ratio` applies to the fold version"),
    (dict(pseudo_count=-1), "`pseudo_count` must be"),
    (dict(reference="z"), "group 'z' does not occur"),
    (dict(y_score="s_new"), "go together"),
    (dict(pos_label=1), "`pos_label` names the outcome"),
    (dict(favorable=2), "`favorable`"),
    (dict(alpha=1.5), "`alpha`"),
])  # fmt: skip
def test_bad_options_are_refused_with_their_name(change, message):
    frame = scored(np.random.default_rng(6), n=200)
    with pytest.raises((ValueError, TypeError), match=message):
        disparity_change(frame, **{**KW, **change})


def test_labels_that_are_not_0_1_are_refused_naming_column_and_value():
    frame = scored(np.random.default_rng(7), n=100)
    frame.loc[3, "old"] = 7
    with pytest.raises(ValueError, match=r"`y_pred_baseline`: column 'old' has value 7"):
        disparity_change(frame, **KW)
    frame = scored(np.random.default_rng(7), n=100)
    frame.loc[5, "new"] = np.nan
    with pytest.raises(ValueError, match="missing"):
        disparity_change(frame, **KW)


def test_per_fold_values_are_checked():
    rows = pd.DataFrame(
        {
            "fold": [0, 0, 1, 1],
            "group": ["a", "b", "a", "b"],
            "metric": "tpr",
            "value": [0.5, 0.6, 0.5, 0.6],
            "value_baseline": [0.5, 0.7, 0.5, 0.7],
        }
    )
    with pytest.raises(ValueError, match="`reference`: group 'z'"):
        fold_disparity_change(rows, reference="z")
    with pytest.raises(ValueError, match="occurs more than once"):
        fold_disparity_change(pd.concat([rows, rows.iloc[:1]]), reference="a")
    with pytest.raises(ValueError, match="lacks"):
        fold_disparity_change(rows.iloc[:3], reference="a")
    with pytest.raises(ValueError, match="unknown metric"):
        fold_disparity_change(rows.assign(metric="recall"), reference="a")
    with pytest.raises(ValueError, match="missing column"):
        fold_disparity_change(rows.drop(columns="value_baseline"), reference="a")
