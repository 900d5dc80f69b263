"""The wall between the two sides of the suite: nothing the library's tests load imports the compendium.

The library's tests run against the fairstats wheel installed alone (``make test``: ``.ci/library-tests.sh``),
where ``compendium`` does not exist; this walks the syntax trees of every file they load (``tests/library/``
and the shared ``tests/conftest.py``, ``tests/repo_paths.py``, ``tests/people.py``) so that a compendium
import is caught here, in either venv, not only as an ImportError in the wheel's.
"""

import ast

from repo_paths import ROOT

TESTS = ROOT / "tests"
SHARED = ("conftest.py", "repo_paths.py", "people.py")
LOADED = sorted((TESTS / "library").rglob("*.py")) + [TESTS / name for name in SHARED]
DYNAMIC = {"import_module", "__import__", "importorskip"}


def compendium_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import of ``compendium`` in ``source``: ``import``, ``from ... import`` and
    dynamic imports by name (``importlib.import_module``, ``__import__``, ``pytest.importorskip``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in DYNAMIC and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        found += [(node.lineno, n) for n in names if n == "compendium" or n.startswith("compendium.")]
    return sorted(found)


def test_the_walk_sees_every_kind_of_import():
    source = (
        "import compendium\nfrom compendium.paper_b import battery\nimport importlib\n"
        "def f():\n    import compendium.data.nij as n\n"
        "    return importlib.import_module('compendium.site')\n"
        "import compendiums\nfrom fairstats import compendium\n"
    )
    assert [m for _, m in compendium_imports(source)] == [
        "compendium", "compendium.paper_b", "compendium.data.nij", "compendium.site"
    ]  # fmt: skip


def test_no_library_test_imports_the_compendium():
    assert len(LOADED) > 50  # the walk sees the library's tests (a wrong path would make this pass vacuously)
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in LOADED
        for line, module in compendium_imports(path.read_text(encoding="utf-8"))
    ]
    assert not found, found
