"""One figure style for the compendium, and saving figures as PNG and PDF (was ``fairstats.plotting``, shipped
in the wheel until fairstats 0.3; the audit has its own, ``fairstats.auditing.writing``)."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

#: Diverging palette for residuals (centred on 0) and a qualitative one for groups.
DIVERGING = "vlag"
QUALITATIVE = "colorblind"


def set_style() -> None:
    """Set the compendium's seaborn style (call once at the top of a notebook)."""
    sns.set_theme(context="notebook", style="whitegrid", palette=QUALITATIVE)
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 150, "savefig.bbox": "tight"})


def save_figure(fig: plt.Figure, path: str | os.PathLike, *, pdf: bool = True) -> Path:
    """Save ``fig`` to ``path`` (PNG) and, if ``pdf``, beside it as PDF; return the PNG path.

    The files carry no run-specific metadata (creation date, Matplotlib version), so a rerun writes the same
    bytes.
    """
    path = Path(path).with_suffix(".png")
    path.parent.mkdir(parents=True, exist_ok=True)
    # No creation date and no software version: the same figure gives the same bytes on every run and with
    # every Matplotlib release that draws it the same way.
    fig.savefig(path, metadata={"Software": None})
    if pdf:
        fig.savefig(
            path.with_suffix(".pdf"), metadata={"CreationDate": None, "Creator": None, "Producer": None}
        )
    return path
