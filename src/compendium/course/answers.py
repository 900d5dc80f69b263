"""The expected answer of every exercise of the course, each with where it comes from.

Numbers are kept at full precision (never rounded) and checked with the tolerance given beside them; a change
in the data or in the library that moves an answer makes the instructor notebooks' test fail
(``tests/compendium/workflow/test_course_labs.py``), and ``tests/compendium/test_course.py`` compares the
data-derived ones with the compendium's committed result tables where those hold the same number. Simulated
shares (:class:`~compendium.course.checks.Proportion`) are the full-size instructor run's estimates (seed
2028); their tolerance follows the student's own number of simulated data sets.

A student who opens this file sees the answers: the checks are for learning, not for grading (the guide,
``docs/course.md``, has the assessment ideas).
"""

from __future__ import annotations

from compendium.course.checks import Choice, Number, Proportion

__all__ = ["ANSWERS"]

_COMPAS = "COMPAS violent file, ProPublica filter (preset propublica_violent, 4,020 people)"
_PAPER_A = "results/default/compas/propublica_violent/tables"
_AUTHORS = "the authors' per-fold results of paper B (data/raw/paper-b-authors), compendium.paper_b.authors"
_CHOICE = "the lab's reasoning, from the numbers computed above it (docs/course.md gives the argument)"

