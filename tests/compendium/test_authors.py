"""compendium.paper_b.authors: reading the authors' per-fold files, bad input; the printed p-value rule."""

import math
import shutil

import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT

from compendium.paper_b.authors import (
    AUTHORS_FILES,
    AUTHORS_METRICS,
    PAPER_B_TESTS,
    authors_fold_metrics,
    read_published_b,
)
from compendium.publish.published import matches_printed_pvalue

RAW = ROOT / "data/raw/paper-b-authors"


@pytest.fixture
def raw_copy(tmp_path):
    for name in AUTHORS_FILES.values():
        shutil.copy(RAW / name, tmp_path / name)
    return tmp_path


def test_fold_metrics_layout_and_definitions():
    m = authors_fold_metrics(RAW)
    assert len(m) == 4 * len(AUTHORS_METRICS) * 2 * 250
    assert list(m.columns) == ["model", "metric", "group", "fold", "value", "source_file"]
    assert list(m["model"].unique()) == ["lr", "lda", "rf", "xgb"]
    # fold 0, LR, White: A = 0.10870 (5/46), C = 0.04348 (2/46), E = 0.54348 (25/46), G = 0.30435 (14/46)
    f0 = m[(m["model"] == "lr") & (m["group"] == "White") & (m["fold"] == 0)].set_index("metric")["value"]
    assert f0["tpr"] == pytest.approx(5 / 19)  # A / (A + G)
    assert f0["fpr"] == pytest.approx(2 / 27)  # C / (C + E)
    assert f0["fnr"] == pytest.approx(14 / 19)  # G / (A + G)
    assert f0["ppv"] == pytest.approx(5 / 7)  # A / (A + C)
    assert f0["npv"] == pytest.approx(25 / 39)  # E / (E + G)
    assert f0["accuracy"] == pytest.approx(30 / 46)  # A + E
    assert f0["fn_fp_ratio"] == pytest.approx(7.0)  # G / C
    assert f0["ppr"] == pytest.approx(7 / 46)  # White PPR LR column


def test_undefined_fn_fp_ratio_stays_nan_and_is_counted():
    m = authors_fold_metrics(RAW)
    ratio = m[(m["metric"] == "fn_fp_ratio") & (m["model"] == "lr")]
    assert ratio.groupby("group")["value"].apply(lambda v: int(v.isna().sum())).to_dict() == {
        "Black": 3,
        "White": 7,
    }
    assert m.loc[m["metric"] != "fn_fp_ratio", "value"].notna().all()


def test_paper_tests_tails_and_disparity_sign():
    spec = {t.table: t for t in PAPER_B_TESTS}
    assert spec["III"].alternative == "less" and spec["III"].disparity(0.6, 0.65) == pytest.approx(0.05)
    assert spec["II"].alternative == "greater" and spec["II"].disparity(0.3, 0.28) == pytest.approx(0.02)
    assert spec["X"].alternative == "two-sided" and spec["X"].disparity(0.6, 0.7) == pytest.approx(0.1)
    assert [t.table for t in PAPER_B_TESTS if t.n_tests == 2] == ["VI", "VII", "VIII", "IX"]


@pytest.mark.parametrize(
    ("published", "reproduced", "expected"),
    [
        ("~0", 4e-122, True),
        ("~0", 0.0004, True),
        ("~0", 0.0006, False),
        ("~1", 0.99996, True),
        ("~1", 0.989, False),
        ("0", 1e-40, True),
        ("1", 0.9889, False),
        ("0.979", 0.97860, True),
        ("0.0516", 0.04356, False),
        ("~0", math.nan, False),
    ],
)
def test_matches_printed_pvalue(published, reproduced, expected):
    assert matches_printed_pvalue(published, reproduced) is expected


def test_missing_file_names_it(raw_copy):
    (raw_copy / AUTHORS_FILES["confusion"]).unlink()
    with pytest.raises(FileNotFoundError, match="Confusion Distribution.csv"):
        authors_fold_metrics(raw_copy)


def test_missing_column_names_it(raw_copy):
    path = raw_copy / AUTHORS_FILES["confusion"]
    pd.read_csv(path).drop(columns=["XGH"]).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"Confusion Distribution.csv: missing column\(s\) 'XGH'"):
        authors_fold_metrics(raw_copy)


def test_shares_that_do_not_add_up_are_refused(raw_copy):
    path = raw_copy / AUTHORS_FILES["confusion"]
    frame = pd.read_csv(path, index_col=0)
    frame.loc[17, "RFC"] += 0.1
    frame.to_csv(path)
    with pytest.raises(ValueError, match=r"model 'RF', group White: the shares ACEG add up to .* at fold 17"):
        authors_fold_metrics(raw_copy)


def test_missing_value_is_refused(raw_copy):
    path = raw_copy / AUTHORS_FILES["fairness"]
    frame = pd.read_csv(path, index_col=0)
    frame.loc[3, "White PPR LDA"] = np.nan
    frame.to_csv(path)
    with pytest.raises(ValueError, match=r"column 'White PPR LDA' has 1 missing value\(s\), first at fold 3"):
        authors_fold_metrics(raw_copy)


def test_published_file_with_a_repeated_key_is_refused(tmp_path):
    text = (ROOT / "data/published/paper-b-tables.csv").read_text()
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("I,"))
    bad = tmp_path / "b.csv"
    bad.write_text("\n".join([*lines, lines[first]]) + "\n")
    with pytest.raises(ValueError, match=r"the key \(I, Logistic Regression, Accuracy\) is repeated"):
        read_published_b(bad)
