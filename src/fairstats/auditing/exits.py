"""The exit statuses of the ``fairstats`` command line: one table for every subcommand and its help.

:data:`EXIT_STATUSES` is the table; ``fairstats --help``, ``fairstats audit --help`` and
``fairstats monitor --help`` print it (:func:`exit_status_text`), and :mod:`fairstats.auditing.cli` returns
these
numbers only.
"""

EXIT_OK = 0
EXIT_WRITE = 1
EXIT_BAD_INPUT = 2
EXIT_DISPARITY = 3
EXIT_INTERRUPTED = 130

#: (status, meaning), for every subcommand.
EXIT_STATUSES = (
    (EXIT_OK, "done (with --fail-on disparity: no disparity found)"),
    (EXIT_WRITE, "the output folder (the monitor: its state) could not be written"),
    (EXIT_BAD_INPUT, "bad input or options: one line on stderr, nothing written"),
    (EXIT_DISPARITY, "--fail-on disparity was given and a disparity was found (impact ratios: a category "
     "below 4/5; model against model: a disparity 'less fair'; the monitor: a comparison in alarm); "
     "the outputs are written"),
    (EXIT_INTERRUPTED, "Ctrl-C (SIGINT); 128 + its number after another ending signal (143: SIGTERM, 129: "
     "SIGHUP); nothing written"),
)


def exit_status_text() -> str:
    """The table as the help prints it."""
    lines = ["exit status:"]
    lines += [f"  {status:<4} {meaning}" for status, meaning in EXIT_STATUSES]
    return "\n".join(lines)
