"""Lab 3, folds are not independent: answers and common wrong answers."""

from __future__ import annotations

from compendium.course.checks import Choice, Number, Proportion, Runs, Share, Wrong

AUTHORS = "the authors' per-fold results of paper B (data/raw/paper-b-authors), compendium.paper_b.authors"

#: The null simulation of part 1: data sets (of n) in which each test is significant, per setting.
NULL_RUNS = Runs(
    settings=("n", "seed", "k", "alpha"),
    counts={
        (300, 2028, 10, 0.05): {"paper_formula": 168, "pooled": 64, "paired": 61, "corrected": 24},
        (8, 2028, 10, 0.05): {"paper_formula": 6, "pooled": 1, "paired": 1, "corrected": 1},
    },
    source="instructor version of notebooks/course/lab3_folds.py at n_datasets = 300 (the lab's) and 8 "
           "(make test's, compendium.course.labs), seed 2028, k = 10, alpha = 0.05: null_verdicts summed",
)
_ALPHA = ("that is the nominal level alpha: the question is how often the test *actually* rejects when there "
          "is no disparity; count the data sets where it does")

ANSWERS = {
    "3.1": Proportion(
        NULL_RUNS, "paired",
        hint="the share of data sets whose significant_paired is True (a bool column's mean), over all "
             "n_datasets data sets drawn from one generator",
        source="the null simulation of lab 3 (NULL_RUNS)",
        wrong=(
            Wrong(0.05, _ALPHA),
            Wrong(Share("pooled"),
                  "that is the pooled two-sample t's column; the question asks for the paired t"),
            Wrong(Share("paper_formula"),
                  "that is paper B's formula's column; the question asks for the paired t"),
            Wrong(Share("corrected"), "that is the corrected t's column; the question asks for the paired t"),
        ),
    ),
    "3.2": Proportion(
        NULL_RUNS, "paper_formula",
        hint="the mean of the paper_formula column of null_verdicts",
        source="the null simulation of lab 3 (NULL_RUNS)",
        wrong=(
            Wrong(0.05, _ALPHA),
            Wrong(Share("paired"), "that is the paired t's column (exercise 3.1); use paper_formula"),
            Wrong(Share("pooled"), "that is the pooled t's column; use paper_formula"),
        ),
    ),
    "3.3": Proportion(
        NULL_RUNS, "corrected",
        hint="the mean of the corrected column of null_verdicts",
        source="the null simulation of lab 3 (NULL_RUNS)",
        wrong=(
            Wrong(0.05,
                  "the corrected t is not exactly at alpha: its variance inflation is a heuristic; count how "
                  "often it rejects in the simulated data sets"),
            Wrong(Share("paired"), "that is the paired t's column (exercise 3.1); use corrected"),
            Wrong(Share("pooled"), "that is the pooled t's column; use corrected"),
        ),
    ),
    "3.4": Choice(
        "b",
        {"a": "in k-fold cross-validation each person is in exactly one test fold",
         "c": "the group labels were shuffled: can a model be biased against a random label?",
         "d": "a z-test has thinner tails than the t: would it reject less often?"},
        source="Nadeau & Bengio (2003), Machine Learning 52:239-281, Sec. 4",
    ),
    "3.5": Number(
        2.7763245098538407,
        hint="fold_ttest(White values, Black values, alternative='greater') of model lr; "
             ".statistic_corrected",
        source=f"{AUTHORS}; results/default/nij/clean/tables/paper_b_erratum.csv, Table II, LR (corrected t "
               "2.776)",
        wrong=(
            Wrong(3.9302558825224962,
                  "that is the paired t (statistic_paired): the corrected t also inflates the variance for "
                  "the folds' shared training data",
                  why="statistic_paired"),
            Wrong(2.840387591054069,
                  "that is the pooled two-sample t (statistic_pooled), which treats the 500 values as "
                  "independent: use statistic_corrected",
                  why="statistic_pooled"),
            Wrong(31.75649868021885,
                  "that is paper B's printed formula (lab 6 finds its mistake): use fairstats.fold_ttest's "
                  "statistic_corrected",
                  why="fold_ttest_as_published(...).statistic_paper_formula"),
            Wrong(-2.7763245098538407,
                  "the sign: put White first (the difference is White minus Black)",
                  why="Black first"),
        ),
    ),
    "3.6": Choice(
        "c",
        {"a": "look at the significant_corrected column",
         "b": "look at the significant_corrected column for every model",
         "d": "the per-fold values are enough for the corrected t"},
        source="results/default/inference/nij/authors/tables/verdicts.csv, Table II",
    ),
}
