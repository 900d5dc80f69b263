"""ProPublica COMPAS files: reading them, and the ProPublica filter as configurable presets.

The two files (``compas-scores-two-years.csv`` and ``compas-scores-two-years-violent.csv``, vendored
in ``data/raw/``) have CRLF line endings and repeat some header names (``decile_score``, ``priors_count``
and, in the violent file, ``two_year_recid``). :func:`read_compas` reads either, checks that every
repeated column is an exact copy of its first occurrence, and keeps the copies under pandas' names
(``decile_score.1``, ...).

:func:`filter_compas` applies the ProPublica filter (Larson et al. 2016) with its knobs as keyword options and
adds the tidy columns the fairness tests use (``y_true``, ``y_pred``, ``y_score``); :func:`load_preset` does
both for one preset of ``config/config.yaml`` (``compas.presets``).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from compendium._checks import require_table, require_values

__all__ = [
    "COMPAS_FILES",
    "FilterResult",
    "filter_compas",
    "load_preset",
    "read_compas",
]

#: Outcome -> (file name in data/raw, score text column, decile score column).
COMPAS_FILES: dict[str, tuple[str, str, str]] = {
    "violent": ("compas-scores-two-years-violent.csv", "v_score_text", "v_decile_score"),
    "general": ("compas-scores-two-years.csv", "score_text", "decile_score"),
}

#: Values the filter and the tidy columns rely on (anything else is an error naming file and column).
_SEX_VALUES = ("Female", "Male")
_RACE_VALUES = ("African-American", "Asian", "Caucasian", "Hispanic", "Native American", "Other")
_AGE_CAT_VALUES = ("25 - 45", "Greater than 45", "Less than 25")
_SCORE_LEVELS = ("High", "Low", "Medium")
_CHARGE_DEGREES = ("F", "M", "O")
_PRESET_KEYS = ("day_window", "exclude_charge_degrees", "outcome", "positive_scores")

#: The tidy columns added by :func:`filter_compas`, first in the filtered frame.
TIDY_COLUMNS = ["id", "sex", "race", "age_cat", "y_true", "y_pred", "y_score", "score_level"]


@dataclass(frozen=True)
class FilterResult:
    """The filtered COMPAS frame and what each filter condition removed.

    Attributes
    ----------
    frame : pandas.DataFrame
        Rows that pass every condition, in file order with a fresh 0..n-1 index. Tidy columns first
        (``id, sex, race, age_cat, y_true, y_pred, y_score, score_level``), then every original column.
        ``y_true`` = ``two_year_recid`` (0/1), ``y_pred`` = 1 when the score level is one of
        ``positive_scores`` else 0, ``y_score`` = the decile score (1-10) behind the score level,
        ``score_level`` = the score text (Low/Medium/High).
    report : pandas.DataFrame
        One row per condition, applied in order: ``condition``, ``rows_removed``, ``rows_left``; the first row
        (``rows read``) gives the file's row count.
    source : str
        Path of the file the rows came from (``""`` when unknown).
    outcome : str
        ``"violent"`` or ``"general"``.
    score_column : str
        The score text column that defines ``y_pred`` (``v_score_text`` or ``score_text``).
    positive_scores : tuple of str
        Score levels counted as a positive (risky) prediction.
    """

    frame: pd.DataFrame
    report: pd.DataFrame
    source: str
    outcome: str
    score_column: str
    positive_scores: tuple[str, ...]

    def to_frame(self) -> pd.DataFrame:
        """Return the removal report (``condition, rows_removed, rows_left``) as a new DataFrame."""
        return self.report.copy()


def _header_names(path: Path) -> list[str]:
    with path.open("r", encoding="utf-8", newline="") as fh:
        try:
            return next(csv.reader(fh))
        except StopIteration:
            raise ValueError(f"{path}: the file is empty (no header line)") from None


def _check_last_line(path: Path, n_fields: int) -> None:
    """Refuse a file cut off mid-row: its last line has fewer fields than the header (pandas pads NaN)."""
    with path.open("rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - 65536))
        tail = fh.read()
    last = tail.rstrip(b"\r\n").rsplit(b"\n", 1)[-1].decode("utf-8", errors="replace")
    fields = next(csv.reader([last]), [])
    if len(fields) != n_fields:
        raise ValueError(
            f"{path}: the last line has {len(fields)} field(s) but the header has {n_fields}; "
            "the file looks truncated (compare its sha256 with data/raw/SHA256SUMS)"
        )


def read_compas(path: str | os.PathLike) -> pd.DataFrame:
    """Read one ProPublica COMPAS file (either outcome) as it is.

    Parameters
    ----------
    path : str or path-like
        ``compas-scores-two-years.csv`` or ``compas-scores-two-years-violent.csv`` (CRLF line endings).

    Returns
    -------
    pandas.DataFrame
        Every row and column of the file. A header name that occurs more than once keeps its first occurrence
        under the plain name and the copies as ``<name>.1``, ``<name>.2`` (pandas' convention).
        ``frame.attrs["source"]`` holds the path and ``frame.attrs["duplicated_columns"]`` the repeated names.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        When the file is empty, or a repeated column differs from its first occurrence in some row (naming
        the file, the column and the first differing ``id``).

    Notes
    -----
    The files' ``N/A`` strings are read as missing values (pandas' default); neither file has any in the
    score columns (see ``data/raw/PROVENANCE.md``).

    References
    ----------
    J. Larson, S. Mattu, L. Kirchner, J. Angwin, "How We Analyzed the COMPAS Recidivism Algorithm",
    ProPublica, 2016; data: github.com/propublica/compas-analysis (commit bafff5d).

    Examples
    --------
    >>> frame = read_compas("data/raw/compas-scores-two-years-violent.csv")  # doctest: +SKIP
    >>> frame.shape  # doctest: +SKIP
    (4743, 54)
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"COMPAS file not found: {path}")
    names = _header_names(path)
    _check_last_line(path, len(names))
    duplicated = sorted({n for n in names if names.count(n) > 1})
    # The C parser reads CRLF as a line break; duplicated names become <name>.1, <name>.2, ...
    frame = pd.read_csv(path, low_memory=False)
    for name in duplicated:
        copies = [c for c in frame.columns if c != name and str(c).startswith(f"{name}.")]
        for copy in copies:
            same = (frame[name] == frame[copy]) | (frame[name].isna() & frame[copy].isna())
            if not same.all():
                first = frame.loc[~same, "id"].iloc[0] if "id" in frame.columns else frame.index[~same][0]
                raise ValueError(
                    f"{path}: repeated column {name!r} differs from its copy {copy!r} "
                    f"(first at id {first!r}); cannot tell which one to use"
                )
    frame.attrs["source"] = str(path)
    frame.attrs["duplicated_columns"] = duplicated
    return frame


