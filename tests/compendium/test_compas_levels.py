"""The COMPAS three-level variant (issue 17 A): the committed tables are the library's numbers on the
filtered data, and the chi-squared is scipy's on the group x (outcome, decision level) table."""


import pandas as pd
import pytest
import yaml
from repo_paths import ROOT
from scipy import stats

from compendium.data.compas import load_preset
from compendium.paper_a.compas_levels import three_level_tables

TABLES = ROOT / "results/default/compas/violent_three_level/tables"


@pytest.fixture(scope="module")
def variant():
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    spec = config["compas"]["variants"]["violent_three_level"]
    frame = load_preset(ROOT / "data/raw", config["compas"]["presets"][spec["filter"]]).frame
    groupings = {g: config["compas"]["groupings"][g] for g in spec["groupings"]}
    return frame, groupings, spec


def test_committed_chi2_equals_scipy(variant):
    frame, groupings, _ = variant
    committed = pd.read_csv(TABLES / "equal_confusion.csv").set_index("grouping")
    for name, columns in groupings.items():
        table = pd.crosstab([frame[c] for c in columns], [frame["y_true"], frame["score_level"]]).to_numpy()
        ref = stats.chi2_contingency(table[table.sum(axis=1) > 0], correction=False)
        assert committed.loc[name, "statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        assert committed.loc[name, "df"] == ref.dof
    assert committed.loc["sex", "n_cells"] == 6 and committed.loc["sex", "n"] == len(frame) == 4020


def test_committed_tables_are_reproduced(variant):
    frame, groupings, spec = variant
    tables = three_level_tables(frame, groupings=groupings, decision=spec["decision"],
                                decision_levels=spec["decision_levels"], alpha=spec["alpha"], n_resamples=99)
    for name in ("level_tests", "ordinal_tests"):
        committed = pd.read_csv(TABLES / f"{name}.csv")
        assert len(committed) == len(tables[name])
        for column in ("estimate", "pvalue"):
            assert committed[column].to_numpy() == pytest.approx(tables[name][column].to_numpy(), rel=1e-9,
                                                                 nan_ok=True)
