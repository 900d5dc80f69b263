"""The declared readings of Tables XI, XII, XIII, XV (compendium.paper_b.printed_readings)."""


import numpy as np
import pandas as pd
from repo_paths import ROOT

from compendium.paper_b.predictions import read_predictions
from compendium.paper_b.printed_readings import (
    BALANCE_READINGS,
    CALIBRATION_READINGS,
    TREATMENT_READINGS,
    WELL_CALIBRATION_READINGS,
    _bin_of,
    _binned_rows,
    exact_scores,
    run_readings,
)

PREDICTIONS = ROOT / "results/default/nij/paper/predictions/predictions.parquet"
PUBLISHED = ROOT / "data/published/paper-b-tables.csv"


def test_the_readings_are_declared_up_front_with_unique_names():
    lists = (CALIBRATION_READINGS, WELL_CALIBRATION_READINGS, BALANCE_READINGS, TREATMENT_READINGS)
    assert [len(r) for r in lists] == [36, 6, 12, 12]
    for readings in lists:
        names = [r.name for r in readings]
        assert len(set(names)) == len(names)
    named = [r for r in BALANCE_READINGS if r.name == "quantity=score white_class=1 black_class=1"]
    assert len(named) == 1  # the quantity the paper names is among them


def test_closure_decides_the_bin_of_a_score_on_an_edge():
    left, right = CALIBRATION_READINGS[0], CALIBRATION_READINGS[4]
    assert left.get("closure") == "left" and right.get("closure") == "right"
    s = np.array([0.0, 0.3, 0.35, 1.0])
    assert _bin_of(s, left, 10).tolist() == [0, 3, 3, 9]
    assert _bin_of(s, right, 10).tolist() == [0, 2, 3, 9]


def test_closed_bins_count_a_score_on_an_inner_edge_in_both_bins():
    # the authors' scratch notebook (chi square calibration tester.ipynb): a bin is 0 <= s <= 0.1
    both = [r for r in CALIBRATION_READINGS if r.get("closure") == "both" and r.get("edges") == "unit"][0]
    s = np.array([0.0, 0.1, 0.3, 0.35, 1.0])
    rows, bins = _binned_rows(s, both, 10)
    assert rows.tolist() == [0, 1, 2, 3, 4, 1, 2] and bins.tolist() == [0, 0, 2, 3, 9, 1, 3]


def test_random_forest_scores_are_restored_to_hundredths():
    p = pd.DataFrame(
        {"model": ["rf", "rf", "lda"], "y_score": np.array([0.3, 0.07, 0.123456], dtype=np.float32)}
    )
    s = exact_scores(p)
    assert s.iloc[0] == 0.3 and s.iloc[1] == 0.07
    assert s.iloc[2] == np.float64(np.float32(0.123456))


def test_only_the_cross_class_reading_reproduces_table_xv_and_no_reading_xi_to_xiii():
    # Reference: paper B, Tables XI-XIII and XV as printed (data/published/paper-b-tables.csv), LDA and RF
    # rows, against every declared reading on the committed Table I scores (equal to the authors').
    predictions = read_predictions(PREDICTIONS)
    r = run_readings(predictions, PUBLISHED, models=("lda", "rf"))
    full = r[r["reading_matches"]].drop_duplicates(["table", "reading"])
    assert full[["table", "reading"]].values.tolist() == [
        ["XV", "quantity=score white_class=0 black_class=1"]
    ]
    assert r.groupby("table")["reading"].nunique().to_dict() == {"XI": 12, "XII": 36, "XIII": 6, "XV": 12}
    named = r[(r["table"] == "XV") & (r["reading"] == "quantity=score white_class=1 black_class=1")]
    assert not named["matches"][named["column"] == "Disparity"].any()  # the named quantity is not printed
