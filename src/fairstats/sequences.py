r"""Anytime-valid confidence sequences for one rate and for the difference of two rates, batch after batch.

A confidence sequence covers its parameter at every batch at once with probability at least 1 − α, however
often it is looked at and whenever the looking stops (Ville's inequality applied to a nonnegative
supermartingale). :class:`fairstats.FairnessMonitor` keeps one per comparison; the functions here compute
them on whole streams of batch counts (simulations, a replay).

* **One rate** (:func:`rate_confidence_sequence`): the prior–posterior ratio of a uniform Beta(1, 1) prior
  (Robbins 1970; Waudby-Smith & Ramdas 2020), exact for Bernoulli trials.
* **A difference of two rates** (:func:`rate_difference_e_value`,
  :func:`rate_difference_confidence_sequence`): the empirical-variance (sub-exponential) condition with the
  gamma-exponential mixture boundary of Howard, Ramdas, McAuliffe & Sekhon (2021), on a weighted sum of the
  per-batch differences whose weights make the common rate (the nuisance) cancel exactly. It depends on the
  data through eleven running numbers per comparison, so an update costs the same after 10² or 10⁹ decisions.

Both are nonasymptotic: no normal approximation enters their guarantee.

References
----------
H. Robbins (1970), Statistical methods related to the law of the iterated logarithm, *Ann. Math. Statist.*
41(5), 1397-1409. I. Waudby-Smith and A. Ramdas (2020), Confidence sequences for sampling without
replacement, *NeurIPS* 33. S. R. Howard, A. Ramdas, J. McAuliffe and J. Sekhon (2021), Time-uniform,
nonparametric, nonasymptotic confidence sequences, *Ann. Statist.* 49(2), 1055-1080 (the gamma-exponential
mixture, their Proposition 8; its tuning, their Sec. 3.5). X. Fan, I. Grama and Q. Liu (2015), Exponential
inequalities for martingales with applications, *Electron. J. Probab.* 20(1). J. Ville (1939), *Étude
critique de la notion de collectif*.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, special

from fairstats._validation import level_iv

__all__ = [
    "DEFAULT_V_OPT",
    "DifferenceSums",
    "mixture_rho",
    "rate_confidence_sequence",
    "rate_difference_confidence_sequence",
    "rate_difference_e_value",
    "v_opt_iv",
]

#: Intrinsic time :math:`V` at which the difference's boundary is tightest by default. With it the boundary
#: stays within 10 % of its lowest value (3.2 standard errors at α = 0.05) from V = 100 to 10,000, and below
#: 3.5 from V = 70 to 20,000; V grows by about :math:`p(1-p)/\max(p, 1-p)^2` per decision (0.43 at p = 0.3,
#: 1 at p = 0.5, 0.11 at p = 0.1), so this covers disparities that a fixed-sample test would need a few
#: hundred to some tens of thousands of decisions to find.
DEFAULT_V_OPT = 300.0

_FLOOR = -1e12  # stands in for log(0) inside the root finders (a continuous, finite clip)
_LOG_CAP = 700.0  # e-values are reported up to exp(700)


# --------------------------------------------------------------------------------------------------------
# one rate: prior-posterior ratio of a Beta(1, 1) mixture
# --------------------------------------------------------------------------------------------------------


def _loglik(s: float, f: float, p: float) -> float:
    """log p^s (1-p)^f, with 0 log 0 = 0 (``p`` outside [0, 1] has likelihood 0)."""
    if p < 0.0 or p > 1.0:
        return -math.inf
    out = 0.0
    if s:
        out += s * math.log(p) if p > 0.0 else -math.inf
    if f:
        out += f * math.log1p(-p) if p < 1.0 else -math.inf
    return out


def _log_beta_mixture(s: float, f: float) -> float:
    """log of the Beta(1, 1) mixture probability, :math:`\\int_0^1 p^s (1-p)^f dp = B(s+1, f+1)`."""
    return float(special.betaln(s + 1.0, f + 1.0))


def rate_confidence_sequence(
    successes: Sequence[int] | np.ndarray, trials: Sequence[int] | np.ndarray, *, alpha: float = 0.05
) -> pd.DataFrame:
    r"""Anytime-valid confidence sequence for one rate, after each batch of Bernoulli trials.

    Parameters
    ----------
    successes, trials : sequence of int
        Favourable outcomes and trials in each batch (a batch of one trial per step gives the sequence after
        every observation).
    alpha : float, keyword-only, default 0.05
        The sequence covers the rate at every batch at once with probability at least 1 - α.

    Returns
    -------
    pandas.DataFrame
        One row per batch: ``n`` (trials so far), ``estimate``, ``cs_low``, ``cs_high`` (this batch's set),
        ``cs_low_running``, ``cs_high_running`` (the running intersection, which is also a confidence
        sequence).

    Notes
    -----
    With :math:`s_t` favourable outcomes in :math:`n_t` trials and :math:`f_t = n_t - s_t`, the
    prior–posterior ratio of the uniform prior (Waudby-Smith & Ramdas 2020; a mixture martingale, Robbins
    1970)

    .. math:: M_t(p) = \frac{B(s_t + 1, f_t + 1)}{p^{s_t} (1-p)^{f_t}}, \qquad
              C_t = \{p : M_t(p) < 1/\alpha\}

    is a nonnegative martingale with :math:`M_0 = 1` when the trials are independent with rate :math:`p`, so
    :math:`P(\exists t: M_t(p) \ge 1/\alpha) \le \alpha` (Ville 1939). In simulation (200 looks of 100
    trials) it misses the rate in 0.4 % to 0.8 % of the streams at α = 0.05: the mixture spreads its prior
    over all rates, and pays for it by being conservative.

    Examples
    --------
    >>> rate_confidence_sequence([3, 5], [10, 10]).round(3)[["n", "estimate"]].to_numpy().tolist()
    [[10.0, 0.3], [20.0, 0.4]]
    """
    alpha = level_iv(alpha, "alpha")
    successes, trials = np.asarray(successes, dtype=np.int64), np.asarray(trials, dtype=np.int64)
    if successes.shape != trials.shape or successes.ndim != 1:
        raise ValueError(
            "`successes` and `trials` must be 1-D of the same length, got "
            f"{successes.shape} and {trials.shape}"
        )
    if (successes < 0).any() or (successes > trials).any():
        i = int(np.flatnonzero((successes < 0) | (successes > trials))[0])
        raise ValueError(f"`successes`: batch {i} has {successes[i]} successes in {trials[i]} trials")
    rows, s, n, lo_run, hi_run = [], 0, 0, 0.0, 1.0
    for ds, dn in zip(successes.tolist(), trials.tolist(), strict=True):
        s, n = s + ds, n + dn
        lo, hi = _rate_cs(s, n, alpha)
        lo_run, hi_run = max(lo_run, lo), min(hi_run, hi)
        rows.append((n, s / n if n else math.nan, lo, hi, lo_run, hi_run))
    return pd.DataFrame(
        rows, columns=["n", "estimate", "cs_low", "cs_high", "cs_low_running", "cs_high_running"]
    )


def _rate_cs(s: int, n: int, alpha: float) -> tuple[float, float]:
    """{p : B(s+1, f+1) / (p^s (1-p)^f) < 1/alpha}."""
    if n == 0:
        return 0.0, 1.0
    f = n - s
    target = _log_beta_mixture(s, f) + math.log(alpha)

    def excess(p: float) -> float:
        return max(_loglik(s, f, p), _FLOOR) - target

    estimate = s / n
    out = []
    for end in (0.0, 1.0):
        if excess(end) > 0:
            out.append(end)
        else:
            out.append(float(optimize.brentq(excess, *sorted((estimate, end)), xtol=1e-13, rtol=1e-13)))
    return out[0], out[1]


# --------------------------------------------------------------------------------------------------------
# a difference: the gamma-exponential mixture on a nuisance-free weighted sum
# --------------------------------------------------------------------------------------------------------


def mixture_rho(v_opt: float, alpha: float) -> float:
    r"""The mixture's precision :math:`\rho` that makes the two-sided boundary at level ``alpha`` tightest at
    intrinsic time ``v_opt`` (Howard et al. 2021, Sec. 3.5):
    :math:`\rho = v_{opt} / (2 \log(1/\alpha) + \log(1 + 2 \log(1/\alpha)))`; confseq's
    ``OneSidedNormalMixture::best_rho(v_opt, alpha / 2)``, which its gamma-exponential mixture uses."""
    log_inv = math.log(1.0 / alpha)
    return v_opt / (2.0 * log_inv + math.log1p(2.0 * log_inv))


def _log_lower_gamma_integral(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    r"""log of :math:`\int_0^1 u^{a-1} e^{-x u} du` (:math:`= x^{-a} \gamma(a, x)` for x > 0), any real x."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(x, dtype=float))
    out = np.empty(a.shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p = special.gammainc(a, np.where(x > 0, x, 1.0))
        direct = (x > 0) & (p > 1e-280)
        out[direct] = (special.gammaln(a) + np.log(p) - a * np.log(np.where(x > 0, x, 1.0)))[direct]
        # x <= 0, or x far below a (gamma_p underflows): Kummer, int = e^{-x} 1F1(1; a+1; x) / a, a
        # convergent series there
        rest = ~direct
        if rest.any():
            ar, xr = a[rest], x[rest]
            out[rest] = -xr + np.log(special.hyp1f1(1.0, ar + 1.0, xr)) - np.log(ar)
    return out


def _log_mixture(s: object, v: object, rho: float) -> np.ndarray:
    r"""log of the gamma-exponential mixture :math:`m(s, v)` with scale c = 1 (Howard et al. 2021, Prop. 8;
    confseq's ``gamma_exponential_log_mixture(s, v, v_opt, 1, alpha_opt)`` with ``rho =
    mixture_rho(v_opt, 2 alpha_opt)``)."""
    s, v = np.broadcast_arrays(np.asarray(s, dtype=float), np.asarray(v, dtype=float))
    lead = rho * math.log(rho) - math.lgamma(rho) - math.log(special.gammainc(rho, rho))
    return lead + _log_lower_gamma_integral(v + rho, s + v + rho) + s + v


def _log_e(s: object, v: object, rho: float) -> np.ndarray:
    """log of the two-sided e-process ½(m(s, v) + m(-s, v)), capped at 700."""
    both = np.logaddexp(_log_mixture(s, v, rho), _log_mixture(-np.asarray(s, dtype=float), v, rho))
    return np.minimum(both - math.log(2.0), _LOG_CAP)


def _radius(v: float, rho: float, alpha: float) -> float:
    """The x >= 0 with ½(m(x, v) + m(-x, v)) = 1/alpha: the half-width of the sequence in units of S."""
    target = math.log(1.0 / alpha)

    def gap(x: float) -> float:
        return float(_log_e(x, v, rho)) - target

    high = max(1.0, 2.0 * math.sqrt(v))
    while gap(high) < 0:
        high *= 2.0
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-12, rtol=1e-12))


