"""Subgroup search with Westfall-Young max-T adjusted p-values (fairstats.search, issue 17 part B)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest

from fairstats import Counts, UndefinedTestWarning, subgroup_search
from fairstats.search import SEARCH_COLUMNS, _subgroups, _tuple_cells, _z


def _people(rng, n, sizes, planted=None, shift=0.0):
    """``n`` people with attributes A, B, C, ... (``sizes`` values each), random y and p (rate 0.5);
    ``planted``: rows whose false positive rate is raised by ``shift``."""
    frame = pd.DataFrame(
        {chr(65 + i): rng.choice([f"v{j}" for j in range(k)], n) for i, k in enumerate(sizes)}
    )
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < 0.3).astype(int)
    if planted is not None:
        inside = planted(frame).to_numpy() & (y == 0)
        p = np.where(inside, (rng.random(n) < 0.3 + shift).astype(int), p)
    return frame.assign(y=y, p=p)


def test_planted_subgroup_of_two_attributes_is_found_first():
    rng = np.random.default_rng(20261201)
    data = _people(rng, 3000, (3, 3, 3, 3), planted=lambda f: (f["A"] == "v1") & (f["C"] == "v2"), shift=0.35)
    res = subgroup_search(
        data,
        group=list("ABCD"),
        y_true="y",
        y_pred="p",
        metrics=["fpr", "fnr", "ppr"],
        max_depth=2,
        min_size=30,
        n_resamples=999,
        rng=7,
    )
    top = res.to_frame().iloc[0]
    assert top["subgroup"] == "A = v1 & C = v2"
    assert top["metric"] == "fpr" and top["estimate"] > 0.2
    assert top["pvalue_adjusted"] < 0.01 and top["verdict"] == "disparity"
    assert list(res.to_frame().columns) == list(SEARCH_COLUMNS)
    # the adjusted p-value is never below the comparison's own permutation p-value
    table = res.table.dropna(subset=["pvalue"])
    assert (table["pvalue_adjusted"] >= table["pvalue"] - 1e-12).all()
    # 4 attributes of 3 values: 12 subgroups of depth 1 and 6 * 9 of depth 2, all >= 30 people here
    assert res.n_subgroups == 12 + 54


@pytest.mark.slow
def test_family_wise_error_rate_under_the_null_and_the_unadjusted_minimum():
    """1000 null data sets (attributes independent of y and p; 240 people, 3 x 3 x 2 attribute values, depth
    2, 3 metrics), 199 permutations each: the share with an adjusted p < 0.05 anywhere in the search is the
    family-wise error rate; its Monte-Carlo standard error at the nominal 5 % is
    sqrt(0.05 * 0.95 / 1000) = 0.0069, and it must lie within 3 of them of 0.05. The unadjusted minimum p of
    the same searches is below 0.05 far more often."""
    rng = np.random.default_rng(17)
    n_sets, alpha = 1000, 0.05
    adjusted = unadjusted = 0
    for i in range(n_sets):
        data = _people(rng, 240, (3, 3, 2))
        res = subgroup_search(
            data,
            group=["A", "B", "C"],
            y_true="y",
            y_pred="p",
            max_depth=2,
            min_size=20,
            n_resamples=199,
            rng=i,
        )
        adjusted += bool((res.table["pvalue_adjusted"] < alpha).any())
        unadjusted += bool((res.table["pvalue"] < alpha).any())
    se = np.sqrt(alpha * (1 - alpha) / n_sets)
    fwer, naive = adjusted / n_sets, unadjusted / n_sets
    print(f"family-wise error rate {fwer:.3f}; unadjusted minimum p < 0.05: {naive:.3f}")
    assert abs(fwer - alpha) <= 3 * se, fwer
    assert naive > 0.25 and naive > fwer + 3 * se, (naive, fwer)


def test_random_table_is_the_row_permutation_distribution():
    """The counts-based permutation (scipy.stats.random_table on the tuple x cell margins) and permuting the
    attribute rows against the (y_true, y_pred) pairs give the same distribution of the permuted table (a
    chi-squared test of homogeneity of the first tuple's cell counts) and of the search's max |z|."""
    rng = np.random.default_rng(3)
    data = _people(rng, 40, (2, 2))
    attrs = ["A", "B"]
    tuples, table, labels = _tuple_cells(data, None, attrs, "y", "p", 1)
    member, _, _ = _subgroups(tuples, table.sum(axis=1).astype(float), attrs, labels, 2, 1, 40)
    totals = table.sum(axis=0)
    draws = 4000

    def max_z(t):
        z = _z(np.asarray(member @ t.astype(float)), totals, ["fpr", "ppr"])[0]
        return np.nanmax(np.abs(np.nan_to_num(z, nan=0.0)))

    counted = stats.random_table(table.sum(axis=1), totals, seed=rng).rvs(size=draws, method="patefield")
    rows = []
    for _ in range(draws):
        perm = rng.permutation(len(data))
        shuffled = data.assign(A=data["A"].to_numpy()[perm], B=data["B"].to_numpy()[perm])
        t2, permuted, _ = _tuple_cells(shuffled, None, attrs, "y", "p", 1)
        assert (t2 == tuples).all()  # the tuples and their sizes do not change
        rows.append(permuted)
    rows = np.stack(rows)
    assert (counted.sum(axis=2) == rows.sum(axis=2)).all()  # the same fixed margins
    first = pd.crosstab(
        np.repeat(["counts", "rows"], draws),
        [str(t) for t in np.concatenate([counted[:, 0, :], rows[:, 0, :]]).tolist()],
    )
    assert stats.chi2_contingency(first.to_numpy())[1] > 0.001
    z_counted = np.array([max_z(t) for t in counted])
    z_rows = np.array([max_z(t) for t in rows])
    assert stats.ks_2samp(z_counted, z_rows).pvalue > 0.001
    assert abs(z_counted.mean() - z_rows.mean()) < 0.1


def test_statistic_is_the_pooled_two_proportion_z():
    rng = np.random.default_rng(5)
    data = _people(rng, 500, (3, 2))
    res = subgroup_search(
        data, group=["A", "B"], y_true="y", y_pred="p", metrics=["fpr"], n_resamples=99, rng=1
    )
    for row in res.table.head(4).to_dict(orient="records"):
        x1, n1 = row["fp"], row["fp"] + row["tn"]
        total_fp = int(((data["p"] == 1) & (data["y"] == 0)).sum())
        total_neg = int((data["y"] == 0).sum())
        z, _ = proportions_ztest([x1, total_fp - x1], [n1, total_neg - n1])  # pooled variance
        assert row["statistic"] == pytest.approx(z, rel=1e-10)
        assert row["estimate"] == pytest.approx(x1 / n1 - (total_fp - x1) / (total_neg - n1), rel=1e-12)


def test_counts_give_the_same_result_and_the_seed_fixes_it():
    rng = np.random.default_rng(11)
    data = _people(rng, 800, (3, 3))
    kwargs = dict(group=["A", "B"], y_true="y", y_pred="p", n_resamples=199, rng=4)
    rows = subgroup_search(data, **kwargs)
    counts = subgroup_search(Counts.from_frame(data, columns=["A", "B", "y", "p"]), **kwargs)
    pd.testing.assert_frame_equal(rows.table, counts.table)
    again = subgroup_search(data, **kwargs)
    pd.testing.assert_frame_equal(rows.table, again.table)
    other = subgroup_search(data, **{**kwargs, "rng": 5})
    assert not np.array_equal(rows.table["pvalue"], other.table["pvalue"])


def test_undefined_statistic_is_undefined_with_a_named_warning():
    rng = np.random.default_rng(2)
    data = _people(rng, 200, (2, 2))
    data["p"] = data["p"] * data["y"]  # no false positive at all: the FPR has no variance
    with pytest.warns(UndefinedTestWarning, match="undefined"):
        res = subgroup_search(
            data,
            group=["A", "B"],
            y_true="y",
            y_pred="p",
            metrics=["fpr", "fnr"],
            min_size=10,
            n_resamples=99,
            rng=0,
        )
    ppr = res.table[res.table["metric"] == "fpr"]
    assert (ppr["verdict"] == "undefined").all() and ppr["pvalue_adjusted"].isna().all()
    assert ppr["note"].str.contains("no variance").all()
    assert res.n_tests == len(res.table) - len(ppr)


def test_residuals_inside_the_top_subgroups():
    rng = np.random.default_rng(9)
    data = _people(rng, 2000, (2, 3), planted=lambda f: f["B"] == "v0", shift=0.4)
    res = subgroup_search(data, group=["A", "B"], y_true="y", y_pred="p", n_resamples=99, rng=0)
    resid = res.residuals(top=2)
    assert list(dict.fromkeys(resid["subgroup"])) == list(dict.fromkeys(res.table["subgroup"]))[:2]
    fp = resid[(resid["subgroup"] == "B = v0") & (resid["side"] == "subgroup") & (resid["cell"] == "FP")]
    assert float(fp["residual"].iloc[0]) > 3.29 and bool(fp["flag_strict"].iloc[0])
    fig = res.plot(top=4)  # the top 4 defined comparisons, one row each
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()][0] == "B = v0 [fpr]"
    assert len(fig.axes[0].get_yticks()) == 4
    # a 2 x 4 table: the rest's residuals mirror the subgroup's
    one = resid[resid["subgroup"] == "B = v0"]
    inside = one[one["side"] == "subgroup"]["residual"].to_numpy()
    assert np.allclose(inside, -one[one["side"] == "rest"]["residual"].to_numpy())


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"max_depth": 4}, ValueError, "max_depth"),
        ({"max_depth": 0}, ValueError, "max_depth"),
        ({"min_size": 0}, ValueError, "min_size"),
        ({"min_size": 10_000}, ValueError, "no subgroup"),
        ({"metrics": ["fn_fp_ratio"]}, ValueError, "unknown metric"),
        ({"group": ["A", "nope"]}, ValueError, "nope"),
        ({"group": ["A", "A"]}, ValueError, "twice"),
        ({"n_resamples": 0}, ValueError, "n_resamples"),
        ({"alpha": 1.5}, ValueError, "alpha"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    data = _people(np.random.default_rng(0), 100, (2, 2))
    args = {"group": ["A", "B"], "y_true": "y", "y_pred": "p", "n_resamples": 9, **kwargs}
    with pytest.raises(error, match=match):
        subgroup_search(data, **args)


def test_attributes_is_the_old_name_of_group_until_0_4():
    data = _people(np.random.default_rng(0), 200, (2, 2))
    args = {"y_true": "y", "y_pred": "p", "metrics": ["fpr"], "n_resamples": 19, "rng": 3}
    new = subgroup_search(data, group=["A", "B"], **args)
    with pytest.warns(DeprecationWarning, match=r"`attributes` of fairstats.subgroup_search .* use `group`$"):
        old = subgroup_search(data, attributes=["A", "B"], **args)
    pd.testing.assert_frame_equal(old.table, new.table)
    with pytest.warns(DeprecationWarning, match="use `group`"):
        assert new.attributes == new.group == ("A", "B")
    with pytest.raises(TypeError, match="got both `attributes` .* and `group`"):
        subgroup_search(data, attributes=["A"], group=["A", "B"], **args)
