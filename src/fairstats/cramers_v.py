"""Cramér's V of the equal confusion table with a confidence interval that keeps its coverage near 0.

:func:`cramers_v_interval` inverts the noncentral chi-squared test for the noncentrality λ of the table's
Pearson statistic (Steiger and Fouladi 1997; Smithson 2003) and maps λ to V. Unlike a bootstrap interval of
the plain V, which is biased upward and bounded at 0 (BCa on it can exclude its own estimate), this interval
covers V = 0 and small V at (at least) its nominal level, and always contains its bias-corrected estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, stats

from fairstats._contingency import ContingencyTable
from fairstats._result import Result
from fairstats._validation import CheckedFrame, as_list, level_iv
from fairstats.counts import Counts

__all__ = ["CramersVIntervalResult", "cramers_v_interval"]


@dataclass(frozen=True)
class CramersVIntervalResult(Result):
    """Cramér's V of a group × confusion-cell table with a noncentrality confidence interval.

    Attributes
    ----------
    statistic : float
        Cramér's V of the observed table (paper A's confusion parity error; biased upward).
    estimate : float
        Bias-corrected V, from the noncentrality estimate :math:`\\hat\\lambda = \\max(\\chi^2 - df, 0)`.
    ci_low, ci_high : float
        Interval for the population V at ``confidence_level``; it always contains ``estimate``.
    confidence_level : float
    chi2 : float
        Pearson's chi-squared of the table (empty cells left out).
    df : int
    noncentrality, noncentrality_low, noncentrality_high : float
        :math:`\\hat\\lambda` and its interval.
    n, n_groups, n_cells : int
    group_columns : tuple of str
    note : str
        Why ``statistic`` lies outside the interval, when it does; else empty.
    """

    statistic: float
    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    chi2: float
    df: int
    noncentrality: float
    noncentrality_low: float
    noncentrality_high: float
    n: int
    n_groups: int
    n_cells: int
    group_columns: tuple[str, ...]
    note: str

    _record = (
        "grouping", "statistic", "estimate", "ci_low", "ci_high", "ci_method", "confidence_level", "chi2",
        "df", "noncentrality", "noncentrality_low", "noncentrality_high", "n", "n_groups", "n_cells", "note",
    )  # fmt: skip

    @property
    def grouping(self) -> str:
        """The group columns joined by ``" x "`` (the record's ``grouping``)."""
        return " x ".join(self.group_columns)

    @property
    def ci_method(self) -> str:
        """How the interval is computed: ``"noncentral chi-squared inversion"``."""
        return "noncentral chi-squared inversion"


def _noncentrality_limit(chi2: float, df: int, upper_tail: float) -> float:
    """The λ at which ``P(X >= chi2) = upper_tail`` for X ~ χ²(df, λ); 0 when even λ = 0 exceeds it."""
    if stats.chi2.sf(chi2, df) >= upper_tail:
        return 0.0

    def gap(lam: float) -> float:
        return float(stats.ncx2.sf(chi2, df, lam)) - upper_tail

    high = max(chi2, 1.0)
    while gap(high) < 0:  # the survival function grows with λ
        high *= 2.0
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-10, rtol=1e-12))


def noncentrality_interval(chi2: float, df: int, *, confidence_level: float = 0.95) -> tuple[float, float]:
    """Equal-tailed interval for the noncentrality λ of an observed χ²(df, λ) statistic (test inversion)."""
    tail = (1.0 - confidence_level) / 2.0
    return _noncentrality_limit(chi2, df, tail), _noncentrality_limit(chi2, df, 1.0 - tail)


