"""fairstats.folds: fold-aware disparity intervals from the corrected resampled t."""

from __future__ import annotations

import numpy as np
import pytest
from people import people
from scipy import stats

from fairstats.folds import fold_disparity
from fairstats.metrics import group_metrics
from fairstats.ttests import fold_ttest

# --------------------------------------------------------------------------------------------------------
# fold_disparity
# --------------------------------------------------------------------------------------------------------


def test_fold_disparity_interval_is_the_corrected_t_inverted():
    frame = people(9, 800).assign(fold=np.arange(800) % 8)
    res = fold_disparity(frame, group="g", y_true="y", y_pred="p", fold="fold", metrics=["ppr", "fpr"])
    table = res.to_frame().set_index("metric")
    wide = group_metrics(
        frame, y_true="y", y_pred="p", group="g", fold="fold", by=(), favorable=1, form="wide"
    )
    a = wide[wide["g"] == "a"].set_index("fold")["ppr"].to_numpy()
    b = wide[wide["g"] == "b"].set_index("fold")["ppr"].to_numpy()
    d = a - b
    k = len(d)
    half = stats.t.isf(0.025, k - 1) * np.sqrt((1 / k + 1 / (k - 1)) * d.var(ddof=1))  # Nadeau & Bengio
    assert table.loc["ppr", "ci_low"] == pytest.approx(d.mean() - half, rel=1e-12)
    assert table.loc["ppr", "ci_high"] == pytest.approx(d.mean() + half, rel=1e-12)
    ref = fold_ttest(a, b)
    assert table.loc["ppr", "pvalue_corrected"] == pytest.approx(ref.pvalue_corrected, rel=1e-12)
    assert table.loc["ppr", "statistic_pooled"] == pytest.approx(ref.statistic_pooled, rel=1e-12)
    assert set(res.per_fold["metric"]) == {"ppr", "fpr"} and len(res.per_fold) == 16


def test_fold_disparity_reports_metrics_it_cannot_test():
    frame = people(9, 400).assign(fold=np.arange(400) % 4)
    frame.loc[(frame["g"] == "a") & (frame["fold"] > 0), "y"] = 1  # group a: actual 0 only in fold 0
    res = fold_disparity(frame, group="g", y_true="y", y_pred="p", fold="fold", metrics=["ppr", "fpr"])
    table = res.to_frame().set_index("metric")
    assert np.isfinite(table.loc["ppr", "pvalue_corrected"])
    assert np.isnan(table.loc["fpr", "pvalue_corrected"]) and "not tested" in table.loc["fpr", "note"]
