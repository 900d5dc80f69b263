"""The ``fairstats`` command line: ``fairstats audit`` checks anyone's predictions for group disparities.

``fairstats audit PREDICTIONS.csv --group race --y-true y --y-pred p --out audit/`` reads one row per person,
runs paper A's equal confusion test for each ``--group`` column (and, with several, their intersection),
the residual analysis, and paper B's outcome-based fairness tests between each group and the largest group
(with bootstrap intervals, or with the corrected t over cross-validation folds when ``--fold`` is given),
adjusts for multiple testing, and writes tables, figures and a plain-language report into ``--out``.

Bad input (a missing file or column, NaN, a single group, labels outside the stated set, a favourable value
that never occurs) ends with one line ``fairstats audit: error: ...`` and exit status 2; nothing is written:
every output is built in a temporary folder that replaces ``--out`` only when the whole audit succeeded.
"""

from __future__ import annotations

import argparse
import difflib
import html
import os
import re
import shutil
import sys
import tempfile
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats import __version__
from fairstats.calibration import calibration_independence_test
from fairstats.confusion import equal_confusion_test
from fairstats.inference import (
    OUTCOME_TESTS,
    adjust_pvalues,
    bootstrap_cramers_v,
    fold_disparity,
    group_labels,
    outcome_tests,
)
from fairstats.reporting import atomic_write_text, to_markdown

__all__ = ["AuditError", "build_parser", "main"]

#: File written into every audit folder; an existing ``--out`` folder is replaced only if it has one.
MARKER = ".fairstats-audit"

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

_METRIC_WORDS = {
    "ppr": "share predicted {fav}",
    "tpr": "among actual {fav}, share predicted {fav}",
    "fpr": "among actual {other}, share (wrongly) predicted {fav}",
    "fnr": "among actual {fav}, share (wrongly) predicted {other}",
    "tnr": "among actual {other}, share predicted {other}",
    "ppv": "among predicted {fav}, share actually {fav}",
    "npv": "among predicted {other}, share actually {other}",
    "accuracy": "share of correct predictions",
    "fn_fp_ratio": "people wrongly denied {fav} per person wrongly granted {fav} (FN / FP)",
    "mean_score_pos": "mean score of people with actual {fav}",
    "mean_score_neg": "mean score of people with actual {other}",
    "calibration": "outcome rate within score bins (calibration)",
}

_TEST_WORDS = {
    "group_fairness": "group fairness",
    "equalized_odds": "equalized odds / equal opportunity",
    "conditional_use_accuracy_equality": "conditional use accuracy equality",
    "overall_accuracy_equality": "overall accuracy equality",
    "treatment_equality": "treatment equality",
    "balance_positive_class": "balance for the favourable class",
    "balance_negative_class": "balance for the unfavourable class",
    "calibration": "calibration",
}


#: A comparison whose denominator has fewer cases than this gets a note: its bootstrap interval is unreliable.
_SMALL = 10


class AuditError(ValueError):
    """Bad input to ``fairstats audit``: the message is printed as one line and the exit status is 2."""


# --------------------------------------------------------------------------------------------------------
# argument parsing
# --------------------------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line: ``<prog>: error: <message> (see '<prog> --help')``."""

    def error(self, message: str) -> None:  # noqa: D401 - argparse's name
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


_AUDIT_DESCRIPTION = """\
Audit a classifier's predictions for group disparities.

PREDICTIONS is a CSV or parquet file (parquet if the name ends in .parquet or .pq) with one row per
person: the sensitive attribute(s), the true outcome and the prediction (two labels, e.g. 0/1), and
optionally a score in [0, 1] and a cross-validation fold.

What it does:
  * equal confusion test (paper A): are the groups' confusion matrices (TP, FN, FP, TN shares) alike?
    For each --group column and, with several, their intersection: chi-squared, df, p-value (and a
    permutation p-value when expected counts are small), Cramer's V with a bootstrap interval, and the
    adjusted residuals that show which group and cell stand out (flagged at |r| > 3.29 and at the
    Bonferroni cut-off).
  * outcome disparities (paper B's definitions): each group against the largest group of its grouping,
    for the share predicted favourable, true/false positive rates, precision, negative predictive value,
    accuracy and the FN/FP ratio (and mean scores with --y-score): difference, 95% bootstrap interval,
    score test; with --fold instead per-fold metrics, the corrected resampled t (Nadeau & Bengio 2003)
    and its interval. Holm (family-wise) and Benjamini-Hochberg (false discovery rate) adjusted p-values
    over all of them.
  * calibration within score bins (with --y-score): chi-squared and CMH tests of equal outcome rates.
"""

