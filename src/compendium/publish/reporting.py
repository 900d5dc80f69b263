"""Writing the compendium's tables: tidy CSV at full precision plus a rounded Markdown rendering, both written
atomically by :func:`compendium._files.atomic_write_text` (was ``fairstats.reporting``, shipped in the wheel
until fairstats 0.3; the audit has its own writer, ``fairstats.auditing.writing``)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from compendium._files import atomic_write_text

__all__ = ["atomic_write_text", "to_markdown", "write_table"]


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
