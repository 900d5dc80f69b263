"""``fairstats audit --search``: subgroups.csv, the report section and figure, and bad input (exit 2)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairstats.auditing import cli
from fairstats.auditing.folder import MANIFEST
from fairstats.search import SEARCH_COLUMNS

HOSTILE = "<b>x</b>|*y*"
BASE = ["--group", "g", "--y-true", "y", "--y-pred", "p", "--n-resamples", "99", "--seed", "3"]


@pytest.fixture(scope="module")
def people(tmp_path_factory):
    """600 people, a group g and three attributes; the false positive rate is raised where a = a1 and b = b0;
    one value of c is hostile text."""
    rng = np.random.default_rng(1)
    n = 600
    frame = pd.DataFrame({
        "g": rng.choice(["u", "v"], n),
        "a": rng.choice(["a0", "a1", "a2"], n),
        "b": rng.choice(["b0", "b1"], n),
        "c": rng.choice(["c0", HOSTILE], n),
        "y": rng.integers(0, 2, n),
    })  # fmt: skip
    planted = (frame["a"] == "a1") & (frame["b"] == "b0") & (frame["y"] == 0)
    frame["p"] = np.where(planted, rng.random(n) < 0.8, rng.random(n) < 0.3).astype(int)
    path = tmp_path_factory.mktemp("search") / "people.csv"
    frame.to_csv(path, index=False)
    return path


def _run(capsys, *argv):
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_search_writes_subgroups_csv_report_section_and_figure(people, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["audit", str(people), *BASE, "--search", "a", "b", "c", "--out", str(out)]
    status, stdout, _ = _run(capsys, *argv)
    assert status == 0
    table = pd.read_csv(out / "subgroups.csv", keep_default_na=False, na_values=[""])
    assert list(table.columns[: len(SEARCH_COLUMNS)]) == list(SEARCH_COLUMNS)
    assert table.iloc[0]["subgroup"] == "a = a1 & b = b0" and table.iloc[0]["metric"] == "fpr"
    assert table.iloc[0]["verdict"] == "disparity" and table.iloc[0]["pvalue_adjusted"] <= 0.05
    assert set(table["verdict"]) <= {"disparity", "inconclusive", "undefined"}
    files = json.loads((out / MANIFEST).read_text())["files"]
    assert {"subgroups.csv", "subgroups.md", "subgroup_residuals.csv", "subgroups.png"} <= set(files)
    report = (out / "report.md").read_text()
    assert "## 3. Which subgroup?" in report and "](subgroups.png)" in report
    assert "![Bar chart of the subgroup search's top comparisons" in report  # alt text says what it shows
    assert "subgroup search (a, b, c; depth 2, min size 30)" in stdout
    residuals = pd.read_csv(out / "subgroup_residuals.csv")
    assert residuals["subgroup"].iloc[0] == "a = a1 & b = b0"


def test_search_values_are_shown_as_text(people, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["audit", str(people), *BASE, "--search", "c", "a", "--min-size", "5", "--out", str(out)]
    assert _run(capsys, *argv)[0] == 0
    html = (out / "report.html").read_text()
    start = html.index("3. Which subgroup?")
    section = html[start : html.index("<h2>", start)]
    assert "<b>x</b>" not in section and "&lt;b&gt;x&lt;/b&gt;" in section
    md = (out / "report.md").read_text()
    assert "`c = <b>x</b>|*y*`" in md.replace("\\|", "|")


def test_rerun_is_identical(people, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764547200")  # the report's date (test_audit_report.py)
    argv = ["audit", str(people), *BASE, "--search", "a", "b", "--search-depth", "1"]
    _run(capsys, *argv, "--out", str(tmp_path / "one"))
    _run(capsys, *argv, "--out", str(tmp_path / "two"))
    assert (tmp_path / "one/subgroups.csv").read_bytes() == (tmp_path / "two/subgroups.csv").read_bytes()
    one, two = (tmp_path / "one/report.md").read_bytes(), (tmp_path / "two/report.md").read_bytes()
    assert one.replace(b"/one", b"/two") == two  # the command line in the provenance names --out


def test_without_search_there_is_no_search_output(people, tmp_path, capsys):
    out = tmp_path / "out"
    status, stdout, _ = _run(capsys, "audit", str(people), *BASE, "--out", str(out))
    assert status == 0
    assert not list(out.glob("subgroup*")) and "Which subgroup" not in (out / "report.md").read_text()
    assert "subgroup search" not in stdout


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--search", "nope"], r"--search: column 'nope' not found"),
        (["--search", "a", "--search-depth", "4"], r"--search-depth: .*must be 1, 2 or 3"),
        (["--search", "a", "--search-depth", "0"], r"--search-depth: .*must be 1, 2 or 3"),
        (["--search", "a", "--min-size", "0"], r"--min-size: .*at least 1"),
        (["--search", "a", "--min-size", "100000"], r"no subgroup .*--min-size"),
        (["--search", "a", "--search-metrics", "fn_fp_ratio"], r"--search-metrics: .*must be among"),
        (["--search-metrics", "fpr"], r"--search-metrics needs --search"),
        (["--search", "a", "a"], r"given twice"),
        (["--search", "y"], r"also --y-true"),
    ],
)
def test_bad_search_input_is_one_line_exit_2_and_writes_nothing(people, tmp_path, capsys, extra, pattern):
    out = tmp_path / "out"
    status, _, stderr = _run(capsys, "audit", str(people), *BASE, *extra, "--out", str(out))
    assert status == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fairstats"), stderr
    assert pd.Series(lines).str.contains(pattern, regex=True).iloc[0], lines[0]
    assert not out.exists()
