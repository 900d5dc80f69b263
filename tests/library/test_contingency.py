"""fairstats._contingency: the group x cell table counted once; the functions take it in place of rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats._contingency import ContingencyTable
from fairstats.counts import Counts
from fairstats.scale import confusion_table_from_codes

# 3 groups x TP, FN, FP, TN (a fixed, hand-made table; c has no FN)
COUNTS = {"a": (40, 20, 30, 110), "b": (25, 30, 20, 125), "c": (60, 0, 45, 85)}
COLS = dict(y_true="y", y_pred="p")


def _rows() -> pd.DataFrame:
    pairs = [(1, 1), (0, 1), (1, 0), (0, 0)]  # (p, y) of TP, FN, FP, TN
    rows = [
        (g, y, p) for g, c in COUNTS.items() for (p, y), k in zip(pairs, c, strict=True) for _ in range(k)
    ]
    return pd.DataFrame(rows, columns=["g", "y", "p"]).sample(frac=1.0, random_state=1).reset_index(drop=True)


ROWS = _rows()
EXPECTED = np.array([COUNTS[g] for g in "abc"])


def test_rows_counts_and_codes_give_the_same_table():
    from_rows = ContingencyTable.from_rows(ROWS, "g", "y", "p")
    counted = Counts.from_frame(ROWS, columns=["g", "y", "p"])
    from_counts = ContingencyTable.from_rows(counted, "g", "y", "p")
    codes = pd.factorize(ROWS["g"], sort=True)[0]
    cells = fairstats.binary_cell_codes(ROWS["y"].to_numpy(), y_pred=ROWS["p"].to_numpy())
    from_codes = ContingencyTable.from_observed(
        confusion_table_from_codes(codes, cells, groups=["a", "b", "c"], group="g")
    )
    for table in (from_rows, from_counts, from_codes):
        assert table.observed.to_numpy().tolist() == EXPECTED.tolist()
        assert list(table.observed.columns) == ["TP", "FN", "FP", "TN"]
        assert table.cells["cell"].tolist() == ["TP", "FN", "FP", "TN"]
    assert from_rows.group_columns == ("g",)


def test_the_functions_take_the_table_and_give_what_rows_give():
    table = ContingencyTable.from_rows(ROWS, "g", "y", "p")
    kw = dict(group="g", **COLS)
    for function in (fairstats.confusion_table, fairstats.adjusted_residuals, fairstats.confusion_ratios):
        pd.testing.assert_frame_equal(function(table, **kw), function(ROWS, **kw))
    assert fairstats.confusion_parity_error(table, **kw) == fairstats.confusion_parity_error(ROWS, **kw)
    assert fairstats.cramers_v_interval(table, **kw) == fairstats.cramers_v_interval(ROWS, **kw)
    a = fairstats.equal_confusion_test(table, **kw, permutation="always", n_resamples=199, rng=3)
    b = fairstats.equal_confusion_test(ROWS, **kw, permutation="always", n_resamples=199, rng=3)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    assert a.to_record() == b.to_record()
    c = fairstats.bootstrap_cramers_v(table, **kw, n_resamples=199, rng=4)
    d = fairstats.bootstrap_cramers_v(ROWS, **kw, n_resamples=199, rng=4)
    assert c.to_record() == d.to_record()
    # its methods are what the functions return
    assert table.cramers_v() == fairstats.confusion_parity_error(ROWS, **kw)
    pd.testing.assert_frame_equal(table.residuals(), fairstats.adjusted_residuals(ROWS, **kw))


def test_a_table_of_another_grouping_is_refused():
    table = ContingencyTable.from_rows(ROWS, "g", "y", "p")
    with pytest.raises(ValueError, match=r"`group` \['h'\] is not the table's grouping \['g'\]"):
        fairstats.confusion_table(table, group="h", **COLS)


def test_from_observed_checks_name_the_parameter():
    bad = pd.DataFrame([[1, 0], [0, 0]], index=["a", "b"], columns=["x", "y"])
    with pytest.raises(ValueError, match="`observed` group 'b' has no cases"):
        ContingencyTable.from_observed(bad)
    with pytest.raises(TypeError, match="`observed` must hold integer counts"):
        ContingencyTable.from_observed(bad.astype(float))
