"""fairstats.ContingencyTable: the group x cell table counted once, from a frame, counts, codes or a parquet
file; the functions take it in place of rows, and the names it replaced warn and give the same answers."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats import ContingencyTable
from fairstats.counts import Counts

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
    from_rows = ContingencyTable.from_frame(ROWS, group="g", **COLS)
    counted = Counts.from_frame(ROWS, columns=["g", "y", "p"])
    from_counts = ContingencyTable.from_frame(counted, group="g", **COLS)
    codes = pd.factorize(ROWS["g"], sort=True)[0]
    cells = ContingencyTable.binary_cell_codes(ROWS["y"].to_numpy(), y_pred=ROWS["p"].to_numpy())
    from_codes = ContingencyTable.from_codes(codes, cells, groups=["a", "b", "c"], group="g")
    for table in (from_rows, from_counts, from_codes):
        assert table.observed.to_numpy().tolist() == EXPECTED.tolist()
        assert list(table.observed.columns) == ["TP", "FN", "FP", "TN"]
        assert table.cells["cell"].tolist() == ["TP", "FN", "FP", "TN"]
    assert from_rows.group_columns == ("g",)


def test_the_functions_take_the_table_and_give_what_rows_give():
    table = ContingencyTable.from_frame(ROWS, group="g", **COLS)
    kw = dict(group="g", **COLS)
    for function in (fairstats.adjusted_residuals, fairstats.confusion_ratios):
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
    table = ContingencyTable.from_frame(ROWS, group="g", **COLS)
    with pytest.raises(ValueError, match=r"`group` \['h'\] is not the table's grouping \['g'\]"):
        fairstats.equal_confusion_test(table, group="h", **COLS)


def test_from_observed_checks_name_the_parameter():
    bad = pd.DataFrame([[1, 0], [0, 0]], index=["a", "b"], columns=["x", "y"])
    with pytest.raises(ValueError, match="`observed` group 'b' has no cases"):
        ContingencyTable.from_observed(bad)
    with pytest.raises(TypeError, match="`observed` must hold integer counts"):
        ContingencyTable.from_observed(bad.astype(float))


def test_a_table_needs_no_column_names_and_given_ones_must_be_its_own():
    table = ContingencyTable.from_frame(ROWS, group="g", **COLS)
    assert table.label_columns == ("y", "p")
    a = fairstats.equal_confusion_test(table, permutation="always", n_resamples=99, rng=2)
    b = fairstats.equal_confusion_test(ROWS, group="g", **COLS, permutation="always", n_resamples=99, rng=2)
    assert a.to_record() == b.to_record()
    with pytest.raises(ValueError, match=r"`y_true` 'truth' is not the table's y_true column 'y'"):
        fairstats.equal_confusion_test(table, group="g", y_true="truth", y_pred="p")
    codes = ContingencyTable.from_codes([0, 0, 1, 1], [0, 3, 1, 2], groups=["a", "b"])
    assert codes.label_columns is None
    with pytest.raises(ValueError, match="`y_pred` 'p' names a column, but the table was counted elsewhere"):
        fairstats.confusion_parity_error(codes, y_pred="p")
    with pytest.raises(TypeError, match="`y_true` and `y_pred` must name the column"):
        fairstats.equal_confusion_test(ROWS, group="g")
    with pytest.raises(TypeError, match="`group` must name the column"):
        fairstats.cramers_v_interval(ROWS, **COLS)


# --------------------------------------------------------------------------------------------------------
# the six names the table replaced: each warns, naming its replacement, and answers as the new call does
# --------------------------------------------------------------------------------------------------------

CODES = pd.factorize(ROWS["g"], sort=True)[0].astype(np.int8)
CELLS = ContingencyTable.binary_cell_codes(ROWS["y"].to_numpy(), y_pred=ROWS["p"].to_numpy())
OPTIONS = dict(permutation="always", n_resamples=199, rng=5)


def _same_result(old, new) -> None:
    assert old.to_record() == new.to_record()  # exact: one computation on one table
    pd.testing.assert_frame_equal(old.to_frame(), new.to_frame(), check_exact=True)
    pd.testing.assert_frame_equal(old.cells, new.cells, check_exact=True)


def _same_table(old: pd.DataFrame, new: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(old, new, check_exact=True)
    assert old.attrs == new.attrs


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("rows") / "rows.parquet"
    ROWS.to_parquet(path, index=False)
    return path


def _warns(name: str, use: str):
    said = rf"^fairstats\.{name} is deprecated since fairstats 0\.3 and goes in 0\.4: use {re.escape(use)}"
    return pytest.warns(DeprecationWarning, match=said)


def test_confusion_table_warns_and_is_the_frame_table():
    with _warns(
        "confusion_table", "fairstats.ContingencyTable.from_frame(data, group=, y_true=, y_pred=).frame()"
    ):
        old = fairstats.confusion_table(ROWS, group="g", **COLS)
    _same_table(old, ContingencyTable.from_frame(ROWS, group="g", **COLS).frame())


def test_equal_confusion_test_table_warns_and_is_the_test_of_the_observed_table():
    observed = ContingencyTable.from_frame(ROWS, group="g", **COLS).frame()
    with _warns(
        "equal_confusion_test_table",
        "fairstats.equal_confusion_test(fairstats.ContingencyTable.from_observed",
    ):
        old = fairstats.equal_confusion_test_table(observed, **OPTIONS)
    _same_result(old, fairstats.equal_confusion_test(ContingencyTable.from_observed(observed), **OPTIONS))
    _same_result(old, fairstats.equal_confusion_test(ROWS, group="g", **COLS, **OPTIONS))


def test_binary_cell_codes_warns_and_gives_the_same_codes():
    with _warns("binary_cell_codes", "fairstats.ContingencyTable.binary_cell_codes(y_true, y_pred=)"):
        old = fairstats.binary_cell_codes(ROWS["y"].to_numpy(), y_pred=ROWS["p"].to_numpy())
    assert old.dtype == CELLS.dtype == np.int8 and np.array_equal(old, CELLS)


def test_confusion_table_from_codes_warns_and_is_the_codes_table():
    with _warns(
        "confusion_table_from_codes", "fairstats.ContingencyTable.from_codes(group_codes, cell_codes, groups="
    ):
        old = fairstats.confusion_table_from_codes(
            CODES, CELLS, groups=["a", "b", "c"], group="g", chunk_size=50
        )
    new = ContingencyTable.from_codes(CODES, CELLS, groups=["a", "b", "c"], group="g", chunk_size=50)
    _same_table(old, new.frame())
    _same_table(old, ContingencyTable.from_frame(ROWS, group="g", **COLS).frame())


def test_confusion_table_parquet_warns_and_is_the_parquet_table(parquet):
    with _warns(
        "confusion_table_parquet", "fairstats.ContingencyTable.from_parquet(path, group=, y_true=, y_pred=)"
    ):
        old = fairstats.confusion_table_parquet(parquet, group="g", **COLS)
    _same_table(old, ContingencyTable.from_parquet(parquet, group="g", **COLS).frame())


def test_equal_confusion_test_parquet_warns_and_is_the_test_of_the_parquet_table(parquet):
    with _warns(
        "equal_confusion_test_parquet",
        "fairstats.equal_confusion_test(fairstats.ContingencyTable.from_parquet",
    ):
        old = fairstats.equal_confusion_test_parquet(parquet, group="g", **COLS, **OPTIONS)
    new = fairstats.equal_confusion_test(ContingencyTable.from_parquet(parquet, group="g", **COLS), **OPTIONS)
    _same_result(old, new)
    _same_result(old, fairstats.equal_confusion_test(ROWS, group="g", **COLS, **OPTIONS))


def test_the_old_names_are_out_of_all_and_reachable_in_their_modules():
    old = ("confusion_table", "equal_confusion_test_table", "binary_cell_codes", "confusion_table_from_codes",
           "confusion_table_parquet", "equal_confusion_test_parquet")  # fmt: skip
    for name in old:
        assert name not in fairstats.__all__ and name not in vars(fairstats)
        module = "confusion" if name in ("confusion_table", "equal_confusion_test_table") else "scale"
        assert getattr(fairstats, name) is getattr(importlib.import_module(f"fairstats.{module}"), name)
    assert "ContingencyTable" in fairstats.__all__
