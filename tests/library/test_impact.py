"""Impact ratios under the four-fifths rule and NYC Local Law 144 (issue 25): hand computation, the interval
against published numbers and by simulation, the three verdicts, the 2 % rule, unknowns and bad input."""

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    proportions_ztest,
    score_test_proportions_2indep,
)

from fairstats import (
    Counts,
    ImpactRatioUndefinedWarning,
    impact_ratios,
)
from fairstats._best import best_intervals
from fairstats._proportions import ratio_score_interval as _ratio_interval
from fairstats.impact import FOUR_FIFTHS_VERDICTS, UNKNOWN_CATEGORY


def _people(spec: dict, *, column: str = "g", seed: int = 0) -> pd.DataFrame:
    """Rows with exactly ``x`` of ``n`` selected per category (``spec``: category -> (x, n)), shuffled."""
    rows = []
    for category, (x, n) in spec.items():
        rows += [(category, 1)] * x + [(category, 0)] * (n - x)
    frame = pd.DataFrame(rows, columns=[column, "s"])
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


def _row(result, category, grouping=None):
    table = result.table
    mask = table["category"] == category
    if grouping is not None:
        mask &= table["grouping"] == grouping
    (i,) = np.flatnonzero(mask.to_numpy())
    return table.iloc[i]


# --------------------------------------------------------------------------------------------------------
# hand computation
# --------------------------------------------------------------------------------------------------------

KNOWN = {"A": (60, 100), "B": (45, 100), "C": (20, 50), "D": (9, 30)}  # rates 0.6, 0.45, 0.4, 0.3


def test_rates_ratios_and_companions_equal_hand_computation():
    """Against the named reference A (the most selected; with reference="max" the family is every pair, see
    test_most_selected_reference_takes_every_pair_of_categories)."""
    result = impact_ratios(_people(KNOWN), group="g", y_pred="s", reference="A")
    table = result.table
    assert list(table["category"]) == ["A", "B", "C", "D"]
    assert list(table["role"]) == ["reference", "compared", "compared", "compared"]
    assert result.references == {"g": "A"} and result.family_size == 3
    assert result.confidence_level == 1 - 0.05 / 3
    xa, na = KNOWN["A"]
    p_values = {"z": [], "fisher": []}
    for category in "BCD":
        x, n = KNOWN[category]
        row = _row(result, category)
        assert row["n"] == n and row["selected"] == x and row["selection_rate"] == x / n
        assert row["impact_ratio"] == (x / n) / (xa / na)  # the same division, exactly
        assert Fraction(row["impact_ratio"]).limit_denominator(10**6) == Fraction(x * na, n * xa)
        # Fisher's exact test of the 2 x 2 table against the most selected category (scipy, two-sided)
        fisher = stats.fisher_exact([[x, n - x], [xa, na - xa]], alternative="two-sided").pvalue
        assert row["fisher_pvalue"] == fisher
        # the pooled two-proportion z test (statsmodels), and by hand: the "two standard deviations" form
        z, p = proportions_ztest(np.array([x, xa]), np.array([n, na]))
        assert row["z_statistic"] == z and row["z_pvalue"] == p
        pooled = (x + xa) / (n + na)
        by_hand = (x / n - xa / na) / np.sqrt(pooled * (1 - pooled) * (1 / n + 1 / na))
        assert row["z_statistic"] == pytest.approx(by_hand, rel=1e-12)
        assert row["shortfall"] == pytest.approx(n * xa / na - x, rel=1e-12)
        p_values["z"].append(p)
        p_values["fisher"].append(fisher)
    for name in ("z", "fisher"):
        holm = multipletests(p_values[name], method="holm")[1]
        got = [_row(result, c)[f"{name}_pvalue_holm"] for c in "BCD"]
        np.testing.assert_allclose(got, holm, rtol=1e-12)
    reference = _row(result, "A")
    assert reference["impact_ratio"] == 1.0 and np.isnan(reference["impact_ratio_ci_low"])
    assert reference["four_fifths"] == ""


def test_interval_is_the_inverted_miettinen_nurminen_score_test():
    result = impact_ratios(_people(KNOWN), group="g", y_pred="s", reference="A")
    alpha_each = 0.05 / 3
    xa, na = KNOWN["A"]
    for category in "BCD":
        x, n = KNOWN[category]
        row = _row(result, category)
        low, high = row["impact_ratio_ci_low"], row["impact_ratio_ci_high"]
        assert low < row["impact_ratio"] < high
        for bound in (low, high):  # at each bound the score test's two-sided p is the level's alpha
            _, p = score_test_proportions_2indep(x, n, xa, na, value=bound, compare="ratio",
                                                 correction=True, return_results=False)
            assert p == pytest.approx(alpha_each, rel=1e-7)
        # statsmodels' closed form (Koopman by Nam's cubic, with the same N/(N-1) correction) agrees inside
        expected = confint_proportions_2indep(x, n, xa, na, compare="ratio", method="score",
                                              alpha=alpha_each, correction=True)
        np.testing.assert_allclose([low, high], np.real(expected), rtol=1e-7)