@dataclass
class DifferenceSums:
    r"""The running sums of one comparison (arrays: many streams at once), updated batch by batch.

    ``s`` = :math:`S_t(0) = \sum_k w_k D_k`, ``w`` = :math:`W_t = \sum_k w_k`, ``v`` = :math:`V_t`; the
    counts used so far (``included``: successes and trials of the group and of the reference) and those
    waiting for the other group (``pending``). See :func:`rate_difference_e_value`'s Notes.
    """

    s: np.ndarray
    w: np.ndarray
    v: np.ndarray
    included: np.ndarray  # (..., 4): s_g, n_g, s_r, n_r used in strata
    pending: np.ndarray  # (..., 4): the same, waiting for the other group

    @classmethod
    def zeros(cls, shape: tuple[int, ...] = ()) -> DifferenceSums:
        return cls(np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros((*shape, 4)),
                   np.zeros((*shape, 4)))

    def add(self, s_group, n_group, s_reference, n_reference) -> None:
        """Add one batch's counts (scalars or arrays of the sums' shape)."""
        self.pending = self.pending + np.stack(
            np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (s_group, n_group, s_reference,
                                                                       n_reference))), axis=-1)
        sg, ng, sr, nr = np.moveaxis(self.pending, -1, 0)
        ready = (ng > 0) & (nr > 0)
        ig, jg, ir, jr = np.moveaxis(self.included, -1, 0)
        # predictable estimates of each rate from the strata before (Krichevsky-Trofimov: inside (0, 1))
        xg, xr = (ig + 0.5) / (jg + 1.0), (ir + 0.5) / (jr + 1.0)
        mg, mr = np.maximum(xg, 1.0 - xg), np.maximum(xr, 1.0 - xr)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(ready, np.minimum(ng / mg, nr / mr), 0.0)
            d = np.where(ready, sg / ng - sr / nr, 0.0)
            v = np.where(
                ready,
                (w / ng) ** 2 * (sg * (1.0 - xg) ** 2 + (ng - sg) * xg**2)
                + (w / nr) ** 2 * (sr * (1.0 - xr) ** 2 + (nr - sr) * xr**2),
                0.0,
            )
        self.s, self.w, self.v = self.s + w * d, self.w + w, self.v + v
        self.included = self.included + np.where(ready[..., None], self.pending, 0.0)
        self.pending = np.where(ready[..., None], 0.0, self.pending)

    def log_e_value(self, rho: float, delta: float = 0.0) -> np.ndarray:
        """log E_t(delta) (exactly 0 before the first stratum: m(0, 0) = 1)."""
        return np.where(self.w > 0, _log_e(self.s - delta * self.w, self.v, rho), 0.0)

    def interval(self, rho: float, alpha: float) -> tuple[float, float]:
        """This batch's set {delta : E_t(delta) < 1/alpha}, within [-1, 1] (one comparison: scalar sums)."""
        w, s, v = float(self.w), float(self.s), float(self.v)
        if w <= 0:
            return -1.0, 1.0
        half = _radius(v, rho, alpha) / w
        return max(-1.0, s / w - half), min(1.0, s / w + half)


