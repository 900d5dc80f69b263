"""compendium.paper_b.battery_figures: rule draw_paper_b_figures' figures draw the committed tables' numbers.

Each figure is drawn from the committed inputs of the rule (the paper preset's ``battery_fold_metrics.csv``,
``battery_calibration_bins.csv`` and both batteries, the authors' per-fold files) and its artists are checked
against those tables' values."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from repo_paths import RAW, ROOT

from compendium.paper_b.authors import authors_fold_metrics
from compendium.paper_b.battery_figures import (
    FOLD_METRICS_SHOWN,
    calibration_curves_figure,
    fold_distributions_figure,
    naive_vs_corrected_figure,
)
from compendium.paper_b.printed_layout import read_battery

TABLES = ROOT / "results" / "default" / "nij" / "paper" / "tables"
AUTHORS_BATTERY = ROOT / "results" / "default" / "nij" / "authors" / "tables" / "battery.csv"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_fold_distributions_has_a_panel_per_metric_and_model_spanning_the_fold_values():
    rerun = pd.read_csv(TABLES / "battery_fold_metrics.csv")
    fig = fold_distributions_figure(authors_fold_metrics(RAW / "paper-b-authors"), rerun, preset="paper")
    panels = {ax.get_title(): ax for ax in fig.axes if ax.get_title()}
    assert len(panels) == len(FOLD_METRICS_SHOWN) * 4
    # the rerun's per-fold PPR of LR (battery_fold_metrics.csv) lies within its panel's y range
    ppr = rerun.loc[(rerun["model"] == "lr") & (rerun["metric"] == "ppr"), "value"]
    low, high = panels["ppr | LR"].get_ylim()
    assert low <= ppr.min() and ppr.max() <= high
    assert panels["ppr | LR"].get_ylim() == panels["ppr | XGB"].get_ylim()  # one y scale per metric


def test_calibration_curves_plot_the_observed_share_against_one_minus_the_mean_score():
    bins = pd.read_csv(TABLES / "battery_calibration_bins.csv")
    fig = calibration_curves_figure(bins, favorable=0, preset="paper")
    assert [ax.get_title() for ax in fig.axes] == [
        "Logistic Regression",
        "Linear Discriminant Analysis",
        "Random Forest",
        "Gradient Boosting",
    ]
    lr = bins[(bins["model"] == "lr") & (bins["n_unprotected"] > 0)]
    white, black, diagonal = fig.axes[0].get_lines()
    assert white.get_label() == "White" and black.get_label() == "Black"
    # favourable outcome 0: the predicted share of it is 1 - S
    np.testing.assert_allclose(white.get_xdata(), 1 - lr["mean_score_unprotected"])
    np.testing.assert_allclose(white.get_ydata(), lr["rate_unprotected"])
    assert list(diagonal.get_xdata()) == [0, 1] and list(diagonal.get_ydata()) == [0, 1]


def test_naive_vs_corrected_draws_every_fold_based_test_of_both_sources():
    battery = pd.concat(
        [read_battery(AUTHORS_BATTERY, align=True), read_battery(TABLES / "battery.csv")], ignore_index=True
    )
    fig = naive_vs_corrected_figure(battery, alpha=0.05)
    (ax,) = fig.axes
    points = np.concatenate([c.get_offsets() for c in ax.collections])
    t_rows = battery[battery["statistic_paper_formula"].notna()]
    # 88 tests: 4 models x (the authors' Tables II-XI, the rerun's II-XI, XIV and XV)
    assert len(points) == len(t_rows) == 88
    expected = np.column_stack(
        [t_rows["pvalue_paper_formula"].clip(lower=1e-300), t_rows["pvalue_corrected"].clip(lower=1e-300)]
    )
    np.testing.assert_allclose(np.sort(points, axis=0), np.sort(expected, axis=0))
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
