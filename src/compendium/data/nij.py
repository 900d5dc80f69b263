"""NIJ Recidivism Challenge data: one tidy table from the NIJ paper's 250 fold files or from the official CSV.

The NIJ paper's authors one-hot encoded every categorical column of the official NIJ dataset
(``pandas.get_dummies``), shuffled the rows, cut them into 250 folds of 103 rows and committed one CSV per
fold. :func:`read_paper_folds` undoes the encoding: each categorical column comes back as a
``pandas.Categorical`` (all-zero dummies = missing). :func:`read_official` loads the official CSV (Socrata
ynf5-u8nk, 54 columns) into the same schema. :func:`design_matrix` builds the models' inputs: ``paper``
(exactly the authors' matrix, ``ID`` and the original row position included) or ``clean``;
:func:`flip_race` swaps the race encoding for the counterfactual predictions.

The tidy table (:data:`TABLE_COLUMNS`, in this order):

``fold``
    Fold of the authors' split, 0-249 (nullable ``Int64``; missing for the official file).
``ID``
    The NIJ person identifier (``int64``, unique).
``row_position``
    Position after the authors' shuffle (``Unnamed: 0`` of the fold files); official file: the file order.
``original_position``
    Position in the official file (``Unnamed: 0.1`` of the fold files); official file: the file order.
the NIJ feature columns, in the official order
    :data:`CATEGORIES` as ``Categorical`` (categories = dummy levels in file order, missing = NaN);
    :data:`NUMERIC_COLUMNS` as numbers (``int64``: 0/1 flags and ``Residence_PUMA``; ``float64``: the rest).
``Recidivism_Within_3years``
    The target, ``int64`` 0/1 (1 = arrested for a new crime within three years).

References
----------
National Institute of Justice, Recidivism Forecasting Challenge, full dataset (Socrata ynf5-u8nk).
The NIJ paper's repository, animeshjoshi/Algorithmic-Fairness-in-Recidivism-Forecasting-Algorithms,
commit f53b889ad64114faee58f4051ed19422dc3d97ef, folder ``Folds/``; see ``data/raw/README.md``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from compendium._checks import require_table

__all__ = [
    "BOOLEAN_COLUMNS",
    "CATEGORICAL_COLUMNS",
    "CATEGORIES",
    "FEATURE_COLUMNS",
    "FEATURE_SETS",
    "FLOAT_COLUMNS",
    "NUMERIC_COLUMNS",
    "OFFICIAL_COLUMNS",
    "OFFICIAL_EXTRA_COLUMNS",
    "OFFICIAL_N_ROWS",
    "PAPER_FILE_COLUMNS",
    "RACE_COLUMNS",
    "SENSITIVE",
    "TABLE_COLUMNS",
    "TARGET",
    "DesignMatrix",
    "design_matrix",
    "dummy_name",
    "flip_race",
    "read_official",
    "read_paper_folds",
    "validate_table",
]

#: The outcome: 1 = arrested for a new felony or misdemeanour within three years of release.
TARGET = "Recidivism_Within_3years"
#: The sensitive attribute (values BLACK, WHITE).
SENSITIVE = "Race"
#: Column names of the fold files' two position columns (pandas' names for them).
ROW_POSITION_FILE = "Unnamed: 0"
ORIGINAL_POSITION_FILE = "Unnamed: 0.1"

#: Categorical NIJ columns -> their levels, in the order of their dummies in the fold files
#: (pandas.get_dummies sorts levels as strings, hence "10 or more" before "2").
CATEGORIES: dict[str, tuple[str, ...]] = {
    "Gender": ("F", "M"),
    "Race": ("BLACK", "WHITE"),
    "Age_at_Release": ("18-22", "23-27", "28-32", "33-37", "38-42", "43-47", "48 or older"),
    "Gang_Affiliated": ("False", "True"),
    "Supervision_Level_First": ("High", "Specialized", "Standard"),
    "Education_Level": ("At least some college", "High School Diploma", "Less than HS diploma"),
    "Dependents": ("0", "1", "2", "3 or more"),
    "Prison_Offense": ("Drug", "Other", "Property", "Violent/Non-Sex", "Violent/Sex"),
    "Prison_Years": ("1-2 years", "Greater than 2 to 3 years", "Less than 1 year", "More than 3 years"),
    "Prior_Arrest_Episodes_Felony": ("0", "1", "10 or more", "2", "3", "4", "5", "6", "7", "8", "9"),
    "Prior_Arrest_Episodes_Misd": ("0", "1", "2", "3", "4", "5", "6 or more"),
    "Prior_Arrest_Episodes_Violent": ("0", "1", "2", "3 or more"),
    "Prior_Arrest_Episodes_Property": ("0", "1", "2", "3", "4", "5 or more"),
    "Prior_Arrest_Episodes_Drug": ("0", "1", "2", "3", "4", "5 or more"),
    "Prior_Arrest_Episodes_PPViolationCharges": ("0", "1", "2", "3", "4", "5 or more"),
    "Prior_Conviction_Episodes_Felony": ("0", "1", "2", "3 or more"),
    "Prior_Conviction_Episodes_Misd": ("0", "1", "2", "3", "4 or more"),
    "Prior_Conviction_Episodes_Prop": ("0", "1", "2", "3 or more"),
    "Prior_Conviction_Episodes_Drug": ("0", "1", "2 or more"),
    "Delinquency_Reports": ("0", "1", "2", "3", "4 or more"),
    "Program_Attendances": ("0", "1", "10 or more", "2", "3", "4", "5", "6", "7", "8", "9"),
    "Program_UnexcusedAbsences": ("0", "1", "2", "3 or more"),
    "Residence_Changes": ("0", "1", "2", "3 or more"),
}
CATEGORICAL_COLUMNS: tuple[str, ...] = tuple(CATEGORIES)

#: Official true/false columns; 0/1 integers in the fold files and in the tidy table.
BOOLEAN_COLUMNS: tuple[str, ...] = (
    "Prior_Arrest_Episodes_DVCharges",
    "Prior_Arrest_Episodes_GunCharges",
    "Prior_Conviction_Episodes_Viol",
    "Prior_Conviction_Episodes_PPViolationCharges",
    "Prior_Conviction_Episodes_DomesticViolenceCharges",
    "Prior_Conviction_Episodes_GunCharges",
    "Prior_Revocations_Parole",
    "Prior_Revocations_Probation",
    "Condition_MH_SA",
    "Condition_Cog_Ed",
    "Condition_Other",
    "Violations_ElectronicMonitoring",
    "Violations_Instruction",
    "Violations_FailToReport",
    "Violations_MoveWithoutPermission",
    "Employment_Exempt",
)
#: Real-valued columns (missing values in the official file; filled with 0 by the NIJ paper's authors).
FLOAT_COLUMNS: tuple[str, ...] = (
    "Supervision_Risk_Score_First",
    "Avg_Days_per_DrugTest",
    "DrugTests_THC_Positive",
    "DrugTests_Cocaine_Positive",
    "DrugTests_Meth_Positive",
    "DrugTests_Other_Positive",
    "Percent_Days_Employed",
    "Jobs_Per_Year",
)
_INTEGER_COLUMNS: tuple[str, ...] = ("Residence_PUMA",)

#: The official file's 54 columns, in its order (Socrata ynf5-u8nk).
OFFICIAL_COLUMNS: tuple[str, ...] = (
    "ID",
    "Gender",
    "Race",
    "Age_at_Release",
    "Residence_PUMA",
    "Gang_Affiliated",
    "Supervision_Risk_Score_First",
    "Supervision_Level_First",
    "Education_Level",
    "Dependents",
    "Prison_Offense",
    "Prison_Years",
    "Prior_Arrest_Episodes_Felony",
    "Prior_Arrest_Episodes_Misd",
    "Prior_Arrest_Episodes_Violent",
    "Prior_Arrest_Episodes_Property",
    "Prior_Arrest_Episodes_Drug",
    "Prior_Arrest_Episodes_PPViolationCharges",
    "Prior_Arrest_Episodes_DVCharges",
    "Prior_Arrest_Episodes_GunCharges",
    "Prior_Conviction_Episodes_Felony",
    "Prior_Conviction_Episodes_Misd",
    "Prior_Conviction_Episodes_Viol",
    "Prior_Conviction_Episodes_Prop",
    "Prior_Conviction_Episodes_Drug",
    "Prior_Conviction_Episodes_PPViolationCharges",
    "Prior_Conviction_Episodes_DomesticViolenceCharges",
    "Prior_Conviction_Episodes_GunCharges",
    "Prior_Revocations_Parole",
    "Prior_Revocations_Probation",
    "Condition_MH_SA",
    "Condition_Cog_Ed",
    "Condition_Other",
    "Violations_ElectronicMonitoring",
    "Violations_Instruction",
    "Violations_FailToReport",
    "Violations_MoveWithoutPermission",
    "Delinquency_Reports",
    "Program_Attendances",
    "Program_UnexcusedAbsences",
    "Residence_Changes",
    "Avg_Days_per_DrugTest",
    "DrugTests_THC_Positive",
    "DrugTests_Cocaine_Positive",
    "DrugTests_Meth_Positive",
    "DrugTests_Other_Positive",
    "Percent_Days_Employed",
    "Jobs_Per_Year",
    "Employment_Exempt",
    "Recidivism_Within_3years",
    "Recidivism_Arrest_Year1",
    "Recidivism_Arrest_Year2",
    "Recidivism_Arrest_Year3",
    "Training_Sample",
)
#: Official columns that the fold files (and so the tidy table) do not have: later outcomes, NIJ's own split.
OFFICIAL_EXTRA_COLUMNS: tuple[str, ...] = (
    "Recidivism_Arrest_Year1",
    "Recidivism_Arrest_Year2",
    "Recidivism_Arrest_Year3",
    "Training_Sample",
)
#: Rows of the official full dataset (the fold files hold 25,750 of them: 250 x 103).
OFFICIAL_N_ROWS = 25_835

#: The NIJ feature columns of the tidy table, in the official order.
FEATURE_COLUMNS: tuple[str, ...] = tuple(
    c for c in OFFICIAL_COLUMNS if c not in ("ID", TARGET, *OFFICIAL_EXTRA_COLUMNS)
)
#: Numeric (non-categorical) feature columns, in the official order (= their order in the fold files).
NUMERIC_COLUMNS: tuple[str, ...] = tuple(c for c in FEATURE_COLUMNS if c not in CATEGORIES)
#: Columns of the tidy table, in order.
TABLE_COLUMNS: tuple[str, ...] = ("fold", "ID", "row_position", "original_position", *FEATURE_COLUMNS, TARGET)


def dummy_name(column: str, level: str) -> str:
    """Name of the one-hot column of ``level`` of ``column`` (as ``pandas.get_dummies``: column_level)."""
    return f"{column}_{level}"


#: Columns of every fold file, in file order (pandas names; the file's first header field is empty).
PAPER_FILE_COLUMNS: tuple[str, ...] = (
    ROW_POSITION_FILE,
    ORIGINAL_POSITION_FILE,
    "ID",
    *NUMERIC_COLUMNS,
    TARGET,
    *(dummy_name(c, lvl) for c, levels in CATEGORIES.items() for lvl in levels),
)
#: The race dummies, which :func:`flip_race` swaps (same names in both feature sets).
RACE_COLUMNS: tuple[str, ...] = tuple(dummy_name(SENSITIVE, lvl) for lvl in CATEGORIES[SENSITIVE])
#: Names accepted by ``features=``.
FEATURE_SETS: tuple[str, ...] = ("clean", "paper")

_FOLD_FILE = re.compile(r"^(?:fold_0*(\d+)|Fold (\d+))\.csv$")
_TRUE = frozenset({"true", "1", "1.0"})
_FALSE = frozenset({"false", "0", "0.0"})


# ----------------------------------------------------------------------------------------------------------
# Fold files
# ----------------------------------------------------------------------------------------------------------


def _fold_files(folder: Path) -> list[tuple[int, Path]]:
    if not folder.is_dir():
        raise ValueError(f"`folder`: {str(folder)!r} is not a directory")
    found: dict[int, Path] = {}
    for path in folder.iterdir():
        m = _FOLD_FILE.match(path.name)
        if m is None:
            continue
        fold = int(m.group(1) or m.group(2))
        if fold in found:
            raise ValueError(f"`folder`: fold {fold} appears twice: {found[fold].name!r} and {path.name!r}")
        found[fold] = path
    if not found:
        raise ValueError(
            f"`folder`: no fold files in {str(folder)!r} "
            "(expected names 'fold_000.csv' ... or 'Fold 0.csv' ...)"
        )
    return sorted(found.items())


def _expected_header() -> bytes:
    return (",".join(["", *PAPER_FILE_COLUMNS[1:]]) + "\n").encode()


def read_paper_folds(folder: str | os.PathLike) -> pd.DataFrame:
    """Read the NIJ paper's fold files into one tidy table.

    Parameters
    ----------
    folder : str or path-like
        Folder holding the fold files, named ``fold_000.csv`` ... (vendored copies) or ``Fold 0.csv`` ...
        (the authors' names). Folds are numbered from the file name and read in numeric order.

    Returns
    -------
    pandas.DataFrame
        The tidy table (:data:`TABLE_COLUMNS`; see the module docstring), one row per person, rows in fold
        order then file order, index ``0 .. n-1``. ``attrs["source"] = "paper"`` and
        ``attrs["file_columns"]`` (= :data:`PAPER_FILE_COLUMNS`), enough to rebuild the files' column order.

    Raises
    ------
    ValueError
        If the folder has no fold files, a file's header differs from :data:`PAPER_FILE_COLUMNS`, a dummy
        is not 0/1, a row has two levels of one column, or an ID repeats; the message names the file, the
        column and the value.

    Notes
    -----
    A categorical column :math:`c` with levels :math:`l_1, \\dots, l_k` is restored from its dummies
    :math:`d_{c,l_j} \\in \\{0, 1\\}` as :math:`c = l_j` where :math:`d_{c,l_j} = 1`, and as missing where all
    :math:`k` dummies are 0. Numeric columns are kept as they are: the authors filled their missing values
    with 0, which cannot be undone.

    Examples
    --------
    >>> table = read_paper_folds("data/raw/nij-paper-folds")  # doctest: +SKIP
    >>> table.shape
    (25750, 53)
    """
    folder = Path(folder)
    files = _fold_files(folder)
    header = _expected_header()
    bodies: list[bytes] = []
    folds: list[np.ndarray] = []
    for fold, path in files:
        raw = path.read_bytes()
        first, sep, body = raw.partition(b"\n")
        if first.rstrip(b"\r") + b"\n" != header:
            got = first.rstrip(b"\r").decode(errors="replace").split(",")
            want = ["", *PAPER_FILE_COLUMNS[1:]]
            pos = next(
                (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                min(len(got), len(want)),
            )
            got_name = got[pos] if pos < len(got) else "<end>"
            want_name = want[pos] if pos < len(want) else "<end>"
            raise ValueError(
                f"{str(path)!r}: header differs from the NIJ fold layout at column {pos + 1}: "
                f"got {got_name!r}, expected {want_name!r}"
            )
        if body and not body.endswith(b"\n"):
            body += b"\n"
        n = body.count(b"\n")
        if n == 0:
            raise ValueError(f"{str(path)!r}: no data rows")
        bodies.append(body)
        folds.append(np.full(n, fold, dtype=np.int64))
    raw = pd.read_csv(BytesIO(header + b"".join(bodies)))
    fold = np.concatenate(folds)
    if len(raw) != len(fold):  # a quoted newline or a blank line would break the row <-> file mapping
        raise ValueError(f"{str(folder)!r}: fold files have {len(fold)} lines but {len(raw)} rows")
    table = _table_from_paper_frame(raw, fold=fold, where=str(folder), files=files)
    table.attrs["source"] = "paper"
    table.attrs["file_columns"] = list(PAPER_FILE_COLUMNS)
    return table


def _where_row(files: list[tuple[int, Path]] | None, fold: np.ndarray | None, i: int, where: str) -> str:
    if files is None or fold is None:
        return f"{where} row {i}"
    f = int(fold[i])
    path = dict(files)[f]
    within = i - int(np.searchsorted(fold, f))
    return f"{str(path)!r} data row {within}"


def _table_from_paper_frame(
    raw: pd.DataFrame, *, fold: np.ndarray | None, where: str, files: list[tuple[int, Path]] | None = None
) -> pd.DataFrame:
    """Tidy table from a frame in the fold files' layout (dummies decoded)."""
    n = len(raw)
    out: dict[str, object] = {
        "fold": pd.array(fold, dtype="Int64") if fold is not None else pd.array([pd.NA] * n, dtype="Int64"),
        "ID": raw["ID"].to_numpy(dtype=np.int64),
        "row_position": raw[ROW_POSITION_FILE].to_numpy(dtype=np.int64),
        "original_position": raw[ORIGINAL_POSITION_FILE].to_numpy(dtype=np.int64),
    }
    for col in FEATURE_COLUMNS:
        if col in CATEGORIES:
            out[col] = _decode_dummies(raw, col, where=where, files=files, fold=fold)
        else:
            out[col] = raw[col].to_numpy()
    y = raw[TARGET].to_numpy()
    bad = ~np.isin(y, [0, 1])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        at = _where_row(files, fold, i, where)
        raise ValueError(f"{at}: column {TARGET!r} has value {y[i].item()!r}, expected 0 or 1")
    out[TARGET] = y.astype(np.int64)
    table = pd.DataFrame(out)
    _check_unique_id(table, where=where)
    return table


def _decode_dummies(
    raw: pd.DataFrame, col: str, *, where: str, files: list[tuple[int, Path]] | None, fold: np.ndarray | None
) -> pd.Categorical:
    levels = CATEGORIES[col]
    names = [dummy_name(col, lvl) for lvl in levels]
    block = raw[names].to_numpy()
    bad = ~np.isin(block, [0, 1])
    if bad.any():
        i, j = (int(k[0]) for k in np.nonzero(bad))
        at = _where_row(files, fold, i, where)
        raise ValueError(f"{at}: dummy column {names[j]!r} has value {block[i, j].item()!r}, expected 0 or 1")
    total = block.sum(axis=1)
    if (total > 1).any():
        i = int(np.flatnonzero(total > 1)[0])
        on = [names[j] for j in np.flatnonzero(block[i])]
        raise ValueError(f"{_where_row(files, fold, i, where)}: column {col!r} has several levels set: {on}")
    codes = np.where(total == 1, block.argmax(axis=1), -1)
    return pd.Categorical.from_codes(codes, categories=list(levels))


def _check_unique_id(table: pd.DataFrame, *, where: str) -> None:
    dup = table["ID"].duplicated()
    if dup.any():
        value = table.loc[dup, "ID"].iloc[0].item()
        raise ValueError(f"{where}: column 'ID' has duplicated value {value!r} ({int(dup.sum())} duplicates)")


# ----------------------------------------------------------------------------------------------------------
# Official file
# ----------------------------------------------------------------------------------------------------------


def read_official(path: str | os.PathLike, *, expected_rows: int | None = None) -> pd.DataFrame:
    """Read the official NIJ full dataset (CSV export of Socrata ynf5-u8nk) into the tidy table's schema.

    Parameters
    ----------
    path : str or path-like
        The CSV file (54 columns, :data:`OFFICIAL_COLUMNS`; header names matched case-insensitively).
    expected_rows : int, optional
        Check the number of data rows (the full dataset has :data:`OFFICIAL_N_ROWS` = 25,835).

    Returns
    -------
    pandas.DataFrame
        The tidy table (:data:`TABLE_COLUMNS`): ``fold`` missing, ``row_position`` and ``original_position``
        the 0-based file order, categorical columns as ``Categorical`` with the fold files' levels
        (``Gang_Affiliated`` true/false -> ``"True"``/``"False"``), true/false columns and the target as
        ``int64`` 0/1, real-valued columns as ``float64`` with their missing values kept. The four
        :data:`OFFICIAL_EXTRA_COLUMNS` are checked, then dropped. ``attrs["source"] = "official"``.

    Raises
    ------
    ValueError
        Naming the file, the column and the offending value: a missing or unexpected column, a value that
        is not a number / not true-false / not a known level, a missing target, a duplicated ID, a race
        other than BLACK or WHITE, or a row count other than ``expected_rows``.

    Notes
    -----
    Validation is by content because the file's checksum is not known in advance (the portal regenerates the
    export); :func:`compendium.data.download.fetch_official_nij` records the sha256 that the file had.

    Examples
    --------
    >>> table = read_official("data/raw/nij-official.csv", expected_rows=25835)  # doctest: +SKIP
    """
    path = Path(path)
    where = repr(str(path))
    if not path.is_file():
        raise ValueError(f"`path`: {where} is not a file")
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where}: not a readable CSV file ({exc})") from exc
    raw = _official_columns(raw, where=where)
    if expected_rows is not None and len(raw) != expected_rows:
        raise ValueError(f"{where}: {len(raw)} data rows, expected {expected_rows}")
    if len(raw) == 0:
        raise ValueError(f"{where}: no data rows")
    n = len(raw)
    out: dict[str, object] = {
        "fold": pd.array([pd.NA] * n, dtype="Int64"),
        "ID": _official_integer(raw, "ID", where=where, allow_missing=False),
        "row_position": np.arange(n, dtype=np.int64),
        "original_position": np.arange(n, dtype=np.int64),
    }
    for col in FEATURE_COLUMNS:
        if col in CATEGORIES:
            out[col] = _official_categorical(raw, col, where=where)
        elif col in BOOLEAN_COLUMNS:
            out[col] = _official_boolean(raw, col, where=where)
        elif col in FLOAT_COLUMNS:
            out[col] = _official_float(raw, col, where=where)
        else:
            out[col] = _official_integer(raw, col, where=where, allow_missing=False)
    out[TARGET] = _official_boolean(raw, TARGET, where=where, allow_missing=False)
    for col in OFFICIAL_EXTRA_COLUMNS:  # checked for type, then dropped (not in the fold files)
        _official_boolean(raw, col, where=where)
    table = pd.DataFrame(out)
    _check_unique_id(table, where=where)
    races = table[SENSITIVE]
    if races.isna().any():
        i = int(np.flatnonzero(races.isna().to_numpy())[0])
        raise ValueError(
            f"{where} data row {i}: column {SENSITIVE!r} is missing, expected one of BLACK, WHITE"
        )
    table.attrs["source"] = "official"
    return table


