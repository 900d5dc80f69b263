"""COMPAS with a multi-level decision (issue 17 A): thin adapter over compendium.paper_a.compas_levels, which
calls the fairstats public API; every table as CSV and Markdown. An unordered variant writes an
ordinal_tests.csv that says so (no test), so that the rule's outputs are the same for every variant."""

import logging
import warnings

import pandas as pd

from compendium.paper_a.compas_levels import three_level_tables
from compendium.publish.reporting import write_table
from compendium.publish.stable_floats import round_floats

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
logging.captureWarnings(True)
variant = dict(sm.params.variant)
data = pd.read_parquet(sm.input.data)
with warnings.catch_warnings():
    warnings.simplefilter("always")
    tables = three_level_tables(
        data,
        groupings=dict(sm.params.groupings),
        decision=variant.get("decision", "score_level"),
        decision_levels=list(variant["decision_levels"]),
        ordered=bool(variant.get("ordered", True)),
        alpha=float(variant.get("alpha", 0.05)),
        n_resamples=int(sm.params.n_resamples),
        seed=int(sm.params.seed),
    )
if "ordinal_tests" not in tables:
    tables["ordinal_tests"] = pd.DataFrame({"note": ["decision levels declared unordered: no ordinal test"]})
titles = {
    "equal_confusion": "Equal confusion test on the group x (decision level, outcome) cells",
    "residuals": "Adjusted residuals per group and cell",
    "level_tests": "Share of each decision level, each group vs the largest (Holm within each grouping)",
    "ordinal_tests": "Linear-by-linear test of a shift in decision level, each group vs the largest",
}
outputs = {"equal_confusion": sm.output.tables, "residuals": sm.output.residuals,
           "level_tests": sm.output.levels, "ordinal_tests": sm.output.ordinal}
for name, frame in tables.items():
    if name == "level_tests":  # its bootstrap sums move in the last bits with the BLAS kernels (issue 21)
        frame = round_floats(frame)
    write_table(frame, outputs[name], digits=4, title=titles[name])
    logging.info("%s: %d rows", name, len(frame))
