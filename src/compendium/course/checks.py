"""Self-checks of the course labs: "right", or "not yet" with a hint, never the answer.

Each exercise of a lab ends with a call such as ``check("1.2", chi2)``. The expected answer is looked up in
:data:`compendium.course.answers.ANSWERS` and judged here:

* :class:`Number`: a number computed from the data. It is **right when it agrees with the expected value at
  the precision it is given in**: an answer is read as the decimal it was written as (a float as its shortest
  repr, ``214.80`` and ``214.8`` alike; a string keeps its trailing zeros) with **at least two significant
  digits** (:data:`MIN_DIGITS`: a float cannot say that ``0.20`` had two), and accepted when the expected
  value rounds to it, ``|answer - value| <= unit / 2`` for ``unit`` its last digit's place. A full-precision
  answer is held to a floor instead (``atol``, ``rtol * |value|``; default 1e-9 relative: another order of the
  same sums; a check whose answer starts from a printed number widens it to what the print allows). The
  expected value is a constant with its provenance, or computed through the library when the check runs (at
  the settings the lab's check cell passes, the lab's defaults otherwise).
* :class:`Proportion`: a share of simulated data sets. A seeded simulation is deterministic: at the lab's own
  settings (number of data sets, seed, ...) the share is known exactly (:class:`Runs`, the reference runs) and
  judged as a number. At other settings it is judged against the largest reference run within its Monte
  Carlo error, ``4 sqrt(p (1 - p) / n) + 2 / n``, and the verdict says that it was checked loosely.
* :class:`Choice`: multiple choice, one letter; each wrong letter has its own hint.

Every :class:`Number` and :class:`Proportion` lists the **common wrong answers** of the instructor's guide
(:class:`Wrong`: a value, or an exception the student's code raised, :class:`Raised`), each with its own hint:
an answer that agrees with one of them at its precision (and not with the right value) gets that hint. A
right answer is never turned down: one that agrees with a wrong one too (two digits of two close numbers) is
right, with a note that one more digit would tell them apart. Any other answer gets the exercise's general
hint.

A check prints one line, ``Exercise 1.2: right`` or ``Exercise 1.2: not yet - <hint>``, and returns a
:class:`CheckResult`. A placeholder ``...`` (the student notebooks' stub), ``None``, a wrong type or a
non-finite number is "not yet": no check passes on an empty answer. Hints point at the step, never at the
number. :mod:`compendium.course.executed` reads these lines back from an executed notebook.
"""

from __future__ import annotations

import decimal
import inspect
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "MIN_DIGITS",
    "CheckResult",
    "Choice",
    "Number",
    "Proportion",
    "Raised",
    "Runs",
    "Share",
    "Wrong",
    "evaluate",
    "reading",
]

RIGHT = "right"
NOT_YET = "not yet"
#: An answer is read with at least this many significant digits (a float cannot say that 0.20 had two).
MIN_DIGITS = 2
_EMPTY_HINT = "no answer yet: replace the `...` with your answer"
_AMBIGUOUS = (" (at this precision it also agrees with a common wrong answer: one more digit would tell them "
              "apart)")
_Value = float | Callable[..., float]


# --------------------------------------------------------------------------------------------------------
# what an exercise expects
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Raised:
    """A wrong answer that is an error: the student's code raised ``error`` (a message containing ``match``).

    Used with :func:`compendium.course.attempt`, which returns the exception instead of letting it stop the
    cell, so that the check can say what the error means.
    """

    error: type[BaseException]
    match: str = ""

    def matches(self, exc: BaseException) -> bool:
        return isinstance(exc, self.error) and self.match in str(exc)


@dataclass(frozen=True)
class Share:
    """A wrong answer of a simulated share that is another outcome column of the same simulation run."""

    column: str


