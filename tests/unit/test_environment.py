"""pyproject.toml and environment.yml pin the same packages at the same versions."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject_pins() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] + [
        d for group in project["optional-dependencies"].values() for d in group
    ]
    pins = {}
    for spec in specs:
        name, version = spec.split("==")
        pins[_normalise(name)] = version
    return pins


def _conda_pins() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pins = {}
    for dep in env["dependencies"]:
        assert isinstance(dep, str), f"unexpected entry {dep!r} in environment.yml"
        if dep.startswith("python"):
            continue
        name, version = dep.split("==")
        pins[_normalise(name)] = version
    return pins


def test_every_dependency_is_pinned_exactly():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for spec in project["dependencies"]:
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][0-9A-Za-z.]*", spec), spec


def test_environment_yml_agrees_with_pyproject():
    assert _conda_pins() == _pyproject_pins()


def test_python_floor_agrees():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    floor = project["requires-python"].removeprefix(">=")
    assert f"python>={floor}" in env["dependencies"]
