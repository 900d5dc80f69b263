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
# the monitor's state as a small database
# --------------------------------------------------------------------------------------------------------

MONITOR = ["--group", "g", "--y-pred", "p"]
AUDIT = ["--group", "g", "--y-pred", "p", "--y-true", "y", *FAST]


def _batches(folder: Path, names, seed: int = 0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, name in enumerate(names):
        path = folder / name
        frame = _people(300, seed=seed + i)
        if path.suffix == ".parquet":
            frame.to_parquet(path, index=False)
        else:
            frame.to_csv(path, index=False)
        paths.append(path)
    return paths


def _state(tmp_path: Path, capsys, names=("b1.csv", "b2.csv")) -> tuple[Path, Path]:
    """A monitor state that processed ``names`` (in tmp_path/in), and the batch folder."""
    batches = tmp_path / "in"
    _batches(batches, names)
    state = tmp_path / "st"
    status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", state)
    assert status == 0, err
    return state, batches


def _processed(state: Path) -> list[str]:
    import json

    return [name for name, _ in json.loads((state / "monitor.json").read_text())["batches"]]


def test_an_audit_never_replaces_a_monitors_state(tmp_path, capsys):
    """``fairstats audit --out STATE`` and ``Audit.save(STATE)`` are refused, naming the folder; so is a
    monitor on an audit's folder: each writer replaces only folders it wrote."""
    state, _ = _state(tmp_path, capsys)
    before = _snapshot(state)
    data = tmp_path / "people.csv"
    _people().to_csv(data, index=False)
    status, _, err = _main(capsys, "audit", data, *AUDIT, "--out", state)
    _one_line_refusal(status, err)
    assert repr(str(state)) in err and "monitor's state" in err
    audit = fairstats.audit(pd.read_csv(data), group="g", y_pred="p", y_true="y", n_resamples=99)
    with pytest.raises(AuditError, match="monitor's state") as caught:
        audit.save(state)
    assert repr(str(state)) in str(caught.value) and "\n" not in str(caught.value)
    assert _snapshot(state) == before
    out = tmp_path / "audit"
    audit.save(out)
    written = _snapshot(out)
    status, _, err = _main(capsys, "monitor", tmp_path / "in", *MONITOR, "--state", out)
    _one_line_refusal(status, err)
    assert repr(str(out)) in err and "audit's output folder" in err and _snapshot(out) == written
    audit.save(out)  # an audit still replaces its own folder


@pytest.mark.parametrize("change", ["deleted", "changed", "added"])
@pytest.mark.parametrize("name", ["monitor.csv", "monitor.json", "monitor.png"])
def test_a_state_that_does_not_match_its_manifest_is_refused_naming_the_file(tmp_path, capsys, change, name):
    state, batches = _state(tmp_path, capsys)
    path = state / (name + ".bak" if change == "added" else name)
    if change == "deleted":
        path.unlink()
    elif change == "changed":
        path.write_bytes(path.read_bytes() + b"\n")
    else:
        path.write_bytes((state / name).read_bytes())
    before = _snapshot(state)
    _batches(batches, ["b3.csv"], seed=3)  # with a new batch, and without
    for _ in range(2):
        status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", state)
        _one_line_refusal(status, err)
        assert repr(path.name) in err and repr(str(state)) in err, err
        assert _snapshot(state) == before
        (batches / "b3.csv").unlink(missing_ok=True)


@pytest.mark.parametrize("copy", ["later run", "same run"])
def test_a_batch_under_another_name_is_refused_not_counted_twice(tmp_path, capsys, copy):
    if copy == "later run":
        state, batches = _state(tmp_path, capsys)
    else:
        state, batches = tmp_path / "st", tmp_path / "in"
        _batches(batches, ["b1.csv", "b2.csv"])
    (batches / "b9.csv").write_bytes((batches / "b2.csv").read_bytes())
    before = _snapshot(state) if state.exists() else None
    status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", state)
    _one_line_refusal(status, err)
    assert "'b9.csv'" in err and "'b2.csv'" in err and "counted once" in err
    assert (_snapshot(state) if state.exists() else None) == before


def test_a_second_run_on_a_state_waits_for_the_first_and_loses_no_batch(tmp_path, capsys):
    """While one run holds the state's lock, another waits, then reads what the first left."""
    from fairstats.auditing.folder import locked

    state, batches = _state(tmp_path, capsys, ["b1.csv"])
    _batches(batches, ["b2.csv"], seed=2)
    argv = [sys.executable, "-m", "fairstats", "monitor", str(batches), *MONITOR, "--state", str(state)]
    with locked(state.resolve(), owner="monitor"):
        before = _snapshot(state)
        child = subprocess.Popen(argv, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = child.communicate(timeout=8)
        except subprocess.TimeoutExpired:
            out = err = None  # still waiting for the lock, as it should
        assert out is None, (child.returncode, err)
        assert _snapshot(state) == before
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert _processed(state) == ["b1.csv", "b2.csv"]


def test_a_run_that_cannot_get_the_lock_gives_up_leaving_the_folder(tmp_path, capsys, monkeypatch):
    from fairstats.auditing import folder

    monkeypatch.setattr(folder, "LOCK_WAIT", 0.3)
    state, batches = _state(tmp_path, capsys, ["b1.csv"])
    _batches(batches, ["b2.csv"], seed=2)
    data = tmp_path / "people.csv"
    _people().to_csv(data, index=False)
    out = tmp_path / "audit"
    with folder.locked(state.resolve(), owner="monitor"), folder.locked(out.resolve()):
        before = _snapshot(state)
        status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", state)
        _one_line_refusal(status, err)
        assert "being updated by another fairstats run" in err and repr(str(state.resolve())) in err
        assert _snapshot(state) == before
        status, _, err = _main(capsys, "audit", data, *AUDIT, "--out", out)
        _one_line_refusal(status, err)
        assert "being updated by another fairstats run" in err and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "people.csv", "st"]  # no lock file left
    status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", state)
    assert status == 0, err
    assert _processed(state) == ["b1.csv", "b2.csv"]


def test_a_killed_runs_lock_is_taken_over_and_a_foreign_file_there_left_alone(tmp_path, capsys):
    import json

    state, batches = _state(tmp_path, capsys, ["b1.csv"])
    _batches(batches, ["b2.csv"], seed=2)
    lock = tmp_path / ".st.fairstats-lock"
    lock.write_text(json.dumps({"fairstats-lock": str(state.resolve()), "pid": 2**22 + 7}) + "\n")
    status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", state)  # its lock ended with it
    assert status == 0, err
    assert _processed(state) == ["b1.csv", "b2.csv"] and not lock.exists()
    lock.write_text("my notes\n")
    _batches(batches, ["b3.csv"], seed=3)
    before = _snapshot(state)
    status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", state)
    _one_line_refusal(status, err)
    assert repr(str(lock)) in err and "not a fairstats lock file" in err
    assert lock.read_text() == "my notes\n" and _snapshot(state) == before


def test_monitors_started_together_lose_no_batch_and_do_not_mix_options(tmp_path, capsys):
    """Two runs at once on one state: both batches end up in it (whichever ran first); two new monitors with
    different groups on one fresh state: one wins, the other is refused, never a mixed state."""
    state, batches = _state(tmp_path, capsys, ["b1.csv"])
    _batches(batches, ["b2.csv", "b3.csv"], seed=2)
    first = tmp_path / "first"
    first.mkdir()
    (first / "b2.csv").write_bytes((batches / "b2.csv").read_bytes())
    common = [sys.executable, "-m", "fairstats", "monitor"]
    runs = [[*common, str(batches / "b1.csv"), str(first / "b2.csv"), *MONITOR, "--state", str(state)],
            [*common, str(batches), *MONITOR, "--state", str(state)]]  # fmt: skip
    children = [subprocess.Popen(a, env=_env(), stderr=subprocess.PIPE, text=True) for a in runs]
    errors = [c.communicate(timeout=300)[1] for c in children]
    assert [c.returncode for c in children] == [0, 0], errors
    assert _processed(state) == ["b1.csv", "b2.csv", "b3.csv"]
    fresh = tmp_path / "fresh"
    runs = [[*common, str(batches), "--group", group, "--y-pred", "p", "--state", str(fresh)]
            for group in ("g", "y")]  # fmt: skip
    children = [subprocess.Popen(a, env=_env(), stderr=subprocess.PIPE, text=True) for a in runs]
    errors = [c.communicate(timeout=300)[1] for c in children]
    statuses = sorted(c.returncode for c in children)
    assert statuses == [0, 2], errors
    loser = errors[[c.returncode for c in children].index(2)]
    assert "was started with group" in loser and len(loser.strip().splitlines()) == 1
    import json

    record = json.loads((fresh / "monitor.json").read_text())
    winner = ["g", "y"][[c.returncode for c in children].index(0)]
    assert record["monitor"]["options"]["group"] == winner


def test_a_group_is_one_value_whether_a_batch_holds_it_as_text_or_number(tmp_path, capsys):
    """Parquet batches keep their types: group 1 (a number) and "1" (text) are one group, compared with the
    others, never with itself."""
    batches = tmp_path / "in"
    batches.mkdir()
    rng = np.random.default_rng(5)
    for name, values in (("b1.parquet", [1, 2]), ("b2.parquet", ["1", "2", "x"]), ("b3.parquet", [1.0, 2.0])):
        groups = rng.choice(np.array(values, dtype=object), 300)
        frame = pd.DataFrame({"g": groups, "p": rng.integers(0, 2, 300)})
        if name != "b2.parquet":
            frame["g"] = frame["g"].astype(type(values[0]))
        frame.to_parquet(batches / name, index=False)
    state = tmp_path / "st"
    status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", state)
    assert status == 0, err
    table = pd.read_csv(state / "monitor.csv", dtype=str)
    assert set(zip(table["group"], table["reference"], strict=True)) <= {("2", "1"), ("x", "1"), ("1", "2"),
                                                                          ("x", "2")}  # fmt: skip
    assert not (table["group"] == table["reference"]).any()
    assert table.groupby("batch").size().to_dict() == {"b1.parquet": 1, "b2.parquet": 2, "b3.parquet": 2}


def test_the_library_monitor_refuses_a_group_of_another_type():
    monitor = fairstats.FairnessMonitor(group="g", y_pred="p")
    monitor.update(pd.DataFrame({"g": [1, 2] * 20, "p": [0, 1, 1, 0] * 10}))
    state = monitor.to_state()
    with pytest.raises(ValueError, match=r"batch '2'.*column 'g'.*'1'.*text.*numbers"):
        monitor.update(pd.DataFrame({"g": ["1", "2"] * 20, "p": [0, 1, 1, 0] * 10}))
    assert monitor.to_state() == state
    with pytest.raises(ValueError, match=r"column 'g'.*both text and numbers"):
        fairstats.FairnessMonitor(group="g", y_pred="p").update(
            pd.DataFrame({"g": np.array([1, "1"] * 20, dtype=object), "p": [0, 1, 1, 0] * 10})
        )


@pytest.mark.parametrize("favorable", ["1", "1.0", "0"])
def test_parquet_batches_with_0_1_decisions_take_favorable_as_a_number(tmp_path, capsys, favorable):
    batches = tmp_path / "in"
    _batches(batches, ["b1.parquet", "b2.parquet"])
    state = tmp_path / "st"
    status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--y-true", "y", "--favorable", favorable,
                           "--state", state)  # fmt: skip
    assert status == 0, err
    import json

    assert json.loads((state / "monitor.json").read_text())["monitor"]["options"]["favorable"] == favorable
    frames = [pd.read_parquet(batches / f"b{i}.parquet") for i in (1, 2)]
    both = pd.concat(frames)
    value = int(float(favorable))
    table = pd.read_csv(state / "monitor.csv", dtype={"group": str, "reference": str})
    last = table[(table["batch"] == "b2.parquet") & (table["metric"] == "ppr")].iloc[0]
    rate = {g: (part["p"] == value).mean() for g, part in both.groupby("g")}
    assert last["estimate"] == pytest.approx(rate[last["group"]] - rate[last["reference"]])


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
# clear errors for misuse: keywords of the wrong type, MultiIndex columns
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("keyword", ["reference", "favorable", "label"])
@pytest.mark.parametrize("value", [["a"], {"a": 1}, {"a"}, b"a", None])
def test_the_monitors_label_keywords_name_themselves(keyword, value):
    if value is None:
        value = object()
    frame = _people(60)
    with pytest.raises(TypeError, match=rf"^`{keyword}` must be a string or a number, got \w+ ") as caught:
        if keyword == "label":
            fairstats.FairnessMonitor(group="g", y_pred="p").update(frame, label=value)
        else:
            fairstats.FairnessMonitor(group="g", y_pred="p", **{keyword: value})
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("second", [["0", "1", "2"], ["", "x", ""], ["g", "y", "p"]])
def test_multiindex_columns_are_refused_as_such_not_as_a_repeated_or_missing_name(second):
    frame = _people(200)
    frame.columns = pd.MultiIndex.from_arrays([list(frame.columns), second])
    with pytest.raises(AuditError, match=r"^`data` has columns of 2 levels \(a pandas MultiIndex") as caught:
        fairstats.audit(frame, group="g", y_true="y", y_pred="p", n_resamples=99)
    assert "more than once" not in str(caught.value) and "not found" not in str(caught.value)
    with pytest.raises(ValueError, match=r"^`data` has columns of 2 levels"):
        fairstats.equal_confusion_test(frame, group="g", y_true="y", y_pred="p")