_AUDIT_EPILOG = """\
outputs (in DIR):
  report.md, report.html  plain-language report
  equal_confusion.csv     grouping, statistic, df, pvalue, cramers_v, n, min_expected, cochran_ok, ...
  residuals.csv           grouping, group, cell, observed, expected, adjusted_residual, flag_3_29,
                          flag_bonferroni
  tests.csv               one row per comparison: estimate, ci_low, ci_high, statistic, pvalue,
                          pvalue_adj (Holm), pvalue_bh, significant_adj, ...
  residuals_*.png, disparities_*.png   figures

DIR must be new, empty, or an earlier audit's folder (which is replaced). On bad input nothing is
written and the exit status is 2.

example (COMPAS, favourable outcome = low risk = 0):
  fairstats audit compas.csv --group sex --group race --y-true y_true --y-pred y_pred \\
      --favorable 0 --out compas-audit
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``fairstats`` argument parser (subcommand ``audit``)."""
    parser = _Parser(
        prog="fairstats",
        description="fairstats: is this group disparity real, or chance? Statistical fairness tests.",
    )
    parser.add_argument("--version", action="version", version=f"fairstats {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    audit = sub.add_parser(
        "audit",
        help="audit predictions for group disparities (tables, figures, plain-language report)",
        description=_AUDIT_DESCRIPTION,
        epilog=_AUDIT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_argument("predictions", metavar="PREDICTIONS", help="CSV or parquet file, one row per person")
    audit.add_argument(
        "--group",
        action="append",
        required=True,
        metavar="COL",
        help="sensitive attribute column; repeat for several (their intersection is audited too)",
    )
    audit.add_argument("--y-true", required=True, metavar="COL", help="column of the true outcome")
    audit.add_argument("--y-pred", required=True, metavar="COL", help="column of the predicted outcome")
    audit.add_argument(
        "--y-score", metavar="COL", help="column of a score in [0, 1] (adds calibration and balance tests)"
    )
    audit.add_argument(
        "--fold",
        metavar="COL",
        help="column of the cross-validation test fold (out-of-fold predictions of one model): compare "
        "per-fold metrics with the corrected resampled t instead of the bootstrap",
    )
    audit.add_argument(
        "--favorable",
        metavar="VALUE",
        help="label of the favourable outcome, in both --y-true and --y-pred (default: 1, with 0/1 labels); "
        "the other label is the unfavourable one",
    )
    audit.add_argument(
        "--alpha",
        type=_level,
        default=0.05,
        metavar="A",
        help="significance level of every test and of the multiplicity control (default: 0.05)",
    )
    audit.add_argument(
        "--n-resamples",
        type=_positive_int,
        default=9999,
        metavar="N",
        help="bootstrap and permutation resamples (default: 9999)",
    )
    audit.add_argument(
        "--seed", type=_seed, default=20240607, metavar="S", help="random seed (default: 20240607)"
    )
    audit.add_argument("--out", required=True, metavar="DIR", help="output folder (see below)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``fairstats`` command line; return the exit status (0 ok, 2 bad input).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success (and for ``--help``), 2 for bad input, 1 when the output folder cannot be written.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    return _audit_main(args)


def _one_line(message: object) -> str:
    return " ".join(str(message).split())


def _audit_main(args: argparse.Namespace) -> int:
    prog = "fairstats audit"
    try:
        options = _options_iv(args)
        result = run_audit(options)
    except (AuditError, ValueError, TypeError) as err:
        print(f"{prog}: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"{prog}: error: could not write {str(args.out)!r}: {_one_line(err)}", file=sys.stderr)
        return 1
    print(result.summary)
    return 0


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


def _options_iv(args: argparse.Namespace) -> AuditOptions:
    groups = tuple(args.group)
    dup = sorted({g for g in groups if groups.count(g) > 1})
    if dup:
        raise AuditError(f"--group {dup[0]!r} is given twice")
    named = [
        ("--y-true", args.y_true),
        ("--y-pred", args.y_pred),
        ("--y-score", args.y_score),
        ("--fold", args.fold),
    ]
    seen: dict[str, str] = {g: "--group" for g in groups}
    for option, column in named:
        if column is None:
            continue
        if column in seen:
            raise AuditError(
                f"{option} {column!r} is also given as {seen[column]}; each role needs its own column"
            )
        seen[column] = option
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise AuditError(f"--out {str(out)!r} exists and is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise AuditError(
            f"--out {str(out)!r} exists and is not empty (and is not an earlier audit); choose a new folder"
        )
    return AuditOptions(
        predictions=Path(args.predictions),
        groups=groups,
        y_true=args.y_true,
        y_pred=args.y_pred,
        y_score=args.y_score,
        fold=args.fold,
        favorable=args.favorable,
        alpha=float(args.alpha),
        n_resamples=int(args.n_resamples),
        seed=int(args.seed),
        out=out,
    )


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() in (".parquet", ".pq")


def read_predictions_file(path: Path) -> pd.DataFrame:
    """Read a CSV or parquet file of predictions; raise :class:`AuditError` naming the file on failure."""
    if not path.exists():
        raise AuditError(f"file {str(path)!r} not found")
    if path.is_dir():
        raise AuditError(f"{str(path)!r} is a folder, not a CSV or parquet file")
    try:
        if _is_parquet(path):
            data = pd.read_parquet(path)
        else:
            data = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise AuditError(f"{str(path)!r} is empty") from None
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as err:
        kind = "parquet" if _is_parquet(path) else "CSV"
        raise AuditError(f"could not read {str(path)!r} as {kind}: {_one_line(err)}") from None
    except Exception as err:  # pyarrow's own errors  # noqa: BLE001
        raise AuditError(f"could not read {str(path)!r}: {_one_line(err)}") from None
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
    data: (
        pd.DataFrame
    )  # the audit frame: group columns, y_true, y_pred (original or text), y01, p01, score, fold
    labels: tuple[str, str]  # (favourable, other) as text
    binary01: bool  # the labels are 0/1: the confusion cells are TP, FN, FP, TN with 1 = positive
    groupings: tuple[tuple[str, ...], ...]


def _prepare(data: pd.DataFrame, options: AuditOptions) -> _Prepared:
    columns = [str(c) for c in data.columns]
    data = data.copy()
    data.columns = columns
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
                f"--group: column {column!r} has a single group {_one_line(values[0])!r}; "
                "an audit compares at least two groups"
            )

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
        frame["y_true"] = text_true.astype(np.int64)
        frame["y_pred"] = text_pred.astype(np.int64)
    else:
        frame["y_true"] = text_true
        frame["y_pred"] = text_pred
    frame["y01"] = (text_true == favorable).astype(np.int64)
    frame["p01"] = (text_pred == favorable).astype(np.int64)
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
        frame["score"] = values
    if options.fold is not None:
        folds = data[options.fold]
        if folds.nunique() < 2:
            raise AuditError(
                f"--fold: column {options.fold!r} has a single fold; the fold-based tests need two"
            )
        frame["fold"] = folds.to_numpy()
    groupings = [(g,) for g in options.groups]
    if len(options.groups) > 1:
        groupings.append(tuple(options.groups))
    return _Prepared(data=frame, labels=(favorable, other), binary01=binary01, groupings=tuple(groupings))


# --------------------------------------------------------------------------------------------------------
# the analysis
# --------------------------------------------------------------------------------------------------------


def _rng(seed: int, *parts: str) -> np.random.Generator:
    """Independent, reproducible stream per task: seed + CRC32 of the task's name (no PYTHONHASHSEED)."""
    return np.random.default_rng(np.random.SeedSequence([seed, *(zlib.crc32(p.encode()) for p in parts)]))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "grouping"


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


def _equal_confusion(
    prep: _Prepared, grouping: tuple[str, ...], options: AuditOptions, acc: _Collected
) -> None:
    name = " x ".join(grouping)
    group = list(grouping) if len(grouping) > 1 else grouping[0]
    res = equal_confusion_test(
        prep.data,
        group=group,
        y_true="y_true",
        y_pred="y_pred",
        alpha=options.alpha,
        posthoc_alpha=options.alpha,
        n_resamples=options.n_resamples,
        rng=_rng(options.seed, "permutation", name),
    )
    v = bootstrap_cramers_v(
        prep.data,
        group=group,
        y_true="y_true",
        y_pred="y_pred",
        n_resamples=options.n_resamples,
        rng=_rng(options.seed, "cramers_v", name),
        warn=False,
    )
    acc.results[name] = res
    acc.cramers[name] = v
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
            "pvalue_permutation": res.pvalue_permutation,
            "n_resamples_permutation": res.n_resamples,
            "cramers_v_ci_low": v.ci_low,
            "cramers_v_ci_high": v.ci_high,
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
    labels = group_labels(prep.data, list(grouping))
    order = [str(g) for g in acc.results[" x ".join(grouping)].observed.index]
    sizes = labels.value_counts()
    biggest = max(order, key=lambda g: (int(sizes.get(g, 0)), -order.index(g)))
    acc.references[" x ".join(grouping)] = biggest
    acc.sizes[" x ".join(grouping)] = {g: int(sizes.get(g, 0)) for g in order}
    return biggest, [g for g in order if g != biggest], labels


def _disparities(prep: _Prepared, grouping, options: AuditOptions, acc: _Collected, bar) -> None:
    name = " x ".join(grouping)
    group = list(grouping) if len(grouping) > 1 else grouping[0]
    reference, others, labels = _reference(prep, grouping, acc)
    y_score = "score" if options.y_score is not None else None
    tests = list(_AUDIT_TESTS) + (list(_SCORE_TESTS) if y_score else [])
    for g in others:
        if options.fold is None:
            res = outcome_tests(
                prep.data,
                group=group,
                y_true="y01",
                y_pred="p01",
                groups=(g, reference),
                y_score=y_score,
                tests=tests,
                favorable=1,
                alpha=options.alpha,
                n_resamples=options.n_resamples,
                rng=_rng(options.seed, "bootstrap", name, g),
                warn=False,
            )
            undefined = res.bootstrap.n_undefined
            for row in res.table.to_dict(orient="records"):
                notes = []
                if not np.isfinite(row["estimate"]):
                    notes.append("undefined in one group (no case in the denominator)")
                elif min(row["nobs_a"], row["nobs_b"]) < _SMALL:
                    notes.append(f"fewer than {_SMALL} cases in a denominator: the interval is unreliable")
                if int(undefined[row["metric"]]):
                    notes.append(
                        f"{int(undefined[row['metric']])} resamples undefined, left out of the interval"
                    )
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
                        "method": row["method"]
                        + f"; {int(options.n_resamples)}-resample BCa bootstrap interval",
                        "note": note,
                    }
                )
        else:
            metrics = list(dict.fromkeys(m for t in tests for m in OUTCOME_TESTS[t]))
            definition = {m: next(t for t in tests if m in OUTCOME_TESTS[t]) for m in metrics}
            res = fold_disparity(
                prep.data,
                group=group,
                y_true="y01",
                y_pred="p01",
                fold="fold",
                groups=(g, reference),
                y_score=y_score,
                metrics=metrics,
                favorable=1,
                alpha=options.alpha,
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
                        "method": (
                            f"corrected resampled t over {row['n_pairs']} folds (Nadeau & Bengio 2003); "
                            f"paired t p = {row['pvalue_paired']:.3g}, "
                            f"pooled t p = {row['pvalue_pooled']:.3g}"
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
                        prep.data["y01"].to_numpy(),
                        prep.data["score"].to_numpy(),
                        labels.to_numpy(),
                        protected=g,
                        unprotected=reference,
                        n_bins=10,
                        favorable=1,
                    )
                except ValueError as err:
                    cal = None
                    acc.notes.append(
                        f"{name}: {g} vs {reference}: calibration test not possible ({_one_line(err)})"
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
                        "method": (
                            f"sum over {cal.n_bins_used} of 10 score bins of Pearson chi-squared "
                            "(group x outcome); "
                            f"CMH p = {cal.cmh_pvalue:.3g}"
                        ),
                        "note": "; ".join(_one_line(w.message) for w in caught)[:300],
                    }
                )
        bar.update(1)


