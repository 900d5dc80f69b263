"""The report of ``fairstats audit``: figures, the Markdown report, its HTML page and the terminal summary.

Group values and column names from the data are shown as text (escaped), never interpreted as Markdown or
HTML.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fairstats import __version__
from fairstats.reporting import one_line

if TYPE_CHECKING:
    from fairstats.audit import AuditOptions, _Collected, _Prepared

__all__ = ["markdown_to_html"]

_METRIC_WORDS = {
    "ppr": "share predicted {fav}",
    "tpr": "among actual {fav}, share predicted {fav}",
    "fpr": "among actual {other}, share (wrongly) predicted {fav}",
    "fnr": "among actual {fav}, share (wrongly) predicted {other}",
    "tnr": "among actual {other}, share predicted {other}",
    "ppv": "among predicted {fav}, share actually {fav}",
    "npv": "among predicted {other}, share actually {other}",
    "accuracy": "share of correct predictions",
    "fn_fp_ratio": "people wrongly denied {fav} per person wrongly granted {fav} (FN / FP)",
    "mean_score_pos": "mean score of people with actual {fav}",
    "mean_score_neg": "mean score of people with actual {other}",
    "calibration": "outcome rate within score bins (calibration)",
}

_TEST_WORDS = {
    "group_fairness": "group fairness",
    "equalized_odds": "equalized odds / equal opportunity",
    "conditional_use_accuracy_equality": "conditional use accuracy equality",
    "overall_accuracy_equality": "overall accuracy equality",
    "treatment_equality": "treatment equality",
    "balance_positive_class": "balance for the favourable class",
    "balance_negative_class": "balance for the unfavourable class",
    "calibration": "calibration",
}


#: A comparison whose denominator has fewer cases than this gets a note: its bootstrap interval is unreliable.
_SMALL = 10


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "grouping"


# --------------------------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------------------------


#: Figures show at most this many groups (those that stand out most; the tables hold all of them).
_MAX_FIGURE_GROUPS = 40


def _figures(acc: _Collected, tests: pd.DataFrame, folder: Path, labels: tuple[str, str]) -> list[str]:
    import matplotlib.pyplot as plt
    import seaborn as sns

    from fairstats.plotting import DIVERGING, save_figure, set_style

    set_style()
    written = []
    for name, res in acc.results.items():
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
            f"{name}: adjusted residuals (boxed: past the Bonferroni cut-off {res.bonferroni_cutoff:.2f})"
            + shown
        )
        ax.set_xlabel("confusion cell")
        ax.set_ylabel(name)
        path = save_figure(fig, folder / f"residuals_{_slug(name)}.png", pdf=False)
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
                ax.errorbar(
                    est[ok],
                    y[ok],
                    xerr=[est[ok] - low[ok], high[ok] - est[ok]],
                    fmt="none",
                    ecolor="black",
                    elinewidth=1,
                    capsize=2,
                )
                ax.scatter(est[ok & ~sig], y[ok & ~sig], color="white", edgecolor="black", zorder=3)
                ax.scatter(est[ok & sig], y[ok & sig], color="black", zorder=3)
                ax.set_title(metric, fontsize=10)
                ax.set_yticks(y)
                ax.set_yticklabels(groups)
                ax.invert_yaxis()
            reference = part["reference"].iloc[0]
            subset = "" if total == len(groups) else f"; the {len(groups)} of {total:,} with the smallest p"
            fig.suptitle(
                f"{name}: each group minus {reference} (95% interval; filled = significant after Holm)"
                + subset,
                fontsize=10,
            )
            path = save_figure(fig, folder / f"disparities_{_slug(name)}.png", pdf=False)
            plt.close(fig)
            written.append(path.name)
    return written

# --------------------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------------------


def _p(p: float) -> str:
    if not np.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _p_eq(p: float) -> str:
    text = _p(p)
    return text if text.startswith(("<", "n/a")) else f"= {text}"


def _report_header(options: AuditOptions, prep: _Prepared, acc: _Collected) -> list[str]:
    fav, other = prep.labels
    groups = ", ".join(f"`{g}`" for g in options.groups)
    lines = [
        "# Fairness audit",
        "",
        f"*fairstats {__version__} — `fairstats audit {options.predictions.name}` — seed {options.seed}*",
        "",
        "## What was checked",
        "",
        f"- **Data:** `{options.predictions.name}`, {prep.n:,} people.",
        f"- **Outcome:** true outcome `{options.y_true}`, prediction `{options.y_pred}`; "
        f"the favourable outcome is **{fav}** (the other label is {other}).",
        f"- **Groups:** {groups}" + (" and their intersection." if len(options.groups) > 1 else "."),
        f"- **Significance level:** {options.alpha:g}. Intervals are 95% intervals.",
    ]
    if options.fold is not None:
        lines.append(
            f"- **Cross-validation folds:** `{options.fold}`. Disparities are compared fold by fold with "
            "the corrected resampled t-test, which allows for the folds' models sharing training data."
        )
    for name, sizes in acc.sizes.items():
        pieces = ", ".join(f"{g} {k:,}" for g, k in sizes.items())
        lines.append(f"- **{name}** groups (people): {pieces}.")
    return lines


def _report_equal_confusion(options: AuditOptions, acc: _Collected, equal, residuals) -> list[str]:
    first = next(iter(acc.results.values()))
    legend = "; ".join(
        f"{c} = predicted {p}, actually {t}" for c, p, t in first.cells.itertuples(index=False, name=None)
    )
    lines = [
        "",
        "## 1. Do the groups' confusion matrices differ? (equal confusion test)",
        "",
        "Each prediction is right or wrong in one of a few ways, the cells of the confusion matrix "
        f"({legend}). The equal confusion test asks whether the shares of these cells are the same in "
        "every group. A small p-value means the differences are too large to be chance. Cramér's V "
        "measures how large they are (0 = identical groups, 1 = completely different).",
        "",
    ]
    for row in equal.to_dict(orient="records"):
        differ = row["pvalue"] < options.alpha
        verdict = "**the groups differ**" if differ else "no clear difference"
        perm = ""
        if not row["cochran_ok"]:
            perm = (
                " Some groups are small, so the usual p-value is approximate; the permutation p-value, "
                f"which does not need large groups, is {_p(row['pvalue_permutation'])}."
            )
            if differ and row["pvalue_permutation"] >= options.alpha:
                verdict = (
                    "the usual test says the groups differ, but the permutation test does not confirm it"
                )
        lines.append(
            f"- **{row['grouping']}:** {verdict} (chi-squared = {row['statistic']:.2f}, df = {row['df']}, "
            f"p {_p_eq(row['pvalue'])}); Cramér's V = {row['cramers_v']:.3f} (95% interval "
            f"{row['cramers_v_ci_low']:.3f} to {row['cramers_v_ci_high']:.3f}), a {row['effect_size']} "
            f"effect.{perm}"
        )
    lines += [
        "",
        "### Which groups and cells stand out",
        "",
        "An adjusted residual compares a group's count in a cell with the count expected if all groups "
        "were alike. Past the Bonferroni cut-off for the number of cells (listed below; boxed in the "
        "figures) the cell stands out; `flag_3_29` in residuals.csv marks the fixed cut-off ±3.29 "
        "(α = 0.001). Positive: more cases than expected.",
        "",
    ]
    flagged = residuals[residuals["flag_bonferroni"]]
    if len(flagged) == 0:
        lines.append("No cell passes the Bonferroni cut-off.")
    for row in flagged.to_dict(orient="records"):
        direction = "more" if row["adjusted_residual"] > 0 else "fewer"
        lines.append(
            f"- {row['grouping']} = **{row['group']}**: {direction} {row['cell']} (predicted "
            f"{row['y_pred']}, actually {row['y_true']}) than expected: {int(row['observed'])} vs "
            f"{row['expected']:.1f} (residual {row['adjusted_residual']:+.1f})."
        )
    return lines


def _report_disparities(prep: _Prepared, tests: pd.DataFrame) -> list[str]:
    fav, other = prep.labels
    lines = ["", "## 2. Outcome disparities (paper B's fairness definitions)", ""]
    if len(tests) == 0:
        return [*lines, "No comparison could be made."]
    words = {m: w.format(fav=fav, other=other) for m, w in _METRIC_WORDS.items()}
    total = int(tests["pvalue"].notna().sum())
    lines += [
        f"Each group is compared with the largest group of its grouping. With {total} comparisons, a few "
        "would look significant by chance alone, so the p-values are adjusted (Holm's method keeps the "
        "chance of even one false alarm below the significance level; Benjamini–Hochberg keeps the "
        "expected share of false alarms among the findings below it).",
        "",
        f"**{int(tests['significant_adj'].sum())} of {total} comparisons are significant after Holm's "
        f"adjustment** ({int(tests['significant_bh'].sum())} after Benjamini–Hochberg, "
        f"{int(tests['significant'].sum())} before any adjustment):",
        "",
    ]
    for row in tests[tests["significant_adj"]].to_dict(orient="records"):
        who = f"- {row['grouping']} = **{row['group']}** vs {row['reference']}"
        if row["metric"] == "calibration":
            lines.append(
                f"{who}: outcome rates within score bins differ (adjusted p {_p_eq(row['pvalue_adj'])})."
            )
            continue
        lines.append(
            f"{who}: {words.get(row['metric'], row['metric'])}: {row['value_group']:.3f} vs "
            f"{row['value_reference']:.3f}; difference {row['estimate']:+.3f} (95% interval "
            f"{row['ci_low']:+.3f} to {row['ci_high']:+.3f}; adjusted p {_p_eq(row['pvalue_adj'])})."
        )
    lines += ["", "What the measures mean (fairness definition in brackets):", ""]
    for metric, test in tests[["metric", "test"]].drop_duplicates("metric").itertuples(index=False):
        lines.append(f"- `{metric}`: {words.get(metric, metric)} ({_TEST_WORDS.get(test, test)}).")
    return lines


def _report(
    options: AuditOptions,
    prep: _Prepared,
    acc: _Collected,
    equal: pd.DataFrame,
    residuals: pd.DataFrame,
    tests: pd.DataFrame,
    figures: list[str],
) -> str:
    lines = _report_header(options, prep, acc)
    lines += _report_equal_confusion(options, acc, equal, residuals)
    lines += _report_disparities(prep, tests)
    lines += ["", "## Figures", "", *(f"![{f}]({f})" for f in figures), ""]
    caveats = [
        "A significant difference says the disparity is unlikely to be chance in these data; it does not "
        "say why it arises, nor whether it is unfair in context.",
        f"Intervals for comparisons with fewer than {_SMALL} cases in a denominator are unreliable "
        "(see the `note` column of tests.csv).",
    ]
    if options.fold is None:
        caveats.append(
            "Intervals and tests treat people as independent. Out-of-fold predictions of cross-validated "
            "models are only approximately so; use --fold for fold-aware tests."
        )
        caveats.append(
            f"The intervals are BCa bootstrap intervals ({options.n_resamples} resamples, seed "
            f"{options.seed}): group sizes fixed, people resampled within their group."
        )
    lines += ["## Notes and caveats", "", *(f"- {c}" for c in caveats)]
    lines += [f"- {one_line(n)}" for n in dict.fromkeys(acc.notes)]
    lines += [
        "",
        "## Files",
        "",
        "- `equal_confusion.csv`: one row per grouping (statistic, df, p-value, Cramér's V and interval).",
        "- `residuals.csv`: one row per group and confusion cell (observed, expected, residual, flags).",
        "- `tests.csv`: one row per comparison (estimate, interval, statistic, p-value, adjusted p-values).",
        "",
    ]
    return "\n".join(lines)


_HTML_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.5; color: #222; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 0.2rem 0.5rem; }}
img {{ max-width: 100%; }} code {{ background: #f4f4f4; padding: 0 0.2rem; }}
</style></head><body>
{body}
</body></html>
"""