@dataclass(frozen=True)
class Wrong:
    """A common wrong answer (a misconception) and the hint it earns.

    Attributes
    ----------
    value : float, callable, Raised or Share
        The wrong value (a callable is computed when the check runs, with the check's settings, as
        :attr:`Number.value`), an error the student's code raised, or another column of a simulation run.
    hint : str
        What this answer reveals and which step to re-check; never the right value.
    why : str
        How the wrong value arises (for the instructor's guide and the tests).
    """

    value: _Value | Raised | Share
    hint: str
    why: str = ""


@dataclass(frozen=True)
class Number:
    """A numeric answer computed from the data.

    Attributes
    ----------
    expected : float or callable
        The expected answer at full precision, or a function computing it through the library when the check
        runs (for what a lab's parameters or another version of the library may move); the function's
        parameters are settings the check is called with (``check("8.4", x, min_share=min_share,
        alpha=alpha)``), each defaulting to the lab's value in :attr:`defaults`.
    hint : str
        Shown with "not yet" when the answer matches no listed wrong answer; names the step, never the value.
    source : str
        Provenance: the call that produced the value (and on which data), or the paper and table.
    wrong : tuple of Wrong
        The common wrong answers, each with its own hint.
    atol, rtol : float
        The floor of the tolerance: an answer within ``max(atol, rtol * |value|)`` is right whatever its
        precision (``rtol`` 1e-9: a full-precision answer computed in another order; wider where the answer
        starts from a printed, rounded number).
    defaults : mapping
        The lab's parameters behind the settings of a computed value (or of a computed wrong answer): what a
        check called without them assumes, and what :attr:`value` is computed at.
    """

    expected: _Value
    hint: str
    source: str
    wrong: tuple[Wrong, ...] = ()
    atol: float = 0.0
    rtol: float = 1e-9
    defaults: Mapping[str, object] = field(default_factory=dict)

    @property
    def value(self) -> float:
        """The expected answer at the lab's defaults (computed through the library when it is a function)."""
        return _resolve(self.expected, self.defaults)

    def floor(self, target: float) -> float:
        """The smallest tolerance around ``target`` (see :attr:`atol`, :attr:`rtol`)."""
        return max(self.atol, self.rtol * abs(target))


@dataclass(frozen=True)
class Runs:
    """The reference runs of one lab's seeded simulation: per setting, the count of data sets per outcome.

    Attributes
    ----------
    settings : tuple of str
        The keywords of ``check`` that define a run: ``n`` (the number of data sets), ``seed``, and the
        design (``k``, ``alpha`` ...).
    counts : mapping
        ``(value of each setting, in order) -> {outcome column: number of data sets where it happened}``.
    source : str
        How the counts were made (the lab, its parameters, the command).
    monte_carlo : tuple of str
        The settings that only change the Monte Carlo noise (default ``n`` and ``seed``): a run that differs
        from the reference runs in these alone is checked loosely; one whose design differs is not checked.
    """

    settings: tuple[str, ...]
    counts: Mapping[tuple, Mapping[str, int]]
    source: str
    monte_carlo: tuple[str, ...] = ("n", "seed")

    def __post_init__(self) -> None:
        if "n" not in self.settings:
            raise ValueError("settings: a simulation's runs need the number of data sets 'n', got "
                             f"{self.settings}")
        for key in self.counts:
            if len(key) != len(self.settings):
                raise ValueError(f"counts: run {key} does not give one value per setting {self.settings}")

    def n_of(self, key: tuple) -> int:
        return int(key[self.settings.index("n")])

    @property
    def lab(self) -> dict[str, object]:
        """The settings of the lab's own run (the first of :attr:`counts`): what a check called without some
        of them assumes."""
        return dict(zip(self.settings, next(iter(self.counts)), strict=True))

    def design(self, key: tuple) -> tuple:
        """The settings of a run that are not Monte Carlo noise."""
        return tuple(v for name, v in zip(self.settings, key, strict=True) if name not in self.monte_carlo)

    def largest(self, key: tuple) -> tuple | None:
        """The reference run with the most data sets and the design of ``key`` (None when none has it)."""
        same = [run for run in self.counts if self.design(run) == self.design(key)]
        return max(same, key=self.n_of) if same else None


