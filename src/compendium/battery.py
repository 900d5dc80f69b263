r"""Paper B's fairness battery on out-of-fold predictions (our rerun), beside correct tests.

:func:`run_battery` takes the tidy predictions of :mod:`compendium.crossval` (one row per person and model:
``model, fold, ID, race, y_true, y_score, y_pred, y_score_flipped, y_pred_flipped``) and runs the 15 tests of
paper B with the paper's tails and levels; :func:`battery_tables` returns the battery together with the
tables behind it (per-fold metrics, the 2x2 count tables of Tables XVI-XIX and XXI-XXIV, per-bin calibration
tables, the nearest neighbours). :func:`published_vs_reproduced_rerun` sets every number printed in Tables
II-XXV beside the rerun's.

The tests (favourable outcome ``favorable``, paper: 0 = no recidivism; W = unprotected, B = protected):

=====  =================================  =====================================  ==========  =========
Table  definition (``test``)              compared                               tail (W-B)  alpha
=====  =================================  =====================================  ==========  =========
II     group_fairness                     PPR = P(ŷ = fav) per fold              greater     α
III    predictive_parity                  PPV = P(y = fav | ŷ = fav)             less        α
IV     predictive_equality                FPR = P(ŷ = fav | y ≠ fav)             greater     α
V      equal_opportunity                  FNR = P(ŷ ≠ fav | y = fav)             less        α
VI     equalized_odds                     FPR                                    greater     α/2
VII    equalized_odds                     TPR = P(ŷ = fav | y = fav)             greater     α/2
VIII   conditional_use_accuracy_equality  PPV                                    less        α/2
IX     conditional_use_accuracy_equality  NPV = P(y ≠ fav | ŷ ≠ fav)             greater     α/2
X      overall_accuracy_equality          accuracy                               two-sided   α
XI     treatment_equality                 FN / FP                                less        α
XII    calibration                        outcome rate per score bin (Eq. 1-2)   χ² right    α
XIII   well_calibration                   outcome rate vs bin ends (Eq. 1-2)     χ² right    α
XIV    balance_positive_class             E(S | y = fav) per fold                less        α
XV     balance_negative_class             E(S | y ≠ fav) per fold                less        α
XX     causal_discrimination              ŷ vs race-flipped ŷ (McNemar)          two-sided   α
XXV    fairness_through_awareness         ŷ vs nearest other-race ŷ (McNemar)    two-sided   α
=====  =================================  =====================================  ==========  =========

Columns of the battery (:data:`BATTERY_COLUMNS`): first exactly the columns of
:func:`compendium.authors.authors_battery` (the fold-based t-tests: the paper's formula, pooled, paired and
corrected t, each with statistic, df, p-value and verdict), then :data:`EXTRA_COLUMNS` for the tests that
are not t-tests (left NaN on t rows; the t columns are NaN on their rows):

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
    Eq. 1-2 (df k - 1 and 2k - 1; :mod:`fairstats.calibration`), McNemar mid-p of Eq. 3 with k = min(K,
    N - K) (``statistic`` = that k; :func:`fairstats.mcnemar.mcnemar_midp`).
``pvalue_as_published``
    McNemar rows: the formula Table XX's printed p-values follow, 2·cdf(k) - 0.5·pmf(k)
    (:func:`fairstats.mcnemar.mcnemar_midp_as_published`).
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

Fairness through awareness: each person's nearest person of the other race under the Mahalanobis metric with
the pooled within-race covariance (:func:`fairstats.awareness.nearest_other_group`, exact), searched among
everybody predicted (not only the same fold). Features: :func:`awareness_features` (the paper design matrix
without ``ID`` and the row position ``Unnamed: 0.1``).

References
----------
Paper B, "Detecting Statistically Significant Fairness Violations in Recidivism Forecasting Algorithms",
Sections II-B to II-O, Eq. 1-4, Tables II-XXV. C. Nadeau and Y. Bengio (2003), Machine Learning 52:239-281.
"""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from compendium._checks import require_table
from compendium.authors import (
    AUTHORS_METRICS,
    MODELS,
    PAPER_B_TESTS,
    PaperTest,
    authors_fold_metrics,
    correct_t_note,
    fold_ttest_rows,
    matches_printed,
    printed_count_checks,
    read_published_b,
)
from compendium.published import PVR_COLUMNS
from fairstats.awareness import nearest_other_group
from fairstats.calibration import (
    calibration_independence_test,
    calibration_test,
    score_bins,
    well_calibration_test,
)
from fairstats.mcnemar import mcnemar_midp, mcnemar_midp_as_published
from fairstats.metrics import group_metrics
from fairstats.ttests import fold_ttest

__all__ = [
    "BATTERY_COLUMNS",
    "COUNT_TABLES",
    "EXTRA_COLUMNS",
    "RERUN_TESTS",
    "BatteryTables",
    "align_battery",
    "awareness_features",
    "battery_tables",
    "causal_discrimination_tables",
    "fold_agreement",
    "published_vs_reproduced_rerun",
    "run_battery",
]

#: The fold-based t-tests of the rerun: the authors' Tables II-XI plus the balance tests (XIV, XV), which
#: need every person's score (the authors committed only fold 0's).
RERUN_TESTS: tuple[PaperTest, ...] = (
    *PAPER_B_TESTS,
    PaperTest("XIV", "balance_positive_class", "mean_score_pos", "less"),
    PaperTest("XV", "balance_negative_class", "mean_score_neg", "less"),
)

