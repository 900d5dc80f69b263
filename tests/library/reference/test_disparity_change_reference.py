"""disparity_change against published numbers and against computations written here from their definitions.

1. R's DTComPair 1.2.6 (Stock, Hielscher & Discacciati), the paired comparison of two diagnostic tests on the
   same people: ``pv.rpv`` (Moskowitz & Pepe 2006's delta method for relative predictive values) and
   ``sesp.diff.ci`` (the Wald and Agresti-Min standard errors of a paired difference of sensitivities),
   numbers as printed in its README and reference pages. A group whose two models decide alike for everyone
   has no variance and no change, so a disparity change against it is the other group's paired change.
2. A brute-force paired bootstrap on rows: people resampled with replacement within each group, both of a
   person's decisions (and scores) kept together, every metric recomputed from the rows; its standard
   deviation is the delta method's standard error (and DeLong's for the AUC) up to Monte Carlo error.
3. The fold version: per-fold disparities by pandas' groupby from the rows, Nadeau & Bengio's corrected t by
   hand.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairstats import Counts, disparity_change


def paired_people(cells: dict[tuple[int, int, int], int], group: str) -> pd.DataFrame:
    """Rows of one group from counts per (truth, baseline decision, new decision)."""
    rows = [(t, b, n) for (t, b, n), k in cells.items() for _ in range(k)]
    frame = pd.DataFrame(rows, columns=["y", "old", "new"])
    return frame.assign(g=group)


def with_silent_reference(cells) -> Counts:
    """The people of ``cells`` (group ``g``) beside a reference ``r`` of 10^8 people whose two models decide
    alike for everyone: its share of the change's variance is below 1e-8 of the group's, and its PPV and NPV
    (0.3) lie far below the group's, so that both models' disparities have one sign."""
    big = 10**7
    reference = {(1, 1, 1): 3 * big, (0, 1, 1): 7 * big, (0, 0, 0): 3 * big, (1, 0, 0): 7 * big}
    table = pd.DataFrame(
        [("g", t, b, n, k) for (t, b, n), k in cells.items()]
        + [("r", t, b, n, k) for (t, b, n), k in reference.items()],
        columns=["g", "y", "old", "new", "n"],
    )
    return Counts.from_table(table, keys=["g", "y", "old", "new"])


# DTComPair's data set Paired1 (tab.paired(d, y1, y2)): d = diseased (the favourable "positive"), test 1 =
# the baseline, test 2 = the new model. Diseased: (test2 pos, test1 pos) 319, (pos, neg) 22, (neg, pos) 78,
# (neg, neg) 32; non-diseased: 31, 22, 53, 155. Cells keyed (truth, baseline, new).
PAIRED1 = {(1, 1, 1): 319, (1, 0, 1): 22, (1, 1, 0): 78, (1, 0, 0): 32,
           (0, 1, 1): 31, (0, 0, 1): 22, (0, 1, 0): 53, (0, 0, 0): 155}  # fmt: skip


def test_relative_predictive_values_equal_dtcompair_pv_rpv():
    """``pv.rpv(tab.paired(d = d, y1 = y1, y2 = y2, data = Paired1))`` (DTComPair README): rppv 1.04860694,
    se.log.rppv 0.01991247, CI 1.00847050 to 1.09034078, z 2.38355929, p 0.01714612; rnpv 0.8536403,
    se.log.rnpv 0.03783679, CI 0.7926258 to 0.9193516, z -4.182314, p 2.885568e-05."""
    data = with_silent_reference(PAIRED1)
    res = disparity_change(
        data,
        group="g",
        y_true="y",
        y_pred="new",
        y_pred_baseline="old",
        reference="r",
        metrics=["ppv", "npv"],
        scale="ratio",
        pseudo_count=0,
    )
    t = res.table.set_index("metric")
    for metric, (ratio, se, low, high, z, p) in {
        "ppv": (1.04860694, 0.01991247, 1.00847050, 1.09034078, 2.38355929, 0.01714612),
        "npv": (0.8536403, 0.03783679, 0.7926258, 0.9193516, -4.182314, 2.885568e-05),
    }.items():
        row = t.loc[metric]
        assert row["estimate"] == pytest.approx(ratio, rel=1e-7)
        assert np.log(row["estimate"]) / row["statistic"] == pytest.approx(se, rel=1e-6)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-6)
        assert row["statistic"] == pytest.approx(z, rel=1e-6)
        # DTComPair's two-sided p of the log ratio is ours: both disparities of one sign, so the union of
        # intersection-union tests reduces to the one-sided p of the change, doubled
        assert row["pvalue"] == pytest.approx(p, rel=1e-5)


# sesp.diff.ci's example: read.tab.paired(18, 14, 0, 18, 18, 12, 2, 18).
EXAMPLE = {(1, 1, 1): 18, (1, 0, 1): 14, (1, 1, 0): 0, (1, 0, 0): 18,
           (0, 1, 1): 18, (0, 0, 1): 12, (0, 1, 0): 2, (0, 0, 0): 18}  # fmt: skip


@pytest.mark.parametrize("pseudo_count, se_tpr, se_tnr", [
    (0, 0.06349803, 0.06928203),  # sesp.diff.ci(t1, ci.method = "wald", cont.corr = FALSE)
    (0.5, 0.06444681, 0.06954236),  # sesp.diff.ci(t1, ci.method = "agresti-min")
])  # fmt: skip
def test_paired_difference_standard_errors_equal_dtcompair_sesp_diff_ci(pseudo_count, se_tpr, se_tnr):
    """The default variance is Agresti & Min's for TPR and TNR (0.5 in each of a group's eight cells is 0.5
    in each cell of the paired 2 x 2 of the people with one outcome), the plain one is Wald's; the estimate
    (0.28, -0.20) is not adjusted, as in DTComPair."""
    data = with_silent_reference(EXAMPLE)
    res = disparity_change(
        data,
        group="g",
        y_true="y",
        y_pred="new",
        y_pred_baseline="old",
        reference="r",
        metrics=["tpr", "tnr"],
        pseudo_count=pseudo_count,
    )
    t = res.table.set_index("metric")
    for metric, estimate, se in (("tpr", 0.28, se_tpr), ("tnr", -0.20, se_tnr)):
        row = t.loc[metric]
        assert row["estimate"] == pytest.approx(estimate, abs=1e-12)
        assert row["estimate"] / row["statistic"] == pytest.approx(se, rel=1e-6)
        half = stats.norm.ppf(0.975) * se
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((estimate - half, estimate + half), rel=1e-6)


# --------------------------------------------------------------------------------------------------------
# a brute-force paired bootstrap, written from the definitions
# --------------------------------------------------------------------------------------------------------


def two_models(rng, n_a=1500, n_b=2500):
    """People of two groups, an outcome, a baseline score and a new score correlated with it, and each
    model's decision at a threshold."""
    g = np.repeat(["a", "b"], [n_a, n_b])
    y = rng.binomial(1, np.where(g == "a", 0.45, 0.35))
    latent = rng.normal(size=g.size) + 0.9 * y + np.where(g == "a", 0.3, 0.0)
    old = latent + rng.normal(scale=0.8, size=g.size)
    new = latent + 0.6 * rng.normal(scale=0.8, size=g.size) + 0.4 * (old - latent)
    s_old, s_new = 1 / (1 + np.exp(-old)), 1 / (1 + np.exp(-new))
    return pd.DataFrame(
        {
            "g": g,
            "y": y,
            "old": (s_old > 0.55).astype(int),
            "new": (s_new > 0.6).astype(int),
            "s_old": s_old,
            "s_new": s_new,
        }
    )


