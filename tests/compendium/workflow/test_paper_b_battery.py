"""Paper B's rerun battery end to end on a synthetic rerun: the run_battery and compare_models scripts, the
rules that tabulate, write the erratum and draw the figures, then the notebook that only reads them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import papermill as pm
import pytest
from repo_paths import ROOT

from compendium.data.nij import read_official

NOTEBOOK = ROOT / "notebooks" / "paper_b_battery.ipynb"
SCRIPTS = ROOT / "workflow" / "scripts"
SCRIPT = SCRIPTS / "run_battery.py"
COMPARE = SCRIPTS / "compare_models.py"
AUTHORS = ROOT / "results" / "default" / "nij" / "authors"
RAW = ROOT / "data" / "raw" / "paper-b-authors"
OUTPUTS = {
    "battery": "tables/battery.csv",
    "fold_metrics": "tables/battery_fold_metrics.csv",
    "fold_agreement": "tables/battery_fold_agreement.csv",
    "counts": "tables/battery_count_tables.csv",
    "calibration_bins": "tables/battery_calibration_bins.csv",
    "well_terms": "tables/battery_well_calibration_terms.csv",
    "features": "tables/battery_awareness_features.csv",
    "neighbours": "tables/battery_awareness_neighbours.parquet",
    "pvr": "published-vs-reproduced-battery.csv",
}


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
    assert set(params) == {"results_dir", "authors_battery_csv", "authors_procedure_dir", "preset"}
    assert all(p["help"] for p in params.values())


def _run_script(script: Path, log: Path, *, input: dict, output: dict, params: dict, preset: str = "paper"):
    """Run a workflow script as Snakemake runs it: a ``snakemake`` object with input/output/params (attribute
    and item access, ``keys()``), wildcards and log."""
    driver = (
        "import runpy, types\n"
        "class Files(dict):\n"
        "    __getattr__ = dict.__getitem__\n"
        f"sm = types.SimpleNamespace(wildcards=types.SimpleNamespace(preset={preset!r}),\n"
        f"    input=Files({input!r}), output=Files({output!r}), params=Files({params!r}),\n"
        f"    log=[{str(log)!r}])\n"
        f"runpy.run_path({str(script)!r}, init_globals={{'snakemake': sm}})\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", driver], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr + (log.read_text() if log.exists() else "")


def _synthetic_rerun(tmp_path: Path) -> tuple[Path, Path]:
    """1,000 people (the 50-row official fixture, repeated with new IDs), 5 folds, 4 models, seeded."""
    base = read_official(ROOT / "tests" / "fixtures" / "nij-official-sample.csv")
    copies = []
    for i in range(20):
        c = base.copy()
        c["ID"] = c["ID"] + 100_000 * i
        copies.append(c)
    table = pd.concat(copies, ignore_index=True)
    table["fold"] = pd.array(np.arange(len(table)) % 5, dtype="Int64")
    table_path = tmp_path / "table.parquet"
    table.to_parquet(table_path)
    rng = np.random.default_rng(11)
    y = table["Recidivism_Within_3years"].to_numpy()
    frames = []
    for model in ("lr", "lda", "rf", "xgb"):
        score = np.clip(0.3 * y + rng.uniform(0, 0.7, len(y)), 0, 1)
        pred = (score > 0.5).astype("int8")
        flipped = np.where(rng.uniform(size=len(y)) < 0.05, 1 - pred, pred).astype("int8")
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "fold": table["fold"].astype("int32").to_numpy(),
                    "ID": table["ID"].to_numpy(),
                    "race": table["Race"].astype(str).to_numpy(),
                    "y_true": y.astype("int8"),
                    "y_score": score.astype("float32"),
                    "y_pred": pred,
                    "y_score_flipped": score.astype("float32"),
                    "y_pred_flipped": flipped,
                }
            )
        )
    predictions = tmp_path / "predictions.parquet"
    pd.concat(frames, ignore_index=True).to_parquet(predictions, index=False)
    return predictions, table_path


@pytest.mark.e2e
def test_run_battery_script_then_notebook(tmp_path):
    predictions, table = _synthetic_rerun(tmp_path)
    out = tmp_path / "nij" / "paper"
    outputs = {k: str(out / v) for k, v in OUTPUTS.items()}
    (out / "tables").mkdir(parents=True)
    # the script as Snakemake runs it: a `snakemake` object with input/output/params/wildcards/log
    driver = (
        "import runpy, types\n"
        "ns = types.SimpleNamespace\n"
        "sm = ns(wildcards=ns(preset='paper'),\n"
        f"        input=ns(predictions={str(predictions)!r}, table={str(table)!r},\n"
        f"                 published={str(ROOT / 'data/published/paper-b-tables.csv')!r},\n"
        f"                 authors_battery={str(AUTHORS / 'tables/battery.csv')!r},\n"
        f"                 impossible={str(AUTHORS / 'tables/printed_impossible.csv')!r}),\n"
        f"        output=ns(**{outputs!r}),\n"
        f"        params=ns(favorable=0, alpha=0.05, n_bins=10, raw_dir={str(RAW)!r}),\n"
        f"        log=[{str(tmp_path / 'run_battery.log')!r}])\n"
        f"runpy.run_path({str(SCRIPT)!r}, init_globals={{'snakemake': sm}})\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", driver], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr + (tmp_path / "run_battery.log").read_text()
    battery = pd.read_csv(outputs["battery"])
    assert battery["table"].value_counts().to_dict()["XXV"] == 8  # 4 models x 2 groups
    assert set(battery["source"]) == {"rerun"}
    pvr = pd.read_csv(outputs["pvr"], dtype={"published": str}, keep_default_na=False)
    assert len(pvr) == 272 and (pvr.loc[pvr["matches"].astype(str) == "False", "note"] != "").all()
    assert pvr["note"].str.contains("5 of the paper's 250 folds").any()
    # five folds of 250: no model's predictions are the authors' in every fold, and the agreement is cited
    assert set(pvr["basis"]) <= {"inputs differ", "impossible"}
    differ = pvr.loc[pvr["basis"] == "inputs differ", "evidence"]
    assert differ.str.contains(outputs["fold_agreement"], regex=False).all()
    features = pd.read_csv(outputs["features"])
    assert {"ID", "Unnamed: 0.1"}.isdisjoint(features["feature"])
    assert features.set_index("feature").loc[["Race_BLACK", "Race_WHITE"], "used"].eq(False).all()

    # rule compare_models (issue 42) on the same predictions: every pair, three readings
    comparison = {
        "table": str(out / "tables" / "model_comparison.csv"),
        "figure": str(out / "figures" / "model_comparison.png"),
    }
    _run_script(
        COMPARE,
        tmp_path / "compare_models.log",
        input={"predictions": str(predictions)},
        output=comparison,
        params={
            "favorable": 0,
            "alpha": 0.05,
            "margin": 0.1,
            "raw_dir": str(RAW),
            "models": ["xgb", "rf", "lda", "lr"],  # config order; compared in Table I's order
        },
    )
    pairs = pd.read_csv(comparison["table"])
    assert (
        pairs.groupby(["source", "inference"])
        .apply(lambda g: len(g[["baseline", "model"]].drop_duplicates()), include_groups=False)
        .eq(6)
        .all()
    )
    assert (out / "figures" / "model_comparison.pdf").is_file()
    _run_script(
        SCRIPTS / "summarise_model_comparison.py",
        tmp_path / "summarise_model_comparison.log",
        input={"table": comparison["table"]},
        output={
            "fairer": str(out / "tables" / "model_comparison_fairer.csv"),
            "verdicts": str(out / "tables" / "model_comparison_verdicts.csv"),
        },
        params={},
    )
    verdicts = pd.read_csv(out / "tables" / "model_comparison_verdicts.csv")
    assert verdicts.groupby(["source", "inference", "family"])["comparisons"].sum().to_dict() == (
        pairs.groupby(["source", "inference", "family"]).size().to_dict()
    )

    # the rules between the battery and the notebook (no authors' procedures: another configuration's run)
    tables = out / "tables"
    common = {
        "battery": outputs["battery"],
        "authors_battery": str(AUTHORS / "tables" / "battery.csv"),
        "published": str(ROOT / "data/published/paper-b-tables.csv"),
    }
    tabulated = {name: str(tables / f"paper_b_{name}.csv") for name in ("tables", "conclusions")}
    tabulated |= {
        "summary": str(tables / "paper_b_tables_summary.csv"),
        "layout_md": str(tables / "paper_b_tables_layout.md"),
        "t_by_hand": str(tables / "paper_b_t_by_hand.csv"),
        "causal_matches": str(tables / "paper_b_causal_matches.csv"),
        "conclusion_changes": str(tables / "paper_b_conclusion_changes.md"),
    }
    _run_script(
        SCRIPTS / "tabulate_paper_b.py",
        tmp_path / "tabulate.log",
        input=common
        | {k: outputs[k] for k in ("fold_metrics", "counts", "pvr")}
        | {"authors_pvr": str(AUTHORS / "published-vs-reproduced.csv")},
        output=tabulated,
        params={"raw_dir": str(RAW), "alpha": 0.05},
    )
    _run_script(
        SCRIPTS / "write_paper_b_erratum.py",
        tmp_path / "erratum.log",
        input=common
        | {k: tabulated[k] for k in ("tables", "conclusions")}
        | {"impossible": str(AUTHORS / "tables" / "printed_impossible.csv")},
        output={
            "erratum": str(tables / "paper_b_erratum.csv"),
            "by_kind": str(tables / "paper_b_erratum_by_kind.csv"),
            "changed": str(tables / "paper_b_erratum_conclusions.md"),
        },
        params={"raw_dir": str(RAW), "alpha": 0.05},
    )
    _run_script(
        SCRIPTS / "draw_paper_b_figures.py",
        tmp_path / "figures.log",
        input=common | {k: outputs[k] for k in ("fold_metrics", "calibration_bins")},
        output={
            "distributions": str(out / "figures" / "paper_b_fold_distributions.png"),
            "calibration": str(out / "figures" / "paper_b_calibration_curves.png"),
            "pvalues": str(out / "figures" / "paper_b_naive_vs_corrected_pvalues.png"),
        },
        params={"raw_dir": str(RAW), "alpha": 0.05, "favorable": 0},
    )
    for name in ("fold_distributions", "calibration_curves", "naive_vs_corrected_pvalues"):
        assert (out / "figures" / f"paper_b_{name}.png").is_file(), name
        assert (out / "figures" / f"paper_b_{name}.pdf").is_file(), name
    # without the authors' procedures, the refits' matches are an empty table with its columns
    assert pd.read_csv(tabulated["causal_matches"]).empty
    summary = pd.read_csv(tabulated["summary"]).set_index("table")
    assert summary.loc["II", "printed"] == 12 and "authors_procedure_match" not in summary
    by_hand = pd.read_csv(tabulated["t_by_hand"]).set_index("source")
    # the paper's t is sqrt(K/2) times the pooled t: 5 folds here, 250 in the authors' files
    assert by_hand.loc["rerun", "ratio"] == pytest.approx(np.sqrt(5 / 2))
    assert by_hand.loc["authors-per-fold", "ratio"] == pytest.approx(np.sqrt(125))
    assert by_hand["t_paper_by_hand"].to_numpy() == pytest.approx(by_hand["t_paper"].to_numpy(), rel=1e-12)

    files_before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    executed = tmp_path / "executed.ipynb"
    pm.execute_notebook(
        str(NOTEBOOK),
        str(executed),
        parameters={
            "results_dir": str(out),
            "authors_battery_csv": str(AUTHORS / "tables" / "battery.csv"),
            "authors_procedure_dir": "",
        },
        kernel_name="python3",
        progress_bar=False,
        cwd=str(ROOT),
    )
    # the notebook only reads: it writes nothing beside the rules' files
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == files_before
    shown = executed.read_text(encoding="utf-8")
    assert "wrong: t without the square root" in shown and "image/png" in shown
    erratum = pd.read_csv(tables / "paper_b_erratum.csv")
    kinds = set(erratum["kind"])
    assert {
        "wrong: t without the square root",
        "wrong: Table XX's p formula",
        "inconsistent: printed counts",
        "contradiction: printed counts against the text",  # Table XXV, LR protected (issue 21)
    } <= kinds
    # Table XX, LR protected: printed 0.0516 follows the wrong formula; the mid-p (0.0436) changes the verdict
    xx = erratum[
        (erratum["kind"] == "wrong: Table XX's p formula") & (erratum["published"].astype(str) == "0.0516")
    ]
    assert len(xx) == 1 and "verdict" in xx["cause"].item()
    by_kind = pd.read_csv(tables / "paper_b_erratum_by_kind.csv").set_index("kind")
    assert by_kind["numbers"].sum() == len(erratum) and list(by_kind.index) == list(
        dict.fromkeys(erratum["kind"])
    )
    changed = (tables / "paper_b_erratum_conclusions.md").read_text(encoding="utf-8")
    assert (
        changed.startswith("- Every printed t statistic")
        and "Table XX, Logistic Regression (Protected)" in changed
    )
    conclusions = pd.read_csv(tables / "paper_b_conclusions.csv")
    authors = conclusions[conclusions["source"] == "authors-per-fold"].set_index(["test", "model"])
    # with the corrected t, overall accuracy equality is no longer violated by any model (authors' values)
    oae = authors.loc["overall_accuracy_equality"]
    assert oae["violated_paper"].all() and not oae["violated_corrected"].astype(bool).any()
    said = (tables / "paper_b_conclusion_changes.md").read_text(encoding="utf-8")
    assert "- **authors-per-fold**: overall accuracy equality is no longer violated by **any** model." in said
