"""Remembered answers of pure numerical solves (statsmodels' power solver and score tests).

An audit of many small groups asks statsmodels the same question again and again: the detectable effect at
the same two sizes, the score test of the same four counts (2,000 groups of 10 people hold only a few
dozen distinct (count, size) pairs). :func:`remembered` keeps each answer, keyed by the exact arguments,
so a repeated question costs a dictionary look-up and gives the identical number. The warnings the first
call raised are kept with the answer and raised again at every call, and so is an exception (statsmodels'
interval root finder fails for half the comparisons of tiny groups): a caller sees the same warnings and
errors with or without the memory.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Callable
from typing import TypeVar

__all__ = ["remembered"]

T = TypeVar("T")

#: Answers kept per function (least recently used dropped first): about 10 MiB at most for the largest
#: answers kept (an EquivalenceResult with its method text), far more distinct questions than an audit asks
#: when its groups are small (the case this is for).
MAXSIZE = 8_192


def remembered(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` (a pure function of hashable positional arguments) with its answers and warnings kept."""

    @functools.lru_cache(maxsize=MAXSIZE)
    def stored(*args: object) -> tuple[object, Exception | None, tuple[tuple[object, type], ...]]:
        value, error = None, None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = fn(*args)
            except Exception as err:  # noqa: BLE001 - kept and raised again at every call
                error = err.with_traceback(None)
        return value, error, tuple((w.message, w.category) for w in caught)

    @functools.wraps(fn)
    def wrapper(*args: object) -> T:
        value, error, caught = stored(*args)
        for message, category in caught:
            warnings.warn(message, category, stacklevel=2)
        if error is not None:
            raise copy.copy(error)
        return value  # type: ignore[return-value]

    wrapper.cache_info = stored.cache_info  # type: ignore[attr-defined]
    wrapper.cache_clear = stored.cache_clear  # type: ignore[attr-defined]
    return wrapper
