r"""Power and minimum detectable disparity: how large a difference could this test have seen?

"Not significant" means "fair" only when the test could have detected an unfair difference. Each function
returns the **minimum detectable disparity** (``mde``): the smallest true difference that the test, at its
level and at the design's sizes, detects with the given power (80 % by default). A difference below ``mde``
may well go unseen.

The power equations are statsmodels' (:mod:`statsmodels.stats.power`: ``normal_power``,
``GofChisquarePower``, ``TTestPower``). The power of a z test depends on the effect and the sizes only through
the non-centrality (the effect times the square root of the effective size), and that of the χ² test through
:math:`\lambda = n w^2`: so the detectable non-centrality is one number per level, power and alternative
(and degrees of freedom), solved once to machine precision (:func:`_z_noncentrality`,
:func:`_chisquare_noncentrality`), and every comparison's ``mde`` follows from it in closed form, all
comparisons at once (the functions take arrays). statsmodels' ``solve_power``, which solves each size anew,
stops at its root finder's tolerance (``brentq_expanding``, ``xtol=1e-5`` on the effect size): its answers
agree with these to about 1e-5 (tested). Only the t test's detectable effect, whose degrees of freedom come
with the size, is still statsmodels' ``solve_power`` per size.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike

from fairstats._memo import remembered
from fairstats._validation import level_iv

__all__ = ["DEFAULT_POWER", "mde_t", "mde_cramers_v", "mde_rate_difference", "mde_z"]

#: Power at which the minimum detectable disparity is computed (Cohen 1988, Sec. 2.4: 0.80 "as a convention").
DEFAULT_POWER = 0.8

_SM_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "larger"}


def _power_iv(alpha: object, power: object, alternative: str) -> tuple[float, float]:
    alpha = level_iv(alpha, "alpha")
    power = level_iv(power, "power")
    if alternative not in _SM_ALTERNATIVE:
        raise ValueError(f"`alternative` must be one of {list(_SM_ALTERNATIVE)}, got {alternative!r}")
    return alpha, power


def _number_or_array(values: np.ndarray) -> float | np.ndarray:
    """A 0-d result as a float (the functions answer a number for numbers, an array for arrays)."""
    return float(values) if values.ndim == 0 else values


@functools.lru_cache(maxsize=256)
def _z_noncentrality(alpha: float, power: float, two_sided: bool) -> float:
    r"""The non-centrality :math:`x` of a z statistic that its test at level ``alpha`` detects with ``power``.

    statsmodels' ``normal_power`` at effect :math:`x` and size 1: with :math:`c = z_{1 - lpha/2}`,
    :math:`\Phi(x - c) + \Phi(-x - c) = 	ext{power}` (two-sided), solved by Brent's method to the last
    bits; one-sided, :math:`x = z_{1-lpha} + z_{	ext{power}}` exactly.
    """
    from scipy import optimize, special

    if not two_sided:
        return float(special.ndtri(1.0 - alpha) + special.ndtri(power))
    c = float(special.ndtri(1.0 - alpha / 2.0))

    def gap(x: float) -> float:
        return float(special.ndtr(x - c) + special.ndtr(-x - c)) - power

    # gap(0) = 2 Phi(-c) - power = alpha - power < 0 when power > alpha; gap grows with x towards 1 - power
    if gap(0.0) >= 0:  # a power at or below the level: detected at no effect
        return 0.0
    high = c + float(special.ndtri(power)) + 1.0
    while gap(high) <= 0:
        high *= 2.0
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=200))


@functools.lru_cache(maxsize=256)
def _chisquare_noncentrality(alpha: float, power: float, df: int) -> float:
    r"""The non-centrality :math:`\lambda` that Pearson's χ² test on ``df`` degrees of freedom at level
    ``alpha`` detects with ``power``: statsmodels' ``GofChisquarePower`` power at :math:`nw^2 = \lambda`,
    :math:`1 - F_{\chi^2_{df}(\lambda)}(\chi^2_{df, 1-lpha}) = 	ext{power}`, by Brent's method."""
    from scipy import optimize, special

    crit = float(special.chdtri(df, alpha))

    def gap(lam: float) -> float:
        return float(1.0 - special.chndtr(crit, df, lam)) - power

    if gap(0.0) >= 0:
        return 0.0
    high = 1.0
    while gap(high) <= 0:
        high *= 2.0
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=200))


