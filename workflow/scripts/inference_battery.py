"""Multiplicity control over paper B's battery: Holm and Benjamini-Hochberg adjusted p-values (per model and
over the whole battery) and the verdict tables. Thin adapter over fairstats.multiplicity and
compendium.paper_b.verdicts.

The correct p-value of each row is the one behind the battery's ``significant_corrected``: the corrected
resampled t (t rows), the McNemar mid-p (``pvalue`` of the causal discrimination and awareness rows), the
summed independence chi-squared (``pvalue_alternative`` of the calibration row); rows without one
(well-calibration, ``corrected_test`` empty) are left out of the families. The paper's p-value is its t
formula's, Table XX's formula's (``pvalue_as_published``) or its own chi-squared's (``pvalue``).

Each distinct hypothesis counts once in a Holm/BH family: Tables VI, VII and VIII repeat the tests of Tables
IV (FPR), V (FNR = 1 - TPR) and III (PPV), and share those rows' adjusted p-values (column ``hypothesis``).
"""

import logging

import numpy as np
import pandas as pd

from compendium.paper_b.verdicts import verdict_table
from compendium.publish.reporting import write_table
from fairstats.multiplicity import adjust_pvalues

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
alpha = sm.params.alpha
source = sm.wildcards.source
battery = pd.read_csv(sm.input.battery)


def coalesce(frame: pd.DataFrame, columns: list[str]) -> pd.Series:
    out = pd.Series(np.nan, index=frame.index)
    for column in columns:
        if column in frame:
            out = out.fillna(pd.to_numeric(frame[column], errors="coerce"))
    return out


battery["pvalue_correct"] = coalesce(battery, ["pvalue_corrected", "pvalue_alternative", "pvalue"])
if "corrected_test" in battery:
    none = battery["corrected_test"].fillna("").eq("") & battery["pvalue_corrected"].isna()
    battery.loc[none, "pvalue_correct"] = np.nan
battery["pvalue_paper"] = coalesce(battery, ["pvalue_paper_formula", "pvalue_as_published", "pvalue"])
REPEATS = {"VI": "IV", "VII": "V", "VIII": "III"}  # same metric, same tail: the same hypothesis
group = battery["group"].fillna("").astype(str) if "group" in battery else ""
battery["hypothesis"] = (
    battery["table"].astype(str).replace(REPEATS) + " " + battery["model"].astype(str) + " " + group
).str.strip()

adjusted = battery
for method, short in (("holm", "holm"), ("fdr_bh", "bh")):
    adjusted = adjust_pvalues(
        adjusted, method=method, pvalue="pvalue_correct", alpha=alpha, suffix=short, hypothesis="hypothesis"
    )
    adjusted = adjust_pvalues(
        adjusted,
        method=method,
        pvalue="pvalue_correct",
        alpha=alpha,
        by="model",
        suffix=f"{short}_model",
        hypothesis="hypothesis",
    )
keep = ["table", "hypothesis", "model", "test", "metric", "alternative", "alpha", "estimate"]
keep += ["group", "k", "n_minus_k"]  # the McNemar rows' group and discordant counts: their direction
keep += ["significant_paper"]
keep += ["pvalue_paper", "pvalue_paper_formula", "pvalue_pooled", "pvalue_paired", "pvalue_corrected"]
keep += ["pvalue_correct"]
keep += [
    c for c in adjusted.columns if c.startswith(("pvalue_holm", "pvalue_bh", "significant_", "family_size_"))
]
adjusted = adjusted[[c for c in dict.fromkeys(keep) if c in adjusted]]
write_table(
    adjusted,
    sm.output.adjusted,
    digits=4,
    title=f"Paper B's battery ({source}): correct p-values adjusted by Holm and BH, overall and per model",
)
verdicts = verdict_table(battery, alpha=alpha, pvalue="pvalue_correct", hypothesis="hypothesis")
write_table(
    verdicts,
    sm.output.verdicts,
    digits=4,
    title=f"Which of paper B's violations survive ({source}; Holm and BH over the whole battery)",
)
per_model = verdict_table(
    battery, alpha=alpha, pvalue="pvalue_correct", family="model", hypothesis="hypothesis"
)
write_table(
    per_model,
    sm.output.verdicts_model,
    digits=4,
    title=f"Which of paper B's violations survive ({source}; Holm and BH within each model)",
)
logging.info("%s: %d tests, verdicts %s", source, len(battery), verdicts["verdict"].value_counts().to_dict())
