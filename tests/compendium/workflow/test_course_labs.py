"""The course labs run: instructor notebooks with every check "right" and their "Try this" blocks without
error, student notebooks with every check "not yet" and no error; the committed student notebooks are the
build of their sources and hold no solution.

The labs run with ``Lab.test_parameters`` (fewer simulated data sets and resamples); the numeric answers
computed from the data do not depend on them, and the simulated shares are checked exactly against the
reference run at that size (compendium.course.checks.Runs). To keep ``make test`` short, the eighteen
notebooks run in this process, cell by cell in a fresh namespace with the parameters injected after the
``parameters`` cell as papermill does (one Python start-up and one import of the libraries instead of 18
kernels); lab 1 also runs through papermill and a real kernel, both versions, as the workflow runs them. The
full-size runs are the workflow's ``course`` target (``snakemake course``).
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import nbformat
import papermill as pm
import pytest
from repo_paths import ROOT

from compendium.course.answers import ANSWERS
from compendium.course.build import build_lab, build_lab_files
from compendium.course.executed import executed_verdicts
from compendium.course.grader import forget
from compendium.course.labs import LABS

SOURCES = ROOT / "notebooks" / "course"
STUDENT = SOURCES / "student"
VERDICT = re.compile(r"^Exercise (?P<exercise>\d+\.\d+): (?P<verdict>right|not yet)\b", re.MULTILINE)
TRY_THIS = re.compile(r"^## Try this\b.*?```python\n(?P<code>.*?)```", re.MULTILINE | re.DOTALL)
IDS = [lab.stem for lab in LABS]


def _exercises(number: int) -> set[str]:
    return {key for key in ANSWERS if key.split(".")[0] == str(number)}


def _verdicts(text: str) -> dict[str, list[str]]:
    verdicts: dict[str, list[str]] = {}
    for m in VERDICT.finditer(text):
        verdicts.setdefault(m["exercise"], []).append(m["verdict"])
    return verdicts


def _run_papermill(nb_path: Path, out: Path, parameters: dict) -> dict[str, list[str]]:
    """Execute with papermill (kernel python3) from the repository's root; {exercise: [verdicts printed]}."""
    pm.execute_notebook(str(nb_path), str(out), parameters=parameters, kernel_name="python3",
                        progress_bar=False, cwd=str(ROOT))
    return executed_verdicts(out)


def _try_this(nb: nbformat.NotebookNode) -> list[str]:
    """The Python blocks of the notebook's "Try this" sections (to be run in a scratch cell at its end)."""
    return [m["code"] for cell in nb.cells if cell.cell_type == "markdown"
            for m in TRY_THIS.finditer(cell.source)]


def _run_here(nb: nbformat.NotebookNode, parameters: dict, monkeypatch,
              extra: list[str] = ()) -> dict[str, list[str]]:
    """{exercise: [verdicts printed]} of :func:`_run_here_text`."""
    return _verdicts(_run_here_text(nb, parameters, monkeypatch, extra))


def _run_here_text(nb: nbformat.NotebookNode, parameters: dict, monkeypatch, extra: list[str] = ()) -> str:
    """Execute every code cell in order in a fresh namespace and a fresh session of the checks (parameters
    injected after the parameters cell), then the ``extra`` code as scratch cells; an exception fails the
    test with the cell's number. Returns what the cells printed."""
    monkeypatch.chdir(ROOT)
    forget()
    namespace: dict = {"__name__": "__main__"}
    out = io.StringIO()
    cells = [(f"cell {number}", cell.source, cell.metadata.get("tags", []))
             for number, cell in enumerate(nb.cells, start=1) if cell.cell_type == "code"]
    cells += [(f"Try this block {k}", code, []) for k, code in enumerate(extra, start=1)]
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        for where, source, tags in cells:
            try:
                exec(compile(source, f"<{where}>", "exec"), namespace)  # noqa: S102
            except Exception as exc:  # the notebook must run without error
                pytest.fail(f"{where} raised {type(exc).__name__}: {exc}")
            if "parameters" in tags:
                unknown = set(parameters) - set(namespace)
                assert not unknown, f"not parameters of the notebook: {unknown}"
                namespace.update(parameters)
    forget()
    return out.getvalue()


def test_the_catalogue_has_nine_labs_each_with_a_source_and_a_committed_student_notebook():
    assert [lab.number for lab in LABS] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    for lab in LABS:
        assert (SOURCES / f"{lab.stem}.py").is_file()
        assert (STUDENT / f"{lab.stem}.ipynb").is_file(), f"run snakemake course for {lab.stem}"
        assert lab.compute_seconds <= 120, f"{lab.stem}: full size must stay within 2 minutes"
    assert {k.split(".")[0] for k in ANSWERS} == {str(lab.number) for lab in LABS}


