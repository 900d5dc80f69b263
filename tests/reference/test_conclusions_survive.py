"""paper_b_conclusions_survive.csv: the verdicts the paper printed, and corrected_t for t-tests only."""

from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "results/default/inference/tables/paper_b_conclusions_survive.csv"


def test_paper_column_holds_the_verdicts_the_paper_printed():
    # Reference: paper B's text and printed p-values (Sections II-J to II-O): calibration violated by LR, LDA,
    # RF; well-calibration by all but gradient boosting; balance for the negative class by all four; causal
    # discrimination by LDA and gradient boosting (Table XX: p 0.0516 for LR is above 0.05).
    c = pd.read_csv(TABLE, keep_default_na=False).set_index(["source", "test"])
    paper = c.loc["paper", "paper"]
    assert paper["calibration"] == "Logistic Regression, Linear Discriminant Analysis, Random Forest"
    assert paper["well_calibration"] == "Logistic Regression, Linear Discriminant Analysis, Random Forest"
    assert paper["balance_negative_class"] == "all"
    assert paper["causal_discrimination"] == "Linear Discriminant Analysis, Gradient Boosting"
    # the paper's procedure on our rerun is a separate column, and differs where the rerun's numbers differ
    assert c.loc[("paper", "causal_discrimination"), "paper_procedure"] != paper["causal_discrimination"]


def test_corrected_t_holds_t_tests_only():
    c = pd.read_csv(TABLE, keep_default_na=False)
    not_t = c["test"].isin(
        ["calibration", "well_calibration", "causal_discrimination", "fairness_through_awareness"]
    )
    assert (c.loc[not_t, "corrected_t"] == "").all()
    assert (c.loc[~not_t, "corrected_t"] != "").all() and (c.loc[~not_t, "corrected_other"] == "").all()
