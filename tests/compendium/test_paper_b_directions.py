"""compendium.paper_b.directions: which way each verdict of paper B goes."""

import numpy as np
import pandas as pd
import pytest

from compendium.paper_b.directions import (
    AGAINST_BLACK,
    AGAINST_WHITE,
    MIXED,
    NONE,
    PRINTED_VERDICTS,
    UNDIRECTED,
    combine_directions,
    printed_number_directions,
    procedure_rows,
    row_directions,
    survival,
)


def _row(**kw):
    base = {
        "table": "II",
        "hypothesis": "II lr",
        "model": "lr",
        "test": "group_fairness",
        "metric": "ppr",
        "alternative": "greater",
        "alpha": 0.05,
        "estimate": 0.02,
        "pvalue_paper": 0.01,
        "pvalue_correct": 0.01,
    }
    base.update(kw)
    return base


def test_one_sided_rows_read_both_directions():
    t = pd.DataFrame(
        [
            _row(),  # White PPR higher, p 0.01 in the paper's tail: against Black
            _row(
                hypothesis="III lr",
                table="III",
                test="predictive_parity",
                metric="ppv",
                alternative="less",
                estimate=0.05,
                pvalue_paper=0.999,
                pvalue_correct=0.999,
            ),  # the paper's "reverse discrimination"
            _row(
                hypothesis="IV lr",
                table="IV",
                test="predictive_equality",
                metric="fpr",
                estimate=-0.001,
                pvalue_paper=0.979,
                pvalue_correct=0.6,
            ),  # reverse by the paper's reading, not by the correct test
        ]
    )
    d = row_directions(t, alpha=0.05)
    assert d["paper_procedure"].tolist() == [AGAINST_BLACK, AGAINST_WHITE, AGAINST_WHITE]
    assert d["corrected"].tolist() == [AGAINST_BLACK, AGAINST_WHITE, NONE]
    # one-sided p made two-sided: 2 min(p, 1 - p)
    np.testing.assert_allclose(d["pvalue_both"], [0.02, 0.002, 0.8])
    # Holm over the three two-sided p-values (0.002, 0.02, 0.8): 0.006, 0.04, 0.8
    np.testing.assert_allclose(d["pvalue_both_holm"], [0.04, 0.006, 0.8])
    assert d["holm"].tolist() == [AGAINST_BLACK, AGAINST_WHITE, NONE]


def test_mcnemar_rows_take_the_direction_of_the_discordant_counts():
    # Table XVII/XX, LDA: White K = 265 (predicted to reoffend, race-flipped self not) vs 0; Black 0 vs 354
    t = pd.DataFrame(
        [
            _row(
                table="XX",
                hypothesis="XX lda White",
                model="lda",
                test="causal_discrimination",
                metric="prediction_vs_counterfactual",
                alternative="two-sided",
                estimate=np.nan,
                group="White",
                k=265,
                n_minus_k=0,
                pvalue_paper=1e-80,
                pvalue_correct=1e-80,
            ),
            _row(
                table="XX",
                hypothesis="XX lda Black",
                model="lda",
                test="causal_discrimination",
                metric="prediction_vs_counterfactual",
                alternative="two-sided",
                estimate=np.nan,
                group="Black",
                k=0,
                n_minus_k=354,
                pvalue_paper=1e-107,
                pvalue_correct=1e-107,
            ),
            _row(
                table="XXV",
                hypothesis="XXV lr Black",
                model="lr",
                test="fairness_through_awareness",
                metric="prediction_vs_neighbor",
                alternative="two-sided",
                estimate=np.nan,
                group="Black",
                k=2826,
                n_minus_k=1282,
                pvalue_paper=1e-131,
                pvalue_correct=1e-131,
            ),
        ]
    )
    d = row_directions(t, alpha=0.05)
    assert d["lean"].tolist() == [AGAINST_WHITE, AGAINST_WHITE, AGAINST_BLACK]
    assert d["corrected"].tolist() == d["lean"].tolist()
    assert combine_directions(d.loc[:1, "holm"]) == AGAINST_WHITE


def test_chi_squared_rows_are_undirected_and_rows_without_p_empty():
    t = pd.DataFrame(
        [
            _row(
                table="XII",
                hypothesis="XII lr",
                test="calibration",
                metric="outcome_rate_by_score_bin",
                estimate=np.nan,
                pvalue_paper=0.04,
                pvalue_correct=0.001,
            ),
            _row(
                table="XIII",
                hypothesis="XIII lr",
                test="well_calibration",
                metric="outcome_rate_by_score_bin",
                estimate=np.nan,
                pvalue_paper=1e-11,
                pvalue_correct=np.nan,
            ),
        ]
    )
    d = row_directions(t, alpha=0.05)
    assert d["corrected"].tolist() == [UNDIRECTED, ""]
    assert d["paper_procedure"].tolist() == [UNDIRECTED, UNDIRECTED]


