"""The audit report's score-test and regression sections (issue 26): the tables and figures are in the
report (HTML and Markdown), data strings stay text, every figure says in words what it shows, the figures
are in the manifest; ``--json`` and ``--fail-on disparity`` work with ``--task regression``."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats.auditing.cli import main
from fairstats.auditing.folder import MANIFEST

HOSTILE = ("<b>x</b>", "=1+1")  # would be bold in HTML / Markdown, a formula in a spreadsheet


class _Page(HTMLParser):
    """The images (src, alt), the ids and the text of the score section of a report."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.images: list[tuple[str, str]] = []
        self.ids: set[str] = set()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "img":
            self.images.append((a.get("src", ""), a.get("alt", "")))


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def _alt_ok(src: str, alt: str) -> bool:
    """An alt text that says what the figure shows: words, not the file's name."""
    return len(alt) > 60 and src not in alt and not alt.lower().endswith(".png") and " by " in alt


def _no_raw_markup(html: str) -> None:
    # the hostile names only ever appear escaped: no <b> element, and the name as text
    assert "<b>x</b>" not in html and "<b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html


def _markdown_outside_code(md: str) -> str:
    return re.sub(r"(`+)(?:(?!\1).)*?\1", "", md)


@pytest.fixture(scope="module")
def score_audit(tmp_path_factory):
    """A seeded score audit (900 people, three groups, one miscalibrated), saved once."""
    rng = np.random.default_rng(2604)
    n = 900
    g = rng.choice(["a", *HOSTILE], n, p=[0.5, 0.25, 0.25])
    p = rng.uniform(0.05, 0.95, n).round(3)
    y = (rng.random(n) < np.where(g == "=1+1", p**0.5, p)).astype(int)
    frame = pd.DataFrame({"g": g, "y": y, "pred": (p > 0.5).astype(int), "s": p})
    result = fairstats.audit(frame, group="g", y_true="y", y_pred="pred", y_score="s", n_resamples=99)
    out = tmp_path_factory.mktemp("scores") / "out"
    result.save(out)
    return result, out


def test_score_audit_writes_its_figures_and_lists_them(score_audit):
    result, out = score_audit
    assert (out / "roc_g.png").is_file() and (out / "calibration_g.png").is_file()
    manifest = json.loads((out / MANIFEST).read_text())["files"]
    assert {"roc_g.png", "calibration_g.png", "score_tests.csv", "score_groups.csv"} <= set(manifest)
    groups = pd.read_csv(out / "score_groups.csv", keep_default_na=False)
    assert len(groups) == 3 and (groups["ici"].astype(float) >= 0).all()
    assert set(groups["group"]) == {"a", "<b>x</b>", "'=1+1"}  # the CSV defuses the would-be formula
    curves = result.score_curves["g"]
    assert curves.shown[0] == curves.reference == "a" and curves.total == 3
    assert np.isfinite(curves.roc["band_low"]).all() and (curves.calibration["band_low"].notna()).all()


def test_report_html_has_the_score_section_escaped(score_audit):
    result, out = score_audit
    html = (out / "report.html").read_text()
    page = _parse(html)
    assert {"scores", "scores-1"} <= page.ids
    _no_raw_markup(html)
    section = html[html.index('<h2 id="scores">'):html.index("<h2>Methods</h2>")]
    assert 'class="comparisons scoretests"' in section
    # one row per comparison of score_tests.csv, then one ICI row per group with no verdict
    assert section.count("<tr style=") == len(result.score_tests) + 3
    assert section.count(">estimate only</td>") == 3
    assert section.count('class="v-disparity"') == int((result.score_tests["verdict"] == "disparity").sum())
    assert "<code>=1+1</code>" in section and "<code>&lt;b&gt;x&lt;/b&gt;</code>" in section
    # the first screen names the score tests
    verdicts = html[html.index("<h2>Verdicts</h2>"):html.index('<div class="scroll">')]
    assert "The score &#39;s&#39; was tested too" in verdicts
    figures = [(src, alt) for src, alt in page.images if src.startswith(("roc_", "calibration_"))]
    assert sorted(src for src, _ in figures) == ["calibration_g.png", "roc_g.png"]
    for src, alt in page.images:
        assert _alt_ok(src, alt), (src, alt)
    roc_alt = dict(figures)["roc_g.png"]
    assert roc_alt.startswith("ROC curves by g") and "<b>x</b>" in roc_alt  # alt is text, escaped by HTML
    assert "ICI" in dict(figures)["calibration_g.png"]


