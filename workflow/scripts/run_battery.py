"""Paper B's fairness battery on one preset's out-of-fold predictions, the tables behind it, and the
published-vs-reproduced piece (source ``rerun`` for the paper preset).

Thin adapter over compendium.paper_b.battery."""

import logging
import os
import sys
import time
import warnings

import pandas as pd

from compendium.paper_b.battery import awareness_features, battery_tables
from compendium.paper_b.battery_pvr import published_vs_reproduced_rerun, rerun_fold_agreement
from compendium.paper_b.models import PRESET_FEATURES
from compendium.paper_b.predictions import read_predictions
from compendium.publish.reporting import atomic_write_text, write_table

sm = snakemake  # noqa: F821
log = open(sm.log[0], "w", buffering=1)  # noqa: SIM115
sys.stderr = log
logging.basicConfig(stream=log, level=logging.INFO, format="%(asctime)s %(message)s")
logging.captureWarnings(True)
warnings.simplefilter("default")

start = time.perf_counter()
preset, p, out = sm.wildcards.preset, sm.params, sm.output
predictions = read_predictions(sm.input.predictions)
features = awareness_features(pd.read_parquet(sm.input.table), features=PRESET_FEATURES[preset])
tables = battery_tables(
    predictions, features=features, favorable=p.favorable, alpha=p.alpha, n_bins=p.n_bins, source="rerun"
)
title = f"Paper B's battery on our rerun (preset {preset}): the paper's procedures beside correct tests"
write_table(tables.battery, out.battery, digits=4, title=title)
write_table(tables.fold_metrics, out.fold_metrics, markdown=False)
write_table(tables.count_tables, out.counts, title=f"Tables XVI-XIX, XXI-XXIV on our rerun (preset {preset})")
write_table(tables.calibration_bins, out.calibration_bins, digits=4, title="Calibration per score bin")
write_table(tables.well_calibration_terms, out.well_terms, digits=4, title="Well-calibration terms")
used = pd.DataFrame(
    {
        "feature": list(tables.features_used) + list(tables.features_dropped),
        "used": [True] * len(tables.features_used) + [False] * len(tables.features_dropped),
    }
)
write_table(used, out.features, title="Fairness through awareness: features of the Mahalanobis metric")
# Distances are float sums whose last bits differ across machines (BLAS kernels); written rounded to
# DISTANCE_DECIMALS places (distances are ~1-100), so the file is the same wherever the neighbours are.
DISTANCE_DECIMALS = 9
neighbours = tables.neighbours.assign(distance=tables.neighbours["distance"].round(DISTANCE_DECIMALS))
tmp = f"{out.neighbours}.tmp"
neighbours.to_parquet(tmp, index=False)
os.replace(tmp, out.neighbours)  # never a half-written file
agreement = rerun_fold_agreement(tables, p.raw_dir)
title = f"In how many folds our rerun's per-fold metrics (preset {preset}) equal the authors' committed ones"
write_table(agreement, out.fold_agreement, title=title)
evidence = {
    "agreement": out.fold_agreement,
    "battery": out.battery,
    "fold_metrics": out.fold_metrics,
    "counts": out.counts,
    "authors_battery": sm.input.authors_battery,
    "impossible": sm.input.impossible,
}
pvr = published_vs_reproduced_rerun(
    tables, sm.input.published, raw_dir=p.raw_dir, alpha=p.alpha, evidence=evidence
)
if preset != "paper":
    pvr["source"] = f"rerun-{preset}"
atomic_write_text(out.pvr, pvr.to_csv(index=False, lineterminator="\n"))
logging.info(
    "preset %s: %d battery rows, %d verdicts change; %d printed numbers, %d match; %.1f s",
    preset,
    len(tables.battery),
    int(tables.battery["verdict_changes"].fillna(False).sum()),
    len(pvr),
    int(pvr["matches"].sum()),
    time.perf_counter() - start,
)
