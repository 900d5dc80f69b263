"""Model against model, a task of the one audit (``--task comparison``, ``audit(task="comparison")``).

The statistics are :func:`fairstats.disparity_change`'s (tested in ``test_disparity_change.py`` and
``reference/test_disparity_change_reference.py``); here: the task computes exactly what the library computes
on the same people, a planted change of disparity reads "less fair" and the swapped models "fairer",
``--fail-on disparity`` exits 3 on "less fair" only, the labels, the decision rule and the counts go the
audit's one road, and data strings are shown as text in every output. Every option of the task in every input
kind: ``test_options_by_task.py`` and ``test_inputs_by_task.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats.auditing import AuditError, cli

BASE = {"task": "comparison", "group": "race", "y_true": "y", "y_pred": "new", "y_pred_baseline": "old"}


def _people(n: int = 2500, seed: int = 42) -> pd.DataFrame:
    """Groups A (60 %) and B: the old model decides favourably for 60 % of A and 50 % of B, the new one for
    70 % and 30 % (its PPR disparity of B grows from -0.1 to -0.4); both models' decisions are 1 more often
    for people with outcome 1, and agree for most people; scores rank like the decisions."""
    rng = np.random.default_rng(seed)
    race = np.where(rng.random(n) < 0.6, "A", "B")
    y = rng.integers(0, 2, n)
    lift = 0.1 * (2 * y - 1)
    u = rng.random(n)  # one draw for both models: their decisions are paired
    old = (u < np.where(race == "A", 0.6, 0.5) + lift).astype(int)
    new = (u < np.where(race == "A", 0.7, 0.3) + lift).astype(int)
    noise = rng.normal(0, 0.1, n)
    return pd.DataFrame({"race": race, "sex": rng.choice(["F", "M"], n), "y": y, "old": old, "new": new,
                         "s_old": (old + noise).round(4), "s_new": (new + noise).round(4),
                         "fold": np.arange(n) % 5})  # fmt: skip


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    return _people()


def _audit(data, **keywords):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fairstats.audit(data, **{**BASE, **keywords})


def _row(result, metric: str, group: str = "B") -> pd.Series:
    table = result.tables["disparity_change"]
    keep = (table["family"] == "fairness") & (table["group"] == group) & (table["metric"] == metric)
    return table[keep].iloc[0]


def _main(argv: list) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("ignore")
        status = cli.main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------------------------------------
# what is computed
# --------------------------------------------------------------------------------------------------------


def test_the_task_computes_what_the_library_computes(people):
    """The audit's table is fairstats.disparity_change per grouping, combined (Holm over both groupings)."""
    got = _audit(people, group=["race", "sex"], y_score="s_new", y_score_baseline="s_old")
    kw = dict(y_true="y", y_pred="new", y_pred_baseline="old", y_score="s_new", y_score_baseline="s_old")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = fairstats.DisparityChangeResult.combine(
            [fairstats.disparity_change(people, group=g, **kw) for g in ("race", "sex", ["race", "sex"])])
    numbers = expected.table.select_dtypes(include="number").columns
    np.testing.assert_allclose(got.table[numbers].to_numpy(float), expected.table[numbers].to_numpy(float),
                               rtol=1e-12, equal_nan=True)  # fmt: skip
    assert got.table["verdict"].tolist() == expected.table["verdict"].tolist()
    assert list(got.tables) == ["disparity_change"] and got.result.inference == "people"


def test_a_planted_change_is_less_fair_and_the_swapped_models_fairer(people):
    forward = _audit(people)
    swapped = _audit(people, y_pred="old", y_pred_baseline="new")
    row, back = _row(forward, "ppr"), _row(swapped, "ppr")
    assert row["value_baseline"] == pytest.approx(-0.1, abs=0.04)
    assert row["value"] == pytest.approx(-0.4, abs=0.04)
    assert row["verdict"] == "less fair" and back["verdict"] == "fairer"
    assert back["estimate"] == pytest.approx(-row["estimate"], rel=1e-12)
    assert (back["ci_low"], back["ci_high"]) == pytest.approx((-row["ci_high"], -row["ci_low"]), rel=1e-12)
    assert back["pvalue"] == pytest.approx(row["pvalue"], rel=1e-12)  # the two one-sided tests trade places
    assert forward.has_disparity and not swapped.has_disparity
    assert "less fair" not in set(swapped.table["verdict"])
    assert "less fair: race 'B' vs 'A', ppr" in forward.summary()