@dataclass(frozen=True)
class Proportion:
    """A share of simulated data sets (a false positive rate, a power ...), from a seeded simulation.

    Attributes
    ----------
    runs : Runs
        The reference runs; at their settings the answer is known exactly.
    column : str
        The outcome column of :attr:`runs` this exercise asks for.
    hint, source : str
        As in :class:`Number`.
    wrong : tuple of Wrong
        Common wrong answers: constants (``0.05``: the nominal level) or :class:`Share` (another column of the
        same run). Giving the count of data sets instead of their share is always recognised.
    """

    runs: Runs
    column: str
    hint: str
    source: str
    wrong: tuple[Wrong, ...] = ()

    @property
    def value(self) -> float:
        """The share of the lab's own run (its size, seed and design)."""
        lab = self.runs.lab
        return self.runs.counts[tuple(lab.values())][self.column] / int(lab["n"])

    def tolerance(self, n: int, p: float) -> float:
        """Monte Carlo tolerance of a share from ``n`` data sets around a reference share ``p``."""
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
        ``"right"`` (possibly with a note) or ``"not yet - <hint>"``.
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


# --------------------------------------------------------------------------------------------------------
# reading an answer
# --------------------------------------------------------------------------------------------------------


def _decimal(answer: object) -> decimal.Decimal | None:
    """The answer as the decimal it was written as (None when it is not one finite number)."""
    if isinstance(answer, bool) or answer is None:
        return None
    if isinstance(answer, decimal.Decimal):
        return answer if answer.is_finite() else None
    if isinstance(answer, str):
        text = answer.strip().replace("_", "")
        try:
            value = decimal.Decimal(text)
        except decimal.InvalidOperation:
            return None
        if not value.is_finite():
            return None
        return value if ("." in text or "e" in text.lower()) else value.normalize()
    if isinstance(answer, numbers.Integral):
        return decimal.Decimal(int(answer)).normalize()
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a requirement of the compendium
        np = None
    if np is not None and isinstance(answer, np.floating) and not isinstance(answer, np.float64):
        text = str(answer)  # the shortest repr of a float32 (or float16) in its own precision
    elif isinstance(answer, numbers.Real):
        value = float(answer)
        if not math.isfinite(value):
            return None
        text = repr(value)
    elif np is not None:  # a 0-d array or a one-element Series/array
        try:
            arr = np.asarray(answer)
        except (TypeError, ValueError):
            return None
        if arr.size != 1 or arr.dtype.kind not in "iuf":
            return None
        return _decimal(arr.reshape(()).item() if arr.dtype.kind != "f" else arr.reshape(())[()])
    else:  # pragma: no cover
        return None
    try:
        value = decimal.Decimal(text)
    except decimal.InvalidOperation:
        return None
    return value.normalize() if value.is_finite() else None


def reading(answer: object) -> tuple[float, float] | None:
    """``(value, unit)``: the answer and the place of its last significant digit, read with at least
    :data:`MIN_DIGITS` significant digits (unit 0 for an answer of exactly 0); None when ``answer`` is not one
    finite number.

    >>> reading(214.80), reading("214.80"), reading(0.2), reading(470)
    ((214.8, 0.1), (214.8, 0.01), (0.2, 0.01), (470.0, 10.0))
    """
    value = _decimal(answer)
    if value is None:
        return None
    if value == 0:
        return 0.0, 0.0
    exponent = value.as_tuple().exponent
    places = min(int(exponent), value.adjusted() - (MIN_DIGITS - 1))
    return float(value), float(decimal.Decimal(1).scaleb(places))


def _agrees(value: float, unit: float, target: float, floor: float) -> bool:
    """Whether ``target`` rounds to ``value`` at ``unit`` (or lies within ``floor`` of it)."""
    half = 0.5 * unit * (1.0 + 1e-9) + 1e-15 * max(abs(value), abs(target))
    return abs(value - target) <= max(half, floor)


# --------------------------------------------------------------------------------------------------------
# judging it
# --------------------------------------------------------------------------------------------------------

_CACHE: dict[tuple, float] = {}