def _official_columns(raw: pd.DataFrame, *, where: str) -> pd.DataFrame:
    canonical = {c.lower(): c for c in OFFICIAL_COLUMNS}
    renamed: dict[str, str] = {}
    unexpected: list[str] = []
    for c in raw.columns:
        key = str(c).strip().lower()
        if key in canonical and canonical[key] not in renamed.values():
            renamed[c] = canonical[key]
        else:
            unexpected.append(str(c))
    raw = raw.rename(columns=renamed)
    require_table(raw, OFFICIAL_COLUMNS, where=where)
    if unexpected:
        raise ValueError(
            f"{where}: unexpected column(s) {unexpected} (the official NIJ file has these 54: "
            f"{', '.join(OFFICIAL_COLUMNS)})"
        )
    return raw


def _first_bad(raw: pd.DataFrame, col: str, bad: np.ndarray, *, where: str, expected: str) -> ValueError:
    i = int(np.flatnonzero(bad)[0])
    return ValueError(
        f"{where} data row {i}: column {col!r} has value {raw[col].iloc[i]!r}, expected {expected} "
        f"({int(bad.sum())} such value(s))"
    )


def _official_integer(raw: pd.DataFrame, col: str, *, where: str, allow_missing: bool) -> np.ndarray:
    values = pd.to_numeric(raw[col].str.strip(), errors="coerce")
    present = raw[col].notna().to_numpy()
    bad = (present & values.isna().to_numpy()) | (~allow_missing & ~present)
    finite = values.to_numpy(dtype=float)
    bad |= present & np.isfinite(finite) & (finite != np.round(finite))
    if bad.any():
        raise _first_bad(raw, col, bad, where=where, expected="an integer")
    return finite.astype(np.int64)


