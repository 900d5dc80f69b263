"""Reference numbers of the score tests: R's pROC (DeLong) and R's glm (logistic recalibration).

The data sets are built here deterministically (integer arithmetic, the same in R); the numbers were computed
once with R 4.2.2, pROC 1.18.0 (Debian's r-base-core and r-cran-proc) and are carried as constants, with the
exact call that produced them. R is not a test dependency.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit, logit

from fairstats import auc_delong, auc_tests, recalibration_tests


def d1():
    # R: i1 <- 1:40; s1 <- ((i1 * 37) %% 101) / 101
    # R: y1 <- as.integer(((i1 * 37) %% 101 + 3 * ((i1 * 17) %% 43)) > 110)
    i = np.arange(1, 41)
    return (((i * 37) % 101 + 3 * ((i * 17) % 43)) > 110).astype(int), ((i * 37) % 101) / 101


def d2():
    # R: i2 <- 1:60; s2 <- (i2 * 7) %% 10 + 1; y2 <- as.integer(((i2 * 7) %% 10 + 2 * ((i2 * 11) %% 9)) > 12)
    # (decile-like scores 1..10 with ties)
    i = np.arange(1, 61)
    return (((i * 7) % 10 + 2 * ((i * 11) % 9)) > 12).astype(int), (i * 7) % 10 + 1.0


def d3():
    # R: i3 <- 1:35; s3 <- ((i3 * 29) %% 53) / 53
    # R: y3 <- as.integer(((i3 * 29) %% 53 + 3 * ((i3 * 5) %% 31)) > 70)
    i = np.arange(1, 36)
    return (((i * 29) % 53 + 3 * ((i * 5) % 31)) > 70).astype(int), ((i * 29) % 53) / 53


# R: r <- roc(y, s, levels = c(0, 1), direction = "<"); as.numeric(auc(r)); var(r, method = "delong")
PROC = {
    "d1": (21, 19, 0.804511278195489, 0.00502900246997332),
    "d2": (29, 31, 0.710233592880979, 0.0045429793778905),
    "d3": (17, 18, 0.699346405228758, 0.00865373863245157),
}
# R: t <- roc.test(ra, rb, method = "delong", paired = FALSE); t$statistic; t$parameter; t$p.value
PROC_UNPAIRED = {
    ("d1", "d3"): (0.899050623980403, 65.6661654452698, 0.371910696715739),
    ("d2", "d3"): (0.0947725879735587, 68.2319605020754, 0.924773234901624),
    ("d1", "d2"): (0.963624821211725, 91.7796361517437, 0.337766175598645),
}
DATA = {"d1": d1, "d2": d2, "d3": d3}


def test_the_data_sets_are_the_ones_given_to_r():
    # R: paste(y1, collapse = "") and the count of cases printed by the script
    assert "".join(map(str, d1()[0])) == "0101101101010011101100011010110100101001"
    assert [int(DATA[k]()[0].sum()) for k in DATA] == [PROC[k][0] for k in DATA]


@pytest.mark.parametrize("name", list(PROC))
def test_auc_and_delong_variance_match_proc(name):
    y, s = DATA[name]()
    n_pos, n_neg, auc, var = PROC[name]
    r = auc_delong(pd.DataFrame({"y": y, "s": s}), y_true="y", y_score="s")
    assert (r.n_pos, r.n_neg) == (n_pos, n_neg)
    assert r.auc == pytest.approx(auc, abs=1e-12)
    assert r.variance == pytest.approx(var, abs=1e-12)  # the issue asks 1e-6; the two agree to rounding
    # pROC's ci.auc(r, method = "delong"): auc +- qnorm(0.975) sqrt(var), clipped to [0, 1]
    half = stats.norm.ppf(0.975) * np.sqrt(var)
    assert (r.ci_low, r.ci_high) == pytest.approx((max(auc - half, 0), min(auc + half, 1)), abs=1e-12)


@pytest.mark.parametrize("a, b", list(PROC_UNPAIRED))
def test_unpaired_difference_matches_proc_statistic(a, b):
    (ya, sa), (yb, sb) = DATA[a](), DATA[b]()
    frame = pd.DataFrame({"g": [a] * ya.size + [b] * yb.size, "y": np.r_[ya, yb], "s": np.r_[sa, sb]})
    res = auc_tests(frame, group="g", y_true="y", y_score="s", reference=b)
    row = res.comparisons.iloc[0]
    statistic, df, p_t = PROC_UNPAIRED[(a, b)]
    # the same statistic D; pROC refers it to a t on Welch's df, fairstats to the normal
    assert row["statistic"] == pytest.approx(statistic, abs=1e-9)
    assert 2 * stats.t.sf(abs(row["statistic"]), df) == pytest.approx(p_t, abs=1e-9)
    assert 2 * stats.norm.sf(abs(row["statistic"])) < p_t  # the normal has thinner tails than the t
    # these data sets hold 17 to 30 cases per class: where a group has fewer than 20 (issue 39, item 4) the
    # statistic is shown but the test is not done (its size is not held there), the reason says whose count
    n_pos, n_neg = (min(PROC[a][i], PROC[b][i]) for i in (0, 1))
    if min(n_pos, n_neg) < 20:
        assert np.isnan(row["pvalue"]) and row["verdict"] == "undefined" and "fewer than 20" in row["reason"]
    else:
        assert row["pvalue"] == pytest.approx(2 * stats.norm.sf(abs(statistic)), abs=1e-9)


def test_delong_variance_agrees_with_a_stratified_bootstrap():
    """DeLong's variance against the variance of 4,000 stratified bootstrap AUCs (cases and controls resampled
    separately, as pROC's var(method = "bootstrap")), within Monte-Carlo error: the bootstrap variance
    estimate has relative standard error about sqrt(2 / B) = 2.2 %; three of them (6.7 %) is the tolerance
    (seen: bootstrap / DeLong = 1.037)."""
    rng = np.random.default_rng(20261201)
    n = 400
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(rng.normal(loc=0.9 * y), 2)
    delong = auc_delong(pd.DataFrame({"y": y, "s": s}), y_true="y", y_score="s").variance
    pos, neg = s[y == 1], s[y == 0]
    b = 4000
    both = np.concatenate([rng.choice(pos, (b, pos.size)), rng.choice(neg, (b, neg.size))], axis=1)
    ranks = stats.rankdata(both, axis=1)[:, : pos.size].sum(axis=1)  # midranks of the resampled cases
    aucs = (ranks - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size)
    boot = aucs.var(ddof=1)
    assert boot == pytest.approx(delong, rel=3 * np.sqrt(2 / b))


def d4():
    # R: i <- 1:300; p <- ((i * 37) %% 97 + 1) / 99; u <- ((i * 61) %% 89 + 0.5) / 89
    # R: y <- as.integer(u < p^1.3)
    i = np.arange(1, 301)
    p = ((i * 37) % 97 + 1) / 99
    u = ((i * 61) % 89 + 0.5) / 89
    return i, p, (u < p**1.3).astype(int)


def test_recalibration_matches_r_glm():
    i, p, y = d4()
    # R: ctl <- glm.control(epsilon = 1e-14, maxit = 100)
    # R: slope <- glm(y ~ qlogis(p), family = binomial, control = ctl)
    # R: coef(slope)[2]; sqrt(vcov(slope)[2, 2])
    # R: citl <- glm(y ~ 1, offset = qlogis(p), family = binomial, control = ctl)
    # R: coef(citl)[1]; sqrt(vcov(citl)[1, 1])
    slope, slope_se, citl, citl_se = 1.09393211415885, 0.133668252798214, -0.377804805547445, 0.14096630268783
    frame = pd.DataFrame({"g": np.where(i % 2 == 1, "odd", "even"), "p": p, "y": y})
    # one group "all" (with a second, tiny, group to compare against) reproduces R's single-sample fit
    both = pd.concat([frame.assign(g="all"), frame.iloc[:50].assign(g="z")])
    res = recalibration_tests(both, group="g", y_true="y", y_score="p", n_resamples=0)
    row = res.groups.set_index("group").loc["all"]
    assert row["slope"] == pytest.approx(slope, abs=1e-7)
    assert row["slope_se"] == pytest.approx(slope_se, abs=1e-7)
    assert row["citl"] == pytest.approx(citl, abs=1e-7)
    assert row["citl_se"] == pytest.approx(citl_se, abs=1e-7)


def test_lr_test_of_equal_recalibration_matches_r_anova():
    i, p, y = d4()
    # R: g <- factor(i %% 2); q2 <- ifelse(i %% 2 == 1, qlogis(p) * 1.5, qlogis(p))
    # R: full <- glm(y ~ g * q2, family = binomial, control = ctl)
    # R: red <- glm(y ~ q2, family = binomial, control = ctl)
    # R: a <- anova(red, full, test = "LRT"); a$Deviance[2]; a$Df[2]; a[["Pr(>Chi)"]][2]
    lr, df, pvalue = 2.76105913434219, 2, 0.251445360587398
    odd = i % 2 == 1
    score = np.where(odd, expit(1.5 * logit(p)), p)
    frame = pd.DataFrame({"g": np.where(odd, "odd", "even"), "p": score, "y": y})
    res = recalibration_tests(frame, group="g", y_true="y", y_score="p", n_resamples=0, reference="even")
    row = res.comparisons.iloc[0]
    assert row["statistic"] == pytest.approx(lr, abs=1e-7)
    assert row["df"] == df
    assert row["pvalue"] == pytest.approx(pvalue, abs=1e-7)
    assert res.overall["statistic"] == pytest.approx(lr, abs=1e-7)  # two groups: the same test
