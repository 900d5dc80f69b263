# %% [markdown]
# # Lab 1 — What a confusion table hides
#
# *fairstats course, lab 1 of 9 · about 45 minutes · data: ProPublica's COMPAS file (violent re-offence),
# vendored in `data/raw/`.*
#
# Paper A (Gursoy & Kakadiaris, *Equal confusion fairness*) asks one question of a risk score: are the four
# cells of the confusion matrix — TP, FN, FP, TN — shared out the same way in every group? It answers with a
# χ² test of the **group × cell** table, Cramér's V as effect size, and adjusted standardized residuals to see
# which cells drive the verdict.
#
# In this lab you build that table **by hand** with pandas, test it **with scipy alone**, and only then with
# `fairstats.equal_confusion_test`, so that you know what the library does for you.
#
# **You will learn to** (1) turn predictions and outcomes into confusion cells per group; (2) compute χ², its
# degrees of freedom and Cramér's V from a contingency table; (3) read adjusted residuals to say *which* cells
# make a table unequal; (4) recognise when the χ² approximation is not trustworthy.
#
# Each exercise ends with a `check(...)` cell: it says **right**, or **not yet** with a hint. Replace each
# `...`
# with your answer and re-run the cell.

# %% tags=["parameters"]
raw_dir: str = "data/raw"  # vendored raw data (a relative path is looked up from here and above)
n_resamples: int = 9999  # Monte Carlo permutations of the equal confusion test when Cochran's rule fails
seed: int = 2028  # seed of those permutations

# %%
import warnings

import numpy as np
import pandas as pd
from IPython.display import display
from scipy import stats

import fairstats
from compendium.course import check, repository_path, solved
from compendium.data.compas import filter_compas, read_compas

raw = repository_path(raw_dir)

# %% [markdown]
# ## 1. The data
#
# ProPublica's filter (lab 2 takes it apart) leaves 4,020 people. Each row has `y_true` (1 = re-offended
# violently within two years), `y_pred` (1 = COMPAS said Medium or High risk) and `race`.

# %%
compas = filter_compas(read_compas(raw / "compas-scores-two-years-violent.csv"), outcome="violent",
                       day_window=30, exclude_charge_degrees=["O"], positive_scores=["Medium", "High"]).frame
compas[["race", "sex", "age_cat", "y_true", "y_pred"]].head()

# %% [markdown]
# ## 2. The group × cell table, by hand
#
# A person is in cell **TP** if `y_pred == 1` and `y_true == 1`, **FN** if 0 and 1, **FP** if 1 and 0, **TN**
# if 0 and 0.
#
# **Exercise 1.1.** Add a column `cell` with these labels, build the table `observed` of counts with one row
# per race and the columns in the order TP, FN, FP, TN (`pd.crosstab`), and give the number of
# **African-American** defendants who are **false positives**.

# %%
# BEGIN SOLUTION
cell_of = {(1, 1): "TP", (0, 1): "FN", (1, 0): "FP", (0, 0): "TN"}
compas["cell"] = [cell_of[(p, t)] for p, t in zip(compas["y_pred"], compas["y_true"], strict=True)]
observed = pd.crosstab(compas["race"], compas["cell"])[["TP", "FN", "FP", "TN"]]
answer_1_1 = observed.loc["African-American", "FP"]
# END SOLUTION
# STUB: observed = ...  # the race x cell table of counts
# STUB: answer_1_1 = ...
check("1.1", answer_1_1)

# %% [markdown]
# ## 3. χ² and Cramér's V with scipy
#
# **Exercise 1.2.** Compute Pearson's χ² statistic of `observed` with `scipy.stats.chi2_contingency`
# (keep the expected counts: you need them below).
#
# **Exercise 1.3.** Compute Cramér's V of the same table with `scipy.stats.contingency.association`.

# %%
# BEGIN SOLUTION
res = stats.chi2_contingency(observed.to_numpy())
expected = res.expected_freq
answer_1_2 = res.statistic
# END SOLUTION
# STUB: answer_1_2 = ...
check("1.2", answer_1_2)

# %%
# BEGIN SOLUTION
answer_1_3 = stats.contingency.association(observed.to_numpy(), method="cramer")
# END SOLUTION
# STUB: answer_1_3 = ...
check("1.3", answer_1_3)

# %% [markdown]
# ## 4. Which cells drive the verdict?
#
# The adjusted standardized residual of cell (i, j) is
# $r_{ij} = (O_{ij} - E_{ij}) / \sqrt{E_{ij}\,(1 - O_{i+}/n)\,(1 - O_{+j}/n)}$
# (Agresti 2013, Sec. 2.4.5): roughly standard normal when the group and the cell are independent.
#
# **Exercise 1.4.** Compute the table `residuals` of every cell's adjusted residual with numpy from `observed`
# (a DataFrame with the races as rows and TP, FN, FP, TN as columns), and give the residual of the cell
# (**African-American**, **TN**).

