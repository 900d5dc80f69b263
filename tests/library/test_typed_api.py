"""The public API is typed (issue 30, item 4): ``py.typed`` ships, and every function, method and property
that ``fairstats.__all__`` reaches annotates each parameter and its return, with annotations that resolve;
every dataclass field's type resolves too."""

import dataclasses
import inspect
import typing

import pytest
from matplotlib.figure import Figure
from repo_paths import ROOT

import fairstats

# names that public annotations import only for type checkers (``if TYPE_CHECKING:``), to resolve them here
TYPE_CHECKING_NAMES = {"Figure": Figure}


def _functions(obj: object, name: str):
    """``(qualified name, function, is_method)`` of a public function, or of a class's public methods and
    properties (its own and those it inherits from fairstats classes)."""
    if inspect.isfunction(obj):
        yield name, obj, False
        return
    if not inspect.isclass(obj) or not (obj.__module__ or "").startswith("fairstats"):
        return
    members: dict[str, object] = {}
    for klass in reversed(obj.__mro__):
        if (klass.__module__ or "").startswith("fairstats"):
            members.update(vars(klass))
    for attr, value in sorted(members.items()):
        if attr.startswith("_") and attr != "__init__":
            continue
        if attr == "__init__" and dataclasses.is_dataclass(obj):
            continue  # written by dataclasses from the annotated fields
        if isinstance(value, property):
            yield f"{name}.{attr}", value.fget, True
        elif isinstance(value, classmethod):
            yield f"{name}.{attr}", value.__func__, True
        elif isinstance(value, staticmethod):
            yield f"{name}.{attr}", value.__func__, False
        elif inspect.isfunction(value):
            yield f"{name}.{attr}", value, True


def _unannotated(function, is_method: bool) -> list[str]:
    parameters = list(inspect.signature(function).parameters.values())
    if is_method:
        parameters = parameters[1:]  # self / cls
    missing = [p.name for p in parameters if p.annotation is inspect.Parameter.empty]
    if inspect.signature(function).return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


PUBLIC = [
    (qualified, function, is_method)
    for name in fairstats.__all__
    for qualified, function, is_method in _functions(getattr(fairstats, name), name)
]


def test_the_walk_reaches_the_api():
    """the walk sees the public functions and the result classes' methods (a walk that finds nothing passes
    anything)"""
    names = {q for q, _, _ in PUBLIC}
    assert {"audit", "equal_confusion_test", "Counts.from_frame", "Audit.save", "Counts.n"} <= names
    assert len(PUBLIC) > 100


def test_every_public_function_and_method_annotates_its_parameters_and_return():
    missing = {q: m for q, f, is_method in PUBLIC if (m := _unannotated(f, is_method))}
    assert not missing, f"unannotated (parameter names, 'return'): {missing}"


def test_public_annotations_resolve():
    """each annotation names a type that exists (no stale name, no typo hidden by postponed evaluation)"""
    broken = {}
    for qualified, function, _ in PUBLIC:
        try:
            typing.get_type_hints(function, localns=TYPE_CHECKING_NAMES)
        except Exception as err:  # noqa: BLE001 - every failure is reported by name
            broken[qualified] = f"{type(err).__name__}: {err}"
    assert not broken, broken


@pytest.mark.parametrize(
    "name", [n for n in fairstats.__all__ if dataclasses.is_dataclass(getattr(fairstats, n))]
)
def test_dataclass_fields_are_typed(name):
    cls = getattr(fairstats, name)
    hints = typing.get_type_hints(cls, localns=TYPE_CHECKING_NAMES)
    for field in dataclasses.fields(cls):
        assert field.name in hints and hints[field.name] is not typing.Any, f"{name}.{field.name}"


def test_py_typed_ships_with_the_package():
    marker = ROOT / "src" / "fairstats" / "py.typed"
    assert marker.is_file()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "py.typed" in pyproject
