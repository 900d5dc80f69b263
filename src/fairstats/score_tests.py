"""All the tests of a risk score in one table: discrimination, calibration, distributions, one Holm family.

:func:`score_tests` counts the data once and runs :func:`fairstats.auc_tests`,
:func:`fairstats.score_distribution_tests` and, when the scores are probabilities,
:func:`fairstats.recalibration_tests`, then sets their comparisons in one long table (one row per group,
reference and metric) with Holm's adjustment and the three-way verdict over all of them: the table an audit
writes as ``score_tests.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._result import Result
from fairstats._score_input import reference_iv, score_counts_iv
from fairstats._validation import level_iv
from fairstats.discrimination import AUCTestsResult, auc_tests
from fairstats.equivalence import DEFAULT_MARGIN
from fairstats.multiplicity import three_way_verdicts
from fairstats.recalibration import RecalibrationTestsResult, recalibration_tests
from fairstats.score_distributions import ScoreDistributionTestsResult, score_distribution_tests

__all__ = ["SCORE_TEST_COLUMNS", "ScoreTestsResult", "score_tests"]

#: Columns of :attr:`ScoreTestsResult.table`, in order.
SCORE_TEST_COLUMNS = (
    "grouping", "group", "reference", "metric", "estimate", "ci_low", "ci_high", "statistic", "pvalue",
    "pvalue_adj", "verdict", "verdict_note", "equivalence_pvalue", "margin", "mde", "n", "n_reference",
    "method", "reason",
)


@dataclass(frozen=True, eq=False)
class ScoreTestsResult(Result):
    """The score tests of one grouping, each family's own result and the combined table.

    Attributes
    ----------
    table : pandas.DataFrame
        Columns :data:`SCORE_TEST_COLUMNS`; one row per (group other than the reference, metric). Metrics:
        ``auc`` (difference of AUCs), ``calibration`` (LR test of equal recalibration; no estimate: the
        intercept and slope differences are in ``recalibration.comparisons``), and per outcome class
        ``ks_positive``, ``mann_whitney_positive``, ``mean_score_positive`` and the same ``_negative``.
        ``pvalue_adj`` is Holm's over the whole table, ``verdict`` the three-way verdict
        (:func:`fairstats.three_way_verdicts`) over it.
    auc : AUCTestsResult
    distributions : ScoreDistributionTestsResult
    recalibration : RecalibrationTestsResult or None
        None when the scores are not all in [0, 1].
    reference : str
    alpha : float
    """

    table: pd.DataFrame
    auc: AUCTestsResult
    distributions: ScoreDistributionTestsResult
    recalibration: RecalibrationTestsResult | None
    reference: str
    alpha: float

    _table = "table"
    _omit = ("auc", "distributions", "recalibration")


def score_tests(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_score: str,
    pos_label: object = None,
    reference: object = None,
    calibration: bool | None = None,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    margin: float = DEFAULT_MARGIN,
    n_resamples: int = 999,
    rng: int | np.random.Generator | None = None,
) -> ScoreTestsResult:
    """Discrimination, calibration and score-distribution tests of a score, in one Holm family.

    Parameters
    ----------
    data, group, y_true, y_score, pos_label, reference
        As :func:`fairstats.auc_tests`.
    calibration : bool, optional
        Run :func:`fairstats.recalibration_tests` (default: when every score lies in [0, 1]; ``True`` with
        scores outside it raises its ``ValueError``).
    alpha, confidence_level
        Family-wise level of the verdicts over the whole table; level of the intervals.
    margin : float, default 0.1
        Equivalence margin of the AUC difference and of the difference of mean scores.
    n_resamples, rng
        Of the ICI's bootstrap interval (:func:`fairstats.recalibration_tests`).

    Returns
    -------
    ScoreTestsResult

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 2000)
    >>> df = pd.DataFrame({"g": np.repeat(["a", "b"], 1000), "p": p.round(3),
    ...                    "y": (rng.random(2000) < p).astype(int)})
    >>> t = score_tests(df, group="g", y_true="y", y_score="p", n_resamples=0).table
    >>> t["metric"].tolist()[:2]
    ['auc', 'calibration']
    """
    alpha = level_iv(alpha, "alpha")
    counted = score_counts_iv(data, group=group, y_true=y_true, y_score=y_score, pos_label=pos_label)
    ref = reference_iv(counted, reference)
    unit = all(counted.score[g][0] >= 0 and counted.score[g][-1] <= 1 for g in counted.groups)
    if calibration is None:
        calibration = unit
    options = {"group": group, "y_true": y_true, "y_score": y_score, "pos_label": pos_label, "reference": ref,
               "alpha": alpha, "confidence_level": confidence_level}
    auc = auc_tests(counted, margin=margin, **options)
    dist = score_distribution_tests(counted, margin=margin, **options)
    recal = (recalibration_tests(counted, n_resamples=n_resamples, rng=rng, **options)
             if calibration else None)
    parts = [auc.comparisons.assign(metric="auc")]
    if recal is not None:
        sizes = recal.groups.set_index("group")["n"]
        parts.append(recal.comparisons.assign(estimate=np.nan, ci_low=np.nan, ci_high=np.nan, mde=np.nan,
                                              equivalence_pvalue=np.nan, margin=np.nan,
                                              n=recal.comparisons["group"].map(sizes).to_numpy(),
                                              n_reference=float(sizes[ref])))
    d = dist.table.copy()
    d["metric"] = d["metric"] + "_" + d["outcome"]
    d["margin"] = np.where(d["metric"].str.startswith("mean_score"), margin, np.nan)
    parts.append(d)
    table = pd.concat([p.reindex(columns=[c for c in SCORE_TEST_COLUMNS if c not in
                                          ("pvalue_adj", "verdict", "verdict_note")]) for p in parts],
                      ignore_index=True)
    table = three_way_verdicts(table, alpha=alpha, reason="reason")
    table = table.rename(columns={"pvalue_holm_difference": "pvalue_adj"})
    return ScoreTestsResult(table[list(SCORE_TEST_COLUMNS)], auc, dist, recal, ref, alpha)
