"""`fairstats audit` with a score (score_tests.csv) and with a continuous prediction (--task regression,
regression_tests.csv), issue 26."""

import numpy as np
import pandas as pd
import pytest

from fairstats.auditing.cli import main
from fairstats.auditing.regression import REGRESSION_COLUMNS
from fairstats.score_tests import SCORE_TEST_COLUMNS


def regression_people(rng, n, bias=None):
    """Groups a, b, c of n people; y ~ N(50, 10), prediction y + N(bias_g, 5)."""
    g = np.repeat(["a", "b", "c"], n)
    y = rng.normal(50, 10, 3 * n)
    shift = np.select([g == k for k in (bias or {})], list((bias or {}).values()), 0.0) if bias else 0.0
    return pd.DataFrame({"g": g, "y": y, "pred": y + rng.normal(0, 5, 3 * n) + shift})


def test_score_tests_csv_with_y_score(tmp_path, capsys):
    rng = np.random.default_rng(1)
    n = 1500
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.25, 0.25])  # a, the largest, is the reference
    p = rng.uniform(0.05, 0.95, n).round(3)
    y = (rng.random(n) < np.where(g == "c", p**0.6, p)).astype(int)
    path = tmp_path / "people.csv"
    pd.DataFrame({"g": g, "y": y, "pred": (p > 0.5).astype(int), "s": p}).to_csv(path, index=False)
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "pred", "--y-score", "s",
                 "--n-resamples", "99", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    table = pd.read_csv(tmp_path / "out" / "score_tests.csv")
    assert list(table.columns) == list(SCORE_TEST_COLUMNS)
    assert {"auc", "calibration", "ks_positive", "mean_score_negative"} <= set(table["metric"])
    m = int(table["pvalue"].notna().sum())
    assert table["pvalue_adj"].min() == pytest.approx(min(1, m * table["pvalue"].min()))  # Holm, whole file
    calibration = table[table.metric == "calibration"].set_index("group")
    assert calibration.loc["c", "verdict"] == "disparity"
    assert (tmp_path / "out" / "score_tests.md").is_file()


def test_a_score_outside_0_1_gets_the_rank_tests_and_a_note_on_the_rest(tmp_path, capsys):
    """Issue 39, item 5: deciles 1-10 (ties everywhere) audit with exit 0; score_tests.csv has the AUC and the
    distribution tests, no calibration; tests.csv has no balance test (paper B's need probabilities); the
    report's notes say which ran and which did not."""
    rng = np.random.default_rng(5)
    n = 1200
    g = rng.choice(["a", "b"], n, p=[0.6, 0.4])
    decile = rng.integers(1, 11, n)
    y = (rng.random(n) < decile / 12).astype(int)
    path = tmp_path / "deciles.csv"
    pd.DataFrame({"g": g, "y": y, "pred": (decile > 5).astype(int), "s": decile}).to_csv(path, index=False)
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "pred", "--y-score", "s",
                 "--n-resamples", "99", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    scores = pd.read_csv(tmp_path / "out" / "score_tests.csv")
    assert {"auc", "ks_positive", "mann_whitney_negative", "mean_score_positive"} <= set(scores["metric"])
    assert "calibration" not in set(scores["metric"])
    assert scores.loc[scores.metric == "auc", "pvalue"].notna().all()
    tests = pd.read_csv(tmp_path / "out" / "tests.csv")
    assert not set(tests["test"]) & {"balance_positive_class", "balance_negative_class", "calibration"}
    report = (tmp_path / "out" / "report.md").read_text()
    note = next(line for line in report.splitlines() if "holds scores outside" in line)  # Markdown-escaped
    assert "(from 1 to 10)" in note and "take any numeric score" in note and "were not run" in note


def test_regression_audit_flags_the_planted_group_only(tmp_path, capsys):
    """A held-out synthetic data set (seed 2626, not used elsewhere): bias +2 (sd 5) in group c only."""
    path = tmp_path / "reg.csv"
    regression_people(np.random.default_rng(2626), 1500, bias={"c": 2.0}).to_csv(path, index=False)
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "pred", "--task",
                 "regression", "--regression-margin", "1", "--n-resamples", "999",
                 "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 0
    table = pd.read_csv(tmp_path / "o" / "regression_tests.csv")
    assert list(table.columns) == list(REGRESSION_COLUMNS)
    assert set(table.loc[table.verdict == "disparity", "group"]) == {"c"}
    assert table.set_index(["group", "metric"]).loc[("c", "mean_residual"), "verdict"] == "disparity"
    assert "disparity: g 'c' vs 'a', mean_residual" in out


def test_numeric_prediction_without_task_gets_the_hint(tmp_path, capsys):
    path = tmp_path / "reg.csv"
    regression_people(np.random.default_rng(3), 50).to_csv(path, index=False)
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "pred", "--out",
                 str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "--y-true" in err and "--task regression" in err  # the outcome is checked first
    assert not (tmp_path / "o").exists()
    # a 0/1 outcome with a numeric prediction of many values: both ways of auditing it are named
    frame = pd.read_csv(path).assign(y=lambda d: (d["y"] > 50).astype(int))
    frame.to_csv(tmp_path / "binary.csv", index=False)
    code = main(["audit", str(tmp_path / "binary.csv"), "--group", "g", "--y-true", "y", "--y-pred", "pred",
                 "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "--task regression" in err and "--decision-levels" in err
    assert not (tmp_path / "o").exists()
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "pred", "--task",
                 "regression", "--y-score", "pred", "--out", str(tmp_path / "o")])
    assert code == 2 and "--y-score does not apply to --task regression" in capsys.readouterr().err
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "nope", "--task",
                 "regression", "--out", str(tmp_path / "o")])
    assert code == 2 and "'nope'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_regression_audit_of_equal_groups_of_100_000_is_equivalent(tmp_path, capsys):
    """Equal groups of 10^5 people (sd of the residual 5): every metric row ``equivalent`` within a margin of
    0.25 (5 % of the residual's sd), none a disparity."""
    path = tmp_path / "reg.parquet"
    regression_people(np.random.default_rng(20261202), 100_000).to_parquet(path)
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "pred", "--task",
                 "regression", "--regression-margin", "0.25", "--n-resamples", "999",
                 "--out", str(tmp_path / "o")])
    assert code == 0, capsys.readouterr().err
    table = pd.read_csv(tmp_path / "o" / "regression_tests.csv")
    metrics = table[table.metric != "residual_distribution"]
    assert set(metrics["verdict"]) == {"equivalent"}, metrics[["group", "metric", "estimate", "verdict"]]
    assert "disparity" not in set(table["verdict"])