def _finish_tests(acc: _Collected, alpha: float) -> pd.DataFrame:
    if not acc.tests:
        return pd.DataFrame(columns=TEST_COLUMNS)
    tests = pd.DataFrame(acc.tests)
    tests = adjust_pvalues(tests, method="holm", pvalue="pvalue", alpha=alpha, suffix="adj")
    tests = adjust_pvalues(tests, method="fdr_bh", pvalue="pvalue", alpha=alpha, suffix="bh")
    tests["significant"] = tests["pvalue"] < alpha
    return tests[TEST_COLUMNS]


# --------------------------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------------------------


def _figures(acc: _Collected, tests: pd.DataFrame, folder: Path, labels: tuple[str, str]) -> list[str]:
    import matplotlib.pyplot as plt
    import seaborn as sns

    from fairstats.plotting import DIVERGING, save_figure, set_style

    set_style()
    written = []
    for name, res in acc.results.items():
        residuals = res.residuals
        q, r = residuals.shape
        fig, ax = plt.subplots(figsize=(1.4 * r + 3, 0.45 * q + 1.8))
        limit = max(3.5, float(np.nanmax(np.abs(residuals.to_numpy()))))
        sns.heatmap(
            residuals,
            cmap=DIVERGING,
            center=0,
            vmin=-limit,
            vmax=limit,
            annot=True,
            fmt=".1f",
            cbar_kws={"label": "adjusted residual"},
            ax=ax,
        )
        flagged = res.flag_bonferroni.to_numpy()
        for i, j in zip(*np.nonzero(flagged), strict=True):
            ax.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, edgecolor="black", lw=2))
        ax.set_title(
            f"{name}: adjusted residuals (boxed: past the Bonferroni cut-off {res.bonferroni_cutoff:.2f})"
        )
        ax.set_xlabel("confusion cell")
        ax.set_ylabel(name)
        path = save_figure(fig, folder / f"residuals_{_slug(name)}.png", pdf=False)
        plt.close(fig)
        written.append(path.name)
    if len(tests):
        for name, part in tests[tests["metric"] != "calibration"].groupby("grouping", sort=False):
            metrics = list(dict.fromkeys(part["metric"]))
            groups = list(dict.fromkeys(part["group"]))
            fig, axes = plt.subplots(
                1, len(metrics), figsize=(2.6 * len(metrics) + 1.5, 0.4 * len(groups) + 1.8), sharey=True
            )
            axes = np.atleast_1d(axes)
            for ax, metric in zip(axes, metrics, strict=True):
                rows = part[part["metric"] == metric].set_index("group").reindex(groups)
                y = np.arange(len(groups))
                est = rows["estimate"].to_numpy(dtype=float)
                low, high = rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)
                sig = rows["significant_adj"].fillna(False).to_numpy(dtype=bool)
                ax.axvline(0, color="grey", lw=1)
                ok = np.isfinite(est) & np.isfinite(low) & np.isfinite(high)
                ax.errorbar(
                    est[ok],
                    y[ok],
                    xerr=[est[ok] - low[ok], high[ok] - est[ok]],
                    fmt="none",
                    ecolor="black",
                    elinewidth=1,
                    capsize=2,
                )
                ax.scatter(est[ok & ~sig], y[ok & ~sig], color="white", edgecolor="black", zorder=3)
                ax.scatter(est[ok & sig], y[ok & sig], color="black", zorder=3)
                ax.set_title(metric, fontsize=10)
                ax.set_yticks(y)
                ax.set_yticklabels(groups)
                ax.invert_yaxis()
            reference = part["reference"].iloc[0]
            fig.suptitle(
                f"{name}: each group minus {reference} (95% interval; filled = significant after Holm)",
                fontsize=10,
            )
            path = save_figure(fig, folder / f"disparities_{_slug(name)}.png", pdf=False)
            plt.close(fig)
            written.append(path.name)
    return written


