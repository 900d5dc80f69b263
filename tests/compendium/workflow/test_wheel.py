"""The fairstats wheel, as a user gets it: built from the library's files alone, holding no compendium
module, installed alone in a fresh virtual environment without the compendium's packages; the equal confusion
test works there, and ``fairstats audit`` works once the ``[audit]`` extra is installed; the README's
quickstart (its CLI audit and its library call) runs there as written.

The packages come from a wheelhouse kept in ``.venv/wheelhouse/<key>/`` (downloaded once from the package
registry with ``pip download``, at the lock's versions; the key changes when the lock or pyproject.toml does),
then every install is ``--no-index --find-links`` from it: a rerun needs no network and takes about a minute.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from packaging.markers import Marker
from repo_paths import ROOT
from scipy.stats import chi2_contingency

pytestmark = pytest.mark.e2e

LOCK = ROOT / "requirements" / "compendium.lock.txt"
VERSION = "0.2.0"
# What the library must never bring along (issue 13): the workflow, models and notebooks.
FORBIDDEN = {"snakemake", "xgboost", "scikit-learn", "papermill", "jupyter-client", "jupyter-core",
             "ipykernel", "nbconvert", "notebook", "jupyterlab"}
# The compendium's modules: none may be in the wheel, under any package.
COMPENDIUM_MODULES = {"compendium", "paper_a", "battery", "authors", "crossval", "models", "site",
                      "published", "compas", "nij", "download"}


def _pip(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    res = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, cwd=cwd,
                         timeout=900)
    assert res.returncode == 0, f"pip {' '.join(args)} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # build from a copy of the library's own files: the wheel needs nothing else of the repository, and the
    # build leaves nothing (build/, *.egg-info) in the checkout
    src = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "src" / "fairstats", src / "src" / "fairstats",
                    ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path_factory.mktemp("dist")
    _pip("wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(dist), ".", cwd=src)
    wheels = sorted(dist.glob("*.whl"))
    assert [w.name for w in wheels] == [f"fairstats-{VERSION}-py3-none-any.whl"]
    return wheels[0]


@pytest.fixture(scope="module")
def wheelhouse(wheel) -> Path:
    """Wheels of fairstats[audit]'s requirements at the lock's versions (downloaded once, then reused)."""
    key = hashlib.sha256(LOCK.read_bytes() + (ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    house = ROOT / ".venv" / "wheelhouse" / key
    if not (house / ".complete").is_file():
        for old in house.parent.glob("*"):  # wheelhouses of earlier locks (this test wrote them)
            shutil.rmtree(old)
        house.mkdir(parents=True)
        pins = []
        for first in re.findall(r"^([A-Za-z0-9_.\-]+==\S+?)(?: ; (.+?))? \\$", LOCK.read_text(), re.M):
            if not first[1] or Marker(first[1]).evaluate():
                pins.append(first[0])
        constraints = house / "constraints.txt"
        constraints.write_text("\n".join(pins) + "\n")
        _pip("download", "--only-binary=:all:", "--dest", str(house), "--constraint", str(constraints),
             f"{wheel}[audit]")
        for built in house.glob("fairstats-*.whl"):  # pip download copies the wheel itself: not a dependency
            built.unlink()
        (house / ".complete").write_text("")
    return house


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory, wheel, wheelhouse) -> Path:
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    _pip("--python", str(python), "install", "--no-index", "--find-links", str(wheelhouse), str(wheel))
    return venv


def _installed(venv: Path) -> set[str]:
    code = ("import json, importlib.metadata as m; "
            "print(json.dumps([d.metadata['Name'] for d in m.distributions()]))")
    res = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True,
                         check=True, cwd=venv)
    return {_normalise(n) for n in json.loads(res.stdout)}


def test_wheel_holds_the_library_only(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = zf.read(f"fairstats-{VERSION}.dist-info/METADATA").decode()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"fairstats", f"fairstats-{VERSION}.dist-info"}, tops
    modules = {Path(n).stem for n in names if n.endswith(".py")}
    assert "cli" in modules and "confusion" in modules  # the library is there ...
    assert not modules & COMPENDIUM_MODULES, sorted(modules & COMPENDIUM_MODULES)  # ... and nothing else
    assert f"fairstats-{VERSION}.dist-info/licenses/LICENSE" in names
    assert "fairstats/py.typed" in names  # PEP 561: the public API's annotations are for type checkers too
    core = [line.split(":", 1)[1].strip() for line in meta.splitlines()
            if line.startswith("Requires-Dist:") and "extra ==" not in line]
    core_names = {_normalise(re.split(r"[<>=!~;\[ ]", c)[0]) for c in core}
    assert {"numpy", "scipy", "pandas", "statsmodels", "narwhals"} <= core_names
    assert not core_names & FORBIDDEN
    assert all("==" not in c for c in core), core  # ranges, not the compendium's pins


def test_installed_alone_it_brings_no_workflow_and_the_test_works(fresh_venv, tmp_path):
    installed = _installed(fresh_venv)
    assert "fairstats" in installed
    assert not installed & FORBIDDEN, sorted(installed & FORBIDDEN)
    # the audit's extras only with [audit], the engines only with [polars] / [spark]
    assert not installed & {"matplotlib", "seaborn", "pyarrow", "duckdb", "polars", "pyspark"}
    # run outside the checkout, so that nothing of src/ can be imported by accident
    rng = np.random.default_rng(13)
    data = pd.DataFrame({"g": rng.choice(["a", "b", "c"], 600), "y": rng.integers(0, 2, 600),
                         "p": rng.integers(0, 2, 600)})
    data.to_csv(tmp_path / "data.csv", index=False)
    code = (
        "import json, sys, pandas as pd, fairstats\n"
        "r = fairstats.equal_confusion_test(pd.read_csv('data.csv'), group='g', y_true='y', y_pred='p',"
        " permutation='never')\n"
        "print(json.dumps({'statistic': r.statistic, 'pvalue': r.pvalue, 'df': r.df,"
        " 'version': fairstats.__version__, 'file': fairstats.__file__,"
        " 'compendium': 'compendium' in sys.modules}))"
    )
    res = subprocess.run([str(fresh_venv / "bin" / "python"), "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["version"] == VERSION and str(fresh_venv) in out["file"] and not out["compendium"]
    # reference: scipy.stats.chi2_contingency on the group x (y, p) cell counts, no continuity correction
    table = pd.crosstab(data["g"], [data["y"], data["p"]])
    stat, pvalue, dof, _ = chi2_contingency(table.to_numpy(), correction=False)
    assert out["df"] == dof == 6
    assert out["statistic"] == pytest.approx(stat, rel=1e-12)
    assert out["pvalue"] == pytest.approx(pvalue, rel=1e-9)

    # without the [audit] extra, `fairstats audit` stops at once and says what to install; nothing written
    argv = ["audit", "data.csv", "--group", "g", "--y-true", "y", "--y-pred", "p", "--out", "audit"]
    res = subprocess.run([str(fresh_venv / "bin" / "fairstats"), *argv], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "pip install 'fairstats[audit]'" in res.stderr and "matplotlib" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not (tmp_path / "audit").exists()


def _readme_blocks(marker: str) -> list[tuple[str, str]]:
    """The README's fenced code blocks (language, text as written) that follow its ``<!-- marker`` comment,
    up to the next marker or section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text[text.index(f"<!-- {marker}") :].split("\n", 1)[1]
    after = re.split(r"^(?:<!-- |## )", after, maxsplit=1, flags=re.M)[0]
    return re.findall(r"^```(\w*)\n(.*?)^```$", after, flags=re.M | re.S)


