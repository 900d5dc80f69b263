"""The compendium's worked example of issue 25: COMPAS (selected = rated low risk) through
``fairstats audit --impact-ratios`` in LL144's layout; the committed table is the library's numbers on the
filtered data, and the rates are the counts of the raw rows."""


import numpy as np
import pandas as pd
import pytest
import yaml
from repo_paths import ROOT

from compendium.data.compas import load_preset
from fairstats import impact_ratios

TABLE = ROOT / "results/default/compas/impact_ratios/tables/impact_ratios.csv"


@pytest.fixture(scope="module")
def example():
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    spec = config["compas"]["impact_ratios"]
    frame = load_preset(ROOT / "data/raw", config["compas"]["presets"][spec["filter"]]).frame
    committed = pd.read_csv(TABLE, keep_default_na=False, na_values=[""])
    return frame, spec, committed


def test_committed_table_is_the_librarys_on_the_filtered_people(example):
    frame, spec, committed = example
    result = impact_ratios(frame, group=["sex", "race", ("sex", "race")], y_pred=spec["decision"],
                           favorable=spec["favorable"], min_share=spec["min_share"], alpha=spec["alpha"])
    expected = result.to_frame()
    assert list(committed.columns) == list(expected.columns)
    for column in expected.columns:
        got, want = committed[column], expected[column]
        if pd.api.types.is_numeric_dtype(want) and not pd.api.types.is_bool_dtype(want):
            np.testing.assert_allclose(got.to_numpy(float), want.to_numpy(float), rtol=1e-12, equal_nan=True,
                                       err_msg=column)
        else:
            assert [None if pd.isna(v) else str(v) for v in got] == [
                None if pd.isna(v) or v == "" else str(v) for v in want
            ], column


def test_committed_rates_are_the_raw_counts(example):
    frame, spec, committed = example
    low = frame[spec["decision"]] == spec["favorable"]
    race = committed[committed["grouping"] == "race"].set_index("category")
    for category, part in frame.groupby("race"):
        assert race.loc[category, "n"] == len(part)
        assert race.loc[category, "selected"] == int(low[part.index].sum())
    assert int(race["n"].sum()) == len(frame) == 4020
    # LL144's 2 % rule as configured: Asian and Native American people are kept, with no ratio
    assert set(race.index[race["role"] == "excluded"]) == {"Asian", "Native American"}
    assert race.loc["African-American", "four_fifths"] == "inconclusive"