# %%
# BEGIN SOLUTION
obs = observed.to_numpy(dtype=float)
n = obs.sum()
rows, cols = obs.sum(axis=1, keepdims=True), obs.sum(axis=0, keepdims=True)
exp = rows @ cols / n
residuals = pd.DataFrame((obs - exp) / np.sqrt(exp * (1 - rows / n) * (1 - cols / n)),
                         index=observed.index, columns=observed.columns)
answer_1_4 = residuals.loc["African-American", "TN"]
# END SOLUTION
# STUB: residuals = ...  # adjusted residuals: races x (TP, FN, FP, TN)
# STUB: answer_1_4 = ...
check("1.4", answer_1_4)

# %% [markdown]
# **Exercise 1.5.** Look at your table `residuals`. Which cells drive the verdict? Answer with a letter.
#
# - **a.** The FN column: the score misses re-offenders of one group much more often than those of the other.
# - **b.** The Asian and Native American rows, whose residuals are the largest because their groups are small.
# - **c.** Who is labelled risky: African-American defendants are more often TP and FP and less often TN.
# - **d.** No cell in particular: χ² is a sum to which every one of the 24 cells contributes about equally.

# %%
# BEGIN SOLUTION
answer_1_5 = "c"
# END SOLUTION
# STUB: answer_1_5 = ...
check("1.5", answer_1_5)

# %% [markdown] tags=["solution"]
# **Answer 1.5 (instructor).** (c): the largest |r| are African-American TN (−13.1), TP (+9.6), FP (+8.5) and
# Caucasian TN (+9.7), TP (−7.2), FP (−6.5), all far past the strict cut-off 3.29. The FN column has no
# residual beyond ±1.5: among re-offenders, both groups are missed about as often; the disparity is in who is
# *labelled* risky.

# %% [markdown]
# ## 5. The same with the library — can the χ² p-value be trusted here?
#
# `fairstats.equal_confusion_test` builds the table, tests it, and returns the residuals with their cut-offs
# (Bonferroni over the $q \times 4$ cells, and the strict 3.29). Cochran's rule asks that no expected count be
# below 1 and at most 20 % below 5.

# %%
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    result = fairstats.equal_confusion_test(compas, group="race", y_true="y_true", y_pred="y_pred",
                                            n_resamples=n_resamples, rng=seed)
print("warnings:", sorted({type(w.message).__name__ for w in caught}))
print(f"cochran_ok = {result.cochran_ok}, smallest expected count = {result.cochran_min_expected:.3f}, "
      f"permutation p = {result.pvalue_permutation:.4g} ({n_resamples} permutations)")

# %% [markdown]
# The library's statistic, Cramér's V and residuals, to compare with yours (the cell waits for your checks):

# %%
if solved("1.2", "1.3", "1.4"):
    print(f"chi2 = {result.statistic:.3f} on {result.df} df, p = {result.pvalue:.3g}, "
          f"V = {result.cramers_v:.4f}")
    display(result.residuals.round(2))

# %% [markdown]
# **Exercise 1.6.** Look at `result.cochran_ok`, `result.cochran_min_expected`, `result.pvalue_permutation`
# and the warnings printed above. What did `fairstats` do? Answer with a letter.
#
# - **a.** Nothing special: the χ² p-value of a table is exact whatever its counts, so no warning is due.
# - **b.** It warned (`SmallExpectedCountWarning`) that the rule fails and reported a permutation p-value.
# - **c.** It dropped the small Asian and Native American groups without a word and tested the other races.
# - **d.** It refused to test the table, because two of its groups have fewer than 30 people.

# %%
# BEGIN SOLUTION
answer_1_6 = "b"
# END SOLUTION
# STUB: answer_1_6 = ...
check("1.6", answer_1_6)

# %% [markdown]
# ## Try this
#
# Drop the two smallest groups and test again, in a scratch cell:
#
# ```python
# big = compas[~compas["race"].isin(["Asian", "Native American"])]
# res = fairstats.equal_confusion_test(big, group="race", y_true="y_true", y_pred="y_pred")
# print(res.statistic, res.df, res.cochran_ok, res.cochran_min_expected, res.pvalue_permutation)
# ```
#
# *What to look for:* χ² barely moves (it lives in the two large groups) but Cochran's rule now holds, so no
# permutation p-value is needed. *Why:* the tiny groups add little to χ², yet they make its large-sample
# approximation doubtful. Which groups you report is part of the analysis: say which you dropped and why.
#
# ## What to take away
#
# A single p-value ("the table is unequal") hides *where* it is unequal. The residuals show that the COMPAS
# disparity between African-American and Caucasian defendants sits in the TP/FP/TN cells — who is labelled
# risky — not in the FN cells. Lab 2 asks whether this survives a different choice of who is in the data.
