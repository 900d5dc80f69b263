"""fairstats.bootstrap: seeded bootstrap intervals for group disparities and Cramér's V, equal to scipy's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from people import MEDIUM, SMALL, people
from scipy import stats

from fairstats import ContingencyTable, _resampling, bootstrap
from fairstats.bootstrap import bootstrap_cramers_v, bootstrap_disparity
from fairstats.confusion import confusion_parity_error
from fairstats.groups import group_labels
from fairstats.metrics import group_metrics

# --------------------------------------------------------------------------------------------------------
# bootstrap_disparity
# --------------------------------------------------------------------------------------------------------


def test_bootstrap_is_seeded_and_deterministic():
    kwargs = dict(group="g", y_true="y", y_pred="p", y_score="s", n_resamples=300)
    first = bootstrap_disparity(MEDIUM, rng=7, **kwargs)
    second = bootstrap_disparity(MEDIUM, rng=7, **kwargs)
    other = bootstrap_disparity(MEDIUM, rng=8, **kwargs)
    np.testing.assert_array_equal(first.bootstrap_distribution, second.bootstrap_distribution)
    pd.testing.assert_frame_equal(first.to_frame(), second.to_frame())
    assert not np.array_equal(first.bootstrap_distribution, other.bootstrap_distribution)
    generator = bootstrap_disparity(MEDIUM, rng=np.random.default_rng(7), **kwargs)
    np.testing.assert_array_equal(first.bootstrap_distribution, generator.bootstrap_distribution)


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_interval_contains_the_estimate(method):
    res = bootstrap_disparity(
        MEDIUM, group="g", y_true="y", y_pred="p", y_score="s", n_resamples=999, rng=1, method=method
    )
    assert (res.ci_low < res.estimate).all() and (res.estimate < res.ci_high).all()
    assert (res.ci_method == method).all()
    assert res.bootstrap_distribution.shape == (999, len(res.metrics))


def test_estimates_equal_group_metrics_and_are_oriented_a_minus_b():
    res = bootstrap_disparity(
        MEDIUM,
        group="g",
        y_true="y",
        y_pred="p",
        y_score="s",
        favorable=0,
        groups=("b", "a"),
        n_resamples=50,
        rng=0,
    )
    wide = group_metrics(
        MEDIUM, y_true="y", y_pred="p", y_score="s", group="g", fold=None, by=(), favorable=0, form="wide"
    ).set_index("g")
    for metric in res.metrics:
        assert res.value_a[metric] == pytest.approx(wide.loc["b", metric], rel=1e-12)
        assert res.value_b[metric] == pytest.approx(wide.loc["a", metric], rel=1e-12)
        assert res.estimate[metric] == pytest.approx(wide.loc["b", metric] - wide.loc["a", metric], rel=1e-12)
    frame = res.to_frame()
    assert frame["metric"].tolist() == list(res.metrics)
    assert (frame["group_a"] == "b").all() and (frame["n_a"] == (MEDIUM["g"] == "b").sum()).all()


class _Distribution:
    """Stand-in for a scipy BootstrapResult: scipy.stats.bootstrap only reads ``bootstrap_distribution``."""

    def __init__(self, values):
        self.bootstrap_distribution = values


def _scipy_statistic(frame: pd.DataFrame, metric: str, fav: int = 1):
    """The metric difference a - b as a vectorised function of resampled row indices (scipy's bootstrap)."""
    parts = {g: frame[frame["g"] == g] for g in ("a", "b")}

    def values(idx, g):
        part = parts[g]
        y, p, s = (part[c].to_numpy()[np.asarray(idx, dtype=int)] for c in ("y", "p", "s"))
        tf, pf = y == fav, p == fav
        counts = np.stack(
            [(pf & tf).sum(-1), (pf & ~tf).sum(-1), (~pf & tf).sum(-1), (~pf & ~tf).sum(-1)], -1
        )
        sums = np.stack([(s * tf).sum(-1), (s * ~tf).sum(-1)], -1)
        return bootstrap._metric_values(counts.astype(float), sums, [metric])[..., 0]

    return lambda ia, ib, axis=-1: values(ia, "a") - values(ib, "b")


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_interval_equals_scipy_bootstrap_on_the_same_distribution(method):
    # scipy's BCa jackknife leaves out each person; ours each category once, weighted: same values
    res = bootstrap_disparity(
        SMALL, group="g", y_true="y", y_pred="p", y_score="s", n_resamples=1500, rng=4, method=method
    )
    n_a, n_b = int((SMALL["g"] == "a").sum()), int((SMALL["g"] == "b").sum())
    for j, metric in enumerate(res.metrics):
        boot = res.bootstrap_distribution[:, j]
        if np.isnan(boot).any():
            continue
        ref = stats.bootstrap(
            (np.arange(n_a), np.arange(n_b)),
            _scipy_statistic(SMALL, metric),
            n_resamples=0,
            bootstrap_result=_Distribution(boot),
            method=method,
            vectorized=True,
        ).confidence_interval
        assert res.ci_low[metric] == pytest.approx(ref.low, rel=1e-10, abs=1e-12), metric
        assert res.ci_high[metric] == pytest.approx(ref.high, rel=1e-10, abs=1e-12), metric


def test_multinomial_resampling_has_the_spread_of_resamplingpeople():
    # same bootstrap distribution as scipy's own resampling of people: standard errors agree within MC error
    res = bootstrap_disparity(
        MEDIUM,
        group="g",
        y_true="y",
        y_pred="p",
        y_score="s",
        metrics=["ppr", "tpr"],
        n_resamples=4000,
        rng=2,
        method="percentile",
    )
    n_a, n_b = int((MEDIUM["g"] == "a").sum()), int((MEDIUM["g"] == "b").sum())
    for j, metric in enumerate(res.metrics):
        ref = stats.bootstrap(
            (np.arange(n_a), np.arange(n_b)),
            _scipy_statistic(MEDIUM, metric),
            n_resamples=4000,
            vectorized=True,
            rng=3,
            method="percentile",
        )
        assert np.std(res.bootstrap_distribution[:, j], ddof=1) == pytest.approx(ref.standard_error, rel=0.08)


def test_index_resampling_for_continuous_scores(monkeypatch):
    continuous = MEDIUM.assign(s=np.random.default_rng(5).random(len(MEDIUM)))
    kwargs = dict(group="g", y_true="y", y_pred="p", y_score="s", n_resamples=1500, method="percentile")
    by_index = bootstrap_disparity(
        continuous, rng=1, **kwargs
    )  # > 256 distinct scores: people drawn by index
    monkeypatch.setattr(_resampling, "MAX_MULTINOMIAL_CATEGORIES", 10**9)
    multinomial = bootstrap_disparity(continuous, rng=1, **kwargs)
    assert not np.array_equal(by_index.bootstrap_distribution, multinomial.bootstrap_distribution)
    sd_index = np.nanstd(by_index.bootstrap_distribution, axis=0, ddof=1)
    sd_multi = np.nanstd(multinomial.bootstrap_distribution, axis=0, ddof=1)
    np.testing.assert_allclose(sd_index, sd_multi, rtol=0.1)
    np.testing.assert_allclose(by_index.estimate, multinomial.estimate, rtol=1e-12)


def test_undefined_resamples_are_counted_and_warned():
    tiny = pd.DataFrame(
        {"g": ["a"] * 3 + ["b"] * 30, "y": [0, 0, 1] + [0, 1] * 15, "p": [1, 0, 0] + [1, 0] * 15}
    )
    with pytest.warns(bootstrap.UndefinedResampleWarning, match="ppv"):
        res = bootstrap_disparity(
            tiny, group="g", y_true="y", y_pred="p", metrics=["ppv"], n_resamples=500, rng=0,
            method="percentile",
        )
    assert 0 < res.n_undefined["ppv"] < 500
    assert np.isfinite(res.ci_low["ppv"])


def test_undefined_bca_is_undefined_not_percentile():
    # group a has a single predicted positive: a leave-one-out PPV is 0/0, so BCa's acceleration is undefined.
    tiny = pd.DataFrame(
        {"g": ["a"] * 3 + ["b"] * 30, "y": [0, 0, 1] + [0, 1] * 15, "p": [1, 0, 0] + [1, 0] * 15}
    )
    with pytest.warns(bootstrap.BCaUndefinedWarning, match="ppv difference 'a' - 'b'"):
        res = bootstrap_disparity(
            tiny, group="g", y_true="y", y_pred="p", metrics=["ppv"], n_resamples=500, rng=0
        )
    assert res.ci_method["ppv"] == "undefined"
    assert np.isnan(res.ci_low["ppv"]) and np.isnan(res.ci_high["ppv"])


def test_intersectional_labels_match_confusion_table():
    frame = MEDIUM.assign(h=np.where(np.arange(len(MEDIUM)) % 3 == 0, "x", "y"))
    labels = group_labels(frame, ["g", "h"])
    table = ContingencyTable.from_frame(frame, group=["g", "h"], y_true="y", y_pred="p").frame()
    assert sorted(labels.unique()) == sorted(table.index)
    res = bootstrap_disparity(
        frame,
        group=["g", "h"],
        y_true="y",
        y_pred="p",
        groups=("a - x", "b - y"),
        metrics=["ppr"],
        n_resamples=20,
        rng=0,
    )
    assert res.n_a == int(((frame["g"] == "a") & (frame["h"] == "x")).sum())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"groups": ("a", "c")}, "group 'c' does not occur"),
        ({"groups": ("a", "a")}, "same group twice"),
        ({"metrics": ["ppr", "tpx"]}, "unknown metric 'tpx'"),
        ({"metrics": ["mean_score_pos"], "y_score": None}, "needs `y_score`"),
        ({"favorable": 2}, "favorable"),
        ({"method": "bca"}, "method"),
        ({"confidence_level": 95}, "confidence_level"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"y_true": "why"}, "missing column.*'why'"),
    ],
)
def test_bootstrap_refuses_bad_input(kwargs, match):
    args = dict(group="g", y_true="y", y_pred="p", y_score="s", n_resamples=10, rng=0) | kwargs
    with pytest.raises(ValueError, match=match):
        bootstrap_disparity(SMALL, **args)


