r"""Score distributions conditional on the outcome: do two groups with the same outcome get the same scores?

Balance for the positive (negative) class compares the *mean* score of the people with (without) the outcome
across groups (Kleinberg, Mullainathan & Raghavan 2017). :func:`score_distribution_tests` generalises it to
the whole distribution: for each outcome class and each group against a reference, the two-sample
Kolmogorov–Smirnov test (any difference of the distributions), the Mann–Whitney test (a shift: one group's
scores tend to be higher) and Welch's t on the means (the balance itself), with Holm's adjustment over all the
tests that were run and a three-way verdict. All three are computed from the counts per distinct score
(:class:`fairstats.Counts`), with the p-values scipy gives on the same scores.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairstats._deprecation import attribute
from fairstats._result import Result
from fairstats._score_input import delong, reference_iv, score_counts_iv, score_options_iv, score_verdicts
from fairstats._small import MIN_NORMAL, size_reason
from fairstats.equivalence import DEFAULT_MARGIN, z_equivalence
from fairstats.outcomes import UndefinedTestWarning
from fairstats.power import DEFAULT_POWER
from fairstats.ttests import KS_ALTERNATIVE

__all__ = ["SCORE_DISTRIBUTION_TESTS", "ScoreDistributionTestsResult", "score_distribution_tests"]


def __getattr__(name: str) -> object:
    return attribute(__name__, name)  # a result class renamed after its function (issue 38): warn, name it


#: The tests run per outcome class and comparison, as the ``metric`` of their row.
SCORE_DISTRIBUTION_TESTS = ("ks", "mann_whitney", "mean_score")

#: Largest sample for which the scores are expanded and handed to scipy itself (its exact KS p-value below
#: this size, scipy's ``MAX_AUTO_N``); above it, the statistics come from the counts and the p-values from
#: scipy's asymptotic distributions, the formulas ``ks_2samp`` and ``mannwhitneyu`` use there.
EXPAND_LIMIT = 10_000


@dataclass(frozen=True, eq=False)
class ScoreDistributionTestsResult(Result):
    """Two-sample tests of the scores of each group against the reference's, per outcome class.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (outcome class, group, test): ``grouping, group, reference, outcome`` (``"positive"``:
        ``y_true == pos_label``; ``"negative"``), ``metric`` (:data:`SCORE_DISTRIBUTION_TESTS`),
        ``estimate`` (KS: the largest distance of the two distribution functions, :math:`D \\in [0, 1]`;
        Mann–Whitney: :math:`P(S_g > S_r) + \\frac12 P(S_g = S_r)`, 0.5 under no shift; mean: the difference
        of mean scores), ``ci_low, ci_high`` (Mann–Whitney: DeLong's interval; mean: Welch's; KS: none),
        ``statistic, pvalue, pvalue_adj`` (Holm over every row), ``mde`` (means only), ``equivalence_pvalue``
        (means: TOST within ±``margin``), ``verdict, verdict_note``, ``n, n_reference, method, reason``.
    reference : str
    alpha, confidence_level, margin : float
    """

    table: pd.DataFrame
    reference: str
    alpha: float
    confidence_level: float
    margin: float

    _table = "table"


def _expand(score, count) -> np.ndarray:
    return np.repeat(score, count.astype(np.int64))


def _ks(sa, ca, sb, cb, alternative) -> tuple[float, float]:
    """KS statistic and p-value: scipy's ``ks_2samp`` on the expanded scores, or its asymptotic formula;
    ``alternative`` in scipy's words (about the distribution functions, :data:`KS_ALTERNATIVE`)."""
    na, nb = float(ca.sum()), float(cb.sum())
    if max(na, nb) <= EXPAND_LIMIT:
        res = stats.ks_2samp(_expand(sa, ca), _expand(sb, cb), alternative=alternative, method="auto")
        return float(res.statistic), float(res.pvalue)
    grid = np.union1d(sa, sb)
    fa = np.cumsum(np.bincount(np.searchsorted(grid, sa), weights=ca, minlength=grid.size)) / na
    fb = np.cumsum(np.bincount(np.searchsorted(grid, sb), weights=cb, minlength=grid.size)) / nb
    diff = fa - fb
    d_plus, d_minus = float(max(diff.max(), 0.0)), float(max(-diff.min(), 0.0))
    d = {"two-sided": max(d_plus, d_minus), "greater": d_plus, "less": d_minus}[alternative]
    m, n = max(na, nb), min(na, nb)
    en = m * n / (m + n)
    if alternative == "two-sided":
        p = float(stats.kstwo.sf(d, np.round(en)))
    else:  # Hodges' approximation (Eq. 5.3), as scipy's ks_2samp
        z = np.sqrt(en) * d
        p = float(np.exp(-2 * z**2 - 2 * z * (m + 2 * n) / np.sqrt(m * n * (m + n)) / 3.0))
    return d, float(np.clip(p, 0, 1))


