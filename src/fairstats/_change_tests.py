r"""The tests of a change of disparity: from two models' disparities and their variances to a verdict.

A row of :mod:`fairstats.disparity_change` arrives as its moments: the baseline's and the new model's
disparity :math:`D_{base}, D_{new}` (or accuracy), the variances of :math:`u = D_{new} - D_{base}` and
:math:`v = D_{new} + D_{base}`, and the degrees of freedom (infinite for the delta method over people,
:math:`J - 1` for the corrected resampled t over folds, :func:`fold_moments`). :func:`finish` turns them into
the interval of :math:`\Delta = u`, the one-sided tests of "smaller in size" and "larger in size" (unions of
intersection-union tests on :math:`u` and :math:`v`), the TOST within the margin, and :func:`verdicts` into
Holm's and Benjamini-Hochberg's adjustments per family and the verdicts.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairstats._paired import RATE_METRICS
from fairstats._warnings import UndefinedTestWarning
from fairstats.equivalence import t_equivalence, z_equivalence
from fairstats.multiplicity import adjust_pvalues, three_way_verdicts

__all__ = ["ADJUSTED", "COLUMNS", "METHOD_FOLDS", "Options", "finish", "fold_moments", "moments", "verdicts"]

#: Columns of the table, in order.
COLUMNS = (
    "grouping", "group", "reference", "family", "metric", "scale", "value_baseline", "value", "estimate",
    "ci_low", "ci_high", "statistic", "df", "pvalue", "pvalue_adj", "pvalue_bh", "pvalue_better",
    "pvalue_worse", "equivalence_pvalue", "equivalence_pvalue_adj", "margin_low", "margin_high", "mde",
    "verdict", "verdict_note", "n", "n_reference", "n_changed", "n_changed_reference", "n_folds", "method",
    "reason",
)  # fmt: skip

METHOD_FOLDS = (
    "corrected resampled t over the {j} of {k} folds where the change is defined "
    "(Nadeau & Bengio 2003), df {df}"
)


@dataclass(frozen=True)
class Options:
    """The checked options of the tests."""

    scale: str
    alpha: float
    confidence_level: float
    margin: float
    margin_ratio: float
    power: float


def moments(*, base, new, var_u, var_v, df, reason, **keys) -> dict:
    """One row's moments: its keys (grouping ... n_folds, method), the two values, the two variances."""
    return {
        **keys,
        "d_base": float(base),
        "d_new": float(new),
        "var_u": float(var_u),
        "var_v": float(var_v),
        "df": float(df),
        "reason": reason,
    }


def fold_moments(
    per_fold: pd.DataFrame,
    overall: pd.DataFrame | None,
    *,
    grouping: str,
    reference: str,
    options: Options,
    ratio_k: float,
    sizes: dict | None = None,
) -> list[dict]:
    """Rows of the fold version from per-fold values of both models (``ratio_k``: the test/train ratio)."""
    rows = []
    folds = np.sort(per_fold["fold"].unique())
    wide = {}
    for (metric, group), part in per_fold.groupby(["metric", "group"], sort=False):
        part = part.set_index("fold").reindex(folds)
        wide[metric, group] = (
            part["value_baseline"].to_numpy(dtype=float),
            part["value"].to_numpy(dtype=float),
        )
    metrics = list(dict.fromkeys(per_fold["metric"]))
    groups = list(dict.fromkeys(per_fold["group"]))
    for m in metrics:
        on_ratio = options.scale == "ratio" and m in RATE_METRICS
        rb, rn = wide[m, reference]
        for g in groups:
            if g == reference:
                continue
            gb, gn = wide[m, g]
            with np.errstate(divide="ignore", invalid="ignore"):
                if on_ratio:
                    db, dn = np.log(gb) - np.log(rb), np.log(gn) - np.log(rn)
                else:
                    db, dn = gb - rb, gn - rn
            ok = np.isfinite(db) & np.isfinite(dn)
            rows.append(
                _fold_row_moments(
                    db[ok],
                    dn[ok],
                    folds.size,
                    ratio_k,
                    grouping=grouping,
                    group=g,
                    reference=reference,
                    family="fairness",
                    metric=m,
                    scale="ratio" if on_ratio else "difference",
                    sizes=sizes,
                )
            )
    if overall is not None:
        for m, part in overall.groupby("metric", sort=False):
            part = part.set_index("fold").reindex(folds)
            b, n = part["value_baseline"].to_numpy(dtype=float), part["value"].to_numpy(dtype=float)
            ok = np.isfinite(b) & np.isfinite(n)
            rows.append(
                _fold_row_moments(
                    b[ok],
                    n[ok],
                    folds.size,
                    ratio_k,
                    grouping="",
                    group="",
                    reference="",
                    family="accuracy",
                    metric=m,
                    scale="difference",
                    sizes=sizes,
                )
            )
    return rows