def test_bootstrap_needs_two_groups_named_when_there_are_more():
    three = people(2, 90, groups=("a", "b", "c"))
    with pytest.raises(ValueError, match="3 groups"):
        bootstrap_disparity(three, group="g", y_true="y", y_pred="p", n_resamples=10)
    with pytest.raises(ValueError, match="has value 2; expected 0/1 labels"):
        bootstrap_disparity(SMALL.assign(y=SMALL["y"] * 2), group="g", y_true="y", y_pred="p", n_resamples=10)


# --------------------------------------------------------------------------------------------------------
# bootstrap_cramers_v
# --------------------------------------------------------------------------------------------------------


def test_cramers_v_interval_seeded_and_equal_to_scipy():
    frame = people(6, 120, groups=("a", "b", "c"))
    res = bootstrap_cramers_v(frame, group="g", y_true="y", y_pred="p", n_resamples=800, rng=1)
    again = bootstrap_cramers_v(frame, group="g", y_true="y", y_pred="p", n_resamples=800, rng=1)
    np.testing.assert_array_equal(res.bootstrap_distribution, again.bootstrap_distribution)
    assert res.statistic == pytest.approx(
        confusion_parity_error(frame, group="g", y_true="y", y_pred="p"), rel=1e-12
    )
    assert res.ci_low < res.statistic < res.ci_high and res.ci_method == "BCa"
    observed = ContingencyTable.from_frame(frame, group="g", y_true="y", y_pred="p").frame().to_numpy()
    samples = [np.repeat(np.arange(observed.shape[1]), row) for row in observed]

    def statistic(*resampled, axis=-1):
        tables = np.stack(
            [(np.asarray(s)[..., None] == np.arange(observed.shape[1])).sum(-2) for s in resampled], -2
        )
        return bootstrap._cramers_v(tables)

    ref = stats.bootstrap(
        samples,
        statistic,
        n_resamples=0,
        bootstrap_result=_Distribution(res.bootstrap_distribution),
        method="BCa",
        vectorized=True,
    ).confidence_interval
    assert (res.ci_low, res.ci_high) == pytest.approx((ref.low, ref.high), rel=1e-10)
    record = res.to_frame().iloc[0]
    assert record["grouping"] == "g" and record["n"] == 120 and record["n_groups"] == 3


