"""Paper A's test on paper B's models (issue 6): the equal confusion test, Cramér's V with its noncentral
chi-squared interval and the adjusted residuals of each NIJ model's out-of-fold predictions, by race and by
race x gender, and bootstrap intervals of the battery's disparities on the pooled predictions (people
resampled, folds ignored). Rule ``audit_nij_predictions`` writes the three tables.

Random numbers (this module's own scheme, kept so that the committed numbers stay as they are): model ``m``,
the ``m``-th model in order of first appearance in the predictions, gets
``numpy.random.SeedSequence([seed, m]).spawn(5)``; children 0 and 2 draw the permutation test of the two
groupings (race, race x gender), child 4 the bootstrap; children 1 and 3 (once the bootstrap of V) go unused.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from fairstats import bootstrap_disparity, cramers_v_interval, equal_confusion_test

__all__ = ["GROUPINGS", "NijEqualConfusion", "audit_predictions", "with_gender"]

log = logging.getLogger(__name__)

#: The groupings tested, name -> columns of the joined frame.
GROUPINGS = {"race": ["race"], "race x gender": ["race", "gender"]}


class NijEqualConfusion(NamedTuple):
    """The tables of :func:`audit_predictions`."""

    #: One row per model and grouping: the test, Cramér's V and its interval, the post hoc flags.
    equal_confusion: pd.DataFrame
    #: One row per model, grouping, group and confusion cell: observed, expected, adjusted residual, flags.
    residuals: pd.DataFrame
    #: One row per model and metric: the disparity between the two groups with its bootstrap interval.
    disparities: pd.DataFrame


def with_gender(
    predictions: pd.DataFrame,
    people: pd.DataFrame,
    *,
    source: str = "predictions",
    table: str = "the NIJ table",
) -> pd.DataFrame:
    """``predictions`` with each person's ``gender`` from ``people`` (``ID``, ``Gender``), ``race`` and
    ``gender`` as text; a prediction whose ``ID`` is not in ``people`` is refused (``source`` and ``table``
    name the files in the message)."""
    frame = predictions.merge(people[["ID", "Gender"]], on="ID", how="left", validate="many_to_one")
    missing = frame["Gender"].isna()
    if missing.any():
        raise ValueError(f"{source}: {int(missing.sum())} predictions have an ID not in {table}")
    frame["race"] = frame["race"].astype(str)
    frame["gender"] = frame["Gender"].astype(str)
    return frame


def audit_predictions(
    frame: pd.DataFrame,
    *,
    groups: Sequence[str],
    metrics: Sequence[str],
    favorable: int,
    alpha: float,
    n_resamples: int,
    confidence_level: float,
    seed: int,
) -> NijEqualConfusion:
    """The equal confusion test and residuals of every model of ``frame`` (:func:`with_gender`'s) for each of
    :data:`GROUPINGS`, and the bootstrap disparities of ``metrics`` between ``groups`` (a, b: a - b) by race,
    ``favorable`` the favourable prediction. The tests' warnings are logged."""
    models = list(dict.fromkeys(frame["model"].astype(str)))
    log.info("%d predictions, models %s, favourable %s", len(frame), models, favorable)
    equal, residuals, disparities = [], [], []
    for m, model in enumerate(models):
        rows = frame[frame["model"].astype(str) == model]
        seeds = np.random.SeedSequence([seed, m]).spawn(len(GROUPINGS) * 2 + 1)
        for g, (name, columns) in enumerate(GROUPINGS.items()):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = equal_confusion_test(
                    rows,
                    group=columns,
                    y_true="y_true",
                    y_pred="y_pred",
                    alpha=alpha,
                    n_resamples=n_resamples,
                    rng=np.random.default_rng(seeds[2 * g]),
                )
                v = cramers_v_interval(
                    rows, group=columns, y_true="y_true", y_pred="y_pred", confidence_level=confidence_level
                )
            for w in caught:
                log.info("%s, %s: %s", model, name, w.message)
            record = res.to_record()
            equal.append(
                {
                    "model": model,
                    "grouping": name,
                    **{k: record[k] for k in ("statistic", "pvalue", "df", "n", "cramers_v")},
                    "cramers_v_estimate": v.estimate,
                    "cramers_v_ci_low": v.ci_low,
                    "cramers_v_ci_high": v.ci_high,
                    "effect_size": res.effect_size,
                    "min_expected": res.cochran_min_expected,
                    "cochran_ok": res.cochran_ok,
                    "pvalue_permutation": res.pvalue_permutation,
                    "n_flag_3_29": record["n_flag_strict"],
                    "n_flag_bonferroni": record["n_flag_bonferroni"],
                    "notes": record["notes"],
                }
            )
            tidy = res.to_frame()
            residuals.append(
                pd.DataFrame(
                    {
                        "model": model,
                        "grouping": name,
                        "group": tidy["group"],
                        "cell": tidy["cell"],
                        "observed": tidy["observed"],
                        "expected": tidy["expected"],
                        "adjusted_residual": tidy["residual"],
                        "flag_3_29": tidy["flag_strict"],
                        "flag_bonferroni": tidy["flag_bonferroni"],
                    }
                )
            )
        d = bootstrap_disparity(
            rows,
            group="race",
            y_true="y_true",
            y_pred="y_pred",
            groups=tuple(groups),
            metrics=list(metrics),
            favorable=favorable,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            rng=np.random.default_rng(seeds[-1]),
            warn=False,
        )
        disparities.append(d.to_frame().assign(model=model))
        log.info("%s: done", model)
    disparities = pd.concat(disparities, ignore_index=True)
    disparities = disparities[["model", *[c for c in disparities.columns if c != "model"]]]
    return NijEqualConfusion(pd.DataFrame(equal), pd.concat(residuals, ignore_index=True), disparities)
