# %% [markdown]
# # Lab 5 — How many people do you need?
#
# *fairstats course, lab 5 of 9 · about 45 minutes · data: COMPAS (violent file), African-American and
# Caucasian defendants.*
#
# "No significant disparity" is not "no disparity". A small audit can miss a large difference; only an
# **equivalence test** can say that a difference is *small* (within a margin you chose beforehand), and the
# **minimum detectable disparity** (MDE) says how large a difference the audit could have seen. fairstats
# combines the two into three verdicts: *disparity*, *equivalent* (within the margin) and *inconclusive*.
#
# **You will learn to** (1) compute the MDE of a rate difference; (2) read the three-way verdict of an audit;
# (3) estimate power by simulation on subsamples; (4) plan the size of an audit.

# %% tags=["parameters"]
raw_dir: str = "data/raw"  # vendored raw data (a relative path is looked up from here and above)
alpha: float = 0.05  # level of the difference and equivalence tests
margin: float = 0.1  # equivalence margin of a rate difference ("small enough", chosen beforehand)
n_resamples: int = 999  # bootstrap resamples of the intervals of fairstats.outcome_tests
n_subsamples: int = 1000  # subsamples of the power simulation (tests use a few)
subsample_size: int = 200  # people per subsample (both groups together)
seed: int = 2028  # seed of the subsamples and bootstraps

# %%
import warnings

import numpy as np
import pandas as pd
from IPython.display import display
from statsmodels.stats.proportion import test_proportions_2indep

import fairstats
from compendium.course import check, repository_path, solved
from compendium.data.compas import filter_compas, read_compas

raw = repository_path(raw_dir)
compas = filter_compas(read_compas(raw / "compas-scores-two-years-violent.csv"), outcome="violent",
                       day_window=30, exclude_charge_degrees=["O"], positive_scores=["Medium", "High"]).frame
GROUPS = ["African-American", "Caucasian"]
two = compas[compas["race"].isin(GROUPS)].reset_index(drop=True)
print(two["race"].value_counts())

# %% [markdown]
# ## 1. The whole data set
#
# The **false positive rate** (FPR: labelled Medium/High risk among those who did not re-offend violently) is
# ProPublica's headline. `outcome_tests` compares it between the groups (score test of two proportions),
# tests equivalence within ±`margin` (TOST) and reports the MDE at 80 % power.


# %%
def fpr_audit(frame: pd.DataFrame, rng: int) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fairstats.UndefinedResampleWarning)
        warnings.simplefilter("ignore", fairstats.BCaUndefinedWarning)
        res = fairstats.outcome_tests(frame, group="race", y_true="y_true", y_pred="y_pred", groups=GROUPS,
                                      tests=["predictive_equality"], alpha=alpha, margin=margin,
                                      n_resamples=n_resamples, rng=rng)
    table = fairstats.three_way_verdicts(res.table, alpha=alpha)
    return table[["metric", "count_a", "nobs_a", "count_b", "nobs_b", "estimate", "ci_low", "ci_high",
                  "pvalue", "equivalence_pvalue", "mde", "verdict"]]


full = fpr_audit(two, seed)
full.drop(columns="mde")  # the MDE is exercise 5.1's: shown after its check

# %% [markdown]
# **Exercise 5.1.** With `fairstats.mde_rate_difference` (two-sided, α = `alpha`, power 0.8), compute the
# minimum detectable FPR difference of the full data: the denominators are the non-re-offenders of each group
# and the reference rate is the Caucasian FPR.

# %%
# BEGIN SOLUTION
row = full.iloc[0]
answer_5_1 = fairstats.mde_rate_difference(row["nobs_a"], row["nobs_b"], row["count_b"] / row["nobs_b"],
                                           alpha=alpha)
# END SOLUTION
# STUB: answer_5_1 = ...
check("5.1", answer_5_1)

# %%
if solved("5.1"):
    display(full[["metric", "nobs_a", "nobs_b", "estimate", "mde", "verdict"]])

# %% [markdown]
# ## 2. A small audit
#
# An auditor has the files of only `subsample_size` defendants, drawn at random from the two groups.

# %%
small = two.sample(n=subsample_size, random_state=seed).reset_index(drop=True)
fpr_audit(small, seed)

# %% [markdown]
# **Exercise 5.2.** What should this auditor report? Answer with a letter.
#
# - **a.** Inconclusive: the verdict, the interval and the MDE against the margin all say so.
# - **b.** "No disparity": the difference test is not significant, so the two rates must be the same.
# - **c.** A disparity: the estimate is large, whatever the test says about it.
# - **d.** "Equivalent": the estimated difference is within ±`margin` of zero.

# %%
# BEGIN SOLUTION
answer_5_2 = "a"
# END SOLUTION
# STUB: answer_5_2 = ...
check("5.2", answer_5_2)

