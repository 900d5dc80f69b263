r"""Paper B's fairness battery on out-of-fold predictions (our rerun), beside correct tests.

:func:`run_battery` takes the tidy predictions of :mod:`compendium.paper_b.crossval` (one row per person and
model: ``model, fold, ID, race, y_true, y_score, y_pred, y_score_flipped, y_pred_flipped``) and runs the
15 tests of paper B with the paper's tails and levels; :func:`battery_tables` returns the battery together
with the tables behind it (per-fold metrics, the 2x2 count tables of Tables XVI-XIX and XXI-XXIV, per-bin
calibration tables, the nearest neighbours). The columns of the battery are those of
:mod:`compendium.paper_b.battery_layout`; :mod:`compendium.paper_b.battery_pvr` sets every number printed in
Tables II-XXV beside the rerun's.

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

import numpy as np
import pandas as pd

from compendium._checks import require_table
from compendium.paper_b.as_published import mcnemar_midp_as_published
from compendium.paper_b.authors import MODELS, PAPER_B_TESTS, fold_ttest_rows
from compendium.paper_b.battery_layout import (
    BATTERY_COLUMNS,
    CORRECTED_TESTS,
    COUNT_TABLES,
    OTHER_PREDICTION,
    RERUN_TESTS,
    BatteryTables,
)
from compendium.paper_b.calibration import calibration_test, score_bins, well_calibration_test
from fairstats.awareness import nearest_other_group
from fairstats.calibration import calibration_independence_test
from fairstats.mcnemar import mcnemar_midp
from fairstats.metrics import group_metrics

__all__ = [
    "awareness_features",
    "battery_tables",
    "causal_discrimination_tables",
    "run_battery",
]

_MCNEMAR_TABLE = {"causal_discrimination": "XX", "fairness_through_awareness": "XXV"}
#: Identifier columns of the paper design matrix that are not features of a person.
_IDENTIFIERS = ("ID", "Unnamed: 0.1", "Unnamed: 0")
_PREDICTION_COLUMNS = ("model", "fold", "ID", "race", "y_true", "y_score", "y_pred", "y_pred_flipped")


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
    return [{**_empty_row(source), **r, "corrected_test": CORRECTED_TESTS["t"]} for r in rows]


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
        people = pd.DataFrame({"race": g, "y_true": y, "y_score": s})
        ind = calibration_independence_test(
            people, group="race", y_true="y_true", y_score="y_score",
            groups=(str(protected), str(unprotected)), n_bins=n_bins, favorable=favorable,
        )  # fmt: skip
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
                corrected_test=CORRECTED_TESTS[test],
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
                    metric=f"prediction_vs_{OTHER_PREDICTION[test]}",
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
                    corrected_test=CORRECTED_TESTS["mcnemar"],
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
        :mod:`compendium.paper_b.authors_procedure`).
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
        Tidy predictions of :mod:`compendium.paper_b.crossval` (``model, fold, ID, race, y_true, y_score,
        y_pred, y_pred_flipped``; ``y_score`` = P(y = 1)); every model predicts the same people, each once.
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
    positive; ``n_white``/``n_black`` count the folds used), then
    :func:`~compendium.paper_b.as_published.fold_ttest_as_published` with a = White, b = Black and
    the paper's tail. The paper's statistic is
    :math:`(\bar a - \bar b)/(s_p(1/K + 1/K))`, the pooled t without the square root; the corrected t is
    :math:`\bar d/\sqrt{(1/K + 1/(K-1))s_d^2}` on K - 1 df.

    Calibration (XII, XIII): :func:`compendium.paper_b.calibration.calibration_test` and
    :func:`~compendium.paper_b.calibration.well_calibration_test` on every person's out-of-fold score, bins
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
