r"""Calibration of a probability score per group, without bins: logistic recalibration and the ICI.

A score is calibrated in a group when, among the group's people with score :math:`p`, a share :math:`p`
has the outcome. Binned tests (:mod:`fairstats.calibration`) depend on the bins chosen; here

* the **logistic recalibration** model
  :math:`\operatorname{logit} P(Y = 1 \mid p) = a + b \operatorname{logit} p` is fitted per group
  (statsmodels GLM, binomial): the *calibration slope* :math:`b` (1 when calibrated; below 1 when the scores
  are too extreme) and *calibration-in-the-large*, the intercept :math:`a` with the
  slope fixed at 1 (0 when the scores are right on average), each with its Wald interval and test;
* a **likelihood-ratio test** that the intercepts and slopes are equal across groups (the same
  recalibration curve for everybody), over all groups and for each group against a reference, with Holm's
  adjustment and a verdict;
* the **integrated calibration index** (ICI, Austin & Steyerberg 2019), the mean absolute distance between
  the scores and a smooth calibration curve, per group with a bootstrap interval. It is an estimate only: it
  is never below 0 and biased upward (noise alone makes it positive), so it has no test and no verdict.

Everything is fitted on the counts of (group, outcome, score) (:class:`fairstats.Counts`): one row per
distinct score with its successes and failures gives the same likelihood as one row per person. Scores must
lie in [0, 1]; the logit of a score of exactly 0 or 1 is infinite, so a group with such scores has an
undefined recalibration (the ICI, fitted on the score itself, is still defined).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairstats._deprecation import attribute
from fairstats._resampling import n_resamples_iv, rng_iv
from fairstats._result import Result
from fairstats._score_input import ScoreCounts, reference_iv, score_counts_iv
from fairstats._validation import level_iv
from fairstats.multiplicity import three_way_verdicts
from fairstats.outcomes import UndefinedTestWarning

__all__ = ["RecalibrationTestsResult", "calibration_curves", "recalibration_tests"]


def __getattr__(name: str) -> object:
    return attribute(__name__, name)  # a result class renamed after its function (issue 38): warn, name it


#: Quantiles of the scores at which the ICI's spline has its knots (Harrell's positions for 4 knots,
#: *Regression Modeling Strategies*, 2nd ed., 2015, Table 2.3).
ICI_KNOTS = (0.05, 0.35, 0.65, 0.95)


@dataclass(frozen=True, eq=False)
class RecalibrationTestsResult(Result):
    """Logistic recalibration and ICI per group; likelihood-ratio tests of equal recalibration.

    Attributes
    ----------
    groups : pandas.DataFrame
        One row per group: ``grouping, group, n, citl, citl_se, citl_ci_low, citl_ci_high, citl_pvalue``
        (calibration-in-the-large, test of 0), ``slope, slope_se, slope_ci_low, slope_ci_high, slope_pvalue``
        (calibration slope, test of 1), ``ici, ici_ci_low, ici_ci_high`` (percentile bootstrap; estimate
        only, no test), ``reason`` (why the recalibration is undefined, "" otherwise).
    comparisons : pandas.DataFrame
        One row per group other than the reference: ``grouping, group, reference, metric``
        (``"calibration"``), ``statistic`` (LR), ``df`` (2), ``pvalue, pvalue_adj`` (Holm over the
        comparisons), ``verdict, verdict_note`` (``disparity`` / ``inconclusive`` / ``undefined``: there is
        no equivalence test of two curves), ``citl_difference, slope_difference`` with their Wald intervals
        (``*_ci_low``, ``*_ci_high``), ``method, reason``.
    overall : dict
        The LR test over all groups: ``statistic, df, pvalue, groups, reason``.
    reference : str
    alpha, confidence_level : float
    n_resamples : int
    """

    groups: pd.DataFrame
    comparisons: pd.DataFrame
    overall: dict
    reference: str
    alpha: float
    confidence_level: float
    n_resamples: int

    _table = "comparisons"
    _omit = ("groups", "overall")


def _glm(successes, failures, exog, offset=None):
    """statsmodels' binomial GLM on (successes, failures) rows; ``None`` if it fails or does not converge."""
    from statsmodels.genmod.families import Binomial
    from statsmodels.genmod.generalized_linear_model import GLM
    from statsmodels.tools.sm_exceptions import (
        ConvergenceWarning,
        PerfectSeparationError,
        PerfectSeparationWarning,
    )

    keep = (successes + failures) > 0
    endog = np.column_stack([successes[keep], failures[keep]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerfectSeparationWarning)
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            # statsmodels' GLM module, not statsmodels.api (whose import takes 4 s: it loads the graphics)
            model = GLM(endog, exog[keep], family=Binomial(), offset=None if offset is None else offset[keep])
            fit = model.fit(tol=1e-12, maxiter=100)  # the default 1e-8 leaves the se off in the 6th digit
        except (PerfectSeparationError, PerfectSeparationWarning, ConvergenceWarning, ValueError,
                np.linalg.LinAlgError):
            return None
    if not np.all(np.isfinite(fit.params)) or not np.isfinite(fit.llf):
        return None
    return fit


def _logit(p: np.ndarray) -> np.ndarray:
    from scipy.special import logit

    return logit(p)


def _recalibrate(pos, neg, score, z_ci):
    """Calibration-in-the-large and slope of one group (dict), and the fit of ``[1, logit p]`` or None."""
    nan = float("nan")
    out = {k: nan for k in ("citl", "citl_se", "citl_ci_low", "citl_ci_high", "citl_pvalue", "slope",
                            "slope_se", "slope_ci_low", "slope_ci_high", "slope_pvalue")}
    edge = (score <= 0) | (score >= 1)
    people = float((pos + neg)[edge].sum())
    if people:
        out["reason"] = f"{people:g} people have a score of exactly 0 or 1 (infinite logit)"
        return out, None
    x = _logit(score)
    ones = np.ones_like(x)
    slope_fit = _glm(pos, neg, np.column_stack([ones, x]))
    citl_fit = _glm(pos, neg, ones[:, None], offset=x)
    if slope_fit is None or citl_fit is None:
        out["reason"] = "the logistic recalibration did not converge (separation, or one outcome only)"
        return out, None
    a, a_se = float(citl_fit.params[0]), float(citl_fit.bse[0])
    b, b_se = float(slope_fit.params[1]), float(slope_fit.bse[1])
    out.update(
        citl=a, citl_se=a_se, citl_ci_low=a - z_ci * a_se, citl_ci_high=a + z_ci * a_se,
        citl_pvalue=float(2 * stats.norm.sf(abs(a / a_se))),
        slope=b, slope_se=b_se, slope_ci_low=b - z_ci * b_se, slope_ci_high=b + z_ci * b_se,
        slope_pvalue=float(2 * stats.norm.sf(abs((b - 1) / b_se))),
        reason="",
    )
    return out, slope_fit


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray, q: Sequence[float]) -> np.ndarray:
    """Quantiles of ``values`` held by ``weights`` people each (inverse of the weighted distribution)."""
    cum = np.cumsum(weights) / weights.sum()
    return values[np.minimum(np.searchsorted(cum, q), values.size - 1)]


