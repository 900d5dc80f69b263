"""``fairstats audit --impact-ratios`` (issue 25): impact_ratios.csv against hand computation, the LL144
layout, the 2 % rule, unknowns, the report's sentences, and bad input (a clear message or an explicit
undefined, nothing half-written)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest

from fairstats.auditing import cli
from fairstats.auditing.folder import MANIFEST


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _applicants(spec: dict, path: Path, *, seed: int = 0) -> Path:
    """A CSV with exactly ``x`` of ``n`` hired per (sex, race) cell (``spec``: (sex, race) -> (x, n))."""
    rows = []
    day = 0
    for (sex, race), (x, n) in spec.items():
        for i in range(n):
            rows.append({"sex": sex, "race": race, "hired": "yes" if i < x else "no",
                         "score": float(i < x) + (day % 7) / 10, "applied": f"2025-{1 + day % 12:02d}-15"})
            day += 1
    frame = pd.DataFrame(rows).sample(frac=1, random_state=seed)
    frame.to_csv(path, index=False)
    return path


SPEC = {("F", "A"): (30, 100), ("F", "B"): (12, 60), ("M", "A"): (50, 100), ("M", "B"): (26, 60),
        ("M", "C"): (1, 4)}  # fmt: skip
IMPACT = ["--impact-ratios", "--y-pred", "hired", "--favorable", "yes"]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return _applicants(SPEC, tmp_path_factory.mktemp("impact") / "applicants.csv")


def test_impact_ratios_csv_equals_hand_computation(data, tmp_path, capsys):
    out = tmp_path / "out"
    status, stdout, stderr = _run(capsys, "audit", str(data), *IMPACT, "--group", "sex", "--out", str(out))
    assert status == 0, stderr
    assert {p.name for p in out.iterdir()} == {"impact_ratios.csv", "impact_ratios.md", "impact_ratios.png",
                                               "report.md", "report.html", MANIFEST}  # fmt: skip
    table = pd.read_csv(out / "impact_ratios.csv", keep_default_na=False, na_values=[""])
    for column in ("grouping", "category", "n", "selected", "selection_rate", "impact_ratio",
                   "impact_ratio_ci_low", "impact_ratio_ci_high", "z_pvalue", "fisher_pvalue", "four_fifths",
                   "excluded_reason"):  # fmt: skip
        assert column in table.columns
    women, men = table.set_index("category").loc["F"], table.set_index("category").loc["M"]
    xf, nf, xm, nm = 42, 160, 77, 164  # by hand from SPEC
    assert (women["n"], women["selected"], men["n"], men["selected"]) == (nf, xf, nm, xm)
    assert men["impact_ratio"] == 1.0
    assert women["impact_ratio"] == pytest.approx((xf / nf) / (xm / nm), rel=1e-15)
    fisher = stats.fisher_exact([[xf, nf - xf], [xm, nm - xm]], alternative="two-sided").pvalue
    assert women["fisher_pvalue"] == pytest.approx(fisher, rel=1e-12)
    _, z_p = proportions_ztest(np.array([xf, xm]), np.array([nf, nm]))
    assert women["z_pvalue"] == pytest.approx(z_p, rel=1e-12)
    assert women["four_fifths"] in ("below 4/5", "inconclusive", "at or above 4/5")
    assert "four-fifths verdicts over 1 comparison" in stdout


def test_ll144_layout_two_percent_rule_unknowns_and_sentences(data, tmp_path, capsys):
    frame = pd.read_csv(data)
    frame.loc[frame.index[:5], "race"] = np.nan  # 5 people without a race
    path = tmp_path / "with_missing.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "ll144"
    argv = ["audit", str(path), *IMPACT, "--standard", "ll144", "--sex", "sex", "--race", "race",
            "--date", "applied", "--min-share", "0.02", "--out", str(out)]  # fmt: skip
    status, _, stderr = _run(capsys, *argv)
    assert status == 2 and "--race: column 'race' has 5 missing value(s)" in stderr
    assert "--missing-as-unknown" in stderr and not out.exists()
    status, _, stderr = _run(capsys, *argv, "--missing-as-unknown")
    assert status == 0, stderr
    table = pd.read_csv(out / "impact_ratios.csv", keep_default_na=False, na_values=[""])
    assert list(dict.fromkeys(table["grouping"])) == ["sex", "race", "sex x race"]
    unknown = table[table["role"] == "unknown"]
    assert list(unknown["grouping"]) == ["race", "sex x race"] and list(unknown["n"]) == [5, 5]
    small = table[(table["grouping"] == "race") & (table["category"] == "C")].iloc[0]
    assert small["role"] == "excluded" and small["n"] == 4 and np.isnan(small["impact_ratio"])
    assert "min_share = 0.02" in small["excluded_reason"]
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "NYC Local Law 144" in report and "from 2025-01-15 to 2025-12-15" in report
    assert "5 people in an unknown category" in report
    assert "Excluded by the 2 % rule" in report and "`C` (`race`): 4 people" in report
    inconclusive = table[table["four_fifths"] == "inconclusive"]
    assert len(inconclusive)  # these sizes leave some ratio undecided; the sentence says what size decides
    row = inconclusive.iloc[0]
    assert "we cannot tell whether their selection rate" in report and "would decide it" in report
    assert f"With {int(row['n']):,} people in `{row['category']}`" in report
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<code>sex x race</code>" in html and "impact_ratios.png" in html


def test_scoring_rate_and_its_ties(data, tmp_path, capsys):
    out = tmp_path / "scores"
    status, _, stderr = _run(capsys, "audit", str(data), "--impact-ratios", "--scoring-rate", "score",
                             "--group", "sex", "--out", str(out))  # fmt: skip
    assert status == 0, stderr
    scores = pd.read_csv(data)["score"]
    table = pd.read_csv(out / "impact_ratios.csv")
    assert int(table["selected"].sum()) == int((scores > scores.median()).sum())
    assert int(table["ties_at_median"].sum()) == int((scores == scores.median()).sum())
    assert "strictly above the whole sample's median" in (out / "report.md").read_text(encoding="utf-8")


def test_undefined_ratios_are_explicit(tmp_path, capsys):
    nobody = _applicants({("F", "A"): (0, 10), ("M", "A"): (0, 12)}, tmp_path / "nobody.csv")
    out = tmp_path / "nobody"
    status, _, stderr = _run(capsys, "audit", str(nobody), "--impact-ratios", "--y-pred", "hired",
                             "--favorable", "no", "--group", "race", "--out", str(out))  # fmt: skip
    assert status == 0, stderr  # favorable "no": everybody selected, ratio 1 (a z test without variance)
    frame = pd.read_csv(nobody).assign(score=1.0)
    same = tmp_path / "same.csv"
    frame.to_csv(same, index=False)
    status, _, stderr = _run(capsys, "audit", str(same), "--impact-ratios", "--scoring-rate", "score",
                             "--group", "sex", "--out", str(tmp_path / "same"))  # fmt: skip
    assert status == 0, stderr
    table = pd.read_csv(tmp_path / "same" / "impact_ratios.csv")
    assert (table["four_fifths"] == "undefined").all() and table["impact_ratio"].isna().all()
    report = (tmp_path / "same" / "report.md").read_text(encoding="utf-8")
    assert "no impact ratio" in report and "every score equals the median" in report
    counts = pd.DataFrame({"sex": ["F", "M", "X"], "hired": ["yes", "yes", "yes"], "n": [4, 6, 0]})
    counts = pd.concat([counts, pd.DataFrame({"sex": ["F", "M"], "hired": ["no", "no"], "n": [6, 4]})])
    counts.to_csv(tmp_path / "counts.csv", index=False)
    status, _, stderr = _run(capsys, "audit", "--counts", str(tmp_path / "counts.csv"), "--impact-ratios",
                             "--y-pred", "hired", "--favorable", "yes", "--group", "sex", "--out",
                             str(tmp_path / "counted"))  # fmt: skip
    assert status == 0, stderr
    table = pd.read_csv(tmp_path / "counted" / "impact_ratios.csv", keep_default_na=False, na_values=[""])
    x = table.set_index("category").loc["X"]
    assert x["n"] == 0 and x["role"] == "empty" and x["four_fifths"] == "undefined"


def test_data_strings_are_text_in_every_output(tmp_path, capsys):
    hostile = "*bold* <script>alert(1)</script> =1+1"
    path = _applicants({(hostile, "A"): (20, 40), ("M", "A"): (30, 40)}, tmp_path / "hostile.csv")
    out = tmp_path / "hostile"
    status, _, stderr = _run(capsys, "audit", str(path), *IMPACT, "--group", "sex", "--out", str(out))
    assert status == 0, stderr
    assert "<script>" not in (out / "report.html").read_text(encoding="utf-8")
    assert "`*bold* <script>alert(1)</script> =1+1`" in (out / "report.md").read_text(encoding="utf-8")
    csv = (out / "impact_ratios.csv").read_text(encoding="utf-8")
    assert hostile in csv  # not formula-like at its start: kept as written


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--group", "sex"], "--impact-ratios: give the decision with --y-pred"),  # no --y-pred
        (["--group", "sex", "--y-pred", "hired", "--favorable", "hired!"], "'hired!' does not occur"),
        (["--group", "sex", "--y-pred", "hired"], "name the selected one with --favorable"),
        (["--group", "sex", "--y-pred", "hired", "--favorable", "yes", "--y-true", "hired"],
         "--y-true does not apply to --impact-ratios"),
        (["--standard", "ll144", "--sex", "sex", "--y-pred", "hired", "--favorable", "yes"],
         "--standard ll144 needs --sex COL and --race COL"),
        (["--group", "nope", "--y-pred", "hired", "--favorable", "yes"], "--group: column 'nope' not found"),
        (["--group", "sex", "--y-pred", "hired", "--favorable", "yes", "--date", "sex"],
         "is also given as --group; each role needs its own column"),
        (["--group", "sex", "--y-pred", "hired", "--favorable", "yes", "--date", "race"], "not a date"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(data, tmp_path, capsys, extra, message):
    out = tmp_path / "bad"
    status, _, stderr = _run(capsys, "audit", str(data), "--impact-ratios", *extra, "--out", str(out))
    assert status == 2
    assert len(stderr.strip().splitlines()) == 1 and message in stderr, stderr
    assert not out.exists()


def test_impact_options_stay_out_of_the_outcome_audit(data, tmp_path, capsys):
    status, _, stderr = _run(capsys, "audit", str(data), "--group", "sex", "--y-pred", "hired",
                             "--out", str(tmp_path / "x"))  # fmt: skip
    assert status == 2
    assert "the following arguments are required for the audit of decisions: --y-true" in stderr
    status, _, stderr = _run(capsys, "audit", str(data), "--group", "sex", "--y-true", "hired", "--y-pred",
                             "hired", "--min-share", "0.02", "--out", str(tmp_path / "y"))  # fmt: skip
    assert status == 2 and "--min-share does not apply to the audit of decisions" in stderr


@pytest.mark.parametrize(("spec", "expected"), [
    ({("F", "A"): (40, 400), ("M", "A"): (200, 400)}, 3),  # women 0.1 vs men 0.5: interval far below 0.8
    ({("F", "A"): (200, 400), ("M", "A"): (200, 400)}, 0),  # equal selection rates
])  # fmt: skip
def test_json_and_fail_on_below_four_fifths(spec, expected, tmp_path, capsys):
    import json

    data = _applicants(spec, tmp_path / "applicants.csv")
    out = tmp_path / "out"
    status, stdout, stderr = _run(capsys, "audit", str(data), *IMPACT, "--group", "sex", "--json",
                                  "--fail-on", "disparity", "--out", str(out))  # fmt: skip
    assert status == expected, stderr
    summary = json.loads(stdout)  # the JSON summary is all of standard output
    assert summary["task"] == "impact_ratios" and summary["n"] == 800
    assert summary["has_disparity"] is (expected == 3)
    below = summary["disparities"].get("impact_ratios", [])
    assert [(r["grouping"], r["category"]) for r in below] == ([("sex", "F")] if expected == 3 else [])
    if below:
        assert below[0]["impact_ratio"] == pytest.approx(0.2)  # 0.1 / 0.5, by hand
        assert below[0]["impact_ratio_ci_high"] < 0.8
    assert (out / "impact_ratios.csv").exists()  # written as usual whatever the exit status