def _mann_whitney(sa, ca, sb, cb, alternative) -> tuple[float, float]:
    """U of the first sample and the p-value: scipy's ``mannwhitneyu`` on the expanded scores, or its
    asymptotic formula (normal, tie correction, continuity correction) from the counts."""
    na, nb = float(ca.sum()), float(cb.sum())
    if max(na, nb) <= EXPAND_LIMIT:
        res = stats.mannwhitneyu(_expand(sa, ca), _expand(sb, cb), alternative=alternative)
        return float(res.statistic), float(res.pvalue)
    grid = np.union1d(sa, sb)
    wa = np.bincount(np.searchsorted(grid, sa), weights=ca, minlength=grid.size)
    wb = np.bincount(np.searchsorted(grid, sb), weights=cb, minlength=grid.size)
    auc, _ = delong(wa, wb)
    u = auc * na * nb
    n = na + nb
    t = wa + wb
    s = np.sqrt(na * nb / 12 * ((n + 1) - float(t @ (t**2 - 1)) / (n * (n - 1))))
    mu = na * nb / 2
    if alternative == "two-sided":
        z = (max(u, na * nb - u) - mu - 0.5) / s
        p = 2 * stats.norm.sf(z)
    elif alternative == "greater":
        p = stats.norm.sf((u - mu - 0.5) / s)
    else:
        p = stats.norm.sf((na * nb - u - mu - 0.5) / s)
    return float(u), float(np.clip(p, 0, 1))


def _moments(score, count) -> tuple[float, float, float]:
    n = float(count.sum())
    mean = float(count @ score / n)
    return mean, float(np.sqrt(count @ (score - mean) ** 2 / (n - 1))), n


