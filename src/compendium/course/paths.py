"""Where a lab finds the repository's files, whether it runs from the repository, a copy or papermill.

A lab's parameters are paths relative to the repository's root (``data/raw`` ...). A notebook opened in
JupyterLab runs in its own folder (``notebooks/course/student/``, or the copy ``course-work/`` that
``make course-open`` makes), so :func:`repository_path` tries the path as given, then below each parent folder
of the working directory, and says which it used.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["repository_path"]


def repository_path(path: str | os.PathLike, *, start: str | os.PathLike | None = None) -> Path:
    """Resolve ``path``: as given if it exists, else relative to the nearest parent of ``start`` (default: the
    working directory) that has it.

    Raises
    ------
    FileNotFoundError
        Neither ``path`` nor ``<parent>/path`` exists for any parent; the message names the path and where
        the search started.
    """
    given = Path(path)
    if given.exists():
        return given.resolve()
    if given.is_absolute():
        raise FileNotFoundError(f"path: {str(given)!r} does not exist")
    here = Path(start if start is not None else os.getcwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / given
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"path: {str(given)!r} not found from {str(here)!r} or any folder above it; pass "
                            f"the lab's parameter as an absolute path")