def test_most_selected_reference_takes_every_pair_of_categories():
    """reference="max" (issue 39, item 2): each category's interval, the reference's too, is
    [min_h L_gh, min(1, min_h U_gh)] over the score intervals of every pair at 1 - 0.05 / 6, computed here
    with statsmodels' closed form (Koopman by Nam's cubic, with the N / (N - 1) correction: another code
    path than the library's inverted score test); the z and Fisher p-values are Holm's over the 6 pairs."""
    result = impact_ratios(_people(KNOWN), group="g", y_pred="s")
    assert result.references == {"g": "A"} and result.family_size == 6
    assert result.confidence_level == pytest.approx(1 - 0.05 / 6)
    labels = list(KNOWN)
    lows = {g: [1.0] for g in labels}
    highs = {g: [1.0] for g in labels}
    z, fisher, names = [], [], []
    for i, g in enumerate(labels):
        for h in labels[i + 1:]:
            (x, n), (xh, nh) = KNOWN[g], KNOWN[h]
            low, high = np.real(confint_proportions_2indep(x, n, xh, nh, compare="ratio", method="score",
                                                           alpha=0.05 / 6, correction=True))
            lows[g].append(low)
            highs[g].append(high)
            lows[h].append(1 / high)
            highs[h].append(1 / low)
            z.append(proportions_ztest(np.array([x, xh]), np.array([n, nh]))[1])
            fisher.append(stats.fisher_exact([[x, n - x], [xh, nh - xh]]).pvalue)
            names.append({g, h})
    z_holm, fisher_holm = (multipletests(p, method="holm")[1] for p in (z, fisher))
    for g in labels:
        row = _row(result, g)
        expected = (min(lows[g]), min(1.0, min(highs[g])))
        np.testing.assert_allclose([row["impact_ratio_ci_low"], row["impact_ratio_ci_high"]], expected,
                                   rtol=1e-7)
        if g != "A":
            j = names.index({g, "A"})
            assert row["z_pvalue_holm"] == pytest.approx(z_holm[j], rel=1e-12)
            assert row["fisher_pvalue_holm"] == pytest.approx(fisher_holm[j], rel=1e-12)
            assert row["four_fifths"] == ("below 4/5" if expected[1] < 0.8 else "inconclusive")
    assert _row(result, "A")["four_fifths"] == ""  # the reference's interval is reported, with no verdict


def test_a_category_without_selections_bounds_the_others_by_the_reciprocal_interval():
    """A pair whose second category has no selection: its interval is the reciprocal of the other way round
    (the score statistic of p_h / p_g is that of p_g / p_h with the sign changed)."""
    result = impact_ratios(_people({"a": (30, 60), "b": (0, 10), "c": (20, 60)}), group="g", y_pred="s")
    each = 0.05 / 3
    low_ba, high_ba = _ratio_interval(0.0, 10.0, 30.0, 60.0, each)
    _, high_bc = _ratio_interval(0.0, 10.0, 20.0, 60.0, each)
    low_ac, high_ac = _ratio_interval(30.0, 60.0, 20.0, 60.0, each)
    b, a = _row(result, "b"), _row(result, "a")
    assert b["impact_ratio"] == 0.0 and (b["impact_ratio_ci_low"], b["impact_ratio_ci_high"]) == (
        0.0, min(high_ba, high_bc))
    # a against b: the reciprocal of b against a, [1 / high_ba, inf): a's lower end is its pair with c
    assert a["role"] == "reference"
    assert (a["impact_ratio_ci_low"], a["impact_ratio_ci_high"]) == (min(1.0, low_ac, 1 / high_ba), 1.0)


@pytest.mark.parametrize(
    ("counts", "expected", "source"),
    [
        # Koopman (1984) interval as computed by Nam (1995), Biometrics 51, 1517, worked example: 36 of 40
        # against 16 of 80, 95 %: (2.940, 7.152) (also in statsmodels' test_score_confint_koopman_nam)
        ((36, 40, 16, 80), (2.940, 7.152), 5e-4),
        # R: PropCIs::riskscoreci(7, 34, 1, 34, 0.95) = (1.220853, 42.575718), as carried by statsmodels'
        # test_proportion.py (Fagerland, Lydersen, Laake 2015, Stat Methods Med Res 24, 224, Table 6 example)
        ((7, 34, 1, 34), (1.220853, 42.575718), 1e-6),
    ],
)
def test_uncorrected_interval_reproduces_koopmans_published_numbers(counts, expected, source):
    low, high = _ratio_interval(*map(float, counts), 0.05, False)
    np.testing.assert_allclose([low, high], expected, rtol=source)


