"""Lab 5, how many people do you need? Answers and common wrong answers."""

from __future__ import annotations

from compendium.course.checks import Choice, Number, Proportion, Runs, Wrong

COMPAS = "COMPAS violent file, ProPublica filter (preset propublica_violent, 4,020 people)"
_MDE = "fairstats.mde_rate_difference"

#: The power simulation of part 3: subsamples (of n) whose FPR difference test has p < alpha.
POWER_RUNS = Runs(
    settings=("n", "seed", "size", "alpha"),
    counts={
        (1000, 2028, 200, 0.05): {"significant": 652},
        (40, 2028, 200, 0.05): {"significant": 24},
    },
    source="instructor version of notebooks/course/lab5_power.py at n_subsamples = 1000 (the lab's) and 40 "
           "(make test's), seed 2028, subsample_size 200, alpha 0.05: hits",
)

ANSWERS = {
    "5.1": Number(  # the exact detectable h (issue 37); statsmodels' solve_power gave 0.04024389265879655
        0.04024401246925116,
        hint="nobs: non-re-offenders of each group; rate_b: the Caucasian count_b / nobs_b",
        source=f"{_MDE}(1514, 1285, 198 / 1285) on the {COMPAS}, African-American vs Caucasian",
        wrong=(
            Wrong(0.03671819890507852,
                  "those denominators are all defendants: an FPR is a rate among non-re-offenders (nobs_a, "
                  "nobs_b)",
                  why=f"{_MDE}(1918, 1459, rate)"),
            Wrong(0.05009247762665836,
                  "the reference rate is the Caucasian FPR (count_b / nobs_b), not the African-American one",
                  why=f"{_MDE}(1514, 1285, 468 / 1514)"),
            Wrong(0.04688896684052987, "the exercise asks for power 0.8 (the function's default)",
                  why=f"{_MDE}(..., power=0.9)"),
        ),
    ),
    "5.2": Choice(
        "a",
        {"b": "'not significant' is never a finding of no disparity",
         "c": "is the small audit's difference test significant at alpha? read its pvalue",
         "d": "equivalence needs the whole interval inside the margin: is it?"},
        source="fairstats.three_way_verdicts on the lab's seeded subsample (200 people, seed 2028): "
               "inconclusive",
    ),
    "5.3": Proportion(
        POWER_RUNS, "significant",
        hint="count the subsamples with p < alpha and divide by n_subsamples (all of them)",
        source="the power simulation of lab 5 (POWER_RUNS)",
        wrong=(
            Wrong(0.8,
                  "0.8 is the power the MDE is planned for; the question is how often *these* audits detect "
                  "the disparity: count them"),
            Wrong(0.05,
                  "alpha is the false positive rate when there is no disparity; here there is one: count the "
                  "subsamples that detect it"),
        ),
    ),
    "5.4": Number(
        920, hint="the smallest m with mde_rate_difference(m, m, rate) <= 0.05; the MDE decreases with m",
        source=f"{_MDE}, rate = the Caucasian FPR of the full data (198 / 1285)",
        wrong=(
            Wrong(1396,
                  "the reference rate is the Caucasian FPR, not the African-American one",
                  why="rate = 468 / 1514"),
            Wrong(1231, "the exercise asks for power 0.8", why="power = 0.9"),
            Wrong(1215,
                  "the reference rate is the Caucasian FPR, not the FPR of both groups together",
                  why="rate = 666 / 2799"),
        ),
    ),
    "5.5": Choice(
        "c",
        {"a": "a non-significant difference test is not evidence of equality",
         "b": "p = 0.4: the data are compatible with no difference too",
         "d": "equivalence is shown by the equivalence test, not by a large p"},
        source="fairstats.three_way_verdicts (docs/methods: equivalence and the MDE)",
    ),
}
