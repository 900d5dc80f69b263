"""The decision rule (--y-pred-positive, --y-pred-threshold): labels or a threshold to a 0/1 decision."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairstats._decision_rule import DecisionRule


def test_labels():
    rule = DecisionRule.from_option("score_text", positive="Medium, High", threshold=None)
    out = rule.apply(pd.Series(["Low", "Medium", "High", "Low"]))
    assert out.tolist() == [0, 1, 1, 0] and out.dtype == np.int8
    assert rule.describe() == 'positive prediction when score_text is "Medium" or "High"'


def test_threshold_is_at_or_above():
    rule = DecisionRule.from_option("decile_score", positive=None, threshold="5")
    assert rule.apply(pd.Series([1, 4, 5, 10])).tolist() == [0, 0, 1, 1]
    assert rule.describe() == "positive prediction when decile_score >= 5"


@pytest.mark.parametrize(
    "positive,threshold,match",
    [
        (None, None, "either the positive labels"),
        ("High", 5, "either the positive labels"),
        (None, "five", "must be a number"),
        (None, "nan", "finite"),
        ("High,,Low", None, "non-empty and distinct"),
        ("High,High", None, "non-empty and distinct"),
    ],
)
def test_bad_options(positive, threshold, match):
    with pytest.raises(ValueError, match=match):
        DecisionRule.from_option("c", positive=positive, threshold=threshold)


def test_bad_data_names_column_and_value():
    with pytest.raises(ValueError, match=r"column 'decile_score' has the value 'ten', not a number"):
        DecisionRule.from_option("decile_score", positive=None, threshold=5).apply(pd.Series([1, "ten"]))
    with pytest.raises(ValueError, match=r"has none of the --y-pred-positive labels \['Hgh'\]"):
        rule = DecisionRule.from_option("score_text", positive="Hgh", threshold=None)
        rule.apply(pd.Series(["Low", "High"]))