def test_the_labels_are_mapped_like_the_decisions(people):
    """Text labels with --favorable give the 0/1 numbers; the baseline's labels are checked as --y-pred's."""
    text = people.assign(**{c: np.where(people[c] == 1, "hire", "reject") for c in ("y", "old", "new")})
    a, b = _audit(people), _audit(text, favorable="hire")
    numbers = a.table.select_dtypes(include="number").columns
    pd.testing.assert_frame_equal(a.table[numbers], b.table[numbers])
    assert b.labels == ("hire", "reject")
    bad = text.assign(old=text["old"].where(text.index != 7, "unsure"))
    with pytest.raises(AuditError, match=r"--y-pred-baseline: column 'old' has label 'unsure' \(on row 8 "):
        _audit(bad, favorable="hire")
    flipped = _audit(people, favorable="0")  # the other label favourable: every rate is the other one's
    assert _row(flipped, "ppr")["value"] == pytest.approx(-_row(a, "ppr")["value"], abs=1e-12)


def test_the_decision_rule_makes_both_models_decisions(people, tmp_path):
    scores = people.assign(new=people["new"] * 0.8 + 0.1, old=people["old"] * 0.8 + 0.1)
    ruled = _audit(scores, y_pred_threshold=0.5)
    plain = _audit(people)
    numbers = plain.table.select_dtypes(include="number").columns
    pd.testing.assert_frame_equal(ruled.table[numbers], plain.table[numbers])
    assert ruled.decision_rule == "positive prediction when new >= 0.5; positive prediction when old >= 0.5"
    ruled.save(tmp_path / "r")
    report = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "positive prediction when old \\>= 0.5" in report
    plain.save(tmp_path / "p")
    assert "the prediction columns `new` and `old` as given" in (tmp_path / "p" / "report.md").read_text(
        encoding="utf-8")


def test_folds_give_the_corrected_t_and_ratios_the_ratio_scale(people):
    folded = _audit(people, fold="fold", margin_ratio=0.8)
    assert folded.result.inference == "folds" and folded.result.scale == "ratio"
    assert _row(folded, "ppr")["n_folds"] == 5 and "corrected resampled t" in _row(folded, "ppr")["method"]
    assert _row(folded, "ppr")["value"] == pytest.approx(0.3 / 0.7, abs=0.06)
    assert folded.to_dict()["inference"] == "folds"


def test_metrics_choose_the_family_that_holm_adjusts(people):
    """--metrics: only the measures named are compared, and Holm runs over them alone (the unadjusted numbers
    are those of the full family; the adjusted p-values are no larger)."""
    full, chosen = _audit(people), _audit(people, metrics="ppr,fnr")
    fairness = chosen.table[chosen.table["family"] == "fairness"]
    assert list(dict.fromkeys(fairness["metric"])) == ["ppr", "fnr"]
    row, same = _row(chosen, "ppr"), _row(full, "ppr")
    assert (row["estimate"], row["pvalue"]) == (same["estimate"], same["pvalue"])
    assert row["pvalue_adj"] <= same["pvalue_adj"]
    assert ("--metrics", "ppr, fnr") in chosen.options.shown()
    with pytest.raises(AuditError, match=r"--metrics 'auc' needs both models' scores"):
        _audit(people, metrics=["ppr", "auc"])
    with pytest.raises(AuditError, match=r"--metrics: must be among .*got 'ppx'"):
        _audit(people, metrics="ppx")
    scored = _audit(people, metrics="auc", y_score="s_new", y_score_baseline="s_old")
    assert set(scored.table.loc[scored.table["family"] == "fairness", "metric"]) == {"auc"}


def test_counts_give_the_rows_numbers(people, tmp_path):
    people.to_csv(tmp_path / "people.csv", index=False)
    counted = people.groupby(["race", "y", "old", "new"]).size().rename("n").reset_index()
    counted.to_csv(tmp_path / "counts.csv", index=False)
    args = ["--task", "comparison", "--group", "race", "--y-true", "y", "--y-pred", "new",
            "--y-pred-baseline", "old"]  # fmt: skip
    assert _main(["audit", tmp_path / "people.csv", *args, "--out", tmp_path / "a"])[0] == 0
    status, _, err = _main(["audit", "--counts", tmp_path / "counts.csv", *args, "--out", tmp_path / "b"])
    assert status == 0, err
    a, b = (pd.read_csv(tmp_path / o / "disparity_change.csv") for o in ("a", "b"))
    pd.testing.assert_frame_equal(a, b)


def test_a_polars_frame_gives_the_pandas_numbers_per_person_too(people):
    """Counted in polars (decisions only) and collected per person (folds and scores): the pandas numbers.
    The other engines and input kinds, counted: test_inputs_by_task.py; Spark: test_engines_spark.py."""
    pl = pytest.importorskip("polars")  # the [polars] extra, installed by make test
    for extra in ({}, {"fold": "fold"}, {"y_score": "s_new", "y_score_baseline": "s_old"}):
        expected, got = _audit(people, **extra), _audit(pl.from_pandas(people).lazy(), **extra)
        assert got.n == expected.n == len(people)
        numbers = expected.table.select_dtypes(include="number").columns
        pd.testing.assert_frame_equal(got.table[numbers], expected.table[numbers], rtol=1e-12, atol=1e-12)
        assert got.table["verdict"].tolist() == expected.table["verdict"].tolist()