def _spline_basis(score: np.ndarray, people: np.ndarray) -> np.ndarray:
    """Natural (restricted) cubic spline basis of the score (patsy ``cr``) with knots at the
    :data:`ICI_KNOTS` quantiles of the people's scores, the outer two as boundary knots (linear beyond them):
    four columns spanning the intercept, Harrell's ``rcs(p, 4)``. With 4 or fewer distinct scores, one
    indicator per score (the saturated curve); with fewer than 3 distinct knots, ``[1, score]``."""
    import patsy

    if score.size <= len(ICI_KNOTS):
        return np.eye(score.size)
    knots = np.unique(_weighted_quantiles(score, people, ICI_KNOTS))
    if knots.size < 3:
        return np.column_stack([np.ones_like(score), score])
    basis = patsy.dmatrix(
        "cr(x, knots=inner, lower_bound=lo, upper_bound=hi) - 1",
        {"x": score, "inner": knots[1:-1], "lo": knots[0], "hi": knots[-1]},
    )
    return np.asarray(basis)


def _ici(pos, neg, score, basis) -> float:
    """Mean over the people of |calibration curve - score|; NaN when the curve cannot be fitted."""
    fit = _glm(pos, neg, basis)
    if fit is None:
        return float("nan")
    curve = fit.predict(basis)
    people = pos + neg
    return float(people @ np.abs(curve - score) / people.sum())


def _ici_bootstrap(pos, neg, score, basis, n_resamples, rng, confidence_level) -> tuple[float, float]:
    """Percentile interval of the ICI over multinomial resamples of the group's (score, outcome) counts."""
    n = int(round(float(pos.sum() + neg.sum())))
    cells = np.concatenate([pos, neg])
    k = score.size
    values = np.empty(n_resamples)
    for i in range(n_resamples):
        draw = rng.multinomial(n, cells / cells.sum()).astype(float)
        values[i] = _ici(draw[:k], draw[k:], score, basis)
    values = values[np.isfinite(values)]
    if values.size < max(2, n_resamples // 2):
        return float("nan"), float("nan")
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)


