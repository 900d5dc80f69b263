"""What a bad audit input raises or warns: :class:`AuditError` (one line, exit status 2) and the warnings."""

from __future__ import annotations

__all__ = ["AuditError", "GroupWhitespaceWarning"]


class AuditError(ValueError):
    """Bad input to the audit: the message is one line (the CLI prints it and exits with status 2)."""


class GroupWhitespaceWarning(UserWarning):
    """Group values that differ only in surrounding white space (``" Male"``, ``"Male"``): separate groups."""
