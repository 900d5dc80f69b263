"""The students' entry points: :func:`check` says "right" or "not yet", :func:`solved` holds back a cell that
would show an answer until its exercises are right, :func:`attempt` turns an error into something a check
can explain.

Apart from :mod:`compendium.course.checks` (the kinds of answer and how each is judged) so that
:mod:`compendium.course.answers`, which states the answers in those kinds, and this module import in one
direction only. The exercises answered right in this Python session are remembered here (a lab runs in one
kernel); :func:`forget` clears them (the tests run several labs in one process).
"""

from __future__ import annotations

from collections.abc import Callable

from compendium.course.answers import ANSWERS
from compendium.course.checks import CheckResult, evaluate

__all__ = ["attempt", "check", "forget", "solved"]

_SOLVED: set[str] = set()


def check(exercise: str, answer: object, **settings: object) -> CheckResult:
    """Check a lab exercise against :data:`compendium.course.answers.ANSWERS`, print the verdict line.

    Parameters
    ----------
    exercise : str
        The exercise's number, e.g. ``"1.2"`` (a key of ``ANSWERS``).
    answer : object
        The student's answer: a number, or a letter for multiple choice; ``...`` when not answered yet; the
        exception returned by :func:`attempt`.
    **settings
        The settings of a simulated share (``n=`` the number of simulated data sets, ``seed=`` ...), or of a
        value computed when the check runs; the lab's check cell passes them.

    Returns
    -------
    CheckResult

    Raises
    ------
    KeyError
        ``exercise`` is not an exercise of the course.
    ValueError
        A setting the exercise needs is missing, or one it does not take is given.

    Examples
    --------
    >>> check("1.1", ...).right
    Exercise 1.1: not yet - no answer yet: replace the `...` with your answer
    False
    """
    if exercise not in ANSWERS:
        raise KeyError(f"exercise: {exercise!r} is not an exercise of the course (known: {sorted(ANSWERS)})")
    result = evaluate(exercise, answer, ANSWERS[exercise], **settings)
    if result.right:
        _SOLVED.add(exercise)
    else:
        _SOLVED.discard(exercise)
    print(result.line)
    return result


def solved(*exercises: str) -> bool:
    """Whether every one of ``exercises`` has been checked right in this session; prints why a cell is held
    back when not.

    A lab wraps a cell that would show an exercise's answer (the library's value of what the student
    computes by hand) in ``if solved("1.2", "1.3"):``, so the answer is shown after the check, not before.

    Raises
    ------
    KeyError
        An exercise that is not one of the course (a typo would hold the cell back for ever).
    """
    unknown = [e for e in exercises if e not in ANSWERS]
    if unknown:
        raise KeyError(f"exercises: {unknown[0]!r} is not an exercise of the course")
    missing = [e for e in exercises if e not in _SOLVED]
    if missing:
        print(f"(This cell shows the answer of exercise{'s' if len(missing) > 1 else ''} "
              f"{', '.join(missing)}: it runs once {'they are' if len(missing) > 1 else 'it is'} right.)")
    return not missing


def forget() -> None:
    """Forget which exercises were right (a fresh session)."""
    _SOLVED.clear()


def attempt(function: Callable[..., object], *args: object, **kwargs: object) -> object:
    """``function(*args, **kwargs)``, or the exception it raised (returned, not raised), so that the check
    that follows can say what the error means instead of the cell stopping before it.

    Examples
    --------
    >>> attempt(int, "12"), type(attempt(int, "twelve")).__name__
    (12, 'ValueError')
    """
    try:
        return function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - returned to the check, which names it
        return exc
