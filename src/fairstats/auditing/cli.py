"""The ``fairstats`` command line (argument parsing and ``main``): ``fairstats audit`` checks anyone's
predictions for group disparities; ``fairstats monitor`` follows them batch after batch
(:mod:`fairstats.auditing.monitor`).

``fairstats audit PREDICTIONS.csv --group race --y-true y --y-pred p --out audit/`` reads one row per person,
runs paper A's equal confusion test for each ``--group`` column (and, with several, their intersection),
the residual analysis, and paper B's outcome-based fairness tests between each group and the largest group
(with bootstrap intervals, or with the corrected t over cross-validation folds when ``--fold`` is given),
adjusts for multiple testing, and writes tables, figures and a plain-language report into ``--out``.

A thin shell: arguments -> :class:`~fairstats.auditing.AuditOptions` -> read the input
(:mod:`fairstats.auditing.inputs`) -> the audit in memory (:func:`fairstats.audit`'s
:func:`~fairstats.auditing.result.run`) -> :meth:`~fairstats.auditing.Audit.save`. One entry point with
subcommands (``audit``, ``monitor``; ``python -m fairstats`` runs it).

Bad input (a missing file or column, NaN, a single group, labels outside the stated set, a favourable value
that never occurs, an ``--out`` holding files the audit did not write) ends with one line
``fairstats audit: error: ...`` and exit status 2; nothing is written: every output is built in a work folder
that replaces ``--out`` only when the whole audit succeeded. Ctrl-C (SIGINT), SIGTERM, SIGHUP (a closed
terminal or ssh connection) and every other signal whose default ends the process (:data:`ENDING_SIGNALS`) end
with one line and exit status 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP),
nothing written. Every message printed is display text (:func:`fairstats._text.display_text`).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from fairstats._text import display_text
from fairstats._version import __version__
from fairstats.auditing import options as opt
from fairstats.auditing.errors import AuditError
from fairstats.auditing.exits import EXIT_BAD_INPUT, EXIT_DISPARITY, EXIT_OK, EXIT_WRITE
from fairstats.auditing.options import DEFAULT_SEARCH_METRICS, MAX_RESAMPLES, MIN_RESAMPLES, AuditOptions
from fairstats.equivalence import DEFAULT_MARGIN
from fairstats.reporting import one_line
from fairstats.search import SEARCH_METRICS

__all__ = ["EXIT_BAD_INPUT", "EXIT_DISPARITY", "EXIT_OK", "EXIT_WRITE", "AuditError", "build_parser", "main"]

# Exit statuses of every subcommand (fairstats.auditing.exits; also in --help)


# --------------------------------------------------------------------------------------------------------
# argument parsing
# --------------------------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line: ``<prog>: error: <message> (see '<prog> --help')``."""

    def error(self, message: str) -> None:  # noqa: D401 - argparse's name
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _argument(check):
    """An argparse type from one of the options' checks (:mod:`fairstats.auditing.options`): the bound and
    its wording are written there once."""

    def convert(text: str):
        try:
            return check(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    return convert


_level = _argument(opt.check_level)
_resamples = _argument(opt.check_resamples)
_seed = _argument(opt.check_seed)
_depth = _argument(opt.check_depth)
_min_size = _argument(opt.check_min_size)
_search_metric = _argument(opt.check_search_metric)


def _positive_float(text: str) -> float:
    """A positive finite number (the regression margin, in the unit of the outcome)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive finite number")
    return value


_AUDIT_DESCRIPTION = """\
Audit a classifier's predictions for group disparities.

PREDICTIONS is a CSV or parquet file (parquet if the name ends in .parquet or .pq), or a folder of
parquet files, with one row per person: the sensitive attribute(s), the true outcome and the prediction
(two labels, e.g. 0/1), and optionally a score in [0, 1] and a cross-validation fold. Parquet without
--fold/--y-score is counted by DuckDB without loading it (any size); --counts FILE audits a table of
counts made elsewhere (columns: the --group columns, --y-true, --y-pred, and n = people with each
combination; e.g. SELECT race, sex, y, p, COUNT(*) AS n FROM t GROUP BY ALL).

What it does:
  * equal confusion test (paper A): are the groups' confusion matrices (TP, FN, FP, TN shares) alike?
    For each --group column and, with several, their intersection: chi-squared, df, p-value (and a
    permutation p-value when expected counts are small), Cramer's V (plain and bias-corrected, with a
    noncentral chi-squared interval), and the adjusted residuals that show which group and cell stand
    out (flagged at |r| > 3.29 and at the Bonferroni cut-off).
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
  report.md, report.html  plain-language report (report.pdf with --pdf); its date is the time of
                          writing, or SOURCE_DATE_EPOCH (seconds since 1970, UTC) when set, so that two
                          runs write the same bytes
  equal_confusion.csv     grouping, statistic, df, pvalue, cramers_v, n, min_expected, cochran_ok, ...
  residuals.csv           grouping, group, cell, observed, expected, adjusted_residual, flag_3_29,
                          flag_bonferroni
  tests.csv               one row per comparison: estimate, ci_low, ci_high, statistic, pvalue,
                          pvalue_adj (Holm), pvalue_bh, significant_adj, ...
  residuals_*.png, disparities_*.png   figures
  with --y-score (binary outcome): score_tests.csv (one row per score comparison and measure, Holm over the
                          file), score_groups.csv (each group's AUC, calibration and ICI), roc_*.png,
                          calibration_*.png

with --task regression:
  regression_tests.csv    one row per comparison and measure (mean_residual, mae, rmse,
                          residual_distribution): value, value_reference, estimate, ci_low, ci_high,
                          pvalue, pvalue_adj (Holm), verdict, mde, ...
  residual_distributions_*.png, report.md, report.html (report.pdf with --pdf)

DIR must be new, empty, or an earlier audit's folder holding only the files that audit wrote (listed with
their SHA-256 in DIR/.fairstats-audit): only those are ever replaced. Anything else in DIR, a read-only DIR,
or an input file inside DIR is refused. A symbolic link DIR stays a link (the folder it points to is
replaced). On bad input nothing is written and the exit status is 2. Data values are shown as text in the
report (code, escaped); in the CSV files a text value starting with = + - @ gets a leading apostrophe.