BAD_NUMBERS = [("y", "oops", "is no number"), ("p", "inf", "is not finite"),
               ("y", "-Infinity", "is not finite"), ("p", "1,5", "is no number")]  # fmt: skip


@pytest.mark.parametrize(("column", "value", "what"), BAD_NUMBERS)
@pytest.mark.parametrize("where", [(), ("--where", "g = 'a' OR g = 'b'")])
def test_regression_errors_name_the_column_the_value_and_the_files_line(tmp_path, capsys, column, value, what,
                                                                        where):  # fmt: skip
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"g": rng.choice(["a", "b", "c"], 200), "y": rng.normal(size=200),
                          "p": rng.normal(size=200)}).astype(object)  # fmt: skip
    frame.loc[[0, 1], "g"] = "c"  # removed by the filter: the line must still be the file's own
    frame.loc[13, column] = value
    data = tmp_path / "scores.csv"
    frame.to_csv(data, index=False)
    status, _, err = _main(capsys, "audit", data, "--task", "regression", "--group", "g", "--y-true", "y",
                           "--y-pred", "p", *where, "--out", tmp_path / "o")  # fmt: skip
    _one_line_refusal(status, err)
    flag = "--y-true" if column == "y" else "--y-pred"
    shown = repr(float(value)) if what == "is not finite" else repr(value)
    assert f"{flag}: column {column!r} holds {shown} on line 15 of scores.csv, which {what}" in err, err
    assert not (tmp_path / "o").exists()


