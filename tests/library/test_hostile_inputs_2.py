"""`fairstats audit` against hostile input, second corpus (issue 29): classes the issue does not list.

Each case is one line of description (its ``id``) and holds. Classes: terminal escape sequences; figure text
(mathtext, very long, emoji); file-system tricks on --out and the clean-up (Unicode-normalised names,
symbolic links planted as leftovers or markers, names in messages); numeric edge cases (-0.0, NaN strings,
±inf, subnormal scores, huge or fractional counts); Unicode that hides or impersonates (tag characters,
variation selectors, fillers, combining marks, lookalikes); Markdown/HTML renderer tricks (reference links,
entities, autolinks, backtick runs); resource use within reason (many columns, very long values, deep
nesting); the reader contract (repeated columns, group kinds, /dev/stdin, physical line numbers).
The invariants behind them are tested over generated input in
tests/library/property/test_hostile_input_properties.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from repo_paths import RAW

from fairstats._csv import csv_text
from fairstats._format import PLAIN, figure_text
from fairstats._text import LINE_BREAKS, _hidden, display_text
from fairstats.auditing import DuplicateColumnWarning, GroupLookalikeWarning, cli
from fairstats.auditing.folder import WORK_MARKER, _clean_leftovers, _stem, new_work_folder
from fairstats.auditing.inputs import Input, Source, read
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.report import markdown_code, markdown_text
from fairstats.auditing.result import decisions_audit
from fairstats.auditing.rows import prepared_rows

FAST = ["--y-true", "y", "--y-pred", "p", "--n-resamples", "99"]


def _raw_hidden(text: str) -> list[str]:
    return [ch for ch in text.replace("\n", "") if ch in LINE_BREAKS or _hidden(ch)]


def _people(groups, n=30, seed=0, **extra) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = np.repeat(np.array(groups, dtype=object), n)
    frame = pd.DataFrame({"g": g, "y": rng.integers(0, 2, g.size), "p": rng.integers(0, 2, g.size)})
    for name, values in extra.items():
        frame[name] = values(g.size) if callable(values) else values
    return frame


def _run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


class _Started:
    """The rows checked (the row step: what raises and warns about the input), the audit computed by
    :meth:`finish`."""

    def __init__(self, rows, options):
        self.rows, self.options = rows, options

    @property
    def warned(self):
        return self.rows.warned

    def finish(self):
        return decisions_audit(self.rows, self.options)


def _start(frame: pd.DataFrame, **options):
    opts = AuditOptions(groups=("g",), y_true="y", y_pred="p", n_resamples=99, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = prepared_rows(Input(frame, None, Source(name="frame", kind="frame")), opts)
    return _Started(rows, opts), caught


# --------------------------------------------------------------------------------------------------------
# one audit of a data set full of terminal, figure, Unicode and renderer tricks (shared by many cases)
# --------------------------------------------------------------------------------------------------------

TRICKS = {
    "osc8": "\x1b]8;;http://127.0.0.1:9/\x1b\\click\x1b]8;;\x1b\\",  # terminal hyperlink
    "title": "\x1b]0;pwned\x07",  # terminal title change + bell
    "backspace": "admin\x08\x08\x08\x08\x08guest",  # overprints what is shown
    "del_c1": "a\x7fb\x9bc",  # DEL and the 8-bit CSI
    "math": r"$\frac{a}{b}$",  # matplotlib mathtext
    "bad_math": r"$\invalid{$ x $",  # mathtext that does not parse
    "tags": "ok\U000e0069\U000e0067\U000e006e",  # invisible tag characters (ASCII smuggling)
    "vs16": "A\ufe0f",  # variation selector
    "filler": "\u3164",  # Hangul filler: looks blank
    "combining": "\u0301\u0301",  # combining marks only
    "refdef": "[x]: http://127.0.0.1:9/ref",  # a Markdown link reference definition
    "entity": "&#x3C;script&#x3E;",  # an entity that decodes to a tag
    "angle": "<http://127.0.0.1:9/a>",  # a CommonMark autolink
    "ticks": "`" * 50,  # a long backtick run
    "long": "L" * 5000,  # a very long value
    "emoji": "\U0001f469\u200d\U0001f4bb",  # a ZWJ sequence
}


@pytest.fixture(scope="module")
def tricky(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tricky")
    data = folder / "data.parquet"
    _people(list(TRICKS.values()), n=20).to_parquet(data)
    out = folder / "audit"
    status = cli.main(["audit", str(data), "--group", "g", *FAST, "--out", str(out)])
    return status, out


def test_the_tricky_audit_succeeds(tricky):
    """every trick at once is a valid audit (exit 0)"""
    assert tricky[0] == 0


@pytest.mark.parametrize("output", ["report.md", "report.html", "tests.md", "residuals.md"])
def test_no_escape_sequence_or_hidden_character_reaches_a_text_output(tricky, output):
    """ESC, BEL, backspace, DEL, C1 CSI, tags, fillers, variation selectors: escaped in every text output"""
    assert _raw_hidden((tricky[1] / output).read_text(encoding="utf-8")) == []


def test_terminal_summary_and_warnings_hold_no_escape_sequence(tmp_path, capsys):
    """the terminal (stdout and stderr) never receives a raw ESC, BEL or backspace from the data"""
    data = tmp_path / "d.csv"
    frame = _people([TRICKS["osc8"], TRICKS["title"], "\u0430dmin", "admin", TRICKS["backspace"]])
    frame.to_csv(data, index=False)
    status, out, err = _run(capsys, "audit", data, "--group", "g", *FAST, "--out", tmp_path / "o")
    assert status == 0, err
    assert _raw_hidden(out) == [] and _raw_hidden(err) == []
    assert "\x1b" not in out + err and "\x07" not in out + err and "\x08" not in out + err


def test_error_messages_escape_a_hostile_column_name(tmp_path, capsys):
    """a --group name with a bidi override and ESC is shown escaped in the one-line error"""
    data = tmp_path / "d.csv"
    _people(["a", "b"]).to_csv(data, index=False)
    status, _, err = _run(capsys, "audit", data, "--group", "\u202eg\x1b[2J", *FAST, "--out", tmp_path / "o")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert _raw_hidden(err) == [] and "\\u202e" in err


def test_error_messages_escape_a_hostile_file_name(tmp_path, capsys):
    """a missing input whose name holds a newline and ESC: one escaped error line"""
    status, _, err = _run(capsys, "audit", tmp_path / "x\n\x1b[31my.csv", "--group", "g", *FAST, "--out",
                          tmp_path / "o")  # fmt: skip
    assert status == 2 and len(err.strip().splitlines()) == 1 and _raw_hidden(err) == []


@pytest.mark.parametrize("value", [TRICKS["math"], TRICKS["bad_math"], "$", "$$", "a$b$c$", "\\$x$"])
def test_figure_text_is_drawn_as_written(value):
    """mathtext in a value is drawn as the characters written, never parsed (no error, no formula)"""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    text = ax.set_title(figure_text(value), **PLAIN)
    fig.canvas.draw()
    plt.close(fig)
    assert text.get_text() == display_text(value) and not text.get_parse_math()


def test_figures_of_the_tricky_audit_were_drawn(tricky):
    """mathtext, emoji and 5,000-character values do not stop the figures"""
    assert len(list(tricky[1].glob("*.png"))) >= 1


def test_very_long_values_are_short_figure_text():
    """a 100,000-character value is at most 60 characters of figure text"""
    assert len(figure_text("x" * 100_000)) == 60


@pytest.mark.parametrize(
    "value",
    [TRICKS["refdef"], TRICKS["entity"], TRICKS["angle"], TRICKS["ticks"], "[" * 2000 + "x" + "]" * 2000],
    ids=["reference-definition", "entity", "angle-autolink", "backtick-run", "deep-brackets"],
)
def test_renderer_tricks_render_as_text(value):
    """reference definitions, entities, <autolinks>, backtick runs, 2,000-deep brackets: text, no element"""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    for source in (f"x {markdown_text(value)} y\n", f"x {markdown_code(value)} y\n"):
        html = md.render(source)
        assert "<a " not in html and "<script" not in html and "<img" not in html, html[:200]


def test_entity_is_not_decoded_in_html(tricky):
    """an HTML entity in a value stays visible as text in report.html (its & escaped)"""
    html = (tricky[1] / "report.html").read_text(encoding="utf-8")
    assert "&amp;#x3C;script&amp;#x3E;" in html and "<script" not in html


# --------------------------------------------------------------------------------------------------------
# Unicode that hides or impersonates
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [("male", "male\u200b"), ("Jos\u00e9", "Jose\u0301"), ("admin", "\u0430dmin"), ("ﬁle", "file")],
    ids=["zero-width", "nfc-nfd", "cyrillic-a", "ligature"],
)
def test_lookalike_groups_are_warned_with_both_values_escaped(a, b):
    """values that display alike: one lookalike warning naming both as escaped text, kept as a note"""
    started, _ = _start(_people([a, b]))
    found = [note for note in started.warned if "look alike" in note]
    assert len(found) == 1 and ascii(a) in found[0] and ascii(b) in found[0], started.warned


def test_lookalike_warning_is_its_own_class():
    """the lookalike warning is a GroupLookalikeWarning (catchable by class)"""
    from fairstats.auditing.grouping import _lookalikes

    message = _lookalikes(_people(["male", "male\u200b"]), "g")
    assert message and issubclass(GroupLookalikeWarning, UserWarning)


@pytest.mark.parametrize(
    "value", [TRICKS["tags"], TRICKS["vs16"], TRICKS["filler"], "\u2066x\u2069", "\u00ad"],
    ids=["tags", "variation-selector", "hangul-filler", "bidi-isolate", "soft-hyphen"],
)
def test_invisible_characters_are_shown_as_escapes(value):
    """characters a renderer shows as nothing are shown as escapes"""
    shown = display_text(value)
    assert _raw_hidden(shown) == [] and "\\" in shown


def test_combining_marks_alone_are_a_group_shown_as_written():
    """a group of combining marks only is a valid group, shown as written (nothing hidden)"""
    started, _ = _start(_people([TRICKS["combining"], "b"]))
    assert started.finish().equal_confusion["statistic"].notna().all()


# --------------------------------------------------------------------------------------------------------
# numeric edge cases
# --------------------------------------------------------------------------------------------------------


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "d.csv"
    path.write_text(text, encoding="utf-8")
    return path


def _rows(groups=("a", "b"), score=lambda i: "0.5") -> str:
    lines = ["g,y,p,s"]
    for i in range(40):
        lines.append(f"{groups[i % 2]},{i % 2},{(i // 2) % 2},{score(i)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("bad", ["NaN", "inf", "-inf", "nan", "1e309"], ids=lambda b: f"score-{b}")
def test_nan_and_infinite_scores_are_refused_naming_the_line(tmp_path, capsys, bad):
    """NaN strings and ±inf scores: one error naming --y-score, the column and the line"""
    path = _csv(tmp_path, _rows(score=lambda i: bad if i == 7 else "0.5"))
    status, _, err = _run(capsys, "audit", path, "--group", "g", *FAST, "--y-score", "s", "--out",
                          tmp_path / "o")  # fmt: skip
    assert status == 2 and "--y-score" in err and "'s'" in err and "line 9" in err, err


@pytest.mark.parametrize("odd", ["-0.0", "4.9e-324", "1.0"], ids=["negative-zero", "subnormal", "one"])
def test_edge_scores_inside_the_unit_interval_are_accepted(tmp_path, capsys, odd):
    """-0.0, the smallest subnormal and 1.0 are scores in [0, 1]"""
    path = _csv(tmp_path, _rows(score=lambda i: odd if i % 5 == 0 else "0.5"))
    status, _, err = _run(capsys, "audit", path, "--group", "g", *FAST, "--y-score", "s", "--out",
                          tmp_path / "o")  # fmt: skip
    assert status == 0, err


def test_number_like_group_texts_stay_distinct_groups(tmp_path):
    """'-0.0', '0.0', 'NaN' and 'inf' in a group column are four groups as written, none missing"""
    groups = ["-0.0", "0.0", "NaN", "inf"]
    body = "".join(f"{groups[i % 4]},{i % 2},{(i // 2) % 2}\n" for i in range(40))
    path = _csv(tmp_path, "g,y,p\n" + body)
    data = read(path, AuditOptions(groups=("g",), y_true="y", y_pred="p")).rows
    assert sorted(set(data["g"])) == sorted(groups)


@pytest.mark.parametrize(
    ("n", "ok"), [("1e300", False), ("2.5", False), ("-0.0", True), ("3.0", True)],
    ids=["huge-count", "fractional-count", "negative-zero-count", "whole-float-count"],
)
def test_counts_edge_values(tmp_path, capsys, n, ok):
    """huge and fractional counts are refused; -0.0 and 3.0 are whole numbers"""
    lines = ["g,y,p,n"] + [f"{g},{y},{p},5" for g in "ab" for y in "01" for p in "01"]
    lines[1] = lines[1].rsplit(",", 1)[0] + f",{n}"
    path = _csv(tmp_path, "\n".join(lines) + "\n")
    status, _, err = _run(capsys, "audit", "--counts", path, "--group", "g", *FAST, "--out", tmp_path / "o")
    assert (status == 0) == ok, err
    if not ok:
        assert "'n'" in err and "row 1" in err


# --------------------------------------------------------------------------------------------------------
# the file system: --out names, planted leftovers and markers
# --------------------------------------------------------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_unicode_normalised_twin_of_out_is_left_alone(tmp_path, capsys):
    """--out in NFD beside a user's folder of the same name in NFC: the user's folder is untouched"""
    mine = tmp_path / "r\u00e9sultats"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    data = _csv(tmp_path, _rows())
    status, _, err = _run(capsys, "audit", data, "--group", "g", *FAST, "--out", tmp_path / "re\u0301sultats")
    if status == 0:  # a file system that keeps both names (ext4): two folders
        assert (mine / "keep.txt").read_text() == "mine"
    else:  # one that normalises names (APFS, HFS+): the user's folder is refused, not replaced
        assert status == 2 and (mine / "keep.txt").read_text() == "mine"


def test_a_symlink_planted_as_a_leftover_is_not_followed(tmp_path):
    """a symbolic link named like a dead run's work folder, pointing at a user's folder: both stay"""
    target = tmp_path / "audit"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    link = tmp_path / f".audit.fairstats-work-{_dead_pid()}-abc"
    link.symlink_to(mine)
    _clean_leftovers(target)
    assert link.is_symlink() and (mine / "keep.txt").read_text() == "mine"


def test_a_symlinked_marker_is_not_trusted(tmp_path):
    """a leftover whose marker is a symbolic link (to a forged record) is not removed"""
    target = tmp_path / "audit"
    pid = _dead_pid()
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({"fairstats-work": str(target), "pid": pid}))
    folder = tmp_path / f".audit.fairstats-work-{pid}-abc"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    (folder / WORK_MARKER).symlink_to(forged)
    _clean_leftovers(target)
    assert (folder / "keep.txt").read_text() == "mine"


def test_removing_a_leftover_never_follows_a_link_inside_it(tmp_path):
    """a dead run's work folder holding a link to a user's file: the link goes, the file stays"""
    target = tmp_path / "audit"
    mine = tmp_path / "keep.txt"
    mine.write_text("mine")
    pid = _dead_pid()
    dead = tmp_path / f".audit.fairstats-work-{pid}-abc"
    dead.mkdir()
    (dead / WORK_MARKER).write_text(json.dumps({"fairstats-work": str(target), "pid": pid}))
    (dead / "link").symlink_to(mine)
    _clean_leftovers(target)
    assert not dead.exists() and mine.read_text() == "mine"


def test_a_work_folder_name_fits_the_file_system_for_the_longest_out(tmp_path):
    """--out of 255 bytes (multi-byte letters): its work folder's name is at most 255 bytes too"""
    target = tmp_path / ("\u00e9" * 127)
    work = new_work_folder(target)
    assert len(work.name.encode()) <= 255 and _stem(target) != target.name
    assert json.loads((work / WORK_MARKER).read_text())["fairstats-work"] == str(target)


