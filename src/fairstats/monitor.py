r"""Anytime-valid fairness monitoring: confidence sequences for rate differences, looked at after every batch.

A deployed system keeps deciding; a two-proportion test run after every batch and stopped at its first
"significant" raises false alarms far more often than its α. :class:`FairnessMonitor` keeps, per group
against a reference group and per rate (``ppr``, and with outcomes ``tpr``, ``fpr``), a *confidence
sequence* for the difference of the two rates and an *e-process* against "no disparity": both are valid at
every batch, however often they are looked at and whenever the monitoring stops (Ville's inequality).

Construction (Notes of :class:`FairnessMonitor`): for one rate, the prior–posterior ratio of a uniform
Beta(1, 1) prior, :math:`M_t(p) = m_t / L_t(p)` (the mixture probability of the data over their likelihood at
``p``), is a test martingale when ``p`` is the true rate (Robbins 1970; Waudby-Smith & Ramdas 2020); the
product of the two groups' ratios, minimised over the common nuisance rate, is an e-process for a fixed
difference :math:`\delta` (Ramdas, Grünwald, Vovk & Shafer 2023: the infimum over a composite null of test
martingales). It depends on the data only through four counts per comparison, so an update costs the same
after 10² or 10⁹ decisions and nothing but those counts is stored.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, special

from fairstats._result import Result
from fairstats._validation import CheckedFrame, level_iv
from fairstats._warnings import EmptyConfidenceSequenceWarning
from fairstats.counts import COUNT_COLUMN, Counts

__all__ = [
    "MONITOR_METRICS",
    "MONITOR_STATES",
    "EmptyConfidenceSequenceWarning",
    "FairnessMonitor",
    "MonitorStatus",
    "MonitorUpdate",
    "rate_confidence_sequence",
    "rate_difference_e_value",
]

#: Rates the monitor follows (names as in :data:`fairstats.METRICS`): ``ppr`` = P(ŷ = fav) (selection
#: rate), ``tpr`` = P(ŷ = fav | y = fav), ``fpr`` = P(ŷ = fav | y ≠ fav); the last two need ``y_true``.
MONITOR_METRICS: tuple[str, ...] = ("ppr", "tpr", "fpr")
#: States of a comparison, in order of precedence.
MONITOR_STATES: tuple[str, ...] = ("alarm", "equivalent", "watching")

_STATE_VERSION = 1
_FLOOR = -1e12  # stands in for log(0) inside the root finders (a continuous, finite clip)


# --------------------------------------------------------------------------------------------------------
# the statistics: prior-posterior ratio of a Beta(1, 1) mixture, for one rate and for a difference
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


def _log_mixture(s: float, f: float) -> float:
    """log of the Beta(1, 1) mixture probability, :math:`\\int_0^1 p^s (1-p)^f dp = B(s+1, f+1)`."""
    return float(special.betaln(s + 1.0, f + 1.0))


def _profile(sg: float, fg: float, sr: float, fr: float, delta: float) -> float:
    """max over the reference rate q of log L_g(q + delta) + log L_r(q) (concave in q and in delta).

    The maximiser is the root of the decreasing derivative in q, found by Newton steps kept inside a
    bisection bracket (a few microseconds; the maximum may also sit on an end of the feasible range)."""
    lo, hi = max(0.0, -delta), min(1.0, 1.0 - delta)

    def joint(q: float) -> float:
        return _loglik(sg, fg, q + delta) + _loglik(sr, fr, q)

    if hi - lo <= 1e-15:
        return joint(lo)
    a, b = lo, hi
    q = 0.5 * (a + b)
    for _ in range(200):
        u, v, w, z = q + delta, 1.0 - q - delta, q, 1.0 - q
        d1 = (
            (sg / u if sg else 0.0)
            - (fg / v if fg else 0.0)
            + (sr / w if sr else 0.0)
            - (fr / z if fr else 0.0)
        )
        d2 = -(
            (sg / (u * u) if sg else 0.0)
            + (fg / (v * v) if fg else 0.0)
            + (sr / (w * w) if sr else 0.0)
            + (fr / (z * z) if fr else 0.0)
        )
        if d1 > 0:
            a = q
        else:
            b = q
        step = q - d1 / d2 if d2 < 0 else 0.5 * (a + b)
        new = step if a < step < b else 0.5 * (a + b)
        if abs(new - q) <= 1e-12 or b - a <= 1e-15:
            q = new
            break
        q = new
    return max(joint(q), joint(lo), joint(hi))


def rate_difference_e_value(
    s_group: object, n_group: object, s_reference: object, n_reference: object, *, delta: float = 0.0
) -> float | np.ndarray:
    r"""E-process value against "the two rates differ by ``delta``", from the counts seen so far.

    Parameters
    ----------
    s_group, n_group : int or array of int
        Favourable outcomes and trials in the group so far (e.g. positive predictions and people for ``ppr``).
    s_reference, n_reference : int or array of int
        The same in the reference group. With ``delta = 0`` the four may be arrays (element-wise, e.g. many
        simulated streams at once); otherwise scalars.
    delta : float, keyword-only, default 0
        Difference under the null, :math:`p_g - p_r = \delta` (0: no disparity).

    Returns
    -------
    float or numpy.ndarray
        :math:`E_t(\delta)` of equation (2) in :class:`FairnessMonitor`'s Notes (1 before any data); by
        Ville's inequality the probability that it ever reaches :math:`1/\alpha` is at most α under the null
        (so an alarm is "the running maximum reached 1/α").

    Raises
    ------
    ValueError
        A count below 0 or above its number of trials, named with its position.
    """
    counts = [np.asarray(x) for x in (s_group, n_group, s_reference, n_reference)]
    for (s, n), name in zip(
        ((counts[0], counts[1]), (counts[2], counts[3])), ("s_group", "s_reference"), strict=True
    ):
        bad = (s < 0) | (s > n)
        if np.any(bad):
            where = np.argwhere(np.atleast_1d(bad))[0].tolist()
            raise ValueError(
                f"`{name}`: {np.atleast_1d(s)[tuple(where)]} successes in "
                f"{np.atleast_1d(n)[tuple(where)]} trials at position {where}"
            )
    if delta == 0:
        out = np.exp(_log_e_null(*counts))
        return float(out) if out.ndim == 0 else out
    if any(c.ndim for c in counts):
        raise ValueError(f"`delta` = {delta!r}: arrays of counts are taken only with delta = 0")
    sg, ng, sr, nr = (float(c) for c in counts)
    fg, fr = ng - sg, nr - sr
    log_e = _log_mixture(sg, fg) + _log_mixture(sr, fr) - _profile(sg, fg, sr, fr, float(delta))
    return math.exp(min(log_e, 700.0))


def _log_e_null(sg: object, ng: object, sr: object, nr: object) -> np.ndarray:
    """log E_t(0), element-wise on arrays of counts: at delta = 0 the maximum of (2) is at the pooled rate."""
    sg, ng, sr, nr = (np.asarray(x, dtype=float) for x in (sg, ng, sr, nr))
    s, n = sg + sr, ng + nr
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = np.where(n > 0, s / np.where(n > 0, n, 1.0), 0.5)
    top = special.betaln(sg + 1, ng - sg + 1) + special.betaln(sr + 1, nr - sr + 1)
    return np.minimum(top - special.xlogy(s, pooled) - special.xlog1py(n - s, -pooled), 700.0)


def _difference_cs(sg: int, ng: int, sr: int, nr: int, alpha: float) -> tuple[float, float]:
    """{delta : E_t(delta) < 1/alpha}, an interval around the estimate (the profile is concave in delta)."""
    if ng == 0 or nr == 0:
        return -1.0, 1.0
    fg, fr = float(ng - sg), float(nr - sr)
    target = _log_mixture(sg, fg) + _log_mixture(sr, fr) + math.log(alpha)  # inside the CS: profile > target

    def excess(delta: float) -> float:
        return max(_profile(sg, fg, sr, fr, delta), _FLOOR) - target

    estimate = sg / ng - sr / nr
    bounds = []
    for end in (-1.0, 1.0):
        if excess(end) > 0:
            bounds.append(end)
        else:
            bounds.append(float(optimize.brentq(excess, *sorted((estimate, end)), xtol=1e-12, rtol=1e-12)))
    return bounds[0], bounds[1]


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
        One row per batch: ``n`` (trials so far), ``estimate``, ``cs_low``, ``cs_high`` (this batch's set,
        equation (1) of :class:`FairnessMonitor`'s Notes), ``cs_low_running``, ``cs_high_running`` (the
        running intersection, which is also a confidence sequence).
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
    """{p : B(s+1, f+1) / (p^s (1-p)^f) < 1/alpha} (a single rate: the profile step is not needed)."""
    if n == 0:
        return 0.0, 1.0
    f = n - s
    target = _log_mixture(s, f) + math.log(alpha)

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
# results
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MonitorStatus(Result):
    """One comparison (group against the reference, one rate) after one batch.

    Attributes
    ----------
    batch : str
        Label of the batch just added (``update(..., batch=...)``; by default its number, from 1).
    group, reference : object
        The group and the reference group (labels from the data).
    metric : str
        ``ppr``, ``tpr`` or ``fpr``.
    n_group, n_reference : int
        Denominators of the rate seen so far (people; for ``tpr`` those with ``y_true`` favourable, for
        ``fpr`` the others).
    estimate : float
        Rate of the group minus rate of the reference, over everything seen so far (NaN while a
        denominator is 0).
    cs_low, cs_high : float
        The running intersection of the confidence sequence for the difference (never wider than at the
        previous batch). They cross only when the model is contradicted
        (:class:`EmptyConfidenceSequenceWarning`).
    e_value : float
        The e-process against "no disparity" now, :math:`E_t(0)` (a test's evidence: 20 = a bet that
        multiplied its stake by 20).
    state : str
        ``alarm`` (the sequence has excluded 0: a disparity, valid at this stopping time), ``equivalent``
        (with a ``margin``: the sequence lies inside ±margin, and excludes no 0) or ``watching``.
    previous_state : str
        The state after the previous batch (``watching`` before the first).
    """

    batch: str
    group: object
    reference: object
    metric: str
    n_group: int
    n_reference: int
    estimate: float
    cs_low: float
    cs_high: float
    e_value: float
    state: str
    previous_state: str

    @property
    def changed(self) -> bool:
        """Whether this batch changed the state."""
        return self.state != self.previous_state


@dataclass(frozen=True)
class MonitorUpdate(Result):
    """Every comparison after one batch.

    Attributes
    ----------
    batch : str
        Label of the batch.
    n_batch : int
        People in the batch.
    statuses : tuple of MonitorStatus
        One per (group, metric), groups sorted, metrics in the monitor's order.
    """

    batch: str
    n_batch: int
    statuses: tuple[MonitorStatus, ...]

    @property
    def changed(self) -> tuple[MonitorStatus, ...]:
        """The comparisons whose state this batch changed."""
        return tuple(s for s in self.statuses if s.changed)

    @property
    def alarm(self) -> bool:
        """Whether any comparison is in ``alarm``."""
        return any(s.state == "alarm" for s in self.statuses)

    def to_record(self) -> dict[str, object]:
        """``batch``, ``n_batch`` and the statuses as a list of records."""
        return {
            "batch": self.batch,
            "n_batch": self.n_batch,
            "statuses": [s.to_record() for s in self.statuses],
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per comparison, the columns of :class:`MonitorStatus`."""
        columns = list(MonitorStatus.__dataclass_fields__)
        return pd.DataFrame([s.to_record() for s in self.statuses], columns=columns)


