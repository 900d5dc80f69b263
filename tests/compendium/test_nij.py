"""compendium.data.nij on the vendored fold files and on a small fixture in the official layout."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT

from compendium.data import nij

FOLDS = ROOT / "data" / "raw" / "nij-paper-folds"
OFFICIAL_SAMPLE = ROOT / "tests" / "fixtures" / "nij-official-sample.csv"


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return nij.read_paper_folds(FOLDS)


@pytest.fixture(scope="module")
def raw_files() -> pd.DataFrame:
    """All 250 fold files read the way the NIJ paper's script reads them, concatenated in fold order."""
    frames = [pd.read_csv(FOLDS / f"fold_{i:03d}.csv") for i in range(250)]
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def official() -> pd.DataFrame:
    return nij.read_official(OFFICIAL_SAMPLE, expected_rows=50)


# ---------------------------------------------------------------------------------------------------------
# Fold files: the done-when numbers (PROVENANCE.md) on the real vendored files
# ---------------------------------------------------------------------------------------------------------


def test_paper_table_counts(table):
    assert table.shape == (25_750, len(nij.TABLE_COLUMNS))
    assert list(table.columns) == list(nij.TABLE_COLUMNS)
    assert table["ID"].nunique() == 25_750
    assert table["Race"].value_counts().to_dict() == {"BLACK": 14_801, "WHITE": 10_949}
    assert int(table[nij.TARGET].sum()) == 14_855
    assert int((table[nij.TARGET] == 0).sum()) == 10_895
    missing = table[["Gang_Affiliated", "Supervision_Level_First", "Prison_Offense"]].isna().sum().to_dict()
    assert missing == {"Gang_Affiliated": 3_152, "Supervision_Level_First": 1_716, "Prison_Offense": 3_264}
    # no other column has a missing value (the authors filled numeric NaN with 0)
    assert int(table.drop(columns=list(missing)).isna().sum().sum()) == 0


def test_paper_table_schema_and_order(table):
    assert table["fold"].dtype == "Int64"
    assert table["fold"].value_counts().sort_index().tolist() == [103] * 250
    assert table["fold"].is_monotonic_increasing
    assert table.index.equals(pd.RangeIndex(25_750))
    for col, levels in nij.CATEGORIES.items():
        assert isinstance(table[col].dtype, pd.CategoricalDtype), col
        assert list(table[col].cat.categories) == list(levels), col
    assert table[nij.TARGET].dtype == np.int64
    assert set(table[nij.TARGET].unique()) == {0, 1}
    assert table.attrs["source"] == "paper"
    assert table.attrs["file_columns"] == list(nij.PAPER_FILE_COLUMNS)
    assert nij.validate_table(table) is table


def test_file_header_is_the_documented_layout():
    header = pd.read_csv(FOLDS / "fold_123.csv", nrows=0).columns.tolist()
    assert header == list(nij.PAPER_FILE_COLUMNS)
    assert len(header) == 141
    assert set(nij.OFFICIAL_COLUMNS) == {*nij.FEATURE_COLUMNS, "ID", nij.TARGET, *nij.OFFICIAL_EXTRA_COLUMNS}
    assert len(nij.OFFICIAL_COLUMNS) == 54


def test_table_rebuilds_every_file_value_for_value(table, raw_files):
    dm = nij.design_matrix(table, features="paper")
    expected = raw_files.drop(columns=["Unnamed: 0", nij.TARGET])
    # the authors' design matrix: same columns, order, dtypes and values as the files
    pd.testing.assert_frame_equal(dm.X, expected, check_exact=True)
    assert dm.X.shape == (25_750, 139)
    np.testing.assert_array_equal(table["row_position"].to_numpy(), raw_files["Unnamed: 0"].to_numpy())
    np.testing.assert_array_equal(dm.y_true.to_numpy(), raw_files[nij.TARGET].to_numpy())
    assert "ID" in dm.X.columns and "Unnamed: 0.1" in dm.X.columns


