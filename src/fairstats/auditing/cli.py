"""The ``fairstats`` command line: a thin argparse layer over the one audit.

``fairstats audit PREDICTIONS.csv --group race --y-true y --y-pred p --out audit/`` and ``fairstats monitor
BATCHES... --state monitor/`` take their options from one declaration (:data:`fairstats.auditing.options.
OPTIONS`: which option applies to which task, its check and its help), make the one
:class:`~fairstats.auditing.AuditOptions` (every check there, every message naming the option), and go the one
road every task takes: :func:`fairstats.auditing.inputs.read` -> :func:`fairstats.auditing.result.run` ->
:meth:`~fairstats.auditing.protocol.AuditResult.save` (the monitor:
:func:`fairstats.auditing.monitor.run_monitor`, which shares the input, row and grouping steps). ``python -m
fairstats`` runs it.

Bad input (a missing file or column, NaN, a single group, labels outside the stated set, an option that does
not apply to the task, an ``--out`` holding files the audit did not write) ends with one line
``fairstats audit: error: ...`` and exit status 2; nothing is written: every output is built in a work folder
that replaces ``--out`` only when the whole audit succeeded. Ctrl-C (SIGINT), SIGTERM, SIGHUP and every other
signal whose default ends the process (:data:`ENDING_SIGNALS`) end with one line and exit status 128 + the
signal's number, nothing written. The exit statuses are one table for every subcommand
(:mod:`fairstats.auditing.exits`). Every message printed is display text
(:func:`fairstats._text.display_text`).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import shlex
import signal
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from fairstats._text import display_text
from fairstats._version import __version__
from fairstats.auditing.errors import AuditError
from fairstats.auditing.exits import (
    EXIT_BAD_INPUT,
    EXIT_DISPARITY,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_WRITE,
    exit_status_text,
)
from fairstats.auditing.options import AUDIT_TASKS, OPTIONS, AuditOptions, Option, refuse_inapplicable
from fairstats.auditing.writing import one_line

__all__ = ["EXIT_BAD_INPUT", "EXIT_DISPARITY", "EXIT_OK", "EXIT_WRITE", "AuditError", "build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line: ``<prog>: error: <message> (see '<prog> --help')``."""

    def error(self, message: str) -> None:  # noqa: D401 - argparse's name
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


_AUDIT_DESCRIPTION = """\
Audit predictions for group disparities: one audit, four tasks (--task).

PREDICTIONS is a CSV or parquet file (parquet if the name ends in .parquet or .pq), or a folder of parquet
files, one row per person; or --counts FILE, a table of counts made elsewhere (the columns used and n = people
with each combination; e.g. SELECT race, sex, y, p, COUNT(*) AS n FROM t GROUP BY ALL). Only the columns the
task uses are read, and counted where no test needs each person's row.

tasks:
  decisions (default)  the equal confusion test of each --group column (and, with several, their
                       intersection; paper A): chi-squared, Cramer's V with its interval, adjusted residuals;
                       the outcome disparities (paper B's definitions) of each group against the largest
                       group: difference, 95% interval, test, Holm and Benjamini-Hochberg adjusted p-values,
                       equivalence tests and three-way verdicts; with --fold the corrected resampled t; with
                       --y-score the score tests (AUC, calibration); --decision-levels for a decision with
                       more than two levels; --search for the subgroup search.
  impact_ratios        (--impact-ratios) selection or scoring rates, impact ratios against the most
                       selected category with score intervals, the four-fifths verdicts (NYC Local Law 144's
                       layout with --standard ll144).
  regression           a continuous prediction's errors by group: mean residual, MAE, RMSE, residual
                       distributions.
  comparison           model against model on the same people: --y-pred the new model's decision,
                       --y-pred-baseline the old one's; the change of every disparity (and of accuracy)
                       with the paired delta method (with --fold the corrected resampled t; with --y-score and
                       --y-score-baseline the paired DeLong AUC), Holm, and the verdicts fairer, less fair,
                       equivalent, inconclusive.

Every option says which tasks it applies to; given in another task it is refused (exit status 2).
docs/options.rst lists them all.
"""

