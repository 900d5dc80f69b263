# %% [markdown]
# # Lab 2 — Change the filter, change the verdict?
#
# *fairstats course, lab 2 of 6 · about 40 minutes · data: ProPublica's two COMPAS files, vendored in
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
# **Exercise 2.1.** How many people of the violent file does the **30-day window** alone remove (the people
# whose screening date *is* known but more than 30 days from the arrest)?

# %%
# BEGIN SOLUTION
report = propublica.report.set_index("condition")
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
# `sex`, `race` and `age_cat` under the three presets and under two day windows (0 and 365 days; the rest as
# ProPublica).


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
for window in (0, 365):
    settings[f"day_window_{window}"] = filter_compas(
        files["violent"], **{**presets["propublica_violent"], "day_window": window}).frame
verdicts = pd.DataFrame([equal_confusion_row(frame, name, g)
                         for name, frame in settings.items() for g in ("sex", "race", "age_cat")])
verdicts.round(4)

# %% [markdown]
# **Exercise 2.3.** What is Cramér's V of the **age** grouping (`age_cat`) under `violent_high_only`?

# %%
# BEGIN SOLUTION
row = verdicts.set_index(["setting", "grouping"]).loc[("violent_high_only", "age_cat")]
answer_2_3 = row["cramers_v"]
# END SOLUTION
# STUB: answer_2_3 = ...
check("2.3", answer_2_3)

# %% [markdown]
# **Exercise 2.4.** Which statement survives **every** setting of the table? Answer with a letter.
#
# - **a.** The confusion table is unequal (rejected at α = 0.01) by sex, by race and by age.
# - **b.** Age has a *large* effect (Cramér's V beyond the large threshold).
# - **c.** The filter makes no difference: the statistics are the same everywhere.
# - **d.** Race stops being significant once only "High" counts as a positive prediction.

# %%
# BEGIN SOLUTION
answer_2_4 = "a"
# END SOLUTION
# STUB: answer_2_4 = ...
check("2.4", answer_2_4)

# %% [markdown]
# **Exercise 2.5.** The effect-size label of age changes between settings. Which choice changes it? Answer
# with
# a letter.
#
# - **a.** Which people are kept (the day window).
# - **b.** What is predicted and what counts as a positive prediction (the general file and its score, or
#   "High" only), not who is kept.
# - **c.** Only whether the violent or the general file is used.
# - **d.** The seed of the permutations.

# %%
# BEGIN SOLUTION
answer_2_5 = "b"
# END SOLUTION
# STUB: answer_2_5 = ...
check("2.5", answer_2_5)

# %% [markdown] tags=["solution"]
# **Answers 2.4 and 2.5 (instructor).** Every setting rejects for all three groupings (the weakest, sex with
# the same-day window, has p ≈ 0.008 on 922 people: below 0.01, but only just). Age is *large* (V ≈ 0.37–0.41;
# with three age groups, df* = 2, large starts at 0.35) under every filter of people, and *small* (V ≈ 0.20
# and 0.21, below the medium threshold 0.21) when the general re-offence score is used or when only "High"
# counts as positive: the label depends on what is predicted and where the threshold is, not on the day
# window.
# Choosing (c) misses that `violent_high_only` uses the violent file too; (a) is refuted by the two day-window
# rows.

# %% [markdown]
# ## What to take away
#
# Report the filter as part of the result, and re-run the analysis under the alternatives a critic would
# choose. Here the *existence* of a disparity survives every filter; its *size* depends on how a "positive
# prediction" is defined. Lab 5 asks the opposite question: how little data is too little?
