r"""Equivalence tests: is a group disparity smaller than a margin the auditor sets?

A difference test that is not significant does not show that two groups are treated alike; it may only lack
power. An equivalence test reverses the hypotheses: the null is "the disparity is at least the margin", and
rejecting it shows, at level α, that the disparity lies inside the margin. Each function here is a two
one-sided tests procedure (TOST, Schuirmann 1987) or, for Cramér's V, Wellek's test of negligible association,
and reports beside it the minimum detectable disparity of the matching difference test
(:mod:`fairstats.power`). :func:`fairstats.multiplicity.three_way_verdicts` combines both into
``disparity`` / ``equivalent`` / ``inconclusive`` / ``undefined``.

Default margins, each with its source:

* :data:`DEFAULT_MARGIN` = 0.1, absolute difference of two rates: AIF360's guidance for its difference
  metrics (statistical parity difference, equal opportunity difference: "fairness ... between -0.1 and 0.1");
* :data:`DEFAULT_MARGIN_RATIO` = 0.8, ratio of two rates in [0.8, 1.25]: the four-fifths rule (US Uniform
  Guidelines on Employee Selection Procedures, 29 CFR 1607.4(D)), in both directions;
* :data:`DEFAULT_MARGIN_V` = 0.1, Cramér's V: Cohen's "small" effect w = 0.1 (Cohen 1988, Sec. 7.2.3).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from fairstats._memo import remembered
from fairstats._proportions import score_confint, score_confints, score_tosts
from fairstats._result import Result
from fairstats._validation import fold_pairs_iv, level_iv, positive_margin_iv
from fairstats._warnings import EquivalenceUndefinedWarning
from fairstats.power import DEFAULT_POWER, mde_cramers_v, mde_rate_difference, mde_t, mde_z

__all__ = [
    "DEFAULT_MARGIN",
    "DEFAULT_MARGIN_RATIO",
    "DEFAULT_MARGIN_V",
    "EquivalenceResult",
    "EquivalenceUndefinedWarning",
    "cramers_v_equivalence",
    "fold_equivalence",
    "margin_iv",
    "rate_equivalence",
    "t_equivalence",
    "welch_equivalence",
    "z_equivalence",
]

#: Absolute margin for a difference of two rates (AIF360's "fair" range of its difference metrics, ±0.1).
DEFAULT_MARGIN = 0.1
#: Lower ratio margin for two rates; the upper one is its inverse (four-fifths rule: [0.8, 1.25]).
DEFAULT_MARGIN_RATIO = 0.8
#: Margin for Cramér's V (Cohen's small effect, w = 0.1).
DEFAULT_MARGIN_V = 0.1


@dataclass(frozen=True)
class EquivalenceResult(Result):
    r"""One equivalence test with the minimum detectable disparity of the matching difference test.

    Attributes
    ----------
    scale : str
        ``"difference"`` (a - b), ``"ratio"`` (a / b) or ``"cramers_v"``.
    estimate : float
        Observed difference, ratio or V.
    margin_low, margin_high : float
        The equivalence region on ``scale`` (``(-m, m)``, ``(r, 1/r)`` or ``[0, m)``).
    pvalue_low, pvalue_high : float
        One-sided p-values against ``estimate <= margin_low`` and ``estimate >= margin_high`` (NaN for V's
        lower side, which has no test).
    pvalue : float
        The equivalence p-value, the larger of the two (intersection–union test).
    ci_low, ci_high : float
        The interval matching the test: two-sided at confidence :math:`1 - 2\alpha` (each bound one-sided at
        :math:`1 - \alpha`); for V, ``[0, upper bound]``.
    alpha : float
        Level of the test; ``equivalent = pvalue < alpha``.
    equivalent : bool
    mde : float
        Minimum detectable disparity of the difference test at ``alpha`` and ``power``, on the difference
        scale (rates, scores, V).
    power : float
    method : str
    reason : str
        Why the test is undefined ("" when it is defined).
    """

    scale: str
    estimate: float
    margin_low: float
    margin_high: float
    pvalue_low: float
    pvalue_high: float
    pvalue: float
    ci_low: float
    ci_high: float
    alpha: float
    equivalent: bool
    mde: float
    power: float
    method: str
    reason: str

    @property
    def undefined(self) -> bool:
        """True when the test could not be computed (see ``reason``)."""
        return bool(self.reason)


def margin_iv(value: object, name: str = "margin") -> float:
    """``value`` as a float strictly between 0 and 1 (a margin on rates, a ratio margin, a V margin): the
    library's one level check, :func:`fairstats._validation.level_iv`."""
    return level_iv(value, name)


