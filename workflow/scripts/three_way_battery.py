"""Three-way verdicts over paper B's battery (issue 12): disparity, equivalent within the margin,
inconclusive or undefined, per row, after Holm over the whole battery. Thin adapter over
compendium.paper_b.three_way."""

import logging

import numpy as np
import pandas as pd

from compendium.paper_b.three_way import battery_three_way
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
battery = pd.read_csv(sm.input.battery)
adjusted = pd.read_csv(sm.input.adjusted)
# The correct p-value of each row, as rule adjust_battery chose it (same row order).
battery["pvalue_correct"] = adjusted["pvalue_correct"].to_numpy(dtype=float)
three_way = battery_three_way(battery, margin=sm.params.margin, alpha=sm.params.alpha)
write_table(
    three_way,
    sm.output.three_way,
    digits=4,
    title=(
        f"Paper B's battery ({sm.wildcards.source}): three-way verdicts, margin ±{sm.params.margin:g}, "
        f"Holm over the battery at alpha = {sm.params.alpha:g}"
    ),
)
logging.info("%s", three_way["verdict"].value_counts().to_dict())
assert np.array_equal(adjusted["model"].to_numpy(), battery["model"].to_numpy()), "row order changed"