def _filter_compas_iv(
    frame: object,
    outcome: object,
    day_window: object,
    exclude_charge_degrees: object,
    positive_scores: object,
) -> tuple[pd.DataFrame, str, str, str, int, tuple[str, ...], tuple[str, ...]]:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"`frame` must be a pandas DataFrame, got {type(frame).__name__}")
    where = str(frame.attrs.get("source", "")) or "COMPAS frame"
    if len(frame) == 0:
        raise ValueError(f"`frame` ({where}) is empty (0 rows)")
    if outcome not in COMPAS_FILES:
        raise ValueError(f"`outcome` must be one of {sorted(COMPAS_FILES)}, got {outcome!r}")
    _, score_column, decile_column = COMPAS_FILES[outcome]
    if isinstance(day_window, bool) or not isinstance(day_window, int | np.integer) or day_window < 0:
        raise ValueError(f"`day_window` must be a non-negative integer, got {day_window!r}")
    if isinstance(exclude_charge_degrees, str) or not isinstance(exclude_charge_degrees, Sequence):
        raise TypeError(f"`exclude_charge_degrees` must be a list of strings, got {exclude_charge_degrees!r}")
    for value in exclude_charge_degrees:
        if value not in _CHARGE_DEGREES:
            raise ValueError(f"`exclude_charge_degrees` has value {value!r} outside {list(_CHARGE_DEGREES)}")
    if isinstance(positive_scores, str) or not isinstance(positive_scores, Sequence) or not positive_scores:
        raise TypeError(
            f"`positive_scores` must be a non-empty list of score levels, got {positive_scores!r}"
        )
    for value in positive_scores:
        if value not in _SCORE_LEVELS:
            raise ValueError(f"`positive_scores` has value {value!r} outside {sorted(_SCORE_LEVELS)}")
    needed = [
        "id", "sex", "race", "age_cat", "days_b_screening_arrest", "is_recid", "c_charge_degree",
        "two_year_recid", score_column, decile_column,
    ]  # fmt: skip
    require_table(frame, needed, where=f"{where} (outcome {outcome!r})")
    return (
        frame,
        where,
        score_column,
        decile_column,
        int(day_window),
        tuple(exclude_charge_degrees),
        tuple(positive_scores),
    )


