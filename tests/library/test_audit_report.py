"""The audit report one can hand over (issue 30, item 3): report.html opens with what was audited, the
verdicts and a summary table; one sortable table per grouping; figures with alt text saying what they show;
a provenance block (input SHA-256, command line, date, versions, seed); the date fixed by SOURCE_DATE_EPOCH;
``--pdf`` / ``save(pdf=True)`` writes report.pdf (headless Chromium), whose first page renders and is not
blank; a named error (exit 2) when no renderer is found."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shlex
import shutil
import subprocess
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats.auditing import cli
from fairstats.auditing.errors import AuditError, PdfRendererError

EPOCH = "1764547200"  # 2025-12-01 00:00:00 UTC
DATE = "2025-12-01 00:00:00 UTC"


@pytest.fixture(scope="module")
def compas_csv(compas_violent, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("compas") / "compas.csv"
    compas_violent[["sex", "race", "y_true", "y_pred"]].to_csv(path, index=False)
    return path


def _argv(path: Path, out: Path, *extra: str) -> list[str]:
    groups = ["--group", "sex", "--group", "race"]
    roles = ["--y-true", "y_true", "--y-pred", "y_pred", "--favorable", "0"]
    options = ["--n-resamples", "99", "--seed", "3", *extra, "--out", str(out)]
    return ["audit", str(path), *groups, *roles, *options]


@pytest.fixture(scope="module")
def report(compas_csv, tmp_path_factory):
    """One COMPAS audit through the command line, with --pdf and the date fixed."""
    out = tmp_path_factory.mktemp("report") / "out"
    argv = _argv(compas_csv, out, "--pdf")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        assert cli.main(argv) == 0
    return out, argv


class _Page(HTMLParser):
    """Headings, images, tables (class, rows of cell texts, row styles) and the text of a page, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[str, object]] = []
        self.images: list[dict] = []
        self.tables: list[dict] = []
        self._heading: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("h1", "h2", "h3"):
            self._heading = []
        elif tag == "img":
            self.images.append(a)
            self.events.append(("img", a))
        elif tag == "table":
            self.tables.append({"class": a.get("class", ""), "rows": [], "styles": []})
            self.events.append(("table", self.tables[-1]))
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
            self.tables[-1]["styles"].append(a.get("style", ""))
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self.events.append((tag, "".join(self._heading).strip()))
            self._heading = None
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1]["rows"][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._heading is not None:
            self._heading.append(data)
        if self._cell is not None:
            self._cell.append(data)


def _parse(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    return parsed


def test_report_opens_with_what_was_audited_the_verdicts_and_a_summary_table(report):
    out, _ = report
    parsed = _parse((out / "report.html").read_text(encoding="utf-8"))
    kinds = [(k, v if isinstance(v, str) else "") for k, v in parsed.events]
    assert kinds[0] == ("h1", "Fairness audit of compas.csv")
    assert kinds[1] == ("h2", "What was audited") and kinds[2][0] == "table"  # facts, before any figure
    assert kinds[3] == ("h2", "Verdicts") and kinds[4][0] == "table"
    facts, summary = parsed.tables[0], parsed.tables[1]
    assert dict(r for r in facts["rows"] if len(r) == 2)["Input"] == "compas.csv: 4,020 people"
    assert summary["rows"][0][:2] == ["grouping", "groups"]
    assert [r[0] for r in summary["rows"][1:]] == ["sex", "race", "sex x race"]
    tests = pd.read_csv(out / "tests.csv")
    for row in summary["rows"][1:]:
        part = tests[tests["grouping"] == row[0]]
        assert int(row[7]) == len(part) and int(row[8]) == (part["verdict"] == "disparity").sum()
    page = (out / "report.html").read_text(encoding="utf-8")
    verdicts = re.search(r'<div class="verdicts">(.*?)</div>', page, re.S).group(1)
    sentences = re.findall(r"<p>(.*?)</p>", verdicts)
    assert len(sentences) == 3
    n_holm, total = int(tests["significant_adj"].sum()), int(tests["pvalue"].notna().sum())
    assert f"{n_holm} of {total} comparisons" in sentences[1]
    # the first screen comes before the first grouping's section
    assert page.index("Verdicts") < page.index('<h2 id="grouping-1">By <code>sex</code></h2>')


def test_each_grouping_has_a_sortable_table_of_its_comparisons(report):
    out, _ = report
    parsed = _parse((out / "report.html").read_text(encoding="utf-8"))
    tables = [t for t in parsed.tables if t["class"] == "comparisons"]
    tests = pd.read_csv(out / "tests.csv")
    assert len(tables) == 3
    for table, grouping in zip(tables, ["sex", "race", "sex x race"], strict=True):
        header, rows, styles = table["rows"][0], table["rows"][1:], table["styles"][1:]
        assert header[:2] == ["group", "measure"] and "Holm p" in header and "MDE" in header
        part = tests[tests["grouping"] == grouping].reset_index(drop=True)
        assert [r[0] for r in rows] == part["group"].tolist()
        assert [r[1] for r in rows] == part["metric"].tolist()
        assert [r[7] for r in rows] == part["verdict"].tolist()
        # each column's sort position (CSS order) is a permutation; by "Holm p", ascending, NaN last
        order = np.array([[int(v) for v in re.findall(r"--o\d+:(\d+);", s)] for s in styles])
        assert order.shape == (len(part), len(header))
        for column in order.T:
            assert sorted(column) == list(range(1, len(part) + 1))
        by_p = part["pvalue_adj"].to_numpy()[np.argsort(order[:, header.index("Holm p")])]
        finite = by_p[np.isfinite(by_p)]
        assert (np.diff(finite) >= 0).all() and np.isnan(by_p[len(finite) :]).all()
    assert "<script" not in (out / "report.html").read_text(encoding="utf-8")  # sorted by CSS alone


def test_every_figure_is_inline_with_alt_text_that_says_what_it_shows(report):
    out, _ = report
    parsed = _parse((out / "report.html").read_text(encoding="utf-8"))
    assert len(parsed.images) == 6  # residuals and disparities of sex, race, sex x race
    tests = pd.read_csv(out / "tests.csv")
    for img in parsed.images:
        alt, src = img.get("alt", ""), img["src"]
        assert (out / src).is_file()
        assert src not in alt and not alt.endswith(".png") and len(alt.split()) >= 15, alt
        assert alt.startswith(("Heat map of the adjusted residuals by ", "Dot plot by ")), alt
        if alt.startswith("Dot plot"):
            # the figure's filled dots are the intervals that exclude 0, and the alt text counts them
            grouping = alt.removeprefix("Dot plot by ").split(":")[0]
            part = tests[(tests["grouping"] == grouping) & (tests["metric"] != "calibration")]
            excluding = int(((part["ci_low"] > 0) | (part["ci_high"] < 0)).sum())
            drawn = int((part[["estimate", "ci_low", "ci_high"]].notna().all(axis=1)).sum())
            assert f"({excluding} of {drawn})" in alt, alt
    # a figure sits in its grouping's section, not at the end
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.index('src="residuals_race.png"') < page.index('<h2 id="grouping-3">')
    report_md = (out / "report.md").read_text(encoding="utf-8")
    assert "![residuals_race.png]" not in report_md and "](residuals_race.png)" in report_md


def test_provenance_has_the_input_hash_command_line_date_versions_and_seed(report, compas_csv):
    out, argv = report
    sha = hashlib.sha256(compas_csv.read_bytes()).hexdigest()
    command = shlex.join(["fairstats", *argv])
    page = unescape((out / "report.html").read_text(encoding="utf-8"))
    provenance = page[page.index("<h2>Provenance</h2>") :]
    for expected in (
        sha,
        command,
        DATE,
        f"fairstats {fairstats.__version__}",
        "scipy ",
        "pandas ",
        "3 (99 resamples)",
    ):
        assert expected in provenance, expected
    md = (out / "report.md").read_text(encoding="utf-8")
    assert sha in md and DATE in md
    for name in ("tests.csv", "equal_confusion.csv", "residuals.csv"):  # the date is in the report only
        assert "2025-12-01" not in (out / name).read_text(encoding="utf-8")


def test_source_date_epoch_makes_reruns_byte_identical(compas_csv, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    argv = ["audit", str(compas_csv), "--group", "sex", "--y-true", "y_true", "--y-pred", "y_pred",
            "--n-resamples", "99", "--out"]  # fmt: skip
    assert cli.main([*argv, str(tmp_path / "a" / "out")]) == 0
    assert cli.main([*argv, str(tmp_path / "b" / "out")]) == 0
    for name in ("report.md", "report.html"):
        first = (tmp_path / "a" / "out" / name).read_bytes()
        assert DATE.encode() in first
        # the command lines differ in --out only
        assert first.replace(b"/a/out", b"/b/out") == (tmp_path / "b" / "out" / name).read_bytes()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    assert cli.main([*argv, str(tmp_path / "bad")]) == 2 and not (tmp_path / "bad").exists()
    with pytest.raises(AuditError, match="SOURCE_DATE_EPOCH='yesterday'"):
        fairstats.audit(pd.read_csv(compas_csv).iloc[:400], group="sex", y_true="y_true", y_pred="y_pred",
                        n_resamples=99).save(tmp_path / "bad")  # fmt: skip
    assert not (tmp_path / "bad").exists()


def test_pdf_is_written_and_its_first_page_renders(report, tmp_path):
    from PIL import Image

    out, _ = report
    pdf = out / "report.pdf"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    pdftoppm = shutil.which("pdftoppm")
    assert pdftoppm, "pdftoppm (poppler-utils) is required: .ci/ensure-chromium.sh installs it"
    cmd = [pdftoppm, "-f", "1", "-l", "1", "-r", "50", "-png", str(pdf), str(tmp_path / "page")]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    (page,) = tmp_path.glob("page*.png")
    gray = np.asarray(Image.open(page).convert("L"), dtype=float)
    assert gray.shape[0] > gray.shape[1]  # A4 portrait
    ink = (gray < 200).mean()
    assert 0.01 < ink < 0.5, ink  # text on the page: neither blank nor a black page
    text = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True)
    assert "What was audited" in text.stdout and "Verdicts" in text.stdout


def test_pdf_without_a_renderer_is_a_named_error_and_writes_nothing(
    compas_csv, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("FAIRSTATS_CHROMIUM", raising=False)
    out = tmp_path / "out"
    assert cli.main(_argv(compas_csv, out, "--pdf")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--pdf needs headless Chromium" in err and "Traceback" not in err
    assert not out.exists()
    monkeypatch.setenv("FAIRSTATS_CHROMIUM", str(tmp_path / "no-such-chromium"))
    assert cli.main(_argv(compas_csv, out, "--pdf")) == 2
    assert "FAIRSTATS_CHROMIUM" in capsys.readouterr().err and not out.exists()
    frame = pd.read_csv(compas_csv)
    result = fairstats.audit(
        frame, group="sex", y_true="y_true", y_pred="y_pred", favorable=0, n_resamples=99
    )
    with pytest.raises(PdfRendererError, match="FAIRSTATS_CHROMIUM"):
        result.save(tmp_path / "saved", pdf=True)
    assert not (tmp_path / "saved").exists()


def test_library_audit_shows_its_call_decision_rule_and_filters(compas_csv, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    frame = pd.read_csv(compas_csv)
    result = fairstats.audit(
        frame, group="sex", y_true="y_true", y_pred="y_pred", favorable=0, n_resamples=99
    )
    assert result.decision_rule is None and result.filters == ()
    assert (
        result.command
        == "fairstats.audit(data, group='sex', y_true='y_true', y_pred='y_pred', favorable=0, n_resamples=99)"
    )
    ruled = dataclasses.replace(
        result, decision_rule='positive prediction when score_text is "Medium" or "High"',
        filters=(("days_b_screening_arrest BETWEEN -30 AND 30", 1234), ("<b>c</b> = 'x'", 5)),
    )  # fmt: skip
    ruled.save(tmp_path / "out")
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    facts = _parse(page).tables[0]["rows"]
    shown = {r[0]: r[1] for r in facts}
    assert shown["Decision rule"] == 'positive prediction when score_text is "Medium" or "High"'
    assert shown["Filters"] == ("days_b_screening_arrest BETWEEN -30 AND 30 removed 1,234 rows; "
                                "<b>c</b> = 'x' removed 5 rows (timestamps compared in UTC, a timestamp "
                                "without a zone read as UTC)")  # fmt: skip
    assert "<b>c</b>" not in page and "<code>&lt;b&gt;c&lt;/b&gt; = &#39;x&#39;</code>" in page
    assert "a data frame in memory (no file to hash)" in page and "fairstats.audit(data, group=" in unescape(
        page
    )
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "`days_b_screening_arrest BETWEEN -30 AND 30` removed 1,234 rows" in md


@pytest.mark.parametrize("enabled", [True, False])
def test_save_pauses_the_collector_and_leaves_it_as_it_was(compas_csv, tmp_path, enabled):
    """``save`` writes with the cyclic garbage collector off (issue 37: its collections walked every object of
    the process while the figures were drawn) and gives it back as it found it, after a failure too."""
    import gc

    from fairstats.auditing import figures

    result = fairstats.audit(pd.read_csv(compas_csv), group="sex", y_true="y_true", y_pred="y_pred",
                             n_resamples=99)  # fmt: skip
    seen = []
    real = figures.report_figures

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    def fail(*args, **kwargs):
        seen.append(gc.isenabled())
        raise RuntimeError("a figure failed")

    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(figures, "report_figures", spy)
            result.save(tmp_path / "ok")
            assert gc.isenabled() is enabled
            mp.setattr(figures, "report_figures", fail)
            with pytest.raises(RuntimeError, match="a figure failed"):
                result.save(tmp_path / "failed")
            assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert seen == [False, False]
    assert (tmp_path / "ok" / "report.html").is_file() and not (tmp_path / "failed").exists()


def test_the_report_templates_are_compiled_once_per_process():
    """A second save reuses the compiled templates (issue 37): one environment per kind."""
    from fairstats.auditing.report import template_environment

    assert template_environment("md") is template_environment("md")
    assert template_environment("html") is template_environment("html")
    assert template_environment("md") is not template_environment("html")
