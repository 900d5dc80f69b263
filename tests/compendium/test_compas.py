"""COMPAS reader, ProPublica filter and presets, on the vendored files and on small broken copies.

Expected counts: data/raw/PROVENANCE.md (ProPublica's filter, checked with pandas) and paper A, Sec. IV
(4,020 cases; 1,107 predicted positive; 652 actual; 346 true positives).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest
import yaml
from repo_paths import RAW, ROOT

from compendium.data.compas import FilterResult, filter_compas, load_preset, read_compas

VIOLENT = RAW / "compas-scores-two-years-violent.csv"
GENERAL = RAW / "compas-scores-two-years.csv"
PRESETS = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["compas"]["presets"]
PROPUBLICA = dict(day_window=30, exclude_charge_degrees=["O"], positive_scores=["Medium", "High"])


@pytest.fixture(scope="module")
def violent() -> FilterResult:
    return load_preset(RAW, PRESETS["propublica_violent"])


@pytest.fixture(scope="module")
def general() -> FilterResult:
    return load_preset(RAW, PRESETS["propublica_general"])


def test_read_compas_handles_crlf_and_duplicated_headers():
    frame = read_compas(VIOLENT)
    assert frame.shape == (4743, 54)
    assert frame.attrs["duplicated_columns"] == ["decile_score", "priors_count", "two_year_recid"]
    assert {"decile_score.1", "priors_count.1", "two_year_recid.1"} <= set(frame.columns)
    # no carriage return left in the last column's name or values
    assert frame.columns[-1] == "two_year_recid.1"
    assert set(frame["two_year_recid.1"].unique()) == {0, 1}
    assert frame["id"].is_unique
    general = read_compas(GENERAL)
    assert general.shape == (7214, 53)
    assert general.attrs["duplicated_columns"] == ["decile_score", "priors_count"]


def test_violent_preset_counts_match_paper_a(violent):
    frame = violent.frame
    assert len(frame) == 4020
    assert int(frame["y_pred"].sum()) == 1107
    assert int(frame["y_true"].sum()) == 652
    assert int(((frame["y_pred"] == 1) & (frame["y_true"] == 1)).sum()) == 346
    assert frame["sex"].value_counts().to_dict() == {"Male": 3179, "Female": 841}
    assert frame["race"].value_counts().to_dict() == {
        "African-American": 1918, "Caucasian": 1459, "Hispanic": 355, "Other": 255, "Asian": 26,
        "Native American": 7,
    }  # fmt: skip
    assert violent.score_column == "v_score_text"
    assert violent.source.endswith("compas-scores-two-years-violent.csv")


def test_general_preset_counts_match_propublica(general):
    frame = general.frame
    assert len(frame) == 6172
    assert int(frame["y_pred"].sum()) == 2751
    assert int(frame["y_true"].sum()) == 2809
    assert int(((frame["y_pred"] == 1) & (frame["y_true"] == 1)).sum()) == 1733
    assert general.score_column == "score_text"


def test_tidy_columns_come_first_and_originals_are_kept(violent):
    frame = violent.frame
    assert list(frame.columns[:8]) == [
        "id", "sex", "race", "age_cat", "y_true", "y_pred", "y_score", "score_level",
    ]  # fmt: skip
    assert {"v_score_text", "two_year_recid", "days_b_screening_arrest", "c_charge_degree"} <= set(
        frame.columns
    )
    assert (frame["y_true"] == frame["two_year_recid"]).all()
    assert (frame["y_pred"] == frame["v_score_text"].isin(["Medium", "High"]).astype(int)).all()
    assert (frame["y_score"] == frame["v_decile_score"]).all()
    assert frame.index.equals(pd.RangeIndex(len(frame)))


def test_removal_report_accounts_for_every_row(violent):
    report = violent.to_frame()
    assert list(report.columns) == ["condition", "rows_removed", "rows_left"]
    assert report["rows_left"].iloc[0] == 4743
    assert report["rows_left"].iloc[-1] == 4020
    assert report["rows_removed"].sum() == 4743 - 4020
    diffs = report["rows_left"].shift(1) - report["rows_left"]
    assert (diffs.iloc[1:] == report["rows_removed"].iloc[1:]).all()
    by_condition = dict(zip(report["condition"], report["rows_removed"], strict=True))
    assert by_condition["days_b_screening_arrest is missing"] == 268
    assert by_condition["|days_b_screening_arrest| > 30"] == 455


def test_filter_result_is_frozen(violent):
    with pytest.raises(dataclasses.FrozenInstanceError):
        violent.outcome = "general"


def test_high_only_preset_changes_predictions_not_rows():
    result = load_preset(RAW, PRESETS["violent_high_only"])
    assert len(result.frame) == 4020
    assert int(result.frame["y_pred"].sum()) == int((result.frame["v_score_text"] == "High").sum())
    assert int(result.frame["y_pred"].sum()) < 1107


def test_day_window_and_charge_degree_are_knobs():
    raw = read_compas(VIOLENT)
    wide = filter_compas(raw, outcome="violent", **{**PROPUBLICA, "day_window": 10_000})
    assert len(wide.frame) == 4743 - 268
    no_felony = filter_compas(raw, outcome="violent", **{**PROPUBLICA, "exclude_charge_degrees": ["F"]})
    assert (no_felony.frame["c_charge_degree"] != "F").all()
    assert 0 < len(no_felony.frame) < 4020


def _write_copy(
    tmp_path: Path, frame: pd.DataFrame, name: str = "compas-scores-two-years-violent.csv"
) -> Path:
    path = tmp_path / name
    path.write_text(frame.to_csv(index=False, lineterminator="\r\n"), encoding="utf-8")
    return path


def test_missing_column_names_file_and_column(tmp_path):
    raw = read_compas(VIOLENT).head(50).drop(columns=["v_score_text"])
    path = _write_copy(tmp_path, raw)
    with pytest.raises(ValueError, match=r"compas-scores-two-years-violent\.csv.*'v_score_text'"):
        load_preset(tmp_path, PRESETS["propublica_violent"])
    assert path.exists()


def test_unexpected_value_names_file_column_and_value(tmp_path):
    raw = read_compas(VIOLENT).head(50)
    raw.loc[raw.index[0], "v_score_text"] = "Very High"
    _write_copy(tmp_path, raw)
    with pytest.raises(ValueError, match=r"violent\.csv.*'v_score_text'.*'Very High'"):
        load_preset(tmp_path, PRESETS["propublica_violent"])


def test_unexpected_truth_value_is_refused():
    raw = read_compas(VIOLENT).head(50).copy()
    raw.loc[raw.index[0], "two_year_recid"] = 2
    raw.loc[raw.index[0], "days_b_screening_arrest"] = 0
    with pytest.raises(ValueError, match=r"column 'two_year_recid' has value (np\.int64\()?2"):
        filter_compas(raw, outcome="violent", **PROPUBLICA)


def test_differing_duplicate_column_is_refused(tmp_path):
    text = VIOLENT.read_bytes().decode("utf-8").split("\r\n")
    header, first = text[0], text[1].split(",")
    first[-1] = "1" if first[-1] == "0" else "0"  # last column is the copy of two_year_recid
    path = tmp_path / "broken.csv"
    path.write_text("\r\n".join([header, ",".join(first), *text[2:20]]) + "\r\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.csv: repeated column 'two_year_recid' differs"):
        read_compas(path)


def test_bad_options_are_refused():
    raw = read_compas(VIOLENT).head(20)
    with pytest.raises(ValueError, match="`outcome`"):
        filter_compas(raw, outcome="violence", **PROPUBLICA)
    with pytest.raises(ValueError, match="`day_window`"):
        filter_compas(raw, outcome="violent", **{**PROPUBLICA, "day_window": -1})
    with pytest.raises(ValueError, match="`positive_scores` has value 'high'"):
        filter_compas(raw, outcome="violent", **{**PROPUBLICA, "positive_scores": ["high"]})
    with pytest.raises(TypeError, match="`positive_scores`"):
        filter_compas(raw, outcome="violent", **{**PROPUBLICA, "positive_scores": "High"})
    with pytest.raises(ValueError, match="`exclude_charge_degrees` has value 'X'"):
        filter_compas(raw, outcome="violent", **{**PROPUBLICA, "exclude_charge_degrees": ["X"]})


def test_preset_keys_are_checked(tmp_path):
    with pytest.raises(ValueError, match=r"missing key\(s\) \['day_window'\]"):
        load_preset(RAW, {k: v for k, v in PRESETS["propublica_violent"].items() if k != "day_window"})
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['extra'\]"):
        load_preset(RAW, {**PRESETS["propublica_violent"], "extra": 1})
    with pytest.raises(FileNotFoundError, match="COMPAS file not found"):
        load_preset(tmp_path, PRESETS["propublica_general"])