def test_regression_errors_in_a_frame_name_the_row_by_position():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"g": rng.choice(["a", "b"], 100), "y": rng.normal(size=100),
                          "p": rng.normal(size=100)}, index=np.arange(100) + 1000)  # fmt: skip
    frame.loc[1004, "p"] = -np.inf
    with pytest.raises(AuditError, match=r"^--y-pred: column 'p' holds -inf on row 5 of the data, which is"):
        fairstats.audit(frame, task="regression", group="g", y_true="y", y_pred="p")


def test_results_compare_by_identity_and_hash():
    """Results are frozen dataclasses with eq=False: ``==`` is identity, ``hash`` works (it raised before)."""
    frame = _people(300, s=lambda rng, n: rng.normal(size=n), t=lambda rng, n: rng.normal(size=n))
    results = [fairstats.audit(frame, group="g", y_true="y", y_pred="p", n_resamples=99),
               fairstats.audit(frame, task="impact_ratios", group="g", y_pred="p"),
               fairstats.audit(frame, task="regression", group="g", y_true="s", y_pred="t", n_resamples=99)]
    again = fairstats.audit(frame, group="g", y_true="y", y_pred="p", n_resamples=99)
    for result in results:
        assert result == result and hash(result) == hash(result) and len({result, result}) == 1
    assert results[0] != again and len({results[0], again}) == 2


