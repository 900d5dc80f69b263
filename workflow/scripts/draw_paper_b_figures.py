"""The figures of paper B's battery: per-fold values by race (the authors' and the rerun's), calibration
curves by race, and the naive against the corrected p-values. Thin adapter over
compendium.paper_b.battery_figures."""

import logging

import matplotlib.pyplot as plt
import pandas as pd

from compendium.paper_b.authors import authors_fold_metrics
from compendium.paper_b.battery_figures import (
    calibration_curves_figure,
    fold_distributions_figure,
    naive_vs_corrected_figure,
)
from compendium.paper_b.printed_layout import read_battery
from fairstats.plotting import save_figure

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
p, preset = sm.params, sm.wildcards.preset
battery = pd.concat(
    [read_battery(sm.input.authors_battery, align=True), read_battery(sm.input.battery)], ignore_index=True
)
figures = {
    sm.output.distributions: fold_distributions_figure(
        authors_fold_metrics(p.raw_dir), pd.read_csv(sm.input.fold_metrics), preset=preset
    ),
    sm.output.calibration: calibration_curves_figure(
        pd.read_csv(sm.input.calibration_bins), favorable=p.favorable, preset=preset
    ),
    sm.output.pvalues: naive_vs_corrected_figure(battery, alpha=p.alpha),
}
for path, fig in figures.items():
    save_figure(fig, path)
    plt.close(fig)
    logging.info("wrote %s", path)