def _lr(fits: list, pooled) -> tuple[float, float]:
    """LR statistic of separate (intercept, slope) per group against one pair, and its df."""
    statistic = 2 * (sum(f.llf for f in fits) - pooled.llf)
    return float(max(statistic, 0.0)), float(2 * (len(fits) - 1))


def _pooled(counted: ScoreCounts, groups: Sequence[str]):
    pos = np.concatenate([counted.pos[g] for g in groups])
    neg = np.concatenate([counted.neg[g] for g in groups])
    x = _logit(np.concatenate([counted.score[g] for g in groups]))
    return _glm(pos, neg, np.column_stack([np.ones_like(x), x]))


def _recalibration_iv(alpha, confidence_level, n_resamples, rng):
    alpha = level_iv(alpha, "alpha")
    confidence_level = level_iv(confidence_level, "confidence_level")
    n_resamples = n_resamples_iv(n_resamples, zero="no ICI interval")
    return alpha, confidence_level, n_resamples, rng_iv(rng)


def _scores_in_unit_iv(counted: ScoreCounts) -> None:
    for g in counted.groups:
        s = counted.score[g]
        if s[0] < 0 or s[-1] > 1:
            bad = s[0] if s[0] < 0 else s[-1]
            raise ValueError(
                f"`y_score`: column {counted.y_score!r} has value {float(bad)!r} in group {g!r}; calibration "
                "needs probabilities in [0, 1]"
            )


