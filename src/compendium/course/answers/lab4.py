"""Lab 4, many tests, few discoveries: answers and common wrong answers.

Exercises 4.1 to 4.3 count tests of paper B's battery (the authors' per-fold values through the corrected t,
as the lab computes it with :func:`compendium.paper_b.authors.authors_battery`) at the levels the lab passes,
counted when the check runs from the workflow's committed table of the same 40 p-values,
``results/default/inference/nij/authors/tables/battery_adjusted.csv`` (the course reads the papers' results,
never their code; ``tests/compendium/test_course.py`` checks that the table holds the lab's p-values, and the
counts at the defaults, alpha 0.05 and family_alpha 0.10: 18, 15 and 20 tests).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from compendium.course.checks import Choice, Number, Proportion, Runs, Share, Wrong
from compendium.course.paths import repository_path

AUTHORS = "the authors' per-fold results of paper B (data/raw/paper-b-authors), compendium.paper_b.authors"


#: The battery's corrected p-values and levels (at alpha 0.05; two-metric definitions at 0.025), as the
#: workflow's rule adjust_battery wrote them.
BATTERY = "results/default/inference/nij/authors/tables/battery_adjusted.csv"


@functools.cache
def _battery(alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The 40 corrected p-values and each test's level at ``alpha`` (alpha, or alpha / 2 for two metrics)."""
    table = pd.read_csv(repository_path(BATTERY))
    table = table[table["pvalue_corrected"].notna()]
    return table["pvalue_corrected"].to_numpy(float), table["alpha"].to_numpy(float) * alpha / 0.05


def _adjusted(method: str, level: float) -> int:
    """Tests significant after ``method`` over the 40 corrected p-values at ``level`` (battery of alpha "
      "0.05)."""
    return int(multipletests(_battery(0.05)[0], alpha=level, method=method)[0].sum())


def _unadjusted(level: float) -> int:
    """Tests whose corrected p-value is below ``level``, every row alike."""
    return int((_battery(0.05)[0] < level).sum())


def _significant(alpha: float) -> int:
    """Tests whose corrected p-value is below the row's own level (alpha, or alpha / 2 for two metrics)."""
    pvalues, levels = _battery(alpha)
    return int((pvalues < levels).sum())


#: The subgroup-search null simulation of part 2: data sets (of n) whose smallest p is below alpha.
NULL_RUNS = Runs(
    settings=("n", "seed", "n_resamples", "alpha"),
    counts={
        (200, 2028, 199, 0.05): {"min_p": 148, "min_p_adjusted": 12},
        (6, 2028, 39, 0.05): {"min_p": 3, "min_p_adjusted": 0},
    },
    source="instructor version of notebooks/course/lab4_multiplicity.py at n_null = 200, n_null_resamples = "
           "199 (the lab's) and 6, 39 (make test's), seed 2028, alpha = 0.05: (null_min < alpha) summed",
)

ANSWERS = {
    "4.1": Number(
        _significant,
        hint="compare pvalue_corrected with the row's own alpha column and count",
        source=f"{AUTHORS}, authors_battery(alpha); 18 at alpha = 0.05",
        wrong=(
            Wrong(lambda alpha: _unadjusted(alpha),
                  "every row at alpha: the two-metric definitions (equalized odds, conditional use accuracy) "
                  "test each metric at alpha / 2, as the row's alpha column says",
                  why="pvalue_corrected < alpha for every row"),
            Wrong(lambda alpha: 40 - _significant(alpha),
                  "that counts the tests that are *not* significant",
                  why="40 minus the answer"),
        ),
        defaults={"alpha": 0.05},
    ),
    "4.2": Number(
        lambda family_alpha: _adjusted("holm", family_alpha),
        hint="multipletests(pvalues, alpha=family_alpha, method='holm')[0] is the reject mask: count it",
        source=f"{AUTHORS}; statsmodels multipletests(method='holm'); 15 at family_alpha = 0.10",
        wrong=(
            Wrong(lambda family_alpha: _adjusted("bonferroni", family_alpha),
                  "that is Bonferroni (every p against family_alpha / 40), or Holm at 0.05: Holm compares "
                  "the smallest p with family_alpha / 40, the next with family_alpha / 39, and so on",
                  why="multipletests(method='bonferroni')"),
            Wrong(lambda family_alpha: _adjusted("fdr_bh", family_alpha),
                  "that is Benjamini-Hochberg, which controls the false discovery rate: use method='holm'",
                  why="multipletests(method='fdr_bh')"),
            Wrong(lambda family_alpha: _unadjusted(family_alpha),
                  "that counts the unadjusted p-values below family_alpha: adjust them first",
                  why="pvalue_corrected < family_alpha"),
        ),
        defaults={"family_alpha": 0.10},
    ),
    "4.3": Number(
        lambda family_alpha: _adjusted("fdr_bh", family_alpha),
        hint="multipletests(pvalues, alpha=family_alpha, method='fdr_bh')[0]",
        source=f"{AUTHORS}; statsmodels multipletests(method='fdr_bh'); 20 at family_alpha = 0.10",
        wrong=(
            Wrong(lambda family_alpha: _adjusted("holm", family_alpha),
                  "that is Holm's count (exercise 4.2): BH, the more liberal, flags at least as many",
                  why="multipletests(method='holm')"),
            Wrong(lambda: _adjusted("fdr_bh", 0.05),
                  "that is BH at 0.05: the auditor's level is family_alpha",
                  why="multipletests(alpha=0.05, method='fdr_bh')"),
            Wrong(lambda family_alpha: _unadjusted(family_alpha),
                  "that counts the unadjusted p-values below family_alpha: adjust them first",
                  why="pvalue_corrected < family_alpha"),
        ),
        defaults={"family_alpha": 0.10},
    ),
    "4.4": Choice(
        "d",
        {"a": "which of the two is a statement about *any* false flag?",
         "b": "FDR is an average share among the flags, FWER a probability of at least one",
         "c": "each test is valid alone; the question is about 40 of them together"},
        source="Holm (1979); Benjamini & Hochberg (1995)",
    ),
    "4.5": Proportion(
        NULL_RUNS, "min_p",
        hint="the share of rows of null_min whose min_p is below alpha",
        source="the subgroup-search null simulation of lab 4 (NULL_RUNS)",
        wrong=(
            Wrong(0.05,
                  "that is the rate of *one* comparison: the question is about the smallest of them all"),
            Wrong(Share("min_p_adjusted"), "that is the adjusted column (exercise 4.6): use min_p"),
        ),
    ),
    "4.6": Proportion(
        NULL_RUNS, "min_p_adjusted",
        hint="the share of rows of null_min whose min_p_adjusted is below alpha",
        source="the subgroup-search null simulation of lab 4 (NULL_RUNS)",
        wrong=(
            Wrong(0,
                  "the adjustment keeps the family-wise error rate near alpha, not at 0: count the data sets "
                  "whose smallest adjusted p is below alpha"),
            Wrong(0.05,
                  "alpha is what the method promises on average; the question is what happened in these data "
                  "sets: count them"),
            Wrong(Share("min_p"), "that is the unadjusted column (exercise 4.5): use min_p_adjusted"),
        ),
    ),
}
