"""``fairstats monitor``'s state folder: idempotent, refuses changed or late batches, survives SIGKILL."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats.auditing.cli import main as fairstats_main
from fairstats.auditing.exits import EXIT_DISPARITY as EXIT_ALARM


def main(args: list[str]) -> int:
    """``fairstats monitor ARGS`` through the one command line."""
    return fairstats_main(["monitor", *args])


def write_batches(folder: Path, n: int, *, start: int = 0, seed: int = 3, gap: float = 0.2) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed + start)
    paths = []
    for i in range(start, start + n):
        g = rng.choice(["a", "b", "=c"], 300)
        p = (rng.random(300) < np.where(g == "b", 0.3 + gap, 0.3)).astype(int)
        path = folder / f"week{i:03d}.csv"
        pd.DataFrame({"g": g, "p": p, "y": rng.integers(0, 2, 300)}).to_csv(path, index=False)
        paths.append(path)
    return paths


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


ARGS = ["--group", "g", "--y-pred", "p", "--y-true", "y", "--fail-on", "disparity"]


def test_first_run_writes_the_state_and_reports_changes(tmp_path, capsys):
    write_batches(tmp_path / "in", 4)
    rc = main([str(tmp_path / "in"), *ARGS, "--state", str(tmp_path / "st")])
    out = capsys.readouterr().out
    assert rc == EXIT_ALARM  # b's rate is 0.2 higher
    assert set(snapshot(tmp_path / "st")) == {
        ".fairstats-audit",
        "monitor.csv",
        "monitor.json",
        "monitor.png",
    }
    table = pd.read_csv(tmp_path / "st" / "monitor.csv", keep_default_na=False)
    assert list(table.columns[:11]) == [
        "batch",
        "group",
        "reference",
        "metric",
        "n_group",
        "n_reference",
        "estimate",
        "cs_low",
        "cs_high",
        "e_value",
        "state",
    ]
    assert len(table) == 4 * 2 * 3  # batches x comparisons x rates
    assert "'=c" in set(table["group"]) and "=c" not in set(table["group"])  # no spreadsheet formula
    lines = out.splitlines()
    assert any(": watching -> alarm (difference" in line for line in lines)
    pattern = (
        r"batch week\d{3}\.csv: (a|b|=c) vs (a|b|=c), (ppr|tpr|fpr): watching -> alarm \(difference [+-]"
    )
    assert all(re.match(pattern, line) for line in lines), lines


def test_rerun_without_new_batch_is_byte_identical_and_new_batches_append(tmp_path, capsys):
    write_batches(tmp_path / "in", 3, gap=0.0)
    state = tmp_path / "st"
    first = main([str(tmp_path / "in"), *ARGS, "--state", str(state)])
    before = snapshot(state)
    again = main([str(tmp_path / "in"), *ARGS, "--state", str(state)])
    assert again == first
    assert snapshot(state) == before
    write_batches(tmp_path / "in", 2, start=3, gap=0.0)
    main([str(tmp_path / "in"), *ARGS, "--state", str(state)])
    after = snapshot(state)
    assert after["monitor.csv"].startswith(before["monitor.csv"])  # appended
    record = json.loads(after["monitor.json"])
    assert [b[0] for b in record["batches"]] == [f"week{i:03d}.csv" for i in range(5)]
    # the same five batches in one run give the same files
    one = tmp_path / "one"
    main([str(tmp_path / "in"), *ARGS, "--state", str(one)])
    assert snapshot(one) == after
    capsys.readouterr()


def test_changed_old_batch_and_earlier_new_batch_are_refused_state_untouched(tmp_path, capsys):
    paths = write_batches(tmp_path / "in", 3)
    state = tmp_path / "st"
    main([str(tmp_path / "in"), *ARGS, "--state", str(state)])
    before = snapshot(state)
    capsys.readouterr()
    paths[1].write_text(paths[1].read_text() + "a,1,1\n")
    assert main([str(tmp_path / "in"), *ARGS, "--state", str(state)]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("fairstats monitor: error: batch 'week001.csv'")
        and "changed since it was processed" in err
    )
    assert err.count("\n") == 1 and snapshot(state) == before
    paths[1].unlink()  # an archived old batch may go; a new one must sort after the last processed
    write_batches(tmp_path / "in", 1, start=0, seed=9)[0].rename(tmp_path / "in" / "week000a.csv")
    assert main([str(tmp_path / "in"), *ARGS, "--state", str(state)]) == 2
    err = capsys.readouterr().err
    assert "batch 'week000a.csv' sorts before 'week002.csv', the last processed batch" in err
    assert snapshot(state) == before


@pytest.mark.parametrize(
    ("setup", "match"),
    [
        ("foreign", "holds 'notes.txt' and no audit manifest"),
        ("options", "was started with y_true = 'y', not None"),
        ("column", "--y-pred: column 'q' not found in week000.csv"),
    ],
)
def test_refusals_are_one_line_exit_2(tmp_path, capsys, setup, match):
    write_batches(tmp_path / "in", 2)
    state = tmp_path / "st"
    args = [str(tmp_path / "in"), *ARGS, "--state", str(state)]
    if setup == "foreign":
        state.mkdir()
        (state / "notes.txt").write_text("mine")
    elif setup == "options":
        main(args)
        args = [a for a in args if a not in ("--y-true", "y")]
    else:
        args = [str(tmp_path / "in"), "--group", "g", "--y-pred", "q", "--state", str(state)]
    capsys.readouterr()
    before = snapshot(state) if state.exists() else None
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("fairstats monitor: error: ") and match in err and err.count("\n") == 1
    assert "--out" not in err
    assert (snapshot(state) if state.exists() else None) == before


def _run(args: list[str], *, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) -> subprocess.Popen:
    # the fairstats this test imported (the checkout's src/ or the installed wheel), nothing else
    where = str(Path(fairstats.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": where, "MPLBACKEND": "Agg"}
    return subprocess.Popen(
        [sys.executable, "-m", "fairstats", "monitor", *args],
        env=env,
        stdout=stdout,
        stderr=stderr,
    )


def test_sigkill_during_the_update_leaves_the_previous_state(tmp_path):
    """The process is killed once its work folder exists (it is writing the new state): the state folder
    is as before, and the next run removes the leftover and ends as an uninterrupted run does."""
    write_batches(tmp_path / "in", 3)
    state = tmp_path / "st"
    args = [str(tmp_path / "in"), *ARGS, "--state", str(state)]
    assert main(args) == EXIT_ALARM
    before = snapshot(state)
    write_batches(tmp_path / "in", 3, start=3)
    proc = _run(args)
    deadline = time.monotonic() + 120
    killed = False
    while proc.poll() is None and time.monotonic() < deadline:
        if any(p.name.startswith(".st.fairstats-work-") for p in tmp_path.iterdir()):
            proc.send_signal(signal.SIGKILL)
            killed = True
            break
        time.sleep(0.001)
    proc.wait()
    assert killed, "the run ended before its work folder was seen"
    assert proc.returncode == -signal.SIGKILL
    assert snapshot(state) == before
    assert main(args) == EXIT_ALARM
    assert not any(".fairstats-" in p.name for p in tmp_path.iterdir())
    whole = tmp_path / "whole"
    assert main([*args[:-1], str(whole)]) == EXIT_ALARM
    assert snapshot(state) == snapshot(whole)


def test_a_state_caught_between_the_two_renames_is_put_back(tmp_path):
    write_batches(tmp_path / "in", 2)
    state = tmp_path / "st"
    args = [str(tmp_path / "in"), *ARGS, "--state", str(state)]
    main(args)
    before = snapshot(state)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    state.rename(tmp_path / f".st.fairstats-old-{dead.pid}-abc123")  # the swap's backup; no state folder
    assert main(args) == EXIT_ALARM
    assert snapshot(state) == before


def test_hostile_group_labels_are_shown_as_text(tmp_path, capsys):
    """Labels that look like a spreadsheet formula, mathtext or hold a line break stay text everywhere."""
    folder = tmp_path / "in"
    folder.mkdir()
    rng = np.random.default_rng(11)
    labels = np.array(["=1+2", "$\\alpha$", "x\ny"])
    g = rng.choice(labels, 600)
    p = (rng.random(600) < np.where(g == "x\ny", 0.7, 0.2)).astype(int)
    pd.DataFrame({"g": g, "p": p}).to_csv(folder / "b1.csv", index=False)
    state = tmp_path / "st"
    argv = [str(folder), "--group", "g", "--y-pred", "p", "--fail-on", "disparity", "--state", str(state)]
    assert main(argv) == EXIT_ALARM
    out = capsys.readouterr().out
    assert "x⏎y" in out and all(line.startswith("batch b1.csv: ") for line in out.splitlines())
    table = pd.read_csv(state / "monitor.csv", keep_default_na=False)
    assert set(table["group"]) | set(table["reference"]) == {"'=1+2", "$\\alpha$", "x\ny"}


def test_an_alarm_exits_3_only_when_asked_to_fail_on_it(tmp_path, capsys):
    """One table of exit statuses: an alarm is "a disparity found", exit 3 with --fail-on disparity only."""
    write_batches(tmp_path / "in", 4)
    plain = [a for a in ARGS if a not in ("--fail-on", "disparity")]
    assert main([str(tmp_path / "in"), *plain, "--state", str(tmp_path / "a")]) == 0
    assert "alarm" in capsys.readouterr().out
    assert main([str(tmp_path / "in"), *ARGS, "--state", str(tmp_path / "b")]) == EXIT_ALARM
    assert main([str(tmp_path / "in"), *ARGS, "--state", str(tmp_path / "b")]) == EXIT_ALARM  # nothing new
    capsys.readouterr()


def test_the_monitor_reads_its_batches_through_the_audits_row_step(tmp_path, capsys):
    """--where filters each batch and the state keeps it: a later run with another filter is refused."""
    write_batches(tmp_path / "in", 2)
    state = tmp_path / "st"
    assert main([str(tmp_path / "in"), *ARGS, "--where", "g <> '=c'", "--json", "--state", str(state)]) == 3
    shown = json.loads(capsys.readouterr().out)
    assert shown["task"] == "monitor" and all(b["filters"][0]["removed"] > 0 for b in shown["batches"])
    assert "=c" not in set(pd.read_csv(state / "monitor.csv", keep_default_na=False)["group"])
    write_batches(tmp_path / "in", 1, start=2)
    assert main([str(tmp_path / "in"), *ARGS, "--state", str(state)]) == 2
    assert "where" in capsys.readouterr().err


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_reader_gone_ends_the_printing_not_the_run(tmp_path, json_flag):
    """``fairstats monitor ... | head`` with the reader gone before anything is printed: the state is written
    as by an uninterrupted run, the exit status is the run's (an alarm here), and nothing says it failed."""
    write_batches(tmp_path / "in", 3)
    state = tmp_path / "st"
    args = [str(tmp_path / "in"), *ARGS, "--state", str(state), *json_flag]
    proc = _run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes before the process has printed
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == EXIT_ALARM, err
    assert err == ""
    whole = tmp_path / "whole"  # the same run in the same kind of process, its output read to the end
    assert _run([*args[:-1 - len(json_flag)], str(whole), *json_flag]).wait(timeout=300) == EXIT_ALARM
    assert snapshot(state) == snapshot(whole)
