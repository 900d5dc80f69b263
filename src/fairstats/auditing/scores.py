"""The score tests of an audit with ``--y-score``: one ``score_tests.csv``, Holm over the whole file.

For each grouping, :func:`fairstats.score_tests` (AUC by DeLong, logistic recalibration and LR tests, score
distributions per outcome class) on the audit's checked frame or counts; the rows of all groupings in one
table, whose ``pvalue_adj`` and verdicts are Holm's over the file (:func:`fairstats.three_way_verdicts`).
The score predicts the outcome 1 when the labels are 0/1, otherwise the favourable one (the report says so).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from fairstats.multiplicity import three_way_verdicts
from fairstats.score_tests import SCORE_TEST_COLUMNS, score_tests

__all__ = ["score_table"]


def score_table(prep, options) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """``score_tests.csv`` of a prepared binary audit with a score, and the warnings raised (as notes)."""
    y_true = prep.cols["y_true"] if prep.binary01 else prep.cols["y01"]
    parts = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seeds = np.random.SeedSequence(options.seed).spawn(len(prep.groupings))
        for grouping, seed in zip(prep.groupings, seeds, strict=True):
            result = score_tests(
                prep.checked, group=grouping.group, y_true=y_true, y_score=prep.cols["score"], pos_label=1,
                alpha=options.alpha, margin=options.margin, n_resamples=min(options.n_resamples, 199),
                rng=np.random.default_rng(seed),
            )
            parts.append(result.table.assign(grouping=grouping.name))
    table = pd.concat(parts, ignore_index=True)
    table = table.drop(columns=["pvalue_adj", "verdict", "verdict_note"])
    table = three_way_verdicts(table, alpha=options.alpha, reason="reason")
    table = table.rename(columns={"pvalue_holm_difference": "pvalue_adj"})[list(SCORE_TEST_COLUMNS)]
    notes = tuple(dict.fromkeys(f"score tests: {w.message}" for w in caught
                                if not issubclass(w.category, DeprecationWarning | FutureWarning)))
    what = "1" if prep.binary01 else f"the favourable outcome {prep.labels[0]!r}"
    notes = (f"score_tests.csv: the score is read as predicting {what}; the ICI intervals use "
             f"{min(options.n_resamples, 199)} bootstrap resamples (each refits a spline GLM)", *notes)
    return table, notes
