"""Where a report came from: the input's SHA-256, the command or call, the date, the versions, the seed.

The date is the only value that changes from run to run, and it appears in the report only (never in a CSV
file). It is the time of writing, or ``SOURCE_DATE_EPOCH`` when that environment variable is set (seconds
since 1970-01-01 UTC, the reproducible-builds convention, https://reproducible-builds.org/specs/source-date-epoch/):
with it, two runs on the same input write byte-identical reports.
"""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from fairstats._version import __version__
from fairstats.auditing.errors import AuditError
from fairstats.auditing.writing import file_sha256

__all__ = ["DEPENDENCIES", "input_hashes", "report_date", "versions"]

#: The packages whose versions the provenance block lists (those the audit's numbers and report depend on).
DEPENDENCIES = ("numpy", "scipy", "pandas", "statsmodels", "narwhals", "duckdb", "pyarrow", "matplotlib",
                "seaborn", "jinja2")  # fmt: skip

#: A folder input lists at most this many files' hashes.
_MAX_FILES = 50


def report_date(now: datetime | None = None) -> str:
    """The report's date, ``YYYY-MM-DD HH:MM:SS UTC``: ``SOURCE_DATE_EPOCH`` if set, else ``now`` (default:
    the current time).

    Raises
    ------
    AuditError
        ``SOURCE_DATE_EPOCH`` is set but not a whole number of seconds (ASCII digits, a date before the year
        10000).
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None:
        text = epoch.strip()
        try:
            if not (text.isascii() and text.isdigit()):  # "²" and "١" are digits to str.isdigit, not to int
                raise ValueError(text)
            when = datetime.fromtimestamp(int(text), tz=UTC)
        except (ValueError, OverflowError, OSError):  # not digits, or past the year 9999
            raise AuditError(
                f"SOURCE_DATE_EPOCH={epoch!r} is not a whole number of seconds since 1970-01-01 UTC (up to "
                "the year 9999)"
            ) from None
    else:
        when = (now or datetime.now(tz=UTC)).astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")


def input_hashes(path: Path | None) -> tuple[list[tuple[str, str]], str]:
    """``([(file name, SHA-256), ...], more)`` of the input: the file, or each file of a folder (sorted by
    relative path; ``more`` says how many were left out); ``([], "")`` for a data frame in memory."""
    if path is None:
        return [], ""
    if path.is_file():
        return [(path.name, file_sha256(path))], ""
    files = sorted(p for p in path.rglob("*") if p.is_file())
    shown = [(p.relative_to(path).as_posix(), file_sha256(p)) for p in files[:_MAX_FILES]]
    more = f"… and {len(files) - _MAX_FILES:,} more files" if len(files) > _MAX_FILES else ""
    return shown, more


def versions() -> list[tuple[str, str]]:
    """``[(name, version), ...]``: Python, fairstats and :data:`DEPENDENCIES` (``not installed`` if so)."""
    out = [("Python", platform.python_version()), ("fairstats", __version__)]
    for name in DEPENDENCIES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return out
