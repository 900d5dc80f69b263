"""compendium.publish.site: HTML tables, the published-vs-reproduced rendering, captions, the site builder."""

import re

import pandas as pd
import pytest

from compendium.publish.published import PVR_COLUMNS
from compendium.publish.reporting import write_table
from compendium.publish.site import (
    build_site,
    figure_caption,
    html_table,
    published_vs_reproduced_html,
    stage_title,
)


def _pvr():
    return pd.DataFrame(
        [["A", "IV", "all", "TP", "346", 346.0, "rerun", True, ""],
         ["B", "I", "LR", "Accuracy", "0.656", 0.656893, "authors-per-fold", False, "rounds to 0.657"],
         ["B", "I", "LDA", "Accuracy", "0.715", 0.71499, "authors-per-fold", "True", ""]],
        columns=PVR_COLUMNS,
    )


def test_html_table_escapes_formats_and_marks_findings():
    frame = pd.DataFrame({"group": ["<b>x</b>", "y"], "pvalue": [1.23456789e-12, 0.5], "n": [10, 20],
                          "reject": [True, False]})
    out = html_table(frame)
    assert "&lt;b&gt;x&lt;/b&gt;" in out and "<b>x</b>" not in out
    assert ">1.23457e-12<" in out and ">0.5<" in out and '<td class="num">10</td>' in out
    assert out.count('class="finding"') == 1  # reject True only


def test_html_table_says_how_many_rows_it_left_out():
    out = html_table(pd.DataFrame({"a": range(10)}), max_rows=3)
    assert out.count("<tr>") == 4 and "First 3 of 10 rows" in out  # header + 3 rows


def test_html_table_validates():
    with pytest.raises(TypeError, match="frame"):
        html_table([1, 2])
    with pytest.raises(ValueError, match="row_classes: 1 classes for 2 rows"):
        html_table(pd.DataFrame({"a": [1, 2]}), row_classes=["x"])
    with pytest.raises(ValueError, match="max_rows"):
        html_table(pd.DataFrame({"a": [1]}), max_rows=0)


def test_published_vs_reproduced_highlights_mismatches_with_their_notes():
    out = published_vs_reproduced_html(_pvr())
    assert out.count('<tr class="mismatch">') == 1 and out.count('<tr class="match">') == 2
    assert "rounds to 0.657" in out and "0.656893" in out
    only = published_vs_reproduced_html(_pvr(), only_mismatches=True)
    assert only.count("<tr class=") == 1 and "LDA" not in only
    assert "<th>class</th>" not in out  # shown only where the table has it


def test_published_vs_reproduced_shows_class_before_the_note_and_evidence_after():
    table = _pvr().assign(**{"class": ["exact", "differs", "exact"], "evidence": ["", "results/x.csv", ""]})
    heads = re.findall(r"<th>([^<]+)</th>", published_vs_reproduced_html(table))
    assert heads[heads.index("matches") + 1 : heads.index("matches") + 4] == ["class", "note", "evidence"]
    assert "results/x.csv" in published_vs_reproduced_html(table)


def test_published_vs_reproduced_names_a_missing_column():
    with pytest.raises(ValueError, match="'note'"):
        published_vs_reproduced_html(_pvr().drop(columns="note"))


def test_captions_and_titles():
    assert "grouping 'sex_race'" in figure_caption("x/sex_race_residuals.png")
    assert figure_caption("figures/some_new_plot.png") == "Some new plot."
    assert "filter preset 'violent_high_only'" in stage_title("compas/violent_high_only")
    assert "authors' committed" in stage_title("nij/authors")
    assert stage_title("other/thing") == "other/thing"


