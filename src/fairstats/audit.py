"""The audit run of ``fairstats audit``: read the predictions, run the tests, write the tables.

:func:`run_audit` reads one row per person (:func:`read_predictions_file`), checks the columns, runs
paper A's equal confusion test and residuals for each grouping and paper B's outcome-based tests between each
group and the largest group (bootstrap intervals, or the corrected t over folds), adjusts for multiple
testing, and writes the tables and the report (:mod:`fairstats.audit_report`) into a work folder that
replaces ``--out`` only when everything succeeded (:mod:`fairstats.audit_folder`: only files an audit wrote
are ever replaced).

Group columns are read as text, as written in the file (``01`` and ``1``, ``NA`` and ``None`` are groups of
their own); the audit's internal columns never share a name with the user's.
"""

from __future__ import annotations

import difflib
import re
import sys
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from fairstats._validation import CheckedFrame, checked_frame
from fairstats.audit_folder import OutFolderError, check_out_folder, discard, new_work_folder, swap_into_place
from fairstats.audit_report import _SMALL, _figures, _summary, markdown_table, write_report
from fairstats.calibration import calibration_independence_test
from fairstats.confusion import equal_confusion_test
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.cramers_v import cramers_v_interval
from fairstats.equivalence import DEFAULT_MARGIN, DEFAULT_MARGIN_V, cramers_v_equivalence
from fairstats.folds import fold_disparity
from fairstats.groups import _prepare_iv, group_labels
from fairstats.groups import _Prepared as _TwoGroupRows
from fairstats.multiplicity import adjust_pvalues, three_way_verdicts
from fairstats.outcomes import OUTCOME_TESTS, _outcome_rows
from fairstats.power import DEFAULT_POWER
from fairstats.reporting import atomic_write_text, one_line

__all__ = [
    "AuditError",
    "AuditOptions",
    "AuditResult",
    "GroupWhitespaceWarning",
    "read_counts_file",
    "read_predictions_file",
    "run_audit",
]

#: Bounds of ``--n-resamples``: fewer resamples give no usable 95% interval or permutation p-value; more
#: than the maximum take hours and gigabytes without changing the result.
MIN_RESAMPLES = 99
MAX_RESAMPLES = 1_000_000

#: Columns of ``equal_confusion.csv`` (first, in this order) and of ``residuals.csv``.
EQUAL_CONFUSION_COLUMNS = [
    "grouping",
    "statistic",
    "df",
    "pvalue",
    "cramers_v",
    "n",
    "min_expected",
    "cochran_ok",
]
RESIDUAL_COLUMNS = [
    "grouping",
    "group",
    "cell",
    "observed",
    "expected",
    "adjusted_residual",
    "flag_3_29",
    "flag_bonferroni",
]
#: Columns of ``tests.csv``.
TEST_COLUMNS = [
    "grouping",
    "group",
    "reference",
    "test",
    "metric",
    "estimate",
    "ci_low",
    "ci_high",
    "value_group",
    "value_reference",
    "n_group",
    "n_reference",
    "statistic",
    "df",
    "pvalue",
    "pvalue_adj",
    "pvalue_bh",
    "significant",
    "significant_adj",
    "significant_bh",
    "margin_low",
    "margin_high",
    "equivalence_ci_low",
    "equivalence_ci_high",
    "equivalence_pvalue",
    "equivalence_pvalue_adj",
    "mde",
    "verdict",
    "verdict_note",
    "method",
    "note",
]

# Paper B's definitions the audit runs (each metric once: equal opportunity's FNR is 1 - TPR).
_AUDIT_TESTS = (
    "group_fairness",
    "equalized_odds",
    "conditional_use_accuracy_equality",
    "overall_accuracy_equality",
    "treatment_equality",
)
_SCORE_TESTS = ("balance_positive_class", "balance_negative_class")


class AuditError(ValueError):
    """Bad input to ``fairstats audit``: the message is printed as one line and the exit status is 2."""


class GroupWhitespaceWarning(UserWarning):
    """Group values that differ only in surrounding white space (``" Male"``, ``"Male"``): separate groups."""


# --------------------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditOptions:
    """Checked command-line options."""

    predictions: Path
    groups: tuple[str, ...]
    y_true: str
    y_pred: str
    y_score: str | None
    fold: str | None
    favorable: str | None
    alpha: float
    n_resamples: int
    seed: int
    out: Path
    margin: float = DEFAULT_MARGIN
    margin_ratio: float | None = None
    margin_v: float = DEFAULT_MARGIN_V
    counts: bool = False  # ``predictions`` is a table of counts (``--counts``), not one row per person
    # multi-level decisions (issue 17 A): the decision's levels in order (None: a two-level decision, the
    # binary audit), the outcome's levels (None: its values, sorted), whether the decision levels are ordered
    decision_levels: tuple[str, ...] | None = None
    outcome_levels: tuple[str, ...] | None = None
    ordered: bool = True
    # subgroup search (``--search``; fairstats.audit_search): columns searched, depth, min size, metrics
    search: tuple[str, ...] = ()
    search_depth: int = 2
    min_size: int = 30
    search_metrics: tuple[str, ...] = ("fpr", "fnr", "ppr")


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() in (".parquet", ".pq") or path.is_dir()


