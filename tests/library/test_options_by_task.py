"""Every option in every task: refused where it does not apply, reflected in what is computed where it does.

Generated from the one declaration (:data:`fairstats.auditing.options.OPTIONS`), as scikit-learn's
``parametrize_with_checks`` is from its estimators: for every option and every task,

* an option that does not apply to the task is refused: exit status 2 and one line naming the option and the
  task (and :func:`fairstats.audit` raises the same :class:`AuditError`);
* an option that applies changes what is computed: the task's run with it (and the options it needs) gives
  other tables (or, for the options of the run itself, another exit status, another output file or another
  output format) than the run without it, and the report's "What was audited" names it.

A new option without a value here fails :func:`test_every_option_has_a_value_that_matters`.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats.auditing import AuditError, cli
from fairstats.auditing.options import OPTIONS, TASK_NAMES, TASKS, options_page

REPO = Path(__file__).resolve().parents[2]
FAST = ("--n-resamples", "99")


def _frame(n: int = 480, seed: int = 3) -> pd.DataFrame:
    """People with every column some option reads: a small group (permutation p-values), selection rates by
    race of 0.7, 0.5 and 0.3 (so that verdicts, impact ratios and alarms differ), other outcomes and
    predictions, levels, a score, folds, continuous outcomes and predictions, dates; a baseline model's
    decisions (p_old: the same for every race, so that p's disparities grew) and score (drawn last: the
    other columns are those of the fixture before them)."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["A", "B", "C"], n, p=[0.55, 0.35, 0.10])
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < np.select([race == "A", race == "B"], [0.7, 0.5], 0.3)).astype(int)
    score = np.clip(0.5 * p + 0.5 * rng.random(n), 0, 1).round(3)
    frame = pd.DataFrame({
        "sex": rng.choice(["F", "M"], n, p=[0.6, 0.4]), "sex2": rng.choice(["F", "M", "X"], n), "race": race,
        "age": rng.integers(18, 80, n), "y": y, "y_alt": rng.integers(0, 2, n), "p": p,
        "p_alt": rng.integers(0, 2, n), "score": score, "fold": np.arange(n) % 5,
        "y_num": (10 * y + rng.normal(0, 1, n)).round(3),
        "y_num_alt": (10 * y + rng.normal(0, 3, n)).round(3),
        "p_num": (10 * p + rng.normal(0, 1, n) + (race == "B") * 1.5).round(3),
        "p_num_alt": (10 * y + rng.normal(0, 2, n)).round(3),
        "day": pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(n) % 90, unit="D"),
    })  # fmt: skip
    frame["p_old"] = (rng.random(n) < 0.5).astype(int)
    frame["score_old"] = np.clip(0.5 * frame["p_old"] + 0.5 * rng.random(n), 0, 1).round(3)
    return frame


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("options")
    frame = _frame()
    frame.assign(day=frame["day"].dt.strftime("%Y-%m-%d")).to_csv(root / "people.csv", index=False)
    missing = frame.astype({"race": object})
    missing.loc[::7, "race"] = np.nan
    missing.assign(day=missing["day"].dt.strftime("%Y-%m-%d")).to_csv(root / "missing.csv", index=False)
    counts = frame.groupby(["sex", "race", "y", "p"]).size().rename("n").reset_index()
    counts.to_csv(root / "counts.csv", index=False)
    batches = root / "batches"
    batches.mkdir()
    for k in range(3):
        frame.iloc[k * 160:(k + 1) * 160].to_csv(batches / f"b{k}.csv", index=False)
    return {"people": root / "people.csv", "missing": root / "missing.csv", "counts": root / "counts.csv",
            "batches": batches, "root": root}  # fmt: skip


#: The base run of each task (its required options); monitor: BATCHES --state are added by the runner.
BASE = {
    "decisions": ["--group", "race", "--y-true", "y", "--y-pred", "p", *FAST],
    "impact_ratios": ["--impact-ratios", "--group", "race", "--y-pred", "p"],
    "regression": ["--task", "regression", "--group", "race", "--y-true", "y_num", "--y-pred", "p_num",
                   *FAST],
    "comparison": ["--task", "comparison", "--group", "race", "--y-true", "y", "--y-pred", "p",
                   "--y-pred-baseline", "p_old"],
    "monitor": ["--group", "race", "--y-pred", "p"],
}