ANSWERS: dict[str, Number | Proportion | Choice] = {
    # ------------------------------------------------------------------ lab 1: what a confusion table hides
    "1.1": Number(468, atol=0, rtol=0,
                  hint="a false positive has y_pred == 1 and y_true == 0; count African-American rows only",
                  source=f"{_COMPAS}; {_PAPER_A}/race_observed.csv, row African-American, column FP"),
    "1.2": Number(214.7982262967671,
                  hint="chi2_contingency on the 6 x 4 table of counts (races x TP, FN, FP, TN): .statistic",
                  source=f"scipy.stats.chi2_contingency; {_PAPER_A}/equal_confusion_tests.csv, race, "
                         "statistic"),
    "1.3": Number(0.13345710247264955,
                  hint="association(table, method='cramer') on the same table of counts",
                  source=f"scipy.stats.contingency.association; {_PAPER_A}/equal_confusion_tests.csv, race, "
                         "cramers_v"),
    "1.4": Number(-13.084738018873582,
                  hint="O - E over sqrt(E (1 - row total / n) (1 - column total / n)); "
                       "E = row total x column total / n",
                  source=f"Agresti (2013) Sec. 2.4.5; {_PAPER_A}/race_residuals.csv, African-American, TN"),
    "1.5": Choice("a", {"b": "small groups have small residuals here: look at |r|, not at the row",
                        "c": "look at the FN column's residuals: are any beyond the cut-offs?",
                        "d": "compare the residuals: some are beyond 8 in absolute value, others below 1"},
                  source=f"{_PAPER_A}/race_residuals.csv (|r| > 3.29 only in TP, FP, TN)"),
    "1.6": Choice("b", {"a": "read result.cochran_ok and the warnings list printed above",
                        "c": "result.observed still has every race: nothing was dropped",
                        "d": "the result has a statistic and p-values: the table was tested"},
                  source="fairstats.equal_confusion_test: cochran_ok False, SmallExpectedCountWarning, "
                         "pvalue_permutation reported"),
    # ------------------------------------------------------------ lab 2: change the filter, change the
    # verdict
    "2.1": Number(455, atol=0, rtol=0,
                  hint="the report row of the day-window condition, rows_removed (not the missing dates)",
                  source="compendium.data.compas.filter_compas report; "
                         f"{_PAPER_A}/filter_report.csv, row |days_b_screening_arrest| > 30"),
    "2.2": Number(922, atol=0, rtol=0,
                  hint="filter the violent file again with day_window=0, every other option as ProPublica's",
                  source="compendium.data.compas.filter_compas(day_window=0, exclude_charge_degrees=['O'], "
                         "outcome='violent')"),
    "2.3": Number(0.19588061775501744,
                  hint="the cramers_v of the row (violent_high_only, age_cat) in the verdicts table",
                  source="fairstats.equal_confusion_test(group='age_cat') on preset violent_high_only"),
    "2.4": Choice("a", {"b": "compare the effect_size column of age across the settings",
                        "c": "compare the n and statistic columns across the settings",
                        "d": "look at the race rows of violent_high_only: reject?"},
                  source="the lab's verdicts table: every row rejects at 0.01"),
    "2.5": Choice("b", {"a": "compare the age rows of the two day windows with propublica_violent",
                        "c": "violent_high_only uses the violent file too: what else differs?",
                        "d": "the effect size does not depend on the permutations"},
                  source="the lab's verdicts table: age is 'large' under every day window, 'medium' under "
                         "violent_high_only"),
    # ----------------------------------------------------------------------- lab 3: folds are not independent
    "3.1": Proportion(0.20333333333333334,
                      hint="the share of data sets whose significant_paired is True (a bool column's mean)",
                      source="instructor run of lab 3, 300 data sets, k = 10, seed 2028"),
    "3.2": Proportion(0.56,
                      hint="the mean of the paper_formula column of null_verdicts",
                      source="instructor run of lab 3, 300 data sets, k = 10, seed 2028"),
    "3.3": Proportion(0.08,
                      hint="the mean of the corrected column of null_verdicts",
                      source="instructor run of lab 3, 300 data sets, k = 10, seed 2028"),
    "3.4": Choice("a", {"b": "in k-fold cross-validation each person is in exactly one test fold",
                        "c": "the group labels were shuffled: can a model be biased against a random label?",
                        "d": "a z-test has thinner tails than the t: would it reject less often?"},
                  source="Nadeau & Bengio (2003), Machine Learning 52:239-281, Sec. 4"),
    "3.5": Number(2.7763245098538407,
                  hint="fold_ttest(White values, Black values, alternative='greater') of model lr; "
                       ".statistic_corrected",
                  source=f"{_AUTHORS}; results/default/nij/clean/tables/paper_b_erratum.csv, Table II, LR "
                         "(corrected t 2.776)"),
    "3.6": Choice("a", {"b": "look at the significant_corrected column",
                        "c": "look at the significant_corrected column for every model",
                        "d": "the per-fold values are enough for the corrected t"},
                  source="results/default/inference/nij/authors/tables/verdicts.csv, Table II"),
    # ------------------------------------------------------------------ lab 4: many tests, few discoveries
    "4.1": Number(18, atol=0, rtol=0, hint="compare pvalue_corrected with the row's alpha and count",
                  source=f"{_AUTHORS}, authors_battery(alpha=0.05)"),
    "4.2": Number(11, atol=0, rtol=0,
                  hint="multipletests(pvalues, alpha=alpha, method='holm')[0] is the reject mask",
                  source=f"{_AUTHORS}; statsmodels multipletests(method='holm')"),
    "4.3": Number(17, atol=0, rtol=0, hint="multipletests(pvalues, alpha=alpha, method='fdr_bh')[0]",
                  source=f"{_AUTHORS}; statsmodels multipletests(method='fdr_bh')"),
    "4.4": Choice("a", {"b": "which of the two is a statement about *any* false flag?",
                        "c": "FDR is an average share among the flags, FWER a probability of at least one",
                        "d": "each test is valid alone; the question is about 40 of them together"},
                  source="Holm (1979); Benjamini & Hochberg (1995)"),
    "4.5": Proportion(0.74, hint="the share of rows of null_min whose min_p is below alpha",
                      source="instructor run of lab 4, 200 data sets, 199 permutations, seed 2028"),
    "4.6": Proportion(0.06, hint="the share of rows of null_min whose min_p_adjusted is below alpha",
                      source="instructor run of lab 4, 200 data sets, 199 permutations, seed 2028"),
    # ----------------------------------------------------------------- lab 5: how many people do you need?
    # 5.1: the exact detectable h (issue 37); statsmodels' solve_power per size gave 0.04024389265879655
    "5.1": Number(0.04024401246925116,
                  hint="nobs: non-re-offenders of each group; rate_b: the Caucasian count_b / nobs_b",
                  source=f"fairstats.mde_rate_difference on {_COMPAS}, African-American vs Caucasian"),
    "5.2": Choice("d", {"a": "'not significant' is never a finding of no disparity",
                        "b": "is the small audit's difference test significant at alpha? read its pvalue",
                        "c": "equivalence needs the whole interval inside the margin: is it?"},
                  source="fairstats.three_way_verdicts on the lab's seeded subsample (200 people, seed "
                         "2028): "
                         "inconclusive"),
    "5.3": Proportion(0.652,
                      hint="count the subsamples with p < alpha and divide by n_subsamples (all of them)",
                      source="instructor run of lab 5, 1,000 subsamples of 200, seed 2028"),
    "5.4": Number(920, atol=0, rtol=0,
                  hint="the smallest m with mde_rate_difference(m, m, rate) <= 0.05; it decreases with m",
                  source="fairstats.mde_rate_difference, rate = the Caucasian FPR of the full data"),
    "5.5": Choice("b", {"a": "a non-significant difference test is not evidence of equality",
                        "c": "p = 0.4: the data are compatible with no difference too",
                        "d": "equivalence is shown by the equivalence test, not by a large p"},
                  source="fairstats.three_way_verdicts (docs/methods: equivalence and the MDE)"),
    # ---------------------------------------------------------------------- lab 6: reading a paper critically
    "6.1": Number(11.18157257834444, rtol=1e-6,
                  hint="printed 31.76 divided by scipy.stats.ttest_ind(white, black).statistic",
                  source="paper B Table II (data/published/paper-b-tables.csv) and "
                         f"{_AUTHORS}; erratum: results/default/nij/clean/tables/paper_b_erratum.csv"),
    "6.2": Choice("a", {"b": "with the variance the factor would vary with the spread of the data",
                        "c": "the paired t of these data is 3.93, not 31.76",
                        "d": "degrees of freedom change the p-value, not the statistic"},
                  source="compendium.paper_b.as_published.fold_ttest_as_published Notes: "
                         "t_paper = sqrt(K/2) t_pooled"),
    "6.3": Number(31.75649868021885, rtol=1e-6,
                  hint="(mean W - mean B) / (s_p (1/K + 1/K)), s_p from the two variances with ddof=1",
                  source="paper B Table II prints 31.76; fold_ttest_as_published statistic_paper_formula"),
    "6.4": Number(1.4142135623730951, rtol=1e-3,
                  hint="V = np.cov(np.vstack([x, y]), rowvar=False); d = sqrt(e @ pinv(V) @ e), e = x - y",
                  source="compendium.paper_b.authors_awareness (d^2 = 2 for every pair of distinct vectors)"),
    "6.5": Choice("b", {"a": "print the distances of all the pairs: do they differ?",
                        "c": "the distance of every pair is the same, whoever is in it",
                        "d": "would standardising the features change a distance that is the same for all?"},
                  source="compendium.paper_b.authors_awareness docstring: V is rank one, d = sqrt(2)"),
}