#: An id-like grouping: at least this many groups ...
ID_LIKE_GROUPS = 1000
#: ... of which at least this share hold a single person is refused (each group would be one person).
ID_LIKE_SINGLETON_SHARE = 0.5


def read_counts_file(path: Path, options: AuditOptions) -> Counts:
    """Read a table of counts (``--counts``): the ``--group`` columns, ``--y-true``, ``--y-pred`` and ``n``,
    the number of people with that combination; CSV or parquet. Raises
    :class:`AuditError` naming the file, column and value for a missing column or a bad count."""
    if path.is_dir():
        raise AuditError(f"--counts {str(path)!r} is a folder, not a CSV or parquet file")
    table = read_predictions_file(path, text_columns=(*options.groups, *options.search))
    table.columns = [str(c) for c in table.columns]
    keys = list(dict.fromkeys([*options.groups, *options.search, options.y_true, options.y_pred]))
    try:
        return Counts.from_table(table, keys=keys, where=repr(path.name))
    except ValueError as err:
        raise AuditError(f"--counts: {one_line(err)}") from None


def _count_parquet(path: Path, options: AuditOptions) -> Counts:
    """A parquet file or folder counted by DuckDB over the audit's columns (bounded memory)."""
    keys = list(dict.fromkeys([*options.groups, *options.search, options.y_true, options.y_pred]))
    try:
        return Counts.from_parquet(path, columns=keys)
    except ValueError as err:
        raise AuditError(one_line(err)) from None


