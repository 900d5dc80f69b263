"""Paper B's models pairwise, summarised for the notebook paper_b_battery.ipynb: the pairs found fairer or
less fair beyond chance (Holm), and how many comparisons reach each verdict. Thin adapter over
compendium.paper_b.model_comparison."""

import logging

import pandas as pd

from compendium.paper_b.model_comparison import fairer_pairs, verdict_counts
from fairstats.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
preset = sm.wildcards.preset
table = pd.read_csv(sm.input.table, keep_default_na=False, na_values=[""])
table["verdict_note"] = table["verdict_note"].fillna("")
found = fairer_pairs(table)
write_table(
    found,
    sm.output.fairer,
    digits=6,
    title=f"Paper B's models (preset {preset}): the pairs whose change of disparity is significant after "
    "Holm, the model with the smaller disparity first",
)
write_table(
    verdict_counts(table),
    sm.output.verdicts,
    title=f"Paper B's models pairwise (preset {preset}): comparisons per verdict, reading and family",
)
logging.info("%d pairs found fairer or less fair", len(found))
