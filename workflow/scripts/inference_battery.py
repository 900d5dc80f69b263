"""Multiplicity control over paper B's battery: Holm and Benjamini-Hochberg adjusted p-values (per model and
over the whole battery) and the verdict tables. Thin adapter over compendium.paper_b.battery_multiplicity."""

import logging

import pandas as pd

from compendium.paper_b.battery_multiplicity import adjust_battery
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
source = sm.wildcards.source
battery = pd.read_csv(sm.input.battery)
result = adjust_battery(battery, alpha=sm.params.alpha)
write_table(
    result.adjusted,
    sm.output.adjusted,
    digits=4,
    title=f"Paper B's battery ({source}): correct p-values adjusted by Holm and BH, overall and per model",
)
write_table(
    result.verdicts,
    sm.output.verdicts,
    digits=4,
    title=f"Which of paper B's violations survive ({source}; Holm and BH over the whole battery)",
)
write_table(
    result.per_model,
    sm.output.verdicts_model,
    digits=4,
    title=f"Which of paper B's violations survive ({source}; Holm and BH within each model)",
)
logging.info(
    "%s: %d tests, verdicts %s", source, len(battery), result.verdicts["verdict"].value_counts().to_dict()
)
