"""Unit tests for fairstats.metrics: hand-made known answers, NaN handling, validation, fairlearn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairstats.metrics import (
    METRICS,
    UndefinedMetricWarning,
    confusion_counts,
    group_metrics,
    undefined_counts,
)

# The NIJ paper's columns and convention (favourable = 0, no recidivism), passed explicitly: the library's
# defaults are favorable=1 and no fold or model strata (one set of defaults, docs/defaults.rst).
NIJ = dict(group="race", y_true="y_true", y_pred="y_pred", fold="fold", by=("model",), favorable=0)


def nij(**kw):
    return {**NIJ, **kw}


def _rows(model, fold, race, cells):
    """Rows with the given numbers of (y_true, y_pred) pairs: cells = {(y, yhat): count}."""
    out = []
    for (y, yhat), k in cells.items():
        out += [{"model": model, "fold": fold, "race": race, "y_true": y, "y_pred": yhat}] * k
    return out


@pytest.fixture
def hand() -> pd.DataFrame:
    # BLACK, fold 0: y=0&ŷ=0: 3, y=1&ŷ=0: 1, y=0&ŷ=1: 2, y=1&ŷ=1: 4   (n = 10)
    # WHITE, fold 0: y=0&ŷ=0: 5, y=1&ŷ=0: 2, y=0&ŷ=1: 1, y=1&ŷ=1: 2   (n = 10)
    rows = _rows("lr", 0, "BLACK", {(0, 0): 3, (1, 0): 1, (0, 1): 2, (1, 1): 4})
    rows += _rows("lr", 0, "WHITE", {(0, 0): 5, (1, 0): 2, (0, 1): 1, (1, 1): 2})
    df = pd.DataFrame(rows)
    # score = P(y = 1): 0.2 for y=0 rows, 0.7 for y=1 rows, plus 0.1 for BLACK
    df["y_score"] = np.where(df["y_true"] == 1, 0.7, 0.2) + np.where(df["race"] == "BLACK", 0.1, 0.0)
    return df


def test_confusion_counts_favorable_zero(hand):
    out = confusion_counts(hand, **nij())
    assert list(out.columns) == ["model", "fold", "race", "tp", "fp", "fn", "tn", "n"]
    black = out.set_index("race").loc["BLACK"]
    # tp = ŷ=0 & y=0, fp = ŷ=0 & y=1, fn = ŷ=1 & y=0, tn = ŷ=1 & y=1
    assert (black.tp, black.fp, black.fn, black.tn, black.n) == (3, 1, 2, 4, 10)
    white = out.set_index("race").loc["WHITE"]
    assert (white.tp, white.fp, white.fn, white.tn) == (5, 2, 1, 2)


def test_confusion_counts_favorable_one_swaps_cells(hand):
    out = confusion_counts(hand, **nij(favorable=1)).set_index("race").loc["BLACK"]
    assert (out.tp, out.fp, out.fn, out.tn) == (4, 2, 1, 3)


def test_group_metrics_known_values(hand):
    wide = group_metrics(hand, **nij(y_score="y_score", form="wide")).set_index("race")
    b = wide.loc["BLACK"]
    assert b.ppr == pytest.approx(4 / 10)
    assert b.tpr == pytest.approx(3 / 5)  # P(ŷ=0 | y=0)
    assert b.fpr == pytest.approx(1 / 5)  # P(ŷ=0 | y=1)
    assert b.fnr == pytest.approx(2 / 5)  # P(ŷ=1 | y=0)
    assert b.tnr == pytest.approx(4 / 5)
    assert b.ppv == pytest.approx(3 / 4)  # P(y=0 | ŷ=0)
    assert b.npv == pytest.approx(4 / 6)  # P(y=1 | ŷ=1)
    assert b.accuracy == pytest.approx(7 / 10)
    assert b.fn_fp_ratio == pytest.approx(2 / 1)
    assert b.mean_score_pos == pytest.approx(0.3)  # E(S | y = 0)
    assert b.mean_score_neg == pytest.approx(0.8)  # E(S | y = 1)
    w = wide.loc["WHITE"]
    assert (w.tpr, w.fpr, w.ppv, w.npv, w.fn_fp_ratio) == pytest.approx((5 / 6, 2 / 4, 5 / 7, 2 / 3, 1 / 2))


def test_group_metrics_long_has_numerator_and_denominator(hand):
    long = group_metrics(hand, **nij(y_score="y_score"))
    assert list(long.columns) == ["model", "fold", "race", "metric", "value", "numerator", "denominator"]
    row = long[(long.race == "BLACK") & (long.metric == "npv")].iloc[0]
    assert (row.numerator, row.denominator) == (4, 6)
    assert list(long.metric.iloc[: len(METRICS)]) == list(METRICS)
    assert np.allclose(long.value, long.numerator / long.denominator)


def test_without_score_omits_mean_scores(hand):
    long = group_metrics(hand, **nij())
    assert "mean_score_pos" not in set(long.metric)
    assert len(long) == 2 * (len(METRICS) - 2)


def test_zero_denominator_is_nan_warned_and_counted():
    # fold 1 of WHITE has no false positives (no y=1 & ŷ=0): fn_fp_ratio undefined
    rows = _rows("m", 0, "WHITE", {(0, 0): 2, (1, 0): 1, (0, 1): 1, (1, 1): 1})
    rows += _rows("m", 1, "WHITE", {(0, 0): 2, (0, 1): 1, (1, 1): 1})
    rows += _rows("m", 0, "BLACK", {(0, 0): 1, (1, 0): 1, (0, 1): 1, (1, 1): 1})
    rows += _rows("m", 1, "BLACK", {(0, 0): 1, (1, 0): 1, (0, 1): 1, (1, 1): 1})
    df = pd.DataFrame(rows)
    with pytest.warns(UndefinedMetricWarning, match="fn_fp_ratio: 1"):
        long = group_metrics(df, **nij())
    bad = long[(long.fold == 1) & (long.race == "WHITE") & (long.metric == "fn_fp_ratio")].iloc[0]
    assert np.isnan(bad.value) and bad.denominator == 0 and bad.numerator == 1
    counts = undefined_counts(long, group="race", fold="fold").set_index(["race", "metric"])
    assert counts.loc[("WHITE", "fn_fp_ratio"), "n_undefined"] == 1
    assert counts.loc[("WHITE", "fn_fp_ratio"), "n"] == 2
    assert counts.loc[("BLACK", "fn_fp_ratio"), "n_undefined"] == 0
    assert counts["n_undefined"].sum() == 1


def test_group_absent_from_fold_gets_empty_row():
    rows = _rows("m", 0, "WHITE", {(0, 0): 1, (1, 1): 1}) + _rows("m", 0, "BLACK", {(0, 0): 1, (1, 1): 1})
    rows += _rows("m", 1, "WHITE", {(0, 0): 1, (1, 1): 1})  # no BLACK in fold 1
    counts = confusion_counts(pd.DataFrame(rows), **nij())
    assert len(counts) == 4
    empty = counts[(counts.fold == 1) & (counts.race == "BLACK")].iloc[0]
    assert empty.n == 0
    with pytest.warns(UndefinedMetricWarning):
        wide = group_metrics(pd.DataFrame(rows), **nij(form="wide"))
    assert wide[(wide.fold == 1) & (wide.race == "BLACK")][list(METRICS[:-2])].isna().all(axis=None)


def test_no_fold_no_by_pools(hand):
    pooled = confusion_counts(hand, **nij(fold=None, by=()))
    assert list(pooled.columns) == ["race", "tp", "fp", "fn", "tn", "n"]
    assert pooled.n.sum() == len(hand)


def test_sorted_deterministic_order(hand):
    shuffled = hand.sample(frac=1.0, random_state=3).reset_index(drop=True)
    shuffled.loc[:, "fold"] = 0
    a = group_metrics(hand, **nij(y_score="y_score"))
    b = group_metrics(shuffled, **nij(y_score="y_score"))
    pd.testing.assert_frame_equal(a, b)
    assert list(a.race.unique()) == ["BLACK", "WHITE"]


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d.drop(columns="y_pred"), "missing column.*'y_pred'"),
        (lambda d: d.assign(y_true=d.y_true * 2), "column 'y_true' has value 2"),
        (lambda d: d.assign(y_pred=d.y_pred.astype(float) + 0.5), "column 'y_pred' must be binary"),
        (lambda d: d.assign(y_score=d.y_score + 1), "column 'y_score' must lie in \\[0, 1\\]"),
        (lambda d: d.assign(race=d.race.where(d.index > 0)), "column 'race' has 1 missing value"),
    ],
)
def test_bad_input_names_column_and_value(hand, change, match):
    with pytest.raises(ValueError, match=match):
        group_metrics(change(hand), **nij(y_score="y_score"))


def test_bad_options(hand):
    with pytest.raises(ValueError, match="`favorable` must be 0 or 1"):
        group_metrics(hand, **nij(favorable=2))
    with pytest.raises(ValueError, match="`form` must be"):
        group_metrics(hand, **nij(form="tall"))
    with pytest.raises(ValueError, match="`group` column 'fold' is also a stratum"):
        group_metrics(hand, **nij(group="fold"))
    with pytest.raises(TypeError, match=r"`data` must be a data frame \(pandas, .*\) or Counts, got ndarray"):
        confusion_counts(hand.to_numpy(), **nij())
    with pytest.raises(ValueError, match="`data` is empty"):
        confusion_counts(hand.iloc[:0], **nij())


def test_reference_fairlearn_metricframe():
    """Reference: fairlearn.metrics.MetricFrame with pos_label=0 on a small random case."""
    fairlearn_metrics = pytest.importorskip("fairlearn.metrics")
    from sklearn.metrics import accuracy_score, precision_score, recall_score

    rng = np.random.default_rng(20240501)
    n = 600
    df = pd.DataFrame(
        {
            "fold": rng.integers(0, 3, n),
            "race": rng.choice(["BLACK", "WHITE"], n),
            "y_true": rng.integers(0, 2, n),
            "y_pred": rng.integers(0, 2, n),
        }
    )
    ours = group_metrics(df, **nij(by=(), form="wide")).set_index(["fold", "race"])
    fm = fairlearn_metrics.MetricFrame(
        metrics={
            "ppr": lambda y, p: fairlearn_metrics.selection_rate(y, p, pos_label=0),
            "tpr": lambda y, p: recall_score(y, p, pos_label=0),
            "fpr": lambda y, p: fairlearn_metrics.false_positive_rate(y, p, pos_label=0),
            "fnr": lambda y, p: fairlearn_metrics.false_negative_rate(y, p, pos_label=0),
            "tnr": lambda y, p: fairlearn_metrics.true_negative_rate(y, p, pos_label=0),
            "ppv": lambda y, p: precision_score(y, p, pos_label=0),
            "npv": lambda y, p: precision_score(y, p, pos_label=1),
            "accuracy": accuracy_score,
        },
        y_true=df["y_true"],
        y_pred=df["y_pred"],
        sensitive_features=df["race"],
        control_features=df["fold"],
    )
    theirs = fm.by_group
    theirs.index = theirs.index.set_names(["fold", "race"])
    theirs = theirs.astype(float).sort_index()
    np.testing.assert_allclose(ours[theirs.columns].to_numpy(), theirs.to_numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("engine", ["polars", "pyarrow", "duckdb", "counts"])
def test_group_metrics_takes_every_engine(hand, engine):
    """The same rates from a polars, pyarrow or DuckDB frame, or from Counts, as from the pandas rows."""
    import fairstats

    frame = hand.assign(model=hand["model"].astype(str), race=hand["race"].astype(str))
    expected = group_metrics(frame, **nij())
    if engine == "polars":
        import polars as pl

        data = pl.from_pandas(frame)
    elif engine == "pyarrow":
        import pyarrow as pa

        data = pa.Table.from_pandas(frame, preserve_index=False)
    elif engine == "duckdb":
        import duckdb

        data = duckdb.from_df(frame)
    else:
        data = fairstats.Counts.from_frame(frame, columns=["model", "fold", "race", "y_true", "y_pred"])
    got = group_metrics(data, **nij())
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    counts = confusion_counts(data, **nij())
    pd.testing.assert_frame_equal(counts, confusion_counts(frame, **nij()), check_dtype=False)
