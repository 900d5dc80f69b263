"""``SOURCE_DATE_EPOCH`` must not stop ``import fairstats``: only a command that writes a report reads it.

numpy's ``numpy.f2py`` reads ``SOURCE_DATE_EPOCH`` with ``int()`` and ``time.gmtime`` when it is imported,
and raises on any other text or on a time past the platform's range (numpy 2.x, ``numpy/f2py/rules.py``);
scipy imports it whenever scipy is imported (its array-API layer copies ``numpy.*``). A malformed value would
therefore crash ``import fairstats``, and with it ``fairstats --version`` and ``--help``. Importing this
module (the first thing ``import fairstats`` does) imports ``numpy.f2py`` once with the variable hidden,
when (and only when) those would raise; the value stays in the environment, where
:func:`fairstats.auditing.provenance.report_date` refuses it for the commands that write a report (one line,
exit status 2).
"""

from __future__ import annotations

import os
import time

__all__ = ["import_numpy_f2py"]

_NAME = "SOURCE_DATE_EPOCH"


def import_numpy_f2py() -> None:
    """Import ``numpy.f2py`` with a malformed ``SOURCE_DATE_EPOCH`` hidden from it (nothing otherwise)."""
    value = os.environ.get(_NAME)
    if value is None:
        return
    try:
        time.gmtime(int(value))  # what numpy.f2py does with it
    except (ValueError, OverflowError, OSError):
        pass
    else:
        return
    del os.environ[_NAME]
    try:
        import numpy.f2py  # noqa: F401 - imported for its side effect only (see the module)
    finally:
        os.environ[_NAME] = value


import_numpy_f2py()
