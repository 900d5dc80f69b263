"""One definition each (issue 23): the shared pieces of src/fairstats have one home; no module is too long.

Walks every module of ``src/fairstats`` with ``ast`` and fails, naming the file and line, on a second
definition of: the ``rng`` check, the ``n_resamples`` check, ``_plain`` (numpy scalar to Python), the result
base, the level check (a number in (0, 1)), the ``alternative`` check, the file hash (issue 38), a warning
class outside :mod:`fairstats._warnings`, a hand-written check of ``n_resamples``, ``rng`` or a level, a file
hashed by hand, and on any file over 800 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "fairstats"
MAX_LINES = 800
# The one home of each shared piece: (module file, function or class name).
HOMES = {
    "rng check": ("_resampling.py", "rng_iv"),
    "resample-count check": ("_resampling.py", "n_resamples_iv"),
    "seed scheme": ("_resampling.py", "derived_rng"),
    "plain (numpy scalar to Python)": ("_format.py", "plain"),
    "p-value text": ("_format.py", "pvalue_text"),
    "result base": ("_result.py", "Result"),
    "level check (a number in (0, 1))": ("_validation.py", "level_iv"),
    "alternative check": ("_validation.py", "alternative_iv"),
    "file hash (SHA-256)": ("auditing/writing.py", "file_sha256"),
}
# Names another module must not define again (any spelling the code base has used for the same idea).
COPIES = {
    "rng check": {"rng_iv", "_rng_iv", "_check_rng"},
    "resample-count check": {"n_resamples_iv", "_n_resamples_iv", "_check_n_resamples"},
    "seed scheme": {"derived_rng", "task_rng"},
    "plain (numpy scalar to Python)": {"plain", "_plain"},
    "p-value text": {"pvalue_text", "_p", "p_text", "_p_text", "_pvalue_text"},
    "result base": {"Result", "_Result", "ResultBase"},
    "level check (a number in (0, 1))": {"level_iv", "_level_iv", "_check_level", "check_level"},
    "alternative check": {"alternative_iv", "_alternative_iv", "_check_alternative"},
    "file hash (SHA-256)": {"file_sha256", "_file_sha256", "_sha256", "sha256", "sha256sum"},
}
# (piece, module file): a second home kept, and why.
KEPT = {
    ("level check (a number in (0, 1))", "auditing/checks.py"): "the audit's options arrive as command-line "
    "text: checks.py parses them and words its messages for an option (`--alpha: must be ...`); the wing's "
    "one check of every option bound (issue 36 owns that module)",
}
WARNINGS_HOME = "_warnings.py"
WARNING_BASES = {"Warning", "UserWarning", "RuntimeWarning", "DeprecationWarning", "FutureWarning"}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


def _definitions(tree: ast.AST):
    """Every function and class defined in a module, at any depth: (node, name)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node


def _base_names(node: ast.ClassDef) -> set[str]:
    names = set()
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.add(base.id)
        elif isinstance(base, ast.Attribute):
            names.add(base.attr)
    return names


def _warning_classes(trees: dict[Path, ast.AST]) -> set[str]:
    """Names of the classes deriving (directly or through another class of the package) from a Warning."""
    bases = {n.name: _base_names(n) for tree in trees.values() for n in _definitions(tree)
             if isinstance(n, ast.ClassDef)}  # fmt: skip
    found = set(WARNING_BASES)
    changed = True
    while changed:
        changed = False
        for name, parents in bases.items():
            if name not in found and parents & found:
                found.add(name)
                changed = True
    return found - WARNING_BASES


@pytest.fixture(scope="module")
def trees() -> dict[Path, ast.AST]:
    return {path: ast.parse(path.read_text(encoding="utf-8"), filename=str(path)) for path in _modules()}


def test_each_shared_piece_is_defined_in_its_home(trees):
    by_file = {_name(p): {n.name for n in _definitions(t)} for p, t in trees.items()}
    for piece, (home, name) in HOMES.items():
        assert name in by_file[home], f"{piece}: {home} does not define {name}"


@pytest.mark.parametrize("piece", sorted(COPIES))
def test_no_second_definition(trees, piece):
    home, _ = HOMES[piece]
    seconds = [
        f"{_name(path)}:{node.lineno} defines {node.name}"
        for path, tree in trees.items()
        if _name(path) != home and (piece, _name(path)) not in KEPT
        for node in _definitions(tree)
        if node.name in COPIES[piece]
    ]
    assert not seconds, f"a second {piece} (its home is {home}): {seconds}"


