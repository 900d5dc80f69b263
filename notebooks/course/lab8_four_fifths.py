# %% [markdown]
# # Lab 8 — The four-fifths rule and NYC Local Law 144
#
# *fairstats course, lab 8 of 9 · about 45 minutes · data: ProPublica's COMPAS file (violent re-offence),
# vendored in `data/raw/`; a defendant counts as "selected" when rated **Low** risk.*
#
# Regulators do not ask for a χ² test. The US Uniform Guidelines on Employee Selection Procedures (29 CFR
# 1607.4(D)) call a selection rate below **four fifths** of the highest group's rate "generally regarded" as
# evidence of adverse impact. New York City's Local Law 144 (6 RCNY §§ 5-300–5-303) makes that ratio the
# published result of every bias audit of an automated employment decision tool: per sex, per race/ethnicity
# and per intersection, each category's **impact ratio** (its selection rate over the most selected
# category's) — and it lets the auditor leave out categories with less than **2 %** of the data.
#
# A COMPAS rating is not a hiring decision, but the arithmetic is the same, and the data are here: a Low
# rating is the favourable outcome. You compute the ratios by hand, then read what `fairstats.impact_ratios`
# adds: an interval for each ratio, a **three-way verdict** (below 4/5, at or above 4/5, inconclusive) and
# what would change it.
#
# **You will learn to** (1) compute selection rates and impact ratios as LL144 defines them; (2) apply the 2 %
# rule and see what it does to the reference; (3) read an impact ratio's interval and its three-way verdict;
# (4) say how fragile a ratio near 0.8 is.

# %% tags=["parameters"]
raw_dir: str = "data/raw"  # vendored raw data (a relative path is looked up from here and above)
config_path: str = "config/config.yaml"  # the compendium's configuration (its compas.presets)
alpha: float = 0.05  # family-wise level of the intervals (Bonferroni over the categories compared)
min_share: float = 0.02  # LL144's 2 % rule: categories below this share are left out of the ratios

# %%
import math

from IPython.display import display

import fairstats
from compendium.course import check, solved
from compendium.course.data import compas_preset

compas = compas_preset("propublica_violent", raw_dir=raw_dir, config_path=config_path)
compas["low"] = (compas["score_level"] == "Low").astype(int)
counts = compas.groupby("race")["low"].agg(people="size", selected="sum")
counts["share_of_data"] = counts["people"] / counts["people"].sum()
counts

# %% [markdown]
# ## 1. Impact ratios by hand
#
# A category's **selection rate** is `selected / people`; its **impact ratio** is that rate divided by the
# rate of the most selected category (6 RCNY § 5-300). LL144 lets categories with less than 2 % of the data be
# left out (§ 5-301); the most selected category is then chosen among the others.
#
# **Exercise 8.1.** With the 2 % rule applied, give the impact ratio of **African-American** defendants.

# %%
# BEGIN SOLUTION
rates = counts["selected"] / counts["people"]
kept = rates[counts["share_of_data"] >= min_share]
answer_8_1 = kept["African-American"] / kept.max()
# END SOLUTION
# STUB: answer_8_1 = ...
check("8.1", answer_8_1, min_share=min_share)

# %% [markdown]
# **Exercise 8.2.** How many people must a category have, at the least, not to be left out by the 2 % rule in
# these data?

# %%
# BEGIN SOLUTION
answer_8_2 = math.ceil(min_share * counts["people"].sum())  # the smallest whole number >= 2 % of 4,020
# END SOLUTION
# STUB: answer_8_2 = ...
check("8.2", answer_8_2, min_share=min_share)

# %% [markdown]
# **Exercise 8.3.** The Uniform Guidelines warn about "small numbers": a ratio that a few decisions would move
# across 0.8. How many more African-American defendants would have to be rated Low — the reference category's
# rate kept — for their impact ratio to reach four fifths?

# %%
# BEGIN SOLUTION
reference = kept.idxmax()
needed = 0.8 * kept[reference] * counts.loc["African-American", "people"]
answer_8_3 = math.ceil(needed) - int(counts.loc["African-American", "selected"])
# END SOLUTION
# STUB: answer_8_3 = ...
check("8.3", answer_8_3, min_share=min_share)

# %% [markdown]
# ## 2. What the library adds: intervals and three verdicts
#
# 1,918 African-American defendants are a sample of the people COMPAS rates. `fairstats.impact_ratios` gives
# each ratio a score interval (Miettinen–Nurminen, inverted) at the **family** level: with $m$ categories
# compared, each interval is at $1 - \alpha / m$ (Bonferroni), so that all of them hold together with
# probability $1 - \alpha$. Its verdict reads the interval: **below 4/5** when the whole interval is below
# 0.8, **at or above 4/5** when it is wholly at or above, **inconclusive** when it contains 0.8 — with
# `n_to_decide`, the size of the category that would decide at the same rates.
#
# **Exercise 8.4.** Run `fairstats.impact_ratios(compas, group="race", y_pred="low", min_share=min_share,
# alpha=alpha)` and give the **upper end** of the African-American ratio's interval (`impact_ratio_ci_high`).

# %%
# BEGIN SOLUTION
by_race = fairstats.impact_ratios(compas, group="race", y_pred="low", min_share=min_share, alpha=alpha)
row = by_race.table.set_index("category").loc["African-American"]
answer_8_4 = row["impact_ratio_ci_high"]
# END SOLUTION
# STUB: by_race = ...
# STUB: answer_8_4 = ...
check("8.4", answer_8_4, min_share=min_share, alpha=alpha)

