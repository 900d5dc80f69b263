"""Gather one preset's prediction chunks into one tidy parquet file (same settings, no fold twice)."""

import logging

from compendium.paper_b.fold_accuracy import fold_accuracy
from compendium.paper_b.predictions import gather_predictions, write_predictions

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, filemode="w")  # noqa: F821
result = gather_predictions(list(snakemake.input.chunks), models=list(snakemake.params.models))  # noqa: F821
write_predictions(result, snakemake.output.predictions)  # noqa: F821
accuracy = fold_accuracy(result.predictions).groupby("model", observed=True)["accuracy"].agg(["mean", "size"])
for model, row in accuracy.iterrows():
    not_converged = result.settings["models"][model]["not_converged"]
    logging.info(
        "%s: %d folds, mean accuracy %.4f, fits not converged: %d",
        model,
        row["size"],
        row["mean"],
        len(not_converged),
    )
logging.info("%d rows from %d chunks", len(result.predictions), len(snakemake.input.chunks))  # noqa: F821
