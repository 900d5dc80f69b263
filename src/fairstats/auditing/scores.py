"""The score tests of an audit with ``--y-score``: ``score_tests.csv`` (Holm over the whole file), each
group's AUC and calibration (``score_groups.csv``), and the curves the report's figures draw.

For each grouping, :func:`fairstats.score_tests` (AUC by DeLong, logistic recalibration and LR tests, score
distributions per outcome class) on the audit's checked frame or counts; the rows of all groupings in one
table, whose ``pvalue_adj`` and verdicts are Holm's over the file (:func:`fairstats.three_way_verdicts`).
The score predicts the outcome 1 when the labels are 0/1, otherwise the favourable one (the report says so).
The figures' curves (:func:`fairstats.roc_curves`, :func:`fairstats.calibration_curves`, with bands) are
computed here, where the people's scores are at hand, for at most :data:`MAX_CURVE_GROUPS` groups per
grouping; only the calibration figure's dots bin the scores (the tests never do).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._resampling import derived_rng
from fairstats._score_input import ScoreCounts, score_counts_iv
from fairstats.discrimination import roc_curves
from fairstats.multiplicity import three_way_verdicts
from fairstats.recalibration import calibration_curves
from fairstats.score_tests import SCORE_TEST_COLUMNS, score_tests

__all__ = ["MAX_CURVE_GROUPS", "SCORE_GROUP_COLUMNS", "ScoreCurves", "ScoreSection", "score_table"]

#: Columns of ``score_groups.csv``: per group, its AUC (DeLong interval) and its calibration (logistic
#: recalibration: calibration-in-the-large, slope; the ICI with its bootstrap interval, an estimate only).
SCORE_GROUP_COLUMNS = (
    "grouping", "group", "n", "n_pos", "n_neg", "auc", "auc_ci_low", "auc_ci_high", "citl", "citl_ci_low",
    "citl_ci_high", "slope", "slope_ci_low", "slope_ci_high", "ici", "ici_ci_low", "ici_ci_high", "reason",
)

#: The ROC and calibration figures draw at most this many groups of a grouping (the reference and the
#: largest others): more lines with bands are not readable. The tables hold every group.
MAX_CURVE_GROUPS = 6

#: Resamples of the figures' pointwise bands (each calibration band refits a spline GLM per resample).
CURVE_RESAMPLES = 99

#: Equal-width bins of the score for the calibration figure's dots (the figure only).
FIGURE_BINS = 10


@dataclass(frozen=True, eq=False)
class ScoreCurves:
    """What one grouping's ROC and calibration figures draw (plain frames, no people).

    ``roc``: :func:`fairstats.roc_curves`' frame; ``calibration``: :func:`fairstats.calibration_curves`'
    (empty when the scores are not all in [0, 1]); ``bins``: ``group, bin_low, bin_high, score, observed,
    n`` (the mean score and the share with the outcome among the people of each of :data:`FIGURE_BINS`
    equal-width bins of [0, 1]); ``shown``: the groups drawn (reference first), ``total``: how many the
    grouping has; ``reference``.
    """

    grouping: str
    roc: pd.DataFrame
    calibration: pd.DataFrame
    bins: pd.DataFrame
    shown: tuple[str, ...]
    total: int
    reference: str


@dataclass(frozen=True, eq=False)
class ScoreSection:
    """The score tests of an audit: ``table`` (``score_tests.csv``), ``groups`` (``score_groups.csv``),
    ``curves`` (grouping name -> :class:`ScoreCurves`) and ``notes`` (the report lists them)."""

    table: pd.DataFrame
    groups: pd.DataFrame
    curves: dict
    notes: tuple[str, ...]


def score_table(prep, options) -> ScoreSection:
    """The score tests of a prepared binary audit with a score, per-group AUC and calibration, the figures'
    curves, and the warnings raised (as notes)."""
    y_true = prep.cols["y_true"] if prep.binary01 else prep.cols["y01"]
    parts, groups, curves = [], [], {}
    n_resamples = options.ici_resamples  # each resample refits a spline GLM per group (--ici-resamples)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for grouping in prep.groupings:  # the seed scheme of every task: one stream per task and grouping
            counted = score_counts_iv(prep.checked, group=grouping.group, y_true=y_true,
                                      y_score=prep.cols["score"], pos_label=1)
            result = score_tests(
                counted, group=grouping.group, y_true=y_true, y_score=prep.cols["score"], pos_label=1,
                alpha=options.alpha, margin=options.margin, n_resamples=n_resamples,
                rng=derived_rng(options.seed, "score tests", grouping.name),
            )
            parts.append(result.table.assign(grouping=grouping.name))
            groups.append(_group_rows(result, grouping.name))
            curves[grouping.name] = _curves(counted, grouping.name, result.reference,
                                            derived_rng(options.seed, "score curves", grouping.name))
    table = pd.concat(parts, ignore_index=True)
    table = table.drop(columns=["pvalue_adj", "verdict", "verdict_note"])
    table = three_way_verdicts(table, alpha=options.alpha, reason="reason")
    table = table.rename(columns={"pvalue_holm_difference": "pvalue_adj"})[list(SCORE_TEST_COLUMNS)]
    notes = tuple(dict.fromkeys(f"score tests: {w.message}" for w in caught
                                if not issubclass(w.category, DeprecationWarning | FutureWarning)))
    what = "1" if prep.binary01 else f"the favourable outcome {prep.labels[0]!r}"
    notes = (f"score_tests.csv: the score is read as predicting {what}; the ICI intervals use "
             f"{n_resamples} bootstrap resamples (--ici-resamples; each refits a spline GLM)", *notes)
    return ScoreSection(table, pd.concat(groups, ignore_index=True)[list(SCORE_GROUP_COLUMNS)], curves, notes)


def _group_rows(result, name: str) -> pd.DataFrame:
    """``score_groups.csv``'s rows of one grouping: the AUC per group joined with its recalibration."""
    auc = result.auc.groups.rename(columns={"ci_low": "auc_ci_low", "ci_high": "auc_ci_high"})
    auc = auc.assign(grouping=name, n=auc["n_pos"] + auc["n_neg"])
    if result.recalibration is None:  # scores outside [0, 1]: no calibration
        out = auc.assign(reason="no calibration: the scores are not all in [0, 1]")
    else:
        recal = result.recalibration.groups.drop(columns=["grouping", "n"])
        out = auc.merge(recal, on="group", how="left", validate="one_to_one")
    return out.reindex(columns=list(SCORE_GROUP_COLUMNS)).assign(reason=lambda f: f["reason"].fillna(""))


