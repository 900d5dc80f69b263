"""Equal confusion test, parity error, residuals and ratio tables on small hand-made data."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import Table

from fairstats import ContingencyTable
from fairstats.confusion import (
    EqualConfusionResult,
    SmallExpectedCountWarning,
    adjusted_residuals,
    confusion_parity_error,
    confusion_ratios,
    effect_size_thresholds,
    equal_confusion_test,
)

COLS = dict(y_true="y", y_pred="p")


def _frame(counts: dict[str, tuple[int, int, int, int]]) -> pd.DataFrame:
    """People whose (group, TP, FN, FP, TN) counts are given, rows in a fixed shuffled order."""
    pairs = [(1, 1), (0, 1), (1, 0), (0, 0)]  # (p, y) for TP, FN, FP, TN
    rows = [
        (g, y, p) for g, cnt in counts.items() for (p, y), k in zip(pairs, cnt, strict=True) for _ in range(k)
    ]
    frame = pd.DataFrame(rows, columns=["g", "y", "p"])
    return frame.sample(frac=1.0, random_state=0).reset_index(drop=True)


BIG = _frame({"a": (40, 20, 30, 110), "b": (25, 30, 20, 125), "c": (60, 10, 45, 85)})


def test_binary_table_has_paper_cells_in_printed_order():
    table = ContingencyTable.from_frame(BIG, group="g", **COLS).frame()
    assert list(table.columns) == ["TP", "FN", "FP", "TN"]
    assert table.columns.name == "cell" and table.index.name == "group"
    assert list(table.index) == ["a", "b", "c"]
    assert table.loc["a"].tolist() == [40, 20, 30, 110]
    assert table.attrs["cells"][1] == {"cell": "FN", "y_pred": 0, "y_true": 1}
    assert table.attrs["notes"] == []


def test_boolean_labels_are_binary():
    frame = BIG.assign(y=BIG["y"].astype(bool), p=BIG["p"].astype(bool))
    assert (
        ContingencyTable.from_frame(frame, group="g", **COLS)
        .frame()
        .equals(ContingencyTable.from_frame(BIG, group="g", **COLS).frame())
    )


def test_statistic_and_residuals_agree_across_scipy_statsmodels_and_formula():
    res = equal_confusion_test(BIG, group="g", **COLS)
    o = res.observed.to_numpy().astype(float)
    n = o.sum()
    e = np.outer(o.sum(1), o.sum(0)) / n
    assert res.statistic == pytest.approx(((o - e) ** 2 / e).sum(), rel=1e-12)
    sm = Table(o, shift_zeros=False).test_nominal_association()
    assert res.statistic == pytest.approx(sm.statistic, rel=1e-12)
    assert res.df == sm.df == 6
    assert res.pvalue == pytest.approx(stats.chi2.sf(res.statistic, 6), rel=1e-10)
    rows, cols = o.sum(1, keepdims=True) / n, o.sum(0, keepdims=True) / n
    hand = (o - e) / np.sqrt(e * (1 - rows) * (1 - cols))
    np.testing.assert_allclose(res.residuals.to_numpy(), hand, rtol=1e-12)
    np.testing.assert_allclose(res.expected.to_numpy(), e, rtol=1e-12)
    assert res.cramers_v == pytest.approx(math.sqrt(res.statistic / (n * 2)), rel=1e-12)
    assert res.n == 600


def test_residuals_of_a_table_with_zeros_are_not_shifted():
    frame = _frame({"a": (0, 12, 8, 30), "b": (9, 7, 0, 25)})
    got = adjusted_residuals(frame, group="g", **COLS).to_numpy()
    o = ContingencyTable.from_frame(frame, group="g", **COLS).frame().to_numpy().astype(float)
    n = o.sum()
    e = np.outer(o.sum(1), o.sum(0)) / n
    hand = (o - e) / np.sqrt(e * (1 - o.sum(1, keepdims=True) / n) * (1 - o.sum(0, keepdims=True) / n))
    np.testing.assert_allclose(got, hand, rtol=1e-12)
    shifted = Table(o).standardized_resids  # statsmodels' default adds 0.5 to every cell
    assert not np.allclose(got, np.asarray(shifted))


def test_parity_error_and_residuals_match_the_test():
    res = equal_confusion_test(BIG, group="g", **COLS)
    assert confusion_parity_error(BIG, group="g", **COLS) == res.cramers_v
    pd.testing.assert_frame_equal(adjusted_residuals(BIG, group="g", **COLS), res.residuals)


def test_perfect_association_has_v_one_and_identical_groups_v_zero():
    perfect = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 1, 0, 0], "p": [1, 1, 0, 0]})
    assert confusion_parity_error(perfect, group="g", **COLS) == pytest.approx(1.0)
    same = _frame({"a": (10, 10, 10, 10), "b": (10, 10, 10, 10)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = equal_confusion_test(same, group="g", **COLS)
    assert res.statistic == pytest.approx(0.0, abs=1e-12)
    assert res.cramers_v == pytest.approx(0.0, abs=1e-12)
    assert res.pvalue == pytest.approx(1.0)
    assert res.effect_size == "negligible"
    assert not res.reject


def test_multiclass_cells_are_sorted_pairs_and_empty_cells_drop_with_note():
    frame = pd.DataFrame(
        {
            "g": ["x", "x", "x", "y", "y", "y", "x", "y"],
            "y": ["lo", "mid", "hi", "lo", "mid", "hi", "lo", "mid"],
            "p": ["lo", "mid", "hi", "mid", "mid", "lo", "lo", "mid"],
        }
    )
    table = ContingencyTable.from_frame(frame, group="g", **COLS).frame()
    expected_cells = ["pred=hi, true=hi", "pred=lo, true=hi", "pred=lo, true=lo", "pred=mid, true=lo",
                      "pred=mid, true=mid"]  # fmt: skip
    assert list(table.columns) == expected_cells
    assert table.to_numpy().sum() == len(frame)
    assert len(table.attrs["notes"]) == 9 - 5
    assert "cell 'pred=hi, true=lo' (y_pred='hi', y_true='lo') has no cases" in table.attrs["notes"][0]


def test_intersection_labels_follow_listed_order_and_empty_groups_drop_with_note():
    frame = BIG.assign(s=np.where(BIG.index % 2 == 0, "F", "M"))
    frame = frame[~((frame["g"] == "c") & (frame["s"] == "F"))]
    res = equal_confusion_test(frame, group=["s", "g"], **COLS)
    assert list(res.observed.index) == ["F - a", "F - b", "M - a", "M - b", "M - c"]
    assert res.notes == ("group 'F - c' has no cases and is left out",)
    assert res.df == (5 - 1) * (4 - 1)
    swapped = ContingencyTable.from_frame(frame, group=["g", "s"], **COLS).frame()
    assert list(swapped.index) == ["a - F", "a - M", "b - F", "b - M", "c - M"]
    assert res.group_columns == ("s", "g")


def test_unused_categories_drop_with_note():
    frame = BIG.assign(g=pd.Categorical(BIG["g"], categories=["a", "b", "c", "d"]))
    table = ContingencyTable.from_frame(frame, group="g", **COLS).frame()
    assert list(table.index) == ["a", "b", "c"]
    assert table.attrs["notes"] == ["group 'd' has no cases and is left out"]


def test_posthoc_flags_use_both_cutoffs():
    res = equal_confusion_test(BIG, group="g", **COLS)
    assert res.strict_cutoff == pytest.approx(3.2905267, abs=1e-6)
    assert res.bonferroni_cutoff == pytest.approx(stats.norm.isf(0.05 / 12 / 2))
    pd.testing.assert_frame_equal(res.flag_strict, res.residuals.abs() > res.strict_cutoff)
    pd.testing.assert_frame_equal(res.flag_bonferroni, res.residuals.abs() > res.bonferroni_cutoff)
    assert res.flag_strict.to_numpy().any()
    tidy = res.to_frame()
    assert list(tidy.columns) == [
        "group", "cell", "y_pred", "y_true", "observed", "expected", "residual", "pvalue", "pvalue_adj",
        "flag_strict", "flag_bonferroni",
    ]  # fmt: skip
    assert len(tidy) == 12
    assert tidy[["group", "cell"]].iloc[1].tolist() == ["a", "FN"]
    assert (tidy["flag_bonferroni"] == (tidy["pvalue_adj"] < 0.05)).all()
    assert tidy["observed"].sum() == res.n


def test_effect_size_thresholds_are_cohens_w_over_sqrt_df_star():
    printed = {1: (0.10, 0.30, 0.50), 2: (0.07, 0.21, 0.35), 3: (0.06, 0.17, 0.29), 4: (0.05, 0.15, 0.25),
               5: (0.04, 0.13, 0.22)}  # fmt: skip
    for df_star, values in printed.items():
        got = effect_size_thresholds(df_star)
        assert tuple(round(got[k], 2) for k in ("small", "medium", "large")) == values
    with pytest.raises(ValueError, match="`df_star`"):
        effect_size_thresholds(0)


def test_effect_size_label_and_record():
    res = equal_confusion_test(BIG, group="g", **COLS)
    assert res.df_star == 2
    t = res.effect_size_thresholds
    label = "large" if res.cramers_v >= t["large"] else "medium" if res.cramers_v >= t["medium"] else "small"
    assert res.effect_size == label
    assert "Cohen" in res.effect_size_source
    record = res.to_record()
    assert record["statistic"] == res.statistic and record["df"] == 6 and record["group"] == "g"
    assert record["n_flag_strict"] == int(res.flag_strict.to_numpy().sum())


def test_small_expected_counts_warn_and_give_a_seeded_permutation_pvalue():
    small = _frame({"a": (3, 1, 2, 9), "b": (1, 4, 1, 6), "c": (5, 0, 3, 4)})
    with pytest.warns(SmallExpectedCountWarning, match="Cochran's rule fails"):
        first = equal_confusion_test(small, group="g", **COLS, n_resamples=999, rng=7)
    assert not first.cochran_ok
    assert first.cochran_share_ge5 < 0.8
    assert first.n_resamples == 999
    assert 1 / 1000 <= first.pvalue_permutation <= 1
    with pytest.warns(SmallExpectedCountWarning):
        again = equal_confusion_test(small, group="g", **COLS, n_resamples=999, rng=7)
    assert again.pvalue_permutation == first.pvalue_permutation
    with pytest.warns(SmallExpectedCountWarning):
        never = equal_confusion_test(small, group="g", **COLS, permutation="never")
    assert math.isnan(never.pvalue_permutation) and never.n_resamples == 0


def test_permutation_pvalue_is_close_to_asymptotic_one_when_samples_are_large():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"g": rng.choice(["a", "b", "c"], 600), "y": rng.integers(0, 2, 600)})
    frame["p"] = np.where(rng.random(600) < 0.7, frame["y"], 1 - frame["y"])
    res = equal_confusion_test(frame, group="g", **COLS, permutation="always", n_resamples=2000, rng=11)
    assert res.cochran_ok
    assert abs(res.pvalue_permutation - res.pvalue) < 0.04
    assert math.isnan(equal_confusion_test(frame, group="g", **COLS).pvalue_permutation)


def test_permutation_pvalue_agrees_with_shuffling_people():
    small = _frame({"a": (3, 1, 2, 9), "b": (1, 4, 1, 6), "c": (5, 0, 3, 4)})
    with pytest.warns(SmallExpectedCountWarning):
        res = equal_confusion_test(small, group="g", **COLS, n_resamples=4000, rng=5)
    # the definition: shuffle the group labels over people, recount, recompute Pearson's statistic
    group = pd.factorize(small["g"], sort=True)[0]
    cell = (1 - small["y"].to_numpy()) * 2 + (1 - small["p"].to_numpy())
    shuffled = np.random.default_rng(99).permuted(np.broadcast_to(group, (4000, len(group))), axis=1)
    flat = (np.arange(4000)[:, None] * 12 + shuffled * 4 + cell[None, :]).ravel()
    tables = np.bincount(flat, minlength=4000 * 12).reshape(4000, 3, 4)
    e = res.expected.to_numpy()
    stat = (((tables - e) ** 2) / e).sum(axis=(1, 2))
    shuffle_p = (1 + (stat >= res.statistic * (1 - 1e-12)).sum()) / 4001
    assert 0.01 < shuffle_p < 0.99  # a case where the p-value is informative
    # same distribution, different draws: equal within Monte-Carlo error (sd of the difference <= 0.012)
    assert abs(res.pvalue_permutation - shuffle_p) < 0.04


@pytest.mark.parametrize("multiclass", [False, True])
def test_test_on_a_table_equals_the_dataframe_test(multiclass):
    rng = np.random.default_rng(21)
    n = 120
    frame = pd.DataFrame(
        {"g": rng.choice(["x", "y", "z"], n), "s": rng.choice(["F", "M"], n), "y": rng.integers(0, 2, n)}
    )
    frame["p"] = np.where(rng.random(n) < 0.7, frame["y"], 1 - frame["y"])
    if multiclass:
        frame["y"] = frame["y"].map({0: "lo", 1: "hi"}).where(rng.random(n) < 0.8, "mid")
        frame["p"] = frame["p"].map({0: "lo", 1: "hi"})
    group = ["g", "s"]
    options = dict(permutation="always", n_resamples=999, rng=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallExpectedCountWarning)
        theirs = equal_confusion_test(frame, group=group, **COLS, **options)
        ours = equal_confusion_test(
            ContingencyTable.from_observed(ContingencyTable.from_frame(frame, group=group, **COLS).frame()),
            **options,
        )
    assert ours.to_record() == theirs.to_record()  # the permutation p-value included
    assert ours.n_resamples == 999 and not math.isnan(ours.pvalue_permutation)
    for name in ("observed", "expected", "residuals", "flag_strict", "flag_bonferroni", "cells"):
        pd.testing.assert_frame_equal(getattr(ours, name), getattr(theirs, name), obj=name)
    pd.testing.assert_frame_equal(ours.to_frame(), theirs.to_frame())
    assert (ours.group_columns, ours.notes) == (theirs.group_columns, theirs.notes)


def test_result_is_frozen():
    res = equal_confusion_test(BIG, group="g", **COLS)
    assert isinstance(res, EqualConfusionResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.pvalue = 0.5


def test_ratio_tables_give_rates_within_actual_class():
    ratios = confusion_ratios(BIG, group="g", **COLS)
    a = ratios[ratios["group"] == "a"].set_index("cell")
    assert a.loc["TP", "share_of_actual"] == pytest.approx(40 / 60)  # TPR
    assert a.loc["FN", "share_of_actual"] == pytest.approx(20 / 60)  # FNR
    assert a.loc["FP", "share_of_actual"] == pytest.approx(30 / 140)  # FPR
    assert a.loc["TN", "share_of_group"] == pytest.approx(110 / 200)
    sums = ratios.groupby(["group", "y_true"])["share_of_actual"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0)


# --- validation -------------------------------------------------------------------------------------------


def test_missing_column_is_named():
    with pytest.raises(ValueError, match=r"missing column\(s\) 'gg'"):
        equal_confusion_test(BIG, group="gg", **COLS)
    with pytest.raises(ValueError, match=r"missing column\(s\) 'truth'"):
        ContingencyTable.from_frame(BIG, group="g", y_true="truth", y_pred="p").frame()


def test_nan_is_refused_naming_column():
    frame = BIG.astype({"p": float})
    frame.loc[5, "p"] = np.nan
    with pytest.raises(ValueError, match=r"column 'p' has 1 missing value"):
        equal_confusion_test(frame, group="g", **COLS)
    frame = BIG.astype({"g": object})
    frame.loc[3, "g"] = None
    with pytest.raises(ValueError, match=r"column 'g' has 1 missing value"):
        adjusted_residuals(frame, group="g", **COLS)


def test_single_group_is_refused():
    with pytest.raises(ValueError, match=r"single group 'a'"):
        equal_confusion_test(BIG[BIG["g"] == "a"], group="g", **COLS)


def test_fewer_than_two_outcome_cells_is_refused():
    frame = pd.DataFrame({"g": ["a", "b", "a", "b"], "y": [0, 0, 0, 0], "p": [0, 0, 0, 0]})
    with pytest.raises(ValueError, match=r"fewer than two outcome cells \(only \['TN'\]\)"):
        confusion_parity_error(frame, group="g", **COLS)


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="`alpha`"):
        equal_confusion_test(BIG, group="g", **COLS, alpha=1.5)
    with pytest.raises(ValueError, match="`posthoc_alpha`"):
        equal_confusion_test(BIG, group="g", **COLS, posthoc_alpha=0)
    with pytest.raises(ValueError, match="`n_resamples`"):
        equal_confusion_test(BIG, group="g", **COLS, n_resamples=0)
    with pytest.raises(ValueError, match="`permutation`"):
        equal_confusion_test(BIG, group="g", **COLS, permutation="sometimes")
    with pytest.raises(TypeError, match="`rng`"):
        equal_confusion_test(BIG, group="g", **COLS, rng="seed")
    with pytest.raises(TypeError, match="`data` must be a data frame .* or Counts, got ndarray"):
        equal_confusion_test(BIG.to_numpy(), group="g", **COLS)
    with pytest.raises(TypeError, match="`group`"):
        ContingencyTable.from_frame(BIG, group=[], **COLS).frame()
    with pytest.raises(ValueError, match="`group` column 'y'"):
        ContingencyTable.from_frame(BIG, group=["g", "y"], **COLS).frame()


def test_table_validation_names_the_problem():
    table = pd.DataFrame([[5, 3], [2, 7]], index=["a", "b"], columns=["TP", "FN"])
    with pytest.raises(ValueError, match=r"negative count -1 at group 'b', cell 'FN'"):
        equal_confusion_test(ContingencyTable.from_observed(table.replace(7, -1)))
    with pytest.raises(ValueError, match="cell 'FN' has no cases"):
        equal_confusion_test(ContingencyTable.from_observed(table.assign(FN=0)))
    with pytest.raises(ValueError, match="at least two groups and two cells"):
        equal_confusion_test(ContingencyTable.from_observed(table.iloc[:1]))
    with pytest.raises(TypeError, match="integer counts"):
        equal_confusion_test(ContingencyTable.from_observed(table.astype(float)))
    with pytest.raises(ValueError, match="`alpha` must be a number strictly between 0 and 1"):
        equal_confusion_test(ContingencyTable.from_observed(table), alpha=1.5)
    with pytest.raises(ValueError, match="`permutation` must be"):
        equal_confusion_test(ContingencyTable.from_observed(table), permutation="sometimes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallExpectedCountWarning)
        result = equal_confusion_test(ContingencyTable.from_observed(table), permutation="never")
    assert result.n == 17 and list(result.cells["y_pred"].isna()) == [True, True]
