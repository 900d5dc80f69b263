"""The set-up sensitivity of the authors' exact neighbour search on a sample of folds (opt-in rule)."""

import logging

import pandas as pd

from compendium.paper_b.authors_awareness import awareness_matrix, compare_setups, setup_sensitivity
from compendium.paper_b.predictions import read_predictions
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
folds = list(sm.params.folds)
result = compare_setups(awareness_matrix(pd.read_parquet(sm.input.table)), folds)
every_fold = pd.concat([pd.read_csv(f) for f in sm.input.chunks], ignore_index=True)
summary, counts = setup_sensitivity(result, every_fold, read_predictions(sm.input.refits))
write_table(result, sm.output.pairs, digits=17, title="The authors' neighbour search under three set-ups")
write_table(
    summary, sm.output.summary, digits=6, title="How often the chosen neighbour changes with the set-up"
)
write_table(
    counts,
    sm.output.counts,
    digits=6,
    title=f"Tables XXI-XXIV on {len(folds)} folds under each set-up (the authors' refits)",
)
logging.info("%s", summary.to_dict("records"))
