"""Hostile and careless input, third round (issue 36): each class holds on cases built here, not the issue's
only.

Classes, one section each:

* the monitor's state as a small database: a lock, a manifest naming its owner, batches recorded by content,
  files checked against the manifest, group values of one type, 0/1 decisions from parquet;
* filters that mean what they say: names bound exactly as written, timestamps in UTC on every machine, date
  text refused unless its format is named (``--where`` and impact ratios' ``--date``);
* clear errors for misuse: every public keyword that takes a column, label, level or number checks its type
  with one line naming it; MultiIndex columns; results' equality and hash; a malformed SOURCE_DATE_EPOCH;
  errors that name the column and the input's own line;
* resources: identifier-like groupings refused up front, long labels shortened in figures and reports.

Every refusal is one line, exit status 2, and leaves every file as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats._where import WhereError, where_masks
from fairstats.auditing import AuditError, cli

FAST = ["--n-resamples", "99"]


def _env(**extra: str) -> dict[str, str]:
    """The environment of a child Python that imports the fairstats this test imported."""
    where = str(Path(fairstats.__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": where, "MPLBACKEND": "Agg", **extra}


def _main(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _people(n: int = 400, seed: int = 0, **extra) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                          "p": rng.integers(0, 2, n)})  # fmt: skip
    for name, values in extra.items():
        frame[name] = values(rng, n) if callable(values) else values
    return frame


def _one_line_refusal(status: int, err: str) -> None:
    assert status == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


# --------------------------------------------------------------------------------------------------------
# clear errors for misuse: a malformed SOURCE_DATE_EPOCH
# --------------------------------------------------------------------------------------------------------

_EPOCH_CHECK = """
import contextlib, io, sys
from pathlib import Path
import pandas as pd
from fairstats.auditing import cli, AuditError
import fairstats
out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert cli.main(["--help"]) == 0
    assert cli.main(["audit", "--help"]) == 0
    assert cli.main(["monitor", "--help"]) == 0
folder = Path(sys.argv[1])
data = folder / "people.csv"
pd.DataFrame({"g": ["a", "b"] * 20, "y": [0, 1] * 20, "p": [1, 0, 0, 1] * 10}).to_csv(data, index=False)
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
    status = cli.main(["audit", str(data), "--group", "g", "--y-true", "y", "--y-pred", "p", "--out",
                       str(folder / "out")])
assert status == 2, (status, err.getvalue())
assert err.getvalue().count("\\n") == 1 and "SOURCE_DATE_EPOCH" in err.getvalue(), err.getvalue()
audit = fairstats.audit(pd.read_csv(data), group="g", y_true="y", y_pred="p", n_resamples=99)
try:
    audit.save(folder / "saved")
except AuditError as error:
    assert "SOURCE_DATE_EPOCH" in str(error)
else:
    raise AssertionError("saved with a malformed SOURCE_DATE_EPOCH")