def test_interval_stays_right_where_the_closed_form_breaks():
    # statsmodels' confint_proportions_2indep(compare="ratio", method="score") gives [0.8, 1.28] for 3 of 5
    # against 5 of 5 (the estimate 0.6 outside it) and [0.5, 0.5] for 0 of 5 against 5 of 5; the inverted
    # score test keeps the estimate inside and its bounds at p = alpha
    for x, n, xr, nr in [(3, 5, 5, 5), (0, 5, 5, 5), (10, 10, 10, 10), (1, 2, 2, 2), (5, 5, 3, 5)]:
        low, high = _ratio_interval(float(x), float(n), float(xr), float(nr), 0.05)
        estimate = (x / n) / (xr / nr)
        assert np.isreal(low) and np.isreal(high)
        assert low <= estimate < high
        for bound in (low, high) if x else (high,):
            _, p = score_test_proportions_2indep(x, n, xr, nr, value=bound, compare="ratio",
                                                 correction=True, return_results=False)
            assert p == pytest.approx(0.05, rel=1e-6)
        if x == 0:
            assert low == 0.0
    broken = confint_proportions_2indep(3, 5, 5, 5, compare="ratio", method="score")
    assert np.real(broken[0]) > 0.6  # the defect this module works around, kept visible here


# --------------------------------------------------------------------------------------------------------
# verdicts, reversal, the size that decides
# --------------------------------------------------------------------------------------------------------


def test_three_verdicts_in_held_out_cases():
    below = impact_ratios(_people({"r": (600, 1000), "a": (300, 1000)}), group="g", y_pred="s")
    assert _row(below, "a")["four_fifths"] == "below 4/5"
    assert _row(below, "a")["impact_ratio_ci_high"] < 0.8
    above = impact_ratios(_people({"r": (500, 1000), "a": (480, 1000)}), group="g", y_pred="s")
    assert _row(above, "a")["four_fifths"] == "at or above 4/5"
    assert _row(above, "a")["impact_ratio_ci_low"] >= 0.8
    unsure = impact_ratios(_people({"r": (25, 50), "a": (15, 50)}), group="g", y_pred="s")
    row = _row(unsure, "a")
    assert row["four_fifths"] == "inconclusive" and row["ratio_below_four_fifths"]
    assert row["impact_ratio_ci_low"] < 0.8 <= row["impact_ratio_ci_high"]
    assert set(below.table["four_fifths"]) | set(above.table["four_fifths"]) <= {*FOUR_FIFTHS_VERDICTS, ""}
    # the same rates decide it at n_to_decide people (the reference grown alike), not below
    n = int(row["n_to_decide"])
    assert n == 150
    decided = impact_ratios(_people({"r": (75, 150), "a": (45, 150)}), group="g", y_pred="s")
    assert _row(decided, "a")["four_fifths"] == "below 4/5"
    smaller = impact_ratios(_people({"r": (70, 140), "a": (42, 140)}), group="g", y_pred="s")
    assert _row(smaller, "a")["four_fifths"] == "inconclusive"
    k = (n - 1) / 50  # one person fewer, counts scaled: the interval still reaches 0.8
    assert _ratio_interval(15 * k, 50 * k, 25 * k, 50 * k, 0.05)[1] >= 0.8
    assert pd.isna(_row(below, "a")["n_to_decide"]) and pd.isna(_row(above, "a")["n_to_decide"])


def test_verdicts_use_the_family_level_interval():
    # alone, 34 of 100 against 60 of 100 is below 4/5 at 95 % (upper 0.771); among 3 comparisons with the
    # named reference (98.33 % each, upper 0.824) it is not, nor among the 6 pairs of "max" (99.17 % each)
    alone = impact_ratios(_people({"r": (60, 100), "a": (34, 100)}), group="g", y_pred="s")
    assert _row(alone, "a")["four_fifths"] == "below 4/5"
    four = _people({"r": (60, 100), "a": (34, 100), "b": (58, 100), "c": (57, 100)})
    family = impact_ratios(four, group="g", y_pred="s", reference="r")
    assert family.family_size == 3
    assert _row(family, "a")["ci_level"] == pytest.approx(1 - 0.05 / 3)
    assert _row(family, "a")["four_fifths"] == "inconclusive"
    pairs = impact_ratios(four, group="g", y_pred="s")
    assert pairs.family_size == 6 and pairs.confidence_level == pytest.approx(1 - 0.05 / 6)
    assert _row(pairs, "a")["four_fifths"] == "inconclusive"