# --------------------------------------------------------------------------------------------------------
# the command line: exit statuses, --json, refusals
# --------------------------------------------------------------------------------------------------------


def test_fail_on_exits_3_when_a_change_is_less_fair_only(people, tmp_path):
    path = tmp_path / "people.csv"
    people.to_csv(path, index=False)
    args = ["--task", "comparison", "--group", "race", "--y-true", "y", "--fail-on", "disparity"]
    status, stdout, err = _main(["audit", path, *args, "--y-pred", "new", "--y-pred-baseline", "old", "--out",
                                 tmp_path / "a"])  # fmt: skip
    assert status == 3, err
    assert (tmp_path / "a" / "report.html").exists() and "less fair" in stdout
    status, _, err = _main(["audit", path, *args, "--y-pred", "old", "--y-pred-baseline", "new", "--out",
                            tmp_path / "b"])  # fmt: skip
    assert status == 0, err
    assert "fairer" in set(pd.read_csv(tmp_path / "b" / "disparity_change.csv")["verdict"])


def test_json_gives_both_models_rates_as_numbers(people, tmp_path):
    path = tmp_path / "people.csv"
    people.to_csv(path, index=False)
    status, stdout, err = _main(["audit", path, "--task", "comparison", "--group", "race", "--y-true", "y",
                                 "--y-pred", "new", "--y-pred-baseline", "old", "--json",
                                 "--out", tmp_path / "o"])  # fmt: skip
    assert status == 0, err
    shown = json.loads(stdout)
    assert shown["task"] == "comparison" and shown["has_disparity"] is True
    assert shown["options"]["y_pred_baseline"] == "old" and shown["inference"] == "people"
    (race,) = shown["groupings"]
    b = people[people["race"] == "B"]
    assert race["reference"] == "A"
    assert race["sizes"] == {"A": int((people["race"] == "A").sum()), "B": len(b)}
    rates = race["rates"]["B"]
    assert rates["baseline"]["ppr"] == pytest.approx(b["old"].mean(), rel=1e-12)
    assert rates["new"]["tpr"] == pytest.approx(b.loc[b["y"] == 1, "new"].mean(), rel=1e-12)
    assert rates["base_rate"] == pytest.approx(b["y"].mean(), rel=1e-12)
    found = shown["disparities"]["disparity_change"]
    assert {r["verdict"] for r in found} == {"less fair"} and isinstance(found[0]["estimate"], float)
    assert shown["verdicts"]["disparity_change"]["less fair"] == len(found)


@pytest.mark.parametrize("args,message", [
    (["--y-pred-baseline", "old"], "--y-pred-baseline does not apply to the audit of decisions (it applies "
                                   "to --task comparison)"),
    (["--task", "comparison"], "the following arguments are required for --task comparison: "
                               "--y-pred-baseline"),
    (["--task", "comparison", "--y-pred-baseline", "old", "--y-score", "s_new"],
     "give --y-score with --y-score-baseline, or neither"),
    (["--task", "comparison", "--y-pred-baseline", "old", "--y-score-baseline", "s_old"],
     "--y-score-baseline needs --y-score"),
    (["--task", "comparison", "--y-pred-baseline", "new"],
     "--y-pred-baseline 'new' is also given as --y-pred"),
    (["--task", "comparison", "--y-pred-baseline", "od"],
     "--y-pred-baseline: column 'od' not found in people.csv; did you mean 'old'?"),
    (["--task", "comparison", "--y-pred-baseline", "old", "--seed", "3"], "--seed does not apply to --task "
                                                                   "comparison"),
])  # fmt: skip
def test_bad_options_are_one_line_exit_2_and_nothing_written(people, tmp_path, args, message):
    path = tmp_path / "people.csv"
    people.to_csv(path, index=False)
    status, _, err = _main(["audit", path, "--group", "race", "--y-true", "y", "--y-pred", "new", *args,
                            "--out", tmp_path / "o"])  # fmt: skip
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()


