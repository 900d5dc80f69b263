"""Paper B's outcome tests without folds, on COMPAS (issue 6): two groups compared on every person at once
with bootstrap intervals (:func:`fairstats.outcome_tests`), in the paper's tails and two-sided, Holm and BH
over them, and Cramér's V of each grouping with its noncentral chi-squared interval. Rule
``test_compas_outcomes`` writes both tables.

Random numbers: one child of ``numpy.random.SeedSequence(seed)`` (``spawn(1)[0]``), drawn afresh by the
paper's tails and by the two-sided run, so both use the same bootstrap resamples.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from compendium.paper_b.authors import PAPER_B_TESTS
from compendium.publish.stable_floats import round_floats
from fairstats import adjust_pvalues, cramers_v_interval, outcome_tests

__all__ = ["CompasOutcomes", "compas_outcome_tables", "paper_b_tails"]

log = logging.getLogger(__name__)


class CompasOutcomes(NamedTuple):
    """The tables of :func:`compas_outcome_tables`."""

    #: One row per metric: the paper's tail and two-sided, with Holm and BH over each (floats rounded).
    tests: pd.DataFrame
    #: One row per grouping: Cramér's V, its bias-corrected estimate and interval.
    cramers_v: pd.DataFrame


def paper_b_tails() -> dict[str, str]:
    """Paper B's tail of each metric (about White - Black), and the balance tests' (mean scores per outcome
    class, II-L and II-M): left-tailed, a violation when White people get lower mean scores (probability of
    recidivism) than Black people with the same outcome."""
    tails = {t.metric: t.alternative for t in PAPER_B_TESTS}
    tails.update(mean_score_pos="less", mean_score_neg="less")
    return tails


def compas_outcome_tables(
    data: pd.DataFrame,
    *,
    groups: Sequence[str],
    groupings: Mapping[str, Sequence[str]],
    favorable: int,
    alpha: float,
    n_resamples: int,
    confidence_level: float,
    seed: int,
) -> CompasOutcomes:
    """Paper B's outcome tests of ``groups`` (a, b: differences a - b) on the filtered COMPAS ``data``
    (``race``, ``y_true``, ``y_pred``, ``y_score`` the decile 1-10, read as ``score`` = decile / 10) and
    Cramér's V of each of ``groupings``.

    The tests' floats are rounded as written (:func:`~compendium.publish.stable_floats.round_floats`: the mean
    scores and bootstrap bounds move in their last bits with the BLAS kernels, issue 21).
    """
    data = data.assign(score=data["y_score"] / 10.0)
    child = np.random.SeedSequence(seed).spawn(1)[0]
    common = dict(
        group="race",
        y_true="y_true",
        y_pred="y_pred",
        y_score="score",
        groups=tuple(groups),
        favorable=favorable,
        alpha=alpha,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
    )
    paper_tails = outcome_tests(data, alternative=paper_b_tails(), rng=np.random.default_rng(child), **common)
    two_sided = outcome_tests(
        data, alternative="two-sided", rng=np.random.default_rng(child), **common
    ).to_frame()
    table = paper_tails.to_frame().assign(
        pvalue_two_sided=two_sided["pvalue"].to_numpy(),
        statistic_two_sided=two_sided["statistic"].to_numpy(),
    )
    for method, suffix in (("holm", "holm"), ("fdr_bh", "bh")):
        table = adjust_pvalues(table, method=method, pvalue="pvalue", alpha=alpha, suffix=suffix)
        table = adjust_pvalues(
            table, method=method, pvalue="pvalue_two_sided", alpha=alpha, suffix=f"{suffix}_two_sided"
        )
    log.info(
        "%d tests; %d significant at the paper's alpha, %d after Holm, %d after BH (paper's tails)",
        len(table),
        int(table["significant"].sum()),
        int(table["significant_holm"].sum()),
        int(table["significant_bh"].sum()),
    )
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, columns in groupings.items():
            res = cramers_v_interval(
                data, group=list(columns), y_true="y_true", y_pred="y_pred", confidence_level=confidence_level
            )
            rows.append({"name": name, **res.to_record()})
            log.info(
                "%s: V = %.4f, bias-corrected %.4f [%.4f, %.4f]",
                name,
                res.statistic,
                res.estimate,
                res.ci_low,
                res.ci_high,
            )
    return CompasOutcomes(round_floats(table), pd.DataFrame(rows))