def recalibration_tests(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_score: str,
    pos_label: object = None,
    reference: object = None,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    n_resamples: int = 999,
    rng: int | np.random.Generator | None = None,
) -> RecalibrationTestsResult:
    r"""Calibration per group by logistic recalibration and the ICI, and LR tests of equal calibration.

    Parameters
    ----------
    data : data frame or Counts
        As :func:`fairstats.discrimination.auc_tests`.
    group, y_true, y_score, pos_label, reference
        As :func:`fairstats.discrimination.auc_tests`; ``y_score`` is the predicted probability of
        ``y_true == pos_label``, in [0, 1].
    alpha : float, default 0.05
        Family-wise level of the comparisons' verdicts (Holm).
    confidence_level : float, default 0.95
        Of the Wald intervals and of the ICI's bootstrap interval.
    n_resamples : int, default 999
        Bootstrap resamples of the ICI interval per group (0: no interval).
    rng : int or numpy.random.Generator, optional
        Seed of the bootstrap.

    Returns
    -------
    RecalibrationTestsResult

    Raises
    ------
    ValueError, TypeError
        As :func:`fairstats.discrimination.auc_tests`; a score outside [0, 1].

    Warns
    -----
    UndefinedTestWarning
        A group's recalibration cannot be fitted (a score of 0 or 1, separation, one outcome only): its
        values are NaN with a ``reason``, and the LR tests involving it are ``undefined``.

    Notes
    -----
    Per group, the binomial GLMs (statsmodels) :math:`\operatorname{logit} \pi = a + \operatorname{logit} p`
    (offset; :math:`a` is calibration-in-the-large) and :math:`\operatorname{logit} \pi = \alpha + b
    \operatorname{logit} p` (:math:`b` is the calibration slope) (Cox 1958; Steyerberg 2019, Ch. 15). The LR
    test of equal recalibration compares separate :math:`(\alpha_g, b_g)` per group with one common pair:
    :math:`2(\sum_g \ell_g - \ell_0) \sim \chi^2_{2(G - 1)}` under the null (Wilks).

    The ICI is :math:`\frac1n \sum_i |\hat c(p_i) - p_i|`, with :math:`\hat c` a smooth calibration curve
    (Austin & Steyerberg 2019, Eq. 1). Austin & Steyerberg smooth with loess; loess cannot be fitted from
    weighted counts by statsmodels (its ``lowess`` takes no weights), so the curve here is a binomial GLM on
    a restricted (natural) cubic spline of the score (patsy ``cr``) with knots at the 5, 35, 65 and 95 %
    quantiles of the scores (Harrell 2015, Sec. 2.4.6: four knots, linear beyond the outer ones), fitted on
    the counts (with 4 or fewer distinct scores in a group, the curve is the observed share at each score;
    with fewer than 3 distinct knots, a logistic curve in the score). Its interval is the percentile
    interval over ``n_resamples`` multinomial resamples of the group's (score, outcome) counts, the knots
    held fixed.

    References
    ----------
    D. R. Cox, "Two further applications of a model for binary regression", Biometrika 45, 1958;
    P. C. Austin and E. W. Steyerberg, "The Integrated Calibration Index (ICI) and related metrics for
    quantifying the calibration of logistic regression models", Statistics in Medicine 38(21):4051-4065,
    2019; E. W. Steyerberg, *Clinical Prediction Models*, 2nd ed., Springer 2019; F. E. Harrell,
    *Regression Modeling Strategies*, 2nd ed., Springer 2015.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 4000)
    >>> df = pd.DataFrame({"g": np.repeat(["a", "b"], 2000), "p": p.round(2), "y": rng.random(4000) < p})
    >>> r = recalibration_tests(df.assign(y=df.y.astype(int)), group="g", y_true="y", y_score="p",
    ...                         n_resamples=0)
    >>> r.groups["slope"].round(1).tolist()
    [1.0, 0.9]
    >>> bool(r.comparisons.loc[0, "pvalue"] > 0.05)
    True
    """
    alpha, confidence_level, n_resamples, generator = _recalibration_iv(alpha, confidence_level,
                                                                        n_resamples, rng)
    counted = score_counts_iv(data, group=group, y_true=y_true, y_score=y_score, pos_label=pos_label)
    _scores_in_unit_iv(counted)
    ref = reference_iv(counted, reference)
    z_ci = float(stats.norm.ppf(0.5 + confidence_level / 2))
    rows, fits = [], {}
    for g in counted.groups:
        pos, neg, score = counted.pos[g], counted.neg[g], counted.score[g]
        values, fit = _recalibrate(pos, neg, score, z_ci)
        fits[g] = fit
        if values["reason"]:
            warnings.warn(UndefinedTestWarning(f"recalibration of {g!r} undefined: {values['reason']}"),
                          stacklevel=2)
        basis = _spline_basis(score, pos + neg)
        ici = _ici(pos, neg, score, basis)
        low = high = float("nan")
        if n_resamples and np.isfinite(ici):
            low, high = _ici_bootstrap(pos, neg, score, basis, n_resamples, generator, confidence_level)
            if not np.isfinite(low):
                warnings.warn(UndefinedTestWarning(
                    f"ICI interval of {g!r} undefined: the calibration curve could not be fitted in half of "
                    "the resamples"), stacklevel=2)
        elif not np.isfinite(ici):
            warnings.warn(UndefinedTestWarning(f"ICI of {g!r} undefined: the calibration curve could not be "
                                               "fitted (separation, or one outcome only)"), stacklevel=2)
        rows.append({"grouping": counted.grouping, "group": g, "n": counted.n(g), **values, "ici": ici,
                     "ici_ci_low": low, "ici_ci_high": high})
    groups = pd.DataFrame(rows)
    groups = groups[[c for c in groups.columns if c != "reason"] + ["reason"]]
    by_group = groups.set_index("group")

    overall = {"statistic": float("nan"), "df": float(2 * (len(counted.groups) - 1)), "pvalue": float("nan"),
               "groups": len(counted.groups), "reason": ""}
    if all(f is not None for f in fits.values()):
        pooled = _pooled(counted, counted.groups)
        if pooled is not None:
            stat, df = _lr(list(fits.values()), pooled)
            overall.update(statistic=stat, df=df, pvalue=float(stats.chi2.sf(stat, df)))
        else:
            overall["reason"] = "the pooled recalibration did not converge"
    else:
        overall["reason"] = "a group's recalibration is undefined"

    method = "likelihood-ratio test of equal recalibration intercept and slope (statsmodels GLM), df 2"
    comparisons = []
    for g in counted.groups:
        if g == ref:
            continue
        stat = p = float("nan")
        # whose recalibration is undefined, named: the group's own count, or the reference's as such
        own, other = by_group.loc[g, "reason"], by_group.loc[ref, "reason"]
        reason = (f"group {g!r}: {own}" if own else f"reference {ref!r}: {other}" if other else "")
        if not reason:
            pooled = _pooled(counted, (g, ref))
            if pooled is None:
                reason = "the pooled recalibration did not converge"
            else:
                stat, _ = _lr([fits[g], fits[ref]], pooled)
                p = float(stats.chi2.sf(stat, 2))
        if reason:
            warnings.warn(UndefinedTestWarning(f"calibration {g!r} vs {ref!r}: test undefined, {reason}"),
                          stacklevel=2)
        row = {"grouping": counted.grouping, "group": g, "reference": ref, "metric": "calibration",
               "statistic": stat, "df": 2.0, "pvalue": p, "equivalence_pvalue": float("nan")}
        for what in ("citl", "slope"):
            d = by_group.loc[g, what] - by_group.loc[ref, what]
            se = float(np.hypot(by_group.loc[g, f"{what}_se"], by_group.loc[ref, f"{what}_se"]))
            row.update({f"{what}_difference": d, f"{what}_difference_ci_low": d - z_ci * se,
                        f"{what}_difference_ci_high": d + z_ci * se})
        row.update(method=method, reason=reason)
        comparisons.append(row)
    table = three_way_verdicts(pd.DataFrame(comparisons), alpha=alpha, reason="reason")
    table = table.rename(columns={"pvalue_holm_difference": "pvalue_adj"})
    table = table.drop(columns=["equivalence_pvalue", "pvalue_holm_equivalence"])
    return RecalibrationTestsResult(groups, table, overall, ref, alpha, confidence_level, n_resamples)


