"""Sound tests of a risk score by group (issue 26): discrimination (AUC, DeLong), calibration without bins
(logistic recalibration, LR tests, ICI; probabilities only) and score distributions per outcome class, one
Holm family per grouping and model. Thin adapter over fairstats.score_tests: COMPAS' decile score (rule
test_scores_compas) or paper B's predicted probabilities of the NIJ models (rule test_scores_nij)."""

import logging
import warnings

import numpy as np
import pandas as pd

from compendium.publish.reporting import write_table
from fairstats import score_tests

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
logging.captureWarnings(True)
p = sm.params
data = pd.read_parquet(sm.input.data)
seeds = iter(np.random.SeedSequence(p.seed).spawn(64))

rows, icis = [], []
models = sorted(data["model"].unique().tolist()) if "model" in data.columns else [None]
for model in models:
    part = data if model is None else data[data["model"] == model]
    for name, columns in p.groupings.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = score_tests(part, group=list(columns), y_true="y_true", y_score="y_score", alpha=p.alpha,
                              confidence_level=p.confidence_level, margin=p.margin, n_resamples=p.n_resamples,
                              rng=np.random.default_rng(next(seeds)))
        for w in caught:
            logging.warning("%s %s: %s", model or "", name, w.message)
        table = res.table.assign(name=name)
        if model is not None:
            table.insert(0, "model", model)
        rows.append(table)
        if res.recalibration is not None:
            groups = res.recalibration.groups.assign(name=name)
            if model is not None:
                groups.insert(0, "model", model)
            icis.append(groups)
        logging.info("%s %s: %d rows, %d disparity after Holm", model or "", name, len(table),
                     int((table["verdict"] == "disparity").sum()))

tests = pd.concat(rows, ignore_index=True)
per = " and model" if models[0] is not None else ""
title = f"{p.title}: one row per group, reference and metric; Holm within each grouping{per}"
write_table(tests, sm.output.tests, digits=4, title=title)
if hasattr(sm.output, "calibration"):
    calibration = pd.concat(icis, ignore_index=True) if icis else pd.DataFrame()
    write_table(calibration, sm.output.calibration, digits=4,
                title=f"{p.title}: calibration-in-the-large, slope and ICI per group")
