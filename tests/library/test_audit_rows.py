"""The auditor's options (issue 30): --where, --y-pred-positive/--y-pred-threshold, --reference,
--comparisons pairs, --json and --fail-on disparity, on the CLI and in fairstats.audit."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT

import fairstats
from fairstats.auditing.cli import EXIT_BAD_INPUT, EXIT_DISPARITY, EXIT_OK, main

RAW = ROOT / "data" / "raw" / "compas-scores-two-years-violent.csv"
# ProPublica's filter as SQL (the compendium's propublica_violent preset, src/compendium/data/compas.py)
PROPUBLICA = [
    "days_b_screening_arrest BETWEEN -30 AND 30",
    "is_recid <> -1",
    "c_charge_degree <> 'O'",
    "v_score_text <> 'N/A'",
]
# Paper A's chi-squared statistics as the compendium reproduces them from the same file
# (results/default/compas/propublica_violent/tables/equal_confusion_tests.csv; paper A, Sec. IV: 4,020 people)
PAPER_A = {"sex": 59.22104916145047, "race": 214.7982262967671, "sex x race": 292.5588455740904}


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    """The raw violent file with its repeated columns (identical copies) read once: pandas names the copies
    ``decile_score.1`` ...; they are dropped here (the reader's rule for repeated names is tested apart)."""
    data = pd.read_csv(RAW)
    return data[[c for c in data.columns if not c.endswith(".1")]]


def test_paper_a_from_the_raw_file_with_where_and_positive_labels(compas):
    audit = fairstats.audit(
        compas, group=["sex", "race"], y_true="two_year_recid", y_pred="v_score_text",
        y_pred_positive="Medium,High", where=PROPUBLICA, n_resamples=99,
    )  # fmt: skip
    assert audit.n == 4020
    got = dict(zip(audit.equal_confusion["grouping"], audit.equal_confusion["statistic"], strict=True))
    assert got == pytest.approx(PAPER_A, rel=1e-12)
    assert [k for _, k in audit.filters] == [723, 0, 0, 0]  # 268 missing + 455 outside the window
    assert audit.decision_rule == 'positive prediction when v_score_text is "Medium" or "High"'


@pytest.mark.slow  # two full COMPAS audits (CI runs it after make test)
def test_the_cli_gives_the_same_and_json(compas, tmp_path, capsys):
    path = tmp_path / "compas.csv"
    compas.to_csv(path, index=False)
    args = [
        "audit", str(path), "--group", "sex", "--group", "race", "--y-true", "two_year_recid",
        "--y-pred", "v_score_text", "--y-pred-positive", "Medium,High", "--n-resamples", "99",
        "--out", str(tmp_path / "out"), "--json",
    ]  # fmt: skip
    for w in PROPUBLICA:
        args += ["--where", w]
    assert main(args) == EXIT_OK
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 4020
    stats = {g["name"]: g["equal_confusion"]["statistic"] for g in summary["groupings"]}
    assert stats == pytest.approx(PAPER_A, rel=1e-12)
    assert [f["removed"] for f in summary["filters"]] == [723, 0, 0, 0]
    assert summary["has_disparity"] is True
    written = pd.read_csv(tmp_path / "out" / "equal_confusion.csv")
    assert written["statistic"].tolist() == pytest.approx(list(PAPER_A.values()), rel=1e-12)


def _two_groups(rng: np.random.Generator, n: int, shift: float) -> pd.DataFrame:
    g = np.repeat(["a", "b", "c"], n)
    y = rng.integers(0, 2, 3 * n)
    p = (rng.random(3 * n) < 0.5 + shift * (g == "c")).astype(int)
    return pd.DataFrame({"g": g, "y": y, "p": p, "score": rng.integers(1, 11, 3 * n)})


@pytest.mark.parametrize("shift,status", [(0.0, EXIT_OK), (0.3, EXIT_DISPARITY)])
def test_fail_on_disparity_exits_exactly_when_a_disparity_verdict_is_present(tmp_path, shift, status):
    data = _two_groups(np.random.default_rng(3), 2000, shift)
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    out = tmp_path / "out"
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "p", "--n-resamples", "99",
                 "--margin", "0.1", "--out", str(out), "--fail-on", "disparity"])  # fmt: skip
    tests = pd.read_csv(out / "tests.csv")
    equal = pd.read_csv(out / "equal_confusion.csv")
    present = bool((tests["verdict"] == "disparity").any() or (equal["verdict"] == "disparity").any())
    assert present == (shift > 0)
    assert code == status
    # without --fail-on the status is 0 whatever the verdicts
    assert main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "p", "--n-resamples", "99",
                 "--out", str(out)]) == EXIT_OK  # fmt: skip