@pytest.mark.parametrize("stem", IDS)
def test_committed_student_notebook_is_the_build_of_its_source(stem, tmp_path):
    build_lab_files(SOURCES / f"{stem}.py", student=tmp_path / "student.ipynb")
    committed = (STUDENT / f"{stem}.ipynb").read_text(encoding="utf-8")
    assert committed == (tmp_path / "student.ipynb").read_text(encoding="utf-8"), (
        f"notebooks/course/student/{stem}.ipynb is stale: rebuild it (snakemake course, or python -m "
        f"compendium.course.build)")


@pytest.mark.parametrize("stem", IDS)
def test_no_solution_text_in_the_committed_student_notebook(stem):
    built = build_lab(SOURCES / f"{stem}.py")
    student = nbformat.read(STUDENT / f"{stem}.ipynb", as_version=4)
    student_lines = {line.strip() for cell in student.cells for line in cell.source.splitlines()}
    teacher_lines = {line.strip() for cell in built.instructor.cells for line in cell.source.splitlines()}
    # every solution is in the instructor version, and none in the student version
    assert built.solutions and set(built.solutions) <= teacher_lines
    leaked = [line for line in built.solutions if line in student_lines]
    assert leaked == [], f"{stem}: solution lines in the student notebook: {leaked[:5]}"
    assert not any("BEGIN SOLUTION" in line or "# STUB:" in line for line in student_lines)
    assert all("solution" not in cell.metadata.get("tags", []) for cell in student.cells)
    # each exercise's answer is a stub in the student version: `answer_<n>_<k> = ...`, or a function whose
    # body is `return ...` that the check cell calls
    for exercise in _exercises(int(stem[3])):
        name = "answer_" + exercise.replace(".", "_")
        [cell] = [c for c in student.cells if f'check("{exercise}", ' in c.source]
        assert f"{name} = ..." in student_lines or "return ..." in cell.source, f"{stem}: no stub for {name}"
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")


@pytest.mark.parametrize("stem", IDS)
def test_every_lab_has_a_try_this_with_code_for_a_scratch_cell(stem):
    built = build_lab(SOURCES / f"{stem}.py")
    assert _try_this(built.student), f"{stem}: no '## Try this' section with a python block"


@pytest.mark.e2e
@pytest.mark.parametrize("lab", LABS, ids=IDS)
def test_instructor_notebook_runs_with_every_check_right(lab, monkeypatch):
    built = build_lab(SOURCES / f"{lab.stem}.py")
    verdicts = _run_here(built.instructor, dict(lab.test_parameters), monkeypatch,
                         _try_this(built.instructor))
    assert set(verdicts) == _exercises(lab.number)
    wrong = {k: v for k, v in verdicts.items() if v != ["right"]}
    assert wrong == {}, f"{lab.stem}: checks not right: {wrong}"


@pytest.mark.e2e
@pytest.mark.parametrize("lab", LABS, ids=IDS)
def test_student_notebook_runs_with_every_check_not_yet(lab, monkeypatch):
    student = nbformat.read(STUDENT / f"{lab.stem}.ipynb", as_version=4)
    verdicts = _run_here(student, dict(lab.test_parameters), monkeypatch)
    assert set(verdicts) == _exercises(lab.number)
    assert all(v == ["not yet"] for v in verdicts.values()), verdicts


@pytest.mark.e2e
def test_lab_1_runs_through_papermill_in_both_versions(tmp_path):
    lab = LABS[0]
    build_lab_files(SOURCES / f"{lab.stem}.py", instructor=tmp_path / "instructor.ipynb")
    right = _run_papermill(tmp_path / "instructor.ipynb", tmp_path / "i.ipynb", dict(lab.test_parameters))
    assert right == {k: ["right"] for k in _exercises(1)}
    not_yet = _run_papermill(STUDENT / f"{lab.stem}.ipynb", tmp_path / "s.ipynb", dict(lab.test_parameters))
    assert not_yet == {k: ["not yet"] for k in _exercises(1)}


@pytest.mark.e2e
def test_exercise_6_4_without_rowvar_reaches_its_check_and_gets_its_hint(monkeypatch):
    """The student's function raises a shape error; attempt() hands it to the check instead of stopping."""
    lab = next(lab for lab in LABS if lab.number == 6)
    student = nbformat.read(STUDENT / f"{lab.stem}.ipynb", as_version=4)
    [cell] = [c for c in student.cells if 'check("6.4", ' in c.source]
    stub = "    return ...  # the distance of x and y"
    assert stub in cell.source
    cell.source = cell.source.replace(stub, "    V = np.cov(np.vstack([x, y]))  # rowvar forgotten\n"
                                            "    e = x - y\n"
                                            "    return float(np.sqrt(e @ np.linalg.pinv(V) @ e))")
    printed = _run_here_text(student, dict(lab.test_parameters), monkeypatch)
    assert _verdicts(printed)["6.4"] == ["not yet"]
    [line] = [line for line in printed.splitlines() if line.startswith("Exercise 6.4:")]
    assert "rowvar=False" in line and "2 x 2" in line
