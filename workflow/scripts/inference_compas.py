"""Paper B's outcome tests without folds on COMPAS (two groups, bootstrap intervals, the paper's tails and
two-sided), Holm/BH over them, and Cramér's V of each grouping with its noncentral chi-squared interval. Thin
adapter over compendium.paper_b.compas_outcomes."""

import logging

import pandas as pd

from compendium.paper_b.compas_outcomes import compas_outcome_tables
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
logging.captureWarnings(True)
p = sm.params
result = compas_outcome_tables(
    pd.read_parquet(sm.input.data),
    groups=p.groups,
    groupings=p.groupings,
    favorable=p.favorable,
    alpha=p.alpha,
    n_resamples=p.n_resamples,
    confidence_level=p.confidence_level,
    seed=p.seed,
)
title = (
    f"Paper B's outcome tests without folds on COMPAS ({sm.wildcards.filter}): {p.groups[0]} - "
    f"{p.groups[1]}, favourable = {p.favorable} (low risk), score = decile / 10, {p.n_resamples} resamples"
)
write_table(result.tests, sm.output.tests, digits=4, title=title)
write_table(
    result.cramers_v,
    sm.output.cramers_v,
    digits=4,
    title="Cramér's V (confusion parity error), bias-corrected V and its noncentral chi-squared interval",
)
