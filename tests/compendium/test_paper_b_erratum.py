"""compendium.paper_b.erratum, .printed_layout, .conclusions and .authors_procedure_views: the tables of the
battery notebook, made by rules (issue 38, item 4).

The committed tables are regenerated from the committed inputs the rules read (the same bytes), and each cause
of the erratum is checked on a small constructed case."""

import filecmp

import numpy as np
import pandas as pd
import pytest
from repo_paths import PUBLISHED, RAW, ROOT

from compendium.paper_b.authors import authors_fold_metrics, printed_count_checks, read_published_b
from compendium.paper_b.authors_procedure_views import (
    causal_matches,
    exact_search_text,
    exact_search_view,
    random_neighbour_text,
    random_neighbour_view,
    readings_summary,
    setup_summary,
    setup_summary_text,
)
from compendium.paper_b.conclusions import conclusion_changes, conclusions, read_conclusions
from compendium.paper_b.erratum import (
    ERRATUM_COLUMNS,
    ERRATUM_KINDS,
    AuthorsProcedureTables,
    changed_conclusions,
    erratum_by_kind,
    paper_b_erratum,
    square_root_ratio,
)
from compendium.paper_b.predictions import read_predictions
from compendium.paper_b.printed_layout import (
    combine_sources,
    layout_markdown,
    layout_sections,
    read_battery,
    read_combined,
    read_pvr,
    source_summary,
    t_by_hand,
)
from fairstats.reporting import write_table

RESULTS = ROOT / "results" / "default" / "nij"
AP_TABLES = RESULTS / "authors_procedure" / "tables"
PUBLISHED_B = PUBLISHED / "paper-b-tables.csv"


def _battery(preset):
    authors = read_battery(RESULTS / "authors" / "tables" / "battery.csv", align=True)
    return pd.concat([authors, read_battery(RESULTS / preset / "tables" / "battery.csv")], ignore_index=True)


def _combined(preset):
    pvr = {
        "authors-per-fold": read_pvr(RESULTS / "authors" / "published-vs-reproduced.csv"),
        "rerun": read_pvr(RESULTS / preset / "published-vs-reproduced-battery.csv"),
        "authors-procedure": read_pvr(RESULTS / "authors_procedure" / "published-vs-reproduced.csv"),
    }
    return combine_sources(read_published_b(PUBLISHED_B), pvr)


@pytest.mark.parametrize("preset", ["paper", "clean"])
def test_the_committed_tables_are_what_the_modules_make_of_the_committed_inputs(preset, tmp_path):
    tables = RESULTS / preset / "tables"
    published = read_published_b(PUBLISHED_B)
    battery = _battery(preset)
    combined = _combined(preset)
    write_table(combined, tmp_path / "paper_b_tables.csv", digits=4)
    # the erratum's rule reads the joined table back: the same floats, text and booleans
    pd.testing.assert_frame_equal(read_combined(tmp_path / "paper_b_tables.csv"), combined)
    assert filecmp.cmp(tmp_path / "paper_b_tables.csv", tables / "paper_b_tables.csv", shallow=False)
    counts = pd.read_csv(tables / "battery_count_tables.csv")
    layout = layout_markdown(combined, battery, count_tables=counts, preset=preset)
    assert layout == (tables / "paper_b_tables_layout.md").read_text(encoding="utf-8")
    write_table(conclusions(battery, published), tmp_path / "paper_b_conclusions.csv")
    assert filecmp.cmp(
        tmp_path / "paper_b_conclusions.csv", tables / "paper_b_conclusions.csv", shallow=False
    )
    ap = AuthorsProcedureTables.from_files(
        **{k: AP_TABLES / f for k, f in AuthorsProcedureTables.FILES.items() if (AP_TABLES / f).is_file()}
    )
    erratum = paper_b_erratum(
        read_combined(tables / "paper_b_tables.csv"),
        battery,
        published=published,
        count_checks=printed_count_checks(PUBLISHED_B, RAW / "paper-b-authors"),
        impossible=pd.read_csv(
            RESULTS / "authors" / "tables" / "printed_impossible.csv", dtype={"published": str}
        ),
        authors_procedure=ap,
        alpha=0.05,
        preset=preset,
    )
    write_table(erratum, tmp_path / "paper_b_erratum.csv")
    assert filecmp.cmp(tmp_path / "paper_b_erratum.csv", tables / "paper_b_erratum.csv", shallow=False)
    assert list(erratum.columns) == list(ERRATUM_COLUMNS)
    assert list(dict.fromkeys(erratum["kind"])) == [k for k in ERRATUM_KINDS if k in set(erratum["kind"])]


