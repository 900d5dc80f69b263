"""Lab 8, the four-fifths rule and NYC Local Law 144: answers and common wrong answers.

The data: COMPAS violent file, ProPublica's filter (preset propublica_violent, 4,020 people); selected =
rated Low risk. The interval of exercise 8.4 is the library's (the impact ratio's family-level score interval
against the most selected category, a data-chosen reference), computed through ``fairstats.impact_ratios``
when the check runs, so that a change of that interval in the library moves the expected answer with it.
"""

from __future__ import annotations

import functools
import math
import warnings

from compendium.course.checks import Choice, Number, Wrong
from compendium.course.data import compas_preset

DATA = "preset propublica_violent (4,020 people), selected = score_level Low"
_RATES = "African-American 1200 / 1918, Caucasian 1197 / 1459, Asian 22 / 26 (below 2 %)"


#: LL144's three groupings in one call (one multiplicity family).
LL144 = (("sex",), ("race",), ("sex", "race"))


@functools.cache
def _row(groups: tuple, min_share: float | None, alpha: float = 0.05):
    """The African-American row of ``fairstats.impact_ratios`` on the lab's data; ``groups`` is ``("race",)``
    (one grouping) or :data:`LL144`."""
    import fairstats

    compas = compas_preset("propublica_violent")
    compas["low"] = (compas["score_level"] == "Low").astype(int)
    group = "race" if groups == ("race",) else [list(g) for g in groups]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fairstats.ImpactRatioUndefinedWarning)
        table = fairstats.impact_ratios(compas, group=group, y_pred="low", min_share=min_share,
                                        alpha=alpha).table
    return table[table["category"] == "African-American"].iloc[0]


@functools.cache
def _counts() -> tuple[dict, dict]:
    """People and people rated Low per race."""
    compas = compas_preset("propublica_violent")
    low = compas.assign(low=(compas["score_level"] == "Low").astype(int)).groupby("race")["low"]
    return low.size().to_dict(), low.sum().to_dict()


def _rate(race: str) -> float:
    people, selected = _counts()
    return selected[race] / people[race]


def _overall_rate() -> float:
    people, selected = _counts()
    return sum(selected.values()) / sum(people.values())


def _people_needed(min_share: float) -> int:
    """The fewest people a category needs not to be left out by the 2 % rule."""
    return math.ceil(min_share * sum(_counts()[0].values()))


