"""Executed notebooks without run-specific noise: the same run gives the same bytes.

papermill stamps every executed notebook with wall-clock times (notebook and cell ``papermill`` start, end
and duration, the kernel's ``execution`` timestamps) and gives the cell it injects (``injected-parameters``) a
random id; how printed text is cut into stream outputs depends on when the kernel flushed (a loaded
machine cuts more often). :func:`normalise_notebook` removes the times, names papermill's own cells after
their tag and merges consecutive stream outputs (nbconvert's ``CoalesceStreamsPreprocessor``), so two runs
of a notebook with the same inputs write byte-identical files and ``git status`` stays clean.
Outputs, execution counts, parameters and the cells' own ids are kept. The workflow's notebook rules run::

    papermill IN.ipynb OUT.ipynb ... && python -m compendium.publish.executed_notebook OUT.ipynb
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

from compendium.publish.reporting import atomic_write_text

#: Keys holding wall-clock times, in notebook and cell ``metadata.papermill``.
TIME_KEYS = ("start_time", "end_time", "duration")
#: Cell metadata written by the kernel at run time (``iopub.*`` / ``shell.*`` timestamps).
RUN_METADATA = ("execution",)
#: Tags of the cells papermill adds, whose ids it draws at random.
PAPERMILL_TAGS = ("injected-parameters", "papermill-error-cell-tag")


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return ``nb`` without wall-clock times, with deterministic ids for papermill's cells and consecutive
    stream outputs merged (in place)."""
    for key in TIME_KEYS:
        nb.metadata.get("papermill", {}).pop(key, None)
    taken = {cell.get("id") for cell in nb.cells}
    for cell in nb.cells:
        for key in RUN_METADATA:
            cell.metadata.pop(key, None)
        for key in TIME_KEYS:
            cell.metadata.get("papermill", {}).pop(key, None)
        tag = next((t for t in cell.metadata.get("tags", []) if t in PAPERMILL_TAGS), None)
        if tag is not None and cell.get("id") != tag:
            taken.discard(cell.get("id"))
            new, k = tag, 1
            while new in taken:  # cell ids must be unique (nbformat 4.5)
                k += 1
                new = f"{tag}-{k}"
            cell["id"] = new
            taken.add(new)
    nb, _ = CoalesceStreamsPreprocessor().preprocess(nb, {})
    return nb


def normalise_notebook(path: str | os.PathLike) -> Path:
    """Rewrite the executed notebook at ``path`` normalised (:func:`normalise`), atomically."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`path`: no notebook {str(path)!r}")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several types for a file that is not a notebook
        raise ValueError(f"{str(path)!r} is not a Jupyter notebook: {exc}") from exc
    text = nbformat.writes(normalise(nb))
    return atomic_write_text(path, text if text.endswith("\n") else text + "\n")  # as nbformat.write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compendium.publish.executed_notebook", description=__doc__.splitlines()[0]
    )
    parser.add_argument("notebooks", nargs="+", help="executed notebooks to rewrite in place")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        try:
            normalise_notebook(path)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