_AUDIT_EPILOG = """\
outputs (in DIR):
  report.md, report.html  plain-language report (report.pdf with --pdf), its first section "What was
                          audited": the input, each --where filter with the people it removed, the decision
                          rule and the options given; its date is the time of writing, or SOURCE_DATE_EPOCH
                          (seconds since 1970, UTC) when set, so that two runs write the same bytes
  decisions:              equal_confusion.csv, residuals.csv, tests.csv (one row per comparison: estimate,
                          ci_low, ci_high, statistic, pvalue, pvalue_adj (Holm), pvalue_bh, verdict, ...),
                          with --y-score score_tests.csv and score_groups.csv, with --decision-levels
                          level_tests.csv and ordinal_tests.csv, with --search subgroups.csv; figures
  impact_ratios:          impact_ratios.csv (grouping, category, n, selected, selection_rate, impact_ratio,
                          its interval, z and Fisher p-values, four_fifths, ...), impact_ratios.png
  regression:             regression_tests.csv (mean_residual, mae, rmse, residual_distribution per group:
                          estimate, interval, pvalue, pvalue_adj, verdict, mde, ...), figures
  comparison:             disparity_change.csv (per grouping, group and measure: both models' disparities,
                          the change, its interval, pvalue, pvalue_adj (Holm), verdict; the accuracy
                          family apart); --fail-on disparity exits 3 on a change 'less fair'

DIR must be new, empty, or an earlier audit's folder holding only the files that audit wrote (listed with
their SHA-256 in DIR/.fairstats-audit): only those are ever replaced. Anything else in DIR, a read-only DIR,
or an input file inside DIR is refused. Data values are shown as text in the report (code, escaped); in the
CSV files a text value starting with = + - @ gets a leading apostrophe.

{exits}

examples (COMPAS, favourable outcome = low risk = 0):
  fairstats audit compas.csv --group sex --group race --y-true y_true --y-pred y_pred \\
      --favorable 0 --out compas-audit
  fairstats audit compas.csv --impact-ratios --y-pred score_level --favorable Low \\
      --standard ll144 --sex sex --race race --date compas_screening_date --min-share 0.02 \\
      --out compas-impact
  fairstats audit predictions.csv --task comparison --group race --y-true y --y-pred rf \\
      --y-pred-baseline lr --out rf-vs-lr
"""

_MONITOR_DESCRIPTION = """\
Follow group rate differences batch after batch with anytime-valid confidence sequences: the batch files not
seen before, in name order, into a state folder the monitor owns (monitor.csv, monitor.json, monitor.png); one
line per comparison whose state changed. The rows of every batch go through the audit's own steps: --where
filters, the decision rule (--y-pred-positive, --y-pred-threshold) and the checks of the columns.
"""


def _tasks_of(command: str) -> tuple[str, ...]:
    return ("monitor",) if command == "monitor" else AUDIT_TASKS


def _help(opt: Option, command: str) -> str:
    """The option's help with its default and, for the audit, the tasks it applies to (argparse's %)."""
    text = opt.help
    default = opt.default_in(_tasks_of(command)[0]) if isinstance(opt.default, dict) else opt.default
    if default not in (None, ()) and opt.cli != "flag":
        shown = " ".join(map(str, default)) if isinstance(default, tuple) else default
        text += f" (default: {shown})"
    if opt.needs:
        from fairstats.auditing.options import option

        text += f"; needs {option(opt.needs).flag}"
    if command == "audit" and set(opt.tasks) - {"monitor"} != set(_tasks_of(command)):
        text += " [" + ", ".join(t for t in opt.tasks if t != "monitor") + "]"
    return text.replace("%", "%%").replace("%%%%", "%%")


def _add(parser: argparse.ArgumentParser, groups: dict, opt: Option, command: str, *, shown: bool) -> None:
    target = groups.get(opt.section, parser)
    kwargs: dict = {"help": _help(opt, command) if shown else argparse.SUPPRESS, "default": None}
    if opt.cli == "positional":
        target.add_argument(opt.name, metavar=opt.metavar, nargs="?" if command == "audit" else "+",
                            help=kwargs["help"])  # fmt: skip
        return
    if opt.cli == "flag":
        kwargs.update(action="store_const", const=opt.flag_value)
    elif opt.cli == "append":
        kwargs.update(action="append", metavar=opt.metavar)
    elif opt.cli == "nargs":
        kwargs.update(nargs="+", metavar=opt.metavar)
    else:
        kwargs.update(metavar=opt.metavar)
        if opt.choices:
            kwargs.update(choices=opt.choices, metavar=None)
    if opt.name in ("out", "state") and shown:
        kwargs["required"] = True
    target.add_argument(opt.flag, dest=opt.name, **kwargs)


