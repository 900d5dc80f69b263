"""The exit statuses of the ``fairstats`` command line, one set for every subcommand (``audit``, ``monitor``).

0 done; 1 the output (or state) folder could not be written; 2 bad input or options, one line on stderr and
nothing written; 3 a disparity found (``audit --fail-on disparity`` with a verdict ``disparity``, or a
``monitor`` comparison in ``alarm``), the outputs written as usual; 130 / 143 after SIGINT / SIGTERM.
"""

EXIT_OK = 0
EXIT_WRITE = 1
EXIT_BAD_INPUT = 2
EXIT_DISPARITY = 3