def score_distribution_tests(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_score: str,
    pos_label: object = None,
    reference: object = None,
    tests: Sequence[str] | None = None,
    alternative: str = "two-sided",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    margin: float = DEFAULT_MARGIN,
    power: float = DEFAULT_POWER,
) -> ScoreDistributionTestsResult:
    r"""KS, Mann–Whitney and Welch tests of each group's scores against the reference's, per outcome class.

    Parameters
    ----------
    data, group, y_true, y_score, pos_label, reference
        As :func:`fairstats.discrimination.auc_tests`.
    tests : list of str, optional
        Default: all of :data:`SCORE_DISTRIBUTION_TESTS`.
        Which tests to run (Holm's family is what was run).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        About the group's scores against the reference's (``"greater"``: the group's tend to be higher), for
        the three tests alike (KS: scipy's ``ks_2samp`` is called with the opposite word, as its alternative
        is about the distribution functions, :data:`fairstats.ttests.KS_ALTERNATIVE`).
    alpha, confidence_level, power
        As :func:`fairstats.discrimination.auc_tests`.
    margin : float, default 0.1
        Equivalence margin of the difference of mean scores (scores on [0, 1]; rescale for other scores).

    Returns
    -------
    ScoreDistributionTestsResult

    Warns
    -----
    UndefinedTestWarning
        A class with fewer than 2 people in a group (or no spread for Welch's t): the row's p-value is NaN,
        its verdict ``undefined``.

    Notes
    -----
    For the class :math:`c` and groups :math:`g, r`, with :math:`F_{g}, F_{r}` the distribution functions of
    their scores in that class:

    * Kolmogorov–Smirnov, :math:`D = \sup_s |F_g(s) - F_r(s)|`: ``scipy.stats.ks_2samp`` (exact null
      distribution up to 10,000 people per sample, Smirnov's asymptotic one above). The null distributions
      assume continuous scores; with ties (deciles) the test is conservative.
    * Mann–Whitney U (``scipy.stats.mannwhitneyu``: tie-corrected normal approximation with continuity
      correction); its estimate :math:`U / (n_g n_r)` is the AUC of "group g" against "group r" within the
      class, with DeLong's interval (:func:`fairstats.discrimination.auc_delong`).
    * Welch's t on the means (``scipy.stats.ttest_ind_from_stats`` with the counted scores' means and
      standard deviations), its interval, and with Welch's standard error the MDE and the equivalence test
      of the normal approximation (:func:`fairstats.power.mde_z`, :func:`fairstats.equivalence.z_equivalence`;
      statsmodels' t power solver costs 0.1 s per call, and the t and normal MDEs differ by under 2 % from
      60 people per group).

    A test is valid for any group sizes under its null (equal distributions for KS and Mann–Whitney; equal
    means for Welch). Holm's adjustment runs over every row of the table.

    References
    ----------
    J. Kleinberg, S. Mullainathan and M. Raghavan, "Inherent trade-offs in the fair determination of risk
    scores", ITCS 2017; N. Smirnov, "Table for estimating the goodness of fit of empirical distributions",
    Ann. Math. Statist. 19, 1948; H. B. Mann and D. R. Whitney, Ann. Math. Statist. 18, 1947; B. L. Welch,
    Biometrika 34, 1947.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 8 + ["b"] * 8, "y": [0, 1] * 8,
    ...                    "s": [0.1, 0.5, 0.2, 0.6, 0.3, 0.7, 0.2, 0.8] * 2})
    >>> r = score_distribution_tests(df, group="g", y_true="y", y_score="s", tests=["ks"])
    >>> r.table[["outcome", "metric", "estimate"]].to_numpy().tolist()
    [['positive', 'ks', 0.0], ['negative', 'ks', 0.0]]
    """
    alpha, confidence_level, margin, power = score_options_iv(alpha, confidence_level, margin, power,
                                                               alternative)
    if tests is None:
        tests = SCORE_DISTRIBUTION_TESTS
    if isinstance(tests, str):
        tests = [tests]
    unknown = [t for t in tests if t not in SCORE_DISTRIBUTION_TESTS]
    if unknown or not tests:
        raise ValueError(f"`tests` must name some of {list(SCORE_DISTRIBUTION_TESTS)}, got {list(tests)!r}")
    tests = [t for t in SCORE_DISTRIBUTION_TESTS if t in tests]
    counted = score_counts_iv(data, group=group, y_true=y_true, y_score=y_score, pos_label=pos_label)
    ref = reference_iv(counted, reference)
    z_ci = float(stats.norm.ppf(0.5 + confidence_level / 2))
    rows = []
    for outcome in ("positive", "negative"):
        take = counted.pos if outcome == "positive" else counted.neg
        for g in counted.groups:
            if g == ref:
                continue
            sa, ca = counted.score[g], take[g]
            sb, cb = counted.score[ref], take[ref]
            keep_a, keep_b = ca > 0, cb > 0
            sa, ca, sb, cb = sa[keep_a], ca[keep_a], sb[keep_b], cb[keep_b]
            na, nb = float(ca.sum()), float(cb.sum())
            for metric in tests:
                row = _one(metric, sa, ca, sb, cb, alternative, confidence_level, z_ci, margin, alpha, power,
                           (g, ref))
                if row["reason"]:
                    warnings.warn(UndefinedTestWarning(
                        f"{metric} ({outcome} class) {g!r} vs {ref!r}: test undefined, {row['reason']}"),
                        stacklevel=2)
                rows.append({"grouping": counted.grouping, "group": g, "reference": ref, "outcome": outcome,
                             "metric": metric, **row, "n": na, "n_reference": nb})
    table = score_verdicts(pd.DataFrame(rows), alpha)
    return ScoreDistributionTestsResult(table, ref, alpha, confidence_level, margin)