def _subcommand(sub, command: str, **kwargs) -> argparse.ArgumentParser:
    """A subcommand with every option of the declaration: those of its tasks in its help, the others read
    but hidden, so that the declaration refuses them with its own message (naming the option and the task)."""
    parser = sub.add_parser(command, formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)
    groups: dict = {}
    tasks = set(_tasks_of(command))
    for opt in OPTIONS:
        if opt.cli == "positional" and not set(opt.tasks) <= tasks:
            continue
        if not opt.flag and opt.cli != "positional":  # a keyword of fairstats.audit only (margin_v)
            continue
        if opt.section != "options" and opt.section not in groups and tasks & set(opt.tasks):
            groups[opt.section] = parser.add_argument_group(opt.section)
        _add(parser, groups, opt, command, shown=bool(tasks & set(opt.tasks)))
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The ``fairstats`` argument parser (subcommands ``audit`` and ``monitor``), made from
    :data:`~fairstats.auditing.options.OPTIONS`."""
    parser = _Parser(
        prog="fairstats",
        description="fairstats: is this group disparity real, or chance? Statistical fairness tests.",
        epilog=exit_status_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"fairstats {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    epilog = _AUDIT_EPILOG.format(exits=exit_status_text())
    _subcommand(sub, "audit", help="audit predictions for group disparities (tables, figures, report)",
                description=_AUDIT_DESCRIPTION, epilog=epilog)  # fmt: skip
    _subcommand(sub, "monitor", help="follow group rate differences batch after batch (anytime-valid)",
                description=_MONITOR_DESCRIPTION, epilog=exit_status_text())  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``fairstats`` command line; return the exit status (:mod:`fairstats.auditing.exits`).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 done, 1 the output could not be written, 2 bad input or options, 3 a disparity found with
        ``--fail-on disparity``, 128 + a signal's number after an ending signal (130 after Ctrl-C), for every
        subcommand (:data:`fairstats.auditing.exits.EXIT_STATUSES`).
    """
    parser = build_parser()
    argv_given = argv
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_BAD_INPUT)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    command_line = shlex.join(["fairstats", *argv])  # the report's provenance block
    prog = f"fairstats {args.command}"
    args.whole_process = whole_process = argv_given is None
    if whole_process:
        gc.freeze()  # the modules imported so far live to the end: out of the collector's way (issue 37)
    run = _audit if args.command == "audit" else _monitor
    target = args.out if args.command == "audit" else args.state
    return _guarded(prog, str(target), partial(run, args, command_line))


#: Signals whose default action ends the process (and that a handler can catch), handled like SIGTERM: the
#: work folder is removed and the run ends with 128 + the signal's number. SIGINT is Ctrl-C
#: (KeyboardInterrupt); SIGPIPE is ignored by Python (a closed pipe is an OSError, which ends only the
#: printing of a summary: :func:`~fairstats.auditing.writing.print_out`).
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