def test_one_selection_reverses_and_shortfall():
    result = impact_ratios(_people({"r": (10, 20), "a": (7, 20), "b": (8, 20), "c": (2, 20)}),
                           group="g", y_pred="s")
    a, b, c = (_row(result, x) for x in "abc")
    assert a["ratio_below_four_fifths"] and a["selections_to_reverse"] == 1 and a["reversed_by_one"]
    assert a["shortfall"] == pytest.approx(3.0)
    # exactly four fifths is not below (29 CFR 1607.4(D): "less than four-fifths"); one fewer makes it below
    assert b["impact_ratio"] == pytest.approx(0.8) and not b["ratio_below_four_fifths"]
    assert b["selections_to_reverse"] == 1 and b["reversed_by_one"]
    assert c["selections_to_reverse"] == 6 and not c["reversed_by_one"]  # 2 -> 8 of 20 reaches 0.8


def test_named_reference_gives_ratios_above_one():
    result = impact_ratios(_people(KNOWN), group="g", y_pred="s", reference="C")
    assert result.references == {"g": "C"}
    assert _row(result, "A")["impact_ratio"] == pytest.approx(1.5)
    assert _row(result, "C")["role"] == "reference"
    with pytest.raises(ValueError, match=r"`reference` 'Z' is not a compared category of 'g'"):
        impact_ratios(_people(KNOWN), group="g", y_pred="s", reference="Z")


# --------------------------------------------------------------------------------------------------------
# groupings, the 2 % rule, unknowns
# --------------------------------------------------------------------------------------------------------


