"""Fit one model of one preset on a chunk of test folds; write out-of-fold and race-flipped predictions."""

import functools
import logging
import sys
import time
import warnings

import pandas as pd

from compendium.data.nij import design_matrix, flip_race
from compendium.paper_b.crossval import assign_folds, fit_predict_folds
from compendium.paper_b.models import PRESET_FEATURES, make_model
from compendium.paper_b.predictions import write_predictions

log = open(snakemake.log[0], "w", buffering=1)  # noqa: F821, SIM115
sys.stderr = log  # the tqdm bar (one step per fold) and warnings go to the job's log
logging.basicConfig(stream=log, level=logging.INFO, format="%(asctime)s %(message)s")
logging.captureWarnings(True)
warnings.simplefilter("default")

p = snakemake.params  # noqa: F821
model, preset = snakemake.wildcards.model, snakemake.wildcards.preset  # noqa: F821
features = PRESET_FEATURES[preset]
start = time.perf_counter()
table = pd.read_parquet(snakemake.input.table)  # noqa: F821
dm = design_matrix(table, features=features)
fold = assign_folds(
    dm.y_true,
    dm.group,
    scheme=p.fold_scheme,
    fold=dm.fold if p.fold_scheme == "paper" else None,
    n_splits=p.n_splits,
    seed=p.seed,
)
logging.info(
    "preset %s (features %s), model %s, folds %s; data %d x %d, read in %.2f s",
    preset, features, model, list(p.folds), *dm.X.shape, time.perf_counter() - start,
)  # fmt: skip
result = fit_predict_folds(
    dm.X,
    dm.y_true,
    fold,
    group=dm.group,
    ID=dm.ID,
    model=make_model(model, preset=preset, seed=p.seed),
    name=model,
    test_folds=list(p.folds),
    counterfactual=functools.partial(flip_race, features=features),
    favorable=p.favorable,
    settings={
        "preset": preset,
        "features": features,
        "source": p.source,
        "fold_scheme": p.fold_scheme,
        "n_splits": p.n_splits if p.fold_scheme == "stratified" else None,
        "seed": p.seed,
    },
)
write_predictions(result, snakemake.output.predictions)  # noqa: F821
info = result.settings["models"][model]
logging.info(
    "wrote %d predictions; fits not converged: %d of %d folds; %.2f s in all",
    len(result.predictions), len(info["not_converged"]), len(info["test_folds"]), time.perf_counter() - start,
)  # fmt: skip
