"""What a bad audit input raises or warns: :class:`AuditError` (one line, exit status 2) and the warnings.

:class:`PdfRendererError` (an :class:`AuditError`): the PDF was asked for and no renderer is installed.
"""

from __future__ import annotations

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


class GroupWhitespaceWarning(UserWarning):
    """Group values that differ only in surrounding white space (``" Male"``, ``"Male"``): separate groups."""


class GroupLookalikeWarning(UserWarning):
    """Group values that display alike (``male`` and ``male`` + U+200B, ``José`` in NFC and NFD, Latin ``a``
    and Cyrillic ``а``): separate groups, both named as escaped text
    (:func:`fairstats._text.lookalike_pairs`)."""


class DuplicateColumnWarning(UserWarning):
    """The input names a column more than once: identical copies (the first is used), or differing copies of
    a column the audit does not use. Differing copies of a used column are refused (:class:`AuditError`)."""


#: The warnings about the input that the audit keeps as notes of its report and the CLI prints on stderr.
INPUT_WARNINGS = (GroupWhitespaceWarning, GroupLookalikeWarning, DuplicateColumnWarning)
