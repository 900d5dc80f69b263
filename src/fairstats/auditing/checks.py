"""The checks of the audit's option values, each written once: a value in, the checked value out, or a
``ValueError``/``TypeError`` whose wording the option's message completes (``--alpha: must be ...``).

:mod:`fairstats.auditing.options` declares which check each option takes; the command line
(:mod:`fairstats.auditing.cli`) and :func:`fairstats.audit` reach them only through it, so a bound and its
wording live here and nowhere else.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "MAX_RESAMPLES",
    "MIN_RESAMPLES",
    "check_column",
    "check_columns",
    "check_date_format",
    "check_depth",
    "check_flag",
    "check_label",
    "check_labels",
    "check_level",
    "check_levels",
    "check_min_size",
    "check_number",
    "check_positive",
    "check_predicates",
    "check_resamples",
    "check_seed",
]

#: Bounds of ``n_resamples`` (``--n-resamples``): fewer resamples give no usable 95% interval or permutation
#: p-value; more than the maximum take hours and gigabytes without changing the result.
MIN_RESAMPLES = 99
MAX_RESAMPLES = 1_000_000


def _shown(value: object) -> str:
    """A value as a message quotes it: short, one line."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_level(value: object) -> float:
    """A level (``alpha``, ``margin``, ``margin_ratio``, ``min_share``) strictly between 0 and 1."""
    if isinstance(value, bool):
        raise TypeError(f"must be a number between 0 and 1, got {_shown(value)}")
    try:
        level = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"must be a number between 0 and 1, got {_shown(value)}") from None
    if not 0 < level < 1:
        raise ValueError(f"must be strictly between 0 and 1, got {_shown(value)}")
    return level