def _applicants(n: int = 4000, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(np.array(["Female", "Male", "Unknown"], dtype=object), n, p=[0.49, 0.49, 0.02])
    race = rng.choice(np.array(["Asian", "Black", "Hispanic", "White", "Native"], dtype=object), n,
                      p=[0.2, 0.25, 0.2, 0.34, 0.01])
    race[rng.random(n) < 0.03] = None
    selected = (rng.random(n) < np.where(sex == "Female", 0.25, 0.35)).astype(int)
    return pd.DataFrame({"sex": sex, "race": race, "s": selected})


def test_sex_race_and_intersection_in_one_call_with_unknowns_and_the_two_percent_rule():
    df = _applicants()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing undefined here
        result = impact_ratios(df, group=["sex", "race", ("sex", "race")], y_pred="s", unknown="Unknown",
                               missing_as_unknown=True, min_share=0.02)
    table = result.table
    assert list(dict.fromkeys(table["grouping"])) == ["sex", "race", "sex x race"]
    for _, part in table.groupby("grouping", sort=False):
        assert int(part["n"].sum()) == len(df)  # every person counted once per grouping, unknowns included
    unknown_sex = _row(result, UNKNOWN_CATEGORY, "sex")
    assert unknown_sex["n"] == int((df["sex"] == "Unknown").sum()) and unknown_sex["role"] == "unknown"
    assert unknown_sex["selection_rate"] == pytest.approx(df.loc[df["sex"] == "Unknown", "s"].mean())
    assert np.isnan(unknown_sex["impact_ratio"]) and "unknown" in unknown_sex["excluded_reason"]
    assert _row(result, UNKNOWN_CATEGORY, "race")["n"] == int(df["race"].isna().sum())
    both_known = (df["sex"] != "Unknown") & df["race"].notna()
    assert _row(result, UNKNOWN_CATEGORY, "sex x race")["n"] == int((~both_known).sum())
    # the 2 % rule: Native (about 1 %) keeps its row, count and rate, no ratio, and the reason
    native = _row(result, "Native", "race")
    assert native["role"] == "excluded" and native["n"] == int((df["race"] == "Native").sum())
    assert native["selection_rate"] == pytest.approx(df.loc[df["race"] == "Native", "s"].mean())
    assert np.isnan(native["impact_ratio"]) and native["four_fifths"] == ""
    assert "min_share = 0.02" in native["excluded_reason"]
    assert native["share"] < 0.02
    excluded = table["role"].isin(["excluded", "unknown"])
    assert table.loc[excluded, "impact_ratio"].isna().all()
    assert (table.loc[~excluded, "impact_ratio"].notna()).all()
    # the reference is the most selected category of each grouping: every pair of its categories
    pairs = [len(part) * (len(part) - 1) // 2
             for _, part in table[table["role"].isin(["compared", "reference"])].groupby("grouping")]
    assert result.family_size == sum(pairs)
    assert _row(result, "Female - Black", "sex x race")["role"] == "compared"
    assert _row(result, "Male - Native", "sex x race")["role"] == "excluded"


def test_an_excluded_category_is_never_the_reference():
    df = _people({"big": (40, 100), "other": (30, 100), "tiny": (2, 2)})
    result = impact_ratios(df, group="g", y_pred="s", min_share=0.02)
    assert result.references == {"g": "big"}
    assert _row(result, "tiny")["role"] == "excluded" and _row(result, "tiny")["selection_rate"] == 1.0
    with_tiny = impact_ratios(df, group="g", y_pred="s")
    assert with_tiny.references == {"g": "tiny"}


def test_missing_group_values_are_refused_unless_counted_as_unknown():
    df = _applicants(500)
    with pytest.raises(ValueError, match=r"column 'race' \(`group`\) has \d+ missing value.*missing_as_unk"):
        impact_ratios(df, group="race", y_pred="s")
    counted = impact_ratios(df, group="race", y_pred="s", missing_as_unknown=True)
    assert _row(counted, UNKNOWN_CATEGORY)["n"] == int(df["race"].isna().sum())
    with pytest.raises(ValueError, match=r"category named 'unknown'"):
        impact_ratios(_people({"unknown": (1, 3), "b": (2, 3)}), group="g", y_pred="s")


# --------------------------------------------------------------------------------------------------------
# scoring rate
# --------------------------------------------------------------------------------------------------------


def test_scoring_rate_counts_strictly_above_the_median_and_reports_ties():
    df = pd.DataFrame({"g": list("aaaabbbb"), "score": [1, 2, 3, 3, 3, 3, 5, 6]})
    result = impact_ratios(df, group="g", y_pred="score", scoring_rate=True)
    assert result.median == 3.0 == np.median(df["score"])
    a, b = _row(result, "a"), _row(result, "b")
    assert (a["selected"], a["ties_at_median"]) == (0, 2)
    assert (b["selected"], b["ties_at_median"]) == (2, 2)
    assert b["role"] == "reference" and a["impact_ratio"] == 0.0
    assert set(result.table["rate"]) == {"scoring rate"}
    even = impact_ratios(pd.DataFrame({"g": list("aabb"), "score": [1.0, 2.0, 4.0, 9.0]}), group="g",
                         y_pred="score", scoring_rate=True)
    assert even.median == 3.0  # the mean of the two middle values, as numpy's median


def test_every_score_at_the_median_is_an_explicit_undefined():
    df = pd.DataFrame({"g": list("aabb"), "score": [0.5] * 4})
    with pytest.warns(ImpactRatioUndefinedWarning, match="every score equals the median"):
        result = impact_ratios(df, group="g", y_pred="score", scoring_rate=True)
    assert (result.table["four_fifths"] == "undefined").all()
    assert result.table["impact_ratio"].isna().all() and result.family_size == 0
    assert (result.table["ties_at_median"] == 2).all()


# --------------------------------------------------------------------------------------------------------
# any input the library reads
# --------------------------------------------------------------------------------------------------------


def test_counts_and_other_engines_give_the_same_table():
    df = _applicants(800).dropna()
    expected = impact_ratios(df, group=["sex", ("sex", "race")], y_pred="s").to_frame()
    counts = Counts.from_frame(df, columns=["sex", "race", "s"])
    pd.testing.assert_frame_equal(impact_ratios(counts, group=["sex", ("sex", "race")], y_pred="s").table,
                                  expected)
    import duckdb

    relation = duckdb.connect().from_df(df)
    pd.testing.assert_frame_equal(
        impact_ratios(relation, group=["sex", ("sex", "race")], y_pred="s").table, expected
    )
    scores = df.assign(score=np.arange(len(df)) % 7)
    a = impact_ratios(scores, group="sex", y_pred="score", scoring_rate=True)
    b = impact_ratios(Counts.from_frame(scores, columns=["sex", "score"]), group="sex", y_pred="score",
                      scoring_rate=True)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert a.median == float(np.median(scores["score"]))


def test_labels_as_decision_with_favorable_naming_the_selected_label():
    df = pd.DataFrame({"g": list("aaabbb"), "risk": ["Low", "High", "Low", "Low", "Low", "Medium"]})
    result = impact_ratios(df, group="g", y_pred="risk", favorable="Low")
    assert _row(result, "a")["selected"] == 2 and _row(result, "b")["selected"] == 2


# --------------------------------------------------------------------------------------------------------
# bad input: a clear message or an explicit undefined
# --------------------------------------------------------------------------------------------------------


def test_no_selection_anywhere_is_undefined_not_zero():
    df = _people({"a": (0, 10), "b": (0, 12)})
    with pytest.warns(ImpactRatioUndefinedWarning, match="nobody is selected in any compared category"):
        result = impact_ratios(df, group="g", y_pred="s")
    assert (result.table["four_fifths"] == "undefined").all()
    assert result.table["impact_ratio"].isna().all()
    assert result.table["excluded_reason"].str.contains("undefined").all()


def test_a_declared_category_without_people_is_undefined():
    df = _people({"a": (3, 10), "b": (5, 10)})
    df["g"] = pd.Categorical(df["g"], categories=["a", "b", "c"])
    with pytest.warns(ImpactRatioUndefinedWarning, match=r"'c': no people in this category \(n = 0\)"):
        result = impact_ratios(df, group="g", y_pred="s")
    c = _row(result, "c")
    assert c["n"] == 0 and c["role"] == "empty" and c["four_fifths"] == "undefined"
    assert np.isnan(c["selection_rate"]) and np.isnan(c["impact_ratio"])


def test_z_test_undefined_when_everybody_is_selected():
    with pytest.warns(ImpactRatioUndefinedWarning, match="z test undefined"):
        result = impact_ratios(_people({"a": (5, 5), "b": (8, 8)}), group="g", y_pred="s")
    b = _row(result, "b")
    assert np.isnan(b["z_pvalue"]) and b["fisher_pvalue"] == 1.0 and b["impact_ratio"] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"group": "g", "y_pred": "x"}, ValueError, r"missing column\(s\) \['x'\]"),
        ({"group": 3, "y_pred": "s"}, TypeError, "`group` must be a column name"),
        ({"group": "g", "y_pred": ["s"]}, TypeError, "`y_pred` must be one column name"),
        ({"group": "g", "y_pred": "s", "favorable": 2}, ValueError, "`favorable` must be 0 or 1"),
        ({"group": "g", "y_pred": "s", "min_share": 2}, ValueError, "`min_share` must be a number"),
        ({"group": "g", "y_pred": "s", "alpha": 0}, ValueError, "`alpha` must be a number"),
        ({"group": "g", "y_pred": "s", "scoring_rate": "yes"}, TypeError, "`scoring_rate` must be True"),
        ({"group": ["g", ("g",)], "y_pred": "s"}, ValueError, "lists the grouping 'g' twice"),
        ({"group": ["g", ("g", "s")], "y_pred": "s"}, ValueError, "also a `group` column"),
        ({"group": ["g", ("g",)], "y_pred": "s", "reference": "a"}, ValueError, "lists the grouping"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs, error, match):
    with pytest.raises(error, match=match):
        impact_ratios(_people({"a": (1, 3), "b": (2, 3)}), **kwargs)