def test_the_baseline_labels_are_checked_with_a_hint_that_applies_to_the_task(people):
    """A baseline with a third value is named, with the decision rule that makes both models' decisions
    (not --decision-levels or --task regression, which do not apply here); --favorable is looked up in the
    baseline's labels too."""
    with pytest.raises(AuditError, match=r"--y-pred-baseline: column 'old' has label '2' .*make both models' "
                                         r"decisions with --y-pred-threshold T"):
        _audit(people.assign(old=people["old"].where(people.index != 9, 2)))
    text = people.assign(**{c: np.where(people[c] == 1, "High", "Low") for c in ("y", "new")},
                         old=np.where(people["old"] == 1, "High", np.where(people.index % 2, "Low", "Mid")))
    with pytest.raises(AuditError, match=r"make both models' decisions with --y-pred-positive L1,L2"):
        _audit(text, favorable="High")
    with pytest.raises(AuditError, match=r"--favorable 'yes' never occurs in --y-true 'y', --y-pred 'new' or "
                                         r"--y-pred-baseline 'old'"):
        _audit(people, favorable="yes")


def test_a_missing_baseline_decision_is_named(people):
    with pytest.raises(AuditError, match=r"--y-pred-baseline: column 'old' has 1 missing value\(s\)"):
        _audit(people.assign(old=people["old"].where(people.index != 3)))


# --------------------------------------------------------------------------------------------------------
# data strings as text in every output
# --------------------------------------------------------------------------------------------------------

HOSTILE = ["<script>alert(1)</script>", "![x](http://127.0.0.1:9/p.png)", "a|b", "=HYPERLINK(\"http://x\")",
           "x\n\n## Conclusion: fair\n"]  # fmt: skip
HOSTILE_COLUMN = "**g**<b>[c](http://127.0.0.1:9/c)"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags, self.code, self._in_code = [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_code = tag == "code"

    def handle_endtag(self, tag):
        self._in_code = False

    def handle_data(self, data):
        if self._in_code:
            self.code.append(data)


def _safe(page: str) -> set[str]:
    parsed = _Tags()
    parsed.feed(page)
    assert not [t for t, _ in parsed.tags if t in ("script", "img", "b", "iframe", "link")]
    assert all(":" not in a.get("href", "") for _, a in parsed.tags)
    return set(parsed.code)


def test_hostile_labels_and_names_are_shown_as_text(tmp_path):
    import mistune

    rng = np.random.default_rng(5)
    n = 600
    labels = np.array(HOSTILE)[rng.integers(0, len(HOSTILE), n)]
    data = pd.DataFrame({HOSTILE_COLUMN: labels, "y": rng.integers(0, 2, n), "o|ld`": rng.integers(0, 2, n),
                         "new": rng.integers(0, 2, n)})  # fmt: skip
    path = tmp_path / "in.csv"
    data.to_csv(path, index=False)
    out = tmp_path / "audit"
    status, stdout, err = _main(["audit", path, "--task", "comparison", "--group", HOSTILE_COLUMN, "--y-true",
                                 "y", "--y-pred", "new", "--y-pred-baseline", "o|ld`",
                                 "--out", out])  # fmt: skip
    assert status == 0, err
    assert "\n## Conclusion" not in stdout
    shown = _safe((out / "report.html").read_text(encoding="utf-8"))
    for value in [*HOSTILE, HOSTILE_COLUMN, "o|ld`"]:
        assert value.replace("\n", "\u23ce") in shown, value
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "\n## Conclusion" not in text
    rendered = _safe(mistune.create_markdown(escape=True, plugins=["table"])(text))
    for value in HOSTILE:
        assert value.replace("\n", "\u23ce") in rendered, value
    lines = (out / "disparity_change.md").read_text(encoding="utf-8").splitlines()
    assert len({len(re.findall(r"(?<!\\)\|", line)) for line in lines}) == 1  # no cell broke the table
    table = pd.read_csv(out / "disparity_change.csv", dtype=str, keep_default_na=False)
    cells = set(table["group"]) | set(table["reference"])
    assert "'=HYPERLINK(\"http://x\")" in cells and not any(c.startswith("=") for c in cells)
    html = fairstats.audit(data, task="comparison", group=HOSTILE_COLUMN, y_true="y", y_pred="new",
                           y_pred_baseline="o|ld`")._repr_html_()  # fmt: skip
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_the_result_saves_all_or_nothing_and_shows_itself(people, tmp_path):
    result = _audit(people)
    summary = result.save(tmp_path / "out")
    assert summary.endswith(f"report: {tmp_path / 'out' / 'report.html'}")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".fairstats-audit", "disparity_change.csv", "disparity_change.md", "report.html", "report.md"]
    assert repr(result) == "<fairstats ComparisonAudit (comparison) of 2,500 people: race>"
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    for part in ("What was audited", "Methods", "Moskowitz &amp; Pepe (2006)", "Berger &amp; Hsu (1996)",
                 "Holm (1979)", "Provenance", "fairstats.audit(data, task=&#39;comparison&#39;"):
        assert part in page, part
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "mine.txt").write_text("keep")
    with pytest.raises(AuditError):
        result.save(tmp_path / "busy")
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["mine.txt"]
