"""Multiplicity control over paper B's battery (issue 6): Holm and Benjamini-Hochberg adjusted p-values, per
model and over the whole battery, and the verdict tables of :func:`compendium.paper_b.verdicts.verdict_table`.
Rule ``adjust_battery`` writes them for the authors' battery and each rerun preset's.

The correct p-value of each row is the one behind the battery's ``significant_corrected``: the corrected
resampled t (t rows), the McNemar mid-p (``pvalue`` of the causal discrimination and awareness rows), the
summed independence chi-squared (``pvalue_alternative`` of the calibration row); rows without one
(well-calibration, ``corrected_test`` empty) are left out of the families. The paper's p-value is its t
formula's, Table XX's formula's (``pvalue_as_published``) or its own chi-squared's (``pvalue``).

Each distinct hypothesis counts once in a Holm/BH family: Tables VI, VII and VIII repeat the tests of Tables
IV (FPR), V (FNR = 1 - TPR) and III (PPV), and share those rows' adjusted p-values (column ``hypothesis``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from compendium.paper_b.verdicts import verdict_table
from fairstats import adjust_pvalues

__all__ = ["REPEATS", "AdjustedBattery", "adjust_battery", "with_hypotheses"]

#: Tables that repeat another's test (same metric, same tail): the same hypothesis.
REPEATS = {"VI": "IV", "VII": "V", "VIII": "III"}


class AdjustedBattery(NamedTuple):
    """The tables of :func:`adjust_battery`."""

    #: Every row with its correct and paper p-values and the Holm/BH adjusted p-values, overall and per model.
    adjusted: pd.DataFrame
    #: :func:`~compendium.paper_b.verdicts.verdict_table` over the whole battery.
    verdicts: pd.DataFrame
    #: The same within each model.
    per_model: pd.DataFrame


def _coalesce(frame: pd.DataFrame, columns: list[str]) -> pd.Series:
    """The first of ``columns`` (read as numbers) that is not missing, row by row."""
    out = pd.Series(np.nan, index=frame.index)
    for column in columns:
        if column in frame:
            out = out.fillna(pd.to_numeric(frame[column], errors="coerce"))
    return out


def with_hypotheses(battery: pd.DataFrame) -> pd.DataFrame:
    """``battery`` with the columns ``pvalue_correct``, ``pvalue_paper`` and ``hypothesis`` (a copy)."""
    battery = battery.copy()
    battery["pvalue_correct"] = _coalesce(battery, ["pvalue_corrected", "pvalue_alternative", "pvalue"])
    if "corrected_test" in battery:
        none = battery["corrected_test"].fillna("").eq("") & battery["pvalue_corrected"].isna()
        battery.loc[none, "pvalue_correct"] = np.nan
    battery["pvalue_paper"] = _coalesce(battery, ["pvalue_paper_formula", "pvalue_as_published", "pvalue"])
    group = battery["group"].fillna("").astype(str) if "group" in battery else ""
    battery["hypothesis"] = (
        battery["table"].astype(str).replace(REPEATS) + " " + battery["model"].astype(str) + " " + group
    ).str.strip()
    return battery


def adjust_battery(battery: pd.DataFrame, *, alpha: float) -> AdjustedBattery:
    """Holm and BH over paper B's ``battery`` (a table of :mod:`compendium.paper_b.battery` or the authors'),
    overall and per model, at family level ``alpha``, and the verdict tables."""
    battery = with_hypotheses(battery)
    adjusted = battery
    for method, short in (("holm", "holm"), ("fdr_bh", "bh")):
        adjusted = adjust_pvalues(
            adjusted,
            method=method,
            pvalue="pvalue_correct",
            alpha=alpha,
            suffix=short,
            hypothesis="hypothesis",
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
        c
        for c in adjusted.columns
        if c.startswith(("pvalue_holm", "pvalue_bh", "significant_", "family_size_"))
    ]
    adjusted = adjusted[[c for c in dict.fromkeys(keep) if c in adjusted]]
    verdicts = verdict_table(battery, alpha=alpha, pvalue="pvalue_correct", hypothesis="hypothesis")
    per_model = verdict_table(
        battery, alpha=alpha, pvalue="pvalue_correct", family="model", hypothesis="hypothesis"
    )
    return AdjustedBattery(adjusted, verdicts, per_model)
