# %% [markdown]
# # Lab 6 — Reading a paper critically
#
# *fairstats course, lab 6 of 6 · about 50 minutes · data: the per-fold results paper B's authors committed
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

from compendium.paper_b.as_published import fold_ttest_as_published
from compendium.paper_b.authors import authors_fold_metrics
from compendium.course import check, repository_path

raw = repository_path(raw_dir)
published = pd.read_csv(repository_path(published_path), comment="#", dtype=str)
table_ii = published[published["table"] == "II"]
table_ii

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
# - **a.** The square root over $1/n_W + 1/n_B$ is missing: the factor is $\sqrt{K/2}$.
# - **b.** The variance $s_p^2$ was used instead of the standard deviation $s_p$.
# - **c.** The paired t was used instead of the pooled t.
# - **d.** The degrees of freedom are wrong (498 instead of 249).

# %%
# BEGIN SOLUTION
answer_6_2 = "a"
# END SOLUTION
# STUB: answer_6_2 = ...
check("6.2", answer_6_2)

# %% [markdown]
# **Exercise 6.3.** Test your diagnosis: compute the statistic *with the mistake*, by hand with numpy from
# `white` and `black` (pooled standard deviation with `ddof=1`), and give it. It should reproduce the printed
# 31.76 to its printed precision.

# %%
# BEGIN SOLUTION
sp = np.sqrt(((K - 1) * white.var(ddof=1) + (K - 1) * black.var(ddof=1)) / (2 * K - 2))
answer_6_3 = (white.mean() - black.mean()) / (sp * (1 / K + 1 / K))
# END SOLUTION
# STUB: answer_6_3 = ...
check("6.3", answer_6_3)

# %% [markdown]
# ### What the compendium found
#
# The compendium's `fold_ttest_as_published` sets the paper's formula beside the library's correct tests
# (`fairstats.fold_ttest`), so the erratum can be computed:

# %%
res = fold_ttest_as_published(white, black, alternative="greater")
print(f"paper's formula t = {res.statistic_paper_formula:.3f} (printed 31.76) = sqrt(K/2) x pooled t "
      f"{res.statistic_pooled:.3f}; sqrt(K/2) = {np.sqrt(K / 2):.3f}")
print(f"corrected resampled t = {res.statistic_corrected:.3f} on {res.df_corrected:.0f} df, "
      f"p = {res.pvalue_corrected:.3g}")

# %% [markdown]
# The printed statistic is $\sqrt{K/2} = 11.2$ times the pooled t: the square root is missing, every
# fold-based statistic of Tables II–X is inflated by the same factor, and the pooled t itself treats the folds
# as independent (lab 3). Here the disparity survives the corrected t; for Tables VIII–X, not always.
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
# `np.linalg.pinv`) and give the distance of the **first** pair. Then print it for all pairs: what do you see?

# %%
# BEGIN SOLUTION
def authors_distance(x: np.ndarray, y: np.ndarray) -> float:
    V = np.cov(np.vstack([x, y]), rowvar=False)
    e = x - y
    return float(np.sqrt(e @ np.linalg.pinv(V) @ e))


print([round(authors_distance(x, y), 6) for x, y in pairs])
answer_6_4 = authors_distance(*pairs[0])
# END SOLUTION
# STUB: answer_6_4 = ...
check("6.4", answer_6_4)

# %% [markdown]
# **Exercise 6.5.** What follows for the paper's "nearest other-race neighbour"? Answer with a letter.
#
# - **a.** Nothing: the distance is a proper Mahalanobis distance.
# - **b.** Every pair of distinct people is at the same distance ($V$ has rank one), so the "nearest"
#   neighbour is decided by floating-point rounding: in effect a random other-race person.
# - **c.** People of the same race are always nearer.
# - **d.** The distance is too large because the features are not standardised.

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
# ## What to take away
#
# Recompute before you trust: a printed number, the raw values behind it and a ratio between the two found
# this erratum; three examples of a distance found the other. The compendium's erratum table
# (`results/default/nij/*/tables/paper_b_erratum.csv`) lists every number affected, with its cause.
