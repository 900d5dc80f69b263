"""Paper A's notebook runs end to end through papermill and writes its tables and figures."""

from __future__ import annotations

import json

import pandas as pd
import papermill as pm
import pytest
import yaml
from repo_paths import ROOT

from compendium.data.compas import load_preset

NOTEBOOK = ROOT / "notebooks" / "paper_a_equal_confusion.ipynb"


def test_notebook_is_stored_without_outputs_and_has_one_parameters_cell():
    nb = json.loads(NOTEBOOK.read_text())
    tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1
    assert all(
        not c.get("outputs") and c.get("execution_count") is None
        for c in nb["cells"]
        if c["cell_type"] == "code"
    )
    params = pm.inspect_notebook(str(NOTEBOOK))
    assert set(params) == {
        "data_path", "out_dir", "filter_name", "groupings", "alpha", "posthoc_alpha", "posthoc_strict_alpha",
        "n_resamples", "seed",
    }  # fmt: skip


@pytest.mark.e2e
def test_notebook_runs_on_the_high_only_preset(tmp_path):
    presets = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["compas"]["presets"]
    data = tmp_path / "violent_high_only.parquet"
    load_preset(ROOT / "data" / "raw", presets["violent_high_only"]).frame.to_parquet(data, index=False)
    out = tmp_path / "out"
    pm.execute_notebook(
        str(NOTEBOOK),
        str(tmp_path / "executed.ipynb"),
        parameters={
            "data_path": str(data),
            "out_dir": str(out),
            "filter_name": "violent_high_only",
            "groupings": "sex:sex,age:age_cat",
            "n_resamples": 99,
            "seed": 1,
        },
        kernel_name="python3",
        progress_bar=False,
        cwd=str(ROOT),
    )
    tests = pd.read_csv(out / "tables" / "equal_confusion_tests.csv")
    assert tests["grouping"].tolist() == ["sex", "age"]
    assert tests["n"].tolist() == [4020, 4020]
    assert (tests["pvalue"].between(0, 1)).all()
    for name in ("sex", "age"):
        assert (out / "tables" / f"{name}_cells.csv").is_file()
        assert (out / "figures" / f"{name}_residuals.png").is_file()
        assert (out / "figures" / f"{name}_confusion_matrices.pdf").is_file()
    iv = pd.read_csv(out / "tables" / "table_iv_overall_confusion.csv").set_index("y_pred")
    assert iv.loc["Total", "Total"] == 4020
    assert iv.loc["predicted +", "Total"] < 1107  # High only predicts fewer positives than Medium + High
