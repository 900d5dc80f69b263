"""results/published-vs-reproduced.csv: a class for every row from what the rows compute, existing evidence
for every row that is not exact, and one class per printed number (compendium.publish.pvr_classes)."""

import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT

from compendium.paper_b.as_published import mcnemar_midp_as_published
from compendium.publish.published import PVR_COLUMNS, collect_published_vs_reproduced
from compendium.publish.pvr_classes import (
    CLASSES,
    MATCHED_CLASSES,
    by_number,
    classify_published_vs_reproduced,
    evidence_exists,
    summarise_by_number,
)

TABLE = ROOT / "results/published-vs-reproduced.csv"
R = ROOT / "results/default"
SUMMARY = R / "published-vs-reproduced-summary.csv"
BY_NUMBER = R / "published-vs-reproduced-by-number.csv"
BY_NUMBER_SUMMARY = R / "published-vs-reproduced-by-number-summary.csv"
#: The default experiment's pieces, in the workflow's order (workflow/rules/*.smk, PVR_PIECES).
PIECES = [
    R / "compas/propublica_violent/published-vs-reproduced.csv",
    R / "nij/paper/published-vs-reproduced-table1.csv",
    R / "nij/authors_procedure/published-vs-reproduced.csv",
    R / "nij/authors/published-vs-reproduced.csv",
    R / "nij/paper/published-vs-reproduced-battery.csv",
]
AWARENESS = ["XXI", "XXII", "XXIII", "XXIV", "XXV"]


@pytest.fixture(scope="module")
def pvr():
    return pd.read_csv(TABLE, dtype={"published": str}, keep_default_na=False)


def _reproduced(frame):
    return pd.to_numeric(frame["reproduced"].replace("", np.nan), errors="coerce")


def test_every_row_has_a_class_and_every_row_but_an_exact_one_existing_evidence(pvr):
    assert list(pvr.columns) == [*PVR_COLUMNS, "class", "evidence", "basis"]
    assert set(pvr["class"]) <= set(CLASSES)
    other = pvr[pvr["class"] != "exact"]
    assert (other["evidence"] != "").all()
    missing = [e for e in other["evidence"].unique() if not evidence_exists(e, ROOT)]
    assert missing == []


def test_a_rows_class_agrees_with_its_reproduced_value_and_its_match(pvr):
    matched = pvr["matches"].astype(str).str.lower().eq("true")
    computed = _reproduced(pvr).notna()
    # a match is exact, saturated or circular, and only a match is
    assert (matched == pvr["class"].isin(MATCHED_CLASSES)).all()
    # a number the source cannot compute has no value; one it computes has one (a printed number ruled out by
    # arithmetic is impossible whether or not the source computes it)
    assert (pvr.loc[pvr["class"] == "not computable", "reproduced"] == "").all()
    assert computed[pvr["class"].isin(["exact", "saturated", "circular", "differs", "unexplained"])].all()
    # a saturated row is a printed p of 0 or 1; Paper A is matched exactly throughout
    saturated = pvr[pvr["class"] == "saturated"]
    assert (saturated["column"] == "P-Value").all() and saturated["published"].str.lstrip("~").isin(
        ["0", "1"]
    ).all()
    assert (pvr.loc[pvr["paper"] == "A", "class"] == "exact").all()


def test_no_differs_or_impossible_row_without_a_computed_cause(pvr):
    differs = pvr[pvr["class"] == "differs"]
    bridged = differs["note"].str.contains("the same number through source ", regex=False)
    inputs = differs["note"].str.contains(
        "the same computation of this source gives every printed number", regex=False
    )
    assert (bridged | inputs).all()
    # a source that computes with other inputs than the authors' says how it knows
    assert (differs.loc[inputs, "basis"] == "inputs differ").all()
    agreement = "table1_agreement.csv|battery_fold_agreement.csv|causal_count_tables.csv"
    assert differs.loc[inputs, "evidence"].str.contains(agreement).all()
    impossible = pvr[pvr["class"] == "impossible"]
    assert (impossible["basis"] == "impossible").all() and impossible["note"].str.startswith(
        "impossible: "
    ).all()
    assert impossible["evidence"].str.contains("printed_impossible.csv", regex=False).all()


def test_every_unexplained_row_says_what_was_tried(pvr):
    unexplained = pvr[pvr["class"] == "unexplained"]
    assert unexplained["note"].str.contains("; tried: |^tried: ").all()
    # what was tried names every source's value for the number
    for _, r in unexplained.iterrows():
        tried = r["note"].rsplit("tried: ", 1)[1]
        others = pvr[
            (pvr[["paper", "table", "row", "column"]] == r[["paper", "table", "row", "column"]]).all(axis=1)
        ]
        assert all(f"{s}: " in tried for s in others["source"]), (r["table"], r["row"], r["column"])