def _fold_row_moments(base, new, k, ratio_k, *, sizes, **keys) -> dict:
    """One row from the per-fold values of the two models over the J folds where both are defined."""
    j = base.size
    u, v = new - base, new + base
    factor = 1.0 / j + ratio_k if j else np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        var_u = factor * u.var(ddof=1) if j >= 2 else np.nan
        var_v = factor * v.var(ddof=1) if j >= 2 and keys["family"] == "fairness" else np.nan
    notes = []
    if j < 2:
        notes.append(f"defined in {j} of {k} folds: the fold version needs 2")
    elif var_u == 0:
        notes.append("zero spread of the change over the folds: no standard error")
    reason = "; ".join(notes)
    sizes = sizes or {}
    n = sizes.get(keys["group"], np.nan) if keys["family"] == "fairness" else sizes.get("", np.nan)
    return moments(
        **keys,
        base=float(base.mean()) if j else np.nan,
        new=float(new.mean()) if j else np.nan,
        var_u=var_u,
        var_v=var_v,
        df=float(j - 1) if j >= 2 else np.nan,
        n=n,
        n_reference=sizes.get(keys["reference"], np.nan) if keys["family"] == "fairness" else np.nan,
        n_changed=np.nan,
        n_changed_reference=np.nan,
        n_folds=float(j),
        method=METHOD_FOLDS.format(j=j, k=k, df=j - 1),
        reason=reason,
    )


def _row(*, base, new, var_u, var_v, df, reason, **keys) -> dict:
    return {
        **keys,
        "d_base": float(base),
        "d_new": float(new),
        "var_u": float(var_u),
        "var_v": float(var_v),
        "df": float(df),
        "reason": reason,
    }


ADJUSTED = ("pvalue_adj", "pvalue_bh", "equivalence_pvalue_adj", "verdict", "verdict_note")


def _cdf(x: float, df: float) -> float:
    return float(stats.norm.cdf(x) if not np.isfinite(df) else stats.t.cdf(x, df))


def _sf(x: float, df: float) -> float:
    return float(stats.norm.sf(x) if not np.isfinite(df) else stats.t.sf(x, df))


def _z(x: float, se: float) -> float:
    """``x / se``, with a zero standard error read as certainty (+-inf), or 0 when ``x`` is 0 too."""
    if se > 0:
        return x / se
    return float(np.sign(x) * np.inf)