def test_clean_matrix(table):
    dm = nij.design_matrix(table, features="clean")
    X = dm.X
    for col in ("ID", "Unnamed: 0.1", "Unnamed: 0", "row_position", "original_position", "fold", nij.TARGET):
        assert col not in X.columns
    assert set(X.dtypes) == {np.dtype("float64")}
    assert dm.race_columns == ("Race_BLACK", "Race_WHITE")
    missing_cols = [c for c in X.columns if c.endswith("_missing")]
    assert missing_cols == [
        "Gang_Affiliated_missing",
        "Supervision_Level_First_missing",
        "Prison_Offense_missing",
    ]
    assert X["Gang_Affiliated_missing"].sum() == 3_152
    for col, levels in nij.CATEGORIES.items():
        names = [nij.dummy_name(col, lvl) for lvl in levels]
        if f"{col}_missing" in X.columns:
            names.append(f"{col}_missing")
        np.testing.assert_array_equal(X[names].sum(axis=1).to_numpy(), 1.0, err_msg=col)
    np.testing.assert_array_equal(X["Jobs_Per_Year"].to_numpy(), table["Jobs_Per_Year"].to_numpy())
    assert X.shape == (25_750, 140)
    frame = dm.to_frame()
    assert list(frame.columns[:4]) == ["fold", "ID", "group", "y_true"]
    assert frame.shape == (25_750, 144)


@pytest.mark.parametrize("features", ["paper", "clean"])
def test_flip_race_changes_only_race(table, features):
    X = nij.design_matrix(table.iloc[:500], features=features).X
    flipped = nij.flip_race(X, features=features)
    assert list(flipped.columns) == list(X.columns)
    assert flipped.dtypes.equals(X.dtypes)
    assert flipped.index.equals(X.index)
    others = [c for c in X.columns if c not in nij.RACE_COLUMNS]
    pd.testing.assert_frame_equal(flipped[others], X[others], check_exact=True)
    np.testing.assert_array_equal(flipped["Race_BLACK"].to_numpy(), X["Race_WHITE"].to_numpy())
    np.testing.assert_array_equal(flipped["Race_WHITE"].to_numpy(), X["Race_BLACK"].to_numpy())
    assert (flipped["Race_BLACK"] != X["Race_BLACK"]).all()
    pd.testing.assert_frame_equal(nij.flip_race(flipped, features=features), X, check_exact=True)
    assert X["Race_BLACK"].iloc[0] in (0, 1)  # the input is untouched


def test_flip_race_rejects_bad_input(table):
    X = nij.design_matrix(table.iloc[:5], features="paper").X
    with pytest.raises(ValueError, match="Race_WHITE"):
        nij.flip_race(X.drop(columns=["Race_WHITE"]), features="paper")
    bad = X.copy()
    bad.loc[bad.index[2], "Race_BLACK"] = bad.loc[bad.index[2], "Race_WHITE"]
    with pytest.raises(ValueError, match="row 2 has race dummies"):
        nij.flip_race(bad, features="paper")
    with pytest.raises(ValueError, match="`features`.*'fancy'"):
        nij.flip_race(X, features="fancy")
    with pytest.raises(TypeError, match="`X` must be a pandas DataFrame"):
        nij.flip_race(X.to_numpy(), features="paper")


def test_design_matrix_rejects_bad_input(table):
    with pytest.raises(ValueError, match="`features`.*'authors'"):
        nij.design_matrix(table, features="authors")
    with pytest.raises(ValueError, match="missing column.*'Race'"):
        nij.design_matrix(table.drop(columns=["Race"]), features="paper")
    wrong = table.iloc[:10].copy()
    wrong["Gender"] = wrong["Gender"].astype(str)
    with pytest.raises(TypeError, match="'Gender' must be categorical"):
        nij.design_matrix(wrong, features="clean")


def test_design_matrix_roundtrips_through_parquet(table, tmp_path):
    path = tmp_path / "table.parquet"
    table.iloc[:300].to_parquet(path)
    back = pd.read_parquet(path)
    pd.testing.assert_frame_equal(back, table.iloc[:300], check_exact=True)
    pd.testing.assert_frame_equal(
        nij.design_matrix(back, features="paper").X, nij.design_matrix(table.iloc[:300], features="paper").X
    )


# ---------------------------------------------------------------------------------------------------------
# Fold files: bad input
# ---------------------------------------------------------------------------------------------------------


def _copy_folds(tmp_path: Path, n: int = 3) -> Path:
    folder = tmp_path / "folds"
    folder.mkdir(parents=True)
    for i in range(n):
        shutil.copyfile(FOLDS / f"fold_{i:03d}.csv", folder / f"fold_{i:03d}.csv")
    return folder


def test_authors_file_names_read_in_numeric_order(tmp_path, table):
    folder = tmp_path / "Folds"
    folder.mkdir()
    for i in (2, 10, 1):
        shutil.copyfile(FOLDS / f"fold_{i:03d}.csv", folder / f"Fold {i}.csv")
    small = nij.read_paper_folds(folder)
    assert small["fold"].tolist() == [1] * 103 + [2] * 103 + [10] * 103
    expected = table[table["fold"].isin([1, 2, 10])].reset_index(drop=True)
    pd.testing.assert_frame_equal(small, expected, check_exact=True)


