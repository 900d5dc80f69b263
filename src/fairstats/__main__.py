"""``python -m fairstats``: the command line (:func:`fairstats.auditing.cli.main`)."""

import sys

from fairstats.auditing.cli import main

sys.exit(main())