# --------------------------------------------------------------------------------------------------------
# the monitor
# --------------------------------------------------------------------------------------------------------


def _label(value: object) -> object:
    """A group or label value as a plain Python scalar (JSON-able, the same after a save and a load)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool | int | float | str):
        return value
    raise TypeError(
        f"group and label values must be strings or numbers, got {value!r} ({type(value).__name__})"
    )


def _order(value: object) -> tuple[str, object]:
    """Sort key for labels of mixed types (numbers before strings, each in their own order)."""
    return (
        ("0", value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else ("1", str(value))
    )


@dataclass
class _Comparison:
    """Running state of one comparison: the intersection so far, the largest e-value, the state."""

    cs_low: float = -1.0
    cs_high: float = 1.0
    e_max: float = 1.0
    state: str = "watching"


class FairnessMonitor:
    r"""Watch group rate differences batch after batch, with confidence sequences valid at every look.

    Parameters
    ----------
    group : str, keyword-only
        Column holding the group of each person.
    y_pred : str, keyword-only
        Column of the decisions (two values; ``favorable`` is the favourable one).
    y_true : str, optional, keyword-only
        Column of the outcomes; adds ``tpr`` and ``fpr``.
    metrics : sequence of str, optional, keyword-only
        Rates to follow, from :data:`MONITOR_METRICS` (default: ``ppr``, and ``tpr``, ``fpr`` with
        ``y_true``).
    alpha : float, keyword-only, default 0.05
        Each comparison's sequence covers its difference at all batches at once with probability ≥ 1 - α; a
        comparison with no disparity ever alarms with probability ≤ α (per comparison: not adjusted for the
        number of groups x metrics; divide α by it for a family-wise guarantee).
    margin : float, optional, keyword-only
        With a margin in (0, 1), a comparison whose sequence lies inside (-margin, margin) is
        ``equivalent``.
    reference : optional, keyword-only
        The reference group (default: the largest group of the first batch, ties broken by label order).
    favorable : keyword-only, default 1
        Favourable value of ``y_pred`` (and of ``y_true``).

    Notes
    -----
    For a rate with :math:`s_t` favourable outcomes in :math:`n_t` trials and :math:`f_t = n_t - s_t`, the
    prior–posterior ratio of the uniform prior (Waudby-Smith & Ramdas 2020; a mixture martingale, Robbins
    1970) is

    .. math::

        M_t(p) = \frac{\int_0^1 u^{s_t} (1-u)^{f_t}\, du}{p^{s_t} (1-p)^{f_t}}
               = \frac{B(s_t + 1, f_t + 1)}{p^{s_t} (1-p)^{f_t}},
        \qquad C_t = \{p : M_t(p) < 1/\alpha\}.                                   \tag{1}

    When the trials are independent with rate :math:`p`, :math:`M_t(p)` is a nonnegative martingale with
    :math:`M_0 = 1`, so :math:`P(\exists t: M_t(p) \ge 1/\alpha) \le \alpha` (Ville 1939) and :math:`C_t` is a
    confidence sequence. For a group :math:`g` and the reference :math:`r` (independent people), the
    product :math:`M^g_t(p_g) M^r_t(p_r)` is a test martingale at the true rates, and its infimum over the
    nuisance rate is an e-process for the composite null :math:`p_g - p_r = \delta` (Ramdas et al. 2023,
    e-processes for composite nulls):

    .. math::

        E_t(\delta) = \frac{B(s^g_t + 1, f^g_t + 1)\, B(s^r_t + 1, f^r_t + 1)}
                           {\max_q\, (q+\delta)^{s^g_t} (1-q-\delta)^{f^g_t}\, q^{s^r_t} (1-q)^{f^r_t}},
        \qquad D_t = \{\delta : E_t(\delta) < 1/\alpha\}.                           \tag{2}

    The log of the maximised likelihood is concave in :math:`\delta`, so :math:`D_t` is an interval around
    the estimate :math:`\hat p_g - \hat p_r`, found by root finding (``scipy.optimize.brentq``; the inner
    maximum by ``minimize_scalar``). The monitor reports the running intersection
    :math:`\bigcap_{s \le t} D_s`, which is also a confidence sequence, so a state once reached stays:
    ``alarm`` when 0 has left it (equivalently :math:`\max_{s \le t} E_s(0) \ge 1/\alpha`), ``equivalent``
    when it lies inside ±margin. Batches enter through their counts only (the product over a batch's people
    depends on its counts), so memory and time per update are O(groups x metrics), whatever the number of
    people seen.

    Assumptions: within a group the decisions are independent with a rate that does not change over the
    monitored period (as for the fixed-sample tests). A rate that drifts in both groups alike may raise an
    alarm; the paired betting test of Chugg et al. (2023) is the construction that allows it. This is the
    likelihood-ratio (mixture) form of the betting confidence sequences of Waudby-Smith & Ramdas (2024):
    a bettor who stakes on each outcome the Beta posterior's predictive probability has wealth
    :math:`M_t(p)`. Per update the two roots cost a few dozen evaluations of (2) per comparison (about
    1 ms), each maximum a few Newton steps.

    References
    ----------
    .. [1] Robbins, H. (1970). Statistical methods related to the law of the iterated logarithm. *Annals of
       Mathematical Statistics* 41(5), 1397-1409.
    .. [2] Waudby-Smith, I. & Ramdas, A. (2020). Confidence sequences for sampling without replacement.
       *NeurIPS* 33 (the prior–posterior-ratio martingale).
    .. [3] Ramdas, A., Grünwald, P., Vovk, V. & Shafer, G. (2023). Game-theoretic statistics and safe
       anytime-valid inference. *Statistical Science* 38(4), 576-601.
    .. [4] Ville, J. (1939). *Étude critique de la notion de collectif*. Gauthier-Villars.
    .. [5] Chugg, B., Cortes-Gomez, S., Wilder, B. & Ramdas, A. (2023). Auditing fairness by betting.
       *NeurIPS* 36.
    .. [6] Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random variables by betting.
       *JRSS-B* 86(1), 1-27.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairstats import FairnessMonitor
    >>> monitor = FairnessMonitor(group="g", y_pred="p")
    >>> update = monitor.update(pd.DataFrame({"g": ["a"] * 50 + ["b"] * 50, "p": [1, 0] * 50}))
    >>> update.statuses[0].state
    'watching'
    """

    def __init__(
        self,
        *,
        group: str,
        y_pred: str,
        y_true: str | None = None,
        metrics: Sequence[str] | None = None,
        alpha: float = 0.05,
        margin: float | None = None,
        reference: object = None,
        favorable: object = 1,
    ) -> None:
        for name, value in (("group", group), ("y_pred", y_pred)):
            if not isinstance(value, str):
                raise TypeError(f"`{name}` must be a column name (str), got {value!r}")
        if y_true is not None and not isinstance(y_true, str):
            raise TypeError(f"`y_true` must be a column name (str) or None, got {y_true!r}")
        if metrics is None:
            metrics = MONITOR_METRICS if y_true is not None else ("ppr",)
        if isinstance(metrics, str) or not isinstance(metrics, Sequence) or not metrics:
            raise TypeError(
                f"`metrics` must be a non-empty list of names from {MONITOR_METRICS}, got {metrics!r}"
            )
        for metric in metrics:
            if metric not in MONITOR_METRICS:
                raise ValueError(
                    f"`metrics`: unknown rate {metric!r}; choose from {', '.join(MONITOR_METRICS)}"
                )
            if metric != "ppr" and y_true is None:
                raise ValueError(f"`metrics`: {metric!r} needs `y_true` (the outcomes column)")
        if margin is not None and (
            isinstance(margin, bool) or not isinstance(margin, numbers.Real) or not 0 < float(margin) < 1
        ):
            raise ValueError(f"`margin` must be a number strictly between 0 and 1 or None, got {margin!r}")
        self.group, self.y_pred, self.y_true = group, y_pred, y_true
        self.metrics = tuple(dict.fromkeys(metrics))
        self.alpha = level_iv(alpha, "alpha")
        self.margin = None if margin is None else float(margin)
        self.favorable = _label(favorable)
        self.reference = None if reference is None else _label(reference)
        self._counts: dict[object, dict[str, list[int]]] = {}  # group -> metric -> [s, n]
        self._comparisons: dict[tuple[object, str], _Comparison] = {}
        self._others: dict[str, object] = {}  # column -> the one non-favourable value seen
        self.n_batches = 0

    # --- input ----------------------------------------------------------------------------------------

    def _columns(self) -> list[str]:
        return [self.group, self.y_pred, *([self.y_true] if self.y_true else [])]

    def _labels_iv(self, table: pd.DataFrame, column: str, where: str) -> np.ndarray:
        """Whether each row's value is the favourable one; at most one other value over the whole stream."""
        values = [_label(v) for v in pd.unique(table[column])]
        others = sorted({v for v in values if v != self.favorable}, key=_order)
        seen = self._others.get(column)
        known = [] if seen is None else [seen]
        both = sorted(set(known) | set(others), key=_order)
        if len(both) > 1:
            raise ValueError(
                f"{where}: column {column!r} has values {', '.join(map(repr, both))} besides the favourable "
                f"value {self.favorable!r}; a monitored column holds two values"
            )
        if (
            both
            and isinstance(both[0], str) != isinstance(self.favorable, str)
            and self.favorable not in values
        ):
            raise ValueError(
                f"{where}: column {column!r} holds {both[0]!r} ({type(both[0]).__name__}) and never the "
                f"favourable value {self.favorable!r} ({type(self.favorable).__name__}); set `favorable`"
            )
        return (table[column] == self.favorable).to_numpy()

    def _counted(self, batch: object, where: str) -> pd.DataFrame:
        if isinstance(batch, CheckedFrame):
            batch = batch.frame
        if isinstance(batch, Counts) and sorted(batch.keys) == sorted(self._columns()):
            return batch.table  # already the counts over exactly these columns (checked when made)
        return Counts.from_frame(batch, columns=self._columns(), where=where).table

    # --- update ---------------------------------------------------------------------------------------

    def update(self, batch: object, *, label: str | None = None) -> MonitorUpdate:
        """Add a batch of decisions and return every comparison's status.

        Parameters
        ----------
        batch : data frame or Counts
            One row per person (pandas, polars, pyarrow, DuckDB, ... anything :meth:`Counts.from_frame`
            reads), or :class:`~fairstats.Counts` over the monitor's columns. Only its counts are kept.
        label : str, optional, keyword-only
            Name of the batch in the results (default: its number, from 1).

        Returns
        -------
        MonitorUpdate

        Raises
        ------
        ValueError
            A missing column, a missing value, a third value in ``y_pred``/``y_true`` (named with the
            column and the values). The monitor is unchanged after an error.
        """
        label = str(self.n_batches + 1) if label is None else str(label)
        where = f"batch {label!r}"
        table = self._counted(batch, where)
        favourable = {c: self._labels_iv(table, c, where) for c in self._columns()[1:]}
        # every check passed: from here on the monitor changes
        for column in self._columns()[1:]:
            other = [_label(v) for v, fav in zip(table[column], favourable[column], strict=True) if not fav]
            if other and column not in self._others:
                self._others[column] = other[0]
        n = table[COUNT_COLUMN].to_numpy(dtype=np.int64)
        pred = favourable[self.y_pred]
        true = favourable[self.y_true] if self.y_true else None
        groups = [_label(v) for v in table[self.group]]
        sizes: dict[object, int] = {}
        for g, k in zip(groups, n.tolist(), strict=True):
            sizes[g] = sizes.get(g, 0) + k
        if self.reference is None:
            self.reference = sorted(sizes, key=lambda g: (-sizes[g], _order(g)))[0]
        masks = {"ppr": np.ones(len(n), dtype=bool)}
        if true is not None:
            masks["tpr"], masks["fpr"] = true, ~true
        for g in sorted(sizes, key=_order):
            counts = self._counts.setdefault(g, {m: [0, 0] for m in self.metrics})
            rows = np.array([x == g for x in groups])
            for metric in self.metrics:
                keep = rows & masks[metric]
                counts[metric][0] += int(n[keep & pred].sum())
                counts[metric][1] += int(n[keep].sum())
        self.n_batches += 1
        return MonitorUpdate(batch=label, n_batch=int(n.sum()), statuses=self._advance(label))

    def _advance(self, label: str) -> tuple[MonitorStatus, ...]:
        ref = self.reference
        ref_counts = self._counts.get(ref, {m: [0, 0] for m in self.metrics})
        out = []
        for g in sorted(self._counts, key=_order):
            if g == ref:
                continue
            for metric in self.metrics:
                sg, ng = self._counts[g][metric]
                sr, nr = ref_counts[metric]
                comp = self._comparisons.setdefault((g, metric), _Comparison())
                previous = comp.state
                if ng and nr:
                    lo, hi = _difference_cs(sg, ng, sr, nr, self.alpha)
                    e = rate_difference_e_value(sg, ng, sr, nr)
                    estimate = sg / ng - sr / nr
                else:
                    lo, hi, e, estimate = -1.0, 1.0, 1.0, math.nan
                was_empty = comp.cs_low > comp.cs_high
                comp.cs_low, comp.cs_high = max(comp.cs_low, lo), min(comp.cs_high, hi)
                comp.e_max = max(comp.e_max, e)
                if comp.cs_low > comp.cs_high and not was_empty:
                    warnings.warn(
                        f"group {g!r} vs {ref!r}, {metric}: the confidence sequence's running "
                        f"intersection is empty after batch {label!r} ([{comp.cs_low}, {comp.cs_high}]); "
                        "the rates seem to change over time",
                        EmptyConfidenceSequenceWarning,
                        stacklevel=3,
                    )
                comp.state = self._state(comp)
                out.append(
                    MonitorStatus(
                        batch=label,
                        group=g,
                        reference=ref,
                        metric=metric,
                        n_group=ng,
                        n_reference=nr,
                        estimate=estimate,
                        cs_low=comp.cs_low,
                        cs_high=comp.cs_high,
                        e_value=e,
                        state=comp.state,
                        previous_state=previous,
                    )
                )
        return tuple(out)

    def _state(self, comp: _Comparison) -> str:
        if comp.state == "alarm" or comp.e_max >= 1.0 / self.alpha or comp.cs_low > 0 or comp.cs_high < 0:
            return "alarm"
        if self.margin is not None and -self.margin < comp.cs_low and comp.cs_high < self.margin:
            return "equivalent"
        return "watching"

    @property
    def alarm(self) -> bool:
        """Whether any comparison is in ``alarm`` (after the last update)."""
        return any(c.state == "alarm" for c in self._comparisons.values())

    # --- saving and loading -----------------------------------------------------------------------------

    def to_state(self) -> dict[str, object]:
        """Everything the monitor holds, as JSON-able data (counts, running bounds, states); see
        :meth:`from_state`. Floats are kept exactly (``json`` writes their shortest round-trip form)."""
        return {
            "version": _STATE_VERSION,
            "options": {
                "group": self.group,
                "y_pred": self.y_pred,
                "y_true": self.y_true,
                "metrics": list(self.metrics),
                "alpha": self.alpha,
                "margin": self.margin,
                "favorable": self.favorable,
            },
            "reference": self.reference,
            "n_batches": self.n_batches,
            "others": [[c, v] for c, v in sorted(self._others.items())],
            "counts": [
                [g, m, *self._counts[g][m]] for g in sorted(self._counts, key=_order) for m in self.metrics
            ],
            "comparisons": [
                [g, m, c.cs_low, c.cs_high, c.e_max, c.state]
                for (g, m), c in sorted(
                    self._comparisons.items(), key=lambda kv: (_order(kv[0][0]), kv[0][1])
                )
            ],
        }

    @classmethod
    def from_state(cls, state: dict[str, object]) -> FairnessMonitor:
        """A monitor that continues from :meth:`to_state`'s record (raises ``ValueError`` on another
        version or a malformed record)."""
        try:
            if state["version"] != _STATE_VERSION:
                raise ValueError(f"monitor state version {state['version']!r}, expected {_STATE_VERSION}")
            monitor = cls(**state["options"])
            monitor.reference = state["reference"]
            monitor.n_batches = int(state["n_batches"])
            monitor._others = {c: v for c, v in state["others"]}
            for g, m, s, n in state["counts"]:
                monitor._counts.setdefault(g, {k: [0, 0] for k in monitor.metrics})[m] = [int(s), int(n)]
            for g, m, lo, hi, e, st in state["comparisons"]:
                monitor._comparisons[(g, m)] = _Comparison(float(lo), float(hi), float(e), str(st))
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"not a monitor state: {err}") from None
        return monitor
