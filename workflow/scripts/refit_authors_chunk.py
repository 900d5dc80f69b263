"""The authors' causal-discrimination refit of one model on a chunk of test folds (Race_WHITE dropped)."""

import logging
import sys
import time
import warnings

import pandas as pd

from compendium.authors_procedure import refit_fold_chunk
from compendium.crossval import write_predictions

log = open(snakemake.log[0], "w", buffering=1)  # noqa: F821, SIM115
sys.stderr = log  # the tqdm bar (one step per fold) and warnings go to the job's log
logging.basicConfig(stream=log, level=logging.INFO, format="%(asctime)s %(message)s")
logging.captureWarnings(True)
warnings.simplefilter("default")

p = snakemake.params  # noqa: F821
model = snakemake.wildcards.model  # noqa: F821
start = time.perf_counter()
table = pd.read_parquet(snakemake.input.table)  # noqa: F821
logging.info("authors' refit, model %s, folds %s", model, list(p.folds))
result = refit_fold_chunk(
    table, model=model, test_folds=list(p.folds), favorable=p.favorable, settings={"source": p.source}
)
write_predictions(result, snakemake.output.predictions)  # noqa: F821
logging.info("wrote %d predictions in %.2f s", len(result.predictions), time.perf_counter() - start)