# %% [markdown]
# The library's whole table, to compare with your 8.1 and 8.3 (the cell waits for your checks of 8.1, 8.3 and
# 8.4):

# %%
columns = ["category", "role", "n", "share", "selection_rate", "reference", "impact_ratio",
           "impact_ratio_ci_low", "impact_ratio_ci_high", "four_fifths", "selections_to_reverse",
           "reversed_by_one", "n_to_decide", "excluded_reason"]
if solved("8.1", "8.3", "8.4"):
    print(f"family of {by_race.family_size} comparisons: each interval at {by_race.confidence_level:.4f}")
    display(by_race.table[columns].round(4))

# %% [markdown]
# **Exercise 8.5.** An audit finds, for one category, an impact ratio of 0.76 with a family-level interval
# from 0.72 to 0.81. What should the auditor report? Answer with a letter.
#
# - **a.** Below four fifths: the rule is about the ratio, and the ratio is 0.76.
# - **b.** At or above four fifths: the interval reaches 0.8, so the rule's adverse impact is not shown at
#   all.
# - **c.** Inconclusive: the data cannot place the ratio on one side of 0.8; report n_to_decide too.
# - **d.** Undefined: a ratio whose interval contains 0.8 cannot be computed.

# %%
# BEGIN SOLUTION
answer_8_5 = "c"
# END SOLUTION
# STUB: answer_8_5 = ...
check("8.5", answer_8_5)

# %% [markdown]
# ## 3. LL144's layout: sex, race and their intersection
#
# LL144 asks for the three groupings at once; in one call they form one family (`family_size` grows, so each
# interval widens). The table holds the ratios of exercise 8.1, so it waits for your checks too:

# %%
ll144 = fairstats.impact_ratios(compas, group=[["sex"], ["race"], ["sex", "race"]], y_pred="low",
                                min_share=min_share, alpha=alpha)
if solved("8.1", "8.3", "8.4"):
    print(f"family of {ll144.family_size} comparisons: each interval at {ll144.confidence_level:.4f}")
    display(ll144.table[["grouping", "category", "role", "n", "selection_rate", "impact_ratio",
                         "impact_ratio_ci_low", "impact_ratio_ci_high", "four_fifths"]].round(3))

# %% [markdown]
# **Exercise 8.6.** What does the 2 % rule do to the Asian category here (26 people, 22 rated Low)? Answer
# with a letter.
#
# - **a.** Nothing visible: a category below 2 % is dropped from the table and never reported at all.
# - **b.** Its ratio is left out but its row stays; kept, its 85 % rate would make it the reference of all.
# - **c.** It is merged with "Other", as LL144 requires for every category below 2 % of the data.
# - **d.** Its ratio is computed against the overall selection rate instead of the most selected category.

# %%
# BEGIN SOLUTION
answer_8_6 = "b"
# END SOLUTION
# STUB: answer_8_6 = ...
check("8.6", answer_8_6)

# %% [markdown] tags=["solution"]
# **Answers (instructor).** 8.1: 0.626 / 0.820 = 0.763 (reference Caucasian: Asian and Native American are
# below 2 %). Without the rule the reference is Asian (22 of 26, 0.846) and the ratio 0.739. 8.2: 2 % of 4,020
# is 80.4, so 81 people. 8.3: 59 (0.8 × 0.8204 × 1,918 = 1,258.9 selections needed, 1,200 made): few against
# 1,918 people, but more than one, so `reversed_by_one` is False. 8.4: read it in the table; the interval
# holds with the other two comparisons at family level 0.95, and the verdict follows from where it lies
# against 0.8 (`n_to_decide` says how large the category would have to be, at the same rates, to decide). 8.5
# (c): (a) reads the point estimate as if it had no error; (b) reads "not shown below" as "shown above"; (d)
# confuses an uncertain ratio with an uncomputable one (the library's `undefined` is for a category without
# people or a reference without selections). 8.6 (b): the rule *permits* the exclusion and the auditor must
# justify it; here it changes the reference from Asian (26 people) to Caucasian, and with it every ratio.

# %% [markdown]
# ## Try this
#
# Leave the 2 % rule out and compare the verdicts, in a scratch cell:
#
# ```python
# everyone = fairstats.impact_ratios(compas, group="race", y_pred="low", alpha=alpha)
# print(everyone.table[["category", "role", "n", "impact_ratio", "impact_ratio_ci_low",
#                       "impact_ratio_ci_high",
#                       "four_fifths", "n_to_decide"]].round(3))
# ```
#
# *What to look for:* the reference becomes the Asian category (26 people), every ratio drops, and the
# intervals widen a great deal. *Why:* a ratio divides by the reference's rate, and a rate from 26 people is
# uncertain; the reference chosen as the maximum is also the category most likely to be high by chance. That
# is why the rule exists, and why the auditor must say which categories were left out.
#
# ## What to take away
#
# The four-fifths rule is a ratio of two estimates. Report it with its interval and its three-way verdict, say
# which categories the 2 % rule left out (and so which category became the reference), and say how many
# decisions would move a ratio across 0.8. Lab 9 follows the intersections further, where the categories get
# small.
