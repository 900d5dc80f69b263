"""The audit's figures: residual heat maps per grouping and disparity plots, PNG files with unique names.

Data strings are figure text (:func:`fairstats._format.figure_text`: one line, no mathtext); figure file names
are ASCII and unique per grouping (:func:`figure_name`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._format import figure_text

__all__ = ["draw_figures", "figure_name"]


def figure_name(kind: str, grouping: str, used: set[str]) -> str:
    """``<kind>_<slug>.png``, unique per grouping: an ASCII slug of at most 40 characters, plus a short hash
    of the grouping's name whenever the slug is not the name itself (non-ASCII, punctuation, long names)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", grouping).strip("_.")[:40] or "grouping"
    if slug != grouping:
        slug += "-" + hashlib.sha256(grouping.encode("utf-8")).hexdigest()[:10]
    name = f"{kind}_{slug}.png"
    k = 2
    while name in used:
        name, k = f"{kind}_{slug}-{k}.png", k + 1
    used.add(name)
    return name


#: Figures show at most this many groups (those that stand out most; the tables hold all of them).
_MAX_FIGURE_GROUPS = 40
def draw_figures(audit, tests: pd.DataFrame, folder: Path, labels: tuple[str, str]) -> list[str]:
    """Draw the residual heat maps of ``audit.results`` and the disparity plots of ``tests`` into ``folder``;
    return the file names."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    from fairstats.plotting import DIVERGING, save_figure, set_style

    set_style()
    written: list[str] = []
    used: set[str] = set()
    for name, res in audit.results.items():
        residuals = res.residuals
        shown = ""
        if len(residuals) > _MAX_FIGURE_GROUPS:  # a readable figure: the groups that stand out most
            top = residuals.abs().max(axis=1).nlargest(_MAX_FIGURE_GROUPS, keep="first").index
            keep = residuals.index.isin(top)
            shown = f"; the {_MAX_FIGURE_GROUPS} of {len(residuals):,} groups with the largest |residual|"
            residuals = residuals[keep]
        q, r = residuals.shape
        fig, ax = plt.subplots(figsize=(1.4 * r + 3, 0.45 * q + 1.8))
        limit = max(3.5, float(np.nanmax(np.abs(residuals.to_numpy()))))
        sns.heatmap(
            residuals,
            cmap=DIVERGING,
            center=0,
            vmin=-limit,
            vmax=limit,
            annot=True,
            fmt=".1f",
            cbar_kws={"label": "adjusted residual"},
            ax=ax,
        )
        flagged = res.flag_bonferroni.loc[residuals.index].to_numpy()
        for i, j in zip(*np.nonzero(flagged), strict=True):
            ax.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, edgecolor="black", lw=2))
        ax.set_title(
            f"{figure_text(name)}: adjusted residuals "
            f"(boxed: past the Bonferroni cut-off {res.bonferroni_cutoff:.2f})"
            + shown
        )
        ax.set_xlabel("confusion cell")
        ax.set_ylabel(figure_text(name))
        ax.set_yticklabels([figure_text(g) for g in residuals.index], rotation=0)
        ax.set_xticklabels([figure_text(c) for c in residuals.columns])
        path = save_figure(fig, folder / figure_name("residuals", name, used), pdf=False)
        plt.close(fig)
        written.append(path.name)
    if len(tests):
        for name, part in tests[tests["metric"] != "calibration"].groupby("grouping", sort=False):
            metrics = list(dict.fromkeys(part["metric"]))
            groups = list(dict.fromkeys(part["group"]))
            total = len(groups)
            if total > _MAX_FIGURE_GROUPS:  # the groups with the smallest adjusted p-values
                smallest = part.groupby("group", sort=False)["pvalue_adj"].min()
                top = set(smallest.nsmallest(_MAX_FIGURE_GROUPS, keep="first").index)
                groups = [g for g in groups if g in top]
            fig, axes = plt.subplots(
                1, len(metrics), figsize=(2.6 * len(metrics) + 1.5, 0.4 * len(groups) + 1.8), sharey=True
            )
            axes = np.atleast_1d(axes)
            for ax, metric in zip(axes, metrics, strict=True):
                rows = part[part["metric"] == metric].set_index("group").reindex(groups)
                y = np.arange(len(groups))
                est = rows["estimate"].to_numpy(dtype=float)
                low, high = rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)
                sig = rows["significant_adj"].fillna(False).to_numpy(dtype=bool)
                ax.axvline(0, color="grey", lw=1)
                ok = np.isfinite(est) & np.isfinite(low) & np.isfinite(high)
                # the interval as a line from its low to its high end: any interval (one that does not
                # contain the estimate, or a point) is drawn as it is
                ax.hlines(
                    y[ok], np.minimum(low[ok], high[ok]), np.maximum(low[ok], high[ok]), color="black", lw=1
                )
                ax.scatter(est[ok & ~sig], y[ok & ~sig], color="white", edgecolor="black", zorder=3)
                ax.scatter(est[ok & sig], y[ok & sig], color="black", zorder=3)
                ax.set_title(metric, fontsize=10)
                ax.set_yticks(y)
                ax.set_yticklabels([figure_text(g) for g in groups])
                ax.invert_yaxis()
            reference = part["reference"].iloc[0]
            subset = "" if total == len(groups) else f"; the {len(groups)} of {total:,} with the smallest p"
            fig.suptitle(
                f"{figure_text(name)}: each group minus {figure_text(reference)} (95% interval; filled = "
                "significant after Holm)"
                + subset,
                fontsize=10,
            )
            path = save_figure(fig, folder / figure_name("disparities", name, used), pdf=False)
            plt.close(fig)
            written.append(path.name)
    return written