def check_number(value: object) -> float:
    """A finite number (a threshold)."""
    if isinstance(value, bool):
        raise TypeError(f"must be a number, got {_shown(value)}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"must be a number, got {_shown(value)}") from None
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, got {_shown(value)}")
    return number


def check_positive(value: object) -> float:
    """A positive finite number (a margin in the unit of the outcome)."""
    number = check_number(value)
    if number <= 0:
        raise ValueError(f"must be a positive finite number, got {_shown(value)}")
    return number


def _integer(value: object) -> int:
    if isinstance(value, bool):
        raise TypeError(value)
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if hasattr(value, "__index__"):
        return int(value.__index__())  # type: ignore[union-attr]
    raise TypeError(value)


def _whole(value: object, low: int, high: int | None, words: str) -> int:
    try:
        number = _integer(value)
    except (TypeError, ValueError):
        raise TypeError(f"must be {words}, got {_shown(value)}") from None
    if number < low or (high is not None and number > high):
        raise ValueError(f"must be {words}, got {_shown(value)}")
    return number


def check_resamples(value: object) -> int:
    """``n_resamples`` from :data:`MIN_RESAMPLES` to :data:`MAX_RESAMPLES`."""
    return _whole(
        value, MIN_RESAMPLES, MAX_RESAMPLES,
        f"an integer from {MIN_RESAMPLES} to {MAX_RESAMPLES:,} (fewer give no usable interval, more take "
        "hours and gigabytes)",
    )  # fmt: skip


def check_seed(value: object) -> int:
    """``rng`` (``--seed``): a non-negative integer. Not a :class:`numpy.random.Generator`: the audit derives
    one stream per task and grouping from the seed and records it in the report, so that the run can be
    repeated; a Generator's state cannot be written there."""
    if isinstance(value, np.random.Generator | np.random.BitGenerator | np.random.SeedSequence):
        raise TypeError(
            f"must be a non-negative integer, got a {type(value).__name__}: the audit derives its streams "
            "from one integer seed and records it in the report, so that the run can be repeated"
        )
    return _whole(value, 0, None, "a non-negative integer")


def check_depth(value: object) -> int:
    """``search_depth``: 1, 2 or 3."""
    return _whole(value, 1, 3, "1, 2 or 3")


def check_min_size(value: object) -> int:
    """``min_size``: a positive integer."""
    return _whole(value, 1, None, "a positive integer (at least 1)")


def check_flag(value: object) -> bool:
    """A yes/no option: ``True`` or ``False`` (not a string, not a number)."""
    if not isinstance(value, bool):
        raise TypeError(f"must be True or False, got {_shown(value)}")
    return value


def check_column(value: object) -> str:
    """A column name: non-empty text."""
    if not isinstance(value, str):
        raise TypeError(f"must be a column name (text), got {type(value).__name__} {_shown(value)}")
    if not value:
        raise ValueError("must be a column name, got an empty name")
    return value


def check_columns(value: object) -> tuple[str, ...]:
    """Column names: one name, or a list of names, each given once."""
    names = _sequence(value, "a column name or a list of column names")
    checked = tuple(check_column(v) for v in names)
    if not checked:
        raise ValueError("give at least one column")
    dup = next((c for i, c in enumerate(checked) if c in checked[:i]), None)
    if dup is not None:
        raise ValueError(f"{dup!r} is given twice")
    return checked


def check_label(value: object) -> str:
    """A label as the data write it (text; a number or a boolean is taken as its text, ``1`` as ``"1"``)."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, str):
        return value
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return str(int(value)) if float(value).is_integer() else str(value)
    if hasattr(value, "item") and not isinstance(value, bytes | bytearray):  # a numpy scalar
        return check_label(value.item())  # type: ignore[union-attr]
    raise TypeError(f"must be a label (text or a number), got {type(value).__name__} {_shown(value)}")


def check_labels(value: object, *, word: str = "label") -> tuple[str, ...]:
    """Labels: a list, or one text with the labels separated by commas (``"Medium,High"``)."""
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    labels = tuple(check_label(v) for v in _sequence(value, f"{word}s: a list, or text 'A,B'"))
    if any(not label for label in labels):
        raise ValueError(f"an empty {word} in {_shown(list(labels))}")
    dup = next((v for i, v in enumerate(labels) if v in labels[:i]), None)
    if dup is not None:
        raise ValueError(f"the {word} {dup!r} is listed twice")
    return labels


def check_levels(value: object) -> tuple[str, ...]:
    """Levels of a decision or outcome: two or more distinct labels (a list, or ``"Low,Medium,High"``)."""
    levels = check_labels(value, word="level")
    if len(levels) < 2:
        raise ValueError(f"at least two levels are needed, got {_shown(list(levels))}")
    return levels


def check_predicates(value: object) -> tuple[str, ...]:
    """SQL predicates: one text, or a list of texts, none empty (what they may hold,
    :mod:`fairstats._where` checks against the data's columns)."""
    predicates = _sequence(value, "a SQL predicate (text) or a list of them")
    for predicate in predicates:
        if not isinstance(predicate, str):
            raise TypeError(
                f"each predicate must be text, got {type(predicate).__name__} {_shown(predicate)}"
            )
        if not predicate.strip():
            raise ValueError(f"an empty predicate in {_shown(list(predicates))}")
    return tuple(predicates)


def check_date_format(value: object) -> str:
    """How dates are written, in ``strftime`` codes (``%d/%m/%Y``): text that formats a date and reads it
    back as the same day."""
    from datetime import datetime

    if not isinstance(value, str):
        raise TypeError(f"must be a date format such as '%d/%m/%Y' (text), got {type(value).__name__} "
                        f"{_shown(value)}")  # fmt: skip
    day = datetime(2021, 3, 4)  # day, month and year all different: a format that loses one is caught
    try:
        back = datetime.strptime(day.strftime(value), value)
    except ValueError:
        back = None
    if "%" not in value or back is None or back.date() != day.date():
        raise ValueError(
            f"must give the day, month and year in strftime codes, e.g. '%d/%m/%Y' or '%Y%m%d', got "
            f"{_shown(value)}"
        )
    return value


def _sequence(value: object, words: str) -> tuple:
    """One value or a list/tuple of values as a tuple; bytes, sets, dicts and other iterables refused."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(value)
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return tuple(value)
    raise TypeError(f"must be {words}, got {type(value).__name__} {_shown(value)}")
