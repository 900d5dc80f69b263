"""The code passes ruff (the rules in pyproject.toml), so style drift shows up in make test."""

import subprocess
import sys

from repo_paths import ROOT


def test_ruff_check_is_clean():
    res = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests", "workflow", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stdout + res.stderr