@pytest.mark.parametrize("preset", ["paper", "clean"])
def test_the_committed_summaries_are_what_the_modules_make_of_the_committed_tables(preset, tmp_path):
    """Rules tabulate_paper_b and write_paper_b_erratum's smaller tables, regenerated from the committed
    tables they read (the same bytes)."""
    tables = RESULTS / preset / "tables"
    combined = read_combined(tables / "paper_b_tables.csv")
    made = {
        "paper_b_tables_summary.csv": source_summary(combined).reset_index(),
        "paper_b_causal_matches.csv": causal_matches(combined),
        "paper_b_t_by_hand.csv": t_by_hand(
            {
                "authors-per-fold": authors_fold_metrics(RAW / "paper-b-authors"),
                "rerun": pd.read_csv(tables / "battery_fold_metrics.csv"),
            }
        ),
    }
    erratum = pd.read_csv(tables / "paper_b_erratum.csv", dtype=str, keep_default_na=False)
    made["paper_b_erratum_by_kind.csv"] = erratum_by_kind(erratum).reset_index()
    for name, frame in made.items():
        write_table(frame, tmp_path / name, markdown=False)
        assert filecmp.cmp(tmp_path / name, tables / name, shallow=False), name
    concl = read_conclusions(tables / "paper_b_conclusions.csv")
    said = (tables / "paper_b_conclusion_changes.md").read_text(encoding="utf-8")
    assert said == conclusion_changes(concl) + "\n"
    changed = (tables / "paper_b_erratum_conclusions.md").read_text(encoding="utf-8")
    assert changed == changed_conclusions(erratum, concl, _battery(preset), alpha=0.05) + "\n"


def test_the_authors_procedures_summaries_are_what_the_module_makes_of_their_tables(tmp_path):
    """Rule summarise_authors_procedure's four tables, regenerated from the committed tables of rule
    authors_procedure_tables and the opt-in exact search (the same bytes)."""
    rand = pd.read_csv(AP_TABLES / "awareness_random_neighbour.csv")
    gaps = pd.read_csv(AP_TABLES / "exact_search_gaps.csv")
    refits = read_predictions(RESULTS / "authors_procedure" / "predictions" / "refits.parquet")
    made = {
        "awareness_random_neighbour_view.csv": random_neighbour_view(rand),
        "awareness_exact_search_view.csv": exact_search_view(
            pd.read_csv(AP_TABLES / "awareness_exact_search.csv"), rand, gaps
        ),
        "exact_search_setups_summary.csv": setup_summary(
            pd.read_csv(AP_TABLES / "exact_search_neighbours.csv"), refits
        ),
        "readings_summary.csv": readings_summary(pd.read_csv(AP_TABLES / "readings.csv")),
    }
    for name, frame in made.items():
        write_table(frame, tmp_path / name, markdown=False)
        assert filecmp.cmp(tmp_path / name, AP_TABLES / name, shallow=False), name


def test_the_printed_t_is_the_pooled_t_without_the_square_root_in_every_committed_test():
    ratio = square_root_ratio(_battery("paper"))
    # 4 models x (the authors' Tables II-XI, the rerun's II-XI, XIV and XV)
    assert len(ratio) == 88
    assert ratio["ratio"].to_numpy() == pytest.approx(ratio["expected"].to_numpy(), rel=1e-12)
    # Table XI, LR, the authors' files: folds without a false positive left out, 243 White and 247 Black
    # values (results/default/nij/authors/tables/battery.csv), so 1 / sqrt(1/243 + 1/247), not sqrt(125)
    xi = ratio.set_index(["source", "table", "model"]).loc[("authors-per-fold", "XI", "lr")]
    assert (xi["n_white"], xi["n_black"]) == (243, 247)
    assert xi["ratio"] == pytest.approx(1 / np.sqrt(1 / 243 + 1 / 247), rel=1e-12)
    full = ratio[(ratio["n_white"] == 250) & (ratio["n_black"] == 250)]
    assert len(full) == 82 and full["ratio"].to_numpy() == pytest.approx(np.sqrt(125), rel=1e-12)


def test_layout_sections_split_the_layout_by_table():
    text = (RESULTS / "paper" / "tables" / "paper_b_tables_layout.md").read_text(encoding="utf-8")
    sections = layout_sections(text)
    assert list(sections)[:3] == ["II", "III", "IV"] and "XXV" in sections
    assert sections["XX"].startswith("**Table XX** — causal discrimination, McNemar mid-p")
    assert sections["XX"].count("| Logistic Regression (Unprotected) |") == 1
    assert "## Table" not in "".join(sections.values())


def test_source_summary_counts_each_source():
    summary = source_summary(_combined("paper"))
    # Table II prints 12 numbers (4 models x 3 columns); the authors' per-fold values reproduce all 12
    assert summary.loc["II", "printed"] == 12
    assert summary.loc["II", "authors_reproduced"] == 12 and summary.loc["II", "authors_match"] == 12
    assert summary.loc["XVII", "authors_procedure_match"] == 8