def _read(options: AuditOptions) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The input as rows with the number of people each stands for (None: one person per row).

    A table of counts, and parquet files or folders without ``--fold``/``--y-score``, are counted (their size
    does not matter); CSV, and parquet with ``--fold``/``--y-score`` (whose tests need each person), are
    read into memory."""
    path = options.predictions
    if options.counts:
        counts = read_counts_file(path, options)
    elif _is_parquet(path) and path.exists() and options.fold is None and options.y_score is None:
        counts = _count_parquet(path, options)
    else:
        return read_predictions_file(path, text_columns=(*options.groups, *options.search)), None
    return counts.table, counts.table[COUNT_COLUMN].to_numpy()


def _duplicated_iv(columns: Sequence[object], path: Path) -> None:
    names = [str(c) for c in columns]
    dup = next((c for i, c in enumerate(names) if c in names[:i]), None)
    if dup is not None:
        raise AuditError(f"{str(path)!r}: column name {dup!r} occurs more than once in the header")


def _read_csv(path: Path, text_columns: Sequence[str]) -> pd.DataFrame:
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
    _duplicated_iv(header.iloc[0].tolist() if len(header) else [], path)
    data = pd.read_csv(path)
    text = [c for c in text_columns if c in data.columns]
    if text:  # as written: no number or NA inference ("01" is not "1", "NA" is a group); empty is missing
        raw = pd.read_csv(path, usecols=text, dtype=str, keep_default_na=False, na_values=[""])
        for column in text:
            data[column] = raw[column].astype(object).where(raw[column].notna(), np.nan)
    return data


def read_predictions_file(path: Path, *, text_columns: Sequence[str] = ()) -> pd.DataFrame:
    """Read a CSV or parquet file of predictions; raise :class:`AuditError` naming the file on failure.

    ``text_columns`` of a CSV file are read as text, as written (no number or NA inference; an empty field
    is missing). A header naming a column twice is refused.
    """
    if not path.exists():
        raise AuditError(f"file {str(path)!r} not found")
    if path.is_dir() and not any(path.rglob("*.parquet")):
        raise AuditError(f"{str(path)!r} is a folder without .parquet files, not a CSV or parquet file")
    try:
        if _is_parquet(path):
            data = pd.read_parquet(path)
            _duplicated_iv(data.columns, path)
        else:
            data = _read_csv(path, text_columns)
    except pd.errors.EmptyDataError:
        raise AuditError(f"{str(path)!r} is empty") from None
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as err:
        kind = "parquet" if _is_parquet(path) else "CSV"
        raise AuditError(f"could not read {str(path)!r} as {kind}: {one_line(err)}") from None
    except Exception as err:  # pyarrow's own errors  # noqa: BLE001
        raise AuditError(f"could not read {str(path)!r}: {one_line(err)}") from None
    if len(data) == 0:
        raise AuditError(f"{str(path)!r} has no rows")
    return data


def _closest(name: str, columns: Sequence[str]) -> str | None:
    lower = {c.lower(): c for c in columns}
    if name.lower() in lower:
        return lower[name.lower()]
    close = difflib.get_close_matches(name, list(columns), n=1, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), list(lower), n=1, cutoff=0.6)
        close = [lower[c] for c in close]
    return close[0] if close else None


def _where(data: pd.DataFrame, position: int, options: AuditOptions) -> str:
    if data.attrs.get("fairstats_counted"):
        what = "the counts table" if options.counts else "the counted rows"
        return f"row {position + 1} of {what} of {options.predictions.name}"
    if _is_parquet(options.predictions):
        return f"row {position + 1} of {options.predictions.name}"
    return f"line {position + 2} of {options.predictions.name}"


def _label_text(values: pd.Series) -> np.ndarray:
    """Labels as text, with integer-valued numbers and booleans written as integers ("1", not "1.0")."""
    if pd.api.types.is_bool_dtype(values):
        return values.astype(np.int64).astype(str).to_numpy(dtype=object)
    if pd.api.types.is_numeric_dtype(values):
        numbers = values.to_numpy(dtype=float)
        if np.all(np.isfinite(numbers)) and np.all(numbers == np.round(numbers)):
            return numbers.astype(np.int64).astype(str).astype(object)
        return values.astype(str).to_numpy(dtype=object)
    return values.astype(str).to_numpy(dtype=object)


def _favorable_text(text: str, found: Sequence[str]) -> str:
    """The label of ``found`` that ``--favorable`` names: as written, else as a number ("1.0" -> "1") or a
    boolean ("True" -> "1", the text of a boolean column); ``text`` itself when none occurs."""
    candidates = [text]
    if text.strip().lower() in ("true", "false"):
        candidates.append("1" if text.strip().lower() == "true" else "0")
    try:
        number = float(text)
    except ValueError:
        pass
    else:
        if np.isfinite(number) and number == round(number):
            candidates.append(str(int(number)))
    return next((c for c in candidates if c in found), text)


@dataclass(frozen=True)
class _Prepared:
    # the audit frame: the group columns (text) and the internal columns of `cols`; for counted input
    # (--counts, parquet counted by DuckDB) its distinct rows with their number of people
    data: pd.DataFrame | Counts
    labels: tuple[str, str]  # (favourable, other) as text
    binary01: bool  # the labels are 0/1: the confusion cells are TP, FN, FP, TN with 1 = positive
    groupings: tuple[tuple[str, ...], ...]
    # the same frame checked once (every column present, no NaN): what the library functions get
    checked: CheckedFrame | Counts
    cols: dict[str, str]  # role (y_true, y_pred, y01, p01, score, fold) -> internal column, never a group's

    @property
    def n(self) -> int:
        """Number of people."""
        return self.data.n if isinstance(self.data, Counts) else len(self.data)


def _internal_names(groups: Sequence[str]) -> dict[str, str]:
    """Names of the internal columns that differ from every group column (``--group fold`` stays a group)."""
    taken = set(groups)
    names = {}
    for role in ("y_true", "y_pred", "y01", "p01", "score", "fold"):
        name = f"__fairstats_{role}"
        while name in taken:
            name = "_" + name
        taken.add(name)
        names[role] = name
    return names


def _whitespace_variants(data: pd.DataFrame, column: str) -> str | None:
    """The groups of ``column`` that differ only in surrounding white space, with their counts."""
    counts = data[column].astype(str).value_counts(sort=False)
    stripped = pd.Series(counts.index.str.strip(), index=counts.index)
    clashes = [
        sorted(names) for _, names in stripped.groupby(stripped, sort=True).groups.items() if len(names) > 1
    ]
    if not clashes:
        return None
    pieces = "; ".join(", ".join(f"{n!r} ({int(counts[n]):,})" for n in names) for names in clashes)
    return (
        f"--group {column!r}: values that differ only in surrounding white space are audited as separate "
        f"groups: {pieces}"
    )


def _folds_iv(folds: pd.Series, option_column: str) -> None:
    sizes = folds.astype(str).value_counts()
    if len(sizes) < 2:
        raise AuditError(f"--fold: column {option_column!r} has a single fold; the fold-based tests need two")
    if int(sizes.max()) == 1:
        raise AuditError(
            f"--fold: column {option_column!r} has one row per fold ({len(sizes):,} folds for {len(folds):,} "
            "rows): it looks like a row id, not a cross-validation fold; name the fold column or leave out "
            "--fold"
        )


def _id_like_iv(data: pd.DataFrame, weight: np.ndarray | None, column: str) -> None:
    """Refuse a group column whose groups are mostly single people (an identifier, not an attribute)."""
    sizes = (
        data[column].value_counts()
        if weight is None
        else pd.Series(weight).groupby(data[column].to_numpy()).sum()
    )
    singles = int((sizes == 1).sum())
    if len(sizes) >= ID_LIKE_GROUPS and singles >= ID_LIKE_SINGLETON_SHARE * len(sizes):
        raise AuditError(
            f"--group: column {column!r} looks like an identifier, not a group: {len(sizes):,} groups, "
            f"{singles:,} of them a single person; audit a coarser attribute (or bin this one)"
        )


def _columns_iv(data: pd.DataFrame, options: AuditOptions, weight: np.ndarray | None) -> pd.DataFrame:
    """A copy of ``data`` with text column names, every named column present without NaN and each group
    column holding at least two groups (white-space variants warned, identifier-like columns refused)."""
    columns = [str(c) for c in data.columns]
    data = data.copy()
    data.columns = columns
    if weight is not None:
        data.attrs["fairstats_counted"] = True  # rows are distinct combinations (messages say so)
    roles = [("--group", g) for g in options.groups] + [
        ("--y-true", options.y_true),
        ("--y-pred", options.y_pred),
    ]
    roles += [(o, c) for o, c in (("--y-score", options.y_score), ("--fold", options.fold)) if c is not None]
    for option, column in roles:
        if column not in columns:
            hint = _closest(column, columns)
            suggestion = f"; did you mean {hint!r}?" if hint else f"; columns are {columns[:12]!r}"
            raise AuditError(
                f"{option}: column {column!r} not found in {options.predictions.name}{suggestion}"
            )
    for option, column in roles:
        missing = data[column].isna().to_numpy()
        if missing.any():
            first = int(np.flatnonzero(missing)[0])
            raise AuditError(
                f"{option}: column {column!r} has {int(missing.sum())} missing value(s) (NaN), first on "
                f"{_where(data, first, options)}"
            )
    for column in options.groups:
        values = pd.unique(data[column])
        if len(values) < 2:
            raise AuditError(
                f"--group: column {column!r} has a single group {one_line(values[0])!r}; "
                "an audit compares at least two groups"
            )
        variants = _whitespace_variants(data, column)
        if variants:
            warnings.warn(variants, GroupWhitespaceWarning, stacklevel=2)
        _id_like_iv(data, weight, column)
    return data


def _prepare(data: pd.DataFrame, options: AuditOptions, weight: np.ndarray | None = None) -> _Prepared:
    cols = _internal_names(options.groups)
    data = _columns_iv(data, options, weight)

    # labels: two, the favourable one named (or 0/1 with 1 favourable by default)
    text_true, text_pred = _label_text(data[options.y_true]), _label_text(data[options.y_pred])
    found = sorted(set(text_true) | set(text_pred))
    if options.favorable is None:
        for option, column, text in (
            ("--y-true", options.y_true, text_true),
            ("--y-pred", options.y_pred, text_pred),
        ):
            bad = ~np.isin(text, ["0", "1"])
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                raise AuditError(
                    f"{option}: column {column!r} has label {text[first]!r} "
                    f"(on {_where(data, first, options)}) "
                    "outside the stated set {0, 1}; name the favourable label with --favorable"
                )
        favorable = "1"
        if "1" not in found:
            raise AuditError(
                f"the favourable label 1 (the default) never occurs in --y-true {options.y_true!r} or "
                f"--y-pred {options.y_pred!r}; name the favourable label with --favorable"
            )
    else:
        favorable = _favorable_text(options.favorable, found)
        if favorable not in found:
            raise AuditError(
                f"--favorable {options.favorable!r} never occurs in --y-true {options.y_true!r} or --y-pred "
                f"{options.y_pred!r} (labels found: {found[:6]!r})"
            )
        if len(found) > 2:
            for option, column, text in (
                ("--y-true", options.y_true, text_true),
                ("--y-pred", options.y_pred, text_pred),
            ):
                allowed = [favorable, next(v for v in found if v != favorable)]
                bad = ~np.isin(text, allowed)
                if bad.any():
                    first = int(np.flatnonzero(bad)[0])
                    raise AuditError(
                        f"{option}: column {column!r} has label {text[first]!r} (on "
                        f"{_where(data, first, options)}) outside the stated set {allowed!r}: "
                        "the audit needs "
                        f"two labels, the favourable {favorable!r} and one other; found {found[:6]!r}"
                    )
    others = [v for v in found if v != favorable]
    other = (
        others[0]
        if others
        else ("0" if favorable == "1" else "1" if favorable == "0" else f"not {favorable}")
    )
    binary01 = set(found) <= {"0", "1"}

    frame = pd.DataFrame(index=data.index)
    for column in options.groups:
        frame[column] = data[column].to_numpy()
    if binary01:
        frame[cols["y_true"]] = text_true.astype(np.int64)
        frame[cols["y_pred"]] = text_pred.astype(np.int64)
    else:
        frame[cols["y_true"]] = text_true
        frame[cols["y_pred"]] = text_pred
    frame[cols["y01"]] = (text_true == favorable).astype(np.int64)
    frame[cols["p01"]] = (text_pred == favorable).astype(np.int64)
    if options.y_score is not None:
        score = data[options.y_score]
        if not pd.api.types.is_numeric_dtype(score) or pd.api.types.is_bool_dtype(score):
            raise AuditError(f"--y-score: column {options.y_score!r} must be numeric, got {score.dtype}")
        values = score.to_numpy(dtype=float)
        bad = (values < 0) | (values > 1) | ~np.isfinite(values)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise AuditError(
                f"--y-score: column {options.y_score!r} must hold scores in [0, 1], "
                f"found {float(values[first]):g} on "
                f"{_where(data, first, options)}"
            )
        frame[cols["score"]] = values
    if options.fold is not None:
        folds = data[options.fold]
        _folds_iv(folds, options.fold)
        frame[cols["fold"]] = folds.to_numpy()
    groupings = [(g,) for g in options.groups]
    if len(options.groups) > 1:
        groupings.append(tuple(options.groups))
    if weight is None:
        return _Prepared(
            data=frame,
            labels=(favorable, other),
            binary01=binary01,
            groupings=tuple(groupings),
            checked=checked_frame(frame, list(frame.columns)),
            cols=cols,
        )
    # counted input: the audit frame's distinct rows, with their people (a Counts is checked by construction)
    counts = Counts._aggregate(
        frame.assign(**{COUNT_COLUMN: weight}), list(frame.columns), source=options.predictions.name
    )
    return _Prepared(
        data=counts, labels=(favorable, other), binary01=binary01, groupings=tuple(groupings), checked=counts,
        cols=cols,
    )


# --------------------------------------------------------------------------------------------------------
# the analysis
# --------------------------------------------------------------------------------------------------------


def _rng(seed: int, *parts: str) -> np.random.Generator:
    """Independent, reproducible stream per task: seed + CRC32 of the task's name (no PYTHONHASHSEED)."""
    return np.random.default_rng(np.random.SeedSequence([seed, *(zlib.crc32(p.encode()) for p in parts)]))


