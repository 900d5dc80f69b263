"""The students' entry point: :func:`check` finds an exercise's answer and says "right" or "not yet".

Apart from :mod:`compendium.course.checks` (the kinds of answer and how each is judged) so that
:mod:`compendium.course.answers`, which states the answers in those kinds, and this module import in one
direction only.
"""

from __future__ import annotations

from compendium.course.answers import ANSWERS
from compendium.course.checks import CheckResult, evaluate

__all__ = ["check"]


def check(exercise: str, answer: object, *, n: int | None = None) -> CheckResult:
    """Check a lab exercise against :data:`compendium.course.answers.ANSWERS`, print the verdict line.

    Parameters
    ----------
    exercise : str
        The exercise's number, e.g. ``"1.2"`` (a key of ``ANSWERS``).
    answer : object
        The student's answer: a number, or a letter for multiple choice; ``...`` when not answered yet.
    n : int, optional
        Number of simulated data sets behind ``answer`` (exercises whose answer is a simulated share only).

    Returns
    -------
    CheckResult

    Raises
    ------
    KeyError
        ``exercise`` is not an exercise of the course.

    Examples
    --------
    >>> check("1.1", ...).right
    Exercise 1.1: not yet - no answer yet: replace the `...` with your answer
    False
    """
    if exercise not in ANSWERS:
        raise KeyError(f"exercise: {exercise!r} is not an exercise of the course (known: {sorted(ANSWERS)})")
    result = evaluate(exercise, answer, ANSWERS[exercise], n=n)
    print(result.line)
    return result