def markdown_to_html(text: str, *, title: str = "Fairness audit") -> str:
    """Render the report's Markdown as a standalone HTML page (mistune, shipped with nbconvert)."""
    try:
        import mistune

        body = mistune.create_markdown(escape=True, plugins=["table"])(text)
    except ImportError:  # pragma: no cover - mistune comes with nbconvert, a pinned dependency
        body = "<pre>" + html.escape(text) + "</pre>"
    return _HTML_TEMPLATE.format(title=html.escape(title), body=body)

def _summary(
    options: AuditOptions, prep: _Prepared, equal: pd.DataFrame, tests: pd.DataFrame, notes, out
) -> str:
    fav, _ = prep.labels
    lines = [
        f"fairstats audit: {prep.n:,} people, favourable outcome = {fav}, alpha = {options.alpha:g}"
    ]
    lines.append("  equal confusion test (do the groups' confusion matrices differ?)")
    width = max(len(g) for g in equal["grouping"])
    for row in equal.to_dict(orient="records"):
        p = _p(row["pvalue"])
        p = p if p.startswith("<") else f"= {p}"
        verdict = "differ" if row["pvalue"] < options.alpha else "no clear difference"
        perm = "" if row["cochran_ok"] else f" (permutation p {_p(row['pvalue_permutation'])})"
        lines.append(
            f"    {row['grouping']:<{width}}  chi2 = {row['statistic']:8.2f}  df = {row['df']:<3} p {p:<8} "
            f"V = {row['cramers_v']:.3f} [{row['cramers_v_ci_low']:.3f}, {row['cramers_v_ci_high']:.3f}]  "
            f"{verdict}{perm}"
        )
    if len(tests):
        lines.append(
            f"  outcome disparities: {int(tests['significant_adj'].sum())} of "
            f"{int(tests['pvalue'].notna().sum())} "
            f"comparisons significant after Holm ({int(tests['significant_bh'].sum())} after BH, "
            f"{int(tests['significant'].sum())} unadjusted)"
        )
    if notes:
        lines.append(f"  {len(notes)} note(s): see the report")
    lines.append(f"  report: {out / 'report.html'}")
    return "\n".join(lines)
