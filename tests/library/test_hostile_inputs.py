"""`fairstats audit` against hostile and careless input (issue 15): one corpus test per class of failure.

1. data loss: only files an audit wrote are replaced (manifest); input inside --out, foreign or changed files,
   read-only or dangling --out are refused with nothing touched; a symlinked --out stays a link; SIGINT /
   SIGTERM end with one line and nothing written; a SIGKILLed run's work folder is removed by the next run.
2. injection: data strings are text in report.md, report.html (opened in headless Chromium with the network
   blocked: no request leaves) and the .md tables; CSV cells that a spreadsheet would run get an apostrophe.
3. silent wrong answers: internal columns never collide with the user's; group columns read as text;
   duplicated header names with differing copies refused; intersection labels unambiguous; figure names
   unique; verdict spellings.
4. statistics: the Cramér's V interval contains its estimate (tests/library/test_cramers_v.py checks
coverage).
5. late crashes: --n-resamples bounds, figures of any interval, long column names.
6. honest messages: white-space variants of a group warned with counts; one row per fold refused.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairstats.auditing import cli
from fairstats.auditing.figures import draw_figures as _figures
from fairstats.auditing.folder import MANIFEST, WORK_MARKER
from fairstats.auditing.report import markdown_code, markdown_text
from fairstats.confusion import equal_confusion_test
from fairstats.groups import group_labels

FAST = ["--y-true", "y", "--y-pred", "p", "--n-resamples", "99"]


def _people(groups: list[str], n: int = 40, seed: int = 0, **extra) -> pd.DataFrame:
    """``n`` people per group with random 0/1 outcomes and predictions."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.array(groups, dtype=object), n)
    frame = pd.DataFrame({"g": g, "y": rng.integers(0, 2, g.size), "p": rng.integers(0, 2, g.size)})
    for name, values in extra.items():
        frame[name] = values(g.size) if callable(values) else values
    return frame


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_error_line(stderr: str, pattern: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fairstats audit: error: "), stderr
    assert re.search(pattern, lines[0]), lines[0]


@pytest.fixture
def data_csv(tmp_path) -> Path:
    path = tmp_path / "data.csv"
    _people(["a", "b", "c"]).to_csv(path, index=False)
    return path


@pytest.fixture
def earlier(tmp_path, data_csv, capsys) -> Path:
    """An earlier audit's folder."""
    out = tmp_path / "audit"
    assert _run(capsys, "audit", data_csv, "--group", "g", *FAST, "--out", out)[0] == 0
    return out


# --------------------------------------------------------------------------------------------------------
# 1. data loss
# --------------------------------------------------------------------------------------------------------


def test_the_issues_example_input_inside_out_is_refused_and_kept(tmp_path, capsys):
    out = tmp_path / "audit"
    out.mkdir()
    data = out / "data.csv"
    _people(["a", "b"]).to_csv(data, index=False)
    before = _snapshot(out)
    status, _, stderr = _run(capsys, "audit", data, "--group", "g", *FAST, "--out", out)
    assert status == 2
    _one_error_line(stderr, r"the input '.*data\.csv' lies inside --out")
    assert _snapshot(out) == before


def test_input_copied_into_an_earlier_audit_is_refused(earlier, data_csv, capsys):
    inside = earlier / "data.csv"
    shutil.copy(data_csv, inside)
    before = _snapshot(earlier)
    status, _, stderr = _run(capsys, "audit", inside, "--group", "g", *FAST, "--out", earlier)
    assert status == 2 and "lies inside --out" in stderr
    assert _snapshot(earlier) == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda out: (out / "notes.txt").write_text("mine"),
            r"holds 'notes\.txt', which an earlier audit did not",
        ),
        (lambda out: (out / "sub").mkdir(), r"holds 'sub', which an earlier audit did not write"),
        (lambda out: (out / "report.md").write_text("edited"), r"holds 'report\.md', changed since"),
        (lambda out: (out / MANIFEST).unlink(), r"no audit manifest"),
        (lambda out: (out / MANIFEST).write_text("{not json"), r"no audit manifest"),
        (lambda out: (out / "tests.csv").chmod(0o444), r"holds 'tests\.csv', which is read-only"),
    ],
    ids=["foreign file", "foreign folder", "edited file", "no manifest", "bad manifest", "read-only file"],
)
def test_out_holding_anything_but_its_own_files_is_refused(earlier, data_csv, capsys, change, message):
    change(earlier)
    before = _snapshot(earlier)
    modes = {p.name: p.stat().st_mode for p in earlier.iterdir()}
    status, stdout, stderr = _run(capsys, "audit", data_csv, "--group", "g", *FAST, "--out", earlier)
    assert status == 2 and stdout == ""
    _one_error_line(stderr, message)
    assert _snapshot(earlier) == before
    assert {p.name: p.stat().st_mode for p in earlier.iterdir()} == modes


