r"""Anytime-valid fairness monitoring: confidence sequences for rate differences, looked at after every batch.

A deployed system keeps deciding; a two-proportion test run after every batch and stopped at its first
"significant" raises false alarms far more often than its α. :class:`FairnessMonitor` keeps, per group
against a reference group and per rate (``ppr``, and with outcomes ``tpr``, ``fpr``), a *confidence
sequence* for the difference of the two rates and an *e-process* against "no disparity": both are valid at
every batch, however often they are looked at and whenever the monitoring stops (Ville's inequality).

The statistics are :mod:`fairstats.sequences`' (:func:`fairstats.rate_difference_e_value`: the
gamma-exponential mixture of Howard et al. 2021 on a weighted sum of per-batch differences in which the common
rate cancels). They depend on the data through a few running sums per comparison, so an update costs the same
after 10² or 10⁹ decisions and nothing but those sums is stored.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fairstats._result import Result
from fairstats._validation import CheckedFrame, level_iv
from fairstats._warnings import EmptyConfidenceSequenceWarning
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.sequences import DEFAULT_V_OPT, DifferenceSums, mixture_rho, v_opt_iv

__all__ = [
    "MONITOR_METRICS",
    "MONITOR_STATES",
    "EmptyConfidenceSequenceWarning",
    "FairnessMonitor",
    "MonitorStatus",
    "MonitorUpdate",
]

#: Rates the monitor follows (names as in :data:`fairstats.METRICS`): ``ppr`` = P(ŷ = fav) (selection
#: rate), ``tpr`` = P(ŷ = fav | y = fav), ``fpr`` = P(ŷ = fav | y ≠ fav); the last two need ``y_true``.
MONITOR_METRICS: tuple[str, ...] = ("ppr", "tpr", "fpr")
#: States of a comparison, in order of precedence.
MONITOR_STATES: tuple[str, ...] = ("alarm", "equivalent", "watching")

#: Version of :meth:`FairnessMonitor.to_state`'s record. 2 (issue 39): the difference's sequence is the
#: gamma-exponential mixture on stratified sums; version 1 (the Beta-mixture sequence) kept only the counts,
#: from which those sums cannot be rebuilt, so a version-1 state is refused with a message saying so.
_STATE_VERSION = 2


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


def _label(value: object, name: str | None = None) -> object:
    """A group or label value as a plain Python scalar (JSON-able, the same after a save and a load);
    ``name``: the keyword that gave it, named in the error."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool | int | float | str):
        return value
    what = "group and label values" if name is None else f"`{name}`"
    raise TypeError(f"{what} must be a string or a number, got {type(value).__name__} {value!r}")