# %% [markdown]
# ## 3. Power by simulation
#
# How often does an audit of `subsample_size` people find the disparity that the full data shows? Treat the
# 3,377 people as the population and draw audits from it.
#
# **Exercise 5.3.** Draw `n_subsamples` subsamples of `subsample_size` people without replacement (one
# generator `np.random.default_rng(seed)`; `rng.choice(len(two), size=subsample_size, replace=False)`). In
# each,
# test the FPR difference with `statsmodels.stats.proportion.test_proportions_2indep(count_a, nobs_a,
# count_b, nobs_b, method="score")` (African-American first; skip nothing: a subsample where a group has no
# non-re-offender counts as "not significant"). Give the share of subsamples with p < `alpha`: the
# **empirical power**.

# %%
# BEGIN SOLUTION
rng = np.random.default_rng(seed)
negative = two["y_true"].to_numpy() == 0
flagged = two["y_pred"].to_numpy() == 1
black = (two["race"] == "African-American").to_numpy()
hits = 0
for _ in range(n_subsamples):
    idx = rng.choice(len(two), size=subsample_size, replace=False)
    neg, flag, blk = negative[idx], flagged[idx], black[idx]
    nobs_a, nobs_b = int((neg & blk).sum()), int((neg & ~blk).sum())
    if nobs_a == 0 or nobs_b == 0:
        continue
    p = test_proportions_2indep(int((neg & blk & flag).sum()), nobs_a, int((neg & ~blk & flag).sum()), nobs_b,
                                method="score").pvalue
    hits += p < alpha
answer_5_3 = hits / n_subsamples
# END SOLUTION
# STUB: answer_5_3 = ...
check("5.3", answer_5_3, n=n_subsamples, seed=seed, size=subsample_size, alpha=alpha)

# %% [markdown]
# ## 4. Planning an audit
#
# **Exercise 5.4.** You plan an audit with the **same number `m` of non-re-offenders in each group** and want
# to detect an FPR difference of **0.05** (two-sided, α = `alpha`, power 0.8) when the reference rate is the
# Caucasian FPR of the full data. What is the smallest `m` for which `fairstats.mde_rate_difference(m, m,
# rate)` is at most 0.05?

# %%
# BEGIN SOLUTION
rate = row["count_b"] / row["nobs_b"]
lo, hi = 2, 100_000
while lo < hi:  # bisection: mde_rate_difference decreases as m grows
    mid = (lo + hi) // 2
    if fairstats.mde_rate_difference(mid, mid, rate, alpha=alpha) <= 0.05:
        hi = mid
    else:
        lo = mid + 1
answer_5_4 = lo
# END SOLUTION
# STUB: answer_5_4 = ...
check("5.4", answer_5_4)

# %% [markdown]
# **Exercise 5.5.** An audit with 150 non-re-offenders per group finds an FPR difference of 0.03, p = 0.4, and
# an equivalence p of 0.2 for the margin 0.1. What does it support? Answer with a letter.
#
# - **a.** The groups are treated alike: the difference test found nothing at all, with p = 0.4 against 0.05.
# - **b.** A disparity of 0.03, which the audit has measured.
# - **c.** Nothing either way: the MDE at that size is far above 0.03 and the equivalence test fails too.
# - **d.** Equivalence, because p = 0.4 is above 0.05 and the difference is within the margin of 0.1.

# %%
# BEGIN SOLUTION
answer_5_5 = "c"
# END SOLUTION
# STUB: answer_5_5 = ...
check("5.5", answer_5_5)

# %% [markdown] tags=["solution"]
# **Answers (instructor).** 5.2: (a) — with the default seed and 200 people the FPR difference is 0.11 with
# p ≈ 0.08, the equivalence p ≈ 0.59 and an MDE of 0.185, well above the margin: *inconclusive*. Students
# who answer (b) read "not significant" as "fair"; (c) looked at the estimate, not at its uncertainty.
# 5.3: the empirical power of an audit of 200 people is about 0.65 although the disparity in the full data
# is about 0.155: one small audit in three would report nothing. 5.4: 920 non-re-offenders per group (the
# normal approximation behind `mde_rate_difference`); at the observed shares of non-re-offenders (79 % of the
# African-American and 88 % of the Caucasian defendants) that is about 1,170 and 1,050 defendants.
# 5.5: (c); (a) and (d) are the classic misreading of a non-significant test.

# %% [markdown]
# ## Try this
#
# How does the minimum detectable difference fall with the size of an audit? In a scratch cell:
#
# ```python
# for m in (100, 250, 500, 1000, 2000, 4000):
#     print(m, round(fairstats.mde_rate_difference(m, m, rate, alpha=alpha), 3),
#           round(fairstats.mde_rate_difference(m, m, rate, alpha=alpha, power=0.9), 3))
# ```
#
# *What to look for:* four times the people halve the MDE; asking for 90 % power instead of 80 % raises it by
# about a sixth (or costs about a third more people). *Why:* the standard error of a difference of rates falls
# like $1/\sqrt{m}$, and the MDE is $(z_{1-\alpha/2} + z_{\text{power}})$ standard errors.
#
# ## What to take away
#
# Before an audit, compute what it can detect; after it, report one of three verdicts, never "not
# significant, so fair". Lab 6 applies the same critical reading to a published paper.
