"""``fairstats audit --decision-levels`` (issue 17 A): a three-level decision end to end, and bad input."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairstats.auditing import cli

LEVELS = ["Low", "Medium", "High"]
FAST = ["--y-true", "y", "--y-pred", "d", "--n-resamples", "99", "--seed", "3"]


def _people(n: int = 900, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "<b>c</b>"], n)
    y = rng.integers(0, 2, n)
    d = np.clip(np.round(rng.normal(np.where(g == "b", 0.8, 0.0) + y, 0.8)), 0, 2).astype(int)
    s = rng.choice(["F", "M"], n)
    return pd.DataFrame({"g": g, "s": s, "y": y, "d": np.array(LEVELS, dtype=object)[d]})


def _run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def data_csv(tmp_path) -> Path:
    path = tmp_path / "people.csv"
    _people().to_csv(path, index=False)
    return path


def test_done_when_chi2_equals_scipy_for_three_levels(data_csv, tmp_path, capsys):
    out = tmp_path / "audit"
    status, stdout, _ = _run(capsys, "audit", data_csv, "--group", "g", "--group", "s", *FAST,
                             "--decision-levels", "Low,Medium,High", "--out", out)
    assert status == 0 and "decision levels Low, Medium, High (ordered)" in stdout
    people = pd.read_csv(data_csv)
    equal = pd.read_csv(out / "equal_confusion.csv").set_index("grouping")
    for grouping, columns in (("g", ["g"]), ("s", ["s"]), ("g x s", ["g", "s"])):
        table = pd.crosstab([people[c] for c in columns], [people["y"], people["d"]]).to_numpy()
        ref = stats.chi2_contingency(table, correction=False)
        assert equal.loc[grouping, "statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        assert equal.loc[grouping, "df"] == ref.dof
        assert equal.loc[grouping, "n_cells"] == 6
    residuals = pd.read_csv(out / "residuals.csv")
    assert list(residuals.query("grouping == 's' and group == 'F'")["cell"]) == [
        f"pred={d}, true={o}" for d in LEVELS for o in (0, 1)
    ]
    levels = pd.read_csv(out / "level_tests.csv")
    assert set(levels["condition"]) == {"all", "y_true=0", "y_true=1"}
    assert set(levels["verdict"]) <= {"disparity", "equivalent", "inconclusive", "undefined"}
    ordinal = pd.read_csv(out / "ordinal_tests.csv")
    shifted = ordinal.query("grouping == 'g' and group == 'b' and condition == 'all'").iloc[0]
    assert shifted["zscore"] > 0 and shifted["significant_adj"]
    assert not (out / "tests.csv").exists()
    # data strings are text in the report
    html = (out / "report.html").read_text()
    assert "<b>c</b>" not in html and "&lt;b&gt;c&lt;/b&gt;" in html
    # the page links only files beside it (tests/library/test_hostile_inputs.py opens the binary one in
    # Chromium)
    assert not re.search(r"<script|<link|(src|href)=\"(https?:|//|/)", html)
    assert set(re.findall(r'href="([^"]+)"', html)) == {
        "equal_confusion.csv", "residuals.csv", "level_tests.csv", "ordinal_tests.csv"
    }
    assert "Decision levels by group" in (out / "report.md").read_text()


def test_unordered_has_no_ordinal_test_and_counts_give_the_same_test(data_csv, tmp_path, capsys):
    out = tmp_path / "audit"
    assert _run(capsys, "audit", data_csv, "--group", "g", *FAST, "--decision-levels", "High,Low,Medium",
                "--unordered", "--out", out)[0] == 0
    assert not (out / "ordinal_tests.csv").exists()
    counts = pd.read_csv(data_csv).groupby(["g", "y", "d"]).size().rename("n").reset_index()
    counts_csv = tmp_path / "counts.csv"
    counts.to_csv(counts_csv, index=False)
    out2 = tmp_path / "audit2"
    assert _run(capsys, "audit", "--counts", counts_csv, "--group", "g", *FAST, "--decision-levels",
                "High,Low,Medium", "--unordered", "--out", out2)[0] == 0
    a, b = pd.read_csv(out / "equal_confusion.csv"), pd.read_csv(out2 / "equal_confusion.csv")
    assert a.loc[0, "statistic"] == pytest.approx(b.loc[0, "statistic"], rel=1e-12)
    pd.testing.assert_frame_equal(pd.read_csv(out / "level_tests.csv"), pd.read_csv(out2 / "level_tests.csv"))


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--decision-levels", "Low,High"],
         r"--y-pred: column 'd' has the value 'Medium' \(on line \d+ of people\.csv\) that is not among "
         r"--decision-levels \['Low', 'High'\]"),
        (["--decision-levels", "Low"], r"--decision-levels: at least two levels are needed, got \['Low'\]"),
        (["--decision-levels", "Low,Medium,Low,High"], r"the level 'Low' is listed twice"),
        (["--decision-levels", "Low,,High"], r"an empty level"),
        (["--decision-levels", "Low,Medium,High", "--outcome-levels", "0,2"],
         r"--y-true: column 'y' has the value '1' \(on line \d+ of people\.csv\) that is not among "
         r"--outcome-levels"),
        (["--unordered"], r"--unordered needs --decision-levels"),
        (["--decision-levels", "Low,Medium,High", "--favorable", "Low"], r"--favorable applies to a two-"),
        (["--decision-levels", "Low,Medium,High", "--search", "s"], r"--search .* does not run with"),
    ],
)
def test_bad_levels_one_line_exit_2_nothing_written(data_csv, tmp_path, capsys, extra, pattern):
    out = tmp_path / "audit"
    status, stdout, stderr = _run(capsys, "audit", data_csv, "--group", "g", *FAST, *extra, "--out", out)
    assert status == 2 and stdout == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fairstats audit: error: "), stderr
    assert re.search(pattern, lines[0]), lines[0]
    assert not out.exists()