def test_threshold_reference_and_pairs():
    data = _two_groups(np.random.default_rng(5), 300, 0.2)
    base = dict(group="g", y_true="y", y_pred="score", y_pred_threshold=6, n_resamples=99)
    largest = fairstats.audit(data, **base)
    assert set(largest.tests["reference"]) == {"a"}  # equal sizes: the first group
    named = fairstats.audit(data, **base, reference="c")
    assert set(named.tests["reference"]) == {"c"} and set(named.tests["group"]) == {"a", "b"}
    pairs = fairstats.audit(data, **base, comparisons="pairs")
    compared = set(zip(pairs.tests["group"], pairs.tests["reference"], strict=True))
    assert compared == {("b", "a"), ("c", "a"), ("c", "b")}  # each pair once
    # the default is the named largest group, byte for byte
    same = fairstats.audit(data, **base, reference="a")
    pd.testing.assert_frame_equal(same.tests, largest.tests)
    # the threshold rule: positive when score >= 6
    assert largest.decision_rule == "positive prediction when score >= 6"


@pytest.mark.parametrize(
    "extra,match",
    [
        (["--reference", "zz"], "--reference 'zz' is not a group of any grouping"),
        (["--reference", "a", "--comparisons", "pairs"], "give one of them"),
        (["--where", "y > (SELECT 1)"], "subquery"),
        (["--where", "nope = 1"], "no column 'nope'"),
        (["--where", "y = 7"], "no row is left"),
        (["--y-pred-positive", "x", "--y-pred-threshold", "2"], "either the positive labels"),
        (["--y-pred-threshold", "5"], "not a number"),
    ],
)
def test_bad_options_are_one_line_exit_2(tmp_path, capsys, extra, match):
    data = pd.DataFrame({"g": ["a", "b"] * 50, "y": [0, 1] * 50, "p": [1, 0, 0, 1] * 25,
                         "label": ["hi", "lo"] * 50})  # fmt: skip
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    pred = "label" if "--y-pred-threshold" in extra else "p"
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", pred, "--n-resamples", "99",
                 "--out", str(tmp_path / "out"), *extra])  # fmt: skip
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT and len(err.strip().splitlines()) == 1
    assert match in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "column,hint",
    [("level", "--y-pred-positive, or audit every level with --decision-levels High,Low,Medium"),
     ("score", "--y-pred-threshold T (positive when >= T), or audit its levels with --decision-levels")],
)  # fmt: skip
def test_a_many_valued_prediction_is_told_which_option_fits(tmp_path, capsys, column, hint):
    data = pd.DataFrame({"g": ["a", "b"] * 30, "y": [0, 1] * 30, "level": ["Low", "Medium", "High"] * 20,
                         "score": list(range(1, 11)) * 6})  # fmt: skip
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    assert main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", column,
                 "--out", str(tmp_path / "out")]) == EXIT_BAD_INPUT  # fmt: skip
    assert hint in capsys.readouterr().err


@pytest.mark.slow  # two full COMPAS audits (CI runs it after make test)
def test_where_on_counted_input_matches_rows(compas, tmp_path):
    """A parquet file counted by DuckDB, and Counts, filtered by the same predicates: the same audit."""
    keep = ["sex", "race", "two_year_recid", "v_score_text", "days_b_screening_arrest", "is_recid",
            "c_charge_degree"]  # fmt: skip
    small = compas[keep]
    rows = fairstats.audit(small, group=["sex", "race"], y_true="two_year_recid", y_pred="v_score_text",
                           y_pred_positive="Medium,High", where=PROPUBLICA, n_resamples=99)  # fmt: skip
    path = tmp_path / "c.parquet"
    small.to_parquet(path)
    out = tmp_path / "out"
    args = ["audit", str(path), "--group", "sex", "--group", "race", "--y-true", "two_year_recid",
            "--y-pred", "v_score_text", "--y-pred-positive", "Medium,High", "--n-resamples", "99",
            "--out", str(out)]  # fmt: skip
    for w in PROPUBLICA:
        args += ["--where", w]
    assert main(args) == EXIT_OK
    counted = pd.read_csv(out / "equal_confusion.csv")
    expected = rows.equal_confusion["statistic"].tolist()
    assert counted["statistic"].tolist() == pytest.approx(expected, rel=1e-12)
    # Counts hold no missing value: the 268 people without days_b_screening_arrest are left out first
    as_counts = fairstats.Counts.from_frame(small.dropna(subset=["days_b_screening_arrest"]), columns=keep)
    again = fairstats.audit(as_counts, group=["sex", "race"], y_true="two_year_recid", y_pred="v_score_text",
                            y_pred_positive="Medium,High", where=PROPUBLICA, n_resamples=99)  # fmt: skip
    assert again.n == 4020 and [k for _, k in again.filters] == [455, 0, 0, 0]
    assert again.equal_confusion["statistic"].tolist() == pytest.approx(list(PAPER_A.values()), rel=1e-12)
