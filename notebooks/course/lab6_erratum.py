# %% [markdown]
# # Lab 6 — Reading a paper critically
#
# *fairstats course, lab 6 of 9 · about 50 minutes · data: the per-fold results paper B's authors committed
# (`data/raw/paper-b-authors/`), paper B's printed tables (`data/published/paper-b-tables.csv`) and the
# authors' NIJ test folds (`data/raw/nij-paper-folds/`).*
#
# Paper B prints, for logistic regression in Table II, a test statistic of **31.76** on 498 degrees of
# freedom (p ≈ 0) for a difference of positive prediction rates of 0.023. Something is off. In this lab you
# are the referee: you find *what* from the authors' own numbers **before** the notebook tells you, then you
# examine the paper's "Mahalanobis" distance of fairness through awareness (Tables XXI–XXV).
#
# **You will learn to** (1) recompute a published statistic from the raw per-fold values; (2) diagnose a
# formula from the ratio between a printed and a recomputed number; (3) check a distance on a few examples
# before trusting what is built on it.

# %% tags=["parameters"]
raw_dir: str = "data/raw"  # vendored raw data (a relative path is looked up from here and above)
published_path: str = "data/published/paper-b-tables.csv"  # paper B's printed numbers, as printed
n_pairs: int = 5  # pairs of NIJ people whose "Mahalanobis" distance is computed in part 2
seed: int = 2028  # seed of the choice of those pairs

# %%
import numpy as np
import pandas as pd
from scipy import stats

from compendium.course import attempt, check, repository_path, solved
from compendium.paper_b.as_published import fold_ttest_as_published
from compendium.paper_b.authors import authors_fold_metrics

raw = repository_path(raw_dir)
published = pd.read_csv(repository_path(published_path), comment="#", dtype=str)
table_ii = published[published["table"] == "II"]
table_ii[table_ii["row"] == "Logistic Regression"]

# %% [markdown]
# ## 1. A statistic that is too large
#
# The per-fold positive (favourable) prediction rates of each race, for logistic regression:

# %%
per_fold = authors_fold_metrics(raw / "paper-b-authors")
lr = per_fold[(per_fold["model"] == "lr") & (per_fold["metric"] == "ppr")]
white = lr.loc[lr["group"] == "White", "value"].to_numpy()
black = lr.loc[lr["group"] == "Black", "value"].to_numpy()
K = len(white)
print(f"K = {K} folds; mean White {white.mean():.4f}, mean Black {black.mean():.4f}, "
      f"difference {white.mean() - black.mean():.4f}")

# %% [markdown]
# **Exercise 6.1.** The paper says it uses a two-sample t-test on the 2 × 250 values. Compute the ordinary
# pooled two-sample t statistic (`scipy.stats.ttest_ind`, White first) and give the **ratio** of the printed
# statistic (31.76) to yours.

# %%
# BEGIN SOLUTION
pooled = stats.ttest_ind(white, black).statistic
printed = float(table_ii.loc[(table_ii["row"] == "Logistic Regression")
                             & (table_ii["column"] == "Test Statistic"), "published"].iloc[0])
answer_6_1 = printed / pooled
# END SOLUTION
# STUB: answer_6_1 = ...
check("6.1", answer_6_1)

# %% [markdown]
# **Exercise 6.2.** Which mistake in the formula gives exactly that factor? The pooled t is
# $(\bar x_W - \bar x_B) / \big(s_p \sqrt{1/n_W + 1/n_B}\big)$ with $n_W = n_B = K$. Answer with a letter.
#
# - **a.** The variance $s_p^2$ was used instead of the standard deviation $s_p$.
# - **b.** The paired t was used instead of the pooled t.
# - **c.** The degrees of freedom are wrong (498 instead of 249).
# - **d.** The square root over $1/n_W + 1/n_B$ is missing from the statistic's denominator.