assert sorted(p.name for p in folder.iterdir()) == ["people.csv"], list(folder.iterdir())
print("checked")
"""


@pytest.mark.parametrize("value", ["abc", "", "1e9", "12.5", "\u00b2", "99999999999999999999"])
def test_a_malformed_source_date_epoch_stops_only_what_writes_a_report(value, tmp_path):
    """--version and --help work (numpy.f2py, imported by scipy, used to crash the import); the commands
    that write a report refuse the value in one line, exit 2, nothing written."""
    env = _env(SOURCE_DATE_EPOCH=value)
    shown = subprocess.run([sys.executable, "-m", "fairstats", "--version"], env=env, capture_output=True,
                           text=True, timeout=300)  # fmt: skip
    assert shown.returncode == 0 and shown.stdout.startswith("fairstats "), shown.stderr
    checked = subprocess.run([sys.executable, "-c", _EPOCH_CHECK, str(tmp_path)], env=env,
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert checked.returncode == 0 and checked.stdout.strip() == "checked", checked.stderr


# --------------------------------------------------------------------------------------------------------
# filters that mean what they say: names as written
# --------------------------------------------------------------------------------------------------------

CASED = pd.DataFrame({"race": ["a", "b", "c", "a"], "Race": ["x", "x", "y", "y"], "RACE": [1, 2, 3, 4],
                      "v": [1, 2, 3, 4]})  # fmt: skip


@pytest.mark.parametrize(
    "predicate,kept",
    [
        ('"Race" = \'x\'', [True, True, False, False]),
        ("race = 'a'", [True, False, False, True]),
        ('"RACE" >= 3', [False, False, True, True]),
        ("v > 1 AND \"Race\" = 'y'", [False, False, True, True]),
    ],
)
def test_a_quoted_name_reads_the_column_spelled_so(predicate, kept):
    """Columns that differ only in case: a predicate reading one of them reads that one, not another."""
    assert where_masks(CASED, [predicate])[-1].tolist() == kept


@pytest.mark.parametrize(
    "predicate,match",
    [
        ("\"Race\" = 'x' AND race = 'a'", "the columns 'Race' and 'race' differ only in case"),
        ("RACE = 1 OR race = 'a'", "the columns 'RACE' and 'race' differ only in case"),
        ("rAcE = 'a'", r"no column 'rAcE' in the input \(did you mean 'RACE'\? Names match exactly"),
        ("V > 1", r"no column 'V' in the input \(did you mean 'v'\?"),
    ],
)
def test_names_that_differ_only_in_case_are_refused_not_confused(predicate, match):
    """DuckDB matches names without regard to case: two such columns in one filter cannot be told apart (the
    issue's case bound "Race" to race); a name in another case is no column."""
    with pytest.raises(WhereError, match=match):
        where_masks(CASED, [predicate])


def test_a_column_named_like_the_row_number_in_another_case_is_its_own(capsys, tmp_path):
    frame = pd.DataFrame({"__FAIRSTATS_ROW": [5, 6, 7, 8], "v": [1, 2, 3, 4]})
    assert where_masks(frame, ['"__FAIRSTATS_ROW" > 6'])[-1].tolist() == [False, False, True, True]


# --------------------------------------------------------------------------------------------------------
# filters that mean what they say: the same rows in every time zone
# --------------------------------------------------------------------------------------------------------

_ZONE_CHECK = """
import json, sys
import pandas as pd
from fairstats._where import where_masks
instants = pd.to_datetime(["2021-03-01 02:00", "2021-03-01 10:00", "2021-02-28 23:00", "2021-03-01 23:30"])
frame = pd.DataFrame({"aware": instants.tz_localize("UTC"), "naive": instants,
                      "berlin": instants.tz_localize("UTC").tz_convert("Europe/Berlin")})
predicates = json.loads(sys.argv[1])
print(json.dumps([where_masks(frame, [p])[-1].tolist() for p in predicates]))
"""

ZONE_PREDICATES = {  # predicate: the rows kept in UTC (2021-03-01 02:00, 10:00, 02-28 23:00, 03-01 23:30)
    "aware >= '2021-03-01'": [True, True, False, True],
    "hour(aware) < 5": [True, False, False, False],
    "day(berlin) = 1": [True, True, False, True],
    "naive >= TIMESTAMPTZ '2021-03-01 00:00:00+00'": [True, True, False, True],
    "aware < TIMESTAMP '2021-03-01 05:00'": [True, False, True, False],
    "CAST(aware AS DATE) = DATE '2021-03-01'": [True, True, False, True],
}


def test_a_timestamp_filter_keeps_the_same_rows_in_every_time_zone():
    """Under three machine zones (TZ) each predicate keeps the rows it keeps in UTC: DuckDB's default clock
    is the machine's, under which `hour(aware) < 5` kept other rows in Tokyo and Los Angeles."""
    import json

    expected = list(ZONE_PREDICATES.values())
    for zone in ("UTC", "Asia/Tokyo", "America/Los_Angeles"):
        run = subprocess.run([sys.executable, "-c", _ZONE_CHECK, json.dumps(list(ZONE_PREDICATES))],
                             env=_env(TZ=zone), capture_output=True, text=True, timeout=300)  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == expected, zone


def test_the_report_says_the_zone_and_the_date_format(tmp_path, capsys):
    days = pd.Timestamp("2021-01-01") + pd.to_timedelta(np.arange(400) % 100, unit="D")
    frame = _people(day=days.strftime("%d/%m/%Y"))
    frame.to_csv(tmp_path / "people.csv", index=False)
    status, _, err = _main(capsys, "audit", tmp_path / "people.csv", "--group", "g", "--y-true", "y",
                           "--y-pred", "p", *FAST, "--where", "day >= '2021-02-01'", "--date-format",
                           "%d/%m/%Y", "--out", tmp_path / "out")  # fmt: skip
    assert status == 0, err
    for name in ("report.md", "report.html"):
        text = (tmp_path / "out" / name).read_text(encoding="utf-8")
        assert "timestamps compared in UTC, a timestamp without a zone read as UTC" in text
        assert "date text read as" in text and "%d/%m/%Y" in text


# --------------------------------------------------------------------------------------------------------
# filters that mean what they say: dates written day first
# --------------------------------------------------------------------------------------------------------

DAYS = pd.Timestamp("2021-01-01") + pd.to_timedelta(np.arange(400) * 7 % 120, unit="D")


@pytest.mark.parametrize("written", ["%d/%m/%Y", "%m/%d/%Y", "%d.%m.%y", "%d-%m-%Y %H:%M"])
def test_date_text_in_a_filter_needs_its_format_and_is_then_compared_as_dates(written, tmp_path, capsys):
    """Text such as 01/03/2021 compared as text keeps rows by the order of its characters, not its dates,
    whichever way it is read: refused without --date-format; with it, the rows kept are the dates'."""
    frame = _people(day=DAYS.strftime(written))
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    before = path.read_bytes()
    argv = ["audit", path, "--group", "g", "--y-true", "y", "--y-pred", "p", *FAST,
            "--where", "day >= '2021-03-01'"]  # fmt: skip
    status, _, err = _main(capsys, *argv, "--out", tmp_path / "a")
    _one_line_refusal(status, err)
    assert "column 'day' holds dates written as text" in err and "--date-format" in err
    assert not (tmp_path / "a").exists() and path.read_bytes() == before
    audit = fairstats.audit(frame, group="g", y_true="y", y_pred="p", n_resamples=99,
                            where="day >= '2021-03-01'", date_format=written)  # fmt: skip
    assert audit.n == int((DAYS >= "2021-03-01").sum())
    wrong = "%m/%d/%Y" if written == "%d/%m/%Y" else "%d/%m/%Y"
    status, _, err = _main(capsys, *argv, "--date-format", wrong, "--out", tmp_path / "b")
    _one_line_refusal(status, err)
    assert "not a date written" in err and not (tmp_path / "b").exists()


def test_a_date_format_reads_iso_text_as_dates_and_must_read_something():
    frame = _people(day=DAYS.strftime("%Y-%m-%d"))
    dated = fairstats.audit(frame, group="g", y_true="y", y_pred="p", n_resamples=99,
                            where="day < '2021-2-1'", date_format="%Y-%m-%d")  # fmt: skip
    assert dated.n == int((DAYS < "2021-02-01").sum())  # as text, '2021-01-..' < '2021-2-1' held for all
    with pytest.raises(AuditError, match=r"--date-format '%d/%m/%Y': no column --where reads \('g'\) holds"):
        fairstats.audit(frame, group="g", y_true="y", y_pred="p", where="g = 'a'", date_format="%d/%m/%Y")
    with pytest.raises(AuditError, match="--date-format says how the dates --where reads"):
        fairstats.audit(frame, group="g", y_true="y", y_pred="p", date_format="%Y-%m-%d")


@pytest.mark.parametrize("value", ["%d", "%Y-%m", "dd/mm/yyyy", "", 5, b"%d/%m/%Y", ["%d/%m/%Y"]])
def test_a_date_format_gives_a_day_month_and_year(value):
    with pytest.raises(AuditError, match="^--date-format: must "):
        fairstats.audit(_people(), group="g", y_true="y", y_pred="p", where="p = 1", date_format=value)


@pytest.mark.parametrize(
    "values,date_format,expected",
    [
        (DAYS.strftime("%d/%m/%Y"), "%d/%m/%Y", None),
        (DAYS.strftime("%m/%d/%Y"), "%m/%d/%Y", None),
        (DAYS.strftime("%Y%m%d").astype(int), "%Y%m%d", None),
        (DAYS.strftime("%Y-%m-%d"), None, None),
        (DAYS, None, None),
        (DAYS.tz_localize("Asia/Tokyo"), None, ("2020-12-31", "2021-04-29")),  # the range in UTC
        (DAYS.strftime("%d/%m/%Y"), None, "not a date in ISO 8601 .* day-first or month-first"),
        (DAYS.strftime("%Y%m%d").astype(int), None, "holds 20210101, not a date: dates are ISO 8601"),
        (DAYS.strftime("%d %B %Y"), None, "holds .01 January 2021., not a date in ISO 8601"),
        (DAYS.strftime("%d/%m/%Y"), "%m/%d/%Y", "is not a date written '%m/%d/%Y'"),
    ],
)
def test_the_impact_ratios_date_range_is_read_as_written_or_refused(values, date_format, expected):
    """LL144's date range: pd.to_datetime(format="mixed") read 01/03/2021 as January 3 and 13/03/2021 as
    March 13 in one column, with no word; now ISO text and real dates are read, other text needs its
    format, and a timestamp with a zone gives its range in UTC."""
    frame = _people(day=values)
    keywords = {"task": "impact_ratios", "group": "g", "y_pred": "p", "date": "day",
                "date_format": date_format}
    if isinstance(expected, str):
        with pytest.raises(AuditError, match=expected):
            fairstats.audit(frame, **keywords)
        return
    audit = fairstats.audit(frame, **keywords)
    assert audit.date_range == (expected or ("2021-01-01", "2021-04-30"))


def test_the_monitor_keeps_its_date_format(tmp_path, capsys):
    """The date format is part of the row step the state was started with: a later run must give it."""
    folder = tmp_path / "in"
    folder.mkdir()
    _people(day=DAYS.strftime("%d/%m/%Y")).to_csv(folder / "b1.csv", index=False)
    state = tmp_path / "st"
    argv = ["monitor", folder, "--group", "g", "--y-pred", "p", "--where", "day >= '2021-03-01'",
            "--state", state]  # fmt: skip
    status, _, err = _main(capsys, *argv)
    _one_line_refusal(status, err)
    assert "--date-format" in err and not state.exists()
    status, _, err = _main(capsys, *argv, "--date-format", "%d/%m/%Y")
    assert status == 0, err
    _people(seed=1, day=DAYS.strftime("%d/%m/%Y")).to_csv(folder / "b2.csv", index=False)
    before = _snapshot(state)
    status, _, err = _main(capsys, *argv, "--date-format", "%m/%d/%Y")
    _one_line_refusal(status, err)
    assert "date_format" in err and _snapshot(state) == before
