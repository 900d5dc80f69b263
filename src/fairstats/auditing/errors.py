"""What a bad audit input raises or warns: :class:`AuditError` (one line, exit status 2) and the warnings.

:class:`PdfRendererError` (an :class:`AuditError`): the PDF was asked for and no renderer is installed.
"""

from __future__ import annotations

from fairstats._warnings import DuplicateColumnWarning, GroupLookalikeWarning, GroupWhitespaceWarning

__all__ = [
    "INPUT_WARNINGS",
    "AuditError",
    "DuplicateColumnWarning",
    "GroupLookalikeWarning",
    "GroupWhitespaceWarning",
    "PdfRendererError",
]


class AuditError(ValueError):
    """Bad input to the audit: the message is one line (the CLI prints it and exits with status 2)."""


class PdfRendererError(AuditError):
    """``--pdf`` / ``save(pdf=True)`` without a headless Chromium to print the report (one line, exit 2)."""


#: The warnings about the input that the audit keeps as notes of its report and the CLI prints on stderr.
INPUT_WARNINGS = (GroupWhitespaceWarning, GroupLookalikeWarning, DuplicateColumnWarning)
