"""The report's methods section: each test the audit runs, what it computes, its assumptions, its reference.

Plain text (the templates escape it), kept apart from the report's layout (:mod:`fairstats.auditing.report`).
"""

from __future__ import annotations

from fairstats.auditing.tables import SMALL

__all__ = ["methods"]


def methods(audit) -> list[dict]:
    """The methods section: each test the audit ran, what it assumes and where it comes from."""
    options = audit.options
    out = [
        {"name": "Equal confusion test", "what": "Pearson's chi-squared test of the grouping x confusion "
         "cell table (scipy.stats.chi2_contingency, no continuity correction); Monte Carlo permutation "
         "p-value when expected counts are small.",
         "assumes": "People are independent; expected counts of at least 5 in most cells (Cochran), else "
         "the permutation p-value is the one to read.",
         "reference": "Paper A (equal confusion test); Agresti, Categorical Data Analysis, 3rd ed. (2013), "
         "Sec. 3.2."},
        {"name": "Adjusted residuals", "what": "Haberman's adjusted standardized residuals of each cell "
         "(statsmodels Table.standardized_resids), flagged past the Bonferroni cut-off for the number of "
         "cells.",
         "assumes": "As the chi-squared test; approximately standard normal under equal groups.",
         "reference": "Haberman, Biometrics 29 (1973) 205-220; Agresti (2013) Sec. 2.4.5."},
        {"name": "Cramér's V and its interval", "what": "V, its bias-corrected estimate and a confidence "
         "interval by inverting the noncentral chi-squared distribution; Wellek's equivalence test for "
         f"V < {options.margin_v:g}.",
         "assumes": "As the chi-squared test.",
         "reference": "Smithson, Confidence Intervals (2003); Bergsma, J. Korean Stat. Soc. 42 (2013); "
         "Wellek, Testing Statistical Hypotheses of Equivalence (2010)."},
    ]
    if options.fold is None:
        out.append(
            {"name": "Outcome disparities", "what": "Each group's rate minus its reference group's "
             "(paper B's fairness definitions): score test of two independent proportions (statsmodels "
             "test_proportions_2indep, method='score') with the Miettinen-Nurminen score interval that "
             "inverts it; the FN/FP ratio and mean scores: a BCa bootstrap interval "
             f"({options.n_resamples} resamples within each group, seed {options.seed}).",
             "assumes": "People are independent (out-of-fold predictions only approximately); a rate test "
             "needs 5 expected cases and non-cases per group under the pooled rate, a test of mean scores "
             "20 people per group and class, else its verdict is undefined with the reason; bootstrap "
             f"intervals with fewer than {SMALL} cases in a denominator are unreliable.",
             "reference": "Paper B; Miettinen and Nurminen, Stat. Med. 4 (1985) 213-226; Efron, JASA 82 "
             "(1987) 171-185."}
        )
    else:
        out.append(
            {"name": "Outcome disparities over folds", "what": "Per-fold differences of each group's rate "
             "from its reference group's, tested with the corrected resampled t.",
             "assumes": "The folds' test sets are disjoint; the models share training data, which the "
             "correction allows for.",
             "reference": "Nadeau and Bengio, Machine Learning 52 (2003) 239-281."}
        )
    out += [
        {"name": "Multiple testing", "what": "Holm's step-down adjustment over all comparisons (family-wise "
         "error); Benjamini-Hochberg (false discovery rate) in tests.csv.",
         "assumes": "Holm: none beyond valid p-values; BH: independence or positive dependence.",
         "reference": "Holm, Scand. J. Stat. 6 (1979) 65-70; Benjamini and Hochberg, JRSS B 57 (1995) "
         "289-300."},
        {"name": "Three-way verdicts", "what": "Disparity (difference test significant after Holm), "
         f"equivalent (two one-sided tests show the difference inside the margin, {options.margin_text}, "
         "also after Holm), inconclusive, or undefined; MDE: the smallest difference detected with 80% "
         "power.",
         "assumes": "As the difference test.",
         "reference": "Schuirmann, J. Pharmacokinet. Biopharm. 15 (1987) 657-680; Hsu et al., Biometrika "
         "81 (1994) 103-114."},
    ]
    return out
