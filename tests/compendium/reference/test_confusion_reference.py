"""Paper A's equal confusion tests on COMPAS (violent, ProPublica filter) against reference values.

Provenance:
- chi-squared, df and Cramer's V: issue 3 ("Done when"), the values of paper A's published notebook
  (github.com/furkangursoy/equalconfusion, commit 07b7802, analysis.ipynb), to four decimals;
- adjusted residuals, statistic, df and V to 1e-6 / 1e-9: R 4.2.2,
  ``chisq.test(O, correct = FALSE)$stdres``, computed by R from the raw file (its own filter and tables):
  tests/compendium/reference/data/compas_violent_stdres.csv, made by
  tests/compendium/reference/data/make_confusion_reference.R;
- printed residuals (one decimal) and parity errors (three decimals): data/published/paper-a-tables.csv.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from repo_paths import ROOT

from compendium.data.compas import load_preset
from compendium.publish.published import matches_at_printed_precision
from fairstats.confusion import SmallExpectedCountWarning, equal_confusion_test

R_REFERENCE = Path(__file__).parent / "data" / "compas_violent_stdres.csv"
PUBLISHED = ROOT / "data" / "published" / "paper-a-tables.csv"
GROUPINGS = {"sex": ["sex"], "race": ["race"], "sex_race": ["sex", "race"]}
PAPER_TABLE = {"sex": "V", "race": "VI", "sex_race": "IX"}

# Issue 3 / the authors' notebook: (chi-squared, df, Cramer's V), printed to four decimals.
PUBLISHED_TESTS = {
    "sex": (59.2210, 3, 0.1214),
    "race": (214.7982, 15, 0.1335),
    "sex_race": (292.5588, 30, 0.1558),
}


@pytest.fixture(scope="module")
def results():
    preset = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["compas"]["presets"]
    frame = load_preset(ROOT / "data" / "raw", preset["propublica_violent"]).frame
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallExpectedCountWarning)
        for name, group in GROUPINGS.items():
            out[name] = equal_confusion_test(
                frame, group=group, y_true="y_true", y_pred="y_pred", permutation="never"
            )
    return out


@pytest.fixture(scope="module")
def r_reference() -> pd.DataFrame:
    return pd.read_csv(R_REFERENCE, comment="#")


@pytest.mark.parametrize("name", list(PUBLISHED_TESTS))
def test_statistic_df_and_v_match_published_values(results, name):
    statistic, df, v = PUBLISHED_TESTS[name]
    res = results[name]
    assert res.statistic == pytest.approx(statistic, abs=5e-5)
    assert res.df == df
    assert res.cramers_v == pytest.approx(v, abs=5e-5)
    assert res.pvalue < 1e-10
    assert res.effect_size == "small"


def test_intersection_drops_the_empty_group(results):
    res = results["sex_race"]
    assert res.observed.shape == (11, 4)
    assert "Female - Native American" not in res.observed.index
    assert res.notes == ("group 'Female - Native American' has no cases and is left out",)


@pytest.mark.parametrize("name", list(GROUPINGS))
def test_residuals_statistic_and_v_match_r(results, r_reference, name):
    ref = r_reference[r_reference["grouping"] == name]
    res = results[name]
    ours = res.to_frame().set_index(["group", "cell"])
    ref = ref.set_index(["group", "cell"]).loc[ours.index]
    assert len(ref) == len(ours) == res.observed.size
    np.testing.assert_array_equal(ours["observed"].to_numpy(), ref["observed"].to_numpy())
    np.testing.assert_allclose(ours["residual"].to_numpy(), ref["stdres"].to_numpy(), rtol=0, atol=1e-6)
    assert res.statistic == pytest.approx(ref["statistic"].iloc[0], rel=1e-9)
    assert res.df == ref["df"].iloc[0]
    assert res.cramers_v == pytest.approx(ref["cramers_v"].iloc[0], rel=1e-9)


@pytest.mark.parametrize("name", list(GROUPINGS))
def test_printed_counts_residuals_and_parity_error(results, name):
    published = pd.read_csv(PUBLISHED, comment="#", dtype=str)
    printed = published[published["table"] == PAPER_TABLE[name]]
    res = results[name]
    checked = 0
    for row in printed.itertuples():
        if row.row == "test":
            value = res.cramers_v if row.column == "confusion parity error" else res.pvalue
        else:
            kind, cell = row.column.split(": ")
            value = (res.observed if kind == "O" else res.residuals).loc[row.row, cell]
        assert matches_at_printed_precision(row.published, float(value)), (row, value)
        checked += 1
    assert checked == 2 + 8 * res.observed.shape[0]