def test_levels_given_as_text_are_split_at_commas_like_every_list_option():
    rng = np.random.default_rng(3)
    levels = ["Low", "Medium", "High"]
    frame = pd.DataFrame({"g": rng.choice(["a", "b"], 300), "d": rng.choice(levels, 300),
                          "o": rng.choice(levels, 300)})  # fmt: skip
    text = fairstats.audit(frame, group="g", y_pred="d", y_true="o", decision_levels="Low,Medium,High",
                           n_resamples=99)  # fmt: skip
    listed = fairstats.audit(frame, group="g", y_pred="d", y_true="o", decision_levels=levels, n_resamples=99)
    assert text.tables.keys() == listed.tables.keys()
    for name in text.tables:
        pd.testing.assert_frame_equal(text.tables[name], listed.tables[name])


@pytest.mark.parametrize("predicate", [b"y > 0", bytearray(b"y > 0"), [b"y > 0"]])
def test_a_bytes_predicate_is_refused_as_bytes(predicate):
    with pytest.raises(AuditError, match=r"^--where: .*must be.*, got byte") as caught:
        fairstats.audit(_people(), group="g", y_true="y", y_pred="p", where=predicate, n_resamples=99)
    assert "empty predicate" not in str(caught.value) and "[120, 32" not in str(caught.value)


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