@dataclass
class _Collected:
    equal: list[dict] = field(default_factory=list)
    residuals: list[pd.DataFrame] = field(default_factory=list)
    tests: list[dict] = field(default_factory=list)
    results: dict = field(default_factory=dict)  # grouping -> EqualConfusionResult
    cramers: dict = field(default_factory=dict)
    references: dict = field(default_factory=dict)
    sizes: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class AuditResult:
    """What :func:`run_audit` wrote: the tables, the notes, and the terminal summary."""

    equal_confusion: pd.DataFrame
    residuals: pd.DataFrame
    tests: pd.DataFrame
    notes: tuple[str, ...]
    summary: str
    out: Path
    warnings: tuple[str, ...] = ()  # warnings about the input (GroupWhitespaceWarning), printed to stderr


def _equal_confusion(
    prep: _Prepared, grouping: tuple[str, ...], options: AuditOptions, acc: _Collected
) -> None:
    name = " x ".join(grouping)
    group = list(grouping) if len(grouping) > 1 else grouping[0]
    res = equal_confusion_test(
        prep.checked,
        group=group,
        y_true=prep.cols["y_true"],
        y_pred=prep.cols["y_pred"],
        alpha=options.alpha,
        posthoc_alpha=options.alpha,
        n_resamples=options.n_resamples,
        rng=_rng(options.seed, "permutation", name),
    )
    _record_equal_confusion(prep, grouping, res, options, acc)