def _undefined(scale, estimate, low, high, alpha, mde, power, method, reason) -> EquivalenceResult:
    warnings.warn(EquivalenceUndefinedWarning(f"equivalence test undefined: {reason}"), stacklevel=3)
    nan = float("nan")
    return EquivalenceResult(
        scale=scale,
        estimate=float(estimate),
        margin_low=float(low),
        margin_high=float(high),
        pvalue_low=nan,
        pvalue_high=nan,
        pvalue=nan,
        ci_low=nan,
        ci_high=nan,
        alpha=alpha,
        equivalent=False,
        mde=float(mde),
        power=power,
        method=method,
        reason=reason,
    )


def _defined(scale, estimate, low, high, p_low, p_high, ci, alpha, mde, power, method) -> EquivalenceResult:
    """A computed test: the p-value is the larger one-sided p-value (a NaN side has no test)."""
    p = float(np.nanmax([p_low, p_high]))
    return EquivalenceResult(
        scale=scale,
        estimate=float(estimate),
        margin_low=float(low),
        margin_high=float(high),
        pvalue_low=float(p_low),
        pvalue_high=float(p_high),
        pvalue=p,
        ci_low=float(ci[0]),
        ci_high=float(ci[1]),
        alpha=alpha,
        equivalent=bool(p < alpha),
        mde=float(mde),
        power=power,
        method=method,
        reason="",
    )


def rate_equivalence(
    count_a: float,
    nobs_a: float,
    count_b: float,
    nobs_b: float,
    *,
    margin: float = DEFAULT_MARGIN,
    margin_ratio: float | None = None,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
) -> EquivalenceResult:
    r"""TOST for two independent proportions: is :math:`p_a - p_b` within ±``margin`` (or :math:`p_a / p_b`
    within [``margin_ratio``, 1 / ``margin_ratio``])?

    Parameters
    ----------
    count_a, nobs_a, count_b, nobs_b : float
        Numerator and denominator of the rate in each group (e.g. true positives and actual positives).
    margin : float, default 0.1
        Absolute margin of the difference, in (0, 1).
    margin_ratio : float, optional
        Test the ratio instead, equivalence region [margin_ratio, 1 / margin_ratio] (0.8: the four-fifths
        rule).
    alpha : float, default 0.05
    power : float, default 0.8
        Of the minimum detectable difference (:func:`fairstats.power.mde_rate_difference`).
    alternative : str, default "two-sided"
        Alternative of the *difference* test whose ``mde`` is reported.

    Returns
    -------
    EquivalenceResult

    Warns
    -----
    EquivalenceUndefinedWarning
        An empty denominator or a statsmodels error: the result is undefined with its reason.

    Notes
    -----
    Two one-sided score tests (Miettinen & Nurminen 1985), as the difference test of
    :func:`fairstats.outcomes.outcome_tests`, the p-value the larger one-sided p-value (Schuirmann 1987): of
    the ratio statsmodels ``tost_proportions_2indep(method="score", compare="ratio")``; of the difference the
    score statistic at the restricted maximum-likelihood estimate (statsmodels' closed form has a wrong
    coefficient away from 0, its issue #10269). The interval is the score interval at level 1 - 2 alpha.

    References
    ----------
    D. J. Schuirmann, "A comparison of the two one-sided tests procedure ...", J. Pharmacokinetics and
    Biopharmaceutics 15, 1987; O. Miettinen and M. Nurminen, Statistics in Medicine 4, 1985.

    Examples
    --------
    >>> r = rate_equivalence(500, 1000, 510, 1000, margin=0.1)
    >>> r.equivalent, round(r.estimate, 3)
    (True, -0.01)
    """
    alpha = level_iv(alpha, "alpha")
    power = level_iv(power, "power")
    margin = margin_iv(margin, "margin")
    if margin_ratio is not None:
        margin_ratio = margin_iv(margin_ratio, "margin_ratio")
    return _rate_equivalence(
        float(count_a), float(nobs_a), float(count_b), float(nobs_b), margin, margin_ratio, alpha, power,
        alternative,
    )


