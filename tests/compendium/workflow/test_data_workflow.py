"""The data stage's rules in a copy of the working tree: no downloads planned for present files whatever their
timestamps, one download per missing file, verify_raw refuses a corrupted file, reconstruct_nij writes the
NIJ table and is not redone when raw files are merely touched."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import tiny_workflow as tw
from repo_paths import ROOT

TARGETS = ["data/interim/default/verify_raw.tsv", "data/interim/default/nij/table.parquet"]


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A copy of the working tree as a fresh clone has it (git-tracked and not-ignored files)."""
    return tw.copy_clone(tmp_path_factory.mktemp("clone"))


def _snakemake(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _planned(cwd: Path, *targets: str) -> dict[str, int]:
    res = _snakemake(cwd, "-n", *targets, "--quiet", "rules")
    assert res.returncode == 0, res.stdout + res.stderr
    counts: dict[str, int] = {}
    for line in (res.stdout + res.stderr).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("total", "job"):
            counts[parts[0]] = int(parts[1])
    return counts


def _touch_later(paths) -> None:
    later = time.time() + 5
    for p in paths:
        os.utime(p, (later, later))


def test_no_download_planned_whatever_the_timestamps(clone):
    # code newer than the data (a checkout that wrote the workflow last)
    _touch_later(p for p in (clone / "workflow").rglob("*") if p.is_file())
    plan = _planned(clone, *TARGETS)
    assert plan == {"verify_raw": 1, "reconstruct_nij": 1}
    # data newer than the code
    _touch_later(p for p in (clone / "data" / "raw").rglob("*") if p.is_file())
    assert "download_raw" not in _planned(clone, *TARGETS)


def test_missing_file_plans_exactly_its_download(clone):
    removed = ["data/raw/paper-b-authors/Contingencies.csv", "data/raw/nij-paper-folds/fold_017.csv"]
    for rel in removed:
        (clone / rel).unlink()
    try:
        res = _snakemake(clone, "-n", *TARGETS)
    finally:
        for rel in removed:
            shutil.copyfile(ROOT / rel, clone / rel)
    assert res.returncode == 0, res.stdout + res.stderr
    text = res.stdout + res.stderr
    assert text.count("rule download_raw:") == 2
    assert "wildcards: raw_file=nij-paper-folds/fold_017.csv" in text
    assert "wildcards: raw_file=paper-b-authors/Contingencies.csv" in text


@pytest.mark.e2e
def test_reconstruct_and_verify_end_to_end(clone):
    res = _snakemake(clone, "--cores", "1", *TARGETS)
    assert res.returncode == 0, res.stdout + res.stderr
    table = pd.read_parquet(clone / TARGETS[1])
    assert table.shape[0] == 25_750
    assert table["Race"].value_counts().to_dict() == {"BLACK": 14_801, "WHITE": 10_949}
    report = pd.read_csv(clone / TARGETS[0], sep="\t")
    assert len(report) == 260 and set(report["status"]) == {"ok"}
    # touching the raw files re-verifies them but does not rebuild the table (nor what depends on it)
    _touch_later(p for p in (clone / "data" / "raw").rglob("*") if p.is_file())
    assert _planned(clone, *TARGETS) == {"verify_raw": 1}
    # a corrupted raw file (one byte changed) is refused, naming the file and both hashes
    fold = clone / "data/raw/nij-paper-folds/fold_005.csv"
    data = fold.read_bytes()
    fold.write_bytes(data[:500] + bytes([data[500] ^ 0x01]) + data[501:])
    res = _snakemake(clone, "--cores", "1", TARGETS[0])
    assert res.returncode != 0
    log = (clone / "results/default/logs/verify_raw.log").read_text()
    assert "fold_005.csv': mismatch (expected sha256 " in log
    assert "got sha256 " in log
    assert not (clone / TARGETS[0]).exists()
    fold.write_bytes(data)
