"""Tables XXI-XXIV from the exact search on every fold (opt-in rule gather_awareness_exact_search)."""

import logging

import pandas as pd

from compendium.paper_b.authors import read_published_b
from compendium.paper_b.authors_awareness import exact_search_counts, printed_awareness_cells
from compendium.paper_b.predictions import read_predictions
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
neighbours = pd.concat([pd.read_csv(path) for path in sm.input.chunks], ignore_index=True)
folds = sorted(neighbours["fold"].unique())
printed = printed_awareness_cells(read_published_b(sm.input.published))
counts = exact_search_counts(neighbours, read_predictions(sm.input.refits), printed)
write_table(
    counts,
    sm.output.counts,
    title=f"Tables XXI-XXIV from the authors' exact neighbour search on {len(folds)} folds (their set-up)",
)
logging.info("%d folds, %d people; %d of %d cells equal the printed", len(folds), len(neighbours),
             int((counts["n"] == counts["published"]).sum()), len(counts))
