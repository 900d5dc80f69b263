# %% [markdown]
# # Lab 2 — Change the filter, change the verdict?
#
# *fairstats course, lab 2 of 9 · about 40 minutes · data: ProPublica's two COMPAS files, vendored in
# `data/raw/`.*
#
# Every COMPAS analysis starts by throwing people away. ProPublica (Larson et al. 2016) kept a defendant
# only if
# the COMPAS screening was within 30 days of the arrest, a COMPAS case was found, the charge was not an
# ordinary traffic offence and a score was recorded. Paper A uses that filter, with "Medium or High" risk as
# the positive prediction. The compendium keeps these choices as **presets** (`config/config.yaml`,
# `compas.presets`): `propublica_violent`, `propublica_general` (the general re-offence file and score) and
# `violent_high_only` (only "High" counts as a positive prediction).
#
# **You will learn to** (1) account for every person a filter removes; (2) re-run one test under several
# defensible filters; (3) tell a conclusion that survives every filter from one that depends on the choice.

# %% tags=["parameters"]
raw_dir: str = "data/raw"  # vendored raw data (a relative path is looked up from here and above)
config_path: str = "config/config.yaml"  # the compendium's configuration (its compas.presets)
n_resamples: int = 9999  # Monte Carlo permutations of the equal confusion test when Cochran's rule fails
seed: int = 2028  # seed of those permutations

# %%
import warnings

import pandas as pd
import yaml

import fairstats
from compendium.course import check, repository_path
from compendium.data.compas import COMPAS_FILES, filter_compas, read_compas

raw = repository_path(raw_dir)
presets = yaml.safe_load(repository_path(config_path).read_text(encoding="utf-8"))["compas"]["presets"]
files = {outcome: read_compas(raw / COMPAS_FILES[outcome][0]) for outcome in ("violent", "general")}
pd.DataFrame(presets).T

# %% [markdown]
# ## 1. Who is removed, step by step
#
# `filter_compas` applies the conditions in order and reports how many rows each removed.

# %%
propublica = filter_compas(files["violent"], **presets["propublica_violent"])
propublica.report

# %% [markdown]
# **Exercise 2.1.** ProPublica's *general* re-offence analysis applies the same conditions to the other file,
# `compas-scores-two-years.csv` (`files["general"]`, preset `propublica_general`). How many people of that
# file does the **30-day window** alone remove (the people whose screening date *is* known but more than 30
# days from the arrest)?

# %%
# BEGIN SOLUTION
general = filter_compas(files["general"], **presets["propublica_general"])
report = general.report.set_index("condition")
answer_2_1 = report.loc["|days_b_screening_arrest| > 30", "rows_removed"]
# END SOLUTION
# STUB: answer_2_1 = ...
check("2.1", answer_2_1)

# %% [markdown]
# **Exercise 2.2.** A stricter analyst keeps only people screened **on the day of the arrest**
# (`day_window=0`), everything else as ProPublica. How many people are left?

# %%
# BEGIN SOLUTION
same_day = filter_compas(files["violent"], **{**presets["propublica_violent"], "day_window": 0})
answer_2_2 = len(same_day.frame)
# END SOLUTION
# STUB: answer_2_2 = ...
check("2.2", answer_2_2)

# %% [markdown]
# ## 2. One test, five filters
#
# The function below runs paper A's equal confusion test for one grouping on one filtered frame. Run it for
# `sex`, `race` and `age_cat` under the three presets and under two other day windows (7 and 365 days; the
# rest as ProPublica).


# %%
def equal_confusion_row(frame: pd.DataFrame, setting: str, grouping: str) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fairstats.SmallExpectedCountWarning)  # reported below as cochran_ok
        res = fairstats.equal_confusion_test(frame, group=grouping, y_true="y_true", y_pred="y_pred",
                                             n_resamples=n_resamples, rng=seed)
    return {"setting": setting, "grouping": grouping, "n": res.n, "statistic": res.statistic,
            "pvalue": res.pvalue, "pvalue_permutation": res.pvalue_permutation, "reject": res.reject,
            "cramers_v": res.cramers_v, "effect_size": res.effect_size, "cochran_ok": res.cochran_ok}


settings = {name: filter_compas(files[p["outcome"]], **p).frame for name, p in presets.items()}
for window in (7, 365):
    settings[f"day_window_{window}"] = filter_compas(
        files["violent"], **{**presets["propublica_violent"], "day_window": window}).frame