# %%
# BEGIN SOLUTION
answer_6_2 = "d"
# END SOLUTION
# STUB: answer_6_2 = ...
check("6.2", answer_6_2)

# %% [markdown]
# **Exercise 6.3.** Test your diagnosis on another model: compute the statistic *with the mistake* for
# **random forest** (`model == "rf"`), by hand with numpy from its per-fold rates (pooled standard deviation
# with `ddof=1`), and give it. Then find the value Table II prints for random forest in `published` (this
# notebook does not show it): does your diagnosis reproduce it to its printed precision?

# %%
# BEGIN SOLUTION
rf = per_fold[(per_fold["model"] == "rf") & (per_fold["metric"] == "ppr")]
white_rf = rf.loc[rf["group"] == "White", "value"].to_numpy()
black_rf = rf.loc[rf["group"] == "Black", "value"].to_numpy()
sp = np.sqrt(((K - 1) * white_rf.var(ddof=1) + (K - 1) * black_rf.var(ddof=1)) / (2 * K - 2))
answer_6_3 = (white_rf.mean() - black_rf.mean()) / (sp * (1 / K + 1 / K))
# END SOLUTION
# STUB: answer_6_3 = ...
check("6.3", answer_6_3)

# %% [markdown]
# ### What the compendium found
#
# The compendium's `fold_ttest_as_published` sets the paper's formula beside the library's correct tests
# (`fairstats.fold_ttest`), so the erratum can be computed (the cell waits for your checks of 6.1 and 6.3):

# %%
if solved("6.1", "6.3"):
    for model, label in (("lr", "Logistic Regression"), ("rf", "Random Forest")):
        rates = per_fold[(per_fold["model"] == model) & (per_fold["metric"] == "ppr")]
        res = fold_ttest_as_published(rates.loc[rates["group"] == "White", "value"].to_numpy(),
                                      rates.loc[rates["group"] == "Black", "value"].to_numpy(),
                                      alternative="greater")
        printed_t = table_ii.loc[(table_ii["row"] == label) & (table_ii["column"] == "Test Statistic"),
                                 "published"].iloc[0]
        print(f"{model}: paper's formula t = {res.statistic_paper_formula:.3f} (printed {printed_t}) = "
              f"sqrt(K/2) x pooled t {res.statistic_pooled:.3f}; corrected resampled t = "
              f"{res.statistic_corrected:.3f} on {res.df_corrected:.0f} df, p = {res.pvalue_corrected:.3g}")
    print(f"sqrt(K/2) = {np.sqrt(K / 2):.3f}")

# %% [markdown]
# The printed statistic is the pooled t times $\sqrt{K/2}$ (exercise 6.1's ratio): the square root is
# missing, every fold-based statistic of Tables II–X is inflated by the same factor, and the pooled t itself
# treats the folds as independent (lab 3). Here the disparity survives the corrected t; for Tables VIII–X, not
# always.
#
# ## 2. A distance that does not measure anything
#
# For fairness through awareness, paper B pairs every test person with the "nearest" person of the other race
# by a Mahalanobis distance whose covariance matrix is **that of the two vectors being compared**:
# $V = \operatorname{cov}\big(\begin{smallmatrix} x^T \\ y^T \end{smallmatrix}\big)$,
# $d(x, y) = \sqrt{(x - y)^T V^{+} (x - y)}$ with $V^{+}$ the pseudo-inverse (`numpy.linalg.pinv`).
#
# Below, `pairs` holds `n_pairs` random pairs of people of fold 0 of the authors' NIJ files (their numeric
# columns).

# %%
fold0 = pd.read_csv(raw / "nij-paper-folds" / "fold_000.csv", index_col=0)
numeric = fold0.select_dtypes("number").drop(columns=["Unnamed: 0.1", "ID"], errors="ignore")
numeric = numeric.loc[:, numeric.std() > 0].astype(float)
rng = np.random.default_rng(seed)
pairs = [tuple(numeric.iloc[rng.choice(len(numeric), size=2, replace=False)].to_numpy())
         for _ in range(n_pairs)]