@remembered
def _t_effect(nobs: float, alpha: float, power: float, alternative: str) -> float:
    """statsmodels' detectable standardized effect of a one-sample t test of ``nobs`` values
    (``TTestPower().solve_power(effect_size=None, ...)``) as a number. Remembered (:mod:`fairstats._memo`):
    an audit asks the same question for every comparison over the same folds. statsmodels' ``fsolve``
    fallback answers with a (1,) array, taken as its number.
    """
    from statsmodels.stats import power as sm_power

    value = sm_power.TTestPower().solve_power(
        effect_size=None, nobs=nobs, alpha=alpha, power=power, alternative=alternative
    )
    return float(np.squeeze(value))


def mde_rate_difference(
    nobs_a: ArrayLike,
    nobs_b: ArrayLike,
    rate_b: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
) -> float | np.ndarray:
    r"""Smallest difference of two proportions detected with ``power`` at level ``alpha``.

    Parameters
    ----------
    nobs_a, nobs_b : float or array_like
        Denominators of the rate in the two groups (e.g. actual positives for TPR); arrays give one answer per
        comparison (broadcast with ``rate_b``).
    rate_b : float or array_like
        The rate of the reference group, around which the difference is placed.
    alpha : float, default 0.05
        Level of the difference test.
    power : float, default 0.8
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Of the difference test (a one-sided test has more power in its direction).

    Returns
    -------
    float or numpy.ndarray
        :math:`|p_a - p_b|` at the detectable Cohen's h, the larger of the two directions (so that every
        difference below it, up or down, may go unseen); NaN when a denominator is 0 or ``rate_b`` is NaN.
        An array when any input is one.

    Notes
    -----
    The detectable Cohen's :math:`h = 2\arcsin\sqrt{p_a} - 2\arcsin\sqrt{p_b}` (Cohen 1988, Eq. 6.2.1) of
    statsmodels' ``NormalIndPower`` at sizes :math:`n_a, n_b` is :math:`h = x / \sqrt{n}` with
    :math:`n = 1 / (1/n_a + 1/n_b)` and :math:`x` the detectable non-centrality of a z test
    (:func:`_z_noncentrality`); the rate is then :math:`p_a = \sin^2(\arcsin\sqrt{p_b} \pm h/2)`, clipped
    to [0, 1]. ``NormalIndPower().solve_power(nobs1=nobs_a, ratio=nobs_b / nobs_a)`` gives the same
    :math:`h` to its root finder's tolerance (about 1e-5).

    References
    ----------
    J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988, Ch. 6.

    Examples
    --------
    >>> round(mde_rate_difference(1000, 1000, 0.5), 4)
    0.0625
    """
    alpha, power = _power_iv(alpha, power, alternative)
    a, b, rate = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (nobs_a, nobs_b, rate_b)))
    x = _z_noncentrality(alpha, power, alternative == "two-sided")
    with np.errstate(divide="ignore", invalid="ignore"):
        defined = (a > 0) & (b > 0) & np.isfinite(rate)
        h = x / np.sqrt(1.0 / (1.0 / a + 1.0 / b))
        phi = np.arcsin(np.sqrt(rate))
        up = np.sin(np.clip(phi + h / 2, 0, np.pi / 2)) ** 2 - rate
        down = rate - np.sin(np.clip(phi - h / 2, 0, np.pi / 2)) ** 2
        return _number_or_array(np.where(defined, np.maximum(up, down), np.nan))


