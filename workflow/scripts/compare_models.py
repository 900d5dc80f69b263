"""Paper B's four models pairwise (issue 42): the change of every disparity from one model to another on the
same people, over the shared folds (the rerun's out-of-fold predictions and the authors' per-fold results),
with Holm over all pairs. Thin adapter over compendium.paper_b.model_comparison
(fairstats.disparity_change)."""

import logging
import warnings

import matplotlib.pyplot as plt
import pandas as pd

from compendium.paper_b.model_comparison import comparison_figure, fairer_pairs, model_comparison
from compendium.paper_b.models import MODEL_NAMES
from compendium.publish.plotting import save_figure
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
predictions = pd.read_parquet(sm.input.predictions)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    table = model_comparison(
        predictions,
        sm.params.raw_dir,
        favorable=sm.params.favorable,
        alpha=sm.params.alpha,
        margin=sm.params.margin,
        models=[m for m in MODEL_NAMES if m in sm.params.models],  # the experiment's, in Table I's order
    )
for w in caught:
    logging.warning("%s: %s", w.category.__name__, w.message)
write_table(
    table,
    sm.output.table,
    digits=4,
    title=(
        f"Paper B's models pairwise (preset {sm.wildcards.preset}): change of each disparity Black - White "
        f"from the baseline to the model, margin ±{sm.params.margin:g}, Holm over all pairs per source and "
        f"inference at alpha = {sm.params.alpha:g}"
    ),
)
fig = comparison_figure(table, source="rerun", inference="folds")
save_figure(fig, sm.output.figure)
plt.close(fig)
logging.info("fairer beyond chance (Holm):\n%s", fairer_pairs(table).to_string())