exit status: 0 done; 1 the output folder could not be written; 2 bad input or options (nothing written);
3 with --fail-on disparity, a verdict 'disparity' was found (with --impact-ratios: a category 'below 4/5')
(outputs written); 130 Ctrl-C; 143 SIGTERM.

with --impact-ratios (no --y-true):
  impact_ratios.csv       grouping, category, n, selected, selection_rate, impact_ratio,
                          impact_ratio_ci_low, impact_ratio_ci_high, z_pvalue, fisher_pvalue,
                          four_fifths, excluded_reason, ...
  impact_ratios.png, report.md, report.html

example (COMPAS, favourable outcome = low risk = 0):
  fairstats audit compas.csv --group sex --group race --y-true y_true --y-pred y_pred \\
      --favorable 0 --out compas-audit
example (impact ratios in NYC Local Law 144's layout, selected = rated low risk):
  fairstats audit compas.csv --impact-ratios --y-pred score_level --favorable Low \\
      --standard ll144 --sex sex --race race --date compas_screening_date --min-share 0.02 \\
      --out compas-impact
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``fairstats`` argument parser (subcommands ``audit`` and ``monitor``)."""
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
    audit.add_argument(
        "predictions",
        metavar="PREDICTIONS",
        nargs="?",
        help="CSV or parquet file, or folder of parquet files, one row per person",
    )
    audit.add_argument(
        "--counts",
        metavar="FILE",
        help="instead of PREDICTIONS: a table of counts (CSV or parquet) with the --group, --y-true and "
        "--y-pred columns and n, the number of people with each combination (e.g. one SQL GROUP BY)",
    )
    audit.add_argument(
        "--group",
        action="append",
        metavar="COL",
        help="sensitive attribute column; repeat for several (their intersection is audited too)",
    )
    audit.add_argument(
        "--y-true", metavar="COL", help="column of the true outcome (not with --impact-ratios)"
    )
    audit.add_argument("--y-pred", metavar="COL", help="column of the predicted outcome (or decision)")
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
        "--margin",
        type=_level,
        default=DEFAULT_MARGIN,
        metavar="M",
        help="equivalence margin: a difference of two rates (or mean scores) within +-M counts as negligible "
        f"(default: {DEFAULT_MARGIN:g}, AIF360's 'fair' range of its difference metrics)",
    )
    audit.add_argument(
        "--task",
        choices=("decisions", "regression"),
        default="decisions",
        help="what --y-pred holds: decisions (two labels, or levels with --decision-levels; the default) or "
        "a continuous prediction (regression: per-group mean residual, MAE, RMSE; regression_tests.csv)",
    )
    audit.add_argument(
        "--regression-margin",
        type=_positive_float,
        default=None,
        metavar="M",
        help="with --task regression: equivalence margin of every error metric's difference, in the unit of "
        "--y-true (default: none, no equivalence tests)",
    )
    audit.add_argument(
        "--margin-ratio",
        type=_level,
        default=None,
        metavar="R",
        help="test rates by their ratio instead, equivalent within [R, 1/R] (0.8: the four-fifths rule, "
        "29 CFR 1607.4(D)); without --fold only (default: differences, --margin)",
    )
    audit.add_argument(
        "--n-resamples",
        type=_resamples,
        default=9999,
        metavar="N",
        help=f"bootstrap and permutation resamples, {MIN_RESAMPLES} to {MAX_RESAMPLES:,} (default: 9999)",
    )
    audit.add_argument(
        "--seed", type=_seed, default=20240607, metavar="S", help="random seed (default: 20240607)"
    )
    audit.add_argument("--out", required=True, metavar="DIR", help="output folder (see below)")
    audit.add_argument(
        "--pdf", action="store_true",
        help="also write report.pdf (report.html printed by headless Chromium; exit 2 if none is found)",
    )  # fmt: skip
    audit.add_argument(
        "--reference", action="append", default=None, metavar="GROUP",
        help="the group every other group is compared with (repeat for several groupings: each grouping uses "
        "the first that is one of its groups; an intersection's label as tests.csv writes it); default: the "
        "largest group",
    )  # fmt: skip
    audit.add_argument(
        "--comparisons", choices=("reference", "pairs"), default="reference",
        help="'reference': every group against the reference (default); 'pairs': every pair of groups once",
    )  # fmt: skip
    audit.add_argument(
        "--json", action="store_true",
        help="print a machine-readable summary (JSON) on standard output instead of the text summary",
    )  # fmt: skip
    audit.add_argument(
        "--fail-on", choices=("disparity",), default=None,
        help=f"exit with status {EXIT_DISPARITY} when any comparison's verdict is 'disparity' (with "
        "--impact-ratios: any category 'below 4/5'), for scheduled jobs and CI gates; the outputs are "
        "written as usual",
    )  # fmt: skip
    rows = audit.add_argument_group(
        "rows and decision",
        "which rows are audited, and how the decision is made from --y-pred (both written into the report)",
    )
    rows.add_argument(
        "--where", action="append", default=None, metavar="PREDICATE",
        help="keep the rows for which this SQL predicate holds (repeatable, applied in order), e.g. "
        "\"days_b_screening_arrest BETWEEN -30 AND 30\"; column references, constants, comparisons, "
        "BETWEEN, IN (...), LIKE, IS NULL, CASE, casts and simple scalar functions only",
    )  # fmt: skip
    rows.add_argument(
        "--y-pred-positive", metavar="L1,L2,...",
        help="the --y-pred labels that count as the positive prediction, comma-separated (e.g. Medium,High); "
        "the decision becomes 0/1",
    )  # fmt: skip
    rows.add_argument(
        "--y-pred-threshold", metavar="T",
        help="instead: --y-pred is a score, positive when >= T (the decision becomes 0/1)",
    )  # fmt: skip
    # multi-level decisions (issue 17 A)
    levels = audit.add_argument_group(
        "multi-level decisions",
        "a decision with more than two levels (e.g. Low/Medium/High): the equal confusion test on the "
        "decision x outcome cells, per-level shares by group, and for ordered levels the linear-by-linear "
        "test; writes level_tests.csv and ordinal_tests.csv instead of tests.csv",
    )
    levels.add_argument(
        "--decision-levels",
        metavar="L1,L2,...",
        help="every level of --y-pred, comma-separated, low to high when ordered (e.g. Low,Medium,High); "
        "a value not listed is an error",
    )
    levels.add_argument(
        "--outcome-levels",
        metavar="O1,O2,...",
        help="every level of --y-true, comma-separated (default: the values found, sorted)",
    )
    levels.add_argument(
        "--unordered",
        action="store_true",
        help="the decision levels have no order: no linear-by-linear (ordinal) test",
    )
    # subgroup search (fairstats.auditing.search, fairstats.search)
    search = audit.add_argument_group(
        "subgroup search",
        "which subgroup carries a disparity? Every conjunction of up to --search-depth values of the "
        "--search columns is compared with the rest; p-values adjusted over the whole search (Westfall-Young "
        "max-T, --n-resamples permutations, --seed); writes subgroups.csv and a report section",
    )
    search.add_argument("--search", nargs="+", metavar="COL", help="columns whose values define subgroups")
    search.add_argument(
        "--search-depth", type=_depth, default=2, metavar="D", help="values per subgroup, 1 to 3 (default: 2)"
    )
    search.add_argument(
        "--min-size", type=_min_size, default=30, metavar="N",
        help="smallest subgroup (and rest) searched, in people (default: 30)",
    )  # fmt: skip
    search.add_argument(
        "--search-metrics", nargs="+", type=_search_metric, default=None, metavar="M",
        help=f"rates compared: {', '.join(SEARCH_METRICS)} (default: {' '.join(DEFAULT_SEARCH_METRICS)})",
    )  # fmt: skip
    # impact ratios, the four-fifths rule and NYC Local Law 144 (issue 25; fairstats.auditing.impact)
    impact = audit.add_argument_group(
        "impact ratios (the four-fifths rule, NYC Local Law 144)",
        "selection rates (--y-pred = --favorable) or scoring rates (--scoring-rate) per category, impact "
        "ratios against the most selected category with score intervals (Bonferroni), the three-way "
        "four-fifths verdict, z and Fisher p-values (Holm), shortfall and reversal; writes "
        "impact_ratios.csv, impact_ratios.png and the report; --y-true is not used",
    )
    impact.add_argument("--impact-ratios", action="store_true", help="audit impact ratios instead")
    impact.add_argument(
        "--scoring-rate", metavar="COL",
        help="a score column: the rate is the share strictly above the whole sample's median (instead of "
        "--y-pred)",
    )  # fmt: skip
    impact.add_argument(
        "--standard", choices=("ll144",),
        help="ll144: NYC Local Law 144's layout (6 RCNY 5-300 ff.): --sex, --race and their intersection",
    )  # fmt: skip
    impact.add_argument("--sex", metavar="COL", help="sex column (with --standard ll144)")
    impact.add_argument("--race", metavar="COL", help="race/ethnicity column (with --standard ll144)")
    impact.add_argument("--date", metavar="COL", help="date column whose range the report gives")
    impact.add_argument(
        "--min-share", type=_level, metavar="S",
        help="exclude categories below this share of the data from the ratios, keeping their row (LL144's 2 "
        "%% rule: 0.02; the auditor must justify it; default: exclude nothing)",
    )  # fmt: skip
    impact.add_argument(
        "--missing-as-unknown", action="store_true",
        help="count missing group values in an 'unknown' category (default: a missing value is an error)",
    )  # fmt: skip
    impact.add_argument(
        "--unknown", action="append", metavar="VALUE",
        help="a group value meaning unknown (e.g. Declined), counted in the 'unknown' category; repeatable",
    )  # fmt: skip
    from fairstats.auditing.monitor import add_monitor_parser  # the subcommand's options live with it

    add_monitor_parser(sub)
    return parser


#: The options the binary audit needs (argparse's own message when one is missing, as before issue 25).
_BINARY_REQUIRED = (("--group", "group"), ("--y-true", "y_true"), ("--y-pred", "y_pred"))
#: Options of the impact-ratio audit only.
_IMPACT_ONLY = (("--scoring-rate", "scoring_rate"), ("--standard", "standard"), ("--sex", "sex"),
                ("--race", "race"), ("--date", "date"), ("--min-share", "min_share"),
                ("--missing-as-unknown", "missing_as_unknown"), ("--unknown", "unknown"))  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``fairstats`` command line; return the exit status (:data:`EXIT_OK` and the others).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success (and for ``--help``), 2 for bad input, 1 when the output folder cannot be written,
        3 with ``--fail-on disparity`` when a verdict is ``disparity``, 130 after Ctrl-C (SIGINT), 128 + its
        number after a signal of :data:`ENDING_SIGNALS` (143 after SIGTERM, 129 after SIGHUP).
        ``fairstats monitor`` uses the same codes (3: an alarm is raised; :mod:`fairstats.auditing.monitor`).
    """
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    args.command_line = shlex.join(["fairstats", *argv])  # the report's provenance block
    if args.command == "monitor":
        from fairstats.auditing.monitor import monitor_main

        return monitor_main(args)
    if not args.impact_ratios:
        missing = [option for option, name in _BINARY_REQUIRED if getattr(args, name) is None]
        if missing:
            print(f"fairstats audit: error: the following arguments are required: {', '.join(missing)} "
                  "(see 'fairstats audit --help')", file=sys.stderr)
            return 2
    return _audit_main(args)


#: Signals whose default action ends the process (and that a handler can catch), handled like SIGTERM: the
#: work folder is removed and the run ends with 128 + the signal's number. SIGINT is Ctrl-C
#: (KeyboardInterrupt); SIGPIPE is ignored by Python (a closed pipe is an OSError).
ENDING_SIGNALS = tuple(
    getattr(signal, name)
    for name in (
        "SIGHUP", "SIGTERM", "SIGQUIT", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGXCPU", "SIGXFSZ",
        "SIGVTALRM", "SIGPROF", "SIGIO", "SIGPWR", "SIGSTKFLT",
    )
    if hasattr(signal, name)
)  # fmt: skip


class _Terminated(BaseException):
    """An ending signal, raised in the main thread so that the work folder is removed on the way out."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    raise _Terminated(signum)


def _audit_main(args: argparse.Namespace) -> int:
    prog = "fairstats audit"
    previous = {s: signal.signal(s, _on_signal) for s in ENDING_SIGNALS}
    try:
        if args.task == "regression":  # issue 26: a continuous prediction (--json and --fail-on apply)
            from fairstats.auditing.regression import run_regression

            summary, warned, done = run_regression(args)
        elif args.impact_ratios:  # --fail-on disparity: a category below four fifths
            summary, warned, done = _run_impact(args)
        else:
            options, path, counts, out = _options_iv(args)
            from fairstats.auditing.provenance import report_date

            report_date()  # a bad SOURCE_DATE_EPOCH stops here, before the input is read
            if args.pdf:
                from fairstats.auditing.pdf import find_renderer

                find_renderer()  # before anything is read or written
            summary, warned, done = _run(options, path, counts, out, command=args.command_line, pdf=args.pdf)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; {display_text(repr(str(args.out)))} was not changed", file=sys.stderr)
        return 130
    except _Terminated as stop:
        name = signal.Signals(stop.signum).name
        print(f"{prog}: terminated ({name}); {display_text(repr(str(args.out)))} was not changed",
              file=sys.stderr)  # fmt: skip
        return 128 + stop.signum
    except (AuditError, ValueError, TypeError) as err:
        print(f"{prog}: error: {display_text(one_line(err))}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"{prog}: error: could not write {display_text(repr(str(args.out)))}: "
              f"{display_text(one_line(err))}", file=sys.stderr)  # fmt: skip
        return 1
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    for warning in warned:
        print(f"{prog}: warning: {display_text(warning)}", file=sys.stderr)
    if args.json:
        import json

        print(json.dumps(done.to_dict(), indent=2, ensure_ascii=True, allow_nan=False))
    else:
        print(display_text_lines(summary))
    if args.fail_on == "disparity" and done.has_disparity:
        return EXIT_DISPARITY
    return EXIT_OK


def display_text_lines(text: str) -> str:
    """A multi-line terminal text with each line as display text (no control or bidi character raw)."""
    return "\n".join(display_text(line) for line in text.split("\n"))


def _run(
    options: AuditOptions,
    path: Path,
    counts: bool,
    out: Path,
    *,
    command: str | None = None,
    pdf: bool = False,
) -> tuple[str, tuple[str, ...], object]:
    """``--out`` checked and the input read and checked (nothing written yet); then, in a work folder that
    replaces ``--out`` only when everything succeeded, the audit computed (:func:`fairstats.audit`'s code)
    and saved (``command``: the command line for the report; ``pdf``: also ``report.pdf``)."""
    from dataclasses import replace

    from fairstats.auditing.inputs import Source, read_audit_input
    from fairstats.auditing.result import checked_out, start, write_folder

    target = checked_out(out, (path,))
    data, weight = read_audit_input(path, options, counts=counts)
    started = start(data, weight, options, Source.of_file(path, counts=counts))
    done = {}

    def compute_and_write(folder: Path) -> tuple[str, ...]:
        done["audit"] = replace(started.finish(), command=command)
        return done["audit"].write_into(folder, pdf=pdf)

    notes = write_folder(out, (path,), compute_and_write, target=target)
    return done["audit"].summary(out, notes=notes), started.warned, done["audit"]


def _run_impact(args: argparse.Namespace) -> tuple[str, tuple[str, ...], object]:
    """``fairstats audit --impact-ratios``: options checked, ``--out`` checked, input read, impact ratios
    computed and saved (:mod:`fairstats.auditing.impact`)."""
    from fairstats.auditing.impact import ImpactOptions, read_impact_input, run_impact
    from fairstats.auditing.inputs import Source
    from fairstats.auditing.result import checked_out, write_folder

    _audit_extra_iv()
    if (args.predictions is None) == (args.counts is None):
        raise AuditError("give either PREDICTIONS (one row per person) or --counts FILE, not both or neither")
    binary = (("--y-true", args.y_true), ("--y-score", args.y_score), ("--fold", args.fold),
              ("--margin-ratio", args.margin_ratio), ("--decision-levels", args.decision_levels),
              ("--outcome-levels", args.outcome_levels), ("--search", args.search))  # fmt: skip
    for option, value in binary:
        if value is not None:
            raise AuditError(
                f"{option} belongs to the outcome audit; --impact-ratios compares decisions only (run the "
                "audit without --impact-ratios for the outcome tests)"
            )
    options = ImpactOptions(
        groups=tuple(args.group or ()), decision=args.y_pred, favorable=args.favorable,
        scoring=args.scoring_rate, standard=args.standard, sex=args.sex, race=args.race, date=args.date,
        min_share=args.min_share, missing_as_unknown=args.missing_as_unknown,
        unknown=tuple(args.unknown or ()), alpha=args.alpha,
    )  # fmt: skip
    path, out = Path(args.predictions if args.counts is None else args.counts), Path(args.out)
    target = checked_out(out, (path,))
    data = read_impact_input(path, options, counts=args.counts is not None)
    done = {}

    def compute_and_write(folder: Path) -> tuple[str, ...]:
        done["audit"] = run_impact(data, options, Source.of_file(path, counts=args.counts is not None))
        return done["audit"].write_into(folder)

    write_folder(out, (path,), compute_and_write, target=target)
    return done["audit"].summary(out), (), done["audit"]


#: What `fairstats audit` needs beyond the library: the packages of the ``fairstats[audit]`` extra.
AUDIT_EXTRA = ("matplotlib", "seaborn", "jinja2", "mistune", "tqdm", "confusable_homoglyphs")


def _audit_extra_iv() -> None:
    """Stop before reading anything when the ``[audit]`` extra is missing (find_spec imports nothing)."""
    missing = [name for name in AUDIT_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise AuditError(
            f"the audit needs the packages of the fairstats[audit] extra, missing here: {', '.join(missing)};"
            " install them with: pip install 'fairstats[audit]'"
        )


def _levels_iv(text: str | None, option: str) -> tuple[str, ...] | None:
    """``L1,L2,...`` as a tuple of at least two distinct, non-empty levels (white space around commas
    dropped)."""
    if text is None:
        return None
    levels = tuple(part.strip() for part in text.split(","))
    if any(not part for part in levels):
        raise AuditError(f"{option} {text!r}: an empty level; list the levels separated by commas")
    if len(levels) < 2:
        raise AuditError(f"{option} {text!r}: at least two levels are needed")
    dup = next((v for i, v in enumerate(levels) if v in levels[:i]), None)
    if dup is not None:
        raise AuditError(f"{option} {text!r}: the level {dup!r} is listed twice")
    return levels


def _multi_level_iv(args: argparse.Namespace) -> dict:
    """The levels of a multi-level decision (issue 17 A) as written (``L1,L2,...``); empty for the binary
    audit. Which other options go with them, :class:`AuditOptions` checks."""
    decision = _levels_iv(args.decision_levels, "--decision-levels")
    if decision is None:
        return {"outcome_levels": () if args.outcome_levels else None, "ordered": not args.unordered}
    outcome = None
    if args.fold is None and args.y_score is None and args.favorable is None and args.search is None:
        outcome = _levels_iv(args.outcome_levels, "--outcome-levels")
    return {"decision_levels": decision, "outcome_levels": outcome, "ordered": not args.unordered}


def _options_iv(args: argparse.Namespace) -> tuple[AuditOptions, Path, bool, Path]:
    """The checked options, the input file, whether it is a table of counts, and ``--out``."""
    _audit_extra_iv()
    for option, name in _IMPACT_ONLY:
        if getattr(args, name) not in (None, False):
            raise AuditError(f"{option} belongs to --impact-ratios")
    if (args.predictions is None) == (args.counts is None):
        raise AuditError("give either PREDICTIONS (one row per person) or --counts FILE, not both or neither")
    if args.counts is not None and (args.fold is not None or args.y_score is not None):
        raise AuditError(
            "--counts: --fold and --y-score need one row per person (their tests use each person's fold or "
            "score); audit the rows instead"
        )
    options = AuditOptions(
        groups=tuple(args.group),
        y_true=args.y_true,
        y_pred=args.y_pred,
        y_score=args.y_score,
        fold=args.fold,
        favorable=args.favorable,
        alpha=args.alpha,
        margin=args.margin,
        margin_ratio=args.margin_ratio,
        n_resamples=args.n_resamples,
        seed=args.seed,
        reference=tuple(args.reference or ()),
        comparisons=args.comparisons,
        where=tuple(args.where or ()),
        y_pred_positive=args.y_pred_positive or (),
        y_pred_threshold=args.y_pred_threshold,
        **_multi_level_iv(args),
        **_search_options(args),
    )
    path = Path(args.predictions if args.counts is None else args.counts)
    return options, path, args.counts is not None, Path(args.out)


def _search_options(args: argparse.Namespace) -> dict:
    """The subgroup search's options (none without --search)."""
    given = [o for o, v in (("--search-metrics", args.search_metrics),) if v is not None]
    if args.search is None:
        if given:
            raise AuditError(f"{given[0]} needs --search COL [COL ...]")
        return {}
    return {
        "search": tuple(args.search),
        "search_depth": int(args.search_depth),
        "min_size": int(args.min_size),
        "search_metrics": tuple(dict.fromkeys(args.search_metrics or DEFAULT_SEARCH_METRICS)),
    }


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
