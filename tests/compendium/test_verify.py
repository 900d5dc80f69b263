"""make verify: results just produced against the committed ones, tolerances from config/verify.yaml."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from repo_paths import ROOT

from compendium.publish.verify import main, parse_config, read_config, verify

TABLE = "results/x/nij/paper/tables/table1.csv"

CONFIG = {
    "paths": ["results/x"],
    "exclude": ["results/x/report"],
    "float_rtol": 1e-9,
    "float_atol": 1e-12,
    "machine_dependent": [
        {
            "name": "paper preset LR",
            "why": "unconverged L-BFGS",
            "cells": [{"files": ["results/x/nij/paper/*.csv"], "where": {"model": "lr"}}],
            "renderings": ["results/x/nij/paper/*.md"],
            "ranges": [
                {"file": TABLE, "where": {"model": "lr"}, "column": "accuracy", "min": 0.65, "max": 0.66},
            ],
        }
    ],
}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with committed results: a table with an LR row, its rendering, a figure."""
    _git(tmp_path, "init", "-q")
    table = tmp_path / TABLE
    table.parent.mkdir(parents=True)
    pd.DataFrame(
        {"model": ["lr", "lda"], "n_exact": [106, 250], "accuracy": [0.657009708737864, 0.7149902912621359]}
    ).to_csv(table, index=False)
    table.with_suffix(".md").write_text("| lr | 0.657 |\n| lda | 0.715 |\n")
    (tmp_path / "results/x/figure.png").write_bytes(b"\x89PNG fixed bytes")
    (tmp_path / "results/x/report").mkdir()
    (tmp_path / "results/x/report/index.html").write_text("<p>site</p>")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "results")
    return tmp_path


def _edit(repo: Path, **cells: object) -> None:
    """Set cells of the produced table: ``lda_accuracy=0.8`` sets column accuracy of the lda row."""
    table = repo / TABLE
    frame = pd.read_csv(table)
    for key, value in cells.items():
        model, column = key.split("_", 1)
        frame.loc[frame["model"] == model, column] = value
    frame.to_csv(table, index=False)


def test_identical_results_pass(repo):
    result = verify(repo, parse_config(CONFIG))
    assert result.ok and result.differences == []
    assert result.ranges_checked == 1
    assert result.files_compared == 3  # the report folder is excluded
    assert result.verdict().startswith(
        "reproduced: 0 differences beyond tolerance; 1 known machine-dependent numbers within their range"
    )


def test_a_changed_committed_number_fails_naming_file_row_and_values(repo, capsys):
    _edit(repo, lda_accuracy=0.7151)
    result = verify(repo, parse_config(CONFIG))
    assert not result.ok
    (line,) = result.differences
    assert line == (
        f"{TABLE}: line 3 (model=lda, n_exact=250), column accuracy: committed 0.7149902912621359, "
        "produced 0.7151"
    )
    assert result.verdict().startswith("NOT reproduced: 1 differences beyond tolerance")
    # the command line: exit 1, the difference and the verdict printed
    config = repo / "verify.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    assert main(["--root", str(repo), "--config", "verify.yaml"]) == 1
    out = capsys.readouterr().out
    assert "column accuracy: committed 0.7149902912621359, produced 0.7151" in out
    assert "NOT reproduced" in out


def test_integers_are_exact_and_floats_within_the_relative_tolerance(repo):
    _edit(repo, lda_accuracy=0.7149902912621359 * (1 + 1e-12))  # below float_rtol = 1e-9
    assert verify(repo, parse_config(CONFIG)).ok
    _edit(repo, lda_n_exact=249)
    (line,) = verify(repo, parse_config(CONFIG)).differences
    assert "column n_exact: committed 250, produced 249" in line


def test_machine_dependent_cells_pass_inside_their_range(repo):
    _edit(repo, lr_accuracy=0.6551, lr_n_exact=93)
    (repo / TABLE).with_suffix(".md").write_text("| lr | 0.655 |\n| lda | 0.715 |\n")
    result = verify(repo, parse_config(CONFIG))
    assert result.ok, result.differences
    assert result.known == {"paper preset LR": 3}  # two cells and one rendering
    assert result.ranges_checked == 1
    assert "3 cells or renderings differ where declared machine-dependent" in result.verdict()


def test_the_lr_range_is_honoured(repo):
    _edit(repo, lr_accuracy=0.6401)
    result = verify(repo, parse_config(CONFIG))
    assert result.differences == [
        f"{TABLE}: (model=lr) accuracy = 0.6401, outside the known machine-dependent range [0.65, 0.66] "
        "of 'paper preset LR'"
    ]


