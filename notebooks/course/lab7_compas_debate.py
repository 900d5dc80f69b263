# %% [markdown]
# # Lab 7 — The COMPAS debate: can a score be fair both ways?
#
# *fairstats course, lab 7 of 9 · about 50 minutes · data: ProPublica's COMPAS file of general re-offence,
# vendored in `data/raw/`, African-American and Caucasian defendants.*
#
# In 2016 ProPublica (Angwin, Larson, Mattu & Kirchner, *Machine Bias*) reported that COMPAS labels
# African-American defendants who did **not** re-offend as risky about twice as often as Caucasian ones:
# unequal *error rates*. Northpointe, the score's maker, answered (Dieterich, Mendoza & Brennan 2016) that the
# score is equally *predictive* in both groups: a given score means the same risk of re-offending whoever has
# it (calibration within groups, predictive parity). Both sides had the numbers right. Chouldechova (2017) and
# Kleinberg, Mullainathan & Raghavan (2016) showed why they must disagree: when two groups re-offend at
# different rates, a score cannot be calibrated in both groups and have equal error rates too, unless it
# predicts perfectly.
#
# In this lab you check **both claims on the same data** — ProPublica's with the equal confusion test,
# Northpointe's with the library's recalibration test — and then see the impossibility result in numbers.
#
# **You will learn to** (1) compute error rates and predictive values per group; (2) test calibration within
# groups with `fairstats.recalibration_tests`; (3) use Chouldechova's identity to say what equal predictive
# values force on error rates; (4) state Kleinberg et al.'s result and see it hold in the data.

# %% tags=["parameters"]
raw_dir: str = "data/raw"  # vendored raw data (a relative path is looked up from here and above)
config_path: str = "config/config.yaml"  # the compendium's configuration (its compas.presets)
alpha: float = 0.05  # level of the tests
n_resamples: int = 199  # bootstrap resamples of the ICI's interval in recalibration_tests (0: none)
seed: int = 2028  # seed of those resamples

# %%
import warnings

import numpy as np
import pandas as pd
from IPython.display import display

import fairstats
from compendium.course import check, solved
from compendium.course.data import compas_preset

GROUPS = ["African-American", "Caucasian"]
general = compas_preset("propublica_general", raw_dir=raw_dir, config_path=config_path)
two = general[general["race"].isin(GROUPS)].reset_index(drop=True)
two.groupby("race")["y_true"].agg(people="size", base_rate="mean")

# %% [markdown]
# `y_true` is 1 for a defendant who re-offended within two years, `y_pred` is 1 when COMPAS said Medium or
# High risk, and `y_score` is the decile score (1–10) behind it. The **base rates** — the share who
# re-offended — differ: 52 % of the African-American and 39 % of the Caucasian defendants.
#
# ## 1. ProPublica's claim: unequal error rates
#
# **Exercise 7.1.** Compute, by hand with pandas, the **false positive rate** of African-American defendants:
# among those who did *not* re-offend, the share labelled Medium or High risk.

# %%
# BEGIN SOLUTION
black = two[two["race"] == "African-American"]
answer_7_1 = ((black["y_pred"] == 1) & (black["y_true"] == 0)).sum() / (black["y_true"] == 0).sum()
# END SOLUTION
# STUB: answer_7_1 = ...
check("7.1", answer_7_1)

# %% [markdown]
# Every rate of both groups (`fairstats.group_metrics`) and paper A's equal confusion test of the two groups'
# confusion tables (the cell waits for your check of 7.1):

# %%
metrics = fairstats.group_metrics(two, group="race", y_true="y_true", y_pred="y_pred", form="wide")
confusion = fairstats.equal_confusion_test(two, group="race", y_true="y_true", y_pred="y_pred")
if solved("7.1"):
    display(metrics.set_index("race")[["fpr", "fnr", "ppv", "npv"]].round(4))
    print(f"equal confusion: chi2 = {confusion.statistic:.1f} on {confusion.df} df, p = "
          f"{confusion.pvalue:.2g}, "
          f"Cramér's V = {confusion.cramers_v:.3f}")
    display(confusion.residuals.round(1))

# %% [markdown]
# ## 2. Northpointe's claim: the score means the same in both groups
#
# **Exercise 7.2.** Compute, by hand, the **positive predictive value** (PPV: among those labelled Medium or
# High risk, the share who re-offended) of each group, and give the difference **African-American minus
# Caucasian**.

# %%
# BEGIN SOLUTION
ppv = two[two["y_pred"] == 1].groupby("race")["y_true"].mean()
answer_7_2 = ppv["African-American"] - ppv["Caucasian"]
# END SOLUTION
# STUB: answer_7_2 = ...
check("7.2", answer_7_2)

