"""The README is a front door (issue 38, item 5): at most 15 KB, its quickstart (install, one CLI audit,
one library call, the two set-up commands) within the first 3 KB, exactly two set-up commands, every link to a
file of the repository alive, and its counts of the papers' printed numbers those of the committed summary.
The quickstart's blocks run as written in tests/compendium/workflow/test_wheel.py."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from repo_paths import ROOT

README = ROOT / "README.md"
KB = 1024


@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text(encoding="utf-8")


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_readme_is_at_most_15_kb_with_the_quickstart_in_its_first_3_kb(readme):
    size = len(readme.encode("utf-8"))
    assert size <= 15 * KB, f"README.md is {size:,} bytes, more than 15 KB: move the manual to docs/"
    quickstart = _section(readme, "Quickstart")
    end = len(readme[: readme.index(quickstart) + len(quickstart)].encode("utf-8"))
    assert end <= 3 * KB, f"the quickstart ends at byte {end:,}, after the first 3 KB"
    # what the quickstart holds: install, one CLI audit, one library call, the two set-up commands
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", quickstart, flags=re.M | re.S)
    languages = [language for language, _ in blocks]
    assert languages.count("python") == 1
    assert any(code.startswith("pip install ") for _, code in blocks)
    assert sum(code.startswith("fairstats audit ") for _, code in blocks) == 1
    assert any("fairstats.audit(" in code for language, code in blocks if language == "python")
    assert "<!-- readme-cli-example" in quickstart and "<!-- readme-library-example" in quickstart


def test_the_readme_keeps_exactly_the_two_set_up_commands(readme):
    commands = [
        line.split("#")[0].strip()
        for language, code in re.findall(r"^```(\w*)\n(.*?)^```$", readme, flags=re.M | re.S)
        if language in ("bash", "sh", "console", "")
        for line in code.splitlines()
        if line.strip().startswith("make")
    ]
    assert commands == ["make reproduce", "make test"]


def test_every_link_of_the_readme_to_the_repository_exists(readme):
    targets = re.findall(r"\]\(([^)#\s]+)\)", readme)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert len(local) >= 10  # the results, the results site, the docs pages, LICENSE, CITATION.cff, ...
    missing = [t for t in local if not (ROOT / t).exists()]
    assert missing == [], missing
    for page in ("getting-started", "reproduce", "results", "paper-b-conclusions", "audits", "compendium"):
        assert f"docs/{page}.rst" in local, f"the README does not link docs/{page}.rst"
    assert "results/published-vs-reproduced.csv" in local
    assert "results/default/report/index.html" in local


def test_the_readmes_counts_of_printed_numbers_are_the_committed_ones(readme):
    """'Of paper B's 276 printed numbers, 116 are exact, ...': the by-number summary, summed over tables."""
    summary = pd.read_csv(ROOT / "results" / "default" / "published-vs-reproduced-by-number-summary.csv")
    totals = summary.groupby("paper").sum(numeric_only=True)
    a = re.search(r"Of paper A's (\d+) printed numbers \(.*?\), all (\d+) are exact", readme, flags=re.S)
    assert a, "the README states no count of paper A's printed numbers"
    assert int(a[1]) == int(a[2]) == totals.loc["A", "numbers"] == totals.loc["A", "exact"]
    b = re.search(
        r"Of paper B's (\d+) printed numbers, (\d+) are exact, (\d+) saturated,\s+(\d+) circular, "
        r"(\d+) differ with a computed cause, (\d+) is impossible and \*\*(\d+) are unexplained\*\*",
        readme,
    )
    assert b, "the README states no count of paper B's printed numbers"
    columns = ["numbers", "exact", "saturated", "circular", "differs", "impossible", "unexplained"]
    assert [int(x) for x in b.groups()] == [int(totals.loc["B", c]) for c in columns]
    assert totals.loc["B", "not computable"] == 0  # the README names no such class for paper B


def test_the_getting_started_page_shows_the_quickstarts_audit_and_its_output(readme):
    """docs/getting-started.rst explains the quickstart's COMPAS audit: the same command and the same output
    (the README's, which test_wheel.py checks against a run)."""
    quickstart = _section(readme, "Quickstart")
    command, output = (
        code for _, code in re.findall(r"^```(\w*)\n(.*?)^```$", quickstart, flags=re.M | re.S)[1:3]
    )
    page = (ROOT / "docs" / "getting-started.rst").read_text(encoding="utf-8")
    for block in (command, output):
        assert "".join(f"   {line}\n" for line in block.splitlines()) in page, block