def test_read_only_out_is_refused(earlier, data_csv, capsys):
    before = _snapshot(earlier)
    earlier.chmod(0o555)
    try:
        status, _, stderr = _run(capsys, "audit", data_csv, "--group", "g", *FAST, "--out", earlier)
    finally:
        earlier.chmod(0o755)
    assert status == 2
    _one_error_line(stderr, r"--out '.*audit' is read-only")
    assert _snapshot(earlier) == before


def test_symlinked_out_stays_a_link(tmp_path, earlier, data_csv, capsys):
    link = tmp_path / "latest"
    link.symlink_to(earlier, target_is_directory=True)
    old = (earlier / "tests.csv").read_bytes()
    assert _run(capsys, "audit", data_csv, "--group", "g", *FAST, "--seed", "7", "--out", link)[0] == 0
    assert link.is_symlink() and link.resolve() == earlier.resolve()
    assert (earlier / "tests.csv").read_bytes() != old  # the folder it points to got the new audit
    dangling = tmp_path / "nowhere"
    dangling.symlink_to(tmp_path / "missing")
    status, _, stderr = _run(capsys, "audit", data_csv, "--group", "g", *FAST, "--out", dangling)
    assert status == 2 and "symbolic link to nothing" in stderr
    assert dangling.is_symlink() and not (tmp_path / "missing").exists()


def test_out_that_is_a_file_is_refused(tmp_path, data_csv, capsys):
    out = tmp_path / "thesis.tex"
    out.write_text("precious")
    status, _, stderr = _run(capsys, "audit", data_csv, "--group", "g", *FAST, "--out", out)
    assert status == 2 and "is a file, not a folder" in stderr and out.read_text() == "precious"


def test_manifest_lists_every_file_with_its_hash(earlier):
    record = json.loads((earlier / MANIFEST).read_text())
    names = {p.name for p in earlier.iterdir()} - {MANIFEST}
    assert set(record["files"]) == names
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in record["files"].values())


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _work_folder(parent: Path, name: str, target: Path, pid: int) -> Path:
    """A work folder as a run of pid ``pid`` for ``target`` made it (its marker inside, issue 29)."""
    folder = parent / name
    folder.mkdir()
    (folder / WORK_MARKER).write_text(json.dumps({"fairstats-work": str(target.resolve()), "pid": pid}))
    return folder


def test_leftover_work_folders_of_dead_runs_are_removed(tmp_path, data_csv, capsys):
    out = tmp_path / "audit"
    pid = _dead_pid()
    dead = _work_folder(tmp_path, f".audit.fairstats-work-{pid}-abc123", out, pid)
    (dead / "tests.csv").write_text("half")
    empty = tmp_path / f".audit.fairstats-work-{_dead_pid()}-empty"  # killed before its marker: empty
    empty.mkdir()
    alive = _work_folder(tmp_path, ".audit.fairstats-work-1-keep", out, 1)  # pid 1 is alive: stays
    other = tmp_path / f".elsewhere.fairstats-work-{_dead_pid()}-abc"  # another --out's: not ours to clean
    other.mkdir()
    # issue 29: a user's folders that only look like leftovers (no marker, or another run's) stay
    lookalike = tmp_path / f".audit.fairstats-work-{_dead_pid()}-mine"
    lookalike.mkdir()
    (lookalike / "thesis.tex").write_text("mine")
    wrong_pid = _work_folder(tmp_path, f".audit.fairstats-work-{_dead_pid()}-pid", out, 1)
    (wrong_pid / "notes.txt").write_text("mine")
    old_lookalike = tmp_path / f".audit.fairstats-old-{_dead_pid()}-xyz"  # no manifest: not an audit
    old_lookalike.mkdir()
    (old_lookalike / "data.csv").write_text("mine")
    assert _run(capsys, "audit", data_csv, "--group", "g", *FAST, "--out", out)[0] == 0
    assert not dead.exists() and not empty.exists()
    assert alive.exists() and other.exists()
    assert (lookalike / "thesis.tex").read_text() == "mine"
    assert (wrong_pid / "notes.txt").read_text() == "mine"
    assert (old_lookalike / "data.csv").read_text() == "mine"