verdicts = pd.DataFrame([equal_confusion_row(frame, name, g)
                         for name, frame in settings.items() for g in ("sex", "race", "age_cat")])
verdicts.round(4)

# %% [markdown]
# **Exercise 2.3.** A critic combines the two strictest choices: only "High" counts as a positive prediction
# (`violent_high_only`) **and** only same-day screenings are kept (`day_window=0`). Give the χ² **statistic**
# of the equal confusion test of the **age** grouping (`age_cat`) under that setting. Then compare it, and its
# Cramér's V, with the `violent_high_only` row of the table: what does the number of people do to each?

# %%
# BEGIN SOLUTION
strictest = filter_compas(files["violent"], **{**presets["violent_high_only"], "day_window": 0}).frame
answer_2_3 = equal_confusion_row(strictest, "strictest", "age_cat")["statistic"]
# END SOLUTION
# STUB: answer_2_3 = ...
check("2.3", answer_2_3)

# %% [markdown]
# **Exercise 2.4.** Which statement survives **every** setting of the table? Answer with a letter.
#
# - **a.** Age has a *large* effect (Cramér's V beyond the large threshold) under every setting.
# - **b.** The filter makes no difference: the statistics are the same under every setting.
# - **c.** Race stops being significant once only "High" counts as a positive prediction.
# - **d.** The confusion table is unequal (rejected at α = 0.01) by sex, by race and by age, in every setting.

# %%
# BEGIN SOLUTION
answer_2_4 = "d"
# END SOLUTION
# STUB: answer_2_4 = ...
check("2.4", answer_2_4)

# %% [markdown]
# **Exercise 2.5.** The effect-size label of age changes between settings. Which choice changes it? Answer
# with
# a letter.
#
# - **a.** What is predicted and what counts as positive (the general score, or "High" only), not who is kept.
# - **b.** Which people are kept: the label of age moves with the day window, whatever the score and
#   threshold.
# - **c.** Only the file: the general re-offence file gives another label, the violent file never does.
# - **d.** The seed of the permutations, which moves Cramér's V a little from one run to the next.

# %%
# BEGIN SOLUTION
answer_2_5 = "a"
# END SOLUTION
# STUB: answer_2_5 = ...
check("2.5", answer_2_5)

# %% [markdown] tags=["solution"]
# **Answers 2.3 to 2.5 (instructor).** 2.3: χ² = 69.4 on 922 people against 308.5 on 4,020 with the 30-day
# window, while Cramér's V barely moves (0.194 against 0.196): χ² grows with the number of people for the same
# proportions, V divides it out. 2.4 (d): every setting rejects for all three groupings at 0.01 (the weakest,
# sex under violent_high_only, still has p ≈ 1e-10). Age is *large* (V ≈ 0.40–0.41; with three age groups,
# df* = 2, large starts at 0.35) under every filter of people, and *small* (V ≈ 0.20 and 0.21, below the
# medium threshold 0.21) when the general re-offence score is used or when only "High" counts as positive:
# 2.5 (a), the label depends on what is predicted and where the threshold is, not on the day window. Choosing
# (c) misses that `violent_high_only` uses the violent file too; (b) is refuted by the two day-window rows.

# %% [markdown]
# ## Try this
#
# Put the day window on a scale and watch the verdict for sex, in a scratch cell:
#
# ```python
# for window in (0, 3, 7, 30, 90, 365):
#     frame = filter_compas(files["violent"], **{**presets["propublica_violent"], "day_window": window}).frame
#     r = equal_confusion_row(frame, f"day_window_{window}", "sex")
#     print(window, r["n"], round(r["statistic"], 1), f"{r['pvalue']:.2g}", round(r["cramers_v"], 3))
# ```
#
# *What to look for:* the number of people grows from 922 to 4,433 and χ² with it, while Cramér's V of sex
# stays near 0.11–0.13. *Why:* widening the window adds people with the same pattern; the p-value follows the
# sample size, the effect size does not. A filter that changes V changes *who* is compared, not how many.

# %% [markdown]
# ## What to take away
#
# Report the filter as part of the result, and re-run the analysis under the alternatives a critic would
# choose. Here the *existence* of a disparity survives every filter; its *size* depends on how a "positive
# prediction" is defined. Lab 5 asks the opposite question: how little data is too little?