print(f"{numeric.shape[1]} numeric features; {len(pairs)} pairs")

# %% [markdown]
# **Exercise 6.4.** Write `authors_distance(x, y)` as described (`np.cov(np.vstack([x, y]), rowvar=False)`,
# `np.linalg.pinv`). The cell gives the distance of the **first** pair to the check (through `attempt`, so
# that an error in your function reaches the check, which explains it), then prints it for all pairs: what do
# you see?

# %%
def authors_distance(x: np.ndarray, y: np.ndarray) -> float:
    # BEGIN SOLUTION
    V = np.cov(np.vstack([x, y]), rowvar=False)
    e = x - y
    return float(np.sqrt(e @ np.linalg.pinv(V) @ e))
    # END SOLUTION
    # STUB: return ...  # the distance of x and y


answer_6_4 = attempt(authors_distance, *pairs[0])
check("6.4", answer_6_4)
print([attempt(authors_distance, x, y) for x, y in pairs])

# %% [markdown]
# **Exercise 6.5.** What follows for the paper's "nearest other-race neighbour"? Answer with a letter.
#
# - **a.** Nothing: the distance is a proper Mahalanobis distance, and the nearest neighbour is a meaningful
#   one.
# - **b.** All pairs of distinct people are equally far apart ($V$ has rank one): rounding picks the
#   "nearest".
# - **c.** People of the same race are always nearer to each other than to anybody of the other race.
# - **d.** The distances are too large, because the features were not standardised before the comparison.

# %%
# BEGIN SOLUTION
answer_6_5 = "b"
# END SOLUTION
# STUB: answer_6_5 = ...
check("6.5", answer_6_5)

# %% [markdown] tags=["solution"]
# **Answer 6.5 (instructor).** With two observations the sample covariance is $V = \tfrac12 e e^T$
# ($e = x - y$), of rank one; its pseudo-inverse is $2 e e^T / \lVert e \rVert^4$, so
# $d^2 = e^T V^{+} e = 2$ for every $x \neq y$. A Mahalanobis distance needs the covariance of the
# *population* (e.g. `fairstats.mahalanobis_whitening` on the training people). Students who choose (d)
# have noticed something true about the features but not the reason the distance is constant. The printed
# distances are not *exactly* 1.414214: the floating-point error of the SVD behind `pinv` differs from pair to
# pair (the check accepts 0.1 %), and that error is what the authors' search picks the "nearest" person by.

# %% [markdown]
# ## Try this
#
# Is the factor the same for every model of Table II? In a scratch cell:
#
# ```python
# models = {"lr": "Logistic Regression", "lda": "Linear Discriminant Analysis", "rf": "Random Forest",
#           "xgb": "Gradient Boosting"}
# for model, label in models.items():
#     rates = per_fold[(per_fold["model"] == model) & (per_fold["metric"] == "ppr")]
#     w = rates.loc[rates["group"] == "White", "value"].to_numpy()
#     b = rates.loc[rates["group"] == "Black", "value"].to_numpy()
#     printed_t = float(table_ii.loc[(table_ii["row"] == label) & (table_ii["column"] == "Test Statistic"),
#                                    "published"].iloc[0])
#     print(model, round(printed_t / stats.ttest_ind(w, b).statistic, 3))
# ```
#
# *What to look for:* the same ratio for all four models, up to the rounding of the print. *Why:* a factor
# that does not depend on the data is a formula's, not the data's: that is how the ratio of exercise 6.1
# diagnoses the mistake.
#
# ## What to take away
#
# Recompute before you trust: a printed number, the raw values behind it and a ratio between the two found
# this erratum; three examples of a distance found the other. The compendium's erratum table
# (`results/default/nij/*/tables/paper_b_erratum.csv`) lists every number affected, with its cause.
