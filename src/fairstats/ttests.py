r"""Fold-based t-tests: is a metric's mean over cross-validation folds different between two groups?

A metric (positive prediction rate, TPR, ...) computed per group in each of K test folds gives two aligned
series of K values. :func:`fold_ttest` reports three statistics for the same data:

``pooled``
    The ordinary pooled (equal-variance) two-sample t, :func:`scipy.stats.ttest_ind`. It treats the folds as
    independent samples, which they are not: the two groups' values in one fold come from the same model.
``paired``
    The paired t on the within-fold differences, :func:`scipy.stats.ttest_rel`. It respects the pairing but
    still treats the K folds as independent, although their models share almost all their training data.
``corrected``
    The corrected resampled t of Nadeau & Bengio (2003) in its K-fold form (Bouckaert & Frank 2004), which
    inflates the variance of the mean difference for the overlap of the training sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from fairstats._result import Result
from fairstats._validation import ALTERNATIVES, fold_pairs_iv

__all__ = ["ALTERNATIVES", "FOLD_TESTS", "KS_ALTERNATIVE", "FoldTTestResult", "fold_ttest"]

#: Our ``alternative`` (about the values: ``"greater"``, the first sample's values tend to be larger) as
#: ``scipy.stats.ks_2samp`` names it (about the distribution functions: its ``"greater"`` is
#: :math:`F_1 > F_2` somewhere, i.e. the first sample's values tend to be *smaller*).
KS_ALTERNATIVE = {"two-sided": "two-sided", "greater": "less", "less": "greater"}

#: The three statistics of :class:`FoldTTestResult`, in the order of :meth:`FoldTTestResult.to_frame`.
FOLD_TESTS = ("pooled", "paired", "corrected")

_LABELS = {
    "pooled": "pooled two-sample t (scipy.stats.ttest_ind, equal_var=True)",
    "paired": "paired t within fold (scipy.stats.ttest_rel)",
    "corrected": "corrected resampled t (Nadeau & Bengio 2003, K-fold form)",
}


@dataclass(frozen=True)
class FoldTTestResult(Result):
    r"""Three t-tests of the same per-fold values of two groups.

    Attributes
    ----------
    alternative : str
        ``"two-sided"``, ``"less"`` or ``"greater"``: the alternative about mean(a) - mean(b).
    alpha : float
        Significance level of the ``significant_*`` verdicts.
    k : int
        Number of folds given (length of ``a`` and ``b``, NaN included).
    n_a, n_b : int
        Non-NaN values of ``a`` and of ``b`` (used by ``pooled``).
    n_pairs : int
        Folds where both values are non-NaN (used by ``paired`` and ``corrected``).
    test_train_ratio : float
        :math:`n_{test}/n_{train}` of the corrected t (default :math:`1/(K-1)`).
    mean_a, mean_b : float
        Means of the non-NaN values of ``a`` and of ``b``.
    estimate : float
        ``mean_a - mean_b`` (what ``pooled`` tests).
    mean_difference : float
        Mean of ``a - b`` over the complete pairs (what ``paired`` and ``corrected`` test).
    statistic_pooled, df_pooled, pvalue_pooled, significant_pooled
        Pooled two-sample t (:func:`scipy.stats.ttest_ind` with ``equal_var=True``).
    statistic_paired, df_paired, pvalue_paired, significant_paired
        Paired t (:func:`scipy.stats.ttest_rel`), df ``n_pairs - 1``.
    statistic_corrected, df_corrected, pvalue_corrected, significant_corrected
        Corrected resampled t, df ``n_pairs - 1``.
    """

    alternative: str
    alpha: float
    k: int
    n_a: int
    n_b: int
    n_pairs: int
    test_train_ratio: float
    mean_a: float
    mean_b: float
    estimate: float
    mean_difference: float
    statistic_pooled: float
    df_pooled: float
    pvalue_pooled: float
    significant_pooled: bool
    statistic_paired: float
    df_paired: float
    pvalue_paired: float
    significant_paired: bool
    statistic_corrected: float
    df_corrected: float
    pvalue_corrected: float
    significant_corrected: bool

    def to_frame(self) -> pd.DataFrame:
        """Return one row per test (``pooled, paired, corrected``).

        Columns: ``test, label, statistic, df, pvalue, significant, n, estimate, alternative, alpha``;
        ``n`` is the number of values the test used (``n_a + n_b`` or ``n_pairs``) and ``estimate`` the
        mean difference it tests.
        """
        rows = []
        for test in FOLD_TESTS:
            two_sample = test == "pooled"
            rows.append(
                {
                    "test": test,
                    "label": _LABELS[test],
                    "statistic": getattr(self, f"statistic_{test}"),
                    "df": getattr(self, f"df_{test}"),
                    "pvalue": getattr(self, f"pvalue_{test}"),
                    "significant": getattr(self, f"significant_{test}"),
                    "n": self.n_a + self.n_b if two_sample else self.n_pairs,
                    "estimate": self.estimate if two_sample else self.mean_difference,
                    "alternative": self.alternative,
                    "alpha": self.alpha,
                }
            )
        return pd.DataFrame(rows)


def _t_pvalue(statistic: float, df: float, alternative: str) -> float:
    """p-value of a Student t statistic for ``alternative`` (NaN statistic -> NaN p-value)."""
    if np.isnan(statistic):
        return float("nan")
    if alternative == "greater":
        return float(stats.t.sf(statistic, df))
    if alternative == "less":
        return float(stats.t.cdf(statistic, df))
    return float(min(1.0, 2.0 * stats.t.sf(abs(statistic), df)))


def _ratio(numerator: float, denominator: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(numerator) / np.float64(denominator))


def fold_ttest(
    a: ArrayLike,
    b: ArrayLike,
    *,
    alternative: str = "two-sided",
    alpha: float = 0.05,
    test_train_ratio: float | None = None,
) -> FoldTTestResult:
    r"""Compare two groups' per-fold metric values with three t-tests: pooled, paired and corrected.

    Parameters
    ----------
    a, b : array_like of float, shape (K,)
        The metric of group a and of group b in each of K cross-validation test folds, aligned by position
        (``a[i]`` and ``b[i]`` come from fold i). An undefined value (e.g. a rate with an empty denominator in
        that fold) must be NaN; infinite values are refused.
    alternative : {"two-sided", "less", "greater"}, keyword-only
        Alternative hypothesis about mean(a) - mean(b) (``"greater"``: a's mean is larger). Every statistic
        is oriented as a minus b.
    alpha : float, keyword-only
        Significance level of the verdicts (``significant_* = pvalue < alpha``; a NaN p-value is not
        significant).
    test_train_ratio : float or None, keyword-only
        :math:`n_{test}/n_{train}` of the corrected t. ``None`` (default): :math:`1/(K-1)`, the ratio of
        K-fold cross-validation with equal folds, K = ``len(a)``.

    Returns
    -------
    FoldTTestResult
        Statistic, df, p-value and verdict of each test, with the counts of values used; see its fields.

    Raises
    ------
    TypeError
        When ``a`` or ``b`` is not numeric.
    ValueError
        When ``a`` and ``b`` differ in length or are not 1-D, contain an infinite value, when fewer than 2
        non-NaN values (per group or per complete pair) remain, or when ``alternative``, ``alpha`` or
        ``test_train_ratio`` is out of range.

    Notes
    -----
    NaN handling: ``pooled`` drops NaN per group (``n_a``, ``n_b`` values);
    ``paired`` and ``corrected`` drop every fold where either value is NaN (``n_pairs`` folds). The counts
    are reported in the result; nothing is dropped silently.

    With :math:`d_i = a_i - b_i` over the J complete pairs, :math:`\bar d` and :math:`s_d^2` their mean and
    variance (ddof 1) and :math:`r` = ``test_train_ratio``, the corrected resampled t is

    .. math:: t_{corr} = \frac{\bar d}{\sqrt{(1/J + r)\, s_d^2}}, \qquad df = J - 1

    (Nadeau & Bengio 2003, Eq. for the corrected resampled t; for K-fold cross-validation
    :math:`r = 1/(K-1)`, Bouckaert & Frank 2004). It is hand-written because neither scipy nor statsmodels
    has it. The paired t is :math:`\bar d / \sqrt{s_d^2 / J}`; the correction makes the variance of
    :math:`\bar d` account for the correlation between folds whose models share training data, and for
    K = 250 divides the paired t by about :math:`\sqrt 2`. A zero spread gives an infinite statistic (NaN
    when the mean difference is 0 too), as scipy does.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the Generalization Error", Machine Learning 52(3):239-281,
       2003.
    .. [2] R. R. Bouckaert and E. Frank, "Evaluating the Replicability of Significance Tests for Comparing
       Learning Algorithms", PAKDD 2004, LNCS 3056, pp. 3-12.

    Examples
    --------
    >>> res = fold_ttest([0.6, 0.7, 0.65, 0.62], [0.55, 0.6, 0.61, 0.6], alternative="greater")
    >>> res.n_pairs, res.df_paired, res.significant_corrected
    (4, 3.0, False)
    """
    a, b, a_ok, b_ok, pair_ok, ratio = fold_pairs_iv(a, b, alternative, alpha, test_train_ratio)
    k = a.shape[0]
    xa, xb = a[a_ok], b[b_ok]
    n_a, n_b = xa.size, xb.size
    mean_a, mean_b = float(xa.mean()), float(xb.mean())
    estimate = mean_a - mean_b

    pooled = stats.ttest_ind(xa, xb, equal_var=True, alternative=alternative)

    pa, pb = a[pair_ok], b[pair_ok]
    n_pairs = pa.size
    paired = stats.ttest_rel(pa, pb, alternative=alternative)
    d = pa - pb
    mean_d = float(d.mean())
    t_corr = _ratio(mean_d, np.sqrt((1.0 / n_pairs + ratio) * d.var(ddof=1)))
    df_pairs = float(n_pairs - 1)

    p_pooled = float(pooled.pvalue)
    p_paired = float(paired.pvalue)
    p_corr = _t_pvalue(t_corr, df_pairs, alternative)
    return FoldTTestResult(
        alternative=alternative,
        alpha=float(alpha),
        k=int(k),
        n_a=int(n_a),
        n_b=int(n_b),
        n_pairs=int(n_pairs),
        test_train_ratio=ratio,
        mean_a=mean_a,
        mean_b=mean_b,
        estimate=estimate,
        mean_difference=mean_d,
        statistic_pooled=float(pooled.statistic),
        df_pooled=float(pooled.df),
        pvalue_pooled=p_pooled,
        significant_pooled=bool(p_pooled < alpha),
        statistic_paired=float(paired.statistic),
        df_paired=float(paired.df),
        pvalue_paired=p_paired,
        significant_paired=bool(p_paired < alpha),
        statistic_corrected=t_corr,
        df_corrected=df_pairs,
        pvalue_corrected=p_corr,
        significant_corrected=bool(p_corr < alpha),
    )
