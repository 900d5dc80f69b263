"""Lab 1, what a confusion table hides: answers and common wrong answers."""

from __future__ import annotations

from compendium.course.checks import Choice, Number, Wrong

COMPAS = "COMPAS violent file, ProPublica filter (preset propublica_violent, 4,020 people)"
PAPER_A = "results/default/compas/propublica_violent/tables"
_TABLE = f"the race x (TP, FN, FP, TN) table of the {COMPAS}"

ANSWERS = {
    "1.1": Number(
        468, hint="a false positive has y_pred == 1 and y_true == 0; count African-American rows only",
        source=f"{COMPAS}; {PAPER_A}/race_observed.csv, row African-American, column FP",
        wrong=(
            Wrong(154,
                  "that is the FN cell: y_pred and y_true swapped? FP means predicted 1, truly 0",
                  why="African-American FN (y_pred 0, y_true 1)"),
            Wrong(1046,
                  "that is the TN cell: a false positive was *predicted* positive (y_pred == 1)",
                  why="African-American TN"),
            Wrong(761,
                  "that counts the false positives of every race: keep the African-American row only",
                  why="FP of all races"),
            Wrong(250,
                  "that is the TP cell: a false positive did *not* re-offend (y_true == 0)",
                  why="African-American TP"),
        ),
    ),
    "1.2": Number(
        214.7982262967671,
        hint="chi2_contingency on the 6 x 4 table of counts (races x TP, FN, FP, TN): .statistic",
        source=f"scipy.stats.chi2_contingency on {_TABLE}; {PAPER_A}/equal_confusion_tests.csv, race, "
               "statistic",
        wrong=(
            Wrong(71.51721885047257,
                  "that is a 2 x 2 table (African-American or not x FP or not): test the whole race x cell "
                  "table",
                  why="chi2_contingency(crosstab(race == African-American, cell == FP), correction=False)"),
            Wrong(168.48480354316575,
                  "that is the African-American and Caucasian rows only: keep every race in the table",
                  why="chi2_contingency of the 2 x 4 table of the two largest groups"),
            Wrong(2.0576491182894414e-37,
                  "that is the p-value: the exercise asks for the statistic",
                  why="chi2_contingency(...).pvalue"),
        ),
    ),
    "1.3": Number(
        0.13345710247264955,
        hint="association(table, method='cramer') on the same 6 x 4 table of counts",
        source=f"scipy.stats.contingency.association on {_TABLE}; {PAPER_A}/equal_confusion_tests.csv, race, "
               "cramers_v",
        wrong=(
            Wrong(0.23115448211355505,
                  "that is sqrt(chi2 / n), the phi coefficient: Cramér's V also divides by min(rows, "
                  "columns) - 1",
                  why="sqrt(chi2 / n)"),
            Wrong(0.11557724105677752,
                  "you divided by min(rows, columns); Cramér's V divides by min(rows, columns) - 1",
                  why="sqrt(chi2 / (n min(r, c)))"),
        ),
    ),
    "1.4": Number(
        -13.084738018873582,
        hint="O - E over sqrt(E (1 - row total / n) (1 - column total / n)); E = row total x column total / "
             "n",
        source=f"Agresti (2013) Sec. 2.4.5; {PAPER_A}/race_residuals.csv, African-American, TN",
        wrong=(
            Wrong(-5.6095292297323205,
                  "that is the Pearson residual (O - E) / sqrt(E): the adjusted residual also divides by "
                  "sqrt((1 - row share)(1 - column share))",
                  why="(O - E) / sqrt(E)"),
            Wrong(13.084738018873582,
                  "the sign: a residual is observed minus expected (O - E)",
                  why="(E - O) / ..."),
            Wrong(-7.757523253081958,
                  "the column factor is missing: the adjustment is sqrt(E (1 - row share) (1 - column "
                  "share))",
                  why="without the column factor"),
            Wrong(-9.461682290298082,
                  "the row factor is missing: the adjustment is sqrt(E (1 - row share) (1 - column share))",
                  why="without the row factor"),
        ),
    ),
    "1.5": Choice(
        "c",
        {"a": "the FN column has no residual beyond 1.5 in absolute value: look at |r| cell by cell",
         "b": "small groups have small residuals here: look at |r|, not at the size of the row",
         "d": "compare the residuals: some are beyond 8 in absolute value, others below 1"},
        source=f"{PAPER_A}/race_residuals.csv (|r| > 3.29 only in TP, FP, TN)",
    ),
    "1.6": Choice(
        "b",
        {"a": "read result.cochran_ok and the warnings printed above",
         "c": "result.observed still has every race: nothing was dropped",
         "d": "the result has a statistic and p-values: the table was tested"},
        source="fairstats.equal_confusion_test: cochran_ok False, SmallExpectedCountWarning, "
               "pvalue_permutation reported",
    ),
}