def _stream_iv(s_group, n_group, s_reference, n_reference, alpha, v_opt):
    """The four arrays of cumulative counts checked and turned into per-batch counts (last axis)."""
    alpha = level_iv(alpha, "alpha")
    v_opt = v_opt_iv(v_opt)
    names = ("s_group", "n_group", "s_reference", "n_reference")
    arrays = [np.asarray(x) for x in (s_group, n_group, s_reference, n_reference)]
    for name, x in zip(names, arrays, strict=True):
        if x.dtype == bool or not np.issubdtype(x.dtype, np.number) or not np.all(np.isfinite(x)):
            raise ValueError(f"`{name}` must hold finite counts, got {x!r}")
        if np.any(x < 0) or np.any(x != np.round(x)):
            raise ValueError(f"`{name}` must hold whole numbers >= 0, got {x!r}")
    shapes = {x.shape for x in arrays}
    if len(shapes) > 1:
        raise ValueError(f"the four count arrays must have one shape, got {[x.shape for x in arrays]}")
    arrays = [np.atleast_1d(x).astype(float) for x in arrays]
    steps = [np.diff(x, axis=-1, prepend=0.0) for x in arrays]
    for (s, n), name in zip(((steps[0], steps[1]), (steps[2], steps[3])), ("s_group", "s_reference"),
                            strict=True):
        bad = (s < 0) | (s > n)
        if bad.any():
            where = np.argwhere(bad)[0].tolist()
            raise ValueError(
                f"`{name}`: the counts are cumulative (so far, after each batch, along the last axis); at "
                f"position {where} a batch would add {s[tuple(where)]:g} successes in {n[tuple(where)]:g} "
                "trials"
            )
    return steps, alpha, v_opt


