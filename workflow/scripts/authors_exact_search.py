"""The authors' exact neighbour search on a few folds under several floating-point set-ups (opt-in rule)."""

import logging

import pandas as pd

from compendium.paper_b.authors_awareness import awareness_matrix, compare_setups
from fairstats.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
matrix = awareness_matrix(pd.read_parquet(sm.input.table))
result = compare_setups(matrix, list(sm.params.folds))
write_table(result, sm.output.pairs, digits=17, title="The authors' neighbour search under three set-ups")
summary = (
    result.groupby("setup", sort=False)
    .agg(
        people=("ID", "size"),
        same_neighbour_as_first=("same_as_first", "sum"),
        min_distance_minus_sqrt2=("distance_minus_sqrt2", "min"),
        max_distance_minus_sqrt2=("distance_minus_sqrt2", "max"),
    )
    .reset_index()
)
summary["share_changed"] = 1 - summary["same_neighbour_as_first"] / summary["people"]
write_table(
    summary, sm.output.summary, digits=6, title="How often the chosen neighbour changes with the set-up"
)
logging.info("%s", summary.to_dict("records"))
