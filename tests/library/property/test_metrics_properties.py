"""Property tests for fairstats.metrics (hypothesis, deterministic profile)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from fairstats.metrics import UndefinedMetricWarning, confusion_counts, group_metrics

# The NIJ paper's columns and convention (favourable = 0, no recidivism), passed explicitly: the library's
# defaults are favorable=1 and no fold or model strata (one set of defaults, docs/defaults.rst).
NIJ = dict(group="race", y_true="y_true", y_pred="y_pred", fold="fold", by=("model",), favorable=0)


def nij(**kw):
    return {**NIJ, **kw}

RATES = ["ppr", "tpr", "fpr", "fnr", "tnr", "ppv", "npv", "accuracy", "mean_score_pos", "mean_score_neg"]


@st.composite
def predictions(draw) -> pd.DataFrame:
    n = draw(st.integers(min_value=1, max_value=60))
    ints = st.lists(st.integers(0, 1), min_size=n, max_size=n)
    return pd.DataFrame(
        {
            "model": draw(st.lists(st.sampled_from(["lr", "rf"]), min_size=n, max_size=n)),
            "fold": draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
            "race": draw(st.lists(st.sampled_from(["BLACK", "WHITE"]), min_size=n, max_size=n)),
            "y_true": draw(ints),
            "y_pred": draw(ints),
            "y_score": draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)),
        }
    )


def _metrics(df: pd.DataFrame, **kw) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return group_metrics(df, y_score="y_score", **nij(**kw))


@settings(derandomize=True, max_examples=40, deadline=None)
@given(predictions(), st.sampled_from([0, 1]))
def test_rates_in_unit_interval(df, favorable):
    long = _metrics(df, favorable=favorable)
    rates = long[long.metric.isin(RATES)].value.dropna()
    assert ((rates >= 0) & (rates <= 1)).all()
    ratio = long[long.metric == "fn_fp_ratio"].value.dropna()
    assert (ratio >= 0).all()
    # NaN exactly where the denominator is 0
    assert (long.value.isna() == (long.denominator == 0)).all()


@settings(derandomize=True, max_examples=40, deadline=None)
@given(predictions())
def test_swapping_group_labels_swaps_rows(df):
    swapped = df.assign(race=df.race.map({"BLACK": "WHITE", "WHITE": "BLACK"}))
    a = _metrics(df, form="wide").set_index(["model", "fold", "race"]).sort_index()
    b = _metrics(swapped, form="wide")
    b["race"] = b["race"].map({"BLACK": "WHITE", "WHITE": "BLACK"})
    b = b.set_index(["model", "fold", "race"]).sort_index()
    pd.testing.assert_frame_equal(a, b)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(predictions(), st.randoms(use_true_random=False))
def test_row_order_invariance(df, random):
    order = list(range(len(df)))
    random.shuffle(order)
    shuffled = df.iloc[order].reset_index(drop=True)
    a, b = _metrics(df), _metrics(shuffled)
    pd.testing.assert_frame_equal(a.drop(columns="numerator"), b.drop(columns="numerator"))
    np.testing.assert_allclose(a.numerator, b.numerator, rtol=1e-12, atol=1e-12)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(predictions())
def test_cells_sum_to_group_sizes(df):
    counts = confusion_counts(df, **nij())
    sizes = df.groupby(["model", "fold", "race"]).size()
    got = counts.set_index(["model", "fold", "race"])["n"]
    assert got.sum() == len(df)
    assert (got.reindex(sizes.index) == sizes).all()