def finish(rows: list[dict], options: Options) -> pd.DataFrame:
    """Tests, intervals, equivalence and the values shown, per row; then Holm, BH and the verdicts."""
    out = []
    q = 0.5 + options.confidence_level / 2
    for r in rows:
        ratio = r["scale"] == "ratio"
        u, v = r["d_new"] - r["d_base"], r["d_new"] + r["d_base"]
        se_u, se_v, df = np.sqrt(r["var_u"]), np.sqrt(r["var_v"]), r["df"]
        reason = r["reason"]
        if not reason and not (np.isfinite(u) and np.isfinite(se_u)):
            reason = "estimate or standard error undefined"
        if not reason and se_u == 0:
            reason = "no variance: the two models give the same values to everyone in both groups"
        nan = float("nan")
        p_better = p_worse = p = stat = ci_low = ci_high = nan
        margin = np.log(1 / options.margin_ratio) if ratio else options.margin
        eq_p = mde = nan
        if not reason:
            zu = _z(u, se_u)
            stat = zu
            if r["family"] == "fairness":
                zv = _z(v, se_v) if np.isfinite(se_v) else 0.0
                zv = 0.0 if np.isnan(zv) else zv  # v = 0 exactly with no spread: no evidence either way
                lo_u, hi_u, lo_v, hi_v = _cdf(zu, df), _sf(zu, df), _cdf(zv, df), _sf(zv, df)
                # |D_new| < |D_base|: (u < 0 and v > 0) or (u > 0 and v < 0); each an intersection-union test
                p_better = min(max(lo_u, hi_v), max(hi_u, lo_v))
                p_worse = min(max(hi_u, hi_v), max(lo_u, lo_v))
            else:
                p_better, p_worse = _sf(zu, df), _cdf(zu, df)
            p = min(1.0, 2 * min(p_better, p_worse))
            crit = float(stats.norm.ppf(q) if not np.isfinite(df) else stats.t.ppf(q, df))
            ci_low, ci_high = u - crit * se_u, u + crit * se_u
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # an undefined equivalence test stays NaN in its row
                how = r["method"]
                eq = (
                    z_equivalence(
                        u, se_u, margin=margin, alpha=options.alpha, power=options.power, method=how
                    )
                    if not np.isfinite(df)
                    else t_equivalence(
                        u, se_u, df, margin=margin, alpha=options.alpha, power=options.power, method=how
                    )
                )
            eq_p, mde = eq.pvalue, eq.mde
        else:
            message = (
                f"{r['metric']} {r['group']!r} vs {r['reference']!r}: change untested, {reason}"
                if r["family"] == "fairness"
                else f"{r['metric']}: change untested, {reason}"
            )
            warnings.warn(UndefinedTestWarning(message), stacklevel=4)
        show = np.exp if ratio else (lambda x: x)
        out.append(
            {
                **{k: r[k] for k in ("grouping", "group", "reference", "family", "metric", "scale")},
                "value_baseline": show(r["d_base"]),
                "value": show(r["d_new"]),
                "estimate": show(u),
                "ci_low": show(ci_low),
                "ci_high": show(ci_high),
                "statistic": stat,
                "df": df,
                "pvalue": p,
                "pvalue_better": p_better,
                "pvalue_worse": p_worse,
                "equivalence_pvalue": eq_p,
                "margin_low": options.margin_ratio if ratio else -options.margin,
                "margin_high": 1 / options.margin_ratio if ratio else options.margin,
                "mde": show(mde),
                "n": r["n"],
                "n_reference": r["n_reference"],
                "n_changed": r["n_changed"],
                "n_changed_reference": r["n_changed_reference"],
                "n_folds": r["n_folds"],
                "method": r["method"],
                "reason": reason,
            }
        )
    return verdicts(pd.DataFrame(out), options.alpha)


def verdicts(
    table: pd.DataFrame, alpha: float, by: list[str] | None = None, keys: list[str] | None = None
) -> pd.DataFrame:
    """Holm and BH per family (``family`` and the ``by`` columns), the three-way verdict, and its direction
    (fairer/less fair, better/worse); the ``keys`` columns first, then :data:`COLUMNS`."""
    by = [*(by or []), "family"]
    out = three_way_verdicts(table, alpha=alpha, by=by, reason="reason")
    out = out.rename(
        columns={"pvalue_holm_difference": "pvalue_adj", "pvalue_holm_equivalence": "equivalence_pvalue_adj"}
    )
    out["pvalue_bh"] = adjust_pvalues(out, method="fdr_bh", by=by, alpha=alpha)["pvalue_bh"]
    verdicts, notes = [], []
    for _, row in out.iterrows():
        fairness = row["family"] == "fairness"
        up, down = ("fairer", "less fair") if fairness else ("better", "worse")
        way = up if row["pvalue_better"] < row["pvalue_worse"] else down
        verdict, note = row["verdict"], row["verdict_note"]
        null = 1.0 if row["scale"] == "ratio" else 0.0  # no disparity
        if verdict == "disparity":
            verdict = way
        elif verdict == "equivalent" and note:  # real but within the margin: say which way
            note = f"{note} ({way})"
        elif (
            verdict == "inconclusive"
            and fairness
            and not note
            and np.sign(row["value"] - null) * np.sign(row["value_baseline"] - null) < 0
            and not row["ci_low"] <= null <= row["ci_high"]
        ):
            note = "the disparity changed sign: the two differ, but neither is shown smaller in size"
        verdicts.append(verdict)
        notes.append(note)
    out["verdict"] = verdicts
    out["verdict_note"] = notes
    return out.reindex(columns=list(dict.fromkeys([*(keys or []), *COLUMNS])))