def test_selected_is_the_old_name_of_y_pred_until_0_4():
    """``selected`` (before 0.3) is ``y_pred``, the decision column's name in every function: it warns, gives
    the same table, and both at once is refused."""
    args = {"group": "g", "reference": "A"}
    new = impact_ratios(_people(KNOWN), y_pred="s", **args)
    with pytest.warns(DeprecationWarning, match=r"`selected` of fairstats.impact_ratios .* use `y_pred`$"):
        old = impact_ratios(_people(KNOWN), selected="s", **args)
    pd.testing.assert_frame_equal(old.table, new.table)
    with pytest.raises(TypeError, match="got both `selected` .* and `y_pred`"):
        impact_ratios(_people(KNOWN), selected="s", y_pred="s", **args)


def test_bad_values_name_the_column_and_the_value():
    df = pd.DataFrame({"g": list("aabb"), "s": [0, 1, 2, 1]})
    with pytest.raises(ValueError, match=r"column 's' \(`y_pred`\) must hold 0/1, got the value 2"):
        impact_ratios(df, group="g", y_pred="s")
    df = pd.DataFrame({"g": list("aabb"), "s": ["L", "H", "L", "M"]})
    with pytest.raises(ValueError, match=r"`favorable`: 'low' does not occur in column 's'"):
        impact_ratios(df, group="g", y_pred="s", favorable="low")
    df = pd.DataFrame({"g": list("aabb"), "s": [0.1, np.inf, 0.3, 0.2]})
    with pytest.raises(ValueError, match=r"column 's' has a score that is not a finite number, inf$"):
        impact_ratios(df, group="g", y_pred="s", scoring_rate=True)
    df = pd.DataFrame({"g": list("aabb"), "s": [1, np.nan, 0, 1]})
    with pytest.raises(ValueError, match=r"column 's' \(`y_pred`\) has 1 missing value"):
        impact_ratios(df, group="g", y_pred="s")
    with pytest.raises(ValueError, match=r"`data` is empty \(0 rows\)"):
        impact_ratios(df.iloc[:0], group="g", y_pred="s")
    with pytest.raises(ValueError, match="several groupings give a dict"):
        impact_ratios(df.assign(h=list("xyxy")), group=["g", ("h",)], y_pred="s", reference="a")


