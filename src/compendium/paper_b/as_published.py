r"""Paper B's two erroneous formulas, as printed: its fold t statistic and its Table XX/XXV McNemar p-value.

Both are kept only so that the reproduction can set the printed numbers beside correct ones; neither is a
valid test, and neither belongs to the library (:mod:`fairstats` has the correct methods,
:func:`fairstats.fold_ttest` and :func:`fairstats.mcnemar_midp`, on top of which these are written).

The fold t of Tables II-XI
    Paper B compares two groups' K per-fold values with :math:`t = (\bar a - \bar b) / (s_p (1/K + 1/K))`:
    the pooled two-sample t **without** the square root over :math:`1/K + 1/K`, hence :math:`\sqrt{K/2}`
    times the pooled t (11.2 times for K = 250), with its p-value from Student's t on :math:`2K - 2` df
    (:func:`fold_ttest_as_published`).

The McNemar p-value of Tables XX and XXV
    Eq. 3 prints ``2·Σ_{i=0}^{k} C(n,i) 0.5^n − C(n,k) 0.5^n`` with n the number of discordant pairs; taken
    literally with k "the number of discordant pairs where the original prediction is 1 and the
    counterfactual prediction is 0" it exceeds 1 whenever k > n/2, and it is the two-sided mid-p only when
    k is the smaller discordant count (what :func:`fairstats.mcnemar_midp` uses). Table XX's ``K`` is the
    printed cell [row 0, column 1] of Tables XVI–XIX (LR unprotected: K = 13, N − K = 15); those tables put
    the original prediction (X) in the columns and the counterfactual (Y) in the rows: their column totals
    equal the authors' per-fold counts of each prediction (LDA, XGBoost) and agree between the causal and
    the neighbour tables, the row totals do neither (:mod:`compendium.paper_b.authors`). Two-sided p-values
    do not depend on which discordant count is called K.

    Table XX's printed p-values (13/15 → 0.78, 27/14 → 0.0516, 136/153 → 0.332, 208/184 → 0.236) are
    reproduced by ``2·cdf(m) − 0.5·pmf(m)`` with m = min(K, N − K) (0.7808, 0.05157, 0.3324, 0.2357;
    :func:`mcnemar_midp_as_published`), *not* by the mid-p ``2·cdf(m) − pmf(m)`` (0.7111, 0.04356, 0.3181,
    0.2260), nor by either formula with m = K as printed (> 1 for 27/14 and 208/184). ``2·cdf − 0.5·pmf`` is
    half-way between the exact McNemar p (``2·cdf``) and the mid-p; it is not a recognised test. The LR
    protected row (27/14) is the one whose verdict at α = 0.05 changes: mid-p 0.0436 < 0.05 (significant)
    vs printed 0.0516 (not). Table XXV's printed values (0.0005, 0, 0.001) round the same under both.

Moved here from ``fairstats.ttests`` and ``fairstats.mcnemar`` (issue 24); the numbers are unchanged to the
last bit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import binom

from fairstats import FoldTTestResult, McNemarResult, fold_ttest, mcnemar_midp

__all__ = [
    "AS_PUBLISHED_LABEL",
    "FoldTTestAsPublished",
    "fold_ttest_as_published",
    "mcnemar_midp_as_published",
]

#: Label of the paper's fold t in :meth:`FoldTTestAsPublished.to_frame`.
AS_PUBLISHED_LABEL = "paper B's formula: pooled t without the square root, 2K-2 df"


@dataclass(frozen=True)
class FoldTTestAsPublished(FoldTTestResult):
    """:class:`fairstats.FoldTTestResult` with paper B's fold t beside the library's three t-tests.

    Attributes
    ----------
    statistic_paper_formula, df_paper_formula, pvalue_paper_formula, significant_paper_formula
        Paper B's statistic, its df :math:`n_a + n_b - 2` (NaN dropped per group), p-value and verdict
        (``pvalue < alpha``). The other fields are :class:`fairstats.FoldTTestResult`'s.
    """

    statistic_paper_formula: float
    df_paper_formula: float
    pvalue_paper_formula: float
    significant_paper_formula: bool

    def to_frame(self) -> pd.DataFrame:
        """The library's rows (``pooled, paired, corrected``) after a first row ``paper_formula``."""
        paper = {
            "test": "paper_formula",
            "label": AS_PUBLISHED_LABEL,
            "statistic": self.statistic_paper_formula,
            "df": self.df_paper_formula,
            "pvalue": self.pvalue_paper_formula,
            "significant": self.significant_paper_formula,
            "n": self.n_a + self.n_b,
            "estimate": self.estimate,
            "alternative": self.alternative,
            "alpha": self.alpha,
        }
        return pd.concat([pd.DataFrame([paper]), super().to_frame()], ignore_index=True)


def _t_pvalue(statistic: float, df: float, alternative: str) -> float:
    if np.isnan(statistic):
        return float("nan")
    if alternative == "greater":
        return float(stats.t.sf(statistic, df))
    if alternative == "less":
        return float(stats.t.cdf(statistic, df))
    return float(min(1.0, 2.0 * stats.t.sf(abs(statistic), df)))


