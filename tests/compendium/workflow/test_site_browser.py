"""The HTML site opens in a real browser (headless Chromium) with no broken link and no missing image.

Two sites are checked: one built here from a tiny results folder (the builder on its own, including a
deliberately broken image that the checks must catch), and the committed site of the default experiment,
``results/default/report/`` (what a reader opens). Chromium is a hard requirement: `make test`
(.ci/ensure-chromium.sh) installs the Debian package `chromium` when it is missing; without it these tests
fail, they never skip.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pandas as pd
from browser import check_in_browser, check_links, parse_links, render_dom, screenshot
from repo_paths import ROOT

from compendium.course.labs import LABS
from compendium.publish.notebook_html import MATHJAX, copy_mathjax, render_notebook
from compendium.publish.published import PVR_COLUMNS
from compendium.publish.reporting import write_table
from compendium.publish.site import build_site

COMMITTED_SITE = ROOT / "results" / "default" / "report"


# ---------------------------------------------------------------------------------------------- a tiny site


def _tiny_results(tmp_path: Path) -> tuple[Path, Path, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = tmp_path / "results" / "demo"
    site = results / "report"
    tables = results / "compas" / "tiny" / "tables"
    tests = pd.DataFrame({"grouping": ["sex"], "statistic": [12.5], "pvalue": [0.0002], "reject": [True]})
    write_table(tests, tables / "equal_confusion_tests.csv", title="Equal confusion tests <tiny>")
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    (site / "figures" / "compas" / "tiny").mkdir(parents=True)
    fig.savefig(site / "figures" / "compas" / "tiny" / "sex_residuals.png")
    plt.close(fig)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Tiny\n\n## Step 1\n\n$E = O$")])
    nb_path = tmp_path / "tiny.ipynb"
    nbformat.write(nb, nb_path)
    out_dir = site / "notebooks" / "compas" / "tiny"
    res = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", str(nb_path), "--output-dir",
                          str(out_dir), "--output", "tiny"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    pvr = pd.DataFrame([["A", "IV", "all", "TP", "346", 346.0, "rerun", True, ""],
                        ["B", "I", "LR", "Accuracy", "0.656", 0.6569, "rerun", False, "rounds to 0.657"]],
                       columns=PVR_COLUMNS)
    pvr_path = tmp_path / "results" / "pvr.csv"
    pvr.to_csv(pvr_path, index=False)
    (site / "workflow.html").write_text("<!DOCTYPE html><html><body>provenance</body></html>")
    course = site / "course"
    copy_mathjax(site / MATHJAX)
    render_notebook(nb_path, course / f"{LABS[0].stem}.html", site=site)  # as the workflow renders the labs
    nbformat.write(nb, course / f"{LABS[0].stem}.ipynb")
    return results, site, pvr_path


def test_a_built_site_loads_in_the_browser_and_a_broken_image_is_caught(tmp_path):
    results, site, pvr = _tiny_results(tmp_path)
    built = build_site(results, site, experiment="demo", published_vs_reproduced=pvr)
    assert built.stages == ("compas/tiny",) and built.n_figures == 1 and built.n_notebooks == 1
    assert built.n_labs == 1  # only the labs rendered into course/ are linked

    pages, problems = check_links(built.index)
    assert problems == []
    names = {p.relative_to(site.resolve()).as_posix() for p in pages}
    assert {"index.html", "pages/compas-tiny.html", "pages/published-vs-reproduced.html",
            "notebooks/compas/tiny/tiny.html", "workflow.html", "pages/course.html",
            f"course/{LABS[0].stem}.html"} <= names
    assert check_in_browser(pages, profile=tmp_path / "profile") == []
    # the lab's formula is typeset by the site's own MathJax (no CDN): offline it renders all the same
    lab = site / "course" / f"{LABS[0].stem}.html"
    assert "mathjax" not in " ".join(v for _, _, v in parse_links(lab).refs if v.startswith("http")).lower()
    assert "<mjx-container" in render_dom(lab, profile=tmp_path / "profile")
    index = built.index.read_text(encoding="utf-8")
    assert 'class="mismatch"' in index and "rounds to 0.657" in index  # the deviation, highlighted, with note
    assert "Equal confusion tests &lt;tiny&gt;" in index  # titles escaped, verdict table listed

    width, _ = screenshot(built.index, tmp_path / "index.png", width=1000, height=1400,
                          profile=tmp_path / "profile")
    assert width == 1000

    # the same checks fail on a missing image, statically and in the browser
    (site / "figures" / "compas" / "tiny" / "sex_residuals.png").unlink()
    _, problems = check_links(built.index)
    assert any("sex_residuals.png does not exist" in p for p in problems)
    broken = check_in_browser([built.index.resolve()], profile=tmp_path / "profile")
    assert len(broken) == 1 and "sex_residuals.png" in broken[0]

# -------------------------------------------------------------------------------------- the committed site


def test_committed_site_of_the_default_experiment_loads_with_every_link_and_image(tmp_path):
    index = COMMITTED_SITE / "index.html"
    assert index.is_file(), f"{index} is missing: run `make report` and commit results/default/report/"
    pages, problems = check_links(index)
    assert problems == [], "\n".join(problems)
    rel = {p.relative_to(COMMITTED_SITE.resolve()).as_posix() for p in pages}
    assert {"index.html", "pages/published-vs-reproduced.html", "workflow.html"} <= rel
    # the course: its page and every lab, rendered, reached from the index (and opened in the browser below)
    assert {"pages/course.html", *(f"course/{lab.stem}.html" for lab in LABS)} <= rel
    # every notebook and figure in the site folder is reachable from the index
    for nb in (COMMITTED_SITE / "notebooks").rglob("*.html"):
        assert nb.resolve() in pages, f"{nb} is not linked"
    shown = {v for p in pages for tag, _, v in parse_links(p).refs if tag == "img"}
    for fig in (COMMITTED_SITE / "figures").rglob("*.png"):
        fig_rel = fig.relative_to(COMMITTED_SITE).as_posix()
        assert any(v.endswith(fig_rel) for v in shown), f"{fig} is not shown"

    own = [p for p in pages if p.suffix == ".html" and p.name != "workflow.html"]
    assert check_in_browser(own, profile=tmp_path / "profile") == []
    # every notebook page typesets its formulas with the site's MathJax, never a CDN's (offline they render)
    for page in [p for p in pages if "/notebooks/" in p.as_posix() or "/course/" in p.as_posix()]:
        sources = [v for tag, _, v in parse_links(page).refs if tag == "script"]
        assert not any("mathjax" in v.lower() and v.startswith("http") for v in sources), page
        assert any(v.endswith(MATHJAX) for v in sources), f"{page} does not load the site's MathJax"
    lab = COMMITTED_SITE / "course" / f"{LABS[6].stem}.html"
    assert "<mjx-container" in render_dom(lab, profile=tmp_path / "profile")
    shot = tmp_path / "index.png"
    width, height = screenshot(index, shot, width=1280, height=2400, profile=tmp_path / "profile")
    assert (width, height) == (1280, 2400)


def test_committed_site_offers_the_committed_student_notebooks_and_no_solution():
    index = (COMMITTED_SITE / "index.html").read_text(encoding="utf-8")
    course = (COMMITTED_SITE / "pages" / "course.html").read_text(encoding="utf-8")
    assert 'id="course"' in index and 'href="pages/course.html"' in index
    for lab in LABS:
        offered = COMMITTED_SITE / "course" / f"{lab.stem}.ipynb"
        student = ROOT / "notebooks" / "course" / "student" / f"{lab.stem}.ipynb"
        assert offered.read_bytes() == student.read_bytes(), f"{offered} is stale: run `make report`"
        assert f'href="../course/{lab.stem}.html"' in course and lab.title in course
        html = (COMMITTED_SITE / "course" / f"{lab.stem}.html").read_text(encoding="utf-8")
        assert "answer_" in html and "BEGIN SOLUTION" not in html and "(instructor)" not in html


def test_committed_published_vs_reproduced_page_shows_every_row():
    page = (COMMITTED_SITE / "pages" / "published-vs-reproduced.html").read_text(encoding="utf-8")
    table = pd.read_csv(ROOT / "results" / "published-vs-reproduced.csv", dtype={"published": str})
    assert page.count('<tr class="match">') + page.count('<tr class="mismatch">') == len(table)
    mismatches = (~table["matches"].astype(str).str.lower().eq("true")).sum()
    assert page.count('<tr class="mismatch">') == mismatches
    assert f"{len(table)} numbers" in page  # the count stated in the text


def test_committed_site_is_in_step_with_the_committed_tables():
    # every table of every stage is on its stage's page with its current number of rows (else: `make report`)
    results = COMMITTED_SITE.parent
    for csv in sorted(results.glob("**/tables/*.csv")):
        stage = csv.parent.parent.relative_to(results).as_posix()
        if stage.split("/")[0] in ("logs", "benchmarks", "report"):
            continue
        page = COMMITTED_SITE / "pages" / (re.sub(r"[^a-z0-9]+", "-", stage.lower()).strip("-") + ".html")
        assert page.is_file(), f"no page for stage {stage}: run `make report`"
        n_rows = len(pd.read_csv(csv))
        assert f"<code>{csv.name}</code>, {n_rows} rows" in page.read_text(encoding="utf-8"), (
            f"{csv} ({n_rows} rows) is not on {page.name} as it is now: run `make report`"
        )