# --------------------------------------------------------------------------------------------------------
# coverage of the interval, against a fixed reference category
# --------------------------------------------------------------------------------------------------------


def _coverage(n1, n2, p2, ratio, reps, seed, alpha=0.05):
    """Share of seeded replicates whose interval covers the true ratio (replicates where the reference
    has no selection, so that no ratio exists, are left out and counted)."""
    rng = np.random.default_rng(seed)
    x1 = rng.binomial(n1, ratio * p2, reps)
    x2 = rng.binomial(n2, p2, reps)
    covered, defined = 0, 0
    for a, b in zip(x1.tolist(), x2.tolist(), strict=True):
        if b == 0:
            continue
        defined += 1
        low, high = _ratio_interval(float(a), float(n1), float(b), float(n2), alpha)
        covered += low <= ratio <= high
    return covered / defined, defined


def test_public_interval_is_the_one_simulated():
    df = _people({"r": (18, 40), "a": (6, 15)})
    row = _row(impact_ratios(df, group="g", y_pred="s", reference="r"), "a")
    assert (row["impact_ratio_ci_low"], row["impact_ratio_ci_high"]) == _ratio_interval(6.0, 15.0, 18.0, 40.0,
                                                                                         0.05)


def test_interval_coverage_quick():
    # small and large n; exact coverage of these settings (enumerating all outcomes) is 0.9507, 0.9521
    # and about 0.950: the simulation has to find nominal within its Monte-Carlo error
    settings = [(15, 40, 0.5, 0.8), (30, 30, 0.2, 1.0), (1000, 1000, 0.3, 0.8)]
    reps = 800
    coverages = [_coverage(*s, reps=reps, seed=25 + i)[0] for i, s in enumerate(settings)]
    se = np.sqrt(0.95 * 0.05 / (reps * len(settings)))
    assert abs(np.mean(coverages) - 0.95) <= 3 * se, coverages
    assert min(coverages) >= 0.92, coverages


@pytest.mark.slow
def test_interval_coverage_simulation():
    """54 settings (n from 10 to 1,000, unequal sizes, reference rates 0.2/0.5/0.8, true ratios 0.5/0.8/1),
    2,000 seeded replicates each: mean coverage not below 95 % beyond Monte-Carlo error (within it from
    n = 100), no setting 3 points below; and the Bonferroni family of three comparisons covers all three at
    least 95 % of the time."""
    sizes = [(10, 10), (15, 40), (30, 30), (50, 200), (100, 100), (1000, 1000)]
    reps, results = 2000, []
    for n1, n2 in sizes:
        for p2 in (0.2, 0.5, 0.8):
            for ratio in (0.5, 0.8, 1.0):
                coverage, defined = _coverage(n1, n2, p2, ratio, reps=reps, seed=1000 + len(results))
                results.append((n1, n2, p2, ratio, coverage, defined))
    coverages = np.array([r[4] for r in results])
    defined = np.array([r[5] for r in results])
    se = np.sqrt(0.95 * 0.05 / defined.sum())
    # seen: mean 0.954 (MC SE 0.0007), 0.966 over the n = 10 settings, 0.949 over n = 1,000, lowest 0.940:
    # never below nominal beyond Monte-Carlo error; conservative at the smallest sizes (the score interval is
    # not exact), within Monte-Carlo error of nominal from n = 100 on
    assert coverages.mean() >= 0.95 - 3 * se and coverages.mean() <= 0.96, results
    large = [r for r in results if r[0] >= 100]
    se_large = np.sqrt(0.95 * 0.05 / sum(r[5] for r in large))
    assert abs(np.mean([r[4] for r in large]) - 0.95) <= 3 * se_large, large
    assert coverages.min() >= 0.92, min(results, key=lambda r: r[4])
    # family: three categories against one fixed reference, each interval at 1 - 0.05 / 3
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(reps):
        xr = rng.binomial(60, 0.5)
        xs = rng.binomial(40, [0.5 * 0.6, 0.5 * 0.8, 0.5 * 1.0])
        inside = [
            _ratio_interval(float(x), 40.0, float(xr), 60.0, 0.05 / 3) for x in xs.tolist()
        ]
        hits += all(lo <= r <= hi for (lo, hi), r in zip(inside, (0.6, 0.8, 1.0), strict=True))
    assert hits / reps >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps), hits / reps