def _check_values(frame: pd.DataFrame, where: str, score_column: str, decile_column: str) -> None:
    """Refuse values the filter does not know how to treat (checked on the rows that survive the filter)."""
    require_values(frame, "sex", _SEX_VALUES, where=where)
    require_values(frame, "race", _RACE_VALUES, where=where)
    require_values(frame, "age_cat", _AGE_CAT_VALUES, where=where)
    require_values(frame, "two_year_recid", (0, 1), where=where)
    require_values(frame, score_column, _SCORE_LEVELS, where=where)
    require_values(frame, decile_column, range(1, 11), where=where)
    if frame["id"].duplicated().any():
        dup = frame.loc[frame["id"].duplicated(), "id"].iloc[0]
        raise ValueError(f"{where}: column 'id' is not unique (value {dup!r} repeats)")


def filter_compas(
    frame: pd.DataFrame,
    *,
    outcome: str,
    day_window: int,
    exclude_charge_degrees: Sequence[str],
    positive_scores: Sequence[str],
) -> FilterResult:
    """Apply the ProPublica filter to a COMPAS frame and add the tidy label columns.

    Conditions, applied in this order (each row of ``report`` says how many rows it removed):

    1. ``days_b_screening_arrest`` is missing (the screening cannot be matched to an arrest);
    2. ``|days_b_screening_arrest| > day_window``;
    3. ``is_recid == -1`` (no COMPAS case found);
    4. ``c_charge_degree`` in ``exclude_charge_degrees`` (``"O"``: ordinary traffic offences);
    5. the score text (``v_score_text`` or ``score_text``) is missing / ``"N/A"``.

    Parameters
    ----------
    frame : pandas.DataFrame
        As returned by :func:`read_compas` (its ``attrs["source"]`` names the file in error messages).
    outcome : {"violent", "general"}
        Which score defines the prediction: ``v_score_text`` (violent) or ``score_text`` (general).
    day_window : int
        Keep rows with ``-day_window <= days_b_screening_arrest <= day_window`` (ProPublica: 30).
    exclude_charge_degrees : list of str
        ``c_charge_degree`` values to remove (ProPublica: ``["O"]``).
    positive_scores : list of str
        Score levels counted as a positive (risky) prediction (ProPublica: ``["Medium", "High"]``).

    Returns
    -------
    FilterResult
        ``frame`` (tidy columns ``id, sex, race, age_cat, y_true, y_pred, y_score, score_level`` first,
        then the originals), ``report`` (``condition, rows_removed, rows_left``), ``source``, ``outcome``,
        ``score_column``, ``positive_scores``.

    Raises
    ------
    ValueError
        Unknown ``outcome``, bad ``day_window``, a charge degree or score level outside the known ones, a
        missing column, or an unexpected value in ``sex``, ``race``, ``age_cat``, ``two_year_recid`` or the
        score columns among the kept rows (naming file, column and value).
    TypeError
        ``frame`` not a DataFrame, or a list option given as a string.

    Notes
    -----
    With the defaults this is ProPublica's R filter (``days_b_screening_arrest <= 30 & >= -30``,
    ``is_recid != -1``, ``c_charge_degree != "O"``, ``score_text != "N/A"``); in R a missing
    ``days_b_screening_arrest`` fails the comparison and is dropped, here that is condition 1.
    Violent file: 4,743 rows read, 4,020 kept; general file: 7,214 read, 6,172 kept.

    References
    ----------
    J. Larson et al., "How We Analyzed the COMPAS Recidivism Algorithm", ProPublica, 2016
    (Compas Analysis.ipynb). F. Gursoy, I. A. Kakadiaris, "Equal Confusion Fairness", ICDMW 2022, Sec. IV.

    Examples
    --------
    >>> raw = read_compas("data/raw/compas-scores-two-years-violent.csv")  # doctest: +SKIP
    >>> res = filter_compas(raw, outcome="violent", day_window=30, exclude_charge_degrees=["O"],
    ...                     positive_scores=["Medium", "High"])  # doctest: +SKIP
    >>> len(res.frame), int(res.frame["y_pred"].sum())  # doctest: +SKIP
    (4020, 1107)
    """
    frame, where, score_column, decile_column, day_window, excluded, positive = _filter_compas_iv(
        frame, outcome, day_window, exclude_charge_degrees, positive_scores
    )
    days = pd.to_numeric(frame["days_b_screening_arrest"], errors="raise")
    score = frame[score_column].where(frame[score_column] != "N/A")
    conditions = [
        ("days_b_screening_arrest is missing", days.isna()),
        (f"|days_b_screening_arrest| > {day_window}", days.abs() > day_window),
        ("is_recid == -1", frame["is_recid"] == -1),
        (
            f"c_charge_degree in {list(excluded)}" if excluded else "c_charge_degree excluded (none)",
            frame["c_charge_degree"].isin(list(excluded)),
        ),
        (f"{score_column} is missing or 'N/A'", score.isna()),
    ]
    keep = np.ones(len(frame), dtype=bool)
    rows = [{"condition": "rows read", "rows_removed": 0, "rows_left": len(frame)}]
    for label, drop in conditions:
        drop = drop.fillna(False).to_numpy(dtype=bool)
        removed = int((keep & drop).sum())
        keep &= ~drop
        rows.append({"condition": label, "rows_removed": removed, "rows_left": int(keep.sum())})
    report = pd.DataFrame(rows, columns=["condition", "rows_removed", "rows_left"])

    kept = frame.loc[keep].reset_index(drop=True)
    _check_values(kept, where, score_column, decile_column)
    tidy = kept[["id", "sex", "race", "age_cat"]].copy()
    tidy["y_true"] = kept["two_year_recid"].astype("int64")
    tidy["y_pred"] = kept[score_column].isin(list(positive)).astype("int64")
    tidy["y_score"] = kept[decile_column].astype("int64")
    tidy["score_level"] = kept[score_column]
    originals = kept.drop(columns=[c for c in ("id", "sex", "race", "age_cat") if c in kept.columns])
    out = pd.concat([tidy, originals], axis=1)
    out.attrs = {}
    return FilterResult(
        frame=out,
        report=report,
        source=where if where != "COMPAS frame" else "",
        outcome=outcome,
        score_column=score_column,
        positive_scores=positive,
    )