#: What statsmodels' TOST raises where it cannot test (tiny groups, rates of 0 or 1).
_TOST_ERRORS = (ValueError, ZeroDivisionError, FloatingPointError, np.linalg.LinAlgError)
#: The columns of :func:`rate_equivalence_many`, in :class:`EquivalenceResult`'s names.
RATE_EQUIVALENCE_COLUMNS = ("estimate", "margin_low", "margin_high", "pvalue_low", "pvalue_high", "pvalue",
                            "ci_low", "ci_high", "mde", "method", "reason")  # fmt: skip


def rate_equivalence_many(
    count_a: ArrayLike,
    nobs_a: ArrayLike,
    count_b: ArrayLike,
    nobs_b: ArrayLike,
    *,
    margin: float,
    margin_ratio: float | None,
    alpha: ArrayLike,
    power: float,
    alternative: str = "two-sided",
) -> dict[str, np.ndarray]:
    """:func:`rate_equivalence` of many comparisons at once (options checked by the caller, no warnings;
    ``alpha`` one level or one per comparison): one array per column of :data:`RATE_EQUIVALENCE_COLUMNS`
    (``method`` and ``reason`` of text, ``reason`` "" where the test is defined), the same numbers as one call
    per comparison.

    The TOST is :func:`fairstats._proportions.score_tosts` on the arrays (of the ratio statsmodels'
    ``tost_proportions_2indep``; of the difference the score statistic at the restricted maximum, which
    statsmodels misses away from 0, its issue #10269), the interval
    :func:`fairstats._proportions.score_confints` (Koopman's closed form of the ratio one comparison at a
    time), the ``mde`` :func:`fairstats.power.mde_rate_difference` on the arrays.
    """
    count_a, nobs_a, count_b, nobs_b, alpha = (
        v.ravel() for v in np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in
                                                 (count_a, nobs_a, count_b, nobs_b, alpha)))
    )  # fmt: skip
    k = count_a.size
    compare = "diff" if margin_ratio is None else "ratio"
    low, high = (-margin, margin) if margin_ratio is None else (margin_ratio, 1.0 / margin_ratio)
    method = ("TOST, two one-sided Miettinen-Nurminen score tests of the difference" if compare == "diff"
              else "TOST, two one-sided score tests of the ratio (statsmodels tost_proportions_2indep)")
    nan = np.full(k, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate_a = np.where(nobs_a > 0, count_a / nobs_a, np.nan)
        rate_b = np.where(nobs_b > 0, count_b / nobs_b, np.nan)
        estimate = rate_a - rate_b if compare == "diff" else rate_a / rate_b
    out = {
        "estimate": estimate,
        "margin_low": np.full(k, float(low)),
        "margin_high": np.full(k, float(high)),
        "pvalue_low": nan.copy(),
        "pvalue_high": nan.copy(),
        "pvalue": nan.copy(),
        "ci_low": nan.copy(),
        "ci_high": nan.copy(),
        "mde": nan.copy(),
        "method": np.full(k, method, dtype=object),
        "reason": np.full(k, "", dtype=object),
    }  # fmt: skip
    for level in np.unique(alpha):
        at = alpha == level
        out["mde"][at] = mde_rate_difference(nobs_a[at], nobs_b[at], rate_b[at], alpha=float(level),
                                             power=power, alternative=alternative)  # fmt: skip
    reason = out["reason"]
    reason[~(nobs_b > 0)] = "no case in the denominator of group b"
    reason[~(nobs_a > 0)] = "no case in the denominator of group a"
    if compare == "ratio":
        reason[(reason == "") & (count_b == 0)] = "ratio undefined: p_b = 0"
    todo = np.flatnonzero(reason == "")
    if not todo.size:
        return out
    four = [v[todo] for v in (count_a, nobs_a, count_b, nobs_b)]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            p_low, p_high, p_tost = score_tosts(*four, low, high, compare)
        except _TOST_ERRORS:  # which comparisons statsmodels refuses: one at a time
            p_low, p_high, p_tost = (np.full(todo.size, np.nan) for _ in range(3))
            for j in range(todo.size):
                try:
                    p_low[j], p_high[j], p_tost[j] = (float(x[0]) for x in score_tosts(
                        *(v[j : j + 1] for v in four), low, high, compare))  # fmt: skip
                except _TOST_ERRORS as err:
                    reason[todo[j]] = f"statsmodels tost_proportions_2indep failed: {err}".replace("\n", " ")
            refused = reason[todo] != ""
            todo, four = todo[~refused], [v[~refused] for v in four]
            p_low, p_high, p_tost = p_low[~refused], p_high[~refused], p_tost[~refused]
        failed = np.full(todo.size, "", dtype=object)
        if compare == "diff":  # the score interval exists for every comparison
            ci_low, ci_high = score_confints(*four, 2 * alpha[todo])
        else:  # Koopman's interval in closed form, one comparison at a time
            ci_low, ci_high = np.full(todo.size, np.nan), np.full(todo.size, np.nan)
            for j in range(todo.size):
                try:
                    ci_low[j], ci_high[j] = score_confint(*(v[j] for v in four), compare, 2 * alpha[todo[j]])
                except (ValueError, ZeroDivisionError, FloatingPointError) as err:
                    failed[j] = str(err)
    # the test stands where only its interval is missing (statsmodels' ratio interval fails near 0 or 1)
    texts = out["method"]
    for j in np.flatnonzero(failed != ""):
        texts[todo[j]] = f"{method}; interval undefined ({failed[j]})".replace("\n", " ")
    defined = np.isfinite(p_tost)
    reason[todo[~defined]] = "score test p-value is NaN"
    keep = todo[defined]
    out["pvalue_low"][keep], out["pvalue_high"][keep] = p_low[defined], p_high[defined]
    out["pvalue"][keep] = np.fmax(p_low[defined], p_high[defined])
    out["ci_low"][keep], out["ci_high"][keep] = ci_low[defined], ci_high[defined]
    return out


def _result_of(columns: dict[str, np.ndarray], i: int, alpha: float, power: float) -> EquivalenceResult:
    """Comparison ``i`` of :func:`rate_equivalence_many` as an :class:`EquivalenceResult` (an undefined one
    with its :class:`EquivalenceUndefinedWarning`)."""
    c = {name: columns[name][i] for name in RATE_EQUIVALENCE_COLUMNS}
    scale = "difference" if "of the difference" in c["method"] else "ratio"
    if c["reason"]:
        return _undefined(scale, c["estimate"], c["margin_low"], c["margin_high"], alpha, c["mde"], power,
                          c["method"], c["reason"])  # fmt: skip
    ci = (c["ci_low"], c["ci_high"])
    return _defined(scale, c["estimate"], c["margin_low"], c["margin_high"], c["pvalue_low"],
                    c["pvalue_high"], ci, alpha, c["mde"], power, c["method"])  # fmt: skip


@remembered
def _rate_equivalence(
    count_a, nobs_a, count_b, nobs_b, margin, margin_ratio, alpha, power, alternative
) -> EquivalenceResult:
    """:func:`rate_equivalence` with its options checked: :func:`rate_equivalence_many` of one comparison.
    Remembered (:mod:`fairstats._memo`; the result is frozen): a caller that asks comparison by comparison
    (the decision levels) asks the same question for every group with the same counts."""
    columns = rate_equivalence_many(
        count_a, nobs_a, count_b, nobs_b, margin=margin, margin_ratio=margin_ratio, alpha=alpha, power=power,
        alternative=alternative,
    )  # fmt: skip
    return _result_of(columns, 0, alpha, power)


def t_equivalence(
    estimate: float,
    se: float,
    df: float,
    *,
    margin: float = DEFAULT_MARGIN,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
    method: str = "TOST on a t statistic",
) -> EquivalenceResult:
    r"""TOST for a difference with a t-distributed studentized estimate: is it within ±``margin``?

    Used for the corrected resampled t over folds (:func:`fold_equivalence`, paper B's battery from its
    summary columns) and Welch's t (:func:`welch_equivalence`).

    Parameters
    ----------
    estimate : float
        The mean difference.
    se : float
        Its standard error (for the corrected t: :math:`\sqrt{(1/J + r) s_d^2}`).
    df : float
        Degrees of freedom of the t.
    margin, alpha, power
        As :func:`rate_equivalence`; ``margin`` is on the estimate's scale and must be positive (not
        limited to 1: scores and rates both live in [0, 1], so it is).
    alternative : str, default "two-sided"
        Of the difference test whose ``mde`` (:func:`fairstats.power.mde_t`) is reported.
    method : str
        Label stored in the result.

    Returns
    -------
    EquivalenceResult

    Notes
    -----
    .. math:: p_{low} = P(T_{df} \ge (\hat\delta + m)/se), \quad p_{high} = P(T_{df} \le (\hat\delta - m)/se),
              \quad p = \max(p_{low}, p_{high})

    (Schuirmann 1987). Hand-written because statsmodels' ``ttost_paired`` has no variance correction for
    overlapping training sets (Nadeau & Bengio 2003); with :math:`se = s_d/\sqrt J` it equals
    ``ttost_paired`` (tested). The interval is :math:`\hat\delta \pm t_{1-\alpha, df}\, se`.

    Examples
    --------
    >>> r = t_equivalence(0.01, 0.02, 249, margin=0.1)
    >>> r.equivalent, round(r.ci_high, 4)
    (True, 0.043)
    """
    alpha = level_iv(alpha, "alpha")
    power = level_iv(power, "power")
    margin = margin_iv(margin, "margin")
    low, high = -margin, margin
    mde = mde_t(se, df, alpha=alpha, power=power, alternative=alternative)
    if not np.isfinite(estimate):
        return _undefined("difference", estimate, low, high, alpha, mde, power, method, "estimate undefined")
    if not (np.isfinite(se) and se > 0 and np.isfinite(df) and df >= 1):
        reason = "zero spread or fewer than 2 values: no standard error"
        return _undefined("difference", estimate, low, high, alpha, mde, power, method, reason)
    p_low = float(stats.t.sf((estimate - low) / se, df))
    p_high = float(stats.t.cdf((estimate - high) / se, df))
    half = float(stats.t.ppf(1 - alpha, df)) * se
    ci = (estimate - half, estimate + half)
    return _defined("difference", estimate, low, high, p_low, p_high, ci, alpha, mde, power, method)


def fold_equivalence(
    a: ArrayLike,
    b: ArrayLike,
    *,
    margin: float = DEFAULT_MARGIN,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
    test_train_ratio: float | None = None,
) -> EquivalenceResult:
    r"""TOST on paired per-fold differences with the Nadeau–Bengio corrected variance, df :math:`J - 1`.

    Parameters
    ----------
    a, b : array_like of float, shape (K,)
        Per-fold values of the two groups, aligned by fold (NaN: undefined in that fold; such folds are left
        out, as :func:`fairstats.ttests.fold_ttest` does).
    margin, alpha, power, alternative
        As :func:`t_equivalence`.
    test_train_ratio : float, optional
        :math:`n_{test}/n_{train}`; default :math:`1/(K-1)`.

    Returns
    -------
    EquivalenceResult

    Notes
    -----
    :math:`se = \sqrt{(1/J + r)\, s_d^2}` over the J complete pairs (the corrected resampled t of
    :func:`fairstats.ttests.fold_ttest`), then :func:`t_equivalence` with df :math:`J - 1`.

    References
    ----------
    C. Nadeau and Y. Bengio, Machine Learning 52, 2003; R. R. Bouckaert and E. Frank, PAKDD 2004;
    D. J. Schuirmann, 1987.

    Examples
    --------
    >>> r = fold_equivalence([0.50, 0.52, 0.49, 0.51], [0.50, 0.50, 0.50, 0.50], margin=0.1)
    >>> round(r.estimate, 3)
    0.005
    """
    a, b, _, _, pair_ok, ratio = fold_pairs_iv(a, b, "two-sided", alpha, test_train_ratio)
    d = a[pair_ok] - b[pair_ok]
    j = d.size
    se = float(np.sqrt((1.0 / j + ratio) * d.var(ddof=1)))
    return t_equivalence(
        float(d.mean()),
        se,
        float(j - 1),
        margin=margin,
        alpha=alpha,
        power=power,
        alternative=alternative,
        method=f"TOST on the corrected resampled t over {j} folds (Nadeau & Bengio 2003), df {j - 1}",
    )


def welch_equivalence(
    a: ArrayLike,
    b: ArrayLike,
    *,
    margin: float = DEFAULT_MARGIN,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
) -> EquivalenceResult:
    r"""TOST on the difference of two means with Welch's unequal-variance t (e.g. mean scores).

    Parameters
    ----------
    a, b : array_like of float
        The two samples.
    margin, alpha, power, alternative
        As :func:`t_equivalence`.

    Returns
    -------
    EquivalenceResult

    Notes
    -----
    :math:`se = \sqrt{s_a^2/n_a + s_b^2/n_b}` and Welch–Satterthwaite df, then :func:`t_equivalence`; equal
    to statsmodels ``ttost_ind(usevar="unequal")`` (tested).

    Examples
    --------
    >>> r = welch_equivalence([0.1, 0.2, 0.3, 0.4], [0.15, 0.25, 0.35, 0.45], margin=0.5)
    >>> round(r.estimate, 2)
    -0.05
    """
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    method = "TOST on Welch's t (unequal variances)"
    if xa.size < 2 or xb.size < 2:
        with np.errstate(invalid="ignore"):
            est = float(xa.mean() - xb.mean()) if xa.size and xb.size else float("nan")
        alpha_ = level_iv(alpha, "alpha")
        power_ = level_iv(power, "power")
        m = margin_iv(margin, "margin")
        return _undefined("difference", est, -m, m, alpha_, float("nan"), power_, method,
                          "fewer than 2 values in a group")
    va, vb = xa.var(ddof=1) / xa.size, xb.var(ddof=1) / xb.size
    se = float(np.sqrt(va + vb))
    with np.errstate(divide="ignore", invalid="ignore"):
        df = float((va + vb) ** 2 / (va**2 / (xa.size - 1) + vb**2 / (xb.size - 1)))
    return t_equivalence(
        float(xa.mean() - xb.mean()), se, df, margin=margin, alpha=alpha, power=power,
        alternative=alternative, method=method,
    )


def cramers_v_equivalence(
    observed: ArrayLike,
    *,
    margin: float = DEFAULT_MARGIN_V,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
) -> EquivalenceResult:
    r"""Wellek's test of negligible association: is Cramér's V below ``margin``?

    Parameters
    ----------
    observed : array_like or pandas.DataFrame, shape (r, c)
        Contingency table (e.g. groups × confusion cells, :meth:`fairstats.ContingencyTable.from_frame`).
    margin : float, default 0.1
        Margin of V, in (0, 1).
    alpha, power
        As :func:`rate_equivalence`; ``mde`` is the V that Pearson's χ² detects
        (:func:`fairstats.power.mde_cramers_v`).

    Returns
    -------
    EquivalenceResult
        ``pvalue_low`` is NaN (V ≥ 0 needs no test); ``ci_low`` = 0 and ``ci_high`` the upper
        :math:`1 - \alpha` confidence bound of V.

    Notes
    -----
    With :math:`X^2` Pearson's statistic on df :math:`(r-1)(c-1)`, n people and :math:`q = \min(r, c)`, the
    null :math:`V \ge \varepsilon` is :math:`w^2 = (q - 1) V^2 \ge (q-1)\varepsilon^2`; the test rejects for
    small :math:`X^2`, with p-value

    .. math:: p = F_{\chi^2_{df}(\lambda_0)}(X^2), \qquad \lambda_0 = n (q - 1) \varepsilon^2,

    the non-central χ² distribution function (Wellek 2010, Sec. 9.2, the test for negligible association in
    a contingency table, large-sample form). The upper confidence bound inverts it: the λ with
    :math:`F_{\chi^2_{df}(\lambda)}(X^2) = \alpha`, :math:`V_{up} = \sqrt{\lambda / (n (q - 1))}`
    (0 when even λ = 0 gives less than α). Hand-written from scipy's ``ncx2`` because no library has it.

    References
    ----------
    S. Wellek, *Testing Statistical Hypotheses of Equivalence and Noninferiority*, 2nd ed., CRC 2010, Ch. 9;
    J. Cohen, 1988, Ch. 7 (w and its "small" value 0.1).

    Examples
    --------
    >>> r = cramers_v_equivalence([[480, 520], [500, 500]], margin=0.1)
    >>> r.equivalent
    True
    """
    alpha = level_iv(alpha, "alpha")
    power = level_iv(power, "power")
    margin = margin_iv(margin, "margin")
    table = np.asarray(observed, dtype=float)
    method = "Wellek's test of negligible association (non-central chi-squared), Cramér's V"
    if table.ndim != 2 or min(table.shape) < 2:
        raise ValueError(
            f"`observed` must be a 2-D table with at least 2 rows and 2 columns, got shape {table.shape}"
        )
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    n = float(table.sum())
    q = min(table.shape)
    df = (table.shape[0] - 1) * (table.shape[1] - 1)
    if q < 2 or n <= 0:
        return _undefined("cramers_v", float("nan"), 0.0, margin, alpha, float("nan"), power, method,
                          "fewer than 2 non-empty rows or columns")
    chi2 = float(stats.chi2_contingency(table, correction=False).statistic)
    v = float(np.sqrt(chi2 / (n * (q - 1))))
    mde = mde_cramers_v(n, df, q, alpha=alpha, power=power)
    lam0 = n * (q - 1) * margin**2
    p = float(stats.ncx2.cdf(chi2, df, lam0))
    if stats.chi2.cdf(chi2, df) <= alpha:
        upper = 0.0
    else:
        from scipy.optimize import brentq

        hi = max(1.0, chi2)
        while stats.ncx2.cdf(chi2, df, hi) > alpha:
            hi *= 2
        lam = brentq(lambda x: stats.ncx2.cdf(chi2, df, x) - alpha, 0.0, hi, xtol=1e-10)
        upper = float(np.sqrt(lam / (n * (q - 1))))
    return _defined("cramers_v", v, 0.0, margin, float("nan"), p, (0.0, upper), alpha, mde, power, method)


def z_equivalence(
    estimate: float,
    se: float,
    *,
    margin: float = DEFAULT_MARGIN,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
    method: str = "TOST on a normal (z) statistic",
) -> EquivalenceResult:
    r"""TOST for a difference with an asymptotically normal estimate: is it within ±``margin``?

    Used for the difference of two AUCs (DeLong's variances, :func:`fairstats.discrimination.auc_tests`)
    and the differences of error metrics between groups (:func:`fairstats.regression.regression_tests`).

    Parameters
    ----------
    estimate : float
        The difference.
    se : float
        Its standard error.
    margin : float, default 0.1
        Positive margin on the estimate's scale (not limited to 1: a residual lives on the outcome's scale).
    alpha, power
        As :func:`rate_equivalence`.
    alternative : str, default "two-sided"
        Of the difference test whose ``mde`` (:func:`fairstats.power.mde_z`) is reported.
    method : str
        Label stored in the result.

    Returns
    -------
    EquivalenceResult

    Notes
    -----
    .. math:: p_{low} = 1 - \Phi((\hat\delta + m)/se), \quad p_{high} = \Phi((\hat\delta - m)/se),
              \quad p = \max(p_{low}, p_{high})

    (Schuirmann 1987, with the normal in place of Student's t); the interval is
    :math:`\hat\delta \pm z_{1-\alpha}\, se`. Hand-written (three lines of scipy's ``norm``) because
    statsmodels' TOST functions take samples, not an estimate and its standard error.

    Examples
    --------
    >>> r = z_equivalence(0.01, 0.02, margin=0.1)
    >>> r.equivalent, round(r.ci_high, 4)
    (True, 0.0429)
    """
    alpha = level_iv(alpha, "alpha")
    power = level_iv(power, "power")
    margin = positive_margin_iv(margin, "margin")
    low, high = -margin, margin
    mde = mde_z(se, alpha=alpha, power=power, alternative=alternative)
    if not np.isfinite(estimate):
        return _undefined("difference", estimate, low, high, alpha, mde, power, method, "estimate undefined")
    if not (np.isfinite(se) and se > 0):
        return _undefined("difference", estimate, low, high, alpha, mde, power, method, "no standard error")
    p_low = float(stats.norm.sf((estimate - low) / se))
    p_high = float(stats.norm.cdf((estimate - high) / se))
    half = float(stats.norm.ppf(1 - alpha)) * se
    ci = (estimate - half, estimate + half)
    return _defined("difference", estimate, low, high, p_low, p_high, ci, alpha, mde, power, method)
