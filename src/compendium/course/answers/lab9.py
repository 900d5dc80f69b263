"""Lab 9, intersections: answers and common wrong answers.

The data: COMPAS violent file, ProPublica's filter (preset propublica_violent, 4,020 people); the attributes
sex, race and age_cat; the subgroup search of fpr with max_depth 3 and min_size 30.
"""

from __future__ import annotations

import functools
import warnings

from compendium.course.checks import Choice, Number, Wrong
from compendium.course.data import compas_preset

DATA = "preset propublica_violent (4,020 people), attributes sex, race, age_cat"
ATTRIBUTES = ["sex", "race", "age_cat"]


@functools.cache
def _search(n_resamples: int, seed: int):
    import fairstats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fairstats.UndefinedTestWarning)
        return fairstats.subgroup_search(compas_preset("propublica_violent"), group=ATTRIBUTES,
                                         y_true="y_true", y_pred="y_pred", metrics=["fpr"], max_depth=3,
                                         min_size=30, alpha=0.05, n_resamples=n_resamples, rng=seed)


def _permutation_times_m(n_resamples: int, seed: int) -> float:
    """The misconception of 9.5: the search's *permutation* p of race = Other times the number of tests."""
    search = _search(n_resamples, seed)
    row = search.table.set_index("subgroup").loc["race = Other"]
    return min(1.0, search.n_tests * float(row["pvalue"]))


ANSWERS = {
    "9.1": Number(
        11, hint="compas.groupby(['sex', 'race', 'age_cat']).size() lists the intersections with people; "
                 "count those below MIN_SIZE",
        source=f"{DATA}: 30 of 36 intersections have people, 11 of them fewer than 30",
        wrong=(
            Wrong(17,
                  "that counts the 6 empty intersections too: the question asks for those with at least one "
                  "person",
                  why="11 + 6 empty"),
            Wrong(19, "that counts the intersections with at least 30 people", why="30 - 11"),
            Wrong(2, "that counts those with fewer than 5 people; the limit is MIN_SIZE = 30", why="< 5"),
            Wrong(30, "that is every intersection with people; keep those below MIN_SIZE", why="all present"),
        ),
    ),
    "9.2": Number(
        0.4166666666666667,
        hint="chi2_contingency(observed).expected_freq is the 30 x 4 table of expected counts: the mean of "
             "(expected < 5)",
        source=f"scipy.stats.chi2_contingency on the intersection x (TP, FN, FP, TN) table of the {DATA}: 50 "
               "of 120",
        wrong=(
            Wrong(0.475,
                  "that is the observed counts: Cochran's rule is about the *expected* counts",
                  why="(observed < 5).mean()"),
            Wrong(0.5833333333333334, "that is the share of expected counts *at least* 5", why="1 - answer"),
            Wrong(0.18333333333333332, "that is the share below 1; the question asks below 5", why="< 1"),
            Wrong(0.3472222222222222,
                  "that divides by 144, counting the 6 empty intersections: they are not rows of the table",
                  why="50 / 144"),
        ),
    ),
    "9.3": Choice(
        "a",
        {"b": "the approximation is about the expected count of each cell, not the total: most are below 5 "
              "here",
         "c": "an exclusion nobody reports changes the question without saying so",
         "d": "merging unrelated people into 'other' compares a new, mixed group"},
        source="Cochran's rule; fairstats.equal_confusion_test (SmallExpectedCountWarning, permutation p); "
               "fairstats.subgroup_search (min_size, Westfall-Young)",
    ),
    "9.4": Number(
        54, hint="for every set of 1, 2 or 3 attributes (itertools.combinations), groupby(...).size(); keep "
                 "the combinations with >= MIN_SIZE inside and >= MIN_SIZE outside (4,020 minus the size)",
        source=f"{DATA}: 9 subgroups of one value, 26 of two, 19 of three; fairstats.subgroup_search "
               "n_subgroups",
        wrong=(
            Wrong(75,
                  "that counts every combination with people: keep those with at least MIN_SIZE inside and "
                  "outside",
                  why="no size limit"),
            Wrong(19,
                  "that counts the subgroups of three values only; the search also compares one and two "
                  "values (sex = Female, ...)",
                  why="depth 3 only"),
            Wrong(35, "that stops at two values: the search goes to three (max_depth=3)", why="depth <= 2"),
        ),
    ),
    "9.5": Number(
        0.1699472587156689,
        hint="p = 2 x scipy.stats.norm.sf(|statistic|) of race = Other; m = search.n_tests; min(1, m p)",
        source=f"fairstats.subgroup_search on the {DATA}: race = Other, z = -2.953, 54 comparisons",
        wrong=(
            Wrong(0.0031471714576975724,
                  "that is the unadjusted p: multiply by the number of comparisons",
                  why="2 norm.sf(|z|)"),
            Wrong(0.09441514373092717,
                  "m is the number of comparisons the search made (search.n_tests), not the number of "
                  "intersections",
                  why="30 p"),
            Wrong(0.08497362935783445,
                  "that is a one-sided p: the search's comparisons are two-sided",
                  why="54 norm.sf(|z|)"),
            Wrong(_permutation_times_m,
                  "that multiplies the permutation p (pvalue): compute the normal p from the z statistic",
                  why="54 x the permutation p"),
        ),
        defaults={"n_resamples": 9999, "seed": 2028},
    ),
    "9.6": Choice(
        "d",
        {"a": "no p-value is the probability that a hypothesis is true or false",
         "b": "that is the unadjusted p (pvalue); pvalue_adjusted accounts for the whole search",
         "c": "a p-value is about one comparison against the search's null, not a share of subgroups"},
        source="Westfall & Young (1993), Algorithm 4.1; fairstats.subgroup_search docstring",
    ),
    "9.7": Number(
        0.4537188242280285,
        hint="(false positives of the cell + 20 p0) / (non-re-offenders of the cell + 20), p0 = everybody's "
             "FPR",
        source=f"{DATA}: (10 + 20 x 761 / 3368) / (12 + 20)",
        wrong=(
            Wrong(0.8333333333333334, "that is the raw rate (10 / 12): shrink it toward p0", why="10 / 12"),
            Wrong(0.2259501187648456,
                  "that is p0, the overall rate: the estimate mixes it with the cell's own",
                  why="761 / 3368"),
            Wrong(0.4399697689483913,
                  "the denominator counts the cell's *non-re-offenders* (12), not all 13 people",
                  why="(10 + 20 p0) / (13 + 20)"),
            Wrong(0.3125, "the prior adds m p0 false positives to the numerator too", why="10 / (12 + 20)"),
        ),
    ),
}
