"""The environments agree: the lock file, its input, pyproject.toml's ranges, environment.yml and the venv.

- ``requirements/compendium.lock.txt`` pins every package exactly, with hashes (what `make env` installs);
- every exact pin of ``requirements/compendium.in`` is the lock's version (run `make lock` after editing it);
- every locked version satisfies the library's ranges in ``pyproject.toml`` (core and extras), and the core
  requires no workflow or model package;
- ``environment.yml`` installs the same lock;
- the running environment has the locked versions installed (a stale .venv shows up here: `make env`).
"""

import re
import tomllib
from importlib import metadata

import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from repo_paths import ROOT

LOCK = ROOT / "requirements" / "compendium.lock.txt"
INPUT = ROOT / "requirements" / "compendium.in"
# Not in the library's core: the compendium's workflow, models and notebooks (issue 13).
NOT_IN_CORE = {"snakemake", "xgboost", "scikit-learn", "papermill", "jupyter", "jupyter-client", "ipykernel",
               "nbconvert", "matplotlib", "seaborn", "pyarrow"}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock_entries() -> list[tuple[str, str, str, list[str]]]:
    """(name, version, marker, hashes) per requirement of the lock (a package may have several markers)."""
    entries = []
    for block in re.split(r"\n(?=\S)", LOCK.read_text(encoding="utf-8")):
        first = block.splitlines()[0]
        if first.startswith("#") or not first.strip():
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)(?: ; (.+?))? \\", first)
        assert m, f"lock line not an exact pin: {first!r}"
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
        entries.append((_normalise(m.group(1)), m.group(2), m.group(3) or "", hashes))
    return entries


def _applies(marker: str) -> bool:
    return not marker or Marker(marker).evaluate()


def _locked_here() -> dict[str, str]:
    """The version the lock gives each package on this interpreter and platform."""
    return {name: version for name, version, marker, _ in _lock_entries() if _applies(marker)}


def _input_pins() -> dict[str, str | None]:
    pins = {}
    for line in INPUT.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            req = Requirement(line)
            spec = str(req.specifier)
            pins[_normalise(req.name)] = spec[2:] if spec.startswith("==") else None
    return pins


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_lock_pins_every_package_exactly_with_hashes():
    entries = _lock_entries()
    assert len(entries) > 100
    for name, _, _, hashes in entries:
        assert hashes, f"{name} has no --hash in the lock"


def test_lock_agrees_with_its_input():
    locked = _locked_here()
    for name, pin in _input_pins().items():
        assert name in locked, f"{name} (requirements/compendium.in) is not in the lock: run `make lock`"
        if pin is not None:
            assert locked[name] == pin, f"{name}: compendium.in pins {pin}, the lock has {locked[name]}"


def test_locked_versions_satisfy_the_library_ranges():
    project = _project()
    locked = _locked_here()
    extras = project["optional-dependencies"].values()
    specs = project["dependencies"] + [d for group in extras for d in group]
    for spec in specs:
        req = Requirement(spec)
        name = _normalise(req.name)
        assert name in locked, f"{name} (pyproject.toml) is not in the lock"
        assert req.specifier.contains(locked[name]), f"lock has {name}=={locked[name]}, pyproject asks {spec}"


def test_the_library_core_is_ranges_without_the_compendium():
    core = [Requirement(spec) for spec in _project()["dependencies"]]
    names = {_normalise(r.name) for r in core}
    assert {"numpy", "scipy", "pandas", "statsmodels"} <= names
    assert not names & NOT_IN_CORE, sorted(names & NOT_IN_CORE)
    for req in core:
        assert not str(req.specifier).startswith("=="), f"{req}: the library asks ranges, not exact pins"
        assert any(s.operator == ">=" for s in req.specifier), f"{req}: give a lower bound"


def test_environment_yml_installs_the_lock():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pip = [d for d in env["dependencies"] if isinstance(d, dict)]
    assert pip == [{"pip": ["-r requirements/compendium.lock.txt"]}]
    floor = _project()["requires-python"].removeprefix(">=")
    pythons = [d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python")]
    assert pythons and pythons[0].startswith(f"python>={floor}")


def test_the_running_environment_has_the_locked_versions():
    stale = {}
    for name, version in _locked_here().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            stale[name] = (version, installed)
    assert not stale, f"locked vs installed {stale}: run `make env` (or `make clean-env env`)"


def test_engine_extras_are_locked_and_spark_gets_java():
    """The [polars] and [spark] extras are ranges the lock satisfies, and `make test` installs Java for the
    Spark test (tests/library/test_engines_spark.py) before pytest runs."""
    extras = _project()["optional-dependencies"]
    locked = _locked_here()
    for extra, name in (("polars", "polars"), ("spark", "pyspark")):
        (req,) = [Requirement(spec) for spec in extras[extra]]
        assert _normalise(req.name) == name and not str(req.specifier).startswith("==")
        assert req.specifier.contains(locked[name]), (req, locked[name])
    recipe = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert recipe.index("bash .ci/ensure-java.sh") < recipe.index("-m pytest"), recipe
    assert (ROOT / ".ci" / "ensure-java.sh").is_file()