def _parameters(fn: Callable) -> tuple[str, ...]:
    return tuple(inspect.signature(fn).parameters)


def needed_settings(expected: Number | Proportion | Choice) -> tuple[str, ...]:
    """The keywords ``check`` must be given for this exercise (the simulation's settings, or the parameters
    of a value computed when the check runs)."""
    if isinstance(expected, Proportion):
        return expected.runs.settings
    if isinstance(expected, Number):
        names = [*_parameters(expected.expected)] if callable(expected.expected) else []
        for w in expected.wrong:
            if callable(w.value):
                names += [p for p in _parameters(w.value) if p not in names]
        return tuple(names)
    return ()


def _resolve(value: _Value, settings: Mapping[str, object]) -> float:
    if not callable(value):
        return float(value)
    names = _parameters(value)
    key = (value, tuple((name, settings[name]) for name in names))
    if key not in _CACHE:
        _CACHE[key] = float(value(**{name: settings[name] for name in names}))
    return _CACHE[key]


def _not_yet(exercise: str, hint: str) -> CheckResult:
    return CheckResult(exercise, False, f"{NOT_YET} - {hint}")


def _judge_number(exercise, answer, truth: float, floor: Callable[[float], float],
                  wrongs: list[tuple[float, str]], general: str, note: str = "",
                  loose: float | None = None) -> CheckResult:
    read = reading(answer)
    if read is None:
        return _not_yet(exercise, "the answer should be one finite number (a float or an int)")
    value, unit = read
    if loose is not None:  # a simulation at other settings than the reference runs
        right = abs(value - truth) <= loose
    else:
        right = abs(value - truth) <= floor(truth) or _agrees(value, unit, truth, floor(truth))
    # a wrong answer that is the right value at these settings (a simulation where two tests happen to reject
    # in the same data sets) is not a misconception here
    wrongs = [(w, hint) for w, hint in wrongs if abs(w - truth) > floor(truth)]
    matched = [(abs(value - w), hint) for w, hint in wrongs
               if abs(value - w) <= floor(w) or _agrees(value, unit, w, floor(w))]
    exact = abs(value - truth) <= floor(truth)
    if right:
        ambiguous = matched and not exact and loose is None
        return CheckResult(exercise, True, RIGHT + note + (_AMBIGUOUS if ambiguous else ""))
    if matched:
        return _not_yet(exercise, min(matched)[1])
    return _not_yet(exercise, general)


def _defaults(expected) -> dict[str, object]:
    if isinstance(expected, Proportion):
        return expected.runs.lab
    return dict(expected.defaults) if isinstance(expected, Number) else {}


def _settings_iv(exercise: str, expected, settings: Mapping[str, object]) -> dict[str, object]:
    """The settings of the check, the lab's defaults filling those not given; errors name the setting."""
    needed = needed_settings(expected)
    settings = {**{k: v for k, v in _defaults(expected).items() if k in needed}, **settings}
    missing = [name for name in needed if name not in settings]
    unknown = sorted(set(settings) - set(needed))
    if missing:
        what = ("a simulated share; pass its settings" if isinstance(expected, Proportion)
                else "computed when the check runs; pass")
        raise ValueError(f"{missing[0]}: exercise {exercise} is {what} {', '.join(f'{m}=' for m in needed)} "
                         f"(got {sorted(settings) or 'none'})")
    if unknown:
        raise ValueError(f"{unknown[0]}: exercise {exercise} takes "
                         + (f"the settings {', '.join(needed)}" if needed else "no settings")
                         + f", got {unknown[0]}={settings[unknown[0]]!r}")
    if isinstance(expected, Proportion):
        n = settings["n"]
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n: exercise {exercise} is a simulated share; n is the number of simulated "
                             f"data sets (a positive integer), got {n!r}")
    return settings


def _error_hint(exc: BaseException, wrongs: tuple[Wrong, ...], general: str) -> str:
    for w in wrongs:
        if isinstance(w.value, Raised) and w.value.matches(exc):
            return w.hint
    return f"your code raised {type(exc).__name__} ({str(exc)[:120]}); {general}"