# --------------------------------------------------------------------------------------------------------
# resources: identifier-like groupings, long labels
# --------------------------------------------------------------------------------------------------------


def test_an_identifier_like_group_is_refused_by_the_monitor_too(tmp_path, capsys):
    batches = tmp_path / "in"
    batches.mkdir()
    frame = _people(3000)
    frame["id"] = [f"P{i:05d}" for i in range(len(frame))]
    frame.to_csv(batches / "b1.csv", index=False)
    state = tmp_path / "s"
    status, _, err = _main(capsys, "monitor", batches, "--group", "id", "--y-pred", "p", "--state", state)
    _one_line_refusal(status, err)
    assert "column 'id' looks like an identifier" in err and not (tmp_path / "s").exists()


def test_a_long_label_is_shortened_in_figures_and_whole_in_the_tables(tmp_path, capsys):
    long = "Ω" + "x" * 100_000 + "$\\frac{1}{2}$"
    frame = _people(400)
    frame.loc[frame["g"] == "b", "g"] = long
    audit = fairstats.audit(frame, group="g", y_true="y", y_pred="p", n_resamples=99)
    audit.save(tmp_path / "o")
    pngs = sorted((tmp_path / "o").glob("*.png"))
    assert pngs and all(p.stat().st_size < 200_000 for p in pngs)
    assert long in (tmp_path / "o" / "tests.csv").read_text(encoding="utf-8")
    batches = tmp_path / "in"
    batches.mkdir()
    frame.to_csv(batches / "b1.csv", index=False)
    status, _, err = _main(capsys, "monitor", batches, *MONITOR, "--state", tmp_path / "s")
    assert status == 0, err
    assert (tmp_path / "s" / "monitor.png").stat().st_size < 200_000
    assert long in (tmp_path / "s" / "monitor.csv").read_text(encoding="utf-8")
