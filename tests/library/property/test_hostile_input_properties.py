"""Hostile input as invariants over generated input (issue 29): the properties, not a list of examples.

Mostly on the writers and the display-text function directly (fast, many examples), plus a few full audits.
Examples drawn per test under the registered profile ``fairstats`` (tests/conftest.py: derandomized, no
deadline): the number in each ``@settings`` below (300 + 400 + 300 + 60, and 4 + 4 full audits without
shrinking): about a minute on the shared two-core machine.

Markdown is rendered as GitHub would: markdown-it-py (CommonMark + GFM tables) with its ``text_join`` rule
off, so that every text node stays as the parser split it at escapes, and GFM's autolink rule (bare
``www.``, ``scheme://``, e-mail addresses: cmark-gfm's autolink extension scans one text node at a time) is
checked on each node; mistune (GFM-like, with its ``url`` plugin for bare URLs) renders it a second way.
"""

from __future__ import annotations

import csv
import io
import re
import string
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from fairstats._csv import csv_text, spreadsheet_safe
from fairstats._format import figure_text
from fairstats._text import LINE_BREAKS, _hidden, display_text
from fairstats.auditing.cli import display_text_lines, main
from fairstats.auditing.inputs import Input, Source, read
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.report import markdown_code, markdown_text
from fairstats.auditing.result import run
from fairstats.confusion import equal_confusion_test

# --------------------------------------------------------------------------------------------------------
# strategies: arbitrary Unicode, with the pieces attackers use mixed in
# --------------------------------------------------------------------------------------------------------

PIECES = [
    "http://127.0.0.1:9/x", "https://evil.example/p?q=1", "www.evil.example", "evil.example.com",
    "mailto:a@b.example", "a@b.example", "<img src=x>", "<b>", "</p>", "![i](http://x.example/i.png)",
    "[l](http://x.example)", "<http://x.example>", "`", "|", "*", "_", "$x^2$", "\\", "&amp;", "&#60;",
    "\u202e", "\u200b", "\x1b[31m", "\r", "\n", "\u2028", "\x00", "=1+1", "@SUM(A1)", "-", "\ufeff",
    "\u00ad", "\U000e0041", "#", ">", "~~", "{{ x }}", "%s", "NaN", "-0.0", "inf",
]  # fmt: skip
piece = st.sampled_from(PIECES)
text = st.lists(st.one_of(st.text(max_size=8), piece), max_size=6).map("".join)


def _hidden_raw(shown: str) -> list[str]:
    """Characters of ``shown`` that no reader sees (or that break the line): display_text's hidden set."""
    return [ch for ch in shown if ch in LINE_BREAKS or _hidden(ch)]


# --------------------------------------------------------------------------------------------------------
# 1. every CSV reads back to the same fields and values
# --------------------------------------------------------------------------------------------------------


def _read_back(written: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(written, newline="")))


@settings(max_examples=300)
@given(
    names=st.lists(text, min_size=1, max_size=3, unique=True),
    rows=st.lists(st.lists(text, min_size=3, max_size=3), min_size=1, max_size=4),
)
def test_csv_reads_back_to_the_same_fields_and_values(names, rows):
    frame = pd.DataFrame([r[: len(names)] for r in rows], columns=names)
    written = csv_text(frame)
    records = _read_back(written)
    expected = spreadsheet_safe(frame)
    assert [len(r) for r in records] == [len(names)] * (len(rows) + 1)
    assert records[0] == [str(c) for c in names]
    assert records[1:] == [[str(v) for v in row] for row in expected.itertuples(index=False)]


# --------------------------------------------------------------------------------------------------------
# 2. no display output holds a raw control, bidi or invisible character
# --------------------------------------------------------------------------------------------------------


@settings(max_examples=400)
@given(text)
def test_no_display_output_holds_a_hidden_character(value):
    from markupsafe import escape

    outputs = {
        "display_text": display_text(value),
        "markdown_text": markdown_text(value),
        "markdown_code": markdown_code(value, table=True),
        "html": str(escape(display_text(value))),
        "figure": figure_text(value),
        "terminal": display_text_lines(f"a {value}\nb {value}").replace("\n", ""),
    }
    for where, shown in outputs.items():
        assert _hidden_raw(shown) == [], (where, shown)


