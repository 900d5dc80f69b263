"""Headless Chromium and a static link crawler, for the HTML sites the tests open as a reader would: the
compendium's results site (test_site_browser.py) and the API docs (test_docs.py).

Chromium is a hard requirement: `make test` (.ci/ensure-chromium.sh) installs the Debian package `chromium`
when it is missing; without it these checks fail, they never skip.
"""

from __future__ import annotations

import base64
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

# Resources a page may load from outside the site: only nbconvert's require.js and mermaid (for widgets and
# diagrams, which these notebooks do not have; the formulas are typeset by the site's own MathJax,
# compendium.publish.notebook_html). Hyperlinks (<a href>) may go anywhere.
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


def parse_links(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def check_links(
    index: Path, *, allowed_external: tuple[str, ...] = ALLOWED_EXTERNAL_RESOURCES
) -> tuple[list[Path], list[str]]:
    """Crawl the site from ``index``: (pages reached, problems). Every local href/src must resolve to a file
    inside the site, every #fragment to an id in its page, every embedded image must be a PNG/JPEG/SVG;
    resources (not hyperlinks) from outside the site only from the ``allowed_external`` prefixes."""
    root = index.parent.resolve()
    todo, seen, problems = [index.resolve()], set(), []
    parsed: dict[Path, _Links] = {}

    def page_ids(p: Path) -> set[str]:
        if p not in parsed:
            parsed[p] = parse_links(p)
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
                if resource and not value.startswith(allowed_external):
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


def check_in_browser(pages: list[Path], *, profile: Path, every_page_checks: bool = False) -> list[str]:
    """Load every page in Chromium; pages built by compendium.publish.site (and the docs, through
    ``docs/_static/image-check.js``) report their images' load state. ``every_page_checks``: a page that does
    not report it is a problem (else it is taken for an nbconvert page, whose images are data: URIs)."""
    problems = []
    for page in pages:
        dom = render_dom(page, profile=profile)
        body = re.search(r"<body([^>]*)>", dom)
        assert body, f"{page}: no <body> in the rendered DOM"
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
        if "data-images" not in attrs:
            if every_page_checks or "data-images-broken" in page.read_text(encoding="utf-8"):
                problems.append(f"{page.name}: the image check did not run")
            continue  # an nbconvert page: its images are data: URIs, checked by check_links
        n_img = parse_links(page).n_img
        if attrs["data-images"] != str(n_img):
            problems.append(f"{page.name}: {attrs['data-images']} images rendered, {n_img} in the HTML")
        if attrs.get("data-images-broken") != "0":
            problems.append(f"{page.name}: images not loaded: {attrs.get('data-images-broken-src')}")
    return problems