# --------------------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------------------


def _p(p: float) -> str:
    if not np.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _p_eq(p: float) -> str:
    text = _p(p)
    return text if text.startswith(("<", "n/a")) else f"= {text}"


def _report_header(options: AuditOptions, prep: _Prepared, acc: _Collected) -> list[str]:
    fav, other = prep.labels
    groups = ", ".join(f"`{g}`" for g in options.groups)
    lines = [
        "# Fairness audit",
        "",
        f"*fairstats {__version__} — `fairstats audit {options.predictions.name}` — seed {options.seed}*",
        "",
        "## What was checked",
        "",
        f"- **Data:** `{options.predictions.name}`, {len(prep.data):,} people.",
        f"- **Outcome:** true outcome `{options.y_true}`, prediction `{options.y_pred}`; "
        f"the favourable outcome is **{fav}** (the other label is {other}).",
        f"- **Groups:** {groups}" + (" and their intersection." if len(options.groups) > 1 else "."),
        f"- **Significance level:** {options.alpha:g}. Intervals are 95% intervals.",
    ]
    if options.fold is not None:
        lines.append(
            f"- **Cross-validation folds:** `{options.fold}`. Disparities are compared fold by fold with "
            "the corrected resampled t-test, which allows for the folds' models sharing training data."
        )
    for name, sizes in acc.sizes.items():
        pieces = ", ".join(f"{g} {k:,}" for g, k in sizes.items())
        lines.append(f"- **{name}** groups (people): {pieces}.")
    return lines