def _curve(pos, neg, score, basis, xs):
    """The calibration curve at ``xs``: observed shares (``basis`` None: saturated, ``xs`` the scores) or the
    spline GLM's fit at the distinct scores interpolated on the grid; None when the GLM fails."""
    if basis is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            return pos / (pos + neg)
    fit = _glm(pos, neg, basis)
    return None if fit is None else np.interp(xs, score, fit.predict(basis))


def calibration_curves(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_score: str,
    pos_label: object = None,
    grid: int = 101,
    n_resamples: int = 199,
    confidence_level: float = 0.95,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """The smooth calibration curve of each group (the ICI's spline GLM) on a grid of scores, with bands.

    Returns a tidy frame ``grouping, group, score, observed, band_low, band_high``: the fitted share with
    the outcome at each grid score (the grid limited to the group's range of scores; with 4 or fewer
    distinct scores, those scores and their observed shares) and its pointwise percentile band over
    ``n_resamples`` multinomial resamples of the group's counts (NaN with ``n_resamples = 0``). For figures:
    the ICI and its interval are :func:`recalibration_tests`'. A group whose curve cannot be fitted is left
    out with an :class:`fairstats.UndefinedTestWarning`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 2000)
    >>> df = pd.DataFrame({"g": "a", "p": p.round(2), "y": (rng.random(2000) < p).astype(int)})
    >>> c = calibration_curves(pd.concat([df, df.assign(g="b")]), group="g", y_true="y", y_score="p",
    ...                        grid=5, n_resamples=0)
    >>> c.columns.tolist()
    ['grouping', 'group', 'score', 'observed', 'band_low', 'band_high']
    """
    _, confidence_level, n_resamples, generator = _recalibration_iv(0.05, confidence_level, n_resamples, rng)
    counted = score_counts_iv(data, group=group, y_true=y_true, y_score=y_score, pos_label=pos_label)
    _scores_in_unit_iv(counted)
    tail = (1 - confidence_level) / 2
    parts = []
    for g in counted.groups:
        pos, neg, score = counted.pos[g], counted.neg[g], counted.score[g]
        saturated = score.size <= len(ICI_KNOTS)
        basis = None if saturated else _spline_basis(score, pos + neg)
        xs = score if saturated else np.linspace(score[0], score[-1], grid)

        observed = _curve(pos, neg, score, basis, xs)
        if observed is None:
            message = f"calibration curve of {g!r} undefined: the spline GLM could not be fitted"
            warnings.warn(UndefinedTestWarning(message), stacklevel=2)
            continue
        low = high = np.full(xs.size, np.nan)
        if n_resamples:
            n = int(round(float(pos.sum() + neg.sum())))
            cells = np.concatenate([pos, neg])
            draws = []
            for _ in range(n_resamples):
                draw = generator.multinomial(n, cells / cells.sum()).astype(float)
                value = _curve(draw[: score.size], draw[score.size:], score, basis, xs)
                if value is not None:
                    draws.append(value)
            if len(draws) >= max(2, n_resamples // 2):
                low, high = np.nanquantile(np.array(draws), [tail, 1 - tail], axis=0)
        parts.append(pd.DataFrame({"grouping": counted.grouping, "group": g, "score": xs,
                                   "observed": observed, "band_low": low, "band_high": high}))
    columns = ["grouping", "group", "score", "observed", "band_low", "band_high"]
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)
