"""Lab 2, change the filter, change the verdict? Answers and common wrong answers."""

from __future__ import annotations

from compendium.course.checks import Choice, Number, Wrong

_FILTER = "compendium.data.compas.filter_compas (presets of config/config.yaml, compas.presets)"

ANSWERS = {
    "2.1": Number(
        735, hint="filter the general file with its preset and read the row of the day-window condition "
                  "(rows_removed)",
        source=f"{_FILTER}, preset propublica_general: report row |days_b_screening_arrest| > 30",
        wrong=(
            Wrong(455,
                  "that is the violent file (printed above): filter the general one "
                  "(compas-scores-two-years.csv) with the preset propublica_general",
                  why="the violent file's row"),
            Wrong(1042,
                  "that adds the people without a screening date, a different condition (the row above)",
                  why="missing dates (307) + outside the window (735)"),
            Wrong(307,
                  "that is the condition 'days_b_screening_arrest is missing'; the window's row is the next",
                  why="missing dates of the general file"),
            Wrong(6172,
                  "that is rows_left (who stays); the question asks who the window removes",
                  why="rows left after the general preset"),
        ),
    ),
    "2.2": Number(
        922, hint="filter the violent file again with day_window=0, every other option as ProPublica's",
        source="compendium.data.compas.filter_compas(day_window=0, exclude_charge_degrees=['O'], "
               "outcome='violent')",
        wrong=(
            Wrong(3098,
                  "that is how many the stricter window removes from ProPublica's 4,020: the question asks "
                  "who is left",
                  why="4020 - 922"),
            Wrong(3821,
                  "that is how many are removed from the whole file: the question asks who is left",
                  why="4743 - 922"),
            Wrong(1379,
                  "that is the general file: use the violent one, as ProPublica's violent preset does",
                  why="general file, day_window=0"),
        ),
    ),
    "2.3": Number(
        69.43010421680931,
        hint="filter with the preset violent_high_only and day_window=0, then equal_confusion_test with "
             "group='age_cat': its statistic",
        source="fairstats.equal_confusion_test(group='age_cat') on preset violent_high_only with "
               "day_window=0 (922 people, 6 df)",
        wrong=(
            Wrong(308.48849995318153,
                  "that is the 30-day window (the table above): keep the same-day screenings only",
                  why="violent_high_only as it is"),
            Wrong(256.23327293748537,
                  "that counts Medium as positive too: use the preset violent_high_only ('High' alone is "
                  "positive)",
                  why="propublica_violent, day_window=0"),
            Wrong(0.1940409759161587,
                  "that is Cramér's V: the question asks for the chi-square statistic",
                  why="cramers_v of the same test"),
        ),
    ),
    "2.4": Choice(
        "d",
        {"a": "compare the effect_size column of age across the settings",
         "b": "compare the n and statistic columns across the settings",
         "c": "look at the race rows of violent_high_only: reject?"},
        source="the lab's verdicts table: every row rejects at 0.01",
    ),
    "2.5": Choice(
        "a",
        {"b": "compare the age rows of the two day windows with propublica_violent",
         "c": "violent_high_only uses the violent file too: what else differs?",
         "d": "the effect size does not depend on the permutations"},
        source="the lab's verdicts table: age is 'large' under every day window, 'small' under "
               "propublica_general and violent_high_only",
    ),
}