def _report_equal_confusion(options: AuditOptions, acc: _Collected, equal, residuals) -> list[str]:
    first = next(iter(acc.results.values()))
    legend = "; ".join(
        f"{c} = predicted {p}, actually {t}" for c, p, t in first.cells.itertuples(index=False, name=None)
    )
    lines = [
        "",
        "## 1. Do the groups' confusion matrices differ? (equal confusion test)",
        "",
        "Each prediction is right or wrong in one of a few ways, the cells of the confusion matrix "
        f"({legend}). The equal confusion test asks whether the shares of these cells are the same in "
        "every group. A small p-value means the differences are too large to be chance. Cramér's V "
        "measures how large they are (0 = identical groups, 1 = completely different).",
        "",
    ]
    for row in equal.to_dict(orient="records"):
        differ = row["pvalue"] < options.alpha
        verdict = "**the groups differ**" if differ else "no clear difference"
        perm = ""
        if not row["cochran_ok"]:
            perm = (
                " Some groups are small, so the usual p-value is approximate; the permutation p-value, "
                f"which does not need large groups, is {_p(row['pvalue_permutation'])}."
            )
            if differ and row["pvalue_permutation"] >= options.alpha:
                verdict = (
                    "the usual test says the groups differ, but the permutation test does not confirm it"
                )
        lines.append(
            f"- **{row['grouping']}:** {verdict} (chi-squared = {row['statistic']:.2f}, df = {row['df']}, "
            f"p {_p_eq(row['pvalue'])}); Cramér's V = {row['cramers_v']:.3f} (95% interval "
            f"{row['cramers_v_ci_low']:.3f} to {row['cramers_v_ci_high']:.3f}), a {row['effect_size']} "
            f"effect.{perm}"
        )
    lines += [
        "",
        "### Which groups and cells stand out",
        "",
        "An adjusted residual compares a group's count in a cell with the count expected if all groups "
        "were alike. Past the Bonferroni cut-off for the number of cells (listed below; boxed in the "
        "figures) the cell stands out; `flag_3_29` in residuals.csv marks the fixed cut-off ±3.29 "
        "(α = 0.001). Positive: more cases than expected.",
        "",
    ]
    flagged = residuals[residuals["flag_bonferroni"]]
    if len(flagged) == 0:
        lines.append("No cell passes the Bonferroni cut-off.")
    for row in flagged.to_dict(orient="records"):
        direction = "more" if row["adjusted_residual"] > 0 else "fewer"
        lines.append(
            f"- {row['grouping']} = **{row['group']}**: {direction} {row['cell']} (predicted "
            f"{row['y_pred']}, actually {row['y_true']}) than expected: {int(row['observed'])} vs "
            f"{row['expected']:.1f} (residual {row['adjusted_residual']:+.1f})."
        )
    return lines