# --------------------------------------------------------------------------------------------------------
# the reader contract and resource use
# --------------------------------------------------------------------------------------------------------


def test_identical_repeated_columns_are_read_once_with_one_warning():
    """identical copies of a used column: one DuplicateColumnWarning, the audit runs"""
    frame = _people(["a", "b"])
    frame = pd.concat([frame, frame[["y"]]], axis=1)
    started, _ = _start(frame)
    assert [note for note in started.warned if "occurs 2 times" in note] == [
        "frame: column 'y' occurs 2 times with the same values; it is read once"
    ]
    assert started.finish().n == len(frame) and issubclass(DuplicateColumnWarning, UserWarning)


def test_differing_copies_of_an_unused_column_warn():
    """differing copies of an unused column: a DuplicateColumnWarning, the audit runs"""
    frame = _people(["a", "b"], extra=lambda n: np.arange(n))
    frame = pd.concat([frame, frame[["extra"]] + 1], axis=1)
    started, _ = _start(frame)
    assert any("does not use it" in note for note in started.warned), started.warned


def test_propublica_file_with_repeated_columns_is_read(capsys, tmp_path):
    """ProPublica's compas-scores-two-years.csv (repeated identical columns) is audited, with warnings"""
    raw = RAW / "compas-scores-two-years.csv"
    status, _, err = _run(capsys, "audit", raw, "--group", "sex", "--y-true", "two_year_recid", "--y-pred",
                          "is_recid", "--n-resamples", "99", "--out", tmp_path / "o")  # fmt: skip
    assert status == 0 and "'decile_score' occurs 2 times with the same values" in err