def _order(value: object) -> tuple[str, object]:
    """Sort key for labels of mixed types (numbers before strings, each in their own order)."""
    return (
        ("0", value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else ("1", str(value))
    )


@dataclass
class _Comparison:
    """Running state of one comparison: its sums, the intersection so far, the largest e-value, the state."""

    sums: DifferenceSums = field(default_factory=DifferenceSums.zeros)
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
    v_opt : float, keyword-only, default :data:`fairstats.sequences.DEFAULT_V_OPT` (300)
        Intrinsic time at which each sequence is tightest (:func:`fairstats.rate_difference_e_value`).

    Notes
    -----
    Per comparison and rate, the monitor keeps the sums of :func:`fairstats.rate_difference_e_value` (see
    its Notes for the formulas): the batches' differences of the two rates, weighted so that the common
    rate cancels, the empirical variance :math:`V_t`, and the counts used and waiting. After each batch it
    computes the two-sided e-process against "no disparity",
    :math:`E_t(0) = \tfrac12 (m(S_t, V_t) + m(-S_t, V_t))` with the gamma-exponential mixture :math:`m` of
    Howard et al. (2021), and the confidence sequence :math:`D_t = \{\delta : E_t(\delta) < 1/\alpha\}`,
    an interval around the weighted estimate. It reports the running intersection
    :math:`\bigcap_{s \le t} D_s` (also a confidence sequence), so a state once reached stays:

    * ``alarm`` when 0 has left it, equivalently :math:`\max_{s \le t} E_s(0) \ge 1/\alpha`. The alarm is
      **two-sided**: a disparity in either direction (the group's rate higher or lower than the
      reference's) raises it, and the probability of ever raising it when the rates are equal is at most α;
    * ``equivalent`` when it lies inside ±margin;
    * ``watching`` otherwise.

    A group that appears after the first batch is compared from then on; the reference's earlier people
    join its first stratum. A batch without people of one of the two groups (for a rate: in its
    denominator) waits for the next batch that has them.

    Assumptions: within a group the decisions are independent given the group labels, with a rate that does
    not change over the monitored period (as for the fixed-sample tests). A rate that drifts in both groups
    alike may raise an alarm; the paired betting test of Chugg et al. (2023) is the construction that
    allows it. Per update each comparison costs one root finding (about 1 ms).

    References
    ----------
    .. [1] Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform, nonparametric,
       nonasymptotic confidence sequences. *Annals of Statistics* 49(2), 1055-1080.
    .. [2] Fan, X., Grama, I. & Liu, Q. (2015). Exponential inequalities for martingales with applications.
       *Electronic Journal of Probability* 20(1).
    .. [3] Ville, J. (1939). *Étude critique de la notion de collectif*. Gauthier-Villars.
    .. [4] Chugg, B., Cortes-Gomez, S., Wilder, B. & Ramdas, A. (2023). Auditing fairness by betting.
       *NeurIPS* 36.

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
        v_opt: float = DEFAULT_V_OPT,
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
        level_iv(margin, "margin", none=True)
        self.group, self.y_pred, self.y_true = group, y_pred, y_true
        self.metrics = tuple(dict.fromkeys(metrics))
        self.alpha = level_iv(alpha, "alpha")
        self.v_opt = v_opt_iv(v_opt)
        self._rho = mixture_rho(self.v_opt, self.alpha)
        self.margin = None if margin is None else float(margin)
        self.favorable = _label(favorable, "favorable")
        self.reference = None if reference is None else _label(reference, "reference")
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
            column and the values), group values of another type (text or numbers) than the earlier
            batches'. The monitor is unchanged after an error.
        """
        label = str(self.n_batches + 1) if label is None else str(_label(label, "label"))
        where = f"batch {label!r}"
        table = self._counted(batch, where)
        favourable = {c: self._labels_iv(table, c, where) for c in self._columns()[1:]}
        self._groups_iv(table, where)
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
        batch: dict[object, dict[str, list[int]]] = {}
        for g in sorted(sizes, key=_order):
            rows = np.array([x == g for x in groups])
            batch[g] = {}
            for metric in self.metrics:
                keep = rows & masks[metric]
                batch[g][metric] = [int(n[keep & pred].sum()), int(n[keep].sum())]
        self.n_batches += 1
        return MonitorUpdate(batch=label, n_batch=int(n.sum()), statuses=self._advance(label, batch))

    def _groups_iv(self, table: pd.DataFrame, where: str) -> None:
        """Refuse group values of another type than the first batch's (text or numbers): ``1`` and ``"1"``
        would be two groups, one compared with the other."""
        kinds: dict[bool, object] = {}  # is text -> the first such value
        for value in map(_label, table[self.group]):
            kinds.setdefault(isinstance(value, str), value)
        if len(kinds) > 1:
            raise ValueError(
                f"{where}: column {self.group!r} holds both text and numbers as groups ({kinds[True]!r}, "
                f"{kinds[False]!r}); give every batch the column as one type"
            )
        known = {isinstance(g, str) for g in self._counts}
        if kinds and known and set(kinds) != known:
            value = next(iter(kinds.values()))
            had = "text" if True in known else "numbers"
            now = "text" if isinstance(value, str) else "a number"
            raise ValueError(
                f"{where}: column {self.group!r} holds {value!r} as {now}, where earlier batches held "
                f"{had}; a group is one value of one type: give every batch the column as one type (or start "
                "a new monitor)"
            )

    def _advance(self, label: str, batch: dict[object, dict[str, list[int]]]) -> tuple[MonitorStatus, ...]:
        """Add the batch's counts (group -> metric -> [successes, trials]) and return every status."""
        ref = self.reference
        none = {m: [0, 0] for m in self.metrics}
        before = {m: list(c) for m, c in self._counts.get(ref, none).items()}  # the reference so far
        for g, counts in batch.items():
            totals = self._counts.setdefault(g, {m: [0, 0] for m in self.metrics})
            for metric, (s, k) in counts.items():
                totals[metric][0] += s
                totals[metric][1] += k
        ref_batch = batch.get(ref, none)
        ref_counts = self._counts.get(ref, none)
        out = []
        for g in sorted(self._counts, key=_order):
            if g == ref:
                continue
            for metric in self.metrics:
                comp = self._comparisons.get((g, metric))
                if comp is None:  # a new group: the reference's earlier people join its first stratum
                    comp = self._comparisons[(g, metric)] = _Comparison()
                    comp.sums.pending[2:] = before[metric]
                sg, ng = batch.get(g, none)[metric]
                comp.sums.add(sg, ng, *ref_batch[metric])
                previous = comp.state
                lo, hi = comp.sums.interval(self._rho, self.alpha)
                e = float(np.exp(comp.sums.log_e_value(self._rho)))
                sg, ng = self._counts[g][metric]
                sr, nr = ref_counts[metric]
                estimate = sg / ng - sr / nr if ng and nr else math.nan
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
                "v_opt": self.v_opt,
            },
            "reference": self.reference,
            "n_batches": self.n_batches,
            "others": [[c, v] for c, v in sorted(self._others.items())],
            "counts": [
                [g, m, *self._counts[g][m]] for g in sorted(self._counts, key=_order) for m in self.metrics
            ],
            "comparisons": [
                [g, m, c.cs_low, c.cs_high, c.e_max, c.state, float(c.sums.s), float(c.sums.w),
                 float(c.sums.v), [int(x) for x in c.sums.included], [int(x) for x in c.sums.pending]]
                for (g, m), c in sorted(
                    self._comparisons.items(), key=lambda kv: (_order(kv[0][0]), kv[0][1])
                )
            ],
        }

    @classmethod
    def from_state(cls, state: dict[str, object]) -> FairnessMonitor:
        """A monitor that continues from :meth:`to_state`'s record.

        Raises
        ------
        ValueError
            A malformed record, or one of another version: version 1 (fairstats before issue 39, whose
            sequence kept only the counts) cannot be continued, as the sums over batches of version 2 cannot
            be rebuilt from its counts; the message says to start a new state.
        """
        version = state.get("version") if isinstance(state, dict) else None
        if version == 1:
            raise ValueError(
                "monitor state version 1 was written by an earlier fairstats, whose sequence kept only the "
                f"counts; this one keeps sums over the batches (version {_STATE_VERSION}) that cannot be "
                "rebuilt from them: start a new monitor state"
            )
        if version != _STATE_VERSION:
            raise ValueError(f"not a monitor state: version {version!r}, expected {_STATE_VERSION}")
        try:
            monitor = cls(**state["options"])
            monitor.reference = state["reference"]
            monitor.n_batches = int(state["n_batches"])
            monitor._others = {c: v for c, v in state["others"]}
            for g, m, s, n in state["counts"]:
                monitor._counts.setdefault(g, {k: [0, 0] for k in monitor.metrics})[m] = [int(s), int(n)]
            for g, m, lo, hi, e, st, s, w, v, included, pending in state["comparisons"]:
                sums = DifferenceSums(np.float64(s), np.float64(w), np.float64(v),
                                      np.asarray(included, dtype=float), np.asarray(pending, dtype=float))
                if sums.included.shape != (4,) or sums.pending.shape != (4,):
                    raise ValueError(f"comparison {g!r}, {m!r}: counts of 4 numbers expected")
                monitor._comparisons[(g, m)] = _Comparison(sums, float(lo), float(hi), float(e), str(st))
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"not a monitor state: {err}") from None
        return monitor
