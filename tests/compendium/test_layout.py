"""The compendium laid out by what it does (issue 24): paper_a/, paper_b/, publish/, data/, course/; walls.

Arrows point one way: a paper's package may use ``publish`` (the published-vs-reproduced vocabulary) and
``data``; ``publish`` reads the files the papers write and imports neither; the two papers import each other
never; ``data`` imports no paper and nothing of ``publish``. One idea per file: none over 800 lines.
"""

import ast

from repo_paths import SRC

COMPENDIUM = SRC / "compendium"
PACKAGES = {"paper_a", "paper_b", "publish", "data", "course"}
#: package -> the compendium packages it must not import
WALLS = {
    "paper_a": {"paper_b"},
    "paper_b": {"paper_a"},
    "publish": {"paper_a", "paper_b"},
    "data": {"paper_a", "paper_b", "publish", "course"},
    "course": {"paper_a", "paper_b", "publish"},
}
MAX_LINES = 800


def _imported_packages(source: str) -> set[str]:
    """The compendium packages (``paper_b``, ``publish``, ...) a module's source imports, at any depth."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "compendium" and len(parts) > 1:
                found.add(parts[1])
    return found


def test_the_top_level_holds_the_packages_and_the_shared_checks_and_writer_only():
    modules = {p.stem for p in COMPENDIUM.glob("*.py")}
    packages = {p.parent.name for p in COMPENDIUM.glob("*/__init__.py")}
    assert modules == {"__init__", "_checks", "_files"}, sorted(modules)
    assert packages == PACKAGES, sorted(packages)


def test_no_package_crosses_a_wall():
    crossings = sorted(
        f"{path.relative_to(SRC)} imports compendium.{target}"
        for package, forbidden in WALLS.items()
        for path in sorted((COMPENDIUM / package).rglob("*.py"))
        for target in _imported_packages(path.read_text(encoding="utf-8")) & forbidden
    )
    assert not crossings, crossings


def test_the_walk_sees_every_kind_of_import():
    source = (
        "import compendium.paper_a.case_study\nfrom compendium import publish\n"
        "def f():\n    from compendium.paper_b.battery import run_battery\n"
        "from fairstats import paper_b\nfrom ._checks import require_table\n"
    )
    assert _imported_packages(source) == {"paper_a", "publish", "paper_b"}


def test_no_file_of_the_compendium_is_over_800_lines():
    long = {
        str(p.relative_to(SRC)): n
        for p in sorted(COMPENDIUM.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, long
