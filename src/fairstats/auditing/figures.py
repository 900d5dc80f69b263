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

from fairstats._format import PLAIN, figure_text
from fairstats.reporting import one_line

__all__ = ["draw_figures", "figure_alt", "figure_name", "report_figures"]


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
    return the file names (:func:`report_figures` for what the report needs to know about each)."""
    return [f["file"] for f in report_figures(audit, tests, folder, labels)]


def report_figures(audit, tests: pd.DataFrame, folder: Path, labels: tuple[str, str]) -> list[dict]:
    """Draw the residual heat maps of ``audit.results`` and the disparity plots of ``tests`` into ``folder``;
    return one dict per figure: ``file`` (its name), ``grouping``, ``kind`` and ``alt`` (what it shows, in
    words, for the report's alt text).

    In the disparity plots the markers and the intervals mean the same thing: the interval drawn is the
    unadjusted 95 % interval of tests.csv and a filled dot marks an interval that excludes 0 (both
    unadjusted, as the title says); the Holm-adjusted p-values and verdicts are in the report's tables.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    from fairstats.plotting import save_figure, set_style

    set_style()
    with plt.rc_context({"text.parse_math": False}):  # every text of these figures as written, no mathtext
        return _draw(audit, tests, folder, plt, sns, save_figure)


def _draw(audit, tests, folder, plt, sns, save_figure) -> list[str]:
    from fairstats.plotting import DIVERGING

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
            + shown,
            **PLAIN,
        )
        ax.set_xlabel("confusion cell")
        ax.set_ylabel(figure_text(name), **PLAIN)
        ax.set_yticklabels([figure_text(g) for g in residuals.index], rotation=0, **PLAIN)
        ax.set_xticklabels([figure_text(c) for c in residuals.columns], **PLAIN)
        path = save_figure(fig, folder / figure_name("residuals", name, used), pdf=False)
        plt.close(fig)
        stacked = residuals.stack()
        top = ""
        if len(stacked) and np.isfinite(stacked.to_numpy(dtype=float)).any():
            (g, c) = stacked.abs().idxmax()
            top = f"group {figure_text(g)}, cell {figure_text(c)} ({stacked[(g, c)]:+.1f})"
        total = len(res.residuals)
        alt = figure_alt(
            "residuals", name, cutoff=res.bonferroni_cutoff, n_flagged=int(np.sum(flagged)), top=top,
            shown=f"{q} groups" if q == total else f"the {q} of {total:,} groups with the largest |residual|",
        )  # fmt: skip
        written.append({"file": path.name, "grouping": name, "kind": "residuals", "alt": alt})
    if len(tests):
        for name, part in tests[tests["metric"] != "calibration"].groupby("grouping", sort=False):
            metrics = list(dict.fromkeys(part["metric"]))
            groups = list(dict.fromkeys(part["group"]))
            total = len(groups)
            if total > _MAX_FIGURE_GROUPS:  # the groups with the smallest adjusted p-values
                smallest = part.groupby("group", sort=False)["pvalue_adj"].min()
                top = set(smallest.nsmallest(_MAX_FIGURE_GROUPS, keep="first").index)
                groups = [g for g in groups if g in top]
            n_excluding = n_drawn = 0
            # at most four panels a row: the figure stays readable at a page's width (issue 30)
            ncols = min(4, len(metrics))
            nrows = -(-len(metrics) // ncols)
            fig, axes = plt.subplots(
                nrows, ncols, figsize=(2.7 * ncols + 1.5, nrows * (0.4 * len(groups) + 1.3) + 0.9),
                sharey=True, squeeze=False, layout="constrained",
            )  # fmt: skip
            axes = axes.ravel()
            for ax in axes[len(metrics) :]:
                ax.set_visible(False)
            for ax, metric in zip(axes, metrics, strict=False):
                rows = part[part["metric"] == metric].set_index("group").reindex(groups)
                y = np.arange(len(groups))
                est = rows["estimate"].to_numpy(dtype=float)
                low, high = rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)
                ax.axvline(0, color="grey", lw=1)
                ok = np.isfinite(est) & np.isfinite(low) & np.isfinite(high)
                # filled: the drawn (unadjusted 95 %) interval excludes 0, so marker and interval agree
                sig = ok & ((np.minimum(low, high) > 0) | (np.maximum(low, high) < 0))
                n_excluding += int(sig.sum())
                n_drawn += int(ok.sum())
                # the interval as a line from its low to its high end: any interval (one that does not
                # contain the estimate, or a point) is drawn as it is
                ax.hlines(
                    y[ok], np.minimum(low[ok], high[ok]), np.maximum(low[ok], high[ok]), color="black", lw=1
                )
                ax.scatter(est[ok & ~sig], y[ok & ~sig], color="white", edgecolor="black", zorder=3)
                ax.scatter(est[ok & sig], y[ok & sig], color="black", zorder=3)
                ax.set_title(metric, fontsize=10)
                ax.set_yticks(y)
                ax.set_yticklabels([figure_text(g) for g in groups], **PLAIN)
            axes[0].invert_yaxis()  # once: the axes share y, the first group on top
            reference = part["reference"].iloc[0]
            subset = "" if total == len(groups) else f"; the {len(groups)} of {total:,} with the smallest p"
            fig.suptitle(
                f"{figure_text(name)}: each group minus {figure_text(reference)}{subset}\n"
                "95% intervals, unadjusted; filled: the interval excludes 0 (Holm-adjusted p in the report)",
                fontsize=10,
                **PLAIN,
            )
            path = save_figure(fig, folder / figure_name("disparities", name, used), pdf=False)
            plt.close(fig)
            shown = f"{len(groups)} group{'s' if len(groups) != 1 else ''}"
            if total != len(groups):
                shown = f"the {len(groups)} of {total:,} groups with the smallest adjusted p"
            alt = figure_alt(
                "disparities", name, reference=reference, metrics=metrics, n_excluding=n_excluding,
                n=n_drawn, shown=shown,
            )  # fmt: skip
            written.append({"file": path.name, "grouping": name, "kind": "disparities", "alt": alt})
    return written


def figure_alt(kind: str, name: str, **facts) -> str:
    """The alt text of a figure: what it shows, in words (plain text; the templates escape it)."""
    grouping = one_line(name)
    if kind == "residuals":
        text = (
            f"Heat map of the adjusted residuals by {grouping}: one row per group ({facts['shown']}), one "
            f"column per confusion cell; red: more people than expected if all groups were alike, blue: "
            f"fewer; {facts['n_flagged']} boxed cells are past the Bonferroni cut-off "
            f"{facts['cutoff']:.2f}"
        )
        if facts.get("top"):
            text += f"; the largest is {facts['top']}"
        return text + "."
    if kind == "disparities":
        return (
            f"Dot plot by {grouping}: each group's difference from {one_line(facts['reference'])} in "
            f"{', '.join(facts['metrics'])} ({facts['shown']}), with unadjusted 95% intervals; a filled dot "
            f"marks an interval that excludes 0 ({facts['n_excluding']} of {facts['n']}); Holm-adjusted "
            "p-values and verdicts are in the table."
        )
    return one_line(facts.get("text", kind))