def test_report_md_has_the_score_section_escaped(score_audit):
    _, out = score_audit
    md = (out / "report.md").read_text()
    assert "## Score tests of `s`" in md and "### Scores by `g`, compared with `a`" in md
    assert "| `=1+1` | `calibration` | `a` |" in md
    assert "<b>" not in _markdown_outside_code(md)  # the name is inline code or backslash-escaped
    images = re.findall(r"!\[(.*?)\]\(([^)]+)\)", md)
    assert {"roc_g.png", "calibration_g.png"} <= {src for _, src in images}
    for alt, src in images:
        assert len(alt) > 60 and src not in alt


def test_audit_object_shows_the_score_tests(score_audit):
    result, _ = score_audit
    assert "score tests of s (score_tests.csv, Holm over the file)" in result.summary()
    shown = result._repr_html_()
    assert "<h4>score_tests</h4>" in shown and "<h4>score_groups</h4>" in shown
    assert "<b>x</b>" not in shown and "&lt;b&gt;x&lt;/b&gt;" in shown
    record = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert {row["group"] for row in record["score_groups"]} == {"a", "<b>x</b>", "=1+1"}
    assert "score_tests" in record["verdicts"]


def _regression_csv(path, bias: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 300
    g = np.repeat(["a", *HOSTILE], [n + 50, n, n])  # a, the largest, is the reference
    y = rng.normal(50, 10, g.size)
    pred = y + rng.normal(0, 5, g.size) + np.where(g == "=1+1", bias, 0.0)
    pd.DataFrame({"g": g, "y": y, "pred": pred}).to_csv(path, index=False)


@pytest.mark.parametrize(("bias", "seed"), [(3.0, 2611), (0.0, 2612)])
def test_regression_json_and_fail_on(tmp_path, capsys, bias, seed):
    """--json parses with --task regression; --fail-on disparity exits 3 exactly when regression_tests.csv
    holds a disparity (the planted bias of 3, sd 5, in one group of 300), 0 otherwise (equal groups)."""
    path = tmp_path / "reg.csv"
    _regression_csv(path, bias, seed)
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "pred", "--task",
                 "regression", "--regression-margin", "1", "--n-resamples", "199", "--json",
                 "--fail-on", "disparity", "--out", str(tmp_path / "o")])
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    table = pd.read_csv(tmp_path / "o" / "regression_tests.csv", keep_default_na=False)
    flagged = table["verdict"] == "disparity"
    assert code == (3 if flagged.any() else 0), captured.err
    assert record["task"] == "regression" and record["has_disparity"] == bool(flagged.any())
    assert record["groupings"][0]["reference"] == "a"
    if bias:
        assert set(table.loc[flagged, "group"]) == {"'=1+1"}
        assert {d["group"] for d in record["disparities"]["regression_tests"]} == {"=1+1"}
    else:
        assert not flagged.any() and record["disparities"] == {}


def test_regression_report_sections_figures_escaped(tmp_path, capsys):
    path = tmp_path / "reg.csv"
    _regression_csv(path, 3.0, 2611)
    code = main(["audit", str(path), "--group", "g", "--y-true", "y", "--y-pred", "pred", "--task",
                 "regression", "--n-resamples", "99", "--out", str(tmp_path / "o")])
    assert code == 0, capsys.readouterr().err
    out = tmp_path / "o"
    html, md = (out / "report.html").read_text(), (out / "report.md").read_text()
    page = _parse(html)
    assert "grouping-1" in page.ids and 'class="comparisons regression"' in html
    _no_raw_markup(html)
    assert html.count("<tr style=") == 8  # 2 groups x (mean residual, MAE, RMSE, residual distribution)
    assert page.images == [("residual_distributions_g.png", page.images[0][1])]
    src, alt = page.images[0]
    assert _alt_ok(src, alt) and alt.startswith("Residual distributions by g") and "Median residuals" in alt
    assert (out / src).is_file() and src in json.loads((out / MANIFEST).read_text())["files"]
    assert "## By `g`" in md and "| `=1+1` | `mean_residual` |" in md
    assert "<b>" not in _markdown_outside_code(md)
    assert "Groups with a disparity: =1+1 (g)." in html
