"""The audit's three-way verdicts in words (fairstats.auditing.verdicts, issue 12)."""

import numpy as np
import pandas as pd

from fairstats.auditing.verdicts import verdict_counts, verdict_sentence

BASE = {
    "grouping": "race", "group": "C", "reference": "A", "metric": "fpr", "estimate": 0.012,
    "value_group": 0.2, "value_reference": 0.188, "n_group": 40.0, "n_reference": 4000.0, "pvalue_adj": 0.5,
    "margin_low": -0.1, "margin_high": 0.1, "equivalence_ci_low": -0.004, "equivalence_ci_high": 0.021,
    "equivalence_pvalue": 0.001, "mde": 0.07, "verdict": "equivalent", "verdict_note": "",
    "method": "score test",
}  # fmt: skip


def test_equivalent_says_at_most_with_confidence():
    text = verdict_sentence(BASE, labels=("1", "0"))
    assert "false positive rates differ by at most 2.1 points (95 % confidence)" in text
    assert "margin ±10 points" in text and text.endswith(".")
    real = verdict_sentence({**BASE, "verdict_note": "real but within the margin"})
    assert "is real, but within the margin" in real


def test_inconclusive_names_the_small_group_and_the_mde():
    row = {**BASE, "verdict": "inconclusive", "mde": 0.31, "equivalence_pvalue": 0.4}
    text = verdict_sentence(row)
    assert "too few people (40 in group C) to tell either way" in text
    assert "a difference below 31 points would go unseen" in text


def test_disparity_undefined_and_escaping():
    text = verdict_sentence({**BASE, "verdict": "disparity", "pvalue_adj": 0.0001, "estimate": 0.3})
    assert "a difference of 30 points (Holm-adjusted p < 0.001" in text
    # data strings stay plain text here; the report's templates escape the whole sentence
    odd = verdict_sentence({**BASE, "group": "*x*<b>", "verdict": "undefined", "verdict_note": "boom"})
    assert "race = *x*<b> vs A" in odd and "could not be compared: boom" in odd
    counts = verdict_counts(pd.DataFrame({"verdict": ["disparity", "equivalent", "equivalent"]}))
    assert counts == "1 disparity, 2 equivalent, 0 inconclusive, 0 undefined"
    assert np.isfinite(BASE["mde"])