def test_the_readme_quickstart_runs_as_written(fresh_venv, wheel, wheelhouse, tmp_path):
    """The README's quickstart, its CLI audit and its library call as written, with fairstats[audit]
    installed from the wheel (no compendium, no yaml), in a folder holding only ProPublica's file: paper A's
    4,020 people and chi-squared values, and the command prints exactly the output the README shows."""
    python = fresh_venv / "bin" / "python"
    _pip("--python", str(python), "install", "--no-index", "--find-links", str(wheelhouse), f"{wheel}[audit]")
    assert not _installed(fresh_venv) & (FORBIDDEN | {"pyyaml"})
    raw = tmp_path / "data" / "raw"
    raw.mkdir(parents=True)
    shutil.copy(ROOT / "data" / "raw" / "compas-scores-two-years-violent.csv", raw)
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": "",
           "PATH": f"{fresh_venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}

    (_, command), (_, shown) = _readme_blocks("readme-cli-example")[:2]  # the command, then its output
    assert command.startswith("fairstats audit ")
    res = subprocess.run(["bash", "-euc", command], capture_output=True, text=True, cwd=tmp_path, timeout=900,
                         env=env)  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout == shown, f"the README shows:\n{shown}\nthe command printed:\n{res.stdout}"
    # paper A, Sec. IV / the compendium's equal_confusion_tests.csv: 59.22, 214.80, 292.56 over 4,020 people
    assert "fairstats audit: 4,020 people" in res.stdout
    for statistic in ("59.22", "214.80", "292.56"):
        assert f"chi2 = {statistic:>8}" in res.stdout, res.stdout
    equal = pd.read_csv(tmp_path / "compas-audit" / "equal_confusion.csv")
    assert equal["statistic"].round(2).tolist() == [59.22, 214.80, 292.56]
    assert equal["n"].tolist() == [4020] * 3

    language, code = _readme_blocks("readme-library-example")[0]
    assert language == "python"
    (tmp_path / "example.py").write_text(code)
    res = subprocess.run([str(python), "example.py"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=900, env=env)  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    # the equal_confusion frame as printed: index, grouping, statistic, df, n
    rows = re.findall(r"^\d+\s+(.+?)\s+([\d.]+)\s+(\d+)\s+(\d+)$", res.stdout, flags=re.M)
    assert [(g, round(float(s), 2), int(df), int(n)) for g, s, df, n in rows] == [
        ("sex", 59.22, 3, 4020), ("race", 214.80, 15, 4020), ("sex x race", 292.56, 30, 4020)], res.stdout


def test_audit_works_with_the_audit_extra(fresh_venv, wheel, wheelhouse, tmp_path):
    python = fresh_venv / "bin" / "python"
    _pip("--python", str(python), "install", "--no-index", "--find-links", str(wheelhouse), f"{wheel}[audit]")
    installed = _installed(fresh_venv)
    assert {"matplotlib", "seaborn", "jinja2"} <= installed
    assert not installed & FORBIDDEN, sorted(installed & FORBIDDEN)
    rng = np.random.default_rng(7)
    n = 800
    group = rng.choice(["x", "y"], n)
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < np.where(group == "x", 0.8, 0.6), y_true, 1 - y_true)
    pd.DataFrame({"group": group, "y_true": y_true, "y_pred": y_pred}).to_csv(tmp_path / "p.csv", index=False)
    res = subprocess.run([str(fresh_venv / "bin" / "fairstats"), "audit", "p.csv", "--group", "group",
                          "--y-true", "y_true", "--y-pred", "y_pred", "--n-resamples", "199", "--seed", "1",
                          "--out", "audit"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "equal confusion test" in res.stdout
    out = tmp_path / "audit"
    for name in ("report.html", "report.md", "equal_confusion.csv", "tests.csv"):
        assert (out / name).is_file(), f"fairstats audit wrote no {name}"
    assert list(out.rglob("*.png")), "fairstats audit wrote no figure"
    equal = pd.read_csv(out / "equal_confusion.csv")
    assert equal.loc[0, "pvalue"] < 0.001  # accuracy 0.8 vs 0.6 over 800 people: the groups differ