#: Columns of :func:`compendium.authors.authors_battery`, in its order (the t-test layout shared by both).
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
_MCNEMAR_TABLE = {"causal_discrimination": "XX", "fairness_through_awareness": "XXV"}
_OTHER = {"causal_discrimination": "counterfactual", "fairness_through_awareness": "neighbor"}
_CORRECTED = {
    "t": "corrected resampled t (Nadeau & Bengio 2003)",
    "mcnemar": "McNemar mid-p (Eq. 3, k = min(K, N-K))",
    "calibration": "summed per-bin chi-square of independence (ours)",
    "well_calibration": "",
}
#: Identifier columns of the paper design matrix that are not features of a person.
_IDENTIFIERS = ("ID", "Unnamed: 0.1", "Unnamed: 0")
_PREDICTION_COLUMNS = ("model", "fold", "ID", "race", "y_true", "y_score", "y_pred", "y_pred_flipped")


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
        :func:`compendium.authors.authors_fold_metrics`.
    count_tables : pandas.DataFrame
        The paired 2x2 tables of Tables XVI-XIX (causal) and XXI-XXIV (awareness): ``table, model, test,
        group, original, other, n`` with ``other`` the race-flipped (causal) or neighbour's (awareness)
        prediction; four rows per (table, group), all four cells present (zeros included).
    calibration_bins : pandas.DataFrame
        Per model and score bin: the calibration test's counts (``alpha, theta, beta, gamma, lambda,
        contribution, used``), the independence test's per-bin rates and χ², and the mean score per group.
    well_calibration_terms : pandas.DataFrame
        Per model, bin and group: the well-calibration terms (:func:`fairstats.calibration.
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


# --------------------------------------------------------------------------------------------- inputs


def awareness_features(table: pd.DataFrame, *, features: str = "paper") -> pd.DataFrame:
    """The features of fairness through awareness: the design matrix without identifiers, indexed by ``ID``.

    Parameters
    ----------
    table : pandas.DataFrame
        The tidy NIJ table (:func:`compendium.data.nij.read_paper_folds`, rule ``reconstruct_nij``).
    features : {"paper", "clean"}, keyword-only
        Design matrix (:func:`compendium.data.nij.design_matrix`).

    Returns
    -------
    pandas.DataFrame
        One row per person, index ``ID`` (sorted), float columns: ``paper`` = the authors' 139 columns less
        ``ID`` and ``Unnamed: 0.1`` (the row position), i.e. the 137 NIJ features: 25 numeric columns
        (missing filled with 0, as the authors did; ``Residence_PUMA`` as a number) and the 0/1 dummies of
        the 23 categorical columns, race dummies included (under the pooled within-race covariance they are
        constant and drop out of the metric). ``clean`` = the clean matrix (no identifiers; ``_missing``
        flags).

    Raises
    ------
    ValueError, TypeError
        As :func:`compendium.data.nij.design_matrix`.
    """
    from compendium.data.nij import design_matrix

    dm = design_matrix(table, features=features)
    X = dm.X.drop(columns=[c for c in _IDENTIFIERS if c in dm.X.columns]).astype(float)
    X.index = pd.Index(dm.ID.to_numpy(dtype=np.int64), name="ID")
    return X.sort_index()


def _plain(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else value


def _battery_iv(predictions, features, favorable, alpha, n_bins, source, protected, unprotected):
    predictions = require_table(predictions, _PREDICTION_COLUMNS, where="`predictions`", nonempty=True)
    for column in _PREDICTION_COLUMNS:
        isna = predictions[column].isna().to_numpy()
        if isna.any():
            raise ValueError(
                f"`predictions`: column {column!r} has {int(isna.sum())} missing value(s), first at row "
                f"{_plain(predictions.index[np.flatnonzero(isna)[0]])!r}"
            )
    if favorable not in (0, 1) or isinstance(favorable, bool):
        raise ValueError(f"`favorable` must be 0 or 1, got {favorable!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"`alpha` must be a number in (0, 1), got {alpha!r}")
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise ValueError(f"`n_bins` must be a positive integer, got {n_bins!r}")
    if not isinstance(source, str) or not source:
        raise ValueError(f"`source` must be a non-empty string, got {source!r}")
    models = pd.unique(predictions["model"].astype(str))
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        raise ValueError(
            f"`predictions`: column 'model' has value {unknown[0]!r}; paper B's battery knows {list(MODELS)}"
        )
    race = predictions["race"].astype(str)
    for name, label in (("protected", protected), ("unprotected", unprotected)):
        if not (race == str(label)).any():
            raise ValueError(
                f"`{name}` group {label!r} does not occur in column 'race' "
                f"(values: {sorted(pd.unique(race))[:10]})"
            )
    other = ~race.isin([str(protected), str(unprotected)])
    if other.any():
        raise ValueError(
            f"`predictions`: column 'race' has value {race[other].iloc[0]!r}, neither `protected` "
            f"{protected!r} nor `unprotected` {unprotected!r}"
        )
    dup = predictions.duplicated(["model", "ID"])
    if dup.any():
        row = predictions.loc[dup].iloc[0]
        raise ValueError(
            f"`predictions`: person ID {_plain(row['ID'])!r} appears twice for model {row['model']!r}"
        )
    ids = {
        m: np.sort(predictions.loc[predictions["model"].astype(str) == m, "ID"].to_numpy()) for m in models
    }
    first = models[0]
    for m in models[1:]:
        if not np.array_equal(ids[m], ids[first]):
            raise ValueError(
                f"`predictions`: models {first!r} and {m!r} predict different people (e.g. different folds)"
            )
    if features is not None:
        if not isinstance(features, pd.DataFrame):
            raise TypeError(
                f"`features` must be a DataFrame indexed by ID or None, got {type(features).__name__}"
            )
        missing = np.setdiff1d(ids[first], features.index.to_numpy())
        if missing.size:
            raise ValueError(f"`features` has no row for person ID {_plain(missing[0])!r} (index = ID)")
        if features.index.duplicated().any():
            raise ValueError(
                f"`features`: ID {_plain(features.index[features.index.duplicated()][0])!r} is repeated"
            )
    return predictions, [m for m in MODELS if m in set(models)]


# --------------------------------------------------------------------------------------------- pieces


def _label(value: object) -> str:
    """Display label of a race value (``BLACK`` -> ``Black``), the authors' spelling."""
    return str(value).title()


def _fold_metrics(predictions: pd.DataFrame, favorable: int) -> pd.DataFrame:
    long = group_metrics(
        predictions.assign(model=predictions["model"].astype(str), race=predictions["race"].astype(str)),
        y_true="y_true",
        y_pred="y_pred",
        y_score="y_score",
        group="race",
        fold="fold",
        by=("model",),
        favorable=favorable,
        form="long",
        warn=False,
    )
    long = long.rename(columns={"race": "group"})
    long["group"] = long["group"].map(_label)
    metric_order = {m: i for i, m in enumerate(long["metric"].unique())}
    order = {
        "model": {m: i for i, m in enumerate(MODELS)},
        "metric": metric_order,
        "group": {"White": 0, "Black": 1},
    }
    long = long[["model", "metric", "group", "fold", "value", "numerator", "denominator"]]
    long = long.sort_values(
        ["model", "metric", "group", "fold"],
        key=lambda s: s.map(order[s.name]).fillna(len(order[s.name])) if s.name in order else s,
    )
    return long.reset_index(drop=True)


def _empty_row(source: str) -> dict[str, object]:
    row: dict[str, object] = dict.fromkeys(BATTERY_COLUMNS, np.nan)
    row["source"] = source
    row["group"] = ""
    row["corrected_test"] = ""
    return row


def _t_rows(fold_metrics: pd.DataFrame, models: list[str], alpha: float, source: str) -> list[dict]:
    rows = fold_ttest_rows(fold_metrics, tests=RERUN_TESTS, models=models, alpha=alpha, source=source)
    return [{**_empty_row(source), **r, "corrected_test": _CORRECTED["t"]} for r in rows]


def _calibration(
    predictions: pd.DataFrame, models: list[str], *, favorable, alpha, n_bins, source, protected, unprotected
):
    rows, bins, terms = [], [], []
    for model in models:
        p = predictions[predictions["model"].astype(str) == model]
        y, s, g = p["y_true"].to_numpy(), p["y_score"].to_numpy(dtype=float), p["race"].astype(str).to_numpy()
        kw = dict(protected=str(protected), unprotected=str(unprotected), n_bins=n_bins, favorable=favorable)
        cal = calibration_test(y, s, g, **kw)
        well = well_calibration_test(y, s, g, **kw)
        ind = calibration_independence_test(y, s, g, **kw)
        for res, table, test in ((cal, "XII", "calibration"), (well, "XIII", "well_calibration")):
            row = _empty_row(source)
            row.update(
                table=table,
                model=model,
                test=test,
                metric="outcome_rate_by_score_bin",
                alternative="greater",
                alpha=alpha,
                n=len(p),
                statistic=res.statistic,
                df=res.df,
                pvalue=res.pvalue,
                significant_paper=_verdict(res.pvalue, alpha),
                corrected_test=_CORRECTED[test],
            )
            if test == "calibration":
                row.update(
                    statistic_alternative=ind.statistic,
                    df_alternative=ind.df,
                    pvalue_alternative=ind.pvalue,
                    significant_corrected=_verdict(ind.pvalue, alpha),
                )
                paper, corrected = row["significant_paper"], row["significant_corrected"]
                row["verdict_changes"] = pd.NA if pd.isna(paper) or pd.isna(corrected) else paper != corrected
            else:
                row["significant_corrected"] = pd.NA
                row["verdict_changes"] = pd.NA
            rows.append(row)
        # per-bin table: the paper's counts, our per-bin rates and tests, the mean score per group
        b = score_bins(s, n_bins=n_bins)
        mean_score = (
            pd.DataFrame({"bin": b, "group": g, "s": s})
            .groupby(["bin", "group"])["s"]
            .mean()
            .unstack("group")
            .reindex(index=range(n_bins), columns=[str(protected), str(unprotected)])
        )
        ind_t = ind.table.rename(
            columns={
                "statistic": "statistic_independence",
                "pvalue": "pvalue_independence",
                "used": "used_independence",
                "min_expected": "min_expected_independence",
            }
        )
        merged = cal.table.merge(ind_t.drop(columns=["score_lower", "score_upper"]), on="bin")
        merged["mean_score_protected"] = mean_score[str(protected)].to_numpy()
        merged["mean_score_unprotected"] = mean_score[str(unprotected)].to_numpy()
        merged.insert(0, "model", model)
        bins.append(merged)
        wt = well.table.copy()
        wt["group"] = wt["group"].map(_label)
        wt.insert(0, "model", model)
        terms.append(wt)
    return rows, pd.concat(bins, ignore_index=True), pd.concat(terms, ignore_index=True)


def _verdict(pvalue: float, alpha: float) -> object:
    """``pvalue < alpha``; NA when the p-value is undefined (e.g. no usable bin)."""
    return bool(pvalue < alpha) if np.isfinite(pvalue) else pd.NA


def _paired_counts(own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """2x2 counts indexed [own, other] by label value 0/1."""
    return np.bincount(own.astype(int) * 2 + other.astype(int), minlength=4).reshape(2, 2)


def _mcnemar_rows_and_counts(
    predictions: pd.DataFrame,
    models: list[str],
    neighbour_of: dict[int, int] | None,
    *,
    favorable: int,
    alpha: float,
    source: str,
    protected: object,
    unprotected: object,
):
    rows, counts = [], []
    unfav = 1 - favorable
    tests = ["causal_discrimination"] + (["fairness_through_awareness"] if neighbour_of is not None else [])
    for test in tests:
        for model in models:
            p = predictions[predictions["model"].astype(str) == model]
            own = p["y_pred"].to_numpy().astype(int)
            if test == "causal_discrimination":
                other = p["y_pred_flipped"].to_numpy().astype(int)
            else:
                pred_by_id = pd.Series(own, index=p["ID"].to_numpy())
                other = pred_by_id.loc[p["ID"].map(neighbour_of).to_numpy()].to_numpy()
            race = p["race"].astype(str).to_numpy()
            for label in (unprotected, protected):
                mask = race == str(label)
                t = _paired_counts(own[mask], other[mask])
                for o in (0, 1):
                    for x in (0, 1):
                        counts.append(
                            {
                                "table": COUNT_TABLES[(test, model)],
                                "model": model,
                                "test": test,
                                "group": _label(label),
                                "original": o,
                                "other": x,
                                "n": int(t[o, x]),
                            }
                        )
                k = int(t[unfav, favorable])  # own unfavourable, other favourable (paper: original 1, cf 0)
                n_minus_k = int(t[favorable, unfav])
                mid = mcnemar_midp(k, n_minus_k)
                pub = mcnemar_midp_as_published(k, n_minus_k)
                n = int(mask.sum())
                row = _empty_row(source)
                row.update(
                    table=_MCNEMAR_TABLE[test],
                    model=model,
                    test=test,
                    metric=f"prediction_vs_{_OTHER[test]}",
                    alternative="two-sided",
                    alpha=alpha,
                    disparity=(k - n_minus_k) / n if n else np.nan,
                    group=_label(label),
                    n=n,
                    k=k,
                    n_minus_k=n_minus_k,
                    statistic=mid.statistic,
                    pvalue=mid.pvalue,
                    pvalue_as_published=pub.pvalue,
                    significant_paper=bool(pub.pvalue < alpha),
                    significant_corrected=bool(mid.pvalue < alpha),
                    verdict_changes=bool((pub.pvalue < alpha) != (mid.pvalue < alpha)),
                    corrected_test=_CORRECTED["mcnemar"],
                )
                rows.append(row)
    return rows, pd.DataFrame(counts, columns=["table", "model", "test", "group", "original", "other", "n"])


# --------------------------------------------------------------------------------------------- public


def causal_discrimination_tables(
    predictions: pd.DataFrame,
    *,
    favorable: int = 0,
    alpha: float = 0.05,
    source: str = "rerun",
    protected: object = "BLACK",
    unprotected: object = "WHITE",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables XVI-XX alone: the paired 2x2 counts and the McNemar rows of the causal-discrimination test.

    Parameters
    ----------
    predictions : pandas.DataFrame
        Tidy predictions with ``model, ID, race, y_pred, y_pred_flipped`` (e.g. the authors' refits of
        :mod:`compendium.authors_procedure`).
    favorable, alpha, source, protected, unprotected : keyword-only
        As :func:`battery_tables`.

    Returns
    -------
    tests : pandas.DataFrame
        The Table XX rows (:data:`BATTERY_COLUMNS`; ``k``, ``n_minus_k``, ``pvalue`` = mid-p of Eq. 3,
        ``pvalue_as_published``).
    counts : pandas.DataFrame
        ``table, model, test, group, original, other, n`` (Tables XVI-XIX).
    """
    require_table(predictions, ["model", "ID", "race", "y_pred", "y_pred_flipped"], where="`predictions`")
    present = set(predictions["model"].astype(str))
    models = [m for m in MODELS if m in present]
    rows, counts = _mcnemar_rows_and_counts(
        predictions,
        models,
        None,
        favorable=favorable,
        alpha=float(alpha),
        source=source,
        protected=protected,
        unprotected=unprotected,
    )
    tests = pd.DataFrame(rows, columns=list(BATTERY_COLUMNS))
    for col in ("n", "k", "n_minus_k"):
        tests[col] = tests[col].astype("Int64")
    return tests, counts


def battery_tables(
    predictions: pd.DataFrame,
    *,
    features: pd.DataFrame | None = None,
    favorable: int = 0,
    alpha: float = 0.05,
    n_bins: int = 10,
    source: str = "rerun",
    protected: object = "BLACK",
    unprotected: object = "WHITE",
) -> BatteryTables:
    r"""Paper B's 15 tests on out-of-fold predictions, with the tables behind them.

    Parameters
    ----------
    predictions : pandas.DataFrame
        Tidy predictions of :mod:`compendium.crossval` (``model, fold, ID, race, y_true, y_score, y_pred,
        y_pred_flipped``; ``y_score`` = P(y = 1)); every model predicts the same people, each once.
    features : pandas.DataFrame or None, keyword-only
        Features of fairness through awareness, index = ``ID`` (:func:`awareness_features`); None leaves out
        Tables XXI-XXV.
    favorable : {0, 1}, keyword-only
        Favourable outcome and prediction (paper: 0, no recidivism).
    alpha : float, keyword-only
        Family level (paper: 0.05); equalized odds and conditional use accuracy equality test at alpha/2.
    n_bins : int, keyword-only
        Equal-width score bins of the calibration tests (paper: 10).
    source : str, keyword-only
        Value of the ``source`` column (``"rerun"``).
    protected, unprotected : object, keyword-only
        Values of ``race`` for the protected (paper: Black) and unprotected (White) group; shown as
        ``Black``/``White`` (title case) in the ``group`` columns.

    Returns
    -------
    BatteryTables
        ``battery`` (:data:`BATTERY_COLUMNS`, rows in the paper's table order: II-XI, XII, XIII, XIV, XV, XX,
        XXV; models ``lr, lda, rf, xgb``; McNemar rows White then Black) and the tables behind it.

    Raises
    ------
    ValueError
        Missing column or value, unknown model, a race value other than the two groups, a person twice for a
        model, models predicting different people, a person without features, fewer than 2 folds, bad
        ``alpha``/``n_bins``/``favorable``.
    TypeError
        ``predictions`` or ``features`` not a DataFrame.

    Notes
    -----
    Fold-based tests (Tables II-XI, XIV, XV): per fold and race the metric of
    :func:`fairstats.metrics.group_metrics` (NaN where undefined, e.g. FN/FP in a fold without a false
    positive; ``n_white``/``n_black`` count the folds used), then :func:`fairstats.ttests.fold_ttest` with
    a = White, b = Black and the paper's tail. The paper's statistic is
    :math:`(\bar a - \bar b)/(s_p(1/K + 1/K))`, the pooled t without the square root; the corrected t is
    :math:`\bar d/\sqrt{(1/K + 1/(K-1))s_d^2}` on K - 1 df.

    Calibration (XII, XIII): :func:`fairstats.calibration.calibration_test` and
    :func:`~fairstats.calibration.well_calibration_test` on every person's out-of-fold score, bins
    ``[j/k, (j+1)/k)``, counted outcome ``favorable``.

    Causal discrimination (XX): per race, own prediction vs the same model's prediction with the race dummies
    swapped; fairness through awareness (XXV): own prediction vs the prediction of the nearest person of the
    other race (pooled-covariance Mahalanobis, exact, ties to the lowest ID). Both with the McNemar mid-p of
    Eq. 3, :math:`p = 2P(X \le m) - P(X = m)`, :math:`X \sim \mathrm{Bin}(K + (N-K), 1/2)`,
    :math:`m = \min(K, N-K)`, beside Table XX's formula :math:`2P(X \le m) - \tfrac12 P(X = m)`.

    References
    ----------
    Paper B, Sections II-B to II-O, Eq. 1-4, Tables II-XXV.

    Examples
    --------
    >>> tables = battery_tables(predictions, features=awareness_features(table))  # doctest: +SKIP
    >>> tables.battery.loc[tables.battery["table"] == "X", ["model", "significant_paper",
    ...                                                       "significant_corrected"]]  # doctest: +SKIP
    """
    predictions, models = _battery_iv(
        predictions, features, favorable, alpha, n_bins, source, protected, unprotected
    )
    alpha = float(alpha)
    fold_metrics = _fold_metrics(predictions, favorable)
    rows = _t_rows(fold_metrics, models, alpha, source)
    cal_rows, cal_bins, well_terms = _calibration(
        predictions,
        models,
        favorable=favorable,
        alpha=alpha,
        n_bins=int(n_bins),
        source=source,
        protected=protected,
        unprotected=unprotected,
    )

    neighbour_of, neighbours, used, dropped = None, None, (), ()
    if features is not None:
        first = predictions[predictions["model"].astype(str) == models[0]].sort_values("ID")
        ids = first["ID"].to_numpy()
        X = features.loc[ids]
        match = nearest_other_group(X, first["race"].astype(str).to_numpy(), covariance="pooled")
        neighbour_ids = ids[match.neighbor]
        neighbour_of = dict(zip(ids.tolist(), neighbour_ids.tolist(), strict=True))
        neighbours = pd.DataFrame(
            {
                "ID": ids,
                "group": [_label(v) for v in match.group],
                "neighbor_ID": neighbour_ids,
                "neighbor_group": [_label(v) for v in match.group[match.neighbor]],
                "distance": match.distance,
                "n_ties": match.n_ties,
            }
        )
        w = match.whitening
        used = tuple(n for n, k in zip(w.feature_names, w.kept, strict=True) if k)
        dropped = w.dropped_columns
    mc_rows, counts = _mcnemar_rows_and_counts(
        predictions,
        models,
        neighbour_of,
        favorable=favorable,
        alpha=alpha,
        source=source,
        protected=protected,
        unprotected=unprotected,
    )

    by_table = {}
    for row in rows + cal_rows + mc_rows:
        by_table.setdefault(row["table"], []).append(row)
    order = [s.table for s in PAPER_B_TESTS] + ["XII", "XIII", "XIV", "XV", "XX", "XXV"]
    ordered = [r for t in dict.fromkeys(order) for r in by_table.get(t, [])]
    battery = pd.DataFrame(ordered, columns=list(BATTERY_COLUMNS))
    flags = ("significant_paper", "significant_pooled", "significant_paired", "significant_corrected")
    for col in (*flags, "verdict_changes"):
        battery[col] = battery[col].astype("boolean")
    for col in ("n_white", "n_black", "n_pairs", "n", "k", "n_minus_k"):
        battery[col] = battery[col].astype("Int64")
    return BatteryTables(
        battery=battery,
        fold_metrics=fold_metrics,
        count_tables=counts,
        calibration_bins=cal_bins,
        well_calibration_terms=well_terms,
        neighbours=neighbours,
        features_used=used,
        features_dropped=dropped,
    )


def run_battery(
    predictions: pd.DataFrame,
    *,
    features: pd.DataFrame | None = None,
    favorable: int = 0,
    alpha: float = 0.05,
    n_bins: int = 10,
    source: str = "rerun",
    protected: object = "BLACK",
    unprotected: object = "WHITE",
) -> pd.DataFrame:
    """Paper B's 15 tests on out-of-fold predictions: :func:`battery_tables`'s ``battery``.

    Parameters, Raises
        As :func:`battery_tables`.

    Returns
    -------
    pandas.DataFrame
        One row per test, columns :data:`BATTERY_COLUMNS` (see the module docstring).

    Examples
    --------
    >>> run_battery(predictions, features=awareness_features(table))  # doctest: +SKIP
    """
    return battery_tables(
        predictions,
        features=features,
        favorable=favorable,
        alpha=alpha,
        n_bins=n_bins,
        source=source,
        protected=protected,
        unprotected=unprotected,
    ).battery


def align_battery(battery: pd.DataFrame) -> pd.DataFrame:
    """Give a battery (e.g. :func:`compendium.authors.authors_battery`'s) exactly :data:`BATTERY_COLUMNS`.

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
    out["corrected_test"] = out["corrected_test"].where(~t_rows, _CORRECTED["t"]).fillna("")
    return out[list(BATTERY_COLUMNS)]


# --------------------------------------------------------------------------------- published vs reproduced


def fold_agreement(fold_metrics: pd.DataFrame, authors: pd.DataFrame, *, atol: float = 1e-9) -> pd.DataFrame:
    """Per model and metric: in how many folds the rerun's per-fold values equal the authors' (both groups).

    Parameters
    ----------
    fold_metrics : pandas.DataFrame
        :attr:`BatteryTables.fold_metrics` (``model, metric, group, fold, value``).
    authors : pandas.DataFrame
        :func:`compendium.authors.authors_fold_metrics`.
    atol : float, keyword-only
        Absolute tolerance of "equal" (NaN equals NaN).

    Returns
    -------
    pandas.DataFrame
        ``model, metric, n_folds, n_equal, max_abs_difference`` over the folds of ``fold_metrics`` and the
        metrics both have (:data:`compendium.authors.AUTHORS_METRICS`), plus one row per model with metric
        ``"all"``: the folds where every one of those metrics is equal (the same confusion cells).
    """
    ours = fold_metrics[fold_metrics["metric"].isin(AUTHORS_METRICS)]
    merged = ours.merge(
        authors[["model", "metric", "group", "fold", "value"]],
        on=["model", "metric", "group", "fold"],
        suffixes=("", "_authors"),
        how="left",
    )
    a, b = merged["value"].to_numpy(dtype=float), merged["value_authors"].to_numpy(dtype=float)
    merged["equal"] = (np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= atol)
    merged["absdiff"] = np.abs(a - b)
    per_fold = merged.groupby(["model", "metric", "fold"], sort=False).agg(
        equal=("equal", "all"), absdiff=("absdiff", "max")
    )
    every = (
        per_fold.groupby(["model", "fold"], sort=False)
        .agg(equal=("equal", "all"), absdiff=("absdiff", "max"))
        .assign(metric="all")
        .set_index("metric", append=True)
        .reorder_levels(["model", "metric", "fold"])
    )
    out = (
        pd.concat([per_fold, every])
        .groupby(["model", "metric"], sort=False)
        .agg(n_folds=("equal", "size"), n_equal=("equal", "sum"), max_abs_difference=("absdiff", "max"))
        .reset_index()
    )
    out["n_equal"] = out["n_equal"].astype(np.int64)
    return out


_MODEL_ROWS = {v[3]: m for m, v in MODELS.items()}
_T_FIELDS = {
    "Disparity": "disparity",
    "Test Statistic": "statistic_paper_formula",
    "P-Value": "pvalue_paper_formula",
}
_NO_SCORES = (
    "no authors-per-fold counterpart (needs every person's score; the authors committed fold 0's only)"
)
_AWARENESS_MATCHING = (
    "our matching differs from the authors' (they took the covariance of the two vectors compared and "
    "matched within folds; we use the pooled within-race covariance of the features and search all folds)"
)


_CAUSAL = (
    "the printed table comes from the authors' refits without Race_WHITE, not from Table I's models: see "
    "source authors-procedure"
)
_AWARENESS = (
    "the authors' neighbour is decided by rounding (their distance is sqrt(2) for every pair): see source "
    "authors-procedure"
)
_READINGS = (
    "none of the readings declared in compendium.printed_readings reproduces the printed number: see source "
    "authors-procedure"
)
#: Where our predictions equal the authors' in every fold, the demonstrated cause of a remaining difference.
_CAUSE_WHEN_FITS_AGREE = {
    **dict.fromkeys(("XVI", "XVII", "XVIII", "XIX", "XX"), _CAUSAL),
    **dict.fromkeys(("XXI", "XXII", "XXIII", "XXIV", "XXV"), _AWARENESS),
    **dict.fromkeys(("XI", "XII", "XIII"), _READINGS),
    "XV": (
        "the printed numbers are E(S | y=1) of Black minus E(S | y=0) of White people, two different classes "
        "(reading of compendium.printed_readings, source authors-procedure)"
    ),
}


class _Notes:
    """The facts behind the notes of the rerun's published-vs-reproduced piece."""

    def __init__(self, tables: BatteryTables, published_csv, raw_dir) -> None:
        self.folds = np.sort(tables.fold_metrics["fold"].unique())
        self.k = len(self.folds)
        self.agreement = self.authors_t = self.failed = None
        if raw_dir is None:
            return
        authors = authors_fold_metrics(raw_dir)
        authors = authors[authors["fold"].isin(self.folds)]
        self.agreement = fold_agreement(tables.fold_metrics, authors).set_index(["model", "metric"])
        wide = authors.pivot(index=["model", "metric", "fold"], columns="group", values="value")
        models = set(tables.battery["model"])
        self.authors_t = {}
        for spec in PAPER_B_TESTS:
            for model in (m for m in MODELS if m in models):
                sub = wide.loc[(model, spec.metric)].sort_index()
                res = fold_ttest(
                    sub["White"].to_numpy(), sub["Black"].to_numpy(), alternative=spec.alternative
                )
                self.authors_t[(spec.table, model)] = {
                    "disparity": spec.disparity(res.mean_a, res.mean_b),
                    "statistic_paper_formula": res.statistic_paper_formula,
                    "pvalue_paper_formula": res.pvalue_paper_formula,
                }
        checks = printed_count_checks(published_csv, raw_dir)
        self.failed = checks[~checks["ok"]]

    def agree(self, model: str, metric: str = "all", table: str = "") -> str:
        """In how many folds our per-fold values (a metric, or "all" cells) equal the authors'; where all do,
        the demonstrated cause of a difference in ``table`` (:data:`_CAUSE_WHEN_FITS_AGREE`)."""
        if self.agreement is None or (model, metric) not in self.agreement.index:
            return ""
        a = self.agreement.loc[(model, metric)]
        n_equal, n_folds = int(a["n_equal"]), int(a["n_folds"])
        if metric != "all":
            return (
                f"; our per-fold {metric} equals the authors' committed value in {n_equal} of {n_folds} "
                f"folds (max |difference| {a['max_abs_difference']:.3g})"
            )
        text = (
            f"; our predictions give the authors' committed confusion cells in {n_equal} of {n_folds} folds"
        )
        if n_equal == n_folds and table in _CAUSE_WHEN_FITS_AGREE:
            text += f" (our fits agree with the authors'; {_CAUSE_WHEN_FITS_AGREE[table]})"
        return text

    def subset(self) -> str:
        if self.k == 250:
            return ""
        return (
            f"; the rerun covers {self.k} of the paper's 250 folds (config nij.test_folds), so its numbers "
            "are not comparable with the printed ones"
        )

    def t_table(self, table: str, model: str, metric: str, column: str, printed: str, ours: float) -> str:
        note = f"rerun {ours:.4g} (the paper's formula on our per-fold values)"
        field_ = _T_FIELDS[column]
        if self.authors_t is not None and (table, model) in self.authors_t:
            theirs = self.authors_t[(table, model)][field_]
            ok = matches_printed(column, printed, theirs)
            note += (
                f"; the same formula on the authors' per-fold values over these folds gives {theirs:.4g}, "
                f"which {'matches' if ok else 'does not match'} the printed value"
            )
            if not ok and self.k == 250:
                note += " (so the printed number does not follow from the authors' committed per-fold values)"
            return note + self.agree(model, metric) + self.subset()
        if table in ("XIV", "XV"):
            note += "; " + _NO_SCORES
        return note + self.agree(model, table=table) + self.subset()

    def calibration(self, model: str, ours: float, df: int, table: str = "XII") -> str:
        return (
            f"rerun {ours:.4g} (the paper's Eq. 1-2 on our out-of-fold scores, {df} df); {_NO_SCORES}; the "
            "statistic counts every score in its bin, so refits that move scores across bin edges move it"
            + self.agree(model, table=table)
            + self.subset()
        )

    def count(
        self, table: str, test: str, model: str, group: str, x: int, y: int, ours: int, total: int
    ) -> str:
        note = (
            f"rerun count {ours} of {total} {group} people "
            f"(own prediction {x}, {_OTHER[test]} prediction {y})"
        )
        if test == "fairness_through_awareness":
            note += "; " + _AWARENESS_MATCHING
        else:
            note += "; the race-flipped predictions come from our refit models"
        note += self.agree(model, table=table)
        if self.failed is not None:
            bad = self.failed[(self.failed["table"] == table) & (self.failed["group"] == group)]
            for _, c in bad.iterrows():
                note += f"; printed {c['check']} {c['printed']} != {c['expected']} ({c['note']})"
        return note + self.subset()

    def mcnemar(self, table: str, model: str, column: str, printed: str, r: pd.Series, alpha: float) -> str:
        ours = float(r[{"K": "k", "N-K": "n_minus_k", "P-Value": "pvalue"}[column]])
        note = f"rerun {ours:.4g}"
        if column == "P-Value":
            published = float(r["pvalue_as_published"])
            ok = matches_printed(column, printed, published)
            note += (
                f" = mid-p of Eq. 3 on our K = {int(r['k'])}, N-K = {int(r['n_minus_k'])}; Table XX's "
                f"formula 2*cdf(k) - 0.5*pmf(k) on our counts gives {published:.4g} "
                f"({'matches' if ok else 'does not match'} the printed value)"
            )
            if bool(r["verdict_changes"]):
                note += f"; the verdict at alpha = {alpha:g} differs between the two formulas"
        else:
            note += " discordant pairs (" + ("race-flipped" if table == "XX" else "nearest neighbour") + ")"
            if table == "XXV":
                note += "; " + _AWARENESS_MATCHING
        return note + self.agree(model, table=table) + self.subset()


def published_vs_reproduced_rerun(
    tables: BatteryTables,
    published_csv: str | os.PathLike,
    *,
    raw_dir: str | os.PathLike | None = None,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Every number printed in paper B's Tables II-XXV beside the rerun's (Table I: the training notebook).

    Parameters
    ----------
    tables : BatteryTables
        :func:`battery_tables` on the ``paper`` preset's predictions (with ``features``).
    published_csv : str or path-like
        ``data/published/paper-b-tables.csv``.
    raw_dir : str or path-like or None, keyword-only
        The authors' files (``data/raw/paper-b-authors``), used in the notes of mismatches: whether the
        authors' own per-fold values give the printed number, in how many folds ours equal theirs, whether the
        printed counts add up. None: notes without these comparisons.
    alpha : float, keyword-only
        Family level (only for the notes about verdicts).

    Returns
    -------
    pandas.DataFrame
        :data:`fairstats.reporting.PVR_COLUMNS`, ``paper`` = ``"B"``, ``source`` = ``"rerun"``, one row per
        printed number of Tables II-XXV in the published file's order; ``reproduced`` NaN where the rerun has
        no counterpart (e.g. awareness tables without features), with a note; every mismatch has a note.

    Raises
    ------
    TypeError
        ``tables`` is not a :class:`BatteryTables`.

    Notes
    -----
    Tables II-XI, XIV, XV: ``disparity``, ``statistic_paper_formula``, ``pvalue_paper_formula`` (the paper's
    own formula). XII, XIII: the paper's χ² and p. Count tables: the printed cell in row ``... (Y) = y``,
    column ``Original (X) = x`` is the count of people with own prediction x and other prediction y. XX,
    XXV: K, N - K and the mid-p of Eq. 3 (as the authors-per-fold piece does; the note gives Table XX's
    formula on our counts). Printed p-values ``~0``, ``0``, ``~1``, ``1`` match a p that rounds to it at
    three decimals (:func:`compendium.authors.matches_printed_pvalue`).
    """
    if not isinstance(tables, BatteryTables):
        raise TypeError(f"`tables` must be a BatteryTables result, got {type(tables).__name__}")
    published = read_published_b(published_csv)
    notes = _Notes(tables, published_csv, raw_dir)
    bat = tables.battery.set_index(["table", "model", "group"])
    cells = tables.count_tables.set_index(["table", "group", "original", "other"])["n"]
    totals = tables.count_tables.groupby(["table", "group"])["n"].sum()
    t_specs = {s.table: s for s in RERUN_TESTS}
    count_keys = {t: key for key, t in COUNT_TABLES.items()}
    missing = "no rerun counterpart (fairness through awareness needs `features`)"
    out = []
    for _, p in published.iterrows():
        table, row, column, printed = p["table"], p["row"], p["column"], p["published"]
        if table == "I":
            continue
        reproduced, note = float("nan"), missing
        if table in t_specs or table in ("XII", "XIII"):
            model = _MODEL_ROWS[row]
            if (table, model, "") in bat.index:
                r = bat.loc[(table, model, "")]
                if table in t_specs:
                    reproduced = float(r[_T_FIELDS[column]])
                    note = notes.t_table(table, model, t_specs[table].metric, column, printed, reproduced)
                else:
                    reproduced = float(r["statistic" if column.startswith("Chi") else "pvalue"])
                    note = notes.calibration(model, reproduced, int(r["df"]), table)
        elif table in count_keys:
            test, model = count_keys[table]
            group = "White" if row.startswith("Unprotected") else "Black"
            y, x = int(row.rsplit("=", 1)[1]), int(column.rsplit("=", 1)[1])
            if (table, group, x, y) in cells.index:
                reproduced = float(cells.loc[(table, group, x, y)])
                total = int(totals.loc[(table, group)])
                note = notes.count(table, test, model, group, x, y, int(reproduced), total)
        elif table in ("XX", "XXV"):
            model = _MODEL_ROWS[row.rsplit(" (", 1)[0]]
            group = "White" if row.endswith("(Unprotected)") else "Black"
            if (table, model, group) in bat.index:
                r = bat.loc[(table, model, group)]
                reproduced = float(r[{"K": "k", "N-K": "n_minus_k", "P-Value": "pvalue"}[column]])
                note = notes.mcnemar(table, model, column, printed, r, alpha)
        matches = matches_printed(column, printed, reproduced)
        note = "" if matches else note
        if table in t_specs and column in ("Test Statistic", "P-Value") and np.isfinite(reproduced):
            note = "; ".join(filter(None, [note, correct_t_note(r)]))
        out.append(["B", table, row, column, printed, reproduced, "rerun", matches, note])
    return pd.DataFrame(out, columns=PVR_COLUMNS)