def _record_equal_confusion(
    prep, grouping: tuple[str, ...], res, options: AuditOptions, acc: _Collected
) -> None:
    """The rows of ``equal_confusion.csv`` and ``residuals.csv`` of one grouping's test result ``res``."""
    name = " x ".join(grouping)
    group = list(grouping) if len(grouping) > 1 else grouping[0]
    v = cramers_v_interval(prep.checked, group=group, y_true=prep.cols["y_true"], y_pred=prep.cols["y_pred"])
    acc.results[name] = res
    acc.cramers[name] = v
    eq = cramers_v_equivalence(res.observed, margin=options.margin_v, alpha=options.alpha)
    acc.equal.append(
        {
            "grouping": name,
            "statistic": res.statistic,
            "df": res.df,
            "pvalue": res.pvalue,
            "cramers_v": res.cramers_v,
            "n": res.n,
            "min_expected": res.cochran_min_expected,
            "cochran_ok": res.cochran_ok,
            "cramers_v_margin": options.margin_v,
            "cramers_v_upper": eq.ci_high,
            "equivalence_pvalue": eq.pvalue,
            "mde": eq.mde,
            "pvalue_permutation": res.pvalue_permutation,
            "n_resamples_permutation": res.n_resamples,
            "cramers_v_estimate": v.estimate,
            "cramers_v_ci_low": v.ci_low,
            "cramers_v_ci_high": v.ci_high,
            "cramers_v_note": v.note,
            "effect_size": res.effect_size,
            "n_groups": int(res.observed.shape[0]),
            "n_cells": int(res.observed.shape[1]),
            "share_expected_ge5": res.cochran_share_ge5,
            "alpha": res.alpha,
            "reject": res.reject,
            "bonferroni_cutoff": res.bonferroni_cutoff,
            "notes": "; ".join(res.notes),
        }
    )
    tidy = res.to_frame()
    acc.residuals.append(
        pd.DataFrame(
            {
                "grouping": name,
                "group": tidy["group"].astype(str),
                "cell": tidy["cell"].astype(str),
                "observed": tidy["observed"],
                "expected": tidy["expected"],
                "adjusted_residual": tidy["residual"],
                "flag_3_29": tidy["flag_strict"],
                "flag_bonferroni": tidy["flag_bonferroni"],
                "y_pred": tidy["y_pred"].astype(str),
                "y_true": tidy["y_true"].astype(str),
            }
        )
    )
    acc.notes.extend(f"{name}: {note}" for note in res.notes)


def _reference(
    prep: _Prepared, grouping: tuple[str, ...], acc: _Collected
) -> tuple[str, list[str], pd.Series]:
    rows = prep.data.table if isinstance(prep.data, Counts) else prep.checked
    labels = group_labels(rows, list(grouping))
    observed = acc.results[" x ".join(grouping)].observed
    order = [str(g) for g in observed.index]
    sizes = pd.Series(observed.sum(axis=1).to_numpy(), index=order)
    biggest = max(order, key=lambda g: (int(sizes.get(g, 0)), -order.index(g)))
    acc.references[" x ".join(grouping)] = biggest
    acc.sizes[" x ".join(grouping)] = {g: int(sizes.get(g, 0)) for g in order}
    return biggest, [g for g in order if g != biggest], labels