def _report_disparities(prep: _Prepared, tests: pd.DataFrame) -> list[str]:
    fav, other = prep.labels
    lines = ["", "## 2. Outcome disparities (paper B's fairness definitions)", ""]
    if len(tests) == 0:
        return [*lines, "No comparison could be made."]
    words = {m: w.format(fav=fav, other=other) for m, w in _METRIC_WORDS.items()}
    total = int(tests["pvalue"].notna().sum())
    lines += [
        f"Each group is compared with the largest group of its grouping. With {total} comparisons, a few "
        "would look significant by chance alone, so the p-values are adjusted (Holm's method keeps the "
        "chance of even one false alarm below the significance level; Benjamini–Hochberg keeps the "
        "expected share of false alarms among the findings below it).",
        "",
        f"**{int(tests['significant_adj'].sum())} of {total} comparisons are significant after Holm's "
        f"adjustment** ({int(tests['significant_bh'].sum())} after Benjamini–Hochberg, "
        f"{int(tests['significant'].sum())} before any adjustment):",
        "",
    ]
    for row in tests[tests["significant_adj"]].to_dict(orient="records"):
        who = f"- {row['grouping']} = **{row['group']}** vs {row['reference']}"
        if row["metric"] == "calibration":
            lines.append(
                f"{who}: outcome rates within score bins differ (adjusted p {_p_eq(row['pvalue_adj'])})."
            )
            continue
        lines.append(
            f"{who}: {words.get(row['metric'], row['metric'])}: {row['value_group']:.3f} vs "
            f"{row['value_reference']:.3f}; difference {row['estimate']:+.3f} (95% interval "
            f"{row['ci_low']:+.3f} to {row['ci_high']:+.3f}; adjusted p {_p_eq(row['pvalue_adj'])})."
        )
    lines += ["", "What the measures mean (fairness definition in brackets):", ""]
    for metric, test in tests[["metric", "test"]].drop_duplicates("metric").itertuples(index=False):
        lines.append(f"- `{metric}`: {words.get(metric, metric)} ({_TEST_WORDS.get(test, test)}).")
    return lines


