"""The equal confusion test, Cramér's V and residuals on each NIJ model's out-of-fold predictions (race and
race x gender), and bootstrap intervals for the White - Black disparities of each model. Thin adapter over
compendium.paper_b.nij_equal_confusion."""

import logging

import pandas as pd

from compendium.paper_b.nij_equal_confusion import audit_predictions, with_gender
from compendium.paper_b.predictions import read_predictions
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
p = sm.params
frame = with_gender(
    read_predictions(sm.input.predictions),
    pd.read_parquet(sm.input.table, columns=["ID", "Gender"]),
    source=sm.input.predictions,
    table=sm.input.table,
)
result = audit_predictions(
    frame,
    groups=p.groups,
    metrics=p.metrics,
    favorable=p.favorable,
    alpha=p.alpha,
    n_resamples=p.n_resamples,
    confidence_level=p.confidence_level,
    seed=p.seed,
)
preset = sm.wildcards.preset
write_table(
    result.equal_confusion,
    sm.output.equal_confusion,
    digits=4,
    title=f"Equal confusion test on the NIJ models' out-of-fold predictions ({preset} preset)",
)
write_table(
    result.residuals,
    sm.output.residuals,
    digits=3,
    title=f"Adjusted residuals, NIJ models ({preset} preset)",
)
write_table(
    result.disparities,
    sm.output.disparities,
    digits=4,
    title=f"{p.groups[0]} - {p.groups[1]} disparities with bootstrap intervals, pooled out-of-fold "
    f"predictions ({preset} preset; favourable = {p.favorable})",
)
