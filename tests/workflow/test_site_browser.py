"""The HTML site opens in a real browser (headless Chromium) with no broken link and no missing image.

Two sites are checked: one built here from a tiny results folder (the builder on its own, including a
deliberately broken image that the checks must catch), and the committed site of the default experiment,
``results/default/report/`` (what a reader opens). Chromium is a hard requirement: `make test`
(.ci/ensure-chromium.sh) installs the Debian package `chromium` when it is missing; without it these tests
fail, they never skip.
"""

from __future__ import annotations

import base64
import re
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pandas as pd
import pytest

from compendium.published import PVR_COLUMNS
from compendium.site import build_site
from fairstats.reporting import write_table

ROOT = Path(__file__).resolve().parents[2]
COMMITTED_SITE = ROOT / "results" / "default" / "report"
# Resources a page may load from outside the site: only nbconvert's MathJax and require.js (formulas render
# when online; offline the notebook still reads, with the TeX source). Hyperlinks (<a href>) may go anywhere.
ALLOWED_EXTERNAL_RESOURCES = ("https://cdnjs.cloudflare.com/ajax/libs/",)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    pytest.fail(
        "headless Chromium is required by the site tests and was not found on PATH; install it with "
        "`apt-get install -y chromium` (`make test` does this through .ci/ensure-chromium.sh)"
    )


def _browser(url: str, *args: str, profile: Path) -> subprocess.CompletedProcess:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           f"--user-data-dir={profile}", "--virtual-time-budget=10000", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def render_dom(page: Path, *, profile: Path) -> str:
    """The page's DOM after loading and running its scripts (Chromium --dump-dom)."""
    res = _browser(page.resolve().as_uri(), "--dump-dom", profile=profile)
    assert res.returncode == 0, f"chromium failed on {page}: {res.stderr[-2000:]}"
    assert "</html>" in res.stdout, f"chromium returned no DOM for {page}: {res.stderr[-2000:]}"
    return res.stdout


def screenshot(page: Path, out: Path, *, width: int, height: int, profile: Path) -> tuple[int, int]:
    res = _browser(page.resolve().as_uri(), f"--screenshot={out}", f"--window-size={width},{height}",
                   profile=profile)
    assert res.returncode == 0 and out.is_file(), f"no screenshot of {page}: {res.stderr[-2000:]}"
    data = out.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{out} is not a PNG"
    return struct.unpack(">II", data[16:24])  # IHDR width, height


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()
        self.n_img = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "img":
            self.n_img += 1
        for key in ("href", "src"):
            if a.get(key) is not None:
                self.refs.append((tag, key, a[key]))


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def check_links(index: Path) -> tuple[list[Path], list[str]]:
    """Crawl the site from ``index``: (pages reached, problems). Every local href/src must resolve to a file
    inside the site, every #fragment to an id in its page, every embedded image must be a PNG/JPEG/SVG."""
    root = index.parent.resolve()
    todo, seen, problems = [index.resolve()], set(), []
    parsed: dict[Path, _Links] = {}

    def page_ids(p: Path) -> set[str]:
        if p not in parsed:
            parsed[p] = _parse(p)
        return parsed[p].ids

    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        page_ids(page)
        for tag, attr, value in parsed[page].refs:
            where = f"{page.relative_to(root)}: <{tag} {attr}={value[:80]!r}>"
            parts = urlsplit(value)
            if parts.scheme == "data":
                if tag == "img":
                    kind, _, payload = value[5:].partition(",")
                    if kind.startswith("image/png;base64") and base64.b64decode(payload)[:8] != PNG_MAGIC:
                        problems.append(f"{where}: embedded PNG does not decode")
                continue
            if parts.scheme in ("http", "https"):
                resource = not (tag == "a" and attr == "href")
                if resource and not value.startswith(ALLOWED_EXTERNAL_RESOURCES):
                    problems.append(f"{where}: loads an external resource")
                continue
            if parts.scheme in ("mailto",) or (tag == "a" and parts.scheme == "" and value == "#"):
                continue
            if parts.scheme or value.startswith("/"):
                problems.append(f"{where}: not a relative link")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_relative_to(root):
                problems.append(f"{where}: leaves the site folder")
                continue
            if not target.is_file():
                problems.append(f"{where}: {target.relative_to(root)} does not exist")
                continue
            if target.suffix == ".html":
                # as browsers do: the fragment as written, else percent-decoded (nbconvert's ids are encoded)
                if parts.fragment and not {parts.fragment, unquote(parts.fragment)} & page_ids(target):
                    problems.append(f"{where}: no id {parts.fragment!r} in {target.relative_to(root)}")
                todo.append(target)
    return sorted(seen), problems


def check_in_browser(pages: list[Path], *, profile: Path) -> list[str]:
    """Load every page in Chromium; pages built by compendium.site report their images' load state."""
    problems = []
    for page in pages:
        dom = render_dom(page, profile=profile)
        body = re.search(r"<body([^>]*)>", dom)
        assert body, f"{page}: no <body> in the rendered DOM"
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
        if "data-images" not in attrs:
            if "data-images-broken" in page.read_text(encoding="utf-8"):
                problems.append(f"{page.name}: the image check did not run")
            continue  # an nbconvert page: its images are data: URIs, checked by check_links
        n_img = _parse(page).n_img
        if attrs["data-images"] != str(n_img):
            problems.append(f"{page.name}: {attrs['data-images']} images rendered, {n_img} in the HTML")
        if attrs.get("data-images-broken") != "0":
            problems.append(f"{page.name}: images not loaded: {attrs.get('data-images-broken-src')}")
    return problems


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
    return results, site, pvr_path


def test_a_built_site_loads_in_the_browser_and_a_broken_image_is_caught(tmp_path):
    results, site, pvr = _tiny_results(tmp_path)
    built = build_site(results, site, experiment="demo", published_vs_reproduced=pvr)
    assert built.stages == ("compas/tiny",) and built.n_figures == 1 and built.n_notebooks == 1

    pages, problems = check_links(built.index)
    assert problems == []
    names = {p.relative_to(site.resolve()).as_posix() for p in pages}
    assert {"index.html", "pages/compas-tiny.html", "pages/published-vs-reproduced.html",
            "notebooks/compas/tiny/tiny.html", "workflow.html"} <= names
    assert check_in_browser(pages, profile=tmp_path / "profile") == []
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
    # every notebook and figure in the site folder is reachable from the index
    for nb in (COMMITTED_SITE / "notebooks").rglob("*.html"):
        assert nb.resolve() in pages, f"{nb} is not linked"
    shown = {v for p in pages for tag, _, v in _parse(p).refs if tag == "img"}
    for fig in (COMMITTED_SITE / "figures").rglob("*.png"):
        fig_rel = fig.relative_to(COMMITTED_SITE).as_posix()
        assert any(v.endswith(fig_rel) for v in shown), f"{fig} is not shown"

    own = [p for p in pages if p.suffix == ".html" and p.name != "workflow.html"]
    assert check_in_browser(own, profile=tmp_path / "profile") == []
    shot = tmp_path / "index.png"
    width, height = screenshot(index, shot, width=1280, height=2400, profile=tmp_path / "profile")
    assert (width, height) == (1280, 2400)


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