def _best_noncoverage(rates, n, reps, seed, alpha=0.05):
    """Share of seeded replicates (each category n people, selected with its rate) in which some category's
    interval for its ratio to the most selected category misses it: through ``best_intervals``, the
    intervals ``impact_ratios(reference="max")`` reports (checked against the table above), without the
    sizes to decide, which the coverage does not use."""
    rng = np.random.default_rng(seed)
    rates = np.asarray(rates, dtype=float)
    theta = rates / rates.max()
    k = rates.size
    labels = [f"c{i}" for i in range(k)]
    misses = 0
    for _ in range(reps):
        part = pd.DataFrame({"category": labels, "selected": rng.binomial(n, rates), "n": n})
        intervals, _, _ = best_intervals(part, alpha / (k * (k - 1) / 2), sizes=False)
        misses += any(not intervals[g][0] <= r <= intervals[g][1] for g, r in zip(labels, theta, strict=True))
    return misses / reps


def test_most_selected_reference_family_coverage_quick():
    """Five equal categories of 100 (every true ratio 1), 150 replicates: some interval misses in at most
    α + 3 Monte Carlo standard errors of them (against the observed most selected category at Bonferroni
    over the 4 comparisons, as before issue 39: 0.10; the slow test has the numbers)."""
    rate = _best_noncoverage([0.5] * 5, 100, 150, seed=39)
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 150), rate


@pytest.mark.slow
@pytest.mark.parametrize("rates", [(0.5, 0.5, 0.5, 0.5, 0.5), (0.4, 0.5, 0.5, 0.5, 0.5)])
@pytest.mark.parametrize("n", [100, 1000])
def test_most_selected_reference_family_coverage(rates, n):
    """Issue 39, item 2: five categories of n people (100 and 1,000), rates all 0.5, or 0.4 next to four of
    0.5 (true ratios 0.8, 1, 1, 1, 1); 1,500 seeded replicates: the share in which some category's interval
    misses its ratio to the truly most selected category is at most α + 3 Monte Carlo standard errors (0.067).
    Seen (MC se about 0.005): 0.041 (n = 100) and 0.043 (n = 1,000) with equal rates, 0.039 and 0.034 with
    0.4. In a separate run of 1,000 replicates (seed 1) the intervals against the observed most selected
    category at Bonferroni over its 4 comparisons (before issue 39) missed in 0.092 and 0.113, 0.057 and
    0.095 of the data sets (the new ones: 0.039, 0.059, 0.028, 0.033). The pairs' familywise error, which
    bounds it, is 0.040 to 0.043 at both sizes with equal rates (pooled z, 40,000 replicates). About 30 s at
    n = 100 and 1 min at n = 1,000 on one core."""
    reps = 1500
    rate = _best_noncoverage(rates, n, reps, seed=n + int(10 * rates[0]))
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps), rate


def test_order_of_rows_and_ties_for_the_most_selected():
    df = _people({"b": (5, 10), "a": (10, 20), "c": (2, 10)})
    result = impact_ratios(df, group="g", y_pred="s")
    assert result.references == {"g": "a"}  # a and b tie at 0.5: the first in order is the reference
    shuffled = impact_ratios(df.sample(frac=1, random_state=9), group="g", y_pred="s")
    pd.testing.assert_frame_equal(result.table, shuffled.table)
    record = result.to_record()
    assert record["groupings"] == "g" and record["family_size"] == 3 and record["n"] == 40  # the 3 pairs
    assert "Miettinen-Nurminen" in record["method"]


def test_declared_categories_report_the_empty_ones_and_refuse_undeclared_values():
    df = _people({"a": (3, 10), "b": (5, 10)})
    with pytest.warns(ImpactRatioUndefinedWarning, match=r"'c': no people"):
        result = impact_ratios(df, group="g", y_pred="s", categories={"g": ["a", "b", "c"]})
    assert list(result.table["category"]) == ["a", "b", "c"] and _row(result, "c")["role"] == "empty"
    with pytest.raises(ValueError, match=r"column 'g' has the value 'b', not among `categories`\['g'\]"):
        impact_ratios(df, group="g", y_pred="s", categories={"g": ["a", "c"]})
    with pytest.raises(ValueError, match="is not a `group` column"):
        impact_ratios(df, group="g", y_pred="s", categories={"h": ["a"]})
