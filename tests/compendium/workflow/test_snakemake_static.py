"""The workflow parses, validates its config, lints clean and plans a dry run."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from repo_paths import ROOT

SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([*SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_lint_is_clean():
    res = _run("--lint")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Congratulations" in res.stdout + res.stderr


def test_dry_run_plans_the_default_experiment():
    res = _run("-n", "--quiet", "rules")
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"unknown_key": 1}, "unknown_key"),
        ({"experiment": "Bad Name"}, "experiment"),
        ({"nij": {"models": ["lr", "svm"]}}, "svm"),
        ({"compas": {"alpha": 1.5}}, "alpha"),
    ],
)
def test_config_validation_names_the_offending_key(tmp_path, patch, message):
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    for key, value in patch.items():
        if isinstance(value, dict):
            config[key].update(value)
        else:
            config[key] = value
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    res = _run("-n", "--configfile", str(bad))
    assert res.returncode != 0
    assert message in res.stdout + res.stderr


def test_malformed_yaml_is_refused(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("experiment: [unclosed\n")
    res = _run("-n", "--configfile", str(bad))
    assert res.returncode != 0
    # Snakemake parses --configfile itself, before the Snakefile runs; its message says what is wrong.
    assert "not valid JSON or YAML" in res.stdout + res.stderr


def test_ci_entry_runs_make_test():
    text = (ROOT / ".ci/run").read_text()
    assert "make test" in text and "set -euo pipefail" in text
    assert shutil.which("make"), "make is required by the README's two commands"


def _job_stats(*args: str) -> dict[str, int]:
    """{rule: jobs} of a dry run's job stats."""
    res = _run("-n", "--quiet", "rules", *args)
    assert res.returncode == 0, res.stdout + res.stderr
    table = res.stdout + res.stderr
    block = table[table.index("Job stats:"):]
    return {m[0]: int(m[1]) for m in (line.split() for line in block.splitlines()[3:]) if len(m) == 2
            and m[1].isdigit() and m[0] != "total"}


@pytest.mark.slow
def test_the_filter_layer_adds_the_new_presets_compas_jobs_and_nothing_else():
    """config/layers/violent_high_only.yaml keeps the default experiment and adds one filter preset: whatever
    the state of the outputs, its plan is the default plan plus that preset's four COMPAS jobs (on a complete
    default run: those four and `all`, no model fit)."""
    default = _job_stats()
    layered = _job_stats("--configfile", "config/layers/violent_high_only.yaml")
    added = {rule: layered.get(rule, 0) - default.get(rule, 0) for rule in default.keys() | layered.keys()}
    assert {rule: n for rule, n in added.items() if n} == {
        "filter_compas": 1, "render_paper_a": 1, "test_compas_outcomes": 1, "test_scores_compas": 1}