# %% [markdown]
# The PPV is one threshold. **Calibration** asks it of every score: among the people with decile $d$, does the
# same share re-offend in both groups? To test it, the decile must first become a probability. Use the
# group-blind one a score's maker would publish: for each decile, the share who re-offended among **all**
# the African-American and Caucasian defendants with that decile. Then `fairstats.recalibration_tests` fits
# the logistic recalibration $\operatorname{logit} P(Y = 1 \mid p) = a + b \operatorname{logit} p$ in each
# group and tests, by a likelihood ratio, that both groups share one curve (same $a$ and $b$).
#
# **Exercise 7.3.** Add that probability to `two` as a column `p_decile`, run
# `fairstats.recalibration_tests(two, group="race", y_true="y_true", y_score="p_decile", alpha=alpha,
# n_resamples=n_resamples, rng=seed)` and give the **p-value** of the test of equal calibration (its
# `comparisons` table).

# %%
# BEGIN SOLUTION
two["p_decile"] = two.groupby("y_score")["y_true"].transform("mean")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", fairstats.UndefinedTestWarning)
    calibration = fairstats.recalibration_tests(two, group="race", y_true="y_true", y_score="p_decile",
                                                alpha=alpha, n_resamples=n_resamples, rng=seed)
answer_7_3 = calibration.comparisons["pvalue"].iloc[0]
# END SOLUTION
# STUB: calibration = ...
# STUB: answer_7_3 = ...
check("7.3", answer_7_3)

# %% [markdown]
# Each group's calibration-in-the-large (0 when calibrated) and calibration slope (1 when calibrated), with
# their intervals, and the observed share per decile (the cell waits for your check of 7.3):

# %%
if solved("7.3"):
    display(calibration.groups[["group", "n", "citl", "citl_ci_low", "citl_ci_high", "slope", "slope_ci_low",
                                "slope_ci_high", "ici"]].round(3))
    display(calibration.comparisons[["group", "reference", "statistic", "df", "pvalue", "verdict"]].round(4))
    display(two.pivot_table(index="y_score", columns="race", values="y_true", aggfunc="mean").round(3))

# %% [markdown]
# **Exercise 7.4.** Who is right? Answer with a letter.
#
# - **a.** Both hold in these data: the error rates differ far beyond chance, while calibration shows no
#   difference the test can detect.
# - **b.** ProPublica is right and Northpointe wrong: calibration would be rejected as soon as the test is
#   given more people.
# - **c.** Northpointe is right and ProPublica wrong: the error rates differ only by chance, as the p-value of
#   the equal confusion test says.
# - **d.** Neither claim can be tested, because the two groups re-offend at different rates in these data.

# %%
# BEGIN SOLUTION
answer_7_4 = "a"
# END SOLUTION
# STUB: answer_7_4 = ...
check("7.4", answer_7_4)

# %% [markdown]
# ## 3. Why both: the impossibility result
#
# **Chouldechova's identity** (2017, Sec. 2) ties a group's false positive rate to its base rate $p$, its PPV
# and its false negative rate (FNR), whatever the score:
#
# $$\mathrm{FPR} = \frac{p}{1 - p} \cdot \frac{1 - \mathrm{PPV}}{\mathrm{PPV}} \cdot (1 - \mathrm{FNR}).$$
#
# If two groups had the same PPV (Northpointe's predictive parity) and the same FNR, their FPRs would differ
# exactly as their odds $p / (1 - p)$ do.
#
# **Exercise 7.5.** With the identity, compute the false positive rate African-American defendants would have
# if their PPV and their FNR were those of Caucasian defendants (their own base rate kept).

# %%
# BEGIN SOLUTION
rates = metrics.set_index("race")
base = two.groupby("race")["y_true"].mean()
p_black = base["African-American"]
answer_7_5 = (p_black / (1 - p_black) * (1 - rates.loc["Caucasian", "ppv"]) / rates.loc["Caucasian", "ppv"]
              * (1 - rates.loc["Caucasian", "fnr"]))
# END SOLUTION
# STUB: answer_7_5 = ...
check("7.5", answer_7_5)

# %% [markdown]
# **Kleinberg, Mullainathan & Raghavan** (2016) ask the same of a score rather than a label. A score $s$ is
# *calibrated within each group* when, among the people of a group with score $s$, a share $s$ re-offends. It
# *balances the negative class* when the non-re-offenders of both groups have the same mean score, and the
# *positive class* when the re-offenders do. Calibration gives, in every group,
# $p = p\,\bar s_{1} + (1 - p)\,\bar s_{0}$ ($\bar s_1$, $\bar s_0$: the mean scores of re-offenders and
# non-re-offenders), so $p = \bar s_0 / (1 - \bar s_1 + \bar s_0)$: two groups with the same $\bar s_1$ and
# $\bar s_0$ must have the same base rate. With different base rates, the three conditions cannot all hold
# (unless prediction is perfect).
#
# **Exercise 7.6.** Make the score that is calibrated within each group by construction: `s_group` = the
# share who re-offended among the people of the same **race and decile**. Give the difference of the mean
# `s_group` of the **non-re-offenders**, African-American minus Caucasian (the failure of balance for the
# negative class).

