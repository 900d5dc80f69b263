"""Data strings as figure text: one line, every hidden character visible, short; shown by matplotlib as text.

A low-level module (it imports only :mod:`fairstats._text`), so that a statistics module (e.g. the subgroup
search's figure) and the audit application (:mod:`fairstats.auditing`) show a data string the same way
without the statistics importing the application. Display text itself is :func:`fairstats._text.display_text`
(the one function for every output); figures pass it to matplotlib with ``parse_math=False``
(:data:`PLAIN`), so ``$...$`` in a value is shown as written, never as mathtext.
"""

from __future__ import annotations

from fairstats._text import display_text

__all__ = ["PLAIN", "figure_text"]

#: matplotlib text properties that show a string as written (no mathtext): pass to every call that sets a
#: label, title or tick label holding data (``ax.set_title(figure_text(v), **PLAIN)``).
PLAIN = {"parse_math": False}


def figure_text(text: object) -> str:
    """A data string as figure text: :func:`~fairstats._text.display_text`, at most 60 characters.

    Show it with :data:`PLAIN` (``parse_math=False``): the ``$`` of a value is then a dollar sign.
    """
    shown = display_text(text)
    return shown if len(shown) <= 60 else shown[:59] + "…"