def test_every_warning_class_lives_in_the_warnings_module(trees):
    warnings = _warning_classes(trees)
    assert {"SmallExpectedCountWarning", "BCaUndefinedWarning", "DuplicateColumnWarning"} <= warnings
    outside = [
        f"{_name(path)}:{node.lineno} defines {node.name}"
        for path, tree in trees.items()
        if _name(path) != WARNINGS_HOME
        for node in _definitions(tree)
        if isinstance(node, ast.ClassDef) and node.name in warnings
    ]
    assert not outside, f"warning classes outside fairstats/{WARNINGS_HOME}: {outside}"


def test_no_hand_written_resample_or_rng_check(trees):
    # `n_resamples < 1` (or <= 0 / >= 0 ...) compared in an `if`, or an isinstance test of `rng`, outside
    # the resampling module: the check written again instead of calling n_resamples_iv / rng_iv.
    found = []
    for path, tree in trees.items():
        if _name(path) == HOMES["rng check"][0] or _name(path).startswith("auditing/"):
            continue  # the audit's --n-resamples has its own documented bounds (99 to 1,000,000)
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in (
                "n_resamples",
            ) and all(isinstance(c, ast.Constant) and isinstance(c.value, int) for c in node.comparators):
                found.append(f"{_name(path)}:{node.lineno} compares n_resamples")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance"
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in ("rng", "n_resamples")
            ):
                found.append(f"{_name(path)}:{node.lineno} checks the type of {node.args[0].id}")
    assert not found, f"checks of rng / n_resamples outside fairstats/_resampling.py: {found}"


def _chained_unit_interval(node: ast.AST) -> bool:
    """``0 < x < 1``: a level checked by hand (``0 <= x < 1`` is not a level)."""
    return (
        isinstance(node, ast.Compare)
        and len(node.ops) == 2
        and all(isinstance(op, ast.Lt) for op in node.ops)
        and isinstance(node.left, ast.Constant)
        and node.left.value == 0
        and isinstance(node.comparators[1], ast.Constant)
        and node.comparators[1].value == 1
    )


def _new_file_digest(node: ast.AST) -> bool:
    """``hashlib.sha256()`` without data: a file hashed in blocks, by hand."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "sha256"
        and not node.args
    )


def test_no_hand_written_level_check_or_file_hash(trees):
    # `0 < alpha < 1` outside the validation module (the check written again instead of calling level_iv),
    # and a SHA-256 digest built block by block outside the wing's writer (instead of file_sha256)
    found = []
    for path, tree in trees.items():
        level = "level check (a number in (0, 1))"
        own = _name(path) == HOMES[level][0] or (level, _name(path)) in KEPT
        for node in ast.walk(tree):
            if _chained_unit_interval(node) and not own:
                found.append(f"{_name(path)}:{node.lineno} checks a level by hand")
            if _new_file_digest(node) and _name(path) != HOMES["file hash (SHA-256)"][0]:
                found.append(f"{_name(path)}:{node.lineno} hashes a file by hand")
    assert not found, found


def test_the_hand_written_checks_are_recognised():
    assert _chained_unit_interval(ast.parse("0 < alpha < 1", mode="eval").body)
    assert not _chained_unit_interval(ast.parse("0 <= rtol < 2", mode="eval").body)
    assert _new_file_digest(ast.parse("hashlib.sha256()", mode="eval").body)
    assert not _new_file_digest(ast.parse("hashlib.sha256(name.encode())", mode="eval").body)


def test_no_file_over_800_lines():
    lines = {_name(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules()}
    long = {name: n for name, n in lines.items() if n > MAX_LINES}
    assert not long, f"files over {MAX_LINES} lines (one idea per file): {long}"


def test_each_module_opens_with_its_idea(trees):
    missing = [_name(p) for p, t in trees.items() if p.name != "__main__.py" and not ast.get_docstring(t)]
    assert not missing, f"modules without a docstring saying their idea: {missing}"


def test_the_walk_would_catch_a_second_definition(tmp_path):
    # the checks above can fail: a module that writes _plain and a warning class again is found
    source = "def _plain(v):\n    return v\n\n\nclass OddWarning(UserWarning):\n    pass\n"
    tree = ast.parse(source)
    names = {n.name for n in _definitions(tree)}
    assert names & COPIES["plain (numpy scalar to Python)"] == {"_plain"}
    assert "OddWarning" in _warning_classes({tmp_path / "odd.py": tree})