def test_build_site_is_deterministic_and_links_every_table(tmp_path):
    results = tmp_path / "results" / "demo"
    tests = pd.DataFrame({"grouping": ["sex"], "pvalue": [0.01]})
    write_table(tests, results / "compas/f/tables/equal_confusion_tests.csv", title="Tests")
    write_table(pd.DataFrame({"x": [1]}), results / "nij/clean/tables/table1.csv")
    (results / "logs/compas").mkdir(parents=True)
    (results / "logs/compas/tables").mkdir()  # logs are never a stage
    pvr = tmp_path / "pvr.csv"
    _pvr().to_csv(pvr, index=False)
    site = results / "report"
    first = build_site(results, site, experiment="demo", published_vs_reproduced=pvr)
    snapshot = {p: p.read_bytes() for p in (first.index, *first.pages)}
    second = build_site(results, site, experiment="demo", published_vs_reproduced=pvr)
    assert {p: p.read_bytes() for p in (second.index, *second.pages)} == snapshot
    assert first.stages == ("compas/f", "nij/clean")
    assert (first.n_tables, first.n_figures, first.n_notebooks) == (2, 0, 0)
    assert (first.n_published, first.n_matching) == (3, 2)
    assert list(first.to_frame()["page"]) == ["index.html", "pages/compas-f.html", "pages/nij-clean.html",
                                               "pages/published-vs-reproduced.html"]
    index = first.index.read_text()
    assert 'href="pages/compas-f.html#table-equal-confusion-tests"' in index  # listed as a verdict, too
    assert 'id="verdicts"' in index and 'id="deviations"' in index


def test_the_published_vs_reproduced_page_counts_each_printed_number_by_its_best_class(tmp_path):
    results = tmp_path / "results" / "demo"
    write_table(pd.DataFrame({"x": [1]}), results / "nij/clean/tables/table1.csv")
    classes = {"class": ["exact", "unexplained", "exact"], "evidence": ["", "results/x.csv", ""]}
    table = _pvr().assign(**classes)
    # a second source of Table I's LR number that explains it: the number's best class is differs
    other = table.iloc[[1]].assign(source="rerun", **{"class": "differs"})
    pvr = tmp_path / "pvr.csv"
    pd.concat([table, other], ignore_index=True).to_csv(pvr, index=False)
    site = build_site(results, results / "report", experiment="demo", published_vs_reproduced=pvr)
    page = (results / "report/pages/published-vs-reproduced.html").read_text()
    assert site.n_published == 4 and "by the best class any source gives them" in page
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, flags=re.S)
    cells = [re.findall(r"<td[^>]*>([^<]*)</td>", r) for r in rows]
    b = next(c for c in cells if c[:3] == ["B", "I", "2"])  # two printed numbers of Table I
    assert b[3:] == ["1", "0", "0", "0", "1", "0", "0"]  # LDA exact, LR differs


def test_build_site_without_a_published_table(tmp_path):
    results = tmp_path / "r"
    write_table(pd.DataFrame({"x": [1]}), results / "compas/f/tables/t.csv")
    built = build_site(results, results / "report", experiment="demo")
    assert built.n_published == 0
    assert "no published-vs-reproduced table" in built.index.read_text()


def test_build_site_validates_its_inputs(tmp_path):
    with pytest.raises(ValueError, match="results_dir: folder"):
        build_site(tmp_path / "nope", tmp_path / "site", experiment="x")
    with pytest.raises(ValueError, match="published_vs_reproduced: file"):
        build_site(tmp_path, tmp_path / "site", experiment="x", published_vs_reproduced=tmp_path / "no.csv")
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"paper": ["A"]}).to_csv(bad, index=False)
    with pytest.raises(ValueError, match="has no column 'table'"):
        build_site(tmp_path, tmp_path / "site", experiment="x", published_vs_reproduced=bad)


def test_every_caption_is_plain_restructuredtext():
    # `snakemake --report` renders the captions (workflow/report/figure.rst) as reStructuredText: a stray | or
    # trailing _ would be markup and print an error into the report.
    import io
    import re

    from docutils.core import publish_parts

    from compendium.publish.site import FIGURE_CAPTIONS

    for pattern, text in FIGURE_CAPTIONS:
        errors = io.StringIO()
        publish_parts(re.sub(r"\{\w+\}", "sex_race", text), writer="html",
                      settings_overrides={"warning_stream": errors})
        assert errors.getvalue() == "", f"{pattern}: {errors.getvalue()}"