# --------------------------------------------------------------------------------------------------------
# 3. Markdown renders to text: no link, image or HTML element from the data
# --------------------------------------------------------------------------------------------------------

# GFM's extended autolinks (cmark-gfm autolink.c: www., scheme://, e-mail) and linkify-it's fuzzy links
_AUTOLINKABLE = re.compile(r"(?i)(www\.\w|[a-z][a-z0-9+.-]*://|[\w.+-]@[\w-]+\.\w|\w\.[a-z]{2,})")


def _markdown_it():
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    md.disable("text_join")  # keep the text nodes as split at escapes: GFM autolinks within one node
    return md


def _walk(tokens):
    for token in tokens:
        yield token
        yield from _walk(token.children or [])


def assert_renders_as_text(markdown: str) -> None:
    for token in _walk(_markdown_it().parse(markdown)):
        assert token.type not in ("link_open", "image", "html_inline", "html_block"), (token, markdown)
        if token.type == "text":
            assert not _AUTOLINKABLE.search(token.content), (token.content, markdown)
    import mistune

    html = mistune.create_markdown(plugins=["table", "url", "strikethrough"])(markdown)
    assert not re.search(r"<(a|img|script|b|p>\S)", html.replace("<p>", "").replace("</p>", "")), html


@settings(max_examples=300)
@given(text, text)
def test_markdown_of_data_renders_without_links_images_or_html(value, column):
    line = f"The group {markdown_text(value)} of {markdown_code(column)}."
    row = f"| {markdown_text(column)} |\n| --- |\n| {markdown_code(value, table=True)} |\n"
    assert_renders_as_text(line)
    assert_renders_as_text(row)


# --------------------------------------------------------------------------------------------------------
# 4. the χ² equals scipy's on the group x cell table
# --------------------------------------------------------------------------------------------------------


@settings(max_examples=60)
@given(
    st.integers(2, 5).flatmap(
        lambda q: st.lists(st.tuples(st.integers(0, q - 1), st.booleans(), st.booleans()), min_size=20,
                           max_size=120)  # fmt: skip
    )
)
def test_chi2_equals_scipy_on_the_group_by_cell_table(people):
    frame = pd.DataFrame(people, columns=["g", "y", "p"]).astype({"y": int, "p": int})
    frame["g"] = "g" + frame["g"].astype(str)
    table = pd.crosstab(frame["g"], [frame["y"], frame["p"]])
    table = table.loc[table.sum(axis=1) > 0, table.sum(axis=0) > 0]
    if table.shape[0] < 2 or table.shape[1] < 2:
        return  # no test to compare (the library refuses or reports undefined)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = equal_confusion_test(frame, group="g", y_true="y", y_pred="p", permutation="never")
    ref = scipy.stats.chi2_contingency(table.to_numpy(), correction=False)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
    assert ours.df == ref.dof


# --------------------------------------------------------------------------------------------------------
# 5. counts, rows and parquet give the same answer
# --------------------------------------------------------------------------------------------------------

group_value = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6), piece
)  # not "" (a CSV reader cannot tell it from missing)


def _equal_confusion(path: Path, options: AuditOptions, counts: bool) -> pd.DataFrame:
    found = read(path, options, counts=counts)
    data, weight = found.rows, found.weight
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        audit = run(Input(data, weight, Source.of_file(path, counts=counts)), options)
    return audit.equal_confusion.drop(columns=["pvalue_permutation"], errors="ignore")


# full audits: a few examples each, no shrinking (one audit takes seconds; the failing input is printed)
FEW = settings(max_examples=4, phases=[Phase.explicit, Phase.reuse, Phase.generate])