def _one(metric, sa, ca, sb, cb, alternative, confidence_level, z_ci, margin, alpha, power, names) -> dict:
    nan = float("nan")
    na, nb = float(ca.sum()), float(cb.sum())
    # the group's own count (or the reference's, named as such)
    smallest, name = min(zip((na, nb), names, strict=True), key=lambda item: item[0])
    out = {"estimate": nan, "ci_low": nan, "ci_high": nan, "statistic": nan, "pvalue": nan, "mde": nan,
           "equivalence_pvalue": nan, "method": "", "reason": ""}
    if na < 2 or nb < 2:
        out["reason"] = f"{smallest:g} people of this class in group {name!r}, fewer than 2"
    elif metric == "mean_score" and smallest < MIN_NORMAL:
        out["reason"] = size_reason(smallest, "people of this class", name,
                                    "Welch's t does not hold its size")
    if metric == "ks":
        out["method"] = "two-sample Kolmogorov-Smirnov (scipy.stats.ks_2samp)"
        if not out["reason"]:
            out["estimate"], out["pvalue"] = _ks(sa, ca, sb, cb, KS_ALTERNATIVE[alternative])
            out["statistic"] = out["estimate"]
    elif metric == "mann_whitney":
        out["method"] = "Mann-Whitney U (scipy.stats.mannwhitneyu); estimate U / (n n_ref), DeLong interval"
        if not out["reason"]:
            grid = np.union1d(sa, sb)
            wa = np.bincount(np.searchsorted(grid, sa), weights=ca, minlength=grid.size)
            wb = np.bincount(np.searchsorted(grid, sb), weights=cb, minlength=grid.size)
            auc, var = delong(wa, wb)
            u, p = _mann_whitney(sa, ca, sb, cb, alternative)
            se = float(np.sqrt(var))
            out.update(estimate=auc, statistic=u, pvalue=p, ci_low=auc - z_ci * se, ci_high=auc + z_ci * se)
    else:
        out["method"] = "Welch two-sample t on mean scores (scipy.stats.ttest_ind_from_stats)"
        if not out["reason"]:
            ma, sda, _ = _moments(sa, ca)
            mb, sdb, _ = _moments(sb, cb)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                res = stats.ttest_ind_from_stats(ma, sda, na, mb, sdb, nb, equal_var=False,
                                                 alternative=alternative)
            va, vb = sda**2 / na, sdb**2 / nb
            se = float(np.sqrt(va + vb))
            estimate = ma - mb
            out["estimate"] = estimate
            if not (np.isfinite(res.pvalue) and se > 0):
                out["reason"] = "Welch t undefined (zero spread in both groups)"
            else:
                df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
                t_ci = float(stats.t.ppf(0.5 + confidence_level / 2, df))
                # the TOST of the means: Welch's standard error, large-sample normal (z_equivalence)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    eq = z_equivalence(estimate, se, margin=margin, alpha=alpha, power=power,
                                       alternative=alternative)
                out.update(statistic=float(res.statistic), pvalue=float(res.pvalue),
                           ci_low=estimate - t_ci * se, ci_high=estimate + t_ci * se,
                           mde=eq.mde,
                           equivalence_pvalue=eq.pvalue)
    return out
