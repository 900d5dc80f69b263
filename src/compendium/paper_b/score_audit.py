"""Sound tests of a risk score by group (issue 26): discrimination (AUC, DeLong), calibration without bins
(logistic recalibration, LR tests, ICI; probabilities only) and score distributions per outcome class, one
Holm family per grouping and model, through :func:`fairstats.score_tests`. Rules ``test_scores_compas``
(COMPAS' decile score) and ``test_scores_nij`` (paper B's predicted probabilities of the NIJ models) write its
tables.

Random numbers: ``numpy.random.SeedSequence(seed).spawn(64)``, one child per call of ``score_tests`` in the
order of the loops (models sorted by name, then the groupings in their given order).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from fairstats import score_tests

__all__ = ["N_STREAMS", "ScoreAudit", "score_test_tables"]

log = logging.getLogger(__name__)

#: Children spawned from the seed; one per (model, grouping), so at most this many pairs.
N_STREAMS = 64


class ScoreAudit(NamedTuple):
    """The tables of :func:`score_test_tables`."""

    #: One row per model (if any), grouping, group, reference and metric.
    tests: pd.DataFrame
    #: Calibration-in-the-large, slope and ICI per group (empty without probabilities).
    calibration: pd.DataFrame
    #: Whether ``data`` had a ``model`` column (the tests are then per model).
    per_model: bool


def score_test_tables(
    data: pd.DataFrame,
    *,
    groupings: Mapping[str, Sequence[str]],
    alpha: float,
    confidence_level: float,
    margin: float,
    n_resamples: int,
    seed: int,
) -> ScoreAudit:
    """:func:`fairstats.score_tests` of ``y_score`` against ``y_true`` for each of ``groupings`` (name ->
    columns), within each ``model`` if ``data`` has that column; the warnings of each call are logged."""
    per_model = "model" in data.columns
    models = sorted(data["model"].unique().tolist()) if per_model else [None]
    if len(models) * len(groupings) > N_STREAMS:
        raise ValueError(
            f"{len(models)} models x {len(groupings)} groupings need more than the {N_STREAMS} random streams"
        )
    seeds = iter(np.random.SeedSequence(seed).spawn(N_STREAMS))
    rows, icis = [], []
    for model in models:
        part = data if model is None else data[data["model"] == model]
        for name, columns in groupings.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = score_tests(
                    part,
                    group=list(columns),
                    y_true="y_true",
                    y_score="y_score",
                    alpha=alpha,
                    confidence_level=confidence_level,
                    margin=margin,
                    n_resamples=n_resamples,
                    rng=np.random.default_rng(next(seeds)),
                )
            for w in caught:
                log.warning("%s %s: %s", model or "", name, w.message)
            table = res.table.assign(name=name)
            if model is not None:
                table.insert(0, "model", model)
            rows.append(table)
            if res.recalibration is not None:
                groups = res.recalibration.groups.assign(name=name)
                if model is not None:
                    groups.insert(0, "model", model)
                icis.append(groups)
            log.info(
                "%s %s: %d rows, %d disparity after Holm",
                model or "",
                name,
                len(table),
                int((table["verdict"] == "disparity").sum()),
            )
    calibration = pd.concat(icis, ignore_index=True) if icis else pd.DataFrame()
    return ScoreAudit(pd.concat(rows, ignore_index=True), calibration, per_model)
