"""One lab source, two notebooks: the student version (solutions removed) and the instructor version.

A lab is a jupytext percent-format script (``notebooks/course/<lab>.py``; ``# %%`` starts a code cell,
``# %% [markdown]`` a text cell, ``# %% tags=["..."]`` tags it). Solutions are marked in the source:

* a line ``# BEGIN SOLUTION`` ... ``# END SOLUTION`` inside a code cell: kept (without the marker lines) in
  the instructor version, removed from the student version;
* a line ``# STUB: <code>`` inside a code cell: becomes ``<code>`` (same indentation) in the student version,
  dropped from the instructor version; the stub defines the answer as ``...``, so the student notebook runs
  and its check says "not yet";
* a cell tagged ``solution`` (typically the reasoning behind an answer, in Markdown): instructor only.

The same markers as nbgrader's (``BEGIN SOLUTION`` / ``END SOLUTION``), so a teacher who moves to nbgrader
keeps the sources. Cell ids are numbered (``cell-01`` ...) and the jupytext metadata is dropped, so a build is
byte-for-byte reproducible and the committed student notebooks only change when their source does.

Command line (the workflow's ``build_course_lab`` rule)::

    python -m compendium.course.build notebooks/course/lab1_confusion.py \
        --student notebooks/course/student/lab1_confusion.ipynb --instructor OUT/lab1_confusion.ipynb
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat

from compendium._files import atomic_write_text

__all__ = ["BuiltLab", "build_lab", "build_lab_files", "solution_lines"]

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"
STUB = re.compile(r"^(?P<indent>\s*)# STUB: (?P<code>.*)$")
SOLUTION_TAG = "solution"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


@dataclass(frozen=True)
class BuiltLab:
    """The two versions of one lab (``nbformat`` notebooks, not executed).

    Attributes
    ----------
    student, instructor : nbformat.NotebookNode
    solutions : tuple of str
        Every non-blank solution line of the source (code between the markers and the lines of ``solution``
        cells), stripped: what must not appear in the student version.
    """

    student: nbformat.NotebookNode
    instructor: nbformat.NotebookNode
    solutions: tuple[str, ...]


def _split(source: str, where: str) -> tuple[str, str, list[str]]:
    """(instructor source, student source, solution lines) of one code cell."""
    teacher, student, solutions = [], [], []
    inside = False
    for number, line in enumerate(source.splitlines(), start=1):
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise ValueError(f"{where}, line {number}: {BEGIN!r} inside a solution block")
            inside = True
            continue
        if stripped == END:
            if not inside:
                raise ValueError(f"{where}, line {number}: {END!r} without {BEGIN!r}")
            inside = False
            continue
        stub = STUB.match(line)
        if stub:
            if inside:
                raise ValueError(f"{where}, line {number}: a '# STUB:' line inside a solution block")
            student.append(stub["indent"] + stub["code"])
            continue
        teacher.append(line)
        if inside:
            if stripped:
                solutions.append(stripped)
        else:
            student.append(line)
    if inside:
        raise ValueError(f"{where}: {BEGIN!r} is never closed by {END!r}")
    return "\n".join(teacher), "\n".join(student), solutions


def _notebook(cells: list[nbformat.NotebookNode], title: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}, "title": title}
    for i, cell in enumerate(cells, start=1):
        cell["id"] = f"cell-{i:02d}"
    nb.cells = cells
    return nb


def build_lab(path: str | os.PathLike) -> BuiltLab:
    """Read a lab source (jupytext percent format) and build its student and instructor notebooks.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    ValueError
        Unbalanced solution markers (naming file, cell and line), or no ``parameters`` cell.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path: lab source {str(path)!r} does not exist")
    source = jupytext.read(path, fmt="py:percent")
    student, teacher, solutions = [], [], []
    n_parameters = 0
    for number, cell in enumerate(source.cells, start=1):
        tags = list(cell.metadata.get("tags", []))
        n_parameters += "parameters" in tags
        meta = {"tags": tags} if tags else {}
        make = nbformat.v4.new_code_cell if cell.cell_type == "code" else nbformat.v4.new_markdown_cell
        if SOLUTION_TAG in tags:
            teacher.append(make(cell.source, metadata=meta))
            solutions += [line.strip() for line in cell.source.splitlines() if line.strip()]
            continue
        if cell.cell_type == "code":
            t_src, s_src, sol = _split(cell.source, f"{path}, cell {number}")
            teacher.append(make(t_src, metadata=meta))
            student.append(make(s_src, metadata=dict(meta)))
            solutions += sol
        else:
            if BEGIN in cell.source:
                raise ValueError(f"{path}, cell {number}: solution markers in a Markdown cell; tag the cell "
                                 f"'{SOLUTION_TAG}' instead")
            teacher.append(make(cell.source, metadata=meta))
            student.append(make(cell.source, metadata=dict(meta)))
    if n_parameters != 1:
        raise ValueError(f"{path}: {n_parameters} cells tagged 'parameters'; a lab has exactly one")
    title = path.stem
    return BuiltLab(student=_notebook(student, title), instructor=_notebook(teacher, title),
                    solutions=tuple(solutions))


def solution_lines(path: str | os.PathLike) -> tuple[str, ...]:
    """The solution lines of a lab source (see :attr:`BuiltLab.solutions`)."""
    return build_lab(path).solutions


def _text(nb: nbformat.NotebookNode) -> str:
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def build_lab_files(
    path: str | os.PathLike, *, student: str | os.PathLike | None = None,
    instructor: str | os.PathLike | None = None,
) -> BuiltLab:
    """Build a lab and write the requested versions (``.ipynb``, atomically; both validated first)."""
    built = build_lab(path)
    texts = [(out, _text(nb)) for out, nb in ((student, built.student), (instructor, built.instructor))]
    for out, text in texts:
        if out is not None:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(out, text)
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compendium.course.build",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("source", help="the lab's jupytext percent-format source (.py)")
    parser.add_argument("--student", help="where to write the student notebook (.ipynb)")
    parser.add_argument("--instructor", help="where to write the instructor notebook (.ipynb)")
    args = parser.parse_args(argv)
    try:
        build_lab_files(args.source, student=args.student, instructor=args.instructor)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
