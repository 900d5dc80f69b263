"""``fairstats audit`` on the COMPAS data, and every kind of bad input it must refuse cleanly."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from fairstats.auditing import cli
from fairstats.auditing import tables as audit
from fairstats.auditing.folder import MANIFEST
from fairstats.confusion import equal_confusion_test

N_RESAMPLES = "99"  # small: the tests check plumbing, test_bootstrap.py etc. test the statistics
BASE = ["--y-true", "y_true", "--y-pred", "y_pred", "--n-resamples", N_RESAMPLES]


@pytest.fixture(scope="module")
def compas(compas_violent, tmp_path_factory) -> Path:
    """The COMPAS violent data (ProPublica filter, config preset) as a CSV, as a user would have it."""
    path = tmp_path_factory.mktemp("compas") / "compas.csv"
    compas_violent[["id", "sex", "race", "age_cat", "y_true", "y_pred", "y_score"]].to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def audited(compas, tmp_path_factory):
    """One successful audit of the COMPAS data by sex and race (and sex x race)."""
    out = tmp_path_factory.mktemp("audit") / "out"
    argv = ["audit", str(compas), "--group", "sex", "--group", "race", *BASE, "--favorable", "0"]
    status = cli.main([*argv, "--seed", "1", "--out", str(out)])
    return status, out


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --------------------------------------------------------------------------------------------------------
# the audit on COMPAS
# --------------------------------------------------------------------------------------------------------


def test_audit_writes_every_output(audited):
    status, out = audited
    assert status == 0
    names = {p.name for p in out.iterdir()}
    expected = ("equal_confusion.csv", "residuals.csv", "tests.csv", "report.md", "report.html", MANIFEST)
    for name in expected:
        assert name in names
    for grouping in ("sex", "race"):
        assert f"residuals_{grouping}.png" in names and f"disparities_{grouping}.png" in names
    # "sex x race" is not a file name as it is: its slug gets a hash of the name
    assert len([n for n in names if n.startswith("residuals_sex_x_race-")]) == 1
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".out.")]  # no temporary folder left


@pytest.mark.filterwarnings("ignore::fairstats.confusion.SmallExpectedCountWarning")
def test_equal_confusion_csv_equals_the_library(audited, compas):
    _, out = audited
    table = pd.read_csv(out / "equal_confusion.csv")
    assert list(table.columns[:8]) == audit.EQUAL_CONFUSION_COLUMNS
    assert table["grouping"].tolist() == ["sex", "race", "sex x race"]
    data = pd.read_csv(compas)
    for grouping, group in (("sex", "sex"), ("race", "race"), ("sex x race", ["sex", "race"])):
        res = equal_confusion_test(data, group=group, y_true="y_true", y_pred="y_pred", permutation="never")
        row = table.set_index("grouping").loc[grouping]
        assert row["statistic"] == pytest.approx(res.statistic, rel=1e-12)
        assert row["df"] == res.df and row["n"] == res.n == 4020
        assert row["pvalue"] == pytest.approx(res.pvalue, rel=1e-9)
        assert row["cramers_v"] == pytest.approx(res.cramers_v, rel=1e-12)
        assert row["min_expected"] == pytest.approx(res.cochran_min_expected, rel=1e-12)
        assert bool(row["cochran_ok"]) == res.cochran_ok
        assert row["cramers_v_ci_low"] < row["cramers_v_estimate"] < row["cramers_v_ci_high"]
        assert row["cramers_v_estimate"] <= row["cramers_v"]  # bias-corrected: sqrt((chi2 - df) / (n k))
    # paper A's reference values (issue 3): sex chi2 = 59.2210, race 214.7982, race x sex 292.5588
    np.testing.assert_allclose(table["statistic"], [59.2210, 214.7982, 292.5588], atol=5e-5)


@pytest.mark.filterwarnings("ignore::fairstats.confusion.SmallExpectedCountWarning")
def test_residuals_csv_equals_the_library(audited, compas):
    _, out = audited
    residuals = pd.read_csv(out / "residuals.csv")
    assert list(residuals.columns[:8]) == audit.RESIDUAL_COLUMNS
    res = equal_confusion_test(pd.read_csv(compas), group="race", y_true="y_true", y_pred="y_pred",
                               permutation="never")  # fmt: skip
    race = residuals[residuals["grouping"] == "race"].set_index(["group", "cell"])
    for (group, cell), value in res.residuals.stack().items():
        assert race.loc[(group, cell), "adjusted_residual"] == pytest.approx(value, rel=1e-12)
        assert bool(race.loc[(group, cell), "flag_3_29"]) == (abs(value) > 3.2905)
    assert residuals["flag_bonferroni"].dtype == bool


def test_tests_csv_is_tidy_and_adjusted(audited):
    _, out = audited
    tests = pd.read_csv(out / "tests.csv")
    assert list(tests.columns) == audit.TEST_COLUMNS
    tested = tests["pvalue"].notna()
    np.testing.assert_allclose(tests.loc[tested, "pvalue_adj"], multipletests(tests.loc[tested, "pvalue"],
                                                                              method="holm")[1])  # fmt: skip
    np.testing.assert_allclose(tests.loc[tested, "pvalue_bh"], multipletests(tests.loc[tested, "pvalue"],
                                                                             method="fdr_bh")[1])  # fmt: skip
    # reference = the largest group; Caucasian vs African-American share predicted low risk (favourable 0)
    race = tests[(tests["grouping"] == "race") & (tests["metric"] == "ppr")].set_index("group")
    assert (race["reference"] == "African-American").all()
    assert race.loc["Caucasian", "value_group"] == pytest.approx(1197 / 1459, rel=1e-12)
    assert (
        race.loc["Caucasian", "ci_low"] < race.loc["Caucasian", "estimate"] < race.loc["Caucasian", "ci_high"]
    )


def test_tests_csv_has_three_way_verdicts(audited):
    _, out = audited
    tests = pd.read_csv(out / "tests.csv")
    assert set(tests["verdict"]) <= {"disparity", "equivalent", "inconclusive", "undefined"}
    rates = tests[~tests["metric"].isin(["calibration", "fn_fp_ratio"])]
    assert (rates["margin_high"] == 0.1).all()
    sized = (rates["n_group"] > 1) & (rates["n_reference"] > 1)
    assert (rates.loc[sized, "mde"] > 0).all()
    assert (rates.loc[rates["verdict"] == "undefined", "verdict_note"].str.len() > 0).all()
    # verdicts follow from the Holm-adjusted p-values of both families
    tested = tests["equivalence_pvalue"].notna()
    holm = multipletests(tests.loc[tested, "equivalence_pvalue"], method="holm")[1]
    np.testing.assert_allclose(tests.loc[tested, "equivalence_pvalue_adj"], holm)
    disparity = (tests["pvalue_adj"] < 0.05) & ~(tests["equivalence_pvalue_adj"] < 0.05)
    assert (tests.loc[disparity, "verdict"] == "disparity").all()
    equal = pd.read_csv(out / "equal_confusion.csv")
    assert {"cramers_v_upper", "equivalence_pvalue", "mde", "verdict"} <= set(equal.columns)
    assert (equal["cramers_v_upper"] >= equal["cramers_v"]).all()
    report = (out / "report.md").read_text()
    assert "Three-way verdicts (margin 0.1)" in report and "| **disparity** |" in report
    assert "| inconclusive |" in report
    page = (out / "report.html").read_text()
    assert "<h2>Verdicts</h2>" in page and "<strong>disparity</strong>" in page


def test_margin_options_change_the_verdicts(compas, tmp_path, capsys):
    argv = ["audit", str(compas), "--group", "race", *BASE, "--favorable", "0", "--seed", "1"]
    wide, _, _ = _run(capsys, *argv, "--margin", "0.3", "--out", str(tmp_path / "wide"))
    ratio, stdout, _ = _run(capsys, *argv, "--margin-ratio", "0.8", "--out", str(tmp_path / "ratio"))
    assert wide == ratio == 0 and "three-way verdicts (ratio margin 0.8)" in stdout
    wide_t = pd.read_csv(tmp_path / "wide" / "tests.csv")
    ratio_t = pd.read_csv(tmp_path / "ratio" / "tests.csv")
    ppr = ratio_t[ratio_t["metric"] == "ppr"]
    assert (ppr["margin_low"] == 0.8).all() and (ppr["margin_high"] == 1.25).all()
    assert (wide_t.loc[wide_t["metric"] == "ppr", "margin_high"] == 0.3).all()
    assert (wide_t["verdict"] == "equivalent").sum() >= 1


def test_report_is_plain_language_markdown_and_html(audited):
    _, out = audited
    report = (out / "report.md").read_text()
    for phrase in ("## What was audited", "the groups differ", "favourable outcome is `0`", "Holm",
                   "![Heat map of the adjusted residuals by race: ", "](residuals_race.png)"):  # fmt: skip
        assert phrase in report
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<h1>Fairness audit of <code>compas.csv</code></h1>" in page
    assert 'src="residuals_race.png"' in page


def test_summary_is_printed(compas, tmp_path, capsys):
    status, stdout, stderr = _run(capsys, "audit", str(compas), "--group", "sex", "--y-true", "y_true",
                                  "--y-pred", "y_pred", "--favorable", "0", "--n-resamples", N_RESAMPLES,
                                  "--out", str(tmp_path / "a"))  # fmt: skip
    assert status == 0
    assert "4,020 people, favourable outcome = 0" in stdout
    assert "sex" in stdout and "chi2 =    59.22" in stdout and "report:" in stdout
    assert "Traceback" not in stderr


def test_rerun_is_identical_and_replaces_an_earlier_audit(compas, tmp_path, capsys):
    argv = ["audit", str(compas), "--group", "sex", *BASE, "--favorable", "0", "--seed", "5"]
    argv += ["--out", str(tmp_path / "a")]
    assert _run(capsys, *argv)[0] == 0
    first = (tmp_path / "a" / "tests.csv").read_bytes()
    (tmp_path / "a" / "tests.csv").unlink()  # a file of the audit may go missing
    assert _run(capsys, *argv)[0] == 0
    assert (tmp_path / "a" / "tests.csv").read_bytes() == first


def test_fold_and_score_options(compas, tmp_path, capsys):
    data = pd.read_csv(compas).iloc[:1500]
    data["fold"] = np.arange(len(data)) % 5
    data["score"] = (data["y_score"] - 0.5) / 10
    data["outcome"] = np.where(data["y_true"] == 1, "yes", "no")
    data["forecast"] = np.where(data["y_pred"] == 1, "yes", "no")
    path = tmp_path / "folds.parquet"
    data.to_parquet(path)
    argv = ["audit", str(path), "--group", "sex", "--y-true", "outcome", "--y-pred", "forecast"]
    argv += ["--favorable", "no", "--y-score", "score", "--fold", "fold", "--n-resamples", N_RESAMPLES]
    status, stdout, stderr = _run(capsys, *argv, "--out", str(tmp_path / "f"))
    assert status == 0, stderr
    tests = pd.read_csv(tmp_path / "f" / "tests.csv")
    assert tests["method"].str.startswith("corrected resampled t over 5 folds").sum() == 9
    assert (tests["test"] == "calibration").sum() == 1
    ppr = tests.set_index("metric").loc["ppr"]
    folds = (
        data.assign(f=(data["forecast"] == "no").astype(int)).groupby(["fold", "sex"])["f"].mean().unstack()
    )
    assert ppr["estimate"] == pytest.approx((folds["Female"] - folds["Male"]).mean(), rel=1e-12)
    equal = pd.read_csv(tmp_path / "f" / "equal_confusion.csv")
    assert equal["n"].tolist() == [1500]
    residuals = pd.read_csv(tmp_path / "f" / "residuals.csv")
    assert set(residuals["cell"]) == {"pred=no, true=no", "pred=no, true=yes", "pred=yes, true=no",
                                      "pred=yes, true=yes"}  # fmt: skip


# --------------------------------------------------------------------------------------------------------
# bad input: one line, exit 2, nothing written
# --------------------------------------------------------------------------------------------------------


def _bad_files(compas: Path, folder: Path) -> dict[str, Path]:
    data = pd.read_csv(compas)
    files = {}

    def write(name, frame):
        files[name] = folder / f"{name}.csv"
        frame.to_csv(files[name], index=False)

    nan = data.copy()
    nan.loc[16, "race"] = np.nan
    write("nan", nan)
    write("single", data[data["sex"] == "Male"])
    labels = data.copy()
    labels.loc[3, "y_pred"] = 2
    write("labels", labels)
    three = data.assign(y_pred=data["y_pred"].map({0: "low", 1: "high"}))
    three.loc[5, "y_pred"] = "medium"
    write("three", three.assign(y_true=data["y_true"].map({0: "low", 1: "high"})))
    infinite = data.assign(score=data["y_score"].astype(float))
    infinite.loc[3, "score"] = np.inf
    write("score", infinite)  # deciles 1-10 (any number is a score), one of them infinite
    files["garbage"] = folder / "garbage.parquet"
    files["garbage"].write_bytes(b"this is not parquet")
    files["empty"] = folder / "empty.csv"
    files["empty"].write_text("")
    return files


BAD_INPUTS = [
    ("missing file", "nowhere.csv", ["--group", "race"], r"file '.*nowhere\.csv' not found"),
    ("misspelt column", "compas", ["--group", "rase"], r"column 'rase' not found .* did you mean 'race'\?"),
    ("wrong case", "compas", ["--group", "Race"], r"did you mean 'race'\?"),
    (
        "missing score column",
        "compas",
        ["--group", "race", "--y-score", "probability"],
        r"--y-score: column 'prob",
    ),
    ("NaN", "nan", ["--group", "race"], r"column 'race' has 1 missing value\(s\) \(NaN\), first on line 18"),
    ("single group", "single", ["--group", "sex"], r"column 'sex' has a single group 'Male'"),
    (
        "label outside 0/1",
        "labels",
        ["--group", "race"],
        r"--y-pred: column 'y_pred' has label '2' .* \{0, 1\}",
    ),
    (
        "third label",
        "three",
        ["--group", "race", "--favorable", "low"],
        r"label 'medium' .*outside the stated set",
    ),
    (
        "favourable never occurs",
        "compas",
        ["--group", "race", "--favorable", "7"],
        r"--favorable '7' never occurs",
    ),
    (
        "default favourable absent",
        "three",
        ["--group", "race"],
        r"label '(low|high)' .*outside the stated set",
    ),
    (
        "score not a finite number",
        "score",
        ["--group", "race", "--y-score", "score"],
        r"--y-score: column 'score' must hold finite numbers, found inf on line 5 ",
    ),
    ("same column twice", "compas", ["--group", "race", "--group", "race"],
     r"--group: 'race' is given twice"),
    ("role clash", "compas", ["--group", "y_true"], r"--y-true 'y_true' is also given as --group"),
    ("unreadable parquet", "garbage", ["--group", "race"], r"could not read '.*garbage\.parquet' as parquet"),
    ("empty file", "empty", ["--group", "race"], r"'.*empty\.csv' is empty"),
    (
        "alpha",
        "compas",
        ["--group", "race", "--alpha", "2"],
        r"--alpha: must be strictly between 0 and 1",
    ),
    (
        "resamples",
        "compas",
        ["--group", "race", "--n-resamples", "zero"],
        r"--n-resamples: must be an integer from 99 to 1,000,000",
    ),
    ("negative margin", "compas", ["--group", "race", "--margin", "-0.1"], r"--margin: must be strictly"),
    ("margin 1", "compas", ["--group", "race", "--margin", "1"], r"--margin: must be strictly between"),
    ("margin text", "compas", ["--group", "race", "--margin", "ten"], r"--margin: must be a number"),
    ("margin NaN", "compas", ["--group", "race", "--margin", "nan"], r"--margin: must be strictly"),
    ("ratio 1.25", "compas", ["--group", "race", "--margin-ratio", "1.25"], r"--margin-ratio: must be"),
    (
        "ratio with folds",
        "compas",
        ["--group", "race", "--fold", "id", "--margin-ratio", "0.8"],
        r"--margin-ratio: the fold-based equivalence test",
    ),
]


@pytest.mark.parametrize(("case", "source", "extra", "message"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    compas, tmp_path, capsys, case, source, extra, message
):
    files = _bad_files(compas, tmp_path)
    path = compas if source == "compas" else files.get(source, tmp_path / source)
    out = tmp_path / "out"
    status, stdout, stderr = _run(capsys, "audit", str(path), *BASE, *extra, "--out", str(out))
    assert status == 2, case
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("fairstats audit: error: ")
    assert re.search(message, lines[0]), lines[0]
    assert "Traceback" not in stderr and stdout == ""
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]


def test_bad_input_leaves_an_earlier_audit_unchanged(compas, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["audit", str(compas), "--group", "sex", *BASE, "--favorable", "0", "--out", str(out)]
    assert _run(capsys, *argv)[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    status, _, stderr = _run(capsys, "audit", str(compas), "--group", "sx", *BASE, "--out", str(out))
    assert status == 2 and "did you mean 'sex'" in stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_out_folder_with_other_files_is_refused(compas, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    status, _, stderr = _run(capsys, "audit", str(compas), "--group", "sex", *BASE, "--favorable", "0",
                             "--out", str(out))  # fmt: skip
    assert status == 2 and "holds 'thesis.tex' and no audit manifest" in stderr
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]


def test_missing_required_option_is_one_line(compas, capsys):
    status, _, stderr = _run(capsys, "audit", str(compas), "--group", "sex", *BASE)
    assert status == 2
    assert stderr.strip().splitlines() == [
        "fairstats audit: error: the following arguments are required: --out (see 'fairstats audit --help')"
    ]


# --------------------------------------------------------------------------------------------------------
# help
# --------------------------------------------------------------------------------------------------------


def test_help_is_complete(capsys):
    status, stdout, _ = _run(capsys, "audit", "--help")
    assert status == 0
    expected = ["PREDICTIONS", "--group COL", "--y-true COL", "--y-pred COL", "--y-score COL", "--fold COL"]
    expected += ["--favorable VALUE", "--alpha A", "--n-resamples N", "--seed S", "--out DIR", "example"]
    expected += ["--margin M", "--margin-ratio R", "four-fifths"]
    expected += ["equal_confusion.csv", "residuals.csv", "tests.csv", "report.html"]
    for option in expected:
        assert option in stdout, option
    status, stdout, _ = _run(capsys, "--help")
    assert status == 0 and "audit" in stdout


def test_no_command_is_an_error(capsys):
    status, _, stderr = _run(capsys)
    assert status == 2 and "audit" in stderr


def test_console_script_is_installed():
    exe = shutil.which("fairstats", path=str(Path(sys.executable).parent))
    assert exe is not None
    res = subprocess.run([exe, "audit", "--help"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "--favorable VALUE" in res.stdout


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_reader_gone_ends_the_printing_not_the_run(compas, tmp_path, json_flag):
    """``fairstats audit ... | head`` with the reader gone before the summary is printed: the folder is
    written, the exit status is the run's (3: a disparity, with --fail-on), and no error is reported (it
    was "could not write OUT", exit 1)."""
    exe = shutil.which("fairstats", path=str(Path(sys.executable).parent))  # the console script beside us
    assert exe is not None
    out = tmp_path / "out"
    argv = ["audit", str(compas), "--group", "race", *BASE, "--seed", "1", "--fail-on", "disparity",
            *json_flag]
    proc = subprocess.Popen([exe, *argv, "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes before the process has printed
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 3, err
    assert "error" not in err
    assert {"tests.csv", "report.html", MANIFEST} <= {p.name for p in out.iterdir()}


def test_the_command_lines_own_process_freezes_the_collector_and_writes_the_same(compas, tmp_path, capsys,
                                                                                   monkeypatch):  # fmt: skip
    """main() reading sys.argv itself (the command line's own process) puts its imports and its audit out of
    the cyclic garbage collector's way (gc.freeze, issue 37); main(argv) leaves the collector as it is; the
    same files either way."""
    import gc

    argv = ["audit", str(compas), "--group", "sex", *BASE, "--favorable", "0", "--seed", "5"]
    frozen = gc.get_freeze_count()
    assert _run(capsys, *argv, "--out", str(tmp_path / "a"))[0] == 0
    assert gc.get_freeze_count() == frozen
    monkeypatch.setattr(sys, "argv", ["fairstats", *argv, "--out", str(tmp_path / "b")])
    try:
        assert cli.main() == 0
        assert gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()
    capsys.readouterr()
    for name in ("tests.csv", "equal_confusion.csv", "residuals.csv", "residuals_sex.png"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