def test_count_of_differing_rows_is_bounded(repo):
    config = {**CONFIG, "machine_dependent": [dict(CONFIG["machine_dependent"][0])]}
    config["machine_dependent"][0]["ranges"] = [
        {"file": TABLE, "where": {"model": "lr"}, "count_differing": ["n_exact"], "max": 0}
    ]
    assert verify(repo, parse_config(config)).ok
    _edit(repo, lr_n_exact=93)
    (line,) = verify(repo, parse_config(config)).differences
    assert "rows (model=lr) whose n_exact differ from the committed ones = 1, outside" in line


def test_other_files_must_be_byte_identical_and_present(repo):
    (repo / "results/x/figure.png").write_bytes(b"\x89PNG other bytes")
    (repo / "results/x/new.csv").write_text("a\n1\n")
    (repo / TABLE).with_suffix(".md").unlink()
    (repo / "results/x/report/index.html").write_text("<p>rebuilt</p>")  # excluded
    differences = verify(repo, parse_config(CONFIG)).differences
    assert differences == [
        "results/x/figure.png: bytes differ (16 committed, 16 produced)",
        "results/x/new.csv: produced, but not committed",
        "results/x/nij/paper/tables/table1.md: committed, but not produced",
    ]


def test_verify_writes_nothing(repo):
    _edit(repo, lda_accuracy=0.9)
    before = _git(repo, "status", "--porcelain")
    verify(repo, parse_config(CONFIG))
    assert _git(repo, "status", "--porcelain") == before


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"paths": ["results"], "tolerance": 1}, "'tolerance' is unknown"),
        ({"exclude": ["x"]}, "lacks 'paths'"),
        ({"paths": ["r"], "float_rtol": "tight"}, "'float_rtol': expected a number, got 'tight'"),
        (
            {
                "paths": ["r"],
                "machine_dependent": [{"name": "a", "why": "b", "ranges": [{"file": "f", "max": 1}]}],
            },
            "needs 'column'",
        ),
    ],
)
def test_bad_configuration_names_the_key(raw, message):
    with pytest.raises(ValueError, match=message):
        parse_config(raw)


def test_no_git_repository_is_exit_2(tmp_path, capsys):
    (tmp_path / "verify.yaml").write_text(yaml.safe_dump(CONFIG))
    assert main(["--root", str(tmp_path), "--config", "verify.yaml"]) == 2
    assert "make verify: error: git" in capsys.readouterr().err


def test_the_committed_configuration_covers_the_measured_lr_spread():
    """config/verify.yaml's LR ranges contain every set-up of bench/lr_spread.py and the committed numbers."""
    config = read_config(ROOT / "config/verify.yaml")
    spread = pd.read_csv(ROOT / "results/default/nij/paper/tables/lr_spread.csv")
    (item,) = [m for m in config.machine_dependent if m.name == "paper preset, logistic regression"]
    by_column = {r.column: r for r in item.ranges if not r.count_differing}
    measured = {
        "accuracy_paper": spread["accuracy"],
        "n_exact": spread["n_exact"],
        "statistic_paper_formula": spread["statistic_paper_formula"],
        "pvalue_corrected": spread["pvalue_corrected"],
    }
    for column, values in measured.items():
        r = by_column[column]
        assert r.min <= values.min() and values.max() <= r.max, column
        committed = pd.read_csv(ROOT / r.file)
        value = committed.loc[committed["model"] == "lr"]
        if "table" in r.where:
            value = value.loc[value["table"].astype(str).isin(r.where["table"])]
        assert r.min <= float(value[column].iloc[0]) <= r.max, column
    (count,) = [r for r in item.ranges if r.count_differing]
    assert spread["n_predictions_differ"].max() <= count.max


def test_empty_text_cells_compare_equal(repo):
    """A rewritten table with empty (NaN) text cells is no difference; a filled one is."""
    table = repo / TABLE
    frame = pd.read_csv(table).assign(note=["", "closed form"])
    frame.to_csv(table, index=False)
    _git(repo, "commit", "-q", "-am", "note column")
    frame.to_csv(table, index=False, lineterminator="\r\n")  # other bytes, same table
    assert verify(repo, parse_config(CONFIG)).ok
    frame.assign(note=["", "now a note"]).to_csv(table, index=False)
    (line,) = verify(repo, parse_config(CONFIG)).differences
    assert "column note: committed 'closed form', produced 'now a note'" in line