def test_interval_ends_equal_scipy_quantile_per_column():
    # The intervals' ends come from the two order statistics each level needs (np.partition, issue 37), not
    # from scipy.stats.quantile's sort: each end must be bitwise scipy's, for every length (up to an audit's
    # 9,999 resamples and beyond), level and tie, and "basic" must reflect it as before.
    rng = np.random.default_rng(3)
    for trial in range(200):
        k = int(rng.integers(1, 9))
        size = 12_000 if trial % 20 == 0 else 400
        columns = [rng.normal(size=int(rng.integers(1, size))) for _ in range(k)]
        if trial % 3 == 0:  # ties, as a rate's resamples have
            columns = [np.round(c, 1) for c in columns]
        levels = [tuple(sorted(rng.random(2))) if rng.random() < 0.8 else None for _ in range(k)]
        estimates = list(rng.normal(size=k))
        for method in ("BCa", "basic"):
            ends = _resampling.interval_ends(estimates, columns, levels, method)
            for estimate, column, probs, (low, high) in zip(estimates, columns, levels, ends, strict=True):
                if probs is None:
                    assert np.isnan(low) and np.isnan(high)
                    continue
                q_low, q_high = (float(v) for v in stats.quantile(column, np.asarray(probs)))
                if method == "basic":
                    q_low, q_high = 2 * estimate - q_high, 2 * estimate - q_low
                assert (low, high) == (q_low, q_high)


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_resampling_intervals_equal_scipy_bootstrap_on_counts(method):
    # fairstats._resampling mirrors scipy.stats.bootstrap's percentile, basic and BCa intervals; it is not
    # simply scipy's because it resamples counts (one multinomial draw of the categories), not rows, and its
    # BCa jackknife leaves out one person per category, weighted by the category's count. On the same
    # bootstrap distribution of a mean, the ends must be scipy's (one sample, 22 people in 3 categories).
    values, count = np.array([0.0, 1.0, 2.5]), np.array([7, 11, 4])
    rows = np.repeat(values, count)
    draws = np.concatenate(list(_resampling.multinomial_draws(count, 2000, np.random.default_rng(8))))
    boot = draws @ values / count.sum()
    estimate = float(rows.mean())
    leave_one_out = (rows.sum() - values) / (count.sum() - 1)
    probs, used = _resampling.interval_levels(
        estimate, boot, [(leave_one_out, count.astype(float))], confidence_level=0.9, method=method
    )
    ((low, high),) = _resampling.interval_ends([estimate], [boot], [probs], method)
    ref = stats.bootstrap(
        (rows,), np.mean, n_resamples=0, bootstrap_result=_Distribution(boot), method=method,
        confidence_level=0.9,
    ).confidence_interval  # fmt: skip
    assert used == method
    assert low == pytest.approx(ref.low, rel=1e-10, abs=1e-12)
    assert high == pytest.approx(ref.high, rel=1e-10, abs=1e-12)