def test_reader_rejects_changed_header(tmp_path):
    folder = _copy_folds(tmp_path)
    path = folder / "fold_001.csv"
    path.write_bytes(path.read_bytes().replace(b"Race_WHITE", b"Race_OTHER", 1))
    with pytest.raises(
        ValueError, match=r"fold_001\.csv.*column 33: got 'Race_OTHER', expected 'Race_WHITE'"
    ):
        nij.read_paper_folds(folder)


def _edit_cell(path: Path, row: int, column: str, value: str) -> None:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    lines = path.read_text().splitlines(keepends=True)
    j = list(frame.columns).index(column)
    cells = lines[row + 1].rstrip("\n").split(",")
    cells[j] = value
    lines[row + 1] = ",".join(cells) + "\n"
    path.write_text("".join(lines))


def test_reader_rejects_bad_dummy(tmp_path):
    folder = _copy_folds(tmp_path)
    _edit_cell(folder / "fold_002.csv", 5, "Gender_M", "2")
    with pytest.raises(ValueError, match=r"fold_002\.csv' data row 5: dummy column 'Gender_M' has value 2"):
        nij.read_paper_folds(folder)


def test_reader_rejects_two_levels(tmp_path):
    folder = _copy_folds(tmp_path)
    _edit_cell(folder / "fold_000.csv", 7, "Race_BLACK", "1")
    _edit_cell(folder / "fold_000.csv", 7, "Race_WHITE", "1")
    with pytest.raises(ValueError, match=r"fold_000\.csv' data row 7: column 'Race' has several levels"):
        nij.read_paper_folds(folder)


def test_reader_rejects_bad_target_and_duplicate_id(tmp_path):
    folder = _copy_folds(tmp_path)
    _edit_cell(folder / "fold_001.csv", 0, nij.TARGET, "3")
    with pytest.raises(
        ValueError, match=r"fold_001\.csv' data row 0: column 'Recidivism_Within_3years' has value 3"
    ):
        nij.read_paper_folds(folder)
    folder2 = _copy_folds(tmp_path / "b")
    shutil.copyfile(folder2 / "fold_000.csv", folder2 / "fold_007.csv")
    with pytest.raises(ValueError, match="column 'ID' has duplicated value"):
        nij.read_paper_folds(folder2)


def test_reader_rejects_empty_folder(tmp_path):
    with pytest.raises(ValueError, match="no fold files"):
        nij.read_paper_folds(tmp_path)
    with pytest.raises(ValueError, match="is not a directory"):
        nij.read_paper_folds(tmp_path / "nowhere")


# ---------------------------------------------------------------------------------------------------------
# Official layout: 50 fold rows written back in the official format (tests/fixtures/nij-official-sample.md)
# ---------------------------------------------------------------------------------------------------------


def test_official_fixture_matches_fold_rows(official, table):
    assert list(official.columns) == list(nij.TABLE_COLUMNS)
    assert official.shape == (50, len(nij.TABLE_COLUMNS))
    assert official["fold"].isna().all() and official["fold"].dtype == "Int64"
    assert official["row_position"].tolist() == list(range(50))
    assert official["original_position"].tolist() == list(range(50))
    assert official.attrs["source"] == "official"
    nij.validate_table(official)
    same = table.set_index("ID").loc[official["ID"]].reset_index()
    for col in nij.CATEGORICAL_COLUMNS:
        pd.testing.assert_series_equal(official[col], same[col], check_names=False)
    for col in (*nij.BOOLEAN_COLUMNS, "Residence_PUMA", nij.TARGET):
        assert official[col].dtype == np.int64, col
        np.testing.assert_array_equal(official[col].to_numpy(), same[col].to_numpy(), err_msg=col)
    for col in nij.FLOAT_COLUMNS:
        assert official[col].dtype == np.float64, col
        got, want = official[col].to_numpy(), same[col].to_numpy()
        present = ~np.isnan(got)
        np.testing.assert_allclose(got[present], want[present], rtol=1e-15, atol=0, err_msg=col)
    # the fixture writes the authors' 0-filled risk scores back as missing
    assert int(official["Supervision_Risk_Score_First"].isna().sum()) == 2
    assert (
        same.loc[official["Supervision_Risk_Score_First"].isna(), "Supervision_Risk_Score_First"] == 0
    ).all()


