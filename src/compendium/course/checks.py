"""Self-checks of the course labs: "right", or "not yet" with a hint, never the answer.

Each exercise of a lab ends with a call such as ``check("1.2", chi2)``. The expected answer is looked up in
:data:`compendium.course.answers.ANSWERS` (a constant with its provenance) and compared:

* :class:`Number`: an absolute/relative tolerance around the expected value (``numpy.isclose`` semantics,
  ``|answer - value| <= atol + rtol * |value|``);
* :class:`Proportion`: a share estimated by simulation; the tolerance grows with the Monte Carlo error of the
  student's own simulation of ``n`` data sets, ``4 sqrt(p (1 - p) / n) + 2 / n`` around the reference value
  ``p`` (so the instructor test, run with few data sets, still checks the answer, only more loosely);
* :class:`Choice`: multiple choice, one letter; each wrong letter has its own hint (what that answer reveals).

A check prints one line, ``Exercise 1.2: right`` or ``Exercise 1.2: not yet - <hint>``, and returns a
:class:`CheckResult`. A placeholder ``...`` (the student notebooks' stub), ``None``, a wrong type or a
non-finite number is "not yet": no check passes on an empty answer. Hints are written so that they point at
the step, not at the number.

:mod:`compendium.course.executed` reads these lines back from an executed notebook.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["CheckResult", "Choice", "Number", "Proportion", "evaluate"]

RIGHT = "right"
NOT_YET = "not yet"
_EMPTY_HINT = "no answer yet: replace the `...` with your answer"


@dataclass(frozen=True)
class Number:
    """A numeric answer computed from the data, with its tolerance and where the value comes from.

    Attributes
    ----------
    value : float
        The expected answer (full precision, never rounded).
    hint : str
        Shown with "not yet"; names the step to re-check, never the value.
    source : str
        Provenance: the call that produced ``value`` (and on which data), or the paper and table.
    atol, rtol : float
        Accepted if ``|answer - value| <= atol + rtol * |value|``.
    """

    value: float
    hint: str
    source: str
    atol: float = 0.0
    rtol: float = 1e-6


@dataclass(frozen=True)
class Proportion:
    """A share estimated by a seeded simulation (a false positive rate, a coverage ...).

    Attributes
    ----------
    value : float
        The reference run's estimate (``source`` says with how many data sets and which seed).
    hint, source : str
        As in :class:`Number`.

    Notes
    -----
    ``check(..., n=n)`` accepts ``|answer - value| <= 4 sqrt(value (1 - value) / n) + 2 / n``: four Monte
    Carlo standard errors of an estimate from ``n`` data sets, plus two data sets' worth of slack (a reference
    value of 0 or 1 has zero variance).
    """

    value: float
    hint: str
    source: str

    def tolerance(self, n: int) -> float:
        p = float(self.value)
        return 4.0 * math.sqrt(p * (1.0 - p) / n) + 2.0 / n


@dataclass(frozen=True)
class Choice:
    """A multiple-choice answer: the right letter and a hint for each wrong one.

    Attributes
    ----------
    answer : str
        The right option's letter (lower case).
    hints : mapping of str to str
        A hint per wrong letter (what choosing it reveals); every option letter but ``answer`` has one.
    source : str
        Where the right answer is established (a table, a computed number, the paper).
    """

    answer: str
    hints: Mapping[str, str]
    source: str

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(sorted({self.answer, *self.hints}))


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one check.

    Attributes
    ----------
    exercise : str
        The exercise's number, e.g. ``"1.2"``.
    right : bool
        Whether the answer is accepted.
    message : str
        ``"right"`` or ``"not yet - <hint>"``.
    """

    exercise: str
    right: bool
    message: str = field(default="")

    @property
    def line(self) -> str:
        """The line printed in the notebook: ``Exercise <n>: <message>``."""
        return f"Exercise {self.exercise}: {self.message}"

    def to_record(self) -> dict[str, object]:
        return {"exercise": self.exercise, "right": self.right, "message": self.message}

    def _ipython_display_(self) -> None:
        """Show nothing as a cell's value: :func:`check` has printed :attr:`line` already."""


def _not_yet(exercise: str, hint: str) -> CheckResult:
    return CheckResult(exercise, False, f"{NOT_YET} - {hint}")


def _as_number(answer: object) -> float | None:
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        # numpy scalars are numbers.Real; a 0-d array or a one-element Series/array is accepted too
        try:
            import numpy as np

            arr = np.asarray(answer)
            if arr.size != 1 or arr.dtype.kind not in "iuf":
                return None
            answer = arr.reshape(()).item()
        except (TypeError, ValueError):
            return None
    value = float(answer)
    return value if math.isfinite(value) else None


def evaluate(exercise: str, answer: object, expected: Number | Proportion | Choice, *,
             n: int | None = None) -> CheckResult:
    """Compare ``answer`` with ``expected`` (no printing); see the module docstring for the rules.

    Raises
    ------
    TypeError
        ``expected`` is not a Number, Proportion or Choice.
    ValueError
        A :class:`Proportion` checked without ``n`` (the number of simulated data sets), or ``n < 1``.
    """
    if isinstance(expected, Proportion):
        if n is None or isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n: exercise {exercise} is a simulated share; pass n= the number of simulated "
                             f"data sets (a positive integer), got {n!r}")
    elif not isinstance(expected, Number | Choice):
        raise TypeError(f"expected: exercise {exercise}: a Number, Proportion or Choice, "
                        f"got {type(expected).__name__}")
    if answer is Ellipsis or answer is None:
        return _not_yet(exercise, _EMPTY_HINT)
    if isinstance(expected, Choice):
        letter = answer.strip().lower() if isinstance(answer, str) else None
        if letter not in expected.options:
            return _not_yet(exercise, "answer with one letter, one of " + ", ".join(expected.options))
        if letter == expected.answer:
            return CheckResult(exercise, True, RIGHT)
        return _not_yet(exercise, expected.hints[letter])
    value = _as_number(answer)
    if value is None:
        return _not_yet(exercise, "the answer should be one finite number (a float or an int)")
    if isinstance(expected, Proportion):
        if not 0.0 <= value <= 1.0:
            return _not_yet(exercise, "a share of data sets is between 0 and 1")
        ok = abs(value - expected.value) <= expected.tolerance(int(n))
    else:
        ok = abs(value - expected.value) <= expected.atol + expected.rtol * abs(expected.value)
    return CheckResult(exercise, True, RIGHT) if ok else _not_yet(exercise, expected.hint)
