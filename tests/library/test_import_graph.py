"""The import graph of src/ has no cycle, the statistics never import the audit wing, and `import fairstats`
does not load the wing (issue 22: layers without loops)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

from repo_paths import ROOT, SRC

WING = "fairstats.auditing"
# Modules of fairstats outside the wing that may import it: the package (lazily, in __getattr__) and
# `python -m fairstats`.
WING_USERS = {"fairstats", "fairstats.__main__"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module of src/ that ``name`` (a module or a module's attribute) is, or None (outside src/)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> modules of src/ it imports: ``import x`` and ``from x import y`` (y a module or a name),
    relative imports, at any depth (function-level imports included)."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names]
            for target in targets:
                found = _resolve(target, modules)
                if found is not None and found != module:
                    graph[module].add(found)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle ``[a, b, ..., a]``, or None (depth-first search, sorted order: deterministic)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_find_cycle_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_import_graph_sees_every_kind_of_import():
    modules = _modules()
    graph = import_graph(modules)
    assert "fairstats.auditing.result" in graph["fairstats"]  # `from package import module`, in a function
    # function-level `from x import y` imports are edges (result imports levels inside a function)
    assert "fairstats.auditing.levels" in graph["fairstats.auditing.result"]
    assert "fairstats._format" in graph["fairstats.search"]


def test_src_has_no_import_cycle():
    cycle = find_cycle(import_graph(_modules()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_statistics_module_imports_the_audit_wing():
    graph = import_graph(_modules())
    offenders = sorted(
        f"{m} imports {t}"
        for m, targets in graph.items()
        if m.startswith("fairstats") and not m.startswith(WING) and m not in WING_USERS
        for t in targets
        if t.startswith(WING)
    )
    assert not offenders, offenders


def test_no_audit_module_left_at_the_top():
    left = sorted(p.name for p in (SRC / "fairstats").glob("audit*.py"))
    assert not left, f"audit modules outside fairstats/auditing: {left}"


def test_import_fairstats_does_not_load_the_wing_until_audit_is_used():
    code = (
        "import json, sys; import fairstats; "
        "before = sorted(m for m in sys.modules if m.startswith('fairstats'));"
        " fairstats.audit; after = 'fairstats.auditing.result' in sys.modules;"
        " print(json.dumps([before, after]))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    before, after = json.loads(res.stdout)
    assert not [m for m in before if m.startswith(WING)], before
    assert after
