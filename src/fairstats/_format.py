"""Values as text: a numpy scalar in a message, a p-value in a report, a data string in a figure.

:func:`plain` turns a numpy scalar into the Python value it holds (messages read ``2``, not ``np.int64(2)``),
:func:`json_value` into one JSON holds (NaN as None);
:func:`pvalue_text` and :func:`pvalue_relation` are how every report and summary prints a p-value. One
definition each (``tests/library/test_one_definition.py`` fails on a second ``_plain``).

Figure text: one line, every hidden character visible, short; shown by matplotlib as text. A low-level
module (it imports only numpy and :mod:`fairstats._text`), so that a statistics module (e.g. the subgroup
search's figure) and the audit application (:mod:`fairstats.auditing`) show a data string the same way
without the statistics importing the application. Display text itself is :func:`fairstats._text.display_text`
(the one function for every output); figures pass it to matplotlib with ``parse_math=False``
(:data:`PLAIN`), so ``$...$`` in a value is shown as written, never as mathtext.
"""

from __future__ import annotations

import numpy as np

from fairstats._text import display_text

__all__ = ["PLAIN", "figure_text", "json_records", "json_value", "plain", "pvalue_relation", "pvalue_text"]

#: matplotlib text properties that show a string as written (no mathtext): pass to every call that sets a
#: label, title or tick label holding data (``ax.set_title(figure_text(v), **PLAIN)``).
PLAIN = {"parse_math": False}


def figure_text(text: object) -> str:
    """A data string as figure text: :func:`~fairstats._text.display_text`, at most 60 characters.

    Show it with :data:`PLAIN` (``parse_math=False``): the ``$`` of a value is then a dollar sign.
    """
    shown = display_text(text)
    return shown if len(shown) <= 60 else shown[:59] + "…"


def plain(value: object) -> object:
    """numpy scalar -> Python scalar, so that messages read ``2`` rather than ``np.int64(2)``."""
    return value.item() if isinstance(value, np.generic) else value


def json_value(value: object) -> object:
    """:func:`plain`, with NaN and the infinities as None: a value JSON holds (``--json``, ``to_dict``)."""
    value = plain(value)
    return None if isinstance(value, float) and not np.isfinite(value) else value


def json_records(frame, columns) -> list[dict]:
    """The rows of a data frame as JSON objects of those of ``columns`` it has (in that order)."""
    kept = [c for c in columns if c in frame.columns]
    return [{c: json_value(v) for c, v in row.items()} for row in frame[kept].to_dict(orient="records")]


def pvalue_text(p: float) -> str:
    """``"n/a"`` (NaN or infinite), ``"< 0.001"``, or three decimals (``"0.042"``)."""
    if not np.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def pvalue_relation(p: float) -> str:
    """:func:`pvalue_text` to follow a ``p``: ``"< 0.001"``, ``"= 0.042"`` or ``"n/a"``."""
    text = pvalue_text(p)
    return text if text.startswith(("<", "n/a")) else f"= {text}"
