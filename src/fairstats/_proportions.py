"""Two independent proportions: statsmodels' score test (Miettinen–Nurminen), its interval and its TOST.

The one home of the two-proportion score-test wrapper that the outcome tests (:mod:`fairstats.outcomes`), the
decision-level rates (:mod:`fairstats.levels`) and the equivalence tests (:mod:`fairstats.equivalence`)
share. The statistics are statsmodels' (``test_proportions_2indep``, ``confint_proportions_2indep`` and
``tost_proportions_2indep``, all with ``method="score"``); this module only turns their answers into plain
floats, remembers the test's answers (:mod:`fairstats._memo`: many small groups share the same counts) and,
in :func:`score_test_or_reason`, says why a test is undefined instead of raising.
"""

from __future__ import annotations

import warnings

import numpy as np

from fairstats._memo import remembered

__all__ = ["STATSMODELS_ERRORS", "score_confint", "score_test", "score_test_or_reason", "score_tost"]

#: What statsmodels raises when the score test's root finding or its variance fails (tiny groups, 0 or 1).
STATSMODELS_ERRORS = (ValueError, ZeroDivisionError, FloatingPointError)


@remembered
def score_test(count_a, nobs_a, count_b, nobs_b, alternative) -> tuple[float, float]:
    """Statistic and p-value of statsmodels' ``test_proportions_2indep(method="score", compare="diff")``;
    remembered, as many small groups share the same counts. ``alternative`` is statsmodels' word
    (``"two-sided"``, ``"larger"``, ``"smaller"``)."""
    from statsmodels.stats import proportion as smp

    res = smp.test_proportions_2indep(
        count_a, nobs_a, count_b, nobs_b, method="score", compare="diff", alternative=alternative
    )
    return float(res.statistic), float(res.pvalue)


def score_test_or_reason(
    count_a, nobs_a, count_b, nobs_b, alternative="two-sided"
) -> tuple[float, float, str]:
    """:func:`score_test` with statsmodels' warnings silenced: ``(statistic, pvalue, error)``.

    Both numbers are NaN when the p-value is not finite or statsmodels failed; ``error`` is then
    ``"statsmodels test_proportions_2indep failed: ..."`` (one line), and ``""`` otherwise. The caller has
    checked that both denominators are positive and words the non-finite case for its own table.
    """
    nan = float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            stat, p = score_test(count_a, nobs_a, count_b, nobs_b, alternative)
        except STATSMODELS_ERRORS as err:
            return nan, nan, f"statsmodels test_proportions_2indep failed: {err}".replace("\n", " ")
    if not np.isfinite(p):
        return nan, nan, ""
    return stat, p, ""


def score_confint(count_a, nobs_a, count_b, nobs_b, compare, alpha) -> tuple[float, float]:
    """statsmodels' ``confint_proportions_2indep(method="score")`` as two numbers."""
    from statsmodels.stats import proportion as smp

    low, high = smp.confint_proportions_2indep(
        count_a, nobs_a, count_b, nobs_b, method="score", compare=compare, alpha=alpha
    )
    return float(low), float(high)


def score_tost(count_a, nobs_a, count_b, nobs_b, low, high, compare) -> tuple[float, float, float]:
    """statsmodels' ``tost_proportions_2indep(method="score")``: (p against low, p against high, p)."""
    from statsmodels.stats import proportion as smp

    res = smp.tost_proportions_2indep(
        count_a, nobs_a, count_b, nobs_b, low, high, method="score", compare=compare
    )
    return float(res.results_larger.pvalue), float(res.results_smaller.pvalue), float(res.pvalue)
