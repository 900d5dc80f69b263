"""Writing tables: tidy CSV at full precision plus a rounded Markdown rendering, both written atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd


def one_line(message: object) -> str:
    """``message`` as text on one line (runs of whitespace, newlines included, become one space)."""
    return " ".join(str(message).split())


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename.

    A crash or an exception leaves either the old file or none, never a half-written one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the permissions open() would
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def to_markdown(frame: pd.DataFrame, *, digits: int = 3, index: bool = False) -> str:
    """Render ``frame`` as a GitHub Markdown table, floats rounded to ``digits`` (display only)."""
    df = frame.reset_index() if index else frame
    cols = [str(c) for c in df.columns]

    def fmt(v: object) -> str:
        if isinstance(v, float | np.floating):
            return "" if np.isnan(v) else f"{v:.{digits}f}"
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            return ""
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def write_table(
    frame: pd.DataFrame,
    csv_path: str | os.PathLike,
    *,
    digits: int = 3,
    markdown: bool = True,
    title: str = "",
) -> Path:
    """Write ``frame`` as CSV (full precision) and, beside it, ``.md`` (rounded to ``digits``)."""
    csv_path = Path(csv_path)
    atomic_write_text(csv_path, frame.to_csv(index=False, lineterminator="\n"))
    if markdown:
        head = f"# {title}\n\n" if title else ""
        atomic_write_text(csv_path.with_suffix(".md"), head + to_markdown(frame, digits=digits))
    return csv_path