def fold_ttest_as_published(
    a, b, *, alternative: str = "two-sided", alpha: float = 0.05, test_train_ratio: float | None = None
) -> FoldTTestAsPublished:
    r""":func:`fairstats.fold_ttest` of two groups' per-fold values, and paper B's fold t beside it.

    Parameters
    ----------
    a, b, alternative, alpha, test_train_ratio
        As :func:`fairstats.fold_ttest` (which validates them).

    Returns
    -------
    FoldTTestAsPublished
        The library's fields and ``statistic_paper_formula, df_paper_formula, pvalue_paper_formula,
        significant_paper_formula``.

    Notes
    -----
    With the non-NaN values of each group and
    :math:`s_p^2 = ((n_a-1)s_a^2 + (n_b-1)s_b^2)/(n_a+n_b-2)`, paper B's statistic is

    .. math:: t_{paper} = \frac{\bar a - \bar b}{s_p (1/n_a + 1/n_b)}, \qquad df = n_a + n_b - 2,

    i.e. :math:`t_{paper} = t_{pooled} / \sqrt{1/n_a + 1/n_b}`, :math:`\sqrt{K/2}\, t_{pooled}` for
    :math:`n_a = n_b = K` (the square root over :math:`1/n_a + 1/n_b` is missing). Hand-written: no library
    computes this wrong statistic.

    References
    ----------
    Paper B, "Detecting Statistically Significant Fairness Violations in Recidivism Forecasting Algorithms",
    Sections II-B to II-I (Tables II-XI): the two-sample t with :math:`(1/250 + 1/250)`.

    Examples
    --------
    >>> res = fold_ttest_as_published([0.6, 0.7, 0.65, 0.62], [0.55, 0.6, 0.61, 0.6], alternative="greater")
    >>> round(res.statistic_paper_formula / res.statistic_pooled, 6) == round((4 / 2) ** 0.5, 6)
    True
    """
    res = fold_ttest(a, b, alternative=alternative, alpha=alpha, test_train_ratio=test_train_ratio)
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    xa, xb = xa[~np.isnan(xa)], xb[~np.isnan(xb)]
    n_a, n_b = xa.size, xb.size
    df_two = float(n_a + n_b - 2)
    sp = np.sqrt(((n_a - 1) * xa.var(ddof=1) + (n_b - 1) * xb.var(ddof=1)) / df_two)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_paper = float(np.float64(res.estimate) / np.float64(sp * (1.0 / n_a + 1.0 / n_b)))
    p_paper = _t_pvalue(t_paper, df_two, alternative)
    return FoldTTestAsPublished(
        **{f.name: getattr(res, f.name) for f in dataclasses.fields(res)},
        statistic_paper_formula=t_paper,
        df_paper_formula=df_two,
        pvalue_paper_formula=p_paper,
        significant_paper_formula=bool(p_paper < alpha),
    )


def mcnemar_midp_as_published(b: int, c: int) -> McNemarResult:
    """The p-value as paper B printed it in Tables XX/XXV: ``2·cdf(m) − 0.5·pmf(m)``, m = min(b, c).

    This is the paper's erroneous formula, kept so that the battery can show the printed numbers next to
    the correct mid-p (:func:`fairstats.mcnemar_midp`). It is not a valid test: it lies half-way between the
    exact McNemar p-value and the mid-p.

    Parameters
    ----------
    b, c : int
        Discordant counts, cells [0, 1] and [1, 0] of the paired table (Table XX's ``K`` and ``N − K``).

    Returns
    -------
    fairstats.McNemarResult
        ``statistic = min(b, c)``, ``alternative="two-sided"``, ``method="as-published"``; ``pvalue`` is not
        capped at 1 (it can exceed 1 only when b = c).

    Raises
    ------
    ValueError, TypeError
        As :func:`fairstats.mcnemar_midp` (which validates the counts).

    Notes
    -----
    .. math::

        p_{\\text{printed}} = 2 P(X \\le m) - \\tfrac12 P(X = m),\\quad X \\sim \\mathrm{Bin}(b + c, 1/2).

    It reproduces every printed p of Table XX at the printed precision: 13/15 → 0.7808 ("0.78"),
    27/14 → 0.05157 ("0.0516"), 136/153 → 0.3324 ("0.332"), 208/184 → 0.2357 ("0.236"); the correct mid-p
    gives 0.7111, 0.04356, 0.3181, 0.2260 and does not. With m = K as printed instead of min(K, N − K) the
    formula gives 1.964 and 1.784 for 27/14 and 208/184, so the authors used the smaller count.

    References
    ----------
    Paper B, Eq. 3 (which prints ``− C(n,k)0.5^n``, i.e. the mid-p) and Table XX (computed otherwise).

    Examples
    --------
    >>> round(mcnemar_midp_as_published(27, 14).pvalue, 4)
    0.0516
    """
    mid = mcnemar_midp(b, c)  # validates b and c; statistic = min(b, c) two-sided
    k, n = mid.statistic, mid.n
    p = 2.0 * binom.cdf(k, n, 0.5) - 0.5 * binom.pmf(k, n, 0.5)
    return dataclasses.replace(mid, pvalue=float(p), method="as-published")