def test_the_committed_classes_are_those_the_classifier_gives_on_the_committed_pieces(pvr):
    again = classify_published_vs_reproduced(collect_published_vs_reproduced(PIECES))
    again = again[[*PVR_COLUMNS, "class", "evidence", "basis"]]
    committed = pvr.assign(reproduced=_reproduced(pvr))
    for column in ("table", "row", "column", "source", "class", "evidence", "basis", "note"):
        pd.testing.assert_series_equal(
            again[column].fillna("").astype(str), committed[column], check_names=False
        )


def test_circular_rows_are_the_tables_xx_and_xxv_pvalues_from_the_printed_counts(pvr):
    circular = pvr[pvr["class"] == "circular"]
    assert len(circular) == 16 and set(circular["source"]) == {"authors-per-fold"}
    assert set(circular["table"]) == {"XX", "XXV"} and set(circular["column"]) == {"P-Value"}
    for _, r in circular.iterrows():
        cells = pvr[(pvr["table"] == r["table"]) & (pvr["row"] == r["row"]) & (pvr["source"] == r["source"])]
        counts = cells.set_index("column")["published"]
        expected = mcnemar_midp_as_published(int(counts["K"]), int(counts["N-K"])).pvalue
        assert float(r["reproduced"]) == pytest.approx(expected, rel=1e-12)


def test_what_the_authors_files_cannot_give_is_not_computable(pvr):
    per_fold = pvr[(pvr["paper"] == "B") & (pvr["source"] == "authors-per-fold")]
    not_computable = per_fold[per_fold["class"] == "not computable"]
    # Tables XII-XV need every person's score, XVI-XIX and XXI-XXIV the counterfactual or neighbour
    # predictions, and so do Tables XX and XXV's K and N-K; Table XXIV's 6564 is impossible instead
    assert len(not_computable) == 135 and not_computable["reproduced"].eq("").all()
    assert per_fold.loc[_reproduced(per_fold).isna(), "class"].isin(["not computable", "impossible"]).all()


def test_the_printed_number_arithmetic_rules_out_is_impossible_in_every_source(pvr):
    impossible = pvr[pvr["class"] == "impossible"]
    assert set(
        zip(
            impossible["table"], impossible["row"], impossible["column"], impossible["published"], strict=True
        )
    ) == {("XXIV", "Unprotected (White), Neighbor (Y) = 1", "Original (X) = 1", "6564")}
    assert sorted(impossible["source"]) == ["authors-per-fold", "authors-procedure", "rerun"]
    assert "6564 exceeds the 6496 White people with own prediction 1" in impossible["note"].iloc[0]


def test_the_causes_the_searches_did_not_find_stay_unexplained(pvr):
    def rows(table, row, column):
        return pvr[(pvr["table"] == table) & (pvr["row"] == row) & (pvr["column"] == column)].set_index(
            "source"
        )

    # Table I, LR: the authors' own per-fold mean is 0.656893; the declared readings are in table_i_search.csv
    lr = rows("I", "Logistic Regression", "Accuracy")
    assert set(lr["class"]) == {"unexplained"}
    assert "table_i_search.csv" in lr.loc["authors-per-fold", "evidence"]
    assert "13 of 250 folds give LR's, 13 all four" in lr.loc["authors-per-fold", "note"]
    # Tables III and VIII, XGBoost's statistic 14.12 (the committed shares give 14.19)
    for table in ("III", "VIII"):
        xgb = rows(table, "Gradient Boosting", "Test Statistic")
        assert set(xgb["class"]) == {"unexplained"}
        assert "ppv_search.csv" in xgb.loc["authors-per-fold", "evidence"]
        assert "0 every printed number of Tables III and VIII" in xgb.loc["authors-per-fold", "note"]
    # Table XI: searches over conventions and readings, no arithmetic that rules every procedure out
    xi = pvr[pvr["table"] == "XI"]
    assert "impossible" not in set(xi["class"])
    assert set(xi.loc[xi["matches"].astype(str).eq("False"), "class"]) == {"unexplained"}
    # Tables XII and XIII through the authors' procedure: no declared reading gives any model's number
    ap = pvr[(pvr["source"] == "authors-procedure") & pvr["table"].isin(["XII", "XIII"])]
    assert set(ap.loc[ap["class"] != "saturated", "class"]) == {"unexplained"}
    assert ap["evidence"].str.contains("readings_by_model.csv", regex=False).all()


