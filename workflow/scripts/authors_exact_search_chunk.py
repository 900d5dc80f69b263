"""One chunk of the authors' exact neighbour search on every fold (opt-in rule authors_exact_search_chunk)."""

import logging
import time

import pandas as pd

from compendium.paper_b.authors_awareness import awareness_matrix, exact_search_chunk
from compendium.publish.reporting import atomic_write_text

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
matrix = awareness_matrix(pd.read_parquet(sm.input.table))
start = time.perf_counter()
neighbours = exact_search_chunk(matrix, list(sm.params.folds))
logging.info(
    "folds %s: %d people in %.1f s", list(sm.params.folds), len(neighbours), time.perf_counter() - start
)
# distances at full precision (repr): the search's ties are decided in their last bits
atomic_write_text(sm.output.neighbours, neighbours.to_csv(index=False, lineterminator="\n"))