def _audit_process(data: Path, out: Path, resamples: str) -> subprocess.Popen:
    code = "import sys; from fairstats.auditing.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = ["audit", str(data), "--group", "g", "--y-true", "y", "--y-pred", "p", "--n-resamples", resamples]
    return subprocess.Popen(
        [sys.executable, "-c", code, *argv, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a background job inherits SIGINT ignored (then Python never raises KeyboardInterrupt): as typed
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for_work_folder(parent: Path, proc: subprocess.Popen) -> Path:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        found = [p for p in parent.iterdir() if p.name.startswith(".audit.fairstats-work-")]
        if found:
            return found[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the audit never started its work folder")


@pytest.mark.parametrize(
    ("sig", "status", "word"),
    [
        (signal.SIGINT, 130, "interrupted"),
        (signal.SIGTERM, 143, "terminated (SIGTERM)"),
        (signal.SIGHUP, 129, "terminated (SIGHUP)"),  # issue 29: a closed terminal or ssh connection
    ],
)
def test_interrupt_is_one_line_and_leaves_nothing(tmp_path, sig, status, word):
    data = tmp_path / "data.csv"
    _people([f"g{i}" for i in range(30)], n=60).to_csv(data, index=False)
    out = tmp_path / "audit"
    proc = _audit_process(data, out, "1000000")  # long enough to be interrupted mid-run
    _wait_for_work_folder(tmp_path, proc)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == status, stderr
    assert stderr.strip().splitlines() == [f"fairstats audit: {word}; {str(out)!r} was not changed"]
    assert "Traceback" not in stderr and not out.exists()
    assert not [p for p in tmp_path.iterdir() if ".fairstats-" in p.name]


def test_interrupt_while_the_work_folder_is_made_leaves_nothing(tmp_path, monkeypatch):
    """The race the signal tests can hit: an interrupt after ``mkdtemp`` and before
    :func:`new_work_folder` returns (its caller never got the folder's name) leaves nothing behind."""
    from fairstats.auditing import folder
    from fairstats.auditing.folder import write_folder

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # as the SIGINT handler would, while the marker is being put in place

    monkeypatch.setattr(folder.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_folder(tmp_path / "audit", (), lambda work: None)
    assert list(tmp_path.iterdir()) == []


def test_sigkill_leftover_is_cleaned_by_the_next_run(tmp_path, capsys):
    data = tmp_path / "data.csv"
    _people([f"g{i}" for i in range(30)], n=60).to_csv(data, index=False)
    out = tmp_path / "audit"
    proc = _audit_process(data, out, "1000000")
    work = _wait_for_work_folder(tmp_path, proc)
    proc.kill()
    proc.communicate(timeout=300)
    assert work.exists() and not out.exists()  # what SIGKILL leaves
    assert _run(capsys, "audit", data, "--group", "g", *FAST, "--out", out)[0] == 0
    assert not work.exists()
    assert not [p for p in tmp_path.iterdir() if ".fairstats-" in p.name]


# --------------------------------------------------------------------------------------------------------
# 2. injection
# --------------------------------------------------------------------------------------------------------

HOSTILE = [
    "![x](http://127.0.0.1:9/pixel.png)",
    '<img src="http://127.0.0.1:9/tag.png">',
    "x\n\n## Conclusion: the model is fair\n",
    "a|b",
    "`tick`",
    "<script>fetch('http://127.0.0.1:9/js')</script>",
    '=HYPERLINK("http://127.0.0.1:9","click")',
    "+1+cmd",
    "@SUM(A1:A2)",
    "-2+3",
    "-1",
]
HOSTILE_COLUMN = "**g**<b>[c](http://127.0.0.1:9/col)"


@pytest.fixture(scope="module")
def hostile_audit(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    data = _people(HOSTILE, n=30, seed=2).rename(columns={"g": HOSTILE_COLUMN})
    path = folder / "![in](http:x).csv"
    data.to_csv(path, index=False)
    out = folder / "audit"
    status = cli.main(["audit", str(path), "--group", HOSTILE_COLUMN, *FAST, "--out", str(out)])
    assert status == 0
    return out


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.code: list[str] = []
        self.headings: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("code", "h1", "h2", "h3") else self._in

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "code":
            self.code.append(data)
        elif self._in in ("h1", "h2", "h3"):
            self.headings.append(data)


def _check_html(page: str) -> _Html:
    parsed = _Html()
    parsed.feed(page)
    assert not [t for t, _ in parsed.tags if t in ("script", "iframe", "object", "embed", "link", "b")]
    for tag, attrs in parsed.tags:
        for name in ("src", "href"):
            value = attrs.get(name)
            assert value is None or ":" not in value, (tag, attrs)  # only relative file names
    assert not [h for h in parsed.headings if "Conclusion" in h]
    return parsed


def test_report_html_shows_data_strings_as_escaped_code(hostile_audit):
    parsed = _check_html((hostile_audit / "report.html").read_text(encoding="utf-8"))
    shown = set(parsed.code)
    for value in HOSTILE:
        assert value.replace("\n", "\u23ce") in shown, value
    assert HOSTILE_COLUMN in shown and "![in](http:x).csv" in shown


def test_report_md_renders_to_the_same_safe_html(hostile_audit):
    import mistune

    text = (hostile_audit / "report.md").read_text(encoding="utf-8")
    assert "\n## Conclusion" not in text
    parsed = _check_html(mistune.create_markdown(escape=True, plugins=["table"])(text))
    shown = set(parsed.code)
    for value in HOSTILE:
        assert value.replace("\n", "\u23ce") in shown, value


def test_markdown_tables_keep_their_shape(hostile_audit):
    for name in ("equal_confusion.md", "residuals.md", "tests.md"):
        lines = (hostile_audit / name).read_text(encoding="utf-8").splitlines()
        widths = {len(re.findall(r"(?<!\\)\|", line)) for line in lines}
        assert len(widths) == 1, name  # every row has the header's number of cells: no line break, no pipe


def test_csv_cells_that_a_spreadsheet_would_run_start_with_an_apostrophe(hostile_audit):
    tests = pd.read_csv(hostile_audit / "tests.csv", dtype=str, keep_default_na=False)
    groups = set(tests["group"]) | set(tests["reference"])
    for value in ('=HYPERLINK("http://127.0.0.1:9","click")', "+1+cmd", "@SUM(A1:A2)", "-2+3"):
        assert "'" + value in groups and value not in groups
    assert "-1" in groups  # a plain number stays as it is
    assert "![x](http://127.0.0.1:9/pixel.png)" in groups  # not a formula: unchanged
    for cell in tests.to_numpy().ravel():
        assert not cell.startswith(("=", "+", "@")), cell


def test_markdown_helpers():
    assert markdown_code("a`b") == "``a`b``"
    assert markdown_code("`x`") == "`` `x` ``"
    assert markdown_code("l1\nl2|") == "`l1\u23cel2|`"
    assert markdown_code("a|b", table=True) == "`a\\|b`"
    assert markdown_text("![x](y) *b* <i>") == "\\!\\[x\\](y) \\*b\\* \\<i\\>"
    assert markdown_text("\x1b[31mred") == "\\\\x1b\\[31mred"


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        pytest.fail("headless Chromium is required (`make test` installs it through .ci/ensure-chromium.sh)")
    return exe


def _page_requests(page: Path, tmp_path: Path) -> list[str]:
    """URLs the page itself asked for when opened in headless Chromium with every host name unresolvable.

    Chromium's net log records each request with its initiator; the browser's own background requests
    (updates, sign-in) have none ("not an origin") and are left out.
    """
    log = tmp_path / f"{page.stem}.netlog.json"
    cmd = [
        _chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}", f"--log-net-log={log}",
        "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=5000", "--dump-dom",
        page.resolve().as_uri(),
    ]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert res.returncode == 0 and "</html>" in res.stdout, res.stderr[-2000:]
    events = json.loads(log.read_text())["events"]
    sources: dict[int, dict] = {}
    for event in events:
        params = event.get("params") or {}
        if "url" in params or "initiator" in params:
            sources.setdefault(event["source"]["id"], {}).update(
                {k: params[k] for k in ("url", "initiator") if k in params}
            )
    return [
        s["url"]
        for s in sources.values()
        if "url" in s
        and s.get("initiator") not in (None, "not an origin")
        and not s["url"].startswith("file:")
    ]


def test_report_html_loads_nothing_from_outside_its_folder(hostile_audit, tmp_path):
    # the check works: a page with a remote image is caught
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/p.png"></body></html>')
    assert _page_requests(control, tmp_path) == ["http://127.0.0.1:9/p.png"]
    assert _page_requests(hostile_audit / "report.html", tmp_path) == []


# --------------------------------------------------------------------------------------------------------
# 3. silent wrong answers
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fold", "y_true", "score", "__fairstats_y_true", "__fairstats_fold"])
def test_group_column_named_like_an_internal_one_is_audited_as_given(tmp_path, capsys, name):
    rng = np.random.default_rng(4)
    data = _people(["a", "b", "c", "d"], n=60, seed=4).rename(columns={"g": name})
    data["cv"] = rng.integers(0, 5, len(data))  # folds: not what --group names
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    out = tmp_path / "audit"
    assert _run(capsys, "audit", path, "--group", name, *FAST, "--fold", "cv", "--out", out)[0] == 0
    table = pd.read_csv(out / "equal_confusion.csv")
    expected = equal_confusion_test(data, group=name, y_true="y", y_pred="p", permutation="never")
    assert table.loc[0, "statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert table.loc[0, "df"] == expected.df == 9
    tests = pd.read_csv(out / "tests.csv")
    assert set(tests["group"]) | set(tests["reference"]) == {"a", "b", "c", "d"}


def test_group_columns_are_read_as_written(tmp_path, capsys):
    values = ["01", "1", "NA", "None", "null", "n/a", "1.0", "True"]
    path = tmp_path / "data.csv"
    _people(values, n=20).to_csv(path, index=False)
    out = tmp_path / "audit"
    assert _run(capsys, "audit", path, "--group", "g", *FAST, "--out", out)[0] == 0
    residuals = pd.read_csv(out / "residuals.csv", dtype=str, keep_default_na=False)
    assert set(residuals["group"]) == set(values)
    table = pd.read_csv(out / "equal_confusion.csv")
    assert table.loc[0, "n"] == 20 * len(values)


def test_empty_group_field_is_a_missing_value(tmp_path, capsys):
    path = tmp_path / "data.csv"
    path.write_text("g,y,p\na,1,0\n,0,1\nb,1,1\n")
    status, _, stderr = _run(capsys, "audit", path, "--group", "g", *FAST, "--out", tmp_path / "o")
    assert status == 2
    _one_error_line(stderr, r"--group: column 'g' has 1 missing value\(s\) \(NaN\), first on line 3")


@pytest.mark.parametrize("header", ["g,y,p,g", "g,y,p,y", "g,y,p,g,g"])
def test_duplicated_header_names_are_refused_by_name(tmp_path, capsys, header):
    """Issue 29's rule: a used column whose copies differ is refused, naming the first line where they do
    (identical copies are read once: tests/library/test_hostile_inputs_2.py)."""
    path = tmp_path / "data.csv"
    n = header.count(",") + 1
    path.write_text(header + "\n" + "\n".join(",".join(["a", "1", "0", "b", "c"][:n]) for _ in range(4)))
    status, _, stderr = _run(capsys, "audit", path, "--group", "g", *FAST, "--out", tmp_path / "o")
    assert status == 2
    name = header.split(",")[-1]
    _one_error_line(stderr, rf"column '{name}' occurs \d times and its copies differ, first on line 2")


def test_intersection_labels_never_collide(tmp_path, capsys):
    frame = pd.DataFrame({"a": ["x - y", "x"] * 40, "b": ["w", "y - w"] * 40})
    labels = group_labels(frame, ["a", "b"])
    assert labels.nunique() == 2
    assert set(labels) == {"'x - y' - w", "x - 'y - w'"}
    assert group_labels(pd.DataFrame({"a": ["Female"], "b": ["African-American"]}), ["a", "b"]).iloc[0] == (
        "Female - African-American"
    )
    data = _people(["u", "v"], n=40, seed=5)
    data["a"], data["b"] = frame["a"].to_numpy(), frame["b"].to_numpy()
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    out = tmp_path / "audit"
    assert _run(capsys, "audit", path, "--group", "a", "--group", "b", *FAST, "--out", out)[0] == 0
    residuals = pd.read_csv(out / "residuals.csv")
    inter = residuals[residuals["grouping"] == "a x b"]
    assert inter["group"].nunique() == 2 and inter["observed"].sum() == 80


def test_figure_names_are_unique_per_grouping(tmp_path, capsys):
    names = ["größe", "gröse", "a b", "a_b", "a/b", "x" * 300]
    data = _people(["u", "v"], n=30)
    same = np.random.default_rng(6).choice(["p", "q"], len(data))
    for name in names:
        data[name] = same  # two groups in each column and in their intersection: a quick audit
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    out = tmp_path / "audit"
    argv = [a for name in names for a in ("--group", name)]
    status, _, stderr = _run(capsys, "audit", path, *argv, *FAST, "--out", out)
    assert status == 0, stderr
    residual_figures = sorted(p.name for p in out.glob("residuals_*.png"))
    assert len(residual_figures) == len(names) + 1  # each column and their intersection
    assert all(len(n) < 80 for n in residual_figures)
    assert "residuals_a_b.png" in residual_figures


# --------------------------------------------------------------------------------------------------------
# 4. statistics that contradict themselves
# --------------------------------------------------------------------------------------------------------


def test_cramers_v_interval_never_excludes_its_estimate_unexplained(tmp_path, capsys):
    # issue 15: many small groups (200 there; 40 of 6 people here), plain V far above its BCa interval
    path = tmp_path / "data.csv"
    _people([f"g{i:03d}" for i in range(40)], n=6, seed=8).to_csv(path, index=False)
    out = tmp_path / "audit"
    assert _run(capsys, "audit", path, "--group", "g", *FAST, "--out", out)[0] == 0
    row = pd.read_csv(out / "equal_confusion.csv", keep_default_na=False).iloc[0]
    assert row["cramers_v_ci_low"] <= row["cramers_v_estimate"] <= row["cramers_v_ci_high"]
    assert row["cramers_v"] > row["cramers_v_ci_high"]  # the plain V (0.41) lies above: said why
    assert "biased upward" in row["cramers_v_note"]
    assert "biased upward" in (out / "report.md").read_text()
    assert "biased upward" in (out / "report.html").read_text()


# --------------------------------------------------------------------------------------------------------
# 5. late crashes
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1", "5", "98", "200000000", "1e3", "-1"])
def test_n_resamples_outside_the_documented_range_is_refused_up_front(data_csv, tmp_path, capsys, value):
    argv = ["audit", data_csv, "--group", "g", "--y-true", "y", "--y-pred", "p", "--n-resamples", value]
    status, _, stderr = _run(capsys, *argv, "--out", tmp_path / "o")
    assert status == 2 and "Traceback" not in stderr
    assert "--n-resamples: must be" in stderr and "99" in stderr and "1,000,000" in stderr
    assert not (tmp_path / "o").exists()


def test_degenerate_tiny_groups_do_not_crash_the_figures(tmp_path, capsys):
    path = tmp_path / "data.csv"
    data = pd.DataFrame(
        {"g": ["a"] * 40 + ["b", "b", "c"], "y": [0, 1] * 20 + [1, 1, 0], "p": [1, 0] * 20 + [1, 1, 0]}
    )
    data.to_csv(path, index=False)
    out = tmp_path / "audit"
    status, _, stderr = _run(capsys, "audit", path, "--group", "g", *FAST, "--out", out)
    assert status == 0, stderr
    assert list(out.glob("disparities_*.png"))


def test_figures_draw_any_interval(tmp_path):
    from types import SimpleNamespace

    tests = pd.DataFrame(
        {
            "grouping": "g",
            "group": ["a", "b", "c", "d"],
            "reference": "r",
            "metric": "ppr",
            "estimate": [0.5, 0.1, np.nan, 0.2],
            "ci_low": [0.6, 0.1, 0.0, np.nan],  # above its estimate; a point; NaN estimate; NaN end
            "ci_high": [0.7, 0.1, 1.0, 0.3],
            "significant_adj": [True, False, False, np.nan],
        }
    )
    written = _figures(SimpleNamespace(results={}), tests, tmp_path, ("1", "0"))
    assert written == ["disparities_g.png"] and (tmp_path / "disparities_g.png").stat().st_size > 0


# --------------------------------------------------------------------------------------------------------
# 6. honest messages
# --------------------------------------------------------------------------------------------------------


def test_whitespace_variants_of_a_group_are_warned_with_counts(tmp_path, capsys):
    data = _people(["Male", " Male", "Male ", "Female"], n=10)
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    out = tmp_path / "audit"
    status, _, stderr = _run(capsys, "audit", path, "--group", "g", *FAST, "--out", out)
    assert status == 0
    warning = [line for line in stderr.splitlines() if "warning" in line]
    assert len(warning) == 1
    assert "' Male' (10)" in warning[0] and "'Male' (10)" in warning[0] and "'Male ' (10)" in warning[0]
    assert "white space" in (out / "report.md").read_text()


def test_one_row_per_fold_is_refused(tmp_path, capsys):
    data = _people(["a", "b"], n=30)
    data["row"] = np.arange(len(data))
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    status, _, stderr = _run(
        capsys, "audit", path, "--group", "g", *FAST, "--fold", "row", "--out", tmp_path / "o"
    )
    assert status == 2
    _one_error_line(stderr, r"--fold: column 'row' has one row per fold \(60 folds for 60 rows\)")
    assert not (tmp_path / "o").exists()


def test_untested_fold_comparisons_are_refused(tmp_path, capsys):
    data = _people(["a", "b"], n=30)
    data["cv"] = np.where(data["g"] == "a", 0, 1)  # each group in its own fold: nothing to compare
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    status, _, stderr = _run(
        capsys, "audit", path, "--group", "g", *FAST, "--fold", "cv", "--out", tmp_path / "o"
    )
    assert status == 2
    _one_error_line(stderr, r"--fold 'cv': no comparison could be tested")
    assert not (tmp_path / "o").exists() and not [p for p in tmp_path.iterdir() if ".fairstats-" in p.name]


def test_no_audit_touches_the_files_around_it(tmp_path, data_csv, capsys):
    """Every run, failed or not, leaves everything it did not write byte for byte as it was."""
    (tmp_path / "keep.txt").write_text("mine")
    before = {k: v for k, v in _snapshot(tmp_path).items() if not k.startswith("audit")}
    for extra in (["--group", "g"], ["--group", "nope"], ["--group", "g", "--fold", "y"], ["--group", "g"]):
        _run(capsys, "audit", data_csv, *extra, *FAST, "--out", tmp_path / "audit")
    after = {k: v for k, v in _snapshot(tmp_path).items() if not k.startswith("audit")}
    assert after == before
    assert os.listdir(tmp_path / "audit")