def test_t_by_hand_is_the_battery_formula():
    rng = np.random.default_rng(3)
    k = 40
    rows = [
        {
            "model": "lr",
            "metric": "ppr",
            "group": g,
            "fold": f,
            "value": rng.normal(0.5 + 0.02 * (g == "White"), 0.05),
        }
        for f in range(k)
        for g in ("White", "Black")
    ]
    out = t_by_hand({"synthetic": pd.DataFrame(rows)}).iloc[0]
    assert out["K"] == k
    assert out["t_paper_by_hand"] == pytest.approx(out["t_paper"], rel=1e-12)
    assert out["t_corrected_by_hand"] == pytest.approx(out["t_corrected"], rel=1e-12)
    # the paper's formula lacks the square root: sqrt(K/2) times the pooled t
    assert out["ratio"] == pytest.approx(np.sqrt(k / 2), rel=1e-12)


# -------------------------------------------------------------------------------- the erratum, cause by cause


def _published(rows):
    frame = pd.DataFrame(rows, columns=["table", "row", "column", "published", "printed_row", "note"])
    return frame.fillna("")


def _battery_row(**kw):
    row = {
        "source": "authors-per-fold",
        "table": "II",
        "model": "lr",
        "test": "group_fairness",
        "metric": "ppr",
        "alternative": "greater",
        "alpha": 0.05,
        "group": "",
        "statistic_paper_formula": 31.76,
        "statistic_pooled": 2.84,
        "statistic_corrected": 2.78,
        "pvalue_corrected": 0.003,
    }
    row.update(kw)
    return row


def _erratum(combined, battery, published, **kw):
    checks = pd.DataFrame(columns=["table", "model", "group", "check", "printed", "expected", "ok", "note"])
    checks["ok"] = checks["ok"].astype(bool)
    return paper_b_erratum(combined, pd.DataFrame(battery), published=published, count_checks=checks, **kw)


def _joined(published, **sources):
    pvr = {}
    for source, rows in sources.items():
        pvr[source] = pd.DataFrame(
            [("B", *r) for r in rows],
            columns=["paper", "table", "row", "column", "reproduced", "matches", "note"],
        ).astype(str)
    return combine_sources(published, pvr)


def test_a_printed_t_statistic_is_the_t_without_the_square_root():
    published = _published(
        [("II", "Logistic Regression", "Test Statistic", "31.76", "Logistic Regression", "")]
    )
    combined = _joined(
        published,
        **{"authors-per-fold": [("II", "Logistic Regression", "Test Statistic", "31.7565", "True", "")]},
        rerun=[],
    )
    erratum = _erratum(combined, [_battery_row()], published)
    assert erratum["kind"].tolist() == ["wrong: t without the square root"]
    assert erratum["evidence"].item() == "authors-per-fold: pooled t 2.840, corrected t 2.780 (p 0.003)"


def test_table_xx_p_value_by_its_printed_formula_changes_the_verdict():
    # LR protected as printed: K = 27, N-K = 14; printed 0.0516 is 2 cdf(m) - 0.5 pmf(m); the mid-p of Eq. 3
    # is below 0.05
    row = "Logistic Regression (Protected)"
    published = _published(
        [("XX", row, c, v, row, "") for c, v in (("K", "27"), ("N-K", "14"), ("P-Value", "0.0516"))]
    )
    combined = _joined(published, **{"authors-per-fold": []}, rerun=[])
    erratum = _erratum(combined, [_battery_row(table="XX", test="causal_discrimination")], published)
    xx = erratum[erratum["kind"] == "wrong: Table XX's p formula"]
    assert len(xx) == 1 and xx["cause"].item().endswith("the verdict at alpha = 0.05 changes")
    assert xx["evidence"].item().startswith("mid-p from the printed K = 27, N-K = 14: 0.04")


def test_a_mislabelled_mcnemar_row_is_named():
    published = _published(
        [("XX", "Random Forest (Protected)", "K", "1", "Random Forest (Unprotected)", "")]
        + [("XX", "Random Forest (Protected)", "N-K", "1", "Random Forest (Unprotected)", "")]
    )
    combined = _joined(published, **{"authors-per-fold": []}, rerun=[])
    erratum = _erratum(combined, [_battery_row(table="XX", test="causal_discrimination")], published)
    label = erratum[erratum["kind"] == "mislabelled row"]
    assert label[["row", "published"]].values.tolist() == [
        ["Random Forest (Protected)", "Random Forest (Unprotected)"]
    ]