@FEW
@given(st.lists(group_value, min_size=2, max_size=3, unique=True), st.integers(0, 2**31 - 1))
def test_counts_rows_and_parquet_give_the_same_answer(tmp_path_factory, groups, seed):
    folder = tmp_path_factory.mktemp("paths")
    rng = np.random.default_rng(seed)
    g = np.repeat(np.array(groups, dtype=object), 30)
    rows = pd.DataFrame({"g": g, "y": rng.integers(0, 2, g.size), "p": rng.integers(0, 2, g.size)})
    rows.to_csv(folder / "rows.csv", index=False)
    rows.to_parquet(folder / "rows.parquet")
    counts = rows.groupby(["g", "y", "p"]).size().rename("n").reset_index()
    counts.to_csv(folder / "counts.csv", index=False)
    options = AuditOptions(groups=("g",), y_true="y", y_pred="p", n_resamples=99, seed=1)
    first = _equal_confusion(folder / "rows.csv", options, False)
    for path, is_counts in ((folder / "rows.parquet", False), (folder / "counts.csv", True)):
        other = _equal_confusion(path, options, is_counts)
        pd.testing.assert_frame_equal(first, other, check_dtype=False)


# --------------------------------------------------------------------------------------------------------
# 6. full audits: every CSV reads back, Markdown renders as text, HTML and terminal show no hidden
#    character, user files beside and inside --out survive
# --------------------------------------------------------------------------------------------------------

column_name = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8).filter(
    lambda c: c.strip() not in ("y", "p") and c == c.strip() and c not in ("y", "p")
)
audit_value = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8), piece
).filter(lambda v: v.strip() != "" and v == v.strip() and v not in ("NaN", "inf", "-0.0"))


@FEW
@given(st.lists(audit_value, min_size=2, max_size=2, unique=True), column_name)
def test_full_audit_of_arbitrary_unicode(tmp_path_factory, capsys, groups, column):
    folder = tmp_path_factory.mktemp("audit")
    rng = np.random.default_rng(0)
    g = np.repeat(np.array(groups, dtype=object), 40)
    frame = pd.DataFrame({column: g, "y": rng.integers(0, 2, g.size), "p": rng.integers(0, 2, g.size)})
    data = folder / "data.parquet"  # parquet keeps every value as written (a CSV reader reads "" as missing)
    frame.to_parquet(data)
    beside = folder / "notes.txt"
    beside.write_text("mine")
    out = folder / "out"
    argv = ["audit", str(data), "--group", column, "--y-true", "y", "--y-pred", "p", "--n-resamples", "99"]
    status = main([*argv, "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert beside.read_text() == "mine"
    for stream in (captured.out, captured.err):
        assert _hidden_raw(stream.replace("\n", "")) == []
    for path in sorted(out.glob("*.csv")):
        records = _read_back(path.read_text(encoding="utf-8"))
        assert len({len(r) for r in records}) == 1, path.name
    residuals = _read_back((out / "residuals.csv").read_text(encoding="utf-8"))
    shown = {r[residuals[0].index("group")] for r in residuals[1:]}
    safe = spreadsheet_safe(pd.DataFrame({"g": groups}))["g"]
    assert shown == set(safe)
    assert_renders_as_text_report((out / "report.md").read_text(encoding="utf-8"), [*groups, column])
    html = (out / "report.html").read_text(encoding="utf-8")
    assert _hidden_raw(html.replace("\n", "")) == []
    # a user's file inside --out: the next audit refuses to touch it (exit 2) and it survives
    (out / "mine.txt").write_text("mine")
    assert main([*argv, "--out", str(out)]) == 2
    assert (out / "mine.txt").read_text() == "mine"


def assert_renders_as_text_report(markdown: str, values: list[str]) -> None:
    """The report's own links (to its files) are fine; none may come from the data."""
    for token in _walk(_markdown_it().parse(markdown)):
        if token.type in ("link_open", "image"):
            target = str(token.attrs.get("href") or token.attrs.get("src") or "")
            assert re.fullmatch(r"[A-Za-z0-9_.\-/#]+", target), (target, markdown[:200])
        assert token.type not in ("html_inline", "html_block"), token
        if token.type == "text":
            assert not any(
                _AUTOLINKABLE.search(token.content) and _AUTOLINKABLE.search(v) for v in values
                if v in token.content
            ), token.content
    assert all(ch in string.printable or not _hidden(ch) for ch in markdown.replace("\n", ""))
