"""Every notebook's "How to use" and "Try this" run as a reader would run them, on a fresh clone.

A reader of ``notebooks/*.ipynb`` copies the commands of its "How to use" cell and of its "Try this" cells
into a shell, and the Python of a "Try this" into a scratch cell at the end of the notebook. On a fresh clone
(``git clone`` of this checkout's HEAD into a temporary folder: no ``data/interim``, no uncommitted results)
this test runs each notebook's shell blocks in order, as written, then the notebook through papermill with its
"Try this" Python blocks appended as cells. Sizes are shrunk by parameters appended to each papermill command
(:data:`SHRINK`: fewer permutations and streams; papermill keeps the last value of a parameter), and ``/tmp/``
becomes the test's temporary folder. The course labs' "Try this" blocks run in ``test_course_labs.py``.
Slow (several minutes): ``make test-slow``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from repo_paths import ROOT

NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
BLOCK = re.compile(r"```(?P<lang>bash|python)\n(?P<code>.*?)```", re.DOTALL)
# Parameters appended to every papermill command of a notebook (and to its run with the Try-this cells).
SHRINK = {
    "paper_a_equal_confusion": ["-p", "n_resamples", "199"],
    "compas_subgroup_search": [],  # computed by compendium.paper_a.subgroup_search, its Try this at 999
    "monitoring": [],  # computed by compendium.paper_a.monitoring, its Try this at 200 streams
    "beyond_the_papers": [],
    "paper_b_battery": [],
    "paper_b_table1": [],
}


def _unquote(text: str) -> str:
    """A Markdown block quote's text without its '> ' prefixes."""
    return "\n".join(re.sub(r"^> ?", "", line) for line in text.splitlines())


def _blocks(notebook: str) -> tuple[list[str], list[str]]:
    """(shell blocks of the How-to and Try-this cells, Python blocks of the Try-this cells), in order."""
    nb = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    shell, python = [], []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = _unquote(cell.source)
        if "How to use" not in text and "Try this" not in text:
            continue
        for m in BLOCK.finditer(text):
            if m["lang"] == "bash":
                shell.append(m["code"])
            elif "Try this" in text:
                python.append(m["code"])
    return shell, python


def _shrunk(command: str, notebook: str, tmp: Path) -> str:
    command = command.replace("/tmp/", f"{tmp}/")
    if command.lstrip().startswith("papermill"):
        command = " ".join([command.rstrip(), *SHRINK[notebook]])
    return command


def test_every_notebook_has_a_try_this_and_a_how_to_that_starts_from_a_fresh_clone():
    assert sorted(SHRINK) == NOTEBOOKS
    for notebook in NOTEBOOKS:
        shell, python = _blocks(notebook)
        assert shell, f"{notebook}: no command to run it"
        nb = (ROOT / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8")
        assert "Try this" in nb, f"{notebook}: no Try this"
        reads_interim = '"data/interim/' in nb
        first = shell[0]
        # a notebook that reads data/interim/ (not in the repository) says how to make it first
        assert not reads_interim or first.lstrip().startswith("snakemake"), f"{notebook}: {first!r}"


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_how_to_and_try_this_run_on_a_fresh_clone(notebook, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "MPLBACKEND": "Agg"}
    shell, python = _blocks(notebook)
    for block in shell:
        for command in filter(None, (c.strip() for c in block.replace("\\\n", " ").splitlines())):
            res = subprocess.run(["bash", "-c", _shrunk(command, notebook, tmp_path)], cwd=clone, env=env,
                                 capture_output=True, text=True, timeout=1800)
            assert res.returncode == 0, f"{notebook}: {command}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    if not python:
        return
    nb = nbformat.read(clone / "notebooks" / f"{notebook}.ipynb", as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(code) for code in python]
    scratch = tmp_path / f"{notebook}_try_this.ipynb"
    nbformat.write(nb, scratch)
    command = ["papermill", str(scratch), str(tmp_path / "out.ipynb"), "-k", "python3", "--no-progress-bar",
               "--cwd", str(clone), "-p", "out_dir", str(tmp_path / "out"), *SHRINK[notebook]]
    res = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, f"{notebook}: the Try-this cells failed\n{res.stderr[-4000:]}"