def metric_of_rows(y, pred, score, metric):
    """The metric from 0/1 arrays of shape (B, n), favourable = 1 (the definitions of fairstats.METRICS)."""
    tp = (pred & y).sum(axis=1)
    fp = (pred & ~y).sum(axis=1)
    fn = (~pred & y).sum(axis=1)
    tn = (~pred & ~y).sum(axis=1)
    if metric == "ppr":
        return (tp + fp) / y.shape[1]
    if metric == "tpr":
        return tp / (tp + fn)
    if metric == "fpr":
        return fp / (fp + tn)
    if metric == "ppv":
        return tp / (tp + fp)
    if metric == "npv":
        return tn / (tn + fn)
    if metric == "accuracy":
        return (tp + tn) / y.shape[1]
    if metric == "fn_fp_ratio":
        return fn / fp
    if metric == "mean_score_pos":
        return (score * y).sum(axis=1) / y.sum(axis=1)
    if metric == "auc":  # Mann-Whitney: mean rank of the positives, ties half
        ranks = stats.rankdata(score, axis=1)
        m = y.sum(axis=1)
        n = y.shape[1] - m
        return ((ranks * y).sum(axis=1) - m * (m + 1) / 2) / (m * n)
    raise AssertionError(metric)


METRICS = ["ppr", "tpr", "fpr", "ppv", "npv", "accuracy", "fn_fp_ratio", "mean_score_pos", "auc"]