@dataclass(frozen=True)
class _Pairs:
    """The rows of one grouping validated once (``_prepare_iv``); called with a group, the same rows with the
    masks of that group and the reference: the two-group input of each comparison at the cost of one
    integer comparison over the rows."""

    base: _TwoGroupRows
    codes: np.ndarray  # per row, the position of its group in ``index``
    index: dict[str, int]

    @property
    def metrics(self) -> tuple[str, ...]:
        return self.base.metrics

    def __call__(self, g: str) -> _TwoGroupRows:
        return replace(self.base, group_a=g, mask_a=self.codes == self.index[g])


def _pairs(prep: _Prepared, group, reference: str, others: list[str], y_score, tests) -> _Pairs:
    metrics = list(dict.fromkeys(m for t in tests for m in OUTCOME_TESTS[t]))
    rows = prep.data if isinstance(prep.data, Counts) else prep.checked
    y01, p01 = prep.cols["y01"], prep.cols["p01"]
    base = _prepare_iv(rows, group, y01, p01, y_score, (others[0], reference), metrics, 1)
    codes, uniques = pd.factorize(base.labels.to_numpy())
    return _Pairs(base=base, codes=codes, index={str(u): i for i, u in enumerate(uniques)})


def _pair(prep: _Prepared, labels: pd.Series, g: str, reference: str) -> pd.DataFrame | Counts:
    """The rows (or counts) of groups ``g`` and ``reference`` only (the fold-based tests): each comparison
    costs what its two groups hold, so the audit grows linearly with the number of groups."""
    keep = labels.isin([g, reference]).to_numpy()
    if isinstance(prep.data, Counts):
        return Counts(table=prep.data.table[keep], keys=prep.data.keys, source=prep.data.source)
    return CheckedFrame(prep.checked.frame[keep], prep.checked.complete)  # rows of a checked frame: checked


def _disparities(prep: _Prepared, grouping, options: AuditOptions, acc: _Collected, bar) -> None:
    name = " x ".join(grouping)
    group = list(grouping) if len(grouping) > 1 else grouping[0]
    reference, others, labels = _reference(prep, grouping, acc)
    y_score = prep.cols["score"] if options.y_score is not None else None
    tests = list(_AUDIT_TESTS) + (list(_SCORE_TESTS) if y_score else [])
    if options.fold is None:
        pair_of = _pairs(prep, group, reference, others, y_score, tests)
    for g in others:
        if options.fold is None:
            rows, boot = _outcome_rows(
                pair_of(g),
                tests,
                dict.fromkeys(pair_of.metrics, "two-sided"),
                favorable=1,
                alpha=options.alpha,
                n_resamples=options.n_resamples,
                confidence_level=0.95,
                method="BCa",
                rng=_rng(options.seed, "bootstrap", name, g),
                warn=False,
                margin=options.margin,
                margin_ratio=options.margin_ratio,
                power=DEFAULT_POWER,
            )
            undefined = boot.n_undefined
            for row in rows:
                notes = []
                if not np.isfinite(row["estimate"]):
                    notes.append("undefined in one group (no case in the denominator)")
                elif min(row["nobs_a"], row["nobs_b"]) < _SMALL:
                    notes.append(f"fewer than {_SMALL} cases in a denominator: the interval is unreliable")
                if int(undefined[row["metric"]]):
                    notes.append(
                        f"{int(undefined[row['metric']])} resamples undefined, left out of the interval"
                    )
                if boot.ci_method[row["metric"]] == "undefined" and np.isfinite(row["estimate"]):
                    notes.append("BCa interval undefined (BCaUndefinedWarning)")
                note = "; ".join(notes)
                acc.tests.append(
                    {
                        "grouping": name,
                        "group": g,
                        "reference": reference,
                        "test": row["test"],
                        "metric": row["metric"],
                        "estimate": row["estimate"],
                        "ci_low": row["ci_low"],
                        "ci_high": row["ci_high"],
                        "value_group": row["value_a"],
                        "value_reference": row["value_b"],
                        "n_group": row["nobs_a"],
                        "n_reference": row["nobs_b"],
                        "statistic": row["statistic"],
                        "df": np.nan,
                        "pvalue": row["pvalue"],
                        **_equivalence_columns(row),
                        "reason": row["reason"],
                        "method": row["method"]
                        + f"; {int(options.n_resamples)}-resample BCa bootstrap interval; "
                        + row["equivalence_method"],
                        "note": note,
                    }
                )
        else:
            metrics = list(dict.fromkeys(m for t in tests for m in OUTCOME_TESTS[t]))
            definition = {m: next(t for t in tests if m in OUTCOME_TESTS[t]) for m in metrics}
            res = fold_disparity(
                _pair(prep, labels, g, reference),
                group=group,
                y_true=prep.cols["y01"],
                y_pred=prep.cols["p01"],
                fold=prep.cols["fold"],
                groups=(g, reference),
                y_score=y_score,
                metrics=metrics,
                favorable=1,
                alpha=options.alpha,
                margin=options.margin,
            )
            n_group = int((labels == g).sum())
            n_ref = int((labels == reference).sum())
            for row in res.table.to_dict(orient="records"):
                acc.tests.append(
                    {
                        "grouping": name,
                        "group": g,
                        "reference": reference,
                        "test": definition[row["metric"]],
                        "metric": row["metric"],
                        "estimate": row["estimate"],
                        "ci_low": row["ci_low"],
                        "ci_high": row["ci_high"],
                        "value_group": row["mean_a"],
                        "value_reference": row["mean_b"],
                        "n_group": n_group,
                        "n_reference": n_ref,
                        "statistic": row["statistic_corrected"],
                        "df": row["df_corrected"],
                        "pvalue": row["pvalue_corrected"],
                        **_equivalence_columns(row),
                        "reason": "" if np.isfinite(row["pvalue_corrected"]) else row["note"],
                        "method": (
                            f"corrected resampled t over {row['n_pairs']} folds (Nadeau & Bengio 2003); "
                            f"paired t p = {row['pvalue_paired']:.3g}, "
                            f"pooled t p = {row['pvalue_pooled']:.3g}; TOST on the same corrected t"
                            if np.isfinite(row["pvalue_corrected"])
                            else "corrected resampled t (Nadeau & Bengio 2003): not tested"
                        ),
                        "note": row["note"],
                    }
                )
        if y_score is not None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    cal = calibration_independence_test(
                        prep.data[prep.cols["y01"]].to_numpy(),
                        prep.data[prep.cols["score"]].to_numpy(),
                        labels.to_numpy(),
                        protected=g,
                        unprotected=reference,
                        n_bins=10,
                        favorable=1,
                    )
                except ValueError as err:
                    cal = None
                    acc.notes.append(
                        f"{name}: {g} vs {reference}: calibration test not possible ({one_line(err)})"
                    )
            if cal is not None:
                used = cal.table[cal.table["used"]]
                rate_g = (used["k_protected"].sum() / used["n_protected"].sum()) if len(used) else np.nan
                rate_r = (used["k_unprotected"].sum() / used["n_unprotected"].sum()) if len(used) else np.nan
                acc.tests.append(
                    {
                        "grouping": name,
                        "group": g,
                        "reference": reference,
                        "test": "calibration",
                        "metric": "calibration",
                        "estimate": np.nan,
                        "ci_low": np.nan,
                        "ci_high": np.nan,
                        "value_group": rate_g,
                        "value_reference": rate_r,
                        "n_group": float(cal.table["n_protected"].sum()),
                        "n_reference": float(cal.table["n_unprotected"].sum()),
                        "statistic": cal.statistic,
                        "df": float(cal.df),
                        "pvalue": cal.pvalue,
                        "reason": ""
                        if np.isfinite(cal.pvalue)
                        else "no score bin with both groups and both outcomes",
                        "method": (
                            f"sum over {cal.n_bins_used} of 10 score bins of Pearson chi-squared "
                            "(group x outcome); "
                            f"CMH p = {cal.cmh_pvalue:.3g}"
                        ),
                        "note": "; ".join(one_line(w.message) for w in caught)[:300],
                    }
                )
        bar.update(1)