#: For every option: the arguments that give it a value that matters on the fixture, the arguments it needs,
#: and the base arguments it replaces (an option that stands for a required one); a dict where a task needs
#: its own. ``None``: tested by its own test below.
VALUES: dict[str, tuple | None] = {
    "task": None, "impact_ratios": None, "predictions": None, "batches": None, "counts": None, "out": None,
    "state": None, "pdf": None, "json": None, "fail_on": None, "missing_as_unknown": None, "margin_v": None,
    "group": {"monitor": (["--group", "sex2"], [], ["--group", "race"]), "*": (["--group", "sex2"],)},
    "y_true": {"decisions": (["--y-true", "y_alt"], [], ["--y-true", "y"]),
               "regression": (["--y-true", "y_num_alt"], [], ["--y-true", "y_num"]),
               "comparison": (["--y-true", "y_alt"], [], ["--y-true", "y"]),
               "*": (["--y-true", "y"],)},
    "y_pred": {"regression": (["--y-pred", "p_num_alt"], [], ["--y-pred", "p_num"]),
               "*": (["--y-pred", "p_alt"], [], ["--y-pred", "p"])},
    "y_pred_baseline": (["--y-pred-baseline", "p_alt"], [], ["--y-pred-baseline", "p_old"]),
    "y_score": {"comparison": (["--y-score", "score", "--y-score-baseline", "score_old"],),
                "*": (["--y-score", "score"],)},
    "y_score_baseline": (["--y-score-baseline", "score_old"], ["--y-score", "score"], [],
                       ["--y-score-baseline", "p_num"]),
    "fold": (["--fold", "fold"],),
    "favorable": (["--favorable", "0"],),
    "alpha": (["--alpha", "0.3"],),
    "margin": {"monitor": (["--margin", "0.6"],), "*": (["--margin", "0.01"],)},
    "margin_ratio": (["--margin-ratio", "0.95"],),
    "n_resamples": (["--n-resamples", "199"],),
    "ici_resamples": (["--ici-resamples", "99"], ["--y-score", "score"]),
    "rng": (["--seed", "7"],),
    "reference": (["--reference", "C"],),
    "comparisons": (["--comparisons", "pairs"],),
    "where": (["--where", "age > 40"],),
    # the fixture's days are ISO text: compared as text, every one is before '2024-2-1'; as dates, January's
    "date_format": (["--date-format", "%Y-%m-%d"], ["--where", "day < '2024-2-1' OR age > 60"]),
    "y_pred_positive": (["--y-pred-positive", "0"],),
    "y_pred_threshold": (["--y-pred-threshold", "2"],),
    "decision_levels": (["--decision-levels", "1,0"],),
    "outcome_levels": (["--outcome-levels", "1,0"], ["--decision-levels", "0,1"]),
    "ordered": (["--unordered"], ["--decision-levels", "0,1"]),
    "search": (["--search", "race", "age"],),
    "search_depth": (["--search-depth", "1"], ["--search", "race", "sex"]),
    "min_size": (["--min-size", "100"], ["--search", "race", "sex"]),
    "search_metrics": (["--search-metrics", "ppr"], ["--search", "race", "sex"]),
    "scoring_rate": (["--scoring-rate", "score"], [], ["--y-pred", "p"]),
    "standard": (["--standard", "ll144", "--sex", "sex", "--race", "race"], [], ["--group", "race"]),
    "sex": (["--sex", "sex2"], ["--standard", "ll144", "--race", "race"], ["--group", "race"],
            ["--sex", "sex"]),
    "race": (["--race", "sex2"], ["--standard", "ll144", "--sex", "sex"], ["--group", "race"],
             ["--race", "race"]),
    "date": (["--date", "day"],),
    "min_share": (["--min-share", "0.2"],),
    "unknown": (["--unknown", "C"],),
    "regression_margin": (["--regression-margin", "5"],),
    "metrics": {"comparison": (["--metrics", "ppr,tpr"],),
                "*": (["--metrics", "ppr,tpr"], ["--y-true", "y"])},
}  # fmt: skip

#: Options whose value shows in the report (the date range) rather than in the tables.
REPORT_ONLY = {"date": "the data's date range is the report's, impact_ratios.csv has no date"}


def _main(argv: list) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("ignore")
        status = cli.main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def _run(
    task: str, args: list, files: dict, tmp: Path, *, base: list | None = None
) -> tuple[int, str, str, Path]:
    base = BASE[task] if base is None else base
    out = tmp / f"run{len(list(tmp.iterdir()))}"
    if task == "monitor":
        argv = ["monitor", files["batches"], "--state", out, *base, *args]
    else:
        argv = ["audit", files["people"], *base, *args, "--out", out]
    status, stdout, stderr = _main(argv)
    return status, stdout, stderr, out


