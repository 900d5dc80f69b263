"""compendium.paper_b.per_fold_searches: the declared readings of Table I and Tables III/VIII, on small
synthetic copies of the authors' files whose printed numbers one reading (and only one) gives."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.paper_b.authors import AUTHORS_FILES, MODELS
from compendium.paper_b.per_fold_searches import (
    DROPPED_GROUPS,
    PPV_SHARES,
    TABLE_I_ROUNDINGS,
    ppv_search,
    search_summary,
    table_i_search,
)

PUBLISHED_COLUMNS = ["table", "row", "column", "published", "printed_row", "note"]


def _published(path, rows):
    frame = pd.DataFrame([[t, r, c, p, r, ""] for t, r, c, p in rows], columns=PUBLISHED_COLUMNS)
    frame.to_csv(path, index=False)
    return path


def _paper_t(white, black):
    """Paper B's statistic written out: (mean W - mean B) / (s_p (1/n_W + 1/n_B)), left tail, n_W+n_B-2 df."""
    nw, nb = len(white), len(black)
    sp = np.sqrt(((nw - 1) * np.var(white, ddof=1) + (nb - 1) * np.var(black, ddof=1)) / (nw + nb - 2))
    t = (np.mean(white) - np.mean(black)) / (sp * (1 / nw + 1 / nb))
    return np.mean(black) - np.mean(white), t, stats.t.cdf(t, nw + nb - 2)


def test_table_i_search_finds_the_one_reading_that_gives_every_printed_accuracy(tmp_path):
    # LR's mean over the four folds is 0.6564 (0.656 under both roundings, printed 0.657); left out, fold 1
    # (0.655) gives (0.650 + 0.640 + 0.6806) / 3 = 0.656867: 0.657 half up, 0.656 truncated. The other models'
    # accuracies are constant, so every reading gives their printed values.
    lr = [0.650, 0.655, 0.640, 0.6806]
    constant = {"lda": 0.715, "rf": 0.722, "xgb": 0.737}
    frame = pd.DataFrame({MODELS["lr"][2]: lr, **{MODELS[m][2]: [v] * 4 for m, v in constant.items()}})
    frame.to_csv(tmp_path / AUTHORS_FILES["fairness"])
    printed = {"lr": "0.657", "lda": "0.715", "rf": "0.722", "xgb": "0.737"}
    published = _published(
        tmp_path / "p.csv", [("I", MODELS[m][3], "Accuracy", v) for m, v in printed.items()]
    )

    search = table_i_search(tmp_path, published)
    assert len(search) == len(TABLE_I_ROUNDINGS) * 5
    assert search.groupby("rounding", sort=False)["left_out_fold"].apply(list).to_dict() == {
        r: [-1, 0, 1, 2, 3] for r in TABLE_I_ROUNDINGS
    }
    every = search[search["left_out_fold"] < 0].set_index("rounding")
    assert every["lr"].tolist() == [0.656, 0.656] and not every["lr_matches"].any()
    assert (every["n_matching"] == 3).all()
    hits = search[search["reproduces_table"]]
    assert hits[["rounding", "left_out_fold"]].values.tolist() == [["half up", 1]]
    assert (
        search.loc[(search["rounding"] == "truncated") & (search["left_out_fold"] == 1), "lr"].item() == 0.656
    )
    text = search_summary(search)
    assert "half up, all 4 folds: 3 of 4 printed accuracies (LR's not)" in text
    assert "1 of 4 folds give LR's, 1 all four" in text


@pytest.fixture
def ppv_files(tmp_path):
    rng = np.random.default_rng(7)
    k = 6
    shares = {}
    for prefix, *_ in MODELS.values():
        for letter in "ABCDEFGH":
            shares[f"{prefix}{letter}"] = rng.uniform(0.05, 0.4, k)
    confusion = pd.DataFrame(shares)
    confusion.to_csv(tmp_path / AUTHORS_FILES["confusion"])
    ppv = {
        m: (
            confusion[f"{v[0]}A"] / (confusion[f"{v[0]}A"] + confusion[f"{v[0]}C"]),
            confusion[f"{v[0]}B"] / (confusion[f"{v[0]}B"] + confusion[f"{v[0]}D"]),
        )
        for m, v in MODELS.items()
    }
    # printed: every model's numbers with all folds, except XGBoost's, which are those with fold 2 left out of
    # the White values (so that one reading gives XGBoost's three numbers, and none gives every model's)
    rows = []
    for table in ("III", "VIII"):
        for model, (white, black) in ppv.items():
            w = white.drop(index=2) if model == "xgb" else white
            d, t, p = _paper_t(w.to_numpy(), black.to_numpy())
            for column, value in (
                ("Disparity", f"{d:.3f}"),
                ("Test Statistic", f"{t:.2f}"),
                ("P-Value", f"{p:.3f}"),
            ):
                rows.append((table, MODELS[model][3], column, value))
    return tmp_path, _published(tmp_path / "p.csv", rows), ppv


def test_ppv_search_labels_the_reading_that_gives_xgboost_and_judges_the_whole_tables(ppv_files):
    raw, published, ppv = ppv_files
    search = ppv_search(raw, published)
    assert len(search) == len(PPV_SHARES) * (1 + 3 * 6)
    assert set(search["left_out_of"]) == set(DROPPED_GROUPS) and (search["n_numbers"] == 24).all()
    # each reading's XGBoost statistic is the paper's formula on that reading's values
    white, black = ppv["xgb"]
    row = search[
        (search["shares"] == "committed")
        & (search["left_out_of"] == "Black")
        & (search["left_out_fold"] == 4)
    ]
    d, t, p = _paper_t(white.to_numpy(), black.drop(index=4).to_numpy())
    assert row["xgb_disparity"].item() == pytest.approx(d, rel=1e-12)
    assert row["xgb_statistic"].item() == pytest.approx(t, rel=1e-12)
    assert row["xgb_pvalue"].item() == pytest.approx(p, rel=1e-9)
    committed = search[search["shares"] == "committed"]
    none = committed[committed["left_out_of"] == "none"].iloc[0]
    assert none["n_matching"] == 18  # every printed number but XGBoost's six
    hit = committed[(committed["left_out_of"] == "White") & (committed["left_out_fold"] == 2)].iloc[0]
    assert hit["xgb_matches"] and hit["xgb_statistic_matches"] and not hit["reproduces_tables"]
    assert not search["reproduces_tables"].any()
    text = search_summary(search)
    assert text.startswith("declared readings of Tables III/VIII")
    assert "0 every printed number of Tables III and VIII" in text


def test_rounded_shares_are_rounded_before_the_ratio(ppv_files):
    raw, published, _ = ppv_files
    confusion = pd.read_csv(raw / AUTHORS_FILES["confusion"], index_col=0)
    a, c = np.round(confusion["XGA"], 2), np.round(confusion["XGC"], 2)
    b, d = np.round(confusion["XGB"], 2), np.round(confusion["XGD"], 2)
    _, t, _ = _paper_t((a / (a + c)).to_numpy(), (b / (b + d)).to_numpy())
    search = ppv_search(raw, published)
    row = search[(search["shares"] == "rounded to 2 decimals") & (search["left_out_of"] == "none")]
    assert row["xgb_statistic"].item() == pytest.approx(t, rel=1e-12)
