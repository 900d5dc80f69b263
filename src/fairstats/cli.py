"""The old home of the command line, kept so that console scripts installed before the wing keep working.

The command line lives in :mod:`fairstats.auditing.cli` (``pyproject.toml`` points ``fairstats`` there);
``python -m fairstats`` runs it too. This module only forwards :func:`main`.
"""

from fairstats.auditing.cli import main

__all__ = ["main"]