def _guarded(prog: str, target: str, run: Callable[[], int]) -> int:
    """``run()`` with the ending signals caught and every error as one line and its exit status."""
    previous = {s: signal.signal(s, _on_signal) for s in ENDING_SIGNALS}
    shown = display_text(repr(target))
    try:
        return run()
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; {shown} was not changed", file=sys.stderr)
        return EXIT_INTERRUPTED
    except _Terminated as stop:
        name = signal.Signals(stop.signum).name
        print(f"{prog}: terminated ({name}); {shown} was not changed", file=sys.stderr)
        return 128 + stop.signum
    except (AuditError, ValueError, TypeError) as err:
        print(f"{prog}: error: {display_text(one_line(err))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as err:
        print(f"{prog}: error: could not write {shown}: {display_text(one_line(err))}", file=sys.stderr)
        return EXIT_WRITE
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _given(args: argparse.Namespace) -> dict[str, object]:
    """The options given on the command line (argparse leaves every other at None), by keyword."""
    return {opt.name: getattr(args, opt.name) for opt in OPTIONS
            if getattr(args, opt.name, None) is not None}  # fmt: skip


def _task(given: dict[str, object]) -> str:
    task = str(given.get("task", "decisions"))
    if given.get("impact_ratios"):
        if task not in ("decisions", "impact_ratios") or "task" in given and task != "impact_ratios":
            raise AuditError(f"--impact-ratios is --task impact_ratios; it cannot go with --task {task}")
        task = "impact_ratios"
    return task


def checked_options(task: str, given: dict[str, object]) -> AuditOptions:
    """The options of ``task`` from the command line's ``given`` options: every one checked against the
    declaration (the run's own options, such as ``--out`` or ``--pdf``, too)."""
    from fairstats.auditing.options import option

    refuse_inapplicable(task, given)
    return AuditOptions.of(task, **{k: v for k, v in given.items() if option(k).attribute})


#: What the audit needs beyond the library: the packages of the ``fairstats[audit]`` extra.
AUDIT_EXTRA = ("matplotlib", "seaborn", "jinja2", "mistune", "tqdm", "confusable_homoglyphs")


def _audit_extra_iv() -> None:
    """Stop before reading anything when the ``[audit]`` extra is missing (find_spec imports nothing)."""
    missing = [name for name in AUDIT_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise AuditError(
            f"the audit needs the packages of the fairstats[audit] extra, missing here: {', '.join(missing)};"
            " install them with: pip install 'fairstats[audit]'"
        )


def _audit(args: argparse.Namespace, command_line: str) -> int:
    """``fairstats audit``: options, ``--out`` checked, input read, the one road, the folder written."""
    from fairstats.auditing.folder import checked_out, write_folder
    from fairstats.auditing.inputs import read
    from fairstats.auditing.provenance import report_date
    from fairstats.auditing.result import run

    given = _given(args)
    task = _task(given)
    options = checked_options(task, given)
    _audit_extra_iv()
    if (args.predictions is None) == (args.counts is None):
        raise AuditError("give either PREDICTIONS (one row per person) or --counts FILE, not both or neither")
    report_date()  # a bad SOURCE_DATE_EPOCH stops here, before the input is read
    pdf = bool(args.pdf)
    if pdf:
        from fairstats.auditing.pdf import find_renderer

        find_renderer()  # before anything is read or written
    path, out = Path(args.predictions if args.counts is None else args.counts), Path(args.out)
    target = checked_out(out, (path,))
    found = read(path, options, counts=args.counts is not None)  # bad input stops here, nothing written
    done = {}

    def compute_and_write(folder: Path) -> tuple[str, ...]:  # in the work folder: an interrupt leaves nothing
        done["audit"] = run(found, options, command=command_line)
        if args.whole_process:
            _ready_to_draw()
        return done["audit"].write_into(folder, pdf=pdf)

    notes = write_folder(out, (path,), compute_and_write, target=target)
    done = done["audit"]
    for warning in done.warnings:
        print(f"fairstats audit: warning: {display_text(warning)}", file=sys.stderr)
    _print(done.to_dict() if args.json else done.summary(out, notes=notes))
    return EXIT_DISPARITY if args.fail_on == "disparity" and done.has_disparity else EXIT_OK


def _ready_to_draw() -> None:
    """The command line's own process, its audit done: the figures' modules imported and styled (every
    task draws figures) and, with the audit, put out of the cyclic garbage collector's way (``gc.freeze``):
    they live to the end of the process. The collector is paused while the folder is written
    (:func:`~fairstats.auditing.folder.collector_paused`); the freeze keeps these objects out of the
    collections outside the write, once the collector is back on and as the process ends. With the pause in
    place it still shortens the COMPAS run by sex and race: median 2.95 s against 3.09 s, ten paired runs
    (issue 37)."""
    from fairstats.auditing.writing import set_style

    set_style()
    gc.freeze()


def _monitor(args: argparse.Namespace, command_line: str) -> int:  # noqa: ARG001 - one signature for both
    """``fairstats monitor``: options checked as the audit's, then the batches into the state."""
    from fairstats.auditing.monitor import run_monitor

    given = _given(args)
    options = checked_options("monitor", given)
    return run_monitor(options, batches=[Path(p) for p in args.batches], state=Path(args.state),
                       json=bool(args.json), fail_on=args.fail_on)  # fmt: skip


def _print(shown: object) -> None:
    """A summary text, or a ``--json`` dict, on standard output
    (:func:`~fairstats.auditing.writing.print_out`)."""
    from fairstats.auditing.writing import print_out

    if isinstance(shown, dict):
        import json

        print_out(json.dumps(shown, indent=2, ensure_ascii=True, allow_nan=False))
    else:
        print_out(display_text_lines(str(shown)))


def display_text_lines(text: str) -> str:
    """A multi-line terminal text with each line as display text (no control or bidi character raw)."""
    return "\n".join(display_text(line) for line in text.split("\n"))



if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
