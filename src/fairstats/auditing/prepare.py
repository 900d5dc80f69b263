"""The audit of decisions' own preparation: labels, scores, folds, and the audit frame.

The rows reach it checked by the steps every task shares (:mod:`fairstats.auditing.rows`: filters and the
decision rule; :func:`fairstats.auditing.grouping.checked_rows`: columns present, no missing value, two or
more groups). :func:`prepare` (a two-level decision) and :func:`prepare_levels` (``decision_levels``) check
what is the decisions' own (labels in the stated set, finite scores, a fold column that is not a row id) and
return the audit frame: the group columns as text and the internal columns, whose names never clash with a
user's column (``--group fold`` stays a group). Messages name the option, the column, the value and the row
(:meth:`fairstats.auditing.source.Source.where`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._validation import CheckedFrame, checked_frame
from fairstats.auditing.errors import AuditError
from fairstats.auditing.grouping import Grouping
from fairstats.auditing.grouping import where_in as _where
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.source import Source
from fairstats.counts import COUNT_COLUMN, Counts, aggregated

__all__ = ["Prepared", "LevelsPrepared", "favorable_text", "label_text", "prepare", "prepare_levels"]


def label_text(values: pd.Series) -> np.ndarray:
    """Labels as text, with integer-valued numbers and booleans written as integers ("1", not "1.0")."""
    if pd.api.types.is_bool_dtype(values):
        return values.astype(np.int64).astype(str).to_numpy(dtype=object)
    if pd.api.types.is_numeric_dtype(values):
        numbers = values.to_numpy(dtype=float)
        if np.all(np.isfinite(numbers)) and np.all(numbers == np.round(numbers)):
            return numbers.astype(np.int64).astype(str).astype(object)
        return values.astype(str).to_numpy(dtype=object)
    return values.astype(str).to_numpy(dtype=object)


def favorable_text(text: str, found: Sequence[str]) -> str:
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
class Prepared:
    """The checked input of a two-level audit: the audit frame, its labels and groupings."""

    # the audit frame: the group columns (text) and the internal columns of `cols`; for counted input
    # (--counts, parquet counted by DuckDB) its distinct rows with their number of people
    data: pd.DataFrame | Counts
    labels: tuple[str, str]  # (favourable, other) as text
    binary01: bool  # the labels are 0/1: the confusion cells are TP, FN, FP, TN with 1 = positive
    groupings: tuple[Grouping, ...]
    # the same frame checked once (every column present, no NaN): what the library functions get
    checked: CheckedFrame | Counts
    # role (y_true, y_pred, y01, p01, score, fold; a comparison's b01, baseline_score) -> internal column,
    # never a group's
    cols: dict[str, str]

    @property
    def n(self) -> int:
        """Number of people."""
        return self.data.n if isinstance(self.data, Counts) else len(self.data)


def _internal_names(groups: Sequence[str]) -> dict[str, str]:
    """Names of the internal columns that differ from every group column (``--group fold`` stays a group)."""
    taken = set(groups)
    names = {}
    for role in ("y_true", "y_pred", "y01", "p01", "score", "fold", "b01", "baseline_score"):
        name = f"__fairstats_{role}"
        while name in taken:
            name = "_" + name
        taken.add(name)
        names[role] = name
    return names


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


def _levels_hint(text: np.ndarray, option: str) -> str | None:
    """For a ``--y-pred`` with more than two values, the options that make or audit such a decision (for a
    comparison's ``--y-pred-baseline``, those that make it); for a numeric ``--y-true`` with more than two
    values, ``--task regression``."""
    values = pd.unique(text)
    if len(values) <= 2:
        return None
    numeric = pd.to_numeric(pd.Series(values), errors="coerce").notna().all()
    if option == "--y-pred-baseline":  # the rule makes both models' decisions; no levels, no regression
        rule = "--y-pred-threshold T (positive when >= T)" if numeric else "--y-pred-positive L1,L2"
        return (f"it has {len(values)} values: make both models' decisions with {rule}, which applies to "
                "--y-pred and --y-pred-baseline alike")
    if option != "--y-pred":  # a numeric outcome with many values: a regression (issue 26), never guessed
        return (f"it has {len(values)} values: for a continuous outcome and prediction use --task "
                "regression") if numeric else None
    shown = ",".join(sorted(map(str, values))[:4]) + (",..." if len(values) > 4 else "")
    if numeric:
        return (
            f"it has {len(values)} values: if it is a continuous prediction, audit it with --task "
            "regression; if it is a score, make the decision with --y-pred-threshold T (positive when >= T), "
            f"or audit its levels with --decision-levels {shown}"
        )
    return (
        f"it has {len(values)} levels: name those that count as the positive prediction with "
        f"--y-pred-positive, or audit every level with --decision-levels {shown}"
    )


def _named(labelled: list) -> str:
    """The labelled columns as a message names them: ``--y-true 'y' or --y-pred 'p'``."""
    names = [f"{option} {column!r}" for option, column, _ in labelled]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _score_values(data: pd.DataFrame, flag: str, column: str, source: Source) -> np.ndarray:
    """A score column as finite floats; :class:`AuditError` naming the option, column, value and row."""
    score = data[column]
    if not pd.api.types.is_numeric_dtype(score) or pd.api.types.is_bool_dtype(score):
        raise AuditError(f"{flag}: column {column!r} must be numeric, got {score.dtype}")
    values = score.to_numpy(dtype=float)
    bad = ~np.isfinite(values)  # any number ranks; only calibration needs [0, 1] (tables, score tests)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise AuditError(
            f"{flag}: column {column!r} must hold finite numbers, found {float(values[first]):g} on "
            f"{_where(data, first, source)}"
        )
    return values


def prepare(
    data: pd.DataFrame, options: AuditOptions, source: Source, weight: np.ndarray | None = None
) -> Prepared:
    """The checked audit frame of a two-level decision (labels: the favourable one and the other); with
    ``--task comparison`` the baseline's decision too (``b01``; its labels those of ``--y-pred``) and its
    score (``baseline_score``)."""
    cols = _internal_names(options.groups)

    # labels: two, the favourable one named (or 0/1 with 1 favourable by default)
    text_true, text_pred = label_text(data[options.y_true]), label_text(data[options.y_pred])
    labelled = [("--y-true", options.y_true, text_true), ("--y-pred", options.y_pred, text_pred)]
    if options.y_pred_baseline is not None:
        baseline = options.y_pred_baseline
        labelled.append(("--y-pred-baseline", baseline, label_text(data[baseline])))
    found = sorted(set().union(*(set(text) for _, _, text in labelled)))
    if options.favorable is None:
        for option, column, text in labelled:
            bad = ~np.isin(text, ["0", "1"])
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                hint = _levels_hint(text, option)
                raise AuditError(
                    f"{option}: column {column!r} has label {text[first]!r} "
                    f"(on {_where(data, first, source)}) "
                    "outside the stated set {0, 1}; "
                    + (hint or "name the favourable label with --favorable")
                )
        favorable = "1"
        if "1" not in found:
            raise AuditError(
                f"the favourable label 1 (the default) never occurs in {_named(labelled)}; name the "
                "favourable label with --favorable"
            )
    else:
        favorable = favorable_text(options.favorable, found)
        if favorable not in found:
            raise AuditError(
                f"--favorable {options.favorable!r} never occurs in {_named(labelled)} (labels found: "
                f"{found[:6]!r})"
            )
        if len(found) > 2:
            for option, column, text in labelled:
                allowed = [favorable, next(v for v in found if v != favorable)]
                bad = ~np.isin(text, allowed)
                if bad.any():
                    first = int(np.flatnonzero(bad)[0])
                    hint = _levels_hint(text, option)
                    raise AuditError(
                        f"{option}: column {column!r} has label {text[first]!r} (on "
                        f"{_where(data, first, source)}) outside the stated set {allowed!r}: "
                        "the audit needs "
                        f"two labels, the favourable {favorable!r} and one other; found {found[:6]!r}"
                        + (f"; {hint}" if hint else "")
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
    if options.y_pred_baseline is not None:
        frame[cols["b01"]] = (labelled[2][2] == favorable).astype(np.int64)
    for flag, column, role in (("--y-score", options.y_score, "score"),
                               ("--y-score-baseline", options.y_score_baseline,
                                "baseline_score")):  # fmt: skip
        if column is not None:
            frame[cols[role]] = _score_values(data, flag, column, source)
    if options.fold is not None:
        folds = data[options.fold]
        _folds_iv(folds, options.fold)
        frame[cols["fold"]] = folds.to_numpy()
    groupings = options.groupings
    if weight is None:
        return Prepared(
            data=frame,
            labels=(favorable, other),
            binary01=binary01,
            groupings=groupings,
            checked=checked_frame(frame, list(frame.columns)),
            cols=cols,
        )
    # counted input: the audit frame's distinct rows, with their people (a Counts is checked by construction)
    counts = aggregated(
        frame.assign(**{COUNT_COLUMN: weight}), list(frame.columns), source=source.name
    )
    return Prepared(
        data=counts, labels=(favorable, other), binary01=binary01, groupings=groupings, checked=counts,
        cols=cols,
    )


# --------------------------------------------------------------------------------------------------------
# the analysis
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LevelsPrepared:
    """The checked input of a multi-level audit (as :class:`Prepared` for a two-level decision)."""

    data: pd.DataFrame | Counts
    checked: CheckedFrame | Counts
    cols: dict[str, str]
    groupings: tuple[Grouping, ...]
    labels: tuple[str, str]  # shown in the binary report's outcome line; unused with levels
    decision_levels: tuple[str, ...]
    outcome_levels: tuple[str, ...]

    @property
    def n(self) -> int:
        return self.data.n if isinstance(self.data, Counts) else len(self.data)


def _declared_iv(data, text: np.ndarray, levels: tuple[str, ...], option: str, column: str, source) -> None:
    bad = ~np.isin(text, list(levels))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise AuditError(
            f"{option}: column {column!r} has the value {text[first]!r} (on {_where(data, first, source)}) "
            f"that is not among {'--decision-levels' if option == '--y-pred' else '--outcome-levels'} "
            f"{list(levels)!r}"
        )


def prepare_levels(
    data: pd.DataFrame, options: AuditOptions, source: Source, weight: np.ndarray | None = None
) -> LevelsPrepared:
    """The checked audit frame of a multi-level decision (issue 17 A)."""
    cols = _internal_names(options.groups)
    text_pred, text_true = label_text(data[options.y_pred]), label_text(data[options.y_true])
    _declared_iv(data, text_pred, options.decision_levels, "--y-pred", options.y_pred, source)
    if options.outcome_levels is None:
        outcome_levels = tuple(sorted(set(text_true)))
        if len(outcome_levels) < 2:
            raise AuditError(
                f"--y-true: column {options.y_true!r} of {source.name} has a single value "
                f"{outcome_levels[0]!r}; the audit needs at least two outcome levels"
            )
    else:
        outcome_levels = options.outcome_levels
        _declared_iv(data, text_true, outcome_levels, "--y-true", options.y_true, source)
    frame = pd.DataFrame(index=data.index)
    for column in options.groups:
        frame[column] = data[column].to_numpy()
    frame[cols["y_true"]] = text_true
    frame[cols["y_pred"]] = text_pred
    groupings = options.groupings
    shown = (", ".join(options.decision_levels), ", ".join(outcome_levels))
    common = {"cols": cols, "groupings": groupings, "labels": shown,
              "decision_levels": tuple(options.decision_levels), "outcome_levels": tuple(outcome_levels)}
    if weight is None:
        return LevelsPrepared(data=frame, checked=checked_frame(frame, list(frame.columns)), **common)
    counts = aggregated(
        frame.assign(**{COUNT_COLUMN: weight}), list(frame.columns), source=source.name
    )
    return LevelsPrepared(data=counts, checked=counts, **common)