def mde_t(
    se: float,
    df: float,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
) -> float:
    r"""Smallest difference a t-test of ``estimate / se`` on ``df`` degrees of freedom detects with ``power``.

    Parameters
    ----------
    se : float
        Standard error of the mean difference under the corrected variance,
        :math:`\sqrt{(1/J + r)\, s_d^2}` (:func:`fairstats.ttests.fold_ttest`).
    df : float
        Degrees of freedom, :math:`J - 1`.
    alpha, power, alternative
        As :func:`mde_rate_difference`.

    Returns
    -------
    float
        :math:`\delta` on the metric's scale; NaN when ``se`` is not a positive finite number.

    Notes
    -----
    The power of a t-test depends only on its df and non-centrality. statsmodels'
    ``TTestPower().solve_power(nobs=J)`` gives the detectable standardized effect :math:`e`, i.e. the
    non-centrality :math:`e\sqrt J` on :math:`J - 1` df; the corrected t has non-centrality
    :math:`\delta / se`, hence :math:`\delta = e \sqrt J\, se`.

    References
    ----------
    C. Nadeau and Y. Bengio, "Inference for the Generalization Error", Machine Learning 52, 2003.

    Examples
    --------
    >>> round(mde_t(0.01, 249), 4)
    0.0281
    """
    alpha, power = _power_iv(alpha, power, alternative)
    if not (np.isfinite(se) and se > 0 and np.isfinite(df) and df >= 1):
        return float("nan")
    nobs = float(df) + 1.0
    effect = _t_effect(nobs, alpha, power, _SM_ALTERNATIVE[alternative])
    return float(effect * np.sqrt(nobs) * se)


def mde_z(
    se: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
) -> float | np.ndarray:
    r"""Smallest difference a normal (z) test of ``estimate / se`` detects with ``power``.

    Parameters
    ----------
    se : float or array_like
        Standard error of the estimate (e.g. of a difference of two AUCs by DeLong's variances).
    alpha, power, alternative
        As :func:`mde_rate_difference`.

    Returns
    -------
    float or numpy.ndarray
        :math:`\delta` on the estimate's scale; NaN when ``se`` is not a positive finite number (an array
        for an array).

    Notes
    -----
    The detectable non-centrality :math:`e` of a z statistic (:func:`_z_noncentrality`, statsmodels'
    ``normal_power``; ``NormalIndPower().solve_power(nobs1=1, ratio=0)`` to its tolerance); the test of
    :math:`\hat\delta / se` has non-centrality :math:`\delta / se`, hence :math:`\delta = e\, se` (for a
    two-sided test at 5 % and 80 % power, :math:`e \approx z_{0.975} + z_{0.8} = 2.80`).

    References
    ----------
    J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988, Ch. 12.

    Examples
    --------
    >>> round(mde_z(0.01), 4)
    0.028
    """
    alpha, power = _power_iv(alpha, power, alternative)
    se = np.asarray(se, dtype=float)
    x = _z_noncentrality(alpha, power, alternative == "two-sided")
    with np.errstate(invalid="ignore"):
        return _number_or_array(np.where(np.isfinite(se) & (se > 0), x * se, np.nan))


def mde_cramers_v(
    n: float,
    df: int,
    q: int,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
) -> float:
    r"""Smallest Cramér's V that Pearson's χ² test of independence detects with ``power``.

    Parameters
    ----------
    n : float
        People in the table.
    df : int
        Degrees of freedom of the χ², :math:`(r - 1)(c - 1)`.
    q : int
        :math:`\min(r, c)` of the table (V = w / √(q − 1)).
    alpha, power
        As :func:`mde_rate_difference`.

    Returns
    -------
    float
        Detectable V; NaN when ``n`` or ``df`` is not positive or ``q < 2``.

    Notes
    -----
    The detectable Cohen's :math:`w` of statsmodels' ``GofChisquarePower`` (non-centrality :math:`n w^2` on
    ``df`` degrees of freedom, Cohen 1988, Eq. 7.2.1) is :math:`w = \sqrt{\lambda / n}` with :math:`\lambda`
    the detectable non-centrality (:func:`_chisquare_noncentrality`), and :math:`V = w / \sqrt{q - 1}`.
    ``GofChisquarePower().solve_power(nobs=n, n_bins=df + 1)`` gives the same :math:`w` to its tolerance.

    References
    ----------
    J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988, Ch. 7.

    Examples
    --------
    >>> round(mde_cramers_v(1000, 3, 2), 4)
    0.1044
    """
    alpha, power = _power_iv(alpha, power, "two-sided")
    if not (n > 0 and df >= 1 and q >= 2):
        return float("nan")
    w = np.sqrt(_chisquare_noncentrality(alpha, power, int(df)) / float(n))
    return float(w / np.sqrt(q - 1))