def _tables(out: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.csv"))}


def _audited(out: Path) -> str:
    text = (out / "report.md").read_text(encoding="utf-8")
    start = text.index("## What was audited") if "## What was audited" in text else text.index("| | |")
    return text[start:start + 3000]


#: The arguments of the options tested by their own tests below, for their refusal in the other tasks.
OWN_TESTS = {"counts": ["--counts", "counts.csv"], "out": ["--out", "o"], "state": ["--state", "s"],
             "pdf": ["--pdf"], "json": ["--json"], "fail_on": ["--fail-on", "disparity"],
             "missing_as_unknown": ["--missing-as-unknown"]}  # fmt: skip
def _spec(name: str, task: str):
    spec = VALUES[name]
    if isinstance(spec, dict):
        spec = spec.get(task, spec.get("*"))
    return None if spec is None else (*spec, [], [], [])[:4]


REFUSED = [(o.name, t) for o in OPTIONS for t in TASKS
           if t not in o.tasks and o.flag and o.cli != "positional"]  # fmt: skip
APPLIED = [(o.name, t) for o in OPTIONS for t in TASKS if t in o.tasks and VALUES.get(o.name) is not None]


def test_every_option_has_a_value_that_matters():
    """The declaration and this test name the same options: a new option needs a value here, or its own
    test (OWN_TESTS; the task selectors, the positional inputs and the keyword-only margin_v have theirs)."""
    assert set(VALUES) == {o.name for o in OPTIONS}
    own = {n for n, v in VALUES.items() if v is None}
    assert own - set(OWN_TESTS) == {"task", "impact_ratios", "predictions", "batches", "margin_v"}


def _base(task: str, replaces: list) -> list:
    base = list(BASE[task])
    for i in range(0, len(replaces), 2):  # drop the base arguments this option stands for
        j = next(k for k in range(len(base) - 1) if base[k] == replaces[i] and base[k + 1] == replaces[i + 1])
        del base[j:j + 2]
    return base


@pytest.mark.parametrize("name,task", REFUSED, ids=[f"{n}-{t}" for n, t in REFUSED])
def test_an_option_that_does_not_apply_is_refused(name, task, files, tmp_path):
    opt = next(o for o in OPTIONS if o.name == name)
    spec = _spec(name, task)
    value = spec[0] if spec is not None else OWN_TESTS.get(name, [opt.flag])
    status, _, stderr, out = _run(task, value, files, tmp_path)
    assert status == 2 and not out.exists(), stderr
    assert opt.flag in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert TASK_NAMES[task] in stderr or name == "impact_ratios", stderr


@pytest.mark.parametrize("name,task", APPLIED, ids=[f"{n}-{t}" for n, t in APPLIED])
def test_an_option_that_applies_changes_what_is_computed(name, task, files, tmp_path):
    opt = next(o for o in OPTIONS if o.name == name)
    value, needs, replaces, instead = _spec(name, task)  # instead: what stands for it in the run without it
    base = _base(task, replaces)
    base0 = _base(task, replaces) + instead if instead else (base if not replaces else BASE[task])
    status0, _, err0, out0 = _run(task, needs, files, tmp_path, base=base0)
    status1, _, err1, out1 = _run(task, [*needs, *value], files, tmp_path, base=base)
    assert status0 == 0, err0
    assert status1 == 0, err1
    if task == "monitor":
        assert (out0 / "monitor.csv").read_text() != (out1 / "monitor.csv").read_text()
        return
    if name in REPORT_ONLY:
        report0, report1 = ((o / "report.md").read_text(encoding="utf-8") for o in (out0, out1))
        assert _audited(out0) != _audited(out1) or report0 != report1
    else:
        assert _tables(out0) != _tables(out1), f"{opt.flag} in {task}: the same tables with and without it"
    assert opt.flag in _audited(out1) or name in ("group", "y_true", "y_pred", "where", "y_pred_positive",
                                                  "y_pred_threshold", "sex", "race", "standard")


@pytest.mark.parametrize("task", ["decisions", "impact_ratios", "regression", "comparison"])
def test_the_api_refuses_what_the_task_does_not_take(task):
    """fairstats.audit: every keyword that does not apply to the task raises AuditError naming it."""
    frame = _frame(60)
    for opt in OPTIONS:
        if not opt.attribute or task in opt.tasks or opt.tasks == ("monitor",):  # not keywords of audit()
            continue
        with pytest.raises(AuditError, match=f"does not apply to {TASK_NAMES[task]}"):
            fairstats.audit(frame, task=task, **{opt.name: _api_value(opt)})


def _api_value(opt):
    if opt.cli in ("append", "nargs"):
        return ["x"]
    if opt.cli == "flag":
        return opt.flag_value
    return {"comparisons": "pairs", "standard": "ll144", "alpha": 0.1, "margin": 0.2, "margin_ratio": 0.9,
            "margin_v": 0.2, "n_resamples": 199, "ici_resamples": 199, "rng": 1, "search_depth": 1,
            "min_size": 5, "y_pred_threshold": 0.5, "min_share": 0.1, "regression_margin": 1.0,
            "decision_levels": "a,b", "outcome_levels": "a,b",
            "metrics": "ppr"}.get(opt.name, "x")  # fmt: skip


def test_margin_v_changes_the_equal_confusion_verdicts():
    frame = _frame()
    a = fairstats.audit(frame, group="race", y_true="y", y_pred="p", n_resamples=99)
    b = fairstats.audit(frame, group="race", y_true="y", y_pred="p", n_resamples=99, margin_v=0.5)
    assert not a.equal_confusion.equals(b.equal_confusion)


def test_counts_give_the_rows_numbers_and_are_refused_where_a_person_is_needed(files, tmp_path):
    rows = _run("decisions", [], files, tmp_path)
    counts = ["audit", "--counts", files["counts"]]
    status, _, err = _main([*counts, *BASE["decisions"], "--out", tmp_path / "c"])
    assert status == 0, err
    a = pd.read_csv(rows[3] / "equal_confusion.csv")
    b = pd.read_csv(tmp_path / "c" / "equal_confusion.csv")
    assert a["statistic"].tolist() == b["statistic"].tolist()
    status, _, err = _main(["audit", "--counts", files["counts"], *BASE["decisions"], "--y-score", "score",
                            "--out", tmp_path / "d"])  # fmt: skip
    assert status == 2 and "--counts" in err and "--y-score" in err
    status, _, err = _main([*counts, *BASE["regression"], "--out", tmp_path / "e"])
    assert status == 2 and "--counts does not apply to --task regression" in err
    status, _, err = _main(["monitor", files["batches"], "--counts", files["counts"], "--state",
                            tmp_path / "s", *BASE["monitor"]])  # fmt: skip
    assert status == 2 and "--counts does not apply to fairstats monitor" in err


@pytest.mark.parametrize("task", TASKS)
def test_json_fail_on_and_the_outputs(task, files, tmp_path):
    """--json prints JSON with numbers as numbers; --fail-on disparity exits 3 on the fixture's disparity;
    --pdf, --out and --state apply where the declaration says and are refused elsewhere."""
    status, stdout, err, _ = _run(task, ["--json"], files, tmp_path)
    assert status == 0, err
    shown = json.loads(stdout)
    assert shown["task"] == task and isinstance(shown["alpha"] if task != "monitor" else shown["alarm"],
                                                float if task != "monitor" else bool)
    status, _, err, _ = _run(task, ["--fail-on", "disparity", "--alpha", "0.3"], files, tmp_path)
    assert status == 3, err
    if task == "monitor":
        for flag in (["--pdf"], ["--out", tmp_path / "x"]):
            status, _, err, _ = _run(task, flag, files, tmp_path)
            assert status == 2 and f"{flag[0]} does not apply to fairstats monitor" in err
    else:
        status, _, err = _main(["audit", files["people"], *BASE[task], "--state", tmp_path / "s", "--out",
                                tmp_path / "o"])  # fmt: skip
        assert status == 2 and f"--state does not apply to {TASK_NAMES[task]}" in err


@pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                    reason="--pdf needs a headless Chromium (make test installs it; CI has it)")
@pytest.mark.parametrize("task", ["decisions", "impact_ratios", "regression", "comparison"])
def test_pdf_writes_the_report_as_pdf(task, files, tmp_path):
    status, _, err, out = _run(task, ["--pdf"], files, tmp_path)
    assert status == 0, err
    assert (out / "report.pdf").read_bytes().startswith(b"%PDF")


def test_missing_as_unknown_counts_missing_groups_as_unknown(files, tmp_path):
    argv = ["audit", files["missing"], *BASE["impact_ratios"]]
    status, _, err = _main([*argv, "--out", tmp_path / "a"])
    assert status == 2 and "--missing-as-unknown" in err
    status, _, err = _main([*argv, "--missing-as-unknown", "--out", tmp_path / "b"])
    assert status == 0, err
    table = pd.read_csv(tmp_path / "b" / "impact_ratios.csv")
    assert "unknown" in set(table["role"])


def test_the_task_is_chosen_once(files, tmp_path):
    status, _, err = _main(["audit", files["people"], "--impact-ratios", "--task", "regression", "--group",
                            "race", "--y-pred", "p", "--out", tmp_path / "o"])  # fmt: skip
    assert status == 2 and "--impact-ratios" in err


def test_the_options_page_is_made_from_the_declaration():
    """docs/options.rst is options_page()'s text (regenerate: python -c 'from fairstats.auditing.options
    import options_page; print(options_page(), end="")' > docs/options.rst)."""
    assert (REPO / "docs" / "options.rst").read_text(encoding="utf-8") == options_page()