def _report(
    options: AuditOptions,
    prep: _Prepared,
    acc: _Collected,
    equal: pd.DataFrame,
    residuals: pd.DataFrame,
    tests: pd.DataFrame,
    figures: list[str],
) -> str:
    lines = _report_header(options, prep, acc)
    lines += _report_equal_confusion(options, acc, equal, residuals)
    lines += _report_disparities(prep, tests)
    lines += ["", "## Figures", "", *(f"![{f}]({f})" for f in figures), ""]
    caveats = [
        "A significant difference says the disparity is unlikely to be chance in these data; it does not "
        "say why it arises, nor whether it is unfair in context.",
        f"Intervals for comparisons with fewer than {_SMALL} cases in a denominator are unreliable "
        "(see the `note` column of tests.csv).",
    ]
    if options.fold is None:
        caveats.append(
            "Intervals and tests treat people as independent. Out-of-fold predictions of cross-validated "
            "models are only approximately so; use --fold for fold-aware tests."
        )
        caveats.append(
            f"The intervals are BCa bootstrap intervals ({options.n_resamples} resamples, seed "
            f"{options.seed}): group sizes fixed, people resampled within their group."
        )
    lines += ["## Notes and caveats", "", *(f"- {c}" for c in caveats)]
    lines += [f"- {_one_line(n)}" for n in dict.fromkeys(acc.notes)]
    lines += [
        "",
        "## Files",
        "",
        "- `equal_confusion.csv`: one row per grouping (statistic, df, p-value, Cramér's V and interval).",
        "- `residuals.csv`: one row per group and confusion cell (observed, expected, residual, flags).",
        "- `tests.csv`: one row per comparison (estimate, interval, statistic, p-value, adjusted p-values).",
        "",
    ]
    return "\n".join(lines)


