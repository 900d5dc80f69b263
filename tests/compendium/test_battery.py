"""compendium.paper_b.battery: paper B's battery on out-of-fold predictions; hand-made cases."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT
from scipy import stats
from scipy.spatial.distance import cdist

from compendium.paper_b.as_published import mcnemar_midp_as_published
from compendium.paper_b.authors import authors_battery
from compendium.paper_b.battery import battery_tables, run_battery
from compendium.paper_b.battery_layout import AUTHORS_COLUMNS, BATTERY_COLUMNS, EXTRA_COLUMNS, align_battery
from compendium.paper_b.battery_pvr import fold_agreement, published_vs_reproduced_rerun
from compendium.paper_b.calibration import calibration_test, well_calibration_test
from compendium.publish.published import PVR_PIECE_COLUMNS
from fairstats.calibration import calibration_independence_test
from fairstats.mcnemar import mcnemar_midp

pytestmark = pytest.mark.filterwarnings(
    "ignore::compendium.paper_b.calibration.EmptyBinWarning",
    "ignore::fairstats.calibration.SmallExpectedCountWarning",
    "ignore::fairstats.awareness.SingularCovarianceWarning",
)
RAW = ROOT / "data/raw/paper-b-authors"
PUBLISHED = ROOT / "data/published/paper-b-tables.csv"

# Per fold (4 folds), per race: 10 people each; the number predicted favourable (0) is set per fold, so the
# per-fold PPR of each race is known exactly.
W_FAV = [6, 7, 5, 6]  # White PPR 0.6, 0.7, 0.5, 0.6
B_FAV = [4, 5, 5, 3]  # Black PPR 0.4, 0.5, 0.5, 0.3


def _people(models=("lr", "lda")):
    """Synthetic predictions: 4 folds x 10 White + 10 Black people, the same people for every model."""
    rng = np.random.default_rng(7)
    rows = []
    pid = 0
    for fold in range(4):
        for race, fav in (("WHITE", W_FAV[fold]), ("BLACK", B_FAV[fold])):
            for j in range(10):
                rows.append({"fold": fold, "ID": pid, "race": race, "y_pred": 0 if j < fav else 1})
                pid += 1
    base = pd.DataFrame(rows)
    base["y_true"] = rng.integers(0, 2, len(base))
    base["y_score"] = np.clip(rng.uniform(0, 1, len(base)), 0, 1)
    frames = []
    for model in models:
        f = base.copy()
        f.insert(0, "model", model)
        f["y_pred_flipped"] = f["y_pred"]
        f["y_score_flipped"] = f["y_score"]
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


@pytest.fixture
def predictions():
    return _people()


def _row(battery, table, model="lr", group=""):
    sub = battery[(battery["table"] == table) & (battery["model"] == model) & (battery["group"] == group)]
    assert len(sub) == 1
    return sub.iloc[0]


def test_columns_are_the_authors_battery_columns_then_the_extra_ones(predictions):
    battery = run_battery(predictions)
    assert list(battery.columns) == list(BATTERY_COLUMNS)
    assert tuple(authors_battery(RAW).columns) == AUTHORS_COLUMNS
    assert BATTERY_COLUMNS[: len(AUTHORS_COLUMNS)] == AUTHORS_COLUMNS
    aligned = align_battery(authors_battery(RAW))
    assert list(aligned.columns) == list(BATTERY_COLUMNS)
    assert aligned["corrected_test"].str.startswith("corrected resampled t").all()
    assert aligned[list(EXTRA_COLUMNS[1:-1])].isna().all().all()


def test_rows_in_paper_order_with_the_papers_tails_and_alpha_halved_for_two_test_definitions(predictions):
    battery = run_battery(predictions, alpha=0.05)
    tables = list(dict.fromkeys(battery["table"]))
    assert tables == [
        "II",
        "III",
        "IV",
        "V",
        "VI",
        "VII",
        "VIII",
        "IX",
        "X",
        "XI",
        "XII",
        "XIII",
        "XIV",
        "XV",
        "XX",
    ]
    first = battery.drop_duplicates("table").set_index("table")
    expected_tail = {
        "II": "greater", "III": "less", "IV": "greater", "V": "less", "VI": "greater", "VII": "greater",
        "VIII": "less", "IX": "greater", "X": "two-sided", "XI": "less", "XII": "greater", "XIII": "greater",
        "XIV": "less", "XV": "less", "XX": "two-sided",
    }  # fmt: skip
    assert first["alternative"].to_dict() == expected_tail
    halved = {"VI", "VII", "VIII", "IX"}
    for table, alpha in first["alpha"].items():
        assert alpha == pytest.approx(0.025 if table in halved else 0.05), table
    # without features, no awareness rows
    assert "XXV" not in tables


def test_group_fairness_known_answer_paper_formula_and_corrected_t(predictions):
    r = _row(run_battery(predictions), "II")
    w, b = np.array(W_FAV) / 10, np.array(B_FAV) / 10
    k = 4
    sp = np.sqrt((w.var(ddof=1) + b.var(ddof=1)) / 2)
    assert r["mean_white"] == pytest.approx(w.mean()) and r["mean_black"] == pytest.approx(b.mean())
    assert r["disparity"] == pytest.approx(w.mean() - b.mean())  # right tail: W - B
    assert r["statistic_paper_formula"] == pytest.approx((w.mean() - b.mean()) / (sp * (2 / k)))
    assert r["statistic_pooled"] == pytest.approx(stats.ttest_ind(w, b).statistic)
    d = w - b
    t_corr = d.mean() / np.sqrt((1 / k + 1 / (k - 1)) * d.var(ddof=1))
    assert r["statistic_corrected"] == pytest.approx(t_corr)
    assert r["pvalue_corrected"] == pytest.approx(stats.t.sf(t_corr, k - 1))
    assert bool(r["significant_corrected"]) == (stats.t.sf(t_corr, k - 1) < 0.05)
    assert r["verdict_changes"] == (r["significant_paper"] != r["significant_corrected"])
    assert r["corrected_test"].startswith("corrected resampled t")
    assert np.isnan(r["statistic"]) and np.isnan(r["pvalue"])


def test_disparity_sign_follows_the_tail(predictions):
    battery = run_battery(predictions)
    for table in ("III", "V", "XI", "XIV", "XV"):  # left tails: B - W
        r = _row(battery, table)
        assert r["alternative"] == "less"
        assert r["disparity"] == pytest.approx(r["mean_black"] - r["mean_white"])
        assert r["estimate"] == pytest.approx(r["mean_white"] - r["mean_black"])
    r = _row(battery, "X")  # two-sided: |W - B|
    assert r["disparity"] == pytest.approx(abs(r["mean_white"] - r["mean_black"]))


def test_swapping_race_labels_flips_the_right_tailed_statistic(predictions):
    swapped = predictions.assign(race=predictions["race"].map({"WHITE": "BLACK", "BLACK": "WHITE"}))
    a, b = _row(run_battery(predictions), "II"), _row(run_battery(swapped), "II")
    assert b["statistic_corrected"] == pytest.approx(-a["statistic_corrected"])
    assert b["disparity"] == pytest.approx(-a["disparity"])
    x_a, x_b = _row(run_battery(predictions), "X"), _row(run_battery(swapped), "X")
    assert x_b["pvalue_corrected"] == pytest.approx(x_a["pvalue_corrected"])  # two-sided p unchanged


def test_favorable_outcome_is_explicit(predictions):
    r0 = _row(run_battery(predictions, favorable=0), "II")
    r1 = _row(run_battery(predictions, favorable=1), "II")
    assert r0["mean_white"] == pytest.approx(np.mean(W_FAV) / 10)
    assert r1["mean_white"] == pytest.approx(1 - np.mean(W_FAV) / 10)


def test_undefined_treatment_ratio_is_left_out_and_counted(predictions):
    p = predictions.copy()
    # fold 0, White, model lr: no false positive (nobody with y = 1 predicted 0)
    mask = (p["model"] == "lr") & (p["fold"] == 0) & (p["race"] == "WHITE")
    p.loc[mask & (p["y_pred"] == 0), "y_true"] = 0
    r = _row(run_battery(p), "XI")
    assert r["n_white"] == 3 and r["n_black"] == 4 and r["n_pairs"] == 3


def test_calibration_rows_are_the_calibration_module(predictions):
    tables = battery_tables(predictions, n_bins=5)
    p = predictions[predictions["model"] == "lr"]
    args = (p["y_true"].to_numpy(), p["y_score"].to_numpy(), p["race"].to_numpy())
    kw = {"protected": "BLACK", "unprotected": "WHITE", "n_bins": 5, "favorable": 0}
    cal, well = calibration_test(*args, **kw), well_calibration_test(*args, **kw)
    with pytest.warns(UserWarning):
        ind = calibration_independence_test(
            p.assign(race=p["race"].astype(str)), group="race", y_true="y_true", y_score="y_score",
            groups=("BLACK", "WHITE"), n_bins=5, favorable=0,
        )  # fmt: skip
    r12, r13 = _row(tables.battery, "XII"), _row(tables.battery, "XIII")
    assert (r12["statistic"], r12["df"], r12["pvalue"]) == pytest.approx((cal.statistic, cal.df, cal.pvalue))
    assert (r13["statistic"], r13["df"], r13["pvalue"]) == pytest.approx(
        (well.statistic, well.df, well.pvalue)
    )
    assert r12["statistic_alternative"] == pytest.approx(ind.statistic)
    assert r12["n"] == len(p)
    assert pd.isna(r13["significant_corrected"]) and r13["corrected_test"] == ""
    assert pd.isna(r12["significant_corrected"])  # every bin too small for the independence test: no verdict
    bins = tables.calibration_bins[tables.calibration_bins["model"] == "lr"]
    assert bins["bin"].tolist() == list(range(5))
    assert bins["alpha"].tolist() == cal.table["alpha"].tolist()


def test_causal_discrimination_counts_k_and_both_p_formulas(predictions):
    p = predictions.copy()
    lr_white = (p["model"] == "lr") & (p["race"] == "WHITE")
    idx_1 = p.index[lr_white & (p["y_pred"] == 1)]
    idx_0 = p.index[lr_white & (p["y_pred"] == 0)]
    p.loc[idx_1[:5], "y_pred_flipped"] = 0  # own 1 -> flipped 0: K = 5 (the flipped race is favoured)
    p.loc[idx_0[:1], "y_pred_flipped"] = 1  # own 0 -> flipped 1: N - K = 1
    tables = battery_tables(p)
    r = _row(tables.battery, "XX", "lr", "White")
    assert (r["k"], r["n_minus_k"], r["n"]) == (5, 1, 40)
    assert r["pvalue"] == pytest.approx(mcnemar_midp(5, 1).pvalue)
    assert r["pvalue_as_published"] == pytest.approx(mcnemar_midp_as_published(5, 1).pvalue)
    assert r["statistic"] == 1 and r["disparity"] == pytest.approx(4 / 40)
    assert r["significant_paper"] == (mcnemar_midp_as_published(5, 1).pvalue < 0.05)
    black = _row(tables.battery, "XX", "lr", "Black")
    assert (black["k"], black["n_minus_k"], black["pvalue"]) == (0, 0, 1.0)
    xx = tables.battery[tables.battery["table"] == "XX"]
    assert xx["group"].tolist() == ["White", "Black"] * 2 and xx["model"].tolist() == [
        "lr",
        "lr",
        "lda",
        "lda",
    ]
    c = tables.count_tables.set_index(["table", "group", "original", "other"])["n"].sort_index()
    assert c[("XVI", "White", 1, 0)] == 5 and c[("XVI", "White", 0, 1)] == 1
    assert c.loc[("XVI", "White")].sum() == 40 and c[("XVII", "White", 1, 0)] == 0


def test_fairness_through_awareness_matches_brute_force_mahalanobis(predictions):
    rng = np.random.default_rng(3)
    ids = np.sort(predictions["ID"].unique())
    race = predictions.drop_duplicates("ID").set_index("ID").loc[ids, "race"].to_numpy()
    X = rng.normal(size=(len(ids), 3))
    X[:, 2] = X[:, 0] * 0.5 + rng.normal(size=len(ids))  # correlated columns
    features = pd.DataFrame(X, index=pd.Index(ids, name="ID"), columns=["a", "b", "c"])
    features["Race_WHITE"] = (race == "WHITE").astype(float)  # constant within race: dropped
    tables = battery_tables(predictions, features=features)
    assert tables.features_used == ("a", "b", "c") and tables.features_dropped == ("Race_WHITE",)
    # brute force: pooled within-race covariance, nearest person of the other race
    resid = X.copy()
    for g in ("WHITE", "BLACK"):
        resid[race == g] -= X[race == g].mean(axis=0)
    S = resid.T @ resid / (len(X) - 2)
    D = cdist(X, X, metric="mahalanobis", VI=np.linalg.inv(S))
    D[race[:, None] == race[None, :]] = np.inf
    expected = ids[np.argmin(D, axis=1)]
    nb = tables.neighbours.set_index("ID").loc[ids]
    np.testing.assert_array_equal(nb["neighbor_ID"].to_numpy(), expected)
    np.testing.assert_allclose(nb["distance"].to_numpy(), D.min(axis=1), rtol=1e-9)
    # the 2x2 table: own prediction vs neighbour's, per race
    lr = predictions[predictions["model"] == "lr"].set_index("ID").loc[ids]
    own, other = lr["y_pred"].to_numpy(), lr.loc[expected, "y_pred"].to_numpy()
    white = race == "WHITE"
    k = int(((own == 1) & (other == 0) & white).sum())
    n_k = int(((own == 0) & (other == 1) & white).sum())
    r = _row(tables.battery, "XXV", "lr", "White")
    assert (r["k"], r["n_minus_k"]) == (k, n_k)
    assert r["pvalue"] == pytest.approx(mcnemar_midp(k, n_k).pvalue)
    c = tables.count_tables.set_index(["table", "group", "original", "other"])["n"]
    assert c[("XXI", "White", 1, 0)] == k and c[("XXI", "White", 0, 1)] == n_k


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda p: p.drop(columns="y_pred_flipped"), "y_pred_flipped"),
        (lambda p: p.assign(model=p["model"].replace("lda", "svm")), "'svm'"),
        (lambda p: p.assign(race=p["race"].replace("BLACK", "ASIAN")), "BLACK"),
        (lambda p: pd.concat([p, p.iloc[[0]]]), "appears twice"),
        (lambda p: p[~((p["model"] == "lda") & (p["fold"] == 3))], "different people"),
        (lambda p: p.assign(y_score=p["y_score"].where(p.index != 5)), "y_score"),
    ],
)
def test_bad_predictions_are_refused_naming_the_problem(predictions, change, match):
    with pytest.raises(ValueError, match=match):
        run_battery(change(predictions))


def test_bad_options_and_features_are_refused(predictions):
    with pytest.raises(ValueError, match="alpha"):
        run_battery(predictions, alpha=1.5)
    with pytest.raises(ValueError, match="favorable"):
        run_battery(predictions, favorable=2)
    with pytest.raises(ValueError, match="n_bins"):
        run_battery(predictions, n_bins=0)
    features = pd.DataFrame({"a": np.arange(10.0)}, index=pd.Index(range(10), name="ID"))
    with pytest.raises(ValueError, match="person ID 10"):
        run_battery(predictions, features=features)
    with pytest.raises(TypeError, match="features"):
        run_battery(predictions, features=np.zeros((80, 2)))


def test_published_vs_reproduced_rerun_layout_and_an_exact_count_match(predictions):
    tables = battery_tables(predictions)
    # put the printed Table XVI counts in place of ours: X = original (column), Y = simulated (row)
    printed = {("White", 0, 0): 3029, ("White", 1, 0): 13, ("White", 0, 1): 15, ("White", 1, 1): 7892}
    counts = tables.count_tables.copy()
    for (group, x, y), n in printed.items():
        sel = (counts["table"] == "XVI") & (counts["group"] == group) & (counts["original"] == x)
        counts.loc[sel & (counts["other"] == y), "n"] = n
    pvr = published_vs_reproduced_rerun(replace(tables, count_tables=counts), PUBLISHED, raw_dir=RAW)
    assert list(pvr.columns) == PVR_PIECE_COLUMNS
    assert set(pvr["source"]) == {"rerun"} and set(pvr["paper"]) == {"B"}
    # four folds of the authors' 250: no model's predictions are the authors' in every fold ("" where the
    # fixture has no such model)
    assert (
        set(pvr["basis"]) <= {"", "inputs differ", "impossible"} and (pvr["basis"] == "inputs differ").any()
    )
    assert pvr.loc[pvr["basis"] == "impossible", "published"].tolist() == ["6564"]
    assert pvr["evidence"].str.contains("battery").all()
    assert "I" not in set(pvr["table"]) and len(pvr) == 276 - 4
    xvi = pvr[(pvr["table"] == "XVI") & pvr["row"].str.startswith("Unprotected")]
    assert xvi["matches"].all() and xvi["reproduced"].tolist() == [3029, 13, 15, 7892]
    mismatched = pvr[~pvr["matches"]]
    assert (mismatched["note"] != "").all()
    assert mismatched["note"].str.contains("4 of the paper's 250 folds").any()
    # without features, the awareness numbers have no counterpart and say why
    xxv = pvr[pvr["table"] == "XXV"]
    assert xxv["reproduced"].isna().all() and xxv["note"].str.contains("features").all()


def test_fold_agreement_counts_equal_folds():
    ours = pd.DataFrame(
        {"model": "lr", "metric": "ppr", "group": ["White", "Black"] * 2, "fold": [0, 0, 1, 1],
         "value": [0.5, 0.4, 0.6, np.nan]}
    )  # fmt: skip
    theirs = ours.assign(value=[0.5, 0.4, 0.6, 0.3])
    agreement = fold_agreement(ours, theirs).set_index("metric")
    assert tuple(agreement.loc["ppr", ["n_folds", "n_equal"]]) == (2, 1)
    assert tuple(agreement.loc["all", ["n_folds", "n_equal"]]) == (2, 1)