def test_the_authors_procedure_source_needs_its_random_neighbour_table():
    published = _published(
        [("II", "Logistic Regression", "Test Statistic", "31.76", "Logistic Regression", "")]
    )
    combined = _joined(published, **{"authors-per-fold": [], "rerun": [], "authors-procedure": []})
    with pytest.raises(ValueError, match="awareness_random_neighbour"):
        _erratum(combined, [_battery_row()], published)
    with pytest.raises(TypeError, match="unknown table 'refits'"):
        AuthorsProcedureTables.from_files(refits="refits.parquet")


def test_summaries_of_the_committed_erratum_and_conclusions():
    tables = RESULTS / "paper" / "tables"
    erratum = pd.read_csv(tables / "paper_b_erratum.csv", dtype=str, keep_default_na=False)
    kinds = erratum_by_kind(erratum)
    assert kinds["numbers"].sum() == len(erratum)
    assert kinds.loc["wrong: t without the square root", "tables"].startswith("II, III")
    concl = read_conclusions(tables / "paper_b_conclusions.csv")
    text = changed_conclusions(erratum, concl, _battery("paper"), alpha=0.05)
    assert text.startswith("- Every printed t statistic (48 numbers in Tables II, III")
    assert (
        "sqrt(K/2) = 11.18 for K = 250 folds (11.07 to 11.18 over the 88 tests of the sources: Table XI"
        in text
    )
    assert text.splitlines()[0].endswith("the largest relative difference from that factor is 3e-16.")
    assert "- **authors-per-fold**:" in text and "- **rerun**:" in text
    assert "overall accuracy equality" in conclusion_changes(concl)


# ------------------------------------------------------------------------ the authors' procedures' summaries


def test_random_neighbour_view_flags_the_printed_counts_inside_the_range():
    rand = pd.DataFrame(
        {"table": "XXI", "group": "White", "original": [0, 0], "neighbor": [0, 1], "published": [10, 50],
         "mean": [12.0, 30.0], "q025": [8.0, 25.0], "q975": [16.0, 35.0], "z": [-1.0, 8.0]}
    )  # fmt: skip
    view = random_neighbour_view(rand)
    assert view["inside_95"].tolist() == [True, False]
    assert random_neighbour_text(view).startswith("1 of 2 printed cells inside the Monte Carlo 95% range")
    assert "NOT consistent" in random_neighbour_text(view)


def test_exact_search_view_and_text_on_the_committed_search():
    rand = pd.read_csv(AP_TABLES / "awareness_random_neighbour.csv")
    gaps = pd.read_csv(AP_TABLES / "exact_search_gaps.csv")
    view = exact_search_view(pd.read_csv(AP_TABLES / "awareness_exact_search.csv"), rand, gaps)
    assert len(view) == 32 and (view["printed_minus_exact"] == view["published"] - view["n"]).all()
    text = exact_search_text(view, gaps)
    # issue 21's closing note: nearer the printed count than the random neighbour's mean in 31 of 32 cells
    assert "in 31 of 32 cells" in text and "median |printed - exact| / printed = 0.8%" in text
    assert "in_range_of" not in exact_search_view(pd.read_csv(AP_TABLES / "awareness_exact_search.csv"), rand)


def test_setup_summary_and_readings_summary():
    neighbours = pd.DataFrame(
        {"fold": 0, "position": [0, 1, 2, 3], "ID": [1, 2, 3, 4], "black": [1, 1, 0, 0], "setup": "s",
         "neighbour_ID": [3, 4, 1, 1], "distance": 1.4, "distance_minus_sqrt2": [-0.1, -0.02, 0.0, -0.01]}
    )  # fmt: skip
    refits = pd.DataFrame({"model": "lda", "ID": [1, 2, 3, 4], "y_pred": [1, 0, 1, 1]})
    summary = setup_summary(neighbours, refits).set_index(["statistic", "group"])["value"]
    assert summary[("distance_minus_sqrt2_min", "")] == -0.1
    assert summary[("neighbour_predicted_1", "Black")] == 1.0  # neighbours 3 and 4
    assert summary[("other_race_predicted_1", "White")] == 0.5  # people 1 and 2
    assert "neighbour predicted 1 (LDA) 1.000" in setup_summary_text(summary.reset_index())
    readings = pd.DataFrame(
        {"table": ["XV", "XV", "XII"], "reading": ["a", "b", "c"], "reading_matches": [True, False, False]}
    )
    assert readings_summary(readings).values.tolist() == [["XV", 2, "a"], ["XII", 1, "none"]]


def test_causal_matches_need_the_authors_procedure():
    assert causal_matches(_combined("paper")).set_index("table").loc["XVII"].tolist() == [8, 8, 8]
    combined = _combined("paper").drop(
        columns=["authors_procedure", "matches_authors_procedure", "note_authors_procedure"]
    )
    assert causal_matches(combined).empty
