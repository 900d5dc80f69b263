"""Paper A's descriptive tables and published-vs-reproduced piece on the vendored COMPAS violent file.

Expected values: paper A's text (4,020 / 1,107 / 652 / 346; accuracy 73 %, precision 31 %, recall 53 %) and
data/published/paper-a-tables.csv (Tables III-VI, IX as printed).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
import yaml
from repo_paths import ROOT

from compendium.data.compas import load_preset
from compendium.paper_a.case_study import (
    crosstab_with_shares,
    format_groupings,
    headline_numbers,
    overall_confusion,
    parse_groupings,
    published_vs_reproduced_a,
    ratio_panels,
)
from compendium.publish.published import PVR_COLUMNS
from fairstats.confusion import SmallExpectedCountWarning, confusion_ratios

PUBLISHED = ROOT / "data" / "published" / "paper-a-tables.csv"


@pytest.fixture(scope="module")
def violent() -> pd.DataFrame:
    presets = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["compas"]["presets"]
    return load_preset(ROOT / "data" / "raw", presets["propublica_violent"]).frame


@pytest.fixture(scope="module")
def published() -> pd.DataFrame:
    return pd.read_csv(PUBLISHED, comment="#", dtype=str, keep_default_na=False)


def test_table_iii_counts_and_shares(violent):
    table = crosstab_with_shares(violent, rows="race", columns="sex").set_index("race")
    assert list(table.columns) == ["Female", "Male", "Total", "%"]
    assert list(table.index)[-2:] == ["Total", "%"]
    assert table.loc["African-American", "Female"] == 393
    assert table.loc["Native American", "Female"] == 0
    assert table.loc["Total", "Total"] == 4020
    assert table.loc["African-American", "%"] == pytest.approx(100 * 1918 / 4020)
    assert table.loc["%", "Female"] == pytest.approx(100 * 841 / 4020)
    assert pd.isna(table.loc["%", "%"])


def test_table_iv_and_headline_numbers(violent):
    table = overall_confusion(violent, y_true="y_true", y_pred="y_pred").set_index("y_pred")
    assert table.loc["predicted +", "actual +"] == 346
    assert table.loc["predicted \u2212", "actual \u2212"] == 2607
    assert table.loc["Total", "Total"] == 4020
    head = headline_numbers(violent, y_true="y_true", y_pred="y_pred")
    assert (head["cases"], head["predicted positive"], head["actual positive"], head["true positive"]) == (
        4020, 1107, 652, 346,
    )  # fmt: skip
    assert head["accuracy"] == pytest.approx(100 * (346 + 2607) / 4020)
    assert round(head["precision"]) == 31 and round(head["recall"]) == 53


def test_ratio_panels_are_rates_in_percent(violent):
    panels = ratio_panels(confusion_ratios(violent, group="sex", y_true="y_true", y_pred="y_pred"))
    pos = panels["actual positive"].set_index("group")
    neg = panels["actual negative"].set_index("group")
    assert pos.loc["Female", "TP % of actual"] == pytest.approx(100 * 27 / 77)
    assert neg.loc["Male", "FP % of actual"] == pytest.approx(100 * 624 / 2604)
    assert pos.loc["Male", "TP % of group"] == pytest.approx(100 * 319 / 3179)
    assert list(pos.index) == ["Female", "Male"]


def test_groupings_round_trip():
    text = "sex:sex,race:race,sex_race:sex+race"
    parsed = parse_groupings(text)
    assert parsed == {"sex": ["sex"], "race": ["race"], "sex_race": ["sex", "race"]}
    assert format_groupings(parsed) == text
    with pytest.raises(ValueError, match="`groupings`: entry 'sex'"):
        parse_groupings("sex")
    with pytest.raises(ValueError, match="appears twice"):
        parse_groupings("a:sex,a:race")


def test_published_vs_reproduced_covers_every_printed_number(violent, published):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallExpectedCountWarning)
        piece = published_vs_reproduced_a(violent, published)
    assert list(piece.columns) == PVR_COLUMNS
    assert len(piece) == len(published) == 211
    assert piece["matches"].all()
    assert set(piece["source"]) == {"rerun"} and set(piece["paper"]) == {"A"}
    assert piece["published"].tolist() == published["published"].tolist()
    note = piece.set_index(["table", "row", "column"])["note"]
    assert "not past it" in note[("IX", "Female - Caucasian", "R: FP")]
    assert "is past it" in note[("IX", "Male - Hispanic", "R: TP")]
    assert "round(p, 5)" in note[("V", "test", "p")]


def test_published_vs_reproduced_notes_a_mismatch(violent, published):
    changed = published.copy()
    changed.loc[changed["row"] == "cases", "published"] = "4,021"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallExpectedCountWarning)
        piece = published_vs_reproduced_a(violent, changed)
    row = piece[piece["row"] == "cases"].iloc[0]
    assert not row["matches"]
    assert row["note"] == "differs at the printed precision"


def test_unknown_published_row_is_refused(violent, published):
    bad = pd.concat([published, pd.DataFrame([{"table": "XI", "row": "x", "column": "y", "published": "1"}])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallExpectedCountWarning)
        with pytest.raises(ValueError, match="cannot reproduce table 'XI', row 'x', column 'y'"):
            published_vs_reproduced_a(violent, bad)
