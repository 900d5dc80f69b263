"""Sound tests of a risk score by group (issue 26): COMPAS' decile score (rule test_scores_compas) or paper
B's predicted probabilities of the NIJ models (rule test_scores_nij). Thin adapter over
compendium.paper_b.score_audit."""

import logging

import pandas as pd

from compendium.paper_b.score_audit import score_test_tables
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
logging.captureWarnings(True)
p = sm.params
result = score_test_tables(
    pd.read_parquet(sm.input.data),
    groupings=p.groupings,
    alpha=p.alpha,
    confidence_level=p.confidence_level,
    margin=p.margin,
    n_resamples=p.n_resamples,
    seed=p.seed,
)
per = " and model" if result.per_model else ""
title = f"{p.title}: one row per group, reference and metric; Holm within each grouping{per}"
write_table(result.tests, sm.output.tests, digits=4, title=title)
if hasattr(sm.output, "calibration"):
    write_table(
        result.calibration,
        sm.output.calibration,
        digits=4,
        title=f"{p.title}: calibration-in-the-large, slope and ICI per group",
    )
