# %% [markdown]
# # Lab 9 — Intersections: small cells, many comparisons
#
# *fairstats course, lab 9 of 9 · about 45 minutes · data: ProPublica's COMPAS file (violent re-offence),
# vendored in `data/raw/`.*
#
# A disparity can live where no single attribute shows it: young women of one group, older men of another
# (Crenshaw 1989; Buolamwini & Gebru 2018 measured it in face recognition; Kearns et al. 2018 call auditing
# every such subgroup "preventing fairness gerrymandering"). Intersections are where fairness work has to
# look, and where statistics gets hard: every attribute multiplies the number of groups and divides the people
# in each. Three things go wrong together: **cells get too small** for a test's approximation (and for any
# precise estimate), the **comparisons multiply**, so the best one looks significant by chance, and the
# **estimates of small cells are noisy**, so the most extreme rates are often the smallest cells.
#
# **You will learn to** (1) count how small intersectional cells get and when a test's approximation fails;
# (2) say what a subgroup search compares and why its p-values are adjusted over the whole search; (3) compare
# Bonferroni with the search's Westfall–Young adjustment; (4) shrink a small cell's rate toward the overall
# one, and say what that estimate is for.

# %% tags=["parameters"]
raw_dir: str = "data/raw"  # vendored raw data (a relative path is looked up from here and above)
config_path: str = "config/config.yaml"  # the compendium's configuration (its compas.presets)
alpha: float = 0.05  # family-wise level of the search's verdicts
n_resamples: int = 9999  # permutations of the search's Westfall-Young adjustment (tests use fewer)
seed: int = 2028  # seed of those permutations

# %%
import itertools
import warnings

import numpy as np
import pandas as pd
from IPython.display import display
from scipy import stats

import fairstats
from compendium.course import check, solved
from compendium.course.data import compas_preset

ATTRIBUTES = ["sex", "race", "age_cat"]
MIN_SIZE = 30  # the search compares subgroups with at least this many people inside and outside
compas = compas_preset("propublica_violent", raw_dir=raw_dir, config_path=config_path)
compas[ATTRIBUTES].nunique()

# %% [markdown]
# ## 1. How small the cells get
#
# Two sexes, six races and three age categories make 36 possible intersections of the three.
#
# **Exercise 9.1.** How many of the sex × race × age intersections hold **at least one** person but **fewer
# than** `MIN_SIZE` = 30?

# %%
# BEGIN SOLUTION
sizes = compas.groupby(ATTRIBUTES).size()
answer_9_1 = int((sizes < MIN_SIZE).sum())
# END SOLUTION
# STUB: answer_9_1 = ...
check("9.1", answer_9_1)

# %% [markdown]
# Paper A's equal confusion test of the intersections would compare the confusion cells (TP, FN, FP, TN) of
# every intersection with people: a table of 30 rows and 4 columns. Its χ² p-value rests on the expected
# counts; Cochran's rule asks that at most 20 % of them be below 5.
#
# **Exercise 9.2.** Build that table (a column `intersection` joining the three attributes, the confusion cell
# of each person as in lab 1, `pd.crosstab`), compute its expected counts with `scipy.stats.chi2_contingency`,
# and give the **share of expected counts below 5**.

# %%
# BEGIN SOLUTION
cell_of = {(1, 1): "TP", (0, 1): "FN", (1, 0): "FP", (0, 0): "TN"}
compas["cell"] = [cell_of[(p, t)] for p, t in zip(compas["y_pred"], compas["y_true"], strict=True)]
compas["intersection"] = compas["sex"] + " - " + compas["race"] + " - " + compas["age_cat"]
observed = pd.crosstab(compas["intersection"], compas["cell"])[["TP", "FN", "FP", "TN"]]
expected = stats.chi2_contingency(observed.to_numpy()).expected_freq
answer_9_2 = float((expected < 5).mean())
# END SOLUTION
# STUB: answer_9_2 = ...
check("9.2", answer_9_2)

# %% [markdown]
# What the library does with such a table (the cell waits for your check of 9.2):

