"""The authors' causal-discrimination refit of one model on a chunk of test folds (Race_WHITE dropped)."""

import logging
import time

import pandas as pd

from compendium.paper_b.authors_procedure import refit_fold_chunk
from compendium.paper_b.predictions import write_predictions

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w", format="%(asctime)s %(message)s")
logging.captureWarnings(True)  # e.g. the unconverged logistic regression, once per chunk
p, model, start = sm.params, sm.wildcards.model, time.perf_counter()
logging.info("authors' refit, model %s, folds %s", model, list(p.folds))
result = refit_fold_chunk(
    pd.read_parquet(sm.input.table),
    model=model,
    test_folds=list(p.folds),
    favorable=p.favorable,
    settings={"source": p.source},
    progress=False,
)
write_predictions(result, sm.output.predictions)
logging.info("wrote %d predictions in %.2f s", len(result.predictions), time.perf_counter() - start)
