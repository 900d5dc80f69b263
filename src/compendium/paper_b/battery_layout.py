"""The layout of paper B's battery tables: the tests of our rerun, the columns of every battery, the
paired count tables, and the bundle of a run's tables (:class:`BatteryTables`).

The battery is computed in :mod:`compendium.paper_b.battery` and by
:func:`compendium.paper_b.authors.authors_battery`; :func:`align_battery` gives either exactly
:data:`BATTERY_COLUMNS`, so that both concatenate into one tidy table.

Columns of the battery (:data:`BATTERY_COLUMNS`): first exactly the columns of
:func:`compendium.paper_b.authors.authors_battery` (the fold-based t-tests: the paper's formula, pooled,
paired and corrected t, each with statistic, df, p-value and verdict), then :data:`EXTRA_COLUMNS` for the
tests that are not t-tests (left NaN on t rows; the t columns are NaN on their rows):

``group``
    McNemar rows (XX, XXV): the group whose people are paired (``White``/``Black``).
``n``
    People in the test (McNemar: the group; calibration: both groups).
``k``, ``n_minus_k``
    McNemar rows: Table XX/XXV's K = #(ŷ ≠ fav, other = fav), the pairs where the race-flipped (or
    neighbour's) prediction is the favourable one and the own is not (paper: original 1, counterfactual 0),
    and N - K = #(ŷ = fav, other ≠ fav).
``statistic``, ``df``, ``pvalue``
    The paper's own non-t test, computed as its text defines it: calibration and well-calibration χ² of
    Eq. 1-2 (df k - 1 and 2k - 1; :mod:`compendium.paper_b.calibration`), McNemar mid-p of Eq. 3 with
    k = min(K, N - K) (``statistic`` = that k; :func:`fairstats.mcnemar.mcnemar_midp`).
``pvalue_as_published``
    McNemar rows: the formula Table XX's printed p-values follow, 2·cdf(k) - 0.5·pmf(k)
    (:func:`compendium.paper_b.as_published.mcnemar_midp_as_published`).
``statistic_alternative``, ``df_alternative``, ``pvalue_alternative``
    Calibration row: our sound test of the same hypothesis, per-bin χ² tests of independence of group and
    outcome, summed (:func:`fairstats.calibration.calibration_independence_test`).
``corrected_test``
    Which test ``significant_corrected`` comes from: the corrected resampled t (t rows), the McNemar mid-p
    (XX, XXV), the summed independence χ² (XII); empty for well-calibration (XIII), whose composite
    hypothesis (the rate lies inside the bin) has no test here, so its ``significant_corrected`` is NA.

``significant_paper`` is the paper's procedure's verdict (its t formula, its χ², Table XX's p formula) at the
row's ``alpha``; ``significant_corrected`` that of a correct test; ``verdict_changes`` whether they differ.
``disparity`` follows the paper: W - B for right-tailed, B - W for left-tailed, |W - B| for two-sided
t-tests; for McNemar rows (K - (N - K)) / n, the change in the group's favourable-prediction rate when the
race-flipped (or neighbour's) prediction replaces the own; NaN for calibration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from compendium._checks import require_table
from compendium.paper_b.authors import PAPER_B_TESTS, PaperTest

__all__ = [
    "AUTHORS_COLUMNS",
    "BATTERY_COLUMNS",
    "CORRECTED_TESTS",
    "COUNT_TABLES",
    "EXTRA_COLUMNS",
    "OTHER_PREDICTION",
    "RERUN_TESTS",
    "BatteryTables",
    "align_battery",
]

#: The fold-based t-tests of the rerun: the authors' Tables II-XI plus the balance tests (XIV, XV), which
#: need every person's score (the authors committed only fold 0's).
RERUN_TESTS: tuple[PaperTest, ...] = (
    *PAPER_B_TESTS,
    PaperTest("XIV", "balance_positive_class", "mean_score_pos", "less"),
    PaperTest("XV", "balance_negative_class", "mean_score_neg", "less"),
)

#: Columns of :func:`compendium.paper_b.authors.authors_battery`, in its order (the t-test layout shared by
#: both).
AUTHORS_COLUMNS: tuple[str, ...] = (
    "table",
    "model",
    "test",
    "metric",
    "alternative",
    "alpha",
    "disparity",
    "estimate",
    "mean_white",
    "mean_black",
    "n_white",
    "n_black",
    "n_pairs",
    "statistic_paper_formula",
    "df_paper_formula",
    "pvalue_paper_formula",
    "statistic_pooled",
    "df_pooled",
    "pvalue_pooled",
    "statistic_paired",
    "df_paired",
    "pvalue_paired",
    "statistic_corrected",
    "df_corrected",
    "pvalue_corrected",
    "test_train_ratio",
    "significant_paper",
    "significant_pooled",
    "significant_paired",
    "significant_corrected",
    "verdict_changes",
    "source",
)
#: Columns for the tests that are not fold-based t-tests (see the module docstring).
EXTRA_COLUMNS: tuple[str, ...] = (
    "group",
    "n",
    "k",
    "n_minus_k",
    "statistic",
    "df",
    "pvalue",
    "pvalue_as_published",
    "statistic_alternative",
    "df_alternative",
    "pvalue_alternative",
    "corrected_test",
)
#: Columns of :func:`run_battery`'s result, in order.
BATTERY_COLUMNS: tuple[str, ...] = AUTHORS_COLUMNS + EXTRA_COLUMNS

#: Paired 2x2 count tables: (test, model) -> table numeral; and the test's McNemar table.
COUNT_TABLES: dict[tuple[str, str], str] = {
    ("causal_discrimination", "lr"): "XVI",
    ("causal_discrimination", "lda"): "XVII",
    ("causal_discrimination", "rf"): "XVIII",
    ("causal_discrimination", "xgb"): "XIX",
    ("fairness_through_awareness", "lr"): "XXI",
    ("fairness_through_awareness", "lda"): "XXII",
    ("fairness_through_awareness", "rf"): "XXIII",
    ("fairness_through_awareness", "xgb"): "XXIV",
}
#: The other prediction a paired test compares each person's own with, by test (``prediction_vs_<this>``).
OTHER_PREDICTION = {"causal_discrimination": "counterfactual", "fairness_through_awareness": "neighbor"}
#: The correct test behind ``significant_corrected``, by kind of row (``corrected_test``).
CORRECTED_TESTS = {
    "t": "corrected resampled t (Nadeau & Bengio 2003)",
    "mcnemar": "McNemar mid-p (Eq. 3, k = min(K, N-K))",
    "calibration": "summed per-bin chi-square of independence (ours)",
    "well_calibration": "",
}


@dataclass(frozen=True)
class BatteryTables:
    """The battery and the tables behind it (:func:`battery_tables`).

    Attributes
    ----------
    battery : pandas.DataFrame
        One row per test (:data:`BATTERY_COLUMNS`), the result of :func:`run_battery`.
    fold_metrics : pandas.DataFrame
        Per-fold group metrics: ``model, metric, group, fold, value, numerator, denominator`` (group
        ``White``/``Black``; ``value`` NaN where undefined), sorted like
        :func:`compendium.paper_b.authors.authors_fold_metrics`.
    count_tables : pandas.DataFrame
        The paired 2x2 tables of Tables XVI-XIX (causal) and XXI-XXIV (awareness): ``table, model, test,
        group, original, other, n`` with ``other`` the race-flipped (causal) or neighbour's (awareness)
        prediction; four rows per (table, group), all four cells present (zeros included).
    calibration_bins : pandas.DataFrame
        Per model and score bin: the calibration test's counts (``alpha, theta, beta, gamma, lambda,
        contribution, used``), the independence test's per-bin rates and χ², and the mean score per group.
    well_calibration_terms : pandas.DataFrame
        Per model, bin and group: the well-calibration terms (:func:`compendium.paper_b.calibration.
        well_calibration_test`'s table).
    neighbours : pandas.DataFrame or None
        Fairness through awareness matching: ``ID, group, neighbor_ID, neighbor_group, distance, n_ties``;
        None when no features were given.
    features_used : tuple of str
        Feature columns that entered the Mahalanobis metric (non-constant within race).
    features_dropped : tuple of str
        Feature columns dropped as constant within race (e.g. the race dummies).
    """

    battery: pd.DataFrame
    fold_metrics: pd.DataFrame = field(repr=False)
    count_tables: pd.DataFrame = field(repr=False)
    calibration_bins: pd.DataFrame = field(repr=False)
    well_calibration_terms: pd.DataFrame = field(repr=False)
    neighbours: pd.DataFrame | None = field(repr=False)
    features_used: tuple[str, ...] = ()
    features_dropped: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The battery (one row per test)."""
        return self.battery


def align_battery(battery: pd.DataFrame) -> pd.DataFrame:
    """Give a battery (e.g. :func:`compendium.paper_b.authors.authors_battery`'s) exactly
    :data:`BATTERY_COLUMNS`.

    Missing extra columns are added (NaN; ``group`` and ``corrected_test`` filled as in :func:`run_battery`
    for t rows), so that the authors' and the rerun's batteries concatenate into one tidy table.

    Raises
    ------
    ValueError
        A column of :data:`BATTERY_COLUMNS`' t-test part is missing, or an unknown column is present.
    """
    battery = require_table(battery, AUTHORS_COLUMNS, where="`battery`", nonempty=True)
    unknown = [c for c in battery.columns if c not in BATTERY_COLUMNS]
    if unknown:
        raise ValueError(f"`battery`: unknown column {unknown[0]!r}")
    out = battery.copy()
    for col in EXTRA_COLUMNS:
        if col not in out:
            out[col] = np.nan
    out["group"] = out["group"].astype(object).fillna("")
    t_rows = out["statistic_paper_formula"].notna()
    out["corrected_test"] = out["corrected_test"].where(~t_rows, CORRECTED_TESTS["t"]).fillna("")
    return out[list(BATTERY_COLUMNS)]