def test_a_two_sided_t_needs_a_known_metric():
    with pytest.raises(ValueError, match="'two-sided' of metric 'ppr'"):
        row_directions(pd.DataFrame([_row(alternative="two-sided")]), alpha=0.05)


def test_combine_and_survival():
    assert combine_directions(["", ""]) == ""
    assert combine_directions([NONE, AGAINST_BLACK, NONE]) == AGAINST_BLACK
    assert combine_directions([AGAINST_WHITE, AGAINST_BLACK]) == MIXED
    assert survival(AGAINST_WHITE, AGAINST_WHITE, NONE, AGAINST_WHITE) == "survives BH only"
    assert (
        survival(AGAINST_BLACK, AGAINST_WHITE, NONE, NONE) == "reversed: against White under the correct test"
    )
    assert survival(AGAINST_BLACK, MIXED, MIXED, MIXED).startswith("survives Holm (mixed")
    assert (
        survival(NONE, AGAINST_BLACK, AGAINST_BLACK, AGAINST_BLACK) == "not claimed; against Black after Holm"
    )
    assert survival(UNDIRECTED, "", "", "") == "no valid test"


def test_printed_verdicts_quote_the_paper():
    # Reference: paper B's text (Sections II-C, II-D, II-N, II-O): reverse discrimination for predictive
    # parity with every model, predictive equality with logistic regression, causal discrimination with LDA
    # and gradient boosting; awareness: every model biased against Black people.
    assert {m: v[0] for m, v in PRINTED_VERDICTS["predictive_parity"].items()} == dict.fromkeys(
        ["lr", "lda", "rf", "xgb"], AGAINST_WHITE
    )
    assert PRINTED_VERDICTS["predictive_equality"]["lr"][0] == AGAINST_WHITE
    assert PRINTED_VERDICTS["predictive_equality"]["rf"][0] == AGAINST_BLACK
    assert {m for m, v in PRINTED_VERDICTS["causal_discrimination"].items() if v[0] == AGAINST_WHITE} == {
        "lda",
        "xgb",
    }
    assert {v[0] for v in PRINTED_VERDICTS["fairness_through_awareness"].values()} == {AGAINST_BLACK}


def test_printed_numbers_of_table_xxv_contradict_the_text_for_logistic_regression():
    # Reference: paper B, Table XXV as printed: LR (Protected) K = 2727 < N-K = 3175, p 0; the other three
    # protected rows have K > N-K (3723 > 3366, 3654 > 3203, 3726 > 3447).
    published = pd.read_csv("data/published/paper-b-tables.csv", comment="#", dtype=str)
    alternatives = pd.DataFrame(
        {
            "table": ["XXV"],
            "test": ["fairness_through_awareness"],
            "metric": ["prediction_vs_neighbor"],
            "alternative": ["two-sided"],
            "alpha": [0.05],
        }
    )
    d = printed_number_directions(published, alternatives).set_index("row")["direction"]
    assert d["Logistic Regression (Protected)"] == AGAINST_WHITE
    assert d["Linear Discriminant Analysis (Protected)"] == AGAINST_BLACK
    assert d["Gradient Boosting (Protected)"] == AGAINST_BLACK
    assert d["Logistic Regression (Unprotected)"] == AGAINST_BLACK


def test_procedure_rows_read_a_mcnemar_table_and_a_t_table_of_the_authors_procedure():
    mcnemar = pd.DataFrame(
        {
            "table": ["XXV", "XXV"],
            "model": ["rf", "rf"],
            "test": ["fairness_through_awareness"] * 2,
            "metric": ["prediction_vs_neighbor"] * 2,
            "alternative": ["two-sided"] * 2,
            "alpha": [0.05, 0.05],
            "group": ["White", "Black"],
            "k": [10, 40],
            "n_minus_k": [30, 20],
            "pvalue": [0.002, 0.01],
            "pvalue_as_published": [0.003, 0.012],
        }
    )
    t = pd.DataFrame(
        {
            "table": ["XV"],
            "model": ["lda"],
            "test": ["balance_negative_class"],
            "metric": ["mean_score_neg"],
            "alternative": ["less"],
            "alpha": [0.05],
            "estimate": [-0.26],
            "pvalue_paper_formula": [0.0],
            "pvalue_corrected": [1e-6],
        }
    )
    rows = pd.concat([procedure_rows(mcnemar), procedure_rows(t)], ignore_index=True)
    assert rows["hypothesis"].tolist() == ["XXV rf White", "XXV rf Black", "XV lda"]
    assert rows["pvalue_paper"].tolist() == [0.003, 0.012, 0.0]
    assert rows["pvalue_correct"].tolist() == [0.002, 0.01, 1e-6]
    d = row_directions(rows, alpha=0.05).set_index("hypothesis")
    # K < N-K for White people: against Black; K > N-K for Black people: against Black; B - W > 0 under "less"
    assert d["corrected"].tolist() == [AGAINST_BLACK, AGAINST_BLACK, AGAINST_BLACK]