def v_opt_iv(v_opt: object) -> float:
    """``v_opt`` as a float > 0, else ``ValueError`` naming it."""
    if isinstance(v_opt, bool) or not isinstance(v_opt, numbers.Real) or not (
        math.isfinite(float(v_opt)) and float(v_opt) > 0
    ):
        raise ValueError(f"`v_opt` must be a finite number > 0, got {v_opt!r}")
    return float(v_opt)


def rate_difference_e_value(
    s_group: object,
    n_group: object,
    s_reference: object,
    n_reference: object,
    *,
    delta: float = 0.0,
    alpha: float = 0.05,
    v_opt: float = DEFAULT_V_OPT,
) -> float | np.ndarray:
    r"""E-process against "the two rates differ by ``delta``", after each batch.

    Parameters
    ----------
    s_group, n_group : int or array of int
        Favourable outcomes and trials in the group **so far** (cumulative) after each batch, batches along
        the last axis (one stream: 1-D; many simulated streams: 2-D, streams x batches; a scalar: one batch).
    s_reference, n_reference : int or array of int
        The same in the reference group.
    delta : float, keyword-only, default 0
        Difference under the null, :math:`p_g - p_r = \delta` (0: no disparity).
    alpha : float, keyword-only, default 0.05
        The level the mixture is tuned for (with ``v_opt``); the e-process is valid whatever level it is
        read at.
    v_opt : float, keyword-only, default :data:`DEFAULT_V_OPT`
        Intrinsic time at which the boundary is tightest.

    Returns
    -------
    float or numpy.ndarray
        :math:`E_t(\delta)` after each batch (the input's shape; a float for scalar input), 1 before the
        first batch that holds people of both groups. By Ville's inequality the probability that it ever
        reaches :math:`1/\alpha` is at most α under the null: the monitor's alarm is "the running maximum of
        :math:`E_t(0)` reached 1/α", which happens exactly when the confidence sequence
        (:func:`rate_difference_confidence_sequence`) has excluded 0.

    Raises
    ------
    ValueError
        Counts that are not whole numbers >= 0, arrays of different shapes, or a batch that would add more
        successes than trials (counts that are not cumulative), named with its position.

    Notes
    -----
    The batches are grouped into *strata*: a batch with people of both groups is a stratum; the people of a
    batch that lacks one group wait (``pending``) and join the next stratum. Stratum :math:`k` holds
    :math:`s_{gk}` favourable outcomes of :math:`n_{gk}` people of the group and :math:`s_{rk}` of
    :math:`n_{rk}` of the reference. Let :math:`\hat x_{gk} = (s^{<k}_g + \frac12) / (n^{<k}_g + 1)` be the
    group's rate estimated from the strata before (likewise :math:`\hat x_{rk}`), :math:`m = \max(\hat x,
    1 - \hat x)`, and

    .. math::

        w_k = \min\Big(\frac{n_{gk}}{m_{gk}}, \frac{n_{rk}}{m_{rk}}\Big), \qquad
        D_k = \frac{s_{gk}}{n_{gk}} - \frac{s_{rk}}{n_{rk}}, \qquad
        S_t(\delta) = \sum_{k \le t} w_k (D_k - \delta),

        V_t = \sum_{k \le t} \Big(\frac{w_k}{n_{gk}}\Big)^2 \big(s_{gk} (1 - \hat x_{gk})^2
              + (n_{gk} - s_{gk})\, \hat x_{gk}^2\big)
              + \Big(\frac{w_k}{n_{rk}}\Big)^2 \big(s_{rk} (1 - \hat x_{rk})^2
              + (n_{rk} - s_{rk})\, \hat x_{rk}^2\big).

    :math:`S_t(\delta) = \sum_i c_i (X_i - p_i)` over the people, with :math:`c_i = w_k / n_{gk}` in the group
    and :math:`-w_k / n_{rk}` in the reference: the common rate cancels in each stratum, so under
    :math:`p_g - p_r = \delta` it needs no nuisance value, and :math:`V_t = \sum_i c_i^2 (X_i - \hat x_i)^2`.
    The weights are chosen (from the labels and the past only) so that :math:`|c_i (X_i - \hat x_i)| \le 1`.
    Then for each :math:`\lambda \in [0, 1)`, with :math:`\psi_E(\lambda) = -\log(1 - \lambda) - \lambda`,
    :math:`\exp(\lambda S_t(\delta) - \psi_E(\lambda) V_t)` is a nonnegative supermartingale (the
    inequality :math:`e^{\lambda \xi - \psi_E(\lambda) \xi^2} \le 1 + \lambda \xi` for :math:`\xi \ge -1`,
    Fan, Grama & Liu 2015, applied to :math:`\xi_i = c_i (X_i - \hat x_i)`: the empirical-variance
    condition of Howard et al. 2021), and so is the same with :math:`-S_t(\delta)`. Mixed over
    :math:`\lambda` with the gamma-exponential mixture of Howard et al. (2021, Proposition 8; c = 1),

    .. math::

        m(s, v) = \frac{\rho^\rho e^{s + v}}{\Gamma(\rho)\, P(\rho, \rho)}
                  \int_0^1 u^{v + \rho - 1} e^{-(s + v + \rho) u}\, du
                = \frac{\rho^\rho}{\Gamma(\rho) P(\rho, \rho)}
                  \frac{\Gamma(v + \rho) P(v + \rho, s + v + \rho)}{(s + v + \rho)^{v + \rho}} e^{s + v},

    (:math:`P` the regularized lower incomplete gamma function; the integral form holds for
    :math:`s + v + \rho \le 0` too), the e-process is the average of the two directions,

    .. math:: E_t(\delta) = \tfrac12 \big(m(S_t(\delta), V_t) + m(-S_t(\delta), V_t)\big),

    two-sided. It is convex and symmetric about the weighted estimate :math:`\hat\delta_t = S_t(0)/W_t`
    (:math:`W_t = \sum_k w_k`), so the confidence sequence is the interval :math:`\hat\delta_t \pm
    x_\alpha(V_t) / W_t` with :math:`\tfrac12(m(x, V_t) + m(-x, V_t)) = 1/\alpha`. :math:`\rho` is
    :func:`mixture_rho` (``v_opt``, α): the boundary is tightest at :math:`V_t = v_{opt}`. Both functions
    equal confseq's ``gamma_exponential_log_mixture(s, v, v_opt, 1, alpha / 2)`` (Howard's reference
    implementation; ``tests/library/reference/test_monitor_reference.py``).

    Assumptions: within a group the decisions are independent given the group labels, with a rate that does
    not change over the monitored period; which group a person belongs to does not depend on the outcomes.

    Examples
    --------
    >>> import numpy as np
    >>> e = rate_difference_e_value([30, 60, 90], [100, 200, 300], [30, 60, 90], [100, 200, 300])
    >>> bool(np.all(e < 1))
    True
    """
    steps, alpha, v_opt = _stream_iv(s_group, n_group, s_reference, n_reference, alpha, v_opt)
    rho = mixture_rho(v_opt, alpha)
    sums = DifferenceSums.zeros(steps[0].shape[:-1])
    out = np.empty(steps[0].shape)
    for j in range(steps[0].shape[-1]):
        sums.add(*(x[..., j] for x in steps))
        out[..., j] = np.exp(sums.log_e_value(rho, float(delta)))
    if np.ndim(s_group) == 0:
        return float(out[0])
    return out.reshape(np.shape(s_group))