ANSWERS = {
    "8.1": Number(
        lambda min_share: float(_row(("race",), min_share)["impact_ratio"]),
        hint="selection rate = selected / people per race; divide the African-American rate by the highest "
             "rate among the races with at least min_share of the people",
        source=f"{DATA}: (1200 / 1918) / (1197 / 1459) = 0.7626 at min_share 0.02; "
               "fairstats.impact_ratios(group='race', min_share=min_share), computed when the check runs",
        wrong=(
            Wrong(lambda: _rate("African-American") / _rate("Asian"),
                  "the most selected category is Asian, but it holds less than 2 % of the people: the 2 % "
                  "rule leaves it out, and the reference is the highest of the rest", why="reference Asian; "
                                                                                     f"{_RATES}"),
            Wrong(lambda: _rate("Caucasian") / _rate("African-American"),
                  "the ratio the other way round: the category's rate over the reference's",
                  why="reference rate / African-American rate"),
            Wrong(lambda: _rate("African-American") / _overall_rate(),
                  "that divides by everybody's selection rate: LL144 divides by the most selected category's",
                  why="over the overall rate 2913 / 4020"),
            Wrong(lambda: (1 - _rate("Caucasian")) / (1 - _rate("African-American")),
                  "that compares the shares *not* selected (Medium or High): the ratio is of selection rates "
                  "(rated Low)",
                  why="(1 - 0.8204) / (1 - 0.6257)"),
            Wrong(lambda: _rate("Caucasian") - _rate("African-American"),
                  "that is a difference of rates: the rule divides them",
                  why="0.8204 - 0.6257"),
        ),
        defaults={"min_share": 0.02},
    ),
    "8.2": Number(
        _people_needed, hint="2 % of all the people of the data, rounded up to a whole person",
        source="6 RCNY 5-301 (2 % rule); 0.02 x 4020 = 80.4, so 81 at min_share 0.02",
        wrong=(
            Wrong(lambda min_share: _people_needed(min_share) - 1,
                  "one fewer is below the share (80 of 4,020 is 1.99 %): round up",
                  why="rounded down"),
            Wrong(lambda min_share: min_share * sum(_counts()[0].values()),
                  "people come in whole numbers: the smallest whole number at or above it",
                  why="0.02 x 4020"),
        ),
        defaults={"min_share": 0.02},
    ),
    "8.3": Number(
        lambda min_share: int(_row(("race",), min_share)["selections_to_reverse"]),
        hint="selections needed = 0.8 x the reference rate x the category's people, rounded up; minus the "
             "selections made",
        source=f"{DATA}: ceil(0.8 x 1197 / 1459 x 1918) - 1200 = 59 at min_share 0.02; "
               "fairstats.impact_ratios "
               "selections_to_reverse, computed when the check runs",
        wrong=(
            Wrong(lambda min_share: int(_row(("race",), min_share)["selections_to_reverse"]) - 1,
                  "one fewer leaves the ratio just below 0.8 (1,258 < 1,258.9): round the selections needed "
                  "up",
                  why="rounded down"),
            Wrong(lambda: 1918 * _rate("Caucasian") - 1200,
                  "that is the shortfall to the reference's *whole* rate: the rule asks for four fifths of "
                  "it",
                  why="1918 x 1197 / 1459 - 1200"),
            Wrong(lambda: math.ceil(0.8 * _rate("Asian") * 1918) - 1200,
                  "that uses the Asian category as the reference: the 2 % rule leaves it out",
                  why="reference Asian"),
        ),
        defaults={"min_share": 0.02},
    ),
    "8.4": Number(
        lambda min_share, alpha: float(_row(("race",), min_share, alpha)["impact_ratio_ci_high"]),
        hint="fairstats.impact_ratios(compas, group='race', y_pred='low', min_share=min_share, "
             "alpha=alpha).table: the African-American row's impact_ratio_ci_high",
        source=f"fairstats.impact_ratios on {DATA}, computed when the check runs",
        wrong=(
            Wrong(lambda alpha: float(_row(("race",), None, alpha)["impact_ratio_ci_high"]),
                  "that is without the 2 % rule (min_share=min_share): the reference is then the 26 Asian "
                  "people",
                  why="min_share=None"),
            Wrong(lambda min_share, alpha: float(_row(("race",), min_share, alpha)["impact_ratio_ci_low"]),
                  "that is the lower end of the interval: give impact_ratio_ci_high",
                  why="ci_low"),
            Wrong(lambda min_share, alpha: float(_row(LL144, min_share, alpha)["impact_ratio_ci_high"]),
                  "that is the call with all three groupings (a larger family, so a wider interval): "
                  "group='race'",
                  why="group=[['sex'], ['race'], ['sex', 'race']]"),
        ),
        defaults={"min_share": 0.02, "alpha": 0.05},
    ),
    "8.5": Choice(
        "c",
        {"a": "the ratio is an estimate: where does its interval lie against 0.8?",
         "b": "an interval that reaches 0.8 shows neither side: 'not shown below' is not 'shown above'",
         "d": "the ratio was computed: 0.76; undefined is for a category without people or a reference "
              "without selections"},
        source="fairstats.impact_ratios Notes (the verdict reads the family-level interval against 0.8)",
    ),
    "8.6": Choice(
        "b",
        {"a": "look at the Asian row of the table: n, selection rate and excluded_reason",
         "c": "the Asian row is still there, on its own, with its own rate",
         "d": "the Asian row has no ratio at all; the reference is the most selected of the categories kept"},
        source="6 RCNY 5-301; fairstats.impact_ratios(min_share=0.02): role 'excluded' with the reason",
    ),
}
