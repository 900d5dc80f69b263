"""The audit's figures: residual heat maps, disparity plots, ROC and calibration curves (``--y-score``) and
residual distributions (``--task regression``) per grouping; PNG files with unique names.

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
from fairstats.auditing.writing import one_line

__all__ = ["draw_figures", "figure_alt", "figure_name", "regression_figures", "report_figures"]


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

    The two figures of each grouping have a fixed geometry, worked out from the numbers of groups and cells
    and the lengths of the labels (:func:`_inches`): no layout engine measures their text and each is drawn
    once, when it is saved (``savefig.bbox`` standard).
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    from fairstats.auditing.writing import save_figure, set_style

    set_style()
    # every text of these figures as written (no mathtext); the geometry is fixed, so the figure is saved as
    # laid out (no second drawing to find a tight box)
    with plt.rc_context({"text.parse_math": False, "savefig.bbox": "standard", "axes.titley": 1.0,
                         "savefig.dpi": 100}):
        written = _draw(audit, tests, folder, plt, sns, save_figure)
        if getattr(audit, "score_curves", None):
            used = {f["file"] for f in written}
            for curves in audit.score_curves.values():
                written += _score_figures(curves, audit.score_groups, folder, plt, save_figure, used)
        return written


#: Width of one character of tick-label text, in inches (11 pt sans-serif: about 0.55 em; generous, so that
#: labels fit without measuring them).
_CHAR = 0.085


def _inches(texts, size: float = 11.0) -> float:
    """Width in inches that the longest of ``texts`` needs at ``size`` points (an upper estimate)."""
    longest = max((len(t) for t in texts), default=0)
    return longest * _CHAR * size / 11.0


def _wrapped(text: str, width_in: float, size: float) -> str:
    """``text`` broken into lines that fit ``width_in`` inches at ``size`` points (at spaces; each given
    line kept)."""
    import textwrap

    chars = max(20, int(width_in / (_CHAR * size / 11.0)))
    return "\n".join(textwrap.fill(line, chars) for line in text.split("\n"))


def _heat_map(ax, cax, values: np.ndarray, limit: float, cmap) -> None:
    """``values`` (groups x cells) as coloured cells centred on 0 within ±``limit``, each annotated with its
    value (one decimal; dark text on light cells, white on dark ones, by the W3C relative luminance, as
    seaborn's heat map does), and the colour bar labelled: seaborn's ``heatmap`` without the drawing it does
    to check whether the tick labels overlap (the geometry here is fixed)."""
    from matplotlib.colors import to_rgba_array

    q, r = values.shape
    mesh = ax.pcolormesh(np.ma.masked_invalid(values), cmap=cmap, vmin=-limit, vmax=limit)
    ax.set(xlim=(0, r), ylim=(q, 0), xticks=np.arange(r) + 0.5, yticks=np.arange(q) + 0.5)
    ax.grid(False)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    colors = to_rgba_array(cmap((np.clip(values, -limit, limit) + limit) / (2 * limit)).reshape(-1, 4))
    rgb = colors[:, :3]
    linear = np.where(rgb <= 0.03928, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = (linear @ np.array([0.2126, 0.7152, 0.0722])).reshape(q, r)
    for (i, j), value in np.ndenumerate(values):
        if np.isfinite(value):
            ax.text(j + 0.5, i + 0.5, f"{value:.1f}", ha="center", va="center",
                    color=".15" if luminance[i, j] > 0.408 else "w")  # fmt: skip
    cax.figure.colorbar(mesh, cax=cax).set_label("adjusted residual")
    cax.grid(False)


def _draw(audit, tests, folder, plt, sns, save_figure) -> list[str]:
    from matplotlib.ticker import MaxNLocator

    from fairstats.auditing.writing import DIVERGING

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
        rows = [figure_text(g) for g in residuals.index]
        cells = [figure_text(c) for c in residuals.columns]
        # geometry in inches: y label and tick labels | cells | colour bar and its label
        left = 0.45 + _inches(rows)
        cell_w, cell_h = 1.4, 0.45
        width = left + cell_w * r + 1.5
        title = _wrapped(
            f"{figure_text(name)}: adjusted residuals "
            f"(boxed: past the Bonferroni cut-off {res.bonferroni_cutoff:.2f})" + shown, width - 0.3, 12)
        top = 0.3 + 0.25 * (title.count("\n") + 1)
        bottom = 0.55 + _inches(cells) * 0.75  # x tick labels (rotated when long) and the x label
        height = top + cell_h * q + bottom
        fig = plt.figure(figsize=(width, height))
        ax = fig.add_axes((left / width, bottom / height, cell_w * r / width, cell_h * q / height))
        cax = fig.add_axes(((left + cell_w * r + 0.25) / width, bottom / height, 0.2 / width,
                            cell_h * q / height))  # fmt: skip
        limit = max(3.5, float(np.nanmax(np.abs(residuals.to_numpy()))))
        _heat_map(ax, cax, residuals.to_numpy(dtype=float), limit, plt.get_cmap(DIVERGING))
        flagged = res.flag_bonferroni.loc[residuals.index].to_numpy()
        for i, j in zip(*np.nonzero(flagged), strict=True):
            ax.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, edgecolor="black", lw=2))
        ax.set_title(title, **PLAIN)
        ax.set_xlabel("confusion cell")
        ax.set_ylabel(figure_text(name), **PLAIN)
        ax.set_yticklabels(rows, rotation=0, **PLAIN)
        ax.set_xticklabels(cells, rotation=0 if _inches(cells) < cell_w else 30, **PLAIN)
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
            pairs = bool(part.duplicated(["metric", "group"]).any())  # --comparisons pairs: a group, twice
            part = part.assign(group=_pair_labels(part) if pairs else part["group"])
            groups = list(dict.fromkeys(part["group"]))
            total = len(groups)
            if total > _MAX_FIGURE_GROUPS:  # the groups with the smallest adjusted p-values
                smallest = part.groupby("group", sort=False)["pvalue_adj"].min()
                top = set(smallest.nsmallest(_MAX_FIGURE_GROUPS, keep="first").index)
                groups = [g for g in groups if g in top]
            n_excluding = n_drawn = 0
            labels = [figure_text(g) for g in groups]
            reference = part["reference"].iloc[0]
            subset = "" if total == len(groups) else f"; the {len(groups)} of {total:,} with the smallest p"
            # at most four panels a row: the figure stays readable at a page's width (issue 30); the
            # geometry in inches: tick labels | panels of 2.7 in, each as high as its groups need
            ncols = min(4, len(metrics))
            nrows = -(-len(metrics) // ncols)
            left, panel_w, gap = 0.3 + _inches(labels), 2.7, 0.4
            width = left + ncols * panel_w + (ncols - 1) * gap + 0.3
            minus = "each pair: the first group minus the second" if pairs else \
                f"each group minus {figure_text(reference)}"  # fmt: skip
            suptitle = _wrapped(
                f"{figure_text(name)}: {minus}{subset}\n"
                "95% intervals, unadjusted; filled: the interval excludes 0 (Holm-adjusted p in the report)",
                width - 0.3, 10)
            top = 0.25 + 0.19 * (suptitle.count("\n") + 1)
            panel_h, head, foot = 0.4 * len(groups) + 0.2, 0.35, 0.45  # panel title; x tick labels
            height = top + nrows * (head + panel_h + foot) + 0.3  # and the figure's x label
            fig = plt.figure(figsize=(width, height))
            grid = {"left": left / width, "right": 1 - 0.3 / width, "top": 1 - (top + head) / height,
                    "bottom": (foot + 0.3) / height, "wspace": gap / panel_w,
                    "hspace": (head + foot) / panel_h}
            spec = fig.add_gridspec(nrows, ncols, **grid)
            axes = [fig.add_subplot(spec[k // ncols, k % ncols]) for k in range(len(metrics))]
            for ax, metric in zip(axes, metrics, strict=True):
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
                ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
                ax.set_ylim(len(groups) - 0.5, -0.5)  # the first group on top, the same rows in every panel
                if ax.get_subplotspec().is_first_col():
                    ax.set_yticks(y)
                    ax.set_yticklabels(labels, **PLAIN)
                else:  # the rows' grid lines without ticks or hidden labels (a panel's ticks cost the most)
                    ax.set_yticks([])
                    ax.hlines(y, 0, 1, transform=ax.get_yaxis_transform(), color=plt.rcParams["grid.color"],
                              lw=plt.rcParams["grid.linewidth"], zorder=0)  # fmt: skip
            fig.suptitle(suptitle, fontsize=10, y=1 - 0.12 / height, va="top", **PLAIN)
            fig.supxlabel("x: the group's value minus the reference's (one scale per panel)", fontsize=9,
                          y=0.08 / height, va="bottom")  # fmt: skip
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
    if kind == "roc":
        return (
            f"ROC curves by {grouping}: for each group ({facts['subset'] or facts['groups']}) the true "
            "positive rate against the false positive rate as the score threshold moves, with pointwise 95% "
            "bands (bootstrap); the dashed diagonal is a score no better than chance. "
            f"AUC: {facts['aucs']}."
        )
    if kind == "calibration":
        return (
            f"Calibration curves by {grouping}: for each group ({facts['subset'] or facts['groups']}) the "
            "share of people with the outcome against the score, a smooth curve with a pointwise 95% band "
            "and dots for ten equal-width score bins; on the dashed diagonal the score is the outcome's "
            f"probability. ICI (mean distance from the diagonal): {facts['icis']}."
        )
    if kind == "residual_distributions":
        return (
            f"Residual distributions by {grouping}: for each group "
            f"({facts['subset'] or facts['groups']}) "
            "the cumulative share of people against the residual (prediction minus outcome), and bars of "
            "its middle 50% and 5% to 95%; the dashed line is a residual of 0. Median residuals: "
            f"{facts['medians']}."
        )
    return one_line(facts.get("text", kind))


# --------------------------------------------------------------------------------------------------------
# scores (--y-score): ROC and calibration curves per grouping; regression: residual distributions
# --------------------------------------------------------------------------------------------------------


def _names(groups) -> str:
    """Group labels for an alt text: one line each, joined."""
    return ", ".join(one_line(g) for g in groups)


def _score_figures(curves, groups: pd.DataFrame, folder: Path, plt, save_figure, used: set[str]) -> list:
    """The ROC figure and (scores in [0, 1]) the calibration figure of one grouping (:class:`ScoreCurves`)."""
    import seaborn as sns

    name, shown = curves.grouping, list(curves.shown)
    colors = dict(zip(shown, sns.color_palette("colorblind", len(shown)), strict=True))
    mine = groups[groups["grouping"] == name].set_index("group")
    subset = "" if curves.total == len(shown) else (
        f"the reference and the {len(shown) - 1} largest of {curves.total:,} groups")
    written = []
    fig, ax = plt.subplots(figsize=(6.4, 5.2), layout="constrained")
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="chance (AUC 0.5)")
    for g in shown:
        part = curves.roc[curves.roc["group"] == g]
        if part.empty or not np.isfinite(part["tpr"]).all():
            continue
        auc = mine.loc[g, "auc"] if g in mine.index else np.nan
        ref = ", reference" if g == curves.reference else ""
        ax.plot(part["fpr"], part["tpr"], color=colors[g], lw=1.8,
                label=f"{figure_text(g)} (AUC {auc:.3f}{ref})")
        if np.isfinite(part["band_low"]).all():
            ax.fill_between(part["fpr"], part["band_low"], part["band_high"], color=colors[g], alpha=0.15,
                            lw=0)
    ax.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="false positive rate", ylabel="true positive rate")
    ax.set_title(f"{figure_text(name)}: ROC curve per group, pointwise 95% bands"
                 + (f"\n{subset}" if subset else ""), fontsize=10, **PLAIN)
    ax.legend(loc="lower right", fontsize=8, title=None, prop={"size": 8})
    path = save_figure(fig, folder / figure_name("roc", name, used), pdf=False)
    plt.close(fig)
    aucs = "; ".join(f"{one_line(g)} {mine.loc[g, 'auc']:.3f}" for g in shown
                     if g in mine.index and np.isfinite(mine.loc[g, "auc"]))
    written.append({"file": path.name, "grouping": name, "kind": "roc", "alt": figure_alt(
        "roc", name, groups=_names(shown), subset=subset, aucs=aucs)})
    if curves.calibration.empty:
        return written
    fig, ax = plt.subplots(figsize=(6.4, 5.2), layout="constrained")
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect calibration")
    for g in shown:
        part = curves.calibration[curves.calibration["group"] == g]
        if part.empty:
            continue
        label = figure_text(g) + (" (reference)" if g == curves.reference else "")
        ax.plot(part["score"], part["observed"], color=colors[g], lw=1.8, label=label)
        if np.isfinite(part["band_low"].to_numpy(dtype=float)).all():
            ax.fill_between(part["score"], part["band_low"], part["band_high"], color=colors[g], alpha=0.15,
                            lw=0)
        dots = curves.bins[curves.bins["group"] == g]
        ax.scatter(dots["score"], dots["observed"], color=colors[g], s=16, zorder=3, edgecolor="white",
                   lw=0.5)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="score", ylabel="share with the outcome")
    ax.set_title(f"{figure_text(name)}: calibration per group (smooth curve, 95% band;\n"
                 f"dots: people in ten equal-width score bins)" + (f"; {subset}" if subset else ""),
                 fontsize=10, **PLAIN)
    ax.legend(loc="upper left", fontsize=8, prop={"size": 8})
    path = save_figure(fig, folder / figure_name("calibration", name, used), pdf=False)
    plt.close(fig)
    icis = "; ".join(f"{one_line(g)} {mine.loc[g, 'ici']:.3f}" for g in shown
                     if g in mine.index and np.isfinite(mine.loc[g, "ici"]))
    written.append({"file": path.name, "grouping": name, "kind": "calibration", "alt": figure_alt(
        "calibration", name, groups=_names(shown), subset=subset, icis=icis)})
    return written


def regression_figures(distributions: dict, folder: Path) -> list[dict]:
    """One figure per grouping of a regression audit: each group's residual distribution, as an ECDF and
    as quantile bars (``distributions``: grouping -> frame ``group, quantile, residual`` of the groups
    shown, with ``attrs["total"]`` groups in all). Returns dicts ``file, grouping, kind, alt``."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    from fairstats.auditing.writing import save_figure, set_style

    set_style()
    written: list[dict] = []
    used: set[str] = set()
    with plt.rc_context({"text.parse_math": False}):
        for name, frame in distributions.items():
            shown = list(dict.fromkeys(frame["group"]))
            colors = dict(zip(shown, sns.color_palette("colorblind", len(shown)), strict=True))
            fig, (left, right) = plt.subplots(
                1, 2, figsize=(10, max(3.8, 0.45 * len(shown) + 2)), layout="constrained",
                gridspec_kw={"width_ratios": [1.2, 1]})
            medians = {}
            for i, g in enumerate(shown):
                part = frame[frame["group"] == g]
                q, r = part["quantile"].to_numpy(), part["residual"].to_numpy()
                label = figure_text(g) + (" (reference)" if i == 0 else "")  # the reference comes first
                left.plot(r, q, color=colors[g], lw=1.8, label=label, drawstyle="steps-post")
                at = dict(zip(np.round(q, 6), r, strict=True))
                right.hlines(i, at[0.05], at[0.95], color=colors[g], lw=1.2)
                right.hlines(i, at[0.25], at[0.75], color=colors[g], lw=6)
                right.scatter([at[0.5]], [i], color="white", edgecolor="black", zorder=3, s=28)
                medians[g] = at[0.5]
            for ax in (left, right):
                ax.axvline(0, color="grey", lw=1, ls="--")
            left.set(xlabel="residual (prediction minus outcome)", ylabel="share of the group at or below")
            left.legend(loc="upper left", fontsize=8, prop={"size": 8})
            right.set_yticks(range(len(shown)))
            right.set_yticklabels([figure_text(g) + ("\n(reference)" if i == 0 else "")
                                   for i, g in enumerate(shown)], **PLAIN)
            right.invert_yaxis()
            right.set_xlabel("residual: median (dot), middle 50% (thick), 5% to 95% (thin)")
            total = frame.attrs.get("total", len(shown))
            subset = "" if total == len(shown) else (
                f"the reference and the {len(shown) - 1} largest of {total:,} groups")
            fig.suptitle(f"{figure_text(name)}: residual distribution per group"
                         + (f"; {subset}" if subset else ""),
                         fontsize=10, **PLAIN)
            path = save_figure(fig, folder / figure_name("residual_distributions", name, used), pdf=False)
            plt.close(fig)
            text = "; ".join(f"{one_line(g)} {m:+.3g}" for g, m in medians.items())
            written.append({"file": path.name, "grouping": name, "kind": "residual_distributions",
                            "alt": figure_alt("residual_distributions", name, groups=_names(shown),
                                              subset=subset, medians=text)})
    return written


def _pair_labels(part):
    """A comparison's label in a figure of every pair of groups: ``group − reference``."""
    return part["group"].astype(str) + " − " + part["reference"].astype(str)