def rate_difference_confidence_sequence(
    s_group: Sequence[int] | np.ndarray,
    n_group: Sequence[int] | np.ndarray,
    s_reference: Sequence[int] | np.ndarray,
    n_reference: Sequence[int] | np.ndarray,
    *,
    alpha: float = 0.05,
    v_opt: float = DEFAULT_V_OPT,
) -> pd.DataFrame:
    r"""Anytime-valid confidence sequence for :math:`p_g - p_r`, after each batch (one stream).

    Parameters
    ----------
    s_group, n_group, s_reference, n_reference : sequence of int
        Cumulative counts after each batch, as :func:`rate_difference_e_value` (1-D).
    alpha : float, keyword-only, default 0.05
    v_opt : float, keyword-only, default :data:`DEFAULT_V_OPT`

    Returns
    -------
    pandas.DataFrame
        One row per batch: ``n_group, n_reference`` (so far), ``estimate`` (the pooled difference of the
        rates so far), ``center`` (the weighted estimate :math:`S_t(0)/W_t` the sequence is centred on),
        ``cs_low, cs_high`` (this batch's set), ``cs_low_running, cs_high_running`` (their running
        intersection, what the monitor reports), ``e_value`` (:math:`E_t(0)`).

    Examples
    --------
    >>> cs = rate_difference_confidence_sequence([40, 80], [100, 200], [30, 60], [100, 200])
    >>> bool((cs["cs_low"] < cs["center"]).all() and (cs["center"] < cs["cs_high"]).all())
    True
    """
    if np.ndim(s_group) != 1:
        raise ValueError(f"`s_group` and the other counts must be 1-D (one stream), got {np.shape(s_group)}")
    steps, alpha, v_opt = _stream_iv(s_group, n_group, s_reference, n_reference, alpha, v_opt)
    rho = mixture_rho(v_opt, alpha)
    sums = DifferenceSums.zeros()
    rows, low_run, high_run = [], -1.0, 1.0
    totals = np.cumsum(np.stack(steps), axis=1)
    for j in range(steps[0].size):
        sums.add(*(float(x[j]) for x in steps))
        low, high = sums.interval(rho, alpha)
        low_run, high_run = max(low_run, low), min(high_run, high)
        sg, ng, sr, nr = totals[:, j]
        rows.append({
            "n_group": int(ng), "n_reference": int(nr),
            "estimate": sg / ng - sr / nr if ng and nr else math.nan,
            "center": float(sums.s / sums.w) if sums.w > 0 else math.nan,
            "cs_low": low, "cs_high": high, "cs_low_running": low_run, "cs_high_running": high_run,
            "e_value": float(np.exp(sums.log_e_value(rho))),
        })  # fmt: skip
    return pd.DataFrame(rows)
