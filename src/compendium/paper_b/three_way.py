"""Paper B's battery with three-way verdicts (issue 12): violation, equivalence within a margin, or no answer.

Paper B reads "not significant" as "no violation". For each fold-based t row of the battery (the authors'
per-fold results or our rerun) :func:`battery_three_way` adds the equivalence test on the corrected
resampled t (:func:`fairstats.equivalence.t_equivalence`, df J - 1), the minimum detectable disparity, and
the verdict
after Holm over the whole battery (:func:`fairstats.multiplicity.three_way_verdicts`);
:func:`conclusions_three_way` sums it up per fairness definition for the conclusions table, and
:func:`power_curve` gives the power of the 250-fold design and of a single split for the teaching section.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from fairstats.equivalence import t_equivalence
from fairstats.multiplicity import three_way_verdicts

__all__ = ["RATE_METRICS", "battery_three_way", "conclusions_three_way", "power_curve"]

#: Battery metrics on a [0, 1] scale, for which an absolute margin means the same thing (rates, mean scores).
RATE_METRICS = ("ppr", "tpr", "fpr", "fnr", "ppv", "npv", "accuracy", "mean_score_pos", "mean_score_neg")


def battery_three_way(
    battery: pd.DataFrame, *, margin: float, alpha: float = 0.05, pvalue: str = "pvalue_correct"
) -> pd.DataFrame:
    """One row per battery row: the corrected test, the equivalence test at ``margin``, ``mde``, the verdict.

    Parameters
    ----------
    battery : pandas.DataFrame
        ``battery_adjusted.csv``-like rows (``model, test, metric, alternative, estimate`` and ``pvalue``)
        joined with the battery's ``statistic_corrected, df_corrected, n_pairs, n_white, n_black``.
    margin : float
        Absolute margin of a rate (or mean score) difference.
    alpha : float, default 0.05
        Family level; Holm over the whole battery for both the difference and the equivalence tests.
    pvalue : str, default "pvalue_correct"
        The correct test's p-value (corrected t, McNemar mid-p, summed χ²); NaN rows have no valid test.

    Returns
    -------
    pandas.DataFrame
        ``model, test, metric, alternative, estimate, se, df, margin, equivalence_ci_low, equivalence_ci_high,
        equivalence_pvalue, mde, pvalue, pvalue_holm_difference, pvalue_holm_equivalence, verdict,
        verdict_note``.

    Notes
    -----
    The standard error of the corrected t is recovered from the battery as ``estimate / statistic_corrected``,
    exact when every fold is defined in both groups (``n_pairs`` equal to both groups' counts; otherwise the
    note says "approximate"). The equivalence test is two-sided (± ``margin``) whatever the tail of the
    paper's test; ``mde`` is for the paper's tail. FN/FP ratios have no absolute margin (a ratio of counts):
    no equivalence test, so they are at best ``inconclusive``.
    """
    rows = []
    for r in battery.to_dict(orient="records"):
        stat, df = r.get("statistic_corrected", np.nan), r.get("df_corrected", np.nan)
        est = r.get("estimate", np.nan)
        note = ""
        out = {
            "model": r["model"], "test": r["test"], "metric": r["metric"], "alternative": r["alternative"],
            "estimate": est, "se": np.nan, "df": df, "margin": margin, "equivalence_ci_low": np.nan,
            "equivalence_ci_high": np.nan, "equivalence_pvalue": np.nan, "mde": np.nan, "pvalue": r[pvalue],
        }  # fmt: skip
        if r["metric"] in RATE_METRICS and np.isfinite(stat) and stat != 0 and np.isfinite(est):
            se = float(est / stat)
            n = (r.get("n_pairs"), r.get("n_white"), r.get("n_black"))
            if len(set(n)) != 1:
                note = "approximate se (some folds undefined)"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                eq = t_equivalence(
                    float(est), se, float(df), margin=margin, alpha=alpha,
                    alternative=str(r["alternative"]),
                    method="TOST on the corrected resampled t",
                )  # fmt: skip
            out.update(
                se=se, equivalence_ci_low=eq.ci_low, equivalence_ci_high=eq.ci_high,
                equivalence_pvalue=eq.pvalue, mde=eq.mde,
            )  # fmt: skip
        out["_note"] = note
        rows.append(out)
    frame = pd.DataFrame(rows)
    verdicts = three_way_verdicts(frame, alpha=alpha)
    undefined = frame["pvalue"].isna()
    verdicts.loc[undefined, "verdict_note"] = "no valid test (the paper's statistic only)"
    pairs = zip(verdicts["verdict_note"], frame["_note"], strict=True)
    verdicts["verdict_note"] = ["; ".join(x for x in pair if x) for pair in pairs]
    return verdicts.drop(columns="_note")


def conclusions_three_way(three_way: dict[str, pd.DataFrame], *, labels: dict[str, str]) -> pd.DataFrame:
    """Per battery source and fairness definition: which models get which verdict, and the largest ``mde``.

    Parameters
    ----------
    three_way : dict source -> DataFrame
        :func:`battery_three_way` per source (``authors``, ``paper``, ``clean``).
    labels : dict model -> str
        Model names for the text.

    Returns
    -------
    pandas.DataFrame
        ``source, test, margin, disparity, equivalent, inconclusive, undefined`` (models, "all" or "none"),
        ``real_within_margin`` (the equivalent models whose difference is also significant), ``mde_max``
        (largest minimum detectable disparity over the models) and ``reading``, one sentence.
    """
    out = []
    # A definition with two metrics takes the worst verdict of its rows per model.
    rank = {"disparity": 0, "undefined": 1, "inconclusive": 2, "equivalent": 3}

    def worst(verdicts: pd.Series) -> str:
        return min(verdicts, key=rank.__getitem__)

    def names(per_model: pd.Series, models: list, verdict: str) -> str:
        chosen = [m for m in models if per_model.get(m) == verdict]
        if not chosen:
            return "none"
        return "all" if len(chosen) == len(models) else ", ".join(labels.get(m, m) for m in chosen)

    for source, frame in three_way.items():
        models = list(dict.fromkeys(frame["model"]))
        for test, part in frame.groupby("test", sort=False):
            per_model = part.groupby("model", sort=False)["verdict"].agg(worst)

            row = {
                "source": source, "test": test, "margin": float(part["margin"].iloc[0]),
                **{v: names(per_model, models, v) for v in ("disparity", "equivalent", "inconclusive",
                                                             "undefined")},
            }  # fmt: skip
            real = part["verdict_note"].fillna("").str.contains("real but within the margin")
            real_models = set(part.loc[real, "model"])
            flags = {m: "real" for m in models if m in real_models and per_model.get(m) == "equivalent"}
            row["real_within_margin"] = names(pd.Series(flags, dtype=object), models, "real")
            row["mde_max"] = float(part["mde"].max()) if part["mde"].notna().any() else np.nan
            if row["disparity"] == "all":
                reading = "a disparity in every model"
            elif row["equivalent"] == "all":
                reading = f"equivalent within ±{row['margin']:g} in every model"
                if row["real_within_margin"] != "none":
                    reading += f" (a real but smaller difference: {row['real_within_margin']})"
            elif row["undefined"] == "all":
                reading = "no valid test"
            elif row["disparity"] == "none" and row["equivalent"] == "none":
                reading = "absence of evidence only: no model is shown to be within the margin"
            else:
                reading = "mixed"
            row["reading"] = reading
            out.append(row)
    return pd.DataFrame(out)


def power_curve(
    differences: np.ndarray,
    *,
    sd_fold: float,
    k: int = 250,
    n_a: float,
    n_b: float,
    rate_b: float,
    alpha: float = 0.05,
) -> pd.DataFrame:
    r"""Power to detect each true difference with the 250-fold corrected t and with one test split.

    Parameters
    ----------
    differences : array of float
        True differences of the rate (a - b), on [0, 1].
    sd_fold : float
        Standard deviation of the per-fold differences :math:`s_d` (from the battery).
    k : int, default 250
        Folds; the corrected t uses :math:`se = s_d \sqrt{1/k + 1/(k - 1)}`, df k - 1.
    n_a, n_b : float
        Denominators of the rate in each group of a single test split.
    rate_b : float
        Rate of group b.
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        ``difference, power_folds, power_single_split``.

    Notes
    -----
    Folds: statsmodels ``TTestPower().power(effect_size=d / (se sqrt(k)), nobs=k)`` (non-centrality
    :math:`d / se` on k - 1 df, as :func:`fairstats.power.mde_t`). Single split: ``NormalIndPower`` with
    Cohen's h between :math:`p_b + d` and :math:`p_b`.
    """
    from statsmodels.stats.power import NormalIndPower, TTestPower

    d = np.asarray(differences, dtype=float)
    se = sd_fold * np.sqrt(1.0 / k + 1.0 / (k - 1))
    folds = TTestPower().power(effect_size=d / (se * np.sqrt(k)), nobs=k, alpha=alpha)
    p_a = np.clip(rate_b + d, 0, 1)
    h = 2 * np.arcsin(np.sqrt(p_a)) - 2 * np.arcsin(np.sqrt(rate_b))
    single = NormalIndPower().power(effect_size=h, nobs1=n_a, alpha=alpha, ratio=n_b / n_a)
    return pd.DataFrame({"difference": d, "power_folds": folds, "power_single_split": single})