# %%
if solved("9.2"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table_test = fairstats.equal_confusion_test(compas, group=ATTRIBUTES, y_true="y_true",
                                                    y_pred="y_pred",
                                                    n_resamples=999, rng=seed)
    for w in caught:
        print(f"{type(w.message).__name__}: {w.message}")
    print(f"chi2 = {table_test.statistic:.1f} on {table_test.df} df; Cochran's rule holds: "
          f"{table_test.cochran_ok}; "
          f"permutation p = {table_test.pvalue_permutation:.4f} (999 permutations)")

# %% [markdown]
# **Exercise 9.3.** What should an auditor do with the intersections? Answer with a letter.
#
# - **a.** Say which cells are too small to test, and compare subgroups large enough, with an adjusted p.
# - **b.** Trust the χ² p-value of the whole table: with 4,020 people the large-sample approximation holds in
#   every cell of it.
# - **c.** Drop the small intersections without a word and test the others as if they were all the people in
#   the data.
# - **d.** Merge every small intersection into one group "other", which changes nothing about what the test
#   compares.

# %%
# BEGIN SOLUTION
answer_9_3 = "a"
# END SOLUTION
# STUB: answer_9_3 = ...
check("9.3", answer_9_3)

# %% [markdown]
# ## 2. The subgroup search and its family-wise p
#
# `fairstats.subgroup_search` compares every **subgroup** defined by one, two or three attribute values
# (`race = Other`, `sex = Female & age_cat = Less than 25`, ...) with at least `MIN_SIZE` people inside
# **and** outside it with the rest of the people, here on the false positive rate. Its p-values are adjusted
# over the whole search by Westfall and Young's step-down max-T permutation method (lab 4).
#
# **Exercise 9.4.** Before running it: how many subgroups will it compare? Count, with pandas, the value
# combinations of every set of one, two or three of the attributes that have at least `MIN_SIZE` people
# inside and at least `MIN_SIZE` outside.

# %%
# BEGIN SOLUTION
n_people = len(compas)
answer_9_4 = 0
for depth in (1, 2, 3):
    for columns in itertools.combinations(ATTRIBUTES, depth):
        counts = compas.groupby(list(columns)).size()
        answer_9_4 += int(((counts >= MIN_SIZE) & (n_people - counts >= MIN_SIZE)).sum())
# END SOLUTION
# STUB: answer_9_4 = ...
check("9.4", answer_9_4)

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore", fairstats.UndefinedTestWarning)
    search = fairstats.subgroup_search(compas, group=ATTRIBUTES, y_true="y_true", y_pred="y_pred",
                                       metrics=["fpr"], max_depth=3, min_size=MIN_SIZE, alpha=alpha,
                                       n_resamples=n_resamples, rng=seed)
if solved("9.4"):
    print(f"{search.n_subgroups} subgroups, {search.n_tests} comparisons, {search.n_resamples} permutations")
    display(search.table[["subgroup", "n", "estimate", "statistic", "verdict"]].head(8))

# %% [markdown]
# **Exercise 9.5.** Take the subgroup `race = Other` (255 people; its row of `search.table`). From its z
# statistic (`statistic`), compute its two-sided normal p-value and **Bonferroni**'s adjustment over the whole
# search, $\min(1, m\,p)$ with $m$ the number of comparisons the search made. Give the Bonferroni-adjusted p.

# %%
# BEGIN SOLUTION
other = search.table.set_index("subgroup").loc["race = Other"]
p_normal = 2 * stats.norm.sf(abs(other["statistic"]))
answer_9_5 = min(1.0, search.n_tests * p_normal)
# END SOLUTION
# STUB: answer_9_5 = ...
check("9.5", answer_9_5, n_resamples=n_resamples, seed=seed)

# %% [markdown]
# Bonferroni against the search's own adjustment, for the subgroups around `race = Other` (the cell waits for
# your check of 9.5):

# %%
if solved("9.5"):
    around = search.table[search.table["statistic"].abs().between(2.4, 4.5)].assign(
        pvalue_normal=lambda t: 2 * stats.norm.sf(t["statistic"].abs()),
        bonferroni=lambda t: np.minimum(1, search.n_tests * t["pvalue_normal"]))
    display(around[["subgroup", "n", "statistic", "pvalue", "pvalue_adjusted", "bonferroni", "verdict"]]
            .round(4))

# %% [markdown]
# **Exercise 9.6.** What does the search's adjusted p-value of a subgroup (`pvalue_adjusted`) say? Answer with
# a letter.
#
# - **a.** The probability that this subgroup's disparity is real, given what the search found.
# - **b.** The p-value of this one comparison, as if the subgroup had been chosen before anybody saw the data.
# - **c.** The share of the searched subgroups whose false positive rate differs from the rest of the people.
# - **d.** Roughly, how often a search with no disparity anywhere would give *some* subgroup a |z| this large.

# %%
# BEGIN SOLUTION
answer_9_6 = "d"
# END SOLUTION
# STUB: answer_9_6 = ...
check("9.6", answer_9_6)

# %% [markdown]
# ## 3. Estimating a small cell's rate
#
# A test is one question; an estimate is another. The intersection *Female - Other - Less than 25* has 13
# people, 12 of whom did not re-offend; 10 of those 12 were labelled risky: a false positive rate of 0.83, the
# highest of all. With 12 people that number is mostly noise. **Shrinkage** (partial pooling) pulls a small
# cell's rate toward the overall rate, the more the smaller the cell: with the overall false positive rate
# $p_0$ counted as $m$ extra non-re-offenders, the estimate is $(\mathrm{FP} + m\,p_0) / (N_0 + m)$, $N_0$ the
# cell's non-re-offenders (a beta-binomial posterior mean; Gelman et al., *Bayesian Data Analysis*, 3rd ed.,
# Sec. 5.3; $m$ is the prior's strength, chosen here, estimated from the cells in an empirical Bayes
# analysis).
#
# **Exercise 9.7.** With $m = 20$ and $p_0$ the false positive rate of **all** 4,020 people, give the shrunk
# false positive rate of *Female - Other - Less than 25*.

# %%
# BEGIN SOLUTION
negatives = compas[compas["y_true"] == 0]
p0 = negatives["y_pred"].mean()
cell = negatives[negatives["intersection"] == "Female - Other - Less than 25"]
answer_9_7 = (cell["y_pred"].sum() + 20 * p0) / (len(cell) + 20)
# END SOLUTION
# STUB: answer_9_7 = ...
check("9.7", answer_9_7)

# %% [markdown]
# Every intersection's raw and shrunk false positive rate, smallest cells first (the cell waits for your check
# of 9.7):

# %%
if solved("9.7"):
    rates = negatives.groupby("intersection")["y_pred"].agg(false_positives="sum", non_reoffenders="size")
    rates["fpr"] = rates["false_positives"] / rates["non_reoffenders"]
    rates["fpr_shrunk"] = (rates["false_positives"] + 20 * p0) / (rates["non_reoffenders"] + 20)
    display(rates.sort_values("non_reoffenders").round(3).head(12))

# %% [markdown] tags=["solution"]
# **Answers (instructor).** 9.1: 11 of the 30 intersections with people are below 30 (two hold a single
# person), and 6 of the 36 possible ones are empty. 9.2: 50 of the 120 expected counts (0.42) are below 5,
# far beyond Cochran's 20 %; the library warns and reports a permutation p-value. 9.3 (a): (b) confuses the
# total with the cells; (c) hides the exclusion; (d) changes the question (an "other" group of unrelated
# people). 9.4: 54 subgroups (9 of one value, 26 of two, 19 of three). 9.5: z = −2.95, p = 0.0031, Bonferroni
# 54 × p = 0.17: not significant; the Westfall–Young adjusted p is about 0.02, significant at 0.05 — the
# subgroups overlap, so their z statistics are correlated and the max-T adjustment, which uses the
# correlation, is less conservative than Bonferroni, which ignores it. 9.6 (d): (a) is the classic misreading
# of any p-value; (b) is the unadjusted p; (c) is not what a p-value measures. 9.7: (10 + 20 × 0.226) / (12 +
# 20) = 0.45 instead of 0.83. Shrinkage is for estimates (what to report, how to rank cells); a test of the
# cell still needs its own p-value and the family it belongs to.

# %% [markdown]
# ## Try this
#
# Lower the search's minimum size and watch the family grow, in a scratch cell:
#
# ```python
# for min_size in (30, 10, 5):
#     with warnings.catch_warnings():
#         warnings.simplefilter("ignore", fairstats.UndefinedTestWarning)
#         s = fairstats.subgroup_search(compas, group=ATTRIBUTES, y_true="y_true", y_pred="y_pred",
#                                       metrics=["fpr"], max_depth=3, min_size=min_size, alpha=alpha,
#                                       n_resamples=999, rng=seed)
#     row = s.table.set_index("subgroup").loc["race = Other"]
#     print(min_size, s.n_tests, round(row["statistic"], 2), row["pvalue_adjusted"])
# ```
#
# *What to look for:* the number of comparisons grows as tiny intersections enter, while the z of
# `race = Other` does not change; its adjusted p-value grows. *Why:* the adjustment pays for every comparison
# in the family, including the small subgroups that can only show enormous differences: a minimum size is a
# choice about which questions are worth their cost.
#
# ## What to take away
#
# At the intersections, say which cells are too small to test and to estimate, adjust a search's p-values for
# the whole search (with a method that uses the overlap between subgroups), and report a small cell's rate
# with its uncertainty or shrunk toward the overall rate — never its raw extreme as a finding. The audit
# report of the course's last assignment (the rubric in `docs/course.md`) asks for all three.
