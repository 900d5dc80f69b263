"""The NIJ training stage end to end through Snakemake on a tiny configuration (2 presets x 2 models x 3
folds): chunk jobs, gather, the Table I notebook; then a lost chunk is refitted alone, with the same bytes."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from repo_paths import ROOT

from compendium.paper_b.crossval import PREDICTION_COLUMNS
from compendium.paper_b.predictions import read_predictions
from compendium.publish.published import PVR_PIECE_COLUMNS

pytestmark = pytest.mark.e2e

EXPERIMENT = "tinytrain"
TEST_FOLDS = [0, 1, 2]


def _snakemake(cwd: Path, *targets: str) -> subprocess.CompletedProcess:
    # papermill (render_table1) from this environment
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    cmd = [sys.executable, "-m", "snakemake", *targets, "--cores", "2"]
    cmd += ["--configfile", "config/tiny.yaml"]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A copy of the working tree (tracked and untracked, not ignored files; no results); a tiny config."""
    dest = tmp_path_factory.mktemp("training") / "repo"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        if rel.startswith("results/") or not (ROOT / rel).is_file():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    config["experiment"] = EXPERIMENT
    config["nij"].update(
        presets=["paper", "clean"], models=["lda", "xgb"], test_folds=TEST_FOLDS, chunk_size=2
    )
    (dest / "config/tiny.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return dest


def _targets():
    base = f"results/{EXPERIMENT}/nij"
    return [
        f"{base}/paper/predictions/predictions.parquet",
        f"{base}/clean/predictions/predictions.parquet",
        f"{base}/paper/published-vs-reproduced-table1.csv",
    ]


@pytest.fixture(scope="module")
def first_run(workdir):
    res = _snakemake(workdir, *_targets())
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return res


def test_chunks_gather_into_one_tidy_file_per_preset(workdir, first_run):
    chunk_dir = workdir / f"data/interim/{EXPERIMENT}/nij/paper/predictions/chunks"
    chunks = sorted(chunk_dir.glob("*.parquet"))
    assert [c.name for c in chunks] == [
        "lda_000.parquet",
        "lda_001.parquet",
        "xgb_000.parquet",
        "xgb_001.parquet",
    ]
    for preset in ("paper", "clean"):
        p = read_predictions(workdir / f"results/{EXPERIMENT}/nij/{preset}/predictions/predictions.parquet")
        assert tuple(p.columns) == PREDICTION_COLUMNS
        assert list(p["model"].cat.categories) == ["lda", "xgb"]
        assert len(p) == 2 * 3 * 103 and sorted(p["fold"].unique()) == TEST_FOLDS
        settings = p.attrs["fairstats"]
        assert settings["preset"] == preset and settings["features"] == preset
        assert settings["favorable"] == 0 and settings["fold_scheme"] == "paper"
        assert settings["models"]["lda"]["test_folds"] == TEST_FOLDS
    bench = workdir / f"results/{EXPERIMENT}/benchmarks/nij/paper/train_fold_chunk/lda_000.tsv"
    assert pd.read_csv(bench, sep="\t")["s"].iloc[0] > 0
    log = (workdir / f"results/{EXPERIMENT}/logs/nij/paper/train_fold_chunk/lda_000.log").read_text()
    assert "2/2" in log  # the tqdm bar reached its last fold


def test_table1_notebook_writes_tables_figures_and_the_pvr_piece(workdir, first_run):
    out = workdir / f"results/{EXPERIMENT}/nij/paper"
    for rel in (
        "notebooks/paper_b_table1.ipynb",
        "tables/table1.md",
        "figures/table1_accuracy_distribution.png",
        "figures/table1_accuracy_distribution.pdf",
        "figures/table1_ours_vs_authors.png",
    ):
        assert (out / rel).stat().st_size > 0, rel
    table1 = pd.read_csv(out / "tables/table1.csv")
    assert table1["model"].tolist() == ["lda", "xgb"] and (table1["n"] == 3).all()
    assert table1["accuracy_clean"].notna().all()
    agreement = pd.read_csv(out / "tables/table1_agreement.csv").set_index("model")
    assert agreement.loc["lda", "agreement_rate"] == 1.0  # LDA reproduces the authors' folds exactly
    pvr = pd.read_csv(out / "published-vs-reproduced-table1.csv", dtype={"published": str})
    assert list(pvr.columns) == PVR_PIECE_COLUMNS
    assert pvr["row"].tolist() == ["Linear Discriminant Analysis", "Gradient Boosting"]
    assert pvr["evidence"].str.contains("table1_agreement.csv").all()
    assert pvr["published"].tolist() == ["0.715", "0.737"] and set(pvr["source"]) == {"rerun"}
    assert pvr["note"].str.contains("mean over 3 of the 250 folds").all()


def test_a_lost_chunk_is_refitted_alone_and_gives_identical_predictions(workdir, first_run):
    predictions = workdir / f"results/{EXPERIMENT}/nij/paper/predictions/predictions.parquet"
    before = predictions.read_bytes()
    chunk = workdir / f"data/interim/{EXPERIMENT}/nij/paper/predictions/chunks/xgb_001.parquet"
    chunk_before = chunk.read_bytes()
    # as if the run had been killed while fitting this chunk: the chunk and the gathered file are missing
    chunk.unlink()
    predictions.unlink()
    res = _snakemake(workdir, *_targets())
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    log = res.stdout + res.stderr
    assert log.count("rule train_fold_chunk:") == 1  # only the lost chunk is fitted again
    assert "xgb_001.parquet" in log
    assert chunk.read_bytes() == chunk_before  # determinism: the refit gives the same file
    assert predictions.read_bytes() == before