# %%
# BEGIN SOLUTION
two["s_group"] = two.groupby(["race", "y_score"])["y_true"].transform("mean")
s0 = two[two["y_true"] == 0].groupby("race")["s_group"].mean()
answer_7_6 = s0["African-American"] - s0["Caucasian"]
# END SOLUTION
# STUB: answer_7_6 = ...
check("7.6", answer_7_6)

# %% [markdown]
# The identity in the data (the cell waits for your checks of 7.5 and 7.6): each group's mean score among
# re-offenders and non-re-offenders gives back its base rate exactly, so equal means would force equal base
# rates.

# %%
if solved("7.5", "7.6"):
    means = two.pivot_table(index="race", columns="y_true", values="s_group", aggfunc="mean")
    identity = pd.DataFrame({"mean_score_reoffenders": means[1], "mean_score_non_reoffenders": means[0],
                             "implied_base_rate": means[0] / (1 - means[1] + means[0]),
                             "base_rate": two.groupby("race")["y_true"].mean()})
    display(identity.round(4))
    print("largest gap between implied and observed base rate:",
          float(np.abs(identity["implied_base_rate"] - identity["base_rate"]).max()))

# %% [markdown]
# **Exercise 7.7.** What does the impossibility result say? Answer with a letter.
#
# - **a.** A calibrated score is always unfair to the group with the higher base rate, whatever its errors.
# - **b.** Recalibrating the score within each group would make its error rates equal at the same threshold,
#   too.
# - **c.** The conflict would disappear with enough data, being an artefact of the sample's size.
# - **d.** Unless base rates are equal or prediction perfect, calibration and both balances cannot all hold.

# %%
# BEGIN SOLUTION
answer_7_7 = "d"
# END SOLUTION
# STUB: answer_7_7 = ...
check("7.7", answer_7_7)

# %% [markdown] tags=["solution"]
# **Answers (instructor).** 7.1: FPR 0.423 (ProPublica's published 44.9 % is the same quantity on their own
# cut of the data); Caucasian 0.220. 7.2: PPV 0.650 against 0.595, a difference of 0.055: close, as
# Northpointe said. 7.3: p ≈ 0.13 (LR 4.0 on 2 df): no detectable calibration difference — the library's
# verdict is *inconclusive*, not *equivalent*, because there is no equivalence test of two curves; "not
# rejected" is not "proven equal". The equal confusion test on the same people rejects with p ≈ 1e-69. 7.4
# (a): both claims describe the data. (b) treats a hope as a finding; (c) misreads a p-value of 1e-69; (d)
# confuses why the claims conflict with whether they can be tested. 7.5: 0.376 instead of 0.423 — even with
# the Caucasian PPV and FNR, African-American defendants would have a much higher FPR than the Caucasian
# 0.220, because their base rate is higher. 7.6: 0.111 (0.456 against 0.345): the calibrated score gives the
# African-American non-re-offenders a higher mean score. 7.7 (d); (a) overreaches (the result is about three
# criteria together, not about one being unfair); (b) is false: calibrated scores with different base rates
# give different error rates at a shared threshold; (c) is false: the identity is exact, not statistical.

# %% [markdown]
# ## Try this
#
# Move the threshold: count only "High" as a positive prediction, and watch both claims, in a scratch cell:
#
# ```python
# high = two.assign(y_pred=(two["score_level"] == "High").astype(int))
# print(fairstats.group_metrics(high, group="race", y_true="y_true", y_pred="y_pred", form="wide")
#       .set_index("race")[["fpr", "fnr", "ppv"]].round(3))
# ```
#
# *What to look for:* both FPRs fall and their gap narrows (their ratio does not), both FNRs rise, and the
# PPVs rise and stay close. *Why:* the threshold trades false positives for false negatives in both groups;
# the calibration test of exercise 7.3 does not depend on it at all (it uses the whole score), and
# Chouldechova's identity still ties the three rates to the base rates at every threshold.
#
# ## What to take away
#
# "Fair" names several criteria, and when base rates differ they conflict: an auditor must say which one a
# verdict is about, and test it. ProPublica's and Northpointe's numbers are both right; the disagreement is
# about which criterion matters for a decision about people, which is not a statistical question. Lab 8 meets
# the criterion regulators chose: selection rates and the four-fifths rule.
