"""The audit's own writer: one-line messages, files written whole, Markdown tables, figure style and saving,
and the SHA-256 of a file.

What the wing writes with, kept in the wing (the compendium has its own table and figure helpers,
``compendium.publish``, which the wheel does not ship). Matplotlib and seaborn are imported by the functions
that draw, so that the command line's start stays light.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "DIVERGING",
    "QUALITATIVE",
    "atomic_write_text",
    "file_sha256",
    "one_line",
    "print_out",
    "save_figure",
    "set_style",
    "to_markdown",
]

#: Diverging palette for residuals (centred on 0) and a qualitative one for groups.
DIVERGING = "vlag"
QUALITATIVE = "colorblind"


def one_line(message: object) -> str:
    """``message`` as text on one line (runs of whitespace, newlines included, become one space)."""
    return " ".join(str(message).split())


def print_out(text: str, stream=None) -> None:
    """Print ``text`` on ``stream`` (standard output by default) and flush it.

    Every command prints after its output is written, so a reader that has gone (``fairstats audit ... |
    head``, or a closed pipe) ends the printing, not the run: the exit status stays the run's, and standard
    output is pointed at ``os.devnull`` so that the interpreter's last flush does not fail again (the recipe
    of Python's documentation, module ``signal``, "Note on SIGPIPE")."""
    stream = sys.stdout if stream is None else stream
    try:
        print(text, file=stream)
        stream.flush()
    except BrokenPipeError:
        if stream is not sys.stdout:
            raise
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


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


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of the file at ``path``, read in blocks of 1 MiB (the wing's one file hash: the output
    folder's manifest, the monitor's batches and state, the report's input provenance)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def set_style() -> None:
    """The audit's figure style: seaborn's whitegrid theme, the colour-blind palette, Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(context="notebook", style="whitegrid", palette=QUALITATIVE)
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 150, "savefig.bbox": "tight"})


def save_figure(fig: Figure, path: str | os.PathLike, *, pdf: bool = True) -> Path:
    """Save ``fig`` to ``path`` (PNG) and, if ``pdf``, beside it as PDF; return the PNG path.

    The files carry no run-specific metadata (creation date, Matplotlib version), so a rerun writes the same
    bytes.
    """
    path = Path(path).with_suffix(".png")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Software": None})
    if pdf:
        fig.savefig(
            path.with_suffix(".pdf"), metadata={"CreationDate": None, "Creator": None, "Producer": None}
        )
    return path
