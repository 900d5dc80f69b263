"""Private names stay in their module (issue 38, item 2): no back doors.

A name that starts with one underscore belongs to the module that defines it. Walks every module of ``src/``
with ``ast`` and fails, naming the file, the line and the name, on

* ``from x import _name`` where ``x`` is another module of src/ (or a package whose ``_name`` is not a
  module): a private function, class or constant imported across modules;
* ``x._name`` where ``x`` is a module of src/ or a name imported from one (``Counts._aggregate`` in another
  module, ``fairstats.metrics._binary_iv``);
* in the compendium (``src/compendium``, the workflow's scripts, the notebooks): any import of fairstats'
  private modules or names (``fairstats._format``, ``fairstats.auditing._x``). The compendium uses the
  library's public API like any user; the library's shared private modules (``fairstats._validation``, ...)
  are for the library's own modules.

What is shared lives in a shared module below the families under a public, module-level name (not in
``fairstats.__all__``): ``fairstats._rows.two_group_rows``, ``fairstats._score_input.delong``,
``fairstats._validation.level_iv``, ``fairstats.auditing.writing.file_sha256``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from repo_paths import ROOT, SRC

PACKAGES = ("fairstats", "compendium")
#: Where the compendium's code lives besides src/compendium: the workflow's scripts and the notebooks.
COMPENDIUM_CODE = (ROOT / "workflow" / "scripts", ROOT / "notebooks")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def back_doors(module: str, source: str, modules: set[str], *, is_package: bool = False) -> list[str]:
    """``"line: what"`` for each private name of another module of ``modules`` that ``source`` (the text of
    ``module``) imports or reaches through an attribute."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    bound: dict[str, str] = {}  # local name -> the module of src/ or the module's name it stands for
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                bound[alias.asname or alias.name] = full
                if full in modules or not _private(alias.name) or base == module:
                    continue
                found.append(f"{node.lineno}: from {base} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    local = alias.asname or alias.name.split(".")[0]
                    bound[local] = alias.name if alias.asname else alias.name.split(".")[0]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        chain, root = [node.attr], node.value
        while isinstance(root, ast.Attribute):
            chain.append(root.attr)
            root = root.value
        if not isinstance(root, ast.Name) or root.id not in bound:
            continue
        full = ".".join([bound[root.id], *reversed(chain)])
        owner = full.rpartition(".")[0]
        if full in modules or owner == module:
            continue
        found.append(f"{node.lineno}: {ast.unparse(node)} ({full})")
    return found


def private_fairstats_imports(source: str) -> list[str]:
    """``"line: what"`` for each import of a private module or name of fairstats in compendium code."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "fairstats":
            names = [a.name for a in node.names]
            parts = (node.module or "").split(".")
            if any(_private(p) for p in parts) or any(_private(n) for n in names):
                found.append(f"{node.lineno}: from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "fairstats" and any(_private(p) for p in parts):
                    found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id == "fairstats":
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def _compendium_sources() -> list[tuple[str, str]]:
    """(where, Python source) of the compendium's code: its package, the scripts, the notebooks' cells."""
    package = sorted((SRC / "compendium").rglob("*.py"))
    out = [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in package]
    for folder in COMPENDIUM_CODE:
        for path in sorted(folder.rglob("*.py")):
            out.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
        for path in sorted(folder.rglob("*.ipynb")):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            for i, cell in enumerate(cells):
                if cell["cell_type"] != "code":
                    continue
                text = "".join(cell["source"])
                # IPython's magics and shell escapes are not Python
                lines = [line for line in text.splitlines() if not line.lstrip().startswith(("%", "!"))]
                out.append((f"{path.relative_to(ROOT)} cell {i}", "\n".join(lines)))
    return out


def test_no_private_name_crosses_a_module_of_src():
    modules = _modules()
    names = set(modules)
    found = [
        f"{path.relative_to(ROOT)}:{where}"
        for module, path in modules.items()
        for where in back_doors(module, path.read_text(encoding="utf-8"), names,
                                is_package=path.name == "__init__.py")
    ]  # fmt: skip
    assert not found, (
        "private names used outside their module (give the shared piece a public name in "
        f"a shared module): {found}"
    )


def test_the_compendium_uses_the_public_api_only():
    found = [f"{where}:{line}" for where, source in _compendium_sources()
             for line in private_fairstats_imports(source)]  # fmt: skip
    assert not found, f"the compendium imports fairstats' private modules or names: {found}"


def test_the_walk_reaches_every_kind_of_code():
    sources = dict(_compendium_sources())
    assert any(w.startswith("src/compendium/paper_b/") for w in sources)
    assert any(w.startswith("workflow/scripts/") for w in sources)
    assert any(".ipynb cell" in w for w in sources)
    assert "fairstats._rows" in _modules() and "fairstats.auditing.writing" in _modules()


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("from fairstats.groups import _prepare_iv\n", ["1: from fairstats.groups import _prepare_iv"]),
        ("from .groups import _Prepared as P\n", ["1: from fairstats.groups import _Prepared"]),
        (
            "from fairstats.counts import Counts\nCounts._aggregate(t)\n",
            ["2: Counts._aggregate (fairstats.counts.Counts._aggregate)"],
        ),
        (
            "import fairstats.metrics\nfairstats.metrics._binary_iv(x)\n",
            ["2: fairstats.metrics._binary_iv (fairstats.metrics._binary_iv)"],
        ),
        ("from fairstats import _rows\n_rows.two_group_rows(x)\n", []),  # a private module, public name
        ("from fairstats._format import plain as _plain\n", []),  # a public name under a private alias
        ("from fairstats._version import __version__\n", []),  # a dunder
        ("import numpy as np\nnp._NoValue\n", []),  # outside src/
        ("from fairstats.x import _own\n", []),  # the module's own name
    ],
)
def test_the_walk_catches_back_doors_and_only_those(source, caught):
    modules = {
        "fairstats",
        "fairstats.groups",
        "fairstats.counts",
        "fairstats.metrics",
        "fairstats._rows",
        "fairstats._format",
        "fairstats._version",
        "fairstats.x",
    }
    assert back_doors("fairstats.x", source, modules) == caught


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("from fairstats._format import plain\n", True),
        ("from fairstats.confusion import _options_iv\n", True),
        ("import fairstats._where\n", True),
        ("import fairstats\nfairstats._memo.forget()\n", True),
        ("from fairstats.confusion import equal_confusion_test\n", False),
        ("from fairstats import __version__\n", False),
    ],
)
def test_the_compendium_walk_catches_private_imports(source, caught):
    assert bool(private_fairstats_imports(source)) is caught