def test_awareness_rows_of_the_authors_procedure_come_from_the_exact_search_with_each_setup_gap(pvr):
    rows = pvr[(pvr["source"] == "authors-procedure") & pvr["table"].isin(AWARENESS)]
    assert len(rows) == 56
    assert rows["note"].str.contains("awareness_exact_search.csv").all()
    assert rows.loc[rows["class"] != "exact", "evidence"].str.contains("awareness_exact_search.csv").all()
    exact = pd.read_csv(R / "nij/authors_procedure/tables/awareness_exact_search.csv")
    cells = rows[~rows["table"].eq("XXV")]
    assert sorted(_reproduced(cells).astype(int)) == sorted(exact["n"])
    # every count that is not the printed one is set against each other set-up tried
    counts = cells[cells["class"] != "exact"]
    assert counts["evidence"].str.contains("exact_search_gaps.csv").all()
    assert counts["note"].str.contains("stack=yx threads=1 moves ours by").all()
    # no set-up tried gives the printed counts: no count row is differs
    assert "differs" not in set(rows["class"])


def test_no_saturated_row_cites_the_random_neighbour_for_another_table(pvr):
    saturated = pvr[pvr["class"] == "saturated"]
    random = saturated["evidence"].str.contains("awareness_random_neighbour.csv", regex=False)
    assert saturated.loc[random, "table"].isin(AWARENESS).all()
    readings = saturated[
        (saturated["source"] == "authors-procedure") & saturated["table"].isin(["XI", "XII", "XIII", "XV"])
    ]
    assert readings["evidence"].str.contains("readings.csv", regex=False).all()


def test_the_summaries_count_rows_per_source_and_numbers_by_their_best_class(pvr):
    summary = pd.read_csv(SUMMARY)
    assert set(CLASSES) <= set(summary.columns)
    assert (summary[list(CLASSES)].sum(axis=1) == summary["numbers"]).all()
    numbers = pd.read_csv(BY_NUMBER, dtype={"published": str}, keep_default_na=False)
    keys = ["paper", "table", "row", "column"]
    assert len(numbers) == len(pvr.drop_duplicates(keys)) and not numbers.duplicated(keys).any()
    again = by_number(pvr)
    pd.testing.assert_series_equal(again["class"], numbers["class"], check_names=False)
    for _, n in numbers.iterrows():
        classes = pvr.loc[(pvr[keys] == n[keys]).all(axis=1), "class"]
        assert CLASSES.index(n["class"]) == min(CLASSES.index(c) for c in classes)
    counts = pd.read_csv(BY_NUMBER_SUMMARY)
    assert (counts[list(CLASSES)].sum(axis=1) == counts["numbers"]).all()
    assert counts["numbers"].sum() == len(numbers)
    b = counts[counts["paper"] == "B"]
    assert b["numbers"].sum() == 272 + 4 and b["impossible"].sum() == 1


# --------------------------------------------------------------------------------------------------- rules


def _row(
    source,
    value,
    matches,
    *,
    column="Statistic",
    table="II",
    row="Logistic Regression",
    published="1.50",
    basis="",
    evidence="results/x.csv",
    note="n",
):
    return {
        "paper": "B",
        "table": table,
        "row": row,
        "column": column,
        "published": published,
        "reproduced": value,
        "source": source,
        "matches": matches,
        "note": "" if matches else note,
        "evidence": evidence,
        "basis": basis,
    }


def _classify(rows):
    return classify_published_vs_reproduced(pd.DataFrame(rows))


def test_matches_are_exact_saturated_or_circular_and_a_number_not_computed_is_not_computable():
    got = _classify(
        [
            _row("rerun", 1.5, True),
            _row("rerun", 1e-9, True, column="P-Value", published="~0"),
            _row("authors-per-fold", 0.7808, True, column="P-Value", published="0.78", basis="circular"),
            _row("authors-per-fold", np.nan, False, table="XII"),
        ]
    )
    assert got["class"].tolist() == ["exact", "saturated", "circular", "not computable"]
    assert got["evidence"].tolist() == ["", "results/x.csv", "results/x.csv", "results/x.csv"]


def test_a_closer_source_that_gives_the_number_explains_the_others_miss():
    got = _classify(
        [
            _row("authors-per-fold", 1.5, True, evidence="results/authors.csv"),
            _row("rerun", 1.7, False, basis="inputs differ", evidence="results/rerun.csv", note="rerun 1.7"),
        ]
    )
    assert got["class"].tolist() == ["exact", "differs"]
    assert got["evidence"].iloc[1] == "results/authors.csv; results/rerun.csv"
    assert (
        got["note"].iloc[1]
        == "rerun 1.7; the same number through source authors-per-fold, closer to what the authors computed: "
        "1.5 (exact)"
    )