def _equivalence_columns(row: dict) -> dict:
    """The equivalence test's columns of a library result row (outcome_tests, fold_disparity)."""
    return {
        c: row.get(c, np.nan)
        for c in ("margin_low", "margin_high", "equivalence_ci_low", "equivalence_ci_high",
                  "equivalence_pvalue", "mde")
    }  # fmt: skip


def _finish_tests(acc: _Collected, alpha: float) -> pd.DataFrame:
    if not acc.tests:
        return pd.DataFrame(columns=TEST_COLUMNS)
    tests = pd.DataFrame(acc.tests)
    tests = adjust_pvalues(tests, method="holm", pvalue="pvalue", alpha=alpha, suffix="adj")
    tests = adjust_pvalues(tests, method="fdr_bh", pvalue="pvalue", alpha=alpha, suffix="bh")
    tests["significant"] = tests["pvalue"] < alpha
    verdicts = three_way_verdicts(tests, alpha=alpha, reason="reason")
    tests["equivalence_pvalue_adj"] = verdicts["pvalue_holm_equivalence"]
    tests["verdict"] = verdicts["verdict"]
    tests["verdict_note"] = verdicts["verdict_note"]
    return tests[TEST_COLUMNS]


def _write_tables(folder: Path, tables: list[tuple[pd.DataFrame, str]]) -> None:
    """Each ``(frame, name)`` as ``name.csv`` (cells that a spreadsheet would read as a formula quoted,
    :func:`spreadsheet_safe`) and ``name.md`` (data strings escaped) in ``folder``."""
    for frame, name in tables:
        atomic_write_text(
            folder / f"{name}.csv", spreadsheet_safe(frame).to_csv(index=False, lineterminator="\n")
        )
        atomic_write_text(folder / f"{name}.md", markdown_table(frame, digits=4))


def _finish_equal(acc: _Collected, alpha: float) -> pd.DataFrame:
    equal = pd.DataFrame(acc.equal)
    verdicts = three_way_verdicts(equal, alpha=alpha)
    equal["verdict"] = verdicts["verdict"]
    equal["verdict_note"] = verdicts["verdict_note"]
    return equal[EQUAL_CONFUSION_COLUMNS + [c for c in equal.columns if c not in EQUAL_CONFUSION_COLUMNS]]