def _shown_groups(counted: ScoreCounts, reference: str) -> tuple[str, ...]:
    """The reference and the largest other groups (ties in the order of the table), at most
    :data:`MAX_CURVE_GROUPS`."""
    others = [g for g in counted.groups if g != reference]
    others = sorted(others, key=lambda g: -counted.n(g))[: MAX_CURVE_GROUPS - 1]
    return (reference, *[g for g in counted.groups if g in set(others)])


def _curves(counted: ScoreCounts, name: str, reference: str, rng: np.random.Generator) -> ScoreCurves:
    shown = _shown_groups(counted, reference)
    subset = ScoreCounts(counted.grouping, shown, {g: counted.score[g] for g in shown},
                         {g: counted.pos[g] for g in shown}, {g: counted.neg[g] for g in shown},
                         counted.y_score)
    kw = {"group": name, "y_true": "y", "y_score": counted.y_score, "n_resamples": CURVE_RESAMPLES,
          "rng": rng}
    roc = roc_curves(subset, **kw)
    in_unit = all(counted.score[g][0] >= 0 and counted.score[g][-1] <= 1 for g in shown)
    calibration = calibration_curves(subset, **kw) if in_unit else pd.DataFrame(
        columns=["grouping", "group", "score", "observed", "band_low", "band_high"])
    bins = _figure_bins(subset) if in_unit else pd.DataFrame(
        columns=["group", "bin_low", "bin_high", "score", "observed", "n"])
    return ScoreCurves(name, roc, calibration, bins, shown, len(counted.groups), reference)


def _figure_bins(counted: ScoreCounts) -> pd.DataFrame:
    """Per group and equal-width bin of [0, 1]: the people's mean score and their share with the outcome
    (the calibration figure's dots; empty bins left out)."""
    edges = np.linspace(0, 1, FIGURE_BINS + 1)
    rows = []
    for g in counted.groups:
        score, pos, neg = counted.score[g], counted.pos[g], counted.neg[g]
        k = np.clip(np.searchsorted(edges, score, side="right") - 1, 0, FIGURE_BINS - 1)
        n = np.bincount(k, weights=pos + neg, minlength=FIGURE_BINS)
        hits = np.bincount(k, weights=pos, minlength=FIGURE_BINS)
        total = np.bincount(k, weights=(pos + neg) * score, minlength=FIGURE_BINS)
        for b in np.flatnonzero(n > 0):
            rows.append({"group": g, "bin_low": edges[b], "bin_high": edges[b + 1], "score": total[b] / n[b],
                         "observed": hits[b] / n[b], "n": n[b]})
    return pd.DataFrame(rows, columns=["group", "bin_low", "bin_high", "score", "observed", "n"])
