"""The API docs site: `make docs`'s Sphinx build passes with warnings as errors, documents every public name,
has the pages the issue asks for, its examples run, and it opens in headless Chromium with no broken link and
no missing image (the checks of tests/compendium/workflow/browser.py, as for the compendium's site)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from browser import check_in_browser, check_links, parse_links, screenshot
from repo_paths import ROOT

import fairstats

pytestmark = pytest.mark.e2e

DOCS = ROOT / "docs"
# Resources the docs may load from outside the site: none of their own (MathJax is served from the site,
# sphinx-mathjax-offline); the compendium's notebook pages load nbconvert's require.js (their MathJax is the
# results site's own copy, compendium.publish.notebook_html).
ALLOWED_EXTERNAL = ("https://cdnjs.cloudflare.com/ajax/libs/",)
METHOD_PAGES = ("equal-confusion", "fold-tests", "calibration", "mcnemar", "awareness")
# The manual that left the README (issue 38, item 5): the README links each of these pages' sources.
MANUAL_PAGES = ("audits", "hostile-input", "benchmarks", "reproduce", "results", "paper-b-conclusions",
                "teaching")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "html"
    # the same command as `make docs`, into a temporary folder
    res = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                          str(out)], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert res.returncode == 0, f"sphinx-build -W failed:\n{res.stdout[-4000:]}\n{res.stderr[-4000:]}"
    return out


def test_every_public_name_has_its_api_page(site):
    api = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (\w+)$", api, flags=re.M))
    public = set(fairstats.__all__)
    assert listed == public, f"not in api.rst: {public - listed}; not public: {listed - public}"
    for name in fairstats.__all__:
        page = site / "api" / "generated" / f"fairstats.{name}.html"
        assert page.is_file(), f"no API page for fairstats.{name}"
    # formulas and references come through from the docstrings
    ect = (site / "api" / "generated" / "fairstats.equal_confusion_test.html").read_text(encoding="utf-8")
    assert "Gursoy" in ect and 'class="math' in ect
    ttest = (site / "api" / "generated" / "fairstats.fold_ttest.html").read_text(encoding="utf-8")
    assert "Nadeau" in ttest


def test_the_guide_pages_are_there(site):
    for page in ("index", "getting-started", "api", "compendium", *(f"methods/{m}" for m in METHOD_PAGES),
                 *MANUAL_PAGES):
        assert (site / f"{page}.html").is_file(), f"no {page}.html"
    start = re.sub(r"<[^>]+>", "", (site / "getting-started.html").read_text(encoding="utf-8"))
    assert "pip install" in start and "fairstats audit" in start and "equal_confusion_test" in start
    # the compendium's rendered notebooks are linked, and copied into the site
    compendium = (site / "compendium.html").read_text(encoding="utf-8")
    for notebook in ("paper_a_equal_confusion", "paper_b_battery", "paper_b_table1", "beyond_the_papers"):
        assert f"{notebook}.html" in compendium
    assert (site / "compendium" / "index.html").is_file()


def test_the_getting_started_example_runs():
    # the Python blocks of the getting-started page, run as they are written
    text = (DOCS / "getting-started.rst").read_text(encoding="utf-8")
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text)
    assert blocks
    code = "\n".join("\n".join(line[3:] for line in block.splitlines()) for block in blocks)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "TP" in res.stdout and "pvalue_holm" in res.stdout


def test_the_site_opens_in_the_browser_with_every_link_and_image(site, tmp_path):
    pages, problems = check_links(site / "index.html", allowed_external=ALLOWED_EXTERNAL)
    assert problems == [], "\n".join(problems[:30])
    reached = {p.relative_to(site.resolve()).as_posix() for p in pages}
    assert {"getting-started.html", "api.html", "compendium.html", "compendium/index.html",
            "methods/equal-confusion.html", "api/generated/fairstats.equal_confusion_test.html"} <= reached
    # the hand-written pages and two API pages in Chromium: every image loads (the compendium's own pages
    # are opened by test_site_browser.py)
    sampled_api = ("fairstats.equal_confusion_test", "fairstats.EqualConfusionResult")
    top = {p: p.relative_to(site.resolve()).parts[0] for p in pages}
    own = [p for p in pages if p.suffix == ".html" and top[p] != "compendium"
           and (top[p] != "api" or p.stem in sampled_api)]
    assert len(own) >= 12
    assert check_in_browser(own, profile=tmp_path / "profile", every_page_checks=True) == []
    figure = site / "methods" / "equal-confusion.html"
    assert parse_links(figure).n_img >= 1  # the residual figure is shown ...
    width, _ = screenshot(site / "index.html", tmp_path / "index.png", width=1200, height=900,
                          profile=tmp_path / "profile")
    assert width == 1200


def test_make_docs_needs_not_the_compendiums_environment():
    """`make docs` builds in its own venv (.venv-docs: the library and its [docs] extra at the lock's
    versions), never through the compendium's venv (its lock install, its stamp)."""
    res = subprocess.run(["make", "-n", "-B", "docs"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert res.returncode == 0, res.stderr
    plan = res.stdout
    assert "-m venv .venv-docs" in plan and "-e '.[docs]'" in plan and "constraints.txt" in plan
    assert ".venv-docs/bin/sphinx-build -W" in plan
    assert "--require-hashes" not in plan and "install-project.sh" not in plan and ".venv/bin" not in plan