# --------------------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------------------


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with text cells that a spreadsheet would run as a formula prefixed by ``'``.

    A text cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, and not a plain number
    (``-1``, ``+0.5``), gets a leading apostrophe (OWASP, "CSV Injection"): spreadsheets then show it as text.
    Numbers and other text are unchanged. The CSV files are the only outputs changed this way; the Markdown
    tables and the report show the value as written (as code).
    """
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue

        def safe(v: object) -> object:
            if isinstance(v, str) and v.startswith(_FORMULA_START) and not _NUMBER.match(v):
                return "'" + v
            return v

        out[column] = values.map(safe).astype(object)
    return out


class _Started(NamedTuple):
    target: Path
    data: pd.DataFrame
    weight: np.ndarray | None
    acc: _Collected
    prep: object
    warned: tuple[str, ...]


def _start(options: AuditOptions, prepare) -> _Started:
    """What every audit does before it writes: ``--out`` checked (nothing written yet), the input read and
    prepared by ``prepare(data, options, weight)``, its group-whitespace warnings kept as notes."""
    try:
        target = check_out_folder(options.out, inputs=(options.predictions,))
    except OutFolderError as err:
        raise AuditError(str(err)) from None
    data, weight = _read(options)
    acc = _Collected()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prep = prepare(data, options, weight)
    warned = tuple(one_line(w.message) for w in caught if issubclass(w.category, GroupWhitespaceWarning))
    acc.notes.extend(warned)
    return _Started(target, data, weight, acc, prep, warned)


def run_audit(options: AuditOptions) -> AuditResult:
    """Run the whole audit and write its outputs into ``options.out`` (replacing an earlier audit there).

    Everything is built in a work folder; ``options.out`` changes only when every step succeeded, and only
    if it is new, empty, or an earlier audit's folder holding nothing but the files that audit wrote
    (:func:`fairstats.audit_folder.check_out_folder`).

    Raises
    ------
    AuditError, ValueError, TypeError
        Bad input, or an ``--out`` the audit may not replace; nothing is written.
    """
    if options.decision_levels is not None:  # multi-level decisions (issue 17 A)
        from fairstats.audit_levels import run_levels_audit

        return run_levels_audit(options)
    target, data, weight, acc, prep, warned = _start(options, _prepare)
    if options.search:  # subgroup search: check its columns before anything is written
        from fairstats.audit_search import search_iv

        roles = {options.y_true: "--y-true", options.y_pred: "--y-pred"}
        search_iv(data, options.search, roles, options.predictions.name)
    out = options.out
    tmp = new_work_folder(target)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for grouping in prep.groupings:
                _equal_confusion(prep, grouping, options, acc)
            n_pairs = sum(len(acc.results[" x ".join(g)].observed) - 1 for g in prep.groupings)
            from tqdm.auto import tqdm

            with tqdm(
                total=n_pairs,
                desc="fold-based tests" if options.fold else "bootstrap",
                unit="comparison",
                file=sys.stderr,
                disable=None,
                leave=False,
            ) as bar:
                for grouping in prep.groupings:
                    _disparities(prep, grouping, options, acc, bar)
            tests = _finish_tests(acc, options.alpha)
            if options.fold is not None and len(tests) and not tests["pvalue"].notna().any():
                raise AuditError(
                    f"--fold {options.fold!r}: no comparison could be tested: no group and reference have "
                    "metrics in two or more common folds; check the fold column"
                )
            equal = _finish_equal(acc, options.alpha)
            residuals = pd.concat(acc.residuals, ignore_index=True)
            residuals = residuals[
                RESIDUAL_COLUMNS + [c for c in residuals.columns if c not in RESIDUAL_COLUMNS]
            ]
            figures = _figures(acc, tests, tmp, prep.labels)
            search = None
            if options.search:  # subgroup search (fairstats.audit_search)
                from fairstats.audit_search import run_search

                fav = prep.labels[0]
                search = run_search(
                    data, weight, columns=options.search,
                    y01=_label_text(data[options.y_true]) == fav,
                    p01=_label_text(data[options.y_pred]) == fav,
                    depth=options.search_depth, min_size=options.min_size, metrics=options.search_metrics,
                    alpha=options.alpha, n_resamples=options.n_resamples, seed=options.seed, folder=tmp,
                )  # fmt: skip
                figures = [*figures, *search.figures]
        for w in caught:
            if issubclass(w.category, UserWarning) and "Cochran" not in str(w.message):
                acc.notes.append(one_line(w.message))
        notes = tuple(dict.fromkeys(acc.notes))
        tables = [(equal, "equal_confusion"), (residuals, "residuals"), (tests, "tests")]
        tables += [(frame, name) for name, frame in search.tables.items()] if search else []  # --search
        _write_tables(tmp, tables)
        write_report(
            tmp, options, prep, acc, equal, residuals, tests, figures, search=search and search.context
        )
        swap_into_place(tmp, target)
    except OutFolderError as err:
        discard(tmp)
        raise AuditError(str(err)) from None
    except BaseException:
        discard(tmp)
        raise
    summary = _summary(options, prep, equal, tests, notes, out)
    if search is not None:
        summary += "\n" + search.summary
    return AuditResult(
        equal_confusion=equal,
        residuals=residuals,
        tests=tests,
        notes=notes,
        summary=summary,
        out=out,
        warnings=warned,
    )
