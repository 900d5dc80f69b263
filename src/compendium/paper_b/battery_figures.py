"""The figures of paper B's battery (rule ``draw_paper_b_figures``; shown by ``paper_b_battery.ipynb``).

* :func:`fold_distributions_figure` — the per-fold values behind the t-tests, by race, model and source;
* :func:`calibration_curves_figure` — the observed share of the favourable outcome per score bin and race;
* :func:`naive_vs_corrected_figure` — each fold-based test's p-value under the paper's formula against the
  corrected resampled t's.

Each returns a Matplotlib figure in the compendium's style; the rule saves it as PNG and PDF.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from compendium.paper_b.printed_layout import MODEL_NAME

__all__ = [
    "FOLD_METRICS_SHOWN",
    "calibration_curves_figure",
    "fold_distributions_figure",
    "naive_vs_corrected_figure",
]

#: The per-fold metrics drawn, one row of panels each.
FOLD_METRICS_SHOWN = (
    "ppr",
    "tpr",
    "fpr",
    "fnr",
    "ppv",
    "npv",
    "accuracy",
    "fn_fp_ratio",
    "mean_score_pos",
    "mean_score_neg",
)
_SHORT = {"lr": "LR", "lda": "LDA", "rf": "RF", "xgb": "XGB"}


def fold_distributions_figure(fold_authors: pd.DataFrame, fold_rerun: pd.DataFrame, *, preset: str):
    """Box plots of every model's per-fold values of :data:`FOLD_METRICS_SHOWN` by race, the authors' files
    beside the rerun (``model, metric, group, fold, value`` each; groups ``White``/``Black``)."""
    import seaborn as sns

    from fairstats.plotting import set_style

    set_style()
    columns = ["model", "metric", "group", "fold", "value", "source"]
    long = pd.concat(
        [
            fold_authors.assign(source="authors-per-fold")[columns],
            fold_rerun.assign(source=f"rerun ({preset})")[columns],
        ],
        ignore_index=True,
    )
    long = long[long["metric"].isin(FOLD_METRICS_SHOWN)].dropna(subset=["value"])
    long["model"] = long["model"].map(_SHORT)
    grid = sns.catplot(
        data=long,
        x="group",
        y="value",
        hue="source",
        row="metric",
        col="model",
        kind="box",
        order=["White", "Black"],
        row_order=list(FOLD_METRICS_SHOWN),
        col_order=list(_SHORT.values()),
        sharey="row",
        height=2.0,
        aspect=1.5,
        fliersize=1,
    )
    grid.set_titles("{row_name} | {col_name}")
    grid.set_axis_labels("", "")
    grid.figure.suptitle("Per-fold metrics by race and model (FN/FP: folds with no FP left out)", y=1.01)
    return grid.figure


def calibration_curves_figure(calibration_bins: pd.DataFrame, *, favorable: int, preset: str):
    """Per model and race, the observed share of the favourable outcome in each score bin against the mean
    predicted probability of it (``1 - S`` when the favourable outcome is 0); marker area ~ people in the bin.
    ``calibration_bins`` is rule ``run_battery``'s ``battery_calibration_bins.csv``."""
    import matplotlib.pyplot as plt

    from fairstats.plotting import set_style

    set_style()
    fig, axes = plt.subplots(1, len(MODEL_NAME), figsize=(4 * len(MODEL_NAME), 4), sharex=True, sharey=True)
    for ax, (model, name) in zip(np.atleast_1d(axes), MODEL_NAME.items(), strict=False):
        b = calibration_bins[calibration_bins["model"] == model]
        for role, label in (("unprotected", "White"), ("protected", "Black")):
            score = b[f"mean_score_{role}"]
            predicted = 1 - score if favorable == 0 else score
            observed = b[f"rate_{role}"]
            n = b[f"n_{role}"]
            ok = n > 0
            ax.plot(predicted[ok], observed[ok], marker="o", label=label)
            ax.scatter(predicted[ok], observed[ok], s=np.sqrt(n[ok]) * 2, alpha=0.3)
        ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--")
        ax.set_title(name)
        ax.set_xlabel("mean predicted P(favourable) in bin")
    np.atleast_1d(axes)[0].set_ylabel("observed share favourable")
    np.atleast_1d(axes)[0].legend(title="race")
    fig.suptitle(f"Calibration by race, 10 score bins (rerun, preset {preset}); marker area ~ people in bin")
    return fig


def naive_vs_corrected_figure(battery: pd.DataFrame, *, alpha: float):
    """Each fold-based t-test of ``battery`` (both sources, :func:`compendium.paper_b.printed_layout.
    read_battery`): its p-value under the paper's formula against the corrected resampled t's, log scales
    (below 1e-300 drawn at 1e-300), the paper's ``alpha`` dashed; the marker's shape marks the alpha/2 of a
    two-test definition, its size a verdict that changes."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    from fairstats.plotting import set_style

    set_style()
    t_rows = battery[battery["statistic_paper_formula"].notna()].copy()
    t_rows["p_paper"] = t_rows["pvalue_paper_formula"].clip(lower=1e-300)
    t_rows["p_corrected"] = t_rows["pvalue_corrected"].clip(lower=1e-300)
    t_rows["level"] = np.where(t_rows["alpha"] < alpha, "α/2 (two-test definition)", "α")
    t_rows["changes"] = np.where(t_rows["verdict_changes"].fillna(False), "verdict changes", "verdict kept")
    fig, ax = plt.subplots(figsize=(7, 6))
    sns.scatterplot(
        data=t_rows,
        x="p_paper",
        y="p_corrected",
        hue="source",
        style="level",
        size="changes",
        sizes={"verdict changes": 90, "verdict kept": 30},
        ax=ax,
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.axvline(alpha, color="grey", ls="--", lw=1)
    ax.axhline(alpha, color="grey", ls="--", lw=1)
    ax.set_xlim(t_rows["p_paper"].min() / 10, 2)
    ax.set_ylim(t_rows["p_corrected"].min() / 10, 2)
    ax.set_xlabel("p-value, paper's formula (t without the square root)")
    ax.set_ylabel("p-value, corrected resampled t")
    ax.set_title("Paper B's fold-based tests: naive vs corrected p-values")
    ax.legend(loc="lower right", fontsize=8)
    return fig
