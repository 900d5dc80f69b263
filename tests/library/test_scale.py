"""The equal confusion test at scale: ContingencyTable.from_codes and .from_parquet equal the frame path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fairstats import ContingencyTable
from fairstats.confusion import BINARY_CELLS, SmallExpectedCountWarning, equal_confusion_test

COLS = dict(y_true="y", y_pred="p")


def _people(n: int = 997, *, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "g": rng.choice(["c", "a", "b"], n, p=[0.5, 0.3, 0.2]),
            "s": rng.choice(["M", "F"], n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
        }
    )


DATA = _people()


def _codes(frame: pd.DataFrame) -> tuple[np.ndarray, list, np.ndarray]:
    group_codes, groups = pd.factorize(frame["g"], sort=True)
    cells = ContingencyTable.binary_cell_codes(frame["y"].to_numpy(), y_pred=frame["p"].to_numpy())
    return group_codes.astype(np.int8), list(groups), cells


def _assert_same_table(ours: pd.DataFrame, theirs: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(ours, theirs, check_index_type=False)
    assert ours.attrs["notes"] == theirs.attrs["notes"]
    assert ours.attrs["cells"] == theirs.attrs["cells"]


def _assert_same_result(ours, theirs) -> None:
    record, expected = ours.to_record(), theirs.to_record()
    assert record.keys() == expected.keys()
    for key, value in expected.items():
        if isinstance(value, float):
            np.testing.assert_allclose(record[key], value, rtol=1e-12, atol=0, err_msg=key)
        else:
            assert record[key] == value, key
    pd.testing.assert_frame_equal(ours.to_frame(), theirs.to_frame(), check_index_type=False, rtol=1e-12)
    pd.testing.assert_frame_equal(ours.expected, theirs.expected, check_index_type=False, rtol=1e-12)


def test_binary_cell_codes_follow_the_paper_order():
    codes = ContingencyTable.binary_cell_codes(np.array([1, 1, 0, 0]), y_pred=np.array([1, 0, 1, 0]))
    assert codes.dtype == np.int8
    assert [BINARY_CELLS[c][0] for c in codes] == ["TP", "FN", "FP", "TN"]
    assert ContingencyTable.binary_cell_codes([True, False], y_pred=[False, False]).tolist() == [1, 3]


@pytest.mark.parametrize("chunk_size", [1, 10, 1 << 16])
def test_table_from_codes_equals_the_dataframe_table(chunk_size):
    group_codes, groups, cells = _codes(DATA)
    ours = ContingencyTable.from_codes(group_codes, cells, groups=groups, chunk_size=chunk_size).frame()
    _assert_same_table(ours, ContingencyTable.from_frame(DATA, group="g", **COLS).frame())
    assert int(ours.to_numpy().sum()) == len(DATA)


def test_table_from_codes_drops_empty_groups_and_cells_like_the_dataframe_path():
    frame = DATA[(DATA["g"] != "b") & ~((DATA["y"] == 1) & (DATA["p"] == 0))]
    categorical = frame.assign(g=pd.Categorical(frame["g"], categories=["a", "b", "c"]))
    group_codes = categorical["g"].cat.codes.to_numpy()
    cells = ContingencyTable.binary_cell_codes(frame["y"].to_numpy(), y_pred=frame["p"].to_numpy())
    ours = ContingencyTable.from_codes(group_codes, cells, groups=["a", "b", "c"], chunk_size=64).frame()
    theirs = ContingencyTable.from_frame(categorical, group="g", **COLS).frame()
    _assert_same_table(ours, theirs)
    assert list(ours.index) == ["a", "c"] and list(ours.columns) == ["TP", "FP", "TN"]
    assert len(ours.attrs["notes"]) == 2


def test_wide_tables_use_a_wider_code_type_and_still_count_exactly():
    rng = np.random.default_rng(3)
    q, r, n = 300, 5, 20_000  # q r = 1500 > int8: int16 codes
    group_codes = rng.integers(0, q, n)
    cell_codes = rng.integers(0, r, n).astype(np.uint8)
    ours = ContingencyTable.from_codes(group_codes, cell_codes, groups=q, cells=r, chunk_size=999).frame()
    reference = np.zeros((q, r), dtype=np.int64)
    np.add.at(reference, (group_codes, cell_codes), 1)
    keep = reference.sum(axis=1) > 0
    np.testing.assert_array_equal(ours.to_numpy(), reference[keep])


def test_multiclass_cells_from_codes_equal_the_dataframe_table():
    rng = np.random.default_rng(11)
    n = 500
    frame = pd.DataFrame(
        {"g": rng.choice(["x", "y"], n), "y": rng.integers(0, 3, n), "p": rng.integers(0, 3, n)}
    )
    cells = [(f"pred={p}, true={t}", p, t) for p in range(3) for t in range(3)]
    cell_codes = frame["p"].to_numpy() * 3 + frame["y"].to_numpy()
    group_codes = (frame["g"] == "y").to_numpy().astype(np.int64)
    ours = ContingencyTable.from_codes(group_codes, cell_codes, groups=["x", "y"], cells=cells).frame()
    _assert_same_table(ours, ContingencyTable.from_frame(frame, group="g", **COLS).frame())


def test_test_on_a_table_equals_the_dataframe_test():
    group_codes, groups, cells = _codes(DATA)
    ours = equal_confusion_test(ContingencyTable.from_codes(group_codes, cells, groups=groups, group="g"))
    theirs = equal_confusion_test(DATA, group="g", **COLS)
    _assert_same_result(ours, theirs)
    assert ours.group_columns == ("g",)
    assert ours.cochran_ok and np.isnan(ours.pvalue_permutation)


def test_permutation_pvalue_from_codes_equals_the_dataframe_path():
    frame = DATA.iloc[:40]
    group_codes, groups, cells = _codes(frame)
    table = ContingencyTable.from_codes(group_codes, cells, groups=groups, group="g")
    with pytest.warns(SmallExpectedCountWarning, match="Cochran's rule fails"):
        ours = equal_confusion_test(table, n_resamples=4000, rng=1)
    with pytest.warns(SmallExpectedCountWarning):
        theirs = equal_confusion_test(frame, group="g", **COLS, n_resamples=4000, rng=1)
    assert ours.n_resamples == theirs.n_resamples == 4000
    assert ours.pvalue_permutation == theirs.pvalue_permutation  # one method, same seed: same p
    _assert_same_result(ours, theirs)


def _write(frame: pd.DataFrame, path, *, row_group_size: int) -> None:
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=row_group_size)


@pytest.mark.parametrize("group", ["g", ["g", "s"], ["s", "g"]])
def test_streaming_table_equals_the_in_memory_table(tmp_path, group):
    path = tmp_path / "people.parquet"
    _write(DATA, path, row_group_size=100)
    ours = ContingencyTable.from_parquet(path, group=group, **COLS).frame()
    _assert_same_table(ours, ContingencyTable.from_frame(pd.read_parquet(path), group=group, **COLS).frame())


def test_streaming_categorical_and_multiclass_columns(tmp_path):
    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame(
        {
            "g": pd.Categorical(rng.choice(["u", "v", "w"], n), categories=["u", "v", "w"]),
            "y": rng.choice(["hi", "lo", "mid"], n),
            "p": rng.choice(["hi", "lo"], n),
        }
    )
    path = tmp_path / "multi.parquet"
    _write(frame, path, row_group_size=64)
    ours = ContingencyTable.from_parquet(path, group="g", **COLS).frame()
    _assert_same_table(ours, ContingencyTable.from_frame(frame, group="g", **COLS).frame())
    assert "pred=hi, true=mid" in ours.columns


def test_streaming_test_equals_the_in_memory_test(tmp_path):
    path = tmp_path / "people.parquet"
    _write(DATA, path, row_group_size=128)
    ours = equal_confusion_test(ContingencyTable.from_parquet(path, group=["g", "s"], **COLS))
    theirs = equal_confusion_test(DATA, group=["g", "s"], **COLS)
    _assert_same_result(ours, theirs)


def test_streaming_refuses_missing_values_and_columns(tmp_path):
    frame = DATA.astype({"y": "float64"})
    frame.loc[150, "y"] = np.nan
    path = tmp_path / "nan.parquet"
    _write(frame, path, row_group_size=100)
    with pytest.raises(ValueError, match=r"column 'y' has 1 missing value"):
        ContingencyTable.from_parquet(path, group="g", **COLS)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['race'\]"):
        ContingencyTable.from_parquet(path, group="race", **COLS)
    with pytest.raises(ValueError, match="no such parquet file or folder"):
        ContingencyTable.from_parquet(tmp_path / "absent.parquet", group="g", **COLS)
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    with pytest.raises(ValueError, match="could not read .* as parquet"):
        ContingencyTable.from_parquet(bad, group="g", **COLS)
    with pytest.raises(ValueError, match="`group` column 'y' is also"):
        ContingencyTable.from_parquet(path, group=["g", "y"], **COLS)


def test_code_validation_names_the_parameter_and_value():
    group_codes, groups, cells = _codes(DATA)
    with pytest.raises(ValueError, match=r"`group_codes` must be codes 0..2 .*found 3 at position 5"):
        ContingencyTable.from_codes(np.where(np.arange(len(DATA)) == 5, 3, group_codes), cells, groups=groups)
    with pytest.raises(ValueError, match=r"`cell_codes` must be codes 0..3 .*found -1 at position 0"):
        ContingencyTable.from_codes(group_codes, np.r_[-1, cells[1:]], groups=groups)
    with pytest.raises(ValueError, match="differ in length"):
        ContingencyTable.from_codes(group_codes[:-1], cells, groups=groups)
    with pytest.raises(TypeError, match="`group_codes` must hold integer codes"):
        ContingencyTable.from_codes(group_codes.astype(float), cells, groups=groups)
    with pytest.raises(ValueError, match="`group_codes` is empty"):
        ContingencyTable.from_codes(group_codes[:0], cells[:0], groups=groups)
    with pytest.raises(ValueError, match="`chunk_size` must be a positive integer"):
        ContingencyTable.from_codes(group_codes, cells, groups=groups, chunk_size=0)
    with pytest.raises(ValueError, match="`groups` repeats a label"):
        ContingencyTable.from_codes(group_codes, cells, groups=["a", "a", "b"])
    with pytest.raises(ValueError, match="single group 'a'"):
        ContingencyTable.from_codes(np.zeros(10, np.int8), cells[:10], groups=["a", "b"])
    with pytest.raises(ValueError, match=r"`y_pred` must be binary \(0/1\), found 2 at position 1"):
        ContingencyTable.binary_cell_codes([0, 1], y_pred=[0, 2])
    with pytest.raises(ValueError, match="differ in length"):
        ContingencyTable.binary_cell_codes([0, 1], y_pred=[0])
