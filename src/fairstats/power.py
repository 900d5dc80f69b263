r"""Power and minimum detectable disparity: how large a difference could this test have seen?

"Not significant" means "fair" only when the test could have detected an unfair difference. Each function
returns the **minimum detectable disparity** (``mde``): the smallest true difference that the test, at its
level and at the design's sizes, detects with the given power (80 % by default). A difference below ``mde``
may well go unseen. The power computations are statsmodels' (:mod:`statsmodels.stats.power`); only the
conversion of their standardized effect sizes back to the scale of the comparison is written here.
"""

from __future__ import annotations

import numpy as np

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


@remembered
def _detectable_effect(
    kind: str, nobs: float, alpha: float, power: float, alternative: str, extra: float
) -> float:
    """statsmodels' detectable standardized effect (``solve_power(effect_size=None, ...)``) as a number.

    ``kind`` is ``"normal_ind"`` (``extra`` = ratio of the sizes), ``"t"`` or ``"chisquare"`` (``extra`` =
    number of bins). Remembered (:mod:`fairstats._memo`): an audit of many groups asks the same question
    for every group of the same size. statsmodels' ``fsolve`` fallback answers with a (1,) array, taken as
    its number.
    """
    from statsmodels.stats import power as sm_power

    if kind == "normal_ind":
        value = sm_power.NormalIndPower().solve_power(
            effect_size=None, nobs1=nobs, alpha=alpha, power=power, ratio=extra, alternative=alternative
        )
    elif kind == "t":
        value = sm_power.TTestPower().solve_power(
            effect_size=None, nobs=nobs, alpha=alpha, power=power, alternative=alternative
        )
    else:
        value = sm_power.GofChisquarePower().solve_power(
            effect_size=None, nobs=nobs, alpha=alpha, power=power, n_bins=int(extra)
        )
    return float(np.squeeze(value))


def mde_rate_difference(
    nobs_a: float,
    nobs_b: float,
    rate_b: float,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
) -> float:
    r"""Smallest difference of two proportions detected with ``power`` at level ``alpha``.

    Parameters
    ----------
    nobs_a, nobs_b : float
        Denominators of the rate in the two groups (e.g. actual positives for TPR).
    rate_b : float
        The rate of the reference group, around which the difference is placed.
    alpha : float, default 0.05
        Level of the difference test.
    power : float, default 0.8
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Of the difference test (a one-sided test has more power in its direction).

    Returns
    -------
    float
        :math:`|p_a - p_b|` at the detectable Cohen's h, the larger of the two directions (so that every
        difference below it, up or down, may go unseen); NaN when a denominator is 0 or ``rate_b`` is NaN.

    Notes
    -----
    statsmodels' ``NormalIndPower().solve_power(nobs1=nobs_a, ratio=nobs_b / nobs_a)`` gives the detectable
    Cohen's :math:`h = 2\arcsin\sqrt{p_a} - 2\arcsin\sqrt{p_b}` (Cohen 1988, Eq. 6.2.1); the rate is then
    :math:`p_a = \sin^2(\arcsin\sqrt{p_b} \pm h/2)`, clipped to [0, 1].

    References
    ----------
    J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988, Ch. 6.

    Examples
    --------
    >>> round(mde_rate_difference(1000, 1000, 0.5), 4)
    0.0625
    """
    alpha, power = _power_iv(alpha, power, alternative)
    if not (nobs_a > 0 and nobs_b > 0 and np.isfinite(rate_b)):
        return float("nan")
    ratio = float(nobs_b) / float(nobs_a)
    h = _detectable_effect("normal_ind", float(nobs_a), alpha, power, _SM_ALTERNATIVE[alternative], ratio)
    phi = np.arcsin(np.sqrt(float(rate_b)))
    up = np.sin(np.clip(phi + h / 2, 0, np.pi / 2)) ** 2 - rate_b
    down = rate_b - np.sin(np.clip(phi - h / 2, 0, np.pi / 2)) ** 2
    return float(max(up, down))


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
    effect = _detectable_effect("t", nobs, alpha, power, _SM_ALTERNATIVE[alternative], 0.0)
    return float(effect * np.sqrt(nobs) * se)


def mde_z(
    se: float,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    alternative: str = "two-sided",
) -> float:
    r"""Smallest difference a normal (z) test of ``estimate / se`` detects with ``power``.

    Parameters
    ----------
    se : float
        Standard error of the estimate (e.g. of a difference of two AUCs by DeLong's variances).
    alpha, power, alternative
        As :func:`mde_rate_difference`.

    Returns
    -------
    float
        :math:`\delta` on the estimate's scale; NaN when ``se`` is not a positive finite number.

    Notes
    -----
    statsmodels' ``NormalIndPower().solve_power(nobs1=1, ratio=0)`` (the one-sample form) gives the
    detectable non-centrality :math:`e` of a z statistic; the test of :math:`\hat\delta / se` has
    non-centrality :math:`\delta / se`, hence :math:`\delta = e\, se` (for a two-sided test at 5 % and
    80 % power, :math:`e \approx z_{0.975} + z_{0.8} = 2.80`).

    References
    ----------
    J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988, Ch. 12.

    Examples
    --------
    >>> round(mde_z(0.01), 4)
    0.028
    """
    alpha, power = _power_iv(alpha, power, alternative)
    if not (np.isfinite(se) and se > 0):
        return float("nan")
    effect = _detectable_effect("normal_ind", 1.0, alpha, power, _SM_ALTERNATIVE[alternative], 0.0)
    return float(effect * se)


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
    statsmodels' ``GofChisquarePower().solve_power(nobs=n, n_bins=df + 1)`` gives the detectable Cohen's
    :math:`w` (non-centrality :math:`n w^2` on ``df`` degrees of freedom, Cohen 1988, Eq. 7.2.1), and
    :math:`V = w / \sqrt{q - 1}`.

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
    w = _detectable_effect("chisquare", float(n), alpha, power, "two-sided", float(int(df) + 1))
    return float(w / np.sqrt(q - 1))