def test_official_design_matrices(official, table):
    paper = nij.design_matrix(official, features="paper").X
    same = table.set_index("ID").loc[official["ID"]].reset_index()
    ref = nij.design_matrix(same, features="paper").X
    assert list(paper.columns) == list(ref.columns)
    # equal to the fold rows' matrix except the original position (fixture order != official file order)
    others = [c for c in paper.columns if c != "Unnamed: 0.1"]
    pd.testing.assert_frame_equal(paper[others], ref[others], check_exact=False, rtol=1e-15)
    clean = nij.design_matrix(official, features="clean").X
    assert clean["Supervision_Risk_Score_First_missing"].sum() == 2
    assert (
        clean.loc[official["Supervision_Risk_Score_First"].isna(), "Supervision_Risk_Score_First"].eq(0).all()
    )
    cols = list(clean.columns)
    assert (
        cols.index("Supervision_Risk_Score_First_missing") == cols.index("Supervision_Risk_Score_First") + 1
    )


def _rewrite(tmp_path: Path, edit) -> Path:
    frame = pd.read_csv(OFFICIAL_SAMPLE, dtype=str, keep_default_na=False)
    frame = edit(frame)
    path = tmp_path / "official.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("true", "false"), [("True", "False"), ("TRUE", "FALSE"), ("1", "0")], ids=["title", "upper", "digits"]
)
def test_official_accepts_boolean_spellings(tmp_path, official, true, false):
    def edit(frame):
        for col in (*nij.BOOLEAN_COLUMNS, nij.TARGET, "Gang_Affiliated", *nij.OFFICIAL_EXTRA_COLUMNS[:3]):
            frame[col] = frame[col].replace({"true": true, "false": false})
        return frame

    again = nij.read_official(_rewrite(tmp_path, edit))
    pd.testing.assert_frame_equal(again, official)


def test_official_accepts_other_header_case(tmp_path, official):
    again = nij.read_official(_rewrite(tmp_path, lambda f: f.rename(columns=str.lower)))
    pd.testing.assert_frame_equal(again, official)


def _set(col, row, value):
    def edit(frame):
        frame.loc[row, col] = value
        return frame

    return edit


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda f: f.drop(columns=["Prison_Years"]), r"missing column\(s\) 'Prison_Years'"),
        (lambda f: f.assign(Extra="x"), r"unexpected column\(s\) \['Extra'\]"),
        (
            _set("Race", 3, "ASIAN"),
            r"data row 3: column 'Race' has value 'ASIAN', expected one of \['BLACK', 'WHITE'\]",
        ),
        (_set("Race", 4, ""), r"data row 4: column 'Race' is missing"),
        (_set("Age_at_Release", 1, "17"), r"data row 1: column 'Age_at_Release' has value '17'"),
        (_set(nij.TARGET, 9, "maybe"), r"data row 9: column 'Recidivism_Within_3years' has value 'maybe'"),
        (_set(nij.TARGET, 8, ""), r"data row 8: column 'Recidivism_Within_3years' has value nan"),
        (
            _set("Condition_MH_SA", 2, "yes"),
            r"column 'Condition_MH_SA' has value 'yes', expected true or false",
        ),
        (
            _set("Jobs_Per_Year", 6, "abc"),
            r"data row 6: column 'Jobs_Per_Year' has value 'abc', expected a number",
        ),
        (
            _set("Residence_PUMA", 0, "3.5"),
            r"data row 0: column 'Residence_PUMA' has value '3.5', expected an integer",
        ),
        (_set("ID", 5, "812"), r"column 'ID' has duplicated value 812"),
        (_set("Training_Sample", 5, "2"), r"column 'Training_Sample' has value '2'"),
    ],
    ids=[
        "missing-column",
        "extra-column",
        "race-value",
        "race-missing",
        "unknown-level",
        "target-value",
        "target-missing",
        "boolean-value",
        "float-value",
        "integer-value",
        "duplicate-id",
        "extra-column-value",
    ],
)
def test_official_rejects_bad_content(tmp_path, edit, match):
    path = _rewrite(tmp_path, edit)
    with pytest.raises(ValueError, match=match) as info:
        nij.read_official(path)
    assert "official.csv" in str(info.value)


def test_official_row_count_and_file(tmp_path):
    with pytest.raises(ValueError, match=r"50 data rows, expected 25835"):
        nij.read_official(OFFICIAL_SAMPLE, expected_rows=nij.OFFICIAL_N_ROWS)
    with pytest.raises(ValueError, match="is not a file"):
        nij.read_official(tmp_path / "absent.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match=r"empty\.csv.*not a readable CSV file"):
        nij.read_official(tmp_path / "empty.csv")