def cramers_v_interval(
    data: pd.DataFrame | CheckedFrame | Counts | ContingencyTable,
    *,
    group: str | Sequence[str] | None = None,
    y_true: str | None = None,
    y_pred: str | None = None,
    confidence_level: float = 0.95,
) -> CramersVIntervalResult:
    r"""Cramér's V of the group × confusion-cell table (paper A, Eq. 3) with a noncentrality interval.

    Parameters
    ----------
    data, group, y_true, y_pred
        As in :func:`fairstats.confusion.equal_confusion_test` (binary or multi-class labels; ``data`` may be
        a :class:`fairstats.Counts` or a frame of any engine, counted there, or a
        :class:`fairstats.ContingencyTable`).
    confidence_level : float, default 0.95

    Returns
    -------
    CramersVIntervalResult

    Raises
    ------
    ValueError, TypeError
        As :meth:`fairstats.ContingencyTable.from_frame`; a bad ``confidence_level``.

    Notes
    -----
    Under the alternative, Pearson's statistic of a :math:`q \times r` table is approximately noncentral
    chi-squared with :math:`df = (q-1)(r-1)` and noncentrality :math:`\lambda = n\,\phi^2 = n\,k\,V^2`,
    :math:`k = \min(q, r) - 1` (Cramér 1946; Smithson 2003, Eq. 4.6). The limits
    :math:`\lambda_L, \lambda_U` solve

    .. math:: P(\chi^2_{df}(\lambda_L) \ge \chi^2_{obs}) = \tfrac{1-c}{2}, \qquad
              P(\chi^2_{df}(\lambda_U) \ge \chi^2_{obs}) = \tfrac{1+c}{2}

    (a limit is 0 when even :math:`\lambda = 0` satisfies its inequality), and
    :math:`V_{L,U} = \sqrt{\lambda_{L,U} / (n k)}` (Steiger and Fouladi 1997). The point estimate reported
    with the interval is :math:`\hat V = \sqrt{\max(\chi^2_{obs} - df, 0) / (n k)}`, which subtracts the
    expected value of a central :math:`\chi^2` and so removes most of the plain V's upward bias; the plain
    ``statistic`` can lie above the interval when the table has many cells (then ``note`` says so). At
    :math:`V = 0` the lower limit is 0 with probability :math:`(1+c)/2`, so the interval is conservative there
    (coverage about 97.5 % for c = 0.95); ``tests/unit/test_cramers_v.py`` checks the coverage by simulation.
    Empty cells drop out of the table, as in :func:`fairstats.confusion.equal_confusion_test`.

    References
    ----------
    J. H. Steiger and R. T. Fouladi (1997), Noncentrality interval estimation and the evaluation of
    statistical models, in *What if there were no significance tests?*, 221-257. M. Smithson (2003),
    *Confidence Intervals*, Sage QASS 140, ch. 4. H. Cramér (1946), *Mathematical Methods of Statistics*.
    Paper A (Gursoy and Kakadiaris 2022), Eq. 3.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": list("aaaaaabbbbbb"), "y": [1, 1, 1, 0, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0]})
    >>> res = cramers_v_interval(df, group="g", y_true="y", y_pred="p")
    >>> round(res.statistic, 4), res.ci_low <= res.estimate <= res.ci_high
    (0.3944, True)
    """
    confidence_level = level_iv(confidence_level, "confidence_level")
    observed = ContingencyTable.of(data, group, y_true, y_pred).observed.to_numpy(dtype=float)
    observed = observed[:, observed.sum(axis=0) > 0]
    q, r = observed.shape
    n = int(observed.sum())
    chi2, _, df, _ = stats.chi2_contingency(observed, correction=False)
    chi2, df = float(chi2), int(df)
    k = min(q, r) - 1
    lam = max(chi2 - df, 0.0)
    lam_low, lam_high = noncentrality_interval(chi2, df, confidence_level=confidence_level)

    def v(x: float) -> float:
        return float(np.sqrt(x / (n * k)))

    statistic, estimate, low, high = v(chi2), v(lam), v(lam_low), v(lam_high)
    note = ""
    if not low <= statistic <= high:
        note = (
            f"the plain V {statistic:.3g} lies outside the interval: with {df} degrees of freedom it is "
            f"biased upward (chi-squared is {df} on average when the groups do not differ); the interval "
            f"is for the population V, around the bias-corrected {estimate:.3g}"
        )
    return CramersVIntervalResult(
        statistic=statistic,
        estimate=estimate,
        ci_low=low,
        ci_high=high,
        confidence_level=confidence_level,
        chi2=chi2,
        df=df,
        noncentrality=lam,
        noncentrality_low=lam_low,
        noncentrality_high=lam_high,
        n=n,
        n_groups=q,
        n_cells=r,
        group_columns=tuple(as_list(group, name="group")),
        note=note,
    )