_HTML_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.5; color: #222; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 0.2rem 0.5rem; }}
img {{ max-width: 100%; }} code {{ background: #f4f4f4; padding: 0 0.2rem; }}
</style></head><body>
{body}
</body></html>
"""


def markdown_to_html(text: str, *, title: str = "Fairness audit") -> str:
    """Render the report's Markdown as a standalone HTML page (mistune, shipped with nbconvert)."""
    try:
        import mistune

        body = mistune.create_markdown(escape=True, plugins=["table"])(text)
    except ImportError:  # pragma: no cover - mistune comes with nbconvert, a pinned dependency
        body = "<pre>" + html.escape(text) + "</pre>"
    return _HTML_TEMPLATE.format(title=html.escape(title), body=body)


# --------------------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------------------


def _summary(
    options: AuditOptions, prep: _Prepared, equal: pd.DataFrame, tests: pd.DataFrame, notes, out
) -> str:
    fav, _ = prep.labels
    lines = [
        f"fairstats audit: {len(prep.data):,} people, favourable outcome = {fav}, alpha = {options.alpha:g}"
    ]
    lines.append("  equal confusion test (do the groups' confusion matrices differ?)")
    width = max(len(g) for g in equal["grouping"])
    for row in equal.to_dict(orient="records"):
        p = _p(row["pvalue"])
        p = p if p.startswith("<") else f"= {p}"
        verdict = "differ" if row["pvalue"] < options.alpha else "no clear difference"
        perm = "" if row["cochran_ok"] else f" (permutation p {_p(row['pvalue_permutation'])})"
        lines.append(
            f"    {row['grouping']:<{width}}  chi2 = {row['statistic']:8.2f}  df = {row['df']:<3} p {p:<8} "
            f"V = {row['cramers_v']:.3f} [{row['cramers_v_ci_low']:.3f}, {row['cramers_v_ci_high']:.3f}]  "
            f"{verdict}{perm}"
        )
    if len(tests):
        lines.append(
            f"  outcome disparities: {int(tests['significant_adj'].sum())} of "
            f"{int(tests['pvalue'].notna().sum())} "
            f"comparisons significant after Holm ({int(tests['significant_bh'].sum())} after BH, "
            f"{int(tests['significant'].sum())} unadjusted)"
        )
    if notes:
        lines.append(f"  {len(notes)} note(s): see the report")
    lines.append(f"  report: {out / 'report.html'}")
    return "\n".join(lines)


def _move_into_place(tmp: Path, out: Path) -> None:
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        backup = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old-"))
        backup.rmdir()
        os.replace(out, backup)
        try:
            shutil.move(str(tmp), str(out))
        except BaseException:
            os.replace(backup, out)
            raise
        shutil.rmtree(backup, ignore_errors=True)
    else:
        shutil.move(str(tmp), str(out))


def run_audit(options: AuditOptions) -> AuditResult:
    """Run the whole audit and write its outputs into ``options.out`` (replacing an earlier audit there).

    Everything is built in a temporary folder; ``options.out`` changes only when every step succeeded.

    Raises
    ------
    AuditError, ValueError, TypeError
        Bad input; nothing is written.
    """
    data = read_predictions_file(options.predictions)
    prep = _prepare(data, options)
    out = options.out
    parent = out.absolute().parent
    tmp = Path(tempfile.mkdtemp(dir=parent if parent.is_dir() else None, prefix=f".{out.name}.fairstats-"))
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)
    try:
        acc = _Collected()
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
            equal = pd.DataFrame(acc.equal)
            equal = equal[
                EQUAL_CONFUSION_COLUMNS + [c for c in equal.columns if c not in EQUAL_CONFUSION_COLUMNS]
            ]
            residuals = pd.concat(acc.residuals, ignore_index=True)
            residuals = residuals[
                RESIDUAL_COLUMNS + [c for c in residuals.columns if c not in RESIDUAL_COLUMNS]
            ]
            figures = _figures(acc, tests, tmp, prep.labels)
        for w in caught:
            if issubclass(w.category, UserWarning) and "Cochran" not in str(w.message):
                acc.notes.append(_one_line(w.message))
        notes = tuple(dict.fromkeys(acc.notes))
        for frame, name in ((equal, "equal_confusion"), (residuals, "residuals"), (tests, "tests")):
            atomic_write_text(tmp / f"{name}.csv", frame.to_csv(index=False, lineterminator="\n"))
            atomic_write_text(tmp / f"{name}.md", to_markdown(frame, digits=4))
        report = _report(options, prep, acc, equal, residuals, tests, figures)
        atomic_write_text(tmp / "report.md", report)
        atomic_write_text(tmp / "report.html", markdown_to_html(report))
        atomic_write_text(tmp / MARKER, f"fairstats {__version__} audit\n")
        _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    summary = _summary(options, prep, equal, tests, notes, out)
    return AuditResult(
        equal_confusion=equal, residuals=residuals, tests=tests, notes=notes, summary=summary, out=out
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