def test_two_thousand_columns_are_read(tmp_path):
    """a CSV of 2,000 columns (the audit uses three) is read, the audit's columns intact"""
    frame = _people(["a", "b"])
    filler = pd.DataFrame(np.zeros((len(frame), 2000)), columns=[f"c{i}" for i in range(2000)])
    wide = pd.concat([frame, filler], axis=1)
    wide.to_csv(tmp_path / "w.csv", index=False)
    found = read(tmp_path / "w.csv", AuditOptions(groups=("g",), y_true="y", y_pred="p"))
    assert list(found.rows.columns) == ["g", "y", "p"] and int(found.weight.sum()) == len(frame)  # counted
    got = pd.Series(found.weight, index=pd.MultiIndex.from_frame(found.rows)).sort_index()
    assert got.to_dict() == frame.groupby(["g", "y", "p"]).size().to_dict()


def test_a_megabyte_value_round_trips_through_the_csv_writer():
    """a 1 MB value with every line break in it reads back exactly"""
    import csv
    import io

    value = ("x" * 1000 + LINE_BREAKS) * 100
    frame = pd.DataFrame({"g": [value, "b"]})
    records = list(csv.reader(io.StringIO(csv_text(frame), newline="")))
    assert records == [["g"], [value], ["b"]]


def test_piped_csv_through_dev_stdin(tmp_path):
    """a CSV piped through /dev/stdin is audited (one stream, read once)"""
    data = _csv(tmp_path, _rows())
    code = "import sys; from fairstats.auditing.cli import main; sys.exit(main(sys.argv[1:]))"
    with data.open("rb") as fh:
        proc = subprocess.run(
            [sys.executable, "-c", code, "audit", "/dev/stdin", "--group", "g", *FAST, "--out",
             str(tmp_path / "o")], stdin=fh, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o" / "tests.csv").exists()


def test_error_line_is_the_physical_line_after_a_quoted_newline(tmp_path, capsys):
    """a label error after a field holding two quoted newlines names the physical line (5, not record 3)"""
    path = _csv(tmp_path, 'g,y,p\n"a\nb\nc",1,0\nx,1,1\nx,2,1\n' + "a,0,1\n" * 5)
    status, _, err = _run(capsys, "audit", path, "--group", "g", *FAST, "--out", tmp_path / "o")
    assert status == 2 and "line 6 of d.csv" in err, err


@pytest.mark.parametrize(
    ("kind", "values"),
    [("date", lambda i: pd.Timestamp("2020-01-01").date() if i % 2 else pd.Timestamp("2021-01-01").date()),
     ("duration", lambda i: pd.Timedelta(days=i % 2)),
     ("binary", lambda i: b"A" if i % 2 else b"B")],
    ids=["date", "duration", "binary"],
)  # fmt: skip
def test_date_duration_and_binary_groups_are_text(kind, values):
    """date, duration and UTF-8 binary group values are groups, shown as ISO or UTF-8 text"""
    frame = _people(["x", "y"])
    frame["g"] = [values(i) for i in range(len(frame))]
    started, _ = _start(frame)
    assert all(isinstance(g, str) for g in started.finish().residuals["group"])


def test_the_notebook_view_holds_no_escape_sequence():
    """the notebook view of an audit (Audit._repr_html_) shows ESC, bidi and zero-width characters escaped"""
    started, _ = _start(_people([TRICKS["title"], "\u202eevil", "ok\u200b"]))
    html = started.finish()._repr_html_()
    assert _raw_hidden(html) == [] and "\\x1b" in html


@pytest.mark.parametrize("kind", ["list", "struct", "binary-not-utf8"])
def test_nested_and_binary_groups_are_refused_alike_on_every_parquet_path(tmp_path, capsys, kind):
    """list, struct and non-UTF-8 binary groups: the same one-line refusal naming file and column, whether
    the parquet file is counted (DuckDB) or read row by row (--y-score)"""
    frame = _people(["a", "b"], s=0.5)
    frame["g"] = [
        {"list": [i % 2], "struct": {"k": i % 2}, "binary-not-utf8": bytes([0xFF, i % 2])}[kind]
        for i in range(len(frame))
    ]
    data = tmp_path / "d.parquet"
    frame.to_parquet(data)
    errors = []
    for extra in ([], ["--y-score", "s"]):
        status, _, err = _run(capsys, "audit", data, "--group", "g", *FAST, *extra, "--out", tmp_path / "o")
        assert status == 2 and len(err.strip().splitlines()) == 1 and "'g'" in err and "d.parquet" in err
        errors.append(err)
    assert errors[0] == errors[1]