def load_preset(raw_dir: str | os.PathLike, preset: Mapping[str, object]) -> FilterResult:
    """Read the file a filter preset needs from ``raw_dir`` and apply the preset.

    Parameters
    ----------
    raw_dir : str or path-like
        Folder holding the ProPublica files (``data/raw``).
    preset : mapping
        One entry of ``config["compas"]["presets"]``: keys ``outcome``, ``day_window``,
        ``exclude_charge_degrees``, ``positive_scores`` (exactly these).

    Returns
    -------
    FilterResult
        As :func:`filter_compas`; ``outcome="violent"`` reads ``compas-scores-two-years-violent.csv``
        (``v_score_text``), ``"general"`` reads ``compas-scores-two-years.csv`` (``score_text``).

    Raises
    ------
    ValueError
        A key missing from or unknown to ``preset``, or anything :func:`filter_compas` refuses.
    FileNotFoundError
        The file is not in ``raw_dir``.

    Examples
    --------
    >>> import yaml  # doctest: +SKIP
    >>> config = yaml.safe_load(open("config/config.yaml"))  # doctest: +SKIP
    >>> preset = config["compas"]["presets"]["propublica_general"]  # doctest: +SKIP
    >>> load_preset("data/raw", preset).frame.shape[0]  # doctest: +SKIP
    6172
    """
    if not isinstance(preset, Mapping):
        raise TypeError(
            f"`preset` must be a mapping (one entry of compas.presets), got {type(preset).__name__}"
        )
    missing = [k for k in _PRESET_KEYS if k not in preset]
    unknown = sorted(str(k) for k in preset if k not in _PRESET_KEYS)
    if missing or unknown:
        raise ValueError(
            f"`preset`: missing key(s) {missing}, unknown key(s) {unknown}; "
            f"expected exactly {list(_PRESET_KEYS)}"
        )
    outcome = preset["outcome"]
    if outcome not in COMPAS_FILES:
        raise ValueError(f"`preset['outcome']` must be one of {sorted(COMPAS_FILES)}, got {outcome!r}")
    raw = read_compas(Path(raw_dir) / COMPAS_FILES[outcome][0])
    return filter_compas(
        raw,
        outcome=outcome,
        day_window=preset["day_window"],
        exclude_charge_degrees=list(preset["exclude_charge_degrees"]),
        positive_scores=list(preset["positive_scores"]),
    )
