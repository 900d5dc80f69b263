"""compendium.paper_b.model_comparison: paper B's four models pairwise (issue 42), on synthetic predictions
and on the committed table, whose findings docs/paper-b-conclusions.rst states."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT

from compendium.paper_b.model_comparison import (
    COMPARISON_COLUMNS,
    DEFINITIONS,
    RERUN_METRICS,
    fairer_pairs,
    fairer_text,
    model_comparison,
    model_pairs,
    verdict_counts,
)

RAW = ROOT / "data" / "raw" / "paper-b-authors"
COMMITTED = ROOT / "results" / "default" / "nij" / "paper" / "tables" / "model_comparison.csv"


def predictions(seed=0, n=1200, folds=6):
    """Four models on the same people: LR's PPR disparity small, the others' larger (they favour WHITE)."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["BLACK", "WHITE"], n)
    y = rng.integers(0, 2, n)
    frames = []
    for model, tilt in (("lr", 0.0), ("lda", 0.15), ("rf", 0.15), ("xgb", 0.15)):
        score = np.clip(0.3 * y + rng.uniform(0, 0.7, n) + tilt * (race == "BLACK"), 0, 1)
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "fold": np.arange(n) % folds,
                    "ID": np.arange(n),
                    "race": race,
                    "y_true": y,
                    "y_score": score,
                    "y_pred": (score > 0.5).astype(int),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def test_every_pair_on_every_metric_one_holm_family_per_reading():
    table = model_comparison(predictions(), None)
    assert tuple(table.columns) == COMPARISON_COLUMNS
    assert model_pairs() == [
        ("lr", "lda"),
        ("lr", "rf"),
        ("lr", "xgb"),
        ("lda", "rf"),
        ("lda", "xgb"),
        ("rf", "xgb"),
    ]
    for (source, _inference), part in table.groupby(["source", "inference"]):
        assert source == "rerun"
        fair = part[part["family"] == "fairness"]
        assert len(fair) == 6 * len(RERUN_METRICS)
        low = fair["pvalue"].idxmin()  # Holm over all six pairs and every metric at once
        assert fair.loc[low, "pvalue_adj"] == pytest.approx(min(1, len(fair) * fair.loc[low, "pvalue"]))
        assert set(part.loc[part["family"] == "accuracy", "metric"]) == {"accuracy", "auc"}
    assert (table.loc[table["family"] == "fairness", "definitions"] != "").all()
    assert set(DEFINITIONS) == set(RERUN_METRICS)
    # LR's ppr disparity is the small one: the other three are less fair than LR, beyond chance (over the
    # people: six folds of 200 leave the corrected t little power)
    found = fairer_pairs(table)
    ppr = found[(found["metric"] == "ppr") & (found["inference"] == "people")]
    assert set(ppr["fairer"]) == {"lr"} and set(ppr["than"]) == {"lda", "rf", "xgb"}


def test_predictions_of_other_people_are_refused():
    p = predictions()
    p = p[~((p["model"] == "rf") & (p["ID"] == 3))]
    with pytest.raises(ValueError, match="not of the same people"):
        model_comparison(p, None)