def _official_float(raw: pd.DataFrame, col: str, *, where: str) -> np.ndarray:
    values = pd.to_numeric(raw[col].str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = raw[col].notna().to_numpy() & np.isnan(values)
    if bad.any():
        raise _first_bad(raw, col, bad, where=where, expected="a number")
    return values


def _official_boolean(raw: pd.DataFrame, col: str, *, where: str, allow_missing: bool = False) -> np.ndarray:
    text = raw[col].str.strip().str.lower()
    is_true = text.isin(_TRUE).to_numpy()
    is_false = text.isin(_FALSE).to_numpy()
    missing = text.isna().to_numpy()
    bad = ~(is_true | is_false) & (~missing | (not allow_missing))
    if bad.any():
        raise _first_bad(raw, col, bad, where=where, expected="true or false (or 1/0)")
    return is_true.astype(np.int64)


def _official_categorical(raw: pd.DataFrame, col: str, *, where: str) -> pd.Categorical:
    levels = CATEGORIES[col]
    text = raw[col].str.strip()
    if col == "Gang_Affiliated":
        mapping = {"true": "True", "false": "False", "1": "True", "0": "False"}
        text = text.map(lambda v: mapping.get(v.lower(), v) if isinstance(v, str) else v)
    bad = (text.notna() & ~text.isin(levels)).to_numpy()
    if bad.any():
        raise _first_bad(raw, col, bad, where=where, expected=f"one of {list(levels)} or empty")
    return pd.Categorical(text, categories=list(levels))


# ----------------------------------------------------------------------------------------------------------
# Design matrices
# ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DesignMatrix:
    """Model inputs built from the tidy table (see :func:`design_matrix`).

    Attributes
    ----------
    X : pandas.DataFrame
        One row per person (the table's index), one column per feature.
    y_true : pandas.Series
        The target (``int64`` 0/1), named ``Recidivism_Within_3years``.
    group : pandas.Series
        The sensitive attribute (``Race``, categorical BLACK/WHITE).
    fold : pandas.Series
        The authors' fold (``Int64``; missing for the official file).
    ID : pandas.Series
        The NIJ person identifier.
    features : str
        ``"paper"`` or ``"clean"``.
    race_columns : tuple of str
        The columns of ``X`` that encode race (swapped by :func:`flip_race`).
    """

    X: pd.DataFrame
    y_true: pd.Series
    group: pd.Series
    fold: pd.Series
    ID: pd.Series
    features: str
    race_columns: tuple[str, ...]

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Column names of ``X``, in order."""
        return tuple(self.X.columns)

    def to_frame(self) -> pd.DataFrame:
        """``fold, ID, group, y_true`` followed by the columns of ``X``."""
        head = pd.DataFrame(
            {"fold": self.fold, "ID": self.ID, "group": self.group, "y_true": self.y_true}, index=self.X.index
        )
        return pd.concat([head, self.X], axis=1)


def validate_table(table: pd.DataFrame, *, name: str = "table") -> pd.DataFrame:
    """Check that ``table`` has the tidy NIJ schema (:data:`TABLE_COLUMNS`, categorical levels, 0/1 target).

    Returns the table unchanged; raises ``TypeError``/``ValueError`` naming the column and value otherwise.
    """
    require_table(table, TABLE_COLUMNS, where=f"`{name}`", nonempty=True)
    for col, levels in CATEGORIES.items():
        s = table[col]
        if not isinstance(s.dtype, pd.CategoricalDtype):
            raise TypeError(f"`{name}`: column {col!r} must be categorical, got dtype {s.dtype}")
        if tuple(str(c) for c in s.cat.categories) != levels:
            raise ValueError(
                f"`{name}`: column {col!r} has categories {list(s.cat.categories)}, expected {list(levels)}"
            )
    for col in (*NUMERIC_COLUMNS, "ID", "row_position", "original_position", TARGET):
        if not pd.api.types.is_numeric_dtype(table[col]):
            raise TypeError(f"`{name}`: column {col!r} must be numeric, got dtype {table[col].dtype}")
    y = table[TARGET]
    bad = ~y.isin([0, 1])
    if bad.any():
        raise ValueError(f"`{name}`: column {TARGET!r} has value {y[bad].iloc[0]!r}, expected 0 or 1")
    return table


def _design_matrix_iv(table: pd.DataFrame, features: str) -> None:
    if features not in FEATURE_SETS:
        raise ValueError(f"`features` must be one of {list(FEATURE_SETS)}, got {features!r}")
    validate_table(table)


def design_matrix(table: pd.DataFrame, *, features: Literal["paper", "clean"] = "paper") -> DesignMatrix:
    """Build the models' design matrix from the tidy NIJ table.

    Parameters
    ----------
    table : pandas.DataFrame
        The tidy table of :func:`read_paper_folds` or :func:`read_official` (or a subset of its rows).
    features : {"paper", "clean"}
        ``"paper"``: exactly the NIJ paper's matrix, i.e. every fold-file column except ``Unnamed: 0`` and
        the target, in file order (:data:`PAPER_FILE_COLUMNS`), with the files' names and dtypes:
        ``Unnamed: 0.1`` (the original row position) and ``ID`` included, numeric columns with missing values
        filled with 0 (as the authors did), categorical columns one-hot as 0/1 ``int64`` (missing = all
        dummies 0).
        ``"clean"``: no ID or row positions; all ``float64``; each categorical column one-hot over its
        levels plus a ``<column>_missing`` level when the column has missing values in ``table``; each
        numeric column with missing values in ``table`` filled with 0 and followed by a ``<column>_missing``
        0/1 flag. Columns in the official order.
        Both keep the race dummies ``Race_BLACK``, ``Race_WHITE`` (the models see race, so that
        :func:`flip_race` can ask what they predict for the other race).

    Returns
    -------
    DesignMatrix
        ``X`` (same index as ``table``), ``y_true``, ``group`` (race), ``fold``, ``ID``, ``features``,
        ``race_columns``.

    Raises
    ------
    ValueError, TypeError
        If ``features`` is unknown or ``table`` lacks a column of the schema / has a wrong dtype or level.

    Notes
    -----
    For ``"clean"``, whether a ``_missing`` column exists depends on ``table``: build the matrix once on the
    whole table, then split it into folds, so that every fold has the same columns. Filling with 0 plus a flag
    loses nothing: a linear model's flag coefficient absorbs the fill value.

    References
    ----------
    The NIJ paper's script ``Get Big Metric CSV.py`` (training frame = fold files without ``Unnamed: 0`` and
    the target).

    Examples
    --------
    >>> dm = design_matrix(table, features="paper")  # doctest: +SKIP
    >>> dm.X.shape
    (25750, 139)
    """
    _design_matrix_iv(table, features)
    if features == "paper":
        X = _paper_matrix(table)
    else:
        X = _clean_matrix(table)
    return DesignMatrix(
        X=X,
        y_true=table[TARGET].astype(np.int64),
        group=table[SENSITIVE],
        fold=table["fold"],
        ID=table["ID"],
        features=features,
        race_columns=RACE_COLUMNS,
    )


def _one_hot(s: pd.Series, levels: tuple[str, ...], *, dtype: type) -> np.ndarray:
    codes = s.cat.codes.to_numpy()
    return (codes[:, None] == np.arange(len(levels))[None, :]).astype(dtype)


def _paper_matrix(table: pd.DataFrame) -> pd.DataFrame:
    cols: dict[str, object] = {
        ORIGINAL_POSITION_FILE: table["original_position"].to_numpy(dtype=np.int64),
        "ID": table["ID"].to_numpy(dtype=np.int64),
    }
    for col in NUMERIC_COLUMNS:
        values = table[col]
        cols[col] = values.fillna(0).to_numpy() if values.isna().any() else values.to_numpy()
    for col, levels in CATEGORIES.items():
        block = _one_hot(table[col], levels, dtype=np.int64)
        for j, lvl in enumerate(levels):
            cols[dummy_name(col, lvl)] = block[:, j]
    X = pd.DataFrame(cols, index=table.index)
    expected = [c for c in PAPER_FILE_COLUMNS if c not in (ROW_POSITION_FILE, TARGET)]
    return X[expected]


def _clean_matrix(table: pd.DataFrame) -> pd.DataFrame:
    cols: dict[str, np.ndarray] = {}
    for col in FEATURE_COLUMNS:
        s = table[col]
        missing = s.isna().to_numpy()
        if col in CATEGORIES:
            levels = CATEGORIES[col]
            block = _one_hot(s, levels, dtype=np.float64)
            for j, lvl in enumerate(levels):
                cols[dummy_name(col, lvl)] = block[:, j]
        else:
            cols[col] = s.to_numpy(dtype=np.float64, na_value=0.0)
        if missing.any():
            cols[dummy_name(col, "missing")] = missing.astype(np.float64)
    return pd.DataFrame(cols, index=table.index)


def _flip_race_iv(X: pd.DataFrame, features: str) -> None:
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"`X` must be a pandas DataFrame, got {type(X).__name__}")
    if features not in FEATURE_SETS:
        raise ValueError(f"`features` must be one of {list(FEATURE_SETS)}, got {features!r}")
    require_table(X, RACE_COLUMNS, where="`X`")
    race = X[list(RACE_COLUMNS)].to_numpy()
    ok = np.isin(race, [0, 1]).all(axis=1) & (race.sum(axis=1) == 1)
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        dummies = dict(zip(RACE_COLUMNS, race[k].tolist(), strict=True))
        raise ValueError(
            f"`X`: row {X.index[k]!r} has race dummies {dummies}, expected exactly one of them 1"
        )


def flip_race(X: pd.DataFrame, *, features: Literal["paper", "clean"] = "paper") -> pd.DataFrame:
    """Return a copy of ``X`` in which every person's race is the other one (BLACK <-> WHITE).

    Parameters
    ----------
    X : pandas.DataFrame
        A design matrix from :func:`design_matrix` (``DesignMatrix.X``), or rows of one.
    features : {"paper", "clean"}
        Which builder made ``X``. Both encode race as the dummies ``Race_BLACK``, ``Race_WHITE``; the flip
        swaps their values and changes nothing else (same columns, order, dtypes, index).

    Returns
    -------
    pandas.DataFrame
        The counterfactual design matrix.

    Raises
    ------
    ValueError
        If a race dummy column is missing, or a row does not have exactly one race dummy set.

    Examples
    --------
    >>> X_flipped = flip_race(dm.X, features="paper")  # doctest: +SKIP
    """
    _flip_race_iv(X, features)
    black, white = RACE_COLUMNS
    out = X.copy()
    out[black] = X[white].to_numpy()
    out[white] = X[black].to_numpy()
    return out
