"""Data strings as plain text on one line: shared by the statistics' figures and the audit's report.

A low-level module (it imports nothing of fairstats), so that a statistics module (e.g. the subgroup search's
figure) and the audit application (:mod:`fairstats.auditing`) show a data string the same way without the
statistics importing the application.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["figure_text", "visible"]


def visible(text: object) -> str:
    """``text`` on one line: line breaks shown as ``⏎``, other control characters as ``\\xNN`` escapes."""
    text = str(text)
    if text.isprintable():  # no control character, no line or paragraph separator: nothing to show
        return text
    out = []
    for ch in re.sub(r"\r\n|\r|\n|\u2028|\u2029|\x85", "\u23ce", text):
        out.append(ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) == "Cc" else ch)
    return "".join(out)


def figure_text(text: object) -> str:
    """A data string as figure text: one line, no matplotlib mathtext (``$`` escaped), <= 60 characters."""
    shown = visible(text).replace("$", r"\$")
    return shown if len(shown) <= 60 else shown[:59] + "…"