def test_the_committed_table_says_what_the_docs_say():
    """The docs' sentence on which model is fairer than which (docs/paper-b-conclusions.rst: rerun over the
    folds, and the authors' per-fold results), and the accuracy trade-off, read from the committed table."""
    table = pd.read_csv(COMMITTED, keep_default_na=False, na_values=[""])
    table["verdict_note"] = table["verdict_note"].fillna("")
    found = fairer_pairs(table)
    pairs = lambda source: {  # noqa: E731
        (r.fairer, r.than, r.metric)
        for r in found[(found["source"] == source) & (found["inference"] == "folds")].itertuples()
    }
    assert pairs("rerun") == {
        ("lr", "rf", "ppr"),
        ("lr", "lda", "mean_score_pos"),
        ("lr", "rf", "mean_score_pos"),
    }
    assert pairs("authors") == {("lr", "rf", "ppr"), ("lr", "rf", "tpr")}
    rerun = table[(table["source"] == "rerun") & (table["inference"] == "folds")].set_index(
        ["family", "baseline", "model", "metric"]
    )
    assert rerun.loc[("fairness", "lr", "rf", "ppr"), "estimate"] == pytest.approx(-0.043, abs=5e-4)
    assert rerun.loc[("fairness", "lr", "lda", "mean_score_pos"), "estimate"] == pytest.approx(
        0.022, abs=5e-4
    )
    assert rerun.loc[("fairness", "lr", "rf", "mean_score_pos"), "estimate"] == pytest.approx(0.023, abs=5e-4)
    real = rerun.xs("fairness")["verdict_note"].str.startswith("real but within the margin")
    assert real.sum() == 3  # each a real change, within the 0.1 margin
    gains = rerun.xs("accuracy").xs("accuracy", level="metric")
    lr = gains.xs("lr", level="baseline")
    assert lr["estimate"].min() == pytest.approx(0.058, abs=5e-4) and lr["estimate"].max() == pytest.approx(
        0.080, abs=5e-4
    )
    assert (lr["pvalue_adj"] < 0.05).all()
    # the page states these changes, in points, as the table gives them
    page = (ROOT / "docs" / "paper-b-conclusions.rst").read_text(encoding="utf-8")
    section = " ".join(page[page.index("Which model is fairer than which") :].split())
    points = lambda x: f"{abs(x) * 100:.1f}"  # noqa: E731
    ppr = rerun.loc[("fairness", "lr", "rf", "ppr"), "estimate"]
    lda, rf = (rerun.loc[("fairness", "lr", m, "mean_score_pos"), "estimate"] for m in ("lda", "rf"))
    assert f"PPR, a change of {points(ppr)} points" in section
    assert f"mean score, {points(lda)} and {points(rf)} points" in section
    assert f"by {points(lr['estimate'].min())} to {points(lr['estimate'].max())} points" in section
    assert "LR's disparity is smaller than RF's in PPR and TPR" in section


def test_the_authors_and_the_rerun_agree_where_the_rerun_reproduces_the_authors_folds():
    """LDA and RF are reproduced fold by fold (Table I per fold): their pair has the same per-fold rates in
    both sources, hence the same changes and statistics."""
    table = pd.read_csv(COMMITTED)
    keys = ["metric", "estimate", "statistic", "pvalue"]

    def pick(source):
        return table[
            (table["source"] == source)
            & (table["inference"] == "folds")
            & (table["baseline"] == "lda")
            & (table["model"] == "rf")
            & (table["family"] == "fairness")
        ].set_index("metric")

    authors, rerun = pick("authors"), pick("rerun")
    pd.testing.assert_frame_equal(authors[keys[1:]], rerun.loc[authors.index, keys[1:]], rtol=1e-9)


def test_the_committed_summaries_are_the_committed_tables_counted():
    """Rule summarise_model_comparison's tables (the paper preset's model_comparison_fairer.csv and
    model_comparison_verdicts.csv), regenerated from the committed model_comparison.csv, and the verdicts of
    the rerun over the folds as committed: 54 equivalent and 6 inconclusive of 60 fairness comparisons
    (6 pairs x 10 metrics), the accuracy family 11 equivalent and 1 better."""
    table = pd.read_csv(COMMITTED, keep_default_na=False, na_values=[""])
    table["verdict_note"] = table["verdict_note"].fillna("")
    counts = verdict_counts(table)
    committed = pd.read_csv(COMMITTED.with_name("model_comparison_verdicts.csv"))
    pd.testing.assert_frame_equal(counts, committed, check_dtype=False)
    folds = counts[(counts["source"] == "rerun") & (counts["inference"] == "folds")]
    assert folds.set_index(["family", "verdict"])["comparisons"].to_dict() == {
        ("fairness", "equivalent"): 54,
        ("fairness", "inconclusive"): 6,
        ("accuracy", "better"): 1,
        ("accuracy", "equivalent"): 11,
    }
    assert counts.groupby(["source", "inference"])["comparisons"].sum().to_dict() == (
        table.groupby(["source", "inference"]).size().to_dict()
    )
    found = pd.read_csv(COMMITTED.with_name("model_comparison_fairer.csv"))
    pd.testing.assert_frame_equal(found, fairer_pairs(table), check_dtype=False)
    text = fairer_text(found, [("rerun", "folds"), ("authors", "folds"), ("authors", "people")])
    assert text.splitlines() == [
        "- **rerun, folds**: LR than LDA on mean_score_pos; LR than RF on ppr; LR than RF on mean_score_pos",
        "- **authors, folds**: LR than RF on ppr; LR than RF on tpr",
        "- **authors, people**: no pair differs beyond chance",
    ]