def evaluate(exercise: str, answer: object, expected: Number | Proportion | Choice,
             **settings: object) -> CheckResult:
    """Compare ``answer`` with ``expected`` (no printing); see the module docstring for the rules.

    Parameters
    ----------
    exercise : str
        The exercise's number (for the verdict line).
    answer : object
        A number (float, int, numpy scalar, one-element array, Decimal or numeric string), a letter, ``...``,
        or the exception :func:`compendium.course.attempt` caught.
    expected : Number, Proportion or Choice
    **settings
        A simulation's settings (``n=``, ``seed=`` ...: :attr:`Runs.settings`), or the parameters of a value
        computed when the check runs; those not given are the lab's (:attr:`Runs.lab`,
        :attr:`Number.defaults`).

    Raises
    ------
    TypeError
        ``expected`` is not a Number, Proportion or Choice.
    ValueError
        A setting missing or not taken by the exercise, or ``n`` not a positive integer.
    """
    if not isinstance(expected, Number | Proportion | Choice):
        raise TypeError(f"expected: exercise {exercise}: a Number, Proportion or Choice, "
                        f"got {type(expected).__name__}")
    settings = _settings_iv(exercise, expected, settings)
    if answer is Ellipsis or answer is None:
        return _not_yet(exercise, _EMPTY_HINT)
    if isinstance(expected, Choice):
        letter = answer.strip().lower() if isinstance(answer, str) else None
        if letter not in expected.options:
            return _not_yet(exercise, "answer with one letter, one of " + ", ".join(expected.options))
        if letter == expected.answer:
            return CheckResult(exercise, True, RIGHT)
        return _not_yet(exercise, expected.hints[letter])
    if isinstance(answer, BaseException):
        return _not_yet(exercise, _error_hint(answer, expected.wrong, expected.hint))
    if isinstance(expected, Number):
        truth = _resolve(expected.expected, settings)
        wrongs = [(_resolve(w.value, settings), w.hint) for w in expected.wrong
                  if not isinstance(w.value, Raised | Share)]
        return _judge_number(exercise, answer, truth, expected.floor, wrongs, expected.hint)
    # a simulated share
    runs = expected.runs
    key = tuple(settings[name] for name in runs.settings)
    n = int(settings["n"])
    exact = key in runs.counts
    largest = key if exact else runs.largest(key)
    if largest is None:
        designs = sorted({", ".join(f"{name}={v}" for name, v in zip(runs.settings, run, strict=True)
                                    if name not in runs.monte_carlo) for run in runs.counts})
        return _not_yet(exercise, f"this check knows the lab's design ({'; '.join(designs)}), not yours: "
                                  f"with other settings, judge your share by your own reasoning")
    reference = runs.counts[largest]
    n_reference = runs.n_of(largest)
    truth = reference[expected.column] / n_reference
    wrongs = []
    for w in expected.wrong:
        if isinstance(w.value, Share):
            wrongs.append((reference[w.value.column] / n_reference, w.hint))
        elif not isinstance(w.value, Raised):
            wrongs.append((_resolve(w.value, settings), w.hint))
    read = reading(answer)
    if read is not None and not 0.0 <= read[0] <= 1.0:
        counted = exact and read[0] == reference[expected.column]
        return _not_yet(exercise, "that is a number of data sets: give their share (divide by n)" if counted
                        else "a share of data sets is between 0 and 1")
    floor = lambda target: 1e-9 * abs(target)  # noqa: E731 - a share from counts is exact
    if exact:
        return _judge_number(exercise, answer, truth, floor, wrongs, expected.hint)
    note = (f" (checked to the Monte Carlo error of {n} data sets: the lab's settings "
            f"{', '.join(f'{k}={v}' for k, v in zip(runs.settings, largest, strict=True))} give an "
            f"exact check)")
    return _judge_number(exercise, answer, truth, floor, wrongs, expected.hint, note=note,
                         loose=expected.tolerance(n, truth))