def bootstrap_changes(frame, metrics, reps, rng):
    """Per metric, ``reps`` bootstrap changes of disparity (group a minus b, new minus old)."""
    out = {m: np.zeros(reps) for m in metrics}
    for label, sign in (("a", 1.0), ("b", -1.0)):
        part = frame[frame["g"] == label]
        rows = rng.integers(0, len(part), size=(reps, len(part)))
        y = part["y"].to_numpy().astype(bool)[rows]
        for m in metrics:
            new = metric_of_rows(
                y, part["new"].to_numpy().astype(bool)[rows], part["s_new"].to_numpy()[rows], m
            )
            old = metric_of_rows(
                y, part["old"].to_numpy().astype(bool)[rows], part["s_old"].to_numpy()[rows], m
            )
            out[m] += sign * (new - old)
    return out


def test_standard_errors_equal_a_brute_force_paired_bootstrap():
    """4,000 people; 2,000 paired bootstrap resamples: the standard deviation of the resampled changes
    estimates the standard error within about 1.6 % (sd / sqrt(2 B)); the delta method's (plain and with
    the pseudo-count) and DeLong's agree within 6 %, and the bootstrap's mean is the estimate."""
    rng = np.random.default_rng(42)
    frame = two_models(rng)
    boot = bootstrap_changes(frame, METRICS, 2000, rng)
    kw = dict(
        group="g",
        y_true="y",
        y_pred="new",
        y_pred_baseline="old",
        y_score="s_new",
        y_score_baseline="s_old",
        reference="b",
        metrics=METRICS,
    )
    for pseudo in (0, 0.5):
        t = disparity_change(frame, pseudo_count=pseudo, **kw).table
        t = t[t["family"] == "fairness"].set_index("metric")
        for m in METRICS:
            se = t.loc[m, "estimate"] / t.loc[m, "statistic"]
            assert boot[m].std(ddof=1) == pytest.approx(se, rel=0.06), m
            assert boot[m].mean() == pytest.approx(t.loc[m, "estimate"], abs=0.15 * se), m


def test_the_pairing_matters_unpaired_variances_are_larger():
    """The models' decisions on the same people are correlated: the paired standard error is well below the
    one that adds the two models' variances as if they had been computed on different people."""
    frame = two_models(np.random.default_rng(3))
    t = disparity_change(
        frame,
        group="g",
        y_true="y",
        y_pred="new",
        y_pred_baseline="old",
        reference="b",
        metrics=["tpr"],
        pseudo_count=0,
    ).table.iloc[0]
    paired = t["estimate"] / t["statistic"]
    unpaired = 0.0
    for label in ("a", "b"):
        part = frame[(frame.g == label) & (frame.y == 1)]
        for col in ("old", "new"):
            p = part[col].mean()
            unpaired += p * (1 - p) / len(part)
    assert paired < 0.8 * np.sqrt(unpaired)


def test_fold_version_equals_the_corrected_t_written_from_its_definition():
    """Per fold: each group's TPR for both models by groupby, the disparity a - b, the change new - old;
    t = mean / sqrt((1/J + 1/(K-1)) var), df J - 1 (Nadeau & Bengio 2003, Bouckaert & Frank 2004)."""
    rng = np.random.default_rng(5)
    frame = two_models(rng).assign(fold=lambda f: rng.integers(0, 12, len(f)))
    res = disparity_change(
        frame,
        group="g",
        y_true="y",
        y_pred="new",
        y_pred_baseline="old",
        fold="fold",
        reference="b",
        metrics=["tpr"],
    )
    row = res.table.iloc[0]
    pos = frame[frame.y == 1]
    rates = pos.groupby(["fold", "g"])[["old", "new"]].mean().unstack("g")
    change = (rates["new"]["a"] - rates["new"]["b"]) - (rates["old"]["a"] - rates["old"]["b"])
    j = change.size
    se = np.sqrt((1 / j + 1 / (12 - 1)) * change.var(ddof=1))
    t = change.mean() / se
    assert row["estimate"] == pytest.approx(change.mean(), abs=1e-12)
    assert row["statistic"] == pytest.approx(t, rel=1e-10)
    assert row["df"] == j - 1
    half = stats.t.ppf(0.975, j - 1) * se
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((change.mean() - half, change.mean() + half))
    # both disparities positive in every fold on average: the two-sided p of the change
    assert row["pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), j - 1), rel=1e-6)