def test_a_saturated_p_explains_another_sources_p_only_where_its_statistic_is_explained():
    def rows(statistic_matches):
        return [
            _row("authors-procedure", 50.0 if statistic_matches else 60.0, statistic_matches, table="XIII"),
            _row("authors-procedure", 1e-9, True, column="P-Value", published="0", table="XIII"),
            _row("rerun", 0.2, False, column="P-Value", published="0", table="XIII", basis="inputs equal"),
        ]

    assert _classify(rows(True))["class"].tolist() == ["exact", "saturated", "differs"]
    assert _classify(rows(False))["class"].tolist() == ["unexplained", "saturated", "unexplained"]


def test_inputs_that_differ_explain_a_miss_only_where_the_procedure_reproduces_the_authors_inputs_rows():
    lda = dict(row="Linear Discriminant Analysis", basis="inputs equal")
    lr = dict(basis="inputs differ", evidence="results/table1_agreement.csv")
    validated = _classify([_row("rerun", 1.5, True, **lda), _row("rerun", 1.6, False, **lr)])
    assert validated["class"].tolist() == ["exact", "differs"]
    assert (
        "gives every printed number of Table XIV for the models whose inputs are the authors'"
        in (
            _classify(
                [_row("rerun", 1.5, True, table="XIV", **lda), _row("rerun", 1.6, False, table="XIV", **lr)]
            )["note"].iloc[1]
        )
    )
    # not validated: the LDA row (the authors' inputs) misses too
    assert _classify([_row("rerun", 1.4, False, **lda), _row("rerun", 1.6, False, **lr)])[
        "class"
    ].tolist() == ["unexplained", "unexplained"]
    # validated, but the authors' own per-fold values miss the same number: inputs are not the cause
    blocked = _classify(
        [
            _row("authors-per-fold", 1.55, False, basis="inputs equal"),
            _row("rerun", 1.5, True, **lda),
            _row("rerun", 1.6, False, **lr),
        ]
    )
    assert blocked["class"].tolist() == ["unexplained", "exact", "unexplained"]
    tried = blocked["note"].iloc[2].rsplit("tried: ", 1)[1]
    assert tried.startswith("authors-per-fold: 1.55 (unexplained), rerun: 1.6 (unexplained); evidence ")
    # the procedure groups of paper B: Table XVIII's RF validates Table XVI's LR (causal discrimination)
    causal = _classify(
        [
            _row("authors-procedure", 3.0, True, table="XVIII", **lda),
            _row("authors-procedure", 3.5, False, table="XVI", **lr),
        ]
    )
    assert causal["class"].tolist() == ["exact", "differs"]


def test_arithmetic_makes_a_number_impossible_in_every_source_and_the_rules_refuse_inconsistent_rows():
    got = _classify(
        [
            _row("authors-per-fold", np.nan, False, basis="impossible", evidence="results/imp.csv"),
            _row("rerun", 4216.0, False, basis="impossible", evidence="results/imp.csv"),
        ]
    )
    assert got["class"].tolist() == ["impossible", "impossible"]
    with pytest.raises(ValueError, match="a circular row must match"):
        _classify([_row("authors-per-fold", 0.5, False, basis="circular")])
    with pytest.raises(ValueError, match="ruled out by arithmetic is matched"):
        _classify([_row("rerun", 1.5, True, basis="impossible")])
    with pytest.raises(ValueError, match="names no evidence"):
        _classify([_row("rerun", 1.6, False, evidence="")])
    with pytest.raises(ValueError, match="column 'basis' has value 'fits'"):
        _classify([_row("rerun", 1.6, False, basis="fits")])


def test_by_number_keeps_the_best_class_and_the_summary_counts_it():
    table = _classify(
        [
            _row("authors-per-fold", np.nan, False, table="XII"),
            _row("rerun", 1.5, True, table="XII", row="Random Forest", published="1.5"),
            _row("authors-per-fold", np.nan, False, table="XII", row="Random Forest", published="1.5"),
            _row("rerun", 1.9, False, table="XII"),
        ]
    )
    numbers = by_number(table)
    assert numbers[["row", "class", "source"]].values.tolist() == [
        ["Logistic Regression", "unexplained", "rerun"],
        ["Random Forest", "exact", "rerun"],
    ]
    assert numbers["sources"].iloc[0] == "authors-per-fold: not computable; rerun: unexplained"
    counts = summarise_by_number(numbers)
    assert counts[["table", "numbers", "exact", "unexplained", "not computable"]].values.tolist() == [
        ["XII", 2, 1, 1, 0]
    ]


def test_evidence_exists_checks_every_item(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results/a.csv").write_text("x\n")
    (tmp_path / "t.py").write_text("def test_x():\n    pass\n")
    assert evidence_exists("results/a.csv; t.py::test_x", tmp_path)
    assert not evidence_exists("results/a.csv; t.py::test_y", tmp_path)
    assert not evidence_exists("results/b.csv", tmp_path) and not evidence_exists("", tmp_path)
    assert not evidence_exists("a.csv", tmp_path)  # not under results/
